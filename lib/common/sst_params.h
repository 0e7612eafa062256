/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The size field of parameter structs (conventions.md 8: a struct that will
 * grow carries its size). Every library checks it with the one helper below,
 * so that the rule is written once.
 */
#ifndef SST_PARAMS_H
#define SST_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** For @p max of sst_params_size_ok(): the library reads only its own layout. */
#define SST_PARAMS_ANY_LARGER SIZE_MAX

/**
 * Whether a parameter struct's size field is one the library can read.
 *
 * The rule: a caller sets size to sizeof the struct it was compiled with.
 * The library accepts the struct when it can read every field it uses: at
 * least @p min bytes, and at most @p max. An API that reads the caller's
 * struct as its own passes min = sizeof and max = SST_PARAMS_ANY_LARGER (or
 * sizeof, where a newer caller's fields must not be ignored). An API that
 * copies the caller's first @p size bytes and reads the rest as zero (their
 * defaults) passes min = 1 and max = sizeof, so it never reads past its own
 * layout. Zero is never a size: where NULL parameters or size 0 mean "all
 * defaults" (the ring agent and client), the API tests that first.
 *
 * @param size
 *   The caller's size field.
 * @param min
 *   The fewest bytes the library accepts (1 or more).
 * @param max
 *   The most bytes the library accepts.
 * @return
 *   true when the size is accepted.
 */
static inline bool
sst_params_size_ok(uint32_t size, size_t min, size_t max)
{
	return size != 0 && size >= min && size <= max;
}

#endif /* SST_PARAMS_H */
