/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive reassembly buffer of one stream direction (paper 4.3.4): data
 * segments arrive by byte offset, out of order, overlapping or duplicated,
 * and leave in order, zero copy, as the received mbufs cut to the bytes
 * nobody delivered before (rte_pktmbuf_adj/trim, or an indirect clone when
 * one segment fills several holes). Never a memcpy of payload.
 *
 * Offsets are 64-bit: the caller extrapolates the 16/32-bit wire BSN (TCP
 * wraparound arithmetic) before inserting.
 *
 * Layout. Received bytes not yet contiguous with the read point are kept as
 * "islands": maximal runs of received bytes, disjoint and never adjacent,
 * in a treap keyed by start offset. Each island owns the list of pieces
 * (one mbuf each, in offset order) that make it up. Bytes that are
 * contiguous from the read point wait in the ready queue, a list of pieces
 * the application takes with sst_rob_read().
 *
 * Bounds. Every piece lies below read_off + window, so buffered bytes never
 * exceed the window; pieces (ready + out of order) never exceed the
 * capacity given at init, and islands never exceed pieces. Nothing is
 * allocated after init except indirect mbufs from the caller's clone pool
 * when a segment straddles buffered data.
 *
 * Costs. An in-order segment with nothing out of order is O(1) (straight
 * to the ready queue). Otherwise a segment costs O(log n) expected treap
 * operations (n = islands) plus O(k) for the k islands it touches; each of
 * those k islands is merged into one, so that work is paid for by the
 * insertions that created them (amortized O(log n)). A duplicate of
 * buffered data is found in O(log n) without walking anything.
 */
#ifndef STREAM_ROB_H
#define STREAM_ROB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "sst_mem.h"
#include "stream_wire.h"

enum {
	SST_ROB_CAP_MIN = 1,
	SST_ROB_CAP_MAX = 1 << 20,
	/** Segment flags sst_rob_insert() accepts: the wire's Data flags. */
	SST_ROB_FLAGS = SST_FLAGS_DATA_ALL,
};

/** Result of sst_rob_insert() that is not an error. */
enum sst_rob_insert_result {
	SST_ROB_ACCEPTED = 0,  /**< new bytes (or a new final offset) were taken */
	SST_ROB_DUPLICATE = 1, /**< every byte was already received; mbuf freed */
};

/** One delivery of sst_rob_read(): an mbuf chain and where it starts. */
struct sst_rob_rx {
	struct rte_mbuf *m; /**< owned by the caller from now on; never empty */
	uint64_t off;	    /**< stream offset of its first byte */
	/**
	 * SST_FLAG_MESSAGE: the last byte of m ends an application message.
	 * SST_FLAG_PUSH: the sender asked for prompt delivery at that byte.
	 * SST_FLAG_CLOSE: the last byte of m is the last byte of the stream.
	 */
	uint32_t flags;
};

/** Counters (data path: counted, never logged). */
struct sst_rob_stats {
	uint64_t segs;		/**< segments offered */
	uint64_t segs_dup;	/**< segments with no new byte */
	uint64_t bytes_dup;	/**< bytes offered that were already received */
	uint64_t drop_window;	/**< segments dropped: beyond the window */
	uint64_t drop_capacity; /**< segments (partly) dropped: no piece left */
	uint64_t drop_nomem;	/**< segments (partly) dropped: no clone mbuf */
	uint64_t proto_errors;	/**< segments beyond or conflicting with the end */
	uint64_t clones;	/**< indirect mbufs made to fill holes */
	uint64_t grows;		/**< chunks of pieces added */
	uint64_t grow_failures; /**< a chunk could not be allocated */
};

struct rob_piece {
	struct rob_piece *next;
	struct rte_mbuf *m;
	uint64_t off;
	uint32_t len;
	uint32_t flags;
};

struct rob_island {
	struct rob_island *l, *r; /**< treap children; r links the free list */
	struct rob_piece *head, *tail;
	uint64_t start, end; /**< [start, end) */
	uint32_t prio;
};

