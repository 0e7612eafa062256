/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cache of size classes (lib/common/sst_mem.h, issue 21): classes that
 * hold every size with at most a fifth wasted, objects zeroed and aligned
 * whether fresh or reused, released objects reused before the backing
 * allocator is asked again, large objects passed through, a backing that
 * fails leaving the cache as it was, and everything given back at fini.
 * A random model run checks that no two live objects overlap.
 */
#include <stdbool.h>
#include <string.h>

#include "sst_mem.h"
#include "sst_test.h"
#include "sst_test_mem.h"
#include "sst_test_rng.h"

/* Every byte equals the one before it, and the first is 0. */
static bool
all_zero(const uint8_t *p, size_t n)
{
	return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

static void
test_classes(void)
{
	size_t prev = 0;

	for (size_t size = 1; size <= SST_MEM_CACHE_MAX; size += 1 + size / 97) {
		size_t c = sst_mem_cache_class_size(size);

		CU_ASSERT_TRUE_FATAL(c >= size && c % 64 == 0);
		CU_ASSERT_TRUE(c >= prev);
		/* A quarter of a doubling: at most 25 % over (the first four
		 * classes are whole cache lines). */
		if (size > 256)
			CU_ASSERT_TRUE(c - size < size / 4 + 64);
		prev = c;
	}
	CU_ASSERT_EQUAL(sst_mem_cache_class_size(SST_MEM_CACHE_MAX), SST_MEM_CACHE_MAX);
	CU_ASSERT_EQUAL(sst_mem_cache_class_size(SST_MEM_CACHE_MAX + 1), SST_MEM_CACHE_MAX + 1);
	CU_ASSERT_EQUAL(sst_mem_cache_class_size(1), 64);
	CU_ASSERT_EQUAL(sst_mem_cache_class_size(257), 320);
}

static void
test_reuse_and_zero(void)
{
	struct sst_test_mem backing;
	struct sst_mem_cache mc;
	const struct sst_mem_ops *ops;
	uint8_t *a, *b, *c;

	sst_test_mem_init(&backing);
	sst_mem_cache_init(&mc, &backing.ops);
	ops = sst_mem_cache_ops(&mc);
	a = ops->zalloc(ops->ctx, 1000);
	b = ops->zalloc(ops->ctx, 1000);
	CU_ASSERT_TRUE_FATAL(a != NULL && b != NULL && a != b);
	CU_ASSERT_TRUE((uintptr_t)a % 64 == 0 && (uintptr_t)b % 64 == 0);
	/* One chunk serves both. */
	CU_ASSERT_TRUE(backing.allocs == 1 && mc.stats.chunks == 1);
	memset(a, 0xee, 1000);
	ops->release(ops->ctx, a, 1000);
	/* Same class: the released object again, zeroed. */
	c = ops->zalloc(ops->ctx, 990);
	CU_ASSERT_PTR_EQUAL(c, a);
	CU_ASSERT_TRUE(all_zero(c, 990));
	/* Another class does not take it. */
	ops->release(ops->ctx, c, 990);
	c = ops->zalloc(ops->ctx, 100);
	CU_ASSERT_TRUE(c != a && c != NULL);
	CU_ASSERT_EQUAL(mc.stats.in_use_bytes,
		sst_mem_cache_class_size(1000) + sst_mem_cache_class_size(100));
	ops->release(ops->ctx, b, 1000);
	ops->release(ops->ctx, c, 100);
	ops->release(ops->ctx, NULL, 100);
	CU_ASSERT_EQUAL(mc.stats.in_use_bytes, 0);
	CU_ASSERT_EQUAL(mc.stats.allocs, mc.stats.releases);
	sst_mem_cache_fini(&mc);
	CU_ASSERT_EQUAL(backing.live, 0);
	sst_mem_cache_fini(&mc); /* twice: nothing left */
}

static void
test_large_and_failure(void)
{
	struct sst_test_mem backing;
	struct sst_mem_cache mc;
	const struct sst_mem_ops *ops;
	uint8_t *big, *small;

	sst_test_mem_init(&backing);
	sst_mem_cache_init(&mc, &backing.ops);
	ops = sst_mem_cache_ops(&mc);
	big = ops->zalloc(ops->ctx, SST_MEM_CACHE_MAX + 1);
	CU_ASSERT_TRUE_FATAL(big != NULL);
	CU_ASSERT_TRUE(mc.stats.large == 1 && backing.live == 1 && mc.stats.chunks == 0);
	ops->release(ops->ctx, big, SST_MEM_CACHE_MAX + 1);
	CU_ASSERT_EQUAL(backing.live, 0);
	/* The backing refuses: NULL, counted, and the next try works. */
	backing.allow = 0;
	CU_ASSERT_PTR_NULL(ops->zalloc(ops->ctx, 64));
	CU_ASSERT_PTR_NULL(ops->zalloc(ops->ctx, SST_MEM_CACHE_MAX + 1));
	CU_ASSERT_EQUAL(mc.stats.failures, 2);
	backing.allow = UINT64_MAX;
	small = ops->zalloc(ops->ctx, 64);
	CU_ASSERT_TRUE_FATAL(small != NULL);
	/* A chunk is at least 64 KiB: the class's next objects need no more. */
	for (int i = 0; i < 1000; i++)
		CU_ASSERT_TRUE(ops->zalloc(ops->ctx, 64) != NULL);
	CU_ASSERT_EQUAL(backing.allocs, 2);
	/* An object larger than a minimum chunk: a chunk of its own. */
	CU_ASSERT_TRUE(ops->zalloc(ops->ctx, 100 * 1024) != NULL);
	CU_ASSERT_EQUAL(mc.stats.chunks, 2);
	sst_mem_cache_fini(&mc);
	CU_ASSERT_EQUAL(backing.live, 0);
}

/* Random sizes made and released: each live object carries its own byte
 * pattern, checked before release, so that overlapping objects show. */
static void
test_model(void)
{
	enum { N = 512, ROUNDS = 40000 };
	static struct {
		uint8_t *p;
		size_t size;
		uint8_t tag;
	} live[N];
	struct sst_test_mem backing;
	struct sst_mem_cache mc;
	const struct sst_mem_ops *ops;
	uint64_t rng = 42, in_use = 0;

	memset(live, 0, sizeof(live));
	sst_test_mem_init(&backing);
	sst_mem_cache_init(&mc, &backing.ops);
	ops = sst_mem_cache_ops(&mc);
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t x;
		unsigned int k;

		sst_test_splitmix_fill(&rng, &x, sizeof(x));
		k = (unsigned int)(x % N);
		if (live[k].p != NULL) {
			size_t i;

			for (i = 0; i < live[k].size && live[k].p[i] == live[k].tag; i++)
				;
			CU_ASSERT_EQUAL_FATAL(i, live[k].size);
			ops->release(ops->ctx, live[k].p, live[k].size);
			in_use -= sst_mem_cache_class_size(live[k].size);
			live[k].p = NULL;
			continue;
		}
		/* Mostly small, sometimes up to 96 KiB. */
		live[k].size = 1 + (size_t)((x >> 16) % ((x >> 8) % 8 == 0 ? 96 * 1024 : 2048));
		live[k].p = ops->zalloc(ops->ctx, live[k].size);
		CU_ASSERT_TRUE_FATAL(live[k].p != NULL && (uintptr_t)live[k].p % 64 == 0);
		CU_ASSERT_TRUE_FATAL(all_zero(live[k].p, live[k].size));
		live[k].tag = (uint8_t)(1 + r % 255);
		memset(live[k].p, live[k].tag, live[k].size);
		in_use += sst_mem_cache_class_size(live[k].size);
	}
	CU_ASSERT_EQUAL(mc.stats.in_use_bytes, in_use);
	CU_ASSERT_TRUE(mc.stats.reserved_bytes >= in_use);
	sst_mem_cache_fini(&mc);
	CU_ASSERT_EQUAL(backing.live, 0);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_classes),
	SST_TEST(test_reuse_and_zero),
	SST_TEST(test_large_and_failure),
	SST_TEST(test_model),
	SST_TEST_END,
};

SST_TEST_MAIN("mem_cache", cases)
