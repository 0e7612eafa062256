/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the ethdev link driver, the port setup and the net_ring pair:
 * two ports of two queues wired back to back are set up, a link is opened
 * on each (port, queue), frames cross both ways byte for byte and only
 * between the queues of the same number, a full ring drops and counts
 * without keeping an mbuf, bad ports, queues and configurations are refused
 * with their error, and after stopping and freeing the pair every mbuf is
 * back in its pool. The cases run in order and share the pair.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "sst_ethdev.h"
#include "sst_link.h"
#include "sst_test.h"
#include "sst_test_eal.h"
#include "sst_test_mbuf.h"

enum {
	NQ = 2,
	POOL_SIZE = 8191,
	RX_POOL_SIZE = 1023,
};

static struct rte_mempool *pool;	 /* frames we send */
static struct rte_mempool *rx_pools[NQ]; /* what the queues would receive into */
static uint16_t port_a, port_b;
static struct sst_link *links[2][NQ]; /* [side][queue] */

static struct sst_link *
open_link(uint16_t port_id, uint16_t queue_id)
{
	struct sst_ethdev_link_conf ec = {.port_id = port_id, .queue_id = queue_id};
	struct sst_link_conf conf = {
		.size = sizeof(conf), .driver = "ethdev", .pool = pool, .driver_conf = &ec};

	return sst_link_open(&conf);
}

static uint32_t
frame_len(uint32_t seed)
{
	return 60 + seed * 37 % 1455;
}

static struct rte_mbuf *
frame(uint32_t seed)
{
	uint32_t len = frame_len(seed);
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
frame_ok(const struct rte_mbuf *m, uint32_t seed)
{
	uint32_t len = frame_len(seed);
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

static void
test_setup(void)
{
	struct sst_ethdev_port_conf conf = {
		.size = sizeof(conf), .nb_queues = NQ, .pools = rx_pools, .promiscuous = true};
	struct sst_ethdev_port_info info;

	CU_ASSERT_EQUAL_FATAL(sst_ethdev_ring_pair("eth_t", NQ, &port_a, &port_b), 0);
	CU_ASSERT_NOT_EQUAL(port_a, port_b);
	CU_ASSERT_EQUAL(sst_ethdev_ring_pair("eth_t", NQ, &port_a, &port_b), -EEXIST);
	CU_ASSERT_EQUAL_FATAL(sst_ethdev_port_setup(port_a, &conf, &info), 0);
	CU_ASSERT_STRING_EQUAL(info.err, "");
	CU_ASSERT_STRING_EQUAL(info.driver_name, "net_ring");
	CU_ASSERT_EQUAL(info.max_rx_queues, NQ);
	CU_ASSERT_EQUAL(info.max_tx_queues, NQ);
	CU_ASSERT_FALSE(info.rss); /* net_ring has none: the engine dispatches */
	CU_ASSERT_FALSE(info.tx_cksum_offload);
	CU_ASSERT(info.nb_rx_desc > 0 && info.nb_tx_desc > 0);
	CU_ASSERT_EQUAL(info.mtu, 1500);
	conf.mtu = 1400;
	CU_ASSERT_EQUAL_FATAL(sst_ethdev_port_setup(port_b, &conf, NULL), 0);
	CU_ASSERT_EQUAL(rte_eth_dev_get_mtu(port_b, &(uint16_t){0}), 0);
	for (uint16_t q = 0; q < NQ; q++) {
		links[0][q] = open_link(port_a, q);
		links[1][q] = open_link(port_b, q);
		CU_ASSERT_FATAL(links[0][q] != NULL && links[1][q] != NULL);
		CU_ASSERT_EQUAL(sst_link_kind(links[0][q]), SST_LINK_FRAMES);
		CU_ASSERT_EQUAL(
			sst_link_local(links[0][q], &(struct sst_net_endpoint){0}), -ENOTSUP);
		/* A DPDK port's queue is polled: nothing to block on. */
		CU_ASSERT_EQUAL(sst_link_wait_fd(links[0][q]), -ENOTSUP);
	}
}

/* Receive until want frames arrived (the ring delivers at once). */
static uint16_t
receive(struct sst_link *l, struct rte_mbuf **pkts, uint16_t want)
{
	uint16_t got = 0;

	for (int spin = 0; got < want && spin < 1000; spin++)
		got += sst_link_rx_burst(l, pkts + got, NULL, (uint16_t)(want - got));
	return got;
}

/* Frames from side `from` queue q reach the other side's queue q only. */
static void
exchange(int from, uint16_t q, uint32_t rounds)
{
	struct sst_link *tx = links[from][q], *rx = links[!from][q];
	struct rte_mbuf *pkts[32];
	uint64_t tx_bytes = sst_link_stats(tx)->tx_bytes, rx_bytes = sst_link_stats(rx)->rx_bytes;
	uint64_t bytes = 0;

	for (uint32_t round = 0; round < rounds; round++) {
		uint32_t seed0 = (uint32_t)(from * 100000 + q * 10000 + round * 32);

		for (uint32_t i = 0; i < 32; i++) {
			pkts[i] = frame(seed0 + i);
			bytes += frame_len(seed0 + i);
		}
		CU_ASSERT_EQUAL(sst_link_tx_burst(tx, pkts, NULL, 32), 32);
		/* No other queue of either side sees them. */
		for (uint16_t other = 0; other < NQ; other++) {
			if (other != q)
				CU_ASSERT_EQUAL(
					sst_link_rx_burst(links[!from][other], pkts, NULL, 32), 0);
			CU_ASSERT_EQUAL(sst_link_rx_burst(links[from][other], pkts, NULL, 32), 0);
		}
		CU_ASSERT_EQUAL_FATAL(receive(rx, pkts, 32), 32);
		for (uint32_t i = 0; i < 32; i++)
			CU_ASSERT(frame_ok(pkts[i], seed0 + i));
		rte_pktmbuf_free_bulk(pkts, 32);
	}
	CU_ASSERT_EQUAL(sst_link_stats(tx)->tx_bytes - tx_bytes, bytes);
	CU_ASSERT_EQUAL(sst_link_stats(rx)->rx_bytes - rx_bytes, bytes);
}

static void
test_exchange(void)
{
	unsigned int avail = rte_mempool_avail_count(pool);

	for (uint16_t q = 0; q < NQ; q++) {
		exchange(0, q, 20);
		exchange(1, q, 20);
	}
	for (uint16_t q = 0; q < NQ; q++)
		for (int side = 0; side < 2; side++) {
			const struct sst_link_stats *s = sst_link_stats(links[side][q]);

			CU_ASSERT_EQUAL(s->tx_packets, 640);
			CU_ASSERT_EQUAL(s->rx_packets, 640);
			CU_ASSERT_EQUAL(s->tx_full + s->tx_errors + s->rx_nombuf, 0);
		}
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), avail);
}

