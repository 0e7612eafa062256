/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP-friendliness in the simulator (issue 19, docs/evaluation.md section
 * 2): an SST channel and a TCP-like reference channel share one drop-tail
 * bottleneck, as sst-perf and kernel TCP share sst-linkem's in
 * scripts/evaluate.sh's fair experiment.
 *
 * The reference is a channel driven as Linux drives TCP: it sends no run
 * of more than two packets at once (kernel TCP on the evaluation's wifi
 * link sent 0.2 to 0.4 % of its packets third or later in a run, where an
 * unpaced reference sent 3 to 4 % and lost them at the full queue as SST
 * did until session 16; docs/evaluation.md section 2), which the channel's
 * pacer with its two-packet quantum gives it as it gives SST, and it sets
 * ssthresh from the window at a loss (Linux's
 * tcp_reno_ssthresh(): half cwnd; CUBIC's beta * cwnd), as SST's NewReno
 * and CUBIC now do too (RFC 5681 says half the flight, which NewReno used
 * until issue 19), and it counts its window in whole packets as Linux does
 * (the channel does so for both flows since session 16). So the two flows
 * now send alike; what the tests hold is SST's share when it starts second
 * into a queue the reference filled. It is the registered controller ("tcp-reno" on "newreno", "tcp-cubic"
 * on "cubic"), so its growth and recovery are SST's to the byte; acks,
 * loss detection and packet sizes are the channel's for both
 * flows (1472 bytes: the evaluation's --mtu, a 1500-byte IP packet like
 * TCP's).
 *
 * The reference starts first and SST 1 s later (as in the evaluation, where
 * SST meets a queue TCP filled); shares are counted from what each
 * receiver got between 5 s and 60 s of virtual time, on a dsl-like link
 * (1.5 Mbit/s, 25 ms each way, a 48 KB queue) and a wifi-like one
 * (18 Mbit/s, 10 ms each way, 48 KB, 0.1 % random loss each way). The run
 * is deterministic (a function of the seed), so the assertions are on
 * shares, not on time.
 *
 * Sweeps by hand (nothing asserted): SST_FAIR_SWEEP=1 runs the matrix of
 * variants of the SST side ("sst-x": the base controller with ssthresh from
 * the window or, as RFC 5681, from the flight; a pacing gain in congestion
 * avoidance, or no pacing) over 5 seeds and prints their shares;
 * SST_FAIR_TRACE=1 prints both senders' windows at every change;
 * SST_FAIR_PHASE=1 delays SST's packets on their way out by a host
 * turnaround (0 to 200 us; the real path answers an ack some 10 to 50 us
 * later than kernel TCP), with and without random delay on the acks' way,
 * and prints SST's shares on the wifi-like link (SST_FAIR_PHASE_CONTROL=1:
 * with a copy of the reference in SST's place): on this exact link the
 * turnaround moves no share, unlike the real emulator's (docs/evaluation.md
 * section 2, session 14).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "sim.h"
#include "sim_chan.h"
#include "sst_cc.h"
#include "sst_cc_driver.h"
#include "sst_channel.h"
#include "sst_test.h"
#include "sst_test_channel.h"
#include "sst_test_eal.h"

enum {
	MTU = 1472,	  /* the evaluation's sst-perf --mtu */
	QUEUE = 48000,	  /* sst-linkem's default: 32 frames of 1500 bytes */
	VSTATE_OFF = 448, /* a variant's own state, past its base's (priv) */
	HELD_MAX = 512,	  /* packets a host's turnaround holds at once */
};

#define START_SST SST_NSEC_PER_SEC
#define MEASURE_FROM (5 * SST_NSEC_PER_SEC)
#define RUN_END (60 * SST_NSEC_PER_SEC)

static struct rte_mempool *pool;
static uint64_t seed;
/* SST's host turnaround (low_transmit()); the reference's is 0. */
static sst_time_t sst_turnaround;

/*
 * A controller on a registered base: the base's arithmetic, optionally
 * with ssthresh taken from the flight rather than the window at a loss or
 * timeout (RFC 5681), and its own pacing (unpaced, or gain_pct % of cwnd
 * per srtt).
 */
struct variant {
	struct sst_cc_ops ops; /* first: cc->ops points here */
	const char *base_name;
	const struct sst_cc_ops *base;
	bool ssthresh_from_flight;
	bool unpaced;
	unsigned int gain_pct; /* congestion avoidance; 0: the channel's own rate */
};

struct vstate {
	sst_time_t srtt;
};

static struct variant *
variant_of(const struct sst_cc *cc)
{
	return (struct variant *)(uintptr_t)cc->ops;
}

static struct vstate *
vstate(struct sst_cc *cc)
{
	return (struct vstate *)&cc->priv[VSTATE_OFF];
}

/* The reference's pacing: none (a rate no packet ever waits for), or the
 * variant's gain over the last srtt. */
static void
variant_pace(struct sst_cc *cc)
{
	const struct variant *v = variant_of(cc);
	sst_time_t srtt = vstate(cc)->srtt;

	if (v->unpaced)
		cc->pacing_rate = UINT64_C(1) << 50;
	else if (v->gain_pct != 0 && srtt != 0 && !sst_cc_in_slow_start(cc))
		cc->pacing_rate =
			sst_cc_mul_div(cc->cwnd, v->gain_pct * (SST_NSEC_PER_SEC / 100), srtt);
	else
		cc->pacing_rate = 0;
}

static void
variant_init(struct sst_cc *cc, sst_time_t now)
{
	variant_of(cc)->base->init(cc, now);
	variant_pace(cc);
}

static void
variant_on_sent(struct sst_cc *cc, const struct sst_cc_sent_event *ev)
{
	variant_of(cc)->base->on_sent(cc, ev);
	variant_pace(cc);
}

static void
variant_on_ack(struct sst_cc *cc, const struct sst_cc_ack_event *ev)
{
	variant_of(cc)->base->on_ack(cc, ev);
	vstate(cc)->srtt = ev->srtt;
	variant_pace(cc);
}

/*
 * Linux's rule whatever the base: a base that halves the flight (RFC 5681,
 * NewReno before issue 19) is handed the window as the flight. The RFC 5681
 * variant does the converse on a base that reduces the window (NewReno and
 * CUBIC now): it hands over the flight as the window when the loss starts a
 * congestion event, and puts the window back if it did not.
 */
static void
variant_on_loss(struct sst_cc *cc, const struct sst_cc_loss_event *ev)
{
	struct sst_cc_loss_event e = *ev;
	uint64_t cwnd = cc->cwnd;

	if (!variant_of(cc)->ssthresh_from_flight)
		e.bytes_in_flight = cwnd;
	else if (ev->seq > cc->recovery_seq)
		cc->cwnd = ev->bytes_in_flight > 0 ? ev->bytes_in_flight : 1;
	variant_of(cc)->base->on_loss(cc, &e);
	if (!cc->in_recovery)
		cc->cwnd = cwnd;
	variant_pace(cc);
}

static void
variant_on_rto(struct sst_cc *cc, const struct sst_cc_rto_event *ev)
{
	struct sst_cc_rto_event e = *ev;

	if (!variant_of(cc)->ssthresh_from_flight)
		e.bytes_in_flight = cc->cwnd;
	else if (!ev->no_rtt_sample)
		cc->cwnd = ev->bytes_in_flight > 0 ? ev->bytes_in_flight : 1;
	variant_of(cc)->base->on_rto(cc, &e);
	variant_pace(cc);
}

static void
variant_on_idle(struct sst_cc *cc, const struct sst_cc_idle_event *ev)
{
	if (variant_of(cc)->base->on_idle != NULL)
		variant_of(cc)->base->on_idle(cc, ev);
	variant_pace(cc);
}

#define VARIANT(nm, base, from_flight, unp)                                            \
	{                                                                              \
		.ops = {.name = nm,                                                    \
			.priv_size = SST_CC_PRIV_MAX,                                  \
			.init = variant_init,                                          \
			.on_sent = variant_on_sent,                                    \
			.on_ack = variant_on_ack,                                      \
			.on_loss = variant_on_loss,                                    \
			.on_rto = variant_on_rto,                                      \
			.on_idle = variant_on_idle},                                   \
		.base_name = base, .ssthresh_from_flight = from_flight, .unpaced = unp \
	}

/* The TCP-like references, and the SST side of the sweeps. */
static struct variant tcp_reno = VARIANT("tcp-reno", "newreno", false, false);
static struct variant tcp_cubic = VARIANT("tcp-cubic", "cubic", false, false);
static struct variant sst_x = VARIANT("sst-x", "newreno", false, false);

static void
variant_register(struct variant *v)
{
	v->base = sst_cc_find(v->base_name);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v->base);
	CU_ASSERT_FATAL(v->base->priv_size <= VSTATE_OFF);
	if (sst_cc_find(v->ops.name) == NULL)
		CU_ASSERT_EQUAL_FATAL(sst_cc_register(&v->ops), 0);
}

