/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the negotiation protocol's wire code
 * (lib/negotiation/nego_wire.c): message framing, the chunk iterator, the
 * ChkI1/ChkR1 and DhI1..DhR2 decoders and the message builder.
 *
 * Input: one UDP payload of a control packet (magic, chunk count, chunks).
 * The seeds are the prototype's negotiation messages, checksum and DH/JFK.
 *
 * Invariants:
 *  - sst_nego_msg_parse() returns what a framing model written from
 *    docs/wire-format.md section 6 predicts, error code included;
 *  - after a successful parse the iterator yields exactly nchunks chunks,
 *    back to back, each body inside the message, then stays finished;
 *  - rebuilding the message chunk by chunk with sst_nego_build_raw() gives
 *    the identical bytes; a builder that runs out of room fails with -ENOSPC
 *    and leaves a message that parses and holds the chunks added so far;
 *  - every known chunk that decodes re-encodes to its identical bytes (ChkI1
 *    and ChkR1 through the builder, DH chunks through the XDR writer), and
 *    all decoded fields lie inside the chunk;
 *  - a ChkI1 or ChkR1 built from arbitrary fields is refused with -EINVAL,
 *    leaving the message as it was, exactly when its channel number is out
 *    of range or an opaque field is longer than SST_NEGO_OPAQUE_MAX (what
 *    the decoder would refuse); otherwise the message parses and the chunk
 *    decodes back to the same fields;
 *  - the builder stops at SST_NEGO_CHUNKS_MAX chunks with -EINVAL;
 *  - sst_nego_steer_tag() (steer_bits from the last input byte, 0..7, 7
 *    out of range) returns what a model of docs/negotiation.md section 8
 *    predicts: the echoed cki's low bits for a first chunk that is a ChkR1
 *    that decodes, the low bits of the echoed ni's last byte for a first
 *    chunk that is a SecR1 or SecCookie of at least 32 bytes, else -1.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "nego_secure.h"
#include "nego_wire.h"
#include "sst_error.h"
#include "sst_negotiation.h"

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static size_t
pad4(size_t n)
{
	return (4 - (n & 3)) & 3;
}

/* The framing rules, independently: the code sst_nego_msg_parse() must
 * return. */
static int
framing_model(const uint8_t *p, size_t len)
{
	size_t pos = 8;
	uint32_t n;

	if (len < 4)
		return -SST_ETRUNC;
	if (be32(p) != SST_NEGO_MAGIC)
		return -SST_EBADMAGIC;
	if (len < 8)
		return -SST_ETRUNC;
	n = be32(p + 4);
	if (n > SST_NEGO_CHUNKS_MAX)
		return -SST_ETOOLONG;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t clen;

		if (len - pos < 4)
			return -SST_ETRUNC;
		clen = be32(p + pos);
		pos += 4;
		if (clen < 4 || clen + pad4(clen) > len - pos)
			return -SST_EBADLEN;
		for (size_t k = 0; k < pad4(clen); k++)
			if (p[pos + clen + k] != 0)
				return -SST_EBADPAD;
		pos += clen + pad4(clen);
	}
	return pos == len ? 0 : -SST_ETRAILING;
}

static bool
bytes_inside(const struct sst_bytes *b, const struct sst_bytes *body)
{
	return FUZZ_INSIDE(b->ptr, b->len, body->ptr, body->len);
}

static bool
bytes_equal(const struct sst_bytes *a, const struct sst_bytes *b)
{
	return a->len == b->len && (a->len == 0 || memcmp(a->ptr, b->ptr, a->len) == 0);
}

/* Parse a message holding exactly one chunk and return it. */
static void
single_chunk(const uint8_t *msg, size_t len, int32_t type, struct sst_nego_chunk *chunk)
{
	struct sst_nego_msg m;
	struct sst_nego_iter it;

	FUZZ_CHECK(sst_nego_msg_parse(msg, len, &m) == 0);
	FUZZ_CHECK(m.nchunks == 1);
	sst_nego_iter_init(&it, &m);
	FUZZ_CHECK(sst_nego_iter_next(&it, chunk) == 1);
	FUZZ_CHECK(chunk->type == type);
	FUZZ_CHECK(sst_nego_iter_next(&it, chunk) == 0);
}

/* Rebuild a decoded ChkI1/ChkR1 with the builder, into exactly the size the
 * original chunk had, and compare type word and body. */
