/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the token-bucket pacer (lib/cc/pacer.c): burst and rate
 * arithmetic to the nanosecond, no fraction of a byte lost or gained over
 * many refills, rate changes (including of an outstanding debt), the
 * disabled pacer, packets larger than the bucket, no overflow at
 * 400 Gbit/s, at UINT64_MAX bytes/s and after idle gaps of hours, and the
 * two depths: the burst while nothing is in flight, the quantum while
 * packets are.
 */
#include <stdio.h>

#include "sst_pacer.h"
#include "sst_test.h"

#define MS SST_NSEC_PER_MSEC
#define SEC SST_NSEC_PER_SEC

static void
test_disabled(void)
{
	struct sst_pacer p;

	sst_pacer_init(&p, 3000, 0);
	CU_ASSERT_EQUAL(p.rate, 0);
	CU_ASSERT_EQUAL(p.tokens, 3000);
	for (int i = 0; i < 100; i++) {
		CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1500, 5), 5);
		sst_pacer_on_sent(&p, 1500, 5);
	}
	CU_ASSERT_EQUAL(p.tokens, 3000);
	/* Switching pacing off returns to "always now", even in debt. */
	sst_pacer_set_rate(&p, 1000, 10);
	sst_pacer_on_sent(&p, 60000, 10);
	/* 57000 bytes of debt at 1000 B/s, then 1 ms for one byte. */
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1, 10), 10 + 57 * SEC + MS);
	sst_pacer_set_rate(&p, 0, 11);
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1500, 11), 11);
	/* Enabling again starts with a full bucket. */
	sst_pacer_set_rate(&p, 1000, 20);
	CU_ASSERT_EQUAL(p.tokens, 3000);
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 3000, 20), 20);
	/* Burst depth is clamped. */
	sst_pacer_init(&p, UINT64_MAX, 0);
	CU_ASSERT_EQUAL(p.burst, SST_PACER_BURST_MAX);
}

static void
test_burst_then_rate(void)
{
	struct sst_pacer p;
	sst_time_t t = 1000;

	/* 1 MB/s: a 1000-byte packet every millisecond after a 3-packet burst. */
	sst_pacer_init(&p, 3000, t);
	sst_pacer_set_rate(&p, 1000000, t);
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1000, t), t);
		sst_pacer_on_sent(&p, 1000, t);
	}
	CU_ASSERT_EQUAL(p.tokens, 0);
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1000, t), t + MS);
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 500, t), t + MS / 2);
	/* Asking early changes nothing. */
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1000, t + MS / 4), t + MS);
	for (int i = 1; i <= 100; i++) {
		sst_time_t at = sst_pacer_next_send(&p, 1000, t);

		CU_ASSERT_EQUAL(at, t + MS);
		t = at;
		sst_pacer_on_sent(&p, 1000, t);
	}
	CU_ASSERT_EQUAL(t, 1000 + 100 * MS);
	/* Idle for 2 ms: two packets' worth, not more than the bucket. */
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 2000, t + 2 * MS), t + 2 * MS);
	CU_ASSERT_EQUAL(p.tokens, 2000);
	/* Idle for a second: the bucket holds burst, not 1 MB. */
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1000, t + SEC), t + SEC);
	CU_ASSERT_EQUAL(p.tokens, 3000);
	CU_ASSERT_EQUAL(p.frac, 0);
}

