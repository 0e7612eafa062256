/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The network layer: just enough Ethernet, ARP, IPv4, IPv6 with neighbour
 * discovery, UDP and ICMP for SST to talk to ordinary hosts and routers
 * over one Ethernet port with a static configuration (docs/net.md).
 *
 * Like the protocol layers above it, the network layer is sans-IO: it never
 * reads a clock and never touches a port. The engine hands it received
 * frames with sst_net_rx_burst(); UDP datagrams for our addresses come back
 * through the deliver_udp() callback as the received mbuf with its data
 * offset moved to the UDP payload (zero copy); frames to send (UDP, ARP and
 * neighbour-discovery traffic, echo replies) leave through transmit().
 * Timers are sst_net_next_expiry() plus sst_net_handle_expiry(). One
 * sst_net belongs to one thread; nothing in it is thread-safe.
 */
#ifndef SST_NET_H
#define SST_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "sst_time.h"

struct sst_net;

/** Address families, as the IP version number. */
enum sst_net_family {
	SST_NET_NONE = 0, /**< no address (not configured) */
	SST_NET_IPV4 = 4, /**< IPv4 */
	SST_NET_IPV6 = 6, /**< IPv6 */
};

/** An IPv4 or IPv6 address. IPv4 uses bytes[0..3] (network order), the rest is zero. */
struct sst_net_addr {
	uint8_t family;	   /**< enum sst_net_family */
	uint8_t bytes[16]; /**< the address, network byte order */
};

/** A UDP endpoint: address and port (host byte order). */
struct sst_net_endpoint {
	struct sst_net_addr addr; /**< IP address */
	uint16_t port;		  /**< UDP port, host byte order */
};

/**
 * Whether two endpoints are one (family, address and port).
 * @param a An endpoint.
 * @param b Another.
 * @return true if they are equal.
 */
static inline bool
sst_net_endpoint_equal(const struct sst_net_endpoint *a, const struct sst_net_endpoint *b)
{
	return a->port == b->port && a->addr.family == b->addr.family &&
	       memcmp(a->addr.bytes, b->addr.bytes, sizeof(a->addr.bytes)) == 0;
}

/** Routes in the static table besides the on-link prefixes and the default gateways. */
#define SST_NET_ROUTES_MAX 8
/** Largest number of packets that may wait for one neighbour's resolution. */
#define SST_NET_PENDING_MAX 32

/** A static route: destinations in prefix/prefix_len go through gateway. */
struct sst_net_route {
	struct sst_net_addr prefix;  /**< destination prefix (its family selects the table) */
	uint8_t prefix_len;	     /**< bits of prefix that count */
	struct sst_net_addr gateway; /**< on-link next hop; family NONE: the prefix is on-link */
};

/** What the layer calls back into (the engine, a test). */
struct sst_net_ops {
	/**
	 * A UDP datagram for one of our addresses. The mbuf is the received
	 * one, its data offset moved to the UDP payload and its length cut to
	 * the UDP length; ownership passes.
	 * @param ctx sst_net_params.ctx.
	 * @param m The datagram's payload; ownership passes.
	 * @param from Its source.
	 * @param to Its destination (one of our addresses).
	 * @param now Current time.
	 */
	void (*deliver_udp)(void *ctx, struct rte_mbuf *m, const struct sst_net_endpoint *from,
		const struct sst_net_endpoint *to, sst_time_t now);
	/** Take n complete Ethernet frames for the port (ownership passes).
	 * @param ctx sst_net_params.ctx.
	 * @param pkts The frames; ownership passes.
	 * @param n Number of frames.
	 * @param now Current time.
	 */
	void (*transmit)(void *ctx, struct rte_mbuf **pkts, uint16_t n, sst_time_t now);
	/**
	 * An ICMP "fragmentation needed" or ICMPv6 "packet too big" about a
	 * UDP datagram we sent from local to remote: the path to remote takes
	 * IP packets of at most mtu bytes (sst_net_udp_payload_max() converts).
	 * May be NULL.
	 * @param ctx sst_net_params.ctx.
	 * @param local Our endpoint the datagram came from.
	 * @param remote Its destination.
	 * @param mtu The largest IP packet the path takes.
	 * @param now Current time.
	 */
	void (*pmtu)(void *ctx, const struct sst_net_endpoint *local,
		const struct sst_net_endpoint *remote, uint32_t mtu, sst_time_t now);
};

