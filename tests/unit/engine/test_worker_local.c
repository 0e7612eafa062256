/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One worker answering for many local endpoints (worker_local.c): a client
 * worker on a net_ring port holds channels from N local endpoints (two
 * addresses, N/2 ports each) to one server worker on the other port of the
 * pair. The server must see N peers, one per endpoint, all up at once;
 * the client N peers, one per local endpoint; then a stream on every
 * channel carries a request and its echo, checked byte for byte against
 * the channel it was sent on. And the parameters and endpoints that must
 * be refused are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "echo_pair.h"
#include "sst_engine.h"
#include "sst_ethdev.h"
#include "sst_link.h"
#include "sst_test.h"
#include "sst_test_eal.h"
#include "sst_worker.h"

enum {
	NCHANNELS = 1000,
	WAVE = 128,    /**< negotiations and streams under way at once */
	REQUEST = 300, /**< request bytes; the response is the echo */
	PORTS = 500,   /**< local ports per address: two addresses */
	FIRST = 10000, /**< the first local port */
	SERVER_PORT = 4433,
};

static struct rte_mempool *pool, *clones, *rx_pools[2];
static uint16_t ports[2];

static struct echo_side client, server;

static struct sst_net_endpoint
server_ep(void)
{
	return (struct sst_net_endpoint){.addr = sst_net_addr4(10, 9, 0, 1), .port = SERVER_PORT};
}

/* Local endpoint i of the client: 10.9.0.2 + i / PORTS, port FIRST + i % PORTS. */
static struct sst_net_endpoint
local_ep(uint32_t i)
{
	return (struct sst_net_endpoint){.addr = sst_net_addr4(10, 9, 0, (uint8_t)(2 + i / PORTS)),
		.port = (uint16_t)(FIRST + i % PORTS)};
}

static bool
local_index(const struct sst_net_endpoint *l, uint32_t *i)
{
	if (l->addr.family != SST_NET_IPV4 || l->addr.bytes[3] < 2 || l->port < FIRST ||
		l->port >= FIRST + PORTS)
		return false;
	*i = (uint32_t)(l->addr.bytes[3] - 2) * PORTS + (uint32_t)(l->port - FIRST);
	return *i < NCHANNELS;
}

/* The client's peers are told apart by the local endpoint of the pair. */
static void
peer_ready(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	struct echo_side *sd = ctx;
	struct sst_net_endpoint local, remote;
	uint32_t i;

	if (sd->server)
		return;
	if (!sst_worker_ep_split(ep, &local, &remote) || !local_index(&local, &i) ||
		remote.port != SERVER_PORT || sd->peers[i] != NULL) {
		sd->strays++;
		return;
	}
	sd->peers[i] = peer;
}

static const struct sst_worker_ops worker_ops = {
	.peer_ready = peer_ready, .connect_failed = echo_connect_failed};

static struct sst_link *
open_link(uint16_t port)
{
	struct sst_ethdev_link_conf ec = {.port_id = port, .queue_id = 0};
	struct sst_link_conf lc = {
		.size = sizeof(lc), .driver = "ethdev", .pool = pool, .driver_conf = &ec};

	return sst_link_open(&lc);
}

static void
worker_params(struct sst_worker_params *wp, struct echo_side *sd, int index)
{
	memset(wp, 0, sizeof(*wp));
	wp->size = sizeof(*wp);
	wp->pool = pool;
	wp->link = sd->link;
	wp->net.size = sizeof(wp->net);
	/* net_ring ports have no address of their own. */
	wp->net.mac = (struct rte_ether_addr){{0x02, 0, 0, 0, 0x09, (uint8_t)(index + 1)}};
	wp->net.ipv4 = sst_net_addr4(10, 9, 0, (uint8_t)(index + 1));
	wp->net.ipv4_prefix_len = 24;
	wp->udp_port = SERVER_PORT;
	memset(wp->nego.secret, index == 0 ? 0x5e : 0xc1, sizeof(wp->nego.secret));
	wp->nego.ulp_caps = SST_NEGO_CAP_ALL;
	wp->nego.max_initiating = WAVE;
	wp->nego.max_responding = NCHANNELS + WAVE;
	wp->stream.name = index == 0 ? "wl_srv" : "wl_cli";
	wp->stream.clone_pool = clones;
	wp->stream.max_streams = NCHANNELS + WAVE;
	wp->stream.max_tx_buffers = WAVE + 64;
	wp->stream.max_rx_buffers = WAVE + 64;
	wp->stream.peer_usids = 16;
	wp->stream.ops = &echo_stream_ops;
	wp->stream.ctx = sd;
	wp->ops = &worker_ops;
	wp->ctx = sd;
	/* Channels stay until the end: no idle timeout while the others run. */
	wp->idle_timeout = SST_TIME_NEVER;
}

