/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's port and queue setup (sst_ethdev.h): one receive and one
 * transmit queue per worker, each receive queue with the worker's own
 * mempool, and the offloads the engine can use when the port has them
 * (RSS to spread flows over the workers, checksums, chained transmit).
 * Every failure says which step failed and why, because a port that does
 * not come up is the first thing a user of a real NIC meets.
 *
 * Also the net_ring pair: two ports joined by rings, so that everything
 * above the link runs over "Ethernet" with no NIC at all.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_ring.h>

#include "ethdev_internal.h"
#include "sst_ethdev.h"
#include "sst_params.h"

/* Hash types the engine wants: UDP flows by addresses and ports, anything
 * else (fragments included, so all fragments of a datagram meet on one
 * queue) by addresses. */
#define ETHDEV_RSS_WANTED (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP)
#define ETHDEV_TX_CKSUM (RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM)
#define ETHDEV_RX_CKSUM (RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM)

/* Ports whose promiscuous mode sst_ethdev_port_setup() turned on, for
 * sst_ethdev_port_stop() to turn off again. */
static bool promiscuous_ours[RTE_MAX_ETHPORTS];

static int __rte_format_printf(4, 5) setup_fail(
	struct sst_ethdev_port_info *info, uint16_t port_id, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(info->err, sizeof(info->err), fmt, ap);
	va_end(ap);
	ETHDEV_LOG(ERR, "port %u: %s", port_id, info->err);
	return rc;
}

/* Frames of mtu bytes must fit one receive buffer, or the port must be able
 * to chain buffers (scatter). */
static int
check_frame_fit(uint16_t port_id, const struct sst_ethdev_port_conf *conf,
	const struct rte_eth_dev_info *dev, struct rte_eth_conf *pc,
	struct sst_ethdev_port_info *info)
{
	uint32_t frame = (uint32_t)conf->mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;

	if (conf->mtu < dev->min_mtu || conf->mtu > dev->max_mtu)
		return setup_fail(info, port_id, -EINVAL, "MTU %u outside the port's range %u..%u",
			conf->mtu, dev->min_mtu, dev->max_mtu);
	for (uint16_t q = 0; q < conf->nb_queues; q++) {
		uint32_t room = rte_pktmbuf_data_room_size(conf->pools[q]) - RTE_PKTMBUF_HEADROOM;

		if (frame <= room)
			continue;
		if (!(dev->rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER))
			return setup_fail(info, port_id, -EINVAL,
				"MTU %u needs %u-byte receive buffers; queue %u's pool has %u and "
				"the port cannot chain them",
				conf->mtu, frame, q, room);
		pc->rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	}
	pc->rxmode.mtu = conf->mtu;
	return 0;
}

static bool
is_af_xdp(const struct rte_eth_dev_info *dev)
{
	return strcmp(dev->driver_name, "net_af_xdp") == 0;
}

/*
 * net_af_xdp (DPDK 22.11) makes a receive queue's mempool its UMEM, the
 * memory the kernel writes received frames into and reads sent ones from:
 * it registers the span from the pool's first memory chunk, sized as if
 * the pool's objects were packed end to end (populated objects times
 * object size). Two kinds of pool break that assumption, and the kernel
 * then refuses every frame address past the span (rx_invalid_descs,
 * tx_invalid_descs in XDP_STATISTICS): a pool whose objects are kept
 * from crossing pages (any pool that wants IOVA-contiguous objects, as
 * rte_pktmbuf_pool_create() makes them: without hugepages, one 2,368-byte
 * mbuf a 4 KB page), which stalled a transaction run after 157 frames
 * each way; and a growable pool (sst_pool.h), whose later chunks are not
 * in the span at all. So each queue gets a pool of the port's own: the
 * caller's pool's size and layout (mbufs, data room, private area, cache),
 * its objects packed (RTE_MEMPOOL_F_NO_IOVA_CONTIG: AF_XDP on a kernel
 * interface reads the memory through the kernel's mapping, not by DMA)
 * and populated in one chunk. The engine's frames then come from two
 * pools, which frees each mbuf to its own. Freed when the port stops.
 */
static struct rte_mempool *umem_pools[RTE_MAX_ETHPORTS][ETHDEV_XSK_QUEUES];

