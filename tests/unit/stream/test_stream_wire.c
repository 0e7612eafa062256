/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the stream header codec and the window byte
 * (lib/stream/stream_wire.c): the stream headers of real prototype packets
 * (vectors chk-01, chk-02, chk-03, chk-07), every type, flag bit, window bit
 * and truncation length, and the encoder's refusals. The Attach body is in
 * test_stream_attach.c, the service messages in test_stream_service.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sst_error.h"
#include "sst_test.h"
#include "stream_wire.h"

#define EXPECT_AT(got, want, at)                                                              \
	do {                                                                                  \
		long long g_ = (long long)(got), w_ = (long long)(want);                      \
		CU_ASSERT_EQUAL(g_, w_);                                                      \
		if (g_ != w_)                                                                 \
			fprintf(stderr, "  line %d, at %zu: got %lld, want %lld\n", __LINE__, \
				(size_t)(at), g_, w_);                                        \
	} while (0)

/* Header length and defined flag bits per type, from the wire format
 * (paper Figures 5 and 6, prototype notes 2.4), written out independently of
 * the library's table. */
static const struct {
	size_t len;
	uint8_t flags;
	const char *name;
} types[16] = {
	[1] = {8, 0x7, "Init"},
	[2] = {8, 0x7, "Reply"},
	[3] = {8, 0x7, "Data"},
	[4] = {4, 0x3, "Datagram"},
	[5] = {4, 0x0, "Ack"},
	[6] = {4, 0x1, "Reset"},
	[7] = {4, 0x9, "Attach"},
	[8] = {4, 0x0, "Detach"},
};

/* Stream headers (packet bytes 8..15 or 8..11) of captured packets. */
static const struct {
	const char *hex;
	struct sst_stream_hdr h;
} vectors[] = {
	/* chk-01 #3: service request, Init Push|Message, RefSID 0 (root) */
	{"00011610 00000000", {1, SST_STREAM_INIT, 0x6, 0x10, 0, 0}},
	/* chk-01 #4: Init Push, TSN 24 after the 24-byte request */
	{"00011410 00000018", {1, SST_STREAM_INIT, 0x4, 0x10, 0, 24}},
	/* chk-01 #5: service reply, Reply Push|Message, RefSID 1 */
	{"00012610 00010000", {1, SST_STREAM_REPLY, 0x6, 0x10, 1, 0}},
	/* chk-01 #6: Reply Push, TSN 8 */
	{"00012410 00010008", {1, SST_STREAM_REPLY, 0x4, 0x10, 1, 8}},
	/* chk-01 #7 and #8: Ack */
	{"00015010", {1, SST_STREAM_ACK, 0, 0x10, 0, 0}},
	/* chk-02 #11: Ack on SID 2 */
	{"00025010", {2, SST_STREAM_ACK, 0, 0x10, 0, 0}},
	/* chk-02 #3: substream Init, SID 4, parent 1 */
	{"00041410 00010000", {4, SST_STREAM_INIT, 0x4, 0x10, 1, 0}},
	/* chk-02 #5: Data Push|Close at TSN 22 */
	{"00023510 00000016", {2, SST_STREAM_DATA, 0x5, 0x10, 0, 22}},
	/* chk-02 #10: Reply Push|Close, RefSID 2, TSN 22 */
	{"00022510 00020016", {2, SST_STREAM_REPLY, 0x5, 0x10, 2, 22}},
	/* chk-03 #1: Datagram Begin|End */
	{"00014310", {1, SST_STREAM_DATAGRAM, 0x3, 0x10, 0, 0}},
	/* chk-07 #42: Data at TSN 75789673 */
	{"00013010 04847569", {1, SST_STREAM_DATA, 0, 0x10, 0, 75789673}},
	/* chk-07 #460: Data Push|Close at TSN 82000073 */
	{"00013510 04e338c9", {1, SST_STREAM_DATA, 0x5, 0x10, 0, 82000073}},
	/* chk-07 #242: Attach slot 0 */
	{"00017010", {1, SST_STREAM_ATTACH, 0, 0x10, 0, 0}},
};

