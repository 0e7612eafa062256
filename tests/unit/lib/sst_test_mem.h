/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An allocator for growable tables (sst_mem.h) in unit tests without an
 * EAL: calloc/free, with the live bytes counted and failures on demand
 * (after a number of allocations, or every n-th one), so that a test can
 * make any growth fail. Each block remembers its size: a release that
 * names another size (sst_mem_ops.release) aborts the test.
 */
#ifndef SST_TEST_MEM_H
#define SST_TEST_MEM_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sst_mem.h"

struct sst_test_mem {
	struct sst_mem_ops ops;
	uint64_t allocs;     /**< successful allocations */
	uint64_t failures;   /**< allocations refused */
	uint64_t live;	     /**< allocations not yet released */
	uint64_t allow;	     /**< allocations allowed before all fail; UINT64_MAX: no limit */
	uint32_t fail_every; /**< 0: never; n: every n-th allocation fails */
	uint64_t calls;
};

static inline void *
sst_test_mem_zalloc(void *ctx, size_t size)
{
	struct sst_test_mem *t = ctx;

	t->calls++;
	if (t->allocs >= t->allow || (t->fail_every != 0 && t->calls % t->fail_every == 0)) {
		t->failures++;
		return NULL;
	}
	uint8_t *b = aligned_alloc(64, 64 + (size + 63) / 64 * 64);

	if (b == NULL)
		return NULL;
	memset(b, 0, 64 + size);
	*(size_t *)b = size;
	t->allocs++;
	t->live++;
	return b + 64;
}

static inline void
sst_test_mem_release(void *ctx, void *p, size_t size)
{
	struct sst_test_mem *t = ctx;

	uint8_t *b = (uint8_t *)p - 64;

	if (p == NULL)
		return;
	if (*(size_t *)b != size) {
		fprintf(stderr, "sst_test_mem: released %zu bytes of a block of %zu\n", size,
			*(size_t *)b);
		abort();
	}
	t->live--;
	free(b);
}

/** A fresh allocator that never fails. */
static inline void
sst_test_mem_init(struct sst_test_mem *t)
{
	*t = (struct sst_test_mem){
		.ops = {.zalloc = sst_test_mem_zalloc, .release = sst_test_mem_release, .ctx = t},
		.allow = UINT64_MAX,
	};
}

#endif /* SST_TEST_MEM_H */
