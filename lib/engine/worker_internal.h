/* SPDX-License-Identifier: BSD-3-Clause */
/* The worker's state (worker.c), shared with its telemetry (telemetry.c). */
#ifndef WORKER_INTERNAL_H
#define WORKER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_branch_prediction.h>

#include "sst_burst.h"
#include "sst_cc_stp.h"
#include "sst_event_log.h"
#include "sst_log.h"
#include "sst_mem.h"
#include "sst_net.h"

#include "sst_worker.h"
#include "worker_table.h"
#include "worker_tag.h"

/*
 * An endpoint (peer address and port) we gave channel numbers to. Byte 0
 * of a channel packet means something only together with the endpoint it
 * came from (wire-format.md section 1): numbers are handed out per
 * endpoint, 1..255, so a server holds any number of peers. The record
 * outlives its last number by the quiet period (worker_peers.c), so that
 * a number is not handed out again while the peer may still hold it.
 */
struct worker_ep {
	uint64_t hash; /**< worker_hash_ep() */
	struct sst_net_endpoint ep;
	struct worker_peer *peer; /**< the peer there now, or NULL */
	uint64_t taken[4];	  /**< numbers given out (bit 0 never) */
	uint16_t ntaken;
	uint8_t cursor; /**< the number handed out last */
	bool lingering; /**< on the worker's linger list */
	/** Handed to us by the worker it hashes to, whose peer moved here
	 * (worker_move.c): that worker steers it to us until the record goes. */
	bool adopted;
	sst_time_t linger_until; /**< freed then, unless a number was taken again */
	TAILQ_ENTRY(worker_ep) linger_link;
};

/* Link bursts a pass takes when each comes full (worker_rx()). */
enum { WORKER_RX_BURSTS = 2 };

/*
 * A peer's life (worker_life.c):
 *
 *   ORPHAN ---a channel is added---> CONNECTED ---its last channel ends---> ORPHAN
 *   CONNECTED ---silent for dead_peer_timeout with our data waiting---> DEAD
 *   DEAD ---its channels end (that pass)---> ORPHAN
 *   CONNECTED, idle and without streams ---max_peers reached---> EVICTED
 *   EVICTED ---its channels end (that pass)---> ORPHAN, freed at once
 *   ORPHAN ---no stream left (the application closed them)---> freed
 *
 * A new peer is an orphan until its first channel is added; a dead one
 * that comes back (a new channel) is connected again.
 */
enum worker_peer_state {
	PEER_ORPHAN,	/**< no channel: on the worker's orphan list */
	PEER_CONNECTED, /**< one channel or more */
	PEER_DEAD,	/**< declared dead: its channels end at the end of the pass */
	PEER_EVICTED,	/**< idle, its place taken (max_peers): its channels end this pass */
};

/*
 * A remote host: its streams (the stream layer's peer) and its channels.
 * It is at one endpoint at a time; when it shows up at another (a NAT
 * rebinding, a new interface) with the same host instance (and, in secure
 * mode, the same identity), it moves there and keeps its streams
 * (worker_peer_find_moved()).
 */
struct worker_peer {
	struct worker_ep *at;
	struct sst_stream_peer *sp;
	enum worker_peer_state state;
	enum sst_nego_mode mode;
	/** We opened the first channel to it (it is our server): we are the
	 * side that can reach it, so we renegotiate when it falls silent. */
	bool we_initiated;
	/** When an authenticated packet last came from it (a peer still heard
	 * at its endpoint has not moved away from it; one not heard for
	 * dead_peer_timeout while our data waits is dead). */
	sst_time_t last_heard;
	bool instance_known;
	uint64_t instance;
	uint64_t instance_hash;
	uint8_t id[SST_SECURE_KEY_LEN]; /**< secure mode: its identity; else zero */
	uint32_t nchans;
	TAILQ_HEAD(, worker_chan) chans;
	TAILQ_ENTRY(worker_peer) orphan_link;
};

