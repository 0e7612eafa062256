/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The SST stream layer (paper sections 2, 3 and 4.3): hereditary streams
 * with substreams, datagrams, per-stream flow control, priorities, resets,
 * and attach/detach/migration between channels, on top of the channel
 * layer (sst_channel.h).
 *
 * Three objects, all owned by one thread (an engine worker) and sans-IO:
 * time comes in as an argument and packets leave through the channel.
 *
 * - A host (struct sst_stream_host) holds the memory pools, the limits,
 *   the registered services and the application's callbacks.
 * - A peer (struct sst_stream_peer) is one remote host. Its streams belong
 *   to it rather than to a channel, so they survive the loss of a channel
 *   and resume on a new one (paper 4.3.7).
 * - A channel attachment (struct sst_stream_chan) is the stream layer's
 *   side of one sst_channel to that peer: SID spaces, scheduler, the record
 *   of what each packet in flight carried. Its functions are the channel's
 *   upper-layer callbacks (sst_stream_chan_upper).
 *
 * A stream (struct sst_stream) is a small control block; send and receive
 * buffers attach on demand and go back to their pools when idle.
 */
#ifndef SST_STREAM_H
#define SST_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "sst_channel.h"
#include "sst_mem.h"
#include "sst_time.h"

struct sst_stream_host;
struct sst_stream_peer;
struct sst_stream_chan;
struct sst_stream;

/** What a peer implements beyond the 2007 prototype (from negotiation). */
enum sst_stream_caps {
	SST_CAP_RESET = 0x1,	       /**< understands Reset */
	SST_CAP_DETACH = 0x2,	       /**< understands Detach */
	SST_CAP_DGRAM_FRAGMENTS = 0x4, /**< reassembles multi-fragment Datagrams */
	SST_CAP_STRICT_WINDOW = 0x8,   /**< sends within our advertised windows */
	SST_CAPS_ALL = 0xf,	       /**< every capability this implementation has */
	SST_CAPS_LEGACY = 0,	       /**< the original prototype */
};

/** Why a stream ended, as sst_stream_ops.closed() reports it. */
enum sst_stream_end {
	SST_STREAM_FINISHED = 0, /**< both directions closed and acknowledged */
	SST_STREAM_RESET_LOCAL,	 /**< we reset it */
	SST_STREAM_RESET_REMOTE, /**< the peer reset it */
	SST_STREAM_REFUSED,	 /**< the service was refused */
	SST_STREAM_ABORTED,	 /**< its peer or host went away */
	/** Nothing came from the peer for the worker's dead_peer_timeout
	 * while our data waited for it: it crashed or became unreachable. */
	SST_STREAM_TIMED_OUT,
};

/**
 * What ended a stream, in words for messages ("the peer reset it").
 * @param why The reason closed() reported.
 * @return A static string; "unknown" for a value outside the enum.
 */
const char *sst_stream_end_describe(enum sst_stream_end why);

/** Application callbacks; each may be NULL. They run inside stream calls
 * (and inside the channel's processing): they may read, write, open and
 * close streams, but must not call sst_stream_chan_flush() or destroy a
 * channel; the worker flushes and ends channels after them. Each that may
 * lead to such a call gets @p now, the time of the call it runs inside,
 * to pass on: a callback never needs to read the clock. */
