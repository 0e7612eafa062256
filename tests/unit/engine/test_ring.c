/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ring mode (sst_ring.h) end to end: two workers over a simpair, polled by
 * the main thread, each with a ring agent; on each side an application
 * thread that uses nothing but its ring client. The client side connects
 * to an echo service and writes 1 MB in writes of assorted sizes on one
 * stream (with three substreams of 1000-byte messages and datagrams on
 * it), 64 KB on each of eight more streams, connects to a service nobody
 * offers, and resets one stream; a quarter in it stops reading its events
 * for a while, so that its event ring fills. The server side accepts and
 * echoes everything by writing the received mbufs back. Every byte is
 * checked, and after teardown every mbuf is back in its pool. Then the
 * failure path (connecting to nobody) and detaching with streams open.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_mbuf.h>

#include "sst_link.h"
#include "sst_ring.h"
#include "sst_simpair.h"
#include "sst_worker.h"
#include "sst_test.h"
#include "sst_test_eal.h"
#include "sst_test_mbuf.h"
#include "sst_test_simlink.h"
#include "sst_test_udp.h"

enum {
	MAIN_BYTES = 1 << 20,
	STREAMS = 8,
	STREAM_BYTES = 64 * 1024,
	SUBSTREAMS = 3,
	SUB_BYTES = 20000,
	SUB_MSG = 1000,
	DGRAMS = 200,
	RESET_BYTES = 10000,
	MAX_IDX = 1024,
	EV_BURST = 64,
	POOL_N = 16383,
	APP_POOL_N = 8191,
};

static struct rte_mempool *pool, *clones, *app_pool;

static sst_time_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (sst_time_t)ts.tv_sec * SST_NSEC_PER_SEC + (sst_time_t)ts.tv_nsec;
}

static uint64_t
stream_base(uint32_t id)
{
	return (uint64_t)id * 1000003;
}

/* Every mbuf is back: packets, clones, the applications' data. */
static void
pools_full(void)
{
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), POOL_N);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(clones), POOL_N);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(app_pool), APP_POOL_N);
}

/* ---- A worker with its agent ---- */

struct node {
	struct sst_link *link;
	struct sst_net_endpoint self;
	struct sst_ring_agent *agent;
	struct sst_worker *w;
};

static void
node_init(struct node *n, const char *name, struct sst_link *link, uint8_t secret,
	sst_time_t connect_timeout)
{
	struct sst_ring_agent_params ap = {.size = sizeof(ap), .connect_timeout = connect_timeout};
	struct sst_worker_params wp = {.size = sizeof(wp), .pool = pool};

	memset(n, 0, sizeof(*n));
	n->link = link;
	CU_ASSERT_FATAL(link != NULL);
	CU_ASSERT_FATAL(sst_link_local(link, &n->self) == 0);
	n->agent = sst_ring_agent_create(&ap);
	CU_ASSERT_FATAL(n->agent != NULL);
	wp.link = link;
	memset(wp.nego.secret, secret, sizeof(wp.nego.secret));
	wp.nego.ulp_caps = SST_NEGO_CAP_ALL;
	wp.stream.name = name;
	wp.stream.clone_pool = clones;
	wp.stream.max_streams = 512;
	wp.stream.max_tx_buffers = 64;
	wp.stream.max_rx_buffers = 64;
	wp.stream.max_sids = 256;
	sst_ring_agent_worker_params(n->agent, &wp);
	n->w = sst_worker_create(&wp);
	CU_ASSERT_FATAL(n->w != NULL);
	sst_ring_agent_bind(n->agent, n->w);
}

static void
node_fini(struct node *n)
{
	sst_worker_destroy(n->w);
	sst_ring_agent_destroy(n->agent);
	sst_link_close(n->link);
}

/* ---- The server application: echo ---- */

struct echo_handle {
	int h;
	bool live, end, shut;
	struct echo_w {
		struct rte_mbuf *m;
		uint32_t flags;
	} * q; /* writes refused for want of credit, in order */
	uint32_t q_head, q_n, q_cap;
};

struct server_app {
	struct sst_ring_agent *agent;
	atomic_bool stop, done;
	struct sst_ring_client_stats st;
	struct echo_handle hs[MAX_IDX];
	int listener;
	int32_t listen_err;
	uint32_t accepted_top, accepted_sub, finished, other_end;
	atomic_uint resets_seen; /* the main thread waits on it */
	uint32_t live, cut;
	bool listener_freed;
	bool stuck; /* the server could not wind down */
};

static void
echo_queue(struct echo_handle *e, struct rte_mbuf *m, uint32_t flags)
{
	if (e->q_head + e->q_n == e->q_cap && e->q != NULL) {
		memmove(e->q, e->q + e->q_head, e->q_n * sizeof(*e->q));
		e->q_head = 0;
	}
	if (e->q_n == e->q_cap) {
		e->q_cap = e->q_cap != 0 ? 2 * e->q_cap : 256;
		e->q = realloc(e->q, e->q_cap * sizeof(*e->q));
	}
	e->q[e->q_head + e->q_n++] = (struct echo_w){m, flags};
}

