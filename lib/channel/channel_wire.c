/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "channel_wire.h"
#include "sst_error.h"

int
sst_chan_hdr_decode(const void *buf, size_t len, struct sst_chan_hdr *hdr)
{
	struct sst_chan_hdr_wire w;
	uint32_t word0, word1;

	if (len < SST_CHAN_HDR_LEN)
		return -SST_ETRUNC;
	memcpy(&w, buf, sizeof(w));
	word0 = rte_be_to_cpu_32(w.chan_tsn);
	word1 = rte_be_to_cpu_32(w.ack);
	if ((word0 >> 24) == 0)
		return -SST_EBADVALUE;
	if ((word1 >> 28) != 0)
		return -SST_ERESERVED;
	hdr->channel = word0 >> 24;
	hdr->tsn24 = word0 & SST_CHAN_SEQ_MASK;
	hdr->ack_count = (word1 >> 24) & 0xf;
	hdr->ack24 = word1 & SST_CHAN_SEQ_MASK;
	return SST_CHAN_HDR_LEN;
}

int
sst_chan_hdr_encode(const struct sst_chan_hdr *hdr, void *buf, size_t cap)
{
	struct sst_chan_hdr_wire w;

	if (hdr->channel == 0 || hdr->ack_count > SST_CHAN_ACKCT_MAX ||
		hdr->tsn24 > SST_CHAN_SEQ_MASK || hdr->ack24 > SST_CHAN_SEQ_MASK)
		return -EINVAL;
	if (cap < SST_CHAN_HDR_LEN)
		return -ENOSPC;
	w.chan_tsn = rte_cpu_to_be_32((uint32_t)hdr->channel << 24 | hdr->tsn24);
	w.ack = rte_cpu_to_be_32((uint32_t)hdr->ack_count << 24 | hdr->ack24);
	memcpy(buf, &w, sizeof(w));
	return SST_CHAN_HDR_LEN;
}
