/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the negotiation message builder (lib/negotiation/nego_wire.c):
 * ChkI1/ChkR1 with opaque fields of every small length round-tripped through
 * the parser and the chunk decoders, the opaque bounds, the chunk count limit,
 * invalid channel numbers, and that a chunk which does not fit is rolled back
 * so the message built so far stays valid.
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

static const uint8_t ping[8] = {0x00, 0x53, 0x53, 0x54, 0, 0, 0, 0};

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int
bytes_equal(const struct sst_bytes *a, const uint8_t *p, size_t n)
{
	return a->len == n && (n == 0 || memcmp(a->ptr, p, n) == 0);
}

/* Parse a built message and return its only chunk. */
static int
only_chunk(const uint8_t *buf, size_t n, struct sst_nego_chunk *c)
{
	struct sst_nego_msg m;
	struct sst_nego_iter it;
	int rc = sst_nego_msg_parse(buf, n, &m);

	if (rc < 0 || m.nchunks != 1)
		return -1;
	sst_nego_iter_init(&it, &m);
	return sst_nego_iter_next(&it, c) == 1 ? 0 : -1;
}

static void
test_chki1_opaques(void)
{
	static const uint8_t data[5] = {0xc0, 0xc1, 0xc2, 0xc3, 0xc4};

	for (size_t a = 0; a <= 5; a++)
		for (size_t b = 0; b <= 5; b++)
			for (size_t c = 0; c <= 5; c++) {
				struct sst_nego_chki1 in = {.cki = 0xfedcba98, .chani = 255};
				struct sst_nego_chki1 out;
				struct sst_nego_builder bld;
				struct sst_nego_chunk ch;
				uint8_t buf[96];
				size_t n, at = a * 36 + b * 6 + c;
				size_t want = 8 + 4 + 4 + 8 + sst_xdr_opaque_size(a) +
					      sst_xdr_opaque_size(b) + sst_xdr_opaque_size(c);

				in.cookie = (struct sst_bytes){data, (uint32_t)a};
				in.ulpi = (struct sst_bytes){data + 5 - b, (uint32_t)b};
				in.cpkt = (struct sst_bytes){data, (uint32_t)c};
				sst_nego_build_begin(&bld, buf, sizeof(buf));
				EXPECT_AT(sst_nego_build_chki1(&bld, &in), 0, at);
				n = sst_nego_build_end(&bld);
				EXPECT_AT(n, want, at);
				EXPECT_AT(be32(buf + 8), n - 12, at);
				EXPECT_AT(only_chunk(buf, n, &ch), 0, at);
				EXPECT_AT(ch.type, SST_NEGO_CHKI1, at);
				EXPECT_AT(sst_nego_chki1_decode(&ch.body, &out), 0, at);
				EXPECT_AT(out.cki, in.cki, at);
				EXPECT_AT(out.chani, in.chani, at);
				EXPECT_AT(bytes_equal(&out.cookie, data, a), 1, at);
				EXPECT_AT(bytes_equal(&out.ulpi, data + 5 - b, b), 1, at);
				EXPECT_AT(bytes_equal(&out.cpkt, data, c), 1, at);
			}
}

static void
test_chkr1_opaques(void)
{
	static const uint8_t data[5] = {0xd0, 0xd1, 0xd2, 0xd3, 0xd4};

	for (size_t a = 0; a <= 5; a++)
		for (size_t b = 0; b <= 5; b++) {
			struct sst_nego_chkr1 in = {.cki = 1, .ckr = 0xffffffff, .chanr = 0};
			struct sst_nego_chkr1 out;
			struct sst_nego_builder bld;
			struct sst_nego_chunk ch;
			uint8_t buf[96];
			size_t n, at = a * 6 + b;

			in.cookie = (struct sst_bytes){data, (uint32_t)a};
			in.ulpr = (struct sst_bytes){data, (uint32_t)b};
			in.cpkt = (struct sst_bytes){data + 5 - a, (uint32_t)a};
			sst_nego_build_begin(&bld, buf, sizeof(buf));
			EXPECT_AT(sst_nego_build_chkr1(&bld, &in), 0, at);
			n = sst_nego_build_end(&bld);
			EXPECT_AT(only_chunk(buf, n, &ch), 0, at);
			EXPECT_AT(ch.type, SST_NEGO_CHKR1, at);
			EXPECT_AT(sst_nego_chkr1_decode(&ch.body, &out), 0, at);
			EXPECT_AT(out.cki, 1, at);
			EXPECT_AT(out.ckr, 0xffffffff, at);
			EXPECT_AT(out.chanr, 0, at);
			EXPECT_AT(sst_nego_chkr1_wants_cookie(&out), true, at);
			EXPECT_AT(bytes_equal(&out.cookie, data, a), 1, at);
			EXPECT_AT(bytes_equal(&out.ulpr, data, b), 1, at);
			EXPECT_AT(bytes_equal(&out.cpkt, data + 5 - a, a), 1, at);
		}
}