/* Write back what waits, in order, as far as the credit goes; then the
 * shutdown that waited for it. */
static void
echo_flush(struct sst_ring_client *c, struct echo_handle *e)
{
	while (e->q_n > 0 &&
		sst_ring_write(c, e->h, e->q[e->q_head].m, e->q[e->q_head].flags) == 0) {
		e->q_head++;
		e->q_n--;
	}
	if (e->q_n == 0 && e->end && !e->shut && sst_ring_shutdown(c, e->h) == 0)
		e->shut = true;
}

static void
echo_forget(struct echo_handle *e)
{
	for (uint32_t i = 0; i < e->q_n; i++)
		rte_pktmbuf_free(e->q[e->q_head + i].m);
	free(e->q);
	memset(e, 0, sizeof(*e));
}

static void
server_event(struct server_app *s, struct sst_ring_client *c, const struct sst_ring_event *ev)
{
	int h = (int)ev->handle;
	struct echo_handle *e = &s->hs[h & 0xffff];

	switch (ev->type) {
	case SST_RING_EV_LISTENING:
		s->listen_err = ev->err;
		break;
	case SST_RING_EV_ACCEPTED:
		e->h = h;
		e->live = true;
		s->live++;
		if ((int)ev->ref == s->listener)
			s->accepted_top++;
		else
			s->accepted_sub++;
		break;
	case SST_RING_EV_DATA:
		/* Zero copy: the received mbuf goes back as it came. */
		echo_queue(e, ev->m, ev->flags & SST_RING_EV_F_MESSAGE ? SST_WRITE_MESSAGE : 0);
		echo_flush(c, e);
		break;
	case SST_RING_EV_DATAGRAM:
		if (sst_ring_send_datagram(c, h, ev->m) != 0)
			rte_pktmbuf_free(ev->m);
		break;
	case SST_RING_EV_WRITABLE:
		echo_flush(c, e);
		break;
	case SST_RING_EV_END:
		e->end = true;
		echo_flush(c, e);
		break;
	case SST_RING_EV_CLOSED:
		if (ev->why == SST_STREAM_RESET_REMOTE)
			s->resets_seen++;
		else if (ev->why == SST_STREAM_FINISHED)
			s->finished++;
		else
			s->other_end++;
		sst_ring_close(c, h);
		break;
	case SST_RING_EV_FREED:
		if (h == s->listener)
			s->listener_freed = true;
		else
			s->live--;
		echo_forget(e);
		break;
	default:
		break;
	}
}

static void *
server_main(void *arg)
{
	struct server_app *s = arg;
	struct sst_ring_client_params cp = {.size = sizeof(cp), .event_ring = 1024};
	struct sst_ring_client *c = sst_ring_client_create(s->agent, &cp);
	struct sst_ring_event ev[EV_BURST];
	sst_time_t deadline = 0, grace = 0;
	bool closing = false;

	s->listener =
		c != NULL ? sst_ring_listen(c, "echo", "test", SST_RING_SUBSTREAMS_ACCEPT) : -1;
	s->listen_err = 1;
	while (c != NULL && s->listener > 0) {
		int n = sst_ring_poll(c, ev, EV_BURST);

		for (int i = 0; i < n; i++)
			server_event(s, c, &ev[i]);
		/* Retries after a full command ring (no WRITABLE follows). */
		for (int i = 0; i < MAX_IDX; i++)
			if (s->hs[i].q_n > 0 && s->hs[i].live)
				echo_flush(c, &s->hs[i]);
		if (atomic_load(&s->stop) && !closing) {
			/* Withdraw the service; streams still open get a
			 * second to finish. */
			closing = sst_ring_close(c, s->listener) == 0;
			grace = now_ns() + SST_NSEC_PER_SEC;
			deadline = now_ns() + 5 * SST_NSEC_PER_SEC;
		}
		if (closing && grace != 0 && now_ns() > grace) {
			/* Those left lost their peer: reset and closed. */
			for (int i = 0; i < MAX_IDX; i++)
				if (s->hs[i].live && sst_ring_reset(c, s->hs[i].h) == 0 &&
					sst_ring_close(c, s->hs[i].h) == 0)
					s->cut++;
			grace = 0;
		}
		if (closing && s->listener_freed && s->live == 0)
			break;
		if (closing && now_ns() > deadline) {
			s->stuck = true;
			break;
		}
		if (n <= 0)
			sched_yield();
	}
	if (c != NULL)
		sst_ring_client_stats(c, &s->st);
	sst_ring_client_destroy(c);
	for (int i = 0; i < MAX_IDX; i++)
		echo_forget(&s->hs[i]);
	atomic_store(&s->done, true);
	return NULL;
}

/* ---- The client application ---- */

struct cli_stream {
	int h;
	uint32_t id;
	uint32_t total, msg;
	uint32_t written, got, messages;
	bool shut, connected, end, closed, freed, is_reset, reset_sent;
	int32_t conn_err;
	uint16_t why;
	uint64_t bad;
};

