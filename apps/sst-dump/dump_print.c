/* SPDX-License-Identifier: BSD-3-Clause */
#include <inttypes.h>
#include <string.h>

#include "dump_print.h"
#include "nego_wire.h"
#include "sst_error.h"

/* Printing goes through a small sink so one decoder walk serves both the
 * text and the JSON form: text is "key=value" separated by spaces, JSON is
 * "key":value separated by commas. */
struct sink {
	FILE *out;
	bool json;
	bool first; /* no separator before the next field */
};

static void
sep(struct sink *k)
{
	if (!k->first)
		fputs(k->json ? "," : " ", k->out);
	k->first = false;
}

static void
field_u64(struct sink *k, const char *name, uint64_t v)
{
	sep(k);
	fprintf(k->out, k->json ? "\"%s\":%" PRIu64 : "%s=%" PRIu64, name, v);
}

static void
field_hex32(struct sink *k, const char *name, uint32_t v)
{
	sep(k);
	fprintf(k->out, k->json ? "\"%s\":\"%08" PRIx32 "\"" : "%s=%08" PRIx32, name, v);
}

static void
put_escaped(FILE *out, const uint8_t *p, size_t n, bool json)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t c = p[i];

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(out, json ? "\\u%04x" : "\\x%02x", c);
		else
			fputc(c, out);
	}
}

static void
field_str(struct sink *k, const char *name, const uint8_t *p, size_t n)
{
	sep(k);
	fprintf(k->out, k->json ? "\"%s\":\"" : "%s=\"", name);
	put_escaped(k->out, p, n, k->json);
	fputc('"', k->out);
}

static void
field_cstr(struct sink *k, const char *name, const char *s)
{
	if (k->json) {
		field_str(k, name, (const uint8_t *)s, strlen(s));
	} else {
		sep(k);
		fprintf(k->out, "%s=%s", name, s);
	}
}

/* Binary fields: hex, abbreviated in text form. */
static void
field_bytes(struct sink *k, const char *name, const uint8_t *p, size_t n)
{
	size_t shown = k->json || n <= 16 ? n : 8;

	sep(k);
	fprintf(k->out, k->json ? "\"%s\":\"" : "%s=", name);
	for (size_t i = 0; i < shown; i++)
		fprintf(k->out, "%02x", p[i]);
	if (shown < n)
		fprintf(k->out, "..(%zuB)", n);
	else if (!k->json && n == 0)
		fputs("(0B)", k->out);
	if (k->json)
		fputc('"', k->out);
}

static void
open_obj(struct sink *k, const char *name)
{
	sep(k);
	fprintf(k->out, k->json ? "\"%s\":{" : "%s{", name);
	k->first = true;
}

static void
close_obj(struct sink *k)
{
	fputc('}', k->out);
	k->first = false;
}

