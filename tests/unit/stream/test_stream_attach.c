/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the Attach body codec (lib/stream/stream_wire.c): the USID of the
 * captured Attach packets of vector chk-07, bodies with a parent USID,
 * half-channel IDs of every length from 1 to 32, every truncation, padding
 * byte, trailing byte and encoder refusal.
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

/* chk-07 #242/#243 after the 12 header bytes, without the trailer: the
 * top-level stream's USID, counter 1 and channel 1's initiator ID. */
static const char chk07_body[] = "00000000 00000001 00000008 d974d4ae ab1d6a8d";

/* A new stream (counter 5, responder-side ID) and its parent, the root stream
 * of chk-01 (counter 0, the initiator's transmit ID cki || ckr). */
static const char parent_body[] = "00000000 00000005 00000008 35d53d2a c21c5f62"
				  "00000000 00000000 00000008 c21c5f62 35d53d2a";

static void
make_usid(struct sst_usid *u, uint64_t counter, size_t len, uint8_t seed)
{
	memset(u, 0, sizeof(*u));
	u->counter = counter;
	u->hcid_len = (uint8_t)len;
	for (size_t i = 0; i < len && i < SST_HCID_MAX; i++)
		u->hcid[i] = (uint8_t)(seed + i * 7);
}

static int
usid_equal(const struct sst_usid *a, const struct sst_usid *b)
{
	return a->counter == b->counter && a->hcid_len == b->hcid_len &&
	       memcmp(a->hcid, b->hcid, a->hcid_len) == 0;
}

static void
test_chk07_vector(void)
{
	static const uint8_t id[8] = {0xd9, 0x74, 0xd4, 0xae, 0xab, 0x1d, 0x6a, 0x8d};
	uint8_t body[32], out[32];
	size_t n = sst_test_hex(chk07_body, body, sizeof(body));
	struct sst_usid u;

	CU_ASSERT_EQUAL_FATAL(n, 20);
	memset(&u, 0xa5, sizeof(u));
	CU_ASSERT_EQUAL(sst_attach_body_decode(body, n, false, &u, NULL), 0);
	CU_ASSERT_EQUAL(u.counter, 1);
	CU_ASSERT_EQUAL(u.hcid_len, 8);
	CU_ASSERT_EQUAL(memcmp(u.hcid, id, 8), 0);
	memset(out, 0xee, sizeof(out));
	CU_ASSERT_EQUAL(sst_attach_body_encode(&u, NULL, out, sizeof(out)), 20);
	CU_ASSERT_EQUAL(memcmp(out, body, 20), 0);
	CU_ASSERT_EQUAL(out[20], 0xee);
	/* With the Init flag a parent USID would have to follow. */
	CU_ASSERT_EQUAL(sst_attach_body_decode(body, n, true, &u, &u), -SST_ETRUNC);
}

/* The whole captured packet: header and body as the receiver sees them. */
static void
test_chk07_packet(void)
{
	uint8_t pkt[40];
	size_t n = sst_test_hex("020000010000000000017010000000000000000100000008d974d4aeab1d6a8d"
				"88588a07",
		pkt, sizeof(pkt));
	struct sst_stream_hdr h;
	struct sst_usid u;

	CU_ASSERT_EQUAL_FATAL(n, 36);
	CU_ASSERT_EQUAL(sst_stream_hdr_decode(pkt + 8, n - 12, &h), 4);
	CU_ASSERT_EQUAL(h.type, SST_STREAM_ATTACH);
	CU_ASSERT_EQUAL(h.flags, 0);
	CU_ASSERT_EQUAL(h.sid, 1);
	CU_ASSERT_EQUAL(sst_attach_body_decode(
				pkt + 12, n - 16, (h.flags & SST_FLAG_ATTACH_INIT) != 0, &u, NULL),
		0);
	CU_ASSERT_EQUAL(u.counter, 1);
	/* Forgetting to strip the trailer leaves 4 bytes over. */
	CU_ASSERT_EQUAL(sst_attach_body_decode(pkt + 12, n - 12, false, &u, NULL), -SST_ETRAILING);
}

