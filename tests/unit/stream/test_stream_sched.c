/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the stream priority scheduler (lib/stream/stream_sched.c): init
 * and argument errors; strict priority; round robin within a level; byte
 * fairness with unequal segment sizes over 1 MB; Figure 9 of the paper in
 * miniature; ready/unready churn without starvation; set_priority on ready
 * and unready entries (owner, cursor and plain members of a level); removal
 * of the current entry; 1000 streams at random priorities against a model;
 * and the extreme priorities and byte counts. After each step the level
 * treap, the rings and the credits are checked against their invariants.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sst_test.h"
#include "stream_sched.h"

#define QUANTUM 1500u

struct stream {
	struct sst_sched_entry e;
	uint64_t sent;
	uint32_t seg;
	uint32_t picks;
};

#define STREAM(ep) ((struct stream *)((char *)(ep)-offsetof(struct stream, e)))

static struct sst_sched sched;
static struct sst_sched other;
static struct stream st[1000];

static uint64_t rng_state;

static uint64_t
rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Walk the subtree of @p n: order, heap, parents, rings and credits. */
static unsigned
check_node(const struct sst_sched *s, const struct sst_sched_entry *n,
	const struct sst_sched_entry *parent, int64_t lo, int64_t hi, uint32_t *levels,
	uint32_t *ready, int32_t *max)
{
	unsigned bad = 0;
	const struct sst_sched_entry *x;
	uint32_t k = 0;
	bool cursor_seen = false;

	if (n == NULL)
		return 0;
	(*levels)++;
	if (!n->owner || n->parent != parent || n->prio < lo || n->prio > hi)
		bad++;
	if (parent != NULL && parent->heap < n->heap)
		bad++;
	if (*levels == 1 || n->prio > *max)
		*max = n->prio;
	x = n;
	do {
		if (x->sched != s || x->prio != n->prio || x->next->prev != x ||
			(x != n && x->owner))
			bad++;
		if (x == n->cursor) {
			cursor_seen = true;
			if (x->deficit <= 0)
				bad++;
		} else if (x->deficit > 0 || x->deficit < 1 - (int32_t)s->quantum) {
			bad++;
		}
		x = x->next;
		k++;
	} while (x != n && k <= 1000);
	if (!cursor_seen || k > 1000)
		bad++;
	*ready += k;
	bad += check_node(s, n->left, n, lo, (int64_t)n->prio - 1, levels, ready, max);
	bad += check_node(s, n->right, n, (int64_t)n->prio + 1, hi, levels, ready, max);
	return bad;
}

/* Check every invariant of @p s; returns the number of violations. */
static unsigned
check_sched(const struct sst_sched *s)
{
	uint32_t levels = 0, ready = 0;
	int32_t max = 0;
	unsigned bad = check_node(s, s->root, NULL, INT32_MIN, INT32_MAX, &levels, &ready, &max);

	if (levels != s->stats.levels || ready != s->stats.ready)
		bad++;
	if ((levels == 0) != (s->top == NULL) || (s->top != NULL && s->top->prio != max))
		bad++;
	return bad;
}

static void
setup(uint32_t n, int32_t prio, uint32_t seg)
{
	CU_ASSERT_EQUAL_FATAL(sst_sched_init(&sched, QUANTUM), 0);
	memset(st, 0, sizeof(st));
	for (uint32_t i = 0; i < n; i++) {
		sst_sched_entry_init(&st[i].e, prio);
		st[i].seg = seg;
	}
}

/* Pick and serve one unit; returns the stream served or NULL. */
static struct stream *
serve_one(void)
{
	struct sst_sched_entry *e = sst_sched_next(&sched);
	struct stream *x;

	if (e == NULL)
		return NULL;
	x = STREAM(e);
	x->sent += x->seg;
	x->picks++;
	sst_sched_served(&sched, e, x->seg);
	return x;
}

/* Serve until @p bytes have been sent in total; clears the counters first. */
static void
serve_bytes(uint32_t n, uint64_t bytes)
{
	uint64_t total = 0;

	for (uint32_t i = 0; i < n; i++) {
		st[i].sent = 0;
		st[i].picks = 0;
	}
	while (total < bytes) {
		struct stream *x = serve_one();

		if (x == NULL)
			break;
		total += x->seg;
	}
}

