/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The ethdev link driver and the engine's port and queue setup.
 *
 * A frame link (SST_LINK_FRAMES, driver "ethdev") is one receive and one
 * transmit queue of a DPDK port, used by one worker: open it with
 * sst_link_open() and driver_conf pointing at a struct sst_ethdev_link_conf.
 * The port must have been set up first (sst_ethdev_port_setup()): received
 * frames come from the mempool given there for that queue, not from the
 * link's conf.pool (which sst_link_open() still requires).
 *
 * sst_ethdev_ring_pair() makes two net_ring ports wired back to back, for
 * tests, benchmarks and the tools' loopback mode.
 */
#ifndef SST_ETHDEV_H
#define SST_ETHDEV_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mempool.h>

#include "sst_shard.h"

/** driver_conf of an "ethdev" link. */
struct sst_ethdev_link_conf {
	uint16_t port_id;  /**< the port, set up with sst_ethdev_port_setup() */
	uint16_t queue_id; /**< the receive and the transmit queue */
	/** The engine's device step (the first link's conf): ask the port to
	 * stamp received frames (sst_ethdev_port_conf.rx_timestamp). */
	bool rx_timestamp;
	/** Device setup (the first link's conf): the port receives frames
	 * for every address, for a network layer that answers for an
	 * address other than the port's (sst_net_params.mac). */
	bool promiscuous;
};

enum {
	SST_ETHDEV_RX_DESC = 1024,	 /**< receive descriptors per queue by default */
	SST_ETHDEV_TX_DESC = 1024,	 /**< transmit descriptors per queue by default */
	SST_ETHDEV_RING_QUEUES_MAX = 16, /**< queues of a net_ring port */
	SST_ETHDEV_RING_SIZE = 4096,	 /**< frames each ring of a ring pair holds */
	SST_ETHDEV_RING_NAME_MAX = 16,	 /**< characters of a ring pair's name */
	SST_ETHDEV_ERR_LEN = 128,	 /**< bytes of sst_ethdev_port_info.err */
	SST_ETHDEV_DRIVER_NAME_LEN = 32, /**< bytes of sst_ethdev_port_info.driver_name */
};

/** How to set up a port. Fields left zero take the defaults shown. */
struct sst_ethdev_port_conf {
	uint32_t size;	    /**< sizeof(struct sst_ethdev_port_conf) */
	uint16_t nb_queues; /**< receive and transmit queues: one of each per worker */
	/** nb_queues pools: pools[q] gives the mbufs queue q receives into. */
	struct rte_mempool *const *pools;
	uint16_t
		nb_rx_desc; /**< per queue; 0: SST_ETHDEV_RX_DESC (adjusted to the port's limits) */
	uint16_t
		nb_tx_desc; /**< per queue; 0: SST_ETHDEV_TX_DESC (adjusted to the port's limits) */
	uint16_t mtu;	    /**< 0: leave the port's */
	bool promiscuous;   /**< receive frames for every MAC address */
	/** Stamp received frames with the port's clock when it offers it
	 * (RTE_ETH_RX_OFFLOAD_TIMESTAMP, the mbuf's timestamp dynamic field;
	 * rte_eth_read_clock() reads the same clock): for tools that time
	 * arrivals (sst-gen). Off by default: a stamp costs the port a write
	 * per frame that nothing else reads. */
	bool rx_timestamp;
};

/** What sst_ethdev_port_setup() found and did. */
struct sst_ethdev_port_info {
	struct rte_ether_addr mac;		      /**< the port's address */
	char driver_name[SST_ETHDEV_DRIVER_NAME_LEN]; /**< its PMD (net_ring, net_ice, ...) */
	uint16_t max_rx_queues;			      /**< receive queues it offers */
	uint16_t max_tx_queues;			      /**< transmit queues it offers */
	uint16_t nb_rx_desc;			      /**< per queue, after adjustment */
	uint16_t nb_tx_desc;			      /**< per queue, after adjustment */
	uint16_t mtu;				      /**< the port's MTU after setup */
	bool rss;	 /**< the port spreads received flows over the queues */
	uint64_t rss_hf; /**< RTE_ETH_RSS_* hash types enabled */
	/** With rss: the hash the port was set to, read back from it
	 * (sst_shard.h): its key's first bytes, whether UDP ports are
	 * hashed, its redirection table. rss_known is false when the port
	 * would not say (the engine then hands over what lands elsewhere). */
	bool rss_known;
	bool rss_l4;			       /**< UDP ports hashed with the addresses */
	uint8_t rss_key[SST_SHARD_KEY_LEN];    /**< the key's first bytes */
	uint16_t rss_reta_size;		       /**< entries of rss_reta */
	uint16_t rss_reta[SST_SHARD_RETA_MAX]; /**< redirection table: entry -> queue */
	bool tx_cksum_offload; /**< the port computes IPv4 header and UDP checksums */
	bool rx_cksum_offload; /**< the port checks them (RTE_MBUF_F_RX_*_CKSUM_*) */
	bool tx_multi_seg;     /**< the port sends chained mbufs */
	bool rx_timestamp;     /**< the port stamps received frames (asked and offered) */
	/** Why setup failed, one line (empty on success). */
	char err[SST_ETHDEV_ERR_LEN];
};

