/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ethdev link on net_af_xdp ports, at both ends of a veth pair
 * (docs/engine.md, "net_af_xdp"): the port's queue is an AF_XDP socket
 * that an idle worker can block on, found among the process's sockets by
 * the queue's setup (two ports, two different descriptors); a chained
 * frame, which the PMD would cut to its first segment, arrives whole; and
 * frames keep arriving through every mbuf, whatever pools the ports were
 * given (the ports receive into UMEM pools of their own).
 *
 * The veth pair lives in a network namespace of the test's own
 * (unshare(CLONE_NEWNET)), so its names are free and no other traffic
 * reaches it. Skipped (exit 77), saying why, without the privilege to make
 * one, without a kernel that has AF_XDP sockets or veth, or without `ip`.
 */
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "sst_ethdev.h"
#include "sst_link.h"
#include "sst_pool.h"
#include "sst_test.h"
#include "sst_test_eal.h"

#ifndef AF_XDP
#define AF_XDP 44
#endif

enum {
	FRAME_LEN = 200,
	CHAIN_SEG_LEN = 500,	  /* each of the two payload segments */
	ETHERTYPE_LOCAL = 0x88b5, /* IEEE 802 local experimental */
	POOL_MBUFS = 4095,
	MANY_FRAMES = 20000,
	SKIP = 77, /* meson: the test was skipped */
};

/* The two ends of the pair and their pools (one each: each is its port's
 * UMEM). */
static const char *const ifaces[2] = {"xdpt0", "xdpt1"};
static const char *const vdevs[2] = {"net_af_xdp_t0", "net_af_xdp_t1"};
static struct rte_mempool *pools[2];
static uint16_t ports[2];
static struct sst_link *links[2];

static int
xdp_port(int side)
{
	struct sst_ethdev_port_conf conf = {
		.size = sizeof(conf), .nb_queues = 1, .pools = &pools[side], .mtu = 1500};
	char args[64];
	int rc;

	snprintf(args, sizeof(args), "iface=%s", ifaces[side]);
	rc = rte_vdev_init(vdevs[side], args);
	if (rc != 0)
		return rc;
	rc = rte_eth_dev_get_port_by_name(vdevs[side], &ports[side]);
	if (rc != 0)
		return rc;
	return sst_ethdev_port_setup(ports[side], &conf, NULL);
}

static struct sst_link *
open_link(int side)
{
	struct sst_ethdev_link_conf ec = {.port_id = ports[side], .queue_id = 0};
	struct sst_link_conf conf = {
		.size = sizeof(conf), .driver = "ethdev", .pool = pools[side], .driver_conf = &ec};

	return sst_link_open(&conf);
}

/* Both ports up with their links: once, by the first test that needs them. */
static void
ports_up(void)
{
	for (int side = 0; side < 2; side++) {
		if (links[side] != NULL)
			continue;
		CU_ASSERT_EQUAL_FATAL(xdp_port(side), 0);
		links[side] = open_link(side);
		CU_ASSERT_FATAL(links[side] != NULL);
	}
}

/* An Ethernet header to everyone, of the local experimental type. */
static void
eth_header(uint8_t *f)
{
	memset(f, 0xff, 6);
	memset(f + 6, 0x02, 6);
	f[12] = ETHERTYPE_LOCAL >> 8;
	f[13] = ETHERTYPE_LOCAL & 0xff;
}

static struct rte_mbuf *
segment(struct rte_mempool *mp, uint16_t len, uint8_t fill)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *p;

	CU_ASSERT_FATAL(m != NULL);
	p = (uint8_t *)rte_pktmbuf_append(m, len);
	CU_ASSERT_FATAL(p != NULL);
	memset(p, fill, len);
	return m;
}

static bool
is_ours(const struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);

	return m->data_len >= 14 && f[12] == ETHERTYPE_LOCAL >> 8 &&
	       f[13] == (ETHERTYPE_LOCAL & 0xff);
}

/* Wait up to a minute (a loaded host) for the next frame of ours on
 * @p fd, and take it; any frame the kernel sends on the pair is dropped. */
