/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the XDR reader (lib/common/xdr.c), driven by a program
 * taken from the input, so that any sequence of calls meets any bytes.
 *
 * Input layout: byte 0 is the program length P, the next P bytes are the
 * program, and everything after it is the XDR input the program reads. Each
 * instruction is one byte: the low 3 bits choose the call (u32, i32, u64,
 * bool, fixed, opaque, string, expect_end) and the high 5 bits are a writer
 * capacity for the short-writer check below. fixed, opaque and string take
 * one more program byte: n for fixed, max for opaque and string (255 means
 * UINT32_MAX). The program keeps going after a failed call.
 *
 * After every call:
 *  - the return code equals that of a reference model written from RFC 4506
 *    and the header's contract (which error, for which input);
 *  - on failure the cursor has not moved; on success it moved by exactly the
 *    item's encoded size and never past the end of the input;
 *  - results (fixed data, opaque and string bytes) lie inside the consumed
 *    bytes, and a string holds no NUL;
 *  - encoding the result again with the writer gives the consumed bytes
 *    exactly, into a buffer of exactly that size;
 *  - a writer with less room than the item refuses with -ENOSPC, does not
 *    move and writes nothing.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "sst_error.h"
#include "sst_xdr.h"

enum xdr_op {
	OP_U32,
	OP_I32,
	OP_U64,
	OP_BOOL,
	OP_FIXED,
	OP_OPAQUE,
	OP_STRING,
	OP_END,
};

/* What one read produced, for the re-encoding checks. */
struct xdr_item {
	enum xdr_op op;
	uint64_t num;	    /* u32, i32 (as uint32_t), u64, bool */
	const uint8_t *ptr; /* fixed, opaque, string */
	size_t n;
};

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

static bool
all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0)
			return false;
	return true;
}

/* Reference model: the code a call must return at this cursor, and the
 * encoded size of the item when it succeeds. */
static int
model(enum xdr_op op, uint32_t arg, const uint8_t *buf, size_t len, size_t pos, size_t *size)
{
	size_t left = len - pos;
	const uint8_t *p = buf + pos;
	uint64_t n;

	switch (op) {
	case OP_U32:
	case OP_I32:
		*size = 4;
		return left < 4 ? -SST_ETRUNC : 0;
	case OP_U64:
		*size = 8;
		return left < 8 ? -SST_ETRUNC : 0;
	case OP_BOOL:
		*size = 4;
		if (left < 4)
			return -SST_ETRUNC;
		return be32(p) > 1 ? -SST_EBADVALUE : 0;
	case OP_FIXED:
		*size = arg + pad4(arg);
		if (*size > left)
			return -SST_ETRUNC;
		return all_zero(p + arg, pad4(arg)) ? 0 : -SST_EBADPAD;
	case OP_OPAQUE:
	case OP_STRING:
		if (left < 4)
			return -SST_ETRUNC;
		n = be32(p);
		if (n > arg)
			return -SST_ETOOLONG;
		if (4 + n + pad4(n) > left)
			return -SST_ETRUNC;
		if (!all_zero(p + 4 + n, pad4(n)))
			return -SST_EBADPAD;
		*size = 4 + n + pad4(n);
		if (op == OP_STRING && n > 0 && memchr(p + 4, 0, n) != NULL)
			return -SST_EBADVALUE;
		return 0;
	case OP_END:
		*size = 0;
		return left == 0 ? 0 : -SST_ETRAILING;
	}
	return -EINVAL;
}

static int
run_op(struct sst_xdr_reader *r, enum xdr_op op, uint32_t arg, struct xdr_item *it)
{
	struct sst_bytes b = {NULL, 0};
	uint32_t u32 = 0;
	int32_t i32 = 0;
	bool flag = false;
	int rc;

	it->op = op;
	switch (op) {
	case OP_U32:
		rc = sst_xdr_get_u32(r, &u32);
		it->num = u32;
		return rc;
	case OP_I32:
		rc = sst_xdr_get_i32(r, &i32);
		it->num = (uint32_t)i32;
		return rc;
	case OP_U64:
		return sst_xdr_get_u64(r, &it->num);
	case OP_BOOL:
		rc = sst_xdr_get_bool(r, &flag);
		it->num = flag;
		return rc;
	case OP_FIXED:
		it->n = arg;
		return sst_xdr_get_fixed(r, arg, &it->ptr);
	case OP_OPAQUE:
		rc = sst_xdr_get_opaque(r, arg, &b);
		break;
	case OP_STRING:
		rc = sst_xdr_get_string(r, arg, &b);
		break;
	case OP_END:
	default:
		return sst_xdr_expect_end(r);
	}
	it->ptr = b.ptr;
	it->n = b.len;
	return rc;
}

