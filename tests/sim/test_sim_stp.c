/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * STP in the simulator (docs/stp.md, "The experiment"): two bulk flows share
 * a 10 Mbit/s bottleneck with a 20 ms propagation delay each way and a
 * 25-packet queue. Each flow is one stream between two stream hosts, over
 * its own channel; both channels cross the same link. Both start on
 * NewReno; at 0.5 s the receiver of the second flow opens a stream to the
 * sender's STP service (sst-stp, protocol cc) and asks it to use a module
 * (lib/stp: USE, SENDME, CODE, OK), over that flow's channel and through the
 * bottleneck, as sst-perf does over a real network; the sender's channel
 * switches to the module in mid-flight.
 *
 *  - test_greedy_policed: the greedy module (a huge window, never backing
 *    off). Over 60 s of virtual time and 5 seeds, the flow it drives gets
 *    at most the TCP-fair share + 10 %; the policer revokes it and the
 *    channel goes on with NewReno; every byte written arrives, intact.
 *  - test_newreno_kept: NewReno in eBPF, shipped the same way, is never
 *    judged: it runs to the end (20 s) beside native NewReno.
 *  - test_budget_revoked: Vegas under a CPU budget of 1 cycle per call is
 *    revoked after a budget window (40 s of virtual time leave room for
 *    256 timed calls); the transfer completes, intact.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_mbuf.h>
#include <sodium.h>

#include "cc_bpf.h"
#include "sim.h"
#include "sst_channel.h"
#include "sst_stp.h"
#include "sst_stream.h"
#include "sst_test.h"
#include "sst_test_eal.h"

enum {
	NSEEDS = 5,
	CHUNK = 1000,	  /* bytes per write */
	STP_CHUNK = 1024, /* bytes per write of the exchange */
	READ_BURST = 32,
};

#define RUN_TIME (60 * SST_NSEC_PER_SEC)
#define SHIP_AT (SST_NSEC_PER_SEC / 2)

static struct rte_mempool *pool, *clone_pool;
/* The STP service's context at the sender: tells its streams apart. */
static int stp_service;

struct world;
struct flow;

/* One end of one flow: a stream host with one peer and one channel. */
struct end {
	struct flow *f;
	int side; /* 0: the sender, on host a; 1: the receiver, on host b */
	struct sst_stream_host *sh;
	struct sst_stream_peer *peer;
	struct sst_stream_chan *chan;
	struct sst_stream *data;  /* the bulk stream */
	struct sst_stream *stp_s; /* the exchange's stream (flow 2) */
	struct sst_stp *stp;	  /* its state */
};

struct flow {
	struct world *w;
	int idx; /* channel idx + 1 on the wire */
	struct end end[2];
	uint64_t written, got, got_at_stop;
	bool bad, eof;
};

/* A simulated host: the ends of both flows on one side. */
struct node {
	struct world *w;
	int side;
	struct sim_host *host;
};

struct world {
	struct sim *sim;
	struct node node[2];
	struct flow flow[2];
	uint64_t budget; /* 0: the default */
	const struct sst_cc_ops *shipped;
	uint8_t *code;
	size_t code_len;
	bool stopped;
	enum sst_stp_state outcome[2]; /* the exchange at the receiver, the sender */
	bool code_crossed;	       /* CODE went over the link (not from the cache) */
};

/* A flow's bytes: byte off is pattern[(off + flow * 1000) % PERIOD], a
 * period no write or segment size divides, so that a byte out of place
 * shows; writes copy from the table and reads compare with it. */
enum { PERIOD = 4093 };
static uint8_t pattern[PERIOD + 4096];

static const uint8_t *
flow_bytes(const struct flow *f, uint64_t off)
{
	return &pattern[(off + (uint64_t)f->idx * 1000) % PERIOD];
}

static void pump(struct world *w, sst_time_t now);

/* The sender writes while the stream takes it, until the stop. */
static void
write_more(struct end *e, sst_time_t now)
{
	struct flow *f = e->f;

	while (e->data != NULL && !f->w->stopped) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint8_t *p;

		CU_ASSERT_FATAL(m != NULL);
		p = (uint8_t *)rte_pktmbuf_append(m, CHUNK);
		memcpy(p, flow_bytes(f, f->written), CHUNK);
		if (sst_stream_write(e->data, m, 0, now) < 0) {
			rte_pktmbuf_free(m); /* ops.writable() comes back */
			return;
		}
		f->written += CHUNK;
	}
	if (e->data != NULL && f->w->stopped) {
		/* What was written still goes out: the receiver reads it all. */
		sst_stream_close(e->data, now);
		e->data = NULL;
	}
}

