/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker's extra local endpoints (sst_worker_params.local_port_first,
 * docs/engine.md "Local endpoints"): a frame-link worker that answers at
 * many UDP ports (and addresses) as many hosts would, so that one worker
 * holds channels from each of them to one server; the server tells them
 * apart by endpoint, as it tells hosts apart. A peer reached from one of
 * them is keyed by the pair, folded into a tagged endpoint
 * (worker_ep_tagged()); here are the fold, its checks and the connect.
 */
#include <errno.h>
#include <string.h>

#include "sst_worker.h"
#include "worker_internal.h"

static uint32_t
addr4_u32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

void
worker_ep_tag(struct sst_net_endpoint *remote, const struct sst_net_endpoint *local)
{
	memcpy(&remote->addr.bytes[EP_LOCAL_ADDR], local->addr.bytes, 4);
	remote->addr.bytes[EP_LOCAL_PORT] = (uint8_t)(local->port >> 8);
	remote->addr.bytes[EP_LOCAL_PORT + 1] = (uint8_t)local->port;
	remote->addr.bytes[EP_LOCAL_TAG] = 1;
}

int
sst_worker_ep_join(const struct sst_net_endpoint *local, const struct sst_net_endpoint *remote,
	struct sst_net_endpoint *ep)
{
	if (local == NULL || remote == NULL || ep == NULL || local->addr.family != SST_NET_IPV4 ||
		remote->addr.family != SST_NET_IPV4 || worker_ep_tagged(remote))
		return -EINVAL;
	*ep = *remote;
	worker_ep_tag(ep, local);
	return 0;
}

bool
sst_worker_ep_split(const struct sst_net_endpoint *ep, struct sst_net_endpoint *local,
	struct sst_net_endpoint *remote)
{
	bool tagged = worker_ep_tagged(ep);
	struct sst_net_endpoint l = {0}, r = *ep;

	if (tagged) {
		l.addr.family = SST_NET_IPV4;
		memcpy(l.addr.bytes, &ep->addr.bytes[EP_LOCAL_ADDR], 4);
		l.port = (uint16_t)(ep->addr.bytes[EP_LOCAL_PORT] << 8 |
				    ep->addr.bytes[EP_LOCAL_PORT + 1]);
		memset(&r.addr.bytes[4], 0, sizeof(r.addr.bytes) - 4);
	}
	if (local != NULL)
		*local = l;
	if (remote != NULL)
		*remote = r;
	return tagged;
}

int
worker_local_init(struct sst_worker *w)
{
	const struct sst_worker_params *p = &w->p;

	if (p->local_ports == 0)
		return 0;
	/* Frame links only: a datagram link is one socket, one endpoint. A
	 * sharded worker may have them: the shard map hashes a tagged
	 * endpoint by its local half (shard.c), so each pair has one owner
	 * that the dispatch and sst_worker_connect_from() agree on. */
	if (w->net == NULL || p->net.ipv4.family != SST_NET_IPV4 || p->local_port_first == 0 ||
		p->local_port_first + p->local_ports - 1 > UINT16_MAX ||
		(uint32_t)(w->local.port - p->local_port_first) < p->local_ports) {
		WORKER_LOG(ERR,
			"params.local_ports (%u from %u) refused: a frame link with IPv4, a "
			"range within 1..65535 that leaves out udp_port (%u)",
			p->local_ports, p->local_port_first, w->local.port);
		return -EINVAL;
	}
	return 0;
}

bool
worker_local_accepts(const struct sst_worker *w, const struct sst_net_endpoint *to)
{
	/* The network layer checked that the address is one of ours. */
	return to->addr.family == SST_NET_IPV4 &&
	       (uint32_t)(to->port - w->p.local_port_first) < w->p.local_ports;
}

static bool
is_local(const struct sst_worker *w, const struct sst_net_endpoint *ep)
{
	uint32_t count = w->p.net.ipv4_count != 0 ? w->p.net.ipv4_count : 1;

	return worker_local_accepts(w, ep) &&
	       addr4_u32(ep->addr.bytes) - addr4_u32(w->p.net.ipv4.bytes) < count;
}

int
sst_worker_connect_from(struct sst_worker *w, const struct sst_net_endpoint *local,
	const struct sst_net_endpoint *remote, enum sst_nego_mode mode, sst_time_t now)
{
	struct sst_net_endpoint ep;

	if (w == NULL || local == NULL || remote == NULL || !is_local(w, local) ||
		remote->addr.family != SST_NET_IPV4 || worker_ep_tagged(remote))
		return -EINVAL;
	ep = *remote;
	worker_ep_tag(&ep, local);
	/* As sst_worker_connect(): the pair's channels live on its owner,
	 * where its packets arrive (RSS) or are handed (the dispatch). */
	if (w->p.shard_count > 1 && sst_shard_owner(&w->shard, &ep) != w->p.shard_index)
		return -EXDEV;
	w->now = now;
	return worker_connect_to(w, &ep, mode, now);
}
