/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of sst_params_size_ok() (lib/common/sst_params.h): a size is
 * accepted from min to max bytes, never 0, with both bounds included.
 */
#include "sst_params.h"
#include "sst_test.h"

struct grown {
	uint32_t size;
	uint32_t first;
	uint64_t added; /* a field a later release added */
};

static void
test_whole_struct(void)
{
	/* An API that reads the caller's struct as its own. */
	CU_ASSERT_TRUE(sst_params_size_ok(
		sizeof(struct grown), sizeof(struct grown), SST_PARAMS_ANY_LARGER));
	CU_ASSERT_TRUE(sst_params_size_ok(UINT32_MAX, sizeof(struct grown), SST_PARAMS_ANY_LARGER));
	CU_ASSERT_FALSE(sst_params_size_ok(
		sizeof(struct grown) - 1, sizeof(struct grown), SST_PARAMS_ANY_LARGER));
	CU_ASSERT_FALSE(sst_params_size_ok(0, sizeof(struct grown), SST_PARAMS_ANY_LARGER));
}

static void
test_exact(void)
{
	CU_ASSERT_TRUE(sst_params_size_ok(
		sizeof(struct grown), sizeof(struct grown), sizeof(struct grown)));
	CU_ASSERT_FALSE(sst_params_size_ok(
		sizeof(struct grown) + 1, sizeof(struct grown), sizeof(struct grown)));
	CU_ASSERT_FALSE(sst_params_size_ok(
		sizeof(struct grown) - 1, sizeof(struct grown), sizeof(struct grown)));
}

static void
test_prefix(void)
{
	/* An API that copies the caller's first size bytes: an older caller's
	 * shorter struct is fine, a newer one's longer struct is not, and 0
	 * is never a size. */
	CU_ASSERT_TRUE(sst_params_size_ok(8, 1, sizeof(struct grown)));
	CU_ASSERT_TRUE(sst_params_size_ok(1, 1, sizeof(struct grown)));
	CU_ASSERT_TRUE(sst_params_size_ok(sizeof(struct grown), 1, sizeof(struct grown)));
	CU_ASSERT_FALSE(sst_params_size_ok(sizeof(struct grown) + 8, 1, sizeof(struct grown)));
	CU_ASSERT_FALSE(sst_params_size_ok(0, 1, sizeof(struct grown)));
	CU_ASSERT_FALSE(sst_params_size_ok(0, 0, SST_PARAMS_ANY_LARGER));
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_whole_struct),
	SST_TEST(test_exact),
	SST_TEST(test_prefix),
	SST_TEST_END,
};

SST_TEST_MAIN("params", cases)
