/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6, neighbour discovery, ICMPv6 and UDP over IPv6 (lib/net/net_ipv6.c,
 * lib/net/net_nd.c, lib/net/net_udp.c) against hand-built frames: NS for
 * our addresses answered byte for byte (and DAD probes), NA resolving
 * queued datagrams, ND validation (hop limit 255, code, options), echo,
 * "packet too big" to pmtu(), extension headers, every malformed header
 * dropped under its own counter, and what sst_net_send_udp() builds. The
 * vectors were computed with an independent implementation of RFC 8200 /
 * RFC 4443 / RFC 4861.
 */
#include <rte_ip.h>
#include <rte_udp.h>

#include "sst_burst.h"

#include "net_test.h"

/* NS_FOR_US (86 bytes) */
static const char NS_FOR_US[] = "33 33 ff 00 00 01 02 00 00 00 00 02 86 dd 60 00 00 00 00 20 3a ff "
				"20 01 0d b8 00 00 00 00 00 00"
				"00 00 00 00 00 02 ff 02 00 00 00 00 00 00 00 00 00 01 ff 00 00 01 "
				"87 00 1c 27 00 00 00 00 20 01"
				"0d b8 00 00 00 00 00 00 00 00 00 00 00 01 01 01 02 00 00 00 00 02";
/* NA_EXPECTED (86 bytes) */
static const char NA_EXPECTED[] =
	"02 00 00 00 00 02 02 00 00 00 00 01 86 dd 60 00 00 00 00 20 3a ff 20 01 0d b8 00 00 00 00 "
	"00 00"
	"00 00 00 00 00 01 20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 02 88 00 8a 73 60 00 00 00 "
	"20 01"
	"0d b8 00 00 00 00 00 00 00 00 00 00 00 01 02 01 02 00 00 00 00 01";
/* NA_FROM_PEER (86 bytes) */
static const char NA_FROM_PEER[] =
	"02 00 00 00 00 01 02 00 00 00 00 02 86 dd 60 00 00 00 00 20 3a ff 20 01 0d b8 00 00 00 00 "
	"00 00"
	"00 00 00 00 00 02 20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 01 88 00 8a 71 60 00 00 00 "
	"20 01"
	"0d b8 00 00 00 00 00 00 00 00 00 00 00 02 02 01 02 00 00 00 00 02";
/* NS_OUT_EXPECTED (86 bytes) */
static const char NS_OUT_EXPECTED[] =
	"33 33 ff 00 00 02 02 00 00 00 00 01 86 dd 60 00 00 00 00 20 3a ff 20 01 0d b8 00 00 00 00 "
	"00 00"
	"00 00 00 00 00 01 ff 02 00 00 00 00 00 00 00 00 00 01 ff 00 00 02 87 00 1c 27 00 00 00 00 "
	"20 01"
	"0d b8 00 00 00 00 00 00 00 00 00 00 00 02 01 01 02 00 00 00 00 01";
/* ECHO6_REQ (70 bytes) */
static const char ECHO6_REQ[] = "02 00 00 00 00 01 02 00 00 00 00 02 86 dd 60 00 00 00 00 10 3a 40 "
				"20 01 0d b8 00 00 00 00 00 00"
				"00 00 00 00 00 02 20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 01 "
				"80 00 29 84 43 21 00 07 70 69"
				"6e 67 64 61 74 61";
/* ECHO6_REPLY_EXPECTED (70 bytes) */
static const char ECHO6_REPLY_EXPECTED[] = "02 00 00 00 00 02 02 00 00 00 00 01 86 dd 60 00 00 00 "
					   "00 10 3a 40 20 01 0d b8 00 00 00 00 00 00"
					   "00 00 00 00 00 01 20 01 0d b8 00 00 00 00 00 00 00 00 "
					   "00 00 00 02 81 00 28 84 43 21 00 07 70 69"
					   "6e 67 64 61 74 61";
