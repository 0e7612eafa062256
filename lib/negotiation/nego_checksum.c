/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checksum-mode negotiation (paper 4.4; docs/wire-format.md 6.3,
 * docs/negotiation.md), the prototype's one-round-trip exchange without
 * public-key cryptography:
 *
 *   initiator                                 responder
 *   ChkI1 {cki, chani, ulpi}  --------------> creates its channel at once
 *                             <-------------- ChkR1 {cki echo, ckr, chanr, ulpr}
 *   starts its channel
 *
 * cki and ckr are each side's transmit key for Chk32 armor; chani and chanr
 * each side's own channel number (byte 0 of the packets it receives). The
 * responder keeps an entry per (initiator address, chani) so that a
 * retransmitted ChkI1 gets the same ChkR1 and never a second channel.
 *
 * Under load (docs/negotiation.md 5.1) the responder keeps nothing for a
 * ChkI1 whose address no cookie proves. It asks an SST-DPDK initiator (one
 * that sent our ulp blob) for a cookie in the prototype's own format, a
 * ChkR1 with chanr 0 and ckr == cki carrying the cookie, and the initiator
 * sends its ChkI1 again with the cookie in the ChkI1's cookie field. A
 * legacy initiator cannot do that, so its ChkI1 is dropped until the host
 * is no longer under load:
 *
 *   ChkI1 {cki, chani, ulpi}  --------------> under load, no valid cookie
 *                             <-------------- ChkR1 {cki, ckr = cki, chanr 0, cookie}
 *   ChkI1 {cki, chani, cookie, ulpi} -------> cookie valid: as above
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <sodium.h>

#include "nego_internal.h"
#include "sst_error.h"

/*
 * The prototype's key rule (prototype notes 2.9, checksum path): a keyed
 * hash of (local channel, peer address) under the host secret, plus
 * microseconds/4 of the clock, so that a new channel with the same number
 * gets a new key. Only local policy: the wire needs the two keys to differ.
 */
uint32_t
nego_chk_key(struct sst_nego_host *h, uint8_t local_channel, const struct sst_nego_addr *peer,
	sst_time_t now)
{
	uint8_t in[3 + SST_NEGO_ADDR_MAX];
	uint8_t out[crypto_generichash_BYTES_MIN];
	uint32_t key;

	if (h->ops.chk_key != NULL)
		return h->ops.chk_key(h->ctx, local_channel, peer, now);
	in[0] = 'K'; /* domain: checksum keys (the index key uses a string) */
	in[1] = local_channel;
	in[2] = peer->len;
	memcpy(in + 3, peer->bytes, peer->len);
	crypto_generichash(
		out, sizeof(out), in, 3 + (size_t)peer->len, h->secret, sizeof(h->secret));
	key = (uint32_t)out[0] << 24 | (uint32_t)out[1] << 16 | (uint32_t)out[2] << 8 | out[3];
	sodium_memzero(out, sizeof(out));
	return key + (uint32_t)(now / SST_NSEC_PER_USEC / 4);
}

/* Build a message holding one chunk in the host's buffer. @return its
 * length, 0 if it does not fit (cannot happen: the fields are ours and fit
 * NEGO_TX_MAX, static_assert in nego_host.c). */
static size_t
build_chunk(
	struct sst_nego_host *h, const struct sst_nego_chki1 *i1, const struct sst_nego_chkr1 *r1)
{
	struct sst_nego_builder b;
	int rc;

	sst_nego_build_begin(&b, h->txbuf, sizeof(h->txbuf));
	rc = i1 != NULL ? sst_nego_build_chki1(&b, i1) : sst_nego_build_chkr1(&b, r1);
	return rc < 0 ? 0 : sst_nego_build_end(&b);
}

