/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Datagrams (paper 2.2 and 4.3.5; docs/wire-format.md 4.6): best-effort
 * "ephemeral substreams" of a parent stream, sent as one or more Datagram
 * packets on the parent's SID, the first with Begin, the last with End
 * (Begin|End for a datagram of one packet). The fragments of one datagram
 * have consecutive channel sequence numbers; the sender keeps no state and
 * never resends a lost fragment. The 2007 prototype could not reassemble
 * multi-fragment datagrams (wire-format.md 9.6); this module can.
 *
 * Receive side: one struct sst_dgram_rx per channel, for all SIDs, in
 * caller memory (sst_dgram_rx_size(), _init(), _fini()). Fragments go in by
 * channel sequence number (already extrapolated to 64 bits) and come out as
 * whole datagrams, one mbuf chain each, made by linking the fragments'
 * mbufs (zero copy).
 *
 * Layout. Buffered fragments live in a hash table keyed by sequence number
 * (chained, twice as many buckets as fragments, hash mixed with a seed from
 * the caller). Fragments that may still belong to one datagram form a
 * "group": a run of consecutive sequence numbers with the same SID, Begin
 * only on the first, End only on the last, linked in sequence order. A
 * fragment at seq s can only ever meet its datagram's neighbours at s - 1
 * and s + 1, which are the tail and the head of the groups around it, so
 * arrival is a constant number of hash look-ups and at most one merge. A
 * group that starts with Begin and ends with End is complete and leaves at
 * once. Groups are also kept in a list by age (the arrival of their first
 * fragment) for eviction and the reassembly timeout, and in a second hash
 * by SID for sst_dgram_rx_reset_sid().
 *
 * Consistency. Two buffered fragments at s and s + 1 are either in the same
 * group or the first has End and the second Begin: any other pair means
 * that one side can never complete (the sequence number it needs holds a
 * fragment that cannot continue it: another SID, a Begin in the middle, a
 * missing End), and that side is dropped as soon as the pair appears. So a
 * delivered datagram is always exactly a Begin..End run of one SID.
 *
 * Bounds. At most `capacity` fragments and `max_bytes` payload bytes are
 * buffered; a datagram has at most `max_frags` fragments, `max_dgram_bytes`
 * bytes and RTE_MBUF_MAX_NB_SEGS mbuf segments. A fragment that would take
 * its datagram past a size limit drops the datagram (it can never be
 * delivered). A fragment that finds the buffer full evicts the oldest
 * partial datagrams instead of being refused: the sender never resends, so
 * the oldest partial datagram is the one most likely to have lost a
 * fragment for good, while the newest one is still arriving (IP reassembly
 * makes the same choice). The peer is the only sender on the channel, so
 * only it can fill the buffer, and only at the expense of its own
 * datagrams. Partial datagrams older than the timeout are dropped by
 * sst_dgram_rx_expire(). Nothing is allocated after init.
 *
 * Costs. Every call on a fragment is O(1) expected (hash look-ups) plus the
 * fragments it delivers or drops, each of which was buffered by one earlier
 * call: amortized O(1) per fragment, whatever sequence numbers, flags and
 * SIDs the peer sends. Delivering links the chains in O(mbuf segments).
 * sst_dgram_rx_reset_sid() is O(1) expected plus the fragments it drops.
 *
 * Send side: sst_dgram_split() cuts a payload into fragments of at most
 * max_payload bytes, each copied into the packet pool's mbufs (no clones).
 */
#ifndef STREAM_DGRAM_H
#define STREAM_DGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "sst_time.h"
#include "stream_wire.h"

enum {
	SST_DGRAM_CAP_MIN = 1,
	SST_DGRAM_CAP_MAX = 1 << 20,
	/** Fragments of one datagram at most (each is at least one segment). */
	SST_DGRAM_FRAGS_MAX = RTE_MBUF_MAX_NB_SEGS,
};

