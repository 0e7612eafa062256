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

#endif /* SST_TEST_EAL_H */
