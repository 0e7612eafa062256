/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen, the stateful client's state: shared by the workload logic
 * (gen_client.c) and the reports (gen_report.c).
 */
#ifndef GEN_CLIENT_H
#define GEN_CLIENT_H

#include <assert.h>
#include <stdalign.h>
#include <stdatomic.h>

#include "gen.h"
#include "gen_clock.h"
#include "sst_engine.h"
#include "sst_ethdev.h"
#include "sst_link.h"
#include "sst_worker.h"

enum chan_state {
	CH_IDLE = 0,   /**< not started yet (--channel-rate) */
	CH_CONNECTING, /**< handshake under way */
	CH_UP,	       /**< running its workload */
	CH_DONE,       /**< its streams are done: held until the run ends */
	CH_FAILED,
	CH_STATES,
};

struct gen_chan;
struct gen_shard;

/* One stream: a request written, a response read and checked. */
struct gen_flow {
	struct gen_chan *ch;
	struct sst_stream *s;
	uint64_t tag;
	uint32_t req, resp; /**< sizes drawn for this stream */
	uint32_t tx, rx;
	uint64_t t0;	   /**< TSC at open */
	uint64_t t_rx;	   /**< TSC of the port's stamp on the last data read; 0: none */
	uint64_t ready_at; /**< ns: think time over, the slot may start again */
	bool shut, live;
	bool ctl; /**< --sst-perf: the test's control stream (gen_perf.c) */
};

/* One channel: a worker on a socket of its own, or (--port) one of the
 * local endpoints of the port's worker. */
struct gen_chan {
	struct gen_client *g;
	struct gen_shard *sh; /**< the worker's share that makes and runs it */
	uint32_t id;
	uint8_t state;
	const struct gen_workload *wl;
	struct sst_link *link;
	struct sst_worker *w;
	struct sst_stream_peer *peer;
	uint64_t t_connect; /**< TSC */
	uint32_t started;   /**< streams of the current round */
	uint32_t live;
	uint64_t rounds;
	struct gen_flow *flows; /**< wl->concurrent slots */
	/* A stream's end reported inside a read of it: acted on after. */
	struct sst_stream *in_read;
	bool close_pending;
	bool queued; /**< on the run queue (gen_active.c) */
	/* --attack stream-slots */
	uint64_t slots_held, slots_refused;
	void *atk; /**< the attack's link state (gen_attack.c), or NULL */
};

/* What the per-second lines and the final report show. */
struct gen_totals {
	uint64_t tx_pkts, rx_pkts, tx_bytes, rx_bytes;
	uint64_t up, setups, setup_failed;
	uint64_t streams, txns, stream_failed, verify_errors, short_responses;
	uint64_t refused; /**< streams the server refused before answering: opened again */
	/* Payload: written to streams and datagrams sent; and what came
	 * back checked (a verified stream's request and response, an echoed
	 * datagram). */
	uint64_t payload_tx, payload_ok;
	/* The datagram workload (gen_dgram.c). */
	uint64_t dg_sent, dg_echoed, dg_bad, dg_lost;
	uint64_t dg_refused; /**< not taken by the stack now (no window): sent again */
};

/* gen_totals as words, for the copy a worker publishes (gen_lcore.c). */
enum { GEN_TOTALS_WORDS = sizeof(struct gen_totals) / sizeof(uint64_t) };
static_assert(sizeof(struct gen_totals) == GEN_TOTALS_WORDS * sizeof(uint64_t),
	"struct gen_totals: 64-bit counters only");

/*
 * What one worker of the client owns (--port: a shard of the engine; over
 * kernel UDP the one shard of the main thread): the channels it makes, its
 * run queue, pacing and random numbers, its totals and histograms. With a
 * worker per lcore (gen_lcore.c) only that lcore touches it, so the data
 * path shares nothing and takes no lock; the main lcore reads the copy of
 * the totals the worker publishes (relaxed atomics) for the per-second
 * lines, and the rest once the workers have stopped.
 */
