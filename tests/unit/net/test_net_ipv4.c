/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4, ICMPv4 and UDP over IPv4 (lib/net/net_ipv4.c, lib/net/net_udp.c)
 * against hand-built frames: checksum vectors, UDP delivered zero copy with
 * its endpoints, every malformed header dropped under its own counter,
 * echo requests answered byte for byte, "fragmentation needed" reported to
 * pmtu(), and the exact bytes of what sst_net_send_udp() builds, with
 * software checksums and with offload. The vectors were computed with an
 * independent implementation of RFC 791 / RFC 768 / RFC 1071.
 */
#include <errno.h>

#include <rte_ip.h>
#include <rte_udp.h>

#include "sst_burst.h"

#include "net_test.h"

/* ECHO_REQ (50 bytes) */
static const char ECHO_REQ[] = "02 00 00 00 00 01 02 00 00 00 00 02 08 00 45 00 00 24 00 55 00 00 "
			       "40 01 f6 80 c0 00 02 02 c0 00"
			       "02 01 08 00 54 35 12 34 00 01 61 62 63 64 65 66 67 68";
/* ECHO_REPLY_EXPECTED (50 bytes) */
static const char ECHO_REPLY_EXPECTED[] = "02 00 00 00 00 02 02 00 00 00 00 01 08 00 45 00 00 24 "
					  "00 00 40 00 40 01 b6 d5 c0 00 02 01 c0 00"
					  "02 02 00 00 5c 35 12 34 00 01 61 62 63 64 65 66 67 68";
/* UDP4 (47 bytes) */
static const char UDP4[] = "02 00 00 00 00 01 02 00 00 00 00 02 08 00 45 00 00 21 00 07 40 00 40 "
			   "11 b6 c1 c0 00 02 02 c0 00"
			   "02 01 13 88 0f a0 00 0d 14 d6 68 65 6c 6c 6f";
/* FRAG_NEEDED (70 bytes) */
static const char FRAG_NEEDED[] = "02 00 00 00 00 01 02 00 00 00 00 02 08 00 45 00 00 38 00 03 00 "
				  "00 40 01 f5 c2 c0 00 02 fe c0 00"
				  "02 01 03 04 ae be 00 00 05 00 45 00 05 78 00 09 40 00 3f 11 4a "
				  "30 c0 00 02 01 c6 33 64 07 0f a0"
				  "23 28 05 64 11 11";
/* UDP4_OUT_EXPECTED (50 bytes) */
static const char UDP4_OUT_EXPECTED[] = "02 00 00 00 00 02 02 00 00 00 00 01 08 00 45 00 00 24 00 "
					"00 40 00 40 11 b6 c5 c0 00 02 01 c0 00"
					"02 02 0f a0 13 88 00 10 9b 51 70 61 79 6c 6f 61 64 21";
/* ARP_REQ (42 bytes) */
static const char ARP_REQ[] = "ff ff ff ff ff ff 02 00 00 00 00 02 08 06 00 01 08 00 06 04 00 01 "
			      "02 00 00 00 00 02 c0 00 02 02"
			      "00 00 00 00 00 00 c0 00 02 01";

/* RFC 1071 checksum, written out independently of DPDK's and the library's. */
static uint16_t
ref_cksum(const uint8_t *p, size_t n)
{
	return (uint16_t)~nt_ref_sum(p, n, 0);
}

/* Recompute the IPv4 header checksum of a frame after editing it. */
static void
fix_ip4(uint8_t *f)
{
	size_t ihl = (size_t)(f[14] & 0xf) * 4;

	nt_put16(f + 24, 0);
	nt_put16(f + 24, ref_cksum(f + 14, ihl));
}

/* Recompute the ICMP checksum of a frame with a 20-byte IP header. */
static void
fix_icmp4(uint8_t *f, size_t n)
{
	nt_put16(f + 36, 0);
	nt_put16(f + 36, ref_cksum(f + 34, n - 34));
}

