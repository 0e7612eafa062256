/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stream-layer wire format (paper 4.3, docs/wire-format.md sections 4-5),
 * byte-compatible with the original SST prototype. The stream header follows
 * the 8-byte channel header:
 *
 * +-------------------------------+-------+-------+---------------+
 * |             SID (16)          | type 4| flags4|  window (8)   |
 * +-------------------------------+-------+-------+---------------+
 * | Init/Reply: RefSID (16) | TSN (16)    Data: TSN (32)          |
 * +---------------------------------------------------------------+
 *
 * Also here: the Attach body (USIDs in XDR) and the service rendezvous
 * messages (0x101 request, 0x201 reply) that open a top-level stream.
 */
#ifndef STREAM_WIRE_H
#define STREAM_WIRE_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "sst_usid.h"
#include "sst_xdr.h"

/** Stream packet types (the high nibble of the type byte). */
enum sst_stream_type {
	SST_STREAM_INIT = 0x1,
	SST_STREAM_REPLY = 0x2,
	SST_STREAM_DATA = 0x3,
	SST_STREAM_DATAGRAM = 0x4,
	SST_STREAM_ACK = 0x5,
	SST_STREAM_RESET = 0x6,
	SST_STREAM_ATTACH = 0x7,
	SST_STREAM_DETACH = 0x8,
};

/** Flags of Init, Reply and Data packets. */
enum sst_stream_data_flags {
	SST_FLAG_CLOSE = 0x1,	/**< last segment of this direction */
	SST_FLAG_MESSAGE = 0x2, /**< end of an application message */
	SST_FLAG_PUSH = 0x4,	/**< deliver to the application now */
	SST_FLAGS_DATA_ALL = 0x7,
};

/** Flags of Datagram packets. */
enum sst_stream_dgram_flags {
	SST_FLAG_DGRAM_END = 0x1,   /**< last fragment */
	SST_FLAG_DGRAM_BEGIN = 0x2, /**< first fragment */
	SST_FLAGS_DGRAM_ALL = 0x3,
};

/** Flags of Reset packets. */
enum sst_stream_reset_flags {
	/** The SID is in the Reset receiver's transmit space (clear: the sender's). */
	SST_FLAG_RESET_ORIENT = 0x1,
	SST_FLAGS_RESET_ALL = 0x1,
};

/** Flags of Attach packets. */
enum sst_stream_attach_flags {
	SST_FLAG_ATTACH_SLOT = 0x1, /**< attachment slot, 0 or 1 */
	SST_FLAG_ATTACH_INIT = 0x8, /**< the stream is new: the parent's USID follows */
	SST_FLAGS_ATTACH_ALL = 0x9,
};

enum {
	SST_STREAM_HDR_SHORT = 4, /**< Datagram, Ack, Reset, Attach, Detach */
	SST_STREAM_HDR_LONG = 8,  /**< Init, Reply, Data */
	/** Channel + stream header: the smallest valid channel packet body. */
	SST_PACKET_MIN = 12,
	SST_WINDOW_EXP_MASK = 0x1f,
	SST_WINDOW_SUBSTREAM = 0x80, /**< defined by the prototype, never used */
	SST_WINDOW_INHERITED = 0x40, /**< defined by the prototype, never used */
	SST_WINDOW_RESERVED = 0x20,
	SST_SEGMENT_MAX = 1200,	     /**< the prototype's segment payload limit */
	SST_SERVICE_REQUEST = 0x101, /**< ConnectRequest message code */
	SST_SERVICE_REPLY = 0x201,   /**< ConnectReply message code */
	SST_SERVICE_MSG_MAX = 1024,  /**< longest service message */
	SST_SERVICE_NAME_MAX = 256,  /**< longest service or protocol name we accept */
};

/** Common 4-byte stream header on the wire. */
struct sst_stream_hdr_wire {
	rte_be16_t sid;
	uint8_t type_flags; /**< type (4) | flags (4) */
	uint8_t window;	    /**< receive window exponent and prototype bits */
} __rte_packed;

/** Init and Reply: common header, then RefSID and a 16-bit byte offset. */
struct sst_stream_init_wire {
	struct sst_stream_hdr_wire hdr;
	rte_be16_t ref_sid;
	rte_be16_t tsn;
} __rte_packed;

/** Data: common header, then a 32-bit byte offset. */
struct sst_stream_data_wire {
	struct sst_stream_hdr_wire hdr;
	rte_be32_t tsn;
} __rte_packed;

static_assert(sizeof(struct sst_stream_hdr_wire) == SST_STREAM_HDR_SHORT, "stream header");
static_assert(sizeof(struct sst_stream_init_wire) == SST_STREAM_HDR_LONG, "Init/Reply header");
static_assert(sizeof(struct sst_stream_data_wire) == SST_STREAM_HDR_LONG, "Data header");

