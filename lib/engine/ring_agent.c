/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ring mode, the worker's side (sst_ring.h): the agent. It is the worker's
 * application: its stream callbacks and worker callbacks only record what
 * happened in the handle's slot (ring_slot.c), and the worker's app_poll
 * runs the rest, once per pass, for each attached client: execute the
 * commands, drain the write FIFOs that may drain, then emit the events
 * owed, slot by slot in the order they became due. The commands are
 * ring_cmd.c.
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "ring_agent.h"
#include "sst_params.h"

/* ---- Opening streams ---- */

static int
end_err(enum sst_stream_end why)
{
	switch (why) {
	case SST_STREAM_FINISHED:
		return 0;
	case SST_STREAM_REFUSED:
		return -ECONNREFUSED;
	case SST_STREAM_RESET_LOCAL:
	case SST_STREAM_RESET_REMOTE:
		return -ECONNRESET;
	case SST_STREAM_TIMED_OUT:
		return -ETIMEDOUT;
	default:
		return -ECONNABORTED;
	}
}

static void
pending_remove(struct sst_ring_agent *a, struct ring_slot *sl)
{
	a->pending[sl->pending - 1].c = NULL;
	sl->pending = 0;
	a->npending--;
}

/* Take a waiting substream off its parent's list. */
static void
waiter_unlink(struct ring_slot *sl)
{
	struct ring_slot *parent = &sl->c->w.slots[sl->parent - 1];
	uint32_t *link = &parent->waiters;

	while (*link != 0 && *link != sl->idx + 1)
		link = &sl->c->w.slots[*link - 1].next_waiter;
	if (*link != 0)
		*link = sl->next_waiter;
	sl->parent = 0;
	sl->next_waiter = 0;
}

/*
 * A slot that will never have a stream (its channel or its parent failed,
 * or it was reset before it opened), and every substream waiting for it,
 * breadth first: CONNECTED (for a connect) and CLOSED report it, or FREED
 * when the application has closed it already.
 */
void
ring_slot_fail(struct sst_ring_agent *a, struct ring_slot *sl, int err, enum sst_stream_end why,
	sst_time_t now)
{
	struct sst_ring_client *c = sl->c;
	struct ring_slot *tail = sl;

	if (sl->parent != 0)
		waiter_unlink(sl);
	sl->next_work = 0;
	for (struct ring_slot *cur = sl; cur != NULL;
		cur = cur->next_work != 0 ? &c->w.slots[cur->next_work - 1] : NULL) {
		for (uint32_t k = cur->waiters; k != 0;) {
			struct ring_slot *child = &c->w.slots[k - 1];

			k = child->next_waiter;
			child->parent = 0;
			child->next_waiter = 0;
			child->next_work = 0;
			tail->next_work = child->idx + 1;
			tail = child;
		}
		cur->waiters = 0;
		if (cur->pending != 0)
			pending_remove(a, cur);
		cur->flags &= ~SLOT_F_SHUT;
		ring_fifo_free(cur);
		cur->state = SLOT_ENDED;
		if (cur->flags & SLOT_F_CLOSE) {
			ring_slot_release(cur, now);
			continue;
		}
		if (cur->flags & SLOT_F_CONNECT) {
			cur->conn_err = err;
			ring_owe(cur, RING_OWE_CONNECTED);
		}
		cur->why = (uint16_t)why;
		cur->close_err = err;
		ring_owe(cur, RING_OWE_CLOSED);
	}
}

static void
slot_attach(struct ring_slot *sl, struct sst_stream *s)
{
	sl->s = s;
	sl->state = SLOT_LIVE;
	sst_stream_set_user(s, sl);
	if (sl->mode != SST_RING_SUBSTREAMS_OFF)
		sst_stream_listen_substream(s, true);
	if (sl->flags & SLOT_F_PRIO)
		sst_stream_set_priority(s, sl->prio);
	/* Writes (and a shutdown or close) queued meanwhile go in this
	 * pass's tx step, after the substreams waiting for it are opened. */
	if (sl->fifo_count > 0 || (sl->flags & (SLOT_F_SHUT | SLOT_F_CLOSE)))
		ring_tx_push(sl);
}

/* The stream of a pending slot exists: attach it, then open the
 * substreams that waited for it, breadth first. */
