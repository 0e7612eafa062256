/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A kernel UDP link (driver udpsock) on 127.0.0.1 and a port the kernel
 * picks, for engine tests that run workers over the loopback interface.
 */
#ifndef SST_TEST_UDP_H
#define SST_TEST_UDP_H

#include <rte_mempool.h>

#include "sst_link.h"

/** A udpsock link on 127.0.0.1:0 receiving into @p pool; NULL with
 * rte_errno set (sst_link_open()). */
static inline struct sst_link *
sst_test_udp_link(struct rte_mempool *pool)
{
	struct sst_link_conf lc = {.size = sizeof(lc), .driver = "udpsock", .pool = pool};

	lc.local.addr.family = SST_NET_IPV4;
	lc.local.addr.bytes[0] = 127;
	lc.local.addr.bytes[3] = 1;
	return sst_link_open(&lc);
}

#endif /* SST_TEST_UDP_H */
