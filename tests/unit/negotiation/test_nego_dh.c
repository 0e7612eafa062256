/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the decoders of the prototype's DH/JFK chunks
 * (lib/negotiation/nego_wire.c) on the four negotiation messages of vector
 * aes-10 (DhI1 192 B, DhR1 252 B, DhI2 728 B, DhR2 404 B): every field, the
 * consistency between the messages, every truncation of the messages and the
 * bodies, trailing bytes, each length bound and padding.
 */
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

static const char dhi1_msg[] = "0053535400000001000000b40000002100000001000000104a49be05b91ec29b"
			       "c1aff3698747aa3dbf0886362d7e2e0fe079e2df17ed93ea000000802ed9dacd"
			       "571c00c88a4e99fbf8cf04581443f56119f41ca064e8331a7adfdc1d1c3b1183"
			       "c11a18ee4ca119afaa5eaab5f72dfb07c88aee4edb585c17baf41687360f6ff2"
			       "47a933df8918de3a68c8a4c15fe1e8ace6cecc2d034504febbf68247fa4d8692"
			       "9f650cf4f769dbead8bd72d71adda8abceaff3158d28068d8b35036b00000000";

static const char dhr1_msg[] = "0053535400000001000000f00000002200000001000000104a49be05b91ec29b"
			       "c1aff3698747aa3dbf0886362d7e2e0fe079e2df17ed93ea906ee6b916591c97"
			       "b0832c71d0ca9ade91f0aaa732fa372920491d9c2e8df9ae0000008080622c95"
			       "a7a65b7053a00b76848f76267bed45895235bcfff3f318b7721664c8b2d9d1cc"
			       "ae3345a3bd0445ecd66b81b3dc762cc6e220e62ffc0970303a3e2d30cf7ac418"
			       "8875be2430a8f36c5dfaaf5247d96bd43e092822dcec1093e7989e721dbefcea"
			       "d3e28f2230db921e320e19313c0f35c30253b8c6e7d46bdf4bb3417900000010"
			       "d14759bde7f1a7b010dfa74659f23d93000000000000000000000000";

static const char dhi2_msg[] = "0053535400000001000002cc000000230000000100000010dd945105094906bf"
			       "e1178d36d2253d6a1d8e2fcd1af50d50b86a4c049eb070df906ee6b916591c97"
			       "b0832c71d0ca9ade91f0aaa732fa372920491d9c2e8df9ae000000802ed9dacd"
			       "571c00c88a4e99fbf8cf04581443f56119f41ca064e8331a7adfdc1d1c3b1183"
			       "c11a18ee4ca119afaa5eaab5f72dfb07c88aee4edb585c17baf41687360f6ff2"
			       "47a933df8918de3a68c8a4c15fe1e8ace6cecc2d034504febbf68247fa4d8692"
			       "9f650cf4f769dbead8bd72d71adda8abceaff3158d28068d8b35036b00000080"
			       "80622c95a7a65b7053a00b76848f76267bed45895235bcfff3f318b7721664c8"
			       "b2d9d1ccae3345a3bd0445ecd66b81b3dc762cc6e220e62ffc0970303a3e2d30"
			       "cf7ac4188875be2430a8f36c5dfaaf5247d96bd43e092822dcec1093e7989e72"
			       "1dbefcead3e28f2230db921e320e19313c0f35c30253b8c6e7d46bdf4bb34179"
			       "00000010d14759bde7f1a7b010dfa74659f23d930000016034f09ed4e958b689"
			       "32af677db362a3402b7786efe0767cd36bd92f9181d3a36ff98cde5c3bae26ab"
			       "bc23a6d6ea450ddb32472ff93b78994f2cedf15ae0c21b7f2411530bf9a71a86"
			       "177524463c8391042574ecf5451d1decb87ecdd35b21173a77c7ce777eb6839d"
			       "6a4abe05e458a7d5205b5ebca8a339ef224c887a5b9fafece9d18e3dda6eafd6"
			       "d0e1cf5897e94721c849ea5ad1080edcc4b1d9867a65996f89bb99799db24994"
			       "9d952e86a249e6a553b4085d0ffd5efbffd91c3f119d606bfd2f14844e22fe6b"
			       "6788488a7cb19dc116dd07d5511d4c0dfff3ab150e613ac73d04cc6f398649f4"
			       "a35166f364d18ab862171db49908d0d215c7e1c7d69f6d8c3671bc11de6e1a21"
			       "e81ecd5216e4051454186885eee52e2fef11abb8d9b4ed901263faabb3d458af"
			       "45d530259bab3f2906bbc87cedb515178ebc2fe0e974b3e5639b199f87d09fa3"
			       "e42e0f83a1f0d29f75f3434bb947a0414681e0abd4ffecd0";

