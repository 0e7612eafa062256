/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NewReno in eBPF against native NewReno in the simulator (issue 18's first
 * acceptance point, docs/stp.md): one channel sends items over a lossy
 * 10 Mbit/s, 20 ms bottleneck with a 25-packet queue, once with "newreno",
 * once with "bpf:newreno.o" (JIT-compiled where rte_bpf can) and once with
 * "bpfi:newreno.o" (rte_bpf's interpreter), from the same seed. The sender's
 * channel traces every change of its window and ssthresh, every RTT sample,
 * loss and timeout (sst_channel_set_trace()); the three traces must be equal
 * element by element. Any difference in a module's decisions changes the
 * window, hence what is sent, hence everything after it.
 *
 * The scenario makes every entry point count: the network drops the whole
 * first flight, so the first event is a timeout before any RTT sample
 * (ssthresh must stay, SST_CC_BPF_F_NO_RTT_SAMPLE); random loss and the
 * queue's tail drops give recovery epochs; after the first half of the
 * items the sender falls silent for 3 s and resumes (the restart after
 * idle, on_idle). The modules run unpoliced and with an unbounded CPU
 * budget: the policer caps a module's window, native NewReno has no cap,
 * and this test compares arithmetic (test_sim_stp runs the policed ones).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "cc_bpf.h"
#include "sim.h"
#include "sim_chan.h"
#include "sst_channel.h"
#include "sst_test.h"
#include "sst_test_channel.h"
#include "sst_test_eal.h"

enum {
	ITEMS = 4000,	   /* items in all */
	FIRST_HALF = 2000, /* sent before the silence */
	ITEM_LEN = 1000,   /* bytes per item */
	TRACE_MAX = 1 << 20,
	MAX_SEQ = 1 << 16,
};

#define IDLE_TIME (3 * SST_NSEC_PER_SEC)

static struct rte_mempool *pool;

struct app {
	struct sst_channel *ch;
	struct sim_host *host;
	struct sim *sim;
	struct sim_chan_host glue; /* the host's context: the channel, the pump's wake-up */
	bool sender;
	uint64_t limit;	    /* items the sender may send so far */
	uint64_t next_item; /* the next new item */
	uint64_t resend[MAX_SEQ];
	uint64_t nresend;
	uint64_t acked_items; /* data packets acked */
	uint64_t dropped;     /* of the first flight */
	sst_time_t resume;    /* when the silence ends; 0: not yet scheduled */
	uint8_t got[ITEMS];
	uint64_t distinct;
	struct sst_channel_trace *trace;
	uint64_t ntrace;
};

static void app_pump(struct app *a, sst_time_t now);

static void
on_trace(void *ctx, const struct sst_channel_trace *t)
{
	struct app *a = ctx;

	if (a->ntrace < TRACE_MAX)
		a->trace[a->ntrace++] = *t;
}

static enum sst_channel_rx_verdict
up_receive(void *ctx, struct rte_mbuf *m, uint64_t seq, sst_time_t now)
{
	struct app *a = ctx;
	uint64_t item;

	(void)seq;
	(void)now;
	if (sst_test_is_ack_only(m)) {
		rte_pktmbuf_free(m);
		return SST_CHANNEL_RX_ACCEPT;
	}
	CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(m), ITEM_LEN);
	memcpy(&item, rte_pktmbuf_mtod(m, const uint8_t *), sizeof(item));
	CU_ASSERT_FATAL(item < ITEMS);
	if (!a->got[item]) {
		a->got[item] = 1;
		a->distinct++;
	}
	rte_pktmbuf_free(m);
	return SST_CHANNEL_RX_NEEDS_ACK;
}

static void
resume(void *arg, sst_time_t now)
{
	struct app *a = arg;

	a->limit = ITEMS;
	app_pump(a, now);
}

static void
up_acked(void *ctx, uint64_t seq, uintptr_t cookie, sst_time_t now)
{
	struct app *a = ctx;

	(void)seq;
	if (cookie == 0)
		return;
	/* The first half is all acked: silence, then the second half. */
	if (++a->acked_items == FIRST_HALF && a->resume == 0) {
		a->resume = now + IDLE_TIME;
		CU_ASSERT_EQUAL(sim_schedule(a->sim, a->resume, resume, a), 0);
	}
}

static void
up_lost(void *ctx, uint64_t seq, uintptr_t cookie, sst_time_t now)
{
	struct app *a = ctx;

	(void)seq;
	(void)now;
	if (cookie != 0) {
		CU_ASSERT_FATAL(a->nresend < MAX_SEQ);
		a->resend[a->nresend++] = cookie - 1;
	}
}

static void
up_ack_due(void *ctx, sst_time_t now)
{
	struct app *a = ctx;

	sst_test_send_ack_only(a->ch, pool, now);
}

/* The network loses the sender's whole first flight (the data packets that
 * leave at 0, unpaced before any RTT sample): the retransmission timer
 * fires on the initial RTO with no RTT sample. */
