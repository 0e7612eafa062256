/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Closing a channel without TIME_WAIT (stream_chan_finish.c): the FINISH
 * exchange, a Reset naming the root that each side offers once the channel
 * holds nothing, resent up to three times, and over once both offers went
 * through.
 *
 * Owns: sst_stream_chan.finish_sent, finish_acked, finish_losses,
 * peer_finished, closed and finish_ack_due. Calls: stream_ctl.h, and the
 * application's channel_closed callback. Frees: nothing.
 */
#ifndef STREAM_CHAN_FINISH_H
#define STREAM_CHAN_FINISH_H

#include "stream_internal.h"

/* Offer FINISH on c (again): queue the code and forget earlier outcomes. */
void stream_chan_send_finish(struct sst_stream_chan *c);

/* A stream attaches to c: a closing under way is called off (unless c
 * closed already). */
void stream_chan_busy(struct sst_stream_chan *c);

/* The peer offered FINISH on c: answer with ours if c holds nothing and
 * the peer knows Reset, and see whether c is now closed. */
void stream_chan_peer_finish(struct sst_stream_chan *c, sst_time_t now);

/* Answer a FINISH of the peer's declined while c held a stream, if c now
 * holds nothing: queue ours. Called at every flush (cheap when no offer
 * waits). */
void stream_chan_finish_answer(struct sst_stream_chan *c);

/* Our FINISH was acknowledged (acked) or lost: lost ones are offered again
 * (three losses after the peer's offer count as done). When both sides
 * are done, c is closed: the peer's FINISH is acknowledged at the next
 * flush and the application hears channel_closed(). */
void stream_chan_finish_outcome(struct sst_stream_chan *c, bool acked, sst_time_t now);

#endif /* STREAM_CHAN_FINISH_H */