static const char dhr2_msg[] = "005353540000000100000188000000244a49be05b91ec29bc1aff3698747aa3d"
			       "bf0886362d7e2e0fe079e2df17ed93ea0000016092efe5519e8ff48ef6f01f3b"
			       "a69578414fbb70831b49129ea7800a60f202d301a82cae43b7a617915856b7b0"
			       "18b871655370793bf141cda0eb216a3c17635d3ae4e0830764f3edd9944ba18b"
			       "6f7aa080158030ce5610f7dbef19d1af931ccca6827e732cb9ee7c7a91fd2d7e"
			       "d5494f1b840245117a575a37039ad5795a2e4a3a26743b92d9bc4dc9df9b7a8a"
			       "c61e5f087f617b2e196eba9e362df2dde11e0c954d4376b6e3f9763c202eb84b"
			       "95b7dbc615f1f8180087e077426b687fd8d888a35dce0b9f2284f1d394fdf946"
			       "8921093e54b69471cd55ad57dc20eb0547fcc9c67fed7db05455919148ef1720"
			       "15d235c2f9a51ca62ae9eba19fe538313a1aebb5614a7a4f27abe648a8a0e7e2"
			       "012a6bc3d55c56637f8c0082fa38c0f73cf9ba89d42973a490cb9897dae593c5"
			       "dc8c98e3d9949ff1c4e15ec796af83297fb338dd51aad3d8a5c5018ca67194d4"
			       "4d9cf49e215298c90bcf3558710920c512d8a785";
enum { DHI1, DHR1, DHI2, DHR2, NMSG };

static const struct {
	const char *hex;
	size_t len;
	int32_t type;
} msgs[NMSG] = {
	[DHI1] = {dhi1_msg, 192, SST_NEGO_DHI1},
	[DHR1] = {dhr1_msg, 252, SST_NEGO_DHR1},
	[DHI2] = {dhi2_msg, 728, SST_NEGO_DHI2},
	[DHR2] = {dhr2_msg, 404, SST_NEGO_DHR2},
};

/* Each message, followed by spare zero bytes for the trailing tests. */
static uint8_t msg_buf[NMSG][728 + 16];

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Load message k and return its only chunk's body. */
static struct sst_bytes
load(int k)
{
	struct sst_nego_msg m;
	struct sst_nego_iter it;
	struct sst_nego_chunk c = {0, {NULL, 0}};

	memset(msg_buf[k], 0, sizeof(msg_buf[k]));
	CU_ASSERT_EQUAL_FATAL(
		sst_test_hex(msgs[k].hex, msg_buf[k], sizeof(msg_buf[k])), msgs[k].len);
	CU_ASSERT_EQUAL_FATAL(sst_nego_msg_parse(msg_buf[k], msgs[k].len, &m), 0);
	CU_ASSERT_EQUAL(m.nchunks, 1);
	sst_nego_iter_init(&it, &m);
	CU_ASSERT_EQUAL_FATAL(sst_nego_iter_next(&it, &c), 1);
	CU_ASSERT_EQUAL(c.type, msgs[k].type);
	CU_ASSERT_PTR_EQUAL(c.body.ptr, msg_buf[k] + 16);
	CU_ASSERT_EQUAL(c.body.len, msgs[k].len - 16);
	CU_ASSERT_EQUAL(sst_nego_iter_next(&it, &c), 0);
	return (struct sst_bytes){msg_buf[k] + 16, (uint32_t)msgs[k].len - 16};
}

/* Decode body with the decoder of message k. */
static int
decode(int k, const struct sst_bytes *body)
{
	struct sst_nego_dhi1 i1;
	struct sst_nego_dhr1 r1;
	struct sst_nego_dhi2 i2;
	struct sst_nego_dhr2 r2;

	switch (k) {
	case DHI1:
		return sst_nego_dhi1_decode(body, &i1);
	case DHR1:
		return sst_nego_dhr1_decode(body, &r1);
	case DHI2:
		return sst_nego_dhi2_decode(body, &i2);
	default:
		return sst_nego_dhr2_decode(body, &r2);
	}
}

/* First and last four bytes of a field. */
static int
ends(const uint8_t *p, size_t len, uint32_t first, uint32_t last)
{
	return be32(p) == first && be32(p + len - 4) == last;
}

