/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The deterministic network simulator: sans-IO protocol endpoints ("hosts")
 * joined by impaired links (drivers/link/simlink), run in virtual time.
 *
 * Time only moves when the simulator takes the next event from its queue:
 * a link direction with packets due, a host's timer (its next_expiry), or a
 * callback a test scheduled. Events due at the same time run in the order
 * they were scheduled. Every link direction draws from its own random
 * streams, seeded from the simulation seed, so a run is a function of the
 * seed and the scenario only: a failure replays exactly with the same seed
 * (SST_SIM_SEED, see sim_seed_from_env()). docs/simulator.md has the details
 * and an example.
 *
 * A host is abstract: three callbacks and a context pointer. It sends with
 * sim_host_tx(), which has the shape of a sim_tx_fn so that an endpoint
 * adapter can keep a (function, context) pair and never include this header.
 */
#ifndef SIM_H
#define SIM_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "sst_simlink.h"
#include "sst_time.h"

/** Ports per host. */
#define SIM_MAX_PORTS 16

/** Packets a link direction hands to its receiver per delivery event. */
#define SIM_BURST 32

/** Default of sim_config::max_events_per_instant. */
#define SIM_DEFAULT_MAX_EVENTS_PER_INSTANT UINT64_C(1000000)

struct sim;
struct sim_host;
struct sim_link;

/**
 * How an endpoint sends a packet out of one of its ports. The function always
 * takes the mbuf. Returns 0, or -ENOTCONN if the port has no link (the packet
 * is freed and counted). A packet lost by the link is not reported: the
 * network does not tell.
 */
typedef int (*sim_tx_fn)(void *tx_ctx, uint16_t port, struct rte_mbuf *m);

/** An endpoint: the callbacks the simulator calls. */
struct sim_host_ops {
	/** A packet arrived on port at now; the endpoint now owns m. Required. */
	void (*receive)(void *ctx, struct rte_mbuf *m, uint16_t port, sst_time_t now);
	/** When the endpoint wants handle_expiry(); SST_TIME_NEVER for never.
	 *  NULL: the endpoint has no timers. */
	sst_time_t (*next_expiry)(void *ctx);
	/** Called when the time next_expiry() gave comes. Required if
	 *  next_expiry is set. */
	void (*handle_expiry)(void *ctx, sst_time_t now);
};

/** Kinds of trace events. */
enum sim_trace_kind {
	SIM_TRACE_SENT,	     /**< a host gave a packet to a link */
	SIM_TRACE_DELIVERED, /**< a link gave a packet to a host */
	SIM_TRACE_DROPPED,   /**< a link dropped a packet (reason says why) */
	SIM_TRACE_TIMER,     /**< a host's handle_expiry() is called */
};

/** One traced event. Valid only during the trace callback. */
struct sim_trace_event {
	sst_time_t time;
	enum sim_trace_kind kind;
	/** Why a packet was dropped (SIM_TRACE_DROPPED only). */
	enum sst_simlink_verdict reason;
	/** Sending host and port (the timer's host for SIM_TRACE_TIMER). */
	const struct sim_host *from;
	uint16_t from_port;
	/** Receiving host and port (NULL for SIM_TRACE_TIMER). */
	const struct sim_host *to;
	uint16_t to_port;
	/** The packet (NULL for SIM_TRACE_TIMER); read it, never keep it. */
	const struct rte_mbuf *m;
};

/** Trace callback. It must not call back into the simulator. */
typedef void (*sim_trace_fn)(void *arg, const struct sim_trace_event *ev);

/** Simulation settings. */
struct sim_config {
	/** Seed of the whole run; link seeds derive from it. */
	uint64_t seed;
	/** Virtual time at which the run starts. */
	sst_time_t start_time;
	/** Events at one virtual instant after which the run stops with
	 *  -ELOOP (a livelock: e.g. a timer re-armed for "now" forever);
	 *  0: SIM_DEFAULT_MAX_EVENTS_PER_INSTANT. */
	uint64_t max_events_per_instant;
	/** Optional trace callback and its argument. */
	sim_trace_fn trace;
	void *trace_arg;
};

/** Counters of a run. */
struct sim_stats {
	uint64_t events;	    /**< events processed (stale ones not counted) */
	uint64_t stale;		    /**< superseded events skipped */
	uint64_t packets_sent;	    /**< packets given to links */
	uint64_t packets_delivered; /**< packets given to hosts */
	uint64_t packets_dropped;   /**< packets dropped by links */
	uint64_t unrouted;	    /**< packets sent out of a port without a link */
	uint64_t timers;	    /**< handle_expiry() calls */
	uint64_t callbacks;	    /**< sim_schedule() callbacks run */
};

/**
 * Create a simulation.
 *
 * @param cfg
 *   Settings (copied); NULL: seed 0, start at 0, no trace.
 * @return
 *   The simulation, or NULL if out of memory.
 */
struct sim *sim_create(const struct sim_config *cfg);

