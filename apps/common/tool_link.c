/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tools' hosts (tool_link.h): EAL, pools, link and worker. This is the
 * one file that changes when the tools move to the engine (sst_engine.h):
 * a host becomes an engine of `workers` workers, tool_net_poll() becomes
 * sst_engine_poll() of each (or sst_engine_launch()), and the counters are
 * summed over the workers.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include <rte_cpuflags.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "sst_eal.h"
#include "sst_link.h"
#include "sst_simpair.h"
#include "tool_args.h"
#include "tool_link.h"

enum {
	DATA_ROOM = 2048,
	DEFAULT_MBUFS = 16383,
	DEFAULT_SOCK_BUFFER = 4 << 20,
	LOOPBACK_CAPACITY = 32768,
	DEFAULT_QUEUE_PKTS = 1000,
};

/* How long a net that receives nothing keeps spinning before it sleeps,
 * and the longest sleep: short enough that a person or a pipe never waits
 * noticeably, long enough that an idle tool costs no CPU. */
#define IDLE_SPIN_NS (2 * SST_NSEC_PER_MSEC)
#define IDLE_SLEEP_NS (200 * SST_NSEC_PER_USEC)

struct tool_host {
	char name[16];
	struct rte_mempool *pool, *clones;
	struct sst_link *link;
	struct sst_worker *w;
	struct sst_net_endpoint self;
	enum sst_nego_mode mode;
	struct sst_secure_identity id;
	bool has_id;
	struct sst_secure_config sec;
};

struct tool_net {
	struct tool_host *h[2];
	int n;
	struct sst_simpair *pair;
	struct sst_simpair_conf spc[2];
	uint64_t last_rx;
	sst_time_t busy_at;
	char desc[160];
};

sst_time_t
tool_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (sst_time_t)ts.tv_sec * SST_NSEC_PER_SEC + (sst_time_t)ts.tv_nsec;
}

static sst_time_t
pair_clock(void *ctx)
{
	(void)ctx;
	return tool_now();
}

/* The CPUs this process may run on, as an EAL cpuset "(0,1,...)": the
 * EAL pins its main thread to lcore 0's cpuset, and pinning every tool
 * (and every test running in parallel) to CPU 0 would make them share
 * one core. */
static void
allowed_cpus(char *buf, size_t len)
{
	cpu_set_t set;
	size_t used = 0;

	snprintf(buf, len, "(0)");
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return;
	buf[used++] = '(';
	for (int c = 0; c < CPU_SETSIZE && used + 8 < len; c++)
		if (CPU_ISSET(c, &set))
			used += (size_t)snprintf(
				buf + used, len - used, "%s%d", buf[used - 1] == '(' ? "" : ",", c);
	snprintf(buf + used, len - used, ")");
}

int
tool_eal_split(int argc, char **argv, char ***app_argv)
{
	int sep = 0;
	char **v;

	for (int i = 1; i < argc && sep == 0; i++)
		if (strcmp(argv[i], "--") == 0)
			sep = i;
	v = calloc((size_t)(argc - sep + 1), sizeof(*v));
	if (v == NULL)
		return -1;
	v[0] = argv[0];
	for (int i = sep + 1; i < argc; i++)
		v[i - sep] = argv[i];
	*app_argv = v;
	return sep == 0 ? argc : argc - sep;
}

int
tool_eal_init(int argc, char **argv, const char *prog, unsigned int mem_mb)
{
	static char cpus[600], lcores[640];
	static const char *const extra[] = {lcores, "--no-telemetry", NULL};
	struct sst_eal_opts o = {.size = sizeof(o), .prog = prog, .memory_mb = mem_mb};
	int rc;

	allowed_cpus(cpus, sizeof(cpus));
	snprintf(lcores, sizeof(lcores), "--lcores=0@%s", cpus);
	o.extra_args = extra;
	rc = sst_eal_init(argc, argv, &o);
	if (rc < 0) {
		fprintf(stderr, "%s: cannot start the DPDK EAL: %s\n", prog, rte_strerror(-rc));
		return -1;
	}
	if (sodium_init() < 0) {
		fprintf(stderr, "%s: cannot start libsodium\n", prog);
		sst_eal_cleanup();
		return -1;
	}
	return 0;
}

