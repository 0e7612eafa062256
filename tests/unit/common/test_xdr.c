/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the XDR reader and writer (lib/common/xdr.c): encodings checked
 * against hand-written bytes (RFC 4506), every truncation length, every
 * padding byte, the length bounds, and that a failed call moves no cursor and
 * writes nothing.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "sst_error.h"
#include "sst_test.h"
#include "sst_xdr.h"

/* Assert got == want; on failure also print the loop position. */
#define EXPECT_AT(got, want, at)                                                              \
	do {                                                                                  \
		long long g_ = (long long)(got), w_ = (long long)(want);                      \
		CU_ASSERT_EQUAL(g_, w_);                                                      \
		if (g_ != w_)                                                                 \
			fprintf(stderr, "  line %d, at %zu: got %lld, want %lld\n", __LINE__, \
				(size_t)(at), g_, w_);                                        \
	} while (0)

static void
test_get_ints(void)
{
	static const uint8_t in[] = {0x00, 0x00, 0x01, 0x01, 0xff, 0xff, 0xff, 0xfe, 0x80, 0x00,
		0x00, 0x00, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
	struct sst_xdr_reader r;
	uint32_t u;
	int32_t i;
	uint64_t h;

	sst_xdr_reader_init(&r, in, sizeof(in));
	CU_ASSERT_EQUAL(sst_xdr_remaining(&r), 20);
	CU_ASSERT_EQUAL(sst_xdr_get_u32(&r, &u), 0);
	CU_ASSERT_EQUAL(u, 0x101);
	CU_ASSERT_EQUAL(sst_xdr_get_i32(&r, &i), 0);
	CU_ASSERT_EQUAL(i, -2);
	CU_ASSERT_EQUAL(sst_xdr_get_i32(&r, &i), 0);
	CU_ASSERT_EQUAL(i, INT32_MIN);
	CU_ASSERT_EQUAL(r.pos, 12);
	CU_ASSERT_EQUAL(sst_xdr_get_u64(&r, &h), 0);
	CU_ASSERT_EQUAL(h, UINT64_C(0x0123456789abcdef));
	CU_ASSERT_EQUAL(sst_xdr_remaining(&r), 0);
	CU_ASSERT_EQUAL(sst_xdr_expect_end(&r), 0);
	CU_ASSERT_EQUAL(sst_xdr_get_u32(&r, &u), -SST_ETRUNC);
	CU_ASSERT_EQUAL(sst_xdr_get_i32(&r, &i), -SST_ETRUNC);
	CU_ASSERT_EQUAL(sst_xdr_get_u64(&r, &h), -SST_ETRUNC);
	CU_ASSERT_EQUAL(r.pos, 20);
}

static void
test_get_ints_truncated(void)
{
	static const uint8_t in[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	struct sst_xdr_reader r;
	uint32_t u = 7;
	int32_t i = 7;
	uint64_t h = 7;
	bool b = true;

	for (size_t len = 0; len < 8; len++) {
		sst_xdr_reader_init(&r, in, len);
		if (len < 4) {
			EXPECT_AT(sst_xdr_get_u32(&r, &u), -SST_ETRUNC, len);
			EXPECT_AT(sst_xdr_get_i32(&r, &i), -SST_ETRUNC, len);
			EXPECT_AT(sst_xdr_get_bool(&r, &b), -SST_ETRUNC, len);
		}
		EXPECT_AT(sst_xdr_get_u64(&r, &h), -SST_ETRUNC, len);
		EXPECT_AT(r.pos, 0, len);
	}
	/* A reader part way through its buffer truncates the same way. */
	sst_xdr_reader_init(&r, in, 7);
	CU_ASSERT_EQUAL(sst_xdr_get_u32(&r, &u), 0);
	CU_ASSERT_EQUAL(u, 0x01020304);
	CU_ASSERT_EQUAL(sst_xdr_get_u32(&r, &u), -SST_ETRUNC);
	CU_ASSERT_EQUAL(r.pos, 4);
	/* Failed reads leave the outputs alone. */
	CU_ASSERT_EQUAL(i, 7);
	CU_ASSERT_EQUAL(h, 7);
	CU_ASSERT_EQUAL(b, true);
}

static void
test_get_bool(void)
{
	static const uint32_t bad[] = {2, 3, 0x100, 0x10000, 0x1000000, 0x80000000u, 0xffffffffu};
	uint8_t in[8] = {0, 0, 0, 1, 0, 0, 0, 0};
	struct sst_xdr_reader r;
	bool b = false;

	sst_xdr_reader_init(&r, in, sizeof(in));
	CU_ASSERT_EQUAL(sst_xdr_get_bool(&r, &b), 0);
	CU_ASSERT_EQUAL(b, true);
	CU_ASSERT_EQUAL(sst_xdr_get_bool(&r, &b), 0);
	CU_ASSERT_EQUAL(b, false);
	CU_ASSERT_EQUAL(r.pos, 8);

	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		in[0] = bad[k] >> 24;
		in[1] = bad[k] >> 16;
		in[2] = bad[k] >> 8;
		in[3] = bad[k];
		sst_xdr_reader_init(&r, in, sizeof(in));
		EXPECT_AT(sst_xdr_get_bool(&r, &b), -SST_EBADVALUE, k);
		EXPECT_AT(r.pos, 0, k);
	}
}

static void
test_get_fixed(void)
{
	/* n bytes of 0x5a then zero padding, for n = 0..5. */
	for (size_t n = 0; n <= 5; n++) {
		size_t padded = (n + 3) & ~(size_t)3;
		uint8_t in[12];
		const uint8_t *p = NULL;
		struct sst_xdr_reader r;

		memset(in, 0, sizeof(in));
		memset(in, 0x5a, n);
		sst_xdr_reader_init(&r, in, padded);
		EXPECT_AT(sst_xdr_get_fixed(&r, n, &p), 0, n);
		EXPECT_AT(p == in, 1, n);
		EXPECT_AT(r.pos, padded, n);
		EXPECT_AT(sst_xdr_expect_end(&r), 0, n);

		for (size_t len = 0; len < padded; len++) {
			sst_xdr_reader_init(&r, in, len);
			EXPECT_AT(sst_xdr_get_fixed(&r, n, &p), -SST_ETRUNC, len);
			EXPECT_AT(r.pos, 0, len);
		}
		for (size_t k = n; k < padded; k++) {
			in[k] = 0x01;
			sst_xdr_reader_init(&r, in, padded);
			EXPECT_AT(sst_xdr_get_fixed(&r, n, &p), -SST_EBADPAD, k);
			EXPECT_AT(r.pos, 0, k);
			in[k] = 0x80;
			sst_xdr_reader_init(&r, in, padded);
			EXPECT_AT(sst_xdr_get_fixed(&r, n, &p), -SST_EBADPAD, k);
			in[k] = 0;
		}
	}
}

/* The expected encodings of opaque<> with 0..5 bytes of 0xa0, 0xa1, ... */
static const char *const opaque_hex[] = {
	"00000000",
	"00000001 a0000000",
	"00000002 a0a10000",
	"00000003 a0a1a200",
	"00000004 a0a1a2a3",
	"00000005 a0a1a2a3 a4000000",
};

static void
test_opaque_vectors(void)
{
	static const uint8_t data[5] = {0xa0, 0xa1, 0xa2, 0xa3, 0xa4};

	for (size_t n = 0; n <= 5; n++) {
		uint8_t want[16], out[16];
		size_t wlen = sst_test_hex(opaque_hex[n], want, sizeof(want));
		struct sst_xdr_writer w;
		struct sst_xdr_reader r;
		struct sst_bytes b = {NULL, 99};

		EXPECT_AT(sst_xdr_opaque_size(n), wlen, n);
		memset(out, 0xee, sizeof(out));
		sst_xdr_writer_init(&w, out, sizeof(out));
		EXPECT_AT(sst_xdr_put_opaque(&w, data, n), 0, n);
		EXPECT_AT(w.pos, wlen, n);
		EXPECT_AT(memcmp(out, want, wlen), 0, n);
		EXPECT_AT(out[wlen], 0xee, n);

		/* string<> has the same encoding. */
		memset(out, 0xee, sizeof(out));
		sst_xdr_writer_init(&w, out, sizeof(out));
		EXPECT_AT(sst_xdr_put_string(&w, (const char *)data, n), 0, n);
		EXPECT_AT(w.pos, wlen, n);
		EXPECT_AT(memcmp(out, want, wlen), 0, n);

		sst_xdr_reader_init(&r, want, wlen);
		EXPECT_AT(sst_xdr_get_opaque(&r, (uint32_t)n, &b), 0, n);
		EXPECT_AT(b.len, n, n);
		EXPECT_AT(b.ptr == want + 4, 1, n);
		EXPECT_AT(r.pos, wlen, n);
		EXPECT_AT(memcmp(b.ptr, data, n), 0, n);

		sst_xdr_reader_init(&r, want, wlen);
		EXPECT_AT(sst_xdr_get_string(&r, 1024, &b), 0, n);
		EXPECT_AT(b.len, n, n);
		EXPECT_AT(r.pos, wlen, n);
	}
}

static void
test_opaque_truncated(void)
{
	for (size_t n = 0; n <= 5; n++) {
		uint8_t in[16];
		size_t len = sst_test_hex(opaque_hex[n], in, sizeof(in));
		struct sst_bytes b = {NULL, 77};
		struct sst_xdr_reader r;

		for (size_t cut = 0; cut < len; cut++) {
			sst_xdr_reader_init(&r, in, cut);
			EXPECT_AT(sst_xdr_get_opaque(&r, 1024, &b), -SST_ETRUNC, cut);
			EXPECT_AT(r.pos, 0, cut);
			sst_xdr_reader_init(&r, in, cut);
			EXPECT_AT(sst_xdr_get_string(&r, 1024, &b), -SST_ETRUNC, cut);
			EXPECT_AT(r.pos, 0, cut);
		}
		CU_ASSERT_EQUAL(b.len, 77);
		CU_ASSERT_PTR_NULL(b.ptr);
	}
}

static void
test_opaque_bad_padding(void)
{
	for (size_t n = 1; n <= 5; n++) {
		uint8_t in[16];
		size_t len = sst_test_hex(opaque_hex[n], in, sizeof(in));
		struct sst_bytes b;
		struct sst_xdr_reader r;

		for (size_t k = 4 + n; k < len; k++) {
			for (unsigned int bit = 0; bit < 8; bit++) {
				in[k] = (uint8_t)(1u << bit);
				sst_xdr_reader_init(&r, in, len);
				EXPECT_AT(sst_xdr_get_opaque(&r, 1024, &b), -SST_EBADPAD, k);
				EXPECT_AT(r.pos, 0, k);
				sst_xdr_reader_init(&r, in, len);
				EXPECT_AT(sst_xdr_get_string(&r, 1024, &b), -SST_EBADPAD, k);
			}
			in[k] = 0;
		}
	}
}

static void
test_opaque_bounds(void)
{
	uint8_t in[12] = {0, 0, 0, 5, 'a', 'b', 'c', 'd', 'e', 0, 0, 0};
	uint8_t huge[4] = {0xff, 0xff, 0xff, 0xff};
	struct sst_bytes b;
	struct sst_xdr_reader r;

	/* The bound is inclusive. */
	sst_xdr_reader_init(&r, in, sizeof(in));
	CU_ASSERT_EQUAL(sst_xdr_get_opaque(&r, 5, &b), 0);
	for (uint32_t max = 0; max < 5; max++) {
		sst_xdr_reader_init(&r, in, sizeof(in));
		EXPECT_AT(sst_xdr_get_opaque(&r, max, &b), -SST_ETOOLONG, max);
		EXPECT_AT(r.pos, 0, max);
		sst_xdr_reader_init(&r, in, sizeof(in));
		EXPECT_AT(sst_xdr_get_string(&r, max, &b), -SST_ETOOLONG, max);
	}
	/* A length above the bound is refused before the missing body is
	 * noticed; one within the bound is merely truncated. */
	sst_xdr_reader_init(&r, huge, sizeof(huge));
	CU_ASSERT_EQUAL(sst_xdr_get_opaque(&r, 1024, &b), -SST_ETOOLONG);
	sst_xdr_reader_init(&r, huge, sizeof(huge));
	CU_ASSERT_EQUAL(sst_xdr_get_opaque(&r, UINT32_MAX, &b), -SST_ETRUNC);
	CU_ASSERT_EQUAL(r.pos, 0);
	sst_xdr_reader_init(&r, huge, sizeof(huge));
	CU_ASSERT_EQUAL(sst_xdr_get_string(&r, UINT32_MAX - 1, &b), -SST_ETOOLONG);
	/* Lengths whose padding would wrap a 32-bit length are just truncated. */
	huge[3] = 0xfd;
	sst_xdr_reader_init(&r, huge, sizeof(huge));
	CU_ASSERT_EQUAL(sst_xdr_get_opaque(&r, UINT32_MAX, &b), -SST_ETRUNC);
}

static void
test_string_nul(void)
{
	uint8_t in[12] = {0, 0, 0, 7, 'i', 'n', 't', 'e', 'r', 'o', 'p', 0};
	struct sst_bytes b;
	struct sst_xdr_reader r;

	sst_xdr_reader_init(&r, in, sizeof(in));
	CU_ASSERT_EQUAL(sst_xdr_get_string(&r, 7, &b), 0);
	CU_ASSERT_EQUAL(b.len, 7);
	CU_ASSERT_EQUAL(memcmp(b.ptr, "interop", 7), 0);
	CU_ASSERT_EQUAL(sst_xdr_expect_end(&r), 0);
	for (size_t k = 4; k < 11; k++) {
		uint8_t save = in[k];

		in[k] = 0;
		sst_xdr_reader_init(&r, in, sizeof(in));
		EXPECT_AT(sst_xdr_get_string(&r, 7, &b), -SST_EBADVALUE, k);
		EXPECT_AT(r.pos, 0, k);
		/* opaque<> allows NUL. */
		sst_xdr_reader_init(&r, in, sizeof(in));
		EXPECT_AT(sst_xdr_get_opaque(&r, 7, &b), 0, k);
		in[k] = save;
	}
}

static void
test_expect_end(void)
{
	static const uint8_t in[9] = {0};
	struct sst_xdr_reader r;
	uint32_t u;

	sst_xdr_reader_init(&r, in, 0);
	CU_ASSERT_EQUAL(sst_xdr_expect_end(&r), 0);
	for (size_t len = 1; len <= 9; len++) {
		sst_xdr_reader_init(&r, in, len);
		EXPECT_AT(sst_xdr_expect_end(&r), -SST_ETRAILING, len);
	}
	sst_xdr_reader_init(&r, in, 5);
	CU_ASSERT_EQUAL(sst_xdr_get_u32(&r, &u), 0);
	CU_ASSERT_EQUAL(sst_xdr_expect_end(&r), -SST_ETRAILING);
	sst_xdr_reader_init(&r, in, 8);
	CU_ASSERT_EQUAL(sst_xdr_get_u32(&r, &u), 0);
	CU_ASSERT_EQUAL(sst_xdr_get_u32(&r, &u), 0);
	CU_ASSERT_EQUAL(sst_xdr_expect_end(&r), 0);
}

static void
test_put_ints(void)
{
	uint8_t want[28], out[32];
	size_t wlen = sst_test_hex("00000101 fffffffe 80000000 7fffffff 0123456789abcdef ffffffff",
		want, sizeof(want));
	struct sst_xdr_writer w;

	memset(out, 0xee, sizeof(out));
	sst_xdr_writer_init(&w, out, sizeof(out));
	CU_ASSERT_EQUAL(sst_xdr_put_u32(&w, 0x101), 0);
	CU_ASSERT_EQUAL(sst_xdr_put_i32(&w, -2), 0);
	CU_ASSERT_EQUAL(sst_xdr_put_i32(&w, INT32_MIN), 0);
	CU_ASSERT_EQUAL(sst_xdr_put_i32(&w, INT32_MAX), 0);
	CU_ASSERT_EQUAL(sst_xdr_put_u64(&w, UINT64_C(0x0123456789abcdef)), 0);
	CU_ASSERT_EQUAL(sst_xdr_put_u32(&w, UINT32_MAX), 0);
	CU_ASSERT_EQUAL(w.pos, wlen);
	CU_ASSERT_EQUAL(memcmp(out, want, wlen), 0);
	CU_ASSERT_EQUAL(out[wlen], 0xee);
}

static void
test_put_nospace(void)
{
	static const uint8_t data[5] = {1, 2, 3, 4, 5};
	uint8_t out[16];
	struct sst_xdr_writer w;

	for (size_t cap = 0; cap < 8; cap++) {
		memset(out, 0xee, sizeof(out));
		sst_xdr_writer_init(&w, out, cap);
		if (cap < 4) {
			EXPECT_AT(sst_xdr_put_u32(&w, 1), -ENOSPC, cap);
			EXPECT_AT(sst_xdr_put_i32(&w, -1), -ENOSPC, cap);
			EXPECT_AT(sst_xdr_put_opaque(&w, data, 0), -ENOSPC, cap);
			EXPECT_AT(sst_xdr_put_fixed(&w, data, 1), -ENOSPC, cap);
		}
		EXPECT_AT(sst_xdr_put_u64(&w, 1), -ENOSPC, cap);
		EXPECT_AT(sst_xdr_put_fixed(&w, data, 5), -ENOSPC, cap);
		EXPECT_AT(w.pos, 0, cap);
		for (size_t k = 0; k < sizeof(out); k++)
			EXPECT_AT(out[k], 0xee, k);
	}
	/* opaque<n> needs 4 + padded n bytes; anything less writes nothing,
	 * not even the length word. */
	for (size_t n = 0; n <= 5; n++) {
		for (size_t cap = 0; cap < sst_xdr_opaque_size(n); cap++) {
			memset(out, 0xee, sizeof(out));
			sst_xdr_writer_init(&w, out, cap);
			EXPECT_AT(sst_xdr_put_opaque(&w, data, n), -ENOSPC, cap);
			EXPECT_AT(sst_xdr_put_string(&w, (const char *)data, n), -ENOSPC, cap);
			EXPECT_AT(w.pos, 0, cap);
			EXPECT_AT(out[0], 0xee, cap);
			EXPECT_AT(out[3], 0xee, cap);
		}
		sst_xdr_writer_init(&w, out, sst_xdr_opaque_size(n));
		EXPECT_AT(sst_xdr_put_opaque(&w, data, n), 0, n);
	}
	/* A partly filled writer only has the rest of its room. */
	sst_xdr_writer_init(&w, out, 10);
	CU_ASSERT_EQUAL(sst_xdr_put_u32(&w, 1), 0);
	CU_ASSERT_EQUAL(sst_xdr_put_u64(&w, 1), -ENOSPC);
	CU_ASSERT_EQUAL(sst_xdr_put_opaque(&w, data, 1), -ENOSPC);
	CU_ASSERT_EQUAL(sst_xdr_put_fixed(&w, data, 3), 0);
	CU_ASSERT_EQUAL(w.pos, 8);
	CU_ASSERT_EQUAL(sst_xdr_put_fixed(&w, data, 1), -ENOSPC);
	CU_ASSERT_EQUAL(sst_xdr_put_fixed(&w, NULL, 0), 0);
	CU_ASSERT_EQUAL(w.pos, 8);
}

static void
test_put_fixed(void)
{
	static const uint8_t data[5] = {0xa0, 0xa1, 0xa2, 0xa3, 0xa4};

	for (size_t n = 0; n <= 5; n++) {
		uint8_t want[16], out[16];
		size_t wlen = sst_test_hex(opaque_hex[n], want, sizeof(want));
		struct sst_xdr_writer w;

		/* Fixed opaque is opaque<> without the length word; the
		 * padding is written even over a dirty buffer. */
		memset(out, 0xee, sizeof(out));
		sst_xdr_writer_init(&w, out, sizeof(out));
		EXPECT_AT(sst_xdr_put_fixed(&w, data, n), 0, n);
		EXPECT_AT(w.pos, wlen - 4, n);
		EXPECT_AT(memcmp(out, want + 4, wlen - 4), 0, n);
		EXPECT_AT(out[wlen - 4], 0xee, n);
	}
}

static void
test_put_opaque_too_long(void)
{
	uint8_t out[8];
	struct sst_xdr_writer w;

	if (SIZE_MAX <= UINT32_MAX)
		return;
	/* The length is checked before anything is read or written. */
	memset(out, 0xee, sizeof(out));
	sst_xdr_writer_init(&w, out, sizeof(out));
	CU_ASSERT_EQUAL(sst_xdr_put_opaque(&w, out, (size_t)UINT32_MAX + 1), -EINVAL);
	CU_ASSERT_EQUAL(sst_xdr_put_string(&w, (const char *)out, SIZE_MAX), -EINVAL);
	CU_ASSERT_EQUAL(w.pos, 0);
	CU_ASSERT_EQUAL(out[0], 0xee);
	/* UINT32_MAX itself is a valid length that just does not fit. */
	CU_ASSERT_EQUAL(sst_xdr_put_opaque(&w, out, UINT32_MAX), -ENOSPC);
}

/* A mixed sequence of items written and read back. */
static void
test_round_trip(void)
{
	static const char *const names[] = {"", "a", "ab", "abc", "abcd", "abcde", "service"};
	uint8_t buf[256];
	struct sst_xdr_writer w;
	struct sst_xdr_reader r;
	uint32_t u;
	int32_t i;
	uint64_t h;
	bool b;
	const uint8_t *p;
	struct sst_bytes s;

	sst_xdr_writer_init(&w, buf, sizeof(buf));
	for (size_t k = 0; k < 7; k++) {
		CU_ASSERT_EQUAL(sst_xdr_put_u32(&w, (uint32_t)k * 0x01010101u), 0);
		CU_ASSERT_EQUAL(sst_xdr_put_string(&w, names[k], strlen(names[k])), 0);
		CU_ASSERT_EQUAL(sst_xdr_put_i32(&w, -(int32_t)k), 0);
		CU_ASSERT_EQUAL(sst_xdr_put_u64(&w, UINT64_MAX - k), 0);
		CU_ASSERT_EQUAL(sst_xdr_put_fixed(&w, names[k], strlen(names[k])), 0);
		CU_ASSERT_EQUAL(sst_xdr_put_u32(&w, k & 1), 0);
		CU_ASSERT_EQUAL(w.pos % 4, 0);
	}
	sst_xdr_reader_init(&r, buf, w.pos);
	for (size_t k = 0; k < 7; k++) {
		size_t n = strlen(names[k]);

		EXPECT_AT(sst_xdr_get_u32(&r, &u), 0, k);
		EXPECT_AT(u, (uint32_t)k * 0x01010101u, k);
		EXPECT_AT(sst_xdr_get_string(&r, (uint32_t)n, &s), 0, k);
		EXPECT_AT(s.len, n, k);
		EXPECT_AT(memcmp(s.ptr, names[k], n), 0, k);
		EXPECT_AT(sst_xdr_get_i32(&r, &i), 0, k);
		EXPECT_AT(i, -(int32_t)k, k);
		EXPECT_AT(sst_xdr_get_u64(&r, &h), 0, k);
		EXPECT_AT(h == UINT64_MAX - k, 1, k);
		EXPECT_AT(sst_xdr_get_fixed(&r, n, &p), 0, k);
		EXPECT_AT(memcmp(p, names[k], n), 0, k);
		EXPECT_AT(sst_xdr_get_bool(&r, &b), 0, k);
		EXPECT_AT(b, (k & 1) != 0, k);
	}
	CU_ASSERT_EQUAL(sst_xdr_expect_end(&r), 0);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_get_ints),
	SST_TEST(test_get_ints_truncated),
	SST_TEST(test_get_bool),
	SST_TEST(test_get_fixed),
	SST_TEST(test_opaque_vectors),
	SST_TEST(test_opaque_truncated),
	SST_TEST(test_opaque_bad_padding),
	SST_TEST(test_opaque_bounds),
	SST_TEST(test_string_nul),
	SST_TEST(test_expect_end),
	SST_TEST(test_put_ints),
	SST_TEST(test_put_nospace),
	SST_TEST(test_put_fixed),
	SST_TEST(test_put_opaque_too_long),
	SST_TEST(test_round_trip),
	SST_TEST_END,
};

SST_TEST_MAIN("xdr", cases)
