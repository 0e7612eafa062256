/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engines (sst_engine.h) in embedded mode: a sharded server engine and
 * several client engines in one process, every application callback on
 * the worker's thread. Clients connect from the worker that owns the
 * server's endpoint (from app_poll), open streams when the channel is up,
 * and check every echoed byte. The server's channels must land on the
 * workers the dispatch rule names, whichever worker the packets reached.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <pcap/pcap.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "sst_engine.h"
#include "sst_ethdev.h"
#include "sst_stream.h"
#include "sst_test.h"
#include "sst_test_echo.h"
#include "sst_test_eal.h"
#include "sst_test_mbuf.h"

enum { CLIENTS = 6, STREAMS = 4, BYTES = 64 * 1024, MAX_WORKERS = 4 };

static struct rte_mempool *clones;

struct app {
	const char *name;
	struct sst_engine *e;
	bool server;
	/* client */
	struct sst_net_endpoint target;
	bool connect_sent;
	struct sst_stream_peer *peer;
	struct sst_stream *s[STREAMS];
	uint64_t written[STREAMS], echoed[STREAMS], bad;
	bool shut;
	int connected;
};

static uint8_t
pattern(int stream, uint64_t off)
{
	return sst_test_pattern(off + (uint64_t)stream * 1000003);
}

static int
stream_index(const struct app *a, const struct sst_stream *s)
{
	for (int i = 0; i < STREAMS; i++)
		if (a->s[i] == s)
			return i;
	return -1;
}

static struct sst_test_echoes echoes;

static void
echo(struct sst_stream *s, sst_time_t now)
{
	sst_test_echo(&echoes, s, now);
}

static void
check(struct app *a, struct sst_stream *s, sst_time_t now)
{
	int idx = stream_index(a, s);

	if (idx >= 0)
		sst_test_echo_check(s, pattern, idx, &a->echoed[idx], &a->bad, now);
}

static void
op_accepted(void *ctx, struct sst_stream *parent, struct sst_stream *s, void *svc, sst_time_t now)
{
	(void)ctx;
	(void)svc;
	if (parent != NULL)
		s = sst_stream_accept_substream(parent, now);
	if (s != NULL)
		echo(s, now);
}

static void
op_readable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct app *a = ctx;

	if (a->server)
		echo(s, now);
	else
		check(a, s, now);
}

static void
op_connected(void *ctx, struct sst_stream *s, int err, sst_time_t now)
{
	struct app *a = ctx;

	(void)now;
	(void)s;
	CU_ASSERT_EQUAL(err, 0);
	a->connected += err == 0;
}

static void
op_writable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct app *a = ctx;

	if (a->server)
		echo(s, now);
}

static const struct sst_stream_ops stream_ops = {
	.accepted = op_accepted,
	.readable = op_readable,
	.writable = op_writable,
	.connected = op_connected,
};

static void
peer_ready(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	struct app *a = ctx;

	(void)ep;
	if (!a->server)
		a->peer = peer;
}

/* Embedded mode: the application's work on the worker's thread. */
static void
app_poll(void *ctx, struct sst_worker *w, sst_time_t now)
{
	struct app *a = ctx;

	if (a->server)
		return;
	if (!a->connect_sent && sst_engine_worker(a->e, sst_engine_owner(a->e, &a->target)) == w) {
		CU_ASSERT_EQUAL(sst_worker_connect(w, &a->target, SST_NEGO_MODE_CHECKSUM, now), 0);
		a->connect_sent = true;
	}
	if (a->peer == NULL)
		return;
	for (int i = 0; i < STREAMS; i++) {
		if (a->s[i] == NULL) {
			a->s[i] = sst_stream_connect(a->peer, "echo", "test", now);
			CU_ASSERT_FATAL(a->s[i] != NULL);
		}
		while (a->written[i] < BYTES) {
			uint32_t len =
				(uint32_t)RTE_MIN(1 + a->written[i] % 1400, BYTES - a->written[i]);
			struct rte_mbuf *m =
				sst_test_stream_chunk(clones, pattern, i, a->written[i], len);

			CU_ASSERT_FATAL(m != NULL);
			if (sst_stream_write(a->s[i], m, 0, now) < 0) {
				rte_pktmbuf_free(m);
				break;
			}
			a->written[i] += len;
		}
	}
	if (!a->shut) {
		bool all = true;

		for (int i = 0; i < STREAMS; i++)
			all = all && a->written[i] == BYTES;
		if (all) {
			for (int i = 0; i < STREAMS; i++)
				sst_stream_shutdown(a->s[i], now);
			a->shut = true;
		}
	}
}

