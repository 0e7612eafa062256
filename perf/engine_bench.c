/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker loop's cost (issue 6): two engines in one process over a
 * net_ring pair (Ethernet frames through lib/net on both sides), polled in
 * turn on one lcore; a bulk transfer from the client's streams into a sink
 * on the server. Reports goodput, and cycles per payload byte and per data
 * packet, where the cycles are the whole lcore's: sender and receiver,
 * network layer, channel, stream layer and armor together.
 *
 *   engine_bench [--seconds S] [--runs N] [--streams N] [--armor chk32|aes128gcm|both]
 *
 * Checksum armor (Chk32, negotiated in checksum mode) and AES-128-GCM
 * (secure mode). Each figure is the median of --runs runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <sodium.h>

#include "nego_secure.h"
#include "sst_engine.h"
#include "sst_ethdev.h"

enum { MAX_STREAMS = 64, CHUNK = 1400 };

struct side {
	struct sst_engine *e;
	bool server;
	struct sst_net_endpoint target;
	bool connect_sent;
	struct sst_stream_peer *peer;
	struct sst_stream *s[MAX_STREAMS];
	uint64_t received;
	struct sst_secure_identity id;
	struct sst_secure_config cfg;
};

static struct rte_mempool *data_pool;
static int nstreams = 8;

static void
sink(struct sst_stream *s, struct side *sd, sst_time_t now)
{
	struct sst_stream_data d[32];
	int k;

	while ((k = sst_stream_read(s, d, 32, now)) > 0)
		for (int i = 0; i < k; i++) {
			sd->received += rte_pktmbuf_pkt_len(d[i].m);
			rte_pktmbuf_free(d[i].m);
		}
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
		sd->peer = peer;
}

/* The client keeps every stream's send buffer full. */
static void
app_poll(void *ctx, struct sst_worker *w, sst_time_t now)
{
	struct side *sd = ctx;

	if (sd->server)
		return;
	if (!sd->connect_sent) {
		sst_worker_connect(w, &sd->target,
			sd->cfg.size != 0 ? SST_NEGO_MODE_SECURE : SST_NEGO_MODE_CHECKSUM, now);
		sd->connect_sent = true;
	}
	if (sd->peer == NULL)
		return;
	for (int i = 0; i < nstreams; i++) {
		if (sd->s[i] == NULL)
			sd->s[i] = sst_stream_connect(sd->peer, "sink", "bench", now);
		for (int n = 0; sd->s[i] != NULL && n < 64; n++) {
			struct rte_mbuf *m = rte_pktmbuf_alloc(data_pool);

			if (m == NULL)
				return;
			rte_pktmbuf_append(m, CHUNK);
			if (sst_stream_write(sd->s[i], m, SST_WRITE_MORE, now) < 0) {
				rte_pktmbuf_free(m);
				break;
			}
		}
	}
}

static const struct sst_worker_ops worker_ops = {.peer_ready = peer_ready, .app_poll = app_poll};

static void
side_init(struct side *sd, bool server, uint16_t port, uint8_t host, bool secure)
{
	static struct sst_ethdev_link_conf confs[2];
	static const void *ptrs[2];
	struct sst_engine_params ep = {.size = sizeof(ep), .workers = 1, .mbufs = 32767};
	uint8_t seed[32];

	memset(sd, 0, sizeof(*sd));
	sd->server = server;
	confs[server] = (struct sst_ethdev_link_conf){.port_id = port, .queue_id = 0};
	ptrs[server] = &confs[server];
	ep.driver = "ethdev";
	ep.driver_confs = &ptrs[server];
	ep.net.mac = (struct rte_ether_addr){{0x02, 0, 0, 0, 0, host}};
	ep.net.mtu = 1500;
	ep.net.ipv4 = sst_net_addr4(10, 9, 0, host);
	ep.net.ipv4_prefix_len = 24;
	ep.local.addr = ep.net.ipv4;
	ep.local.port = 4433;
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
	ep.stream.clone_pool = data_pool;
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
	if (server)
		sst_stream_listen(
			sst_worker_stream_host(sst_engine_worker(sd->e, 0)), "sink", "bench", NULL);
}

