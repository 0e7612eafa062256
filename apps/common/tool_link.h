/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the tools (sst-perf, sst-cat) get their SST endpoints: the EAL,
 * the pools, the link and the worker, in one module, so that moving the
 * tools to the multi-worker engine (sst_engine.h) changes this file and
 * nothing in the tools. A "host" is what a tool talks through: today one
 * worker on one link, polled by the tool's own thread (embedded mode: the
 * stream callbacks and the worker's app_poll run on that thread).
 *
 * Two kinds of links:
 * - udp: a kernel UDP socket (the udpsock driver), for two processes or two
 *   machines;
 * - loopback: two hosts of this process joined by a simpair (two simlink
 *   models run in real time, with optional impairments).
 */
#ifndef TOOL_LINK_H
#define TOOL_LINK_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "sst_negotiation.h"
#include "sst_simlink.h"
#include "sst_stream.h"
#include "sst_worker.h"

/** How to make one host. Fields left zero take the defaults shown. */
struct tool_host_conf {
	const char *name; /**< unique in the process (pool and host names), <= 12 chars */
	/** udp: the address and port to bind (port 0: any). Loopback: unused. */
	struct sst_net_endpoint local;
	/** Armor this host asks for when it connects: SST_CRYPTO_CHK32 (or 0)
	 * negotiates in checksum mode, an AEAD suite in secure mode offering
	 * only that suite. */
	enum sst_crypto_suite armor;
	/** Accept secure-mode channels (needs an identity: @p identity, or a
	 * throwaway one made here). Checksum-mode channels are always accepted. */
	bool responder;
	/** Pose as the 2007 prototype: checksum mode only (armor must be
	 * CHK32 or 0; no identity, secure-mode messages go unanswered), empty
	 * ulpi/ulpr, so that peers see a legacy host and we use no capability
	 * the prototype lacks either. */
	bool legacy;
	/** Our identity; NULL: a throwaway one for responders, anonymous for
	 * initiators. Copied. */
	const struct sst_secure_identity *identity;
	/** Pinned peer keys (policy PINNED); NULL: any key is accepted (TOFU
	 * without remembering), which authenticates nothing. */
	const struct sst_secure_known_hosts *known_hosts;
	const char *cc;		      /**< congestion controller; NULL: newreno */
	uint32_t workers;	      /**< workers of the host's engine; 0: 1 */
	bool frames;		      /**< loopback: the net_ring pair with one worker too */
	uint32_t mbufs;		      /**< packet mbufs of the host; 0: 16383 */
	bool small_pools;	      /**< pools without per-lcore caches (1 MB each) */
	uint32_t mtu;		      /**< largest channel packet; 0: the worker's default */
	sst_time_t idle_timeout;      /**< 0: the worker's default (60 s) */
	sst_time_t dead_peer_timeout; /**< 0: the worker's default (30 s) */
	bool no_skip_numbers;	      /**< no optimistic-ack defence (sst_worker_params) */
	/** Packets per channel before it is replaced (new keys, streams moved
	 * over); 0: what the armor suite allows. At least 256. */
	uint64_t packet_limit;
	uint32_t sock_buffer; /**< udp: kernel socket buffers in bytes; 0: 4 MiB */
	/** udp: datagram by datagram, without the kernel's UDP segmentation
	 * offloads (sst_udpsock.h), which are used where the kernel has them. */
	bool udp_no_offload;
	/** Channels peers may hold open to us at once (negotiation's
	 * max_responding); 0: its default (1,024). */
	uint32_t max_channels;
	/** Negotiation's cookie secret rotation period (a cookie lives one to
	 * two); 0: its default (120 s). */
	uint64_t cookie_period;
	/** Negotiation's load threshold: half-open (and unheard) entries at
	 * which the host goes under load and checks cookies; 0: its default
	 * (max_channels / 2, at least 64). sst-gen server --load-high 1 tests
	 * cookies without a flood. */
	uint32_t load_high;
	/** Record every worker's traffic (sst_engine_params.capture): a
	 * name ending in ".pcapng" is the file of a one-worker host
	 * ("<stem>-w<i>.pcapng" with several workers); any other name is a
	 * prefix, "<capture>-w<i>.pcapng"; NULL: none. */
	const char *capture;
	/** Stream host limits and the application's stream callbacks (pools,
	 * size and name are filled in here). */
	struct sst_stream_host_params stream;
	/** peer_ready, connect_failed and app_poll; app_poll is where a tool
	 * does its per-pass work. */
	const struct sst_worker_ops *ops;
	void *ctx;
};

