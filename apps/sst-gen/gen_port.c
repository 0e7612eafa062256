/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen client over a DPDK port (--port): an engine of --workers workers,
 * one per queue of the port, answers for every channel's source endpoint,
 * the --src address and port ranges (the workers' extra local endpoints,
 * docs/engine.md "Local endpoints"), so that one process holds as many
 * channels as its memory does, each another host to the server. A
 * channel's pair of endpoints belongs to the worker RSS would give its
 * packets (sst_engine_owner() of the tagged endpoint), which connects it
 * on its own lcore when the EAL gives enough (gen_lcore.c). The workload logic is
 * gen_client.c's; here are the port, the engine and the way back from an
 * endpoint pair to its channel.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <sodium.h>

#include "gen_client.h"
#include "sst_engine.h"

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

/* Each worker's pass runs its own shard (gen_lcore.c): the channels it
 * owns are connected and run there, on its lcore or, with fewer lcores
 * than workers, on the main thread in turn. */
static void
app_poll(void *ctx, struct sst_worker *w, sst_time_t now)
{
	struct gen_client *g = ctx;

	for (uint16_t k = 0; k < g->nsh; k++)
		if (sst_engine_worker(g->e, k) == w) {
			gen_shard_pass(&g->sh[k], now);
			return;
		}
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
	uint16_t workers = (uint16_t)(c->workers != 0 ? c->workers : 1);
	struct sst_engine_params ep = {.size = sizeof(ep), .workers = workers};
	uint32_t slots = 0;

	if (!rte_eth_dev_is_valid_port(tp->port_id)) {
		fprintf(stderr, "sst-gen: no DPDK port %u: give one to the EAL before '--'\n",
			tp->port_id);
		return -1;
	}
	for (uint16_t q = 0; q < workers; q++) {
		g->eth[q] = (struct sst_ethdev_link_conf){
			.port_id = tp->port_id, .queue_id = q, .rx_timestamp = true};
		g->eth_ptr[q] = &g->eth[q];
	}
	for (uint32_t i = 0; i < g->nch; i++)
		slots += g->ch[i].wl->concurrent;
	/* The engine sets the port up with a queue per worker and a shard
	 * map that names the owner of every pair of endpoints (docs/engine.md,
	 * "Local endpoints"): with RSS each packet arrives at its owner;
	 * without (a memif takes queue i of the other end to our queue i) the
	 * worker that received it hands it to the owner. */
	ep.driver = "ethdev";
	ep.driver_confs = g->eth_ptr;
	ep.net.size = sizeof(ep.net);
	/* net_ring ports have no address of their own. */
	if (rte_eth_macaddr_get(tp->port_id, &ep.net.mac) != 0 ||
		!rte_is_valid_assigned_ether_addr(&ep.net.mac))
		ep.net.mac = (struct rte_ether_addr){{0x02, 0x53, 0x47, 0, 0, tp->ip.bytes[3]}};
	ep.net.ipv4 = tp->ip;
	ep.net.ipv4_prefix_len = tp->prefix_len;
	ep.net.ipv4_gateway = tp->gateway;
	ep.net.ipv4_count = c->src_addrs;
	ep.local.addr = tp->ip;
	ep.local.port = own_port(c);
	ep.local_port_first = c->local.port;
	ep.local_ports = c->src_ports;
	ep.mbufs = c->mbufs != 0 ? c->mbufs : 65535;
	/* The endpoints are hosts of their own to the server, each with its
	 * own channel: one secret serves them all (the workers advertise no
	 * host instance for them). Each worker may start HANDSHAKES. */
	ep.nego.max_initiating = HANDSHAKES;
	ep.nego.max_responding = 16;
	ep.stream.name = "gport";
	/* Per worker: one may hold every channel's slots (the spread over
	 * workers is the hash's), and control blocks cost only when used. */
	ep.stream.max_streams = slots + STREAMS_SLACK;
	ep.stream.max_tx_buffers = slots + 64;
	ep.stream.max_rx_buffers = slots + 64;
	ep.stream.initial_buffers = 64;
	ep.stream.peer_usids = 16;
	/* --attack stream-slots holds streams by the thousand; optimistic-ack:
	 * every channel forges its acks (gen_attack.c). */
	if (c->attack == GEN_ATTACK_STREAM_SLOTS) {
		ep.stream.max_streams = RTE_MAX(ep.stream.max_streams, 1u << 16);
		ep.stream.peer_usids = 0; /* as many a channel */
	}
	ep.ack_forge_for_testing = gen_attack_ack_forge(g);
	ep.ack_forge_ctx = g;
	gen_host_params(g, &ep.nego, &ep.stream, g);
	ep.ops = &port_ops;
	ep.ctx = g;
	ep.idle_timeout = SST_TIME_NEVER;
	g->e = sst_engine_create(&ep);
	sodium_memzero(ep.nego.secret, sizeof(ep.nego.secret));
	if (g->e == NULL) {
		fprintf(stderr, "sst-gen: port %u, %u worker%s: %s\n", tp->port_id, workers,
			workers == 1 ? "" : "s", rte_strerror(rte_errno));
		return -1;
	}
	g->nw = workers;
	gen_clock_init(&g->clock, tp->port_id); /* the port's stamps if it has them */
	return 0;
}

int
gen_port_owner(struct gen_client *g, const struct sst_net_endpoint *src)
{
	struct sst_net_endpoint pair;

	if (sst_worker_ep_join(src, &g->c->server, &pair) < 0)
		return -1;
	return sst_engine_owner(g->e, &pair);
}

void
gen_port_poll(struct gen_client *g, sst_time_t now)
{
	for (uint16_t i = 0; i < g->nw; i++)
		sst_engine_poll_at(g->e, i, now);
}

uint64_t
gen_port_open_channels(struct gen_client *g)
{
	uint64_t open = 0;

	for (uint16_t i = 0; i < g->nw; i++)
		open += sst_worker_stats(sst_engine_worker(g->e, i))->channels_open;
	return open;
}

void
gen_port_second(struct gen_client *g, sst_time_t now)
{
	struct rte_eth_link link;

	if (g->link_warned || now - g->t_start < 3 * SST_NSEC_PER_SEC ||
		rte_eth_link_get_nowait(g->c->port.port_id, &link) != 0 || link.link_status)
		return;
	/* A memif whose ends have different queue counts never comes up
	 * (its server drops the connection), and nothing else says so. */
	fprintf(stderr,
		"sst-gen: port %u: the link is still down after 3 s (a net_memif's two ends "
		"need the same --workers)\n",
		g->c->port.port_id);
	g->link_warned = true;
}

void
gen_port_close(struct gen_client *g)
{
	if (g->e == NULL)
		return;
	sst_engine_stop(g->e, 0);
	sst_engine_destroy(g->e);
	g->e = NULL;
	g->nw = 0;
}