/** Static configuration. Fields left zero take the defaults shown. */
struct sst_net_params {
	uint32_t size;			  /**< sizeof(struct sst_net_params), for future growth */
	struct rte_ether_addr mac;	  /**< the port's address (unicast) */
	uint16_t mtu;			  /**< largest IP packet on the link; 0: 1500 */
	struct sst_net_addr ipv4;	  /**< family NONE: no IPv4 */
	uint8_t ipv4_prefix_len;	  /**< on-link prefix, 1..32 */
	struct sst_net_addr ipv4_gateway; /**< default route; family NONE: none */
	struct sst_net_addr ipv6;	  /**< global address; family NONE: link-local only */
	uint8_t ipv6_prefix_len;	  /**< on-link prefix of ipv6, 1..128 */
	struct sst_net_addr ipv6_link_local; /**< family NONE: fe80::/64 + EUI-64 of mac */
	struct sst_net_addr ipv6_gateway;    /**< default route (often link-local); NONE: none */
	bool ipv6_enabled; /**< answer ND and accept IPv6 (implied by a global ipv6 address) */
	struct sst_net_route
		routes[SST_NET_ROUTES_MAX]; /**< static routes, the first nroutes used */
	uint8_t nroutes;		    /**< entries of routes in use, <= SST_NET_ROUTES_MAX */
	uint8_t ttl;			    /**< TTL / hop limit of what we send; 0: 64 */
	uint32_t neigh_entries;		    /**< ARP + neighbour cache entries; 0: 64 */
	uint32_t pending_max;	    /**< packets queued per unresolved neighbour, <= 32; 0: 8 */
	uint32_t neigh_retries;	    /**< requests/solicitations before giving up; 0: 3 */
	sst_time_t neigh_retrans;   /**< time between them; 0: 1 s */
	sst_time_t neigh_reachable; /**< an answer is trusted this long; 0: 30 s */
	bool tx_cksum_offload;	    /**< the port computes IPv4 header and UDP checksums */
	/** Frames stay in this process's memory (a net_ring pair between two
	 * workers): UDP over IPv4 goes without a checksum (0, "none", RFC 768),
	 * which receivers accept; the channel's armor still checks every
	 * packet. Without tx_cksum_offload the software checksum was a third
	 * of the worker's link work (docs/performance.md, "Two workers"). */
	bool in_process;
	struct rte_mempool *pool; /**< for ARP/ND frames and header mbufs */
	/** The callbacks (deliver_udp and transmit required); the layer
	 * keeps the pointer, so the table must outlive it. */
	const struct sst_net_ops *ops;
	void *ctx; /**< first argument of every callback */
	/** IPv4 addresses that are ours: ipv4 and the ipv4_count - 1 after it
	 * (all answered by ARP, accepted as destinations and as sources of
	 * what we send; inside the on-link prefix); 0: 1. The others are
	 * for a generator that speaks from many addresses (sst-gen). */
	uint32_t ipv4_count;
	/** Do not announce our IPv4 addresses. By default each one is
	 * announced twice, 2 s apart, from the first sst_net_handle_expiry()
	 * (RFC 5227 2.3: a gratuitous ARP request, sender and target our
	 * address): a neighbour that knew an address of ours with another MAC
	 * (a restarted process on a virtual port, a replaced NIC) updates its
	 * cache now, where it would otherwise send to the old MAC until its
	 * entry expired. Several layers on one port (an engine's workers) need
	 * one that announces. */
	bool no_announce;
};

/**
 * Counters. Every received frame ends in exactly one rx_* disposition
 * counter, so rx_frames equals the sum of all of them (sst_net_stats_rx_sum()).
 */
