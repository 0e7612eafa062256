/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Send queue of one stream direction (paper 4.3.4): the application's
 * outgoing bytes from the moment it hands them over until the peer has
 * acknowledged them.
 *
 * Zero copy on the way in. Appended mbuf chains are kept as they are, one
 * entry per non-empty mbuf of the chain (the chain is unlinked so that each
 * mbuf can be released on its own). A segment handed out for sending is
 * either a chain of indirect mbufs (rte_pktmbuf_clone from the pool given
 * at init) cut to the segment's bytes, or, from
 * sst_sendq_next_segment_copy() and _chain(), a copy of its bytes in a
 * buffer or mbuf chain of the caller's (the packet's own mbufs, behind its
 * header: one mbuf per packet, or a few for a jumbo MTU, instead of a
 * header mbuf, a clone per entry touched and a trailer mbuf).
 * Either way the queued originals stay until every byte they hold is
 * acknowledged, then go back to their pool (the NIC may still hold clones:
 * the refcount keeps the buffer alive), and a retransmission is cut from
 * them again.
 *
 * Byte states. Bytes below `una` are acknowledged and released. Between
 * `una` and `snd_nxt` (bytes sent at least once) every byte is in flight,
 * lost (to be resent) or acknowledged out of order; the last two kinds are
 * kept as a sorted array of disjoint ranges with a state (in flight is the
 * default, so a queue with nothing lost or acked out of order has no range).
 * Bytes from `snd_nxt` to `tail` were never sent.
 *
 * Segments. sst_sendq_next_segment() resends the lowest lost byte first,
 * then new data, then the zero-length Push|Close that ends the direction
 * when the end comes after all data was sent. A segment never crosses the
 * end of a write that carries Push or Message end (wire-format.md 4: those
 * flags belong to the segment that ends the write, and the receiver's
 * reassembly relies on segments not spanning a message end). A lost range
 * is re-cut to whatever max_len the caller gives (paper 4.3.4: a smaller
 * MTU re-fragments the retransmission).
 *
 * Packet numbers. The queue knows only byte ranges: the caller remembers
 * (offset, length) of each segment under the channel's cookie and reports
 * sst_sendq_on_acked() / sst_sendq_on_lost() with them. Ranges may be
 * acknowledged out of order and more than once (a retransmission and the
 * original both arriving); a byte is counted and released once.
 *
 * Bounds. At most max_bytes bytes and max_mbufs mbufs are held; at most
 * max_ranges lost/acked ranges are tracked. The tables of both live in
 * the caller's memory at init; sst_sendq_set_growth() lets them double on
 * an allocator, up to larger limits, as a stream's flight grows (a long fat
 * path needs thousands of mbufs in flight, most streams a few), until
 * sst_sendq_fini() gives the memory back. Every acknowledged or lost
 * range of a sent segment can at worst add two ranges, so max_ranges should
 * be at least 2 x the segments in flight + 2 for the operations never to
 * fail with -ENOSPC. Nothing is allocated after init except the clones.
 *
 * Costs. Appending is O(mbufs). Cutting the next segment is O(1) (the
 * entry where the last one ended is remembered), finding any other offset
 * O(log n) (binary search over the held mbufs); an acknowledgment in
 * order is O(mbufs it completes), one out of order O(log n) more; updating
 * the range array is O(ranges) (memmove), which is small when loss is rare.
 */
#ifndef STREAM_SENDQ_H
#define STREAM_SENDQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "sst_mem.h"
#include "stream_wire.h"

enum {
	SST_SENDQ_CAP_MIN = 1,
	SST_SENDQ_CAP_MAX = 1 << 20,
	/** Flags sst_sendq_append() accepts: the marks that end a write. */
	SST_SENDQ_APPEND_FLAGS = SST_FLAG_PUSH | SST_FLAG_MESSAGE,
};