static void
test_parent_vector(void)
{
	uint8_t body[48], out[48];
	size_t n = sst_test_hex(parent_body, body, sizeof(body));
	struct sst_usid u, p, want_u, want_p;

	CU_ASSERT_EQUAL_FATAL(n, 40);
	make_usid(&want_u, 5, 8, 0);
	memcpy(want_u.hcid, body + 12, 8);
	make_usid(&want_p, 0, 8, 0);
	memcpy(want_p.hcid, "\xc2\x1c\x5f\x62\x35\xd5\x3d\x2a", 8);
	CU_ASSERT_EQUAL(sst_attach_body_decode(body, n, true, &u, &p), 0);
	CU_ASSERT(usid_equal(&u, &want_u));
	CU_ASSERT(usid_equal(&p, &want_p));
	CU_ASSERT_EQUAL(sst_attach_body_encode(&want_u, &want_p, out, sizeof(out)), 40);
	CU_ASSERT_EQUAL(memcmp(out, body, 40), 0);
	/* Without the Init flag the parent is trailing garbage. */
	CU_ASSERT_EQUAL(sst_attach_body_decode(body, n, false, &u, NULL), -SST_ETRAILING);
}

/* Half-channel IDs of every accepted length, alone and with a parent. */
static void
test_round_trip_lengths(void)
{
	for (size_t len = 1; len <= SST_HCID_MAX; len++) {
		struct sst_usid u, p, du, dp;
		uint8_t buf[128];
		size_t one = 8 + sst_xdr_opaque_size(len);
		size_t two = one + 8 + sst_xdr_opaque_size(33 - len);

		make_usid(&u, UINT64_MAX - len, len, (uint8_t)len);
		make_usid(&p, len << 40, 33 - len, 0x80);
		EXPECT_AT(sst_attach_body_encode(&u, NULL, buf, sizeof(buf)), one, len);
		EXPECT_AT(buf[8 + 3], len, len);
		EXPECT_AT(sst_attach_body_decode(buf, one, false, &du, NULL), 0, len);
		EXPECT_AT(usid_equal(&u, &du), 1, len);

		EXPECT_AT(sst_attach_body_encode(&u, &p, buf, sizeof(buf)), two, len);
		EXPECT_AT(sst_attach_body_decode(buf, two, true, &du, &dp), 0, len);
		EXPECT_AT(usid_equal(&u, &du), 1, len);
		EXPECT_AT(usid_equal(&p, &dp), 1, len);
		/* Exactly enough room. */
		EXPECT_AT(sst_attach_body_encode(&u, &p, buf, two), two, len);
	}
}

static void
test_truncated(void)
{
	static const size_t lens[] = {1, 2, 3, 4, 5, 8, 31, 32};

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct sst_usid u, p, d;
		uint8_t buf[128];
		int n;

		make_usid(&u, 3, lens[i], 1);
		make_usid(&p, 2, 9, 2);
		n = sst_attach_body_encode(&u, &p, buf, sizeof(buf));
		CU_ASSERT_FATAL(n > 0);
		for (int cut = 0; cut < n; cut++)
			EXPECT_AT(sst_attach_body_decode(buf, (size_t)cut, true, &d, &d),
				-SST_ETRUNC, cut);
		n = sst_attach_body_encode(&u, NULL, buf, sizeof(buf));
		CU_ASSERT_FATAL(n > 0);
		for (int cut = 0; cut < n; cut++)
			EXPECT_AT(sst_attach_body_decode(buf, (size_t)cut, false, &d, NULL),
				-SST_ETRUNC, cut);
	}
}

static void
test_trailing(void)
{
	uint8_t body[64];
	size_t n = sst_test_hex(chk07_body, body, sizeof(body));
	struct sst_usid u, p;

	memset(body + n, 0, sizeof(body) - n);
	for (size_t extra = 1; extra <= 12; extra++)
		EXPECT_AT(sst_attach_body_decode(body, n + extra, false, &u, NULL), -SST_ETRAILING,
			extra);
	n = sst_test_hex(parent_body, body, sizeof(body));
	for (size_t extra = 1; extra <= 8; extra++)
		EXPECT_AT(sst_attach_body_decode(body, n + extra, true, &u, &p), -SST_ETRAILING,
			extra);
}

