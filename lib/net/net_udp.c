/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UDP (RFC 768; over IPv6 RFC 8200 8.1) both ways: verify and deliver
 * received datagrams without copying them, and build outgoing ones (source
 * selection, static routing, Ethernet/IP/UDP headers in headroom or a
 * chained header mbuf, DF on IPv4, checksums in software or offloaded to
 * the port) before the neighbour cache resolves the next hop.
 */
#include <errno.h>
#include <string.h>

#include "net_internal.h"
#include "net_wire.h"

enum {
	ETH_LEN = sizeof(struct rte_ether_hdr),
	IP4_LEN = sizeof(struct rte_ipv4_hdr),
	IP6_LEN = sizeof(struct rte_ipv6_hdr),
	UDP_LEN = sizeof(struct rte_udp_hdr),
};

uint32_t
net_phdr4_sum(const uint8_t *src, const uint8_t *dst, uint8_t proto, uint32_t len)
{
	uint8_t ph[12] = {0};

	memcpy(ph, src, 4);
	memcpy(ph + 4, dst, 4);
	ph[9] = proto;
	ph[10] = (uint8_t)(len >> 8);
	ph[11] = (uint8_t)len;
	return rte_raw_cksum(ph, sizeof(ph));
}

uint32_t
net_phdr6_sum(const uint8_t *src, const uint8_t *dst, uint8_t proto, uint32_t len)
{
	uint8_t ph[40] = {0};

	memcpy(ph, src, 16);
	memcpy(ph + 16, dst, 16);
	ph[32] = (uint8_t)(len >> 24);
	ph[33] = (uint8_t)(len >> 16);
	ph[34] = (uint8_t)(len >> 8);
	ph[35] = (uint8_t)len;
	ph[39] = proto;
	return rte_raw_cksum(ph, sizeof(ph));
}

void
net_udp_rx(struct sst_net *net, struct rte_mbuf *m, const struct sst_net_addr *src,
	const struct sst_net_addr *dst, uint32_t l4, uint32_t len, sst_time_t now)
{
	const struct rte_udp_hdr *uh;
	struct sst_net_endpoint from, to;
	uint64_t ck = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;
	uint32_t ulen, phdr;

	if (len < UDP_LEN || m->data_len < l4 + UDP_LEN) {
		net->stats.rx_udp_short++;
		rte_pktmbuf_free(m);
		return;
	}
	uh = rte_pktmbuf_mtod_offset(m, const struct rte_udp_hdr *, l4);
	ulen = rte_be_to_cpu_16(uh->dgram_len);
	if (ulen < UDP_LEN || ulen > len) {
		net->stats.rx_udp_len++;
		rte_pktmbuf_free(m);
		return;
	}
	/* GOOD: the port checked the checksum; NONE: the field is not
	 * filled in but the data was checked (virtio with offload, a packet
	 * that never left the host). Either way our check would add nothing
	 * (NONE's would fail). */
	if (ck != RTE_MBUF_F_RX_L4_CKSUM_GOOD && ck != RTE_MBUF_F_RX_L4_CKSUM_NONE) {
		/* Zero means "no checksum" over IPv4 only (RFC 768, RFC 8200 8.1). */
		bool none = uh->dgram_cksum == 0 && src->family == SST_NET_IPV4;

		phdr = src->family == SST_NET_IPV4
			       ? net_phdr4_sum(src->bytes, dst->bytes, NET_PROTO_UDP, ulen)
			       : net_phdr6_sum(src->bytes, dst->bytes, NET_PROTO_UDP, ulen);
		if (ck == RTE_MBUF_F_RX_L4_CKSUM_BAD ||
			(!none && (uh->dgram_cksum == 0 ||
					  net_cksum_mbuf(m, l4, ulen, phdr) != 0xffff))) {
			net->stats.rx_udp_cksum++;
			rte_pktmbuf_free(m);
			return;
		}
	}
	from.addr = *src;
	from.port = rte_be_to_cpu_16(uh->src_port);
	to.addr = *dst;
	to.port = rte_be_to_cpu_16(uh->dst_port);
	net_trim(m, l4 + ulen);
	rte_pktmbuf_adj(m, (uint16_t)(l4 + UDP_LEN));
	net->stats.rx_udp++;
	net->ops->deliver_udp(net->p.ctx, m, &from, &to, now);
}