/* The receiver reads and checks every byte. */
static void
read_data(struct end *e, sst_time_t now)
{
	struct flow *f = e->f;
	struct sst_stream_data d[READ_BURST];
	int n;

	while ((n = sst_stream_read(e->data, d, READ_BURST, now)) > 0)
		for (int i = 0; i < n; i++) {
			for (struct rte_mbuf *seg = d[i].m; seg != NULL; seg = seg->next) {
				const uint8_t *p = rte_pktmbuf_mtod(seg, const uint8_t *);

				f->bad |= seg->data_len > sizeof(pattern) - PERIOD ||
					  memcmp(p, flow_bytes(f, f->got), seg->data_len) != 0;
				f->got += seg->data_len;
			}
			rte_pktmbuf_free(d[i].m);
		}
	if (n == -EPIPE && !f->eof) {
		f->eof = true;
		sst_stream_close(e->data, now);
		e->data = NULL;
	}
}

/* Write what the exchange offers while its stream takes it. */
static void
stp_tx(struct end *e, sst_time_t now)
{
	const uint8_t *p;
	size_t n;

	while (e->stp_s != NULL && (n = sst_stp_tx_peek(e->stp, &p)) > 0) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint16_t k = (uint16_t)(n < STP_CHUNK ? n : STP_CHUNK);

		CU_ASSERT_FATAL(m != NULL);
		memcpy(rte_pktmbuf_append(m, k), p, k);
		if (sst_stream_write(e->stp_s, m, 0, now) < 0) {
			rte_pktmbuf_free(m);
			return;
		}
		sst_stp_tx_advance(e->stp, k);
	}
}

/* Feed the exchange what its stream brought; close it once it ended. */
static void
stp_serve(struct end *e, bool ended, sst_time_t now)
{
	struct world *w = e->f->w;
	struct sst_stream_data d[READ_BURST];
	int n = 0;

	while (!ended && (n = sst_stream_read(e->stp_s, d, READ_BURST, now)) > 0)
		for (int i = 0; i < n; i++) {
			for (struct rte_mbuf *seg = d[i].m; seg != NULL; seg = seg->next)
				sst_stp_input(e->stp, rte_pktmbuf_mtod(seg, const uint8_t *),
					seg->data_len, now);
			rte_pktmbuf_free(d[i].m);
		}
	if (ended || n == -EPIPE || n == -ECONNRESET)
		sst_stp_input_end(e->stp, now);
	stp_tx(e, now);
	if (!sst_stp_done(e->stp) || sst_stp_tx_peek(e->stp, &(const uint8_t *){NULL}) > 0)
		return;
	w->outcome[e->side] = sst_stp_state(e->stp);
	if (e->side == 0)
		w->code_crossed = sst_stp_code_received(e->stp);
	sst_stream_close(e->stp_s, now);
	e->stp_s = NULL;
}

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
	return sst_channel_set_cc(sst_stream_chan_channel(w->flow[1].end[0].chan), ops, now);
}

static void
op_connected(void *ctx, struct sst_stream *s, int err, sst_time_t now)
{
	(void)ctx;
	(void)s;
	(void)now;
	CU_ASSERT_EQUAL(err, 0);
}

static void
op_accepted(void *ctx, struct sst_stream *parent, struct sst_stream *s, void *svc, sst_time_t now)
{
	static struct sst_stp_policy policy = {.mode = SST_STP_ALLOW_ALL};
	struct end *e = ctx;
	struct world *w = e->f->w;

	CU_ASSERT_FATAL(parent == NULL);
	if (svc != &stp_service) {
		e->data = s;
		read_data(e, now);
		return;
	}
	/* The sender's side of STP: the receiver asks it for a better sender. */
	CU_ASSERT_FATAL(e->stp_s == NULL);
	e->stp_s = s;
	CU_ASSERT_FATAL(sst_stp_respond(e->stp, &policy, NULL,
				&(struct sst_stp_hooks){.lookup = hook_lookup,
					.load = hook_load,
					.apply = hook_apply,
					.ctx = w},
				now) != NULL);
	stp_serve(e, false, now);
}

static void
op_readable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct end *e = ctx;

	if (s == e->data)
		read_data(e, now);
	else if (s == e->stp_s)
		stp_serve(e, false, now);
}