struct sst_stream_ops {
	/** A top-level stream connected (err 0) or failed (negative errno:
	 * -ECONNREFUSED service refused, -ECONNRESET reset before reply).
	 * @param ctx sst_stream_host_params.ctx.
	 * @param s The stream (sst_stream_connect()).
	 * @param err 0, or the negative errno of the failure.
	 * @param now The time of the call it runs inside.
	 */
	void (*connected)(void *ctx, struct sst_stream *s, int err, sst_time_t now);
	/** A stream arrived: a top-level one for a registered service (@p
	 * parent NULL, @p service_ctx as registered) or a substream of a
	 * listening parent (call sst_stream_accept_substream()).
	 * @param ctx sst_stream_host_params.ctx.
	 * @param parent The listening parent, or NULL for a top-level stream.
	 * @param s The new stream, the application's until sst_stream_close().
	 * @param service_ctx What sst_stream_listen() registered (top-level streams), else NULL.
	 * @param now The time of the call it runs inside.
	 */
	void (*accepted)(void *ctx, struct sst_stream *parent, struct sst_stream *s,
		void *service_ctx, sst_time_t now);
	/** Data, a datagram, a substream or the end of the peer's direction
	 * is waiting to be read.
	 * @param ctx sst_stream_host_params.ctx.
	 * @param s The stream.
	 * @param now The time of the call it runs inside.
	 */
	void (*readable)(void *ctx, struct sst_stream *s, sst_time_t now);
	/** The send buffer has room again after a write was refused.
	 * @param ctx sst_stream_host_params.ctx.
	 * @param s The stream.
	 * @param now The time of the call it runs inside.
	 */
	void (*writable)(void *ctx, struct sst_stream *s, sst_time_t now);
	/** The stream ended (enum sst_stream_end). The handle stays valid
	 * until sst_stream_close(). It may come from inside our own calls:
	 * sst_stream_read() that consumes the end of the peer's direction
	 * after ours was acknowledged reports SST_STREAM_FINISHED before it
	 * returns. Closing the handle in the callback is allowed: control
	 * blocks are freed at the next flush, never under a caller.
	 * @param ctx sst_stream_host_params.ctx.
	 * @param s The stream, still the application's until sst_stream_close().
	 * @param why What ended it.
	 * @param now The time of the call it runs inside.
	 */
	void (*closed)(void *ctx, struct sst_stream *s, enum sst_stream_end why, sst_time_t now);
	/** A channel asks to be replaced (SST_CHANNEL_EV_REPLACE) or failed
	 * (SST_CHANNEL_EV_FAILED): create a new channel to the peer, then
	 * sst_stream_chan_destroy() the old one; the streams move over.
	 * @param ctx sst_stream_host_params.ctx.
	 * @param c The channel.
	 * @param ev SST_CHANNEL_EV_REPLACE or SST_CHANNEL_EV_FAILED.
	 * @param now The time of the call it runs inside.
	 */
	void (*channel_event)(
		void *ctx, struct sst_stream_chan *c, enum sst_channel_event ev, sst_time_t now);
	/** Both sides agreed to close the channel (sst_stream_chan_close()):
	 * destroy it with sst_stream_chan_destroy(); no TIME_WAIT follows.
	 * @param ctx sst_stream_host_params.ctx.
	 * @param c The channel, to destroy.
	 * @param now The time of the call it runs inside.
	 */
	void (*channel_closed)(void *ctx, struct sst_stream_chan *c, sst_time_t now);
	/** Something was queued on the channel (sst_stream_chan_pending()
	 * became true) outside its own flush: flush it soon. Called once
	 * until its next sst_stream_chan_flush(); lets a caller with many
	 * channels flush only those with work. May be NULL. It gets no time:
	 * it may only note the channel, the flush comes after the call.
	 * @param ctx sst_stream_host_params.ctx.
	 * @param c The channel with work queued.
	 */
	void (*channel_pending)(void *ctx, struct sst_stream_chan *c);
	/** Every stream's end, also of a stream the application closed
	 * already (closed() is only for the streams it holds), just before
	 * closed(): for logs and counters (the engine's event log). It must
	 * not call into the stream layer. May be NULL.
	 * @param ctx sst_stream_host_params.ctx.
	 * @param s The stream, valid during the call only.
	 * @param why What ended it.
	 * @param now The time of the call it runs inside.
	 */
	void (*ended)(
		void *ctx, const struct sst_stream *s, enum sst_stream_end why, sst_time_t now);
};

/** How to create a host. Fields left zero take the defaults shown. */
struct sst_stream_host_params {
	uint32_t size;			/**< sizeof(struct sst_stream_host_params) */
	const char *name;		/**< prefix of the pool names (unique per process) */
	int socket_id;			/**< NUMA socket of the pools */
	struct rte_mempool *pool;	/**< header and control packet mbufs */
	struct rte_mempool *clone_pool; /**< indirect mbufs (zero-copy segments) */
	uint32_t max_streams;		/**< control blocks; 0: 65536 */
	uint32_t max_tx_buffers;	/**< streams sending at once; 0: 4096 */
	uint32_t max_rx_buffers;	/**< streams receiving at once; 0: 4096 */
	/** Buffers of each pool made at creation; the pools grow between
	 * passes (sst_stream_host_handle_expiry()) when fewer than a quarter
	 * are free or a stream waits. An idle host then costs a few pages
	 * instead of one per buffer. 0: all of max_tx/rx_buffers at once. */
	uint32_t initial_buffers;
	uint32_t max_sids; /**< attached SIDs per channel direction; 0: 16384 */
	/* The defaults let one stream fill 1 Gbit/s x 100 ms (12.5 MB in
	 * flight); each table grows with use (docs/stream.md "Buffers"). */
	uint32_t send_buffer; /**< bytes a stream may queue; 0: 1 MiB (docs/stream.md "Buffers") */
	uint32_t send_mbufs;  /**< mbufs a stream may queue; 0: 32768 */
	uint32_t rx_window_min; /**< initial receive window; 0: 65536 */
	uint32_t rx_window_max; /**< auto-tuning bound; 0: 32 MiB */
	uint32_t rx_pieces;	/**< reassembly pieces per stream; 0: 32768 */
	uint32_t peer_usids;	/**< streams per peer findable by USID; 0: max_streams */
	/* Fair shares (docs/robustness.md): one peer holds at most this many
	 * control blocks, send buffers and receive buffers, so that a peer
	 * that opens streams and never reads cannot take what the others
	 * need. A stream the peer opens beyond its share is reset (refused,
	 * to be sent again, toward a prototype peer, which a Reset aborts);
	 * a stream beyond its buffer share waits as when the pool is empty.
	 * 0: a quarter of the host's limit; a host that serves a single peer
	 * sets them to the host's limits. */
	uint32_t peer_max_streams;    /**< control blocks one peer may hold; 0: max_streams / 4 */
	uint32_t peer_max_tx_buffers; /**< send buffers one peer may hold; 0: max_tx_buffers / 4 */
	uint32_t
		peer_max_rx_buffers; /**< receive buffers one peer may hold; 0: max_rx_buffers / 4 */
	/** The application's callbacks (NULL: none); the host keeps the
	 * pointer, so the table must outlive it. */
	const struct sst_stream_ops *ops;
	void *ctx; /**< first argument of every callback in @p ops */
	/**
	 * Read as the 2007 prototype does, for interop tests that pose as it
	 * (sst-cat --legacy): a Close on a segment that carries data is not
	 * seen (its reader stops at the message boundary before it looks at
	 * the flag), so only a Close of its own ends the peer's direction
	 * (docs/wire-format.md 9.8). Never for real service.
	 */
	bool prototype_reader;
	/** Where the objects of peers and channels and their tables come
	 * from (NULL: the DPDK heap, sst_mem_rte). A worker passes its
	 * cache (sst_mem_cache): it must outlive the host. */
	const struct sst_mem_ops *mem;
};

