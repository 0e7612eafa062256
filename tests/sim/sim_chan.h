/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A simulated host that runs one channel and an application sending on it,
 * for the channel-level scenarios (test_sim_channel.c, test_sim_stp_trace.c):
 * the host's packets and timers go to the channel, then the application's
 * pump runs, and the host sleeps until the channel's next expiry or the
 * time the application asked to be woken at (its pacing).
 */
#ifndef SIM_CHAN_H
#define SIM_CHAN_H

#include <stdio.h>

#include "sim.h"
#include "sst_channel.h"
#include "sst_test.h"

struct sim_chan_host {
	struct sst_channel *ch;
	sst_time_t wake; /* when the pump wants to run again; SST_TIME_NEVER: not */
	void (*pump)(void *app, sst_time_t now);
	void *app;
};

static inline void
sim_chan_receive(void *ctx, struct rte_mbuf *m, uint16_t port, sst_time_t now)
{
	struct sim_chan_host *h = ctx;

	(void)port;
	sst_channel_receive(h->ch, &m, 1, now);
	h->pump(h->app, now);
}

static inline sst_time_t
sim_chan_next_expiry(void *ctx)
{
	struct sim_chan_host *h = ctx;

	return sst_time_min(sst_channel_next_expiry(h->ch), h->wake);
}

static inline void
sim_chan_handle_expiry(void *ctx, sst_time_t now)
{
	struct sim_chan_host *h = ctx;

	sst_channel_handle_expiry(h->ch, now);
	h->pump(h->app, now);
}

/* The upper layer's event() of scenarios whose channels must neither fail
 * nor ask for a replacement: either is a test failure. */
static inline void
sim_chan_no_event(void *ctx, enum sst_channel_event ev, sst_time_t now)
{
	(void)ctx;
	(void)now;
	printf("\n  channel event %d", (int)ev);
	CU_FAIL("a channel failed or asked for a replacement");
}

/* The host ops; the host's context is a struct sim_chan_host. */
static const struct sim_host_ops sim_chan_host_ops = {
	.receive = sim_chan_receive,
	.next_expiry = sim_chan_next_expiry,
	.handle_expiry = sim_chan_handle_expiry,
};

#endif /* SIM_CHAN_H */
