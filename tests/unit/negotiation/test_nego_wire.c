/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the negotiation framing and the checksum-mode chunks
 * (lib/negotiation/nego_wire.c): the ChkI1/ChkR1 messages of vectors chk-01
 * and chk-07 byte for byte, every truncation of a message and of a chunk
 * body, every framing error, unknown chunk types and the zero-chunk ping.
 * The builder's limits and the chunks' opaque fields are in
 * test_nego_build.c, the DH chunks in test_nego_dh.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nego_wire.h"
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

/* Captured negotiation messages: ChkI1 or ChkR1 with three empty opaques. */
static const struct {
	const char *hex;
	int32_t type;
	uint32_t cki, ckr, chan;
} vectors[] = {
	/* chk-01 #1 and #2 */
	{"00535354 00000001 00000018 00000011 c21c5f62 00000001 00000000 00000000 00000000",
		SST_NEGO_CHKI1, 0xc21c5f62, 0, 1},
	{"00535354 00000001 0000001c 00000012 c21c5f62 35d53d2a 00000001 00000000 00000000 "
	 "00000000",
		SST_NEGO_CHKR1, 0xc21c5f62, 0x35d53d2a, 1},
	/* chk-07 #230, #240 (channel 2, C initiates) and #241, #244 (channel 3,
	 * S initiates) */
	{"00535354 00000001 00000018 00000011 33c269b4 00000002 00000000 00000000 00000000",
		SST_NEGO_CHKI1, 0x33c269b4, 0, 2},
	{"00535354 00000001 0000001c 00000012 33c269b4 3cd3d422 00000002 00000000 00000000 "
	 "00000000",
		SST_NEGO_CHKR1, 0x33c269b4, 0x3cd3d422, 2},
	{"00535354 00000001 00000018 00000011 e3e91496 00000003 00000000 00000000 00000000",
		SST_NEGO_CHKI1, 0xe3e91496, 0, 3},
	{"00535354 00000001 0000001c 00000012 e3e91496 877aeb5d 00000003 00000000 00000000 "
	 "00000000",
		SST_NEGO_CHKR1, 0xe3e91496, 0x877aeb5d, 3},
};

#define NVEC (sizeof(vectors) / sizeof(vectors[0]))

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The error sst_nego_msg_parse() must give for the first len bytes of a
 * valid message: -SST_ETRUNC inside the header or a chunk's length word,
 * -SST_EBADLEN inside a chunk (its length reaches past the end). */
static int
prefix_error(const uint8_t *msg, size_t total, size_t len)
{
	size_t pos = SST_NEGO_HDR_LEN;

	if (len < SST_NEGO_HDR_LEN)
		return -SST_ETRUNC;
	while (pos < total) {
		size_t next = pos + 4 + ((be32(msg + pos) + 3) & ~3u);

		if (len < pos + 4)
			return -SST_ETRUNC;
		if (len < next)
			return -SST_EBADLEN;
		pos = next;
	}
	return 0;
}

