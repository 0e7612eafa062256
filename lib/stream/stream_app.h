/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The application's operations on streams (stream_app.c, sst_stream.h):
 * open, substreams, write, read, shutdown, close, reset, priorities,
 * datagrams and migration; and the delivery of what became readable.
 *
 * Owns: the application's handle on a stream (its reference, dropped by
 * sst_stream_close()), accept queues, queued datagrams, the send state up
 * to CLOSE_QUEUED, the receive state, who holds the stream (from pending to
 * APP_OWNED to APP_RELEASED) and writable_wanted. Calls:
 * stream_usid.h, stream_ctl.h, stream_life.h, stream_chan_finish.h,
 * stream_chan_sids.h, stream_tx.h, the application's callbacks, and the
 * service rendezvous only through the host's upcall table (struct
 * stream_upcalls). Frees: nothing itself (a closed stream is reaped by
 * stream_life.c); the mbufs of data read or discarded go to the caller or
 * back to their pool.
 */
#ifndef STREAM_APP_H
#define STREAM_APP_H

#include "stream_internal.h"

/* The application took parent: offer it the children that arrived before
 * (ops.accepted() for each in its accept queue). */
void stream_reoffer_children(struct sst_stream *parent, sst_time_t now);

/* Data or an end became readable on s: a top-level stream first completes
 * its service rendezvous; then the application hears ops.readable(), or,
 * once it closed s, the data is read and discarded so the peer can finish. */
void stream_rx_deliverable(struct sst_stream *s, sst_time_t now);

/* Tell s's flow control what its reassembly buffer holds, after every
 * insert and read. */
void stream_rx_fc_update(struct sst_stream *s);

/* Queue datagram m (taken in every case) for parent's application, which
 * hears ops.readable(). Dropped when parent was reset, has no receive
 * buffers, or holds STREAM_DGRAM_QUEUE datagrams (counted). */
void stream_queue_datagram(struct sst_stream *parent, struct rte_mbuf *m, sst_time_t now);

#endif /* STREAM_APP_H */