#define NVEC (sizeof(vectors) / sizeof(vectors[0]))

static int
hdr_equal(const struct sst_stream_hdr *a, const struct sst_stream_hdr *b)
{
	return a->sid == b->sid && a->type == b->type && a->flags == b->flags &&
	       a->window == b->window && a->ref_sid == b->ref_sid && a->tsn == b->tsn;
}

static void
test_constants(void)
{
	CU_ASSERT_EQUAL(SST_FLAG_CLOSE, 0x1);
	CU_ASSERT_EQUAL(SST_FLAG_MESSAGE, 0x2);
	CU_ASSERT_EQUAL(SST_FLAG_PUSH, 0x4);
	CU_ASSERT_EQUAL(SST_FLAG_DGRAM_END, 0x1);
	CU_ASSERT_EQUAL(SST_FLAG_DGRAM_BEGIN, 0x2);
	CU_ASSERT_EQUAL(SST_FLAG_RESET_ORIENT, 0x1);
	CU_ASSERT_EQUAL(SST_FLAG_ATTACH_SLOT, 0x1);
	CU_ASSERT_EQUAL(SST_FLAG_ATTACH_INIT, 0x8);
	CU_ASSERT_EQUAL(SST_PACKET_MIN, 12);
	for (unsigned int t = 0; t <= 255; t++) {
		size_t want = t < 16 ? types[t].len : 0;

		EXPECT_AT(sst_stream_hdr_len((uint8_t)t), want, t);
		CU_ASSERT_STRING_EQUAL(
			sst_stream_type_name((uint8_t)t), want != 0 ? types[t].name : "?");
	}
}

static void
test_decode_vectors(void)
{
	for (size_t i = 0; i < NVEC; i++) {
		uint8_t buf[16];
		size_t n = sst_test_hex(vectors[i].hex, buf, sizeof(buf));
		struct sst_stream_hdr h;

		memset(&h, 0xa5, sizeof(h));
		EXPECT_AT(sst_stream_hdr_decode(buf, n, &h), n, i);
		EXPECT_AT(h.sid, vectors[i].h.sid, i);
		EXPECT_AT(h.type, vectors[i].h.type, i);
		EXPECT_AT(h.flags, vectors[i].h.flags, i);
		EXPECT_AT(h.window, vectors[i].h.window, i);
		EXPECT_AT(h.ref_sid, vectors[i].h.ref_sid, i);
		EXPECT_AT(h.tsn, vectors[i].h.tsn, i);
		/* Payload after the header is not the header's business. */
		memset(buf + n, 0xff, sizeof(buf) - n);
		EXPECT_AT(sst_stream_hdr_decode(buf, sizeof(buf), &h), n, i);
		EXPECT_AT(hdr_equal(&h, &vectors[i].h), 1, i);
	}
}

static void
test_encode_vectors(void)
{
	for (size_t i = 0; i < NVEC; i++) {
		uint8_t want[8], out[12];
		size_t n = sst_test_hex(vectors[i].hex, want, sizeof(want));

		memset(out, 0xee, sizeof(out));
		EXPECT_AT(sst_stream_hdr_encode(&vectors[i].h, out, n), n, i);
		EXPECT_AT(memcmp(out, want, n), 0, i);
		EXPECT_AT(out[n], 0xee, i);
	}
}

/* A whole captured packet: channel header, stream header, payload. */
static void
test_decode_in_packet(void)
{
	uint8_t pkt[72];
	size_t n = sst_test_hex("0100000201000001000124100001000848656c6c6f2066726f6d207468652053"
				"535420323030372070726f746f7479706520696e7465726f7020636c69656e74"
				"21aa7b2c24",
		pkt, sizeof(pkt));
	struct sst_stream_hdr h;

	CU_ASSERT_EQUAL_FATAL(n, 69);
	CU_ASSERT_EQUAL(sst_stream_hdr_decode(pkt + 8, n - 8 - 4, &h), 8);
	CU_ASSERT_EQUAL(h.type, SST_STREAM_REPLY);
	CU_ASSERT_EQUAL(h.flags, SST_FLAG_PUSH);
	CU_ASSERT_EQUAL(h.sid, 1);
	CU_ASSERT_EQUAL(h.ref_sid, 1);
	CU_ASSERT_EQUAL(h.tsn, 8);
	CU_ASSERT_EQUAL(sst_window_credit(h.window), 65535);
	CU_ASSERT_EQUAL(
		memcmp(pkt + 16, "Hello from the SST 2007 prototype interop client!", 49), 0);
}

