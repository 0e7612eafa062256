/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bridge of sst-linkem: two net_af_packet ports, one simlink per
 * direction, driven in real time by the TSC from one polling thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "linkem.h"
#include "linkem_ring.h"
#include "sst_ethdev.h"
#include "tool_args.h"

enum {
	BURST = 32,
	RX_DESC = 1024,
	TX_DESC = 1024,
	MBUF_CACHE = 256,
	/* --wait sleep with --arrival read: an idle bridge sleeps, in steps
	 * of at most this many ns, when nothing is due sooner. A frame that
	 * arrives meanwhile waits in the af_packet ring and enters the model
	 * when read, so the sleep bounds the extra delay it may get. */
	IDLE_SLEEP_NS = 50000,
	/* --wait sleep with the kernel's stamps: the longest step. It bounds
	 * the frames a step leaves in the ring (83 at 1 Gbit/s, of 2048). */
	IDLE_STAMPED_MAX_NS = 1000000,
	/* --wait poll: the longest block in poll() (the per-second report and
	 * --time are checked in between). */
	IDLE_POLL_MAX_NS = 10000000,
	/* Wake this long before a delivery is due: the wake-up's latency. */
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

/* How long the frames of one direction waited in the af_packet ring
 * before the bridge read them: the kernel's stamp to the read, with the
 * ring view; otherwise the time the bridge had not looked at the ring
 * before the read (a read that fills the burst continues the previous
 * read's class: the same backlog). Queue drops among frames that waited
 * long, with arrivals taken at the read, are the bridge's doing, not the
 * sender's. */
enum { WAIT_CLASSES = 4 };
/* Frames that arrive closer together than this (by the kernel's stamps)
 * came back to back from the sender: a veth moves a frame in about a
 * microsecond, the 1 Gbit/s link in 12. */
static const sst_time_t back_to_back_ns = 2000;
static const sst_time_t wait_class_ns[WAIT_CLASSES - 1] = {20000, 100000, 1000000};

struct rx_watch {
	sst_time_t last_poll;
	sst_time_t last_arrival; /**< of the last frame given to the model */
	unsigned int cls;	 /**< class of the current backlog (no ring view) */
	bool full;		 /**< the previous read filled its burst */
	/* This second's: */
	sst_time_t gap_max;
	sst_time_t wait_max;
	uint64_t b2b;	  /**< frames back to back with the one before */
	uint32_t run;	  /**< the current run of back-to-back frames */
	uint32_t run_max; /**< the longest run that ended this second */
	uint64_t frames[WAIT_CLASSES];
	uint64_t drops[WAIT_CLASSES];
};

struct linkem {
	const struct linkem_conf *conf;
	struct rte_mempool *pool;
	uint16_t port[LINKEM_DIRS]; /**< port[d] receives what direction d carries */
	bool started[LINKEM_DIRS];
	struct sst_simlink *link[LINKEM_DIRS];
	struct linkem_dir_stats st[LINKEM_DIRS];
	struct rx_watch watch[LINKEM_DIRS];
	/* port[d]'s packet socket (negative: none known) and the view of its
	 * receive ring (map NULL: none; arrivals are the reads). */
	int fd[LINKEM_DIRS];
	struct linkem_ring ring[LINKEM_DIRS];
	sst_time_t min_delay; /**< the smaller one-way delay of the two */
	uint64_t tsc0;
	double ns_per_tick;
};

static sst_time_t
now_ns(const struct linkem *le)
{
	return (sst_time_t)((double)(rte_get_tsc_cycles() - le->tsc0) * le->ns_per_tick);
}

/* The packet socket of port d, and the view of its ring unless arrivals
 * are the reads; either may be missing (then the bridge sleeps in steps,
 * or takes arrivals at the reads), which is said once. */
static void
port_watch(struct linkem *le, int d)
{
	const char *why = NULL;
	int rc;

	le->fd[d] = sst_ethdev_wait_fd(le->port[d], 0);
	if (le->fd[d] < 0)
		why = "no single packet socket found";
	else if (!le->conf->arrival_read) {
		rc = linkem_ring_open(&le->ring[d], le->fd[d], le->conf->frames, LINKEM_FRAME_SIZE);
		if (rc < 0)
			why = strerror(-rc);
	}
	if (why != NULL)
		fprintf(stderr, "sst-linkem: %s: %s: arrivals are the reads%s\n",
			le->conf->iface[d], why,
			le->fd[d] < 0 && le->conf->wait != LINKEM_WAIT_BUSY ? ", idle sleeps" : "");
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
	le->port[d] = id;
	if (le->conf->wait != LINKEM_WAIT_BUSY || !le->conf->arrival_read)
		port_watch(le, d);
	/* Frames for the far side carry its MAC, not ours. */
	rc = rte_eth_promiscuous_enable(id);
	if (rc != 0 && rc != -ENOTSUP)
		fprintf(stderr, "sst-linkem: %s: promiscuous mode: %s\n", le->conf->iface[d],
			rte_strerror(-rc));
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

static unsigned int
wait_class(sst_time_t wait)
{
	unsigned int k = 0;

	while (k < WAIT_CLASSES - 1 && wait >= wait_class_ns[k])
		k++;
	return k;
}

/* Read what arrived on the input of direction d and give it to the model,
 * each frame at its arrival. @return frames read. */
static uint16_t
pass_in(struct linkem *le, int d)
{
	struct rte_mbuf *m[BURST];
	uint64_t ts[BURST];
	uint32_t len[BURST];
	struct rx_watch *w = &le->watch[d];
	struct linkem_ring *ring = &le->ring[d];
	uint16_t want = BURST, n = 0;
	sst_time_t now, gap;
	struct timespec real;
	uint64_t real_now = 0;

	/* With the view, read what it saw and no more (a frame that arrives
	 * in between waits for the next pass), so that each frame read has
	 * its stamp. */
	if (ring->map != NULL)
		want = linkem_ring_peek(ring, ts, len, BURST);
	if (want > 0)
		n = rte_eth_rx_burst(le->port[d], 0, m, want);
	if (ring->map != NULL) {
		linkem_ring_advance(ring, n);
		for (uint16_t i = 0; i < n; i++) {
			if (rte_pktmbuf_pkt_len(m[i]) == len[i])
				continue;
			fprintf(stderr,
				"sst-linkem: %s: lost track of the ring: arrivals are the reads\n",
				le->conf->iface[d]);
			linkem_ring_close(ring);
			break;
		}
	}
	/* The clocks after the read, not the pass's: a bridge preempted in
	 * between would give frames that came meanwhile an arrival before
	 * they came, and deliver them early (10 % of pings through --busy on
	 * a loaded machine came back 0.5 to 7 ms early). Every frame read was
	 * in the ring, stamped, by now. */
	now = now_ns(le);
	gap = now - w->last_poll;
	if (n > 0 && ring->map != NULL) {
		clock_gettime(CLOCK_REALTIME, &real);
		real_now = (uint64_t)real.tv_sec * SST_NSEC_PER_SEC + (uint64_t)real.tv_nsec;
	}
	w->last_poll = now;
	if (gap > w->gap_max)
		w->gap_max = gap;
	if (!w->full)
		w->cls = wait_class(gap);
	w->full = n == BURST;
	for (uint16_t i = 0; i < n; i++) {
		sst_time_t at = now;
		unsigned int cls = w->cls;
		enum sst_simlink_verdict v;

		if (ring->map != NULL) {
			at = linkem_arrival(ts[i], real_now, now, w->last_arrival);
			cls = wait_class(now - at);
			if (at - w->last_arrival < back_to_back_ns) {
				w->b2b++;
				w->run++;
			} else {
				w->run = 1;
			}
			if (w->run > w->run_max)
				w->run_max = w->run;
		}
		if (now - at > w->wait_max)
			w->wait_max = now - at;
		w->last_arrival = at;
		w->frames[cls]++;
		v = sst_simlink_enqueue(le->link[d], m[i], at);
		if (v != SST_SIMLINK_QUEUED)
			rte_pktmbuf_free(m[i]);
		if (v == SST_SIMLINK_DROP_QUEUE)
			w->drops[cls]++;
	}
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

/* Nothing was read or delivered: wait for a frame or for the next
 * delivery (less the wake-up's latency), whichever comes first, or with
 * --wait sleep (or no socket to poll) sleep 50 us at most. */
static void
idle_wait(const struct linkem *le, sst_time_t now, sst_time_t until)
{
	sst_time_t next = until;
	uint64_t ns;
	struct timespec ts = {0, 0};
	struct pollfd pfd[LINKEM_DIRS];
	bool can_poll = le->conf->wait != LINKEM_WAIT_BUSY;

	for (int d = 0; d < LINKEM_DIRS; d++) {
		sst_time_t t = sst_simlink_next_delivery(le->link[d]);

		if (t < next)
			next = t;
		pfd[d].fd = le->fd[d];
		pfd[d].events = POLLIN;
		pfd[d].revents = 0;
		can_poll = can_poll && le->fd[d] >= 0;
	}
	if (next <= now + WAKE_EARLY_NS)
		return;
	ns = next - now - WAKE_EARLY_NS;
	if (le->conf->wait == LINKEM_WAIT_SLEEP) {
		/* With stamps, a frame that arrives during the sleep enters the
		 * model at its arrival all the same, and is due a one-way delay
		 * later at the earliest: sleeping that long (less the wake-up)
		 * makes no frame late. Blocking in poll() instead woke the
		 * bridge for every frame of a paced sender, and SST over
		 * af_packet ran up to a quarter slower on gig with it (session
		 * 15). */
		uint64_t step = IDLE_SLEEP_NS;

		if (le->ring[0].map != NULL && le->ring[1].map != NULL) {
			step = le->min_delay > WAKE_EARLY_NS ? le->min_delay - WAKE_EARLY_NS : 0;
			if (step > IDLE_STAMPED_MAX_NS)
				step = IDLE_STAMPED_MAX_NS;
		}
		if (step >= IDLE_SLEEP_NS || !can_poll) {
			if (step == 0)
				return;
			ts.tv_nsec = (long)(ns < step ? ns : step);
			nanosleep(&ts, NULL);
			return;
		}
		/* A link without delay: a frame may be due at once. */
	} else if (!can_poll) {
		ts.tv_nsec = (long)(ns < IDLE_SLEEP_NS ? ns : IDLE_SLEEP_NS);
		nanosleep(&ts, NULL);
		return;
	}
	if (ns > IDLE_POLL_MAX_NS)
		ns = IDLE_POLL_MAX_NS;
	ts.tv_nsec = (long)ns;
	/* A signal ends the wait early (EINTR): the loop checks the stop flag. */
	ppoll(pfd, LINKEM_DIRS, &ts, NULL);
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

/* The longest time the bridge did not look at the ring, the longest wait
 * of a frame in it, the frames that arrived back to back and the longest
 * such run (with the ring view), and the frames (and queue drops among them) that
 * waited < 20 us, < 100 us, < 1 ms and longer; then a new second. */
static void
report_watch(struct rx_watch *w)
{
	fprintf(stderr,
		" gap max %" PRIu64 " us wait max %" PRIu64 " us back-to-back %" PRIu64
		" run max %u rx/drop by wait",
		(uint64_t)w->gap_max / 1000, (uint64_t)w->wait_max / 1000, w->b2b, w->run_max);
	for (int k = 0; k < WAIT_CLASSES; k++)
		fprintf(stderr, " %" PRIu64 "/%" PRIu64, w->frames[k], w->drops[k]);
	memset(w->frames, 0, sizeof(w->frames));
	memset(w->drops, 0, sizeof(w->drops));
	w->gap_max = 0;
	w->wait_max = 0;
	w->b2b = 0;
	w->run_max = 0;
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
		report_watch(&le->watch[d]);
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
		sst_time_t now;
		unsigned int work = 0;

		for (int d = 0; d < LINKEM_DIRS; d++)
			work += pass_in(le, d);
		/* After the reads: a delivery is never early, only late by as
		 * long as the bridge is kept from the CPU. */
		now = now_ns(le);
		for (int d = 0; d < LINKEM_DIRS; d++)
			work += pass_out(le, d, now);
		if (now >= next_report) {
			if (!le->conf->quiet)
				report_second(le, prev, (double)now * 1e-9);
			next_report += SST_NSEC_PER_SEC;
		}
		if (now >= end)
			break;
		if (work == 0 && le->conf->wait != LINKEM_WAIT_BUSY)
			idle_wait(le, now, next_report < end ? next_report : end);
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
	for (int d = 0; d < LINKEM_DIRS; d++)
		le.fd[d] = -1;
	le.min_delay = RTE_MIN(conf->dir[0].delay_ns, conf->dir[1].delay_ns);
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
		linkem_ring_close(&le.ring[d]);
		sst_simlink_destroy(le.link[d]);
	}
	rte_mempool_free(le.pool);
	return rc == 0 ? 0 : TOOL_EXIT_SETUP;
}