static const struct sst_worker_ops worker_ops = {.peer_ready = peer_ready, .app_poll = app_poll};

/* Frame links: ethdev on a port, lib/net with this address. */
struct frames {
	uint16_t port;
	struct sst_net_addr addr;
	struct sst_ethdev_link_conf confs[MAX_WORKERS];
	const void *conf_ptrs[MAX_WORKERS];
};

static const char *capture_prefix; /* the next engine captures here */

/* The parameters of an engine of this test, name's secret, on f's port
 * (NULL: udpsock); the callbacks' context is ctx. */
static void
engine_params(struct sst_engine_params *ep, const char *name, bool server, uint16_t workers,
	struct frames *f, void *ctx)
{
	*ep = (struct sst_engine_params){.size = sizeof(*ep), .workers = workers, .mbufs = 4095};
	ep->capture = capture_prefix;
	ep->local.addr = sst_net_addr4(127, 0, 0, 1);
	if (f != NULL) {
		for (uint16_t i = 0; i < workers; i++) {
			f->confs[i] =
				(struct sst_ethdev_link_conf){.port_id = f->port, .queue_id = i};
			f->conf_ptrs[i] = &f->confs[i];
		}
		ep->driver = "ethdev";
		ep->driver_confs = f->conf_ptrs;
		/* net_ring ports have no address of their own. */
		ep->net.mac = (struct rte_ether_addr){{0x02, 0, 0, 0, 0, f->addr.bytes[3]}};
		ep->net.ipv4 = f->addr;
		ep->net.ipv4_prefix_len = 24;
		ep->local.addr = f->addr;
		ep->local.port = 4433;
	}
	/* One secret per host: in checksum mode the host instance, by which
	 * a server knows a client that moved, derives from it. */
	memset(ep->nego.secret, server ? 0x5e : 0xc1, sizeof(ep->nego.secret));
	memcpy(ep->nego.secret, name, RTE_MIN(strlen(name), sizeof(ep->nego.secret)));
	ep->nego.ulp_caps = SST_NEGO_CAP_ALL;
	ep->stream.name = name;
	ep->stream.clone_pool = clones;
	ep->stream.max_streams = 256;
	ep->stream.max_tx_buffers = 64;
	ep->stream.max_rx_buffers = 64;
	ep->stream.max_sids = 256;
	ep->stream.ops = &stream_ops;
	ep->stream.ctx = ctx;
	ep->ops = &worker_ops;
	ep->ctx = ctx;
	ep->idle_timeout = 300 * SST_NSEC_PER_MSEC;
}

static struct sst_engine *
engine_on(struct app *a, const char *name, bool server, uint16_t workers, struct frames *f)
{
	struct sst_engine_params ep;

	memset(a, 0, sizeof(*a));
	a->name = name;
	a->server = server;
	engine_params(&ep, name, server, workers, f, a);
	a->e = sst_engine_create(&ep);
	CU_ASSERT_FATAL(a->e != NULL);
	if (server)
		for (uint16_t i = 0; i < sst_engine_workers(a->e); i++)
			CU_ASSERT_FATAL(sst_stream_listen(
						sst_worker_stream_host(sst_engine_worker(a->e, i)),
						"echo", "test", NULL) == 0);
	return a->e;
}

static struct sst_engine *
engine(struct app *a, const char *name, bool server, uint16_t workers)
{
	return engine_on(a, name, server, workers, NULL);
}

