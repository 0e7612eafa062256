/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The engine: a set of workers (sst_worker.h) sharing one local UDP port,
 * each owning a shard of the channels, on a link of its own: a queue of a
 * DPDK port (ethdev, frames through lib/net) or a kernel UDP socket
 * (udpsock, SO_REUSEPORT). Packets that reach the wrong worker take one
 * software dispatch step to their owner through its inbox ring
 * (docs/engine.md, "Sharding").
 *
 * Two ways to run it:
 * - sst_engine_launch(): one EAL worker lcore per worker, each busy-polling
 *   its worker until sst_engine_stop();
 * - the application's own threads: sst_engine_worker_loop() on an lcore of
 *   its choice, or sst_engine_poll() of every worker in turn from one
 *   thread (tests, the tools' loopback mode).
 *
 * Applications use it embedded (callbacks on the worker's thread:
 * params.stream.ops and params.ops, whose app_poll runs every pass) or
 * through rings (sst_ring.h) from threads of their own.
 */
#ifndef SST_ENGINE_H
#define SST_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "sst_worker.h"

struct sst_engine;

/** sst_engine_params.mbuf_cache: pools without a per-lcore cache. */
#define SST_ENGINE_NO_CACHE UINT32_MAX

/** The sizes sst_engine_params_default() gives: an engine of one worker
 * with them fits the EAL's default memory under --no-huge (64 MB) with
 * room to spare for the application's own pools. */
enum {
	SST_ENGINE_DEFAULT_MBUFS = 4095,	/**< params.mbufs, per worker */
	SST_ENGINE_DEFAULT_INBOX = 1024,	/**< params.inbox_size */
	SST_ENGINE_DEFAULT_STREAMS = 1024,	/**< params.stream.max_streams */
	SST_ENGINE_DEFAULT_STREAM_BUFFERS = 64, /**< stream.max_tx_buffers, max_rx_buffers */
};

/**
 * How to create an engine. Fields left zero take the defaults shown;
 * sst_engine_params_default() gives a smaller, working set. Only size is
 * required. Pointers in it (driver_confs, ring, the stream and
 * negotiation parameters' pools and configurations) are borrowed: they
 * must outlive the engine.
 */
struct sst_engine_params {
	uint32_t size;	  /**< sizeof(struct sst_engine_params) */
	uint16_t workers; /**< 1..SST_WORKERS_MAX; 0: 1 */
	/** Link driver of every worker: "udpsock" (NULL), "ethdev", or any
	 * registered driver. */
	const char *driver;
	/** driver_confs[i] is worker i's driver_conf (ethdev: its port and
	 * queue i; see the driver); they must outlive the engine. */
	const void *const *driver_confs;
	/** The caller set up the links' device (sst_link_device_setup(), e.g.
	 * a DPDK port with one queue per worker); else the engine does. */
	bool device_ready;
	/** udpsock: the address and port every worker binds. Frame links:
	 * local.port is the UDP port we serve on (addresses are in net). */
	struct sst_net_endpoint local;
	/** Frame links: the network layer's configuration (addresses,
	 * routes); the MAC is the port's when left zero. */
	struct sst_net_params net;
	struct sst_nego_host_params nego; /**< negotiation (mode, secret, identity, limits) */
	/** Embedded mode: ops and ctx. stream.pool and stream.clone_pool may
	 * be NULL: each worker then uses its own packet pool and a clone pool
	 * (indirect mbufs) that the engine creates, grows and frees; a
	 * clone_pool of the caller's needs its pool too. */
	struct sst_stream_host_params stream;
	const struct sst_worker_ops *ops; /**< embedded mode */
	void *ctx;			  /**< embedded mode: passed to ops */
	/** Ring mode (sst_ring.h): every worker gets a ring agent, which takes
	 * the place of the embedded callbacks above (ignored then). */
	bool ring_mode;
	const struct sst_ring_agent_params *ring; /**< NULL: the agent's defaults */
	const char *cc;				  /**< congestion controller; NULL: newreno */
	uint32_t max_peers;			  /**< per worker; 0: no limit but memory */
	sst_time_t idle_timeout;		  /**< 0: 60 s */
	sst_time_t dead_peer_timeout;		  /**< 0: 30 s (sst_worker_params) */
	bool no_skip_numbers; /**< no optimistic-ack defence (sst_worker_params) */
	/** Packets per channel before it is replaced; 0: the armor suite's
	 * limit (see sst_worker_params). */
	uint64_t channel_packet_limit;
	uint32_t mtu; /**< largest channel packet; 0: see sst_worker_params */
	/** Most mbufs of each worker's pool; 0: 16383. The pools are
	 * growable (sst_pool.h): they start with mbufs_initial and grow
	 * between passes, so the EAL memory must allow them this size. */
	uint32_t mbufs;
	/** Per-lcore cache of each worker's pool, in mbufs; 0: 256;
	 * SST_ENGINE_NO_CACHE: none. A cache makes allocation cheaper on a
	 * busy worker but costs its pool a megabyte at once (an array for
	 * every possible lcore): tools that move little go without. */
	uint32_t mbuf_cache;
	uint32_t inbox_size; /**< handoff ring entries per worker; 0: 4096 */
	int socket_id;	     /**< NUMA socket of the memory; 0 unless set */
	/** Capture every worker's traffic to "<capture>-w<i>.pcapng"
	 * (sst_capture.h); NULL: none. */
	const char *capture;
	uint32_t capture_snaplen; /**< bytes kept per packet; 0: all */
	uint32_t rx_buffer;	  /**< udpsock kernel buffers; 0: the system's */
	uint32_t tx_buffer;	  /**< udpsock kernel send buffer; 0: the system's */
	/** mbufs each worker's pool starts with; 0: SST_POOL_INITIAL (at most
	 * mbufs). Give mbufs for a pool populated at once, as a NIC driver
	 * that registers the pool's memory when its queue is set up needs. */
	uint32_t mbufs_initial;
	/** Frame links, IPv4: every worker's extra local endpoints
	 * (sst_worker_params.local_port_first, docs/engine.md "Local
	 * endpoints"); a channel from one belongs to sst_engine_owner() of
	 * its tagged endpoint (sst_worker_ep_join()). 0: none. */
	uint16_t local_port_first;
	uint32_t local_ports; /**< see local_port_first */
	/** TEST AND ATTACK TOOLS ONLY: every worker's channels rewrite their
	 * ack words (sst_worker_params.ack_forge_for_testing); NULL: honest. */
	const struct sst_channel_ack_forge *ack_forge_for_testing;
	void *ack_forge_ctx; /**< see ack_forge_for_testing */
	/** With device_ready, how the caller's port spreads what it receives
	 * over the workers' queues (without it the engine asks the port):
	 * SST_SHARD_HASH_TOEPLITZ (0), the RSS the engine would program (the
	 * default key and table, sst_shard.h); SST_SHARD_HASH_CRC, a port
	 * without RSS: the cheap hash, symmetric in the pair, so that two
	 * engines on ports whose queue i leads to queue i agree on each
	 * channel's worker (docs/engine.md "The engine and sharding"). */
	enum sst_shard_hash_kind shard_hash;
};

/**
 * Fill @p p with defaults that work as they are: one worker on a kernel
 * UDP socket (udpsock) on an ephemeral port, the SST_ENGINE_DEFAULT_*
 * sizes, and a fresh random negotiation secret (libsodium). The caller
 * then sets what it needs (local, ops, ctx, workers, ...).
 *
 * @param p
 *   Overwritten entirely. The EAL need not be up.
 */
void sst_engine_params_default(struct sst_engine_params *p);

/**
 * Create an engine (at setup: this allocates), its pools, links, inboxes
 * and workers. Call after rte_eal_init(), from the main lcore. Every error
 * path releases what was created.
 *
 * @param p
 *   Read during the call; the pointers it holds must outlive the engine.
 * @return
 *   The engine, or NULL with rte_errno set and a line logged through
 *   rte_log (type sst.engine) that names the parameter at fault:
 *   EINVAL (p NULL, size missing, workers over SST_WORKERS_MAX, a secure
 *   configuration sst_secure_config_check() refuses, or a layer below
 *   refused its parameters), EEXIST (two engines of one
 *   stream.name),
 *   ENOMEM (the EAL's memory cannot hold the pools: lower mbufs or give
 *   the EAL more, -m), or a link driver's error.
 */
struct sst_engine *sst_engine_create(const struct sst_engine_params *p);

/**
 * Destroy a stopped engine and everything it created. NULL is ignored.
 *
 * @param e
 *   A stopped engine (sst_engine_stop()), or NULL. Streams still open are aborted; called from the
 *   thread that created it.
 */
void sst_engine_destroy(struct sst_engine *e);

/**
 * The number of workers (params.workers).
 *
 * @param e
 *   The engine.
 * @return
 *   The number of workers.
 */
uint16_t sst_engine_workers(const struct sst_engine *e);
/**
 * Worker i, for the sst_worker.h calls (on that worker's thread only).
 *
 * @param e
 *   The engine.
 * @param i
 *   A worker's index, below sst_engine_workers().
 * @return
 *   The worker, or NULL when i is out of range.
 */
struct sst_worker *sst_engine_worker(struct sst_engine *e, uint16_t i);

struct sst_ring_agent;

/**
 * Ring mode: worker i's agent, to which application threads attach
 * clients (sst_ring_client_create()). A thread attaches one client to every
 * worker, connects through the client of sst_engine_owner(ep), and polls
 * all its clients: accepted streams arrive on the worker that owns them.
 * @param e
 *   The engine.
 * @param i
 *   A worker's index, below sst_engine_workers().
 * @return NULL when not in ring mode.
 */
struct sst_ring_agent *sst_engine_ring_agent(struct sst_engine *e, uint16_t i);

/**
 * The local endpoint (udpsock: the port the workers bound, the ephemeral
 * one when params.local.port was 0).
 *
 * @param e
 *   The engine.
 * @param ep
 *   Filled with the local address and port.
 */
void sst_engine_local(const struct sst_engine *e, struct sst_net_endpoint *ep);

/**
 * The worker that owns a new channel to ep: sst_worker_connect() to ep
 * must run on that worker's thread (from its app_poll, in embedded mode).
 *
 * @param e
 *   The engine.
 * @param ep
 *   The peer's address and port, or a tagged endpoint (a peer reached from
 *   an extra local endpoint, sst_worker_ep_join()): owned by the queue RSS
 *   gives the packets from the peer to that local endpoint.
 * @return
 *   The index of the owning worker (sst_shard_owner() over the engine's map).
 */
uint16_t sst_engine_owner(const struct sst_engine *e, const struct sst_net_endpoint *ep);

/**
 * The engine's clock, in nanoseconds (the TSC, scaled).
 *
 * @return
 *   Nanoseconds since an arbitrary start, monotonic; the time every worker of the engine runs on.
 */
sst_time_t sst_engine_now(void);

/**
 * One pass of worker i at the current time, then the engine's housekeeping
 * of that worker, off the packet path: its pool, and the stream layer's
 * pools of params.stream when they are growable (sst_pool.h), grow when
 * they run low.
 *
 * @param e
 *   The engine.
 * @param i
 *   The worker, polled on the calling thread; never two threads on one worker at once.
 */
void sst_engine_poll(struct sst_engine *e, uint16_t i);

/**
 * sst_engine_poll() at @p now: for an application whose callbacks and links
 * read a clock of their own (the tools), which must be the one the worker
 * runs on.
 *
 * @param e
 *   The engine.
 * @param i
 *   The worker, as for sst_engine_poll().
 * @param now
 *   The current time, in nanoseconds, of the clock the worker runs on; never going back.
 */
void sst_engine_poll_at(struct sst_engine *e, uint16_t i, sst_time_t now);

/**
 * Run worker i on the calling thread until sst_engine_stop(), then drain
 * it (graceful stop).
 *
 * @param e
 *   The engine.
 * @param i
 *   The worker to run; no other thread may poll it meanwhile.
 * @return
 *   0.
 */
int sst_engine_worker_loop(struct sst_engine *e, uint16_t i);

/**
 * Launch every worker on its own EAL worker lcore (the first worker
 * lcores after the main one). Call from the main lcore.
 *
 * @param e
 *   The engine, created with enough EAL lcores (one per worker besides the main one).
 * @return
 *   0, -EBUSY (too few lcores), or rte_eal_remote_launch()'s error (the
 *   workers launched already are stopped).
 */
int sst_engine_launch(struct sst_engine *e);

/**
 * Graceful stop: every worker closes its unused channels (FINISH, no
 * TIME_WAIT) and keeps polling until they are gone or @p drain_ns passed,
 * then stops; waits for launched lcores. Streams still open are left to
 * sst_engine_destroy(), which aborts them.
 *
 * @param e
 *   The engine; called from the main lcore.
 * @param drain_ns
 *   How long the workers may keep polling to close their channels, in nanoseconds; 0: stop at once.
 */
void sst_engine_stop(struct sst_engine *e, sst_time_t drain_ns);

/**
 * True once sst_engine_stop() was called (for application loops).
 *
 * @param e
 *   The engine.
 * @return
 *   True once sst_engine_stop() was called; safe from any thread.
 */
bool sst_engine_stopping(const struct sst_engine *e);

#endif /* SST_ENGINE_H */
