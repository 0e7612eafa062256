/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the receive window (lib/channel/channel_replay.c): the prototype's
 * 32-packet vectors (wire-format.md section 2), the exact too-old boundary,
 * duplicates and reordering, jumps that must not let old bits alias, the
 * contiguous run an ack word reports (packet 0 included), and large windows
 * against a naive model of the set of received numbers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel_replay.h"
#include "sst_test.h"

#define EXPECT_AT(got, want, at)                                                               \
	do {                                                                                   \
		long long g_ = (long long)(got), w_ = (long long)(want);                       \
		CU_ASSERT_EQUAL(g_, w_);                                                       \
		if (g_ != w_)                                                                  \
			fprintf(stderr, "  line %d, at %llu: got %lld, want %lld\n", __LINE__, \
				(unsigned long long)(at), g_, w_);                             \
	} while (0)

static struct sst_replay *
window_new(uint32_t size)
{
	size_t bytes = sst_replay_size(size);
	struct sst_replay *w;

	CU_ASSERT_FATAL(bytes != 0);
	w = malloc(bytes);
	CU_ASSERT_FATAL(w != NULL);
	memset(w, 0xa5, bytes); /* init must not rely on zeroed memory */
	CU_ASSERT_EQUAL_FATAL(sst_replay_init(w, size), 0);
	return w;
}

/* Check, then record: what the receive path does with an authentic packet. */
static void
recv_ok(struct sst_replay *w, uint64_t seq)
{
	EXPECT_AT(sst_replay_check(w, seq), SST_REPLAY_NEW, seq);
	sst_replay_update(w, seq);
}

static void
test_size_and_init_validation(void)
{
	static const uint32_t bad[] = {0, 1, 16, 31, 33, 48, 96, 100, 65535, 65537, 131072};
	size_t hdr = sizeof(struct sst_replay);
	uint64_t mem[4];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_AT(sst_replay_size(bad[i]), 0, bad[i]);
		EXPECT_AT(sst_replay_init((struct sst_replay *)mem, bad[i]), -EINVAL, bad[i]);
	}
	/* Windows below 64 packets still use one whole word. */
	CU_ASSERT_EQUAL(sst_replay_size(32), hdr + 8);
	CU_ASSERT_EQUAL(sst_replay_size(64), hdr + 8);
	CU_ASSERT_EQUAL(sst_replay_size(128), hdr + 16);
	CU_ASSERT_EQUAL(sst_replay_size(8192), hdr + 1024);
	CU_ASSERT_EQUAL(sst_replay_size(65536), hdr + 8192);
}

static void
test_packet0_counts_at_init(void)
{
	struct sst_replay *w = window_new(32);

	CU_ASSERT_EQUAL(w->highest, 0);
	CU_ASSERT_EQUAL(w->size, 32);
	CU_ASSERT_TRUE(sst_replay_received(w, 0));
	CU_ASSERT_EQUAL(sst_replay_check(w, 0), SST_REPLAY_DUPLICATE);
	CU_ASSERT_FALSE(sst_replay_received(w, 1));
	CU_ASSERT_EQUAL(sst_replay_check(w, 1), SST_REPLAY_NEW);
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 1, 15), 1);
	recv_ok(w, 1);
	/* ack=1/ct=1 (chk-01): packets 0-1. */
	CU_ASSERT_EQUAL(w->highest, 1);
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 1, 15), 1);
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 2, 15), 2);
	recv_ok(w, 2);
	recv_ok(w, 3);
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 3, 15), 3); /* ack=3/ct=3: 0-3 */
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 0, 15), 0);
	free(w);
}