/** Impairments of a loopback link (each direction gets the same). */
struct tool_impair {
	uint64_t rate_bps;   /**< 0: unlimited */
	uint64_t delay_ns;   /**< one way */
	double loss;	     /**< probabilities, 0..1 */
	double reorder;	     /**< held back by reorder_ns */
	uint64_t reorder_ns; /**< 0: 1 ms */
	double duplicate;
	uint32_t queue_pkts; /**< 0: 1000 when rate_bps is set, else unlimited */
	uint64_t seed;
};

struct tool_host;
struct tool_net;

/** Counters of a host (summed over its workers), for reports. */
struct tool_counters {
	uint64_t link_tx_packets, link_rx_packets;
	uint64_t link_tx_bytes, link_rx_bytes;
	uint64_t link_tx_drops; /**< tx_full + tx_errors */
	uint64_t segments_tx, segments_retx;
	uint64_t datagrams_tx, datagrams_rx;
	uint64_t streams_opened, streams_accepted, streams_closed, streams_live;
	uint64_t rx_refused, no_buffer, no_stream;
	uint64_t channels_open, channels_made, channels_replaced;
	uint64_t peers_open, peers_freed, dead_peers, restarts;
	uint64_t peer_streams_refused, peer_buffers_refused; /**< over a peer's fair share */
	uint64_t rx_beyond_prototype; /**< sst_stream_host_stats: what a prototype could not take */
	/* Negotiation (sst_nego_stats), what an operator watches in a flood. */
	uint64_t nego_rx_msgs;	    /**< messages taken, first messages and all */
	uint64_t nego_challenged;   /**< first messages answered with a cookie request */
	uint64_t nego_rate_limited; /**< cookie-proven first messages over their source's rate */
	uint64_t nego_established;  /**< channels set up, both roles */
	uint64_t nego_load_on;	    /**< times the host went under load */
	uint64_t nego_cookie_bad;   /**< first messages whose cookie did not verify */
	uint64_t nego_cookie_ok;    /**< ... whose cookie verified when one was needed */
	uint64_t nego_i2_unmatched; /**< SecI2 without a half-open entry (address, nr) */
	/* The channels' defences (sst_channel_stats, summed by the workers). */
	uint64_t chan_tx_skipped;      /**< numbers skipped to catch optimistic acks */
	uint64_t chan_optimistic_acks; /**< channels failed for acking a skipped number */
	uint64_t chan_rx_ack_beyond;   /**< packets dropped for acking what was not sent */
};

/** Set by SIGINT and SIGTERM once tool_eal_start() has caught them: the
 * tools' loops end when it is nonzero (the signal number). */
extern volatile sig_atomic_t tool_interrupted;

/** How a tool starts (tool_eal_start()). */
struct tool_start {
	const char *prog; /**< "sst-cat": the prefix of messages, the EAL's name */
	/** Parse the tool's own arguments (argv[0], then what follows "--",
	 * or all of them without "--") into @p conf. @return 0, or the exit
	 * status after printing why. */
	int (*parse)(int argc, char **argv, void *conf);
	void *conf;
	/** Megabytes of EAL memory for the parsed @p conf (used when the
	 * command line gives no EAL arguments). */
	unsigned int (*eal_memory_mb)(const void *conf);
	/** Ignore SIGPIPE once the arguments are parsed: a tool that writes to
	 * pipes reports a reader that went away instead of dying. */
	bool ignore_sigpipe;
};

/**
 * The start every tool shares: split the command line at "--" (EAL
 * arguments first, the DPDK convention, sst_eal.h), parse the tool's
 * arguments, catch SIGINT and SIGTERM in tool_interrupted, and start the
 * EAL with the EAL arguments, or without any with the defaults of
 * sst_eal_init() (no hugepages, no PCI devices, a file prefix unique to
 * this process, s->eal_memory_mb() megabytes) and the main lcore free to
 * run on any CPU the process may use. @return 0 (call tool_eal_fini() at
 * exit), or the exit status (tool_args.h) after printing why.
 */