int
net_route(const struct sst_net *net, const struct sst_net_addr *dst, struct sst_net_addr *nh)
{
	const struct sst_net_addr *gw = NULL;
	int best = -1;

	/* Longest prefix wins among the on-link prefixes, the static routes and
	 * the default gateway (a /0 route). */
	if (dst->family == SST_NET_IPV4) {
		if (!net->has4)
			return -ENETUNREACH;
		if (net_prefix_match(dst->bytes, net->p.ipv4.bytes, net->p.ipv4_prefix_len))
			best = net->p.ipv4_prefix_len;
		else if (net->p.ipv4_gateway.family == SST_NET_IPV4)
			best = 0, gw = &net->p.ipv4_gateway;
	} else if (dst->family == SST_NET_IPV6) {
		if (!net->has6)
			return -ENETUNREACH;
		if (dst->bytes[0] == 0xfe && (dst->bytes[1] & 0xc0) == 0x80)
			best = 10;
		else if (net->has_gl6 &&
			 net_prefix_match(dst->bytes, net->gl6, net->p.ipv6_prefix_len))
			best = net->p.ipv6_prefix_len;
		else if (net->p.ipv6_gateway.family == SST_NET_IPV6)
			best = 0, gw = &net->p.ipv6_gateway;
	} else {
		return -ENETUNREACH;
	}
	for (unsigned int i = 0; i < net->p.nroutes; i++) {
		const struct sst_net_route *r = &net->p.routes[i];

		if (r->prefix.family == dst->family && (int)r->prefix_len > best &&
			net_prefix_match(dst->bytes, r->prefix.bytes, r->prefix_len)) {
			best = r->prefix_len;
			gw = r->gateway.family == SST_NET_NONE ? NULL : &r->gateway;
		}
	}
	if (best < 0)
		return -ENETUNREACH;
	*nh = gw != NULL ? *gw : *dst;
	return 0;
}

/* A unicast destination we can send to (not unspecified, multicast, broadcast, loopback). */
static bool
dst_ok(const struct sst_net_addr *a)
{
	static const uint8_t zero[16];

	if (a->family == SST_NET_IPV4)
		return a->bytes[0] != 0 && a->bytes[0] != 127 && a->bytes[0] < 224;
	if (a->family == SST_NET_IPV6)
		return a->bytes[0] != 0xff && memcmp(a->bytes, zero, 15) != 0;
	return false;
}

/* Write the IPv4 and UDP headers at ip; plen is the UDP payload length. */
static void
udp4_fill(struct sst_net *net, struct rte_mbuf *m, struct rte_ipv4_hdr *ip, const uint8_t *src,
	const struct sst_net_endpoint *from, const struct sst_net_endpoint *to, uint32_t plen)
{
	struct rte_udp_hdr *uh = (struct rte_udp_hdr *)(ip + 1);

	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(IP4_LEN + UDP_LEN + plen));
	ip->packet_id = rte_cpu_to_be_16(net->ip_id++);
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = net->p.ttl;
	ip->next_proto_id = NET_PROTO_UDP;
	memcpy(&ip->src_addr, src, 4);
	memcpy(&ip->dst_addr, to->addr.bytes, 4);
	uh->src_port = rte_cpu_to_be_16(from->port);
	uh->dst_port = rte_cpu_to_be_16(to->port);
	uh->dgram_len = rte_cpu_to_be_16((uint16_t)(UDP_LEN + plen));
	uh->dgram_cksum = 0;
	m->l2_len = ETH_LEN;
	m->l3_len = IP4_LEN;
	if (net->p.tx_cksum_offload) {
		/* DPDK's contract: IP checksum 0, UDP checksum = pseudo-header sum. */
		m->ol_flags |=
			RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_UDP_CKSUM;
		uh->dgram_cksum = rte_ipv4_phdr_cksum(ip, m->ol_flags);
	} else if (net->p.in_process) {
		ip->hdr_checksum = rte_ipv4_cksum(ip); /* 0 in dgram_cksum: none */
	} else {
		uint16_t ck = (uint16_t)~net_cksum_mbuf(m, ETH_LEN + IP4_LEN, UDP_LEN + plen,
			net_phdr4_sum(src, to->addr.bytes, NET_PROTO_UDP, UDP_LEN + plen));

		uh->dgram_cksum = ck == 0 ? 0xffff : ck;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
}

