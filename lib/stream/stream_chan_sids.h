/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A channel's transmit SIDs for our streams (stream_chan_sids.c): which of
 * a peer's channels new streams use, taking a SID (an idle stream gives
 * its SID up when the space is full), the streams waiting for one, and the
 * SIDs whose stream moved to another channel.
 *
 * Owns: sst_stream_chan.sid_waiters (through the host's sidw_next links;
 * each waiter holds a reference), detach_cursor, and the
 * SF_IN_SID_WAITERS bit. Calls: stream_life.h (references), stream_ctl.h,
 * stream_chan_finish.h. Frees: nothing.
 */
#ifndef STREAM_CHAN_SIDS_H
#define STREAM_CHAN_SIDS_H

#include "stream_internal.h"

/* The channel new streams of p use: its newest live one, or NULL. */
struct sst_stream_chan *stream_peer_chan(struct sst_stream_peer *p);

/* The peer's SID sid on c, quiet, belongs to a stream that moved to another
 * channel: data still arriving for it in its quiet period is refused
 * (sst_sid_mark_moved(); nothing when sid is not quiet). */
void stream_chan_moved(struct sst_stream_chan *c, uint16_t sid);

/* Whether sid is one of c's moved SIDs in its quiet period. */
bool stream_chan_was_moved(const struct sst_stream_chan *c, uint16_t sid);

/* Detach one idle stream of ours on c other than keep (nothing queued or
 * in flight, attachment acknowledged), searching at most 256 USID slots.
 * Only for peers that know Detach. Returns whether one gave its SID up. */
bool stream_chan_detach_idle(struct sst_stream_chan *c, const struct sst_stream *keep);

/* Up to 8 streams waiting for a SID on c try again: they are woken for
 * the flush under way and drop the waiting reference. */
void stream_chan_sid_waiters_wake(struct sst_stream_chan *c, sst_time_t now);

/* Take a tx SID on c for s (s->tx_sid, its USID counter in *counter),
 * with room reserved in c's ring of codes for the code that will one day
 * give it up. Returns 0, or -ENOSPC (space full and no idle stream to
 * detach, or no room for the code) or another sst_sid_alloc() error. */
int stream_chan_sid_take(struct sst_stream_chan *c, struct sst_stream *s, uint64_t *counter);

/* stream_chan_sid_take(), and on failure s waits for a SID on c (once,
 * with a reference); on success a closing of c is called off. */
int stream_chan_sid_alloc(struct sst_stream_chan *c, struct sst_stream *s, uint64_t *counter);

#endif /* STREAM_CHAN_SIDS_H */
