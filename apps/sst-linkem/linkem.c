/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bridge of sst-linkem: two net_af_packet ports, one simlink per
 * direction, driven in real time by the TSC from one polling thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "linkem.h"
#include "tool_args.h"

enum {
	BURST = 32,
	RX_DESC = 1024,
	TX_DESC = 1024,
	MBUF_CACHE = 256,
	/* An idle bridge sleeps, in steps of at most this many ns, when
	 * nothing is due sooner: the machine it shares with the endpoints it
	 * connects has few cores. A frame that arrives meanwhile waits in the
	 * af_packet ring, so the sleep bounds the extra delay it may get. */
	IDLE_SLEEP_NS = 50000,
	/* Wake this long before a delivery is due. */
	WAKE_EARLY_NS = 20000,
};

static const char *const port_names[LINKEM_DIRS] = {"net_af_packet0", "net_af_packet1"};
static const char *const dir_names[LINKEM_DIRS] = {"A>B", "B>A"};

const char *
linkem_port_name(int d)
{
	return port_names[d];
}

const char *
linkem_dir_name(int d)
{
	return dir_names[d];
}

struct linkem {
	const struct linkem_conf *conf;
	struct rte_mempool *pool;
	uint16_t port[LINKEM_DIRS]; /**< port[d] receives what direction d carries */
	bool started[LINKEM_DIRS];
	struct sst_simlink *link[LINKEM_DIRS];
	struct linkem_dir_stats st[LINKEM_DIRS];
	uint64_t tsc0;
	double ns_per_tick;
};

static sst_time_t
now_ns(const struct linkem *le)
{
	return (sst_time_t)((double)(rte_get_tsc_cycles() - le->tsc0) * le->ns_per_tick);
}

