/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Datagrams on the wire (stream_tx_dgram.c): the application's datagrams
 * cut into Datagram packets and handed to the channel.
 *
 * Owns: nothing (a datagram leaves no state at the sender). Calls:
 * stream_tx.h (header mbufs, the payload size), stream_dgram.h (the
 * split) and the channel. Frees: the datagram's mbufs once taken.
 */
#ifndef STREAM_TX_DGRAM_H
#define STREAM_TX_DGRAM_H

#include "stream_internal.h"

/* Send datagram m of parent (the root: the peer's newest channel) as
 * Datagram packets, fragmented if needed (the caller checked that the
 * peer reassembles). Returns 0 with m taken (sent, or dropped when mbufs
 * ran out half-way), or, with m still the caller's: -ENOTCONN without a
 * live channel, -ENOBUFS while the channel is on hold or congestion
 * control allows nothing or m cannot be split now, -EMSGSIZE beyond
 * STREAM_DGRAM_FRAGS fragments. */
int stream_send_dgram_packets(struct sst_stream *parent, struct rte_mbuf *m, sst_time_t now);

#endif /* STREAM_TX_DGRAM_H */