static void
test_dhi1(void)
{
	struct sst_bytes body = load(DHI1);
	struct sst_nego_dhi1 m;

	CU_ASSERT_EQUAL_FATAL(sst_nego_dhi1_decode(&body, &m), 0);
	CU_ASSERT_EQUAL(m.group, 1);
	CU_ASSERT_EQUAL(m.keymin, 16);
	CU_ASSERT_PTR_EQUAL(m.nhi, body.ptr + 8);
	CU_ASSERT(ends(m.nhi, 32, 0x4a49be05, 0x17ed93ea));
	CU_ASSERT_EQUAL(m.dhi.len, 128);
	CU_ASSERT_PTR_EQUAL(m.dhi.ptr, body.ptr + 44);
	CU_ASSERT(ends(m.dhi.ptr, 128, 0x2ed9dacd, 0x8b35036b));
	CU_ASSERT_EQUAL(m.eidr.len, 0);
}

static void
test_dhr1(void)
{
	struct sst_bytes body = load(DHR1);
	struct sst_nego_dhr1 m;

	CU_ASSERT_EQUAL_FATAL(sst_nego_dhr1_decode(&body, &m), 0);
	CU_ASSERT_EQUAL(m.group, 1);
	CU_ASSERT_EQUAL(m.keylen, 16);
	CU_ASSERT(ends(m.nhi, 32, 0x4a49be05, 0x17ed93ea));
	CU_ASSERT_PTR_EQUAL(m.nr, body.ptr + 40);
	CU_ASSERT(ends(m.nr, 32, 0x906ee6b9, 0x2e8df9ae));
	CU_ASSERT_EQUAL(m.dhr.len, 128);
	CU_ASSERT(ends(m.dhr.ptr, 128, 0x80622c95, 0x4bb34179));
	CU_ASSERT_EQUAL(m.hhkr.len, 16);
	CU_ASSERT(ends(m.hhkr.ptr, 16, 0xd14759bd, 0x59f23d93));
	CU_ASSERT_EQUAL(m.eidr.len, 0);
	CU_ASSERT_EQUAL(m.pkr.len, 0);
	CU_ASSERT_EQUAL(m.sr.len, 0);
}

static void
test_dhi2(void)
{
	struct sst_bytes body = load(DHI2);
	struct sst_nego_dhi2 m;

	CU_ASSERT_EQUAL_FATAL(sst_nego_dhi2_decode(&body, &m), 0);
	CU_ASSERT_EQUAL(m.group, 1);
	CU_ASSERT_EQUAL(m.keylen, 16);
	CU_ASSERT(ends(m.ni, 32, 0xdd945105, 0x9eb070df));
	CU_ASSERT(ends(m.nr, 32, 0x906ee6b9, 0x2e8df9ae));
	CU_ASSERT_EQUAL(m.dhi.len, 128);
	CU_ASSERT(ends(m.dhi.ptr, 128, 0x2ed9dacd, 0x8b35036b));
	CU_ASSERT_EQUAL(m.dhr.len, 128);
	CU_ASSERT(ends(m.dhr.ptr, 128, 0x80622c95, 0x4bb34179));
	CU_ASSERT_EQUAL(m.hhkr.len, 16);
	CU_ASSERT(ends(m.hhkr.ptr, 16, 0xd14759bd, 0x59f23d93));
	CU_ASSERT_EQUAL(m.idi.len, 352);
	CU_ASSERT_PTR_EQUAL(m.idi.ptr, body.ptr + 360);
	CU_ASSERT(ends(m.idi.ptr, 352, 0x34f09ed4, 0xd4ffecd0));
}

static void
test_dhr2(void)
{
	struct sst_bytes body = load(DHR2);
	struct sst_nego_dhr2 m;

	CU_ASSERT_EQUAL_FATAL(sst_nego_dhr2_decode(&body, &m), 0);
	CU_ASSERT_PTR_EQUAL(m.nhi, body.ptr);
	CU_ASSERT(ends(m.nhi, 32, 0x4a49be05, 0x17ed93ea));
	CU_ASSERT_EQUAL(m.idr.len, 352);
	CU_ASSERT(ends(m.idr.ptr, 352, 0x92efe551, 0x12d8a785));
}