struct node;

/* One flow's end: a channel on a node. */
struct end {
	struct node *n;
	int idx; /* 0: SST, 1: the reference */
	struct sst_channel *ch;
	bool sender;
	sst_time_t start; /* the sender's first packet */
	sst_time_t wake;  /* when its pump wants to run again */
	uint64_t got;	  /* payload bytes received */
	uint64_t got0;	  /* of which before the measurement */
	uint64_t cwnd_cuts;
	uint64_t last_cwnd;
	sst_time_t turnaround; /* the host's delay from a send to the wire */
	sst_time_t run_at;     /* when the current run of packets was sent */
	unsigned int run_len;  /* packets sent at run_at */
	uint64_t sent;	       /* packets sent while measured */
	uint64_t piled;	       /* of which the third or later sent at one instant */
	struct held {
		sst_time_t at;
		struct rte_mbuf *m;
	} held[HELD_MAX]; /* sent, waiting for the turnaround: a FIFO */
	unsigned int held_head, held_n;
};

/* A simulated host running both flows' ends on one side: both channels
 * leave through port 0, so they share the link's queue. */
struct node {
	struct sim_host *host;
	struct end end[2];
};

static enum sst_channel_rx_verdict
up_receive(void *ctx, struct rte_mbuf *m, uint64_t seq, sst_time_t now)
{
	struct end *e = ctx;

	RTE_SET_USED(seq);
	RTE_SET_USED(now);
	if (sst_test_is_ack_only(m)) {
		rte_pktmbuf_free(m);
		return SST_CHANNEL_RX_ACCEPT;
	}
	e->got += rte_pktmbuf_pkt_len(m);
	rte_pktmbuf_free(m);
	return SST_CHANNEL_RX_NEEDS_ACK;
}

