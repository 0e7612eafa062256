/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the udpsock driver's UDP offloads (sst_udpsock.h) over the
 * loopback interface, which keeps a UDP_SEGMENT message whole up to a
 * receiver that asked for UDP_GRO: a burst of mixed sizes to several peers
 * leaves in runs (seen coalesced by a plain socket) and reaches links with
 * and without GRO as the same datagrams; a coalesced message of more
 * datagrams than a burst holds is split exactly over two calls; a run of
 * datagrams larger than an mbuf is counted as truncated; a kernel refusal
 * of the offload turns it off and the datagrams still go; no_gso sends one
 * datagram per message. Every mbuf is back in its pool at the end.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_mbuf.h>

#include "sst_burst.h"
#include "sst_link.h"
#include "sst_test.h"
#include "sst_test_eal.h"
#include "sst_test_mbuf.h"
#include "sst_udpsock.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

enum { MBUF_ROOM = 2048, PEERS = 3 };

static struct rte_mempool *pool;

static struct sst_link *
open_link(const struct sst_udpsock_conf *uc)
{
	struct sst_link_conf conf = {
		.size = sizeof(conf), .driver = "udpsock", .pool = pool, .driver_conf = uc};

	conf.local.addr.family = SST_NET_IPV4;
	conf.local.addr.bytes[0] = 127;
	conf.local.addr.bytes[3] = 1;
	return sst_link_open(&conf);
}

/* A plain socket on 127.0.0.1, with UDP_GRO or without; its endpoint in ep. */
static int
plain_socket(bool gro, struct sst_net_endpoint *ep)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0), one = 1;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0);
	if (gro)
		CU_ASSERT_FATAL(setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) == 0);
	CU_ASSERT_FATAL(getsockname(fd, (struct sockaddr *)&sin, &len) == 0);
	memset(ep, 0, sizeof(*ep));
	ep->addr.family = SST_NET_IPV4;
	memcpy(ep->addr.bytes, &sin.sin_addr, 4);
	ep->port = ntohs(sin.sin_port);
	return fd;
}

/* One message from a plain socket (waiting up to a minute for it): its
 * length, and in *seg the UDP_GRO datagram size (0: not coalesced). */
static ssize_t
plain_recv(int fd, uint8_t *buf, size_t cap, int *seg)
{
	union {
		struct cmsghdr align;
		uint8_t b[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = {.iov_base = buf, .iov_len = cap};
	struct msghdr h = {.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl.b,
		.msg_controllen = sizeof(ctl.b)};
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	ssize_t n;

	*seg = 0;
	if (poll(&pfd, 1, 10000) != 1)
		return -1;
	n = recvmsg(fd, &h, 0);
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&h); c != NULL; c = CMSG_NXTHDR(&h, c))
		if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO)
			memcpy(seg, CMSG_DATA(c), sizeof(*seg));
	return n;
}

/* A datagram of len pattern bytes from stream offset seed * 65536. */
static struct rte_mbuf *
datagram(uint32_t seed, uint32_t len, unsigned int nseg)
{
	struct rte_mbuf *m =
		sst_test_pattern_chain(pool, MBUF_ROOM, (uint64_t)seed << 16, len, nseg);

	CU_ASSERT_FATAL(m != NULL);
	return m;
}

static bool
datagram_ok(const struct rte_mbuf *m, uint32_t seed, uint32_t len)
{
	uint8_t buf[MBUF_ROOM];
	const uint8_t *p;

	if (rte_pktmbuf_pkt_len(m) != len)
		return false;
	p = rte_pktmbuf_read(m, 0, len, buf);
	for (uint32_t i = 0; i < len; i++)
		if (p[i] != sst_test_pattern(((uint64_t)seed << 16) + i))
			return false;
	return true;
}

static bool
bytes_ok(const uint8_t *p, uint32_t seed, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		if (p[i] != sst_test_pattern(((uint64_t)seed << 16) + i))
			return false;
	return true;
}

