/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the service rendezvous messages (lib/stream/stream_wire.c): the
 * ConnectRequest and ConnectReply captured in vector chk-01 (packets 3 and
 * 5), every truncation, code, padding byte, name bound and encoder refusal.
 */
#include <errno.h>
#include <limits.h>
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

/* chk-01 #3, bytes 16..39: ConnectRequest 0x101 "interop" "echo". */
static const char request_hex[] = "00000101 00000007 696e7465 726f7000 00000004 6563686f";
/* chk-01 #5, bytes 16..23: ConnectReply 0x201, error 0. */
static const char reply_hex[] = "00000201 00000000";

static void
test_request_vector(void)
{
	uint8_t msg[32], out[32];
	size_t n = sst_test_hex(request_hex, msg, sizeof(msg));
	struct sst_service_request req;

	CU_ASSERT_EQUAL_FATAL(n, 24);
	CU_ASSERT_EQUAL(sst_service_request_decode(msg, n, &req), 0);
	CU_ASSERT_EQUAL(req.service.len, 7);
	CU_ASSERT_EQUAL(memcmp(req.service.ptr, "interop", 7), 0);
	CU_ASSERT_PTR_EQUAL(req.service.ptr, msg + 8);
	CU_ASSERT_EQUAL(req.protocol.len, 4);
	CU_ASSERT_EQUAL(memcmp(req.protocol.ptr, "echo", 4), 0);
	CU_ASSERT_PTR_EQUAL(req.protocol.ptr, msg + 20);
	memset(out, 0xee, sizeof(out));
	CU_ASSERT_EQUAL(sst_service_request_encode("interop", "echo", out, sizeof(out)), 24);
	CU_ASSERT_EQUAL(memcmp(out, msg, 24), 0);
	CU_ASSERT_EQUAL(out[24], 0xee);
	CU_ASSERT_EQUAL(sst_service_request_encode("interop", "echo", out, 24), 24);
}

/* The request inside the captured Init packet, trailer stripped. */
static void
test_request_in_packet(void)
{
	uint8_t pkt[48];
	size_t n = sst_test_hex("010000010000000000011610000000000000010100000007696e7465726f70"
				"00000000046563686fdebe8592",
		pkt, sizeof(pkt));
	struct sst_stream_hdr h;
	struct sst_service_request req;
	int hl;

	CU_ASSERT_EQUAL_FATAL(n, 44);
	hl = sst_stream_hdr_decode(pkt + 8, n - 12, &h);
	CU_ASSERT_EQUAL_FATAL(hl, 8);
	CU_ASSERT_EQUAL(h.type, SST_STREAM_INIT);
	CU_ASSERT_EQUAL(h.flags, SST_FLAG_PUSH | SST_FLAG_MESSAGE);
	CU_ASSERT_EQUAL(h.ref_sid, 0);
	CU_ASSERT_EQUAL(sst_service_request_decode(pkt + 16, n - 16 - 4, &req), 0);
	CU_ASSERT_EQUAL(req.service.len, 7);
	/* With the trailer the message has 4 bytes too many. */
	CU_ASSERT_EQUAL(sst_service_request_decode(pkt + 16, n - 16, &req), -SST_ETRAILING);
}

/* The prototype notes' example: "regress"/"basic" is 28 bytes. */
static void
test_request_regress(void)
{
	uint8_t want[28], out[32];
	struct sst_service_request req;

	CU_ASSERT_EQUAL(sst_test_hex("00000101 00000007 72656772 65737300 00000005 62617369 "
				     "63000000",
				want, sizeof(want)),
		28);
	CU_ASSERT_EQUAL(sst_service_request_encode("regress", "basic", out, sizeof(out)), 28);
	CU_ASSERT_EQUAL(memcmp(out, want, 28), 0);
	CU_ASSERT_EQUAL(sst_service_request_decode(out, 28, &req), 0);
	CU_ASSERT_EQUAL(req.protocol.len, 5);
	CU_ASSERT_EQUAL(memcmp(req.protocol.ptr, "basic", 5), 0);
}

