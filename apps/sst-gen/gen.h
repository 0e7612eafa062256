/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen (docs/tools/sst-gen.md): what its modules share. The stateful
 * client (gen_client.c) holds many channels, each a worker of its own on a
 * socket of its own (an SST peer is an endpoint, so N channels to one
 * server need N source endpoints), and runs a workload of request/response
 * streams on each; the server (gen_server.c) answers them; the template
 * mode (gen_template.c) replays pre-built frames on a DPDK port.
 */
#ifndef GEN_H
#define GEN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sst_net.h"
#include "sst_stream.h"
#include "tool_link.h"

#define GEN_SERVICE "sst-gen"
#define GEN_PROTOCOL "rr"

enum {
	GEN_WORKLOADS_MAX = 16,
	GEN_CHANNELS_MAX = 1000000,
	/* A request starts with the stream's tag (8 bytes) and the response
	 * size it asks for (4 bytes), so that an sst-gen server knows what to
	 * answer; an echo server answers the request itself. */
	GEN_HEADER_LEN = 12,
	GEN_CHUNK = 1024, /**< bytes per written mbuf */
};

/* ---- Random numbers and size distributions (gen_dist.c) ---- */

/** splitmix64: one state word, good enough for sizes and spoofed fields. */
uint64_t gen_rand(uint64_t *state);

enum gen_dist_kind { GEN_FIXED = 0, GEN_UNIFORM, GEN_EXP, GEN_PARETO };

/** A size: fixed a; uniform in [a, b]; exponential of mean a; Pareto of
 * scale (minimum) a and shape b. Draws are capped at max. */
struct gen_dist {
	enum gen_dist_kind kind;
	double a, b;
	uint64_t max;
};

/** "N", "uniform:A-B", "exp:MEAN", "pareto:MIN,SHAPE" (byte counts may
 * have K/M/G suffixes). @return 0 or -1. */
int gen_dist_parse(const char *text, struct gen_dist *d);
uint64_t gen_dist_draw(const struct gen_dist *d, uint64_t *rng);
/** "exp:512" for reports. */
void gen_dist_text(const struct gen_dist *d, char *buf, size_t len);

/* ---- Latency histogram (gen_hist.c) ---- */

/*
 * HdrHistogram-like: values (ns) below 2^GEN_HIST_SUB_BITS are exact; above,
 * each power of two is split into 2^GEN_HIST_SUB_BITS linear buckets, so any
 * quantile is within 1/32 of the true value.
 */
enum {
	GEN_HIST_SUB_BITS = 5,
	GEN_HIST_BUCKETS = (64 - GEN_HIST_SUB_BITS + 1) << GEN_HIST_SUB_BITS
};

struct gen_hist {
	uint64_t n, max, sum;
	uint64_t b[GEN_HIST_BUCKETS];
};

void gen_hist_add(struct gen_hist *h, uint64_t v);
/** Add the counts of @p src to @p dst (the workers' histograms merged). */
void gen_hist_merge(struct gen_hist *dst, const struct gen_hist *src);
/** The value at quantile q (0..1); 0 when empty. */
uint64_t gen_hist_quantile(const struct gen_hist *h, double q);

/* ---- Payload (gen_payload.c) ---- */

/*
 * Byte o of the content of a stream tagged t that asks for a response of s
 * bytes: the tag (big-endian), s (big-endian), then bytes that depend on t
 * and o. A request is its first R bytes and an sst-gen server's response
 * its first s bytes, so an echo of a request of s bytes is a valid response.
 */
void gen_fill(uint8_t *dst, uint64_t t, uint32_t s, uint64_t off, uint32_t len);
/** Bytes of @p src that differ from the content. */
uint64_t gen_check(const uint8_t *src, uint64_t t, uint32_t s, uint64_t off, uint32_t len);

/*
 * A datagram of the datagram workload: the content of tag t for a stream
 * that asks for len bytes (so bytes 0-11 say the tag and the length),
 * except bytes 12-19, the sender's TSC when it went (big-endian), which an
 * sst-gen server echoes unchanged and the client turns into a round trip.
 */
enum {
	GEN_DGRAM_HEADER = 20,
	GEN_DGRAM_MAX = 1024, /**< one packet: never the stack's reliable substreams */
};
void gen_dgram_fill(uint8_t *dst, uint64_t tag, uint32_t len, uint64_t tsc);
/** Bytes of datagram @p src of @p len bytes that are not content of the tag
 * it names (a length that disagrees counts every byte); @p tag and @p tsc
 * are set from its header when it has one. */
uint64_t gen_dgram_check(const uint8_t *src, uint32_t len, uint64_t *tag, uint64_t *tsc);

/* ---- Configuration ---- */

/** What a channel's streams carry. */
enum gen_workload_kind {
	GEN_WL_RR = 0,	 /**< a request, then a response */
	GEN_WL_BULK,	 /**< a request only (the response 0 bytes): one way */
	GEN_WL_DATAGRAM, /**< datagrams on one stream, echoed by the server */
};

/** One kind of channel: M streams, R request bytes, S response bytes. */
struct gen_workload {
	enum gen_workload_kind kind;
	uint64_t datagrams; /**< datagram: per channel (with --time: until it ends) */
	double dgram_rate;  /**< datagram: per second per channel; 0: as fast as taken */
	char name[32];
	uint32_t weight;     /**< share of the channels (profile) */
	uint32_t streams;    /**< per channel (M); with --time: per round */
	uint32_t concurrent; /**< streams in flight on a channel */
	struct gen_dist request, response;
	uint64_t think_ns; /**< after a stream ends, before the next on its slot */
};

enum gen_mode { GEN_MODE_CLIENT = 0, GEN_MODE_SERVER, GEN_MODE_TEMPLATE };