static void
side_init(struct echo_side *sd, int index)
{
	struct sst_worker_params wp;

	sd->server = index == 0;
	sd->request = REQUEST;
	sd->link = open_link(ports[index]);
	CU_ASSERT_FATAL(sd->link != NULL);
	worker_params(&wp, sd, index);
	/* The client's channels stay half-open until their streams start,
	 * after all are up: 1,000 at once, from two addresses. That is not a
	 * flood here, but a server under load would limit the setups per
	 * source address (docs/engine.md, "Local endpoints"). */
	if (sd->server)
		wp.nego.load_high = 2 * NCHANNELS;
	if (!sd->server) {
		wp.net.ipv4_count = 2;
		wp.local_port_first = FIRST;
		wp.local_ports = PORTS;
	}
	sd->w = sst_worker_create(&wp);
	if (sd->w == NULL)
		printf("\n  worker: %s\n", rte_strerror(rte_errno));
	CU_ASSERT_FATAL(sd->w != NULL);
	if (sd->server)
		CU_ASSERT_FATAL(sst_stream_listen(
					sst_worker_stream_host(sd->w), "echo", "test", NULL) == 0);
}

static void
test_many_local_endpoints(void)
{
	sst_time_t deadline;
	uint32_t asked = 0, up = 0;
	const struct sst_worker_stats *ss, *cs;

	client.peers = calloc(NCHANNELS, sizeof(*client.peers));
	client.echoed = calloc(NCHANNELS, sizeof(*client.echoed));
	CU_ASSERT_FATAL(client.peers != NULL && client.echoed != NULL);
	side_init(&server, 0);
	side_init(&client, 1);
	ss = sst_worker_stats(server.w);
	cs = sst_worker_stats(client.w);
	deadline = sst_engine_now() + 60 * SST_NSEC_PER_SEC;
	while (up < NCHANNELS && sst_engine_now() < deadline && client.failed == 0) {
		while (asked < NCHANNELS && asked - up < WAVE) {
			struct sst_net_endpoint l = local_ep(asked), s = server_ep();
			int rc = sst_worker_connect_from(
				client.w, &l, &s, SST_NEGO_MODE_CHECKSUM, sst_engine_now());

			if (rc != 0)
				printf("\n  connect from endpoint %u: %s\n", asked, strerror(-rc));
			CU_ASSERT_FATAL(rc == 0);
			asked++;
		}
		echo_poll(&server, &client);
		/* Paced by the client's count: the server's runs ahead of it
		 * (a channel is up there before its ChkR1 arrives). */
		up = (uint32_t)RTE_MIN(ss->channels_open, cs->channels_open);
	}
	printf("\n  %u channels up from %u local endpoints of one worker: server %llu peers "
	       "at %llu endpoints, client %llu peers; %llu frames to no endpoint of ours\n",
		up, asked, (unsigned long long)ss->peers_open, (unsigned long long)ss->endpoints,
		(unsigned long long)cs->peers_open, (unsigned long long)cs->rx_wrong_port);
	CU_ASSERT_EQUAL(up, NCHANNELS);
	CU_ASSERT_EQUAL(client.failed, 0);
	CU_ASSERT_EQUAL(client.strays, 0);
	CU_ASSERT_EQUAL(ss->peers_open, NCHANNELS);
	CU_ASSERT_EQUAL(ss->endpoints, NCHANNELS);
	CU_ASSERT_EQUAL(cs->peers_open, NCHANNELS);
	CU_ASSERT_EQUAL(cs->channels_open, NCHANNELS);
	for (uint32_t i = 0; i < NCHANNELS; i++) {
		struct sst_net_endpoint l = local_ep(i);

		CU_ASSERT_PTR_NOT_NULL(client.peers[i]);
		/* The server knows endpoint i as a peer of its own. */
		CU_ASSERT_PTR_NOT_NULL(sst_worker_peer(server.w, &l));
	}
	CU_ASSERT_EQUAL(echo_streams(&server, &client, NCHANNELS, WAVE, pool,
				sst_engine_now() + 60 * SST_NSEC_PER_SEC),
		0);
	printf("  %u of %u requests echoed byte-exact, %u bad bytes\n", client.done, NCHANNELS,
		client.bad);
	CU_ASSERT_EQUAL(client.done, NCHANNELS);
	CU_ASSERT_EQUAL(client.bad, 0);
	CU_ASSERT_EQUAL(ss->peers_open, NCHANNELS);
	CU_ASSERT_EQUAL(ss->rx_no_channel, 0);
	CU_ASSERT_EQUAL(cs->rx_no_channel, 0);
	sst_worker_destroy(client.w);
	sst_worker_destroy(server.w);
	sst_link_close(client.link);
	sst_link_close(server.link);
	free(client.peers);
	free(client.echoed);
}

