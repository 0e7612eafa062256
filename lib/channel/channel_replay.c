/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include <rte_common.h>

#include "channel_replay.h"

/* The bitmap has at least 64 slots, so windows below 64 packets still use
 * whole words; `size` alone decides what is too old. */
static inline uint32_t
word_count(uint32_t size)
{
	return size < 64 ? 1 : size / 64;
}

static inline uint64_t
slot_mask(const struct sst_replay *w)
{
	return (uint64_t)w->words * 64 - 1;
}

size_t
sst_replay_size(uint32_t size)
{
	if (size < SST_REPLAY_MIN || size > SST_REPLAY_MAX || (size & (size - 1)) != 0)
		return 0;
	return sizeof(struct sst_replay) + word_count(size) * sizeof(uint64_t);
}

int
sst_replay_init(struct sst_replay *w, uint32_t size)
{
	if (sst_replay_size(size) == 0)
		return -EINVAL;
	w->highest = 0;
	w->size = size;
	w->words = word_count(size);
	memset(w->bits, 0, w->words * sizeof(uint64_t));
	w->bits[0] = 1; /* packet 0 */
	return 0;
}

static inline void
bit_locate(const struct sst_replay *w, uint64_t seq, uint32_t *word, uint64_t *mask)
{
	uint64_t slot = seq & slot_mask(w);

	*word = (uint32_t)(slot / 64);
	*mask = UINT64_C(1) << (slot % 64);
}

bool
sst_replay_received(const struct sst_replay *w, uint64_t seq)
{
	uint32_t word;
	uint64_t mask;

	if (seq > w->highest || w->highest - seq >= w->size)
		return false;
	bit_locate(w, seq, &word, &mask);
	return (w->bits[word] & mask) != 0;
}

enum sst_replay_verdict
sst_replay_check(const struct sst_replay *w, uint64_t seq)
{
	if (seq > w->highest)
		return SST_REPLAY_NEW;
	if (w->highest - seq >= w->size)
		return SST_REPLAY_TOO_OLD;
	return sst_replay_received(w, seq) ? SST_REPLAY_DUPLICATE : SST_REPLAY_NEW;
}

/* Forget the slots of highest+1 .. seq, which now stand for new numbers:
 * whole words at a time where possible, everything on a jump past the ring. */
static void
advance(struct sst_replay *w, uint64_t seq)
{
	uint64_t from = w->highest + 1;

	if (seq - w->highest > slot_mask(w)) {
		memset(w->bits, 0, w->words * sizeof(uint64_t));
		return;
	}
	while (from <= seq) {
		uint32_t word;
		uint64_t mask;

		bit_locate(w, from, &word, &mask);
		if (mask == 1 && seq - from >= 63) {
			w->bits[word] = 0;
			from += 64;
		} else {
			w->bits[word] &= ~mask;
			from++;
		}
	}
}

void
sst_replay_update(struct sst_replay *w, uint64_t seq)
{
	uint32_t word;
	uint64_t mask;

	if (seq > w->highest) {
		advance(w, seq);
		w->highest = seq;
	}
	bit_locate(w, seq, &word, &mask);
	w->bits[word] |= mask;
}

/*
 * A word at a time: every ack word a channel sends counts its run (up to
 * 255 packets back on a busy channel), which bit by bit cost more than the
 * rest of the ack. The numbers below seq - run are seq - run - 1 down to
 * 0, the window's oldest and max; within one word they are consecutive
 * slots, bit b of the number at hand down to bit 0, so shifting bit b to
 * the top and counting leading ones gives the received ones among them.
 */
uint32_t
sst_replay_run_below(const struct sst_replay *w, uint64_t seq, uint32_t max)
{
	uint32_t run = 0;

	while (run < max && seq > run) {
		uint64_t at = seq - run - 1, in_window, left, top, ones;
		uint32_t word, b;
		uint64_t mask;

		if (at > w->highest || w->highest - at >= w->size)
			break;
		bit_locate(w, at, &word, &mask);
		b = (uint32_t)__builtin_ctzll(mask);
		/* Bits b..0 at the top; the shift fills below them with zeros,
		 * so the count of leading ones stops at b + 1 at most. */
		top = w->bits[word] << (63 - b);
		ones = top == UINT64_MAX ? 64 : (uint64_t)__builtin_clzll(~top);
		in_window = w->size - (w->highest - at); /* at down to the oldest */
		left = RTE_MIN(RTE_MIN((uint64_t)(max - run), at + 1), in_window);
		if (ones >= left) {
			run += (uint32_t)left;
			break;
		}
		run += (uint32_t)ones;
		if (ones <= b)
			break; /* a number not received */
	}
	return run;
}