static void
test_vectors_decode(void)
{
	for (size_t i = 0; i < NVEC; i++) {
		uint8_t msg[64];
		size_t n = sst_test_hex(vectors[i].hex, msg, sizeof(msg));
		struct sst_nego_msg m;
		struct sst_nego_iter it;
		struct sst_nego_chunk c;

		EXPECT_AT(sst_nego_msg_parse(msg, n, &m), 0, i);
		EXPECT_AT(m.nchunks, 1, i);
		EXPECT_AT(m.chunks == msg + 8, 1, i);
		EXPECT_AT(m.chunks_len, n - 8, i);
		sst_nego_iter_init(&it, &m);
		EXPECT_AT(sst_nego_iter_next(&it, &c), 1, i);
		EXPECT_AT(c.type, vectors[i].type, i);
		EXPECT_AT(c.body.ptr == msg + 16, 1, i);
		EXPECT_AT(c.body.len, n - 16, i);
		if (c.type == SST_NEGO_CHKI1) {
			struct sst_nego_chki1 i1;

			EXPECT_AT(sst_nego_chki1_decode(&c.body, &i1), 0, i);
			EXPECT_AT(i1.cki, vectors[i].cki, i);
			EXPECT_AT(i1.chani, vectors[i].chan, i);
			EXPECT_AT(i1.cookie.len + i1.ulpi.len + i1.cpkt.len, 0, i);
		} else {
			struct sst_nego_chkr1 r1;

			EXPECT_AT(sst_nego_chkr1_decode(&c.body, &r1), 0, i);
			EXPECT_AT(r1.cki, vectors[i].cki, i);
			EXPECT_AT(r1.ckr, vectors[i].ckr, i);
			EXPECT_AT(r1.chanr, vectors[i].chan, i);
			EXPECT_AT(r1.cookie.len + r1.ulpr.len + r1.cpkt.len, 0, i);
			EXPECT_AT(sst_nego_chkr1_wants_cookie(&r1), false, i);
		}
		EXPECT_AT(sst_nego_iter_next(&it, &c), 0, i);
		EXPECT_AT(sst_nego_iter_next(&it, &c), 0, i);
	}
}

static void
test_vectors_build(void)
{
	for (size_t i = 0; i < NVEC; i++) {
		uint8_t want[64], out[64];
		size_t n = sst_test_hex(vectors[i].hex, want, sizeof(want));
		struct sst_nego_builder b;

		memset(out, 0xee, sizeof(out));
		EXPECT_AT(sst_nego_build_begin(&b, out, n), 0, i);
		if (vectors[i].type == SST_NEGO_CHKI1) {
			struct sst_nego_chki1 i1 = {
				.cki = vectors[i].cki, .chani = vectors[i].chan};

			EXPECT_AT(sst_nego_build_chki1(&b, &i1), 0, i);
		} else {
			struct sst_nego_chkr1 r1 = {.cki = vectors[i].cki,
				.ckr = vectors[i].ckr,
				.chanr = vectors[i].chan};

			EXPECT_AT(sst_nego_build_chkr1(&b, &r1), 0, i);
		}
		EXPECT_AT(sst_nego_build_end(&b), n, i);
		EXPECT_AT(memcmp(out, want, n), 0, i);
		EXPECT_AT(out[n], 0xee, i);
	}
}

static void
test_truncated_messages(void)
{
	for (size_t i = 0; i < NVEC; i++) {
		uint8_t msg[64];
		size_t n = sst_test_hex(vectors[i].hex, msg, sizeof(msg));
		struct sst_nego_msg m;

		for (size_t len = 0; len < n; len++)
			EXPECT_AT(sst_nego_msg_parse(msg, len, &m), prefix_error(msg, n, len),
				i * 100 + len);
		/* The rule above, spelled out for this layout. */
		EXPECT_AT(sst_nego_msg_parse(msg, 7, &m), -SST_ETRUNC, i);
		EXPECT_AT(sst_nego_msg_parse(msg, 8, &m), -SST_ETRUNC, i);
		EXPECT_AT(sst_nego_msg_parse(msg, 11, &m), -SST_ETRUNC, i);
		EXPECT_AT(sst_nego_msg_parse(msg, 12, &m), -SST_EBADLEN, i);
		EXPECT_AT(sst_nego_msg_parse(msg, n - 1, &m), -SST_EBADLEN, i);
	}
}

static void
test_truncated_bodies(void)
{
	for (size_t i = 0; i < NVEC; i++) {
		uint8_t msg[64];
		size_t n = sst_test_hex(vectors[i].hex, msg, sizeof(msg));

		for (size_t len = 0; len < n - 16; len++) {
			struct sst_bytes body = {msg + 16, (uint32_t)len};
			struct sst_nego_chki1 i1;
			struct sst_nego_chkr1 r1;

			if (vectors[i].type == SST_NEGO_CHKI1)
				EXPECT_AT(sst_nego_chki1_decode(&body, &i1), -SST_ETRUNC, len);
			else
				EXPECT_AT(sst_nego_chkr1_decode(&body, &r1), -SST_ETRUNC, len);
		}
	}
}