/* PTB (110 bytes) */
static const char PTB[] = "02 00 00 00 00 01 02 00 00 00 00 02 86 dd 60 00 00 00 00 38 3a 40 20 01 "
			  "0d b8 00 00 00 00 00 00"
			  "00 00 00 00 00 02 20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 01 02 00 "
			  "70 06 00 00 05 14 60 00"
			  "00 00 05 ac 11 40 20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 01 20 01 "
			  "0d b8 00 01 00 00 00 00"
			  "00 00 00 00 00 07 0f a0 23 28 05 ac 22 22";
/* UDP6 (68 bytes) */
static const char UDP6[] = "02 00 00 00 00 01 02 00 00 00 00 02 86 dd 60 00 00 00 00 0e 11 40 20 "
			   "01 0d b8 00 00 00 00 00 00"
			   "00 00 00 00 00 02 20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 01 13 "
			   "88 0f a0 00 0e 3d 2d 68 65"
			   "6c 6c 6f 36";
/* UDP6_OUT_EXPECTED (70 bytes) */
static const char UDP6_OUT_EXPECTED[] = "02 00 00 00 00 02 02 00 00 00 00 01 86 dd 60 00 00 00 00 "
					"10 11 40 20 01 0d b8 00 00 00 00 00 00"
					"00 00 00 00 00 01 20 01 0d b8 00 00 00 00 00 00 00 00 00 "
					"00 00 02 0f a0 13 88 00 10 c3 e0 70 61"
					"79 6c 6f 61 64 21";

/* Recompute the checksum at offset 54 + cksum_off of an upper-layer message (no extension headers). */
static void
fix_l4(uint8_t *f, size_t n, uint8_t proto, size_t cksum_off)
{
	uint8_t ph[40] = {0};
	uint32_t len = (uint32_t)(n - 54);

	memcpy(ph, f + 22, 32);
	ph[34] = (uint8_t)(len >> 8);
	ph[35] = (uint8_t)len;
	ph[39] = proto;
	nt_put16(f + 54 + cksum_off, 0);
	nt_put16(f + 54 + cksum_off, (uint16_t)~nt_ref_sum(f + 54, len, nt_ref_sum(ph, 40, 0)));
}

static void
fix_icmp6(uint8_t *f, size_t n)
{
	fix_l4(f, n, 58, 2);
}

static void
test_ns_answered(void)
{
	struct sst_net *net = nt_create();
	struct sst_net_addr peer = nt_addr("2001:db8::2");
	struct rte_ether_addr mac;

	CU_ASSERT_EQUAL(nt_rx_hex(net, NS_FOR_US, 0), 0);
	CU_ASSERT_EQUAL(nt.ntx, 1);
	CU_ASSERT(nt_tx_is(0, NA_EXPECTED));
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_nd_ns, 1);
	CU_ASSERT_EQUAL(sst_net_stats(net)->tx_nd_na, 1);
	CU_ASSERT_EQUAL(sst_net_neigh_lookup(net, &peer, &mac), 0);
	CU_ASSERT(rte_is_same_ether_addr(&mac, &nt_mac_peer));
	nt_destroy(net);
}

static void
test_ns_link_local_and_dad(void)
{
	struct sst_net *net = nt_create();
	struct sst_net_addr ll = nt_addr("fe80::ff:fe00:1"), dst;
	uint8_t f[2048];
	size_t n = nt_frame(NS_FOR_US, f);
	const uint8_t *p;

	/* For our derived link-local address, from a link-local peer. */
	memcpy(f + 22, nt_addr("fe80::2").bytes, 16);
	memcpy(f + 62, ll.bytes, 16);
	fix_icmp6(f, n);
	nt_rx_bytes(net, f, n, 0);
	CU_ASSERT_EQUAL_FATAL(nt.ntx, 1);
	p = rte_pktmbuf_mtod(nt.tx[0], const uint8_t *);
	CU_ASSERT_EQUAL(memcmp(p + 22, ll.bytes, 16), 0); /* from the target */
	CU_ASSERT_EQUAL(memcmp(p + 62, ll.bytes, 16), 0);
	CU_ASSERT_EQUAL(p[58], 0x60); /* solicited, override */

	/* Duplicate address detection: from ::, no source option; answered to all-nodes. */
	n = nt_frame(NS_FOR_US, f) - 8;
	memset(f + 22, 0, 16);
	nt_put16(f + 18, 24);
	fix_icmp6(f, n);
	nt_rx_bytes(net, f, n, 0);
	CU_ASSERT_EQUAL_FATAL(nt.ntx, 2);
	p = rte_pktmbuf_mtod(nt.tx[1], const uint8_t *);
	dst = nt_addr("ff02::1");
	CU_ASSERT(p[0] == 0x33 && p[1] == 0x33 && p[5] == 0x01);
	CU_ASSERT_EQUAL(memcmp(p + 38, dst.bytes, 16), 0);
	CU_ASSERT_EQUAL(p[58], 0x20); /* override only */
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_nd_ns, 2);
	nt_destroy(net);
}

