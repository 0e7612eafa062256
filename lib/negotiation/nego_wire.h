/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Negotiation-protocol framing (paper 4.4, docs/wire-format.md section 6),
 * byte-compatible with the original SST prototype. A control packet (byte 0
 * is 0) carries:
 *
 *   int32 magic (0x00535354, "SST")
 *   uint32 nchunks
 *   nchunks x { uint32 len; chunk[len]; zero padding to 4 }
 *
 * and every chunk is an int32 type followed by that type's XDR body. A
 * message with zero chunks is the prototype's hole-punching ping (R0). Unknown
 * chunk types are framed like any other, so a receiver skips them.
 *
 * This file covers the checksum-mode chunks (ChkI1, ChkR1), which we speak,
 * and decodes the prototype's DH/JFK chunks (DhI1..DhR2) so that tools can
 * show them; we never send those.
 */
#ifndef NEGO_WIRE_H
#define NEGO_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sst_xdr.h"

enum {
	SST_NEGO_MAGIC = 0x00535354,	 /**< "SST": the negotiation protocol */
	SST_NEGO_MAGIC_NRS = 0x004E7273, /**< "Nrs": the prototype's registration protocol */
	SST_NEGO_HDR_LEN = 8,		 /**< magic + chunk count */
	SST_NEGO_CHUNKS_MAX = 64,	 /**< more chunks than any message needs */
	SST_NEGO_OPAQUE_MAX = 1024,	 /**< bound on cookie, ulp and cpkt fields */
	SST_NEGO_DH_NONCE_LEN = 32,
	SST_NEGO_DH_PUB_MAX = 384,
	SST_NEGO_DH_ID_MAX = 256,
	SST_NEGO_DH_BLOCK_MAX = 4096,
	SST_NEGO_PACKET_MAX = 65535, /**< bound on the packet of a Packet chunk */
};

/** Chunk types. */
enum sst_nego_chunk_type {
	SST_NEGO_PACKET = 0x0001, /**< piggy-backed channel packet (secure mode, after SecI2) */
	SST_NEGO_CHKI1 = 0x0011,  /**< checksum mode, initiator */
	SST_NEGO_CHKR1 = 0x0012,  /**< checksum mode, responder */
	SST_NEGO_DHI1 = 0x0021,	  /**< prototype DH/JFK, decode only */
	SST_NEGO_DHR1 = 0x0022,
	SST_NEGO_DHI2 = 0x0023,
	SST_NEGO_DHR2 = 0x0024,
};

/** Name of a chunk type ("ChkI1", ...), or NULL if we do not know it. */
const char *sst_nego_chunk_name(int32_t type);

/** A validated negotiation message; chunks point into the packet. */
struct sst_nego_msg {
	const uint8_t *chunks; /**< first chunk length word */
	size_t chunks_len;     /**< bytes of chunk framing after the header */
	uint32_t nchunks;
};

/** Iterator over the chunks of a parsed message. */
struct sst_nego_iter {
	struct sst_xdr_reader r;
	uint32_t left;
};

/** One chunk: its type and the XDR body after the type word. */
struct sst_nego_chunk {
	int32_t type;
	struct sst_bytes body;
};

/**
 * Validate a whole negotiation message: the magic, the chunk count, every
 * chunk's length, padding and type word, and that nothing follows the last
 * chunk. After success, iteration cannot fail.
 *
 * @return
 *   0, or -SST_ETRUNC, -SST_EBADMAGIC, -SST_ETOOLONG (more than
 *   SST_NEGO_CHUNKS_MAX chunks), -SST_EBADLEN (chunk shorter than its type
 *   word, or length past the message), -SST_EBADPAD, -SST_ETRAILING.
 */
int sst_nego_msg_parse(const void *buf, size_t len, struct sst_nego_msg *msg);

/** Start iterating over a parsed message's chunks. */
void sst_nego_iter_init(struct sst_nego_iter *it, const struct sst_nego_msg *msg);

/** @return 1 with the next chunk in @p chunk, or 0 after the last one. */
int sst_nego_iter_next(struct sst_nego_iter *it, struct sst_nego_chunk *chunk);

/** ChkI1: the initiator's checksum-mode offer. */
struct sst_nego_chki1 {
	uint32_t cki;	/**< initiator's checksum key (its transmit key) */
	uint32_t chani; /**< initiator's channel number, 1..255 */
	struct sst_bytes cookie;
	struct sst_bytes ulpi; /**< upper-layer information: version, capabilities */
	struct sst_bytes cpkt;
};

/** ChkR1: the responder's answer. */
struct sst_nego_chkr1 {
	uint32_t cki;	/**< echo of the initiator's key */
	uint32_t ckr;	/**< responder's checksum key */
	uint32_t chanr; /**< responder's channel number; 0 asks for a cookie */
	struct sst_bytes cookie;
	struct sst_bytes ulpr;
	struct sst_bytes cpkt;
};