/* Receive until want packets arrived (or a minute passed). */
static uint16_t
receive(struct sst_link *l, struct rte_mbuf **pkts, struct sst_net_endpoint *from, uint16_t want)
{
	struct pollfd pfd = {.fd = sst_link_wait_fd(l), .events = POLLIN};
	uint16_t got = 0;

	for (int round = 0; got < want && round < 1000; round++) {
		got += sst_link_rx_burst(l, pkts + got, from + got, (uint16_t)(want - got));
		if (got < want)
			poll(&pfd, 1, 60);
	}
	return got;
}

/* The burst of the first test: peer, size, mbuf segments of each datagram.
 * Runs to peer 0 of 1200 bytes (one ends shorter, one is broken by another
 * peer), runs to peer 1 of 1000, one of chained mbufs, and odd sizes. */
static const struct {
	uint8_t peer;
	uint16_t len;
	uint8_t nseg;
} burst[] = {
	{0, 1200, 1},
	{0, 1200, 1},
	{0, 1200, 2},
	{0, 1200, 1},
	{0, 700, 1},
	{0, 1200, 1},
	{1, 1000, 1},
	{1, 1000, 3},
	{1, 1000, 1},
	{0, 1200, 1},
	{0, 1200, 1},
	{2, 100, 1},
	{2, 200, 1},
	{2, 200, 1},
	{2, 1472, 1},
	{1, 1000, 1},
	{1, 1000, 1},
	{1, 1000, 1},
	{1, 1000, 1},
	{1, 999, 1},
	{1, 1000, 1},
	{0, 1, 1},
	{0, 1, 1},
	{0, 1472, 2},
	{2, 1472, 1},
	{2, 1472, 1},
	{2, 1472, 1},
	{2, 1472, 1},
	{2, 1472, 1},
	{2, 1472, 1},
	{2, 1000, 1},
	{0, 1200, 1},
};

/* Peers 0 and 1 are links (with GRO, without), peer 2 a plain socket with
 * UDP_GRO: every datagram reaches its peer whole and in order, and the
 * plain socket sees runs coalesced, so the sender sent them as runs. */
static void
test_runs_to_several_peers(void)
{
	const struct sst_udpsock_conf no_gro = {.size = sizeof(no_gro), .no_gro = true};
	struct sst_link *tx = open_link(NULL);
	struct sst_link *rx[2] = {open_link(NULL), open_link(&no_gro)};
	struct sst_net_endpoint ep[PEERS], tx_ep, to[RTE_DIM(burst)], from[RTE_DIM(burst)];
	struct rte_mbuf *pkts[RTE_DIM(burst)];
	unsigned int avail = rte_mempool_avail_count(pool);
	uint16_t want[2] = {0, 0};
	int plain;
	uint32_t runs = 0, plain_got = 0;

	CU_ASSERT_FATAL(tx != NULL && rx[0] != NULL && rx[1] != NULL);
	sst_link_local(tx, &tx_ep);
	sst_link_local(rx[0], &ep[0]);
	sst_link_local(rx[1], &ep[1]);
	plain = plain_socket(true, &ep[2]);
	for (uint32_t i = 0; i < RTE_DIM(burst); i++) {
		pkts[i] = datagram(i, burst[i].len, burst[i].nseg);
		to[i] = ep[burst[i].peer];
		if (burst[i].peer < 2)
			want[burst[i].peer]++;
	}
	CU_ASSERT_EQUAL(sst_link_tx_burst(tx, pkts, to, RTE_DIM(burst)), RTE_DIM(burst));
	CU_ASSERT_EQUAL(sst_link_stats(tx)->tx_packets, RTE_DIM(burst));
	for (int l = 0; l < 2; l++) {
		uint32_t k = 0;

		CU_ASSERT_EQUAL_FATAL(receive(rx[l], pkts, from, want[l]), want[l]);
		for (uint32_t i = 0; i < RTE_DIM(burst); i++) {
			if (burst[i].peer != l)
				continue;
			CU_ASSERT(datagram_ok(pkts[k], i, burst[i].len));
			CU_ASSERT_EQUAL(from[k].port, tx_ep.port);
			k++;
		}
		CU_ASSERT_EQUAL(sst_link_rx_burst(rx[l], pkts + k, from, 1), 0);
		rte_pktmbuf_free_bulk(pkts, k);
		CU_ASSERT_EQUAL(sst_link_stats(rx[l])->rx_packets, want[l]);
	}
	/* The plain socket: the peer-2 datagrams in order, runs as one message. */
	for (uint32_t i = 0; i < RTE_DIM(burst);) {
		uint8_t buf[65536];
		int seg;
		ssize_t n = plain_recv(plain, buf, sizeof(buf), &seg);
		uint32_t off = 0;

		CU_ASSERT_FATAL(n > 0);
		if (seg > 0)
			runs++;
		if (seg == 0)
			seg = (int)n;
		while (off < (uint32_t)n) {
			while (burst[i].peer != 2)
				i++;
			CU_ASSERT_EQUAL(burst[i].len, RTE_MIN((uint32_t)seg, (uint32_t)n - off));
			CU_ASSERT(bytes_ok(buf + off, i, burst[i].len));
			off += burst[i].len;
			plain_got++;
			i++;
		}
		while (i < RTE_DIM(burst) && burst[i].peer != 2)
			i++;
	}
	CU_ASSERT_EQUAL(plain_got, RTE_DIM(burst) - want[0] - want[1]);
	/* 100 | 200 200 | 1472 | 1472 x 6, 1000 (one message of seven) */
	CU_ASSERT(runs >= 2);
	close(plain);
	sst_link_close(tx);
	sst_link_close(rx[0]);
	sst_link_close(rx[1]);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), avail);
}