struct sst_net_stats {
	uint64_t rx_frames; /**< frames given to sst_net_rx_burst() */
	/* Dispositions of received frames. */
	uint64_t rx_eth_short; /**< shorter than an Ethernet header, or headers not in segment 1 */
	uint64_t rx_eth_not_ours; /**< destination MAC neither ours, broadcast nor our multicast */
	uint64_t rx_eth_type;	  /**< EtherType other than ARP, IPv4, IPv6 (VLAN tags included) */
	uint64_t rx_arp_bad;	  /**< malformed ARP (lengths, hardware/protocol type, opcode) */
	uint64_t rx_arp_request;  /**< requests for our address, answered */
	uint64_t rx_arp_reply;	  /**< replies that resolved or refreshed a cache entry */
	uint64_t rx_arp_other;	  /**< not for us, gratuitous, unsolicited: no answer */
	uint64_t rx_ip4_short;	  /**< truncated header */
	uint64_t rx_ip4_version;  /**< version not 4 or IHL below 5 */
	uint64_t rx_ip4_len;	  /**< total length below the header or beyond the frame */
	uint64_t rx_ip4_cksum;	  /**< header checksum wrong */
	uint64_t rx_ip4_ttl;	  /**< TTL 0 */
	uint64_t rx_ip4_frag;	  /**< a fragment (MF or offset set): we never reassemble */
	uint64_t rx_ip4_src;	  /**< source multicast, broadcast, loopback or ours */
	uint64_t rx_ip4_not_ours; /**< destination is not our address */
	uint64_t rx_ip4_proto;	  /**< protocol neither UDP nor ICMP */
	uint64_t rx_ip6_short;	  /**< truncated header */
	uint64_t rx_ip6_version;  /**< version not 6 */
	uint64_t rx_ip6_len;	  /**< payload length beyond the frame */
	uint64_t rx_ip6_src;	  /**< source multicast, loopback or ours */
	uint64_t rx_ip6_not_ours; /**< destination is none of our addresses or groups */
	uint64_t rx_ip6_ext;	  /**< an extension header we do not skip, or too many of them */
	uint64_t rx_ip6_frag;	  /**< a fragment header */
	uint64_t rx_ip6_proto;	  /**< next header neither UDP nor ICMPv6 */
	uint64_t rx_udp;	  /**< delivered */
	uint64_t rx_udp_short;	  /**< truncated header */
	uint64_t rx_udp_len;	  /**< UDP length below 8 or beyond the IP payload */
	uint64_t rx_udp_cksum;	  /**< checksum wrong (or zero over IPv6) */
	uint64_t rx_icmp4_bad;	  /**< truncated or checksum wrong */
	uint64_t rx_icmp4_echo;	  /**< echo requests answered */
	uint64_t rx_icmp4_pmtu;	  /**< fragmentation needed, passed to pmtu() */
	uint64_t rx_icmp4_pmtu_bad; /**< fragmentation needed we do not believe */
	uint64_t rx_icmp4_other;    /**< other types, ignored */
	uint64_t rx_icmp6_bad;	    /**< truncated or checksum wrong */
	uint64_t rx_icmp6_echo;	    /**< echo requests answered */
	uint64_t rx_icmp6_pmtu;	    /**< packet too big, passed to pmtu() */
	uint64_t rx_icmp6_pmtu_bad; /**< packet too big we do not believe */
	uint64_t rx_icmp6_other;    /**< other types (router advertisements...), ignored */
	uint64_t rx_nd_bad;	    /**< ND with hop limit != 255, code != 0, bad length/options */
	uint64_t rx_nd_ns;	    /**< solicitations for our addresses, answered */
	uint64_t rx_nd_na;	    /**< advertisements that resolved or refreshed an entry */
	uint64_t rx_nd_other;	    /**< ND not for us or for nothing we wait for */
	/* Transmit side. */
	uint64_t tx_frames;	     /**< frames handed to transmit() */
	uint64_t tx_udp;	     /**< UDP datagrams sent (or queued for resolution) */
	uint64_t tx_arp_request;     /**< includes refresh probes */
	uint64_t tx_arp_reply;	     /**< answers to requests for our address */
	uint64_t tx_arp_announce;    /**< gratuitous requests announcing our addresses */
	uint64_t tx_nd_ns;	     /**< includes refresh probes */
	uint64_t tx_nd_na;	     /**< advertisements answering solicitations */
	uint64_t tx_no_route;	     /**< no route to the destination */
	uint64_t tx_too_big;	     /**< larger than the link MTU */
	uint64_t tx_no_mbuf;	     /**< the pool had no mbuf for a header or request */
	uint64_t tx_neigh_full;	     /**< no cache entry free to resolve a new neighbour */
	uint64_t tx_pending_full;    /**< the neighbour's queue was full */
	uint64_t tx_pending_timeout; /**< dropped when resolution failed */
	uint64_t neigh_resolved;     /**< resolutions that completed */
	uint64_t neigh_failed;	     /**< resolutions that timed out */
	uint64_t neigh_expired;	     /**< entries removed after neigh_reachable and probes */
};

/**
 * Bytes of memory an sst_net with these parameters needs.
 * @param p Parameters.
 * @return the size, or 0 for invalid parameters (rte_errno = EINVAL).
 */
size_t sst_net_size(const struct sst_net_params *p);

