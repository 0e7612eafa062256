/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A worker: one thread's share of the engine (docs/engine.md). It owns a
 * link (datagrams, or Ethernet frames run through lib/net), a negotiation host, a stream
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

#include <stdbool.h>
#include <stdint.h>

#include "sst_shard.h"
#include "sst_link.h"
#include "sst_negotiation.h"
#include "sst_stream.h"

struct sst_worker;
struct sst_capture;

/** Application callbacks of the worker (besides the stream layer's). */
struct sst_worker_ops {
	/** A channel to a peer is up (ours or theirs): streams may be opened.
	 * @param ctx sst_worker_params.ctx.
	 * @param peer The peer, valid until peer_gone().
	 * @param ep Its endpoint.
	 */
	void (*peer_ready)(
		void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep);
	/** The worker is about to destroy this peer (it has neither a channel
	 * nor a stream left): forget the pointer peer_ready() gave. A later
	 * channel to the same endpoint makes a new peer. May be NULL.
	 * @param ctx sst_worker_params.ctx.
	 * @param peer The peer, freed after the call.
	 * @param ep Its endpoint.
	 */
	void (*peer_gone)(
		void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep);
	/** An attempt from sst_worker_connect() failed (negative errno).
	 * @param ctx sst_worker_params.ctx.
	 * @param ep The endpoint sst_worker_connect() was given.
	 * @param err The negative errno (-ETIMEDOUT: no answer).
	 */
	void (*connect_failed)(void *ctx, const struct sst_net_endpoint *ep, int err);
	/** Once per sst_worker_poll(), on the worker's thread, after received
	 * packets and timers and before the channels are flushed (so what it
	 * writes leaves in the same pass): where an application interface
	 * such as the ring agent (sst_ring.h) does its work. May be NULL.
	 * @param ctx sst_worker_params.ctx.
	 * @param w The worker being polled.
	 * @param now The time of this pass.
	 */
	void (*app_poll)(void *ctx, struct sst_worker *w, sst_time_t now);
};

