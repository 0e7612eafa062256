/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Channel-layer cost per packet (docs/channel.md, "Performance"): two
 * channels in one process, A sending bursts of data packets to B, B's
 * acknowledgments flowing back to A. For each armor suite and packet size:
 *
 *   tx side  = cycles in sst_channel_send() of A plus A's processing of the
 *              acks that come back, per data packet;
 *   rx side  = cycles in sst_channel_receive() of B, which includes the
 *              ack-only packets it sends while receiving, per data packet;
 *   raw      = the same AEAD primitive on a flat buffer (IPsec-MB direct
 *              API), encrypt and decrypt per packet, measured in the same run.
 *
 * The null suite's figures are the channel's own work without any armor.
 * Medians over repetitions (rte_rdtsc). Building the packets (mbuf
 * allocation, payload bytes) is not timed: that is the stream layer's work.
 *
 * For instruction counts run it under callgrind (perf/channel_callgrind.sh).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "perf_raw.h"
#include "sst_channel.h"

enum {
	MAX_REPS = 100001,
	MAX_BURST = 32,
	WIRE_MAX = 256,
};

struct side {
	struct sst_channel *ch;
	struct rte_mbuf *wire[WIRE_MAX];
	unsigned int nwire;
};

static struct rte_mempool *pool;
static const uint8_t ack_only[] = {0x00, 0x01, 0x50, 0x10};

static bool
up_receive(void *ctx, struct rte_mbuf *m, uint64_t seq, sst_time_t now)
{
	(void)ctx;
	(void)seq;
	(void)now;
	bool eliciting = rte_pktmbuf_pkt_len(m) != sizeof(ack_only);

	rte_pktmbuf_free(m);
	return eliciting;
}

static void
up_acked(void *ctx, uint64_t seq, uintptr_t cookie, sst_time_t now)
{
	(void)ctx;
	(void)seq;
	(void)cookie;
	(void)now;
}

static void
up_lost(void *ctx, uint64_t seq, uintptr_t cookie, sst_time_t now)
{
	(void)ctx;
	(void)seq;
	(void)cookie;
	(void)now;
	fprintf(stderr, "channel_bench: packet %" PRIu64 " lost, figures are off\n", seq);
}

static void
up_ack_due(void *ctx, sst_time_t now)
{
	struct side *s = ctx;
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	if (m == NULL)
		return;
	memcpy(rte_pktmbuf_append(m, sizeof(ack_only)), ack_only, sizeof(ack_only));
	sst_channel_send(s->ch, &m, NULL, 1, false, now, NULL);
}

static void
up_event(void *ctx, enum sst_channel_event ev, sst_time_t now)
{
	(void)ctx;
	(void)now;
	fprintf(stderr, "channel_bench: channel event %d\n", ev);
}

static void
low_transmit(void *ctx, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	struct side *s = ctx;

	(void)now;
	for (uint16_t i = 0; i < n; i++) {
		if (s->nwire == WIRE_MAX) {
			rte_pktmbuf_free(pkts[i]);
			continue;
		}
		s->wire[s->nwire++] = pkts[i];
	}
}

static const struct sst_channel_upper upper = {
	.receive = up_receive,
	.acked = up_acked,
	.lost = up_lost,
	.ack_due = up_ack_due,
	.event = up_event,
};

static const struct sst_channel_lower lower = {.transmit = low_transmit};

