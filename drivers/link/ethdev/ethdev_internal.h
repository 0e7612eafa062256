/* SPDX-License-Identifier: BSD-3-Clause */
/* What the link driver and the port setup of drivers/link/ethdev share:
 * one log type, so that every ethdev message can be turned up together
 * (--log-level=sst.link.ethdev:debug). */
#ifndef ETHDEV_INTERNAL_H
#define ETHDEV_INTERNAL_H

#include <sys/types.h>

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

/* The descriptor that polls readable when queue queue_id of the port has
 * a frame waiting, for a worker with nothing to do to block on
 * (ethdev_wait.c): net_af_xdp's AF_XDP socket of the queue, as its setup
 * found it (ethdev_xsk_note()); net_af_packet's packet socket, when the
 * port has one queue pair. Every other port, or one whose socket cannot
 * be told apart: -ENOTSUP. */
int ethdev_wait_fd_find(uint16_t port_id, uint16_t queue_id, const struct rte_eth_dev_info *dev);

enum {
	ETHDEV_XSK_QUEUES = 64,	   /* queues of a net_af_xdp port given a descriptor */
	ETHDEV_XSK_LIST_MAX = 256, /* AF_XDP sockets of the process looked at */
};

/* The process's AF_XDP sockets at one instant: descriptor and inode (a
 * descriptor closed and reused is another socket). */
struct ethdev_xsks {
	int fd[ETHDEV_XSK_LIST_MAX];
	ino_t ino[ETHDEV_XSK_LIST_MAX];
	unsigned int n;
};

/* The pool net_af_xdp port port_id's queue queue_id receives into and
 * sends from without a copy (its UMEM, ethdev_port.c); NULL for other
 * ports. */
struct rte_mempool *ethdev_umem_pool(uint16_t port_id, uint16_t queue_id);

/* List the process's AF_XDP sockets into x, before a queue's setup. */
void ethdev_xsk_list(struct ethdev_xsks *x);

/* After queue queue_id of net_af_xdp port port_id was set up: the one
 * AF_XDP socket that was not in before is the queue's (none or several:
 * none known, the worker polls). */
void ethdev_xsk_note(uint16_t port_id, uint16_t queue_id, const struct ethdev_xsks *before);

/* The port stopped: its sockets are closed. */
void ethdev_xsk_forget(uint16_t port_id);

#endif /* ETHDEV_INTERNAL_H */