static void
test_na_resolves_queue(void)
{
	struct sst_net *net = nt_create();
	struct sst_net_endpoint from = nt_ep("::", 4000), to = nt_ep("2001:db8::2", 5000);
	struct sst_net_addr peer = nt_addr("2001:db8::2");

	CU_ASSERT_EQUAL(sst_net_send_udp(net, nt_payload("payload!"), &from, &to, 0), 0);
	sst_net_flush(net, 0);
	CU_ASSERT_EQUAL(nt.ntx, 1);
	CU_ASSERT(nt_tx_is(0, NS_OUT_EXPECTED));
	CU_ASSERT_EQUAL(sst_net_neigh_lookup(net, &peer, NULL), -EAGAIN);
	CU_ASSERT_EQUAL(nt_rx_hex(net, NA_FROM_PEER, 1000), 0);
	CU_ASSERT_EQUAL(nt.ntx, 2);
	CU_ASSERT(nt_tx_is(1, UDP6_OUT_EXPECTED));
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_nd_na, 1);
	CU_ASSERT_EQUAL(sst_net_stats(net)->neigh_resolved, 1);
	CU_ASSERT_EQUAL(sst_net_neigh_lookup(net, &peer, NULL), 0);
	/* An advertisement nobody asked for creates nothing. */
	{
		uint8_t f[2048];
		size_t n = nt_frame(NA_FROM_PEER, f);

		f[77] = 9;
		fix_icmp6(f, n);
		nt_rx_bytes(net, f, n, 0);
		CU_ASSERT_EQUAL(sst_net_stats(net)->rx_nd_other, 1);
		CU_ASSERT_EQUAL(
			sst_net_neigh_lookup(net, &(struct sst_net_addr){0}, NULL), -ENOENT);
	}
	nt_destroy(net);
}

static void
test_nd_bad(void)
{
	struct sst_net *net = nt_create();
	const struct sst_net_stats *s = sst_net_stats(net);
	uint8_t f[2048];
	size_t n;

	/* Hop limit not 255: not from the link (RFC 4861 7.1.1). */
	n = nt_frame(NS_FOR_US, f);
	f[21] = 64;
	nt_rx_bytes(net, f, n, 0);
	n = nt_frame(NA_FROM_PEER, f);
	f[21] = 254;
	nt_rx_bytes(net, f, n, 0);
	CU_ASSERT_EQUAL(s->rx_nd_bad, 2);
	/* Code 1, a zero-length option, an option running past the end,
	 * a multicast target. */
	n = nt_frame(NS_FOR_US, f);
	f[55] = 1;
	fix_icmp6(f, n);
	nt_rx_bytes(net, f, n, 0);
	n = nt_frame(NS_FOR_US, f);
	f[79] = 0;
	fix_icmp6(f, n);
	nt_rx_bytes(net, f, n, 0);
	n = nt_frame(NS_FOR_US, f);
	f[79] = 2;
	fix_icmp6(f, n);
	nt_rx_bytes(net, f, n, 0);
	n = nt_frame(NS_FOR_US, f);
	f[62] = 0xff;
	fix_icmp6(f, n);
	nt_rx_bytes(net, f, n, 0);
	/* A solicited advertisement to a multicast group. */
	n = nt_frame(NA_FROM_PEER, f);
	memcpy(f + 38, nt_addr("ff02::1").bytes, 16);
	fix_icmp6(f, n);
	nt_rx_bytes(net, f, n, 0);
	/* DAD with a source link-layer option. */
	n = nt_frame(NS_FOR_US, f);
	memset(f + 22, 0, 16);
	fix_icmp6(f, n);
	nt_rx_bytes(net, f, n, 0);
	CU_ASSERT_EQUAL(s->rx_nd_bad, 8);
	/* A solicitation for somebody else. */
	n = nt_frame(NS_FOR_US, f);
	f[77] = 5;
	fix_icmp6(f, n);
	nt_rx_bytes(net, f, n, 0);
	CU_ASSERT_EQUAL(s->rx_nd_other, 1);
	/* A wrong ICMPv6 checksum. */
	n = nt_frame(NS_FOR_US, f);
	f[57] ^= 1;
	nt_rx_bytes(net, f, n, 0);
	CU_ASSERT_EQUAL(s->rx_icmp6_bad, 1);
	CU_ASSERT_EQUAL(nt.ntx, 0);
	nt_destroy(net);
}