/* Our ChkI1, with the cookie a responder under load gave us (if any). */
void
nego_chk_send_i1(struct sst_nego_host *h, struct nego_entry *e, sst_time_t now)
{
	struct sst_nego_chki1 i1 = {
		.cki = e->cki,
		.chani = e->local_channel,
		.cookie = {.ptr = e->cookie, .len = e->cookie_len},
		.ulpi = {.ptr = h->ulp, .len = h->ulp_len},
	};
	size_t len = build_chunk(h, &i1, NULL);

	if (len != 0)
		h->ops.transmit(h->ctx, &e->peer, h->txbuf, len, now);
}

/* Bytes of our ChkR1 message: header 8, chunk length and type 8, cki, ckr
 * and chanr 12, empty cookie<> and cpkt<> 8, ulpr<> 4 + our blob. */
static uint32_t
r1_msg_len(const struct sst_nego_host *h)
{
	return 40 + RTE_ALIGN_CEIL((uint32_t)h->ulp_len, 4u);
}

/* ChkR1 to an entry's address; for an address no cookie proved, within the
 * amplification budget of the message it answers (5.2). */
static void
send_r1(struct sst_nego_host *h, const struct nego_entry *e, uint32_t budget, sst_time_t now)
{
	struct sst_nego_chkr1 r1 = {
		.cki = e->cki,
		.ckr = e->ckr,
		.chanr = e->local_channel,
		.ulpr = {.ptr = h->ulp, .len = h->ulp_len},
	};
	size_t len = build_chunk(h, NULL, &r1);

	if (len == 0 || (!e->validated && !nego_amp_allow(h, budget, len)))
		return;
	h->ops.transmit(h->ctx, &e->peer, h->txbuf, len, now);
	h->stats.tx_r1++;
}

/*
 * Section 5.1: the cookie of a ChkI1, BLAKE2b-128 keyed with the cookie
 * secret over a label, the address (be32 length, bytes) and the ChkI1 body
 * up to its cookie field (cki, chani), as secure mode's cookie covers its
 * SecI1 up to the cookie field (secure-mode.md 7). Its own label keeps a
 * SecI1's cookie from passing for a ChkI1. Only we ever check it.
 */
static void
chk_cookie(const uint8_t secret[SST_SECURE_KEY_LEN], const struct sst_nego_addr *peer,
	const struct sst_nego_chki1 *i1, uint8_t out[SST_NEGO_COOKIE_LEN])
{
	static const char label[] = "SST-DPDK chk cookie v1";
	crypto_generichash_state st;
	uint8_t alen[4], prefix[8];

	sst_put_be32(alen, peer->len);
	sst_put_be32(prefix, i1->cki);
	sst_put_be32(prefix + 4, i1->chani);
	crypto_generichash_init(&st, secret, SST_SECURE_KEY_LEN, SST_NEGO_COOKIE_LEN);
	crypto_generichash_update(&st, (const uint8_t *)label, sizeof(label) - 1);
	crypto_generichash_update(&st, alen, sizeof(alen));
	crypto_generichash_update(&st, peer->bytes, peer->len);
	crypto_generichash_update(&st, prefix, sizeof(prefix));
	crypto_generichash_final(&st, out, SST_NEGO_COOKIE_LEN);
	sodium_memzero(&st, sizeof(st));
}

/* Whether a ChkI1 carries a valid cookie for its address, under the
 * current or the previous secret (a cookie lives one to two periods). */
static bool
chk_cookie_valid(
	struct sst_nego_host *h, const struct sst_nego_addr *peer, const struct sst_nego_chki1 *i1)
{
	uint8_t want[SST_NEGO_COOKIE_LEN];
	int ok = 0;

	if (i1->cookie.len != SST_NEGO_COOKIE_LEN)
		return false;
	chk_cookie(h->cookie.cur, peer, i1, want);
	ok |= sodium_memcmp(want, i1->cookie.ptr, sizeof(want)) == 0;
	if (h->cookie.has_prev) {
		chk_cookie(h->cookie.prev, peer, i1, want);
		ok |= sodium_memcmp(want, i1->cookie.ptr, sizeof(want)) == 0;
	}
	sodium_memzero(want, sizeof(want));
	return ok != 0;
}