int tool_eal_start(int argc, char **argv, const struct tool_start *s);

/** Release the EAL (at exit). */
void tool_eal_fini(void);

/** The tools' clock (ns, CLOCK_MONOTONIC): the time given to the workers. */
sst_time_t tool_now(void);

/** @p ns nanoseconds in cycles of a counter at @p hz (the TSC), exact and
 * without the overflow of ns * hz, which passes 2^64 from about 6 s at
 * 3 GHz (sst-gen's template --time 7.5 stopped after 0.4 s). */
static inline uint64_t
tool_ns_to_tsc(uint64_t ns, uint64_t hz)
{
	return ns / SST_NSEC_PER_SEC * hz + ns % SST_NSEC_PER_SEC * hz / SST_NSEC_PER_SEC;
}

/** The other way: @p cycles of a counter at @p hz in nanoseconds, without
 * the overflow of cycles * 10^9, which passes 2^64 from about 7 s at
 * 2.6 GHz (sst-gen's setup and transaction latencies over that wrapped). */
static inline uint64_t
tool_tsc_to_ns(uint64_t cycles, uint64_t hz)
{
	return cycles / hz * SST_NSEC_PER_SEC + cycles % hz * SST_NSEC_PER_SEC / hz;
}

/** One host on a kernel UDP socket. @return NULL after printing why. */
struct tool_net *tool_net_udp(const struct tool_host_conf *c);

/** Two hosts of this process joined by an in-memory link (@p imp NULL: a
 * perfect link, unlimited rate, no delay). Host 0 is at 10.0.0.1:8661,
 * host 1 at 10.0.0.2:8661. @return NULL after printing why. */
struct tool_net *tool_net_loopback(const struct tool_host_conf *c0, const struct tool_host_conf *c1,
	const struct tool_impair *imp);

/** A DPDK port for a host (the ethdev driver, one queue per worker), with
 * the network layer's static configuration. */
struct tool_port {
	bool set;		     /**< --port given: use it instead of kernel UDP */
	uint16_t port_id;	     /**< --port N */
	struct sst_net_addr ip;	     /**< --ip ADDR/LEN: our address on the port */
	uint8_t prefix_len;	     /**< ... its on-link prefix */
	struct sst_net_addr gateway; /**< --gateway ADDR (family NONE: none) */
	/** --mac ADDR: the Ethernet address lib/net uses instead of the
	 * port's, the port then receiving promiscuously (all zero: the
	 * port's). On a net_af_packet port, an address the kernel's interface
	 * does not hold keeps the kernel's own stack from routing (and
	 * dropping) every SST frame too: it drops them as another host's at
	 * once. */
	struct rte_ether_addr mac;
};

/**
 * Parse the DPDK-port options into @p p: "--port" (a port id), "--ip"
 * (ADDR/LEN), "--gateway" (ADDR), "--mac" (a unicast Ethernet address). @return 1 when @p opt is one of them and
 * @p arg is valid, 0 when @p opt is not one of them, -1 after printing why
 * @p arg is bad.
 */
int tool_port_option(const char *prog, const char *opt, const char *arg, struct tool_port *p);

/**
 * One host on DPDK port p->port_id (which the EAL arguments must provide:
 * a NIC, or --vdev=net_af_packet0,iface=eth0, net_af_xdp0,iface=eth0,
 * net_tap, ...), serving UDP
 * port c->local.port (0: 4433) at p->ip. @return NULL after printing why.
 */
struct tool_net *tool_net_port(const struct tool_host_conf *c, const struct tool_port *p);

/** tool_net_port() when p->set, else tool_net_udp(). */
struct tool_net *tool_net_open(const struct tool_host_conf *c, const struct tool_port *p);

/** Destroy the hosts (streams still open are aborted), links and pools. */
void tool_net_destroy(struct tool_net *n);

