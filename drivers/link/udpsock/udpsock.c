/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * udpsock: a datagram link (sst_link.h) on a kernel UDP socket, so that
 * SST-DPDK runs on a host without a DPDK NIC and talks to kernel-UDP SST
 * peers. A burst is one recvmmsg()/sendmmsg() call: received datagrams land
 * directly in mbuf data rooms (one copy, the kernel's), sent ones go from
 * their mbuf segments through an iovec each (no copy here). The socket is
 * non-blocking: an empty queue is 0 packets, a full one drops and counts.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "sst_burst.h"
#include "sst_link.h"

struct udpsock {
	int fd;
	int family; /**< AF_INET or AF_INET6 */
	struct rte_mempool *pool;
	struct sst_link_stats *stats;
};

static int
to_sockaddr(
	const struct sst_net_endpoint *ep, int family, struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET && ep->addr.family == SST_NET_IPV4) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(ep->port);
		memcpy(&sin->sin_addr, ep->addr.bytes, 4);
		*len = sizeof(*sin);
		return 0;
	}
	if (family == AF_INET6 && ep->addr.family == SST_NET_IPV6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(ep->port);
		memcpy(&sin6->sin6_addr, ep->addr.bytes, 16);
		*len = sizeof(*sin6);
		return 0;
	}
	return -EAFNOSUPPORT;
}

static void
from_sockaddr(const struct sockaddr_storage *ss, struct sst_net_endpoint *ep)
{
	memset(ep, 0, sizeof(*ep));
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

		ep->addr.family = SST_NET_IPV4;
		memcpy(ep->addr.bytes, &sin->sin_addr, 4);
		ep->port = ntohs(sin->sin_port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;

		ep->addr.family = SST_NET_IPV6;
		memcpy(ep->addr.bytes, &sin6->sin6_addr, 16);
		ep->port = ntohs(sin6->sin6_port);
	}
}

