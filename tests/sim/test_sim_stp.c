/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * STP in the simulator (docs/stp.md, "The experiment"): two bulk flows share
 * a 10 Mbit/s bottleneck with a 20 ms propagation delay each way and a
 * 25-packet queue. Both start on NewReno; at 0.5 s the receiver of the
 * second flow asks its sender to use a module (lib/stp: USE, SENDME, CODE,
 * OK; the exchange's bytes are handed across directly, not over the
 * simulated link) and the sender's channel switches to it in mid-flight.
 *
 *  - test_greedy_policed: the greedy module (a huge window, never backing
 *    off). Over 60 s of virtual time and 5 seeds, the flow it drives gets
 *    at most the TCP-fair share + 10 %; the policer revokes it and the
 *    channel goes on with NewReno; every item sent arrives, intact.
 *  - test_newreno_kept: NewReno in eBPF, shipped the same way, is never
 *    judged: it runs to the end (20 s) beside native NewReno.
 *  - test_budget_revoked: Vegas under a CPU budget of 1 cycle per call is
 *    revoked after a budget window (40 s of virtual time leave room for
 *    256 timed calls); the transfer completes, intact.
 *
 * Items are one per packet, numbered, with a pattern checked on arrival;
 * lost packets are resent as new ones (as the stream layer does).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>
#include <sodium.h>

#include "cc_bpf.h"
#include "sim.h"
#include "sst_channel.h"
#include "sst_stp.h"
#include "sst_test.h"
#include "sst_test_channel.h"
#include "sst_test_eal.h"

enum {
	ITEM_HDR = 12,
	ITEM_LEN = 1000,
	MAX_ITEMS = 1 << 17,
	NSEEDS = 5,
};

#define RUN_TIME (60 * SST_NSEC_PER_SEC)
#define SHIP_AT (SST_NSEC_PER_SEC / 2)

static struct rte_mempool *pool;

/* One end of one flow: a channel, and what it sent or received. */
struct app {
	struct sst_channel *ch;
	struct node *node;
	uint64_t items, next_item; /* items to send in all (moved at the stop) */
	uint64_t *resend;
	uint64_t nresend;
	sst_time_t wake;
	uint8_t *got;
	uint64_t distinct, dup_items, corrupt_accepted, lost;
};

/* A host: one sim port, two channels numbered 1 and 2. */
struct node {
	struct sim_host *host;
	struct app *apps[2];
};

static void
item_fill(uint8_t *p, uint64_t item)
{
	p[0] = 0x00;
	p[1] = 0x01;
	p[2] = 0x30;
	p[3] = 0x10;
	memcpy(p + 4, &item, sizeof(item));
	for (uint32_t i = ITEM_HDR; i < ITEM_LEN; i++)
		p[i] = (uint8_t)(item * 131 + i * 7);
}

