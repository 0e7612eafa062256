/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Many peers against one SST server (issue 14): N clients in one process,
 * each a worker over its own kernel UDP socket (so each is a peer endpoint
 * of its own to the server), polled in turn on one thread. All N connect
 * (checksum mode) and hold their channels up at once; then each opens a
 * stream to the service, writes its own pattern, shuts down and checks
 * every byte of the echo; then all leave (FINISH). With --sequential the
 * clients come one after another, each gone before the next connects.
 * Exit status 0 only when every echo was exact and (without --sequential)
 * every peer had its channel up at the same time.
 *
 *   many_peers [--peers N] [--sequential] [--bytes B] [--timeout S] HOST:PORT SERVICE PROTOCOL
 *
 * Against `sst-cat --listen --echo` (tests/system/cat_many_peers.sh).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <sodium.h>

#include "sst_eal.h"
#include "sst_engine.h"
#include "sst_link.h"
#include "sst_worker.h"

struct client {
	int id;
	struct sst_link *link;
	struct sst_worker *w;
	struct sst_stream_peer *peer;
	struct sst_stream *s;
	uint64_t written, echoed, bad;
	bool ended, failed;
	bool doomed; /**< to be killed mid-transfer (--kill-every) */
	bool killed; /**< gone without a word, as by SIGKILL */
};

static struct rte_mempool *pool, *clones;
static uint64_t bytes_each = 2000;
/* --kill-every K: every K-th sequential client writes this much and dies
 * once the first echo is back, with the server's answer still in flight. */
static int kill_every;
static const uint64_t DOOMED_BYTES = 200000;

static uint64_t
bytes_of(const struct client *c)
{
	return c->doomed ? DOOMED_BYTES : bytes_each;
}

static uint8_t
pattern(const struct client *c, uint64_t off)
{
	return (uint8_t)((off * 131 + (uint64_t)c->id * 7919) % 251);
}

static void
peer_ready(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	struct client *c = ctx;

	(void)ep;
	c->peer = peer;
}

static void
peer_gone(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	struct client *c = ctx;

	(void)ep;
	if (c->peer == peer)
		c->peer = NULL;
}

static void
connect_failed(void *ctx, const struct sst_net_endpoint *ep, int err)
{
	struct client *c = ctx;

	(void)ep;
	fprintf(stderr, "many_peers: client %d: connect failed: %s\n", c->id, strerror(-err));
	c->failed = true;
}

static const struct sst_worker_ops worker_ops = {
	.peer_ready = peer_ready, .peer_gone = peer_gone, .connect_failed = connect_failed};

static void
drain(struct client *c, sst_time_t now)
{
	struct sst_stream_data d[32];
	int k;

	while ((k = sst_stream_read(c->s, d, 32, now)) > 0)
		for (int i = 0; i < k; i++) {
			uint32_t len = rte_pktmbuf_pkt_len(d[i].m);
			uint8_t buf[2048];
			const uint8_t *p =
				len <= sizeof(buf) ? rte_pktmbuf_read(d[i].m, 0, len, buf) : NULL;

			for (uint32_t j = 0; j < len; j++)
				c->bad += p == NULL || p[j] != pattern(c, c->echoed + j);
			c->echoed += len;
			rte_pktmbuf_free(d[i].m);
		}
	if (k == -EPIPE && !c->ended) {
		c->ended = true;
		sst_stream_close(c->s, now);
	}
}

static void
op_readable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct client *c = ctx;

	if (s == c->s)
		drain(c, now);
}

static void
op_closed(void *ctx, struct sst_stream *s, enum sst_stream_end why, sst_time_t now)
{
	struct client *c = ctx;

	(void)now;
	if (s == c->s && why != SST_STREAM_FINISHED && !c->killed) {
		fprintf(stderr, "many_peers: client %d: stream ended (%d)\n", c->id, (int)why);
		c->failed = true;
	}
}

static const struct sst_stream_ops stream_ops = {.readable = op_readable, .closed = op_closed};

static void
write_some(struct client *c, sst_time_t now)
{
	while (c->written < bytes_of(c)) {
		uint32_t len = (uint32_t)RTE_MIN(bytes_of(c) - c->written, 1000u);
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint8_t *p = m != NULL ? (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len) : NULL;

		if (p == NULL) {
			rte_pktmbuf_free(m);
			return;
		}
		for (uint32_t i = 0; i < len; i++)
			p[i] = pattern(c, c->written + i);
		if (sst_stream_write(c->s, m, 0, now) < 0) {
			rte_pktmbuf_free(m);
			return;
		}
		c->written += len;
	}
	sst_stream_shutdown(c->s, now);
}

/* SIGKILL, as the server sees it: no FINISH, no Reset, the port closed. */
static void
kill_client(struct client *c)
{
	c->killed = true; /* its stream's end is no failure */
	sst_worker_destroy(c->w);
	sst_link_close(c->link);
	c->w = NULL;
	c->link = NULL;
	c->s = NULL;
	c->killed = true;
}