static void
test_fractional_rate(void)
{
	struct sst_pacer p;
	sst_time_t t = 0;

	/*
	 * 3000 bytes/s and 1000-byte packets: one every 1/3 s. Packet k leaves
	 * at exactly ceil(k * 10^9 / 3) ns: no drift from rounding, even when
	 * the bucket is polled every microsecond in between. (The bucket is
	 * deeper than a packet: a full bucket rightly drops what it cannot hold.)
	 */
	sst_pacer_init(&p, 2000, 0);
	sst_pacer_set_rate(&p, 3000, 0);
	sst_pacer_on_sent(&p, 2000, 0);
	for (uint64_t k = 1; k <= 30; k++) {
		uint64_t want = (k * SEC + 2) / 3;
		sst_time_t at;

		if (k % 3 == 1)
			for (sst_time_t poll = t; poll < t + 1000 * SST_NSEC_PER_USEC;
				poll += SST_NSEC_PER_USEC)
				(void)sst_pacer_next_send(&p, 1000, poll);
		at = sst_pacer_next_send(&p, 1000, t);
		CU_ASSERT_EQUAL(at, want);
		if (at != want)
			fprintf(stderr, "  packet %llu at %llu, want %llu\n", (unsigned long long)k,
				(unsigned long long)at, (unsigned long long)want);
		t = at;
		sst_pacer_on_sent(&p, 1000, t);
	}
	CU_ASSERT_EQUAL(t, 10 * SEC);
	/* With a bucket of one packet, sending later than the bucket filled loses the excess. */
	sst_pacer_init(&p, 1000, 0);
	sst_pacer_set_rate(&p, 3000, 0);
	sst_pacer_on_sent(&p, 1000, 0);
	t = sst_pacer_next_send(&p, 1000, 0);
	CU_ASSERT_EQUAL(t, 333333334);
	sst_pacer_on_sent(&p, 1000, t);
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1000, t), 2 * t);
}

static void
test_rate_change(void)
{
	struct sst_pacer p;

	/* Empty bucket at 1 MB/s: 1000 bytes in 1 ms. */
	sst_pacer_init(&p, 1000, 0);
	sst_pacer_set_rate(&p, 1000000, 0);
	sst_pacer_on_sent(&p, 1000, 0);
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1000, 0), MS);
	/* Half-way, the rate doubles: 500 bytes earned, 500 more take 0.25 ms. */
	sst_pacer_set_rate(&p, 2000000, MS / 2);
	CU_ASSERT_EQUAL(p.tokens, 500);
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1000, MS / 2), MS / 2 + MS / 4);
	/* A slower rate stretches the wait. */
	sst_pacer_set_rate(&p, 250000, MS / 2);
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1000, MS / 2), MS / 2 + 2 * MS);
}

static void
test_large_packet_debt(void)
{
	struct sst_pacer p;
	sst_time_t t = 0;

	/* A 4000-byte packet through a 1000-byte bucket at 1 MB/s. */
	sst_pacer_init(&p, 1000, 0);
	sst_pacer_set_rate(&p, 1000000, 0);
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 4000, 0), 0);
	sst_pacer_on_sent(&p, 4000, 0);
	/* 3000 bytes of debt (3 ms), then 1000 bytes (1 ms) for the next one. */
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 4000, 0), 4 * MS);
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 100, MS), 3 * MS + MS / 10);
	/* The long-run rate is exact: ten such packets, one every 4 ms. */
	for (int i = 0; i < 10; i++) {
		t = sst_pacer_next_send(&p, 4000, t);
		sst_pacer_on_sent(&p, 4000, t);
	}
	CU_ASSERT_EQUAL(t, 40 * MS);
	/*
	 * A debt is rescaled when the rate changes: 3 ms left at 1 MB/s are
	 * 1.5 ms at 2 MB/s, then 1000 bytes take 0.5 ms.
	 */
	sst_pacer_set_rate(&p, 2000000, t);
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1000, t), t + 2 * MS);
	/* A zero-depth bucket paces every packet. */
	sst_pacer_init(&p, 0, 0);
	sst_pacer_set_rate(&p, 1000000, 0);
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1500, 0), 0);
	sst_pacer_on_sent(&p, 1500, 0);
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1500, 0), 1500 * SST_NSEC_PER_USEC);
}

