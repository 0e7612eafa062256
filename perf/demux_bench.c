/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Demultiplexing cost (issue 14): how fast a worker finds the channel of a
 * received packet, by (source endpoint, byte 0), with 1,000 to 1,000,000
 * channels from as many peer endpoints in its tables. Each lookup is what
 * sst_worker_poll() does per channel packet: the keyed hash of the
 * endpoint (worker_hash_ep()) and the probe of the channel table
 * (worker_chan_find()), on endpoints in random order, so that at a million
 * channels most probes miss the caches as they would on a busy server.
 * Also reports the tables' bytes per channel.
 *
 *   demux_bench [--channels N[,N...]] [--lookups N] [--runs N]
 *
 * Defaults: 1000,100000,1000000 channels, 2,000,000 lookups, 5 runs (the
 * median is reported). Built with the engine; run by hand.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "worker_internal.h"

struct query {
	struct sst_net_endpoint ep;
	uint8_t number;
};

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* N channels, each from its own endpoint, in a worker's tables. */
static int
fill(struct sst_worker *w, struct worker_peer *peer, struct worker_chan *chans, struct query *keys,
	uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct sst_net_endpoint ep = {.addr = sst_net_addr4(10, (uint8_t)(i >> 16),
						      (uint8_t)(i >> 8), (uint8_t)i),
			.port = (uint16_t)(1024 + rte_rand() % 60000)};
		int number = worker_ep_take_number(w, &ep);
		struct worker_chan *wc = &chans[i];

		if (number < 0)
			return number;
		wc->at = worker_ep_find(w, &ep, worker_hash_ep(w, &ep));
		wc->number = (uint8_t)number;
		wc->peer = peer;
		if (worker_chan_add(w, wc) < 0)
			return -ENOMEM;
		keys[i] = (struct query){.ep = ep, .number = (uint8_t)number};
	}
	return 0;
}

/* One packet at a time (worker_chan_find()). */
static double
run_single(const struct sst_worker *w, const struct query *q, uint32_t lookups, uint64_t *found)
{
	uint64_t t0 = rte_rdtsc_precise();
	uint64_t hits = 0;

	for (uint32_t i = 0; i < lookups; i++)
		hits += worker_chan_find(w, &q[i].ep, worker_hash_ep(w, &q[i].ep), q[i].number) !=
			NULL;
	*found = hits;
	return (double)(rte_rdtsc_precise() - t0);
}

/* Bursts of 32, as sst_worker_poll() looks a received burst up
 * (worker_chans_find()). */
static double
run_burst(struct sst_worker *w, const struct query *q, uint32_t lookups, uint64_t *found)
{
	uint64_t t0 = rte_rdtsc_precise();
	uint64_t hits = 0;

	for (uint32_t i = 0; i + SST_MAX_BURST <= lookups; i += SST_MAX_BURST) {
		struct sst_net_endpoint eps[SST_MAX_BURST];
		uint8_t numbers[SST_MAX_BURST];
		struct worker_chan *out[SST_MAX_BURST];

		for (uint32_t k = 0; k < SST_MAX_BURST; k++) {
			eps[k] = q[i + k].ep;
			numbers[k] = q[i + k].number;
		}
		worker_chans_find(w, eps, numbers, SST_MAX_BURST, out);
		for (uint32_t k = 0; k < SST_MAX_BURST; k++)
			hits += out[k] != NULL;
	}
	*found = hits;
	return (double)(rte_rdtsc_precise() - t0);
}

static void
report(const char *how, double *cycles, int runs, uint32_t lookups, uint64_t found)
{
	double hz = (double)rte_get_tsc_hz(), med;

	qsort(cycles, (size_t)runs, sizeof(cycles[0]), cmp_double);
	med = cycles[runs / 2];
	printf("  %-7s %7.2f M lookups/s, %7.1f ns, %6.0f cycles each; found %llu of %u\n", how,
		lookups / (med / hz) / 1e6, med / hz / lookups * 1e9, med / lookups,
		(unsigned long long)found, lookups);
}

