/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "dump_session.h"
#include "nego_wire.h"
#include "sst_error.h"

struct dump_flow *
dump_flow_get(struct dump_session *s, const struct dump_endpoint *src,
	const struct dump_endpoint *dst, uint8_t chan)
{
	struct dump_flow *f;

	for (unsigned int i = 0; i < s->nflows; i++) {
		f = &s->flows[i];
		if (f->chan == chan && dump_endpoint_equal(&f->src, src) &&
			dump_endpoint_equal(&f->dst, dst))
			return f;
	}
	if (s->nflows == DUMP_FLOWS_MAX)
		return NULL;
	f = &s->flows[s->nflows++];
	memset(f, 0, sizeof(*f));
	f->src = *src;
	f->dst = *dst;
	f->chan = chan;
	return f;
}

/* A (new) checksum key for a flow. A different key means a new channel
 * reusing the number, whose sequence numbers start again from 1. */
static void
flow_set_chk_key(struct dump_flow *f, uint32_t key, bool from_initiator)
{
	if (!f->has_chk || f->chk_key != key) {
		f->highest_seq = 0;
		f->highest_ack = 0;
	}
	f->has_chk = true;
	f->chk_key = key;
	f->from_initiator = from_initiator;
}

/* ChkI1 (wire-format.md section 6): remember the offer until the answer. */
static void
learn_chki1(struct dump_session *s, const struct dump_datagram *dg, const struct sst_nego_chki1 *i1)
{
	struct dump_offer *o = NULL;

	for (unsigned int i = 0; i < s->noffers; i++)
		if (dump_endpoint_equal(&s->offers[i].initiator, &dg->src) &&
			dump_endpoint_equal(&s->offers[i].responder, &dg->dst) &&
			s->offers[i].cki == i1->cki)
			o = &s->offers[i];
	if (o == NULL) {
		if (s->noffers == DUMP_FLOWS_MAX)
			return;
		o = &s->offers[s->noffers++];
	}
	o->initiator = dg->src;
	o->responder = dg->dst;
	o->cki = i1->cki;
	o->chani = (uint8_t)i1->chani;
}

/* ChkR1: the channel exists. Initiator packets carry chanr and cki, responder
 * packets chani and ckr. */
static void
learn_chkr1(struct dump_session *s, const struct dump_datagram *dg, const struct sst_nego_chkr1 *r1)
{
	struct dump_flow *to_responder, *to_initiator;

	if (sst_nego_chkr1_wants_cookie(r1))
		return;
	for (unsigned int i = 0; i < s->noffers; i++) {
		const struct dump_offer *o = &s->offers[i];

		if (o->cki != r1->cki || !dump_endpoint_equal(&o->initiator, &dg->dst) ||
			!dump_endpoint_equal(&o->responder, &dg->src))
			continue;
		to_responder = dump_flow_get(s, &o->initiator, &o->responder, (uint8_t)r1->chanr);
		to_initiator = dump_flow_get(s, &o->responder, &o->initiator, o->chani);
		if (to_responder != NULL)
			flow_set_chk_key(to_responder, r1->cki, true);
		if (to_initiator != NULL)
			flow_set_chk_key(to_initiator, r1->ckr, false);
		return;
	}
}

static void
handle_control(struct dump_session *s, struct dump_record *rec)
{
	const struct dump_datagram *dg = rec->dg;
	struct sst_nego_msg msg;
	struct sst_nego_iter it;
	struct sst_nego_chunk chunk;
	int rc;

	rec->control = true;
	if (dg->len < 4) {
		rec->error = -SST_ETRUNC;
		rec->where = "control magic";
		return;
	}
	rec->magic = (uint32_t)dg->payload[0] << 24 | (uint32_t)dg->payload[1] << 16 |
		     (uint32_t)dg->payload[2] << 8 | dg->payload[3];
	if (rec->magic != SST_NEGO_MAGIC) {
		if (rec->magic == SST_NEGO_MAGIC_NRS) {
			s->count.other_control++;
			return;
		}
		rec->error = -SST_EBADMAGIC;
		rec->where = "control magic";
		return;
	}
	rc = sst_nego_msg_parse(dg->payload, dg->len, &msg);
	if (rc < 0) {
		rec->error = rc;
		rec->where = "negotiation framing";
		return;
	}
	s->count.negotiation++;
	sst_nego_iter_init(&it, &msg);
	while (sst_nego_iter_next(&it, &chunk) == 1) {
		if (chunk.type == SST_NEGO_CHKI1) {
			struct sst_nego_chki1 i1;

			if (sst_nego_chki1_decode(&chunk.body, &i1) == 0)
				learn_chki1(s, dg, &i1);
		} else if (chunk.type == SST_NEGO_CHKR1) {
			struct sst_nego_chkr1 r1;

			if (sst_nego_chkr1_decode(&chunk.body, &r1) == 0)
				learn_chkr1(s, dg, &r1);
		}
	}
}

