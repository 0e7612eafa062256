/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker (sst_worker.h): the layers wired together over one datagram
 * link. Channel numbers are this worker's, 1..255, handed out round robin,
 * so that byte 0 of a packet finds its channel in one array lookup (and a
 * multi-worker engine can later steer on it); a packet whose byte 0 names a
 * channel of another peer is dropped.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_per_lcore.h>

#include "sst_burst.h"
#include "sst_worker.h"
#include "worker_internal.h"

/* Channel replacement (replace_check()). */
static const sst_time_t REPLACE_RETRY = SST_NSEC_PER_SEC;
static const sst_time_t RESPONDER_GRACE = 200 * SST_NSEC_PER_MSEC;
static const sst_time_t RETIRE_GRACE = 10 * SST_NSEC_PER_SEC;
/* An exhausted retiring channel stays two RTTs plus this, for what is in
 * flight either way to be acknowledged (its last numbers are kept for
 * that), so that neither side resends it on the successor needlessly. */
static const sst_time_t EXHAUSTED_LINGER = SST_NSEC_PER_MSEC;
/* A prototype peer's channel closed by sst_worker_close_idle() stays this
 * long, longer than the minimum RTO, to acknowledge a last lost packet the
 * peer resends (it has no FINISH to tell us it is done). */
static const sst_time_t PROTOTYPE_LINGER = 300 * SST_NSEC_PER_MSEC;

/* Negotiation keys its tables by these bytes: field by field, so that the
 * padding of struct sst_net_endpoint never makes two equal endpoints
 * differ. */
static void
ep_to_addr(const struct sst_net_endpoint *ep, struct sst_nego_addr *a)
{
	memset(a, 0, sizeof(*a));
	a->bytes[0] = ep->addr.family;
	memcpy(&a->bytes[1], ep->addr.bytes, sizeof(ep->addr.bytes));
	a->bytes[17] = (uint8_t)(ep->port >> 8);
	a->bytes[18] = (uint8_t)ep->port;
	a->len = 19;
}

static void
addr_to_ep(const struct sst_nego_addr *a, struct sst_net_endpoint *ep)
{
	memset(ep, 0, sizeof(*ep));
	if (a->len != 19)
		return;
	ep->addr.family = a->bytes[0];
	memcpy(ep->addr.bytes, &a->bytes[1], sizeof(ep->addr.bytes));
	ep->port = (uint16_t)(a->bytes[17] << 8 | a->bytes[18]);
}

/* The worker polling on this thread, for sst_worker_running(). */
static RTE_DEFINE_PER_LCORE(struct sst_worker *, running_worker);

struct sst_worker *
sst_worker_running(void)
{
	return RTE_PER_LCORE(running_worker);
}

/* ---- Negotiation's callbacks ---- */