/*
 * A channel's life (worker_life.c). Every channel starts LIVE, carrying
 * its peer's streams, and leaves through ENDING, which the pass carries
 * out at its end, outside every callback:
 *
 *   LIVE ---near a limit, or silent---> REPLACE_WANTED ---negotiation starts---> REPLACING
 *   REPLACING ---it failed---> REPLACE_WANTED (again after REPLACE_RETRY)
 *   LIVE, REPLACE_WANTED, REPLACING ---a newer channel took the streams---> RETIRING
 *   LIVE ---closed idle toward a prototype (no FINISH)---> LINGERING ---used again---> LIVE
 *   RETIRING ---unused: FINISH agreed, exhausted, or retire_by---> ENDING
 *   LINGERING ---linger_until---> ENDING
 *   any ---failed, FINISH agreed, peer restarted or dead---> ENDING
 */
enum worker_chan_state {
	CHAN_LIVE,
	CHAN_REPLACE_WANTED, /**< live; a successor is negotiated from replace_not_before */
	CHAN_REPLACING,	     /**< live; its successor is being negotiated */
	CHAN_RETIRING,	     /**< a successor has the streams: it ends by retire_by */
	CHAN_LINGERING,	     /**< a prototype peer's, closed: it ends at linger_until */
	CHAN_ENDING,	     /**< destroyed at the end of this pass */
};

struct worker_chan {
	/* The key first, in the line a lookup touches (worker_chans_find()):
	 * a copy of the endpoint, so that no second record is read. */
	uint64_t hash;		    /**< worker_hash_chan(at->hash, number) */
	struct sst_net_endpoint ep; /**< at->ep */
	uint8_t number;		    /**< ours: byte 0 of what the peer sends us */
	struct sst_stream_chan *sc;
	struct sst_worker *w;
	struct worker_ep *at; /**< where it sends; its key with number */
	struct worker_peer *peer;
	uint32_t index; /**< in w->chans */
	uint8_t peer_channel;
	enum sst_nego_mode mode; /**< how it was negotiated */
	enum worker_chan_state state;
	bool initiator; /**< we negotiated it (we replace it: replace_check()) */
	/** FINISH offered (sst_stream_chan_close()) since it was last used:
	 * idle, or retiring. */
	bool finish_offered;
	sst_time_t finish_offered_at; /**< when finish_offered was set (FINISH_WAIT) */
	/** Replaced for its silence: unreachable, so it ends after
	 * UNREACHABLE_GRACE once retiring. */
	bool silent;
	/** It took the streams of older channels to the peer, of which we were
	 * the initiator if pred_initiator (crossing_loser()). */
	bool successor;
	bool pred_initiator;
	/** Secure initiator until the responder shows it has our SecI2: our
	 * packets ride in copies of SecI2 (sst_nego_send_early()); checksum
	 * responder until the initiator's first packet (UNHEARD_IDLE). */
	bool unconfirmed;
	sst_time_t replace_not_before; /**< REPLACE_WANTED: from then; NEVER: not yet decided */
	sst_time_t retire_by;	       /**< RETIRING: ends then whatever the peer does */
	/** RETIRING and exhausted (sst_stream_chan_exhausted()): it ends
	 * then, once what was in flight had time to be acknowledged; 0: not
	 * yet. */
	sst_time_t exhausted_until;
	sst_time_t linger_until; /**< LINGERING: ends then */
	sst_time_t idle_since;	 /**< unused since; SST_TIME_NEVER while in use */
	/** Silence (silence_check()): the highest of our numbers the peer
	 * acknowledged, and since when it has not moved with packets of ours
	 * in flight. */
	uint64_t acked_seen;
	sst_time_t acked_since;
	uint64_t rtos_seen; /**< the channel's RTO count then */
	/** The channel's packets received when the peer's packets began to
	 * count as not hearing us (heard_counting: half the silence limit). */
	uint64_t heard_seen;
	bool heard_counting;
	/** Since when our data has waited for the peer (dead_peer_check());
	 * SST_TIME_NEVER: nothing outstanding. */
	sst_time_t waiting_since;
	/** When a keepalive probe last went out (keepalive_at()); 0: never. */
	sst_time_t probed_at;
	/* The pass visits a channel only when something may have changed for
	 * it (sst_worker_poll()): it is on the active list (a packet arrived,
	 * an event came, its stream layer queued work), or its wake_at came
	 * (the timer heap). */
	bool active;
	uint32_t heap_pos; /**< index + 1 in w->heap; 0: not there (wake_at NEVER) */
	sst_time_t wake_at;
	TAILQ_ENTRY(worker_chan) peer_link;
};

