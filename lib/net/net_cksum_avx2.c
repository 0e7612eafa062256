/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Internet checksum's AVX2 kernel. Compiled for the build's baseline
 * CPU, with AVX2 enabled per function: net_cksum.c calls it only when the
 * CPU has it.
 *
 * Each 32-byte load is eight 32-bit lanes of two 16-bit words; the low and
 * the high word of every lane go to their own 32-bit accumulator, so the
 * loop only adds (no carries to fold, no byte swaps: like rte_raw_cksum()
 * it sums the words in memory order, and the one's-complement sum does not
 * care which byte order that is, RFC 1071 section 2(B)). A lane of the two
 * accumulators together grows by at most 2 * 65535 per load, so 2^14 loads
 * stay below 2^32 before the lanes are added up in 64 bits. The folded
 * result depends only on the exact total, which is the same as
 * rte_raw_cksum()'s.
 */
#include <immintrin.h>

#include <rte_common.h>

#include "net_internal.h"

#define NET_AVX2 __attribute__((target("avx2")))
#define AVX2_BATCH_LOADS (1u << 14)

NET_AVX2 uint16_t
net_cksum_avx2(const void *buf, size_t len)
{
	const __m256i low = _mm256_set1_epi32(0xffff);
	const uint8_t *p = buf;
	size_t loads = len / 32;
	uint64_t sum = 0;

	while (loads > 0) {
		size_t batch = RTE_MIN(loads, (size_t)AVX2_BATCH_LOADS);
		__m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();
		uint32_t lanes[8];

		for (size_t j = 0; j < batch; j++, p += 32) {
			__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);

			lo = _mm256_add_epi32(lo, _mm256_and_si256(v, low));
			hi = _mm256_add_epi32(hi, _mm256_srli_epi32(v, 16));
		}
		/* Once per batch: plain stores and adds are as quick. */
		_mm256_storeu_si256((__m256i *)(void *)lanes, _mm256_add_epi32(lo, hi));
		for (unsigned int k = 0; k < 8; k++)
			sum += lanes[k];
		loads -= batch;
	}
	/* The tail (under 32 bytes, an odd last byte included) folded by
	 * rte_raw_cksum(): a folded value is congruent to its sum modulo
	 * 65535 and zero only when the sum is, so the result is unchanged. */
	sum += rte_raw_cksum(p, len % 32);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}