/* The prototype's window: 1..40 in order, then the edge at highest - 32. */
static void
test_size32_vectors(void)
{
	struct sst_replay *w = window_new(32);

	for (uint64_t s = 1; s <= 40; s++) {
		recv_ok(w, s);
		EXPECT_AT(sst_replay_check(w, s), SST_REPLAY_DUPLICATE, s);
		EXPECT_AT(w->highest, s, s);
	}
	CU_ASSERT_EQUAL(sst_replay_check(w, 8), SST_REPLAY_TOO_OLD);   /* 32 behind */
	CU_ASSERT_EQUAL(sst_replay_check(w, 9), SST_REPLAY_DUPLICATE); /* 31 behind */
	CU_ASSERT_EQUAL(sst_replay_check(w, 1), SST_REPLAY_TOO_OLD);
	CU_ASSERT_EQUAL(sst_replay_check(w, 0), SST_REPLAY_TOO_OLD);
	CU_ASSERT_FALSE(sst_replay_received(w, 8));
	CU_ASSERT_TRUE(sst_replay_received(w, 9));
	CU_ASSERT_TRUE(sst_replay_received(w, 40));
	CU_ASSERT_FALSE(sst_replay_received(w, 41));
	CU_ASSERT_EQUAL(sst_replay_check(w, 41), SST_REPLAY_NEW);
	CU_ASSERT_EQUAL(sst_replay_check(w, 41 + (1u << 20)), SST_REPLAY_NEW);
	/* The run is limited by the window as well as by max. */
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 40, 100), 31); /* 9..39 */
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 41, 100), 32); /* 9..40 */

	/* A hole: 41 lost, 42..72 arrive; 41 stays acceptable until 73. */
	for (uint64_t s = 42; s <= 72; s++)
		recv_ok(w, s);
	CU_ASSERT_EQUAL(sst_replay_check(w, 41), SST_REPLAY_NEW); /* 31 behind */
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 72, 100), 30);	  /* 42..71 */
	recv_ok(w, 73);
	CU_ASSERT_EQUAL(sst_replay_check(w, 41), SST_REPLAY_TOO_OLD); /* 32 behind */
	CU_ASSERT_EQUAL(sst_replay_check(w, 42), SST_REPLAY_DUPLICATE);
	free(w);
}

/* Bits of numbers that left the window must not stand for new numbers. */
static void
test_size32_hole_after_jump(void)
{
	struct sst_replay *w = window_new(32);

	for (uint64_t s = 1; s <= 5; s++)
		recv_ok(w, s);
	recv_ok(w, 100);
	CU_ASSERT_EQUAL(sst_replay_check(w, 68), SST_REPLAY_TOO_OLD);
	/* 69 and 5 share a slot of the 64-slot ring; 69 was never received. */
	CU_ASSERT_EQUAL(sst_replay_check(w, 69), SST_REPLAY_NEW);
	for (uint64_t s = 69; s < 100; s++)
		EXPECT_AT(sst_replay_received(w, s), 0, s);
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 100, 15), 0);
	recv_ok(w, 69);
	CU_ASSERT_EQUAL(sst_replay_check(w, 69), SST_REPLAY_DUPLICATE);
	CU_ASSERT_EQUAL(sst_replay_check(w, 68), SST_REPLAY_TOO_OLD);
	recv_ok(w, 99);
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 100, 15), 1);
	free(w);
}

static void
test_duplicates_and_reordering(void)
{
	static const uint64_t order[] = {1, 2, 3, 6, 5, 4, 10, 8, 7, 9, 30, 12, 11, 29};
	struct sst_replay *w = window_new(32);

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		recv_ok(w, order[i]);
		EXPECT_AT(sst_replay_check(w, order[i]), SST_REPLAY_DUPLICATE, order[i]);
	}
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		EXPECT_AT(sst_replay_check(w, order[i]), SST_REPLAY_DUPLICATE, order[i]);
	CU_ASSERT_EQUAL(w->highest, 30);
	CU_ASSERT_EQUAL(sst_replay_check(w, 13), SST_REPLAY_NEW);
	CU_ASSERT_EQUAL(sst_replay_check(w, 28), SST_REPLAY_NEW);
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 12, 15), 12); /* 0..11 */
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 30, 15), 1);  /* 29 */
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 10, 15), 10);
	free(w);
}

