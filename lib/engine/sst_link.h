/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Links: where the engine's packets enter and leave. A link driver
 * (drivers/link/NAME) is one of two kinds:
 *
 * - SST_LINK_FRAMES: Ethernet frames (a DPDK port: ethdev); the engine runs
 *   them through lib/net (sst_net.h) for ARP, IP and UDP;
 * - SST_LINK_DATAGRAMS: UDP payloads with their endpoints (udpsock: a kernel
 *   UDP socket), so SST-DPDK can run on a host without a DPDK NIC and talk
 *   to kernel-UDP SST peers; lib/net is not involved.
 *
 * Drivers register from RTE_INIT constructors (sst_link_register()); the
 * engine opens a link by driver name. A link belongs to one thread.
 */
#ifndef SST_LINK_H
#define SST_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "sst_shard.h"
#include "sst_net.h"

/** What a link carries. */
enum sst_link_kind {
	SST_LINK_FRAMES = 1,	/**< Ethernet frames */
	SST_LINK_DATAGRAMS = 2, /**< UDP payloads with endpoints */
};

enum {
	SST_LINK_DRIVERS_MAX = 8,  /**< drivers that can be registered */
	SST_LINK_TX_SEGS_MAX = 16, /**< mbuf segments of one datagram a driver must take */
};

/** How to open a link. Fields left zero take the defaults shown. */
struct sst_link_conf {
	uint32_t size;	    /**< sizeof(struct sst_link_conf) */
	const char *driver; /**< "udpsock", ... */
	struct sst_net_endpoint
		local;		  /**< datagram links: the address and port to bind (port 0: any) */
	struct rte_mempool *pool; /**< received packets */
	uint32_t rx_buffer;	  /**< kernel receive buffer bytes; 0: the system's default */
	uint32_t tx_buffer;	  /**< kernel send buffer bytes; 0: the system's default */
	/** Datagram links: share the local port with other links of this
	 * process (SO_REUSEPORT), one per worker of an engine. */
	bool reuse_port;
	const void *driver_conf; /**< driver-specific configuration (see the driver) */
};

/** Counters. */
struct sst_link_stats {
	uint64_t rx_packets;   /**< packets received */
	uint64_t rx_bytes;     /**< their bytes */
	uint64_t rx_nombuf;    /**< receive calls that found the pool empty */
	uint64_t rx_truncated; /**< datagrams larger than an mbuf: dropped */
	uint64_t rx_errors;    /**< receive calls that failed (the system's error) */
	uint64_t tx_packets;   /**< packets sent */
	uint64_t tx_bytes;     /**< their bytes */
	uint64_t tx_full;      /**< dropped: the kernel's queue was full */
	uint64_t tx_errors;    /**< dropped: too many segments, bad endpoint, send error */
};

/** What a device shared by several links (a DPDK port) offers. */
struct sst_link_device_info {
	struct rte_ether_addr mac; /**< the port's address */
	bool rss;		   /**< it spreads received flows over the links' queues */
	/** With rss: how (sst_shard.h); rss_known false: the device would not
	 * say, and the engine hands over what lands on the wrong queue. */
	bool rss_known;
	bool rss_l4;			       /**< UDP ports hashed with the addresses */
	uint8_t rss_key[SST_SHARD_KEY_LEN];    /**< the key's first bytes */
	uint16_t rss_reta_size;		       /**< entries of rss_reta */
	uint16_t rss_reta[SST_SHARD_RETA_MAX]; /**< redirection table: entry -> queue (link) */
	bool tx_cksum_offload;		       /**< it computes IPv4 header and UDP checksums */
	/** Its frames never leave this process's memory (a net_ring pair):
	 * lib/net leaves the UDP checksum out over IPv4 (sst_net_params). */
	bool in_process;
	char err[128]; /**< why setup failed, one line */
};

/** What a driver implements. */
struct sst_link_ops {
	const char *name;	 /**< the name links are opened by (unique) */
	enum sst_link_kind kind; /**< what its links carry */
	size_t priv_size;	 /**< bytes of driver state */
	/** @return 0 or a negative errno (bad configuration, the system's error).
	 * @param priv priv_size bytes of driver state, zeroed.
	 * @param conf The link's configuration.
	 * @param stats The link's counters, for the driver to update.
	 */
	int (*open)(void *priv, const struct sst_link_conf *conf, struct sst_link_stats *stats);
	/** Up to n packets; datagram links fill from[] with their sources.
	 * @param priv The link's driver state.
	 * @param pkts Filled with received packets (the caller's after the call).
	 * @param from Datagram links: each packet's source.
	 * @param n Room in @p pkts and @p from.
	 * @return The number of packets received.
	 */
	uint16_t (*rx_burst)(
		void *priv, struct rte_mbuf **pkts, struct sst_net_endpoint *from, uint16_t n);
	/** Ownership of all n passes: sent or dropped and counted. @return sent.
	 * @param priv The link's driver state.
	 * @param pkts The packets to send.
	 * @param to Datagram links: each packet's destination.
	 * @param n Number of packets.
	 */
	uint16_t (*tx_burst)(
		void *priv, struct rte_mbuf **pkts, const struct sst_net_endpoint *to, uint16_t n);
	/** The bound local endpoint (datagram links); NULL for frame links.
	 * @param priv The link's driver state.
	 * @param ep Set to the bound endpoint.
	 * @return 0, or a negative errno (a frame link: -ENOTSUP).
	 */
	int (*local)(void *priv, struct sst_net_endpoint *ep);
	/** A descriptor that polls readable (POLLIN) when packets may be
	 * waiting, so that a caller with nothing to do can block on it rather
	 * than nap and poll again (kernel sockets; ethdev: net_af_packet's
	 * packet socket). NULL: none.
	 * @param priv The link's driver state.
	 * @return The descriptor, or a negative errno.
	 */
	int (*wait_fd)(void *priv);
	/** Release what open() took; priv is freed after it. Required.
	 * @param priv The link's driver state.
	 */
	void (*close)(void *priv);
	/** Drivers whose links share a device (ethdev: the queues of one
	 * port): set it up for nb_links links receiving into pools[i], and
	 * tear it down after they closed. NULL: nothing to set up.
	 * @param driver_conf The driver configuration of the links.
	 * @param nb_links Number of links (queues) to set up.
	 * @param pools Where link i receives into.
	 * @param info Filled with what the device offers.
	 * @return 0, or a negative errno.
	 */
	int (*device_setup)(const void *driver_conf, uint16_t nb_links,
		struct rte_mempool *const *pools, struct sst_link_device_info *info);
	/** Undo device_setup(); NULL: nothing to undo.
	 * @param driver_conf The driver configuration device_setup() was given.
	 * @return 0, or a negative errno.
	 */
	int (*device_teardown)(const void *driver_conf);
};