static void
test_echo6(void)
{
	struct sst_net *net = nt_create();
	uint8_t f[2048];
	size_t n;

	CU_ASSERT_EQUAL(nt_rx_hex(net, ECHO6_REQ, 0), 0);
	CU_ASSERT_EQUAL(nt.ntx, 1);
	CU_ASSERT(nt_tx_is(0, ECHO6_REPLY_EXPECTED));
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_icmp6_echo, 1);
	/* To all-nodes: not answered. */
	n = nt_frame(ECHO6_REQ, f);
	memcpy(f + 38, nt_addr("ff02::1").bytes, 16);
	f[0] = f[1] = 0x33;
	fix_icmp6(f, n);
	nt_rx_bytes(net, f, n, 0);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_icmp6_other, 1);
	n = nt_frame(ECHO6_REQ, f);
	f[n - 1] ^= 1;
	nt_rx_bytes(net, f, n, 0);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_icmp6_bad, 1);
	CU_ASSERT_EQUAL(nt.ntx, 1);
	nt_destroy(net);
}

static void
test_packet_too_big(void)
{
	struct sst_net *net = nt_create();
	uint8_t f[2048];
	size_t n;

	CU_ASSERT_EQUAL(nt_rx_hex(net, PTB, 0), 0);
	CU_ASSERT_EQUAL(nt.npmtu, 1);
	CU_ASSERT_EQUAL(nt.pmtu, 1300);
	CU_ASSERT(nt_ep_is(&nt.pmtu_local, "2001:db8::1", 4000));
	CU_ASSERT(nt_ep_is(&nt.pmtu_remote, "2001:db8:1::7", 9000));
	CU_ASSERT_EQUAL(sst_net_udp_payload_max(SST_NET_IPV6, nt.pmtu), 1252);
	/* Below 1280 means 1280 (RFC 8201 4). */
	n = nt_frame(PTB, f);
	nt_put16(f + 60, 1000);
	fix_icmp6(f, n);
	nt_rx_bytes(net, f, n, 0);
	CU_ASSERT_EQUAL(nt.pmtu, 1280);
	/* Not below the quoted packet's size; quoted source not ours. */
	nt_put16(f + 60, 1500);
	fix_icmp6(f, n);
	nt_rx_bytes(net, f, n, 0);
	n = nt_frame(PTB, f);
	f[85] = 9;
	fix_icmp6(f, n);
	nt_rx_bytes(net, f, n, 0);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_icmp6_pmtu_bad, 2);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_icmp6_pmtu, 2);
	nt_destroy(net);
}

