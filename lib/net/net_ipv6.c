/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 input (RFC 8200) and ICMPv6 (RFC 4443): validate the header, accept
 * our unicast addresses plus the multicast groups neighbour discovery needs
 * (all-nodes, our solicited-node groups), skip hop-by-hop and destination
 * options and exhausted routing headers, drop fragments, hand UDP to
 * net_udp.c and ND to net_nd.c, answer echo requests and pass "packet too
 * big" (RFC 8201) to the pmtu() callback. Every drop is counted by reason.
 */
#include <string.h>

#include "net_internal.h"
#include "net_wire.h"

enum { ETH_LEN = sizeof(struct rte_ether_hdr), IP6_LEN = sizeof(struct rte_ipv6_hdr) };

static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 0x01};
static const uint8_t loopback[16] = {[15] = 0x01};

static void
drop(struct rte_mbuf *m, uint64_t *counter)
{
	(*counter)++;
	rte_pktmbuf_free(m);
}

static bool
is_unspecified(const uint8_t *a)
{
	static const uint8_t zero[16];

	return memcmp(a, zero, 16) == 0;
}

const uint8_t *
net_ipv6_source(const struct sst_net *net, const uint8_t *dst)
{
	bool link_local = dst[0] == 0xfe && (dst[1] & 0xc0) == 0x80;

	return link_local || !net->has_gl6 ? net->ll6 : net->gl6;
}

/* Our unicast addresses, all-nodes, and the solicited-node groups of our addresses. */
static bool
ip6_dst_ours(const struct sst_net *net, const uint8_t *dst)
{
	uint8_t snma[16];

	if (memcmp(dst, net->ll6, 16) == 0 || (net->has_gl6 && memcmp(dst, net->gl6, 16) == 0) ||
		memcmp(dst, all_nodes, 16) == 0)
		return true;
	net_nd_snma(snma, net->ll6);
	if (memcmp(dst, snma, 16) == 0)
		return true;
	net_nd_snma(snma, net->gl6);
	return net->has_gl6 && memcmp(dst, snma, 16) == 0;
}

/* Echo request (RFC 4443 4.1): answer from the address it was sent to. */
static void
icmp6_echo(struct sst_net *net, struct rte_mbuf *m, uint32_t off, uint32_t len,
	const struct rte_ipv6_hdr *rip, sst_time_t now)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ether_addr peer = eh->src_addr;
	uint8_t src[16], dst[16];
	struct net_icmp6_hdr *ic;
	struct rte_ipv6_hdr *ip;

	memcpy(src, rip->dst_addr, 16);
	memcpy(dst, rip->src_addr, 16);
	net->stats.rx_icmp6_echo++;
	rte_pktmbuf_adj(m, (uint16_t)off);
	ic = rte_pktmbuf_mtod(m, struct net_icmp6_hdr *);
	ic->type = NET_ICMP6_ECHO_REPLY;
	ic->code = 0;
	ic->cksum = 0;
	ic->cksum = (uint16_t)~net_cksum_mbuf(
		m, 0, len, net_phdr6_sum(src, dst, NET_PROTO_ICMPV6, len));
	eh = (struct rte_ether_hdr *)rte_pktmbuf_prepend(m, ETH_LEN + IP6_LEN);
	if (eh == NULL) { /* cannot happen: the request's headers were longer */
		drop(m, &net->stats.tx_no_mbuf);
		return;
	}
	net_eth_fill(eh, &peer, &net->p.mac, RTE_ETHER_TYPE_IPV6);
	ip = (struct rte_ipv6_hdr *)(eh + 1);
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)len);
	ip->proto = NET_PROTO_ICMPV6;
	ip->hop_limits = net->p.ttl;
	memcpy(ip->src_addr, src, 16);
	memcpy(ip->dst_addr, dst, 16);
	net_clear_rx_flags(m);
	net_tx_push(net, m, now);
}

/*
 * Packet too big (RFC 4443 3.2, RFC 8201 4): believe it only when it
 * quotes a UDP datagram (no extension headers) from one of our addresses
 * that was larger than the MTU it reports. An MTU below 1280 means 1280.
 */
static void
icmp6_too_big(struct sst_net *net, struct rte_mbuf *m, uint32_t off, uint32_t len, sst_time_t now)
{
	uint8_t buf[sizeof(struct net_icmp6_hdr) + IP6_LEN + sizeof(struct rte_udp_hdr)];
	const uint8_t *p = len >= sizeof(buf) ? rte_pktmbuf_read(m, off, sizeof(buf), buf) : NULL;
	struct net_icmp6_hdr h;
	struct rte_ipv6_hdr oip;
	struct rte_udp_hdr ou;
	struct sst_net_endpoint local = {.addr.family = SST_NET_IPV6};
	struct sst_net_endpoint remote = {.addr.family = SST_NET_IPV6};
	uint32_t mtu;

	if (p == NULL)
		goto bad;
	memcpy(&h, p, sizeof(h));
	memcpy(&oip, p + sizeof(h), sizeof(oip));
	memcpy(&ou, p + sizeof(h) + IP6_LEN, sizeof(ou));
	memcpy(local.addr.bytes, oip.src_addr, 16);
	memcpy(remote.addr.bytes, oip.dst_addr, 16);
	mtu = rte_be_to_cpu_32(h.data);
	if ((rte_be_to_cpu_32(oip.vtc_flow) >> 28) != 6 || oip.proto != NET_PROTO_UDP ||
		!net_is_ours(net, &local.addr) ||
		mtu >= IP6_LEN + (uint32_t)rte_be_to_cpu_16(oip.payload_len))
		goto bad;
	mtu = RTE_MAX(mtu, (uint32_t)NET_IP6_MIN_MTU);
	local.port = rte_be_to_cpu_16(ou.src_port);
	remote.port = rte_be_to_cpu_16(ou.dst_port);
	net->stats.rx_icmp6_pmtu++;
	rte_pktmbuf_free(m);
	if (net->ops->pmtu != NULL)
		net->ops->pmtu(
			net->p.ctx, &local, &remote, RTE_MIN(mtu, (uint32_t)net->p.mtu), now);
	return;
bad:
	drop(m, &net->stats.rx_icmp6_pmtu_bad);
}