struct gen_shard {
	/* A cache line of its own: each is written by another lcore. */
	alignas(64) struct gen_client *g;
	uint16_t index;	    /**< its worker (--port); 0 over kernel UDP */
	unsigned int lcore; /**< the lcore it runs on, when launched */
	bool launched;
	uint32_t *chans, nchans;    /**< the channels it makes, in order */
	uint32_t next;		    /**< of those, started so far */
	uint32_t *runq, nrun;	    /**< gen_active.c: channels that may start a stream */
	uint32_t nstate[CH_STATES]; /**< channels in each state */
	uint64_t live;		    /**< streams under way */
	uint64_t rng, stream_seq;
	double stream_tokens, chan_tokens; /**< its share of the rates */
	sst_time_t last_refill, next_publish;
	sst_time_t t_done; /**< when it had nothing left to do (0: not yet) */
	struct gen_totals tot;
	struct gen_hist setup, txn; /**< ns */
	/* The client's latency clock, copied: its line is refitted and its
	 * stamps counted by the lcore that reads (gen_clock.c). */
	struct gen_clock clock;
	/* Published for the main lcore every few milliseconds: each word at
	 * most that old, the set not one snapshot (as the engine's
	 * telemetry, docs/engine.md). */
	_Atomic uint64_t pub[GEN_TOTALS_WORDS];
	_Atomic uint64_t pub_done_at; /**< t_done */
};

/* What an attack did and what the target answered (gen_attack.c). */
struct gen_attack_stats {
	uint64_t forged;	   /**< ack words rewritten */
	uint64_t rx_after;	   /**< the target's channel packets after the first */
	uint64_t first_forged_tsc; /**< TSC at the first rewrite */
	uint64_t last_rx_tsc;	   /**< TSC at the last of those packets */
	/* --port: the workers' channel packets (sst_worker_stats.rx_channel)
	 * at the first forged word, and when last seen to change */
	uint64_t port_rx_base, port_rx_last;
	/* stream-slots */
	uint64_t slots_opened, slots_held, slots_refused, slots_ended;
	uint64_t slots_before_refusal; /**< held over all channels at the first refusal */
	/* cookie-replay */
	uint64_t replay_taken;	 /**< address-proving handshake messages captured */
	uint64_t replayed;	 /**< sent again from other endpoints */
	uint64_t replay_answers; /**< datagrams the target sent to those endpoints */
	/* cookie-expiry: the target's answers to the replays, by kind */
	uint64_t replay_accepted;   /**< SecR1: the replay was taken as a new handshake */
	uint64_t replay_challenged; /**< SecCookie: refused, a new cookie asked for */
	uint64_t load_makers;	    /**< SecI1 sent from another endpoint to load the target */
};

/* --sst-perf: where the test's control stream is (gen_perf.c). */
enum gen_perf_state {
	GEN_PERF_IDLE = 0, /**< not opened yet */
	GEN_PERF_ASKED,	   /**< parameters sent */
	GEN_PERF_READY,	   /**< the server said ready: data streams may go */
	GEN_PERF_ENDING,   /**< our end sent: waiting for the server's counters */
	GEN_PERF_RESULT,   /**< the counters came */
	GEN_PERF_FAILED,
};

struct gen_perf {
	struct gen_flow flow; /**< the control stream (flow.ctl set) */
	enum gen_perf_state state;
	uint8_t buf[128];
	uint32_t len;
	/* The server's counters (struct perf_result). */
	uint32_t status;
	uint64_t done, failed, verify_errors, rx_bytes;
	char why[80];		     /**< what went wrong, for the report */
	bool reading, close_pending; /**< the end reported inside a read: after it */
};

struct gen_client {
	const struct gen_conf *c;
	struct rte_mempool *pool, *clones;
	/* --port: an engine of nw workers on the port answers for every
	 * channel's source endpoint (gen_port.c); NULL over kernel UDP. */
	struct sst_engine *e;
	uint16_t nw;
	bool link_warned; /**< said once that the port's link stays down */
	struct sst_ethdev_link_conf eth[SST_WORKERS_MAX];
	const void *eth_ptr[SST_WORKERS_MAX];
	struct gen_chan *ch;
	uint32_t nch;
	uint32_t next_connect; /**< kernel UDP: channels started so far */
	/* A shard per worker (--port), or one over kernel UDP. */
	struct gen_shard *sh;
	uint16_t nsh;
	bool on_lcores;	       /**< a worker per lcore (gen_lcore.c), else all on this thread */
	_Atomic bool stopping; /**< no new streams (set by the main lcore) */
	_Atomic bool halt;     /**< the workers' lcores return */
	/* The shards' figures merged (gen_lcore.c) for the reports. */
	struct gen_totals tot;
	struct gen_attack_stats attack;
	struct gen_clock clock; /**< what times transaction ends (gen_clock.c) */
	struct gen_perf perf;
	struct gen_hist setup, txn; /**< ns */
	uint64_t tsc_hz;
	/* Times and memory. */
	sst_time_t t_start, t_end;
	uint64_t t_end_tsc;
	uint64_t rss0, rss_peak;
	uint64_t peak_up;
	sst_time_t last_line;
	struct gen_totals at_line;
	uint32_t seconds;
};

