/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Channel-layer scenarios in the simulator: two channels over impaired links.
 *
 * A small application on each side sends numbered items, one per packet, and
 * resends an item when the channel reports its packet lost (as the stream
 * layer will). Checked after every run:
 *  - every sequence number the sender used ends exactly once, acked or lost
 *    (skipped numbers never end at all);
 *  - every item arrives, and no packet whose bytes were altered on the link
 *    is ever accepted;
 *  - the congestion window follows its controller's textbook shape.
 * Seeds are fixed; SST_SIM_SEED=<n> replays another one.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "sim.h"
#include "sim_chan.h"
#include "sst_channel.h"
#include "sst_test.h"
#include "sst_test_channel.h"
#include "sst_test_eal.h"

enum {
	ITEM_HDR = 12, /* a Data stream header (4) and the item number (8) */
	MAX_SEQ = 1 << 20,
	CWND_TRACE = 1 << 16,
};

static struct rte_mempool *pool;

struct app {
	struct sst_channel *ch;
	struct sim_host *host;
	struct sim *sim;
	struct sim_chan_host glue; /* the host's context: the channel, the pump's wake-up */
	/* sending */
	uint64_t items;	    /* how many items to deliver in all */
	uint64_t next_item; /* the next new item */
	uint64_t *resend;   /* items whose packet was lost */
	uint64_t nresend;
	uint32_t item_len;
	int64_t drop_seq; /* a sequence number the "network" loses, -1 none */
	/* outcomes of our sequence numbers */
	uint8_t *outcome;
	uint64_t acked, lost;
	sst_time_t last_loss; /* when the latest loss was reported */
	/* receiving */
	uint8_t *got; /* items received */
	uint64_t distinct, dup_items, corrupt_accepted;
	/* cwnd samples, one per ack */
	sst_time_t *cw_time;
	uint64_t *cw_value;
	uint64_t ncw;
};

static void
item_fill(uint8_t *p, uint64_t item, uint32_t len)
{
	p[0] = 0x00;
	p[1] = 0x01;
	p[2] = 0x30;
	p[3] = 0x10;
	memcpy(p + 4, &item, sizeof(item));
	for (uint32_t i = ITEM_HDR; i < len; i++)
		p[i] = (uint8_t)(item * 131 + i * 7);
}

static bool
item_check(const uint8_t *p, uint32_t len, uint64_t *item)
{
	uint8_t expect[2048];

	if (len < ITEM_HDR || len > sizeof(expect))
		return false;
	memcpy(item, p + 4, sizeof(*item));
	item_fill(expect, *item, len);
	return memcmp(p, expect, len) == 0;
}

static void app_pump(struct app *a, sst_time_t now);

static enum sst_channel_rx_verdict
up_receive(void *ctx, struct rte_mbuf *m, uint64_t seq, sst_time_t now)
{
	struct app *a = ctx;
	uint8_t buf[2048];
	uint32_t len = rte_pktmbuf_pkt_len(m);
	const uint8_t *p = rte_pktmbuf_read(m, 0, RTE_MIN(len, sizeof(buf)), buf);
	uint64_t item;
	bool eliciting = true;

	(void)seq;
	(void)now;
	if (sst_test_is_ack_only(m)) {
		eliciting = false;
	} else if (!item_check(p, len, &item) || item >= a->items) {
		a->corrupt_accepted++;
	} else if (a->got[item]) {
		a->dup_items++;
	} else {
		a->got[item] = 1;
		a->distinct++;
	}
	rte_pktmbuf_free(m);
	return eliciting ? SST_CHANNEL_RX_NEEDS_ACK : SST_CHANNEL_RX_ACCEPT;
}

static void
note_outcome(struct app *a, uint64_t seq, uint8_t bit)
{
	if (seq < MAX_SEQ)
		a->outcome[seq] |= bit;
}

static void
up_acked(void *ctx, uint64_t seq, uintptr_t cookie, sst_time_t now)
{
	struct app *a = ctx;
	struct sst_channel_info info;

	(void)cookie;
	note_outcome(a, seq, 1);
	a->acked++;
	sst_channel_info(a->ch, &info);
	if (a->ncw < CWND_TRACE) {
		a->cw_time[a->ncw] = now;
		a->cw_value[a->ncw++] = info.cwnd;
	}
}