static bool
all_echoed(const struct app *c)
{
	for (int k = 0; k < CLIENTS; k++)
		for (int i = 0; i < STREAMS; i++)
			if (c[k].echoed[i] != BYTES)
				return false;
	return true;
}

/* A two-worker server over udpsock (SO_REUSEPORT: the kernel spreads the
 * clients over the workers' sockets by its own hash, so some packets reach
 * the wrong worker and take the dispatch step). */
static void
test_sharded_udpsock(void)
{
	static struct app server, clients[CLIENTS];
	uint64_t expect[2] = {0, 0}, made[2], out = 0, in = 0, full = 0;
	sst_time_t deadline;

	engine(&server, "srv", true, 2);
	for (int k = 0; k < CLIENTS; k++) {
		struct sst_net_endpoint self;
		char name[16];

		snprintf(name, sizeof(name), "cli%d", k);
		engine(&clients[k], name, false, 2);
		sst_engine_local(server.e, &clients[k].target);
		sst_engine_local(clients[k].e, &self);
		expect[sst_engine_owner(server.e, &self)]++;
	}
	deadline = sst_engine_now() + 30 * SST_NSEC_PER_SEC;
	while (!all_echoed(clients) && sst_engine_now() < deadline) {
		for (uint16_t i = 0; i < 2; i++)
			sst_engine_poll(server.e, i);
		for (int k = 0; k < CLIENTS; k++)
			for (uint16_t i = 0; i < 2; i++)
				sst_engine_poll(clients[k].e, i);
	}
	CU_ASSERT_TRUE(all_echoed(clients));
	for (int k = 0; k < CLIENTS; k++) {
		CU_ASSERT_EQUAL(clients[k].bad, 0);
		CU_ASSERT_EQUAL(clients[k].connected, STREAMS);
	}
	for (uint16_t i = 0; i < 2; i++) {
		const struct sst_worker_stats *st =
			sst_worker_stats(sst_engine_worker(server.e, i));

		made[i] = st->channels_made;
		out += st->handoff_out;
		in += st->handoff_in;
		full += st->handoff_full;
	}
	printf("\n  server workers made %llu + %llu channels (expected %llu + %llu), %llu "
	       "packets handed over\n",
		(unsigned long long)made[0], (unsigned long long)made[1],
		(unsigned long long)expect[0], (unsigned long long)expect[1],
		(unsigned long long)out);
	/* Each channel lives on the worker the dispatch rule names. */
	CU_ASSERT_EQUAL(made[0], expect[0]);
	CU_ASSERT_EQUAL(made[1], expect[1]);
	CU_ASSERT(out >= in + full);
	CU_ASSERT_EQUAL(full, 0);
	/* Graceful stop: the idle channels close by FINISH on both sides. */
	for (int k = 0; k < CLIENTS; k++)
		for (int i = 0; i < STREAMS; i++)
			sst_stream_close(clients[k].s[i], sst_engine_now());
	deadline = sst_engine_now() + 10 * SST_NSEC_PER_SEC;
	while (sst_engine_now() < deadline) {
		uint64_t open = 0;

		for (uint16_t i = 0; i < 2; i++) {
			sst_engine_poll(server.e, i);
			open += sst_worker_stats(sst_engine_worker(server.e, i))->channels_open;
		}
		for (int k = 0; k < CLIENTS; k++)
			for (uint16_t i = 0; i < 2; i++) {
				sst_engine_poll(clients[k].e, i);
				open += sst_worker_stats(sst_engine_worker(clients[k].e, i))
						->channels_open;
			}
		if (open == 0)
			break;
	}
	out = in = full = 0;
	for (uint16_t i = 0; i < 2; i++) {
		const struct sst_worker_stats *st =
			sst_worker_stats(sst_engine_worker(server.e, i));

		CU_ASSERT_EQUAL(st->channels_open, 0);
		out += st->handoff_out;
		in += st->handoff_in;
		full += st->handoff_full;
	}
	/* Nothing handed over was lost on the way (late copies may still sit
	 * in an inbox: poll until they are taken). */
	deadline = sst_engine_now() + 5 * SST_NSEC_PER_SEC;
	while (out != in + full && sst_engine_now() < deadline) {
		out = in = full = 0;
		for (uint16_t i = 0; i < 2; i++) {
			const struct sst_worker_stats *st =
				sst_worker_stats(sst_engine_worker(server.e, i));

			sst_engine_poll(server.e, i);
			out += st->handoff_out;
			in += st->handoff_in;
			full += st->handoff_full;
		}
	}
	CU_ASSERT_EQUAL(out, in + full);
	CU_ASSERT_EQUAL(echoes.lost, 0);
	sst_engine_stop(server.e, SST_NSEC_PER_SEC);
	sst_engine_destroy(server.e);
	for (int k = 0; k < CLIENTS; k++) {
		sst_engine_stop(clients[k].e, SST_NSEC_PER_SEC);
		sst_engine_destroy(clients[k].e);
	}
}

