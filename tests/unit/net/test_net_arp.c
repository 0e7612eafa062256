/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP and the neighbour cache (lib/net/net_arp.c, lib/net/net_neigh.c):
 * requests for us answered byte for byte, replies resolving queued packets
 * in order, the retry schedule and give-up with fake time, the queue bound,
 * what is ignored, refresh probes, expiry and eviction, malformed ARP.
 */
#include <rte_arp.h>
#include <rte_ether.h>

#include "net_test.h"

/* ARP_REQ (42 bytes) */
static const char ARP_REQ[] = "ff ff ff ff ff ff 02 00 00 00 00 02 08 06 00 01 08 00 06 04 00 01 "
			      "02 00 00 00 00 02 c0 00 02 02"
			      "00 00 00 00 00 00 c0 00 02 01";
/* ARP_REPLY_EXPECTED (42 bytes) */
static const char ARP_REPLY_EXPECTED[] = "02 00 00 00 00 02 02 00 00 00 00 01 08 06 00 01 08 00 06 "
					 "04 00 02 02 00 00 00 00 01 c0 00 02 01"
					 "02 00 00 00 00 02 c0 00 02 02";
/* ARP_REPLY_FROM_PEER (42 bytes) */
static const char ARP_REPLY_FROM_PEER[] = "02 00 00 00 00 01 02 00 00 00 00 02 08 06 00 01 08 00 "
					  "06 04 00 02 02 00 00 00 00 02 c0 00 02 02"
					  "02 00 00 00 00 01 c0 00 02 01";
/* ARP_REQ_EXPECTED (42 bytes) */
static const char ARP_REQ_EXPECTED[] = "ff ff ff ff ff ff 02 00 00 00 00 01 08 06 00 01 08 00 06 "
				       "04 00 01 02 00 00 00 00 01 c0 00 02 01"
				       "00 00 00 00 00 00 c0 00 02 02";

/* An ARP frame built from fields, for the variations of the pinned ones. */
static struct rte_mbuf *
arp_frame(uint16_t op, const struct rte_ether_addr *sha, const char *spa, const char *tpa,
	const struct rte_ether_addr *eth_dst)
{
	uint8_t b[42];
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)b;
	struct rte_arp_hdr *ah = (struct rte_arp_hdr *)(eh + 1);
	struct sst_net_addr s = nt_addr(spa), t = nt_addr(tpa);

	memset(b, 0, sizeof(b));
	eh->dst_addr = *eth_dst;
	eh->src_addr = *sha;
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	ah->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	ah->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ah->arp_hlen = 6;
	ah->arp_plen = 4;
	ah->arp_opcode = rte_cpu_to_be_16(op);
	ah->arp_data.arp_sha = *sha;
	memcpy(&ah->arp_data.arp_sip, s.bytes, 4);
	memcpy(&ah->arp_data.arp_tip, t.bytes, 4);
	return nt_mbuf(b, sizeof(b));
}

static const struct rte_ether_addr bcast = {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};

static void
rx_one(struct sst_net *net, struct rte_mbuf *m, sst_time_t now)
{
	sst_net_rx_burst(net, &m, 1, now);
}

static int
send_to(struct sst_net *net, const char *dst, const char *text, sst_time_t now)
{
	struct sst_net_endpoint from = nt_ep("0.0.0.0", 4000), to = nt_ep(dst, 5000);

	return sst_net_send_udp(net, nt_payload(text), &from, &to, now);
}

/* The UDP payload of transmitted IPv4 frame i. */
static const char *
tx_payload(unsigned int i)
{
	return rte_pktmbuf_mtod_offset(nt.tx[i], const char *, 14 + 20 + 8);
}

static void
test_arp_request_answered(void)
{
	struct sst_net *net = nt_create();
	struct sst_net_addr peer = nt_addr("192.0.2.2");
	struct rte_ether_addr mac;

	CU_ASSERT_EQUAL(nt_rx_hex(net, ARP_REQ, 0), 0);
	CU_ASSERT_EQUAL(nt.ntx, 1);
	CU_ASSERT(nt_tx_is(0, ARP_REPLY_EXPECTED));
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_arp_request, 1);
	CU_ASSERT_EQUAL(sst_net_stats(net)->tx_arp_reply, 1);
	/* A request that names us teaches us the sender (RFC 826 merge). */
	CU_ASSERT_EQUAL(sst_net_neigh_lookup(net, &peer, &mac), 0);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &nt_mac_peer));
	nt_destroy(net);
}

