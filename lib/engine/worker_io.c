/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker's packet I/O: its link (datagrams as they are, or Ethernet
 * frames through the network layer), and the one software dispatch step of
 * a sharded engine: a packet that reached the wrong worker is handed to its
 * owner through the owner's inbox ring, once.
 *
 * Ownership (docs/engine.md, "Sharding"): every channel of a peer
 * endpoint lives on the worker chosen by a Toeplitz hash of that endpoint,
 * which is also where sst_worker_connect() to it runs, so a channel packet
 * belongs there; a control packet answering one of our initiations carries
 * the initiating worker's steering tag (sst_nego_steer_tag()), and any
 * other control packet goes by the hash too.
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_arp.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>
#include <rte_thash.h>

#include "sst_burst.h"
#include "sst_capture.h"
#include "worker_burst.h"
#include "worker_internal.h"

/* Where a handed-over packet came from, and what it is, travel with it in
 * the mbuf. */
struct handoff_info {
	struct sst_net_endpoint ep;
	uint8_t kind; /**< enum worker_handoff_kind */
};

static int handoff_offset = -1;

static struct handoff_info *
handoff_info(struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, handoff_offset, struct handoff_info *);
}

/* ---- The network layer's callbacks (frame links) ---- */

/* A datagram to another port than ours: to one of the extra local
 * endpoints, whose peers are keyed by the pair, or dropped. Out of line,
 * so that the path of a worker's own endpoint stays as short as it was. */
static __rte_noinline void
deliver_to_local(struct sst_worker *w, struct rte_mbuf *m, const struct sst_net_endpoint *from,
	const struct sst_net_endpoint *to)
{
	if (!worker_local_accepts(w, to) || w->rx_n == RTE_DIM(w->rx_pkts)) {
		w->stats.rx_wrong_port++;
		rte_pktmbuf_free(m);
		return;
	}
	w->rx_pkts[w->rx_n] = m;
	w->rx_from[w->rx_n] = *from;
	worker_ep_tag(&w->rx_from[w->rx_n], to);
	w->rx_n++;
}

static void
net_deliver_udp(void *ctx, struct rte_mbuf *m, const struct sst_net_endpoint *from,
	const struct sst_net_endpoint *to, sst_time_t now)
{
	struct sst_worker *w = ctx;

	RTE_SET_USED(now);
	if (to->port != w->local.port) {
		deliver_to_local(w, m, from, to);
		return;
	}
	if (w->rx_n == RTE_DIM(w->rx_pkts)) {
		w->stats.rx_wrong_port++;
		rte_pktmbuf_free(m);
		return;
	}
	w->rx_pkts[w->rx_n] = m;
	w->rx_from[w->rx_n] = *from;
	w->rx_n++;
}

static void
net_transmit(void *ctx, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	struct sst_worker *w = ctx;

	RTE_SET_USED(now);
	if (w->p.capture != NULL)
		sst_capture_frames(w->p.capture, pkts, n, SST_CAPTURE_OUT);
	sst_link_tx_burst(w->link, pkts, NULL, n);
}

static void
net_pmtu(void *ctx, const struct sst_net_endpoint *local, const struct sst_net_endpoint *remote,
	uint32_t mtu, sst_time_t now)
{
	struct sst_worker *w = ctx;
	uint32_t payload = sst_net_udp_payload_max((enum sst_net_family)remote->addr.family, mtu);
	struct sst_net_endpoint key = *remote;

	RTE_SET_USED(now);
	/* Sent from an extra local endpoint: its channels know the pair. */
	if (local->port != w->local.port)
		worker_ep_tag(&key, local);
	/* Rare (an ICMP message): a walk over the channels is fine. */
	for (uint32_t i = 0; i < w->nchans; i++) {
		struct worker_chan *wc = w->chans[i];
		struct sst_channel *ch;

		if (!sst_net_endpoint_equal(&wc->at->ep, &key))
			continue;
		ch = sst_stream_chan_channel(wc->sc);
		worker_chan_activate(w, wc); /* its segments are cut anew */
		if (payload < sst_channel_mtu(ch))
			sst_channel_set_mtu(ch, payload);
	}
}