struct sst_worker {
	/* What every pass reads, one that receives nothing too, in its first
	 * lines: when one thread polls several workers, the busy one's work
	 * between two polls of an idle one evicts them, and each line is a
	 * cache miss of the idle poll (docs/performance.md, "Session 23"). */
	struct sst_link *link;	/**< p.link */
	struct rte_ring *inbox; /**< p.inboxes[p.shard_index]; NULL unless sharded */
	struct sst_nego_host *nego;
	struct sst_stream_host *sh;
	struct sst_net *net; /**< frame links: the network layer; else NULL */
	/** p.ops->app_poll (NULL without) and its p.ctx. */
	void (*app_poll)(void *ctx, struct sst_worker *w, sst_time_t now);
	void *app_poll_ctx;
	/* Both hold at most every channel: sized with chans, so that adding
	 * to them never allocates (worker_chan_add()). */
	struct worker_chan **active; /**< channels to visit in this pass */
	struct worker_chan **heap;   /**< by wake_at, earliest first */
	uint32_t nactive;
	uint32_t nheap;
	uint32_t nchans;
	uint32_t sweep_cursor; /**< the channel the pass visits in turn last */
	/** The time of the pass (or sst_worker_connect()) in progress, for
	 * negotiation's callbacks that carry none (chan_free). */
	sst_time_t now;
	sst_time_t next_sum; /**< when stats.channels is refreshed next */
	/* Refusals logged once per REFUSALS_LOG_INTERVAL (worker_refusals_log()):
	 * when the next may be written (their totals: refusals_logged). */
	sst_time_t refusals_log_at;
	TAILQ_HEAD(, worker_ep) lingering; /**< in linger_until order */
	TAILQ_HEAD(, worker_peer) orphans; /**< peers without a channel */
	uint16_t rx_n; /**< this poll's datagrams for this worker (rx_pkts, rx_from) */

	struct sst_worker_params p;
	struct sst_shard_map shard;	      /**< who owns which peer (p.shard_map, copied) */
	const struct sst_stream_ops *app_ops; /**< the application's stream callbacks */
	void *app_ctx;
	struct sst_stream_ops stream_ops; /**< ours, forwarding to the application's */
	/** Where the objects of endpoints, peers and channels come from, ours
	 * and the stream layer's (sst_mem.h: the DPDK heap's free-list walk
	 * took most of a server's time at 40,000 channels, issue 21). */
	struct sst_mem_cache mem;
	/* Peers and channels (worker_peers.c). */
	uint8_t hash_key[16]; /**< of worker_hash_ep() */
	/** The last endpoint worker_chans_find() hashed, and its hash: the
	 * next burst mostly comes from it again, and SipHash is about 200
	 * instructions a packet (a transaction's packets come a burst each). */
	struct sst_net_endpoint last_ep;
	uint64_t last_ep_hash;
	bool last_ep_valid;
	/** The same for the dispatch step's shard owner (the map never
	 * changes after creation): its CRC of the endpoint was about 65
	 * instructions a packet with two workers. */
	struct sst_net_endpoint shard_memo_ep;
	uint16_t shard_memo_owner;
	bool shard_memo_valid;
	struct worker_table eps;	/**< worker_ep by endpoint */
	struct worker_table chan_table; /**< worker_chan by (endpoint, number) */
	struct worker_table instances;	/**< worker_peer by host instance */
	/** Endpoints served by another worker than their hash names, or by us
	 * although they hash elsewhere (worker_move.c); empty unless sharded. */
	struct worker_table steer;
	/** The worker a negotiation just refused hands its message to (the
	 * peer it names lives there, worker_move.c); -1: none. */
	int nego_handoff;
	struct worker_chan **chans; /**< every channel, densely, for the poll */
	uint32_t chans_cap;
	uint32_t npeers;
	uint32_t npeers_leaving; /**< evicted: gone at the end of this pass */
	uint32_t evict_cursor;	 /**< the channel worker_peer_evict_idle() looked at last */
	/** sst_worker_close_idle() was called: a graceful stop, in which a
	 * channel is closed as soon as no stream uses it (idle_check()). */
	bool closing;
	struct sst_worker_stats stats;
	int id;				/**< index in the telemetry table, or a negative errno */
	struct sst_net_endpoint local;	/**< our address family and UDP port */
	uint8_t steer_bits;		/**< of negotiation's steering tags (sharded) */
	struct sst_channel_stats ended; /**< channel counters of the channels that ended */
	uint32_t sum_ticks;		/**< 100 ms ticks since stats.channels was refreshed */
	uint64_t refusals_logged[10];	/**< the refusals' totals at the last log line */
	/* This poll's datagrams for this worker: handed over (a burst), then
	 * received (WORKER_RX_BURSTS bursts). */
	struct rte_mbuf *rx_pkts[(1 + WORKER_RX_BURSTS) * SST_MAX_BURST];
	struct sst_net_endpoint rx_from[(1 + WORKER_RX_BURSTS) * SST_MAX_BURST];
	/* Where its channels' events go (sst_worker_set_event_log()); NULL: nowhere. */
	struct sst_event_log *event_log;
	/** Events of untrusted controllers (STP) on its thread while it polls
	 * (sst_cc_stp_sink_set()), published with its counters. */
	struct sst_cc_stp_stats stp;
};

