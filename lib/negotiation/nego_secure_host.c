/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Secure mode in the negotiation host (docs/secure-mode.md, docs/negotiation.md
 * section 2.2): the endpoint around the sans-IO handshake core of
 * nego_secure.c.
 *
 *   initiator                                   responder
 *   connect(): SecI1 ------------------------->  no mutual suite?
 *     failed(-ENOTSUP) <---------------------      SecRefuse, no state
 *                                                duplicate? same SecR1
 *     (retransmitted on the host's schedule)     needs a cookie (under load, half-open
 *                                                  limit, table full, SecR1 over 3x)?
 *                    <------------------------     no valid cookie: SecCookie, no state
 *   SecI1 + cookie  ------------------------->     under load: rate limit per source
 *                                                  entry (peer, chani) + (peer, nr),
 *                    <------------------------     half-open, SecR1 (within 3x)
 *   SecR1 verifies: established(initiator),
 *   SecI2 ----------------------------------->  SecI2 verifies: established(responder)
 *     (repeated until sst_nego_confirm()          (+ Packet chunks of the same message
 *      or 20 s; sst_nego_send_early() sends       to ops->packet, also after a
 *      it with a channel packet)                  byte-identical repetition of it)
 *
 * Every failure of the core leaves its state as it was, so a forged,
 * corrupted or replayed message changes nothing here either: it is counted
 * and dropped. Locals that held keys are wiped before returning.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <sodium.h>

#include "nego_internal.h"
#include "sst_error.h"

enum {
	KEY = SST_SECURE_KEY_LEN,
	/* SecCookie message: header, chunk length and type, ni, cookie<>. */
	COOKIE_MSG_LEN = SST_NEGO_HDR_LEN + 8 + KEY + 4 + SST_SECURE_COOKIE_LEN,
	/* SecRefuse message: header, chunk length and type, ni, reason,
	 * suites<> (spec 3.6). */
	REFUSE_MSG_LEN = SST_NEGO_HDR_LEN + 8 + KEY + 8 + 4 * SST_SECURE_SUITES_MAX,
	PACKET_MAX = UINT16_MAX,
};

/* Bytes of our SecR1 message (spec 3.3): 240 + ulpr rounded up to 4. */
static uint32_t
r1_msg_len(const struct sst_nego_host *h)
{
	return 240 + RTE_ALIGN_CEIL((uint32_t)h->ulp_len, 4u);
}

static const char *
peer_name(struct sst_nego_host *h, const struct sst_nego_addr *peer)
{
	return h->ops.peer_name != NULL ? h->ops.peer_name(h->ctx, peer) : NULL;
}

static struct sst_secure_cookie_req
cookie_req(struct sst_nego_host *h, const struct sst_nego_addr *peer)
{
	struct sst_secure_cookie_req req = {&h->cookie, peer->bytes, peer->len};

	return req;
}

/* Fill a result from the core's (spec 5): the root stream's USID is
 * (0, the initiator's transmit half-channel ID) on both sides. */
static void
sec_result(struct sst_nego_host *h, struct sst_nego_result *r, enum sst_nego_role role,
	const struct nego_entry *e, const struct sst_secure_result *res)
{
	memset(r, 0, sizeof(*r));
	r->mode = SST_NEGO_MODE_SECURE;
	r->role = role;
	r->peer = e->peer;
	r->local_channel = e->local_channel;
	r->peer_channel = res->peer_channel;
	r->suite = res->suite;
	r->keys = res->keys;
	r->hcid_len = SST_SECURE_HCID_LEN;
	memcpy(r->tx_hcid, res->tx_hcid, SST_SECURE_HCID_LEN);
	memcpy(r->rx_hcid, res->rx_hcid, SST_SECURE_HCID_LEN);
	r->root_usid.counter = 0;
	r->root_usid.hcid_len = SST_SECURE_HCID_LEN;
	memcpy(r->root_usid.hcid, role == SST_NEGO_INITIATOR ? res->tx_hcid : res->rx_hcid,
		SST_SECURE_HCID_LEN);
	sst_nego_ulp_decode(res->peer_ulp, res->peer_ulp_len, &r->peer_ulp);
	r->common_caps = h->ulp_len != 0 ? r->peer_ulp.caps & h->ulp_caps : 0;
	r->peer_status = res->peer;
	memcpy(r->peer_id, res->peer_id, SST_SECURE_KEY_LEN);
}

