/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The queues of work a channel serves at its next flush (stream_ctl.c):
 * its scheduler of streams with segments ready, its control queue of
 * streams owing an Attach or a window update, and its ring of Resets and
 * Detaches owed.
 *
 * Owns: sst_stream_chan.sched membership, .ctl (through the host's ctl_next
 * links), .codes and the SF_IN_CTL_QUEUE, SF_ATTACH_DUE and SF_ATTACH_INIT
 * bits. A stream in a control queue holds a reference (stream_ref()),
 * dropped by whoever takes it out (stream_tx.c). Calls: nothing of the
 * stream layer but the inline helpers of stream_internal.h; the only
 * upcall is ops.channel_pending (stream_chan_wants_flush()). Frees: the
 * old ring of codes when it grows. Never sends: flushes do (stream_tx.c).
 */
#ifndef STREAM_CTL_H
#define STREAM_CTL_H

#include "stream_internal.h"

/* stream_tx_wake() past its first test. */
void stream_tx_wake_slow(struct sst_stream *s);

/* s has something to send (queued data, a Close): put it in its tx
 * channel's scheduler and ask for a flush. Nothing for a stream without
 * send buffers, channel or pending data, or one that was reset. Inline for
 * its usual answer in a transfer, "already done": every acknowledged
 * segment wakes its stream, and all but the first of a pass find it in
 * the scheduler with the flush asked for (35 instructions a packet as a
 * call). */
static inline void
stream_tx_wake(struct sst_stream *s)
{
	if (s->tx != NULL && s->tx_chan != NULL && s->tx->sched.sched == &s->tx_chan->sched &&
		s->tx_chan->flush_wanted)
		return;
	stream_tx_wake_slow(s);
}

/* s is to (re)attach by Attach on its tx channel: with the Init flag
 * unless the peer already knows it. Queues it for the control flush. */
void stream_attach_due(struct sst_stream *s);

/* s owes a control packet (SF_ATTACH_DUE on its tx channel, else a window
 * update on its rx channel): join that channel's control queue, once, with
 * a reference. Nothing for the root or a dead or missing channel. */
void stream_ctl_queue(struct sst_stream *s);

/* s was just taken off c's control queue: join the queue of its other
 * channel if something is still due there. The caller still holds the
 * queue's reference and drops it afterwards. */
void stream_ctl_requeue(struct sst_stream *s, const struct sst_stream_chan *c);

/* s is about to change channels while in a control queue: the channels
 * that may hold it hand it over at their next flush (ctl_sweep()). */
void stream_ctl_moving(struct sst_stream *s);

/* Grow c's ring of codes owed to hold at least n. Returns 0, or -ENOMEM
 * past code_max or without memory (the ring is then unchanged). */
int stream_chan_codes_reserve(struct sst_stream_chan *c, uint32_t n);

/* Owe code (a Reset or Detach: SID | STREAM_CODE_* bits, 0 for FINISH) on
 * c and ask for a flush. A code holding a SID always fits (its room was
 * reserved when the SID was taken); a stateless one is dropped past
 * STREAM_CODES_STATELESS owed or when the ring cannot grow. */
void stream_chan_queue_code(struct sst_stream_chan *c, uint32_t code);

/* Give up s's tx SID with a Detach (kind STREAM_CODE_DETACH) or a Reset
 * (kind 0): s is no longer attached; the SID stays parked on the channel's
 * marker stream until the code is acknowledged (stream_ack.c). Nothing if
 * s holds no tx SID. */
void stream_give_up_tx_sid(struct sst_stream *s, uint32_t kind);

#endif /* STREAM_CTL_H */
