/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ring mode, the worker's side (sst_ring.h): a handle's slot in the agent,
 * with its two lists (events owed, a write FIFO that may drain), its write
 * FIFO and credit, and the emission of the events it owes.
 *
 * Events are never queued in the agent, only owed: a slot records which
 * kinds it owes (an ACCEPTED, CONNECTED or LISTENING first, then data read
 * from the stream when the event ring has room, END, credit, CLOSED, FREED
 * last), so a full event ring delays them without loss and without memory
 * beyond the slot, and data the agent cannot pass on stays in the stream
 * layer, whose flow control then holds the peer back.
 */
#include <errno.h>
#include <string.h>

#include "ring_internal.h"

/* ---- Slots and their lists ---- */

/* A fresh slot; list membership survives (the lists skip what they find
 * done). */
static void
slot_init(struct ring_slot *sl, uint16_t gen, uint8_t state)
{
	struct ring_slot keep = *sl;

	memset(sl, 0, sizeof(*sl));
	sl->c = keep.c;
	sl->idx = keep.idx;
	sl->flags = keep.flags & SLOT_F_LISTS;
	sl->next_ready = keep.next_ready;
	sl->next_tx = keep.next_tx;
	sl->gen = gen;
	sl->state = state;
}

void
ring_ready_push(struct ring_slot *sl)
{
	struct ring_agent_side *w = &sl->c->w;

	if (sl->flags & SLOT_F_READY)
		return;
	sl->flags |= SLOT_F_READY;
	sl->next_ready = 0;
	if (w->ready_tail != 0)
		w->slots[w->ready_tail - 1].next_ready = sl->idx + 1;
	else
		w->ready_head = sl->idx + 1;
	w->ready_tail = sl->idx + 1;
}

void
ring_owe(struct ring_slot *sl, uint16_t what)
{
	sl->owe |= what;
	ring_ready_push(sl);
}

void
ring_tx_push(struct ring_slot *sl)
{
	struct ring_agent_side *w = &sl->c->w;

	if (sl->flags & SLOT_F_TX)
		return;
	sl->flags |= SLOT_F_TX;
	sl->next_tx = 0;
	if (w->tx_tail != 0)
		w->slots[w->tx_tail - 1].next_tx = sl->idx + 1;
	else
		w->tx_head = sl->idx + 1;
	w->tx_tail = sl->idx + 1;
}

/* The slot of a handle the application may still use, or NULL. */
struct ring_slot *
ring_slot_live(struct sst_ring_client *c, uint32_t h)
{
	uint32_t idx = h & RING_INDEX_MASK;
	struct ring_slot *sl;

	if (idx >= c->nslots)
		return NULL;
	sl = &c->w.slots[idx];
	if (sl->state == SLOT_FREE || sl->gen != h >> RING_GEN_SHIFT || (sl->flags & SLOT_F_CLOSE))
		return NULL;
	return sl;
}

/* The slot for a handle the application just opened, or NULL if the
 * handle is not a free one of its range. */
struct ring_slot *
ring_slot_new(struct sst_ring_client *c, uint32_t h, uint8_t state)
{
	uint32_t idx = h & RING_INDEX_MASK, gen = h >> RING_GEN_SHIFT;
	struct ring_slot *sl;

	if (idx >= c->max_handles || gen == 0 || gen > RING_GEN_MAX)
		return NULL;
	sl = &c->w.slots[idx];
	if (sl->state != SLOT_FREE)
		return NULL;
	slot_init(sl, (uint16_t)gen, state);
	return sl;
}

/* A slot of the accepted range, with the next generation. */
struct ring_slot *
ring_slot_accept(struct sst_ring_client *c)
{
	struct ring_slot *sl;

	if (c->w.free_accept_n == 0)
		return NULL;
	sl = &c->w.slots[c->w.free_accept[--c->w.free_accept_n]];
	slot_init(sl, ring_gen_next(sl->gen), SLOT_LIVE);
	return sl;
}