/*
 * Section 5.1: the stateless answer to an SST-DPDK initiator, a cookie
 * request in the prototype's format (wire-format.md 6.3: chanr 0 and
 * ckr == cki ask for a cookie), which echoes cki (and with it the
 * initiator's steering tag) and carries nothing else: 56 bytes, never more
 * than the ChkI1 it answers (at least 36 bytes; one with our blob 56).
 */
static void
send_challenge(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct sst_nego_chki1 *i1, uint32_t budget, sst_time_t now)
{
	uint8_t cookie[SST_NEGO_COOKIE_LEN];
	struct sst_nego_chkr1 r1 = {
		.cki = i1->cki,
		.ckr = i1->cki,
		.chanr = 0,
		.cookie = {.ptr = cookie, .len = sizeof(cookie)},
	};
	size_t len;

	h->stats.rx_i1_challenged++;
	chk_cookie(h->cookie.cur, peer, i1, cookie);
	len = build_chunk(h, NULL, &r1);
	if (len == 0 || !nego_amp_allow(h, budget, len))
		return;
	h->ops.transmit(h->ctx, peer, h->txbuf, len, now);
	h->stats.tx_r1_cookie++;
}

/*
 * Fill a result from the two keys (wire-format.md 4.11): the half-channel
 * ID of a direction is the key of the channel's originating direction (the
 * initiator's, cki) followed by the other one. The initiator's transmit ID
 * is cki || ckr, the responder's ckr || cki, and the root stream's USID is
 * (0, the initiator's transmit ID) on both sides.
 */
static void
chk_result(struct sst_nego_host *h, struct sst_nego_result *r, enum sst_nego_role role,
	const struct nego_entry *e, uint32_t cki, uint32_t ckr, uint8_t peer_channel,
	const struct sst_bytes *peer_ulp)
{
	uint8_t id_i[SST_NEGO_HCID_CHK_LEN], id_r[SST_NEGO_HCID_CHK_LEN];

	memset(r, 0, sizeof(*r));
	r->mode = SST_NEGO_MODE_CHECKSUM;
	r->role = role;
	r->peer = e->peer;
	r->local_channel = e->local_channel;
	r->peer_channel = peer_channel;
	r->suite = SST_CRYPTO_CHK32;
	r->keys.tx_chk_key = role == SST_NEGO_INITIATOR ? cki : ckr;
	r->keys.rx_chk_key = role == SST_NEGO_INITIATOR ? ckr : cki;
	sst_put_be32(id_i, cki);
	sst_put_be32(id_i + 4, ckr);
	sst_put_be32(id_r, ckr);
	sst_put_be32(id_r + 4, cki);
	r->hcid_len = SST_NEGO_HCID_CHK_LEN;
	memcpy(r->tx_hcid, role == SST_NEGO_INITIATOR ? id_i : id_r, SST_NEGO_HCID_CHK_LEN);
	memcpy(r->rx_hcid, role == SST_NEGO_INITIATOR ? id_r : id_i, SST_NEGO_HCID_CHK_LEN);
	r->root_usid.counter = 0;
	r->root_usid.hcid_len = SST_NEGO_HCID_CHK_LEN;
	memcpy(r->root_usid.hcid, id_i, SST_NEGO_HCID_CHK_LEN);
	sst_nego_ulp_decode(peer_ulp->ptr, peer_ulp->len, &r->peer_ulp);
	/* We never use a capability with a peer that did not advertise it,
	 * nor one we did not advertise ourselves. */
	r->common_caps = h->ulp_len != 0 ? r->peer_ulp.caps & h->ulp_caps : 0;
	r->local_legacy = h->ulp_len == 0;
	r->peer_status = SST_SECURE_PEER_UNKNOWN;
}

/*
 * Responder, under load or over the amplification budget (5.1, 5.2): let a
 * ChkI1 through only with a valid cookie, and then within its source's
 * rate when under load. Keeps nothing otherwise. @return true to go on.
 */
