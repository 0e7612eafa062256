/* SPDX-License-Identifier: BSD-3-Clause */
/* What the link driver and the port setup of drivers/link/ethdev share:
 * one log type, so that every ethdev message can be turned up together
 * (--log-level=sst.link.ethdev:debug). */
#ifndef ETHDEV_INTERNAL_H
#define ETHDEV_INTERNAL_H

#include <rte_ethdev.h>

#include "sst_ethdev.h"
#include "sst_log.h"

extern int sst_logtype_ethdev;

#define ETHDEV_LOG(level, fmt, ...) SST_LOG(level, sst_logtype_ethdev, "ethdev", fmt, ##__VA_ARGS__)

/* Set the port's RSS key and redirection table to the engine's shard map
 * and read them back into info (rss_known, rss_key, rss_reta); after the
 * port started, when info->rss. */
void ethdev_rss_setup(uint16_t port_id, const struct rte_eth_dev_info *dev, uint16_t nb_queues,
	struct sst_ethdev_port_info *info);

/* The descriptor that polls readable when queue 0 of the port has a frame
 * waiting, for a worker with nothing to do to block on (ethdev_wait.c):
 * net_af_packet's packet socket, when the port has one queue pair. Every
 * other port, or one whose socket cannot be told apart: -ENOTSUP. */
int ethdev_wait_fd_find(uint16_t port_id, const struct rte_eth_dev_info *dev);

#endif /* ETHDEV_INTERNAL_H */