struct client_app {
	struct sst_ring_agent *agent;
	struct sst_net_endpoint server;
	atomic_bool done;
	struct sst_ring_client_stats st;
	struct cli_stream main, subs[SUBSTREAMS], streams[STREAMS], nope, rst;
	struct cli_stream *by_idx[MAX_IDX];
	uint32_t dgrams_sent, dgrams_got, dgrams_lost, dgrams_bad, dgram_seen[DGRAMS];
	bool paused, timed_out;
	int open_errors;
	sst_time_t pause_ns, dgram_last;
};

static void
cli_track(struct client_app *a, struct cli_stream *cs, int h, uint32_t id, uint32_t total,
	uint32_t msg)
{
	cs->h = h;
	cs->id = id;
	cs->total = total;
	cs->msg = msg;
	if (h <= 0) {
		a->open_errors++;
		return;
	}
	a->by_idx[h & 0xffff] = cs;
}

/* The datagrams went out, and came back or had time to. */
static bool
dgrams_over(const struct client_app *a)
{
	return a->dgrams_sent == DGRAMS &&
	       (a->dgrams_got == DGRAMS || now_ns() > a->dgram_last + 200 * SST_NSEC_PER_MSEC);
}

/* Write what credit allows; then shut our direction. */
static void
cli_write(struct client_app *a, struct sst_ring_client *c, struct cli_stream *cs)
{
	while (cs->h > 0 && cs->written < cs->total && !cs->closed && !cs->reset_sent) {
		uint32_t len = cs->msg != 0 ? cs->msg : 1 + (cs->written * 7 + cs->id) % 1777;
		struct rte_mbuf *m;

		len = RTE_MIN(len, cs->total - cs->written);
		m = sst_test_pattern_chain(
			app_pool, 2048, stream_base(cs->id) + cs->written, len, len > 1200 ? 2 : 1);
		if (m == NULL)
			return;
		if (sst_ring_write(c, cs->h, m, cs->msg != 0 ? SST_WRITE_MESSAGE : 0) != 0) {
			rte_pktmbuf_free(m);
			return;
		}
		cs->written += len;
	}
	if (cs->h > 0 && cs->total > 0 && cs->written == cs->total && !cs->shut && !cs->closed &&
		!cs->is_reset && (cs != &a->main || dgrams_over(a)))
		cs->shut = sst_ring_shutdown(c, cs->h) == 0;
}

static void
cli_data(struct cli_stream *cs, const struct sst_ring_event *ev)
{
	uint32_t len = rte_pktmbuf_pkt_len(ev->m);
	uint8_t buf[4096];
	const uint8_t *p = len <= sizeof(buf) ? rte_pktmbuf_read(ev->m, 0, len, buf) : NULL;

	cs->bad += p == NULL;
	for (uint32_t j = 0; p != NULL && j < len; j++)
		cs->bad += p[j] != sst_test_pattern(stream_base(cs->id) + cs->got + j);
	cs->got += len;
	/* Records never span a message end, so a message end lands exactly
	 * on a multiple of the message size. */
	if (ev->flags & SST_RING_EV_F_MESSAGE) {
		cs->messages++;
		if (cs->msg == 0 || cs->got % cs->msg != 0)
			cs->bad++;
	}
	rte_pktmbuf_free(ev->m);
}

static struct rte_mbuf *
dgram_make(uint32_t seq)
{
	uint32_t len = 8 + (seq * 37) % 900;
	struct rte_mbuf *m = sst_test_pattern_chain(app_pool, 2048, (uint64_t)seq << 20, len, 1);

	if (m != NULL)
		memcpy(rte_pktmbuf_mtod(m, void *), &seq, sizeof(seq));
	return m;
}

static void
dgram_check(struct client_app *a, struct rte_mbuf *m)
{
	uint32_t seq = UINT32_MAX, len = rte_pktmbuf_pkt_len(m);
	uint8_t buf[1024];
	const uint8_t *p = len <= sizeof(buf) ? rte_pktmbuf_read(m, 0, len, buf) : NULL;

	if (p != NULL && len >= 8)
		memcpy(&seq, p, sizeof(seq));
	if (seq >= DGRAMS || len != 8 + (seq * 37) % 900 || a->dgram_seen[seq]++ != 0)
		a->dgrams_bad++;
	else
		for (uint32_t j = 4; j < len; j++)
			a->dgrams_bad += p[j] != sst_test_pattern(((uint64_t)seq << 20) + j);
	a->dgrams_got++;
	rte_pktmbuf_free(m);
}