/** Result of sst_dgram_rx_insert() that is not an error. */
enum sst_dgram_insert_result {
	SST_DGRAM_BUFFERED = 0,	 /**< the fragment waits for the rest */
	SST_DGRAM_COMPLETE = 1,	 /**< a whole datagram is in *out */
	SST_DGRAM_DUPLICATE = 2, /**< the sequence number is buffered; mbuf freed */
};

/** Receive limits, given to sst_dgram_rx_init(). */
struct sst_dgram_rx_conf {
	uint32_t capacity;	  /**< fragments buffered at most */
	uint32_t max_bytes;	  /**< payload bytes buffered at most */
	uint32_t max_frags;	  /**< fragments per datagram: 1..min(capacity, 65535) */
	uint32_t max_dgram_bytes; /**< bytes per datagram: 1..max_bytes */
	uint64_t timeout;	  /**< ns from a datagram's first fragment; > 0 */
	/** Hash seed: any value the peer cannot guess (e.g. rte_rand()). */
	uint64_t seed;
};

/** A reassembled datagram. */
struct sst_dgram {
	struct rte_mbuf *m; /**< the payload, one chain; the caller's from now on */
	uint64_t seq;	    /**< channel sequence number of the first fragment */
	uint32_t len;	    /**< payload bytes (m->pkt_len) */
	uint32_t frags;	    /**< fragments it was made of */
	uint16_t sid;	    /**< parent stream */
};

/** Counters (data path: counted, never logged). */
struct sst_dgram_rx_stats {
	uint64_t frags;		  /**< fragments offered (with an mbuf) */
	uint64_t frags_delivered; /**< fragments handed out inside datagrams */
	uint64_t frags_dropped;	  /**< fragments freed undelivered, any reason */
	uint64_t datagrams;	  /**< datagrams delivered */
	uint64_t single;	  /**< of which Begin|End, never buffered */
	uint64_t duplicates;	  /**< fragments whose sequence number was buffered */
	uint64_t invalid;	  /**< fragments with undefined flags */
	/**
	 * Partial datagrams (or arriving fragments) dropped because they can
	 * never complete: a neighbouring sequence number holds a fragment
	 * that cannot continue them (other SID, Begin inside, End missing).
	 */
	uint64_t inconsistent;
	uint64_t oversize; /**< datagrams dropped: past max_frags/bytes/segments */
	uint64_t evicted;  /**< partial datagrams dropped to make room */
	uint64_t timeouts; /**< partial datagrams dropped by expiry */
	uint64_t resets;   /**< partial datagrams dropped by reset_sid */
};

struct dgram_group;

/** A buffered fragment (internal). */
struct dgram_frag {
	struct dgram_frag *hnext, **hpprev; /**< seq hash chain; hnext links the free list */
	struct dgram_frag *next;	    /**< the group's fragment at seq + 1 */
	struct dgram_group *grp;	    /**< valid on a group's head and tail only */
	struct rte_mbuf *m;		    /**< NULL while free */
	uint64_t seq;
	uint32_t len;
	uint16_t sid;
	uint8_t flags;
};

/** A group of fragments that may still become one datagram (internal). */
struct dgram_group {
	struct dgram_group *older, *newer;   /**< age list; newer links the free list */
	struct dgram_group *snext, **spprev; /**< SID hash chain */
	struct dgram_frag *head, *tail;	     /**< lowest and highest seq */
	uint64_t order;			     /**< creation count: age order */
	sst_time_t born;		     /**< arrival of its first fragment */
	uint32_t bytes, frags, segs;
	uint16_t sid;
};

