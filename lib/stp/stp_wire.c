/* SPDX-License-Identifier: BSD-3-Clause */
/* Encoding and checking STP's negotiation messages (stp_wire.h). */
#include <errno.h>
#include <string.h>

#include "stp_wire.h"

int
stp_hdr_check(const struct stp_hdr *h)
{
	uint32_t len = rte_be_to_cpu_32(h->len);

	if (h->version != STP_WIRE_VERSION || h->zero != 0)
		return -EPROTO;
	switch (h->type) {
	case SST_STP_MSG_USE:
	case SST_STP_MSG_OK:
	case SST_STP_MSG_SENDME:
		return len == SST_STP_HASH_LEN ? 0 : -EPROTO;
	case SST_STP_MSG_CODE:
		if (len <= SST_STP_HASH_LEN)
			return -EPROTO;
		return len - SST_STP_HASH_LEN <= SST_STP_CODE_MAX ? 0 : -EFBIG;
	case SST_STP_MSG_NO:
		return len >= STP_NO_FIXED && len <= STP_NO_FIXED + SST_STP_DETAIL_MAX ? 0
										       : -EPROTO;
	default:
		return -EPROTO;
	}
}

size_t
stp_encode(uint8_t *out, size_t cap, enum sst_stp_msg type, const uint8_t *hash, uint32_t extra_len,
	uint8_t reason, const char *detail)
{
	size_t dlen = 0, need = STP_HDR_LEN + SST_STP_HASH_LEN;
	struct stp_hdr h = {.type = (uint8_t)type, .version = STP_WIRE_VERSION};

	if (type == SST_STP_MSG_NO) {
		dlen = detail != NULL ? strnlen(detail, SST_STP_DETAIL_MAX) : 0;
		extra_len = (uint32_t)(1 + dlen);
		need += extra_len;
	}
	if (cap < need)
		return 0;
	h.len = rte_cpu_to_be_32(SST_STP_HASH_LEN + extra_len);
	memcpy(out, &h, sizeof(h));
	memcpy(out + STP_HDR_LEN, hash, SST_STP_HASH_LEN);
	if (type == SST_STP_MSG_NO) {
		out[STP_HDR_LEN + SST_STP_HASH_LEN] = reason;
		memcpy(out + STP_HDR_LEN + STP_NO_FIXED, detail, dlen);
	}
	return need;
}
