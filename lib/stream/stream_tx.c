/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stream layer's send path on a channel: control packets first, then
 * segments of the ready streams in priority order, as far as congestion and
 * flow control allow; ack-only packets and datagrams. What the channel
 * reports back about each packet (acknowledged or lost) is stream_ack.c,
 * the queues of work it serves stream_ctl.c.
 *
 * Every stream packet in flight has a record (struct stream_sent) whose
 * index is the channel cookie; the record holds a reference to its stream,
 * so a stream reset while its packets fly stays valid until they are
 * accounted for.
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "sst_burst.h"
#include "stream_tx.h"
#include "stream_buffers.h"
#include "stream_chan_finish.h"
#include "stream_chan_sids.h"
#include "stream_ctl.h"
#include "stream_life.h"

/* How soon a flush that found the packet pool or the record table empty is
 * tried again: mbufs come back as the channel's packets are acknowledged
 * and the link sends, within a fraction of a round trip. */
#define STREAM_STARVED_RETRY SST_NSEC_PER_MSEC

static inline struct sst_stream *
txio_stream(struct sst_sched_entry *e)
{
	return container_of(e, struct stream_txio, sched)->s;
}

/*
 * Double the records of packets in flight (STREAM_SENT_INIT at first), up
 * to the channel's tx_log: records keep their index, which is the packet's
 * channel cookie, and the new ones join the free list.
 * Returns 0 or -ENOMEM (at the limit or no memory: unchanged).
 */
static int
sent_grow(struct sst_stream_chan *c)
{
	const struct sst_mem_ops *mem = c->peer->host->p.mem;
	uint32_t cap = c->sent_cap == 0 ? STREAM_SENT_INIT : 2 * c->sent_cap;
	struct stream_sent *sent;

	if (c->sent_cap >= c->sent_max)
		return -ENOMEM;
	cap = RTE_MIN(cap, c->sent_max);
	sent = mem->zalloc(mem->ctx, (size_t)cap * sizeof(*sent));
	if (sent == NULL) {
		c->stats.table_grow_failures++;
		return -ENOMEM;
	}
	if (c->sent_cap > 0)
		memcpy(sent, c->sent, (size_t)c->sent_cap * sizeof(*sent));
	for (uint32_t i = cap; i-- > c->sent_cap;) {
		sent[i].len = c->sent_free;
		c->sent_free = i + 1;
	}
	mem->release(mem->ctx, c->sent, (size_t)c->sent_cap * sizeof(*c->sent));
	c->sent = sent;
	c->sent_cap = cap;
	return 0;
}

/* A record for a packet about to be sent (its cookie), or 0 when every
 * record is in use and no more can be had: the packet is not sent. */
static uint32_t
sent_alloc(struct sst_stream_chan *c)
{
	uint32_t idx = c->sent_free;

	if (idx == 0 && sent_grow(c) < 0)
		return 0;
	idx = c->sent_free;
	c->sent_free = c->sent[idx - 1].len;
	return idx;
}

void
stream_sent_release(struct sst_stream_chan *c, uint32_t idx, sst_time_t now)
{
	struct stream_sent *r = &c->sent[idx - 1];
	struct sst_stream *s = r->s;

	r->kind = SENT_FREE;
	r->s = NULL;
	r->len = c->sent_free;
	c->sent_free = idx;
	if (s != NULL)
		stream_unref(s, now);
}

struct rte_mbuf *
stream_header_mbuf(struct sst_stream_chan *c, const struct sst_stream_hdr *hdr)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(c->peer->host->p.pool);
	size_t len = sst_stream_hdr_len(hdr->type);
	char *p;

	if (m == NULL)
		return NULL;
	p = rte_pktmbuf_append(m, (uint16_t)len);
	if (p == NULL || sst_stream_hdr_encode(hdr, p, len) < 0) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

