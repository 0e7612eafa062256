/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The network layer object: configuration and lifecycle, the Ethernet
 * demultiplexer at the bottom of sst_net_rx_burst(), the transmit batch and
 * the timers. Protocol work is in net_arp.c, net_ipv4.c, net_ipv6.c,
 * net_nd.c and net_udp.c; the neighbour cache in net_neigh.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>

#include "net_internal.h"
#include "net_wire.h"
#include "sst_log.h"
#include "sst_params.h"

RTE_LOG_REGISTER(sst_logtype_net, sst.net, NOTICE);
#define NET_LOG(level, fmt, ...) SST_LOG(level, sst_logtype_net, "net", fmt, ##__VA_ARGS__)

enum {
	NET_DEF_MTU = 1500,
	NET_DEF_TTL = 64,
	NET_DEF_ENTRIES = 64,
	NET_DEF_PENDING = 8,
	NET_DEF_RETRIES = 3,
	NET_MAX_ENTRIES = 1 << 16,
};

static bool
addr_ok(const struct sst_net_addr *a, uint8_t family)
{
	return a->family == SST_NET_NONE || a->family == family;
}

/* Check the parameters and fill in the defaults; false when they are invalid. */
/* An IPv4 address as a number, for ranges. */
static uint32_t
addr4_u32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static bool
net_params_fill(const struct sst_net_params *in, struct sst_net_params *p)
{
	if (in == NULL || !sst_params_size_ok(in->size, sizeof(*in), SST_PARAMS_ANY_LARGER))
		return false;
	*p = *in;
	if (p->mtu == 0)
		p->mtu = NET_DEF_MTU;
	if (p->ttl == 0)
		p->ttl = NET_DEF_TTL;
	if (p->neigh_entries == 0)
		p->neigh_entries = NET_DEF_ENTRIES;
	if (p->pending_max == 0)
		p->pending_max = NET_DEF_PENDING;
	if (p->neigh_retries == 0)
		p->neigh_retries = NET_DEF_RETRIES;
	if (p->neigh_retrans == 0)
		p->neigh_retrans = SST_NSEC_PER_SEC;
	if (p->neigh_reachable == 0)
		p->neigh_reachable = 30 * SST_NSEC_PER_SEC;
	if (p->ipv6.family == SST_NET_IPV6)
		p->ipv6_enabled = true;
	if (p->pool == NULL || p->ops == NULL || p->ops->deliver_udp == NULL ||
		p->ops->transmit == NULL || !rte_is_valid_assigned_ether_addr(&p->mac) ||
		p->pending_max > SST_NET_PENDING_MAX || p->neigh_entries > NET_MAX_ENTRIES ||
		p->neigh_retries > 255 || p->mtu < NET_IP4_MIN_MTU ||
		p->nroutes > SST_NET_ROUTES_MAX)
		return false;
	if (!addr_ok(&p->ipv4, SST_NET_IPV4) || !addr_ok(&p->ipv4_gateway, SST_NET_IPV4) ||
		!addr_ok(&p->ipv6, SST_NET_IPV6) || !addr_ok(&p->ipv6_gateway, SST_NET_IPV6) ||
		!addr_ok(&p->ipv6_link_local, SST_NET_IPV6))
		return false;
	if (p->ipv4.family == SST_NET_IPV4 && (p->ipv4_prefix_len < 1 || p->ipv4_prefix_len > 32))
		return false;
	if (p->ipv4_count == 0)
		p->ipv4_count = 1;
	/* The range stays inside the on-link prefix. */
	if (p->ipv4.family == SST_NET_IPV4) {
		uint32_t host_mask = (uint32_t)(UINT64_C(0xffffffff) >> p->ipv4_prefix_len);
		uint32_t host = addr4_u32(p->ipv4.bytes) & host_mask;

		if ((uint64_t)host + p->ipv4_count - 1 > host_mask)
			return false;
	}
	if (p->ipv6.family == SST_NET_IPV6 && (p->ipv6_prefix_len < 1 || p->ipv6_prefix_len > 128))
		return false;
	if (p->ipv6_enabled && p->mtu < NET_IP6_MIN_MTU)
		return false;
	if (p->ipv4.family == SST_NET_NONE && !p->ipv6_enabled)
		return false;
	for (unsigned int i = 0; i < p->nroutes; i++) {
		const struct sst_net_route *r = &p->routes[i];
		uint8_t max = r->prefix.family == SST_NET_IPV4 ? 32 : 128;

		if ((r->prefix.family != SST_NET_IPV4 && r->prefix.family != SST_NET_IPV6) ||
			r->prefix_len > max || !addr_ok(&r->gateway, r->prefix.family))
			return false;
	}
	return true;
}

