/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the pcapng capture, read back with libpcap: frames (single and
 * chained) come back with their bytes, lengths and count; a snap length
 * cuts what is kept but not the length on the wire; datagrams of IPv4 and
 * IPv6 links come back as Ethernet/IP/UDP packets with the endpoints in
 * the right places for each direction, valid IP and UDP checksums and the
 * payload intact; what no header can describe is counted as a drop; the
 * counters match what libpcap reads; a file that cannot be made is
 * refused with the system's error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "sst_capture.h"
#include "sst_test.h"
#include "sst_test_eal.h"
#include "sst_test_mbuf.h"

static struct rte_mempool *pool;
static char path[256]; /* the current test's file */
static bool keep;      /* SST_KEEP_CAPTURE set: leave the files for a look with tshark */

static void
use_path(const char *what)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(path, sizeof(path), "%s/sst-test-capture-%d-%s.pcapng", tmp != NULL ? tmp : "/tmp",
		(int)getpid(), what);
}

static void
done_path(void)
{
	if (!keep)
		unlink(path);
}

static struct rte_mbuf *
pattern(uint64_t off, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p;

	CU_ASSERT_FATAL(m != NULL);
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	CU_ASSERT_FATAL(p != NULL);
	for (uint32_t i = 0; i < len; i++)
		p[i] = sst_test_pattern(off + i);
	return m;
}

static bool
pattern_ok(const uint8_t *p, uint64_t off, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		if (p[i] != sst_test_pattern(off + i))
			return false;
	return true;
}

/* Every packet of the file through fn; @return the count, bytes in *wire. */
typedef void (*packet_fn)(unsigned int i, const struct pcap_pkthdr *h, const uint8_t *p);

static unsigned int
read_back(packet_fn fn, uint64_t *wire)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path, err);
	struct pcap_pkthdr *h;
	const u_char *p;
	unsigned int n = 0;
	time_t now = time(NULL);

	CU_ASSERT_PTR_NOT_NULL_FATAL(pc);
	CU_ASSERT_EQUAL(pcap_datalink(pc), DLT_EN10MB);
	*wire = 0;
	while (pcap_next_ex(pc, &h, &p) == 1) {
		CU_ASSERT(h->ts.tv_sec >= now - 60 && h->ts.tv_sec <= now + 60);
		if (fn != NULL)
			fn(n, h, p);
		*wire += h->len;
		n++;
	}
	pcap_close(pc);
	return n;
}

static uint32_t
frame_len(unsigned int i)
{
	return 60 + i * 97 % 1455;
}

static void
check_frame(unsigned int i, const struct pcap_pkthdr *h, const uint8_t *p)
{
	uint32_t len = i < 100 ? frame_len(i) : 3000;

	CU_ASSERT_EQUAL(h->len, len);
	CU_ASSERT_EQUAL(h->caplen, len);
	CU_ASSERT(pattern_ok(p, i * 10000u, h->caplen));
}

static void
test_frames(void)
{
	struct sst_capture *c;
	struct rte_mbuf *pkts[100];
	unsigned int avail = rte_mempool_avail_count(pool);
	uint64_t bytes = 0, wire;

	use_path("frames");
	c = sst_capture_open(path, UINT16_MAX, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	for (unsigned int i = 0; i < 100; i++) {
		pkts[i] = pattern(i * 10000u, frame_len(i));
		bytes += frame_len(i);
	}
	sst_capture_frames(c, pkts, 50, SST_CAPTURE_IN);
	sst_capture_frames(c, pkts + 50, 50, SST_CAPTURE_OUT);
	rte_pktmbuf_free_bulk(pkts, 100);
	pkts[0] = sst_test_pattern_chain(pool, 2048, 100 * 10000u, 3000, 3);
	CU_ASSERT_FATAL(pkts[0] != NULL);
	sst_capture_frames(c, pkts, 1, SST_CAPTURE_OUT);
	rte_pktmbuf_free(pkts[0]);
	bytes += 3000;
	CU_ASSERT_EQUAL(sst_capture_stats(c)->packets, 101);
	CU_ASSERT_EQUAL(sst_capture_stats(c)->bytes, bytes);
	CU_ASSERT_EQUAL(sst_capture_stats(c)->drops, 0);
	CU_ASSERT_EQUAL(sst_capture_close(c), 0);
	CU_ASSERT_EQUAL(read_back(check_frame, &wire), 101);
	CU_ASSERT_EQUAL(wire, bytes);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), avail);
	done_path();
}

static void
check_snap(unsigned int i, const struct pcap_pkthdr *h, const uint8_t *p)
{
	CU_ASSERT_EQUAL(h->len, 1000 + i);
	CU_ASSERT_EQUAL(h->caplen, 128);
	CU_ASSERT(pattern_ok(p, i, 128));
}

