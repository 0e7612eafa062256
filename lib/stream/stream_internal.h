/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stream layer's objects (sst_stream.h): hosts, peers, channel
 * attachments, streams and their buffers, shared by every stream module,
 * with the few inline helpers they all use. Each module declares its own
 * functions, with their contracts, in its header; the modules call each
 * other downwards only, in this order (lowest first), and the one call
 * upwards goes through struct stream_upcalls:
 *
 *   stream_usid        a peer's index of streams by USID
 *   stream_ctl         the queues of work a channel serves at its flush
 *   stream_life        a stream's lifecycle, references and buffers
 *   stream_chan_finish closing a channel without TIME_WAIT
 *   stream_chan_sids   a channel's transmit SIDs for our streams
 *   stream_tx          the send path (flush) and its records in flight
 *   stream_ack         acknowledgments and losses of those records
 *   stream_app         the application's operations
 *   stream_service     service rendezvous
 *   stream_rx          the receive path
 *   stream_host        the host: limits, pools, timer
 *   stream_chan        channel attachments: create, retire, migrate
 *   stream_peer        peers
 */
#ifndef STREAM_INTERNAL_H
#define STREAM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "debug_check.h"
#include "sst_channel.h"
#include "sst_stream.h"
#include "stream_dgram.h"
#include "stream_fifo.h"
#include "stream_flowctl.h"
#include "stream_ids.h"
#include "stream_rob.h"
#include "stream_sched.h"
#include "stream_sendq.h"
#include "stream_state.h"
#include "stream_wire.h"

enum {
	STREAM_SERVICES_MAX = 64,
	STREAM_PEER_CHANS_MAX = 4,  /**< channels of one peer at once */
	STREAM_USIDS_INIT = 16,	    /**< slots of a peer's USID index at first (stream_usid.c) */
	STREAM_PEER_HCIDS_MAX = 16, /**< half-channel IDs a peer's USIDs refer to */
	STREAM_DGRAM_QUEUE = 32,    /**< datagrams waiting per parent */
	STREAM_RX_BURST = 32,
	/** mbufs whose send-queue entries every send buffer holds (4.6 KB
	 * with their ranges); beyond, up to send_mbufs, the tables double on
	 * the heap (stream_sendq.h) and go with the buffer. */
	STREAM_TXIO_MBUFS = 64,
	/** Reassembly pieces every receive buffer holds (5 KB); beyond, up to
	 * rx_pieces, they are added on the heap (stream_rob.h). */
	STREAM_RXIO_PIECES = 64,
	STREAM_HCID_ROOT = 0xff,     /**< hcid index of the root stream */
	STREAM_CODES_STATELESS = 64, /**< stateless Resets owed per channel at most */
	/** A pass of the idle sweep starts at most this often, so a stream
	 * keeps its receive buffers unless it received nothing for that long
	 * (flushes come every few microseconds on a busy worker). */
	STREAM_SWEEP_INTERVAL = 50 * 1000 * 1000,
	STREAM_ACK_RESERVE = 4, /**< channel numbers left for ack-only packets */
	/** Room a control packet needs: itself, a second one (a control
	 * stream may owe an Attach and a window update), the ack reserve. */
	STREAM_CTL_ROOM = 2 + STREAM_ACK_RESERVE,
	STREAM_DGRAM_FRAGS = 32,       /**< fragments of one datagram we send at most */
	STREAM_DGRAM_RX_FRAGS = 512,   /**< fragments a channel buffers for reassembly */
	STREAM_CODE_ORIENT = 1u << 16, /**< Reset: the SID is in the receiver's space */
	STREAM_CODE_DETACH = 1u << 17, /**< a Detach rather than a Reset */
	STREAM_CODE_HELD = 1u << 18,   /**< our SID, parked until the code is acknowledged */
	/* Per-channel tables start at these sizes and double with use
	 * (issue 14: an idle channel costs what it uses, not its limits). */
	STREAM_SENT_INIT = 16, /**< records of packets in flight, up to tx_log */
	STREAM_CODES_INIT = 8, /**< Resets and Detaches owed, up to max_sids + STATELESS */
};

