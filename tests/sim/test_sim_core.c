/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The simulator core with toy endpoints: a ping-pong through an echo host
 * (RTT = 2 * delay + 2 * serialization, exactly), timers called exactly at
 * the time next_expiry() gave, trace timestamps, run_while and its limits,
 * livelock detection, determinism of whole runs from the seed, and no mbuf
 * leaked whatever is in flight when the simulation ends.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "sim.h"
#include "sst_test.h"
#include "sst_test_eal.h"

#define MS SST_NSEC_PER_MSEC
#define US SST_NSEC_PER_USEC

static struct rte_mempool *pool;

static struct rte_mbuf *
mkpkt(uint32_t len, uint64_t stamp)
{
	struct rte_mbuf *m = sst_test_mbuf_of_len(pool, len);
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);

	memset(d, 0xa5, len);
	memcpy(d, &stamp, sizeof(stamp));
	return m;
}

static uint64_t
stamp_of(const struct rte_mbuf *m)
{
	uint64_t s;

	memcpy(&s, rte_pktmbuf_mtod(m, const void *), sizeof(s));
	return s;
}

/* --- echo host: sends every packet back out of the port it came in --- */

struct echo {
	sim_tx_fn tx;
	void *tx_ctx;
	uint64_t echoed;
};

static void
echo_receive(void *ctx, struct rte_mbuf *m, uint16_t port, sst_time_t now)
{
	struct echo *e = ctx;

	(void)now;
	e->echoed++;
	e->tx(e->tx_ctx, port, m);
}

static const struct sim_host_ops echo_ops = {.receive = echo_receive};

/* --- pinger: sends a ping of len bytes at each time of a list, measures RTTs --- */

#define MAX_PINGS 64

struct pinger {
	sim_tx_fn tx;
	void *tx_ctx;
	uint32_t len;
	const sst_time_t *at; /* send times */
	unsigned int nb_at, next;
	sst_time_t rtt[MAX_PINGS];
	unsigned int nb_rtt;
};

static sst_time_t
pinger_next_expiry(void *ctx)
{
	struct pinger *p = ctx;

	return p->next < p->nb_at ? p->at[p->next] : SST_TIME_NEVER;
}

static void
pinger_handle_expiry(void *ctx, sst_time_t now)
{
	struct pinger *p = ctx;

	CU_ASSERT_EQUAL(now, p->at[p->next]);
	p->next++;
	p->tx(p->tx_ctx, 0, mkpkt(p->len, now));
}

static void
pinger_receive(void *ctx, struct rte_mbuf *m, uint16_t port, sst_time_t now)
{
	struct pinger *p = ctx;

	CU_ASSERT_EQUAL(port, 0);
	if (p->nb_rtt < MAX_PINGS)
		p->rtt[p->nb_rtt++] = now - stamp_of(m);
	rte_pktmbuf_free(m);
}

static const struct sim_host_ops pinger_ops = {
	.receive = pinger_receive,
	.next_expiry = pinger_next_expiry,
	.handle_expiry = pinger_handle_expiry,
};

/* --- trace recorder --- */

#define MAX_TRACE 64

struct trace_log {
	struct sim_trace_event ev[MAX_TRACE];
	uint32_t len[MAX_TRACE];
	unsigned int n;
	uint64_t digest;
	uint64_t count;
};

static void
record(void *arg, const struct sim_trace_event *ev)
{
	struct trace_log *t = arg;

	t->digest = sim_trace_digest(t->digest, ev);
	t->count++;
	if (t->n < MAX_TRACE) {
		t->len[t->n] = ev->m != NULL ? rte_pktmbuf_pkt_len(ev->m) : 0;
		t->ev[t->n] = *ev;
		t->ev[t->n++].m = NULL; /* not valid after the callback */
	}
}

struct pair {
	struct sim *sim;
	struct sim_host *ha, *hb;
	struct sim_link *link;
	struct pinger ping;
	struct echo echo;
};

