/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-cat (docs/tools/sst-cat.md): what its modules share. cat_session.c
 * joins standard input and output to one stream (the client's, or the one
 * a plain listener accepts); cat_echo.c is the --echo service. Both run as
 * stream callbacks and app_poll on the worker's thread.
 */
#ifndef CAT_H
#define CAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cat_io.h"
#include "sst_stream.h"
#include "tool_link.h"

enum {
	CAT_SUBSTREAMS_MAX = 64,
	CAT_MBUFS = 8191,	   /**< largest size of each packet pool */
	CAT_STREAM_BUFFERS = 1024, /**< stream buffers each way (max_tx/rx_buffers) */
	CAT_INITIAL_BUFFERS = 16,  /**< of which the pools start with (initial_buffers) */
};

struct cat_conf {
	bool listen, echo, datagram, secure, verbose, quiet;
	bool legacy;	/**< pose as the 2007 prototype (tool_host_conf.legacy) */
	bool suite_set; /**< --suite given */
	uint32_t substreams;
	struct sst_net_endpoint peer;  /**< client: where to connect */
	struct sst_net_endpoint local; /**< listener: where to listen; client: --bind */
	bool bind_set;		       /**< client: --bind given (local is where it sends from) */
	const char *service, *protocol;
	enum sst_crypto_suite suite;
	const char *identity_file, *known_hosts_file;
	uint64_t timeout_ns;   /**< client: give up connecting after this long */
	uint64_t dead_peer_ns; /**< --dead-peer-timeout; 0: the worker's (30 s) */
	uint64_t stats_ns;     /**< --echo --stats: a line of counters this often; 0: none */
	struct tool_port port; /**< --port: a DPDK port instead of kernel UDP */
	uint32_t workers;
	const char *capture;   /**< --capture FILE.pcapng or PREFIX: the traffic (tool_link.h) */
	const char *event_log; /**< --event-log FILE: the channels' and streams' events */
	uint32_t send_buffer;  /**< --send-buffer in bytes; 0: 4 MiB */
};

struct cat;

/** The session (callbacks' ctx: pass it in the host's configuration). */
struct cat *cat_new(const struct cat_conf *c);
/** Start: the client connects, a listener offers the service. @return 0 or -1. */
int cat_start(struct cat *cat, struct tool_host *h);
/** True when the session is over; @return via cat_status(). */
bool cat_done(const struct cat *cat);
/** 0 on success, 1 when something failed (already reported on stderr). */
int cat_status(const struct cat *cat);
/** Stop reacting to callbacks (before the host is destroyed). */
void cat_quiesce(struct cat *cat);
void cat_destroy(struct cat *cat);
/** "legacy peer ..." or "SST-DPDK peer ...": what negotiation learned of
 * @p peer (for --verbose; interop tests look for it). */
const char *cat_peer_kind(
	const struct cat_conf *c, const struct sst_stream_peer *peer, char *buf, size_t len);
extern const struct sst_stream_ops cat_stream_ops;
extern const struct sst_worker_ops cat_worker_ops;

/** The echo service (callbacks' ctx). */
struct cat_echo *cat_echo_new(const struct cat_conf *c);
int cat_echo_start(struct cat_echo *e, struct tool_host *h);
void cat_echo_quiesce(struct cat_echo *e);
/** The echo service's share of the loop: the --stats line when due.
 * @return false (it runs until interrupted). */
bool cat_echo_tick(void *e);
void cat_echo_destroy(struct cat_echo *e);
extern const struct sst_stream_ops cat_echo_stream_ops;

#endif /* CAT_H */