static void
test_init(void)
{
	struct sst_sched_entry e;

	CU_ASSERT_EQUAL(sst_sched_init(NULL, QUANTUM), -EINVAL);
	CU_ASSERT_EQUAL(sst_sched_init(&sched, 0), -EINVAL);
	CU_ASSERT_EQUAL(sst_sched_init(&sched, SST_SCHED_QUANTUM_MAX + 1), -EINVAL);
	CU_ASSERT_EQUAL(sst_sched_init(&sched, SST_SCHED_QUANTUM_MAX), 0);
	CU_ASSERT_EQUAL(sst_sched_init(&sched, QUANTUM), 0);
	CU_ASSERT_EQUAL(sst_sched_init(&other, QUANTUM), 0);
	CU_ASSERT_PTR_NULL(sst_sched_next(&sched));
	sst_sched_entry_init(&e, 7);
	CU_ASSERT_EQUAL(sst_sched_entry_priority(&e), 7);
	CU_ASSERT(!sst_sched_entry_is_ready(&e));
	CU_ASSERT_EQUAL(sst_sched_ready(NULL, &e), -EINVAL);
	CU_ASSERT_EQUAL(sst_sched_ready(&sched, NULL), -EINVAL);
	CU_ASSERT_EQUAL(sst_sched_ready(&sched, &e), 0);
	CU_ASSERT_EQUAL(sst_sched_ready(&sched, &e), 0);
	CU_ASSERT_EQUAL(sst_sched_ready(&other, &e), -EBUSY);
	CU_ASSERT_PTR_NULL(sst_sched_next(&other));
	CU_ASSERT(sst_sched_entry_is_ready(&e));
	CU_ASSERT_PTR_EQUAL(sst_sched_next(&sched), &e);
	CU_ASSERT_EQUAL(sst_sched_stats(&sched)->ready, 1);
	CU_ASSERT_EQUAL(sst_sched_stats(&sched)->levels, 1);
	CU_ASSERT_EQUAL(check_sched(&sched), 0);
	sst_sched_unready(&e);
	sst_sched_unready(&e);
	CU_ASSERT_PTR_NULL(sst_sched_next(&sched));
	CU_ASSERT_EQUAL(sst_sched_stats(&sched)->ready, 0);
	CU_ASSERT_EQUAL(sst_sched_stats(&sched)->levels, 0);
	CU_ASSERT_EQUAL(check_sched(&sched), 0);
	/* A lone entry keeps being served turn after turn. */
	CU_ASSERT_EQUAL(sst_sched_ready(&sched, &e), 0);
	for (int i = 0; i < 10; i++) {
		CU_ASSERT_PTR_EQUAL(sst_sched_next(&sched), &e);
		sst_sched_served(&sched, &e, 4000);
	}
	CU_ASSERT_EQUAL(sst_sched_stats(&sched)->served_bytes, 40000);
	CU_ASSERT_EQUAL(check_sched(&sched), 0);
	sst_sched_fini(&sched);
	sst_sched_fini(&other);
	sst_sched_fini(NULL);
	sst_sched_unready(NULL);
	sst_sched_remove(NULL);
	sst_sched_set_priority(NULL, 1);
}

static void
test_strict_priority(void)
{
	setup(3, 0, QUANTUM);
	sst_sched_entry_init(&st[1].e, 5);
	sst_sched_entry_init(&st[2].e, -5);
	CU_ASSERT_EQUAL(sst_sched_ready(&sched, &st[0].e), 0);
	CU_ASSERT_EQUAL(sst_sched_ready(&sched, &st[2].e), 0);
	CU_ASSERT_PTR_EQUAL(sst_sched_next(&sched), &st[0].e);
	CU_ASSERT_EQUAL(sst_sched_ready(&sched, &st[1].e), 0);
	for (int i = 0; i < 100; i++)
		CU_ASSERT_PTR_EQUAL_FATAL(serve_one(), &st[1]);
	CU_ASSERT_EQUAL(st[0].picks, 0);
	CU_ASSERT_EQUAL(st[2].picks, 0);
	CU_ASSERT_EQUAL(sst_sched_stats(&sched)->levels, 3);
	sst_sched_unready(&st[1].e);
	CU_ASSERT_PTR_EQUAL(serve_one(), &st[0]);
	CU_ASSERT_PTR_EQUAL(serve_one(), &st[0]);
	CU_ASSERT_EQUAL(sst_sched_ready(&sched, &st[1].e), 0);
	CU_ASSERT_PTR_EQUAL(serve_one(), &st[1]);
	sst_sched_unready(&st[1].e);
	sst_sched_unready(&st[0].e);
	CU_ASSERT_PTR_EQUAL(serve_one(), &st[2]);
	CU_ASSERT_EQUAL(check_sched(&sched), 0);
}

