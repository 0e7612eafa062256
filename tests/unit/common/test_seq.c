/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of sst_seq_expand() (lib/common/sst_seq.h): the wire value is the
 * nearest number to the reference with the same low bits, in the window
 * [ref - 2^(bits-1), ref + 2^(bits-1) - 1], and -SST_ESEQRANGE when that
 * number would lie below 0 or above UINT64_MAX.
 */
#include <stdio.h>

#include "sst_error.h"
#include "sst_seq.h"
#include "sst_test.h"

#define B23 (UINT64_C(1) << 23)
#define B24 (UINT64_C(1) << 24)
#define B32 (UINT64_C(1) << 32)
#define M24 (B24 - 1)

/* Expand and check both the return code and, on success, the value. */
static void
expect_expand(uint64_t ref, uint64_t low, unsigned int bits, int want_rc, uint64_t want, int line)
{
	uint64_t out = 0xdeadbeef;
	int rc = sst_seq_expand(ref, low, bits, &out);

	CU_ASSERT_EQUAL(rc, want_rc);
	if (rc == 0 && want_rc == 0)
		CU_ASSERT_EQUAL(out, want);
	if (rc != want_rc || (rc == 0 && out != want))
		fprintf(stderr,
			"  line %d: expand(ref 0x%llx, low 0x%llx, bits %u) = %d/0x%llx, want "
			"%d/0x%llx\n",
			line, (unsigned long long)ref, (unsigned long long)low, bits, rc,
			(unsigned long long)out, want_rc, (unsigned long long)want);
}

#define EXPAND_OK(ref, low, bits, want) expect_expand(ref, low, bits, 0, want, __LINE__)
#define EXPAND_FAIL(ref, low, bits) expect_expand(ref, low, bits, -SST_ESEQRANGE, 0, __LINE__)

static void
test_basic(void)
{
	/* The first packet in each direction is number 1; 0 is the reference. */
	EXPAND_OK(0, 1, 24, 1);
	EXPAND_OK(0, 0, 24, 0);
	EXPAND_OK(1, 2, 24, 2);
	EXPAND_OK(3, 3, 24, 3);
	/* A packet just behind the highest one. */
	EXPAND_OK(100, 99, 24, 99);
	EXPAND_OK(100, 68, 24, 68);
	/* Bits above the field width are ignored. */
	EXPAND_OK(0, 0xff000001, 24, 1);
	EXPAND_OK(0, UINT64_C(0xffffffffff000005), 24, 5);
}

static void
test_wrap_2_24(void)
{
	/* Forward over the 24-bit wrap. */
	EXPAND_OK(0xfffffe, 0x000001, 24, 0x1000001);
	EXPAND_OK(0xffffff, 0x000000, 24, 0x1000000);
	EXPAND_OK(0xffffff, 0xffffff, 24, 0xffffff);
	/* Backward over it. */
	EXPAND_OK(0x1000001, 0xfffffe, 24, 0xfffffe);
	EXPAND_OK(0x1000000, 0xffffff, 24, 0xffffff);
	/* Several wraps in. */
	EXPAND_OK(5 * B24 + 3, 0xfffff0, 24, 5 * B24 - 0x10);
	EXPAND_OK(5 * B24 - 3, 0x000010, 24, 5 * B24 + 0x10);
}

static void
test_wrap_2_32(void)
{
	EXPAND_OK(0xffffffff, 0x000005, 24, B32 + 5);
	EXPAND_OK(B32 + 5, 0xfffffe, 24, B32 - 2);
	EXPAND_OK(B32 - 1, 0, 24, B32);
	/* 32-bit wire fields wrap the same way. */
	EXPAND_OK(0xfffffffe, 3, 32, B32 + 3);
	EXPAND_OK(B32 + 3, 0xfffffffe, 32, 0xfffffffe);
	EXPAND_OK(7 * B32, 0x7fffffff, 32, 7 * B32 + 0x7fffffff);
	EXPAND_OK(7 * B32, 0x80000000, 32, 6 * B32 + 0x80000000);
}

static void
test_half_range_edges(void)
{
	static const uint64_t refs[] = {B23, B24, B24 + 12345, B32 - 1, B32, UINT64_C(1) << 50};

	for (size_t k = 0; k < sizeof(refs) / sizeof(refs[0]); k++) {
		uint64_t ref = refs[k];

		/* 2^23 - 1 ahead is still forward ... */
		EXPAND_OK(ref, (ref + B23 - 1) & M24, 24, ref + B23 - 1);
		/* ... 2^23 ahead is taken as 2^23 behind ... */
		EXPAND_OK(ref, (ref + B23) & M24, 24, ref - B23);
		/* ... which is the farthest back a value can be. */
		EXPAND_OK(ref, (ref - B23) & M24, 24, ref - B23);
		EXPAND_OK(ref, (ref - B23 + 1) & M24, 24, ref - B23 + 1);
		/* 2^23 + 1 behind is read as 2^23 - 1 ahead. */
		EXPAND_OK(ref, (ref - B23 - 1) & M24, 24, ref + B23 - 1);
	}
	/* With a small reference, the backward half would go below 0. */
	EXPAND_OK(0, B23 - 1, 24, B23 - 1);
	EXPAND_FAIL(0, B23, 24);
	EXPAND_FAIL(B23 - 1, (B23 - 1 + B23) & M24, 24);
	EXPAND_OK(B23, 0, 24, 0);
}