/* After FREED: the index may be used again. */
static void
slot_free(struct ring_slot *sl)
{
	struct sst_ring_client *c = sl->c;

	slot_init(sl, sl->gen, SLOT_FREE);
	if (sl->idx >= c->max_handles)
		c->w.free_accept[c->w.free_accept_n++] = sl->idx;
}

/* ---- Writes ---- */

static struct ring_wr *
fifo_at(const struct ring_slot *sl, uint32_t i)
{
	const struct sst_ring_client *c = sl->c;

	return &c->w.fifo[(size_t)sl->idx * c->window + (sl->fifo_head + i) % c->window];
}

/* Credit goes back in batches of half the window, so WRITABLE events stay
 * rare; an application out of credit has the whole window outstanding,
 * so a batch is always due or on its way. */
static void
credit_back(struct ring_slot *sl, uint32_t n)
{
	sl->credit_owed += n;
	if (sl->credit_owed >= sl->c->w.credit_threshold)
		ring_owe(sl, RING_OWE_WRITABLE);
}

void
ring_fifo_free(struct ring_slot *sl)
{
	uint32_t n = sl->fifo_count;

	for (uint32_t i = 0; i < n; i++)
		rte_pktmbuf_free(fifo_at(sl, i)->m);
	sl->fifo_count = 0;
	sl->fifo_head = 0;
	if (n > 0)
		credit_back(sl, n);
}

void
ring_fifo_drop(struct ring_slot *sl)
{
	for (uint32_t i = 0; i < sl->fifo_count; i++)
		rte_pktmbuf_free(fifo_at(sl, i)->m);
	sl->fifo_count = 0;
	sl->fifo_head = 0;
}

/* Hand the stream back (our direction ends after what was written) and owe
 * FREED, the slot's last event. */
void
ring_slot_release(struct ring_slot *sl, sst_time_t now)
{
	if (sl->s != NULL) {
		sst_stream_set_user(sl->s, NULL);
		sst_stream_close(sl->s, now);
		sl->s = NULL;
	}
	ring_fifo_free(sl);
	sl->state = SLOT_ENDED;
	sl->owe = RING_OWE_FREED;
	ring_ready_push(sl);
}

/* Write what the FIFO holds, as far as the stream takes it; then the
 * shutdown and close that waited for it. */
static void
tx_drain(struct ring_slot *sl, sst_time_t now)
{
	if (sl->s == NULL)
		return;
	while (sl->fifo_count > 0) {
		struct ring_wr *wr = fifo_at(sl, 0);
		int rc = sst_stream_write(sl->s, wr->m, wr->flags, now);

		if (rc == -EAGAIN)
			return; /* writable() follows */
		if (rc < 0) {
			rte_pktmbuf_free(wr->m);
			ring_stat_add(&sl->c->w.st.write_errors, 1);
		}
		sl->fifo_head = (uint16_t)((sl->fifo_head + 1) % sl->c->window);
		sl->fifo_count--;
		credit_back(sl, 1);
	}
	if (sl->flags & SLOT_F_SHUT) {
		sl->flags &= ~SLOT_F_SHUT;
		sst_stream_shutdown(sl->s, now);
	}
	if (sl->flags & SLOT_F_CLOSE)
		ring_slot_release(sl, now);
}

