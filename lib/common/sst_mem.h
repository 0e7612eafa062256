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
	 */
	void (*release)(void *ctx, void *p);
	void *ctx; /**< passed to zalloc and release */
};

/** rte_zmalloc() (cache-line aligned) and rte_free(): what the libraries use. */
extern const struct sst_mem_ops sst_mem_rte;

#endif /* SST_MEM_H */