/* check() is a pure function of the window. */
static void
test_check_does_not_change_state(void)
{
	struct sst_replay *w = window_new(128);
	size_t bytes = sst_replay_size(128);
	uint8_t before[sizeof(struct sst_replay) + 16];
	static const uint64_t probes[] = {0, 1, 3, 50, 199, 200, 201, 202, 300, 1000, UINT64_MAX};

	for (uint64_t s = 1; s <= 200; s += 2)
		recv_ok(w, s);
	memcpy(before, w, bytes);
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		(void)sst_replay_check(w, probes[i]);
		(void)sst_replay_received(w, probes[i]);
		(void)sst_replay_run_below(w, probes[i], 100);
		EXPECT_AT(memcmp(before, w, bytes), 0, probes[i]);
	}
	CU_ASSERT_EQUAL(w->highest, 199);
	CU_ASSERT_EQUAL(sst_replay_check(w, 71), SST_REPLAY_TOO_OLD); /* 128 behind */
	CU_ASSERT_EQUAL(sst_replay_check(w, 72), SST_REPLAY_NEW);
	CU_ASSERT_EQUAL(sst_replay_check(w, 73), SST_REPLAY_DUPLICATE);
	CU_ASSERT_EQUAL(sst_replay_check(w, 1000), SST_REPLAY_NEW);
	/* A check that is not followed by an update leaves it acceptable. */
	CU_ASSERT_EQUAL(sst_replay_check(w, 72), SST_REPLAY_NEW);
	free(w);
}

/* From a full window, jump ahead by many distances (on both sides of the
 * ring size and of the window size) and compare every number in the new
 * window with what was really received. */
static void
test_jumps_do_not_alias(void)
{
	static const uint32_t sizes[] = {32, 64, 128, 8192, 65536};

	for (size_t z = 0; z < 2 * sizeof(sizes) / sizeof(sizes[0]); z++) {
		uint32_t n = sizes[z / 2];
		uint64_t deltas[] = {1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, n / 2, n - 1, n,
			n + 1, 2 * n - 1, 2 * n, 2 * n + 1, 3 * n, 5 * (uint64_t)n + 7};
		struct sst_replay *base = window_new(n);
		struct sst_replay *w = window_new(n);
		size_t bytes = sst_replay_size(n);
		/* received: 1 .. h, all except multiples of 5; with h = n + 63
		 * the jump starts on a word boundary of the ring */
		uint64_t h = n + (z % 2 ? 63 : 17);

		for (uint64_t s = 1; s <= h; s++)
			if (s % 5 != 0)
				recv_ok(base, s);
		for (size_t d = 0; d < sizeof(deltas) / sizeof(deltas[0]); d++) {
			uint64_t j = h + deltas[d];
			uint32_t bad = 0;

			memcpy(w, base, bytes);
			recv_ok(w, j);
			CU_ASSERT_EQUAL(w->highest, j);
			for (uint64_t x = j - n + 1; x < j; x++) {
				bool want = x <= h && x % 5 != 0;

				if (sst_replay_received(w, x) != want ||
					sst_replay_check(w, x) !=
						(want ? SST_REPLAY_DUPLICATE : SST_REPLAY_NEW))
					bad++;
			}
			EXPECT_AT(bad, 0, (uint64_t)n * 1000 + d);
			EXPECT_AT(sst_replay_check(w, j - n), SST_REPLAY_TOO_OLD, deltas[d]);
			EXPECT_AT(sst_replay_check(w, j), SST_REPLAY_DUPLICATE, deltas[d]);
			EXPECT_AT(sst_replay_received(w, j - n), 0, deltas[d]);
		}
		free(base);
		free(w);
	}
}

