/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the channel layer's wire code: the 8-byte channel
 * header (lib/channel/channel_wire.c), sequence number expansion
 * (lib/common/sst_seq.h) and the Chk32 armor (lib/channel/channel_chk32.c).
 *
 * Input: one UDP payload as a channel packet (header, stream header and
 * payload, 4-byte trailer). The seeds are real packets of the prototype.
 *
 * Invariants:
 *  - decode fails exactly when the packet is short, is a control packet or
 *    has reserved bits set, with the documented code; a decoded header
 *    encodes to the identical 8 bytes; the encoder refuses out-of-range
 *    fields and a short buffer without writing;
 *  - sequence expansion (24 bits, 16 bits and an input-chosen width, against
 *    several references) returns the one value congruent to the wire bits
 *    within [ref - half, ref + half), or -SST_ESEQRANGE exactly when that
 *    value lies outside 0..UINT64_MAX (checked against 128-bit arithmetic);
 *  - sst_chk32() equals a plain reference implementation of the definition
 *    (a = b = 0, sums modulo 65537 after every word), so the block reduction
 *    is exact; a sealed packet verifies; flipping any byte (trailer or
 *    packet) fails verification, except where the reference says the mod
 *    65537 sums alias under the 16-bit truncation (0 and 65536), which is a
 *    property of Chk32 itself.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "channel_wire.h"
#include "fuzz_check.h"
#include "sst_error.h"
#include "sst_seq.h"