struct rte_mempool *
ethdev_umem_pool(uint16_t port_id, uint16_t queue_id)
{
	return port_id < RTE_MAX_ETHPORTS && queue_id < ETHDEV_XSK_QUEUES
		       ? umem_pools[port_id][queue_id]
		       : NULL;
}

static void
umem_pools_free(uint16_t port_id)
{
	for (uint16_t q = 0; q < ETHDEV_XSK_QUEUES; q++) {
		rte_mempool_free(umem_pools[port_id][q]);
		umem_pools[port_id][q] = NULL;
	}
}

/* Queue q's UMEM pool, made like @p like (see above); NULL with the
 * reason in info->err. */
static struct rte_mempool *
umem_pool_create(uint16_t port_id, uint16_t q, const struct rte_mempool *like, int socket,
	struct sst_ethdev_port_info *info)
{
	struct rte_pktmbuf_pool_private priv = {
		.mbuf_data_room_size = rte_pktmbuf_data_room_size((struct rte_mempool *)like),
		.mbuf_priv_size = rte_pktmbuf_priv_size((struct rte_mempool *)like),
	};
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rte_mempool *mp;
	int rc;

	snprintf(name, sizeof(name), "sst_xsk_%u_%u", port_id, q);
	mp = rte_mempool_create_empty(name, like->size,
		sizeof(struct rte_mbuf) + priv.mbuf_priv_size + priv.mbuf_data_room_size,
		like->cache_size, sizeof(priv), socket, RTE_MEMPOOL_F_NO_IOVA_CONTIG);
	if (mp == NULL) {
		setup_fail(info, port_id, -rte_errno, "queue %u: no UMEM pool of %u mbufs: %s", q,
			like->size, rte_strerror(rte_errno));
		return NULL;
	}
	rc = rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(), NULL);
	if (rc == 0) {
		rte_pktmbuf_pool_init(mp, &priv);
		rc = rte_mempool_populate_default(mp);
		rc = rc < 0 ? rc : mp->nb_mem_chunks == 1 ? 0 : -ENOMEM;
	}
	if (rc != 0) {
		setup_fail(info, port_id, rc,
			"queue %u: UMEM pool of %u mbufs, in one chunk (the EAL's memory, -m, "
			"must hold it): %s",
			q, like->size, rte_strerror(-rc));
		rte_mempool_free(mp);
		return NULL;
	}
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	return mp;
}

/* What to ask of the port, from what it offers. */
static int
port_conf_fill(uint16_t port_id, const struct sst_ethdev_port_conf *conf,
	const struct rte_eth_dev_info *dev, struct rte_eth_conf *pc,
	struct sst_ethdev_port_info *info)
{
	uint64_t rss_hf = dev->flow_type_rss_offloads & ETHDEV_RSS_WANTED;
	uint16_t mtu;
	int rc;

	memset(pc, 0, sizeof(*pc));
	if (conf->nb_queues > 1 && rss_hf != 0) {
		pc->rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		pc->rx_adv_conf.rss_conf.rss_hf = rss_hf;
		info->rss = true;
		info->rss_hf = rss_hf;
	}
	if ((dev->tx_offload_capa & ETHDEV_TX_CKSUM) == ETHDEV_TX_CKSUM) {
		pc->txmode.offloads |= ETHDEV_TX_CKSUM;
		info->tx_cksum_offload = true;
	}
	/* Some drivers report RTE_MBUF_F_RX_*_CKSUM_GOOD/BAD only with the
	 * offload enabled; lib/net skips its own check on GOOD, drops on BAD. */
	if ((dev->rx_offload_capa & ETHDEV_RX_CKSUM) == ETHDEV_RX_CKSUM) {
		pc->rxmode.offloads |= ETHDEV_RX_CKSUM;
		info->rx_cksum_offload = true;
	}
	/* The stream layer sends payloads by reference, behind a header mbuf:
	 * chained frames are the normal case on transmit. */
	if (dev->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) {
		pc->txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
		info->tx_multi_seg = true;
	}
	if (conf->rx_timestamp && (dev->rx_offload_capa & RTE_ETH_RX_OFFLOAD_TIMESTAMP)) {
		pc->rxmode.offloads |= RTE_ETH_RX_OFFLOAD_TIMESTAMP;
		info->rx_timestamp = true;
	}
	if (conf->mtu != 0)
		return check_frame_fit(port_id, conf, dev, pc, info);
	/* rte_eth_dev_configure() sets the MTU it is given (1500 for 0):
	 * "leave it" means giving it the current one. */
	rc = rte_eth_dev_get_mtu(port_id, &mtu);
	pc->rxmode.mtu = rc == 0 ? mtu : 0;
	return 0;
}

