/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * udpsock: a datagram link (sst_link.h) on a kernel UDP socket, so that
 * SST-DPDK runs on a host without a DPDK NIC and talks to kernel-UDP SST
 * peers. A burst is one recvmmsg()/sendmmsg() call; sent datagrams go from
 * their mbuf segments through iovecs (no copy here). The socket is
 * non-blocking: an empty queue is 0 packets, a full one drops and counts.
 *
 * The kernel's cost is per message more than per byte, so the driver uses
 * its UDP offloads (sst_udpsock.h) where it has them. Send: a run of
 * datagrams of a burst to one peer, all of one size but the last (which
 * may be shorter), is one message with a UDP_SEGMENT control message; the
 * kernel cuts it into datagrams at the device, or in software. Receive:
 * with UDP_GRO the kernel may deliver a run of datagrams of one sender as
 * one message with the datagram size in a control message, up to 64 KB.
 * Each message is read into an mbuf's data room and, past it, a slot of a
 * bounce buffer allocated at open: a lone datagram (the kernel did not
 * coalesce) stays in its mbuf as without UDP_GRO, and a run's first
 * datagram too; the others are copied from the bounce buffer into mbufs of
 * their own, a copy that costs far less than the per-datagram trip through
 * the stack it replaces. A run that yields more packets than the caller
 * has room for waits in the bounce buffer for the next call.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "sst_burst.h"
#include "sst_link.h"
#include "sst_udpsock.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103 /* Linux 4.18 */
#endif
#ifndef UDP_GRO
#define UDP_GRO 104 /* Linux 5.0 */
#endif

enum {
	/** Datagrams in one UDP_SEGMENT message: the kernel's UDP_MAX_SEGMENTS
	 * before Linux 6.9 (128 since). */
	GSO_SEGMENTS_MAX = 64,
	/** Payload of one UDP_SEGMENT message: an IPv4 packet's 65,535 bytes
	 * less its IP and UDP headers. */
	GSO_BYTES_MAX = 65535 - 20 - 8,
	/** Bounce buffer room per received message past its mbuf: the
	 * largest UDP payload. */
	GRO_SLOT = 65536,
	/** iovecs of one burst's messages. */
	TX_IOV_MAX = SST_MAX_BURST * SST_LINK_TX_SEGS_MAX,
};

/* A received message waiting to be split: its first datagram in head,
 * byte x of the others at slot + x of its bounce slot. */
struct gro_msg {
	struct rte_mbuf *head;	      /**< the first datagram; NULL once handed over */
	uint8_t *slot;		      /**< its bounce slot */
	uint32_t len;		      /**< its bytes */
	uint32_t seg;		      /**< datagram size: the UDP_GRO size, else len */
	struct sst_net_endpoint from; /**< its sender */
};

struct udpsock {
	int fd;
	int family; /**< AF_INET or AF_INET6 */
	struct rte_mempool *pool;
	struct sst_link_stats *stats;
	bool gso; /**< runs of datagrams leave as UDP_SEGMENT messages */
	/** Received messages go to the bounce buffer (UDP_GRO is on). */
	bool gro;
	uint16_t room;			   /**< data room of an mbuf past its headroom */
	size_t slot_size;		   /**< gro: room + GRO_SLOT, rounded up */
	uint8_t *bounce;		   /**< gro: SST_MAX_BURST slots */
	struct gro_msg msg[SST_MAX_BURST]; /**< gro: the messages received last */
	uint16_t msgs;			   /**< gro: how many */
	uint16_t msg_next;		   /**< gro: the first not split to the end */
	uint32_t msg_off;		   /**< gro: bytes of msg_next handed over */
	/* The receive messages, set up once and kept across calls: a busy
	 * link polls far more often than datagrams come (a bulk sender
	 * polling for acks), and building 32 messages and allocating and
	 * freeing their mbufs each time cost more than the empty
	 * recvmmsg() itself. Entries [rx_empty, SST_MAX_BURST) hold an mbuf;
	 * a call refills the ones the last call used, at the front. */
	uint16_t rx_empty;
	struct rte_mbuf *rx_buf[SST_MAX_BURST];
	struct mmsghdr rx_msg[SST_MAX_BURST];
	struct iovec rx_iov[SST_MAX_BURST][2]; /**< the mbuf; gro: its bounce slot */
	struct sockaddr_storage rx_addr[SST_MAX_BURST];
	union {
		struct cmsghdr align;
		uint8_t buf[CMSG_SPACE(sizeof(int))];
	} rx_ctl[SST_MAX_BURST];
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
	const struct sst_udpsock_conf *uc = conf->driver_conf;
	struct udpsock *u = priv;
	struct sockaddr_storage ss;
	socklen_t len = 0;
	int one = 1, zero = 0, err;