static void
test_request_round_trip(void)
{
	char s[SST_SERVICE_NAME_MAX + 1], p[SST_SERVICE_NAME_MAX + 1];
	static uint8_t buf[1024];
	static const size_t lens[] = {1, 2, 3, 4, 5, 255, 256};

	for (size_t i = 0; i < 7; i++)
		for (size_t j = 0; j < 7; j++) {
			struct sst_service_request req;
			size_t want =
				4 + sst_xdr_opaque_size(lens[i]) + sst_xdr_opaque_size(lens[j]);

			memset(s, 's', lens[i]);
			s[lens[i]] = '\0';
			memset(p, 'p', lens[j]);
			p[lens[j]] = '\0';
			EXPECT_AT(sst_service_request_encode(s, p, buf, sizeof(buf)), want,
				i * 7 + j);
			EXPECT_AT(sst_service_request_decode(buf, want, &req), 0, i * 7 + j);
			EXPECT_AT(req.service.len, lens[i], i);
			EXPECT_AT(req.protocol.len, lens[j], j);
			EXPECT_AT(memcmp(req.service.ptr, s, lens[i]), 0, i);
			EXPECT_AT(memcmp(req.protocol.ptr, p, lens[j]), 0, j);
		}
}

static void
test_request_truncated(void)
{
	uint8_t msg[32];
	size_t n = sst_test_hex(request_hex, msg, sizeof(msg));
	struct sst_service_request req;

	for (size_t len = 0; len < n; len++)
		EXPECT_AT(sst_service_request_decode(msg, len, &req), -SST_ETRUNC, len);
}

static void
test_request_bad_code(void)
{
	static const uint32_t codes[] = {0, 0x100, 0x102, 0x201, 0x1101, 0x01000101, 0xffffffff};
	uint8_t msg[32];
	size_t n = sst_test_hex(request_hex, msg, sizeof(msg));
	struct sst_service_request req;

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		msg[0] = codes[i] >> 24;
		msg[1] = codes[i] >> 16;
		msg[2] = codes[i] >> 8;
		msg[3] = codes[i];
		EXPECT_AT(sst_service_request_decode(msg, n, &req), -SST_EBADTYPE, i);
	}
}

static void
test_request_bad_names(void)
{
	uint8_t msg[32];
	size_t n;
	struct sst_service_request req;

	/* Empty service, empty protocol, both empty. */
	n = sst_test_hex("00000101 00000000 00000004 6563686f", msg, sizeof(msg));
	CU_ASSERT_EQUAL(sst_service_request_decode(msg, n, &req), -SST_EBADVALUE);
	n = sst_test_hex("00000101 00000007 696e7465 726f7000 00000000", msg, sizeof(msg));
	CU_ASSERT_EQUAL(sst_service_request_decode(msg, n, &req), -SST_EBADVALUE);
	n = sst_test_hex("00000101 00000000 00000000", msg, sizeof(msg));
	CU_ASSERT_EQUAL(sst_service_request_decode(msg, n, &req), -SST_EBADVALUE);
	/* A NUL anywhere inside either name. */
	n = sst_test_hex(request_hex, msg, sizeof(msg));
	for (size_t k = 8; k < 24; k++) {
		uint8_t save = msg[k];

		if (k >= 15 && k < 20) /* padding and the protocol length */
			continue;
		msg[k] = 0;
		EXPECT_AT(sst_service_request_decode(msg, n, &req), -SST_EBADVALUE, k);
		msg[k] = save;
	}
	/* The padding after "interop". */
	msg[15] = 'x';
	CU_ASSERT_EQUAL(sst_service_request_decode(msg, n, &req), -SST_EBADPAD);
	msg[15] = 0;
	CU_ASSERT_EQUAL(sst_service_request_decode(msg, n, &req), 0);
}

/* Padding of three-, two- and one-byte names at each padding byte. */
static void
test_request_bad_padding(void)
{
	static const char *const names[] = {"a", "ab", "abc"};

	for (size_t i = 0; i < 3; i++)
		for (size_t which = 0; which < 2; which++) {
			uint8_t msg[32];
			struct sst_service_request req;
			int n = sst_service_request_encode(names[i], names[i], msg, sizeof(msg));
			size_t start = which == 0 ? 8 : 16;

			CU_ASSERT_FATAL(n == 20);
			for (size_t k = start + i + 1; k < start + 4; k++) {
				msg[k] = 0x20;
				EXPECT_AT(
					sst_service_request_decode(msg, 20, &req), -SST_EBADPAD, k);
				msg[k] = 0;
			}
		}
}