/*
 * Report a verified handshake (spec 3.4, either role) to the caller and
 * wipe @p res. The callback may have touched the table, so *ep is looked
 * up again under (its role's kind, @p peer, @p key) and kept only while it
 * is still this attempt (same phase and channel), else NULL. A refused
 * channel (@return negative, established()'s rc) is freed and its
 * attempt removed.
 */
static int
sec_report(struct sst_nego_host *h, enum sst_nego_role role, const struct sst_nego_addr *peer,
	uint32_t key, struct nego_entry **ep, struct sst_secure_result *res, sst_time_t now)
{
	enum nego_kind kind = role == SST_NEGO_INITIATOR ? NEGO_KIND_INIT : NEGO_KIND_RESP;
	uint8_t phase = (*ep)->phase; /* enum nego_phase */
	uint8_t chan = (*ep)->local_channel;
	struct sst_nego_result r;
	struct nego_entry *e;
	int rc;

	sec_result(h, &r, role, *ep, res);
	sst_secure_result_wipe(res);
	rc = nego_report_established(h, &r, now);
	e = nego_lookup(h, kind, peer, key);
	if (e != NULL && (e->phase != phase || e->local_channel != chan))
		e = NULL;
	if (rc < 0) {
		if (e != NULL)
			nego_remove(h, e);
		h->ops.chan_free(h->ctx, peer, chan);
	}
	*ep = e;
	return rc;
}

/* --- initiator --- */

struct nego_entry *
nego_sec_begin(struct sst_nego_host *h, const struct sst_nego_addr *peer, uint8_t chan, int *err)
{
	struct sst_secure_initiator st;
	uint8_t msg[NEGO_SEC_MSG_MAX];
	struct sst_nego_builder b;
	struct nego_entry *e = NULL;
	struct nego_sec *sec;
	int rc = -EEXIST;

	/* The first word of ni names the attempt: draw again on a clash. */
	for (int tries = 0; tries < 4 && rc == -EEXIST; tries++) {
		sst_nego_build_begin(&b, msg, sizeof(msg));
		rc = sst_secure_initiator_start_tagged(&st, &h->sec_cfg, chan, h->ulp, h->ulp_len,
			h->steer_tag, h->steer_bits, &b);
		if (rc == 0 && nego_lookup(h, NEGO_KIND_INIT, peer, nego_be32(st.ni)) != NULL)
			rc = -EEXIST;
	}
	if (rc == 0) {
		e = nego_insert(h, NEGO_KIND_INIT, peer, nego_be32(st.ni));
		rc = e == NULL ? -ENOSPC : 0;
	}
	if (e != NULL) {
		sec = nego_sec_of(h, e);
		sec->st.i = st;
		memcpy(sec->ni, st.ni, KEY);
		sec->msg_len = (uint16_t)sst_nego_build_end(&b);
		memcpy(sec->msg, msg, sec->msg_len);
		e->phase = NEGO_PH_I1;
	}
	sst_secure_initiator_fini(&st);
	*err = rc;
	return e;
}

void
nego_sec_send(struct sst_nego_host *h, struct nego_entry *e, sst_time_t now)
{
	struct nego_sec *sec = nego_sec_of(h, e);

	h->ops.transmit(h->ctx, &e->peer, sec->msg, sec->msg_len, now);
	if (e->phase == NEGO_PH_I2)
		h->stats.tx_sec_i2++;
	else
		h->stats.tx_sec_i1++;
}

/* The attempt a SecR1 or SecCookie answers: (peer, ni), still waiting. */
static struct nego_entry *
attempt_of(struct sst_nego_host *h, const struct sst_nego_addr *peer, int32_t type,
	const struct sst_bytes *body)
{
	const uint8_t *ni;
	struct nego_entry *e;

	if (sst_secure_peek_nonce(type, body, &ni) < 0)
		return NULL;
	e = nego_lookup(h, NEGO_KIND_INIT, peer, nego_be32(ni));
	if (e == NULL || e->mode != SST_NEGO_MODE_SECURE || e->phase != NEGO_PH_I1 ||
		sodium_memcmp(nego_sec_of(h, e)->ni, ni, KEY) != 0)
		return NULL;
	return e;
}