static void
check_chk_rebuild(const struct sst_nego_chunk *chunk, const struct sst_nego_chki1 *i1,
	const struct sst_nego_chkr1 *r1)
{
	size_t total = SST_NEGO_HDR_LEN + 4 + 4 + chunk->body.len;
	struct sst_nego_builder b;
	struct sst_nego_chunk again;
	struct sst_nego_chki1 i1b;
	struct sst_nego_chkr1 r1b;
	uint8_t *buf = malloc(total);

	FUZZ_CHECK(buf != NULL);
	FUZZ_CHECK(chunk->body.len % 4 == 0);
	FUZZ_CHECK(sst_nego_build_begin(&b, buf, total) == 0);
	if (i1 != NULL)
		FUZZ_CHECK(sst_nego_build_chki1(&b, i1) == 0);
	else
		FUZZ_CHECK(sst_nego_build_chkr1(&b, r1) == 0);
	FUZZ_CHECK(sst_nego_build_end(&b) == total);
	FUZZ_CHECK(be32(buf + SST_NEGO_HDR_LEN) == chunk->body.len + 4);
	FUZZ_CHECK(
		memcmp(buf + SST_NEGO_HDR_LEN + 4, chunk->body.ptr - 4, chunk->body.len + 4) == 0);

	single_chunk(buf, total, chunk->type, &again);
	if (i1 != NULL) {
		FUZZ_CHECK(sst_nego_chki1_decode(&again.body, &i1b) == 0);
		FUZZ_CHECK(i1b.cki == i1->cki && i1b.chani == i1->chani);
		FUZZ_CHECK(bytes_equal(&i1b.cookie, &i1->cookie) &&
			   bytes_equal(&i1b.ulpi, &i1->ulpi) && bytes_equal(&i1b.cpkt, &i1->cpkt));
	} else {
		FUZZ_CHECK(sst_nego_chkr1_decode(&again.body, &r1b) == 0);
		FUZZ_CHECK(r1b.cki == r1->cki && r1b.ckr == r1->ckr && r1b.chanr == r1->chanr);
		FUZZ_CHECK(bytes_equal(&r1b.cookie, &r1->cookie) &&
			   bytes_equal(&r1b.ulpr, &r1->ulpr) && bytes_equal(&r1b.cpkt, &r1->cpkt));
	}
	free(buf);
}

static bool
decode_error_ok(int rc)
{
	return rc == -SST_ETRUNC || rc == -SST_ETOOLONG || rc == -SST_EBADPAD ||
	       rc == -SST_EBADVALUE || rc == -SST_ETRAILING;
}

/* Re-encode a DH chunk body with the XDR writer into exactly its size. */
struct dh_field {
	int kind; /* 0: int32, 1: 32-byte nonce, 2: opaque */
	int32_t num;
	const uint8_t *nonce;
	struct sst_bytes bytes;
};

static void
check_dh_reencode(const struct sst_bytes *body, const struct dh_field *f, size_t n)
{
	struct sst_xdr_writer w;
	uint8_t *out = malloc(body->len > 0 ? body->len : 1);

	FUZZ_CHECK(out != NULL);
	sst_xdr_writer_init(&w, out, body->len);
	for (size_t i = 0; i < n; i++) {
		if (f[i].kind == 0) {
			FUZZ_CHECK(sst_xdr_put_i32(&w, f[i].num) == 0);
		} else if (f[i].kind == 1) {
			FUZZ_CHECK(FUZZ_INSIDE(
				f[i].nonce, SST_NEGO_DH_NONCE_LEN, body->ptr, body->len));
			FUZZ_CHECK(sst_xdr_put_fixed(&w, f[i].nonce, SST_NEGO_DH_NONCE_LEN) == 0);
		} else {
			FUZZ_CHECK(bytes_inside(&f[i].bytes, body));
			FUZZ_CHECK(sst_xdr_put_opaque(&w, f[i].bytes.ptr, f[i].bytes.len) == 0);
		}
	}
	FUZZ_CHECK(w.pos == body->len);
	FUZZ_CHECK(body->len == 0 || memcmp(out, body->ptr, body->len) == 0);
	free(out);
}

#define DIM(a) (sizeof(a) / sizeof((a)[0]))
#define NUM(v)                  \
	{                       \
		0, (v), NULL,   \
		{               \
			NULL, 0 \
		}               \
	}
#define NONCE(p)                \
	{                       \
		1, 0, (p),      \
		{               \
			NULL, 0 \
		}               \
	}
#define BYTES(b)                \
	{                       \
		2, 0, NULL, (b) \
	}