void
ring_write(struct ring_slot *sl, struct rte_mbuf *m, uint32_t flags, sst_time_t now)
{
	struct ring_wr *wr;

	/* Straight to the stream when nothing waits before it. */
	if (sl->s != NULL && sl->fifo_count == 0 && !(sl->flags & SLOT_F_SHUT)) {
		int rc = sst_stream_write(sl->s, m, flags, now);

		if (rc != -EAGAIN) {
			if (rc < 0) {
				rte_pktmbuf_free(m);
				ring_stat_add(&sl->c->w.st.write_errors, 1);
			}
			credit_back(sl, 1);
			return;
		}
	}
	/* A write after shutdown fails as the stream would fail it; one a
	 * stream never coming can take is dropped the same way. */
	if ((sl->flags & SLOT_F_SHUT) || sl->state == SLOT_ENDED) {
		rte_pktmbuf_free(m);
		ring_stat_add(&sl->c->w.st.write_errors, 1);
		credit_back(sl, 1);
		return;
	}
	if (sl->fifo_count == sl->c->window) {
		/* Only a client ignoring its credit gets here. */
		rte_pktmbuf_free(m);
		ring_stat_add(&sl->c->w.st.bad_commands, 1);
		return;
	}
	wr = fifo_at(sl, sl->fifo_count);
	wr->m = m;
	wr->flags = flags;
	sl->fifo_count++;
}

/* ---- Events ---- */

/* Room for n more events? Refreshed from the ring only when what was
 * known is used up: the application only ever makes more. */
static bool
room(struct sst_ring_client *c, uint32_t n)
{
	if (c->w.room < n)
		c->w.room = rte_ring_free_count(c->ev);
	return c->w.room >= n;
}

static void
emit(struct sst_ring_client *c, const struct sst_ring_event *ev, uint32_t n)
{
	/* room() vouched for the space: a bulk enqueue takes all n. */
	rte_ring_sp_enqueue_bulk_elem(c->ev, ev, sizeof(*ev), n, NULL);
	c->w.room -= n;
	ring_stat_add(&c->w.st.events, n);
}

static void
emit_one(struct ring_slot *sl, uint8_t type, uint32_t arg)
{
	struct sst_ring_event ev = {.type = type, .handle = ring_slot_handle(sl)};

	ev.ref = arg;
	emit(sl->c, &ev, 1);
}

/* Datagrams, then data, as far as the event ring has room. A slot the
 * application closed reads everything and drops it. */
static int
slot_read(struct ring_slot *sl, sst_time_t now)
{
	struct sst_ring_client *c = sl->c;
	bool discard = (sl->flags & SLOT_F_CLOSE) != 0;
	struct rte_mbuf *m;

	if (sl->s == NULL) {
		sl->owe &= ~RING_OWE_READ;
		return SERVE_DONE;
	}
	while ((m = sst_stream_recv_datagram(sl->s, now)) != NULL) {
		struct sst_ring_event ev = {
			.type = SST_RING_EV_DATAGRAM, .handle = ring_slot_handle(sl), .m = m};

		if (!discard && room(c, 1)) {
			emit(c, &ev, 1);
			continue;
		}
		rte_pktmbuf_free(m);
		if (!discard)
			ring_stat_add(&c->w.st.dgram_rx_drops, 1);
	}
	for (int turn = 0; turn < RING_READ_TURNS; turn++) {
		struct sst_stream_data d[RING_READ_BURST];
		struct sst_ring_event ev[RING_READ_BURST];
		uint16_t max = RING_READ_BURST;
		int k;

		if (!discard) {
			if (!room(c, 1))
				return SERVE_FULL;
			max = (uint16_t)RTE_MIN(c->w.room, (uint32_t)max);
		}
		k = sst_stream_read(sl->s, d, max, now);
		if (k <= 0) {
			if (k == -EPIPE && !discard && !(sl->flags & SLOT_F_END_SENT))
				sl->owe |= RING_OWE_END;
			sl->owe &= ~RING_OWE_READ;
			return SERVE_DONE;
		}
		for (int i = 0; i < k; i++) {
			if (discard) {
				rte_pktmbuf_free(d[i].m);
				continue;
			}
			ev[i] = (struct sst_ring_event){.type = SST_RING_EV_DATA,
				.flags = d[i].flags & SST_WRITE_MESSAGE ? SST_RING_EV_F_MESSAGE : 0,
				.handle = ring_slot_handle(sl),
				.m = d[i].m};
		}
		if (!discard)
			emit(c, ev, (uint32_t)k);
	}
	return SERVE_MORE;
}