static int
put_item(struct sst_xdr_writer *w, const struct xdr_item *it)
{
	switch (it->op) {
	case OP_U32:
	case OP_BOOL:
		return sst_xdr_put_u32(w, (uint32_t)it->num);
	case OP_I32:
		return sst_xdr_put_i32(w, (int32_t)(uint32_t)it->num);
	case OP_U64:
		return sst_xdr_put_u64(w, it->num);
	case OP_FIXED:
		return sst_xdr_put_fixed(w, it->ptr, it->n);
	case OP_OPAQUE:
		return sst_xdr_put_opaque(w, it->ptr, it->n);
	case OP_STRING:
		return sst_xdr_put_string(w, (const char *)it->ptr, it->n);
	case OP_END:
	default:
		return 0;
	}
}

/* Encode the item again: into exactly its size (ASan catches any write past
 * it) and into a writer of short_cap bytes, which must refuse cleanly when
 * that is too little. */
static void
check_reencode(const struct xdr_item *it, const uint8_t *consumed, size_t size, size_t short_cap)
{
	struct sst_xdr_writer w;
	uint8_t small[32];
	uint8_t *out;

	out = malloc(size > 0 ? size : 1);
	FUZZ_CHECK(out != NULL);
	sst_xdr_writer_init(&w, out, size);
	FUZZ_CHECK(put_item(&w, it) == 0);
	FUZZ_CHECK(w.pos == size);
	FUZZ_CHECK(size == 0 || memcmp(out, consumed, size) == 0);
	free(out);

	memset(small, 0xa5, sizeof(small));
	sst_xdr_writer_init(&w, small, short_cap);
	if (short_cap < size) {
		FUZZ_CHECK(put_item(&w, it) == -ENOSPC);
		FUZZ_CHECK(w.pos == 0);
		for (size_t i = 0; i < sizeof(small); i++)
			FUZZ_CHECK(small[i] == 0xa5);
	} else {
		FUZZ_CHECK(put_item(&w, it) == 0);
		FUZZ_CHECK(w.pos == size);
		FUZZ_CHECK(size == 0 || memcmp(small, consumed, size) == 0);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *prog, *buf;
	size_t plen, len, ip = 0;
	struct sst_xdr_reader r;

	if (size == 0)
		return 0;
	plen = data[0] < size - 1 ? data[0] : size - 1;
	prog = data + 1;
	buf = prog + plen;
	len = size - 1 - plen;
	sst_xdr_reader_init(&r, buf, len);

	while (ip < plen) {
		uint8_t insn = prog[ip++];
		enum xdr_op op = (enum xdr_op)(insn & 7);
		size_t short_cap = insn >> 3;
		uint32_t arg = 0;
		size_t before = r.pos, want_size = 0;
		struct xdr_item it = {OP_END, 0, NULL, 0};
		int want, rc;

		if (op == OP_FIXED || op == OP_OPAQUE || op == OP_STRING) {
			arg = ip < plen ? prog[ip++] : 0;
			if (arg == 255 && op != OP_FIXED)
				arg = UINT32_MAX;
		}
		want = model(op, arg, buf, len, before, &want_size);
		rc = run_op(&r, op, arg, &it);

		FUZZ_CHECK(rc == want);
		FUZZ_CHECK(r.buf == buf && r.len == len);
		FUZZ_CHECK(r.pos <= r.len);
		FUZZ_CHECK(sst_xdr_remaining(&r) == len - r.pos);
		if (rc < 0) {
			FUZZ_CHECK(r.pos == before);
			continue;
		}
		FUZZ_CHECK(r.pos == before + want_size);
		switch (op) {
		case OP_U32:
		case OP_I32:
			FUZZ_CHECK(it.num == be32(buf + before));
			break;
		case OP_BOOL:
			FUZZ_CHECK(it.num == be32(buf + before));
			break;
		case OP_U64:
			FUZZ_CHECK(it.num ==
				   ((uint64_t)be32(buf + before) << 32 | be32(buf + before + 4)));
			break;
		case OP_FIXED:
			FUZZ_CHECK(it.ptr == buf + before);
			FUZZ_CHECK(it.n + pad4(it.n) == want_size);
			break;
		case OP_OPAQUE:
		case OP_STRING:
			FUZZ_CHECK(it.ptr == buf + before + 4);
			FUZZ_CHECK(FUZZ_INSIDE(it.ptr, it.n, buf, len));
			FUZZ_CHECK(it.n <= arg);
			FUZZ_CHECK(sst_xdr_opaque_size(it.n) == want_size);
			if (op == OP_STRING)
				FUZZ_CHECK(it.n == 0 || memchr(it.ptr, 0, it.n) == NULL);
			break;
		case OP_END:
			FUZZ_CHECK(r.pos == len);
			break;
		}
		check_reencode(&it, buf + before, want_size, short_cap);
	}
	return 0;
}
