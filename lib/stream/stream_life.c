/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A stream's lifecycle: its control block from allocation to reaping, its
 * references, the send and receive buffers attached on demand (and the
 * FIFO of streams waiting for a send buffer), the idle sweep, the end of a
 * stream (finished or reset) and the quiet period of its SIDs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_log.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "stream_life.h"
#include "stream_ctl.h"
#include "stream_usid.h"

static_assert(sizeof(struct sst_stream) <= 96, "an idle stream costs at most 96 bytes");

size_t
sst_stream_control_block_size(void)
{
	return sizeof(struct sst_stream);
}

const char *
sst_stream_end_describe(enum sst_stream_end why)
{
	switch (why) {
	case SST_STREAM_FINISHED:
		return "it finished";
	case SST_STREAM_RESET_LOCAL:
		return "we reset it";
	case SST_STREAM_RESET_REMOTE:
		return "the peer reset it";
	case SST_STREAM_REFUSED:
		return "the service was refused";
	case SST_STREAM_ABORTED:
		return "the peer or its host went away";
	case SST_STREAM_TIMED_OUT:
		return "the peer stopped answering (dead-peer timeout)";
	}
	return "unknown";
}

struct sst_stream *
stream_alloc(struct sst_stream_peer *p, enum stream_role role, enum stream_life_state life,
	enum stream_service_state service)
{
	struct sst_stream_host *h = p->host;
	struct sst_stream *s = h->slab_free;

	/* Blocks never used are taken in order only when none was freed, so
	 * an idle host has touched none of its array. */
	if (s != NULL) {
		h->slab_free = s->link;
	} else if (h->slab_fresh < h->p.max_streams) {
		s = &h->slab[h->slab_fresh++];
	} else {
		h->stats.no_stream++;
		return NULL;
	}
	h->slab_used++;
	memset(s, 0, sizeof(*s));
	s->peer = p;
	s->role = role;
	s->life = life;
	s->service = service;
	s->refs = 1; /* the application's handle, or the accept queue's */
	s->tx_window = sst_window_encode(p->host->p.rx_window_min);
	p->nstreams++;
	p->nours += role == STREAM_OURS;
	return s;
}

static void
stream_free(struct sst_stream *s, sst_time_t now)
{
	struct sst_stream_peer *p = s->peer;

	stream_release_sids(s, now);
	if (s->tx != NULL || s->rx != NULL)
		stream_release_buffers(s, true, now);
	stream_usid_remove(p, s);
	p->nstreams--;
	p->nours -= stream_is_ours(s);
	p->host->stats.streams_closed++;
	stream_slab_put(p->host, s);
	if (unlikely(p->gone))
		stream_peer_gone_freed(p);
}

void
stream_slab_put(struct sst_stream_host *h, struct sst_stream *s)
{
	s->link = h->slab_free;
	h->slab_free = s;
	h->slab_used--;
}

/*
 * A stream lives while the protocol still needs it (until it finished or
 * was reset) and while anything refers to it: the application's handle, an
 * accept queue, a packet in flight, a child being attached, the control
 * queue. When both are over, the stream goes on the reap list and is freed
 * at the next safe point (the end of a received packet or of a flush), never
 * deep inside processing that may still use it. Never frees at once: the
 * caller's callers may still be using s.
 */
void
stream_unref(struct sst_stream *s, sst_time_t now)
{
	RTE_SET_USED(now);
	if (--s->refs == 0 && stream_is_ended(s))
		stream_ended(s);
}

void
stream_ended(struct sst_stream *s)
{
	struct sst_stream_host *h = s->peer->host;

	if (s->refs != 0 || stream_is_root(s) || (s->flags & SF_IN_REAP_LIST))
		return;
	s->flags |= SF_IN_REAP_LIST;
	s->link = h->reap;
	h->reap = s;
}

void
stream_reap(struct sst_stream_host *h, sst_time_t now)
{
	while (h->reap != NULL) {
		struct sst_stream *s = h->reap;

		h->reap = s->link;
		if (s->refs == 0)
			stream_free(s, now);
		else
			s->flags &= ~SF_IN_REAP_LIST;
	}
}