size_t
sst_net_size(const struct sst_net_params *p)
{
	struct sst_net_params q;

	if (!net_params_fill(p, &q)) {
		rte_errno = EINVAL;
		return 0;
	}
	return RTE_ALIGN_CEIL(sizeof(struct sst_net), RTE_CACHE_LINE_SIZE) +
	       RTE_ALIGN_CEIL(
		       rte_align32pow2(q.neigh_entries) * sizeof(uint32_t), RTE_CACHE_LINE_SIZE) +
	       (size_t)q.neigh_entries * sizeof(struct net_neigh);
}

int
sst_net_init(struct sst_net *net, const struct sst_net_params *p)
{
	size_t size = sst_net_size(p);
	uint8_t *mem = (uint8_t *)net;

	if (size == 0 || net == NULL)
		return -EINVAL;
	memset(net, 0, size);
	net_params_fill(p, &net->p);
	net->ops = net->p.ops;
	net->has4 = net->p.ipv4.family == SST_NET_IPV4;
	net->has6 = net->p.ipv6_enabled;
	net->has_gl6 = net->p.ipv6.family == SST_NET_IPV6;
	if (net->has_gl6)
		memcpy(net->gl6, net->p.ipv6.bytes, 16);
	if (net->p.ipv6_link_local.family == SST_NET_IPV6) {
		memcpy(net->ll6, net->p.ipv6_link_local.bytes, 16);
	} else {
		/* RFC 4291 2.5.1 and appendix A: fe80::/64 + modified EUI-64. */
		const uint8_t *mac = net->p.mac.addr_bytes;

		net->ll6[0] = 0xfe;
		net->ll6[1] = 0x80;
		net->ll6[8] = mac[0] ^ 0x02;
		net->ll6[9] = mac[1];
		net->ll6[10] = mac[2];
		net->ll6[11] = 0xff;
		net->ll6[12] = 0xfe;
		net->ll6[13] = mac[3];
		net->ll6[14] = mac[4];
		net->ll6[15] = mac[5];
	}
	net->nbuckets = rte_align32pow2(net->p.neigh_entries);
	net->buckets =
		(uint32_t *)(mem + RTE_ALIGN_CEIL(sizeof(struct sst_net), RTE_CACHE_LINE_SIZE));
	net->neigh =
		(struct net_neigh *)(mem +
				     RTE_ALIGN_CEIL(sizeof(struct sst_net), RTE_CACHE_LINE_SIZE) +
				     RTE_ALIGN_CEIL(net->nbuckets * sizeof(uint32_t),
					     RTE_CACHE_LINE_SIZE));
	for (uint32_t i = 0; i < net->nbuckets; i++)
		net->buckets[i] = NET_NIL;
	for (uint32_t i = 0; i < net->p.neigh_entries; i++)
		net->neigh[i].next = i + 1 < net->p.neigh_entries ? i + 1 : NET_NIL;
	net->free_head = 0;
	net->expiry = SST_TIME_NEVER;
	net->announce_at = net->has4 && !net->p.no_announce ? 0 : SST_TIME_NEVER;
	net->announce_next = 0;
	net->announce_rounds = NET_ANNOUNCE_ROUNDS;
	return 0;
}

