/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the channel reports about each stream packet it sent (stream_ack.c):
 * acknowledged or lost, by the record its cookie indexes (stream_tx.h).
 *
 * Owns: the outcome of each record: acknowledged data leaves the send
 * queue and flow-control window, lost data is queued again, an
 * acknowledged code starts its SID's quiet period, a lost control packet
 * is owed again; sst_stream_chan.loss_rate. Calls: stream_life.h,
 * stream_ctl.h, stream_chan_finish.h, stream_tx.h. Frees: each record it
 * is told about (stream_sent_release()), never a stream (reaping is the
 * caller's safe point).
 */
#ifndef STREAM_ACK_H
#define STREAM_ACK_H

#include "stream_internal.h"

/* sst_channel_upper.acked (ctx: the stream channel): the packet of record
 * cookie (0: no record) was acknowledged at channel sequence seq. */
void stream_tx_acked(void *ctx, uint64_t seq, uintptr_t cookie, sst_time_t now);

/* sst_channel_upper.lost (ctx: the stream channel): the packet of record
 * cookie (0: no record) was lost. */
void stream_tx_lost(void *ctx, uint64_t seq, uintptr_t cookie, sst_time_t now);

/* c goes away: every packet it has in flight counts as lost, so that its
 * data and control packets are owed again on the peer's next channel. */
void stream_tx_lost_all(struct sst_stream_chan *c, sst_time_t now);

#endif /* STREAM_ACK_H */
