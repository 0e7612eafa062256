/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Channel-layer wire format (paper 4.2, docs/wire-format.md sections 1-3),
 * byte-compatible with the original SST prototype.
 *
 *  0               1               2               3
 * +---------------+-----------------------------------------------+
 * |  channel (8)  |        transmit sequence number, low 24       |
 * +-------+-------+-----------------------------------------------+
 * | rsvd 4| ackct4|        ack sequence number, low 24            |
 * +-------+-------+-----------------------------------------------+
 *
 * Byte 0 is the receiver's channel number. Byte 0 == 0 marks a control
 * packet whose first word is a magic (see nego_wire.h).
 */
#ifndef CHANNEL_WIRE_H
#define CHANNEL_WIRE_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "sst_chk32.h"
#include "sst_seq.h"

struct rte_mbuf;

/** The channel header as it lies on the wire. */
struct sst_chan_hdr_wire {
	rte_be32_t chan_tsn; /**< channel (8) | transmit sequence number low 24 */
	rte_be32_t ack;	     /**< reserved (4) | ack count (4) | ack sequence low 24 */
} __rte_packed;

static_assert(sizeof(struct sst_chan_hdr_wire) == 8, "channel header is 8 bytes");

enum {
	SST_CHAN_HDR_LEN = 8,
	SST_CHAN_SEQ_BITS = 24,
	SST_CHAN_ACKCT_MAX = 15,
	SST_CHAN_MAX = 255,  /**< channel numbers are 1..255 */
	SST_UDP_PORT = 8661, /**< the prototype's default port */
};

#define SST_CHAN_SEQ_MASK UINT32_C(0xffffff)

/** A decoded channel header; sequence fields are still the 24 wire bits. */
struct sst_chan_hdr {
	uint8_t channel;   /**< receiver's channel number, 1..255 */
	uint8_t ack_count; /**< AckCt: packets ack_seq-ack_count .. ack_seq received */
	uint32_t tsn24;	   /**< transmit sequence number, low 24 bits */
	uint32_t ack24;	   /**< ack sequence number, low 24 bits */
};

/**
 * Decode the channel header at the start of a channel packet.
 *
 * @return
 *   SST_CHAN_HDR_LEN, or -SST_ETRUNC (shorter than 8 bytes),
 *   -SST_EBADVALUE (byte 0 is 0: a control packet, not a channel packet),
 *   -SST_ERESERVED (reserved bits set).
 */
int sst_chan_hdr_decode(const void *buf, size_t len, struct sst_chan_hdr *hdr);

/**
 * Encode a channel header.
 *
 * @return
 *   SST_CHAN_HDR_LEN, -ENOSPC if cap < 8, or -EINVAL for channel 0, an ack
 *   count above 15 or sequence fields wider than 24 bits.
 */
int sst_chan_hdr_encode(const struct sst_chan_hdr *hdr, void *buf, size_t cap);

/**
 * Rebuild a 64-bit sequence number (transmit or ack) from its 24 wire bits,
 * against the highest value known so far (paper 4.2.2).
 *
 * @return 0 or -SST_ESEQRANGE.
 */
static inline int
sst_chan_seq_expand(uint64_t ref, uint32_t low24, uint64_t *seq)
{
	return sst_seq_expand(ref, low24, SST_CHAN_SEQ_BITS, seq);
}

#endif /* CHANNEL_WIRE_H */