/*
 * Streams that found no send buffer wait in a FIFO (each holds a reference)
 * and hear ops.writable() one at a time as buffers come back, so a host with
 * more streams than buffers makes progress without the application polling.
 */
/* Join the FIFO of streams waiting for a send buffer (at most once: the
 * FIFO holds one entry per control block). */
void
stream_tx_buffer_queue(struct sst_stream *s)
{
	struct sst_stream_host *h = s->peer->host;

	if ((s->flags & SF_IN_TX_WAITERS) || h->tx_waiting == h->tx_waiters_cap)
		return;
	s->flags |= SF_IN_TX_WAITERS;
	stream_ref(s);
	h->tx_waiters[(h->tx_waiters_head + h->tx_waiting) % h->tx_waiters_cap] = s;
	h->tx_waiting++;
}

void
stream_tx_buffer_wait(struct sst_stream *s)
{
	s->writable_wanted = true;
	stream_tx_buffer_queue(s);
}

/* The peer of s holds its share of send buffers: its streams wait for
 * one of its own to come back, while others' streams are served. */
static bool
tx_share_used(const struct sst_stream *s)
{
	return !stream_is_ours(s) && s->peer->ntx >= s->peer->host->p.peer_max_tx_buffers;
}

void
stream_tx_buffer_freed(struct sst_stream_host *h, sst_time_t now)
{
	/* Each waiter is looked at once per call: those over their peer's
	 * share go back to the tail, still waiting. */
	uint32_t budget = h->tx_waiting;

	while (budget-- > 0 && h->tx_waiting > 0 && rte_mempool_avail_count(h->txios) > 0) {
		struct sst_stream *s = h->tx_waiters[h->tx_waiters_head];
		bool wake;

		h->tx_waiters_head = (h->tx_waiters_head + 1) % h->tx_waiters_cap;
		if (!stream_is_reset(s) && tx_share_used(s)) {
			h->tx_waiters[(h->tx_waiters_head + h->tx_waiting - 1) %
				      h->tx_waiters_cap] = s;
			continue;
		}
		h->tx_waiting--;
		s->flags &= ~SF_IN_TX_WAITERS;
		if (s->life == STREAM_PENDING_REPLY) {
			/* Its reply first; the application hears of it after. */
			if (!stream_is_reset(s))
				h->up->service_accept(s, now);
			stream_unref(s, now);
			continue;
		}
		if (s->send == STREAM_SEND_CLOSE_OWED && !stream_is_reset(s) &&
			stream_tx_buffers(s) == 0) {
			/* An end that waited for a buffer: it goes out now and
			 * the buffer is used, so the next waiter may have one. */
			stream_close_tx(s);
			stream_unref(s, now);
			continue;
		}
		wake = !stream_is_reset(s) && stream_app_holds(s) && s->writable_wanted;
		if (wake) {
			s->writable_wanted = false;
			if (h->p.ops != NULL && h->p.ops->writable != NULL)
				h->p.ops->writable(h->p.ctx, s, now);
		}
		stream_unref(s, now);
		if (wake)
			break;
	}
}

int
stream_tx_buffers(struct sst_stream *s)
{
	struct sst_stream_host *h = s->peer->host;
	struct stream_txio *tx;
	void *obj;
	uint32_t mss = s->tx_chan != NULL ? s->tx_chan->mss : SST_SEGMENT_MAX;

	if (s->tx != NULL)
		return 0;
	if (tx_share_used(s)) {
		h->stats.peer_buffers_refused++;
		return -ENOBUFS;
	}
	if (rte_mempool_get(h->txios, &obj) < 0) {
		h->stats.no_buffer++;
		return -ENOBUFS;
	}
	tx = obj;
	tx->s = s;
	sst_sched_entry_init(&tx->sched, s->prio);
	sst_flowctl_tx_init(&tx->fc, mss, s->tx_window);
	tx->parent = NULL;
	tx->charged = 0;
	if (sst_sendq_init(&tx->q, h->p.send_buffer, h->txio_mbufs, h->txio_ranges, h->p.clone_pool,
		    s->tx_off) < 0 ||
		(h->p.send_mbufs > h->txio_mbufs &&
			sst_sendq_set_growth(
				&tx->q, h->p.send_mbufs, 2 * h->p.send_mbufs + 2, h->p.mem) < 0)) {
		rte_mempool_put(h->txios, obj);
		return -EINVAL;
	}
	s->tx = tx;
	h->txios_used++;
	s->peer->ntx += !stream_is_ours(s);
	return 0;
}

