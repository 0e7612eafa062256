/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A FIFO of objects named by index (index + 1; 0 = none) threaded through a
 * table of links the caller keeps, one per object. A channel's queues of
 * streams (control packets due, streams waiting for a SID) are such FIFOs
 * through host-wide link tables indexed by control block: a stream is in at
 * most one queue of each kind at a time (its SF_IN_CTL_QUEUE or
 * SF_IN_SID_WAITERS flag), so one link per control block serves every channel
 * of the host, a queue costs a channel 12 bytes whatever its length, and
 * queueing can never run out of room. Each channel used to keep arrays of
 * max_streams + 1 pointers for them: 1 MB per channel at the defaults.
 */
#ifndef STREAM_FIFO_H
#define STREAM_FIFO_H

#include <stdint.h>

struct stream_fifo {
	uint32_t head;	/**< oldest: index + 1, 0 = empty */
	uint32_t tail;	/**< newest: index + 1 */
	uint32_t count; /**< objects queued */
};

/** Append object @p idx (not queued in any FIFO of @p next). */
static inline void
stream_fifo_push(struct stream_fifo *q, uint32_t *next, uint32_t idx)
{
	next[idx] = 0;
	if (q->tail != 0)
		next[q->tail - 1] = idx + 1;
	else
		q->head = idx + 1;
	q->tail = idx + 1;
	q->count++;
}

/** Take the oldest object out (the FIFO must not be empty). @return its index. */
static inline uint32_t
stream_fifo_pop(struct stream_fifo *q, uint32_t *next)
{
	uint32_t idx = q->head - 1;

	q->head = next[idx];
	if (q->head == 0)
		q->tail = 0;
	q->count--;
	return idx;
}

#endif /* STREAM_FIFO_H */
