/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two engines in one process, over both kinds of in-process link (a
 * net_ring pair carrying Ethernet frames through lib/net with two workers
 * a side; a simpair with loss, reordering and duplication), used through
 * both application interfaces: ring mode (sst_ring.h clients, one per
 * worker) and embedded mode (callbacks on the worker). Many streams are
 * echoed byte-exact; everything is given back afterwards.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_mbuf.h>

#include "nego_secure.h"
#include "sst_engine.h"
#include "sst_ethdev.h"
#include "sst_ring.h"
#include "sst_simpair.h"
#include "sst_stream.h"
#include "sst_test.h"
#include "sst_test_echo.h"
#include "sst_test_eal.h"
#include "sst_test_mbuf.h"
#include "sst_test_simlink.h"

enum { WORKERS = 2, STREAMS = 6, BYTES = 48 * 1024, QUEUE = 1024, HANDLES = 256 };

static struct rte_mempool *data;

/* ---- Links ---- */

struct links {
	const char *driver;
	const void *confs[2][WORKERS]; /**< per side, per worker */
	struct sst_ethdev_link_conf eth[2][WORKERS];
	struct sst_simpair_conf sim[2];
	struct sst_simpair *pair;
	uint16_t workers;
	char ring_name[16];
};

static void
links_net_ring(struct links *l)
{
	uint16_t port[2];

	memset(l, 0, sizeof(*l));
	snprintf(l->ring_name, sizeof(l->ring_name), "modes%u", (unsigned int)(rte_rand() % 1000));
	CU_ASSERT_FATAL(sst_ethdev_ring_pair(l->ring_name, WORKERS, &port[0], &port[1]) == 0);
	l->driver = "ethdev";
	l->workers = WORKERS;
	for (int s = 0; s < 2; s++)
		for (uint16_t i = 0; i < WORKERS; i++) {
			l->eth[s][i] =
				(struct sst_ethdev_link_conf){.port_id = port[s], .queue_id = i};
			l->confs[s][i] = &l->eth[s][i];
		}
}

/* 2% loss, 1% reordering and 1% duplication each way, 50 Mbit/s, 1 ms. */
static void
links_lossy_simpair(struct links *l)
{
	struct sst_simlink_params lp;
	struct sst_net_endpoint ep[2] = {0};

	memset(l, 0, sizeof(*l));
	sst_test_link_model(&lp, 50 * 1000 * 1000, SST_NSEC_PER_MSEC, 300,
		&(struct sst_test_impairments){.loss = 0.02, .reorder = 0.01, .duplicate = 0.01},
		data);
	for (int i = 0; i < 2; i++) {
		ep[i].addr = sst_net_addr4(10, 7, 0, (uint8_t)(1 + i));
		ep[i].port = 4433;
	}
	l->pair = sst_simpair_create(&lp, &lp, &ep[0], &ep[1], NULL, NULL);
	CU_ASSERT_FATAL(l->pair != NULL);
	l->driver = "simpair";
	l->workers = 1;
	for (int s = 0; s < 2; s++) {
		l->sim[s] = (struct sst_simpair_conf){.pair = l->pair, .side = s};
		l->confs[s][0] = &l->sim[s];
	}
}

static void
links_free(struct links *l)
{
	if (l->pair != NULL)
		sst_simpair_destroy(l->pair);
	else
		CU_ASSERT_EQUAL(sst_ethdev_ring_pair_free(l->ring_name, WORKERS), 0);
}

/* ---- Both sides' state ---- */

struct echo_handle {
	struct rte_mbuf *q[QUEUE];
	uint32_t flags[QUEUE];
	uint32_t head, n;
	bool end, shut;
};

struct side {
	struct sst_engine *e;
	bool server;
	struct sst_ring_client *c[WORKERS];
	/* server */
	struct echo_handle hs[WORKERS][HANDLES];
	uint32_t accepted, freed;
	/* client */
	struct sst_net_endpoint target;
	uint16_t owner;
	int h[STREAMS];
	struct sst_stream *s[STREAMS]; /* embedded */
	struct sst_stream_peer *peer;  /* embedded */
	bool connect_sent;
	uint64_t written[STREAMS], echoed[STREAMS], bad;
	bool shut[STREAMS];
	uint32_t connected, streams_freed;
	struct sst_secure_identity id;
	struct sst_secure_config cfg;
};