/* An object of the worker's (endpoint, peer, channel), zeroed, from its
 * cache; NULL when the heap has no chunk for it. */
static inline void *
worker_obj_alloc(struct sst_worker *w, size_t size)
{
	return w->mem.ops.zalloc(w->mem.ops.ctx, size);
}

/* Give back what worker_obj_alloc() made, with the size it was made with. */
static inline void
worker_obj_free(struct sst_worker *w, void *obj, size_t size)
{
	w->mem.ops.release(w->mem.ops.ctx, obj, size);
}

/* worker_local.c */
/** Tag remote (untagged, IPv4) with the local endpoint it is reached from. */
void worker_ep_tag(struct sst_net_endpoint *remote, const struct sst_net_endpoint *local);
/** Check the extra local endpoints' parameters (after the network layer is
 * up). @return 0 or -EINVAL. */
int worker_local_init(struct sst_worker *w);
/** to, one of the network layer's addresses, is an extra local endpoint. */
bool worker_local_accepts(const struct sst_worker *w, const struct sst_net_endpoint *to);

/** The object added to t under hash whose endpoint (the struct
 * sst_net_endpoint at ep_offset in it) equals ep, or NULL. */
static inline void *
worker_table_find_ep(const struct worker_table *t, uint64_t hash, const struct sst_net_endpoint *ep,
	size_t ep_offset)
{
	uint32_t pos = 0;
	void *obj;

	while ((obj = worker_table_next(t, hash, &pos)) != NULL)
		if (sst_net_endpoint_equal(
			    (const struct sst_net_endpoint *)((char *)obj + ep_offset), ep))
			return obj;
	return NULL;
}

/* Negotiation keys its tables by these bytes: field by field, so that the
 * padding of struct sst_net_endpoint never makes two equal endpoints
 * differ. */
static inline void
ep_to_addr(const struct sst_net_endpoint *ep, struct sst_nego_addr *a)
{
	memset(a, 0, sizeof(*a));
	a->bytes[0] = ep->addr.family;
	memcpy(&a->bytes[1], ep->addr.bytes, sizeof(ep->addr.bytes));
	a->bytes[17] = (uint8_t)(ep->port >> 8);
	a->bytes[18] = (uint8_t)ep->port;
	a->len = 19;
}

/* event_log.c: a channel's event, to the worker's event log (which must be
 * set). */
void worker_event_put(const struct worker_chan *wc, enum sst_event_kind kind, sst_time_t now,
	uint64_t a, uint64_t b, uint64_t c);
/** Trace the new channel wc and log that it is up (the log must be set). */
void worker_event_chan_up_logged(struct worker_chan *wc, sst_time_t now);

/* A channel's event, if the worker keeps an event log: one test otherwise. */
static inline void
worker_event(const struct worker_chan *wc, enum sst_event_kind kind, sst_time_t now, uint64_t a)
{
	if (unlikely(wc->w->event_log != NULL))
		worker_event_put(wc, kind, now, a, 0, 0);
}

/* event_log.c: a stream's event (a usid, b by kind), to the worker's event
 * log (which must be set). */
void worker_event_stream_put(const struct sst_worker *w, enum sst_event_kind kind, sst_time_t now,
	const struct sst_stream *s, uint64_t b);

