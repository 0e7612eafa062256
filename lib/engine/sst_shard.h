/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Which worker of a sharded engine owns a peer (docs/engine.md, "The
 * engine and sharding"): the worker a NIC's receive-side scaling would
 * deliver the peer's packets to. A port with RSS hashes each UDP packet's
 * source and destination addresses and ports with the Toeplitz function
 * under a 40-byte key and looks the hash's low bits up in its redirection
 * table (RETA) to choose a queue; worker i owns queue i. The engine
 * programs the port with this map's key and table (or reads back the
 * port's own), so the same computation in software names the queue the
 * NIC chose: packets arrive at their owner and no handoff is needed. A
 * port without RSS delivers everything to queue 0, and the software
 * dispatch hands what is not its own to the owner.
 *
 * The destination in the hash is our own address and port (the packet was
 * sent to us): the map holds them, so a peer's owner is the same when its
 * packets arrive and when we connect to it. A peer reached from one of a
 * worker's extra local endpoints is named by a tagged endpoint
 * (sst_worker_ep_join()), which carries that local endpoint: it is then
 * the destination hashed, so the channels from many local endpoints to
 * one server spread over the workers as RSS spreads their packets.
 *
 * Where no NIC has to agree (a port without RSS, sockets), any hash that
 * every worker computes alike will do: such a map hashes with CRC32-C
 * (SST_SHARD_HASH_CRC), a few instructions where Toeplitz in software takes
 * hundreds, and every packet of a port without RSS pays it. It is
 * symmetric in the pair (the peer's CRC xor ours), so that two engines of
 * as many workers on ports whose queue i leads to queue i (net_ring, memif)
 * agree on each channel's worker and hand nothing over.
 */
#ifndef SST_SHARD_H
#define SST_SHARD_H

#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>

#include "sst_net.h"

enum {
	SST_SHARD_KEY_LEN = 40,	      /**< Toeplitz key bytes used for IPv4/IPv6 with ports */
	SST_SHARD_RETA_MAX = 512,     /**< largest redirection table */
	SST_SHARD_RETA_DEFAULT = 128, /**< entries of the table sst_shard_map_init() makes */
};

/** The key of Microsoft's RSS verification suite, which sst_shard_map_init()
 * uses and the engine programs into ports with RSS. */
extern const uint8_t sst_shard_default_key[SST_SHARD_KEY_LEN];

/** The hash a map computes over a peer. */
enum sst_shard_hash_kind {
	/** A NIC's RSS (key, addresses, ports as m->l4 says): where a port's
	 * queues must agree with the software. */
	SST_SHARD_HASH_TOEPLITZ = 0,
	/** CRC32-C of the peer's address and port: software dispatch only. */
	SST_SHARD_HASH_CRC,
	SST_SHARD_HASH_KINDS /**< number of kinds */
};

/** How peers are spread over workers. */
struct sst_shard_map {
	uint16_t count;		       /**< workers; 0 or 1: everything is worker 0's */
	enum sst_shard_hash_kind hash; /**< what sst_shard_hash() computes */
	bool l4;		       /**< ports hashed with the addresses (the port's UDP RSS) */
	uint16_t reta_size;	       /**< entries of reta, a power of two <= SST_SHARD_RETA_MAX */
	uint16_t reta[SST_SHARD_RETA_MAX]; /**< low bits of the hash -> worker */
	/** Toeplitz key; aligned: rte_softrss() reads it in 32-bit words (at
	 * offset 1030 it was misaligned, which UBSan reported). */
	alignas(4) uint8_t key[SST_SHARD_KEY_LEN];
	struct sst_net_addr local4; /**< our IPv4 address (family NONE: zeros) */
	struct sst_net_addr local6; /**< our IPv6 address (family NONE: zeros) */
	uint16_t local_port;	    /**< our UDP port */
};

/**
 * A map for @p count workers as the engine programs a port: the Toeplitz
 * hash (SST_SHARD_HASH_TOEPLITZ) under the key of Microsoft's RSS
 * verification suite,
 * ports hashed, a table of SST_SHARD_RETA_DEFAULT entries dealt out in
 * turn (entry i to worker i % count), no local addresses (set them with
 * sst_shard_map_set_local()).
 *
 * @param m
 *   The map (caller memory).
 * @param count
 *   Number of workers; 0 or 1 sends everything to worker 0.
 */
void sst_shard_map_init(struct sst_shard_map *m, uint16_t count);

/**
 * Our address of each family (NULL or family NONE: zeros) and port.
 *
 * @param m
 *   The map (caller memory).
 * @param ipv4
 *   Our IPv4 address, or NULL.
 * @param ipv6
 *   Our IPv6 address, or NULL.
 * @param port
 *   Our UDP port (host order).
 */
void sst_shard_map_set_local(struct sst_shard_map *m, const struct sst_net_addr *ipv4,
	const struct sst_net_addr *ipv6, uint16_t port);

/**
 * Choose the hash of a map (sst_shard_map_init() chooses Toeplitz). A map
 * used by several workers must be set before they copy it: every worker,
 * and whoever connects (sst_engine_owner()), must compute the same owner.
 *
 * @param m
 *   The map (caller memory).
 * @param kind
 *   SST_SHARD_HASH_TOEPLITZ where a port's RSS must agree,
 *   SST_SHARD_HASH_CRC where only the software dispatches.
 * @return
 *   0, or -EINVAL for an unknown kind (the map is unchanged).
 */
int sst_shard_map_set_hash(struct sst_shard_map *m, enum sst_shard_hash_kind kind);

/**
 * The hash of a UDP packet from @p peer to us. SST_SHARD_HASH_TOEPLITZ:
 * the one a NIC computes, over source address, destination address, then
 * (when m->l4) source and destination port, under m->key.
 * SST_SHARD_HASH_CRC: CRC32-C of the peer's address and port xor that of
 * ours (the map's address of the peer's family and port; the key and
 * m->l4 are not used), the same from both ends of a pair. For a tagged
 * endpoint (sst_worker_ep_join()) the destination is the local endpoint
 * it carries, not the map's, under either hash.
 *
 * @param m
 *   The map: its hash, key, and whether ports are hashed.
 * @param peer
 *   The peer's address and UDP port.
 * @return
 *   The 32-bit hash.
 */
uint32_t sst_shard_hash(const struct sst_shard_map *m, const struct sst_net_endpoint *peer);

/**
 * The worker that owns @p peer: m->reta[hash % reta_size].
 *
 * @param m
 *   The map.
 * @param peer
 *   The peer's address and UDP port.
 * @return
 *   The index of the worker, below m->count (0 when count is 0 or 1).
 */
uint16_t sst_shard_owner(const struct sst_shard_map *m, const struct sst_net_endpoint *peer);

#endif /* SST_SHARD_H */
