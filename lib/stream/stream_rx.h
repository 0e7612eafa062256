/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive path (stream_rx.c): every authenticated packet of a channel,
 * starting at its stream header, dispatched by type (Init, Reply, Data,
 * Ack, Datagram, Reset, Attach, Detach).
 *
 * Owns: the decision to accept or refuse each packet (SST_CHANNEL_RX_REFUSE:
 * not acknowledged, so the sender resends), sst_stream_chan.last_rx_sid
 * and .dgram (datagram reassembly). Calls: stream_usid.h, stream_ctl.h,
 * stream_life.h, stream_chan_finish.h, stream_chan_sids.h, stream_app.h
 * (delivery, migration by Attach, datagrams). Frees: the packet (each is
 * taken), and streams at its end (stream_reap(): a safe point).
 */
#ifndef STREAM_RX_H
#define STREAM_RX_H

#include "stream_internal.h"

/* sst_channel_upper.receive (ctx: the stream channel): handle packet m
 * (taken) received at channel sequence seq, then reap. Returns
 * SST_CHANNEL_RX_NEEDS_ACK when m carried data or control,
 * SST_CHANNEL_RX_ACCEPT for an ack-only packet, SST_CHANNEL_RX_REFUSE when
 * it must not be acknowledged (it could not be buffered: the sender resends). */
enum sst_channel_rx_verdict stream_rx_packet(
	void *ctx, struct rte_mbuf *m, uint64_t seq, sst_time_t now);

#endif /* STREAM_RX_H */