/* A stream's event (SST_EVENT_STREAM_*), if the worker keeps an event log:
 * one test otherwise. */
static inline void
worker_event_stream(const struct sst_worker *w, enum sst_event_kind kind, sst_time_t now,
	const struct sst_stream *s, uint64_t b)
{
	if (unlikely(w->event_log != NULL))
		worker_event_stream_put(w, kind, now, s, b);
}

/* A channel came up: log it, and its congestion control from now on. */
static inline void
worker_event_chan_up(struct worker_chan *wc, sst_time_t now)
{
	if (unlikely(wc->w->event_log != NULL))
		worker_event_chan_up_logged(wc, now);
}

/* worker_nego.c: the negotiation host's callbacks (sst_nego_host_params.ops),
 * with the worker as their context: they send its messages over the link,
 * lend it channel numbers, and create the channel and its stream
 * attachment when a negotiation succeeds. */
extern const struct sst_nego_ops worker_nego_ops;

/* worker_life.c: the workers' log type (sst.worker), for control events
 * and refused parameters only: the packet path counts instead. */
extern int sst_logtype_worker;
#define WORKER_LOG(level, fmt, ...) SST_LOG(level, sst_logtype_worker, "worker", fmt, ##__VA_ARGS__)

/* worker_peers.c: endpoints, peers and channels, and their tables. */
int worker_peers_init(struct sst_worker *w);
/** Free every table and record (the channels and stream peers are gone). */
void worker_peers_fini(struct sst_worker *w);
/** ep's hash under the worker's secret key (keyed, so that a peer cannot
 * choose endpoints that collide in the tables). */
uint64_t worker_hash_ep(const struct sst_worker *w, const struct sst_net_endpoint *ep);

/** A channel's key in chan_table: the endpoint's hash moved by the number
 * (distinct numbers of one endpoint never share a home slot). */
static inline uint64_t
worker_hash_chan(uint64_t ep_hash, uint8_t number)
{
	return ep_hash + number * UINT64_C(0x9e3779b97f4a7c15);
}

/** The record of ep (hash: worker_hash_ep()), or NULL. */
struct worker_ep *worker_ep_find(
	const struct sst_worker *w, const struct sst_net_endpoint *ep, uint64_t hash);
/** Take the next free number for a channel with ep (creating its record).
 * @return 1..255, -ENOSPC (all 255 in use), or -ENOMEM. */
int worker_ep_take_number(struct sst_worker *w, const struct sst_net_endpoint *ep);
/** Give a number back (its negotiation failed or its channel ended). */
void worker_ep_give_number(
	struct sst_worker *w, struct worker_ep *e, uint8_t number, sst_time_t now);
/** Free the endpoint records whose quiet period is over. */
void worker_eps_expire(struct sst_worker *w, sst_time_t now);

/** The channel the peer at ep (hash: worker_hash_ep()) gave number, or NULL. */
static inline struct worker_chan *
worker_chan_find(const struct sst_worker *w, const struct sst_net_endpoint *ep, uint64_t ep_hash,
	uint8_t number)
{
	uint64_t hash = worker_hash_chan(ep_hash, number);
	uint32_t pos = 0;
	struct worker_chan *wc;

	while ((wc = worker_table_next(&w->chan_table, hash, &pos)) != NULL)
		if (wc->number == number && sst_net_endpoint_equal(&wc->ep, ep))
			return wc;
	return NULL;
}

/**
 * worker_chan_find() for a burst of n packets (at most SST_MAX_BURST):
 * out[i] is the channel of (eps[i], numbers[i]), or NULL. The steps run
 * over the whole burst in turn (hash, then the slots, then the channels),
 * with prefetches between them, so that the cache misses of a large table
 * overlap instead of adding up.
 */
void worker_chans_find(struct sst_worker *w, const struct sst_net_endpoint *eps,
	const uint8_t *numbers, uint16_t n, struct worker_chan **out);

/** Make wc (at, number, peer set) findable and polled. @return 0 or -ENOMEM. */
int worker_chan_add(struct sst_worker *w, struct worker_chan *wc);
/** Visit wc in this pass (or the next, when this one is past it). */
void worker_chan_activate(struct sst_worker *w, struct worker_chan *wc);
/** wc->wake_at changed: its place in the timer heap follows. */
void worker_chan_timer(struct sst_worker *w, struct worker_chan *wc);
/** Undo worker_chan_add() (the caller then frees wc). */
void worker_chan_remove(struct sst_worker *w, struct worker_chan *wc, sst_time_t now);