/*
 * Stream flags (struct sst_stream.flags): only work due on a stream and
 * the queues it is in, bits that come and go many times in its life. Its
 * lifecycle is in the states of stream_state.h, and the facts about it
 * (who opened it, whether it accepts substreams, what the peer knows) are
 * named fields of struct sst_stream. A bit here is a list membership when
 * its list needs it (the list cannot answer "is s in me?" in O(1)) or a
 * piece of work a flush or a timer must do.
 */
enum {
	/* Work due: what the channel's next flush must send. */
	SF_WINDOW_DUE = 1u << 0,  /**< a window update is owed on rx_chan */
	SF_ATTACH_DUE = 1u << 1,  /**< an Attach is owed on tx_chan */
	SF_ATTACH_INIT = 1u << 2, /**< the Attach owed or in flight carries Init (new stream) */
	/* Membership of a list (the stream is in it exactly while set). */
	SF_IN_CTL_QUEUE = 1u << 3,   /**< in its channel's control queue (sst_stream_chan.ctl) */
	SF_IN_SID_WAITERS = 1u << 4, /**< in tx_chan's FIFO of streams waiting for a SID */
	SF_IN_TX_WAITERS = 1u << 5,  /**< in the host's FIFO of streams waiting for a send buffer */
	SF_IN_REAP_LIST = 1u << 6,   /**< ended with no references: on the host's reap list */
	SF_BITS = 7,		     /**< the width of struct sst_stream.flags */
};

/* A bit at or above SF_BITS would be dropped silently by the bit-field,
 * and the stream would misbehave far from the cause (regrouping the bits
 * with gaps made the migration and channel-close scenarios fail). */
static_assert((SF_WINDOW_DUE | SF_ATTACH_DUE | SF_ATTACH_INIT | SF_IN_CTL_QUEUE |
		      SF_IN_SID_WAITERS | SF_IN_TX_WAITERS | SF_IN_REAP_LIST) < (1u << SF_BITS),
	"every SF_ bit fits struct sst_stream.flags");

/* Who opened a stream: fixed when its control block is taken. */
enum stream_role {
	STREAM_PEERS = 0, /**< the peer opened it (or it is a datagram read as a substream) */
	STREAM_OURS,	  /**< we opened it (sst_stream_connect(), substreams) */
	STREAM_ROOT,	  /**< a peer's root stream (sst_stream_peer.root), opened by no one */
	STREAM_ROLES
};

/* Send side buffers, attached while the stream has anything to send or in
 * flight. */
struct stream_txio {
	struct sst_sched_entry sched;
	struct sst_stream *s;
	struct sst_flowctl_tx fc;
	struct sst_stream *parent; /**< charged for Init data; reference held */
	uint64_t charged;	   /**< Init bytes in flight counted in the parent's window */
	struct sst_sendq q;	   /**< must be last: its arrays follow */
};

/* Receive side buffers, attached while anything is buffered or queued. */
struct stream_rxio {
	struct sst_flowctl_rx fc;
	uint32_t owner;			/**< index in the host's rx_owners */
	struct sst_stream *accept_head; /**< substreams waiting for accept */
	struct sst_stream *accept_tail;
	struct rte_mbuf *dgrams[STREAM_DGRAM_QUEUE];
	uint16_t dgram_head, dgram_count;
	uint64_t dgram_drops;
	uint16_t svc_len;		  /**< service message gathered so far */
	uint8_t svc[SST_SERVICE_MSG_MAX]; /**< the rendezvous message (top-level) */
	struct sst_rob rob;		  /**< must be last: its pieces follow */
};

/*
 * A stream: this control block is all an idle stream costs (at most 96
 * bytes: sst_stream_control_block_size()).
 */
