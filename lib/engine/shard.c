/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shard map (sst_shard.h): the Toeplitz hash of RSS, computed as a NIC
 * does, or CRC32-C where no NIC has to agree, and the redirection table.
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_hash_crc.h>
#include <rte_thash.h>

#include "sst_shard.h"
#include "worker_tag.h"

/* Microsoft's RSS verification key: any fixed key would do for software
 * dispatch; a well-known one is what most ports start with. */
const uint8_t sst_shard_default_key[SST_SHARD_KEY_LEN] = {0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e,
	0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b,
	0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe,
	0xac, 0x01, 0xfa};

void
sst_shard_map_init(struct sst_shard_map *m, uint16_t count)
{
	memset(m, 0, sizeof(*m));
	m->count = count;
	m->hash = SST_SHARD_HASH_TOEPLITZ;
	m->l4 = true;
	m->reta_size = SST_SHARD_RETA_DEFAULT;
	for (uint16_t i = 0; i < m->reta_size; i++)
		m->reta[i] = count > 1 ? i % count : 0;
	memcpy(m->key, sst_shard_default_key, sizeof(m->key));
}

void
sst_shard_map_set_local(struct sst_shard_map *m, const struct sst_net_addr *ipv4,
	const struct sst_net_addr *ipv6, uint16_t port)
{
	memset(&m->local4, 0, sizeof(m->local4));
	memset(&m->local6, 0, sizeof(m->local6));
	if (ipv4 != NULL && ipv4->family == SST_NET_IPV4)
		m->local4 = *ipv4;
	if (ipv6 != NULL && ipv6->family == SST_NET_IPV6)
		m->local6 = *ipv6;
	m->local_port = port;
}

/* Append the words of an address (network order in memory) to the tuple
 * in host order, as rte_softrss() takes them. */
static uint32_t
put_addr(uint32_t *tuple, uint32_t n, const uint8_t *bytes, uint32_t words)
{
	for (uint32_t i = 0; i < words; i++) {
		rte_be32_t be;

		memcpy(&be, bytes + 4 * i, sizeof(be));
		tuple[n++] = rte_be_to_cpu_32(be);
	}
	return n;
}

/* The local port a tagged endpoint carries (network order in bytes 8..9). */
static uint16_t
tag_port(const struct sst_net_endpoint *peer)
{
	return (uint16_t)(peer->addr.bytes[EP_LOCAL_PORT] << 8 |
			  peer->addr.bytes[EP_LOCAL_PORT + 1]);
}

/*
 * A packet's tuple as a NIC hashes it: source (the peer), destination (us),
 * then the ports. Our half is the map's address and port, or, for a peer
 * reached from one of a worker's extra local endpoints (a tagged endpoint,
 * worker_tag.h), the local endpoint the tag names: that is the destination
 * of its packets, so the owner is the queue RSS puts them on, and the
 * channels of one generator to one server spread over the workers by
 * their source endpoints. An untagged endpoint takes the map's half, as
 * before (one test of a byte already in the cache line).
 */
static uint32_t
hash_toeplitz(const struct sst_shard_map *m, const struct sst_net_endpoint *peer)
{
	bool v6 = peer->addr.family == SST_NET_IPV6;
	uint32_t words = v6 ? 4 : 1;
	const uint8_t *local = v6 ? m->local6.bytes : m->local4.bytes;
	uint16_t local_port = m->local_port;
	uint32_t tuple[9];
	uint32_t n = 0;

	if (worker_ep_tagged(peer)) {
		local = &peer->addr.bytes[EP_LOCAL_ADDR];
		local_port = tag_port(peer);
	}
	n = put_addr(tuple, n, peer->addr.bytes, words);
	n = put_addr(tuple, n, local, words);
	if (m->l4)
		tuple[n++] = (uint32_t)peer->port << 16 | local_port;
	return rte_softrss(tuple, n, m->key);
}

/* CRC32-C of one endpoint: its address, then its port. With SSE4.2
 * (DPDK's x86 baseline) rte_hash_crc() is the crc32 instruction. */
static inline uint32_t
endpoint_crc(const uint8_t *addr, uint32_t len, uint16_t port)
{
	return rte_hash_crc_2byte(port, rte_hash_crc(addr, len, 0));
}

/*
 * The pair, symmetric: the peer's endpoint's CRC xor ours (the map's half,
 * or the local endpoint a tagged peer carries, as for Toeplitz). Both ends
 * of a channel then compute the same hash, so two engines with as many
 * workers over ports without RSS whose queue i leads to queue i (net_ring,
 * memif) name the same worker for it: it sends on the queue its peer's
 * owner reads, and nothing takes the dispatch step. Our half zero (a
 * socket bound to the wildcard address and port 0) adds nothing: the
 * CRC of zeros from 0 is 0.
 */
static uint32_t
hash_crc(const struct sst_shard_map *m, const struct sst_net_endpoint *peer)
{
	bool v6 = peer->addr.family == SST_NET_IPV6;
	uint32_t len = v6 ? 16 : 4;
	const uint8_t *local = v6 ? m->local6.bytes : m->local4.bytes;
	uint16_t local_port = m->local_port;

	if (worker_ep_tagged(peer)) {
		local = &peer->addr.bytes[EP_LOCAL_ADDR];
		local_port = tag_port(peer);
	}
	return endpoint_crc(peer->addr.bytes, len, peer->port) ^
	       endpoint_crc(local, len, local_port);
}

/* Indexed by the map's kind: chosen once per map, no switch per packet. */
static uint32_t (*const hash_fns[SST_SHARD_HASH_KINDS])(
	const struct sst_shard_map *, const struct sst_net_endpoint *) = {
	[SST_SHARD_HASH_TOEPLITZ] = hash_toeplitz,
	[SST_SHARD_HASH_CRC] = hash_crc,
};

int
sst_shard_map_set_hash(struct sst_shard_map *m, enum sst_shard_hash_kind kind)
{
	if ((unsigned int)kind >= SST_SHARD_HASH_KINDS)
		return -EINVAL;
	m->hash = kind;
	return 0;
}

uint32_t
sst_shard_hash(const struct sst_shard_map *m, const struct sst_net_endpoint *peer)
{
	return hash_fns[m->hash](m, peer);
}

uint16_t
sst_shard_owner(const struct sst_shard_map *m, const struct sst_net_endpoint *peer)
{
	if (m->count <= 1 || m->reta_size == 0)
		return 0;
	return m->reta[sst_shard_hash(m, peer) % m->reta_size];
}