static void
up_lost(void *ctx, uint64_t seq, uintptr_t cookie, sst_time_t now)
{
	struct app *a = ctx;

	note_outcome(a, seq, 2);
	a->lost++;
	a->last_loss = now;
	/* cookie = item + 1 for data packets, 0 for ack-only ones */
	if (cookie != 0)
		a->resend[a->nresend++] = cookie - 1;
}

static void
up_ack_due(void *ctx, sst_time_t now)
{
	struct app *a = ctx;

	sst_test_send_ack_only(a->ch, pool, now);
}

static void
low_transmit(void *ctx, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	struct app *a = ctx;

	(void)now;
	for (uint16_t i = 0; i < n; i++) {
		const uint8_t *p = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
		uint32_t low = (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];

		if (a->drop_seq >= 0 && low == (uint32_t)a->drop_seq) {
			rte_pktmbuf_free(pkts[i]);
			a->drop_seq = -1;
			continue;
		}
		sim_host_tx(a->host, 0, pkts[i]);
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

/* Send items while the channel allows: resends first, then new ones. */
static void
app_pump(struct app *a, sst_time_t now)
{
	a->glue.wake = SST_TIME_NEVER;
	while (a->nresend > 0 || a->next_item < a->items) {
		sst_time_t next;
		uint64_t allowance = sst_channel_send_allowance(a->ch, now, &next);
		uint64_t item;
		uintptr_t cookie;
		struct rte_mbuf *m;

		if (allowance == 0) {
			a->glue.wake = next;
			return;
		}
		item = a->nresend > 0 ? a->resend[--a->nresend] : a->next_item++;
		m = rte_pktmbuf_alloc(pool);
		CU_ASSERT_FATAL(m != NULL);
		item_fill(
			(uint8_t *)rte_pktmbuf_append(m, (uint16_t)a->item_len), item, a->item_len);
		cookie = (uintptr_t)(item + 1);
		CU_ASSERT_EQUAL(sst_channel_send(a->ch, &m, &cookie, 1, true, now, NULL), 1);
	}
}

/* The host's pump (sim_chan.h). */
static void
app_pump_cb(void *app, sst_time_t now)
{
	app_pump(app, now);
}

struct scenario {
	const char *name;
	enum sst_crypto_suite suite;
	const char *cc;
	uint32_t replay_window;
	uint64_t items;
	uint32_t item_len;
	struct sst_simlink_params link; /* both directions */
	uint64_t skip_seed;
};

static void
app_init(struct app *a, struct sim *sim, const char *name, const struct scenario *sc,
	uint32_t tx_key, uint32_t rx_key)
{
	struct sst_channel_params p;

	memset(a, 0, sizeof(*a));
	a->sim = sim;
	a->items = sc->items;
	a->item_len = sc->item_len;
	a->drop_seq = -1;
	a->resend = calloc(MAX_SEQ, sizeof(*a->resend));
	a->outcome = calloc(MAX_SEQ, 1);
	a->got = calloc(sc->items + 1, 1);
	a->cw_time = calloc(CWND_TRACE, sizeof(*a->cw_time));
	a->cw_value = calloc(CWND_TRACE, sizeof(*a->cw_value));
	CU_ASSERT_FATAL(a->resend && a->outcome && a->got && a->cw_time && a->cw_value);

	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.local_channel = 1;
	p.peer_channel = 1;
	p.suite = sc->suite;
	p.keys.tx_chk_key = tx_key;
	p.keys.rx_chk_key = rx_key;
	memset(p.keys.tx_key, (int)tx_key, sizeof(p.keys.tx_key));
	memset(p.keys.rx_key, (int)rx_key, sizeof(p.keys.rx_key));
	memset(p.keys.tx_iv, (int)(tx_key >> 8), sizeof(p.keys.tx_iv));
	memset(p.keys.rx_iv, (int)(rx_key >> 8), sizeof(p.keys.rx_iv));
	p.cc = sc->cc;
	p.replay_window = sc->replay_window;
	p.tx_log = 16384;
	p.skip_seed = sc->skip_seed;
	p.pool = pool;
	p.upper = &upper;
	p.upper_ctx = a;
	p.lower = &lower;
	p.lower_ctx = a;
	a->ch = sst_channel_create(&p, sim_now(sim));
	CU_ASSERT_FATAL(a->ch != NULL);
	a->glue = (struct sim_chan_host){
		.ch = a->ch, .wake = SST_TIME_NEVER, .pump = app_pump_cb, .app = a};
	a->host = sim_host_add(sim, name, &sim_chan_host_ops, &a->glue);
	CU_ASSERT_FATAL(a->host != NULL);
}

static void
app_fini(struct app *a)
{
	sst_channel_destroy(a->ch);
	free(a->resend);
	free(a->outcome);
	free(a->got);
	free(a->cw_time);
	free(a->cw_value);
}

static bool
transfer_unfinished(void *arg)
{
	struct app *ab = arg; /* [0] sender side of both directions, [1] peer */
	struct sst_channel_info i0, i1;

	sst_channel_info(ab[0].ch, &i0);
	sst_channel_info(ab[1].ch, &i1);
	return ab[1].distinct < ab[1].items || ab[0].distinct < ab[0].items ||
	       i0.bytes_in_flight != 0 || i1.bytes_in_flight != 0;
}

/* Every number below next_seq ended exactly once, except the skipped ones,
 * which never end, and ack-only packets still waiting for the peer's
 * sparse acks of acks. */
static void
check_outcomes(const struct app *a)
{
	struct sst_channel_info info;
	uint64_t never = 0;

	sst_channel_info(a->ch, &info);
	CU_ASSERT_FATAL(info.next_seq < MAX_SEQ);
	for (uint64_t s = 1; s < info.next_seq; s++) {
		CU_ASSERT_NOT_EQUAL(a->outcome[s], 3);
		if (a->outcome[s] == 0)
			never++;
	}
	CU_ASSERT_EQUAL(never, sst_channel_stats(a->ch)->tx_skipped + info.ack_only_in_flight);
}

static struct app *
run_scenario(const struct scenario *sc, uint64_t seed, sst_time_t deadline)
{
	static struct app ab[2];
	struct sim_config cfg = {.seed = seed};
	struct sim *sim = sim_create(&cfg);
	int rc;

	CU_ASSERT_FATAL(sim != NULL);
	app_init(&ab[0], sim, "a", sc, 0xa1a2a3a4, 0xb1b2b3b4);
	app_init(&ab[1], sim, "b", sc, 0xb1b2b3b4, 0xa1a2a3a4);
	CU_ASSERT_FATAL(sim_connect(sim, ab[0].host, 0, ab[1].host, 0, &sc->link, NULL) != NULL);
	app_pump(&ab[0], 0);
	app_pump(&ab[1], 0);
	rc = sim_run_while(sim, transfer_unfinished, ab, deadline);
	if (rc != 0)
		printf("\n%s (seed %" PRIu64 "): run ended with %d at %.3f s: a got %" PRIu64
		       "/%" PRIu64 ", b got %" PRIu64 "/%" PRIu64 "\n",
			sc->name, seed, rc, (double)sim_now(sim) / 1e9, ab[0].distinct, ab[0].items,
			ab[1].distinct, ab[1].items);
	CU_ASSERT_EQUAL(rc, 0);
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(ab[i].distinct, ab[i].items);
		CU_ASSERT_EQUAL(ab[i].corrupt_accepted, 0);
		CU_ASSERT_FALSE(sst_channel_failed(ab[i].ch));
		check_outcomes(&ab[i]);
	}
	/* Keep the sim until the caller looked at the apps. */
	ab[0].sim = sim;
	return ab;
}

static void
end_scenario(struct app *ab)
{
	struct sim *sim = ab[0].sim;

	app_fini(&ab[0]);
	app_fini(&ab[1]);
	sim_destroy(sim);
}

static void
link_defaults(struct sst_simlink_params *l)
{
	sst_simlink_params_default(l);
	l->rate_bps = 20 * 1000 * 1000;
	l->delay_ns = 10 * SST_NSEC_PER_MSEC;
	l->queue_pkts = 200;
	l->capacity = 8192;
	l->pool = pool;
}

/* Both directions carry items, so acks ride on data and on Ack packets. */
static void
run_impairment(const char *name, double loss, double reorder, double dup, double corrupt,
	double ge_p, enum sst_crypto_suite suite)
{
	struct scenario sc = {
		.name = name,
		.suite = suite,
		.replay_window = 8192,
		.items = 3000,
		.item_len = 1000,
		.skip_seed = 0x5eed5eed,
	};
	uint64_t seed = sim_seed_from_env(42);
	struct app *ab;

	link_defaults(&sc.link);
	sc.link.loss = loss;
	sc.link.reorder = reorder;
	sc.link.reorder_delay_ns = 3 * SST_NSEC_PER_MSEC;
	sc.link.duplicate = dup;
	sc.link.corrupt = corrupt;
	sc.link.corrupt_bits = 1;
	if (ge_p > 0) {
		sc.link.ge_p_good_bad = ge_p;
		sc.link.ge_p_bad_good = 0.3;
	}
	ab = run_scenario(&sc, seed, 3600 * SST_NSEC_PER_SEC);
	if (loss > 0 || ge_p > 0)
		CU_ASSERT_TRUE(ab[0].lost > 0);
	if (dup > 0)
		CU_ASSERT_TRUE(sst_channel_stats(ab[1].ch)->rx_duplicate > 0);
	if (corrupt > 0 && suite != SST_CRYPTO_NULL)
		CU_ASSERT_TRUE(sst_channel_stats(ab[1].ch)->rx_bad_trailer > 0);
	end_scenario(ab);
}

static void
test_clean_link(void)
{
	struct scenario sc = {
		.name = "clean",
		.suite = SST_CRYPTO_CHK32,
		.items = 5000,
		.item_len = 1200,
	};
	struct app *ab;

	link_defaults(&sc.link);
	sc.link.queue_pkts = 0; /* no tail drop: nothing may be lost */
	ab = run_scenario(&sc, 1, 600 * SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL(ab[0].lost, 0);
	CU_ASSERT_EQUAL(ab[1].lost, 0);
	CU_ASSERT_EQUAL(ab[1].dup_items, 0);
	end_scenario(ab);
}

static void
test_loss_10(void)
{
	run_impairment("loss 10%", 0.10, 0, 0, 0, 0, SST_CRYPTO_CHK32);
}

static void
test_loss_30(void)
{
	run_impairment("loss 30%", 0.30, 0, 0, 0, 0, SST_CRYPTO_CHK32);
}

static void
test_bursty_loss(void)
{
	run_impairment("bursty loss", 0, 0, 0, 0, 0.02, SST_CRYPTO_CHK32);
}

static void
test_reorder(void)
{
	run_impairment("reorder 20%", 0, 0.20, 0, 0, 0, SST_CRYPTO_CHK32);
}

static void
test_duplicate(void)
{
	run_impairment("duplicate 10%", 0, 0, 0.10, 0, 0, SST_CRYPTO_CHK32);
}

static void
test_corrupt_chk32(void)
{
	run_impairment("corrupt 10% chk32", 0, 0, 0, 0.10, 0, SST_CRYPTO_CHK32);
}

static void
test_corrupt_aead(void)
{
	run_impairment("corrupt 10% aes-gcm", 0, 0, 0, 0.10, 0, SST_CRYPTO_AES128GCM);
	run_impairment("corrupt 10% chacha", 0, 0, 0, 0.10, 0, SST_CRYPTO_CHACHA20POLY1305);
}

static void
test_everything(void)
{
	run_impairment("everything", 0.15, 0.10, 0.05, 0.05, 0.01, SST_CRYPTO_AES128GCM);
}

/* cwnd at time t: the last sample at or before t. */
static uint64_t
cwnd_at(const struct app *a, sst_time_t t)
{
	uint64_t v = 0;

	for (uint64_t i = 0; i < a->ncw && a->cw_time[i] <= t; i++)
		v = a->cw_value[i];
	return v;
}

/*
 * A controller's shape on a path with a large buffer, as the channel drives
 * it: the window doubles every round trip in slow start; one lost packet
 * cuts it once by the controller's factor (NewReno: to half the flight;
 * CUBIC: to 0.7 of the window); then it grows again, by about one packet per
 * round trip for NewReno and slowly (the concave part of the cubic curve)
 * for CUBIC.
 */
static void
check_cc_shape(
	const char *cc, double cut_lo, double cut_hi, double grow_lo, double grow_hi, bool cubic)
{
	struct scenario sc = {
		.name = cc,
		.suite = SST_CRYPTO_CHK32,
		.cc = cc,
		.replay_window = 8192,
		.items = 4000,
		.item_len = 1200,
	};
	static struct app ab[2];
	struct sim_config cfg = {.seed = 7};
	struct sim *sim = sim_create(&cfg);
	const sst_time_t rtt = 100 * SST_NSEC_PER_MSEC;
	struct sst_channel_info info;
	uint64_t before, after, mss, at_loss;
	double ratio, grown;
	sst_time_t t_loss;

	printf("\n  %s:", cc);
	link_defaults(&sc.link);
	sc.link.rate_bps = 1000 * 1000 * 1000;
	sc.link.delay_ns = rtt / 2;
	sc.link.queue_pkts = 0;
	app_init(&ab[0], sim, "a", &sc, 1, 2);
	sc.items = 0;
	app_init(&ab[1], sim, "b", &sc, 2, 1);
	CU_ASSERT_FATAL(sim_connect(sim, ab[0].host, 0, ab[1].host, 0, &sc.link, NULL) != NULL);
	sst_channel_info(ab[0].ch, &info);
	CU_ASSERT_STRING_EQUAL(info.cc, cc);
	mss = info.cwnd / 10; /* initial window: 10 packets */
	/* Slow start: sample the window once per round trip. */
	app_pump(&ab[0], 0);
	CU_ASSERT_EQUAL(sim_run_until(sim, rtt + rtt / 2), 0);
	before = cwnd_at(&ab[0], sim_now(sim));
	for (int k = 2; k <= 4; k++) {
		CU_ASSERT_EQUAL(sim_run_until(sim, k * rtt + rtt / 2), 0);
		after = cwnd_at(&ab[0], sim_now(sim));
		ratio = (double)after / (double)before;
		printf(" slow start x%.2f,", ratio);
		CU_ASSERT_TRUE(ratio >= 1.8 && ratio <= 2.2);
		before = after;
	}
	/* Lose one packet of the next flight. */
	sst_channel_info(ab[0].ch, &info);
	ab[0].drop_seq = (int64_t)((info.next_seq + 20) & 0xffffff);
	at_loss = ab[0].lost;
	for (sst_time_t t = sim_now(sim); ab[0].lost == at_loss && t < 20 * rtt; t += rtt / 20)
		CU_ASSERT_EQUAL(sim_run_until(sim, t), 0);
	CU_ASSERT_EQUAL_FATAL(ab[0].lost, at_loss + 1);
	t_loss = ab[0].last_loss;
	before = cwnd_at(&ab[0], t_loss - 1);
	if (cubic) {
		/* RFC 9438: W(t) = C (t - K)^3 + W_max with C = 0.4 and
		 * K = cbrt(W_max (1 - 0.7) / C), windows in packets, t in
		 * seconds from the cut; between 2 and 6 round trips after it
		 * the window grows by W(0.6) - W(0.2). */
		double w_max = (double)before / (double)mss;
		double k = cbrt(w_max * 0.3 / 0.4);

		grow_lo = grow_hi = 0.4 * (pow(0.6 - k, 3) - pow(0.2 - k, 3));
		grow_lo *= 0.75;
		grow_hi *= 1.25;
	}
	CU_ASSERT_EQUAL(sim_run_until(sim, t_loss + 2 * rtt), 0);
	after = cwnd_at(&ab[0], sim_now(sim));
	ratio = (double)after / (double)before;
	printf(" loss x%.2f,", ratio);
	CU_ASSERT_TRUE(ratio >= cut_lo && ratio <= cut_hi);
	/* Afterwards: growth over 4 round trips, in packets. */
	before = after;
	CU_ASSERT_EQUAL(sim_run_until(sim, t_loss + 6 * rtt), 0);
	after = cwnd_at(&ab[0], sim_now(sim));
	grown = ((double)after - (double)before) / (double)mss;
	printf(" then +%.2f packets in 4 round trips (expected %.1f..%.1f)\n", grown, grow_lo,
		grow_hi);
	CU_ASSERT_TRUE(grown >= grow_lo && grown <= grow_hi);
	app_fini(&ab[0]);
	app_fini(&ab[1]);
	sim_destroy(sim);
}

static void
test_newreno_shape(void)
{
	check_cc_shape("newreno", 0.4, 0.6, 2.0, 6.0, false);
}

static void
test_cubic_shape(void)
{
	check_cc_shape("cubic", 0.65, 0.75, 0, 0, true);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_clean_link),
	SST_TEST(test_loss_10),
	SST_TEST(test_loss_30),
	SST_TEST(test_bursty_loss),
	SST_TEST(test_reorder),
	SST_TEST(test_duplicate),
	SST_TEST(test_corrupt_chk32),
	SST_TEST(test_corrupt_aead),
	SST_TEST(test_everything),
	SST_TEST(test_newreno_shape),
	SST_TEST(test_cubic_shape),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_sim_channel") < 0)
		return 1;
	pool = sst_test_pool("sim_channel", 32768, 2048);
	if (pool == NULL)
		return 1;
	return sst_test_run("sim_channel", cases);
}
