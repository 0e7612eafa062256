/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A two-host world for stream-layer scenarios in the simulator: hosts a
 * (client) and b (server), each with a stream host, one peer for the other
 * and one channel (more for migration), over a simlink pair. Flows are the
 * application: each is one stream carrying [8-byte id][pattern] in each
 * direction, checked byte by byte on arrival.
 */
#ifndef STREAM_WORLD_H
#define STREAM_WORLD_H

#include <stdbool.h>
#include <stdint.h>

#include "sim.h"
#include "sst_stream.h"

enum {
	WORLD_MAX_CHANS = 4,
	WORLD_DGRAM_MAX = 4 << 20, /* largest datagram checked on arrival */
};

struct world;

struct endpoint {
	struct world *w;
	int side; /* 0: a (client), 1: b (server) */
	struct sim_host *host;
	struct sst_stream_host *sh;
	struct sst_stream_peer *peer;
	struct sst_stream_chan *chans[WORLD_MAX_CHANS];
	int nchans;
	uint16_t port;	  /* the sim port the current channel uses */
	bool read_paused; /* slow reader: reads only when the test says */
};

struct flow {
	struct sst_stream *s[2]; /* the stream at a and at b */
	uint64_t id;
	uint64_t len[2];     /* bytes each side sends */
	uint64_t written[2]; /* bytes each side wrote */
	uint64_t got[2];     /* bytes each side received and checked */
	bool eof[2];	     /* each side read the end of the other's direction */
	bool shut[2];	     /* each side ended its direction */
	bool end_wanted[2];  /* keep_open: end the direction once all is written */
	bool closed[2];	     /* each side closed its handle */
	bool bad;	     /* a byte differed */
	int connect_err;
	bool connected;
	int end[2]; /* enum sst_stream_end + 1 once reported */
	sst_time_t first_byte_at[2], done_at[2];
	int32_t prio;
	bool paused[2];	     /* a slow reader: this side does not read for now */
	struct flow *parent; /* a substream of this flow's stream */
};

struct world {
	struct sim *sim;
	struct endpoint ep[2];
	struct sim_link *links[WORLD_MAX_CHANS];
	uint32_t chan_gen[WORLD_MAX_CHANS]; /* channels destroyed in each slot */
	struct flow *flows;
	uint64_t nflows, flows_cap;
	uint64_t flows_done, bytes_checked, mismatches;
	uint64_t next_connect; /* flows before this one are connected */
	bool keep_open;	       /* flows never end their directions (idle streams) */
	bool hold_finished;    /* finished flows keep their handles: world_close_finished() */
	uint64_t bytes_goal;   /* world_run_bytes() */
	uint16_t chunk;	       /* bytes per write */
	bool server_closes_on_eof;
	uint64_t dgrams_rx[2];
	uint64_t dgram_bytes_rx[2];
	uint64_t dgram_bad;
	uint64_t priority_requests; /* applied with sst_stream_apply_priority_message() */
	bool dgram_via_accept;	    /* read datagrams with sst_stream_accept_substream() */
	uint64_t chans_closed[2];   /* ops.channel_closed() calls per side */
	uint64_t accepted[2];	    /* top-level streams each side's application was given */
	uint64_t dgrams_as_substreams;
	void (*on_flow_done)(struct world *w, struct flow *f);
	void *user;
	/* Late duplicates: this share of packets is delivered again later. */
	double late_dup;
	sst_time_t late_dup_max;
	uint64_t late_dups_sent;
	uint64_t rng;
	/* Drop a packet on its way out (true: dropped). */
	bool (*tx_filter)(struct world *w, int side, uint16_t port, const struct rte_mbuf *m);
	/* Datagrams: [8-byte number][pattern]; counted where they arrive. */
	uint64_t dgram_sizes_rx[2];
	/* Bulk runs: flows write unpatterned bytes and reads only count them
	 * (a byte-by-byte check of gigabytes would dominate the run). */
	bool unchecked;
};

