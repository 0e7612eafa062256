/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 input (RFC 791, RFC 1122 3.2.1) and ICMPv4 (RFC 792): validate the
 * header, drop what a host that never reassembles must drop, hand UDP to
 * net_udp.c, answer echo requests, and pass "fragmentation needed" (RFC
 * 1191) to the pmtu() callback. Every drop is counted by reason.
 */
#include <string.h>

#include <rte_icmp.h>

#include "net_internal.h"
#include "net_wire.h"

enum { ETH_LEN = sizeof(struct rte_ether_hdr), IP4_LEN = sizeof(struct rte_ipv4_hdr) };

static void
drop(struct rte_mbuf *m, uint64_t *counter)
{
	(*counter)++;
	rte_pktmbuf_free(m);
}

/* Sources no host may use (RFC 1122 3.2.1.3): this-network, loopback, class D and E. */
static bool
ip4_bad_source(const struct sst_net *net, const struct sst_net_addr *src)
{
	uint8_t a = src->bytes[0];

	return a == 0 || a == 127 || a >= 224 || net_is_ours(net, src);
}

/*
 * Echo request (RFC 792, RFC 1122 3.2.2.6): turn the message at off into an
 * echo reply in place, with a fresh IPv4 header (options are not echoed)
 * and the request's source MAC as destination (it is the neighbour the
 * request came through). Precondition: checksum verified.
 */
static void
icmp4_echo(struct sst_net *net, struct rte_mbuf *m, uint32_t off, uint32_t len,
	const struct sst_net_addr *src, sst_time_t now)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ether_addr peer = eh->src_addr;
	struct rte_icmp_hdr *ic;
	struct rte_ipv4_hdr *ip;
	uint16_t ck = 0;

	net->stats.rx_icmp4_echo++;
	rte_pktmbuf_adj(m, (uint16_t)off);
	ic = rte_pktmbuf_mtod(m, struct rte_icmp_hdr *);
	ic->icmp_type = NET_ICMP4_ECHO_REPLY;
	ic->icmp_code = 0;
	ic->icmp_cksum = 0;
	sst_net_cksum_mbuf(m, 0, len, &ck);
	ic->icmp_cksum = (uint16_t)~ck;
	eh = (struct rte_ether_hdr *)rte_pktmbuf_prepend(m, ETH_LEN + IP4_LEN);
	if (eh == NULL) { /* cannot happen: the request's headers were longer */
		drop(m, &net->stats.tx_no_mbuf);
		return;
	}
	net_eth_fill(eh, &peer, &net->p.mac, RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(IP4_LEN + len));
	ip->packet_id = rte_cpu_to_be_16(net->ip_id++);
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = net->p.ttl;
	ip->next_proto_id = NET_PROTO_ICMP;
	memcpy(&ip->src_addr, net->p.ipv4.bytes, 4);
	memcpy(&ip->dst_addr, src->bytes, 4);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	net_clear_rx_flags(m);
	net_tx_push(net, m, now);
}

/*
 * "Fragmentation needed and DF set" (RFC 792 type 3 code 4, next-hop MTU
 * of RFC 1191 4): believe it only when it quotes a UDP datagram from our
 * address that was larger than the MTU it reports.
 */
static void
icmp4_frag_needed(
	struct sst_net *net, struct rte_mbuf *m, uint32_t off, uint32_t len, sst_time_t now)
{
	uint8_t buf[sizeof(struct net_icmp4_unreach) + 60 + sizeof(struct rte_udp_hdr)];
	uint32_t n = RTE_MIN(len, (uint32_t)sizeof(buf));
	const uint8_t *p = rte_pktmbuf_read(m, off, n, buf);
	struct net_icmp4_unreach u;
	struct rte_ipv4_hdr oip;
	struct rte_udp_hdr ou;
	struct sst_net_endpoint local = {.addr.family = SST_NET_IPV4};
	struct sst_net_endpoint remote = {.addr.family = SST_NET_IPV4};
	uint32_t ihl, mtu;

