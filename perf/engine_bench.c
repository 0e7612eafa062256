/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker loop's cost (issue 6) and how it scales across cores (issue
 * 17): two engines in one process over a net_ring pair (Ethernet frames
 * through lib/net on both sides); a bulk transfer from the client's
 * streams into a sink on the server. Reports goodput, and cycles per
 * payload byte and per data packet, where the cycles are the CPU time of
 * the polling threads: sender and receiver, network layer, channel, stream
 * layer and armor together.
 *
 *   engine_bench [EAL-ARGS --] [--seconds S] [--runs N] [--streams N] [--armor chk32|aes128gcm|both]
 *                [--workers N] [--one-thread] [--local-ports] [--rr] [--queue-stride S]
 *
 * With --workers N each engine has N workers, a net_ring queue each, and
 * the client one channel per worker, from a local port the pair hash
 * gives that worker (docs/engine.md "Local endpoints"). The hash is
 * symmetric, so worker k of the client and worker k of the server hold
 * the two ends of channel k and share nothing with the other workers: a
 * lane. Each lane runs on an lcore of its own (the main lcore and N - 1
 * worker lcores), or with --one-thread all on the main lcore in turn.
 * --rr runs transactions instead of bulk (RR_BYTES each way, each on a new
 * top-level stream). docs/engine.md "System test and benchmark".
 *
 * Checksum armor (Chk32, negotiated in checksum mode) and AES-128-GCM
 * (secure mode). Each figure is the median of --runs runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <sodium.h>

#include "nego_secure.h"
#include "sst_eal.h"
#include "sst_engine.h"
#include "sst_ethdev.h"

enum {
	MAX_STREAMS = 64,
	CHUNK = 1400,
	MAX_LANES = 8,
	/* The client's local ports when it has several workers: enough that
	 * the pair hash gives each worker one of them. */
	LOCAL_PORT_FIRST = 20000,
	LOCAL_PORTS = 256,
};

/* What one worker of a side holds, touched by its lane's thread only: on
 * the client its channel and that channel's streams, on the server what
 * its sink took. */
struct lane {
	struct sst_worker *w;
	struct sst_net_endpoint local; /* client, several workers: its channel's source */
	bool connect_sent;
	struct sst_stream_peer *peer;
	struct sst_stream *s[MAX_STREAMS];
	struct sst_stream *txn; /* client, --rr: the transaction's stream */
	uint64_t received;
	uint64_t transactions; /* client, --rr: responses read to their end */
	/* What this lane's side had moved when the window opened (server:
	 * received, client: transactions): a lane that stalls in the window
	 * fails the run. */
	uint64_t at_window;
} __rte_cache_aligned;

struct side {
	struct sst_engine *e;
	bool server;
	struct sst_net_endpoint target;
	struct lane lane[MAX_LANES];
	struct sst_secure_identity id;
	struct sst_secure_config cfg;
};

/* The client's data, a pool for each lane: a pool the lanes shared would
 * hand each the mbufs the other freed, lines its core last wrote. */
static struct rte_mempool *data_pool[MAX_LANES];
static int nstreams = 8;
static uint16_t nworkers = 1;
static bool one_thread;
/* The client's channels from its local ports even with one worker (as
 * with several): the cost of that path apart from the second worker's. */
static bool from_locals;
/* Worker k on queue k * queue_stride of the net_ring pair (0: 3 with
 * several workers, else 1). net_ring keeps its queues' counters in one
 * array of 24-byte entries, written at every burst, so that the queues of
 * two workers on two cores share a cache line that moves between them
 * (issue 17: 8.6 % of rr's samples in net_ring's receive and transmit with
 * two lanes); 3 apart they are on lines of their own, as a NIC's queues
 * are. Then the bench sets the ports up (device_ready), for as many queues
 * as the stride spans, and tells the engines what the engine's own set-up
 * would have found: a port without RSS (the CRC map) in this process. */
static uint16_t queue_stride;
/* --rr: transactions, each on a new top-level stream, RR_BYTES each way. */
static bool rr;
enum { RR_BYTES = 32 };

