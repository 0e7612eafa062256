/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the link registry and the udpsock driver over the loopback
 * interface: two links exchange bursts of datagrams (IPv4 and IPv6) with
 * the right bytes and endpoints, chained mbufs go out as one datagram, an
 * empty queue gives 0, a datagram larger than an mbuf is counted as
 * truncated, bad configurations and destinations are refused and counted,
 * and every mbuf is back in its pool at the end.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_mbuf.h>

#include "sst_link.h"
#include "sst_test.h"
#include "sst_test_eal.h"
#include "sst_test_mbuf.h"

static struct rte_mempool *pool;

static struct sst_link *
open_link(uint8_t family)
{
	struct sst_link_conf conf = {.size = sizeof(conf), .driver = "udpsock", .pool = pool};

	conf.local.addr.family = family;
	if (family == SST_NET_IPV4) {
		conf.local.addr.bytes[0] = 127;
		conf.local.addr.bytes[3] = 1;
	} else {
		conf.local.addr.bytes[15] = 1; /* ::1 */
	}
	return sst_link_open(&conf);
}

static struct rte_mbuf *
datagram(uint32_t seed, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p;

	CU_ASSERT_FATAL(m != NULL);
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	CU_ASSERT_FATAL(p != NULL);
	for (uint32_t i = 0; i < len; i++)
		p[i] = sst_test_pattern(seed * 7919u + i);
	return m;
}

static bool
datagram_ok(const struct rte_mbuf *m, uint32_t seed, uint32_t len)
{
	uint8_t buf[2048];
	const uint8_t *p;

	if (rte_pktmbuf_pkt_len(m) != len)
		return false;
	p = rte_pktmbuf_read(m, 0, len, buf);
	for (uint32_t i = 0; i < len; i++)
		if (p[i] != sst_test_pattern(seed * 7919u + i))
			return false;
	return true;
}

/* Receive until want packets arrived or a second passed. */
static uint16_t
receive(struct sst_link *l, struct rte_mbuf **pkts, struct sst_net_endpoint *from, uint16_t want)
{
	uint16_t got = 0;

	for (int spin = 0; got < want && spin < 100000; spin++) {
		got += sst_link_rx_burst(l, pkts + got, from + got, (uint16_t)(want - got));
		if (got < want)
			usleep(10);
	}
	return got;
}

static void
exchange(uint8_t family)
{
	struct sst_link *a = open_link(family), *b = open_link(family);
	struct sst_net_endpoint ea, eb, to[32], from[32];
	struct rte_mbuf *pkts[32];
	unsigned int avail = rte_mempool_avail_count(pool);

	CU_ASSERT_FATAL(a != NULL && b != NULL);
	CU_ASSERT_EQUAL(sst_link_kind(a), SST_LINK_DATAGRAMS);
	CU_ASSERT_EQUAL(sst_link_local(a, &ea), 0);
	CU_ASSERT_EQUAL(sst_link_local(b, &eb), 0);
	CU_ASSERT(ea.port != 0 && eb.port != 0 && ea.port != eb.port);
	CU_ASSERT_EQUAL(sst_link_rx_burst(b, pkts, from, 32), 0); /* nothing yet */
	for (uint32_t round = 0; round < 20; round++) {
		for (uint32_t i = 0; i < 32; i++) {
			pkts[i] = datagram(round * 32 + i, 1 + (round * 32 + i) * 37 % 1400);
			to[i] = eb;
		}
		CU_ASSERT_EQUAL(sst_link_tx_burst(a, pkts, to, 32), 32);
		CU_ASSERT_EQUAL_FATAL(receive(b, pkts, from, 32), 32);
		for (uint32_t i = 0; i < 32; i++) {
			CU_ASSERT(datagram_ok(
				pkts[i], round * 32 + i, 1 + (round * 32 + i) * 37 % 1400));
			CU_ASSERT_EQUAL(from[i].port, ea.port);
			CU_ASSERT_EQUAL(from[i].addr.family, family);
			CU_ASSERT_EQUAL(memcmp(from[i].addr.bytes, ea.addr.bytes, 16), 0);
		}
		rte_pktmbuf_free_bulk(pkts, 32);
	}
	CU_ASSERT_EQUAL(sst_link_stats(a)->tx_packets, 640);
	CU_ASSERT_EQUAL(sst_link_stats(b)->rx_packets, 640);
	CU_ASSERT_EQUAL(sst_link_stats(a)->tx_bytes, sst_link_stats(b)->rx_bytes);
	sst_link_close(a);
	sst_link_close(b);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), avail);
}

static void
test_ipv4(void)
{
	exchange(SST_NET_IPV4);
}

static void
test_ipv6(void)
{
	exchange(SST_NET_IPV6);
}

