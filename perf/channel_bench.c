/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Channel-layer cost per data packet (docs/channel.md, "Performance"): two
 * channels in one process, A sending bursts of 32 data packets to B, B's
 * acknowledgments flowing back to A, nothing lost. One repetition:
 *
 *   1. build 32 stream-layer packets: mbuf allocation and bytes (not timed,
 *      that is the stream layer's work);
 *   2. A: sst_channel_send() of the burst;
 *   3. B: sst_channel_receive() of everything on the wire from A: the burst,
 *      preceded by any ack-only packet A sent in step 4 of the previous
 *      repetition. B sends its ack-only packets from inside the call, through
 *      ack_due: one per 16 data packets, one more at a gap in A's numbers
 *      (A skips a number every 32 to 287 packets);
 *   4. A: sst_channel_receive() of B's ack-only packets, which acknowledge
 *      A's data; A answers with an ack-only packet of its own when B's
 *      numbering has a gap.
 *
 *   tx side  = cycles of steps 2 and 4, per data packet;
 *   rx side  = cycles of step 3, per data packet;
 *   raw      = the bare primitive on a flat buffer (perf_raw.h: IPsec-MB's
 *              direct API, libsodium, sst_chk32()), encrypt and decrypt per
 *              packet, measured in the same run.
 *
 * Both sides include the callbacks into the layers above and below, which
 * do as little as a stream layer could: transmit queues the mbufs, receive
 * frees the packet, ack_due builds a 4-byte ack-only packet and sends it.
 * "size" is the channel packet without the armor trailer (channel header and
 * stream bytes), as in crypto_bench, so that the raw figures cover the same
 * bytes. The null suite's figures are the channel's own work without armor.
 * Medians over repetitions (rte_rdtsc_precise()), after 64 repetitions of
 * warm-up that are neither timed nor seen by callgrind. Time advances 1 us
 * per repetition and the timers are never run: every ack is due by count, so
 * nothing waits for them. A run that loses a packet or drops one on the wire
 * fails rather than print figures.
 *
 * Steps 2 to 4 are three functions that are never inlined (tx_side_send,
 * rx_side_receive, tx_side_acks), so that perf/channel_callgrind.sh can count
 * the instructions of each side with valgrind --tool=callgrind
 * --toggle-collect; --only runs one configuration for it.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "channel_wire.h"
#include "perf_raw.h"
#include "sst_channel.h"
#include "sst_test_channel.h"

enum {
	MAX_REPS = PERF_RAW_MAX_REPS,
	BURST = 32,
	/* Bursts before the measured ones: until the ack words cover full runs
	 * of 16 packets both ways, and pools and caches are warm. */
	WARMUP = 64,
	WIRE_MAX = 256,
	MTU = 1500,
	/* A data packet needs stream bytes beyond a 4-byte ack-only packet. */
	MIN_SIZE = SST_CHAN_HDR_LEN + 8,
	MAX_SIZE = MTU - SST_CRYPTO_TRAILER_MAX,
};

struct side {
	struct sst_channel *ch;
	struct rte_mbuf *wire[WIRE_MAX]; /* sent, not yet received by the peer */
	unsigned int nwire;
	unsigned int dropped; /* wire full: a harness failure */
};

static struct rte_mempool *pool;

static enum sst_channel_rx_verdict
up_receive(void *ctx, struct rte_mbuf *m, uint64_t seq, sst_time_t now)
{
	bool eliciting = !sst_test_is_ack_only(m);

	(void)ctx;
	(void)seq;
	(void)now;
	rte_pktmbuf_free(m);
	return eliciting ? SST_CHANNEL_RX_NEEDS_ACK : SST_CHANNEL_RX_ACCEPT;
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
	(void)cookie;
	(void)now;
	fprintf(stderr, "channel_bench: packet %" PRIu64 " lost, figures are off\n", seq);
}

static void
up_ack_due(void *ctx, sst_time_t now)
{
	struct side *s = ctx;

	sst_test_send_ack_only(s->ch, pool, now);
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
			s->dropped++;
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
	p.mtu = MTU;
	p.pool = pool;
	p.upper = &upper;
	p.upper_ctx = s;
	p.lower = &lower;
	p.lower_ctx = s;
	return sst_channel_create(&p, 0);
}

/*
 * The timed steps are entry points for callgrind's --toggle-collect, which
 * finds functions by name: gcc must neither inline them nor clone them
 * (.constprop) nor fold the two receive steps into one (identical code
 * folding), which noipa forbids; clang only needs noinline.
 */
#if defined(__clang__)
#define BENCH_ENTRY __attribute__((noinline))
#else
#define BENCH_ENTRY __attribute__((noipa))
#endif

/* Receive everything on the wire from one side at the other. */
static void
deliver(struct side *to, struct side *from, sst_time_t now)
{
	unsigned int n = from->nwire;

	from->nwire = 0;
	sst_channel_receive(to->ch, from->wire, (uint16_t)n, now);
}

/* Step 2: A sends the burst (tx side). */
static BENCH_ENTRY void
tx_side_send(struct side *a, struct rte_mbuf **burst, sst_time_t now)
{
	sst_channel_send(a->ch, burst, NULL, BURST, true, now, NULL);
}

/* Step 3: B receives what A sent, acking from inside (rx side). */
static BENCH_ENTRY void
rx_side_receive(struct side *b, struct side *a, sst_time_t now)
{
	deliver(b, a, now);
}

/* Step 4: A receives B's acks (tx side). */
static BENCH_ENTRY void
tx_side_acks(struct side *a, struct side *b, sst_time_t now)
{
	deliver(a, b, now);
}

struct result {
	double tx, rx;
	double acks; /* B's ack-only packets per burst */
};

/* Everything A sent reached B, but for what is still on the wire, and
 * everything B sent reached A; nothing was lost, dropped or refused. */
static int
check_run(const char *what, const struct side *a, const struct side *b)
{
	const struct sst_channel_stats *sa = sst_channel_stats(a->ch);
	const struct sst_channel_stats *sb = sst_channel_stats(b->ch);

	if (sa->lost == 0 && sb->lost == 0 && a->dropped == 0 && b->dropped == 0 &&
		sb->rx_packets == sa->tx_packets - a->nwire && sa->rx_packets == sb->tx_packets &&
		sa->tx_seal_failed == 0 && sb->tx_seal_failed == 0 && !sst_channel_failed(a->ch) &&
		!sst_channel_failed(b->ch))
		return 0;
	fprintf(stderr,
		"channel_bench: %s: A sent %" PRIu64 ", B received %" PRIu64 ", B sent %" PRIu64
		", A received %" PRIu64 ", lost %" PRIu64 "/%" PRIu64 ", wire drops %u/%u, "
		"seal failures %" PRIu64 "/%" PRIu64 "\n",
		what, sa->tx_packets, sb->rx_packets, sb->tx_packets, sa->rx_packets, sa->lost,
		sb->lost, a->dropped, b->dropped, sa->tx_seal_failed, sb->tx_seal_failed);
	return -1;
}

static int
bench_channel(enum sst_crypto_suite suite, const char *driver, uint32_t size, unsigned int reps,
	struct result *r)
{
	static uint64_t tx_samples[MAX_REPS], rx_samples[MAX_REPS];
	static struct side a, b;
	struct rte_mbuf *burst[BURST];
	uint8_t payload[MAX_SIZE];
	uint32_t stream_len = size - SST_CHAN_HDR_LEN;
	sst_time_t now = 1;
	uint64_t acks_before = 0;
	char what[64];
	int rc;

	snprintf(what, sizeof(what), "%s/%s %u", sst_crypto_suite_name(suite), driver, size);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.ch = make_channel(&a, suite, driver, 0x11, 0x22);
	b.ch = make_channel(&b, suite, driver, 0x22, 0x11);
	if (a.ch == NULL || b.ch == NULL) {
		fprintf(stderr, "channel_bench: cannot create %s channels: %s\n", what,
			rte_strerror(rte_errno));
		return -1;
	}
	memset(payload, 0x5a, sizeof(payload));
	memcpy(payload, "\x00\x01\x30\x10", 4);
	for (unsigned int rep = 0; rep < WARMUP + reps; rep++) {
		uint64_t t0, t1, t2, t3;

		if (rte_pktmbuf_alloc_bulk(pool, burst, BURST) != 0) {
			fprintf(stderr, "channel_bench: mbuf pool empty\n");
			return -1;
		}
		for (unsigned int i = 0; i < BURST; i++)
			memcpy(rte_pktmbuf_append(burst[i], (uint16_t)stream_len), payload,
				stream_len);
		now += 1000;
		if (rep < WARMUP) {
			/* The same exchange, past the entry points. */
			sst_channel_send(a.ch, burst, NULL, BURST, true, now, NULL);
			deliver(&b, &a, now);
			deliver(&a, &b, now);
			acks_before = sst_channel_stats(b.ch)->tx_ack_only;
			continue;
		}
		t0 = rte_rdtsc_precise();
		tx_side_send(&a, burst, now);
		t1 = rte_rdtsc_precise();
		rx_side_receive(&b, &a, now);
		t2 = rte_rdtsc_precise();
		tx_side_acks(&a, &b, now);
		t3 = rte_rdtsc_precise();
		tx_samples[rep - WARMUP] = (t1 - t0) + (t3 - t2);
		rx_samples[rep - WARMUP] = t2 - t1;
	}
	r->tx = perf_median(tx_samples, reps) / BURST;
	r->rx = perf_median(rx_samples, reps) / BURST;
	r->acks = (double)(sst_channel_stats(b.ch)->tx_ack_only - acks_before) / reps;
	rc = check_run(what, &a, &b);
	rte_pktmbuf_free_bulk(a.wire, a.nwire);
	rte_pktmbuf_free_bulk(b.wire, b.nwire);
	sst_channel_destroy(a.ch);
	sst_channel_destroy(b.ch);
	return rc;
}

static void
usage(FILE *out)
{
	fprintf(out,
		"Usage: channel_bench [--reps N] [--only SUITE:DRIVER:SIZE] [--no-raw]\n"
		"Cycles per data packet of the channel layer, per side, for each armor suite at\n"
		"64, 1200 and 1400-byte packets, next to the bare primitive (IPsec-MB direct\n"
		"API, libsodium, sst_chk32) on a flat buffer.\n"
		"  -r, --reps N    repetitions of a %d-packet burst (default 2001, max %d)\n"
		"  -o, --only S:D:N  one configuration, e.g. aes128gcm:ipsec_mb:1400\n"
		"                  (size %d..%d: channel packet without trailer)\n"
		"  -n, --no-raw    skip the bare primitives\n"
		"  -h, --help      this text\n"
		"Runs the EAL with --no-huge --no-pci on the first lcore; run it with nice on\n"
		"shared machines. perf/channel_callgrind.sh counts instructions instead.\n",
		BURST, MAX_REPS, MIN_SIZE, MAX_SIZE);
}

/* One configuration to run, from --only SUITE:DRIVER:SIZE. */
struct only {
	bool set;
	int suite;
	char driver[32];
	uint32_t size;
};

static int
parse_only(const char *arg, struct only *o)
{
	char buf[96], *driver, *size, *end;
	unsigned long n;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	strcpy(buf, arg);
	driver = strchr(buf, ':');
	size = driver != NULL ? strchr(driver + 1, ':') : NULL;
	if (size == NULL)
		return -1;
	*driver++ = '\0';
	*size++ = '\0';
	o->suite = sst_crypto_suite_parse(buf);
	n = strtoul(size, &end, 10);
	if (o->suite < 0 || strlen(driver) >= sizeof(o->driver) || *end != '\0' || n < MIN_SIZE ||
		n > MAX_SIZE)
		return -1;
	strcpy(o->driver, driver);
	o->size = (uint32_t)n;
	o->set = true;
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"reps", required_argument, NULL, 'r'},
		{"only", required_argument, NULL, 'o'},
		{"no-raw", no_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char prefix[64];
	char *eal_argv[] = {argv[0], (char *)"--no-huge", (char *)"--no-pci", (char *)"--no-shconf",
		(char *)"-m", (char *)"1024", (char *)"--no-telemetry",
		(char *)"--log-level=lib.eal:error", prefix, NULL};
	const uint32_t *sizes = perf_sizes;
	unsigned int nsizes = RTE_DIM(perf_sizes), reps = 2001, ran = 0;
	struct only only = {.set = false};
	bool raw = true;
	int opt;

	while ((opt = getopt_long(argc, argv, "r:o:nh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			reps = (unsigned int)strtoul(optarg, NULL, 10);
			if (reps == 0 || reps > MAX_REPS) {
				fprintf(stderr, "channel_bench: --reps must be 1..%d\n", MAX_REPS);
				return 2;
			}
			break;
		case 'o':
			if (parse_only(optarg, &only) < 0) {
				fprintf(stderr,
					"channel_bench: --only wants SUITE:DRIVER:SIZE, size "
					"%d..%d\n",
					MIN_SIZE, MAX_SIZE);
				return 2;
			}
			sizes = &only.size;
			nsizes = 1;
			break;
		case 'n':
			raw = false;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	snprintf(prefix, sizeof(prefix), "--file-prefix=channel-bench-%d", (int)getpid());
	if (rte_eal_init((int)RTE_DIM(eal_argv) - 1, eal_argv) < 0) {
		fprintf(stderr, "channel_bench: EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	pool = rte_pktmbuf_pool_create(
		"bench", 16383, 256, 0, 2048 + RTE_PKTMBUF_HEADROOM, SOCKET_ID_ANY);
	if (pool == NULL) {
		fprintf(stderr, "channel_bench: mbuf pool: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (perf_raw_init() < 0)
		return 1;
	printf("# channel_bench: cycles per data packet, median of %u bursts of %d; TSC %.2f GHz; "
	       "IPsec-MB %s\n",
		reps, BURST, (double)rte_get_tsc_hz() / 1e9, perf_raw_imb_arch_name());
	printf("# size = channel packet without trailer; acks = B's ack-only packets per burst\n");
	printf("%-17s %-9s %5s %9s %9s %5s %9s %9s %6s %6s\n", "suite", "driver", "size", "tx side",
		"rx side", "acks", "raw enc", "raw dec", "tx/enc", "rx/dec");
	for (unsigned int i = 0; i < RTE_DIM(perf_armors); i++) {
		const struct perf_armor *row = &perf_armors[i];

		if (only.set &&
			(only.suite != (int)row->suite || strcmp(only.driver, row->driver) != 0))
			continue;
		for (unsigned int s = 0; s < nsizes; s++) {
			struct result r;
			double enc = 0, dec = 0;

			if (bench_channel(row->suite, row->driver, sizes[s], reps, &r) < 0)
				return 1;
			printf("%-17s %-9s %5u %9.1f %9.1f %5.2f",
				sst_crypto_suite_name(row->suite), row->driver, sizes[s], r.tx,
				r.rx, r.acks);
			if (raw && row->raw >= 0) {
				if (perf_raw_cost((enum perf_raw_kind)row->raw, sizes[s], BURST,
					    reps, &enc, &dec) < 0)
					return 1;
				printf(" %9.1f %9.1f %6.2f %6.2f", enc, dec, r.tx / enc,
					r.rx / dec);
			}
			printf("\n");
			fflush(stdout);
			ran++;
		}
	}
	if (ran == 0) {
		fprintf(stderr, "channel_bench: no such configuration\n");
		return 2;
	}
	perf_raw_fini();
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return 0;
}
