/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The neighbour cache shared by ARP (RFC 826) and IPv6 neighbour discovery
 * (RFC 4861 7.3), simplified to two states:
 *
 *   INCOMPLETE  a request (ARP) or solicitation (NS) is outstanding; up to
 *               pending_max frames wait for the answer. The request is
 *               repeated every neigh_retrans, neigh_retries times in all;
 *               then the waiting frames are dropped (tx_pending_timeout)
 *               and the entry removed (neigh_failed).
 *   REACHABLE   the MAC is known. An answer is trusted for neigh_reachable;
 *               after that the entry is still used, but every frame sent
 *               to it triggers a unicast refresh probe (at most one per
 *               neigh_retrans), and without an answer the entry is removed
 *               neigh_retries * neigh_retrans later (neigh_expired).
 *
 * Entries live in a fixed array chained from a power-of-two bucket table;
 * a full cache evicts the reachable entry answered longest ago, never one
 * that is being resolved. No allocation after init.
 */
#include <errno.h>
#include <string.h>

#include "net_internal.h"

static uint32_t
neigh_hash(const struct sst_net *net, const struct sst_net_addr *a)
{
	uint32_t h = a->family;

	/* FNV-1a over the address: cheap and good enough for a small table
	 * whose keys an attacker on the link can only choose within our
	 * prefixes (entries are only created for on-link addresses). */
	for (unsigned int i = 0; i < 16; i++)
		h = (h ^ a->bytes[i]) * 16777619u;
	return h & (net->nbuckets - 1);
}

static bool
addr_eq(const struct sst_net_addr *a, const struct sst_net_addr *b)
{
	return a->family == b->family && memcmp(a->bytes, b->bytes, 16) == 0;
}

struct net_neigh *
net_neigh_find(const struct sst_net *net, const struct sst_net_addr *addr)
{
	for (uint32_t i = net->buckets[neigh_hash(net, addr)]; i != NET_NIL; i = net->neigh[i].next)
		if (addr_eq(&net->neigh[i].addr, addr))
			return &net->neigh[i];
	return NULL;
}

int
sst_net_neigh_lookup(
	const struct sst_net *net, const struct sst_net_addr *addr, struct rte_ether_addr *mac)
{
	const struct net_neigh *e = net_neigh_find(net, addr);

	if (e == NULL)
		return -ENOENT;
	if (e->state != NET_NEIGH_REACHABLE)
		return -EAGAIN;
	if (mac != NULL)
		*mac = e->mac;
	return 0;
}

static void
neigh_arm(struct sst_net *net, sst_time_t t)
{
	net->expiry = sst_time_min(net->expiry, t);
}

/* Unlink e from its chain and put it on the free list; its queue must be empty. */
static void
neigh_remove(struct sst_net *net, struct net_neigh *e)
{
	uint32_t idx = (uint32_t)(e - net->neigh);
	uint32_t *link = &net->buckets[neigh_hash(net, &e->addr)];

	while (*link != idx)
		link = &net->neigh[*link].next;
	*link = e->next;
	memset(e, 0, sizeof(*e));
	e->next = net->free_head;
	net->free_head = idx;
}

/* A free entry for addr (linked into its chain), evicting if needed; NULL if none. */
static struct net_neigh *
neigh_alloc(struct sst_net *net, const struct sst_net_addr *addr)
{
	struct net_neigh *e;
	uint32_t idx, b;

	if (net->free_head == NET_NIL) {
		struct net_neigh *old = NULL;

		for (uint32_t i = 0; i < net->p.neigh_entries; i++) {
			e = &net->neigh[i];
			if (e->state == NET_NEIGH_REACHABLE &&
				(old == NULL || e->confirmed < old->confirmed))
				old = e;
		}
		if (old == NULL)
			return NULL;
		neigh_remove(net, old);
	}
	idx = net->free_head;
	e = &net->neigh[idx];
	net->free_head = e->next;
	memset(e, 0, sizeof(*e));
	e->addr = *addr;
	b = neigh_hash(net, addr);
	e->next = net->buckets[b];
	net->buckets[b] = idx;
	return e;
}

/* Ask for e's MAC: broadcast / multicast, or unicast to mac (a refresh probe). */
static void
neigh_request(struct sst_net *net, const struct net_neigh *e, const struct rte_ether_addr *mac,
	sst_time_t now)
{
	if (e->addr.family == SST_NET_IPV4)
		net_arp_request(net, e->addr.bytes, mac, now);
	else
		net_nd_solicit(net, e->addr.bytes, mac, now);
}

static void
neigh_send(struct sst_net *net, struct net_neigh *e, struct rte_mbuf *m, sst_time_t now)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	rte_ether_addr_copy(&e->mac, &eh->dst_addr);
	net_tx_push(net, m, now);
}

