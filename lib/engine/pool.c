/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Growable packet pools (sst_pool.h). The pool is created empty at its
 * largest size (rte_mempool_create_empty(), so that its ring holds every
 * object it will ever have), and populated chunk by chunk with memzones, as
 * rte_mempool_populate_default() does for its one pass. Two things differ
 * from DPDK's own way of making a pktmbuf pool:
 *
 * - objects are initialised as pktmbufs inside the populate step, before
 *   the populate helper enqueues them, by mempool ops of our own that copy
 *   the best ops and wrap their populate: initialising after populating
 *   (rte_mempool_obj_iter(rte_pktmbuf_init)) would let another thread take
 *   an object of a live pool before it is initialised;
 * - a chunk whose memory is not IOVA-contiguous is populated run by run
 *   here rather than by rte_mempool_populate_virt(), which on failure frees
 *   every chunk of the pool, objects in use included.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_memory.h>
#include <rte_memzone.h>
#include <rte_mempool.h>
#include <rte_spinlock.h>

#include "sst_params.h"
#include "sst_pool.h"

enum {
	/* Calls that would have grown a pool, after a failure, before it
	 * tries again. */
	RETRY_AFTER = 4096,
};

/* Behind the pktmbuf private area, in the mempool's private data. */
struct pool_state {
	rte_spinlock_t lock;   /**< one grower at a time */
	atomic_uint populated; /**< read without the lock by sst_pool_grow() */
	uint32_t chunk_max;    /**< largest chunk after the first */
	uint32_t chunks;       /**< memzones made: their names */
	uint32_t retry_in;     /**< calls to skip after a failure */
};

#define STATE_OFFSET RTE_ALIGN_CEIL(sizeof(struct rte_pktmbuf_pool_private), RTE_CACHE_LINE_SIZE)
#define PRIV_SIZE (STATE_OFFSET + sizeof(struct pool_state))

static int grow_populate(struct rte_mempool *mp, unsigned int max_objs, void *vaddr,
	rte_iova_t iova, size_t len, rte_mempool_populate_obj_cb_t *obj_cb, void *obj_cb_arg);

static struct pool_state *
state_of(const struct rte_mempool *mp)
{
	/* Our ops are the mark of our pools: only they carry the state. */
	if (rte_mempool_get_ops(mp->ops_index)->populate != grow_populate)
		return NULL;
	return RTE_PTR_ADD(rte_mempool_get_priv((struct rte_mempool *)(uintptr_t)mp), STATE_OFFSET);
}

/* ---- Mempool ops ---- */

struct init_ctx {
	rte_mempool_populate_obj_cb_t *add; /**< the mempool library's own */
	void *add_arg;
};

/* One object of a new chunk: what the mempool library does (header, lists,
 * count), then the pktmbuf initialisation, both before the populate helper
 * enqueues the object where other threads can take it. */
static void
init_obj(struct rte_mempool *mp, void *arg, void *obj, rte_iova_t iova)
{
	struct init_ctx *c = arg;

	c->add(mp, c->add_arg, obj, iova);
	rte_pktmbuf_init(mp, NULL, obj, 0);
}

static int
grow_populate(struct rte_mempool *mp, unsigned int max_objs, void *vaddr, rte_iova_t iova,
	size_t len, rte_mempool_populate_obj_cb_t *obj_cb, void *obj_cb_arg)
{
	struct init_ctx c = {.add = obj_cb, .add_arg = obj_cb_arg};

	/* Our registration refused base ops with a populate of their own, so
	 * this is the default helper: callback first, enqueue after. */
	return rte_mempool_op_populate_default(mp, max_objs, vaddr, iova, len, init_obj, &c);
}

static rte_spinlock_t ops_lock = RTE_SPINLOCK_INITIALIZER;

/* Index of the ops with this name, or -1. Caller holds ops_lock. */
static int
ops_find(const char *name)
{
	for (uint32_t i = 0; i < rte_mempool_ops_table.num_ops; i++)
		if (strcmp(rte_mempool_ops_table.ops[i].name, name) == 0)
			return (int)i;
	return -1;
}

/*
 * Our ops for the base ops @p base_name, registered on first use (not from
 * a constructor: the base ops register from their driver's constructor,
 * whose order against ours is not defined). @return 0 with the name to
 * give rte_mempool_set_ops_byname() in @p name, or a negative errno:
 * -ENOENT (no such base ops), -ENOTSUP (they populate by themselves),
 * -ENOSPC (the ops table is full).
 */