void
tool_eal_fini(void)
{
	sst_eal_cleanup();
}

static bool
is_aead(enum sst_crypto_suite s)
{
	return s == SST_CRYPTO_AES128GCM || s == SST_CRYPTO_CHACHA20POLY1305;
}

/* Secure mode: the configuration the negotiation host points to (it must
 * outlive the worker, so it lives in the host). */
static void
secure_setup(struct tool_host *h, const struct tool_host_conf *c)
{
	struct sst_secure_config *s = &h->sec;

	memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	if (c->identity != NULL) {
		h->id = *c->identity;
		h->has_id = true;
	} else if (c->responder) {
		uint8_t seed[32];

		randombytes_buf(seed, sizeof(seed));
		h->has_id = sst_secure_identity_from_seed(&h->id, seed) == 0;
		sodium_memzero(seed, sizeof(seed));
	}
	s->identity = h->has_id ? &h->id : NULL;
	s->known_hosts = c->known_hosts;
	s->policy = c->known_hosts != NULL ? SST_SECURE_PINNED : SST_SECURE_TOFU;
	s->allow_anonymous = true;
	s->random = sst_secure_random_sodium;
	if (is_aead(c->armor)) {
		s->nsuites = 1;
		s->suites[0] = c->armor;
	} else {
		sst_secure_suites_default(s, rte_cpu_get_flag_enabled(RTE_CPUFLAG_AES) > 0, false);
	}
}

static void
host_destroy(struct tool_host *h)
{
	if (h == NULL)
		return;
	sst_worker_destroy(h->w);
	sst_link_close(h->link);
	rte_mempool_free(h->pool);
	rte_mempool_free(h->clones);
	sst_secure_identity_wipe(&h->id);
	free(h);
}

static struct tool_host *
host_create(const struct tool_host_conf *c, struct sst_link_conf *lc)
{
	struct tool_host *h = calloc(1, sizeof(*h));
	struct sst_worker_params wp = {.size = sizeof(wp)};
	uint32_t mbufs = c->mbufs != 0 ? c->mbufs : DEFAULT_MBUFS;
	char name[40];

	if (h == NULL) {
		fprintf(stderr, "out of memory\n");
		return NULL;
	}
	snprintf(h->name, sizeof(h->name), "%s", c->name);
	h->mode = is_aead(c->armor) ? SST_NEGO_MODE_SECURE : SST_NEGO_MODE_CHECKSUM;
	snprintf(name, sizeof(name), "%s_p", h->name);
	h->pool = rte_pktmbuf_pool_create(
		name, mbufs, 256, 0, DATA_ROOM + RTE_PKTMBUF_HEADROOM, SOCKET_ID_ANY);
	snprintf(name, sizeof(name), "%s_c", h->name);
	h->clones = rte_pktmbuf_pool_create(name, mbufs, 256, 0, 0, SOCKET_ID_ANY);
	if (h->pool == NULL || h->clones == NULL) {
		fprintf(stderr, "%s: cannot create a pool of %u mbufs: %s\n", h->name, mbufs,
			rte_strerror(rte_errno));
		goto fail;
	}
	lc->size = sizeof(*lc);
	lc->pool = h->pool;
	h->link = sst_link_open(lc);
	if (h->link == NULL) {
		fprintf(stderr, "cannot open the %s link: %s\n", lc->driver,
			rte_strerror(rte_errno));
		goto fail;
	}
	sst_link_local(h->link, &h->self);
	secure_setup(h, c);
	wp.link = h->link;
	wp.pool = h->pool;
	wp.mtu = c->mtu;
	randombytes_buf(wp.nego.secret, sizeof(wp.nego.secret));
	wp.nego.ulp_caps = SST_NEGO_CAP_ALL;
	if (h->has_id || h->mode == SST_NEGO_MODE_SECURE)
		wp.nego.secure = &h->sec;
	wp.stream = c->stream;
	wp.stream.size = sizeof(wp.stream);
	wp.stream.name = h->name;
	wp.stream.pool = h->pool;
	wp.stream.clone_pool = h->clones;
	wp.cc = c->cc;
	wp.idle_timeout = c->idle_timeout;
	wp.ops = c->ops;
	wp.ctx = c->ctx;
	h->w = sst_worker_create(&wp);
	sodium_memzero(wp.nego.secret, sizeof(wp.nego.secret));
	if (h->w == NULL) {
		fprintf(stderr, "%s: cannot create the worker: %s\n", h->name,
			rte_strerror(rte_errno));
		goto fail;
	}
	return h;
fail:
	host_destroy(h);
	return NULL;
}

