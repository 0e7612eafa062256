/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * When and what a channel acknowledges (paper 4.2.4; prototype notes 2.2).
 *
 * What: every packet we send carries an ack word (AckSeq, AckCt) saying
 * packets AckSeq-AckCt .. AckSeq were received, with AckCt as large as the
 * contiguous run allows (at most 15). Normally AckSeq is the highest packet
 * received; a packet that arrived out of order is acknowledged on its own
 * first, so the sender learns of it before it declares it lost. The
 * word that ends the run below a gap (a loss, or a number the sender
 * skipped) is sent twice, its second copy in its own packet just before
 * the gap's word: no later word can cover that run, and the gap's word
 * makes the sender count the run's last packets towards their loss, so
 * losing the only copy would make it declare received packets lost and
 * halve its window for nothing.
 *
 * When (the prototype's policy, the default): an ack is owed after 2
 * ack-eliciting packets or 10 ms after the first one, at once after a gap
 * or a reordered packet, and only after every 4th ack-only packet, so that
 * two idle peers do not ack each other's acks forever. Any packet we send
 * pays what is owed.
 *
 * Ours adds one rule: an ack-only packet that ends a quiet period (nothing
 * received for SST_ACK_QUIET or two round trips, whichever is longer) is
 * acknowledged at once. A keepalive probe is such a packet, so one packet
 * gets its answer, and two probes that cross each get theirs. The answer
 * ends the prober's quiet period too and is acknowledged in turn; that
 * acknowledgment comes a round trip after the answerer last heard, inside
 * its period, so the exchange stops there (three packets). Posing as the
 * prototype, the rule is off.
 */
#ifndef CHANNEL_ACK_H
#define CHANNEL_ACK_H

#include <stdbool.h>
#include <stdint.h>

#include "channel_replay.h"
#include "sst_time.h"

/** Words that can be owed at once, each in its own packet: a late
 * packet's, the run below a gap again, and the highest. */
enum { SST_ACK_WORDS_AT_ONCE = 3 };

/** Quiet long enough that an ack-only packet is answered at once. */
#define SST_ACK_QUIET (250 * SST_NSEC_PER_MSEC)

struct sst_ack_policy {
	sst_time_t max_delay;	      /**< delayed-ack timer (10 ms) */
	uint32_t eliciting_threshold; /**< ack after this many data packets (2) */
	uint32_t ack_only_threshold;  /**< ack after this many ack-only packets (4) */
	bool quiet_ack;		      /**< the quiet rule (ours: true; the prototype's: false) */
};

struct sst_ackgen {
	struct sst_ack_policy policy;
	uint32_t eliciting;  /**< ack-eliciting packets not yet acknowledged */
	uint32_t ack_only;   /**< ack-only packets not yet acknowledged */
	sst_time_t deadline; /**< when the delayed ack is due; SST_TIME_NEVER if none */
	uint64_t reordered;  /**< a packet to acknowledge on its own, 0 if none */
	uint64_t repeat;     /**< the top of the run below a gap, owed again; 0: none */
	uint64_t taken;	     /**< words taken so far */
	/** Posing as the prototype (sst_ackgen_on_receive_prototype()): the
	 * 16-bit number of the last packet past its record, owed alone. */
	uint16_t proto_late;
	bool proto_late_due;
};

/** The prototype's policy: 10 ms, 2 packets, every 4th ack-only packet. */
void sst_ack_default_policy(struct sst_ack_policy *p);

/** @return 0 or -EINVAL (zero thresholds). */
int sst_ackgen_init(struct sst_ackgen *a, const struct sst_ack_policy *p);

/**
 * Account for an authenticated packet, before it updates the replay window.
 *
 * @param highest
 *   The highest number received before this packet.
 * @param quiet
 *   It ends a quiet period (the channel's judgment: SST_ACK_QUIET or two
 *   round trips without a packet received).
 */
void sst_ackgen_on_receive(struct sst_ackgen *a, uint64_t seq, uint64_t highest, bool ack_eliciting,
	bool quiet, sst_time_t now);

/** Is an ack owed by @p now (or immediately)? */
static inline bool
sst_ackgen_due(const struct sst_ackgen *a, sst_time_t now)
{
	return a->deadline <= now;
}

/** True when anything is waiting to be acknowledged at all. */
static inline bool
sst_ackgen_pending(const struct sst_ackgen *a)
{
	return a->eliciting != 0 || a->ack_only != 0 || a->reordered != 0 || a->repeat != 0;
}

/** Packets received since the last ack word was taken. */
static inline uint32_t
sst_ackgen_unacked(const struct sst_ackgen *a)
{
	return a->eliciting + a->ack_only;
}

/**
 * The ack word for the next packet we send, which pays what is owed.
 *
 * @param w
 *   The receive window (after the packets received so far updated it).
 */
void sst_ackgen_take(
	struct sst_ackgen *a, const struct sst_replay *w, uint64_t *ack_seq, uint8_t *ack_count);

/**
 * sst_ackgen_on_receive() as the 2007 prototype records packets, to pose as
 * it in interop tests (sst_channel_params.prototype_acks): its
 * Flow::acknowledge() takes the number as a quint16 (prototype notes 2.15,
 * wire-format.md 9.4). Up to SST_CHANNEL_PROTOTYPE_SEQ_MAX nothing differs; every
 * later packet is recorded as its number modulo 65536, which is below the
 * highest, so it counts as late: acknowledged at once, on its own, with
 * AckCt 0 (chk-07: S's Ack packets carry 0/0, 1/0, 2/0, ...).
 */
void sst_ackgen_on_receive_prototype(struct sst_ackgen *a, uint64_t seq, uint64_t highest,
	bool ack_eliciting, bool quiet, sst_time_t now);

/**
 * sst_ackgen_take() as the 2007 prototype words its acks: the late packet
 * of sst_ackgen_on_receive_prototype() first (its 16-bit number, AckCt 0),
 * otherwise the highest it recorded, which stays at SST_CHANNEL_PROTOTYPE_SEQ_MAX
 * with AckCt 15 once the channel went past it (chk-07: S's Data packets
 * carry 65535/15). The sender never sees a later packet acknowledged.
 */
void sst_ackgen_take_prototype(
	struct sst_ackgen *a, const struct sst_replay *w, uint64_t *ack_seq, uint8_t *ack_count);

#endif /* CHANNEL_ACK_H */