/* Runs that cross word boundaries (slot 63/64, 127/128 and the ring's wrap). */
static void
test_run_below_word_boundaries(void)
{
	struct sst_replay *w = window_new(256);

	for (uint64_t s = 1; s <= 150; s++)
		if (s != 40)
			recv_ok(w, s);
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 150, 1000), 109); /* 41..149 */
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 151, 1000), 110); /* 41..150 */
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 65, 100), 24);	  /* 41..64 */
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 64, 100), 23);	  /* 41..63 */
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 129, 100), 88);	  /* 41..128 */
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 41, 100), 0);
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 40, 100), 40); /* 0..39 */
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 150, 15), 15);
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 150, 0), 0);
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 152, 100), 0); /* 151 not received */
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 1000, 100), 0);
	free(w);

	/* 32-packet window over its 64-slot ring: the run wraps slot 0 -> 63
	 * (64 -> 63) and stops at the window, not at the ring. */
	w = window_new(32);
	for (uint64_t s = 1; s <= 70; s++)
		recv_ok(w, s);
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 70, 100), 31); /* 39..69 */
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 66, 3), 3);
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 66, 100), 27); /* 39..65 */
	free(w);

	/* Two words, many laps of the ring. */
	w = window_new(128);
	for (uint64_t s = 1; s <= 300; s++)
		recv_ok(w, s);
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 300, 1000), 127); /* 173..299 */
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 256, 1000), 83);  /* 173..255 */
	free(w);
}

/* Packet 0 leaves the window like any other number. */
static void
test_packet0_leaves_window(void)
{
	struct sst_replay *w = window_new(32);

	recv_ok(w, 31);
	CU_ASSERT_TRUE(sst_replay_received(w, 0));
	CU_ASSERT_EQUAL(sst_replay_check(w, 1), SST_REPLAY_NEW);
	recv_ok(w, 32);
	CU_ASSERT_FALSE(sst_replay_received(w, 0));
	CU_ASSERT_EQUAL(sst_replay_check(w, 0), SST_REPLAY_TOO_OLD);
	CU_ASSERT_EQUAL(sst_replay_check(w, 1), SST_REPLAY_NEW);
	CU_ASSERT_EQUAL(sst_replay_run_below(w, 1, 15), 0);
	free(w);
}

/* ---- randomized comparison with a naive set of received numbers ---- */

static uint64_t rng;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

#define SET_SLOTS (1u << 18) /* more than twice the numbers ever inserted */

struct set {
	uint64_t *v; /* open addressing; value + 1 so that 0 means empty */
};

static bool
set_has(const struct set *s, uint64_t x)
{
	for (uint64_t i = (x * UINT64_C(0x9e3779b97f4a7c15)) >> 46;; i = (i + 1) % SET_SLOTS) {
		if (s->v[i] == 0)
			return false;
		if (s->v[i] == x + 1)
			return true;
	}
}

static void
set_add(struct set *s, uint64_t x)
{
	uint64_t i = (x * UINT64_C(0x9e3779b97f4a7c15)) >> 46;

	while (s->v[i] != 0 && s->v[i] != x + 1)
		i = (i + 1) % SET_SLOTS;
	s->v[i] = x + 1;
}

static enum sst_replay_verdict
model_check(const struct set *s, uint64_t highest, uint32_t size, uint64_t seq)
{
	if (seq > highest)
		return SST_REPLAY_NEW;
	if (highest - seq >= size)
		return SST_REPLAY_TOO_OLD;
	return set_has(s, seq) ? SST_REPLAY_DUPLICATE : SST_REPLAY_NEW;
}

static uint32_t
model_run(const struct set *s, uint64_t highest, uint32_t size, uint64_t seq, uint32_t max)
{
	uint32_t run = 0;

	while (run < max && seq > run &&
		model_check(s, highest, size, seq - run - 1) == SST_REPLAY_DUPLICATE)
		run++;
	return run;
}