static void
check_chunk(const struct sst_nego_chunk *c)
{
	struct sst_nego_chki1 i1;
	struct sst_nego_chkr1 r1;
	struct sst_nego_dhi1 dhi1;
	struct sst_nego_dhr1 dhr1;
	struct sst_nego_dhi2 dhi2;
	struct sst_nego_dhr2 dhr2;
	int rc;

	switch (c->type) {
	case SST_NEGO_CHKI1:
		rc = sst_nego_chki1_decode(&c->body, &i1);
		if (rc < 0)
			break;
		FUZZ_CHECK(i1.chani >= 1 && i1.chani <= 255);
		FUZZ_CHECK(bytes_inside(&i1.cookie, &c->body) && bytes_inside(&i1.ulpi, &c->body) &&
			   bytes_inside(&i1.cpkt, &c->body));
		check_chk_rebuild(c, &i1, NULL);
		return;
	case SST_NEGO_CHKR1:
		rc = sst_nego_chkr1_decode(&c->body, &r1);
		if (rc < 0)
			break;
		FUZZ_CHECK(r1.chanr <= 255);
		FUZZ_CHECK(bytes_inside(&r1.cookie, &c->body) && bytes_inside(&r1.ulpr, &c->body) &&
			   bytes_inside(&r1.cpkt, &c->body));
		FUZZ_CHECK(sst_nego_chkr1_wants_cookie(&r1) == (r1.chanr == 0 || r1.ckr == r1.cki));
		check_chk_rebuild(c, NULL, &r1);
		return;
	case SST_NEGO_DHI1:
		rc = sst_nego_dhi1_decode(&c->body, &dhi1);
		if (rc == 0) {
			const struct dh_field f[] = {NUM(dhi1.group), NUM(dhi1.keymin),
				NONCE(dhi1.nhi), BYTES(dhi1.dhi), BYTES(dhi1.eidr)};
			check_dh_reencode(&c->body, f, DIM(f));
		}
		break;
	case SST_NEGO_DHR1:
		rc = sst_nego_dhr1_decode(&c->body, &dhr1);
		if (rc == 0) {
			const struct dh_field f[] = {NUM(dhr1.group), NUM(dhr1.keylen),
				NONCE(dhr1.nhi), NONCE(dhr1.nr), BYTES(dhr1.dhr), BYTES(dhr1.hhkr),
				BYTES(dhr1.eidr), BYTES(dhr1.pkr), BYTES(dhr1.sr)};
			check_dh_reencode(&c->body, f, DIM(f));
		}
		break;
	case SST_NEGO_DHI2:
		rc = sst_nego_dhi2_decode(&c->body, &dhi2);
		if (rc == 0) {
			const struct dh_field f[] = {NUM(dhi2.group), NUM(dhi2.keylen),
				NONCE(dhi2.ni), NONCE(dhi2.nr), BYTES(dhi2.dhi), BYTES(dhi2.dhr),
				BYTES(dhi2.hhkr), BYTES(dhi2.idi)};
			check_dh_reencode(&c->body, f, DIM(f));
		}
		break;
	case SST_NEGO_DHR2:
		rc = sst_nego_dhr2_decode(&c->body, &dhr2);
		if (rc == 0) {
			const struct dh_field f[] = {NONCE(dhr2.nhi), BYTES(dhr2.idr)};
			check_dh_reencode(&c->body, f, DIM(f));
		}
		break;
	default:
		FUZZ_CHECK(c->type == SST_NEGO_PACKET || sst_nego_chunk_name(c->type) == NULL);
		return;
	}
	FUZZ_CHECK(sst_nego_chunk_name(c->type) != NULL);
	FUZZ_CHECK(rc == 0 || decode_error_ok(rc));
}

/* Rebuild the whole message with raw chunks; then again into a buffer that
 * is too small, which must fail cleanly. */
static void
check_rebuild(const uint8_t *data, size_t size, const struct sst_nego_msg *msg, size_t short_cap)
{
	struct sst_nego_builder b;
	struct sst_nego_iter it;
	struct sst_nego_chunk c;
	struct sst_nego_msg m;
	uint32_t added = 0;
	uint8_t *buf = malloc(size);
	int rc = 0;

	FUZZ_CHECK(buf != NULL);
	FUZZ_CHECK(sst_nego_build_begin(&b, buf, size) == 0);
	sst_nego_iter_init(&it, msg);
	while (sst_nego_iter_next(&it, &c) == 1)
		FUZZ_CHECK(sst_nego_build_raw(&b, c.type, c.body.ptr, c.body.len) == 0);
	FUZZ_CHECK(sst_nego_build_end(&b) == size);
	FUZZ_CHECK(memcmp(buf, data, size) == 0);

	memset(buf, 0xa5, size);
	if (sst_nego_build_begin(&b, buf, short_cap) < 0) {
		FUZZ_CHECK(short_cap < SST_NEGO_HDR_LEN);
		free(buf);
		return;
	}
	sst_nego_iter_init(&it, msg);
	while (sst_nego_iter_next(&it, &c) == 1) {
		rc = sst_nego_build_raw(&b, c.type, c.body.ptr, c.body.len);
		if (rc < 0)
			break;
		added++;
	}
	FUZZ_CHECK(rc == -ENOSPC);
	FUZZ_CHECK(sst_nego_build_end(&b) <= short_cap);
	for (size_t i = short_cap; i < size; i++)
		FUZZ_CHECK(buf[i] == 0xa5);
	FUZZ_CHECK(sst_nego_msg_parse(buf, sst_nego_build_end(&b), &m) == 0);
	FUZZ_CHECK(m.nchunks == added);
	FUZZ_CHECK(memcmp(buf + SST_NEGO_HDR_LEN, data + SST_NEGO_HDR_LEN,
			   sst_nego_build_end(&b) - SST_NEGO_HDR_LEN) == 0);
	free(buf);
}