static void
test_arp_resolves_queue_in_order(void)
{
	struct sst_net *net = nt_create();
	struct sst_net_addr peer = nt_addr("192.0.2.2");

	CU_ASSERT_EQUAL(send_to(net, "192.0.2.2", "one.....", 0), 0);
	CU_ASSERT_EQUAL(send_to(net, "192.0.2.2", "two.....", 10), 0);
	CU_ASSERT_EQUAL(send_to(net, "192.0.2.2", "three...", 20), 0);
	sst_net_flush(net, 20);
	/* One request, nothing else until the answer. */
	CU_ASSERT_EQUAL(nt.ntx, 1);
	CU_ASSERT(nt_tx_is(0, ARP_REQ_EXPECTED));
	CU_ASSERT_EQUAL(sst_net_neigh_lookup(net, &peer, NULL), -EAGAIN);
	CU_ASSERT_EQUAL(sst_net_next_expiry(net), SST_NSEC_PER_SEC);

	CU_ASSERT_EQUAL(nt_rx_hex(net, ARP_REPLY_FROM_PEER, SST_NSEC_PER_MSEC), 0);
	CU_ASSERT_EQUAL(nt.ntx, 4);
	CU_ASSERT_EQUAL(memcmp(tx_payload(1), "one.....", 8), 0);
	CU_ASSERT_EQUAL(memcmp(tx_payload(2), "two.....", 8), 0);
	CU_ASSERT_EQUAL(memcmp(tx_payload(3), "three...", 8), 0);
	for (unsigned int i = 1; i < 4; i++)
		CU_ASSERT(rte_is_same_ether_addr(
			&rte_pktmbuf_mtod(nt.tx[i], struct rte_ether_hdr *)->dst_addr,
			&nt_mac_peer));
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_arp_reply, 1);
	CU_ASSERT_EQUAL(sst_net_stats(net)->neigh_resolved, 1);
	CU_ASSERT_EQUAL(sst_net_stats(net)->tx_udp, 3);
	CU_ASSERT_EQUAL(sst_net_neigh_lookup(net, &peer, NULL), 0);

	/* Resolved: the next datagram goes straight out (after the flush). */
	CU_ASSERT_EQUAL(send_to(net, "192.0.2.2", "four....", 2 * SST_NSEC_PER_MSEC), 0);
	CU_ASSERT_EQUAL(nt.ntx, 4);
	sst_net_flush(net, 2 * SST_NSEC_PER_MSEC);
	CU_ASSERT_EQUAL(nt.ntx, 5);
	nt_destroy(net);
}

static void
test_arp_retry_schedule_and_timeout(void)
{
	struct sst_net *net = nt_create();
	struct sst_net_addr peer = nt_addr("192.0.2.2");
	const sst_time_t s = SST_NSEC_PER_SEC;

	CU_ASSERT_EQUAL(send_to(net, "192.0.2.2", "lost....", 0), 0);
	CU_ASSERT_EQUAL(send_to(net, "192.0.2.2", "lost2...", 0), 0);
	sst_net_flush(net, 0);
	CU_ASSERT_EQUAL(nt.ntx, 1);
	CU_ASSERT_EQUAL(sst_net_next_expiry(net), s);
	sst_net_handle_expiry(net, s / 2); /* early: nothing */
	CU_ASSERT_EQUAL(nt.ntx, 1);
	sst_net_handle_expiry(net, s);
	CU_ASSERT_EQUAL(nt.ntx, 2);
	CU_ASSERT(nt_tx_is(1, ARP_REQ_EXPECTED));
	CU_ASSERT_EQUAL(sst_net_next_expiry(net), 2 * s);
	sst_net_handle_expiry(net, 2 * s);
	CU_ASSERT_EQUAL(nt.ntx, 3);
	CU_ASSERT_EQUAL(sst_net_stats(net)->tx_arp_request, 3);
	CU_ASSERT_EQUAL(sst_net_next_expiry(net), 3 * s);
	/* Three requests unanswered: give up, drop the queue. */
	sst_net_handle_expiry(net, 3 * s);
	CU_ASSERT_EQUAL(nt.ntx, 3);
	CU_ASSERT_EQUAL(sst_net_stats(net)->neigh_failed, 1);
	CU_ASSERT_EQUAL(sst_net_stats(net)->tx_pending_timeout, 2);
	CU_ASSERT_EQUAL(sst_net_neigh_lookup(net, &peer, NULL), -ENOENT);
	CU_ASSERT_EQUAL(sst_net_next_expiry(net), SST_TIME_NEVER);
	/* A late reply resolves nothing. */
	CU_ASSERT_EQUAL(nt_rx_hex(net, ARP_REPLY_FROM_PEER, 4 * s), 0);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_arp_other, 1);
	CU_ASSERT_EQUAL(sst_net_neigh_lookup(net, &peer, NULL), -ENOENT);
	nt_destroy(net);
}

