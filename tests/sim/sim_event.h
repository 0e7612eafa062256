/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The simulator's event queue: a binary min-heap on (time, seq), where seq is
 * the order of insertion. Two events due at the same virtual time therefore
 * run in the order they were scheduled, on every run, which is what makes a
 * simulation a function of its seed only.
 */
#ifndef SIM_EVENT_H
#define SIM_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sst_time.h"

/** What an event does when it comes. */
enum sim_event_kind {
	SIM_EV_DELIVER,	 /**< a link direction has packets due (obj: the direction) */
	SIM_EV_TIMER,	 /**< a host's next expiry (obj: the host) */
	SIM_EV_CALLBACK, /**< a function scheduled with sim_schedule() */
};

/** One scheduled event. */
struct sim_event {
	sst_time_t time;
	uint64_t seq;
	enum sim_event_kind kind;
	/** Generation of obj's schedule when this event was pushed; a newer
	 *  generation makes the event stale (lazy deletion). */
	uint64_t gen;
	void *obj;
	void (*fn)(void *arg, sst_time_t now);
};

/** The queue; zero-initialised is empty. */
struct sim_event_queue {
	struct sim_event *ev;
	size_t count;
	size_t cap;
	uint64_t next_seq;
};

/* Add an event (its seq is assigned here). Returns 0 or -ENOMEM. */
int sim_event_push(struct sim_event_queue *q, struct sim_event *e);

/* Remove the earliest event into *e. Returns false if the queue is empty. */
bool sim_event_pop(struct sim_event_queue *q, struct sim_event *e);

/* The earliest event, or NULL if the queue is empty. */
static inline const struct sim_event *
sim_event_peek(const struct sim_event_queue *q)
{
	return q->count > 0 ? &q->ev[0] : NULL;
}

/* Release the queue's memory. */
void sim_event_queue_free(struct sim_event_queue *q);

#endif /* SIM_EVENT_H */