static void
print_chunk(struct sink *k, const struct sst_nego_chunk *c)
{
	const char *name = sst_nego_chunk_name(c->type);
	int rc = -SST_EBADTYPE;

	open_obj(k, name != NULL ? name : "chunk");
	if (name == NULL)
		field_hex32(k, "type", (uint32_t)c->type);
	switch (c->type) {
	case SST_NEGO_CHKI1: {
		struct sst_nego_chki1 m;

		rc = sst_nego_chki1_decode(&c->body, &m);
		if (rc == 0) {
			field_hex32(k, "cki", m.cki);
			field_u64(k, "chani", m.chani);
			field_bytes(k, "cookie", m.cookie.ptr, m.cookie.len);
			field_bytes(k, "ulpi", m.ulpi.ptr, m.ulpi.len);
			field_bytes(k, "cpkt", m.cpkt.ptr, m.cpkt.len);
		}
		break;
	}
	case SST_NEGO_CHKR1: {
		struct sst_nego_chkr1 m;

		rc = sst_nego_chkr1_decode(&c->body, &m);
		if (rc == 0) {
			field_hex32(k, "cki", m.cki);
			field_hex32(k, "ckr", m.ckr);
			field_u64(k, "chanr", m.chanr);
			field_bytes(k, "cookie", m.cookie.ptr, m.cookie.len);
			field_bytes(k, "ulpr", m.ulpr.ptr, m.ulpr.len);
			field_bytes(k, "cpkt", m.cpkt.ptr, m.cpkt.len);
		}
		break;
	}
	case SST_NEGO_DHI1: {
		struct sst_nego_dhi1 m;

		rc = sst_nego_dhi1_decode(&c->body, &m);
		if (rc == 0) {
			field_u64(k, "group", (uint32_t)m.group);
			field_u64(k, "keymin", (uint32_t)m.keymin);
			field_bytes(k, "nhi", m.nhi, SST_NEGO_DH_NONCE_LEN);
			field_bytes(k, "dhi", m.dhi.ptr, m.dhi.len);
			field_bytes(k, "eidr", m.eidr.ptr, m.eidr.len);
		}
		break;
	}
	case SST_NEGO_DHR1: {
		struct sst_nego_dhr1 m;

		rc = sst_nego_dhr1_decode(&c->body, &m);
		if (rc == 0) {
			field_u64(k, "group", (uint32_t)m.group);
			field_u64(k, "keylen", (uint32_t)m.keylen);
			field_bytes(k, "nhi", m.nhi, SST_NEGO_DH_NONCE_LEN);
			field_bytes(k, "nr", m.nr, SST_NEGO_DH_NONCE_LEN);
			field_bytes(k, "dhr", m.dhr.ptr, m.dhr.len);
			field_bytes(k, "hhkr", m.hhkr.ptr, m.hhkr.len);
			field_bytes(k, "eidr", m.eidr.ptr, m.eidr.len);
		}
		break;
	}
	case SST_NEGO_DHI2: {
		struct sst_nego_dhi2 m;

		rc = sst_nego_dhi2_decode(&c->body, &m);
		if (rc == 0) {
			field_u64(k, "group", (uint32_t)m.group);
			field_u64(k, "keylen", (uint32_t)m.keylen);
			field_bytes(k, "ni", m.ni, SST_NEGO_DH_NONCE_LEN);
			field_bytes(k, "nr", m.nr, SST_NEGO_DH_NONCE_LEN);
			field_bytes(k, "dhi", m.dhi.ptr, m.dhi.len);
			field_bytes(k, "dhr", m.dhr.ptr, m.dhr.len);
			field_bytes(k, "hhkr", m.hhkr.ptr, m.hhkr.len);
			field_bytes(k, "idi", m.idi.ptr, m.idi.len);
		}
		break;
	}
	case SST_NEGO_DHR2: {
		struct sst_nego_dhr2 m;

		rc = sst_nego_dhr2_decode(&c->body, &m);
		if (rc == 0) {
			field_bytes(k, "nhi", m.nhi, SST_NEGO_DH_NONCE_LEN);
			field_bytes(k, "idr", m.idr.ptr, m.idr.len);
		}
		break;
	}
	default:
		/* Unknown chunk types are skipped by receivers; show the size. */
		field_u64(k, "len", c->body.len);
		rc = 0;
		break;
	}
	if (rc < 0)
		field_cstr(k, "error", sst_error_name(rc));
	close_obj(k);
}

static void
print_negotiation(struct sink *k, const struct dump_record *rec)
{
	struct sst_nego_msg msg;
	struct sst_nego_iter it;
	struct sst_nego_chunk c;

	if (sst_nego_msg_parse(rec->dg->payload, rec->dg->len, &msg) < 0)
		return;
	field_u64(k, "chunks", msg.nchunks);
	if (msg.nchunks == 0)
		field_cstr(k, "ping", "R0");
	sst_nego_iter_init(&it, &msg);
	while (sst_nego_iter_next(&it, &c) == 1)
		print_chunk(k, &c);
}

static const char *
flag_letters(const struct sst_stream_hdr *sh, char *buf)
{
	char *p = buf;

	switch (sh->type) {
	case SST_STREAM_INIT:
	case SST_STREAM_REPLY:
	case SST_STREAM_DATA:
		if (sh->flags & SST_FLAG_PUSH)
			*p++ = 'P';
		if (sh->flags & SST_FLAG_MESSAGE)
			*p++ = 'M';
		if (sh->flags & SST_FLAG_CLOSE)
			*p++ = 'C';
		break;
	case SST_STREAM_DATAGRAM:
		if (sh->flags & SST_FLAG_DGRAM_BEGIN)
			*p++ = 'B';
		if (sh->flags & SST_FLAG_DGRAM_END)
			*p++ = 'E';
		break;
	case SST_STREAM_RESET:
		if (sh->flags & SST_FLAG_RESET_ORIENT)
			*p++ = 'O';
		break;
	case SST_STREAM_ATTACH:
		if (sh->flags & SST_FLAG_ATTACH_INIT)
			*p++ = 'I';
		p += sprintf(p, "slot%u", sh->flags & SST_FLAG_ATTACH_SLOT);
		break;
	default:
		break;
	}
	if (p == buf)
		*p++ = '-';
	*p = '\0';
	return buf;
}

static void
print_usid(struct sink *k, const char *name, const struct sst_usid *u)
{
	open_obj(k, name);
	field_u64(k, "counter", u->counter);
	field_bytes(k, "hcid", u->hcid, u->hcid_len);
	close_obj(k);
}

/* What the payload means, where the stream header tells: service messages
 * at the start of a stream (wire-format.md section 5) and Attach bodies. */