static void
test_cksum_vectors(void)
{
	/* RFC 1071 section 3: the sum of 0001 f203 f4f5 f6f7 is ddf2. */
	static const uint8_t v[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
	/* A header with a known checksum (b861). */
	static const uint8_t h[] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
		0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
	struct rte_ipv4_hdr ip;
	uint16_t s = rte_raw_cksum(v, sizeof(v)), c;
	uint8_t b[2];

	memcpy(b, &s, 2);
	CU_ASSERT(b[0] == 0xdd && b[1] == 0xf2);
	CU_ASSERT_EQUAL(ref_cksum(v, sizeof(v)), 0x220d);
	memcpy(&ip, h, sizeof(ip));
	ip.hdr_checksum = 0;
	c = rte_ipv4_cksum(&ip);
	memcpy(b, &c, 2);
	CU_ASSERT(b[0] == 0xb8 && b[1] == 0x61);
	CU_ASSERT_EQUAL(ref_cksum(h, sizeof(h)), 0);
}

static void
test_udp_delivered_zero_copy(void)
{
	struct sst_net *net = nt_create();
	uint8_t f[2048];
	size_t n = nt_frame(UDP4, f);
	struct rte_mbuf *m = nt_mbuf(f, n);
	uint16_t off = m->data_off;

	CU_ASSERT_EQUAL(sst_net_rx_burst(net, &m, 1, 0), 1);
	CU_ASSERT_EQUAL(nt.nrx, 1);
	CU_ASSERT_PTR_EQUAL(nt.rx[0], m);
	CU_ASSERT_EQUAL(m->data_off, off + 42);
	CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(m), 5);
	CU_ASSERT_EQUAL(memcmp(rte_pktmbuf_mtod(m, void *), "hello", 5), 0);
	CU_ASSERT(nt_ep_is(&nt.from[0], "192.0.2.2", 5000));
	CU_ASSERT(nt_ep_is(&nt.to[0], "192.0.2.1", 4000));

	/* Ethernet padding to 60 bytes is cut off. */
	memset(f + n, 0, 60 - n);
	CU_ASSERT_EQUAL(nt_rx_bytes(net, f, 60, 0), 1);
	CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(nt.rx[1]), 5);
	/* Checksum 0: none (allowed over IPv4). */
	f[40] = f[41] = 0;
	CU_ASSERT_EQUAL(nt_rx_bytes(net, f, n, 0), 1);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_udp, 3);
	nt_destroy(net);
}

static void
test_udp_bad(void)
{
	struct sst_net *net = nt_create();
	uint8_t f[2048], g[2048];
	size_t n = nt_frame(UDP4, f);
	struct rte_mbuf *m;

	memcpy(g, f, n);
	g[n - 1] ^= 1; /* payload changed: checksum wrong */
	nt_rx_bytes(net, g, n, 0);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_udp_cksum, 1);
	/* The port's verdict wins either way. */
	m = nt_mbuf(g, n);
	m->ol_flags |= RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	CU_ASSERT_EQUAL(sst_net_rx_burst(net, &m, 1, 0), 1);
	m = nt_mbuf(f, n);
	m->ol_flags |= RTE_MBUF_F_RX_L4_CKSUM_BAD;
	CU_ASSERT_EQUAL(sst_net_rx_burst(net, &m, 1, 0), 0);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_udp_cksum, 2);
	/* NONE: data verified, checksum field not filled in. */
	m = nt_mbuf(g, n);
	m->ol_flags |= RTE_MBUF_F_RX_L4_CKSUM_NONE;
	CU_ASSERT_EQUAL(sst_net_rx_burst(net, &m, 1, 0), 1);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_udp_cksum, 2);
	m = nt_mbuf(g, n);
	m->ol_flags |= RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN;
	sst_net_rx_burst(net, &m, 1, 0);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_udp_cksum, 3);
	/* UDP length beyond the IP payload, and below 8. */
	memcpy(g, f, n);
	nt_put16(g + 38, 14);
	nt_rx_bytes(net, g, n, 0);
	nt_put16(g + 38, 7);
	nt_rx_bytes(net, g, n, 0);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_udp_len, 2);
	/* IP payload shorter than a UDP header. */
	memcpy(g, f, n);
	nt_put16(g + 16, 20 + 6);
	fix_ip4(g);
	nt_rx_bytes(net, g, 14 + 26, 0);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_udp_short, 1);
	/* Another destination, and the broadcast address. */
	memcpy(g, f, n);
	g[33] = 3;
	fix_ip4(g);
	nt_rx_bytes(net, g, n, 0);
	g[33] = 255;
	fix_ip4(g);
	nt_rx_bytes(net, g, n, 0);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_ip4_not_ours, 2);
	CU_ASSERT_EQUAL(nt.nrx, 2); /* the GOOD and the NONE one */
	nt_destroy(net);
}

