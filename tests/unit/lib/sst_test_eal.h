/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EAL for tests that need mbufs. Tests never need hugepages or devices: the
 * EAL runs with --no-huge --no-pci, and each test program passes its own
 * file prefix because meson runs test programs in parallel and two EAL
 * processes must not share runtime files.
 */
#ifndef SST_TEST_EAL_H
#define SST_TEST_EAL_H

#include <rte_mempool.h>

/**
 * Start the EAL once for this process (later calls do nothing).
 * @param prefix
 *   A name unique among test programs (e.g. the program name).
 * @return 0, or -1 after printing why.
 */
int sst_test_eal_init(const char *prefix);

/**
 * A packet mbuf pool of n buffers with room for @p data_room bytes of data
 * each (plus RTE_PKTMBUF_HEADROOM); the EAL must be up.
 * @return the pool, or NULL after printing why.
 */
struct rte_mempool *sst_test_pool(const char *name, unsigned int n, uint16_t data_room);

/**
 * An mbuf from @p mp holding @p len bytes, for the caller to fill
 * (rte_pktmbuf_mtod()). No mbuf or no room fails the test at once (a
 * fatal CUnit assertion).
 */
struct rte_mbuf *sst_test_mbuf_of_len(struct rte_mempool *mp, uint32_t len);

struct sst_test_case;

/**
 * main() of a test program whose cases share one packet pool: start the
 * EAL (file prefix @p name), create *pool (@p n mbufs of @p data_room
 * bytes, named @p name), run @p cases as @p suite, and free the pool and
 * the EAL again. @return the program's exit status.
 */
int sst_test_main_with_pool(const char *name, const char *suite, unsigned int n, uint16_t data_room,
	struct rte_mempool **pool, const struct sst_test_case *cases);

#endif /* SST_TEST_EAL_H */