/* Many more packets than the buffer holds, each cut to 128 bytes. */
static void
test_snaplen(void)
{
	struct sst_capture *c;
	uint64_t wire;

	use_path("snaplen");
	c = sst_capture_open(path, UINT16_MAX, 128, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	for (unsigned int i = 0; i < 3000; i++) {
		struct rte_mbuf *m = pattern(i, 1000 + i % 500);

		sst_capture_frames(c, &m, 1, SST_CAPTURE_IN);
		rte_pktmbuf_free(m);
		if (i == 499)
			CU_ASSERT_EQUAL(sst_capture_flush(c), 0);
	}
	CU_ASSERT_EQUAL(sst_capture_stats(c)->packets, 3000);
	CU_ASSERT_EQUAL(sst_capture_close(c), 0);
	CU_ASSERT_EQUAL(read_back(NULL, &wire), 3000);
	{
		/* The first 500 in detail. */
		char err[PCAP_ERRBUF_SIZE];
		pcap_t *pc = pcap_open_offline(path, err);
		struct pcap_pkthdr *h;
		const u_char *p;

		CU_ASSERT_PTR_NOT_NULL_FATAL(pc);
		for (unsigned int i = 0; i < 500 && pcap_next_ex(pc, &h, &p) == 1; i++)
			check_snap(i, h, p);
		pcap_close(pc);
	}
	done_path();
}

static struct sst_net_endpoint local4 = {
	.addr = {.family = SST_NET_IPV4, .bytes = {10, 0, 0, 1}}, .port = 4000};
static struct sst_net_endpoint peer4 = {
	.addr = {.family = SST_NET_IPV4, .bytes = {10, 0, 0, 2}}, .port = 5000};
static struct sst_net_endpoint local6 = {
	.addr = {.family = SST_NET_IPV6, .bytes = {0x20, 0x01, 0x0d, 0xb8, [15] = 1}},
	.port = 4006};
static struct sst_net_endpoint peer6 = {
	.addr = {.family = SST_NET_IPV6, .bytes = {0x20, 0x01, 0x0d, 0xb8, [15] = 2}},
	.port = 5006};

/* Packet i: IPv4 in (0), IPv4 out (1), IPv6 in (2), IPv6 out (3), repeated. */
static uint32_t
dgram_len(unsigned int i)
{
	return 1 + i * 131 % 1400;
}

static void
check_dgram(unsigned int i, const struct pcap_pkthdr *h, const uint8_t *p)
{
	bool v6 = (i / 4) % 2 == 1, out = i % 2 == 1;
	const struct sst_net_endpoint *src =
		out ? (v6 ? &local6 : &local4) : (v6 ? &peer6 : &peer4);
	const struct sst_net_endpoint *dst =
		out ? (v6 ? &peer6 : &peer4) : (v6 ? &local6 : &local4);
	uint32_t hl = RTE_ETHER_HDR_LEN + (v6 ? 40 : 20) + 8, len = dgram_len(i);
	uint8_t buf[2048] __rte_aligned(8);
	struct rte_ether_hdr eh;
	struct rte_udp_hdr uh;

	CU_ASSERT_EQUAL_FATAL(h->caplen, hl + len);
	CU_ASSERT_EQUAL(h->len, hl + len);
	memcpy(buf, p, h->caplen);
	memcpy(&eh, buf, sizeof(eh));
	memcpy(&uh, buf + hl - 8, sizeof(uh));
	/* The checksum is recomputed over the datagram with the field zero. */
	memset(buf + hl - 2, 0, 2);
	CU_ASSERT_EQUAL(
		rte_be_to_cpu_16(eh.ether_type), v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);
	CU_ASSERT_EQUAL(rte_be_to_cpu_16(uh.src_port), src->port);
	CU_ASSERT_EQUAL(rte_be_to_cpu_16(uh.dst_port), dst->port);
	CU_ASSERT_EQUAL(rte_be_to_cpu_16(uh.dgram_len), len + 8);
	if (v6) {
		struct rte_ipv6_hdr ip;

		memcpy(&ip, buf + RTE_ETHER_HDR_LEN, sizeof(ip));
		CU_ASSERT_EQUAL(memcmp(ip.src_addr, src->addr.bytes, 16), 0);
		CU_ASSERT_EQUAL(memcmp(ip.dst_addr, dst->addr.bytes, 16), 0);
		CU_ASSERT_EQUAL(rte_be_to_cpu_16(ip.payload_len), len + 8);
		CU_ASSERT_EQUAL(rte_ipv6_udptcp_cksum(&ip, buf + hl - 8), uh.dgram_cksum);
	} else {
		struct rte_ipv4_hdr ip;

		memcpy(&ip, buf + RTE_ETHER_HDR_LEN, sizeof(ip));
		CU_ASSERT_EQUAL(memcmp(&ip.src_addr, src->addr.bytes, 4), 0);
		CU_ASSERT_EQUAL(memcmp(&ip.dst_addr, dst->addr.bytes, 4), 0);
		CU_ASSERT_EQUAL(rte_be_to_cpu_16(ip.total_length), len + 28);
		CU_ASSERT_EQUAL(rte_ipv4_cksum(&ip), 0);
		CU_ASSERT_EQUAL(rte_ipv4_udptcp_cksum(&ip, buf + hl - 8), uh.dgram_cksum);
	}
	CU_ASSERT(pattern_ok(buf + hl, i * 10000u, len));
}

static void
test_datagrams(void)
{
	struct sst_capture *c;
	struct sst_net_endpoint none = {.port = 1};
	unsigned int avail = rte_mempool_avail_count(pool);
	uint64_t wire, bytes = 0;

	use_path("datagrams");
	c = sst_capture_open(path, UINT16_MAX, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	for (unsigned int i = 0; i < 80; i++) {
		bool v6 = (i / 4) % 2 == 1, out = i % 2 == 1;
		struct rte_mbuf *m = pattern(i * 10000u, dgram_len(i));

		sst_capture_datagrams(c, &m, v6 ? &peer6 : &peer4, 1,
			out ? SST_CAPTURE_OUT : SST_CAPTURE_IN, v6 ? &local6 : &local4);
		bytes += RTE_ETHER_HDR_LEN + (v6 ? 40 : 20) + 8 + dgram_len(i);
		rte_pktmbuf_free(m);
	}
	{
		/* A peer with no address: nothing to write, a drop. */
		struct rte_mbuf *m = pattern(0, 10);

		sst_capture_datagrams(c, &m, &none, 1, SST_CAPTURE_IN, &local4);
		rte_pktmbuf_free(m);
	}
	CU_ASSERT_EQUAL(sst_capture_stats(c)->packets, 80);
	CU_ASSERT_EQUAL(sst_capture_stats(c)->drops, 1);
	CU_ASSERT_EQUAL(sst_capture_stats(c)->bytes, bytes);
	CU_ASSERT_EQUAL(sst_capture_close(c), 0);
	CU_ASSERT_EQUAL(read_back(check_dgram, &wire), 80);
	CU_ASSERT_EQUAL(wire, bytes);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), avail);
	done_path();
}