/* Edit a copy of UDP4 with fn, fix the header checksum, feed it. */
static void
rx_edited(struct sst_net *net, void (*fn)(uint8_t *f), bool fix)
{
	uint8_t f[2048];
	size_t n = nt_frame(UDP4, f);

	fn(f);
	if (fix)
		fix_ip4(f);
	nt_rx_bytes(net, f, n, 0);
}

static void
ed_version(uint8_t *f)
{
	f[14] = 0x65;
}
static void
ed_ihl(uint8_t *f)
{
	f[14] = 0x44;
}
static void
ed_ihl_long(uint8_t *f)
{
	f[14] = 0x4f; /* 60-byte header in a 47-byte frame */
}
static void
ed_len_long(uint8_t *f)
{
	nt_put16(f + 16, 34);
}
static void
ed_len_short(uint8_t *f)
{
	nt_put16(f + 16, 19);
}
static void
ed_cksum(uint8_t *f)
{
	f[25] ^= 0x40;
}
static void
ed_ttl(uint8_t *f)
{
	f[22] = 0;
}
static void
ed_mf(uint8_t *f)
{
	f[20] = 0x20; /* MF */
}
static void
ed_offset(uint8_t *f)
{
	f[20] = 0x40; /* DF and offset 8 */
	f[21] = 0x01;
}
static void
ed_src_mcast(uint8_t *f)
{
	f[26] = 224;
}
static void
ed_src_ours(uint8_t *f)
{
	f[29] = 1;
}
static void
ed_proto(uint8_t *f)
{
	f[23] = 6;
}
static void
ed_ethertype(uint8_t *f)
{
	f[12] = 0x81; /* a VLAN tag */
}
static void
ed_other_mac(uint8_t *f)
{
	f[5] = 0x07;
}

static void
test_ip4_bad_headers(void)
{
	struct sst_net *net = nt_create();
	const struct sst_net_stats *s = sst_net_stats(net);
	uint8_t f[2048];

	rx_edited(net, ed_version, true);
	rx_edited(net, ed_ihl, true);
	CU_ASSERT_EQUAL(s->rx_ip4_version, 2);
	rx_edited(net, ed_ihl_long, false);
	nt_rx_bytes(net, f, nt_frame(UDP4, f) - 20, 0);
	nt_rx_bytes(net, f, 20, 0);
	CU_ASSERT_EQUAL(s->rx_ip4_short, 3);
	rx_edited(net, ed_len_long, true);
	rx_edited(net, ed_len_short, true);
	CU_ASSERT_EQUAL(s->rx_ip4_len, 2);
	rx_edited(net, ed_cksum, false);
	CU_ASSERT_EQUAL(s->rx_ip4_cksum, 1);
	rx_edited(net, ed_ttl, true);
	CU_ASSERT_EQUAL(s->rx_ip4_ttl, 1);
	rx_edited(net, ed_mf, true);
	rx_edited(net, ed_offset, true);
	CU_ASSERT_EQUAL(s->rx_ip4_frag, 2);
	rx_edited(net, ed_src_mcast, true);
	rx_edited(net, ed_src_ours, true);
	CU_ASSERT_EQUAL(s->rx_ip4_src, 2);
	rx_edited(net, ed_proto, true);
	CU_ASSERT_EQUAL(s->rx_ip4_proto, 1);
	rx_edited(net, ed_ethertype, false);
	CU_ASSERT_EQUAL(s->rx_eth_type, 1);
	rx_edited(net, ed_other_mac, false);
	CU_ASSERT_EQUAL(s->rx_eth_not_ours, 1);
	nt_rx_bytes(net, f, 13, 0);
	CU_ASSERT_EQUAL(s->rx_eth_short, 1);
	CU_ASSERT_EQUAL(s->rx_frames, 17);
	CU_ASSERT_EQUAL(nt.nrx + nt.ntx, 0);
	/* The port's IP checksum verdict wins. */
	{
		struct rte_mbuf *m = nt_mbuf(f, nt_frame(UDP4, f));

		m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_BAD;
		sst_net_rx_burst(net, &m, 1, 0);
		CU_ASSERT_EQUAL(s->rx_ip4_cksum, 2);
	}
	/* NONE: header verified, its checksum field not filled in. */
	{
		struct rte_mbuf *m;
		size_t n = nt_frame(UDP4, f);

		f[24] ^= 0x55; /* IPv4 header checksum wrong */
		m = nt_mbuf(f, n);
		m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_NONE;
		sst_net_rx_burst(net, &m, 1, 0);
		CU_ASSERT_EQUAL(s->rx_ip4_cksum, 2);
		m = nt_mbuf(f, n);
		sst_net_rx_burst(net, &m, 1, 0);
		CU_ASSERT_EQUAL(s->rx_ip4_cksum, 3);
	}
	nt_destroy(net);
}

