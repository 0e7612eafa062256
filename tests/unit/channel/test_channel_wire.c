/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the 8-byte channel header codec (lib/channel/channel_wire.c)
 * against the headers of real prototype packets (tests vectors chk-01, chk-02,
 * chk-03, chk-07), plus every truncation, every reserved bit and every
 * encoder refusal.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "channel_wire.h"
#include "sst_error.h"
#include "sst_test.h"

#define EXPECT_AT(got, want, at)                                                              \
	do {                                                                                  \
		long long g_ = (long long)(got), w_ = (long long)(want);                      \
		CU_ASSERT_EQUAL(g_, w_);                                                      \
		if (g_ != w_)                                                                 \
			fprintf(stderr, "  line %d, at %zu: got %lld, want %lld\n", __LINE__, \
				(size_t)(at), g_, w_);                                        \
	} while (0)

/* First 8 bytes of captured packets and their fields as the vectors README
 * tables list them (channel, seq, ack/ct). */
static const struct {
	const char *hex;
	uint8_t channel;
	uint32_t tsn24;
	uint32_t ack24;
	uint8_t ack_count;
} vectors[] = {
	{"01000001 00000000", 1, 1, 0, 0},	       /* chk-01 #3, Init service request */
	{"01000002 00000000", 1, 2, 0, 0},	       /* chk-01 #4 */
	{"01000001 01000001", 1, 1, 1, 1},	       /* chk-01 #5, Reply */
	{"01000002 01000001", 1, 2, 1, 1},	       /* chk-01 #6 */
	{"01000003 02000002", 1, 3, 2, 2},	       /* chk-01 #7, Ack */
	{"01000003 03000003", 1, 3, 3, 3},	       /* chk-01 #8, Ack */
	{"01000007 03000003", 1, 7, 3, 3},	       /* chk-02 #5 */
	{"0100000c 0a00000a", 1, 12, 10, 10},	       /* chk-03 #1, Datagram */
	{"02000001 00000000", 2, 1, 0, 0},	       /* chk-07 #242, Attach on channel 2 */
	{"010105cb 0f006f58", 1, 0x0105cb, 28504, 15}, /* chk-07 #42, seq 67019 */
	{"010073db 0f00ffff", 1, 29659, 65535, 15},    /* chk-07 #81, ack 65535 */
	{"010073dc 00000000", 1, 29660, 0, 0},	       /* chk-07 #82, the ack freeze */
	{"0101000b 0f00ffff", 1, 0x01000b, 65535, 15}, /* chk-07 #174, seq 65547 */
	{"02003560 0f006bbe", 2, 13664, 27582, 15},    /* chk-07 #460 */
	{"ff123456 0fabcdef", 255, 0x123456, 0xabcdef, 15},
	{"80ffffff 0fffffff", 128, 0xffffff, 0xffffff, 15},
};

#define NVEC (sizeof(vectors) / sizeof(vectors[0]))

static void
test_decode_vectors(void)
{
	for (size_t i = 0; i < NVEC; i++) {
		uint8_t buf[16];
		struct sst_chan_hdr h;
		size_t n = sst_test_hex(vectors[i].hex, buf, sizeof(buf));

		CU_ASSERT_EQUAL_FATAL(n, 8);
		memset(&h, 0xa5, sizeof(h));
		EXPECT_AT(sst_chan_hdr_decode(buf, n, &h), SST_CHAN_HDR_LEN, i);
		EXPECT_AT(h.channel, vectors[i].channel, i);
		EXPECT_AT(h.tsn24, vectors[i].tsn24, i);
		EXPECT_AT(h.ack24, vectors[i].ack24, i);
		EXPECT_AT(h.ack_count, vectors[i].ack_count, i);
	}
}

static void
test_encode_vectors(void)
{
	for (size_t i = 0; i < NVEC; i++) {
		uint8_t want[8], out[12];
		struct sst_chan_hdr h = {
			.channel = vectors[i].channel,
			.ack_count = vectors[i].ack_count,
			.tsn24 = vectors[i].tsn24,
			.ack24 = vectors[i].ack24,
		};

		sst_test_hex(vectors[i].hex, want, sizeof(want));
		memset(out, 0xee, sizeof(out));
		EXPECT_AT(sst_chan_hdr_encode(&h, out, sizeof(out)), SST_CHAN_HDR_LEN, i);
		EXPECT_AT(memcmp(out, want, 8), 0, i);
		EXPECT_AT(out[8], 0xee, i);
	}
}