/** Host counters. */
struct sst_stream_host_stats {
	uint64_t streams_opened;       /**< streams this host opened (connect, substreams) */
	uint64_t streams_accepted;     /**< the peers' streams taken: substreams and services */
	uint64_t streams_closed;       /**< control blocks freed */
	uint64_t streams_reset_tx;     /**< Reset packets we sent */
	uint64_t streams_reset_rx;     /**< Resets received for a stream we knew */
	uint64_t stateless_resets;     /**< for SIDs we did not know */
	uint64_t no_stream;	       /**< control block pool empty */
	uint64_t no_buffer;	       /**< buffer pool empty (the stream waits) */
	uint64_t peer_streams_refused; /**< a peer's new stream beyond peer_max_streams */
	uint64_t peer_buffers_refused; /**< a buffer beyond the peer's share (the stream waits) */
	uint64_t rx_malformed;	       /**< stream packets dropped as malformed */
	uint64_t rx_unknown_sid;       /**< stream packets dropped: no stream on their SID */
	uint64_t rx_refused;	       /**< packets not acknowledged (no buffer, window) */
	uint64_t rx_stale;	       /**< for quiet SIDs */
	uint64_t segments_tx;	       /**< data segments sent, retransmissions included */
	uint64_t segments_retx;	       /**< of which retransmissions */
	uint64_t datagrams_tx;	       /**< datagrams sent (as packets or substreams) */
	uint64_t datagrams_rx;	       /**< datagrams queued for the application */
	uint64_t attaches_tx;	       /**< Attach packets sent */
	uint64_t attaches_rx;	       /**< Attach packets received */
	uint64_t services_refused;     /**< top-level streams for a service not registered */
	uint64_t streams_live;	       /**< control blocks in use (the roots excluded) */
	uint64_t tx_buffers_live;      /**< send buffers attached */
	uint64_t rx_buffers_live;      /**< receive buffers attached */
	uint64_t tx_buffers_made;      /**< send buffers the pool holds so far (initial_buffers) */
	uint64_t rx_buffers_made;      /**< receive buffers the pool holds so far */
	/** Packets the 2007 prototype could not take: Reset (FINISH
	 * included) and Detach, which abort it, Datagram fragments, which it
	 * drops, and payloads over SST_SEGMENT_MAX. Normal from SST-DPDK
	 * peers; a host posing as the prototype (no capabilities advertised)
	 * must see none, which is how interop tests check the peer's
	 * fallback. */
	uint64_t rx_beyond_prototype;
	/** Moves of a stream's states their tables forbid (a bug in the
	 * library, counted and the first logged in debug builds; always 0 in
	 * builds with NDEBUG, which do not check). */
	uint64_t illegal_transitions;
	/** Streams accepted for a service whose reply waited for a send
	 * buffer (the application heard of each once its reply was queued). */
	uint64_t replies_delayed;
};