static void
up_acked(void *ctx, uint64_t seq, uintptr_t cookie, sst_time_t now)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(seq);
	RTE_SET_USED(cookie);
	RTE_SET_USED(now);
}

/* A bulk sender: what is lost needs no resending to count the rates (a
 * new packet takes its place, as large). */
static void
up_lost(void *ctx, uint64_t seq, uintptr_t cookie, sst_time_t now)
{
	up_acked(ctx, seq, cookie, now);
}

static void
up_ack_due(void *ctx, sst_time_t now)
{
	struct end *e = ctx;

	sst_test_send_ack_only(e->ch, pool, now);
}

/*
 * A packet leaves the host its turnaround after the channel sent it: the
 * time a real stack takes from an ack's arrival to its answer on the wire
 * (kernel TCP's softirq path against sst-perf's user-space loop over a
 * UDP socket, docs/evaluation.md section 2, session 14).
 */
static void
low_transmit(void *ctx, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	struct end *e = ctx;

	if (now != e->run_at) {
		e->run_at = now;
		e->run_len = 0;
	}
	e->run_len += n;
	if (now >= MEASURE_FROM) {
		e->sent += n;
		e->piled += e->run_len > 2 ? RTE_MIN(n, e->run_len - 2) : 0;
	}
	for (uint16_t i = 0; i < n; i++) {
		struct held *h;

		if (e->turnaround == 0) {
			sim_host_tx(e->n->host, 0, pkts[i]);
			continue;
		}
		CU_ASSERT_FATAL(e->held_n < HELD_MAX);
		h = &e->held[(e->held_head + e->held_n++) % HELD_MAX];
		h->at = now + e->turnaround;
		h->m = pkts[i];
	}
}

static sst_time_t
held_next(const struct end *e)
{
	return e->held_n > 0 ? e->held[e->held_head].at : SST_TIME_NEVER;
}

/* Put on the wire what the turnaround held until @p now. */
static void
held_release(struct end *e, sst_time_t now)
{
	while (e->held_n > 0 && e->held[e->held_head].at <= now) {
		sim_host_tx(e->n->host, 0, e->held[e->held_head].m);
		e->held_head = (e->held_head + 1) % HELD_MAX;
		e->held_n--;
	}
}

