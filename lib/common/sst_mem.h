/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Where tables that grow with use get their memory (issue 14: memory in
 * proportion to use). A channel's SID spaces and transmit log start small
 * and double as streams attach and packets fly; they allocate through these
 * ops rather than calling rte_malloc themselves, so that the modules stay
 * testable without an EAL and a test can make any growth fail.
 */
#ifndef SST_MEM_H
#define SST_MEM_H

#include <stddef.h>
#include <stdint.h>

/** An allocator for growable tables. */
struct sst_mem_ops {
	/** Zeroed memory of @p size bytes, cache-line aligned; NULL on failure.
	 * @param ctx The allocator's context (the table's owner passes it).
	 * @param size Bytes wanted.
	 * @return The memory, or NULL.
	 */
	void *(*zalloc)(void *ctx, size_t size);
	/** Release what zalloc returned (NULL is ignored).
	 * @param ctx The allocator's context.
	 * @param p What zalloc returned, or NULL.
	 * @param size The size zalloc was asked for (a cache finds the
	 *   object's class by it, sst_mem_cache).
	 */
	void (*release)(void *ctx, void *p, size_t size);
	void *ctx; /**< passed to zalloc and release */
};

/** rte_zmalloc() (cache-line aligned) and rte_free(): what the libraries use. */
extern const struct sst_mem_ops sst_mem_rte;

/** Size classes of a cache: 64 to 256 bytes by 64, then four a doubling. */
#define SST_MEM_CACHE_CLASSES 48
/** The largest object a cache keeps (bytes); larger ones go to its backing. */
#define SST_MEM_CACHE_MAX (512u * 1024)

/** What a cache holds and has done. */
struct sst_mem_cache_stats {
	uint64_t in_use_bytes;	 /**< class sizes of the objects handed out and not released */
	uint64_t reserved_bytes; /**< taken from the backing allocator and kept */
	uint64_t allocs;	 /**< objects handed out */
	uint64_t releases;	 /**< objects released */
	uint64_t chunks;	 /**< chunks taken from the backing allocator */
	uint64_t large;		 /**< objects over SST_MEM_CACHE_MAX passed to the backing */
	uint64_t failures;	 /**< allocations the backing refused */
};

/**
 * Memory for the objects that come and go with channels and peers (issue
 * 21). The DPDK heap keeps its free memory on lists that it walks first
 * fit: with tens of thousands of channels, each made and freed in pieces,
 * the walk took most of a server's and a generator's time at every new
 * channel. A cache takes chunks of 64 KiB or more from its backing
 * allocator, never gives them back before sst_mem_cache_fini(), cuts them
 * into objects of one size class each and keeps released objects on a
 * list per class: an allocation is a pop or a bump, a release a push.
 * Classes step by a quarter of a doubling, so an object wastes at most a
 * fifth of its size. Memory a class holds stays with it (the peak of each
 * class stays reserved), which is the price of O(1).
 *
 * One owner: not thread-safe (a worker's cache is used on its lcore only).
 * Released objects are not poisoned in release builds (debug builds fill
 * them with 0x5a so that a use after release reads garbage at once).
 */
struct sst_mem_cache {
	struct sst_mem_ops ops; /**< zalloc/release through this cache (sst_mem_cache_ops()) */
	const struct sst_mem_ops *backing; /**< where chunks and large objects come from */
	void *free[SST_MEM_CACHE_CLASSES]; /**< released objects, linked through their first word */
	uint8_t *bump[SST_MEM_CACHE_CLASSES];	  /**< the class's current chunk: next object */
	uint8_t *bump_end[SST_MEM_CACHE_CLASSES]; /**< the class's current chunk: its end */
	void *chunks;				  /**< every chunk, linked through its header */
	struct sst_mem_cache_stats stats;	  /**< what the cache holds and has done */
};

/**
 * Start an empty cache.
 * @param mc The cache (the owner's memory).
 * @param backing Where chunks and large objects come from (&sst_mem_rte in
 *   the engine; the tests' counting allocator in unit tests).
 */
void sst_mem_cache_init(struct sst_mem_cache *mc, const struct sst_mem_ops *backing);

/**
 * Give every chunk back to the backing allocator. Objects still handed out
 * become invalid (their owner must be gone); large objects not released
 * are not tracked and stay with the backing.
 * @param mc An initialised cache, or one that was already finished.
 */
void sst_mem_cache_fini(struct sst_mem_cache *mc);

/** The ops that allocate through a cache.
 * @param mc An initialised cache.
 * @return Its ops (their ctx is the cache), valid as long as the cache. */
static inline const struct sst_mem_ops *
sst_mem_cache_ops(const struct sst_mem_cache *mc)
{
	return &mc->ops;
}

/** The bytes an object takes in a cache, for reports of memory per object.
 * @param size The size asked for.
 * @return The size of its class, or @p size itself over SST_MEM_CACHE_MAX. */
size_t sst_mem_cache_class_size(size_t size);

#endif /* SST_MEM_H */
