/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of per-stream flow control (lib/stream/stream_flowctl.c): the
 * window byte advertised for given buffer states (the 65536 -> 0x10
 * default, the 2 x mss floor while only out-of-order data is buffered);
 * receiver silly-window avoidance of explicit updates; auto-tuning round
 * by round and in a simulated connection (a fast application doubles the
 * window per round trip up to the maximum, a slow one settles near twice
 * its read rate per round trip); sender accounting (never more than
 * credit - in flight), stale window updates, the sender silly-window
 * rule; strict and non-strict receiver verdicts.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "sst_test.h"
#include "stream_flowctl.h"

#define MSS 1200

static void
test_init_errors(void)
{
	struct sst_flowctl_rx rx;
	struct sst_flowctl_tx tx;

	CU_ASSERT_EQUAL(sst_flowctl_rx_init(NULL, 65536, 65536, MSS, true), -EINVAL);
	CU_ASSERT_EQUAL(sst_flowctl_rx_init(&rx, 65536, 65536, 0, true), -EINVAL);
	CU_ASSERT_EQUAL(sst_flowctl_rx_init(&rx, 65537, 65536, MSS, true), -EINVAL);
	CU_ASSERT_EQUAL(sst_flowctl_rx_init(&rx, 2399, 65536, MSS, true), -EINVAL);
	CU_ASSERT_EQUAL(
		sst_flowctl_rx_init(&rx, 65536, SST_FLOWCTL_BUF_MAX + 1u, MSS, true), -EINVAL);
	CU_ASSERT_EQUAL(sst_flowctl_rx_init(&rx, 2400, SST_FLOWCTL_BUF_MAX, MSS, true), 0);
	CU_ASSERT_EQUAL(sst_flowctl_tx_init(NULL, MSS, 16), -EINVAL);
	CU_ASSERT_EQUAL(sst_flowctl_tx_init(&tx, 0, 16), -EINVAL);
	CU_ASSERT_EQUAL(sst_flowctl_tx_init(&tx, MSS, 16), 0);
	CU_ASSERT_EQUAL(tx.credit, 65535);
}