static void
icmp6_rx(struct sst_net *net, struct rte_mbuf *m, const struct rte_ipv6_hdr *ip, uint32_t off,
	uint32_t len, sst_time_t now)
{
	const struct net_icmp6_hdr *ic;

	if (len < sizeof(*ic) || m->data_len < off + sizeof(*ic) ||
		net_cksum_mbuf(m, off, len,
			net_phdr6_sum(ip->src_addr, ip->dst_addr, NET_PROTO_ICMPV6, len)) !=
			0xffff) {
		drop(m, &net->stats.rx_icmp6_bad);
		return;
	}
	ic = rte_pktmbuf_mtod_offset(m, const struct net_icmp6_hdr *, off);
	switch (ic->type) {
	case NET_ICMP6_NS:
	case NET_ICMP6_NA:
		net_nd_rx(net, m, ip, off, len, now);
		break;
	case NET_ICMP6_ECHO_REQUEST:
		/* Only unicast requests to us from a real source are answered. */
		if (ic->code != 0 || ip->dst_addr[0] == 0xff || is_unspecified(ip->src_addr))
			drop(m, &net->stats.rx_icmp6_other);
		else
			icmp6_echo(net, m, off, len, ip, now);
		break;
	case NET_ICMP6_PKT_TOO_BIG:
		icmp6_too_big(net, m, off, len, now);
		break;
	default:
		drop(m, &net->stats.rx_icmp6_other);
		break;
	}
}

void
net_ipv6_rx(struct sst_net *net, struct rte_mbuf *m, sst_time_t now)
{
	const struct rte_ipv6_hdr *ip;
	uint32_t plen, off = ETH_LEN + IP6_LEN, left;
	uint8_t nh;

	if (m->data_len < ETH_LEN + IP6_LEN) {
		drop(m, &net->stats.rx_ip6_short);
		return;
	}
	ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *, ETH_LEN);
	if ((rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6) {
		drop(m, &net->stats.rx_ip6_version);
		return;
	}
	plen = rte_be_to_cpu_16(ip->payload_len);
	if (IP6_LEN + plen > rte_pktmbuf_pkt_len(m) - ETH_LEN) {
		drop(m, &net->stats.rx_ip6_len);
		return;
	}
	/* Multicast and loopback sources are never valid (RFC 4291 2.5.3, 2.7). */
	if (ip->src_addr[0] == 0xff || memcmp(ip->src_addr, loopback, 16) == 0 ||
		memcmp(ip->src_addr, net->ll6, 16) == 0 ||
		(net->has_gl6 && memcmp(ip->src_addr, net->gl6, 16) == 0)) {
		drop(m, &net->stats.rx_ip6_src);
		return;
	}
	if (!ip6_dst_ours(net, ip->dst_addr)) {
		drop(m, &net->stats.rx_ip6_not_ours);
		return;
	}
	net_trim(m, ETH_LEN + IP6_LEN + plen);
	/* Extension headers (RFC 8200 4): skip options, refuse the rest. */
	nh = ip->proto;
	left = plen;
	for (unsigned int i = 0;; i++) {
		const uint8_t *x;
		uint32_t xlen;

		if (nh == NET_PROTO_FRAGMENT) {
			drop(m, &net->stats.rx_ip6_frag);
			return;
		}
		if (nh != NET_PROTO_HOPOPTS && nh != NET_PROTO_DSTOPTS && nh != NET_PROTO_ROUTING)
			break;
		if (i == NET_IP6_MAX_EXT || left < 8 || m->data_len < off + 8) {
			drop(m, &net->stats.rx_ip6_ext);
			return;
		}
		x = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
		xlen = ((uint32_t)x[1] + 1) * 8;
		/* A routing header with segments left names another hop: not us. */
		if (xlen > left || (nh == NET_PROTO_ROUTING && x[3] != 0) ||
			(nh == NET_PROTO_HOPOPTS && i != 0)) {
			drop(m, &net->stats.rx_ip6_ext);
			return;
		}
		nh = x[0];
		off += xlen;
		left -= xlen;
	}
	if (nh == NET_PROTO_UDP) {
		struct sst_net_addr src = {.family = SST_NET_IPV6}, dst = {.family = SST_NET_IPV6};

		if (ip->dst_addr[0] == 0xff) {
			drop(m, &net->stats.rx_ip6_not_ours);
			return;
		}
		if (is_unspecified(ip->src_addr)) {
			drop(m, &net->stats.rx_ip6_src);
			return;
		}
		memcpy(src.bytes, ip->src_addr, 16);
		memcpy(dst.bytes, ip->dst_addr, 16);
		net_udp_rx(net, m, &src, &dst, off, left, now);
	} else if (nh == NET_PROTO_ICMPV6) {
		icmp6_rx(net, m, ip, off, left, now);
	} else {
		drop(m, &net->stats.rx_ip6_proto);
	}
}