/* Padding of each opaque in a ChkI1 and ChkR1 body. */
static void
test_opaque_padding(void)
{
	static const uint8_t one[1] = {0x42};
	struct sst_nego_chki1 i1 = {.cki = 5, .chani = 1};
	struct sst_nego_chkr1 r1 = {.cki = 5, .ckr = 6, .chanr = 1};
	struct sst_nego_builder bld;
	struct sst_nego_chunk ch;
	uint8_t buf[96];
	size_t n;

	i1.cookie = i1.ulpi = i1.cpkt = (struct sst_bytes){one, 1};
	sst_nego_build_begin(&bld, buf, sizeof(buf));
	CU_ASSERT_EQUAL(sst_nego_build_chki1(&bld, &i1), 0);
	n = sst_nego_build_end(&bld);
	CU_ASSERT_EQUAL_FATAL(only_chunk(buf, n, &ch), 0);
	/* body: cki, chani, then three times {length, 0x42, 3 padding} */
	for (size_t f = 0; f < 3; f++)
		for (size_t k = 8 + f * 8 + 5; k < 8 + f * 8 + 8; k++) {
			uint8_t *p = (uint8_t *)ch.body.ptr + k;
			struct sst_nego_chki1 out;

			*p = 0x01;
			EXPECT_AT(sst_nego_chki1_decode(&ch.body, &out), -SST_EBADPAD, k);
			*p = 0;
		}
	r1.cookie = r1.ulpr = r1.cpkt = (struct sst_bytes){one, 1};
	sst_nego_build_begin(&bld, buf, sizeof(buf));
	CU_ASSERT_EQUAL(sst_nego_build_chkr1(&bld, &r1), 0);
	n = sst_nego_build_end(&bld);
	CU_ASSERT_EQUAL_FATAL(only_chunk(buf, n, &ch), 0);
	for (size_t f = 0; f < 3; f++)
		for (size_t k = 12 + f * 8 + 5; k < 12 + f * 8 + 8; k++) {
			uint8_t *p = (uint8_t *)ch.body.ptr + k;
			struct sst_nego_chkr1 out;

			*p = 0x80;
			EXPECT_AT(sst_nego_chkr1_decode(&ch.body, &out), -SST_EBADPAD, k);
			*p = 0;
		}
}

/* cookie, ulp and cpkt are bounded by SST_NEGO_OPAQUE_MAX: the builder
 * refuses to produce what the decoder would reject, and the decoder rejects
 * a hand-encoded field one byte over the bound. */
