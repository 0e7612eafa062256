/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen's latency clock (apps/sst-gen/gen_clock.c): the line from a
 * port's clock to the TSC, the choice between the two, and the stamp of a
 * received mbuf placed on the line. No port here stamps frames (net_ring
 * and net_null do not offer RTE_ETH_RX_OFFLOAD_TIMESTAMP): the port side
 * is checked to fall back to the TSC, and the stamp path with an mbuf
 * stamped by hand.
 */
#include <rte_bus_vdev.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "../../../apps/sst-gen/gen_clock.h"
#include "sst_test.h"
#include "sst_test_eal.h"

static struct rte_mempool *pool;

/* Exact against 128-bit arithmetic: a 1 GHz port clock on a 2.6 GHz TSC,
 * readings 10 ms apart, values on both sides of the first reading. */
static void
test_fit_and_map(void)
{
	struct gen_clock_fit f;
	const uint64_t tsc0 = UINT64_C(5000000000000), nic0 = UINT64_C(123456789);

	CU_ASSERT_EQUAL(gen_clock_fit(&f, tsc0, nic0, tsc0 + 26000000, nic0 + 10000000), 0);
	CU_ASSERT_EQUAL(gen_clock_nic_to_tsc(&f, nic0), tsc0);
	CU_ASSERT_EQUAL(gen_clock_nic_to_tsc(&f, nic0 + 10000000), tsc0 + 26000000);
	CU_ASSERT_EQUAL(gen_clock_nic_to_tsc(&f, nic0 + 1), tsc0 + 2); /* 2.6, down */
	CU_ASSERT_EQUAL(gen_clock_nic_to_tsc(&f, nic0 - 1000), tsc0 - 2600);
	/* An hour later: no overflow of the product. */
	CU_ASSERT_EQUAL(gen_clock_nic_to_tsc(&f, nic0 + UINT64_C(3600000000000)),
		tsc0 + UINT64_C(9360000000000));
	/* Long before the first reading, further back than the TSC's zero:
	 * clamped to 0, not wrapped. */
	CU_ASSERT_EQUAL(gen_clock_fit(&f, 100, 1000, 360, 1100), 0);
	CU_ASSERT_EQUAL(gen_clock_nic_to_tsc(&f, 990), 74);
	CU_ASSERT_EQUAL(gen_clock_nic_to_tsc(&f, 0), 0);
	CU_ASSERT_EQUAL(gen_clock_fit(&f, 1000, 1, 1000, 2), -EINVAL);
	CU_ASSERT_EQUAL(gen_clock_fit(&f, 1000, 5, 2000, 5), -EINVAL);
	CU_ASSERT_EQUAL(gen_clock_fit(&f, 1000, 5, 999, 6), -EINVAL);
	CU_ASSERT_EQUAL(gen_clock_fit(&f, UINT64_C(1) << 40, 0, (UINT64_C(1) << 40) + 3, 1), 0);
	CU_ASSERT_EQUAL(gen_clock_nic_to_tsc(&f, 0) - (UINT64_C(1) << 40), 0);
}

static void
test_choose(void)
{
	const char *why = NULL;

	CU_ASSERT_EQUAL(gen_clock_choose(false, true, true, 0, &why), GEN_CLOCK_TSC);
	CU_ASSERT_PTR_NOT_NULL(why);
	CU_ASSERT_EQUAL(gen_clock_choose(true, false, true, 0, &why), GEN_CLOCK_TSC);
	CU_ASSERT_EQUAL(gen_clock_choose(true, true, false, 0, &why), GEN_CLOCK_TSC);
	CU_ASSERT_EQUAL(gen_clock_choose(true, true, true, -ENOTSUP, &why), GEN_CLOCK_TSC);
	CU_ASSERT_EQUAL(gen_clock_choose(true, true, true, 0, &why), GEN_CLOCK_NIC);
}

/* A port that does not stamp (net_null) and no port at all: the TSC,
 * and no mbuf is read for a stamp. */
static void
test_port_without_stamps(void)
{
	struct rte_eth_conf pc = {0};
	struct gen_clock clk;
	struct rte_mbuf *m;
	uint16_t port;

	CU_ASSERT_FATAL(rte_vdev_init("net_null_genclock", NULL) == 0);
	CU_ASSERT_FATAL(rte_eth_dev_get_port_by_name("net_null_genclock", &port) == 0);
	CU_ASSERT_FATAL(rte_eth_dev_configure(port, 1, 1, &pc) == 0);
	gen_clock_init(&clk, port);
	CU_ASSERT_EQUAL(clk.source, GEN_CLOCK_TSC);
	CU_ASSERT_STRING_EQUAL(gen_clock_name(&clk), "tsc");
	CU_ASSERT_STRING_EQUAL(clk.why, "the port offers no receive timestamps");
	m = rte_pktmbuf_alloc(pool);
	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT_EQUAL(gen_clock_rx_tsc(&clk, m), 0);
	CU_ASSERT_EQUAL(clk.stamped + clk.unstamped, 0);
	gen_clock_init(&clk, UINT16_MAX);
	CU_ASSERT_EQUAL(clk.source, GEN_CLOCK_TSC);
	CU_ASSERT_EQUAL(gen_clock_rx_tsc(&clk, m), 0);
	rte_pktmbuf_free(m);
	rte_eth_dev_close(port);
}

/* The stamp path, with a port's stamp written by hand where a NIC would
 * put it: a stamped mbuf lands on the line, an unstamped one is counted
 * and left to the TSC. */
static void
test_stamped_mbuf(void)
{
	struct gen_clock clk = {.source = GEN_CLOCK_NIC, .refit_tsc = UINT64_MAX};
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT_FATAL(rte_mbuf_dyn_rx_timestamp_register(&clk.dynfield, &clk.dynflag) == 0);
	CU_ASSERT_FATAL(gen_clock_fit(&clk.fit, 1000000, 500, 3000000, 1500) == 0);
	*RTE_MBUF_DYNFIELD(m, clk.dynfield, rte_mbuf_timestamp_t *) = 1000;
	CU_ASSERT_EQUAL(gen_clock_rx_tsc(&clk, m), 0); /* no flag: not stamped */
	CU_ASSERT_EQUAL(clk.unstamped, 1);
	m->ol_flags |= clk.dynflag;
	CU_ASSERT_EQUAL(gen_clock_rx_tsc(&clk, m), 2000000);
	CU_ASSERT_EQUAL(clk.stamped, 1);
	CU_ASSERT_STRING_EQUAL(gen_clock_name(&clk), "nic");
	rte_pktmbuf_free(m);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_fit_and_map),
	SST_TEST(test_choose),
	SST_TEST(test_port_without_stamps),
	SST_TEST(test_stamped_mbuf),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_gen_clock") < 0)
		return 1;
	pool = sst_test_pool("test_gen_clock", 64, 2048);
	if (pool == NULL)
		return 1;
	return sst_test_run("gen_clock", cases);
}