static bool secure; /* the next run negotiates in secure mode */
/* Lowered to make channels be replaced during the exchange (0: the suite's). */
static uint64_t packet_limit;

static uint8_t
pattern(int stream, uint64_t off)
{
	return sst_test_pattern(off + (uint64_t)stream * 7919);
}

static struct rte_mbuf *
chunk(int stream, uint64_t off, uint32_t len)
{
	return sst_test_stream_chunk(data, pattern, stream, off, len);
}

static void
check(struct side *sd, int i, struct rte_mbuf *m)
{
	sd->bad += sst_test_stream_mismatches(m, pattern, i, sd->echoed[i]);
	sd->echoed[i] += rte_pktmbuf_pkt_len(m);
	rte_pktmbuf_free(m);
}

static bool
all_echoed(const struct side *c)
{
	for (int i = 0; i < STREAMS; i++)
		if (c->echoed[i] != BYTES)
			return false;
	return true;
}

/* ---- Ring mode ---- */

static void
echo_flush(struct sst_ring_client *c, int h, struct echo_handle *e)
{
	while (e->n > 0 && sst_ring_write(c, h, e->q[e->head], e->flags[e->head]) == 0) {
		e->head = (e->head + 1) % QUEUE;
		e->n--;
	}
	if (e->n == 0 && e->end && !e->shut && sst_ring_shutdown(c, h) == 0)
		e->shut = true;
}

static void
server_event(struct side *sd, uint16_t w, const struct sst_ring_event *ev)
{
	struct sst_ring_client *c = sd->c[w];
	int h = (int)ev->handle;
	struct echo_handle *e = &sd->hs[w][h & (HANDLES - 1)];

	switch (ev->type) {
	case SST_RING_EV_ACCEPTED:
		memset(e, 0, sizeof(*e));
		sd->accepted++;
		break;
	case SST_RING_EV_DATA:
		/* Zero copy: the received mbuf goes back as it came. */
		CU_ASSERT_FATAL(e->n < QUEUE);
		e->q[(e->head + e->n) % QUEUE] = ev->m;
		e->flags[(e->head + e->n) % QUEUE] =
			ev->flags & SST_RING_EV_F_MESSAGE ? SST_WRITE_MESSAGE : 0;
		e->n++;
		echo_flush(c, h, e);
		break;
	case SST_RING_EV_WRITABLE:
		echo_flush(c, h, e);
		break;
	case SST_RING_EV_END:
		e->end = true;
		echo_flush(c, h, e);
		break;
	case SST_RING_EV_CLOSED:
		sst_ring_close(c, h);
		break;
	case SST_RING_EV_FREED:
		for (uint32_t k = 0; k < e->n; k++)
			rte_pktmbuf_free(e->q[(e->head + k) % QUEUE]);
		memset(e, 0, sizeof(*e));
		sd->freed++;
		break;
	default:
		break;
	}
}

static int
stream_of(const struct side *sd, int h)
{
	for (int i = 0; i < STREAMS; i++)
		if (sd->h[i] == h)
			return i;
	return -1;
}

static void
client_event(struct side *sd, const struct sst_ring_event *ev)
{
	int i = stream_of(sd, (int)ev->handle);

	switch (ev->type) {
	case SST_RING_EV_CONNECTED:
		CU_ASSERT_EQUAL(ev->err, 0);
		sd->connected += ev->err == 0;
		break;
	case SST_RING_EV_DATA:
		CU_ASSERT_FATAL(i >= 0);
		check(sd, i, ev->m);
		break;
	case SST_RING_EV_CLOSED:
		if (i >= 0) {
			sst_ring_close(sd->c[sd->owner], (int)ev->handle);
			sd->h[i] = -sd->h[i]; /* closed: only FREED may follow */
		}
		break;
	case SST_RING_EV_FREED:
		sd->streams_freed++;
		break;
	case SST_RING_EV_DATAGRAM:
		rte_pktmbuf_free(ev->m);
		break;
	default:
		break;
	}
}

