/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A stream's lifecycle as states (struct sst_stream): one enum per thing
 * that moves one way through a life, each with its legal transitions in
 * one table (stream_state.c) that every change goes through
 * (stream_set_*() in stream_internal.h checks it in debug builds). What is
 * not a state but an independent fact or a piece of work due (an ack, a
 * place in a queue) stays a bit of struct sst_stream.flags.
 *
 * Contract: the functions here are pure; they own nothing and call nothing.
 */
#ifndef STREAM_STATE_H
#define STREAM_STATE_H

#include <stdbool.h>

/*
 * Our direction (what we send), moved by the application's shutdown and
 * close (stream_app.c), a send buffer coming back (stream_life.c) and the
 * acknowledgment of the Close (stream_ack.c):
 *
 *   OPEN --shutdown, buffer--> CLOSE_QUEUED --Close acked--> CLOSE_ACKED
 *     |                           ^
 *     +--shutdown, no buffer--> CLOSE_OWED --buffer freed--+
 *
 * A datagram read as a substream is born CLOSE_ACKED (it never sends).
 * A reset freezes the direction where it is (enum stream_end_state).
 */
enum stream_send_state {
	STREAM_SEND_OPEN = 0,	  /**< the application may write */
	STREAM_SEND_CLOSE_OWED,	  /**< shut down with no send buffer: the Close waits for one */
	STREAM_SEND_CLOSE_QUEUED, /**< the Close is queued after the data, not yet acknowledged */
	STREAM_SEND_CLOSE_ACKED,  /**< everything up to the Close was acknowledged */
	STREAM_SEND_STATES
};

/*
 * The peer's direction (what we receive), moved when the application (or
 * the library reading for it) reads up to the peer's Close (stream_app.c):
 *
 *   OPEN --Close read--> EOF_READ
 */
enum stream_recv_state {
	STREAM_RECV_OPEN = 0, /**< more may come */
	STREAM_RECV_EOF_READ, /**< the peer's Close arrived and everything before it was read */
	STREAM_RECV_STATES
};

/*
 * How the stream ended, for both directions at once (a Reset ends both,
 * paper 4.3.8): finished when both directions closed cleanly
 * (stream_check_finished(), stream_life.c), reset by either side or by the
 * library (stream_do_reset()). A finished stream may still be reset (the
 * application resets it, or its parent's accept queue is torn down): it
 * then reports both.
 *
 *   LIVE --both closed--> FINISHED --reset--> RESET_AFTER_FINISH
 *     |
 *     +--reset--> RESET
 *
 * The root stream never ends: it goes with its peer.
 */
enum stream_end_state {
	STREAM_LIVE = 0,
	STREAM_FINISHED,
	STREAM_RESET,
	STREAM_RESET_AFTER_FINISH,
	STREAM_END_STATES
};

/*
 * The service rendezvous of a top-level stream (stream_service.c): its
 * first message each way, the request (initiator) and the reply (acceptor),
 * consumed before the application sees the stream. Other streams have
 * none.
 *
 *   NONE (not top-level)
 *   WAITING --reply or request accepted--> DONE
 *      |
 *      +--refused, or the stream ended first--> REFUSED
 */
enum stream_service_state {
	STREAM_SERVICE_NONE = 0, /**< not a top-level stream */
	STREAM_SERVICE_WAITING,	 /**< the rendezvous message is being gathered */
	STREAM_SERVICE_DONE,	 /**< exchanged: the stream carries the application's data */
	STREAM_SERVICE_REFUSED,	 /**< refused by either side, or ended before it completed */
	STREAM_SERVICE_STATES
};

/*
 * Who holds the stream's handle. Ours start APP_OWNED (sst_stream_connect(),
 * substreams, datagram substreams); the peer's start pending, holding the
 * first reference themselves until the application takes them
 * (stream_rx.c, stream_service.c, stream_app.c):
 *
 *   PENDING_SERVICE --service found--> APP_OWNED --sst_stream_close()--> APP_RELEASED
 *          |                             ^
 *          +--no send buffer for the reply--> PENDING_REPLY --reply queued--+
 *   PENDING_ACCEPT --accepted or read as a datagram--^
 *   PENDING_SERVICE, PENDING_REPLY, PENDING_ACCEPT, APP_OWNED --dropped unseen--> ABANDONED
 *
 * ABANDONED: the application never had the stream, or its first message
 * could not be queued (stream_abandon()): nobody hears of its end.
 */
