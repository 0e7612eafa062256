/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stream identifier spaces (paper 4.3.1-4.3.3, 4.3.9; wire-format.md
 * section 4). A channel has two: the transmit space, whose SIDs (the paper's
 * LSIDs) we choose for the streams we attach, and the receive space, whose
 * SIDs the peer chooses and announces with Init, Reply or Attach. Each maps
 * a 16-bit SID to the caller's attachment (an opaque pointer) and keeps the
 * 64-bit stream counter the SID was taken from, the counter half of the
 * stream's USID.
 *
 * SIDs. SID 0 is the channel's root stream, attached in both spaces from
 * init and never allocated, released or quiet. New transmit SIDs are the low
 * 16 bits of a 64-bit counter starting at 1; counter values whose SID is 0,
 * attached or quiet are skipped (consumed). On the receive side the counter
 * is reconstructed from the 16-bit SID against the highest counter the peer
 * used so far (sst_seq_expand), so the peer's SIDs must stay within 2^15 of
 * each other, which sequential allocation guarantees.
 *
 * Quiet period (paper 4.3.9). A released SID is not reused (transmit) nor
 * accepted again (receive) until both our transmit sequence number and the
 * peer's highest received sequence number have reached the thresholds given
 * at release: the sequence numbers at which both hosts know of the detachment
 * plus the mis-ordering limit (the replay window). Later packets of the old
 * use are then dropped by the channel's replay check and can never land on
 * a successor stream. Quiet SIDs wait in a FIFO in release order;
 * sst_sid_tick() frees them from the head. A SID whose stream ended
 * complete is released with sst_sid_release_ended(): its peer resends the
 * last segments until it hears they arrived, which the quiet period does
 * not bound, so the stream layer acknowledges those rather than refusing
 * them as it does packets for a SID whose stream moved on.
 *
 * Bounds. A space holds at most 2 * cap entries (attached or quiet) and a
 * hash table of twice as many slots, where cap is its capacity in attached
 * SIDs. A fixed space (sst_sid_space_init()) has cap = max, its tables in
 * the caller's memory, and allocates nothing. A growable space
 * (sst_sid_space_init_grow(), what channels use) starts with no table,
 * takes SST_SID_SPACE_INIT at the first attachment and doubles cap, up to
 * max, whenever an attachment finds no room; growth is the only
 * allocation, and a growth that fails is reported as the table being full.
 * Either way at most max SIDs besides the root are attached at once
 * (-ENOSPC beyond), and quiet SIDs may use the other max entries (-EBUSY
 * while they fill them), so a hostile peer that attaches and detaches in a
 * loop without letting sequence numbers advance holds at most 2 * max
 * entries: what it can make a space grow to is what a fixed space costs.
 *
 * Costs. Lookup, attach, allocation (at most SST_SID_ALLOC_ATTEMPTS probes)
 * and release are O(1) expected: linear probing with at most half the slots
 * used, backward-shift deletion (no tombstones), and a hash mixed with a
 * per-space salt so that SIDs picked without knowledge of it do not collide
 * more than random ones. A slot holds the SID, its attachment and its hash
 * (16 bytes, aligned four to a cache line in a growable space), so the
 * lookup of the data path reads one cache line of the table in the common
 * case; the entries (counter, quiet period, FIFO) are read only when a SID
 * is attached, released, freed or asked for its counter. An allocation or
 * attachment probes once: the empty slot that ends the search is where the
 * SID goes. sst_sid_tick() is O(1) amortized: each quiet SID is freed once.
 */
#ifndef STREAM_IDS_H
#define STREAM_IDS_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sst_mem.h"

enum {
	/** The root stream's SID, in both spaces. */
	SST_SID_ROOT = 0,
	/** Bits of a SID on the wire; the receive side expands them. */
	SST_SID_BITS = 16,
	/** Limits on max, the number of attached SIDs besides the root. */
	SST_SID_SPACE_MIN = 1,
	SST_SID_SPACE_MAX = 16384,
	/**
	 * Capacity (attached SIDs) a growable space takes at its first
	 * attachment: a channel with a few streams costs a few hundred bytes
	 * per space.
	 */
	SST_SID_SPACE_INIT = 4,
	/**
	 * SIDs sst_sid_alloc() tries (counter values with SID 0 not counted)
	 * before giving up, as in the prototype. Allocation is sequential, so
	 * a SID in use is met only after the counter wrapped around 2^16
	 * while long-lived streams kept their SIDs.
	 */
	SST_SID_ALLOC_ATTEMPTS = 16,
};