/** How to create a worker. Fields left zero take the defaults shown. */
struct sst_worker_params {
	uint32_t size;		  /**< sizeof(struct sst_worker_params) */
	struct sst_link *link;	  /**< datagram or frame link; the worker does not close it */
	struct rte_mempool *pool; /**< headers, control packets, armor output */
	/** Frame links: the network layer's configuration (addresses, routes;
	 * pool, ops and ctx are filled in by the worker) ... */
	struct sst_net_params net;
	uint16_t udp_port; /**< ... and the UDP port we serve on (0: 4433) */
	/** Largest channel packet (UDP payload); 0: 1232, or less when a frame
	 * link's MTU allows no more. */
	uint32_t mtu;
	/** Sharding, set by the engine (sst_engine.h): this worker is number
	 * shard_index of shard_count sharing one local port, and inboxes[i]
	 * is worker i's handoff ring (multi-producer, single-consumer).
	 * shard_count 0 or 1: the worker is alone. */
	uint16_t shard_index;
	uint16_t shard_count; /**< workers sharing the port (see shard_index) */
	/** The handoff rings, shard_count of them (see shard_index); required
	 * when shard_count > 1, kept: they must outlive the worker. */
	struct rte_ring *const *inboxes;
	/** Which worker owns a peer (sst_shard.h; copied); NULL: the default
	 * map for shard_count workers (sst_shard_map_init()). */
	const struct sst_shard_map *shard_map;
	/** Which worker holds which peer, shared by the shard_count workers
	 * (sst_worker_dir_create(); the engine makes one), so that a peer that
	 * moves to an endpoint hashed to another worker keeps its streams
	 * (checksum mode; docs/engine.md, "Mobility"). NULL: it does not. */
	struct sst_worker_dir *dir;
	/** Record what the link receives and sends here (pcapng,
	 * sst_capture.h); NULL: no capture. The worker does not close it. */
	struct sst_capture *capture;
	/** The negotiation host's parameters; ops and ctx are the worker's. */
	struct sst_nego_host_params nego;
	/** The stream host's parameters; ops and ctx are the application's
	 * stream callbacks (the worker interposes its own). pool NULL: the
	 * worker's pool. clone_pool is required (indirect mbufs): the worker
	 * does not fill it in, the engine does (sst_engine.h). */
	struct sst_stream_host_params stream;
	const char *cc; /**< congestion controller; NULL: newreno */
	/** Peers at once: for one more, an idle peer (no stream, channels
	 * unused) is evicted (peers_evicted), or else its channel is refused
	 * (peers_full). 0: no limit but memory. */
	uint32_t max_peers;
	/** A channel no stream has used for this long is closed (FINISH, no
	 * TIME_WAIT); 0: 60 s; SST_TIME_NEVER: never. */
	sst_time_t idle_timeout;
	/** A peer from which no authenticated packet came for this long while
	 * our data waited for it is dead: its channels end, its streams fail
	 * with SST_STREAM_TIMED_OUT, its record is freed once the application
	 * closes them. A channel that carries streams but no traffic probes
	 * the peer after half of it (an Ack packet it must acknowledge), so a
	 * peer that vanished then is found within one and a half of it.
	 * 0: 30 s; SST_TIME_NEVER: never (and no probes). */
	sst_time_t dead_peer_timeout;
	/** Packets a channel may send before it is replaced by a new one (new
	 * keys) with its streams moved over; 0: what the armor suite allows
	 * (2^24 for AES-128-GCM). At least 256. */
	uint64_t channel_packet_limit;
	/** Do not skip sequence numbers. By default each channel skips numbers
	 * at secret random points (a seed drawn per channel), so that a peer
	 * acknowledging a skipped one is caught lying (the optimistic-ack
	 * defence, docs/channel.md); true turns the defence off. */
	bool no_skip_numbers;
	/** Worker callbacks (NULL: none); kept, so the table must outlive the
	 * worker. */
	const struct sst_worker_ops *ops;
	void *ctx; /**< first argument of every worker callback */
	/**
	 * Frame links, IPv4: more local endpoints (docs/engine.md, "Local
	 * endpoints"). Besides udp_port, the worker answers at the
	 * local_ports UDP ports from local_port_first at its address (at each
	 * of net.ipv4_count addresses), each an endpoint of its own: a client
	 * opens a channel from one with sst_worker_connect_from(), and the
	 * server it reaches sees as many hosts as endpoints. The range must
	 * not hold udp_port. Negotiation then advertises no host instance
	 * (nego.ulp_version 1, unless set): the endpoints would share ours,
	 * and a server that sees one instance at two endpoints takes it for a
	 * host that moved. 0: none. With shard_count > 1, each pair (local
	 * endpoint, peer) is owned by the worker RSS gives its packets
	 * (sst_shard.h): connect from the owner (sst_worker_ep_join(),
	 * sst_engine_owner()).
	 */
	uint16_t local_port_first;
	uint32_t local_ports; /**< see local_port_first */
	/**
	 * TEST AND ATTACK TOOLS ONLY (sst-gen --attack optimistic-ack): every
	 * channel of this worker hands the ack words it sends to this
	 * rewriter before sealing them (sst_channel_params.ack_forge_for_testing,
	 * docs/channel.md "Forging our own acks"). A peer with the
	 * optimistic-ack defence fails such channels. NULL, the default: honest
	 * acks, and nothing on the send path. Kept: must outlive the worker.
	 */
	const struct sst_channel_ack_forge *ack_forge_for_testing;
	void *ack_forge_ctx; /**< see ack_forge_for_testing */
};