/* Send one UDP_SEGMENT message of n datagrams of seg bytes but the last
 * (last bytes) from a plain socket; datagram k holds pattern seed base + k. */
static void
plain_send_run(int fd, const struct sst_net_endpoint *to, uint32_t base, uint16_t seg, uint32_t n,
	uint32_t last)
{
	static uint8_t buf[65536];
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(to->port)};
	uint32_t len = 0;
	int size = seg;

	memcpy(&sin.sin_addr, to->addr.bytes, 4);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t l = k + 1 < n ? seg : last;

		for (uint32_t i = 0; i < l; i++)
			buf[len + i] = sst_test_pattern(((uint64_t)(base + k) << 16) + i);
		len += l;
	}
	CU_ASSERT_FATAL(setsockopt(fd, SOL_UDP, UDP_SEGMENT, &size, sizeof(size)) == 0);
	CU_ASSERT_EQUAL(
		sendto(fd, buf, len, 0, (struct sockaddr *)&sin, sizeof(sin)), (ssize_t)len);
}

/* A message of 45 datagrams (more than a burst) is split over two calls
 * into exactly those datagrams; the next message follows; a run of
 * datagrams larger than an mbuf is dropped and counted. */
static void
test_coalesced_split(void)
{
	struct sst_link *rx = open_link(NULL);
	struct sst_net_endpoint ep, plain_ep, from[SST_MAX_BURST];
	struct rte_mbuf *pkts[SST_MAX_BURST];
	unsigned int avail = rte_mempool_avail_count(pool);
	int tx;
	uint32_t k = 0;
	uint16_t got;

	CU_ASSERT_FATAL(rx != NULL);
	sst_link_local(rx, &ep);
	tx = plain_socket(false, &plain_ep);
	plain_send_run(tx, &ep, 0, 1400, 45, 333);
	plain_send_run(tx, &ep, 100, 500, 3, 500);
	got = receive(rx, pkts, from, SST_MAX_BURST);
	CU_ASSERT_EQUAL_FATAL(got, SST_MAX_BURST);
	for (uint16_t i = 0; i < got; i++, k++) {
		CU_ASSERT(datagram_ok(pkts[i], k, 1400));
		CU_ASSERT_EQUAL(from[i].port, plain_ep.port);
	}
	rte_pktmbuf_free_bulk(pkts, got);
	got = receive(rx, pkts, from, 16);
	CU_ASSERT_EQUAL_FATAL(got, 16);
	for (uint16_t i = 0; i < got; i++, k++) {
		bool ok = k < 45 ? datagram_ok(pkts[i], k, k < 44 ? 1400 : 333)
				 : datagram_ok(pkts[i], 100 + k - 45, 500);

		CU_ASSERT(ok);
	}
	rte_pktmbuf_free_bulk(pkts, got);
	CU_ASSERT_EQUAL(sst_link_stats(rx)->rx_packets, 48);
	/* Two datagrams of 3000 bytes fit no mbuf. */
	plain_send_run(tx, &ep, 200, 3000, 2, 3000);
	plain_send_run(tx, &ep, 300, 100, 1, 100);
	CU_ASSERT_EQUAL_FATAL(receive(rx, pkts, from, 1), 1);
	CU_ASSERT(datagram_ok(pkts[0], 300, 100));
	rte_pktmbuf_free(pkts[0]);
	CU_ASSERT_EQUAL(sst_link_stats(rx)->rx_truncated, 2);
	close(tx);
	sst_link_close(rx);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), avail);
}