int
stream_rx_buffers(struct sst_stream *s)
{
	struct sst_stream_host *h = s->peer->host;
	struct stream_rxio *rx;
	void *obj;
	uint32_t mss = s->rx_chan != NULL ? s->rx_chan->mss : SST_SEGMENT_MAX;

	if (s->rx != NULL)
		return 0;
	if (!stream_is_ours(s) && s->peer->nrx >= h->p.peer_max_rx_buffers) {
		h->stats.peer_buffers_refused++;
		return -ENOBUFS;
	}
	if (rte_mempool_get(h->rxios, &obj) < 0) {
		h->stats.no_buffer++;
		h->rx_short = true;
		return -ENOBUFS;
	}
	rx = obj;
	/* Peers that do not promise to respect our windows (the prototype
	 * never enforces them) are tolerated up to the maximum buffer. */
	sst_flowctl_rx_init(&rx->fc, h->p.rx_window_min, h->p.rx_window_max, mss,
		stream_peer_can(s->peer, SST_CAP_STRICT_WINDOW));
	rx->fc.read_off = s->rx_off;
	rx->fc.edge += s->rx_off;
	rx->fc.edge_round = rx->fc.edge;
	rx->accept_head = rx->accept_tail = NULL;
	rx->dgram_head = rx->dgram_count = 0;
	rx->dgram_drops = 0;
	rx->svc_len = 0;
	if (sst_rob_init(&rx->rob, h->rxio_pieces, h->p.rx_window_max, h->p.clone_pool, s->rx_off) <
			0 ||
		(h->p.rx_pieces > h->rxio_pieces &&
			sst_rob_set_growth(&rx->rob, h->p.rx_pieces, h->p.mem) < 0)) {
		rte_mempool_put(h->rxios, obj);
		return -EINVAL;
	}
	s->rx = rx;
	s->peer->nrx += !stream_is_ours(s);
	rx->owner = h->rxios_used;
	h->rx_owners[h->rxios_used++] = s;
	return 0;
}

static bool
tx_idle(const struct sst_stream *s)
{
	const struct stream_txio *tx = s->tx;

	/* fc.inflight also counts children's Init bytes charged to us. */
	return sst_sendq_queued(&tx->q) == 0 && sst_sendq_in_flight(&tx->q) == 0 &&
	       tx->fc.inflight == 0 && !sst_sendq_pending(&tx->q) && tx->parent == NULL &&
	       (!stream_send_closed(s) || sst_sendq_finished(&tx->q));
}

static bool
rx_idle(const struct sst_stream *s)
{
	const struct stream_rxio *rx = s->rx;

	if (stream_service_waiting(s) && !stream_is_reset(s))
		return false; /* the rendezvous message is being gathered */
	return sst_rob_buffered(&rx->rob) == 0 && rx->accept_head == NULL && rx->dgram_count == 0;
}

/* Whether stream_release_buffers(s, all) frees the send buffers. */
static bool
tx_releasable(const struct sst_stream *s, bool all)
{
	return s->tx != NULL && (all || tx_idle(s));
}

/* Whether stream_release_buffers(s, all) frees the receive buffers.
 * Receive buffers stay while data keeps coming (their window tuning
 * spans rounds); the idle sweep takes them once it stops. */
static bool
rx_releasable(const struct sst_stream *s, bool all)
{
	return s->rx != NULL && (all || (rx_idle(s) && (!s->rx_recent || stream_recv_eof(s))));
}

/*
 * Called after every read and acknowledgment, where a busy stream keeps
 * both buffers: that answer is found here, without the call to
 * stream_release_buffers(), whose register saves alone cost more than
 * its tests (issue 17: 78 instructions a packet in a bulk transfer). When
 * the send buffers stay, nothing changes before the receive buffers' test,
 * so the two tests here are the ones stream_release_buffers() makes.
 */