/** Counters. */
struct sst_worker_stats {
	uint64_t rx_packets;	    /**< packets received from the link (and handed over) */
	uint64_t rx_control;	    /**< to negotiation */
	uint64_t rx_channel;	    /**< to a channel */
	uint64_t rx_no_channel;	    /**< byte 0 names no channel of that peer: dropped */
	uint64_t channels_open;	    /**< now */
	uint64_t peers_open;	    /**< now */
	uint64_t peers_freed;	    /**< no channel and no stream left: destroyed */
	uint64_t endpoints;	    /**< endpoint records now (numbers given out, or quiet) */
	uint64_t numbers_exhausted; /**< a channel refused: all 255 numbers of an endpoint in use */
	uint64_t channels_made;	    /**< channels established, both roles */
	uint64_t channels_closed;   /**< channels ended, for whatever reason */
	uint64_t channels_idle;	    /**< closing offered after idle_timeout */
	uint64_t path_changes;	    /**< a peer came back from a new endpoint (it moved) */
	uint64_t peers_full;	    /**< a channel refused: max_peers reached, no peer idle */
	uint64_t peers_evicted;	    /**< idle peers that made way for a new one (max_peers) */
	uint64_t rx_wrong_port;	    /**< frame links: UDP to a port not ours, dropped */
	uint64_t handoff_in;	    /**< packets other workers handed us */
	uint64_t handoff_out;	    /**< packets handed to the worker that owns them */
	uint64_t handoff_full;	    /**< dropped: that worker's inbox was full */
	uint64_t tx_refused;	    /**< frame links: the network layer refused (no route...) */
	uint64_t restarts;	    /**< peers found restarted: their stale channels dropped */
	uint64_t channels_replaced; /**< replacements negotiated before a limit ran out */
	uint64_t channels_crossed;  /**< the peer's replacement crossing ours: retired unused */
	uint64_t silences;	    /**< our data went unacknowledged: a new channel negotiated */
	uint64_t dead_peers;	    /**< declared dead after dead_peer_timeout */
	uint64_t keepalives;	    /**< probes on channels with streams but no traffic */
	uint64_t channels_unheard;  /**< checksum responder's, never used by the initiator: ended */
	uint64_t peers_handed;	    /**< negotiations handed to the worker holding the peer */
	uint64_t steer_entries;	    /**< now: endpoints steered away from (or to) their hash */
	/** Bytes of the worker's objects (endpoints, peers, channels and
	 * their tables, sst_mem_cache) in use; refreshed with channels. */
	uint64_t mem_in_use;
	/** Bytes its cache took from the DPDK heap and keeps (the peak of
	 * each size class); refreshed with channels. */
	uint64_t mem_reserved;
	/** The channel layer's counters summed over every channel this
	 * worker has had (refreshed every 100 ms of polling, so that readers
	 * on other threads never touch a channel; with 2,000 channels or
	 * more every 100 ms per 2,000 channels, so that the sum costs the
	 * worker a few percent at most). */
	struct sst_channel_stats channels;
};

/**
 * Create a worker (at setup: this allocates). The worker belongs to the
 * thread that polls it; every function here but sst_worker_running(),
 * sst_worker_telemetry() and sst_worker_counter() is for that thread only.
 * @param p Parameters, copied (link, pool, inboxes, capture and the
 *   callback tables stay the caller's and must outlive the worker).
 * @return The worker, or NULL with rte_errno set: EINVAL (p, link or pool
 *   NULL; shard_count > 1 without inboxes or with shard_index out of
 *   range; local_ports refused), the error of creating the network layer,
 *   the negotiation host or the stream host (EINVAL: stream.clone_pool
 *   NULL), ENOMEM. A refused parameter is named in a line logged through
 *   rte_log (type sst.worker, or sst.stream for the stream host's).
 */
struct sst_worker *sst_worker_create(const struct sst_worker_params *p);

/** Destroy a worker: its channels, peers, stream and negotiation hosts.
 * The link, pools and capture stay the caller's.
 * @param w The worker; NULL is ignored. */
void sst_worker_destroy(struct sst_worker *w);

/** Start a channel to ep. In a sharded engine it must run on the worker
 * that owns ep (sst_engine_owner()). The outcome comes later:
 * ops.peer_ready() or ops.connect_failed().
 * @param w The worker.
 * @param ep The peer's endpoint.
 * @param mode Negotiation mode; SST_NEGO_MODE_SECURE needs a secure
 *   configuration in the worker's nego params.
 * @param now Current time.
 * @return 0, -EXDEV (another worker owns ep), or the error of
 *   sst_nego_connect(). */
int sst_worker_connect(struct sst_worker *w, const struct sst_net_endpoint *ep,
	enum sst_nego_mode mode, sst_time_t now);