static void
test_400g(void)
{
	struct sst_pacer p;
	const uint64_t rate = UINT64_C(50000000000); /* 400 Gbit/s in bytes/s */
	sst_time_t t = 5 * SEC;

	sst_pacer_init(&p, 64 * 1024, t);
	sst_pacer_set_rate(&p, rate, t);
	/* Drain the bucket with 9000-byte packets, then one every 180 ns. */
	while (sst_pacer_next_send(&p, 9000, t) == t)
		sst_pacer_on_sent(&p, 9000, t);
	CU_ASSERT_EQUAL(p.tokens, 64 * 1024 - 7 * 9000);
	for (int i = 0; i < 1000; i++) {
		t = sst_pacer_next_send(&p, 9000, t);
		sst_pacer_on_sent(&p, 9000, t);
	}
	/* 1000 * 9000 bytes at 50 bytes/ns, minus what the bucket held, rounded up. */
	CU_ASSERT_EQUAL(t, 5 * SEC + (1000 * 9000 - (64 * 1024 - 7 * 9000) + 49) / 50);
	/* Ten hours idle: exactly a full bucket, no wrapped product. */
	t += 10 * 3600 * SEC;
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 9000, t), t);
	CU_ASSERT_EQUAL(p.tokens, 64 * 1024);
	CU_ASSERT_EQUAL(p.frac, 0);
	CU_ASSERT_EQUAL(p.last, t);
}

static void
test_extremes(void)
{
	struct sst_pacer p;
	sst_time_t t;

	/* The largest rate and the largest bucket after a gap of centuries. */
	sst_pacer_init(&p, SST_PACER_BURST_MAX, 0);
	sst_pacer_set_rate(&p, UINT64_MAX, 0);
	sst_pacer_on_sent(&p, UINT32_MAX, 0);
	CU_ASSERT_EQUAL(p.tokens, SST_PACER_BURST_MAX - UINT32_MAX);
	t = UINT64_MAX / 2;
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, UINT32_MAX, t), t);
	CU_ASSERT_EQUAL(p.tokens, SST_PACER_BURST_MAX);
	/*
	 * 1 byte/s and 4 GB packets: each is 136 years of debt; the waits add
	 * up close to UINT64_MAX without wrapping.
	 */
	sst_pacer_init(&p, SST_PACER_BURST_MAX, 0);
	sst_pacer_set_rate(&p, 1, 0);
	sst_pacer_on_sent(&p, UINT32_MAX, 0);
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1, 0), 0);
	sst_pacer_on_sent(&p, UINT32_MAX, 0);
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1, 0), (UINT64_C(1) << 32) * SEC - SEC);
	sst_pacer_on_sent(&p, UINT32_MAX, 0);
	sst_pacer_on_sent(&p, UINT32_MAX, 0);
	sst_pacer_on_sent(&p, UINT32_MAX, 0);
	t = sst_pacer_next_send(&p, 1, 0);
	CU_ASSERT_TRUE(t > UINT64_C(1) << 62);
	sst_pacer_set_rate(&p, 2, 1);
	CU_ASSERT_TRUE(sst_pacer_next_send(&p, 1, 1) < t);
	/* Time going backwards is no time passing. */
	sst_pacer_init(&p, 1000, 100 * MS);
	sst_pacer_set_rate(&p, 1000000, 100 * MS);
	sst_pacer_on_sent(&p, 1000, 100 * MS);
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1000, 50 * MS), 101 * MS);
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1000, 101 * MS), 101 * MS);
}

/* Sends at @p now while the pacer lets 1000-byte packets go; returns how many. */
static int
drain_at(struct sst_pacer *p, sst_time_t now)
{
	int n = 0;

	while (sst_pacer_next_send(p, 1000, now) == now && n < 1000) {
		sst_pacer_on_sent(p, 1000, now);
		n++;
	}
	return n;
}

/* Sends @p n packets of 1000 bytes at @p now, each allowed at once. */
static void
send_n(struct sst_pacer *p, sst_time_t now, int n)
{
	for (int i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(sst_pacer_next_send(p, 1000, now), now);
		sst_pacer_on_sent(p, 1000, now);
	}
}

/*
 * The regression of session 16 (docs/evaluation.md section 2): an
 * ack-clocked sender keeps the bucket full, so with one depth an ack that
 * freed more than two packets sent them back to back. With packets in
 * flight the bucket now refills to the quantum only while the window holds
 * the sender, however long; to the burst while the pacer holds it (a
 * sender woken late catches up) or nothing is in flight.
 */