static void
pair_setup(struct pair *s, const struct sim_config *cfg, const struct sst_simlink_params *p)
{
	memset(s, 0, sizeof(*s));
	s->sim = sim_create(cfg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s->sim);
	s->ha = sim_host_add(s->sim, "pinger", &pinger_ops, &s->ping);
	s->hb = sim_host_add(s->sim, "echo", &echo_ops, &s->echo);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s->ha);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s->hb);
	s->ping.tx = sim_host_tx;
	s->ping.tx_ctx = s->ha;
	s->echo.tx = sim_host_tx;
	s->echo.tx_ctx = s->hb;
	s->link = sim_connect(s->sim, s->ha, 0, s->hb, 0, p, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s->link);
}

/* RTT = 2 * delay + 2 * serialization, for every ping, and the trace says when. */
static void
test_ping_pong_rtt(void)
{
	static const sst_time_t at[] = {1 * MS, 100 * MS, 100 * MS + 500 * US, 333 * MS};
	struct sst_simlink_params p;
	struct sim_config cfg = {.seed = 1, .trace = record};
	struct trace_log log = {.digest = SIM_DIGEST_INIT};
	struct sim_stats st;
	struct pair s;

	cfg.trace_arg = &log;
	sst_simlink_params_default(&p);
	p.rate_bps = 8000000; /* 1000 bytes: 1 ms */
	p.delay_ns = 10 * MS;
	pair_setup(&s, &cfg, &p);
	s.ping.len = 1000;
	s.ping.at = at;
	s.ping.nb_at = RTE_DIM(at);
	CU_ASSERT_EQUAL(sim_run_until(s.sim, SST_NSEC_PER_SEC), 0);
	CU_ASSERT_EQUAL(sim_now(s.sim), SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL_FATAL(s.ping.nb_rtt, 4);
	/* Pings 2 and 3 are 0.5 ms apart: the second waits 0.5 ms in the queue. */
	CU_ASSERT_EQUAL(s.ping.rtt[0], 22 * MS);
	CU_ASSERT_EQUAL(s.ping.rtt[1], 22 * MS);
	CU_ASSERT_EQUAL(s.ping.rtt[2], 22 * MS + 500 * US);
	CU_ASSERT_EQUAL(s.ping.rtt[3], 22 * MS);
	CU_ASSERT_EQUAL(s.echo.echoed, 4);

	/* The first ping's trace: timer, sent, delivered, sent back, delivered. */
	CU_ASSERT_FATAL(log.n >= 5);
	CU_ASSERT_EQUAL(log.ev[0].kind, SIM_TRACE_TIMER);
	CU_ASSERT_EQUAL(log.ev[0].time, 1 * MS);
	CU_ASSERT_EQUAL(log.ev[1].kind, SIM_TRACE_SENT);
	CU_ASSERT_EQUAL(log.ev[1].time, 1 * MS);
	CU_ASSERT_PTR_EQUAL(log.ev[1].from, s.ha);
	CU_ASSERT_PTR_EQUAL(log.ev[1].to, s.hb);
	CU_ASSERT_EQUAL(log.len[1], 1000);
	CU_ASSERT_EQUAL(log.ev[2].kind, SIM_TRACE_DELIVERED);
	CU_ASSERT_EQUAL(log.ev[2].time, 12 * MS);
	CU_ASSERT_PTR_EQUAL(log.ev[2].to, s.hb);
	CU_ASSERT_EQUAL(log.ev[3].kind, SIM_TRACE_SENT);
	CU_ASSERT_EQUAL(log.ev[3].time, 12 * MS);
	CU_ASSERT_PTR_EQUAL(log.ev[3].from, s.hb);
	CU_ASSERT_EQUAL(log.ev[4].kind, SIM_TRACE_DELIVERED);
	CU_ASSERT_EQUAL(log.ev[4].time, 23 * MS);
	CU_ASSERT_PTR_EQUAL(log.ev[4].to, s.ha);

	sim_stats_get(s.sim, &st);
	CU_ASSERT_EQUAL(st.packets_sent, 8);
	CU_ASSERT_EQUAL(st.packets_delivered, 8);
	CU_ASSERT_EQUAL(st.timers, 4);
	CU_ASSERT_STRING_EQUAL(sim_host_name(s.ha), "pinger");
	CU_ASSERT_EQUAL(sim_host_index(s.hb), 1);
	sim_destroy(s.sim);
}

/* A packet over the MTU is traced as dropped, with the reason, at send time. */
static void
test_trace_drop_reason(void)
{
	static const sst_time_t at[] = {5 * MS};
	struct sst_simlink_params p;
	struct sim_config cfg = {.trace = record};
	struct trace_log log = {.digest = SIM_DIGEST_INIT};
	unsigned int before = rte_mempool_avail_count(pool);
	struct sst_simlink_stats ls;
	struct pair s;

	cfg.trace_arg = &log;
	sst_simlink_params_default(&p);
	p.mtu = 1500;
	pair_setup(&s, &cfg, &p);
	s.ping.len = 1600;
	s.ping.at = at;
	s.ping.nb_at = 1;
	CU_ASSERT_EQUAL(sim_run_until(s.sim, SST_NSEC_PER_SEC), 0);
	CU_ASSERT_EQUAL_FATAL(log.n, 3);
	CU_ASSERT_EQUAL(log.ev[1].kind, SIM_TRACE_SENT);
	CU_ASSERT_EQUAL(log.ev[2].kind, SIM_TRACE_DROPPED);
	CU_ASSERT_EQUAL(log.ev[2].reason, SST_SIMLINK_DROP_MTU);
	CU_ASSERT_EQUAL(log.ev[2].time, 5 * MS);
	CU_ASSERT_EQUAL(log.len[2], 1600);
	CU_ASSERT_EQUAL(s.ping.nb_rtt, 0);
	sst_simlink_stats_get(sim_link_dir(s.link, 0), &ls);
	CU_ASSERT_EQUAL(ls.dropped_mtu, 1);
	sim_destroy(s.sim);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), before);
}