static void
cli_event(struct client_app *a, struct sst_ring_client *c, const struct sst_ring_event *ev)
{
	struct cli_stream *cs = a->by_idx[ev->handle & 0xffff];

	if (cs == NULL || (uint32_t)cs->h != ev->handle) {
		/* Not ours: nothing may come for a handle we did not open. */
		a->open_errors++;
		if (ev->type == SST_RING_EV_DATA || ev->type == SST_RING_EV_DATAGRAM)
			rte_pktmbuf_free(ev->m);
		return;
	}
	switch (ev->type) {
	case SST_RING_EV_CONNECTED:
		cs->connected = ev->err == 0;
		cs->conn_err = ev->err;
		break;
	case SST_RING_EV_DATA:
		cli_data(cs, ev);
		/* Once some of it came back, the reset stream is reset. */
		if (cs->is_reset && !cs->reset_sent && !cs->closed)
			cs->reset_sent = sst_ring_reset(c, cs->h) == 0;
		break;
	case SST_RING_EV_DATAGRAM:
		dgram_check(a, ev->m);
		break;
	case SST_RING_EV_END:
		cs->end = true;
		break;
	case SST_RING_EV_CLOSED:
		cs->why = ev->why;
		cs->closed = true;
		if (sst_ring_close(c, cs->h) != 0)
			a->open_errors++;
		break;
	case SST_RING_EV_FREED:
		cs->freed = true;
		break;
	default:
		break;
	}
}

static bool
cli_all_freed(const struct client_app *a)
{
	for (int i = 0; i < MAX_IDX; i++)
		if (a->by_idx[i] != NULL && !a->by_idx[i]->freed)
			return false;
	return true;
}

static void *
client_main(void *arg)
{
	struct client_app *a = arg;
	/* A small event ring, so that a pause of the application fills it. */
	struct sst_ring_client_params cp = {.size = sizeof(cp), .event_ring = 256};
	struct sst_ring_client *c = sst_ring_client_create(a->agent, &cp);
	struct sst_ring_event ev[EV_BURST];
	sst_time_t deadline = now_ns() + 60 * SST_NSEC_PER_SEC;

	if (c == NULL) {
		a->open_errors++;
		atomic_store(&a->done, true);
		return NULL;
	}
	/* Everything is opened and written before any answer came back. */
	cli_track(a, &a->main,
		sst_ring_connect(c, &a->server, "echo", "test", SST_NEGO_MODE_CHECKSUM), 0,
		MAIN_BYTES, 0);
	for (int i = 0; i < SUBSTREAMS; i++)
		cli_track(a, &a->subs[i], sst_ring_create_substream(c, a->main.h), 1 + (uint32_t)i,
			SUB_BYTES, SUB_MSG);
	for (int i = 0; i < STREAMS; i++)
		cli_track(a, &a->streams[i],
			sst_ring_connect(c, &a->server, "echo", "test", SST_NEGO_MODE_CHECKSUM),
			10 + (uint32_t)i, STREAM_BYTES, 0);
	cli_track(a, &a->nope,
		sst_ring_connect(c, &a->server, "nope", "test", SST_NEGO_MODE_CHECKSUM), 30, 0, 0);
	cli_track(a, &a->rst,
		sst_ring_connect(c, &a->server, "echo", "test", SST_NEGO_MODE_CHECKSUM), 31,
		RESET_BYTES, 0);
	a->rst.is_reset = true;
	sst_ring_set_priority(c, a->streams[0].h, 5);
	while (!cli_all_freed(a)) {
		int n;

		if (now_ns() > deadline) {
			a->timed_out = true;
			break;
		}
		/* Stop reading events for a while: the event ring fills, the
		 * agent stops reading streams, nothing may be lost. */
		if (!a->paused && a->main.got >= MAIN_BYTES / 4) {
			sst_time_t t = now_ns();

			a->paused = true;
			usleep(300 * 1000);
			a->pause_ns = now_ns() - t;
		}
		n = sst_ring_poll(c, ev, EV_BURST);
		for (int i = 0; i < n; i++)
			cli_event(a, c, &ev[i]);
		/* Datagrams once the bulk data is back (the congestion window
		 * has no room for them before), at most 4 awaiting their echo;
		 * those not back within 100 ms count as lost. */
		if (now_ns() > a->dgram_last + 100 * SST_NSEC_PER_MSEC)
			a->dgrams_lost = a->dgrams_sent - a->dgrams_got;
		if (a->main.got == MAIN_BYTES && a->dgrams_sent < DGRAMS &&
			(int64_t)a->dgrams_sent - a->dgrams_got - a->dgrams_lost < 4) {
			struct rte_mbuf *m = dgram_make(a->dgrams_sent);

			if (m != NULL && sst_ring_send_datagram(c, a->main.h, m) == 0) {
				a->dgrams_sent++;
				a->dgram_last = now_ns();
			} else {
				rte_pktmbuf_free(m);
			}
		}
		for (int i = 0; i < MAX_IDX; i++)
			if (a->by_idx[i] != NULL)
				cli_write(a, c, a->by_idx[i]);
		if (n <= 0)
			sched_yield();
	}
	sst_ring_client_stats(c, &a->st);
	sst_ring_client_destroy(c);
	atomic_store(&a->done, true);
	return NULL;
}

/* ---- The echo test ---- */

