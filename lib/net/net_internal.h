/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The network layer's real structures and the functions its modules share:
 * net.c (lifecycle, Ethernet demultiplexing, transmit batch, timers),
 * net_neigh.c (the ARP / neighbour cache with its pending queues),
 * net_arp.c, net_ipv4.c (IPv4 and ICMPv4), net_ipv6.c (IPv6 and ICMPv6),
 * net_nd.c (neighbour discovery) and net_udp.c (UDP both ways, routing,
 * checksums). Never installed.
 */
#ifndef NET_INTERNAL_H
#define NET_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "sst_burst.h"
#include "sst_net.h"
#include "sst_time.h"

/** End of a hash chain or the free list. */
#define NET_NIL UINT32_MAX

/* Announcements of our addresses (RFC 5227 2.3: ANNOUNCE_NUM 2,
 * ANNOUNCE_INTERVAL 2 s), at most NET_ANNOUNCE_BATCH frames a millisecond
 * so that a generator's thousands of addresses do not flood the link. */
enum { NET_ANNOUNCE_ROUNDS = 2, NET_ANNOUNCE_BATCH = 32 };
#define NET_ANNOUNCE_INTERVAL (2 * SST_NSEC_PER_SEC)
#define NET_ANNOUNCE_PACE SST_NSEC_PER_MSEC

enum net_neigh_state {
	NET_NEIGH_FREE = 0,
	NET_NEIGH_INCOMPLETE, /* request sent, packets may wait */
	NET_NEIGH_REACHABLE,  /* MAC known (may be past neigh_reachable: then probed) */
};

/** One ARP or neighbour cache entry. */
struct net_neigh {
	struct sst_net_addr addr;
	struct rte_ether_addr mac;
	uint8_t state; /* enum net_neigh_state */
	uint8_t tries; /* requests sent while incomplete */
	uint16_t npending;
	uint32_t next;	      /* hash chain, or free list */
	sst_time_t timer;     /* incomplete: next retry or failure; reachable: removal */
	sst_time_t confirmed; /* last answer (reachable) */
	sst_time_t probe_at;  /* reachable but old: next refresh probe */
	struct rte_mbuf *pending[SST_NET_PENDING_MAX]; /* complete frames but for the MAC */
};

struct sst_net {
	struct sst_net_params p; /* defaults filled in */
	const struct sst_net_ops *ops;
	bool has4, has6, has_gl6;
	uint8_t ll6[16]; /* our link-local address */
	uint8_t gl6[16]; /* our global address (if has_gl6) */
	uint16_t ip_id;
	uint16_t ntx;
	struct rte_mbuf *tx[SST_MAX_BURST];
	struct sst_net_stats stats;
	sst_time_t expiry; /* no neighbour timer fires before this */
	/* Announcing our IPv4 addresses (net_arp_announce()): when the next
	 * batch is due (NEVER: done), the next address, rounds to go. */
	sst_time_t announce_at;
	uint32_t announce_next;
	uint8_t announce_rounds;
	uint32_t nbuckets; /* power of two */
	uint32_t free_head;
	uint32_t *buckets;
	struct net_neigh *neigh;
};

/* net.c */

/** Add a complete frame to the transmit batch; hands the batch over when full. */
void net_tx_push(struct sst_net *net, struct rte_mbuf *m, sst_time_t now);

/**
 * Reuse a received mbuf for a control frame of len bytes: free the chained
 * segments, reset it, and append len bytes.
 * @return the start of the frame, or NULL (mbuf freed) when it has no room.
 */
uint8_t *net_recycle(struct rte_mbuf *m, uint16_t len);

/**
 * Cut a packet to len bytes (len <= its length), freeing trailing segments.
 * @return 0, or -EINVAL when len is larger than the packet.
 */
int net_trim(struct rte_mbuf *m, uint32_t len);

/** True when a is one of our IPv4 or IPv6 unicast addresses. */
bool net_is_ours(const struct sst_net *net, const struct sst_net_addr *a);

/** True when the first plen bits of a and b agree. */
bool net_prefix_match(const uint8_t *a, const uint8_t *b, uint8_t plen);

/** Fill the Ethernet header at the start of a frame. */
void net_eth_fill(struct rte_ether_hdr *eh, const struct rte_ether_addr *dst,
	const struct rte_ether_addr *src, uint16_t type);

/* net_neigh.c */

/** The entry for addr, or NULL. */
struct net_neigh *net_neigh_find(const struct sst_net *net, const struct sst_net_addr *addr);

/**
 * Record that addr is at mac (an answer, or a request naming us).
 * @param create add an entry when there is none
 * Resolving an incomplete entry sends its queued packets.
 * @return true when an entry was updated or created.
 */
bool net_neigh_learn(struct sst_net *net, const struct sst_net_addr *addr,
	const struct rte_ether_addr *mac, bool create, bool override, sst_time_t now);