static void
test_arp_queue_bound(void)
{
	struct sst_net_params p = nt_params();
	struct sst_net *net;

	p.pending_max = 4;
	net = nt_create_with(&p);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(send_to(net, "192.0.2.2", "queued..", 0), 0);
	CU_ASSERT_EQUAL(send_to(net, "192.0.2.2", "dropped.", 0), -ENOBUFS);
	CU_ASSERT_EQUAL(send_to(net, "192.0.2.2", "dropped.", 0), -ENOBUFS);
	CU_ASSERT_EQUAL(sst_net_stats(net)->tx_pending_full, 2);
	CU_ASSERT_EQUAL(sst_net_stats(net)->tx_udp, 4);
	CU_ASSERT_EQUAL(nt_rx_hex(net, ARP_REPLY_FROM_PEER, 5), 0);
	CU_ASSERT_EQUAL(nt.ntx, 5); /* the request and the four */
	nt_destroy(net);
}

static void
test_arp_ignored(void)
{
	static const struct rte_ether_addr other = {{0x02, 0, 0, 0, 0, 0x09}};
	static const struct rte_ether_addr moved = {{0x02, 0, 0, 0, 0, 0x0a}};
	struct sst_net *net = nt_create();
	struct sst_net_addr a9 = nt_addr("192.0.2.9"), peer = nt_addr("192.0.2.2");
	struct rte_ether_addr mac;

	/* Gratuitous ARP (sender = target) of a host we do not know. */
	rx_one(net, arp_frame(RTE_ARP_OP_REQUEST, &other, "192.0.2.9", "192.0.2.9", &bcast), 0);
	rx_one(net, arp_frame(RTE_ARP_OP_REPLY, &other, "192.0.2.9", "192.0.2.9", &bcast), 0);
	/* A request for somebody else. */
	rx_one(net, arp_frame(RTE_ARP_OP_REQUEST, &other, "192.0.2.9", "192.0.2.77", &bcast), 0);
	/* An unsolicited reply to us. */
	rx_one(net, arp_frame(RTE_ARP_OP_REPLY, &other, "192.0.2.9", "192.0.2.1", &nt_mac_us), 0);
	/* Somebody claiming our address. */
	rx_one(net, arp_frame(RTE_ARP_OP_REQUEST, &other, "192.0.2.1", "192.0.2.1", &bcast), 0);
	/* A sender outside our prefix asking for us: answered, not learned. */
	rx_one(net, arp_frame(RTE_ARP_OP_REQUEST, &other, "10.0.0.9", "192.0.2.1", &bcast), 0);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_arp_other, 5);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_arp_request, 1);
	CU_ASSERT_EQUAL(nt.ntx, 1);
	CU_ASSERT_EQUAL(sst_net_neigh_lookup(net, &a9, NULL), -ENOENT);

	/* A known host's gratuitous ARP does update it (it moved). */
	rx_one(net, arp_frame(RTE_ARP_OP_REQUEST, &nt_mac_peer, "192.0.2.2", "192.0.2.1", &bcast),
		0);
	CU_ASSERT_EQUAL(sst_net_neigh_lookup(net, &peer, &mac), 0);
	rx_one(net, arp_frame(RTE_ARP_OP_REQUEST, &moved, "192.0.2.2", "192.0.2.2", &bcast), 0);
	CU_ASSERT_EQUAL(sst_net_neigh_lookup(net, &peer, &mac), 0);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &moved));
	nt_destroy(net);
}

