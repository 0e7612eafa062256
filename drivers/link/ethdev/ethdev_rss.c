/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive-side scaling set to what the engine computes (sst_shard.h): the
 * port gets the shard map's key and a redirection table that deals its
 * entries out to the queues in turn, and both are read back, since a port
 * may keep its own (the engine then uses what the port has). A port that
 * refuses either, or cannot tell, is reported as unknown: its packets
 * still reach the right worker, through the engine's handoff.
 */
#include <string.h>

#include <rte_ethdev.h>

#include "ethdev_internal.h"

#define ETHDEV_KEY_MAX 64

static void
key_setup(uint16_t port_id, const struct rte_eth_dev_info *dev, struct sst_ethdev_port_info *info)
{
	uint8_t key[ETHDEV_KEY_MAX] = {0};
	struct rte_eth_rss_conf rc = {.rss_key = key, .rss_key_len = dev->hash_key_size};

	/* Beyond the first 40 bytes a key does not matter for IPv4 and IPv6
	 * with ports: the hash of n input bytes uses n + 4 key bytes. */
	if (dev->hash_key_size < SST_SHARD_KEY_LEN || dev->hash_key_size > ETHDEV_KEY_MAX)
		return;
	memcpy(key, sst_shard_default_key, SST_SHARD_KEY_LEN);
	rc.rss_hf = info->rss_hf;
	if (rte_eth_dev_rss_hash_update(port_id, &rc) != 0)
		ETHDEV_LOG(INFO, "port %u keeps its own RSS key", port_id);
	memset(key, 0, sizeof(key));
	if (rte_eth_dev_rss_hash_conf_get(port_id, &rc) != 0)
		return;
	memcpy(info->rss_key, key, SST_SHARD_KEY_LEN);
	info->rss_l4 = (rc.rss_hf & RTE_ETH_RSS_NONFRAG_IPV4_UDP) != 0;
	info->rss_known = true;
}

static void
reta_setup(uint16_t port_id, const struct rte_eth_dev_info *dev, uint16_t nb_queues,
	struct sst_ethdev_port_info *info)
{
	struct rte_eth_rss_reta_entry64 reta[SST_SHARD_RETA_MAX / RTE_ETH_RETA_GROUP_SIZE];
	uint16_t size = dev->reta_size;

	if (size == 0 || size > SST_SHARD_RETA_MAX || (size & (size - 1)) != 0 ||
		size % RTE_ETH_RETA_GROUP_SIZE != 0) {
		info->rss_known = false;
		return;
	}
	memset(reta, 0, sizeof(reta));
	for (uint16_t i = 0; i < size; i++) {
		reta[i / RTE_ETH_RETA_GROUP_SIZE].mask |= 1ull << (i % RTE_ETH_RETA_GROUP_SIZE);
		reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE] =
			(uint16_t)(i % nb_queues);
	}
	if (rte_eth_dev_rss_reta_update(port_id, reta, size) != 0)
		ETHDEV_LOG(INFO, "port %u keeps its own RSS redirection table", port_id);
	if (rte_eth_dev_rss_reta_query(port_id, reta, size) != 0) {
		info->rss_known = false;
		return;
	}
	for (uint16_t i = 0; i < size; i++) {
		uint16_t q = reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE];

		if (q >= nb_queues) {
			info->rss_known = false;
			return;
		}
		info->rss_reta[i] = q;
	}
	info->rss_reta_size = size;
}

void
ethdev_rss_setup(uint16_t port_id, const struct rte_eth_dev_info *dev, uint16_t nb_queues,
	struct sst_ethdev_port_info *info)
{
	if (!info->rss)
		return;
	key_setup(port_id, dev, info);
	if (info->rss_known)
		reta_setup(port_id, dev, nb_queues, info);
	ETHDEV_LOG(INFO, "port %u: RSS %s the engine's dispatch", port_id,
		info->rss_known ? "matches"
				: "unknown: packets for another queue are handed over by");
}