static int
client_init(struct client *c, int id, const struct sst_net_endpoint *server)
{
	struct sst_link_conf lc = {.size = sizeof(lc), .driver = "udpsock", .pool = pool};
	struct sst_worker_params wp = {.size = sizeof(wp), .pool = pool};
	char name[32];
	bool doomed = c->doomed;

	memset(c, 0, sizeof(*c));
	c->id = id;
	c->doomed = doomed;
	/* Any address of the server's family (the kernel picks the source
	 * that routes to it: loopback, or a veth toward a namespace); port 0:
	 * any. */
	lc.local.addr.family = server->addr.family;
	c->link = sst_link_open(&lc);
	if (c->link == NULL)
		return -rte_errno;
	snprintf(name, sizeof(name), "mp%d", id);
	wp.link = c->link;
	/* A secret per host: each client is another host to the server. */
	randombytes_buf(wp.nego.secret, sizeof(wp.nego.secret));
	wp.nego.ulp_caps = SST_NEGO_CAP_ALL;
	wp.nego.max_initiating = 4;
	wp.nego.max_responding = 4;
	wp.nego.rate_slots = 4;
	wp.stream.name = name;
	wp.stream.clone_pool = clones;
	wp.stream.max_streams = 8;
	wp.stream.max_tx_buffers = 4;
	wp.stream.max_rx_buffers = 4;
	wp.stream.max_sids = 8;
	wp.stream.ops = &stream_ops;
	wp.stream.ctx = c;
	wp.ops = &worker_ops;
	wp.ctx = c;
	c->w = sst_worker_create(&wp);
	if (c->w == NULL)
		return -rte_errno;
	return sst_worker_connect(c->w, server, SST_NEGO_MODE_CHECKSUM, sst_engine_now());
}