static void
op_writable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct end *e = ctx;

	if (s == e->data)
		write_more(e, now);
	else if (s == e->stp_s)
		stp_serve(e, false, now);
}

static void
op_closed(void *ctx, struct sst_stream *s, enum sst_stream_end why, sst_time_t now)
{
	struct end *e = ctx;

	if (s == e->stp_s)
		stp_serve(e, true, now);
	else if (s == e->data && why != SST_STREAM_FINISHED)
		CU_FAIL("bulk stream ended early");
}

static const struct sst_stream_ops stream_ops = {
	.connected = op_connected,
	.accepted = op_accepted,
	.readable = op_readable,
	.writable = op_writable,
	.closed = op_closed,
};

static void
low_transmit(void *ctx, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	struct end *e = ctx;

	(void)now;
	for (uint16_t i = 0; i < n; i++)
		sim_host_tx(e->f->w->node[e->side].host, 0, pkts[i]);
}

static const struct sst_channel_lower lower = {.transmit = low_transmit};

/* After every event: what can be written is, and the channels send it. */
static void
pump(struct world *w, sst_time_t now)
{
	for (int i = 0; i < 2; i++)
		write_more(&w->flow[i].end[0], now);
	for (int i = 0; i < 2; i++)
		for (int side = 0; side < 2; side++)
			sst_stream_chan_flush(w->flow[i].end[side].chan, now);
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
	sst_channel_receive(
		sst_stream_chan_channel(nd->w->flow[chan - 1].end[nd->side].chan), &m, 1, now);
	pump(nd->w, now);
}

static sst_time_t
node_next_expiry(void *ctx)
{
	struct node *nd = ctx;
	sst_time_t t = SST_TIME_NEVER;

	for (int i = 0; i < 2; i++) {
		struct sst_stream_chan *c = nd->w->flow[i].end[nd->side].chan;

		t = sst_time_min(t, sst_channel_next_expiry(sst_stream_chan_channel(c)));
		t = sst_time_min(t, sst_stream_chan_next_expiry(c));
	}
	return t;
}

static void
node_handle_expiry(void *ctx, sst_time_t now)
{
	struct node *nd = ctx;

	for (int i = 0; i < 2; i++)
		sst_channel_handle_expiry(
			sst_stream_chan_channel(nd->w->flow[i].end[nd->side].chan), now);
	pump(nd->w, now);
}

static const struct sim_host_ops node_ops = {
	.receive = node_receive,
	.next_expiry = node_next_expiry,
	.handle_expiry = node_handle_expiry,
};

/* One end's stream host, peer and channel (channel idx + 1 on the wire). */
static void
end_init(struct world *w, struct flow *f, int side, uint64_t seed)
{
	static int instance;
	struct end *e = &f->end[side];
	struct sst_stream_host_params hp;
	struct sst_channel_params chp;
	struct sst_stream_chan_params cp;
	uint32_t key[2] = {0xa1a2a3a4u + (uint32_t)f->idx, 0xb1b2b3b4u + (uint32_t)f->idx};
	uint8_t hcid[2][8];
	char name[32];

	e->f = f;
	e->side = side;
	e->stp = aligned_alloc(64, (sst_stp_size() + 63) & ~(size_t)63);
	CU_ASSERT_FATAL(e->stp != NULL);
	snprintf(name, sizeof(name), "stp%d", instance++);
	memset(&hp, 0, sizeof(hp));
	hp.size = sizeof(hp);
	hp.name = name;
	hp.pool = pool;
	hp.clone_pool = clone_pool;
	hp.max_streams = 64;
	hp.max_tx_buffers = 8;
	hp.max_rx_buffers = 8;
	hp.peer_max_streams = 64;
	hp.peer_max_tx_buffers = 8;
	hp.peer_max_rx_buffers = 8;
	hp.max_sids = 64;
	hp.ops = &stream_ops;
	hp.ctx = e;
	e->sh = sst_stream_host_create(&hp);
	if (e->sh == NULL)
		printf("\nstream host: %s\n", rte_strerror(rte_errno));
	CU_ASSERT_FATAL(e->sh != NULL);
	e->peer = sst_stream_peer_create(e->sh, SST_CAPS_ALL);
	CU_ASSERT_FATAL(e->peer != NULL);
	CU_ASSERT_FATAL((side == 1 ? sst_stream_listen(e->sh, "test", "bulk", NULL)
				   : sst_stream_listen(e->sh, SST_STP_SERVICE, SST_STP_PROTOCOL,
					     &stp_service)) == 0);
	/* Half-channel IDs: per flow, and the two directions differ. */
	memset(hcid, 0xc0 + f->idx, sizeof(hcid));
	hcid[1][0] ^= 0xff;
	memset(&chp, 0, sizeof(chp));
	chp.size = sizeof(chp);
	chp.local_channel = (uint8_t)f->idx;
	chp.peer_channel = (uint8_t)f->idx;
	chp.suite = SST_CRYPTO_CHK32;
	chp.keys.tx_chk_key = key[side];
	chp.keys.rx_chk_key = key[1 - side];
	chp.cc = "newreno";
	chp.replay_window = 8192;
	chp.tx_log = 16384;
	chp.skip_seed = seed + (uint64_t)(2 * f->idx + side);
	chp.pool = pool;
	chp.lower = &lower;
	chp.lower_ctx = e;
	memset(&cp, 0, sizeof(cp));
	cp.channel = &chp;
	cp.local_hcid = hcid[side];
	cp.local_hcid_len = 8;
	cp.peer_hcid = hcid[1 - side];
	cp.peer_hcid_len = 8;
	cp.initiator = side == 0;
	e->chan = sst_stream_chan_create(e->peer, &cp, sim_now(w->sim));
	CU_ASSERT_FATAL(e->chan != NULL);
}

