/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>

#include "channel_ack.h"
#include "channel_wire.h"
#include "sst_channel.h"

void
sst_ack_default_policy(struct sst_ack_policy *p)
{
	p->max_delay = 10 * SST_NSEC_PER_MSEC;
	p->eliciting_threshold = 2;
	p->ack_only_threshold = SST_CHANNEL_ACK_ONLY_EVERY;
	p->quiet_ack = true;
}

int
sst_ackgen_init(struct sst_ackgen *a, const struct sst_ack_policy *p)
{
	if (p->eliciting_threshold == 0 || p->ack_only_threshold == 0)
		return -EINVAL;
	a->policy = *p;
	a->eliciting = 0;
	a->ack_only = 0;
	a->deadline = SST_TIME_NEVER;
	a->reordered = 0;
	a->repeat = 0;
	a->taken = 0;
	a->proto_late = 0;
	a->proto_late_due = false;
	return 0;
}

void
sst_ackgen_on_receive(struct sst_ackgen *a, uint64_t seq, uint64_t highest, bool ack_eliciting,
	bool quiet, sst_time_t now)
{
	if (seq != highest + 1) {
		/* A gap or a late packet: tell the sender now. A late packet
		 * gets its own ack word; a gap is reported by the next word
		 * anyway (its run starts at the new highest). */
		if (seq < highest)
			a->reordered = seq;
		else if (highest != 0)
			a->repeat = highest;
		a->deadline = now;
	}
	if (ack_eliciting) {
		if (++a->eliciting >= a->policy.eliciting_threshold)
			a->deadline = now;
		else if (a->deadline == SST_TIME_NEVER)
			a->deadline = sst_time_add(now, a->policy.max_delay);
	} else if (++a->ack_only >= a->policy.ack_only_threshold ||
		   (quiet && a->policy.quiet_ack)) {
		a->deadline = now;
	}
}

void
sst_ackgen_take(
	struct sst_ackgen *a, const struct sst_replay *w, uint64_t *ack_seq, uint8_t *ack_count)
{
	a->taken++;
	if (a->reordered != 0 && sst_replay_received(w, a->reordered)) {
		/* The late packet's word goes first; the highest is still owed,
		 * so the deadline (already now) stays for one more ack. */
		*ack_seq = a->reordered;
		*ack_count = (uint8_t)sst_replay_run_below(w, a->reordered, SST_CHAN_ACKCT_MAX);
		a->reordered = 0;
		return;
	}
	if (a->repeat != 0 && sst_replay_received(w, a->repeat) &&
		!sst_replay_received(w, a->repeat + 1)) {
		/* The run below a gap again, before the gap's word (unless a
		 * late packet closed the gap: its word covered the run); the
		 * deadline (already now) stays for the highest. */
		*ack_seq = a->repeat;
		*ack_count = (uint8_t)sst_replay_run_below(w, a->repeat, SST_CHAN_ACKCT_MAX);
		a->repeat = 0;
		return;
	}
	*ack_seq = w->highest;
	*ack_count = (uint8_t)sst_replay_run_below(w, w->highest, SST_CHAN_ACKCT_MAX);
	a->eliciting = 0;
	a->ack_only = 0;
	a->reordered = 0;
	a->repeat = 0;
	a->deadline = SST_TIME_NEVER;
}

void
sst_ackgen_on_receive_prototype(struct sst_ackgen *a, uint64_t seq, uint64_t highest,
	bool ack_eliciting, bool quiet, sst_time_t now)
{
	if (seq <= SST_CHANNEL_PROTOTYPE_SEQ_MAX) {
		sst_ackgen_on_receive(a, seq, highest, ack_eliciting, quiet, now);
		/* The prototype words each run once. */
		a->repeat = 0;
		return;
	}
	/* Truncated, the number is behind the highest recorded: a late
	 * packet, acknowledged alone at once. */
	a->proto_late = (uint16_t)seq;
	a->proto_late_due = true;
	a->deadline = now;
	if (ack_eliciting)
		a->eliciting++;
	else
		a->ack_only++;
}

void
sst_ackgen_take_prototype(
	struct sst_ackgen *a, const struct sst_replay *w, uint64_t *ack_seq, uint8_t *ack_count)
{
	if (a->proto_late_due) {
		a->taken++;
		*ack_seq = a->proto_late;
		*ack_count = 0;
		a->proto_late_due = false;
		a->eliciting = 0;
		a->ack_only = 0;
		a->reordered = 0;
		a->deadline = SST_TIME_NEVER;
		return;
	}
	sst_ackgen_take(a, w, ack_seq, ack_count);
	if (*ack_seq > SST_CHANNEL_PROTOTYPE_SEQ_MAX) {
		*ack_seq = SST_CHANNEL_PROTOTYPE_SEQ_MAX;
		*ack_count = SST_CHAN_ACKCT_MAX;
	}
}