/**
 * Register a driver (from an RTE_INIT constructor; not thread-safe).
 * @param ops The driver; kept, so it must be static.
 * @retval 0 Registered.
 * @retval -EINVAL NULL, no name, a required op (open, rx_burst, tx_burst,
 *   close) missing, or an unknown kind.
 * @retval -EEXIST A driver of that name is registered.
 * @retval -ENOSPC SST_LINK_DRIVERS_MAX drivers are registered.
 */
int sst_link_register(const struct sst_link_ops *ops);

/** A registered driver.
 * @param name Its name.
 * @return The driver, or NULL (none of that name). */
const struct sst_link_ops *sst_link_find(const char *name);

struct sst_link;

/**
 * Set up the device behind a driver's links (see sst_link_ops), before
 * opening them. At setup, on the main lcore.
 * @param driver The driver's name.
 * @param driver_conf Its configuration (see the driver).
 * @param nb_links Links that will be opened on the device.
 * @param pools pools[i]: where link i's received packets go.
 * @param info Zeroed, then filled in by the driver.
 * @return 0 (also when the driver has no device), -ENOENT
 * (no such driver), or the driver's error (described in info->err).
 */
int sst_link_device_setup(const char *driver, const void *driver_conf, uint16_t nb_links,
	struct rte_mempool *const *pools, struct sst_link_device_info *info);

/** Tear down what sst_link_device_setup() set up, after the links closed.
 * @param driver The driver's name.
 * @param driver_conf Its configuration, as given to the setup.
 * @return 0, -ENOENT (no such driver), or the driver's error. */
int sst_link_device_teardown(const char *driver, const void *driver_conf);

/** Open a link (at setup: this allocates). The link belongs to the
 * thread that uses it.
 * @param conf Configuration; read during the call (pool is kept).
 * @return The link, or NULL with rte_errno set: EINVAL (conf or pool
 *   NULL), ENOENT (no such driver), ENOMEM, or the driver's open() error. */
struct sst_link *sst_link_open(const struct sst_link_conf *conf);

/** Close a link and free it.
 * @param l The link; NULL is ignored. */
void sst_link_close(struct sst_link *l);

/** What the link carries.
 * @param l The link.
 * @return Its driver's kind. */
enum sst_link_kind sst_link_kind(const struct sst_link *l);

/** Receive packets.
 * @param l The link.
 * @param pkts Filled with the packets, which become the caller's.
 * @param from Datagram links: filled with their sources; may be NULL for
 *   frame links.
 * @param n Room in @p pkts (and @p from).
 * @return Packets received. */
uint16_t sst_link_rx_burst(
	struct sst_link *l, struct rte_mbuf **pkts, struct sst_net_endpoint *from, uint16_t n);

/** Send packets; ownership of all passes (sent, or dropped and counted).
 * @param l The link.
 * @param pkts The packets.
 * @param to Datagram links: to[i] is the destination of pkts[i].
 * @param n Packets at @p pkts.
 * @return packets sent. */
uint16_t sst_link_tx_burst(
	struct sst_link *l, struct rte_mbuf **pkts, const struct sst_net_endpoint *to, uint16_t n);

/** The bound local endpoint.
 * @param l The link.
 * @param ep Set on success.
 * @return 0, -ENOTSUP (frame links), or the driver's error. */
int sst_link_local(const struct sst_link *l, struct sst_net_endpoint *ep);

/** The descriptor to block on for the link's packets (poll() for POLLIN)
 * while there is nothing else to do.
 * @param l The link.
 * @return The descriptor, or -ENOTSUP (the driver has none: links of DPDK
 *   ports and in-process links are polled). */
int sst_link_wait_fd(const struct sst_link *l);

/** Counters.
 * @param l The link.
 * @return The link's counters, updated in place; valid until
 *   sst_link_close(). */
const struct sst_link_stats *sst_link_stats(const struct sst_link *l);

#endif /* SST_LINK_H */