static void
test_decode_truncated(void)
{
	for (size_t i = 0; i < NVEC; i++) {
		uint8_t buf[8];
		size_t n = sst_test_hex(vectors[i].hex, buf, sizeof(buf));

		for (size_t len = 0; len < n; len++) {
			struct sst_stream_hdr h;

			EXPECT_AT(sst_stream_hdr_decode(buf, len, &h), -SST_ETRUNC, i * 10 + len);
		}
	}
	/* Every type: a 4-byte prefix is enough only for the short types. */
	for (unsigned int t = 1; t <= 8; t++) {
		uint8_t buf[8] = {0, 1, (uint8_t)(t << 4), 0x10, 0, 0, 0, 0};
		struct sst_stream_hdr h;

		for (size_t len = 0; len < 8; len++) {
			int want = len < types[t].len ? -SST_ETRUNC : (int)types[t].len;

			EXPECT_AT(sst_stream_hdr_decode(buf, len, &h), want, t * 10 + len);
		}
	}
}

static void
test_decode_bad_type(void)
{
	static const unsigned int bad[] = {0, 9, 10, 11, 12, 13, 14, 15};
	struct sst_stream_hdr h;

	for (size_t i = 0; i < 8; i++)
		for (unsigned int f = 0; f < 16; f++) {
			uint8_t buf[8] = {0, 1, (uint8_t)(bad[i] << 4 | f), 0x10, 0, 1, 0, 0};

			EXPECT_AT(sst_stream_hdr_decode(buf, 8, &h), -SST_EBADTYPE, bad[i]);
			EXPECT_AT(sst_stream_hdr_decode(buf, 4, &h), -SST_EBADTYPE, bad[i]);
		}
}

/* Every flag value of every type: accepted exactly when all its bits are
 * defined for the type. */
static void
test_decode_flags(void)
{
	for (unsigned int t = 1; t <= 8; t++)
		for (unsigned int f = 0; f < 16; f++) {
			uint8_t buf[8] = {0x12, 0x34, (uint8_t)(t << 4 | f), 0x10, 0, 1, 0, 2};
			int want = (f & ~types[t].flags) ? -SST_EBADFLAGS : (int)types[t].len;
			struct sst_stream_hdr h;

			EXPECT_AT(sst_stream_hdr_decode(buf, 8, &h), want, t * 16 + f);
			if (want > 0) {
				EXPECT_AT(h.type, t, t);
				EXPECT_AT(h.flags, f, f);
				EXPECT_AT(h.sid, 0x1234, t);
			}
		}
	/* Each undefined bit on its own. */
	for (unsigned int t = 1; t <= 8; t++)
		for (unsigned int bit = 0; bit < 4; bit++) {
			uint8_t buf[8] = {0, 1, (uint8_t)(t << 4 | 1u << bit), 0x10, 0, 0, 0, 0};
			struct sst_stream_hdr h;
			int rc = sst_stream_hdr_decode(buf, 8, &h);

			if (types[t].flags & (1u << bit))
				EXPECT_AT(rc, types[t].len, t * 16 + bit);
			else
				EXPECT_AT(rc, -SST_EBADFLAGS, t * 16 + bit);
		}
}

static void
test_decode_window(void)
{
	for (unsigned int w = 0; w <= 255; w++) {
		uint8_t lng[8] = {0, 1, 0x30, (uint8_t)w, 0, 0, 0, 0};
		uint8_t shrt[4] = {0, 1, 0x50, (uint8_t)w};
		int reserved = (w & SST_WINDOW_RESERVED) != 0;
		struct sst_stream_hdr h;

		EXPECT_AT(sst_stream_hdr_decode(lng, 8, &h), reserved ? -SST_ERESERVED : 8, w);
		if (!reserved)
			EXPECT_AT(h.window, w, w);
		EXPECT_AT(sst_stream_hdr_decode(shrt, 4, &h), reserved ? -SST_ERESERVED : 4, w);
		if (!reserved)
			EXPECT_AT(h.window, w, w);
	}
	CU_ASSERT_EQUAL(SST_WINDOW_RESERVED, 0x20);
}

