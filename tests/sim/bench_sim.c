/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How fast the simulator runs: a source sends a 1000-byte packet every
 * microsecond (its timer) over a 10 Gbit/s, 100 us, 1 % loss link to an echo
 * host, for `seconds` of virtual time (argument, default 1). Prints simulated
 * events and packet events (sent + delivered + dropped) per wall-clock second
 * and per CPU second (the latter does not depend on what else the machine
 * runs). Measured, never asserted (docs/simulator.md has the figures).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <inttypes.h>

#include <rte_eal.h>

#include "sim.h"
#include "sst_test_eal.h"

struct source {
	struct rte_mempool *pool;
	struct sim_host *self;
	sst_time_t next;
	uint64_t sent, back;
};

static sst_time_t
source_next_expiry(void *ctx)
{
	return ((struct source *)ctx)->next;
}

static void
source_handle_expiry(void *ctx, sst_time_t now)
{
	struct source *s = ctx;
	struct rte_mbuf *m = rte_pktmbuf_alloc(s->pool);

	s->next = now + SST_NSEC_PER_USEC;
	if (m == NULL || rte_pktmbuf_append(m, 1000) == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	s->sent++;
	sim_host_tx(s->self, 0, m);
}

static void
source_receive(void *ctx, struct rte_mbuf *m, uint16_t port, sst_time_t now)
{
	(void)port;
	(void)now;
	((struct source *)ctx)->back++;
	rte_pktmbuf_free(m);
}

struct echo {
	struct sim_host *self;
};

static void
echo_receive(void *ctx, struct rte_mbuf *m, uint16_t port, sst_time_t now)
{
	(void)now;
	sim_host_tx(((struct echo *)ctx)->self, port, m);
}

static const struct sim_host_ops source_ops = {
	.receive = source_receive,
	.next_expiry = source_next_expiry,
	.handle_expiry = source_handle_expiry,
};

static const struct sim_host_ops echo_ops = {.receive = echo_receive};

int
main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	struct source src = {0};
	struct echo echo = {0};
	struct sst_simlink_params p;
	struct timespec t0, t1, c0, c1;
	struct sim_stats st;
	struct sim *sim;
	double wall, cpu;
	uint64_t pkt_events;
	int rc;

	if (sst_test_eal_init("bench_sim") < 0)
		return EXIT_FAILURE;
	src.pool = sst_test_pool("bench_sim", 8192, 2048);
	sim = sim_create(&(struct sim_config){.seed = 1});
	if (src.pool == NULL || sim == NULL)
		return EXIT_FAILURE;
	src.self = sim_host_add(sim, "source", &source_ops, &src);
	echo.self = sim_host_add(sim, "echo", &echo_ops, &echo);
	sst_simlink_params_default(&p);
	p.rate_bps = 10000000000;
	p.delay_ns = 100 * SST_NSEC_PER_USEC;
	p.loss = 0.01;
	if (sim_connect(sim, src.self, 0, echo.self, 0, &p, NULL) == NULL)
		return EXIT_FAILURE;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	rc = sim_run_until(sim, (sst_time_t)(seconds * (double)SST_NSEC_PER_SEC));
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc < 0)
		return EXIT_FAILURE;
	wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	cpu = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-9;
	sim_stats_get(sim, &st);
	pkt_events = st.packets_sent + st.packets_delivered + st.packets_dropped;
	printf("virtual %.3f s in %.3f s wall, %.3f s CPU (%.1fx real time)\n", seconds, wall, cpu,
		seconds / wall);
	printf("events: %" PRIu64 " (%.0f per wall-second, %.0f per CPU-second)\n", st.events,
		(double)st.events / wall, (double)st.events / cpu);
	printf("packet events (sent %" PRIu64 " + delivered %" PRIu64 " + dropped %" PRIu64
	       "): %.0f per wall-second, %.0f per CPU-second\n",
		st.packets_sent, st.packets_delivered, st.packets_dropped,
		(double)pkt_events / wall, (double)pkt_events / cpu);
	printf("echoes received: %" PRIu64 " of %" PRIu64 " sent\n", src.back, src.sent);
	sim_destroy(sim);
	rte_mempool_free(src.pool);
	rte_eal_cleanup();
	return EXIT_SUCCESS;
}