static const struct sst_channel_upper upper = {
	.receive = up_receive,
	.acked = up_acked,
	.lost = up_lost,
	.ack_due = up_ack_due,
	.event = sim_chan_no_event,
};

static const struct sst_channel_lower lower = {.transmit = low_transmit};

/*
 * Full packets while the window and the pacer allow. Linux counts the
 * window in packets and sends while packets in flight < cwnd
 * (tcp_cwnd_test()), so never past it; the channel's allowance does the
 * same for both flows since session 16 (until then SST's flight could pass
 * cwnd by less than a packet, and the reference waited for a whole
 * packet's room here).
 */

static void
pump(struct end *e, sst_time_t now)
{
	uint32_t len = sst_channel_max_payload(e->ch);

	e->wake = SST_TIME_NEVER;
	if (!e->sender)
		return;
	if (now < e->start) {
		e->wake = e->start;
		return;
	}
	for (;;) {
		sst_time_t next;
		uint64_t room = sst_channel_send_allowance(e->ch, now, &next);
		struct rte_mbuf *m;

		if (room == 0) {
			e->wake = next;
			return;
		}
		m = rte_pktmbuf_alloc(pool);
		CU_ASSERT_FATAL(m != NULL);
		CU_ASSERT_FATAL(rte_pktmbuf_append(m, (uint16_t)len) != NULL);
		memset(rte_pktmbuf_mtod(m, uint8_t *), 0x5a, len);
		CU_ASSERT_EQUAL(sst_channel_send(e->ch, &m, NULL, 1, true, now, NULL), 1);
	}
}

static void
node_pump(struct node *n, sst_time_t now)
{
	pump(&n->end[0], now);
	pump(&n->end[1], now);
}

/* Byte 0 of a packet is the receiving channel's number: idx + 1. */
static void
node_receive(void *ctx, struct rte_mbuf *m, uint16_t port, sst_time_t now)
{
	struct node *n = ctx;
	uint8_t b, *p = rte_pktmbuf_mtod(m, uint8_t *);

	RTE_SET_USED(port);
	b = rte_pktmbuf_data_len(m) > 0 ? p[0] : 0;
	if (b != 1 && b != 2) {
		CU_FAIL("a packet for no channel");
		rte_pktmbuf_free(m);
		return;
	}
	sst_channel_receive(n->end[b - 1].ch, &m, 1, now);
	node_pump(n, now);
}

static sst_time_t
node_next_expiry(void *ctx)
{
	struct node *n = ctx;
	sst_time_t t = SST_TIME_NEVER;

	for (int i = 0; i < 2; i++) {
		t = sst_time_min(
			t, sst_time_min(sst_channel_next_expiry(n->end[i].ch), n->end[i].wake));
		t = sst_time_min(t, held_next(&n->end[i]));
	}
	return t;
}

static void
node_handle_expiry(void *ctx, sst_time_t now)
{
	struct node *n = ctx;

	for (int i = 0; i < 2; i++) {
		held_release(&n->end[i], now);
		if (sst_channel_next_expiry(n->end[i].ch) <= now)
			sst_channel_handle_expiry(n->end[i].ch, now);
	}
	node_pump(n, now);
}

static const struct sim_host_ops node_ops = {
	.receive = node_receive,
	.next_expiry = node_next_expiry,
	.handle_expiry = node_handle_expiry,
};

/* Window cuts of the senders (congestion events and timeouts). */
static void
on_trace(void *ctx, const struct sst_channel_trace *t)
{
	struct end *e = ctx;

	if (t->kind != SST_CHANNEL_TRACE_CWND)
		return;
	if (t->v[0] < e->last_cwnd)
		e->cwnd_cuts++;
	e->last_cwnd = t->v[0];
	if (getenv("SST_FAIR_TRACE") != NULL)
		printf("\n  %s %.6f cwnd %" PRIu64 " ssthresh %" PRIu64 " flight %" PRIu64,
			e->idx == 0 ? "sst" : "ref", (double)t->now / 1e9, t->v[0], t->v[1],
			t->v[2]);
}