static void
client_write(struct side *sd)
{
	struct sst_ring_client *c = sd->c[sd->owner];

	for (int i = 0; i < STREAMS; i++) {
		while (sd->written[i] < BYTES && sst_ring_write_credit(c, sd->h[i]) > 0) {
			uint32_t len = (uint32_t)RTE_MIN(
				1 + sd->written[i] % 1333, BYTES - sd->written[i]);
			struct rte_mbuf *m = chunk(i, sd->written[i], len);

			if (m == NULL)
				return;
			if (sst_ring_write(c, sd->h[i], m, 0) != 0) {
				rte_pktmbuf_free(m);
				break;
			}
			sd->written[i] += len;
		}
		if (sd->written[i] == BYTES && !sd->shut[i] && sst_ring_shutdown(c, sd->h[i]) == 0)
			sd->shut[i] = true;
	}
}

static void
drain_events(struct side *sd)
{
	struct sst_ring_event ev[32];

	for (uint16_t w = 0; w < sst_engine_workers(sd->e); w++) {
		int n;

		while ((n = sst_ring_poll(sd->c[w], ev, RTE_DIM(ev))) > 0)
			for (int k = 0; k < n; k++) {
				if (sd->server)
					server_event(sd, w, &ev[k]);
				else
					client_event(sd, &ev[k]);
			}
	}
}

/* ---- Embedded mode ---- */

static struct sst_test_echoes echoes;

static void
emb_echo(struct sst_stream *s, sst_time_t now)
{
	sst_test_echo(&echoes, s, now);
}

static void
emb_accepted(void *ctx, struct sst_stream *parent, struct sst_stream *s, void *svc, sst_time_t now)
{
	struct side *sd = ctx;

	(void)parent;
	(void)svc;
	sd->accepted++;
	emb_echo(s, now);
}

static void
emb_readable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct side *sd = ctx;
	struct sst_stream_data d[32];
	int k;

	if (sd->server) {
		emb_echo(s, now);
		return;
	}
	for (int i = 0; i < STREAMS; i++)
		if (sd->s[i] == s)
			while ((k = sst_stream_read(s, d, 32, now)) > 0)
				for (int j = 0; j < k; j++)
					check(sd, i, d[j].m);
}

static void
emb_writable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct side *sd = ctx;

	if (sd->server)
		emb_echo(s, now);
}

static const struct sst_stream_ops emb_stream_ops = {
	.accepted = emb_accepted,
	.readable = emb_readable,
	.writable = emb_writable,
};

static void
emb_peer_ready(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	struct side *sd = ctx;

	(void)ep;
	sd->peer = peer;
}

static void
emb_app_poll(void *ctx, struct sst_worker *w, sst_time_t now)
{
	struct side *sd = ctx;

	if (sd->server)
		return;
	if (!sd->connect_sent && sst_engine_worker(sd->e, sd->owner) == w) {
		CU_ASSERT_EQUAL(
			sst_worker_connect(w, &sd->target,
				secure ? SST_NEGO_MODE_SECURE : SST_NEGO_MODE_CHECKSUM, now),
			0);
		sd->connect_sent = true;
	}
	if (sd->peer == NULL)
		return;
	for (int i = 0; i < STREAMS; i++) {
		if (sd->s[i] == NULL) {
			sd->s[i] = sst_stream_connect(sd->peer, "echo", "modes", now);
			CU_ASSERT_FATAL(sd->s[i] != NULL);
		}
		while (sd->written[i] < BYTES) {
			uint32_t len = (uint32_t)RTE_MIN(
				1 + sd->written[i] % 1333, BYTES - sd->written[i]);
			struct rte_mbuf *m = chunk(i, sd->written[i], len);

			if (m == NULL)
				return;
			if (sst_stream_write(sd->s[i], m, 0, now) < 0) {
				rte_pktmbuf_free(m);
				break;
			}
			sd->written[i] += len;
		}
		if (sd->written[i] == BYTES && !sd->shut[i]) {
			sst_stream_shutdown(sd->s[i], now);
			sd->shut[i] = true;
		}
	}
}

