/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * XDR (RFC 4506) primitives for the SST negotiation protocol, the service
 * rendezvous messages and Attach bodies. Every item occupies a multiple of
 * four bytes; integers narrower than 32 bits are sent as full words; opaque
 * and string items are padded with zero bytes to a multiple of four.
 *
 * The reader never reads past its buffer and returns -SST_ETRUNC when an item
 * does not fit, -SST_EBADPAD for non-zero padding and -SST_ETOOLONG for a
 * variable-length item above the caller's bound. Variable-length results point
 * into the input buffer (no copies); they stay valid as long as it does.
 * The writer refuses with -ENOSPC an item that does not fit, and writes
 * nothing in that case.
 */
#ifndef SST_XDR_H
#define SST_XDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** A byte range inside a decoded buffer. */
struct sst_bytes {
	const uint8_t *ptr; /**< first byte, inside the input buffer */
	uint32_t len;	    /**< bytes at ptr */
};

/** Cursor over an XDR-encoded input buffer. */
struct sst_xdr_reader {
	const uint8_t *buf; /**< the input (the caller's) */
	size_t len;	    /**< bytes at buf */
	size_t pos;	    /**< bytes consumed so far */
};

/** Cursor over an output buffer being filled with XDR items. */
struct sst_xdr_writer {
	uint8_t *buf; /**< the output (the caller's) */
	size_t cap;   /**< bytes at buf */
	size_t pos;   /**< bytes written so far */
};

/** Store v as a big-endian (XDR) 32-bit word at p, for fixed layouts built
 * outside a writer (keys, hash inputs).
 * @param p Four bytes of output.
 * @param v The value. */
static inline void
sst_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/** Bytes an XDR opaque<> or string of n bytes occupies.
 * @param n Bytes of data.
 * @return The size, length word and padding included. */
static inline size_t
sst_xdr_opaque_size(size_t n)
{
	return 4 + ((n + 3) & ~(size_t)3);
}

/** Start reading @p buf.
 * @param r The cursor.
 * @param buf The input; it must outlive every result that points into it.
 * @param len Bytes at @p buf. */
static inline void
sst_xdr_reader_init(struct sst_xdr_reader *r, const void *buf, size_t len)
{
	r->buf = buf;
	r->len = len;
	r->pos = 0;
}

/** Bytes not yet consumed.
 * @param r The cursor.
 * @return That many. */
static inline size_t
sst_xdr_remaining(const struct sst_xdr_reader *r)
{
	return r->len - r->pos;
}

/** Read an unsigned int.
 * @param r The cursor.
 * @param v The value, on success.
 * @return 0 or -SST_ETRUNC. */
int sst_xdr_get_u32(struct sst_xdr_reader *r, uint32_t *v);

/** Read an int.
 * @param r The cursor.
 * @param v The value, on success.
 * @return 0 or -SST_ETRUNC. */
int sst_xdr_get_i32(struct sst_xdr_reader *r, int32_t *v);

/** Read an unsigned hyper (64 bits).
 * @param r The cursor.
 * @param v The value, on success.
 * @return 0 or -SST_ETRUNC. */
int sst_xdr_get_u64(struct sst_xdr_reader *r, uint64_t *v);

/**
 * Read a bool: a word that must be 0 or 1.
 * @param r The cursor.
 * @param v The value, on success.
 * @return 0, -SST_ETRUNC, or -SST_EBADVALUE for any other word.
 */
int sst_xdr_get_bool(struct sst_xdr_reader *r, bool *v);

/**
 * Read fixed-length opaque[n]: n bytes and padding to four.
 * @param r The cursor.
 * @param n Bytes of data.
 * @param data Set to the first of them, inside the input, on success.
 * @return 0, -SST_ETRUNC or -SST_EBADPAD.
 */
int sst_xdr_get_fixed(struct sst_xdr_reader *r, size_t n, const uint8_t **data);

/**
 * Read variable-length opaque<max>.
 * @param r The cursor.
 * @param max Largest length accepted.
 * @param out The bytes, inside the input, on success.
 * @return 0, -SST_ETRUNC, -SST_ETOOLONG (length above max) or -SST_EBADPAD.
 */
int sst_xdr_get_opaque(struct sst_xdr_reader *r, uint32_t max, struct sst_bytes *out);

/**
 * Read string<max>: like opaque<max>, and the bytes may not contain NUL, so
 * the result can be printed and compared safely (it is not NUL-terminated).
 * @param r The cursor.
 * @param max Largest length accepted.
 * @param out The bytes, inside the input, on success.
 * @return as sst_xdr_get_opaque(), or -SST_EBADVALUE for an embedded NUL.
 */
int sst_xdr_get_string(struct sst_xdr_reader *r, uint32_t max, struct sst_bytes *out);

/** Check that nothing follows.
 * @param r The cursor.
 * @return 0 if the whole input was consumed, else -SST_ETRAILING. */
int sst_xdr_expect_end(const struct sst_xdr_reader *r);

/** Start writing to @p buf.
 * @param w The cursor.
 * @param buf The output.
 * @param cap Bytes at @p buf. */
static inline void
sst_xdr_writer_init(struct sst_xdr_writer *w, void *buf, size_t cap)
{
	w->buf = buf;
	w->cap = cap;
	w->pos = 0;
}

/** Write an unsigned int.
 * @param w The cursor.
 * @param v The value.
 * @return 0 or -ENOSPC. */
int sst_xdr_put_u32(struct sst_xdr_writer *w, uint32_t v);

/** Write an int.
 * @param w The cursor.
 * @param v The value.
 * @return 0 or -ENOSPC. */
int sst_xdr_put_i32(struct sst_xdr_writer *w, int32_t v);

/** Write an unsigned hyper (64 bits).
 * @param w The cursor.
 * @param v The value.
 * @return 0 or -ENOSPC. */
int sst_xdr_put_u64(struct sst_xdr_writer *w, uint64_t v);

/** Write fixed-length opaque[n] with zero padding.
 * @param w The cursor.
 * @param data The bytes.
 * @param n Bytes at @p data.
 * @return 0 or -ENOSPC. */
int sst_xdr_put_fixed(struct sst_xdr_writer *w, const void *data, size_t n);

/**
 * Write variable-length opaque<>: length word, bytes, zero padding.
 * @param w The cursor.
 * @param data The bytes.
 * @param n Bytes at @p data.
 * @return 0, -ENOSPC, or -EINVAL if n does not fit a 32-bit length.
 */
int sst_xdr_put_opaque(struct sst_xdr_writer *w, const void *data, size_t n);

/** Write a string; same encoding as opaque<>.
 * @param w The cursor.
 * @param s The characters (no terminating NUL needed).
 * @param n Bytes of @p s written.
 * @return as sst_xdr_put_opaque(). */
int sst_xdr_put_string(struct sst_xdr_writer *w, const char *s, size_t n);

#endif /* SST_XDR_H */