/* The JFK exchange repeats values: check that the decoders agree. */
static void
test_consistency(void)
{
	struct sst_bytes b1 = load(DHI1), b2 = load(DHR1), b3 = load(DHI2), b4 = load(DHR2);
	struct sst_nego_dhi1 i1;
	struct sst_nego_dhr1 r1;
	struct sst_nego_dhi2 i2;
	struct sst_nego_dhr2 r2;

	CU_ASSERT_EQUAL_FATAL(sst_nego_dhi1_decode(&b1, &i1), 0);
	CU_ASSERT_EQUAL_FATAL(sst_nego_dhr1_decode(&b2, &r1), 0);
	CU_ASSERT_EQUAL_FATAL(sst_nego_dhi2_decode(&b3, &i2), 0);
	CU_ASSERT_EQUAL_FATAL(sst_nego_dhr2_decode(&b4, &r2), 0);
	CU_ASSERT_EQUAL(memcmp(r1.nhi, i1.nhi, 32), 0);
	CU_ASSERT_EQUAL(memcmp(r2.nhi, i1.nhi, 32), 0);
	CU_ASSERT_EQUAL(memcmp(i2.nr, r1.nr, 32), 0);
	CU_ASSERT_EQUAL(memcmp(i2.dhi.ptr, i1.dhi.ptr, 128), 0);
	CU_ASSERT_EQUAL(memcmp(i2.dhr.ptr, r1.dhr.ptr, 128), 0);
	CU_ASSERT_EQUAL(memcmp(i2.hhkr.ptr, r1.hhkr.ptr, 16), 0);
	CU_ASSERT_EQUAL(r1.keylen, i1.keymin);
	CU_ASSERT_EQUAL(i2.group, i1.group);
}

static void
test_truncated(void)
{
	for (int k = 0; k < NMSG; k++) {
		struct sst_bytes body = load(k);
		struct sst_nego_msg m;

		for (uint32_t len = 0; len < body.len; len++) {
			struct sst_bytes cut = {body.ptr, len};

			EXPECT_AT(decode(k, &cut), -SST_ETRUNC, k * 1000 + len);
		}
		/* A single chunk: short header, short length word, short chunk. */
		for (size_t len = 0; len < msgs[k].len; len++)
			EXPECT_AT(sst_nego_msg_parse(msg_buf[k], len, &m),
				len < 12 ? -SST_ETRUNC : -SST_EBADLEN, k * 1000 + len);
	}
}

static void
test_trailing(void)
{
	for (int k = 0; k < NMSG; k++) {
		struct sst_bytes body = load(k);
		struct sst_nego_msg m;

		for (uint32_t extra = 1; extra <= 8; extra++) {
			struct sst_bytes more = {body.ptr, body.len + extra};

			EXPECT_AT(decode(k, &more), -SST_ETRAILING, k * 10 + extra);
			EXPECT_AT(sst_nego_msg_parse(msg_buf[k], msgs[k].len + extra, &m),
				-SST_ETRAILING, k * 10 + extra);
		}
	}
}

/* Each variable-length field at one over its bound, and at the bound. */
static void
test_bounds(void)
{
	static const struct {
		int msg;
		size_t off; /* of the length word, in the body */
		uint32_t max;
	} fields[] = {
		{DHI1, 40, SST_NEGO_DH_PUB_MAX},
		{DHI1, 172, SST_NEGO_DH_ID_MAX},
		{DHR1, 72, SST_NEGO_DH_PUB_MAX},
		{DHR1, 204, SST_NEGO_DH_ID_MAX},
		{DHR1, 224, SST_NEGO_DH_ID_MAX},
		{DHR1, 228, SST_NEGO_DH_BLOCK_MAX},
		{DHR1, 232, SST_NEGO_DH_BLOCK_MAX},
		{DHI2, 72, SST_NEGO_DH_PUB_MAX},
		{DHI2, 204, SST_NEGO_DH_PUB_MAX},
		{DHI2, 336, SST_NEGO_DH_ID_MAX},
		{DHI2, 356, SST_NEGO_DH_BLOCK_MAX},
		{DHR2, 32, SST_NEGO_DH_BLOCK_MAX},
	};

	static uint8_t big[728 + SST_NEGO_DH_BLOCK_MAX];

	CU_ASSERT_EQUAL(SST_NEGO_DH_PUB_MAX, 384);
	CU_ASSERT_EQUAL(SST_NEGO_DH_ID_MAX, 256);
	CU_ASSERT_EQUAL(SST_NEGO_DH_BLOCK_MAX, 4096);
	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
		struct sst_bytes body = load(fields[f].msg);
		size_t off = fields[f].off;
		uint8_t *p = msg_buf[fields[f].msg] + 16 + off;
		uint32_t orig = be32(p), max = fields[f].max;
		size_t rest = off + 4 + ((orig + 3) & ~3u); /* the field after it */
		struct sst_bytes grown;

		sst_put_be32(p, max + 1);
		EXPECT_AT(decode(fields[f].msg, &body), -SST_ETOOLONG, f);
		sst_put_be32(p, 0xffffffff);
		EXPECT_AT(decode(fields[f].msg, &body), -SST_ETOOLONG, f);
		sst_put_be32(p, orig);
		EXPECT_AT(decode(fields[f].msg, &body), 0, f);
		/* The same body with this field exactly at its bound. */
		memcpy(big, body.ptr, off);
		sst_put_be32(big + off, max);
		memset(big + off + 4, 0xab, max);
		memcpy(big + off + 4 + max, body.ptr + rest, body.len - rest);
		grown = (struct sst_bytes){big, (uint32_t)(body.len - rest + off + 4 + max)};
		EXPECT_AT(decode(fields[f].msg, &grown), 0, f);
		sst_put_be32(big + off, max + 1);
		EXPECT_AT(decode(fields[f].msg, &grown), -SST_ETOOLONG, f);
	}
}