/* Spec 3.3, initiator: SecR1 verifies, our keys are ready. */
void
nego_sec_on_r1(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct sst_bytes *body, sst_time_t now)
{
	uint8_t msg[NEGO_SEC_MSG_MAX];
	struct sst_secure_result res;
	struct sst_nego_builder b;
	struct nego_entry *e;
	struct nego_sec *sec;
	int rc;

	if (h->sec == NULL) {
		h->stats.rx_unsupported++;
		return;
	}
	e = attempt_of(h, peer, SST_NEGO_SECR1, body);
	if (e == NULL) {
		h->stats.rx_sec_r1_unmatched++;
		return;
	}
	h->stats.rx_sec_r1++;
	sec = nego_sec_of(h, e);
	sst_nego_build_begin(&b, msg, sizeof(msg));
	rc = sst_secure_initiator_on_r1(
		&sec->st.i, &h->sec_cfg, body, peer_name(h, peer), &b, &res);
	if (rc < 0) {
		h->stats.rx_sec_r1_bad++;
		return;
	}
	/* From now on the attempt repeats SecI2 (spec 3.4). */
	sec->msg_len = (uint16_t)sst_nego_build_end(&b);
	memcpy(sec->msg, msg, sec->msg_len);
	e->phase = NEGO_PH_I2;
	h->n_confirm++;
	e->created = now;
	e->interval = SST_NEGO_RETX_INITIAL;
	e->next_tx = sst_time_add(now, e->interval);
	e->last_tx = now;
	e->peer_channel = res.peer_channel; /* byte 0 of early packets */
	/* ulpr was sealed and signed by the responder's identity: its
	 * instance, and so a restart, cannot be faked (docs/negotiation.md
	 * 3.1). */
	rc = sec_report(h, SST_NEGO_INITIATOR, peer, e->id, &e, &res, now);
	if (rc < 0) {
		h->stats.rx_sec_r1_refused++;
	} else {
		h->stats.established_initiator++;
		if (e != NULL)
			nego_sec_send(h, e, now);
	}
	nego_rearm(h);
}

/*
 * Spec 3.4, initiator: the SecI2 we repeat, now with one channel packet in a
 * Packet chunk after it. The responder processes the chunks in order: the
 * SecI2 creates its channel (or, repeated byte for byte, finds it), then
 * the packet goes to that channel. So the packet arrives even when every
 * earlier SecI2 was lost, one round trip after SecI1, and a lost message
 * costs what a lost packet costs: the stream layer sends the data again,
 * through here while the attempt is unconfirmed. The timer's schedule of
 * plain SecI2 copies is left as it is; the packet is not kept.
 */
int
nego_sec_send_early(
	struct sst_nego_host *h, struct nego_entry *e, const void *pkt, size_t len, sst_time_t now)
{
	struct nego_sec *sec = nego_sec_of(h, e);
	struct sst_nego_builder b;
	struct sst_nego_chunk c;
	struct sst_nego_iter it;
	struct sst_nego_msg m;

	/* The responder hands the packet to the channel named by byte 0. */
	if (((const uint8_t *)pkt)[0] != e->peer_channel)
		return -EINVAL;
	if (sst_nego_msg_parse(sec->msg, sec->msg_len, &m) < 0 || m.nchunks != 1)
		return -EINVAL; /* cannot happen: we built it */
	sst_nego_iter_init(&it, &m);
	sst_nego_iter_next(&it, &c);
	sst_nego_build_begin(&b, h->early_buf, h->early_max);
	if (sst_nego_build_raw(&b, c.type, c.body.ptr, c.body.len) < 0 ||
		sst_nego_build_packet(&b, pkt, len) < 0)
		return -EMSGSIZE;
	h->ops.transmit(h->ctx, &e->peer, h->early_buf, sst_nego_build_end(&b), now);
	h->stats.tx_sec_i2++;
	h->stats.tx_packet++;
	return 0;
}

