/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The simulator core: virtual clock, hosts, links and the event loop (see
 * sim.h). Schedules are kept by lazy deletion: a host's timer and a link
 * direction's next delivery each carry a generation; re-arming bumps it and
 * pushes a new event, and an event whose generation is old is skipped when
 * it comes out of the queue.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "sim_event.h"

/** One direction of a link and where it leads. */
struct sim_dir {
	struct sim *sim;
	struct sst_simlink *sl;
	struct sim_host *from;
	struct sim_host *to;
	uint16_t from_port;
	uint16_t to_port;
	sst_time_t sched_at; /**< time of the pending delivery event */
	uint64_t gen;	     /**< generation of that event */
};

struct sim_link {
	struct sim_dir dir[2];
};

struct sim_host {
	struct sim *sim;
	const struct sim_host_ops *ops;
	void *ctx;
	unsigned int index;
	char name[32];
	struct sim_dir *out[SIM_MAX_PORTS]; /**< direction leaving each port */
	sst_time_t timer_at;		    /**< time of the pending timer event */
	uint64_t timer_gen;		    /**< generation of that event */
};

struct sim {
	struct sim_config cfg;
	struct sim_event_queue q;
	struct sim_stats stats;
	sst_time_t now;
	sst_time_t instant;	 /**< time of the events being counted for livelock */
	uint64_t instant_events; /**< events processed at that time */
	int error;		 /**< sticky -ENOMEM or -ELOOP */
	struct sim_host **hosts;
	unsigned int nb_hosts;
	struct sim_link **links;
	unsigned int nb_links;
};

struct sim *
sim_create(const struct sim_config *cfg)
{
	struct sim *sim = calloc(1, sizeof(*sim));

	if (sim == NULL)
		return NULL;
	if (cfg != NULL)
		sim->cfg = *cfg;
	if (sim->cfg.max_events_per_instant == 0)
		sim->cfg.max_events_per_instant = SIM_DEFAULT_MAX_EVENTS_PER_INSTANT;
	sim->now = sim->cfg.start_time;
	sim->instant = sim->now;
	return sim;
}

void
sim_destroy(struct sim *sim)
{
	if (sim == NULL)
		return;
	for (unsigned int i = 0; i < sim->nb_links; i++) {
		for (int d = 0; d < 2; d++) {
			sst_simlink_fini(sim->links[i]->dir[d].sl);
			free(sim->links[i]->dir[d].sl);
		}
		free(sim->links[i]);
	}
	for (unsigned int i = 0; i < sim->nb_hosts; i++)
		free(sim->hosts[i]);
	free(sim->links);
	free(sim->hosts);
	sim_event_queue_free(&sim->q);
	free(sim);
}

static void
push(struct sim *sim, sst_time_t t, enum sim_event_kind kind, void *obj, uint64_t gen,
	void (*fn)(void *, sst_time_t))
{
	struct sim_event e = {.time = t, .kind = kind, .obj = obj, .gen = gen, .fn = fn};

	if (sim_event_push(&sim->q, &e) < 0)
		sim->error = -ENOMEM;
}

static void
trace(struct sim *sim, enum sim_trace_kind kind, enum sst_simlink_verdict reason,
	const struct sim_host *from, uint16_t from_port, const struct sim_host *to,
	uint16_t to_port, const struct rte_mbuf *m)
{
	struct sim_trace_event ev = {
		.time = sim->now,
		.kind = kind,
		.reason = reason,
		.from = from,
		.from_port = from_port,
		.to = to,
		.to_port = to_port,
		.m = m,
	};

	if (sim->cfg.trace != NULL)
		sim->cfg.trace(sim->cfg.trace_arg, &ev);
}

/* Ask a host for its next expiry and (re)arm its timer event if it moved. */
static void
requery(struct sim_host *h)
{
	struct sim *sim = h->sim;
	sst_time_t t = h->ops->next_expiry != NULL ? h->ops->next_expiry(h->ctx) : SST_TIME_NEVER;

	if (t != SST_TIME_NEVER && t < sim->now)
		t = sim->now; /* overdue: as soon as possible, never in the past */
	if (t == h->timer_at)
		return;
	h->timer_gen++;
	h->timer_at = t;
	if (t != SST_TIME_NEVER)
		push(sim, t, SIM_EV_TIMER, h, h->timer_gen, NULL);
}

