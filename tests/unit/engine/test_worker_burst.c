/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The grouping of a received burst (lib/engine/worker_burst.c): the worker
 * calls each channel once with its packets in arrival order, and hands
 * packets over to each other worker in one ring operation.
 */
#include <stdbool.h>

#include <rte_common.h>

#include "sst_test.h"
#include "worker_burst.h"

/* Check the groups of keys[0..n): every packet once, each group one key,
 * in arrival order, and the groups in the order of their first packet. */
static void
check_groups(const uintptr_t *keys, uint16_t n, uint16_t expect_groups)
{
	uint16_t order[SST_MAX_BURST], starts[SST_MAX_BURST + 1];
	bool seen[SST_MAX_BURST] = {false};
	uint16_t groups = worker_burst_group(keys, n, order, starts);

	CU_ASSERT_EQUAL_FATAL(groups, expect_groups);
	CU_ASSERT_EQUAL(starts[0], 0);
	CU_ASSERT_EQUAL(groups > 0 ? starts[groups] : 0, n);
	for (uint16_t g = 0; g < groups; g++) {
		CU_ASSERT_FATAL(starts[g] < starts[g + 1]);
		for (uint16_t k = starts[g]; k < starts[g + 1]; k++) {
			CU_ASSERT_FATAL(order[k] < n);
			CU_ASSERT(!seen[order[k]]);
			seen[order[k]] = true;
			CU_ASSERT_EQUAL(keys[order[k]], keys[order[starts[g]]]);
			if (k > starts[g])
				CU_ASSERT(order[k] > order[k - 1]);
		}
		/* Nothing before the group's first packet had its key. */
		for (uint16_t i = 0; i < order[starts[g]]; i++)
			CU_ASSERT(keys[i] != keys[order[starts[g]]]);
		if (g > 0)
			CU_ASSERT(order[starts[g]] > order[starts[g - 1]]);
	}
}

/* Three channels interleaved: three calls, each with its packets in order. */
static void
test_three_channels_interleaved(void)
{
	static const uintptr_t keys[] = {0xa0, 0xb0, 0xc0, 0xa0, 0xa0, 0xc0, 0xb0, 0xa0, 0xc0};
	uint16_t order[SST_MAX_BURST], starts[SST_MAX_BURST + 1];
	static const uint16_t expect[] = {0, 3, 4, 7, 1, 6, 2, 5, 8};

	CU_ASSERT_EQUAL_FATAL(worker_burst_group(keys, RTE_DIM(keys), order, starts), 3);
	CU_ASSERT_EQUAL(starts[1], 4);
	CU_ASSERT_EQUAL(starts[2], 6);
	CU_ASSERT_EQUAL(starts[3], 9);
	for (size_t i = 0; i < RTE_DIM(expect); i++)
		CU_ASSERT_EQUAL(order[i], expect[i]);
	check_groups(keys, RTE_DIM(keys), 3);
}

/* The edges: nothing, one key, every packet its own key, the largest burst. */
static void
test_edges(void)
{
	uintptr_t keys[SST_MAX_BURST] = {0};

	check_groups(keys, 0, 0);
	for (uint16_t i = 0; i < SST_MAX_BURST; i++)
		keys[i] = 7;
	check_groups(keys, SST_MAX_BURST, 1);
	for (uint16_t i = 0; i < SST_MAX_BURST; i++)
		keys[i] = (uintptr_t)(SST_MAX_BURST - i); /* 0 is a key like any other */
	keys[SST_MAX_BURST - 1] = 0;
	check_groups(keys, SST_MAX_BURST, SST_MAX_BURST);
}

/* Random bursts over few keys: the invariants of check_groups(). */
static void
test_random(void)
{
	uint32_t x = 12345;

	for (int round = 0; round < 2000; round++) {
		uintptr_t keys[SST_MAX_BURST];
		bool used[5] = {false};
		uint16_t n, distinct = 0;

		x = x * 1103515245u + 12345u;
		n = (uint16_t)((x >> 16) % (SST_MAX_BURST + 1));
		for (uint16_t i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			keys[i] = (x >> 16) % 5;
			if (!used[keys[i]])
				distinct++;
			used[keys[i]] = true;
		}
		check_groups(keys, n, distinct);
	}
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_three_channels_interleaved),
	SST_TEST(test_edges),
	SST_TEST(test_random),
	SST_TEST_END,
};

int
main(void)
{
	return sst_test_run("worker_burst", cases);
}