/**
 * Create a host (at setup: this allocates its tables and buffer pools).
 * The host, and every peer, channel and stream made from it, belongs to
 * the calling thread: no other thread may call into them.
 * @param p Parameters, copied; pool and clone_pool stay the caller's and
 *   must outlive the host.
 * @return The host, or NULL with rte_errno set: EINVAL (p, pool or
 *   clone_pool NULL, receive windows out of range, max_sids over 16384;
 *   the parameter named in a line logged through rte_log, type
 *   sst.stream), ENOMEM, or the error of creating a buffer pool (EEXIST:
 *   name taken).
 */
struct sst_stream_host *sst_stream_host_create(const struct sst_stream_host_params *p);

/**
 * Free a host's tables and pools. It does not know its peers: destroy
 * each of them first (sst_stream_peer_destroy()), as the streams' control
 * blocks live in the host.
 * @param h The host; NULL is ignored.
 */
void sst_stream_host_destroy(struct sst_stream_host *h);

/**
 * Counters.
 * @param h The host.
 * @return The host's own counters, updated in place as it runs (read them
 *   on its thread); valid until sst_stream_host_destroy().
 */
const struct sst_stream_host_stats *sst_stream_host_stats(struct sst_stream_host *h);

/**
 * The parameters a host runs with: those it was created with, every field
 * left zero replaced by its default (the limits an operator wants to see).
 * @param h The host.
 * @return Its parameters; valid until sst_stream_host_destroy().
 */
const struct sst_stream_host_params *sst_stream_host_params(const struct sst_stream_host *h);

/** Bytes of pool memory one stream control block takes (the idle cost).
 * @return That size. */
size_t sst_stream_control_block_size(void);

/**
 * Offer a service: top-level streams whose request names (service,
 * protocol) are accepted and reported with @p service_ctx.
 * @param h The host.
 * @param service Service name (NUL-terminated, copied).
 * @param protocol Protocol name (NUL-terminated, copied).
 * @param service_ctx Passed to ops.accepted() for each such stream.
 * @retval 0 Registered.
 * @retval -EEXIST (service, protocol) is registered already.
 * @retval -ENOSPC The table (64 services) is full.
 * @retval -EINVAL A name is empty or too long.
 */
int sst_stream_listen(
	struct sst_stream_host *h, const char *service, const char *protocol, void *service_ctx);

/**
 * Withdraw a service; streams accepted for it stay.
 * @param h The host.
 * @param service Service name, as given to sst_stream_listen().
 * @param protocol Protocol name, as given to sst_stream_listen().
 * @retval 0 Withdrawn.
 * @retval -ENOENT Not registered.
 */
int sst_stream_unlisten(struct sst_stream_host *h, const char *service, const char *protocol);

/**
 * A remote host.
 * @param h The host it talks to.
 * @param caps What negotiation learned it supports (enum sst_stream_caps;
 *   other bits are ignored).
 * @return The peer, or NULL with rte_errno ENOMEM. Free it with
 *   sst_stream_peer_destroy() before the host.
 */
struct sst_stream_peer *sst_stream_peer_create(struct sst_stream_host *h, uint32_t caps);

/** What the peer supports beyond the prototype.
 * @param p The peer.
 * @return enum sst_stream_caps bits; SST_CAPS_LEGACY: it may be the
 *   prototype, and is treated as one. */
uint32_t sst_stream_peer_caps(const struct sst_stream_peer *p);

/** The peer a stream belongs to.
 * @param s The stream.
 * @return Its peer (never NULL). */
struct sst_stream_peer *sst_stream_peer_of(const struct sst_stream *s);

/** Streams of the peer whose control blocks are still held (open, or
 * ended and not yet freed by a flush; the peer's root not counted): a peer
 * with none and no channel can be destroyed without loss.
 * @param p The peer.
 * @return That count. */
uint32_t sst_stream_peer_streams(const struct sst_stream_peer *p);

/** Abort every stream of the peer (closed() with SST_STREAM_ABORTED): it
 * restarted and lost them. The peer stays.
 * @param p The peer.
 * @param now Current time, passed to the callbacks. */
void sst_stream_peer_abort(struct sst_stream_peer *p, sst_time_t now);

/** End every stream of the peer with @p why (closed() reports it), as
 * sst_stream_peer_abort() does: SST_STREAM_TIMED_OUT when the peer is
 * declared dead. The peer stays.
 * @param p The peer.
 * @param why What closed() reports for each stream.
 * @param now Current time, passed to the callbacks. */
void sst_stream_peer_fail(struct sst_stream_peer *p, enum sst_stream_end why, sst_time_t now);

/** Destroy a peer: every channel is destroyed (sst_stream_chan_destroy())
 * and every stream aborted (closed() with SST_STREAM_ABORTED). The streams
 * the application still holds stay valid handles: they are reset, so
 * calls on them fail as on any reset stream (sst_stream_write():
 * -ECONNRESET; sst_stream_create_substream(): ECONNRESET), their peer
 * still answers sst_stream_peer_of() (sst_stream_connect() on it: ENOTCONN,
 * it has no channel any more), and
 * sst_stream_close() releases each; the peer's memory goes with the last
 * of them (or with the host). @p p itself must not be used after this
 * returns.
 * @param p The peer; NULL is ignored. */
