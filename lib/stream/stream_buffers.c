/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Growable buffer pools of the stream host (stream_buffers.h). Each is an
 * ordinary single-producer single-consumer mempool made with its largest
 * size, whose objects come in chunks of heap memory: a chunk is populated
 * (rte_mempool_populate_iova()) when the host's timer finds the pool short.
 * The objects are never given to a device, so they need not be contiguous
 * in IO space, which lets a 90 KB object span pages without hugepages.
 */
#include <errno.h>

#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mempool.h>

#include "sst_log.h"
#include "stream_buffers.h"
#include "stream_life.h"

#define STREAM_LOG(level, fmt, ...) \
	SST_LOG(level, sst_logtype_stream, "sst.stream", fmt, ##__VA_ARGS__)

/* Chunks stay small enough for a heap of modest EAL memory to find room. */
#define STREAM_BUFFERS_CHUNK_BYTES (16u << 20)
/* After a failure to grow, the next try comes this much later. */
#define STREAM_BUFFERS_RETRY_NS (1000u * 1000u * 1000u)

static void
chunk_free(struct rte_mempool_memhdr *memhdr, void *opaque)
{
	RTE_SET_USED(memhdr);
	rte_free(opaque);
}

/* Objects in the largest chunk: at least one. */
static uint32_t
chunk_objects(const struct rte_mempool *mp)
{
	size_t obj = (size_t)mp->header_size + mp->elt_size + mp->trailer_size;

	return (uint32_t)RTE_MAX(STREAM_BUFFERS_CHUNK_BYTES / obj, (size_t)1);
}

/* Add up to n objects to mp from one new chunk. @return objects added, or a
 * negative errno. */
static int
add_chunk(struct rte_mempool *mp, uint32_t n)
{
	size_t obj = (size_t)mp->header_size + mp->elt_size + mp->trailer_size;
	size_t len = obj * n;
	void *mem = rte_malloc_socket(mp->name, len, RTE_CACHE_LINE_SIZE, mp->socket_id);
	int rc;

	if (mem == NULL)
		return -ENOMEM;
	rc = rte_mempool_populate_iova(mp, mem, RTE_BAD_IOVA, len, chunk_free, mem);
	if (rc <= 0) {
		rte_free(mem);
		return rc < 0 ? rc : -ENOSPC;
	}
	return rc;
}

struct rte_mempool *
stream_buffers_create(
	const char *name, uint32_t max, size_t elt_size, uint32_t initial, int socket_id)
{
	bool whole = initial >= max;
	/* A cache hands out the buffer freed last first: a pool made whole
	 * then touches only the buffers in use, not all in turn (its ring is
	 * FIFO). A growing pool is small anyway, and a cache would cost a
	 * megabyte of per-lcore arrays written at creation. */
	unsigned int cache = whole ? RTE_MIN(64u, max * 2 / 3) : 0;
	struct rte_mempool *mp;
	int rc;

	mp = rte_mempool_create_empty(name, max, (unsigned int)elt_size, cache, 0, socket_id,
		RTE_MEMPOOL_F_SP_PUT | RTE_MEMPOOL_F_SC_GET | RTE_MEMPOOL_F_NO_IOVA_CONTIG);
	if (mp == NULL)
		return NULL;
	rc = rte_mempool_set_ops_byname(mp, "ring_sp_sc", NULL);
	initial = whole ? max : RTE_MAX(initial, 1u);
	while (rc >= 0 && mp->populated_size < initial)
		rc = add_chunk(mp, RTE_MIN(initial - mp->populated_size, chunk_objects(mp)));
	if (rc < 0) {
		rte_mempool_free(mp);
		rte_errno = -rc;
		return NULL;
	}
	return mp;
}

/* The host's own count of the objects it took (every get and put of these
 * pools is the host's, on its thread) rather than rte_mempool_avail_count(),
 * a call into the pool's ops that the flush made twice for every stream. */
static bool
pool_short(const struct rte_mempool *mp, uint32_t used, bool waiting)
{
	if (mp->populated_size >= mp->size)
		return false;
	return waiting || (mp->populated_size - used) * 4 < mp->populated_size;
}

static bool
txios_short(const struct sst_stream_host *h)
{
	return pool_short(h->txios, h->txios_used, h->tx_waiting > 0);
}

static bool
rxios_short(const struct sst_stream_host *h)
{
	return pool_short(h->rxios, h->rxios_used, h->rx_short);
}

sst_time_t
stream_buffers_next_growth(const struct sst_stream_host *h)
{
	if (txios_short(h) || rxios_short(h))
		return h->buffers_retry_at;
	return SST_TIME_NEVER;
}

static int
grow(struct rte_mempool *mp)
{
	uint32_t n = RTE_MIN(mp->populated_size, mp->size - mp->populated_size);

	return add_chunk(mp, RTE_MAX(RTE_MIN(n, chunk_objects(mp)), 1u));
}

void
stream_buffers_grow(struct sst_stream_host *h, sst_time_t now)
{
	int rc = 0;

	if (txios_short(h))
		rc = grow(h->txios);
	if (rc >= 0 && rxios_short(h)) {
		rc = grow(h->rxios);
		h->rx_short = rc < 0;
	}
	if (rc >= 0) {
		h->buffers_retry_at = 0;
	} else {
		if (h->buffers_retry_at == 0)
			STREAM_LOG(WARNING,
				"%s: stream buffer pools cannot grow: %s (EAL memory too small for "
				"max_tx_buffers/max_rx_buffers?)",
				h->p.name, rte_strerror(-rc));
		h->buffers_retry_at = now + STREAM_BUFFERS_RETRY_NS;
	}
	if (h->tx_waiting > 0)
		stream_tx_buffer_freed(h, now);
}