static enum sst_channel_rx_verdict
up_receive(void *ctx, struct rte_mbuf *m, uint64_t seq, sst_time_t now)
{
	struct app *a = ctx;
	uint8_t buf[ITEM_LEN], expect[ITEM_LEN];
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint64_t item;
	bool eliciting = !sst_test_is_ack_only(m);

	(void)seq;
	(void)now;
	if (eliciting) {
		const uint8_t *p = rte_pktmbuf_read(m, 0, RTE_MIN(len, sizeof(buf)), buf);

		memcpy(&item, p + 4, sizeof(item));
		if (len != ITEM_LEN || item >= MAX_ITEMS) {
			a->corrupt_accepted++;
		} else {
			item_fill(expect, item);
			if (memcmp(p, expect, ITEM_LEN) != 0)
				a->corrupt_accepted++;
			else if (a->got[item])
				a->dup_items++;
			else if (++a->distinct > 0)
				a->got[item] = 1;
		}
	}
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
	struct app *a = ctx;

	(void)seq;
	(void)now;
	a->lost++;
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
up_event(void *ctx, enum sst_channel_event ev, sst_time_t now)
{
	(void)ctx;
	(void)now;
	if (ev == SST_CHANNEL_EV_FAILED)
		CU_FAIL("channel failed");
}

static void
low_transmit(void *ctx, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	struct app *a = ctx;

	(void)now;
	for (uint16_t i = 0; i < n; i++)
		sim_host_tx(a->node->host, 0, pkts[i]);
}

static const struct sst_channel_upper upper = {
	.receive = up_receive,
	.acked = up_acked,
	.lost = up_lost,
	.ack_due = up_ack_due,
	.event = up_event,
};

static const struct sst_channel_lower lower = {.transmit = low_transmit};

static void
app_pump(struct app *a, sst_time_t now)
{
	a->wake = SST_TIME_NEVER;
	while (a->nresend > 0 || a->next_item < a->items) {
		sst_time_t next;
		uint64_t item;
		uintptr_t cookie;
		struct rte_mbuf *m;

		if (sst_channel_send_allowance(a->ch, now, &next) == 0) {
			a->wake = next;
			return;
		}
		item = a->nresend > 0 ? a->resend[--a->nresend] : a->next_item++;
		m = rte_pktmbuf_alloc(pool);
		CU_ASSERT_FATAL(m != NULL);
		item_fill((uint8_t *)rte_pktmbuf_append(m, ITEM_LEN), item);
		cookie = (uintptr_t)(item + 1);
		CU_ASSERT_EQUAL(sst_channel_send(a->ch, &m, &cookie, 1, true, now, NULL), 1);
	}
}

static void
node_receive(void *ctx, struct rte_mbuf *m, uint16_t port, sst_time_t now)
{
	struct node *nd = ctx;
	uint8_t chan = *rte_pktmbuf_mtod(m, const uint8_t *);

	(void)port;
	if (chan < 1 || chan > 2) {
		rte_pktmbuf_free(m);
		return;
	}
	sst_channel_receive(nd->apps[chan - 1]->ch, &m, 1, now);
	app_pump(nd->apps[chan - 1], now);
}

static sst_time_t
node_next_expiry(void *ctx)
{
	struct node *nd = ctx;
	sst_time_t t = SST_TIME_NEVER;

	for (int i = 0; i < 2; i++)
		t = sst_time_min(t,
			sst_time_min(sst_channel_next_expiry(nd->apps[i]->ch), nd->apps[i]->wake));
	return t;
}

static void
node_handle_expiry(void *ctx, sst_time_t now)
{
	struct node *nd = ctx;

	for (int i = 0; i < 2; i++) {
		sst_channel_handle_expiry(nd->apps[i]->ch, now);
		app_pump(nd->apps[i], now);
	}
}

static const struct sim_host_ops node_ops = {
	.receive = node_receive,
	.next_expiry = node_next_expiry,
	.handle_expiry = node_handle_expiry,
};

static void
app_init(struct app *a, struct node *nd, struct sim *sim, uint8_t chan, uint32_t tx_key,
	uint32_t rx_key, uint64_t items, uint64_t skip_seed)
{
	struct sst_channel_params p;

	memset(a, 0, sizeof(*a));
	a->node = nd;
	a->items = items;
	a->wake = SST_TIME_NEVER;
	a->resend = calloc(4 * MAX_ITEMS, sizeof(*a->resend));
	a->got = calloc(MAX_ITEMS, 1);
	CU_ASSERT_FATAL(a->resend != NULL && a->got != NULL);
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.local_channel = chan;
	p.peer_channel = chan;
	p.suite = SST_CRYPTO_CHK32;
	p.keys.tx_chk_key = tx_key;
	p.keys.rx_chk_key = rx_key;
	p.cc = "newreno";
	p.replay_window = 8192;
	p.tx_log = 16384;
	p.skip_seed = skip_seed;
	p.pool = pool;
	p.upper = &upper;
	p.upper_ctx = a;
	p.lower = &lower;
	p.lower_ctx = a;
	a->ch = sst_channel_create(&p, sim_now(sim));
	CU_ASSERT_FATAL(a->ch != NULL);
}

static void
app_fini(struct app *a)
{
	sst_channel_destroy(a->ch);
	free(a->resend);
	free(a->got);
}

/* The world: senders a[0], a[1] on host A, receivers b[0], b[1] on host B. */
struct world {
	struct sim *sim;
	struct node na, nb;
	struct app a[2], b[2];
	const char *module;
	uint64_t budget; /* 0: the default */
	const struct sst_cc_ops *shipped;
	uint64_t got_at_stop[2];
	uint8_t *code;
	size_t code_len;
};

/* lib/stp's hooks at the sender of flow 2: the bpf driver, and its channel. */
static const struct sst_cc_ops *
hook_lookup(void *ctx, const uint8_t *hash)
{
	(void)ctx;
	return cc_bpf_find_hash(hash, true);
}

static const struct sst_cc_ops *
hook_load(void *ctx, const uint8_t *code, size_t len, char *err, size_t errlen)
{
	struct world *w = ctx;
	const struct sst_cc_ops *ops = cc_bpf_load_mem(code, len, true, "shipped", err, errlen);

	if (ops != NULL && w->budget != 0)
		cc_bpf_set_budget(ops, w->budget);
	return ops;
}

static int
hook_apply(void *ctx, const struct sst_cc_ops *ops, sst_time_t now)
{
	struct world *w = ctx;

	w->shipped = ops;
	return sst_channel_set_cc(w->a[1].ch, ops, now);
}

static void
move_bytes(struct sst_stp *from, struct sst_stp *to, sst_time_t now)
{
	const uint8_t *p;
	size_t n;

	while ((n = sst_stp_tx_peek(from, &p)) > 0) {
		CU_ASSERT_EQUAL(sst_stp_input(to, p, n, now), 0);
		sst_stp_tx_advance(from, n);
	}
}

/* The receiver of flow 2 asks its sender for the module. */
static void
ship(void *arg, sst_time_t now)
{
	struct world *w = arg;
	static struct sst_stp_policy policy = {.mode = SST_STP_ALLOW_ALL};
	struct sst_stp_hooks hooks = {
		.lookup = hook_lookup, .load = hook_load, .apply = hook_apply, .ctx = w};
	uint8_t hash[SST_STP_HASH_LEN];
	void *rs_mem = aligned_alloc(64, (sst_stp_size() + 63) & ~(size_t)63);
	void *big_rq = aligned_alloc(64, (sst_stp_size() + 63) & ~(size_t)63);
	struct sst_stp *rq, *rs;

	CU_ASSERT_FATAL(rs_mem != NULL && big_rq != NULL);
	crypto_generichash(hash, sizeof(hash), w->code, w->code_len, NULL, 0);
	rq = sst_stp_request(big_rq, hash, w->code, w->code_len, now);
	rs = sst_stp_respond(rs_mem, &policy, NULL, &hooks, now);
	CU_ASSERT_FATAL(rq != NULL && rs != NULL);
	for (int i = 0; i < 3; i++) {
		move_bytes(rq, rs, now);
		move_bytes(rs, rq, now);
	}
	CU_ASSERT_EQUAL(sst_stp_state(rq), SST_STP_ACCEPTED);
	CU_ASSERT_EQUAL(sst_stp_state(rs), SST_STP_ACCEPTED);
	free(rs_mem);
	free(big_rq);
}

/* At the end of the measured period the senders stop taking new items. */
static void
stop(void *arg, sst_time_t now)
{
	struct world *w = arg;

	(void)now;
	for (int i = 0; i < 2; i++) {
		w->a[i].items = w->a[i].next_item;
		w->got_at_stop[i] = w->b[i].distinct;
	}
}

static bool
unfinished(void *arg)
{
	struct world *w = arg;

	for (int i = 0; i < 2; i++) {
		struct sst_channel_info info;

		sst_channel_info(w->a[i].ch, &info);
		if (w->b[i].distinct < w->a[i].items || info.bytes_in_flight != 0 ||
			w->a[i].nresend > 0)
			return true;
	}
	return false;
}

static uint8_t *
image(const char *name, size_t *len)
{
	const char *dir = getenv("SST_CC_BPF_MODULES");
	char path[512];
	uint8_t *buf = malloc(SST_STP_CODE_MAX);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.o", dir != NULL ? dir : ".", name);
	f = fopen(path, "rb");
	CU_ASSERT_FATAL(buf != NULL && f != NULL);
	*len = fread(buf, 1, SST_STP_CODE_MAX, f);
	fclose(f);
	return buf;
}

/* Run one seed; returns the world for the caller's checks (free with
 * world_end()). */
static struct world *
world_run(uint64_t seed, const char *module, uint64_t budget, sst_time_t run_time)
{
	static struct world w;
	struct sim_config cfg = {.seed = seed};
	struct sst_simlink_params l;
	int rc;

	memset(&w, 0, sizeof(w));
	w.module = module;
	w.budget = budget;
	w.code = image(module, &w.code_len);
	/* A revoked module stays revoked for the life of the process, as a
	 * host would have it: each seed ships the same code in an image with
	 * one more trailing byte (which the ELF reader ignores), a new module
	 * to the cache, as if a different peer had shipped it. */
	w.code[w.code_len++] = (uint8_t)seed;
	w.sim = sim_create(&cfg);
	CU_ASSERT_FATAL(w.sim != NULL);
	for (int i = 0; i < 2; i++) {
		app_init(&w.a[i], &w.na, w.sim, (uint8_t)(i + 1), 0xa1a2a3a4 + i, 0xb1b2b3b4 + i,
			MAX_ITEMS, seed + (uint64_t)i);
		app_init(&w.b[i], &w.nb, w.sim, (uint8_t)(i + 1), 0xb1b2b3b4 + i, 0xa1a2a3a4 + i, 0,
			seed + 7 + (uint64_t)i);
		w.na.apps[i] = &w.a[i];
		w.nb.apps[i] = &w.b[i];
	}
	w.na.host = sim_host_add(w.sim, "a", &node_ops, &w.na);
	w.nb.host = sim_host_add(w.sim, "b", &node_ops, &w.nb);
	sst_simlink_params_default(&l);
	l.rate_bps = 10 * 1000 * 1000;
	l.delay_ns = 20 * SST_NSEC_PER_MSEC;
	l.queue_pkts = 25;
	l.capacity = 8192;
	l.pool = pool;
	CU_ASSERT_FATAL(sim_connect(w.sim, w.na.host, 0, w.nb.host, 0, &l, NULL) != NULL);
	CU_ASSERT_EQUAL(sim_schedule(w.sim, SHIP_AT, ship, &w), 0);
	CU_ASSERT_EQUAL(sim_schedule(w.sim, run_time, stop, &w), 0);
	app_pump(&w.a[0], 0);
	app_pump(&w.a[1], 0);
	rc = sim_run_while(w.sim, unfinished, &w, run_time + 120 * SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL(rc, 0);
	for (int i = 0; i < 2; i++) {
		/* No item lost, none altered: the switch and the fallback kept
		 * every packet in flight accounted for. */
		CU_ASSERT_EQUAL(w.b[i].distinct, w.a[i].items);
		CU_ASSERT_EQUAL(w.b[i].corrupt_accepted, 0);
		CU_ASSERT_FALSE(sst_channel_failed(w.a[i].ch));
	}
	return &w;
}

static void
world_end(struct world *w)
{
	for (int i = 0; i < 2; i++) {
		app_fini(&w->a[i]);
		app_fini(&w->b[i]);
	}
	sim_destroy(w->sim);
	free(w->code);
}

static void
test_greedy_policed(void)
{
	double sum_share = 0, worst = 0;

	/* SST_SIM_STP_SEEDS runs fewer seeds (the sanitizer builds, where the
	 * simulation runs some 25 times slower: memory safety is their point,
	 * the figures are the release build's). */
	const char *env = getenv("SST_SIM_STP_SEEDS");
	int nseeds = env != NULL && atoi(env) > 0 && atoi(env) < NSEEDS ? atoi(env) : NSEEDS;
	sst_time_t run_time = RUN_TIME;

	printf("\n");
	for (int k = 0; k < nseeds; k++) {
		struct world *w = world_run(0x5eed0000 + (uint64_t)k, "greedy", 0, run_time);
		struct sst_channel_info info;
		double x1 = (double)w->got_at_stop[0], x2 = (double)w->got_at_stop[1];
		double fair = (x1 + x2) / 2,
		       jain = (x1 + x2) * (x1 + x2) / (2 * (x1 * x1 + x2 * x2));
		double mbps = (x1 + x2) * ITEM_LEN * 8 / ((double)run_time / 1e3);

		CU_ASSERT_PTR_NOT_NULL_FATAL(w->shipped);
		sst_channel_info(w->a[1].ch, &info);
		printf("  seed %d: NewReno %.0f items, greedy-shipped %.0f (%.1f%% of the fair "
		       "share), "
		       "Jain %.4f, %.2f Mbit/s together, policer verdicts %" PRIu64 ", now on %s\n",
			k, x1, x2, 100 * x2 / fair, jain, mbps, cc_bpf_violations(w->shipped),
			info.cc);
		CU_ASSERT(x2 <= 1.10 * fair);
		CU_ASSERT(cc_bpf_revoked(w->shipped));
		CU_ASSERT_STRING_EQUAL(info.cc, "newreno");
		sum_share += x2 / fair;
		worst = x2 / fair > worst ? x2 / fair : worst;
		world_end(w);
	}
	printf("  mean %.1f%%, worst %.1f%% of the fair share\n", 100 * sum_share / nseeds,
		100 * worst);
}

static void
test_budget_revoked(void)
{
	struct world *w = world_run(0x5eedb0d9, "vegas", 1, 40 * SST_NSEC_PER_SEC);
	struct sst_channel_info info;

	CU_ASSERT_PTR_NOT_NULL_FATAL(w->shipped);
	CU_ASSERT(cc_bpf_revoked(w->shipped));
	CU_ASSERT_EQUAL(cc_bpf_violations(w->shipped), 0); /* the budget, not the policer */
	CU_ASSERT(cc_bpf_fallbacks(w->shipped) >= 1);
	sst_channel_info(w->a[1].ch, &info);
	CU_ASSERT_STRING_EQUAL(info.cc, "newreno");
	printf(" flow 2: %" PRIu64 " items, all intact ", w->b[1].distinct);
	world_end(w);
}

/* A module that complies is never judged: NewReno in eBPF, shipped the
 * same way, runs to the end beside native NewReno and shares fairly. */
static void
test_newreno_kept(void)
{
	struct world *w = world_run(0x5eed4e52, "newreno", 0, 20 * SST_NSEC_PER_SEC);
	double x1 = (double)w->got_at_stop[0], x2 = (double)w->got_at_stop[1];
	struct sst_channel_info info;

	CU_ASSERT_PTR_NOT_NULL_FATAL(w->shipped);
	sst_channel_info(w->a[1].ch, &info);
	printf(" native %.0f items, shipped %.0f, verdicts %" PRIu64 ", on %s ", x1, x2,
		cc_bpf_violations(w->shipped), info.cc);
	CU_ASSERT_FALSE(cc_bpf_revoked(w->shipped));
	CU_ASSERT_STRING_NOT_EQUAL(info.cc, "newreno");
	world_end(w);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_newreno_kept),
	SST_TEST(test_greedy_policed),
	SST_TEST(test_budget_revoked),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_sim_stp") < 0 || sodium_init() < 0)
		return 1;
	pool = sst_test_pool("sim_stp", 32768, 2048);
	if (pool == NULL)
		return 1;
	return sst_test_run("sim_stp", cases);
}
