/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The world of the conformance matrix's whole-stack cases (docs/robustness.md,
 * "The conformance matrix"): a client and a server worker, each with its
 * negotiation host, stream host and peers, over a simpair whose two
 * simlink models impair the path, in virtual time. The server echoes every
 * stream; the client checks every byte of every echo. Virtual time lets a
 * 750 ms path, a 5 s blackout or a 3 s dead-peer timeout run in a fraction
 * of a second of wall time, and makes each run of a seed the same run.
 *
 * matrix_stack.c holds the transfers over impaired paths, matrix_hostile.c
 * the peers that crash, restart or lie. Each case is one meson test of the
 * suite 'matrix' (SST_TEST_ONLY picks it); SST_MATRIX_SEED changes the
 * links' seeds (scripts/soak.sh).
 */
#ifndef MATRIX_WORLD_H
#define MATRIX_WORLD_H

#include <inttypes.h>
#include <stdlib.h>

#include "worker_nodes.h"

enum { MIB = 1024 * 1024, CHUNK = 1200 };

/* What the matrix's tap does to the datagrams both sides send, on top of
 * the simlink models: a blackout, corruption it can count exactly. */
struct path_ctl {
	bool blackhole;
	double corrupt_chan;	     /**< share of channel packets with one bit flipped */
	double corrupt_nego;	     /**< share of negotiation packets with one bit flipped */
	unsigned corrupt_nego_first; /**< the first negotiation packets all corrupted */
	uint64_t corrupted_chan;     /**< channel packets corrupted */
	uint64_t corrupted_nego;     /**< negotiation packets corrupted */
	uint64_t dropped_in_black;   /**< packets the blackout ate */
	bool client_dead;	     /**< the client crashed: nothing of it leaves */
	/** Sees every datagram the client sends first (matrix_hostile.c's
	 * forgeries), before the impairments. */
	void (*client_tx)(struct path_ctl *pc, struct rte_mbuf *m);
	uint64_t rng;
};

struct matrix {
	struct sst_simpair *pair;
	struct node server, client;
	struct sst_net_endpoint client_ep;
	struct path_ctl path;
	sst_time_t start;
	bool connecting; /**< the client called */
	unsigned calls;	 /**< times it called (an application calls again when a call fails) */
	bool hold_shut;	 /**< the client's streams stay open once all is written */
};

static struct matrix mx;
static uint64_t seed = 0x5eed;

static inline sst_time_t
virtual_clock(void *ctx)
{
	(void)ctx;
	return virtual_now;
}

