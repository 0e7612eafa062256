/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the stream layer's wire code (lib/stream/stream_wire.c):
 * stream headers, the window byte and Attach bodies (USIDs in XDR).
 *
 * Input: what follows the 8-byte channel header of a channel packet, without
 * the trailer: stream header, then payload (for Attach: the XDR body). The
 * seeds are real packets of the prototype.
 *
 * Invariants:
 *  - decode returns exactly what a table written from docs/wire-format.md
 *    section 4 predicts (header length by type, defined flags per type,
 *    reserved window bit), fields a type does not carry are zero, and a
 *    decoded header encodes to the identical bytes; the encoder refuses what
 *    the table forbids and a short buffer, without writing;
 *  - the window byte: credit(e) = 2^e - 1 and encode(credit(e)) = e; for any
 *    free space, encode() picks the largest e whose credit fits;
 *  - an Attach body that decodes encodes to the identical bytes, and decoding
 *    it with the other Init flag setting fails the way the layout says
 *    (a missing parent: -SST_ETRAILING; an expected one: -SST_ETRUNC);
 *  - a USID built from the input encodes when its ID length is 1..32 and
 *    decodes back to itself.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "sst_error.h"
#include "stream_wire.h"

/* The header table of docs/wire-format.md section 4, kept independent of the
 * library's. */
static const struct {
	uint8_t hlen;
	uint8_t flags;
} spec[16] = {
	[1] = {8, 0x7}, /* Init */
	[2] = {8, 0x7}, /* Reply */
	[3] = {8, 0x7}, /* Data */
	[4] = {4, 0x3}, /* Datagram */
	[5] = {4, 0x0}, /* Ack */
	[6] = {4, 0x1}, /* Reset */
	[7] = {4, 0x9}, /* Attach */
	[8] = {4, 0x0}, /* Detach */
};

