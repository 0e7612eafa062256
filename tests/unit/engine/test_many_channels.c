/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Many concurrent channels to one server (issue 14): a client worker and a
 * server worker in one process, joined by an in-memory link that
 * translates addresses like a NAT in reverse, so that N channels come from
 * N peer endpoints. The client connects to N server endpoints S_i; what it
 * sends to S_i reaches the server from client endpoint C_i, and what the
 * server sends to C_i reaches the client from S_i. So the server holds N
 * peers with one channel each, all up at the same time; then every channel
 * carries one stream with a request and its response, checked byte for
 * byte. Reports the server's memory per channel (heap bytes and RSS).
 *
 * N: SST_MANY_CHANNELS (default 2,000; 100,000 is the figure, run
 * by hand with more EAL memory: SST_MANY_CHANNELS=100000 SST_TEST_EAL_MB=8192
 * build/tests/unit/test_many_channels).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "echo_pair.h"
#include "sst_link.h"
#include "sst_worker.h"
#include "sst_engine.h"
#include "sst_test.h"
#include "sst_test_eal.h"

enum {
	WAVE = 256,	/**< negotiations and streams under way at once */
	REQUEST = 200,	/**< request bytes; the response is the echo */
	RING = 1 << 16, /**< packets a direction of the link holds */
	BASE_PORT = 20000,
};

static uint32_t nchannels = 2000;
static uint32_t npeers; /* entries of the client's peers[] */
static struct rte_mempool *pool, *clones;

/* ---- The link: two sides, addresses translated ---- */

struct natpair {
	struct rte_ring *to[2]; /**< to[s]: what side s receives */
};

static struct natpair pair;

struct nat_link {
	int side;
	struct sst_link_stats *stats;
};

/* Endpoint i of side s: 10.(s+1).(i>>8).(i&255), port BASE_PORT + (i>>16). */
static struct sst_net_endpoint
nat_ep(int side, uint32_t i)
{
	struct sst_net_endpoint ep = {
		.addr = sst_net_addr4(10, (uint8_t)(side + 1), (uint8_t)(i >> 8), (uint8_t)i),
		.port = (uint16_t)(BASE_PORT + (i >> 16))};

	return ep;
}

static bool
nat_index(const struct sst_net_endpoint *ep, int side, uint32_t *i)
{
	if (ep->addr.family != SST_NET_IPV4 || ep->addr.bytes[0] != 10 ||
		ep->addr.bytes[1] != side + 1 || ep->port < BASE_PORT)
		return false;
	*i = (uint32_t)(ep->port - BASE_PORT) << 16 | (uint32_t)ep->addr.bytes[2] << 8 |
	     ep->addr.bytes[3];
	return true;
}

static int
nat_open(void *priv, const struct sst_link_conf *conf, struct sst_link_stats *stats)
{
	struct nat_link *l = priv;

	l->side = *(const int *)conf->driver_conf;
	l->stats = stats;
	return 0;
}

/* The index travels in the mbuf: the receiver names its source from it. */
static uint16_t
nat_rx(void *priv, struct rte_mbuf **pkts, struct sst_net_endpoint *from, uint16_t n)
{
	struct nat_link *l = priv;
	uint16_t got =
		(uint16_t)rte_ring_sc_dequeue_burst(pair.to[l->side], (void **)pkts, n, NULL);

	for (uint16_t k = 0; k < got; k++) {
		/* The client (side 0) hears from S_i, the server from C_i. */
		from[k] = nat_ep(l->side == 0 ? 1 : 0, pkts[k]->hash.usr);
		l->stats->rx_packets++;
		l->stats->rx_bytes += rte_pktmbuf_pkt_len(pkts[k]);
	}
	return got;
}

static uint16_t
nat_tx(void *priv, struct rte_mbuf **pkts, const struct sst_net_endpoint *to, uint16_t n)
{
	struct nat_link *l = priv;
	uint16_t sent = 0;

	for (uint16_t k = 0; k < n; k++) {
		uint32_t i;

		/* The client sends to S_i (side 1's addresses), the server to C_i. */
		if (!nat_index(&to[k], l->side == 0 ? 1 : 0, &i)) {
			l->stats->tx_errors++;
			rte_pktmbuf_free(pkts[k]);
			continue;
		}
		pkts[k]->hash.usr = i;
		l->stats->tx_bytes += rte_pktmbuf_pkt_len(pkts[k]);
		if (rte_ring_sp_enqueue(pair.to[!l->side], pkts[k]) != 0) {
			l->stats->tx_full++;
			rte_pktmbuf_free(pkts[k]);
			continue;
		}
		l->stats->tx_packets++;
		sent++;
	}
	return sent;
}