static bool
chk_admit(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct sst_nego_chki1 *i1, const struct sst_nego_ulp *ulp, uint32_t budget,
	bool *proven, sst_time_t now)
{
	bool amp = r1_msg_len(h) > (uint64_t)h->amp_factor * budget;

	if (!nego_under_load(h) && !amp)
		return true;
	nego_cookie_rotate(h, now);
	if (chk_cookie_valid(h, peer, i1)) {
		h->stats.rx_i1_cookie_ok++;
		*proven = true;
	} else if (!ulp->extended) {
		/* The prototype never answers a cookie request: a legacy
		 * initiator is served only while we are not under load, and
		 * not at all when our ChkR1 would amplify its ChkI1. */
		if (nego_under_load(h))
			h->stats.rx_i1_legacy++;
		else
			nego_amp_allow(h, budget, r1_msg_len(h)); /* counts the refusal */
		return false;
	} else {
		if (i1->cookie.len != 0)
			h->stats.rx_i1_cookie_bad++;
		if (amp)
			h->stats.amp_limited++;
		send_challenge(h, peer, i1, budget, now);
		return false;
	}
	/* A proven address, so the limit is the sender's own; not when we are
	 * not under load, since clients behind one NAT share an address. */
	if (nego_under_load(h) && !nego_rate_allow(h, peer, now)) {
		h->stats.rx_rate_limited++;
		return false;
	}
	return true;
}

/*
 * A legacy key's slack: a key is drawn when its attempt starts, and we note
 * the time its ChkI1 first reaches us, up to SST_NEGO_FAIL_AFTER later when
 * copies were lost; the two keys compared each carry such a delay, and the
 * two clocks drift a little. In the keys' unit of 4 microseconds.
 */
#define LEGACY_KEY_SLACK ((int64_t)(SST_NEGO_FAIL_AFTER + 5 * SST_NSEC_PER_SEC) / 4000)

/** What a ChkI1 with a new key on a number we hold means (legacy_key()). */
enum legacy_key {
	LEGACY_KEY_STRAY,   /**< an earlier attempt of the same instance */
	LEGACY_KEY_REUSE,   /**< the same instance reused its number */
	LEGACY_KEY_RESTART, /**< another instance: the peer restarted */
};

/*
 * Issue 15, finding 7(d): a peer that sends no instance (the 2007
 * prototype, a host posing as it, an older SST-DPDK one) still tells its
 * instance by its keys. The prototype's key for a channel is a keyed hash
 * of (its channel number, our address) under its host secret, plus its
 * clock in 4-microsecond units (prototype notes 2.9; nego_chk_key() does
 * the same), so two keys of one instance for one number differ by the time
 * between them, and a key that no delay explains comes from another secret:
 * a new instance, which may reuse its old number at once (the prototype
 * takes the lowest free one). Within the slack, a newer key is the same
 * host's next channel with that number (its earlier one ended there), an
 * older one a straggler. A restart misread as the same instance (its key
 * falls within the slack by chance: about 50 s of a 4.8-hour cycle, 0.3%)
 * is taken as that next channel.
 */
static enum legacy_key
legacy_key(const struct nego_entry *e, uint32_t cki, sst_time_t now)
{
	int64_t elapsed = (int64_t)((now - e->created) / 4000);
	int64_t ahead = (int32_t)(cki - e->cki);
	int64_t skew = (int32_t)(cki - e->cki - (uint32_t)elapsed);

	if (skew > LEGACY_KEY_SLACK || skew < -LEGACY_KEY_SLACK)
		return LEGACY_KEY_RESTART;
	return ahead > 0 ? LEGACY_KEY_REUSE : LEGACY_KEY_STRAY;
}

/* Responder, on ChkI1 (wire-format.md 6.3): accept, create the channel at
 * once and answer ChkR1; a retransmission gets the same ChkR1 again. */
