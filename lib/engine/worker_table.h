/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker's lookup tables (docs/engine.md, "Peers and channels"): an
 * open-addressing hash table of object pointers under 64-bit hashes, used
 * for endpoints (by address and port), channels (by endpoint and our
 * channel number) and peers (by host instance).
 *
 * Why not rte_hash: its capacity is fixed at creation, and a server must
 * grow from a few channels to millions with memory in proportion to use.
 * This table starts at a configured size and doubles when half full
 * (linear probing stays short at load <= 1/2; deletion shifts entries back,
 * so no tombstones accumulate). A slot keeps the full 64-bit hash beside
 * the pointer: a probe compares hashes first and touches the object only
 * on a match, and growth rehashes without touching objects.
 *
 * The hashes are keyed (SipHash-2-4 under a per-worker random key,
 * worker_hash_ep()), so that peers who choose their addresses and ports
 * cannot aim their keys at one chain of slots.
 *
 * Growth allocates (rte_malloc): it happens when an endpoint or a channel
 * is added, during negotiation, never when a packet is looked up. When it
 * fails the table stays as it was and the insertion fails with -ENOMEM.
 */
#ifndef WORKER_TABLE_H
#define WORKER_TABLE_H

#include <stdbool.h>
#include <stdint.h>

struct worker_table_slot {
	uint64_t hash;
	void *obj; /**< NULL: the slot is empty */
};

struct worker_table {
	struct worker_table_slot *slots;
	uint32_t mask;	/**< slots - 1 (a power of two) */
	uint32_t count; /**< objects held */
	const char *name;
};

/** Set up an empty table of at least initial slots (rounded up to a
 * power of two, at least 16). @return 0 or -ENOMEM. */
int worker_table_init(struct worker_table *t, const char *name, uint32_t initial);

/** Free the slots (not the objects). */
void worker_table_fini(struct worker_table *t);

/** Free the objects (rte_malloc'd records) and the slots. */
void worker_table_free_all(struct worker_table *t);

/** Add obj under hash (the caller has checked that its key is absent).
 * @return 0, or -ENOMEM when the table had to grow and could not. */
int worker_table_add(struct worker_table *t, uint64_t hash, void *obj);

/** Remove obj, which was added under hash. @return 0 or -ENOENT. */
int worker_table_del(struct worker_table *t, uint64_t hash, const void *obj);

/** Bytes of slots the table holds now. */
static inline uint64_t
worker_table_bytes(const struct worker_table *t)
{
	return (uint64_t)(t->mask + 1) * sizeof(struct worker_table_slot);
}

/**
 * Walk the objects added under hash: *pos starts at 0 (any value the walk
 * left in it resumes it); returns the next candidate, or NULL at the end.
 * The caller compares each candidate's key itself: equal hashes of two
 * keys are possible. No insertion or deletion may happen during a walk.
 */
static inline void *
worker_table_next(const struct worker_table *t, uint64_t hash, uint32_t *pos)
{
	for (uint32_t i = (uint32_t)hash + *pos;; i++, (*pos)++) {
		const struct worker_table_slot *s = &t->slots[i & t->mask];

		if (s->obj == NULL)
			return NULL;
		if (s->hash == hash) {
			(*pos)++;
			return s->obj;
		}
	}
}

#endif /* WORKER_TABLE_H */
