/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Micro-benchmark of the armor drivers (docs/channel-crypto.md): cycles per
 * packet (rte_rdtsc) for seal_burst and open_burst of every registered suite
 * implementation, at several packet sizes, next to the cost of the bare
 * primitive on a flat buffer measured in the same run (IPsec-MB's direct
 * AEAD API, libsodium's detached AEAD, sst_chk32()), so the driver overhead
 * (mbuf allocation, chain handling, job submission, burst bookkeeping) can be
 * read off directly.
 *
 * One measurement is one burst: the packets are built untimed, then the
 * burst is sealed (timed) and the sealed packets opened (timed). The figure
 * reported is the median over repetitions of cycles per packet. The raw
 * rows time the same number of packets through the primitive alone.
 *
 * "size" is the channel packet handed to seal: header and payload, without
 * the trailer.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <intel-ipsec-mb.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "perf_raw.h"
#include "sst_crypto_driver.h"

enum {
	MAX_BURST = PERF_RAW_MAX_BURST,
	MAX_REPS = PERF_RAW_MAX_REPS,
	MAX_SIZE = PERF_RAW_MAX_SIZE,
};

struct opts {
	unsigned int reps;
	unsigned int burst;
};

static uint64_t samples[MAX_REPS];

static void
usage(const char *prog)
{
	printf("usage: %s [--reps N] [--burst N] [--help]\n"
	       "\n"
	       "Cycles per packet of seal_burst/open_burst for every armor driver at\n"
	       "64, 1200 and 1400-byte packets, next to the bare primitive (IPsec-MB\n"
	       "direct AEAD API, libsodium, sst_chk32) on a flat buffer.\n"
	       "\n"
	       "  --reps N    bursts per measurement; the median is reported (default 2001)\n"
	       "  --burst N   packets per burst, 1..%d (default 32)\n"
	       "  --help      this text\n"
	       "\n"
	       "Runs the EAL with --no-huge --no-pci on the first lcore; run it with\n"
	       "nice on shared machines, and on an idle core for stable figures.\n",
		prog, MAX_BURST);
}

static int
parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{"reps", required_argument, NULL, 'r'},
		{"burst", required_argument, NULL, 'b'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	o->reps = 2001;
	o->burst = 32;
	while ((c = getopt_long(argc, argv, "r:b:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			o->reps = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'b':
			o->burst = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'h':
			usage(argv[0]);
			exit(EXIT_SUCCESS);
		default:
			usage(argv[0]);
			return -1;
		}
	}
	if (o->reps < 1 || o->reps > MAX_REPS || o->burst < 1 || o->burst > MAX_BURST) {
		fprintf(stderr, "reps must be 1..%d and burst 1..%d\n", MAX_REPS, MAX_BURST);
		return -1;
	}
	return 0;
}

static int
eal_init(const char *prog)
{
	char prefix[64];
	char *argv[] = {(char *)prog, (char *)"--no-huge", (char *)"--no-pci",
		(char *)"--no-shconf", (char *)"-m", (char *)"256", (char *)"--no-telemetry",
		(char *)"--log-level=error", prefix, NULL};

	snprintf(prefix, sizeof(prefix), "--file-prefix=crypto-bench-%d", (int)getpid());
	if (rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv) < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

/* A burst of fresh one-segment packets of len bytes. */
static int
make_burst(struct rte_mempool *mp, struct rte_mbuf **m, unsigned int n, const uint8_t *data,
	uint32_t len)
{
	if (rte_pktmbuf_alloc_bulk(mp, m, n) != 0)
		return -1;
	for (unsigned int i = 0; i < n; i++)
		memcpy(rte_pktmbuf_append(m[i], (uint16_t)len), data, len);
	return 0;
}

struct result {
	double seal, open;
};

/* Median cycles per packet of seal and open for one implementation. */
static int
bench_driver(const struct sst_crypto_ops *ops, struct rte_mempool *mp, const struct opts *o,
	uint32_t len, struct result *r)
{
	static uint64_t open_samples[MAX_REPS];
	_Alignas(SST_CRYPTO_SESSION_ALIGN) static uint8_t tx[SST_CRYPTO_SESSION_MAX],
		rx[SST_CRYPTO_SESSION_MAX];
	struct sst_crypto_keys k;
	uint8_t data[MAX_SIZE];
	struct rte_mbuf *m[MAX_BURST];
	uint64_t seq[MAX_BURST];
	int rc = -1;

	memset(&k, 0, sizeof(k));
	perf_fill(k.tx_key, sizeof(k.tx_key), 1);
	memcpy(k.rx_key, k.tx_key, sizeof(k.rx_key));
	perf_fill(k.tx_iv, sizeof(k.tx_iv), 2);
	memcpy(k.rx_iv, k.tx_iv, sizeof(k.rx_iv));
	k.tx_chk_key = k.rx_chk_key = 0x12345678;
	perf_fill(data, len, 3);
	if (ops->session_init(tx, &k) != 0 || ops->session_init(rx, &k) != 0)
		return -1;
	for (unsigned int rep = 0; rep < o->reps; rep++) {
		uint64_t t0, t1, t2;
		uint16_t sealed, opened;

		if (make_burst(mp, m, o->burst, data, len) != 0)
			goto out;
		for (unsigned int i = 0; i < o->burst; i++)
			seq[i] = (uint64_t)rep * MAX_BURST + i + 1;
		t0 = rte_rdtsc_precise();
		sealed = ops->seal_burst(tx, m, seq, (uint16_t)o->burst, mp);
		t1 = rte_rdtsc_precise();
		opened = ops->open_burst(rx, m, seq, sealed);
		t2 = rte_rdtsc_precise();
		rte_pktmbuf_free_bulk(m, o->burst);
		if (sealed != o->burst || opened != sealed) {
			fprintf(stderr, "%s/%s: sealed %u opened %u of %u\n", ops->driver,
				sst_crypto_suite_name(ops->suite), sealed, opened, o->burst);
			goto out;
		}
		samples[rep] = t1 - t0;
		open_samples[rep] = t2 - t1;
	}
	r->seal = perf_median(samples, o->reps) / o->burst;
	r->open = perf_median(open_samples, o->reps) / o->burst;
	rc = 0;
out:
	ops->session_fini(tx);
	ops->session_fini(rx);
	return rc;
}

int
main(int argc, char **argv)
{
	struct rte_mempool *mp;
	struct opts o;

	if (parse(argc, argv, &o) != 0 || eal_init(argv[0]) != 0)
		return EXIT_FAILURE;
	if (perf_raw_init() != 0)
		return EXIT_FAILURE;
	mp = rte_pktmbuf_pool_create("bench", 4 * MAX_BURST + 63, MAX_BURST, 0,
		RTE_PKTMBUF_HEADROOM + 2048, SOCKET_ID_ANY);
	if (mp == NULL) {
		fprintf(stderr, "no memory for the pool\n");
		return EXIT_FAILURE;
	}
	printf("# crypto_bench: burst %u, median of %u bursts, TSC %.3f GHz, IPsec-MB %s arch %d, "
	       "lcore %u\n",
		o.burst, o.reps, (double)rte_get_tsc_hz() / 1e9, imb_get_version_str(),
		perf_raw_imb_arch(), rte_lcore_id());
	printf("# cycles per packet; size = channel packet without trailer\n");
	printf("%-17s %-10s %5s %9s %9s   %-16s %9s %9s\n", "suite", "driver", "size", "seal",
		"open", "raw primitive", "raw enc", "raw dec");
	for (size_t i = 0; i < RTE_DIM(perf_armors); i++) {
		const struct perf_armor *row = &perf_armors[i];
		const struct sst_crypto_ops *ops = sst_crypto_find(row->suite, row->driver);

		if (ops == NULL) {
			printf("%-17s %-10s not registered\n", sst_crypto_suite_name(row->suite),
				row->driver);
			continue;
		}
		for (size_t s = 0; s < RTE_DIM(perf_sizes); s++) {
			struct result d, raw;

			if (bench_driver(ops, mp, &o, perf_sizes[s], &d) != 0)
				return EXIT_FAILURE;
			printf("%-17s %-10s %5u %9.1f %9.1f", sst_crypto_suite_name(ops->suite),
				ops->driver, perf_sizes[s], d.seal, d.open);
			if (row->raw >= 0) {
				enum perf_raw_kind kind = (enum perf_raw_kind)row->raw;

				if (perf_raw_cost(kind, perf_sizes[s], o.burst, o.reps, &raw.seal,
					    &raw.open) != 0)
					return EXIT_FAILURE;
				printf("   %-16s %9.1f %9.1f", perf_raw_name(kind), raw.seal,
					raw.open);
			}
			printf("\n");
		}
	}
	perf_raw_fini();
	rte_mempool_free(mp);
	rte_eal_cleanup();
	return EXIT_SUCCESS;
}
