/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A worker's endpoints, peers and channels (docs/engine.md, "Peers and
 * channels"): the records, their tables (worker_table.h) and their
 * lifecycle.
 *
 * - An endpoint record exists while channel numbers are given out to the
 *   endpoint, and for the quiet period after the last one came back
 *   (SST_NEGO_FAIL_AFTER, 20 s): the peer's negotiation refuses, as a
 *   stray, a number it still holds from us that is less than 20 s old
 *   (nego_checksum.c), so a record forgotten at once would hand number 1
 *   out again too soon. Numbers go round robin within the endpoint, so a
 *   number comes back as late as possible (a channel replaced every few
 *   milliseconds must not reuse the number of the one it replaced).
 * - A peer exists while it has a channel or a stream; then the application
 *   hears peer_gone() and the stream layer's peer is destroyed.
 * - A channel is in the channel table under (its endpoint, its number),
 *   on its peer's list, and in the worker's dense array that the poll
 *   walks.
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>
#include <sodium.h>

#include "worker_internal.h"

enum {
	EPS_INITIAL = 64,
	CHANS_INITIAL = 64,
	INSTANCES_INITIAL = 64,
};

/* Endpoints are hashed field by field: the padding of struct
 * sst_net_endpoint must never make two equal endpoints differ. */
uint64_t
worker_hash_ep(const struct sst_worker *w, const struct sst_net_endpoint *ep)
{
	uint8_t key[1 + sizeof(ep->addr.bytes) + 2];
	uint8_t out[crypto_shorthash_BYTES];
	uint64_t h;

	key[0] = ep->addr.family;
	memcpy(&key[1], ep->addr.bytes, sizeof(ep->addr.bytes));
	key[sizeof(key) - 2] = (uint8_t)(ep->port >> 8);
	key[sizeof(key) - 1] = (uint8_t)ep->port;
	crypto_shorthash(out, key, sizeof(key), w->hash_key);
	memcpy(&h, out, sizeof(h));
	return h;
}

static uint64_t
hash_instance(const struct sst_worker *w, uint64_t instance)
{
	uint8_t out[crypto_shorthash_BYTES];
	uint64_t h;

	crypto_shorthash(out, (const uint8_t *)&instance, sizeof(instance), w->hash_key);
	memcpy(&h, out, sizeof(h));
	return h;
}

int
worker_peers_init(struct sst_worker *w)
{
	randombytes_buf(w->hash_key, sizeof(w->hash_key));
	w->last_ep_valid = false;
	/* Nothing is taken from the heap before the first object. */
	sst_mem_cache_init(&w->mem, &sst_mem_rte);
	TAILQ_INIT(&w->lingering);
	TAILQ_INIT(&w->orphans);
	if (worker_table_init(&w->eps, "sst_worker_eps", EPS_INITIAL) < 0)
		goto fail;
	if (worker_table_init(&w->chan_table, "sst_worker_chans", CHANS_INITIAL) < 0)
		goto fail_eps;
	if (worker_table_init(&w->instances, "sst_worker_instances", INSTANCES_INITIAL) < 0)
		goto fail_chans;
	w->chans = rte_malloc("sst_worker_chan_list", CHANS_INITIAL * sizeof(*w->chans), 0);
	w->active = rte_malloc("sst_worker_active", CHANS_INITIAL * sizeof(*w->active), 0);
	w->heap = rte_malloc("sst_worker_heap", CHANS_INITIAL * sizeof(*w->heap), 0);
	if (w->chans == NULL || w->active == NULL || w->heap == NULL) {
		rte_free(w->chans);
		rte_free(w->active);
		rte_free(w->heap);
		goto fail_instances;
	}
	w->chans_cap = CHANS_INITIAL;
	w->nego_handoff = -1;
	if (worker_move_init(w) < 0)
		goto fail_lists;
	return 0;

fail_lists:
	rte_free(w->chans);
	rte_free(w->active);
	rte_free(w->heap);
fail_instances:
	worker_table_fini(&w->instances);
fail_chans:
	worker_table_fini(&w->chan_table);
fail_eps:
	worker_table_fini(&w->eps);
fail:
	return -ENOMEM;
}

