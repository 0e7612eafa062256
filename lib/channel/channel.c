/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Channel lifecycle, timers and the bookkeeping shared by the transmit
 * (channel_tx.c) and receive (channel_rx.c) paths.
 */
#include <errno.h>
#include <string.h>

#include <rte_log.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "channel_internal.h"
#include "channel_wire.h"
#include "sst_cc.h"
#include "sst_mem.h"
#include "sst_params.h"

/* The channel layer's log type (control events only: the data path counts). */
RTE_LOG_REGISTER(sst_logtype_channel, sst.channel, NOTICE);

enum {
	DEFAULT_REPLAY_WINDOW = 32,
	DEFAULT_MTU = 1232, /* 8 + 8 + 1200 + 16: the prototype's largest packet */
	MIN_MTU = 64,
	MIN_PACKET_LIMIT = 256,
	MAX_MTU = 65507, /* largest UDP payload over IPv4 */
	SKIP_GAP_SPAN = 256,
};

/* Parameters with defaults filled in. */
struct resolved_params {
	uint32_t replay_window;
	uint32_t tx_log;
	uint32_t mtu;
	const struct sst_crypto_ops *crypto;
	const struct sst_cc_ops *cc;
};

static int
resolve_params(const struct sst_channel_params *p, struct resolved_params *r)
{
	if (p == NULL || !sst_params_size_ok(p->size, sizeof(*p), SST_PARAMS_ANY_LARGER) ||
		p->local_channel == 0 || p->peer_channel == 0 || p->upper == NULL ||
		p->lower == NULL || p->upper->receive == NULL || p->upper->acked == NULL ||
		p->upper->lost == NULL || p->upper->ack_due == NULL || p->upper->event == NULL ||
		p->lower->transmit == NULL || p->pool == NULL ||
		(p->ack_forge_for_testing != NULL && p->ack_forge_for_testing->rewrite == NULL))
		return -EINVAL;
	r->replay_window = p->replay_window != 0 ? p->replay_window : DEFAULT_REPLAY_WINDOW;
	r->tx_log = p->tx_log != 0 ? p->tx_log : SST_CHANNEL_TX_LOG_DEFAULT;
	r->mtu = p->mtu != 0 ? p->mtu : DEFAULT_MTU;
	if (sst_replay_size(r->replay_window) == 0 || sst_txlog_size(r->tx_log) == 0 ||
		r->mtu < MIN_MTU || r->mtu > MAX_MTU)
		return -EINVAL;
	r->crypto = sst_crypto_find(p->suite, p->crypto_driver);
	r->cc = sst_cc_find(p->cc != NULL ? p->cc : SST_CC_DEFAULT);
	if (r->crypto == NULL || r->cc == NULL)
		return -ENOENT;
	if (r->mtu <= (uint32_t)SST_CHAN_HDR_LEN + r->crypto->trailer_len)
		return -EINVAL;
	/* Below this the eighth kept for migration would be a few packets. */
	if (p->packet_limit != 0 && p->packet_limit < MIN_PACKET_LIMIT)
		return -EINVAL;
	return 0;
}

/* The channel, then the armor session, the replay window and the tx log's
 * header, each cache-line aligned, in one block. The tx log's entries grow
 * on the DPDK heap with the packets in flight (channel_txlog.h). */
static size_t
layout(const struct resolved_params *r, size_t *session_off, size_t *replay_off, size_t *txlog_off)
{
	size_t off = RTE_ALIGN_CEIL(sizeof(struct sst_channel), RTE_CACHE_LINE_SIZE);

	*session_off = off;
	off += RTE_ALIGN_CEIL(r->crypto->session_size, RTE_CACHE_LINE_SIZE);
	*replay_off = off;
	off += RTE_ALIGN_CEIL(sst_replay_size(r->replay_window), RTE_CACHE_LINE_SIZE);
	*txlog_off = off;
	off += RTE_ALIGN_CEIL(sizeof(struct sst_txlog), RTE_CACHE_LINE_SIZE);
	return off;
}

size_t
sst_channel_size(const struct sst_channel_params *p)
{
	struct resolved_params r;
	size_t a, b, c;
	int rc = resolve_params(p, &r);

	if (rc < 0) {
		rte_errno = -rc;
		return 0;
	}
	return layout(&r, &a, &b, &c);
}