/* Emit what the slot owes, in order; stop at a full ring. */
static int
slot_serve(struct ring_slot *sl, sst_time_t now)
{
	struct sst_ring_client *c = sl->c;

	if (sl->flags & SLOT_F_CLOSE)
		sl->owe &= RING_OWE_READ | RING_OWE_FREED;
	if (sl->owe & RING_OWE_FIRST) {
		if (!room(c, 1))
			return SERVE_FULL;
		if (sl->owe & RING_OWE_ACCEPTED)
			emit_one(sl, SST_RING_EV_ACCEPTED, sl->ref);
		else
			emit_one(sl,
				sl->owe & RING_OWE_CONNECTED ? SST_RING_EV_CONNECTED
							     : SST_RING_EV_LISTENING,
				(uint32_t)sl->conn_err);
		sl->owe &= ~RING_OWE_FIRST;
	}
	if (sl->owe & RING_OWE_READ) {
		int r = slot_read(sl, now);

		if (r != SERVE_DONE)
			return r;
	}
	if (sl->owe & RING_OWE_END) {
		if (!room(c, 1))
			return SERVE_FULL;
		emit_one(sl, SST_RING_EV_END, 0);
		sl->flags |= SLOT_F_END_SENT;
		sl->owe &= ~RING_OWE_END;
	}
	if (sl->owe & RING_OWE_WRITABLE) {
		if (!room(c, 1))
			return SERVE_FULL;
		if (sl->credit_owed > 0)
			emit_one(sl, SST_RING_EV_WRITABLE, sl->credit_owed);
		sl->credit_owed = 0;
		sl->owe &= ~RING_OWE_WRITABLE;
	}
	if (sl->owe & RING_OWE_CLOSED) {
		struct sst_ring_event ev = {.type = SST_RING_EV_CLOSED,
			.why = sl->why,
			.handle = ring_slot_handle(sl),
			.err = sl->close_err};

		if (!room(c, 1))
			return SERVE_FULL;
		emit(c, &ev, 1);
		sl->owe &= ~RING_OWE_CLOSED;
	}
	if (sl->owe & RING_OWE_FREED) {
		if (!room(c, 1))
			return SERVE_FULL;
		emit_one(sl, SST_RING_EV_FREED, 0);
		sl->owe = 0;
		return SERVE_FREED;
	}
	return SERVE_DONE;
}

void
ring_ready_run(struct sst_ring_client *c, sst_time_t now)
{
	struct ring_agent_side *w = &c->w;

	w->room = rte_ring_free_count(c->ev);
	for (uint32_t budget = RING_SERVE_BUDGET; w->ready_head != 0 && budget > 0; budget--) {
		struct ring_slot *sl = &w->slots[w->ready_head - 1];
		int r = slot_serve(sl, now);

		if (r == SERVE_FULL) {
			/* It stays first: nothing overtakes it. Counted once
			 * per stall, however many passes it lasts. */
			if (!w->stalled)
				ring_stat_add(&w->st.ring_full, 1);
			w->stalled = true;
			return;
		}
		w->ready_head = sl->next_ready;
		if (w->ready_head == 0)
			w->ready_tail = 0;
		sl->flags &= ~SLOT_F_READY;
		sl->next_ready = 0;
		if (r == SERVE_FREED)
			slot_free(sl);
		else if (r == SERVE_MORE || sl->owe != 0)
			ring_ready_push(sl); /* more data, or owed while it was served */
	}
	w->stalled = false;
}

void
ring_tx_run(struct sst_ring_client *c, sst_time_t now)
{
	uint32_t k = c->w.tx_head;

	/* Slots pushed while draining wait for the next pass. */
	c->w.tx_head = 0;
	c->w.tx_tail = 0;
	while (k != 0) {
		struct ring_slot *sl = &c->w.slots[k - 1];

		k = sl->next_tx;
		sl->flags &= ~SLOT_F_TX;
		sl->next_tx = 0;
		tx_drain(sl, now);
	}
}
