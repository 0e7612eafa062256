/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The libraries' allocators for growable tables and per-channel objects:
 * the DPDK heap, and a cache of size classes over it (sst_mem.h).
 */
#include <stdbool.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "sst_mem.h"

static void *
rte_zalloc_op(void *ctx, size_t size)
{
	RTE_SET_USED(ctx);
	return rte_zmalloc("sst_table", size, RTE_CACHE_LINE_SIZE);
}

static void
rte_free_op(void *ctx, void *p, size_t size)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(size);
	rte_free(p);
}

const struct sst_mem_ops sst_mem_rte = {
	.zalloc = rte_zalloc_op,
	.release = rte_free_op,
	.ctx = NULL,
};

/* ---- The cache ---- */

enum {
	LINE = 64,
	/* A chunk holds at least this much (or one object of a larger class),
	 * so that even small classes take the backing allocator rarely. */
	CHUNK_MIN = 64 * 1024,
	/* Where a chunk's objects start: its header (the chunk list's link
	 * and the chunk's size) keeps the objects cache-line aligned. */
	CHUNK_HEADER = LINE,
};

struct chunk {
	struct chunk *next;
	size_t bytes;
};

/* The class of an object of n cache lines: n itself up to 4, then four
 * classes per doubling, (4 + j) << (k - 2) lines for j = 0..3. */
static unsigned int
class_of(size_t size, size_t *class_bytes)
{
	size_t n = RTE_MAX((size + LINE - 1) / LINE, (size_t)1);
	unsigned int k, sub;

	if (n <= 4) {
		*class_bytes = n * LINE;
		return (unsigned int)n - 1;
	}
	k = 63u - (unsigned int)__builtin_clzll((unsigned long long)(n - 1));
	sub = (unsigned int)((n - 1) >> (k - 2)); /* 4..7 */
	*class_bytes = ((size_t)(sub + 1) << (k - 2)) * LINE;
	return 4 + (k - 2) * 4 + (sub - 4);
}

size_t
sst_mem_cache_class_size(size_t size)
{
	size_t bytes;

	if (size > SST_MEM_CACHE_MAX)
		return size;
	class_of(size, &bytes);
	return bytes;
}

/* A new chunk for class c (objects of `bytes`); false when the backing
 * has no memory. */
static bool
chunk_add(struct sst_mem_cache *mc, unsigned int c, size_t bytes)
{
	size_t payload = RTE_MAX(bytes, (size_t)CHUNK_MIN) / bytes * bytes;
	size_t total = CHUNK_HEADER + payload;
	struct chunk *ch = mc->backing->zalloc(mc->backing->ctx, total);

	if (ch == NULL)
		return false;
	ch->next = mc->chunks;
	ch->bytes = total;
	mc->chunks = ch;
	mc->bump[c] = (uint8_t *)ch + CHUNK_HEADER;
	mc->bump_end[c] = mc->bump[c] + payload;
	mc->stats.chunks++;
	mc->stats.reserved_bytes += total;
	return true;
}

static void *
cache_zalloc(void *ctx, size_t size)
{
	struct sst_mem_cache *mc = ctx;
	size_t bytes;
	unsigned int c;
	void *obj;

	if (size > SST_MEM_CACHE_MAX) {
		obj = mc->backing->zalloc(mc->backing->ctx, size);
		if (obj == NULL) {
			mc->stats.failures++;
			return NULL;
		}
		mc->stats.large++;
		mc->stats.reserved_bytes += size;
		mc->stats.in_use_bytes += size;
		mc->stats.allocs++;
		return obj;
	}
	c = class_of(size, &bytes);
	obj = mc->free[c];
	if (obj != NULL) {
		mc->free[c] = *(void **)obj;
		/* A released object is dirty; fresh chunks come zeroed. */
		memset(obj, 0, size);
	} else {
		if (mc->bump[c] == mc->bump_end[c] && !chunk_add(mc, c, bytes)) {
			mc->stats.failures++;
			return NULL;
		}
		obj = mc->bump[c];
		mc->bump[c] += bytes;
	}
	mc->stats.in_use_bytes += bytes;
	mc->stats.allocs++;
	return obj;
}

static void
cache_release(void *ctx, void *p, size_t size)
{
	struct sst_mem_cache *mc = ctx;
	size_t bytes;
	unsigned int c;

	if (p == NULL)
		return;
	mc->stats.releases++;
	if (size > SST_MEM_CACHE_MAX) {
		mc->stats.in_use_bytes -= size;
		mc->stats.reserved_bytes -= size;
		mc->backing->release(mc->backing->ctx, p, size);
		return;
	}
	c = class_of(size, &bytes);
#ifndef NDEBUG
	memset(p, 0x5a, bytes);
#endif
	*(void **)p = mc->free[c];
	mc->free[c] = p;
	mc->stats.in_use_bytes -= bytes;
}

void
sst_mem_cache_init(struct sst_mem_cache *mc, const struct sst_mem_ops *backing)
{
	memset(mc, 0, sizeof(*mc));
	mc->backing = backing;
	mc->ops = (struct sst_mem_ops){.zalloc = cache_zalloc, .release = cache_release, .ctx = mc};
}

void
sst_mem_cache_fini(struct sst_mem_cache *mc)
{
	struct chunk *ch = mc->chunks;

	while (ch != NULL) {
		struct chunk *next = ch->next;

		mc->backing->release(mc->backing->ctx, ch, ch->bytes);
		ch = next;
	}
	mc->chunks = NULL;
	memset(mc->free, 0, sizeof(mc->free));
	memset(mc->bump, 0, sizeof(mc->bump));
	memset(mc->bump_end, 0, sizeof(mc->bump_end));
	mc->stats.reserved_bytes = 0;
	mc->stats.in_use_bytes = 0;
}
