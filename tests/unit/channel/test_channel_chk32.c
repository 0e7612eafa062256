/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of Chk32 (lib/channel/channel_chk32.c): the checksums and trailers
 * of real prototype packets (vectors chk-01, chk-02, chk-03, chk-07), small
 * hand-computed cases, a reference implementation written from the definition
 * (docs wire-format.md section 3, reducing after every word) for odd, even and
 * very long inputs, and seal/verify with every single-bit and single-byte
 * corruption.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

#define KEY_C UINT32_C(0xc21c5f62) /* chk-01 cki: key of C->S packets */
#define KEY_S UINT32_C(0x35d53d2a) /* chk-01 ckr: key of S->C packets */

/* The definition, word by word: a = (a + w) mod 65537, b = (b + a) mod 65537
 * over seq (8 bytes BE), the packet, 0x80 and a 0x00 if needed. */
static void
ref_word(uint32_t *a, uint32_t *b, uint32_t w)
{
	*a = (*a + w) % 65537;
	*b = (*b + *a) % 65537;
}

static uint32_t
ref_chk32(uint64_t seq, const uint8_t *p, size_t len)
{
	uint32_t a = 0, b = 0;
	size_t i;

	for (int k = 0; k < 4; k++)
		ref_word(&a, &b, (uint32_t)(seq >> (48 - 16 * k)) & 0xffff);
	for (i = 0; i + 1 < len; i += 2)
		ref_word(&a, &b, (uint32_t)p[i] << 8 | p[i + 1]);
	ref_word(&a, &b, i < len ? (uint32_t)p[i] << 8 | 0x80 : 0x8000);
	return (a & 0xffff) | (b & 0xffff) << 16;
}

/* Whole UDP payloads (trailer included) of captured channel packets. */
static const struct {
	const char *hex;
	uint64_t seq;
	uint32_t key;
	uint32_t chk;
} packets[] = {
	/* chk-01 #3 .. #8 */
	{"010000010000000000011610000000000000010100000007696e7465726f7000000000046563686f"
	 "debe8592",
		1, KEY_C, 0x1ca22630},
	{"0100000200000000000114100000001848656c6c6f2066726f6d207468652053535420323030372070"
	 "726f746f7479706520696e7465726f7020636c69656e7421592b3d6a",
		2, KEY_C, 0x970ede08},
	{"010000010100000100012610000100000000020100000000068ce740", 1, KEY_S, 0xd0b7aa16},
	{"0100000201000001000124100001000848656c6c6f2066726f6d207468652053535420323030372070"
	 "726f746f7479706520696e7465726f7020636c69656e7421aa7b2c24",
		2, KEY_S, 0x74a5eefa},
	{"010000030200000200015010f371327b", 3, KEY_C, 0x3154d319},
	{"0100000303000003000150106c2e1144", 3, KEY_S, 0x3658d41a},
	/* chk-02 #5 and #10: zero-length Push|Close segments */
	{"010000070300000300023510000000163522189b", 7, KEY_C, 0x7305b939},
	{"010000070600000600022510000200167df2e968", 7, KEY_S, 0x481dac3e},
	/* chk-07 #242 (S->C, ckr 3cd3d422) and #243 (C->S, cki 33c269b4):
	 * Attach on channel 2 */
	{"020000010000000000017010000000000000000100000008d974d4aeab1d6a8d88588a07", 1, 0x3cd3d422,
		0x4b84b5e5},
	{"020000010000000000017010000000000000000100000008d974d4aeab1d6a8d7f471f99", 1, 0x33c269b4,
		0x4b84b5e5},
};

#define NPKT (sizeof(packets) / sizeof(packets[0]))

static size_t
load_packet(size_t i, uint8_t *buf, size_t cap)
{
	return sst_test_hex(packets[i].hex, buf, cap);
}

