/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the network layer (lib/net): a program of steps on
 * one sst_net with a small neighbour cache (so that eviction, the pending
 * bound and every timer are reachable):
 *
 *   op 0  receive a burst of 1..4 frames: each from a template (raw, IPv4
 *         to us, IPv6 to us, ARP for us) overlaid with input bytes, with
 *         the IPv4 header and UDP/ICMP/ICMPv6 checksums optionally fixed
 *         up so that the deep paths are reached, and optionally split
 *         into a two-segment chain
 *   op 1  send a UDP datagram (on-link, off-link, link-local, invalid
 *         destinations; shared or private payload mbufs)
 *   op 2  let time pass and run the timers
 *   op 3  flush the transmit batch
 *
 * Invariants checked after every step: every received frame is counted
 * under exactly one disposition (sst_net_stats_rx_sum() == rx_frames);
 * the mbufs out of the pool are exactly those the layer holds (its batch
 * and pending queues: nothing leaked, nothing freed twice); the cache is
 * sound (states, free list + chains cover every entry once, queues only on
 * incomplete entries and within pending_max); next_expiry is after now
 * once the timers ran. Every delivered datagram is addressed to one of our
 * addresses; every transmitted frame comes from our MAC, is at least an
 * Ethernet header, and with software checksums its IPv4 header checksum is
 * right; pmtu() reports an MTU between 68 and the link MTU for one of our
 * addresses. At the end the object is destroyed and the pool is full.
 */
#include <string.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "fuzz_check.h"
#include "net_internal.h"
#include "sst_net.h"
#include "sst_test_eal.h"

static struct rte_mempool *pool;
static struct sst_net *cur;
static bool offload;

static void
on_deliver(void *ctx, struct rte_mbuf *m, const struct sst_net_endpoint *from,
	const struct sst_net_endpoint *to, sst_time_t now)
{
	(void)ctx;
	(void)now;
	(void)from;
	FUZZ_CHECK(net_is_ours(cur, &to->addr));
	FUZZ_CHECK(rte_mbuf_refcnt_read(m) == 1);
	rte_pktmbuf_free(m);
}

static void
on_transmit(void *ctx, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	(void)ctx;
	(void)now;
	FUZZ_CHECK(n >= 1 && n <= SST_MAX_BURST);
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

		FUZZ_CHECK(m->data_len >= sizeof(*eh));
		FUZZ_CHECK(rte_is_same_ether_addr(&eh->src_addr, &cur->p.mac));
		if (eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) && !offload) {
			const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eh + 1);

			FUZZ_CHECK(m->data_len >= sizeof(*eh) + sizeof(*ip));
			FUZZ_CHECK(rte_raw_cksum(ip, sizeof(*ip)) == 0xffff);
			FUZZ_CHECK(rte_be_to_cpu_16(ip->total_length) + sizeof(*eh) ==
				   rte_pktmbuf_pkt_len(m));
		}
		rte_pktmbuf_free(m);
	}
}

static void
on_pmtu(void *ctx, const struct sst_net_endpoint *local, const struct sst_net_endpoint *remote,
	uint32_t mtu, sst_time_t now)
{
	(void)ctx;
	(void)now;
	(void)remote;
	FUZZ_CHECK(net_is_ours(cur, &local->addr));
	FUZZ_CHECK(mtu >= 68 && mtu <= cur->p.mtu);
}

static const struct sst_net_ops ops = {
	.deliver_udp = on_deliver,
	.transmit = on_transmit,
	.pmtu = on_pmtu,
};

