/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Event queue of the simulator (see sim_event.h). The array grows by
 * doubling; the simulator is test code, and the link model, which is not,
 * never allocates per packet.
 */
#include <errno.h>
#include <stdlib.h>

#include "sim_event.h"

static bool
before(const struct sim_event *a, const struct sim_event *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

int
sim_event_push(struct sim_event_queue *q, struct sim_event *e)
{
	size_t i;

	if (q->count == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 256;
		struct sim_event *ev = realloc(q->ev, cap * sizeof(*ev));

		if (ev == NULL)
			return -ENOMEM;
		q->ev = ev;
		q->cap = cap;
	}
	e->seq = q->next_seq++;
	i = q->count++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!before(e, &q->ev[parent]))
			break;
		q->ev[i] = q->ev[parent];
		i = parent;
	}
	q->ev[i] = *e;
	return 0;
}

bool
sim_event_pop(struct sim_event_queue *q, struct sim_event *e)
{
	struct sim_event last;
	size_t i = 0, n;

	if (q->count == 0)
		return false;
	*e = q->ev[0];
	last = q->ev[--q->count];
	n = q->count;
	if (n == 0)
		return true;
	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= n)
			break;
		if (child + 1 < n && before(&q->ev[child + 1], &q->ev[child]))
			child++;
		if (!before(&q->ev[child], &last))
			break;
		q->ev[i] = q->ev[child];
		i = child;
	}
	q->ev[i] = last;
	return true;
}

void
sim_event_queue_free(struct sim_event_queue *q)
{
	free(q->ev);
	q->ev = NULL;
	q->count = q->cap = 0;
}