void
sst_net_fini(struct sst_net *net)
{
	if (net == NULL)
		return;
	net_neigh_flush(net);
	rte_pktmbuf_free_bulk(net->tx, net->ntx);
	net->ntx = 0;
}

struct sst_net *
sst_net_create(const struct sst_net_params *p)
{
	size_t size = sst_net_size(p);
	struct sst_net *net;
	int rc;

	if (size == 0)
		return NULL;
	net = rte_zmalloc("sst_net", size, RTE_CACHE_LINE_SIZE);
	if (net == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	rc = sst_net_init(net, p);
	if (rc < 0) {
		rte_free(net);
		rte_errno = -rc;
		return NULL;
	}
	NET_LOG(INFO, "up: %u neighbour entries, mtu %u, ipv4 %s, ipv6 %s", net->p.neigh_entries,
		net->p.mtu, net->has4 ? "on" : "off", net->has6 ? "on" : "off");
	return net;
}

void
sst_net_destroy(struct sst_net *net)
{
	if (net == NULL)
		return;
	sst_net_fini(net);
	rte_free(net);
}

void
sst_net_flush(struct sst_net *net, sst_time_t now)
{
	uint16_t n = net->ntx;

	if (n == 0)
		return;
	net->ntx = 0;
	net->stats.tx_frames += n;
	net->ops->transmit(net->p.ctx, net->tx, n, now);
}

void
net_tx_push(struct sst_net *net, struct rte_mbuf *m, sst_time_t now)
{
	if (net->ntx == SST_MAX_BURST)
		sst_net_flush(net, now);
	net->tx[net->ntx++] = m;
	if (net->ntx == SST_MAX_BURST)
		sst_net_flush(net, now);
}

uint8_t *
net_recycle(struct rte_mbuf *m, uint16_t len)
{
	if (m->next != NULL) {
		rte_pktmbuf_free(m->next);
		m->next = NULL;
	}
	rte_pktmbuf_reset(m);
	if (rte_pktmbuf_tailroom(m) < len) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	return (uint8_t *)rte_pktmbuf_append(m, len);
}

int
net_trim(struct rte_mbuf *m, uint32_t len)
{
	struct rte_mbuf *seg = m;
	uint32_t left = len;
	uint16_t nseg = 1;

	if (len > rte_pktmbuf_pkt_len(m))
		return -EINVAL;
	if (len == rte_pktmbuf_pkt_len(m))
		return 0;
	/* Find the segment holding the new last byte (the first when len is 0). */
	while (left > seg->data_len && seg->next != NULL) {
		left -= seg->data_len;
		seg = seg->next;
		nseg++;
	}
	seg->data_len = (uint16_t)left;
	if (seg->next != NULL) {
		rte_pktmbuf_free(seg->next);
		seg->next = NULL;
	}
	m->nb_segs = nseg;
	m->pkt_len = len;
	return 0;
}

bool
net_prefix_match(const uint8_t *a, const uint8_t *b, uint8_t plen)
{
	uint8_t bytes = plen / 8, bits = plen % 8;

	if (memcmp(a, b, bytes) != 0)
		return false;
	if (bits == 0)
		return true;
	return ((a[bytes] ^ b[bytes]) & (uint8_t)(0xff << (8 - bits))) == 0;
}

bool
net_is_ours(const struct sst_net *net, const struct sst_net_addr *a)
{
	if (a->family == SST_NET_IPV4)
		return net->has4 &&
		       addr4_u32(a->bytes) - addr4_u32(net->p.ipv4.bytes) < net->p.ipv4_count;
	if (a->family == SST_NET_IPV6)
		return net->has6 && (memcmp(a->bytes, net->ll6, 16) == 0 ||
					    (net->has_gl6 && memcmp(a->bytes, net->gl6, 16) == 0));
	return false;
}

void
net_eth_fill(struct rte_ether_hdr *eh, const struct rte_ether_addr *dst,
	const struct rte_ether_addr *src, uint16_t type)
{
	rte_ether_addr_copy(dst, &eh->dst_addr);
	rte_ether_addr_copy(src, &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(type);
}

/* Ethernet (IEEE 802.3 / RFC 894): which frames are addressed to us. */
static bool
eth_for_us(const struct sst_net *net, const struct rte_ether_addr *dst)
{
	if (rte_is_same_ether_addr(dst, &net->p.mac) || rte_is_broadcast_ether_addr(dst))
		return true;
	/* IPv6 multicast (RFC 2464 7): the IP layer checks the group. */
	return net->has6 && dst->addr_bytes[0] == 0x33 && dst->addr_bytes[1] == 0x33;
}

uint16_t
sst_net_rx_burst(struct sst_net *net, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	uint64_t delivered = net->stats.rx_udp;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const struct rte_ether_hdr *eh;
		uint16_t type;

		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		net->stats.rx_frames++;
		if (m->data_len < sizeof(*eh)) {
			net->stats.rx_eth_short++;
			rte_pktmbuf_free(m);
			continue;
		}
		eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
		if (!eth_for_us(net, &eh->dst_addr)) {
			net->stats.rx_eth_not_ours++;
			rte_pktmbuf_free(m);
			continue;
		}
		type = rte_be_to_cpu_16(eh->ether_type);
		if (type == RTE_ETHER_TYPE_IPV4 && net->has4) {
			net_ipv4_rx(net, m, now);
		} else if (type == RTE_ETHER_TYPE_IPV6 && net->has6) {
			net_ipv6_rx(net, m, now);
		} else if (type == RTE_ETHER_TYPE_ARP && net->has4) {
			net_arp_rx(net, m, now);
		} else {
			net->stats.rx_eth_type++;
			rte_pktmbuf_free(m);
		}
	}
	sst_net_flush(net, now);
	return (uint16_t)(net->stats.rx_udp - delivered);
}

sst_time_t
sst_net_next_expiry(const struct sst_net *net)
{
	return sst_time_min(net->expiry, net->announce_at);
}

void
sst_net_handle_expiry(struct sst_net *net, sst_time_t now)
{
	if (now >= net->expiry)
		net_neigh_expire(net, now);
	if (now >= net->announce_at)
		net_arp_announce(net, now);
	sst_net_flush(net, now);
}

const struct sst_net_stats *
sst_net_stats(const struct sst_net *net)
{
	return &net->stats;
}

uint64_t
sst_net_stats_rx_sum(const struct sst_net_stats *s)
{
	/* Every disposition counter lies between rx_eth_short and rx_nd_other. */
	const uint64_t *c = &s->rx_eth_short;
	const uint64_t *end = &s->rx_nd_other;
	uint64_t sum = 0;

	for (; c <= end; c++)
		sum += *c;
	return sum;
}

uint32_t
sst_net_udp_payload_max(enum sst_net_family family, uint32_t mtu)
{
	uint32_t hdr = (family == SST_NET_IPV6 ? sizeof(struct rte_ipv6_hdr)
					       : sizeof(struct rte_ipv4_hdr)) +
		       sizeof(struct rte_udp_hdr);

	if (family != SST_NET_IPV4 && family != SST_NET_IPV6)
		return 0;
	return mtu > hdr ? RTE_MIN(mtu - hdr, (uint32_t)UINT16_MAX - hdr) : 0;
}

struct sst_net_addr
sst_net_addr4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	struct sst_net_addr x = {.family = SST_NET_IPV4, .bytes = {a, b, c, d}};

	return x;
}

int
sst_net_addr_parse(const char *text, struct sst_net_addr *addr)
{
	struct sst_net_addr x = {0};

	if (text == NULL || addr == NULL)
		return -EINVAL;
	if (inet_pton(AF_INET, text, x.bytes) == 1) {
		x.family = SST_NET_IPV4;
	} else if (inet_pton(AF_INET6, text, x.bytes) == 1) {
		x.family = SST_NET_IPV6;
	} else {
		return -EINVAL;
	}
	*addr = x;
	return 0;
}