void
worker_peers_fini(struct sst_worker *w)
{
	worker_move_fini(w);
	/* The endpoints' records go with the cache. */
	worker_table_fini(&w->eps);
	worker_table_fini(&w->chan_table);
	worker_table_fini(&w->instances);
	rte_free(w->chans);
	rte_free(w->active);
	rte_free(w->heap);
	w->chans = NULL;
	w->active = NULL;
	w->heap = NULL;
	/* Last (sst_worker_destroy() calls this after the stream host went,
	 * whose objects came from the cache too). */
	sst_mem_cache_fini(&w->mem);
}

/* ---- Endpoints and their channel numbers ---- */

struct worker_ep *
worker_ep_find(const struct sst_worker *w, const struct sst_net_endpoint *ep, uint64_t hash)
{
	return worker_table_find_ep(&w->eps, hash, ep, offsetof(struct worker_ep, ep));
}

static bool
number_taken(const struct worker_ep *e, unsigned int c)
{
	return (e->taken[c / 64] >> (c % 64)) & 1;
}

static void
linger_stop(struct sst_worker *w, struct worker_ep *e)
{
	if (!e->lingering)
		return;
	TAILQ_REMOVE(&w->lingering, e, linger_link);
	e->lingering = false;
}

/* Every linger lasts as long, so the list stays in expiry order. */
static void
linger_start(struct sst_worker *w, struct worker_ep *e, sst_time_t now)
{
	if (e->ntaken > 0 || e->peer != NULL || e->lingering)
		return;
	e->lingering = true;
	e->linger_until = now + SST_NEGO_FAIL_AFTER;
	TAILQ_INSERT_TAIL(&w->lingering, e, linger_link);
}

/* The record of ep, made if there is none. */
static struct worker_ep *
ep_get(struct sst_worker *w, const struct sst_net_endpoint *ep)
{
	uint64_t hash = worker_hash_ep(w, ep);
	struct worker_ep *e = worker_ep_find(w, ep, hash);

	if (e != NULL)
		return e;
	e = worker_obj_alloc(w, sizeof(*e));
	if (e == NULL)
		return NULL;
	e->hash = hash;
	e->ep = *ep;
	if (worker_table_add(&w->eps, hash, e) < 0) {
		worker_obj_free(w, e, sizeof(*e));
		return NULL;
	}
	w->stats.endpoints++;
	return e;
}

int
worker_ep_take_number(struct sst_worker *w, const struct sst_net_endpoint *ep)
{
	struct worker_ep *e = ep_get(w, ep);

	if (e == NULL)
		return -ENOMEM;
	for (unsigned int i = 1; i < 256; i++) {
		unsigned int c = (e->cursor + i) % 256;

		if (c == 0 || number_taken(e, c))
			continue;
		e->taken[c / 64] |= UINT64_C(1) << (c % 64);
		e->ntaken++;
		e->cursor = (uint8_t)c;
		linger_stop(w, e);
		return (int)c;
	}
	w->stats.numbers_exhausted++;
	return -ENOSPC;
}

int
worker_ep_adopt(struct sst_worker *w, const struct sst_net_endpoint *ep, sst_time_t now)
{
	struct worker_ep *e = ep_get(w, ep);

	if (e == NULL)
		return -ENOMEM;
	e->adopted = true;
	/* Freed after the quiet period if the negotiation takes no number. */
	linger_start(w, e, now);
	return 0;
}

void
worker_ep_give_number(struct sst_worker *w, struct worker_ep *e, uint8_t number, sst_time_t now)
{
	if (number == 0 || !number_taken(e, number))
		return;
	e->taken[number / 64] &= ~(UINT64_C(1) << (number % 64));
	e->ntaken--;
	linger_start(w, e, now);
}