static void
test_bad_hcid_length(void)
{
	uint8_t body[64];
	struct sst_usid u, p;
	size_t n;

	/* Empty half-channel ID, in the USID and in the parent. */
	n = sst_test_hex("00000000 00000001 00000000", body, sizeof(body));
	CU_ASSERT_EQUAL(sst_attach_body_decode(body, n, false, &u, NULL), -SST_EBADVALUE);
	n = sst_test_hex("00000000 00000001 00000001 aa000000 00000000 00000000 00000000", body,
		sizeof(body));
	CU_ASSERT_EQUAL(sst_attach_body_decode(body, n, true, &u, &p), -SST_EBADVALUE);
	/* 33 bytes is one over the bound, whether or not they follow. */
	memset(body, 0x11, sizeof(body));
	memcpy(body, "\0\0\0\0\0\0\0\1\0\0\0\x21", 12);
	memset(body + 12 + 33, 0, 3);
	CU_ASSERT_EQUAL(sst_attach_body_decode(body, 48, false, &u, NULL), -SST_ETOOLONG);
	CU_ASSERT_EQUAL(sst_attach_body_decode(body, 12, false, &u, NULL), -SST_ETOOLONG);
	body[11] = 0x20;
	CU_ASSERT_EQUAL(sst_attach_body_decode(body, 44, false, &u, NULL), 0);
	CU_ASSERT_EQUAL(u.hcid_len, 32);
	memcpy(body + 8, "\xff\xff\xff\xff", 4);
	CU_ASSERT_EQUAL(sst_attach_body_decode(body, 48, false, &u, NULL), -SST_ETOOLONG);
	memcpy(body + 8, "\x80\x00\x00\x08", 4);
	CU_ASSERT_EQUAL(sst_attach_body_decode(body, 48, false, &u, NULL), -SST_ETOOLONG);
}

static void
test_bad_padding(void)
{
	for (size_t len = 1; len <= 3; len++) {
		struct sst_usid u, p, d, dp;
		uint8_t buf[128];
		int n;

		make_usid(&u, 1, len, 0x41);
		make_usid(&p, 0, len, 0x51);
		n = sst_attach_body_encode(&u, &p, buf, sizeof(buf));
		CU_ASSERT_FATAL(n == (int)(2 * (8 + 4 + 4))); /* every field padded to 4 */
		/* The padding of the USID's ID, then of the parent's. */
		for (size_t k = 12 + len; k < 16; k++) {
			buf[k] = 0x01;
			EXPECT_AT(sst_attach_body_decode(buf, (size_t)n, true, &d, &dp),
				-SST_EBADPAD, k);
			buf[k] = 0;
		}
		for (size_t k = 28 + len; k < 32; k++) {
			buf[k] = 0x80;
			EXPECT_AT(sst_attach_body_decode(buf, (size_t)n, true, &d, &dp),
				-SST_EBADPAD, k);
			buf[k] = 0;
		}
		EXPECT_AT(sst_attach_body_decode(buf, (size_t)n, true, &d, &dp), 0, len);
	}
}

static void
test_encode_invalid(void)
{
	struct sst_usid good, bad;
	uint8_t buf[128];

	make_usid(&good, 1, 8, 0);
	for (unsigned int len = 0; len <= 255; len++) {
		int want;

		if (len >= 1 && len <= SST_HCID_MAX)
			continue;
		want = -EINVAL;
		make_usid(&bad, 1, len, 0);
		EXPECT_AT(sst_attach_body_encode(&bad, NULL, buf, sizeof(buf)), want, len);
		EXPECT_AT(sst_attach_body_encode(&bad, &good, buf, sizeof(buf)), want, len);
		EXPECT_AT(sst_attach_body_encode(&good, &bad, buf, sizeof(buf)), want, len);
	}
}

static void
test_encode_nospace(void)
{
	struct sst_usid u, p;
	uint8_t buf[128];

	make_usid(&u, 7, 8, 0);
	make_usid(&p, 6, 5, 0);
	for (size_t cap = 0; cap < 20; cap++)
		EXPECT_AT(sst_attach_body_encode(&u, NULL, buf, cap), -ENOSPC, cap);
	for (size_t cap = 0; cap < 20 + 8 + 12; cap++)
		EXPECT_AT(sst_attach_body_encode(&u, &p, buf, cap), -ENOSPC, cap);
	CU_ASSERT_EQUAL(sst_attach_body_encode(&u, &p, buf, 40), 40);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_chk07_vector),
	SST_TEST(test_chk07_packet),
	SST_TEST(test_parent_vector),
	SST_TEST(test_round_trip_lengths),
	SST_TEST(test_truncated),
	SST_TEST(test_trailing),
	SST_TEST(test_bad_hcid_length),
	SST_TEST(test_bad_padding),
	SST_TEST(test_encode_invalid),
	SST_TEST(test_encode_nospace),
	SST_TEST_END,
};

SST_TEST_MAIN("stream_attach", cases)