static struct sst_channel *
make_channel(
	struct side *s, enum sst_crypto_suite suite, const char *driver, uint8_t tx, uint8_t rx)
{
	struct sst_channel_params p;

	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.local_channel = 1;
	p.peer_channel = 1;
	p.suite = suite;
	p.crypto_driver = driver;
	memset(p.keys.tx_key, tx, sizeof(p.keys.tx_key));
	memset(p.keys.rx_key, rx, sizeof(p.keys.rx_key));
	memset(p.keys.tx_iv, tx, sizeof(p.keys.tx_iv));
	memset(p.keys.rx_iv, rx, sizeof(p.keys.rx_iv));
	p.keys.tx_chk_key = tx;
	p.keys.rx_chk_key = rx;
	p.replay_window = 8192;
	p.tx_log = 65536;
	p.skip_seed = 0x5eed;
	p.mtu = 1500;
	p.pool = pool;
	p.upper = &upper;
	p.upper_ctx = s;
	p.lower = &lower;
	p.lower_ctx = s;
	return sst_channel_create(&p, 0);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double
median(uint64_t *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return (double)v[n / 2];
}

struct result {
	double tx, rx;
};

static int
bench_channel(enum sst_crypto_suite suite, const char *driver, uint32_t size, unsigned int reps,
	struct result *r)
{
	static uint64_t tx_samples[MAX_REPS], rx_samples[MAX_REPS];
	static struct side a, b;
	struct rte_mbuf *burst[MAX_BURST];
	uint8_t payload[2048];
	sst_time_t now = 1;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.ch = make_channel(&a, suite, driver, 0x11, 0x22);
	b.ch = make_channel(&b, suite, driver, 0x22, 0x11);
	if (a.ch == NULL || b.ch == NULL) {
		fprintf(stderr, "channel_bench: cannot create %s/%s channels: %s\n",
			sst_crypto_suite_name(suite), driver, rte_strerror(rte_errno));
		return -1;
	}
	memset(payload, 0x5a, sizeof(payload));
	memcpy(payload, "\x00\x01\x30\x10", 4);
	for (unsigned int rep = 0; rep < reps; rep++) {
		uint64_t t0, t1, t2, t3;

		for (unsigned int i = 0; i < MAX_BURST; i++) {
			burst[i] = rte_pktmbuf_alloc(pool);
			if (burst[i] == NULL) {
				fprintf(stderr, "channel_bench: mbuf pool empty\n");
				return -1;
			}
			memcpy(rte_pktmbuf_append(burst[i], (uint16_t)size), payload, size);
		}
		now += 1000;
		t0 = rte_rdtsc_precise();
		sst_channel_send(a.ch, burst, NULL, MAX_BURST, true, now, NULL);
		t1 = rte_rdtsc_precise();
		sst_channel_receive(b.ch, a.wire, (uint16_t)a.nwire, now);
		t2 = rte_rdtsc_precise();
		a.nwire = 0;
		sst_channel_receive(a.ch, b.wire, (uint16_t)b.nwire, now);
		t3 = rte_rdtsc_precise();
		b.nwire = 0;
		tx_samples[rep] = (t1 - t0) + (t3 - t2);
		rx_samples[rep] = t2 - t1;
		/* A's own acks of B's acks go nowhere; keep the timers quiet. */
		rte_pktmbuf_free_bulk(a.wire, a.nwire);
		a.nwire = 0;
	}
	r->tx = median(tx_samples, reps) / MAX_BURST;
	r->rx = median(rx_samples, reps) / MAX_BURST;
	sst_channel_destroy(a.ch);
	sst_channel_destroy(b.ch);
	return 0;
}

static void
usage(FILE *out)
{
	fprintf(out,
		"Usage: channel_bench [--reps N]\n"
		"Cycles per data packet of the channel layer, per side, for each armor suite at\n"
		"64, 1200 and 1400-byte packets, next to the raw IPsec-MB AEAD cost.\n"
		"  -r, --reps N   repetitions of a 32-packet burst (default 2001, max %d)\n"
		"  -h, --help     this text\n",
		MAX_REPS);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"reps", required_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static const struct {
		enum sst_crypto_suite suite;
		const char *driver;
		int raw; /* enum perf_raw_kind, or -1 */
	} rows[] = {
		{SST_CRYPTO_NULL, "null", -1},
		{SST_CRYPTO_CHK32, "chk32", PERF_RAW_CHK32},
		{SST_CRYPTO_AES128GCM, "ipsec_mb", PERF_RAW_IMB_GCM},
		{SST_CRYPTO_CHACHA20POLY1305, "ipsec_mb", PERF_RAW_IMB_CHACHA},
		{SST_CRYPTO_CHACHA20POLY1305, "sodium", PERF_RAW_SODIUM_CHACHA},
	};
	static const uint32_t sizes[] = {64, 1200, 1400};
	char *eal_argv[] = {argv[0], (char *)"--no-huge", (char *)"--no-pci", (char *)"-m",
		(char *)"1024", (char *)"--no-telemetry", (char *)"--log-level=lib.eal:error",
		(char *)"--file-prefix=channel_bench", NULL};
	unsigned int reps = 2001;
	int opt;

	while ((opt = getopt_long(argc, argv, "r:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			reps = (unsigned int)strtoul(optarg, NULL, 10);
			if (reps == 0 || reps > MAX_REPS) {
				fprintf(stderr, "channel_bench: --reps must be 1..%d\n", MAX_REPS);
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
	if (rte_eal_init(8, eal_argv) < 0) {
		fprintf(stderr, "channel_bench: EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	pool = rte_pktmbuf_pool_create(
		"bench", 16383, 256, 0, 2048 + RTE_PKTMBUF_HEADROOM, SOCKET_ID_ANY);
	if (pool == NULL || perf_raw_init() < 0) {
		fprintf(stderr, "channel_bench: setup: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	printf("cycles per data packet (median of %u bursts of %d); TSC %.2f GHz\n", reps,
		MAX_BURST, (double)rte_get_tsc_hz() / 1e9);
	printf("%-17s %-9s %5s %9s %9s %9s %9s %14s\n", "suite", "driver", "size", "tx side",
		"rx side", "raw enc", "raw dec", "side/raw");
	for (unsigned int i = 0; i < RTE_DIM(rows); i++) {
		for (unsigned int s = 0; s < RTE_DIM(sizes); s++) {
			struct result r;
			double enc = 0, dec = 0;

			if (bench_channel(rows[i].suite, rows[i].driver, sizes[s], reps, &r) < 0)
				return 1;
			printf("%-17s %-9s %5u %9.1f %9.1f", sst_crypto_suite_name(rows[i].suite),
				rows[i].driver, sizes[s], r.tx, r.rx);
			if (rows[i].raw >= 0 && perf_raw_cost((enum perf_raw_kind)rows[i].raw,
							sizes[s], reps, &enc, &dec) == 0)
				printf(" %9.1f %9.1f %6.2f %6.2f", enc, dec, r.tx / enc,
					r.rx / dec);
			printf("\n");
		}
	}
	rte_eal_cleanup();
	return 0;
}