/**
 * Configure and start a port with conf->nb_queues receive and transmit
 * queues. With more than one queue, and when the port offers it, receive
 * side scaling spreads IPv4 and IPv6 flows (UDP ports and addresses, or
 * addresses alone for other packets and fragments) over the queues; a port
 * without it (net_ring) leaves the dispatch to the engine. IPv4 and UDP
 * checksum offload (transmit and receive) and multi-segment transmit are
 * enabled when offered.
 * Failures are logged (type sst.link.ethdev) and described in info->err.
 * At setup, on the main lcore, before the links are opened.
 *
 * @param port_id
 *   The port.
 * @param conf
 *   Configuration; the pools stay the caller's and must outlive the port.
 * @param info
 *   Filled in (may be NULL).
 * @return
 *   0; -ENODEV: no such port; -EINVAL: bad conf (size, no queues, more
 *   queues than the port has, a missing pool, an MTU out of the port's
 *   range); or the negative errno of the ethdev call that failed.
 */
int sst_ethdev_port_setup(uint16_t port_id, const struct sst_ethdev_port_conf *conf,
	struct sst_ethdev_port_info *info);

/**
 * Stop and close a port (its port id is free afterwards). The driver frees
 * the mbufs of its descriptor rings; frames left in the rings of a ring
 * pair are freed by sst_ethdev_ring_pair_free().
 * @param port_id The port.
 * @return 0, -ENODEV (no such port), or the negative errno of the stop.
 */
int sst_ethdev_port_stop(uint16_t port_id);

/**
 * The descriptor that polls readable when receive queue queue_id of a
 * started port has a frame waiting, for a program that polls the port
 * itself and wants to block while it has nothing to do: the packet socket
 * of a net_af_packet port of one queue pair, or the AF_XDP socket of a
 * net_af_xdp queue set up by sst_ethdev_port_setup(). The PMD owns it:
 * poll it, never read or close it.
 * @param port_id The port.
 * @param queue_id The receive queue.
 * @return The descriptor, or -ENODEV (no such port), -ENOTSUP (a port
 *   without one, or whose socket cannot be told apart from another).
 */
int sst_ethdev_wait_fd(uint16_t port_id, uint16_t queue_id);

/**
 * Two net_ring ports wired back to back: what queue q of port A sends,
 * queue q of port B receives, and the other way round. Each ring holds
 * SST_ETHDEV_RING_SIZE frames and has one producer and one consumer (one
 * thread per queue on each side). The ports still need
 * sst_ethdev_port_setup(); net_ring has no RSS.
 *
 * @param name
 *   At most SST_ETHDEV_RING_NAME_MAX characters, unique in the process.
 * @param nb_queues
 *   1..SST_ETHDEV_RING_QUEUES_MAX.
 * @param port_a
 *   Set to the first port's id.
 * @param port_b
 *   Set to the second port's id.
 * @return
 *   0; -EINVAL: bad name or queue count; -ENAMETOOLONG; -EEXIST: the name
 *   is taken; -ENOMEM: no memory for the rings; or another negative errno
 *   from creating the ports.
 */
int sst_ethdev_ring_pair(const char *name, uint16_t nb_queues, uint16_t *port_a, uint16_t *port_b);

/**
 * Remove a ring pair made by sst_ethdev_ring_pair(): its two ports (closed
 * if still open) and its rings, with the mbufs still in them freed.
 * @param name The name given to sst_ethdev_ring_pair().
 * @param nb_queues The queue count given to it.
 * @return 0, or -ENOENT: no ring pair of that name (name NULL too).
 */
int sst_ethdev_ring_pair_free(const char *name, uint16_t nb_queues);

#endif /* SST_ETHDEV_H */
