/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Channel attachments (stream_chan.c): sst_stream_chan_create(),
 * _release(), _destroy(), _close(), _migrate_all(), the channel queries
 * and statistics of sst_stream.h, and sst_stream_chan_upper, the table the
 * channel calls into (receive: stream_rx.h; acked, lost: stream_ack.h;
 * ack_due: stream_tx.h; event: here).
 *
 * Owns: the sst_stream_chan object, its channel (sst_channel_create() /
 * _destroy()), its SID spaces, scheduler and record table, and its place
 * in the peer's chans[]. Calls: every stream module below it; the
 * application's channel_event callback. Frees: the channel attachment in
 * sst_stream_chan_destroy(), after every packet in flight counted as lost
 * and its streams were handed to the peer's next channel (or orphaned
 * until one comes). No internal functions.
 */
#ifndef STREAM_CHAN_H
#define STREAM_CHAN_H

#include "stream_internal.h"

#endif /* STREAM_CHAN_H */