/* A ring of SST_ETHDEV_RING_SIZE frames nobody reads: the rest of the
 * burst that does not fit is dropped and counted, and freed. */
static void
test_ring_full(void)
{
	struct sst_link *tx = links[0][1], *rx = links[1][1];
	struct rte_mbuf *pkts[32];
	unsigned int avail = rte_mempool_avail_count(pool);
	uint64_t full = sst_link_stats(tx)->tx_full, sent = sst_link_stats(tx)->tx_packets;
	uint32_t total = 0, accepted = 0, drained = 0;
	uint16_t got;

	while (total < SST_ETHDEV_RING_SIZE + 64) {
		for (uint32_t i = 0; i < 32; i++)
			pkts[i] = frame(total + i);
		accepted += sst_link_tx_burst(tx, pkts, NULL, 32);
		total += 32;
	}
	CU_ASSERT_EQUAL(accepted, SST_ETHDEV_RING_SIZE);
	CU_ASSERT_EQUAL(sst_link_stats(tx)->tx_packets - sent, SST_ETHDEV_RING_SIZE);
	CU_ASSERT_EQUAL(sst_link_stats(tx)->tx_full - full, total - SST_ETHDEV_RING_SIZE);
	/* Only the frames in the ring are out of the pool. */
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), avail - SST_ETHDEV_RING_SIZE);
	while ((got = sst_link_rx_burst(rx, pkts, NULL, 32)) > 0) {
		for (uint16_t i = 0; i < got; i++)
			CU_ASSERT(frame_ok(pkts[i], drained + i));
		drained += got;
		rte_pktmbuf_free_bulk(pkts, got);
	}
	CU_ASSERT_EQUAL(drained, SST_ETHDEV_RING_SIZE);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), avail);
}