static struct rte_mbuf *
receive_one(int side, int fd)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	struct rte_mbuf *m = NULL;

	for (;;) {
		if (poll(&pfd, 1, 60000) != 1 || !(pfd.revents & POLLIN))
			CU_FAIL_FATAL("no frame came within a minute");
		if (sst_link_rx_burst(links[side], &m, NULL, 1) != 1)
			CU_FAIL_FATAL("the descriptor polled readable, but no frame was received");
		if (is_ours(m))
			return m;
		rte_pktmbuf_free(m);
	}
}

/* Each port's descriptor is the AF_XDP socket of its own interface: it
 * polls readable when a frame is waiting, and not before or after. */
static void
test_wait_fd(void)
{
	struct pollfd pfd = {.events = POLLIN};
	struct rte_mbuf *m;
	int fd1;

	ports_up();
	pfd.fd = sst_link_wait_fd(links[0]);
	fd1 = sst_link_wait_fd(links[1]);
	CU_ASSERT_FATAL(pfd.fd >= 0);
	CU_ASSERT_FATAL(fd1 >= 0);
	CU_ASSERT_NOT_EQUAL(pfd.fd, fd1);
	CU_ASSERT_EQUAL(poll(&pfd, 1, 0), 0); /* nothing waiting yet */
	m = segment(pools[1], FRAME_LEN, 7);
	eth_header(rte_pktmbuf_mtod(m, uint8_t *));
	CU_ASSERT_EQUAL_FATAL(sst_link_tx_burst(links[1], &m, NULL, 1), 1);
	m = receive_one(0, pfd.fd);
	CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(m), FRAME_LEN);
	CU_ASSERT_EQUAL(*rte_pktmbuf_mtod_offset(m, uint8_t *, FRAME_LEN - 1), 7);
	rte_pktmbuf_free(m);
	CU_ASSERT_EQUAL(poll(&pfd, 1, 0), 0); /* taken */
}

/* A header segment and two payload segments (the stream layer's usual
 * frame: a header mbuf before payloads sent by reference) arrive as one
 * frame with every byte: the PMD sends one buffer per frame, and would
 * have sent the header's bytes only (its first segment's). */
static void
test_chained_frame(void)
{
	struct rte_mbuf *m, *p1, *p2;
	const uint8_t *b;
	uint32_t len = 14 + 2 * CHAIN_SEG_LEN;

	ports_up();
	m = segment(pools[1], 14, 0);
	eth_header(rte_pktmbuf_mtod(m, uint8_t *));
	p1 = segment(pools[1], CHAIN_SEG_LEN, 0x11);
	p2 = segment(pools[1], CHAIN_SEG_LEN, 0x22);
	CU_ASSERT_EQUAL_FATAL(rte_pktmbuf_chain(m, p1), 0);
	CU_ASSERT_EQUAL_FATAL(rte_pktmbuf_chain(m, p2), 0);
	CU_ASSERT_EQUAL_FATAL(sst_link_tx_burst(links[1], &m, NULL, 1), 1);
	m = receive_one(0, sst_link_wait_fd(links[0]));
	CU_ASSERT_EQUAL_FATAL(rte_pktmbuf_pkt_len(m), len);
	CU_ASSERT_EQUAL_FATAL(m->nb_segs, 1);
	b = rte_pktmbuf_mtod(m, const uint8_t *);
	for (uint32_t i = 14; i < len; i++)
		if (b[i] != (i < 14 + CHAIN_SEG_LEN ? 0x11 : 0x22)) {
			CU_FAIL("a payload byte differs");
			break;
		}
	rte_pktmbuf_free(m);
}

/* Many frames each way, one at a time as a transaction does: every one
 * arrives, past the sizes of the PMD's rings (2,048 descriptors at most)
 * and through every mbuf of the pools. The ports were given the two kinds
 * of pool the PMD cannot register as its UMEM as they are: one whose
 * objects keep off page boundaries (rte_pktmbuf_pool_create() without
 * hugepages), with which frame 315 was refused by the kernel as outside
 * the UMEM and never arrived; and a growable one, as the engine's. */
