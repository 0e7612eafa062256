/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stream identifier spaces (paper 4.3.1-4.3.3, 4.3.9). See stream_ids.h for
 * the rules, the bounds and the costs; this file keeps three invariants:
 *  - every entry that is not free is in the hash table exactly once, under
 *    its SID, and no two such entries share a SID; its slot holds its
 *    attachment when attached and NULL when quiet, and empty slots are all
 *    zeros;
 *  - the quiet FIFO links exactly the quiet entries, in release order;
 *  - attached + quiet <= entries = 2 * cap and attached <= cap <= max, so
 *    at most half the hash slots are used and every probe sequence ends at
 *    an empty slot (a space with no table yet has nothing in it);
 *  - entries keep their index when a growable space grows, so the quiet
 *    FIFO and the free list survive a growth as they are.
 */
#include <errno.h>
#include <string.h>

#include "sst_error.h"
#include "sst_mem.h"
#include "sst_seq.h"
#include "stream_ids.h"

enum {
	SID_FREE = 0,
	SID_ATTACHED = 1,
	SID_QUIET = 2,
};

/* Why a SID is quiet (sid_entry.why). */
enum {
	SID_RELEASED = 0, /* detached, or its stream reset */
	SID_ENDED = 1,	  /* sst_sid_release_ended() */
	SID_MOVED = 2,	  /* sst_sid_mark_moved() */
};

/* Hash slots for max attached SIDs: a power of two at least 4 * max. */
static uint32_t
slot_count(uint32_t max)
{
	uint32_t n = 8;

	while (n < 4 * max)
		n <<= 1;
	return n;
}

/* Bytes of the tables for cap attached SIDs: the slots, then the entries
 * (slots first: a growable table comes cache-line aligned, and slot_count()
 * is a multiple of four, so no slot straddles two lines). */
static size_t
table_size(uint32_t cap)
{
	return (size_t)slot_count(cap) * sizeof(struct sid_slot) +
	       (size_t)2 * cap * sizeof(struct sid_entry);
}

/* The bytes of a growable space's tables now (sized release, sst_mem.h). */
static size_t
tables_held(const struct sst_sid_space *s)
{
	return s->cap != 0 ? table_size(s->cap) : 0;
}

size_t
sst_sid_space_size(uint32_t max)
{
	if (max < SST_SID_SPACE_MIN || max > SST_SID_SPACE_MAX)
		return 0;
	return sizeof(struct sst_sid_space) + table_size(max);
}

/*
 * Hash of a SID: a 32-bit mix (lowbias32) of the SID and the salt, so that
 * both sequential SIDs and SIDs chosen by a peer that does not know the
 * salt spread like random ones. Its low bits (& mask) are the home slot; it
 * is kept in the slot, so that moving slots (deletion, growth) does not
 * compute it again.
 */
