/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stream-layer benchmarks in the simulator (docs/stream.md, "Performance"),
 * both hosts in this process on one core, over the two-host world of the
 * stream scenarios (tests/sim/stream_world.[ch]):
 *
 *   idle     N streams opened, one 32-byte message each way, left open: the
 *            memory each idle stream holds (control block, pool header,
 *            its share of the USID table and of the SID spaces);
 *   rr       streams opened, used for one 32-byte request and response and
 *            closed, 8 at a time, per wall-clock second;
 *   goodput  N concurrent streams each sending an equal share of 64 MB over
 *            a 1 Gbit/s, 1 ms link: goodput in virtual time and the wall
 *            clock it took.
 *
 * Run by hand: nice build/perf/stream_bench [--only idle|rr|goodput]
 * [--streams N] (goodput and idle; default 1, 1000 and 16000).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sst_stream.h"
#include "sst_test.h"
#include "stream_internal.h"
#include "stream_world.h"

static const char *only;
static uint64_t only_streams;

static double
wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
params(struct world_params *wp, uint64_t streams)
{
	memset(wp, 0, sizeof(*wp));
	wp->seed = 1;
	wp->caps = SST_CAPS_ALL;
	wp->replay_window = 64;
	wp->tx_log = 16384;
	world_link_defaults(&wp->link);
	wp->host.max_streams = (uint32_t)(streams + 1024);
	wp->host.max_tx_buffers = 2048;
	wp->host.max_rx_buffers = 2048;
	wp->host.send_mbufs = 64;
	wp->host.rx_pieces = 128;
	wp->host.max_sids = 16384;
	wp->host.peer_usids = (uint32_t)(streams + 1024);
	wp->flows_cap = streams + 16;
}

static bool
want(const char *name)
{
	return only == NULL || strcmp(only, name) == 0;
}

static void
bench_idle(uint64_t n)
{
	struct world_params wp;
	struct world *w;
	const struct sst_stream_host_stats *st;
	size_t cb = sst_stream_control_block_size();
	double per_usid, per_sid, total;
	uint64_t expect;

	params(&wp, n);
	w = world_create(&wp);
	w->keep_open = true;
	for (uint64_t i = 0; i < n; i++)
		world_flow_start(w, 32, 32, 0);
	expect = n * 2 * 40;
	world_pump(w, sim_now(w->sim));
	while (w->bytes_checked < expect && sim_now(w->sim) < 600 * SST_NSEC_PER_SEC)
		sim_run_until(w->sim, sim_now(w->sim) + 10 * SST_NSEC_PER_MSEC);
	/* Buffers of idle streams go back through the idle sweep, a pass
	 * every STREAM_SWEEP_INTERVAL on its own timer: let two passes run. */
	sim_run_until(w->sim, sim_now(w->sim) + 3 * STREAM_SWEEP_INTERVAL);
	st = sst_stream_host_stats(w->ep[1].sh);
	/* The USID table keeps a load of at most 1/2; each stream has one SID
	 * entry on each host (ours or the peer's space). */
	per_usid = 2.0 * sizeof(void *);
	per_sid = (double)sst_sid_space_size(wp.host.max_sids) / (2.0 * wp.host.max_sids);
	total = (double)cb + per_usid + per_sid;
	printf("idle: %" PRIu64 " streams open at b (%s), %" PRIu64 " send and %" PRIu64
	       " receive buffers attached\n",
		st->streams_live, w->bytes_checked == expect ? "all data in" : "INCOMPLETE",
		st->tx_buffers_live, st->rx_buffers_live);
	printf("idle: bytes per idle stream: %zu (its control block, from a preallocated array); "
	       "tables sized by configuration add %.0f (USID index) and %.0f (SID entry, while "
	       "attached): %.0f in all\n",
		cb, per_usid, per_sid, total);
	world_destroy(w);
}

static void
on_done(struct world *w, struct flow *f)
{
	(void)f;
	if (w->nflows < w->flows_cap - 16)
		world_flow_start(w, 32, 32, 0);
}

