/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The send path on a channel (stream_tx.c): sst_stream_chan_flush() sends
 * the owed codes and control packets first, then segments of the ready
 * streams in priority order while congestion and flow control allow;
 * ack-only packets; datagrams.
 *
 * Owns: sst_stream_chan.sent (the records of packets in flight, indexed by
 * the channel cookie; each holds a reference on its stream), burst_n,
 * next_flush, ctl_sweep, finish_ack_due (it sends the ack). Calls:
 * stream_life.h, stream_ctl.h, stream_chan_sids.h and the channel.
 * Frees: nothing but mbufs it could not send; a record's stream reference
 * goes with stream_sent_release(); reaps at the end of a flush.
 */
#ifndef STREAM_TX_H
#define STREAM_TX_H

#include "stream_internal.h"

/* Free the record whose cookie is idx (1-based) on c and drop the
 * reference it held on its stream. */
void stream_sent_release(struct sst_stream_chan *c, uint32_t idx, sst_time_t now);

/* sst_channel_upper.ack_due (ctx: the stream channel): send an ack-only
 * packet carrying the window of the stream that last received data on it
 * (the root's if none). Nothing while the channel is on hold. */
void stream_tx_ack_due(void *ctx, sst_time_t now);

/* The segment payload one packet of c carries (at most SST_SEGMENT_MAX to
 * a peer that may be the prototype). */
uint32_t stream_chan_mss(const struct sst_stream_chan *c);

/* The largest datagram that goes in one Datagram packet on c. */
uint32_t stream_dgram_payload_max(const struct sst_stream_chan *c);

/* Send datagram m of parent (the root: the peer's newest channel) as
 * Datagram packets, fragmented if needed (the caller checked that the
 * peer reassembles). Returns 0 with m taken (sent, or dropped when mbufs
 * ran out half-way), or, with m still the caller's: -ENOTCONN without a
 * live channel, -ENOBUFS while the channel is on hold or congestion
 * control allows nothing or m cannot be split now, -EMSGSIZE beyond
 * STREAM_DGRAM_FRAGS fragments. */
int stream_send_dgram_packets(struct sst_stream *parent, struct rte_mbuf *m, sst_time_t now);

#endif /* STREAM_TX_H */