/* Bodies built by hand with short opaques, to reach their padding. */
static void
test_padding(void)
{
	for (size_t n = 1; n <= 3; n++) {
		uint8_t body[128] = {0};
		struct sst_bytes b;
		struct sst_nego_dhr2 r2;
		struct sst_nego_dhi1 i1;

		/* DhR2: nhi[32], idr<> of n bytes. */
		memset(body, 0x5a, 32);
		sst_put_be32(body + 32, (uint32_t)n);
		memset(body + 36, 0x77, n);
		b = (struct sst_bytes){body, 40};
		EXPECT_AT(sst_nego_dhr2_decode(&b, &r2), 0, n);
		EXPECT_AT(r2.idr.len, n, n);
		for (size_t k = 36 + n; k < 40; k++) {
			body[k] = 0x01;
			EXPECT_AT(sst_nego_dhr2_decode(&b, &r2), -SST_EBADPAD, k);
			body[k] = 0;
		}
		/* DhI1: group, keymin, nhi[32], dhi<> of n bytes, eidr<> of n. */
		memset(body, 0, sizeof(body));
		sst_put_be32(body, 2);
		sst_put_be32(body + 4, 32);
		sst_put_be32(body + 40, (uint32_t)n);
		memset(body + 44, 0x11, n);
		sst_put_be32(body + 48, (uint32_t)n);
		memset(body + 52, 0x22, n);
		b = (struct sst_bytes){body, 56};
		EXPECT_AT(sst_nego_dhi1_decode(&b, &i1), 0, n);
		EXPECT_AT(i1.group, 2, n);
		EXPECT_AT(i1.keymin, 32, n);
		EXPECT_AT(i1.dhi.len + i1.eidr.len, 2 * n, n);
		for (size_t k = 44 + n; k < 48; k++) {
			body[k] = 0x80;
			EXPECT_AT(sst_nego_dhi1_decode(&b, &i1), -SST_EBADPAD, k);
			body[k + 8] = 0x80;
			EXPECT_AT(sst_nego_dhi1_decode(&b, &i1), -SST_EBADPAD, k);
			body[k] = 0;
			EXPECT_AT(sst_nego_dhi1_decode(&b, &i1), -SST_EBADPAD, k + 8);
			body[k + 8] = 0;
		}
	}
}

/* The checksum-mode decoders do not take DH chunks, nor the reverse. */
static void
test_wrong_decoder(void)
{
	struct sst_bytes b = load(DHR2);
	struct sst_nego_dhi1 i1;

	/* DhR2 body read as DhI1: group and keymin from the nonce, then a
	 * huge dhi length. */
	CU_ASSERT_EQUAL(sst_nego_dhi1_decode(&b, &i1), -SST_ETOOLONG);
	b = load(DHI1);
	CU_ASSERT_NOT_EQUAL(decode(DHR1, &b), 0);
	CU_ASSERT_NOT_EQUAL(decode(DHI2, &b), 0);
	CU_ASSERT_NOT_EQUAL(decode(DHR2, &b), 0);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_dhi1),
	SST_TEST(test_dhr1),
	SST_TEST(test_dhi2),
	SST_TEST(test_dhr2),
	SST_TEST(test_consistency),
	SST_TEST(test_truncated),
	SST_TEST(test_trailing),
	SST_TEST(test_bounds),
	SST_TEST(test_padding),
	SST_TEST(test_wrong_decoder),
	SST_TEST_END,
};

SST_TEST_MAIN("nego_dh", cases)
