/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packets a link holds, ordered by delivery time: a binary min-heap in
 * storage sized when the link is created. Ties are broken by the order in
 * which packets were accepted (seq), so the delivery order is a pure function
 * of the inputs and the seed, never of the heap's internal layout.
 *
 * A link whose delivery times never go backwards (no delay, jitter,
 * reordering or random impairment, issue 17) pays for the heap's log(n)
 * sifting on every packet for nothing: its packets leave in the order they
 * came. While the caller prefers it, the same storage is then a ring, the
 * oldest packet at head, with the same order: a packet joins the ring only
 * if it is not before the newest one, and the first that would be turns the
 * ring into a heap (a sorted array is a valid heap once rotated to start at
 * index 0). The storage goes back to a ring when it empties.
 */
#ifndef SIMLINK_HEAP_H
#define SIMLINK_HEAP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "sst_time.h"

/** One packet in the link. */
struct simlink_pkt {
	sst_time_t when;    /**< delivery time */
	uint64_t seq;	    /**< acceptance order, the tie-breaker */
	struct rte_mbuf *m; /**< the packet */
};

/** The heap: count entries of at most capacity in pkts[]. */
struct simlink_heap {
	uint32_t count;
	uint32_t capacity;
	struct simlink_pkt *pkts;
	/** Ring: the oldest entry's index; 0 while a heap (its root). */
	uint32_t head;
	/** pkts[] is a ring in delivery order, not a heap. */
	bool ring;
	/** Become a ring whenever empty: the caller expects times in order. */
	bool prefer_ring;
};

static inline bool
simlink_pkt_before(const struct simlink_pkt *a, const struct simlink_pkt *b)
{
	return a->when < b->when || (a->when == b->when && a->seq < b->seq);
}

/* Insert an entry into the heap proper; the caller has checked that count < capacity. */
static inline void
simlink_heap_sift_up(struct simlink_heap *h, const struct simlink_pkt *e)
{
	uint32_t i = h->count++;

	while (i > 0) {
		uint32_t parent = (i - 1) / 2;

		if (!simlink_pkt_before(e, &h->pkts[parent]))
			break;
		h->pkts[i] = h->pkts[parent];
		i = parent;
	}
	h->pkts[i] = *e;
}

/* Remove and return the heap proper's earliest mbuf; the caller has checked count > 0. */
static inline struct rte_mbuf *
simlink_heap_sift_down(struct simlink_heap *h)
{
	struct rte_mbuf *m = h->pkts[0].m;
	struct simlink_pkt last = h->pkts[--h->count];
	uint32_t n = h->count;
	uint32_t i = 0;

	if (n == 0)
		return m;
	for (;;) {
		uint32_t child = 2 * i + 1;

		if (child >= n)
			break;
		if (child + 1 < n && simlink_pkt_before(&h->pkts[child + 1], &h->pkts[child]))
			child++;
		if (!simlink_pkt_before(&h->pkts[child], &last))
			break;
		h->pkts[i] = h->pkts[child];
		i = child;
	}
	h->pkts[i] = last;
	return m;
}

/* Reverse pkts[lo, hi). */
static inline void
simlink_heap_reverse(struct simlink_pkt *pkts, uint32_t lo, uint32_t hi)
{
	while (lo + 1 < hi) {
		struct simlink_pkt t = pkts[lo];

		pkts[lo++] = pkts[--hi];
		pkts[hi] = t;
	}
}

/*
 * Turn the ring into a heap: rotate the whole storage left by head (three
 * reversals, in place), so the ring's entries, sorted, start at index 0,
 * which makes them a valid heap. Rare (a packet out of order on a link
 * expected in order, or new parameters), so O(capacity) is fine.
 */
static inline void
simlink_heap_from_ring(struct simlink_heap *h)
{
	if (h->head != 0) {
		simlink_heap_reverse(h->pkts, 0, h->head);
		simlink_heap_reverse(h->pkts, h->head, h->capacity);
		simlink_heap_reverse(h->pkts, 0, h->capacity);
		h->head = 0;
	}
	h->ring = false;
}

/* Insert an entry; the caller has checked that count < capacity. */
static inline void
simlink_heap_push(struct simlink_heap *h, const struct simlink_pkt *e)
{
	uint32_t tail;

	if (h->count == 0) {
		h->head = 0;
		h->ring = h->prefer_ring;
	}
	if (h->ring) {
		tail = h->head + h->count;
		if (tail >= h->capacity)
			tail -= h->capacity;
		if (h->count == 0 ||
			!simlink_pkt_before(e, &h->pkts[tail == 0 ? h->capacity - 1 : tail - 1])) {
			h->pkts[tail] = *e;
			h->count++;
			return;
		}
		simlink_heap_from_ring(h);
	}
	simlink_heap_sift_up(h, e);
}

/* The earliest entry; the caller has checked count > 0. */
static inline const struct simlink_pkt *
simlink_heap_first(const struct simlink_heap *h)
{
	return &h->pkts[h->head];
}

/* Remove and return the earliest entry's mbuf; the caller has checked count > 0. */
static inline struct rte_mbuf *
simlink_heap_pop(struct simlink_heap *h)
{
	struct rte_mbuf *m;

	if (!h->ring)
		return simlink_heap_sift_down(h);
	m = h->pkts[h->head].m;
	h->head = h->head + 1 == h->capacity ? 0 : h->head + 1;
	h->count--;
	return m;
}

/*
 * Say whether the entries pushed from now on come in delivery order. A
 * ring becomes a heap at once when they may not; a heap becomes a ring
 * only when it empties (its entries are not in ring order).
 */
static inline void
simlink_heap_prefer_ring(struct simlink_heap *h, bool in_order)
{
	h->prefer_ring = in_order;
	if (h->count == 0) {
		h->head = 0;
		h->ring = in_order;
	} else if (h->ring && !in_order) {
		simlink_heap_from_ring(h);
	}
}

#endif /* SIMLINK_HEAP_H */
