/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 neighbour discovery, the address-resolution part (RFC 4861 4.3,
 * 4.4, 7): answer Neighbor Solicitations for our addresses (including
 * duplicate address detection probes), learn from solicitations that carry
 * a source link-layer address and from advertisements for neighbours we
 * are resolving or already know, and build solicitations for the neighbour
 * cache (net_neigh.c). Router discovery, redirects and DAD for our own
 * addresses are not done: the configuration is static (docs/net.md).
 */
#include <string.h>

#include "net_internal.h"
#include "net_wire.h"

enum {
	ETH_LEN = sizeof(struct rte_ether_hdr),
	IP6_LEN = sizeof(struct rte_ipv6_hdr),
	ND_LEN = sizeof(struct net_nd_msg) + sizeof(struct net_nd_opt_ll),
	ND_FRAME_LEN = ETH_LEN + IP6_LEN + ND_LEN,
};

static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 0x01};

void
net_nd_snma(uint8_t snma[16], const uint8_t *a)
{
	static const uint8_t prefix[13] = {0xff, 0x02, [11] = 0x01, [12] = 0xff};

	memcpy(snma, prefix, sizeof(prefix));
	memcpy(snma + 13, a + 13, 3);
}

/* RFC 2464 7: the Ethernet group of an IPv6 multicast address. */
static void
mcast_mac(struct rte_ether_addr *mac, const uint8_t *group)
{
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	memcpy(&mac->addr_bytes[2], group + 12, 4);
}

/* Fill an NS or NA frame with a link-layer address option and its checksum. */
static void
nd_fill(const struct sst_net *net, uint8_t *p, const struct rte_ether_addr *eth_dst,
	const uint8_t *src, const uint8_t *dst, uint8_t type, uint8_t flags, const uint8_t *target)
{
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(p + ETH_LEN);
	struct net_nd_msg *nd = (struct net_nd_msg *)(ip + 1);
	struct net_nd_opt_ll *opt = (struct net_nd_opt_ll *)(nd + 1);
	uint32_t sum;

	net_eth_fill((struct rte_ether_hdr *)p, eth_dst, &net->p.mac, RTE_ETHER_TYPE_IPV6);
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(ND_LEN);
	ip->proto = NET_PROTO_ICMPV6;
	ip->hop_limits = NET_ND_HOP_LIMIT;
	memcpy(ip->src_addr, src, 16);
	memcpy(ip->dst_addr, dst, 16);
	memset(nd, 0, sizeof(*nd));
	nd->type = type;
	nd->flags = flags;
	memcpy(nd->target, target, 16);
	opt->type = type == NET_ICMP6_NS ? NET_ND_OPT_SRC_LL : NET_ND_OPT_TGT_LL;
	opt->len = 1;
	memcpy(opt->mac, net->p.mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	sum = net_phdr6_sum(src, dst, NET_PROTO_ICMPV6, ND_LEN) + rte_raw_cksum(nd, ND_LEN);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	nd->cksum = (uint16_t)~sum;
}

void
net_nd_solicit(struct sst_net *net, const uint8_t *target, const struct rte_ether_addr *mac,
	sst_time_t now)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(net->p.pool);
	uint8_t *p = m != NULL ? (uint8_t *)rte_pktmbuf_append(m, ND_FRAME_LEN) : NULL;
	struct rte_ether_addr eth_dst;
	uint8_t dst[16];

	if (p == NULL) {
		rte_pktmbuf_free(m);
		net->stats.tx_no_mbuf++;
		return;
	}
	if (mac != NULL) {
		/* A refresh probe goes straight to the neighbour (RFC 4861 7.3.3 PROBE). */
		eth_dst = *mac;
		memcpy(dst, target, 16);
	} else {
		net_nd_snma(dst, target);
		mcast_mac(&eth_dst, dst);
	}
	nd_fill(net, p, &eth_dst, net_ipv6_source(net, target), dst, NET_ICMP6_NS, 0, target);
	net->stats.tx_nd_ns++;
	net_tx_push(net, m, now);
}

/*
 * Walk the options after the NS/NA header (RFC 4861 4.6): every option has
 * a non-zero length that fits; the link-layer option of type want (if any)
 * goes to *mac. @return false for malformed options.
 */
