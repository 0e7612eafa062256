/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-perf (docs/tools/sst-perf.md): what its modules share. The client
 * (perf_client.c) drives a test; the server (perf_server.c) answers it;
 * both run as stream callbacks and app_poll on a worker's thread (embedded
 * mode), on hosts from tool_link.h. A test is a control stream ("sst-perf",
 * "control") carrying the parameters and, at the end, the server's counters,
 * plus the data streams ("sst-perf", "data") the mode calls for.
 */
#ifndef PERF_H
#define PERF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mbuf.h>

#include "sst_stp.h"
#include "sst_stream.h"
#include "tool_link.h"

#define PERF_SERVICE "sst-perf"
#define PERF_PROTO_CONTROL "control"
#define PERF_PROTO_DATA "data"

enum perf_mode {
	PERF_BULK = 0,
	PERF_RR,
	PERF_DGRAM,
	PERF_STREAMS,
	PERF_PRIO, /**< perf_prio.h: three downloads reprioritised by the client */
	PERF_WEB,  /**< perf_web.h: a trace's web pages, a stream per object */
	PERF_MODES,
};

extern const char *const perf_mode_names[PERF_MODES];

struct web_trace;

/** What the command line asks for. */
struct perf_conf {
	enum perf_mode mode;
	bool loopback, server, once, verify, json, quiet;
	struct sst_net_endpoint peer;  /**< client over udp: the server */
	struct sst_net_endpoint local; /**< server over udp: where to listen */
	struct tool_port port;	       /**< --port: a DPDK port instead of kernel UDP */
	uint64_t size;		       /**< bulk: total bytes (0: timed); dgram: datagram bytes */
	uint64_t time_ns;	       /**< 0: bounded by size or count */
	uint64_t count;		       /**< rr: transactions, dgram: datagrams (0: timed) */
	uint32_t streams;	       /**< bulk: parallel streams; rr: in flight; streams: N */
	uint32_t request, response;    /**< rr and streams */
	enum sst_crypto_suite armor;
	const char *armor_name;
	const char *cc;
	uint32_t workers;
	bool frames; /**< --frames: loopback over the net_ring pair even with one worker */
	bool substreams; /**< --substreams: rr and web transactions on substreams of the control stream */
	uint32_t mtu;
	uint32_t mbufs;
	uint64_t packet_limit; /**< packets per channel before it is replaced; 0: the suite's */
	bool legacy;	       /**< the server (or, over udp, this side) poses as the prototype */
	const char *capture;   /**< --capture: file prefix of the traffic records, or NULL */
	const char *event_log; /**< --event-log: the file of the channels' events, or NULL */
	uint64_t timeout_ns;
	uint64_t idle_ns; /**< server: a test with no traffic for this long is abandoned */
	struct tool_impair impair;
	bool impaired;
	/* STP (perf_stp.h): the module this host asks its peer to use, and
	 * whose modules this host runs. */
	const char *ship_path;
	uint8_t *ship_code;
	size_t ship_len;
	uint8_t ship_hash[SST_STP_HASH_LEN];
	struct sst_stp_policy cc_policy;
	bool unpoliced;	     /**< --unpoliced: the --cc module without its policer */
	bool udp_no_offload; /**< --no-udp-offload: udpsock without GSO and GRO */
	/* prio (--prio-at): when the third download starts, when the first
	 * two swap, and how often received bytes are printed. */
	uint64_t prio_third_ns, prio_swap_ns, prio_step_ns;
	uint64_t stp_timeout_ns; /**< --stp-timeout: each exchange's wait per message */
	bool stp_mute;		 /**< --stp-mute: take STP requests, never answer */
	struct web_trace *web;	 /**< web: the pages of --trace (perf_web.h) */
};

/* ---- Control messages (big-endian) ---- */

enum {
	PERF_MAGIC = 0x53505246, /* "SPRF" */
	PERF_VERSION = 1,
	PERF_PARAMS_LEN = 32,
	PERF_READY_LEN = 8,
	PERF_RESULT_LEN = 8 + 11 * 8,
	PERF_FLAG_VERIFY = 0x1,
	/** rr and web: each transaction a substream of the control stream */
	PERF_FLAG_SUBSTREAMS = 0x2,
	PERF_OK = 0,
	PERF_BUSY = 1,
	PERF_BAD_PARAMS = 2,
	PERF_TOO_MANY = 3, /**< more streams than the server was set up for */
};

/** rr, streams, prio and web: each data stream carries a request, then its response. */
static inline bool
perf_mode_answers(uint32_t mode)
{
	return mode == PERF_RR || mode == PERF_STREAMS || mode == PERF_PRIO || mode == PERF_WEB;
}

/** rr and web: a transaction per stream, which the response's end ends. */
static inline bool
perf_mode_transactions(uint32_t mode)
{
	return mode == PERF_RR || mode == PERF_WEB;
}

/** The test as the server needs it. */
struct perf_params {
	uint32_t mode, flags, request, response, dgram_size, streams;
};