static void
test_far_out_of_window(void)
{
	/* A value from far away is reinterpreted into the window around the
	 * reference; only its low bits count. */
	uint64_t ref = UINT64_C(0x123456789a);
	uint64_t far = ref + 1000 * B24 + 17;

	EXPAND_OK(ref, far, 24, ref + 17);
	EXPAND_OK(ref, ref - 3 * B24 - 17, 24, ref - 17);
	EXPAND_OK(ref, ref + B24, 24, ref);
	EXPAND_OK(ref, ref + 12 * B24 + B23, 24, ref - B23);
}

static void
test_range_errors(void)
{
	/* Below 0. */
	EXPAND_FAIL(0, M24, 24);
	EXPAND_FAIL(5, (5 - 6) & M24, 24);
	EXPAND_OK(5, 0, 24, 0);
	EXPAND_FAIL(0, 0xffff, 16);
	EXPAND_OK(0x7fff, 0, 16, 0);
	EXPAND_FAIL(0x7fff, 0xffff, 16);
	/* Above UINT64_MAX. */
	EXPAND_OK(UINT64_MAX - 2, (UINT64_MAX - 2 + 2) & M24, 24, UINT64_MAX);
	EXPAND_FAIL(UINT64_MAX - 2, (UINT64_MAX - 2 + 3) & M24, 24);
	EXPAND_OK(UINT64_MAX, UINT64_MAX & M24, 24, UINT64_MAX);
	EXPAND_FAIL(UINT64_MAX, 0, 24);
	EXPAND_FAIL(UINT64_MAX, (UINT64_MAX + B23 - 1) & M24, 24);
	EXPAND_OK(UINT64_MAX, (UINT64_MAX - B23) & M24, 24, UINT64_MAX - B23);
	EXPAND_FAIL(UINT64_MAX - 5, 0, 16);
	EXPAND_OK(UINT64_MAX - 5, 0xffff, 16, UINT64_MAX);
}

static void
test_sid_16_bits(void)
{
	EXPAND_OK(0, 1, 16, 1);
	EXPAND_OK(0xfffe, 0x0003, 16, 0x10003);
	EXPAND_OK(0x10003, 0xfffe, 16, 0xfffe);
	EXPAND_OK(0x10000, 0x7fff, 16, 0x17fff);
	EXPAND_OK(0x10000, 0x8000, 16, 0x8000);
	EXPAND_OK(0x18000, 0x8000, 16, 0x18000);
	EXPAND_OK(0x18000, 0x0000, 16, 0x10000);
	EXPAND_OK(0x18001, 0x0000, 16, 0x20000);
	EXPAND_OK(0x18000, 0xffff, 16, 0x1ffff);
	EXPAND_OK(0x12345678, 0x5678 + 0x7fff, 16, 0x12345678 + 0x7fff);
	EXPAND_OK(0x12345678, 0x5678 + 0x8000, 16, 0x12345678 - 0x8000);
}

static void
test_other_widths(void)
{
	EXPAND_OK(0, 0, 1, 0);
	EXPAND_FAIL(0, 1, 1);
	EXPAND_OK(10, 0, 1, 10);
	EXPAND_OK(10, 1, 1, 9);
	EXPAND_OK(UINT64_C(1) << 62, UINT64_C(1) << 62, 63, UINT64_C(1) << 62);
	EXPAND_OK(UINT64_C(1) << 62, 0, 63, 0);
	EXPAND_OK(0, (UINT64_C(1) << 62) - 1, 63, (UINT64_C(1) << 62) - 1);
	EXPAND_FAIL(0, UINT64_C(1) << 62, 63);
	EXPAND_OK(UINT64_MAX, UINT64_MAX, 63, UINT64_MAX);
	EXPAND_FAIL(UINT64_MAX, 0, 63);
	EXPAND_FAIL(UINT64_MAX, 0, 2);
	EXPAND_OK(UINT64_MAX, 1, 2, UINT64_MAX - 2);
	EXPAND_OK(UINT64_MAX, 2, 2, UINT64_MAX - 1);
	EXPAND_OK(UINT64_MAX, 3, 2, UINT64_MAX);
}

/* Random references and offsets, checked against signed arithmetic. */
static void
test_random(void)
{
	static const unsigned int widths[] = {8, 16, 24, 32, 40};
	uint64_t x = UINT64_C(0x9e3779b97f4a7c15);
	unsigned int bad = 0;

	for (int iter = 0; iter < 200000; iter++) {
		unsigned int bits = widths[iter % 5];
		uint64_t half = UINT64_C(1) << (bits - 1);
		uint64_t ref, want, out;
		int64_t delta;
		int rc;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		ref = (x >> 4) + half;
		delta = (int64_t)(x % (2 * half)) - (int64_t)half;
		want = ref + (uint64_t)delta;
		rc = sst_seq_expand(ref, want & ((half << 1) - 1), bits, &out);
		if (rc != 0 || out != want)
			bad++;
	}
	CU_ASSERT_EQUAL(bad, 0);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_basic),
	SST_TEST(test_wrap_2_24),
	SST_TEST(test_wrap_2_32),
	SST_TEST(test_half_range_edges),
	SST_TEST(test_far_out_of_window),
	SST_TEST(test_range_errors),
	SST_TEST(test_sid_16_bits),
	SST_TEST(test_other_widths),
	SST_TEST(test_random),
	SST_TEST_END,
};

SST_TEST_MAIN("seq", cases)
