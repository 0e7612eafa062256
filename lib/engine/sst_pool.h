/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Growable packet pools (docs/engine.md, "Pools"). A pool is an ordinary
 * rte_mempool of pktmbufs to everything that allocates and frees from it
 * (rte_pktmbuf_alloc(), rte_pktmbuf_free(), links, the stream layer), made
 * with its largest size but populated with a small first chunk only; it
 * grows by further chunks, from the EAL's memory, when few of its objects
 * are free. A tool that moves one line holds a few hundred mbufs, not the
 * tens of thousands a bulk transfer needs, and nothing is given back: a
 * pool that grew keeps its chunks until it is freed (rte_mempool_free()).
 *
 * Growth is not on the packet path: sst_pool_grow() is called between
 * passes (the engine does it once per pass of each worker) and does
 * nothing unless fewer than a quarter of the populated objects are free.
 * The pool cannot grow while the caller allocates in the same pass, so a
 * pass that takes more than what is free gets NULL from the pool, as from
 * a full fixed pool.
 *
 * Thread safety: gets and puts may run on any threads while the pool grows
 * (a net_ring peer frees our mbufs on its own thread). Every object of a new
 * chunk is initialised as a pktmbuf before it becomes visible to them (the
 * pool's mempool ops initialise each object before enqueuing it), and the
 * pool's ring is sized for the largest size from the start. Growers are
 * serialised by a lock that gets and puts never take; a caller that finds
 * another one growing returns at once. What must not run while a pool grows
 * is what walks its object or chunk lists (rte_mempool_obj_iter(),
 * rte_mempool_mem_iter(), rte_mempool_dump(), rte_mempool_audit()).
 *
 * Differences from a fixed pool: mp->size is the largest size, so
 * rte_mempool_in_use_count() and rte_mempool_full() are wrong while the
 * pool is not fully populated; use sst_pool_in_use() and
 * sst_pool_populated(). A NIC driver that registers a pool's memory for DMA
 * when its queue is set up sees the chunks that exist then; create such
 * pools fully populated (initial = max).
 */
#ifndef SST_POOL_H
#define SST_POOL_H

#include <stdbool.h>
#include <stdint.h>

struct rte_mempool;

enum {
	SST_POOL_INITIAL = 256,	   /**< first chunk (mbufs) unless told otherwise */
	SST_POOL_CHUNK_MAX = 4096, /**< largest later chunk unless told otherwise */
};

/** How to create a growable pool. Fields left zero take the defaults shown. */
struct sst_pool_params {
	uint32_t size; /**< sizeof(struct sst_pool_params) */
	/** The mempool's name, unique in the process; its chunks are memzones
	 * named "MP_<name>_<k>", which must fit RTE_MEMZONE_NAMESIZE. */
	const char *name;
	uint32_t max;	     /**< most mbufs the pool will ever hold (mp->size); > 0 */
	uint32_t initial;    /**< mbufs of the first chunk; 0: min(max, SST_POOL_INITIAL) */
	uint32_t chunk_max;  /**< largest later chunk; 0: SST_POOL_CHUNK_MAX */
	uint32_t cache_size; /**< per-lcore cache, as rte_pktmbuf_pool_create() */
	uint16_t priv_size;  /**< application private area per mbuf (RTE_MBUF_PRIV_ALIGN) */
	uint16_t data_room;  /**< data room per mbuf, headroom included; 0: clones only */
	int socket_id;	     /**< NUMA socket of the memory, or SOCKET_ID_ANY */
};

/**
 * Create a pool and populate its first chunk. The mempool ops are the
 * mbuf library's best ops (rte_mbuf_best_mempool_ops(), normally
 * "ring_mp_mc") with object initialisation added to their populate step;
 * ops that populate by themselves are refused.
 *
 * @param p
 *   The parameters (size set); read during the call.
 * @return the pool (free it with rte_mempool_free()), or NULL with
 *   rte_errno set: EINVAL (bad parameters), ENOTSUP (the best ops populate
 *   by themselves), ENOSPC (the mempool ops table is full), ENAMETOOLONG,
 *   EEXIST (the name is taken), ENOMEM (no memory for the first chunk).
 */
struct rte_mempool *sst_pool_create(const struct sst_pool_params *p);

/**
 * Grow @p mp by one chunk if fewer than a quarter of its populated objects
 * are free (its ring, plus the calling lcore's cache), it is below its
 * largest size and no other thread is growing it. A chunk is as large as
 * what is populated (the pool doubles), at most chunk_max and what is left
 * to the largest size. After a failure the pool tries again only after
 * 4096 further calls that would have grown it, so that a process short of
 * memory does not retry on every pass. Cheap when there is nothing to do:
 * a few loads.
 *
 * @param mp
 *   Any mempool: one not made by sst_pool_create() is left alone.
 * @return
 *   The number of objects added, 0 when nothing was to be done (or
 *   another thread is growing the pool, or a failure is recent), or a
 *   negative errno: -ENOMEM (no EAL memory for the chunk: the EAL's -m is
 *   too small for the pool's largest size), -ENAMETOOLONG, -ENOSPC (too
 *   many memzones).
 */
int sst_pool_grow(struct rte_mempool *mp);

/**
 * True if @p mp was made by sst_pool_create().
 *
 * @param mp
 *   Any mempool.
 * @return
 *   True if sst_pool_grow() can grow it.
 */
bool sst_pool_growable(const struct rte_mempool *mp);

/**
 * Objects the pool holds so far (all of mp->size for any other mempool).
 *
 * @param mp
 *   A mempool; one not made by sst_pool_create() counts as fully populated.
 * @return
 *   The number of objects populated so far.
 */
uint32_t sst_pool_populated(const struct rte_mempool *mp);

/**
 * Objects allocated and not yet freed: populated minus available.
 *
 * @param mp
 *   A mempool; one not made by sst_pool_create() counts as fully populated.
 * @return
 *   Populated objects that are not in the pool's ring or the caches.
 */
uint32_t sst_pool_in_use(const struct rte_mempool *mp);

#endif /* SST_POOL_H */