/** True when a ChkR1 asks the initiator to retry with the cookie it carries. */
static inline bool
sst_nego_chkr1_wants_cookie(const struct sst_nego_chkr1 *r1)
{
	return r1->chanr == 0 || r1->ckr == r1->cki;
}

/**
 * Decode a ChkI1 chunk body.
 * @return 0, an XDR error, -SST_EBADVALUE (chani not 1..255), -SST_ETRAILING.
 */
int sst_nego_chki1_decode(const struct sst_bytes *body, struct sst_nego_chki1 *i1);

/**
 * Decode a ChkR1 chunk body.
 * @return 0, an XDR error, -SST_EBADVALUE (chanr above 255), -SST_ETRAILING.
 */
int sst_nego_chkr1_decode(const struct sst_bytes *body, struct sst_nego_chkr1 *r1);

/** The prototype's DhI1 (decode only). */
struct sst_nego_dhi1 {
	int32_t group;
	int32_t keymin;
	const uint8_t *nhi; /**< 32 bytes */
	struct sst_bytes dhi;
	struct sst_bytes eidr;
};

/** The prototype's DhR1 (decode only). */
struct sst_nego_dhr1 {
	int32_t group;
	int32_t keylen;
	const uint8_t *nhi; /**< 32 bytes */
	const uint8_t *nr;  /**< 32 bytes */
	struct sst_bytes dhr;
	struct sst_bytes hhkr;
	struct sst_bytes eidr;
	struct sst_bytes pkr;
	struct sst_bytes sr;
};

/** The prototype's DhI2 (decode only). */
struct sst_nego_dhi2 {
	int32_t group;
	int32_t keylen;
	const uint8_t *ni; /**< 32 bytes */
	const uint8_t *nr; /**< 32 bytes */
	struct sst_bytes dhi;
	struct sst_bytes dhr;
	struct sst_bytes hhkr;
	struct sst_bytes idi;
};

/** The prototype's DhR2 (decode only). */
struct sst_nego_dhr2 {
	const uint8_t *nhi; /**< 32 bytes */
	struct sst_bytes idr;
};

/** Decode a DhI1 body. @return 0, an XDR error or -SST_ETRAILING. */
int sst_nego_dhi1_decode(const struct sst_bytes *body, struct sst_nego_dhi1 *m);
/** Decode a DhR1 body. @return 0, an XDR error or -SST_ETRAILING. */
int sst_nego_dhr1_decode(const struct sst_bytes *body, struct sst_nego_dhr1 *m);
/** Decode a DhI2 body. @return 0, an XDR error or -SST_ETRAILING. */
int sst_nego_dhi2_decode(const struct sst_bytes *body, struct sst_nego_dhi2 *m);
/** Decode a DhR2 body. @return 0, an XDR error or -SST_ETRAILING. */
int sst_nego_dhr2_decode(const struct sst_bytes *body, struct sst_nego_dhr2 *m);

/** Builder of an outgoing negotiation message. */
struct sst_nego_builder {
	struct sst_xdr_writer w;
	uint32_t nchunks;
};

/**
 * Start a message (magic and a zero chunk count) in buf. Finishing it
 * without adding chunks gives the zero-chunk ping.
 * @return 0 or -ENOSPC.
 */
int sst_nego_build_begin(struct sst_nego_builder *b, void *buf, size_t cap);

/**
 * Add a ChkI1 chunk.
 * @return 0, -ENOSPC or -EINVAL (chani not 1..255, an opaque field over
 * SST_NEGO_OPAQUE_MAX).
 */
int sst_nego_build_chki1(struct sst_nego_builder *b, const struct sst_nego_chki1 *i1);

/**
 * Add a ChkR1 chunk.
 * @return 0, -ENOSPC or -EINVAL (chanr above 255, an opaque field over
 * SST_NEGO_OPAQUE_MAX).
 */
int sst_nego_build_chkr1(struct sst_nego_builder *b, const struct sst_nego_chkr1 *r1);

/**
 * Add a Packet chunk (type 0x0001, body opaque packet<>): a channel packet
 * carried in a negotiation message (docs/secure-mode.md 3.4).
 * @return 0, -ENOSPC, or -EINVAL (empty packet, one over SST_NEGO_PACKET_MAX,
 *   too many chunks).
 */
int sst_nego_build_packet(struct sst_nego_builder *b, const void *pkt, size_t len);

/**
 * Add a chunk of any type with an already encoded body (for new chunk types
 * and tests). @return 0, -ENOSPC or -EINVAL (too many chunks).
 */
int sst_nego_build_raw(struct sst_nego_builder *b, int32_t type, const void *body, size_t len);

/** Finish the message. @return its total length. */
size_t sst_nego_build_end(struct sst_nego_builder *b);

#endif /* NEGO_WIRE_H */
