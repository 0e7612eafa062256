/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What sst-dump knows about the SST traffic it has seen: the channels set up
 * by checksum negotiation (and the keys they use), each direction's highest
 * sequence and ack numbers for reconstructing 64-bit values, and counters.
 * Several capture files fed in order are one session: chk-02..05 of the
 * prototype vectors use the keys negotiated in chk-01.
 */
#ifndef DUMP_SESSION_H
#define DUMP_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "channel_wire.h"
#include "dump_capture.h"
#include "dump_legacy_aes.h"
#include "stream_wire.h"

enum { DUMP_FLOWS_MAX = 4096 };

/** One direction of one channel: packets from src to dst with byte 0 = chan. */
struct dump_flow {
	struct dump_endpoint src;
	struct dump_endpoint dst;
	uint8_t chan;
	bool has_chk;
	bool has_aes;
	bool from_initiator; /**< learned from negotiation */
	uint32_t chk_key;
	struct dump_aes_keys *aes;
	uint64_t highest_seq;
	uint64_t highest_ack;
};

/** A ChkI1 waiting for its ChkR1. */
struct dump_offer {
	struct dump_endpoint initiator;
	struct dump_endpoint responder;
	uint32_t cki;
	uint8_t chani;
};

enum dump_trailer {
	DUMP_TRAILER_OK,
	DUMP_TRAILER_BAD,
	DUMP_TRAILER_NOKEY,
};

/** Everything decoded from one SST datagram, handed to the printer. */
struct dump_record {
	const struct dump_datagram *dg;
	const char *file;
	bool control;	   /**< byte 0 == 0 */
	int error;	   /**< 0, or why the packet is malformed */
	const char *where; /**< which part failed to decode */
	/* control packets */
	uint32_t magic;
	/* channel packets */
	const struct dump_flow *flow;
	bool have_chan_hdr;   /**< ch and ack are valid */
	bool have_stream_hdr; /**< sh, payload and payload_len are valid */
	struct sst_chan_hdr ch;
	uint64_t seq;
	uint64_t ack;
	struct sst_stream_hdr sh;
	const uint8_t *payload; /**< after the stream header, trailer excluded */
	size_t payload_len;
	const uint8_t *plain; /**< the packet as decoded (decrypted for AES) */
	enum dump_trailer trailer;
	const char *armor; /**< "chk32" or "aes-hmac" */
};

struct dump_counters {
	uint64_t sst;
	uint64_t negotiation;
	uint64_t other_control;
	uint64_t channel;
	uint64_t verified;
	uint64_t bad_trailer;
	uint64_t no_key;
	uint64_t malformed;
	uint64_t truncated;
	uint64_t not_sst;
};

struct dump_session {
	uint16_t port;
	const char *file; /**< the file being read */
	struct dump_flow flows[DUMP_FLOWS_MAX];
	unsigned int nflows;
	struct dump_offer offers[DUMP_FLOWS_MAX];
	unsigned int noffers;
	struct dump_counters count;
	void (*emit)(const struct dump_record *rec, void *arg);
	void *emit_arg;
};

/** Find or create the flow (src, dst, chan); NULL when the table is full. */
struct dump_flow *dump_flow_get(struct dump_session *s, const struct dump_endpoint *src,
	const struct dump_endpoint *dst, uint8_t chan);

/** Handle one UDP datagram: a dump_datagram_fn. */
bool dump_session_datagram(const struct dump_datagram *dg, void *session);

#endif /* DUMP_SESSION_H */