static void
run_until_echoed(struct app *server, struct app *clients, int nclients, uint16_t workers)
{
	sst_time_t deadline = sst_engine_now() + 30 * SST_NSEC_PER_SEC;
	bool done = false;

	while (!done && sst_engine_now() < deadline) {
		for (uint16_t i = 0; i < workers; i++)
			sst_engine_poll(server->e, i);
		done = true;
		for (int k = 0; k < nclients; k++) {
			for (uint16_t i = 0; i < workers; i++)
				sst_engine_poll(clients[k].e, i);
			for (int i = 0; i < STREAMS; i++)
				done = done && clients[k].echoed[i] == BYTES;
		}
	}
}

/* A client address in 10.0.0.0/24 that the server at server:4433 gives to
 * its worker 1 (sst_shard.h), so that worker 1 has traffic to send. A port
 * without RSS has nothing to agree with, so the engine hashes with CRC32-C
 * there; the address is one that Toeplitz gives to worker 0, so that a
 * dispatch computing the other hash than the connect puts the channel on
 * the wrong worker. */
static struct sst_net_addr
client_owned_by_worker1(const struct sst_net_addr *server)
{
	struct sst_shard_map crc, rss;
	struct sst_net_endpoint client = {.port = 4433};

	sst_shard_map_init(&rss, 2);
	sst_shard_map_set_local(&rss, server, NULL, 4433);
	crc = rss;
	CU_ASSERT_FATAL(sst_shard_map_set_hash(&crc, SST_SHARD_HASH_CRC) == 0);
	for (uint8_t b = 2; b < 255; b++) {
		client.addr = sst_net_addr4(10, 0, 0, b);
		if (sst_shard_owner(&crc, &client) == 1 && sst_shard_owner(&rss, &client) == 0)
			break;
	}
	CU_ASSERT_FATAL(sst_shard_owner(&crc, &client) == 1);
	return client.addr;
}

/* The engine on a port without RSS hashes with CRC32-C: every owner it
 * names is the CRC map's. */
static void
check_owner_is_crc(const struct app *a, const struct sst_net_addr *local)
{
	struct sst_shard_map m;
	uint32_t same = 0;

	sst_shard_map_init(&m, sst_engine_workers(a->e));
	sst_shard_map_set_local(&m, local, NULL, 4433);
	CU_ASSERT_FATAL(sst_shard_map_set_hash(&m, SST_SHARD_HASH_CRC) == 0);
	for (uint16_t i = 0; i < 64; i++) {
		struct sst_net_endpoint ep = {.port = (uint16_t)(4000 + i)};

		ep.addr = sst_net_addr4(10, 0, (uint8_t)(i / 8), (uint8_t)(2 + i));
		same += sst_engine_owner(a->e, &ep) == sst_shard_owner(&m, &ep);
	}
	CU_ASSERT_EQUAL(same, 64);
}

/* The connect (on the worker sst_engine_owner() names, which
 * sst_worker_connect() checks against its own map) and the dispatch of what
 * arrives agree: each side's one channel is on its owner, the server's on
 * worker 1 (client_owned_by_worker1()). */