/**
 * Set up in caller memory of sst_net_size() bytes, aligned to a cache line.
 * @param net The memory.
 * @param p Parameters, copied (the pool and ops stay the caller's and
 *   must outlive the layer).
 * @return 0, or -EINVAL: missing pool or ops (deliver_udp, transmit), a MAC
 * that is not unicast, an address of the wrong family, a prefix length out
 * of range, pending_max above SST_NET_PENDING_MAX, neither IPv4 nor IPv6.
 */
int sst_net_init(struct sst_net *net, const struct sst_net_params *p);

/** Free every queued packet. The memory stays the caller's.
 * @param net The layer; NULL is ignored. */
void sst_net_fini(struct sst_net *net);

/** sst_net_size() + rte_zmalloc() + sst_net_init().
 * @param p Parameters, as for sst_net_init().
 * @return The layer, or NULL with rte_errno EINVAL or ENOMEM. */
struct sst_net *sst_net_create(const struct sst_net_params *p);

/** sst_net_fini() + rte_free().
 * @param net A layer from sst_net_create(); NULL is ignored. */
void sst_net_destroy(struct sst_net *net);

/**
 * Process received frames (ownership passes). Each ends delivered to
 * deliver_udp(), answered (ARP, ND, echo: the reply reuses the mbuf), passed
 * to pmtu(), or freed and counted by reason. Replies are transmitted before
 * this returns.
 * @param net The layer.
 * @param pkts The frames.
 * @param n Frames at @p pkts.
 * @param now Current time.
 * @return frames delivered to deliver_udp().
 */
uint16_t sst_net_rx_burst(struct sst_net *net, struct rte_mbuf **pkts, uint16_t n, sst_time_t now);

/**
 * Send one UDP datagram. Ethernet, IP and UDP headers go into the mbuf's
 * headroom when it is direct, unshared and has room, or else into a header
 * mbuf from the pool chained in front. The frame is added to the transmit
 * batch (sent when the batch holds SST_MAX_BURST frames or at
 * sst_net_flush()), or queued while the next hop's address is resolved.
 * IPv4 packets carry DF. Ownership of m passes in every case.
 *
 * @param net The layer.
 * @param m
 *   The payload (may be a chain).
 * @param from
 *   Source port and family. The address is one of ours, or all zero to let
 *   the layer pick ours (for IPv6: the link-local address towards
 *   link-local destinations, else the global one).
 * @param to
 *   Destination: a unicast address of the same family.
 * @param now Current time (neighbour resolution).
 * @return 0 (sent, batched or queued), -EINVAL (bad endpoints, not our
 *   source address, family not configured), -ENETUNREACH (no route),
 *   -EMSGSIZE (larger than the link MTU), -ENOBUFS (no header mbuf, no
 *   cache entry free, or the neighbour's queue is full).
 */
int sst_net_send_udp(struct sst_net *net, struct rte_mbuf *m, const struct sst_net_endpoint *from,
	const struct sst_net_endpoint *to, sst_time_t now);

/** Hand the transmit batch to transmit().
 * @param net The layer.
 * @param now Current time, passed to transmit(). */
void sst_net_flush(struct sst_net *net, sst_time_t now);

/** Earliest time sst_net_handle_expiry() has work (may be early).
 * @param net The layer.
 * @return The time, or SST_TIME_NEVER. */
sst_time_t sst_net_next_expiry(const struct sst_net *net);

/**
 * Run the neighbour timers due at now: repeat requests and solicitations,
 * give up on neighbours that did not answer (their queued packets are
 * dropped and counted), expire old entries. Frames go out before it returns.
 * @param net The layer.
 * @param now Current time.
 */
void sst_net_handle_expiry(struct sst_net *net, sst_time_t now);

/** The counters.
 * @param net The layer.
 * @return Its own counters, updated in place; valid until sst_net_fini(). */
const struct sst_net_stats *sst_net_stats(const struct sst_net *net);

/** Sum of the rx disposition counters (for tests and fuzzers).
 * @param s Counters.
 * @return The sum; equals rx_frames. */
uint64_t sst_net_stats_rx_sum(const struct sst_net_stats *s);

/**
 * The MAC address a neighbour resolved to.
 * @param net The layer.
 * @param addr The neighbour's IP address.
 * @param mac Set on success; may be NULL.
 * @retval 0 Resolved: *mac set.
 * @retval -ENOENT Not in the cache.
 * @retval -EAGAIN Being resolved.
 */
int sst_net_neigh_lookup(
	const struct sst_net *net, const struct sst_net_addr *addr, struct rte_ether_addr *mac);

