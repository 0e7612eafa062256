/* SPDX-License-Identifier: BSD-3-Clause */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "sst_test.h"
#include "sst_test_eal.h"

static char runtime_dir[PATH_MAX];

static void
remove_runtime_dir(void)
{
	if (runtime_dir[0] != '\0')
		rmdir(runtime_dir);
}

int
sst_test_eal_init(const char *prefix)
{
	static bool up;
	char file_prefix[128], memory[16];
	const char *mb = getenv("SST_TEST_EAL_MB"); /* a large run by hand */
	char *argv[] = {
		(char *)"sst-test",
		(char *)"--no-huge",
		(char *)"--no-pci",
		(char *)"-m",
		memory,
		(char *)"--no-telemetry",
		/* No shared config: the EAL keeps its memory maps in
		 * anonymous memory instead of files under /run/dpdk, which
		 * it never removes (one per test run, up to 100 MB each: a
		 * few thousand runs filled a 250 GB disk). */
		(char *)"--no-shconf",
		(char *)"--log-level=lib.eal:error",
		file_prefix,
		NULL,
	};

	if (up)
		return 0;
	snprintf(memory, sizeof(memory), "%d", mb != NULL && atoi(mb) > 0 ? atoi(mb) : 512);
	/* The pid keeps two runs of the same test (e.g. two build
	 * configurations at once) apart too. */
	snprintf(
		file_prefix, sizeof(file_prefix), "--file-prefix=sst-%s-%d", prefix, (int)getpid());
	if (rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv) < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	up = true;
	/* The EAL still makes the (empty) runtime directory. */
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	atexit(remove_runtime_dir);
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

struct rte_mbuf *
sst_test_mbuf_of_len(struct rte_mempool *mp, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	char *data;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	data = rte_pktmbuf_append(m, (uint16_t)len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(data);
	return m;
}

int
sst_test_main_with_pool(const char *name, const char *suite, unsigned int n, uint16_t data_room,
	struct rte_mempool **pool, const struct sst_test_case *cases)
{
	int rc;

	if (sst_test_eal_init(name) < 0)
		return EXIT_FAILURE;
	*pool = sst_test_pool(name, n, data_room);
	if (*pool == NULL)
		return EXIT_FAILURE;
	rc = sst_test_run(suite, cases);
	rte_mempool_free(*pool);
	rte_eal_cleanup();
	return rc;
}