static int
port_open(struct linkem *le, int d)
{
	struct rte_eth_conf ec;
	uint16_t id;
	int rc;

	if (rte_eth_dev_get_port_by_name(port_names[d], &id) != 0) {
		fprintf(stderr, "sst-linkem: no port %s (interface %s): is it up?\n", port_names[d],
			le->conf->iface[d]);
		return -ENODEV;
	}
	memset(&ec, 0, sizeof(ec));
	rc = rte_eth_dev_configure(id, 1, 1, &ec);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(
			id, 0, RX_DESC, rte_eth_dev_socket_id(id), NULL, le->pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(id, 0, TX_DESC, rte_eth_dev_socket_id(id), NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(id);
	if (rc != 0) {
		fprintf(stderr, "sst-linkem: cannot start %s on %s: %s\n", port_names[d],
			le->conf->iface[d], rte_strerror(-rc));
		return rc;
	}
	le->started[d] = true;
	/* Frames for the far side carry its MAC, not ours. */
	rc = rte_eth_promiscuous_enable(id);
	if (rc != 0 && rc != -ENOTSUP)
		fprintf(stderr, "sst-linkem: %s: promiscuous mode: %s\n", le->conf->iface[d],
			rte_strerror(-rc));
	le->port[d] = id;
	return 0;
}

/* The model of direction d: the user's, with the storage sized to hold
 * every mbuf the process has, so that the model's limits are the queue and
 * the loss the user asked for, never its storage. */
static int
link_open(struct linkem *le, int d)
{
	struct sst_simlink_params p = le->conf->dir[d];

	p.capacity = le->conf->mbufs;
	if (p.queue_pkts > p.capacity)
		p.queue_pkts = p.capacity;
	p.pool = le->pool;
	le->link[d] = sst_simlink_create(&p, SOCKET_ID_ANY);
	if (le->link[d] == NULL) {
		fprintf(stderr, "sst-linkem: direction %s: bad link parameters or no memory (%s)\n",
			dir_names[d], rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

/* Read what arrived on the input of direction d and give it to the model.
 * @return frames read. */
static uint16_t
pass_in(struct linkem *le, int d, sst_time_t now)
{
	struct rte_mbuf *m[BURST];
	uint16_t n = rte_eth_rx_burst(le->port[d], 0, m, BURST);

	for (uint16_t i = 0; i < n; i++)
		if (sst_simlink_enqueue(le->link[d], m[i], now) != SST_SIMLINK_QUEUED)
			rte_pktmbuf_free(m[i]);
	le->st[d].rx += n;
	return n;
}

/* Write what the model of direction d delivers by now on its output
 * interface. @return frames delivered. */
static uint16_t
pass_out(struct linkem *le, int d, sst_time_t now)
{
	struct rte_mbuf *m[BURST];
	uint16_t out = le->port[d ^ 1];
	uint16_t n = sst_simlink_dequeue(le->link[d], now, m, BURST);
	uint16_t sent;

	if (n == 0)
		return 0;
	for (uint16_t i = 0; i < n; i++)
		le->st[d].tx_bytes += rte_pktmbuf_pkt_len(m[i]);
	sent = rte_eth_tx_burst(out, 0, m, n);
	for (uint16_t i = sent; i < n; i++) {
		le->st[d].tx_bytes -= rte_pktmbuf_pkt_len(m[i]);
		rte_pktmbuf_free(m[i]);
	}
	le->st[d].tx += sent;
	le->st[d].tx_fail += n - sent;
	return n;
}

static void
idle_sleep(const struct linkem *le, sst_time_t now)
{
	sst_time_t next = SST_TIME_NEVER;
	uint64_t ns = IDLE_SLEEP_NS;
	struct timespec ts = {0, 0};

	for (int d = 0; d < LINKEM_DIRS; d++) {
		sst_time_t t = sst_simlink_next_delivery(le->link[d]);

		if (t < next)
			next = t;
	}
	if (next != SST_TIME_NEVER) {
		if (next <= now + WAKE_EARLY_NS)
			return;
		if (next - now - WAKE_EARLY_NS < ns)
			ns = next - now - WAKE_EARLY_NS;
	}
	ts.tv_nsec = (long)ns;
	nanosleep(&ts, NULL);
}

static void
collect(struct linkem *le, struct linkem_dir_stats out[LINKEM_DIRS])
{
	for (int d = 0; d < LINKEM_DIRS; d++) {
		sst_simlink_stats_get(le->link[d], &le->st[d].link);
		if (out != NULL)
			out[d] = le->st[d];
	}
}

/* One line per second: what each direction delivered and dropped in it. */
static void
report_second(struct linkem *le, struct linkem_dir_stats prev[LINKEM_DIRS], double t)
{
	collect(le, NULL);
	fprintf(stderr, "%7.1fs", t);
	for (int d = 0; d < LINKEM_DIRS; d++) {
		const struct linkem_dir_stats *c = &le->st[d], *p = &prev[d];

		fprintf(stderr,
			"  %s in %" PRIu64 " out %" PRIu64 " pkt %.3f Mbit/s drop queue %" PRIu64
			" loss %" PRIu64 " full %" PRIu64 " txfail %" PRIu64 " held %u",
			dir_names[d], c->rx - p->rx, c->tx - p->tx,
			(double)(c->tx_bytes - p->tx_bytes) * 8e-6,
			c->link.dropped_queue - p->link.dropped_queue,
			c->link.dropped_loss - p->link.dropped_loss,
			c->link.dropped_full - p->link.dropped_full, c->tx_fail - p->tx_fail,
			sst_simlink_count(le->link[d]));
		prev[d] = *c;
	}
	fputc('\n', stderr);
}

static void
bridge(struct linkem *le, volatile sig_atomic_t *stop)
{
	struct linkem_dir_stats prev[LINKEM_DIRS];
	sst_time_t end = le->conf->run_s > 0 ? (sst_time_t)(le->conf->run_s * 1e9) : SST_TIME_NEVER;
	sst_time_t next_report = SST_NSEC_PER_SEC;

	memset(prev, 0, sizeof(prev));
	while (!*stop) {
		sst_time_t now = now_ns(le);
		unsigned int work = 0;

		for (int d = 0; d < LINKEM_DIRS; d++)
			work += pass_in(le, d, now);
		for (int d = 0; d < LINKEM_DIRS; d++)
			work += pass_out(le, d, now);
		if (now >= next_report) {
			if (!le->conf->quiet)
				report_second(le, prev, (double)now * 1e-9);
			next_report += SST_NSEC_PER_SEC;
		}
		if (now >= end)
			break;
		if (work == 0 && !le->conf->busy)
			idle_sleep(le, now);
	}
}

int
linkem_run(const struct linkem_conf *conf, volatile sig_atomic_t *stop,
	struct linkem_dir_stats out[LINKEM_DIRS])
{
	struct linkem le;
	int rc = 0;

	memset(&le, 0, sizeof(le));
	le.conf = conf;
	/* Sleep for what was asked, not 50 us more (the default slack). */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	le.pool = rte_pktmbuf_pool_create("linkem_pkts", conf->mbufs, MBUF_CACHE, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (le.pool == NULL) {
		fprintf(stderr, "sst-linkem: no memory for %u packet buffers (%s); try --mbufs\n",
			conf->mbufs, rte_strerror(rte_errno));
		return TOOL_EXIT_SETUP;
	}
	for (int d = 0; d < LINKEM_DIRS && rc == 0; d++)
		rc = link_open(&le, d);
	for (int d = 0; d < LINKEM_DIRS && rc == 0; d++)
		rc = port_open(&le, d);
	if (rc == 0) {
		/* Scripts wait for this line before they send. */
		fprintf(stderr, "sst-linkem: bridging %s and %s\n", conf->iface[0], conf->iface[1]);
		le.ns_per_tick = 1e9 / (double)rte_get_tsc_hz();
		le.tsc0 = rte_get_tsc_cycles();
		bridge(&le, stop);
		collect(&le, out);
	}
	for (int d = 0; d < LINKEM_DIRS; d++) {
		if (le.started[d]) {
			rte_eth_dev_stop(le.port[d]);
			rte_eth_dev_close(le.port[d]);
		}
		sst_simlink_destroy(le.link[d]);
	}
	rte_mempool_free(le.pool);
	return rc == 0 ? 0 : TOOL_EXIT_SETUP;
}