static void
end_fini(struct end *e)
{
	sst_stream_peer_destroy(e->peer);
	sst_stream_host_destroy(e->sh);
	free(e->stp);
}

/* The receiver of flow 2 asks its sender for the module, on a stream of
 * its own over flow 2's channel. */
static void
ship(void *arg, sst_time_t now)
{
	struct world *w = arg;
	struct end *e = &w->flow[1].end[1];
	uint8_t hash[SST_STP_HASH_LEN];

	crypto_generichash(hash, sizeof(hash), w->code, w->code_len, NULL, 0);
	e->stp_s = sst_stream_connect(e->peer, SST_STP_SERVICE, SST_STP_PROTOCOL, now);
	CU_ASSERT_FATAL(e->stp_s != NULL);
	CU_ASSERT_FATAL(sst_stp_request(e->stp, hash, w->code, w->code_len, now) != NULL);
	stp_tx(e, now);
	pump(w, now);
}

/* At the end of the measured period the senders stop writing. */
static void
stop(void *arg, sst_time_t now)
{
	struct world *w = arg;

	w->stopped = true;
	for (int i = 0; i < 2; i++)
		w->flow[i].got_at_stop = w->flow[i].got;
	pump(w, now);
}

static bool
unfinished(void *arg)
{
	struct world *w = arg;

	return !w->flow[0].eof || !w->flow[1].eof;
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
	w.budget = budget;
	w.code = image(module, &w.code_len);
	/* A revoked module stays revoked for the life of the process, as a
	 * host would have it: each seed ships the same code in an image with
	 * one more trailing byte (which the ELF reader ignores), a new module
	 * to the cache, as if a different peer had shipped it. */
	w.code[w.code_len++] = (uint8_t)seed;
	w.sim = sim_create(&cfg);
	CU_ASSERT_FATAL(w.sim != NULL);
	for (int side = 0; side < 2; side++) {
		w.node[side] = (struct node){.w = &w, .side = side};
		w.node[side].host = sim_host_add(w.sim, side ? "b" : "a", &node_ops, &w.node[side]);
		CU_ASSERT_FATAL(w.node[side].host != NULL);
	}
	for (int i = 0; i < 2; i++) {
		w.flow[i].w = &w;
		w.flow[i].idx = i + 1;
		end_init(&w, &w.flow[i], 0, seed);
		end_init(&w, &w.flow[i], 1, seed);
	}
	sst_simlink_params_default(&l);
	l.rate_bps = 10 * 1000 * 1000;
	l.delay_ns = 20 * SST_NSEC_PER_MSEC;
	l.queue_pkts = 25;
	l.capacity = 8192;
	l.pool = pool;
	CU_ASSERT_FATAL(sim_connect(w.sim, w.node[0].host, 0, w.node[1].host, 0, &l, NULL) != NULL);
	for (int i = 0; i < 2; i++) {
		w.flow[i].end[0].data =
			sst_stream_connect(w.flow[i].end[0].peer, "test", "bulk", 0);
		CU_ASSERT_FATAL(w.flow[i].end[0].data != NULL);
	}
	CU_ASSERT_EQUAL(sim_schedule(w.sim, SHIP_AT, ship, &w), 0);
	CU_ASSERT_EQUAL(sim_schedule(w.sim, run_time, stop, &w), 0);
	pump(&w, 0);
	rc = sim_run_while(w.sim, unfinished, &w, run_time + 120 * SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL(rc, 0);
	/* The exchange crossed the link: USE, SENDME, CODE, OK. */
	CU_ASSERT_EQUAL(w.outcome[1], SST_STP_ACCEPTED);
	CU_ASSERT_EQUAL(w.outcome[0], SST_STP_ACCEPTED);
	CU_ASSERT(w.code_crossed);
	for (int i = 0; i < 2; i++) {
		struct flow *f = &w.flow[i];

		/* No byte lost, none altered: the switch and the fallback kept
		 * every packet in flight accounted for. */
		CU_ASSERT(f->eof);
		CU_ASSERT_EQUAL(f->got, f->written);
		CU_ASSERT_FALSE(f->bad);
		CU_ASSERT_FALSE(sst_channel_failed(sst_stream_chan_channel(f->end[0].chan)));
	}
	return &w;
}

static void
world_end(struct world *w)
{
	for (int i = 0; i < 2; i++) {
		end_fini(&w->flow[i].end[0]);
		end_fini(&w->flow[i].end[1]);
	}
	sim_destroy(w->sim);
	free(w->code);
}

static const char *
sender_cc(struct world *w, int i)
{
	static struct sst_channel_info info;

	sst_channel_info(sst_stream_chan_channel(w->flow[i].end[0].chan), &info);
	return info.cc;
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
		double x1 = (double)w->flow[0].got_at_stop, x2 = (double)w->flow[1].got_at_stop;
		double fair = (x1 + x2) / 2,
		       jain = (x1 + x2) * (x1 + x2) / (2 * (x1 * x1 + x2 * x2));
		double mbps = (x1 + x2) * 8 / ((double)run_time / 1e3);

		CU_ASSERT_PTR_NOT_NULL_FATAL(w->shipped);
		printf("  seed %d: NewReno %.0f bytes, greedy-shipped %.0f (%.1f%% of the fair "
		       "share), Jain %.4f, %.2f Mbit/s together, policer verdicts %" PRIu64
		       ", now on %s\n",
			k, x1, x2, 100 * x2 / fair, jain, mbps, cc_bpf_violations(w->shipped),
			sender_cc(w, 1));
		CU_ASSERT(x2 <= 1.10 * fair);
		CU_ASSERT(cc_bpf_revoked(w->shipped));
		CU_ASSERT_STRING_EQUAL(sender_cc(w, 1), "newreno");
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

	CU_ASSERT_PTR_NOT_NULL_FATAL(w->shipped);
	CU_ASSERT(cc_bpf_revoked(w->shipped));
	CU_ASSERT_EQUAL(cc_bpf_violations(w->shipped), 0); /* the budget, not the policer */
	CU_ASSERT(cc_bpf_fallbacks(w->shipped) >= 1);
	CU_ASSERT_STRING_EQUAL(sender_cc(w, 1), "newreno");
	printf(" flow 2: %" PRIu64 " bytes, all intact ", w->flow[1].got);
	world_end(w);
}

/* A module that complies is never judged: NewReno in eBPF, shipped the
 * same way, runs to the end beside native NewReno. */
static void
test_newreno_kept(void)
{
	struct world *w = world_run(0x5eed4e52, "newreno", 0, 20 * SST_NSEC_PER_SEC);
	double x1 = (double)w->flow[0].got_at_stop, x2 = (double)w->flow[1].got_at_stop;

	CU_ASSERT_PTR_NOT_NULL_FATAL(w->shipped);
	printf(" native %.0f bytes, shipped %.0f, verdicts %" PRIu64 ", on %s ", x1, x2,
		cc_bpf_violations(w->shipped), sender_cc(w, 1));
	CU_ASSERT_FALSE(cc_bpf_revoked(w->shipped));
	CU_ASSERT_STRING_NOT_EQUAL(sender_cc(w, 1), "newreno");
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
	for (uint32_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)((i % PERIOD) * 131 + (i % PERIOD) / 7);
	pool = sst_test_pool("sim_stp", 32768, 2048 + RTE_PKTMBUF_HEADROOM);
	clone_pool = sst_test_pool("sim_stp_clones", 32768, 0);
	if (pool == NULL || clone_pool == NULL)
		return 1;
	return sst_test_run("sim_stp", cases);
}
