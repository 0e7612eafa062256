/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "nego_wire.h"
#include "sst_error.h"

const char *
sst_nego_chunk_name(int32_t type)
{
	switch (type) {
	case SST_NEGO_PACKET:
		return "Packet";
	case SST_NEGO_CHKI1:
		return "ChkI1";
	case SST_NEGO_CHKR1:
		return "ChkR1";
	case SST_NEGO_DHI1:
		return "DhI1";
	case SST_NEGO_DHR1:
		return "DhR1";
	case SST_NEGO_DHI2:
		return "DhI2";
	case SST_NEGO_DHR2:
		return "DhR2";
	default:
		return NULL;
	}
}

/* Read one chunk's framing: length word, chunk bytes, padding. The chunk must
 * at least hold its type word. */
static int
chunk_read(struct sst_xdr_reader *r, struct sst_nego_chunk *chunk)
{
	struct sst_xdr_reader body;
	struct sst_bytes raw;
	uint32_t len;
	int rc;

	rc = sst_xdr_get_u32(r, &len);
	if (rc < 0)
		return rc;
	if (len < 4 || len > sst_xdr_remaining(r))
		return -SST_EBADLEN;
	/* The length word says how many chunk bytes follow; the padding
	 * after them is the opaque<> padding. */
	r->pos -= 4;
	rc = sst_xdr_get_opaque(r, UINT32_MAX, &raw);
	if (rc < 0)
		return rc == -SST_ETRUNC ? -SST_EBADLEN : rc;
	sst_xdr_reader_init(&body, raw.ptr, raw.len);
	sst_xdr_get_i32(&body, &chunk->type);
	chunk->body.ptr = raw.ptr + 4;
	chunk->body.len = raw.len - 4;
	return 0;
}

int
sst_nego_msg_parse(const void *buf, size_t len, struct sst_nego_msg *msg)
{
	struct sst_xdr_reader r;
	struct sst_nego_chunk chunk;
	uint32_t magic, n;
	int rc;

	sst_xdr_reader_init(&r, buf, len);
	rc = sst_xdr_get_u32(&r, &magic);
	if (rc < 0)
		return rc;
	if (magic != SST_NEGO_MAGIC)
		return -SST_EBADMAGIC;
	rc = sst_xdr_get_u32(&r, &n);
	if (rc < 0)
		return rc;
	if (n > SST_NEGO_CHUNKS_MAX)
		return -SST_ETOOLONG;
	msg->chunks = (const uint8_t *)buf + r.pos;
	msg->chunks_len = sst_xdr_remaining(&r);
	msg->nchunks = n;
	for (uint32_t i = 0; i < n; i++) {
		rc = chunk_read(&r, &chunk);
		if (rc < 0)
			return rc;
	}
	return sst_xdr_expect_end(&r);
}

void
sst_nego_iter_init(struct sst_nego_iter *it, const struct sst_nego_msg *msg)
{
	sst_xdr_reader_init(&it->r, msg->chunks, msg->chunks_len);
	it->left = msg->nchunks;
}

int
sst_nego_iter_next(struct sst_nego_iter *it, struct sst_nego_chunk *chunk)
{
	if (it->left == 0)
		return 0;
	/* sst_nego_msg_parse() already validated every chunk. */
	if (chunk_read(&it->r, chunk) < 0) {
		it->left = 0;
		return 0;
	}
	it->left--;
	return 1;
}

static int
channel_number_ok(uint32_t chan, bool zero_allowed)
{
	return chan <= 255 && (zero_allowed || chan != 0);
}

int
sst_nego_chki1_decode(const struct sst_bytes *body, struct sst_nego_chki1 *i1)
{
	struct sst_xdr_reader r;
	int rc;

	sst_xdr_reader_init(&r, body->ptr, body->len);
	if ((rc = sst_xdr_get_u32(&r, &i1->cki)) < 0 ||
		(rc = sst_xdr_get_u32(&r, &i1->chani)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SST_NEGO_OPAQUE_MAX, &i1->cookie)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SST_NEGO_OPAQUE_MAX, &i1->ulpi)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SST_NEGO_OPAQUE_MAX, &i1->cpkt)) < 0)
		return rc;
	if (!channel_number_ok(i1->chani, false))
		return -SST_EBADVALUE;
	return sst_xdr_expect_end(&r);
}

int
sst_nego_chkr1_decode(const struct sst_bytes *body, struct sst_nego_chkr1 *r1)
{
	struct sst_xdr_reader r;
	int rc;

	sst_xdr_reader_init(&r, body->ptr, body->len);
	if ((rc = sst_xdr_get_u32(&r, &r1->cki)) < 0 || (rc = sst_xdr_get_u32(&r, &r1->ckr)) < 0 ||
		(rc = sst_xdr_get_u32(&r, &r1->chanr)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SST_NEGO_OPAQUE_MAX, &r1->cookie)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SST_NEGO_OPAQUE_MAX, &r1->ulpr)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SST_NEGO_OPAQUE_MAX, &r1->cpkt)) < 0)
		return rc;
	if (!channel_number_ok(r1->chanr, true))
		return -SST_EBADVALUE;
	return sst_xdr_expect_end(&r);
}