/* Fields and opaques for ChkI1/ChkR1 cut from the input. */
static void
cut_bytes(const uint8_t *data, size_t size, struct sst_bytes out[3])
{
	size_t a = size > 0 ? data[0] * size / 256 : 0;
	size_t b = size > 1 ? a + data[1] * (size - a) / 256 : a;

	out[0] = (struct sst_bytes){data, (uint32_t)a};
	out[1] = (struct sst_bytes){data + a, (uint32_t)(b - a)};
	out[2] = (struct sst_bytes){data + b, (uint32_t)(size - b)};
}

static void
check_build_fields(const uint8_t *data, size_t size)
{
	uint32_t w[4] = {0x5a5a5a5a, 1, 2, 3};
	struct sst_bytes o[3];
	struct sst_nego_chki1 i1, i1b;
	struct sst_nego_chkr1 r1, r1b;
	struct sst_nego_builder b;
	struct sst_nego_chunk c;
	struct sst_nego_msg m;
	size_t cap = size + 64;
	bool fits;
	uint8_t *buf = malloc(cap);
	int rc;

	FUZZ_CHECK(buf != NULL);
	for (size_t i = 0; i < 4 && size >= 4 * (i + 1); i++)
		w[i] = be32(data + 4 * i);
	cut_bytes(data, size, o);
	fits = o[0].len <= SST_NEGO_OPAQUE_MAX && o[1].len <= SST_NEGO_OPAQUE_MAX &&
	       o[2].len <= SST_NEGO_OPAQUE_MAX;

	i1 = (struct sst_nego_chki1){w[0], w[1] & 0x1ff, o[0], o[1], o[2]};
	FUZZ_CHECK(sst_nego_build_begin(&b, buf, cap) == 0);
	rc = sst_nego_build_chki1(&b, &i1);
	if (i1.chani == 0 || i1.chani > 255 || !fits) {
		FUZZ_CHECK(rc == -EINVAL);
		FUZZ_CHECK(sst_nego_build_end(&b) == SST_NEGO_HDR_LEN);
		FUZZ_CHECK(sst_nego_msg_parse(buf, SST_NEGO_HDR_LEN, &m) == 0 && m.nchunks == 0);
	} else {
		FUZZ_CHECK(rc == 0);
		single_chunk(buf, sst_nego_build_end(&b), SST_NEGO_CHKI1, &c);
		FUZZ_CHECK(sst_nego_chki1_decode(&c.body, &i1b) == 0);
		FUZZ_CHECK(i1b.cki == i1.cki && i1b.chani == i1.chani &&
			   bytes_equal(&i1b.cookie, &i1.cookie) &&
			   bytes_equal(&i1b.ulpi, &i1.ulpi) && bytes_equal(&i1b.cpkt, &i1.cpkt));
	}

	r1 = (struct sst_nego_chkr1){w[0], w[2], w[3] & 0x1ff, o[2], o[0], o[1]};
	FUZZ_CHECK(sst_nego_build_begin(&b, buf, cap) == 0);
	rc = sst_nego_build_chkr1(&b, &r1);
	if (r1.chanr > 255 || !fits) {
		FUZZ_CHECK(rc == -EINVAL);
		FUZZ_CHECK(sst_nego_build_end(&b) == SST_NEGO_HDR_LEN);
	} else {
		FUZZ_CHECK(rc == 0);
		single_chunk(buf, sst_nego_build_end(&b), SST_NEGO_CHKR1, &c);
		FUZZ_CHECK(sst_nego_chkr1_decode(&c.body, &r1b) == 0);
		FUZZ_CHECK(r1b.cki == r1.cki && r1b.ckr == r1.ckr && r1b.chanr == r1.chanr &&
			   bytes_equal(&r1b.cookie, &r1.cookie) &&
			   bytes_equal(&r1b.ulpr, &r1.ulpr) && bytes_equal(&r1b.cpkt, &r1.cpkt));
	}
	free(buf);
}