static int
udpsock_open(void *priv, const struct sst_link_conf *conf, struct sst_link_stats *stats)
{
	struct udpsock *u = priv;
	struct sockaddr_storage ss;
	socklen_t len = 0;
	int one = 1, err;

	u->fd = -1;
	u->pool = conf->pool;
	u->stats = stats;
	if (conf->local.addr.family == SST_NET_IPV4)
		u->family = AF_INET;
	else if (conf->local.addr.family == SST_NET_IPV6)
		u->family = AF_INET6;
	else
		return -EINVAL;
	if (rte_pktmbuf_data_room_size(conf->pool) <= RTE_PKTMBUF_HEADROOM)
		return -EINVAL;
	u->fd = socket(u->family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (u->fd < 0)
		return -errno;
	/* One socket, one family: an IPv6 link does not take IPv4 traffic. */
	if (u->family == AF_INET6 &&
		setsockopt(u->fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0)
		goto fail;
	if (conf->reuse_port && setsockopt(u->fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0)
		goto fail;
	if (conf->rx_buffer != 0 && setsockopt(u->fd, SOL_SOCKET, SO_RCVBUF, &conf->rx_buffer,
					    sizeof(conf->rx_buffer)) < 0)
		goto fail;
	if (conf->tx_buffer != 0 && setsockopt(u->fd, SOL_SOCKET, SO_SNDBUF, &conf->tx_buffer,
					    sizeof(conf->tx_buffer)) < 0)
		goto fail;
	to_sockaddr(&conf->local, u->family, &ss, &len);
	if (bind(u->fd, (struct sockaddr *)&ss, len) < 0)
		goto fail;
	return 0;
fail:
	err = errno;
	close(u->fd);
	u->fd = -1;
	return -err;
}

static uint16_t
udpsock_rx_burst(void *priv, struct rte_mbuf **pkts, struct sst_net_endpoint *from, uint16_t n)
{
	struct udpsock *u = priv;
	struct mmsghdr msgs[SST_MAX_BURST];
	struct iovec iov[SST_MAX_BURST];
	struct sockaddr_storage addrs[SST_MAX_BURST];
	struct rte_mbuf *bufs[SST_MAX_BURST];
	uint16_t got = 0;
	int rc;

	n = RTE_MIN(n, (uint16_t)SST_MAX_BURST);
	if (n == 0)
		return 0;
	if (rte_pktmbuf_alloc_bulk(u->pool, bufs, n) != 0) {
		u->stats->rx_nombuf++;
		return 0;
	}
	for (uint16_t i = 0; i < n; i++) {
		iov[i].iov_base = rte_pktmbuf_mtod(bufs[i], void *);
		iov[i].iov_len = rte_pktmbuf_tailroom(bufs[i]);
		memset(&msgs[i], 0, sizeof(msgs[i]));
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_name = &addrs[i];
		msgs[i].msg_hdr.msg_namelen = sizeof(addrs[i]);
	}
	rc = recvmmsg(u->fd, msgs, n, MSG_DONTWAIT, NULL);
	if (rc < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			u->stats->rx_errors++;
		rc = 0;
	}
	for (int i = 0; i < rc; i++) {
		uint32_t len = msgs[i].msg_len;

		if (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) {
			u->stats->rx_truncated++;
			rte_pktmbuf_free(bufs[i]);
			continue;
		}
		bufs[i]->data_len = (uint16_t)len;
		bufs[i]->pkt_len = len;
		from_sockaddr(&addrs[i], &from[got]);
		pkts[got++] = bufs[i];
		u->stats->rx_packets++;
		u->stats->rx_bytes += len;
	}
	if (rc < n)
		rte_pktmbuf_free_bulk(bufs + rc, (unsigned int)(n - rc));
	return got;
}

static uint16_t
udpsock_tx_burst(void *priv, struct rte_mbuf **pkts, const struct sst_net_endpoint *to, uint16_t n)
{
	struct udpsock *u = priv;
	struct mmsghdr msgs[SST_MAX_BURST];
	struct iovec iov[SST_MAX_BURST][SST_LINK_TX_SEGS_MAX];
	struct sockaddr_storage addrs[SST_MAX_BURST];
	struct rte_mbuf *queued[SST_MAX_BURST];
	uint16_t sent = 0;

	for (uint16_t done = 0; done < n;) {
		uint16_t chunk = RTE_MIN((uint16_t)(n - done), (uint16_t)SST_MAX_BURST);
		unsigned int k = 0;
		int rc;

		for (uint16_t i = 0; i < chunk; i++) {
			struct rte_mbuf *m = pkts[done + i];
			struct msghdr *h = &msgs[k].msg_hdr;
			socklen_t alen;
			unsigned int segs = 0;

			if (m->nb_segs > SST_LINK_TX_SEGS_MAX ||
				to_sockaddr(&to[done + i], u->family, &addrs[k], &alen) < 0) {
				u->stats->tx_errors++;
				rte_pktmbuf_free(m);
				continue;
			}
			for (struct rte_mbuf *s = m; s != NULL; s = s->next) {
				iov[k][segs].iov_base = rte_pktmbuf_mtod(s, void *);
				iov[k][segs].iov_len = s->data_len;
				segs++;
			}
			memset(&msgs[k], 0, sizeof(msgs[k]));
			h->msg_iov = iov[k];
			h->msg_iovlen = segs;
			h->msg_name = &addrs[k];
			h->msg_namelen = alen;
			queued[k++] = m;
		}
		rc = k > 0 ? sendmmsg(u->fd, msgs, k, MSG_DONTWAIT) : 0;
		if (rc < 0) {
			/* A full queue is congestion loss, which SST recovers
			 * from like any other; anything else is an error. */
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
				u->stats->tx_full += k;
			else
				u->stats->tx_errors += k;
			rc = 0;
		} else if ((unsigned int)rc < k) {
			u->stats->tx_full += k - (unsigned int)rc;
		}
		for (int i = 0; i < rc; i++) {
			u->stats->tx_packets++;
			u->stats->tx_bytes += rte_pktmbuf_pkt_len(queued[i]);
		}
		sent += (uint16_t)rc;
		rte_pktmbuf_free_bulk(queued, k);
		done += chunk;
	}
	return sent;
}

static int
udpsock_local(void *priv, struct sst_net_endpoint *ep)
{
	struct udpsock *u = priv;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(u->fd, (struct sockaddr *)&ss, &len) < 0)
		return -errno;
	from_sockaddr(&ss, ep);
	return 0;
}

static void
udpsock_close(void *priv)
{
	struct udpsock *u = priv;

	if (u->fd >= 0)
		close(u->fd);
	u->fd = -1;
}

/* The socket: it polls readable when a datagram is queued. */
static int
udpsock_wait_fd(void *priv)
{
	const struct udpsock *u = priv;

	return u->fd;
}

static const struct sst_link_ops udpsock_ops = {
	.name = "udpsock",
	.kind = SST_LINK_DATAGRAMS,
	.priv_size = sizeof(struct udpsock),
	.open = udpsock_open,
	.rx_burst = udpsock_rx_burst,
	.tx_burst = udpsock_tx_burst,
	.local = udpsock_local,
	.wait_fd = udpsock_wait_fd,
	.close = udpsock_close,
};

RTE_INIT(link_udpsock_register)
{
	sst_link_register(&udpsock_ops);
}
