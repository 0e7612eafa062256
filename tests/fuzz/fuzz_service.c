/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the service rendezvous messages that open a top-level
 * stream (lib/stream/stream_wire.c, docs/wire-format.md section 5): the
 * request (int32 0x101, string service, string protocol) and the reply
 * (int32 0x201, int32 error).
 *
 * Input: the first message on a stream, as carried by an Init or Reply at
 * offset 0 with the Message flag. The seeds are the prototype's
 * ConnectRequest/ConnectReply and hand-made variants.
 *
 * Invariants:
 *  - both decoders return what a model written from the message layout
 *    predicts, error code included;
 *  - a decoded request has names of 1..SST_SERVICE_NAME_MAX bytes without
 *    NUL, inside the message, and encodes to the identical bytes; a decoded
 *    reply encodes to the identical 8 bytes; encoders refuse a buffer one
 *    byte short with -ENOSPC;
 *  - a request built from names cut from the input is refused with -EINVAL
 *    exactly when a name is empty or too long, and otherwise decodes back to
 *    the same names.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "sst_error.h"
#include "stream_wire.h"

/* Longest request: code, two names of the maximum length. */
#define REQUEST_MAX (4 + 2 * (4 + SST_SERVICE_NAME_MAX))

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

/* One XDR string<SST_SERVICE_NAME_MAX>, as RFC 4506 and the header say. */
static int
model_string(const uint8_t *p, size_t len, size_t *pos, size_t *n_out)
{
	size_t left = len - *pos;
	uint32_t n;

	if (left < 4)
		return -SST_ETRUNC;
	n = be32(p + *pos);
	if (n > SST_SERVICE_NAME_MAX)
		return -SST_ETOOLONG;
	if (4 + (size_t)n + pad4(n) > left)
		return -SST_ETRUNC;
	for (size_t i = 0; i < pad4(n); i++)
		if (p[*pos + 4 + n + i] != 0)
			return -SST_EBADPAD;
	if (n > 0 && memchr(p + *pos + 4, 0, n) != NULL)
		return -SST_EBADVALUE;
	*n_out = n;
	*pos += 4 + n + pad4(n);
	return 0;
}

static int
model_request(const uint8_t *p, size_t len)
{
	size_t pos = 4, ns = 0, np = 0;
	int rc;

	if (len > SST_SERVICE_MSG_MAX)
		return -SST_ETOOLONG;
	if (len < 4)
		return -SST_ETRUNC;
	if (be32(p) != SST_SERVICE_REQUEST)
		return -SST_EBADTYPE;
	rc = model_string(p, len, &pos, &ns);
	if (rc == 0)
		rc = model_string(p, len, &pos, &np);
	if (rc < 0)
		return rc;
	if (ns == 0 || np == 0)
		return -SST_EBADVALUE;
	return pos == len ? 0 : -SST_ETRAILING;
}

static int
model_reply(const uint8_t *p, size_t len)
{
	if (len < 4)
		return -SST_ETRUNC;
	if (be32(p) != SST_SERVICE_REPLY)
		return -SST_EBADTYPE;
	if (len < 8)
		return -SST_ETRUNC;
	return len == 8 ? 0 : -SST_ETRAILING;
}

static char *
dup_name(const struct sst_bytes *b)
{
	char *s = malloc(b->len + 1);

	FUZZ_CHECK(s != NULL);
	memcpy(s, b->ptr, b->len);
	s[b->len] = '\0';
	return s;
}