static void
neigh_confirm(struct sst_net *net, struct net_neigh *e, sst_time_t now)
{
	e->confirmed = now;
	e->probe_at = sst_time_add(now, net->p.neigh_reachable);
	e->timer = sst_time_add(e->probe_at, net->p.neigh_retrans * net->p.neigh_retries);
	neigh_arm(net, e->timer);
}

bool
net_neigh_learn(struct sst_net *net, const struct sst_net_addr *addr,
	const struct rte_ether_addr *mac, bool create, bool override, sst_time_t now)
{
	struct net_neigh *e = net_neigh_find(net, addr);

	if (e == NULL) {
		if (!create || (e = neigh_alloc(net, addr)) == NULL)
			return false;
		e->state = NET_NEIGH_REACHABLE;
		e->mac = *mac;
		neigh_confirm(net, e, now);
		return true;
	}
	if (e->state == NET_NEIGH_INCOMPLETE) {
		/* The answer we waited for: send what was queued, in order. */
		struct rte_mbuf *q[SST_NET_PENDING_MAX];
		uint16_t nq = e->npending;

		e->state = NET_NEIGH_REACHABLE;
		e->mac = *mac;
		neigh_confirm(net, e, now);
		net->stats.neigh_resolved++;
		/* Empty the queue before sending: transmit() may send to e again. */
		memcpy(q, e->pending, nq * sizeof(q[0]));
		e->npending = 0;
		for (uint16_t i = 0; i < nq; i++) {
			struct rte_ether_hdr *eh = rte_pktmbuf_mtod(q[i], struct rte_ether_hdr *);

			rte_ether_addr_copy(mac, &eh->dst_addr);
			net_tx_push(net, q[i], now);
		}
		return true;
	}
	if (!override && !rte_is_same_ether_addr(&e->mac, mac))
		return false;
	e->mac = *mac;
	neigh_confirm(net, e, now);
	return true;
}

int
net_neigh_output(
	struct sst_net *net, const struct sst_net_addr *nh, struct rte_mbuf *m, sst_time_t now)
{
	struct net_neigh *e = net_neigh_find(net, nh);

	if (e != NULL && e->state == NET_NEIGH_REACHABLE) {
		if (now >= e->probe_at) {
			/* Past neigh_reachable: keep using the MAC, ask it to confirm. */
			e->probe_at = sst_time_add(now, net->p.neigh_retrans);
			neigh_request(net, e, &e->mac, now);
		}
		neigh_send(net, e, m, now);
		return 0;
	}
	if (e == NULL) {
		e = neigh_alloc(net, nh);
		if (e == NULL) {
			net->stats.tx_neigh_full++;
			rte_pktmbuf_free(m);
			return -ENOBUFS;
		}
		e->state = NET_NEIGH_INCOMPLETE;
		e->tries = 1;
		e->timer = sst_time_add(now, net->p.neigh_retrans);
		neigh_arm(net, e->timer);
		neigh_request(net, e, NULL, now);
	}
	if (e->npending >= net->p.pending_max) {
		net->stats.tx_pending_full++;
		rte_pktmbuf_free(m);
		return -ENOBUFS;
	}
	e->pending[e->npending++] = m;
	return 0;
}

/* Drop e's queue and remove it. */
static void
neigh_drop(struct sst_net *net, struct net_neigh *e)
{
	net->stats.tx_pending_timeout += e->npending;
	rte_pktmbuf_free_bulk(e->pending, e->npending);
	e->npending = 0;
	neigh_remove(net, e);
}

void
net_neigh_expire(struct sst_net *net, sst_time_t now)
{
	sst_time_t next = SST_TIME_NEVER;

	for (uint32_t i = 0; i < net->p.neigh_entries; i++) {
		struct net_neigh *e = &net->neigh[i];

		if (e->state == NET_NEIGH_FREE)
			continue;
		if (e->timer <= now) {
			if (e->state == NET_NEIGH_INCOMPLETE && e->tries < net->p.neigh_retries) {
				e->tries++;
				e->timer = sst_time_add(now, net->p.neigh_retrans);
				neigh_request(net, e, NULL, now);
			} else {
				if (e->state == NET_NEIGH_INCOMPLETE)
					net->stats.neigh_failed++;
				else
					net->stats.neigh_expired++;
				neigh_drop(net, e);
				continue;
			}
		}
		next = sst_time_min(next, e->timer);
	}
	net->expiry = next;
}

void
net_neigh_flush(struct sst_net *net)
{
	for (uint32_t i = 0; i < net->p.neigh_entries; i++) {
		struct net_neigh *e = &net->neigh[i];

		rte_pktmbuf_free_bulk(e->pending, e->npending);
		e->npending = 0;
	}
}
