/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The paper's stream operations as the application calls them
 * (sst_stream.h): open, substreams, write, read, shutdown, close, reset,
 * priorities, datagrams and migration.
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>

#include "stream_app.h"
#include "stream_chan_finish.h"
#include "stream_chan_sids.h"
#include "stream_ctl.h"
#include "stream_life.h"
#include "stream_tx.h"
#include "stream_tx_dgram.h"
#include "stream_usid.h"

/* Give a new stream of ours its SID on channel c. Without the parent's SID
 * on the same channel an Init cannot name the parent: an Attach with the
 * parent's USID does instead. */
static int
stream_attach_new(struct sst_stream *s, struct sst_stream *parent, struct sst_stream_chan *c)
{
	uint64_t counter;
	int rc;

	rc = stream_chan_sid_take(c, s, &counter);
	if (rc < 0)
		return rc;
	s->tx_chan = c;
	s->usid_counter = counter;
	s->hcid = c->local_hcid;
	stream_set_tx_attach(s, STREAM_TX_BOUND);
	stream_chan_busy(c);
	if (stream_usid_insert(s->peer, s) < 0) {
		sst_sid_release(c->tx_sids, s->tx_sid, 0, 0);
		stream_set_tx_attach(s, STREAM_TX_DETACHED);
		return -ENOSPC;
	}
	if (!stream_is_root(parent) && !stream_tx_bound_on(parent, c))
		s->flags |= SF_ATTACH_DUE | SF_ATTACH_INIT;
	return 0;
}