static void
test_icmp_echo(void)
{
	struct sst_net *net = nt_create();
	uint8_t f[2048];
	size_t n = nt_frame(ECHO_REQ, f);

	CU_ASSERT_EQUAL(nt_rx_hex(net, ECHO_REQ, 0), 0);
	CU_ASSERT_EQUAL(nt.ntx, 1);
	CU_ASSERT(nt_tx_is(0, ECHO_REPLY_EXPECTED));
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_icmp4_echo, 1);
	/* A bad ICMP checksum, a truncated message, an echo reply. */
	f[n - 1] ^= 1;
	nt_rx_bytes(net, f, n, 0);
	nt_put16(f + 16, 20 + 4);
	fix_ip4(f);
	nt_rx_bytes(net, f, 14 + 24, 0);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_icmp4_bad, 2);
	n = nt_frame(ECHO_REQ, f);
	f[34] = 0;
	fix_icmp4(f, n);
	nt_rx_bytes(net, f, n, 0);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_icmp4_other, 1);
	CU_ASSERT_EQUAL(nt.ntx, 1);
	nt_destroy(net);
}

static void
test_icmp_frag_needed(void)
{
	struct sst_net *net = nt_create();
	uint8_t f[2048];
	size_t n;

	CU_ASSERT_EQUAL(nt_rx_hex(net, FRAG_NEEDED, 5), 0);
	CU_ASSERT_EQUAL(nt.npmtu, 1);
	CU_ASSERT_EQUAL(nt.pmtu, 1280);
	CU_ASSERT(nt_ep_is(&nt.pmtu_local, "192.0.2.1", 4000));
	CU_ASSERT(nt_ep_is(&nt.pmtu_remote, "198.51.100.7", 9000));
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_icmp4_pmtu, 1);
	CU_ASSERT_EQUAL(sst_net_udp_payload_max(SST_NET_IPV4, nt.pmtu), 1252);

	/* Not believed: an MTU not below the quoted packet, an MTU below 68,
	 * a quoted packet not from us, a quoted protocol other than UDP, a
	 * quote cut short. */
	n = nt_frame(FRAG_NEEDED, f);
	nt_put16(f + 40, 1400);
	fix_icmp4(f, n);
	nt_rx_bytes(net, f, n, 0);
	nt_put16(f + 40, 0);
	fix_icmp4(f, n);
	nt_rx_bytes(net, f, n, 0);
	n = nt_frame(FRAG_NEEDED, f);
	f[57] = 9;
	fix_icmp4(f, n);
	nt_rx_bytes(net, f, n, 0);
	n = nt_frame(FRAG_NEEDED, f);
	f[51] = 6;
	fix_icmp4(f, n);
	nt_rx_bytes(net, f, n, 0);
	n = nt_frame(FRAG_NEEDED, f) - 4;
	nt_put16(f + 16, (uint16_t)(n - 14));
	fix_ip4(f);
	fix_icmp4(f, n);
	nt_rx_bytes(net, f, n, 0);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_icmp4_pmtu_bad, 5);
	CU_ASSERT_EQUAL(nt.npmtu, 1);
	nt_destroy(net);
}