static void
bench_rr(uint64_t n)
{
	struct world_params wp;
	struct world *w;
	double t0, t1;

	params(&wp, n);
	wp.link.delay_ns = 50 * 1000;
	w = world_create(&wp);
	w->on_flow_done = on_done;
	t0 = wall();
	for (int i = 0; i < 8; i++)
		world_flow_start(w, 32, 32, 0);
	if (world_run(w, 100000 * SST_NSEC_PER_SEC) != 0)
		printf("rr: run did not finish\n");
	t1 = wall();
	printf("rr: %" PRIu64 " streams opened, 32-byte request and response, closed: %.2f s wall, "
	       "%.0f streams/s (both hosts on one core)\n",
		w->flows_done, t1 - t0, (double)w->flows_done / (t1 - t0));
	world_destroy(w);
}

static void
bench_goodput(uint64_t n)
{
	const uint64_t total = 64 << 20;
	struct world_params wp;
	struct world *w;
	double t0, t1, secs;
	int rc;

	params(&wp, n);
	wp.link.rate_bps = 1000ULL * 1000 * 1000;
	wp.link.delay_ns = SST_NSEC_PER_MSEC;
	wp.link.queue_pkts = 2000;
	wp.link.capacity = 65536;
	wp.host.send_mbufs = n <= 16 ? 2048 : 64; /* a lone stream needs a deep queue */
	if (getenv("BENCH_RXMIN"))
		wp.host.rx_window_min = (uint32_t)strtoul(getenv("BENCH_RXMIN"), NULL, 0);
	wp.host.max_tx_buffers = (uint32_t)RTE_MIN(n + 16, 4096);
	wp.host.max_rx_buffers = (uint32_t)RTE_MIN(n + 16, 4096);
	w = world_create(&wp);
	t0 = wall();
	for (uint64_t i = 0; i < n; i++)
		world_flow_start(w, total / n, 0, 0);
	rc = world_run(w, 3600 * SST_NSEC_PER_SEC);
	if (rc != 0)
		printf("goodput: run did not finish (%d): %" PRIu64 "/%" PRIu64 " flows, %" PRIu64
		       " and %" PRIu64 " streams left\n",
			rc, w->flows_done, w->nflows,
			sst_stream_host_stats(w->ep[0].sh)->streams_live,
			sst_stream_host_stats(w->ep[1].sh)->streams_live);
	t1 = wall();
	secs = (double)sim_now(w->sim) / 1e9;
	printf("goodput: %6" PRIu64 " streams: %.1f MB in %.3f s virtual = %.0f Mbit/s on a "
	       "1000 Mbit/s link; %.2f s wall (%.0f Mbit/s simulated per wall second)\n",
		n, (double)w->bytes_checked / 1e6, secs, (double)w->bytes_checked * 8 / secs / 1e6,
		t1 - t0, (double)w->bytes_checked * 8 / (t1 - t0) / 1e6);
	world_destroy(w);
}

static void
run_all(void)
{
	static const uint64_t counts[] = {1, 1000, 16000};

	for (size_t i = 0; i < RTE_DIM(counts); i++) {
		uint64_t n = only_streams != 0 ? only_streams : counts[i];

		if (want("idle") && n >= 1000)
			bench_idle(n);
		if (want("goodput"))
			bench_goodput(n);
		if (only_streams != 0)
			break;
	}
	if (want("rr"))
		bench_rr(100000);
}

static const struct sst_test_case cases[] = {
	SST_TEST(run_all),
	SST_TEST_END,
};

static void
usage(FILE *f)
{
	fprintf(f, "usage: stream_bench [--only idle|rr|goodput] [--streams N]\n"
		   "  Stream-layer benchmarks in the simulator (docs/stream.md, Performance).\n"
		   "  --only NAME   run one benchmark\n"
		   "  --streams N   streams for idle and goodput (default 1, 1000, 16000)\n");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"only", required_argument, NULL, 'o'},
		{"streams", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char prefix[64];
	int c;

	while ((c = getopt_long(argc, argv, "o:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			only = optarg;
			if (!want("idle") && !want("rr") && !want("goodput")) {
				fprintf(stderr, "stream_bench: unknown benchmark '%s'\n", optarg);
				return 2;
			}
			break;
		case 's':
			only_streams = strtoull(optarg, NULL, 0);
			if (only_streams == 0 || only_streams > 1000000) {
				fprintf(stderr, "stream_bench: --streams wants 1..1000000\n");
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	snprintf(prefix, sizeof(prefix), "stream_bench_%d", (int)getpid());
	if (world_eal_init(prefix) != 0)
		return 1;
	return sst_test_run("stream_bench", cases);
}