/* --- timer host: wants handle_expiry at the times of a list --- */

struct timer_host {
	const sst_time_t *want;
	unsigned int nb_want, next;
	sst_time_t got[16];
	unsigned int nb_got;
	sst_time_t override; /* if not 0: next_expiry returns this instead */
};

static sst_time_t
timer_next_expiry(void *ctx)
{
	struct timer_host *t = ctx;

	if (t->override != 0)
		return t->override;
	return t->next < t->nb_want ? t->want[t->next] : SST_TIME_NEVER;
}

static void
timer_handle_expiry(void *ctx, sst_time_t now)
{
	struct timer_host *t = ctx;

	if (t->nb_got < RTE_DIM(t->got))
		t->got[t->nb_got++] = now;
	if (t->override != 0)
		t->override = 0;
	else
		t->next++;
}

static void
timer_receive(void *ctx, struct rte_mbuf *m, uint16_t port, sst_time_t now)
{
	struct timer_host *t = ctx;

	(void)port;
	/* A packet makes the host want a timer 10 ms from now. */
	t->override = now + 10 * MS;
	rte_pktmbuf_free(m);
}

static const struct sim_host_ops timer_ops = {
	.receive = timer_receive,
	.next_expiry = timer_next_expiry,
	.handle_expiry = timer_handle_expiry,
};

static void
set_override(void *arg, sst_time_t now)
{
	struct timer_host *t = arg;

	t->override = now + 3 * MS;
}

static void
test_timers_exact(void)
{
	static const sst_time_t want[] = {5 * MS, 5 * MS, 17 * MS, 1000 * MS, 1000 * MS + 1};
	struct timer_host t = {.want = want, .nb_want = RTE_DIM(want)};
	struct sim *sim = sim_create(NULL);
	struct sim_stats st;
	struct sim_host *h;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	h = sim_host_add(sim, "timer", &timer_ops, &t);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(sim_run_until(sim, 999 * MS), 0);
	CU_ASSERT_EQUAL_FATAL(t.nb_got, 3);
	CU_ASSERT_EQUAL(t.got[0], 5 * MS);
	CU_ASSERT_EQUAL(t.got[1], 5 * MS);
	CU_ASSERT_EQUAL(t.got[2], 17 * MS);
	CU_ASSERT_EQUAL(sim_now(sim), 999 * MS);
	CU_ASSERT_EQUAL(sim_step(sim), 1);
	CU_ASSERT_EQUAL(sim_now(sim), 1000 * MS);
	CU_ASSERT_EQUAL(sim_step(sim), 1);
	CU_ASSERT_EQUAL(sim_now(sim), 1000 * MS + 1);
	CU_ASSERT_EQUAL(sim_step(sim), 0);
	CU_ASSERT_EQUAL_FATAL(t.nb_got, 5);
	CU_ASSERT_EQUAL(t.got[3], 1000 * MS);
	CU_ASSERT_EQUAL(t.got[4], 1000 * MS + 1);

	/* Changed from outside the simulator: picked up when a run starts... */
	t.override = 1200 * MS;
	CU_ASSERT_EQUAL(sim_run_until(sim, 2000 * MS), 0);
	CU_ASSERT_EQUAL_FATAL(t.nb_got, 6);
	CU_ASSERT_EQUAL(t.got[5], 1200 * MS);
	/* ...or after a scheduled callback; an overdue expiry runs at once. */
	CU_ASSERT_EQUAL(sim_schedule(sim, 2500 * MS, set_override, &t), 0);
	CU_ASSERT_EQUAL(sim_run_until(sim, 3000 * MS), 0);
	CU_ASSERT_EQUAL_FATAL(t.nb_got, 7);
	CU_ASSERT_EQUAL(t.got[6], 2503 * MS);
	t.override = 10 * MS; /* in the past */
	sim_host_kick(h);
	CU_ASSERT_EQUAL(sim_step(sim), 1);
	CU_ASSERT_EQUAL_FATAL(t.nb_got, 8);
	CU_ASSERT_EQUAL(t.got[7], 3000 * MS);
	sim_stats_get(sim, &st);
	CU_ASSERT_EQUAL(st.timers, 8);
	CU_ASSERT_EQUAL(st.callbacks, 1);
	sim_destroy(sim);
}