static void
test_quantum(void)
{
	struct sst_pacer p;
	sst_time_t t = 0;

	sst_pacer_init(&p, 10000, t);
	sst_pacer_set_quantum(&p, 2000);
	sst_pacer_set_rate(&p, 1000000, t); /* 250 us of the rate: 250 bytes */
	CU_ASSERT_EQUAL(p.quantum, 2000);
	/* Fresh: the whole burst at once. */
	send_n(&p, t, 10);
	/* Held by the window (the pacer not asked): a second refills only
	 * two packets, then the rate decides. */
	t += SEC;
	send_n(&p, t, 2);
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1000, t), t + MS);
	/* Held by the pacer and woken 5 ms late: 5 ms of the rate. */
	CU_ASSERT_EQUAL(drain_at(&p, t + 5 * MS), 5);
	sst_pacer_on_sent(&p, 1000, t + 6 * MS);
	/* Drained: the time before counts at the quantum's depth... */
	t += SEC;
	sst_pacer_on_drained(&p, t);
	CU_ASSERT_EQUAL(p.tokens, 2000);
	/* ...the time after fills the burst (8 ms of the rate). */
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1000, t + 5 * MS), t + 5 * MS);
	CU_ASSERT_EQUAL(drain_at(&p, t + 8 * MS), 10);
	/* What the bucket earned while drained stays past the quantum until
	 * spent. */
	t += SEC;
	sst_pacer_on_drained(&p, t);
	t += SEC;
	sst_pacer_on_sent(&p, 1000, t);
	send_n(&p, t + SEC, 9);
	/* Spent, it refills to the quantum again. */
	send_n(&p, t + 3 * SEC, 2);
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1000, t + 3 * SEC), t + 3 * SEC + MS);
}

/* The quantum is 250 us of the rate (at most 64 KiB) when that is more
 * than its minimum; the default minimum is the burst. */
static void
test_quantum_follows_rate(void)
{
	struct sst_pacer p;

	sst_pacer_init(&p, 64000, 0);
	CU_ASSERT_EQUAL(p.quantum, 64000);
	sst_pacer_set_quantum(&p, 3000);
	CU_ASSERT_EQUAL(p.quantum, 3000); /* unpaced: the minimum */
	sst_pacer_set_rate(&p, 40000000, 0);
	CU_ASSERT_EQUAL(p.quantum, 10000);
	sst_pacer_set_rate(&p, 10000000, 0);
	CU_ASSERT_EQUAL(p.quantum, 3000);
	/* 250 us of 1 GB/s is 250 KB: the slice stops at 64 KiB, past the
	 * burst, which a drained bucket then holds too. */
	sst_pacer_set_rate(&p, 1000000000, 0);
	CU_ASSERT_EQUAL(p.quantum, SST_PACER_SLICE_MAX);
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1000, SEC), SEC);
	CU_ASSERT_EQUAL(p.tokens, SST_PACER_SLICE_MAX);
	sst_pacer_set_quantum(&p, 100000);
	CU_ASSERT_EQUAL(p.quantum, 100000);
	/* A disabled pacer ignores the depths but still tracks the flight. */
	sst_pacer_init(&p, 10000, 0);
	sst_pacer_set_quantum(&p, 2000);
	sst_pacer_on_sent(&p, 1000, 0);
	CU_ASSERT_FALSE(p.drained);
	CU_ASSERT_EQUAL(sst_pacer_next_send(&p, 1000, 0), 0);
	sst_pacer_on_drained(&p, 5);
	CU_ASSERT_TRUE(p.drained);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_disabled),
	SST_TEST(test_burst_then_rate),
	SST_TEST(test_fractional_rate),
	SST_TEST(test_rate_change),
	SST_TEST(test_large_packet_debt),
	SST_TEST(test_400g),
	SST_TEST(test_extremes),
	SST_TEST(test_quantum),
	SST_TEST(test_quantum_follows_rate),
	SST_TEST_END,
};

SST_TEST_MAIN("pacer", cases)