/* Spec 3.5, initiator: send SecI1 again with the responder's cookie. */
void
nego_sec_on_cookie(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct sst_bytes *body, sst_time_t now)
{
	uint8_t msg[NEGO_SEC_MSG_MAX];
	struct sst_nego_builder b;
	struct nego_entry *e;
	struct nego_sec *sec;

	if (h->sec == NULL) {
		h->stats.rx_unsupported++;
		return;
	}
	e = attempt_of(h, peer, SST_NEGO_SECCOOKIE, body);
	/* A bound on answers: SecCookie is not authenticated, and anyone who
	 * saw our SecI1 could otherwise make us send it again and again. */
	if (e == NULL || e->cookies >= SST_NEGO_COOKIES_MAX) {
		h->stats.rx_sec_cookie_bad++;
		return;
	}
	sec = nego_sec_of(h, e);
	sst_nego_build_begin(&b, msg, sizeof(msg));
	if (sst_secure_initiator_on_cookie(&sec->st.i, body, &b) < 0) {
		h->stats.rx_sec_cookie_bad++;
		return;
	}
	sec->msg_len = (uint16_t)sst_nego_build_end(&b);
	memcpy(sec->msg, msg, sec->msg_len);
	e->cookies++;
	h->stats.rx_sec_cookie++;
	nego_sec_send(h, e, now);
	e->last_tx = now;
	e->next_tx = sst_time_add(now, e->interval);
	nego_rearm(h);
}

/*
 * Spec 3.6, initiator: the responder has no suite we offered. The refusal
 * is not authenticated (the responder keeps no state and signs nothing for
 * an unproven initiator); it is believed only when it echoes our whole ni,
 * which an off-path sender cannot guess, and lists no suite we offered. It
 * never makes us offer anything else: it can end an attempt, never weaken
 * one. An on-path attacker who reads our SecI1 can forge it, as it could
 * drop the SecR1.
 */
void
nego_sec_on_refuse(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct sst_bytes *body, sst_time_t now)
{
	struct nego_entry *e;
	uint8_t chan;

	if (h->sec == NULL) {
		h->stats.rx_unsupported++;
		return;
	}
	e = attempt_of(h, peer, SST_NEGO_SECREFUSE, body);
	if (e == NULL || sst_secure_initiator_on_refuse(&nego_sec_of(h, e)->st.i, body) < 0) {
		h->stats.rx_sec_refuse_bad++;
		return;
	}
	chan = e->local_channel;
	nego_remove(h, e);
	h->stats.rx_sec_refuse++;
	h->ops.chan_free(h->ctx, peer, chan);
	if (h->ops.failed != NULL)
		h->ops.failed(h->ctx, peer, chan, -ENOTSUP, now);
	nego_rearm(h);
}

/* --- responder --- */

/* SecR1 to an entry's address, within 3x what it sent unless validated. */
static void
send_r1(struct sst_nego_host *h, struct nego_entry *e, sst_time_t now)
{
	struct nego_sec *sec = nego_sec_of(h, e);

	if (!e->validated) {
		if ((uint64_t)sec->tx_bytes + sec->msg_len >
			(uint64_t)h->amp_factor * sec->rx_bytes) {
			h->stats.amp_limited++;
			return;
		}
		sec->tx_bytes += sec->msg_len;
		h->stats.amp_tx_bytes += sec->msg_len;
	}
	h->ops.transmit(h->ctx, &e->peer, sec->msg, sec->msg_len, now);
	h->stats.tx_sec_r1++;
}

/* Spec 7: the stateless answer, SecCookie, within 3x of the message. */
static void
send_challenge(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct sst_bytes *body, uint32_t budget, sst_time_t now)
{
	struct sst_secure_cookie_req req = cookie_req(h, peer);
	uint8_t msg[COOKIE_MSG_LEN];
	struct sst_nego_builder b;
	size_t len;

	h->stats.rx_sec_i1_challenged++;
	sst_nego_build_begin(&b, msg, sizeof(msg));
	if (sst_secure_cookie_challenge(&req, body, &b) != SST_SECURE_CHALLENGED)
		return; /* cannot happen: the SecI1 decoded */
	len = sst_nego_build_end(&b);
	if (!nego_amp_allow(h, budget, len))
		return;
	h->stats.tx_sec_cookie++;
	h->ops.transmit(h->ctx, peer, msg, len, now);
}