static void
low_transmit(void *ctx, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	struct app *a = ctx;

	for (uint16_t i = 0; i < n; i++) {
		if (a->sender && now == 0 && !sst_test_is_ack_only(pkts[i])) {
			a->dropped++;
			rte_pktmbuf_free(pkts[i]);
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
	while (a->sender && (a->nresend > 0 || a->next_item < a->limit)) {
		sst_time_t next;
		uint64_t item;
		uintptr_t cookie;
		struct rte_mbuf *m;
		uint8_t *p;

		if (sst_channel_send_allowance(a->ch, now, &next) == 0) {
			a->glue.wake = next;
			return;
		}
		item = a->nresend > 0 ? a->resend[--a->nresend] : a->next_item++;
		m = rte_pktmbuf_alloc(pool);
		CU_ASSERT_FATAL(m != NULL);
		p = (uint8_t *)rte_pktmbuf_append(m, ITEM_LEN);
		CU_ASSERT_FATAL(p != NULL);
		memset(p, 0x5a, ITEM_LEN);
		memcpy(p, &item, sizeof(item));
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

static void
app_init(struct app *a, struct sim *sim, const char *name, const char *cc, bool sender,
	uint32_t tx_key, uint32_t rx_key)
{
	struct sst_channel_params p;

	memset(a, 0, sizeof(*a));
	a->sim = sim;
	a->sender = sender;
	a->limit = sender ? FIRST_HALF : 0;
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.local_channel = 1;
	p.peer_channel = 1;
	p.suite = SST_CRYPTO_CHK32;
	p.keys.tx_chk_key = tx_key;
	p.keys.rx_chk_key = rx_key;
	p.cc = cc;
	p.replay_window = 8192;
	p.tx_log = 16384;
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
	if (sender) {
		a->trace = calloc(TRACE_MAX, sizeof(*a->trace));
		CU_ASSERT_FATAL(a->trace != NULL);
		sst_channel_set_trace(a->ch, on_trace, a);
	}
}

static bool
unfinished(void *arg)
{
	struct app *ab = arg;
	struct sst_channel_info info;

	sst_channel_info(ab[0].ch, &info);
	return ab[1].distinct < ITEMS || info.bytes_in_flight != 0;
}

/* One run with controller @p cc; the sender's trace is handed to the
 * caller (free it), with its length in @p n. */
static struct sst_channel_trace *
run(const char *cc, uint64_t seed, uint64_t *n)
{
	static struct app ab[2];
	struct sim_config cfg = {.seed = seed};
	struct sim *sim = sim_create(&cfg);
	struct sst_simlink_params l;
	struct sst_channel_trace *trace;
	int rc;

	CU_ASSERT_FATAL(sim != NULL);
	sst_simlink_params_default(&l);
	l.rate_bps = 10 * 1000 * 1000;
	l.delay_ns = 20 * SST_NSEC_PER_MSEC;
	l.queue_pkts = 25;
	l.capacity = 8192;
	l.loss = 0.01;
	l.pool = pool;
	app_init(&ab[0], sim, "a", cc, true, 0xa1a2a3a4, 0xb1b2b3b4);
	app_init(&ab[1], sim, "b", "newreno", false, 0xb1b2b3b4, 0xa1a2a3a4);
	CU_ASSERT_FATAL(sim_connect(sim, ab[0].host, 0, ab[1].host, 0, &l, NULL) != NULL);
	app_pump(&ab[0], 0);
	rc = sim_run_while(sim, unfinished, ab, 3600 * SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(ab[1].distinct, ITEMS);
	CU_ASSERT_FALSE(sst_channel_failed(ab[0].ch));
	CU_ASSERT(ab[0].ntrace < TRACE_MAX);
	printf("\n  %-24s %.3f s virtual, %" PRIu64 " trace events", cc, (double)sim_now(sim) / 1e9,
		ab[0].ntrace);
	trace = ab[0].trace;
	*n = ab[0].ntrace;
	sst_channel_destroy(ab[0].ch);
	sst_channel_destroy(ab[1].ch);
	sim_destroy(sim);
	return trace;
}

static const char *const kinds[] = {"?", "rtt", "cwnd", "loss", "rto"};

static void
print_event(const char *who, uint64_t i, const struct sst_channel_trace *t)
{
	printf("\n  %s[%" PRIu64 "]: %s at %" PRIu64 " ns: %" PRIu64 " %" PRIu64 " %" PRIu64, who,
		i, t->kind <= SST_CHANNEL_TRACE_RTO ? kinds[t->kind] : "?", (uint64_t)t->now,
		t->v[0], t->v[1], t->v[2]);
}

/* Element by element; the first difference is printed with its context. */
static bool
traces_equal(const struct sst_channel_trace *a, uint64_t na, const struct sst_channel_trace *b,
	uint64_t nb)
{
	for (uint64_t i = 0; i < na && i < nb; i++) {
		if (a[i].kind == b[i].kind && a[i].now == b[i].now && a[i].v[0] == b[i].v[0] &&
			a[i].v[1] == b[i].v[1] && a[i].v[2] == b[i].v[2])
			continue;
		printf("\n  traces differ at event %" PRIu64 " of %" PRIu64 "/%" PRIu64 ":", i, na,
			nb);
		if (i > 0)
			print_event("native", i - 1, &a[i - 1]);
		print_event("native", i, &a[i]);
		print_event("module", i, &b[i]);
		return false;
	}
	if (na != nb)
		printf("\n  traces differ in length: %" PRIu64 " against %" PRIu64, na, nb);
	return na == nb;
}

/* The scenario reached every entry point it is meant to exercise. */
static void
check_scenario(const struct sst_channel_trace *t, uint64_t n)
{
	uint64_t losses = 0, cwnd_changes = 0, rto_first = 0, restarts = 0;
	uint64_t mss = 0, iw = UINT64_MAX, prev_cwnd = 0;
	bool rtt_seen = false, after_rto = false;

	for (uint64_t i = 0; i < n; i++) {
		switch (t[i].kind) {
		case SST_CHANNEL_TRACE_RTT:
			rtt_seen = true;
			break;
		case SST_CHANNEL_TRACE_RTO:
			if (!rtt_seen) {
				rto_first++;
				after_rto = true;
			}
			break;
		case SST_CHANNEL_TRACE_LOSS:
			losses++;
			break;
		case SST_CHANNEL_TRACE_CWND:
			cwnd_changes++;
			/* The window after the first flight's timeout: the loss
			 * window, one packet (so this is the mss), with ssthresh
			 * unchanged since no RTT was sampled. */
			if (after_rto && mss == 0) {
				mss = t[i].v[0];
				CU_ASSERT(mss > 0 && mss < 2000);
				CU_ASSERT_EQUAL(t[i].v[1], UINT64_MAX);
				iw = sst_cc_initial_window((uint32_t)mss);
			}
			after_rto = false;
			/* A restart after idle: from a window above IW to IW
			 * with nothing in flight. */
			if (t[i].v[0] == iw && prev_cwnd > iw && t[i].v[2] == 0)
				restarts++;
			prev_cwnd = t[i].v[0];
			break;
		default:
			break;
		}
	}
	printf("\n  scenario: %" PRIu64 " window changes, %" PRIu64 " losses, %" PRIu64
	       " first-flight timeouts, %" PRIu64 " restarts after idle",
		cwnd_changes, losses, rto_first, restarts);
	CU_ASSERT(rto_first >= 1);
	CU_ASSERT(mss != 0);
	CU_ASSERT(losses >= 20);
	CU_ASSERT(restarts >= 1);
	CU_ASSERT(cwnd_changes >= 1000);
}

static const struct sst_cc_ops *
module(const char *name)
{
	char err[CC_BPF_ERR_MAX];
	const struct sst_cc_ops *ops = sst_cc_resolve(name, err, sizeof(err));

	if (ops == NULL)
		printf("\n  %s: %s", name, err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ops);
	/* Arithmetic only: no policer cap, no budget on a loaded machine. */
	cc_bpf_set_policed(ops, false);
	cc_bpf_set_budget(ops, UINT64_MAX);
	return ops;
}

static void
test_newreno_trace(void)
{
	const char *dir = getenv("SST_CC_BPF_MODULES");
	uint64_t seed = sim_seed_from_env(0x7ace);
	char jit_name[512], interp_name[512];
	const struct sst_cc_ops *jit, *interp;
	struct sst_channel_trace *native, *tj, *ti;
	uint64_t nn, nj, ni;
	bool same, same_i;

	snprintf(jit_name, sizeof(jit_name), "bpf:%s/newreno.o", dir != NULL ? dir : ".");
	snprintf(interp_name, sizeof(interp_name), "bpfi:%s/newreno.o", dir != NULL ? dir : ".");
	jit = module(jit_name);
	interp = module(interp_name);
	native = run("newreno", seed, &nn);
	tj = run(jit_name, seed, &nj);
	ti = run(interp_name, seed, &ni);
	check_scenario(native, nn);
	same = traces_equal(native, nn, tj, nj);
	CU_ASSERT_TRUE(same);
	same_i = traces_equal(native, nn, ti, ni);
	CU_ASSERT_TRUE(same_i);
	CU_ASSERT_FALSE(cc_bpf_revoked(jit));
	CU_ASSERT_FALSE(cc_bpf_revoked(interp));
	CU_ASSERT_FALSE(cc_bpf_is_jit(interp));
#if defined(RTE_ARCH_X86_64)
	CU_ASSERT_TRUE(cc_bpf_is_jit(jit));
#endif
	if (same && same_i)
		printf("\n  %s (%s) and its interpreter: identical to native NewReno\n  ", jit_name,
			cc_bpf_is_jit(jit) ? "JIT" : "no JIT here");
	free(native);
	free(tj);
	free(ti);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_newreno_trace),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_sim_stp_trace") < 0)
		return 1;
	pool = sst_test_pool("sim_stp_trace", 32768, 2048);
	if (pool == NULL)
		return 1;
	return sst_test_run("sim_stp_trace", cases);
}