/* splitmix64: a keyed, unpredictable-enough sequence of skip distances for
 * an attacker who does not know the seed. */
static uint64_t
skip_next_random(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

void
channel_schedule_skip(struct sst_channel *ch)
{
	if (ch->skip_state == 0) {
		ch->next_skip = UINT64_MAX;
		return;
	}
	ch->next_skip = ch->txlog->next_seq + CHANNEL_SKIP_MIN_GAP +
			skip_next_random(&ch->skip_state) % SKIP_GAP_SPAN;
}

/* sst_channel_params.ack_forge_for_testing: the honest word is taken
 * first, so that the ack generator's bookkeeping (what it owes, the
 * repeats at gaps) runs as usual, and the rewriter decides what goes out
 * instead. Installed as ack_take at creation, so a channel without a
 * rewriter never runs this. */
static void
channel_take_forged(
	struct sst_ackgen *a, const struct sst_replay *w, uint64_t *ack_seq, uint8_t *ack_count)
{
	struct sst_channel *ch = container_of(a, struct sst_channel, ackgen);

	ch->ack_take_honest(a, w, ack_seq, ack_count);
	ch->ack_forge->rewrite(
		ch->ack_forge_ctx, w->highest, ch->ack_forge_last, ack_seq, ack_count);
	if (*ack_count > SST_CHAN_ACKCT_MAX)
		*ack_count = SST_CHAN_ACKCT_MAX;
	ch->ack_forge_last = *ack_seq;
}

int
sst_channel_init(struct sst_channel *ch, const struct sst_channel_params *p, sst_time_t now)
{
	struct resolved_params r;
	struct sst_rtt_params rtt;
	struct sst_ack_policy ack;
	size_t session_off, replay_off, txlog_off;
	int rc;

	rc = resolve_params(p, &r);
	if (rc < 0)
		return rc;
	memset(ch, 0, sizeof(*ch));
	layout(&r, &session_off, &replay_off, &txlog_off);
	ch->crypto = r.crypto;
	ch->crypto_session = (uint8_t *)ch + session_off;
	ch->replay = (struct sst_replay *)((uint8_t *)ch + replay_off);
	ch->txlog = (struct sst_txlog *)((uint8_t *)ch + txlog_off);
	ch->upper = p->upper;
	ch->upper_ctx = p->upper_ctx;
	ch->lower = p->lower;
	ch->lower_ctx = p->lower_ctx;
	ch->pool = p->pool;
	ch->mem = p->mem != NULL ? p->mem : &sst_mem_rte;
	ch->mtu = r.mtu;
	ch->local_channel = p->local_channel;
	ch->peer_channel = p->peer_channel;
	ch->seq_limit = p->packet_limit != 0 && p->packet_limit < r.crypto->packet_limit
				? p->packet_limit
				: r.crypto->packet_limit;
	ch->skip_state = p->skip_seed;
	ch->rto_start = SST_TIME_NEVER;
	ch->last_tx = SST_TIME_NEVER;
	ch->last_rx = SST_TIME_NEVER;
	ch->rx_ack_now = SST_TIME_NEVER;

	sst_replay_init(ch->replay, r.replay_window);
	sst_txlog_init_grow(ch->txlog, r.tx_log, ch->mem);
	sst_ack_default_policy(&ack);
	if (p->ack_delay != 0)
		ack.max_delay = p->ack_delay;
	if (p->prototype_acks)
		ack.quiet_ack = false; /* the prototype has no quiet rule */
	sst_ackgen_init(&ch->ackgen, &ack);
	ch->ack_record =
		p->prototype_acks ? sst_ackgen_on_receive_prototype : sst_ackgen_on_receive;
	ch->ack_take = p->prototype_acks ? sst_ackgen_take_prototype : sst_ackgen_take;
	if (p->ack_forge_for_testing != NULL) {
		ch->ack_take_honest = ch->ack_take;
		ch->ack_forge = p->ack_forge_for_testing;
		ch->ack_forge_ctx = p->ack_forge_ctx;
		ch->ack_take = channel_take_forged;
	}
	sst_rtt_default_params(&rtt);
	sst_rtt_init(&ch->rtt, &rtt);
	if (p->initial_rtt != 0)
		sst_rtt_sample(&ch->rtt, p->initial_rtt);
	rc = sst_cc_init(&ch->cc, r.cc,
		sst_channel_max_payload(ch) + SST_CHAN_HDR_LEN + r.crypto->trailer_len, now);
	if (rc < 0)
		return rc;
	/* With nothing in flight the bucket holds one initial window: a
	 * response after a pause leaves at once, as from a fresh channel
	 * (Linux's fq: an initial quantum of 10 packets), where 4 packets made
	 * the rest of a small page wait for a rate a full queue had slowed
	 * (docs/evaluation.md, Figure 8). With packets in flight it holds two
	 * (or 250 us of the rate): an ack-clocked sender keeps the
	 * bucket full, and an ack that frees more than two packets (the
	 * window's growth, acks read together) sent the rest back to back,
	 * which a full queue drops four times as often as the second of a
	 * pair (docs/evaluation.md section 2, session 16). */
	sst_pacer_init(&ch->pacer, sst_cc_initial_window(ch->cc.mss), now);
	sst_pacer_set_quantum(&ch->pacer, 2 * (uint64_t)ch->mtu);
	channel_schedule_skip(ch);
	return r.crypto->session_init(ch->crypto_session, &p->keys);
}

void
sst_channel_fini(struct sst_channel *ch)
{
	if (ch == NULL || ch->crypto == NULL)
		return;
	ch->crypto->session_fini(ch->crypto_session);
	sst_txlog_fini(ch->txlog);
	ch->crypto = NULL;
	ch->skip_state = 0;
}

struct sst_channel *
sst_channel_create(const struct sst_channel_params *p, sst_time_t now)
{
	const struct sst_mem_ops *mem;
	struct sst_channel *ch;
	size_t size = sst_channel_size(p);
	int rc;

	if (size == 0)
		return NULL;
	mem = p->mem != NULL ? p->mem : &sst_mem_rte;
	ch = mem->zalloc(mem->ctx, size);
	if (ch == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	rc = sst_channel_init(ch, p, now);
	if (rc < 0) {
		mem->release(mem->ctx, ch, size);
		rte_errno = -rc;
		return NULL;
	}
	ch->alloc_size = size;
	return ch;
}

void
sst_channel_destroy(struct sst_channel *ch)
{
	const struct sst_mem_ops *mem;
	size_t size;

	if (ch == NULL)
		return;
	mem = ch->mem;
	size = ch->alloc_size;
	sst_channel_fini(ch);
	mem->release(mem->ctx, ch, size);
}

uint32_t
sst_channel_max_payload(const struct sst_channel *ch)
{
	return ch->mtu - SST_CHAN_HDR_LEN - ch->crypto->trailer_len;
}

bool
sst_channel_failed(const struct sst_channel *ch)
{
	return ch->failed;
}

int
sst_channel_set_mtu(struct sst_channel *ch, uint32_t mtu)
{
	if (mtu < MIN_MTU || mtu > MAX_MTU ||
		mtu <= (uint32_t)SST_CHAN_HDR_LEN + ch->crypto->trailer_len)
		return -EINVAL;
	ch->mtu = mtu;
	sst_pacer_set_quantum(&ch->pacer, 2 * (uint64_t)mtu);
	return 0;
}

uint32_t
sst_channel_mtu(const struct sst_channel *ch)
{
	return ch->mtu;
}

uint64_t
sst_channel_next_seq(const struct sst_channel *ch)
{
	return ch->txlog->next_seq;
}

uint64_t
sst_channel_rx_highest(const struct sst_channel *ch)
{
	return ch->replay->highest;
}

const struct sst_channel_stats *
sst_channel_stats(const struct sst_channel *ch)
{
	return &ch->stats;
}

void
channel_fail(struct sst_channel *ch, sst_time_t now)
{
	if (ch->failed)
		return;
	ch->failed = true;
	ch->upper->event(ch->upper_ctx, SST_CHANNEL_EV_FAILED, now);
}

void
channel_want_replacement(struct sst_channel *ch, sst_time_t now)
{
	if (ch->replace_reported || ch->failed)
		return;
	ch->replace_reported = true;
	ch->upper->event(ch->upper_ctx, SST_CHANNEL_EV_REPLACE, now);
}

/* RFC 9002's time threshold: 9/8 of the larger of the smoothed and the
 * latest RTT, never below the timer granularity. */
sst_time_t
channel_loss_delay(const struct sst_channel *ch)
{
	sst_time_t rtt = sst_rtt_smoothed(&ch->rtt);
	sst_time_t d;

	if (ch->rtt.latest > rtt)
		rtt = ch->rtt.latest;
	d = rtt + rtt / 8;
	return d > ch->rtt.p.granularity ? d : ch->rtt.p.granularity;
}

static void
txlog_acked(void *ctx, uint64_t seq, const struct sst_txlog_entry *e)
{
	const struct channel_txlog_call *call = ctx;
	struct sst_channel *ch = call->ch;

	ch->stats.acked++;
	ch->upper->acked(ch->upper_ctx, seq, e->cookie, call->now);
}

static void
txlog_lost(void *ctx, uint64_t seq, const struct sst_txlog_entry *e)
{
	const struct channel_txlog_call *call = ctx;
	struct sst_channel *ch = call->ch;

	ch->stats.lost++;
	channel_trace(
		ch, SST_CHANNEL_TRACE_LOSS, call->now, seq, e->ack_eliciting ? e->bytes : 0, 0);
	if (e->ack_eliciting) {
		struct sst_cc_loss_event ev = {
			.now = call->now,
			.seq = seq,
			.bytes = e->bytes,
			.largest_sent = ch->txlog->next_seq - 1,
			.bytes_in_flight = ch->txlog->bytes_in_flight,
		};

		sst_cc_on_loss(&ch->cc, &ev);
		channel_trace_cwnd(ch, call->now);
	}
	ch->upper->lost(ch->upper_ctx, seq, e->cookie, call->now);
}

const struct sst_txlog_events channel_txlog_events = {
	.acked = txlog_acked,
	.lost = txlog_lost,
};

/* The retransmission timer runs while ack-eliciting packets are in flight
 * (RFC 6298 5.1-5.3). */
static sst_time_t
rto_deadline(const struct sst_channel *ch)
{
	if (ch->rto_start == SST_TIME_NEVER || ch->txlog->packets_in_flight == 0)
		return SST_TIME_NEVER;
	return sst_time_add(ch->rto_start, ch->rtt.rto);
}

sst_time_t
sst_channel_next_expiry(const struct sst_channel *ch)
{
	sst_time_t t = ch->ackgen.deadline;

	if (ch->failed)
		return SST_TIME_NEVER;
	t = sst_time_min(t, sst_txlog_loss_time(ch->txlog, channel_loss_delay(ch)));
	return sst_time_min(t, rto_deadline(ch));
}

static bool
still_owed(const struct sst_channel *ch, enum channel_pay what, sst_time_t now)
{
	switch (what) {
	case CHANNEL_PAY_DUE:
		return sst_ackgen_due(&ch->ackgen, now);
	case CHANNEL_PAY_ALL_OWED:
		return sst_ackgen_pending(&ch->ackgen);
	case CHANNEL_PAY_FULL_RUN:
		return sst_ackgen_unacked(&ch->ackgen) > SST_CHAN_ACKCT_MAX;
	}
	return false;
}

void
channel_pay_acks(struct sst_channel *ch, sst_time_t now, enum channel_pay what)
{
	for (int i = 0; i < SST_ACK_WORDS_AT_ONCE && !ch->failed; i++) {
		uint64_t taken = ch->ackgen.taken;

		if ((i > 0 || what != CHANNEL_PAY_DUE) && !still_owed(ch, what, now))
			return;
		ch->upper->ack_due(ch->upper_ctx, now);
		if (ch->ackgen.taken == taken)
			return;
	}
}

void
sst_channel_handle_timeouts(struct sst_channel *ch, sst_time_t now)
{
	struct channel_txlog_call call = {.ch = ch, .now = now};
	struct sst_txlog_events ev = channel_txlog_events;

	if (ch->failed)
		return;
	ev.ctx = &call;
	if (sst_txlog_loss_time(ch->txlog, channel_loss_delay(ch)) <= now)
		sst_txlog_detect_lost(ch->txlog, now, channel_loss_delay(ch), &ev);
	if (rto_deadline(ch) <= now) {
		/* RFC 6298 5.4-5.6: everything outstanding is presumed lost
		 * (the stream layer resends its data in new packets), the timer
		 * backs off and restarts with the next packet sent. */
		struct sst_cc_rto_event rto = {
			.now = now,
			.largest_sent = ch->txlog->next_seq - 1,
			.bytes_in_flight = ch->txlog->bytes_in_flight,
			.no_rtt_sample = ch->rtt.srtt == 0,
		};

		ch->stats.rto++;
		sst_rtt_backoff(&ch->rtt);
		sst_cc_on_rto(&ch->cc, &rto);
		channel_trace(ch, SST_CHANNEL_TRACE_RTO, now, ch->rtt.rto, 0, 0);
		sst_txlog_lose_all(ch->txlog, &ev);
		channel_trace_cwnd(ch, now);
		ch->rto_start = SST_TIME_NEVER;
	}
}

void
sst_channel_handle_expiry(struct sst_channel *ch, sst_time_t now)
{
	sst_channel_handle_timeouts(ch, now);
	if (!ch->failed && sst_ackgen_due(&ch->ackgen, now)) {
		channel_pay_acks(ch, now, CHANNEL_PAY_DUE);
		/* An upper layer that sent nothing must not make us spin. */
		if (sst_ackgen_due(&ch->ackgen, now))
			ch->ackgen.deadline = SST_TIME_NEVER;
	}
}

void
sst_channel_flush_ack(struct sst_channel *ch, sst_time_t now)
{
	if (!ch->failed && ch->ackgen.deadline != SST_TIME_NEVER)
		channel_pay_acks(ch, now, CHANNEL_PAY_DUE);
}

void
sst_channel_info(const struct sst_channel *ch, struct sst_channel_info *info)
{
	info->next_seq = ch->txlog->next_seq;
	info->seq_limit = ch->seq_limit;
	info->largest_acked = ch->txlog->largest_acked;
	info->rx_highest = ch->replay->highest;
	info->bytes_in_flight = ch->txlog->bytes_in_flight;
	info->ack_only_in_flight = ch->txlog->ack_only_in_flight;
	info->cwnd = ch->cc.cwnd;
	info->ssthresh = ch->cc.ssthresh;
	info->srtt = ch->rtt.srtt;
	info->rto = ch->rtt.rto;
	info->trailer_len = ch->crypto->trailer_len;
	info->suite = sst_crypto_suite_name(ch->crypto->suite);
	info->cc = ch->cc.ops->name;
	info->rttvar = ch->rtt.rttvar;
	info->resent_packets = ch->stats.tx_resent_packets;
	info->resent_bytes = ch->stats.tx_resent_bytes;
}

void
sst_channel_set_trace(struct sst_channel *ch, sst_channel_trace_fn fn, void *ctx)
{
	ch->trace = fn;
	ch->trace_ctx = ctx;
	/* The first change after this traces the window it starts from. */
	ch->traced_cwnd = 0;
	ch->traced_ssthresh = 0;
}

void
sst_channel_count_resent(struct sst_channel *ch, uint32_t bytes)
{
	ch->stats.tx_resent_packets++;
	ch->stats.tx_resent_bytes += bytes;
}

int
sst_channel_set_cc(struct sst_channel *ch, const struct sst_cc_ops *ops, sst_time_t now)
{
	int rc;

	if (ch == NULL)
		return -EINVAL;
	rc = sst_cc_switch(&ch->cc, ops, now);
	if (rc == 0)
		channel_update_pacing(ch, now);
	return rc;
}

const struct sst_cc *
sst_channel_cc(const struct sst_channel *ch)
{
	return &ch->cc;
}

void
channel_update_pacing(struct sst_channel *ch, sst_time_t now)
{
	sst_pacer_set_rate(&ch->pacer, sst_cc_pacing_rate(&ch->cc, ch->rtt.srtt), now);
}