/**
 * Start a channel to remote from one of the worker's local endpoints
 * (sst_worker_params.local_port_first). The peer is known by the endpoint
 * pair: peer_ready(), peer_gone() and connect_failed() name it by a
 * tagged endpoint, which sst_worker_peer() accepts and
 * sst_worker_ep_split() takes apart.
 * @param w The worker.
 * @param local One of its local endpoints (address and port).
 * @param remote The peer's endpoint (IPv4).
 * @param mode Negotiation mode (see sst_worker_connect()).
 * @param now Current time.
 * @return 0, -EINVAL (local not one of the worker's local endpoints,
 *   remote not IPv4), -EXDEV (a sharded worker that does not own the
 *   pair: see sst_worker_ep_join()), or the error of sst_nego_connect().
 */
int sst_worker_connect_from(struct sst_worker *w, const struct sst_net_endpoint *local,
	const struct sst_net_endpoint *remote, enum sst_nego_mode mode, sst_time_t now);

/**
 * The tagged endpoint that names the peer @p remote reached from the local
 * endpoint @p local (what the worker callbacks give for a channel of
 * sst_worker_connect_from()): sst_engine_owner() of it is the worker that
 * must make that channel.
 * @param local The local endpoint (IPv4).
 * @param remote The peer's endpoint (IPv4, not tagged).
 * @param ep Set to the tagged endpoint.
 * @return 0, or -EINVAL (an argument NULL, not IPv4, or remote tagged).
 */
int sst_worker_ep_join(const struct sst_net_endpoint *local, const struct sst_net_endpoint *remote,
	struct sst_net_endpoint *ep);

/**
 * Take apart an endpoint a worker callback gave: the peer's endpoint and
 * the local endpoint the channel uses.
 * @param ep The endpoint from the callback.
 * @param local Set to the local endpoint, or to all zero when it is the
 *   worker's own (udp_port); may be NULL.
 * @param remote Set to the peer's endpoint; may be NULL.
 * @return true if ep names one of the extra local endpoints.
 */
bool sst_worker_ep_split(const struct sst_net_endpoint *ep, struct sst_net_endpoint *local,
	struct sst_net_endpoint *remote);

/** The worker whose sst_worker_poll() is running on this thread: for
 * callbacks that serve several workers.
 * @return That worker, or NULL outside sst_worker_poll(). */
struct sst_worker *sst_worker_running(void);

/** One pass of the worker loop; callbacks run from inside.
 * @param w The worker.
 * @param now Current time. */
void sst_worker_poll(struct sst_worker *w, sst_time_t now);

/**
 * Start closing every channel no stream uses (FINISH, no TIME_WAIT; a
 * channel to a prototype peer, which knows no FINISH, ends at the next
 * poll), for a graceful stop. From then on the worker closes each channel
 * as soon as its last stream ends, so that one call is enough: poll until
 * the count reaches 0 (or a time limit).
 * @param w The worker.
 * @param now Current time.
 * @return channels still open.
 */
int sst_worker_close_idle(struct sst_worker *w, sst_time_t now);

/** When sst_worker_poll() must run again at the latest (packets aside).
 * @param w The worker.
 * @return The time (0: at once), or SST_TIME_NEVER. */
sst_time_t sst_worker_next_expiry(const struct sst_worker *w);

/** What brings an idle worker its packets, for a caller that blocks (poll()
 * for POLLIN, until sst_worker_next_expiry() at the latest) rather than
 * polls again at once: its link's descriptor (sst_link_wait_fd()), when the
 * worker is alone on its port. Workers that share one get packets from the
 * others through rings too, which no descriptor announces.
 * @param w The worker.
 * @return The descriptor, or -ENOTSUP (poll the worker). */
int sst_worker_wait_fd(const struct sst_worker *w);

/** The stream host (for sst_stream_listen() and statistics).
 * @param w The worker.
 * @return The worker's stream host, valid until sst_worker_destroy(). */
struct sst_stream_host *sst_worker_stream_host(struct sst_worker *w);

/** The peer at ep.
 * @param w The worker.
 * @param ep The peer's endpoint.
 * @return The peer, or NULL (no peer at ep). */
struct sst_stream_peer *sst_worker_peer(struct sst_worker *w, const struct sst_net_endpoint *ep);

/**
 * The identity peer @p sp proved when its channels were negotiated: its
 * Ed25519 key in secure mode, all zero in checksum mode (for lib/stp's
 * policy, sst_stp_policy_allows()).
 * @param w The worker.
 * @param sp The peer.
 * @return the key (SST_SECURE_KEY_LEN bytes), or NULL when @p sp has no
 *   channel on @p w.
 */