static void
test_send_udp_bytes(void)
{
	struct sst_net *net = nt_create();
	struct sst_net_endpoint from = nt_ep("0.0.0.0", 4000), to = nt_ep("192.0.2.2", 5000);
	struct sst_net_endpoint from_ours = nt_ep("192.0.2.1", 4000);
	struct rte_mbuf *m = nt_payload("payload!"), *shared;
	uint8_t buf[2048];
	const uint8_t *p;

	nt_rx_hex(net, ARP_REQ, 0); /* learn the peer (and answer it: frame 0) */
	CU_ASSERT_EQUAL(sst_net_send_udp(net, m, &from, &to, 0), 0);
	sst_net_flush(net, 0);
	CU_ASSERT_EQUAL(nt.ntx, 2);
	CU_ASSERT_PTR_EQUAL(nt.tx[1], m); /* headers in the headroom */
	CU_ASSERT(nt_tx_is(1, UDP4_OUT_EXPECTED));
	CU_ASSERT_EQUAL(nt.tx[1]->ol_flags & RTE_MBUF_F_TX_IP_CKSUM, 0);

	/* A shared payload keeps its headroom: a header mbuf goes in front. */
	shared = nt_payload("payload!");
	rte_mbuf_refcnt_update(shared, 1);
	CU_ASSERT_EQUAL(sst_net_send_udp(net, shared, &from_ours, &to, 0), 0);
	sst_net_flush(net, 0);
	CU_ASSERT_EQUAL(nt.ntx, 3);
	CU_ASSERT_EQUAL(nt.tx[2]->nb_segs, 2);
	CU_ASSERT_PTR_EQUAL(nt.tx[2]->next, shared);
	CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(nt.tx[2]), 50);
	p = rte_pktmbuf_read(nt.tx[2], 0, 50, buf);
	CU_ASSERT_EQUAL(ref_cksum(p + 14, 20), 0);
	CU_ASSERT_EQUAL(p[20] & 0x40, 0x40); /* DF */
	{
		uint8_t ph[12 + 16];

		memcpy(ph, p + 26, 8);
		ph[8] = 0;
		ph[9] = 17;
		ph[10] = 0;
		ph[11] = 16;
		memcpy(ph + 12, p + 34, 16);
		CU_ASSERT_EQUAL(ref_cksum(ph, sizeof(ph)), 0);
	}
	rte_pktmbuf_free(shared); /* our extra reference */
	nt_destroy(net);
}

static void
test_send_udp_offload(void)
{
	struct sst_net_params prm = nt_params();
	struct sst_net *net;
	struct sst_net_endpoint from = nt_ep("0.0.0.0", 4000), to = nt_ep("192.0.2.2", 5000);
	struct rte_mbuf *m;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *uh;

	prm.tx_cksum_offload = true;
	net = nt_create_with(&prm);
	nt_rx_hex(net, ARP_REQ, 0);
	CU_ASSERT_EQUAL(sst_net_send_udp(net, nt_payload("payload!"), &from, &to, 0), 0);
	sst_net_flush(net, 0);
	CU_ASSERT_EQUAL_FATAL(nt.ntx, 2);
	m = nt.tx[1];
	CU_ASSERT_EQUAL(m->ol_flags & (RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM |
					      RTE_MBUF_F_TX_UDP_CKSUM),
		RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_UDP_CKSUM);
	CU_ASSERT_EQUAL(m->l2_len, 14);
	CU_ASSERT_EQUAL(m->l3_len, 20);
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14);
	uh = (struct rte_udp_hdr *)(ip + 1);
	CU_ASSERT_EQUAL(ip->hdr_checksum, 0);
	CU_ASSERT_EQUAL(uh->dgram_cksum, rte_ipv4_phdr_cksum(ip, 0));
	nt_destroy(net);
}