/* A timer moved earlier by a packet fires at the new time, the old one never. */
static void
test_timer_rearmed_by_packet(void)
{
	static const sst_time_t ping_at[] = {20 * MS};
	static const sst_time_t want[] = {100 * MS};
	struct timer_host t = {.want = want, .nb_want = 1};
	struct pinger ping = {.len = 64, .at = ping_at, .nb_at = 1};
	struct sst_simlink_params p;
	struct sim *sim = sim_create(NULL);
	struct sim_host *ha, *hb;
	struct sim_stats st;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	ha = sim_host_add(sim, "pinger", &pinger_ops, &ping);
	hb = sim_host_add(sim, "timer", &timer_ops, &t);
	ping.tx = sim_host_tx;
	ping.tx_ctx = ha;
	sst_simlink_params_default(&p);
	p.delay_ns = 1 * MS;
	CU_ASSERT_PTR_NOT_NULL_FATAL(sim_connect(sim, ha, 0, hb, 0, &p, NULL));
	/* Both ports are taken now. */
	CU_ASSERT_PTR_NULL(sim_connect(sim, ha, 0, hb, 1, &p, NULL));
	CU_ASSERT_PTR_NULL(sim_connect(sim, ha, 1, ha, 1, &p, NULL));
	CU_ASSERT_EQUAL(sim_run_until(sim, 200 * MS), 0);
	/* Packet at 21 ms -> timer at 31 ms, then the list's 100 ms. */
	CU_ASSERT_EQUAL_FATAL(t.nb_got, 2);
	CU_ASSERT_EQUAL(t.got[0], 31 * MS);
	CU_ASSERT_EQUAL(t.got[1], 100 * MS);
	sim_stats_get(sim, &st);
	CU_ASSERT(st.stale >= 1);
	sim_destroy(sim);
}

struct count_pred {
	struct pinger *ping;
	unsigned int want;
};

static bool
fewer_pongs(void *arg)
{
	struct count_pred *c = arg;

	return c->ping->nb_rtt < c->want;
}

static bool
always(void *arg)
{
	(void)arg;
	return true;
}

