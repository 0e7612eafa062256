/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tool_ns_to_tsc() and tool_tsc_to_ns() (apps/common/tool_link.h):
 * nanoseconds in TSC cycles and back, exact, for the durations the tools
 * take (up to a day) at any counter rate a machine has; the products
 * ns * hz and cycles * 10^9 they replaced passed 2^64 at 7.5 s and at
 * about 7 s, so sst-gen's template --time 7.5 stopped after 0.4 s and its
 * latencies over 7 s wrapped.
 */
#include "sst_test.h"
#include "tool_link.h"

/* The exact values by 128-bit arithmetic. */
static uint64_t
reference(uint64_t ns, uint64_t hz)
{
	return (uint64_t)((unsigned __int128)ns * hz / SST_NSEC_PER_SEC);
}

static uint64_t
reference_ns(uint64_t cycles, uint64_t hz)
{
	return (uint64_t)((unsigned __int128)cycles * SST_NSEC_PER_SEC / hz);
}

static void
test_exact(void)
{
	static const uint64_t hzs[] = {1000000000, 2460000000, 3000000000, 4999999999, 10000000000};
	static const uint64_t nss[] = {0, 1, 999999999, 1000000000, 6000000000, 7500000000,
		120000000000, 240000001234, 86400 * SST_NSEC_PER_SEC};

	for (size_t i = 0; i < RTE_DIM(hzs); i++)
		for (size_t k = 0; k < RTE_DIM(nss); k++)
			CU_ASSERT_EQUAL(tool_ns_to_tsc(nss[k], hzs[i]), reference(nss[k], hzs[i]));
	/* The case of the finding: 7.5 s at 2.46 GHz is 18.45e9 cycles. */
	CU_ASSERT_EQUAL(tool_ns_to_tsc(7500000000, 2460000000), UINT64_C(18450000000));
	/* And back: every duration above, at every rate, and 10 s at 2.6 GHz. */
	for (size_t i = 0; i < RTE_DIM(hzs); i++)
		for (size_t k = 0; k < RTE_DIM(nss); k++) {
			uint64_t c = reference(nss[k], hzs[i]);

			CU_ASSERT_EQUAL(tool_tsc_to_ns(c, hzs[i]), reference_ns(c, hzs[i]));
		}
	CU_ASSERT_EQUAL(tool_tsc_to_ns(UINT64_C(26000000000), 2600000000), UINT64_C(10000000000));
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_exact),
	SST_TEST_END,
};

SST_TEST_MAIN("tool_time", cases)