void sst_stream_peer_destroy(struct sst_stream_peer *p);

/** How to attach a channel to a peer. */
struct sst_stream_chan_params {
	/** The channel to create; upper and upper_ctx are filled in here. */
	const struct sst_channel_params *channel;
	/** Half-channel IDs (USIDs, wire-format.md 4): ours (the direction we
	 * send in) and the peer's. */
	const uint8_t *local_hcid;
	uint8_t local_hcid_len;	  /**< bytes at local_hcid */
	const uint8_t *peer_hcid; /**< the peer's half-channel ID (see local_hcid) */
	uint8_t peer_hcid_len;	  /**< bytes at peer_hcid */
	bool initiator;		  /**< we started the channel: the root USID is ours */
	void *user;		  /**< the caller's, returned by sst_stream_chan_user() */
	/**
	 * Send nothing on the channel until sst_stream_chan_release(): a
	 * responder's channel made inside negotiation's established()
	 * callback, whose peer learns our number and key only from the reply
	 * sent after that callback returns (checksum mode's ChkR1). Streams
	 * moved or attached to it meanwhile wait; without this their first
	 * packets left before the reply and the peer dropped them.
	 */
	bool hold;
};

/** The channel's upper-layer callbacks (set by sst_stream_chan_create()). */
extern const struct sst_channel_upper sst_stream_chan_upper;

/**
 * Create a channel to the peer and the stream layer's side of it. Streams
 * of the peer left without a channel (theirs failed or was retired) are
 * attached to it at once.
 * @param p The peer.
 * @param cp Parameters, read during the call only.
 * @param now Current time (the channel's start).
 * @return The attachment, or NULL with rte_errno set: EINVAL (cp or
 *   cp->channel NULL, a half-channel ID invalid), ENOSPC (the peer has the
 *   most channels or half-channel IDs it may hold), ENOMEM, or the error of
 *   sst_channel_create().
 */
struct sst_stream_chan *sst_stream_chan_create(
	struct sst_stream_peer *p, const struct sst_stream_chan_params *cp, sst_time_t now);

/**
 * Let a channel created with sst_stream_chan_params.hold send: what waited
 * goes out at its next flush, which ops.channel_pending() asks for. A
 * channel not held is left alone.
 * @param c The channel attachment.
 */
void sst_stream_chan_release(struct sst_stream_chan *c);

/** Retire a channel (it failed or is being replaced) and destroy it: its
 * streams wait for another channel of the peer, and the data in flight on
 * it counts as lost. Not from inside a callback (sst_stream_ops).
 * @param c The channel attachment; invalid after the call.
 * @param now Current time. */
void sst_stream_chan_destroy(struct sst_stream_chan *c, sst_time_t now);

/**
 * Make the peer answer on c (a keepalive probe, the worker's dead-peer
 * detection): an Ack packet with the root's window, queued for the next
 * flush, which our peers acknowledge at once (it finds their channel
 * quiet). It is in flight until acknowledged; when it is lost (or the peer
 * is the 2007 prototype, which acknowledges only every
 * SST_CHANNEL_ACK_ONLY_EVERY-th Ack packet) the probe goes again as that
 * many, which any live peer answers.
 * @param c The channel attachment.
 * @retval 0 Queued.
 * @retval -ENOTCONN c is dead.
 */
int sst_stream_chan_probe(struct sst_stream_chan *c);

/** The user pointer given at creation.
 * @param c The channel attachment.
 * @return sst_stream_chan_params.user. */
void *sst_stream_chan_user(const struct sst_stream_chan *c);

/** Send what streams have to send, as far as congestion control allows.
 * Not from inside a callback (sst_stream_ops).
 * @param c The channel attachment.
 * @param now Current time. */
void sst_stream_chan_flush(struct sst_stream_chan *c, sst_time_t now);

/**
 * Something is queued to go out on the channel: a stream ready to send,
 * control packets, Resets or Detaches owed, a FINISH to acknowledge, a
 * stream waiting for a SID. Without it, and before
 * sst_stream_chan_next_expiry() and the channel's own next expiry,
 * sst_stream_chan_flush() has nothing to do, unless a packet arrived on the
 * channel since: a caller with many channels flushes only those.
 * @param c The channel attachment.
 * @return True when something is queued.
 */
bool sst_stream_chan_pending(const struct sst_stream_chan *c);

/** The channel's own next expiry (pacing, datagram reassembly), without
 * the host's (sst_stream_host_next_expiry()): a caller with many channels
 * runs the host's timer once, not through each.
 * @param c The channel attachment.
 * @return The time, or SST_TIME_NEVER. */
