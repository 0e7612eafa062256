/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Differential tests of the software Internet checksum's implementations
 * (lib/net/net_cksum.c and its SIMD kernels), every one this CPU runs:
 * against RFC 1071's sum on random data of every length 0..2048 at every
 * alignment 0..63, and on all-0xff, all-zero and random data long enough
 * to cross the SIMD kernels' batches; against rte_raw_cksum() over a flat
 * copy on random mbuf chains cut anywhere and summed from random offsets
 * (segments starting at odd offsets, empty segments). The mbufs are laid
 * out by hand: no EAL, no pool.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cpuflags.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "net_internal.h"
#include "sst_net.h"
#include "sst_test.h"
#include "sst_test_split.h"

#define MAX_LEN 2048
#define MAX_ALIGN SST_TEST_SPLIT_ALIGN

/* Count a mismatch of impl, report the first few. */
static unsigned int
mismatch(unsigned int bad, const char *what, int impl, size_t len, size_t at)
{
	return sst_test_split_mismatch(
		bad, what, sst_net_cksum_impl_name((enum sst_net_cksum_impl)impl), len, at);
}

/* One segment over [p, p + len). */
static struct rte_mbuf *
flat_mbuf(struct rte_mbuf *m, const uint8_t *p, uint32_t len)
{
	memset(m, 0, sizeof(*m));
	m->buf_addr = (void *)(uintptr_t)p;
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	m->nb_segs = 1;
	return m;
}

static void
test_impls(void)
{
	enum sst_net_cksum_impl active = sst_net_cksum_impl_active();

	CU_ASSERT(sst_net_cksum_impl_supported(SST_NET_CKSUM_IMPL_SCALAR));
	CU_ASSERT(sst_net_cksum_impl_supported(active));
	CU_ASSERT_FALSE(sst_net_cksum_impl_supported(SST_NET_CKSUM_IMPL_COUNT));
	CU_ASSERT_PTR_NULL(sst_net_cksum_impl_name(SST_NET_CKSUM_IMPL_COUNT));
	CU_ASSERT_STRING_EQUAL(sst_net_cksum_impl_name(SST_NET_CKSUM_IMPL_AVX2), "avx2");
	CU_ASSERT_STRING_EQUAL(sst_net_cksum_impl_name(SST_NET_CKSUM_IMPL_AVX512), "avx512");
	CU_ASSERT_EQUAL(sst_net_cksum_impl_supported(SST_NET_CKSUM_IMPL_AVX2),
		rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) > 0);
	CU_ASSERT_EQUAL(sst_net_cksum_impl_supported(SST_NET_CKSUM_IMPL_AVX512),
		rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512BW) > 0);
	/* Before main(): the widest within DPDK's default 256 bits. */
	if (sst_net_cksum_impl_supported(SST_NET_CKSUM_IMPL_AVX2))
		CU_ASSERT_EQUAL(active, SST_NET_CKSUM_IMPL_AVX2);
	CU_ASSERT_EQUAL(active, sst_net_cksum_impl_widest(256));
	fprintf(stderr, "  in use: %s\n", sst_net_cksum_impl_name(active));
}

/* The choice by width, and sst_net_cksum_impl_select() (restored after). */
static void
test_select(void)
{
	enum sst_net_cksum_impl active = sst_net_cksum_impl_active();
	bool avx512 = sst_net_cksum_impl_supported(SST_NET_CKSUM_IMPL_AVX512);

	CU_ASSERT_EQUAL(sst_net_cksum_impl_widest(0), SST_NET_CKSUM_IMPL_SCALAR);
	CU_ASSERT_EQUAL(sst_net_cksum_impl_widest(128), SST_NET_CKSUM_IMPL_SCALAR);
	CU_ASSERT_EQUAL(sst_net_cksum_impl_widest(512),
		avx512 ? SST_NET_CKSUM_IMPL_AVX512 : sst_net_cksum_impl_widest(256));
	CU_ASSERT_EQUAL(sst_net_cksum_impl_select(SST_NET_CKSUM_IMPL_COUNT), -EINVAL);
	CU_ASSERT_EQUAL(sst_net_cksum_impl_active(), active);
	for (int i = 0; i < SST_NET_CKSUM_IMPL_COUNT; i++) {
		enum sst_net_cksum_impl impl = (enum sst_net_cksum_impl)i;
		static const uint8_t data[] = {0x45, 0x00, 0x00, 0x1c, 0xab};
		uint16_t ck = 0;
		struct rte_mbuf m;

		if (!sst_net_cksum_impl_supported(impl)) {
			CU_ASSERT_EQUAL(sst_net_cksum_impl_select(impl), -ENOTSUP);
			continue;
		}
		CU_ASSERT_EQUAL(sst_net_cksum_impl_select(impl), 0);
		CU_ASSERT_EQUAL(sst_net_cksum_impl_active(), impl);
		CU_ASSERT_EQUAL(
			sst_net_cksum_mbuf(flat_mbuf(&m, data, sizeof(data)), 0, sizeof(data), &ck),
			0);
		CU_ASSERT_EQUAL(ck, rte_raw_cksum(data, sizeof(data)));
	}
	CU_ASSERT_EQUAL(sst_net_cksum_impl_select(active), 0);
	CU_ASSERT_EQUAL(sst_net_cksum_impl_active(), active);
}