/** Receive reassembly state of one channel. */
struct sst_dgram_rx {
	struct sst_dgram_rx_conf conf;
	uint64_t seed;
	uint64_t bytes_used;
	uint64_t next_order;
	sst_time_t last_now; /**< latest time seen: groups are stamped monotonically */
	uint32_t frags_used;
	uint32_t groups_used;
	uint32_t fmask, smask; /**< seq and SID bucket counts - 1 */
	struct dgram_frag *free_frags;
	struct dgram_group *free_groups;
	struct dgram_group *oldest, *newest;
	struct sst_dgram_rx_stats stats;
	struct dgram_frag *frag_mem;   /**< capacity entries after the struct */
	struct dgram_group *group_mem; /**< capacity entries after the fragments */
	struct dgram_frag **fbucket;   /**< fmask + 1 chains after the groups */
	struct dgram_group **sbucket;  /**< smask + 1 chains after those */
};

/**
 * Bytes of caller memory for a receiver of up to @p capacity fragments.
 * @return the size, or 0 if capacity is outside [SST_DGRAM_CAP_MIN, SST_DGRAM_CAP_MAX].
 */
size_t sst_dgram_rx_size(uint32_t capacity);

/**
 * Initialise a receiver in caller memory of sst_dgram_rx_size(conf->capacity)
 * bytes, aligned for a uint64_t.
 *
 * @param conf
 *   The limits; copied. max_frags must not exceed capacity and
 *   max_dgram_bytes must not exceed max_bytes, so that evicting every
 *   other partial datagram always makes room for a fragment of a
 *   datagram within the limits.
 * @return 0, or -EINVAL (NULL pointer, capacity out of range, a limit of 0,
 *   max_frags > capacity or > SST_DGRAM_FRAGS_MAX, max_dgram_bytes >
 *   max_bytes, timeout 0).
 */
int sst_dgram_rx_init(struct sst_dgram_rx *rx, const struct sst_dgram_rx_conf *conf);

/**
 * Free every buffered fragment (counted in stats.frags_dropped). The
 * receiver is empty afterwards and may be used or initialised again; the
 * memory is the caller's.
 */
void sst_dgram_rx_fini(struct sst_dgram_rx *rx);

/**
 * Take a received Datagram packet (paper 4.3.5). The receiver always takes
 * the mbuf: it is buffered, handed back inside a datagram, or freed.
 *
 * Rules, in the order they are checked:
 *  - m NULL: -EINVAL (nothing to free); flags outside SST_FLAGS_DGRAM_ALL:
 *    -EINVAL;
 *  - a fragment longer than max_dgram_bytes or of more than
 *    RTE_MBUF_MAX_NB_SEGS segments: -EMSGSIZE;
 *  - a sequence number already buffered: SST_DGRAM_DUPLICATE (the buffered
 *    fragment stays);
 *  - partial datagrams next to @p seq that this fragment cannot continue
 *    are dropped (stats.inconsistent); if this fragment cannot continue a
 *    neighbour it needs (no Begin and seq - 1 ends or is foreign; no End
 *    and seq + 1 begins or is foreign), it is dropped together with the
 *    group it would join: -EPROTO;
 *  - Begin|End: the datagram is complete: SST_DGRAM_COMPLETE;
 *  - a fragment that would take its datagram past max_frags,
 *    max_dgram_bytes or RTE_MBUF_MAX_NB_SEGS segments drops it with the
 *    buffered part: -EMSGSIZE;
 *  - the oldest partial datagrams (other than the one this fragment joins)
 *    are evicted until it fits within capacity and max_bytes;
 *  - if the fragment completes a Begin..End run: SST_DGRAM_COMPLETE,
 *    otherwise SST_DGRAM_BUFFERED.
 *
 * @param sid
 *   The parent stream's SID from the stream header.
 * @param seq
 *   The packet's channel sequence number, extrapolated to 64 bits.
 * @param flags
 *   SST_FLAG_DGRAM_BEGIN and/or SST_FLAG_DGRAM_END.
 * @param m
 *   The payload only (headers removed), possibly a chain, possibly empty.
 * @param now
 *   Arrival time; a partial datagram's age counts from its first fragment.
 *   Times earlier than one seen before are taken as that one.
 * @param out
 *   Filled on SST_DGRAM_COMPLETE only.
 * @return SST_DGRAM_BUFFERED, SST_DGRAM_COMPLETE, SST_DGRAM_DUPLICATE,
 *   -EINVAL, -EPROTO or -EMSGSIZE.
 */
