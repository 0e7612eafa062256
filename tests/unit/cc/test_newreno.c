/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of NewReno (drivers/cc/newreno) against the textbook shapes, driven
 * by the deterministic ack-clocked sender of cc_model.h (MSS 1000 bytes,
 * RTT 100 ms): slow start doubles per RTT up to ssthresh, then the window
 * grows by one MSS per RTT; one loss halves it once; several losses in one
 * window halve it once (RFC 6582); a timeout collapses it to one MSS and
 * slow start climbs back to the new ssthresh; the window never goes below
 * two MSS except the one-MSS loss window after a timeout. ssthresh is half
 * the window, as in Linux (not RFC 5681's half the flight, issue 19).
 */
#include <stdio.h>

#include "cc_model.h"
#include "sst_test.h"

#define MSS 1000
#define RTT (100 * SST_NSEC_PER_MSEC)

static struct model m;

/* Slow start up to ssthresh, then three rounds of congestion avoidance. */
static void
start_in_avoidance(uint64_t ssthresh)
{
	model_init(&m, "newreno", MSS, RTT);
	m.cc.ssthresh = ssthresh;
	model_start(&m);
	while (m.cc.cwnd < ssthresh)
		model_round(&m);
	/* A few rounds of avoidance so the flight is a full window. */
	for (int i = 0; i < 3; i++)
		model_round(&m);
}

static void
test_slow_start(void)
{
	static const uint64_t want[] = {10000, 20000, 40000, 80000};

	/* ssthresh as an earlier congestion event would have left it. */
	model_init(&m, "newreno", MSS, RTT);
	m.cc.ssthresh = 80000;
	model_start(&m);
	CU_ASSERT_EQUAL(m.cc.cwnd, 10000);
	CU_ASSERT_EQUAL(m.flight, 10000);
	for (int r = 1; r < 4; r++) {
		model_round(&m);
		CU_ASSERT_EQUAL(m.cc.cwnd, want[r]);
		CU_ASSERT_EQUAL(m.flight, want[r]);
	}
	/* Then avoidance: one MSS per RTT (byte counting, remainder carried). */
	for (int r = 0; r < 20; r++) {
		uint64_t before = m.cc.cwnd;

		model_round(&m);
		CU_ASSERT(m.cc.cwnd - before >= MSS * 98 / 100);
		CU_ASSERT(m.cc.cwnd - before <= MSS);
	}
	CU_ASSERT(m.cc.cwnd >= 80000 + 20 * MSS - MSS / 2);
	CU_ASSERT(m.cc.cwnd <= 80000 + 20 * MSS);
	CU_ASSERT_EQUAL(m.losses, 0);
	CU_ASSERT_EQUAL(m.cc.ssthresh, 80000);
}

static void
test_single_loss(void)
{
	uint64_t after, ssthresh, seq;

	start_in_avoidance(50000);
	CU_ASSERT(m.cc.cwnd > 52000 && m.cc.cwnd < 56000);
	/* Drop a packet in the middle of the next window. */
	seq = m.next_seq + 20;
	model_drop(&m, seq);
	model_round(&m);
	model_round(&m);
	CU_ASSERT_EQUAL(m.losses, 1);
	CU_ASSERT_EQUAL(m.reductions, 1);
	CU_ASSERT_TRUE(m.cc.in_recovery);
	/*
	 * ssthresh = cwnd = cwnd / 2, as Linux's Reno: the window before the
	 * loss, not the flight (the window less the lost packet and the
	 * packet just acked, two packets short of it).
	 */
	after = m.loss_cwnd / 2;
	CU_ASSERT_EQUAL(m.cc.ssthresh, after);
	CU_ASSERT_EQUAL(m.cc.cwnd, after);
	CU_ASSERT(m.loss_flight < m.loss_cwnd);
	ssthresh = after;
	printf("\n  loss at cwnd %llu, flight %llu: cwnd %llu\n", (unsigned long long)m.loss_cwnd,
		(unsigned long long)m.loss_flight, (unsigned long long)m.cc.cwnd);
	/*
	 * No growth until recovery ends, in the next round: the acks before
	 * the first packet sent after the loss earn nothing.
	 */
	CU_ASSERT_EQUAL(model_finish_recovery(&m, 3), 1);
	CU_ASSERT_FALSE(m.cc.in_recovery);
	CU_ASSERT(m.cc.cwnd >= after && m.cc.cwnd < after + MSS / 2);
	/*
	 * Then linear growth, one MSS per RTT (a little less: a window of
	 * n.x MSS sends n packets, whose acks earn n/n.x MSS), no reduction.
	 */
	after = m.cc.cwnd;
	for (int r = 0; r < 30; r++) {
		uint64_t before = m.cc.cwnd;

		model_round(&m);
		CU_ASSERT(m.cc.cwnd - before >= MSS * 95 / 100);
		CU_ASSERT(m.cc.cwnd - before <= MSS);
	}
	CU_ASSERT(m.cc.cwnd >= after + 29 * MSS && m.cc.cwnd <= after + 30 * MSS);
	CU_ASSERT_EQUAL(m.reductions, 1);
	CU_ASSERT_EQUAL(m.cc.ssthresh, ssthresh);
}

static void
test_losses_in_one_window(void)
{
	uint64_t first, seq = 0;

	start_in_avoidance(50000);
	/* Four drops in one window, spread over it. */
	seq = m.next_seq;
	for (int i = 0; i < 4; i++)
		model_drop(&m, seq + 5 + 12 * i);
	model_round(&m);
	model_round(&m);
	CU_ASSERT_EQUAL(m.losses, 4);
	CU_ASSERT_EQUAL(m.reductions, 1);
	first = m.cc.cwnd;
	CU_ASSERT_EQUAL(first, m.loss_cwnd / 2);
	CU_ASSERT_EQUAL(m.cc.ssthresh, first);
	CU_ASSERT_EQUAL(model_finish_recovery(&m, 3), 1);
	CU_ASSERT_EQUAL(m.reductions, 1);
	printf("\n  4 losses at cwnd %llu, flight %llu: cwnd %llu, %llu after recovery\n",
		(unsigned long long)m.loss_cwnd, (unsigned long long)m.loss_flight,
		(unsigned long long)first, (unsigned long long)m.cc.cwnd);
	CU_ASSERT(m.cc.cwnd >= first && m.cc.cwnd < first + MSS);
	/* A loss in a later window is a new congestion event and halves again. */
	for (int r = 0; r < 5; r++)
		model_round(&m);
	model_drop(&m, m.next_seq + 3);
	model_round(&m);
	model_round(&m);
	CU_ASSERT_EQUAL(m.losses, 5);
	CU_ASSERT_EQUAL(m.reductions, 2);
	/* Half the window, which grew by about one MSS per round in the five
	 * rounds, the one that found the loss and the end of the recovery. */
	CU_ASSERT_EQUAL(m.cc.cwnd, m.loss_cwnd / 2);
	CU_ASSERT(m.cc.cwnd <= (first + 7 * MSS) / 2 && m.cc.cwnd >= (first + 5 * MSS) / 2);
}

static void
test_rto(void)
{
	uint64_t flight, ssthresh, largest, want;
	unsigned int losses, rounds = 0;

	start_in_avoidance(50000);
	flight = m.flight;
	ssthresh = m.cc.cwnd / 2;
	largest = m.next_seq - 1;
	CU_ASSERT(flight > 52000);
	losses = m.losses;
	model_rto(&m);
	/* Loss window of one MSS, ssthresh = cwnd / 2, recovery point recorded. */
	CU_ASSERT_EQUAL(m.cc.ssthresh, ssthresh);
	CU_ASSERT_EQUAL(m.cc.cwnd, MSS);
	CU_ASSERT_FALSE(m.cc.in_recovery);
	CU_ASSERT_EQUAL(m.cc.recovery_seq, largest);
	/* The packets the channel then declared lost did not reduce anything. */
	CU_ASSERT_EQUAL(m.losses, losses + flight / MSS);
	CU_ASSERT_EQUAL(m.reductions, 0);
	CU_ASSERT_EQUAL(m.flight, MSS);
	/* Slow start again: 2, 4, 8, 16 MSS per RTT ... */
	CU_ASSERT(ssthresh > 16 * MSS && ssthresh <= 32 * MSS);
	for (want = 2 * MSS; want < ssthresh; want *= 2) {
		model_round(&m);
		rounds++;
		CU_ASSERT_EQUAL(m.cc.cwnd, want);
	}
	CU_ASSERT_EQUAL(rounds, 4);
	/* ... to ssthresh in the fifth round (the acks beyond it earn avoidance growth) ... */
	model_round(&m);
	CU_ASSERT(m.cc.cwnd >= ssthresh && m.cc.cwnd < ssthresh + MSS / 2);
	/* ... then linear. */
	for (int r = 0; r < 5; r++) {
		uint64_t before = m.cc.cwnd;

		model_round(&m);
		/* A window of 26.96 MSS sends 26 packets: 949 bytes, not 964, after the carry. */
		CU_ASSERT(m.cc.cwnd - before >= MSS * 94 / 100 && m.cc.cwnd - before <= MSS);
	}
	CU_ASSERT_EQUAL(m.cc.ssthresh, ssthresh);
	CU_ASSERT_EQUAL(m.reductions, 0);
}

static void
test_minimum_window(void)
{
	struct sst_cc_loss_event loss = {.now = 0, .bytes = MSS};

	/*
	 * A loss every other round from the initial window down: ssthresh
	 * halves to the floor of two MSS and stays there; windows of two
	 * packets lose their tail and rely on the time threshold.
	 */
	model_init(&m, "newreno", MSS, RTT);
	model_start(&m);
	for (int r = 0; r < 40; r++) {
		if (r % 2 == 0)
			model_drop(&m, m.next_seq);
		model_round(&m);
		CU_ASSERT(m.cc.cwnd >= 2 * MSS);
		CU_ASSERT(m.cc.ssthresh >= 2 * MSS);
	}
	printf("\n  %u losses, %u reductions, smallest window %llu\n", m.losses, m.reductions,
		(unsigned long long)m.min_cwnd);
	CU_ASSERT(m.reductions >= 10);
	CU_ASSERT_EQUAL(m.min_cwnd, 2 * MSS);
	CU_ASSERT_EQUAL(m.cc.ssthresh, 2 * MSS);
	/* A timeout goes below it, to one MSS, and only a timeout does. */
	m.ndrop = 0;
	model_rto(&m);
	CU_ASSERT_EQUAL(m.cc.cwnd, MSS);
	CU_ASSERT_EQUAL(m.cc.ssthresh, 2 * MSS);
	CU_ASSERT_EQUAL(m.min_cwnd, MSS);
	model_round(&m);
	CU_ASSERT_EQUAL(m.cc.cwnd, 2 * MSS);
	/* A loss with nothing left in flight still leaves two MSS. */
	loss.seq = m.next_seq - 1;
	loss.largest_sent = m.next_seq - 1;
	loss.bytes_in_flight = 0;
	sst_cc_on_loss(&m.cc, &loss);
	CU_ASSERT_EQUAL(m.cc.cwnd, 2 * MSS);
	CU_ASSERT_EQUAL(m.cc.ssthresh, 2 * MSS);
	CU_ASSERT_TRUE(m.cc.in_recovery);
}

static void
test_app_limited(void)
{
	uint64_t cwnd;

	/* Application-limited acks earn nothing, in slow start or avoidance. */
	model_init(&m, "newreno", MSS, RTT);
	model_start(&m);
	m.app_limited = true;
	for (int r = 0; r < 5; r++)
		model_round(&m);
	CU_ASSERT_EQUAL(m.cc.cwnd, 10000);
	m.app_limited = false;
	model_round(&m);
	CU_ASSERT_EQUAL(m.cc.cwnd, 20000);
	m.cc.ssthresh = 20000;
	model_round(&m);
	cwnd = m.cc.cwnd;
	CU_ASSERT(cwnd > 20000);
	m.app_limited = true;
	for (int r = 0; r < 5; r++)
		model_round(&m);
	CU_ASSERT_EQUAL(m.cc.cwnd, cwnd);
}

/* Sending after idle (cc_model.h). */
static void
test_restart_after_idle(void)
{
	model_check_restart_after_idle("newreno", MSS);
}

/* The first flight lost (cc_model.h). */
static void
test_rto_before_first_sample(void)
{
	model_check_rto_before_first_sample("newreno", MSS);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_slow_start),
	SST_TEST(test_single_loss),
	SST_TEST(test_losses_in_one_window),
	SST_TEST(test_rto),
	SST_TEST(test_minimum_window),
	SST_TEST(test_app_limited),
	SST_TEST(test_rto_before_first_sample),
	SST_TEST(test_restart_after_idle),
	SST_TEST_END,
};

SST_TEST_MAIN("newreno", cases)