/* The lane of the worker whose pass is running (the callbacks' worker). */
static struct lane *
lane_of(struct side *sd)
{
	const struct sst_worker *w = sst_worker_running();

	for (uint16_t k = 1; k < nworkers; k++)
		if (sd->lane[k].w == w)
			return &sd->lane[k];
	return &sd->lane[0];
}

/* RR_BYTES of the lane's pool, or NULL when it is empty. */
static struct rte_mbuf *
rr_message(struct side *sd, struct lane *ln)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(data_pool[ln - sd->lane]);

	if (m != NULL)
		memset(rte_pktmbuf_append(m, RR_BYTES), 0x5a, RR_BYTES);
	return m;
}

/* --rr: the request or the response in one write. One transaction at a
 * time a channel leaves a send buffer free, so a refusal is a defect. */
static void
rr_send(struct side *sd, struct lane *ln, struct sst_stream *s, sst_time_t now)
{
	struct rte_mbuf *m = rr_message(sd, ln);

	if (m == NULL || sst_stream_write(s, m, 0, now) < 0) {
		fprintf(stderr, "engine_bench: a %s cannot be written\n",
			sd->server ? "response" : "request");
		exit(1);
	}
}

static void
sink(struct sst_stream *s, struct side *sd, sst_time_t now)
{
	struct lane *ln = lane_of(sd);
	struct sst_stream_data d[32];
	int k;

	while ((k = sst_stream_read(s, d, 32, now)) > 0)
		for (int i = 0; i < k; i++) {
			ln->received += rte_pktmbuf_pkt_len(d[i].m);
			rte_pktmbuf_free(d[i].m);
		}
	if (k == -ECONNRESET) {
		fprintf(stderr, "engine_bench: a stream was reset\n");
		exit(1);
	}
	if (!rr || k != -EPIPE)
		return;
	/* The request ended: the server answers and ends the stream; the
	 * client's transaction is over. */
	if (sd->server)
		rr_send(sd, ln, s, now);
	else {
		ln->transactions++;
		ln->txn = NULL;
	}
	sst_stream_close(s, now);
}

static void
op_accepted(void *ctx, struct sst_stream *parent, struct sst_stream *s, void *svc, sst_time_t now)
{
	(void)svc;
	(void)parent;
	if (s != NULL)
		sink(s, ctx, now);
}

static void
op_readable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	sink(s, ctx, now);
}

static const struct sst_stream_ops stream_ops = {
	.accepted = op_accepted,
	.readable = op_readable,
};

static void
peer_ready(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	struct side *sd = ctx;

	(void)ep;
	if (!sd->server)
		lane_of(sd)->peer = peer;
}

/* The client keeps every stream's send buffer full. */
static void
app_poll(void *ctx, struct sst_worker *w, sst_time_t now)
{
	struct side *sd = ctx;
	struct lane *ln;

	if (sd->server)
		return;
	ln = lane_of(sd);
	if (!ln->connect_sent) {
		enum sst_nego_mode mode =
			sd->cfg.size != 0 ? SST_NEGO_MODE_SECURE : SST_NEGO_MODE_CHECKSUM;
		int rc = nworkers > 1 || from_locals
				 ? sst_worker_connect_from(w, &ln->local, &sd->target, mode, now)
				 : sst_worker_connect(w, &sd->target, mode, now);

		if (rc < 0) {
			fprintf(stderr, "engine_bench: connect: %s\n", strerror(-rc));
			exit(1);
		}
		ln->connect_sent = true;
	}
	if (ln->peer == NULL)
		return;
	if (rr) {
		/* One transaction at a time: its request, then its end. */
		if (ln->txn != NULL)
			return;
		ln->txn = sst_stream_connect(ln->peer, "sink", "bench", now);
		if (ln->txn == NULL)
			return; /* no stream free yet: the next pass */
		rr_send(sd, ln, ln->txn, now);
		sst_stream_shutdown(ln->txn, now);
		return;
	}
	for (int i = 0; i < nstreams; i++) {
		if (ln->s[i] == NULL)
			ln->s[i] = sst_stream_connect(ln->peer, "sink", "bench", now);
		for (int n = 0; ln->s[i] != NULL && n < 64; n++) {
			struct rte_mbuf *m = rte_pktmbuf_alloc(data_pool[ln - sd->lane]);

			if (m == NULL)
				return;
			rte_pktmbuf_append(m, CHUNK);
			if (sst_stream_write(ln->s[i], m, SST_WRITE_MORE, now) < 0) {
				rte_pktmbuf_free(m);
				break;
			}
		}
	}
}