/* The socket to block on polls readable exactly while a datagram waits. */
static void
test_wait_fd(void)
{
	struct sst_link *a = open_link(SST_NET_IPV4), *b = open_link(SST_NET_IPV4);
	struct sst_net_endpoint eb, from;
	struct rte_mbuf *m;
	struct pollfd pfd = {.events = POLLIN};

	CU_ASSERT_FATAL(a != NULL && b != NULL);
	pfd.fd = sst_link_wait_fd(b);
	CU_ASSERT_FATAL(pfd.fd >= 0);
	CU_ASSERT_EQUAL(poll(&pfd, 1, 0), 0);
	CU_ASSERT_EQUAL(sst_link_local(b, &eb), 0);
	m = datagram(1, 100);
	CU_ASSERT_EQUAL(sst_link_tx_burst(a, &m, &eb, 1), 1);
	/* Up to a minute: the loopback delivers at once, a loaded host later. */
	CU_ASSERT_EQUAL(poll(&pfd, 1, 60000), 1);
	CU_ASSERT(pfd.revents & POLLIN);
	CU_ASSERT_EQUAL(sst_link_rx_burst(b, &m, &from, 1), 1);
	rte_pktmbuf_free(m);
	CU_ASSERT_EQUAL(poll(&pfd, 1, 0), 0);
	sst_link_close(a);
	sst_link_close(b);
}

/* A chain goes out as one datagram; an oversized datagram is truncated
 * at the receiver and dropped; bad destinations are counted. */
static void
test_chains_and_errors(void)
{
	struct sst_link *a = open_link(SST_NET_IPV4), *b = open_link(SST_NET_IPV4);
	struct sst_net_endpoint eb, v6 = {.addr = {.family = SST_NET_IPV6}, .port = 1}, from[4];
	struct rte_mbuf *pkts[4], *m;
	unsigned int avail = rte_mempool_avail_count(pool);

	CU_ASSERT_FATAL(a != NULL && b != NULL);
	sst_link_local(b, &eb);
	m = sst_test_pattern_chain(pool, 2048, 0, 3000, 3);
	CU_ASSERT_FATAL(m != NULL && m->nb_segs == 3);
	/* 3000 bytes fit no single mbuf of the receiver: truncated, dropped. */
	CU_ASSERT_EQUAL(sst_link_tx_burst(a, &m, &eb, 1), 1);
	m = sst_test_pattern_chain(pool, 2048, 0, 1500, 3);
	CU_ASSERT_EQUAL(sst_link_tx_burst(a, &m, &eb, 1), 1);
	CU_ASSERT_EQUAL_FATAL(receive(b, pkts, from, 1), 1);
	CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(pkts[0]), 1500);
	{
		uint8_t buf[1500];
		const uint8_t *p = rte_pktmbuf_read(pkts[0], 0, 1500, buf);
		bool same = true;

		for (int i = 0; i < 1500; i++)
			same = same && p[i] == sst_test_pattern((uint64_t)i);
		CU_ASSERT_TRUE(same);
	}
	rte_pktmbuf_free(pkts[0]);
	CU_ASSERT_EQUAL(sst_link_stats(b)->rx_truncated, 1);
	/* An IPv6 destination on an IPv4 link. */
	m = datagram(1, 10);
	CU_ASSERT_EQUAL(sst_link_tx_burst(a, &m, &v6, 1), 0);
	CU_ASSERT_EQUAL(sst_link_stats(a)->tx_errors, 1);
	sst_link_close(a);
	sst_link_close(b);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), avail);
}

static void
test_bad_config(void)
{
	struct sst_link_conf conf = {.size = sizeof(conf), .driver = "udpsock", .pool = pool};
	struct sst_link *a, *b;
	struct sst_net_endpoint ea;

	CU_ASSERT_PTR_NULL(sst_link_open(&conf)); /* no address family */
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	conf.driver = "nonesuch";
	CU_ASSERT_PTR_NULL(sst_link_open(&conf));
	CU_ASSERT_EQUAL(rte_errno, ENOENT);
	CU_ASSERT_PTR_NULL(sst_link_find("nonesuch"));
	CU_ASSERT_PTR_NOT_NULL(sst_link_find("udpsock"));
	/* The same port twice: the system's error. */
	a = open_link(SST_NET_IPV4);
	CU_ASSERT_FATAL(a != NULL);
	sst_link_local(a, &ea);
	conf.driver = "udpsock";
	conf.local = ea;
	b = sst_link_open(&conf);
	CU_ASSERT_PTR_NULL(b);
	CU_ASSERT_EQUAL(rte_errno, EADDRINUSE);
	sst_link_close(a);
	sst_link_close(NULL);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_ipv4),
	SST_TEST(test_ipv6),
	SST_TEST(test_chains_and_errors),
	SST_TEST(test_wait_fd),
	SST_TEST(test_bad_config),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_link_udpsock") < 0)
		return 1;
	pool = sst_test_pool("udpsock_pool", 4095, 2048 + RTE_PKTMBUF_HEADROOM);
	if (pool == NULL)
		return 1;
	return sst_test_run("link_udpsock", cases);
}