void
stream_maybe_release_buffers(struct sst_stream *s, sst_time_t now)
{
	bool reset = stream_is_reset(s);

	if (tx_releasable(s, reset) || rx_releasable(s, reset))
		stream_release_buffers(s, false, now);
}

void
stream_release_buffers(struct sst_stream *s, bool all, sst_time_t now)
{
	struct sst_stream_host *h = s->peer->host;

	/* A reset stream has nothing to keep either. */
	all = all || stream_is_reset(s);
	if (tx_releasable(s, all)) {
		sst_sched_remove(&s->tx->sched);
		s->tx_window = s->tx->fc.window;
		sst_sendq_fini(&s->tx->q);
		if (s->tx->parent != NULL) {
			struct sst_stream *parent = s->tx->parent;

			/* A reset child's Init bytes leave the parent's window. */
			if (s->tx->charged > 0 && parent->tx != NULL) {
				sst_flowctl_tx_lost(&parent->tx->fc, (uint32_t)s->tx->charged);
				stream_tx_wake(parent);
			}
			s->tx->parent = NULL;
			stream_unref(parent, now);
		}
		rte_mempool_put(h->txios, s->tx);
		s->tx = NULL;
		h->txios_used--;
		s->peer->ntx -= !stream_is_ours(s);
		stream_tx_buffer_freed(h, now);
	}
	if (rx_releasable(s, all)) {
		struct stream_rxio *rx = s->rx;
		uint64_t fresh_edge =
			rx->fc.read_off + sst_window_credit(sst_window_encode(rx->fc.min_buf));

		s->rx_off = sst_rob_read_offset(&rx->rob);
		/* The peer may hold credit from a larger advert than a fresh
		 * state gives: tell it the smaller window (newest advert wins).
		 * Or it used up its credit (it sent up to our last edge) and
		 * waits for a larger one, which nothing else would bring. */
		if (rx->fc.edge != fresh_edge && !all && !stream_recv_eof(s) &&
			stream_rx_bound(s)) {
			s->flags |= SF_WINDOW_DUE;
			stream_ctl_queue(s);
		}
		while (rx->dgram_count > 0) {
			rte_pktmbuf_free(rx->dgrams[rx->dgram_head]);
			rx->dgram_head = (rx->dgram_head + 1) % STREAM_DGRAM_QUEUE;
			rx->dgram_count--;
		}
		while (rx->accept_head != NULL) {
			struct sst_stream *c = rx->accept_head;

			rx->accept_head = c->link;
			c->link = NULL;
			stream_set_life(c, STREAM_ABANDONED);
			stream_do_reset(c, SST_STREAM_ABORTED, true, now);
			stream_unref(c, now); /* the accept queue's reference */
		}
		sst_rob_fini(&rx->rob);
		/* The last owner takes the freed slot (the array stays dense). */
		h->rx_owners[rx->owner] = h->rx_owners[--h->rxios_used];
		h->rx_owners[rx->owner]->rx->owner = rx->owner;
		rte_mempool_put(h->rxios, rx);
		s->rx = NULL;
		s->peer->nrx -= !stream_is_ours(s);
	}
}

/* Paper 4.3.9: a released SID stays quiet until both sequence spaces moved
 * past the point both hosts know of the release, by twice the mis-ordering
 * limit (the replay window) for margin. For a finished stream (ended) the
 * peer knows only once it hears that its last segments arrived, and it
 * resends them until then: its SIDs are marked (sst_sid_quiet_ended()). */
void
stream_sid_quiet(struct sst_stream_chan *c, struct sst_sid_space *space, uint16_t sid, bool ended)
{
	uint64_t margin;

	if (c == NULL || c->dead)
		return;
	/* The two numbers, not sst_channel_info()'s whole struct (about 47
	 * instructions, twice for every stream that ends). */
	margin = 2 * (uint64_t)c->replay_window;
	(ended ? sst_sid_release_ended : sst_sid_release)(space, sid,
		sst_channel_next_seq(c->ch) + margin, sst_channel_rx_highest(c->ch) + margin);
}

/*
 * A few USID slots per call: a stream that received nothing since the
 * previous pass gives its receive buffers back if they hold nothing. A pass
 * over the whole table takes table size / slots calls (flushes), and passes
 * start at most every STREAM_SWEEP_INTERVAL.
 */
