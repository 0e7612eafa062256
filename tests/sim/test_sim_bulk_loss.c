/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One bulk stream over lossy links (issue 19, docs/evaluation.md sections
 * 1 and 2), counted from the sender's channel trace and the links' counters:
 * congestion events (the window going down), packets declared lost, and
 * among them those the link did not lose (spurious: an ack lost, a timer
 * too eager).
 *  - Acks lost next to a gap: the word that ends the run below a gap (a
 *    loss, or a number the sender skipped, one every 32 to 288 packets) is
 *    the only one that can cover that run. Every first copy of it is
 *    dropped here (on an otherwise lossless link); no received packet may
 *    be declared lost, and the window may not come down for it.
 *  - The first flight lost: a timeout before any RTT sample must leave
 *    ssthresh alone (slow start finds the path's window).
 *  - The evaluation's lossy links (WiFi-like 18 Mbit/s x 20 ms, mobile-like
 *    50 Mbit/s x 60 ms, 0.1 % random loss each way, acks included, a
 *    bottleneck queue of one round trip as sst-linkem's default): NewReno
 *    reaches at least 80 % of the Mathis et al. rate
 *    MSS / RTT * sqrt(3 / (2 p)) (or of the link, whichever is lower).
 * SST_SIM_SEED=<n> replays another seed; SST_BULK_LOSS_TRACE=1 prints the
 * window at every change.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sst_channel.h"
#include "sst_test.h"
#include "stream_world.h"

static uint64_t seed;

enum {
	/* A full packet's stream payload: the channel MTU (1232) less the
	 * channel header and trailer (12) and the stream header (8). */
	FULL_WRITE = 1212,
	GAPS_MAX = 64, /* ack words waiting to be dropped (a ring) */
};

/* What the sender's channel traced. */
struct cc_count {
	uint64_t cwnd;		     /* the latest window */
	uint64_t decreases;	     /* congestion events: the window went down */
	uint64_t lost_data;	     /* ack-eliciting packets declared lost */
	uint64_t rto;		     /* timeouts */
	uint64_t ssthresh_after_rto; /* at the first window change after the first timeout */
	bool print;
};

static void
on_trace(void *ctx, const struct sst_channel_trace *t)
{
	struct cc_count *c = ctx;

	switch (t->kind) {
	case SST_CHANNEL_TRACE_CWND:
		if (t->v[0] < c->cwnd)
			c->decreases++;
		if (c->print)
			printf("\n  %.6f cwnd %" PRIu64 " ssthresh %" PRIu64 " flight %" PRIu64,
				(double)t->now / 1e9, t->v[0], t->v[1], t->v[2]);
		if (c->rto == 1 && c->ssthresh_after_rto == 0)
			c->ssthresh_after_rto = t->v[1];
		c->cwnd = t->v[0];
		break;
	case SST_CHANNEL_TRACE_LOSS:
		if (t->v[1] != 0)
			c->lost_data++;

		break;
	case SST_CHANNEL_TRACE_RTO:
		c->rto++;
		break;
	default:
		break;
	}
}

/* The words to drop: the 24-bit tops of runs below a skipped number. */
static struct {
	uint32_t top[GAPS_MAX];
	unsigned int head, tail;
	uint32_t last_seq; /* a's previous packet, + 1 */
	uint64_t dropped;
} gaps;

static uint32_t
word_at(const struct rte_mbuf *m, uint32_t off)
{
	uint8_t b[4];
	const uint8_t *p = rte_pktmbuf_read(m, off, sizeof(b), b);

	return p == NULL ? 0 : (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * a's packets show where it skipped a number (its packets leave in
 * sequence order); b's first packet whose ack word ends at the number
 * below a skip is dropped.
 */
static bool
drop_gap_words(struct world *w, int side, uint16_t port, const struct rte_mbuf *m)
{
	uint32_t word;

	RTE_SET_USED(w);
	RTE_SET_USED(port);
	if (side == 0) {
		uint32_t seq = word_at(m, 0);

		if (gaps.last_seq != 0 && seq == gaps.last_seq + 1 &&
			gaps.head - gaps.tail < GAPS_MAX)
			gaps.top[gaps.head++ % GAPS_MAX] = seq - 2;
		gaps.last_seq = seq + 1;
		return false;
	}
	word = word_at(m, 4);
	/* A word past the target: the run was cut short by a real loss. */
	while (gaps.head != gaps.tail && word > gaps.top[gaps.tail % GAPS_MAX])
		gaps.tail++;
	if (gaps.head != gaps.tail && word == gaps.top[gaps.tail % GAPS_MAX]) {
		gaps.tail++;
		gaps.dropped++;
		return true;
	}
	return false;
}

/* a's first flight (what it sends in the first 0.5 s: the stream's Init
 * and the initial window, before the 1 s initial RTO) is lost, as behind
 * a queue another flow keeps full. */
static bool
drop_first_flight(struct world *w, int side, uint16_t port, const struct rte_mbuf *m)
{
	RTE_SET_USED(port);
	RTE_SET_USED(m);
	return side == 0 && sim_now(w->sim) < SST_NSEC_PER_SEC / 2;
}

/*
 * a's data packets handed to the link at one instant after the warm-up: an
 * ack-clocked sender's pairs are normal, a third and more is what a full
 * queue drops (docs/evaluation.md section 2, session 16).
 */
static struct {
	bool (*filter)(struct world *, int, uint16_t, const struct rte_mbuf *);
	sst_time_t from, at;
	unsigned int len;
	uint64_t sent, piled;
} runs;

static bool
count_runs(struct world *w, int side, uint16_t port, const struct rte_mbuf *m)
{
	sst_time_t now = sim_now(w->sim);

	if (side == 0 && rte_pktmbuf_pkt_len(m) > FULL_WRITE && now >= runs.from) {
		if (now != runs.at) {
			runs.at = now;
			runs.len = 0;
		}
		runs.sent++;
		runs.piled += ++runs.len > 2;
	}
	return runs.filter != NULL && runs.filter(w, side, port, m);
}

struct bulk_result {
	double piled;	       /* percent of a's data packets sent third or later at one instant */
	double rate;	       /* goodput after the first 2 s, bit/s */
	double mathis;	       /* the NewReno-with-SACK expectation, bit/s */
	uint64_t data_dropped; /* data-direction packets the link lost or dropped */
	uint64_t ack_dropped;  /* the other direction's */
	struct cc_count cc;
};

/*
 * One bulk stream from a to b for @p secs of virtual time over @p rate_bps
 * with a one-way delay @p delay, random loss @p loss from a to b and
 * @p ack_loss back, and a tx filter (NULL: none).
 */
static void
run_bulk(const char *name, uint64_t rate_bps, sst_time_t delay, double loss, double ack_loss,
	unsigned int secs, bool (*filter)(struct world *, int, uint16_t, const struct rte_mbuf *),
	struct bulk_result *r)
{
	struct world_params wp;
	struct sst_simlink_params back;
	struct world *w;
	struct flow *f;
	struct sst_simlink_stats ab, ba;
	struct sst_channel_info info;
	sst_time_t warm = 2 * SST_NSEC_PER_SEC, end = (sst_time_t)secs * SST_NSEC_PER_SEC;
	uint64_t got0;
	/* sst-linkem's default queue: one round trip of the rate, >= 32 frames. */
	uint64_t queue_bytes = rate_bps / 8 * (2 * delay) / SST_NSEC_PER_SEC;
	double rtt_s;

	memset(&gaps, 0, sizeof(gaps));
	world_params_link(&wp, seed, rate_bps, delay, 0);
	wp.link.loss = loss;
	wp.link.queue_bytes = queue_bytes > 32 * 1500 ? queue_bytes : 32 * 1500;
	w = world_create(&wp);
	back = wp.link;
	back.loss = ack_loss;
	CU_ASSERT_EQUAL(sst_simlink_set_params(sim_link_dir(w->links[0], 1), &back), 0);
	w->unchecked = true;
	/* One full packet per write, as sst-perf's coalesced writes give
	 * (the scenarios' 1800-byte writes make every other packet half full). */
	w->chunk = FULL_WRITE;
	memset(&runs, 0, sizeof(runs));
	runs.filter = filter;
	runs.from = warm;
	w->tx_filter = count_runs;
	memset(&r->cc, 0, sizeof(r->cc));
	r->cc.print = getenv("SST_BULK_LOSS_TRACE") != NULL;
	sst_channel_set_trace(sst_stream_chan_channel(w->ep[0].chans[0]), on_trace, &r->cc);
	f = world_flow_start(w, UINT64_C(1) << 40, 0, 0);
	world_run_until(w, warm);
	got0 = f->got[1];
	world_run_until(w, end);
	r->rate = (double)(f->got[1] - got0) * 8 / ((double)(end - warm) / 1e9);
	r->piled = runs.sent > 0 ? 100.0 * (double)runs.piled / (double)runs.sent : 0;
	sst_simlink_stats_get(sim_link_dir(w->links[0], 0), &ab);
	sst_simlink_stats_get(sim_link_dir(w->links[0], 1), &ba);
	r->data_dropped = ab.dropped_loss + ab.dropped_queue;
	r->ack_dropped = ba.dropped_loss + ba.dropped_queue;
	sst_channel_info(sst_stream_chan_channel(w->ep[0].chans[0]), &info);
	/* Mathis et al.: MSS / RTT * C / sqrt(p), C = sqrt(3/2), over the
	 * smoothed RTT at the end (queueing included), capped by the link. */
	rtt_s = (double)info.srtt / 1e9;
	r->mathis = loss > 0 ? FULL_WRITE * 8.0 / rtt_s * sqrt(1.5 / loss) : (double)rate_bps;
	if (r->mathis > (double)rate_bps)
		r->mathis = (double)rate_bps;
	printf("\n  %s: %.2f Mbit/s (Mathis %.2f), srtt %.1f ms; data dropped %" PRIu64
	       " (queue %" PRIu64 "), acks dropped %" PRIu64 " (+ %" PRIu64
	       " by the test); declared lost %" PRIu64 ", congestion events %" PRIu64
	       ", rto %" PRIu64 "; third and later at one instant %.2f %% (seed %" PRIu64 ")\n",
		name, r->rate / 1e6, r->mathis / 1e6, rtt_s * 1e3, r->data_dropped,
		ab.dropped_queue, r->ack_dropped, gaps.dropped, r->cc.lost_data, r->cc.decreases,
		r->cc.rto, r->piled, wp.seed);
	world_destroy(w);
}

static void
test_gap_ack_lost(void)
{
	struct bulk_result r;

	run_bulk("18 Mbit/s x 20 ms, the first word below each skip dropped", 18 * 1000 * 1000,
		10 * SST_NSEC_PER_MSEC, 0, 0, 10, drop_gap_words, &r);
	CU_ASSERT(gaps.dropped >= 30);
	/* Only what overflowed the queue is lost; the window saws on that
	 * alone and fills the link. */
	CU_ASSERT_EQUAL(r.cc.lost_data, r.data_dropped);
	CU_ASSERT(r.cc.decreases <= r.data_dropped);
	CU_ASSERT_EQUAL(r.cc.rto, 0);
	CU_ASSERT(r.rate >= 0.9 * 18e6);
}

/*
 * The first flight lost: the timer fires on the initial RTO (1 s) with no
 * RTT sample. The flight then is the handshake's, not a measure of the
 * path, so ssthresh must stay and slow start find the window (it used to
 * become 2 packets: congestion avoidance from 2 packets, one more per
 * round trip, on a 50 Mbit/s x 60 ms path).
 */
static void
test_first_flight_lost(void)
{
	struct bulk_result r;

	run_bulk("50 Mbit/s x 60 ms, the first flight lost", 50 * 1000 * 1000,
		30 * SST_NSEC_PER_MSEC, 0, 0, 6, drop_first_flight, &r);
	CU_ASSERT(r.cc.rto >= 1);
	CU_ASSERT_EQUAL(r.cc.ssthresh_after_rto, UINT64_MAX);
	CU_ASSERT(r.rate >= 0.5 * 50e6);
}

/* NewReno on a lossy link: the Mathis rate, no more congestion events
 * than losses. */
static void
check_lossy(const char *name, uint64_t rate_bps, sst_time_t delay)
{
	struct bulk_result r;

	run_bulk(name, rate_bps, delay, 0.001, 0.001, 20, NULL, &r);
	CU_ASSERT(r.rate >= 0.8 * r.mathis);
	CU_ASSERT(r.cc.decreases <= r.data_dropped);
	/* What an ack frees past two packets leaves at the pacing rate. */
	CU_ASSERT(r.piled < 0.5);
}

static void
test_wifi(void)
{
	check_lossy("wifi 18 Mbit/s x 20 ms, 0.1 % loss", 18 * 1000 * 1000, 10 * SST_NSEC_PER_MSEC);
}

static void
test_mobile(void)
{
	check_lossy(
		"mobile 50 Mbit/s x 60 ms, 0.1 % loss", 50 * 1000 * 1000, 30 * SST_NSEC_PER_MSEC);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_gap_ack_lost),
	SST_TEST(test_first_flight_lost),
	SST_TEST(test_wifi),
	SST_TEST(test_mobile),
	SST_TEST_END,
};

int
main(void)
{
	return world_test_main("sim_bulk_loss", cases, &seed);
}
