/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One stream on a long fat pipe (issue 19): after slow start a single
 * stream must carry at least 90% of the link's rate on 1 Gbit/s x 100 ms
 * and on 10 Gbit/s x 10 ms, both about 12.5 MB in flight, with every cap
 * on data in flight at its default (stream host buffers and receive
 * window, the channel's tx log and replay window, the congestion window).
 * The bottleneck queue holds a bandwidth-delay product, so a NewReno
 * halving still fills the pipe. The bytes are counted, not checked
 * (test_sim_stream checks bytes); SST_SIM_SEED=<n> replays another seed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "sst_test.h"
#include "stream_world.h"

/* A stream's send buffer must hold a bandwidth-delay product (12.5 MB at
 * 1 Gbit/s x 100 ms), as TCP's must: set here, since the library's default
 * (1 MiB) keeps a timed run from leaving tens of megabytes queued on a
 * slow link (docs/stream.md, "Buffers"). */
#define LFN_SEND_BUFFER (32u << 20)

static uint64_t seed;

enum { LFN_PACKET = 1232 }; /* the channel's default MTU */

/* Virtual time measured after slow start, for the 1 Gbit/s link (the
 * 10 Gbit/s one measures a tenth of it): 1 s, or SST_LFN_WINDOW_MS (the
 * sanitizer build measures 100 ms: tests/sim/meson.build). */
static sst_time_t
measure_window(unsigned int div)
{
	const char *env = getenv("SST_LFN_WINDOW_MS");

	if (env == NULL || atoi(env) <= 0)
		return SST_NSEC_PER_SEC / div;
	return (sst_time_t)atoi(env) * SST_NSEC_PER_MSEC / div;
}

/*
 * Run one bulk stream from a to b over @p rate_bps with @p rtt; measure
 * the bytes b reads in @p window once slow start has reached the link
 * (at most @p warmup in). @return the rate in bit/s.
 */
static double
run_lfn(const char *name, uint64_t rate_bps, sst_time_t rtt, sst_time_t warmup, sst_time_t window)
{
	struct world_params wp;
	struct world *w;
	struct flow *f;
	uint64_t bdp_pkts = rate_bps / 8 * (rtt / SST_NSEC_PER_MSEC) / 1000 / LFN_PACKET;
	uint64_t got0;
	sst_time_t t;
	double rate;
	struct sst_simlink_stats ls;

	world_params_link(&wp, seed, rate_bps, rtt / 2, (uint32_t)bdp_pkts);
	wp.host.send_buffer = LFN_SEND_BUFFER;
	wp.link.capacity = (uint32_t)(3 * bdp_pkts + 1024);
	w = world_create(&wp);
	w->unchecked = true;
	f = world_flow_start(w, UINT64_C(1) << 40, 0, 0);
	/* Slow start: round trips until one delivers 90% of the link (or
	 * the warmup runs out); the measurement starts there. */
	for (t = rtt; t <= warmup; t += rtt) {
		uint64_t before = f->got[1];
		double r;

		world_run_until(w, t);
		r = (double)(f->got[1] - before) * 8 / ((double)rtt / 1e9);
		if (getenv("SST_LFN_TRACE") != NULL)
			printf("\n  %.3f s: %.1f Mbit/s", (double)t / 1e9, r / 1e6);
		if (r >= 0.9 * (double)rate_bps)
			break;
	}
	t = sim_now(w->sim);
	got0 = f->got[1];
	world_run_until(w, t + window);
	rate = (double)(f->got[1] - got0) * 8 / ((double)window / 1e9);
	sst_simlink_stats_get(sim_link_dir(w->links[0], 0), &ls);
	printf("\n  %s: %.1f Mbit/s of %.0f (%.1f%%) over %.3f s after %.3f s; %" PRIu64
	       " segments resent, %" PRIu64 " queue drops (seed %" PRIu64 ")\n",
		name, rate / 1e6, (double)rate_bps / 1e6, 100 * rate / (double)rate_bps,
		(double)window / 1e9, (double)t / 1e9,
		sst_stream_host_stats(w->ep[0].sh)->segments_retx, ls.dropped_queue, wp.seed);
	world_destroy(w);
	return rate;
}

static void
test_one_stream_1g_100ms(void)
{
	double rate = run_lfn("1 Gbit/s x 100 ms", UINT64_C(1000000000), 100 * SST_NSEC_PER_MSEC,
		3 * SST_NSEC_PER_SEC, measure_window(1));

	CU_ASSERT(rate >= 0.9 * 1e9);
}

static void
test_one_stream_10g_10ms(void)
{
	double rate = run_lfn("10 Gbit/s x 10 ms", UINT64_C(10000000000), 10 * SST_NSEC_PER_MSEC,
		SST_NSEC_PER_SEC / 2, measure_window(10));

	CU_ASSERT(rate >= 0.9 * 1e10);
}

/*
 * The large default buffers under loss, every byte checked: 10 MB on one
 * stream over 200 Mbit/s x 40 ms losing 1%, so that send queues and
 * reassembly buffers grow, hold thousands of mbufs and resend out of
 * the middle of them.
 */
static void
test_lossy_checked(void)
{
	struct world_params wp;
	struct world *w;

	world_params_link(&wp, seed, 200 * 1000 * 1000, 20 * SST_NSEC_PER_MSEC, 1000);
	wp.host.send_buffer = LFN_SEND_BUFFER;
	wp.link.loss = 0.01;
	w = world_create(&wp);
	world_flow_start(w, 10 << 20, 1000, 0);
	CU_ASSERT_EQUAL(world_run(w, 120 * SST_NSEC_PER_SEC), 0);
	printf("\n  10 MB at 1%% loss: done at %.2f s, %" PRIu64 " segments resent\n",
		(double)sim_now(w->sim) / 1e9, sst_stream_host_stats(w->ep[0].sh)->segments_retx);
	world_check_done(w);
	world_destroy(w);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_lossy_checked),
	SST_TEST(test_one_stream_1g_100ms),
	SST_TEST(test_one_stream_10g_10ms),
	SST_TEST_END,
};

int
main(void)
{
	return world_test_main("sim_lfn", cases, &seed);
}
