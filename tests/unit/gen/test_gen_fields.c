/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen's template fields (apps/sst-gen/gen_fields.c, gen_fields_vec.c):
 * the vector burst kernel against the scalar one, byte for byte, over
 * many bursts of every size whose sequence numbers cross 2^16, 2^32 and
 * 2^48 boundaries, with one flow and with address and port counters that
 * wrap inside bursts, for trailers on even and odd offsets; and each
 * packet the kernel writes checked from scratch (IPv4 and UDP checksums
 * summed over the packet, the Chk32 trailer verified, the header's
 * sequence bits).
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "../../../apps/sst-gen/gen_template.h"
#include "sst_chk32.h"
#include "sst_test.h"

enum { KEY = 0x5eed1234u };

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t
next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A checksum-mode channel packet of @p chan_len bytes before the trailer
 * (channel header, then bytes that vary with @p salt), in IPv4/UDP, made
 * ready for the kernels. */
static void
make_frame(struct gen_frame *f, uint16_t chan_len, uint8_t salt)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f->bytes + GEN_L2_LEN);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(f->bytes + GEN_UDP_OFF);
	uint16_t ulen = (uint16_t)(GEN_L4_LEN + chan_len + SST_CHK32_TRAILER_LEN);

	memset(f, 0, sizeof(*f));
	f->len = (uint16_t)(GEN_UDP_OFF + ulen);
	f->kind = GEN_FRAME_CHANNEL;
	memset(f->bytes, 0xa5, 12);
	f->bytes[12] = 0x08;
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(GEN_L3_LEN + ulen));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0xc6120001u + salt);
	ip->dst_addr = rte_cpu_to_be_32(0x0a4d0001u);
	udp->src_port = rte_cpu_to_be_16((uint16_t)(40000 + salt * 997));
	udp->dst_port = rte_cpu_to_be_16(4433);
	udp->dgram_len = rte_cpu_to_be_16(ulen);
	for (uint16_t i = 0; i < chan_len; i++)
		f->bytes[GEN_PAYLOAD_OFF + i] = (uint8_t)(i * 31 + salt);
	f->bytes[GEN_PAYLOAD_OFF] = (uint8_t)(1 + salt % 200); /* the channel number */
	CU_ASSERT_EQUAL_FATAL(gen_frame_prepare(f, KEY), 0);
}

/* Packet @p p, sequence number @p seq, checked from scratch. */
static void
check_packet(const struct gen_frame *f, const uint8_t *p, uint64_t seq)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(p + GEN_L2_LEN);
	const uint8_t *pkt = p + GEN_PAYLOAD_OFF;
	uint16_t ulen = (uint16_t)(f->len - GEN_UDP_OFF);

	CU_ASSERT_EQUAL(rte_ipv4_cksum(ip), 0);
	/* Over a right checksum the sum is all ones: 0, sent as 0xffff. */
	CU_ASSERT_EQUAL(rte_ipv4_udptcp_cksum(ip, p + GEN_UDP_OFF), 0xffff);
	CU_ASSERT_EQUAL(sst_chk32_verify(seq, pkt, ulen - GEN_L4_LEN, KEY), 0);
	CU_ASSERT_EQUAL(
		(uint32_t)pkt[1] << 16 | (uint32_t)pkt[2] << 8 | pkt[3], (uint32_t)seq & 0xffffff);
}

/* Bursts of random sizes from @p seq on, both kernels side by side;
 * @return packets compared. */
static uint32_t
run_bursts(
	const struct gen_frame *f, uint64_t seq, uint32_t addrs, uint32_t ports, uint32_t packets)
{
	static uint8_t vec[GEN_BURST_MAX][GEN_FRAME_MAX];
	struct gen_vary_run r = {
		.v = {.addr = (uint32_t)(next_rand() % addrs),
			.port = (uint32_t)(next_rand() % ports),
			.seq = seq},
		.vary_addrs = addrs,
		.vary_ports = ports,
	};
	struct gen_vary_run rv = r;
	uint32_t done = 0, mismatches = 0;

	CU_ASSERT_TRUE_FATAL(gen_frame_vary_burst_vec_fits(f, &r));
	while (done < packets) {
		uint16_t n = (uint16_t)(1 + next_rand() % GEN_BURST_MAX);

		mismatches += gen_frame_burst_pair(f, &r, &rv, n, KEY, vec) != 0;
		for (uint16_t k = 0; k < n; k++)
			check_packet(f, vec[k], rv.v.seq - n + 1 + k);
		CU_ASSERT_EQUAL(r.v.seq, rv.v.seq);
		CU_ASSERT_EQUAL(r.v.addr, rv.v.addr);
		CU_ASSERT_EQUAL(r.v.port, rv.v.port);
		done += n;
	}
	CU_ASSERT_EQUAL(mismatches, 0);
	return done;
}

/* Every kind of run: starts just before boundaries of the sequence
 * number (and anywhere), one flow and many, trailers on even and odd
 * offsets, short and long packets. */
static void
test_vector_matches_scalar(void)
{
	static const uint16_t chan_lens[] = {12, 13, 80, 81, 255, 1400, 1401};
	static const uint32_t ranges[][2] = {
		{1, 1}, {65536, 1}, {1, 65536}, {GEN_BURST_MAX, GEN_BURST_MAX + 1}, {1000, 33}};
	static const uint64_t starts[] = {0x000000000000ffc0ULL, 0x00000000ffffffa0ULL,
		0x0000ffffffffff90ULL, 0x0123456789abfff0ULL, 0xfffffffffffeffd0ULL, 1ULL << 40};
	static struct gen_frame f;
	uint32_t total = 0;

	for (size_t l = 0; l < RTE_DIM(chan_lens); l++) {
		make_frame(&f, chan_lens[l], (uint8_t)l);
		CU_ASSERT_EQUAL(f.trailer_odd, chan_lens[l] % 2 != 0);
		CU_ASSERT_EQUAL(gen_frame_check_vec(&f, KEY), 0);
		for (size_t g = 0; g < RTE_DIM(ranges); g++) {
			for (size_t s = 0; s < RTE_DIM(starts); s++)
				total += run_bursts(&f, starts[s], ranges[g][0], ranges[g][1], 200);
			total += run_bursts(&f, next_rand() >> 8, ranges[g][0], ranges[g][1], 200);
		}
	}
	CU_ASSERT(total >= RTE_DIM(chan_lens) * RTE_DIM(ranges) * 7 * 200);
}

/* The kernel takes only what it was written for: channel packets, and
 * counters that wrap at most once in a burst. */
static void
test_fits(void)
{
	static struct gen_frame f;
	struct gen_vary_run r = {.vary_addrs = 1, .vary_ports = 1};

	make_frame(&f, 80, 3);
	CU_ASSERT_TRUE(gen_frame_vary_burst_vec_fits(&f, &r));
	r.vary_addrs = GEN_BURST_MAX - 1;
	CU_ASSERT_FALSE(gen_frame_vary_burst_vec_fits(&f, &r));
	r.vary_addrs = GEN_BURST_MAX;
	r.vary_ports = 2;
	CU_ASSERT_FALSE(gen_frame_vary_burst_vec_fits(&f, &r));
	r.vary_ports = 65536;
	CU_ASSERT_TRUE(gen_frame_vary_burst_vec_fits(&f, &r));
	f.kind = GEN_FRAME_UDP;
	CU_ASSERT_FALSE(gen_frame_vary_burst_vec_fits(&f, &r));
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_vector_matches_scalar),
	SST_TEST(test_fits),
	SST_TEST_END,
};

int
main(void)
{
	return sst_test_run("gen_fields", cases);
}