static void
test_request_trailing(void)
{
	uint8_t msg[40];
	size_t n = sst_test_hex(request_hex, msg, sizeof(msg));
	struct sst_service_request req;

	memset(msg + n, 0, sizeof(msg) - n);
	for (size_t extra = 1; extra <= 8; extra++)
		EXPECT_AT(sst_service_request_decode(msg, n + extra, &req), -SST_ETRAILING, extra);
}

static void
test_request_too_long(void)
{
	static uint8_t msg[SST_SERVICE_MSG_MAX + 8];
	struct sst_service_request req;
	int n;

	/* Any input over 1024 bytes is refused as a whole, even one that
	 * starts with a valid request. */
	memset(msg, 0, sizeof(msg));
	n = sst_service_request_encode("interop", "echo", msg, sizeof(msg));
	CU_ASSERT_EQUAL_FATAL(n, 24);
	CU_ASSERT_EQUAL(sst_service_request_decode(msg, SST_SERVICE_MSG_MAX, &req), -SST_ETRAILING);
	CU_ASSERT_EQUAL(
		sst_service_request_decode(msg, SST_SERVICE_MSG_MAX + 1, &req), -SST_ETOOLONG);
	CU_ASSERT_EQUAL(sst_service_request_decode(msg, sizeof(msg), &req), -SST_ETOOLONG);
	/* A name of 257 bytes is over the name bound, for either name. */
	memset(msg, 0, sizeof(msg));
	memcpy(msg, "\0\0\x01\x01\0\0\x01\x01", 8);
	memset(msg + 8, 'n', 257);
	memcpy(msg + 268,
		"\0\0\0\x04"
		"echo",
		8);
	CU_ASSERT_EQUAL(sst_service_request_decode(msg, 276, &req), -SST_ETOOLONG);
	/* 256 bytes of service name, 257 of protocol. */
	memset(msg, 0, sizeof(msg));
	memcpy(msg, "\0\0\x01\x01\0\0\x01\x00", 8);
	memset(msg + 8, 'n', 256);
	memcpy(msg + 264, "\0\0\x01\x01", 4);
	memset(msg + 268, 'p', 257);
	CU_ASSERT_EQUAL(sst_service_request_decode(msg, 528, &req), -SST_ETOOLONG);
	/* 256 and 256: the longest names accepted. */
	msg[267] = 0x00;
	memset(msg + 268 + 256, 0, 4);
	CU_ASSERT_EQUAL(sst_service_request_decode(msg, 524, &req), 0);
	CU_ASSERT_EQUAL(req.service.len, 256);
	CU_ASSERT_EQUAL(req.protocol.len, 256);
}

static void
test_request_encode_invalid(void)
{
	char big[SST_SERVICE_NAME_MAX + 2];
	uint8_t buf[600];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CU_ASSERT_EQUAL(sst_service_request_encode(NULL, "echo", buf, sizeof(buf)), -EINVAL);
	CU_ASSERT_EQUAL(sst_service_request_encode("interop", NULL, buf, sizeof(buf)), -EINVAL);
	CU_ASSERT_EQUAL(sst_service_request_encode("", "echo", buf, sizeof(buf)), -EINVAL);
	CU_ASSERT_EQUAL(sst_service_request_encode("interop", "", buf, sizeof(buf)), -EINVAL);
	CU_ASSERT_EQUAL(sst_service_request_encode(big, "echo", buf, sizeof(buf)), -EINVAL);
	CU_ASSERT_EQUAL(sst_service_request_encode("interop", big, buf, sizeof(buf)), -EINVAL);
	big[SST_SERVICE_NAME_MAX] = '\0';
	CU_ASSERT_EQUAL(sst_service_request_encode(big, big, buf, sizeof(buf)), 4 + 260 + 260);
}

static void
test_request_encode_nospace(void)
{
	uint8_t buf[32];

	for (size_t cap = 0; cap < 24; cap++)
		EXPECT_AT(sst_service_request_encode("interop", "echo", buf, cap), -ENOSPC, cap);
	for (size_t cap = 0; cap < 20; cap++)
		EXPECT_AT(sst_service_request_encode("a", "abcd", buf, cap), -ENOSPC, cap);
}