/** What the stateful client does to the target besides its workload. */
enum gen_attack {
	GEN_ATTACK_NONE = 0,
	GEN_ATTACK_OPTIMISTIC_ACK,
	GEN_ATTACK_STREAM_SLOTS,
	GEN_ATTACK_COOKIE_REPLAY,
	GEN_ATTACK_COOKIE_EXPIRY, /**< a SecI1's cookie sent again after its lifetime */
};

struct gen_conf {
	enum gen_mode mode;
	bool loopback, echo, json, quiet;
	bool sst_perf; /**< client: the target is `sst-perf --server` (gen_perf.c) */
	bool hold;     /**< client: after the report, keep the port until interrupted */
	struct sst_net_endpoint server; /**< client: the target */
	struct sst_net_endpoint local;	/**< server: where to listen; client: first source */
	uint32_t src_addrs;		/**< client: consecutive source addresses (0: any) */
	uint32_t src_ports;		/**< client: consecutive source ports from local.port */
	uint32_t channels;
	struct gen_workload wl[GEN_WORKLOADS_MAX];
	uint32_t nwl;
	double channel_rate, stream_rate; /**< per second; 0: unlimited */
	uint64_t time_ns;		  /**< 0: each channel runs its streams once */
	uint64_t timeout_ns;
	enum sst_crypto_suite armor;
	const char *armor_name;
	const char *service, *protocol;
	uint64_t seed;
	uint32_t mbufs;
	enum gen_attack attack;
	uint32_t ack_jump;	  /**< optimistic-ack: acknowledge this far past the highest seen */
	uint64_t replay_after_ns; /**< cookie-expiry: from the capture to the replay */
	uint64_t cookie_period_ns; /**< server: cookie secret rotation (0: 120 s) */
	uint32_t load_high;	   /**< server: negotiation's load threshold (0: its default) */
	uint32_t max_channels;	   /**< server: negotiation's max_responding (0: 1024) */
	uint32_t max_streams;	   /**< server: stream control blocks (0: 2^20; a peer a quarter) */
	struct tool_port port;	   /**< server: a DPDK port instead of kernel UDP */
	uint32_t workers;	   /**< --port: workers, one per queue of the port (1) */
	/** client: one wrong byte in every Nth stream's request and every Nth
	 * datagram of a channel (0: none), to see a server's check fail. */
	uint32_t corrupt_every;
	/* Template mode (gen_template.c). */
	uint16_t tx_port;
	uint32_t queues;
	uint32_t pkt_size;    /**< UDP payload bytes of generated packets */
	uint64_t pps;	      /**< 0: as fast as the port goes */
	uint64_t count;	      /**< packets in all; 0: timed */
	const char *pcap;     /**< frames to replay instead of generated ones */
	const char *template; /**< what to generate: data, chki1, garbage, truncated */
	struct sst_net_endpoint tmpl_src, tmpl_dst;
	uint32_t vary_addrs, vary_ports;
};

/** Whether any of the configured workloads is of @p kind. */
static inline bool
gen_workloads_any(const struct gen_conf *c, enum gen_workload_kind kind)
{
	for (uint32_t i = 0; i < c->nwl; i++)
		if (c->wl[i].kind == kind)
			return true;
	return false;
}

/** Whether every configured workload is of @p kind. */
static inline bool
gen_workloads_all(const struct gen_conf *c, enum gen_workload_kind kind)
{
	for (uint32_t i = 0; i < c->nwl; i++)
		if (c->wl[i].kind != kind)
			return false;
	return true;
}

/** The JSON profile (gen_profile.c): replaces the workloads of @p c.
 * @return 0, or -1 after printing why. */
int gen_profile_load(const char *path, struct gen_conf *c);

/* ---- The modes ---- */

/** Run the stateful client (with --loopback, an in-process server too).
 * @return the exit status. */
int gen_client_run(const struct gen_conf *c);

struct gen_server;
struct gen_server *gen_server_new(const struct gen_conf *c);
/** Serve on host @p h. @return 0 or -1 after printing why. */
int gen_server_start(struct gen_server *s, struct tool_host *h);
/** A line of counters every second (and at the end, @p last). */
void gen_server_tick(struct gen_server *s, bool last);
void gen_server_quiesce(struct gen_server *s);
void gen_server_destroy(struct gen_server *s);
extern const struct sst_stream_ops gen_server_stream_ops;
extern const struct sst_worker_ops gen_server_worker_ops;
/** Run the server until interrupted. @return the exit status. */
int gen_server_run(const struct gen_conf *c);

/** Replay templates on a DPDK port. @return the exit status. */
int gen_template_run(const struct gen_conf *c);

/* How channels came and went on one side (gen_report.c): the scale run's
 * check that each client got one channel (issue 21). */
struct gen_life {
	uint64_t made, open, replaced, silences, dead_peers, unheard;
	uint64_t i1, i1_duplicate, i1_conflict, i1_refused; /**< responder: ChkI1 or SecI1 */
	uint64_t established;				    /**< negotiation, both roles */
	/** The link's drops: a full queue (a memif ring the peer did not
	 * empty in time) or an error. */
	uint64_t tx_drops;
	/** Sharded (--workers): datagrams handed to their owner, and those
	 * its inbox had no room for (dropped). */
	uint64_t handed, handoff_full;
};
struct sst_worker;
/** Add worker @p w's counters to @p l. */
void gen_life_add(struct gen_life *l, const struct sst_worker *w);
/** One line of @p l on stderr, for side @p who ("client", "server"). */
void gen_life_print(const char *who, const struct gen_life *l);

/** Resident memory of this process in bytes (0 when unknown). */
uint64_t gen_rss(void);

#endif /* GEN_H */
