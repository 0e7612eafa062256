/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ethdev link on a net_af_packet port has a descriptor to block on
 * (issue 17): an idle worker on a veth blocked nowhere and spun, and on a
 * shared CPU the frame it waited for was seen only at the scheduler's next
 * tick. The descriptor must poll readable when a frame is waiting and not
 * before, and stay absent when the port's socket cannot be told apart
 * from others (several queue pairs, or two ports on one interface). A port
 * set up promiscuous gives its interface back as it found it.
 *
 * The ports are on the loopback interface of a network namespace of the
 * test's own (unshare(CLONE_NEWNET)), so no other traffic reaches them;
 * without the privilege to make one, the test is skipped (exit 77).
 */
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "sst_ethdev.h"
#include "sst_link.h"
#include "sst_test.h"
#include "sst_test_eal.h"

enum {
	FRAME_LEN = 200,
	ETHERTYPE_LOCAL = 0x88b5, /* IEEE 802 local experimental */
	SKIP = 77,		  /* meson: the test was skipped */
};

static struct rte_mempool *pool;

/* A port of @p qpairs queue pairs on lo, set up with one queue per pair. */
static int
af_packet_port(const char *name, unsigned int qpairs, uint16_t *port_id)
{
	struct rte_mempool *pools[2] = {pool, pool};
	struct sst_ethdev_port_conf conf = {
		.size = sizeof(conf), .nb_queues = (uint16_t)qpairs, .pools = pools, .mtu = 1500};
	char args[64];
	int rc;

	snprintf(args, sizeof(args), "iface=lo,qpairs=%u", qpairs);
	rc = rte_vdev_init(name, args);
	if (rc != 0)
		return rc;
	rc = rte_eth_dev_get_port_by_name(name, port_id);
	if (rc != 0)
		return rc;
	return sst_ethdev_port_setup(*port_id, &conf, NULL);
}

static struct sst_link *
open_link(uint16_t port_id)
{
	struct sst_ethdev_link_conf ec = {.port_id = port_id, .queue_id = 0};
	struct sst_link_conf conf = {
		.size = sizeof(conf), .driver = "ethdev", .pool = pool, .driver_conf = &ec};

	return sst_link_open(&conf);
}

/* A broadcast frame of FRAME_LEN bytes whose payload is @p seed. */
static struct rte_mbuf *
frame(uint8_t seed)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t f[FRAME_LEN];
	char *p;

	memset(f, 0xff, 6);
	memset(f + 6, 0x02, 6);
	f[12] = ETHERTYPE_LOCAL >> 8;
	f[13] = ETHERTYPE_LOCAL & 0xff;
	memset(f + 14, seed, FRAME_LEN - 14);
	CU_ASSERT_FATAL(m != NULL);
	p = rte_pktmbuf_append(m, FRAME_LEN);
	CU_ASSERT_FATAL(p != NULL);
	memcpy(p, f, FRAME_LEN);
	return m;
}

static void
test_wait_fd(void)
{
	struct pollfd pfd = {.events = POLLIN};
	struct rte_mbuf *m;
	struct sst_link *l;
	uint16_t port_id;

	CU_ASSERT_EQUAL_FATAL(af_packet_port("net_af_packet_w1", 1, &port_id), 0);
	l = open_link(port_id);
	CU_ASSERT_FATAL(l != NULL);
	pfd.fd = sst_link_wait_fd(l);
	CU_ASSERT_FATAL(pfd.fd >= 0);
	CU_ASSERT_EQUAL(poll(&pfd, 1, 0), 0); /* nothing waiting yet */
	m = frame(7);
	CU_ASSERT_EQUAL_FATAL(sst_link_tx_burst(l, &m, NULL, 1), 1);
	/* lo hands the frame back to the socket that sent it: up to a
	 * minute, for a loaded host. */
	CU_ASSERT_EQUAL(poll(&pfd, 1, 60000), 1);
	CU_ASSERT(pfd.revents & POLLIN);
	CU_ASSERT_EQUAL_FATAL(sst_link_rx_burst(l, &m, NULL, 1), 1);
	CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(m), FRAME_LEN);
	CU_ASSERT_EQUAL(*rte_pktmbuf_mtod_offset(m, uint8_t *, FRAME_LEN - 1), 7);
	rte_pktmbuf_free(m);
	/* Taken: not readable any more. */
	CU_ASSERT_EQUAL(poll(&pfd, 1, 0), 0);
	sst_link_close(l);
	CU_ASSERT_EQUAL(sst_ethdev_port_stop(port_id), 0);
	CU_ASSERT_EQUAL(rte_vdev_uninit("net_af_packet_w1"), 0);
}