	u->fd = -1;
	u->pool = conf->pool;
	u->stats = stats;
	if (conf->local.addr.family == SST_NET_IPV4)
		u->family = AF_INET;
	else if (conf->local.addr.family == SST_NET_IPV6)
		u->family = AF_INET6;
	else
		return -EINVAL;
	if (uc != NULL && uc->size < sizeof(*uc))
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
	/* A kernel without the offloads refuses the options (ENOPROTOOPT):
	 * the link goes without. Setting UDP_SEGMENT to 0 only asks whether
	 * the kernel knows it; each run gives its size with the message. */
	u->gso = (uc == NULL || !uc->no_gso) &&
		 setsockopt(u->fd, SOL_UDP, UDP_SEGMENT, &zero, sizeof(zero)) == 0;
	u->room = (uint16_t)(rte_pktmbuf_data_room_size(conf->pool) - RTE_PKTMBUF_HEADROOM);
	/* The bounce buffer is the process's memory, not the EAL's: only the
	 * kernel and this driver touch it, and pages that a link never fills
	 * (a peer that sends no runs) are never backed. */
	if (uc == NULL || !uc->no_gro) {
		u->slot_size = RTE_ALIGN_CEIL((size_t)u->room + GRO_SLOT, RTE_CACHE_LINE_SIZE);
		u->bounce = mmap(NULL, SST_MAX_BURST * u->slot_size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (u->bounce == MAP_FAILED) {
			u->bounce = NULL;
			close(u->fd);
			u->fd = -1;
			return -ENOMEM;
		}
		u->gro = setsockopt(u->fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) == 0;
		if (!u->gro) {
			munmap(u->bounce, SST_MAX_BURST * u->slot_size);
			u->bounce = NULL;
		}
	}
	for (uint16_t i = 0; i < SST_MAX_BURST; i++) {
		struct msghdr *h = &u->rx_msg[i].msg_hdr;

		h->msg_iov = u->rx_iov[i];
		h->msg_iovlen = u->gro ? 2 : 1;
		h->msg_name = &u->rx_addr[i];
		if (u->gro) {
			u->rx_iov[i][1].iov_base = u->bounce + i * u->slot_size + u->room;
			u->rx_iov[i][1].iov_len = GRO_SLOT;
			h->msg_control = u->rx_ctl[i].buf;
		}
	}
	u->rx_empty = SST_MAX_BURST;
	return 0;
fail:
	err = errno;
	close(u->fd);
	u->fd = -1;
	return -err;
}

/*
 * Give the receive messages the last call used fresh mbufs, and every
 * message of the next call its name and control room again (the kernel
 * wrote their lengths). Returns false when the pool is empty.
 */
static bool
rx_refill(struct udpsock *u)
{
	uint16_t n = u->rx_empty;

	if (n == 0)
		return true;
	if (rte_pktmbuf_alloc_bulk(u->pool, u->rx_buf, n) != 0) {
		u->stats->rx_nombuf++;
		return false;
	}
	for (uint16_t i = 0; i < n; i++) {
		struct msghdr *h = &u->rx_msg[i].msg_hdr;

		u->rx_iov[i][0].iov_base = rte_pktmbuf_mtod(u->rx_buf[i], void *);
		u->rx_iov[i][0].iov_len = u->room;
		h->msg_namelen = sizeof(u->rx_addr[i]);
		h->msg_controllen = h->msg_control != NULL ? sizeof(u->rx_ctl[i].buf) : 0;
	}
	u->rx_empty = 0;
	return true;
}

/* Up to n messages into the posted mbufs (and bounce slots). Returns how
 * many came; the caller takes or frees rx_buf[0, that). */
static int
rx_receive(struct udpsock *u, uint16_t n)
{
	int rc;

	if (!rx_refill(u))
		return 0;
	rc = recvmmsg(u->fd, u->rx_msg, n, MSG_DONTWAIT, NULL);
	if (rc < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			u->stats->rx_errors++;
		return 0;
	}
	u->rx_empty = (uint16_t)rc;
	return rc;
}

/* Without UDP_GRO: up to n datagrams straight into mbuf data rooms. */
static uint16_t
rx_direct(struct udpsock *u, struct rte_mbuf **pkts, struct sst_net_endpoint *from, uint16_t n)
{
	uint16_t got = 0;
	int rc = rx_receive(u, n);

	for (int i = 0; i < rc; i++) {
		struct rte_mbuf *m = u->rx_buf[i];
		uint32_t len = u->rx_msg[i].msg_len;

		if (u->rx_msg[i].msg_hdr.msg_flags & MSG_TRUNC) {
			u->stats->rx_truncated++;
			rte_pktmbuf_free(m);
			continue;
		}
		m->data_len = (uint16_t)len;
		m->pkt_len = len;
		from_sockaddr(&u->rx_addr[i], &from[got]);
		pkts[got++] = m;
		u->stats->rx_packets++;
		u->stats->rx_bytes += len;
	}
	return got;
}

/*
 * Hand over at most n packets of the received messages, from where the
 * last call stopped.
 * Returns the packets filled in; fewer than n only when every message is
 * split to the end or the pool is empty.
 */
static uint16_t
gro_split(struct udpsock *u, struct rte_mbuf **pkts, struct sst_net_endpoint *from, uint16_t n)
{
	uint16_t got = 0;

	while (got < n && u->msg_next < u->msgs) {
		struct gro_msg *g = &u->msg[u->msg_next];
		struct rte_mbuf *m = g->head;
		uint32_t len;

		if (m != NULL) {
			g->head = NULL;
			len = m->data_len;
		} else {
			len = RTE_MIN(g->seg, g->len - u->msg_off);
			m = rte_pktmbuf_alloc(u->pool);
			if (m == NULL) {
				u->stats->rx_nombuf++;
				return got;
			}
			rte_memcpy(rte_pktmbuf_mtod(m, void *), g->slot + u->msg_off, len);
			m->data_len = (uint16_t)len;
			m->pkt_len = len;
		}
		from[got] = g->from;
		pkts[got++] = m;
		u->stats->rx_packets++;
		u->stats->rx_bytes += len;
		u->msg_off += len;
		if (u->msg_off >= g->len) {
			u->msg_next++;
			u->msg_off = 0;
		}
	}
	return got;
}

/*
 * Take message i of a receive call (len bytes, head holding the first
 * room of them) as the next message to split, or drop it: a datagram
 * larger than an mbuf is counted as truncated, as rx_direct() does.
 */
static void
gro_take(struct udpsock *u, struct rte_mbuf *head, uint8_t *slot, uint32_t len, uint32_t seg,
	const struct sockaddr_storage *addr)
{
	struct gro_msg *g;

	if (seg == 0 || seg > len)
		seg = len;
	if (seg > u->room) {
		u->stats->rx_truncated += (len + seg - 1) / seg;
		rte_pktmbuf_free(head);
		return;
	}
	/* The head keeps the first datagram; what follows it in the head
	 * goes to where the bounce slot would have held it, so that the
	 * slot holds every other datagram at its offset in the message. */
	if (len > seg)
		memcpy(slot + seg, rte_pktmbuf_mtod_offset(head, uint8_t *, seg),
			RTE_MIN(len, (uint32_t)u->room) - seg);
	head->data_len = (uint16_t)seg;
	head->pkt_len = seg;
	g = &u->msg[u->msgs++];
	g->head = head;
	g->slot = slot;
	g->len = len;
	g->seg = seg;
	from_sockaddr(addr, &g->from);
}

/* With UDP_GRO: once every message is split to the end, receive more. */
static uint16_t
rx_gro(struct udpsock *u, struct rte_mbuf **pkts, struct sst_net_endpoint *from, uint16_t n)
{
	uint16_t got = gro_split(u, pkts, from, n);
	uint16_t want = (uint16_t)(n - got);
	int rc;

	if (want == 0 || u->msg_next < u->msgs)
		return got;
	rc = rx_receive(u, want);
	u->msgs = 0;
	u->msg_next = 0;
	u->msg_off = 0;
	for (int i = 0; i < rc; i++) {
		struct msghdr *h = &u->rx_msg[i].msg_hdr;
		int seg = 0;

		if (h->msg_flags & MSG_TRUNC) {
			u->stats->rx_truncated++;
			rte_pktmbuf_free(u->rx_buf[i]);
			continue;
		}
		for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c != NULL; c = CMSG_NXTHDR(h, c))
			if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO)
				memcpy(&seg, CMSG_DATA(c), sizeof(seg));
		gro_take(u, u->rx_buf[i], u->bounce + i * u->slot_size, u->rx_msg[i].msg_len,
			seg > 0 ? (uint32_t)seg : 0, &u->rx_addr[i]);
	}
	return (uint16_t)(got + gro_split(u, pkts + got, from + got, want));
}