static const struct sst_worker_ops emb_worker_ops = {
	.peer_ready = emb_peer_ready,
	.app_poll = emb_app_poll,
};

/* ---- The scenario ---- */

static void
side_init(struct side *sd, struct links *l, int s, bool ring_mode)
{
	struct sst_engine_params ep = {.size = sizeof(ep), .workers = l->workers, .mbufs = 8191};

	memset(sd, 0, sizeof(*sd));
	sd->server = s == 0;
	ep.driver = l->driver;
	ep.driver_confs = l->confs[s];
	if (strcmp(l->driver, "ethdev") == 0) {
		/* net_ring ports have no address of their own. */
		ep.net.mac = (struct rte_ether_addr){{0x02, 0, 0, 0, 0x4d, (uint8_t)(1 + s)}};
		ep.net.ipv4 = sst_net_addr4(10, 8, 0, (uint8_t)(1 + s));
		ep.net.ipv4_prefix_len = 24;
		ep.local.addr = ep.net.ipv4;
		ep.local.port = 4433;
	}
	memset(ep.nego.secret, sd->server ? 0x5e : 0xc1, sizeof(ep.nego.secret));
	if (secure) {
		uint8_t seed[32];

		memset(seed, sd->server ? 0x51 : 0xc5, sizeof(seed));
		sst_secure_identity_from_seed(&sd->id, seed);
		sd->cfg.size = sizeof(sd->cfg);
		sd->cfg.identity = &sd->id;
		sd->cfg.policy = SST_SECURE_TOFU;
		sst_secure_suites_default(&sd->cfg, true, false);
		sd->cfg.random = sst_secure_random_sodium;
		ep.nego.secure = &sd->cfg;
	}
	ep.nego.ulp_caps = SST_NEGO_CAP_ALL;
	ep.stream.name = sd->server ? "msrv" : "mcli";
	ep.stream.clone_pool = data;
	ep.stream.max_streams = 256;
	ep.stream.max_tx_buffers = 64;
	ep.stream.max_rx_buffers = 64;
	ep.stream.max_sids = 256;
	ep.ring_mode = ring_mode;
	ep.channel_packet_limit = packet_limit;
	ep.stream.ops = &emb_stream_ops;
	ep.stream.ctx = sd;
	ep.ops = &emb_worker_ops;
	ep.ctx = sd;
	sd->e = sst_engine_create(&ep);
	CU_ASSERT_FATAL(sd->e != NULL);
	for (uint16_t w = 0; w < l->workers; w++) {
		if (ring_mode) {
			sd->c[w] = sst_ring_client_create(sst_engine_ring_agent(sd->e, w), NULL);
			CU_ASSERT_FATAL(sd->c[w] != NULL);
			if (sd->server)
				CU_ASSERT_FATAL(sst_ring_listen(sd->c[w], "echo", "modes",
							SST_RING_SUBSTREAMS_ACCEPT) > 0);
		} else if (sd->server) {
			CU_ASSERT_FATAL(sst_stream_listen(
						sst_worker_stream_host(sst_engine_worker(sd->e, w)),
						"echo", "modes", NULL) == 0);
		}
	}
}

static void
poll_all(struct side *a, struct side *b)
{
	for (uint16_t w = 0; w < sst_engine_workers(a->e); w++)
		sst_engine_poll(a->e, w);
	for (uint16_t w = 0; w < sst_engine_workers(b->e); w++)
		sst_engine_poll(b->e, w);
}

/* Streams not yet finished and freed on a side (all workers). */
static uint64_t
live_streams(struct side *sd)
{
	uint64_t n = 0;

	for (uint16_t w = 0; w < sst_engine_workers(sd->e); w++)
		n += sst_stream_host_stats(sst_worker_stream_host(sst_engine_worker(sd->e, w)))
			     ->streams_live;
	return n;
}

