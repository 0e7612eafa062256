/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Priority scheduler of a channel's streams (paper sections 2 and 5,
 * Figure 9; CUSP: "the highest priority ready stream always sends first;
 * ready streams are those not blocked by flow or congestion control with
 * data to send. Equal priority streams are serviced round-robin").
 *
 * Priorities are arbitrary signed 32-bit integers, higher first, as the
 * paper's API sets them (setPriority(int)). A fixed number of levels would
 * force every application to map its priorities onto ours and would make
 * two priorities the application means to differ collide; keeping only the
 * levels that have a ready stream in a tree costs O(log L), L being the
 * number of distinct ready priorities, which is small in practice.
 *
 * Intrusive, no memory at all. The caller embeds a struct sst_sched_entry
 * in each stream object and finds its stream back with container_of. A
 * level is represented by one of its ready entries, its "owner", whose tree
 * fields link it in a treap of levels keyed by priority (heap keys from a
 * per-scheduler xorshift, so the expected depth is O(log L)); when the
 * owner leaves a level that keeps other entries, the level's node moves to
 * another of them in O(1). The scheduler caches the highest level.
 *
 * Within a level: deficit round robin by bytes. The entries of a level form
 * a ring; the level's cursor is the entry whose turn it is. An entry gets
 * one quantum of credit when its turn starts and keeps the turn while its
 * credit is positive; sst_sched_served() charges the bytes sent. Credit left
 * when an entry leaves its turn is dropped (no hoarding by idle streams);
 * debt is carried to the next turn, capped at one quantum so that every turn
 * starts with positive credit and advancing is O(1). Streams sending units
 * no larger than the quantum therefore get the same bytes within one
 * quantum plus one unit per round, whatever their unit sizes. An entry that
 * becomes ready, or moves to another level, joins the end of the round.
 *
 * Costs. sst_sched_next() O(1); sst_sched_ready(), sst_sched_unready(),
 * sst_sched_remove() and sst_sched_set_priority() of a ready entry
 * O(log L) expected; sst_sched_served() O(1) for the entry sst_sched_next()
 * returned, O(log L) otherwise.
 */
#ifndef STREAM_SCHED_H
#define STREAM_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	/** Largest quantum sst_sched_init() accepts (bytes per turn). */
	SST_SCHED_QUANTUM_MAX = 1 << 24,
};

struct sst_sched;

/**
 * Scheduler state of one stream, embedded in the stream object. Fields are
 * private; the tree fields are meaningful only in the owner of a level.
 */
struct sst_sched_entry {
	struct sst_sched *sched;      /**< scheduler it is ready in; NULL = not ready */
	struct sst_sched_entry *next; /**< ring of the level's ready entries */
	struct sst_sched_entry *prev;
	struct sst_sched_entry *parent; /**< owner: level treap */
	struct sst_sched_entry *left;
	struct sst_sched_entry *right;
	struct sst_sched_entry *cursor; /**< owner: the entry whose turn it is */
	int32_t prio;			/**< higher is served first */
	int32_t deficit;		/**< bytes of credit; <= 0 unless its turn */
	uint32_t heap;			/**< owner: treap heap key */
	bool owner;			/**< the level's node lives here */
};

/** Counters. */
struct sst_sched_stats {
	uint32_t ready;	       /**< entries ready now */
	uint32_t levels;       /**< distinct priorities of the ready entries now */
	uint64_t served_bytes; /**< bytes passed to sst_sched_served() */
	uint64_t turns;	       /**< turns started (quanta granted) */
};

/** One channel's scheduler. Fields are private. */
struct sst_sched {
	struct sst_sched_entry *root; /**< level treap */
	struct sst_sched_entry *top;  /**< owner of the highest level; NULL = none */
	uint32_t quantum;
	uint32_t rng; /**< xorshift32 state for treap heap keys */
	struct sst_sched_stats stats;
};

/**
 * Initialise a scheduler with no ready entry.
 *
 * @param quantum
 *   Bytes of credit per turn in round robin, typically one MTU. Byte
 *   fairness within a level holds for units up to this size.
 * @return 0, or -EINVAL (NULL s, quantum 0 or above SST_SCHED_QUANTUM_MAX).
 */
int sst_sched_init(struct sst_sched *s, uint32_t quantum);

/**
 * Forget every entry. The entries are the caller's; they must be
 * initialised again (sst_sched_entry_init()) before further use.
 */
void sst_sched_fini(struct sst_sched *s);

/** Initialise an entry, not ready, at priority @p prio. */
void sst_sched_entry_init(struct sst_sched_entry *e, int32_t prio);

/**
 * The stream has data and window: make it eligible. It joins the end of its
 * level's round. Already ready in @p s: nothing changes.
 *
 * @return 0, or -EINVAL (NULL argument), -EBUSY (ready in another
 *   scheduler).
 */
int sst_sched_ready(struct sst_sched *s, struct sst_sched_entry *e);

/**
 * The stream is blocked (flow or congestion control) or has nothing to
 * send: it is no longer eligible. Credit left of its turn is dropped.
 * Not ready: nothing happens.
 */
void sst_sched_unready(struct sst_sched_entry *e);

/**
 * Change the priority of @p e. It takes effect for the very next
 * sst_sched_next(): a ready entry moves to the end of the round of its new
 * level. Setting the priority it has changes nothing.
 */
void sst_sched_set_priority(struct sst_sched_entry *e, int32_t prio);

/**
 * The entry to serve next: the cursor of the highest level with a ready
 * entry. The caller sends one unit (segment, packet) for it and calls
 * sst_sched_served().
 *
 * @return the entry, or NULL if none is ready.
 */
static inline struct sst_sched_entry *
sst_sched_next(const struct sst_sched *s)
{
	return s->top != NULL ? s->top->cursor : NULL;
}

/**
 * Charge @p bytes sent for @p e. When its credit is spent, the turn passes
 * to the next ready entry of its level. May be called for an entry that is
 * no longer ready (it emptied with this unit): its debt is carried.
 *
 * @param bytes
 *   Bytes sent; fairness holds for units up to the quantum.
 */
void sst_sched_served(struct sst_sched *s, struct sst_sched_entry *e, uint32_t bytes);

/**
 * The stream goes away: unready it and reset its credit. The entry may be
 * made ready again or dropped.
 */
void sst_sched_remove(struct sst_sched_entry *e);

/** True if @p e is ready (in some scheduler). */
static inline bool
sst_sched_entry_is_ready(const struct sst_sched_entry *e)
{
	return e->sched != NULL;
}

/** The priority of @p e. */
static inline int32_t
sst_sched_entry_priority(const struct sst_sched_entry *e)
{
	return e->prio;
}

/** The scheduler's counters. */
static inline const struct sst_sched_stats *
sst_sched_stats(const struct sst_sched *s)
{
	return &s->stats;
}

#endif /* STREAM_SCHED_H */