/* Verify the armor and, for the legacy AES armor, decrypt into plain.
 * Returns the trailer length. */
static size_t
open_armor(struct dump_flow *f, struct dump_record *rec, uint8_t *plain)
{
	const struct dump_datagram *dg = rec->dg;

	if (f->has_aes) {
		rec->armor = "aes-hmac";
		if (dump_aes_open(f->aes, rec->seq, dg->payload, dg->len, plain) == 0) {
			rec->plain = plain;
			rec->trailer = DUMP_TRAILER_OK;
		} else {
			rec->trailer = DUMP_TRAILER_BAD;
		}
		return DUMP_AES_TAG_LEN;
	}
	rec->armor = "chk32";
	if (!f->has_chk)
		rec->trailer = DUMP_TRAILER_NOKEY;
	else if (sst_chk32_verify(rec->seq, dg->payload, dg->len, f->chk_key) == 0)
		rec->trailer = DUMP_TRAILER_OK;
	else
		rec->trailer = DUMP_TRAILER_BAD;
	return SST_CHK32_TRAILER_LEN;
}

static void
handle_channel(struct dump_session *s, struct dump_record *rec)
{
	static uint8_t plain[65536];
	const struct dump_datagram *dg = rec->dg;
	struct dump_flow *f;
	size_t trailer_len, body_len;
	int rc;

	s->count.channel++;
	rec->plain = dg->payload;
	f = dump_flow_get(s, &dg->src, &dg->dst, dg->payload[0]);
	rec->flow = f;
	if (f == NULL) {
		rec->error = -ENOSPC;
		rec->where = "flow table";
		return;
	}
	/* Bytes 0-3 are clear under every armor; the sequence number is the
	 * checksum's pseudo-header and the AES nonce. */
	if (dg->len < SST_CHAN_HDR_LEN) {
		rec->error = -SST_ETRUNC;
		rec->where = "channel header";
		return;
	}
	rc = sst_chan_seq_expand(f->highest_seq,
		((uint32_t)dg->payload[1] << 16 | (uint32_t)dg->payload[2] << 8 | dg->payload[3]),
		&rec->seq);
	if (rc < 0) {
		rec->error = rc;
		rec->where = "sequence number";
		return;
	}
	trailer_len = open_armor(f, rec, plain);
	if (rec->trailer == DUMP_TRAILER_OK)
		s->count.verified++;
	else if (rec->trailer == DUMP_TRAILER_BAD)
		s->count.bad_trailer++;
	else
		s->count.no_key++;
	/* A receiver would drop a packet that fails authentication before it
	 * touches any state; so do we, beyond reporting it. */
	if (rec->trailer == DUMP_TRAILER_BAD)
		return;
	if (rec->seq > f->highest_seq)
		f->highest_seq = rec->seq;

	if (dg->len < trailer_len + SST_PACKET_MIN) {
		rec->error = -SST_ETRUNC;
		rec->where = "packet length";
		return;
	}
	body_len = dg->len - trailer_len;
	rc = sst_chan_hdr_decode(rec->plain, body_len, &rec->ch);
	if (rc < 0) {
		rec->error = rc;
		/* Without keys an encrypted packet looks like garbage. */
		rec->where = rec->trailer == DUMP_TRAILER_NOKEY
				     ? "channel header (encrypted? no key)"
				     : "channel header";
		return;
	}
	if (sst_chan_seq_expand(f->highest_ack, rec->ch.ack24, &rec->ack) < 0)
		rec->ack = rec->ch.ack24;
	else if (rec->ack > f->highest_ack)
		f->highest_ack = rec->ack;
	rec->have_chan_hdr = true;
	rc = sst_stream_hdr_decode(
		rec->plain + SST_CHAN_HDR_LEN, body_len - SST_CHAN_HDR_LEN, &rec->sh);
	if (rc < 0) {
		rec->error = rc;
		rec->where = "stream header";
		return;
	}
	rec->have_stream_hdr = true;
	rec->payload = rec->plain + SST_CHAN_HDR_LEN + rc;
	rec->payload_len = body_len - SST_CHAN_HDR_LEN - (size_t)rc;
}

bool
dump_session_datagram(const struct dump_datagram *dg, void *arg)
{
	struct dump_session *s = arg;
	struct dump_record rec;

	if (dg->src.port != s->port && dg->dst.port != s->port) {
		s->count.not_sst++;
		return true;
	}
	memset(&rec, 0, sizeof(rec));
	rec.dg = dg;
	rec.file = s->file;
	s->count.sst++;
	if (dg->truncated) {
		s->count.truncated++;
		rec.error = -SST_ETRUNC;
		rec.where = "capture snap length";
	} else if (dg->len == 0) {
		rec.error = -SST_ETRUNC;
		rec.where = "empty datagram";
	} else if (dg->payload[0] == 0) {
		handle_control(s, &rec);
	} else {
		handle_channel(s, &rec);
	}
	if (rec.error != 0)
		s->count.malformed++;
	s->emit(&rec, s->emit_arg);
	return true;
}