static struct sst_simpair *
simpair_links(struct sst_link *l[2])
{
	struct sst_net_endpoint ep[2] = {0};
	static struct sst_simpair_conf sc[2];
	struct sst_link_conf lc = {.size = sizeof(lc), .driver = "simpair", .pool = pool};
	struct sst_simlink_params lp;
	struct sst_simpair *pair;

	sst_test_link_model(&lp, 400 * 1000 * 1000, SST_NSEC_PER_MSEC, 1000, NULL, pool);
	for (int i = 0; i < 2; i++) {
		ep[i].addr.family = SST_NET_IPV4;
		ep[i].addr.bytes[0] = 10;
		ep[i].addr.bytes[3] = (uint8_t)(1 + i);
		ep[i].port = 8661;
	}
	pair = sst_simpair_create(&lp, &lp, &ep[0], &ep[1], NULL, NULL);
	CU_ASSERT_FATAL(pair != NULL);
	for (int i = 0; i < 2; i++) {
		sc[i] = (struct sst_simpair_conf){.pair = pair, .side = i};
		lc.driver_conf = &sc[i];
		l[i] = sst_link_open(&lc);
		CU_ASSERT_FATAL(l[i] != NULL);
	}
	return pair;
}

static void
check_stream(const struct cli_stream *cs, uint32_t expect_messages)
{
	CU_ASSERT_TRUE(cs->freed);
	CU_ASSERT_EQUAL(cs->got, cs->total);
	CU_ASSERT_EQUAL(cs->bad, 0);
	CU_ASSERT_TRUE(cs->end);
	CU_ASSERT_EQUAL(cs->why, SST_STREAM_FINISHED);
	CU_ASSERT_EQUAL(cs->messages, expect_messages);
}

