/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stream-layer objects and the application's operations (sst_stream.h):
 * hosts, peers, stream control blocks with buffers attached on demand,
 * service rendezvous, and the stream lifecycle (finish, reset, quiet SIDs).
 * Packets go in through stream_rx.c and out through stream_tx.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_log.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "sst_log.h"
#include "stream_internal.h"

/* The stream layer's log type (control events only: the data path counts). */
RTE_LOG_REGISTER(sst_logtype_stream, sst.stream, NOTICE);

static_assert(sizeof(struct sst_stream) <= 96, "an idle stream costs at most 96 bytes");

size_t
sst_stream_control_block_size(void)
{
	return sizeof(struct sst_stream);
}

/* ---- Host ---- */

static void
host_defaults(struct sst_stream_host_params *p)
{
	if (p->max_streams == 0)
		p->max_streams = 65536;
	if (p->max_tx_buffers == 0)
		p->max_tx_buffers = 4096;
	if (p->max_rx_buffers == 0)
		p->max_rx_buffers = 4096;
	if (p->max_sids == 0)
		p->max_sids = 16384;
	if (p->send_buffer == 0)
		p->send_buffer = 1 << 20;
	if (p->send_mbufs == 0)
		p->send_mbufs = 1024;
	if (p->rx_window_min == 0)
		p->rx_window_min = 65536;
	if (p->rx_window_max == 0)
		p->rx_window_max = 4 << 20;
	if (p->rx_pieces == 0)
		p->rx_pieces = 1024;
	if (p->peer_usids == 0)
		p->peer_usids = p->max_streams;
	if (p->peer_max_streams == 0)
		p->peer_max_streams = RTE_MAX(p->max_streams / 4, 1u);
	if (p->peer_max_tx_buffers == 0)
		p->peer_max_tx_buffers = RTE_MAX(p->max_tx_buffers / 4, 1u);
	if (p->peer_max_rx_buffers == 0)
		p->peer_max_rx_buffers = RTE_MAX(p->max_rx_buffers / 4, 1u);
	if (p->name == NULL)
		p->name = "sst";
}

/* A buffer pool's per-lcore cache: at most 64, and what the mempool
 * allows for n objects (n / 1.5). */
static unsigned int
buffer_cache(uint32_t n)
{
	return RTE_MIN(64u, n * 2 / 3);
}