static const struct sst_net_ops worker_net_ops = {
	.deliver_udp = net_deliver_udp,
	.transmit = net_transmit,
	.pmtu = net_pmtu,
};

int
worker_io_init(struct sst_worker *w)
{
	static const struct rte_mbuf_dynfield ep_field = {
		.name = "sst_handoff_info",
		.size = sizeof(struct handoff_info),
		.align = __alignof__(struct handoff_info),
	};
	uint32_t net_payload;
	int rc;

	if (w->p.shard_count > 1) {
		if (w->p.inboxes == NULL || w->p.shard_index >= w->p.shard_count ||
			w->p.shard_count > SST_WORKERS_MAX) {
			WORKER_LOG(ERR,
				"params.shard_count %u: params.inboxes are required, "
				"shard_index (%u) below it and it at most SST_WORKERS_MAX",
				w->p.shard_count, w->p.shard_index);
			return -EINVAL;
		}
		w->inbox = w->p.inboxes[w->p.shard_index];
		handoff_offset = rte_mbuf_dynfield_register(&ep_field);
		if (handoff_offset < 0)
			return -rte_errno;
	}
	if (w->p.mtu == 0)
		w->p.mtu = 1232;
	if (sst_link_kind(w->link) == SST_LINK_DATAGRAMS)
		return sst_link_local(w->link, &w->local);
	struct sst_net_params np = w->p.net;

	np.size = sizeof(np);
	np.ops = &worker_net_ops;
	np.ctx = w;
	if (np.pool == NULL)
		np.pool = w->p.pool;
	/* The workers share the port and its addresses: one announces them. */
	if (w->p.shard_index != 0)
		np.no_announce = true;
	w->net = sst_net_create(&np);
	if (w->net == NULL)
		return -rte_errno;
	memset(&w->local, 0, sizeof(w->local));
	w->local.addr.family = np.ipv4.family != SST_NET_NONE ? SST_NET_IPV4 : SST_NET_IPV6;
	w->local.port = w->p.udp_port != 0 ? w->p.udp_port : 4433;
	net_payload = sst_net_udp_payload_max(
		(enum sst_net_family)w->local.addr.family, np.mtu != 0 ? np.mtu : 1500);
	w->p.mtu = RTE_MIN(w->p.mtu, net_payload);
	rc = worker_local_init(w);
	if (rc < 0) {
		/* sst_worker_create() does not call worker_io_fini() when this
		 * fails: give the network layer back here. */
		sst_net_destroy(w->net);
		w->net = NULL;
	}
	return rc;
}

void
worker_io_fini(struct sst_worker *w)
{
	/* Set by every dequeue that returns 0; gcc -O3 with profiles cannot tell. */
	struct rte_mbuf *m = NULL;

	sst_net_destroy(w->net);
	w->net = NULL;
	if (w->inbox != NULL)
		while (rte_ring_sc_dequeue(w->inbox, (void **)&m) == 0)
			rte_pktmbuf_free(m);
}

/* ---- Sending ---- */

/* worker_send() for a worker with extra local endpoints: a tagged
 * destination names the source too. */
static void
send_from_locals(struct sst_worker *w, struct rte_mbuf **pkts, const struct sst_net_endpoint *to,
	uint16_t n, sst_time_t now)
{
	for (uint16_t i = 0; i < n; i++) {
		struct sst_net_endpoint from, dst;

		if (!sst_worker_ep_split(&to[i], &from, &dst))
			from = (struct sst_net_endpoint){
				.addr.family = to[i].addr.family, .port = w->local.port};
		if (sst_net_send_udp(w->net, pkts[i], &from, &dst, now) < 0)
			w->stats.tx_refused++;
	}
}