static void
check_channels_on_owners(
	const struct app *server, const struct app *client, const struct sst_net_addr *client_addr)
{
	struct sst_net_endpoint self = {.addr = *client_addr, .port = 4433};
	uint16_t sowner = sst_engine_owner(server->e, &self);
	uint16_t cowner = sst_engine_owner(client->e, &client->target);

	CU_ASSERT_EQUAL(sowner, 1);
	for (uint16_t i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(sst_worker_stats(sst_engine_worker(server->e, i))->channels_made,
			i == sowner ? 1 : 0);
		CU_ASSERT_EQUAL(sst_worker_stats(sst_engine_worker(client->e, i))->channels_made,
			i == cowner ? 1 : 0);
	}
}

/*
 * Two engines of two workers each over a net_ring pair: Ethernet frames
 * through lib/net (ARP first), and a port without RSS whose queue i leads
 * to the other side's queue i. The CRC map is symmetric in the pair, so
 * the client's owner of the channel sends on the queue the server's owner
 * reads: nothing takes the dispatch step (with the peer's half alone,
 * every packet of a pair whose ends disagreed did, both ways).
 */
static void
test_frames_over_net_ring(void)
{
	static struct app server, client;
	static struct frames fs, fc;
	uint64_t out = 0, rx_frames = 0;
	char prefix[64];

	CU_ASSERT_FATAL(sst_ethdev_ring_pair("engring", 2, &fs.port, &fc.port) == 0);
	fs.addr = sst_net_addr4(10, 0, 0, 1);
	fc.addr = client_owned_by_worker1(&fs.addr);
	snprintf(prefix, sizeof(prefix), "/tmp/sst-test-engine-%d", (int)getpid());
	capture_prefix = prefix;
	engine_on(&server, "fsrv", true, 2, &fs);
	capture_prefix = NULL;
	engine_on(&client, "fcli", false, 2, &fc);
	check_owner_is_crc(&server, &fs.addr);
	check_owner_is_crc(&client, &fc.addr);
	sst_engine_local(server.e, &client.target);
	run_until_echoed(&server, &client, 1, 2);
	check_channels_on_owners(&server, &client, &fc.addr);
	for (int i = 0; i < STREAMS; i++)
		CU_ASSERT_EQUAL(client.echoed[i], BYTES);
	CU_ASSERT_EQUAL(client.bad, 0);
	for (uint16_t i = 0; i < 2; i++) {
		out += sst_worker_stats(sst_engine_worker(server.e, i))->handoff_out;
		out += sst_worker_stats(sst_engine_worker(client.e, i))->handoff_out;
	}
	printf("\n  %u bytes echoed over net_ring frames, %llu packets handed over\n",
		STREAMS * BYTES, (unsigned long long)out);
	/* What is handed over is an ARP reply's copy for the other worker's
	 * cache (share_neighbour_answers()), one per side at most. */
	CU_ASSERT_EQUAL(sst_engine_owner(client.e, &client.target), 1);
	CU_ASSERT(out <= 2);
	for (int i = 0; i < STREAMS; i++)
		if (client.s[i] != NULL)
			sst_stream_close(client.s[i], sst_engine_now());
	sst_engine_stop(client.e, SST_NSEC_PER_SEC);
	sst_engine_stop(server.e, SST_NSEC_PER_SEC);
	sst_engine_destroy(client.e);
	sst_engine_destroy(server.e);
	CU_ASSERT_EQUAL(sst_ethdev_ring_pair_free("engring", 2), 0);
	/* The server's workers captured their traffic: frames each way. */
	for (int i = 0; i < 2; i++) {
		char path[96], err[PCAP_ERRBUF_SIZE];
		struct pcap_pkthdr *h;
		const u_char *data;
		pcap_t *pc;
		uint64_t frames = 0;

		snprintf(path, sizeof(path), "%s-w%d.pcapng", prefix, i);
		pc = pcap_open_offline(path, err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(pc);
		while (pcap_next_ex(pc, &h, &data) == 1)
			frames++;
		pcap_close(pc);
		remove(path);
		/* Worker 1 owns the client: its frames come and go on queue 1. */
		if (i == 1)
			rx_frames = frames;
		else
			printf("  worker 0's capture: %llu frames\n", (unsigned long long)frames);
	}
	printf("  worker 1's capture: %llu frames\n", (unsigned long long)rx_frames);
	CU_ASSERT(rx_frames > 200);
}

/*
 * An application that set its port up itself (device_ready) says how the
 * port spreads packets (params.shard_hash): the default is the Toeplitz map
 * the engine would program, SST_SHARD_HASH_CRC the CRC map (a port without
 * RSS), and any other value is refused. The two maps must disagree on some
 * of the endpoints checked, or the check could not tell them apart.
 */
static void
test_device_ready_shard_hash(void)
{
	static struct app a;
	static struct frames f;
	struct rte_mempool *rx = rte_pktmbuf_pool_create(
		"tdr_rx", 511, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	struct rte_mempool *pools[2] = {rx, rx};
	struct sst_ethdev_port_conf pc = {.size = sizeof(pc), .nb_queues = 2, .pools = pools};
	struct sst_ethdev_port_info info;
	struct sst_engine_params ep;
	struct sst_shard_map rss, crc;
	uint32_t toeplitz_same = 0, differ = 0;
	uint16_t peer;

	CU_ASSERT_PTR_NOT_NULL_FATAL(rx);
	CU_ASSERT_FATAL(sst_ethdev_ring_pair("engdr", 2, &f.port, &peer) == 0);
	CU_ASSERT_FATAL(sst_ethdev_port_setup(f.port, &pc, &info) == 0);
	f.addr = sst_net_addr4(10, 0, 0, 1);
	sst_shard_map_init(&rss, 2);
	sst_shard_map_set_local(&rss, &f.addr, NULL, 4433);
	crc = rss;
	CU_ASSERT_FATAL(sst_shard_map_set_hash(&crc, SST_SHARD_HASH_CRC) == 0);

	memset(&a, 0, sizeof(a));
	engine_params(&ep, "drsrv", true, 2, &f, &a);
	ep.device_ready = true;
	a.e = sst_engine_create(&ep);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a.e);
	for (uint16_t i = 0; i < 64; i++) {
		struct sst_net_endpoint ep4 = {.port = (uint16_t)(4000 + i)};

		ep4.addr = sst_net_addr4(10, 0, (uint8_t)(i / 8), (uint8_t)(2 + i));
		toeplitz_same += sst_engine_owner(a.e, &ep4) == sst_shard_owner(&rss, &ep4);
		differ += sst_shard_owner(&rss, &ep4) != sst_shard_owner(&crc, &ep4);
	}
	CU_ASSERT_EQUAL(toeplitz_same, 64);
	CU_ASSERT(differ > 0);
	sst_engine_destroy(a.e);

	ep.shard_hash = SST_SHARD_HASH_CRC;
	a.e = sst_engine_create(&ep);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a.e);
	check_owner_is_crc(&a, &f.addr);
	sst_engine_destroy(a.e);

	ep.shard_hash = SST_SHARD_HASH_KINDS;
	CU_ASSERT_PTR_NULL(sst_engine_create(&ep));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);

	CU_ASSERT_EQUAL(sst_ethdev_port_stop(f.port), 0);
	CU_ASSERT_EQUAL(sst_ethdev_ring_pair_free("engdr", 2), 0);
	rte_mempool_free(rx);
}