sst_time_t sst_stream_chan_timer(const struct sst_stream_chan *c);

/** When the host's own timer (the idle sweep that takes receive buffers
 * back from streams that stopped using them, and freeing the streams that
 * ended where no channel's work would free them) is due.
 * @param h The host.
 * @return The time, or SST_TIME_NEVER. */
sst_time_t sst_stream_host_next_expiry(const struct sst_stream_host *h);

/** Run the host's timer if due (any channel's flush does it too).
 * @param h The host.
 * @param now Current time. */
void sst_stream_host_handle_expiry(struct sst_stream_host *h, sst_time_t now);

/** When sst_stream_chan_flush() should run again: the earlier of the
 * channel's timer and the host's.
 * @param c The channel attachment.
 * @return The time, or SST_TIME_NEVER. */
sst_time_t sst_stream_chan_next_expiry(const struct sst_stream_chan *c);

/**
 * Replace channel @p old by @p c (same peer; e.g. before @p old's sequence
 * space or key usage limit runs out, SST_CHANNEL_EV_REPLACE): every stream
 * sending on @p old migrates to @p c (sst_stream_migrate()); the peer's
 * sides follow when our Attaches arrive. @p old stays usable for what is
 * in flight; close it with sst_stream_chan_close() once it is unused.
 * @param old The channel attachment streams leave.
 * @param c The one they move to; both channels are flushed.
 * @param now Current time.
 * @return Streams moved (0 or more).
 * @retval -EINVAL c is NULL, old itself, dead, or of another peer.
 */
int sst_stream_chan_migrate_all(
	struct sst_stream_chan *old, struct sst_stream_chan *c, sst_time_t now);

/** Make @p c the channel new streams to its peer start on (normally the
 * newest one), e.g. when a newer one is only there to be closed.
 * @param c The channel attachment. */
void sst_stream_chan_prefer(struct sst_stream_chan *c);

/** Whether no stream uses the channel: no SID attached or parked in
 * either space (quiet ones aside) and no stream control packet owed.
 * @param c The channel attachment.
 * @return True when unused. */
bool sst_stream_chan_unused(const struct sst_stream_chan *c);

/**
 * True when a channel can never again send a stream control packet: the
 * sequence numbers it has left are kept for acknowledgments, so the
 * Detaches, window updates and the FINISH it may owe can never go out. A
 * channel being replaced is then best ended once what is in flight either
 * way had time to be acknowledged: its streams are on the successor, what
 * it still had in flight is resent there, and the peer's side frees the
 * same SIDs when it ends.
 * @param c The channel attachment.
 * @return True when exhausted.
 */
bool sst_stream_chan_exhausted(const struct sst_stream_chan *c);

/**
 * Close an unused channel without TIME_WAIT (CUSP's idea): send FINISH (a
 * Reset naming the root, SID 0), resent until acknowledged. The peer
 * answers with its own FINISH once it has no stream on the channel either;
 * when ours is acknowledged and theirs arrived, ops.channel_closed()
 * reports it (also after three losses of ours once theirs arrived: the peer
 * may have gone first). A stream attached meanwhile cancels the closing.
 * FINISH travels inside the channel, so a forged or replayed one never
 * gets past the armor and the replay window.
 * @param c The channel attachment.
 * @param now Current time (the channel is flushed).
 * @retval 0 FINISH queued (or sent already).
 * @retval -EBUSY A stream uses it, or it is dead.
 * @retval -ENOTSUP The peer does not know Reset (the prototype).
 */
int sst_stream_chan_close(struct sst_stream_chan *c, sst_time_t now);

/** The underlying channel.
 * @param c The channel attachment.
 * @return Its sst_channel, owned by the attachment. */
struct sst_channel *sst_stream_chan_channel(const struct sst_stream_chan *c);

/** Per-channel counters of the stream layer. */
struct sst_stream_chan_stats {
	uint64_t tx_packets;	 /**< stream packets handed to the channel */
	uint64_t rx_packets;	 /**< stream packets the channel delivered */
	uint64_t window_updates; /**< Ack packets sent to advertise a window */
	uint64_t sids_quiet;	 /**< SIDs currently in their quiet period (both spaces) */
	uint64_t sids_attached;	 /**< SIDs attached now (both spaces) */
	uint64_t idle_detaches;	 /**< idle streams detached to free a SID */
	/** Per-channel tables (SID spaces, records of packets in flight, codes
	 * owed, datagram reassembly) that could not grow: each such refusal
	 * was handled as the table being full. */
	uint64_t table_grow_failures;
	/** Bytes of those tables now: they grow with use, from small sizes. */
	uint64_t table_bytes;
};
/**
 * Per-channel counters.
 * @param c The channel attachment.
 * @param st Filled in completely.
 */