static void
nego_transmit(
	void *ctx, const struct sst_nego_addr *to, const void *msg, size_t len, sst_time_t now)
{
	struct sst_worker *w = ctx;
	struct sst_net_endpoint ep;
	struct rte_mbuf *m = rte_pktmbuf_alloc(w->p.pool);
	char *p;

	if (m == NULL)
		return; /* as if lost: negotiation retransmits */
	p = rte_pktmbuf_append(m, (uint16_t)len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	memcpy(p, msg, len);
	addr_to_ep(to, &ep);
	worker_send(w, &m, &ep, 1, now);
}

static int
nego_chan_alloc(void *ctx, const struct sst_nego_addr *peer)
{
	struct sst_worker *w = ctx;

	RTE_SET_USED(peer);
	/* Round robin, not the lowest free: a number comes back as late as
	 * possible, because the peer may still hold the channel that last had
	 * it (one that ran out of numbers here ends before the peer's side
	 * does) and refuses its reuse as a stray for a while (20 s). Sharded:
	 * numbers by residue, so byte 0 names the owner too. */
	for (int i = 1; i < 256; i++) {
		int c = (w->chan_cursor + i) % 256;

		if (c != 0 && !w->chans[c].taken &&
			(w->p.shard_count <= 1 || c % w->p.shard_count == w->p.shard_index)) {
			w->chans[c].taken = true;
			w->chan_cursor = (uint8_t)c;
			return c;
		}
	}
	return -ENOSPC;
}

static void
nego_chan_free(void *ctx, const struct sst_nego_addr *peer, uint8_t chan)
{
	struct sst_worker *w = ctx;

	RTE_SET_USED(peer);
	w->chans[chan].taken = false;
}

static struct worker_peer *
peer_find(struct sst_worker *w, const struct sst_net_endpoint *ep, bool create, uint32_t caps)
{
	struct worker_peer *free_slot = NULL;

	for (uint32_t i = 0; i < w->p.max_peers; i++) {
		if (w->peers[i].sp != NULL && worker_ep_equal(&w->peers[i].ep, ep))
			return &w->peers[i];
		if (w->peers[i].sp == NULL && free_slot == NULL)
			free_slot = &w->peers[i];
	}
	if (!create || free_slot == NULL)
		return NULL;
	free_slot->sp = sst_stream_peer_create(w->sh, caps);
	if (free_slot->sp == NULL)
		return NULL;
	free_slot->ep = *ep;
	return free_slot;
}

/*
 * Secure initiator, first round trip: the responder may not have our SecI2
 * yet (it may be lost), so each packet goes inside a copy of it instead of
 * alone. @return packets handled here (from the front of pkts).
 */
static uint16_t
send_early(struct worker_chan *wc, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	struct sst_worker *w = wc->w;
	struct sst_nego_addr a;
	uint8_t buf[2048];
	uint16_t done = 0;

	ep_to_addr(&wc->peer->ep, &a);
	for (; done < n; done++) {
		uint32_t len = rte_pktmbuf_pkt_len(pkts[done]);
		const void *p =
			len <= sizeof(buf) ? rte_pktmbuf_read(pkts[done], 0, len, buf) : NULL;
		int rc = p != NULL ? sst_nego_send_early(
					     w->nego, &a, (uint8_t)(wc - w->chans), p, len, now)
				   : -EMSGSIZE;

		if (rc == -ENOENT)
			wc->unconfirmed = false;
		if (rc < 0)
			break; /* this one and the rest go out as usual */
		rte_pktmbuf_free(pkts[done]);
	}
	return done;
}

static void
chan_transmit(void *ctx, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	struct worker_chan *wc = ctx;
	struct sst_net_endpoint to[SST_MAX_BURST];

	if (wc->unconfirmed) {
		uint16_t early = send_early(wc, pkts, n, now);

		pkts += early;
		n -= early;
	}
	for (uint16_t done = 0; done < n;) {
		uint16_t k = RTE_MIN((uint16_t)(n - done), (uint16_t)SST_MAX_BURST);

		for (uint16_t i = 0; i < k; i++)
			to[i] = wc->peer->ep;
		worker_send(wc->w, pkts + done, to, k, now);
		done += k;
	}
}

static const struct sst_channel_lower chan_lower = {.transmit = chan_transmit};

/*
 * The peer is a new instance of the host we had channels with (negotiation
 * saw its instance identifier change): its streams died with it. Ours are
 * aborted rather than migrated, and the stale channels end at the end of
 * this poll (not here: negotiation is calling us).
 */
static void
peer_restarted(struct sst_worker *w, struct worker_peer *p, sst_time_t now)
{
	w->stats.restarts++;
	for (int c = 1; c < 256; c++)
		if (w->chans[c].sc != NULL && w->chans[c].peer == p)
			w->chans[c].closing = true;
	sst_stream_peer_abort(p->sp, now);
}

/* The channel to wc's peer its streams are on: the one not retiring. */
static struct worker_chan *
live_chan(struct sst_worker *w, const struct worker_chan *wc)
{
	for (int c = 1; c < 256; c++) {
		struct worker_chan *o = &w->chans[c];

		if (o != wc && o->sc != NULL && o->peer == wc->peer && !o->closing && !o->retiring)
			return o;
	}
	return NULL;
}

/*
 * Crossing replacements: both sides replaced one channel P at once (the
 * initiator's attempt took longer than the responder's grace), so two
 * successors come up, in either order on either side. Each side must keep
 * the same one, or each would move its streams to the channel the other
 * retires. The winner is the one negotiated by P's initiator: on each side
 * it is the successor whose role matches the role we had on P, which
 * successors remember (pred_initiator). wc, just established, loses to the
 * live channel when that one is such a winner and still fresh: a live
 * channel past half its numbers either way may be due for replacement
 * itself, and wc is then that replacement.
 */
static bool
crossing_loser(const struct worker_chan *wc, const struct worker_chan *live)
{
	struct sst_channel_info ci;

	if (!live->successor || live->replace_wanted || live->replacing ||
		live->initiator != live->pred_initiator || wc->initiator == live->pred_initiator)
		return false;
	sst_channel_info(sst_stream_chan_channel(live->sc), &ci);
	return ci.next_seq < ci.seq_limit / 2 && ci.rx_highest < ci.seq_limit / 2;
}

static int
nego_established(void *ctx, const struct sst_nego_result *r, sst_time_t now)
{
	struct sst_worker *w = ctx;
	struct worker_chan *wc = &w->chans[r->local_channel];
	struct sst_channel_params chp;
	struct sst_stream_chan_params cp = {.channel = &chp};
	struct sst_net_endpoint ep;
	const struct sst_worker_ops *ops = w->p.ops;
	struct worker_chan *live;
	bool moved = false;

	addr_to_ep(&r->peer, &ep);
	wc->peer = NULL;
	/* A channel to where a peer moved belongs to that peer. */
	for (uint32_t i = 0; i < w->p.max_peers; i++)
		if (w->peers[i].sp != NULL && w->peers[i].moving &&
			worker_ep_equal(&w->peers[i].moving_to, &ep)) {
			wc->peer = &w->peers[i];
			wc->peer->ep = ep;
			wc->peer->moving = false;
			moved = true;
		}
	if (wc->peer == NULL)
		wc->peer = peer_find(w, &ep, true, r->common_caps);
	if (wc->peer == NULL) {
		w->stats.peers_full++;
		return -ENOSPC;
	}
	/* A straggler of an instance that has since restarted. */
	if (r->peer_stale)
		return -ESTALE;
	if (r->peer_restarted)
		peer_restarted(w, wc->peer, now);
	if (sst_nego_channel_params(r, &chp) < 0)
		return -EINVAL;
	chp.pool = w->p.pool;
	chp.cc = w->p.cc;
	chp.mtu = w->p.mtu;
	chp.packet_limit = w->p.channel_packet_limit;
	/* A successor on the same path starts from its predecessor's RTT, so
	 * that a loss among its first packets costs an RTO, not a second. */
	for (int c = 1; c < 256 && !moved; c++) {
		struct sst_channel_info ci;

		if (w->chans[c].sc == NULL || w->chans[c].peer != wc->peer || w->chans[c].closing)
			continue;
		sst_channel_info(sst_stream_chan_channel(w->chans[c].sc), &ci);
		chp.initial_rtt = ci.srtt;
		break;
	}
	chp.lower = &chan_lower;
	chp.lower_ctx = wc;
	cp.local_hcid = r->tx_hcid;
	cp.local_hcid_len = r->hcid_len;
	cp.peer_hcid = r->rx_hcid;
	cp.peer_hcid_len = r->hcid_len;
	cp.initiator = r->role == SST_NEGO_INITIATOR;
	wc->w = w;
	wc->sc = sst_stream_chan_create(wc->peer->sp, &cp, now);
	if (wc->sc == NULL)
		return -ENOMEM;
	wc->peer_channel = r->peer_channel;
	wc->initiator = r->role == SST_NEGO_INITIATOR;
	wc->mode = r->mode;
	wc->unconfirmed = r->mode == SST_NEGO_MODE_SECURE && r->role == SST_NEGO_INITIATOR;
	wc->taken = true;
	wc->idle_since = SST_TIME_NEVER;
	wc->idle_offered = false;
	w->stats.channels_made++;
	w->stats.channels_open++;
	live = live_chan(w, wc);
	if (live != NULL && !moved && crossing_loser(wc, live)) {
		sst_stream_chan_migrate_all(wc->sc, live->sc, now);
		sst_stream_chan_prefer(live->sc);
		wc->retiring = true;
		wc->retire_by = now + RETIRE_GRACE;
		w->stats.channels_crossed++;
		if (ops != NULL && ops->peer_ready != NULL)
			ops->peer_ready(w->p.ctx, wc->peer->sp, &ep);
		return 0;
	}
	if (live != NULL) {
		wc->successor = true;
		/* The winner of a crossing carries on the family's tie-break. */
		wc->pred_initiator = live->successor && live->initiator != live->pred_initiator &&
						     wc->initiator == live->pred_initiator
					     ? live->pred_initiator
					     : live->initiator;
	}
	/* A new channel to a peer that has others (it moved, or one side
	 * replaces a channel running out of sequence space or key use): the
	 * streams move here, and the old channels retire. */
	for (int c = 1; c < 256; c++) {
		struct worker_chan *old = &w->chans[c];

		if (old->sc == NULL || old->peer != wc->peer || old == wc || old->closing)
			continue;
		sst_stream_chan_migrate_all(old->sc, wc->sc, now);
		old->replace_wanted = old->replacing = false;
		if (!old->retiring) {
			old->retiring = true;
			old->retire_by = now + RETIRE_GRACE;
		}
	}
	if (ops != NULL && ops->peer_ready != NULL)
		ops->peer_ready(w->p.ctx, wc->peer->sp, &ep);
	return 0;
}

static void
nego_failed(void *ctx, const struct sst_nego_addr *peer, uint8_t local_channel, int error,
	sst_time_t now)
{
	struct sst_worker *w = ctx;
	struct sst_net_endpoint ep;

	RTE_SET_USED(local_channel);
	addr_to_ep(peer, &ep);
	/* A replacement that failed is tried again, while the old channel
	 * still has numbers left. */
	for (int c = 1; c < 256; c++) {
		struct worker_chan *wc = &w->chans[c];

		if (wc->sc != NULL && wc->replacing && worker_ep_equal(&wc->peer->ep, &ep)) {
			wc->replacing = false;
			wc->replace_wanted = true;
			wc->replace_not_before = now + REPLACE_RETRY;
		}
	}
	if (w->p.ops != NULL && w->p.ops->connect_failed != NULL)
		w->p.ops->connect_failed(w->p.ctx, &ep, error);
}

/* Responder: a channel packet that rode in the initiator's SecI2. */
static void
nego_packet(void *ctx, uint8_t local_channel, const void *pkt, size_t len, sst_time_t now)
{
	struct sst_worker *w = ctx;
	struct worker_chan *wc = &w->chans[local_channel];
	struct rte_mbuf *m;

	if (wc->sc == NULL || len > UINT16_MAX)
		return;
	m = rte_pktmbuf_alloc(w->p.pool);
	if (m == NULL)
		return; /* as if lost: the stream layer resends */
	if (rte_pktmbuf_append(m, (uint16_t)len) == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	memcpy(rte_pktmbuf_mtod(m, void *), pkt, len);
	w->stats.rx_channel++;
	sst_channel_receive(sst_stream_chan_channel(wc->sc), &m, 1, now);
}

static const struct sst_nego_ops worker_nego_ops = {
	.packet = nego_packet,
	.transmit = nego_transmit,
	.chan_alloc = nego_chan_alloc,
	.chan_free = nego_chan_free,
	.established = nego_established,
	.failed = nego_failed,
};

/* ---- The stream layer's callbacks: ours first, then the application's ---- */

static struct worker_chan *
chan_of(struct sst_worker *w, const struct sst_stream_chan *sc)
{
	for (int c = 1; c < 256; c++)
		if (w->chans[c].sc == sc)
			return &w->chans[c];
	return NULL;
}

static void
on_connected(void *ctx, struct sst_stream *s, int err)
{
	struct sst_worker *w = ctx;

	if (w->app_ops->connected != NULL)
		w->app_ops->connected(w->app_ctx, s, err);
}

static void
on_accepted(void *ctx, struct sst_stream *parent, struct sst_stream *s, void *svc)
{
	struct sst_worker *w = ctx;

	if (w->app_ops->accepted != NULL)
		w->app_ops->accepted(w->app_ctx, parent, s, svc);
}

static void
on_readable(void *ctx, struct sst_stream *s)
{
	struct sst_worker *w = ctx;

	if (w->app_ops->readable != NULL)
		w->app_ops->readable(w->app_ctx, s);
}

static void
on_writable(void *ctx, struct sst_stream *s)
{
	struct sst_worker *w = ctx;

	if (w->app_ops->writable != NULL)
		w->app_ops->writable(w->app_ctx, s);
}

static void
on_closed(void *ctx, struct sst_stream *s, enum sst_stream_end why)
{
	struct sst_worker *w = ctx;

	if (w->app_ops->closed != NULL)
		w->app_ops->closed(w->app_ctx, s, why);
}

/* A failed channel goes (its streams wait for the next one to the peer);
 * one that asks for replacement gets it at the end of this poll
 * (replace_check()), outside the channel that is calling us. */
static void
on_channel_event(void *ctx, struct sst_stream_chan *c, enum sst_channel_event ev)
{
	struct sst_worker *w = ctx;
	struct worker_chan *wc = chan_of(w, c);

	if (ev == SST_CHANNEL_EV_FAILED && wc != NULL)
		wc->closing = true;
	if (ev == SST_CHANNEL_EV_REPLACE && wc != NULL && !wc->retiring && !wc->replacing &&
		!wc->replace_wanted) {
		wc->replace_wanted = true;
		wc->replace_not_before = wc->initiator ? 0 : SST_TIME_NEVER;
	}
	if (w->app_ops->channel_event != NULL)
		w->app_ops->channel_event(w->app_ctx, c, ev);
}

static void
on_channel_closed(void *ctx, struct sst_stream_chan *c)
{
	struct sst_worker *w = ctx;
	struct worker_chan *wc = chan_of(w, c);

	if (wc != NULL)
		wc->closing = true;
	if (w->app_ops->channel_closed != NULL)
		w->app_ops->channel_closed(w->app_ctx, c);
}

/* ---- The worker ---- */

static const struct sst_stream_ops no_ops;

struct sst_worker *
sst_worker_create(const struct sst_worker_params *p)
{
	struct sst_nego_host_params np;
	struct sst_stream_host_params sp;
	struct sst_worker *w;

	if (p == NULL || p->link == NULL || p->pool == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	w = rte_zmalloc("sst_worker", sizeof(*w), RTE_CACHE_LINE_SIZE);
	if (w == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	w->p = *p;
	if (w->p.max_peers == 0)
		w->p.max_peers = 64;
	if (w->p.idle_timeout == 0)
		w->p.idle_timeout = 60 * SST_NSEC_PER_SEC;
	w->app_ops = p->stream.ops != NULL ? p->stream.ops : &no_ops;
	w->app_ctx = p->stream.ctx;
	w->stream_ops = (struct sst_stream_ops){
		.connected = on_connected,
		.accepted = on_accepted,
		.readable = on_readable,
		.writable = on_writable,
		.closed = on_closed,
		.channel_event = on_channel_event,
		.channel_closed = on_channel_closed,
	};
	w->peers = rte_zmalloc("sst_worker_peers", w->p.max_peers * sizeof(*w->peers), 0);
	np = p->nego;
	np.size = sizeof(np);
	np.ops = &worker_nego_ops;
	np.ctx = w;
	if (p->shard_count > 1) {
		/* Answers to our initiations find their way back to us. */
		while ((1u << w->steer_bits) < p->shard_count)
			w->steer_bits++;
		np.steer_tag = (uint8_t)p->shard_index;
		np.steer_bits = w->steer_bits;
	}
	if (w->peers != NULL && worker_io_init(w) < 0) {
		rte_free(w->peers);
		w->peers = NULL;
	}
	sp = p->stream;
	sp.size = sizeof(sp);
	sp.ops = &w->stream_ops;
	sp.ctx = w;
	if (sp.pool == NULL)
		sp.pool = p->pool;
	w->nego = w->peers != NULL ? sst_nego_host_create(&np) : NULL;
	w->sh = w->nego != NULL ? sst_stream_host_create(&sp) : NULL;
	if (w->sh != NULL)
		w->id = worker_telemetry_add(w);
	if (w->sh == NULL) {
		int err = rte_errno != 0 ? rte_errno : ENOMEM;

		sst_nego_host_destroy(w->nego);
		worker_io_fini(w);
		rte_free(w->peers);
		rte_free(w);
		rte_errno = err;
		return NULL;
	}
	return w;
}

/* Field by field: struct sst_channel_stats is all uint64_t counters. */
static void
chan_stats_add(struct sst_channel_stats *sum, const struct sst_channel_stats *st)
{
	uint64_t *to = (uint64_t *)sum;
	const uint64_t *from = (const uint64_t *)st;

	static_assert(sizeof(*st) % sizeof(uint64_t) == 0, "counters only");
	for (size_t i = 0; i < sizeof(*st) / sizeof(uint64_t); i++)
		to[i] += from[i];
}

static void
chan_stats_refresh(struct sst_worker *w)
{
	struct sst_channel_stats sum = w->ended;

	for (int c = 1; c < 256; c++)
		if (w->chans[c].sc != NULL)
			chan_stats_add(
				&sum, sst_channel_stats(sst_stream_chan_channel(w->chans[c].sc)));
	w->stats.channels = sum;
}

static void
chan_end(struct sst_worker *w, int c, sst_time_t now)
{
	struct worker_chan *wc = &w->chans[c];
	struct sst_nego_addr a;

	chan_stats_add(&w->ended, sst_channel_stats(sst_stream_chan_channel(wc->sc)));
	ep_to_addr(&wc->peer->ep, &a);
	sst_stream_chan_destroy(wc->sc, now);
	sst_nego_release(w->nego, &a, (uint8_t)c, wc->peer_channel);
	memset(wc, 0, sizeof(*wc));
	w->stats.channels_open--;
	w->stats.channels_closed++;
}

void
sst_worker_destroy(struct sst_worker *w)
{
	if (w == NULL)
		return;
	worker_telemetry_remove(w);
	for (int c = 1; c < 256; c++)
		if (w->chans[c].sc != NULL)
			chan_end(w, c, 0);
	for (uint32_t i = 0; i < w->p.max_peers; i++)
		sst_stream_peer_destroy(w->peers[i].sp);
	sst_stream_host_destroy(w->sh);
	sst_nego_host_destroy(w->nego);
	worker_io_fini(w);
	rte_free(w->peers);
	rte_free(w);
}

static int
connect_to(struct sst_worker *w, const struct sst_net_endpoint *ep, enum sst_nego_mode mode,
	sst_time_t now)
{
	struct sst_nego_addr a;
	int rc;

	ep_to_addr(ep, &a);
	rc = sst_nego_connect(w->nego, &a, mode, now);
	return rc < 0 ? rc : 0;
}

/* In a sharded engine every channel between two endpoints lives on the
 * worker that owns the peer's endpoint, on both sides: the peer treats a
 * second channel from us as a replacement and moves its streams there, so
 * two of our workers must never both hold one. */
int
sst_worker_connect(struct sst_worker *w, const struct sst_net_endpoint *ep, enum sst_nego_mode mode,
	sst_time_t now)
{
	if (w->p.shard_count > 1 && sst_worker_shard_of(ep, w->p.shard_count) != w->p.shard_index)
		return -EXDEV;
	return connect_to(w, ep, mode, now);
}

/* Idle timeout (issue 5): a channel no stream used for idle_timeout is
 * offered for closing; the peer agrees by FINISH when it has no stream on
 * it either, and the channel then ends without TIME_WAIT. */
static void
idle_check(struct sst_worker *w, struct worker_chan *wc, sst_time_t now)
{
	if (w->p.idle_timeout == SST_TIME_NEVER)
		return;
	if (!sst_stream_chan_unused(wc->sc)) {
		wc->idle_since = SST_TIME_NEVER;
		wc->idle_offered = false;
		wc->linger_until = 0;
		return;
	}
	if (wc->idle_since == SST_TIME_NEVER)
		wc->idle_since = now;
	if (!wc->idle_offered && now - wc->idle_since >= w->p.idle_timeout) {
		wc->idle_offered = true;
		w->stats.channels_idle++;
		/* A prototype peer has no FINISH: after that long idle, it goes. */
		if (sst_stream_chan_close(wc->sc, now) < 0)
			wc->closing = true;
	}
}

/*
 * Channel replacement (issue 5): a channel near the end of its sequence
 * space or of what its key may protect gets a successor negotiated to the
 * same endpoint, in the same mode, on this worker (so in a sharded engine
 * the answers come back here by our steering tag, and the peer's engine
 * takes our first message on the worker that holds its side already). When
 * the successor is up the streams move to it (nego_established()) and the
 * old channel retires: FINISH as soon as no stream uses it, so both sides
 * drop it without TIME_WAIT. A retiring channel that can no longer number
 * packets, or that has outlived RETIRE_GRACE (the peer never answered our
 * FINISH), ends here: what it still had in flight is resent on the new one.
 *
 * Both sides replacing one channel at once would cross: each would move
 * the streams to the channel it made last and retire the other's. So the
 * channel's initiator replaces it, for both directions: it sees the peer's
 * numbers too, and asks when either side's reach 7/8 of its limit. The
 * responder asks itself only if nothing came RESPONDER_GRACE plus a few
 * round trips after its own 7/8 (the peer allows more packets than we do,
 * or is a prototype that never replaces).
 */
static void
replace_check(struct sst_worker *w, struct worker_chan *wc, sst_time_t now)
{
	struct sst_channel_info ci;

	sst_channel_info(sst_stream_chan_channel(wc->sc), &ci);
	if (wc->initiator && !wc->retiring && !wc->replacing && !wc->replace_wanted &&
		ci.rx_highest >= ci.seq_limit - ci.seq_limit / 8) {
		wc->replace_wanted = true;
		wc->replace_not_before = 0;
	}
	if (wc->replace_wanted && wc->replace_not_before == SST_TIME_NEVER)
		wc->replace_not_before = now + RESPONDER_GRACE + 4 * ci.srtt;
	if (wc->replace_wanted && now >= wc->replace_not_before) {
		wc->replace_wanted = false;
		if (connect_to(w, &wc->peer->ep, wc->mode, now) == 0) {
			wc->replacing = true;
			w->stats.channels_replaced++;
		} else {
			wc->replace_wanted = true;
			wc->replace_not_before = now + REPLACE_RETRY;
		}
	}
	if (!wc->retiring)
		return;
	if (wc->exhausted_until == 0 && sst_stream_chan_exhausted(wc->sc))
		wc->exhausted_until = now + 2 * ci.srtt + EXHAUSTED_LINGER;
	if (ci.next_seq >= ci.seq_limit || now >= wc->retire_by ||
		(wc->exhausted_until != 0 && now >= wc->exhausted_until)) {
		wc->closing = true;
	} else if (!wc->idle_offered && sst_stream_chan_unused(wc->sc)) {
		if (sst_stream_chan_close(wc->sc, now) == 0)
			wc->idle_offered = true;
		else
			wc->closing = true; /* a prototype peer: no FINISH to wait for */
	}
}

/*
 * Mobility: a packet for one of our channels from another endpoint. If the
 * channel's armor takes it (only the peer has the keys; the replay window
 * rules out a copy), the peer's address changed (NAT rebinding, a new
 * interface): a new channel is negotiated to the new endpoint, and the
 * peer's streams move to it when it is up (nego_established()).
 */
static void
path_change(struct sst_worker *w, struct worker_chan *wc, struct rte_mbuf **m,
	const struct sst_net_endpoint *from, sst_time_t now)
{
	struct worker_peer *p = wc->peer;

	if (sst_channel_receive(sst_stream_chan_channel(wc->sc), m, 1, now) != 1) {
		w->stats.rx_no_channel++;
		return;
	}
	w->stats.rx_channel++;
	if (p->moving && worker_ep_equal(&p->moving_to, from))
		return; /* already on its way */
	p->moving = true;
	p->moving_to = *from;
	w->stats.path_changes++;
	/* The channel stays on this worker, wherever the new endpoint hashes:
	 * the answers find us by our steering tag. */
	connect_to(w, from, wc->mode, now);
}

int
sst_worker_close_idle(struct sst_worker *w, sst_time_t now)
{
	for (int c = 1; c < 256; c++) {
		struct worker_chan *wc = &w->chans[c];

		if (wc->sc == NULL || wc->idle_offered || !sst_stream_chan_unused(wc->sc))
			continue;
		wc->idle_offered = true;
		if (sst_stream_chan_close(wc->sc, now) < 0) {
			/* A prototype peer: no FINISH to wait for. */
			sst_channel_flush_ack(sst_stream_chan_channel(wc->sc), now);
			wc->linger_until = now + PROTOTYPE_LINGER;
		}
	}
	return (int)w->stats.channels_open;
}

void
sst_worker_poll(struct sst_worker *w, sst_time_t now)
{
	struct rte_mbuf **pkts = w->rx_pkts;
	const struct sst_net_endpoint *from = w->rx_from;
	uint16_t n = worker_rx(w, now);
	struct sst_worker *outer = RTE_PER_LCORE(running_worker);

	RTE_PER_LCORE(running_worker) = w;
	w->stats.rx_packets += n;
	for (uint16_t i = 0; i < n; i++) {
		uint8_t b0 = *rte_pktmbuf_mtod(pkts[i], uint8_t *);
		struct worker_chan *wc = &w->chans[b0];

		if (rte_pktmbuf_data_len(pkts[i]) == 0) {
			w->stats.rx_no_channel++;
			rte_pktmbuf_free(pkts[i]);
		} else if (b0 == 0) {
			struct sst_nego_addr a;

			ep_to_addr(&from[i], &a);
			w->stats.rx_control++;
			sst_nego_receive(w->nego, &a, rte_pktmbuf_mtod(pkts[i], void *),
				rte_pktmbuf_data_len(pkts[i]), now);
			rte_pktmbuf_free(pkts[i]);
		} else if (wc->sc != NULL && worker_ep_equal(&wc->peer->ep, &from[i])) {
			w->stats.rx_channel++;
			if (sst_channel_receive(
				    sst_stream_chan_channel(wc->sc), &pkts[i], 1, now) == 1 &&
				wc->unconfirmed) {
				/* Authenticated: the responder has our SecI2. */
				struct sst_nego_addr a;

				ep_to_addr(&from[i], &a);
				sst_nego_confirm(w->nego, &a, b0);
				wc->unconfirmed = false;
			}
		} else if (wc->sc != NULL) {
			path_change(w, wc, &pkts[i], &from[i], now);
		} else {
			w->stats.rx_no_channel++;
			rte_pktmbuf_free(pkts[i]);
		}
	}
	if (sst_nego_next_expiry(w->nego) <= now)
		sst_nego_handle_expiry(w->nego, now);
	worker_io_expiry(w, now);
	if (w->p.ops != NULL && w->p.ops->app_poll != NULL)
		w->p.ops->app_poll(w->p.ctx, w, now);
	for (int c = 1; c < 256; c++) {
		struct worker_chan *wc = &w->chans[c];
		struct sst_channel *ch;

		if (wc->sc == NULL)
			continue;
		ch = sst_stream_chan_channel(wc->sc);
		if (sst_channel_next_expiry(ch) <= now)
			sst_channel_handle_expiry(ch, now);
		sst_stream_chan_flush(wc->sc, now);
		idle_check(w, wc, now);
		replace_check(w, wc, now);
		if (wc->linger_until != 0 && now >= wc->linger_until)
			wc->closing = true;
	}
	/* Channels end here, outside every callback that may still use them. */
	for (int c = 1; c < 256; c++)
		if (w->chans[c].sc != NULL && w->chans[c].closing)
			chan_end(w, c, now);
	worker_io_flush(w, now);
	if (now >= w->next_sum) {
		chan_stats_refresh(w);
		w->next_sum = now + 100 * SST_NSEC_PER_MSEC;
	}
	RTE_PER_LCORE(running_worker) = outer;
}

sst_time_t
sst_worker_next_expiry(const struct sst_worker *w)
{
	sst_time_t t = sst_time_min(sst_nego_next_expiry(w->nego), worker_io_next_expiry(w));

	for (int c = 1; c < 256; c++) {
		const struct worker_chan *wc = &w->chans[c];

		if (wc->sc == NULL)
			continue;
		t = sst_time_min(t, sst_channel_next_expiry(sst_stream_chan_channel(wc->sc)));
		t = sst_time_min(t, sst_stream_chan_next_expiry(wc->sc));
		if (wc->idle_since != SST_TIME_NEVER && !wc->idle_offered &&
			w->p.idle_timeout != SST_TIME_NEVER)
			t = sst_time_min(t, wc->idle_since + w->p.idle_timeout);
		if (wc->replace_wanted)
			t = sst_time_min(t, wc->replace_not_before);
		if (wc->retiring)
			t = sst_time_min(t, wc->retire_by);
		if (wc->exhausted_until != 0)
			t = sst_time_min(t, wc->exhausted_until);
		if (wc->linger_until != 0)
			t = sst_time_min(t, wc->linger_until);
	}
	return t;
}

struct sst_stream_host *
sst_worker_stream_host(struct sst_worker *w)
{
	return w->sh;
}

struct sst_stream_peer *
sst_worker_peer(struct sst_worker *w, const struct sst_net_endpoint *ep)
{
	struct worker_peer *p = peer_find(w, ep, false, 0);

	return p != NULL ? p->sp : NULL;
}

const struct sst_worker_stats *
sst_worker_stats(const struct sst_worker *w)
{
	return &w->stats;
}

int
sst_worker_id(const struct sst_worker *w)
{
	return w->id;
}

const struct sst_nego_stats *
sst_worker_nego_stats(const struct sst_worker *w)
{
	return sst_nego_stats(w->nego);
}

const struct sst_link_stats *
sst_worker_link_stats(const struct sst_worker *w)
{
	return sst_link_stats(w->p.link);
}