/* A whole captured packet decodes as its header; the rest is not looked at. */
static void
test_decode_full_packet(void)
{
	uint8_t pkt[64];
	size_t n = sst_test_hex("010000010000000000011610000000000000010100000007696e7465726f70"
				"00000000046563686fdebe8592",
		pkt, sizeof(pkt));
	struct sst_chan_hdr h;

	CU_ASSERT_EQUAL(n, 44);
	CU_ASSERT_EQUAL(sst_chan_hdr_decode(pkt, n, &h), 8);
	CU_ASSERT_EQUAL(h.channel, 1);
	CU_ASSERT_EQUAL(h.tsn24, 1);
	CU_ASSERT_EQUAL(h.ack24, 0);
	CU_ASSERT_EQUAL(h.ack_count, 0);
	/* Unaligned input. */
	memmove(pkt + 1, pkt, n);
	CU_ASSERT_EQUAL(sst_chan_hdr_decode(pkt + 1, n, &h), 8);
	CU_ASSERT_EQUAL(h.tsn24, 1);
}

static void
test_decode_truncated(void)
{
	for (size_t i = 0; i < NVEC; i++) {
		uint8_t buf[8];

		sst_test_hex(vectors[i].hex, buf, sizeof(buf));
		for (size_t len = 0; len < 8; len++) {
			struct sst_chan_hdr h = {0};

			EXPECT_AT(sst_chan_hdr_decode(buf, len, &h), -SST_ETRUNC, len);
		}
	}
}

static void
test_decode_control_packet(void)
{
	uint8_t buf[40];
	size_t n = sst_test_hex("00535354000000010000001800000011c21c5f6200000001"
				"000000000000000000000000",
		buf, sizeof(buf));
	struct sst_chan_hdr h;

	/* Byte 0 == 0 is a negotiation packet, not a channel packet. */
	CU_ASSERT_EQUAL(sst_chan_hdr_decode(buf, n, &h), -SST_EBADVALUE);
	memset(buf, 0, 8);
	CU_ASSERT_EQUAL(sst_chan_hdr_decode(buf, 8, &h), -SST_EBADVALUE);
	memset(buf + 1, 0xff, 3);
	buf[4] = 0x0f;
	CU_ASSERT_EQUAL(sst_chan_hdr_decode(buf, 8, &h), -SST_EBADVALUE);
	/* Every non-zero channel byte is a channel. */
	for (unsigned int c = 1; c <= 255; c++) {
		buf[0] = (uint8_t)c;
		EXPECT_AT(sst_chan_hdr_decode(buf, 8, &h), 8, c);
		EXPECT_AT(h.channel, c, c);
	}
}

static void
test_decode_reserved(void)
{
	uint8_t buf[8] = {0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00};
	struct sst_chan_hdr h;

	/* Byte 4 is reserved (high nibble) | AckCt (low nibble). */
	for (unsigned int v = 0; v <= 255; v++) {
		int want = (v & 0xf0) ? -SST_ERESERVED : 8;

		buf[4] = (uint8_t)v;
		EXPECT_AT(sst_chan_hdr_decode(buf, 8, &h), want, v);
		if (want == 8)
			EXPECT_AT(h.ack_count, v, v);
	}
	/* Each reserved bit alone, with the other fields at their maximum. */
	memset(buf, 0xff, sizeof(buf));
	for (unsigned int bit = 4; bit < 8; bit++) {
		buf[4] = (uint8_t)(0x0f | 1u << bit);
		EXPECT_AT(sst_chan_hdr_decode(buf, 8, &h), -SST_ERESERVED, bit);
	}
	buf[4] = 0x0f;
	CU_ASSERT_EQUAL(sst_chan_hdr_decode(buf, 8, &h), 8);
	CU_ASSERT_EQUAL(h.channel, 255);
	CU_ASSERT_EQUAL(h.tsn24, 0xffffff);
	CU_ASSERT_EQUAL(h.ack24, 0xffffff);
	CU_ASSERT_EQUAL(h.ack_count, 15);
}