static void
check(const struct sst_net *net, unsigned int held)
{
	const struct sst_net_stats *s = sst_net_stats(net);
	unsigned int inside = 0, used = 0, free_n = 0;

	FUZZ_CHECK(sst_net_stats_rx_sum(s) == s->rx_frames);
	for (uint16_t i = 0; i < net->ntx; i++)
		inside += net->tx[i]->nb_segs;
	for (uint32_t i = 0; i < net->p.neigh_entries; i++) {
		const struct net_neigh *e = &net->neigh[i];

		FUZZ_CHECK(e->state <= NET_NEIGH_REACHABLE);
		FUZZ_CHECK(e->npending <= net->p.pending_max);
		FUZZ_CHECK(e->npending == 0 || e->state == NET_NEIGH_INCOMPLETE);
		for (uint16_t k = 0; k < e->npending; k++)
			inside += e->pending[k]->nb_segs;
		if (e->state != NET_NEIGH_FREE) {
			used++;
			FUZZ_CHECK(net_neigh_find(net, &e->addr) == e);
			FUZZ_CHECK(e->timer >= net->expiry);
		}
	}
	for (uint32_t i = net->free_head; i != NET_NIL; i = net->neigh[i].next) {
		FUZZ_CHECK(net->neigh[i].state == NET_NEIGH_FREE);
		FUZZ_CHECK(++free_n <= net->p.neigh_entries);
	}
	FUZZ_CHECK(used + free_n == net->p.neigh_entries);
	FUZZ_CHECK(rte_mempool_in_use_count(pool) == inside + held);
}

static uint16_t
fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* Make the checksums of a frame right, as far as its headers allow. */
static void
fix_checksums(uint8_t *f, size_t n)
{
	uint16_t type = (uint16_t)(f[12] << 8 | f[13]);

	if (type == RTE_ETHER_TYPE_IPV4 && n >= 34) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + 14);
		size_t ihl = (size_t)(ip->version_ihl & 0xf) * 4, tot;

		if (ihl < 20 || 14 + ihl > n)
			return;
		tot = RTE_MIN((size_t)rte_be_to_cpu_16(ip->total_length), n - 14);
		if (tot >= ihl + 8 && (ip->next_proto_id == 17 || ip->next_proto_id == 1)) {
			uint8_t *l4 = f + 14 + ihl;
			uint8_t *ck = ip->next_proto_id == 17 ? l4 + 6 : l4 + 2;
			size_t len = tot - ihl;
			uint32_t s = 0;

			if (ip->next_proto_id == 17) {
				len = RTE_MIN((size_t)(l4[4] << 8 | l4[5]), len);
				s = rte_raw_cksum(&ip->src_addr, 8) +
				    rte_cpu_to_be_16((uint16_t)(17 + len)); /* proto + length */
			}
			ck[0] = ck[1] = 0;
			if (len >= 8) {
				uint16_t c = (uint16_t)~fold(s + rte_raw_cksum(l4, len));

				memcpy(ck, &c, 2);
			}
		}
		ip->hdr_checksum = 0;
		ip->hdr_checksum = (uint16_t)~rte_raw_cksum(ip, ihl);
	} else if (type == RTE_ETHER_TYPE_IPV6 && n >= 62) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(f + 14);
		size_t len = RTE_MIN((size_t)rte_be_to_cpu_16(ip->payload_len), n - 54);
		uint8_t *l4 = f + 54;
		uint8_t *ck;
		uint32_t s;

		if (ip->proto != 17 && ip->proto != 58)
			return;
		ck = ip->proto == 17 ? l4 + 6 : l4 + 2;
		if (ip->proto == 17)
			len = RTE_MIN((size_t)(l4[4] << 8 | l4[5]), len);
		if (len < 8)
			return;
		s = rte_raw_cksum(ip->src_addr, 32) + rte_cpu_to_be_16((uint16_t)len) +
		    rte_cpu_to_be_16(ip->proto);
		ck[0] = ck[1] = 0;
		{
			uint16_t c = (uint16_t)~fold(s + rte_raw_cksum(l4, len));

			memcpy(ck, &c, 2);
		}
	}
}