static uint32_t
load_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void
test_worked_examples(void)
{
	uint8_t pkt[128];
	size_t n;

	/* README: chk-01 packet 3, Chk32 1ca22630 + cki c21c5f62 = debe8592. */
	n = load_packet(0, pkt, sizeof(pkt));
	CU_ASSERT_EQUAL_FATAL(n, 44);
	CU_ASSERT_EQUAL(sst_chk32(1, pkt, 40), 0x1ca22630);
	CU_ASSERT_EQUAL(sst_chk32_trailer(1, pkt, 40, KEY_C), 0xdebe8592);
	CU_ASSERT_EQUAL(sst_chk32_verify(1, pkt, 44, KEY_C), 0);
	/* Packet 5: d0b7aa16 + ckr 35d53d2a = 068ce740. */
	n = load_packet(2, pkt, sizeof(pkt));
	CU_ASSERT_EQUAL_FATAL(n, 28);
	CU_ASSERT_EQUAL(sst_chk32(1, pkt, 24), 0xd0b7aa16);
	CU_ASSERT_EQUAL(sst_chk32_trailer(1, pkt, 24, KEY_S), 0x068ce740);
	CU_ASSERT_EQUAL(sst_chk32_verify(1, pkt, 28, KEY_S), 0);
}

static void
test_captured_packets(void)
{
	for (size_t i = 0; i < NPKT; i++) {
		uint8_t pkt[128], out[128];
		size_t n = load_packet(i, pkt, sizeof(pkt));
		size_t body = n - 4;

		EXPECT_AT(sst_chk32(packets[i].seq, pkt, body), packets[i].chk, i);
		EXPECT_AT(ref_chk32(packets[i].seq, pkt, body), packets[i].chk, i);
		EXPECT_AT(load_be32(pkt + body), (uint32_t)(packets[i].chk + packets[i].key), i);
		EXPECT_AT(sst_chk32_verify(packets[i].seq, pkt, n, packets[i].key), 0, i);
		/* The wrong sequence number or the other side's key fails. */
		EXPECT_AT(sst_chk32_verify(packets[i].seq + 1, pkt, n, packets[i].key),
			-SST_EBADAUTH, i);
		EXPECT_AT(sst_chk32_verify(
				  packets[i].seq + (UINT64_C(1) << 24), pkt, n, packets[i].key),
			-SST_EBADAUTH, i);
		EXPECT_AT(sst_chk32_verify(packets[i].seq, pkt, n, packets[i].key ^ 1),
			-SST_EBADAUTH, i);
		/* Sealing the body reproduces the captured trailer. */
		memcpy(out, pkt, body);
		EXPECT_AT(sst_chk32_seal(packets[i].seq, out, body, n, packets[i].key), (int)n, i);
		EXPECT_AT(memcmp(out, pkt, n), 0, i);
	}
}

/* chk-03: a 1000-byte Datagram each way; the payload is the README's
 * generator with seed 0xd6d6. */
static void
test_captured_datagram(void)
{
	static const struct {
		const char *hdr;
		uint64_t seq;
		uint32_t key, chk, trailer;
	} dg[] = {
		{"0100000c 0a00000a 00014310", 12, KEY_C, 0xf68055f7, 0xb89cb559},
		{"0100000b 0b00000b 00014310", 11, KEY_S, 0xed8056f6, 0x23559420},
	};
	static const uint8_t head[] = {0x54, 0xdc, 0xdf, 0x0b, 0xdf, 0xda, 0xa6, 0x1b};
	uint8_t pkt[1016];

	for (size_t k = 0; k < 2; k++) {
		uint32_t x = 0xd6d6;

		CU_ASSERT_EQUAL_FATAL(sst_test_hex(dg[k].hdr, pkt, sizeof(pkt)), 12);
		for (size_t i = 0; i < 1000; i++) {
			x = x * 1103515245u + 12345u;
			pkt[12 + i] = (uint8_t)(x >> 16);
		}
		/* First payload bytes as captured. */
		CU_ASSERT_EQUAL(memcmp(pkt + 12, head, sizeof(head)), 0);
		EXPECT_AT(sst_chk32(dg[k].seq, pkt, 1012), dg[k].chk, k);
		EXPECT_AT(sst_chk32_seal(dg[k].seq, pkt, 1012, sizeof(pkt), dg[k].key), 1016, k);
		EXPECT_AT(load_be32(pkt + 1012), dg[k].trailer, k);
		EXPECT_AT(sst_chk32_verify(dg[k].seq, pkt, 1016, dg[k].key), 0, k);
	}
}