/*
 * Extra local endpoints on a sharded engine (issue 21): a client of two
 * workers speaks from LOCALS endpoints (its own address, LOCALS ports) to
 * one server endpoint. Each pair's channel is made by the worker
 * sst_engine_owner() names for its tagged endpoint (sst_worker_ep_join()),
 * the other worker is refused (-EXDEV); a net_ring pair has no RSS, so what
 * arrives at the wrong worker is handed over, and each stream's echo must
 * come back whole.
 */
enum { LOCALS = 16, LOCAL_PORT0 = 30000, LOCAL_BYTES = 8 * 1024 };

struct local_client {
	struct sst_engine *e;
	struct sst_net_endpoint target, self;
	struct {
		bool sent;
		uint16_t owner;
		struct sst_stream_peer *peer;
		struct sst_stream *s;
		uint64_t written, echoed;
	} ep[LOCALS];
	uint64_t bad, refused_elsewhere;
};

static int
local_index(const struct sst_net_endpoint *ep)
{
	struct sst_net_endpoint l;

	if (!sst_worker_ep_split(ep, &l, NULL) || l.port < LOCAL_PORT0 ||
		l.port >= LOCAL_PORT0 + LOCALS)
		return -1;
	return l.port - LOCAL_PORT0;
}

static void
local_ready(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	struct local_client *c = ctx;
	int i = local_index(ep);

	CU_ASSERT_FATAL(i >= 0);
	c->ep[i].peer = peer;
}

