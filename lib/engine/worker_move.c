/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Moving a peer between the workers of a sharded engine (docs/engine.md,
 * "Mobility"). A peer lives on the worker its first endpoint hashes to;
 * when it comes back from an endpoint that hashes to another worker, that
 * worker (B) would not know it. Two pieces let the move work without a
 * lock on the packet path:
 *
 * - The directory (struct sst_worker_dir): which worker holds a peer with
 *   a given host instance. Each worker writes only its own region (when it
 *   indexes or forgets a peer); the others read it with relaxed atomic
 *   loads, only when a negotiation from a new endpoint names an instance
 *   they do not know. A stale or missed read costs what the move cost
 *   before: the peer is new on B.
 * - Endpoint steering: B hands the negotiation (the ChkI1) to the worker A
 *   that holds the peer, as an adoption, and from then on hands A whatever
 *   comes from that endpoint (any channel number, and negotiation that
 *   answers none of B's own initiations). A takes the endpoint as its own
 *   (its negotiation answers, its channels live there) and does not hand
 *   it back to B. When A's record of the endpoint goes (no channel number
 *   left there for the quiet period, worker_eps_expire()), A tells B,
 *   which forgets the entry. Both messages travel through the inbox rings
 *   the software dispatch already uses.
 *
 * Secure mode: a responder's handshake state between its SecR1 and the
 * SecI2 lives in the negotiation host that sent the SecR1, so B does not
 * wait for the result. It reads the instance that the SecI1 names in clear
 * (sst_nego_secure_i1_instance()) and hands the SecI1 itself to A, which
 * answers the whole handshake; A moves the peer only if the SecI2 proves
 * the same identity and instance (worker_peer_find_moved()). A forged
 * instance costs a steering entry, as in checksum mode.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <sodium.h>

#include "worker_internal.h"

/* Instances per worker in the directory: buckets of DIR_WAYS slots. A peer
 * whose bucket is full is not indexed and cannot move to another worker
 * (its streams then end as if it had restarted). */
enum { DIR_BUCKETS = 1024, DIR_WAYS = 8 };

struct sst_worker_dir {
	uint16_t workers;
	uint8_t key[crypto_shorthash_KEYBYTES];
	_Atomic uint64_t slots[]; /**< workers x DIR_BUCKETS x DIR_WAYS; 0: empty */
};