struct sst_stream {
	struct sst_stream_peer *peer;
	struct sst_stream_chan *tx_chan; /**< where we send (attached or not) */
	struct sst_stream_chan *rx_chan; /**< where the peer's SID for it lives */
	struct stream_txio *tx;
	struct stream_rxio *rx;
	void *user;		 /**< the application's; the parent while in its accept queue */
	struct sst_stream *link; /**< accept queue or orphan list */
	uint64_t usid_counter;
	uint64_t tx_off; /**< bytes written by the application */
	uint64_t rx_off; /**< bytes read by the application (while no rx buffers) */
	int32_t prio;
	uint16_t tx_sid, rx_sid;
	uint16_t refs;	   /**< packets in flight, children, the app handle */
	uint8_t hcid;	   /**< index into the peer's half-channel IDs */
	uint8_t tx_window; /**< the peer's latest window byte (no tx buffers) */
	/* The SF_ bits, the facts, the states (stream_state.h, changed only
	 * by stream_set_*()) and the attachment slot: packed in one word, so
	 * that the lifecycle costs no byte more than the flags it replaced. */
	uint32_t flags : SF_BITS;
	uint32_t role : 2;	      /**< enum stream_role */
	uint32_t listening : 1;	      /**< accepts substreams (sst_stream_listen_substream()) */
	uint32_t peer_knows : 1;      /**< the peer has state for it: re-attach without Init */
	uint32_t writable_wanted : 1; /**< the application waits for ops.writable() */
	uint32_t rx_recent : 1;	      /**< data arrived since the last idle sweep */
	uint32_t send : 2;	      /**< enum stream_send_state */
	uint32_t recv : 1;	      /**< enum stream_recv_state */
	uint32_t end : 2;	      /**< enum stream_end_state */
	uint32_t service : 2;	      /**< enum stream_service_state */
	uint32_t life : 3;	      /**< enum stream_life_state */
	uint32_t tx_attach : 2;	      /**< enum stream_tx_attach_state */
	uint32_t rx_attach : 1;	      /**< enum stream_rx_attach_state */
	/** The attachment slot our Attach names (paper 4.3.7): flips at each
	 * move to another channel, so the peer tells a new attachment from
	 * a resent one. */
	uint32_t tx_slot : 1;
};

static_assert(STREAM_ROLES <= 4 && STREAM_SEND_STATES <= 4 && STREAM_RECV_STATES <= 2 &&
		      STREAM_END_STATES <= 4 && STREAM_SERVICE_STATES <= 4 &&
		      STREAM_LIFE_STATES <= 8 && STREAM_TX_ATTACH_STATES <= 4 &&
		      STREAM_RX_ATTACH_STATES <= 2,
	"the states fit their bit-fields");

/*
 * The calls from a lower stream module up to a higher one: the only ones,
 * so that no two modules call each other both ways. stream_host.c fills
 * the table at host creation.
 */
struct stream_upcalls {
	/** stream_service_rx() (stream_service.h), for stream_app.c's
	 * delivery to a top-level stream still in its rendezvous. */
	void (*service_rx)(struct sst_stream *s, sst_time_t now);
	/** stream_service_accept() (stream_service.h), for stream_life.c's
	 * FIFO of streams waiting for a send buffer: a reply that found none. */
	void (*service_accept)(struct sst_stream *s, sst_time_t now);
};

struct stream_service {
	char service[64];
	char protocol[64];
	void *ctx;
	bool used;
};

/* What one packet in flight carried: its channel cookie. */
enum sent_kind {
	SENT_FREE = 0,
	SENT_SEGMENT, /**< Init/Reply/Data: off, len */
	SENT_ACK,     /**< window update */
	SENT_ATTACH,
	SENT_DETACH, /**< aux: the SID */
	SENT_RESET,  /**< aux: SID | orientation << 16 */
	SENT_DGRAM,
};

struct stream_sent {
	struct sst_stream *s; /**< reference held; NULL for stateless packets */
	uint64_t off;
	uint32_t len;	 /**< SENT_SEGMENT; next free index + 1 when free */
	uint32_t aux;	 /**< SENT_RESET/DETACH: SID and orientation */
	uint8_t kind;	 /**< enum sent_kind */
	uint8_t flags;	 /**< segment flags (Close etc.) */
	bool attachment; /**< carried the stream's attachment (Init/Reply/Attach) */
	bool charged;	 /**< an Init segment also counted in the parent's window */
};