int sst_dgram_rx_insert(struct sst_dgram_rx *rx, uint16_t sid, uint64_t seq, uint32_t flags,
	struct rte_mbuf *m, sst_time_t now, struct sst_dgram *out);

/**
 * Drop every partial datagram whose first fragment arrived at least the
 * timeout before @p now.
 * @return the number of partial datagrams dropped.
 */
uint32_t sst_dgram_rx_expire(struct sst_dgram_rx *rx, sst_time_t now);

/**
 * When sst_dgram_rx_expire() next has something to drop.
 * @return a time, or SST_TIME_NEVER when nothing is buffered.
 */
sst_time_t sst_dgram_rx_next_expiry(const struct sst_dgram_rx *rx);

/**
 * Drop every buffered fragment of stream @p sid (the stream was reset or
 * closed: its datagrams will never be delivered).
 * @return the number of partial datagrams dropped.
 */
uint32_t sst_dgram_rx_reset_sid(struct sst_dgram_rx *rx, uint16_t sid);

/** Fragments buffered now. */
static inline uint32_t
sst_dgram_rx_frags(const struct sst_dgram_rx *rx)
{
	return rx->frags_used;
}

/** Payload bytes buffered now. */
static inline uint64_t
sst_dgram_rx_bytes(const struct sst_dgram_rx *rx)
{
	return rx->bytes_used;
}

/** Partial datagrams buffered now. */
static inline uint32_t
sst_dgram_rx_partials(const struct sst_dgram_rx *rx)
{
	return rx->groups_used;
}

/** One fragment to send, from sst_dgram_split(). */
struct sst_dgram_frag {
	struct rte_mbuf *m; /**< the fragment's payload; the caller's */
	uint32_t len;	    /**< m->pkt_len */
	uint8_t flags;	    /**< SST_FLAG_DGRAM_BEGIN and/or SST_FLAG_DGRAM_END */
};

/**
 * Cut a datagram's payload into fragments of at most @p max_payload bytes
 * each, to be sent as Datagram packets on consecutive channel sequence
 * numbers (paper 4.3.5). A payload that fits is returned as is, as one
 * Begin|End fragment (an empty payload too). Otherwise each fragment is a
 * copy of its bytes in direct mbufs from @p pool (one when it fits one,
 * a chain otherwise), the first with the pool's headroom, so that the
 * headers go in front of it and an armor's trailer behind it in place,
 * and @p m is released. Copying a fragment costs less than an indirect
 * mbuf per payload segment it touches, their detach, and the header and
 * trailer mbufs a shared buffer needs (docs/performance.md).
 *
 * @param m
 *   The payload, possibly a chain. Consumed on success only.
 * @param max_payload
 *   Largest fragment payload (the prototype's SST_SEGMENT_MAX is 1200).
 * @param pool
 *   Pktmbuf pool for the fragments' mbufs (the packet pool).
 * @param tail_reserve
 *   Tailroom each mbuf of a fragment keeps free (the largest armor
 *   trailer); mbufs with no more room than that cannot be used.
 * @param frags
 *   Output array of @p max_frags entries.
 * @return the number of fragments (>= 1), or -EINVAL (NULL argument or
 *   max_payload 0), -ENOSPC (more than max_frags fragments needed) or
 *   -ENOMEM (pool empty, or its mbufs too small). On error nothing was
 *   allocated and the caller still owns @p m, unchanged.
 */
int sst_dgram_split(struct rte_mbuf *m, uint32_t max_payload, struct rte_mempool *pool,
	uint16_t tail_reserve, struct sst_dgram_frag *frags, uint32_t max_frags);

#endif /* STREAM_DGRAM_H */