void sst_stream_chan_stats(const struct sst_stream_chan *c, struct sst_stream_chan_stats *st);

/* ---- Streams: the paper's operations ---- */

/**
 * Open a top-level stream to (service, protocol) on the peer. Data may be
 * written at once; ops.connected() reports the answer.
 * @param p The peer.
 * @param service Service name (NUL-terminated).
 * @param protocol Protocol name (NUL-terminated).
 * @param now Current time.
 * @return The stream, the caller's until sst_stream_close(), or NULL with
 *   rte_errno set: EINVAL (names too long for a request), ENOTCONN (no
 *   channel to the peer), ENOMEM (no control block), ENOBUFS (no send
 *   buffer or SID).
 */
struct sst_stream *sst_stream_connect(
	struct sst_stream_peer *p, const char *service, const char *protocol, sst_time_t now);

/**
 * Create a substream of @p parent; it may be written at once.
 * @param parent The parent stream.
 * @param now Current time.
 * @return The substream, the caller's until sst_stream_close(), or NULL
 *   with rte_errno set: ECONNRESET (parent reset), ENOTCONN (no channel to
 *   the peer), ENOMEM (no control block), ENOBUFS (no send buffer or SID).
 */
struct sst_stream *sst_stream_create_substream(struct sst_stream *parent, sst_time_t now);

/** Accept (or refuse) substreams on @p s.
 * @param s The stream.
 * @param listen True to accept the peer's substreams, false to refuse them. */
void sst_stream_listen_substream(struct sst_stream *s, bool listen);

/** The next substream the peer opened on @p parent, or NULL. With none
 * waiting, the next datagram received on @p parent comes as a substream
 * that reads the datagram and then its end (paper 2.2).
 * @param parent The listening stream.
 * @param now The time of the call (the substream may be readable at once,
 *   and hears ops.readable() with it).
 * @return The substream, the caller's until sst_stream_close(), or NULL. */
struct sst_stream *sst_stream_accept_substream(struct sst_stream *parent, sst_time_t now);

/** Write flags. */
enum sst_stream_write_flags {
	SST_WRITE_PUSH = 0x4,	 /**< deliver promptly (set by default on every write) */
	SST_WRITE_MESSAGE = 0x2, /**< this write ends a message */
	SST_WRITE_MORE = 0x100,	 /**< more follows at once: no Push */
};

/**
 * Queue an mbuf chain for sending.
 * @param s The stream.
 * @param m The data; the stack's on success (segments of length 0 are
 *   freed), still the caller's, unchanged, on error.
 * @param flags enum sst_stream_write_flags.
 * @param now Current time.
 * @retval 0 Queued.
 * @retval -EAGAIN No send buffer, or the send buffer is full:
 *   ops.writable() follows when there is room.
 * @retval -EPIPE Our direction is closed (shutdown or close).
 * @retval -ECONNRESET The stream was reset.
 * @retval -EINVAL An empty write with flags when nothing was queued yet.
 */
int sst_stream_write(struct sst_stream *s, struct rte_mbuf *m, uint32_t flags, sst_time_t now);

/** One record of received data. */
struct sst_stream_data {
	struct rte_mbuf *m; /**< the caller's from now on */
	uint32_t flags;	    /**< SST_WRITE_MESSAGE at a message end */
};

/**
 * Read in-order data.
 * @param s The stream.
 * @param out Records filled in; each mbuf is the caller's to free.
 * @param max Room in @p out (at most 32 are read per call).
 * @param now Current time (closed() may be reported from inside).
 * @return Records read (0: nothing now).
 * @retval -EPIPE The peer's direction ended and everything was read.
 * @retval -ECONNRESET The stream was reset.
 */
int sst_stream_read(
	struct sst_stream *s, struct sst_stream_data *out, uint16_t max, sst_time_t now);

/**
 * End our direction (half close); data queued before still goes out. The
 * Close needs a send buffer: when none is free it waits for one in the same
 * FIFO as writers (no ops.writable() follows, nothing to retry).
 * @param s The stream.
 * @param now Current time.
 * @retval 0 Closed, or the Close queued (also when it was closed already).
 * @retval -ECONNRESET The stream was reset.
 */
int sst_stream_shutdown(struct sst_stream *s, sst_time_t now);

/** Release the handle: shut down our direction, discard what arrives. The
 * stream finishes in the background; the handle is invalid after the
 * call.
 * @param s The stream (a second close of the same handle is ignored).
 * @param now Current time. */
void sst_stream_close(struct sst_stream *s, sst_time_t now);

/** Reset the stream in both directions (paper 4.3.8), releasing its
 * buffers; closed() reports SST_STREAM_RESET_LOCAL. The handle stays the
 * caller's until sst_stream_close().
 * @param s The stream.
 * @param now Current time. */
void sst_stream_reset(struct sst_stream *s, sst_time_t now);