static int
bench(uint32_t n, uint32_t lookups, int runs)
{
	struct sst_worker *w = rte_zmalloc("bench_worker", sizeof(*w), 0);
	struct worker_peer peer = {0};
	struct worker_chan *chans = calloc(n, sizeof(*chans));
	struct query *keys = calloc(n, sizeof(*keys));
	struct query *q = calloc(lookups, sizeof(*q));
	double single[64], burst[64];
	uint64_t found = 0, found_burst = 0;
	int rc = -ENOMEM;

	if (w == NULL || chans == NULL || keys == NULL || q == NULL || worker_peers_init(w) < 0)
		goto out;
	TAILQ_INIT(&peer.chans);
	/* Not an orphan (the zero state): those sit on the worker's list. */
	peer.state = PEER_CONNECTED;
	rc = fill(w, &peer, chans, keys, n);
	if (rc < 0)
		goto out;
	for (uint32_t i = 0; i < lookups; i++)
		q[i] = keys[rte_rand() % n];
	/* Interleaved, so that both see the same machine. */
	for (int r = 0; r < runs; r++) {
		single[r] = run_single(w, q, lookups, &found);
		burst[r] = run_burst(w, q, lookups, &found_burst);
	}
	printf("%u channels from as many endpoints: tables %.1f bytes per channel (channel "
	       "slots %llu B, endpoint slots %llu B)\n",
		n,
		(double)(worker_table_bytes(&w->chan_table) + worker_table_bytes(&w->eps) +
			 w->chans_cap * sizeof(*w->chans)) /
			n,
		(unsigned long long)worker_table_bytes(&w->chan_table),
		(unsigned long long)worker_table_bytes(&w->eps));
	report("single", single, runs, lookups, found);
	report("burst", burst, runs, lookups - lookups % SST_MAX_BURST, found_burst);
	rc = found == lookups && found_burst == lookups - lookups % SST_MAX_BURST ? 0 : -EINVAL;
out:
	if (w != NULL && w->chans != NULL)
		worker_peers_fini(w);
	rte_free(w);
	free(chans);
	free(keys);
	free(q);
	return rc;
}

int
main(int argc, char **argv)
{
	char *eal_args[] = {argv[0], "--no-huge", "--no-pci", "--no-shconf", "-m", "4096",
		"--log-level=error", "--file-prefix=demux_bench"};
	static const struct option opts[] = {{"channels", required_argument, NULL, 'c'},
		{"lookups", required_argument, NULL, 'l'}, {"runs", required_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	char sizes[256] = "1000,100000,1000000";
	uint32_t lookups = 2000000;
	int runs = 5, c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			snprintf(sizes, sizeof(sizes), "%s", optarg);
			break;
		case 'l':
			lookups = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'r':
			runs = atoi(optarg);
			break;
		default:
			printf("usage: %s [--channels N[,N...]] [--lookups N] [--runs N (1-63)]\n",
				argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	if (runs < 1 || runs > 63 || lookups == 0) {
		fprintf(stderr, "demux_bench: --runs 1-63 and --lookups > 0\n");
		return 2;
	}
	if (rte_eal_init((int)RTE_DIM(eal_args), eal_args) < 0) {
		fprintf(stderr, "demux_bench: cannot initialise the EAL\n");
		return 1;
	}
	for (char *tok = strtok(sizes, ","); tok != NULL; tok = strtok(NULL, ",")) {
		uint32_t n = (uint32_t)strtoul(tok, NULL, 10);

		if (n == 0 || n > (1u << 24)) {
			fprintf(stderr, "demux_bench: channels 1..16777216, not %s\n", tok);
			return 2;
		}
		if (bench(n, lookups, runs) < 0) {
			fprintf(stderr, "demux_bench: %u channels failed\n", n);
			return 1;
		}
	}
	rte_eal_cleanup();
	return 0;
}
