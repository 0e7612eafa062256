/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The queues of work a channel serves at its next flush: streams with
 * segments ready (the scheduler), streams with a control packet due (an
 * Attach or a window update), and the ring of Resets and Detaches owed.
 */
#include <errno.h>

#include <rte_malloc.h>

#include "stream_ctl.h"

void
stream_tx_wake_slow(struct sst_stream *s)
{
	struct sst_stream_chan *c = s->tx_chan;

	if (s->tx == NULL || c == NULL || c->dead || stream_is_reset(s) ||
		!sst_sendq_pending(&s->tx->q))
		return;
	if (s->tx->sched.sched != NULL && s->tx->sched.sched != &c->sched)
		sst_sched_remove(&s->tx->sched);
	sst_sched_ready(&c->sched, &s->tx->sched);
	stream_chan_wants_flush(c);
}

/* Attach s on its tx channel; with the Init flag when the peer never heard
 * of it (its Init was never acknowledged and it did not come from the peer). */
void
stream_attach_due(struct sst_stream *s)
{
	s->flags |= SF_ATTACH_DUE;
	if (stream_is_ours(s) && !s->peer_knows)
		s->flags |= SF_ATTACH_INIT;
	else
		s->flags &= ~SF_ATTACH_INIT;
	stream_ctl_queue(s);
}

static void
ctl_queue_on(struct sst_stream *s, struct sst_stream_chan *c)
{
	if ((s->flags & SF_IN_CTL_QUEUE) || stream_is_root(s) || c == NULL || c->dead)
		return;
	s->flags |= SF_IN_CTL_QUEUE;
	stream_ref(s);
	stream_queue_push(&c->ctl, c->peer->host->ctl_next, s);
	stream_chan_wants_flush(c);
}

void
stream_ctl_queue(struct sst_stream *s)
{
	ctl_queue_on(s, (s->flags & SF_ATTACH_DUE) ? s->tx_chan : s->rx_chan);
}

/*
 * A stream waits in one channel's control queue at a time, but its Attach
 * is due on its sending channel and its window update on its receiving
 * one: once taken off c's queue (sent there, or c is going away), it joins
 * the queue of the other channel where something is still due, or that
 * (after a migration) would wait for a packet that never comes.
 */
void
stream_ctl_requeue(struct sst_stream *s, const struct sst_stream_chan *c)
{
	if ((s->flags & SF_ATTACH_DUE) && s->tx_chan != c)
		ctl_queue_on(s, s->tx_chan);
	if ((s->flags & SF_WINDOW_DUE) && s->rx_chan != c)
		ctl_queue_on(s, s->rx_chan);
}

/*
 * s is about to change channels while it waits in a control queue, which
 * may then hold it with nothing due there, or with something due that a
 * retiring channel will never have room to send, while its Attach or
 * window update is due elsewhere. The channel holding it (its old sending
 * or receiving channel) hands it over at its next flush (ctl_sweep()).
 */
void
stream_ctl_moving(struct sst_stream *s)
{
	if (!(s->flags & SF_IN_CTL_QUEUE))
		return;
	if (s->tx_chan != NULL) {
		s->tx_chan->ctl_sweep = true;
		stream_chan_wants_flush(s->tx_chan);
	}
	if (s->rx_chan != NULL) {
		s->rx_chan->ctl_sweep = true;
		stream_chan_wants_flush(s->rx_chan);
	}
}

/*
 * Grow the ring of codes owed to hold at least n (doubling, from
 * STREAM_CODES_INIT, up to code_max); the codes keep their order.
 * Returns 0 or -ENOMEM (past code_max or no memory: unchanged).
 */
int
stream_chan_codes_reserve(struct sst_stream_chan *c, uint32_t n)
{
	const struct sst_mem_ops *mem = c->peer->host->p.mem;
	uint32_t cap = RTE_MAX(c->code_cap, (uint32_t)STREAM_CODES_INIT / 2);
	uint32_t *codes;

	if (n <= c->code_cap)
		return 0;
	if (n > c->code_max)
		return -ENOMEM;
	while (cap < n)
		cap *= 2;
	cap = RTE_MIN(cap, c->code_max);
	codes = mem->zalloc(mem->ctx, (size_t)cap * sizeof(*codes));
	if (codes == NULL) {
		c->stats.table_grow_failures++;
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < c->code_count; i++)
		codes[i] = c->codes[(c->code_head + i) % c->code_cap];
	mem->release(mem->ctx, c->codes, (size_t)c->code_cap * sizeof(*c->codes));
	c->codes = codes;
	c->code_head = 0;
	c->code_cap = cap;
	return 0;
}

void
stream_chan_queue_code(struct sst_stream_chan *c, uint32_t code)
{
	/* Codes that hold a SID always fit: at most one per attached SID, and
	 * room for them and for the stateless ones is reserved before a SID
	 * is taken (stream_chan_sid_take()). Stateless Resets, which a
	 * hostile peer could make us owe without end, are dropped beyond
	 * STREAM_CODES_STATELESS queued or when the ring cannot grow. */
	if (!(code & STREAM_CODE_HELD) &&
		(c->code_count >= STREAM_CODES_STATELESS ||
			stream_chan_codes_reserve(c, c->code_count + 1) < 0))
		return;
	c->codes[(c->code_head + c->code_count) % c->code_cap] = code;
	c->code_count++;
	stream_chan_wants_flush(c);
}

/*
 * Give up our SID for s with a Detach or a Reset naming it. Until the peer
 * acknowledges that packet the SID stays attached to a marker (so a late
 * Reply naming it is refused and the SID cannot be reused while the peer
 * may still map it to s); the acknowledgment starts its quiet period.
 */
void
stream_give_up_tx_sid(struct sst_stream *s, uint32_t kind)
{
	struct sst_stream_chan *c = s->tx_chan;

	if (!stream_tx_bound(s))
		return;
	stream_tx_unbind(s);
	if (c == NULL || c->dead)
		return;
	if (sst_sid_set_ptr(c->tx_sids, s->tx_sid, &c->held) < 0)
		return;
	stream_chan_queue_code(c, s->tx_sid | kind | STREAM_CODE_HELD);
}