static void
test_window_byte(void)
{
	struct sst_flowctl_rx rx;

	CU_ASSERT_EQUAL_FATAL(sst_flowctl_rx_init(&rx, SST_FLOWCTL_BUF_DEFAULT,
				      SST_FLOWCTL_BUF_DEFAULT, MSS, true),
		0);
	/* The prototype's default: 65536 free gives e = 16. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_window(&rx), 0x10);
	CU_ASSERT_EQUAL(sst_flowctl_rx_window(&rx), SST_FLOWCTL_WINDOW_DEFAULT);
	/* 64536 free: 2^16 - 1 > 64536 >= 2^15 - 1. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 0, 1000, 0), 0);
	CU_ASSERT_EQUAL(sst_flowctl_rx_window(&rx), 15);
	/* In order + out of order both count: 65536 - 1000 - 64000 = 536. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 0, 1000, 64000), 0);
	CU_ASSERT_EQUAL(sst_flowctl_rx_window(&rx), 9);
	/* Only out-of-order data: at least 2 x mss = 2400 free, e = 11. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 0, 0, 65000), 0);
	CU_ASSERT_EQUAL(sst_flowctl_rx_window(&rx), 11);
	CU_ASSERT_EQUAL(sst_window_credit(sst_flowctl_rx_window(&rx)), 2047);
	/* ...also when it fills the buffer (a tolerated overrun)... */
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 0, 0, 70000), 0);
	CU_ASSERT_EQUAL(sst_flowctl_rx_window(&rx), 11);
	/* ...but not once in-order data is waiting: 436 free, e = 8. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 0, 100, 65000), 0);
	CU_ASSERT_EQUAL(sst_flowctl_rx_window(&rx), 8);
	/* The floor never lowers a larger free space: 64536 free. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 0, 0, 1000), 0);
	CU_ASSERT_EQUAL(sst_flowctl_rx_window(&rx), 15);
	/* Full buffer of in-order data: window 0, credit 0. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 0, 65536, 0), 0);
	CU_ASSERT_EQUAL(sst_flowctl_rx_window(&rx), 0);
	CU_ASSERT_EQUAL(sst_window_credit(0), 0);
	/* Read offsets never go back. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 5000, 0, 0), 0);
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 4999, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(rx.read_off, 5000);
	CU_ASSERT_EQUAL(sst_flowctl_rx_window(&rx), 16);
}

static void
test_update_due(void)
{
	struct sst_flowctl_rx rx;
	uint8_t w = 0xff;

	CU_ASSERT_EQUAL_FATAL(sst_flowctl_rx_init(&rx, 65536, 65536, MSS, true), 0);
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 0, 65536, 0), 0);
	/* Nothing advertised yet: the sender's initial credit stands. */
	CU_ASSERT_FALSE(sst_flowctl_rx_update_due(&rx));
	CU_ASSERT_EQUAL(sst_flowctl_rx_advertise(&rx, 1, &w), 0);
	CU_ASSERT_EQUAL(w, 0);
	CU_ASSERT_EQUAL(rx.adv_credit, 0);
	CU_ASSERT_FALSE(sst_flowctl_rx_update_due(&rx));
	/* Small reads: credit 511, then 2047, both below 2 x mss. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 1000, 64536, 0), 0);
	CU_ASSERT_FALSE(sst_flowctl_rx_update_due(&rx));
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 4000, 61536, 0), 0);
	CU_ASSERT_FALSE(sst_flowctl_rx_update_due(&rx));
	/* 5000 read: credit 4095, at least 2400 more than advertised. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 5000, 60536, 0), 0);
	CU_ASSERT_TRUE(sst_flowctl_rx_update_due(&rx));
	CU_ASSERT_EQUAL(sst_flowctl_rx_advertise(&rx, 2, &w), 0);
	CU_ASSERT_EQUAL(w, 12);
	CU_ASSERT_FALSE(sst_flowctl_rx_update_due(&rx));
	/* Sequence numbers must grow. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_advertise(&rx, 2, &w), -EINVAL);
	CU_ASSERT_EQUAL(sst_flowctl_rx_advertise(&rx, 1, &w), -EINVAL);
	/* 3000 more read: 8000 free is still e = 12, no growth at all. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 8000, 57536, 0), 0);
	CU_ASSERT_FALSE(sst_flowctl_rx_update_due(&rx));
	/* A big read: 40000 free, credit 32767. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 40000, 25536, 0), 0);
	CU_ASSERT_TRUE(sst_flowctl_rx_update_due(&rx));
	/* A shrinking window never asks for an update. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_advertise(&rx, 3, &w), 0);
	CU_ASSERT_EQUAL(w, 15);
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 40000, 60000, 0), 0);
	CU_ASSERT_FALSE(sst_flowctl_rx_update_due(&rx));
	CU_ASSERT_EQUAL(rx.stats.adverts, 3);

	/* A small buffer: the step is target / 4 = 1024, not 2400. */
	CU_ASSERT_EQUAL_FATAL(sst_flowctl_rx_init(&rx, 4096, 4096, MSS, true), 0);
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 0, 4096, 0), 0);
	CU_ASSERT_EQUAL(sst_flowctl_rx_advertise(&rx, 1, &w), 0);
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 1100, 2996, 0), 0);
	CU_ASSERT_FALSE(sst_flowctl_rx_update_due(&rx)); /* credit 1023 */
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 2100, 1996, 0), 0);
	CU_ASSERT_TRUE(sst_flowctl_rx_update_due(&rx)); /* credit 2047 */
}

/*
 * Issue 17: sst_flowctl_rx_update_due() answers no at once while the free
 * space is below the next window byte's credit. Over a random walk of
 * reads, arrivals, adverts and acknowledgments (auto-tuning rounds
 * included) it must answer as the full computation,
 * sst_flowctl_rx_update_worth(), and both answers must occur.
 */