void
worker_eps_expire(struct sst_worker *w, sst_time_t now)
{
	struct worker_ep *e;

	while ((e = TAILQ_FIRST(&w->lingering)) != NULL && e->linger_until <= now) {
		linger_stop(w, e);
		if (e->adopted && worker_move_ep_gone(w, &e->ep) < 0) {
			linger_start(w, e, now); /* its release is tried again then */
			continue;
		}
		worker_table_del(&w->eps, e->hash, e);
		worker_obj_free(w, e, sizeof(*e));
		w->stats.endpoints--;
	}
}

/* ---- Channels ---- */

void
worker_chans_find(struct sst_worker *w, const struct sst_net_endpoint *eps, const uint8_t *numbers,
	uint16_t n, struct worker_chan **out)
{
	const struct worker_table *t = &w->chan_table;
	uint64_t hash[SST_MAX_BURST];
	uint32_t pos[SST_MAX_BURST];

	for (uint16_t i = 0; i < n; i++) {
		/* A burst comes mostly from one endpoint, and the next burst
		 * too: its hash (SipHash, keyed) once per run of packets from
		 * it. The hash is a function of the endpoint alone, so the
		 * memo never goes stale. */
		if (!w->last_ep_valid || !sst_net_endpoint_equal(&eps[i], &w->last_ep)) {
			w->last_ep = eps[i];
			w->last_ep_hash = worker_hash_ep(w, &eps[i]);
			w->last_ep_valid = true;
		}
		hash[i] = worker_hash_chan(w->last_ep_hash, numbers[i]);
		rte_prefetch0(&t->slots[(uint32_t)hash[i] & t->mask]);
	}
	for (uint16_t i = 0; i < n; i++) {
		pos[i] = 0;
		out[i] = worker_table_next(t, hash[i], &pos[i]);
		if (out[i] != NULL)
			rte_prefetch0(out[i]);
	}
	for (uint16_t i = 0; i < n; i++) {
		struct worker_chan *wc = out[i];

		/* Equal hashes of two keys: rare; the slow walk goes on. */
		while (wc != NULL &&
			(wc->number != numbers[i] || !sst_net_endpoint_equal(&wc->ep, &eps[i])))
			wc = worker_table_next(t, hash[i], &pos[i]);
		out[i] = wc;
	}
}

int
worker_chan_add(struct sst_worker *w, struct worker_chan *wc)
{
	struct worker_peer *p = wc->peer;

	if (w->nchans == w->chans_cap) {
		uint32_t cap = w->chans_cap * 2;
		struct worker_chan **chans = rte_realloc(w->chans, cap * sizeof(*chans), 0);
		struct worker_chan **active, **heap;

		if (chans == NULL)
			return -ENOMEM;
		w->chans = chans;
		active = rte_realloc(w->active, cap * sizeof(*active), 0);
		if (active == NULL)
			return -ENOMEM;
		w->active = active;
		heap = rte_realloc(w->heap, cap * sizeof(*heap), 0);
		if (heap == NULL)
			return -ENOMEM;
		w->heap = heap;
		w->chans_cap = cap;
	}
	wc->hash = worker_hash_chan(wc->at->hash, wc->number);
	wc->ep = wc->at->ep;
	if (worker_table_add(&w->chan_table, wc->hash, wc) < 0)
		return -ENOMEM;
	wc->index = w->nchans;
	w->chans[w->nchans++] = wc;
	TAILQ_INSERT_TAIL(&p->chans, wc, peer_link);
	p->nchans++;
	/* A dead or evicted peer that came back is connected again. */
	if (p->state == PEER_ORPHAN)
		TAILQ_REMOVE(&w->orphans, p, orphan_link);
	if (p->state == PEER_EVICTED)
		w->npeers_leaving--;
	p->state = PEER_CONNECTED;
	return 0;
}

/* ---- The timer heap (a binary min-heap on wake_at) ---- */

static void
heap_set(struct sst_worker *w, uint32_t i, struct worker_chan *wc)
{
	w->heap[i] = wc;
	wc->heap_pos = i + 1;
}

