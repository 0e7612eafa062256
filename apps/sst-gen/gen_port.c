/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen client over a DPDK port (--port): one worker on the port's first
 * queue answers for every channel's source endpoint, the --src address and
 * port ranges (the worker's extra local endpoints, docs/engine.md "Local
 * endpoints"), so that one process holds as many channels as its memory
 * does, each another host to the server. The workload logic is
 * gen_client.c's; here are the port, the worker and the way back from an
 * endpoint pair to its channel.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>

#include "gen_client.h"
#include "sst_ethdev.h"

enum {
	HANDSHAKES = 256, /**< negotiations under way at once */
	STREAMS_SLACK = 1024,
};

static uint32_t
addr4_u32(const struct sst_net_addr *a)
{
	return (uint32_t)a->bytes[0] << 24 | (uint32_t)a->bytes[1] << 16 |
	       (uint32_t)a->bytes[2] << 8 | a->bytes[3];
}

struct gen_chan *
gen_port_chan(struct gen_client *g, const struct sst_net_endpoint *ep)
{
	const struct gen_conf *c = g->c;
	struct sst_net_endpoint local;
	uint32_t a, p, i;

	if (!sst_worker_ep_split(ep, &local, NULL))
		return NULL;
	/* gen_source_of() backwards: address offset, then port offset. */
	a = addr4_u32(&local.addr) - addr4_u32(&c->local.addr);
	p = (uint32_t)(local.port - c->local.port);
	if (a >= c->src_addrs || p >= c->src_ports)
		return NULL;
	i = a * c->src_ports + p;
	return i < g->nch ? &g->ch[i] : NULL;
}

static void
peer_ready(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	struct gen_chan *ch = gen_port_chan(ctx, ep);

	if (ch != NULL)
		gen_chan_ready(ch, peer);
}

static void
peer_gone(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	struct gen_chan *ch = gen_port_chan(ctx, ep);

	if (ch != NULL)
		gen_chan_gone(ch, peer);
}

static void
connect_failed(void *ctx, const struct sst_net_endpoint *ep, int err)
{
	struct gen_chan *ch = gen_port_chan(ctx, ep);

	(void)err;
	if (ch != NULL)
		gen_chan_failed(ch);
}

/* The channels that may open streams get their turn (gen_active.c). */
static void
app_poll(void *ctx, struct sst_worker *w, sst_time_t now)
{
	struct gen_client *g = ctx;

	(void)w;
	gen_active_poll(g, now);
}

static const struct sst_worker_ops port_ops = {
	.peer_ready = peer_ready,
	.peer_gone = peer_gone,
	.connect_failed = connect_failed,
	.app_poll = app_poll,
};

/* The worker's own endpoint: a port outside the channels' range. */
static uint16_t
own_port(const struct gen_conf *c)
{
	uint32_t first = c->local.port, end = first + c->src_ports;

	if (4433 < first || 4433 >= end)
		return 4433;
	return (uint16_t)(end <= UINT16_MAX ? end : first - 1);
}

int
gen_port_open(struct gen_client *g)
{
	const struct gen_conf *c = g->c;
	const struct tool_port *tp = &c->port;
	struct rte_mempool *pools[1] = {g->pool};
	struct sst_ethdev_port_conf pc = {.size = sizeof(pc), .nb_queues = 1, .pools = pools};
	struct sst_ethdev_port_info info = {0};
	struct sst_ethdev_link_conf ec = {.port_id = tp->port_id, .queue_id = 0};
	struct sst_link_conf lc = {
		.size = sizeof(lc), .driver = "ethdev", .pool = g->pool, .driver_conf = &ec};
	struct sst_worker_params wp = {.size = sizeof(wp), .pool = g->pool};
	uint32_t slots = 0;
	int rc;

	if (!rte_eth_dev_is_valid_port(tp->port_id)) {
		fprintf(stderr, "sst-gen: no DPDK port %u: give one to the EAL before '--'\n",
			tp->port_id);
		return -1;
	}
	rc = sst_ethdev_port_setup(tp->port_id, &pc, &info);
	if (rc < 0) {
		fprintf(stderr, "sst-gen: port %u: %s %s\n", tp->port_id, strerror(-rc), info.err);
		return -1;
	}
	g->link = sst_link_open(&lc);
	if (g->link == NULL) {
		fprintf(stderr, "sst-gen: port %u: no link\n", tp->port_id);
		return -1;
	}
	for (uint32_t i = 0; i < g->nch; i++)
		slots += g->ch[i].wl->concurrent;
	wp.link = g->link;
	wp.net.size = sizeof(wp.net);
	wp.net.mac = info.mac;
	/* net_ring ports have no address of their own. */
	if (!rte_is_valid_assigned_ether_addr(&wp.net.mac))
		wp.net.mac = (struct rte_ether_addr){{0x02, 0x53, 0x47, 0, 0, tp->ip.bytes[3]}};
	wp.net.ipv4 = tp->ip;
	wp.net.ipv4_prefix_len = tp->prefix_len;
	wp.net.ipv4_gateway = tp->gateway;
	wp.net.ipv4_count = c->src_addrs;
	wp.net.tx_cksum_offload = info.tx_cksum_offload;
	wp.udp_port = own_port(c);
	wp.local_port_first = c->local.port;
	wp.local_ports = c->src_ports;
	/* The endpoints are hosts of their own to the server, each with its
	 * own channel: one secret serves them all (the worker advertises no
	 * host instance for them). */
	wp.nego.max_initiating = HANDSHAKES;
	wp.nego.max_responding = 16;
	wp.stream.name = "gport";
	wp.stream.max_streams = slots + STREAMS_SLACK;
	wp.stream.max_tx_buffers = slots + 64;
	wp.stream.max_rx_buffers = slots + 64;
	wp.stream.initial_buffers = 64;
	wp.stream.peer_usids = 16;
	g->w = gen_worker_create(g, &wp, &port_ops, g);
	if (g->w == NULL) {
		fprintf(stderr, "sst-gen: the port's worker: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

void
gen_port_close(struct gen_client *g)
{
	if (g->w != NULL)
		sst_worker_destroy(g->w);
	if (g->link != NULL) {
		sst_link_close(g->link);
		sst_ethdev_port_stop(g->c->port.port_id);
	}
	g->w = NULL;
	g->link = NULL;
}