/*
 * Spec 3.6: a SecI1 that offers none of our suites gets a SecRefuse and no
 * state, before any table lookup or cookie. It is smaller than any SecI1
 * message (at most 72 bytes against at least 100), and sent only on the
 * message's budget, so it amplifies nothing. @return true if refused.
 */
static bool
refuse_no_suite(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct sst_bytes *body, uint32_t budget, sst_time_t now)
{
	uint8_t msg[REFUSE_MSG_LEN];
	struct sst_nego_builder b;
	size_t len;

	sst_nego_build_begin(&b, msg, sizeof(msg));
	if (sst_secure_refusal(&h->sec_cfg, body, &b) != SST_SECURE_REFUSED)
		return false; /* a mutual suite: the handshake goes on */
	h->stats.rx_sec_i1_refused++;
	len = sst_nego_build_end(&b);
	h->stats.amp_rx_bytes += budget;
	if (len >= budget) {
		h->stats.amp_limited++;
		return true;
	}
	h->stats.amp_tx_bytes += len;
	h->stats.tx_sec_refuse++;
	h->ops.transmit(h->ctx, peer, msg, len, now);
	return true;
}

/* Drop a responder entry that never established; its number goes back. */
static void
drop_half_open(struct sst_nego_host *h, struct nego_entry *e)
{
	struct sst_nego_addr peer = e->peer;
	uint8_t chan = e->local_channel;

	nego_remove(h, e);
	h->ops.chan_free(h->ctx, &peer, chan);
}

