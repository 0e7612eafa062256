/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker's hash table (lib/engine/worker_table.[ch]) and its channel
 * numbers per endpoint (worker_peers.c): growth from the smallest size to
 * 100,000 objects with every object found after each doubling, deletion by
 * backward shift (objects after a removed one stay reachable, whatever the
 * wrap-around), equal hashes told apart by their keys, and numbers handed
 * out round robin per endpoint, 255 at most, independently per endpoint.
 */
#include <stdlib.h>

#include <rte_malloc.h>

#include "sst_test.h"
#include "sst_test_eal.h"
#include "worker_internal.h"

struct obj {
	uint32_t key;
};

static uint64_t
hash_of(uint32_t key)
{
	/* A poor hash on purpose: long runs and wrap-around happen. */
	return (uint64_t)(key % 97) * 0x100000001ull;
}

static struct obj *
find(const struct worker_table *t, uint32_t key)
{
	uint32_t pos = 0;
	struct obj *o;

	while ((o = worker_table_next(t, hash_of(key), &pos)) != NULL)
		if (o->key == key)
			return o;
	return NULL;
}

static void
test_grow_and_delete(void)
{
	enum { N = 100000 };
	struct worker_table t;
	struct obj *objs = calloc(N, sizeof(*objs));
	uint32_t slots_before;

	CU_ASSERT_FATAL(objs != NULL);
	CU_ASSERT_FATAL(worker_table_init(&t, "test_table", 0) == 0);
	CU_ASSERT_EQUAL(t.mask + 1, 16);
	for (uint32_t i = 0; i < N; i++) {
		objs[i].key = i;
		/* A hash that spreads (the poor one is for the small cases). */
		CU_ASSERT_FATAL(worker_table_add(&t, i * 0x9e3779b97f4a7c15ull, &objs[i]) == 0);
		/* After each doubling every object is still found. */
		if ((i & (i + 1)) == 0)
			for (uint32_t k = 0; k <= i; k += 1 + i / 64) {
				uint32_t pos = 0;
				struct obj *o;
				bool found = false;

				while ((o = worker_table_next(
						&t, k * 0x9e3779b97f4a7c15ull, &pos)) != NULL)
					found = found || o == &objs[k];
				CU_ASSERT(found);
			}
	}
	CU_ASSERT_EQUAL(t.count, N);
	CU_ASSERT((t.mask + 1) / 2 >= N);
	slots_before = t.mask + 1;
	for (uint32_t i = 0; i < N; i += 2)
		CU_ASSERT(worker_table_del(&t, i * 0x9e3779b97f4a7c15ull, &objs[i]) == 0);
	CU_ASSERT_EQUAL(t.count, N / 2);
	CU_ASSERT_EQUAL(t.mask + 1, slots_before);
	CU_ASSERT(worker_table_del(&t, 0, &objs[0]) == -ENOENT);
	worker_table_fini(&t);

	/* Colliding hashes, long runs wrapping round the end: delete from
	 * the middle of runs and check the rest after each deletion. */
	CU_ASSERT_FATAL(worker_table_init(&t, "test_table", 4096) == 0);
	for (uint32_t i = 0; i < 1500; i++)
		CU_ASSERT_FATAL(worker_table_add(&t, hash_of(i) | t.mask, &objs[i]) == 0);
	worker_table_fini(&t);
	CU_ASSERT_FATAL(worker_table_init(&t, "test_table", 4096) == 0);
	for (uint32_t i = 0; i < 1500; i++)
		CU_ASSERT_FATAL(worker_table_add(&t, hash_of(i), &objs[i]) == 0);
	for (uint32_t i = 0; i < 1500; i += 3) {
		CU_ASSERT(worker_table_del(&t, hash_of(i), &objs[i]) == 0);
		CU_ASSERT_PTR_NULL(find(&t, i));
	}
	for (uint32_t i = 0; i < 1500; i++)
		CU_ASSERT_PTR_EQUAL(find(&t, i), i % 3 == 0 ? NULL : &objs[i]);
	worker_table_fini(&t);
	free(objs);
}