static void
end_init(struct end *e, struct node *n, int idx, const char *cc, bool sender, sst_time_t start)
{
	struct sst_channel_params p;

	memset(e, 0, sizeof(*e));
	e->n = n;
	e->idx = idx;
	e->sender = sender;
	e->start = start;
	e->wake = SST_TIME_NEVER;
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.local_channel = (uint8_t)(idx + 1);
	p.peer_channel = (uint8_t)(idx + 1);
	p.suite = SST_CRYPTO_CHK32;
	p.keys.tx_chk_key = (sender ? 0xa1a2a3a4u : 0xb1b2b3b4u) + (uint32_t)idx;
	p.keys.rx_chk_key = (sender ? 0xb1b2b3b4u : 0xa1a2a3a4u) + (uint32_t)idx;
	p.cc = cc;
	p.mtu = MTU;
	p.skip_seed = seed + (uint64_t)(2 * idx + sender);
	p.pool = pool;
	p.upper = &upper;
	p.upper_ctx = e;
	p.lower = &lower;
	p.lower_ctx = e;
	e->ch = sst_channel_create(&p, 0);
	CU_ASSERT_FATAL(e->ch != NULL);
	if (sender)
		sst_channel_set_trace(e->ch, on_trace, e);
}

struct link_kind {
	const char *name;
	uint64_t rate_bps;
	sst_time_t delay;      /* one way */
	double loss;	       /* each way */
	sst_time_t ack_jitter; /* uniform random extra delay on the acks' way */
};

static const struct link_kind dsl = {"dsl", 1500 * 1000, 25 * SST_NSEC_PER_MSEC, 0};
static const struct link_kind wifi = {"wifi", 18 * 1000 * 1000, 10 * SST_NSEC_PER_MSEC, 0.001};

struct share {
	double sst, ref; /* bit/s over the measured interval */
	double share;	 /* SST's, percent */
	double jain;
	uint64_t cuts[2];
	double piled[2]; /* percent of each sender's packets sent third or later at one instant */
};

static void
snapshot(void *arg, sst_time_t now)
{
	struct node *b = arg;

	RTE_SET_USED(now);
	b->end[0].got0 = b->end[0].got;
	b->end[1].got0 = b->end[1].got;
}

/* SST with @p sst_cc (or, @p control, a copy of the reference) against the
 * reference @p ref_cc on @p lk, from seed @p s. */
static void
run_pair(const struct link_kind *lk, const char *sst_cc, const char *ref_cc, bool control,
	uint64_t s, struct share *r)
{
	static struct node node[2];
	struct sim_config cfg = {.seed = s};
	struct sim *sim = sim_create(&cfg);
	struct sst_simlink_params l, back;
	double secs = (double)(RUN_END - MEASURE_FROM) / 1e9;

	CU_ASSERT_FATAL(sim != NULL);
	seed = s;
	sst_simlink_params_default(&l);
	l.rate_bps = lk->rate_bps;
	l.delay_ns = lk->delay;
	l.queue_bytes = QUEUE;
	l.capacity = 8192;
	l.loss = lk->loss;
	l.pool = pool;
	back = l;
	back.jitter_ns = lk->ack_jitter;
	end_init(&node[0].end[0], &node[0], 0, control ? ref_cc : sst_cc, true, START_SST);
	end_init(&node[0].end[1], &node[0], 1, ref_cc, true, 0);
	node[0].end[0].turnaround = sst_turnaround;
	end_init(&node[1].end[0], &node[1], 0, "newreno", false, 0);
	end_init(&node[1].end[1], &node[1], 1, "newreno", false, 0);
	node[0].host = sim_host_add(sim, "senders", &node_ops, &node[0]);
	node[1].host = sim_host_add(sim, "receivers", &node_ops, &node[1]);
	CU_ASSERT_FATAL(node[0].host != NULL && node[1].host != NULL);
	CU_ASSERT_FATAL(sim_connect(sim, node[0].host, 0, node[1].host, 0, &l, &back) != NULL);
	CU_ASSERT_EQUAL(sim_schedule(sim, MEASURE_FROM, snapshot, &node[1]), 0);
	node_pump(&node[0], 0);
	CU_ASSERT_EQUAL(sim_run_until(sim, RUN_END), 0);
	r->sst = (double)(node[1].end[0].got - node[1].end[0].got0) * 8 / secs;
	r->ref = (double)(node[1].end[1].got - node[1].end[1].got0) * 8 / secs;
	r->share = 100 * r->sst / (r->sst + r->ref);
	r->jain = (r->sst + r->ref) * (r->sst + r->ref) / (2 * (r->sst * r->sst + r->ref * r->ref));
	r->cuts[0] = node[0].end[0].cwnd_cuts;
	r->cuts[1] = node[0].end[1].cwnd_cuts;
	for (int i = 0; i < 2; i++) {
		const struct end *e = &node[0].end[i];

		r->piled[i] = e->sent > 0 ? 100.0 * (double)e->piled / (double)e->sent : 0;
	}
	printf("\n  %-4s %-8s vs %-9s seed %-6" PRIu64 ": %.3f vs %.3f Mbit/s, SST %.1f %%, "
	       "Jain %.3f, window cuts %" PRIu64 " vs %" PRIu64 ", piled %.2f %% vs %.2f %%",
		lk->name, control ? "(ref)" : sst_cc, ref_cc, s, r->sst / 1e6, r->ref / 1e6,
		r->share, r->jain, r->cuts[0], r->cuts[1], r->piled[0], r->piled[1]);
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++) {
			struct end *e = &node[i].end[j];

			for (; e->held_n > 0; e->held_n--) {
				rte_pktmbuf_free(e->held[e->held_head].m);
				e->held_head = (e->held_head + 1) % HELD_MAX;
			}
			sst_channel_destroy(e->ch);
		}
	sim_destroy(sim);
}

