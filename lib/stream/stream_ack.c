/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the channel reports about each stream packet it sent: acknowledged
 * or lost (sst_channel_upper.acked, .lost), by the record its cookie
 * indexes; and every packet in flight lost at once when a channel goes.
 */
#include "stream_ack.h"
#include "stream_chan_finish.h"
#include "stream_ctl.h"
#include "stream_life.h"
#include "stream_tx.h"

static void
release_held_sid(struct sst_stream_chan *c, uint32_t code)
{
	if (code & STREAM_CODE_HELD)
		stream_sid_quiet(c, c->tx_sids, (uint16_t)code, false);
}

static void
loss_sample(struct sst_stream_chan *c, bool lost)
{
	/* Loss rate in 1/65536, averaged over about 64 packets. */
	c->loss_rate = c->loss_rate - (c->loss_rate >> 6) + (lost ? 1024 : 0);
}

/* Bytes of a child's Init segment leave its parent's window. */
static void
stream_uncharge(struct stream_txio *tx, uint32_t len, bool acked)
{
	struct sst_stream *parent = tx->parent;

	tx->charged -= RTE_MIN((uint64_t)len, tx->charged);
	if (parent == NULL || parent->tx == NULL)
		return;
	if (acked)
		sst_flowctl_tx_acked(&parent->tx->fc, len);
	else
		sst_flowctl_tx_lost(&parent->tx->fc, len);
	stream_tx_wake(parent);
}

static void
segment_acked(struct sst_stream_chan *c, const struct stream_sent *r, uint64_t seq, sst_time_t now)
{
	struct sst_stream *s = r->s;
	struct stream_txio *tx = s->tx;
	const struct sst_stream_ops *ops = s->peer->host->p.ops;

	if (s->rx != NULL)
		sst_flowctl_rx_on_ack(&s->rx->fc, seq);
	if (tx == NULL || stream_is_reset(s))
		return;
	sst_sendq_on_acked(&tx->q, r->off, r->len);
	sst_flowctl_tx_acked(&tx->fc, r->len);
	if (r->attachment && stream_tx_bound_on(s, c))
		stream_tx_attach_acked(s);
	if (r->charged)
		stream_uncharge(tx, r->len, true);
	if (tx->parent != NULL && stream_tx_attached_acked(s) && tx->charged == 0) {
		struct sst_stream *parent = tx->parent;

		tx->parent = NULL;
		stream_unref(parent, now);
	}
	if (stream_send_closed(s) && sst_sendq_finished(&tx->q)) {
		if (s->send == STREAM_SEND_CLOSE_QUEUED)
			stream_set_send(s, STREAM_SEND_CLOSE_ACKED);
		stream_check_finished(s, now);
	}
	if (s->writable_wanted && s->tx != NULL &&
		sst_sendq_queued(&s->tx->q) < s->peer->host->p.send_buffer / 2) {
		s->writable_wanted = false;
		if (ops != NULL && ops->writable != NULL && stream_app_holds(s))
			ops->writable(s->peer->host->p.ctx, s, now);
	}
	stream_tx_wake(s);
	if (s->tx != NULL && !sst_sched_entry_is_ready(&s->tx->sched))
		stream_maybe_release_buffers(s, now);
}

void
stream_tx_acked(void *ctx, uint64_t seq, uintptr_t cookie, sst_time_t now)
{
	struct sst_stream_chan *c = ctx;
	struct stream_sent *r;

	if (cookie == 0 || cookie > c->sent_cap)
		return;
	r = &c->sent[cookie - 1];
	loss_sample(c, false);
	switch (r->kind) {
	case SENT_SEGMENT:
		segment_acked(c, r, seq, now);
		break;
	case SENT_ACK: {
		struct sst_stream *s = sst_sid_lookup(c->rx_sids, (uint16_t)r->aux);

		if (s != NULL && s->rx != NULL)
			sst_flowctl_rx_on_ack(&s->rx->fc, seq);
		break;
	}
	case SENT_RESET:
	case SENT_DETACH:
		if (r->aux == 0)
			stream_chan_finish_outcome(c, true, now);
		release_held_sid(c, r->aux);
		break;
	case SENT_ATTACH:
		if (stream_tx_bound_on(r->s, c) && !stream_is_reset(r->s)) {
			stream_tx_attach_acked(r->s);
			r->s->flags &= ~SF_ATTACH_INIT;
			stream_tx_wake(r->s);
		}
		break;
	default:
		break;
	}
	stream_sent_release(c, (uint32_t)cookie, now);
}

static void
record_lost(struct sst_stream_chan *c, struct stream_sent *r, sst_time_t now)
{
	struct sst_stream *s = r->s;

	switch (r->kind) {
	case SENT_SEGMENT:
		if (s->tx == NULL || stream_is_reset(s))
			break;
		sst_sendq_on_lost(&s->tx->q, r->off, r->len);
		sst_flowctl_tx_lost(&s->tx->fc, r->len);
		if (r->charged)
			stream_uncharge(s->tx, r->len, false);
		stream_tx_wake(s);
		break;
	case SENT_ACK:
		/* Resent even after the receive buffers went idle (advertise()
		 * then gives the fresh window): a sender that used up its credit
		 * waits for exactly this update and has nothing else to send. */
		if (r->aux == SST_SID_ROOT) {
			/* A keepalive probe (send_probe()): owed until answered,
			 * whole again (the peer may have acknowledged the packets
			 * of it that arrived and counts Ack packets anew). */
			if (!c->dead)
				c->probe_due = SST_CHANNEL_ACK_ONLY_EVERY;
			break;
		}
		s = sst_sid_lookup(c->rx_sids, (uint16_t)r->aux);
		if (s != NULL && !stream_is_reset(s) && !stream_is_root(s) && !stream_recv_eof(s)) {
			s->flags |= SF_WINDOW_DUE;
			stream_ctl_queue(s);
		}
		break;
	case SENT_ATTACH:
		if (s->tx_chan == c && !stream_tx_attached_acked(s) && !stream_is_reset(s)) {
			s->flags |= SF_ATTACH_DUE;
			if (s->tx_attach == STREAM_TX_ATTACHING)
				stream_set_tx_attach(s, STREAM_TX_BOUND);
			stream_ctl_queue(s);
		}
		break;
	case SENT_RESET:
	case SENT_DETACH:
		if (r->aux == 0)
			stream_chan_finish_outcome(c, false, now);
		else if (!c->dead)
			stream_chan_queue_code(c, r->aux);
		break;
	default:
		break;
	}
}

void
stream_tx_lost(void *ctx, uint64_t seq, uintptr_t cookie, sst_time_t now)
{
	struct sst_stream_chan *c = ctx;

	RTE_SET_USED(seq);
	if (cookie == 0 || cookie > c->sent_cap)
		return;
	loss_sample(c, true);
	record_lost(c, &c->sent[cookie - 1], now);
	stream_sent_release(c, (uint32_t)cookie, now);
}

void
stream_tx_lost_all(struct sst_stream_chan *c, sst_time_t now)
{
	for (uint32_t i = 0; i < c->sent_cap; i++)
		if (c->sent[i].kind != SENT_FREE) {
			record_lost(c, &c->sent[i], now);
			stream_sent_release(c, i + 1, now);
		}
}