static uint16_t
udpsock_rx_burst(void *priv, struct rte_mbuf **pkts, struct sst_net_endpoint *from, uint16_t n)
{
	struct udpsock *u = priv;

	n = RTE_MIN(n, (uint16_t)SST_MAX_BURST);
	if (n == 0)
		return 0;
	return u->gro ? rx_gro(u, pkts, from, n) : rx_direct(u, pkts, from, n);
}

/* One burst's messages being built: message i carries pkts[first[i]] and
 * the count[i] - 1 packets after it. */
struct tx_batch {
	struct mmsghdr msgs[SST_MAX_BURST];
	struct iovec iov[TX_IOV_MAX];
	struct sockaddr_storage addrs[SST_MAX_BURST];
	union {
		struct cmsghdr align;
		uint8_t buf[CMSG_SPACE(sizeof(uint16_t))];
	} ctl[SST_MAX_BURST];
	struct rte_mbuf *queued[SST_MAX_BURST];		  /**< packets in message order */
	const struct sst_net_endpoint *to[SST_MAX_BURST]; /**< and their destinations */
	uint16_t first[SST_MAX_BURST];
	uint16_t count[SST_MAX_BURST];
	unsigned int k;	   /**< messages */
	unsigned int nq;   /**< packets queued */
	unsigned int niov; /**< iovecs used */
};