static void
test_round_robin(void)
{
	static const int want[] = {0, 1, 2, 0, 1, 2, 0, 1, 2};

	setup(3, 3, QUANTUM);
	CU_ASSERT_EQUAL(sst_sched_ready(&sched, &st[0].e), 0);
	CU_ASSERT_EQUAL(sst_sched_ready(&sched, &st[1].e), 0);
	for (int i = 0; i < 10; i++)
		CU_ASSERT_PTR_EQUAL(serve_one(), &st[i % 2]);
	CU_ASSERT_EQUAL(sst_sched_ready(&sched, &st[2].e), 0);
	/* It joins the end of the round: after 0, whose turn it is. */
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CU_ASSERT_PTR_EQUAL(serve_one(), &st[want[i]]);
	/* Half a quantum per unit: two units per turn. */
	for (int i = 0; i < 3; i++)
		st[i].seg = QUANTUM / 2;
	for (int i = 0; i < 12; i++)
		CU_ASSERT_PTR_EQUAL(serve_one(), &st[(i / 2) % 3]);
	CU_ASSERT_EQUAL(check_sched(&sched), 0);
}

/* Streams with segments of @p segs share within 10% over 1 MB. */
static void
fairness_case(const uint32_t *segs, uint32_t n)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	setup(n, 0, 0);
	for (uint32_t i = 0; i < n; i++) {
		st[i].seg = segs[i];
		CU_ASSERT_EQUAL(sst_sched_ready(&sched, &st[i].e), 0);
	}
	serve_bytes(n, 1 << 20);
	for (uint32_t i = 0; i < n; i++) {
		lo = st[i].sent < lo ? st[i].sent : lo;
		hi = st[i].sent > hi ? st[i].sent : hi;
	}
	CU_ASSERT(lo > 0);
	CU_ASSERT(hi - lo <= hi / 10);
	/* DRR bound: one quantum plus one unit. */
	CU_ASSERT(hi - lo <= QUANTUM + QUANTUM);
	CU_ASSERT_EQUAL(check_sched(&sched), 0);
}

static void
test_byte_fairness(void)
{
	static const uint32_t two[] = {1000, 1460};
	static const uint32_t three[] = {64, 700, 1500};
	static const uint32_t small[] = {1, 1499};

	fairness_case(two, 2);
	/* Per-packet round robin would give 1460/1000 = 1.46 here. */
	CU_ASSERT(st[0].picks > st[1].picks + st[1].picks / 3);
	fairness_case(three, 3);
	fairness_case(small, 2);
}