/* Templates: the first bytes of a frame before the input overlays it. */
static size_t template(uint8_t kind, uint8_t *f)
{
	static const uint8_t us[6] = {0x02, 0, 0, 0, 0, 0x01};
	static const uint8_t peer[6] = {0x02, 0, 0, 0, 0, 0x02};
	static const uint8_t ip4[] = {
		0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 17, 0, 0, 192, 0, 2, 2, 192, 0, 2, 1};
	static const uint8_t ip6[] = {0x60, 0, 0, 0, 0, 0, 17, 255, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 2, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1};
	static const uint8_t arp[] = {0, 1, 8, 0, 6, 4, 0, 1, 2, 0, 0, 0, 0, 2, 192, 0, 2, 2, 0, 0,
		0, 0, 0, 0, 192, 0, 2, 1};

	memcpy(f, us, 6);
	memcpy(f + 6, peer, 6);
	switch (kind % 4) {
	case 1:
		f[12] = 0x08;
		f[13] = 0x00;
		memcpy(f + 14, ip4, sizeof(ip4));
		return 14 + sizeof(ip4);
	case 2:
		f[12] = 0x86;
		f[13] = 0xdd;
		memcpy(f + 14, ip6, sizeof(ip6));
		return 14 + sizeof(ip6);
	case 3:
		f[12] = 0x08;
		f[13] = 0x06;
		memcpy(f + 14, arp, sizeof(arp));
		return 14 + sizeof(arp);
	default:
		return 0;
	}
}

static struct rte_mbuf *
make_frame(struct fuzz_input *in)
{
	uint8_t f[1600] = {0};
	uint8_t kind = fuzz_take(in), flags = fuzz_take(in);
	size_t tlen = template(kind, f);
	size_t len = (size_t)fuzz_take(in) | (size_t)(fuzz_take(in) & 0x3) << 8;
	size_t skip = (kind >> 2) % 64, n;
	struct rte_mbuf *m, *tail;

	/* The input overlays the template from byte 14 + skip on (the MAC
	 * addresses and type stay unless the kind is raw). */
	n = tlen == 0 ? 0 : 14 + skip;
	for (size_t i = 0; i < len && n < sizeof(f); i++)
		f[n++] = fuzz_take(in);
	n = RTE_MAX(n, tlen);
	if (tlen != 0 && n > 18 && f[12] == 0x08 && f[13] == 0x00 && (flags & 4))
		f[16] = (uint8_t)((n - 14) >> 8), f[17] = (uint8_t)(n - 14);
	if (tlen != 0 && n > 54 && f[12] == 0x86 && (flags & 4))
		f[18] = (uint8_t)((n - 54) >> 8), f[19] = (uint8_t)(n - 54);
	if (flags & 1)
		fix_checksums(f, n);
	m = rte_pktmbuf_alloc(pool);
	FUZZ_CHECK(m != NULL);
	if (flags & 2 && n > 1) {
		/* Two segments, split at an input-chosen point. */
		size_t cut = 1 + (size_t)(flags >> 3) * 7 % (n - 1);

		tail = rte_pktmbuf_alloc(pool);
		FUZZ_CHECK(tail != NULL);
		memcpy(rte_pktmbuf_append(m, (uint16_t)cut), f, cut);
		memcpy(rte_pktmbuf_append(tail, (uint16_t)(n - cut)), f + cut, n - cut);
		FUZZ_CHECK(rte_pktmbuf_chain(m, tail) == 0);
	} else {
		memcpy(rte_pktmbuf_append(m, (uint16_t)n), f, n);
	}
	if (flags & 0x80)
		m->ol_flags |= (flags & 0x40)
				       ? RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD
				       : RTE_MBUF_F_RX_L4_CKSUM_BAD;
	return m;
}