/** Pieces and islands a rob added with use (sst_rob_set_growth()). */
struct rob_chunk {
	struct rob_chunk *next;
	uint32_t n; /**< pieces, then as many islands, after the header */
};

struct sst_rob {
	uint64_t read_off;    /**< everything below was handed to the app */
	uint64_t ready_end;   /**< everything below was received */
	uint64_t final_off;   /**< end of stream, valid when has_final */
	uint64_t ooo_first;   /**< start of the first island, UINT64_MAX if none */
	uint64_t high;	      /**< highest received end offset */
	uint64_t bytes_ready; /**< in the ready queue */
	uint64_t bytes_ooo;   /**< in islands */
	uint32_t window;      /**< bytes the rob may hold beyond read_off */
	uint32_t capacity;    /**< pieces */
	uint32_t pieces_used;
	uint32_t islands;
	uint32_t rng; /**< treap priorities (xorshift32) */
	bool has_final;
	struct rte_mempool *clone_pool;
	struct rob_piece *ready_head, *ready_tail;
	struct rob_piece *free_pieces;
	struct rob_island *root, *free_islands;
	struct sst_rob_stats stats;
	struct rob_piece *piece_mem;   /**< own_capacity entries after the struct */
	struct rob_island *island_mem; /**< own_capacity entries after the pieces */
	uint32_t own_capacity;	       /**< pieces in the caller's memory */
	uint32_t fresh_pieces;	       /**< of those, handed out since the last init */
	uint32_t fresh_islands;	       /**< likewise for the caller's islands */
	uint32_t max_capacity;	       /**< pieces it may grow to */
	const struct sst_mem_ops *mem; /**< where chunks come from; NULL: no growth */
	struct rob_chunk *chunks;      /**< pieces added beyond own_capacity */
};

/**
 * Let the rob track more pieces than given at init: when none is free it
 * adds as many again (a chunk of pieces and islands on @p mem), up to
 * @p max_capacity; chunks go back at sst_rob_fini() and sst_rob_reset().
 * A long fat path needs thousands of segments buffered around a loss, most
 * streams a few. A growth that fails is counted in stats.grow_failures and
 * the segment is dropped as when the rob is full.
 * @return 0, or -EINVAL (NULL mem, or max_capacity below the capacity given
 *   at init or above SST_ROB_CAP_MAX).
 */
int sst_rob_set_growth(struct sst_rob *rob, uint32_t max_capacity, const struct sst_mem_ops *mem);

/**
 * Bytes of caller memory for a rob that tracks up to @p capacity pieces.
 * @return the size, or 0 if capacity is outside [SST_ROB_CAP_MIN, SST_ROB_CAP_MAX].
 */
size_t sst_rob_size(uint32_t capacity);

/**
 * Initialise a rob in caller memory of sst_rob_size(capacity) bytes,
 * aligned for a pointer.
 *
 * @param capacity
 *   Pieces (buffered mbufs, ready or out of order) tracked at most. A
 *   segment that would need more is dropped with -ENOSPC, so it should
 *   be at least window / typical segment size.
 * @param window
 *   Bytes the rob may hold beyond the read offset (the receive buffer the
 *   advertised window is computed from).
 * @param clone_pool
 *   Pktmbuf pool for the indirect mbufs that cut a segment around data
 *   already buffered (any data room, 0 is enough).
 * @param start
 *   Offset of the first byte of the stream direction (0 for a new stream).
 * @return 0, or -EINVAL (bad capacity, NULL memory or NULL pool).
 */
int sst_rob_init(struct sst_rob *rob, uint32_t capacity, uint32_t window,
	struct rte_mempool *clone_pool, uint64_t start);

/**
 * Release every buffered mbuf (the ready queue and the out-of-order data).
 * The rob may be initialised again afterwards; the memory is the caller's.
 */
void sst_rob_fini(struct sst_rob *rob);

/**
 * Release every buffered mbuf and start over at offset @p start with the
 * same capacity, window and pool (a stream Reset; counters are kept).
 */
void sst_rob_reset(struct sst_rob *rob, uint64_t start);