struct sst_stream_chan {
	struct sst_stream_peer *peer;
	void *user; /**< sst_stream_chan_params.user */
	struct sst_channel *ch;
	struct sst_sid_space *tx_sids; /**< &tx_space */
	struct sst_sid_space *rx_sids; /**< &rx_space */
	struct sst_sched sched;
	struct stream_sent *sent;     /**< grows from STREAM_SENT_INIT up to sent_max */
	uint32_t sent_cap, sent_free; /**< free list: index + 1, 0 = none */
	uint32_t sent_max;	      /**< the channel's tx_log */
	uint32_t replay_window;
	uint32_t mss;		/**< segment payload that fits one channel packet */
	struct stream_fifo ctl; /**< streams with control packets due (host->ctl_next) */
	bool ctl_sweep;		/**< a queued stream is now due elsewhere (ctl_sweep()) */
	/** Ack packets of a keepalive probe still owed on the root
	 * (sst_stream_chan_probe(): one, which our peers answer at once;
	 * SST_CHANNEL_ACK_ONLY_EVERY when one is lost, which any peer answers). */
	uint8_t probe_due;
	uint32_t *codes; /**< Resets and Detaches owed (ring; grows up to code_max) */
	uint32_t code_head, code_count, code_cap, code_max;
	struct sst_stream held;	       /**< marker for SIDs parked by stream_give_up_tx_sid() */
	uint8_t local_hcid, peer_hcid; /**< indexes into the peer's table */
	bool initiator;		       /**< we started the channel */
	bool dead;
	bool on_hold;			/**< sends nothing until sst_stream_chan_release() */
	uint32_t born;			/**< the peer's chans_made when it came: newest wins */
	uint8_t root_tx_window;		/**< window the peer advertises on the root */
	uint16_t last_rx_sid;		/**< the peer's SID of the stream that last got data */
	uint16_t burst_n;		/**< packets built and not yet handed to the channel */
	struct stream_fifo sid_waiters; /**< streams waiting for a tx SID (host->sidw_next) */
	uint32_t detach_cursor;		/**< where the search for idle streams resumes */
	struct sst_dgram_rx *dgram;	/**< fragments being reassembled; NULL until the first */
	/* Closing without TIME_WAIT (sst_stream_chan_close()). */
	bool finish_sent, finish_acked, peer_finished, closed, finish_ack_due;
	bool flush_wanted; /**< channel_pending() reported since the last flush */
	/** The last flush stopped at the channel's send allowance (its
	 * congestion window or its pacer): the streams ready to send wait for
	 * an acknowledgment or next_flush, not for the next pass. */
	bool allowance_held;
	uint8_t finish_losses;
	uint32_t loss_rate; /**< recent packet loss, in 1/65536 */
	sst_time_t next_flush;
	struct sst_stream_chan_stats stats;
	struct sst_sid_space tx_space, rx_space; /**< tables grow as streams attach */
};

/* A half-channel ID the peer's USIDs may name. Held by the channels that
 * have it and by the streams whose USID names it (in the USID index), and
 * freed when the last lets go, so that a peer whose channels keep being
 * replaced never runs out of entries. */
struct peer_hcid {
	uint8_t len;
	uint8_t id[SST_HCID_MAX];
	uint32_t refs;
};

struct sst_stream_peer {
	struct sst_stream_host *host;
	uint32_t caps;
	struct sst_stream_chan *chans[STREAM_PEER_CHANS_MAX];
	uint32_t chans_made; /**< channels created so far: their birth order */
	struct sst_stream root;
	struct peer_hcid hcids[STREAM_PEER_HCIDS_MAX];
	/* Streams by USID (counter, hcid): open addressing, load <= 1/2. */
	struct sst_stream **usids;
	uint32_t usid_mask, usid_count, usid_max;
	uint32_t nstreams;
	/* Fair shares (sst_stream_host_params.peer_max_*): what the streams
	 * the peer opened hold. Ours are our application's business. */
	uint32_t nours;	   /**< of nstreams, those we opened */
	uint32_t ntx, nrx; /**< buffers held by the streams it opened */
	/* Destroyed while the application held some of its streams: kept,
	 * without channels, on the host's list of gone peers until the last
	 * is freed (stream_peer_gone_freed()), so their handles stay valid. */
	bool gone;
	struct sst_stream_peer *gone_prev, *gone_next;
};