static void
test_opaque_bound(void)
{
	static uint8_t big[SST_NEGO_OPAQUE_MAX + 1];
	static uint8_t buf[2 * SST_NEGO_OPAQUE_MAX + 128];
	static uint8_t body[2 * SST_NEGO_OPAQUE_MAX + 64];

	for (size_t field = 0; field < 3; field++)
		for (size_t extra = 0; extra <= 1; extra++) {
			struct sst_bytes v = {big, SST_NEGO_OPAQUE_MAX + (uint32_t)extra};
			struct sst_bytes empty = {NULL, 0};
			struct sst_nego_chki1 i1 = {.cki = 1, .chani = 1};
			struct sst_nego_chkr1 r1 = {.cki = 1, .ckr = 2, .chanr = 1};
			struct sst_nego_chki1 o1;
			struct sst_nego_chkr1 o2;
			struct sst_nego_builder bld;
			struct sst_nego_chunk ch;
			struct sst_xdr_writer w;
			int want = extra ? -SST_ETOOLONG : 0;
			size_t n;

			if (field == 0)
				i1.cookie = r1.cookie = v;
			else if (field == 1)
				i1.ulpi = r1.ulpr = v;
			else
				i1.cpkt = r1.cpkt = v;
			sst_nego_build_begin(&bld, buf, sizeof(buf));
			EXPECT_AT(sst_nego_build_chki1(&bld, &i1), extra ? -EINVAL : 0, field);
			EXPECT_AT(sst_nego_build_chkr1(&bld, &r1), extra ? -EINVAL : 0, field);
			EXPECT_AT(bld.nchunks, extra ? 0 : 2, field);

			/* The ChkI1 body by hand, bypassing the builder's check. */
			sst_xdr_writer_init(&w, body, sizeof(body));
			sst_xdr_put_u32(&w, 1);
			sst_xdr_put_u32(&w, 1);
			for (size_t f = 0; f < 3; f++) {
				const struct sst_bytes *x = f == field ? &v : &empty;

				sst_xdr_put_opaque(&w, x->ptr, x->len);
			}
			sst_nego_build_begin(&bld, buf, sizeof(buf));
			CU_ASSERT_EQUAL(sst_nego_build_raw(&bld, SST_NEGO_CHKI1, body, w.pos), 0);
			n = sst_nego_build_end(&bld);
			CU_ASSERT_EQUAL_FATAL(only_chunk(buf, n, &ch), 0);
			EXPECT_AT(sst_nego_chki1_decode(&ch.body, &o1), want, field);

			/* The ChkR1 body by hand. */
			sst_xdr_writer_init(&w, body, sizeof(body));
			sst_xdr_put_u32(&w, 1);
			sst_xdr_put_u32(&w, 2);
			sst_xdr_put_u32(&w, 1);
			for (size_t f = 0; f < 3; f++) {
				const struct sst_bytes *x = f == field ? &v : &empty;

				sst_xdr_put_opaque(&w, x->ptr, x->len);
			}
			sst_nego_build_begin(&bld, buf, sizeof(buf));
			CU_ASSERT_EQUAL(sst_nego_build_raw(&bld, SST_NEGO_CHKR1, body, w.pos), 0);
			n = sst_nego_build_end(&bld);
			CU_ASSERT_EQUAL_FATAL(only_chunk(buf, n, &ch), 0);
			EXPECT_AT(sst_nego_chkr1_decode(&ch.body, &o2), want, field);
		}
}

static void
test_invalid_channels(void)
{
	static const uint32_t bad_i[] = {0, 256, 0x10001, 0xffffffff};
	static const uint32_t bad_r[] = {256, 0x10000, 0xffffffff};
	struct sst_nego_builder bld;
	uint8_t buf[128];

	sst_nego_build_begin(&bld, buf, sizeof(buf));
	for (size_t k = 0; k < 4; k++) {
		struct sst_nego_chki1 i1 = {.cki = 1, .chani = bad_i[k]};

		EXPECT_AT(sst_nego_build_chki1(&bld, &i1), -EINVAL, k);
		EXPECT_AT(sst_nego_build_end(&bld), 8, k);
	}
	for (size_t k = 0; k < 3; k++) {
		struct sst_nego_chkr1 r1 = {.cki = 1, .ckr = 2, .chanr = bad_r[k]};

		EXPECT_AT(sst_nego_build_chkr1(&bld, &r1), -EINVAL, k);
		EXPECT_AT(sst_nego_build_end(&bld), 8, k);
	}
	CU_ASSERT_EQUAL(memcmp(buf, ping, 8), 0);
	/* The edges that are valid. */
	{
		struct sst_nego_chki1 i1 = {.cki = 1, .chani = 255};
		struct sst_nego_chkr1 r1 = {.cki = 1, .ckr = 2, .chanr = 255};
		struct sst_nego_chkr1 r0 = {.cki = 1, .ckr = 2, .chanr = 0};
		struct sst_nego_msg m;

		CU_ASSERT_EQUAL(sst_nego_build_chki1(&bld, &i1), 0);
		CU_ASSERT_EQUAL(sst_nego_build_chkr1(&bld, &r1), 0);
		CU_ASSERT_EQUAL(sst_nego_build_chkr1(&bld, &r0), 0);
		CU_ASSERT_EQUAL(sst_nego_msg_parse(buf, sst_nego_build_end(&bld), &m), 0);
		CU_ASSERT_EQUAL(m.nchunks, 3);
	}
}

