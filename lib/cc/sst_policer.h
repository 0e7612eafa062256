/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The TCP-friendly policer of STP (Patel et al., SOSP 2003, section 4 and
 * Figure 3) for congestion controllers the host does not trust (the bpf
 * modules, docs/stp.md). It is fed only by the channel's own measurements,
 * never by the controller it polices: acks with their RTT samples, and
 * losses the channel detected (skipped sequence numbers keep a receiver
 * from acking what it never got). From them it keeps an allowed sending
 * rate:
 *
 *   INIT        4 packets per second, until the first RTT sample;
 *   SLOWSTART   at most twice the rate the receiver got over a round trip
 *               (so at most doubling per RTT), at least RFC 5348's initial
 *               window per RTT; until the first loss;
 *   STEADY      min(1.3 x the TCP throughput equation's rate (RFC 5348
 *               section 3.1, with its loss event rate, section 5), 2 x the
 *               receive rate), at least one packet per 64 s.
 *
 * The receive rate is RFC 5348 section 4.3's X_recv_set: the larger of the
 * last two round trips', never lowered by a data-limited one. A round trip
 * is the latest RTT sample, or srtt if that is shorter; acks at the instant
 * one closes count in it. In STEADY, without feedback the allowed rate
 * halves every max(4 RTT, 2 packets at the rate), as RFC 5348 section 4.4's
 * no-feedback timer does. The user caps the controller's window at
 * sst_policer_window() and reports what the controller asked for with
 * sst_policer_account(): if, over the last 8 round trips, the controller
 * asked on average for more than the policer allowed (each round trip
 * counting for at most twice the allowance, and application-limited round
 * trips not at all), it is in violation: a controller that ignores the
 * cap, like a greedy one. A request is measured against the allowance in
 * force when it was made, and a request no larger than the window the
 * controller was given plus the bytes the ack acknowledged (slow start's
 * growth) is always allowed: a compliant controller held at the cap grows
 * from the window it has, and the cap, not the verdict, bounds what it
 * sends.
 *
 * Sans-IO: time is an argument; no allocation; the state is a plain struct
 * the user keeps (in struct sst_cc's priv area for the bpf driver).
 */
#ifndef SST_POLICER_H
#define SST_POLICER_H

#include <stdbool.h>
#include <stdint.h>

#include "sst_time.h"

/** The policer's phases (see the file's description). */
enum sst_policer_state {
	SST_POLICER_INIT = 0,  /**< 4 packets per second until the first RTT sample */
	SST_POLICER_SLOWSTART, /**< at most doubling per RTT until the first loss */
	SST_POLICER_STEADY,    /**< the TCP throughput equation */
};

enum {
	SST_POLICER_INTERVALS = 8, /**< loss intervals averaged (RFC 5348 section 5.4) */
	SST_POLICER_EPOCHS = 8,	   /**< round trips of the compliance average */
};

/** The policer's state (treat as opaque). */
struct sst_policer {
	uint8_t state;	     /**< enum sst_policer_state */
	uint8_t nintervals;  /**< entries of intervals in use */
	uint8_t nepochs;     /**< entries of ratio in use */
	uint8_t ratio_next;  /**< next entry of ratio written */
	bool epoch_limited;  /**< an ack of this round trip was application- or data-limited */
	bool epoch_loss;     /**< a loss event began in this round trip */
	bool recv_limit_1x;  /**< the receive limit is max(recv_set), not twice it */
	bool pending;	     /**< a violation not yet reported by sst_policer_account() */
	bool last_limited;   /**< the last round trip closed was data-limited */
	uint32_t mss;	     /**< bytes of a full-sized packet */
	uint32_t rtt_last;   /**< the latest RTT sample, ns (at most UINT32_MAX) */
	uint32_t last_len;   /**< ns: the round trip that closed at epoch_start; 0 once past */
	uint32_t req_n;	     /**< windows summed in req_sum */
	uint32_t violations; /**< violations reported so far */
	uint8_t ratio[SST_POLICER_EPOCHS]; /**< asked / allowed per round trip, in 1/64 */
	uint64_t rate;			   /**< allowed bytes per second */
	sst_time_t srtt;		   /**< the channel's smoothed RTT, last reported */
	sst_time_t epoch_start;		   /**< start of the current round trip */
	uint64_t epoch_bytes;		   /**< acked in this round trip */
	uint64_t recv_set[2]; /**< RFC 5348's X_recv_set: receive rates (bytes/s), 2 round trips */
	sst_time_t last_feedback;		   /**< time of the last ack */
	sst_time_t loss_event_start;		   /**< first loss of the current loss event */
	uint64_t open_interval;			   /**< packets acked since the last loss event */
	uint64_t req_sum;			   /**< window asked for this round trip, summed */
	uint64_t allow_sum;			   /**< the allowance of each request, summed */
	uint32_t intervals[SST_POLICER_INTERVALS]; /**< [0] most recent, packets */
};

/**
 * Start policing (state INIT).
 * @param p
 *   The state.
 * @param mss
 *   Bytes of a full-sized packet, not 0.
 * @param now
 *   Current time.
 */
void sst_policer_init(struct sst_policer *p, uint32_t mss, sst_time_t now);

/**
 * Feedback: packets were acknowledged.
 * @param p
 *   The state.
 * @param now
 *   Current time.
 * @param acked_bytes
 *   Bytes newly acked.
 * @param acked_packets
 *   Packets newly acked.
 * @param rtt_sample
 *   RTT of the largest acked packet, 0 when none.
 * @param srtt
 *   The channel's smoothed RTT, 0 before the first sample.
 * @param app_limited
 *   The sender was application-limited (its requests are not judged).
 */
void sst_policer_on_ack(struct sst_policer *p, sst_time_t now, uint64_t acked_bytes,
	uint64_t acked_packets, sst_time_t rtt_sample, sst_time_t srtt, bool app_limited);

/**
 * A packet was declared lost by the channel. Losses within one round trip
 * of the first of a loss event belong to it (RFC 5348 section 5.2).
 * @param p
 *   The state.
 * @param now
 *   Current time.
 */
void sst_policer_on_loss(struct sst_policer *p, sst_time_t now);

/**
 * Record the window the policed controller asked for (before any cap),
 * after the event's sst_policer_on_ack() or sst_policer_on_loss().
 * @param p
 *   The state.
 * @param given
 *   Bytes: the (capped) window the controller had before the event.
 * @param asked
 *   Bytes: the window it asked for.
 * @param acked
 *   Bytes the event newly acknowledged (0 for events other than acks).
 *   The request is allowed max(sst_policer_window(), given + acked).
 * @return
 *   true once, when the average over the last SST_POLICER_EPOCHS round
 *   trips exceeds what the policer allowed (then p->violations grows).
 */
bool sst_policer_account(struct sst_policer *p, uint64_t given, uint64_t asked, uint64_t acked);

/** The allowed rate.
 * @param p The state.
 * @return Bytes per second. */
static inline uint64_t
sst_policer_rate(const struct sst_policer *p)
{
	return p->rate;
}

/**
 * The allowed window: the allowed rate over one smoothed RTT (one second
 * before the first sample), at least one packet.
 * @param p The state.
 * @return Bytes.
 */
uint64_t sst_policer_window(const struct sst_policer *p);

/**
 * The loss event rate p of RFC 5348 section 5.4, in millionths (0: no loss
 * event yet).
 * @param p The state.
 * @return The rate, 1..1000000, or 0 before the first loss event.
 */
uint32_t sst_policer_loss_rate_ppm(const struct sst_policer *p);

/**
 * The TCP throughput equation of RFC 5348 section 3.1 (b = 1,
 * t_RTO = 4 R): bytes per second for packets of @p mss bytes, round-trip
 * time @p rtt (ns, not 0) and loss event rate @p loss_ppm (millionths, not 0).
 * @param mss Bytes of a packet.
 * @param rtt Round-trip time, ns, not 0.
 * @param loss_ppm Loss event rate, millionths, not 0.
 * @return Bytes per second.
 */
uint64_t sst_policer_tcp_rate(uint32_t mss, sst_time_t rtt, uint32_t loss_ppm);

#endif /* SST_POLICER_H */