void
worker_send(struct sst_worker *w, struct rte_mbuf **pkts, const struct sst_net_endpoint *to,
	uint16_t n, sst_time_t now)
{
	if (w->net == NULL) {
		if (w->p.capture != NULL)
			sst_capture_datagrams(
				w->p.capture, pkts, to, n, SST_CAPTURE_OUT, &w->local);
		sst_link_tx_burst(w->link, pkts, to, n);
		return;
	}
	if (w->p.local_ports != 0) {
		send_from_locals(w, pkts, to, n, now);
		return;
	}
	for (uint16_t i = 0; i < n; i++) {
		struct sst_net_endpoint from = {
			.addr.family = to[i].addr.family, .port = w->local.port};

		if (sst_net_send_udp(w->net, pkts[i], &from, &to[i], now) < 0)
			w->stats.tx_refused++;
	}
}

void
worker_io_flush(struct sst_worker *w, sst_time_t now)
{
	if (w->net != NULL)
		sst_net_flush(w->net, now);
}

sst_time_t
worker_io_next_expiry(const struct sst_worker *w)
{
	return w->net != NULL ? sst_net_next_expiry(w->net) : SST_TIME_NEVER;
}

void
worker_io_expiry(struct sst_worker *w, sst_time_t now)
{
	if (w->net != NULL && sst_net_next_expiry(w->net) <= now)
		sst_net_handle_expiry(w->net, now);
}

/* ---- Receiving and the dispatch step ---- */

static uint16_t
shard_owner(struct sst_worker *w, const struct sst_net_endpoint *ep)
{
	if (!w->shard_memo_valid || !sst_net_endpoint_equal(ep, &w->shard_memo_ep)) {
		w->shard_memo_ep = *ep;
		w->shard_memo_owner = sst_shard_owner(&w->shard, ep);
		w->shard_memo_valid = true;
	}
	return w->shard_memo_owner;
}

static uint16_t
owner_of(struct sst_worker *w, struct rte_mbuf *m, const struct sst_net_endpoint *from)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	uint16_t len = rte_pktmbuf_data_len(m);
	int tag;

	if (len == 0)
		return w->p.shard_index; /* dropped and counted where it is */
	if (b[0] == 0) {
		tag = sst_nego_steer_tag(b, len, w->steer_bits);
		if (tag >= 0 && tag < w->p.shard_count)
			return (uint16_t)tag;
	}
	/* A peer that moved to an endpoint hashed here is served by the
	 * worker that holds it (worker_move.c). */
	tag = worker_steer_owner(w, from);
	if (tag >= 0)
		return (uint16_t)tag;
	return shard_owner(w, from);
}

/* n packets whose handoff_info is set go to worker to's inbox; those that
 * do not fit are dropped and counted. */
static void
handoff_burst(struct sst_worker *w, uint16_t to, struct rte_mbuf **pkts, uint16_t n)
{
	unsigned int done = rte_ring_mp_enqueue_burst(w->p.inboxes[to], (void **)pkts, n, NULL);

	w->stats.handoff_out += done;
	if (done < n) {
		w->stats.handoff_full += n - done;
		rte_pktmbuf_free_bulk(&pkts[done], n - done);
	}
}

/* Neighbour answers go to every worker: each has its own cache and asks
 * for itself, but a port without RSS delivers every answer to one queue. */
static bool
is_neighbour_answer(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	uint16_t len = rte_pktmbuf_data_len(m);

	if (len < sizeof(*eh) + 8)
		return false;
	if (eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP)) {
		const struct rte_arp_hdr *ah = (const struct rte_arp_hdr *)(eh + 1);

		return len >= sizeof(*eh) + sizeof(*ah) &&
		       ah->arp_opcode == RTE_BE16(RTE_ARP_OP_REPLY);
	}
	if (eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6) &&
		len >= sizeof(*eh) + sizeof(struct rte_ipv6_hdr) + 1) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(eh + 1);

		/* ICMPv6 type 136: neighbour advertisement. */
		return ip->proto == IPPROTO_ICMPV6 && *(const uint8_t *)(ip + 1) == 136;
	}
	return false;
}

