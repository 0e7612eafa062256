/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A token-bucket pacer a channel owns, fed with its controller's rate. The
 * engine asks it when the channel may send next, so bursts leave at the
 * congestion controller's rate rather than at line rate.
 *
 * Arithmetic is exact integer arithmetic: the bucket holds
 * tokens + frac / 10^9 bytes, so no fraction of a byte is lost between
 * refills however often they happen, and nothing overflows for any rate a
 * uint64_t holds and any gap between calls (a refill never computes more
 * than the bytes missing from a full bucket). A packet larger than what the
 * bucket holds may leave once the bucket holds min(packet, burst); the
 * excess becomes a debt the bucket repays before it fills again (the pacer
 * moves its refill time into the future), so the long-run rate is exact
 * even for packets larger than the bucket.
 *
 * The bucket has two depths. While nothing the pacer let go is in flight
 * (a fresh channel, or one whose flight drained) it fills to its burst, so
 * a response after a pause leaves at once. While packets are in flight it
 * fills only to a quantum (sst_pacer_set_quantum(): by default the burst):
 * an ack-clocked sender sends below the pacing rate, so a bucket as deep as
 * the burst would always be full and let every ack that frees more than a
 * quantum release it back to back. Linux's fq does the same with its
 * initial quantum of 10 packets and its quantum of 2. What the rate earns
 * while the pacer itself holds a packet back fills the bucket to its burst
 * again: a sender woken late for that packet catches up.
 *
 * Like every protocol-layer object it reads no clock: "now" is an argument,
 * and a "now" earlier than one seen before is treated as no time passing.
 */
#ifndef SST_PACER_H
#define SST_PACER_H

#include <stdbool.h>
#include <stdint.h>

#include "sst_time.h"

/** Largest bucket depth; larger values given to sst_pacer_init() are clamped. */
#define SST_PACER_BURST_MAX (UINT64_C(1) << 32)

/** Most the rate's slice adds to a bucket's depth (sst_pacer_set_quantum()):
 * 64 KiB, Linux's largest TSO burst. */
#define SST_PACER_SLICE_MAX (UINT64_C(64) << 10)

/** A token bucket: the pacer's state, in caller memory (sst_pacer_init()). */
struct sst_pacer {
	uint64_t rate;	      /**< bytes per second; 0 = unpaced */
	uint64_t burst;	      /**< least depth while nothing is in flight (or held) */
	uint64_t quantum_min; /**< smallest depth while packets are in flight */
	uint64_t quantum;     /**< depth while packets are in flight */
	uint64_t tokens;      /**< whole bytes that may leave at time last */
	uint64_t frac;	      /**< and this many 10^-9 bytes (< 10^9) */
	sst_time_t last;      /**< when tokens were last refilled (later than now while in debt) */
	bool drained;	      /**< nothing the pacer let go is in flight: fill to burst */
	bool held;	      /**< the pacer held the next packet back: fill to burst */
	bool sliced; /**< sst_pacer_set_quantum() was called: the quantum follows the rate */
};

/**
 * Start an unpaced pacer with a full bucket.
 * @param burst  bucket depth in bytes (e.g. a few MSS); clamped to
 *               SST_PACER_BURST_MAX. 0 is allowed and paces every packet.
 *
 * @param p
 *   The pacer (caller memory).
 * @param now
 *   The current time.
 */
void sst_pacer_init(struct sst_pacer *p, uint64_t burst, sst_time_t now);

/**
 * Set the depth of the bucket while packets are in flight: @p min_bytes
 * (two packets, say), or what the rate earns in 250 us if more, up to
 * SST_PACER_SLICE_MAX (so that a sender whose poll loop takes tens of
 * microseconds is not held below the rate at high speeds, and hands over
 * whole bursts, as Linux sizes its TSO bursts to a millisecond). The depth
 * while nothing is in flight is the larger of this and the burst. Until
 * this is called the quantum is the burst, whatever the rate: one depth.
 *
 * @param p
 *   The pacer.
 * @param min_bytes
 *   The smallest depth while packets are in flight.
 */
void sst_pacer_set_quantum(struct sst_pacer *p, uint64_t min_bytes);

/**
 * Nothing the pacer let go is in flight any more: from @p now the bucket
 * fills to its burst again, until the next packet leaves.
 *
 * @param p
 *   The pacer.
 * @param now
 *   The current time.
 */
void sst_pacer_on_drained(struct sst_pacer *p, sst_time_t now);

/**
 * Change the rate (bytes per second; 0 disables pacing). Tokens earned at
 * the old rate up to @p now are kept and an outstanding debt is rescaled to
 * the new rate; enabling a disabled pacer starts it with a full bucket.
 *
 * @param p
 *   The pacer.
 * @param rate
 *   Bytes per second; 0 disables pacing.
 * @param now
 *   The current time.
 */
void sst_pacer_set_rate(struct sst_pacer *p, uint64_t rate, sst_time_t now);

/**
 * The earliest time a packet of @p bytes may leave: @p now when the bucket
 * holds enough, otherwise the time it will. A zero-rate pacer is disabled
 * and always answers @p now. Never returns SST_TIME_NEVER unless the
 * answer really is that far away (saturating time arithmetic).
 *
 * @param p
 *   The pacer.
 * @param bytes
 *   The packet's size.
 * @param now
 *   The current time.
 * @return
 *   When the packet may leave (now or later).
 */
sst_time_t sst_pacer_next_send(struct sst_pacer *p, uint32_t bytes, sst_time_t now);

/**
 * How many packets of @p bytes may leave back to back, once
 * sst_pacer_next_send() said they may start now: the bucket's content in
 * whole packets, at least one (a packet larger than the bucket).
 *
 * @param p
 *   The pacer.
 * @param bytes
 *   The packets' size (not 0).
 * @return
 *   The count; UINT32_MAX while the pacer is disabled.
 */
uint32_t sst_pacer_packets_ready(const struct sst_pacer *p, uint32_t bytes);

/**
 * Account for a packet that left (nothing happens while the pacer is
 * disabled). From then on the bucket fills to the quantum only, until
 * sst_pacer_on_drained().
 *
 * @param p
 *   The pacer.
 * @param bytes
 *   The packet's size.
 * @param now
 *   When it left.
 */
void sst_pacer_on_sent(struct sst_pacer *p, uint32_t bytes, sst_time_t now);

#endif /* SST_PACER_H */