static int
grow_ops(const char *base_name, char *name, size_t len)
{
	struct rte_mempool_ops ops;
	int base, rc = 0;

	rte_spinlock_lock(&ops_lock);
	base = ops_find(base_name);
	if (base < 0) {
		rc = -ENOENT;
		goto out;
	}
	/* A base that populates by itself might enqueue before our callback. */
	if (rte_mempool_ops_table.ops[base].populate != NULL) {
		rc = -ENOTSUP;
		goto out;
	}
	/* Named by the base's index: "sst_grow_" and a long base name could
	 * be cut to the same name for two bases. */
	snprintf(name, len, "sst_grow_%d", base);
	if (ops_find(name) >= 0)
		goto out;
	ops = rte_mempool_ops_table.ops[base];
	snprintf(ops.name, sizeof(ops.name), "%s", name);
	ops.populate = grow_populate;
	rc = rte_mempool_register_ops(&ops);
out:
	rte_spinlock_unlock(&ops_lock);
	return rc < 0 ? rc : 0;
}

/* ---- Chunks ---- */

static void
chunk_free(struct rte_mempool_memhdr *memhdr, void *opaque)
{
	RTE_SET_USED(memhdr);
	rte_memzone_free(opaque);
}

/* The IO address of @p addr, as rte_mempool_populate_virt() finds it. */
static rte_iova_t
virt_iova(const void *addr)
{
	const struct rte_memseg *ms = rte_mem_virt2memseg(addr, NULL);

	if (ms == NULL || ms->iova == RTE_BAD_IOVA)
		return rte_mem_virt2iova(addr);
	return ms->iova + RTE_PTR_DIFF(addr, ms->addr);
}

/*
 * Populate @p mz run by run of IOVA-contiguous pages (what
 * rte_mempool_populate_virt() does), keeping what was added when a run
 * fails. The memzone goes with the first run that took objects: the pool
 * frees it with its chunks. @return objects added, or a negative errno when
 * none were (the caller frees the memzone then).
 */
static int
populate_runs(struct rte_mempool *mp, const struct rte_memzone *mz, size_t pg_sz)
{
	rte_mempool_memchunk_free_cb_t *cb = chunk_free;
	char *addr = mz->addr;
	size_t run;
	int added = 0, rc = 0;

	for (size_t off = 0; off < mz->len && mp->populated_size < mp->size; off += run) {
		rte_iova_t iova = virt_iova(addr + off);

		run = RTE_MIN((size_t)(RTE_PTR_ALIGN_CEIL(addr + off + 1, pg_sz) - (addr + off)),
			mz->len - off);
		while (off + run < mz->len && iova != RTE_BAD_IOVA &&
			virt_iova(addr + off + run) == iova + run)
			run = RTE_MIN(run + pg_sz, mz->len - off);
		rc = rte_mempool_populate_iova(
			mp, addr + off, iova, run, cb, (void *)(uintptr_t)mz);
		if (rc < 0)
			break;
		if (rc > 0)
			cb = NULL;
		added += rc;
	}
	if (added > 0)
		return added;
	return rc < 0 ? rc : -ENOBUFS;
}

/* Add a chunk of @p n objects. Caller holds the state's lock (or is the
 * creator). @return objects added, or a negative errno (nothing added). */