static const struct sst_worker_ops worker_ops = {.peer_ready = peer_ready, .app_poll = app_poll};

/* The client's local endpoint whose pair with the server worker k owns. */
static void
pick_local(struct side *sd, uint16_t k, struct sst_net_addr addr)
{
	for (uint32_t i = 0; i < LOCAL_PORTS; i++) {
		struct sst_net_endpoint local = {.addr = addr, .port = LOCAL_PORT_FIRST + i}, pair;

		if (sst_worker_ep_join(&local, &sd->target, &pair) == 0 &&
			sst_engine_owner(sd->e, &pair) == k) {
			sd->lane[k].local = local;
			return;
		}
	}
	fprintf(stderr, "engine_bench: no local port of %d hashes to worker %u\n", LOCAL_PORTS, k);
	exit(1);
}

static void
side_init(struct side *sd, bool server, uint16_t port, uint8_t host, bool secure)
{
	static struct sst_ethdev_link_conf confs[2][MAX_LANES];
	static const void *ptrs[2][MAX_LANES];
	struct sst_engine_params ep = {.size = sizeof(ep), .workers = nworkers, .mbufs = 32767};
	uint8_t seed[32];

	memset(sd, 0, sizeof(*sd));
	sd->server = server;
	for (uint16_t k = 0; k < nworkers; k++) {
		confs[server][k] = (struct sst_ethdev_link_conf){
			.port_id = port, .queue_id = (uint16_t)(k * queue_stride)};
		ptrs[server][k] = &confs[server][k];
	}
	ep.driver = "ethdev";
	ep.driver_confs = ptrs[server];
	if (queue_stride > 1) {
		ep.device_ready = true;
		ep.shard_hash = SST_SHARD_HASH_CRC;
		ep.net.in_process = true;
	}
	ep.net.mac = (struct rte_ether_addr){{0x02, 0, 0, 0, 0, host}};
	ep.net.mtu = 1500;
	ep.net.ipv4 = sst_net_addr4(10, 9, 0, host);
	ep.net.ipv4_prefix_len = 24;
	ep.local.addr = ep.net.ipv4;
	ep.local.port = 4433;
	if (!server && (nworkers > 1 || from_locals)) {
		ep.local_port_first = LOCAL_PORT_FIRST;
		ep.local_ports = LOCAL_PORTS;
	}
	randombytes_buf(ep.nego.secret, sizeof(ep.nego.secret));
	ep.nego.ulp_caps = SST_NEGO_CAP_ALL;
	if (secure) {
		memset(seed, host, sizeof(seed));
		sst_secure_identity_from_seed(&sd->id, seed);
		sd->cfg.size = sizeof(sd->cfg);
		sd->cfg.identity = &sd->id;
		sd->cfg.policy = SST_SECURE_TOFU; /* trust on first use: a benchmark */
		sst_secure_suites_default(&sd->cfg, true, false);
		sd->cfg.random = sst_secure_random_sodium;
		ep.nego.secure = &sd->cfg;
	}
	ep.stream.name = server ? "bsrv" : "bcli";
	/* No clone_pool: the engine makes one for each worker. */
	ep.stream.max_streams = 1024;
	ep.stream.ops = &stream_ops;
	ep.stream.ctx = sd;
	ep.ops = &worker_ops;
	ep.ctx = sd;
	sd->e = sst_engine_create(&ep);
	if (sd->e == NULL) {
		fprintf(stderr, "engine_bench: no engine: %s\n", rte_strerror(rte_errno));
		exit(1);
	}
	for (uint16_t k = 0; k < nworkers; k++) {
		sd->lane[k].w = sst_engine_worker(sd->e, k);
		if (server)
			sst_stream_listen(
				sst_worker_stream_host(sd->lane[k].w), "sink", "bench", NULL);
	}
}