struct sst_stream_host {
	struct sst_stream_host_params p;
	const struct stream_upcalls *up; /**< calls up the module order */
	struct sst_stream *slab;	 /**< max_streams control blocks */
	struct sst_stream *slab_free;	 /**< free list through link */
	struct sst_stream_peer *gone;	 /**< destroyed peers whose streams are held */
	uint32_t slab_fresh;		 /**< slab[slab_fresh..] never used yet */
	uint32_t slab_used;
	uint32_t txios_used, rxios_used; /**< buffers attached (mempool counts include
					    objects a --no-huge pool never populated) */
	struct sst_stream **rx_owners;	 /**< the streams holding receive buffers (dense) */
	sst_time_t sweep_next;		 /**< the next pass of the idle sweep starts then */
	struct rte_mempool *txios;
	struct rte_mempool *rxios;
	bool rx_short; /**< a stream found no receive buffer: grow (stream_buffers.h) */
	sst_time_t buffers_retry_at; /**< the pools failed to grow: not before then */
	struct stream_service services[STREAM_SERVICES_MAX];
	struct sst_stream_host_stats stats;
	uint32_t txio_mbufs, txio_ranges, rxio_pieces;
	struct sst_stream *reap;	/**< ended streams to free at the next safe point */
	struct sst_stream **tx_waiters; /**< FIFO of streams waiting for send buffers */
	uint32_t tx_waiters_head, tx_waiting, tx_waiters_cap;
	/* Links of the channels' stream queues (stream_fifo.h), by control block. */
	uint32_t *ctl_next;  /**< control packets due (sst_stream_chan.ctl) */
	uint32_t *sidw_next; /**< waiting for a SID (sst_stream_chan.sid_waiters) */
	/** Flags a segment with data keeps on receipt: all of them, or all
	 * but Close when posing as the prototype's reader (chosen once). */
	uint32_t rx_data_flags;
};

/* The library's log type (stream_host.c). */
extern int sst_logtype_stream;

/*
 * stream_set_send(), _recv(), _end(), _service(), _life(), _tx_attach(),
 * _rx_attach(): move one of s's states (stream_state.h) to to, the only way
 * they change. Debug builds check the transition against its table
 * (stream_state.c): an illegal one is counted in the host's
 * stats.illegal_transitions and the first is logged (debug_check.h); the
 * move is made all the same, as a build without the check would.
 */
#define STREAM_STATE_SETTER(field, state)                                             \
	static inline void stream_set_##field(struct sst_stream *s, enum state to)    \
	{                                                                             \
		SST_DEBUG_CHECK(state##_legal((enum state)s->field, to),              \
			s->peer->host->stats.illegal_transitions, sst_logtype_stream, \
			"sst.stream");                                                \
		s->field = (unsigned int)to;                                          \
	}

STREAM_STATE_SETTER(send, stream_send_state)
STREAM_STATE_SETTER(recv, stream_recv_state)
STREAM_STATE_SETTER(end, stream_end_state)
STREAM_STATE_SETTER(service, stream_service_state)
STREAM_STATE_SETTER(life, stream_life_state)
STREAM_STATE_SETTER(tx_attach, stream_tx_attach_state)
STREAM_STATE_SETTER(rx_attach, stream_rx_attach_state)

/* tx_sid is ours on tx_chan (bound, attaching or acknowledged). */
static inline bool
stream_tx_bound(const struct sst_stream *s)
{
	return s->tx_attach != STREAM_TX_DETACHED;
}

/* The peer mapped tx_sid to s: segments go as Data. */
static inline bool
stream_tx_attached_acked(const struct sst_stream *s)
{
	return s->tx_attach == STREAM_TX_ACKED;
}

/* rx_sid is the peer's SID for s on rx_chan. */
static inline bool
stream_rx_bound(const struct sst_stream *s)
{
	return s->rx_attach == STREAM_RX_ATTACHED;
}

/* Whether s is attached on c with our SID (a parent an Init can name). */
static inline bool
stream_tx_bound_on(const struct sst_stream *s, const struct sst_stream_chan *c)
{
	return stream_tx_bound(s) && s->tx_chan == c;
}

/* Our SID for s on tx_chan is given up (released, parked or its channel
 * gone): the next attachment takes a new one. */
static inline void
stream_tx_unbind(struct sst_stream *s)
{
	if (stream_tx_bound(s))
		stream_set_tx_attach(s, STREAM_TX_DETACHED);
}

/* The peer's SID for s is gone (detached, released or its channel gone). */
static inline void
stream_rx_unbind(struct sst_stream *s)
{
	if (stream_rx_bound(s))
		stream_set_rx_attach(s, STREAM_RX_DETACHED);
}

/* The peer acknowledged s's attachment on its tx channel (an Init, Reply
 * or Attach it carried was acked, or the peer Replied): Data from now on,
 * and re-attachments need no Init. */