void
stream_idle_sweep(struct sst_stream_host *h, sst_time_t now)
{
	/* One pass over the streams holding receive buffers (a dense array,
	 * not every stream) every STREAM_SWEEP_INTERVAL: its cost follows
	 * the buffers in use, and it runs on its own timer
	 * (sst_stream_chan_next_expiry()), so buffers come back even when no
	 * packet arrives, as when every buffer is taken and the senders back
	 * off. */
	if (now < h->sweep_next)
		return;
	h->sweep_next = now + STREAM_SWEEP_INTERVAL;
	for (uint32_t i = 0; i < h->rxios_used;) {
		struct sst_stream *s = h->rx_owners[i];

		if (s->rx_recent) {
			s->rx_recent = false;
			i++;
			continue;
		}
		stream_maybe_release_buffers(s, now);
		/* A released buffer's slot now holds the last owner: visit it. */
		if (s->rx != NULL)
			i++;
	}
}

void
stream_release_tx_sid(struct sst_stream *s)
{
	if (stream_tx_bound(s))
		stream_sid_quiet(s->tx_chan, s->tx_chan != NULL ? s->tx_chan->tx_sids : NULL,
			s->tx_sid, stream_is_finished(s));
	stream_tx_unbind(s);
}

void
stream_release_sids(struct sst_stream *s, sst_time_t now)
{
	RTE_SET_USED(now);
	stream_release_tx_sid(s);
	if (stream_rx_bound(s))
		stream_sid_quiet(s->rx_chan, s->rx_chan != NULL ? s->rx_chan->rx_sids : NULL,
			s->rx_sid, stream_is_finished(s));
	stream_rx_unbind(s);
}

/* The application hears of a stream's end once, when it leaves LIVE (to
 * FINISHED or RESET): the end state is the record of the report, so a
 * stream reset after it finished is not reported again. A stream the
 * application does not hold is reported to no one. */
static void
report_closed(struct sst_stream *s, enum sst_stream_end why, sst_time_t now)
{
	const struct sst_stream_ops *ops = s->peer->host->p.ops;

	if (ops != NULL && ops->ended != NULL)
		ops->ended(s->peer->host->p.ctx, s, why, now);
	if (!stream_app_holds(s))
		return;
	if (stream_service_waiting(s) && stream_is_ours(s)) {
		if (ops != NULL && ops->connected != NULL)
			ops->connected(s->peer->host->p.ctx, s,
				why == SST_STREAM_REFUSED ? -ECONNREFUSED : -ECONNRESET, now);
		stream_set_service(s, STREAM_SERVICE_REFUSED);
	}
	if (ops != NULL && ops->closed != NULL)
		ops->closed(s->peer->host->p.ctx, s, why, now);
}

/* Both directions ended: release the SIDs after their quiet period. */
void
stream_check_finished(struct sst_stream *s, sst_time_t now)
{
	if (stream_is_ended(s) || stream_is_root(s))
		return;
	if (s->send != STREAM_SEND_CLOSE_ACKED || !stream_recv_eof(s))
		return;
	/* Nothing is owed on any channel any more: an Attach or a window
	 * update still due (it migrated just before) would bind a SID again
	 * that nothing releases, keeping that channel in use. send_controls()
	 * skips finished streams for what a loss report queues later. */
	stream_set_end(s, STREAM_FINISHED);
	s->flags &= ~(SF_ATTACH_DUE | SF_ATTACH_INIT | SF_WINDOW_DUE);
	stream_release_sids(s, now);
	stream_maybe_release_buffers(s, now);
	report_closed(s, SST_STREAM_FINISHED, now);
	stream_ended(s);
}

/* A stream we opened that failed before any of it went out (no send
 * buffer for its first message): gone at once, reported to no one, since
 * the application never got it or it is ours. */
void
stream_abandon(struct sst_stream *s, sst_time_t now)
{
	stream_set_life(s, STREAM_ABANDONED);
	stream_do_reset(s, SST_STREAM_ABORTED, false, now);
	stream_unref(s, now);
}

