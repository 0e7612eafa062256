/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Chk32's AVX-512 kernel (AVX-512F and BW). Compiled for the build's
 * baseline CPU, with AVX-512 enabled per function: channel_chk32.c calls
 * it only when the CPU has it.
 *
 * The algebra is the AVX2 kernel's (channel_chk32_avx2.c) with chunks of
 * 32 words (one 64-byte load) instead of 16: over J chunks, n = 32J and
 *   sum((n - i) * w_i) = 32 * sum_j (J - j) * S_j - sum_k k * C_k,
 * the loop keeping the per-position sums C_k and the sum P of the running
 * totals of the chunk sums S_j.
 *
 * Lanes. vpshufb works inside each of the four 128-bit lanes, so a lane
 * holding words 8L .. 8L+7 gives words 8L .. 8L+3 to vector lo and
 * 8L+4 .. 8L+7 to hi, byte-swapped and widened to 32 bits (the weights
 * k_lo and k_hi below); each 32-bit lane of lo + hi, and so of P, covers
 * two positions.
 *
 * Bounds. After J chunks a lane of lo or hi is at most 65535 J, one of P
 * at most 65535 J (J + 1): J = 255 keeps that below 2^32, as for AVX2. The
 * weighted sum is where the wider chunk differs: a lane of
 * lo * k_lo + hi * k_hi is at most 65535 * 255 * (27 + 31) < 2^30, but
 * the sixteen lanes together reach 65535 * 255 * (0 + ... + 31), about
 * 2^33, so it is summed in 64 bits (the AVX2 kernel's fits 32).
 */
#include <immintrin.h>

#include <rte_common.h>

#include "channel_chk32.h"

#define CHK32_AVX512 __attribute__((target("avx512f,avx512bw")))
#define AVX512_BATCH_CHUNKS 255 /* between horizontal sums; see Bounds */

/* Sum of the sixteen 32-bit lanes, in 64 bits. */
static CHK32_AVX512 uint64_t
avx512_hsum64(__m512i v)
{
	__m512i w = _mm512_add_epi64(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(v)),
		_mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(v, 1)));

	return (uint64_t)_mm512_reduce_add_epi64(w);
}

CHK32_AVX512 size_t
chk32_kernel_avx512(uint64_t *a, uint64_t *b, const uint8_t *p, size_t nwords)
{
	/* Per 128-bit lane: bytes (1,0), (3,2), ... of the words each half
	 * takes, high byte first, zero-extended (-1 clears a byte). */
	const __m512i swap_lo = _mm512_broadcast_i32x4(
		_mm_setr_epi8(1, 0, -1, -1, 3, 2, -1, -1, 5, 4, -1, -1, 7, 6, -1, -1));
	const __m512i swap_hi = _mm512_broadcast_i32x4(
		_mm_setr_epi8(9, 8, -1, -1, 11, 10, -1, -1, 13, 12, -1, -1, 15, 14, -1, -1));
	const __m512i k_lo =
		_mm512_setr_epi32(0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27);
	const __m512i k_hi =
		_mm512_setr_epi32(4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31);
	size_t chunks = nwords / 32;

	while (chunks > 0) {
		size_t batch = RTE_MIN(chunks, (size_t)AVX512_BATCH_CHUNKS);
		__m512i c_lo = _mm512_setzero_si512(), c_hi = _mm512_setzero_si512();
		__m512i run = _mm512_setzero_si512();
		uint64_t n = 32 * (uint64_t)batch, total, weighted;

		for (size_t j = 0; j < batch; j++, p += 64) {
			__m512i v = _mm512_loadu_si512((const void *)p);

			c_lo = _mm512_add_epi32(c_lo, _mm512_shuffle_epi8(v, swap_lo));
			c_hi = _mm512_add_epi32(c_hi, _mm512_shuffle_epi8(v, swap_hi));
			run = _mm512_add_epi32(run, _mm512_add_epi32(c_lo, c_hi));
		}
		/* At most 32 * 65535 * 255 < 2^29: 32 bits hold it. */
		total = (uint32_t)_mm512_reduce_add_epi32(_mm512_add_epi32(c_lo, c_hi));
		weighted = avx512_hsum64(_mm512_add_epi32(
			_mm512_mullo_epi32(c_lo, k_lo), _mm512_mullo_epi32(c_hi, k_hi)));
		*b += n * *a + 32 * avx512_hsum64(run) - weighted;
		*a += total;
		chunks -= batch;
	}
	return nwords & ~(size_t)31;
}