static void
share_neighbour_answers(struct sst_worker *w, struct rte_mbuf **frames, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		if (!is_neighbour_answer(frames[i]))
			continue;
		for (uint16_t k = 0; k < w->p.shard_count; k++) {
			struct rte_mbuf *copy;

			if (k == w->p.shard_index)
				continue;
			copy = rte_pktmbuf_copy(frames[i], w->p.pool, 0, UINT32_MAX);
			if (copy == NULL)
				continue;
			handoff_info(copy)->kind = WORKER_HANDOFF_FRAME;
			handoff_burst(w, k, &copy, 1);
		}
	}
}

/*
 * The datagrams in rx_pkts/rx_from from base on, where the link or the
 * network layer put them: this worker's stay, the others are handed over,
 * one ring operation per owner. The common case on a port whose queues lead
 * to the owners (RSS, or the symmetric hash on a queue pair) is a burst
 * that is all ours: it stays where it is, in order, with no grouping and no
 * copy. At most SST_MAX_BURST datagrams from base.
 */
static void
keep_or_handoff(struct sst_worker *w, uint16_t base)
{
	uintptr_t owners[SST_MAX_BURST];
	struct rte_mbuf *pkts[SST_MAX_BURST], *out[SST_MAX_BURST];
	struct sst_net_endpoint from[SST_MAX_BURST];
	uint16_t order[SST_MAX_BURST], starts[SST_MAX_BURST + 1];
	uint16_t groups, mine = 0, n = (uint16_t)(w->rx_n - base);

	if (w->p.shard_count <= 1)
		return;
	for (uint16_t i = 0; i < n; i++) {
		owners[i] = owner_of(w, w->rx_pkts[base + i], &w->rx_from[base + i]);
		mine += owners[i] == w->p.shard_index;
	}
	if (mine == n)
		return;
	memcpy(pkts, &w->rx_pkts[base], n * sizeof(pkts[0]));
	memcpy(from, &w->rx_from[base], n * sizeof(from[0]));
	w->rx_n = base;
	groups = worker_burst_group(owners, n, order, starts);
	for (uint16_t g = 0; g < groups; g++) {
		uint16_t to = (uint16_t)owners[order[starts[g]]], count = 0;

		for (uint16_t k = starts[g]; k < starts[g + 1]; k++) {
			uint16_t i = order[k];

			if (to == w->p.shard_index) {
				w->rx_pkts[w->rx_n] = pkts[i];
				w->rx_from[w->rx_n] = from[i];
				w->rx_n++;
				continue;
			}
			handoff_info(pkts[i])->ep = from[i];
			handoff_info(pkts[i])->kind = WORKER_HANDOFF_DATAGRAM;
			out[count++] = pkts[i];
		}
		if (count > 0)
			handoff_burst(w, to, out, count);
	}
}

int
worker_handoff_send(struct sst_worker *w, uint16_t to, struct rte_mbuf *m,
	const struct sst_net_endpoint *ep, enum worker_handoff_kind kind)
{
	uint64_t full = w->stats.handoff_full;

	handoff_info(m)->ep = *ep;
	handoff_info(m)->kind = (uint8_t)kind;
	handoff_burst(w, to, &m, 1);
	return w->stats.handoff_full == full ? 0 : -ENOBUFS;
}

/* What another worker handed us: datagrams for this pass (those steered on
 * to the worker that adopted their endpoint go there), frames for the
 * network layer, steering news. */
