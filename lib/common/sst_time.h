/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Time in SST-DPDK. The protocol layers never read a clock: every function
 * that needs "now" takes it as an sst_time_t argument, so the same code runs
 * against a real clock in the engine and against virtual time in the
 * simulator, the fuzzers and the replay tools.
 */
#ifndef SST_TIME_H
#define SST_TIME_H

#include <stdint.h>

/** Nanoseconds since an arbitrary epoch chosen by whoever drives the layer. */
typedef uint64_t sst_time_t;

/** A time that never comes: the "no timer armed" value of *_next_expiry(). */
#define SST_TIME_NEVER UINT64_MAX

#define SST_NSEC_PER_USEC UINT64_C(1000)      /**< nanoseconds in a microsecond */
#define SST_NSEC_PER_MSEC UINT64_C(1000000)   /**< nanoseconds in a millisecond */
#define SST_NSEC_PER_SEC UINT64_C(1000000000) /**< nanoseconds in a second */

/**
 * Add a duration to a time without wrapping past SST_TIME_NEVER.
 *
 * @param t
 *   A time, or SST_TIME_NEVER.
 * @param duration
 *   Nanoseconds to add.
 * @return
 *   t + duration, or SST_TIME_NEVER when that would reach or pass it.
 */
static inline sst_time_t
sst_time_add(sst_time_t t, uint64_t duration)
{
	return t > SST_TIME_NEVER - duration ? SST_TIME_NEVER : t + duration;
}

/**
 * The earlier of two expiry times.
 *
 * @param a
 *   An expiry time (SST_TIME_NEVER: none).
 * @param b
 *   Another.
 * @return
 *   The smaller of the two.
 */
static inline sst_time_t
sst_time_min(sst_time_t a, sst_time_t b)
{
	return a < b ? a : b;
}

#endif /* SST_TIME_H */