/* Decoding a short type clears the fields it does not carry. */
static void
test_decode_clears_fields(void)
{
	uint8_t init[8] = {0xff, 0xff, 0x17, 0x1f, 0xff, 0xff, 0xff, 0xff};
	uint8_t data[8] = {0xff, 0xff, 0x37, 0x1f, 0xff, 0xff, 0xff, 0xff};
	uint8_t ack[4] = {0, 7, 0x50, 0x00};
	struct sst_stream_hdr h;

	CU_ASSERT_EQUAL(sst_stream_hdr_decode(init, 8, &h), 8);
	CU_ASSERT_EQUAL(h.sid, 0xffff);
	CU_ASSERT_EQUAL(h.ref_sid, 0xffff);
	CU_ASSERT_EQUAL(h.tsn, 0xffff);
	CU_ASSERT_EQUAL(sst_stream_hdr_decode(ack, 4, &h), 4);
	CU_ASSERT_EQUAL(h.sid, 7);
	CU_ASSERT_EQUAL(h.ref_sid, 0);
	CU_ASSERT_EQUAL(h.tsn, 0);
	CU_ASSERT_EQUAL(h.window, 0);
	CU_ASSERT_EQUAL(sst_stream_hdr_decode(data, 8, &h), 8);
	CU_ASSERT_EQUAL(h.ref_sid, 0);
	CU_ASSERT_EQUAL(h.tsn, 0xffffffff);
}

static void
test_round_trip(void)
{
	static const uint16_t sids[] = {0, 1, 0x7fff, 0x8000, 0xfffe, 0xffff};
	static const uint32_t tsns[] = {0, 1, 0xffff, 0x10000, 0x7fffffff, 0xffffffff};
	static const uint8_t windows[] = {0, 0x10, 0x1f, 0x40, 0x80, 0xdf};
	unsigned int bad = 0, ok = 0;

	for (unsigned int t = 1; t <= 8; t++)
		for (unsigned int f = 0; f < 16; f++) {
			if (f & ~types[t].flags)
				continue;
			for (size_t s = 0; s < 6; s++)
				for (size_t k = 0; k < 6; k++)
					for (size_t w = 0; w < 6; w++) {
						int lng = types[t].len == 8, data = t == 3;
						uint32_t tsn = tsns[k];
						struct sst_stream_hdr in = {sids[s], (uint8_t)t,
							(uint8_t)f, windows[w], 0, 0};
						struct sst_stream_hdr out;
						uint8_t buf[8];

						if (!data && tsn > 0xffff)
							continue;
						if (lng) {
							in.tsn = tsn;
							in.ref_sid = data ? 0 : sids[5 - s];
						}
						if (sst_stream_hdr_encode(&in, buf, 8) !=
								(int)types[t].len ||
							sst_stream_hdr_decode(buf, 8, &out) !=
								(int)types[t].len ||
							!hdr_equal(&in, &out) || buf[2] >> 4 != t ||
							(buf[2] & 0xf) != f ||
							buf[3] != windows[w] ||
							(buf[0] << 8 | buf[1]) != sids[s])
							bad++;
						ok++;
					}
		}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(ok > 3000);
}