enum stream_life_state {
	STREAM_APP_OWNED = 0,	/**< the application holds the handle */
	STREAM_PENDING_SERVICE, /**< the peer's top-level stream, its service not yet known */
	STREAM_PENDING_ACCEPT,	/**< the peer's substream, in its parent's accept queue */
	STREAM_PENDING_REPLY,	/**< accepted for a service; the reply waits for a send buffer */
	STREAM_APP_RELEASED,	/**< the application closed its handle */
	STREAM_ABANDONED,	/**< dropped before the application had it */
	STREAM_LIFE_STATES
};

/*
 * Our side's attachment on the stream's sending channel (tx_chan): the SID
 * we named it by there, and whether the peer has mapped that SID to the
 * stream (paper 4.3.4, 4.3.7). Moved by the send path taking a SID
 * (stream_tx.c, stream_app.c), the acknowledgments (stream_ack.c), the
 * peer's Reply (stream_rx.c) and the SID being given up or the channel
 * going away (stream_ctl.c, stream_life.c, stream_chan.c, stream_app.c):
 *
 *   DETACHED --SID taken--> BOUND --Attach sent--> ATTACHING
 *                             |  ^------Attach lost-----+
 *                             |                         |
 *                             +--acked, or Reply--> ACKED <--Attach acked--+
 *   BOUND, ATTACHING, ACKED --SID given up, channel gone, moved--> DETACHED
 *
 * BOUND: segments go as Init (naming the parent) or Reply (naming the
 * peer's SID), each carrying the attachment. ATTACHING: an Attach flies,
 * and nothing else goes until it is acknowledged. That an Attach is owed
 * (SF_ATTACH_DUE) is work due, not a state: it is owed in any of these
 * states (DETACHED: it takes the SID when it goes).
 */
enum stream_tx_attach_state {
	STREAM_TX_DETACHED = 0, /**< no SID of ours on tx_chan */
	STREAM_TX_BOUND,	/**< tx_sid is ours on tx_chan, carried by Init or Reply */
	STREAM_TX_ATTACHING,	/**< tx_sid is ours on tx_chan, an Attach for it in flight */
	STREAM_TX_ACKED,	/**< the peer acknowledged the attachment: Data */
	STREAM_TX_ATTACH_STATES
};

/*
 * The peer's attachment on the stream's receiving channel (rx_chan): the
 * SID the peer names the stream by there (its Init, Reply or Attach,
 * stream_rx.c), until the peer detaches it, the stream ends or the
 * channel goes away (stream_rx.c, stream_life.c, stream_chan.c). A move to
 * another channel or SID keeps it ATTACHED (rx_chan and rx_sid change).
 *
 *   DETACHED --Init, Reply or Attach--> ATTACHED --Detach, end, channel gone--> DETACHED
 */
enum stream_rx_attach_state {
	STREAM_RX_DETACHED = 0, /**< the peer names the stream by no SID of ours */
	STREAM_RX_ATTACHED,	/**< rx_sid is the peer's for it on rx_chan */
	STREAM_RX_ATTACH_STATES
};

/* Whether each enum may move from one state to another (the tables of
 * stream_state.c). Pure; out-of-range states are illegal. */
bool stream_send_state_legal(enum stream_send_state from, enum stream_send_state to);
bool stream_recv_state_legal(enum stream_recv_state from, enum stream_recv_state to);
bool stream_end_state_legal(enum stream_end_state from, enum stream_end_state to);
bool stream_service_state_legal(enum stream_service_state from, enum stream_service_state to);
bool stream_life_state_legal(enum stream_life_state from, enum stream_life_state to);
bool stream_tx_attach_state_legal(enum stream_tx_attach_state from, enum stream_tx_attach_state to);
bool stream_rx_attach_state_legal(enum stream_rx_attach_state from, enum stream_rx_attach_state to);

#endif /* STREAM_STATE_H */
