/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packets a link holds, ordered by delivery time: a binary min-heap in
 * storage sized when the link is created. Ties are broken by the order in
 * which packets were accepted (seq), so the delivery order is a pure function
 * of the inputs and the seed, never of the heap's internal layout.
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
};

static inline bool
simlink_pkt_before(const struct simlink_pkt *a, const struct simlink_pkt *b)
{
	return a->when < b->when || (a->when == b->when && a->seq < b->seq);
}

/* Insert an entry; the caller has checked that count < capacity. */
static inline void
simlink_heap_push(struct simlink_heap *h, const struct simlink_pkt *e)
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

/* Remove and return the earliest entry's mbuf; the caller has checked count > 0. */
static inline struct rte_mbuf *
simlink_heap_pop(struct simlink_heap *h)
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

#endif /* SIMLINK_HEAP_H */