static void
test_run_while(void)
{
	static const sst_time_t at[] = {0, 100 * MS, 200 * MS, 300 * MS, 400 * MS, 500 * MS};
	struct sst_simlink_params p;
	struct count_pred c;
	struct pair s;
	struct sim *empty;

	sst_simlink_params_default(&p);
	p.delay_ns = 5 * MS;
	pair_setup(&s, NULL, &p);
	s.ping.len = 100;
	s.ping.at = at;
	s.ping.nb_at = RTE_DIM(at);
	c = (struct count_pred){.ping = &s.ping, .want = 3};
	CU_ASSERT_EQUAL(sim_run_while(s.sim, fewer_pongs, &c, SST_NSEC_PER_SEC), 0);
	CU_ASSERT_EQUAL(s.ping.nb_rtt, 3);
	CU_ASSERT_EQUAL(sim_now(s.sim), 210 * MS); /* the third pong's arrival */
	CU_ASSERT_EQUAL(sim_run_while(s.sim, always, NULL, 250 * MS), -ETIMEDOUT);
	CU_ASSERT_EQUAL(sim_now(s.sim), 250 * MS);
	CU_ASSERT_EQUAL(sim_run_while(s.sim, always, NULL, 10 * SST_NSEC_PER_SEC), -ENOENT);
	CU_ASSERT_EQUAL(s.ping.nb_rtt, 6);
	CU_ASSERT_EQUAL(sim_now(s.sim), 510 * MS);
	sim_destroy(s.sim);

	empty = sim_create(NULL);
	CU_ASSERT_EQUAL(sim_run_while(empty, always, NULL, SST_TIME_NEVER), -ENOENT);
	CU_ASSERT_EQUAL(sim_step(empty), 0);
	sim_destroy(empty);
}

/* --- a host that always wants a timer now: a livelock --- */

static sst_time_t
busy_next_expiry(void *ctx)
{
	(void)ctx;
	return 0;
}

static void
busy_handle_expiry(void *ctx, sst_time_t now)
{
	(void)ctx;
	(void)now;
}

static const struct sim_host_ops busy_ops = {
	.receive = echo_receive,
	.next_expiry = busy_next_expiry,
	.handle_expiry = busy_handle_expiry,
};

static void
test_livelock_and_errors(void)
{
	struct sim_config cfg = {.start_time = 7 * MS, .max_events_per_instant = 1000};
	static const struct sim_host_ops bad_ops = {
		.receive = echo_receive, .next_expiry = busy_next_expiry};
	unsigned int before = rte_mempool_avail_count(pool);
	struct sst_simlink_params p;
	struct sim *sim = sim_create(&cfg);
	struct sim_stats st;
	struct sim_host *h;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	CU_ASSERT_EQUAL(sim_now(sim), 7 * MS);
	CU_ASSERT_PTR_NULL(sim_host_add(sim, "bad", &bad_ops, NULL));
	CU_ASSERT_PTR_NULL(sim_host_add(sim, "bad", NULL, NULL));
	h = sim_host_add(sim, "busy", &busy_ops, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);

	/* Sending out of a port without a link frees the packet. */
	CU_ASSERT_EQUAL(sim_host_tx(h, 3, mkpkt(100, 0)), -ENOTCONN);
	CU_ASSERT_EQUAL(sim_host_tx(h, SIM_MAX_PORTS, mkpkt(100, 0)), -EINVAL);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), before);

	sst_simlink_params_default(&p);
	p.loss = 3; /* invalid */
	CU_ASSERT_PTR_NULL(sim_connect(sim, h, 0, h, 1, &p, NULL));

	CU_ASSERT_EQUAL(sim_run_until(sim, SST_NSEC_PER_SEC), -ELOOP);
	CU_ASSERT_EQUAL(sim_now(sim), 7 * MS); /* the overdue timer ran at the start */
	CU_ASSERT_EQUAL(sim_step(sim), -ELOOP);
	sim_stats_get(sim, &st);
	CU_ASSERT_EQUAL(st.timers, 1000);
	CU_ASSERT_EQUAL(st.unrouted, 2);
	sim_destroy(sim);
}

/* --- chatter: sends a packet every 200 us to its peer and echoes odd ones --- */

struct chatter {
	sim_tx_fn tx;
	void *tx_ctx;
	sst_time_t next;
	uint64_t sent, received;
};

static sst_time_t
chatter_next_expiry(void *ctx)
{
	return ((struct chatter *)ctx)->next;
}

static void
chatter_handle_expiry(void *ctx, sst_time_t now)
{
	struct chatter *c = ctx;

	c->tx(c->tx_ctx, 0, mkpkt(64 + (uint32_t)(c->sent * 131) % 1400, c->sent * 2));
	c->sent++;
	c->next = now + 200 * US;
}

static void
chatter_receive(void *ctx, struct rte_mbuf *m, uint16_t port, sst_time_t now)
{
	struct chatter *c = ctx;

	(void)now;
	c->received++;
	if ((stamp_of(m) & 1) == 0) {
		uint64_t odd = stamp_of(m) | 1;

		memcpy(rte_pktmbuf_mtod(m, void *), &odd, sizeof(odd));
		c->tx(c->tx_ctx, port, m);
		return;
	}
	rte_pktmbuf_free(m);
}