static int
nat_local(void *priv, struct sst_net_endpoint *ep)
{
	struct nat_link *l = priv;

	/* Not an address of the other side's range: never translated. */
	*ep = (struct sst_net_endpoint){
		.addr = sst_net_addr4(192, 0, 2, (uint8_t)(1 + l->side)), .port = 4433};
	return 0;
}

static void
nat_close(void *priv)
{
	RTE_SET_USED(priv);
}

static const struct sst_link_ops nat_ops = {
	.name = "test_natpair",
	.kind = SST_LINK_DATAGRAMS,
	.priv_size = sizeof(struct nat_link),
	.open = nat_open,
	.rx_burst = nat_rx,
	.tx_burst = nat_tx,
	.local = nat_local,
	.close = nat_close,
};

/* ---- The two sides ---- */

static struct echo_side client, server;

/* The channel index of a client peer: from its endpoint S_i. */
static void
peer_ready(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	struct echo_side *sd = ctx;
	uint32_t i;

	if (!sd->server && nat_index(ep, 1, &i) && i < npeers)
		sd->peers[i] = peer;
}

static const struct sst_worker_ops worker_ops = {
	.peer_ready = peer_ready, .connect_failed = echo_connect_failed};

static void
side_init(struct echo_side *sd, int index, bool is_server, uint32_t n)
{
	static int sides[2] = {0, 1};
	struct sst_link_conf lc = {.size = sizeof(lc),
		.driver = "test_natpair",
		.pool = pool,
		.driver_conf = &sides[index]};
	struct sst_worker_params wp = {.size = sizeof(wp), .pool = pool};

	sd->server = is_server;
	sd->request = REQUEST;
	sd->link = sst_link_open(&lc);
	CU_ASSERT_FATAL(sd->link != NULL);
	wp.link = sd->link;
	memset(wp.nego.secret, is_server ? 0x5e : 0xc1, sizeof(wp.nego.secret));
	wp.nego.ulp_caps = SST_NEGO_CAP_ALL;
	/* The client is one host behind many endpoints; without its
	 * instance in the ulp blob (version 1) the server knows each
	 * endpoint as a peer of its own, as it knows different hosts. */
	if (!is_server)
		wp.nego.ulp_version = 1;
	wp.nego.max_initiating = WAVE;
	wp.nego.max_responding = n + WAVE;
	wp.stream.name = is_server ? "mc_srv" : "mc_cli";
	wp.stream.clone_pool = clones;
	wp.stream.max_streams = n + WAVE;
	wp.stream.max_tx_buffers = WAVE + 64;
	wp.stream.max_rx_buffers = WAVE + 64;
	wp.stream.peer_usids = 16;
	wp.stream.ops = &echo_stream_ops;
	wp.stream.ctx = sd;
	wp.ops = &worker_ops;
	wp.ctx = sd;
	/* Channels stay until the end: no idle timeout while the others run. */
	wp.idle_timeout = SST_TIME_NEVER;
	sd->w = sst_worker_create(&wp);
	if (sd->w == NULL)
		printf("\n  worker: %s\n", rte_strerror(rte_errno));
	CU_ASSERT_FATAL(sd->w != NULL);
	if (is_server)
		CU_ASSERT_FATAL(sst_stream_listen(
					sst_worker_stream_host(sd->w), "echo", "test", NULL) == 0);
}

static long
rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	if (f != NULL)
		fclose(f);
	return kb;
}

static uint64_t
heap_bytes(void)
{
	struct rte_malloc_socket_stats st;

	rte_malloc_get_socket_stats(0, &st);
	return st.heap_allocsz_bytes;
}