/* Whether m may join message b->k - 1 (same peer, a datagram of the run's
 * size after datagrams of that size, within the kernel's limits). */
static bool
joins_run(const struct tx_batch *b, const struct rte_mbuf *m, const struct sst_net_endpoint *to)
{
	unsigned int last = b->k - 1;
	const struct rte_mbuf *head = b->queued[b->first[last]];
	const struct rte_mbuf *tail = b->queued[b->nq - 1];
	uint32_t seg = rte_pktmbuf_pkt_len(head);

	return b->k > 0 && sst_net_endpoint_equal(b->to[b->first[last]], to) &&
	       rte_pktmbuf_pkt_len(tail) == seg && rte_pktmbuf_pkt_len(m) <= seg &&
	       rte_pktmbuf_pkt_len(m) > 0 && b->count[last] < GSO_SEGMENTS_MAX &&
	       (b->count[last] + 1u) * seg <= GSO_BYTES_MAX;
}

/* Queue m (known good) as a message of its own or, with gso, at the end
 * of the last message's run. */
static void
batch_add(struct udpsock *u, struct tx_batch *b, struct rte_mbuf *m,
	const struct sst_net_endpoint *to, socklen_t alen)
{
	unsigned int i;

	if (u->gso && b->k > 0 && joins_run(b, m, to)) {
		i = b->k - 1;
		b->count[i]++;
	} else {
		i = b->k++;
		memset(&b->msgs[i], 0, sizeof(b->msgs[i]));
		b->msgs[i].msg_hdr.msg_iov = &b->iov[b->niov];
		b->msgs[i].msg_hdr.msg_name = &b->addrs[i];
		b->msgs[i].msg_hdr.msg_namelen = alen;
		b->first[i] = (uint16_t)b->nq;
		b->count[i] = 1;
	}
	for (struct rte_mbuf *s = m; s != NULL; s = s->next) {
		b->iov[b->niov].iov_base = rte_pktmbuf_mtod(s, void *);
		b->iov[b->niov].iov_len = s->data_len;
		b->niov++;
		b->msgs[i].msg_hdr.msg_iovlen++;
	}
	b->to[b->nq] = to;
	b->queued[b->nq++] = m;
}

/* The UDP_SEGMENT control message of every run of more than one. */
static void
batch_seal(struct tx_batch *b)
{
	for (unsigned int i = 0; i < b->k; i++) {
		struct msghdr *h = &b->msgs[i].msg_hdr;
		uint16_t seg;
		struct cmsghdr *c;

		if (b->count[i] < 2)
			continue;
		seg = (uint16_t)rte_pktmbuf_pkt_len(b->queued[b->first[i]]);
		memset(b->ctl[i].buf, 0, sizeof(b->ctl[i].buf));
		h->msg_control = b->ctl[i].buf;
		h->msg_controllen = sizeof(b->ctl[i].buf);
		c = CMSG_FIRSTHDR(h);
		c->cmsg_level = SOL_UDP;
		c->cmsg_type = UDP_SEGMENT;
		c->cmsg_len = CMSG_LEN(sizeof(seg));
		memcpy(CMSG_DATA(c), &seg, sizeof(seg));
	}
}

static uint16_t tx_chunk(
	struct udpsock *u, struct rte_mbuf **pkts, const struct sst_net_endpoint *to, uint16_t n);