void
nego_chk_on_i1(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct sst_bytes *body, sst_time_t now)
{
	struct sst_nego_result r;
	struct sst_nego_chki1 i1;
	struct sst_nego_ulp ulp;
	struct nego_entry *e;
	bool proven = false, key_restart = false;
	uint32_t budget, ckr, replaced = 0;
	int chan, rc;

	if (sst_nego_chki1_decode(body, &i1) < 0) {
		h->stats.rx_bad_chunk++;
		return;
	}
	h->stats.rx_i1++;
	/* A message's bytes are one budget, for its first I1 only (5.2). */
	budget = h->rx_budget;
	h->rx_budget = 0;
	sst_nego_ulp_decode(i1.ulpi.ptr, i1.ulpi.len, &ulp);
	e = nego_lookup(h, NEGO_KIND_RESP, peer, i1.chani);
	if (e != NULL) {
		if (e->mode == SST_NEGO_MODE_CHECKSUM && e->cki == i1.cki) {
			h->stats.rx_i1_duplicate++;
			send_r1(h, e, budget, now);
			return;
		}
		/* Another key on a number we still hold: the initiator reuses
		 * its number only after the earlier attempt gave up (20 s) or
		 * its channel ended, so anything sooner is a stray or forged
		 * message. Later, it is a restart: the entry is replaced (the
		 * earlier channel stays the caller's). */
		bool soon = now < sst_time_add(e->created, SST_NEGO_FAIL_AFTER);

		/* A new instance of a peer we hold channels with says so in
		 * its blob: a restart at once (as weak as all of checksum
		 * mode: anyone who can send from the peer's address can claim
		 * it). The instance a restart replaced claims nothing: its
		 * late ChkI1 must not take the new process's entry. A peer
		 * without an instance tells by its key (legacy_key()); the key
		 * this entry replaced is a straggler's, whatever it says. */
		if (e->mode == SST_NEGO_MODE_CHECKSUM && !ulp.has_instance) {
			enum legacy_key k = legacy_key(e, i1.cki, now);

			if (i1.cki == e->prev_cki || (soon && k == LEGACY_KEY_STRAY)) {
				h->stats.rx_i1_conflict++;
				return;
			}
			key_restart = k == LEGACY_KEY_RESTART;
		} else if (soon && !nego_restart_claimed(h, peer, SST_NEGO_MODE_CHECKSUM, &ulp) &&
			   !nego_restart_supersedes(h, peer, e, &ulp)) {
			h->stats.rx_i1_conflict++;
			return;
		}
		/* Whatever replaces it (a restart by instance or by key, the
		 * same host's next channel), this entry's key is a
		 * straggler's from now on. */
		if (e->mode == SST_NEGO_MODE_CHECKSUM)
			replaced = e->cki;
	}
	/* Nothing changes for an I1 that is not let through, not even the
	 * entry it would replace. The initiator's ChkI1 may also carry a
	 * piggybacked packet, which we do not take yet. */
	if (!chk_admit(h, peer, &i1, &ulp, budget, &proven, now))
		return;
	if (e != NULL) {
		if (e->phase == NEGO_PH_HALF) {
			/* A secure handshake that never finished. */
			uint8_t old = e->local_channel;

			nego_remove(h, e);
			h->ops.chan_free(h->ctx, peer, old);
		} else {
			nego_remove(h, e);
		}
	}
	if (h->n_resp >= h->max_responding) {
		h->stats.rx_i1_refused_full++;
		return;
	}
	chan = h->ops.chan_alloc(h->ctx, peer);
	if (chan <= 0 || chan > 255) {
		h->stats.rx_i1_no_channel++;
		return;
	}
	ckr = nego_chk_key(h, (uint8_t)chan, peer, now);
	/* Equal keys would read as a cookie request (ChkR1 with ckr == cki). */
	if (ckr == i1.cki)
		ckr++;
	e = nego_insert(h, NEGO_KIND_RESP, peer, i1.chani);
	if (e == NULL) { /* cannot happen: room checked above */
		h->ops.chan_free(h->ctx, peer, (uint8_t)chan);
		h->stats.rx_i1_refused_full++;
		return;
	}
	e->mode = SST_NEGO_MODE_CHECKSUM;
	e->local_channel = (uint8_t)chan;
	e->peer_channel = (uint8_t)i1.chani;
	e->cki = i1.cki;
	e->ckr = ckr;
	e->prev_cki = replaced;
	e->instance = ulp.has_instance ? ulp.instance : 0;
	e->created = now;
	e->validated = proven;
	chk_result(h, &r, SST_NEGO_RESPONDER, e, i1.cki, ckr, (uint8_t)i1.chani, &i1.ulpi);
	/* nego_restart_check() keeps it for a peer without an instance. */
	r.peer_restarted = key_restart;
	/* The instance in ulpi is as unauthenticated as the rest of ChkI1:
	 * anyone who can send from the peer's address can claim a restart
	 * (docs/negotiation.md 3.1). */
	rc = nego_report_established(h, &r, now);
	/* The callback may have touched the table: find the entry again. */
	e = nego_lookup(h, NEGO_KIND_RESP, peer, i1.chani);
	if (e == NULL || e->local_channel != (uint8_t)chan || e->cki != i1.cki) {
		if (rc < 0) {
			h->ops.chan_free(h->ctx, peer, (uint8_t)chan);
			h->stats.rx_i1_refused++;
		}
		return;
	}
	if (rc < 0) {
		nego_remove(h, e);
		h->ops.chan_free(h->ctx, peer, (uint8_t)chan);
		h->stats.rx_i1_refused++;
		return;
	}
	h->stats.established_responder++;
	/* Half-open until the caller hears from the initiator on the channel
	 * (sst_nego_confirm()): what load detection counts. */
	nego_unheard_link(h, e);
	send_r1(h, e, budget, now);
}