static void
test_trailing(void)
{
	uint8_t msg[64] = {0};
	size_t n = sst_test_hex(vectors[0].hex, msg, sizeof(msg));
	struct sst_nego_msg m;
	struct sst_bytes body;
	struct sst_nego_chki1 i1;
	struct sst_nego_chkr1 r1;

	for (size_t extra = 1; extra <= 8; extra++)
		EXPECT_AT(sst_nego_msg_parse(msg, n + extra, &m), -SST_ETRAILING, extra);
	/* A body with bytes after cpkt, framed correctly. */
	msg[11] = 0x1c;
	CU_ASSERT_EQUAL(sst_nego_msg_parse(msg, n + 4, &m), 0);
	body.ptr = msg + 16;
	body.len = 24;
	CU_ASSERT_EQUAL(sst_nego_chki1_decode(&body, &i1), -SST_ETRAILING);
	body.len = 21;
	CU_ASSERT_EQUAL(sst_nego_chki1_decode(&body, &i1), -SST_ETRAILING);
	n = sst_test_hex(vectors[1].hex, msg, sizeof(msg));
	memset(msg + n, 0, 8);
	body.ptr = msg + 16;
	for (uint32_t extra = 1; extra <= 8; extra++) {
		body.len = (uint32_t)(n - 16) + extra;
		EXPECT_AT(sst_nego_chkr1_decode(&body, &r1), -SST_ETRAILING, extra);
	}
}

static void
test_channel_numbers(void)
{
	static const uint32_t chans[] = {0, 1, 2, 254, 255, 256, 0x101, 0x1000000, 0xffffffff};
	uint8_t msg[64];

	for (size_t k = 0; k < sizeof(chans) / sizeof(chans[0]); k++) {
		uint32_t c = chans[k];
		struct sst_bytes body;
		struct sst_nego_chki1 i1;
		struct sst_nego_chkr1 r1;
		uint8_t be[4] = {
			(uint8_t)(c >> 24), (uint8_t)(c >> 16), (uint8_t)(c >> 8), (uint8_t)c};

		sst_test_hex(vectors[0].hex, msg, sizeof(msg));
		memcpy(msg + 20, be, 4);
		body.ptr = msg + 16;
		body.len = 20;
		EXPECT_AT(sst_nego_chki1_decode(&body, &i1),
			c >= 1 && c <= 255 ? 0 : -SST_EBADVALUE, k);
		sst_test_hex(vectors[1].hex, msg, sizeof(msg));
		memcpy(msg + 24, be, 4);
		body.len = 24;
		EXPECT_AT(sst_nego_chkr1_decode(&body, &r1), c <= 255 ? 0 : -SST_EBADVALUE, k);
	}
}

static void
test_wants_cookie(void)
{
	struct sst_nego_chkr1 r1 = {.cki = 0xc21c5f62, .ckr = 0x35d53d2a, .chanr = 1};

	CU_ASSERT_FALSE(sst_nego_chkr1_wants_cookie(&r1));
	r1.chanr = 0;
	CU_ASSERT_TRUE(sst_nego_chkr1_wants_cookie(&r1));
	r1.chanr = 255;
	CU_ASSERT_FALSE(sst_nego_chkr1_wants_cookie(&r1));
	r1.ckr = r1.cki;
	CU_ASSERT_TRUE(sst_nego_chkr1_wants_cookie(&r1));
	r1.chanr = 0;
	CU_ASSERT_TRUE(sst_nego_chkr1_wants_cookie(&r1));
}