static bool
nd_options(const uint8_t *p, uint32_t len, uint8_t want, struct rte_ether_addr *mac, bool *found)
{
	*found = false;
	while (len > 0) {
		uint32_t olen;

		if (len < 2 || p[1] == 0)
			return false;
		olen = (uint32_t)p[1] * NET_ND_OPT_UNIT;
		if (olen > len)
			return false;
		if (p[0] == want && olen == sizeof(struct net_nd_opt_ll)) {
			memcpy(mac->addr_bytes, p + 2, RTE_ETHER_ADDR_LEN);
			*found = true;
		}
		p += olen;
		len -= olen;
	}
	return true;
}

void
net_nd_rx(struct sst_net *net, struct rte_mbuf *m, const struct rte_ipv6_hdr *ip, uint32_t off,
	uint32_t len, sst_time_t now)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct net_nd_msg *nd;
	struct sst_net_addr src = {.family = SST_NET_IPV6}, target = {.family = SST_NET_IPV6};
	struct rte_ether_addr ll, peer = eh->src_addr;
	bool has_ll, dad, multicast_dst = ip->dst_addr[0] == 0xff;
	uint8_t type, flags, reply_dst[16];
	uint8_t *p;

	/* 7.1.1 / 7.1.2 validation: from the link, code 0, long enough, options sound. */
	if (ip->hop_limits != NET_ND_HOP_LIMIT || len < sizeof(*nd) || m->data_len < off + len) {
		net->stats.rx_nd_bad++;
		rte_pktmbuf_free(m);
		return;
	}
	nd = rte_pktmbuf_mtod_offset(m, const struct net_nd_msg *, off);
	type = nd->type;
	flags = nd->flags;
	memcpy(src.bytes, ip->src_addr, 16);
	memcpy(target.bytes, nd->target, 16);
	dad = memcmp(src.bytes, (const uint8_t[16]){0}, 16) == 0;
	if (nd->code != 0 || target.bytes[0] == 0xff ||
		!nd_options((const uint8_t *)(nd + 1), len - sizeof(*nd),
			type == NET_ICMP6_NS ? NET_ND_OPT_SRC_LL : NET_ND_OPT_TGT_LL, &ll,
			&has_ll) ||
		(has_ll && !rte_is_valid_assigned_ether_addr(&ll))) {
		net->stats.rx_nd_bad++;
		rte_pktmbuf_free(m);
		return;
	}
	if (type == NET_ICMP6_NA) {
		/* 7.1.2: a solicited advertisement is never multicast. */
		if (multicast_dst && (flags & NET_ND_NA_SOLICITED)) {
			net->stats.rx_nd_bad++;
		} else if (has_ll && !net_is_ours(net, &target) &&
			   net_neigh_learn(net, &target, &ll, false,
				   (flags & NET_ND_NA_OVERRIDE) != 0, now)) {
			net->stats.rx_nd_na++;
		} else {
			net->stats.rx_nd_other++;
		}
		rte_pktmbuf_free(m);
		return;
	}
	/* Neighbor Solicitation. 7.1.1: DAD probes go to a solicited-node group
	 * and carry no source link-layer address. */
	if (dad && (!multicast_dst || has_ll)) {
		net->stats.rx_nd_bad++;
		rte_pktmbuf_free(m);
		return;
	}
	if (!net_is_ours(net, &target)) {
		net->stats.rx_nd_other++;
		rte_pktmbuf_free(m);
		return;
	}
	/* 7.2.3: learn the sender, then advertise (solicited unless DAD, 7.2.4). */
	if (!dad && has_ll)
		net_neigh_learn(net, &src, &ll, true, true, now);
	if (dad) {
		memcpy(reply_dst, all_nodes, 16);
		mcast_mac(&peer, all_nodes);
		flags = NET_ND_NA_OVERRIDE;
	} else {
		memcpy(reply_dst, src.bytes, 16);
		if (has_ll)
			peer = ll;
		flags = NET_ND_NA_SOLICITED | NET_ND_NA_OVERRIDE;
	}
	net->stats.rx_nd_ns++;
	p = net_recycle(m, ND_FRAME_LEN);
	if (p == NULL) {
		net->stats.tx_no_mbuf++;
		return;
	}
	nd_fill(net, p, &peer, target.bytes, reply_dst, NET_ICMP6_NA, flags, target.bytes);
	net->stats.tx_nd_na++;
	net_tx_push(net, m, now);
}