static void
test_figure9(void)
{
	struct stream *a = &st[0], *b = &st[1], *c = &st[2];

	setup(3, 0, 1400);
	CU_ASSERT_EQUAL(sst_sched_ready(&sched, &a->e), 0);
	CU_ASSERT_EQUAL(sst_sched_ready(&sched, &b->e), 0);
	/* Two equal streams share the channel. */
	serve_bytes(3, 1400 * 1000);
	CU_ASSERT_EQUAL(a->picks, 500);
	CU_ASSERT_EQUAL(b->picks, 500);
	/* A high-priority stream takes it all while ready. */
	sst_sched_entry_init(&c->e, 1);
	CU_ASSERT_EQUAL(sst_sched_ready(&sched, &c->e), 0);
	serve_bytes(3, 1400 * 1000);
	CU_ASSERT_EQUAL(c->picks, 1000);
	CU_ASSERT_EQUAL(a->picks + b->picks, 0);
	/* Swapping priorities takes effect at the next pick. */
	sst_sched_set_priority(&c->e, 0);
	sst_sched_set_priority(&a->e, 1);
	CU_ASSERT_PTR_EQUAL(sst_sched_next(&sched), &a->e);
	serve_bytes(3, 1400 * 100);
	CU_ASSERT_EQUAL(a->picks, 100);
	sst_sched_set_priority(&a->e, 0);
	sst_sched_set_priority(&c->e, 1);
	CU_ASSERT_PTR_EQUAL(sst_sched_next(&sched), &c->e);
	serve_bytes(3, 1400 * 100);
	CU_ASSERT_EQUAL(c->picks, 100);
	/* When it empties, the others share again. */
	sst_sched_unready(&c->e);
	serve_bytes(3, 1400 * 1000);
	CU_ASSERT_EQUAL(c->picks, 0);
	CU_ASSERT_EQUAL(a->picks, 500);
	CU_ASSERT_EQUAL(b->picks, 500);
	CU_ASSERT_EQUAL(check_sched(&sched), 0);
}

static void
test_churn(void)
{
	enum { N = 8 };
	unsigned bad = 0;

	rng_state = 0x1234567;
	setup(N, 2, QUANTUM);
	for (int step = 0; step < 20000; step++) {
		struct stream *x = &st[rnd() % N];
		struct sst_sched_entry *e;

		if (rnd() % 2)
			sst_sched_ready(&sched, &x->e);
		else
			sst_sched_unready(&x->e);
		e = sst_sched_next(&sched);
		if (e != NULL && !sst_sched_entry_is_ready(e))
			bad++;
		if ((e == NULL) != (sst_sched_stats(&sched)->ready == 0))
			bad++;
		if (rnd() % 2)
			serve_one();
		bad += check_sched(&sched);
	}
	CU_ASSERT_EQUAL(bad, 0);
	/* No starvation: with all ready and a unit per turn, a round serves each once. */
	for (int i = 0; i < N; i++) {
		CU_ASSERT_EQUAL(sst_sched_ready(&sched, &st[i].e), 0);
		st[i].picks = 0;
	}
	for (int round = 1; round <= 3; round++) {
		for (int i = 0; i < N; i++)
			serve_one();
		for (int i = 0; i < N; i++)
			CU_ASSERT_EQUAL(st[i].picks, (uint32_t)round);
	}
}

static void
test_set_priority(void)
{
	setup(4, 0, QUANTUM);
	/* Unready: only the value changes; ready joins the new level. */
	sst_sched_set_priority(&st[3].e, 9);
	CU_ASSERT_EQUAL(sst_sched_entry_priority(&st[3].e), 9);
	CU_ASSERT(!sst_sched_entry_is_ready(&st[3].e));
	CU_ASSERT_PTR_NULL(sst_sched_next(&sched));
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(sst_sched_ready(&sched, &st[i].e), 0);
	CU_ASSERT_PTR_EQUAL(sst_sched_next(&sched), &st[0].e);
	CU_ASSERT_EQUAL(sst_sched_ready(&sched, &st[3].e), 0);
	CU_ASSERT_PTR_EQUAL(sst_sched_next(&sched), &st[3].e);
	sst_sched_set_priority(&st[3].e, -9);
	CU_ASSERT_PTR_EQUAL(sst_sched_next(&sched), &st[0].e);
	/* The same priority keeps the turn. */
	sst_sched_set_priority(&st[0].e, 0);
	CU_ASSERT_PTR_EQUAL(sst_sched_next(&sched), &st[0].e);
	/* A plain member moves up and is next. */
	sst_sched_set_priority(&st[2].e, 1);
	CU_ASSERT_PTR_EQUAL(sst_sched_next(&sched), &st[2].e);
	CU_ASSERT_EQUAL(check_sched(&sched), 0);
	sst_sched_set_priority(&st[2].e, 0);
	/* Level 0 is now 0 (owner, its turn), 1, 2. Moving the owner down hands the turn on. */
	CU_ASSERT(st[0].e.owner);
	sst_sched_set_priority(&st[0].e, -1);
	CU_ASSERT_EQUAL(check_sched(&sched), 0);
	CU_ASSERT_PTR_EQUAL(serve_one(), &st[1]);
	CU_ASSERT_PTR_EQUAL(serve_one(), &st[2]);
	CU_ASSERT_PTR_EQUAL(serve_one(), &st[1]);
	sst_sched_set_priority(&st[1].e, -1);
	sst_sched_set_priority(&st[2].e, -1);
	CU_ASSERT_EQUAL(sst_sched_stats(&sched)->levels, 2);
	CU_ASSERT_EQUAL(check_sched(&sched), 0);
	/* Level -1 in order of arrival: 0, 1, 2. */
	CU_ASSERT_PTR_EQUAL(serve_one(), &st[0]);
	CU_ASSERT_PTR_EQUAL(serve_one(), &st[1]);
	CU_ASSERT_PTR_EQUAL(serve_one(), &st[2]);
	CU_ASSERT_PTR_EQUAL(serve_one(), &st[0]);
	CU_ASSERT_EQUAL(check_sched(&sched), 0);
}