static bool
workers_ok(const struct tool_host_conf *c)
{
	if (c->workers <= 1)
		return true;
	fprintf(stderr,
		"%u workers: running more than one worker needs the multi-worker engine, "
		"which this build of the tools does not use yet; use 1\n",
		c->workers);
	return false;
}

struct tool_net *
tool_net_udp(const struct tool_host_conf *c)
{
	struct tool_net *n;
	struct sst_link_conf lc = {.driver = "udpsock"};
	char ep[80];

	if (!workers_ok(c))
		return NULL;
	n = calloc(1, sizeof(*n));
	if (n == NULL)
		return NULL;
	lc.local = c->local;
	lc.rx_buffer = c->sock_buffer != 0 ? c->sock_buffer : DEFAULT_SOCK_BUFFER;
	lc.tx_buffer = lc.rx_buffer;
	n->h[0] = host_create(c, &lc);
	if (n->h[0] == NULL) {
		free(n);
		return NULL;
	}
	n->n = 1;
	tool_endpoint_text(&n->h[0]->self, ep, sizeof(ep));
	snprintf(n->desc, sizeof(n->desc), "udp (kernel socket) %s", ep);
	return n;
}

struct tool_net *
tool_net_loopback(const struct tool_host_conf *c0, const struct tool_host_conf *c1,
	const struct tool_impair *imp)
{
	static const struct tool_impair none;
	struct sst_simlink_params lp;
	struct sst_net_endpoint ep[2] = {0};
	struct tool_net *n;
	const struct tool_host_conf *c[2] = {c0, c1};

	if (!workers_ok(c0) || !workers_ok(c1))
		return NULL;
	if (imp == NULL)
		imp = &none;
	n = calloc(1, sizeof(*n));
	if (n == NULL)
		return NULL;
	sst_simlink_params_default(&lp);
	lp.capacity = LOOPBACK_CAPACITY;
	lp.seed = imp->seed;
	lp.rate_bps = imp->rate_bps;
	lp.delay_ns = imp->delay_ns;
	lp.loss = imp->loss;
	lp.reorder = imp->reorder;
	lp.reorder_delay_ns = imp->reorder_ns != 0 ? imp->reorder_ns : SST_NSEC_PER_MSEC;
	lp.duplicate = imp->duplicate;
	lp.queue_pkts = imp->queue_pkts;
	if (lp.queue_pkts == 0 && imp->rate_bps != 0)
		lp.queue_pkts = DEFAULT_QUEUE_PKTS;
	for (int i = 0; i < 2; i++) {
		ep[i].addr.family = SST_NET_IPV4;
		ep[i].addr.bytes[0] = 10;
		ep[i].addr.bytes[3] = (uint8_t)(1 + i);
		ep[i].port = 8661;
	}
	n->pair = sst_simpair_create(&lp, &lp, &ep[0], &ep[1], pair_clock, NULL);
	if (n->pair == NULL) {
		fprintf(stderr, "cannot create the loopback link: %s\n", rte_strerror(rte_errno));
		free(n);
		return NULL;
	}
	for (int i = 0; i < 2; i++) {
		struct sst_link_conf lc = {.driver = "simpair", .driver_conf = &n->spc[i]};

		n->spc[i] = (struct sst_simpair_conf){.pair = n->pair, .side = i};
		n->h[i] = host_create(c[i], &lc);
		if (n->h[i] == NULL) {
			tool_net_destroy(n);
			return NULL;
		}
		n->n = i + 1;
	}
	if (imp->rate_bps != 0)
		snprintf(n->desc, sizeof(n->desc),
			"loopback (in-memory link, %.0f Mbit/s, %.3f ms each way)",
			(double)imp->rate_bps / 1e6, (double)imp->delay_ns / 1e6);
	else
		snprintf(n->desc, sizeof(n->desc),
			"loopback (in-memory link, unlimited rate, %.3f ms each way)",
			(double)imp->delay_ns / 1e6);
	return n;
}