static void
test_hand_computed(void)
{
	static const uint8_t one[] = {0x01}, two[] = {0x01, 0x02}, ff[] = {0xff, 0xff};
	static const uint8_t s7f[] = {0x7f, 0xff};

	/* Empty packet: the words are the sequence number and 0x8000. */
	CU_ASSERT_EQUAL(sst_chk32(0, one, 0), 0x80008000);
	CU_ASSERT_EQUAL(sst_chk32(1, one, 0), 0x80028001);
	/* Odd length: 0x80 completes the last word (0x0180). */
	CU_ASSERT_EQUAL(sst_chk32(0, one, 1), 0x01800180);
	/* Even length: a word 0x8000 of its own. */
	CU_ASSERT_EQUAL(sst_chk32(0, two, 2), 0x82048102);
	/* Reduction modulo 65537 at every step. */
	CU_ASSERT_EQUAL(sst_chk32(UINT64_MAX, ff, 2), 0x7fd87ff6);
	/* a ends at 65536, which has 0 as its low 16 bits. */
	CU_ASSERT_EQUAL(sst_chk32(1, s7f, 2), 0x80000000);
	/* The key is added modulo 2^32. */
	CU_ASSERT_EQUAL(sst_chk32_trailer(0, one, 0, 0xffffffff), 0x80007fff);
	CU_ASSERT_EQUAL(sst_chk32_trailer(0, one, 0, 0x80000000), 0x00008000);
	CU_ASSERT_EQUAL(sst_chk32_trailer(0, one, 0, 0), 0x80008000);
}

static void
test_against_reference(void)
{
	static const uint64_t seqs[] = {0, 1, 0xffffff, UINT64_C(0x0123456789abcdef), UINT64_MAX};
	uint8_t buf[700];
	uint32_t x = 12345;
	unsigned int bad = 0;

	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (size_t s = 0; s < 5; s++)
		for (size_t len = 0; len <= sizeof(buf); len++)
			if (sst_chk32(seqs[s], buf, len) != ref_chk32(seqs[s], buf, len))
				bad++;
	CU_ASSERT_EQUAL(bad, 0);
	/* All 0xff and all 0x00 (sums near and at the modulus). */
	memset(buf, 0xff, sizeof(buf));
	for (size_t len = 0; len <= sizeof(buf); len++)
		EXPECT_AT(sst_chk32(UINT64_MAX, buf, len), ref_chk32(UINT64_MAX, buf, len), len);
	memset(buf, 0, sizeof(buf));
	for (size_t len = 0; len <= sizeof(buf); len++)
		EXPECT_AT(sst_chk32(0, buf, len), ref_chk32(0, buf, len), len);
}