/* Blocks allocated from the DPDK heap (socket 0: the tests run under
 * --no-huge). */
static unsigned int
heap_allocs(void)
{
	struct rte_malloc_socket_stats st;

	rte_malloc_get_socket_stats(0, &st);
	return st.alloc_count;
}

/* What is refused: ranges that hold udp_port or run past port 65,535,
 * endpoints outside the ranges, a worker without extra endpoints. */
static void
test_refused(void)
{
	struct echo_side sd = {0};
	struct sst_worker_params wp;
	struct sst_worker *w;
	struct sst_net_endpoint s = server_ep(), l = local_ep(0), t, back;
	unsigned int heap_before;

	sd.link = open_link(ports[1]);
	CU_ASSERT_FATAL(sd.link != NULL);
	worker_params(&wp, &sd, 1);
	heap_before = heap_allocs();
	wp.local_port_first = SERVER_PORT - 1;
	wp.local_ports = 2;
	CU_ASSERT_PTR_NULL(sst_worker_create(&wp));
	wp.local_port_first = 65000;
	wp.local_ports = 1000;
	CU_ASSERT_PTR_NULL(sst_worker_create(&wp));
	/* Refused after its network layer was made: that went back too. */
	CU_ASSERT_EQUAL(heap_allocs(), heap_before);
	wp.local_ports = 0;
	w = sst_worker_create(&wp);
	CU_ASSERT_FATAL(w != NULL);
	CU_ASSERT_EQUAL(sst_worker_connect_from(w, &l, &s, SST_NEGO_MODE_CHECKSUM, 0), -EINVAL);
	sst_worker_destroy(w);
	wp.local_port_first = FIRST;
	wp.local_ports = PORTS;
	wp.net.ipv4_count = 2;
	w = sst_worker_create(&wp);
	CU_ASSERT_FATAL(w != NULL);
	l = local_ep(0);
	l.port = FIRST + PORTS; /* past the range */
	CU_ASSERT_EQUAL(sst_worker_connect_from(w, &l, &s, SST_NEGO_MODE_CHECKSUM, 0), -EINVAL);
	l = local_ep(0);
	l.addr.bytes[3] = 4; /* not one of the two addresses */
	CU_ASSERT_EQUAL(sst_worker_connect_from(w, &l, &s, SST_NEGO_MODE_CHECKSUM, 0), -EINVAL);
	l = local_ep(2 * PORTS - 1); /* the last endpoint */
	CU_ASSERT_EQUAL(sst_worker_connect_from(w, &l, &s, SST_NEGO_MODE_CHECKSUM, 0), 0);
	sst_worker_destroy(w);
	sst_link_close(sd.link);
	/* A tagged endpoint comes apart into the two it was made of. */
	CU_ASSERT_FALSE(sst_worker_ep_split(&s, &t, &back));
	CU_ASSERT_EQUAL(t.addr.family, SST_NET_NONE);
	CU_ASSERT_EQUAL(memcmp(&back, &s, sizeof(s)), 0);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_refused),
	SST_TEST(test_many_local_endpoints),
	SST_TEST_END,
};

int
main(void)
{
	struct sst_ethdev_port_conf pc = {.size = sizeof(pc), .nb_queues = 1};

	if (sst_test_eal_init("test_worker_local") < 0)
		return 1;
	pool = sst_test_pool("wl_pool", 16383, 2048 + RTE_PKTMBUF_HEADROOM);
	clones = sst_test_pool("wl_clones", 8191, 0);
	rx_pools[0] = sst_test_pool("wl_rx0", 8191, 2048 + RTE_PKTMBUF_HEADROOM);
	rx_pools[1] = sst_test_pool("wl_rx1", 8191, 2048 + RTE_PKTMBUF_HEADROOM);
	if (pool == NULL || clones == NULL || rx_pools[0] == NULL || rx_pools[1] == NULL ||
		sst_ethdev_ring_pair("wl", 1, &ports[0], &ports[1]) < 0)
		return 1;
	for (int k = 0; k < 2; k++) {
		pc.pools = &rx_pools[k];
		if (sst_ethdev_port_setup(ports[k], &pc, NULL) < 0)
			return 1;
	}
	return sst_test_run("worker_local", cases);
}