static int
queues_setup(uint16_t port_id, const struct sst_ethdev_port_conf *conf,
	const struct rte_eth_dev_info *dev, const struct rte_eth_conf *pc,
	struct sst_ethdev_port_info *info)
{
	struct rte_eth_rxconf rxconf = dev->default_rxconf;
	struct rte_eth_txconf txconf = dev->default_txconf;
	int socket = rte_eth_dev_socket_id(port_id);
	struct ethdev_xsks before;
	int rc;

	rxconf.offloads = pc->rxmode.offloads;
	txconf.offloads = pc->txmode.offloads;
	if (socket < 0)
		socket = SOCKET_ID_ANY;
	for (uint16_t q = 0; q < conf->nb_queues; q++) {
		struct rte_mempool *pool = conf->pools[q];

		if (is_af_xdp(dev)) {
			if (q >= ETHDEV_XSK_QUEUES)
				return setup_fail(info, port_id, -EINVAL,
					"net_af_xdp: at most %u queues", ETHDEV_XSK_QUEUES);
			if (umem_pools[port_id][q] == NULL)
				umem_pools[port_id][q] =
					umem_pool_create(port_id, q, pool, socket, info);
			pool = umem_pools[port_id][q];
			if (pool == NULL)
				return -ENOMEM;
			/* The queue's AF_XDP socket is the one its setup opens. */
			ethdev_xsk_list(&before);
		}
		rc = rte_eth_rx_queue_setup(
			port_id, q, info->nb_rx_desc, (unsigned int)socket, &rxconf, pool);
		if (rc == 0 && is_af_xdp(dev))
			ethdev_xsk_note(port_id, q, &before);
		if (rc != 0)
			return setup_fail(info, port_id, rc,
				"receive queue %u (%u descriptors, pool %s): %s", q,
				info->nb_rx_desc, pool->name, rte_strerror(-rc));
		rc = rte_eth_tx_queue_setup(
			port_id, q, info->nb_tx_desc, (unsigned int)socket, &txconf);
		if (rc != 0)
			return setup_fail(info, port_id, rc,
				"transmit queue %u (%u descriptors): %s", q, info->nb_tx_desc,
				rte_strerror(-rc));
	}
	return 0;
}

int
sst_ethdev_port_setup(uint16_t port_id, const struct sst_ethdev_port_conf *conf,
	struct sst_ethdev_port_info *info)
{
	struct sst_ethdev_port_info scratch;
	struct rte_eth_dev_info dev;
	struct rte_eth_conf pc;
	int rc;