/* One lane's thread: worker k of both engines until the window ends, and
 * what it did in the window. */
struct lane_run {
	struct side *server, *client;
	uint16_t k;
	sst_time_t warm_end, end;
	uint64_t bytes, packets, txns, cpu_ns, polls;
} __rte_cache_aligned; /* the lanes' own lines: each writes its figures */

static uint64_t
thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The lanes this thread polls: its own, or with --one-thread all of them. */
static void
poll_lanes(struct lane_run *r)
{
	uint16_t first = one_thread ? 0 : r->k, last = one_thread ? nworkers : r->k + 1;

	for (uint16_t k = first; k < last; k++) {
		sst_engine_poll(r->server->e, k);
		sst_engine_poll(r->client->e, k);
	}
}

/* What the lanes of this thread moved so far: bytes into the server's
 * sinks, channel packets the server received, transactions answered. */
struct lane_count {
	uint64_t bytes, packets, txns;
};

static struct lane_count
lane_count(const struct lane_run *r)
{
	struct lane_count c = {0, 0, 0};

	for (uint16_t k = 0; k < nworkers; k++)
		if (one_thread || k == r->k) {
			c.bytes += r->server->lane[k].received;
			c.packets += sst_worker_stats(r->server->lane[k].w)->rx_channel;
			c.txns += r->client->lane[k].transactions;
		}
	return c;
}

static int
lane_loop(void *arg)
{
	struct lane_run *r = arg;
	struct lane_count before, after;
	uint64_t c0, polls = 0;
	const sst_time_t end = r->end;

	while (sst_engine_now() < r->warm_end)
		poll_lanes(r);
	before = lane_count(r);
	for (uint16_t k = 0; k < nworkers; k++)
		if (one_thread || k == r->k) {
			r->server->lane[k].at_window = r->server->lane[k].received;
			r->client->lane[k].at_window = r->client->lane[k].transactions;
		}
	c0 = thread_cpu_ns();
	while (sst_engine_now() < end) {
		poll_lanes(r);
		polls++;
	}
	r->polls = polls;
	r->cpu_ns = thread_cpu_ns() - c0;
	after = lane_count(r);
	r->bytes = after.bytes - before.bytes;
	r->packets = after.packets - before.packets;
	r->txns = after.txns - before.txns;
	return 0;
}

struct result {
	double mbps, cycles_per_byte, cycles_per_packet, txn_rate, cycles_per_txn;
};

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* --queue-stride: both ports with every queue the stride spans (net_ring
 * receives nothing into these pools: frames are handed over). */
static struct rte_mempool *rx_pool;

static void
ports_setup(uint16_t pa, uint16_t pb, uint16_t queues)
{
	struct rte_mempool *pools[MAX_LANES * 4];
	uint16_t ports[2] = {pa, pb};

	if (rx_pool == NULL)
		rx_pool = rte_pktmbuf_pool_create("eb_rxq", 1023, 0, 0, 2048, SOCKET_ID_ANY);
	for (uint16_t q = 0; q < queues; q++)
		pools[q] = rx_pool;
	for (int i = 0; i < 2; i++) {
		struct sst_ethdev_port_conf conf = {
			.size = sizeof(conf), .nb_queues = queues, .pools = pools};
		struct sst_ethdev_port_info info;

		if (rx_pool == NULL || sst_ethdev_port_setup(ports[i], &conf, &info) < 0) {
			fprintf(stderr, "engine_bench: port %u: %s\n", ports[i],
				rx_pool == NULL ? "no pool" : info.err);
			exit(1);
		}
	}
}

