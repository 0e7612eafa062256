/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "sst_test_eal.h"

int
sst_test_eal_init(const char *prefix)
{
	static bool up;
	char file_prefix[128];
	char *argv[] = {
		(char *)"sst-test",
		(char *)"--no-huge",
		(char *)"--no-pci",
		(char *)"-m",
		(char *)"512",
		(char *)"--no-telemetry",
		(char *)"--log-level=lib.eal:error",
		file_prefix,
		NULL,
	};

	if (up)
		return 0;
	/* The pid keeps two runs of the same test (e.g. two build
	 * configurations at once) apart too. */
	snprintf(
		file_prefix, sizeof(file_prefix), "--file-prefix=sst-%s-%d", prefix, (int)getpid());
	if (rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv) < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	up = true;
	return 0;
}

struct rte_mempool *
sst_test_pool(const char *name, unsigned int n, uint16_t data_room)
{
	struct rte_mempool *mp = rte_pktmbuf_pool_create(
		name, n, 0, 0, (uint16_t)(data_room + RTE_PKTMBUF_HEADROOM), SOCKET_ID_ANY);

	if (mp == NULL)
		fprintf(stderr, "pool %s: %s\n", name, rte_strerror(rte_errno));
	return mp;
}