static void
slot_open(struct sst_ring_agent *a, struct ring_slot *sl, struct sst_stream *s, sst_time_t now)
{
	struct sst_ring_client *c = sl->c;
	struct ring_slot *tail = sl;

	slot_attach(sl, s);
	sl->next_work = 0;
	for (struct ring_slot *cur = sl; cur != NULL;
		cur = cur->next_work != 0 ? &c->w.slots[cur->next_work - 1] : NULL) {
		uint32_t k = cur->waiters;

		cur->waiters = 0;
		while (k != 0) {
			struct ring_slot *child = &c->w.slots[k - 1];
			struct sst_stream *cs;

			k = child->next_waiter;
			child->parent = 0;
			child->next_waiter = 0;
			cs = sst_stream_create_substream(cur->s, now);
			if (cs == NULL) {
				ring_slot_fail(a, child, -rte_errno, SST_STREAM_ABORTED, now);
				continue;
			}
			slot_attach(child, cs);
			child->next_work = 0;
			tail->next_work = child->idx + 1;
			tail = child;
		}
	}
}

/* Connect: at once over a channel the worker has; otherwise once the
 * channel is up (peer_ready), negotiated here unless another connect to
 * the same endpoint waits for it already. */
void
ring_connect_start(
	struct sst_ring_agent *a, struct ring_slot *sl, const struct ring_names *n, sst_time_t now)
{
	struct sst_stream_peer *peer = sst_worker_peer(a->w, &n->ep);
	struct ring_pending *e = NULL;
	bool started = false;
	int rc;

	if (n->mode != SST_NEGO_MODE_CHECKSUM && n->mode != SST_NEGO_MODE_SECURE) {
		ring_slot_fail(a, sl, -EINVAL, SST_STREAM_ABORTED, now);
		return;
	}
	if (peer != NULL) {
		struct sst_stream *s = sst_stream_connect(peer, n->service, n->protocol, now);

		if (s != NULL) {
			slot_open(a, sl, s, now);
			return;
		}
		if (rte_errno != ENOTCONN) {
			ring_slot_fail(a, sl, -rte_errno, SST_STREAM_ABORTED, now);
			return;
		}
	}
	for (uint32_t i = 0; i < a->p.max_pending; i++) {
		struct ring_pending *p = &a->pending[i];

		if (p->c == NULL && e == NULL)
			e = p;
		else if (p->c != NULL && sst_net_endpoint_equal(&p->n.ep, &n->ep))
			started = true;
	}
	if (e == NULL) {
		ring_stat_add(&sl->c->w.st.connect_full, 1);
		ring_slot_fail(a, sl, -ENOBUFS, SST_STREAM_ABORTED, now);
		return;
	}
	e->c = sl->c;
	e->idx = sl->idx;
	e->n = *n;
	e->deadline = a->p.connect_timeout != 0 ? sst_time_add(now, a->p.connect_timeout)
						: SST_TIME_NEVER;
	sl->pending = (uint16_t)(e - a->pending + 1);
	a->npending++;
	if (started)
		return;
	rc = sst_worker_connect(a->w, &n->ep, (enum sst_nego_mode)n->mode, now);
	if (rc < 0)
		ring_slot_fail(a, sl, rc, SST_STREAM_ABORTED, now);
}

void
ring_listen_start(struct sst_ring_agent *a, struct ring_slot *sl, const struct ring_names *n)
{
	struct ring_service *sv = NULL;
	int rc = -ENOSPC;

	for (int i = 0; i < RING_SERVICES_MAX && sv == NULL; i++)
		if (a->services[i].c == NULL)
			sv = &a->services[i];
	if (n->mode > SST_RING_SUBSTREAMS_AS_DATAGRAMS)
		rc = -EINVAL;
	else if (sv != NULL)
		rc = sst_stream_listen(a->sh, n->service, n->protocol, sv);
	if (rc == 0) {
		sv->c = sl->c;
		sv->idx = sl->idx;
		sv->mode = n->mode;
		memcpy(sv->service, n->service, sizeof(sv->service));
		memcpy(sv->protocol, n->protocol, sizeof(sv->protocol));
		sl->service = (uint16_t)(sv - a->services + 1);
		sl->state = SLOT_LISTENER;
	} else {
		sl->state = SLOT_ENDED;
	}
	sl->conn_err = rc;
	ring_owe(sl, RING_OWE_LISTENING);
}