/** Which side chooses the SIDs of a space. */
enum sst_sid_dir {
	SST_SID_TX = 0, /**< ours: sst_sid_alloc() */
	SST_SID_RX = 1, /**< the peer's: sst_sid_attach() */
};

/** Counters (never logged). */
struct sst_sid_stats {
	uint32_t attached;	  /**< SIDs attached now, the root not counted */
	uint32_t quiet;		  /**< SIDs in their quiet period now */
	uint64_t allocs;	  /**< successful sst_sid_alloc() or sst_sid_attach() */
	uint64_t alloc_failures;  /**< failed sst_sid_alloc() or sst_sid_attach() */
	uint64_t skipped;	  /**< counter values skipped: SID attached or quiet */
	uint64_t releases;	  /**< SIDs put in quiet */
	uint64_t quiet_expired;	  /**< SIDs whose quiet period ended */
	uint64_t reject_quiet;	  /**< sst_sid_attach() of a quiet SID */
	uint64_t reject_attached; /**< sst_sid_attach() of an attached SID */
	uint64_t reject_capacity; /**< -ENOSPC, or -EBUSY from a table full of quiet */
	uint64_t grows;		  /**< growable space: tables doubled */
	uint64_t grow_failures;	  /**< growable space: no memory (counted as full too) */
	uint64_t table_bytes;	  /**< bytes of the tables now (fixed: in the caller's memory) */
};

/**
 * One attached or quiet SID; free entries are chained by next. The
 * attachment itself lives in the SID's hash slot (struct sid_slot), so that
 * a lookup reads one slot and no entry.
 */
struct sid_entry {
	uint64_t counter;  /**< the stream counter the SID was taken from */
	uint64_t quiet_tx; /**< quiet until our tx sequence number reaches this */
	uint64_t quiet_rx; /**< ... and the peer's highest received reaches this */
	uint32_t next;	   /**< quiet FIFO or free list: entry index + 1, 0 = end */
	uint16_t sid;
	uint8_t state; /**< SID_FREE, SID_ATTACHED or SID_QUIET */
	uint8_t why;   /**< quiet: SID_RELEASED, SID_ENDED or SID_MOVED */
};

static_assert(sizeof(struct sid_entry) == 32, "two SID entries per cache line");

/**
 * Hash slot: a SID, its attachment and its entry. The key and the pointer
 * sit together so that the common lookup (an attached SID in its home
 * slot) reads one 16-byte slot, four to an aligned cache line, and nothing
 * else. An empty slot is all zeros, so a lookup that ends on one returns
 * its NULL ptr without a test.
 */
struct sid_slot {
	void *ptr;     /**< the attachment; NULL when quiet or empty */
	uint32_t hash; /**< the SID's hash (home slot: hash & mask), for moves */
	uint16_t sid;
	uint16_t ent; /**< entry index + 1; 0 = empty slot */
};

static_assert(sizeof(struct sid_slot) == 16, "four SID slots per cache line");

struct sst_sid_space {
	/**
	 * Transmit: the next counter value sst_sid_alloc() tries (starts at 1).
	 * Receive: the highest counter the peer attached (0 = only the root).
	 */
	uint64_t counter;
	void *root;	     /**< SID 0's attachment */
	uint32_t max;	     /**< attached SIDs at most, the root not counted */
	uint32_t cap;	     /**< attached SIDs the tables hold now (<= max; 0: none yet) */
	uint32_t entries;    /**< 2 * cap */
	uint32_t mask;	     /**< hash slots - 1 */
	uint32_t salt;	     /**< hash salt */
	uint32_t free_head;  /**< free entries: index + 1, 0 = none */
	uint32_t quiet_head; /**< oldest quiet entry: index + 1, 0 = none */
	uint32_t quiet_tail; /**< newest quiet entry */
	enum sst_sid_dir dir;
	struct sst_sid_stats stats;
	/** Growable: where the tables come from (NULL: fixed, after the struct). */
	const struct sst_mem_ops *mem;
	struct sid_slot *slot; /**< mask + 1 slots; a growable space's table starts here */
	struct sid_entry *ent; /**< entries, after the slots */
};

