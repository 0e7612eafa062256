/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker's side of negotiation: the callbacks of its negotiation host
 * (worker_nego_ops). They send its messages, lend it channel numbers, and
 * on success create the channel and its stream attachment for the peer the
 * result names; the channel's own transmit path (before and after the
 * peer confirmed it) is here too.
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <sodium.h>

#include "sst_burst.h"
#include "sst_worker.h"
#include "worker_internal.h"

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
	struct sst_net_endpoint ep;

	addr_to_ep(peer, &ep);
	return worker_ep_take_number(w, &ep);
}

static void
nego_chan_free(void *ctx, const struct sst_nego_addr *peer, uint8_t chan)
{
	struct sst_worker *w = ctx;
	struct sst_net_endpoint ep;
	struct worker_ep *e;

	addr_to_ep(peer, &ep);
	e = worker_ep_find(w, &ep, worker_hash_ep(w, &ep));
	if (e != NULL)
		worker_ep_give_number(w, e, chan, w->now);
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

	ep_to_addr(&wc->at->ep, &a);
	for (; done < n; done++) {
		uint32_t len = rte_pktmbuf_pkt_len(pkts[done]);
		const void *p =
			len <= sizeof(buf) ? rte_pktmbuf_read(pkts[done], 0, len, buf) : NULL;
		int rc = p != NULL ? sst_nego_send_early(w->nego, &a, wc->number, p, len, now)
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

	if (wc->unconfirmed && wc->initiator) {
		uint16_t early = send_early(wc, pkts, n, now);

		pkts += early;
		n -= early;
	}
	for (uint16_t done = 0; done < n;) {
		uint16_t k = RTE_MIN((uint16_t)(n - done), (uint16_t)SST_MAX_BURST);

		for (uint16_t i = 0; i < k; i++)
			to[i] = wc->at->ep;
		worker_send(wc->w, pkts + done, to, k, now);
		done += k;
	}
}

static const struct sst_channel_lower chan_lower = {.transmit = chan_transmit};

/*
 * The peer of a channel just negotiated with the endpoint e: the one there
 * already; or, the SST way of mobility, a peer we know from another
 * endpoint whose negotiation names the same host instance (and identity),
 * which moves here with its streams (*moved); or a new one.
 */
static struct worker_peer *
peer_for(struct sst_worker *w, struct worker_ep *e, const struct sst_nego_result *r, bool *moved,
	sst_time_t now)
{
	struct worker_peer *p = e->peer;

	*moved = false;
	if (p != NULL)
		return p;
	p = worker_peer_find_moved(w, r, now);
	if (p != NULL) {
		worker_peer_move(w, p, e, now);
		w->stats.path_changes++;
		*moved = true;
		return p;
	}
	p = worker_peer_create(w, e, r);
	if (p == NULL && worker_peer_evict_idle(w))
		p = worker_peer_create(w, e, r);
	if (p == NULL)
		w->stats.peers_full++;
	return p;
}

/* A successor on the same path starts from its predecessor's RTT, so that
 * a loss among its first packets costs an RTO, not a second. */
static sst_time_t
path_rtt(const struct worker_peer *p, const struct worker_ep *e)
{
	const struct worker_chan *o;

	TAILQ_FOREACH(o, &p->chans, peer_link) {
		struct sst_channel_info ci;

		if (o->state == CHAN_ENDING || o->at != e)
			continue;
		sst_channel_info(sst_stream_chan_channel(o->sc), &ci);
		return ci.srtt;
	}
	return 0;
}

static struct worker_chan *
chan_create(struct sst_worker *w, struct worker_ep *e, struct worker_peer *p,
	const struct sst_nego_result *r, sst_time_t now)
{
	struct sst_channel_params chp;
	struct sst_stream_chan_params cp = {.channel = &chp};
	struct worker_chan *wc;

	if (sst_nego_channel_params(r, &chp) < 0)
		return NULL;
	wc = worker_obj_alloc(w, sizeof(*wc));
	if (wc == NULL)
		return NULL;
	chp.pool = w->p.pool;
	chp.cc = w->p.cc;
	chp.mtu = w->p.mtu;
	/* The lower of ours and negotiation's (a legacy peer's acks freeze
	 * past 65,535 packets: sst_nego_channel_params()). */
	if (w->p.channel_packet_limit != 0 &&
		(chp.packet_limit == 0 || w->p.channel_packet_limit < chp.packet_limit))
		chp.packet_limit = w->p.channel_packet_limit;
	chp.initial_rtt = path_rtt(p, e);
	/* The optimistic-ack defence (docs/channel.md): the numbers we skip
	 * must be unpredictable to the peer, so the seed is a secret of ours
	 * per channel, never derived from what the handshake showed it.
	 * Zero turns the defence off. */
	while (!w->p.no_skip_numbers && chp.skip_seed == 0)
		randombytes_buf(&chp.skip_seed, sizeof(chp.skip_seed));
	chp.lower = &chan_lower;
	chp.lower_ctx = wc;
	chp.ack_forge_for_testing = w->p.ack_forge_for_testing;
	chp.ack_forge_ctx = w->p.ack_forge_ctx;
	cp.local_hcid = r->tx_hcid;
	cp.local_hcid_len = r->hcid_len;
	cp.peer_hcid = r->rx_hcid;
	cp.peer_hcid_len = r->hcid_len;
	cp.initiator = r->role == SST_NEGO_INITIATOR;
	/* Checksum mode: the initiator learns our number and key from the
	 * ChkR1 that negotiation sends when established() returns; anything
	 * sent before (an Attach of a stream moving here) is dropped there.
	 * The channel is released at its first visit (chan_visit()). */
	cp.hold = r->mode == SST_NEGO_MODE_CHECKSUM && r->role == SST_NEGO_RESPONDER;
	cp.user = wc;
	wc->w = w;
	wc->at = e;
	wc->peer = p;
	wc->number = r->local_channel;
	wc->peer_channel = r->peer_channel;
	wc->initiator = r->role == SST_NEGO_INITIATOR;
	wc->mode = r->mode;
	/* Until the peer's first authenticated packet (channel_packets()),
	 * which negotiation hears of: a secure initiator's packets ride in
	 * copies of SecI2, a checksum responder's channel counts as
	 * half-open (load detection, docs/negotiation.md 5.1). */
	wc->unconfirmed = r->mode == SST_NEGO_MODE_SECURE ? r->role == SST_NEGO_INITIATOR
							  : r->role == SST_NEGO_RESPONDER;
	wc->idle_since = SST_TIME_NEVER;
	wc->acked_since = now;
	wc->waiting_since = SST_TIME_NEVER;
	wc->sc = sst_stream_chan_create(p->sp, &cp, now);
	if (wc->sc == NULL) {
		worker_obj_free(w, wc, sizeof(*wc));
		return NULL;
	}
	if (worker_chan_add(w, wc) < 0) {
		sst_stream_chan_destroy(wc->sc, now);
		worker_obj_free(w, wc, sizeof(*wc));
		return NULL;
	}
	worker_chan_activate(w, wc);
	return wc;
}

static int
nego_established(void *ctx, const struct sst_nego_result *r, sst_time_t now)
{
	struct sst_worker *w = ctx;
	const struct sst_worker_ops *ops = w->p.ops;
	struct sst_net_endpoint ep;
	struct worker_chan *wc;
	struct worker_peer *p;
	struct worker_ep *e;
	bool moved;

	addr_to_ep(&r->peer, &ep);
	/* The record exists: our number for the channel came from it. */
	e = worker_ep_find(w, &ep, worker_hash_ep(w, &ep));
	if (e == NULL)
		return -EINVAL;
	/* A straggler of an instance that has since restarted. */
	if (r->peer_stale)
		return -ESTALE;
	/* A peer that moved here from an endpoint another worker holds: that
	 * worker takes the ChkI1 and the endpoint (worker_move.c); this
	 * attempt is withdrawn, its number given back. */
	if (e->peer == NULL && !e->adopted && worker_peer_find_moved(w, r, now) == NULL) {
		int owner = worker_move_owner(w, r);

		if (owner >= 0) {
			w->nego_handoff = owner;
			return -EXDEV;
		}
	}
	p = peer_for(w, e, r, &moved, now);
	if (p == NULL)
		return -ENOSPC;
	if (r->peer_restarted) {
		worker_peer_restarted(w, p, now);
		worker_peer_set_instance(w, p, r);
	}
	wc = chan_create(w, e, p, r, now);
	if (wc == NULL)
		return -ENOMEM;
	w->stats.channels_made++;
	w->stats.channels_open++;
	worker_event_chan_up(wc, now);
	worker_chan_established(w, wc, moved, now);
	if (ops != NULL && ops->peer_ready != NULL)
		ops->peer_ready(w->p.ctx, p->sp, &ep);
	return 0;
}

static void
nego_failed(void *ctx, const struct sst_nego_addr *peer, uint8_t local_channel, int error,
	sst_time_t now)
{
	struct sst_worker *w = ctx;
	struct sst_net_endpoint ep;
	struct worker_ep *e;

	RTE_SET_USED(local_channel);
	addr_to_ep(peer, &ep);
	e = worker_ep_find(w, &ep, worker_hash_ep(w, &ep));
	if (e != NULL && e->peer != NULL)
		worker_peer_replace_failed(w, e->peer, now);
	if (w->p.ops != NULL && w->p.ops->connect_failed != NULL)
		w->p.ops->connect_failed(w->p.ctx, &ep, error);
}

/* Responder: a channel packet that rode in the initiator's SecI2. */
static void
nego_packet(void *ctx, const struct sst_nego_addr *peer, uint8_t local_channel, const void *pkt,
	size_t len, sst_time_t now)
{
	struct sst_worker *w = ctx;
	struct sst_net_endpoint ep;
	struct worker_chan *wc;
	struct rte_mbuf *m;

	addr_to_ep(peer, &ep);
	wc = worker_chan_find(w, &ep, worker_hash_ep(w, &ep), local_channel);
	if (wc == NULL || len > UINT16_MAX)
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
	worker_chan_activate(w, wc);
	sst_channel_receive(sst_stream_chan_channel(wc->sc), &m, 1, now);
}

const struct sst_nego_ops worker_nego_ops = {
	.packet = nego_packet,
	.transmit = nego_transmit,
	.chan_alloc = nego_chan_alloc,
	.chan_free = nego_chan_free,
	.established = nego_established,
	.failed = nego_failed,
};