static inline uint64_t
rng_next(uint64_t *s)
{
	/* splitmix64: enough for choosing packets, and reproducible. */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline double
rng_unit(uint64_t *s)
{
	return (double)(rng_next(s) >> 11) / (double)(1ULL << 53);
}

/* One bit flipped past byte 0 (byte 0 names the channel: a flip there
 * makes the packet someone else's, counted as rx_no_channel, not as the
 * armor's rejection this case wants to see). */
static inline void
flip_bit(struct rte_mbuf *m, uint64_t *s)
{
	uint32_t len = rte_pktmbuf_data_len(m);
	uint8_t *b = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t bit;

	if (len < 2)
		return;
	bit = 8 + (uint32_t)(rng_next(s) % (8 * (uint64_t)(len - 1)));
	b[bit / 8] ^= (uint8_t)(1u << (bit % 8));
}

static inline bool
path_hook(void *ctx, bool tx, struct rte_mbuf *m, const struct sst_net_endpoint *peer)
{
	struct path_ctl *pc = ctx;
	bool nego;

	(void)peer;
	if (!tx)
		return false;
	if (pc->blackhole) {
		pc->dropped_in_black++;
		return true;
	}
	if (rte_pktmbuf_data_len(m) == 0)
		return false;
	nego = rte_pktmbuf_mtod(m, const uint8_t *)[0] == 0;
	if (nego && (pc->corrupt_nego_first > 0 ||
			    (pc->corrupt_nego > 0 && rng_unit(&pc->rng) < pc->corrupt_nego))) {
		if (pc->corrupt_nego_first > 0)
			pc->corrupt_nego_first--;
		flip_bit(m, &pc->rng);
		pc->corrupted_nego++;
	} else if (!nego && pc->corrupt_chan > 0 && rng_unit(&pc->rng) < pc->corrupt_chan) {
		flip_bit(m, &pc->rng);
		pc->corrupted_chan++;
	}
	return false;
}

/* The client's side can crash: from then on nothing it sends leaves. It
 * may also lie (pc->client_tx). */
static inline bool
client_hook(void *ctx, bool tx, struct rte_mbuf *m, const struct sst_net_endpoint *peer)
{
	struct path_ctl *pc = ctx;

	if (tx && pc->client_tx != NULL && !pc->client_dead)
		pc->client_tx(pc, m);
	if (pc->client_dead)
		return true;
	return path_hook(ctx, tx, m, peer);
}

static inline struct sst_link *
path_link(int side)
{
	struct sst_simpair_conf sc = {.pair = mx.pair, .side = side};
	struct sst_link_conf lc = {.size = sizeof(lc), .driver = "simpair", .pool = pool};
	struct sst_link_conf tc = {.size = sizeof(tc), .driver = "test_tap", .pool = pool};
	struct sst_test_tap_conf tap = {.fn = side == 0 ? path_hook : client_hook, .ctx = &mx.path};

	lc.driver_conf = &sc;
	tap.inner = sst_link_open(&lc);
	CU_ASSERT_FATAL(tap.inner != NULL);
	tc.driver_conf = &tap;
	/* The inner tap impairs; the outer one (tapped()) checks wire order. */
	return tapped(sst_link_open(&tc), side == 0 ? 0 : 1);
}

static inline void
link_params(struct sst_simlink_params *lp, uint64_t rate_bps, sst_time_t delay)
{
	sst_simlink_params_default(lp);
	lp->capacity = 8192;
	lp->rate_bps = rate_bps;
	lp->delay_ns = delay;
	lp->queue_pkts = 0;
	lp->seed = seed;
}

/* Server on side 0, client on side 1, the virtual clock at 1 s. */
static inline void
matrix_open(const struct sst_simlink_params *ab, const struct sst_simlink_params *ba)
{
	struct sst_net_endpoint ep[2] = {0};
	struct sst_simlink_params back = *ba;

	memset(&mx, 0, sizeof(mx));
	virtual_time = true;
	virtual_now = SST_NSEC_PER_SEC;
	mx.start = virtual_now;
	mx.path.rng = seed ^ 0xc0ffee;
	back.seed = ba->seed + 1;
	for (int i = 0; i < 2; i++) {
		ep[i].addr.family = SST_NET_IPV4;
		ep[i].addr.bytes[0] = 10;
		ep[i].addr.bytes[3] = (uint8_t)(1 + i);
		ep[i].port = 8661;
	}
	mx.client_ep = ep[1];
	mx.pair = sst_simpair_create(ab, &back, &ep[0], &ep[1], virtual_clock, NULL);
	CU_ASSERT_FATAL(mx.pair != NULL);
	node_init(&mx.server, "srv", true, path_link(0));
	node_init(&mx.client, "cli", false, path_link(1));
}

/* Chunks written by no stream yet go back to the pool. */
static inline void
flows_free_pending(struct node *c)
{
	for (int i = 0; i < c->nflows; i++) {
		rte_pktmbuf_free(c->flows[i].pending);
		c->flows[i].pending = NULL;
	}
}

static inline void
matrix_close(void)
{
	flows_free_pending(&mx.client);
	node_fini(&mx.client);
	node_fini(&mx.server);
	sst_simpair_destroy(mx.pair);
	virtual_time = false;
}

/* The client's streams, each want bytes: opened once the peer is up,
 * written in CHUNK-byte pieces as far as the buffers take, shut once all
 * is written. */
static inline void
flows_want(const uint64_t *bytes, int n)
{
	mx.client.nflows = n;
	for (int i = 0; i < n; i++)
		mx.client.flows[i] = (struct node_flow){.id = 100 + (uint64_t)i, .want = bytes[i]};
}

static inline void
flows_pump(struct node *c, sst_time_t now)
{
	for (int i = 0; i < c->nflows; i++) {
		struct node_flow *f = &c->flows[i];

		if (f->s == NULL) {
			if (c->peer == NULL)
				return;
			f->s = sst_stream_connect(c->peer, "echo", "test", now);
			CU_ASSERT_FATAL(f->s != NULL);
		}
		while (f->written < f->want) {
			uint32_t len = (uint32_t)RTE_MIN(CHUNK, f->want - f->written);

			/* A chunk refused stays for the next turn. */
			if (f->pending == NULL)
				f->pending = chunk(f->id, f->written, len);
			if (sst_stream_write(f->s, f->pending, 0, now) < 0)
				break;
			f->pending = NULL;
			f->written += len;
		}
		if (f->written == f->want && !f->shut && !mx.hold_shut) {
			sst_stream_shutdown(f->s, now);
			f->shut = true;
		}
	}
}

static inline bool
flows_done(const struct node *c)
{
	for (int i = 0; i < c->nflows; i++)
		if (c->flows[i].echoed != c->flows[i].want)
			return false;
	return c->nflows > 0;
}

/* Packets both workers took from and gave to their links so far. */
static inline uint64_t
traffic(void)
{
	uint64_t n = 0;
	struct node *nodes[2] = {&mx.server, &mx.client};

	for (int i = 0; i < 2; i++)
		if (nodes[i]->w != NULL)
			n += sst_worker_link_stats(nodes[i]->w)->rx_packets +
			     sst_worker_link_stats(nodes[i]->w)->tx_packets;
	return n;
}

/* The next moment anything can happen: a timer of either worker or a
 * delivery on either direction of the path, but at most @p limit. */
static inline sst_time_t
next_moment(sst_time_t limit, bool quiet)
{
	sst_time_t t = limit, due = SST_TIME_NEVER, d;
	struct node *nodes[2] = {&mx.server, &mx.client};

	for (int i = 0; i < 2; i++) {
		if (nodes[i]->w != NULL)
			due = sst_time_min(due, sst_worker_next_expiry(nodes[i]->w));
		/* A delivery already due waits for a receiver that is not
		 * polled (a crashed client): nothing to wake for. */
		d = sst_simlink_next_delivery(sst_simpair_link(mx.pair, i));
		if (d > virtual_now)
			t = sst_time_min(t, d);
	}
	/* "Due now" from a worker often means only "soon": it keeps a channel
	 * whose congestion window is full active, to poll it again on the
	 * next pass. After a turn in which no packet moved, nothing but a
	 * delivery or a timer can change that, so the clock goes on to the
	 * next delivery, by 1 ms at most (timers keep that precision), as a
	 * slower poll loop would. */
	if (due > virtual_now)
		t = sst_time_min(t, due);
	else if (quiet)
		t = sst_time_min(t, virtual_now + SST_NSEC_PER_MSEC);
	else
		t = virtual_now;
	return RTE_MAX(t, virtual_now + SST_NSEC_PER_USEC);
}

/* One turn: both workers polled, the client's streams pumped, the clock
 * moved to the next moment (at most 10 ms on). */
static inline void
matrix_turn(void)
{
	uint64_t before = traffic();

	sst_worker_poll(mx.server.w, virtual_now);
	if (mx.client.w != NULL && !mx.path.client_dead) {
		sst_worker_poll(mx.client.w, virtual_now);
		flows_pump(&mx.client, virtual_now);
	}
	virtual_now = next_moment(virtual_now + 10 * SST_NSEC_PER_MSEC, traffic() == before);
}

typedef void matrix_event_fn(sst_time_t elapsed);

/* The client calls the server, once. */
static inline void
matrix_connect(void)
{
	if (mx.connecting)
		return;
	CU_ASSERT_FATAL(sst_worker_connect(mx.client.w, &mx.server.self, SST_NEGO_MODE_CHECKSUM,
				virtual_now) == 0);
	mx.connecting = true;
	mx.calls++;
}

/* Turn until the client connected and every echo came back, or @p limit
 * of virtual time passed; @p ev sees every turn. @return true if done. */
static inline bool
matrix_run(sst_time_t limit, matrix_event_fn *ev)
{
	sst_time_t until = virtual_now + limit;

	uint64_t failed = sst_worker_nego_stats(mx.client.w)->failed;

	matrix_connect();
	while (!flows_done(&mx.client) && virtual_now < until) {
		if (ev != NULL)
			ev(virtual_now - mx.start);
		matrix_turn();
		/* A call that failed (the initiator gave up) is made again, as
		 * an application would. */
		if (mx.client.peer == NULL && sst_worker_nego_stats(mx.client.w)->failed > failed) {
			failed = sst_worker_nego_stats(mx.client.w)->failed;
			mx.connecting = false;
			matrix_connect();
		}
	}
	return flows_done(&mx.client);
}

/* Turn for @p d of virtual time. */
static inline void
matrix_idle(sst_time_t d)
{
	sst_time_t until = virtual_now + d;

	while (virtual_now < until)
		matrix_turn();
}

static inline void
report(const char *what)
{
	uint64_t echoed = 0, want = 0;

	for (int i = 0; i < mx.client.nflows; i++) {
		echoed += mx.client.flows[i].echoed;
		want += mx.client.flows[i].want;
	}
	printf("\n  %s: %" PRIu64 " of %" PRIu64 " bytes echoed in %.2f s virtual, %" PRIu64
	       " bad; channels made %" PRIu64 "/%" PRIu64 ", replaced %" PRIu64 "/%" PRIu64
	       ", silences %" PRIu64 "/%" PRIu64 "\n",
		what, echoed, want, (double)(virtual_now - mx.start) / 1e9, mx.client.bad,
		sst_worker_stats(mx.client.w)->channels_made,
		sst_worker_stats(mx.server.w)->channels_made,
		sst_worker_stats(mx.client.w)->channels_replaced,
		sst_worker_stats(mx.server.w)->channels_replaced,
		sst_worker_stats(mx.client.w)->silences, sst_worker_stats(mx.server.w)->silences);
}

/* Every byte came back as sent, and nothing of a channel left before its
 * negotiation reply (finding 7(b)). */
static inline void
check_exact(void)
{
	for (int i = 0; i < mx.client.nflows; i++)
		CU_ASSERT_EQUAL(mx.client.flows[i].echoed, mx.client.flows[i].want);
	CU_ASSERT_EQUAL(mx.client.bad, 0);
	/* The wire check tells channels apart by the initiator's number: a
	 * corrupted ChkI1 that decodes (another key, the same number) gives
	 * the server a second channel under that number, whose packets it
	 * would count as early. */
	if (mx.path.corrupted_nego > 0)
		return;
	CU_ASSERT_EQUAL(checks[0].early, 0);
	CU_ASSERT_EQUAL(checks[1].early, 0);
}

/* The client lets go of its streams; both sides' channels idle out and
 * close by FINISH; both stream hosts end empty. */
static inline void
close_and_settle(void)
{
	for (int i = 0; i < mx.client.nflows; i++)
		if (mx.client.flows[i].s != NULL) {
			sst_stream_close(mx.client.flows[i].s, virtual_now);
			mx.client.flows[i].s = NULL;
		}
	flows_free_pending(&mx.client);
	mx.client.nflows = 0; /* nothing more to open */
	matrix_idle(15 * SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL(sst_worker_stats(mx.client.w)->channels_open, 0);
	CU_ASSERT_EQUAL(sst_worker_stats(mx.server.w)->channels_open, 0);
}

/* The channel layer's counters of both workers, current. */
static inline struct sst_channel_stats
chan_totals(void)
{
	struct sst_channel_stats t = {0};
	struct node *nodes[2] = {&mx.server, &mx.client};

	/* Counters of live channels are folded in every 100 ms of polling. */
	matrix_idle(200 * SST_NSEC_PER_MSEC);
	for (int i = 0; i < 2; i++) {
		const struct sst_channel_stats *c = &sst_worker_stats(nodes[i]->w)->channels;

		t.rx_duplicate += c->rx_duplicate;
		t.rx_too_old += c->rx_too_old;
		t.rx_bad_trailer += c->rx_bad_trailer;
		t.rx_malformed += c->rx_malformed;
		t.rx_packets += c->rx_packets;
	}
	return t;
}

/* ---- The cases ---- */

/* A path of @p rate_bps and @p delay each way (and @p loss), the client's
 * streams of @p want bytes, run until every echo came back within @p limit
 * of virtual time: every byte exact. The matrix stays open for the case's
 * own checks; matrix_done() ends it. */
static inline void
transfer(const char *what, uint64_t rate_bps, sst_time_t delay, double loss, const uint64_t *want,
	int n, sst_time_t limit, matrix_event_fn *ev)
{
	struct sst_simlink_params lp;

	link_params(&lp, rate_bps, delay);
	lp.loss = loss;
	matrix_open(&lp, &lp);
	flows_want(want, n);
	CU_ASSERT(matrix_run(limit, ev));
	report(what);
	check_exact();
}

static inline void
matrix_done(void)
{
	close_and_settle();
	matrix_close();
}

/* A test program's main(): the seed, the EAL, the cases. */
static inline int
matrix_main(const char *name, const struct sst_test_case *cases)
{
	const char *s = getenv("SST_MATRIX_SEED");

	if (s != NULL)
		seed = strtoull(s, NULL, 0);
	return worker_nodes_main(name, cases);
}

#endif /* MATRIX_WORLD_H */