static void
test_arp_bad(void)
{
	struct sst_net *net = nt_create();
	uint8_t b[64];
	size_t n = sst_test_hex(ARP_REQ, b, sizeof(b));
	uint8_t c[64];

	nt_rx_bytes(net, b, 30, 0); /* truncated */
	memcpy(c, b, n);
	c[15] = 6; /* hardware type 6 */
	nt_rx_bytes(net, c, n, 0);
	memcpy(c, b, n);
	c[16] = 0x86; /* protocol type 0x86dd */
	c[17] = 0xdd;
	nt_rx_bytes(net, c, n, 0);
	memcpy(c, b, n);
	c[19] = 6; /* protocol length 6 */
	nt_rx_bytes(net, c, n, 0);
	memcpy(c, b, n);
	c[21] = 3; /* RARP */
	nt_rx_bytes(net, c, n, 0);
	memcpy(c, b, n);
	c[22] = 0x01; /* multicast sender hardware address */
	nt_rx_bytes(net, c, n, 0);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_arp_bad, 6);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_arp_request, 0);
	CU_ASSERT_EQUAL(nt.ntx, 0);
	nt_destroy(net);
}

static void
test_arp_refresh_and_expiry(void)
{
	struct sst_net *net = nt_create();
	struct sst_net_addr peer = nt_addr("192.0.2.2");
	const sst_time_t s = SST_NSEC_PER_SEC;

	CU_ASSERT_EQUAL(nt_rx_hex(net, ARP_REQ, 0), 0); /* learned at 0 */
	CU_ASSERT_EQUAL(send_to(net, "192.0.2.2", "fresh...", 10 * s), 0);
	sst_net_flush(net, 10 * s);
	CU_ASSERT_EQUAL(nt.ntx, 2); /* the reply and the datagram */
	CU_ASSERT_EQUAL(sst_net_stats(net)->tx_arp_request, 0);
	/* Past neigh_reachable (30 s): still used, but probed by unicast. */
	CU_ASSERT_EQUAL(send_to(net, "192.0.2.2", "old.....", 31 * s), 0);
	CU_ASSERT_EQUAL(send_to(net, "192.0.2.2", "old.....", 31 * s), 0);
	sst_net_flush(net, 31 * s);
	CU_ASSERT_EQUAL(nt.ntx, 5);
	CU_ASSERT_EQUAL(sst_net_stats(net)->tx_arp_request, 1);
	CU_ASSERT(rte_is_same_ether_addr(
		&rte_pktmbuf_mtod(nt.tx[2], struct rte_ether_hdr *)->dst_addr, &nt_mac_peer));
	/* No answer: removed 3 x 1 s after the 30 s. */
	sst_net_handle_expiry(net, 32 * s);
	CU_ASSERT_EQUAL(sst_net_neigh_lookup(net, &peer, NULL), 0);
	sst_net_handle_expiry(net, 33 * s);
	CU_ASSERT_EQUAL(sst_net_neigh_lookup(net, &peer, NULL), -ENOENT);
	CU_ASSERT_EQUAL(sst_net_stats(net)->neigh_expired, 1);
	CU_ASSERT_EQUAL(sst_net_next_expiry(net), SST_TIME_NEVER);
	nt_destroy(net);
}