static void
udp6_fill(struct sst_net *net, struct rte_mbuf *m, struct rte_ipv6_hdr *ip, const uint8_t *src,
	const struct sst_net_endpoint *from, const struct sst_net_endpoint *to, uint32_t plen)
{
	struct rte_udp_hdr *uh = (struct rte_udp_hdr *)(ip + 1);

	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(UDP_LEN + plen));
	ip->proto = NET_PROTO_UDP;
	ip->hop_limits = net->p.ttl;
	memcpy(ip->src_addr, src, 16);
	memcpy(ip->dst_addr, to->addr.bytes, 16);
	uh->src_port = rte_cpu_to_be_16(from->port);
	uh->dst_port = rte_cpu_to_be_16(to->port);
	uh->dgram_len = ip->payload_len;
	uh->dgram_cksum = 0;
	m->l2_len = ETH_LEN;
	m->l3_len = IP6_LEN;
	if (net->p.tx_cksum_offload) {
		m->ol_flags |= RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_UDP_CKSUM;
		uh->dgram_cksum = rte_ipv6_phdr_cksum(ip, m->ol_flags);
	} else {
		uint16_t ck = (uint16_t)~net_cksum_mbuf(m, ETH_LEN + IP6_LEN, UDP_LEN + plen,
			net_phdr6_sum(src, to->addr.bytes, NET_PROTO_UDP, UDP_LEN + plen));

		uh->dgram_cksum = ck == 0 ? 0xffff : ck;
	}
}

int
sst_net_send_udp(struct sst_net *net, struct rte_mbuf *m, const struct sst_net_endpoint *from,
	const struct sst_net_endpoint *to, sst_time_t now)
{
	static const uint8_t zero[16];
	bool v4 = to != NULL && to->addr.family == SST_NET_IPV4;
	uint32_t l3 = v4 ? IP4_LEN : IP6_LEN, hlen = ETH_LEN + l3 + UDP_LEN, plen;
	struct sst_net_addr nh;
	const uint8_t *src;
	uint8_t *h;
	int rc;

	if (m == NULL)
		return -EINVAL;
	if (from == NULL || to == NULL || !dst_ok(&to->addr) ||
		from->addr.family != to->addr.family || to->port == 0 || (v4 && !net->has4) ||
		(!v4 && !net->has6)) {
		rc = -EINVAL;
		goto drop;
	}
	if (memcmp(from->addr.bytes, zero, 16) == 0)
		src = v4 ? net->p.ipv4.bytes : net_ipv6_source(net, to->addr.bytes);
	else if (net_is_ours(net, &from->addr))
		src = from->addr.bytes;
	else {
		rc = -EINVAL;
		goto drop;
	}
	plen = rte_pktmbuf_pkt_len(m);
	if (l3 + UDP_LEN + plen > net->p.mtu) {
		net->stats.tx_too_big++;
		rc = -EMSGSIZE;
		goto drop;
	}
	if (net_route(net, &to->addr, &nh) != 0) {
		net->stats.tx_no_route++;
		rc = -ENETUNREACH;
		goto drop;
	}
	/* Headers in the payload's headroom only when nobody else sees that
	 * buffer (a segment kept for retransmission is shared). */
	if (RTE_MBUF_DIRECT(m) && rte_mbuf_refcnt_read(m) == 1 && rte_pktmbuf_headroom(m) >= hlen) {
		h = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)hlen);
	} else {
		struct rte_mbuf *hm = rte_pktmbuf_alloc(net->p.pool);

		h = hm != NULL ? (uint8_t *)rte_pktmbuf_append(hm, (uint16_t)hlen) : NULL;
		if (h == NULL || rte_pktmbuf_chain(hm, m) != 0) {
			rte_pktmbuf_free(hm);
			net->stats.tx_no_mbuf++;
			rc = -ENOBUFS;
			goto drop;
		}
		m = hm;
	}
	net_eth_fill((struct rte_ether_hdr *)h, &(struct rte_ether_addr){{0}}, &net->p.mac,
		v4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);
	if (v4)
		udp4_fill(net, m, (struct rte_ipv4_hdr *)(h + ETH_LEN), src, from, to, plen);
	else
		udp6_fill(net, m, (struct rte_ipv6_hdr *)(h + ETH_LEN), src, from, to, plen);
	rc = net_neigh_output(net, &nh, m, now);
	if (rc == 0)
		net->stats.tx_udp++;
	return rc;
drop:
	rte_pktmbuf_free(m);
	return rc;
}