static void
register_all(void)
{
	variant_register(&tcp_reno);
	variant_register(&tcp_cubic);
}

/* The mean share of the late flow (SST, or @p control a copy of the
 * reference) over @p nseeds seeds from SST_SIM_SEED's (default 1). */
static double
mean_share(const struct link_kind *lk, const char *sst_cc, const char *ref_cc, bool control,
	unsigned int nseeds)
{
	uint64_t s0 = sim_seed_from_env(1);
	double sum = 0;

	register_all();
	for (unsigned int i = 0; i < nseeds; i++) {
		struct share r;

		run_pair(lk, sst_cc, ref_cc, control, s0 + i, &r);
		sum += r.share;
	}
	printf("\n  mean share of the late flow: %.1f %%\n", sum / nseeds);
	return sum / nseeds;
}

/* SST's mean share must lie in [@p lo, @p hi] percent. */
static void
check_pair(const struct link_kind *lk, const char *sst_cc, const char *ref_cc, unsigned int nseeds,
	double lo, double hi)
{
	double m = mean_share(lk, sst_cc, ref_cc, false, nseeds);

	CU_ASSERT(m >= lo && m <= hi);
}

/*
 * The regression test: NewReno against TCP Reno on the dsl-like link.
 * Nothing is random there but the skipped numbers and, through the pacer,
 * the phase of the two flows, and the flows differ only in what the
 * reference copies from Linux, so SST's mean share over 10 seeds is held
 * to 50 % give or take 2.5 points (the paper measured 48.8 % against
 * 51.2 %) and to 2.5 points of a copy of the reference started as late.
 * With ssthresh from the flight (RFC 5681) SST took 45.4 %; starting a
 * packet on any byte of window room, 44.6 % against the copy's 48.4 %.
 */
static void
test_dsl_newreno(void)
{
	double ref = mean_share(&dsl, "newreno", "tcp-reno", true, 10);
	double sst = mean_share(&dsl, "newreno", "tcp-reno", false, 10);

	printf("  SST %.1f %%, a late copy of the reference %.1f %%\n", sst, ref);
	CU_ASSERT(sst >= 47.5 && sst <= 52.5);
	CU_ASSERT(sst >= ref - 2.5 && sst <= ref + 2.5);
}

/*
 * CUBIC on the dsl-like link: the flow that starts second keeps less than
 * half over the 55 s, however TCP-like it is (the curves of two CUBIC
 * flows that lose together keep their ratio; only fast convergence closes
 * the gap, slowly at 20 packets and 300 ms). So SST is held to what a copy
 * of the reference started as late takes, over 10 seeds, within 7.5
 * points: single runs range over 15 points (the phase of the flows decides
 * whose packets the full queue drops), and over ten sets of 10 seeds SST's
 * mean was 1.6 points below the copy's (+0.4 to -6.8).
 */
static void
test_dsl_cubic(void)
{
	double ref = mean_share(&dsl, "cubic", "tcp-cubic", true, 10);
	double sst = mean_share(&dsl, "cubic", "tcp-cubic", false, 10);

	printf("  SST %.1f %%, a late copy of the reference %.1f %%\n", sst, ref);
	CU_ASSERT(sst >= ref - 7.5 && sst <= ref + 7.5);
}