/* A chunk that does not fit leaves the message as it was. */
static void
test_rollback(void)
{
	struct sst_nego_chki1 i1 = {.cki = 0xc21c5f62, .chani = 1};
	struct sst_nego_chkr1 r1 = {.cki = 0xc21c5f62, .ckr = 0x35d53d2a, .chanr = 1};
	uint8_t ref[128], buf[128];
	struct sst_nego_builder bld;
	struct sst_nego_msg m;
	size_t ref_len;

	/* The two-chunk message everything below is a prefix of. */
	sst_nego_build_begin(&bld, ref, sizeof(ref));
	CU_ASSERT_EQUAL(sst_nego_build_chki1(&bld, &i1), 0);
	CU_ASSERT_EQUAL(sst_nego_build_chkr1(&bld, &r1), 0);
	ref_len = sst_nego_build_end(&bld);
	CU_ASSERT_EQUAL(ref_len, 8 + 28 + 32);

	for (size_t cap = 8; cap < 36; cap++) {
		memset(buf, 0xee, sizeof(buf));
		EXPECT_AT(sst_nego_build_begin(&bld, buf, cap), 0, cap);
		EXPECT_AT(sst_nego_build_chki1(&bld, &i1), -ENOSPC, cap);
		EXPECT_AT(sst_nego_build_end(&bld), 8, cap);
		EXPECT_AT(memcmp(buf, ping, 8), 0, cap);
		EXPECT_AT(sst_nego_msg_parse(buf, 8, &m), 0, cap);
		EXPECT_AT(m.nchunks, 0, cap);
		/* Raw chunks roll back the same way. */
		EXPECT_AT(sst_nego_build_raw(&bld, 0x99, ref, cap - 8 + 1), -ENOSPC, cap);
		EXPECT_AT(sst_nego_build_end(&bld), 8, cap);
		EXPECT_AT(be32(buf + 4), 0, cap);
	}
	for (size_t cap = 36; cap < ref_len; cap++) {
		EXPECT_AT(sst_nego_build_begin(&bld, buf, cap), 0, cap);
		EXPECT_AT(sst_nego_build_chki1(&bld, &i1), 0, cap);
		EXPECT_AT(sst_nego_build_chkr1(&bld, &r1), -ENOSPC, cap);
		EXPECT_AT(sst_nego_build_end(&bld), 36, cap);
		EXPECT_AT(be32(buf + 4), 1, cap);
		EXPECT_AT(memcmp(buf, ref, 4) == 0 && memcmp(buf + 8, ref + 8, 28) == 0, 1, cap);
		EXPECT_AT(sst_nego_msg_parse(buf, 36, &m), 0, cap);
		EXPECT_AT(m.nchunks, 1, cap);
		/* The builder is still usable: a chunk that fits goes in. */
		if (cap >= 44) {
			EXPECT_AT(sst_nego_build_raw(&bld, 0x99, NULL, 0), 0, cap);
			EXPECT_AT(sst_nego_build_end(&bld), 44, cap);
			EXPECT_AT(sst_nego_msg_parse(buf, 44, &m), 0, cap);
			EXPECT_AT(m.nchunks, 2, cap);
		}
	}
	EXPECT_AT(sst_nego_build_begin(&bld, buf, ref_len), 0, ref_len);
	CU_ASSERT_EQUAL(sst_nego_build_chki1(&bld, &i1), 0);
	CU_ASSERT_EQUAL(sst_nego_build_chkr1(&bld, &r1), 0);
	CU_ASSERT_EQUAL(sst_nego_build_end(&bld), ref_len);
	CU_ASSERT_EQUAL(memcmp(buf, ref, ref_len), 0);
}