const uint8_t *sst_worker_peer_identity(
	const struct sst_worker *w, const struct sst_stream_peer *sp);

struct sst_cc_ops;

/**
 * Move the live channels to peer @p sp to congestion controller @p ops
 * (a module the peer shipped, lib/stp), keeping their windows
 * (sst_channel_set_cc()); channels already on @p ops are left as they
 * are. Channels negotiated later start on the host's own controller: call
 * again when one comes up (worker ops peer_ready). Call from the worker's
 * thread (a stream callback).
 * @param w The worker.
 * @param sp The peer.
 * @param ops The controller; kept by each channel, so it must outlive them.
 * @param now Current time.
 * @return the channels moved, or -ENOENT (none).
 */
int sst_worker_peer_set_cc(struct sst_worker *w, const struct sst_stream_peer *sp,
	const struct sst_cc_ops *ops, sst_time_t now);

/** The worker's counters.
 * @param w The worker.
 * @return Its counters, updated in place on the worker's thread. */
const struct sst_worker_stats *sst_worker_stats(const struct sst_worker *w);

/** The link's counters.
 * @param w The worker.
 * @return sst_link_stats() of its link. */
const struct sst_link_stats *sst_worker_link_stats(const struct sst_worker *w);

/** The negotiation host's counters.
 * @param w The worker.
 * @return sst_nego_stats() of its host. */
const struct sst_nego_stats *sst_worker_nego_stats(const struct sst_worker *w);

/** The network layer's counters.
 * @param w The worker.
 * @return sst_net_stats() (frame links), or NULL (datagram links). */
const struct sst_net_stats *sst_worker_net_stats(const struct sst_worker *w);

/** Workers in a process that telemetry can name. */
enum { SST_WORKERS_MAX = 64 /**< ids 0..63 */ };

/** The directory of a sharded engine's peers (sst_worker_params.dir). */
struct sst_worker_dir;

/**
 * Create the directory shared by @p workers workers: which worker holds a
 * peer with a given host instance, 8,192 instances per worker (64 KB each).
 * @param workers 2 to SST_WORKERS_MAX.
 * @param socket_id NUMA socket of its memory (SOCKET_ID_ANY: any).
 * @return the directory, or NULL with rte_errno EINVAL (workers out of
 * range) or ENOMEM.
 */
struct sst_worker_dir *sst_worker_dir_create(uint16_t workers, int socket_id);

/** Free a directory once every worker using it is destroyed.
 * @param d The directory (NULL: nothing is done). */
void sst_worker_dir_destroy(struct sst_worker_dir *d);

/** The worker's id in telemetry (/sst/worker,ID).
 * @param w The worker.
 * @return The id, 0..SST_WORKERS_MAX - 1, or -ENOSPC (more workers than
 *   that: this one is not in telemetry). */
int sst_worker_id(const struct sst_worker *w);

struct rte_tel_data;

/** The /sst/worker telemetry command, for tests and for applications
 * that serve telemetry their own way. It may run on any thread (DPDK's
 * telemetry thread): it never touches the worker, it reads the copy of
 * the counters the worker publishes when it is created and every 100 ms
 * of polling (with relaxed atomics: defined under C11), so each value is
 * at most that old and the set is not one consistent snapshot.
 * @param cmd The command (unused).
 * @param params The worker id, in decimal.
 * @param d Filled with a dictionary of counters.
 * @return 0, or -EINVAL (params not the id of a live worker). */
int sst_worker_telemetry(const char *cmd, const char *params, struct rte_tel_data *d);

/** One counter of /sst/worker,ID, as sst_worker_telemetry() reads it:
 * from the copy the worker published last (at its creation, then every
 * 100 ms of polling). Any thread, no lock; the worker is not touched.
 * @param id The worker's telemetry id (sst_worker_id()).
 * @param name The counter's name as /sst/worker shows it ("rx_packets").
 * @param value Set to the counter's published value.
 * @return 0, -EINVAL (@p id not the id of a live worker, or @p name or
 *   @p value NULL) or -ENOENT (no counter of that name). */
int sst_worker_counter(int id, const char *name, uint64_t *value);

#endif /* SST_WORKER_H */