static void
test_remove_current(void)
{
	setup(3, 4, QUANTUM);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(sst_sched_ready(&sched, &st[i].e), 0);
	CU_ASSERT_PTR_EQUAL(sst_sched_next(&sched), &st[0].e);
	sst_sched_served(&sched, &st[0].e, 100);
	sst_sched_remove(&st[0].e);
	CU_ASSERT(!sst_sched_entry_is_ready(&st[0].e));
	CU_ASSERT_EQUAL(st[0].e.deficit, 0);
	CU_ASSERT_EQUAL(check_sched(&sched), 0);
	CU_ASSERT_PTR_EQUAL(sst_sched_next(&sched), &st[1].e);
	sst_sched_remove(&st[0].e);
	CU_ASSERT_EQUAL(sst_sched_stats(&sched)->ready, 2);
	CU_ASSERT_EQUAL(sst_sched_ready(&sched, &st[0].e), 0);
	CU_ASSERT_PTR_EQUAL(serve_one(), &st[1]);
	CU_ASSERT_PTR_EQUAL(serve_one(), &st[2]);
	CU_ASSERT_PTR_EQUAL(serve_one(), &st[0]);
	/* Removing every entry, the current one first, empties the scheduler. */
	sst_sched_remove(sst_sched_next(&sched));
	sst_sched_remove(sst_sched_next(&sched));
	CU_ASSERT_EQUAL(check_sched(&sched), 0);
	sst_sched_remove(sst_sched_next(&sched));
	CU_ASSERT_PTR_NULL(sst_sched_next(&sched));
	CU_ASSERT_PTR_NULL(sched.root);
	CU_ASSERT_EQUAL(sst_sched_stats(&sched)->levels, 0);
	CU_ASSERT_EQUAL(check_sched(&sched), 0);
}

/* A priority for the model test: a few crowded levels, many sparse ones, the extremes. */
static int32_t
rnd_prio(void)
{
	switch (rnd() % 4) {
	case 0:
		return (int32_t)(rnd() % 8);
	case 1:
		return (int32_t)(rnd() % 200) - 100;
	case 2:
		return (rnd() % 2) ? INT32_MAX : INT32_MIN;
	default:
		return (int32_t)(uint32_t)rnd();
	}
}