static void
local_readable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct local_client *c = ctx;

	for (int i = 0; i < LOCALS; i++)
		if (c->ep[i].s == s)
			sst_test_echo_check(s, pattern, i, &c->ep[i].echoed, &c->bad, now);
}

static void
local_poll(void *ctx, struct sst_worker *w, sst_time_t now)
{
	struct local_client *c = ctx;

	for (int i = 0; i < LOCALS; i++) {
		struct sst_net_endpoint from = c->self, pair;
		struct sst_worker *owner;

		from.port = (uint16_t)(LOCAL_PORT0 + i);
		CU_ASSERT_FATAL(sst_worker_ep_join(&from, &c->target, &pair) == 0);
		c->ep[i].owner = sst_engine_owner(c->e, &pair);
		owner = sst_engine_worker(c->e, c->ep[i].owner);
		if (!c->ep[i].sent && owner != w) {
			/* Not ours: the worker refuses it, and so its owner
			 * makes every channel of the pair. */
			CU_ASSERT_EQUAL(sst_worker_connect_from(
						w, &from, &c->target, SST_NEGO_MODE_CHECKSUM, now),
				-EXDEV);
			c->refused_elsewhere++;
			continue;
		}
		if (!c->ep[i].sent) {
			CU_ASSERT_EQUAL(sst_worker_connect_from(
						w, &from, &c->target, SST_NEGO_MODE_CHECKSUM, now),
				0);
			c->ep[i].sent = true;
		}
		if (owner != w || c->ep[i].peer == NULL || c->ep[i].written == LOCAL_BYTES)
			continue;
		if (c->ep[i].s == NULL)
			c->ep[i].s = sst_stream_connect(c->ep[i].peer, "echo", "test", now);
		while (c->ep[i].s != NULL && c->ep[i].written < LOCAL_BYTES) {
			uint32_t len = (uint32_t)RTE_MIN(1000, LOCAL_BYTES - c->ep[i].written);
			struct rte_mbuf *m =
				sst_test_stream_chunk(clones, pattern, i, c->ep[i].written, len);

			CU_ASSERT_FATAL(m != NULL);
			if (sst_stream_write(c->ep[i].s, m, 0, now) < 0) {
				rte_pktmbuf_free(m);
				break;
			}
			c->ep[i].written += len;
		}
		if (c->ep[i].written == LOCAL_BYTES)
			sst_stream_shutdown(c->ep[i].s, now);
	}
}

static const struct sst_worker_ops local_worker_ops = {
	.peer_ready = local_ready, .app_poll = local_poll};
static const struct sst_stream_ops local_stream_ops = {.readable = local_readable};

