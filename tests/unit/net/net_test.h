/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared fixture of the net unit tests: an sst_net with a fixed static
 * configuration, callbacks that record what the layer delivers, transmits
 * and reports, and helpers to turn hand-written hex frames into mbufs and
 * compare transmitted frames with expected bytes.
 *
 *   us:   02:00:00:00:00:01  192.0.2.1/24 (gateway 192.0.2.254)
 *         2001:db8::1/64, link-local fe80::ff:fe00:1 (derived from the MAC)
 *   peer: 02:00:00:00:00:02  192.0.2.2, 2001:db8::2
 */
#ifndef NET_TEST_H
#define NET_TEST_H

#include <stdio.h>
#include <string.h>

#include <rte_mbuf.h>

#include "sst_net.h"
#include "sst_test.h"
#include "sst_test_eal.h"

enum { NT_MAX = 256 };

struct nt_capture {
	struct rte_mbuf *rx[NT_MAX]; /* delivered UDP payloads */
	struct sst_net_endpoint from[NT_MAX], to[NT_MAX];
	unsigned int nrx;
	struct rte_mbuf *tx[NT_MAX]; /* transmitted frames */
	unsigned int ntx, ntransmit_calls;
	struct sst_net_endpoint pmtu_local, pmtu_remote;
	uint32_t pmtu;
	unsigned int npmtu;
};

static struct rte_mempool *nt_pool;
static struct nt_capture nt;

static void
nt_deliver(void *ctx, struct rte_mbuf *m, const struct sst_net_endpoint *from,
	const struct sst_net_endpoint *to, sst_time_t now)
{
	(void)ctx;
	(void)now;
	CU_ASSERT_FATAL(nt.nrx < NT_MAX);
	nt.from[nt.nrx] = *from;
	nt.to[nt.nrx] = *to;
	nt.rx[nt.nrx++] = m;
}

static void
nt_transmit(void *ctx, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	(void)ctx;
	(void)now;
	nt.ntransmit_calls++;
	for (uint16_t i = 0; i < n; i++) {
		CU_ASSERT_FATAL(nt.ntx < NT_MAX);
		nt.tx[nt.ntx++] = pkts[i];
	}
}

static void
nt_pmtu(void *ctx, const struct sst_net_endpoint *local, const struct sst_net_endpoint *remote,
	uint32_t mtu, sst_time_t now)
{
	(void)ctx;
	(void)now;
	nt.pmtu_local = *local;
	nt.pmtu_remote = *remote;
	nt.pmtu = mtu;
	nt.npmtu++;
}

static const struct sst_net_ops nt_ops = {
	.deliver_udp = nt_deliver,
	.transmit = nt_transmit,
	.pmtu = nt_pmtu,
};

static const struct rte_ether_addr nt_mac_us = {{0x02, 0, 0, 0, 0, 0x01}};
static const struct rte_ether_addr nt_mac_peer = {{0x02, 0, 0, 0, 0, 0x02}};

static inline struct sst_net_addr
nt_addr(const char *text)
{
	struct sst_net_addr a;

	CU_ASSERT_FATAL(sst_net_addr_parse(text, &a) == 0);
	return a;
}

static inline struct sst_net_endpoint
nt_ep(const char *text, uint16_t port)
{
	struct sst_net_endpoint e = {.addr = nt_addr(text), .port = port};

	return e;
}

/* The fixture's parameters; tests change fields before nt_create(). */
static inline struct sst_net_params
nt_params(void)
{
	struct sst_net_params p = {
		.size = sizeof(p),
		.mac = nt_mac_us,
		.ipv4 = nt_addr("192.0.2.1"),
		.ipv4_prefix_len = 24,
		.ipv4_gateway = nt_addr("192.0.2.254"),
		.ipv6 = nt_addr("2001:db8::1"),
		.ipv6_prefix_len = 64,
		.ipv6_gateway = nt_addr("fe80::1"),
		.pool = nt_pool,
		.ops = &nt_ops,
		/* The tests count frames; test_arp_announce turns it on. */
		.no_announce = true,
	};

	return p;
}

static inline void
nt_reset(void)
{
	for (unsigned int i = 0; i < nt.nrx; i++)
		rte_pktmbuf_free(nt.rx[i]);
	for (unsigned int i = 0; i < nt.ntx; i++)
		rte_pktmbuf_free(nt.tx[i]);
	memset(&nt, 0, sizeof(nt));
}

