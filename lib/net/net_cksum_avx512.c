/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Internet checksum's AVX-512 kernel (AVX-512F and BW). Compiled for
 * the build's baseline CPU, with AVX-512 enabled per function: net_cksum.c
 * calls it only when the CPU has it and the EAL allows 512-bit vectors.
 *
 * The AVX2 kernel's sum (net_cksum_avx2.c) on 64-byte loads: the low and
 * the high 16-bit word of each of sixteen 32-bit lanes go to their own
 * accumulator, so the loop only adds, in memory order like rte_raw_cksum().
 * A lane of the two accumulators together grows by at most 2 * 65535 per
 * load, so 2^14 loads stay below 2^32 before the lanes are added up in 64
 * bits.
 *
 * The tail (under 64 bytes) is one masked load: the bytes past the end
 * read as zero (and are not touched: a masked-off byte never faults), so
 * an odd last byte is the low byte of its word, the word rte_raw_cksum()
 * adds for it. The folded result depends only on the exact total.
 */
#include <immintrin.h>

#include <rte_common.h>

#include "net_internal.h"

#define NET_AVX512 __attribute__((target("avx512f,avx512bw")))
#define AVX512_BATCH_LOADS (1u << 14)

/* Sum of the sixteen 32-bit lanes, in 64 bits: the even and the odd lane
 * of each 64-bit pair zero-extended and added. */
static NET_AVX512 uint64_t
lanes_sum(__m512i v)
{
	const __m512i even = _mm512_set1_epi64(0xffffffff);

	return (uint64_t)_mm512_reduce_add_epi64(
		_mm512_add_epi64(_mm512_and_si512(v, even), _mm512_srli_epi64(v, 32)));
}

NET_AVX512 uint16_t
net_cksum_avx512(const void *buf, size_t len)
{
	const __m512i low = _mm512_set1_epi32(0xffff);
	const uint8_t *p = buf;
	size_t loads = len / 64, tail = len % 64;
	uint64_t sum = 0;
	__m512i lo = _mm512_setzero_si512(), hi = _mm512_setzero_si512();

	while (loads > 0) {
		size_t batch = RTE_MIN(loads, (size_t)AVX512_BATCH_LOADS);

		for (size_t j = 0; j < batch; j++, p += 64) {
			__m512i v = _mm512_loadu_si512((const void *)p);

			lo = _mm512_add_epi32(lo, _mm512_and_si512(v, low));
			hi = _mm512_add_epi32(hi, _mm512_srli_epi32(v, 16));
		}
		loads -= batch;
		if (loads > 0) {
			sum += lanes_sum(_mm512_add_epi32(lo, hi));
			lo = _mm512_setzero_si512();
			hi = _mm512_setzero_si512();
		}
	}
	/* The tail adds at most one more load's worth to the last batch:
	 * (2^14 + 1) * 2 * 65535 is still below 2^32. */
	if (tail > 0) {
		__m512i v = _mm512_maskz_loadu_epi8(_cvtu64_mask64((UINT64_C(1) << tail) - 1), p);

		lo = _mm512_add_epi32(lo, _mm512_and_si512(v, low));
		hi = _mm512_add_epi32(hi, _mm512_srli_epi32(v, 16));
	}
	sum += lanes_sum(_mm512_add_epi32(lo, hi));
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}
