/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "sst_error.h"
#include "sst_xdr.h"

static inline uint32_t
load_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void
store_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static inline size_t
pad4(size_t n)
{
	return (4 - (n & 3)) & 3;
}

int
sst_xdr_get_u32(struct sst_xdr_reader *r, uint32_t *v)
{
	if (sst_xdr_remaining(r) < 4)
		return -SST_ETRUNC;
	*v = load_be32(r->buf + r->pos);
	r->pos += 4;
	return 0;
}

int
sst_xdr_get_i32(struct sst_xdr_reader *r, int32_t *v)
{
	uint32_t u;
	int rc = sst_xdr_get_u32(r, &u);

	if (rc == 0)
		*v = (int32_t)u;
	return rc;
}

int
sst_xdr_get_u64(struct sst_xdr_reader *r, uint64_t *v)
{
	if (sst_xdr_remaining(r) < 8)
		return -SST_ETRUNC;
	*v = (uint64_t)load_be32(r->buf + r->pos) << 32 | load_be32(r->buf + r->pos + 4);
	r->pos += 8;
	return 0;
}

int
sst_xdr_get_bool(struct sst_xdr_reader *r, bool *v)
{
	uint32_t u;
	int rc;

	if (sst_xdr_remaining(r) < 4)
		return -SST_ETRUNC;
	u = load_be32(r->buf + r->pos);
	if (u > 1)
		return -SST_EBADVALUE;
	rc = sst_xdr_get_u32(r, &u);
	*v = u != 0;
	return rc;
}

/* The bytes and their padding are checked before the cursor moves, so a
 * failed read leaves the reader where it was. */
int
sst_xdr_get_fixed(struct sst_xdr_reader *r, size_t n, const uint8_t **data)
{
	size_t pad = pad4(n);
	const uint8_t *p;

	if (n > sst_xdr_remaining(r) || pad > sst_xdr_remaining(r) - n)
		return -SST_ETRUNC;
	p = r->buf + r->pos;
	for (size_t i = 0; i < pad; i++)
		if (p[n + i] != 0)
			return -SST_EBADPAD;
	*data = p;
	r->pos += n + pad;
	return 0;
}

int
sst_xdr_get_opaque(struct sst_xdr_reader *r, uint32_t max, struct sst_bytes *out)
{
	struct sst_xdr_reader probe = *r;
	uint32_t n;
	const uint8_t *p;
	int rc;

	rc = sst_xdr_get_u32(&probe, &n);
	if (rc < 0)
		return rc;
	if (n > max)
		return -SST_ETOOLONG;
	rc = sst_xdr_get_fixed(&probe, n, &p);
	if (rc < 0)
		return rc;
	out->ptr = p;
	out->len = n;
	*r = probe;
	return 0;
}

int
sst_xdr_get_string(struct sst_xdr_reader *r, uint32_t max, struct sst_bytes *out)
{
	struct sst_xdr_reader probe = *r;
	struct sst_bytes s;
	int rc;

	rc = sst_xdr_get_opaque(&probe, max, &s);
	if (rc < 0)
		return rc;
	if (s.len > 0 && memchr(s.ptr, 0, s.len) != NULL)
		return -SST_EBADVALUE;
	*out = s;
	*r = probe;
	return 0;
}

int
sst_xdr_expect_end(const struct sst_xdr_reader *r)
{
	return sst_xdr_remaining(r) == 0 ? 0 : -SST_ETRAILING;
}

static inline size_t
writer_room(const struct sst_xdr_writer *w)
{
	return w->cap - w->pos;
}

int
sst_xdr_put_u32(struct sst_xdr_writer *w, uint32_t v)
{
	if (writer_room(w) < 4)
		return -ENOSPC;
	store_be32(w->buf + w->pos, v);
	w->pos += 4;
	return 0;
}

int
sst_xdr_put_i32(struct sst_xdr_writer *w, int32_t v)
{
	return sst_xdr_put_u32(w, (uint32_t)v);
}

int
sst_xdr_put_u64(struct sst_xdr_writer *w, uint64_t v)
{
	if (writer_room(w) < 8)
		return -ENOSPC;
	store_be32(w->buf + w->pos, v >> 32);
	store_be32(w->buf + w->pos + 4, (uint32_t)v);
	w->pos += 8;
	return 0;
}

int
sst_xdr_put_fixed(struct sst_xdr_writer *w, const void *data, size_t n)
{
	size_t pad = pad4(n);

	if (n > writer_room(w) || pad > writer_room(w) - n)
		return -ENOSPC;
	if (n > 0)
		memcpy(w->buf + w->pos, data, n);
	memset(w->buf + w->pos + n, 0, pad);
	w->pos += n + pad;
	return 0;
}

int
sst_xdr_put_opaque(struct sst_xdr_writer *w, const void *data, size_t n)
{
	if (n > UINT32_MAX)
		return -EINVAL;
	if (writer_room(w) < sst_xdr_opaque_size(n))
		return -ENOSPC;
	sst_xdr_put_u32(w, (uint32_t)n);
	return sst_xdr_put_fixed(w, data, n);
}

int
sst_xdr_put_string(struct sst_xdr_writer *w, const char *s, size_t n)
{
	return sst_xdr_put_opaque(w, s, n);
}