/**
 * Bytes of caller memory for a space of up to @p max attached SIDs (besides
 * the root).
 * @return the size, or 0 if max is outside [SST_SID_SPACE_MIN, SST_SID_SPACE_MAX].
 */
size_t sst_sid_space_size(uint32_t max);

/**
 * Initialise a space in caller memory of sst_sid_space_size(max) bytes,
 * aligned for a pointer. SID 0 is attached to @p root from now on.
 *
 * @param max
 *   SIDs attached at once at most, the root not counted. As many again may
 *   be quiet.
 * @param dir
 *   SST_SID_TX for our transmit space, SST_SID_RX for the peer's.
 * @param root
 *   The root stream's attachment (may be NULL and set later with
 *   sst_sid_set_root()).
 * @return 0, or -EINVAL (NULL memory, bad max or bad dir).
 */
int sst_sid_space_init(struct sst_sid_space *s, uint32_t max, enum sst_sid_dir dir, void *root);

/**
 * Initialise a growable space in caller memory of sizeof(struct
 * sst_sid_space) bytes: the same rules as sst_sid_space_init(), with tables
 * allocated through @p mem (SST_SID_SPACE_INIT attached SIDs at the first
 * attachment, then doubling up to @p max). Nothing is allocated here.
 *
 * @return 0, or -EINVAL (NULL memory or mem, bad max or bad dir).
 */
int sst_sid_space_init_grow(struct sst_sid_space *s, uint32_t max, enum sst_sid_dir dir, void *root,
	const struct sst_mem_ops *mem);

/**
 * Forget every SID, attached or quiet. The attachments are the caller's and
 * are not touched; a growable space gives its tables back (and may grow
 * again). The space may be initialised again.
 */
void sst_sid_space_fini(struct sst_sid_space *s);

/**
 * Choose a SID for a new stream of ours (transmit space; paper 4.3.2): the
 * low 16 bits of the next counter value, skipping SID 0 and SIDs attached or
 * quiet, at most SST_SID_ALLOC_ATTEMPTS tries. Skipped counter values are
 * consumed.
 *
 * @param ptr
 *   The attachment, not NULL.
 * @param sid
 *   The SID chosen.
 * @param counter
 *   The counter value it came from: the stream's USID counter (may be NULL).
 * @return 0, -EINVAL (receive space or NULL ptr/sid), -ENOSPC (max SIDs
 *   attached, or the table could not grow), -EBUSY (every SID tried was attached or quiet, or quiet SIDs
 *   fill the table: retry once sequence numbers have advanced and
 *   sst_sid_tick() freed some).
 */
int sst_sid_alloc(struct sst_sid_space *s, void *ptr, uint16_t *sid, uint64_t *counter);

/**
 * Attach a SID the peer announced with Init, Reply or Attach (receive space;
 * paper 4.3.2). Its counter is reconstructed from the 16 bits against the
 * highest counter the peer used so far, which it then updates.
 *
 * @param ptr
 *   The attachment, not NULL.
 * @param counter
 *   The reconstructed counter: the stream's USID counter (may be NULL).
 * @return 0, -EINVAL (transmit space or NULL ptr), -EEXIST (SID attached,
 *   including SID 0), -EBUSY (SID quiet: a late packet of its old stream
 *   must never reach a new one; or quiet SIDs fill the table), -ENOSPC (max
 *   SIDs attached, or the table could not grow), -SST_ESEQRANGE (the counter would lie below 0).
 */
int sst_sid_attach(struct sst_sid_space *s, uint16_t sid, void *ptr, uint64_t *counter);

/**
 * The attachment of @p sid.
 * @return it, or NULL if the SID is not attached (unknown or quiet).
 */
void *sst_sid_lookup(const struct sst_sid_space *s, uint16_t sid);

/**
 * The attachment of entry @p i of the space's table and its SID, for a walk
 * over the attached SIDs in entry order (sst_stream_chan_walk()). Entries
 * keep their index while attached, also across a growth.
 *
 * @param i
 *   An entry: 0 <= i < s->entries (none before a growable space's first
 *   attachment).
 * @param sid
 *   Set to the entry's SID when the entry is attached.
 * @return the attachment, or NULL if the entry is free or quiet.
 */
void *sst_sid_entry(const struct sst_sid_space *s, uint32_t i, uint16_t *sid);

/**
 * The stream counter of an attached SID (0 for the root).
 * @return 0, or -ENOENT (not attached).
 */
int sst_sid_counter(const struct sst_sid_space *s, uint16_t sid, uint64_t *counter);

