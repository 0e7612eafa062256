/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive path (stream_rx.c): every authenticated packet of a channel,
 * starting at its stream header, dispatched by type (Init, Reply, Data,
 * Ack, Datagram, Reset, Attach, Detach).
 *
 * Owns: the decision to accept or refuse each packet (sst_channel_refuse():
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
 * (taken) received at channel sequence seq, then reap. Returns whether m
 * asks for a prompt acknowledgment (it carried data or control); a packet
 * that must not be acknowledged was refused with sst_channel_refuse(). */
bool stream_rx_packet(void *ctx, struct rte_mbuf *m, uint64_t seq, sst_time_t now);

#endif /* STREAM_RX_H */
