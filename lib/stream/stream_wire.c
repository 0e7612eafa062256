/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "sst_error.h"
#include "stream_wire.h"

/* Per type: the flag bits it defines (paper Figures 5, 6; prototype notes
 * 2.4); its header length is sst_stream_hdr_len()'s. Index 0 and 9-15 are
 * invalid types. */
static const struct {
	uint8_t flags;
	const char *name;
} stream_types[16] = {
	[SST_STREAM_INIT] = {SST_FLAGS_DATA_ALL, "Init"},
	[SST_STREAM_REPLY] = {SST_FLAGS_DATA_ALL, "Reply"},
	[SST_STREAM_DATA] = {SST_FLAGS_DATA_ALL, "Data"},
	[SST_STREAM_DATAGRAM] = {SST_FLAGS_DGRAM_ALL, "Datagram"},
	[SST_STREAM_ACK] = {0, "Ack"},
	[SST_STREAM_RESET] = {SST_FLAGS_RESET_ALL, "Reset"},
	[SST_STREAM_ATTACH] = {SST_FLAGS_ATTACH_ALL, "Attach"},
	[SST_STREAM_DETACH] = {0, "Detach"},
};

const char *
sst_stream_type_name(uint8_t type)
{
	if (sst_stream_hdr_len(type) == 0)
		return "?";
	return stream_types[type].name;
}

int
sst_stream_hdr_decode(const void *buf, size_t len, struct sst_stream_hdr *hdr)
{
	struct sst_stream_hdr_wire common;
	uint8_t type, flags;
	size_t hlen;

	if (len < SST_STREAM_HDR_SHORT)
		return -SST_ETRUNC;
	memcpy(&common, buf, sizeof(common));
	type = common.type_flags >> 4;
	flags = common.type_flags & 0xf;
	hlen = sst_stream_hdr_len(type);
	if (hlen == 0)
		return -SST_EBADTYPE;
	if (len < hlen)
		return -SST_ETRUNC;
	if (flags & ~stream_types[type].flags)
		return -SST_EBADFLAGS;
	if (common.window & SST_WINDOW_RESERVED)
		return -SST_ERESERVED;

	memset(hdr, 0, sizeof(*hdr));
	hdr->sid = rte_be_to_cpu_16(common.sid);
	hdr->type = type;
	hdr->flags = flags;
	hdr->window = common.window;
	if (type == SST_STREAM_INIT || type == SST_STREAM_REPLY) {
		struct sst_stream_init_wire w;

		memcpy(&w, buf, sizeof(w));
		hdr->ref_sid = rte_be_to_cpu_16(w.ref_sid);
		hdr->tsn = rte_be_to_cpu_16(w.tsn);
	} else if (type == SST_STREAM_DATA) {
		struct sst_stream_data_wire w;

		memcpy(&w, buf, sizeof(w));
		hdr->tsn = rte_be_to_cpu_32(w.tsn);
	}
	return (int)hlen;
}

int
sst_stream_hdr_encode(const struct sst_stream_hdr *hdr, void *buf, size_t cap)
{
	struct sst_stream_hdr_wire common;
	size_t hlen = sst_stream_hdr_len(hdr->type);
	bool short_tsn = hdr->type == SST_STREAM_INIT || hdr->type == SST_STREAM_REPLY;

	if (hlen == 0 || hdr->flags & ~stream_types[hdr->type].flags ||
		hdr->window & SST_WINDOW_RESERVED || (short_tsn && hdr->tsn > UINT16_MAX))
		return -EINVAL;
	if (cap < hlen)
		return -ENOSPC;

	common.sid = rte_cpu_to_be_16(hdr->sid);
	common.type_flags = (uint8_t)(hdr->type << 4 | hdr->flags);
	common.window = hdr->window;
	if (short_tsn) {
		struct sst_stream_init_wire w = {
			.hdr = common,
			.ref_sid = rte_cpu_to_be_16(hdr->ref_sid),
			.tsn = rte_cpu_to_be_16((uint16_t)hdr->tsn),
		};
		memcpy(buf, &w, sizeof(w));
	} else if (hdr->type == SST_STREAM_DATA) {
		struct sst_stream_data_wire w = {.hdr = common, .tsn = rte_cpu_to_be_32(hdr->tsn)};

		memcpy(buf, &w, sizeof(w));
	} else {
		memcpy(buf, &common, sizeof(common));
	}
	return (int)hlen;
}

uint8_t
sst_window_encode(uint64_t free_bytes)
{
	/* The largest e with 2^e - 1 <= free, i.e. floor(log2(free + 1)),
	 * at most the field's maximum: one bit scan, not a loop, since it
	 * runs for every packet that advertises a window. */
	if (free_bytes >= (UINT64_C(1) << SST_WINDOW_EXP_MASK) - 1)
		return SST_WINDOW_EXP_MASK;
	return (uint8_t)(63 - __builtin_clzll(free_bytes + 1));
}