/* Raw chunk bodies of any length come back as they went in. */
static void
test_raw_round_trip(void)
{
	static const uint8_t data[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};

	for (size_t len = 0; len <= 9; len++) {
		struct sst_nego_builder bld;
		struct sst_nego_chunk ch;
		uint8_t buf[64];
		size_t n;

		memset(buf, 0xee, sizeof(buf));
		sst_nego_build_begin(&bld, buf, sizeof(buf));
		EXPECT_AT(sst_nego_build_raw(&bld, 0x1234, data, len), 0, len);
		n = sst_nego_build_end(&bld);
		EXPECT_AT(n, 8 + 8 + ((len + 3) & ~(size_t)3), len);
		/* The length word counts the type and the body, not the padding. */
		EXPECT_AT(be32(buf + 8), 4 + len, len);
		EXPECT_AT(only_chunk(buf, n, &ch), 0, len);
		EXPECT_AT(ch.type, 0x1234, len);
		EXPECT_AT(bytes_equal(&ch.body, data, len), 1, len);
		for (size_t k = 16 + len; k < n; k++)
			EXPECT_AT(buf[k], 0, k);
	}
}

static void
test_chunk_limit(void)
{
	static uint8_t buf[8 + 66 * 8];
	struct sst_nego_chki1 i1 = {.cki = 1, .chani = 1};
	struct sst_nego_chkr1 r1 = {.cki = 1, .ckr = 2, .chanr = 1};
	struct sst_nego_builder bld;
	struct sst_nego_msg m;
	struct sst_nego_iter it;
	struct sst_nego_chunk ch;
	size_t n, count = 0;

	CU_ASSERT_EQUAL(SST_NEGO_CHUNKS_MAX, 64);
	sst_nego_build_begin(&bld, buf, sizeof(buf));
	for (uint32_t k = 0; k < SST_NEGO_CHUNKS_MAX; k++)
		EXPECT_AT(sst_nego_build_raw(&bld, (int32_t)k, NULL, 0), 0, k);
	CU_ASSERT_EQUAL(sst_nego_build_raw(&bld, 99, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(sst_nego_build_chki1(&bld, &i1), -EINVAL);
	CU_ASSERT_EQUAL(sst_nego_build_chkr1(&bld, &r1), -EINVAL);
	n = sst_nego_build_end(&bld);
	CU_ASSERT_EQUAL(n, 8 + 64 * 8);
	CU_ASSERT_EQUAL(be32(buf + 4), 64);
	CU_ASSERT_EQUAL(sst_nego_msg_parse(buf, n, &m), 0);
	CU_ASSERT_EQUAL(m.nchunks, 64);
	sst_nego_iter_init(&it, &m);
	while (sst_nego_iter_next(&it, &ch) == 1) {
		EXPECT_AT(ch.type, count, count);
		count++;
	}
	CU_ASSERT_EQUAL(count, 64);
	/* The same framing with a 65th chunk is refused by the parser. */
	memcpy(buf + n, "\0\0\0\x04\0\0\0\x63", 8);
	buf[7] = 65;
	CU_ASSERT_EQUAL(sst_nego_msg_parse(buf, n + 8, &m), -SST_ETOOLONG);
	buf[7] = 64;
	CU_ASSERT_EQUAL(sst_nego_msg_parse(buf, n + 8, &m), -SST_ETRAILING);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_chki1_opaques),
	SST_TEST(test_chkr1_opaques),
	SST_TEST(test_opaque_padding),
	SST_TEST(test_opaque_bound),
	SST_TEST(test_invalid_channels),
	SST_TEST(test_rollback),
	SST_TEST(test_raw_round_trip),
	SST_TEST(test_chunk_limit),
	SST_TEST_END,
};

SST_TEST_MAIN("nego_build", cases)
