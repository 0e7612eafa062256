/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen template mode: replay pre-built frames (gen_frames.c) on a DPDK
 * port, one worker lcore per transmit queue, as fast as the port takes
 * them or at --rate. Every packet is a copy of a template with its fields
 * varied (gen_fields.c: source address and port; for channel packets the
 * sequence number and the Chk32 trailer; the IPv4 and UDP checksums to
 * match). Queue q's packets are numbered from q << 40, so that queues send
 * distinct sequence numbers. The main lcore prints a line a second and the
 * totals; with the attack templates it also reads the port's receive queue
 * and sorts what the target answered (gen_answers.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "gen_answers.h"
#include "gen_template.h"
#include "tool_args.h"

enum { BURST = GEN_BURST_MAX, TX_DESC = 1024, RX_DESC = 512, MBUFS = 16383, RX_MBUFS = 2047 };

/* One queue's worker: its counters on a cache line of their own. */
struct tx_queue {
	const struct gen_conf *c;
	const struct gen_frames *fr;
	struct rte_mempool *pool;
	uint16_t port, queue;
	uint64_t first;		/**< index of this queue's first packet (spreads the fields) */
	uint64_t limit;		/**< packets to send; 0: until stopped */
	uint64_t tsc_per_burst; /**< pacing; 0: none */
	uint64_t sent, bytes, dropped;
	uint64_t tsc_start, tsc_end;
	bool prefilled; /**< every mbuf of the pool holds the one template */
	/** Set by the worker when its loop is over (tsc_end written): the
	 * lcore's state says RUNNING only once its thread has woken, so a
	 * worker not started yet would look finished. */
	bool done;
} __rte_cache_aligned;

/* Set by the main lcore, read by the workers between bursts. */
static bool stop_tx;

/* Several templates (or a raw frame): each packet copied and varied in
 * turn. @return bytes of the burst. */
static uint64_t
fill_each(const struct gen_frames *fr, struct rte_mbuf **m, uint16_t n, struct gen_vary_run *run,
	uint32_t *t, bool prefilled)
{
	struct gen_vary v = run->v;
	uint64_t bytes = 0;

	for (uint16_t k = 0; k < n; k++) {
		const struct gen_frame *f = &fr->f[*t];
		uint8_t *p = rte_pktmbuf_mtod(m[k], uint8_t *);

		if (!prefilled)
			rte_memcpy(p, f->bytes, f->len);
		m[k]->data_len = f->len;
		m[k]->pkt_len = f->len;
		v.seq++;
		if (f->kind != GEN_FRAME_RAW)
			gen_frame_vary(f, p, &v, fr->chk_key);
		bytes += f->len;
		if (++*t == fr->n)
			*t = 0;
		if (++v.addr == run->vary_addrs)
			v.addr = 0;
		if (++v.port == run->vary_ports)
			v.port = 0;
	}
	run->v = v;
	return bytes;
}

static int
tx_loop(void *arg)
{
	struct tx_queue *q = arg;
	const struct gen_conf *c = q->c;
	const struct gen_frames *fr = q->fr;
	struct rte_mbuf *m[BURST];
	uint64_t i = q->first, next = rte_rdtsc(), end = q->limit != 0 ? q->first + q->limit : 0;
	struct gen_vary_run run = {
		.v = {.addr = 0, .port = 0, .seq = q->first},
		.vary_addrs = c->vary_addrs,
		.vary_ports = c->vary_ports,
	};
	const bool one = q->prefilled && fr->f[0].kind != GEN_FRAME_RAW;
	/* One channel template, the pool prefilled with it and its length:
	 * the mbufs come back from the port as they left (refcnt 1, one
	 * segment, lengths and data offset kept: rte_pktmbuf_free()), so
	 * they are taken from the pool as they are, without a reset, and
	 * only the fields that change are written (as testpmd's txonly takes
	 * them with rte_mempool_get_bulk()). */
	const bool vec = one && gen_frame_vary_burst_vec_fits(&fr->f[0], &run);
	uint32_t t = 0;

	q->tsc_start = rte_rdtsc();
	while (!__atomic_load_n(&stop_tx, __ATOMIC_RELAXED) && (end == 0 || i < end)) {
		uint16_t n = BURST, sent;
		uint64_t bytes;

		if (end != 0 && end - i < BURST)
			n = (uint16_t)(end - i);
		if (q->tsc_per_burst != 0) {
			while (rte_rdtsc() < next && !__atomic_load_n(&stop_tx, __ATOMIC_RELAXED))
				rte_pause();
			next += q->tsc_per_burst;
		}
		if (vec) {
			if (rte_mempool_get_bulk(q->pool, (void **)m, n) != 0)
				continue;
			gen_frame_vary_burst_vec(&fr->f[0], m, n, &run, fr->chk_key);
			bytes = (uint64_t)n * fr->f[0].len;
		} else if (rte_pktmbuf_alloc_bulk(q->pool, m, n) != 0) {
			continue;
		} else if (one) {
			/* One template in every buffer from the start (the
			 * pool prefilled): the sums of what changes once in
			 * 65,536 packets are kept (gen_frame_vary_burst()). */
			gen_frame_vary_burst(&fr->f[0], m, n, &run, fr->chk_key);
			bytes = (uint64_t)n * fr->f[0].len;
		} else {
			bytes = fill_each(fr, m, n, &run, &t, q->prefilled);
		}
		sent = rte_eth_tx_burst(q->port, q->queue, m, n);
		if (sent < n) {
			/* The port is full: what it did not take is dropped (as
			 * testpmd does), so the rate is what the port sustains. */
			for (uint16_t k = sent; k < n; k++)
				bytes -= m[k]->pkt_len;
			rte_pktmbuf_free_bulk(&m[sent], n - sent);
			q->dropped += n - sent;
		}
		q->sent += sent;
		q->bytes += bytes;
		i += n;
	}
	q->tsc_end = rte_rdtsc();
	__atomic_store_n(&q->done, true, __ATOMIC_RELEASE);
	return 0;
}

/*
 * With one template, every mbuf of the pool gets its bytes and length
 * once, here (packet 0's, gen_frame_fill()): a packet then writes only the
 * fields it varies, as testpmd's txonly writes only its headers. The pool
 * is ours alone and nothing else writes to its buffers (the receive queue
 * has a pool of its own).
 */
static void
prefill(struct rte_mempool *mp, void *arg, void *obj, unsigned int idx)
{
	const struct gen_frames *fr = arg;
	struct rte_mbuf *m = obj;

	(void)mp;
	(void)idx;
	gen_frame_fill(&fr->f[0], rte_pktmbuf_mtod(m, uint8_t *), fr->chk_key);
	m->data_len = fr->f[0].len;
	m->pkt_len = fr->f[0].len;
}

static int
port_setup(const struct gen_conf *c, struct rte_mempool *rx_pool)
{
	struct rte_eth_conf pc = {0};
	struct rte_eth_dev_info info;
	int rc;

	if (!rte_eth_dev_is_valid_port(c->tx_port)) {
		fprintf(stderr,
			"sst-gen: no port %u (give one in the EAL arguments, e.g. "
			"--vdev net_null0)\n",
			c->tx_port);
		return -1;
	}
	rc = rte_eth_dev_info_get(c->tx_port, &info);
	if (rc == 0 && info.max_tx_queues < c->queues) {
		fprintf(stderr, "sst-gen: port %u has %u transmit queues, not %u\n", c->tx_port,
			info.max_tx_queues, c->queues);
		return -1;
	}
	if (rc == 0)
		rc = rte_eth_dev_configure(c->tx_port, 1, (uint16_t)c->queues, &pc);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(c->tx_port, 0, RX_DESC,
			(unsigned int)rte_eth_dev_socket_id(c->tx_port), NULL, rx_pool);
	for (uint16_t q = 0; rc == 0 && q < c->queues; q++)
		rc = rte_eth_tx_queue_setup(c->tx_port, q, TX_DESC,
			(unsigned int)rte_eth_dev_socket_id(c->tx_port), NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(c->tx_port);
	if (rc != 0) {
		fprintf(stderr, "sst-gen: port %u: setup failed: %s\n", c->tx_port,
			rte_strerror(-rc));
		return -1;
	}
	return 0;
}

static void
totals(const struct tx_queue *qs, uint32_t n, uint64_t *sent, uint64_t *bytes, uint64_t *dropped)
{
	*sent = *bytes = *dropped = 0;
	for (uint32_t i = 0; i < n; i++) {
		*sent += qs[i].sent;
		*bytes += qs[i].bytes;
		*dropped += qs[i].dropped;
	}
}

/* The attack templates: drain the receive queue, sort each frame. */
static void
read_answers(const struct gen_conf *c, struct gen_answers *a)
{
	struct rte_mbuf *m[BURST];
	uint16_t n;

	for (int k = 0; k < 64; k++) {
		n = rte_eth_rx_burst(c->tx_port, 0, m, BURST);
		for (uint16_t i = 0; i < n; i++)
			a->n[gen_answer_classify(&c->tmpl_dst, rte_pktmbuf_mtod(m[i], uint8_t *),
				rte_pktmbuf_data_len(m[i]))]++;
		rte_pktmbuf_free_bulk(m, n);
		if (n < BURST)
			break;
	}
}

/* The seconds the queues sent for, by their own clocks (the first start to
 * the last end): the main thread's may start late (descheduled after the
 * launch, a short --count run reported an impossible rate) and ends after
 * the answers' wait. @p fallback when they recorded nothing. */
static double
send_seconds(const struct tx_queue *qs, uint32_t n, double fallback)
{
	uint64_t first = UINT64_MAX, last = 0;

	for (uint32_t i = 0; i < n; i++) {
		first = RTE_MIN(first, qs[i].tsc_start);
		last = RTE_MAX(last, qs[i].tsc_end);
	}
	return last > first ? (double)(last - first) / (double)rte_get_tsc_hz() : fallback;
}

static void
report(const struct gen_conf *c, const struct gen_frames *fr, const struct tx_queue *qs,
	double secs, const struct gen_answers *answers)
{
	uint64_t sent, bytes, dropped, cycles = 0;
	char ans[256] = "";

	totals(qs, c->queues, &sent, &bytes, &dropped);
	if (answers != NULL)
		gen_answers_format(answers, sent, c->json, ans, sizeof(ans));
	for (uint32_t i = 0; i < c->queues; i++)
		cycles += qs[i].tsc_end - qs[i].tsc_start;
	secs = send_seconds(qs, c->queues, secs);
	if (c->json) {
		printf("{\"mode\": \"template\", \"template\": \"%s\", \"frames\": %u, "
		       "\"queues\": %u, \"seconds\": %.3f, \"packets\": %" PRIu64
		       ", \"bytes\": %" PRIu64 ", \"dropped\": %" PRIu64
		       ", \"mpps\": %.3f, \"gbps\": %.3f, \"mpps_per_queue\": %.3f%s%s}\n",
			c->pcap != NULL ? c->pcap : c->template, fr->n, c->queues, secs, sent,
			bytes, dropped, (double)sent / secs / 1e6, (double)bytes * 8 / secs / 1e9,
			(double)sent / secs / 1e6 / c->queues, answers != NULL ? ", " : "", ans);
		return;
	}
	printf("sst-gen template: %s (%u frames), port %u, %u queue%s, %.2f s\n",
		c->pcap != NULL ? c->pcap : c->template, fr->n, c->tx_port, c->queues,
		c->queues == 1 ? "" : "s", secs);
	printf("%-22s %" PRIu64 " (%" PRIu64 " bytes), %" PRIu64 " refused by the port\n",
		"packets sent", sent, bytes, dropped);
	printf("%-22s %.3f Mpps, %.3f Gbit/s, %.3f Mpps per queue\n", "rate",
		(double)sent / secs / 1e6, (double)bytes * 8 / secs / 1e9,
		(double)sent / secs / 1e6 / c->queues);
	printf("%-22s %.1f per packet\n", "TSC cycles",
		sent != 0 ? (double)cycles / (double)sent : 0.0);
	if (answers != NULL)
		printf("%-22s %s\n", "target's answers", ans);
}

/* A second's line: packets sent, and with the attack templates what the
 * target answered in that second, by kind. */
static void
second_line(uint64_t sec, uint64_t sent, const struct gen_answers *a, struct gen_answers *prev)
{
	if (a == NULL) {
		fprintf(stderr, "sst-gen: %3" PRIu64 "s tx %.3f Mpps\n", sec, (double)sent / 1e6);
		return;
	}
	fprintf(stderr,
		"sst-gen: %3" PRIu64 "s tx %.3f Mpps; answers: %" PRIu64
		" cookie requests, %" PRIu64 " R1, %" PRIu64 " resets, %" PRIu64 " other\n",
		sec, (double)sent / 1e6, a->n[GEN_ANSWER_COOKIE] - prev->n[GEN_ANSWER_COOKIE],
		a->n[GEN_ANSWER_R1] - prev->n[GEN_ANSWER_R1],
		a->n[GEN_ANSWER_RESET] - prev->n[GEN_ANSWER_RESET],
		a->n[GEN_ANSWER_OTHER] - prev->n[GEN_ANSWER_OTHER]);
	*prev = *a;
}

int
gen_template_run(const struct gen_conf *c)
{
	struct gen_frames *fr = calloc(1, sizeof(*fr));
	struct tx_queue *qs = rte_zmalloc("gen_txq", sizeof(*qs) * c->queues, RTE_CACHE_LINE_SIZE);
	struct rte_mempool *pool = NULL, *rx_pool = NULL;
	struct gen_answers answers = {0}, answers_prev = {0};
	bool read_rx = c->pcap == NULL && gen_answers_wanted(c->template);
	struct rte_eth_dev_info info;
	uint64_t t0, prev = 0, hz = rte_get_tsc_hz(), sec = 0;
	uint32_t lcore, q = 0;
	int rc = TOOL_EXIT_SETUP;

	if (fr == NULL || qs == NULL || gen_frames_build(c, fr) < 0)
		goto out;
	if (rte_lcore_count() < c->queues + 1) {
		fprintf(stderr,
			"sst-gen: %u queue(s) need %u worker lcores besides the main one (EAL "
			"arguments: -l 0-%u)\n",
			c->queues, c->queues, c->queues);
		rc = TOOL_EXIT_ARGS;
		goto out;
	}
	pool = rte_pktmbuf_pool_create("gen_tx", MBUFS * c->queues + RX_DESC, 256, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	rx_pool = rte_pktmbuf_pool_create(
		"gen_rx", RX_MBUFS, 64, 0, RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (pool == NULL || rx_pool == NULL || port_setup(c, rx_pool) < 0)
		goto out;
	/* net_null's receive side makes packets up as fast as it is polled:
	 * nothing there is an answer, and reading it would take a core. */
	if (read_rx && rte_eth_dev_info_get(c->tx_port, &info) == 0 &&
		strcmp(info.driver_name, "net_null") == 0)
		read_rx = false;
	if (fr->n == 1)
		rte_mempool_obj_iter(pool, prefill, fr);
	__atomic_store_n(&stop_tx, false, __ATOMIC_RELAXED);
	RTE_LCORE_FOREACH_WORKER(lcore)
	{
		struct tx_queue *x = &qs[q];

		if (q == c->queues)
			break;
		x->c = c;
		x->fr = fr;
		x->pool = pool;
		x->port = c->tx_port;
		x->prefilled = fr->n == 1;
		x->queue = (uint16_t)q;
		x->first = (uint64_t)q << 40;
		x->limit = c->count != 0 ? c->count / c->queues + (q < c->count % c->queues) : 0;
		if (c->pps != 0)
			x->tsc_per_burst = hz * BURST * c->queues / c->pps;
		rte_eal_remote_launch(tx_loop, x, lcore);
		q++;
	}
	t0 = rte_rdtsc();
	for (;;) {
		uint64_t now = rte_rdtsc(), sent, bytes, dropped;
		bool running = false;

		for (uint32_t i = 0; i < q; i++)
			running |= !__atomic_load_n(&qs[i].done, __ATOMIC_ACQUIRE);
		if (!running)
			break;
		if (tool_interrupted ||
			(c->time_ns != 0 && now - t0 >= tool_ns_to_tsc(c->time_ns, hz)))
			__atomic_store_n(&stop_tx, true, __ATOMIC_RELAXED);
		if (read_rx)
			read_answers(c, &answers);
		if (now - t0 >= (sec + 1) * hz) {
			sec++;
			totals(qs, c->queues, &sent, &bytes, &dropped);
			if (!c->quiet && !c->json)
				second_line(
					sec, sent - prev, read_rx ? &answers : NULL, &answers_prev);
			prev = sent;
		}
		rte_delay_us_sleep(1000);
	}
	rte_eal_mp_wait_lcore();
	/* Answers still on their way: a last 100 ms for them. */
	for (int k = 0; read_rx && k < 100; k++) {
		read_answers(c, &answers);
		rte_delay_us_sleep(1000);
	}
	if (read_rx) {
		struct rte_eth_stats st;

		if (rte_eth_stats_get(c->tx_port, &st) == 0)
			answers.missed = st.imissed + st.rx_nombuf;
	}
	report(c, fr, qs, (double)(rte_rdtsc() - t0) / (double)hz, read_rx ? &answers : NULL);
	rte_eth_dev_stop(c->tx_port);
	rte_eth_dev_close(c->tx_port);
	rc = 0;
out:
	rte_mempool_free(pool);
	rte_mempool_free(rx_pool);
	rte_free(qs);
	free(fr);
	return rc;
}
