/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stream host (sst_stream_host): its limits and defaults, the array of
 * control blocks, the two buffer pools, and its timer (the idle sweep).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mempool.h>

#include "sst_log.h"
#include "stream_buffers.h"
#include "stream_host.h"
#include "stream_life.h"
#include "stream_service.h"

/* The stream layer's log type (control events only: the data path counts). */
RTE_LOG_REGISTER(sst_logtype_stream, sst.stream, NOTICE);
#define HOST_LOG(level, fmt, ...) \
	SST_LOG(level, sst_logtype_stream, "sst.stream", fmt, ##__VA_ARGS__)

static const struct stream_upcalls stream_host_upcalls = {
	.service_rx = stream_service_rx,
	.service_accept = stream_service_accept,
};

static void
host_defaults(struct sst_stream_host_params *p)
{
	if (p->max_streams == 0)
		p->max_streams = 65536;
	if (p->max_tx_buffers == 0)
		p->max_tx_buffers = 4096;
	if (p->max_rx_buffers == 0)
		p->max_rx_buffers = 4096;
	if (p->initial_buffers == 0)
		p->initial_buffers = UINT32_MAX;
	if (p->max_sids == 0)
		p->max_sids = 16384;
	/* Enough for one stream to fill 1 Gbit/s x 100 ms (12.5 MB in
	 * flight, docs/stream.md "Buffers"); each grows with use. */
	if (p->send_buffer == 0)
		p->send_buffer = 1 << 20;
	if (p->send_mbufs == 0)
		p->send_mbufs = 32768;
	if (p->rx_window_min == 0)
		p->rx_window_min = 65536;
	if (p->rx_window_max == 0)
		p->rx_window_max = 32 << 20;
	if (p->rx_pieces == 0)
		p->rx_pieces = 32768;
	if (p->peer_usids == 0)
		p->peer_usids = p->max_streams;
	if (p->peer_max_streams == 0)
		p->peer_max_streams = RTE_MAX(p->max_streams / 4, 1u);
	if (p->peer_max_tx_buffers == 0)
		p->peer_max_tx_buffers = RTE_MAX(p->max_tx_buffers / 4, 1u);
	if (p->peer_max_rx_buffers == 0)
		p->peer_max_rx_buffers = RTE_MAX(p->max_rx_buffers / 4, 1u);
	if (p->name == NULL)
		p->name = "sst";
	if (p->mem == NULL)
		p->mem = &sst_mem_rte;
}

struct sst_stream_host *
sst_stream_host_create(const struct sst_stream_host_params *params)
{
	struct sst_stream_host *h;
	char name[RTE_MEMPOOL_NAMESIZE];
	size_t txio, rxio;
	int err;

	if (params == NULL || params->pool == NULL || params->clone_pool == NULL) {
		HOST_LOG(ERR, "%s",
			params == NULL	       ? "host params are required"
			: params->pool == NULL ? "params.pool is required: header and control mbufs"
					       : "params.clone_pool is required: indirect mbufs "
						 "(the engine makes one; a worker or host of the "
						 "caller's needs the caller's)");
		rte_errno = EINVAL;
		return NULL;
	}
	h = rte_zmalloc_socket(
		"sst_stream_host", sizeof(*h), RTE_CACHE_LINE_SIZE, params->socket_id);
	if (h == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	h->p = *params;
	h->up = &stream_host_upcalls;
	host_defaults(&h->p);
	h->rx_data_flags = h->p.prototype_reader ? ~(uint32_t)SST_FLAG_CLOSE : UINT32_MAX;
	if (h->p.rx_window_max < h->p.rx_window_min || h->p.rx_window_max > SST_FLOWCTL_BUF_MAX ||
		h->p.rx_window_min < 2 * SST_SEGMENT_MAX || h->p.max_sids > 16384) {
		HOST_LOG(ERR,
			"params.rx_window_min (%u), rx_window_max (%u) or max_sids (%u) "
			"out of range (sst_stream_host_params)",
			h->p.rx_window_min, h->p.rx_window_max, h->p.max_sids);
		err = EINVAL;
		goto fail;
	}
	/* A segment acked or lost in the middle adds at most two ranges. The
	 * buffer holds the tables for the first STREAM_TXIO_MBUFS mbufs; a
	 * stream that holds more grows them on the heap (stream_life.c). */
	h->txio_mbufs = RTE_MIN(h->p.send_mbufs, (uint32_t)STREAM_TXIO_MBUFS);
	h->txio_ranges = 2 * h->txio_mbufs + 2;
	txio = offsetof(struct stream_txio, q) + sst_sendq_size(h->txio_mbufs, h->txio_ranges);
	h->rxio_pieces = RTE_MIN(h->p.rx_pieces, (uint32_t)STREAM_RXIO_PIECES);
	rxio = offsetof(struct stream_rxio, rob) + sst_rob_size(h->rxio_pieces);
	if (sst_sendq_size(h->txio_mbufs, h->txio_ranges) == 0 ||
		sst_rob_size(h->rxio_pieces) == 0 || sst_rob_size(h->p.rx_pieces) == 0) {
		err = EINVAL;
		goto fail;
	}
	h->tx_waiters_cap = h->p.max_streams;
	h->tx_waiters = rte_zmalloc_socket("sst_tx_waiters",
		h->tx_waiters_cap * sizeof(*h->tx_waiters), RTE_CACHE_LINE_SIZE, h->p.socket_id);
	h->rx_owners = rte_zmalloc_socket("sst_rx_owners",
		(size_t)h->p.max_rx_buffers * sizeof(*h->rx_owners), RTE_CACHE_LINE_SIZE,
		h->p.socket_id);
	if (h->tx_waiters == NULL || h->rx_owners == NULL) {
		err = ENOMEM;
		goto fail;
	}
	/* Control blocks come from a plain array: a mempool would add a
	 * header and cache-line padding to every 96-byte block. */
	h->slab = rte_zmalloc_socket("sst_streams",
		(size_t)h->p.max_streams * sizeof(struct sst_stream), RTE_CACHE_LINE_SIZE,
		h->p.socket_id);
	/* One link per control block for each kind of channel queue
	 * (stream_fifo.h): 8 bytes per stream here instead of 16 bytes per
	 * stream in every channel. */
	h->ctl_next =
		rte_zmalloc_socket("sst_links", (size_t)2 * h->p.max_streams * sizeof(*h->ctl_next),
			RTE_CACHE_LINE_SIZE, h->p.socket_id);
	if (h->ctl_next != NULL)
		h->sidw_next = h->ctl_next + h->p.max_streams;
	snprintf(name, sizeof(name), "%s_stx", h->p.name);
	h->txios = stream_buffers_create(
		name, h->p.max_tx_buffers, txio, h->p.initial_buffers, h->p.socket_id);
	snprintf(name, sizeof(name), "%s_srx", h->p.name);
	h->rxios = stream_buffers_create(
		name, h->p.max_rx_buffers, rxio, h->p.initial_buffers, h->p.socket_id);
	if (h->slab == NULL || h->ctl_next == NULL || h->txios == NULL || h->rxios == NULL) {
		err = h->slab == NULL || h->ctl_next == NULL ? ENOMEM : rte_errno;
		goto fail;
	}
	return h;

fail:
	/* Whatever was allocated (the rest is still NULL) goes back. */
	sst_stream_host_destroy(h);
	rte_errno = err;
	return NULL;
}

void
sst_stream_host_destroy(struct sst_stream_host *h)
{
	if (h == NULL)
		return;
	stream_peer_gone_fini(h);
	rte_free(h->ctl_next);
	rte_free(h->slab);
	rte_mempool_free(h->txios);
	rte_mempool_free(h->rxios);
	rte_free(h->tx_waiters);
	rte_free(h->rx_owners);
	rte_free(h);
}

const struct sst_stream_host_params *
sst_stream_host_params(const struct sst_stream_host *h)
{
	return &h->p;
}

const struct sst_stream_host_stats *
sst_stream_host_stats(struct sst_stream_host *h)
{
	h->stats.streams_live = h->slab_used;
	h->stats.tx_buffers_live = h->txios_used;
	h->stats.rx_buffers_live = h->rxios_used;
	h->stats.tx_buffers_made = h->txios->populated_size;
	h->stats.rx_buffers_made = h->rxios->populated_size;
	return &h->stats;
}

sst_time_t
sst_stream_host_next_expiry(const struct sst_stream_host *h)
{
	/* Streams ended outside any channel's work (their peer's last channel
	 * went, as when it is declared dead) are freed here. */
	if (h->reap != NULL)
		return 0;
	return sst_time_min(
		stream_buffers_next_growth(h), h->rxios_used > 0 ? h->sweep_next : SST_TIME_NEVER);
}

void
sst_stream_host_handle_expiry(struct sst_stream_host *h, sst_time_t now)
{
	stream_reap(h, now);
	if (stream_buffers_next_growth(h) <= now)
		stream_buffers_grow(h, now);
	if (h->rxios_used > 0 && h->sweep_next <= now)
		stream_idle_sweep(h, now);
}