/* Insert an 8-byte extension header of type t (segments left sl) after the IPv6 header. */
static size_t
with_ext(const uint8_t *f, size_t n, uint8_t *g, uint8_t t, uint8_t sl)
{
	uint8_t ext[8] = {f[20], 0, 1, 4, 0, 0, 0, 0};

	if (t == 43) {
		ext[2] = 0;
		ext[3] = sl;
	} else if (t == 44) {
		memset(ext + 1, 0, 7);
		ext[3] = 1; /* offset 0, M set */
	}
	memcpy(g, f, 54);
	memcpy(g + 54, ext, 8);
	memcpy(g + 62, f + 54, n - 54);
	g[20] = t;
	nt_put16(g + 18, (uint16_t)(n - 54 + 8));
	return n + 8;
}

static void
test_udp6(void)
{
	struct sst_net *net = nt_create();
	const struct sst_net_stats *s = sst_net_stats(net);
	uint8_t f[2048], g[2048];
	size_t n = nt_frame(UDP6, f), k;

	CU_ASSERT_EQUAL(nt_rx_bytes(net, f, n, 0), 1);
	CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(nt.rx[0]), 6);
	CU_ASSERT_EQUAL(memcmp(rte_pktmbuf_mtod(nt.rx[0], void *), "hello6", 6), 0);
	CU_ASSERT(nt_ep_is(&nt.from[0], "2001:db8::2", 5000));
	CU_ASSERT_EQUAL(nt.to[0].port, 4000);
	/* Hop-by-hop and destination options are skipped. */
	k = with_ext(f, n, g, 0, 0);
	CU_ASSERT_EQUAL(nt_rx_bytes(net, g, k, 0), 1);
	k = with_ext(f, n, g, 60, 0);
	CU_ASSERT_EQUAL(nt_rx_bytes(net, g, k, 0), 1);
	k = with_ext(f, n, g, 43, 0);
	CU_ASSERT_EQUAL(nt_rx_bytes(net, g, k, 0), 1);
	CU_ASSERT_EQUAL(memcmp(rte_pktmbuf_mtod(nt.rx[3], void *), "hello6", 6), 0);
	/* A routing header with segments left, a fragment. */
	k = with_ext(f, n, g, 43, 1);
	nt_rx_bytes(net, g, k, 0);
	CU_ASSERT_EQUAL(s->rx_ip6_ext, 1);
	k = with_ext(f, n, g, 44, 0);
	nt_rx_bytes(net, g, k, 0);
	CU_ASSERT_EQUAL(s->rx_ip6_frag, 1);
	/* Checksum zero is not allowed over IPv6; a wrong one. */
	memcpy(g, f, n);
	g[60] = g[61] = 0;
	nt_rx_bytes(net, g, n, 0);
	g[60] = 1;
	nt_rx_bytes(net, g, n, 0);
	CU_ASSERT_EQUAL(s->rx_udp_cksum, 2);
	/* Header faults. */
	memcpy(g, f, n);
	g[14] = 0x40;
	nt_rx_bytes(net, g, n, 0);
	CU_ASSERT_EQUAL(s->rx_ip6_version, 1);
	memcpy(g, f, n);
	nt_put16(g + 18, 15);
	nt_rx_bytes(net, g, n, 0);
	CU_ASSERT_EQUAL(s->rx_ip6_len, 1);
	nt_rx_bytes(net, f, 50, 0);
	CU_ASSERT_EQUAL(s->rx_ip6_short, 1);
	memcpy(g, f, n);
	g[22] = 0xff;
	nt_rx_bytes(net, g, n, 0);
	memcpy(g, f, n);
	g[37] = 1; /* our own address */
	nt_rx_bytes(net, g, n, 0);
	CU_ASSERT_EQUAL(s->rx_ip6_src, 2);
	memcpy(g, f, n);
	g[53] = 9;
	nt_rx_bytes(net, g, n, 0);
	CU_ASSERT_EQUAL(s->rx_ip6_not_ours, 1);
	memcpy(g, f, n);
	g[20] = 6;
	nt_rx_bytes(net, g, n, 0);
	CU_ASSERT_EQUAL(s->rx_ip6_proto, 1);
	CU_ASSERT_EQUAL(nt.nrx, 4);
	nt_destroy(net);
}

