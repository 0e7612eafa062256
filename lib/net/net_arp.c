/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP for IPv4 over Ethernet (RFC 826, with the probe handling of RFC 5227):
 * answer requests for our address, learn from requests that name us and
 * from replies to our own requests, build requests for the neighbour cache
 * (net_neigh.c), and announce our addresses when the layer starts (RFC
 * 5227 2.3).
 *
 * Learning follows RFC 826's merge rule, narrowed the way Linux does by
 * default: a sender already in the cache is refreshed by any ARP packet
 * (gratuitous ones included); a new entry is created only from a request
 * addressed to us. Unsolicited replies and gratuitous ARP for unknown hosts
 * create nothing.
 */
#include <string.h>

#include <rte_arp.h>

#include "net_internal.h"

enum { ARP_FRAME_LEN = sizeof(struct rte_ether_hdr) + sizeof(struct rte_arp_hdr) };

/* Fill an ARP frame (Ethernet header and ARP body) at p, from our address
 * spa. */
static void
arp_fill(const struct sst_net *net, uint8_t *p, uint16_t op, const struct rte_ether_addr *eth_dst,
	const uint8_t *spa, const struct rte_ether_addr *tha, const uint8_t *tpa)
{
	struct rte_arp_hdr *ah = (struct rte_arp_hdr *)(p + sizeof(struct rte_ether_hdr));

	net_eth_fill((struct rte_ether_hdr *)p, eth_dst, &net->p.mac, RTE_ETHER_TYPE_ARP);
	ah->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	ah->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ah->arp_hlen = RTE_ETHER_ADDR_LEN;
	ah->arp_plen = 4;
	ah->arp_opcode = rte_cpu_to_be_16(op);
	rte_ether_addr_copy(&net->p.mac, &ah->arp_data.arp_sha);
	memcpy(&ah->arp_data.arp_sip, spa, 4);
	rte_ether_addr_copy(tha, &ah->arp_data.arp_tha);
	memcpy(&ah->arp_data.arp_tip, tpa, 4);
}

void
net_arp_request(
	struct sst_net *net, const uint8_t *ip, const struct rte_ether_addr *mac, sst_time_t now)
{
	static const struct rte_ether_addr bcast = {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};
	static const struct rte_ether_addr zero;
	struct rte_mbuf *m = rte_pktmbuf_alloc(net->p.pool);
	uint8_t *p = m != NULL ? (uint8_t *)rte_pktmbuf_append(m, ARP_FRAME_LEN) : NULL;

	if (p == NULL) {
		rte_pktmbuf_free(m);
		net->stats.tx_no_mbuf++;
		return;
	}
	arp_fill(net, p, RTE_ARP_OP_REQUEST, mac != NULL ? mac : &bcast, net->p.ipv4.bytes, &zero,
		ip);
	net->stats.tx_arp_request++;
	net_tx_push(net, m, now);
}

void
net_arp_announce(struct sst_net *net, sst_time_t now)
{
	static const struct rte_ether_addr bcast = {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};
	static const struct rte_ether_addr zero;
	rte_be32_t first;
	uint32_t base;

	memcpy(&first, net->p.ipv4.bytes, sizeof(first));
	base = rte_be_to_cpu_32(first);

	for (unsigned int i = 0; i < NET_ANNOUNCE_BATCH && net->announce_next < net->p.ipv4_count;
		i++) {
		rte_be32_t addr = rte_cpu_to_be_32(base + net->announce_next);
		struct rte_mbuf *m = rte_pktmbuf_alloc(net->p.pool);
		uint8_t *p = m != NULL ? (uint8_t *)rte_pktmbuf_append(m, ARP_FRAME_LEN) : NULL;

		if (p == NULL) {
			/* Again in a moment, from this address. */
			rte_pktmbuf_free(m);
			net->stats.tx_no_mbuf++;
			net->announce_at = now + NET_ANNOUNCE_PACE;
			return;
		}
		arp_fill(net, p, RTE_ARP_OP_REQUEST, &bcast, (const uint8_t *)&addr, &zero,
			(const uint8_t *)&addr);
		net->stats.tx_arp_announce++;
		net_tx_push(net, m, now);
		net->announce_next++;
	}
	if (net->announce_next < net->p.ipv4_count) {
		net->announce_at = now + NET_ANNOUNCE_PACE;
		return;
	}
	net->announce_next = 0;
	net->announce_at =
		--net->announce_rounds > 0 ? now + NET_ANNOUNCE_INTERVAL : SST_TIME_NEVER;
}

