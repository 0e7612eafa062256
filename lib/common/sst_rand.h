/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A tiny deterministic generator for data-structure balancing (treap
 * priorities): fast, seeded, reproducible in the simulator. Not for secrets
 * or anything an attacker must not predict.
 */
#ifndef SST_RAND_H
#define SST_RAND_H

#include <stdint.h>

/**
 * xorshift32: the next value of the stream kept in *state (never 0).
 *
 * @param state
 *   The generator's state, not 0; advanced.
 * @return
 *   The next value (never 0).
 */
static inline uint32_t
sst_xorshift32(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

#endif /* SST_RAND_H */