/**
 * Destroy a simulation: every packet still on a link is freed. Hosts'
 * contexts are the caller's.
 *
 * @param sim
 *   The simulation, or NULL.
 */
void sim_destroy(struct sim *sim);

/**
 * Add a host.
 *
 * @param sim
 *   The simulation.
 * @param name
 *   Name for traces (copied, truncated to 31 characters).
 * @param ops
 *   Callbacks (the pointer is kept: static storage).
 * @param ctx
 *   Passed to every callback.
 * @return
 *   The host, or NULL if ops lacks receive (or handle_expiry while it has
 *   next_expiry) or memory is short.
 */
struct sim_host *sim_host_add(
	struct sim *sim, const char *name, const struct sim_host_ops *ops, void *ctx);

/**
 * Send a packet out of a host's port at the current virtual time; a sim_tx_fn
 * with tx_ctx = the struct sim_host *. Callable from the host's callbacks
 * and from test code between runs.
 *
 * @return
 *   0 (the link took the packet or dropped it: either way it is consumed),
 *   -ENOTCONN if the port has no link, -EINVAL if the port is out of range
 *   (the packet is freed in both cases).
 */
int sim_host_tx(void *host, uint16_t port, struct rte_mbuf *m);

/**
 * Tell the simulator that a host's next_expiry() may have changed because of
 * something done outside the simulator's callbacks (the run functions also
 * re-query every host when they start and after every scheduled callback).
 */
void sim_host_kick(struct sim_host *host);

/** Name of a host. */
const char *sim_host_name(const struct sim_host *host);

/** Index of a host, in the order of sim_host_add(), from 0. */
unsigned int sim_host_index(const struct sim_host *host);

/**
 * Connect port pa of host a and port pb of host b with a link: one simlink
 * per direction. Each direction's seed is derived from the simulation seed,
 * the link's index and the direction, mixed with the seed in its parameters.
 *
 * @param ab
 *   Parameters of the direction a -> b.
 * @param ba
 *   Parameters of the direction b -> a; NULL: the same as ab.
 * @return
 *   The link, or NULL (a port out of range or already connected, bad
 *   parameters, out of memory).
 */
struct sim_link *sim_connect(struct sim *sim, struct sim_host *a, uint16_t pa, struct sim_host *b,
	uint16_t pb, const struct sst_simlink_params *ab, const struct sst_simlink_params *ba);

/**
 * One direction of a link, to read its counters or change its parameters
 * (sst_simlink_set_params()) during a run.
 *
 * @param dir
 *   0: a -> b; 1: b -> a.
 */
struct sst_simlink *sim_link_dir(struct sim_link *link, int dir);

/**
 * Run fn(arg, now) at virtual time at (or now, if at is in the past). After it
 * returns, every host's next_expiry() is queried again.
 *
 * @return
 *   0, or -ENOMEM.
 */
int sim_schedule(struct sim *sim, sst_time_t at, void (*fn)(void *arg, sst_time_t now), void *arg);

/**
 * Process the next event.
 *
 * @return
 *   1 if an event was processed, 0 if none is left, -ELOOP on a livelock,
 *   -ENOMEM.
 */
int sim_step(struct sim *sim);

/**
 * Process every event due at or before t, then set the clock to t.
 *
 * @return
 *   0, -ELOOP or -ENOMEM.
 */
int sim_run_until(struct sim *sim, sst_time_t t);

/**
 * Process events while pred(arg) is true (checked before each event).
 *
 * @param deadline
 *   Virtual time not to go past.
 * @return
 *   0 when pred became false; -ETIMEDOUT if the next event is after deadline
 *   (the clock is then set to deadline); -ENOENT if no event is left (nothing
 *   will ever change); -ELOOP or -ENOMEM.
 */
int sim_run_while(struct sim *sim, bool (*pred)(void *arg), void *arg, sst_time_t deadline);

/** Current virtual time. */
sst_time_t sim_now(const struct sim *sim);

/** Seed of the run. */
uint64_t sim_seed(const struct sim *sim);

/** Read the run's counters. */
void sim_stats_get(const struct sim *sim, struct sim_stats *stats);

/** Replace the trace callback (NULL: none). */
void sim_set_trace(struct sim *sim, sim_trace_fn fn, void *arg);

/**
 * The seed a test should use: SST_SIM_SEED from the environment (decimal or
 * 0x-prefixed hex) if set, otherwise dflt. A test prints the seed it used when
 * it fails, and replays the failure with SST_SIM_SEED=<seed>.
 */
uint64_t sim_seed_from_env(uint64_t dflt);

/**
 * Fold one trace event into a running digest (FNV-1a 64 over the time, kind,
 * reason, host indexes, ports and packet bytes). Two runs with identical
 * traces have equal digests. Start from SIM_DIGEST_INIT.
 */
uint64_t sim_trace_digest(uint64_t digest, const struct sim_trace_event *ev);

/** Initial value of a trace digest (the FNV-1a 64 offset basis). */
#define SIM_DIGEST_INIT UINT64_C(0xcbf29ce484222325)

#endif /* SIM_H */
