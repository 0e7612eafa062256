/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Differential tests of Chk32's implementations (lib/channel/channel_chk32.c
 * and its SIMD kernels), every one this CPU runs: against the definition on
 * random data of every length 0..2048 at every alignment 0..63; against the
 * scalar reference on all-0xff data (the largest sums) around the AVX2
 * kernel's batch boundaries, and on random mbuf chains cut anywhere (odd
 * segments, empty segments, a word straddling two segments). The scalar
 * reference is also checked against the prototype's captured packets in
 * test_channel_chk32.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cpuflags.h>
#include <rte_mbuf.h>

#include "channel_wire.h"
#include "sst_test.h"
#include "sst_test_split.h"

#define MAX_LEN 2048
#define MAX_ALIGN SST_TEST_SPLIT_ALIGN

/* Count a mismatch of impl, report the first few. */
static unsigned int
mismatch(unsigned int bad, const char *what, int impl, size_t len, size_t at)
{
	return sst_test_split_mismatch(
		bad, what, sst_chk32_impl_name((enum sst_chk32_impl)impl), len, at);
}

static void
test_impls(void)
{
	enum sst_chk32_impl active = sst_chk32_impl_active();
	static const uint8_t one[] = {0x01};

	CU_ASSERT(sst_chk32_impl_supported(SST_CHK32_IMPL_SCALAR));
	CU_ASSERT(sst_chk32_impl_supported(active));
	CU_ASSERT_FALSE(sst_chk32_impl_supported(SST_CHK32_IMPL_COUNT));
	CU_ASSERT_PTR_NULL(sst_chk32_impl_name(SST_CHK32_IMPL_COUNT));
	CU_ASSERT_STRING_EQUAL(sst_chk32_impl_name(SST_CHK32_IMPL_SCALAR), "scalar");
	CU_ASSERT_STRING_EQUAL(sst_chk32_impl_name(SST_CHK32_IMPL_AVX2), "avx2");
	CU_ASSERT_STRING_EQUAL(sst_chk32_impl_name(SST_CHK32_IMPL_AVX512), "avx512");
	CU_ASSERT_EQUAL(sst_chk32_impl_supported(SST_CHK32_IMPL_AVX2),
		rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) > 0);
	CU_ASSERT_EQUAL(sst_chk32_impl_supported(SST_CHK32_IMPL_AVX512),
		rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512BW) > 0);
	/* In use before anyone chose: the widest the CPU has within 256-bit
	 * vectors, the EAL's default width (512-bit code only on request). */
	CU_ASSERT_EQUAL(active, sst_chk32_impl_widest(256));
	if (sst_chk32_impl_supported(SST_CHK32_IMPL_AVX2))
		CU_ASSERT_EQUAL(active, SST_CHK32_IMPL_AVX2);
	CU_ASSERT_EQUAL(sst_chk32_impl_widest(0), SST_CHK32_IMPL_SCALAR);
	CU_ASSERT_EQUAL(sst_chk32_impl_widest(512),
		sst_chk32_impl_supported(SST_CHK32_IMPL_AVX512) ? SST_CHK32_IMPL_AVX512 : active);
	fprintf(stderr, "  in use: %s, widest here: %s\n", sst_chk32_impl_name(active),
		sst_chk32_impl_name(sst_chk32_impl_widest(512)));
	/* Choosing: refused outside the enum and for what the CPU lacks. */
	CU_ASSERT_EQUAL(sst_chk32_impl_select(SST_CHK32_IMPL_COUNT), -EINVAL);
	for (int i = 0; i < SST_CHK32_IMPL_COUNT; i++) {
		enum sst_chk32_impl impl = (enum sst_chk32_impl)i;

		if (!sst_chk32_impl_supported(impl)) {
			CU_ASSERT_EQUAL(sst_chk32_impl_select(impl), -ENOTSUP);
			CU_ASSERT_EQUAL(sst_chk32_impl_active(), active);
			continue;
		}
		CU_ASSERT_EQUAL(sst_chk32_impl_select(impl), 0);
		CU_ASSERT_EQUAL(sst_chk32_impl_active(), impl);
		CU_ASSERT_EQUAL(sst_chk32(0, one, 1), 0x01800180);
	}
	CU_ASSERT_EQUAL(sst_chk32_impl_select(active), 0);
	/* Hand-computed (test_channel_chk32.c), through every implementation. */
	for (int i = 0; i < SST_CHK32_IMPL_COUNT; i++)
		if (sst_chk32_impl_supported((enum sst_chk32_impl)i))
			CU_ASSERT_EQUAL(
				sst_chk32_with((enum sst_chk32_impl)i, 0, one, 1), 0x01800180);
}

/* The definition, reducing after every word (as in test_channel_chk32.c). */
static void
def_word(uint32_t *a, uint32_t *b, uint32_t w)
{
	*a = (*a + w) % 65537;
	*b = (*b + *a) % 65537;
}

/* The definition's value from the sums over the whole words, given the
 * terminator word. */
static uint32_t
def_finish(uint32_t a, uint32_t b, uint32_t last)
{
	def_word(&a, &b, last);
	return (a & 0xffff) | (b & 0xffff) << 16;
}

/* Every implementation, the scalar one included, against the definition,
 * which is carried along word by word from one length to the next (the
 * sanitizer builds could not afford a reference run per length). */
