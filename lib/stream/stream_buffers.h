/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stream host's two buffer pools (stream_buffers.c): the per-direction
 * I/O state a stream holds while it sends (struct stream_txio) or receives
 * (struct stream_rxio). An object is large (a send queue or a reassembly
 * table: tens of kilobytes), so a pool made whole costs a page per object
 * the moment it exists; with sst_stream_host_params.initial_buffers a pool
 * starts with that many and grows between passes instead.
 *
 * Owns: the pools' memory chunks (each freed by rte_mempool_free() through
 * its callback). Calls: stream_life.h (waking streams that waited for a
 * send buffer once the pool grew). Growth never happens inside a packet's
 * processing: the host's timer (sst_stream_host_handle_expiry()) runs it,
 * which its driver calls between passes.
 */
#ifndef STREAM_BUFFERS_H
#define STREAM_BUFFERS_H

#include "stream_internal.h"

/* A pool of at most max objects of elt_size bytes with the first initial
 * of them made (initial >= max: all, with a per-lcore cache so that the
 * buffer freed last is reused first). NULL with rte_errno set on failure. */
struct rte_mempool *stream_buffers_create(
	const char *name, uint32_t max, size_t elt_size, uint32_t initial, int socket_id);

/* When the pools should grow next: 0 (now) when one has fewer than a
 * quarter of its buffers free or a stream waits for one, a second after a
 * failure to grow, SST_TIME_NEVER when neither needs to. */
sst_time_t stream_buffers_next_growth(const struct sst_stream_host *h);

/* Grow the pools that need it by one chunk each (doubling, at most 16 MB),
 * then wake streams that waited for a send buffer. A failure (no EAL
 * memory) is logged once and retried a second later. */
void stream_buffers_grow(struct sst_stream_host *h, sst_time_t now);

#endif /* STREAM_BUFFERS_H */
