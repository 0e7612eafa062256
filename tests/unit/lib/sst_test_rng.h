/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Deterministic randomness for tests that need a random-source callback
 * (the secure handshake's): splitmix64 over a 64-bit state.
 */
#ifndef SST_TEST_RNG_H
#define SST_TEST_RNG_H

#include <stddef.h>
#include <stdint.h>

/** Fill buf from the splitmix64 state *(uint64_t *)ctx, advancing it. */
static inline void
sst_test_splitmix_fill(void *ctx, void *buf, size_t len)
{
	uint64_t *x = ctx;
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++) {
		uint64_t z = (*x += 0x9e3779b97f4a7c15);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
		p[i] = (uint8_t)(z ^ (z >> 31));
	}
}

#endif /* SST_TEST_RNG_H */