static void
take_inbox(struct sst_worker *w, sst_time_t now)
{
	struct rte_mbuf *pkts[SST_MAX_BURST];
	uint16_t n, frames = 0;

	n = (uint16_t)rte_ring_sc_dequeue_burst(w->inbox, (void **)pkts, SST_MAX_BURST, NULL);
	if (n == 0)
		return;
	w->stats.handoff_in += n;
	for (uint16_t i = 0; i < n; i++) {
		const struct handoff_info *h = handoff_info(pkts[i]);
		int owner;

		switch ((enum worker_handoff_kind)h->kind) {
		case WORKER_HANDOFF_FRAME:
			pkts[frames++] = pkts[i];
			continue;
		case WORKER_HANDOFF_RELEASE:
			worker_move_release(w, &h->ep);
			rte_pktmbuf_free(pkts[i]);
			continue;
		case WORKER_HANDOFF_ADOPT:
			if (worker_move_adopt(w, &h->ep, now) < 0) {
				rte_pktmbuf_free(pkts[i]);
				continue;
			}
			break;
		case WORKER_HANDOFF_DATAGRAM:
			/* Hashed to us by a worker that does not know the
			 * endpoint moved on: a second hop, to where it is. */
			owner = worker_steer_owner(w, &h->ep);
			if (owner >= 0 && owner != w->p.shard_index) {
				handoff_burst(w, (uint16_t)owner, &pkts[i], 1);
				continue;
			}
			break;
		}
		w->rx_pkts[w->rx_n] = pkts[i];
		w->rx_from[w->rx_n] = h->ep;
		w->rx_n++;
	}
	/* Frames (neighbour answers) only teach this worker's cache. */
	if (frames > 0 && w->net != NULL)
		sst_net_rx_burst(w->net, pkts, frames, now);
	else if (frames > 0)
		rte_pktmbuf_free_bulk(pkts, frames);
}

/* One burst from the link into rx_pkts from w->rx_n on. @return how many
 * the link gave (the datagrams kept may be fewer: handed over, or frames
 * that were not datagrams). */
static uint16_t
link_burst(struct sst_worker *w, sst_time_t now)
{
	struct rte_mbuf *pkts[SST_MAX_BURST];
	struct sst_net_endpoint from[SST_MAX_BURST]; /* a frame link's, unused */
	uint16_t n, base = w->rx_n;

	if (w->net == NULL) {
		/* Datagrams: straight into rx_pkts. */
		n = sst_link_rx_burst(w->link, &w->rx_pkts[base], &w->rx_from[base], SST_MAX_BURST);
		if (n > 0 && w->p.capture != NULL)
			sst_capture_datagrams(w->p.capture, &w->rx_pkts[base], &w->rx_from[base], n,
				SST_CAPTURE_IN, &w->local);
		w->rx_n = (uint16_t)(base + n);
		keep_or_handoff(w, base);
		return n;
	}
	n = sst_link_rx_burst(w->link, pkts, from, SST_MAX_BURST);
	if (n == 0)
		return 0;
	if (w->p.capture != NULL)
		sst_capture_frames(w->p.capture, pkts, n, SST_CAPTURE_IN);
	if (w->p.shard_count > 1)
		share_neighbour_answers(w, pkts, n);
	sst_net_rx_burst(w->net, pkts, n, now);
	keep_or_handoff(w, base);
	return n;
}

uint16_t
worker_rx(struct sst_worker *w, sst_time_t now)
{
	w->rx_n = 0;
	/* Handed-over packets first: they are already late by one hop. */
	if (w->inbox != NULL)
		take_inbox(w, now);
	/* A second burst when the first came full: what a pass costs besides
	 * its packets (the visits, flushes and acks of the channels that
	 * received, the timers) is then shared by twice as many, while each
	 * channel still takes its packets a burst of SST_MAX_BURST at a time
	 * (docs/performance.md, session 24). */
	for (unsigned int k = 0; k < WORKER_RX_BURSTS; k++)
		if (link_burst(w, now) < SST_MAX_BURST)
			break;
	return w->rx_n;
}

const struct sst_net_stats *
sst_worker_net_stats(const struct sst_worker *w)
{
	return w->net != NULL ? sst_net_stats(w->net) : NULL;
}