/** A new peer at e for the channel r describes. @return NULL: no room. */
struct worker_peer *worker_peer_create(
	struct sst_worker *w, struct worker_ep *e, const struct sst_nego_result *r);
/** A peer elsewhere that r, a channel the peer opened, shows to be the
 * same host, now at another endpoint (same mode, instance and, in secure
 * mode, identity), and that has not been heard from where it was for
 * MOVED_QUIET, or NULL. */
struct worker_peer *worker_peer_find_moved(
	struct sst_worker *w, const struct sst_nego_result *r, sst_time_t now);
/** Move p to e (its channels elsewhere stay where they are, to retire). */
void worker_peer_move(
	struct sst_worker *w, struct worker_peer *p, struct worker_ep *e, sst_time_t now);
/** p restarted as the instance r names: reindex it. */
void worker_peer_set_instance(
	struct sst_worker *w, struct worker_peer *p, const struct sst_nego_result *r);
/** Free the peers that have neither a channel nor a stream (peer_gone first). */
void worker_peers_reap(struct sst_worker *w, sst_time_t now);
/** Free every peer (worker destruction; no peer_gone()). */
void worker_peers_destroy_all(struct sst_worker *w);

/* worker_life.c: peers and channels over their lives. */

/* stats.channels is summed every 100 ms tick with fewer channels than
 * this, else every 1 + nchans / SUM_CHANS_PER_TICK ticks: 100,000 channels
 * every 5.1 s (worker.c). */
enum { SUM_CHANS_PER_TICK = 2000 };

/* Channel replacement (replace_check()); silence (silence_check()). */
static const sst_time_t REPLACE_RETRY = SST_NSEC_PER_SEC;
static const sst_time_t RESPONDER_GRACE = 200 * SST_NSEC_PER_MSEC;
static const sst_time_t RETIRE_GRACE = 10 * SST_NSEC_PER_SEC;
/* ... and one that nothing can reach any more (its peer moved, or it fell
 * silent). */
static const sst_time_t UNREACHABLE_GRACE = 500 * SST_NSEC_PER_MSEC;
/* An exhausted retiring channel stays two RTTs plus this, for what is in
 * flight either way to be acknowledged (its last numbers are kept for
 * that), so that neither side resends it on the successor needlessly. */
static const sst_time_t EXHAUSTED_LINGER = SST_NSEC_PER_MSEC;
/* A prototype peer's channel closed by sst_worker_close_idle() stays this
 * long, longer than the minimum RTO, to acknowledge a last lost packet the
 * peer resends (it has no FINISH to tell us it is done). */
static const sst_time_t PROTOTYPE_LINGER = 300 * SST_NSEC_PER_MSEC;
/* Our acknowledged numbers stood still this long (or four round trips,
 * when longer) with data in flight: the path to the peer is gone (our
 * address changed under a NAT, or the peer's side lost our channel). */
static const sst_time_t SILENCE_MIN = SST_NSEC_PER_SEC;
/* ... and the retransmission timer fired this many times meanwhile: a peer
 * (or a host) that is only slow, its round trips inflated by load, keeps
 * its channel; many channels replaced at once on a busy host made it
 * busier still (their negotiations refused, their streams stalled). */
enum { SILENCE_RTOS = 2 };
/* ... or, with only our acknowledgments in flight, this many packets of
 * the peer arrived in the second half of that time without acknowledging
 * any of ours: it is sending and does not hear us. */
enum { SILENCE_HEARD = 2 };
/* A host heard from at one endpoint within this long is using it: a
 * channel from another of its endpoints is a second path, not a move (the
 * host that moved was silent for SILENCE_MIN before it renegotiated). */
static const sst_time_t MOVED_QUIET = SST_NSEC_PER_SEC / 2;
/* A checksum responder's channel that its initiator never used (no packet
 * of it ever arrived: a spoofed ChkI1 from before the host went under
 * load, or a client that vanished after its ChkI1) ends after this long
 * unused, without a FINISH that nobody would answer: a flood's state goes
 * soon, and with it the load that keeps cookie-less legacy clients out. */
