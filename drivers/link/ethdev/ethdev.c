/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ethdev: a frame link (sst_link.h) on one receive and one transmit queue
 * of a DPDK port, for one worker. A burst is one rte_eth_rx_burst() or
 * rte_eth_tx_burst(); addresses travel inside the frames, so the endpoint
 * arrays of the link contract are not used. Frames the queue refuses are
 * not retried: they are dropped and counted as tx_full, which SST treats as
 * the congestion loss it is (as udpsock does with a full socket).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ethdev_internal.h"
#include "sst_ethdev.h"
#include "sst_link.h"

RTE_LOG_REGISTER(sst_logtype_ethdev, sst.link.ethdev, NOTICE);

struct ethdev_link {
	uint16_t port_id;
	uint16_t queue_id;
	int wait_fd; /* ethdev_wait_fd_find(); negative: none */
	/* The port sends one buffer per frame only (no
	 * RTE_ETH_TX_OFFLOAD_MULTI_SEGS: net_af_xdp): chained frames are
	 * copied into one mbuf of pool first. */
	bool flatten;
	struct rte_mempool *pool;
	struct sst_link_stats *stats;
};

/* Both queues must exist and have been set up: a queue that was never set
 * up has no descriptors, and bursting on it would crash in the driver. */
static int
queue_ready(uint16_t port_id, uint16_t queue_id, const struct rte_eth_dev_info *dev)
{
	struct rte_eth_rxq_info rxq;
	struct rte_eth_txq_info txq;
	int rc;

	if (queue_id >= dev->nb_rx_queues || queue_id >= dev->nb_tx_queues) {
		ETHDEV_LOG(ERR, "port %u has no queue %u (%u receive, %u transmit queues)", port_id,
			queue_id, dev->nb_rx_queues, dev->nb_tx_queues);
		return -EINVAL;
	}
	/* Drivers without queue information (net_ring) answer -ENOTSUP; only
	 * -EINVAL means the queue was not set up. */
	rc = rte_eth_rx_queue_info_get(port_id, queue_id, &rxq);
	if (rc != -EINVAL)
		rc = rte_eth_tx_queue_info_get(port_id, queue_id, &txq);
	if (rc == -EINVAL) {
		ETHDEV_LOG(ERR, "port %u queue %u is not set up (sst_ethdev_port_setup())", port_id,
			queue_id);
		return -EINVAL;
	}
	return 0;
}

static int
ethdev_open(void *priv, const struct sst_link_conf *conf, struct sst_link_stats *stats)
{
	const struct sst_ethdev_link_conf *ec = conf->driver_conf;
	struct ethdev_link *e = priv;
	struct rte_eth_dev_info dev;
	int rc;

	if (ec == NULL) {
		ETHDEV_LOG(ERR, "no driver_conf (struct sst_ethdev_link_conf)");
		return -EINVAL;
	}
	if (!rte_eth_dev_is_valid_port(ec->port_id)) {
		ETHDEV_LOG(ERR, "no port %u (%u ports available)", ec->port_id,
			rte_eth_dev_count_avail());
		return -ENODEV;
	}
	rc = rte_eth_dev_info_get(ec->port_id, &dev);
	if (rc != 0)
		return rc;
	rc = queue_ready(ec->port_id, ec->queue_id, &dev);
	if (rc != 0)
		return rc;
	e->port_id = ec->port_id;
	e->queue_id = ec->queue_id;
	e->wait_fd = ethdev_wait_fd_find(ec->port_id, ec->queue_id, &dev);
	e->flatten = !(dev.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS);
	/* Flat copies from the UMEM pool go out without another copy. */
	e->pool = ethdev_umem_pool(ec->port_id, ec->queue_id);
	if (e->pool == NULL)
		e->pool = conf->pool;
	e->stats = stats;
	return 0;
}

static uint16_t
ethdev_rx_burst(void *priv, struct rte_mbuf **pkts, struct sst_net_endpoint *from, uint16_t n)
{
	struct ethdev_link *e = priv;
	uint16_t got = rte_eth_rx_burst(e->port_id, e->queue_id, pkts, n);
	uint64_t bytes = 0;

	RTE_SET_USED(from);
	for (uint16_t i = 0; i < got; i++)
		bytes += rte_pktmbuf_pkt_len(pkts[i]);
	e->stats->rx_packets += got;
	e->stats->rx_bytes += bytes;
	return got;
}

/* One mbuf of e->pool holding chained frame m, with m's transmit
 * metadata; NULL when the pool is empty or the frame does not fit. m is
 * left to the caller. */
static struct rte_mbuf *
flat_copy(const struct ethdev_link *e, const struct rte_mbuf *m)
{
	struct rte_mbuf *f = rte_pktmbuf_alloc(e->pool);
	char *dst;

	if (f == NULL)
		return NULL;
	dst = rte_pktmbuf_append(f, (uint16_t)RTE_MIN(m->pkt_len, UINT16_MAX));
	if (dst == NULL || m->pkt_len > UINT16_MAX) {
		rte_pktmbuf_free(f);
		return NULL;
	}
	for (const struct rte_mbuf *s = m; s != NULL; s = s->next) {
		memcpy(dst, rte_pktmbuf_mtod(s, const char *), s->data_len);
		dst += s->data_len;
	}
	f->ol_flags = m->ol_flags & ~RTE_MBUF_F_EXTERNAL;
	f->tx_offload = m->tx_offload;
	f->packet_type = m->packet_type;
	return f;
}

