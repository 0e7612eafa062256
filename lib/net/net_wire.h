/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Wire formats of the network layer that DPDK 22.11's headers do not
 * define: the ICMP messages we parse (RFC 792 echo and RFC 1191
 * "fragmentation needed", RFC 4443 echo and "packet too big") and neighbour
 * discovery (RFC 4861 4.3 Neighbor Solicitation, 4.4 Neighbor
 * Advertisement, 4.6.1 link-layer address option). Ethernet, ARP, IPv4,
 * IPv6 and UDP headers are DPDK's (rte_ether.h, rte_arp.h, rte_ip.h,
 * rte_udp.h, rte_icmp.h).
 *
 *   ICMPv4 unreachable   type 3 | code | checksum | unused(16) | next-hop MTU(16) | orig IP+8
 *   ICMPv6 header        type | code | checksum | 32 bits (echo id/seq, PTB MTU)
 *   NS / NA              type | code | checksum | R S O flags + reserved(32) | target(128) | options
 *   link-layer option    type(1 source, 2 target) | length in 8 bytes (1) | MAC
 */
#ifndef NET_WIRE_H
#define NET_WIRE_H

#include <assert.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>

/** IP protocol numbers and IPv6 next-header values we look at. */
enum net_proto {
	NET_PROTO_HOPOPTS = 0,
	NET_PROTO_ICMP = 1,
	NET_PROTO_UDP = 17,
	NET_PROTO_ROUTING = 43,
	NET_PROTO_FRAGMENT = 44,
	NET_PROTO_ICMPV6 = 58,
	NET_PROTO_DSTOPTS = 60,
};

/** ICMPv4 types and codes (RFC 792, RFC 1191). */
enum net_icmp4 {
	NET_ICMP4_ECHO_REPLY = 0,
	NET_ICMP4_UNREACH = 3,
	NET_ICMP4_ECHO_REQUEST = 8,
	NET_ICMP4_CODE_FRAG_NEEDED = 4,
};

/** ICMPv6 types (RFC 4443, RFC 4861). */
enum net_icmp6 {
	NET_ICMP6_PKT_TOO_BIG = 2,
	NET_ICMP6_ECHO_REQUEST = 128,
	NET_ICMP6_ECHO_REPLY = 129,
	NET_ICMP6_NS = 135,
	NET_ICMP6_NA = 136,
};

/** Neighbour discovery constants (RFC 4861). */
enum net_nd {
	NET_ND_HOP_LIMIT = 255, /* 7.1.1: anything else did not come from the link */
	NET_ND_OPT_SRC_LL = 1,
	NET_ND_OPT_TGT_LL = 2,
	NET_ND_OPT_UNIT = 8, /* option lengths count units of 8 bytes */
	NET_ND_NA_ROUTER = 0x80,
	NET_ND_NA_SOLICITED = 0x40,
	NET_ND_NA_OVERRIDE = 0x20,
};

/** Smallest MTUs (RFC 791: 68, RFC 8200: 1280) and the part of an ICMP error we need. */
enum net_limits {
	NET_IP4_MIN_MTU = 68,
	NET_IP6_MIN_MTU = 1280,
	NET_IP6_MAX_EXT = 4, /* extension headers we skip before giving up */
};

/** ICMPv4 "destination unreachable" (RFC 792, next-hop MTU from RFC 1191). */
struct net_icmp4_unreach {
	uint8_t type;
	uint8_t code;
	rte_be16_t cksum;
	rte_be16_t unused;
	rte_be16_t mtu;
} __rte_packed;
static_assert(sizeof(struct net_icmp4_unreach) == 8, "ICMPv4 unreachable header");

/** The first 8 bytes of every ICMPv6 message. */
struct net_icmp6_hdr {
	uint8_t type;
	uint8_t code;
	rte_be16_t cksum;
	rte_be32_t data; /* echo: identifier and sequence; packet too big: MTU */
} __rte_packed;
static_assert(sizeof(struct net_icmp6_hdr) == 8, "ICMPv6 header");

/** Neighbor Solicitation (flags zero) and Advertisement (R, S, O in flags). */
struct net_nd_msg {
	uint8_t type;
	uint8_t code;
	rte_be16_t cksum;
	uint8_t flags;
	uint8_t reserved[3];
	uint8_t target[16];
} __rte_packed;
static_assert(sizeof(struct net_nd_msg) == 24, "NS/NA header");

/** Source / target link-layer address option for Ethernet. */
struct net_nd_opt_ll {
	uint8_t type;
	uint8_t len; /* 1: 8 bytes */
	uint8_t mac[6];
} __rte_packed;
static_assert(sizeof(struct net_nd_opt_ll) == 8, "ND link-layer address option");

#endif /* NET_WIRE_H */