/**
 * Send a frame (Ethernet header filled but for the destination) to next hop
 * nh: at once when the MAC is known, else queued while it is resolved.
 * Ownership passes. @return 0 or -ENOBUFS (dropped and counted).
 */
int net_neigh_output(
	struct sst_net *net, const struct sst_net_addr *nh, struct rte_mbuf *m, sst_time_t now);

/** Run due neighbour timers. */
void net_neigh_expire(struct sst_net *net, sst_time_t now);

/** Free every queued packet and entry. */
void net_neigh_flush(struct sst_net *net);

/* net_arp.c */

/** Handle an ARP frame (Ethernet header still in front). */
void net_arp_rx(struct sst_net *net, struct rte_mbuf *m, sst_time_t now);

/**
 * Send an ARP request for ip: broadcast, or unicast to mac when given (a
 * refresh probe). Counted; nothing happens when no mbuf is left.
 */
/** Announce the next batch of our IPv4 addresses (gratuitous ARP, RFC
 * 5227 2.3) and set announce_at to the next batch's time. */
void net_arp_announce(struct sst_net *net, sst_time_t now);

void net_arp_request(
	struct sst_net *net, const uint8_t *ip, const struct rte_ether_addr *mac, sst_time_t now);

/* net_ipv4.c, net_ipv6.c */

/** Handle an IPv4 packet; the mbuf starts at the Ethernet header. */
void net_ipv4_rx(struct sst_net *net, struct rte_mbuf *m, sst_time_t now);

/** Handle an IPv6 packet; the mbuf starts at the Ethernet header. */
void net_ipv6_rx(struct sst_net *net, struct rte_mbuf *m, sst_time_t now);

/* net_nd.c */

/**
 * Handle an NS (type 135) or NA (136) whose ICMPv6 checksum was verified.
 * @param ip the IPv6 header (in the first segment)
 * @param off offset of the ICMPv6 message; len its length
 */
void net_nd_rx(struct sst_net *net, struct rte_mbuf *m, const struct rte_ipv6_hdr *ip, uint32_t off,
	uint32_t len, sst_time_t now);

/** Send a Neighbor Solicitation for target: multicast, or unicast to mac (a probe). */
void net_nd_solicit(struct sst_net *net, const uint8_t *target, const struct rte_ether_addr *mac,
	sst_time_t now);

/** The solicited-node multicast address of a (RFC 4291 2.7.1). */
void net_nd_snma(uint8_t snma[16], const uint8_t *a);

/** Our IPv6 source address for talking to dst. */
const uint8_t *net_ipv6_source(const struct sst_net *net, const uint8_t *dst);

/* net_udp.c */

/**
 * Deliver a verified UDP datagram: l4 is the offset of the UDP header,
 * len the IP payload length from it.
 */
void net_udp_rx(struct sst_net *net, struct rte_mbuf *m, const struct sst_net_addr *src,
	const struct sst_net_addr *dst, uint32_t l4, uint32_t len, sst_time_t now);

/** Partial (unfolded) sums of the IPv4 and IPv6 pseudo-headers. */
uint32_t net_phdr4_sum(const uint8_t *src, const uint8_t *dst, uint8_t proto, uint32_t len);
uint32_t net_phdr6_sum(const uint8_t *src, const uint8_t *dst, uint8_t proto, uint32_t len);

/**
 * The one's-complement sum of a pseudo-header partial sum and len bytes of
 * m from off, folded: 0xffff when a received checksum is right.
 * @return the folded sum, or -1 when the range is outside the packet.
 */
int net_cksum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint32_t phdr);

/* net_cksum.c, net_cksum_avx2.c, net_cksum_avx512.c */

/**
 * A kernel of the Internet checksum: the folded one's-complement sum of
 * len bytes at buf (any alignment, any length) in the words' memory
 * order, the value rte_raw_cksum() gives.
 */
typedef uint16_t (*net_cksum_fn)(const void *buf, size_t len);

/** The AVX2 kernel; only on a CPU with AVX2. */
uint16_t net_cksum_avx2(const void *buf, size_t len);

/** The AVX-512 kernel; only on a CPU with AVX-512F and BW. */
uint16_t net_cksum_avx512(const void *buf, size_t len);

/** The next hop towards dst. @return 0 or -ENETUNREACH. */
int net_route(const struct sst_net *net, const struct sst_net_addr *dst, struct sst_net_addr *nh);

/* A received mbuf sent back out (replies built in place): keep only the
 * flags that describe the buffer itself; the rest was receive metadata. */
static inline void
net_clear_rx_flags(struct rte_mbuf *m)
{
	m->ol_flags &= RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL;
	m->packet_type = 0;
}

#endif /* NET_INTERNAL_H */