static inline void
stream_tx_attach_acked(struct sst_stream *s)
{
	if (!stream_tx_attached_acked(s))
		stream_set_tx_attach(s, STREAM_TX_ACKED);
	s->peer_knows = true;
}

/* A top-level stream whose rendezvous message is still being gathered:
 * neither the application nor its children see its data yet. */
static inline bool
stream_service_waiting(const struct sst_stream *s)
{
	return s->service == STREAM_SERVICE_WAITING;
}

/* The application holds s's handle: it hears of s's events. */
static inline bool
stream_app_holds(const struct sst_stream *s)
{
	return s->life == STREAM_APP_OWNED;
}

/* Reset (by either side): no more traffic either way. */
static inline bool
stream_is_reset(const struct sst_stream *s)
{
	return s->end == STREAM_RESET || s->end == STREAM_RESET_AFTER_FINISH;
}

/* Both directions closed cleanly (reset since or not). */
static inline bool
stream_is_finished(const struct sst_stream *s)
{
	return s->end == STREAM_FINISHED || s->end == STREAM_RESET_AFTER_FINISH;
}

/* Finished or reset: the protocol needs the stream no more. */
static inline bool
stream_is_ended(const struct sst_stream *s)
{
	return s->end != STREAM_LIVE;
}

/* Our direction was shut down (its Close owed, queued or acknowledged). */
static inline bool
stream_send_closed(const struct sst_stream *s)
{
	return s->send != STREAM_SEND_OPEN;
}

/* The peer's Close was read. */
static inline bool
stream_recv_eof(const struct sst_stream *s)
{
	return s->recv == STREAM_RECV_EOF_READ;
}

/* A peer's root stream (sst_stream_peer.root, SID 0): it never ends and
 * goes with its peer. */
static inline bool
stream_is_root(const struct sst_stream *s)
{
	return s->role == STREAM_ROOT;
}

/* We opened s (the peer's fair shares do not count it). */
static inline bool
stream_is_ours(const struct sst_stream *s)
{
	return s->role == STREAM_OURS;
}

/* Take a reference on s (stream_life.h drops it: stream_unref()). */
static inline void
stream_ref(struct sst_stream *s)
{
	s->refs++;
}

/* Whether a came after b (birth order, sst_stream_chan_prefer() aside). */
static inline bool
stream_chan_newer(const struct sst_stream_chan *a, const struct sst_stream_chan *b)
{
	return a->born != b->born && a->born - b->born < (1u << 31);
}

/* Work was queued on c: tell the caller once until its next flush
 * (sst_stream_ops.channel_pending). */
static inline void
stream_chan_wants_flush(struct sst_stream_chan *c)
{
	const struct sst_stream_ops *ops = c->peer->host->p.ops;

	if (c->flush_wanted)
		return;
	c->flush_wanted = true;
	if (ops != NULL && ops->channel_pending != NULL)
		ops->channel_pending(c->peer->host->p.ctx, c);
}

/* A channel's queues of streams (stream_fifo.h), linked through the host's
 * tables by control block index. Only control blocks of the host's array
 * are ever queued (never a peer's root). */
static inline void
stream_queue_push(struct stream_fifo *q, uint32_t *next, struct sst_stream *s)
{
	stream_fifo_push(q, next, (uint32_t)(s - s->peer->host->slab));
}

/* The oldest stream of q (which must not be empty), taken out of it. */
static inline struct sst_stream *
stream_queue_pop(struct stream_fifo *q, uint32_t *next, struct sst_stream_host *h)
{
	return &h->slab[stream_fifo_pop(q, next)];
}

/* The peer advertised every capability of cap (SST_CAP_*). */
static inline bool
stream_peer_can(const struct sst_stream_peer *p, uint32_t cap)
{
	return (p->caps & cap) == cap;
}

/** The peer may be the 2007 prototype (it advertised no capability). */
static inline bool
stream_peer_legacy(const struct sst_stream_peer *p)
{
	return p->caps == SST_CAPS_LEGACY;
}

/* The window byte to advertise for s: its receive buffer's, or while it
 * has none, the smallest window a fresh buffer would give. */
static inline uint8_t
stream_rx_window(const struct sst_stream *s)
{
	if (s->rx != NULL)
		return sst_flowctl_rx_window(&s->rx->fc);
	return sst_window_encode(s->peer->host->p.rx_window_min);
}

#endif /* STREAM_INTERNAL_H */