/** Host i (0 or 1), or NULL. */
struct tool_host *tool_net_host(struct tool_net *n, int i);

/**
 * One pass of every host at the current time. With @p may_sleep, a net
 * that received nothing for a while waits until a timer is due: blocked in
 * poll() on the workers' descriptors (kernel sockets, net_af_packet and
 * net_af_xdp ports: a packet ends the wait at once) after 50 us without a packet, or, where
 * a worker has none, napping up to 200 us at a time after 2 ms (for tools
 * that wait on people and pipes rather than measure); without, it
 * busy-polls.
 */
void tool_net_poll(struct tool_net *n, bool may_sleep);

/**
 * Whether every worker of the net has a descriptor that a packet makes
 * readable (tool_net_poll() then blocks rather than naps): a measuring
 * tool that may block loses no time to it and leaves the CPU to its peer
 * between packets.
 */
bool tool_net_can_block(struct tool_net *n);

/**
 * The worker that holds every channel and stream of @p h to @p to: the
 * owner of that endpoint's shard, on both sides (sst_engine.h).
 */
struct sst_worker *tool_host_owner(struct tool_host *h, const struct sst_net_endpoint *to);

/** Start a channel to @p to (mode from the host's armor). @return 0 or negative errno. */
int tool_host_connect(struct tool_host *h, const struct sst_net_endpoint *to, sst_time_t now);

/** Begin closing every channel no stream uses (FINISH). @return channels still open. */
int tool_host_close_idle(struct tool_host *h, sst_time_t now);

/**
 * End host 0's idle channels by FINISH, polling the net until they are
 * closed or @p wait ns have passed, so that the peer forgets us at once
 * rather than at its idle timeout.
 */
void tool_net_finish_channels(struct tool_net *n, sst_time_t wait);

/** Offer a service on every worker of the host (sst_stream_listen()).
 * @return 0 or its negative errno. */
int tool_host_listen(struct tool_host *h, const char *service, const char *protocol, void *ctx);

/** The packet pool (for the tool's own mbufs). */
struct rte_mempool *tool_host_pool(struct tool_host *h);

/** Write @p len bytes at @p dst: the bytes at offset @p at of what
 * tool_mbuf_chain() builds. */
typedef void tool_fill_fn(const void *ctx, uint8_t *dst, uint64_t at, uint16_t len);

/**
 * A chain of mbufs from @p pool holding @p len bytes written by @p fill,
 * each mbuf filled to its tailroom (len 0: one empty mbuf). @return the
 * chain, or NULL (nothing kept) when the pool ran out.
 */
struct rte_mbuf *tool_mbuf_chain(
	struct rte_mempool *pool, size_t len, tool_fill_fn *fill, const void *ctx);

/** Give the fresh mbuf @p m the @p len bytes at offset @p at of what
 * tool_mbuf_chain_with() builds (@p len is at most its tailroom, or the
 * per_mbuf asked for), by writing them or by attaching a buffer that holds
 * them; sets its data length. */
typedef void tool_make_fn(const void *ctx, struct rte_mbuf *m, uint64_t at, uint16_t len);

/** tool_mbuf_chain() with each mbuf's bytes given by @p make: at most
 * @p per_mbuf bytes an mbuf, or its tailroom when @p per_mbuf is 0 (a
 * maker that attaches an external buffer is not bound by the mbuf's own
 * room). */
struct rte_mbuf *tool_mbuf_chain_with(struct rte_mempool *pool, size_t len, uint16_t per_mbuf,
	tool_make_fn *make, const void *ctx);

/** The address and port the host is bound to. */
const struct sst_net_endpoint *tool_host_local(const struct tool_host *h);

struct sst_engine;

/** The host's engine (its workers: sst_engine_worker()). */
struct sst_engine *tool_host_engine(struct tool_host *h);

/** Our public key (secure mode), or NULL. */
const uint8_t *tool_host_public_key(const struct tool_host *h);

void tool_host_counters(const struct tool_host *h, struct tool_counters *c);

/** A description of the link for reports ("udp 127.0.0.1:4433", "loopback ..."). */
const char *tool_net_describe(const struct tool_net *n);

#endif /* TOOL_LINK_H */