static void
test_many_channels(void)
{
	sst_time_t start, deadline;
	uint32_t asked = 0, up = 0, missing;
	uint64_t heap0, heap1;
	long rss0, rss1;

	npeers = nchannels;
	client.peers = calloc(nchannels, sizeof(*client.peers));
	client.echoed = calloc(nchannels, sizeof(*client.echoed));
	CU_ASSERT_FATAL(client.peers != NULL && client.echoed != NULL);
	side_init(&server, 1, true, nchannels);
	side_init(&client, 0, false, nchannels);
	heap0 = heap_bytes();
	rss0 = rss_kb();
	start = sst_engine_now();
	/* Ample: 100,000 channels take about a minute in a release build. */
	deadline = start + 300 * SST_NSEC_PER_SEC;
	/* Every channel up, WAVE negotiations at a time. */
	while (up < nchannels && sst_engine_now() < deadline && client.failed == 0) {
		while (asked < nchannels && asked - up < WAVE) {
			struct sst_net_endpoint s_i = nat_ep(1, asked);
			int rc = sst_worker_connect(
				client.w, &s_i, SST_NEGO_MODE_CHECKSUM, sst_engine_now());

			/* Full of setups under way (a slow host: the server
			 * challenges under load, setups take longer than a
			 * wave): later, once some are done. */
			if (rc == -ENOSPC)
				break;
			CU_ASSERT_EQUAL_FATAL(rc, 0);
			asked++;
		}
		echo_poll(&server, &client);
		up = (uint32_t)sst_worker_stats(server.w)->channels_open;
	}
	heap1 = heap_bytes();
	rss1 = rss_kb();
	printf("\n  %u channels from %u peer endpoints up at once in %.1f s; server: %llu "
	       "peers, %llu endpoints\n",
		up, up, (double)(sst_engine_now() - start) / 1e9,
		(unsigned long long)sst_worker_stats(server.w)->peers_open,
		(unsigned long long)sst_worker_stats(server.w)->endpoints);
	printf("  both sides: %.0f heap bytes and %.0f bytes of RSS per channel pair\n",
		(double)(heap1 - heap0) / nchannels, (double)(rss1 - rss0) * 1024 / nchannels);
	if (up != nchannels) {
		const struct sst_nego_stats *cn = sst_worker_nego_stats(client.w);
		const struct sst_nego_stats *sn = sst_worker_nego_stats(server.w);

		printf("  client: %llu channels open, %llu attempts failed, %llu ChkI1 + %llu "
		       "resent, %llu ChkR1 (%llu unmatched, %llu refused); server: %llu ChkI1, "
		       "%llu "
		       "duplicates, %llu conflicts, %llu table full, %llu no number, %llu refused, "
		       "%llu rate limited, %llu rx_no_channel\n",
			(unsigned long long)sst_worker_stats(client.w)->channels_open,
			(unsigned long long)cn->failed, (unsigned long long)cn->tx_i1,
			(unsigned long long)cn->tx_i1_retx, (unsigned long long)cn->rx_r1,
			(unsigned long long)cn->rx_r1_unmatched,
			(unsigned long long)cn->rx_r1_refused, (unsigned long long)sn->rx_i1,
			(unsigned long long)sn->rx_i1_duplicate,
			(unsigned long long)sn->rx_i1_conflict,
			(unsigned long long)sn->rx_i1_refused_full,
			(unsigned long long)sn->rx_i1_no_channel,
			(unsigned long long)sn->rx_i1_refused,
			(unsigned long long)sn->rx_rate_limited,
			(unsigned long long)sst_worker_stats(server.w)->rx_no_channel);
	}
	CU_ASSERT_EQUAL(up, nchannels);
	CU_ASSERT_EQUAL(client.failed, 0);
	CU_ASSERT_EQUAL(sst_worker_stats(server.w)->peers_open, nchannels);
	/* Then a stream on every channel: a request and its echo, WAVE at a
	 * time, with every channel still up. */
	start = sst_engine_now();
	deadline = start + 300 * SST_NSEC_PER_SEC;
	missing = echo_streams(&server, &client, nchannels, WAVE, pool, deadline);
	printf("  %u of %u requests answered byte-exact in %.1f s, %u bad bytes, %llu connects "
	       "retried for a send buffer; %llu channels open on the server\n",
		client.done, nchannels, (double)(sst_engine_now() - start) / 1e9, client.bad,
		(unsigned long long)client.no_buffer,
		(unsigned long long)sst_worker_stats(server.w)->channels_open);
	CU_ASSERT_EQUAL(missing, 0);
	CU_ASSERT_EQUAL(client.done, nchannels);
	CU_ASSERT_EQUAL(client.bad, 0);
	/* Every channel is still up; a client channel that waited over a
	 * second for an acknowledgment in a busy run may have been replaced
	 * (silence), its successor then open beside it for a while. */
	printf("  client: %llu channels replaced after a silence\n",
		(unsigned long long)sst_worker_stats(client.w)->silences);
	CU_ASSERT(sst_worker_stats(server.w)->channels_open >= nchannels);
	CU_ASSERT_EQUAL(sst_worker_stats(server.w)->peers_open, nchannels);
	sst_worker_destroy(client.w);
	sst_worker_destroy(server.w);
	sst_link_close(client.link);
	sst_link_close(server.link);
	free(client.peers);
	free(client.echoed);
}