/* A sender we may put in the cache: on our link, not 0, not the subnet broadcast. */
static bool
arp_learnable(const struct sst_net *net, const uint8_t *spa)
{
	static const uint8_t zero[4];
	uint8_t plen = net->p.ipv4_prefix_len;
	bool bcast = plen < 31;

	for (unsigned int bit = plen; bit < 32 && bcast; bit++)
		bcast = (spa[bit / 8] >> (7 - bit % 8)) & 1;
	return memcmp(spa, zero, 4) != 0 && !bcast &&
	       net_prefix_match(spa, net->p.ipv4.bytes, plen);
}

void
net_arp_rx(struct sst_net *net, struct rte_mbuf *m, sst_time_t now)
{
	const struct rte_arp_hdr *ah;
	struct rte_ether_addr sha;
	struct sst_net_addr spa = {.family = SST_NET_IPV4};
	struct sst_net_addr tpa_addr = {.family = SST_NET_IPV4};
	uint8_t tpa[4];
	uint16_t op;
	bool for_us, learnable;
	uint8_t *p;

	if (m->data_len < ARP_FRAME_LEN) {
		net->stats.rx_arp_bad++;
		rte_pktmbuf_free(m);
		return;
	}
	ah = rte_pktmbuf_mtod_offset(m, const struct rte_arp_hdr *, sizeof(struct rte_ether_hdr));
	op = rte_be_to_cpu_16(ah->arp_opcode);
	if (ah->arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
		ah->arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
		ah->arp_hlen != RTE_ETHER_ADDR_LEN || ah->arp_plen != 4 ||
		(op != RTE_ARP_OP_REQUEST && op != RTE_ARP_OP_REPLY) ||
		!rte_is_valid_assigned_ether_addr(&ah->arp_data.arp_sha)) {
		net->stats.rx_arp_bad++;
		rte_pktmbuf_free(m);
		return;
	}
	sha = ah->arp_data.arp_sha;
	memcpy(spa.bytes, &ah->arp_data.arp_sip, 4);
	memcpy(tpa, &ah->arp_data.arp_tip, 4);
	/* Our own address as sender is a conflict (RFC 5227 2.4) or our own
	 * frame looped back: never answered, never learned. */
	memcpy(tpa_addr.bytes, tpa, 4);
	for_us = net_is_ours(net, &tpa_addr) && !net_is_ours(net, &spa);
	learnable = !net_is_ours(net, &spa) && arp_learnable(net, spa.bytes);

	if (op == RTE_ARP_OP_REQUEST && for_us) {
		/* RFC 826 "?Am I the target protocol address?": merge, then answer.
		 * A probe (sender 0.0.0.0, RFC 5227) is answered but teaches nothing. */
		if (learnable)
			net_neigh_learn(net, &spa, &sha, true, true, now);
		p = net_recycle(m, ARP_FRAME_LEN);
		net->stats.rx_arp_request++;
		if (p == NULL) {
			net->stats.tx_no_mbuf++;
			return;
		}
		arp_fill(net, p, RTE_ARP_OP_REPLY, &sha, tpa, &sha, spa.bytes);
		net->stats.tx_arp_reply++;
		net_tx_push(net, m, now);
		return;
	}
	if (op == RTE_ARP_OP_REPLY && for_us && learnable &&
		net_neigh_learn(net, &spa, &sha, false, true, now)) {
		net->stats.rx_arp_reply++;
	} else {
		/* Not for us, gratuitous, or an answer nobody asked for: only
		 * refresh an entry we already have. */
		if (learnable)
			net_neigh_learn(net, &spa, &sha, false, true, now);
		net->stats.rx_arp_other++;
	}
	rte_pktmbuf_free(m);
}