static void
print_payload(struct sink *k, const struct dump_record *rec)
{
	const struct sst_stream_hdr *sh = &rec->sh;
	bool data = sh->type == SST_STREAM_INIT || sh->type == SST_STREAM_REPLY ||
		    sh->type == SST_STREAM_DATA;

	if (data && sh->tsn == 0 && (sh->flags & SST_FLAG_MESSAGE) && rec->payload_len >= 4) {
		struct sst_service_request req;
		int32_t err;

		if (sst_service_request_decode(rec->payload, rec->payload_len, &req) == 0) {
			open_obj(k, "ConnectRequest");
			field_str(k, "service", req.service.ptr, req.service.len);
			field_str(k, "protocol", req.protocol.ptr, req.protocol.len);
			close_obj(k);
		} else if (sst_service_reply_decode(rec->payload, rec->payload_len, &err) == 0) {
			open_obj(k, "ConnectReply");
			field_u64(k, "error", (uint32_t)err);
			close_obj(k);
		}
	} else if (sh->type == SST_STREAM_ATTACH) {
		struct sst_usid usid, parent;
		bool has_parent = sh->flags & SST_FLAG_ATTACH_INIT;
		int rc = sst_attach_body_decode(
			rec->payload, rec->payload_len, has_parent, &usid, &parent);

		if (rc < 0) {
			field_cstr(k, "attach_error", sst_error_name(rc));
			return;
		}
		print_usid(k, "usid", &usid);
		if (has_parent)
			print_usid(k, "parent", &parent);
	}
}

static void
print_channel(struct sink *k, const struct dump_record *rec)
{
	const struct sst_stream_hdr *sh = &rec->sh;
	uint64_t ack_from;
	char flags[16];

	field_u64(k, "ch", rec->dg->payload[0]);
	field_u64(k, "seq", rec->seq);
	if (rec->have_chan_hdr) {
		/* AckCt counts back from AckSeq, including the fictitious
		 * packet 0 at the start of a channel. */
		ack_from =
			rec->ack - (rec->ch.ack_count <= rec->ack ? rec->ch.ack_count : rec->ack);
		sep(k);
		if (k->json)
			fprintf(k->out, "\"ack\":%" PRIu64 ",\"ack_from\":%" PRIu64, rec->ack,
				ack_from);
		else
			fprintf(k->out, "ack=%" PRIu64 "..%" PRIu64, ack_from, rec->ack);
	}
	if (rec->have_stream_hdr) {
		field_cstr(k, "type", sst_stream_type_name(sh->type));
		field_u64(k, "sid", sh->sid);
		if (sh->type == SST_STREAM_INIT || sh->type == SST_STREAM_REPLY)
			field_u64(k, "ref", sh->ref_sid);
		if (sh->type == SST_STREAM_INIT || sh->type == SST_STREAM_REPLY ||
			sh->type == SST_STREAM_DATA)
			field_u64(k, "tsn", sh->tsn);
		field_cstr(k, "flags", flag_letters(sh, flags));
		sep(k);
		fprintf(k->out,
			k->json ? "\"win\":%u,\"credit\":%" PRIu32 : "win=0x%02x(%" PRIu32 ")",
			sh->window, sst_window_credit(sh->window));
		field_u64(k, "len", rec->payload_len);
		print_payload(k, rec);
	}
	if (rec->armor != NULL)
		field_cstr(k, rec->armor,
			rec->trailer == DUMP_TRAILER_OK	   ? "ok"
			: rec->trailer == DUMP_TRAILER_BAD ? "BAD"
							   : "nokey");
}

void
dump_print_record(const struct dump_record *rec, void *arg)
{
	const struct dump_printer *pr = arg;
	struct sink k = {pr->out, pr->json, true};
	char src[64], dst[64];

	if (pr->quiet && rec->error == 0 && (rec->control || rec->trailer == DUMP_TRAILER_OK))
		return;
	dump_endpoint_format(&rec->dg->src, src, sizeof(src));
	dump_endpoint_format(&rec->dg->dst, dst, sizeof(dst));
	if (k.json) {
		fputc('{', k.out);
		field_cstr(&k, "file", rec->file);
		field_u64(&k, "frame", rec->dg->frame);
		sep(&k);
		fprintf(k.out, "\"time\":%.6f", rec->dg->time);
		field_cstr(&k, "src", src);
		field_cstr(&k, "dst", dst);
		field_cstr(&k, "kind", rec->control ? "control" : "channel");
	} else {
		fprintf(k.out, "%6" PRIu64 " %11.6f %s > %s", rec->dg->frame, rec->dg->time, src,
			dst);
		k.first = false;
		fputs(rec->control ? " nego" : "", k.out);
	}
	if (rec->control) {
		if (rec->magic == SST_NEGO_MAGIC)
			print_negotiation(&k, rec);
		else if (rec->magic == SST_NEGO_MAGIC_NRS)
			field_cstr(&k, "protocol", "registration");
	} else {
		print_channel(&k, rec);
	}
	if (rec->error != 0) {
		field_cstr(&k, "error", sst_error_name(rec->error));
		field_cstr(&k, "where", rec->where);
	}
	fputs(k.json ? "}\n" : "\n", k.out);
}
