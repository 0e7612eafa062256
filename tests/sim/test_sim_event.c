/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The simulator's event queue: earliest time first, and events due at the
 * same time in the order they were pushed, whatever the heap's shape.
 */
#include <stdlib.h>

#include "sim_event.h"
#include "sst_test.h"

static void
test_event_empty(void)
{
	struct sim_event_queue q = {0};
	struct sim_event e;

	CU_ASSERT_PTR_NULL(sim_event_peek(&q));
	CU_ASSERT_FALSE(sim_event_pop(&q, &e));
	sim_event_queue_free(&q);
}

static void
test_event_ties_in_insertion_order(void)
{
	struct sim_event_queue q = {0};
	struct sim_event e;
	uint64_t seen = 0;

	/* 1000 events at 3 distinct times, interleaved; tag = push order. */
	for (uintptr_t i = 0; i < 1000; i++) {
		e = (struct sim_event){.time = (i * 7) % 3, .obj = (void *)i};
		CU_ASSERT_EQUAL_FATAL(sim_event_push(&q, &e), 0);
	}
	for (sst_time_t t = 0; t < 3; t++) {
		uintptr_t last = 0;
		bool first = true;

		for (uintptr_t k = 0; k < 1000; k++) {
			if ((k * 7) % 3 != t)
				continue;
			CU_ASSERT_TRUE_FATAL(sim_event_pop(&q, &e));
			CU_ASSERT_EQUAL(e.time, t);
			CU_ASSERT_EQUAL((uintptr_t)e.obj, k);
			CU_ASSERT_TRUE(first || (uintptr_t)e.obj > last);
			last = (uintptr_t)e.obj;
			first = false;
			seen++;
		}
	}
	CU_ASSERT_EQUAL(seen, 1000);
	CU_ASSERT_FALSE(sim_event_pop(&q, &e));
	sim_event_queue_free(&q);
}

static void
test_event_random_order(void)
{
	struct sim_event_queue q = {0};
	struct sim_event e, prev = {0};
	uint64_t x = 12345;

	for (int i = 0; i < 20000; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		e = (struct sim_event){.time = (x >> 33) % 5000};
		CU_ASSERT_EQUAL_FATAL(sim_event_push(&q, &e), 0);
		/* Pop now and then, so pushes and pops interleave. */
		if (i % 3 == 2)
			CU_ASSERT_TRUE(sim_event_pop(&q, &e));
	}
	sim_event_queue_free(&q);

	q = (struct sim_event_queue){0};
	for (int i = 0; i < 20000; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		e = (struct sim_event){.time = (x >> 33) % 5000};
		CU_ASSERT_EQUAL_FATAL(sim_event_push(&q, &e), 0);
	}
	for (int i = 0; i < 20000; i++) {
		CU_ASSERT_TRUE_FATAL(sim_event_pop(&q, &e));
		if (i > 0) {
			CU_ASSERT_TRUE(
				e.time > prev.time || (e.time == prev.time && e.seq > prev.seq));
		}
		prev = e;
	}
	CU_ASSERT_PTR_NULL(sim_event_peek(&q));
	sim_event_queue_free(&q);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_event_empty),
	SST_TEST(test_event_ties_in_insertion_order),
	SST_TEST(test_event_random_order),
	SST_TEST_END,
};

SST_TEST_MAIN("sim_event", cases)