/** Set the priority (higher first; equal priorities share).
 * @param s The stream.
 * @param prio The priority; new substreams inherit it. */
void sst_stream_set_priority(struct sst_stream *s, int32_t prio);
/** The priority.
 * @param s The stream.
 * @return Its priority (0 unless set or inherited). */
int32_t sst_stream_priority(const struct sst_stream *s);

/**
 * Send a datagram on @p parent (paper 2.2): one unreliable Datagram
 * packet (or fragments) when small, a reliable ephemeral substream when
 * too large for the current loss rate. On success @p m is the stack's
 * (a datagram packet may still be dropped, as the network may drop it);
 * on error the caller still owns @p m, unchanged, and may retry or free it.
 * Datagrams over 64 KiB always go as substreams; the receiver takes one of
 * up to its rx_window_max bytes.
 * @param parent The stream it belongs to (a peer's root stream too).
 * @param m The datagram.
 * @param now Current time.
 * @retval 0 Sent or queued.
 * @retval -EMSGSIZE Over the host's send_buffer.
 * @retval -ENOBUFS No room in the congestion window, no buffer, or the
 *   channel is held (sst_stream_chan_params.hold).
 * @retval -ENOTCONN The parent was reset, or no channel to the peer.
 */
int sst_stream_send_datagram(struct sst_stream *parent, struct rte_mbuf *m, sst_time_t now);

/** The next datagram received on @p parent (either way).
 * @param parent The stream.
 * @param now Current time.
 * @return The datagram, the caller's to free, or NULL. */
struct rte_mbuf *sst_stream_recv_datagram(struct sst_stream *parent, sst_time_t now);

/**
 * The paper's out-of-band reprioritisation (section 5, Figure 9): ask the
 * peer to serve its side of @p s at @p prio. A short message (XDR int32
 * 0x301, int32 prio) goes reliably on an ephemeral substream of s; the peer
 * reads it with sst_stream_recv_datagram(s) and hands it to
 * sst_stream_apply_priority_message().
 * @param s The stream.
 * @param prio The priority asked for.
 * @param now Current time.
 * @retval 0 Sent.
 * @retval -ENOBUFS No substream could be opened or written.
 * @retval -ENOTCONN s was reset, or is a peer's root.
 */
int sst_stream_request_priority(struct sst_stream *s, int32_t prio, sst_time_t now);

/**
 * If @p m (read with sst_stream_recv_datagram(s)) is a priority request,
 * set s's priority to it.
 * @param s The stream it was read from.
 * @param m The datagram; stays the caller's.
 * @return 1 when it was a priority request, 0 otherwise (m NULL too).
 */
int sst_stream_apply_priority_message(struct sst_stream *s, const struct rte_mbuf *m);

/** Move the stream's sending side to channel @p c of the same peer
 * (Attach on the new channel, Detach on the old).
 * @param s The stream.
 * @param c The channel attachment it moves to.
 * @param now Current time.
 * @retval 0 Moving (or on c already).
 * @retval -EINVAL c is NULL, dead or of another peer, or s was reset or
 *   is a root. */
int sst_stream_migrate(struct sst_stream *s, struct sst_stream_chan *c, sst_time_t now);

/** Set the application pointer.
 * @param s The stream.
 * @param user Anything; the stack never reads it. */
void sst_stream_set_user(struct sst_stream *s, void *user);
/** The application pointer.
 * @param s The stream.
 * @return What sst_stream_set_user() set; NULL for a new stream. */
void *sst_stream_user(const struct sst_stream *s);

/** Snapshot of a stream, for tools and tests. */
struct sst_stream_info {
	uint64_t usid_counter; /**< the counter part of the stream's USID */
	uint64_t tx_offset;    /**< bytes written */
	uint64_t tx_unacked;   /**< bytes queued and not acknowledged */
	uint64_t rx_offset;    /**< bytes read */
	uint64_t rx_buffered;  /**< bytes waiting (in order and out of order) */
	uint32_t rx_window;    /**< credit we advertise */
	uint32_t tx_credit;    /**< credit the peer gave us */
	uint64_t tx_in_flight; /**< bytes sent, neither acknowledged nor lost */
	/** @{ */
	/** SIDs in each direction (meaningful while attached) */
	uint16_t tx_sid, rx_sid;
	/** @} */
	/** @{ */
	/** send and receive buffers attached */
	bool tx_buffers, rx_buffers;
	/** @} */
	/** @{ */
	/** the stream finished (both directions closed and acknowledged), or
	 * was reset by either side */
	bool finished, reset;
	/** @} */
};
/**
 * Snapshot of a stream.
 * @param s The stream.
 * @param info Filled in completely.
 */
void sst_stream_info(const struct sst_stream *s, struct sst_stream_info *info);

#endif /* SST_STREAM_H */