static int
get_nonce(struct sst_xdr_reader *r, const uint8_t **nonce)
{
	return sst_xdr_get_fixed(r, SST_NEGO_DH_NONCE_LEN, nonce);
}

int
sst_nego_dhi1_decode(const struct sst_bytes *body, struct sst_nego_dhi1 *m)
{
	struct sst_xdr_reader r;
	int rc;

	sst_xdr_reader_init(&r, body->ptr, body->len);
	if ((rc = sst_xdr_get_i32(&r, &m->group)) < 0 ||
		(rc = sst_xdr_get_i32(&r, &m->keymin)) < 0 || (rc = get_nonce(&r, &m->nhi)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SST_NEGO_DH_PUB_MAX, &m->dhi)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SST_NEGO_DH_ID_MAX, &m->eidr)) < 0)
		return rc;
	return sst_xdr_expect_end(&r);
}

int
sst_nego_dhr1_decode(const struct sst_bytes *body, struct sst_nego_dhr1 *m)
{
	struct sst_xdr_reader r;
	int rc;

	sst_xdr_reader_init(&r, body->ptr, body->len);
	if ((rc = sst_xdr_get_i32(&r, &m->group)) < 0 ||
		(rc = sst_xdr_get_i32(&r, &m->keylen)) < 0 || (rc = get_nonce(&r, &m->nhi)) < 0 ||
		(rc = get_nonce(&r, &m->nr)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SST_NEGO_DH_PUB_MAX, &m->dhr)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SST_NEGO_DH_ID_MAX, &m->hhkr)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SST_NEGO_DH_ID_MAX, &m->eidr)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SST_NEGO_DH_BLOCK_MAX, &m->pkr)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SST_NEGO_DH_BLOCK_MAX, &m->sr)) < 0)
		return rc;
	return sst_xdr_expect_end(&r);
}

int
sst_nego_dhi2_decode(const struct sst_bytes *body, struct sst_nego_dhi2 *m)
{
	struct sst_xdr_reader r;
	int rc;

	sst_xdr_reader_init(&r, body->ptr, body->len);
	if ((rc = sst_xdr_get_i32(&r, &m->group)) < 0 ||
		(rc = sst_xdr_get_i32(&r, &m->keylen)) < 0 || (rc = get_nonce(&r, &m->ni)) < 0 ||
		(rc = get_nonce(&r, &m->nr)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SST_NEGO_DH_PUB_MAX, &m->dhi)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SST_NEGO_DH_PUB_MAX, &m->dhr)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SST_NEGO_DH_ID_MAX, &m->hhkr)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SST_NEGO_DH_BLOCK_MAX, &m->idi)) < 0)
		return rc;
	return sst_xdr_expect_end(&r);
}

int
sst_nego_dhr2_decode(const struct sst_bytes *body, struct sst_nego_dhr2 *m)
{
	struct sst_xdr_reader r;
	int rc;

	sst_xdr_reader_init(&r, body->ptr, body->len);
	if ((rc = get_nonce(&r, &m->nhi)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SST_NEGO_DH_BLOCK_MAX, &m->idr)) < 0)
		return rc;
	return sst_xdr_expect_end(&r);
}

/* The chunk count lives at offset 4 and is rewritten as chunks are added. */
static void
builder_store_count(struct sst_nego_builder *b)
{
	struct sst_xdr_writer at = {b->w.buf, b->w.cap, 4};

	sst_xdr_put_u32(&at, b->nchunks);
}

int
sst_nego_build_begin(struct sst_nego_builder *b, void *buf, size_t cap)
{
	sst_xdr_writer_init(&b->w, buf, cap);
	b->nchunks = 0;
	if (cap < SST_NEGO_HDR_LEN)
		return -ENOSPC;
	sst_xdr_put_u32(&b->w, SST_NEGO_MAGIC);
	sst_xdr_put_u32(&b->w, 0);
	return 0;
}

/* Open a chunk: reserve its length word and write the type. Returns the
 * offset of the length word so chunk_close() can fill it in. */
static int
chunk_open(struct sst_nego_builder *b, int32_t type, size_t *len_pos)
{
	if (b->nchunks >= SST_NEGO_CHUNKS_MAX)
		return -EINVAL;
	*len_pos = b->w.pos;
	if (sst_xdr_put_u32(&b->w, 0) < 0 || sst_xdr_put_i32(&b->w, type) < 0) {
		b->w.pos = *len_pos;
		return -ENOSPC;
	}
	return 0;
}