static void
test_bad_magic(void)
{
	static const uint32_t magics[] = {SST_NEGO_MAGIC_NRS, 0x00535355, 0x01535354, 0x53535400,
		0x00000000, 0x00545353, 0xffffffff};
	uint8_t msg[64];
	size_t n = sst_test_hex(vectors[0].hex, msg, sizeof(msg));
	struct sst_nego_msg m;

	CU_ASSERT_EQUAL(SST_NEGO_MAGIC, 0x00535354);
	for (size_t k = 0; k < sizeof(magics) / sizeof(magics[0]); k++) {
		msg[0] = magics[k] >> 24;
		msg[1] = magics[k] >> 16;
		msg[2] = magics[k] >> 8;
		msg[3] = magics[k];
		EXPECT_AT(sst_nego_msg_parse(msg, n, &m), -SST_EBADMAGIC, k);
		EXPECT_AT(sst_nego_msg_parse(msg, 4, &m), -SST_EBADMAGIC, k);
	}
}

static void
test_chunk_count(void)
{
	uint8_t msg[64];
	size_t n = sst_test_hex(vectors[0].hex, msg, sizeof(msg));
	struct sst_nego_msg m;

	/* More chunks announced than present: the next length word is missing. */
	msg[7] = 2;
	CU_ASSERT_EQUAL(sst_nego_msg_parse(msg, n, &m), -SST_ETRUNC);
	/* Fewer: the rest is trailing. */
	msg[7] = 0;
	CU_ASSERT_EQUAL(sst_nego_msg_parse(msg, n, &m), -SST_ETRAILING);
	/* Over the maximum, before any chunk is looked at. */
	msg[7] = SST_NEGO_CHUNKS_MAX + 1;
	CU_ASSERT_EQUAL(sst_nego_msg_parse(msg, n, &m), -SST_ETOOLONG);
	CU_ASSERT_EQUAL(sst_nego_msg_parse(msg, 8, &m), -SST_ETOOLONG);
	memset(msg + 4, 0xff, 4);
	CU_ASSERT_EQUAL(sst_nego_msg_parse(msg, n, &m), -SST_ETOOLONG);
	msg[4] = 0x01;
	msg[5] = 0x00;
	msg[6] = 0x00;
	msg[7] = 0x01;
	CU_ASSERT_EQUAL(sst_nego_msg_parse(msg, n, &m), -SST_ETOOLONG);
}

static void
test_chunk_length(void)
{
	uint8_t msg[64];
	size_t n = sst_test_hex(vectors[0].hex, msg, sizeof(msg));
	struct sst_nego_msg m;

	/* Shorter than the type word. */
	for (uint8_t len = 0; len < 4; len++) {
		msg[11] = len;
		EXPECT_AT(sst_nego_msg_parse(msg, n, &m), -SST_EBADLEN, len);
	}
	/* Past the end of the message. */
	for (uint32_t len = 25; len < 40; len++) {
		msg[11] = (uint8_t)len;
		EXPECT_AT(sst_nego_msg_parse(msg, n, &m), -SST_EBADLEN, len);
	}
	memset(msg + 8, 0xff, 4);
	CU_ASSERT_EQUAL(sst_nego_msg_parse(msg, n, &m), -SST_EBADLEN);
	memcpy(msg + 8, "\x80\0\0\x18", 4);
	CU_ASSERT_EQUAL(sst_nego_msg_parse(msg, n, &m), -SST_EBADLEN);
	/* Shorter than the chunk by a word: the last word is trailing. */
	memcpy(msg + 8, "\0\0\0\x14", 4);
	CU_ASSERT_EQUAL(sst_nego_msg_parse(msg, n, &m), -SST_ETRAILING);
	/* Shorter by 1..3 bytes: those zero bytes are the padding, so the
	 * framing is valid and the ChkI1 body is what is short. */
	for (uint8_t len = 0x15; len <= 0x17; len++) {
		struct sst_bytes body = {msg + 16, (uint32_t)len - 4};
		struct sst_nego_chki1 i1;

		msg[11] = len;
		EXPECT_AT(sst_nego_msg_parse(msg, n, &m), 0, len);
		EXPECT_AT(sst_nego_chki1_decode(&body, &i1), -SST_ETRUNC, len);
	}
	msg[11] = 0x18;
	CU_ASSERT_EQUAL(sst_nego_msg_parse(msg, n, &m), 0);
}

/* A chunk whose length is not a multiple of 4: the padding must be there
 * and be zero. */