/* The TSN: 16 bits in Init and Reply, 32 in Data. */
static void
test_tsn_width(void)
{
	struct sst_stream_hdr h = {0xffff, SST_STREAM_INIT, 0, 0x10, 0xffff, 0xffff};
	uint8_t buf[8], want[8];

	sst_test_hex("ffff1010 ffffffff", want, sizeof(want));
	CU_ASSERT_EQUAL(sst_stream_hdr_encode(&h, buf, 8), 8);
	CU_ASSERT_EQUAL(memcmp(buf, want, 8), 0);
	h.tsn = 0x10000;
	memset(buf, 0xee, sizeof(buf));
	CU_ASSERT_EQUAL(sst_stream_hdr_encode(&h, buf, 8), -EINVAL);
	CU_ASSERT_EQUAL(buf[0], 0xee);
	h.type = SST_STREAM_REPLY;
	CU_ASSERT_EQUAL(sst_stream_hdr_encode(&h, buf, 8), -EINVAL);
	h.tsn = 0xffffffff;
	CU_ASSERT_EQUAL(sst_stream_hdr_encode(&h, buf, 8), -EINVAL);
	h.type = SST_STREAM_DATA;
	h.ref_sid = 0;
	CU_ASSERT_EQUAL(sst_stream_hdr_encode(&h, buf, 8), 8);
	sst_test_hex("ffff3010 ffffffff", want, sizeof(want));
	CU_ASSERT_EQUAL(memcmp(buf, want, 8), 0);
	h.tsn = 0x10000;
	CU_ASSERT_EQUAL(sst_stream_hdr_encode(&h, buf, 8), 8);
	sst_test_hex("ffff3010 00010000", want, sizeof(want));
	CU_ASSERT_EQUAL(memcmp(buf, want, 8), 0);
}

/* Short headers are 4 bytes, whatever the unused fields hold. */
static void
test_encode_short(void)
{
	for (unsigned int t = 4; t <= 8; t++) {
		struct sst_stream_hdr h = {0x0102, (uint8_t)t, 0, 0x0b, 0x1234, 0x5678};
		uint8_t buf[8];

		memset(buf, 0xee, sizeof(buf));
		EXPECT_AT(sst_stream_hdr_encode(&h, buf, sizeof(buf)), 4, t);
		EXPECT_AT(buf[0], 0x01, t);
		EXPECT_AT(buf[1], 0x02, t);
		EXPECT_AT(buf[2], t << 4, t);
		EXPECT_AT(buf[3], 0x0b, t);
		EXPECT_AT(buf[4], 0xee, t);
		EXPECT_AT(sst_stream_hdr_encode(&h, buf, 4), 4, t);
	}
}

static void
test_encode_invalid(void)
{
	static const unsigned int bad_types[] = {0, 9, 10, 11, 12, 13, 14, 15, 16, 0x17, 255};
	uint8_t buf[8];

	for (size_t i = 0; i < sizeof(bad_types) / sizeof(bad_types[0]); i++) {
		struct sst_stream_hdr h = {1, (uint8_t)bad_types[i], 0, 0x10, 0, 0};

		memset(buf, 0xee, sizeof(buf));
		EXPECT_AT(sst_stream_hdr_encode(&h, buf, sizeof(buf)), -EINVAL, bad_types[i]);
		EXPECT_AT(buf[0], 0xee, i);
	}
	for (unsigned int t = 1; t <= 8; t++)
		for (unsigned int f = 0; f <= 255; f++) {
			struct sst_stream_hdr h = {1, (uint8_t)t, (uint8_t)f, 0x10, 0, 0};
			int want =
				(f & ~(unsigned int)types[t].flags) ? -EINVAL : (int)types[t].len;

			EXPECT_AT(sst_stream_hdr_encode(&h, buf, sizeof(buf)), want, t * 256 + f);
		}
	for (unsigned int t = 1; t <= 8; t++)
		for (unsigned int w = 0; w <= 255; w++) {
			struct sst_stream_hdr h = {1, (uint8_t)t, 0, (uint8_t)w, 0, 0};
			int want = (w & 0x20) ? -EINVAL : (int)types[t].len;

			EXPECT_AT(sst_stream_hdr_encode(&h, buf, sizeof(buf)), want, t * 256 + w);
		}
}