void
ring_listen_end(struct sst_ring_agent *a, struct ring_slot *sl, bool host_alive)
{
	struct ring_service *sv = &a->services[sl->service - 1];

	if (host_alive)
		sst_stream_unlisten(a->sh, sv->service, sv->protocol);
	sv->c = NULL;
	sl->service = 0;
}

void
ring_substream_start(
	struct sst_ring_agent *a, struct ring_slot *sl, struct ring_slot *parent, sst_time_t now)
{
	if (parent != NULL && parent->state == SLOT_LIVE && parent->s != NULL) {
		struct sst_stream *s = sst_stream_create_substream(parent->s, now);

		if (s != NULL)
			slot_open(a, sl, s, now);
		else
			ring_slot_fail(a, sl, -rte_errno, SST_STREAM_ABORTED, now);
	} else if (parent != NULL && parent->state == SLOT_PENDING) {
		/* Opened when the parent is, in the order they came. */
		uint32_t *link = &parent->waiters;

		while (*link != 0)
			link = &sl->c->w.slots[*link - 1].next_waiter;
		*link = sl->idx + 1;
		sl->parent = parent->idx + 1;
	} else {
		ring_slot_fail(a, sl, -ENOTCONN, SST_STREAM_ABORTED, now);
	}
}

/* ---- The stream layer's callbacks ---- */

/* Our slot of s: its user pointer, or the accept in progress. */
static struct ring_slot *
slot_of(struct sst_ring_agent *a, struct sst_stream *s)
{
	struct ring_slot *sl = sst_stream_user(s);

	for (struct ring_accepting *f = a->accepting; sl == NULL && f != NULL; f = f->prev)
		if (f->s == s)
			sl = f->slot;
	return sl;
}

static void
on_connected(void *ctx, struct sst_stream *s, int err, sst_time_t now)
{
	struct ring_slot *sl = sst_stream_user(s);

	RTE_SET_USED(ctx);
	RTE_SET_USED(now);
	if (sl == NULL || !(sl->flags & SLOT_F_CONNECT))
		return;
	sl->conn_err = err;
	ring_owe(sl, RING_OWE_CONNECTED);
}

/* Refuse a stream the peer opened: it is taken and reset. */
static void
refuse(struct sst_ring_agent *a, struct sst_stream *s)
{
	if (s == NULL)
		return;
	sst_stream_reset(s, a->now);
	sst_stream_close(s, a->now);
}

static void
accept_top(struct sst_ring_agent *a, struct sst_stream *s, struct ring_service *sv)
{
	struct sst_ring_client *c = sv != NULL ? sv->c : NULL;
	struct ring_slot *sl = c != NULL ? ring_slot_accept(c) : NULL;

	if (sl == NULL) {
		if (c != NULL)
			ring_stat_add(&c->w.st.accept_drops, 1);
		refuse(a, s);
		return;
	}
	sl->s = s;
	sl->mode = sv->mode;
	sl->ref = ring_handle(sv->idx, c->w.slots[sv->idx].gen);
	sst_stream_set_user(s, sl);
	if (sl->mode != SST_RING_SUBSTREAMS_OFF)
		sst_stream_listen_substream(s, true);
	ring_owe(sl, RING_OWE_ACCEPTED);
}

/*
 * A stream the peer opened: a top-level one of a service we offer, or a
 * substream. Substreams of a stream accepting them are taken at once, so
 * its accept queue never holds one and the head is always the one offered
 * (the stream layer offers them in order, also those that arrived before
 * their parent was accepted); their own children may be offered while
 * sst_stream_accept_substream() runs, before the new stream is ours, hence
 * the accept frames. Refused ones are taken and reset; those of a stream
 * reading substreams as datagrams stay queued until complete.
 */