/** One segment to send, from sst_sendq_next_segment(). */
struct sst_sendq_seg {
	/**
	 * Indirect mbufs referencing the queued data, exactly len bytes;
	 * owned by the caller (to send or free). NULL when len is 0, and
	 * from the copies (the bytes are in the caller's buffer).
	 */
	struct rte_mbuf *m;
	uint64_t off;	 /**< stream offset of the first byte */
	uint32_t len;	 /**< payload bytes (0 only for the final Push|Close) */
	uint32_t flags;	 /**< SST_FLAG_PUSH, SST_FLAG_MESSAGE, SST_FLAG_CLOSE */
	bool retransmit; /**< the bytes were sent before */
};

/** Counters (data path: counted, never logged). */
struct sst_sendq_stats {
	uint64_t segs;		/**< segments handed out */
	uint64_t segs_retx;	/**< of which retransmissions */
	uint64_t bytes_retx;	/**< bytes resent */
	uint64_t clones;	/**< indirect mbufs made */
	uint64_t copies;	/**< segments copied out (_copy(), _chain()) */
	uint64_t bytes_copied;	/**< their bytes */
	uint64_t nomem;		/**< segments not made: clone pool empty */
	uint64_t bytes_dup_ack; /**< bytes acknowledged again */
	uint64_t nospace;	/**< on_acked/on_lost refused: no range left */
	uint64_t grows;		/**< a table doubled */
	uint64_t grow_failures; /**< a table could not grow (no memory) */
};

struct sendq_ent {
	struct rte_mbuf *m; /**< one mbuf, NULL once released */
	uint64_t off;
	uint32_t len;
	uint32_t flags; /**< Push/Message end at the end of this mbuf */
};

struct sendq_range {
	uint64_t start, end; /**< [start, end) */
	uint32_t state;	     /**< SENDQ_LOST or SENDQ_ACKED */
};

struct sst_sendq {
	uint64_t start;	     /**< offset given at init */
	uint64_t una;	     /**< every byte below is acknowledged */
	uint64_t snd_nxt;    /**< every byte below was sent at least once */
	uint64_t tail;	     /**< end of the appended data */
	uint64_t bytes_held; /**< bytes in held mbufs */
	uint64_t bytes_ooo;  /**< bytes acknowledged above una */
	uint64_t bytes_lost; /**< bytes waiting to be resent */
	uint64_t max_bytes;
	uint32_t max_mbufs, max_ranges;
	uint32_t ent_cap, range_cap;	     /**< entries the tables have now */
	uint32_t own_ent_cap, own_range_cap; /**< those given at init */
	uint32_t ent_head, ent_count;	     /**< ring of held mbufs, in offset order */
	uint32_t ent_hint;		     /**< slot where the last segment ended (ent_find()) */
	uint32_t nranges;
	uint8_t close;	 /**< enum sendq_close (stream_sendq.c) */
	bool close_zero; /**< the end goes as a zero-length segment */
	bool zero_due;	 /**< that zero-length segment is to be sent */
	bool zero_sent;	 /**< and was sent at least once */
	struct rte_mempool *clone_pool;
	struct sst_sendq_stats stats;
	const struct sst_mem_ops *mem; /**< where grown tables come from; NULL: none */
	struct sendq_ent *ents;	       /**< ent_cap entries (at init: after the struct) */
	struct sendq_range *ranges;    /**< range_cap entries (at init: after the entries) */
	struct sendq_ent *own_ents;    /**< the tables in the caller's memory */
	struct sendq_range *own_ranges;
};

/**
 * Bytes of caller memory for a send queue.
 * @return the size, or 0 if a capacity is outside
 *   [SST_SENDQ_CAP_MIN, SST_SENDQ_CAP_MAX].
 */
size_t sst_sendq_size(uint32_t max_mbufs, uint32_t max_ranges);