/* ---- A starved host, in virtual time ---- */

enum {
	STALL_CHANNELS = 400,
	STALL_REQUEST = 6000, /**< several packets each way on every stream */
	STALL_CHUNK = 1000,
};

/* The stalled case's clock: both workers read it and the test moves it, so
 * that a stall of seconds is the same run whatever the machine's load. */
static sst_time_t vnow;

static uint64_t
link_packets(void)
{
	const struct sst_link_stats *a = sst_worker_link_stats(client.w);
	const struct sst_link_stats *b = sst_worker_link_stats(server.w);

	return a->rx_packets + a->tx_packets + b->rx_packets + b->tx_packets;
}

/* One turn: each worker that runs is polled; the clock moves 10 us when
 * packets moved, else to the next timer, 1 ms on at most (a worker whose
 * congestion windows are full is due "now": only a delivery or a timer
 * changes that, as in the matrix's next_moment()). */
static void
vturn(bool server_runs, bool client_runs)
{
	uint64_t before = link_packets();
	sst_time_t next = vnow + SST_NSEC_PER_MSEC;

	if (server_runs)
		sst_worker_poll(server.w, vnow);
	if (client_runs)
		sst_worker_poll(client.w, vnow);
	if (link_packets() != before) {
		vnow += 10 * SST_NSEC_PER_USEC;
		return;
	}
	if (server_runs && sst_worker_next_expiry(server.w) > vnow)
		next = sst_time_min(next, sst_worker_next_expiry(server.w));
	if (client_runs && sst_worker_next_expiry(client.w) > vnow)
		next = sst_time_min(next, sst_worker_next_expiry(client.w));
	vnow = next;
}

static uint64_t
echoed_total(uint32_t n)
{
	uint64_t t = 0;

	for (uint32_t i = 0; i < n; i++)
		t += client.echoed[i];
	return t;
}

/* The request of channel i on a new stream, all of it written; false when
 * no send buffer is free yet. */
static bool
stall_request(uint32_t i)
{
	struct sst_stream *s = sst_stream_connect(client.peers[i], "echo", "test", vnow);

	if (s == NULL)
		return false;
	sst_stream_set_user(s, (void *)(uintptr_t)i);
	for (uint32_t off = 0; off < STALL_REQUEST; off += STALL_CHUNK) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint8_t *p;

		CU_ASSERT_FATAL(m != NULL);
		p = (uint8_t *)rte_pktmbuf_append(m, STALL_CHUNK);
		CU_ASSERT_FATAL(p != NULL);
		for (uint32_t b = 0; b < STALL_CHUNK; b++)
			p[b] = echo_pattern(i, off + b);
		CU_ASSERT_FATAL(sst_stream_write(s, m, 0, vnow) == 0);
	}
	sst_stream_shutdown(s, vnow);
	return true;
}

static void
drain_rings(void)
{
	struct rte_mbuf *m;

	for (int k = 0; k < 2; k++)
		while (rte_ring_dequeue(pair.to[k], (void **)&m) == 0)
			rte_pktmbuf_free(m);
}

/*
 * A host starved of CPU (docs/robustness.md), in virtual time:
 * STALL_CHANNELS channels, each with a stream whose request and echo are
 * in flight both ways once a quarter of the echoes came back; then the
 * server is not polled for @p stall (its queue fills), or both workers
 * only for the last @p slice of every @p period (a process descheduled
 * again and again). The client, the side that replaces a channel for
 * silence, replaces hundreds at once; every echo must still come back
 * byte-exact.
 */