static void
requery_all(struct sim *sim)
{
	for (unsigned int i = 0; i < sim->nb_hosts; i++)
		requery(sim->hosts[i]);
}

/* Make sure a delivery event is pending for the direction's next packet. */
static void
schedule_dir(struct sim_dir *d)
{
	sst_time_t t = sst_simlink_next_delivery(d->sl);

	if (t >= d->sched_at)
		return;
	d->gen++;
	d->sched_at = t;
	push(d->sim, t, SIM_EV_DELIVER, d, d->gen, NULL);
}

struct sim_host *
sim_host_add(struct sim *sim, const char *name, const struct sim_host_ops *ops, void *ctx)
{
	struct sim_host **hosts;
	struct sim_host *h;

	if (ops == NULL || ops->receive == NULL ||
		(ops->next_expiry != NULL && ops->handle_expiry == NULL))
		return NULL;
	hosts = realloc(sim->hosts, (sim->nb_hosts + 1) * sizeof(*hosts));
	if (hosts == NULL)
		return NULL;
	sim->hosts = hosts;
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return NULL;
	h->sim = sim;
	h->ops = ops;
	h->ctx = ctx;
	h->index = sim->nb_hosts;
	h->timer_at = SST_TIME_NEVER;
	snprintf(h->name, sizeof(h->name), "%s", name != NULL ? name : "host");
	sim->hosts[sim->nb_hosts++] = h;
	return h;
}

const char *
sim_host_name(const struct sim_host *h)
{
	return h->name;
}

unsigned int
sim_host_index(const struct sim_host *h)
{
	return h->index;
}

void
sim_host_kick(struct sim_host *h)
{
	requery(h);
}

int
sim_host_tx(void *host, uint16_t port, struct rte_mbuf *m)
{
	struct sim_host *h = host;
	struct sim *sim = h->sim;
	enum sst_simlink_verdict v;
	struct sim_dir *d;

	if (port >= SIM_MAX_PORTS || h->out[port] == NULL) {
		sim->stats.unrouted++;
		rte_pktmbuf_free(m);
		return port >= SIM_MAX_PORTS ? -EINVAL : -ENOTCONN;
	}
	d = h->out[port];
	sim->stats.packets_sent++;
	trace(sim, SIM_TRACE_SENT, SST_SIMLINK_QUEUED, h, port, d->to, d->to_port, m);
	v = sst_simlink_enqueue(d->sl, m, sim->now);
	if (v != SST_SIMLINK_QUEUED) {
		sim->stats.packets_dropped++;
		trace(sim, SIM_TRACE_DROPPED, v, h, port, d->to, d->to_port, m);
		rte_pktmbuf_free(m);
		return 0;
	}
	schedule_dir(d);
	return 0;
}

/* Seed of one link direction: the run seed, the link index and the direction,
 * mixed with the seed the caller put in the parameters. */
