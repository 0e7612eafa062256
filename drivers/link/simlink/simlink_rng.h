/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The link model's random numbers: xoshiro256** (Blackman and Vigna) seeded
 * through splitmix64. Written out here rather than taken from libc or DPDK so
 * that a seed gives the same sequence on every platform, compiler and DPDK
 * version, which is what makes a simulated failure replay exactly.
 *
 * Probabilities are compared as 53-bit fixed-point thresholds computed once
 * from the double parameters, so the per-packet decisions are integer
 * comparisons and p = 1 means "always", exactly.
 */
#ifndef SIMLINK_RNG_H
#define SIMLINK_RNG_H

#include <stdbool.h>
#include <stdint.h>

/** State of one random stream. */
struct simlink_rng {
	uint64_t s[4];
};

/** One step of splitmix64: advances *x and returns a well-mixed word. */
static inline uint64_t
simlink_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/*
 * Seed a stream from a splitmix64 state. The splitmix64 output function is a
 * bijection, so four consecutive outputs are distinct and at most one of them
 * is zero: the xoshiro state is never the forbidden all-zero state.
 */
static inline void
simlink_rng_seed(struct simlink_rng *r, uint64_t *sm)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = simlink_splitmix64(sm);
}

static inline uint64_t
simlink_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/** Next 64 random bits (xoshiro256**). */
static inline uint64_t
simlink_rng_next(struct simlink_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = simlink_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = simlink_rotl(s[3], 45);
	return result;
}

/** Fixed-point scale of probability thresholds: 2^53. */
#define SIMLINK_PROB_ONE (UINT64_C(1) << 53)

/*
 * Threshold of a probability in [0, 1] (checked by the caller): an event of
 * probability p happens when a 53-bit draw is below p * 2^53.
 */
static inline uint64_t
simlink_prob_threshold(double p)
{
	if (!(p > 0.0))
		return 0;
	if (p >= 1.0)
		return SIMLINK_PROB_ONE;
	return (uint64_t)(p * (double)SIMLINK_PROB_ONE);
}

/** Draw one event of threshold t; always consumes one number. */
static inline bool
simlink_rng_chance(struct simlink_rng *r, uint64_t threshold)
{
	return (simlink_rng_next(r) >> 11) < threshold;
}

/** A uniform integer in [0, n); n > 0 (multiply-high, no modulo bias worth noting). */
static inline uint64_t
simlink_rng_below(struct simlink_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)simlink_rng_next(r) * n) >> 64);
}

#endif /* SIMLINK_RNG_H */