static void
test_every_length_and_alignment(void)
{
	static uint8_t buf[MAX_LEN + MAX_ALIGN];
	uint64_t rng = 0x243f6a8885a308d3;
	unsigned int bad = 0, runs = 0;

	sst_test_random_fill(buf, sizeof(buf), &rng);
	for (size_t align = 0; align < MAX_ALIGN; align += SST_TEST_SPLIT_ALIGN_STEP) {
		const uint8_t *p = buf + align;
		uint64_t seq = sst_test_xorshift(&rng);
		uint32_t a = 0, b = 0;

		for (int k = 0; k < 4; k++)
			def_word(&a, &b, (uint32_t)(seq >> (48 - 16 * k)) & 0xffff);
		for (size_t len = 0; len <= MAX_LEN; len++) {
			uint32_t want;

			if (len >= 2 && len % 2 == 0)
				def_word(&a, &b, (uint32_t)p[len - 2] << 8 | p[len - 1]);
			want = def_finish(
				a, b, len & 1 ? (uint32_t)p[len - 1] << 8 | 0x80 : 0x8000);
			for (int i = 0; i < SST_CHK32_IMPL_COUNT; i++) {
				enum sst_chk32_impl impl = (enum sst_chk32_impl)i;

				if (!sst_chk32_impl_supported(impl))
					continue;
				if (sst_chk32_with(impl, seq, p, len) != want)
					bad = mismatch(bad, "random", i, len, align);
				runs++;
			}
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	fprintf(stderr, "  %u comparisons\n", runs);
}

/* All 0xff maximises every lane and every sum: lengths around multiples of
 * each SIMD kernel's batch (255 chunks of 32 bytes for AVX2, of 64 for
 * AVX-512), at an odd and an even alignment. (Around the 2^20-word reduction blocks, test_long_buffers in
 * test_channel_chk32.c runs the implementation in use against the
 * definition.) */
static void
test_largest_sums(void)
{
	const size_t cap = 3 * 255 * 64 + 64;
	uint8_t *buf = malloc(cap);
	unsigned int bad = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	memset(buf, 0xff, cap);
	for (int i = 1; i < SST_CHK32_IMPL_COUNT; i++) {
		enum sst_chk32_impl impl = (enum sst_chk32_impl)i;
		size_t batch = 255 * (impl == SST_CHK32_IMPL_AVX512 ? 64 : 32);

		if (!sst_chk32_impl_supported(impl))
			continue;
		for (size_t align = 0; align < 2; align++) {
			const uint8_t *p = buf + align;

			for (size_t k = 1; k <= 3; k++)
				for (size_t len = k * batch - 40; len <= k * batch + 40; len++)
					if (sst_chk32_with(impl, UINT64_MAX, p, len) !=
						sst_chk32_with(
							SST_CHK32_IMPL_SCALAR, UINT64_MAX, p, len))
						bad = mismatch(bad, "0xff", i, len, align);
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	free(buf);
}

/* Small packets take a path of their own in the SIMD implementations
 * (the packet, its sequence number and terminator in one padded block):
 * every length up to past its limit, cut into random segments (empty
 * ones included, odd cuts splitting words), all 0xff every fourth round,
 * and a chain longer than the length asked for. */
static void
test_small_chains(void)
{
	static struct sst_test_split t;
	uint64_t rng = 0x243f6a8885a308d3;
	unsigned int bad = 0;

	for (uint32_t len = 0; len <= 160; len++)
		for (unsigned int r = 0; r < 40; r++) {
			uint32_t total = len + (r % 5 == 4 ? r : 0);
			uint64_t seq = sst_test_xorshift(&rng);
			struct rte_mbuf *m;
			uint32_t want;

			sst_test_random_fill(t.flat, total, &rng);
			if (r % 4 == 0)
				memset(t.flat, 0xff, total);
			m = sst_test_split_chain(t.segs, t.store,
				SST_TEST_SPLIT_MAX + SST_TEST_SPLIT_ALIGN, t.flat, total, &rng);
			want = sst_chk32_with(SST_CHK32_IMPL_SCALAR, seq, t.flat, len);
			for (int i = 0; i < SST_CHK32_IMPL_COUNT; i++) {
				enum sst_chk32_impl impl = (enum sst_chk32_impl)i;

				if (sst_chk32_impl_supported(impl) &&
					(sst_chk32_mbuf_with(impl, seq, m, len) != want ||
						sst_chk32_with(impl, seq, t.flat, len) != want))
					bad = mismatch(bad, "small", i, len, m->nb_segs);
			}
		}
	CU_ASSERT_EQUAL(bad, 0);
}

static void
test_random_chains(void)
{
	static struct sst_test_split t;
	uint64_t rng = 0x13198a2e03707344;
	unsigned int bad = 0;

	for (unsigned int r = 0; r < SST_TEST_SPLIT_ROUNDS; r++) {
		struct rte_mbuf *m = sst_test_split_next(&t, r, &rng);
		uint32_t len =
			r % 3 ? t.total : (uint32_t)(sst_test_xorshift(&rng) % (t.total + 1));
		uint64_t seq = sst_test_xorshift(&rng);
		uint32_t want = sst_chk32_with(SST_CHK32_IMPL_SCALAR, seq, t.flat, len);

		for (int i = 0; i < SST_CHK32_IMPL_COUNT; i++) {
			enum sst_chk32_impl impl = (enum sst_chk32_impl)i;

			if (sst_chk32_impl_supported(impl) &&
				sst_chk32_mbuf_with(impl, seq, m, len) != want)
				bad = mismatch(bad, "chain", i, len, m->nb_segs);
		}
		if (sst_chk32_mbuf(seq, m, len) != want || sst_chk32(seq, t.flat, len) != want)
			bad = mismatch(bad, "default", sst_chk32_impl_active(), len, m->nb_segs);
	}
	CU_ASSERT_EQUAL(bad, 0);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_impls),
	SST_TEST(test_every_length_and_alignment),
	SST_TEST(test_small_chains),
	SST_TEST(test_largest_sums),
	SST_TEST(test_random_chains),
	SST_TEST_END,
};

SST_TEST_MAIN("channel_chk32_simd", cases)