/* len bytes of a pattern whose 16-bit words sum well past 0xffff. */
static struct rte_mbuf *
pattern_mbuf(size_t len, uint8_t seed)
{
	uint8_t b[512];

	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)(0xf0 + seed + i);
	return nt_mbuf(b, len);
}

static void
test_cksum_chained_odd(void)
{
	/* A chain of 13, 1, 200 and 9 bytes: the second and fourth segments
	 * start at odd offsets, where DPDK 22.11's rte_raw_cksum_mbuf() drops
	 * the carries of their sums. Every range must sum like a flat copy. */
	static const uint16_t lens[] = {13, 1, 200, 9};
	struct rte_mbuf *m = NULL;
	uint8_t flat[512];
	uint32_t total = 0;

	for (unsigned int i = 0; i < RTE_DIM(lens); i++) {
		struct rte_mbuf *seg = pattern_mbuf(lens[i], (uint8_t)i);

		memcpy(flat + total, rte_pktmbuf_mtod(seg, void *), lens[i]);
		total += lens[i];
		if (m == NULL)
			m = seg;
		else
			CU_ASSERT_FATAL(rte_pktmbuf_chain(m, seg) == 0);
	}
	for (uint32_t off = 0; off <= total; off += 3)
		for (uint32_t len = 0; off + len <= total; len += 7) {
			uint16_t ck = 0;

			CU_ASSERT_EQUAL_FATAL(sst_net_cksum_mbuf(m, off, len, &ck), 0);
			CU_ASSERT_EQUAL_FATAL(ck, rte_raw_cksum(flat + off, len));
		}
	CU_ASSERT_EQUAL(sst_net_cksum_mbuf(m, 1, total, NULL), -EINVAL);
	rte_pktmbuf_free(m);
}

/* The n-byte IPv4/UDP frame p as its receiver would answer it: MAC
 * addresses, IPv4 addresses and UDP ports swapped, which no checksum sees. */
static void
swap_frame(const uint8_t *p, uint8_t *out, uint32_t n)
{
	memcpy(out, p, n);
	memcpy(out, p + 6, 6);
	memcpy(out + 6, p, 6);
	memcpy(out + 26, p + 30, 4);
	memcpy(out + 30, p + 26, 4);
	memcpy(out + 34, p + 36, 2);
	memcpy(out + 36, p + 34, 2);
}

/*
 * A port whose frames stay in the process (in_process: a net_ring pair):
 * the IPv4 header checksum is right, the UDP checksum is left out (0), no
 * offload flag is set, and such a frame is accepted by a receiver that
 * checks checksums in software.
 */
static void
test_send_udp_in_process(void)
{
	struct sst_net_params prm = nt_params();
	struct sst_net_endpoint from = nt_ep("192.0.2.1", 4000), to = nt_ep("192.0.2.2", 5000);
	uint8_t buf[2048], back[2048];
	struct sst_net *net;
	struct rte_mbuf *rx;
	const uint8_t *p;
	uint32_t n;

	prm.in_process = true;
	net = nt_create_with(&prm);
	nt_rx_hex(net, ARP_REQ, 0);
	CU_ASSERT_EQUAL(sst_net_send_udp(net, pattern_mbuf(300, 3), &from, &to, 0), 0);
	sst_net_flush(net, 0);
	CU_ASSERT_EQUAL_FATAL(nt.ntx, 2);
	CU_ASSERT_EQUAL(nt.tx[1]->ol_flags & (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_UDP_CKSUM), 0);
	n = rte_pktmbuf_pkt_len(nt.tx[1]);
	CU_ASSERT_EQUAL_FATAL(n, 14 + 20 + 8 + 300);
	p = rte_pktmbuf_read(nt.tx[1], 0, n, buf);
	CU_ASSERT_EQUAL(ref_cksum(p + 14, 20), 0);
	CU_ASSERT(p[40] == 0 && p[41] == 0); /* UDP checksum: none */
	swap_frame(p, back, n);
	nt_destroy(net);

	/* Received by an ordinary port: accepted, delivered. */
	net = nt_create();
	rx = nt_mbuf(back, n);
	CU_ASSERT_EQUAL(sst_net_rx_burst(net, &rx, 1, 0), 1);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_udp_cksum, 0);
	CU_ASSERT_EQUAL(nt.nrx, 1);
	nt_destroy(net);
}

