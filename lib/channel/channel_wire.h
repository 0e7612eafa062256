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
	SST_CHAN_MAX = 255,	   /**< channel numbers are 1..255 */
	SST_CHK32_TRAILER_LEN = 4, /**< checksum armor trailer */
	SST_UDP_PORT = 8661,	   /**< the prototype's default port */
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

/**
 * The prototype's Chk32 (paper 4.2.3, "TCP-grade" armor) of a channel packet:
 * two 16-bit running sums modulo 65537 over the 8-byte big-endian sequence
 * number, the packet, and 0x80 padding to an even length.
 *
 * @param seq
 *   The packet's full 64-bit sequence number (the pseudo-header).
 * @param pkt
 *   The packet without its trailer.
 * @param len
 *   Its length.
 * @return
 *   (b << 16) | a, before the key is added.
 */
uint32_t sst_chk32(uint64_t seq, const void *pkt, size_t len);

/**
 * Chk32 of the first len bytes of an mbuf chain: the same value as
 * sst_chk32() over those bytes laid end to end. Segments may have any
 * length, odd ones included; a 16-bit word may straddle two segments.
 *
 * @param seq
 *   The packet's full 64-bit sequence number.
 * @param m
 *   The first segment of the chain.
 * @param len
 *   Bytes to cover, at most m->pkt_len (the packet without its trailer).
 * @return
 *   (b << 16) | a, before the key is added.
 */
uint32_t sst_chk32_mbuf(uint64_t seq, const struct rte_mbuf *m, uint32_t len);

/**
 * Implementations of Chk32, all giving the same values. sst_chk32() and
 * sst_chk32_mbuf() use the widest one the CPU runs, chosen once before
 * main(); the others stay reachable for tests and benchmarks.
 */
enum sst_chk32_impl {
	SST_CHK32_IMPL_SCALAR, /**< portable C: the reference */
	SST_CHK32_IMPL_AVX2,   /**< 32 bytes per step; CPUs with AVX2 */
	SST_CHK32_IMPL_COUNT,
};

/** Whether this CPU runs impl (false for values outside the enum). */
bool sst_chk32_impl_supported(enum sst_chk32_impl impl);

/** Short name of impl ("scalar", "avx2"), or NULL outside the enum. */
const char *sst_chk32_impl_name(enum sst_chk32_impl impl);

/** The implementation sst_chk32() and sst_chk32_mbuf() use. */
enum sst_chk32_impl sst_chk32_impl_active(void);

/**
 * sst_chk32() computed by a given implementation.
 *
 * @param impl
 *   One for which sst_chk32_impl_supported() is true (precondition).
 */
uint32_t sst_chk32_with(enum sst_chk32_impl impl, uint64_t seq, const void *pkt, size_t len);

/**
 * sst_chk32_mbuf() computed by a given implementation.
 *
 * @param impl
 *   One for which sst_chk32_impl_supported() is true (precondition).
 */
uint32_t sst_chk32_mbuf_with(
	enum sst_chk32_impl impl, uint64_t seq, const struct rte_mbuf *m, uint32_t len);

/** The 4-byte trailer value: Chk32 plus the sender's key, modulo 2^32. */
static inline uint32_t
sst_chk32_trailer(uint64_t seq, const void *pkt, size_t len, uint32_t key)
{
	return sst_chk32(seq, pkt, len) + key;
}

/**
 * Append the checksum trailer to a packet held in a buffer with room for it.
 *
 * @param len
 *   Bytes of packet in buf.
 * @param cap
 *   Size of buf.
 * @return
 *   The length with the trailer, or -ENOSPC.
 */
int sst_chk32_seal(uint64_t seq, void *buf, size_t len, size_t cap, uint32_t key);

/**
 * Check the trailer of a received packet.
 *
 * @param len
 *   Length including the 4-byte trailer.
 * @return
 *   0, -SST_ETRUNC (no room for a trailer) or -SST_EBADAUTH.
 */
int sst_chk32_verify(uint64_t seq, const void *pkt, size_t len, uint32_t key);

#endif /* CHANNEL_WIRE_H */