/**
 * The one's-complement sum (RFC 1071, folded, not inverted) of len bytes of
 * m from off, in the words' memory order like rte_raw_cksum(); right for
 * segments of any length, unlike DPDK 22.11's rte_raw_cksum_mbuf().
 * @param m The packet.
 * @param off First byte summed.
 * @param len Bytes summed.
 * @param cksum The sum, on success.
 * @return 0, or -EINVAL when the range is outside the packet.
 */
int sst_net_cksum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint16_t *cksum);

/**
 * Implementations of the software Internet checksum, all giving the same
 * values. sst_net_cksum_mbuf() (and the layer's own checksums) use the
 * widest one the CPU runs within 256-bit vectors, chosen before main(),
 * or the one sst_net_cksum_impl_select() names (sst_engine_create() asks
 * for the widest within the EAL's SIMD width); the others stay reachable
 * for tests and benchmarks.
 */
enum sst_net_cksum_impl {
	SST_NET_CKSUM_IMPL_SCALAR, /**< rte_raw_cksum(): the reference */
	SST_NET_CKSUM_IMPL_AVX2,   /**< 32 bytes per step; CPUs with AVX2 */
	SST_NET_CKSUM_IMPL_AVX512, /**< 64 bytes per step; CPUs with AVX-512BW */
	SST_NET_CKSUM_IMPL_COUNT,  /**< number of implementations */
};

/** Whether this CPU runs impl.
 * @param impl An implementation.
 * @return True when it runs here (false for values outside the enum). */
bool sst_net_cksum_impl_supported(enum sst_net_cksum_impl impl);

/** Short name of impl.
 * @param impl An implementation.
 * @return "scalar", "avx2", "avx512" (static strings), or NULL outside
 * the enum. */
const char *sst_net_cksum_impl_name(enum sst_net_cksum_impl impl);

/** The implementation sst_net_cksum_mbuf() uses.
 * @return The one chosen last (before main(): the widest this CPU runs
 * within 256-bit vectors). */
enum sst_net_cksum_impl sst_net_cksum_impl_active(void);

/** The widest implementation this CPU runs within a vector width.
 * @param max_simd_bits Widest vectors allowed, in bits, as
 * rte_vect_get_max_simd_bitwidth() gives them.
 * @return An implementation (SST_NET_CKSUM_IMPL_SCALAR when none is wider). */
enum sst_net_cksum_impl sst_net_cksum_impl_widest(unsigned int max_simd_bits);

/** Make impl the one sst_net_cksum_mbuf() uses. Not thread-safe: call it
 * before any thread checksums (sst_engine_create() does, with the EAL's
 * SIMD width).
 * @param impl An implementation.
 * @return 0, -EINVAL outside the enum, -ENOTSUP when this CPU does not
 * run it. */
int sst_net_cksum_impl_select(enum sst_net_cksum_impl impl);

/**
 * sst_net_cksum_mbuf() computed by a given implementation, one for which
 * sst_net_cksum_impl_supported() is true (precondition).
 * @param impl The implementation.
 * @param m The packet.
 * @param off First byte summed.
 * @param len Bytes summed.
 * @param cksum The sum, on success.
 * @return 0, or -EINVAL when the range is outside the packet.
 */
int sst_net_cksum_mbuf_with(enum sst_net_cksum_impl impl, const struct rte_mbuf *m, uint32_t off,
	uint32_t len, uint16_t *cksum);

/** Largest UDP payload in an IP packet of mtu bytes of this family.
 * @param family SST_NET_IPV4 or SST_NET_IPV6.
 * @param mtu Largest IP packet, bytes.
 * @return Bytes (at most 65535 less the headers), or 0 if none fits or the
 *   family is neither. */
uint32_t sst_net_udp_payload_max(enum sst_net_family family, uint32_t mtu);

/** An IPv4 address from four bytes (a.b.c.d).
 * @param a First byte.
 * @param b Second byte.
 * @param c Third byte.
 * @param d Fourth byte.
 * @return The address. */
struct sst_net_addr sst_net_addr4(uint8_t a, uint8_t b, uint8_t c, uint8_t d);

/**
 * Parse "a.b.c.d" or an RFC 4291 IPv6 text address (with "::").
 * @param text The text.
 * @param addr Set on success, untouched on error.
 * @return 0, or -EINVAL (NULL argument or not an address).
 */
int sst_net_addr_parse(const char *text, struct sst_net_addr *addr);

#endif /* SST_NET_H */