static void
test_ring_echo(void)
{
	static struct server_app srv;
	static struct client_app cli;
	struct node ns, nc;
	struct sst_link *l[2];
	struct sst_simpair *pair = simpair_links(l);
	pthread_t ts, tc;
	sst_time_t start = now_ns(), deadline = start + 90 * SST_NSEC_PER_SEC;
	uint64_t total = MAIN_BYTES;

	memset(&srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	node_init(&nc, "rcli", l[0], 0xc1, 0);
	node_init(&ns, "rsrv", l[1], 0x5e, 0);
	srv.agent = ns.agent;
	cli.agent = nc.agent;
	cli.server = ns.self;
	CU_ASSERT_FATAL(pthread_create(&ts, NULL, server_main, &srv) == 0);
	CU_ASSERT_FATAL(pthread_create(&tc, NULL, client_main, &cli) == 0);
	/* The workers run here; the applications only see their rings. */
	while (!atomic_load(&srv.done) || !atomic_load(&cli.done)) {
		sst_worker_poll(ns.w, now_ns());
		sst_worker_poll(nc.w, now_ns());
		if (atomic_load(&cli.done) && !atomic_load(&srv.stop))
			atomic_store(&srv.stop, true);
		if (now_ns() > deadline)
			break;
		sched_yield();
	}
	CU_ASSERT_TRUE(atomic_load(&srv.done) && atomic_load(&cli.done));
	pthread_join(tc, NULL);
	pthread_join(ts, NULL);
	for (int i = 0; i < STREAMS; i++)
		total += cli.streams[i].got;
	printf("\n  %llu bytes echoed in %.2f s (the client paused %.0f ms), %u/%u datagrams "
	       "back\n",
		(unsigned long long)total, (double)(now_ns() - start) / 1e9,
		(double)cli.pause_ns / 1e6, cli.dgrams_got, cli.dgrams_sent);
	printf("  client: %llu commands, %llu events, %llu ring-full stalls, %llu no-credit, "
	       "%llu stale; server: %llu commands, %llu events; datagram drops %llu\n",
		(unsigned long long)cli.st.commands, (unsigned long long)cli.st.events,
		(unsigned long long)cli.st.ring_full, (unsigned long long)cli.st.no_credit,
		(unsigned long long)cli.st.stale_events, (unsigned long long)srv.st.commands,
		(unsigned long long)srv.st.events,
		(unsigned long long)(cli.st.dgram_tx_drops + cli.st.dgram_rx_drops +
				     srv.st.dgram_tx_drops + srv.st.dgram_rx_drops));
	CU_ASSERT_FALSE(cli.timed_out);
	CU_ASSERT_EQUAL(cli.open_errors, 0);
	CU_ASSERT_TRUE(cli.main.connected);
	check_stream(&cli.main, 0);
	for (int i = 0; i < SUBSTREAMS; i++)
		check_stream(&cli.subs[i], SUB_BYTES / SUB_MSG);
	for (int i = 0; i < STREAMS; i++) {
		CU_ASSERT_TRUE(cli.streams[i].connected);
		check_stream(&cli.streams[i], 0);
	}
	/* The unknown service: refused, then closed. */
	CU_ASSERT_FALSE(cli.nope.connected);
	CU_ASSERT_EQUAL(cli.nope.conn_err, -ECONNREFUSED);
	CU_ASSERT_EQUAL(cli.nope.why, SST_STREAM_REFUSED);
	CU_ASSERT_TRUE(cli.nope.freed);
	/* The reset: ours locally, the server's remotely. */
	CU_ASSERT_EQUAL(cli.rst.why, SST_STREAM_RESET_LOCAL);
	CU_ASSERT_TRUE(cli.rst.freed);
	CU_ASSERT_EQUAL(cli.rst.bad, 0);
	CU_ASSERT_EQUAL(srv.resets_seen, 1);
	/* The pause filled the client's event ring; nothing was lost. */
	CU_ASSERT_TRUE(cli.paused);
	CU_ASSERT(cli.st.ring_full > 0);
	CU_ASSERT_EQUAL(cli.st.dead_handle, 0);
	CU_ASSERT_EQUAL(cli.st.bad_commands, 0);
	CU_ASSERT_EQUAL(cli.st.write_errors, 0);
	CU_ASSERT_EQUAL(cli.st.accept_drops, 0);
	/* Datagrams are unreliable; the ones back are whole and unique. */
	CU_ASSERT_EQUAL(cli.dgrams_sent, DGRAMS);
	CU_ASSERT(cli.dgrams_got >= DGRAMS * 9 / 10);
	CU_ASSERT_EQUAL(cli.dgrams_bad, 0);
	/* The server: 1 + 8 + 1 streams and 3 substreams, all ended. */
	CU_ASSERT_EQUAL(srv.listen_err, 0);
	CU_ASSERT_FALSE(srv.stuck);
	CU_ASSERT_EQUAL(srv.accepted_top, 1 + STREAMS + 1);
	CU_ASSERT_EQUAL(srv.accepted_sub, SUBSTREAMS);
	CU_ASSERT_EQUAL(srv.finished, 1 + STREAMS + SUBSTREAMS);
	CU_ASSERT_EQUAL(srv.other_end, 0);
	CU_ASSERT_EQUAL(srv.cut, 0);
	CU_ASSERT_EQUAL(srv.st.dead_handle, 0);
	CU_ASSERT_EQUAL(srv.st.bad_commands, 0);
	node_fini(&nc);
	node_fini(&ns);
	sst_simpair_destroy(pair);
	pools_full();
}

/* ---- Connecting to nobody ---- */

struct fail_app {
	struct sst_ring_agent *agent;
	struct sst_net_endpoint to;
	atomic_bool failed, done;
	int h, sub, freed, other;
	int32_t conn_err, close_err, sub_err;
	uint16_t why, sub_why;
	sst_time_t took; /* from connect to CONNECTED, real time */
	struct sst_ring_client_stats st;
};

static void *
fail_main(void *arg)
{
	struct fail_app *f = arg;
	struct sst_ring_client *c = sst_ring_client_create(f->agent, NULL);
	struct sst_ring_event ev[EV_BURST];
	sst_time_t start = now_ns(), deadline = start + 30 * SST_NSEC_PER_SEC;

	f->h = c != NULL ? sst_ring_connect(c, &f->to, "echo", "test", SST_NEGO_MODE_CHECKSUM)
			 : -ENOMEM;
	/* Pipelined: a write and a substream with a write, before any answer. */
	f->sub = f->h > 0 ? sst_ring_create_substream(c, f->h) : -EBADF;
	if (f->h > 0 && f->sub > 0) {
		struct rte_mbuf *m[2] = {sst_test_pattern_chain(app_pool, 2048, 0, 100, 1),
			sst_test_pattern_chain(app_pool, 2048, 0, 100, 1)};

		if (sst_ring_write(c, f->h, m[0], 0) != 0)
			rte_pktmbuf_free(m[0]);
		if (sst_ring_write(c, f->sub, m[1], 0) != 0)
			rte_pktmbuf_free(m[1]);
	}
	while (c != NULL && f->h > 0 && f->freed < 2 && now_ns() < deadline) {
		int n = sst_ring_poll(c, ev, EV_BURST);

		for (int i = 0; i < n; i++) {
			int h = (int)ev[i].handle;

			if (ev[i].type == SST_RING_EV_CONNECTED && h == f->h) {
				f->conn_err = ev[i].err;
				f->took = now_ns() - start;
				atomic_store(&f->failed, true);
			} else if (ev[i].type == SST_RING_EV_CLOSED && h == f->h) {
				f->why = ev[i].why;
				f->close_err = ev[i].err;
				sst_ring_close(c, h);
			} else if (ev[i].type == SST_RING_EV_CLOSED && h == f->sub) {
				f->sub_why = ev[i].why;
				f->sub_err = ev[i].err;
				sst_ring_close(c, h);
			} else if (ev[i].type == SST_RING_EV_FREED) {
				f->freed++;
			} else {
				f->other++;
			}
		}
		if (n <= 0)
			usleep(100);
	}
	if (c != NULL)
		sst_ring_client_stats(c, &f->st);
	sst_ring_client_destroy(c);
	atomic_store(&f->done, true);
	return NULL;
}

/*
 * Connect to a bound UDP socket nobody reads. With a connect timeout the
 * agent fails the connect (and the substream and writes queued on it)
 * after that time; without one the worker runs on virtual time until the
 * negotiation gives up (SST_NEGO_FAIL_AFTER, 20 s) and reports it.
 */
static void
run_failure(sst_time_t connect_timeout)
{
	static struct fail_app f;
	struct sst_link *silent = sst_test_udp_link(pool);
	struct node n;
	pthread_t t;
	sst_time_t vstart = now_ns(), vnow = vstart, vfailed = 0;

	memset(&f, 0, sizeof(f));
	CU_ASSERT_FATAL(silent != NULL);
	node_init(&n, connect_timeout != 0 ? "rfail1" : "rfail2", sst_test_udp_link(pool), 0x77,
		connect_timeout);
	CU_ASSERT_FATAL(sst_link_local(silent, &f.to) == 0);
	f.agent = n.agent;
	CU_ASSERT_FATAL(pthread_create(&t, NULL, fail_main, &f) == 0);
	while (!atomic_load(&f.done)) {
		if (connect_timeout != 0) {
			vnow = now_ns();
		} else {
			vnow += 50 * SST_NSEC_PER_MSEC;
			usleep(200);
		}
		sst_worker_poll(n.w, vnow);
		if (vfailed == 0 && atomic_load(&f.failed))
			vfailed = vnow;
		sched_yield();
	}
	pthread_join(t, NULL);
	printf("\n  connect failed with %d after %.0f ms (%s)\n", f.conn_err,
		(double)(vfailed - vstart) / 1e6,
		connect_timeout != 0 ? "the agent's timeout" : "the negotiation's, virtual time");
	CU_ASSERT(f.h > 0 && f.sub > 0);
	CU_ASSERT_EQUAL(f.conn_err, -ETIMEDOUT);
	CU_ASSERT_EQUAL(f.why, SST_STREAM_ABORTED);
	CU_ASSERT_EQUAL(f.close_err, -ETIMEDOUT);
	CU_ASSERT_EQUAL(f.sub_why, SST_STREAM_ABORTED);
	CU_ASSERT_EQUAL(f.sub_err, -ETIMEDOUT);
	CU_ASSERT_EQUAL(f.freed, 2);
	CU_ASSERT_EQUAL(f.other, 0);
	CU_ASSERT_EQUAL(f.st.dead_handle + f.st.bad_commands, 0);
	if (connect_timeout != 0) {
		CU_ASSERT(vfailed - vstart >= connect_timeout);
		CU_ASSERT(vfailed - vstart < connect_timeout + 2 * SST_NSEC_PER_SEC);
	} else {
		CU_ASSERT(vfailed - vstart >= SST_NEGO_FAIL_AFTER);
		CU_ASSERT(vfailed - vstart < SST_NEGO_FAIL_AFTER + 2 * SST_NSEC_PER_SEC);
	}
	node_fini(&n);
	sst_link_close(silent);
	pools_full();
}

static void
test_ring_connect_failure(void)
{
	run_failure(300 * SST_NSEC_PER_MSEC);
	run_failure(0);
}

/* ---- Detaching with streams open ---- */

struct detach_app {
	struct sst_ring_agent *agent;
	struct sst_net_endpoint server;
	bool agent_goes; /* the agent is destroyed under the client */
	atomic_int phase;
	atomic_bool done;
	int connected, opened, write_after;
	struct sst_ring_client_stats st;
};

enum { DETACH_STREAMS = 4 };

static void *
detach_main(void *arg)
{
	struct detach_app *d = arg;
	struct sst_ring_client_params cp = {.size = sizeof(cp), .event_ring = 64};
	struct sst_ring_client *c = sst_ring_client_create(d->agent, &cp);
	struct sst_ring_event ev[EV_BURST];
	int h[2 * DETACH_STREAMS];
	sst_time_t deadline = now_ns() + 10 * SST_NSEC_PER_SEC;

	for (int i = 0; c != NULL && i < DETACH_STREAMS; i++) {
		h[2 * i] = sst_ring_connect(c, &d->server, "echo", "test", SST_NEGO_MODE_CHECKSUM);
		h[2 * i + 1] = sst_ring_create_substream(c, h[2 * i]);
	}
	/* Write until the credit runs out: the echo comes back to fill the
	 * event ring, which nobody reads past the connects. */
	for (int i = 0; c != NULL && i < 2 * DETACH_STREAMS; i++) {
		d->opened += h[i] > 0;
		for (uint32_t off = 0;; off += 1000) {
			struct rte_mbuf *m = sst_test_pattern_chain(app_pool, 2048, off, 1000, 1);

			if (m == NULL || sst_ring_write(c, h[i], m, 0) != 0) {
				rte_pktmbuf_free(m);
				break;
			}
		}
	}
	while (c != NULL && d->connected < DETACH_STREAMS && now_ns() < deadline) {
		int n = sst_ring_poll(c, ev, 1);

		if (n == 1 && ev[0].type == SST_RING_EV_CONNECTED && ev[0].err == 0)
			d->connected++;
		else if (n == 1 && ev[0].type == SST_RING_EV_DATA)
			rte_pktmbuf_free(ev[0].m);
		else if (n <= 0)
			usleep(100);
	}
	/* Until the echo filled the event ring and the agent stopped. */
	while (c != NULL && d->st.ring_full == 0 && now_ns() < deadline && usleep(1000) == 0)
		sst_ring_client_stats(c, &d->st);
	for (int i = 0; c != NULL && i < 2; i++) {
		struct rte_mbuf *m = sst_test_pattern_chain(app_pool, 2048, 0, 100, 1);

		if (sst_ring_send_datagram(c, h[0], m) != 0)
			rte_pktmbuf_free(m);
	}
	if (c != NULL && d->agent_goes) {
		struct rte_mbuf *m = sst_test_pattern_chain(app_pool, 2048, 0, 100, 1);

		atomic_store(&d->phase, 1);
		while (atomic_load(&d->phase) != 2)
			usleep(1000);
		d->write_after = sst_ring_write(c, h[0], m, 0);
		if (d->write_after != 0)
			rte_pktmbuf_free(m);
	}
	/* Streams open, events and maybe commands in the rings. */
	sst_ring_client_destroy(c);
	atomic_store(&d->done, true);
	return NULL;
}

/*
 * A client detaches with streams open, writes queued and its event ring
 * full: the worker resets its streams (the peer sees the resets) and every
 * mbuf comes back. Then an agent is destroyed (after its worker) under an
 * attached client: the client is detached, refuses commands, and its
 * destruction frees what its rings still hold.
 */
static void
test_ring_detach(void)
{
	static struct server_app srv;
	static struct detach_app d1, d2;
	struct node ns, nc;
	struct sst_link *l[2];
	struct sst_simpair *pair = simpair_links(l);
	pthread_t ts, t1, t2;
	sst_time_t deadline;

	memset(&srv, 0, sizeof(srv));
	memset(&d1, 0, sizeof(d1));
	memset(&d2, 0, sizeof(d2));
	node_init(&nc, "dcli", l[0], 0xc1, 0);
	node_init(&ns, "dsrv", l[1], 0x5e, 0);
	srv.agent = ns.agent;
	d1.agent = d2.agent = nc.agent;
	d1.server = d2.server = ns.self;
	d2.agent_goes = true;
	CU_ASSERT_FATAL(pthread_create(&ts, NULL, server_main, &srv) == 0);
	CU_ASSERT_FATAL(pthread_create(&t1, NULL, detach_main, &d1) == 0);
	deadline = now_ns() + 20 * SST_NSEC_PER_SEC;
	while ((!atomic_load(&d1.done) || srv.resets_seen < 2 * DETACH_STREAMS) &&
		now_ns() < deadline) {
		sst_worker_poll(ns.w, now_ns());
		sst_worker_poll(nc.w, now_ns());
		sched_yield();
	}
	pthread_join(t1, NULL);
	CU_ASSERT_FATAL(pthread_create(&t2, NULL, detach_main, &d2) == 0);
	while (atomic_load(&d2.phase) != 1 && now_ns() < deadline) {
		sst_worker_poll(ns.w, now_ns());
		sst_worker_poll(nc.w, now_ns());
		sched_yield();
	}
	/* The client's worker and agent go while the client is attached. */
	sst_worker_destroy(nc.w);
	sst_ring_agent_destroy(nc.agent);
	atomic_store(&d2.phase, 2);
	atomic_store(&srv.stop, true);
	while ((!atomic_load(&d2.done) || !atomic_load(&srv.done)) && now_ns() < deadline) {
		sst_worker_poll(ns.w, now_ns());
		sched_yield();
	}
	CU_ASSERT_TRUE(atomic_load(&d2.done) && atomic_load(&srv.done));
	pthread_join(t2, NULL);
	pthread_join(ts, NULL);
	printf("\n  detached with %d streams open: %llu ring-full stalls; the server saw %u "
	       "resets, reset %u itself\n",
		d1.opened, (unsigned long long)d1.st.ring_full, srv.resets_seen, srv.cut);
	CU_ASSERT_EQUAL(d1.opened, 2 * DETACH_STREAMS);
	CU_ASSERT_EQUAL(d1.connected, DETACH_STREAMS);
	CU_ASSERT(d1.st.ring_full > 0);
	CU_ASSERT_EQUAL(srv.resets_seen, 2 * DETACH_STREAMS);
	CU_ASSERT_EQUAL(srv.other_end, 0);
	CU_ASSERT_EQUAL(d2.connected, DETACH_STREAMS);
	CU_ASSERT_EQUAL(d2.write_after, -ENOTCONN);
	CU_ASSERT_FALSE(srv.stuck);
	node_fini(&ns);
	sst_link_close(nc.link);
	sst_simpair_destroy(pair);
	pools_full();
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_ring_echo),
	SST_TEST(test_ring_connect_failure),
	SST_TEST(test_ring_detach),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_ring") < 0)
		return 1;
	pool = sst_test_pool("sst_ring_pool", POOL_N, 2048);
	clones = sst_test_pool("sst_ring_clones", POOL_N, 0);
	app_pool = sst_test_pool("sst_ring_app", APP_POOL_N, 2048);
	if (pool == NULL || clones == NULL || app_pool == NULL)
		return 1;
	return sst_test_run("sst_ring", cases);
}
