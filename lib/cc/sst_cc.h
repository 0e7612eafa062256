/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Congestion control as the channel layer uses it: pick a controller by
 * name (sst_cc_find()), attach it to the channel's struct sst_cc
 * (sst_cc_init()), report every event through the dispatchers below, and
 * read cc->cwnd before sending and sst_cc_pacing_rate() to feed the
 * channel's pacer (sst_pacer.h). The controllers themselves implement
 * sst_cc_driver.h; docs/congestion-control.md describes both sides.
 */
#ifndef SST_CC_H
#define SST_CC_H

#include <stdbool.h>
#include <stdint.h>

#include "sst_cc_driver.h"
#include "sst_time.h"

/**
 * Whether the controller is in slow start (cwnd below ssthresh).
 *
 * @param cc
 *   An initialised congestion state.
 * @return
 *   true in slow start.
 */
static inline bool
sst_cc_in_slow_start(const struct sst_cc *cc)
{
	return cc->cwnd < cc->ssthresh;
}

/**
 * The rate the channel's pacer should send at: the controller's own
 * cc->pacing_rate when it sets one, otherwise a rate derived from the
 * window as Linux TCP and RFC 9002 section 7.7 do, so that a window's
 * worth of packets is spread over less than one round trip:
 * 2 * cwnd / srtt in slow start (the window doubles each round trip) and
 * 1.25 * cwnd / srtt otherwise (Linux uses 1.2, RFC 9002 suggests 1.25).
 *
 * @param cc
 *   An initialised congestion state.
 * @param srtt
 *   Smoothed round-trip time in nanoseconds; 0 before the first sample.
 * @return
 *   Bytes per second, or 0 (do not pace) while no RTT is known. Never 0
 *   otherwise; saturates at UINT64_MAX.
 */
uint64_t sst_cc_pacing_rate(const struct sst_cc *cc, sst_time_t srtt);

/**
 * Report a sent packet to the controller.
 *
 * @param cc
 *   An initialised congestion state.
 * @param ev
 *   The packet; see struct sst_cc_sent_event.
 */
static inline void
sst_cc_on_sent(struct sst_cc *cc, const struct sst_cc_sent_event *ev)
{
	cc->ops->on_sent(cc, ev);
}

/**
 * Report newly acknowledged packets to the controller.
 *
 * @param cc
 *   An initialised congestion state.
 * @param ev
 *   The acknowledgment; see struct sst_cc_ack_event.
 */
static inline void
sst_cc_on_ack(struct sst_cc *cc, const struct sst_cc_ack_event *ev)
{
	cc->ops->on_ack(cc, ev);
}

/**
 * Report a packet declared lost to the controller.
 *
 * @param cc
 *   An initialised congestion state.
 * @param ev
 *   The lost packet; see struct sst_cc_loss_event.
 */
static inline void
sst_cc_on_loss(struct sst_cc *cc, const struct sst_cc_loss_event *ev)
{
	cc->ops->on_loss(cc, ev);
}

/**
 * Report an expiry of the retransmission timer to the controller.
 *
 * @param cc
 *   An initialised congestion state.
 * @param ev
 *   The expiry; see struct sst_cc_rto_event.
 */
static inline void
sst_cc_on_rto(struct sst_cc *cc, const struct sst_cc_rto_event *ev)
{
	cc->ops->on_rto(cc, ev);
}

/**
 * Report that sending resumes after an idle period (struct
 * sst_cc_idle_event) to the controller, if it handles the event.
 *
 * @param cc
 *   An initialised congestion state.
 * @param ev
 *   The idle period; see struct sst_cc_idle_event.
 */
static inline void
sst_cc_on_idle(struct sst_cc *cc, const struct sst_cc_idle_event *ev)
{
	if (cc->ops->on_idle != NULL)
		cc->ops->on_idle(cc, ev);
}

#endif /* SST_CC_H */
