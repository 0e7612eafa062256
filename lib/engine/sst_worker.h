/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A worker: one thread's share of the engine (issue 6), so far for one
 * datagram link (udpsock). It owns the link, a negotiation host, a stream
 * host, the peers it talks to (by endpoint) and their channels (by the
 * channel number we gave them, byte 0 of what they send us), and runs the
 * loop every worker runs: receive a burst, hand control packets to
 * negotiation and channel packets to their channel, run the timers, flush.
 *
 * The worker reads no clock either: the caller passes the time to
 * sst_worker_poll() (the engine's lcore loop, or a test), and
 * sst_worker_next_expiry() says when it must be called at the latest.
 */
#ifndef SST_WORKER_H
#define SST_WORKER_H

#include <stdint.h>

#include "sst_link.h"
#include "sst_negotiation.h"
#include "sst_stream.h"

struct sst_worker;

/** Application callbacks of the worker (besides the stream layer's). */
struct sst_worker_ops {
	/** A channel to a peer is up (ours or theirs): streams may be opened. */
	void (*peer_ready)(
		void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep);
	/** An attempt from sst_worker_connect() failed (negative errno). */
	void (*connect_failed)(void *ctx, const struct sst_net_endpoint *ep, int err);
};

/** How to create a worker. Fields left zero take the defaults shown. */
struct sst_worker_params {
	uint32_t size;		  /**< sizeof(struct sst_worker_params) */
	struct sst_link *link;	  /**< a datagram link; the worker does not close it */
	struct rte_mempool *pool; /**< headers, control packets, armor output */
	/** The negotiation host's parameters; ops and ctx are the worker's. */
	struct sst_nego_host_params nego;
	/** The stream host's parameters (pools filled in: pool, clone_pool). */
	struct sst_stream_host_params stream;
	const char *cc;	    /**< congestion controller; NULL: newreno */
	uint32_t max_peers; /**< 0: 64 */
	/** A channel no stream has used for this long is closed (FINISH, no
	 * TIME_WAIT); 0: 60 s; SST_TIME_NEVER: never. */
	sst_time_t idle_timeout;
	const struct sst_worker_ops *ops;
	void *ctx;
};

/** Counters. */
struct sst_worker_stats {
	uint64_t rx_packets;
	uint64_t rx_control;	/**< to negotiation */
	uint64_t rx_channel;	/**< to a channel */
	uint64_t rx_no_channel; /**< byte 0 names no channel of that peer: dropped */
	uint64_t channels_open; /**< now */
	uint64_t channels_made;
	uint64_t channels_closed;
	uint64_t channels_idle; /**< closing offered after idle_timeout */
	uint64_t path_changes;	/**< a peer's packets came from a new endpoint */
	uint64_t peers_full;	/**< a channel refused: the peer table is full */
};

/** Create a worker (at setup). @return NULL with rte_errno set. */
struct sst_worker *sst_worker_create(const struct sst_worker_params *p);

/** Destroy a worker: its channels, peers, stream and negotiation hosts. */
void sst_worker_destroy(struct sst_worker *w);

/** Start a channel to ep (negotiation mode from the worker's nego params:
 * secure when a secure configuration is given). @return 0 or negative errno. */
int sst_worker_connect(struct sst_worker *w, const struct sst_net_endpoint *ep,
	enum sst_nego_mode mode, sst_time_t now);

/** One pass of the worker loop. */
void sst_worker_poll(struct sst_worker *w, sst_time_t now);

/** When sst_worker_poll() must run again at the latest (packets aside). */
sst_time_t sst_worker_next_expiry(const struct sst_worker *w);

/** The stream host (for sst_stream_listen() and statistics). */
struct sst_stream_host *sst_worker_stream_host(struct sst_worker *w);

/** The peer at ep, or NULL. */
struct sst_stream_peer *sst_worker_peer(struct sst_worker *w, const struct sst_net_endpoint *ep);

const struct sst_worker_stats *sst_worker_stats(const struct sst_worker *w);

enum { SST_WORKERS_MAX = 64 };

/** The worker's id in telemetry (/sst/worker,<id>), or a negative errno. */
int sst_worker_id(const struct sst_worker *w);

struct rte_tel_data;

/** The /sst/worker telemetry command (params: the worker id), for tests
 * and for applications that serve telemetry their own way. */
int sst_worker_telemetry(const char *cmd, const char *params, struct rte_tel_data *d);

#endif /* SST_WORKER_H */