static void
test_round_trip(void)
{
	static const uint32_t seqs[] = {0, 1, 2, 0x7fffff, 0x800000, 0xfffffe, 0xffffff};
	unsigned int bad = 0;

	for (unsigned int c = 1; c <= 255; c += 127)
		for (unsigned int ct = 0; ct <= SST_CHAN_ACKCT_MAX; ct++)
			for (size_t i = 0; i < 7; i++)
				for (size_t j = 0; j < 7; j++) {
					struct sst_chan_hdr in = {
						(uint8_t)c, (uint8_t)ct, seqs[i], seqs[j]};
					struct sst_chan_hdr out;
					uint8_t buf[8];

					if (sst_chan_hdr_encode(&in, buf, 8) != 8 ||
						sst_chan_hdr_decode(buf, 8, &out) != 8 ||
						out.channel != in.channel ||
						out.ack_count != in.ack_count ||
						out.tsn24 != in.tsn24 || out.ack24 != in.ack24 ||
						buf[0] != c || (buf[4] >> 4) != 0)
						bad++;
				}
	CU_ASSERT_EQUAL(bad, 0);
}

static void
test_encode_invalid(void)
{
	static const struct sst_chan_hdr bad[] = {
		{0, 0, 1, 0},
		{0, 15, 0xffffff, 0xffffff},
		{1, 16, 1, 0},
		{1, 255, 1, 0},
		{1, 0, 0x1000000, 0},
		{1, 0, 0xffffffff, 0},
		{1, 0, 1, 0x1000000},
		{1, 0, 1, 0x80000000},
	};
	uint8_t out[8];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(out, 0xee, sizeof(out));
		EXPECT_AT(sst_chan_hdr_encode(&bad[i], out, sizeof(out)), -EINVAL, i);
		EXPECT_AT(out[0], 0xee, i);
		EXPECT_AT(out[7], 0xee, i);
	}
}

static void
test_encode_nospace(void)
{
	struct sst_chan_hdr h = {1, 3, 3, 3};
	uint8_t out[8];

	for (size_t cap = 0; cap < 8; cap++) {
		memset(out, 0xee, sizeof(out));
		EXPECT_AT(sst_chan_hdr_encode(&h, out, cap), -ENOSPC, cap);
		for (size_t k = 0; k < 8; k++)
			EXPECT_AT(out[k], 0xee, k);
	}
}

static void
test_seq_expand(void)
{
	uint64_t seq = 0;

	/* The first packet in each direction, expanded from 0. */
	CU_ASSERT_EQUAL(sst_chan_seq_expand(0, 1, &seq), 0);
	CU_ASSERT_EQUAL(seq, 1);
	/* chk-07 channel 1: C->S sequence 67019 after 67018. */
	CU_ASSERT_EQUAL(sst_chan_seq_expand(67018, 67019, &seq), 0);
	CU_ASSERT_EQUAL(seq, 67019);
	/* Across 2^24 and back. */
	CU_ASSERT_EQUAL(sst_chan_seq_expand(0xffffff, 0x000002, &seq), 0);
	CU_ASSERT_EQUAL(seq, 0x1000002);
	CU_ASSERT_EQUAL(sst_chan_seq_expand(0x1000002, 0xfffffd, &seq), 0);
	CU_ASSERT_EQUAL(seq, 0xfffffd);
	/* The exact edges of the 24-bit window. */
	CU_ASSERT_EQUAL(sst_chan_seq_expand(0x1000000, 0x7fffff, &seq), 0);
	CU_ASSERT_EQUAL(seq, 0x17fffff);
	CU_ASSERT_EQUAL(sst_chan_seq_expand(0x1000000, 0x800000, &seq), 0);
	CU_ASSERT_EQUAL(seq, 0x800000);
	/* A packet that would be before packet 0. */
	CU_ASSERT_EQUAL(sst_chan_seq_expand(3, 0xfffff0, &seq), -SST_ESEQRANGE);
	CU_ASSERT_EQUAL(sst_chan_seq_expand(UINT64_MAX, 0, &seq), -SST_ESEQRANGE);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_decode_vectors),
	SST_TEST(test_encode_vectors),
	SST_TEST(test_decode_full_packet),
	SST_TEST(test_decode_truncated),
	SST_TEST(test_decode_control_packet),
	SST_TEST(test_decode_reserved),
	SST_TEST(test_round_trip),
	SST_TEST(test_encode_invalid),
	SST_TEST(test_encode_nospace),
	SST_TEST(test_seq_expand),
	SST_TEST_END,
};

SST_TEST_MAIN("channel_wire", cases)