	if (info == NULL)
		info = &scratch;
	memset(info, 0, sizeof(*info));
	if (!rte_eth_dev_is_valid_port(port_id))
		return setup_fail(info, port_id, -ENODEV, "no such port (%u ports available)",
			rte_eth_dev_count_avail());
	if (conf == NULL || !sst_params_size_ok(conf->size, sizeof(*conf), SST_PARAMS_ANY_LARGER))
		return setup_fail(
			info, port_id, -EINVAL, "no configuration, or one without its size set");
	if (conf->nb_queues == 0 || conf->pools == NULL)
		return setup_fail(info, port_id, -EINVAL, "no queues or no pools asked for");
	rc = rte_eth_dev_info_get(port_id, &dev);
	if (rc != 0)
		return setup_fail(info, port_id, rc, "cannot read the device's information: %s",
			rte_strerror(-rc));
	snprintf(info->driver_name, sizeof(info->driver_name), "%s", dev.driver_name);
	info->max_rx_queues = dev.max_rx_queues;
	info->max_tx_queues = dev.max_tx_queues;
	if (conf->nb_queues > dev.max_rx_queues || conf->nb_queues > dev.max_tx_queues)
		return setup_fail(info, port_id, -EINVAL,
			"%u queues asked for; the port (%s) has %u receive and %u transmit queues",
			conf->nb_queues, dev.driver_name, dev.max_rx_queues, dev.max_tx_queues);
	for (uint16_t q = 0; q < conf->nb_queues; q++)
		if (conf->pools[q] == NULL)
			return setup_fail(info, port_id, -EINVAL, "no mempool for queue %u", q);
	rc = port_conf_fill(port_id, conf, &dev, &pc, info);
	if (rc != 0)
		return rc;
	rc = rte_eth_dev_configure(port_id, conf->nb_queues, conf->nb_queues, &pc);
	if (rc != 0)
		return setup_fail(info, port_id, rc, "configure (%s, %u queues%s): %s",
			dev.driver_name, conf->nb_queues, info->rss ? ", RSS" : "",
			rte_strerror(-rc));
	info->nb_rx_desc = conf->nb_rx_desc != 0 ? conf->nb_rx_desc : SST_ETHDEV_RX_DESC;
	info->nb_tx_desc = conf->nb_tx_desc != 0 ? conf->nb_tx_desc : SST_ETHDEV_TX_DESC;
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(port_id, &info->nb_rx_desc, &info->nb_tx_desc);
	if (rc != 0)
		return setup_fail(info, port_id, rc, "descriptor counts: %s", rte_strerror(-rc));
	rc = queues_setup(port_id, conf, &dev, &pc, info);
	if (rc != 0)
		return rc;
	if (conf->promiscuous && rte_eth_promiscuous_get(port_id) == 0) {
		rc = rte_eth_promiscuous_enable(port_id);
		promiscuous_ours[port_id] = rc == 0;
		if (rc != 0)
			return setup_fail(
				info, port_id, rc, "promiscuous mode: %s", rte_strerror(-rc));
	}
	rc = rte_eth_dev_start(port_id);
	if (rc != 0)
		return setup_fail(info, port_id, rc, "start: %s", rte_strerror(-rc));
	ethdev_rss_setup(port_id, &dev, conf->nb_queues, info);
	rte_eth_macaddr_get(port_id, &info->mac);
	rte_eth_dev_get_mtu(port_id, &info->mtu);
	ETHDEV_LOG(INFO, "port %u (%s): %u queues, %u/%u descriptors, RSS %s, checksums %s, rx %s",
		port_id, dev.driver_name, conf->nb_queues, info->nb_rx_desc, info->nb_tx_desc,
		info->rss ? "on" : "off", info->tx_cksum_offload ? "offloaded" : "in software",
		info->rx_cksum_offload ? "checked by the port" : "in software");
	return 0;
}

int
sst_ethdev_port_stop(uint16_t port_id)
{
	int rc;

	if (!rte_eth_dev_is_valid_port(port_id))
		return -ENODEV;
	/* A net_af_packet port's promiscuous mode is its kernel interface's,
	 * which outlives the process: give it back as setup found it. */
	if (promiscuous_ours[port_id]) {
		rte_eth_promiscuous_disable(port_id);
		promiscuous_ours[port_id] = false;
	}
	ethdev_xsk_forget(port_id);
	rc = rte_eth_dev_stop(port_id);
	if (rc != 0)
		ETHDEV_LOG(ERR, "port %u: stop: %s", port_id, rte_strerror(-rc));
	rte_eth_dev_close(port_id);
	/* After the close: the PMD's rings lend the UMEM pools' mbufs until
	 * its sockets are gone. */
	umem_pools_free(port_id);
	return rc;
}

/* The ring from side `from` to the other side, queue q: "<name>_ab<q>". */
static int
ring_name(char *buf, size_t len, const char *name, char from, uint16_t q)
{
	return snprintf(buf, len, "%s_%c%c%u", name, from, from == 'a' ? 'b' : 'a', q);
}

/* The vdev rte_eth_from_rings() makes for side `side` ("a" or "b"). */
static void
vdev_name(char *buf, size_t len, const char *name, char side)
{
	snprintf(buf, len, "net_ring_%s_%c", name, side);
}

