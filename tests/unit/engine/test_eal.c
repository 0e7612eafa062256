/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of sst_eal_init(): what it refuses before touching the EAL, then
 * (the EAL starts once per process) one start with the default arguments
 * and an application argument after "--": no hugepages, the extra
 * arguments applied, argv handed back as rte_eal_init() would, a second
 * start refused, and the runtime directory gone after sst_eal_cleanup().
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_lcore.h>

#include "sst_eal.h"
#include "sst_test.h"

static char rundir[4096];

static void
test_refused(void)
{
	char *argv[] = {(char *)"test_eal", NULL};
	const char *many[SST_EAL_ARGS_MAX + 2];
	struct sst_eal_opts opts = {.size = 0};

	CU_ASSERT_EQUAL(sst_eal_init(1, argv, &opts), -EINVAL); /* no size */
	CU_ASSERT_EQUAL(sst_eal_init(0, argv, NULL), -EINVAL);
	for (size_t i = 0; i < RTE_DIM(many) - 1; i++)
		many[i] = "-v";
	many[RTE_DIM(many) - 1] = NULL;
	opts.size = sizeof(opts);
	opts.always_args = many;
	CU_ASSERT_EQUAL(sst_eal_init(1, argv, &opts), -E2BIG);
}

static void
test_default(void)
{
	char *argv[] = {(char *)"/some/dir/test_eal", (char *)"--", (char *)"app-arg", NULL};
	static const char *const extra[] = {"-l", "0", NULL};
	struct sst_eal_opts opts = {.size = sizeof(opts), .memory_mb = 64, .extra_args = extra};
	int argc = 3, rc;
	char **av = argv;

	rc = sst_eal_init(argc, argv, &opts);
	CU_ASSERT_EQUAL_FATAL(rc, 1);
	argc -= rc;
	av += rc;
	CU_ASSERT_EQUAL(argc, 2);
	CU_ASSERT_STRING_EQUAL(av[0], "/some/dir/test_eal");
	CU_ASSERT_STRING_EQUAL(av[1], "app-arg");
	CU_ASSERT_EQUAL(rte_eal_has_hugepages(), 0);
	CU_ASSERT_EQUAL(rte_eal_has_pci(), 0);
	CU_ASSERT_EQUAL(rte_lcore_count(), 1); /* the extra arguments */
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	{
		char want[64];

		snprintf(want, sizeof(want), "/test_eal-%d", (int)getpid());
		CU_ASSERT(strstr(rundir, want) != NULL);
	}
	CU_ASSERT_EQUAL(access(rundir, F_OK), 0);
	/* The EAL starts once. */
	argv[1] = (char *)"--";
	CU_ASSERT_EQUAL(sst_eal_init(3, argv, NULL), -EALREADY);
}

static void
test_cleanup(void)
{
	sst_eal_cleanup();
	CU_ASSERT_NOT_EQUAL(access(rundir, F_OK), 0);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_refused),
	SST_TEST(test_default),
	SST_TEST(test_cleanup),
	SST_TEST_END,
};

SST_TEST_MAIN("eal", cases)