/* The folded sum of the words so far plus an odd last byte. */
static uint16_t
fold_with(uint64_t sum, const uint8_t *odd)
{
	if (odd != NULL) {
		uint16_t w = 0;

		memcpy(&w, odd, 1);
		sum += w;
	}
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* Every implementation against RFC 1071's sum, carried along word by word
 * from one length to the next (the sanitizer builds could not afford a
 * reference run per length). */
static void
test_every_length_and_alignment(void)
{
	static uint8_t buf[MAX_LEN + MAX_ALIGN];
	uint64_t rng = 0xa4093822299f31d0;
	unsigned int bad = 0;
	struct rte_mbuf m;

	sst_test_random_fill(buf, sizeof(buf), &rng);
	for (size_t align = 0; align < MAX_ALIGN; align += SST_TEST_SPLIT_ALIGN_STEP) {
		const uint8_t *p = buf + align;
		uint64_t sum = 0;

		for (uint32_t len = 0; len <= MAX_LEN; len++) {
			uint16_t want, ck;

			if (len >= 2 && len % 2 == 0) {
				uint16_t w;

				memcpy(&w, p + len - 2, 2);
				sum += w;
			}
			want = fold_with(sum, len & 1 ? p + len - 1 : NULL);
			for (int i = 0; i < SST_NET_CKSUM_IMPL_COUNT; i++) {
				enum sst_net_cksum_impl impl = (enum sst_net_cksum_impl)i;

				if (!sst_net_cksum_impl_supported(impl))
					continue;
				ck = 0;
				if (sst_net_cksum_mbuf_with(
					    impl, flat_mbuf(&m, p, len), 0, len, &ck) != 0 ||
					ck != want)
					bad = mismatch(bad, "random", i, len, align);
			}
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/* RFC 1071 word by word in 64 bits: rte_raw_cksum() keeps a 32-bit sum,
 * which overflows past 128 KiB of large words. */
static uint16_t
ref_sum(const uint8_t *p, size_t len)
{
	uint64_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2) {
		uint16_t w;

		memcpy(&w, p + i, 2);
		sum += w;
	}
	return fold_with(sum, len & 1 ? p + len - 1 : NULL);
}

/* All 0xff (the largest words), all zeros (the zero sum, which folds to 0,
 * not 0xffff) and random data straight through the kernels, around the
 * AVX2 kernel's batch of 2^14 loads (512 KiB), which no mbuf segment
 * reaches. */
static void
test_largest_sums(void)
{
	static const int around[] = {-65, -33, -1, 0, 1, 33, 65};
	static const struct {
		enum sst_net_cksum_impl impl;
		net_cksum_fn sum;
		size_t batch; /* bytes between the kernel's horizontal sums */
	} kernels[] = {
		{SST_NET_CKSUM_IMPL_AVX2, net_cksum_avx2, (size_t)32 << 14},
		{SST_NET_CKSUM_IMPL_AVX512, net_cksum_avx512, (size_t)64 << 14},
	};
	const size_t cap = 2 * kernels[RTE_DIM(kernels) - 1].batch + 128;
	uint8_t *buf = malloc(cap);
	uint64_t rng = 0x452821e638d01377;
	unsigned int bad = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	CU_ASSERT_EQUAL(ref_sum((const uint8_t *)"\xff\xff\xff", 3), 0x00ff);
	for (int fill = 0; fill < 3; fill++) {
		if (fill < 2)
			memset(buf, fill ? 0xff : 0x00, cap);
		else
			sst_test_random_fill(buf, cap, &rng);
		for (size_t q = 0; q < RTE_DIM(kernels); q++)
			for (size_t k = 1; k <= 2; k++)
				for (size_t d = 0; d < RTE_DIM(around); d++) {
					size_t len = k * kernels[q].batch + around[d];
					uint16_t want = ref_sum(buf + 1, len);

					if (fill == 1 && want != (len & 1 ? 0x00ff : 0xffff))
						bad = mismatch(bad, "ref",
							SST_NET_CKSUM_IMPL_SCALAR, len, 0);
					if (sst_net_cksum_impl_supported(kernels[q].impl) &&
						kernels[q].sum(buf + 1, len) != want)
						bad = mismatch(bad, "fill", kernels[q].impl, len,
							(size_t)fill);
				}
	}
	CU_ASSERT_EQUAL(bad, 0);
	free(buf);
}

static void
test_random_chains(void)
{
	static struct sst_test_split t;
	uint64_t rng = 0x082efa98ec4e6c89;
	unsigned int bad = 0;

	for (unsigned int r = 0; r < SST_TEST_SPLIT_ROUNDS; r++) {
		struct rte_mbuf *m = sst_test_split_next(&t, r, &rng);
		uint32_t off = (uint32_t)(sst_test_xorshift(&rng) % (t.total + 1));
		uint32_t len = (uint32_t)(sst_test_xorshift(&rng) % (t.total - off + 1));
		uint16_t want = rte_raw_cksum(t.flat + off, len), ck;

		for (int i = 0; i < SST_NET_CKSUM_IMPL_COUNT; i++) {
			enum sst_net_cksum_impl impl = (enum sst_net_cksum_impl)i;

			if (!sst_net_cksum_impl_supported(impl))
				continue;
			if (sst_net_cksum_mbuf_with(impl, m, off, len, &ck) != 0 || ck != want)
				bad = mismatch(bad, "chain", i, len, off);
			/* Past the end of the packet. */
			if (sst_net_cksum_mbuf_with(impl, m, off, t.total - off + 1, &ck) !=
				-EINVAL)
				bad = mismatch(bad, "range", i, len, off);
		}
		if (sst_net_cksum_mbuf(m, off, len, &ck) != 0 || ck != want)
			bad = mismatch(bad, "default", sst_net_cksum_impl_active(), len, off);
	}
	CU_ASSERT_EQUAL(bad, 0);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_impls),
	SST_TEST(test_select),
	SST_TEST(test_every_length_and_alignment),
	SST_TEST(test_largest_sums),
	SST_TEST(test_random_chains),
	SST_TEST_END,
};

SST_TEST_MAIN("net_cksum", cases)