/* Hashes that wrap round the end of the slots, and a walk that goes on
 * from where it stopped. */
static void
test_wrap_around(void)
{
	struct worker_table t;
	struct obj objs[8];

	CU_ASSERT_FATAL(worker_table_init(&t, "test_table", 16) == 0);
	for (uint32_t i = 0; i < 8; i++) {
		objs[i].key = i;
		CU_ASSERT_FATAL(worker_table_add(&t, 15, &objs[i]) == 0);
	}
	CU_ASSERT_EQUAL(t.mask, 15); /* 8 of 16: no growth yet */
	for (uint32_t i = 0; i < 8; i += 2)
		CU_ASSERT(worker_table_del(&t, 15, &objs[i]) == 0);
	{
		uint32_t pos = 0, seen = 0;

		while (worker_table_next(&t, 15, &pos) != NULL)
			seen++;
		CU_ASSERT_EQUAL(seen, 4);
	}
	worker_table_fini(&t);
}

static void
test_numbers_per_endpoint(void)
{
	struct sst_worker *w = rte_zmalloc("test_worker", sizeof(*w), 0);
	struct sst_net_endpoint a = {.addr = sst_net_addr4(10, 0, 0, 1), .port = 1000};
	struct sst_net_endpoint b = {.addr = sst_net_addr4(10, 0, 0, 1), .port = 1001};
	struct worker_ep *ea;
	int n;

	CU_ASSERT_FATAL(w != NULL && worker_peers_init(w) == 0);
	/* Two endpoints, numbered independently, round robin. */
	CU_ASSERT_EQUAL(worker_ep_take_number(w, &a), 1);
	CU_ASSERT_EQUAL(worker_ep_take_number(w, &b), 1);
	CU_ASSERT_EQUAL(worker_ep_take_number(w, &a), 2);
	ea = worker_ep_find(w, &a, worker_hash_ep(w, &a));
	CU_ASSERT_FATAL(ea != NULL);
	worker_ep_give_number(w, ea, 1, 0);
	CU_ASSERT_EQUAL(worker_ep_take_number(w, &a), 3); /* 1 comes back last */
	for (int i = 4; i < 256; i++)
		CU_ASSERT_EQUAL(worker_ep_take_number(w, &a), i);
	CU_ASSERT_EQUAL(worker_ep_take_number(w, &a), 1);
	CU_ASSERT_EQUAL(worker_ep_take_number(w, &a), -ENOSPC);
	CU_ASSERT_EQUAL(w->stats.numbers_exhausted, 1);
	CU_ASSERT_EQUAL(w->stats.endpoints, 2);
	/* An endpoint whose numbers all came back stays for the quiet
	 * period, then goes. */
	for (n = 1; n < 256; n++)
		worker_ep_give_number(w, ea, (uint8_t)n, 1000);
	CU_ASSERT_EQUAL(ea->ntaken, 0);
	worker_eps_expire(w, 1000 + SST_NEGO_FAIL_AFTER - 1);
	CU_ASSERT_PTR_EQUAL(worker_ep_find(w, &a, worker_hash_ep(w, &a)), ea);
	CU_ASSERT_EQUAL(worker_ep_take_number(w, &a), 2); /* the cursor survived */
	worker_ep_give_number(w, ea, 2, 2000);
	worker_eps_expire(w, 2000 + SST_NEGO_FAIL_AFTER);
	CU_ASSERT_PTR_NULL(worker_ep_find(w, &a, worker_hash_ep(w, &a)));
	CU_ASSERT_EQUAL(w->stats.endpoints, 1);
	worker_peers_fini(w);
	rte_free(w);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_grow_and_delete),
	SST_TEST(test_wrap_around),
	SST_TEST(test_numbers_per_endpoint),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_worker_table") < 0)
		return 1;
	return sst_test_run("worker_table", cases);
}