static const sst_time_t UNHEARD_IDLE = 10 * SST_NSEC_PER_SEC;
/* A channel offered for closing by FINISH ends after this long whatever
 * the peer did: a peer that closed its side after three losses of its own
 * FINISH, or that vanished, would otherwise leave it open for good (the
 * offer itself puts nothing in flight for dead-peer detection to see). */
static const sst_time_t FINISH_WAIT = 10 * SST_NSEC_PER_SEC;
/* Channels a pass visits in turn besides those with work (sst_worker_poll()). */
enum { SWEEP_PER_PASS = 16 };

/** wc ends at the end of this pass (it failed, both sides agreed to close
 * it, or its peer is gone). */
void worker_chan_end_soon(struct sst_worker *w, struct worker_chan *wc);
/** The channel layer asks for wc to be replaced (SST_CHANNEL_EV_REPLACE). */
void worker_chan_replace_asked(struct sst_worker *w, struct worker_chan *wc);
/** wc was negotiated with its peer's other channels in place: it loses a
 * crossing of replacements and retires, or takes their streams and they
 * retire (moved: the peer came from another endpoint). */
void worker_chan_established(
	struct sst_worker *w, struct worker_chan *wc, bool moved, sst_time_t now);
/** A replacement negotiated for one of p's channels failed. */
void worker_peer_replace_failed(struct sst_worker *w, struct worker_peer *p, sst_time_t now);
/** p is a new instance of the host (negotiation saw its instance change):
 * its streams died with it; its channels end. */
void worker_peer_restarted(struct sst_worker *w, struct worker_peer *p, sst_time_t now);
/** max_peers is reached: make room by evicting the peer idle longest
 * (no stream, its channels unused) among a few channels looked at in turn.
 * @return true if one was evicted (its place may be taken at once). */
bool worker_peer_evict_idle(struct sst_worker *w);
/** Offer FINISH on wc if no stream uses it (sst_worker_close_idle()). */
void worker_chan_close_idle(struct sst_worker *w, struct worker_chan *wc, sst_time_t now);
/** One pass's checks of wc: idle timeout, silence, a dead peer,
 * replacement, the end of a retiring or lingering channel (it may end). */
void worker_chan_upkeep(struct sst_worker *w, struct worker_chan *wc, sst_time_t now);
/** When worker_chan_upkeep() has something to do for wc at the latest. */
sst_time_t worker_chan_upkeep_expiry(const struct sst_worker *w, const struct worker_chan *wc);
/* Refusals are counted as they happen and logged at most once per this. */
static const sst_time_t REFUSALS_LOG_INTERVAL = 10 * SST_NSEC_PER_SEC;
/** Log what was refused since the last line (peers, channel numbers, dead
 * peers, streams and buffers over a peer's share, negotiation under load),
 * if anything was, and at most once per REFUSALS_LOG_INTERVAL. */
void worker_refusals_log(struct sst_worker *w, sst_time_t now);
/** Start negotiating a channel to ep (worker.c). @return 0 or a negative errno. */
int worker_connect_to(struct sst_worker *w, const struct sst_net_endpoint *ep,
	enum sst_nego_mode mode, sst_time_t now);

/* worker_move.c: peers that move between the workers of an engine. */
/* Steering entries a worker holds at most: each costs about 160 bytes, and
 * a flood of ChkI1s naming a known instance from spoofed endpoints must
 * not grow the table without bound (beyond it a moved peer is new here). */
enum { STEER_MAX = 4096 };
/** Make the steering table when the engine has a directory and several
 * workers (otherwise nothing moves). @return 0 or -ENOMEM. */
int worker_move_init(struct sst_worker *w);
/** Free the steering table and its entries. */
void worker_move_fini(struct sst_worker *w);
/** worker_dir_add() indexes, worker_dir_del() forgets, one of our peers'
 * host instances in the engine's directory (a full bucket leaves it out). */
void worker_dir_add(struct sst_worker *w, uint64_t instance);
void worker_dir_del(struct sst_worker *w, uint64_t instance);
/** The worker ep is steered to (maybe us), or -1: its hash decides. */
int worker_steer_owner(const struct sst_worker *w, const struct sst_net_endpoint *ep);
/** The other worker that holds the peer r names, when r is a checksum-mode
 * channel a peer opened from an endpoint new to us, or -1. */