/*
 * The mbuf the pool's cache hands out next (its last object: the cache is
 * a stack), its header and the start of its data room, while this packet
 * is built: in bulk a packet's mbuf was last touched a window of packets
 * ago, and its first write stalled the flush on a cache miss (18 % of the
 * flush's samples, docs/performance.md "Session 23").
 */
static inline void
prefetch_next_mbuf(struct rte_mempool *pool)
{
	const struct rte_mempool_cache *cache = rte_mempool_default_cache(pool, rte_lcore_id());
	const uint8_t *next;

	if (cache == NULL || cache->len == 0)
		return;
	next = cache->objs[cache->len - 1];
	rte_prefetch0(next);
	rte_prefetch0(next + sizeof(struct rte_mbuf) + rte_pktmbuf_priv_size(pool) +
		      RTE_PKTMBUF_HEADROOM);
}

/*
 * The mbufs of a segment's packet, from the packet pool: room for a
 * header of hdr_len and max_len payload bytes behind it, the first mbuf
 * behind the headroom the channel header (and a port's headers) go into,
 * each leaving the tailroom of the largest armor trailer, since the
 * segment may end in any of them. Each mbuf's data_len is the room it
 * offers (sst_sendq_next_segment_chain()); packet_trim() cuts the chain to
 * what was written. One mbuf up to a path MTU of about 1,900 bytes with
 * 2 KB mbufs, a few for a jumbo MTU: the segment's bytes are copied, never
 * cloned, so the armor seals them in place (docs/performance.md, "The
 * send queue"). NULL if the pool runs dry.
 */
static struct rte_mbuf *
packet_chain(const struct sst_stream_chan *c, uint32_t hdr_len, uint32_t max_len)
{
	struct rte_mempool *pool = c->peer->host->p.pool;
	struct rte_mbuf *head = NULL, *last = NULL;
	uint32_t need = hdr_len + max_len;

	do {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint32_t room;

		prefetch_next_mbuf(pool);

		if (m == NULL)
			goto fail;
		if (head == NULL) {
			head = m;
		} else {
			m->data_off = 0;
			last->next = m;
			head->nb_segs++;
		}
		last = m;
		room = rte_pktmbuf_tailroom(m);
		if (room < hdr_len + SST_CRYPTO_TRAILER_MAX)
			goto fail; /* a pool too small for any packet */
		m->data_len = (uint16_t)RTE_MIN(room - SST_CRYPTO_TRAILER_MAX, need);
		head->pkt_len += m->data_len;
		need -= m->data_len;
	} while (need > 0);
	return head;
fail:
	rte_pktmbuf_free(head);
	return NULL;
}

/* Cut a chain from packet_chain() to its first len bytes, freeing the mbufs
 * behind them. */
static void
packet_trim(struct rte_mbuf *head, uint32_t len)
{
	struct rte_mbuf *m = head;

	head->pkt_len = len;
	head->nb_segs = 1;
	while (len > m->data_len && m->next != NULL) {
		len -= m->data_len;
		m = m->next;
		head->nb_segs++;
	}
	m->data_len = (uint16_t)len;
	if (m->next != NULL) {
		rte_pktmbuf_free(m->next);
		m->next = NULL;
	}
}

/*
 * The packet of a segment: its header written in front of the bytes
 * sst_sendq_next_segment_copy() or _chain() put into m. NULL if that
 * fails; m is freed then.
 */
