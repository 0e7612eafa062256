/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A thin layer over CUnit so that every test program has the same shape:
 *
 *   static void test_something(void) { CU_ASSERT_EQUAL(...); }
 *   static const struct sst_test_case cases[] = {
 *           SST_TEST(test_something),
 *           SST_TEST_END,
 *   };
 *   SST_TEST_MAIN("channel_wire", cases)
 *
 * The program exits non-zero if any assertion failed, which is what meson
 * test looks at.
 */
#ifndef SST_TEST_H
#define SST_TEST_H

#include <stddef.h>
#include <stdint.h>

#include <CUnit/CUnit.h>

struct sst_test_case {
	const char *name;
	CU_TestFunc fn;
};

#define SST_TEST(fn)    \
	{               \
#fn, fn \
	}
#define SST_TEST_END       \
	{                  \
		NULL, NULL \
	}

/** Run one suite of cases; returns the process exit status. */
int sst_test_run(const char *suite, const struct sst_test_case *cases);

#define SST_TEST_MAIN(suite, cases)                \
	int main(void)                             \
	{                                          \
		return sst_test_run(suite, cases); \
	}

/** Parse a hex string (spaces allowed) into buf; returns the byte count. */
size_t sst_test_hex(const char *hex, uint8_t *buf, size_t cap);

#endif /* SST_TEST_H */