/**
 * Take a received data segment (paper 4.3.4). The rob always takes the
 * mbuf: it buffers the new bytes and frees the rest, on every return.
 *
 * Rules, in the order they are checked:
 *  - flags outside SST_ROB_FLAGS: -EINVAL;
 *  - Close sets the final offset to off + length. A second, different
 *    final offset, or a final offset below bytes already received: -EPROTO;
 *  - bytes beyond a known final offset: -EPROTO;
 *  - bytes below the received point, or already buffered, are cut away;
 *    if none is left: SST_ROB_DUPLICATE;
 *  - a segment ending beyond read offset + window is dropped whole, as if
 *    lost (the paper's rule for a sender that overruns): -EOVERFLOW;
 *  - each run of new bytes becomes a piece; the last one reuses the mbuf,
 *    the others are indirect clones of it. With no piece left: -ENOSPC;
 *    with no clone mbuf: -ENOMEM. Runs placed before the failure stay
 *    buffered (they are correct data and a resend finds them duplicates).
 *    A caller must treat any negative return as "not received": do not
 *    acknowledge the packet.
 *
 * Message end and Push belong to the last byte of the segment: they are kept
 * on the piece that ends there, which is the piece this segment supplies
 * unless those bytes were already buffered (a resend carries the same
 * flags). A segment with no data (m NULL or empty) may carry Close, and
 * Message end/Push, which are then attached to the buffered piece ending at
 * @p off if there is one (and lost if that byte was already read).
 *
 * @param off
 *   Stream offset of the segment's first byte, already extrapolated.
 * @param m
 *   The segment's payload only (headers removed), possibly a chain, or NULL.
 * @param flags
 *   SST_FLAG_CLOSE, SST_FLAG_MESSAGE, SST_FLAG_PUSH (the wire's flags).
 * @return SST_ROB_ACCEPTED, SST_ROB_DUPLICATE, -EINVAL, -EPROTO, -EOVERFLOW,
 *   -ENOSPC or -ENOMEM.
 */
int sst_rob_insert(struct sst_rob *rob, uint64_t off, struct rte_mbuf *m, uint32_t flags);

/**
 * Hand contiguous in-order data to the application: up to @p max pieces
 * from the read offset, which advances past them. The mbufs become the
 * caller's. A message end is delivered as SST_FLAG_MESSAGE on the
 * record whose last byte ends the message (a record never spans a message
 * end, because segments do not).
 *
 * @return the number of records written to @p rx (0 when nothing is ready).
 */
uint16_t sst_rob_read(struct sst_rob *rob, struct sst_rob_rx *rx, uint16_t max);

/** Change the window (bytes beyond the read offset); applies to later segments. */
static inline void
sst_rob_set_window(struct sst_rob *rob, uint32_t window)
{
	rob->window = window;
}

/** Offset of the next byte sst_rob_read() will hand out. */
static inline uint64_t
sst_rob_read_offset(const struct sst_rob *rob)
{
	return rob->read_off;
}

/** Bytes sst_rob_read() can hand out now. */
static inline uint64_t
sst_rob_readable(const struct sst_rob *rob)
{
	return rob->bytes_ready;
}

/** Bytes held (ready and out of order); never more than the window was. */
static inline uint64_t
sst_rob_buffered(const struct sst_rob *rob)
{
	return rob->bytes_ready + rob->bytes_ooo;
}

/** Free window: bytes the sender may still send beyond what is buffered. */
static inline uint64_t
sst_rob_window_free(const struct sst_rob *rob)
{
	uint64_t held = sst_rob_buffered(rob);

	return held >= rob->window ? 0 : rob->window - held;
}

/** True once the final offset is known and every byte before it was read. */
static inline bool
sst_rob_eof(const struct sst_rob *rob)
{
	return rob->has_final && rob->read_off == rob->final_off;
}

/** The final offset through @p off, if a Close was received. */
static inline bool
sst_rob_final(const struct sst_rob *rob, uint64_t *off)
{
	if (rob->has_final)
		*off = rob->final_off;
	return rob->has_final;
}

#endif /* STREAM_ROB_H */