/* A local endpoint of the other family, or none: the unspecified address. */
static void
check_unspecified(unsigned int i, const struct pcap_pkthdr *h, const uint8_t *p)
{
	static const uint8_t zero[16];
	struct rte_ipv6_hdr ip;

	RTE_SET_USED(i);
	CU_ASSERT_FATAL(h->caplen >= RTE_ETHER_HDR_LEN + sizeof(ip));
	memcpy(&ip, p + RTE_ETHER_HDR_LEN, sizeof(ip));
	CU_ASSERT_EQUAL(memcmp(ip.src_addr, peer6.addr.bytes, 16), 0);
	CU_ASSERT_EQUAL(memcmp(ip.dst_addr, zero, 16), 0);
}

static void
test_mixed_families(void)
{
	struct sst_capture *c;
	struct rte_mbuf *m = pattern(0, 100);
	uint64_t wire;

	use_path("mixed");
	c = sst_capture_open(path, UINT16_MAX, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	sst_capture_datagrams(c, &m, &peer6, 1, SST_CAPTURE_IN, &local4);
	sst_capture_datagrams(c, &m, &peer6, 1, SST_CAPTURE_IN, NULL);
	rte_pktmbuf_free(m);
	CU_ASSERT_EQUAL(sst_capture_close(c), 0);
	CU_ASSERT_EQUAL(read_back(check_unspecified, &wire), 2);
	done_path();
}

static void
test_open_errors(void)
{
	CU_ASSERT_PTR_NULL(sst_capture_open("/nonexistent-dir/x.pcapng", UINT16_MAX, 0, NULL));
	CU_ASSERT_EQUAL(rte_errno, ENOENT);
	CU_ASSERT_PTR_NULL(sst_capture_open(NULL, UINT16_MAX, 0, NULL));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_EQUAL(sst_capture_close(NULL), 0);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_frames),
	SST_TEST(test_snaplen),
	SST_TEST(test_datagrams),
	SST_TEST(test_mixed_families),
	SST_TEST(test_open_errors),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_capture") < 0)
		return 1;
	pool = sst_test_pool("capture_pool", 1023, 2048);
	if (pool == NULL)
		return 1;
	keep = getenv("SST_KEEP_CAPTURE") != NULL;
	return sst_test_run("capture", cases);
}