static struct result
run_once(bool secure, double seconds, int run)
{
	static struct side server, client;
	struct lane_run lr[MAX_LANES];
	uint16_t threads = one_thread ? 1 : nworkers, pa, pb;
	uint64_t bytes = 0, packets = 0, txns = 0, cpu_ns = 0;
	uint16_t queues = (uint16_t)((nworkers - 1) * queue_stride + 1);
	unsigned int lcore = rte_get_main_lcore();
	sst_time_t warm_end;
	double cycles;
	char name[16];
	struct result r;

	snprintf(name, sizeof(name), "eb%d%d", secure, run);
	if (sst_ethdev_ring_pair(name, queues, &pa, &pb) < 0) {
		fprintf(stderr, "engine_bench: no net_ring pair\n");
		exit(1);
	}
	if (queue_stride > 1)
		ports_setup(pa, pb, queues);
	side_init(&server, true, pa, 1, secure);
	side_init(&client, false, pb, 2, secure);
	sst_engine_local(server.e, &client.target);
	for (uint16_t k = 0; (nworkers > 1 || from_locals) && k < nworkers; k++)
		pick_local(&client, k, sst_net_addr4(10, 9, 0, 2));
	/* Half a second to negotiate and open the congestion window. */
	warm_end = sst_engine_now() + SST_NSEC_PER_SEC / 2;
	for (uint16_t t = 0; t < threads; t++)
		lr[t] = (struct lane_run){.server = &server,
			.client = &client,
			.k = t,
			.warm_end = warm_end,
			.end = warm_end + (sst_time_t)(seconds * 1e9)};
	for (uint16_t t = 1; t < threads; t++) {
		lcore = rte_get_next_lcore(lcore, 1, 0);
		if (rte_eal_remote_launch(lane_loop, &lr[t], lcore) != 0) {
			fprintf(stderr, "engine_bench: lane %u on lcore %u failed\n", t, lcore);
			exit(1);
		}
	}
	lane_loop(&lr[0]);
	rte_eal_mp_wait_lcore();
	for (uint16_t t = 0; t < threads; t++) {
		bytes += lr[t].bytes;
		packets += lr[t].packets;
		txns += lr[t].txns;
		cpu_ns += lr[t].cpu_ns;
		fprintf(stderr,
			"  lane %u: %llu passes, %.0f Mbit/s, %.0f transactions/s, %.2f "
			"CPU-seconds\n",
			t, (unsigned long long)lr[t].polls, (double)lr[t].bytes * 8 / seconds / 1e6,
			(double)lr[t].txns / seconds, (double)lr[t].cpu_ns / 1e9);
	}
	/* A lane that moved nothing in the window is broken, not slow. */
	for (uint16_t k = 0; k < nworkers; k++)
		if (rr ? client.lane[k].transactions == client.lane[k].at_window
		       : server.lane[k].received == server.lane[k].at_window) {
			fprintf(stderr, "engine_bench: worker %u's channel moved nothing\n", k);
			exit(1);
		}
	cycles = (double)cpu_ns * (double)rte_get_tsc_hz() / 1e9;
	r.txn_rate = (double)txns / seconds;
	r.cycles_per_txn = cycles / (double)RTE_MAX(txns, 1);
	r.mbps = (double)bytes * 8 / seconds / 1e6;
	r.cycles_per_byte = cycles / (double)RTE_MAX(bytes, 1);
	r.cycles_per_packet = cycles / (double)RTE_MAX(packets, 1);
	for (uint16_t k = 0; k < nworkers; k++) {
		const struct sst_stream_host_stats *hs =
			sst_stream_host_stats(sst_worker_stream_host(client.lane[k].w));
		const struct sst_net_stats *ns = sst_worker_net_stats(client.lane[k].w);
		const struct sst_worker_stats *ws = sst_worker_stats(server.lane[k].w);

		fprintf(stderr,
			"  worker %u: segments sent %llu, resent %llu; frames out %llu, dropped "
			"%llu; "
			"server handoffs %llu\n",
			k, (unsigned long long)hs->segments_tx,
			(unsigned long long)hs->segments_retx, (unsigned long long)ns->tx_frames,
			(unsigned long long)ns->tx_no_mbuf, (unsigned long long)ws->handoff_out);
	}
	sst_engine_destroy(client.e);
	sst_engine_destroy(server.e);
	sst_secure_identity_wipe(&client.id);
	sst_secure_identity_wipe(&server.id);
	if (queue_stride > 1) {
		sst_ethdev_port_stop(pa);
		sst_ethdev_port_stop(pb);
	}
	sst_ethdev_ring_pair_free(name, queues);
	return r;
}