static struct rte_mbuf *
segment_packet(
	const struct sst_stream_hdr *hdr, const struct sst_sendq_seg *seg, struct rte_mbuf *m)
{
	size_t len = sst_stream_hdr_len(hdr->type);

	packet_trim(m, (uint32_t)len + seg->len);
	if (sst_stream_hdr_encode(hdr, rte_pktmbuf_mtod(m, char *), len) < 0) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

uint8_t
stream_advertise(struct sst_stream_chan *c, struct sst_stream *s)
{
	uint8_t w;

	if (s == NULL || stream_is_root(s))
		return sst_window_encode(c->peer->host->p.rx_window_min);
	/* The packets already in the burst go out first. */
	if (s->rx == NULL || sst_flowctl_rx_advertise(
				     &s->rx->fc, sst_channel_next_seq(c->ch) + c->burst_n, &w) < 0)
		return stream_rx_window(s);
	return w;
}

struct tx_burst {
	struct rte_mbuf *pkts[SST_MAX_BURST];
	uintptr_t cookies[SST_MAX_BURST];
	uint16_t n;
	bool eliciting;
	uint32_t sends; /**< bursts handed to the channel so far */
};

static void
burst_flush(struct sst_stream_chan *c, struct tx_burst *b, sst_time_t now)
{
	if (b->n == 0)
		return;
	c->stats.tx_packets += b->n;
	sst_channel_send(c->ch, b->pkts, b->cookies, b->n, b->eliciting, now, NULL);
	b->n = 0;
	b->sends++;
	c->burst_n = 0;
}

/*
 * Whether another packet (two: a control stream may owe an Attach and a
 * window update) may join the burst: the channel numbers only as many
 * packets as its log of packets in flight has room for, and a few numbers
 * stay free for the ack-only packets that let the peer's log drain too.
 * Control packets are not congestion controlled, so with many streams they
 * alone could fill the log.
 */
static bool
burst_room(const struct sst_stream_chan *c, const struct tx_burst *b)
{
	return sst_channel_packet_room(c->ch) >= (uint32_t)b->n + STREAM_CTL_ROOM;
}

static void
burst_add(struct sst_stream_chan *c, struct tx_burst *b, struct rte_mbuf *m, uint32_t cookie,
	sst_time_t now)
{
	b->pkts[b->n] = m;
	b->cookies[b->n] = cookie;
	c->burst_n = ++b->n;
	if (b->n == SST_MAX_BURST)
		burst_flush(c, b, now);
}

/* A control packet whose record says what to redo if it is lost.
 * @return false when it could not go (no mbuf or no record left): the
 * caller keeps it owed, since no loss will ever report it. */
static bool
send_control(struct sst_stream_chan *c, struct tx_burst *b, const struct sst_stream_hdr *hdr,
	const void *body, size_t body_len, struct sst_stream *s, uint8_t kind, uint32_t aux,
	sst_time_t now)
{
	struct rte_mbuf *m = stream_header_mbuf(c, hdr);
	uint32_t idx;
	char *p;

	if (m == NULL)
		return false;
	if (body_len > 0) {
		p = rte_pktmbuf_append(m, (uint16_t)body_len);
		if (p == NULL) {
			rte_pktmbuf_free(m);
			return false;
		}
		memcpy(p, body, body_len);
	}
	idx = sent_alloc(c);
	if (idx == 0) {
		rte_pktmbuf_free(m);
		return false;
	}
	c->sent[idx - 1] = (struct stream_sent){
		.s = s, .kind = kind, .aux = aux, .attachment = kind == SENT_ATTACH};
	if (s != NULL)
		stream_ref(s);
	burst_add(c, b, m, idx, now);
	return true;
}

static void
usid_of(const struct sst_stream_chan *c, const struct sst_stream *s, struct sst_usid *u)
{
	const struct sst_stream_peer *p = c->peer;
	uint8_t idx;

	if (stream_is_root(s)) {
		/* The root's USID is (0, the channel initiator's half-channel ID). */
		u->counter = 0;
		idx = c->initiator ? c->local_hcid : c->peer_hcid;
	} else {
		u->counter = s->usid_counter;
		idx = s->hcid;
	}
	u->hcid_len = p->hcids[idx].len;
	memcpy(u->hcid, p->hcids[idx].id, u->hcid_len);
}

/* @return false when there was no mbuf for the Attach: it stays owed
 * (waiting for a SID, the stream is in the channel's queue of waiters). */
static bool
send_attach(struct sst_stream_chan *c, struct tx_burst *b, struct sst_stream *s, sst_time_t now)
{
	struct sst_usid usid, parent_usid;
	uint8_t body[2 * (8 + 4 + SST_HCID_MAX)];
	struct sst_stream_hdr hdr = {.type = SST_STREAM_ATTACH};
	bool init = (s->flags & SF_ATTACH_INIT) != 0;
	struct sst_stream *parent =
		s->tx != NULL && s->tx->parent != NULL ? s->tx->parent : &s->peer->root;
	uint64_t counter;
	int len;

	if (!stream_tx_bound(s)) {
		if (stream_chan_sid_alloc(c, s, &counter) < 0)
			return true; /* it waits for a SID */
		stream_set_tx_attach(s, STREAM_TX_BOUND);
		/* Window updates are ordered by this channel's numbers now. */
		if (s->tx != NULL)
			s->tx->fc.updated = false;
	}
	usid_of(c, s, &usid);
	usid_of(c, parent, &parent_usid);
	len = sst_attach_body_encode(&usid, init ? &parent_usid : NULL, body, sizeof(body));
	if (len < 0)
		return true; /* cannot be encoded: nothing to wait for */
	hdr.sid = s->tx_sid;
	hdr.flags = (uint8_t)((init ? SST_FLAG_ATTACH_INIT : 0) |
			      (s->tx_slot ? SST_FLAG_ATTACH_SLOT : 0));
	hdr.window = stream_advertise(c, s);
	if (!send_control(c, b, &hdr, body, (size_t)len, s, SENT_ATTACH, 0, now))
		return false;
	s->flags &= ~SF_ATTACH_DUE;
	/* Nothing but this Attach goes until it is acknowledged, unless the
	 * attachment already was (a Reply's acknowledgment came after the
	 * Attach was owed): Data goes on then. */
	if (s->tx_attach == STREAM_TX_BOUND)
		stream_set_tx_attach(s, STREAM_TX_ATTACHING);
	c->peer->host->stats.attaches_tx++;
	return true;
}

/* @return false when the update is still owed (no mbuf for it now). */
static bool
send_window(struct sst_stream_chan *c, struct tx_burst *b, struct sst_stream *s, sst_time_t now)
{
	struct sst_stream_hdr hdr = {.type = SST_STREAM_ACK};

	if (!stream_rx_bound(s) || s->rx_chan != c) {
		s->flags &= ~SF_WINDOW_DUE;
		return true;
	}
	hdr.sid = s->rx_sid;
	hdr.window = stream_advertise(c, s);
	/* Ack packets are never answered at once, so the record names the
	 * stream by SID rather than holding it. */
	if (!send_control(c, b, &hdr, NULL, 0, NULL, SENT_ACK, s->rx_sid, now))
		return false;
	s->flags &= ~SF_WINDOW_DUE;
	c->stats.window_updates++;
	return true;
}

/* One Ack packet of a keepalive probe (sst_stream_chan_probe()): the
 * root's window (the initial one, which the peer assumed already), which
 * rx_ack() takes for the root, as our ack-only packets carry it when no
 * stream received (stream_tx_ack_due()). Ack-eliciting here, so that its
 * record names the root's SID and a loss owes the probe again
 * (stream_ack.c) until the answer. @return false when it could not go (no
 * mbuf now). */
static bool
send_probe(struct sst_stream_chan *c, struct tx_burst *b, sst_time_t now)
{
	struct sst_stream_hdr hdr = {.type = SST_STREAM_ACK, .sid = SST_SID_ROOT};

	hdr.window = sst_window_encode(c->peer->host->p.rx_window_min);
	return send_control(c, b, &hdr, NULL, 0, NULL, SENT_ACK, SST_SID_ROOT, now);
}

/* @return false when the Reset or Detach could not go (no mbuf now). */
static bool
send_code(struct sst_stream_chan *c, struct tx_burst *b, uint32_t code, sst_time_t now)
{
	struct sst_stream_hdr hdr = {.sid = (uint16_t)code};

	if (code & STREAM_CODE_DETACH) {
		hdr.type = SST_STREAM_DETACH;
	} else {
		hdr.type = SST_STREAM_RESET;
		hdr.flags = (code & STREAM_CODE_ORIENT) ? SST_FLAG_RESET_ORIENT : 0;
	}
	return send_control(c, b, &hdr, NULL, 0, NULL,
		(code & STREAM_CODE_DETACH) ? SENT_DETACH : SENT_RESET, code, now);
}

static bool
ctl_due_only_on(const struct sst_stream *s, const struct sst_stream_chan *c)
{
	bool attach = (s->flags & SF_ATTACH_DUE) && s->tx_chan != NULL;
	bool window = (s->flags & SF_WINDOW_DUE) && s->rx_chan != NULL;

	if (stream_is_ended(s))
		return false;
	return (attach || window) && (!attach || s->tx_chan == c) && (!window || s->rx_chan == c);
}

/* Streams queued here with anything due on another channel move to that
 * channel's queue (what is due here follows when that is sent: see
 * stream_ctl_requeue()); the others keep their order. */
static void
ctl_sweep(struct sst_stream_chan *c, sst_time_t now)
{
	c->ctl_sweep = false;
	uint32_t *next = c->peer->host->ctl_next;

	for (uint32_t n = c->ctl.count; n > 0; n--) {
		struct sst_stream *s = stream_queue_pop(&c->ctl, next, c->peer->host);

		if (ctl_due_only_on(s, c)) {
			stream_queue_push(&c->ctl, next, s);
			continue;
		}
		s->flags &= ~SF_IN_CTL_QUEUE;
		stream_ctl_requeue(s, c);
		stream_unref(s, now);
	}
}

/* @return false when a control found no mbuf or record and stays owed. */
static bool
send_controls(struct sst_stream_chan *c, struct tx_burst *b, sst_time_t now)
{
	if (c->ctl_sweep)
		ctl_sweep(c, now);
	/* A control that finds no mbuf (or no record) stays owed and ends
	 * the pass: the flush is retried shortly (sst_stream_chan_flush()),
	 * since nothing else would (only a packet that went out can be
	 * reported lost). */
	while (c->probe_due > 0 && burst_room(c, b)) {
		if (!send_probe(c, b, now))
			return false;
		c->probe_due--;
	}
	while (c->code_count > 0 && burst_room(c, b)) {
		if (!send_code(c, b, c->codes[c->code_head], now))
			return false;
		c->code_head = (c->code_head + 1) % c->code_cap;
		c->code_count--;
	}
	while (c->ctl.count > 0 && burst_room(c, b)) {
		struct sst_stream *s =
			stream_queue_pop(&c->ctl, c->peer->host->ctl_next, c->peer->host);
		bool sent = true;

		s->flags &= ~SF_IN_CTL_QUEUE;
		if (!stream_is_ended(s)) {
			if ((s->flags & SF_ATTACH_DUE) && s->tx_chan == c)
				sent = send_attach(c, b, s, now);
			if (sent && (s->flags & SF_WINDOW_DUE) && s->rx_chan == c)
				sent = send_window(c, b, s, now);
			stream_ctl_requeue(s, c);
			if (!sent)
				stream_ctl_queue(s); /* still owed here */
		}
		stream_unref(s, now);
		if (!sent)
			return false;
	}
	return true;
}

/*
 * How the next segment of s may go out before its attachment is
 * acknowledged: Init names the parent by its SID on this channel, Reply the
 * peer's SID for the stream. Neither can carry an offset above 16 bits; the
 * stream then waits for the acknowledgment, which an Attach could not
 * bring sooner.
 */
static int
segment_header(struct sst_stream_chan *c, struct sst_stream *s, struct sst_stream_hdr *hdr)
{
	if (stream_tx_attached_acked(s)) {
		hdr->type = SST_STREAM_DATA;
		return 0;
	}
	if (s->tx_attach == STREAM_TX_ATTACHING || (s->flags & SF_ATTACH_DUE))
		return -EAGAIN;
	if (s->peer_knows && stream_is_ours(s))
		return -ENOENT; /* detached or moved: an Init would make a new stream */
	if (stream_is_ours(s)) {
		struct sst_stream *parent = s->tx->parent;

		hdr->type = SST_STREAM_INIT;
		if (parent == NULL)
			hdr->ref_sid = 0;
		else if (stream_tx_bound_on(parent, c))
			hdr->ref_sid = parent->tx_sid;
		else
			return -ENOENT;
	} else {
		if (!stream_rx_bound(s) || s->rx_chan != c)
			return -ENOENT;
		hdr->type = SST_STREAM_REPLY;
		hdr->ref_sid = s->rx_sid;
	}
	if (!stream_tx_bound(s)) {
		uint64_t counter;

		if (stream_chan_sid_alloc(c, s, &counter) < 0)
			return -EAGAIN;
		stream_set_tx_attach(s, STREAM_TX_BOUND);
	}
	return 0;
}

/* One segment of s. @return 1 sent, 0 s has nothing it may send now, <0 stop. */
static int
send_segment(struct sst_stream_chan *c, struct tx_burst *b, struct sst_stream *s, sst_time_t now)
{
	struct stream_txio *tx = s->tx;
	struct sst_stream_hdr hdr = {.sid = 0};
	struct sst_sendq_seg seg;
	uint64_t pending, sendable;
	struct rte_mbuf *m;
	uint32_t idx, max_len, hdr_len;
	bool charged;
	int rc;

	rc = segment_header(c, s, &hdr);
	if (rc == -ENOENT) {
		/* Init or Reply cannot name the stream here: Attach it. */
		stream_attach_due(s);
		return 0;
	}
	if (rc < 0)
		return 0;
	if (hdr.type != SST_STREAM_DATA && tx->q.snd_nxt > UINT16_MAX &&
		sst_sendq_lost(&tx->q) == 0)
		return 0;
	pending = sst_sendq_unsent(&tx->q) + sst_sendq_lost(&tx->q);
	sendable = pending == 0 ? 0 : sst_flowctl_tx_sendable(&tx->fc, pending, true);
	/* Init data is charged to the parent's window too (paper 4.3.6): the
	 * children's first flights together stay within what the parent may
	 * have in flight. */
	charged = hdr.type == SST_STREAM_INIT && tx->parent != NULL && tx->parent->tx != NULL;
	if (charged)
		sendable = RTE_MIN(sendable, sst_flowctl_tx_allowance(&tx->parent->tx->fc));
	if (pending > 0 && sendable == 0)
		return 0; /* flow control: a window update will wake it */
	max_len = pending == 0 ? c->mss : (uint32_t)RTE_MIN(sendable, (uint64_t)c->mss);
	idx = sent_alloc(c);
	if (idx == 0)
		return -ENOSPC;
	hdr_len = (uint32_t)sst_stream_hdr_len(hdr.type);
	m = packet_chain(c, hdr_len, max_len);
	if (m == NULL)
		rc = -ENOMEM;
	else if (m->next == NULL) /* the common case: one mbuf, one memcpy per queued mbuf */
		rc = sst_sendq_next_segment_copy(
			&tx->q, max_len, &seg, rte_pktmbuf_mtod_offset(m, uint8_t *, hdr_len));
	else
		rc = sst_sendq_next_segment_chain(&tx->q, max_len, &seg, m, hdr_len);
	if (rc <= 0) {
		rte_pktmbuf_free(m);
		stream_sent_release(c, idx, now);
		return rc < 0 ? rc : 0;
	}
	if (hdr.type != SST_STREAM_DATA && seg.off > UINT16_MAX) {
		sst_sendq_on_lost(&tx->q, seg.off, seg.len);
		rte_pktmbuf_free(m);
		stream_sent_release(c, idx, now);
		return 0;
	}
	hdr.sid = s->tx_sid;
	hdr.flags = (uint8_t)(seg.flags & SST_FLAGS_DATA_ALL);
	hdr.tsn = (uint32_t)(hdr.type == SST_STREAM_DATA ? seg.off : seg.off & UINT16_MAX);
	hdr.window = stream_advertise(c, s);
	m = segment_packet(&hdr, &seg, m);
	if (m == NULL) {
		sst_sendq_on_lost(&tx->q, seg.off, seg.len);
		stream_sent_release(c, idx, now);
		return -ENOMEM;
	}
	c->sent[idx - 1] = (struct stream_sent){.s = s,
		.off = seg.off,
		.len = seg.len,
		.kind = SENT_SEGMENT,
		.flags = (uint8_t)seg.flags,
		.attachment = hdr.type != SST_STREAM_DATA,
		.charged = charged};
	stream_ref(s);
	sst_flowctl_tx_sent(&tx->fc, seg.len);
	if (charged) {
		sst_flowctl_tx_sent(&tx->parent->tx->fc, seg.len);
		tx->charged += seg.len;
	}
	sst_sched_served(&c->sched, &tx->sched, seg.len + SST_STREAM_HDR_LONG);
	c->peer->host->stats.segments_tx++;
	if (seg.retransmit) {
		c->peer->host->stats.segments_retx++;
		sst_channel_count_resent(c->ch, seg.len);
	}
	burst_add(c, b, m, idx, now);
	return 1;
}

void
sst_stream_chan_flush(struct sst_stream_chan *c, sst_time_t now)
{
	struct tx_burst b; /* not zeroed: 512 bytes of arrays filled as used */
	sst_time_t next = SST_TIME_NEVER;
	uint64_t allowance = 0, next_seq, rx_highest;
	uint32_t allowance_at = UINT32_MAX; /* b.sends when it was asked */
	bool starved;

	b.n = 0;
	b.eliciting = true;
	b.sends = 0;
	c->flush_wanted = false;
	c->allowance_held = false;
	/* A held channel's peer does not know it yet (sst_stream_chan_release()). */
	if (c->dead || c->on_hold)
		return;
	/* The path MTU may have shrunk (or grown): segments are cut, and lost
	 * ranges re-cut, to what fits now (paper 4.3.4). */
	c->mss = stream_chan_mss(c);
	/* The two numbers, not sst_channel_info()'s whole struct (cleared and
	 * filled in at every flush: about 95 instructions). */
	next_seq = sst_channel_next_seq(c->ch);
	rx_highest = sst_channel_rx_highest(c->ch);
	sst_sid_tick(c->tx_sids, next_seq, rx_highest);
	sst_sid_tick(c->rx_sids, next_seq, rx_highest);
	if (c->finish_ack_due) {
		c->finish_ack_due = false;
		stream_tx_ack_due(c, now);
	}
	stream_chan_sid_waiters_wake(c, now);
	if (c->dgram != NULL)
		sst_dgram_rx_expire(c->dgram, now);
	/* A stream reaped since the last flush may have emptied c. */
	stream_chan_finish_answer(c);
	starved = !send_controls(c, &b, now);
	for (;;) {
		struct sst_sched_entry *e = sst_sched_next(&c->sched);
		struct sst_stream *s;
		int rc;

		if (e == NULL || !burst_room(c, &b))
			break;
		/* The allowance changes only when the channel sends (the
		 * pacer's refill at the same time changes nothing): asked
		 * once per burst, not twice per segment. */
		if (allowance_at != b.sends) {
			allowance = sst_channel_send_allowance(c->ch, now, &next);
			allowance_at = b.sends;
		}
		if (allowance == 0) {
			c->allowance_held = true;
			burst_flush(c, &b, now);
			break;
		}
		s = txio_stream(e);
		rc = send_segment(c, &b, s, now);
		if (rc < 0) {
			starved = true; /* no mbuf or no record left */
			break;
		}
		if (rc == 0 || s->tx == NULL || !sst_sendq_pending(&s->tx->q))
			sst_sched_unready(e);
		/* The channel numbers packets in the order they are handed over:
		 * flush before the allowance is asked again. */
		if (b.n > 0 && allowance <= (uint64_t)b.n * (c->mss + SST_STREAM_HDR_LONG))
			burst_flush(c, &b, now);
	}
	burst_flush(c, &b, now);
	c->next_flush = sst_sched_next(&c->sched) != NULL ? next : SST_TIME_NEVER;
	/* The packet pool or the record table ran dry: what is owed goes
	 * when they have room again, which no event here announces. */
	if (starved)
		c->next_flush = sst_time_min(c->next_flush, now + STREAM_STARVED_RETRY);
	stream_idle_sweep(c->peer->host, now);
	stream_reap(c->peer->host, now);
	/* Or one reaped just now: the answer goes at the next flush (it
	 * makes c pending). */
	stream_chan_finish_answer(c);
	if (stream_buffers_next_growth(c->peer->host) <= now)
		stream_buffers_grow(c->peer->host, now);
}

/* An ack-only packet: it carries the window of the stream that last
 * received data (the root if none), as the prototype's do. */
void
stream_tx_ack_due(void *ctx, sst_time_t now)
{
	struct sst_stream_chan *c = ctx;
	struct sst_stream_hdr hdr = {.type = SST_STREAM_ACK};
	struct sst_stream *s = NULL;
	uintptr_t cookie = 0;
	struct rte_mbuf *m;

	if (c->on_hold)
		return;
	if (c->last_rx_sid != 0)
		s = sst_sid_lookup(c->rx_sids, c->last_rx_sid);
	if (s != NULL && !stream_is_root(s) && s->rx_chan == c && stream_rx_bound(s)) {
		hdr.sid = s->rx_sid;
		hdr.window = stream_advertise(c, s);
	} else {
		hdr.window = stream_advertise(c, NULL);
	}
	m = stream_header_mbuf(c, &hdr);
	if (m == NULL)
		return;
	c->stats.tx_packets++;
	/* A record, so that the advert's acknowledgment ends the receive
	 * window's tuning round (stream_flowctl). */
	if (hdr.sid != 0 && (cookie = sent_alloc(c)) != 0)
		c->sent[cookie - 1] = (struct stream_sent){.kind = SENT_ACK, .aux = hdr.sid};
	sst_channel_send(c->ch, &m, &cookie, 1, false, now, NULL);
}

/*
 * Segment payload for this channel. A peer that advertised no capability
 * may be the prototype, which never sends more than SST_SEGMENT_MAX
 * payload bytes in a packet (its MTU constant): nothing in its captures
 * shows that it takes more, so it gets no larger ones from us either.
 */
uint32_t
stream_chan_mss(const struct sst_stream_chan *c)
{
	uint32_t mss = sst_channel_max_payload(c->ch) - SST_STREAM_HDR_LONG;

	if (c->peer->caps == SST_CAPS_LEGACY)
		mss = RTE_MIN(mss, (uint32_t)SST_SEGMENT_MAX);
	return mss;
}

/* Datagram payload that fits one packet beside the 4-byte header; to a
 * possible prototype at most SST_SEGMENT_MAX, the largest datagram it
 * sends in one packet (prototype notes 2.6). */
uint32_t
stream_dgram_payload_max(const struct sst_stream_chan *c)
{
	uint32_t max = c->mss + SST_STREAM_HDR_LONG - SST_STREAM_HDR_SHORT;

	if (c->peer->caps == SST_CAPS_LEGACY)
		max = RTE_MIN(max, (uint32_t)SST_SEGMENT_MAX);
	return max;
}
