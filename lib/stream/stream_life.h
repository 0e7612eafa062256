/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A stream's lifecycle (stream_life.c): its control block from the host's
 * array, its references, its send and receive buffers attached on demand,
 * the FIFO of streams waiting for a send buffer, the idle sweep, its end
 * (finished or reset) with the application told once, and the quiet period
 * of the SIDs it released.
 *
 * Owns: the host's slab free list, reap list, tx_waiters FIFO and
 * rx_owners array; s->refs, s->tx, s->rx, the end state (finished or
 * reset), the send state from CLOSE_OWED, ABANDONED, and the SF_IN_REAP_LIST
 * and SF_IN_TX_WAITERS bits. Calls: stream_usid.h
 * and stream_ctl.h, and the application's closed, connected and writable
 * callbacks. Frees: a control block only in stream_reap(), at a safe
 * point (the end of a received packet, of a flush, of a timer), never
 * inside processing that may still use it; buffers as soon as they are
 * idle (their mbufs go back to the pools).
 */
#ifndef STREAM_LIFE_H
#define STREAM_LIFE_H

#include "stream_internal.h"

/* A control block for a new stream of p in this role (STREAM_OURS or
 * STREAM_PEERS: who opened it; fixed for its life), these initial states
 * (both directions open, live) and one reference (the application's
 * handle or the accept queue's), counted in p's streams. Returns NULL
 * (counted in stats.no_stream) when none is left. */
struct sst_stream *stream_alloc(struct sst_stream_peer *p, enum stream_role role,
	enum stream_life_state life, enum stream_service_state service);

/* Give back a control block from stream_alloc() that never became a
 * stream (nothing refers to it, it is in no index). The peer's counts are
 * the caller's. */
void stream_slab_put(struct sst_stream_host *h, struct sst_stream *s);

/* Drop a reference. A stream that ended and has no reference left goes on
 * the reap list: never freed here, since the callers may still use it. */
void stream_unref(struct sst_stream *s, sst_time_t now);

/* s ended (finished or reset): put it on the reap list if nothing refers
 * to it any more. Nothing for the root or a stream already listed. */
void stream_ended(struct sst_stream *s);

/* Free the streams on h's reap list that are still unreferenced (their
 * SIDs, buffers and USID go). Call only at a safe point. */
void stream_reap(struct sst_stream_host *h, sst_time_t now);

/* Attach send buffers to s if it has none. Returns 0, or -ENOBUFS when
 * the pool is empty or s's peer holds its share (counted in stats), or
 * -EINVAL when the send queue cannot be set up. */
int stream_tx_buffers(struct sst_stream *s);

/* s found no send buffer and the application wants ops.writable() when
 * one comes: join the waiting FIFO (writable_wanted). */
void stream_tx_buffer_wait(struct sst_stream *s);

/* s found no send buffer: join the waiting FIFO once, with a reference
 * (without telling the application when one comes). */
void stream_tx_buffer_queue(struct sst_stream *s);

/* A send buffer came back to h's pool: serve the waiting streams in turn
 * (a Close that waited goes out, or one stream hears ops.writable()),
 * those over their peer's share going back to the tail. */
void stream_tx_buffer_freed(struct sst_stream_host *h, sst_time_t now);

/* Queue the Close of s's direction; s has send buffers. Alone in an empty
 * segment to a peer that may be the prototype. Wakes s for the flush. */
void stream_close_tx(struct sst_stream *s);

/* Append len bytes of buf to s's send queue as one message with these
 * SST_FLAG_ flags (service and priority messages) and wake s. Returns 0,
 * -ENOBUFS without a send buffer or mbuf, or sst_sendq_append()'s error. */
int stream_write_internal(struct sst_stream *s, const void *buf, size_t len, uint32_t flags);

/* Attach receive buffers to s if it has none. Returns 0, or -ENOBUFS when
 * the pool is empty or s's peer holds its share, or -EINVAL when the
 * reassembly cannot be set up. */
int stream_rx_buffers(struct sst_stream *s);

/* Give back s's buffers that hold nothing any more (all of them once s was
 * reset): send buffers at once, receive buffers once no data came since
 * the last idle sweep. Children still in its accept queue are reset; a
 * smaller window is advertised when the fresh state offers less. */
void stream_maybe_release_buffers(struct sst_stream *s, sst_time_t now);

/* The same, giving back every buffer when all is set, whatever they hold
 * (a control block being freed, a peer's root going with its peer): as for
 * a reset stream, but without resetting it. */
void stream_release_buffers(struct sst_stream *s, bool all, sst_time_t now);

/* One pass over h's streams holding receive buffers, at most every
 * STREAM_SWEEP_INTERVAL: those that received nothing since the last pass
 * give their idle buffers back. */
void stream_idle_sweep(struct sst_stream_host *h, sst_time_t now);

/* Release sid of space (a SID space of c) with the quiet period of paper
 * 4.3.9; ended marks a finished stream's (sst_sid_release_ended()).
 * Nothing when c is NULL or dead. */
void stream_sid_quiet(
	struct sst_stream_chan *c, struct sst_sid_space *space, uint16_t sid, bool ended);

/* Release s's tx SID (quietly) if it has one: s is no longer attached. */
void stream_release_tx_sid(struct sst_stream *s);

/* Release both of s's SIDs (quietly). */
void stream_release_sids(struct sst_stream *s, sst_time_t now);

/* Both directions of s ended (our Close acknowledged, the peer's read):
 * s finishes, its SIDs and buffers go, the application hears closed(). */
void stream_check_finished(struct sst_stream *s, sst_time_t now);

/* End s now: a Reset goes to the peer if send and it knows Reset, its
 * queued data is dropped, its buffers go, the application hears closed(s,
 * why) (or connected() with an error for a connect not yet answered)
 * unless it closed s. Nothing for the root or a stream already reset. */
void stream_do_reset(struct sst_stream *s, enum sst_stream_end why, bool send, sst_time_t now);

/* Drop a stream we opened that failed before anything of it went out:
 * reset silently (no callback) and release the caller's reference. */
void stream_abandon(struct sst_stream *s, sst_time_t now);

/* Free peer p's memory: its USID index, then p. Its channels and streams
 * must be gone (sst_stream_peer_destroy(), stream_peer_gone_freed()). */
void stream_peer_free_mem(struct sst_stream_peer *p);

/* A stream of the destroyed ("gone") peer p was freed: with its last
 * stream, unlink p from its host's list of gone peers and free it. */
void stream_peer_gone_freed(struct sst_stream_peer *p);

/* Free the gone peers of host h, whose streams go with it (at the host's
 * destruction). */
void stream_peer_gone_fini(struct sst_stream_host *h);

#endif /* STREAM_LIFE_H */