static void
test_encode_nospace(void)
{
	for (unsigned int t = 1; t <= 8; t++) {
		struct sst_stream_hdr h = {1, (uint8_t)t, 0, 0x10, 0, 0};

		for (size_t cap = 0; cap < types[t].len; cap++) {
			uint8_t buf[8];

			memset(buf, 0xee, sizeof(buf));
			EXPECT_AT(sst_stream_hdr_encode(&h, buf, cap), -ENOSPC, t * 10 + cap);
			for (size_t k = 0; k < 8; k++)
				EXPECT_AT(buf[k], 0xee, k);
		}
		EXPECT_AT(
			sst_stream_hdr_encode(&h, (uint8_t[8]){0}, types[t].len), types[t].len, t);
	}
}

static void
test_window(void)
{
	/* Credit is 2^e - 1 of the low five bits. */
	for (unsigned int e = 0; e <= 31; e++) {
		uint32_t credit = (uint32_t)((UINT64_C(1) << e) - 1);

		EXPECT_AT(sst_window_credit((uint8_t)e), credit, e);
		EXPECT_AT(sst_window_credit((uint8_t)(e | 0x80 | 0x40)), credit, e);
		EXPECT_AT(sst_window_encode(credit), e, e);
		if (e > 0)
			EXPECT_AT(sst_window_encode(credit - 1), e - 1, e);
		if (e < 31)
			EXPECT_AT(sst_window_encode((UINT64_C(2) << e) - 2), e, e);
	}
	/* Every exponent goes through a header of every type unchanged. */
	for (unsigned int t = 1; t <= 8; t++)
		for (unsigned int e = 0; e <= 31; e++) {
			struct sst_stream_hdr in = {9, (uint8_t)t, 0, (uint8_t)e, 0, 0};
			struct sst_stream_hdr out;
			uint8_t buf[8];

			EXPECT_AT(sst_stream_hdr_encode(&in, buf, sizeof(buf)), types[t].len, e);
			EXPECT_AT(buf[3], e, e);
			EXPECT_AT(sst_stream_hdr_decode(buf, types[t].len, &out), types[t].len, e);
			EXPECT_AT(out.window, e, e);
		}
	/* The prototype's default 64 KiB buffer gives 0x10 = 65535. */
	CU_ASSERT_EQUAL(sst_window_encode(65536), 0x10);
	CU_ASSERT_EQUAL(sst_window_encode(65535), 0x10);
	CU_ASSERT_EQUAL(sst_window_encode(65534), 0x0f);
	CU_ASSERT_EQUAL(sst_window_encode(2047), 0x0b);
	CU_ASSERT_EQUAL(sst_window_credit(0x0b), 2047);
	CU_ASSERT_EQUAL(sst_window_encode(0), 0);
	CU_ASSERT_EQUAL(sst_window_encode(1), 1);
	CU_ASSERT_EQUAL(sst_window_encode(2), 1);
	CU_ASSERT_EQUAL(sst_window_encode(3), 2);
	/* The exponent stops at 31 and never sets the reserved bit. */
	CU_ASSERT_EQUAL(sst_window_encode(UINT64_C(1) << 32), 31);
	CU_ASSERT_EQUAL(sst_window_encode(UINT64_MAX), 31);
	CU_ASSERT_EQUAL(sst_window_credit(31), 0x7fffffff);
	for (uint64_t f = 0; f < 70000; f++) {
		uint8_t e = sst_window_encode(f);

		if ((e & SST_WINDOW_RESERVED) || sst_window_credit(e) > f ||
			(uint64_t)sst_window_credit(e) * 2 + 1 <= f) {
			CU_FAIL("window exponent not the largest fitting one");
			break;
		}
	}
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_constants),
	SST_TEST(test_decode_vectors),
	SST_TEST(test_encode_vectors),
	SST_TEST(test_decode_in_packet),
	SST_TEST(test_decode_truncated),
	SST_TEST(test_decode_bad_type),
	SST_TEST(test_decode_flags),
	SST_TEST(test_decode_window),
	SST_TEST(test_decode_clears_fields),
	SST_TEST(test_round_trip),
	SST_TEST(test_tsn_width),
	SST_TEST(test_encode_short),
	SST_TEST(test_encode_invalid),
	SST_TEST(test_encode_nospace),
	SST_TEST(test_window),
	SST_TEST_END,
};

SST_TEST_MAIN("stream_wire", cases)