static void
run(struct links *l, bool ring_mode, const char *what)
{
	static struct side server, client;
	unsigned int before = rte_mempool_avail_count(data);
	sst_time_t start, deadline;

	side_init(&server, l, 0, ring_mode);
	side_init(&client, l, 1, ring_mode);
	sst_engine_local(server.e, &client.target);
	client.owner = sst_engine_owner(client.e, &client.target);
	if (ring_mode)
		for (int i = 0; i < STREAMS; i++) {
			client.h[i] = sst_ring_connect(client.c[client.owner], &client.target,
				"echo", "modes",
				secure ? SST_NEGO_MODE_SECURE : SST_NEGO_MODE_CHECKSUM);
			CU_ASSERT_FATAL(client.h[i] > 0);
		}
	start = sst_engine_now();
	deadline = start + 60 * SST_NSEC_PER_SEC;
	while (!all_echoed(&client) && sst_engine_now() < deadline) {
		poll_all(&server, &client);
		if (ring_mode) {
			drain_events(&server);
			drain_events(&client);
			client_write(&client);
		}
	}
	printf("\n  %s: %d streams x %u bytes echoed in %.2f s, %llu bad\n", what, STREAMS, BYTES,
		(double)(sst_engine_now() - start) / 1e9, (unsigned long long)client.bad);
	CU_ASSERT_TRUE(all_echoed(&client));
	CU_ASSERT_EQUAL(client.bad, 0);
	CU_ASSERT_EQUAL(server.accepted, STREAMS);
	if (ring_mode)
		CU_ASSERT_EQUAL(client.connected, STREAMS);
	if (secure) {
		const struct sst_nego_stats *ns =
			sst_worker_nego_stats(sst_engine_worker(client.e, client.owner));

		printf("  secure: %llu packets rode in SecI2 copies, %llu confirmed by the "
		       "responder's packets\n",
			(unsigned long long)ns->tx_packet, (unsigned long long)ns->confirmed);
		CU_ASSERT(ns->tx_packet > 0);
		/* One per channel: replacements are negotiated the same way. */
		if (packet_limit == 0)
			CU_ASSERT_EQUAL(ns->confirmed, 1);
		CU_ASSERT(ns->confirmed >= 1);
	} else {
		uint64_t made = 0, heard = 0;

		/* The server hears each checksum channel's first packet, so
		 * none stays half-open for its load detection. */
		for (uint16_t w = 0; w < l->workers; w++) {
			const struct sst_nego_stats *ns =
				sst_worker_nego_stats(sst_engine_worker(server.e, w));

			made += ns->established_responder;
			heard += ns->chk_heard;
		}
		printf("  checksum: the server heard %llu of its %llu channels\n",
			(unsigned long long)heard, (unsigned long long)made);
		CU_ASSERT(made >= 1);
		CU_ASSERT_EQUAL(heard, made);
	}
	if (packet_limit != 0) {
		uint64_t replaced = 0, made = 0;

		for (uint16_t w = 0; w < l->workers; w++) {
			replaced +=
				sst_worker_stats(sst_engine_worker(client.e, w))
					->channels_replaced +
				sst_worker_stats(sst_engine_worker(server.e, w))->channels_replaced;
			made += sst_worker_stats(sst_engine_worker(client.e, w))->channels_made;
		}
		printf("  %llu replacements asked, %llu channels made by the client\n",
			(unsigned long long)replaced, (unsigned long long)made);
		CU_ASSERT(replaced >= 1);
		CU_ASSERT(made >= 2);
	}
	/* Wind down: close everything, then give every handle back. */
	for (int i = 0; i < STREAMS; i++) {
		if (ring_mode && client.h[i] > 0)
			sst_ring_close(client.c[client.owner], client.h[i]);
		else if (!ring_mode && client.s[i] != NULL)
			sst_stream_close(client.s[i], sst_engine_now());
	}
	deadline = sst_engine_now() + 10 * SST_NSEC_PER_SEC;
	while (!ring_mode && (live_streams(&client) > 0 || live_streams(&server) > 0) &&
		sst_engine_now() < deadline)
		poll_all(&server, &client);
	if (!ring_mode) {
		if (live_streams(&client) + live_streams(&server) != 0)
			printf("  streams still live: client %llu, server %llu\n",
				(unsigned long long)live_streams(&client),
				(unsigned long long)live_streams(&server));
		CU_ASSERT_EQUAL(live_streams(&client) + live_streams(&server), 0);
	}
	while (ring_mode && (client.streams_freed < STREAMS || server.freed < STREAMS) &&
		sst_engine_now() < deadline) {
		poll_all(&server, &client);
		drain_events(&server);
		drain_events(&client);
	}
	if (ring_mode) {
		CU_ASSERT_EQUAL(client.streams_freed, STREAMS);
		CU_ASSERT_EQUAL(server.freed, STREAMS);
		for (uint16_t w = 0; w < l->workers; w++) {
			struct side *sides[2] = {&server, &client};

			for (int k = 0; k < 2; k++) {
				struct side *sd = sides[k];

				while (sst_ring_client_detach(sd->c[w]) == -EINPROGRESS)
					poll_all(&server, &client);
				sst_ring_client_destroy(sd->c[w]);
			}
		}
	}
	sst_engine_stop(client.e, SST_NSEC_PER_SEC);
	sst_engine_stop(server.e, SST_NSEC_PER_SEC);
	sst_engine_destroy(client.e);
	sst_engine_destroy(server.e);
	sst_secure_identity_wipe(&client.id);
	sst_secure_identity_wipe(&server.id);
	links_free(l);
	CU_ASSERT_EQUAL(echoes.lost, 0);
	sst_test_echo_fini(&echoes);
	/* Every data mbuf came back (the links' own are gone with them). */
	if (rte_mempool_avail_count(data) != before)
		printf("  %d data mbufs missing\n",
			(int)before - (int)rte_mempool_avail_count(data));
	CU_ASSERT_EQUAL(rte_mempool_avail_count(data), before);
}