struct world_params {
	uint64_t seed;
	struct sst_stream_host_params host; /* pools filled in by world_create */
	struct sst_simlink_params link;	    /* both directions */
	uint32_t caps;			    /* what each side tells the other */
	uint32_t replay_window;
	uint32_t tx_log;
	enum sst_crypto_suite suite;
	uint64_t flows_cap;
	uint64_t packet_limit; /* each channel's (sst_channel_params); 0: the suite's */
	bool channel_defaults; /* replay window and tx log: the channel's defaults */
};

/** EAL and pools; call once. */
int world_eal_init(const char *prefix);

struct sst_test_case;
/** A scenario program's main(): the EAL (file prefix @p suite and our
 * pid), *seed from SST_SIM_SEED (default 0x5eedf00d), then the cases. */
int world_test_main(const char *suite, const struct sst_test_case *cases, uint64_t *seed);
struct rte_mempool *world_pool(void);
void world_link_defaults(struct sst_simlink_params *l);

/** The scenarios' defaults: both sides extended, replay window 64, 4096
 * streams, 512 send and receive buffers of 1 MiB to send, 2048 SIDs per
 * direction. */
void world_params_default(struct world_params *wp, uint64_t seed);

/** The evaluation's scenarios (a link like a real one, channels as the
 * library sets them up): world_params_default(), the channel's own
 * defaults for the replay window and tx log, and a link of @p rate_bps
 * with @p delay_ns one way and a queue of @p queue_pkts (0: unbounded). */
void world_params_link(struct world_params *wp, uint64_t seed, uint64_t rate_bps,
	sst_time_t delay_ns, uint32_t queue_pkts);

/** Close the handles of the flows that finished while w->hold_finished. */
void world_close_finished(struct world *w);

/** Pump, then run the simulator until virtual time t. */
void world_run_until(struct world *w, sst_time_t t);

struct world *world_create(const struct world_params *wp);
void world_destroy(struct world *w);

/** Open another channel between the two hosts, in the first slot whose
 * channel was destroyed (its link and port again, new half-channel IDs and
 * keys) or else a new slot (a new link, port n). @return its slot. */
int world_add_channel(struct world *w, const struct world_params *wp);

/** The stream layer's side of channel @p idx on @p side with @p wp's
 * channel parameters, not recorded in the world (NULL: creation failed).
 * Its IDs and keys depend on the slot and how many channels it had. */
struct sst_stream_chan *world_make_chan(
	struct world *w, int side, const struct world_params *wp, int idx);

/** Start a flow from a: bytes a sends, bytes b answers. */
struct flow *world_flow_start(struct world *w, uint64_t a_bytes, uint64_t b_bytes, int32_t prio);

/** Start a substream of flow @p parent (opened by a, already connected). */
struct flow *world_substream_start(
	struct world *w, struct flow *parent, uint64_t a_bytes, uint64_t b_bytes);

/** Send a datagram of @p len bytes (>= 8) numbered @p n from side on f's stream. */
int world_send_datagram(struct world *w, struct flow *f, int side, uint64_t n, uint32_t len);

/** Side @p side of flow f sends @p bytes more (keep_open worlds). */
void world_flow_more(struct world *w, struct flow *f, int side, uint64_t bytes);

/** Side @p side of flow f ends its direction once all it wrote is queued
 * (keep_open worlds). */
void world_flow_end(struct world *w, struct flow *f, int side);

/** Run until @p bytes were checked in all, or the deadline. */
int world_run_bytes(struct world *w, uint64_t bytes, sst_time_t deadline);

/** Read what a paused side left (after unpausing it). */
void world_read_flow(struct world *w, struct flow *f, int side);

/** The same without flushing the channels: what the reads made due is
 * still queued when the call returns. */
void world_read_flow_unflushed(struct world *w, struct flow *f, int side);

/** Retire channel idx on both sides (its streams move to the newest); its
 * slot is free for world_add_channel(). */
void world_kill_channel(struct world *w, int idx);

/** Write and read whatever can be, then flush both channels. */
void world_pump(struct world *w, sst_time_t now);

/** Run until every flow finished or the deadline. @return 0 or the sim's error. */
int world_run(struct world *w, sst_time_t deadline);

/** Check the final state: every byte checked, no mismatch, all finished. */
void world_check_done(struct world *w);

#endif /* STREAM_WORLD_H */