/* The builder's chunk limit. */
static void
check_chunk_limit(uint8_t k)
{
	uint8_t buf[SST_NEGO_HDR_LEN + 8 * (SST_NEGO_CHUNKS_MAX + 8)];
	struct sst_nego_builder b;
	struct sst_nego_msg m;
	unsigned int n = k % (SST_NEGO_CHUNKS_MAX + 8);

	FUZZ_CHECK(sst_nego_build_begin(&b, buf, sizeof(buf)) == 0);
	for (unsigned int i = 0; i < n; i++)
		FUZZ_CHECK(sst_nego_build_raw(&b, (int32_t)i, NULL, 0) ==
			   (i < SST_NEGO_CHUNKS_MAX ? 0 : -EINVAL));
	FUZZ_CHECK(sst_nego_msg_parse(buf, sst_nego_build_end(&b), &m) == 0);
	FUZZ_CHECK(m.nchunks == (n < SST_NEGO_CHUNKS_MAX ? n : SST_NEGO_CHUNKS_MAX));
}

/* The steering tag, independently (docs/negotiation.md section 8). */
static void
check_steer(const uint8_t *data, size_t size, bool parsed, const struct sst_nego_msg *msg)
{
	uint8_t bits = size > 0 ? data[size - 1] % 8 : 0;
	unsigned int mask = (1u << bits) - 1;
	struct sst_nego_chkr1 r1;
	struct sst_nego_chunk c;
	struct sst_nego_iter it;
	int want = -1;

	if (parsed && bits <= SST_NEGO_STEER_BITS_MAX && msg->nchunks > 0) {
		sst_nego_iter_init(&it, msg);
		FUZZ_CHECK(sst_nego_iter_next(&it, &c) == 1);
		if (c.type == SST_NEGO_CHKR1 && sst_nego_chkr1_decode(&c.body, &r1) == 0)
			want = (int)(be32(c.body.ptr) & mask);
		else if ((c.type == SST_NEGO_SECR1 || c.type == SST_NEGO_SECCOOKIE ||
				 c.type == SST_NEGO_SECREFUSE) &&
			 c.body.len >= 32)
			want = c.body.ptr[31] & mask;
	}
	FUZZ_CHECK(sst_nego_steer_tag(data, size, bits) == want);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sst_nego_msg msg;
	struct sst_nego_iter it;
	struct sst_nego_chunk c;
	const uint8_t *cursor;
	uint32_t count = 0;
	int rc;

	rc = sst_nego_msg_parse(data, size, &msg);
	FUZZ_CHECK(rc == framing_model(data, size));
	if (rc == 0) {
		FUZZ_CHECK(msg.chunks == data + SST_NEGO_HDR_LEN);
		FUZZ_CHECK(msg.chunks_len == size - SST_NEGO_HDR_LEN);
		FUZZ_CHECK(msg.nchunks == be32(data + 4) && msg.nchunks <= SST_NEGO_CHUNKS_MAX);

		/* Chunks come back to back: length word, type word, body. */
		cursor = msg.chunks;
		sst_nego_iter_init(&it, &msg);
		while (sst_nego_iter_next(&it, &c) == 1) {
			FUZZ_CHECK(++count <= msg.nchunks);
			FUZZ_CHECK(c.body.ptr == cursor + 8);
			FUZZ_CHECK(be32(cursor) == c.body.len + 4);
			FUZZ_CHECK((int32_t)be32(cursor + 4) == c.type);
			FUZZ_CHECK(FUZZ_INSIDE(c.body.ptr, c.body.len, data, size));
			cursor += sst_xdr_opaque_size(c.body.len + 4);
			check_chunk(&c);
		}
		FUZZ_CHECK(count == msg.nchunks);
		FUZZ_CHECK(cursor == data + size);
		FUZZ_CHECK(sst_nego_iter_next(&it, &c) == 0);
		FUZZ_CHECK(sst_nego_iter_next(&it, &c) == 0);

		check_rebuild(data, size, &msg,
			size > SST_NEGO_HDR_LEN ? (size_t)data[size - 1] * (size - 1) / 255 : 0);
	}
	check_steer(data, size, rc == 0, &msg);
	check_build_fields(data, size);
	check_chunk_limit(size > 0 ? data[0] : 0);
	return 0;
}