static void
on_accepted(void *ctx, struct sst_stream *parent, struct sst_stream *s, void *service_ctx,
	sst_time_t now)
{
	struct sst_ring_agent *a = ctx;
	struct ring_slot *psl, *sl = NULL;
	struct ring_accepting frame;
	struct sst_stream *got;

	if (parent == NULL) {
		accept_top(a, s, service_ctx);
		return;
	}
	psl = slot_of(a, parent);
	if (psl == NULL || psl->mode == SST_RING_SUBSTREAMS_AS_DATAGRAMS)
		return;
	if (psl->mode == SST_RING_SUBSTREAMS_ACCEPT && !(psl->flags & SLOT_F_CLOSE)) {
		sl = ring_slot_accept(psl->c);
		if (sl == NULL)
			ring_stat_add(&psl->c->w.st.accept_drops, 1);
	}
	if (sl == NULL) {
		refuse(a, sst_stream_accept_substream(parent, now));
		return;
	}
	sl->mode = psl->mode;
	sl->ref = ring_slot_handle(psl);
	ring_owe(sl, RING_OWE_ACCEPTED);
	frame = (struct ring_accepting){.s = s, .slot = sl, .prev = a->accepting};
	a->accepting = &frame;
	got = sst_stream_accept_substream(parent, now);
	a->accepting = frame.prev;
	if (got == NULL) {
		sl->state = SLOT_ENDED;
		sl->why = SST_STREAM_ABORTED;
		sl->close_err = -ECONNABORTED;
		ring_owe(sl, RING_OWE_CLOSED);
		return;
	}
	sl->s = got;
	sst_stream_set_user(got, sl);
	sst_stream_listen_substream(got, true);
}

static void
on_readable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct ring_slot *sl = sst_stream_user(s);

	RTE_SET_USED(ctx);
	RTE_SET_USED(now);
	if (sl != NULL)
		ring_owe(sl, RING_OWE_READ);
}

static void
on_writable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct ring_slot *sl = sst_stream_user(s);

	RTE_SET_USED(ctx);
	RTE_SET_USED(now);
	if (sl != NULL && sl->fifo_count > 0)
		ring_tx_push(sl);
}

static void
on_closed(void *ctx, struct sst_stream *s, enum sst_stream_end why, sst_time_t now)
{
	struct ring_slot *sl = sst_stream_user(s);

	RTE_SET_USED(ctx);
	RTE_SET_USED(now);
	if (sl == NULL)
		return;
	sl->why = (uint16_t)why;
	sl->close_err = end_err(why);
	ring_owe(sl, RING_OWE_CLOSED);
	/* Queued writes now fail: their mbufs and credit go back. */
	if (sl->fifo_count > 0)
		ring_tx_push(sl);
}

/* ---- The worker's callbacks ---- */

static void
on_peer_ready(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	struct sst_ring_agent *a = ctx;

	for (uint32_t i = 0; i < a->p.max_pending && a->npending > 0; i++) {
		struct ring_pending *e = &a->pending[i];
		struct ring_slot *sl;
		struct sst_stream *s;

		if (e->c == NULL || !sst_net_endpoint_equal(&e->n.ep, ep))
			continue;
		sl = &e->c->w.slots[e->idx];
		pending_remove(a, sl);
		s = sst_stream_connect(peer, e->n.service, e->n.protocol, a->now);
		if (s != NULL)
			slot_open(a, sl, s, a->now);
		else
			ring_slot_fail(a, sl, -rte_errno, SST_STREAM_ABORTED, a->now);
	}
}

static void
on_connect_failed(void *ctx, const struct sst_net_endpoint *ep, int err)
{
	struct sst_ring_agent *a = ctx;

	for (uint32_t i = 0; i < a->p.max_pending && a->npending > 0; i++) {
		struct ring_pending *e = &a->pending[i];

		if (e->c != NULL && sst_net_endpoint_equal(&e->n.ep, ep))
			ring_slot_fail(a, &e->c->w.slots[e->idx], err, SST_STREAM_ABORTED, a->now);
	}
}

/* Detach a client: its streams are reset (while the worker lives), its
 * services withdrawn, every mbuf it gave the agent freed. */
static void
client_teardown(struct sst_ring_agent *a, struct sst_ring_client *c, bool alive, sst_time_t now)
{
	for (uint32_t i = 0; i < c->nslots; i++) {
		struct ring_slot *sl = &c->w.slots[i];

		if (sl->pending != 0)
			pending_remove(a, sl);
		if (sl->service != 0)
			ring_listen_end(a, sl, alive);
		if (sl->s != NULL && alive) {
			sst_stream_set_user(sl->s, NULL);
			sst_stream_reset(sl->s, now);
			sst_stream_close(sl->s, now);
		}
		sl->s = NULL;
		ring_fifo_drop(sl);
	}
	ring_cmd_ring_drain(c->cmd);
	atomic_store_explicit(&a->clients[c->agent_index], NULL, memory_order_relaxed);
	/* The client may free everything once it sees this. */
	atomic_store_explicit(&c->state, RING_DETACHED, memory_order_release);
}