static int
usid_decode(struct sst_xdr_reader *r, struct sst_usid *usid)
{
	struct sst_bytes hcid;
	int rc;

	rc = sst_xdr_get_u64(r, &usid->counter);
	if (rc < 0)
		return rc;
	rc = sst_xdr_get_opaque(r, SST_HCID_MAX, &hcid);
	if (rc < 0)
		return rc;
	if (hcid.len == 0)
		return -SST_EBADVALUE;
	usid->hcid_len = (uint8_t)hcid.len;
	memcpy(usid->hcid, hcid.ptr, hcid.len);
	return 0;
}

static int
usid_encode(struct sst_xdr_writer *w, const struct sst_usid *usid)
{
	int rc;

	if (usid->hcid_len == 0 || usid->hcid_len > SST_HCID_MAX)
		return -EINVAL;
	rc = sst_xdr_put_u64(w, usid->counter);
	if (rc < 0)
		return rc;
	return sst_xdr_put_opaque(w, usid->hcid, usid->hcid_len);
}

int
sst_attach_body_decode(const void *buf, size_t len, bool has_parent, struct sst_usid *usid,
	struct sst_usid *parent)
{
	struct sst_xdr_reader r;
	int rc;

	sst_xdr_reader_init(&r, buf, len);
	rc = usid_decode(&r, usid);
	if (rc == 0 && has_parent)
		rc = usid_decode(&r, parent);
	if (rc == 0)
		rc = sst_xdr_expect_end(&r);
	return rc;
}

int
sst_attach_body_encode(
	const struct sst_usid *usid, const struct sst_usid *parent, void *buf, size_t cap)
{
	struct sst_xdr_writer w;
	int rc;

	sst_xdr_writer_init(&w, buf, cap);
	rc = usid_encode(&w, usid);
	if (rc == 0 && parent != NULL)
		rc = usid_encode(&w, parent);
	return rc < 0 ? rc : (int)w.pos;
}

int
sst_service_request_decode(const void *buf, size_t len, struct sst_service_request *req)
{
	struct sst_xdr_reader r;
	int32_t code;
	int rc;

	if (len > SST_SERVICE_MSG_MAX)
		return -SST_ETOOLONG;
	sst_xdr_reader_init(&r, buf, len);
	rc = sst_xdr_get_i32(&r, &code);
	if (rc < 0)
		return rc;
	if (code != SST_SERVICE_REQUEST)
		return -SST_EBADTYPE;
	rc = sst_xdr_get_string(&r, SST_SERVICE_NAME_MAX, &req->service);
	if (rc < 0)
		return rc;
	rc = sst_xdr_get_string(&r, SST_SERVICE_NAME_MAX, &req->protocol);
	if (rc < 0)
		return rc;
	if (req->service.len == 0 || req->protocol.len == 0)
		return -SST_EBADVALUE;
	return sst_xdr_expect_end(&r);
}

int
sst_service_request_encode(const char *service, const char *protocol, void *buf, size_t cap)
{
	struct sst_xdr_writer w;
	size_t slen, plen;
	int rc;

	if (service == NULL || protocol == NULL)
		return -EINVAL;
	slen = strlen(service);
	plen = strlen(protocol);
	if (slen == 0 || plen == 0 || slen > SST_SERVICE_NAME_MAX || plen > SST_SERVICE_NAME_MAX)
		return -EINVAL;
	sst_xdr_writer_init(&w, buf, cap);
	rc = sst_xdr_put_i32(&w, SST_SERVICE_REQUEST);
	if (rc == 0)
		rc = sst_xdr_put_string(&w, service, slen);
	if (rc == 0)
		rc = sst_xdr_put_string(&w, protocol, plen);
	return rc < 0 ? rc : (int)w.pos;
}

int
sst_service_reply_decode(const void *buf, size_t len, int32_t *error)
{
	struct sst_xdr_reader r;
	int32_t code;
	int rc;

	sst_xdr_reader_init(&r, buf, len);
	rc = sst_xdr_get_i32(&r, &code);
	if (rc < 0)
		return rc;
	if (code != SST_SERVICE_REPLY)
		return -SST_EBADTYPE;
	rc = sst_xdr_get_i32(&r, error);
	if (rc < 0)
		return rc;
	return sst_xdr_expect_end(&r);
}

int
sst_service_reply_encode(int32_t error, void *buf, size_t cap)
{
	struct sst_xdr_writer w;
	int rc;

	sst_xdr_writer_init(&w, buf, cap);
	if (cap < 8)
		return -ENOSPC;
	rc = sst_xdr_put_i32(&w, SST_SERVICE_REPLY);
	if (rc == 0)
		rc = sst_xdr_put_i32(&w, error);
	return rc < 0 ? rc : (int)w.pos;
}