static void
check_request(const uint8_t *data, size_t size)
{
	struct sst_service_request req;
	char *service, *protocol;
	uint8_t *out;
	int rc;

	rc = sst_service_request_decode(data, size, &req);
	FUZZ_CHECK(rc == model_request(data, size));
	if (rc < 0)
		return;
	FUZZ_CHECK(size <= REQUEST_MAX);
	FUZZ_CHECK(req.service.len >= 1 && req.service.len <= SST_SERVICE_NAME_MAX);
	FUZZ_CHECK(req.protocol.len >= 1 && req.protocol.len <= SST_SERVICE_NAME_MAX);
	FUZZ_CHECK(req.service.ptr == data + 8);
	FUZZ_CHECK(FUZZ_INSIDE(req.protocol.ptr, req.protocol.len, data, size));
	FUZZ_CHECK(memchr(req.service.ptr, 0, req.service.len) == NULL);
	FUZZ_CHECK(memchr(req.protocol.ptr, 0, req.protocol.len) == NULL);

	service = dup_name(&req.service);
	protocol = dup_name(&req.protocol);
	out = malloc(size);
	FUZZ_CHECK(out != NULL);
	FUZZ_CHECK(sst_service_request_encode(service, protocol, out, size) == (int)size);
	FUZZ_CHECK(memcmp(out, data, size) == 0);
	FUZZ_CHECK(sst_service_request_encode(service, protocol, out, size - 1) == -ENOSPC);
	free(out);
	free(protocol);
	free(service);
}

static void
check_reply(const uint8_t *data, size_t size)
{
	uint8_t *out;
	int32_t err = 0;
	int rc;

	rc = sst_service_reply_decode(data, size, &err);
	FUZZ_CHECK(rc == model_reply(data, size));
	if (rc < 0)
		return;
	FUZZ_CHECK((uint32_t)err == be32(data + 4));
	out = malloc(8);
	FUZZ_CHECK(out != NULL);
	FUZZ_CHECK(sst_service_reply_encode(err, out, 8) == 8);
	FUZZ_CHECK(memcmp(out, data, 8) == 0);
	FUZZ_CHECK(sst_service_reply_encode(err, out, 7) == -ENOSPC);
	free(out);
}

/* Encode names cut from the input: the bytes after byte 0, split where byte
 * 0 says, each name ending at its first NUL. */
static void
check_encode_names(const uint8_t *data, size_t size)
{
	struct sst_service_request req;
	uint8_t out[REQUEST_MAX];
	const char *service, *protocol;
	size_t cut, slen, plen;
	char *copy;
	int rc;

	if (size < 1)
		return;
	copy = malloc(size);
	FUZZ_CHECK(copy != NULL);
	memcpy(copy, data + 1, size - 1);
	copy[size - 1] = '\0';
	cut = (size - 1) * data[0] / 256;
	copy[cut] = '\0';
	service = copy;
	protocol = copy + cut + (cut < size - 1 ? 1 : 0);
	slen = strlen(service);
	plen = strlen(protocol);
	rc = sst_service_request_encode(service, protocol, out, sizeof(out));
	if (slen == 0 || plen == 0 || slen > SST_SERVICE_NAME_MAX || plen > SST_SERVICE_NAME_MAX) {
		FUZZ_CHECK(rc == -EINVAL);
	} else {
		FUZZ_CHECK(rc == (int)(4 + sst_xdr_opaque_size(slen) + sst_xdr_opaque_size(plen)));
		FUZZ_CHECK(sst_service_request_decode(out, (size_t)rc, &req) == 0);
		FUZZ_CHECK(req.service.len == slen && memcmp(req.service.ptr, service, slen) == 0);
		FUZZ_CHECK(
			req.protocol.len == plen && memcmp(req.protocol.ptr, protocol, plen) == 0);
		FUZZ_CHECK(sst_service_request_encode(service, protocol, out, (size_t)rc - 1) ==
			   -ENOSPC);
	}
	FUZZ_CHECK(sst_service_request_encode(NULL, protocol, out, sizeof(out)) == -EINVAL);
	FUZZ_CHECK(sst_service_request_encode(service, NULL, out, sizeof(out)) == -EINVAL);
	free(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_request(data, size);
	check_reply(data, size);
	check_encode_names(data, size);
	return 0;
}