int worker_move_owner(const struct sst_worker *w, const struct sst_nego_result *r);
/** The other worker that holds the peer a SecI1 from an endpoint new to us
 * names (secure mode: that worker answers the whole handshake), or -1. */
int worker_move_secure_owner(
	const struct sst_worker *w, const struct rte_mbuf *m, const struct sst_net_endpoint *from);
/** Hand the negotiation message m from `from` to worker to, which adopts
 * the endpoint, and steer the endpoint there (m is consumed). */
void worker_move_handoff(
	struct sst_worker *w, struct rte_mbuf *m, const struct sst_net_endpoint *from, uint16_t to);
/** Another worker handed us ep (its message follows). @return 0, or
 * -ENOMEM: that worker was told to forget ep; drop the message. */
int worker_move_adopt(struct sst_worker *w, const struct sst_net_endpoint *ep, sst_time_t now);
/** Forget ep's steering entry (its owner let it go). */
void worker_move_release(struct sst_worker *w, const struct sst_net_endpoint *ep);
/** Our adopted record of ep goes: tell the worker it hashes to.
 * @return 0, or -ENOBUFS (no mbuf or room: try again later). */
int worker_move_ep_gone(struct sst_worker *w, const struct sst_net_endpoint *ep);
/** worker_peers.c: take ep as ours (a record, adopted, lingering until a
 * number is taken). @return 0 or -ENOMEM. */
int worker_ep_adopt(struct sst_worker *w, const struct sst_net_endpoint *ep, sst_time_t now);

/* worker_io.c */
/* What an mbuf in an inbox ring is. */
enum worker_handoff_kind {
	WORKER_HANDOFF_DATAGRAM, /**< for the owner of its endpoint */
	WORKER_HANDOFF_FRAME,	 /**< a neighbour answer, for every worker's cache */
	WORKER_HANDOFF_ADOPT,	 /**< a negotiation message: its endpoint is ours now */
	WORKER_HANDOFF_RELEASE,	 /**< no payload: forget the endpoint's steering */
};
/** Put m, from endpoint ep, in worker to's inbox as kind. @return 0, or
 * -ENOBUFS (full: m is freed and counted). */
int worker_handoff_send(struct sst_worker *w, uint16_t to, struct rte_mbuf *m,
	const struct sst_net_endpoint *ep, enum worker_handoff_kind kind);
/** Set up the worker's I/O: the handoff field with several workers, and
 * the network layer (sst_net) over a link of frames, or the link's own
 * endpoint over a link of datagrams; the MTU within the UDP payload.
 * @return 0, -EINVAL (shard or extra local endpoint parameters), or the
 * negative errno of the failed step; on an error nothing is left to
 * worker_io_fini(). */
int worker_io_init(struct sst_worker *w);
/** Destroy the network layer and free what waits in the worker's inbox. */
void worker_io_fini(struct sst_worker *w);
/** Receive this poll's datagrams into rx_pkts/rx_from. @return rx_n. */
uint16_t worker_rx(struct sst_worker *w, sst_time_t now);
/** Send n datagrams (ownership passes). */
void worker_send(struct sst_worker *w, struct rte_mbuf **pkts, const struct sst_net_endpoint *to,
	uint16_t n, sst_time_t now);
/** Send what the network layer holds back (frames batched this pass). */
void worker_io_flush(struct sst_worker *w, sst_time_t now);
/** When the network layer's timers (neighbour resolution) are next due;
 * SST_TIME_NEVER over a link of datagrams. */
sst_time_t worker_io_next_expiry(const struct sst_worker *w);
/** Run the network layer's timers that are due at now. */
void worker_io_expiry(struct sst_worker *w, sst_time_t now);

/* telemetry.c */
/** List w for the telemetry commands (registered with the first worker).
 * @return w's telemetry index, or -ENOSPC (SST_WORKERS_MAX listed). */
int worker_telemetry_add(struct sst_worker *w);
/** Take w off the list (before it is freed). */
void worker_telemetry_remove(struct sst_worker *w);
/** Answer a telemetry request for w's channels, if one waits (every
 * 100 ms, from the pass's upkeep; telemetry.c explains the mailbox). */
void worker_telemetry_serve(struct sst_worker *w);

#endif /* WORKER_INTERNAL_H */