static inline struct sst_net *
nt_create_with(const struct sst_net_params *p)
{
	struct sst_net *net;

	nt_reset();
	net = sst_net_create(p);
	CU_ASSERT_FATAL(net != NULL);
	return net;
}

static inline struct sst_net *
nt_create(void)
{
	struct sst_net_params p = nt_params();

	return nt_create_with(&p);
}

/* Destroy, check that every mbuf came back and that the rx counters add up. */
static inline void
nt_destroy(struct sst_net *net)
{
	const struct sst_net_stats *s = sst_net_stats(net);

	CU_ASSERT_EQUAL(sst_net_stats_rx_sum(s), s->rx_frames);
	sst_net_destroy(net);
	nt_reset();
	CU_ASSERT_EQUAL(rte_mempool_in_use_count(nt_pool), 0);
}

static inline struct rte_mbuf *
nt_mbuf(const uint8_t *bytes, size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(nt_pool);

	CU_ASSERT_FATAL(m != NULL);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), bytes, len);
	return m;
}

/* Feed one frame given as hex; returns frames delivered. */
static inline uint16_t
nt_rx_hex(struct sst_net *net, const char *hex, sst_time_t now)
{
	uint8_t buf[2048];
	size_t n = sst_test_hex(hex, buf, sizeof(buf));
	struct rte_mbuf *m = nt_mbuf(buf, n);

	return sst_net_rx_burst(net, &m, 1, now);
}

static inline uint16_t
nt_rx_bytes(struct sst_net *net, const uint8_t *buf, size_t n, sst_time_t now)
{
	struct rte_mbuf *m = nt_mbuf(buf, n);

	return sst_net_rx_burst(net, &m, 1, now);
}

/* True when transmitted frame i has exactly the bytes of hex. */
static inline bool
nt_tx_is(unsigned int i, const char *hex)
{
	uint8_t want[2048], got[2048];
	size_t n = sst_test_hex(hex, want, sizeof(want));
	struct rte_mbuf *m;
	const void *p;

	if (i >= nt.ntx)
		return false;
	m = nt.tx[i];
	if (rte_pktmbuf_pkt_len(m) != n) {
		fprintf(stderr, "frame %u: %u bytes, want %zu\n", i, rte_pktmbuf_pkt_len(m), n);
		return false;
	}
	p = rte_pktmbuf_read(m, 0, (uint32_t)n, got);
	if (memcmp(p, want, n) != 0) {
		for (size_t k = 0; k < n; k++)
			if (((const uint8_t *)p)[k] != want[k])
				fprintf(stderr, "frame %u: byte %zu is %02x, want %02x\n", i, k,
					((const uint8_t *)p)[k], want[k]);
		return false;
	}
	return true;
}

/* A hand-written hex frame into buf (2048 bytes). @return its length. */
static inline size_t
nt_frame(const char *hex, uint8_t *buf)
{
	return sst_test_hex(hex, buf, 2048);
}

/* Store v big-endian (network order), to edit header fields of a frame. */
static inline void
nt_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The RFC 1071 sum of p (n bytes) added to s, folded to 16 bits: written
 * out independently of DPDK's and the library's, to check both. */
static inline uint16_t
nt_ref_sum(const uint8_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* True when ep is addr (text) and port; says what differs on stderr. */
static inline bool
nt_ep_is(const struct sst_net_endpoint *ep, const char *addr, uint16_t port)
{
	struct sst_net_addr a = nt_addr(addr);

	if (memcmp(&ep->addr, &a, sizeof(a)) == 0 && ep->port == port)
		return true;
	fprintf(stderr, "endpoint: port %u, want %s port %u\n", ep->port, addr, port);
	return false;
}

/* A payload mbuf holding text (headroom as the pool gives). */
static inline struct rte_mbuf *
nt_payload(const char *text)
{
	return nt_mbuf((const uint8_t *)text, strlen(text));
}

#define NT_MAIN(name, cases)                               \
	int main(void)                                     \
	{                                                  \
		if (sst_test_eal_init(name) < 0)           \
			return 1;                          \
		nt_pool = sst_test_pool(name, 1024, 2048); \
		if (nt_pool == NULL)                       \
			return 1;                          \
		return sst_test_run(name, cases);          \
	}

#endif /* NET_TEST_H */