/**
 * Initialise a send queue in caller memory of sst_sendq_size() bytes,
 * aligned for a pointer.
 *
 * @param max_bytes
 *   Bytes the queue may hold (appended, not yet acknowledged); at least 1.
 * @param max_mbufs
 *   Non-empty mbufs the queue may track: those from the first
 *   unacknowledged byte to the tail (an mbuf released out of order keeps
 *   its slot until every byte before it is acknowledged).
 * @param max_ranges
 *   Lost or out-of-order acknowledged ranges tracked (see the header).
 * @param clone_pool
 *   Pktmbuf pool for the indirect mbufs of segments (any data room).
 * @param start
 *   Offset of the direction's first byte (0 for a new stream).
 * @return 0, or -EINVAL (NULL queue or pool, bad capacity, max_bytes 0).
 */
int sst_sendq_init(struct sst_sendq *q, uint64_t max_bytes, uint32_t max_mbufs, uint32_t max_ranges,
	struct rte_mempool *clone_pool, uint64_t start);

/**
 * Let the tables grow beyond the capacities given at init: each doubles on
 * @p mem, when an append or an acknowledgment needs room, up to the new
 * limits. A growth that fails is reported as the limit (-ENOSPC) and
 * counted in stats.grow_failures.
 *
 * @param max_mbufs
 *   Most mbufs held, at least the capacity given at init.
 * @param max_ranges
 *   Most ranges tracked, at least the capacity given at init.
 * @return 0, or -EINVAL (NULL mem, or a limit below the capacity given at
 *   init or above SST_SENDQ_CAP_MAX).
 */
int sst_sendq_set_growth(struct sst_sendq *q, uint32_t max_mbufs, uint32_t max_ranges,
	const struct sst_mem_ops *mem);

/** Release every held mbuf and the grown tables. The memory is the
 * caller's; init may follow. */
void sst_sendq_fini(struct sst_sendq *q);

/**
 * Release every held mbuf at once and start over, empty and not closed, at
 * the offset given at init (a stream Reset). Segments already handed out
 * stay the caller's. Counters are kept.
 */
void sst_sendq_reset(struct sst_sendq *q);

/**
 * Queue one application write. On success the queue owns @p m; on error
 * the caller keeps it and nothing changed.
 *
 * @param m
 *   The data, a chain of any length, or NULL / empty to put the marks in
 *   @p flags on the end of the previous write (allowed only while its last
 *   byte was not sent yet).
 * @param flags
 *   SST_FLAG_PUSH and/or SST_FLAG_MESSAGE: they go on the segment that
 *   carries the last byte of this write.
 * @return 0; -EINVAL (flags outside SST_SENDQ_APPEND_FLAGS, or an empty
 *   write whose marks cannot be placed); -EPIPE (after sst_sendq_close());
 *   -ENOBUFS (more than max_bytes would be held); -ENOSPC (more than
 *   max_mbufs would be held).
 */
int sst_sendq_append(struct sst_sendq *q, struct rte_mbuf *m, uint32_t flags);

/**
 * End the direction after the data appended so far. The segment ending at
 * the final offset carries Push|Close; if every byte was already sent, a
 * zero-length Push|Close segment at the final offset is sent instead.
 * @return 0, or -EALREADY if the queue was closed already.
 */
int sst_sendq_close(struct sst_sendq *q);

/**
 * End the direction with a zero-length Push|Close segment of its own, sent
 * after every data byte, even when data is still unsent: no data segment
 * carries Close. For a peer whose reader does not see a Close on a data
 * segment (the 2007 prototype's stops at the message boundary before it
 * looks at the flag; docs/wire-format.md 9.8).
 * @return 0, or -EALREADY if the queue was closed already.
 */
int sst_sendq_close_alone(struct sst_sendq *q);