/** A decoded stream header. Fields a type does not carry are zero. */
struct sst_stream_hdr {
	uint16_t sid;
	uint8_t type;	  /**< enum sst_stream_type */
	uint8_t flags;	  /**< low nibble of the type byte */
	uint8_t window;	  /**< raw window byte */
	uint16_t ref_sid; /**< Init, Reply */
	uint32_t tsn;	  /**< Init, Reply: 16 bits; Data: 32 bits */
};

/** Header length of a stream packet type, or 0 for an unknown type.
 * Inline: every packet asks it several times (encode, decode, the send
 * path's sizing), a call each time otherwise. */
static inline size_t
sst_stream_hdr_len(uint8_t type)
{
	if (type >= SST_STREAM_INIT && type <= SST_STREAM_DATA)
		return SST_STREAM_HDR_LONG;
	if (type >= SST_STREAM_DATAGRAM && type <= SST_STREAM_DETACH)
		return SST_STREAM_HDR_SHORT;
	return 0;
}

/** Human-readable name of a stream packet type ("Init", ...), or "?". */
const char *sst_stream_type_name(uint8_t type);

/**
 * Decode a stream header (the bytes after the channel header).
 *
 * @return
 *   The header length (4 or 8), or -SST_ETRUNC, -SST_EBADTYPE (type 0 or
 *   9-15), -SST_EBADFLAGS (flag bits the type does not define),
 *   -SST_ERESERVED (window bit 0x20 set).
 */
int sst_stream_hdr_decode(const void *buf, size_t len, struct sst_stream_hdr *hdr);

/**
 * Encode a stream header.
 *
 * @return
 *   The header length, -ENOSPC, or -EINVAL (unknown type, undefined flags,
 *   reserved window bit, or a TSN wider than 16 bits in Init/Reply).
 */
int sst_stream_hdr_encode(const struct sst_stream_hdr *hdr, void *buf, size_t cap);

/**
 * Window byte for a receive buffer with @p free_bytes of room: the largest
 * exponent e (at most 31) with 2^e - 1 <= free_bytes (paper 4.3.6).
 */
uint8_t sst_window_encode(uint64_t free_bytes);

/** Receive credit in bytes advertised by a window byte: 2^e - 1. */
static inline uint32_t
sst_window_credit(uint8_t window)
{
	return (uint32_t)((UINT64_C(1) << (window & SST_WINDOW_EXP_MASK)) - 1);
}

/**
 * Decode an Attach body: the stream's USID and, with the Init flag, the
 * parent's USID. The body must fill the rest of the packet.
 *
 * @param parent
 *   Filled when @p has_parent; may be NULL otherwise.
 * @return
 *   0, or an XDR error (-SST_ETRUNC, -SST_ETOOLONG for a half-channel ID
 *   over SST_HCID_MAX, -SST_EBADPAD), -SST_EBADVALUE (empty half-channel
 *   ID), -SST_ETRAILING.
 */
int sst_attach_body_decode(const void *buf, size_t len, bool has_parent, struct sst_usid *usid,
	struct sst_usid *parent);

/**
 * Encode an Attach body.
 *
 * @return The body length, -ENOSPC or -EINVAL (empty or oversized ID).
 */
int sst_attach_body_encode(
	const struct sst_usid *usid, const struct sst_usid *parent, void *buf, size_t cap);

/** A service request (ConnectRequest 0x101). Names point into the message. */
struct sst_service_request {
	struct sst_bytes service;
	struct sst_bytes protocol;
};

/**
 * Decode a complete service request message.
 *
 * @return
 *   0, -SST_ETOOLONG (message over 1024 bytes or a name over 256),
 *   -SST_EBADTYPE (code is not 0x101), -SST_ETRUNC, -SST_EBADPAD,
 *   -SST_EBADVALUE (empty name or NUL inside), -SST_ETRAILING.
 */
int sst_service_request_decode(const void *buf, size_t len, struct sst_service_request *req);

/** Encode a service request. @return its length, -ENOSPC or -EINVAL. */
int sst_service_request_encode(const char *service, const char *protocol, void *buf, size_t cap);

/**
 * Decode a service reply (ConnectReply 0x201, int32 error; 0 = accepted).
 *
 * @return 0, -SST_ETRUNC, -SST_EBADTYPE or -SST_ETRAILING.
 */
int sst_service_reply_decode(const void *buf, size_t len, int32_t *error);

/** Encode a service reply. @return its length (8) or -ENOSPC. */
int sst_service_reply_encode(int32_t error, void *buf, size_t cap);

#endif /* STREAM_WIRE_H */