static void
test_neigh_eviction(void)
{
	static const struct rte_ether_addr m3 = {{0x02, 0, 0, 0, 0, 0x03}};
	static const struct rte_ether_addr m4 = {{0x02, 0, 0, 0, 0, 0x04}};
	struct sst_net_params p = nt_params();
	struct sst_net *net;
	struct sst_net_addr a2 = nt_addr("192.0.2.2"), a3 = nt_addr("192.0.2.3"),
			    a4 = nt_addr("192.0.2.4"), a5 = nt_addr("192.0.2.5");

	p.neigh_entries = 2;
	net = nt_create_with(&p);
	rx_one(net, arp_frame(RTE_ARP_OP_REQUEST, &nt_mac_peer, "192.0.2.2", "192.0.2.1", &bcast),
		1);
	rx_one(net, arp_frame(RTE_ARP_OP_REQUEST, &m3, "192.0.2.3", "192.0.2.1", &bcast), 2);
	rx_one(net, arp_frame(RTE_ARP_OP_REQUEST, &m4, "192.0.2.4", "192.0.2.1", &bcast), 3);
	CU_ASSERT_EQUAL(sst_net_neigh_lookup(net, &a2, NULL), -ENOENT); /* the oldest went */
	CU_ASSERT_EQUAL(sst_net_neigh_lookup(net, &a3, NULL), 0);
	CU_ASSERT_EQUAL(sst_net_neigh_lookup(net, &a4, NULL), 0);
	/* Two resolutions in progress fill the cache; a third finds no room. */
	CU_ASSERT_EQUAL(send_to(net, "192.0.2.5", "x", 4), 0);
	CU_ASSERT_EQUAL(send_to(net, "192.0.2.6", "x", 4), 0);
	CU_ASSERT_EQUAL(send_to(net, "192.0.2.7", "x", 4), -ENOBUFS);
	CU_ASSERT_EQUAL(sst_net_stats(net)->tx_neigh_full, 1);
	CU_ASSERT_EQUAL(sst_net_neigh_lookup(net, &a5, NULL), -EAGAIN);
	nt_destroy(net);
}

static void
test_send_errors_and_routes(void)
{
	struct sst_net_params p = nt_params();
	struct sst_net *net;
	struct sst_net_endpoint from = nt_ep("0.0.0.0", 4000), to = nt_ep("10.1.2.3", 5000);
	struct sst_net_endpoint bad_from = nt_ep("192.0.2.99", 4000);
	struct sst_net_addr gw = nt_addr("192.0.2.254"), r = nt_addr("192.0.2.100");
	char big[1500];

	p.routes[0].prefix = nt_addr("10.1.0.0");
	p.routes[0].prefix_len = 16;
	p.routes[0].gateway = r;
	p.nroutes = 1;
	net = nt_create_with(&p);
	/* Off-link through the static route, then through the default gateway. */
	CU_ASSERT_EQUAL(sst_net_send_udp(net, nt_payload("a"), &from, &to, 0), 0);
	CU_ASSERT_EQUAL(sst_net_neigh_lookup(net, &r, NULL), -EAGAIN);
	to = nt_ep("198.51.100.1", 5000);
	CU_ASSERT_EQUAL(sst_net_send_udp(net, nt_payload("b"), &from, &to, 0), 0);
	CU_ASSERT_EQUAL(sst_net_neigh_lookup(net, &gw, NULL), -EAGAIN);
	/* Not our source address, broadcast, multicast, port 0, too big. */
	CU_ASSERT_EQUAL(sst_net_send_udp(net, nt_payload("c"), &bad_from, &to, 0), -EINVAL);
	to = nt_ep("224.0.0.1", 5000);
	CU_ASSERT_EQUAL(sst_net_send_udp(net, nt_payload("c"), &from, &to, 0), -EINVAL);
	to = nt_ep("192.0.2.2", 0);
	CU_ASSERT_EQUAL(sst_net_send_udp(net, nt_payload("c"), &from, &to, 0), -EINVAL);
	to = nt_ep("192.0.2.2", 5000);
	memset(big, 'x', sizeof(big));
	CU_ASSERT_EQUAL(sst_net_send_udp(net, nt_mbuf((const uint8_t *)big, 1473), &from, &to, 0),
		-EMSGSIZE);
	CU_ASSERT_EQUAL(sst_net_stats(net)->tx_too_big, 1);
	CU_ASSERT_EQUAL(
		sst_net_send_udp(net, nt_mbuf((const uint8_t *)big, 1472), &from, &to, 0), 0);
	sst_net_destroy(net);

	/* Without a gateway, off-link is unreachable. */
	p.ipv4_gateway.family = SST_NET_NONE;
	p.nroutes = 0;
	net = nt_create_with(&p);
	to = nt_ep("198.51.100.1", 5000);
	CU_ASSERT_EQUAL(sst_net_send_udp(net, nt_payload("d"), &from, &to, 0), -ENETUNREACH);
	CU_ASSERT_EQUAL(sst_net_stats(net)->tx_no_route, 1);
	nt_destroy(net);
}