static void
test_reply_vector(void)
{
	uint8_t msg[8], out[12];
	int32_t err = 99;

	CU_ASSERT_EQUAL_FATAL(sst_test_hex(reply_hex, msg, sizeof(msg)), 8);
	CU_ASSERT_EQUAL(sst_service_reply_decode(msg, 8, &err), 0);
	CU_ASSERT_EQUAL(err, 0);
	memset(out, 0xee, sizeof(out));
	CU_ASSERT_EQUAL(sst_service_reply_encode(0, out, sizeof(out)), 8);
	CU_ASSERT_EQUAL(memcmp(out, msg, 8), 0);
	CU_ASSERT_EQUAL(out[8], 0xee);
}

/* The reply inside the captured Reply packet (chk-01 #5). */
static void
test_reply_in_packet(void)
{
	uint8_t pkt[28];
	struct sst_stream_hdr h;
	int32_t err = 5;

	CU_ASSERT_EQUAL_FATAL(
		sst_test_hex("010000010100000100012610000100000000020100000000068ce740", pkt,
			sizeof(pkt)),
		28);
	CU_ASSERT_EQUAL(sst_stream_hdr_decode(pkt + 8, 16, &h), 8);
	CU_ASSERT_EQUAL(h.type, SST_STREAM_REPLY);
	CU_ASSERT_EQUAL(h.ref_sid, 1);
	CU_ASSERT_EQUAL(sst_service_reply_decode(pkt + 16, 8, &err), 0);
	CU_ASSERT_EQUAL(err, 0);
	CU_ASSERT_EQUAL(sst_service_reply_decode(pkt + 16, 12, &err), -SST_ETRAILING);
}

static void
test_reply_round_trip(void)
{
	static const int32_t errs[] = {0, 1, -1, 2, 0x7fffffff, INT32_MIN};

	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		uint8_t buf[8];
		int32_t e = 12345;

		EXPECT_AT(sst_service_reply_encode(errs[i], buf, sizeof(buf)), 8, i);
		EXPECT_AT(buf[2], 0x02, i);
		EXPECT_AT(buf[3], 0x01, i);
		EXPECT_AT(buf[4], (uint8_t)((uint32_t)errs[i] >> 24), i);
		EXPECT_AT(sst_service_reply_decode(buf, 8, &e), 0, i);
		EXPECT_AT(e, errs[i], i);
	}
}

static void
test_reply_errors(void)
{
	static const uint32_t codes[] = {0, 0x101, 0x200, 0x202, 0x1201, 0xffffffff};
	uint8_t msg[16] = {0};
	int32_t err;

	sst_test_hex(reply_hex, msg, sizeof(msg));
	for (size_t len = 0; len < 8; len++)
		EXPECT_AT(sst_service_reply_decode(msg, len, &err), -SST_ETRUNC, len);
	for (size_t extra = 1; extra <= 8; extra++)
		EXPECT_AT(sst_service_reply_decode(msg, 8 + extra, &err), -SST_ETRAILING, extra);
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		msg[0] = codes[i] >> 24;
		msg[1] = codes[i] >> 16;
		msg[2] = codes[i] >> 8;
		msg[3] = codes[i];
		EXPECT_AT(sst_service_reply_decode(msg, 8, &err), -SST_EBADTYPE, i);
	}
	for (size_t cap = 0; cap < 8; cap++) {
		uint8_t out[8];

		memset(out, 0xee, sizeof(out));
		EXPECT_AT(sst_service_reply_encode(0, out, cap), -ENOSPC, cap);
		EXPECT_AT(out[0], 0xee, cap);
	}
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_request_vector),
	SST_TEST(test_request_in_packet),
	SST_TEST(test_request_regress),
	SST_TEST(test_request_round_trip),
	SST_TEST(test_request_truncated),
	SST_TEST(test_request_bad_code),
	SST_TEST(test_request_bad_names),
	SST_TEST(test_request_bad_padding),
	SST_TEST(test_request_trailing),
	SST_TEST(test_request_too_long),
	SST_TEST(test_request_encode_invalid),
	SST_TEST(test_request_encode_nospace),
	SST_TEST(test_reply_vector),
	SST_TEST(test_reply_in_packet),
	SST_TEST(test_reply_round_trip),
	SST_TEST(test_reply_errors),
	SST_TEST_END,
};

SST_TEST_MAIN("stream_service", cases)