static void
test_many_frames(void)
{
	ports_up();
	for (unsigned int i = 0; i < MANY_FRAMES; i++) {
		int from = i % 2, to = 1 - from;
		struct rte_mbuf *m = segment(pools[from], FRAME_LEN, (uint8_t)i);

		eth_header(rte_pktmbuf_mtod(m, uint8_t *));
		if (sst_link_tx_burst(links[from], &m, NULL, 1) != 1) {
			printf("frame %u not sent\n", i);
			CU_FAIL_FATAL("a frame was not sent");
		}
		m = receive_one(to, sst_link_wait_fd(links[to]));
		if (m == NULL ||
			*rte_pktmbuf_mtod_offset(m, uint8_t *, FRAME_LEN - 1) != (uint8_t)i) {
			printf("frame %u lost\n", i);
			CU_FAIL_FATAL("a frame was lost");
		}
		rte_pktmbuf_free(m);
	}
}

/* LeakSanitizer's hook (the asan build; unused elsewhere): DPDK 22.11's
 * net_af_xdp closes a port without freeing the libxdp UMEM handle it made
 * (xsk_umem__create(), 80 bytes a queue), which is neither ours to free
 * nor a leak of the link's. */
const char *__lsan_default_suppressions(void);

const char *
__lsan_default_suppressions(void)
{
	return "leak:xsk_umem__create\n";
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_wait_fd),
	SST_TEST(test_chained_frame),
	SST_TEST(test_many_frames),
	SST_TEST_END,
};

/* A network namespace of our own with the veth pair up; NULL, or why
 * not (the test is skipped then). */
static const char *
private_veth(void)
{
	static char why[160];
	FILE *f;
	int s;

	if (unshare(CLONE_NEWNET) != 0) {
		snprintf(why, sizeof(why), "no network namespace of our own (%s)", strerror(errno));
		return why;
	}
	s = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (s < 0) {
		snprintf(
			why, sizeof(why), "the kernel has no AF_XDP sockets (%s)", strerror(errno));
		return why;
	}
	close(s);
	/* Without IPv6 the kernel sends nothing on the pair by itself (neighbour
	 * discovery and MLD reports would make a port readable before the test
	 * sent anything). The default is the namespace's own; without IPv6 in
	 * the kernel there is no file and nothing to quiet. */
	f = fopen("/proc/sys/net/ipv6/conf/default/disable_ipv6", "w");
	if (f != NULL) {
		fputs("1\n", f);
		fclose(f);
	}
	/* The child runs in our namespace: the pair is ours, and goes with it. */
	if (system("ip link add xdpt0 type veth peer name xdpt1 2>/dev/null && "
		   "ip link set xdpt0 up && ip link set xdpt1 up") != 0)
		return "cannot make a veth pair (ip, or the veth driver, missing)";
	return NULL;
}

int
main(void)
{
	const char *why;
	int rc;

	/* Before the EAL: only this thread opens the ports' sockets. */
	why = private_veth();
	if (why != NULL) {
		printf("test_link_af_xdp: skipped, %s\n", why);
		return SKIP;
	}
	if (sst_test_eal_init("test_link_af_xdp") < 0)
		return 1;
	pools[0] = sst_test_pool("afx_pool0", POOL_MBUFS, 2048);
	pools[1] = sst_pool_create(&(struct sst_pool_params){.size = sizeof(struct sst_pool_params),
		.name = "afx_pool1",
		.max = POOL_MBUFS,
		.data_room = 2048 + RTE_PKTMBUF_HEADROOM,
		.socket_id = SOCKET_ID_ANY});
	if (pools[0] == NULL || pools[1] == NULL)
		return 1;
	rc = sst_test_run("link_af_xdp", cases);
	for (int side = 0; side < 2; side++) {
		sst_link_close(links[side]);
		if (links[side] != NULL)
			sst_ethdev_port_stop(ports[side]);
		rte_vdev_uninit(vdevs[side]);
	}
	return rc;
}