void
tool_net_destroy(struct tool_net *n)
{
	if (n == NULL)
		return;
	for (int i = 0; i < 2; i++)
		host_destroy(n->h[i]);
	sst_simpair_destroy(n->pair);
	free(n);
}

struct tool_host *
tool_net_host(struct tool_net *n, int i)
{
	return i >= 0 && i < n->n ? n->h[i] : NULL;
}

const char *
tool_net_describe(const struct tool_net *n)
{
	return n->desc;
}

void
tool_net_poll(struct tool_net *n, bool may_sleep)
{
	sst_time_t now = tool_now(), next = SST_TIME_NEVER;
	uint64_t rx = 0;
	struct timespec ts;

	for (int i = 0; i < n->n; i++) {
		sst_worker_poll(n->h[i]->w, now);
		rx += sst_worker_stats(n->h[i]->w)->rx_packets;
	}
	if (!may_sleep)
		return;
	if (rx != n->last_rx) {
		n->last_rx = rx;
		n->busy_at = now;
		return;
	}
	if (now - n->busy_at < IDLE_SPIN_NS)
		return;
	for (int i = 0; i < n->n; i++)
		next = sst_time_min(next, sst_worker_next_expiry(n->h[i]->w));
	now = tool_now();
	if (next <= now)
		return;
	next = RTE_MIN(next - now, IDLE_SLEEP_NS);
	ts.tv_sec = 0;
	ts.tv_nsec = (long)next;
	nanosleep(&ts, NULL);
}

int
tool_host_connect(struct tool_host *h, const struct sst_net_endpoint *to, sst_time_t now)
{
	return sst_worker_connect(h->w, to, h->mode, now);
}

int
tool_host_close_idle(struct tool_host *h, sst_time_t now)
{
	return sst_worker_close_idle(h->w, now);
}

struct sst_stream_host *
tool_host_streams(struct tool_host *h)
{
	return sst_worker_stream_host(h->w);
}

struct rte_mempool *
tool_host_pool(struct tool_host *h)
{
	return h->pool;
}

const struct sst_net_endpoint *
tool_host_local(const struct tool_host *h)
{
	return &h->self;
}

const uint8_t *
tool_host_public_key(const struct tool_host *h)
{
	return h->has_id ? h->id.pk : NULL;
}

void
tool_host_counters(const struct tool_host *h, struct tool_counters *c)
{
	const struct sst_link_stats *l = sst_link_stats(h->link);
	const struct sst_stream_host_stats *s = sst_stream_host_stats(sst_worker_stream_host(h->w));
	const struct sst_worker_stats *w = sst_worker_stats(h->w);

	memset(c, 0, sizeof(*c));
	c->link_tx_packets = l->tx_packets;
	c->link_rx_packets = l->rx_packets;
	c->link_tx_bytes = l->tx_bytes;
	c->link_rx_bytes = l->rx_bytes;
	c->link_tx_drops = l->tx_full + l->tx_errors;
	c->segments_tx = s->segments_tx;
	c->segments_retx = s->segments_retx;
	c->datagrams_tx = s->datagrams_tx;
	c->datagrams_rx = s->datagrams_rx;
	c->streams_opened = s->streams_opened;
	c->streams_accepted = s->streams_accepted;
	c->streams_closed = s->streams_closed;
	c->streams_live = s->streams_live;
	c->rx_refused = s->rx_refused;
	c->no_buffer = s->no_buffer;
	c->no_stream = s->no_stream;
	c->channels_open = w->channels_open;
	c->channels_made = w->channels_made;
}