/**
 * Make the next segment to send: the lowest lost range first, then new
 * data, then the zero-length Push|Close. The segment covers at most
 * @p max_len bytes and never crosses the end of a write marked with Push
 * or Message end.
 *
 * @param max_len
 *   Largest payload (MTU, and flow control credit as the caller sees fit).
 *   0 can only produce the zero-length Push|Close.
 * @param seg
 *   Filled in when 1 is returned.
 * @return 1 (a segment), 0 (nothing to send), or -ENOMEM (clone pool
 *   empty; nothing changed, try again later).
 */
int sst_sendq_next_segment(struct sst_sendq *q, uint32_t max_len, struct sst_sendq_seg *seg);

/**
 * Like sst_sendq_next_segment(), but the segment's bytes are copied to
 * @p buf instead of being cloned: seg->m is NULL, and nothing is allocated,
 * so the call cannot fail for want of mbufs.
 *
 * @param buf
 *   Room for @p max_len bytes; the first seg->len are written.
 * @return 1 (a segment), 0 (nothing to send).
 */
int sst_sendq_next_segment_copy(
	struct sst_sendq *q, uint32_t max_len, struct sst_sendq_seg *seg, void *buf);

/**
 * Like sst_sendq_next_segment_copy(), but into the data of an mbuf chain:
 * a segment larger than one mbuf (a jumbo path MTU) is copied across the
 * packet's own direct mbufs instead of being cloned.
 *
 * @param dst
 *   The chain; each mbuf's data_len is the room it offers, and together
 *   they hold at least @p dst_off + @p max_len bytes. The first seg->len
 *   bytes from @p dst_off on are written; data lengths are not changed.
 * @param dst_off
 *   Where in the chain's data the copy starts (behind the headers).
 * @return 1 (a segment), 0 (nothing to send).
 */
int sst_sendq_next_segment_chain(struct sst_sendq *q, uint32_t max_len, struct sst_sendq_seg *seg,
	struct rte_mbuf *dst, uint32_t dst_off);

/**
 * The segment [off, off + len) was acknowledged. Bytes already
 * acknowledged are ignored; mbufs whose every byte is now acknowledged are
 * released. len 0 at the final offset acknowledges the zero-length Close.
 *
 * @return 0; -EINVAL (the range reaches beyond the bytes sent);
 *   -ENOSPC (no range left to record it: nothing changed).
 */
int sst_sendq_on_acked(struct sst_sendq *q, uint64_t off, uint32_t len);

/**
 * The segment [off, off + len) was lost: its bytes not acknowledged since
 * are queued to be resent before new data. len 0 at the final offset
 * means the zero-length Close was lost.
 *
 * @return 0; -EINVAL (the range reaches beyond the bytes sent);
 *   -ENOSPC (no range left to record it: nothing changed).
 */
int sst_sendq_on_lost(struct sst_sendq *q, uint64_t off, uint32_t len);

/** Bytes held in mbufs (appended, not yet released); at most max_bytes. */
static inline uint64_t
sst_sendq_queued(const struct sst_sendq *q)
{
	return q->bytes_held;
}

/** Bytes appended but never sent. */
static inline uint64_t
sst_sendq_unsent(const struct sst_sendq *q)
{
	return q->tail - q->snd_nxt;
}

/** Bytes declared lost and waiting to be resent. */
static inline uint64_t
sst_sendq_lost(const struct sst_sendq *q)
{
	return q->bytes_lost;
}

/** Bytes acknowledged since init (each byte counted once). */
static inline uint64_t
sst_sendq_acked(const struct sst_sendq *q)
{
	return q->una - q->start + q->bytes_ooo;
}

/** Bytes sent, neither acknowledged nor waiting to be resent. */
uint64_t sst_sendq_in_flight(const struct sst_sendq *q);

/** True if sst_sendq_next_segment() has something to send. */
bool sst_sendq_pending(const struct sst_sendq *q);

/** True once the direction is closed and every byte and the Close are acknowledged. */
bool sst_sendq_finished(const struct sst_sendq *q);

#endif /* STREAM_SENDQ_H */
