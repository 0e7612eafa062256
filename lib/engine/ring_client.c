/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ring mode, the application's side (sst_ring.h): a client's creation and
 * destruction, the commands, and event polling. Everything here runs on
 * the client's one thread; the worker is reached only through the rings
 * and the attachment word.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "ring_internal.h"
#include "sst_params.h"

/* Ring names must be unique in the process. */
static _Atomic uint32_t ring_serial;

static void
client_free(struct sst_ring_client *c)
{
	rte_ring_free(c->cmd);
	rte_ring_free(c->ev);
	rte_free(c->w.slots);
	rte_free(c->w.fifo);
	rte_free(c->w.free_accept);
	rte_free(c->a.handles);
	rte_free(c->a.free_own);
	rte_free(c);
}

struct sst_ring_client *
sst_ring_client_create(struct sst_ring_agent *a, const struct sst_ring_client_params *p)
{
	struct sst_ring_client_params cp = {0};
	struct sst_ring_client *c;
	char name[RTE_RING_NAMESIZE];
	uint32_t serial, accepted;
	int sock;

	if (a == NULL || (p != NULL && p->size != 0 &&
				 !sst_params_size_ok(p->size, sizeof(*p), SST_PARAMS_ANY_LARGER))) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (p != NULL)
		cp = *p;
	sock = cp.socket_id;
	cp.cmd_ring = cp.cmd_ring != 0 ? cp.cmd_ring : 4096;
	cp.event_ring = cp.event_ring != 0 ? cp.event_ring : 4096;
	cp.max_handles = cp.max_handles != 0 ? cp.max_handles : 256;
	accepted = cp.max_accepted != 0 ? cp.max_accepted : 256;
	cp.write_window = cp.write_window != 0 ? cp.write_window : 32;
	if ((uint64_t)cp.max_handles + accepted > SST_RING_HANDLES_MAX ||
		cp.write_window > UINT16_MAX || cp.cmd_ring <= RING_NAMES_ELEMS) {
		rte_errno = EINVAL;
		return NULL;
	}
	c = rte_zmalloc_socket("sst_ring_client", sizeof(*c), RTE_CACHE_LINE_SIZE, sock);
	if (c == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	c->agent = a;
	c->max_handles = cp.max_handles;
	c->nslots = cp.max_handles + accepted;
	c->window = cp.write_window;
	c->w.credit_threshold = RTE_MAX(1u, c->window / 2);
	c->w.slots = rte_zmalloc_socket(
		"sst_ring_slots", c->nslots * sizeof(*c->w.slots), RTE_CACHE_LINE_SIZE, sock);
	c->w.fifo = rte_zmalloc_socket("sst_ring_fifo",
		(size_t)c->nslots * c->window * sizeof(*c->w.fifo), RTE_CACHE_LINE_SIZE, sock);
	c->w.free_accept =
		rte_malloc_socket("sst_ring_free", accepted * sizeof(*c->w.free_accept), 0, sock);
	c->a.handles = rte_zmalloc_socket(
		"sst_ring_handles", c->nslots * sizeof(*c->a.handles), RTE_CACHE_LINE_SIZE, sock);
	c->a.free_own = rte_malloc_socket(
		"sst_ring_free", c->max_handles * sizeof(*c->a.free_own), 0, sock);
	serial = atomic_fetch_add_explicit(&ring_serial, 1, memory_order_relaxed);
	snprintf(name, sizeof(name), "sst_rc%u", serial);
	c->cmd = rte_ring_create_elem(name, sizeof(struct ring_cmd), cp.cmd_ring, sock,
		RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
	snprintf(name, sizeof(name), "sst_re%u", serial);
	c->ev = rte_ring_create_elem(name, sizeof(struct sst_ring_event), cp.event_ring, sock,
		RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
	if (c->w.slots == NULL || c->w.fifo == NULL || c->w.free_accept == NULL ||
		c->a.handles == NULL || c->a.free_own == NULL || c->cmd == NULL || c->ev == NULL) {
		client_free(c);
		rte_errno = ENOMEM;
		return NULL;
	}
	for (uint32_t i = 0; i < c->nslots; i++) {
		c->w.slots[i].c = c;
		c->w.slots[i].idx = i;
	}
	/* Lowest indexes first, so that small tables stay warm. */
	for (uint32_t i = 0; i < accepted; i++)
		c->w.free_accept[i] = c->nslots - 1 - i;
	c->w.free_accept_n = accepted;
	for (uint32_t i = 0; i < c->max_handles; i++)
		c->a.free_own[i] = c->max_handles - 1 - i;
	c->a.free_own_n = c->max_handles;
	atomic_store_explicit(&c->state, RING_ATTACHED, memory_order_relaxed);
	/* Publishing the pointer (release) makes everything above visible to
	 * the worker, whose poll loads it (acquire). */
	for (uint32_t i = 0; i < a->p.max_clients; i++) {
		struct sst_ring_client *none = NULL;

		if (atomic_compare_exchange_strong_explicit(
			    &a->clients[i], &none, c, memory_order_release, memory_order_relaxed)) {
			c->agent_index = i;
			return c;
		}
	}
	client_free(c);
	rte_errno = ENOSPC;
	return NULL;
}

static void
event_ring_drain(struct rte_ring *r)
{
	struct sst_ring_event ev[32];
	unsigned int n;

	while ((n = rte_ring_sc_dequeue_burst_elem(r, ev, sizeof(ev[0]), RTE_DIM(ev), NULL)) > 0)
		for (unsigned int i = 0; i < n; i++)
			if (ev[i].type == SST_RING_EV_DATA || ev[i].type == SST_RING_EV_DATAGRAM)
				rte_pktmbuf_free(ev[i].m);
}

int
sst_ring_client_detach(struct sst_ring_client *c)
{
	uint32_t expected = RING_ATTACHED;

	/* The worker tears the client down at its next poll and says so; an
	 * agent destroyed first has marked it detached already. */
	atomic_compare_exchange_strong_explicit(
		&c->state, &expected, RING_DETACHING, memory_order_acq_rel, memory_order_acquire);
	return atomic_load_explicit(&c->state, memory_order_acquire) == RING_DETACHED
		       ? 0
		       : -EINPROGRESS;
}

void
sst_ring_client_destroy(struct sst_ring_client *c)
{
	if (c == NULL)
		return;
	while (sst_ring_client_detach(c) != 0)
		sched_yield();
	/* Both rings are ours alone now. */
	event_ring_drain(c->ev);
	ring_cmd_ring_drain(c->cmd);
	client_free(c);
}

/* ---- Commands ---- */

static bool
attached(const struct sst_ring_client *c)
{
	return atomic_load_explicit(&c->state, memory_order_relaxed) == RING_ATTACHED;
}

static struct ring_handle *
handle_live(const struct sst_ring_client *c, int h)
{
	uint32_t idx = (uint32_t)h & RING_INDEX_MASK;
	struct ring_handle *hd;

	if (h <= 0 || idx >= c->nslots)
		return NULL;
	hd = &c->a.handles[idx];
	if (hd->state != RING_H_LIVE || hd->gen != (uint32_t)h >> RING_GEN_SHIFT)
		return NULL;
	return hd;
}

static int
cmd_put(struct sst_ring_client *c, const struct ring_cmd *cmd)
{
	if (rte_ring_sp_enqueue_elem(c->cmd, (void *)(uintptr_t)cmd, sizeof(*cmd)) != 0) {
		c->a.cmd_ring_full++;
		return -ENOBUFS;
	}
	return 0;
}

/* A command about a live handle. */
static int
cmd_simple(struct sst_ring_client *c, int h, uint8_t op, int32_t arg, bool listener_ok)
{
	struct ring_handle *hd = handle_live(c, h);
	struct ring_cmd cmd = {.op = op, .handle = (uint32_t)h, .arg = arg};

	if (!attached(c))
		return -ENOTCONN;
	if (hd == NULL || (hd->listener && !listener_ok))
		return -EBADF;
	return cmd_put(c, &cmd);
}

/* A new handle of the application's range (generation bumped). */
static int
handle_new(struct sst_ring_client *c, bool listener)
{
	struct ring_handle *hd;
	uint32_t idx;

	if (c->a.free_own_n == 0)
		return -EMFILE;
	idx = c->a.free_own[--c->a.free_own_n];
	hd = &c->a.handles[idx];
	hd->gen = ring_gen_next(hd->gen);
	hd->state = RING_H_LIVE;
	hd->listener = listener;
	hd->credit = (int32_t)c->window;
	return (int)ring_handle(idx, hd->gen);
}

static void
handle_undo(struct sst_ring_client *c, int h)
{
	uint32_t idx = (uint32_t)h & RING_INDEX_MASK;

	c->a.handles[idx].state = RING_H_FREE;
	c->a.free_own[c->a.free_own_n++] = idx;
}

/* Connect and listen: the command and its names in one bulk enqueue. */
static int
cmd_named(struct sst_ring_client *c, uint8_t op, const struct sst_net_endpoint *ep,
	const char *service, const char *protocol, uint8_t mode)
{
	struct ring_cmd buf[1 + RING_NAMES_ELEMS];
	struct ring_names names = {.mode = mode};
	size_t slen, plen;
	int h;

	if (!attached(c))
		return -ENOTCONN;
	if (service == NULL || protocol == NULL)
		return -EINVAL;
	slen = strnlen(service, SST_RING_NAME_MAX);
	plen = strnlen(protocol, SST_RING_NAME_MAX);
	if (slen == 0 || plen == 0 || slen == SST_RING_NAME_MAX || plen == SST_RING_NAME_MAX)
		return -EINVAL;
	if (ep != NULL)
		names.ep = *ep;
	memcpy(names.service, service, slen);
	memcpy(names.protocol, protocol, plen);
	h = handle_new(c, op == RING_OP_LISTEN);
	if (h < 0)
		return h;
	memset(buf, 0, sizeof(buf));
	buf[0] = (struct ring_cmd){.op = op, .ext = RING_NAMES_ELEMS, .handle = (uint32_t)h};
	memcpy(&buf[1], &names, sizeof(names));
	if (rte_ring_sp_enqueue_bulk_elem(c->cmd, buf, sizeof(buf[0]), RTE_DIM(buf), NULL) == 0) {
		c->a.cmd_ring_full++;
		handle_undo(c, h);
		return -ENOBUFS;
	}
	return h;
}

int
sst_ring_connect(struct sst_ring_client *c, const struct sst_net_endpoint *ep, const char *service,
	const char *protocol, enum sst_nego_mode mode)
{
	if (ep == NULL)
		return -EINVAL;
	return cmd_named(c, RING_OP_CONNECT, ep, service, protocol, (uint8_t)mode);
}

int
sst_ring_listen(struct sst_ring_client *c, const char *service, const char *protocol,
	enum sst_ring_substreams substreams)
{
	if ((unsigned int)substreams > SST_RING_SUBSTREAMS_AS_DATAGRAMS)
		return -EINVAL;
	return cmd_named(c, RING_OP_LISTEN, NULL, service, protocol, (uint8_t)substreams);
}

int
sst_ring_create_substream(struct sst_ring_client *c, int parent)
{
	struct ring_handle *hd = handle_live(c, parent);
	struct ring_cmd cmd = {.op = RING_OP_SUBSTREAM, .ref = (uint32_t)parent};
	int h, rc;

	if (!attached(c))
		return -ENOTCONN;
	if (hd == NULL || hd->listener)
		return -EBADF;
	h = handle_new(c, false);
	if (h < 0)
		return h;
	cmd.handle = (uint32_t)h;
	rc = cmd_put(c, &cmd);
	if (rc < 0) {
		handle_undo(c, h);
		return rc;
	}
	return h;
}

int
sst_ring_listen_substream(struct sst_ring_client *c, int h, enum sst_ring_substreams mode)
{
	if ((unsigned int)mode > SST_RING_SUBSTREAMS_AS_DATAGRAMS)
		return -EINVAL;
	return cmd_simple(c, h, RING_OP_LISTEN_SUB, (int32_t)mode, false);
}

int
sst_ring_write(struct sst_ring_client *c, int h, struct rte_mbuf *m, uint32_t flags)
{
	struct ring_handle *hd = handle_live(c, h);
	struct ring_cmd cmd = {.op = RING_OP_WRITE, .handle = (uint32_t)h, .m = m};
	int rc;

	if (!attached(c))
		return -ENOTCONN;
	if (hd == NULL || hd->listener || m == NULL)
		return -EBADF;
	if (hd->credit <= 0) {
		c->a.no_credit++;
		return -EAGAIN;
	}
	cmd.flags = (uint16_t)(flags & (SST_WRITE_MESSAGE | SST_WRITE_MORE | SST_WRITE_PUSH));
	rc = cmd_put(c, &cmd);
	if (rc == 0)
		hd->credit--;
	return rc;
}

int
sst_ring_write_credit(const struct sst_ring_client *c, int h)
{
	const struct ring_handle *hd = handle_live(c, h);

	return hd != NULL ? hd->credit : -EBADF;
}

int
sst_ring_send_datagram(struct sst_ring_client *c, int parent, struct rte_mbuf *m)
{
	struct ring_handle *hd = handle_live(c, parent);
	struct ring_cmd cmd = {.op = RING_OP_DGRAM, .handle = (uint32_t)parent, .m = m};

	if (!attached(c))
		return -ENOTCONN;
	if (hd == NULL || hd->listener || m == NULL)
		return -EBADF;
	return cmd_put(c, &cmd);
}

int
sst_ring_shutdown(struct sst_ring_client *c, int h)
{
	return cmd_simple(c, h, RING_OP_SHUTDOWN, 0, false);
}

int
sst_ring_close(struct sst_ring_client *c, int h)
{
	int rc = cmd_simple(c, h, RING_OP_CLOSE, 0, true);

	/* From now on only FREED is delivered for h. */
	if (rc == 0)
		c->a.handles[(uint32_t)h & RING_INDEX_MASK].state = RING_H_CLOSING;
	return rc;
}

int
sst_ring_reset(struct sst_ring_client *c, int h)
{
	return cmd_simple(c, h, RING_OP_RESET, 0, false);
}

int
sst_ring_set_priority(struct sst_ring_client *c, int h, int32_t prio)
{
	return cmd_simple(c, h, RING_OP_PRIO, prio, false);
}

/* ---- Events ---- */

/* Keep the event (true), or drop one for a handle closed meanwhile. */
static bool
event_take(struct sst_ring_client *c, struct sst_ring_event *ev)
{
	uint32_t idx = ev->handle & RING_INDEX_MASK;
	uint16_t gen = (uint16_t)(ev->handle >> RING_GEN_SHIFT);
	struct ring_handle *hd = idx < c->nslots ? &c->a.handles[idx] : NULL;

	if (hd != NULL && ev->type == SST_RING_EV_ACCEPTED && idx >= c->max_handles &&
		hd->state == RING_H_FREE) {
		hd->gen = gen;
		hd->state = RING_H_LIVE;
		hd->listener = false;
		hd->credit = (int32_t)c->window;
		return true;
	}
	if (hd != NULL && ev->type == SST_RING_EV_FREED && hd->gen == gen &&
		hd->state != RING_H_FREE) {
		hd->state = RING_H_FREE;
		if (idx < c->max_handles)
			c->a.free_own[c->a.free_own_n++] = idx;
		return true;
	}
	if (hd != NULL && hd->state == RING_H_LIVE && hd->gen == gen &&
		ev->type != SST_RING_EV_ACCEPTED && ev->type != SST_RING_EV_FREED) {
		if (ev->type == SST_RING_EV_WRITABLE)
			hd->credit += (int32_t)ev->credit;
		return true;
	}
	if (ev->type == SST_RING_EV_DATA || ev->type == SST_RING_EV_DATAGRAM)
		rte_pktmbuf_free(ev->m);
	c->a.stale_events++;
	return false;
}

int
sst_ring_poll(struct sst_ring_client *c, struct sst_ring_event *ev, unsigned int max)
{
	unsigned int n = 0;

	while (n < max) {
		unsigned int k =
			rte_ring_sc_dequeue_burst_elem(c->ev, ev + n, sizeof(*ev), max - n, NULL);
		unsigned int kept = n;

		if (k == 0)
			break;
		/* Dropped events leave no holes: the rest move up. */
		for (unsigned int i = n; i < n + k; i++)
			if (event_take(c, &ev[i]))
				ev[kept++] = ev[i];
		n = kept;
	}
	if (n == 0 && !attached(c))
		return -ENOTCONN;
	return (int)n;
}

void
sst_ring_client_stats(const struct sst_ring_client *c, struct sst_ring_client_stats *st)
{
	const struct ring_agent_stats *w = &c->w.st;

	/* The agent's, written by the worker's thread (ring_stat_add()). */
	st->commands = atomic_load_explicit(&w->commands, memory_order_relaxed);
	st->events = atomic_load_explicit(&w->events, memory_order_relaxed);
	st->dead_handle = atomic_load_explicit(&w->dead_handle, memory_order_relaxed);
	st->bad_commands = atomic_load_explicit(&w->bad_commands, memory_order_relaxed);
	st->write_errors = atomic_load_explicit(&w->write_errors, memory_order_relaxed);
	st->dgram_tx_drops = atomic_load_explicit(&w->dgram_tx_drops, memory_order_relaxed);
	st->dgram_rx_drops = atomic_load_explicit(&w->dgram_rx_drops, memory_order_relaxed);
	st->accept_drops = atomic_load_explicit(&w->accept_drops, memory_order_relaxed);
	st->connect_full = atomic_load_explicit(&w->connect_full, memory_order_relaxed);
	st->ring_full = atomic_load_explicit(&w->ring_full, memory_order_relaxed);
	st->cmd_ring_full = c->a.cmd_ring_full;
	st->no_credit = c->a.no_credit;
	st->stale_events = c->a.stale_events;
}