/* gen_port.c: the client over a DPDK port. */
/** Set up the port and its engine (g->e, g->nw). @return 0 or -1 after
 * printing why. */
int gen_port_open(struct gen_client *g);
/** The index of the worker that owns the channel from @p src to the
 * server, which must connect it; -1 if src is not IPv4. */
int gen_port_owner(struct gen_client *g, const struct sst_net_endpoint *src);
/** One pass of every worker of the port's engine on this thread. */
void gen_port_poll(struct gen_client *g, sst_time_t now);
/** Once a second: say (once) if the port's link is still down. */
void gen_port_second(struct gen_client *g, sst_time_t now);
/** Channels open on the port's workers. */
uint64_t gen_port_open_channels(struct gen_client *g);
/** What every worker of the client shares (gen_client.c), added to a
 * worker's or an engine's parameters: a fresh secret (the caller wipes
 * it after the create), capabilities, the secure configuration, the
 * clone pool, and the stream callbacks with context @p ctx. */
void gen_host_params(struct gen_client *g, struct sst_nego_host_params *nego,
	struct sst_stream_host_params *stream, void *ctx);
void gen_port_close(struct gen_client *g);
/** The channel whose source endpoint the tagged endpoint ep names, or NULL. */
struct gen_chan *gen_port_chan(struct gen_client *g, const struct sst_net_endpoint *ep);
/** Channel i's source endpoint (the --src ranges). */
void gen_source_of(const struct gen_conf *c, uint32_t i, struct sst_net_endpoint *ep);
/** A channel's callbacks, for gen_port_ops (which finds the channel). */
void gen_chan_ready(struct gen_chan *ch, struct sst_stream_peer *peer);
void gen_chan_gone(struct gen_chan *ch, struct sst_stream_peer *peer);
void gen_chan_failed(struct gen_chan *ch);
/** Start what streams channel ch may start now. @return true when it
 * may start more later without a stream ending first (a slot waits for
 * its think time, a token, a control block or --sst-perf's go). */
bool gen_chan_poll(struct gen_chan *ch, sst_time_t now);

/* gen_dgram.c: the datagram workload. */
/** Channel ch's pass: open its datagram stream, send what the rate allows,
 * and once all went (or the run stops) wait for the echoes and end it.
 * @return true while it has more to do (it stays on the run queue). */
bool gen_dgram_poll(struct gen_chan *ch, struct gen_flow *f, sst_time_t now);
/** The datagram stream is readable: the echoes, checked. */
void gen_dgram_readable(struct gen_flow *f, sst_time_t now);
/** The datagram stream ended before its time: a failed stream. */
void gen_dgram_closed(struct gen_flow *f, sst_time_t now);

/* gen_active.c: per-pass work in proportion to the work (issue 21). */
/** Move channel ch to state st, keeping the counts. */
void gen_chan_set_state(struct gen_chan *ch, uint8_t st);
/** Counts for the shard's channels (all idle) and, with @p queue (--port:
 * a worker for many), its run queue. @return 0, or -1 (no memory). */
int gen_active_init(struct gen_shard *sh, bool queue);
void gen_active_fini(struct gen_shard *sh);
/** Channel ch may start a stream (it came up, or a slot freed): queue it
 * once. */
void gen_active_add(struct gen_chan *ch);
/** The port worker's pass: poll each queued channel of its shard, keep
 * those that may start more. */
void gen_active_poll(struct gen_shard *sh, sst_time_t now);
/** @return true when no channel of the shard has anything left to do. */
bool gen_shard_done(const struct gen_shard *sh);

/* gen_lcore.c: the shards, their lcores and the merge of their figures. */
/** Shards for g's channels: one over kernel UDP, else one per worker of
 * the port's engine, each with the channels its worker owns. @return 0,
 * or -1 after printing why. */
int gen_shards_init(struct gen_client *g);
void gen_shards_fini(struct gen_client *g);
/** A shard's pass (on its worker's thread): pacing, new channels, the
 * run queue, and now and then its published totals. */
void gen_shard_pass(struct gen_shard *sh, sst_time_t now);
/** New channels of the shard, paced (gen_client.c). */
void gen_connect_more(struct gen_shard *sh, sst_time_t now);
/** g->tot (and with @p final the histograms and link figures) from the
 * shards: with @p published from what the workers published (they run),
 * else from the shards themselves (on this thread, or stopped). */