struct sst_worker_dir *
sst_worker_dir_create(uint16_t workers, int socket_id)
{
	struct sst_worker_dir *d;
	size_t slots = (size_t)workers * DIR_BUCKETS * DIR_WAYS;

	if (workers < 2 || workers > SST_WORKERS_MAX) {
		rte_errno = EINVAL;
		return NULL;
	}
	d = rte_zmalloc_socket("sst_worker_dir", sizeof(*d) + slots * sizeof(d->slots[0]),
		RTE_CACHE_LINE_SIZE, socket_id);
	if (d == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	d->workers = workers;
	randombytes_buf(d->key, sizeof(d->key));
	return d;
}

void
sst_worker_dir_destroy(struct sst_worker_dir *d)
{
	rte_free(d);
}

/* Keyed: in checksum mode a peer chooses its instance, and must not be able
 * to fill the bucket of another's. */
static _Atomic uint64_t *
dir_bucket(const struct sst_worker *w, uint16_t worker, uint64_t instance)
{
	struct sst_worker_dir *d = w->p.dir;
	uint8_t out[crypto_shorthash_BYTES];
	uint64_t h;

	crypto_shorthash(out, (const uint8_t *)&instance, sizeof(instance), d->key);
	memcpy(&h, out, sizeof(h));
	return &d->slots[((size_t)worker * DIR_BUCKETS + h % DIR_BUCKETS) * DIR_WAYS];
}

static bool
dir_usable(const struct sst_worker *w)
{
	return w->p.dir != NULL && w->p.shard_count > 1 && w->p.shard_index < w->p.dir->workers;
}

/* Our region's slot holding from (0: an empty one) now holds to; none
 * found: nothing changes (a full bucket leaves the instance out). */
static void
dir_swap(struct sst_worker *w, uint64_t instance, uint64_t from, uint64_t to)
{
	_Atomic uint64_t *b;

	if (!dir_usable(w) || instance == 0)
		return;
	b = dir_bucket(w, w->p.shard_index, instance);
	for (int i = 0; i < DIR_WAYS; i++)
		if (atomic_load_explicit(&b[i], memory_order_relaxed) == from) {
			atomic_store_explicit(&b[i], to, memory_order_relaxed);
			return;
		}
}

void
worker_dir_add(struct sst_worker *w, uint64_t instance)
{
	dir_swap(w, instance, 0, instance);
}

void
worker_dir_del(struct sst_worker *w, uint64_t instance)
{
	dir_swap(w, instance, instance, 0);
}

static bool
dir_holds(const struct sst_worker *w, uint16_t worker, uint64_t instance)
{
	_Atomic uint64_t *b = dir_bucket(w, worker, instance);

	for (int i = 0; i < DIR_WAYS; i++)
		if (atomic_load_explicit(&b[i], memory_order_relaxed) == instance)
			return true;
	return false;
}

/* The other worker whose region holds instance, or -1. */
static int
dir_find(const struct sst_worker *w, uint64_t instance)
{
	for (uint16_t k = 0; k < w->p.dir->workers && k < w->p.shard_count; k++)
		if (k != w->p.shard_index && dir_holds(w, k, instance))
			return k;
	return -1;
}

/* ---- Endpoint steering ---- */

struct worker_steer {
	uint64_t hash; /**< worker_hash_ep() */
	struct sst_net_endpoint ep;
	uint16_t owner;
};

int
worker_move_init(struct sst_worker *w)
{
	if (!dir_usable(w))
		return 0;
	return worker_table_init(&w->steer, "sst_worker_steer", 16);
}

void
worker_move_fini(struct sst_worker *w)
{
	worker_table_free_all(&w->steer);
}

static struct worker_steer *
steer_find(const struct sst_worker *w, const struct sst_net_endpoint *ep, uint64_t hash)
{
	return worker_table_find_ep(&w->steer, hash, ep, offsetof(struct worker_steer, ep));
}

int
worker_steer_owner(const struct sst_worker *w, const struct sst_net_endpoint *ep)
{
	const struct worker_steer *s;

	if (w->steer.count == 0)
		return -1;
	s = steer_find(w, ep, worker_hash_ep(w, ep));
	return s != NULL ? s->owner : -1;
}

/* capped: an entry that hands an endpoint away (STEER_MAX bounds them);
 * an adopted one is bounded by the other workers' capped entries. */
static int
steer_set(struct sst_worker *w, const struct sst_net_endpoint *ep, uint16_t owner, bool capped)
{
	uint64_t hash = worker_hash_ep(w, ep);
	struct worker_steer *s = steer_find(w, ep, hash);

	if (s != NULL) {
		s->owner = owner;
		return 0;
	}
	if (w->steer.slots == NULL)
		return -ENOTSUP; /* not sharded */
	if (capped && w->steer.count >= STEER_MAX)
		return -ENOSPC;
	s = rte_zmalloc("sst_worker_steer", sizeof(*s), 0);
	if (s == NULL)
		return -ENOMEM;
	s->hash = hash;
	s->ep = *ep;
	s->owner = owner;
	if (worker_table_add(&w->steer, hash, s) < 0) {
		rte_free(s);
		return -ENOMEM;
	}
	w->stats.steer_entries = w->steer.count;
	return 0;
}

void
worker_move_release(struct sst_worker *w, const struct sst_net_endpoint *ep)
{
	uint64_t hash;
	struct worker_steer *s;

	if (w->steer.count == 0)
		return;
	hash = worker_hash_ep(w, ep);
	s = steer_find(w, ep, hash);
	if (s == NULL)
		return;
	worker_table_del(&w->steer, hash, s);
	rte_free(s);
	w->stats.steer_entries = w->steer.count;
}

/* ---- The move ---- */

int
worker_move_owner(const struct sst_worker *w, const struct sst_nego_result *r)
{
	if (!dir_usable(w) || r->mode != SST_NEGO_MODE_CHECKSUM || r->role != SST_NEGO_RESPONDER ||
		!r->peer_instance_known || r->peer_instance == 0 || w->steer.count >= STEER_MAX)
		return -1;
	return dir_find(w, r->peer_instance);
}

int
worker_move_secure_owner(
	const struct sst_worker *w, const struct rte_mbuf *m, const struct sst_net_endpoint *from)
{
	uint64_t instance;

	/* An endpoint we know is ours to negotiate with (adopted, or a
	 * handshake of ours under way there). */
	if (!dir_usable(w) || w->steer.count >= STEER_MAX ||
		worker_ep_find(w, from, worker_hash_ep(w, from)) != NULL)
		return -1;
	if (sst_nego_secure_i1_instance(
		    rte_pktmbuf_mtod(m, const void *), rte_pktmbuf_data_len(m), &instance) < 0 ||
		instance == 0 || dir_holds(w, w->p.shard_index, instance))
		return -1;
	return dir_find(w, instance);
}

void
worker_move_handoff(
	struct sst_worker *w, struct rte_mbuf *m, const struct sst_net_endpoint *from, uint16_t to)
{
	/* Steered first: once A has the ChkI1, its answer may bring the
	 * peer's first channel packets here before our next pass. */
	if (steer_set(w, from, to, true) < 0) {
		rte_pktmbuf_free(m); /* as if lost: the peer sends its ChkI1 again */
		return;
	}
	if (worker_handoff_send(w, to, m, from, WORKER_HANDOFF_ADOPT) < 0) {
		worker_move_release(w, from);
		return;
	}
	w->stats.peers_handed++;
}

int
worker_move_adopt(struct sst_worker *w, const struct sst_net_endpoint *ep, sst_time_t now)
{
	int rc = steer_set(w, ep, w->p.shard_index, false);

	/* No room: the other worker is told to forget its entry, and the
	 * peer's next ChkI1 starts over there. */
	if (rc < 0 || worker_ep_adopt(w, ep, now) < 0) {
		worker_move_ep_gone(w, ep);
		return -ENOMEM;
	}
	return 0;
}

int
worker_move_ep_gone(struct sst_worker *w, const struct sst_net_endpoint *ep)
{
	uint16_t owner = sst_shard_owner(&w->shard, ep);
	struct rte_mbuf *m;

	if (owner != w->p.shard_index) {
		m = rte_pktmbuf_alloc(w->p.pool);
		if (m == NULL || worker_handoff_send(w, owner, m, ep, WORKER_HANDOFF_RELEASE) < 0)
			return -ENOBUFS; /* tried again later: the record stays */
	}
	worker_move_release(w, ep);
	return 0;
}