struct result {
	double mbps, cycles_per_byte, cycles_per_packet;
};

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static struct result
run_once(bool secure, double seconds, int run)
{
	static struct side server, client;
	char name[16];
	uint16_t pa, pb;
	uint64_t c0, c1, b0, p0, polls = 0;
	sst_time_t t0, warm;
	struct result r;

	snprintf(name, sizeof(name), "eb%d%d", secure, run);
	if (sst_ethdev_ring_pair(name, 1, &pa, &pb) < 0) {
		fprintf(stderr, "engine_bench: no net_ring pair\n");
		exit(1);
	}
	side_init(&server, true, pa, 1, secure);
	side_init(&client, false, pb, 2, secure);
	sst_engine_local(server.e, &client.target);
	/* Half a second to negotiate and open the congestion window. */
	warm = sst_engine_now() + SST_NSEC_PER_SEC / 2;
	while (sst_engine_now() < warm) {
		sst_engine_poll(server.e, 0);
		sst_engine_poll(client.e, 0);
	}
	b0 = server.received;
	p0 = sst_worker_stats(sst_engine_worker(server.e, 0))->rx_channel;
	t0 = sst_engine_now();
	c0 = rte_rdtsc();
	while (sst_engine_now() - t0 < (sst_time_t)(seconds * 1e9)) {
		sst_engine_poll(server.e, 0);
		sst_engine_poll(client.e, 0);
		polls++;
	}
	c1 = rte_rdtsc();
	r.mbps = (double)(server.received - b0) * 8 / ((double)(sst_engine_now() - t0) / 1e9) / 1e6;
	r.cycles_per_byte = (double)(c1 - c0) / (double)RTE_MAX(server.received - b0, 1);
	r.cycles_per_packet =
		(double)(c1 - c0) /
		(double)RTE_MAX(
			sst_worker_stats(sst_engine_worker(server.e, 0))->rx_channel - p0, 1);
	{
		const struct sst_stream_host_stats *hs = sst_stream_host_stats(
			sst_worker_stream_host(sst_engine_worker(client.e, 0)));
		const struct sst_net_stats *ns =
			sst_worker_net_stats(sst_engine_worker(client.e, 0));

		fprintf(stderr,
			"  %llu passes of each engine; segments sent %llu, resent %llu; frames out "
			"%llu, dropped %llu\n",
			(unsigned long long)polls, (unsigned long long)hs->segments_tx,
			(unsigned long long)hs->segments_retx, (unsigned long long)ns->tx_frames,
			(unsigned long long)ns->tx_no_mbuf);
	}
	sst_engine_destroy(client.e);
	sst_engine_destroy(server.e);
	sst_secure_identity_wipe(&client.id);
	sst_secure_identity_wipe(&server.id);
	sst_ethdev_ring_pair_free(name, 1);
	return r;
}

static void
bench(const char *label, bool secure, double seconds, int runs)
{
	double mbps[32], cpb[32], cpp[32];

	for (int i = 0; i < runs; i++) {
		struct result r = run_once(secure, seconds, i);

		mbps[i] = r.mbps;
		cpb[i] = r.cycles_per_byte;
		cpp[i] = r.cycles_per_packet;
		fprintf(stderr, "  %s run %d: %.0f Mbit/s, %.2f cycles/byte, %.0f cycles/packet\n",
			label, i + 1, r.mbps, r.cycles_per_byte, r.cycles_per_packet);
	}
	qsort(mbps, (size_t)runs, sizeof(double), cmp_double);
	qsort(cpb, (size_t)runs, sizeof(double), cmp_double);
	qsort(cpp, (size_t)runs, sizeof(double), cmp_double);
	printf("%-10s goodput %8.0f Mbit/s  %6.2f cycles/byte  %6.0f cycles/packet  (median of %d, "
	       "%d streams, TSC %.2f GHz)\n",
		label, mbps[runs / 2], cpb[runs / 2], cpp[runs / 2], runs, nstreams,
		(double)rte_get_tsc_hz() / 1e9);
}

static void
usage(void)
{
	printf("usage: engine_bench [--seconds S] [--runs N] [--streams N] "
	       "[--armor chk32|aes128gcm|both]\n"
	       "Two engines over a net_ring pair on one lcore, bulk transfer; goodput and\n"
	       "cycles per byte and per packet of the whole lcore (both ends).\n");
}

int
main(int argc, char **argv)
{
	char prefix[64];
	char *eal[] = {argv[0], "--no-huge", "--no-pci", "--no-shconf", "-m", "2048",
		"--no-telemetry", "--log-level=lib.eal:error", prefix, NULL};
	double seconds = 3;
	int runs = 3;
	const char *armor = "both";

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(argv[i], "--help") == 0) {
			usage();
			return 0;
		} else if (v != NULL && strcmp(argv[i], "--seconds") == 0) {
			seconds = atof(v);
			i++;
		} else if (v != NULL && strcmp(argv[i], "--runs") == 0) {
			runs = atoi(v);
			i++;
		} else if (v != NULL && strcmp(argv[i], "--streams") == 0) {
			nstreams = atoi(v);
			i++;
		} else if (v != NULL && strcmp(argv[i], "--armor") == 0) {
			armor = v;
			i++;
		} else {
			usage();
			return 2;
		}
	}
	if (seconds <= 0 || runs < 1 || runs > 32 || nstreams < 1 || nstreams > MAX_STREAMS) {
		usage();
		return 2;
	}
	snprintf(prefix, sizeof(prefix), "--file-prefix=engine-bench-%d", (int)getpid());
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0 || sodium_init() < 0) {
		fprintf(stderr, "engine_bench: EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	data_pool = rte_pktmbuf_pool_create("eb_data", 65535, 256, 0, 2048, SOCKET_ID_ANY);
	if (data_pool == NULL)
		return 1;
	if (strcmp(armor, "chk32") == 0 || strcmp(armor, "both") == 0)
		bench("chk32", false, seconds, runs);
	if (strcmp(armor, "aes128gcm") == 0 || strcmp(armor, "both") == 0)
		bench("aes128gcm", true, seconds, runs);
	rte_mempool_free(data_pool);
	rte_eal_cleanup();
	return 0;
}
