/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The link models the engine tests run over: a rate, a delay, a queue that
 * holds bursts, and the impairments each scenario turns on.
 */
#ifndef SST_TEST_SIMLINK_H
#define SST_TEST_SIMLINK_H

#include "sst_simlink.h"

struct sst_test_impairments {
	double loss, reorder, duplicate; /**< per packet, in [0, 1] */
};

static inline void
sst_test_link_model(struct sst_simlink_params *lp, uint64_t rate_bps, sst_time_t delay_ns,
	uint32_t queue_pkts, const struct sst_test_impairments *imp, struct rte_mempool *pool)
{
	sst_simlink_params_default(lp);
	lp->rate_bps = rate_bps;
	lp->delay_ns = delay_ns;
	lp->queue_pkts = queue_pkts;
	lp->capacity = 4096;
	lp->pool = pool;
	if (imp != NULL) {
		lp->loss = imp->loss;
		lp->reorder = imp->reorder;
		/* Reordered packets arrive a millisecond late. */
		lp->reorder_delay_ns = SST_NSEC_PER_MSEC;
		lp->duplicate = imp->duplicate;
	}
}

#endif /* SST_TEST_SIMLINK_H */