/* Which socket serves which queue is not known with several queue pairs,
 * nor which port a socket serves with two ports on one interface: no
 * descriptor then, rather than one that may belong to another queue. */
static void
test_no_guess(void)
{
	uint16_t one, two;
	struct sst_link *l;

	CU_ASSERT_EQUAL_FATAL(af_packet_port("net_af_packet_n2", 2, &two), 0);
	l = open_link(two);
	CU_ASSERT_FATAL(l != NULL);
	CU_ASSERT_EQUAL(sst_link_wait_fd(l), -ENOTSUP);
	sst_link_close(l);
	CU_ASSERT_EQUAL_FATAL(af_packet_port("net_af_packet_n1", 1, &one), 0);
	l = open_link(one);
	CU_ASSERT_FATAL(l != NULL);
	CU_ASSERT_EQUAL(sst_link_wait_fd(l), -ENOTSUP);
	sst_link_close(l);
	sst_ethdev_port_stop(two);
	sst_ethdev_port_stop(one);
	rte_vdev_uninit("net_af_packet_n2");
	rte_vdev_uninit("net_af_packet_n1");
}

/* Whether lo is promiscuous (IFF_PROMISC as the kernel reports it). */
static bool
lo_promiscuous(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM, 0), rc;

	CU_ASSERT_FATAL(s >= 0);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	rc = ioctl(s, SIOCGIFFLAGS, &ifr);
	close(s);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	return (ifr.ifr_flags & IFF_PROMISC) != 0;
}

/* A port set up promiscuous (a network layer with an address of its own,
 * tools' --mac) makes its interface promiscuous, and stopping it gives the
 * interface back as found: a net_af_packet port's mode is the kernel
 * interface's, which outlives the process. */
static void
test_promiscuous_given_back(void)
{
	struct rte_mempool *pools[1] = {pool};
	struct sst_ethdev_port_conf conf = {.size = sizeof(conf),
		.nb_queues = 1,
		.pools = pools,
		.mtu = 1500,
		.promiscuous = true};
	uint16_t port_id;

	CU_ASSERT_FALSE_FATAL(lo_promiscuous());
	CU_ASSERT_EQUAL_FATAL(rte_vdev_init("net_af_packet_p1", "iface=lo"), 0);
	CU_ASSERT_EQUAL_FATAL(rte_eth_dev_get_port_by_name("net_af_packet_p1", &port_id), 0);
	CU_ASSERT_EQUAL_FATAL(sst_ethdev_port_setup(port_id, &conf, NULL), 0);
	CU_ASSERT_TRUE(lo_promiscuous());
	CU_ASSERT_EQUAL(sst_ethdev_port_stop(port_id), 0);
	CU_ASSERT_FALSE(lo_promiscuous());
	rte_vdev_uninit("net_af_packet_p1");
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_wait_fd),
	SST_TEST(test_no_guess),
	SST_TEST(test_promiscuous_given_back),
	SST_TEST_END,
};

/* A network namespace of our own, its loopback up: -1 when not allowed. */
static int
private_lo(void)
{
	struct ifreq ifr;
	int s, rc;

	if (unshare(CLONE_NEWNET) != 0)
		return -1;
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	rc = ioctl(s, SIOCGIFFLAGS, &ifr);
	if (rc == 0) {
		ifr.ifr_flags |= IFF_UP;
		rc = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
	return rc;
}

int
main(void)
{
	/* Before the EAL: its threads stay where they were started, and
	 * only this one opens the ports' sockets. */
	if (private_lo() != 0) {
		printf("test_link_af_packet: skipped, no network namespace of our own (%s)\n",
			strerror(errno));
		return SKIP;
	}
	if (sst_test_eal_init("test_link_af_packet") < 0)
		return 1;
	pool = sst_test_pool("afp_pool", 4095, 2048);
	if (pool == NULL)
		return 1;
	return sst_test_run("link_af_packet", cases);
}