static void
test_update_due_fast_path(void)
{
	static const uint32_t mins[] = {2400, 4096, 65536};
	uint64_t x = 0x9e3779b97f4a7c15u;
	uint32_t yes = 0, no = 0;

	for (size_t b = 0; b < RTE_DIM(mins); b++) {
		struct sst_flowctl_rx rx;
		uint64_t read = 0, ready = 0, ooo = 0, seq = 0;
		uint8_t w;

		CU_ASSERT_EQUAL_FATAL(sst_flowctl_rx_init(&rx, mins[b], 1 << 22, MSS, false), 0);
		for (int i = 0; i < 200000; i++) {
			uint32_t r;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			r = (uint32_t)(x >> 32);
			switch (r % 5) {
			case 0: /* a segment arrives, in order or above a hole */
				if (r & 0x100)
					ooo += (r >> 9) % (2 * MSS);
				else
					ready += (r >> 9) % (2 * MSS);
				break;
			case 1: /* the application reads some or all */
				r = (uint32_t)((r >> 3) % (ready + 1));
				read += r;
				ready -= r;
				break;
			case 2: /* a hole fills */
				ready += ooo / 2;
				ooo -= ooo / 2;
				break;
			case 3:
				CU_ASSERT_EQUAL_FATAL(sst_flowctl_rx_advertise(&rx, ++seq, &w), 0);
				break;
			default:
				sst_flowctl_rx_on_ack(&rx, seq - (r >> 3) % 3);
				break;
			}
			CU_ASSERT_EQUAL_FATAL(
				sst_flowctl_rx_set_buffered(&rx, read, ready, ooo), 0);
			if (sst_flowctl_rx_update_worth(&rx))
				yes++;
			else
				no++;
			CU_ASSERT_EQUAL_FATAL(
				sst_flowctl_rx_update_due(&rx), sst_flowctl_rx_update_worth(&rx));
		}
	}
	CU_ASSERT(yes > 1000 && no > 1000);
}

/*
 * The edge rule (a datagram's substream, never answered on, its bytes
 * counted as read as they arrive): the credit never grows, so only the
 * edge the sender knows says an update is due. It used to stall at the
 * initial credit (sst-perf, 20 x 200 KB datagrams, 1 run in 5).
 */