void gen_shards_merge(struct gen_client *g, bool published, bool final);
/** Whether every shard is done (the published flags when on lcores);
 * @p t_done set to when the last one was. */
bool gen_shards_done(struct gen_client *g, sst_time_t *t_done);
/** Run every worker of the port on its own lcore. @return 0, or -1 after
 * printing why (none left running). */
int gen_lcores_launch(struct gen_client *g);
/** Stop the workers' lcores and wait for them. */
void gen_lcores_join(struct gen_client *g);

/* gen_attack.c */
/** @p inner seen through the attack's rewriter (--attack optimistic-ack).
 * @return the link, or NULL (inner is closed then). */
struct sst_link *gen_attack_wrap(struct sst_link *inner, struct gen_client *g, void **self);
/** The ack rewriter every channel's worker gets (sst_worker_params /
 * sst_engine_params.ack_forge_for_testing, context @p g): the secure-mode
 * optimistic-ack attack; NULL for every other run. */
const struct sst_channel_ack_forge *gen_attack_ack_forge(const struct gen_client *g);
/** --attack cookie-expiry, after the run (the channels closed): send each
 * channel's SecI1 that carried a cookie again from its own socket once
 * --replay-after has passed since it was first sent, and count the
 * target's answers for a second (calling @p poll). */
void gen_attack_expiry_replay(struct gen_client *g, void (*poll)(struct gen_client *, sst_time_t));
/** The attack's line of the final table, or its member of the JSON object. */
void gen_attack_report(const struct gen_client *g, bool json);
/** The user of every stream of the stream-slots attack. */
extern char gen_slot_marker;
/** Channel ch's pass under --attack stream-slots: open streams (and never
 * use them) until the target refuses one. */
void gen_attack_slots_poll(struct gen_chan *ch, sst_time_t now);
/** --port: gen_attack_slots_poll() for every channel connected so far (the
 * port's one app_poll; an attack holds few channels). */
void gen_attack_slots_poll_all(struct gen_client *g, sst_time_t now);
/** One of those streams ended (refused, or reset): counted and released. */
void gen_attack_slot_closed(struct sst_stream *s, enum sst_stream_end why, sst_time_t now);

/* gen_perf.c: the run as one test of `sst-perf --server` (--sst-perf) */
/** Every workload has the same fixed request and response sizes (one test
 * has one of each), stored in @p request and @p response. @return 0 or -1. */
int gen_perf_check_conf(const struct gen_conf *c, uint32_t *request, uint32_t *response);
/** Set up the pattern and the control stream's slot; before any channel. */
void gen_perf_init(struct gen_client *g);
/** Whether channel ch may open data streams: the first channel that asks
 * opens the control stream and sends the parameters; true once the server
 * said ready. */
bool gen_perf_ready(struct gen_chan *ch, sst_time_t now);
/** The request bytes [off, off + len) of the stream tagged @p tag. */
void gen_perf_fill(uint8_t *dst, uint64_t tag, uint64_t off, uint32_t len);
/** Bytes of @p src that differ from the response bytes [off, off + len) to a
 * request of @p req bytes tagged @p tag. */
uint64_t gen_perf_check(const uint8_t *src, uint64_t tag, uint32_t req, uint64_t off, uint32_t len);
/** The control stream is readable: the ready answer, then the counters. */
void gen_perf_readable(struct gen_client *g, sst_time_t now);
/** The control stream ended (released here; a failure unless the counters came). */
void gen_perf_closed(struct gen_client *g, sst_time_t now);
/** After the workload: end the control stream and wait (calling @p poll, at
 * most 10 s) for the server's counters. @return 0 when they came, else -1. */
int gen_perf_finish(struct gen_client *g, void (*poll)(struct gen_client *, sst_time_t));
/** The server's counters came and agree with ours: every stream we verified
 * it counts done, none failed, no wrong byte on its side. */
bool gen_perf_agrees(const struct gen_client *g);
/** The server's line of the final table, or its member of the JSON object. */
void gen_perf_report(const struct gen_client *g, bool json);

/** How the client's channels came and went, a line on stderr. */
void gen_client_life(const struct gen_client *g);
/** Sum the links' counters into g->tot (O(channels): once a second). */
void gen_client_sum_links(struct gen_client *g);
/** A per-second line on stderr. */
void gen_report_second(struct gen_client *g, sst_time_t now);
/** The final table, or the JSON object. @return the exit status. */
int gen_report_final(struct gen_client *g);

#endif /* GEN_CLIENT_H */