	if (p == NULL || n < sizeof(u) + IP4_LEN + sizeof(ou))
		goto bad;
	memcpy(&u, p, sizeof(u));
	memcpy(&oip, p + sizeof(u), sizeof(oip));
	ihl = (uint32_t)(oip.version_ihl & RTE_IPV4_HDR_IHL_MASK) * RTE_IPV4_IHL_MULTIPLIER;
	if ((oip.version_ihl >> 4) != 4 || ihl < IP4_LEN || sizeof(u) + ihl + sizeof(ou) > n ||
		oip.next_proto_id != NET_PROTO_UDP)
		goto bad;
	memcpy(&ou, p + sizeof(u) + ihl, sizeof(ou));
	memcpy(local.addr.bytes, &oip.src_addr, 4);
	memcpy(remote.addr.bytes, &oip.dst_addr, 4);
	if (!net_is_ours(net, &local.addr))
		goto bad;
	mtu = rte_be_to_cpu_16(u.mtu);
	/* A zero MTU comes from pre-RFC 1191 routers; we do not guess plateaus. */
	if (mtu < NET_IP4_MIN_MTU || mtu >= rte_be_to_cpu_16(oip.total_length))
		goto bad;
	local.port = rte_be_to_cpu_16(ou.src_port);
	remote.port = rte_be_to_cpu_16(ou.dst_port);
	net->stats.rx_icmp4_pmtu++;
	rte_pktmbuf_free(m);
	if (net->ops->pmtu != NULL)
		net->ops->pmtu(
			net->p.ctx, &local, &remote, RTE_MIN(mtu, (uint32_t)net->p.mtu), now);
	return;
bad:
	drop(m, &net->stats.rx_icmp4_pmtu_bad);
}

static void
icmp4_rx(struct sst_net *net, struct rte_mbuf *m, uint32_t off, uint32_t len,
	const struct sst_net_addr *src, sst_time_t now)
{
	const struct rte_icmp_hdr *ic;

	if (len < sizeof(*ic) || m->data_len < off + sizeof(*ic) ||
		net_cksum_mbuf(m, off, len, 0) != 0xffff) {
		drop(m, &net->stats.rx_icmp4_bad);
		return;
	}
	ic = rte_pktmbuf_mtod_offset(m, const struct rte_icmp_hdr *, off);
	if (ic->icmp_type == NET_ICMP4_ECHO_REQUEST && ic->icmp_code == 0)
		icmp4_echo(net, m, off, len, src, now);
	else if (ic->icmp_type == NET_ICMP4_UNREACH && ic->icmp_code == NET_ICMP4_CODE_FRAG_NEEDED)
		icmp4_frag_needed(net, m, off, len, now);
	else
		drop(m, &net->stats.rx_icmp4_other);
}

void
net_ipv4_rx(struct sst_net *net, struct rte_mbuf *m, sst_time_t now)
{
	const struct rte_ipv4_hdr *ip;
	struct sst_net_addr src = {.family = SST_NET_IPV4}, dst = {.family = SST_NET_IPV4};
	uint64_t ck = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
	uint32_t ihl, tot;

	if (m->data_len < ETH_LEN + IP4_LEN) {
		drop(m, &net->stats.rx_ip4_short);
		return;
	}
	ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, ETH_LEN);
	ihl = (uint32_t)(ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) * RTE_IPV4_IHL_MULTIPLIER;
	if ((ip->version_ihl >> 4) != 4 || ihl < IP4_LEN) {
		drop(m, &net->stats.rx_ip4_version);
		return;
	}
	if (m->data_len < ETH_LEN + ihl) {
		drop(m, &net->stats.rx_ip4_short);
		return;
	}
	tot = rte_be_to_cpu_16(ip->total_length);
	if (tot < ihl || tot > rte_pktmbuf_pkt_len(m) - ETH_LEN) {
		drop(m, &net->stats.rx_ip4_len);
		return;
	}
	/* The port's verdict where it gave one (NONE: header verified, its
	 * checksum field not filled in), ours otherwise. */
	if (ck == RTE_MBUF_F_RX_IP_CKSUM_BAD ||
		(ck != RTE_MBUF_F_RX_IP_CKSUM_GOOD && ck != RTE_MBUF_F_RX_IP_CKSUM_NONE &&
			rte_raw_cksum(ip, ihl) != 0xffff)) {
		drop(m, &net->stats.rx_ip4_cksum);
		return;
	}
	if (ip->time_to_live == 0) {
		drop(m, &net->stats.rx_ip4_ttl);
		return;
	}
	if (ip->fragment_offset &
		rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) {
		drop(m, &net->stats.rx_ip4_frag);
		return;
	}
	memcpy(src.bytes, &ip->src_addr, 4);
	memcpy(dst.bytes, &ip->dst_addr, 4);
	if (ip4_bad_source(net, &src)) {
		drop(m, &net->stats.rx_ip4_src);
		return;
	}
	if (!net_is_ours(net, &dst)) {
		drop(m, &net->stats.rx_ip4_not_ours);
		return;
	}
	/* Ethernet pads short frames: the IP length is the truth. */
	net_trim(m, ETH_LEN + tot);
	if (ip->next_proto_id == NET_PROTO_UDP)
		net_udp_rx(net, m, &src, &dst, ETH_LEN + ihl, tot - ihl, now);
	else if (ip->next_proto_id == NET_PROTO_ICMP)
		icmp4_rx(net, m, ETH_LEN + ihl, tot - ihl, &src, now);
	else
		drop(m, &net->stats.rx_ip4_proto);
}