static void
test_ring_mode_over_net_ring(void)
{
	struct links l;

	links_net_ring(&l);
	run(&l, true, "ring mode, net_ring frames, 2 workers a side");
}

static void
test_ring_mode_over_lossy_simpair(void)
{
	struct links l;

	links_lossy_simpair(&l);
	run(&l, true, "ring mode, simpair with 2% loss");
}

static void
test_embedded_mode_over_lossy_simpair(void)
{
	struct links l;

	links_lossy_simpair(&l);
	run(&l, false, "embedded mode, simpair with 2% loss");
}

/* Secure mode (AES-128-GCM) under loss: the initiator's first packets
 * ride in copies of SecI2 until the responder shows it has one. */
static void
test_ring_mode_secure_over_lossy_simpair(void)
{
	struct links l;

	links_lossy_simpair(&l);
	secure = true;
	run(&l, true, "ring mode, secure, simpair with 2% loss");
	secure = false;
}

static void
test_embedded_mode_over_net_ring(void)
{
	struct links l;

	links_net_ring(&l);
	run(&l, false, "embedded mode, net_ring frames, 2 workers a side");
}

/* Secure channels (AES-128-GCM) limited to 256 packets between sharded
 * engines: each is replaced on the worker that owns it, its streams move
 * over, and every byte is echoed. */
static void
test_ring_mode_secure_replaced_over_net_ring(void)
{
	struct links l;

	links_net_ring(&l);
	secure = true;
	packet_limit = 256;
	run(&l, true, "ring mode, secure, 256 packets per channel, net_ring, 2 workers a side");
	packet_limit = 0;
	secure = false;
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_ring_mode_over_net_ring),
	SST_TEST(test_ring_mode_over_lossy_simpair),
	SST_TEST(test_ring_mode_secure_over_lossy_simpair),
	SST_TEST(test_embedded_mode_over_net_ring),
	SST_TEST(test_embedded_mode_over_lossy_simpair),
	SST_TEST(test_ring_mode_secure_replaced_over_net_ring),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_engine_modes") < 0)
		return 1;
	data = sst_test_pool("modes_data", 32767, 2048);
	if (data == NULL)
		return 1;
	return sst_test_run("engine_modes", cases);
}