static void
heap_up(struct sst_worker *w, uint32_t i)
{
	struct worker_chan *wc = w->heap[i];

	while (i > 0 && w->heap[(i - 1) / 2]->wake_at > wc->wake_at) {
		heap_set(w, i, w->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(w, i, wc);
}

static void
heap_down(struct sst_worker *w, uint32_t i)
{
	struct worker_chan *wc = w->heap[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= w->nheap)
			break;
		if (c + 1 < w->nheap && w->heap[c + 1]->wake_at < w->heap[c]->wake_at)
			c++;
		if (w->heap[c]->wake_at >= wc->wake_at)
			break;
		heap_set(w, i, w->heap[c]);
		i = c;
	}
	heap_set(w, i, wc);
}

static void
heap_remove(struct sst_worker *w, struct worker_chan *wc)
{
	uint32_t i = wc->heap_pos - 1;
	struct worker_chan *last = w->heap[--w->nheap];

	wc->heap_pos = 0;
	if (last == wc)
		return;
	heap_set(w, i, last);
	heap_up(w, i);
	heap_down(w, last->heap_pos - 1);
}

void
worker_chan_timer(struct sst_worker *w, struct worker_chan *wc)
{
	if (wc->wake_at == SST_TIME_NEVER) {
		if (wc->heap_pos != 0)
			heap_remove(w, wc);
		return;
	}
	if (wc->heap_pos == 0) {
		w->heap[w->nheap++] = wc; /* room: the heap holds at most every channel */
		heap_set(w, w->nheap - 1, wc);
	}
	heap_up(w, wc->heap_pos - 1);
	heap_down(w, wc->heap_pos - 1);
}

void
worker_chan_activate(struct sst_worker *w, struct worker_chan *wc)
{
	if (wc->active)
		return;
	wc->active = true;
	w->active[w->nactive++] = wc; /* room: the list holds at most every channel */
}

void
worker_chan_remove(struct sst_worker *w, struct worker_chan *wc, sst_time_t now)
{
	struct worker_peer *p = wc->peer;
	struct worker_chan *last = w->chans[--w->nchans];

	if (wc->heap_pos != 0)
		heap_remove(w, wc);
	worker_table_del(&w->chan_table, wc->hash, wc);
	w->chans[wc->index] = last;
	last->index = wc->index;
	TAILQ_REMOVE(&p->chans, wc, peer_link);
	if (--p->nchans == 0) {
		TAILQ_INSERT_TAIL(&w->orphans, p, orphan_link);
		if (p->state == PEER_EVICTED)
			w->npeers_leaving--;
		p->state = PEER_ORPHAN;
	}
	worker_ep_give_number(w, wc->at, wc->number, now);
}

/* ---- Peers ---- */

static void
instance_index(struct sst_worker *w, struct worker_peer *p)
{
	/* A server we reach from one of our extra local endpoints is indexed
	 * by none: it shows one instance at as many endpoint pairs (a run
	 * of equal hashes that every insertion would walk), and it never
	 * moves to us (we opened its channels). */
	if (p->instance_known && worker_ep_tagged(&p->at->ep))
		p->instance_known = false;
	if (!p->instance_known)
		return;
	p->instance_hash = hash_instance(w, p->instance);
	/* Without room in the index the peer is only not found when it
	 * moves: its streams then end as if it had restarted. */
	if (worker_table_add(&w->instances, p->instance_hash, p) < 0)
		p->instance_known = false;
	else
		worker_dir_add(w, p->instance);
}

static void
instance_unindex(struct sst_worker *w, struct worker_peer *p)
{
	if (p->instance_known) {
		worker_table_del(&w->instances, p->instance_hash, p);
		worker_dir_del(w, p->instance);
	}
	p->instance_known = false;
}

static void
peer_learn(struct worker_peer *p, const struct sst_nego_result *r)
{
	p->mode = r->mode;
	p->instance_known = r->peer_instance_known && r->peer_instance != 0;
	p->instance = r->peer_instance;
	memcpy(p->id, r->peer_id, sizeof(p->id));
}

struct worker_peer *
worker_peer_create(struct sst_worker *w, struct worker_ep *e, const struct sst_nego_result *r)
{
	struct worker_peer *p;

	/* An evicted peer's place is taken at once: it goes at the end of
	 * this pass (it has no stream to wait for). */
	if (w->p.max_peers != 0 && w->npeers - w->npeers_leaving >= w->p.max_peers)
		return NULL;
	p = worker_obj_alloc(w, sizeof(*p));
	if (p == NULL)
		return NULL;
	p->sp = sst_stream_peer_create(w->sh, r->common_caps);
	if (p->sp == NULL) {
		worker_obj_free(w, p, sizeof(*p));
		return NULL;
	}
	TAILQ_INIT(&p->chans);
	p->at = e;
	e->peer = p;
	linger_stop(w, e);
	p->we_initiated = r->role == SST_NEGO_INITIATOR;
	p->last_heard = w->now;
	peer_learn(p, r);
	instance_index(w, p);
	/* Orphan until its first channel is added. */
	TAILQ_INSERT_TAIL(&w->orphans, p, orphan_link);
	p->state = PEER_ORPHAN;
	w->npeers++;
	w->stats.peers_open++;
	return p;
}

/*
 * Mobility, the SST way (docs/engine.md, "Mobility"): a host whose
 * address or port changed opens a new channel from where it is now; its
 * negotiation names the same host instance (and, in secure mode, proves
 * the same identity), which is how we know it and hand it its streams.
 */
struct worker_peer *
worker_peer_find_moved(struct sst_worker *w, const struct sst_nego_result *r, sst_time_t now)
{
	uint64_t hash;
	uint32_t pos = 0;
	struct worker_peer *p;

	/* The host that moved opens the new channel: we answer it. A channel
	 * we open ourselves goes to the endpoint we chose, whoever is there. */
	if (!r->peer_instance_known || r->peer_instance == 0 || r->role != SST_NEGO_RESPONDER)
		return NULL;
	hash = hash_instance(w, r->peer_instance);
	while ((p = worker_table_next(&w->instances, hash, &pos)) != NULL)
		if (p->instance == r->peer_instance && p->mode == r->mode &&
			memcmp(p->id, r->peer_id, sizeof(p->id)) == 0 &&
			now - p->last_heard >= MOVED_QUIET)
			return p;
	return NULL;
}

void
worker_peer_move(struct sst_worker *w, struct worker_peer *p, struct worker_ep *e, sst_time_t now)
{
	struct worker_ep *old = p->at;

	/* Its channels there keep their numbers until they end. */
	old->peer = NULL;
	linger_start(w, old, now);
	p->at = e;
	e->peer = p;
	linger_stop(w, e);
}

void
worker_peer_set_instance(
	struct sst_worker *w, struct worker_peer *p, const struct sst_nego_result *r)
{
	instance_unindex(w, p);
	peer_learn(p, r);
	instance_index(w, p);
}

static void
peer_free(struct sst_worker *w, struct worker_peer *p, bool tell, sst_time_t now)
{
	const struct sst_worker_ops *ops = w->p.ops;

	if (tell && ops != NULL && ops->peer_gone != NULL)
		ops->peer_gone(w->p.ctx, p->sp, &p->at->ep);
	sst_stream_peer_destroy(p->sp);
	instance_unindex(w, p);
	if (p->state == PEER_ORPHAN)
		TAILQ_REMOVE(&w->orphans, p, orphan_link);
	p->at->peer = NULL;
	linger_start(w, p->at, now);
	worker_obj_free(w, p, sizeof(*p));
	w->npeers--;
	w->stats.peers_open--;
	w->stats.peers_freed++;
}

void
worker_peers_reap(struct sst_worker *w, sst_time_t now)
{
	struct worker_peer *p, *next;

	for (p = TAILQ_FIRST(&w->orphans); p != NULL; p = next) {
		next = TAILQ_NEXT(p, orphan_link);
		if (sst_stream_peer_streams(p->sp) == 0)
			peer_free(w, p, true, now);
	}
}

void
worker_peers_destroy_all(struct sst_worker *w)
{
	struct worker_table *t = &w->eps;

	for (uint32_t i = 0; i <= t->mask; i++) {
		struct worker_ep *e = t->slots[i].obj;

		if (e != NULL && e->peer != NULL && e->peer->at == e)
			peer_free(w, e->peer, false, 0);
	}
}