static uint64_t
load_be(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* Encode into exactly hlen bytes and into one byte less. */
static void
check_hdr_encode(const struct sst_stream_hdr *hdr, const uint8_t *expect, size_t hlen)
{
	uint8_t *out = malloc(hlen);

	FUZZ_CHECK(out != NULL);
	FUZZ_CHECK(sst_stream_hdr_encode(hdr, out, hlen) == (int)hlen);
	FUZZ_CHECK(memcmp(out, expect, hlen) == 0);
	memset(out, 0xa5, hlen);
	FUZZ_CHECK(sst_stream_hdr_encode(hdr, out, hlen - 1) == -ENOSPC);
	for (size_t i = 0; i < hlen; i++)
		FUZZ_CHECK(out[i] == 0xa5);
	free(out);
}

static void
check_hdr(const uint8_t *data, size_t size, struct sst_stream_hdr *hdr, int *hlen_out)
{
	uint8_t type, flags, window;
	size_t hlen;
	int rc;

	memset(hdr, 0x5a, sizeof(*hdr));
	rc = sst_stream_hdr_decode(data, size, hdr);
	*hlen_out = rc;
	if (size < SST_STREAM_HDR_SHORT) {
		FUZZ_CHECK(rc == -SST_ETRUNC);
		return;
	}
	type = data[2] >> 4;
	flags = data[2] & 0xf;
	window = data[3];
	hlen = spec[type].hlen;
	FUZZ_CHECK(sst_stream_hdr_len(type) == hlen);
	FUZZ_CHECK((strcmp(sst_stream_type_name(type), "?") == 0) == (hlen == 0));
	if (hlen == 0) {
		FUZZ_CHECK(rc == -SST_EBADTYPE);
		return;
	}
	if (size < hlen) {
		FUZZ_CHECK(rc == -SST_ETRUNC);
		return;
	}
	if (flags & ~spec[type].flags) {
		FUZZ_CHECK(rc == -SST_EBADFLAGS);
		return;
	}
	if (window & SST_WINDOW_RESERVED) {
		FUZZ_CHECK(rc == -SST_ERESERVED);
		return;
	}
	FUZZ_CHECK(rc == (int)hlen);
	FUZZ_CHECK(hdr->sid == load_be(data, 2));
	FUZZ_CHECK(hdr->type == type && hdr->flags == flags && hdr->window == window);
	if (type == SST_STREAM_INIT || type == SST_STREAM_REPLY) {
		FUZZ_CHECK(hdr->ref_sid == load_be(data + 4, 2));
		FUZZ_CHECK(hdr->tsn == load_be(data + 6, 2));
	} else if (type == SST_STREAM_DATA) {
		FUZZ_CHECK(hdr->ref_sid == 0);
		FUZZ_CHECK(hdr->tsn == load_be(data + 4, 4));
	} else {
		FUZZ_CHECK(hdr->ref_sid == 0 && hdr->tsn == 0);
	}
	check_hdr_encode(hdr, data, hlen);
}

/* Encoder range checks, with fields taken unconstrained from the input. */
static void
check_hdr_fields(const uint8_t *data, size_t size)
{
	struct sst_stream_hdr in, out;
	uint8_t wire[SST_STREAM_HDR_LONG];
	bool valid;
	int rc;

	if (size < 11)
		return;
	in.sid = (uint16_t)load_be(data, 2);
	in.type = data[2];
	in.flags = data[3];
	in.window = data[4];
	in.ref_sid = (uint16_t)load_be(data + 5, 2);
	in.tsn = (uint32_t)load_be(data + 7, 4);
	valid = in.type < 16 && spec[in.type].hlen != 0 && (in.flags & ~spec[in.type].flags) == 0 &&
		(in.window & SST_WINDOW_RESERVED) == 0 &&
		!((in.type == SST_STREAM_INIT || in.type == SST_STREAM_REPLY) &&
			in.tsn > UINT16_MAX);
	rc = sst_stream_hdr_encode(&in, wire, sizeof(wire));
	if (!valid) {
		FUZZ_CHECK(rc == -EINVAL);
		return;
	}
	FUZZ_CHECK(rc == spec[in.type].hlen);
	FUZZ_CHECK(sst_stream_hdr_decode(wire, (size_t)rc, &out) == rc);
	FUZZ_CHECK(out.sid == in.sid && out.type == in.type && out.flags == in.flags &&
		   out.window == in.window);
	if (in.type == SST_STREAM_INIT || in.type == SST_STREAM_REPLY)
		FUZZ_CHECK(out.ref_sid == in.ref_sid && out.tsn == in.tsn);
	else if (in.type == SST_STREAM_DATA)
		FUZZ_CHECK(out.ref_sid == 0 && out.tsn == in.tsn);
	else
		FUZZ_CHECK(out.ref_sid == 0 && out.tsn == 0);
}

static void
check_window(const uint8_t *data, size_t size)
{
	uint64_t free_bytes;
	uint8_t e;

	if (size < SST_STREAM_HDR_SHORT)
		return;
	e = data[3] & SST_WINDOW_EXP_MASK;
	FUZZ_CHECK(sst_window_credit(data[3]) == (UINT64_C(1) << e) - 1);
	FUZZ_CHECK(sst_window_encode(sst_window_credit(data[3])) == e);

	free_bytes = load_be(data + size - (size < 12 ? size : 8), size < 12 ? size : 8);
	free_bytes >>= data[0] & 63;
	e = sst_window_encode(free_bytes);
	FUZZ_CHECK(e <= SST_WINDOW_EXP_MASK);
	FUZZ_CHECK(sst_window_credit(e) <= free_bytes);
	if (e < SST_WINDOW_EXP_MASK)
		FUZZ_CHECK((UINT64_C(1) << (e + 1)) - 1 > free_bytes);
}

static bool
usid_equal(const struct sst_usid *a, const struct sst_usid *b)
{
	return a->counter == b->counter && a->hcid_len == b->hcid_len &&
	       memcmp(a->hcid, b->hcid, a->hcid_len) == 0;
}

static void
check_usid(const struct sst_usid *u, const uint8_t *body, size_t len)
{
	FUZZ_CHECK(u->hcid_len >= 1 && u->hcid_len <= SST_HCID_MAX);
	FUZZ_CHECK(sst_xdr_opaque_size(u->hcid_len) + 8 <= len);
	FUZZ_CHECK(u->counter == load_be(body, 8));
	FUZZ_CHECK(load_be(body + 8, 4) == u->hcid_len);
	FUZZ_CHECK(memcmp(u->hcid, body + 12, u->hcid_len) == 0);
}

static void
check_attach(const struct sst_stream_hdr *hdr, const uint8_t *body, size_t len)
{
	bool has_parent = (hdr->flags & SST_FLAG_ATTACH_INIT) != 0;
	struct sst_usid usid, parent, again, again_parent;
	uint8_t *out;
	size_t first;
	int rc;

	rc = sst_attach_body_decode(body, len, has_parent, &usid, &parent);
	if (rc < 0) {
		FUZZ_CHECK(rc == -SST_ETRUNC || rc == -SST_ETOOLONG || rc == -SST_EBADPAD ||
			   rc == -SST_EBADVALUE || rc == -SST_ETRAILING);
		return;
	}
	FUZZ_CHECK(rc == 0);
	check_usid(&usid, body, len);
	first = 8 + sst_xdr_opaque_size(usid.hcid_len);
	if (has_parent) {
		check_usid(&parent, body + first, len - first);
		FUZZ_CHECK(first + 8 + sst_xdr_opaque_size(parent.hcid_len) == len);
	} else {
		FUZZ_CHECK(first == len);
	}

	/* Encode into exactly the body's size, then into one byte less. */
	out = malloc(len);
	FUZZ_CHECK(out != NULL);
	rc = sst_attach_body_encode(&usid, has_parent ? &parent : NULL, out, len);
	FUZZ_CHECK(rc == (int)len);
	FUZZ_CHECK(memcmp(out, body, len) == 0);
	FUZZ_CHECK(sst_attach_body_encode(&usid, has_parent ? &parent : NULL, out, len - 1) ==
		   -ENOSPC);
	free(out);

	/* Decoded with the other flag setting, the same bytes must fail. */
	rc = sst_attach_body_decode(body, len, !has_parent, &again, &again_parent);
	FUZZ_CHECK(rc == (has_parent ? -SST_ETRAILING : -SST_ETRUNC));

	/* And decoding twice gives the same answer. */
	FUZZ_CHECK(sst_attach_body_decode(body, len, has_parent, &again, &again_parent) == 0);
	FUZZ_CHECK(usid_equal(&again, &usid));
	FUZZ_CHECK(!has_parent || usid_equal(&again_parent, &parent));
}

/* A USID made from the input encodes iff its ID length is valid. */
static void
check_usid_fields(const uint8_t *data, size_t size)
{
	struct sst_usid in, out;
	uint8_t wire[8 + 4 + SST_HCID_MAX];
	size_t n;
	int rc;

	if (size < 9)
		return;
	memset(&in, 0, sizeof(in));
	in.counter = load_be(data, 8);
	in.hcid_len = data[8];
	n = size - 9 < SST_HCID_MAX ? size - 9 : SST_HCID_MAX;
	memcpy(in.hcid, data + 9, n);
	rc = sst_attach_body_encode(&in, NULL, wire, sizeof(wire));
	if (in.hcid_len == 0 || in.hcid_len > SST_HCID_MAX) {
		FUZZ_CHECK(rc == -EINVAL);
		return;
	}
	FUZZ_CHECK(rc == (int)(8 + sst_xdr_opaque_size(in.hcid_len)));
	FUZZ_CHECK(sst_attach_body_decode(wire, (size_t)rc, false, &out, NULL) == 0);
	FUZZ_CHECK(usid_equal(&in, &out));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sst_stream_hdr hdr;
	int hlen;

	check_hdr(data, size, &hdr, &hlen);
	if (hlen > 0 && hdr.type == SST_STREAM_ATTACH)
		check_attach(&hdr, data + hlen, size - (size_t)hlen);
	check_window(data, size);
	check_hdr_fields(data, size);
	check_usid_fields(data, size);
	return 0;
}