static struct sst_stream *
stream_open(struct sst_stream_peer *p, struct sst_stream *parent, bool toplevel, sst_time_t now)
{
	struct sst_stream_chan *c;
	struct sst_stream *s;

	c = parent->tx_chan != NULL && !parent->tx_chan->dead ? parent->tx_chan
							      : stream_peer_chan(p);
	if (c == NULL) {
		rte_errno = ENOTCONN;
		return NULL;
	}
	s = stream_alloc(p, STREAM_OURS, STREAM_APP_OWNED,
		toplevel ? STREAM_SERVICE_WAITING : STREAM_SERVICE_NONE);
	if (s == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	s->prio = stream_is_root(parent) ? 0 : parent->prio;
	/* Init data borrows the parent's window (paper 4.3.6): the child
	 * starts with the credit the peer last gave the parent. */
	s->tx_window = parent->tx != NULL ? parent->tx->fc.window : parent->tx_window;
	if (stream_is_root(parent))
		s->tx_window = c->root_tx_window;
	if (stream_tx_buffers(s) < 0 || stream_attach_new(s, parent, c) < 0) {
		s->refs = 0;
		if (s->tx != NULL)
			stream_maybe_release_buffers(s, now);
		p->nstreams--;
		p->nours--;
		stream_slab_put(p->host, s);
		rte_errno = ENOBUFS;
		return NULL;
	}
	if (!stream_is_root(parent)) {
		s->tx->parent = parent;
		stream_ref(parent);
		/* The parent's send side counts the child's Init bytes. */
		stream_tx_buffers(parent);
	}
	p->host->stats.streams_opened++;
	if (s->flags & SF_ATTACH_DUE)
		stream_ctl_queue(s);
	return s;
}

struct sst_stream *
sst_stream_connect(
	struct sst_stream_peer *p, const char *service, const char *protocol, sst_time_t now)
{
	uint8_t req[SST_SERVICE_MSG_MAX];
	struct sst_stream *s;
	int len = sst_service_request_encode(service, protocol, req, sizeof(req));

	if (len < 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	s = stream_open(p, &p->root, true, now);
	if (s == NULL)
		return NULL;
	if (stream_write_internal(s, req, (size_t)len, SST_FLAG_PUSH | SST_FLAG_MESSAGE) < 0) {
		stream_abandon(s, now);
		rte_errno = ENOBUFS;
		return NULL;
	}
	return s;
}

struct sst_stream *
sst_stream_create_substream(struct sst_stream *parent, sst_time_t now)
{
	if (stream_is_reset(parent)) {
		rte_errno = ECONNRESET;
		return NULL;
	}
	return stream_open(parent->peer, parent, false, now);
}

void
sst_stream_listen_substream(struct sst_stream *s, bool listen)
{
	if (listen)
		s->listening = true;
	else
		s->listening = false;
}

/* Children that arrived before the application took their parent. */
void
stream_reoffer_children(struct sst_stream *parent, sst_time_t now)
{
	const struct sst_stream_ops *ops = parent->peer->host->p.ops;

	if (parent->rx == NULL || ops == NULL || ops->accepted == NULL)
		return;
	for (struct sst_stream *c = parent->rx->accept_head; c != NULL;) {
		struct sst_stream *next = c->link;

		ops->accepted(parent->peer->host->p.ctx, parent, c, NULL, now);
		c = next;
	}
}

/*
 * A datagram that came as Datagram packets, read as a substream (paper 2.2:
 * the receiver cannot tell the two kinds apart): a stream of no channel
 * whose receive side holds the datagram and its end, and whose own
 * direction is already closed, so that it finishes once read and closed.
 */
static struct sst_stream *
datagram_as_substream(struct sst_stream *parent)
{
	struct stream_rxio *prx = parent->rx;
	struct rte_mbuf *m = prx->dgrams[prx->dgram_head];
	struct sst_stream *s =
		stream_alloc(parent->peer, STREAM_PEERS, STREAM_APP_OWNED, STREAM_SERVICE_NONE);

	if (s == NULL)
		return NULL;
	/* Born with nothing to send: its initial state, not a transition. */
	s->send = STREAM_SEND_CLOSE_ACKED;
	if (stream_rx_buffers(s) < 0) {
		parent->peer->nstreams--;
		stream_slab_put(parent->peer->host, s);
		return NULL; /* the datagram stays queued */
	}
	prx->dgram_head = (prx->dgram_head + 1) % STREAM_DGRAM_QUEUE;
	prx->dgram_count--;
	/* The reassembly buffer takes the mbuf in every case. */
	if (sst_rob_insert(&s->rx->rob, 0, m, SST_FLAG_PUSH | SST_FLAG_MESSAGE | SST_FLAG_CLOSE) <
		0) {
		stream_release_buffers(s, true, 0);
		parent->peer->nstreams--;
		stream_slab_put(parent->peer->host, s);
		return NULL;
	}
	s->prio = parent->prio;
	return s;
}

struct sst_stream *
sst_stream_accept_substream(struct sst_stream *parent, sst_time_t now)
{
	struct sst_stream *s;

	if (parent->rx == NULL)
		return NULL;
	if (parent->rx->accept_head == NULL)
		return parent->rx->dgram_count > 0 ? datagram_as_substream(parent) : NULL;
	s = parent->rx->accept_head;
	parent->rx->accept_head = s->link;
	if (parent->rx->accept_head == NULL)
		parent->rx->accept_tail = NULL;
	s->link = NULL;
	s->user = NULL;
	stream_set_life(s, STREAM_APP_OWNED);
	stream_maybe_release_buffers(parent, 0);
	/* The accept queue's reference is now the application's. */
	if (s->rx != NULL && (sst_rob_readable(&s->rx->rob) > 0 || sst_rob_eof(&s->rx->rob)))
		stream_rx_deliverable(s, now);
	stream_reoffer_children(s, now);
	return s;
}

int
sst_stream_write(struct sst_stream *s, struct rte_mbuf *m, uint32_t flags, sst_time_t now)
{
	uint32_t wflags = (flags & SST_WRITE_MORE) ? 0 : SST_FLAG_PUSH;
	uint32_t len;
	int rc;

	RTE_SET_USED(now);
	if (stream_is_reset(s))
		return -ECONNRESET;
	if (stream_send_closed(s))
		return -EPIPE;
	if (flags & SST_WRITE_MESSAGE)
		wflags |= SST_FLAG_MESSAGE;
	if (stream_tx_buffers(s) < 0) {
		stream_tx_buffer_wait(s);
		return -EAGAIN;
	}
	len = rte_pktmbuf_pkt_len(m);
	rc = sst_sendq_append(&s->tx->q, m, wflags);
	if (rc == -ENOBUFS || rc == -ENOSPC) {
		s->writable_wanted = true;
		return -EAGAIN;
	}
	if (rc < 0)
		return rc;
	s->tx_off += len;
	stream_tx_wake(s);
	return 0;
}

/* Everything up to the peer's Close has arrived (read or not). */
static bool
stream_rx_complete(const struct sst_stream *s)
{
	uint64_t fin;

	return s->rx != NULL && sst_rob_final(&s->rx->rob, &fin) &&
	       sst_rob_read_offset(&s->rx->rob) + sst_rob_readable(&s->rx->rob) == fin;
}

/* Tell the application about what became readable. */
void
stream_rx_deliverable(struct sst_stream *s, sst_time_t now)
{
	const struct sst_stream_ops *ops = s->peer->host->p.ops;

	if (stream_service_waiting(s)) {
		s->peer->host->up->service_rx(s, now);
		if (stream_service_waiting(s) || stream_is_reset(s))
			return;
	}
	/* Its data waits for the application, which hears of it once the
	 * reply is queued (stream_service_accept()). */
	if (s->life == STREAM_PENDING_REPLY)
		return;
	if (!stream_app_holds(s)) {
		/* Nobody reads: consume and discard so the peer can finish. */
		struct sst_stream_data d[STREAM_RX_BURST];
		int n;

		if (s->life == STREAM_PENDING_ACCEPT) {
			/* A complete ephemeral substream is a datagram to read. */
			if (stream_rx_complete(s) && ops != NULL && ops->readable != NULL)
				ops->readable(s->peer->host->p.ctx, s->user, now);
			return;
		}
		while ((n = sst_stream_read(s, d, STREAM_RX_BURST, now)) > 0)
			for (int i = 0; i < n; i++)
				rte_pktmbuf_free(d[i].m);
		return;
	}
	if (ops != NULL && ops->readable != NULL)
		ops->readable(s->peer->host->p.ctx, s, now);
}

/*
 * A substream waiting in the accept queue counts its in-order bytes as
 * read: a datagram that came as one is taken only whole, so a window that
 * closed on its unread bytes would never let it complete (paper 2.2: large
 * datagrams degrade into streams). The reassembly buffer's window
 * (rx_window_max) still bounds what it holds. Once the application takes
 * the substream, flow control counts from the furthest offset reported.
 */
void
stream_rx_fc_update(struct sst_stream *s)
{
	struct stream_rxio *rx = s->rx;
	uint64_t end = sst_rob_read_offset(&rx->rob) + sst_rob_readable(&rx->rob);
	uint64_t read = s->life == STREAM_PENDING_ACCEPT ? end : sst_rob_read_offset(&rx->rob);

	read = RTE_MAX(read, rx->fc.read_off);
	sst_flowctl_rx_set_buffered(&rx->fc, read, end > read ? end - read : 0,
		sst_rob_buffered(&rx->rob) - sst_rob_readable(&rx->rob));
}

int
sst_stream_read(struct sst_stream *s, struct sst_stream_data *out, uint16_t max, sst_time_t now)
{
	struct sst_rob_rx rec[STREAM_RX_BURST];
	struct stream_rxio *rx = s->rx;
	uint16_t n;

	if (stream_is_reset(s))
		return -ECONNRESET;
	if (rx == NULL || stream_service_waiting(s))
		return stream_recv_eof(s) ? -EPIPE : 0;
	if (max > STREAM_RX_BURST)
		max = STREAM_RX_BURST;
	n = sst_rob_read(&rx->rob, rec, max);
	for (uint16_t i = 0; i < n; i++) {
		out[i].m = rec[i].m;
		out[i].flags = rec[i].flags & SST_FLAG_MESSAGE ? SST_WRITE_MESSAGE : 0;
	}
	stream_rx_fc_update(s);
	if (sst_flowctl_rx_update_due(&rx->fc) && stream_rx_bound(s)) {
		s->flags |= SF_WINDOW_DUE;
		stream_ctl_queue(s);
	}
	if (sst_rob_eof(&rx->rob) && !stream_recv_eof(s)) {
		stream_set_recv(s, STREAM_RECV_EOF_READ);
		stream_check_finished(s, now);
	}
	if (n == 0 && stream_recv_eof(s)) {
		stream_maybe_release_buffers(s, now);
		return -EPIPE;
	}
	if (s->rx != NULL && !(s->flags & SF_WINDOW_DUE))
		stream_maybe_release_buffers(s, now);
	return n;
}

int
sst_stream_shutdown(struct sst_stream *s, sst_time_t now)
{
	RTE_SET_USED(now);
	if (stream_is_reset(s))
		return -ECONNRESET;
	if (stream_send_closed(s))
		return 0;
	if (stream_tx_buffers(s) < 0) {
		/* The Close is a segment and needs a send buffer. With many
		 * streams all may be taken: it waits in the FIFO like a write
		 * (stream_tx_buffer_freed()), so ending a stream never fails
		 * and never needs the application to try again. */
		stream_set_send(s, STREAM_SEND_CLOSE_OWED);
		stream_tx_buffer_queue(s);
		return 0;
	}
	stream_close_tx(s);
	return 0;
}

void
sst_stream_close(struct sst_stream *s, sst_time_t now)
{
	if (!stream_app_holds(s))
		return;
	stream_set_life(s, STREAM_APP_RELEASED);
	if (!stream_is_reset(s)) {
		if (sst_stream_shutdown(s, now) < 0)
			stream_do_reset(s, SST_STREAM_ABORTED, true, now);
		else
			stream_rx_deliverable(s, now);
		stream_check_finished(s, now);
	}
	stream_unref(s, now);
}

void
sst_stream_reset(struct sst_stream *s, sst_time_t now)
{
	stream_do_reset(s, SST_STREAM_RESET_LOCAL, true, now);
}

void
sst_stream_set_priority(struct sst_stream *s, int32_t prio)
{
	s->prio = prio;
	if (s->tx != NULL)
		sst_sched_set_priority(&s->tx->sched, prio);
}

int32_t
sst_stream_priority(const struct sst_stream *s)
{
	return s->prio;
}

void
stream_queue_datagram(struct sst_stream *parent, struct rte_mbuf *m, sst_time_t now)
{
	struct stream_rxio *rx;
	const struct sst_stream_ops *ops = parent->peer->host->p.ops;

	if (stream_is_reset(parent) || stream_rx_buffers(parent) < 0) {
		rte_pktmbuf_free(m);
		return;
	}
	rx = parent->rx;
	if (rx->dgram_count == STREAM_DGRAM_QUEUE) {
		rx->dgram_drops++;
		rte_pktmbuf_free(m);
		return;
	}
	rx->dgrams[(rx->dgram_head + rx->dgram_count) % STREAM_DGRAM_QUEUE] = m;
	rx->dgram_count++;
	parent->peer->host->stats.datagrams_rx++;
	RTE_SET_USED(now);
	if (ops != NULL && ops->readable != NULL && stream_app_holds(parent))
		ops->readable(parent->peer->host->p.ctx, parent, now);
}

int
sst_stream_send_datagram(struct sst_stream *parent, struct rte_mbuf *m, sst_time_t now)
{
	struct sst_stream_chan *c = parent->tx_chan;
	struct sst_stream *s;
	uint32_t len = rte_pktmbuf_pkt_len(m);

	/* Beyond the send buffer it could never be queued whole. */
	if (len > parent->peer->host->p.send_buffer)
		return -EMSGSIZE;
	if (stream_is_reset(parent))
		return -ENOTCONN;
	if (c == NULL || c->dead)
		c = stream_peer_chan(parent->peer);
	if (c == NULL)
		return -ENOTCONN;
	if (stream_is_root(parent) || stream_tx_bound_on(parent, c)) {
		uint32_t per = stream_dgram_payload_max(c);
		uint32_t k = len <= per ? 1 : (len + per - 1) / per;

		/* Fragments when the peer reassembles them and all k arrive
		 * about 90% of the time or more: k x loss <= 0.1 (loss_rate is
		 * in 1/65536). Otherwise the reliable path below. */
		if (len <= UINT16_MAX &&
			(k == 1 || (stream_peer_can(parent->peer, SST_CAP_DGRAM_FRAGMENTS) &&
					   k <= STREAM_DGRAM_FRAGS &&
					   (uint64_t)k * c->loss_rate <= 6554)))
			return stream_send_dgram_packets(parent, m, now);
	}
	/* Too large for one packet: a reliable ephemeral substream, written
	 * and closed at once (the receiver reads it as a datagram). */
	s = stream_open(parent->peer, parent, false, now);
	if (s == NULL)
		return -ENOBUFS;
	if (sst_stream_write(s, m, SST_WRITE_MESSAGE, now) < 0) {
		stream_abandon(s, now);
		return -ENOBUFS;
	}
	parent->peer->host->stats.datagrams_tx++;
	sst_stream_close(s, now);
	return 0;
}

/* Read a whole ephemeral substream that has fully arrived as one chain. */
static struct rte_mbuf *
drain_substream(struct sst_stream *s, sst_time_t now)
{
	struct sst_stream_data d[STREAM_RX_BURST];
	struct rte_mbuf *head = NULL;
	int n;

	stream_set_life(s, STREAM_APP_OWNED);
	while ((n = sst_stream_read(s, d, STREAM_RX_BURST, now)) > 0)
		for (int i = 0; i < n; i++) {
			if (head == NULL)
				head = d[i].m;
			else if (rte_pktmbuf_chain(head, d[i].m) < 0) {
				rte_pktmbuf_free(d[i].m);
				rte_pktmbuf_free(head);
				head = NULL;
				s->peer->host->stats.rx_malformed++;
			}
		}
	sst_stream_close(s, now);
	return head;
}

struct rte_mbuf *
sst_stream_recv_datagram(struct sst_stream *parent, sst_time_t now)
{
	struct stream_rxio *rx = parent->rx;
	struct sst_stream *prev = NULL;

	if (rx == NULL)
		return NULL;
	if (rx->dgram_count > 0) {
		struct rte_mbuf *m = rx->dgrams[rx->dgram_head];

		rx->dgram_head = (rx->dgram_head + 1) % STREAM_DGRAM_QUEUE;
		rx->dgram_count--;
		stream_maybe_release_buffers(parent, now);
		return m;
	}
	/* Substreams that arrived complete read the same way. */
	for (struct sst_stream *s = rx->accept_head; s != NULL; prev = s, s = s->link) {
		if (!stream_rx_complete(s))
			continue;
		if (prev == NULL)
			rx->accept_head = s->link;
		else
			prev->link = s->link;
		if (rx->accept_tail == s)
			rx->accept_tail = prev;
		s->link = NULL;
		s->user = NULL;
		{
			struct rte_mbuf *m = drain_substream(s, now);

			stream_maybe_release_buffers(parent, now);
			return m;
		}
	}
	return NULL;
}

enum { PRIORITY_REQUEST = 0x301, PRIORITY_MSG_LEN = 8 };

int
sst_stream_request_priority(struct sst_stream *s, int32_t prio, sst_time_t now)
{
	uint8_t msg[PRIORITY_MSG_LEN];
	struct sst_stream *sub;
	uint32_t v[2] = {rte_cpu_to_be_32(PRIORITY_REQUEST), rte_cpu_to_be_32((uint32_t)prio)};

	if (stream_is_reset(s) || stream_is_root(s))
		return -ENOTCONN;
	memcpy(msg, v, sizeof(msg));
	/* Reliable even when small: a lost request would leave the old
	 * priority in place without anyone knowing. */
	sub = stream_open(s->peer, s, false, now);
	if (sub == NULL)
		return -ENOBUFS;
	if (stream_write_internal(sub, msg, sizeof(msg), SST_FLAG_PUSH | SST_FLAG_MESSAGE) < 0) {
		stream_abandon(sub, now);
		return -ENOBUFS;
	}
	sst_stream_close(sub, now);
	return 0;
}

int
sst_stream_apply_priority_message(struct sst_stream *s, const struct rte_mbuf *m)
{
	uint32_t v[2];
	const void *p;

	if (m == NULL || rte_pktmbuf_pkt_len(m) != PRIORITY_MSG_LEN)
		return 0;
	p = rte_pktmbuf_read(m, 0, sizeof(v), v);
	if (p == NULL)
		return 0;
	memcpy(v, p, sizeof(v));
	if (rte_be_to_cpu_32(v[0]) != PRIORITY_REQUEST)
		return 0;
	sst_stream_set_priority(s, (int32_t)rte_be_to_cpu_32(v[1]));
	return 1;
}

int
sst_stream_migrate(struct sst_stream *s, struct sst_stream_chan *c, sst_time_t now)
{
	struct sst_stream_chan *old = s->tx_chan;

	RTE_SET_USED(now);
	if (c == NULL || c->peer != s->peer || c->dead || (stream_is_reset(s) || stream_is_root(s)))
		return -EINVAL;
	if (old == c)
		return 0;
	if (stream_tx_bound(s) && old != NULL && !old->dead) {
		/* Detach on the old channel once we are attached on the new
		 * one: the peer releases our old SID, losses resend here. */
		if (stream_peer_can(s->peer, SST_CAP_DETACH))
			stream_give_up_tx_sid(s, STREAM_CODE_DETACH);
		else
			stream_release_tx_sid(s);
	}
	stream_ctl_moving(s);
	stream_tx_unbind(s);
	s->tx_slot ^= 1u;
	if (s->tx != NULL)
		sst_sched_remove(&s->tx->sched);
	s->tx_chan = c;
	stream_attach_due(s);
	return 0;
}

void
sst_stream_set_user(struct sst_stream *s, void *user)
{
	s->user = user;
}

void *
sst_stream_user(const struct sst_stream *s)
{
	return s->user;
}

void
sst_stream_info(const struct sst_stream *s, struct sst_stream_info *info)
{
	memset(info, 0, sizeof(*info));
	info->usid_counter = s->usid_counter;
	info->tx_offset = s->tx_off;
	info->rx_offset = s->rx != NULL ? sst_rob_read_offset(&s->rx->rob) : s->rx_off;
	if (s->tx != NULL) {
		info->tx_unacked = s->tx_off - s->tx->q.una;
		info->tx_credit = s->tx->fc.credit;
		info->tx_in_flight = s->tx->fc.inflight;
	} else {
		info->tx_credit = sst_window_credit(s->tx_window);
	}
	if (s->rx != NULL) {
		info->rx_buffered = sst_rob_buffered(&s->rx->rob);
		info->rx_window = s->rx->fc.adv_credit;
	}
	info->tx_sid = s->tx_sid;
	info->rx_sid = s->rx_sid;
	info->tx_buffers = s->tx != NULL;
	info->rx_buffers = s->rx != NULL;
	info->finished = stream_is_finished(s);
	info->reset = stream_is_reset(s);
}