static void
test_edge_due(void)
{
	struct sst_flowctl_rx rx;
	uint8_t w;

	CU_ASSERT_EQUAL_FATAL(sst_flowctl_rx_init(&rx, 65536, 65536, MSS, true), 0);
	/* The sender knows the initial credit: edge 65535. */
	CU_ASSERT_EQUAL(rx.edge, 65535);
	CU_ASSERT_FALSE(sst_flowctl_rx_edge_due(&rx));
	/* Less than a step (2400) arrived and was counted as read. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 2000, 0, 0), 0);
	CU_ASSERT_FALSE(sst_flowctl_rx_edge_due(&rx));
	CU_ASSERT_FALSE(sst_flowctl_rx_update_due(&rx));
	/* The sender is at the edge: the credit is what it was, but an
	 * advert would move the edge by a step or more. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 65448, 0, 0), 0);
	CU_ASSERT_FALSE(sst_flowctl_rx_update_due(&rx));
	CU_ASSERT_TRUE(sst_flowctl_rx_edge_due(&rx));
	CU_ASSERT_EQUAL(sst_flowctl_rx_advertise(&rx, 1, &w), 0);
	CU_ASSERT_EQUAL(rx.edge, 65448 + 65535);
	CU_ASSERT_FALSE(sst_flowctl_rx_edge_due(&rx));
	/* Unread data does not move the edge: the credit shrinks with it. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 65448, 30000, 0), 0);
	CU_ASSERT_FALSE(sst_flowctl_rx_edge_due(&rx));
}

static void
test_autotune_rounds(void)
{
	struct sst_flowctl_rx rx;
	uint8_t w;

	CU_ASSERT_EQUAL_FATAL(sst_flowctl_rx_init(&rx, 16384, 262144, MSS, true), 0);
	CU_ASSERT_EQUAL(rx.target, 16384);
	/* No round running: acks do nothing. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_on_ack(&rx, 5), 0);
	CU_ASSERT_EQUAL(sst_flowctl_rx_advertise(&rx, 10, &w), 0);
	CU_ASSERT_EQUAL(w, 14);
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 5000, 0, 0), 0);
	/* Later adverts do not move the probe; earlier acks do not end it. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_advertise(&rx, 11, &w), 0);
	CU_ASSERT_EQUAL(sst_flowctl_rx_on_ack(&rx, 9), 0);
	CU_ASSERT_EQUAL(rx.target, 16384);
	/* 2 x 5000 + 2400 = 12400, raised to the minimum. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_on_ack(&rx, 10), 1);
	CU_ASSERT_EQUAL(sst_flowctl_rx_on_ack(&rx, 11), 0);
	CU_ASSERT_EQUAL(sst_flowctl_rx_advertise(&rx, 12, &w), 0);
	CU_ASSERT_EQUAL(rx.target, 16384);
	/* Round from read offset 5000 (probe 12): 40000 read, then the ack. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 45000, 0, 0), 0);
	CU_ASSERT_EQUAL(sst_flowctl_rx_advertise(&rx, 13, &w), 0);
	CU_ASSERT_EQUAL(w, 14); /* 16384 free: 2^14 - 1 */
	/* An ack of a later packet ends the round too (the probe's was lost). */
	CU_ASSERT_EQUAL(sst_flowctl_rx_on_ack(&rx, 13), 1);
	/* Data that came with the ack and is read before the next advert counts. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 50000, 0, 0), 0);
	/* 2 x 45000 + 2400 = 92400, in effect for the window at once. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_window(&rx), 16); /* 2^16 - 1 <= 92400 */
	CU_ASSERT_EQUAL(rx.target, 16384);
	CU_ASSERT_EQUAL(sst_flowctl_rx_advertise(&rx, 14, &w), 0);
	CU_ASSERT_EQUAL(w, 16);
	CU_ASSERT_EQUAL(rx.target, 92400);
	/* 200000 read: 402400, capped at the maximum. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&rx, 250000, 0, 0), 0);
	CU_ASSERT_EQUAL(sst_flowctl_rx_on_ack(&rx, 14), 1);
	CU_ASSERT_EQUAL(sst_flowctl_rx_advertise(&rx, 15, &w), 0);
	CU_ASSERT_EQUAL(rx.target, 262144);
	CU_ASSERT_EQUAL(w, 18);
	/* Nothing read for a round: back to the minimum. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_on_ack(&rx, 16), 1);
	CU_ASSERT_EQUAL(sst_flowctl_rx_advertise(&rx, 17, &w), 0);
	CU_ASSERT_EQUAL(rx.target, 16384);
	CU_ASSERT_EQUAL(w, 14);
	CU_ASSERT_EQUAL(rx.stats.retunes, 4);
}

/*
 * A simulated stream: one-way delay D ticks, no loss, unlimited congestion
 * window. Each tick the receiver takes the data that arrived (channel acks
 * of its packets first), the application reads (everything, or at most
 * `rate` bytes), and the receiver sends one packet carrying the window and
 * the acknowledgment of the bytes received since its last packet. The
 * sender applies arriving acks and window updates, then sends what
 * sst_flowctl_tx_sendable() allows from an endless queue, in mss segments
 * that acknowledge the receiver's packets (an empty packet when there is
 * no segment to send: the channel acknowledges every tick).
 */
#define D 5
#define QLEN 4096

struct sim_pkt {
	uint64_t tick; /* arrival */
	uint64_t seq;  /* rx -> tx: packet; tx -> rx: highest rx packet seen */
	uint64_t off;  /* tx -> rx */
	uint32_t len;  /* tx -> rx: payload; rx -> tx: bytes acknowledged */
	uint8_t window;
};

struct sim {
	struct sst_flowctl_rx rx;
	struct sst_flowctl_tx tx;
	struct sim_pkt to_rx[QLEN], to_tx[QLEN];
	unsigned int rx_head, rx_tail, tx_head, tx_tail;
	uint64_t rx_seq, tx_seen_seq, tx_off, received, unacked;
	uint64_t over_credit; /* sends beyond the credit */
	uint32_t targets[64]; /* target after each retune */
	unsigned int retunes;
};

static struct sim sim;

static void
sim_tick(struct sim *s, uint64_t t, uint64_t rate)
{
	uint64_t readable, n;
	bool tuned = false;
	uint8_t w;

	while (s->rx_head != s->rx_tail && s->to_rx[s->rx_head % QLEN].tick == t) {
		struct sim_pkt *p = &s->to_rx[s->rx_head++ % QLEN];

		if (sst_flowctl_rx_on_ack(&s->rx, p->seq) == 1)
			tuned = true;
		CU_ASSERT_EQUAL(p->off, s->received);
		CU_ASSERT_EQUAL(sst_flowctl_rx_check(&s->rx, p->off, p->len), SST_FLOWCTL_ACCEPT);
		s->received += p->len;
		s->unacked += p->len;
	}
	readable = s->received - s->rx.read_off;
	n = rate < readable ? rate : readable;
	CU_ASSERT_EQUAL(
		sst_flowctl_rx_set_buffered(&s->rx, s->rx.read_off + n, readable - n, 0), 0);
	CU_ASSERT_EQUAL(sst_flowctl_rx_advertise(&s->rx, ++s->rx_seq, &w), 0);
	if (tuned && s->retunes < 64)
		s->targets[s->retunes++] = s->rx.target;
	CU_ASSERT_FATAL(s->tx_tail - s->tx_head < QLEN);
	s->to_tx[s->tx_tail++ % QLEN] = (struct sim_pkt){
		.tick = t + D, .seq = s->rx_seq, .len = (uint32_t)s->unacked, .window = w};
	s->unacked = 0;

	while (s->tx_head != s->tx_tail && s->to_tx[s->tx_head % QLEN].tick == t) {
		struct sim_pkt *p = &s->to_tx[s->tx_head++ % QLEN];

		CU_ASSERT_EQUAL(sst_flowctl_tx_acked(&s->tx, p->len), 0);
		CU_ASSERT_EQUAL(sst_flowctl_tx_on_window(&s->tx, p->seq, p->window), 1);
		s->tx_seen_seq = p->seq;
	}
	n = sst_flowctl_tx_sendable(&s->tx, UINT64_MAX / 2, false);
	CU_ASSERT_EQUAL(n % MSS, 0);
	CU_ASSERT(n <= sst_flowctl_tx_allowance(&s->tx));
	if (n > 0 && s->tx.inflight + n > s->tx.credit)
		s->over_credit++;
	if (n == 0) {
		/* Nothing to send: the channel still acknowledges (Ack packet). */
		CU_ASSERT_FATAL(s->rx_tail - s->rx_head < QLEN);
		s->to_rx[s->rx_tail++ % QLEN] = (struct sim_pkt){
			.tick = t + D, .seq = s->tx_seen_seq, .off = s->tx_off, .len = 0};
	}
	for (; n > 0; n -= MSS) {
		CU_ASSERT_FATAL(s->rx_tail - s->rx_head < QLEN);
		s->to_rx[s->rx_tail++ % QLEN] = (struct sim_pkt){
			.tick = t + D, .seq = s->tx_seen_seq, .off = s->tx_off, .len = MSS};
		s->tx_off += MSS;
		sst_flowctl_tx_sent(&s->tx, MSS);
	}
}

static void
sim_init(struct sim *s, uint32_t min_buf, uint32_t max_buf)
{
	memset(s, 0, sizeof(*s));
	CU_ASSERT_EQUAL_FATAL(sst_flowctl_rx_init(&s->rx, min_buf, max_buf, MSS, true), 0);
	CU_ASSERT_EQUAL_FATAL(sst_flowctl_tx_init(&s->tx, MSS, sst_window_encode(min_buf)), 0);
}

static void
test_autotune_fast_app(void)
{
	const uint32_t max = 1 << 20;
	const uint32_t expect[6] = {33600, 67200, 132000, 264000, 525600, max};
	uint64_t t, prev_read = 0, per_rtt = 0;
	unsigned int i;

	sim_init(&sim, 16384, max);
	for (t = 0; t < 40 * 2 * D; t++) {
		sim_tick(&sim, t, UINT64_MAX);
		CU_ASSERT(sim.rx.target <= max);
		CU_ASSERT(sim.rx.ready + sim.rx.ooo <= max);
		if ((t + 1) % (2 * D) == 0) {
			per_rtt = sim.rx.read_off - prev_read;
			prev_read = sim.rx.read_off;
		}
	}
	/*
	 * One round per round trip (2 x D ticks). The first measures the
	 * initial credit, 16383 bytes = 13 whole segments: 2 x 15600 + 2400.
	 * Each later one doubles what was read, up to the maximum.
	 */
	CU_ASSERT_FATAL(sim.retunes >= 39);
	for (i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(sim.targets[i], expect[i]);
	for (i = 6; i < sim.retunes; i++)
		CU_ASSERT_EQUAL(sim.targets[i], max);
	/* At the top: credit 2^20 - 1, 873 whole segments per round trip. */
	CU_ASSERT_EQUAL(sim.rx.adv_window, 20);
	CU_ASSERT_EQUAL(per_rtt, 873 * MSS);
	/* A compliant sender never overruns a strict receiver. */
	CU_ASSERT_EQUAL(sim.rx.stats.overrun_drops, 0);
	CU_ASSERT_EQUAL(sim.over_credit, 0);
}

static void
test_autotune_slow_app(void)
{
	const uint64_t rate = 2000; /* bytes per tick: 20000 per round trip */
	uint64_t t;
	unsigned int i;

	sim_init(&sim, 8192, 1 << 20);
	for (t = 0; t < 60 * 2 * D; t++) {
		sim_tick(&sim, t, rate);
		CU_ASSERT(sim.rx.ready <= sim.rx.target + 2 * MSS);
	}
	/*
	 * Grows while the window limits the application, then settles at
	 * 2 x 20000 + 2 x mss = 42400 and stays there.
	 */
	CU_ASSERT_FATAL(sim.retunes >= 59);
	CU_ASSERT_EQUAL(sim.targets[0], 16800);
	for (i = 1; i < 5; i++)
		CU_ASSERT(sim.targets[i] > sim.targets[i - 1]);
	for (i = 5; i < sim.retunes; i++)
		CU_ASSERT_EQUAL(sim.targets[i], 42400);
	/* The application read at its rate once the window had grown. */
	CU_ASSERT(sim.rx.read_off >= 60 * 2 * D * rate - 50000);
	CU_ASSERT(sim.rx.read_off <= 60 * 2 * D * rate);
	CU_ASSERT_EQUAL(sim.rx.stats.overrun_drops, 0);
	CU_ASSERT_EQUAL(sim.over_credit, 0);
}

static void
test_tx_allowance(void)
{
	struct sst_flowctl_tx tx;
	uint64_t inflight = 0, credit = 65535, x = 88172645463325252ull;
	int i;

	CU_ASSERT_EQUAL_FATAL(sst_flowctl_tx_init(&tx, MSS, 16), 0);
	CU_ASSERT_EQUAL(sst_flowctl_tx_allowance(&tx), 65535);
	sst_flowctl_tx_sent(&tx, 60000);
	CU_ASSERT_EQUAL(sst_flowctl_tx_allowance(&tx), 5535);
	sst_flowctl_tx_sent(&tx, 10000); /* an overrun the caller forced */
	CU_ASSERT_EQUAL(sst_flowctl_tx_allowance(&tx), 0);
	CU_ASSERT_EQUAL(sst_flowctl_tx_sendable(&tx, 100, true), 0);
	CU_ASSERT_EQUAL(sst_flowctl_tx_acked(&tx, 20000), 0);
	CU_ASSERT_EQUAL(sst_flowctl_tx_allowance(&tx), 15535);
	CU_ASSERT_EQUAL(sst_flowctl_tx_lost(&tx, 50000), 0);
	CU_ASSERT_EQUAL(tx.inflight, 0);
	CU_ASSERT_EQUAL(sst_flowctl_tx_acked(&tx, 1), -ERANGE);
	CU_ASSERT_EQUAL(sst_flowctl_tx_lost(&tx, 1), -ERANGE);
	CU_ASSERT_EQUAL(tx.inflight, 0);

	/* Random sends, acks, losses and updates against a model. */
	for (i = 0; i < 100000; i++) {
		uint64_t r, pending, n;
		uint8_t w;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		r = x >> 8;
		switch (x % 4) {
		case 0:
			w = (uint8_t)(r % 22);
			CU_ASSERT_EQUAL(sst_flowctl_tx_on_window(&tx, (uint64_t)i + 1, w), 1);
			credit = (UINT64_C(1) << w) - 1;
			break;
		case 1:
			pending = r % 100000;
			n = sst_flowctl_tx_sendable(&tx, pending, (r & 1) != 0);
			CU_ASSERT(n <= pending);
			CU_ASSERT(inflight + n <= (credit > inflight ? credit : inflight));
			sst_flowctl_tx_sent(&tx, (uint32_t)n);
			inflight += n;
			break;
		case 2:
			n = inflight ? r % (inflight + 1) : 0;
			CU_ASSERT_EQUAL(sst_flowctl_tx_acked(&tx, (uint32_t)n), 0);
			inflight -= n;
			break;
		default:
			n = inflight ? r % (inflight + 1) : 0;
			CU_ASSERT_EQUAL(sst_flowctl_tx_lost(&tx, (uint32_t)n), 0);
			inflight -= n;
			break;
		}
		CU_ASSERT_EQUAL(tx.inflight, inflight);
		CU_ASSERT_EQUAL(
			sst_flowctl_tx_allowance(&tx), credit > inflight ? credit - inflight : 0);
	}
}

static void
test_tx_stale_updates(void)
{
	struct sst_flowctl_tx tx;

	CU_ASSERT_EQUAL_FATAL(sst_flowctl_tx_init(&tx, MSS, 16), 0);
	/* The first update counts whatever its number. */
	CU_ASSERT_EQUAL(sst_flowctl_tx_on_window(&tx, 5, 14), 1);
	CU_ASSERT_EQUAL(tx.credit, 16383);
	/* Reordered older packet: a larger window, still ignored. */
	CU_ASSERT_EQUAL(sst_flowctl_tx_on_window(&tx, 3, 20), 0);
	CU_ASSERT_EQUAL(tx.credit, 16383);
	/* The same packet again (a duplicate). */
	CU_ASSERT_EQUAL(sst_flowctl_tx_on_window(&tx, 5, 20), 0);
	CU_ASSERT_EQUAL(tx.credit, 16383);
	/* A newer update applies even when it shrinks the window. */
	CU_ASSERT_EQUAL(sst_flowctl_tx_on_window(&tx, 6, 10), 1);
	CU_ASSERT_EQUAL(tx.credit, 1023);
	/* The unused prototype bits are ignored. */
	CU_ASSERT_EQUAL(sst_flowctl_tx_on_window(&tx, 9, SST_WINDOW_SUBSTREAM | 12), 1);
	CU_ASSERT_EQUAL(tx.credit, 4095);
	CU_ASSERT_EQUAL(tx.window, 12);
	CU_ASSERT_EQUAL(sst_flowctl_tx_on_window(&tx, 8, 0), 0);
	CU_ASSERT_EQUAL(tx.credit, 4095);
	CU_ASSERT_EQUAL(tx.stats.updates, 3);
	CU_ASSERT_EQUAL(tx.stats.stale_updates, 3);
}

static void
test_tx_sws(void)
{
	struct sst_flowctl_tx tx;

	CU_ASSERT_EQUAL_FATAL(sst_flowctl_tx_init(&tx, MSS, 12), 0); /* 4095 */
	CU_ASSERT_EQUAL(sst_flowctl_tx_sendable(&tx, 0, true), 0);
	/* More pending than fits: whole segments only, 3 x 1200. */
	CU_ASSERT_EQUAL(sst_flowctl_tx_sendable(&tx, 10000, false), 3600);
	CU_ASSERT_EQUAL(sst_flowctl_tx_sendable(&tx, 10000, true), 3600);
	/* Everything fits and ends a write: the short last segment goes. */
	CU_ASSERT_EQUAL(sst_flowctl_tx_sendable(&tx, 3000, true), 3000);
	/* Everything fits but more is coming: the short tail waits. */
	CU_ASSERT_EQUAL(sst_flowctl_tx_sendable(&tx, 3000, false), 2400);
	CU_ASSERT_EQUAL(sst_flowctl_tx_sendable(&tx, 500, false), 0);
	sst_flowctl_tx_sent(&tx, 3600); /* 495 left */
	/* 495 bytes of window: never cut a segment to fit them. */
	CU_ASSERT_EQUAL(sst_flowctl_tx_sendable(&tx, 6400, false), 0);
	CU_ASSERT_EQUAL(sst_flowctl_tx_sendable(&tx, 6400, true), 0);
	CU_ASSERT_EQUAL(sst_flowctl_tx_sendable(&tx, 600, true), 0);
	/* A short pushed segment that fits does go. */
	CU_ASSERT_EQUAL(sst_flowctl_tx_sendable(&tx, 400, true), 400);
	CU_ASSERT_EQUAL(sst_flowctl_tx_sendable(&tx, 495, true), 495);
	/* Room for exactly one full segment. */
	CU_ASSERT_EQUAL(sst_flowctl_tx_acked(&tx, 705), 0); /* 1200 left */
	CU_ASSERT_EQUAL(sst_flowctl_tx_sendable(&tx, 6400, false), 1200);
	CU_ASSERT_EQUAL(tx.stats.sws_waits, 7);
}

static void
test_rx_verdicts(void)
{
	struct sst_flowctl_rx strict, lax;
	uint8_t w;

	CU_ASSERT_EQUAL_FATAL(sst_flowctl_rx_init(&strict, 65536, 262144, MSS, true), 0);
	CU_ASSERT_EQUAL_FATAL(sst_flowctl_rx_init(&lax, 65536, 262144, MSS, false), 0);
	/* Before any advert: the initial credit, 65535 bytes from offset 0. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_check(&strict, 0, 1200), SST_FLOWCTL_ACCEPT);
	CU_ASSERT_EQUAL(sst_flowctl_rx_check(&strict, 64335, 1200), SST_FLOWCTL_ACCEPT);
	CU_ASSERT_EQUAL(sst_flowctl_rx_check(&strict, 64336, 1200), SST_FLOWCTL_DROP);
	CU_ASSERT_EQUAL(sst_flowctl_rx_check(&lax, 64336, 1200), SST_FLOWCTL_ACCEPT);
	/* Non-strict stops at read offset + max buffer. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_check(&lax, 261000, 1144), SST_FLOWCTL_ACCEPT);
	CU_ASSERT_EQUAL(sst_flowctl_rx_check(&lax, 261000, 1145), SST_FLOWCTL_DROP);
	CU_ASSERT_EQUAL(sst_flowctl_rx_check(&strict, 261000, 1144), SST_FLOWCTL_DROP);
	CU_ASSERT_EQUAL(strict.stats.overrun_drops, 2);
	CU_ASSERT_EQUAL(lax.stats.overrun_tolerated, 2);
	CU_ASSERT_EQUAL(lax.stats.overrun_max_drops, 1);

	/*
	 * 30000 buffered: credit 2^15 - 1, edge 62767. The initial credit is
	 * live until the advert is acknowledged.
	 */
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&strict, 0, 30000, 0), 0);
	CU_ASSERT_EQUAL(sst_flowctl_rx_advertise(&strict, 1, &w), 0);
	CU_ASSERT_EQUAL(w, 15);
	CU_ASSERT_EQUAL(sst_flowctl_rx_check(&strict, 64000, 1535), SST_FLOWCTL_ACCEPT);
	CU_ASSERT_EQUAL(sst_flowctl_rx_on_ack(&strict, 1), 1);
	CU_ASSERT_EQUAL(sst_flowctl_rx_check(&strict, 62000, 1000), SST_FLOWCTL_DROP);
	CU_ASSERT_EQUAL(sst_flowctl_rx_check(&strict, 61767, 1000), SST_FLOWCTL_ACCEPT);
	/* Data below the read offset (a resend) is never an overrun. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_set_buffered(&strict, 30000, 0, 0), 0);
	CU_ASSERT_EQUAL(sst_flowctl_rx_check(&strict, 0, 1200), SST_FLOWCTL_ACCEPT);
	/* Read everything: credit 65535 from 30000, edge 95535. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_advertise(&strict, 2, &w), 0);
	CU_ASSERT_EQUAL(w, 16);
	CU_ASSERT_EQUAL(sst_flowctl_rx_check(&strict, 95000, 535), SST_FLOWCTL_ACCEPT);
	CU_ASSERT_EQUAL(sst_flowctl_rx_check(&strict, 95000, 536), SST_FLOWCTL_DROP);
	/* Zero-length segments (Close) obey the same edge. */
	CU_ASSERT_EQUAL(sst_flowctl_rx_check(&strict, 95535, 0), SST_FLOWCTL_ACCEPT);
	CU_ASSERT_EQUAL(sst_flowctl_rx_check(&strict, 95536, 0), SST_FLOWCTL_DROP);
	CU_ASSERT_EQUAL(strict.stats.overrun_drops, 5);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_init_errors),
	SST_TEST(test_window_byte),
	SST_TEST(test_update_due),
	SST_TEST(test_update_due_fast_path),
	SST_TEST(test_edge_due),
	SST_TEST(test_autotune_rounds),
	SST_TEST(test_autotune_fast_app),
	SST_TEST(test_autotune_slow_app),
	SST_TEST(test_tx_allowance),
	SST_TEST(test_tx_stale_updates),
	SST_TEST(test_tx_sws),
	SST_TEST(test_rx_verdicts),
	SST_TEST_END,
};

SST_TEST_MAIN("stream_flowctl", cases)