static void
test_many_levels(void)
{
	enum { N = 1000, STEPS = 200000 };
	unsigned bad = 0, bad_tree = 0;
	static bool ready[N];

	rng_state = 0xdeadbeef;
	setup(N, 0, 0);
	memset(ready, 0, sizeof(ready));
	for (int i = 0; i < N; i++) {
		sst_sched_entry_init(&st[i].e, rnd_prio());
		st[i].seg = 1 + (uint32_t)(rnd() % QUANTUM);
	}
	for (int step = 0; step < STEPS; step++) {
		uint32_t i = (uint32_t)(rnd() % N);
		struct sst_sched_entry *e;
		bool any = false;
		int32_t max = INT32_MIN;

		switch (rnd() % 8) {
		case 0:
		case 1:
		case 2:
			if (sst_sched_ready(&sched, &st[i].e) != 0)
				bad++;
			ready[i] = true;
			break;
		case 3:
		case 4:
			sst_sched_unready(&st[i].e);
			ready[i] = false;
			break;
		case 5:
			sst_sched_set_priority(&st[i].e, rnd_prio());
			break;
		case 6:
			sst_sched_remove(&st[i].e);
			ready[i] = false;
			break;
		default:
			serve_one();
			break;
		}
		for (int j = 0; j < N; j++) {
			if (ready[j] && (!any || st[j].e.prio > max))
				max = st[j].e.prio;
			any |= ready[j];
		}
		e = sst_sched_next(&sched);
		if (any != (e != NULL) || (e != NULL && (e->prio != max || !ready[STREAM(e) - st])))
			bad++;
		if (step % 97 == 0 || step == STEPS - 1)
			bad_tree += check_sched(&sched);
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(bad_tree, 0);
	CU_ASSERT(sst_sched_stats(&sched)->levels > 50);
}

static void
test_extremes(void)
{
	static const int32_t prios[] = {0, INT32_MIN, INT32_MAX, INT32_MIN + 1, INT32_MAX - 1, -1};

	setup(6, 0, QUANTUM);
	for (int i = 0; i < 6; i++) {
		sst_sched_entry_init(&st[i].e, prios[i]);
		CU_ASSERT_EQUAL(sst_sched_ready(&sched, &st[i].e), 0);
	}
	CU_ASSERT_EQUAL(sst_sched_stats(&sched)->levels, 6);
	CU_ASSERT_PTR_EQUAL(sst_sched_next(&sched), &st[2].e);
	/* Unready in priority order: the next is always the following one. */
	static const int order[] = {2, 4, 0, 5, 3, 1};
	for (int k = 0; k < 6; k++) {
		CU_ASSERT_PTR_EQUAL(sst_sched_next(&sched), &st[order[k]].e);
		sst_sched_unready(&st[order[k]].e);
	}
	CU_ASSERT_PTR_NULL(sst_sched_next(&sched));
	/* INT32_MIN to INT32_MAX and back. */
	CU_ASSERT_EQUAL(sst_sched_ready(&sched, &st[1].e), 0);
	CU_ASSERT_EQUAL(sst_sched_ready(&sched, &st[0].e), 0);
	sst_sched_set_priority(&st[1].e, INT32_MAX);
	CU_ASSERT_PTR_EQUAL(sst_sched_next(&sched), &st[1].e);
	sst_sched_set_priority(&st[1].e, INT32_MIN);
	CU_ASSERT_PTR_EQUAL(sst_sched_next(&sched), &st[0].e);
	/* Huge byte counts: debt is capped and turns still start with credit. */
	sst_sched_served(&sched, &st[0].e, UINT32_MAX);
	CU_ASSERT_EQUAL(st[0].e.deficit, 1); /* 1 - QUANTUM, then a new turn */
	CU_ASSERT_EQUAL(check_sched(&sched), 0);
	CU_ASSERT_EQUAL(sst_sched_init(&sched, SST_SCHED_QUANTUM_MAX), 0);
	sst_sched_entry_init(&st[0].e, INT32_MAX);
	sst_sched_entry_init(&st[1].e, INT32_MAX);
	CU_ASSERT_EQUAL(sst_sched_ready(&sched, &st[0].e), 0);
	CU_ASSERT_EQUAL(sst_sched_ready(&sched, &st[1].e), 0);
	for (int i = 0; i < 6; i++) {
		CU_ASSERT_PTR_EQUAL(sst_sched_next(&sched), &st[i % 2].e);
		sst_sched_served(&sched, sst_sched_next(&sched), UINT32_MAX);
	}
	CU_ASSERT_EQUAL(check_sched(&sched), 0);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_init),
	SST_TEST(test_strict_priority),
	SST_TEST(test_round_robin),
	SST_TEST(test_byte_fairness),
	SST_TEST(test_figure9),
	SST_TEST(test_churn),
	SST_TEST(test_set_priority),
	SST_TEST(test_remove_current),
	SST_TEST(test_many_levels),
	SST_TEST(test_extremes),
	SST_TEST_END,
};

SST_TEST_MAIN("stream_sched", cases)