/* Send rounds bursts of 8 datagrams of 1000 bytes to a plain GRO socket;
 * return how many messages arrived coalesced, checking every byte. */
static uint32_t
runs_seen(struct sst_link *tx, int plain, const struct sst_net_endpoint *ep, uint32_t rounds)
{
	struct rte_mbuf *pkts[8];
	struct sst_net_endpoint to[8];
	uint32_t runs = 0;

	for (uint32_t r = 0; r < rounds; r++) {
		for (uint32_t i = 0; i < 8; i++) {
			pkts[i] = datagram(r * 8 + i, 1000, 1);
			to[i] = *ep;
		}
		CU_ASSERT_EQUAL(sst_link_tx_burst(tx, pkts, to, 8), 8);
		for (uint32_t i = 0; i < 8;) {
			uint8_t buf[65536];
			int seg;
			ssize_t n = plain_recv(plain, buf, sizeof(buf), &seg);

			CU_ASSERT_FATAL(n > 0 && n % 1000 == 0);
			runs += seg > 0;
			for (ssize_t off = 0; off < n; off += 1000, i++)
				CU_ASSERT(bytes_ok(buf + off, r * 8 + i, 1000));
		}
	}
	return runs;
}

/* The kernel refuses UDP_SEGMENT on a socket without UDP checksums
 * (EINVAL): the burst still goes, datagram by datagram, and so do the
 * next ones; no_gso never sends a run. */
static void
test_refusal_and_no_gso(void)
{
	const struct sst_udpsock_conf no_gso = {.size = sizeof(no_gso), .no_gso = true};
	struct sst_link *tx = open_link(NULL), *plain_tx = open_link(&no_gso);
	struct sst_net_endpoint ep;
	int plain = plain_socket(true, &ep), one = 1;

	CU_ASSERT_FATAL(tx != NULL && plain_tx != NULL);
	CU_ASSERT(runs_seen(tx, plain, &ep, 2) == 2); /* the offload works here */
	CU_ASSERT_EQUAL(runs_seen(plain_tx, plain, &ep, 2), 0);
	CU_ASSERT_FATAL(
		setsockopt(sst_link_wait_fd(tx), SOL_SOCKET, SO_NO_CHECK, &one, sizeof(one)) == 0);
	CU_ASSERT_EQUAL(runs_seen(tx, plain, &ep, 3), 0);
	CU_ASSERT_EQUAL(sst_link_stats(tx)->tx_packets, 5 * 8);
	CU_ASSERT_EQUAL(sst_link_stats(tx)->tx_errors, 0);
	CU_ASSERT_EQUAL(sst_link_stats(tx)->tx_full, 0);
	close(plain);
	sst_link_close(tx);
	sst_link_close(plain_tx);
}

static void
test_bad_conf(void)
{
	const struct sst_udpsock_conf short_conf = {.size = 2};

	CU_ASSERT_PTR_NULL(open_link(&short_conf));
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_runs_to_several_peers),
	SST_TEST(test_coalesced_split),
	SST_TEST(test_refusal_and_no_gso),
	SST_TEST(test_bad_conf),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_link_udpsock_offload") < 0)
		return 1;
	pool = sst_test_pool("udpsock_off_pool", 4095, MBUF_ROOM + RTE_PKTMBUF_HEADROOM);
	if (pool == NULL)
		return 1;
	return sst_test_run("link_udpsock_offload", cases);
}