/* Replace the chained frames of pkts[0..n) by flat copies, for a port that
 * sends one buffer per frame: the stream layer sends payloads by reference
 * behind a header mbuf, and such a port would send the header alone (a
 * net_af_xdp queue copies pkt_len bytes from the first segment). A frame
 * that cannot be copied is dropped and counted (tx_errors), the others
 * closed up. @return how many frames pkts[] holds now. */
static uint16_t
flatten_burst(struct ethdev_link *e, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t kept = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (m->nb_segs > 1) {
			struct rte_mbuf *f = flat_copy(e, m);

			rte_pktmbuf_free(m);
			if (f == NULL) {
				e->stats->tx_errors++;
				continue;
			}
			m = f;
		}
		pkts[kept++] = m;
	}
	return kept;
}

static uint16_t
ethdev_tx_burst(void *priv, struct rte_mbuf **pkts, const struct sst_net_endpoint *to, uint16_t n)
{
	struct ethdev_link *e = priv;
	uint16_t done = 0, total = 0;

	RTE_SET_USED(to);
	if (e->flatten)
		n = flatten_burst(e, pkts, n);
	while (done < n) {
		uint16_t ok = rte_eth_tx_prepare(e->port_id, e->queue_id, pkts + done, n - done);
		uint64_t bytes = 0;
		uint16_t sent;

		/* Count the bytes first: once sent, a frame may already be
		 * back in its pool (a net_ring peer on another thread). */
		for (uint16_t i = 0; i < ok; i++)
			bytes += rte_pktmbuf_pkt_len(pkts[done + i]);
		sent = ok > 0 ? rte_eth_tx_burst(e->port_id, e->queue_id, pkts + done, ok) : 0;
		for (uint16_t i = sent; i < ok; i++)
			bytes -= rte_pktmbuf_pkt_len(pkts[done + i]);
		e->stats->tx_packets += sent;
		e->stats->tx_bytes += bytes;
		total += sent;
		done += sent;
		if (sent < ok)
			break; /* the queue is full */
		if (done < n) {
			/* The driver cannot send this one (offload flags or
			 * segments it does not take); the rest may go. */
			e->stats->tx_errors++;
			rte_pktmbuf_free(pkts[done++]);
		}
	}
	if (done < n) {
		e->stats->tx_full += n - done;
		rte_pktmbuf_free_bulk(pkts + done, n - done);
	}
	return total;
}

/* A packet socket's (net_af_packet) or an AF_XDP socket's (net_af_xdp),
 * or -ENOTSUP: the queue is polled. */
static int
ethdev_wait_fd(void *priv)
{
	const struct ethdev_link *e = priv;

	return e->wait_fd;
}

static void
ethdev_close(void *priv)
{
	/* The queues belong to the port: sst_ethdev_port_stop() ends them. */
	RTE_SET_USED(priv);
}

/* The engine's device step: the port of the first link's driver_conf, one
 * queue per link (worker), each receiving into its worker's pool. */
static int
ethdev_device_setup(const void *driver_conf, uint16_t nb_links, struct rte_mempool *const *pools,
	struct sst_link_device_info *info)
{
	const struct sst_ethdev_link_conf *ec = driver_conf;
	struct sst_ethdev_port_conf conf = {
		.size = sizeof(conf), .nb_queues = nb_links, .pools = pools};
	if (ec != NULL)
		conf.rx_timestamp = ec->rx_timestamp;
	struct sst_ethdev_port_info pi;
	int rc;

	if (ec == NULL) {
		snprintf(info->err, sizeof(info->err),
			"no driver_conf (struct sst_ethdev_link_conf)");
		return -EINVAL;
	}
	conf.promiscuous = ec->promiscuous;
	rc = sst_ethdev_port_setup(ec->port_id, &conf, &pi);
	snprintf(info->err, sizeof(info->err), "%s", pi.err);
	info->mac = pi.mac;
	info->rss = pi.rss;
	info->rss_known = pi.rss_known;
	info->rss_l4 = pi.rss_l4;
	memcpy(info->rss_key, pi.rss_key, sizeof(info->rss_key));
	info->rss_reta_size = pi.rss_reta_size;
	memcpy(info->rss_reta, pi.rss_reta, sizeof(info->rss_reta));
	info->tx_cksum_offload = pi.tx_cksum_offload;
	/* A net_ring port's frames go from one queue in memory to another of
	 * the same process: nothing on the way can corrupt them that would
	 * not corrupt the rest of the process too. */
	info->in_process = strcmp(pi.driver_name, "net_ring") == 0;
	return rc;
}

static int
ethdev_device_teardown(const void *driver_conf)
{
	const struct sst_ethdev_link_conf *ec = driver_conf;

	return ec != NULL ? sst_ethdev_port_stop(ec->port_id) : -EINVAL;
}

static const struct sst_link_ops ethdev_ops = {
	.name = "ethdev",
	.kind = SST_LINK_FRAMES,
	.priv_size = sizeof(struct ethdev_link),
	.open = ethdev_open,
	.rx_burst = ethdev_rx_burst,
	.tx_burst = ethdev_tx_burst,
	.wait_fd = ethdev_wait_fd,
	.close = ethdev_close,
	.device_setup = ethdev_device_setup,
	.device_teardown = ethdev_device_teardown,
};

RTE_INIT(link_ethdev_register)
{
	sst_link_register(&ethdev_ops);
}