/* The wifi-like link (0.1 % random loss each way): 45 to 55 %. */
static void
test_wifi(void)
{
	check_pair(&wifi, "newreno", "tcp-reno", 3, 45, 55);
	check_pair(&wifi, "cubic", "tcp-cubic", 3, 45, 55);
}

/* SST_FAIR_SWEEP=1: variants of the SST side on both links, 5 seeds. */
static void
test_sweep(void)
{
	static const struct {
		const char *name;
		bool from_flight, unpaced;
		unsigned int gain;
	} vs[] = {
		{"flight, paced 1.25", true, false, 0},
		{"cwnd, paced 1.25", false, false, 0},
		{"flight, paced 2.0", true, false, 200},
		{"cwnd, paced 2.0", false, false, 200},
		{"flight, unpaced", true, true, 0},
		{"cwnd, unpaced", false, true, 0},
	};
	const struct link_kind *lks[] = {&dsl, &wifi};
	const char *bases[][2] = {{"newreno", "tcp-reno"}, {"cubic", "tcp-cubic"}};

	if (getenv("SST_FAIR_SWEEP") == NULL)
		return;
	register_all();
	for (unsigned int b = 0; b < 2; b++)
		for (unsigned int k = 0; k < 2; k++)
			for (unsigned int i = 0; i < RTE_DIM(vs); i++) {
				double sum = 0, jain = 0;

				sst_x.base_name = bases[b][0];
				sst_x.ssthresh_from_flight = vs[i].from_flight;
				sst_x.unpaced = vs[i].unpaced;
				sst_x.gain_pct = vs[i].gain;
				sst_x.base = sst_cc_find(sst_x.base_name);
				if (sst_cc_find(sst_x.ops.name) == NULL)
					CU_ASSERT_EQUAL_FATAL(sst_cc_register(&sst_x.ops), 0);
				for (uint64_t s = 1; s <= 5; s++) {
					struct share r;

					run_pair(lks[k], "sst-x", bases[b][1], false, s, &r);
					sum += r.share;
					jain += r.jain;
				}
				printf("\n  => %s %s %s: mean share %.1f %%, mean Jain %.3f\n",
					lks[k]->name, bases[b][0], vs[i].name, sum / 5, jain / 5);
			}
}

/*
 * SST_FAIR_PHASE=1: SST's share on the wifi-like link as its host
 * turnaround grows, with and without random delay on the acks' way
 * (docs/evaluation.md section 2, session 14), 5 seeds each.
 */
static void
test_phase_sweep(void)
{
	static const sst_time_t turn_us[] = {0, 25, 50, 100, 200};
	static const sst_time_t jit_us[] = {0, 1000};
	const char *bases[][2] = {{"newreno", "tcp-reno"}, {"cubic", "tcp-cubic"}};

	if (getenv("SST_FAIR_PHASE") == NULL)
		return;
	register_all();
	for (unsigned int b = 0; b < 2; b++)
		for (unsigned int j = 0; j < RTE_DIM(jit_us); j++)
			for (unsigned int i = 0; i < RTE_DIM(turn_us); i++) {
				struct link_kind lk = wifi;
				double sum = 0;

				lk.ack_jitter = jit_us[j] * SST_NSEC_PER_USEC;
				sst_turnaround = turn_us[i] * SST_NSEC_PER_USEC;
				for (uint64_t s = 1; s <= 5; s++) {
					struct share r;

					run_pair(&lk, bases[b][0], bases[b][1],
						getenv("SST_FAIR_PHASE_CONTROL") != NULL, s, &r);
					sum += r.share;
				}
				printf("\n  => wifi %s turnaround %" PRIu64
				       " us, ack jitter %" PRIu64 " us: mean share %.1f %%\n",
					bases[b][0], (uint64_t)turn_us[i], (uint64_t)jit_us[j],
					sum / 5);
			}
	sst_turnaround = 0;
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_dsl_newreno),
	SST_TEST(test_dsl_cubic),
	SST_TEST(test_wifi),
	SST_TEST(test_sweep),
	SST_TEST(test_phase_sweep),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_sim_fair") < 0)
		return 1;
	pool = sst_test_pool("sim_fair", 32768, 2048);
	if (pool == NULL)
		return 1;
	return sst_test_run("sim_fair", cases);
}