static void
test_send_udp6(void)
{
	struct sst_net_params prm = nt_params();
	struct sst_net *net = nt_create();
	struct sst_net_endpoint from = nt_ep("::", 4000), to = nt_ep("2001:db8::2", 5000);
	struct sst_net_addr gw = nt_addr("fe80::1"), ll = nt_addr("fe80::ff:fe00:1");
	const uint8_t *p;
	struct rte_ipv6_hdr *ip;
	struct rte_udp_hdr *uh;

	nt_rx_hex(net, NS_FOR_US, 0); /* learn the peer, frame 0 is the NA */
	CU_ASSERT_EQUAL(sst_net_send_udp(net, nt_payload("payload!"), &from, &to, 0), 0);
	sst_net_flush(net, 0);
	CU_ASSERT(nt_tx_is(1, UDP6_OUT_EXPECTED));
	/* A link-local destination is solicited from our link-local address. */
	to = nt_ep("fe80::2", 5000);
	CU_ASSERT_EQUAL(sst_net_send_udp(net, nt_payload("x"), &from, &to, 0), 0);
	sst_net_flush(net, 0);
	CU_ASSERT_EQUAL_FATAL(nt.ntx, 3);
	p = rte_pktmbuf_mtod(nt.tx[2], const uint8_t *);
	CU_ASSERT_EQUAL(p[54], 135);
	CU_ASSERT_EQUAL(memcmp(p + 22, ll.bytes, 16), 0);
	/* Off-link goes to the gateway. */
	to = nt_ep("2001:db8:5::1", 5000);
	CU_ASSERT_EQUAL(sst_net_send_udp(net, nt_payload("x"), &from, &to, 0), 0);
	CU_ASSERT_EQUAL(sst_net_neigh_lookup(net, &gw, NULL), -EAGAIN);
	/* Multicast destinations are refused. */
	to = nt_ep("ff02::1", 5000);
	CU_ASSERT_EQUAL(sst_net_send_udp(net, nt_payload("x"), &from, &to, 0), -EINVAL);
	nt_destroy(net);

	prm.tx_cksum_offload = true;
	net = nt_create_with(&prm);
	nt_rx_hex(net, NS_FOR_US, 0);
	to = nt_ep("2001:db8::2", 5000);
	CU_ASSERT_EQUAL(sst_net_send_udp(net, nt_payload("payload!"), &from, &to, 0), 0);
	sst_net_flush(net, 0);
	CU_ASSERT_EQUAL_FATAL(nt.ntx, 2);
	CU_ASSERT_EQUAL(nt.tx[1]->ol_flags & (RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_UDP_CKSUM),
		RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_UDP_CKSUM);
	CU_ASSERT_EQUAL(nt.tx[1]->l3_len, 40);
	ip = rte_pktmbuf_mtod_offset(nt.tx[1], struct rte_ipv6_hdr *, 14);
	uh = (struct rte_udp_hdr *)(ip + 1);
	CU_ASSERT_EQUAL(uh->dgram_cksum, rte_ipv6_phdr_cksum(ip, 0));
	nt_destroy(net);
}

static void
test_ipv6_disabled(void)
{
	struct sst_net_params prm = nt_params();
	struct sst_net *net;

	prm.ipv6.family = SST_NET_NONE;
	prm.ipv6_gateway.family = SST_NET_NONE;
	net = nt_create_with(&prm);
	nt_rx_hex(net, NS_FOR_US, 0); /* 33:33 multicast: not ours */
	nt_rx_hex(net, UDP6, 0);      /* unicast to our MAC, IPv6 off */
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_eth_not_ours, 1);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_eth_type, 1);
	CU_ASSERT_EQUAL(nt.ntx + nt.nrx, 0);
	nt_destroy(net);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_ns_answered),
	SST_TEST(test_ns_link_local_and_dad),
	SST_TEST(test_na_resolves_queue),
	SST_TEST(test_nd_bad),
	SST_TEST(test_echo6),
	SST_TEST(test_packet_too_big),
	SST_TEST(test_udp6),
	SST_TEST(test_send_udp6),
	SST_TEST(test_ipv6_disabled),
	SST_TEST_END,
};

NT_MAIN("test_net_ipv6", cases)