static void
test_long_buffers(void)
{
	/* 64 KiB of pseudo-random data, then up to 64 MiB of 0xff around the
	 * library's 2^20-word reduction blocks: without them, b would overflow
	 * 64 bits after about 24 million words. */
	const size_t big = (size_t)64 << 20;
	const size_t block = (size_t)1 << 21; /* bytes per 2^20 words */
	uint8_t *buf = malloc(big);
	uint32_t x = 777;

	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	for (size_t i = 0; i < 65536; i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	CU_ASSERT_EQUAL(sst_chk32(42, buf, 65536), ref_chk32(42, buf, 65536));
	CU_ASSERT_EQUAL(sst_chk32(42, buf, 65535), ref_chk32(42, buf, 65535));
	CU_ASSERT_EQUAL(sst_chk32(42, buf + 1, 65535), ref_chk32(42, buf + 1, 65535));

	memset(buf, 0xff, big);
	/* The sequence words and the terminator count too: 4 + len/2 + 1. */
	for (size_t len = block - 14; len <= block - 6; len++)
		EXPECT_AT(sst_chk32(UINT64_MAX, buf, len), ref_chk32(UINT64_MAX, buf, len), len);
	EXPECT_AT(sst_chk32(UINT64_MAX, buf, block), ref_chk32(UINT64_MAX, buf, block), block);
	for (size_t len = 2 * block - 13; len <= 2 * block - 7; len++)
		EXPECT_AT(sst_chk32(UINT64_MAX, buf, len), ref_chk32(UINT64_MAX, buf, len), len);
	EXPECT_AT(sst_chk32(UINT64_MAX, buf, big - 1), ref_chk32(UINT64_MAX, buf, big - 1), big);
	EXPECT_AT(sst_chk32(UINT64_MAX, buf, big), ref_chk32(UINT64_MAX, buf, big), big);
	free(buf);
}

static void
test_seal_verify(void)
{
	uint8_t buf[64], copy[64];

	for (size_t len = 0; len <= 40; len++) {
		for (size_t i = 0; i < len; i++)
			buf[i] = (uint8_t)(i * 37 + len);
		memcpy(copy, buf, len);
		EXPECT_AT(sst_chk32_seal(len * 1000, buf, len, len + 4, 0x01020304), (int)len + 4,
			len);
		EXPECT_AT(memcmp(buf, copy, len), 0, len);
		EXPECT_AT(load_be32(buf + len),
			(uint32_t)(ref_chk32(len * 1000, buf, len) + 0x01020304), len);
		EXPECT_AT(sst_chk32_verify(len * 1000, buf, len + 4, 0x01020304), 0, len);
		/* Shortened by one byte, the trailer is read from elsewhere. */
		if (len > 0)
			EXPECT_AT(sst_chk32_verify(len * 1000, buf, len + 3, 0x01020304),
				-SST_EBADAUTH, len);
	}
	/* A packet that is only a trailer: the empty packet. */
	CU_ASSERT_EQUAL(sst_chk32_seal(9, buf, 0, 4, 0), 4);
	CU_ASSERT_EQUAL(load_be32(buf), sst_chk32(9, buf, 0));
	CU_ASSERT_EQUAL(sst_chk32_verify(9, buf, 4, 0), 0);
}

static void
test_seal_nospace(void)
{
	uint8_t buf[48];

	for (size_t len = 0; len <= 40; len += 5)
		for (size_t cap = 0; cap < len + 4; cap++) {
			memset(buf, 0xee, sizeof(buf));
			EXPECT_AT(sst_chk32_seal(1, buf, len, cap, KEY_C), -ENOSPC, cap);
			for (size_t k = 0; k < sizeof(buf); k++)
				EXPECT_AT(buf[k], 0xee, k);
		}
}

static void
test_verify_truncated(void)
{
	uint8_t buf[4] = {0x80, 0x00, 0x80, 0x00};

	for (size_t len = 0; len < 4; len++)
		EXPECT_AT(sst_chk32_verify(0, buf, len, 0), -SST_ETRUNC, len);
	CU_ASSERT_EQUAL(sst_chk32_verify(0, buf, 4, 0), 0);
}

/* Any single corrupted bit or byte of a sealed packet, trailer included,
 * makes it fail. */
static void
test_corruption(void)
{
	unsigned int missed = 0, checked = 0;

	for (size_t i = 0; i < NPKT; i++) {
		uint8_t pkt[128];
		size_t n = load_packet(i, pkt, sizeof(pkt));

		for (size_t k = 0; k < n; k++) {
			uint8_t orig = pkt[k];

			for (unsigned int v = 1; v <= 255; v++) {
				pkt[k] = (uint8_t)(orig ^ v);
				if (sst_chk32_verify(packets[i].seq, pkt, n, packets[i].key) !=
					-SST_EBADAUTH) {
					missed++;
					fprintf(stderr, "  packet %zu byte %zu ^ %02x undetected\n",
						i, k, v);
				}
				checked++;
			}
			pkt[k] = orig;
		}
		EXPECT_AT(sst_chk32_verify(packets[i].seq, pkt, n, packets[i].key), 0, i);
	}
	CU_ASSERT(checked > 10000);
	CU_ASSERT_EQUAL(missed, 0);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_worked_examples),
	SST_TEST(test_captured_packets),
	SST_TEST(test_captured_datagram),
	SST_TEST(test_hand_computed),
	SST_TEST(test_against_reference),
	SST_TEST(test_long_buffers),
	SST_TEST(test_seal_verify),
	SST_TEST(test_seal_nospace),
	SST_TEST(test_verify_truncated),
	SST_TEST(test_corruption),
	SST_TEST_END,
};

SST_TEST_MAIN("channel_chk32", cases)