static int
parse_ep(const char *s, struct sst_net_endpoint *ep)
{
	char host[64];
	const char *colon = strrchr(s, ':');
	struct in_addr a;

	if (colon == NULL || (size_t)(colon - s) >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	if (inet_pton(AF_INET, host, &a) != 1 || atoi(colon + 1) <= 0 || atoi(colon + 1) > 65535)
		return -EINVAL;
	memset(ep, 0, sizeof(*ep));
	ep->addr.family = SST_NET_IPV4;
	memcpy(ep->addr.bytes, &a, 4);
	ep->port = (uint16_t)atoi(colon + 1);
	return 0;
}

static void
poll_all(struct client *cl, int n)
{
	sst_time_t now = sst_engine_now();

	for (int i = 0; i < n; i++)
		if (cl[i].w != NULL)
			sst_worker_poll(cl[i].w, now);
}

static bool
served(const struct client *c)
{
	return c->ended && !c->failed && c->bad == 0 && c->echoed == bytes_each;
}

/*
 * k clients (from cl) connect together and hold their channels up at the
 * same time, then each has a stream echoed. @return clients served; *at_once:
 * channels that were up together.
 */
static int
batch(struct client *cl, int k, const struct sst_net_endpoint *server, const char *service,
	const char *protocol, sst_time_t deadline, int *at_once)
{
	int ready = 0, done = 0, ok = 0;

	for (int i = 0; i < k; i++) {
		int rc = client_init(&cl[i], cl[i].id, server);

		if (rc < 0) {
			fprintf(stderr, "many_peers: client %d: %s\n", cl[i].id, strerror(-rc));
			return 0;
		}
	}
	while (ready < k && sst_engine_now() < deadline) {
		poll_all(cl, k);
		ready = 0;
		for (int i = 0; i < k; i++)
			ready += cl[i].peer != NULL;
	}
	*at_once = 0;
	for (int i = 0; i < k; i++)
		*at_once += sst_worker_stats(cl[i].w)->channels_open == 1;
	for (int i = 0; i < k; i++)
		if (cl[i].peer != NULL)
			cl[i].s =
				sst_stream_connect(cl[i].peer, service, protocol, sst_engine_now());
	while (done < k && sst_engine_now() < deadline) {
		poll_all(cl, k);
		done = 0;
		for (int i = 0; i < k; i++) {
			if (cl[i].s != NULL && cl[i].written < bytes_of(&cl[i]))
				write_some(&cl[i], sst_engine_now());
			if (cl[i].doomed && !cl[i].killed && cl[i].echoed > 0)
				kill_client(&cl[i]);
			done += cl[i].ended || cl[i].failed || cl[i].s == NULL;
		}
	}
	for (int i = 0; i < k; i++) {
		ok += served(&cl[i]) || cl[i].killed;
		if (!served(&cl[i]) && !cl[i].killed)
			fprintf(stderr,
				"many_peers: client %d: channel %s, %llu of %llu bytes echoed, "
				"%llu "
				"bad%s\n",
				cl[i].id, cl[i].peer != NULL ? "up" : "never up",
				(unsigned long long)cl[i].echoed, (unsigned long long)bytes_each,
				(unsigned long long)cl[i].bad, cl[i].failed ? ", failed" : "");
	}
	return ok;
}

/* The clients leave as a tool does: FINISH on their channels (the server
 * frees its side at once), then their workers and sockets go. */
static void
batch_end(struct client *cl, int k)
{
	sst_time_t until = sst_engine_now() + 3 * SST_NSEC_PER_SEC;
	int open = k;

	for (int i = 0; i < k; i++)
		if (cl[i].w != NULL)
			sst_worker_close_idle(cl[i].w, sst_engine_now());
	while (open > 0 && sst_engine_now() < until) {
		poll_all(cl, k);
		open = 0;
		for (int i = 0; i < k; i++)
			open += cl[i].w != NULL && sst_worker_stats(cl[i].w)->channels_open > 0;
	}
	for (int i = 0; i < k; i++) {
		if (cl[i].w == NULL)
			continue;
		sst_worker_destroy(cl[i].w);
		sst_link_close(cl[i].link);
		cl[i].w = NULL;
		cl[i].link = NULL;
	}
}

static int
run(struct client *cl, int n, bool sequential, const struct sst_net_endpoint *server,
	const char *service, const char *protocol, double timeout)
{
	sst_time_t start = sst_engine_now(), deadline = start + (sst_time_t)(timeout * 1e9);
	int k = sequential ? 1 : n, ok = 0, at_once = 0, most_at_once = 0, killed = 0;

	for (int i = 0; i < n; i++) {
		cl[i].id = i;
		cl[i].doomed = kill_every > 0 && i % kill_every == kill_every - 1;
	}
	for (int first = 0; first < n; first += k) {
		ok += batch(&cl[first], k, server, service, protocol, deadline, &at_once);
		most_at_once = RTE_MAX(most_at_once, at_once);
		batch_end(&cl[first], k);
	}
	for (int i = 0; i < n; i++)
		killed += cl[i].killed;
	printf("many_peers: %d %s clients, %d channels up at once at most, %d echoes of %llu "
	       "bytes exact, %d killed mid-transfer, in %.2f s\n",
		n, sequential ? "sequential" : "concurrent", most_at_once, ok - killed,
		(unsigned long long)bytes_each, killed, (double)(sst_engine_now() - start) / 1e9);
	return ok == n && most_at_once == k ? 0 : 1;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: many_peers [--peers N] [--sequential] [--bytes B] [--timeout S] "
		   "[--kill-every K] HOST:PORT SERVICE PROTOCOL\n"
		   "  N clients, each from its own UDP port, connect to an SST echo service\n"
		   "  at once (--sequential: one after another, each leaving before the next)\n"
		   "  and check an echo of B bytes each (defaults: 300, 2000, 60 s);\n"
		   "  with --kill-every K (sequential), every K-th client writes 200,000 bytes\n"
		   "  and vanishes (no FINISH, socket closed) once its first echo is back\n");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {{"peers", required_argument, NULL, 'n'},
		{"bytes", required_argument, NULL, 'b'}, {"timeout", required_argument, NULL, 't'},
		{"sequential", no_argument, NULL, 's'}, {"help", no_argument, NULL, 'h'},
		{"kill-every", required_argument, NULL, 'k'}, {NULL, 0, NULL, 0}};
	struct sst_eal_opts eo = {.size = sizeof(eo), .memory_mb = 1024};
	struct sst_net_endpoint server;
	struct client *cl;
	double timeout = 60;
	bool sequential = false;
	int n = 300, c, rc;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			n = atoi(optarg);
			break;
		case 'b':
			bytes_each = strtoull(optarg, NULL, 10);
			break;
		case 't':
			timeout = atof(optarg);
			break;
		case 's':
			sequential = true;
			break;
		case 'k':
			kill_every = atoi(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 3 || n <= 0 || n > 4000 || timeout <= 0 || kill_every < 0 ||
		(kill_every > 0 && !sequential) || parse_ep(argv[optind], &server) < 0) {
		usage(stderr);
		return 2;
	}
	/* The default EAL arguments (no hugepages, a file prefix of our own). */
	if (sst_eal_init(1, argv, &eo) < 0 || sodium_init() < 0) {
		fprintf(stderr, "many_peers: cannot initialise the EAL\n");
		return 1;
	}
	pool = rte_pktmbuf_pool_create(
		"mp_pool", 16383, 256, 0, RTE_PKTMBUF_HEADROOM + 2048, (int)rte_socket_id());
	clones = rte_pktmbuf_pool_create("mp_clones", 16383, 256, 0, 0, (int)rte_socket_id());
	cl = calloc((size_t)n, sizeof(*cl));
	if (pool == NULL || clones == NULL || cl == NULL) {
		fprintf(stderr, "many_peers: out of memory\n");
		return 1;
	}
	rc = run(cl, n, sequential, &server, argv[optind + 1], argv[optind + 2], timeout);
	free(cl);
	sst_eal_cleanup();
	return rc;
}