static void
run_stalled(bool both, sst_time_t stall, sst_time_t slice, sst_time_t period)
{
	const uint32_t n = STALL_CHANNELS;
	sst_time_t until, from = SST_TIME_NEVER;
	uint32_t asked = 0, opened = 0;

	drain_rings();
	vnow = SST_NSEC_PER_SEC;
	npeers = n;
	client = (struct echo_side){0};
	server = (struct echo_side){0};
	client.peers = calloc(n, sizeof(*client.peers));
	client.echoed = calloc(n, sizeof(*client.echoed));
	CU_ASSERT_FATAL(client.peers != NULL && client.echoed != NULL);
	side_init(&server, 1, true, n);
	side_init(&client, 0, false, n);
	client.request = STALL_REQUEST;
	until = vnow + 60 * SST_NSEC_PER_SEC;
	while (sst_worker_stats(server.w)->channels_open < n && vnow < until) {
		while (asked < n) {
			struct sst_net_endpoint s_i = nat_ep(1, asked);

			if (sst_worker_connect(client.w, &s_i, SST_NEGO_MODE_CHECKSUM, vnow) < 0)
				break;
			asked++;
		}
		vturn(true, true);
	}
	CU_ASSERT_EQUAL_FATAL(sst_worker_stats(server.w)->channels_open, n);
	until = vnow + 120 * SST_NSEC_PER_SEC;
	while (client.done < n && vnow < until) {
		bool stalled;

		while (opened < n && client.peers[opened] != NULL && stall_request(opened))
			opened++;
		if (from == SST_TIME_NEVER && echoed_total(n) >= (uint64_t)n * STALL_REQUEST / 4)
			from = vnow;
		stalled = vnow >= from && vnow < from + stall;
		if (stalled && both && (vnow - from) % period < period - slice) {
			/* Nobody runs: on to the next slice. */
			vnow = from + ((vnow - from) / period + 1) * period - slice;
			continue;
		}
		vturn(!stalled || both, true);
	}
	printf("\n  %s: %u of %u echoes byte-exact by %.1f s (virtual), %u bad; client: %" PRIu64
	       " silences, %" PRIu64 " channels made; data refused %" PRIu64 " + %" PRIu64,
		both ? "both starved" : "server stalled", client.done, n, (double)vnow / 1e9,
		client.bad, sst_worker_stats(client.w)->silences,
		sst_worker_stats(client.w)->channels_made,
		sst_stream_host_stats(sst_worker_stream_host(client.w))->rx_refused,
		sst_stream_host_stats(sst_worker_stream_host(server.w))->rx_refused);
	CU_ASSERT(sst_worker_stats(client.w)->silences >= n / 4);
	CU_ASSERT_EQUAL(client.done, n);
	CU_ASSERT_EQUAL(client.bad, 0);
	sst_worker_destroy(client.w);
	sst_worker_destroy(server.w);
	sst_link_close(client.link);
	sst_link_close(server.link);
	drain_rings();
	free(client.peers);
	free(client.echoed);
}

static void
test_many_channels_stalled(void)
{
	run_stalled(false, 3 * SST_NSEC_PER_SEC, 0, 1);
	run_stalled(true, 5 * SST_NSEC_PER_SEC, 40 * SST_NSEC_PER_USEC, 300 * SST_NSEC_PER_MSEC);
	printf("\n");
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_many_channels),
	SST_TEST(test_many_channels_stalled),
	SST_TEST_END,
};

int
main(void)
{
	const char *n = getenv("SST_MANY_CHANNELS");

	if (n != NULL && atoi(n) > 0)
		nchannels = (uint32_t)atoi(n);
	if (sst_test_eal_init("test_many_channels") < 0)
		return 1;
	pool = sst_test_pool("mc_pool", 16383, 2048 + RTE_PKTMBUF_HEADROOM);
	clones = sst_test_pool("mc_clones", 16383, 0);
	pair.to[0] = rte_ring_create("mc_to0", RING, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	pair.to[1] = rte_ring_create("mc_to1", RING, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (pool == NULL || clones == NULL || pair.to[0] == NULL || pair.to[1] == NULL ||
		sst_link_register(&nat_ops) < 0)
		return 1;
	return sst_test_run("many_channels", cases);
}