static void
send_one(struct sst_net *net, struct fuzz_input *in, sst_time_t now)
{
	static const char *const dsts[] = {"192.0.2.2", "192.0.2.3", "198.51.100.1", "10.1.0.5",
		"2001:db8::2", "2001:db8:9::1", "fe80::2", "fe80::3", "224.0.0.1", "ff02::1",
		"0.0.0.0", "192.0.2.255"};
	uint8_t sel = fuzz_take(in), plen = fuzz_take(in);
	struct sst_net_endpoint to = {.port = (uint16_t)(5000 + (sel >> 6))}, from = {.port = 4000};
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p;
	int rc;

	FUZZ_CHECK(m != NULL);
	FUZZ_CHECK(sst_net_addr_parse(dsts[(sel & 0x3f) % 12], &to.addr) == 0);
	from.addr.family = to.addr.family;
	if (sel & 0x40)
		from.addr = cur->p.ipv4; /* ours, or the wrong family */
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(plen * 8));
	FUZZ_CHECK(p != NULL || plen == 0);
	if (p != NULL)
		memset(p, plen, (size_t)plen * 8);
	if (sel & 0x80)
		rte_mbuf_refcnt_update(m, 1); /* shared: the payload must stay untouched */
	rc = sst_net_send_udp(net, m, &from, &to, now);
	FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ENETUNREACH || rc == -EMSGSIZE ||
		   rc == -ENOBUFS);
	if (sel & 0x80) {
		FUZZ_CHECK(rte_mbuf_refcnt_read(m) >= 1);
		rte_pktmbuf_free(m);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = {data, size};
	struct sst_net_params p = {.size = sizeof(p), .mac = {{0x02, 0, 0, 0, 0, 0x01}}};
	uint8_t cfg = fuzz_take(&in);
	sst_time_t now = 0;

	if (pool == NULL) {
		FUZZ_CHECK(sst_test_eal_init("fuzz_net") == 0);
		pool = sst_test_pool("fuzz_net", 2048, 2048);
		FUZZ_CHECK(pool != NULL);
	}
	offload = cfg & 1;
	p.tx_cksum_offload = offload;
	p.neigh_entries = 1 + (cfg >> 1 & 3);
	p.pending_max = 1 + (cfg >> 3 & 3);
	p.neigh_retries = 1 + (cfg >> 5 & 1);
	p.mtu = (cfg & 0x40) ? 1280 : 1500;
	sst_net_addr_parse("192.0.2.1", &p.ipv4);
	p.ipv4_prefix_len = 24;
	sst_net_addr_parse("192.0.2.254", &p.ipv4_gateway);
	sst_net_addr_parse("2001:db8::1", &p.ipv6);
	p.ipv6_prefix_len = 64;
	sst_net_addr_parse("fe80::1", &p.ipv6_gateway);
	p.routes[0].prefix = p.ipv4;
	p.routes[0].prefix.bytes[0] = 10;
	p.routes[0].prefix_len = 8;
	sst_net_addr_parse("192.0.2.100", &p.routes[0].gateway);
	p.nroutes = 1;
	p.pool = pool;
	p.ops = &ops;
	cur = sst_net_create(&p);
	FUZZ_CHECK(cur != NULL);
	check(cur, 0);

	for (unsigned int steps = 0; in.left > 0 && steps < 256; steps++) {
		uint8_t op = fuzz_take(&in);

		switch (op % 4) {
		case 0: {
			struct rte_mbuf *pkts[4];
			uint16_t n = (uint16_t)(1 + (op >> 2) % 4);

			for (uint16_t i = 0; i < n; i++)
				pkts[i] = make_frame(&in);
			sst_net_rx_burst(cur, pkts, n, now);
			break;
		}
		case 1:
			send_one(cur, &in, now);
			break;
		case 2:
			now += (sst_time_t)fuzz_take(&in) *
			       (op & 4 ? SST_NSEC_PER_SEC : 10 * SST_NSEC_PER_MSEC);
			sst_net_handle_expiry(cur, now);
			FUZZ_CHECK(sst_net_next_expiry(cur) > now);
			break;
		default:
			sst_net_flush(cur, now);
			FUZZ_CHECK(cur->ntx == 0);
			break;
		}
		check(cur, 0);
	}
	sst_net_destroy(cur);
	cur = NULL;
	FUZZ_CHECK(rte_mempool_in_use_count(pool) == 0);
	return 0;
}