void
stream_do_reset(struct sst_stream *s, enum sst_stream_end why, bool send, sst_time_t now)
{
	struct sst_stream_chan *c;
	bool first_end = !stream_is_ended(s);

	if (stream_is_reset(s) || stream_is_root(s))
		return;
	/* The Reset names the stream by our own SID if we have one (paper
	 * 4.3.8), otherwise by the peer's, and is resent until acknowledged. */
	if (send && stream_peer_can(s->peer, SST_CAP_RESET)) {
		if (stream_tx_bound(s) && (c = s->tx_chan) != NULL && !c->dead) {
			stream_give_up_tx_sid(s, 0);
			s->peer->host->stats.streams_reset_tx++;
		} else if (stream_rx_bound(s) && (c = s->rx_chan) != NULL && !c->dead) {
			stream_chan_queue_code(c, s->rx_sid | STREAM_CODE_ORIENT);
			s->peer->host->stats.streams_reset_tx++;
		}
	}
	stream_set_end(s, stream_is_finished(s) ? STREAM_RESET_AFTER_FINISH : STREAM_RESET);
	s->flags &= ~(SF_ATTACH_DUE | SF_WINDOW_DUE);
	if (stream_rx_bound(s) && s->rx_chan != NULL && !s->rx_chan->dead &&
		s->rx_chan->dgram != NULL)
		sst_dgram_rx_reset_sid(s->rx_chan->dgram, s->rx_sid);
	stream_release_sids(s, now);
	if (s->tx != NULL)
		sst_sendq_reset(&s->tx->q);
	if (s->rx != NULL)
		sst_rob_reset(&s->rx->rob, sst_rob_read_offset(&s->rx->rob));
	stream_maybe_release_buffers(s, now);
	if (first_end)
		report_closed(s, why, now);
	stream_ended(s);
}

int
stream_write_internal(struct sst_stream *s, const void *buf, size_t len, uint32_t flags)
{
	struct rte_mbuf *m;
	int rc;

	if (stream_tx_buffers(s) < 0)
		return -ENOBUFS;
	m = rte_pktmbuf_alloc(s->peer->host->p.pool);
	if (m == NULL)
		return -ENOBUFS;
	if (rte_pktmbuf_append(m, (uint16_t)len) == NULL) {
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	memcpy(rte_pktmbuf_mtod(m, void *), buf, len);
	rc = sst_sendq_append(&s->tx->q, m, flags);
	if (rc < 0) {
		rte_pktmbuf_free(m);
		return rc;
	}
	s->tx_off += len;
	stream_tx_wake(s);
	return 0;
}

/*
 * Queue the Close of our direction (the send buffer is attached). To a
 * peer that may be the 2007 prototype the Close goes alone, in an empty
 * segment after the data: its reader stops at the message boundary before
 * it looks at the flag, so a Close on the last data segment is never seen
 * and its side never ends (docs/wire-format.md 9.8). The prototype itself
 * always sends Close that way.
 */
void
stream_close_tx(struct sst_stream *s)
{
	stream_set_send(s, STREAM_SEND_CLOSE_QUEUED);
	if (stream_peer_legacy(s->peer))
		sst_sendq_close_alone(&s->tx->q);
	else
		sst_sendq_close(&s->tx->q);
	stream_tx_wake(s);
}

/* The peer's memory lives here, below the peer module, because the last
 * stream of a destroyed peer frees it from stream_free(). */
void
stream_peer_free_mem(struct sst_stream_peer *p)
{
	const struct sst_mem_ops *mem = p->host->p.mem;

	mem->release(mem->ctx, p->usids, (p->usid_mask + 1) * sizeof(*p->usids));
	mem->release(mem->ctx, p, sizeof(*p));
}

void
stream_peer_gone_freed(struct sst_stream_peer *p)
{
	if (p->nstreams > 0)
		return;
	if (p->gone_prev != NULL)
		p->gone_prev->gone_next = p->gone_next;
	else
		p->host->gone = p->gone_next;
	if (p->gone_next != NULL)
		p->gone_next->gone_prev = p->gone_prev;
	stream_peer_free_mem(p);
}

void
stream_peer_gone_fini(struct sst_stream_host *h)
{
	while (h->gone != NULL) {
		struct sst_stream_peer *p = h->gone;

		h->gone = p->gone_next;
		stream_peer_free_mem(p);
	}
}