static const struct sim_host_ops chatter_ops = {
	.receive = chatter_receive,
	.next_expiry = chatter_next_expiry,
	.handle_expiry = chatter_handle_expiry,
};

struct run_result {
	uint64_t digest;
	uint64_t events;
	struct sim_stats st;
};

/* Two chatters over a badly impaired link for 2 s; ends with packets in flight. */
static struct run_result
impaired_run(uint64_t seed)
{
	struct sim_config cfg = {.seed = seed, .trace = record};
	struct trace_log log = {.digest = SIM_DIGEST_INIT};
	struct chatter a = {0}, b = {.next = 50 * US};
	struct sst_simlink_params p;
	struct run_result r;
	struct sim_host *ha, *hb;
	struct sim *sim;

	cfg.trace_arg = &log;
	sim = sim_create(&cfg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
	ha = sim_host_add(sim, "a", &chatter_ops, &a);
	hb = sim_host_add(sim, "b", &chatter_ops, &b);
	a.tx = b.tx = sim_host_tx;
	a.tx_ctx = ha;
	b.tx_ctx = hb;
	sst_simlink_params_default(&p);
	p.rate_bps = 40000000;
	p.delay_ns = 20 * MS;
	p.jitter_ns = 2 * MS;
	p.jitter_reorder = true;
	p.queue_pkts = 30;
	p.mtu = 1400;
	p.loss = 0.02;
	p.ge_p_good_bad = 0.005;
	p.ge_p_bad_good = 0.3;
	p.duplicate = 0.01;
	p.corrupt = 0.01;
	p.reorder = 0.01;
	p.reorder_delay_ns = 3 * MS;
	p.pool = pool;
	CU_ASSERT_PTR_NOT_NULL_FATAL(sim_connect(sim, ha, 0, hb, 0, &p, NULL));
	CU_ASSERT_EQUAL(sim_run_until(sim, 2 * SST_NSEC_PER_SEC), 0);
	sim_stats_get(sim, &r.st);
	r.digest = log.digest;
	r.events = log.count;
	sim_destroy(sim);
	return r;
}

static void
test_determinism(void)
{
	unsigned int before = rte_mempool_avail_count(pool);
	struct run_result r1 = impaired_run(1);
	struct run_result r1b = impaired_run(1);
	struct run_result r2 = impaired_run(2);

	CU_ASSERT(r1.events > 20000);
	CU_ASSERT(r1.st.packets_dropped > 0);
	CU_ASSERT_EQUAL(r1.digest, r1b.digest);
	CU_ASSERT_EQUAL(r1.events, r1b.events);
	CU_ASSERT_EQUAL(memcmp(&r1.st, &r1b.st, sizeof(r1.st)), 0);
	CU_ASSERT_NOT_EQUAL(r1.digest, r2.digest);
	/* Packets in flight at the end were freed by sim_destroy(). */
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), before);
}

static void
test_seed_from_env(void)
{
	unsetenv("SST_SIM_SEED");
	CU_ASSERT_EQUAL(sim_seed_from_env(5), 5);
	setenv("SST_SIM_SEED", "0x10", 1);
	CU_ASSERT_EQUAL(sim_seed_from_env(5), 16);
	setenv("SST_SIM_SEED", "12345678901234", 1);
	CU_ASSERT_EQUAL(sim_seed_from_env(5), UINT64_C(12345678901234));
	setenv("SST_SIM_SEED", "12x", 1);
	CU_ASSERT_EQUAL(sim_seed_from_env(5), 5);
	unsetenv("SST_SIM_SEED");
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_ping_pong_rtt),
	SST_TEST(test_trace_drop_reason),
	SST_TEST(test_timers_exact),
	SST_TEST(test_timer_rearmed_by_packet),
	SST_TEST(test_run_while),
	SST_TEST(test_livelock_and_errors),
	SST_TEST(test_determinism),
	SST_TEST(test_seed_from_env),
	SST_TEST_END,
};

int
main(void)
{
	return sst_test_main_with_pool("test_sim_core", "sim_core", 16384, 2048, &pool, cases);
}