/*
 * The kernel refused run message @p at (rc: its error). A refusal of the
 * offload itself (EIO: the device cannot checksum; EINVAL: a datagram
 * larger than the path allows, or a kernel that does not know the control
 * message) turns GSO off for the link and sends the unsent packets again,
 * datagram by datagram. Returns the packets sent the second time.
 */
static uint16_t
gso_refused(struct udpsock *u, struct tx_batch *b, unsigned int at, int err)
{
	struct rte_mbuf *rest[SST_MAX_BURST];
	struct sst_net_endpoint rest_to[SST_MAX_BURST];
	uint16_t n = 0;

	if (err != EIO && err != EINVAL)
		return 0;
	u->gso = false;
	for (unsigned int q = b->first[at]; q < b->nq; q++) {
		rest[n] = b->queued[q];
		rest_to[n++] = *b->to[q];
	}
	b->nq = b->first[at]; /* the caller frees the sent ones only */
	return tx_chunk(u, rest, rest_to, n);
}

/* Send up to SST_MAX_BURST packets; they are the driver's (sent or freed). */
static uint16_t
tx_chunk(struct udpsock *u, struct rte_mbuf **pkts, const struct sst_net_endpoint *to, uint16_t n)
{
	struct tx_batch b;
	uint16_t sent = 0, again = 0;
	int rc, err = 0;

	b.k = 0;
	b.nq = 0;
	b.niov = 0;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct sockaddr_storage ss;
		socklen_t alen;

		if (m->nb_segs > SST_LINK_TX_SEGS_MAX ||
			to_sockaddr(&to[i], u->family, &ss, &alen) < 0) {
			u->stats->tx_errors++;
			rte_pktmbuf_free(m);
			continue;
		}
		batch_add(u, &b, m, &to[i], alen);
		memcpy(&b.addrs[b.k - 1], &ss, alen);
	}
	batch_seal(&b);
	rc = b.k > 0 ? sendmmsg(u->fd, b.msgs, b.k, MSG_DONTWAIT) : 0;
	err = rc < 0 ? errno : 0;
	/* sendmmsg() stops at the first message the kernel refuses and
	 * reports its error only when it is the first: ask again for that
	 * of a run, whose refusal may be the offload's. */
	if (rc >= 0 && (unsigned int)rc < b.k && b.count[rc] > 1) {
		int more = sendmmsg(u->fd, b.msgs + rc, b.k - (unsigned int)rc, MSG_DONTWAIT);

		if (more >= 0)
			rc += more;
		else
			err = errno;
	}
	if (rc < 0)
		rc = 0;
	if ((unsigned int)rc < b.k && b.count[rc] > 1)
		again = gso_refused(u, &b, (unsigned int)rc, err);
	for (unsigned int i = 0; i < (unsigned int)rc; i++)
		for (unsigned int q = b.first[i]; q < b.first[i] + b.count[i]; q++) {
			u->stats->tx_packets++;
			u->stats->tx_bytes += rte_pktmbuf_pkt_len(b.queued[q]);
			sent++;
		}
	/* Unsent, not sent again: a full queue is congestion loss, which
	 * SST recovers from like any other; anything else is an error. */
	for (unsigned int i = (unsigned int)rc; i < b.k && b.first[i] < b.nq; i++) {
		if (err == 0 || err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS)
			u->stats->tx_full += b.count[i];
		else
			u->stats->tx_errors += b.count[i];
	}
	rte_pktmbuf_free_bulk(b.queued, b.nq);
	return (uint16_t)(sent + again);
}

static uint16_t
udpsock_tx_burst(void *priv, struct rte_mbuf **pkts, const struct sst_net_endpoint *to, uint16_t n)
{
	struct udpsock *u = priv;
	uint16_t sent = 0;

	for (uint16_t done = 0; done < n;) {
		uint16_t chunk = RTE_MIN((uint16_t)(n - done), (uint16_t)SST_MAX_BURST);

		sent += tx_chunk(u, pkts + done, to + done, chunk);
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
	for (uint16_t i = u->msg_next; i < u->msgs; i++)
		rte_pktmbuf_free(u->msg[i].head);
	u->msgs = 0;
	if (u->rx_empty < SST_MAX_BURST)
		rte_pktmbuf_free_bulk(u->rx_buf + u->rx_empty, SST_MAX_BURST - u->rx_empty);
	u->rx_empty = SST_MAX_BURST;
	if (u->bounce != NULL)
		munmap(u->bounce, SST_MAX_BURST * u->slot_size);
	u->bounce = NULL;
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
