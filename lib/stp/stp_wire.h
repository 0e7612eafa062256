/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * STP's negotiation messages (docs/stp.md, "Shipping a module"): an
 * SST-DPDK extension the 2007 prototype never sends, carried on a control
 * stream of its own service. Every message is an 8-byte header and a body:
 *
 *   u8 type | u8 version (1) | u16 zero | u32 body length (big-endian)
 *
 *   USE, OK, SENDME: the module's BLAKE2b-256 (32 bytes)
 *   CODE:            the hash, then the module's ELF image
 *   NO:              the hash, u8 reason (enum sst_stp_reason), then a
 *                    human-readable detail of at most SST_STP_DETAIL_MAX bytes
 */
#ifndef STP_WIRE_H
#define STP_WIRE_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_byteorder.h>

#include "sst_stp.h"

enum {
	STP_WIRE_VERSION = 1,
	STP_HDR_LEN = 8,
	STP_NO_FIXED = SST_STP_HASH_LEN + 1, /* hash and reason */
};

struct stp_hdr {
	uint8_t type;
	uint8_t version;
	rte_be16_t zero;
	rte_be32_t len;
} __attribute__((packed));

static_assert(sizeof(struct stp_hdr) == STP_HDR_LEN, "STP header is 8 bytes");

/*
 * Check a received header: version 1, zero field 0, a known type whose body
 * length is in range (fixed for USE, OK and SENDME; at most the hash plus
 * SST_STP_CODE_MAX for CODE; hash, reason and detail for NO).
 * Returns 0, -EPROTO (version, zero field, unknown type, bad length) or
 * -EFBIG (a CODE longer than SST_STP_CODE_MAX).
 */
int stp_hdr_check(const struct stp_hdr *h);

/*
 * Encode a message with a body of @p hash and @p extra_len more bytes
 * announced (not written) into @p out, which has room for @p cap bytes:
 * the header and the hash, plus for NO the reason and the detail.
 * Returns the bytes written, or 0 when @p cap is too small.
 */
size_t stp_encode(uint8_t *out, size_t cap, enum sst_stp_msg type, const uint8_t *hash,
	uint32_t extra_len, uint8_t reason, const char *detail);

#endif /* STP_WIRE_H */