/** True if @p sid is in its quiet period. */
bool sst_sid_is_quiet(const struct sst_sid_space *s, uint16_t sid);

/**
 * Whether @p sid, neither attached nor quiet, may be the SID of a counter
 * value this space has gone past: some counter up to the last we allocated
 * (transmit) or the highest the peer announced (receive) had these 16 bits,
 * which after 2^16 counters is every SID (the last lap's streams). The
 * stream layer takes packets for such a SID as late ones for a stream it
 * let go, where the packet type rules out a new stream (Data, Reply): their
 * peer resends a finished stream's last segments until it hears that they
 * arrived, however many streams later.
 * @return true for such a SID; false for the root, an attached or quiet
 *   SID, and one no counter up to the last had.
 */
bool sst_sid_used_before(const struct sst_sid_space *s, uint16_t sid);

/**
 * Point an attached SID at something else (the stream layer parks a SID on
 * a marker while a Detach or Reset naming it is unacknowledged).
 * @return 0, or -ENOENT (not attached, the root, or NULL ptr).
 */
int sst_sid_set_ptr(struct sst_sid_space *s, uint16_t sid, void *ptr);

/**
 * Detach @p sid and start its quiet period (paper 4.3.9). It is freed by
 * the first sst_sid_tick() whose tx_seq >= quiet_until_tx and
 * rx_highest >= quiet_until_rx. The caller passes the sequence numbers at
 * which both hosts know of the detachment plus the mis-ordering limit.
 *
 * Quiet SIDs are freed in release order, so a SID never leaves before its
 * own thresholds are met whatever the caller passes; for a SID to leave as
 * soon as they are, both thresholds must be non-decreasing from one release
 * to the next (they are when computed from current sequence numbers).
 *
 * @return 0, -EINVAL (SID 0), -EALREADY (already quiet), -ENOENT (not
 *   attached).
 */
int sst_sid_release(
	struct sst_sid_space *s, uint16_t sid, uint64_t quiet_until_tx, uint64_t quiet_until_rx);

/**
 * sst_sid_release() for the SID of a stream that ended complete, both
 * directions delivered: its peer may still resend the stream's last
 * segments (it has not heard yet that they arrived), during the quiet
 * period and after, and sst_sid_quiet_ended() tells such a SID from one
 * whose stream moved on (detached), whose packets may carry data that must
 * be resent where the stream is now.
 * @return as sst_sid_release().
 */
int sst_sid_release_ended(
	struct sst_sid_space *s, uint16_t sid, uint64_t quiet_until_tx, uint64_t quiet_until_rx);

/** True if @p sid is in a quiet period started by sst_sid_release_ended(). */
bool sst_sid_quiet_ended(const struct sst_sid_space *s, uint16_t sid);

/**
 * Mark quiet @p sid as one whose stream moved to another channel: what
 * still arrives for it until its quiet period ends is that stream's, to be
 * refused so that it is resent where the stream is (sst_sid_quiet_moved()).
 * The mark lives in the SID's own entry, so every SID a replacement moves
 * at once keeps it, and it goes with the quiet period.
 * @return 0, or -ENOENT (not quiet).
 */
int sst_sid_mark_moved(struct sst_sid_space *s, uint16_t sid);

/** True if @p sid is in its quiet period and marked by sst_sid_mark_moved(). */
bool sst_sid_quiet_moved(const struct sst_sid_space *s, uint16_t sid);

/**
 * Free the quiet SIDs whose period is over: our transmit sequence number is
 * now @p tx_seq, the highest we received from the peer @p rx_highest.
 * Amortized O(1).
 * @return the number of SIDs freed.
 */
uint32_t sst_sid_tick(struct sst_sid_space *s, uint64_t tx_seq, uint64_t rx_highest);

/** Set the root stream's attachment (SID 0). */
static inline void
sst_sid_set_root(struct sst_sid_space *s, void *root)
{
	s->root = root;
}

/**
 * Transmit space: the counter value the next allocation tries first.
 * Receive space: the highest counter the peer attached so far.
 */
static inline uint64_t
sst_sid_space_counter(const struct sst_sid_space *s)
{
	return s->counter;
}

/** The space's counters. */
static inline const struct sst_sid_stats *
sst_sid_space_stats(const struct sst_sid_space *s)
{
	return &s->stats;
}

#endif /* STREAM_IDS_H */