static uint64_t
dir_seed(const struct sim *sim, unsigned int link, int dir, uint64_t param_seed)
{
	uint64_t x = sim->cfg.seed ^
		     (((uint64_t)link << 1 | (uint64_t)dir) * UINT64_C(0x9e3779b97f4a7c15));

	x ^= param_seed * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

static int
dir_init(struct sim *sim, struct sim_dir *d, const struct sst_simlink_params *p, int dir)
{
	struct sst_simlink_params q;
	size_t size;
	void *mem;

	if (sst_simlink_params_check(p) < 0)
		return -EINVAL;
	sst_simlink_params_default(&q);
	memcpy(&q, p, p->size);
	q.size = sizeof(q);
	q.seed = dir_seed(sim, sim->nb_links, dir, p->seed);
	size = sst_simlink_size(q.capacity);
	mem = calloc(1, size);
	if (mem == NULL)
		return -ENOMEM;
	d->sl = sst_simlink_init(mem, &q);
	if (d->sl == NULL) {
		free(mem);
		return -EINVAL;
	}
	d->sim = sim;
	d->sched_at = SST_TIME_NEVER;
	return 0;
}

struct sim_link *
sim_connect(struct sim *sim, struct sim_host *a, uint16_t pa, struct sim_host *b, uint16_t pb,
	const struct sst_simlink_params *ab, const struct sst_simlink_params *ba)
{
	struct sim_link **links;
	struct sim_link *l;

	if (a == NULL || b == NULL || ab == NULL || pa >= SIM_MAX_PORTS || pb >= SIM_MAX_PORTS ||
		a->out[pa] != NULL || b->out[pb] != NULL || (a == b && pa == pb))
		return NULL;
	if (ba == NULL)
		ba = ab;
	links = realloc(sim->links, (sim->nb_links + 1) * sizeof(*links));
	if (links == NULL)
		return NULL;
	sim->links = links;
	l = calloc(1, sizeof(*l));
	if (l == NULL)
		return NULL;
	if (dir_init(sim, &l->dir[0], ab, 0) < 0 || dir_init(sim, &l->dir[1], ba, 1) < 0) {
		free(l->dir[0].sl);
		free(l);
		return NULL;
	}
	l->dir[0].from = a;
	l->dir[0].from_port = pa;
	l->dir[0].to = b;
	l->dir[0].to_port = pb;
	l->dir[1].from = b;
	l->dir[1].from_port = pb;
	l->dir[1].to = a;
	l->dir[1].to_port = pa;
	a->out[pa] = &l->dir[0];
	b->out[pb] = &l->dir[1];
	sim->links[sim->nb_links++] = l;
	return l;
}

struct sst_simlink *
sim_link_dir(struct sim_link *l, int dir)
{
	return l->dir[dir != 0].sl;
}

int
sim_schedule(struct sim *sim, sst_time_t at, void (*fn)(void *arg, sst_time_t now), void *arg)
{
	struct sim_event e = {.time = at < sim->now ? sim->now : at,
		.kind = SIM_EV_CALLBACK,
		.obj = arg,
		.fn = fn};

	return sim_event_push(&sim->q, &e);
}

/* Deliver the packets a direction has due now, in one burst. */
static void
deliver(struct sim *sim, struct sim_dir *d)
{
	struct rte_mbuf *pkts[SIM_BURST];
	uint16_t n;

	d->sched_at = SST_TIME_NEVER;
	n = sst_simlink_dequeue(d->sl, sim->now, pkts, SIM_BURST);
	for (uint16_t i = 0; i < n; i++) {
		sim->stats.packets_delivered++;
		trace(sim, SIM_TRACE_DELIVERED, SST_SIMLINK_QUEUED, d->from, d->from_port, d->to,
			d->to_port, pkts[i]);
		d->to->ops->receive(d->to->ctx, pkts[i], d->to_port, sim->now);
	}
	requery(d->to);
	schedule_dir(d);
}

/* Whether an event is superseded by a later schedule of its object. */
static bool
stale(const struct sim_event *e)
{
	if (e->kind == SIM_EV_DELIVER)
		return e->gen != ((const struct sim_dir *)e->obj)->gen;
	if (e->kind == SIM_EV_TIMER)
		return e->gen != ((const struct sim_host *)e->obj)->timer_gen;
	return false;
}

/* Drop superseded events from the head of the queue. */
static void
skip_stale(struct sim *sim)
{
	const struct sim_event *top;
	struct sim_event e;

	while ((top = sim_event_peek(&sim->q)) != NULL && stale(top)) {
		sim_event_pop(&sim->q, &e);
		sim->stats.stale++;
	}
}

/* Run the earliest event (not stale: skip_stale() was called). */
static int
process(struct sim *sim)
{
	struct sim_event e;
	struct sim_host *h;

	if (!sim_event_pop(&sim->q, &e))
		return 0;
	if (e.time != sim->instant) {
		sim->instant = e.time;
		sim->instant_events = 0;
	}
	if (++sim->instant_events > sim->cfg.max_events_per_instant) {
		sim->error = -ELOOP;
		return sim->error;
	}
	sim->now = e.time;
	sim->stats.events++;
	switch (e.kind) {
	case SIM_EV_DELIVER:
		deliver(sim, e.obj);
		break;
	case SIM_EV_TIMER:
		h = e.obj;
		h->timer_at = SST_TIME_NEVER;
		sim->stats.timers++;
		trace(sim, SIM_TRACE_TIMER, SST_SIMLINK_QUEUED, h, 0, NULL, 0, NULL);
		h->ops->handle_expiry(h->ctx, sim->now);
		requery(h);
		break;
	case SIM_EV_CALLBACK:
		sim->stats.callbacks++;
		e.fn(e.obj, sim->now);
		requery_all(sim);
		break;
	}
	return sim->error != 0 ? sim->error : 1;
}

int
sim_step(struct sim *sim)
{
	if (sim->error != 0)
		return sim->error;
	requery_all(sim);
	skip_stale(sim);
	return process(sim);
}

int
sim_run_until(struct sim *sim, sst_time_t t)
{
	const struct sim_event *top;
	int rc;

	if (sim->error != 0)
		return sim->error;
	requery_all(sim);
	for (;;) {
		skip_stale(sim);
		top = sim_event_peek(&sim->q);
		if (top == NULL || top->time > t)
			break;
		rc = process(sim);
		if (rc < 0)
			return rc;
	}
	if (t > sim->now)
		sim->now = t;
	return 0;
}

int
sim_run_while(struct sim *sim, bool (*pred)(void *arg), void *arg, sst_time_t deadline)
{
	const struct sim_event *top;
	int rc;

	if (sim->error != 0)
		return sim->error;
	requery_all(sim);
	for (;;) {
		if (!pred(arg))
			return 0;
		skip_stale(sim);
		top = sim_event_peek(&sim->q);
		if (top == NULL)
			return -ENOENT;
		if (top->time > deadline) {
			if (deadline > sim->now)
				sim->now = deadline;
			return -ETIMEDOUT;
		}
		rc = process(sim);
		if (rc < 0)
			return rc;
	}
}

sst_time_t
sim_now(const struct sim *sim)
{
	return sim->now;
}

uint64_t
sim_seed(const struct sim *sim)
{
	return sim->cfg.seed;
}

void
sim_stats_get(const struct sim *sim, struct sim_stats *stats)
{
	*stats = sim->stats;
}

void
sim_set_trace(struct sim *sim, sim_trace_fn fn, void *arg)
{
	sim->cfg.trace = fn;
	sim->cfg.trace_arg = arg;
}

uint64_t
sim_seed_from_env(uint64_t dflt)
{
	const char *s = getenv("SST_SIM_SEED");
	char *end;
	unsigned long long v;

	if (s == NULL || *s == '\0')
		return dflt;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || *end != '\0') {
		fprintf(stderr, "sim: ignoring malformed SST_SIM_SEED=%s\n", s);
		return dflt;
	}
	fprintf(stderr, "sim: seed %llu from SST_SIM_SEED\n", v);
	return (uint64_t)v;
}

static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

uint64_t
sim_trace_digest(uint64_t h, const struct sim_trace_event *ev)
{
	uint32_t fields[6] = {
		(uint32_t)ev->kind,
		(uint32_t)ev->reason,
		ev->from != NULL ? ev->from->index : UINT32_MAX,
		ev->from_port,
		ev->to != NULL ? ev->to->index : UINT32_MAX,
		ev->to_port,
	};

	h = fnv(h, &ev->time, sizeof(ev->time));
	h = fnv(h, fields, sizeof(fields));
	for (const struct rte_mbuf *seg = ev->m; seg != NULL; seg = seg->next)
		h = fnv(h, rte_pktmbuf_mtod(seg, const uint8_t *), seg->data_len);
	return h;
}