static void
test_chunk_padding(void)
{
	uint8_t msg[32];
	size_t n = sst_test_hex("00535354 00000001 00000005 00007777 ab000000", msg, sizeof(msg));
	struct sst_nego_msg m;
	struct sst_nego_iter it;
	struct sst_nego_chunk c;

	CU_ASSERT_EQUAL(sst_nego_msg_parse(msg, n, &m), 0);
	sst_nego_iter_init(&it, &m);
	CU_ASSERT_EQUAL(sst_nego_iter_next(&it, &c), 1);
	CU_ASSERT_EQUAL(c.type, 0x7777);
	CU_ASSERT_EQUAL(c.body.len, 1);
	CU_ASSERT_EQUAL(c.body.ptr[0], 0xab);
	for (size_t len = n - 3; len < n; len++)
		EXPECT_AT(sst_nego_msg_parse(msg, len, &m), -SST_EBADLEN, len);
	for (size_t k = n - 3; k < n; k++) {
		msg[k] = 0x01;
		EXPECT_AT(sst_nego_msg_parse(msg, n, &m), -SST_EBADPAD, k);
		msg[k] = 0;
	}
}

static void
test_ping(void)
{
	uint8_t out[16], want[8];
	struct sst_nego_builder b;
	struct sst_nego_msg m;
	struct sst_nego_iter it;
	struct sst_nego_chunk c;

	sst_test_hex("00535354 00000000", want, sizeof(want));
	memset(out, 0xee, sizeof(out));
	CU_ASSERT_EQUAL(sst_nego_build_begin(&b, out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(sst_nego_build_end(&b), 8);
	CU_ASSERT_EQUAL(memcmp(out, want, 8), 0);
	CU_ASSERT_EQUAL(out[8], 0xee);
	CU_ASSERT_EQUAL(sst_nego_build_begin(&b, out, 8), 0);
	CU_ASSERT_EQUAL(sst_nego_build_end(&b), 8);
	CU_ASSERT_EQUAL(sst_nego_msg_parse(want, 8, &m), 0);
	CU_ASSERT_EQUAL(m.nchunks, 0);
	CU_ASSERT_EQUAL(m.chunks_len, 0);
	sst_nego_iter_init(&it, &m);
	CU_ASSERT_EQUAL(sst_nego_iter_next(&it, &c), 0);
	for (size_t cap = 0; cap < 8; cap++)
		EXPECT_AT(sst_nego_build_begin(&b, out, cap), -ENOSPC, cap);
}

/* Unknown chunk types are framed like the others and skipped over. */
static void
test_unknown_chunks(void)
{
	static const int32_t types[] = {
		0x7777, SST_NEGO_CHKI1, -1, SST_NEGO_PACKET, 0x31, SST_NEGO_CHKR1};
	uint8_t buf[256], body[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	struct sst_nego_chki1 i1 = {.cki = 0x11223344, .chani = 7};
	struct sst_nego_chkr1 r1 = {.cki = 0x11223344, .ckr = 0x55667788, .chanr = 9};
	struct sst_nego_builder b;
	struct sst_nego_msg m;
	struct sst_nego_iter it;
	struct sst_nego_chunk c;
	size_t n, k = 0;

	CU_ASSERT_EQUAL(sst_nego_build_begin(&b, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(sst_nego_build_raw(&b, 0x7777, body, 8), 0);
	CU_ASSERT_EQUAL(sst_nego_build_chki1(&b, &i1), 0);
	CU_ASSERT_EQUAL(sst_nego_build_raw(&b, -1, NULL, 0), 0);
	CU_ASSERT_EQUAL(sst_nego_build_raw(&b, SST_NEGO_PACKET, body, 4), 0);
	CU_ASSERT_EQUAL(sst_nego_build_raw(&b, 0x31, body, 3), 0);
	CU_ASSERT_EQUAL(sst_nego_build_chkr1(&b, &r1), 0);
	n = sst_nego_build_end(&b);
	CU_ASSERT_EQUAL(n, 8 + 16 + 28 + 8 + 12 + 12 + 32);
	CU_ASSERT_EQUAL(be32(buf + 4), 6);
	CU_ASSERT_EQUAL(sst_nego_msg_parse(buf, n, &m), 0);
	CU_ASSERT_EQUAL(m.nchunks, 6);
	sst_nego_iter_init(&it, &m);
	while (sst_nego_iter_next(&it, &c) == 1) {
		CU_ASSERT_FATAL(k < 6);
		EXPECT_AT(c.type, types[k], k);
		if (c.type == SST_NEGO_CHKI1) {
			struct sst_nego_chki1 d;

			CU_ASSERT_EQUAL(sst_nego_chki1_decode(&c.body, &d), 0);
			CU_ASSERT_EQUAL(d.cki, 0x11223344);
			CU_ASSERT_EQUAL(d.chani, 7);
		} else if (c.type == SST_NEGO_CHKR1) {
			struct sst_nego_chkr1 d;

			CU_ASSERT_EQUAL(sst_nego_chkr1_decode(&c.body, &d), 0);
			CU_ASSERT_EQUAL(d.ckr, 0x55667788);
			CU_ASSERT_EQUAL(d.chanr, 9);
		} else if (c.type == 0x7777) {
			CU_ASSERT_EQUAL(c.body.len, 8);
			CU_ASSERT_EQUAL(memcmp(c.body.ptr, body, 8), 0);
		} else if (c.type == -1) {
			CU_ASSERT_EQUAL(c.body.len, 0);
		} else if (c.type == SST_NEGO_PACKET) {
			CU_ASSERT_EQUAL(c.body.len, 4);
		} else {
			CU_ASSERT_EQUAL(c.body.len, 3);
			CU_ASSERT_EQUAL(memcmp(c.body.ptr, body, 3), 0);
		}
		k++;
	}
	CU_ASSERT_EQUAL(k, 6);
	/* Every prefix of the six-chunk message fails as the framing says. */
	for (size_t len = 0; len < n; len++)
		EXPECT_AT(sst_nego_msg_parse(buf, len, &m), prefix_error(buf, n, len), len);
}

static void
test_chunk_names(void)
{
	CU_ASSERT_STRING_EQUAL(sst_nego_chunk_name(SST_NEGO_PACKET), "Packet");
	CU_ASSERT_STRING_EQUAL(sst_nego_chunk_name(0x11), "ChkI1");
	CU_ASSERT_STRING_EQUAL(sst_nego_chunk_name(0x12), "ChkR1");
	CU_ASSERT_STRING_EQUAL(sst_nego_chunk_name(0x21), "DhI1");
	CU_ASSERT_STRING_EQUAL(sst_nego_chunk_name(0x22), "DhR1");
	CU_ASSERT_STRING_EQUAL(sst_nego_chunk_name(0x23), "DhI2");
	CU_ASSERT_STRING_EQUAL(sst_nego_chunk_name(0x24), "DhR2");
	CU_ASSERT_PTR_NULL(sst_nego_chunk_name(0));
	CU_ASSERT_PTR_NULL(sst_nego_chunk_name(0x13));
	CU_ASSERT_PTR_NULL(sst_nego_chunk_name(0x25));
	CU_ASSERT_PTR_NULL(sst_nego_chunk_name(-1));
	CU_ASSERT_PTR_NULL(sst_nego_chunk_name(0x7777));
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_vectors_decode),
	SST_TEST(test_vectors_build),
	SST_TEST(test_truncated_messages),
	SST_TEST(test_truncated_bodies),
	SST_TEST(test_trailing),
	SST_TEST(test_channel_numbers),
	SST_TEST(test_wants_cookie),
	SST_TEST(test_bad_magic),
	SST_TEST(test_chunk_count),
	SST_TEST(test_chunk_length),
	SST_TEST(test_chunk_padding),
	SST_TEST(test_ping),
	SST_TEST(test_unknown_chunks),
	SST_TEST(test_chunk_names),
	SST_TEST_END,
};

SST_TEST_MAIN("nego_wire", cases)
