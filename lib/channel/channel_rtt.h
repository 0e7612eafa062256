/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Round-trip time estimation and the retransmission timeout (RFC 6298).
 * SST never reuses a sequence number, so every ack of a packet is an
 * unambiguous sample (no Karn rule needed); the channel takes one sample per
 * ack word, from the newest packet it newly acknowledges.
 */
#ifndef CHANNEL_RTT_H
#define CHANNEL_RTT_H

#include <stdbool.h>
#include <stdint.h>

#include "sst_time.h"

struct sst_rtt_params {
	sst_time_t initial_rto; /**< before the first sample (RFC 6298: 1 s) */
	sst_time_t min_rto;	/**< floor of the computed timeout */
	sst_time_t max_rto;	/**< ceiling, also after backoff */
	sst_time_t granularity; /**< G of RFC 6298: the timer's resolution */
};

struct sst_rtt {
	struct sst_rtt_params p;
	sst_time_t srtt;   /**< smoothed RTT; 0 before the first sample */
	sst_time_t rttvar; /**< RTT variation */
	sst_time_t latest; /**< most recent sample */
	sst_time_t min;	   /**< smallest sample seen */
	sst_time_t rto;	   /**< current timeout, backoff included */
	uint32_t backoff;  /**< consecutive expiries since the last sample */
};

/** Defaults: 1 s initial, 200 ms floor, 60 s ceiling, 1 ms granularity. */
void sst_rtt_default_params(struct sst_rtt_params *p);

/** Start an estimator. @return 0 or -EINVAL (min > max, zero values). */
int sst_rtt_init(struct sst_rtt *r, const struct sst_rtt_params *p);

/** Add a sample; clears the backoff (RFC 6298 5.7's fresh estimate). */
void sst_rtt_sample(struct sst_rtt *r, sst_time_t sample);

/** The timer expired: double the timeout, up to max_rto (RFC 6298 5.5). */
void sst_rtt_backoff(struct sst_rtt *r);

/** A smoothed RTT usable before the first sample (the initial RTO otherwise). */
static inline sst_time_t
sst_rtt_smoothed(const struct sst_rtt *r)
{
	return r->srtt != 0 ? r->srtt : r->p.initial_rto;
}

#endif /* CHANNEL_RTT_H */