/** What the server counted during a test. */
struct perf_result {
	uint32_t status;
	uint64_t rx_bytes;     /**< data bytes received (datagrams included) */
	uint64_t rx_span_ns;   /**< first to last byte received */
	uint64_t streams_done; /**< data streams that ended normally */
	uint64_t streams_failed;
	uint64_t dgrams, dgram_bytes;
	uint64_t verify_errors; /**< bytes that did not match the pattern */
	uint64_t peak_live;	/**< most streams live at once at the server */
	uint64_t segments_retx;
	uint64_t tx_packets; /**< link packets the server sent */
	uint64_t cycles;     /**< TSC ticks of the server's test (0 when in our process) */
};

void perf_params_encode(const struct perf_params *p, uint8_t out[PERF_PARAMS_LEN]);
int perf_params_decode(const uint8_t in[PERF_PARAMS_LEN], struct perf_params *p);
void perf_result_encode(const struct perf_result *r, uint8_t out[PERF_RESULT_LEN]);
int perf_result_decode(const uint8_t in[PERF_RESULT_LEN], struct perf_result *r);

/** Write @p len bytes (a message of the control stream). @return 0 or -1. */
int perf_write_bytes(struct sst_stream *s, struct rte_mempool *pool, const void *buf, uint32_t len,
	sst_time_t now);

/* ---- Payload pattern ---- */

/*
 * Byte o of a stream (or datagram) tagged t: for o < 8 the tag itself,
 * big-endian (so a receiver learns it from the data), then bytes of a fixed
 * pseudo-random table at a tag-dependent phase. Cheap to write (memcpy)
 * and to check (memcmp).
 */
void perf_pattern_init(void);

/** Release what perf_pattern_init() took from DPDK's memory, once no
 * mbuf made by perf_mbuf() is left. */
void perf_pattern_fini(void);

/** The tag of stream (or datagram) number @p i: its low bytes come first,
 * so even a 1-byte request carries part of it. */
uint64_t perf_tag(uint64_t i);

/** The tag of the response to a request tagged @p t of @p request bytes:
 * built from what the server could learn of t. */
uint64_t perf_response_tag(uint64_t t, uint64_t request);

void perf_fill(uint8_t *dst, uint64_t tag, uint64_t off, uint32_t len);

/** Mismatching bytes of @p src against the pattern. */
uint64_t perf_check(const uint8_t *src, uint64_t tag, uint64_t off, uint32_t len);

/** A receiver that learns the tag from the first 8 bytes. */
struct perf_rx {
	uint64_t off;
	uint64_t acc; /**< tag bytes so far */
	uint8_t have;
};

/** Take @p len received bytes; @return mismatches (0 unless @p verify). */
uint64_t perf_rx_take(struct perf_rx *rx, const uint8_t *p, uint32_t len, bool verify);

/** The tag as far as learnt (missing low bytes zero). */
uint64_t perf_rx_tag(const struct perf_rx *rx);

/** An mbuf chain of @p len pattern bytes. @return NULL when the pool is empty. */
struct rte_mbuf *perf_mbuf(struct rte_mempool *pool, uint64_t tag, uint64_t off, uint32_t len);

/* ---- Latency histogram: log-linear buckets, 1/64 relative precision ---- */

enum { PERF_HIST_BUCKETS = 64 * 59 };

struct perf_hist {
	uint64_t n;
	uint64_t min, max;
	uint64_t b[PERF_HIST_BUCKETS];
};

void perf_hist_add(struct perf_hist *h, uint64_t v);

/** The value at quantile q (0..1), within 1/64; 0 when empty. */
uint64_t perf_hist_quantile(const struct perf_hist *h, double q);

/* ---- The two sides ---- */

struct perf_server;
struct perf_client;

/** A server (the callbacks' ctx: pass it in the host's configuration). */
struct perf_server *perf_server_new(const struct perf_conf *c);
/** Serve tests on host @p h. @return 0 or -1 after printing why. */
int perf_server_start(struct perf_server *s, struct tool_host *h);
/** Stop reacting to callbacks (before the host is destroyed, which aborts
 * the streams still open). */
void perf_server_quiesce(struct perf_server *s);
/** Free the server (after its host). */
void perf_server_destroy(struct perf_server *s);
/** Tests completed (for --once). */
uint64_t perf_server_tests(const struct perf_server *s);
extern const struct sst_stream_ops perf_server_stream_ops;
extern const struct sst_worker_ops perf_server_worker_ops;

/** A client (the callbacks' ctx: pass it in the host's configuration). */
struct perf_client *perf_client_new(const struct perf_conf *c);
/** Start the test on host @p h against @p server. @return 0 or -1 after printing why. */
int perf_client_start(
	struct perf_client *cl, struct tool_host *h, const struct sst_net_endpoint *server);
/** Stop reacting to callbacks (before the host is destroyed). */
void perf_client_quiesce(struct perf_client *cl);
/** Free the client (after its host). */
void perf_client_destroy(struct perf_client *cl);
/** True once the test ended (successfully or not). */
bool perf_client_done(const struct perf_client *cl);
/** End the test now (a signal): it counts as failed. */
void perf_client_abort(struct perf_client *cl, int sig);
/** Print the final report; @return the exit status (0, or 1 on failure or
 * verify errors). */
int perf_client_report(struct perf_client *cl, const char *link_desc);
extern const struct sst_stream_ops perf_client_stream_ops;
extern const struct sst_worker_ops perf_client_worker_ops;

#endif /* PERF_H */
