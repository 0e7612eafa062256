/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * simpair: two datagram links (sst_link.h) joined in one process by a pair
 * of simlink models (sst_simlink.h), one per direction, in real time: the
 * simulator's rate, delay, jitter, loss, reordering, duplication and
 * corruption between two engine workers, with no network at all.
 *
 * @code
 *   struct sst_simpair *pair = sst_simpair_create(&ab, &ba, &ep_a, &ep_b, NULL, NULL);
 *   struct sst_simpair_conf ca = {.pair = pair, .side = 0};
 *   conf.driver = "simpair"; conf.driver_conf = &ca;   // then sst_link_open(&conf)
 * @endcode
 *
 * Each side's link receives what the other sends, with the other side's
 * endpoint as the source. The pair must outlive both links.
 */
#ifndef SST_SIMPAIR_H
#define SST_SIMPAIR_H

#include "sst_link.h"
#include "sst_simlink.h"
#include "sst_time.h"

struct sst_simpair;

/** The link driver's configuration (sst_link_conf.driver_conf). */
struct sst_simpair_conf {
	struct sst_simpair *pair; /**< from sst_simpair_create() */
	int side;		  /**< 0 or 1 */
};

/**
 * Create a pair: ab carries side 0's packets to side 1, ba the reverse;
 * the endpoints are the sides' addresses. @p clock gives the time (NULL:
 * CLOCK_MONOTONIC), with @p clock_ctx.
 * @param ab
 *   The model of side 0 to side 1.
 * @param ba
 *   The model of side 1 to side 0.
 * @param ep0
 *   Side 0's endpoint.
 * @param ep1
 *   Side 1's endpoint.
 * @param clock
 *   The clock, in nanoseconds; NULL: CLOCK_MONOTONIC.
 * @param clock_ctx
 *   Passed to clock.
 * @return NULL with rte_errno set.
 */
struct sst_simpair *sst_simpair_create(const struct sst_simlink_params *ab,
	const struct sst_simlink_params *ba, const struct sst_net_endpoint *ep0,
	const struct sst_net_endpoint *ep1, sst_time_t (*clock)(void *ctx), void *clock_ctx);

/**
 * Destroy a pair (after both links closed); packets in flight are freed.
 *
 * @param pair
 *   The pair, or NULL.
 */
void sst_simpair_destroy(struct sst_simpair *pair);

/**
 * now on): a NAT rebinding or a new interface, for mobility tests. 
 *
 * @param pair
 *   The pair.
 * @param side
 *   0 or 1.
 * @param ep
 *   Its new endpoint.
 */
void sst_simpair_set_endpoint(
	struct sst_simpair *pair, int side, const struct sst_net_endpoint *ep);

/**
 * The model of one direction (0: side 0 to side 1), for statistics.
 *
 * @param pair
 *   The pair.
 * @param dir
 *   0: side 0 to side 1; 1: the reverse.
 * @return
 *   The direction's simlink (owned by the pair).
 */
struct sst_simlink *sst_simpair_link(struct sst_simpair *pair, int dir);

#endif /* SST_SIMPAIR_H */