static void
bench(const char *label, bool secure, double seconds, int runs)
{
	double mbps[32], cpb[32], cpp[32], tps[32], cpt[32];
	const char *how = nworkers == 1 ? "" : one_thread ? ", one thread" : ", a thread each";

	for (int i = 0; i < runs; i++) {
		struct result r = run_once(secure, seconds, i);

		mbps[i] = r.mbps;
		cpb[i] = r.cycles_per_byte;
		cpp[i] = r.cycles_per_packet;
		tps[i] = r.txn_rate;
		cpt[i] = r.cycles_per_txn;
		if (rr)
			fprintf(stderr,
				"  %s run %d: %.0f transactions/s, %.0f cycles/transaction\n",
				label, i + 1, r.txn_rate, r.cycles_per_txn);
		else
			fprintf(stderr,
				"  %s run %d: %.0f Mbit/s, %.2f cycles/byte, %.0f cycles/packet\n",
				label, i + 1, r.mbps, r.cycles_per_byte, r.cycles_per_packet);
	}
	qsort(mbps, (size_t)runs, sizeof(double), cmp_double);
	qsort(cpb, (size_t)runs, sizeof(double), cmp_double);
	qsort(cpp, (size_t)runs, sizeof(double), cmp_double);
	qsort(tps, (size_t)runs, sizeof(double), cmp_double);
	qsort(cpt, (size_t)runs, sizeof(double), cmp_double);
	if (rr)
		printf("%-10s rr %9.0f transactions/s  %6.0f cycles/transaction  (median of %d, %u "
		       "worker%s a side%s, %d B each way, a new stream each, TSC %.2f GHz)\n",
			label, tps[runs / 2], cpt[runs / 2], runs, nworkers,
			nworkers > 1 ? "s" : "", how, RR_BYTES, (double)rte_get_tsc_hz() / 1e9);
	else
		printf("%-10s goodput %8.0f Mbit/s  %6.3f cycles/byte  %6.0f cycles/packet  "
		       "(median of "
		       "%d, %u worker%s a side%s, %d streams a channel, TSC %.2f GHz)\n",
			label, mbps[runs / 2], cpb[runs / 2], cpp[runs / 2], runs, nworkers,
			nworkers > 1 ? "s" : "", how, nstreams, (double)rte_get_tsc_hz() / 1e9);
}

static void
usage(void)
{
	printf("usage: engine_bench [EAL-ARGS --] [--seconds S] [--runs N] [--streams N] "
	       "[--armor chk32|aes128gcm|both]\n"
	       "                    [--workers N] [--one-thread] [--local-ports] [--rr]\n"
	       "                    [--queue-stride S]\n"
	       "Two engines over a net_ring pair, bulk transfer into a sink; goodput and cycles\n"
	       "per byte and per packet (CPU time of the polling threads, both ends).\n"
	       "  --workers N   N workers a side (default 1, at most %d), a channel for each:\n"
	       "                worker k of both engines holds channel k, polled by lcore k\n"
	       "                (needs N lcores: the EAL gets every CPU this process may use)\n"
	       "  --one-thread  all workers polled in turn by the main lcore instead\n"
	       "  --local-ports the client's channels from its local ports, as with several\n"
	       "                workers, also with one (that path's cost apart)\n"
	       "  --rr          transactions instead: %d B each way, each on a new top-level\n"
	       "                stream, one at a time on each channel; transactions/s and\n"
	       "                cycles a transaction\n"
	       "  --queue-stride S  worker k on net_ring queue k * S (1 to 4; default 3 with\n"
	       "                several workers, whose queue counters net_ring would otherwise\n"
	       "                keep on one cache line, else 1)\n",
		MAX_LANES, RR_BYTES);
}