static inline uint32_t
sid_hash(const struct sst_sid_space *s, uint16_t sid)
{
	uint32_t x = sid ^ s->salt;

	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

/*
 * The slot holding sid if there is one, else the empty slot that ends its
 * probe run, which is where an insertion puts it: found iff the slot's ent
 * is not 0. Precondition: the space has a table (s->slot != NULL).
 */
static inline uint32_t
probe(const struct sst_sid_space *s, uint16_t sid, uint32_t h)
{
	uint32_t i = h & s->mask;

	while (s->slot[i].ent != 0 && s->slot[i].sid != sid)
		i = (i + 1) & s->mask;
	return i;
}

/* The slot of sid (attached or quiet), or NULL. */
static inline struct sid_slot *
find_slot(const struct sst_sid_space *s, uint16_t sid)
{
	struct sid_slot *sl;

	if (s->slot == NULL)
		return NULL; /* a growable space before its first attachment */
	sl = &s->slot[probe(s, sid, sid_hash(s, sid))];
	return sl->ent != 0 ? sl : NULL;
}

/* The entry of sid (attached or quiet), or NULL. */
static struct sid_entry *
find(const struct sst_sid_space *s, uint16_t sid)
{
	const struct sid_slot *sl = find_slot(s, sid);

	return sl == NULL ? NULL : &s->ent[sl->ent - 1];
}

/* Put entries [from, entries) on the free list, lowest index first out. */
static void
free_entries(struct sst_sid_space *s, uint32_t from)
{
	for (uint32_t i = s->entries; i-- > from;) {
		s->ent[i] = (struct sid_entry){.next = s->free_head};
		s->free_head = i + 1;
	}
}

void
sst_sid_space_fini(struct sst_sid_space *s)
{
	uint32_t i;

	if (s == NULL)
		return;
	if (s->mem != NULL) {
		/* Growable: the tables go, the next attachment starts small again. */
		s->mem->release(s->mem->ctx, s->slot, tables_held(s));
		s->ent = NULL;
		s->slot = NULL;
		s->cap = 0;
		s->entries = 0;
		s->mask = 0;
		s->stats.table_bytes = 0;
	}
	for (i = 0; s->slot != NULL && i <= s->mask; i++)
		s->slot[i] = (struct sid_slot){0};
	s->free_head = 0;
	free_entries(s, 0);
	s->quiet_head = 0;
	s->quiet_tail = 0;
	s->stats.attached = 0;
	s->stats.quiet = 0;
}

/* What both kinds of space start with: no SID but the root. */
static int
init_common(struct sst_sid_space *s, uint32_t max, enum sst_sid_dir dir, void *root)
{
	if (s == NULL || sst_sid_space_size(max) == 0 || (dir != SST_SID_TX && dir != SST_SID_RX))
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->max = max;
	s->dir = dir;
	s->root = root;
	/* Transmit counters start at 1 (0 is the root); receive: highest seen. */
	s->counter = dir == SST_SID_TX ? 1 : 0;
	/* Any value the peer cannot read off the wire will do; 0 is fine too. */
	s->salt = (uint32_t)(uintptr_t)s ^ (uint32_t)((uint64_t)(uintptr_t)s >> 32) ^ 0x9e3779b9u;
	return 0;
}

int
sst_sid_space_init(struct sst_sid_space *s, uint32_t max, enum sst_sid_dir dir, void *root)
{
	int rc = init_common(s, max, dir, root);

	if (rc < 0)
		return rc;
	s->cap = max;
	s->entries = 2 * max;
	s->mask = slot_count(max) - 1;
	s->slot = (struct sid_slot *)(s + 1);
	s->ent = (struct sid_entry *)(s->slot + s->mask + 1);
	s->stats.table_bytes = table_size(max);
	sst_sid_space_fini(s);
	return 0;
}

int
sst_sid_space_init_grow(struct sst_sid_space *s, uint32_t max, enum sst_sid_dir dir, void *root,
	const struct sst_mem_ops *mem)
{
	int rc;

	if (mem == NULL || mem->zalloc == NULL || mem->release == NULL)
		return -EINVAL;
	rc = init_common(s, max, dir, root);
	if (rc < 0)
		return rc;
	s->mem = mem;
	return 0;
}

/*
 * Double a growable space's capacity (SST_SID_SPACE_INIT at first), up to
 * max. Entries keep their index, so the quiet FIFO and the free list stay
 * valid; the new entries join the free list and every slot in use moves to
 * the larger slot table by its kept hash. Growth happens only when an
 * attachment finds no room, at most log2(max / SST_SID_SPACE_INIT) + 1
 * times per space: amortized O(1) per attachment.
 * Returns 0, or -ENOMEM (at max already, fixed, or no memory: the old
 * tables stay as they were).
 */
static int
grow(struct sst_sid_space *s)
{
	uint32_t cap = s->cap == 0 ? SST_SID_SPACE_INIT : 2 * s->cap;
	uint32_t old_entries = s->entries, old_slots = s->slot != NULL ? s->mask + 1 : 0;
	uint32_t mask;
	struct sid_slot *slot;

	if (s->mem == NULL || s->cap >= s->max)
		return -ENOMEM;
	if (cap > s->max)
		cap = s->max;
	mask = slot_count(cap) - 1;
	slot = s->mem->zalloc(s->mem->ctx, table_size(cap));
	if (slot == NULL) {
		s->stats.grow_failures++;
		return -ENOMEM;
	}
	for (uint32_t j = 0; j < old_slots; j++) {
		uint32_t i;

		if (s->slot[j].ent == 0)
			continue;
		for (i = s->slot[j].hash & mask; slot[i].ent != 0; i = (i + 1) & mask)
			;
		slot[i] = s->slot[j];
	}
	if (old_entries > 0)
		memcpy(slot + mask + 1, s->ent, (size_t)old_entries * sizeof(*s->ent));
	s->mem->release(s->mem->ctx, s->slot, tables_held(s));
	s->slot = slot;
	s->ent = (struct sid_entry *)(slot + mask + 1);
	s->cap = cap;
	s->entries = 2 * cap;
	s->mask = mask;
	free_entries(s, old_entries);
	s->stats.grows++;
	s->stats.table_bytes = table_size(cap);
	return 0;
}

/*
 * Capacity check before adding an attached SID; a growable space grows
 * when it finds no room and is not at max yet.
 * Returns 0, -ENOSPC (cap attached and no growth: max reached or no
 * memory) or -EBUSY (attached and quiet fill every entry and no growth:
 * only the passing of quiet periods frees one).
 */
static int
check_room(struct sst_sid_space *s)
{
	if ((s->stats.attached >= s->cap || s->free_head == 0) && grow(s) == 0)
		return 0;
	if (s->stats.attached >= s->cap) {
		s->stats.reject_capacity++;
		return -ENOSPC;
	}
	if (s->free_head == 0) {
		s->stats.reject_capacity++;
		return -EBUSY;
	}
	return 0;
}

/*
 * Attach sid, with hash h, to ptr with counter c in slot i: the empty slot
 * its probe() ended on in the table as it is now.
 * Precondition: check_room() returned 0.
 */
static void
insert(struct sst_sid_space *s, uint32_t i, uint16_t sid, uint32_t h, void *ptr, uint64_t c)
{
	uint32_t e = s->free_head;
	struct sid_entry *en = &s->ent[e - 1];

	s->free_head = en->next;
	*en = (struct sid_entry){.counter = c, .sid = sid, .state = SID_ATTACHED};
	s->slot[i] = (struct sid_slot){.ptr = ptr, .hash = h, .sid = sid, .ent = (uint16_t)e};
	s->stats.attached++;
	s->stats.allocs++;
}

/*
 * Remove the slot at i by backward shift: later entries of the same probe
 * run move back into the hole when their home slot allows it, so that no
 * tombstone is needed and lookups stay as short as at insertion.
 */
static void
remove_slot(struct sst_sid_space *s, uint32_t i)
{
	uint32_t j = i;

	for (;;) {
		uint32_t k;

		j = (j + 1) & s->mask;
		if (s->slot[j].ent == 0)
			break;
		k = s->slot[j].hash & s->mask;
		/* Move j into the hole i unless its home lies cyclically in (i, j]. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		s->slot[i] = s->slot[j];
		i = j;
	}
	s->slot[i] = (struct sid_slot){0};
}

int
sst_sid_alloc(struct sst_sid_space *s, void *ptr, uint16_t *sid, uint64_t *counter)
{
	unsigned int tries = 0;
	int rc;

	if (s->dir != SST_SID_TX || ptr == NULL || sid == NULL)
		return -EINVAL;
	rc = check_room(s);
	if (rc < 0)
		goto fail;
	/* Paper 4.3.2: the next counter value whose SID is not 0 and not in use. */
	while (tries < SST_SID_ALLOC_ATTEMPTS) {
		uint64_t c = s->counter++;
		uint16_t v = (uint16_t)c;

		uint32_t h, i;

		if (v == SST_SID_ROOT)
			continue;
		tries++;
		/* check_room() made sure there is a table. */
		h = sid_hash(s, v);
		i = probe(s, v, h);
		if (s->slot[i].ent != 0) {
			s->stats.skipped++;
			continue;
		}
		insert(s, i, v, h, ptr, c);
		*sid = v;
		if (counter != NULL)
			*counter = c;
		return 0;
	}
	rc = -EBUSY;
fail:
	s->stats.alloc_failures++;
	return rc;
}

int
sst_sid_attach(struct sst_sid_space *s, uint16_t sid, void *ptr, uint64_t *counter)
{
	const struct sid_slot *table = s->slot;
	uint32_t h, i = 0;
	uint64_t c;
	int rc;

	if (s->dir != SST_SID_RX || ptr == NULL)
		return -EINVAL;
	if (sid == SST_SID_ROOT) {
		s->stats.reject_attached++;
		rc = -EEXIST;
		goto fail;
	}
	h = sid_hash(s, sid);
	if (table != NULL)
		i = probe(s, sid, h);
	if (table != NULL && table[i].ent != 0 && table[i].ptr != NULL) {
		s->stats.reject_attached++;
		rc = -EEXIST;
		goto fail;
	}
	if (table != NULL && table[i].ent != 0) {
		/* Paper 4.3.9: no new stream on a SID in its quiet period. */
		s->stats.reject_quiet++;
		rc = -EBUSY;
		goto fail;
	}
	rc = check_room(s);
	if (rc < 0)
		goto fail;
	/* Paper 4.3.1: the SID is the low 16 bits of the peer's counter. */
	rc = sst_seq_expand(s->counter, sid, SST_SID_BITS, &c);
	if (rc < 0)
		goto fail;
	if (s->slot != table)
		i = probe(s, sid, h); /* the table grew: a new place */
	insert(s, i, sid, h, ptr, c);
	if (c > s->counter)
		s->counter = c;
	if (counter != NULL)
		*counter = c;
	return 0;
fail:
	s->stats.alloc_failures++;
	return rc;
}

/* The data path's lookup: one slot, and the empty slot that ends a miss
 * holds NULL like a quiet one. */
void *
sst_sid_lookup(const struct sst_sid_space *s, uint16_t sid)
{
	if (sid == SST_SID_ROOT)
		return s->root;
	if (s->slot == NULL)
		return NULL; /* a growable space before its first attachment */
	return s->slot[probe(s, sid, sid_hash(s, sid))].ptr;
}

void *
sst_sid_entry(const struct sst_sid_space *s, uint32_t i, uint16_t *sid)
{
	const struct sid_entry *en = &s->ent[i];

	if (en->state != SID_ATTACHED)
		return NULL;
	*sid = en->sid;
	return sst_sid_lookup(s, en->sid);
}

int
sst_sid_counter(const struct sst_sid_space *s, uint16_t sid, uint64_t *counter)
{
	const struct sid_entry *en;

	if (sid == SST_SID_ROOT) {
		*counter = 0;
		return 0;
	}
	en = find(s, sid);
	if (en == NULL || en->state != SID_ATTACHED)
		return -ENOENT;
	*counter = en->counter;
	return 0;
}

bool
sst_sid_is_quiet(const struct sst_sid_space *s, uint16_t sid)
{
	const struct sid_entry *en = sid == SST_SID_ROOT ? NULL : find(s, sid);

	return en != NULL && en->state == SID_QUIET;
}

bool
sst_sid_used_before(const struct sst_sid_space *s, uint16_t sid)
{
	/* Transmit: the counter is the next value to try; receive: the
	 * highest the peer announced (0: none). Some counter up to it had
	 * these 16 bits when it is at least the SID: past 2^16 every SID was
	 * used, in the last lap or this one. Reconstructed within 2^15 as
	 * sst_sid_attach() does, a SID 2^15 or more behind would land ahead,
	 * and a late segment of a stream that many streams ago, resent
	 * because its acknowledgment was lost, was answered with a stateless
	 * Reset (sst-perf --streams 100000: about 50 a run). */
	uint64_t last = s->dir == SST_SID_TX ? s->counter - 1 : s->counter;

	if (sid == SST_SID_ROOT || find(s, sid) != NULL)
		return false;
	return last >= sid;
}

int
sst_sid_set_ptr(struct sst_sid_space *s, uint16_t sid, void *ptr)
{
	struct sid_slot *sl = sid == SST_SID_ROOT || ptr == NULL ? NULL : find_slot(s, sid);

	if (sl == NULL || sl->ptr == NULL)
		return -ENOENT; /* unknown, or quiet */
	sl->ptr = ptr;
	return 0;
}

/* sst_sid_release(), with the entry marked why (SID_ENDED for
 * sst_sid_quiet_ended()). */
static int
release(struct sst_sid_space *s, uint16_t sid, uint64_t quiet_until_tx, uint64_t quiet_until_rx,
	uint8_t why)
{
	struct sid_entry *en;
	struct sid_slot *sl;
	uint32_t e;

	if (sid == SST_SID_ROOT)
		return -EINVAL;
	sl = find_slot(s, sid);
	if (sl == NULL)
		return -ENOENT;
	if (sl->ptr == NULL)
		return -EALREADY;
	/* Paper 4.3.9: the entry stays, as quiet, at the tail of the FIFO. */
	e = sl->ent;
	en = &s->ent[e - 1];
	sl->ptr = NULL;
	en->state = SID_QUIET;
	en->quiet_tx = quiet_until_tx;
	en->quiet_rx = quiet_until_rx;
	en->why = why;
	en->next = 0;
	if (s->quiet_tail != 0)
		s->ent[s->quiet_tail - 1].next = e;
	else
		s->quiet_head = e;
	s->quiet_tail = e;
	s->stats.attached--;
	s->stats.quiet++;
	s->stats.releases++;
	return 0;
}

int
sst_sid_release(
	struct sst_sid_space *s, uint16_t sid, uint64_t quiet_until_tx, uint64_t quiet_until_rx)
{
	return release(s, sid, quiet_until_tx, quiet_until_rx, SID_RELEASED);
}

int
sst_sid_release_ended(
	struct sst_sid_space *s, uint16_t sid, uint64_t quiet_until_tx, uint64_t quiet_until_rx)
{
	return release(s, sid, quiet_until_tx, quiet_until_rx, SID_ENDED);
}

bool
sst_sid_quiet_ended(const struct sst_sid_space *s, uint16_t sid)
{
	const struct sid_entry *en = sid == SST_SID_ROOT ? NULL : find(s, sid);

	return en != NULL && en->state == SID_QUIET && en->why == SID_ENDED;
}

int
sst_sid_mark_moved(struct sst_sid_space *s, uint16_t sid)
{
	struct sid_entry *en = sid == SST_SID_ROOT ? NULL : find(s, sid);

	if (en == NULL || en->state != SID_QUIET)
		return -ENOENT;
	en->why = SID_MOVED;
	return 0;
}

bool
sst_sid_quiet_moved(const struct sst_sid_space *s, uint16_t sid)
{
	const struct sid_entry *en = sid == SST_SID_ROOT ? NULL : find(s, sid);

	return en != NULL && en->state == SID_QUIET && en->why == SID_MOVED;
}

uint32_t
sst_sid_tick(struct sst_sid_space *s, uint64_t tx_seq, uint64_t rx_highest)
{
	uint32_t freed = 0;

	while (s->quiet_head != 0) {
		uint32_t e = s->quiet_head;
		struct sid_entry *en = &s->ent[e - 1];

		if (tx_seq < en->quiet_tx || rx_highest < en->quiet_rx)
			break;
		s->quiet_head = en->next;
		if (s->quiet_head == 0)
			s->quiet_tail = 0;
		remove_slot(s, probe(s, en->sid, sid_hash(s, en->sid)));
		*en = (struct sid_entry){.next = s->free_head};
		s->free_head = e;
		s->stats.quiet--;
		s->stats.quiet_expired++;
		freed++;
	}
	return freed;
}