static void
on_app_poll(void *ctx, struct sst_worker *w, sst_time_t now)
{
	struct sst_ring_agent *a = ctx;

	RTE_SET_USED(w);
	a->now = now;
	if (a->npending > 0 && a->p.connect_timeout != 0)
		for (uint32_t i = 0; i < a->p.max_pending; i++) {
			struct ring_pending *e = &a->pending[i];

			if (e->c != NULL && e->deadline <= now)
				ring_slot_fail(a, &e->c->w.slots[e->idx], -ETIMEDOUT,
					SST_STREAM_ABORTED, now);
		}
	for (uint32_t i = 0; i < a->p.max_clients; i++) {
		struct sst_ring_client *c =
			atomic_load_explicit(&a->clients[i], memory_order_acquire);

		if (c == NULL)
			continue;
		if (atomic_load_explicit(&c->state, memory_order_acquire) != RING_ATTACHED) {
			client_teardown(a, c, true, now);
			continue;
		}
		ring_cmd_run(a, c, now);
		ring_tx_run(c, now);
		ring_ready_run(c, now);
	}
}

/* ---- The agent ---- */

struct sst_ring_agent *
sst_ring_agent_create(const struct sst_ring_agent_params *p)
{
	struct sst_ring_agent_params ap = {0};
	struct sst_ring_agent *a;

	if (p != NULL && p->size != 0 &&
		!sst_params_size_ok(p->size, sizeof(*p), SST_PARAMS_ANY_LARGER)) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (p != NULL)
		ap = *p;
	a = rte_zmalloc_socket("sst_ring_agent", sizeof(*a), RTE_CACHE_LINE_SIZE, ap.socket_id);
	if (a == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	a->p = ap;
	a->p.max_clients = ap.max_clients != 0 ? ap.max_clients : 16;
	a->p.max_pending = ap.max_pending != 0 ? ap.max_pending : 64;
	if (a->p.max_pending > UINT16_MAX - 1) {
		rte_free(a);
		rte_errno = EINVAL;
		return NULL;
	}
	a->pending = rte_zmalloc_socket("sst_ring_pending", a->p.max_pending * sizeof(*a->pending),
		RTE_CACHE_LINE_SIZE, ap.socket_id);
	a->clients = rte_zmalloc_socket("sst_ring_clients", a->p.max_clients * sizeof(*a->clients),
		RTE_CACHE_LINE_SIZE, ap.socket_id);
	if (a->pending == NULL || a->clients == NULL) {
		rte_free(a->pending);
		rte_free(a->clients);
		rte_free(a);
		rte_errno = ENOMEM;
		return NULL;
	}
	for (uint32_t i = 0; i < a->p.max_clients; i++)
		atomic_init(&a->clients[i], NULL);
	a->sops = (struct sst_stream_ops){
		.connected = on_connected,
		.accepted = on_accepted,
		.readable = on_readable,
		.writable = on_writable,
		.closed = on_closed,
	};
	a->wops = (struct sst_worker_ops){
		.peer_ready = on_peer_ready,
		.connect_failed = on_connect_failed,
		.app_poll = on_app_poll,
	};
	return a;
}

void
sst_ring_agent_worker_params(struct sst_ring_agent *a, struct sst_worker_params *p)
{
	p->stream.ops = &a->sops;
	p->stream.ctx = a;
	p->ops = &a->wops;
	p->ctx = a;
}

void
sst_ring_agent_bind(struct sst_ring_agent *a, struct sst_worker *w)
{
	a->w = w;
	a->sh = sst_worker_stream_host(w);
}

void
sst_ring_agent_destroy(struct sst_ring_agent *a)
{
	if (a == NULL)
		return;
	/* The worker is gone and its streams with it: only mbufs remain. */
	for (uint32_t i = 0; i < a->p.max_clients; i++) {
		struct sst_ring_client *c =
			atomic_load_explicit(&a->clients[i], memory_order_acquire);

		if (c != NULL)
			client_teardown(a, c, false, 0);
	}
	rte_free(a->pending);
	rte_free(a->clients);
	rte_free(a);
}