/* Close a chunk, or roll it back entirely when rc reports a failure. The
 * length word counts the chunk bytes without the pad bytes that follow them
 * (pad: how many of the bytes written after the length word are padding). */
static int
chunk_close(struct sst_nego_builder *b, size_t len_pos, size_t pad, int rc)
{
	struct sst_xdr_writer at;

	if (rc < 0) {
		b->w.pos = len_pos;
		return rc;
	}
	sst_xdr_writer_init(&at, b->w.buf, b->w.cap);
	at.pos = len_pos;
	sst_xdr_put_u32(&at, (uint32_t)(b->w.pos - len_pos - 4 - pad));
	b->nchunks++;
	builder_store_count(b);
	return 0;
}

/* What the decoders accept is all the builder may produce. */
static bool
opaques_ok(const struct sst_bytes *a, const struct sst_bytes *b, const struct sst_bytes *c)
{
	return a->len <= SST_NEGO_OPAQUE_MAX && b->len <= SST_NEGO_OPAQUE_MAX &&
	       c->len <= SST_NEGO_OPAQUE_MAX;
}

int
sst_nego_build_chki1(struct sst_nego_builder *b, const struct sst_nego_chki1 *i1)
{
	size_t len_pos;
	int rc;

	if (!channel_number_ok(i1->chani, false) || !opaques_ok(&i1->cookie, &i1->ulpi, &i1->cpkt))
		return -EINVAL;
	rc = chunk_open(b, SST_NEGO_CHKI1, &len_pos);
	if (rc < 0)
		return rc;
	if ((rc = sst_xdr_put_u32(&b->w, i1->cki)) == 0 &&
		(rc = sst_xdr_put_u32(&b->w, i1->chani)) == 0 &&
		(rc = sst_xdr_put_opaque(&b->w, i1->cookie.ptr, i1->cookie.len)) == 0 &&
		(rc = sst_xdr_put_opaque(&b->w, i1->ulpi.ptr, i1->ulpi.len)) == 0)
		rc = sst_xdr_put_opaque(&b->w, i1->cpkt.ptr, i1->cpkt.len);
	return chunk_close(b, len_pos, 0, rc);
}

int
sst_nego_build_chkr1(struct sst_nego_builder *b, const struct sst_nego_chkr1 *r1)
{
	size_t len_pos;
	int rc;

	if (!channel_number_ok(r1->chanr, true) || !opaques_ok(&r1->cookie, &r1->ulpr, &r1->cpkt))
		return -EINVAL;
	rc = chunk_open(b, SST_NEGO_CHKR1, &len_pos);
	if (rc < 0)
		return rc;
	if ((rc = sst_xdr_put_u32(&b->w, r1->cki)) == 0 &&
		(rc = sst_xdr_put_u32(&b->w, r1->ckr)) == 0 &&
		(rc = sst_xdr_put_u32(&b->w, r1->chanr)) == 0 &&
		(rc = sst_xdr_put_opaque(&b->w, r1->cookie.ptr, r1->cookie.len)) == 0 &&
		(rc = sst_xdr_put_opaque(&b->w, r1->ulpr.ptr, r1->ulpr.len)) == 0)
		rc = sst_xdr_put_opaque(&b->w, r1->cpkt.ptr, r1->cpkt.len);
	return chunk_close(b, len_pos, 0, rc);
}

int
sst_nego_build_packet(struct sst_nego_builder *b, const void *pkt, size_t len)
{
	size_t len_pos;
	int rc;

	/* What the receiver accepts (nego_sec_on_packet()) is all we build. */
	if (pkt == NULL || len == 0 || len > SST_NEGO_PACKET_MAX)
		return -EINVAL;
	rc = chunk_open(b, SST_NEGO_PACKET, &len_pos);
	if (rc < 0)
		return rc;
	/* The body is an XDR opaque<>, its padding included, so the chunk
	 * length is a multiple of 4 and nothing pads the chunk itself. */
	rc = sst_xdr_put_opaque(&b->w, pkt, len);
	return chunk_close(b, len_pos, 0, rc);
}

int
sst_nego_build_raw(struct sst_nego_builder *b, int32_t type, const void *body, size_t len)
{
	size_t len_pos;
	int rc;

	rc = chunk_open(b, type, &len_pos);
	if (rc < 0)
		return rc;
	/* A body of any length is framed like opaque<>: the length word says
	 * 4 + len, and the padding to four is not part of the chunk. */
	rc = sst_xdr_put_fixed(&b->w, body, len);
	return chunk_close(b, len_pos, (4 - (len & 3)) & 3, rc);
}

size_t
sst_nego_build_end(struct sst_nego_builder *b)
{
	return b->w.pos;
}