/*
 * A datagram whose payload is a chain with an odd-length first segment (a
 * stream segment made of two writes) leaves with a right UDP checksum, and
 * such a frame received is accepted.
 */
static void
test_send_udp_chained_odd(void)
{
	struct sst_net *net = nt_create();
	struct sst_net_endpoint from = nt_ep("192.0.2.1", 4000), to = nt_ep("192.0.2.2", 5000);
	struct rte_mbuf *m = pattern_mbuf(113, 0), *tail = pattern_mbuf(400, 7), *rx;
	uint8_t buf[2048], ph[2048];
	const uint8_t *p;
	uint32_t n;

	CU_ASSERT_FATAL(rte_pktmbuf_chain(m, tail) == 0);
	nt_rx_hex(net, ARP_REQ, 0);
	CU_ASSERT_EQUAL(sst_net_send_udp(net, m, &from, &to, 0), 0);
	sst_net_flush(net, 0);
	CU_ASSERT_EQUAL_FATAL(nt.ntx, 2);
	n = rte_pktmbuf_pkt_len(nt.tx[1]);
	CU_ASSERT_EQUAL_FATAL(n, 14 + 20 + 8 + 513);
	p = rte_pktmbuf_read(nt.tx[1], 0, n, buf);
	memcpy(ph, p + 26, 8);
	ph[8] = 0;
	ph[9] = 17;
	nt_put16(ph + 10, 8 + 513);
	memcpy(ph + 12, p + 34, 8 + 513);
	CU_ASSERT_EQUAL(ref_cksum(ph, 12 + 8 + 513), 0);

	/* The same frame coming back in two segments, the second at an odd
	 * offset. */
	swap_frame(p, ph, n);
	rx = nt_mbuf(ph, 14 + 20 + 8 + 113);
	CU_ASSERT_FATAL(rte_pktmbuf_chain(rx, nt_mbuf(ph + 14 + 20 + 8 + 113, 400)) == 0);
	CU_ASSERT_EQUAL(sst_net_rx_burst(net, &rx, 1, 0), 1);
	CU_ASSERT_EQUAL(sst_net_stats(net)->rx_udp_cksum, 0);
	CU_ASSERT_EQUAL(nt.nrx, 1);
	nt_destroy(net);
}

static void
test_burst_mixed(void)
{
	struct sst_net *net = nt_create();
	struct rte_mbuf *pkts[SST_MAX_BURST];
	uint8_t u[2048], e[2048], a[2048];
	size_t nu = nt_frame(UDP4, u), ne = nt_frame(ECHO_REQ, e), na = nt_frame(ARP_REQ, a);

	for (unsigned int i = 0; i < SST_MAX_BURST; i++)
		pkts[i] = i % 3 == 0   ? nt_mbuf(u, nu)
			  : i % 3 == 1 ? nt_mbuf(e, ne)
				       : nt_mbuf(a, na);
	CU_ASSERT_EQUAL(sst_net_rx_burst(net, pkts, SST_MAX_BURST, 0), 11);
	CU_ASSERT_EQUAL(nt.nrx, 11);
	CU_ASSERT_EQUAL(nt.ntx, 21);
	CU_ASSERT_EQUAL(nt.ntransmit_calls, 1);
	nt_destroy(net);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_cksum_vectors),
	SST_TEST(test_udp_delivered_zero_copy),
	SST_TEST(test_udp_bad),
	SST_TEST(test_ip4_bad_headers),
	SST_TEST(test_icmp_echo),
	SST_TEST(test_icmp_frag_needed),
	SST_TEST(test_send_udp_bytes),
	SST_TEST(test_send_udp_offload),
	SST_TEST(test_cksum_chained_odd),
	SST_TEST(test_send_udp_chained_odd),
	SST_TEST(test_send_udp_in_process),
	SST_TEST(test_burst_mixed),
	SST_TEST_END,
};

NT_MAIN("test_net_ipv4", cases)