struct sst_stream_host *
sst_stream_host_create(const struct sst_stream_host_params *params)
{
	struct sst_stream_host *h;
	char name[RTE_MEMPOOL_NAMESIZE];
	size_t txio, rxio;

	if (params == NULL || params->pool == NULL || params->clone_pool == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	h = rte_zmalloc_socket(
		"sst_stream_host", sizeof(*h), RTE_CACHE_LINE_SIZE, params->socket_id);
	if (h == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	h->p = *params;
	host_defaults(&h->p);
	h->rx_data_flags = h->p.prototype_reader ? ~(uint32_t)SST_FLAG_CLOSE : UINT32_MAX;
	if (h->p.rx_window_max < h->p.rx_window_min || h->p.rx_window_max > SST_FLOWCTL_BUF_MAX ||
		h->p.rx_window_min < 2 * SST_SEGMENT_MAX || h->p.max_sids > 16384) {
		rte_free(h);
		rte_errno = EINVAL;
		return NULL;
	}
	/* A segment acked or lost in the middle adds at most two ranges. */
	h->txio_mbufs = h->p.send_mbufs;
	h->txio_ranges = 2 * h->p.send_mbufs + 2;
	txio = offsetof(struct stream_txio, q) + sst_sendq_size(h->txio_mbufs, h->txio_ranges);
	rxio = offsetof(struct stream_rxio, rob) + sst_rob_size(h->p.rx_pieces);
	if (sst_sendq_size(h->txio_mbufs, h->txio_ranges) == 0 ||
		sst_rob_size(h->p.rx_pieces) == 0) {
		rte_free(h);
		rte_errno = EINVAL;
		return NULL;
	}
	h->tx_waiters_cap = h->p.max_streams;
	h->tx_waiters = rte_zmalloc_socket("sst_tx_waiters",
		h->tx_waiters_cap * sizeof(*h->tx_waiters), RTE_CACHE_LINE_SIZE, h->p.socket_id);
	h->rx_owners = rte_zmalloc_socket("sst_rx_owners",
		(size_t)h->p.max_rx_buffers * sizeof(*h->rx_owners), RTE_CACHE_LINE_SIZE,
		h->p.socket_id);
	if (h->tx_waiters == NULL || h->rx_owners == NULL) {
		rte_free(h->tx_waiters);
		rte_free(h->rx_owners);
		rte_free(h);
		rte_errno = ENOMEM;
		return NULL;
	}
	/* Control blocks come from a plain array: a mempool would add a
	 * header and cache-line padding to every 96-byte block. */
	h->slab = rte_zmalloc_socket("sst_streams",
		(size_t)h->p.max_streams * sizeof(struct sst_stream), RTE_CACHE_LINE_SIZE,
		h->p.socket_id);
	for (uint32_t i = 0; h->slab != NULL && i < h->p.max_streams; i++) {
		h->slab[i].link = h->slab_free;
		h->slab_free = &h->slab[i];
	}
	/* One link per control block for each kind of channel queue
	 * (stream_fifo.h): 8 bytes per stream here instead of 16 bytes per
	 * stream in every channel. */
	h->ctl_next =
		rte_zmalloc_socket("sst_links", (size_t)2 * h->p.max_streams * sizeof(*h->ctl_next),
			RTE_CACHE_LINE_SIZE, h->p.socket_id);
	if (h->ctl_next != NULL)
		h->sidw_next = h->ctl_next + h->p.max_streams;
	/* A per-lcore cache hands the buffer freed last out first: a server
	 * whose clients come and go reuses the same few buffers instead of
	 * touching the whole pool in turn (the pool's ring is FIFO), so its
	 * memory stays flat. */
	snprintf(name, sizeof(name), "%s_stx", h->p.name);
	h->txios = rte_mempool_create(name, h->p.max_tx_buffers, txio,
		buffer_cache(h->p.max_tx_buffers), 0, NULL, NULL, NULL, NULL, h->p.socket_id,
		RTE_MEMPOOL_F_SP_PUT | RTE_MEMPOOL_F_SC_GET);
	snprintf(name, sizeof(name), "%s_srx", h->p.name);
	h->rxios = rte_mempool_create(name, h->p.max_rx_buffers, rxio,
		buffer_cache(h->p.max_rx_buffers), 0, NULL, NULL, NULL, NULL, h->p.socket_id,
		RTE_MEMPOOL_F_SP_PUT | RTE_MEMPOOL_F_SC_GET);
	if (h->slab == NULL || h->ctl_next == NULL || h->txios == NULL || h->rxios == NULL) {
		int err = h->slab == NULL || h->ctl_next == NULL ? ENOMEM : rte_errno;

		rte_free(h->ctl_next);
		rte_free(h->slab);
		rte_mempool_free(h->txios);
		rte_mempool_free(h->rxios);
		rte_free(h->tx_waiters);
		rte_free(h->rx_owners);
		rte_free(h);
		rte_errno = err;
		return NULL;
	}
	return h;
}

void
sst_stream_host_destroy(struct sst_stream_host *h)
{
	if (h == NULL)
		return;
	rte_free(h->ctl_next);
	rte_free(h->slab);
	rte_mempool_free(h->txios);
	rte_mempool_free(h->rxios);
	rte_free(h->tx_waiters);
	rte_free(h->rx_owners);
	rte_free(h);
}

const struct sst_stream_host_stats *
sst_stream_host_stats(struct sst_stream_host *h)
{
	h->stats.streams_live = h->slab_used;
	h->stats.tx_buffers_live = h->txios_used;
	h->stats.rx_buffers_live = h->rxios_used;
	return &h->stats;
}

static struct stream_service *
service_find(struct sst_stream_host *h, const char *service, size_t slen, const char *protocol,
	size_t plen)
{
	for (int i = 0; i < STREAM_SERVICES_MAX; i++) {
		struct stream_service *sv = &h->services[i];

		if (sv->used && strlen(sv->service) == slen && strlen(sv->protocol) == plen &&
			memcmp(sv->service, service, slen) == 0 &&
			memcmp(sv->protocol, protocol, plen) == 0)
			return sv;
	}
	return NULL;
}

int
sst_stream_listen(
	struct sst_stream_host *h, const char *service, const char *protocol, void *service_ctx)
{
	size_t slen = strlen(service), plen = strlen(protocol);

	if (slen == 0 || plen == 0 || slen >= sizeof(h->services[0].service) ||
		plen >= sizeof(h->services[0].protocol))
		return -EINVAL;
	if (service_find(h, service, slen, protocol, plen) != NULL)
		return -EEXIST;
	for (int i = 0; i < STREAM_SERVICES_MAX; i++) {
		struct stream_service *sv = &h->services[i];

		if (!sv->used) {
			memcpy(sv->service, service, slen + 1);
			memcpy(sv->protocol, protocol, plen + 1);
			sv->ctx = service_ctx;
			sv->used = true;
			return 0;
		}
	}
	return -ENOSPC;
}

int
sst_stream_unlisten(struct sst_stream_host *h, const char *service, const char *protocol)
{
	struct stream_service *sv =
		service_find(h, service, strlen(service), protocol, strlen(protocol));

	if (sv == NULL)
		return -ENOENT;
	sv->used = false;
	return 0;
}

/* ---- Peers and USIDs ---- */

struct sst_stream_peer *
sst_stream_peer_create(struct sst_stream_host *h, uint32_t caps)
{
	struct sst_stream_peer *p;
	uint32_t slots = STREAM_USIDS_INIT;

	p = rte_zmalloc("sst_stream_peer", sizeof(*p), RTE_CACHE_LINE_SIZE);
	if (p == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	p->usids = rte_zmalloc("sst_stream_usids", slots * sizeof(*p->usids), RTE_CACHE_LINE_SIZE);
	if (p->usids == NULL) {
		rte_free(p);
		rte_errno = ENOMEM;
		return NULL;
	}
	p->host = h;
	p->caps = caps & SST_CAPS_ALL;
	p->usid_mask = slots - 1;
	p->usid_max = h->p.peer_usids;
	p->root.peer = p;
	p->root.flags = SF_ROOT | SF_LISTEN | SF_TX_ATTACHED | SF_TX_ACKED | SF_RX_ATTACHED;
	p->root.hcid = STREAM_HCID_ROOT;
	p->root.refs = 1;
	return p;
}

uint32_t
sst_stream_peer_caps(const struct sst_stream_peer *p)
{
	return p->caps;
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

uint32_t
sst_stream_peer_streams(const struct sst_stream_peer *p)
{
	return p->nstreams;
}

struct sst_stream_peer *
sst_stream_peer_of(const struct sst_stream *s)
{
	return s->peer;
}

void
sst_stream_peer_destroy(struct sst_stream_peer *p)
{
	if (p == NULL)
		return;
	for (int i = 0; i < STREAM_PEER_CHANS_MAX; i++)
		if (p->chans[i] != NULL)
			sst_stream_chan_destroy(p->chans[i], 0);
	/* Every stream is now an orphan or only known by USID. */
	sst_stream_peer_abort(p, 0);
	/* Waiting for send buffers ends for the peer's streams. */
	for (uint32_t i = 0, n = p->host->tx_waiting; i < n; i++) {
		struct sst_stream_host *h = p->host;
		struct sst_stream *s = h->tx_waiters[h->tx_waiters_head];

		h->tx_waiters_head = (h->tx_waiters_head + 1) % h->tx_waiters_cap;
		h->tx_waiting--;
		if (s->peer == p) {
			s->flags &= ~SF_TX_WAITING;
			stream_unref(s, 0);
		} else {
			h->tx_waiters[(h->tx_waiters_head + h->tx_waiting) % h->tx_waiters_cap] = s;
			h->tx_waiting++;
		}
	}
	/* The root never resets; its buffers go with the peer. */
	p->root.flags |= SF_RESET;
	stream_maybe_release_buffers(&p->root, 0);
	stream_reap(p->host, 0);
	rte_free(p->usids);
	rte_free(p);
}

void
sst_stream_peer_fail(struct sst_stream_peer *p, enum sst_stream_end why, sst_time_t now)
{
	for (uint32_t i = 0; i <= p->usid_mask; i++) {
		struct sst_stream *s = p->usids[i];

		if (s != NULL && !(s->flags & SF_RESET))
			stream_do_reset(s, why, false, now);
	}
}

void
sst_stream_peer_abort(struct sst_stream_peer *p, sst_time_t now)
{
	sst_stream_peer_fail(p, SST_STREAM_ABORTED, now);
}

struct sst_stream_chan *
stream_peer_chan(struct sst_stream_peer *p)
{
	struct sst_stream_chan *newest = NULL;

	/* The newest live channel: migration moves streams forward, and a
	 * replaced one, still emptying, gets no new streams. */
	for (int i = 0; i < STREAM_PEER_CHANS_MAX; i++) {
		struct sst_stream_chan *c = p->chans[i];

		if (c != NULL && !c->dead && (newest == NULL || stream_chan_newer(c, newest)))
			newest = c;
	}
	return newest;
}

/* ---- Stream control blocks ---- */

struct sst_stream *
stream_alloc(struct sst_stream_peer *p, uint32_t flags)
{
	struct sst_stream_host *h = p->host;
	struct sst_stream *s = h->slab_free;

	if (s == NULL) {
		h->stats.no_stream++;
		return NULL;
	}
	h->slab_free = s->link;
	h->slab_used++;
	memset(s, 0, sizeof(*s));
	s->peer = p;
	s->flags = flags;
	s->refs = 1; /* the application's handle, or the accept queue's */
	s->tx_window = sst_window_encode(p->host->p.rx_window_min);
	p->nstreams++;
	p->nours += (flags & SF_INITIATOR) != 0;
	return s;
}

void
stream_ref(struct sst_stream *s)
{
	s->refs++;
}

static void
stream_free(struct sst_stream *s, sst_time_t now)
{
	struct sst_stream_peer *p = s->peer;

	stream_release_sids(s, now);
	s->flags |= SF_RESET;
	if (s->tx != NULL || s->rx != NULL)
		stream_maybe_release_buffers(s, now);
	stream_usid_remove(p, s);
	p->nstreams--;
	p->nours -= (s->flags & SF_INITIATOR) != 0;
	p->host->stats.streams_closed++;
	stream_slab_put(p->host, s);
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
 * deep inside processing that may still use it.
 */
static bool
stream_is_ended(const struct sst_stream *s)
{
	return (s->flags & (SF_FINISHED | SF_RESET)) != 0;
}

/* Never frees at once: the caller's callers may still be using s. */
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

	if (s->refs != 0 || (s->flags & (SF_ROOT | SF_REAP)))
		return;
	s->flags |= SF_REAP;
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
			s->flags &= ~SF_REAP;
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

	if ((s->flags & SF_TX_WAITING) || h->tx_waiting == h->tx_waiters_cap)
		return;
	s->flags |= SF_TX_WAITING;
	stream_ref(s);
	h->tx_waiters[(h->tx_waiters_head + h->tx_waiting) % h->tx_waiters_cap] = s;
	h->tx_waiting++;
}

void
stream_tx_buffer_wait(struct sst_stream *s)
{
	s->flags |= SF_WRITABLE_WANTED;
	stream_tx_buffer_queue(s);
}

/* The peer of s holds its share of send buffers: its streams wait for
 * one of its own to come back, while others' streams are served. */
static bool
tx_share_used(const struct sst_stream *s)
{
	return !(s->flags & SF_INITIATOR) && s->peer->ntx >= s->peer->host->p.peer_max_tx_buffers;
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
		if (!(s->flags & SF_RESET) && tx_share_used(s)) {
			h->tx_waiters[(h->tx_waiters_head + h->tx_waiting - 1) %
				      h->tx_waiters_cap] = s;
			continue;
		}
		h->tx_waiting--;
		s->flags &= ~SF_TX_WAITING;
		if ((s->flags & (SF_CLOSE_OWED | SF_RESET)) == SF_CLOSE_OWED &&
			stream_tx_buffers(s) == 0) {
			/* An end that waited for a buffer: it goes out now and
			 * the buffer is used, so the next waiter may have one. */
			stream_close_tx(s);
			stream_unref(s, now);
			continue;
		}
		wake = !(s->flags & (SF_RESET | SF_APP_CLOSED)) && (s->flags & SF_WRITABLE_WANTED);
		if (wake) {
			s->flags &= ~SF_WRITABLE_WANTED;
			if (h->p.ops != NULL && h->p.ops->writable != NULL)
				h->p.ops->writable(h->p.ctx, s);
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
		    s->tx_off) < 0) {
		rte_mempool_put(h->txios, obj);
		return -EINVAL;
	}
	s->tx = tx;
	h->txios_used++;
	s->peer->ntx += (s->flags & SF_INITIATOR) == 0;
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
	if (!(s->flags & SF_INITIATOR) && s->peer->nrx >= h->p.peer_max_rx_buffers) {
		h->stats.peer_buffers_refused++;
		return -ENOBUFS;
	}
	if (rte_mempool_get(h->rxios, &obj) < 0) {
		h->stats.no_buffer++;
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
	if (sst_rob_init(&rx->rob, h->p.rx_pieces, h->p.rx_window_max, h->p.clone_pool, s->rx_off) <
		0) {
		rte_mempool_put(h->rxios, obj);
		return -EINVAL;
	}
	s->rx = rx;
	s->peer->nrx += (s->flags & SF_INITIATOR) == 0;
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
	       (!(s->flags & SF_SHUTDOWN) || sst_sendq_finished(&tx->q));
}

static bool
rx_idle(const struct sst_stream *s)
{
	const struct stream_rxio *rx = s->rx;

	if ((s->flags & (SF_TOPLEVEL | SF_SERVICE_DONE | SF_RESET)) == SF_TOPLEVEL)
		return false; /* the rendezvous message is being gathered */
	return sst_rob_buffered(&rx->rob) == 0 && rx->accept_head == NULL && rx->dgram_count == 0;
}

void
stream_maybe_release_buffers(struct sst_stream *s, sst_time_t now)
{
	struct sst_stream_host *h = s->peer->host;

	RTE_SET_USED(now);
	if (s->tx != NULL && (tx_idle(s) || (s->flags & SF_RESET))) {
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
		s->peer->ntx -= (s->flags & SF_INITIATOR) == 0;
		stream_tx_buffer_freed(h, now);
	}
	/* Receive buffers stay while data keeps coming (their window tuning
	 * spans rounds); the idle sweep takes them once it stops. */
	if (s->rx != NULL &&
		((rx_idle(s) && (!(s->flags & SF_RX_RECENT) || (s->flags & SF_RX_EOF))) ||
			(s->flags & SF_RESET))) {
		struct stream_rxio *rx = s->rx;
		uint64_t fresh_edge =
			rx->fc.read_off + sst_window_credit(sst_window_encode(rx->fc.min_buf));

		s->rx_off = sst_rob_read_offset(&rx->rob);
		/* The peer may hold credit from a larger advert than a fresh
		 * state gives: tell it the smaller window (newest advert wins).
		 * Or it used up its credit (it sent up to our last edge) and
		 * waits for a larger one, which nothing else would bring. */
		if (rx->fc.edge != fresh_edge && !(s->flags & (SF_RESET | SF_RX_EOF)) &&
			(s->flags & SF_RX_ATTACHED)) {
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
			c->flags &= ~SF_ACCEPT_QUEUED;
			stream_do_reset(c, SST_STREAM_ABORTED, true, now);
			stream_unref(c, now); /* the accept queue's reference */
		}
		sst_rob_fini(&rx->rob);
		/* The last owner takes the freed slot (the array stays dense). */
		h->rx_owners[rx->owner] = h->rx_owners[--h->rxios_used];
		h->rx_owners[rx->owner]->rx->owner = rx->owner;
		rte_mempool_put(h->rxios, rx);
		s->rx = NULL;
		s->peer->nrx -= (s->flags & SF_INITIATOR) == 0;
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
	struct sst_channel_info ci;

	if (c == NULL || c->dead)
		return;
	sst_channel_info(c->ch, &ci);
	(ended ? sst_sid_release_ended : sst_sid_release)(space, sid,
		ci.next_seq + 2 * c->replay_window, ci.rx_highest + 2 * c->replay_window);
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

		if (s->flags & SF_RX_RECENT) {
			s->flags &= ~SF_RX_RECENT;
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
	if (s->flags & SF_TX_ATTACHED)
		stream_sid_quiet(s->tx_chan, s->tx_chan != NULL ? s->tx_chan->tx_sids : NULL,
			s->tx_sid, (s->flags & SF_FINISHED) != 0);
	s->flags &= ~(SF_TX_ATTACHED | SF_TX_ACKED);
}

void
stream_release_sids(struct sst_stream *s, sst_time_t now)
{
	RTE_SET_USED(now);
	stream_release_tx_sid(s);
	if (s->flags & SF_RX_ATTACHED)
		stream_sid_quiet(s->rx_chan, s->rx_chan != NULL ? s->rx_chan->rx_sids : NULL,
			s->rx_sid, (s->flags & SF_FINISHED) != 0);
	s->flags &= ~SF_RX_ATTACHED;
}

static void
report_closed(struct sst_stream *s, enum sst_stream_end why)
{
	const struct sst_stream_ops *ops = s->peer->host->p.ops;

	if (s->flags & SF_CLOSED_REPORTED)
		return;
	s->flags |= SF_CLOSED_REPORTED;
	if (s->flags & SF_APP_CLOSED)
		return;
	if ((s->flags & SF_TOPLEVEL) && (s->flags & SF_INITIATOR) &&
		!(s->flags & SF_SERVICE_DONE)) {
		if (ops != NULL && ops->connected != NULL)
			ops->connected(s->peer->host->p.ctx, s,
				why == SST_STREAM_REFUSED ? -ECONNREFUSED : -ECONNRESET);
		s->flags |= SF_SERVICE_DONE;
	}
	if (ops != NULL && ops->closed != NULL)
		ops->closed(s->peer->host->p.ctx, s, why);
}

/* Both directions ended: release the SIDs after their quiet period. */
void
stream_check_finished(struct sst_stream *s, sst_time_t now)
{
	if ((s->flags & (SF_FINISHED | SF_RESET | SF_ROOT)) != 0)
		return;
	if (!(s->flags & SF_SHUTDOWN) || !(s->flags & SF_SENT_CLOSE_ACKED) ||
		!(s->flags & SF_RX_EOF))
		return;
	/* Nothing is owed on any channel any more: an Attach or a window
	 * update still due (it migrated just before) would bind a SID again
	 * that nothing releases, keeping that channel in use. send_controls()
	 * skips finished streams for what a loss report queues later. */
	s->flags |= SF_FINISHED;
	s->flags &= ~(SF_ATTACH_DUE | SF_ATTACH_INIT | SF_VIA_ATTACH | SF_WINDOW_DUE);
	stream_release_sids(s, now);
	stream_maybe_release_buffers(s, now);
	report_closed(s, SST_STREAM_FINISHED);
	stream_ended(s);
}

/* A stream we opened that failed before any of it went out (no send
 * buffer for its first message): gone at once, reported to no one, since
 * the application never got it or it is ours. */
void
stream_abandon(struct sst_stream *s, sst_time_t now)
{
	s->flags |= SF_APP_CLOSED;
	stream_do_reset(s, SST_STREAM_ABORTED, false, now);
	stream_unref(s, now);
}

void
stream_do_reset(struct sst_stream *s, enum sst_stream_end why, bool send, sst_time_t now)
{
	struct sst_stream_chan *c;

	if (s->flags & (SF_RESET | SF_ROOT))
		return;
	/* The Reset names the stream by our own SID if we have one (paper
	 * 4.3.8), otherwise by the peer's, and is resent until acknowledged. */
	if (send && stream_peer_can(s->peer, SST_CAP_RESET)) {
		if ((s->flags & SF_TX_ATTACHED) && (c = s->tx_chan) != NULL && !c->dead) {
			stream_give_up_tx_sid(s, 0);
			s->peer->host->stats.streams_reset_tx++;
		} else if ((s->flags & SF_RX_ATTACHED) && (c = s->rx_chan) != NULL && !c->dead) {
			stream_chan_queue_code(c, s->rx_sid | STREAM_CODE_ORIENT);
			s->peer->host->stats.streams_reset_tx++;
		}
	}
	s->flags |= SF_RESET;
	s->flags &= ~(SF_ATTACH_DUE | SF_WINDOW_DUE);
	if ((s->flags & SF_RX_ATTACHED) && s->rx_chan != NULL && !s->rx_chan->dead &&
		s->rx_chan->dgram != NULL)
		sst_dgram_rx_reset_sid(s->rx_chan->dgram, s->rx_sid);
	stream_release_sids(s, now);
	if (s->tx != NULL)
		sst_sendq_reset(&s->tx->q);
	if (s->rx != NULL)
		sst_rob_reset(&s->rx->rob, sst_rob_read_offset(&s->rx->rob));
	stream_maybe_release_buffers(s, now);
	report_closed(s, why);
	stream_ended(s);
}

/* ---- Service rendezvous (wire-format.md 5) ---- */

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
 * The first message of a top-level stream is the service request (acceptor)
 * or reply (initiator). It is consumed here, before the application sees
 * the stream.
 */
void
stream_service_rx(struct sst_stream *s, sst_time_t now)
{
	struct sst_stream_host *h = s->peer->host;
	struct stream_rxio *rx = s->rx;
	struct sst_rob_rx rec;
	bool complete = false;

	if (rx == NULL || (s->flags & SF_SERVICE_DONE))
		return;
	/* Records never span a message end, so the message is gathered
	 * record by record into the receive buffers' service area. */
	while (!complete && sst_rob_read(&rx->rob, &rec, 1) == 1) {
		uint32_t n = rte_pktmbuf_pkt_len(rec.m);
		const void *src;

		if (rx->svc_len + n > sizeof(rx->svc)) {
			rte_pktmbuf_free(rec.m);
			stream_do_reset(s, SST_STREAM_REFUSED, true, now);
			return;
		}
		src = rte_pktmbuf_read(rec.m, 0, n, rx->svc + rx->svc_len);
		if (src != rx->svc + rx->svc_len)
			memcpy(rx->svc + rx->svc_len, src, n);
		rx->svc_len += n;
		complete = (rec.flags & (SST_FLAG_MESSAGE | SST_FLAG_CLOSE)) != 0;
		rte_pktmbuf_free(rec.m);
	}
	if (!complete)
		return;
	s->flags |= SF_SERVICE_DONE;
	if (s->flags & SF_INITIATOR) {
		const struct sst_stream_ops *ops = h->p.ops;
		int32_t err;

		if (sst_service_reply_decode(rx->svc, rx->svc_len, &err) < 0 || err != 0) {
			if (stream_peer_can(s->peer, SST_CAP_RESET)) {
				s->flags &= ~SF_SERVICE_DONE;
				stream_do_reset(s, SST_STREAM_REFUSED, true, now);
				return;
			}
			/* The prototype cannot take a Reset: end our direction so
			 * its side of the stream can finish too. */
			s->flags |= SF_SERVICE_REFUSED;
			if (ops != NULL && ops->connected != NULL && !(s->flags & SF_APP_CLOSED))
				ops->connected(h->p.ctx, s, -ECONNREFUSED);
			sst_stream_shutdown(s, now);
			return;
		}
		if (ops != NULL && ops->connected != NULL && !(s->flags & SF_APP_CLOSED))
			ops->connected(h->p.ctx, s, 0);
	} else {
		struct sst_service_request req;
		struct stream_service *sv = NULL;
		uint8_t reply[8];

		if (sst_service_request_decode(rx->svc, rx->svc_len, &req) == 0)
			sv = service_find(h, (const char *)req.service.ptr, req.service.len,
				(const char *)req.protocol.ptr, req.protocol.len);
		if (sv == NULL) {
			h->stats.services_refused++;
			/* Peers that know Reset get one (the initiator reports the
			 * refusal); the prototype gets the non-zero reply it
			 * understands as failure, then the end of the stream. */
			if (stream_peer_can(s->peer, SST_CAP_RESET)) {
				stream_do_reset(s, SST_STREAM_REFUSED, true, now);
				stream_unref(s, now);
				return;
			}
			sst_service_reply_encode(1, reply, sizeof(reply));
			stream_write_internal(
				s, reply, sizeof(reply), SST_FLAG_PUSH | SST_FLAG_MESSAGE);
			s->flags |= SF_SERVICE_REFUSED;
			sst_stream_shutdown(s, now);
			stream_unref(s, now);
			return;
		}
		sst_service_reply_encode(0, reply, sizeof(reply));
		stream_write_internal(s, reply, sizeof(reply), SST_FLAG_PUSH | SST_FLAG_MESSAGE);
		h->stats.streams_accepted++;
		s->flags &= ~SF_APP_CLOSED;
		if (h->p.ops != NULL && h->p.ops->accepted != NULL) {
			h->p.ops->accepted(h->p.ctx, NULL, s, sv->ctx);
			stream_reoffer_children(s);
		} else {
			sst_stream_close(s, now);
		}
	}
}