static int
add_chunk(struct rte_mempool *mp, struct pool_state *st, uint32_t n)
{
	const struct rte_mempool_ops *ops = rte_mempool_get_ops(mp->ops_index);
	unsigned int mz_flags = RTE_MEMZONE_1GB | RTE_MEMZONE_SIZE_HINT_ONLY;
	bool contig_obj = !(mp->flags & RTE_MEMPOOL_F_NO_IOVA_CONTIG);
	char mz_name[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;
	size_t pg_sz, min_chunk, align;
	uint32_t pg_shift;
	ssize_t mem_size;
	int rc;

	rc = rte_mempool_get_page_size(mp, &pg_sz);
	if (rc < 0)
		return rc;
	pg_shift = pg_sz != 0 ? rte_bsf64(pg_sz) : 0;
	/* rte_mempool_ops_calc_mem_size() is internal to DPDK: this is it. */
	if (ops->calc_mem_size != NULL)
		mem_size = ops->calc_mem_size(mp, n, pg_shift, &min_chunk, &align);
	else
		mem_size =
			rte_mempool_op_calc_mem_size_default(mp, n, pg_shift, &min_chunk, &align);
	if (mem_size < 0)
		return (int)mem_size;
	if (min_chunk == (size_t)mem_size)
		mz_flags |= RTE_MEMZONE_IOVA_CONTIG;
	rc = snprintf(mz_name, sizeof(mz_name), RTE_MEMPOOL_MZ_FORMAT "_%u", mp->name, st->chunks);
	if (rc < 0 || rc >= (int)sizeof(mz_name))
		return -ENAMETOOLONG;
	mz = rte_memzone_reserve_aligned(mz_name, (size_t)mem_size, mp->socket_id, mz_flags, align);
	if (mz == NULL)
		return -rte_errno;
	if (pg_sz == 0 || (mz_flags & RTE_MEMZONE_IOVA_CONTIG))
		rc = rte_mempool_populate_iova(mp, mz->addr, contig_obj ? mz->iova : RTE_BAD_IOVA,
			mz->len, chunk_free, (void *)(uintptr_t)mz);
	else
		rc = populate_runs(mp, mz, pg_sz);
	if (rc <= 0) {
		rte_memzone_free(mz);
		return rc < 0 ? rc : -ENOBUFS;
	}
	st->chunks++;
	atomic_store_explicit(&st->populated, mp->populated_size, memory_order_release);
	return rc;
}

/* ---- API ---- */

struct rte_mempool *
sst_pool_create(const struct sst_pool_params *p)
{
	struct rte_pktmbuf_pool_private mbp = {0};
	char ops_name[RTE_MEMPOOL_OPS_NAMESIZE];
	struct rte_mempool *mp;
	struct pool_state *st;
	uint32_t initial;
	int rc;

	if (p == NULL || !sst_params_size_ok(p->size, sizeof(*p), SST_PARAMS_ANY_LARGER) ||
		p->name == NULL || p->max == 0 || p->initial > p->max ||
		RTE_ALIGN(p->priv_size, RTE_MBUF_PRIV_ALIGN) != p->priv_size) {
		rte_errno = EINVAL;
		return NULL;
	}
	rc = grow_ops(rte_mbuf_best_mempool_ops(), ops_name, sizeof(ops_name));
	if (rc < 0) {
		rte_errno = -rc;
		return NULL;
	}
	mp = rte_mempool_create_empty(p->name, p->max,
		(unsigned int)sizeof(struct rte_mbuf) + p->priv_size + p->data_room, p->cache_size,
		(unsigned int)PRIV_SIZE, p->socket_id, 0);
	if (mp == NULL)
		return NULL;
	rc = rte_mempool_set_ops_byname(mp, ops_name, NULL);
	if (rc < 0)
		goto fail;
	mbp.mbuf_data_room_size = p->data_room;
	mbp.mbuf_priv_size = p->priv_size;
	rte_pktmbuf_pool_init(mp, &mbp);
	st = state_of(mp);
	rte_spinlock_init(&st->lock);
	st->chunk_max = p->chunk_max != 0 ? p->chunk_max : SST_POOL_CHUNK_MAX;
	initial = p->initial != 0 ? p->initial : RTE_MIN(p->max, (uint32_t)SST_POOL_INITIAL);
	rc = add_chunk(mp, st, initial);
	if (rc < 0)
		goto fail;
	return mp;
fail:
	rte_mempool_free(mp);
	rte_errno = -rc;
	return NULL;
}

/* Free objects as the calling thread can see them cheaply: the ring, and
 * this lcore's cache (other lcores' caches are left out: growing a little
 * early is harmless, reading 128 caches every pass is not free). */
static uint32_t
free_now(struct rte_mempool *mp)
{
	const struct rte_mempool_cache *c = rte_mempool_default_cache(mp, rte_lcore_id());

	/* rte_mempool_ops_get_count() is internal to DPDK: this is it. */
	return rte_mempool_get_ops(mp->ops_index)->get_count(mp) + (c != NULL ? c->len : 0);
}

int
sst_pool_grow(struct rte_mempool *mp)
{
	struct pool_state *st = state_of(mp);
	uint32_t populated, n;
	int rc;

	if (st == NULL)
		return 0;
	populated = atomic_load_explicit(&st->populated, memory_order_acquire);
	/* Rounded up, so that a pool of a few objects grows when empty. */
	if (populated >= mp->size || free_now(mp) >= (populated + 3) / 4)
		return 0;
	if (!rte_spinlock_trylock(&st->lock))
		return 0;
	if (st->retry_in > 0) {
		st->retry_in--;
		rte_spinlock_unlock(&st->lock);
		return 0;
	}
	/* Doubling: as many as the pool has, within the chunk limit. */
	populated = mp->populated_size;
	n = RTE_MIN(RTE_MIN(populated, st->chunk_max), mp->size - populated);
	rc = n > 0 ? add_chunk(mp, st, n) : 0;
	if (rc < 0)
		st->retry_in = RETRY_AFTER;
	rte_spinlock_unlock(&st->lock);
	return rc;
}

bool
sst_pool_growable(const struct rte_mempool *mp)
{
	return state_of(mp) != NULL;
}

uint32_t
sst_pool_populated(const struct rte_mempool *mp)
{
	struct pool_state *st = state_of(mp);

	return st != NULL ? atomic_load_explicit(&st->populated, memory_order_acquire) : mp->size;
}

uint32_t
sst_pool_in_use(const struct rte_mempool *mp)
{
	uint32_t populated = sst_pool_populated(mp);
	uint32_t avail = rte_mempool_avail_count(mp);

	/* Read at different instants: never report less than nothing. */
	return populated > avail ? populated - avail : 0;
}