/* Free the rings of a pair and the frames still in them. */
static bool
rings_free(const char *name, uint16_t nb_queues)
{
	char rname[RTE_RING_NAMESIZE];
	struct rte_mbuf *m[32];
	bool found = false;

	for (uint16_t q = 0; q < nb_queues; q++) {
		for (int side = 0; side < 2; side++) {
			struct rte_ring *r;
			unsigned int k;

			ring_name(rname, sizeof(rname), name, side == 0 ? 'a' : 'b', q);
			r = rte_ring_lookup(rname);
			if (r == NULL)
				continue;
			found = true;
			while ((k = rte_ring_dequeue_burst(r, (void **)m, RTE_DIM(m), NULL)) > 0)
				rte_pktmbuf_free_bulk(m, k);
			rte_ring_free(r);
		}
	}
	return found;
}

int
sst_ethdev_ring_pair(const char *name, uint16_t nb_queues, uint16_t *port_a, uint16_t *port_b)
{
	struct rte_ring *ab[SST_ETHDEV_RING_QUEUES_MAX], *ba[SST_ETHDEV_RING_QUEUES_MAX];
	char rname[RTE_RING_NAMESIZE], pname[RTE_RING_NAMESIZE];
	/* One worker per queue on each side: one producer, one consumer. */
	const unsigned int flags = RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ;
	unsigned int socket = rte_socket_id() == (unsigned int)SOCKET_ID_ANY ? 0 : rte_socket_id();
	uint16_t made;
	int a, b, rc;

	if (name == NULL || name[0] == '\0' || nb_queues == 0 ||
		nb_queues > SST_ETHDEV_RING_QUEUES_MAX || port_a == NULL || port_b == NULL)
		return -EINVAL;
	if (strlen(name) > SST_ETHDEV_RING_NAME_MAX)
		return -ENAMETOOLONG;
	for (made = 0; made < nb_queues; made++) {
		ring_name(rname, sizeof(rname), name, 'a', made);
		ab[made] = rte_ring_create(rname, SST_ETHDEV_RING_SIZE, (int)socket, flags);
		if (ab[made] == NULL) {
			rc = -rte_errno;
			goto fail_rings;
		}
		ring_name(rname, sizeof(rname), name, 'b', made);
		ba[made] = rte_ring_create(rname, SST_ETHDEV_RING_SIZE, (int)socket, flags);
		if (ba[made] == NULL) {
			rc = -rte_errno;
			rte_ring_free(ab[made]);
			goto fail_rings;
		}
	}
	/* Side A receives what B sends and the other way round. */
	snprintf(pname, sizeof(pname), "%s_a", name);
	a = rte_eth_from_rings(pname, ba, nb_queues, ab, nb_queues, socket);
	if (a < 0) {
		rc = -rte_errno;
		goto fail_rings;
	}
	snprintf(pname, sizeof(pname), "%s_b", name);
	b = rte_eth_from_rings(pname, ab, nb_queues, ba, nb_queues, socket);
	if (b < 0) {
		rc = -rte_errno;
		goto fail_port_a;
	}
	*port_a = (uint16_t)a;
	*port_b = (uint16_t)b;
	return 0;
fail_port_a:
	vdev_name(pname, sizeof(pname), name, 'a');
	rte_vdev_uninit(pname);
fail_rings:
	/* Only the rings made here: on -EEXIST the name belongs to a pair
	 * that is still in use. */
	for (uint16_t q = 0; q < made; q++) {
		rte_ring_free(ab[q]);
		rte_ring_free(ba[q]);
	}
	ETHDEV_LOG(ERR, "ring pair %s: %s", name, rte_strerror(-rc));
	return rc;
}

int
sst_ethdev_ring_pair_free(const char *name, uint16_t nb_queues)
{
	char vname[RTE_RING_NAMESIZE];
	bool found = false;

	if (name == NULL)
		return -ENOENT;
	for (int side = 0; side < 2; side++) {
		uint16_t port_id;

		vdev_name(vname, sizeof(vname), name, side == 0 ? 'a' : 'b');
		/* A port still open is stopped first; the vdev goes either way. */
		if (rte_eth_dev_get_port_by_name(vname, &port_id) == 0)
			rte_eth_dev_stop(port_id);
		if (rte_vdev_uninit(vname) == 0)
			found = true;
	}
	if (rings_free(name, RTE_MIN(nb_queues, (uint16_t)SST_ETHDEV_RING_QUEUES_MAX)))
		found = true;
	return found ? 0 : -ENOENT;
}