/* Spec 3.2 and 7, responder: SecI1. */
void
nego_sec_on_i1(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct sst_bytes *body, sst_time_t now)
{
	struct sst_secure_i1_info info;
	struct sst_secure_cookie_req req;
	struct sst_nego_ulp ulp;
	struct sst_nego_builder b;
	struct nego_entry *e;
	struct nego_sec *sec;
	bool validated = false, amp;
	uint32_t budget;
	int chan, rc;

	if (h->sec == NULL || !h->sec_responder) {
		h->stats.rx_sec_i1_unsupported++;
		return;
	}
	if (sst_secure_i1_info(body, &info) < 0) {
		h->stats.rx_bad_chunk++;
		return;
	}
	h->stats.rx_sec_i1++;
	/* A message's bytes are one budget, for its first SecI1 only. */
	budget = h->rx_budget;
	h->rx_budget = 0;
	if (refuse_no_suite(h, peer, body, budget, now))
		return;
	sst_nego_ulp_decode(info.ulp.ptr, info.ulp.len, &ulp);
	e = nego_lookup(h, NEGO_KIND_RESP, peer, info.chani);
	if (e != NULL) {
		if (e->mode == SST_NEGO_MODE_SECURE &&
			sodium_memcmp(nego_sec_of(h, e)->ni, info.ni, KEY) == 0) {
			h->stats.rx_sec_i1_duplicate++;
			if (e->phase == NEGO_PH_HALF) {
				sec = nego_sec_of(h, e);
				if (!e->validated) {
					sec->rx_bytes += budget;
					h->stats.amp_rx_bytes += budget;
				}
				send_r1(h, e, now);
			}
			return;
		}
		/* As in checksum mode: a number reused within 20 s is a
		 * stray or forged message, unless another process claims
		 * it from an entry whose handshake is over; later, a
		 * restart. */
		if (now < sst_time_add(e->created, SST_NEGO_FAIL_AFTER) &&
			!nego_restart_supersedes(h, peer, e, &ulp)) {
			h->stats.rx_sec_i1_conflict++;
			return;
		}
		if (e->phase == NEGO_PH_HALF)
			drop_half_open(h, e);
		else
			nego_remove(h, e); /* the old channel stays the caller's */
	}
	amp = r1_msg_len(h) > (uint64_t)h->amp_factor * budget;
	if (nego_under_load(h) || h->n_half >= h->max_half_open || h->n_resp >= h->max_responding ||
		amp) {
		nego_cookie_rotate(h, now);
		req = cookie_req(h, peer);
		if (info.cookie_len == 0 || sst_secure_cookie_verify(&req, body) < 0) {
			if (info.cookie_len != 0)
				h->stats.rx_sec_i1_cookie_bad++;
			/* Spec 7: a SecR1 over 3x is replaced by the challenge. */
			if (amp)
				h->stats.amp_limited++;
			send_challenge(h, peer, body, budget, now);
			return;
		}
		h->stats.rx_sec_i1_cookie_ok++;
		validated = true;
		/* Section 5.3: under load, setups that will hold state are
		 * limited per source (a proven address, so the limit is the
		 * sender's own). Not otherwise: clients behind one NAT share
		 * an address. */
		if (nego_under_load(h) && !nego_rate_allow(h, peer, now)) {
			h->stats.rx_rate_limited++;
			return;
		}
		/* A proven initiator takes the place of the oldest unproven
		 * half-open entry when there is no room. */
		if ((h->n_half >= h->max_half_open || h->n_resp >= h->max_responding) &&
			h->half_head != NEGO_NONE) {
			drop_half_open(h, &h->entries[h->half_head]);
			h->stats.half_open_evicted++;
		}
		if (h->n_resp >= h->max_responding) {
			h->stats.rx_sec_i1_refused++;
			return;
		}
	}
	chan = h->ops.chan_alloc(h->ctx, peer);
	if (chan <= 0 || chan > 255) {
		h->stats.rx_sec_i1_refused++;
		return;
	}
	e = nego_insert(h, NEGO_KIND_RESP, peer, info.chani);
	if (e == NULL) { /* cannot happen: room checked above */
		h->ops.chan_free(h->ctx, peer, (uint8_t)chan);
		h->stats.rx_sec_i1_refused++;
		return;
	}
	sec = nego_sec_of(h, e);
	sst_nego_build_begin(&b, sec->msg, sizeof(sec->msg));
	rc = sst_secure_responder_on_i1(
		&sec->st.r, &h->sec_cfg, body, NULL, (uint8_t)chan, h->ulp, h->ulp_len, &b);
	if (rc != 0) { /* no mutual suite, a low-order key */
		nego_remove(h, e);
		h->ops.chan_free(h->ctx, peer, (uint8_t)chan);
		h->stats.rx_sec_i1_refused++;
		return;
	}
	sec->msg_len = (uint16_t)sst_nego_build_end(&b);
	memcpy(sec->ni, info.ni, KEY);
	memcpy(sec->nr, sec->st.r.nr, KEY);
	e->mode = SST_NEGO_MODE_SECURE;
	e->local_channel = (uint8_t)chan;
	e->peer_channel = info.chani;
	e->instance = ulp.has_instance ? ulp.instance : 0;
	e->created = now;
	e->validated = validated;
	if (!validated) {
		sec->rx_bytes = budget;
		h->stats.amp_rx_bytes += budget;
	}
	nego_index_alt(h, e, NEGO_KIND_NONCE, nego_be32(sec->nr));
	nego_half_link(h, e);
	send_r1(h, e, now);
	nego_rearm(h);
}

