/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Chk32's AVX2 kernel. Compiled for the build's baseline CPU, with AVX2
 * enabled per function: channel_chk32.c calls it only when the CPU has it.
 *
 * The algebra. Over n words w_0 .. w_{n-1}, the definition's sums become
 *   a' = a + sum(w_i)
 *   b' = b + n * a + sum((n - i) * w_i).
 * Take the words in chunks of 16 (one 32-byte load), word k of chunk j
 * being w_{16j+k}, over J chunks (n = 16J). Then n - i = 16(J - j) - k and
 *   sum((n - i) * w_i) = 16 * sum_j (J - j) * S_j - sum_k k * C_k,
 * where S_j is the sum of chunk j and C_k the sum of word k over all
 * chunks. sum_j (J - j) * S_j is the sum, over the chunks, of the running
 * total of S up to and including each one: one vector addition per chunk,
 * no multiplication. So the loop keeps, in 32-bit lanes, the per-position
 * sums C_k and the sum P of running totals; the weights k and the
 * horizontal sums come once per batch of chunks.
 *
 * Lanes. A vpshufb per half of the chunk byte-swaps its big-endian words
 * and widens them to 32 bits in place: with vpshufb working inside each
 * 128-bit lane, vector lo holds words 0-3 and 8-11, hi holds 4-7 and 12-15
 * (the weights kLo and kHi below), and each 32-bit lane of lo, hi and P
 * covers two positions.
 *
 * Bounds. After J chunks a lane of lo or hi is at most 65535 J, and one
 * of P at most 65535 J (J + 1) (each running total lane covers two words);
 * J = 255 keeps that below 2^32. The weighted sum of the C_k is at most
 * 65535 * 255 * (0 + 1 + ... + 15) < 2^31.
 */
#include <immintrin.h>

#include <rte_common.h>

#include "channel_chk32.h"

#define CHK32_AVX2 __attribute__((target("avx2")))
#define AVX2_BATCH_CHUNKS 255 /* between horizontal sums; see Bounds */

/* Sum of the eight 32-bit lanes, when it cannot exceed 32 bits. */
static CHK32_AVX2 uint32_t
avx2_hsum32(__m256i v)
{
	__m128i x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));

	x = _mm_add_epi32(x, _mm_shuffle_epi32(x, _MM_SHUFFLE(1, 0, 3, 2)));
	x = _mm_add_epi32(x, _mm_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1)));
	return (uint32_t)_mm_cvtsi128_si32(x);
}

/* Sum of the eight 32-bit lanes, in 64 bits. */
static CHK32_AVX2 uint64_t
avx2_hsum64(__m256i v)
{
	__m256i w = _mm256_add_epi64(_mm256_cvtepu32_epi64(_mm256_castsi256_si128(v)),
		_mm256_cvtepu32_epi64(_mm256_extracti128_si256(v, 1)));
	__m128i x = _mm_add_epi64(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));

	return (uint64_t)_mm_cvtsi128_si64(x) + (uint64_t)_mm_extract_epi64(x, 1);
}

CHK32_AVX2 size_t
chk32_kernel_avx2(uint64_t *a, uint64_t *b, const uint8_t *p, size_t nwords)
{
	/* Per 128-bit lane: bytes (1,0), (3,2), ... of the words each half
	 * takes, high byte first, zero-extended (-1 clears a byte). */
	const __m256i swap_lo = _mm256_setr_epi8(1, 0, -1, -1, 3, 2, -1, -1, 5, 4, -1, -1, 7, 6, -1,
		-1, 1, 0, -1, -1, 3, 2, -1, -1, 5, 4, -1, -1, 7, 6, -1, -1);
	const __m256i swap_hi = _mm256_setr_epi8(9, 8, -1, -1, 11, 10, -1, -1, 13, 12, -1, -1, 15,
		14, -1, -1, 9, 8, -1, -1, 11, 10, -1, -1, 13, 12, -1, -1, 15, 14, -1, -1);
	const __m256i k_lo = _mm256_setr_epi32(0, 1, 2, 3, 8, 9, 10, 11);
	const __m256i k_hi = _mm256_setr_epi32(4, 5, 6, 7, 12, 13, 14, 15);
	size_t chunks = nwords / 16;

	while (chunks > 0) {
		size_t batch = RTE_MIN(chunks, (size_t)AVX2_BATCH_CHUNKS);
		__m256i c_lo = _mm256_setzero_si256(), c_hi = _mm256_setzero_si256();
		__m256i run = _mm256_setzero_si256();
		uint64_t n = 16 * (uint64_t)batch, total, weighted;

		for (size_t j = 0; j < batch; j++, p += 32) {
			__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);

			c_lo = _mm256_add_epi32(c_lo, _mm256_shuffle_epi8(v, swap_lo));
			c_hi = _mm256_add_epi32(c_hi, _mm256_shuffle_epi8(v, swap_hi));
			run = _mm256_add_epi32(run, _mm256_add_epi32(c_lo, c_hi));
		}
		total = avx2_hsum32(_mm256_add_epi32(c_lo, c_hi));
		weighted = avx2_hsum32(_mm256_add_epi32(
			_mm256_mullo_epi32(c_lo, k_lo), _mm256_mullo_epi32(c_hi, k_hi)));
		*b += n * *a + 16 * avx2_hsum64(run) - weighted;
		*a += total;
		chunks -= batch;
	}
	return nwords & ~(size_t)15;
}