static uint64_t
load_be(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* Check one expansion against the 128-bit model. */
static void
check_expand(uint64_t ref, uint64_t low, unsigned int bits)
{
	const __int128 mod = (__int128)1 << bits;
	const __int128 half = mod / 2;
	const uint64_t mask = (uint64_t)(mod - 1);
	__int128 v = (__int128)ref - (__int128)(ref & mask) + (__int128)(low & mask);
	uint64_t out = 0;
	int rc;

	if (v < (__int128)ref - half)
		v += mod;
	else if (v >= (__int128)ref + half)
		v -= mod;
	rc = sst_seq_expand(ref, low, bits, &out);
	if (v < 0 || v > (__int128)UINT64_MAX) {
		FUZZ_CHECK(rc == -SST_ESEQRANGE);
		return;
	}
	FUZZ_CHECK(rc == 0);
	FUZZ_CHECK((__int128)out == v);
	FUZZ_CHECK((out & mask) == (low & mask));
	if (out >= ref)
		FUZZ_CHECK(out - ref < (uint64_t)half);
	else
		FUZZ_CHECK(ref - out <= (uint64_t)half);
	if (bits == SST_CHAN_SEQ_BITS) {
		uint64_t seq = 0;

		FUZZ_CHECK(
			sst_chan_seq_expand(ref, (uint32_t)(low & SST_CHAN_SEQ_MASK), &seq) == 0);
		FUZZ_CHECK(seq == out);
	}
}

static void
check_seq(const uint8_t *data, size_t size, const struct sst_chan_hdr *hdr)
{
	uint64_t refs[12] = {0, 1, (1u << 23) - 1, 1u << 23, 1u << 24, (1u << 24) + (1u << 23),
		UINT64_MAX, UINT64_MAX - (1u << 23) + 1};
	size_t nrefs = 8;
	uint64_t wild = 0;
	unsigned int bits = 1;

	if (size >= 16) {
		refs[nrefs++] = load_be(data + 8, 8);
		refs[nrefs++] = load_be(data + size - 8, 8);
		wild = load_be(data + size - 16, 8);
		bits = 1 + data[size - 9] % 63;
	}
	if (hdr != NULL) {
		refs[nrefs++] = hdr->tsn24;
		refs[nrefs++] = (uint64_t)hdr->ack24 << 20;
	}
	for (size_t i = 0; i < nrefs; i++) {
		uint32_t low24 = hdr != NULL ? hdr->tsn24 : (uint32_t)(wild & SST_CHAN_SEQ_MASK);

		check_expand(refs[i], low24, SST_CHAN_SEQ_BITS);
		if (hdr != NULL)
			check_expand(refs[i], hdr->ack24, SST_CHAN_SEQ_BITS);
		check_expand(refs[i], wild, 16);
		check_expand(refs[i], wild, bits);
	}
}

/* The definition, word by word: returns a and b, each 0..65536. */
static void
ref_chk32(uint64_t seq, const uint8_t *p, size_t len, uint32_t *a, uint32_t *b)
{
	uint64_t sa = 0, sb = 0;
	size_t i;

	for (int shift = 48; shift >= 0; shift -= 16) {
		sa = (sa + ((seq >> shift) & 0xffff)) % 65537;
		sb = (sb + sa) % 65537;
	}
	for (i = 0; i + 1 < len; i += 2) {
		sa = (sa + ((uint32_t)p[i] << 8 | p[i + 1])) % 65537;
		sb = (sb + sa) % 65537;
	}
	sa = (sa + (i < len ? ((uint32_t)p[i] << 8 | 0x80) : 0x8000)) % 65537;
	sb = (sb + sa) % 65537;
	*a = (uint32_t)sa;
	*b = (uint32_t)sb;
}

static uint32_t
ref_chk32_value(uint64_t seq, const uint8_t *p, size_t len)
{
	uint32_t a, b;

	ref_chk32(seq, p, len, &a, &b);
	return (a & 0xffff) | (b & 0xffff) << 16;
}

static void
check_chk32(const uint8_t *data, size_t size, uint64_t seq)
{
	size_t blen = size >= SST_CHK32_TRAILER_LEN ? size - SST_CHK32_TRAILER_LEN : size;
	uint32_t key =
		size >= SST_CHK32_TRAILER_LEN ? (uint32_t)load_be(data + blen, 4) : 0x5a5a5a5a;
	uint32_t a0, b0, a1, b1, trailer;
	size_t idx;
	uint8_t flip;
	uint8_t *buf;
	int rc;

	FUZZ_CHECK(sst_chk32(seq, data, size) == ref_chk32_value(seq, data, size));
	FUZZ_CHECK(sst_chk32_verify(seq, data, size < 4 ? size : 3, key) == -SST_ETRUNC);

	/* Seal into a buffer one byte too small: refused, nothing written. */
	buf = malloc(blen + SST_CHK32_TRAILER_LEN);
	FUZZ_CHECK(buf != NULL);
	memcpy(buf, data, blen);
	memset(buf + blen, 0xa5, SST_CHK32_TRAILER_LEN);
	FUZZ_CHECK(sst_chk32_seal(seq, buf, blen, blen + 3, key) == -ENOSPC);
	FUZZ_CHECK(sst_chk32_seal(seq, buf, blen + 1, blen, key) == -ENOSPC);
	for (size_t i = 0; i < SST_CHK32_TRAILER_LEN; i++)
		FUZZ_CHECK(buf[blen + i] == 0xa5);
	FUZZ_CHECK(memcmp(buf, data, blen) == 0 || blen == 0);

	/* Seal, then verify. */
	rc = sst_chk32_seal(seq, buf, blen, blen + SST_CHK32_TRAILER_LEN, key);
	FUZZ_CHECK(rc == (int)(blen + SST_CHK32_TRAILER_LEN));
	trailer = (uint32_t)load_be(buf + blen, 4);
	FUZZ_CHECK(trailer == sst_chk32_trailer(seq, data, blen, key));
	FUZZ_CHECK(trailer == ref_chk32_value(seq, data, blen) + key);
	FUZZ_CHECK(sst_chk32_verify(seq, buf, blen + SST_CHK32_TRAILER_LEN, key) == 0);
	FUZZ_CHECK(
		sst_chk32_verify(seq, buf, blen + SST_CHK32_TRAILER_LEN, key + 1) == -SST_EBADAUTH);

	/* Flip one byte chosen by the input. */
	idx = (size_t)(load_be(data, size < 8 ? size : 8) % (blen + SST_CHK32_TRAILER_LEN));
	flip = size > 0 ? data[size - 1] : 1;
	if (flip == 0)
		flip = 0x80;
	ref_chk32(seq, buf, blen, &a0, &b0);
	buf[idx] ^= flip;
	rc = sst_chk32_verify(seq, buf, blen + SST_CHK32_TRAILER_LEN, key);
	if (idx >= blen) {
		FUZZ_CHECK(rc == -SST_EBADAUTH);
	} else {
		ref_chk32(seq, buf, blen, &a1, &b1);
		/* One changed word always changes a modulo 65537. */
		FUZZ_CHECK(a1 != a0);
		if (rc == 0)
			FUZZ_CHECK(((a0 ^ a1) & 0xffff) == 0 && ((b0 ^ b1) & 0xffff) == 0);
		else
			FUZZ_CHECK(rc == -SST_EBADAUTH &&
				   (((a0 ^ a1) & 0xffff) != 0 || ((b0 ^ b1) & 0xffff) != 0));
	}
	buf[idx] ^= flip;

	/* A different sequence number is a different pseudo-header. */
	rc = sst_chk32_verify(seq + 1, buf, blen + SST_CHK32_TRAILER_LEN, key);
	FUZZ_CHECK(
		rc == (ref_chk32_value(seq + 1, buf, blen) + key == trailer ? 0 : -SST_EBADAUTH));
	free(buf);
}

static void
check_encode_fields(const uint8_t *data, size_t size)
{
	struct sst_chan_hdr in, out;
	bool valid;
	uint8_t wire[SST_CHAN_HDR_LEN];
	int rc;

	if (size < 10)
		return;
	/* Unconstrained fields, so that the encoder's range checks are hit. */
	in.channel = data[0];
	in.ack_count = data[1];
	in.tsn24 = (uint32_t)load_be(data + 2, 4);
	in.ack24 = (uint32_t)load_be(data + 6, 4);
	valid = in.channel != 0 && in.ack_count <= SST_CHAN_ACKCT_MAX &&
		in.tsn24 <= SST_CHAN_SEQ_MASK && in.ack24 <= SST_CHAN_SEQ_MASK;
	rc = sst_chan_hdr_encode(&in, wire, sizeof(wire));
	if (!valid) {
		FUZZ_CHECK(rc == -EINVAL);
		return;
	}
	FUZZ_CHECK(rc == SST_CHAN_HDR_LEN);
	FUZZ_CHECK(sst_chan_hdr_decode(wire, sizeof(wire), &out) == SST_CHAN_HDR_LEN);
	FUZZ_CHECK(out.channel == in.channel && out.ack_count == in.ack_count &&
		   out.tsn24 == in.tsn24 && out.ack24 == in.ack24);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sst_chan_hdr hdr;
	uint8_t *wire;
	bool decoded;
	uint64_t seq;
	int rc;

	memset(&hdr, 0x5a, sizeof(hdr));
	rc = sst_chan_hdr_decode(data, size, &hdr);
	decoded = rc == SST_CHAN_HDR_LEN;
	seq = load_be(data, size < 8 ? size : 8);
	if (size < SST_CHAN_HDR_LEN) {
		FUZZ_CHECK(rc == -SST_ETRUNC);
	} else if (data[0] == 0) {
		FUZZ_CHECK(rc == -SST_EBADVALUE);
	} else if (data[4] >> 4 != 0) {
		FUZZ_CHECK(rc == -SST_ERESERVED);
	} else {
		FUZZ_CHECK(rc == SST_CHAN_HDR_LEN);
		FUZZ_CHECK(hdr.channel == data[0] && hdr.channel != 0);
		FUZZ_CHECK(hdr.ack_count <= SST_CHAN_ACKCT_MAX);
		FUZZ_CHECK(hdr.tsn24 <= SST_CHAN_SEQ_MASK && hdr.ack24 <= SST_CHAN_SEQ_MASK);

		/* Exactly 8 bytes of room: ASan sees any write past them. */
		wire = malloc(SST_CHAN_HDR_LEN);
		FUZZ_CHECK(wire != NULL);
		FUZZ_CHECK(sst_chan_hdr_encode(&hdr, wire, SST_CHAN_HDR_LEN) == SST_CHAN_HDR_LEN);
		FUZZ_CHECK(memcmp(wire, data, SST_CHAN_HDR_LEN) == 0);
		memset(wire, 0xa5, SST_CHAN_HDR_LEN);
		FUZZ_CHECK(sst_chan_hdr_encode(&hdr, wire, SST_CHAN_HDR_LEN - 1) == -ENOSPC);
		for (size_t i = 0; i < SST_CHAN_HDR_LEN; i++)
			FUZZ_CHECK(wire[i] == 0xa5);
		free(wire);
		/* The first packets of a direction expand against 0. */
		rc = sst_chan_seq_expand(0, hdr.tsn24, &seq);
		FUZZ_CHECK(rc == (hdr.tsn24 < 1u << 23 ? 0 : -SST_ESEQRANGE));
		FUZZ_CHECK(seq == hdr.tsn24 || rc != 0);
	}
	check_seq(data, size, decoded ? &hdr : NULL);
	check_chk32(data, size, seq);
	check_encode_fields(data, size);
	return 0;
}
