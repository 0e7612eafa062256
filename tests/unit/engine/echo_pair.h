/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A client worker and an echo server worker in one test process: the
 * stream callbacks both sides run, and the phase in which the client sends
 * one request on a new stream of each of its channels and checks every
 * byte of the echo. The tests that use it (test_many_channels,
 * test_worker_local) differ in how their channels come up: many peer
 * endpoints behind a NAT-like link, or many local endpoints of one worker
 * over a port pair.
 */
#ifndef ECHO_PAIR_H
#define ECHO_PAIR_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "sst_link.h"
#include "sst_stream.h"
#include "sst_worker.h"

/* One side. The client's arrays (by channel index) are the caller's. */
struct echo_side {
	struct sst_link *link;
	struct sst_worker *w;
	bool server;
	uint32_t request;		/**< bytes of each request (and of its echo) */
	struct sst_stream_peer **peers; /**< client: the peer of channel i */
	uint32_t *echoed;		/**< client: echo bytes checked on channel i */
	uint32_t bad;			/**< client: wrong or missing echo bytes */
	uint32_t failed;		/**< connects that failed (worker ops) */
	uint32_t done;			/**< client: echoes complete */
	uint32_t strays;		/**< peers the test did not ask for */
	uint64_t no_buffer;		/**< stream connects that found no send buffer (retried) */
};

/* Stream callbacks for both sides; the worker's stream.ctx is the side. */
extern const struct sst_stream_ops echo_stream_ops;

/* Byte off of channel i's request: each channel's own, so an echo that
 * comes back on another channel's stream fails the check. */
uint8_t echo_pattern(uint32_t i, uint32_t off);

/* sst_worker_ops.connect_failed: counts in the side (ctx). */
void echo_connect_failed(void *ctx, const struct sst_net_endpoint *ep, int err);

/* One poll of each worker at the engine's current time. */
void echo_poll(struct echo_side *server, struct echo_side *client);

/*
 * A request on a new stream of each of the client's n channels (those
 * with a peer), at most wave under way at once, polling both workers
 * until every echo is checked or the deadline (engine time) passes.
 * Returns the number of channels that had no peer to ask.
 */
uint32_t echo_streams(struct echo_side *server, struct echo_side *client, uint32_t n, uint32_t wave,
	struct rte_mempool *pool, sst_time_t deadline);

#endif /* ECHO_PAIR_H */