static void
random_vs_model(uint32_t size, uint64_t seed)
{
	struct sst_replay *w = window_new(size);
	size_t bytes = sst_replay_size(size);
	uint8_t *snap = malloc(bytes);
	struct set set = {calloc(SET_SLOTS, sizeof(uint64_t))};
	uint64_t highest = 0;
	uint32_t mismatches = 0, news = 0, dups = 0, olds = 0;

	CU_ASSERT_FATAL(snap != NULL && set.v != NULL);
	rng = seed;
	set_add(&set, 0);
	for (uint32_t op = 0; op < 100000; op++) {
		uint64_t r = rnd() % 1000, seq;
		enum sst_replay_verdict v, want;

		if (r < 450)
			seq = highest + 1 + rnd() % 3;
		else if (r < 700)
			seq = highest - rnd() % 64 % (highest + 1);
		else if (r < 900)
			seq = highest - rnd() % (size + size / 8 + 1) % (highest + 1);
		else if (r < 990)
			seq = highest + 1 + rnd() % 64;
		else if (r < 997)
			seq = highest + 1 + rnd() % (size / 2);
		else
			seq = highest + size * (1 + rnd() % 3) - 1 + rnd() % 3;
		want = model_check(&set, highest, size, seq);
		if (op % 16 == 0)
			memcpy(snap, w, bytes);
		v = sst_replay_check(w, seq);
		if (op % 16 == 0 && memcmp(snap, w, bytes) != 0)
			mismatches++;
		if (v != want) {
			if (mismatches++ < 5)
				fprintf(stderr, "  size %u op %u seq %llu: got %d want %d\n", size,
					op, (unsigned long long)seq, v, want);
			continue;
		}
		news += v == SST_REPLAY_NEW;
		dups += v == SST_REPLAY_DUPLICATE;
		olds += v == SST_REPLAY_TOO_OLD;
		/* Most new packets authenticate; a few do not and change nothing. */
		if (v == SST_REPLAY_NEW && rnd() % 16 != 0) {
			sst_replay_update(w, seq);
			set_add(&set, seq);
			if (seq > highest)
				highest = seq;
		}
		if (w->highest != highest)
			mismatches++;
		{
			uint64_t probe = highest - rnd() % size % (highest + 1);
			uint32_t max = op % 8 == 0 ? size : 15;

			if (sst_replay_received(w, probe) != set_has(&set, probe))
				mismatches++;
			if (sst_replay_run_below(w, highest, max) !=
				model_run(&set, highest, size, highest, max))
				mismatches++;
			if (sst_replay_run_below(w, probe, 15) !=
				model_run(&set, highest, size, probe, 15))
				mismatches++;
			/* The ack word's largest count, across words, and from
			 * one past the highest. */
			if (sst_replay_run_below(w, probe, 255) !=
				model_run(&set, highest, size, probe, 255))
				mismatches++;
			if (sst_replay_run_below(w, highest + 1, max) !=
				model_run(&set, highest, size, highest + 1, max))
				mismatches++;
		}
		if (op % 10000 == 9999) /* the whole window */
			for (uint64_t x = highest >= size ? highest - size + 1 : 0; x <= highest;
				x++)
				if (sst_replay_received(w, x) != set_has(&set, x))
					mismatches++;
	}
	EXPECT_AT(mismatches, 0, size);
	/* The mix really exercised every verdict. */
	CU_ASSERT(news > 40000);
	CU_ASSERT(dups > 2000);
	CU_ASSERT(olds > 1000);
	free(set.v);
	free(snap);
	free(w);
}

static void
test_random_8192(void)
{
	random_vs_model(8192, UINT64_C(0x5eed0001));
}

static void
test_random_65536(void)
{
	random_vs_model(65536, UINT64_C(0x5eed0002));
}

static void
test_random_32(void)
{
	random_vs_model(32, UINT64_C(0x5eed0003));
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_size_and_init_validation),
	SST_TEST(test_packet0_counts_at_init),
	SST_TEST(test_size32_vectors),
	SST_TEST(test_size32_hole_after_jump),
	SST_TEST(test_duplicates_and_reordering),
	SST_TEST(test_check_does_not_change_state),
	SST_TEST(test_jumps_do_not_alias),
	SST_TEST(test_run_below_word_boundaries),
	SST_TEST(test_packet0_leaves_window),
	SST_TEST(test_random_32),
	SST_TEST(test_random_8192),
	SST_TEST(test_random_65536),
	SST_TEST_END,
};

SST_TEST_MAIN("channel_replay", cases)