static void
test_local_endpoints_sharded(void)
{
	static struct app server;
	static struct local_client c;
	static struct frames fs, fc;
	struct sst_engine_params ep;
	uint32_t made[2] = {0}, owned[2] = {0};
	uint64_t handed = 0, echoed = 0;
	sst_time_t deadline = sst_engine_now() + 30 * SST_NSEC_PER_SEC;

	CU_ASSERT_FATAL(sst_ethdev_ring_pair("engloc", 2, &fs.port, &fc.port) == 0);
	fs.addr = sst_net_addr4(10, 0, 1, 1);
	fc.addr = sst_net_addr4(10, 0, 1, 2);
	engine_on(&server, "lsrv", true, 2, &fs);
	memset(&c, 0, sizeof(c));
	engine_params(&ep, "lcli", false, 2, &fc, &c);
	ep.ops = &local_worker_ops;
	ep.stream.ops = &local_stream_ops;
	ep.local_port_first = LOCAL_PORT0;
	ep.local_ports = LOCALS;
	c.e = sst_engine_create(&ep);
	CU_ASSERT_FATAL(c.e != NULL);
	sst_engine_local(server.e, &c.target);
	c.self.addr = fc.addr;
	while (echoed < (uint64_t)LOCALS * LOCAL_BYTES && sst_engine_now() < deadline) {
		echoed = 0;
		for (uint16_t i = 0; i < 2; i++) {
			sst_engine_poll(server.e, i);
			sst_engine_poll(c.e, i);
		}
		for (int i = 0; i < LOCALS; i++)
			echoed += c.ep[i].echoed;
	}
	CU_ASSERT_EQUAL(echoed, (uint64_t)LOCALS * LOCAL_BYTES);
	CU_ASSERT_EQUAL(c.bad, 0);
	CU_ASSERT(c.refused_elsewhere > 0);
	for (int i = 0; i < LOCALS; i++)
		owned[c.ep[i].owner]++;
	for (uint16_t i = 0; i < 2; i++) {
		const struct sst_worker_stats *st = sst_worker_stats(sst_engine_worker(c.e, i));

		made[i] = (uint32_t)st->channels_made;
		handed += st->handoff_out;
		/* Each worker made exactly the channels of the pairs it owns. */
		CU_ASSERT_EQUAL(made[i], owned[i]);
	}
	CU_ASSERT(made[0] > 0 && made[1] > 0);
	/* No RSS: the server's worker j sends on queue j, whatever the
	 * client's owner is, so some arrive at the other worker. */
	CU_ASSERT(handed > 0);
	printf("\n  %u local endpoints: worker 0 made %u channels, worker 1 %u; %llu packets "
	       "handed over\n",
		LOCALS, made[0], made[1], (unsigned long long)handed);
	for (int i = 0; i < LOCALS; i++)
		if (c.ep[i].s != NULL)
			sst_stream_close(c.ep[i].s, sst_engine_now());
	sst_engine_stop(c.e, SST_NSEC_PER_SEC);
	sst_engine_stop(server.e, SST_NSEC_PER_SEC);
	sst_engine_destroy(c.e);
	sst_engine_destroy(server.e);
	CU_ASSERT_EQUAL(sst_ethdev_ring_pair_free("engloc", 2), 0);
}

static void
test_bad_params(void)
{
	struct sst_engine_params ep = {.size = sizeof(ep), .workers = SST_WORKERS_MAX + 1};

	CU_ASSERT_PTR_NULL(sst_engine_create(NULL));
	CU_ASSERT_PTR_NULL(sst_engine_create(&ep));
	ep.workers = 1;
	ep.driver = "no-such-driver";
	ep.local.addr = sst_net_addr4(127, 0, 0, 1);
	CU_ASSERT_PTR_NULL(sst_engine_create(&ep));
}

static int
setup(void)
{
	if (sst_test_eal_init("test_engine") < 0)
		return -1;
	clones = sst_test_pool("eng_clones", 16383, 2048);
	return clones != NULL ? 0 : -1;
}

static const struct sst_test_case cases[] = {
	{"sharded engine over udpsock", test_sharded_udpsock},
	{"frames over a net_ring pair", test_frames_over_net_ring},
	{"device_ready: the caller's shard hash", test_device_ready_shard_hash},
	{"local endpoints on two workers", test_local_endpoints_sharded},
	{"bad parameters", test_bad_params},
	{NULL, NULL},
};

int
main(void)
{
	if (setup() < 0)
		return 1;
	return sst_test_run("engine", cases);
}