static void
test_params(void)
{
	struct sst_net_params p = nt_params();

	CU_ASSERT(sst_net_size(&p) > 0);
	p.pending_max = SST_NET_PENDING_MAX + 1;
	CU_ASSERT_EQUAL(sst_net_size(&p), 0);
	p = nt_params();
	p.mac.addr_bytes[0] = 0x01; /* multicast */
	CU_ASSERT_EQUAL(sst_net_size(&p), 0);
	p = nt_params();
	p.ipv4_prefix_len = 33;
	CU_ASSERT_EQUAL(sst_net_size(&p), 0);
	p = nt_params();
	p.pool = NULL;
	CU_ASSERT_EQUAL(sst_net_size(&p), 0);
	p = nt_params();
	p.ipv4.family = SST_NET_NONE;
	p.ipv6.family = SST_NET_NONE;
	CU_ASSERT_EQUAL(sst_net_size(&p), 0);
	p.ipv6_enabled = true; /* link-local only is enough */
	CU_ASSERT(sst_net_size(&p) > 0);
}

/* ipv4_count 2 from 192.0.2.1: 192.0.2.2 is ours too (answered from
 * itself, a source we may send from), 192.0.2.3 is not; a range that passes the
 * on-link prefix is refused. */
static void
test_address_range(void)
{
	struct sst_net_params p = nt_params();
	struct sst_net_endpoint from = nt_ep("192.0.2.3", 4000), to = nt_ep("192.0.2.9", 5000);
	const struct rte_arp_hdr *ah;
	struct sst_net *net;

	p.ipv4_count = 2;
	net = nt_create_with(&p);
	rx_one(net, arp_frame(RTE_ARP_OP_REQUEST, &nt_mac_peer, "192.0.2.9", "192.0.2.2", &bcast),
		0);
	CU_ASSERT_EQUAL_FATAL(nt.ntx, 1);
	ah = rte_pktmbuf_mtod_offset(nt.tx[0], const struct rte_arp_hdr *, 14);
	CU_ASSERT_EQUAL(ah->arp_opcode, rte_cpu_to_be_16(RTE_ARP_OP_REPLY));
	CU_ASSERT_EQUAL(memcmp(&ah->arp_data.arp_sip, nt_addr("192.0.2.2").bytes, 4), 0);
	rx_one(net, arp_frame(RTE_ARP_OP_REQUEST, &nt_mac_peer, "192.0.2.9", "192.0.2.3", &bcast),
		0);
	CU_ASSERT_EQUAL(nt.ntx, 1); /* 192.0.2.3: not ours */
	CU_ASSERT_EQUAL(sst_net_send_udp(net, nt_payload("x"), &from, &to, 0), -EINVAL);
	from = nt_ep("192.0.2.2", 4000);
	CU_ASSERT_EQUAL(sst_net_send_udp(net, nt_payload("x"), &from, &to, 0), 0);
	nt_destroy(net);
	p.ipv4 = nt_addr("192.0.2.250");
	p.ipv4_count = 6; /* .250 to .255 */
	CU_ASSERT(sst_net_size(&p) > 0);
	p.ipv4_count = 7;
	CU_ASSERT_EQUAL(sst_net_size(&p), 0);
}

/*
 * Our addresses announced when the layer starts (RFC 5227 2.3), so that a
 * neighbour that knew one of them with another MAC updates its cache: a
 * gratuitous request for each address of the range, broadcast, sender and
 * target the address, target MAC zero; again 2 s later; then no more. A
 * long range goes 32 frames a millisecond. With no_announce, nothing.
 */
