/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Reconstruction of 64-bit counters from their low bits on the wire: packet
 * sequence numbers and acknowledgments (24 bits, paper 4.2.2) and stream IDs
 * (16 bits, paper 4.3.1). The wire value is taken as a signed difference from
 * a reference the receiver already knows (the highest value seen so far), so
 * it may lie up to 2^(bits-1) - 1 ahead of or 2^(bits-1) behind it.
 */
#ifndef SST_SEQ_H
#define SST_SEQ_H

#include <stdint.h>

#include "sst_error.h"

/**
 * Expand a truncated counter.
 *
 * @param ref
 *   The reference value (e.g. highest sequence number received).
 * @param low
 *   The value on the wire; only its low @p bits bits are used.
 * @param bits
 *   Width of the wire field, 1..63.
 * @param out
 *   The reconstructed 64-bit value.
 * @return
 *   0, or -SST_ESEQRANGE if the nearest value lies below 0 or beyond
 *   UINT64_MAX (only a hostile or broken sender produces that).
 */
static inline int
sst_seq_expand(uint64_t ref, uint64_t low, unsigned int bits, uint64_t *out)
{
	const uint64_t mask = (UINT64_C(1) << bits) - 1;
	const uint64_t half = UINT64_C(1) << (bits - 1);
	uint64_t diff = (low - ref) & mask;

	if (diff < half) {
		if (ref > UINT64_MAX - diff)
			return -SST_ESEQRANGE;
		*out = ref + diff;
	} else {
		uint64_t back = (mask + 1) - diff;

		if (back > ref)
			return -SST_ESEQRANGE;
		*out = ref - back;
	}
	return 0;
}

#endif /* SST_SEQ_H */