/* The options after the EAL's: 0, 1 for --help, 2 for a bad one. */
static int
parse_args(int argc, char **argv, double *seconds, int *runs, const char **armor)
{
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(argv[i], "--help") == 0)
			return 1;
		if (strcmp(argv[i], "--one-thread") == 0)
			one_thread = true;
		else if (strcmp(argv[i], "--rr") == 0)
			rr = true;
		else if (strcmp(argv[i], "--local-ports") == 0)
			from_locals = true;
		else if (v == NULL)
			return 2;
		else if (strcmp(argv[i], "--seconds") == 0)
			*seconds = atof(argv[++i]);
		else if (strcmp(argv[i], "--runs") == 0)
			*runs = atoi(argv[++i]);
		else if (strcmp(argv[i], "--streams") == 0)
			nstreams = atoi(argv[++i]);
		else if (strcmp(argv[i], "--armor") == 0)
			*armor = argv[++i];
		else if (strcmp(argv[i], "--workers") == 0)
			nworkers = (uint16_t)atoi(argv[++i]);
		else if (strcmp(argv[i], "--queue-stride") == 0)
			queue_stride = (uint16_t)atoi(argv[++i]);
		else
			return 2;
	}
	if (*seconds <= 0 || *runs < 1 || *runs > 32 || nstreams < 1 || nstreams > MAX_STREAMS ||
		nworkers < 1 || nworkers > MAX_LANES || queue_stride > 4 ||
		(strcmp(*armor, "chk32") != 0 && strcmp(*armor, "aes128gcm") != 0 &&
			strcmp(*armor, "both") != 0))
		return 2;
	return 0;
}

int
main(int argc, char **argv)
{
	/* The tools' bring-up (sst_eal.h): EAL arguments before "--", else
	 * these defaults; and a cleanup that removes the runtime directory. */
	static const char *const eal_extra[] = {"--no-shconf", "--no-telemetry", NULL};
	const struct sst_eal_opts eo = {.size = sizeof(eo),
		.prog = "engine-bench",
		.memory_mb = 2048,
		.extra_args = eal_extra};
	double seconds = 3;
	int runs = 3, rc;
	const char *armor = "both";

	rc = sst_eal_init(argc, argv, &eo);
	if (rc < 0) {
		fprintf(stderr, "engine_bench: EAL: %s\n", strerror(-rc));
		return 1;
	}
	rc = parse_args(argc - rc, argv + rc, &seconds, &runs, &armor);
	if (rc != 0) {
		usage();
		sst_eal_cleanup();
		return rc == 1 ? 0 : 2;
	}
	if (sodium_init() < 0) {
		fprintf(stderr, "engine_bench: libsodium did not initialise\n");
		sst_eal_cleanup();
		return 1;
	}
	if (queue_stride == 0)
		queue_stride = nworkers > 1 ? 3 : 1;
	if (!one_thread && rte_lcore_count() < nworkers) {
		/* As sst-gen does: the main thread polls them all. */
		fprintf(stderr,
			"engine_bench: %u workers, %u lcore%s (one a CPU this process may use): "
			"all "
			"polled by the main lcore (--one-thread)\n",
			nworkers, rte_lcore_count(), rte_lcore_count() == 1 ? "" : "s");
		one_thread = true;
	}
	for (uint16_t k = 0; k < nworkers; k++) {
		char name[RTE_MEMPOOL_NAMESIZE];

		snprintf(name, sizeof(name), "eb_data%u", k);
		data_pool[k] = rte_pktmbuf_pool_create(name, 65535, 256, 0, 2048, SOCKET_ID_ANY);
		if (data_pool[k] == NULL) {
			fprintf(stderr, "engine_bench: no data pool: %s\n",
				rte_strerror(rte_errno));
			sst_eal_cleanup();
			return 1;
		}
	}
	if (strcmp(armor, "chk32") == 0 || strcmp(armor, "both") == 0)
		bench("chk32", false, seconds, runs);
	if (strcmp(armor, "aes128gcm") == 0 || strcmp(armor, "both") == 0)
		bench("aes128gcm", true, seconds, runs);
	for (uint16_t k = 0; k < nworkers; k++)
		rte_mempool_free(data_pool[k]);
	rte_mempool_free(rx_pool);
	sst_eal_cleanup();
	return 0;
}
