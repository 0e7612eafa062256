/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The send path on a channel (stream_tx.c): sst_stream_chan_flush() sends
 * the owed codes and control packets first, then segments of the ready
 * streams in priority order while congestion and flow control allow;
 * ack-only packets. Datagrams: stream_tx_dgram.h.
 *
 * Owns: sst_stream_chan.sent (the records of packets in flight, indexed by
 * the channel cookie; each holds a reference on its stream), burst_n,
 * next_flush, ctl_sweep, finish_ack_due (it sends the ack). Calls:
 * stream_life.h, stream_ctl.h, stream_chan_sids.h, stream_chan_finish.h
 * (a declined FINISH answered once the channel is unused) and the channel.
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

/* An mbuf from the host's packet pool holding the encoded header hdr and
 * nothing else (a control packet, or the header chained in front of a
 * datagram fragment). NULL when the pool is empty. */
struct rte_mbuf *stream_header_mbuf(struct sst_stream_chan *c, const struct sst_stream_hdr *hdr);

/* The window byte a packet of c for s carries: what the receive side of s
 * allows (the host's minimum for the root or s NULL), counting the packets
 * already waiting in the burst as sent first. */
uint8_t stream_advertise(struct sst_stream_chan *c, struct sst_stream *s);

/* The segment payload one packet of c carries (at most SST_SEGMENT_MAX to
 * a peer that may be the prototype). */
uint32_t stream_chan_mss(const struct sst_stream_chan *c);

/* The largest datagram that goes in one Datagram packet on c. */
uint32_t stream_dgram_payload_max(const struct sst_stream_chan *c);

#endif /* STREAM_TX_H */
