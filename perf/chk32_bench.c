/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Micro-benchmark of the checksums (docs/performance.md, "Checksums"):
 * cycles per packet and per byte (rte_rdtsc) of every implementation this
 * CPU runs of Chk32 and of lib/net's software Internet checksum, at
 * 64, 128, 256, 1200, 1400 and 9000-byte packets, over a flat buffer and over the
 * two-segment chain the channel seals (a 41-byte header mbuf, then the
 * payload, so that the payload's words start at an odd offset).
 *
 * One sample checksums a set of 32 packets (distinct buffers, about 300 KB
 * at 9000 bytes: the caches hold them, as they hold a burst the stack has
 * just written); the figure is the median over the samples. Needs no EAL.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "channel_wire.h"
#include "sst_net.h"
#include "perf_raw.h"

#define NPKT 32
#define MAX_SIZE 9000
#define HDR_LEN 41
#define MAX_REPS 100001

static uint64_t samples[MAX_REPS];
static uint8_t bufs[NPKT][MAX_SIZE];
static struct rte_mbuf segs[NPKT][2];
static volatile uint32_t sink; /* keeps the checksums from being optimised away */

/* Lay out packet i as one segment or as header + payload. */
static struct rte_mbuf *
layout(unsigned int i, uint32_t len, int chained)
{
	struct rte_mbuf *m = segs[i];

	m[0].buf_addr = bufs[i];
	m[0].pkt_len = len;
	m[0].data_len = (uint16_t)(chained ? HDR_LEN : len);
	m[0].next = chained ? &m[1] : NULL;
	m[1].buf_addr = bufs[i] + HDR_LEN;
	m[1].data_len = (uint16_t)(len - HDR_LEN);
	return m;
}

/* Median cycles per packet of the Internet checksum (UDP's, of the whole
 * packet) by impl. */
static double
bench_inet(enum sst_net_cksum_impl impl, uint32_t len, int chained, unsigned int reps)
{
	for (unsigned int i = 0; i < NPKT; i++)
		layout(i, len, chained);
	for (unsigned int r = 0; r < reps; r++) {
		uint64_t t0 = rte_rdtsc_precise();
		uint32_t acc = 0;

		for (unsigned int i = 0; i < NPKT; i++) {
			uint16_t ck = 0;

			sst_net_cksum_mbuf_with(impl, segs[i], 0, len, &ck);
			acc += ck;
		}
		samples[r] = rte_rdtsc_precise() - t0;
		sink += acc;
	}
	return perf_median(samples, reps) / NPKT;
}

static double
bench(enum sst_chk32_impl impl, uint32_t len, int chained, unsigned int reps)
{
	for (unsigned int i = 0; i < NPKT; i++)
		layout(i, len, 1);
	for (unsigned int r = 0; r < reps; r++) {
		uint64_t t0 = rte_rdtsc_precise();
		uint32_t acc = 0;

		for (unsigned int i = 0; i < NPKT; i++)
			acc += chained ? sst_chk32_mbuf_with(impl, i, segs[i], len)
				       : sst_chk32_with(impl, i, bufs[i], len);
		samples[r] = rte_rdtsc_precise() - t0;
		sink += acc;
	}
	return perf_median(samples, reps) / NPKT;
}

int
main(int argc, char **argv)
{
	static const uint32_t sizes[] = {64, 128, 256, 1200, 1400, 9000};
	unsigned int reps = 2001;
	int c;

	while ((c = getopt(argc, argv, "r:h")) != -1) {
		if (c == 'r') {
			reps = (unsigned int)strtoul(optarg, NULL, 10);
		} else {
			printf("usage: %s [-r REPS]\n"
			       "Cycles per packet and per byte of every Chk32 implementation this\n"
			       "CPU runs; the median over REPS samples of 32 packets (default "
			       "2001).\n",
				argv[0]);
			return c == 'h' ? EXIT_SUCCESS : EXIT_FAILURE;
		}
	}
	if (reps < 1 || reps > MAX_REPS) {
		fprintf(stderr, "reps must be 1..%d\n", MAX_REPS);
		return EXIT_FAILURE;
	}
	for (unsigned int i = 0; i < NPKT; i++)
		perf_fill(bufs[i], MAX_SIZE, 1000 + i);
	printf("Chk32, in use: %s (cycles are TSC cycles)\n",
		sst_chk32_impl_name(sst_chk32_impl_active()));
	printf("%-8s %6s %14s %10s %14s %10s\n", "impl", "size", "flat cyc/pkt", "cyc/B",
		"chain cyc/pkt", "cyc/B");
	for (int i = 0; i < SST_CHK32_IMPL_COUNT; i++) {
		enum sst_chk32_impl impl = (enum sst_chk32_impl)i;

		if (!sst_chk32_impl_supported(impl))
			continue;
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			double flat = bench(impl, sizes[k], 0, reps);
			double chain = bench(impl, sizes[k], 1, reps);

			printf("%-8s %6u %14.1f %10.3f %14.1f %10.3f\n", sst_chk32_impl_name(impl),
				sizes[k], flat, flat / sizes[k], chain, chain / sizes[k]);
		}
	}
	printf("\nInternet checksum (lib/net), in use: %s\n",
		sst_net_cksum_impl_name(sst_net_cksum_impl_active()));
	printf("%-8s %6s %14s %10s %14s %10s\n", "impl", "size", "flat cyc/pkt", "cyc/B",
		"chain cyc/pkt", "cyc/B");
	for (int i = 0; i < SST_NET_CKSUM_IMPL_COUNT; i++) {
		enum sst_net_cksum_impl impl = (enum sst_net_cksum_impl)i;

		if (!sst_net_cksum_impl_supported(impl))
			continue;
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			double flat = bench_inet(impl, sizes[k], 0, reps);
			double chain = bench_inet(impl, sizes[k], 1, reps);

			printf("%-8s %6u %14.1f %10.3f %14.1f %10.3f\n",
				sst_net_cksum_impl_name(impl), sizes[k], flat, flat / sizes[k],
				chain, chain / sizes[k]);
		}
	}
	return EXIT_SUCCESS;
}