/* Initiator, on ChkR1 (wire-format.md 6.3): the answer to one of our
 * attempts (matched by peer and the echoed cki) starts our channel. */
void
nego_chk_on_r1(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct sst_bytes *body, sst_time_t now)
{
	struct sst_nego_result r;
	struct sst_nego_chkr1 r1;
	struct nego_entry *e;
	uint8_t chan;
	int rc;

	if (sst_nego_chkr1_decode(body, &r1) < 0) {
		h->stats.rx_bad_chunk++;
		return;
	}
	h->stats.rx_r1++;
	e = nego_lookup(h, NEGO_KIND_INIT, peer, r1.cki);
	if (e == NULL || e->mode != SST_NEGO_MODE_CHECKSUM) {
		h->stats.rx_r1_unmatched++;
		return;
	}
	if (sst_nego_chkr1_wants_cookie(&r1)) {
		/* Section 5.1: the responder is under load and keeps nothing
		 * until we prove our address: our ChkI1 again at once, with its
		 * cookie, and so are its retransmissions. A bound on answers,
		 * since anyone who saw our ChkI1 can send this. */
		if (r1.cookie.len == 0 || r1.cookie.len > SST_NEGO_COOKIE_LEN ||
			e->cookies >= SST_NEGO_COOKIES_MAX) {
			h->stats.rx_r1_cookie_bad++;
			return;
		}
		memcpy(e->cookie, r1.cookie.ptr, r1.cookie.len);
		e->cookie_len = (uint8_t)r1.cookie.len;
		e->cookies++;
		h->stats.rx_r1_cookie++;
		nego_chk_send_i1(h, e, now);
		h->stats.tx_i1_retx++;
		e->last_tx = now;
		e->next_tx = sst_time_add(now, e->interval);
		nego_rearm(h);
		return;
	}
	chan = e->local_channel;
	chk_result(h, &r, SST_NEGO_INITIATOR, e, r1.cki, r1.ckr, (uint8_t)r1.chanr, &r1.ulpr);
	/* The attempt is over before the callback runs: later copies of this
	 * ChkR1 match nothing and are ignored. */
	nego_remove(h, e);
	nego_rearm(h);
	rc = nego_report_established(h, &r, now);
	if (rc < 0) {
		h->ops.chan_free(h->ctx, peer, chan);
		h->stats.rx_r1_refused++;
		return;
	}
	h->stats.established_initiator++;
}