/* Spec 3.4, responder: SecI2 verifies, the channel is established. */
void
nego_sec_on_i2(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct sst_bytes *body, sst_time_t now)
{
	struct sst_secure_result res;
	struct nego_entry *e;
	struct nego_sec *sec;
	const uint8_t *nr;
	uint8_t chan;
	int rc;

	if (h->sec == NULL || !h->sec_responder) {
		h->stats.rx_unsupported++;
		return;
	}
	if (sst_secure_peek_nonce(SST_NEGO_SECI2, body, &nr) < 0) {
		h->stats.rx_bad_chunk++;
		return;
	}
	h->stats.rx_sec_i2++;
	e = nego_lookup(h, NEGO_KIND_NONCE, peer, nego_be32(nr));
	if (e == NULL || sodium_memcmp(nego_sec_of(h, e)->nr, nr, KEY) != 0) {
		h->stats.rx_sec_i2_unmatched++;
		return;
	}
	sec = nego_sec_of(h, e);
	if (e->phase != NEGO_PH_HALF) {
		h->stats.rx_sec_i2_duplicate++;
		/* Spec 3.4: the initiator repeats its SecI2 with Packet chunks
		 * until it learns that we have the channel. Those packets
		 * follow a SecI2 byte-identical to the one that verified, so
		 * they belong to this channel; they go to it, whose armor
		 * authenticates them and whose replay window drops copies.
		 * Anything else (another body with this nr) carries nothing. */
		if (e->phase == NEGO_PH_DONE && sec->msg_len == body->len &&
			sodium_memcmp(sec->msg, body->ptr, body->len) == 0)
			h->pkt_chan = e->local_channel;
		return;
	}
	rc = sst_secure_responder_on_i2(&sec->st.r, &h->sec_cfg, body, peer_name(h, peer), &res);
	if (rc < 0) {
		h->stats.rx_sec_i2_bad++;
		return;
	}
	/* Verified: the address is proven; the entry lives with the channel
	 * (a replayed SecI2 finds it established) until sst_nego_release().
	 * The SecR1 is no longer needed; the SecI2 body (public bytes)
	 * recognises the initiator's repetitions. A body that verified is
	 * at most 32 + 4 + 120 bytes (spec 3.4). */
	nego_half_unlink(h, e);
	e->phase = NEGO_PH_DONE;
	e->validated = 1;
	sodium_memzero(sec->msg, sizeof(sec->msg));
	sec->msg_len = 0;
	if (body->len <= sizeof(sec->msg)) {
		memcpy(sec->msg, body->ptr, body->len);
		sec->msg_len = (uint16_t)body->len;
	}
	chan = e->local_channel;
	/* ulpi came in clear, but in the transcript that the initiator's
	 * signature covers: with an identity, its instance is authenticated;
	 * an anonymous initiator's is recorded nowhere (nego_restart.c). */
	rc = sec_report(h, SST_NEGO_RESPONDER, peer, e->peer_channel, &e, &res, now);
	if (rc < 0) {
		h->stats.rx_sec_i2_refused++;
	} else {
		h->stats.established_responder++;
		h->pkt_chan = chan;
	}
	nego_rearm(h);
}

/* Spec 3.4: a Packet chunk after the SecI2 that created its channel. */
void
nego_sec_on_packet(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct sst_bytes *body, sst_time_t now)
{
	struct sst_xdr_reader rd;
	struct sst_bytes pkt;

	sst_xdr_reader_init(&rd, body->ptr, body->len);
	if (sst_xdr_get_opaque(&rd, PACKET_MAX, &pkt) < 0 || sst_xdr_expect_end(&rd) < 0) {
		h->stats.rx_bad_chunk++;
		return;
	}
	/* pkt_chan: the channel whose SecI2 this message verified or
	 * repeated. Byte 0 of a channel packet is the receiver's channel
	 * number. */
	if (h->pkt_chan == 0 || h->ops.packet == NULL || pkt.len == 0 ||
		pkt.ptr[0] != h->pkt_chan) {
		h->stats.rx_packet_dropped++;
		return;
	}
	h->stats.rx_packet++;
	h->ops.packet(h->ctx, peer, h->pkt_chan, pkt.ptr, pkt.len, now);
}

void
nego_sec_expire(struct sst_nego_host *h, sst_time_t now)
{
	if (h->sec == NULL)
		return;
	while (h->half_head != NEGO_NONE) {
		struct nego_entry *e = &h->entries[h->half_head];

		if (now < sst_time_add(e->created, SST_NEGO_HALF_OPEN_TTL))
			break;
		drop_half_open(h, e);
		h->stats.half_open_expired++;
	}
}

sst_time_t
nego_sec_next_expiry(const struct sst_nego_host *h)
{
	if (h->half_head == NEGO_NONE)
		return SST_TIME_NEVER;
	return sst_time_add(h->entries[h->half_head].created, SST_NEGO_HALF_OPEN_TTL);
}