static void
test_bad_config(void)
{
	struct sst_ethdev_link_conf ec = {.port_id = port_a, .queue_id = NQ};
	struct sst_link_conf conf = {
		.size = sizeof(conf), .driver = "ethdev", .pool = pool, .driver_conf = &ec};
	struct rte_mempool *three[3] = {rx_pools[0], rx_pools[1], rx_pools[0]};
	struct rte_mempool *holey[NQ] = {rx_pools[0], NULL};
	struct sst_ethdev_port_conf pc = {.size = sizeof(pc), .nb_queues = 3, .pools = three};
	struct sst_ethdev_port_info info;
	uint16_t p, p2;

	CU_ASSERT_PTR_NULL(sst_link_open(&conf)); /* no queue NQ */
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	ec.port_id = RTE_MAX_ETHPORTS - 1;
	ec.queue_id = 0;
	CU_ASSERT_PTR_NULL(sst_link_open(&conf));
	CU_ASSERT_EQUAL(rte_errno, ENODEV);
	conf.driver_conf = NULL;
	CU_ASSERT_PTR_NULL(sst_link_open(&conf));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);

	CU_ASSERT_EQUAL(sst_ethdev_port_setup(RTE_MAX_ETHPORTS - 1, &pc, &info), -ENODEV);
	CU_ASSERT(strstr(info.err, "no such port") != NULL);
	CU_ASSERT_EQUAL(sst_ethdev_port_setup(port_a, &pc, &info), -EINVAL); /* 3 queues */
	CU_ASSERT(strstr(info.err, "3 queues") != NULL);
	pc.nb_queues = NQ;
	pc.pools = holey;
	CU_ASSERT_EQUAL(sst_ethdev_port_setup(port_a, &pc, &info), -EINVAL);
	CU_ASSERT(strstr(info.err, "no mempool for queue 1") != NULL);
	pc.size = 0;
	CU_ASSERT_EQUAL(sst_ethdev_port_setup(port_a, &pc, &info), -EINVAL);
	CU_ASSERT_EQUAL(sst_ethdev_port_stop(RTE_MAX_ETHPORTS - 1), -ENODEV);

	CU_ASSERT_EQUAL(sst_ethdev_ring_pair("x", 0, &p, &p2), -EINVAL);
	CU_ASSERT_EQUAL(
		sst_ethdev_ring_pair("x", SST_ETHDEV_RING_QUEUES_MAX + 1, &p, &p2), -EINVAL);
	CU_ASSERT_EQUAL(sst_ethdev_ring_pair("a_name_that_is_too_long", 1, &p, &p2), -ENAMETOOLONG);
	CU_ASSERT_EQUAL(sst_ethdev_ring_pair_free("nonesuch", 1), -ENOENT);
	/* A pair set up and freed without ever being stopped. */
	CU_ASSERT_EQUAL_FATAL(sst_ethdev_ring_pair("eth_u", 1, &p, &p2), 0);
	CU_ASSERT_EQUAL(sst_ethdev_ring_pair_free("eth_u", 1), 0);
	CU_ASSERT_FALSE(rte_eth_dev_is_valid_port(p));
	CU_ASSERT_FALSE(rte_eth_dev_is_valid_port(p2));
}

static void
test_stop(void)
{
	for (uint16_t q = 0; q < NQ; q++) {
		sst_link_close(links[0][q]);
		sst_link_close(links[1][q]);
	}
	CU_ASSERT_EQUAL(sst_ethdev_port_stop(port_a), 0);
	CU_ASSERT_EQUAL(sst_ethdev_port_stop(port_b), 0);
	CU_ASSERT_FALSE(rte_eth_dev_is_valid_port(port_a));
	CU_ASSERT_FALSE(rte_eth_dev_is_valid_port(port_b));
	CU_ASSERT_EQUAL(sst_ethdev_ring_pair_free("eth_t", NQ), 0);
	CU_ASSERT_PTR_NULL(rte_ring_lookup("eth_t_ab0"));
	CU_ASSERT_PTR_NULL(rte_ring_lookup("eth_t_ba1"));
	/* The name is free again. */
	CU_ASSERT_EQUAL(sst_ethdev_ring_pair("eth_t", NQ, &port_a, &port_b), 0);
	CU_ASSERT_EQUAL(sst_ethdev_ring_pair_free("eth_t", NQ), 0);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), POOL_SIZE);
	for (uint16_t q = 0; q < NQ; q++)
		CU_ASSERT_EQUAL(rte_mempool_avail_count(rx_pools[q]), RX_POOL_SIZE);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_setup),
	SST_TEST(test_exchange),
	SST_TEST(test_ring_full),
	SST_TEST(test_bad_config),
	SST_TEST(test_stop),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_link_ethdev") < 0)
		return 1;
	pool = sst_test_pool("ethdev_pool", POOL_SIZE, 2048);
	rx_pools[0] = sst_test_pool("ethdev_rx0", RX_POOL_SIZE, 2048);
	rx_pools[1] = sst_test_pool("ethdev_rx1", RX_POOL_SIZE, 2048);
	if (pool == NULL || rx_pools[0] == NULL || rx_pools[1] == NULL)
		return 1;
	return sst_test_run("link_ethdev", cases);
}