static void
test_arp_announce(void)
{
	static const struct rte_ether_addr zero;
	struct sst_net_params p = nt_params();
	struct sst_net *net;

	p.no_announce = false;
	p.ipv4_count = 3;
	net = nt_create_with(&p);
	CU_ASSERT_EQUAL(sst_net_next_expiry(net), 0);
	sst_net_handle_expiry(net, 5);
	CU_ASSERT_EQUAL_FATAL(nt.ntx, 3);
	for (unsigned int i = 0; i < 3; i++) {
		const struct rte_ether_hdr *eh =
			rte_pktmbuf_mtod(nt.tx[i], const struct rte_ether_hdr *);
		const struct rte_arp_hdr *ah = (const struct rte_arp_hdr *)(eh + 1);
		struct sst_net_addr want = nt_addr("192.0.2.1");

		want.bytes[3] = (uint8_t)(1 + i);
		CU_ASSERT(rte_is_broadcast_ether_addr(&eh->dst_addr));
		CU_ASSERT(rte_is_same_ether_addr(&eh->src_addr, &nt_mac_us));
		CU_ASSERT_EQUAL(ah->arp_opcode, rte_cpu_to_be_16(RTE_ARP_OP_REQUEST));
		CU_ASSERT(rte_is_same_ether_addr(&ah->arp_data.arp_sha, &nt_mac_us));
		CU_ASSERT(rte_is_same_ether_addr(&ah->arp_data.arp_tha, &zero));
		CU_ASSERT_EQUAL(memcmp(&ah->arp_data.arp_sip, want.bytes, 4), 0);
		CU_ASSERT_EQUAL(memcmp(&ah->arp_data.arp_tip, want.bytes, 4), 0);
	}
	CU_ASSERT_EQUAL(sst_net_stats(net)->tx_arp_announce, 3);
	CU_ASSERT_EQUAL(sst_net_next_expiry(net), 5 + 2 * SST_NSEC_PER_SEC);
	sst_net_handle_expiry(net, SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL(nt.ntx, 3);
	sst_net_handle_expiry(net, 5 + 2 * SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL(nt.ntx, 6);
	CU_ASSERT_EQUAL(sst_net_next_expiry(net), SST_TIME_NEVER);
	sst_net_handle_expiry(net, 60 * SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL(nt.ntx, 6);
	/* Our own announcement looped back teaches and answers nothing. */
	rx_one(net, arp_frame(RTE_ARP_OP_REQUEST, &nt_mac_us, "192.0.2.2", "192.0.2.2", &bcast),
		10 * SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL(nt.ntx, 6);
	nt_destroy(net);

	/* 100 addresses: 32, 32, 32, then 4, a millisecond apart. */
	p.ipv4 = nt_addr("192.0.2.100");
	p.ipv4_count = 100;
	net = nt_create_with(&p);
	for (unsigned int k = 0; k < 4; k++) {
		sst_time_t at = k * SST_NSEC_PER_MSEC;

		CU_ASSERT_EQUAL(sst_net_next_expiry(net), at);
		sst_net_handle_expiry(net, at);
		CU_ASSERT_EQUAL(nt.ntx, k < 3 ? 32 * (k + 1) : 100);
	}
	CU_ASSERT_EQUAL(sst_net_next_expiry(net), 3 * SST_NSEC_PER_MSEC + 2 * SST_NSEC_PER_SEC);
	nt_destroy(net);

	/* Off, and with no IPv4 address: nothing. */
	p = nt_params();
	net = nt_create_with(&p);
	CU_ASSERT_EQUAL(sst_net_next_expiry(net), SST_TIME_NEVER);
	sst_net_handle_expiry(net, 0);
	CU_ASSERT_EQUAL(nt.ntx, 0);
	nt_destroy(net);
	p.no_announce = false;
	p.ipv4 = (struct sst_net_addr){0};
	p.ipv4_gateway = (struct sst_net_addr){0};
	net = nt_create_with(&p);
	sst_net_handle_expiry(net, 0);
	CU_ASSERT_EQUAL(nt.ntx, 0);
	nt_destroy(net);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_arp_request_answered),
	SST_TEST(test_arp_resolves_queue_in_order),
	SST_TEST(test_arp_retry_schedule_and_timeout),
	SST_TEST(test_arp_queue_bound),
	SST_TEST(test_arp_ignored),
	SST_TEST(test_arp_bad),
	SST_TEST(test_arp_refresh_and_expiry),
	SST_TEST(test_neigh_eviction),
	SST_TEST(test_send_errors_and_routes),
	SST_TEST(test_params),
	SST_TEST(test_address_range),
	SST_TEST(test_arp_announce),
	SST_TEST_END,
};

NT_MAIN("test_net_arp", cases)
