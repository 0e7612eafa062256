/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Secure-mode handshake core (docs/secure-mode.md; CUSP paper III-B for the
 * ideas: one round trip, suite offer and cheapest-mutual selection, a
 * stateless challenge for a responder under load). Sans-IO: the functions
 * below take a received chunk body and append the answer to a negotiation
 * message being built (nego_wire.h); they read no clock, open no socket,
 * keep no global state, and draw randomness only through the configured
 * callback, so a handshake is reproducible from its random bytes.
 *
 *   initiator                                   responder
 *   sst_secure_initiator_start()   -- SecI1 -->
 *                                               sst_secure_responder_on_i1()
 *   [sst_secure_initiator_on_cookie() <-- SecCookie -- when under load]
 *   sst_secure_initiator_on_r1()   <-- SecR1 --
 *     keys ready: may send channel data
 *                                  -- SecI2 (+ Packet chunks) -->
 *                                               sst_secure_responder_on_i2()
 *
 * X25519 ephemeral keys give forward secrecy, Ed25519 keys identify hosts,
 * every message is hashed into a BLAKE2b transcript that the signatures and
 * the AEAD tags (the key-confirmation MACs) cover, and the traffic keys and
 * half-channel IDs are derived from that transcript.
 *
 * A function that fails leaves its state struct as it was (a forged or
 * corrupted message cannot end a handshake) and wipes every secret it
 * computed. The file functions at the end (nego_identity.c) run at setup,
 * never per packet.
 */
#ifndef NEGO_SECURE_H
#define NEGO_SECURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nego_wire.h"
#include "sst_crypto_driver.h"
#include "sst_secure.h"

/** Secure-mode chunk types (docs/secure-mode.md section 3). */
enum sst_secure_chunk_type {
	SST_NEGO_SECI1 = 0x0031,     /**< initiator hello: ephemeral, nonce, offer */
	SST_NEGO_SECR1 = 0x0032,     /**< responder: ephemeral, choice, sealed identity */
	SST_NEGO_SECI2 = 0x0033,     /**< initiator: sealed identity or anonymous */
	SST_NEGO_SECCOOKIE = 0x0034, /**< responder under load: retry with this cookie */
	SST_NEGO_SECREFUSE = 0x0035, /**< responder: no common suite, do not retry */
};

/** Why a responder refused a SecI1 (SecRefuse's reason field). */
enum sst_secure_refuse_reason {
	SST_SECURE_REFUSE_NO_SUITE = 1, /**< none of the offered suites is acceptable */
};

/** Outcome of a completed handshake, for channel creation. */
struct sst_secure_result {
	enum sst_crypto_suite suite;
	struct sst_crypto_keys keys;	      /**< tx: ours, rx: the peer's (sst_channel_params) */
	uint8_t peer_channel;		      /**< byte 0 of the packets we send */
	enum sst_secure_peer peer;	      /**< KNOWN, NEW or ANONYMOUS */
	uint8_t peer_id[SST_SECURE_KEY_LEN];  /**< Ed25519 key; zero when anonymous */
	uint8_t tx_hcid[SST_SECURE_HCID_LEN]; /**< our half-channel ID */
	uint8_t rx_hcid[SST_SECURE_HCID_LEN]; /**< the peer's half-channel ID */
	uint16_t peer_ulp_len;
	uint8_t peer_ulp[SST_SECURE_ULP_MAX];
};

/** Wipe a result (it holds traffic keys) once the channel has them. */
void sst_secure_result_wipe(struct sst_secure_result *res);

/** Initiator handshake state, in caller memory. Fields are private. */
struct sst_secure_initiator {
	uint32_t phase;
	uint8_t chani;
	uint8_t nsuites;
	uint8_t suites[SST_SECURE_SUITES_MAX];
	uint8_t cookie_len;
	uint16_t ulp_len;
	uint8_t e_sk[SST_SECURE_KEY_LEN];
	uint8_t e_pk[SST_SECURE_KEY_LEN];
	uint8_t ni[SST_SECURE_KEY_LEN];
	uint8_t h1[SST_SECURE_KEY_LEN];
	uint8_t cookie[SST_SECURE_COOKIE_MAX];
	uint8_t ulp[SST_SECURE_ULP_MAX];
};

/** Responder handshake state, in caller memory. Fields are private. */
struct sst_secure_responder {
	uint32_t phase;
	uint8_t suite;
	uint8_t chani;
	uint16_t ulp_len;
	uint8_t nr[SST_SECURE_KEY_LEN];
	uint8_t idr[SST_SECURE_KEY_LEN];
	uint8_t h3[SST_SECURE_KEY_LEN];
	uint8_t k_hs_i[SST_SECURE_KEY_LEN];
	uint8_t s_tr[SST_SECURE_KEY_LEN];
	uint8_t ulp[SST_SECURE_ULP_MAX];
};

/** A responder's rotating cookie secret (current and previous). */
struct sst_secure_cookie_secret {
	uint8_t cur[SST_SECURE_KEY_LEN];
	uint8_t prev[SST_SECURE_KEY_LEN];
	uint64_t rotated_at; /**< ns, caller's clock */
	bool has_prev;
};

/** What a responder under load checks a SecI1's cookie against. */
struct sst_secure_cookie_req {
	const struct sst_secure_cookie_secret *secret;
	const void *addr; /**< the initiator's address, in any fixed encoding */
	size_t addr_len;
};

/**
 * Start a handshake: draw the ephemeral key and nonce, append a SecI1 chunk.
 *
 * @param st Initiator state; overwritten.
 * @param chani Our channel number (1..255): byte 0 of packets sent to us.
 * @param ulp Upper-layer blob (version, capabilities), sent in clear.
 * @param out Message being built; the caller ends and sends it.
 * @return 0, -EINVAL (config, chani, ulp_len over SST_SECURE_ULP_MAX),
 *   -ENOSPC (out is full; st is left wiped).
 */
int sst_secure_initiator_start(struct sst_secure_initiator *st, const struct sst_secure_config *cfg,
	uint8_t chani, const void *ulp, size_t ulp_len, struct sst_nego_builder *out);

/**
 * sst_secure_initiator_start() with a steering tag: the low @p ni_bits
 * bits of the last byte of ni are @p ni_tag instead of random bits
 * (docs/negotiation.md section 8; SecR1 and SecCookie echo ni). ni_bits 0
 * is sst_secure_initiator_start().
 * @return as sst_secure_initiator_start(); -EINVAL also for ni_bits over 8.
 */
int sst_secure_initiator_start_tagged(struct sst_secure_initiator *st,
	const struct sst_secure_config *cfg, uint8_t chani, const void *ulp, size_t ulp_len,
	uint8_t ni_tag, uint8_t ni_bits, struct sst_nego_builder *out);

/**
 * Answer a SecCookie challenge: append the SecI1 again, same ephemeral key
 * and nonce, now carrying the cookie.
 * @return 0, -EINVAL (not waiting for SecR1), a decode error, -SST_EBADVALUE
 *   (empty cookie), -SST_EBADAUTH (nonce is not ours), -ENOSPC.
 */
int sst_secure_initiator_on_cookie(struct sst_secure_initiator *st, const struct sst_bytes *body,
	struct sst_nego_builder *out);

/**
 * Process SecR1: check the responder's signature and key confirmation, the
 * chosen suite and the responder's identity, derive the keys and append
 * SecI2. On success the initiator may send channel data; it should resend
 * the SecI2 it built (keep the bytes) until the responder's first channel
 * packet arrives. st keeps no secret afterwards.
 *
 * @param peer_name Name the responder must be known under (NULL: any entry
 *   with its key).
 * @return 0, -EINVAL (config, not waiting for SecR1), a decode error,
 *   -SST_EBADVALUE (bad channel number or public key), -SST_EBADAUTH (nonce
 *   echo, sealed block or signature wrong), -ENOTSUP (suite we did not
 *   offer), -EACCES (identity rejected by policy), -ENOSPC.
 */
int sst_secure_initiator_on_r1(struct sst_secure_initiator *st, const struct sst_secure_config *cfg,
	const struct sst_bytes *body, const char *peer_name, struct sst_nego_builder *out,
	struct sst_secure_result *res);

/** Wipe an initiator state (always safe to call). */
void sst_secure_initiator_fini(struct sst_secure_initiator *st);

/**
 * Process SecI1: pick the suite and append SecR1, or, when @p cookie is given
 * and the SecI1 does not carry a valid cookie for that address, append a
 * SecCookie challenge and keep no state. The caller keeps the SecR1 bytes to
 * answer a retransmitted SecI1 (recomputing would change the ephemeral).
 *
 * @param st Responder state, zeroed or finished; written only when SecR1
 *   was built.
 * @param cookie NULL when not under load.
 * @param chanr Our channel number (1..255).
 * @param ulp Our upper-layer blob, sent sealed (only the initiator sees it).
 * @return 0 (SecR1 built), SST_SECURE_CHALLENGED (SecCookie built),
 *   -EINVAL (config, st in use, chanr, ulp_len), a decode error, -SST_EBADVALUE (version,
 *   channel number, public key), -ENOTSUP (no mutual suite), -ENOSPC.
 */
int sst_secure_responder_on_i1(struct sst_secure_responder *st, const struct sst_secure_config *cfg,
	const struct sst_bytes *body, const struct sst_secure_cookie_req *cookie, uint8_t chanr,
	const void *ulp, size_t ulp_len, struct sst_nego_builder *out);

/**
 * Spec 3.6: when a SecI1 offers no suite of @p cfg, append a SecRefuse
 * (the SecI1's nonce, the reason, our acceptable suites) to @p out. Keeps
 * no state and draws no randomness; the message (at most 88 bytes) is
 * smaller than any SecI1 message, so it amplifies nothing.
 * @return 0 (a mutual suite exists: nothing appended), SST_SECURE_REFUSED,
 *   -EINVAL (config), a SecI1 decode error, -ENOSPC.
 */
int sst_secure_refusal(const struct sst_secure_config *cfg, const struct sst_bytes *i1,
	struct sst_nego_builder *out);

/**
 * Spec 3.6: check a SecRefuse against our SecI1. A refusal is believed
 * only when it echoes our nonce (which an off-path sender cannot know) and
 * is consistent: the responder's suites share none with our offer (else it
 * would have chosen one). st is left as it was whatever the outcome: the
 * caller ends the handshake on 0.
 * @return 0 (refused: no common suite), -EINVAL (not waiting for SecR1), a
 *   decode error, -SST_EBADVALUE (unknown reason, no suites, or a suite we
 *   offered), -SST_EBADAUTH (nonce is not ours).
 */
int sst_secure_initiator_on_refuse(
	const struct sst_secure_initiator *st, const struct sst_bytes *body);

/**
 * Process SecI2: check the initiator's key confirmation, identity and
 * signature (or that anonymous initiators are allowed) and output the keys.
 * st keeps no secret afterwards.
 *
 * @param peer_name Name the initiator must be known under (NULL: any entry
 *   with its key).
 * @return 0, -EINVAL (config, not waiting for SecI2), a decode error,
 *   -SST_EBADVALUE (identity or signature length), -SST_EBADAUTH (nonce
 *   echo, sealed block or signature wrong), -EACCES (rejected by policy).
 */
int sst_secure_responder_on_i2(struct sst_secure_responder *st, const struct sst_secure_config *cfg,
	const struct sst_bytes *body, const char *peer_name, struct sst_secure_result *res);

/** Wipe a responder state (always safe to call). */
void sst_secure_responder_fini(struct sst_secure_responder *st);

/**
 * The nonce that identifies a handshake in a secure chunk, for the endpoint's
 * lookup: ni in SecI1, SecR1, SecCookie and SecRefuse, nr in SecI2. Not
 * authenticated.
 * @return 0, -SST_EBADTYPE (not a secure chunk), -SST_ETRUNC.
 */
int sst_secure_peek_nonce(int32_t type, const struct sst_bytes *body, const uint8_t **nonce);

/** What an endpoint needs of a SecI1 before it decides to keep state. */
struct sst_secure_i1_info {
	const uint8_t *ni;    /**< 32 bytes, into the chunk body */
	uint8_t chani;	      /**< the initiator's channel number, 1..255 */
	uint8_t noffer;	      /**< suites offered */
	uint8_t cookie_len;   /**< 0: no cookie */
	struct sst_bytes ulp; /**< ulpi, into the chunk body (in clear, not yet authenticated) */
};

/**
 * Decode a SecI1 body completely (spec 3.2) and return the fields an
 * endpoint keys its table by. Nothing is authenticated.
 * @return 0, or the decode error of sst_secure_responder_on_i1().
 */
int sst_secure_i1_info(const struct sst_bytes *body, struct sst_secure_i1_info *info);

/** Draw a first cookie secret. */
void sst_secure_cookie_secret_init(struct sst_secure_cookie_secret *s, sst_secure_random_fn random,
	void *random_ctx, uint64_t now);

/**
 * Rotate the secret if @p period ns have passed since the last rotation; the
 * previous one stays valid, so a cookie lives between one and two periods.
 * Rotations keep to the period's grid (rotated_at advances by whole
 * periods), and a call two or more periods late keeps no previous secret.
 * @return true if it rotated.
 */
bool sst_secure_cookie_secret_rotate(struct sst_secure_cookie_secret *s,
	sst_secure_random_fn random, void *random_ctx, uint64_t now, uint64_t period);

/** Wipe a cookie secret. */
void sst_secure_cookie_secret_wipe(struct sst_secure_cookie_secret *s);

/**
 * Append a SecCookie challenge for a SecI1 body: its nonce and a fresh cookie
 * for that address under the current secret (the SecI1's own cookie field
 * does not enter it).
 * @return SST_SECURE_CHALLENGED, a SecI1 decode error, -ENOSPC.
 */
int sst_secure_cookie_challenge(const struct sst_secure_cookie_req *req, const struct sst_bytes *i1,
	struct sst_nego_builder *out);

/**
 * Check the cookie a SecI1 body carries against the current and previous
 * secrets.
 * @return 0, a SecI1 decode error, -SST_EBADAUTH (missing or wrong cookie).
 */
int sst_secure_cookie_verify(const struct sst_secure_cookie_req *req, const struct sst_bytes *i1);

/* A decoded SecI1 (spec 3.2); pointers into the chunk body
 * (nego_secure_i1.c). */
struct seci1 {
	const uint8_t *ni;
	const uint8_t *ei;
	uint32_t noffer;
	uint32_t offer[SST_SECURE_OFFER_MAX];
	uint32_t chani;
	struct sst_bytes ulp;
	struct sst_bytes cookie;
	size_t prefix_len; /* bytes before the cookie field: what a cookie covers */
};

/* Decode SecI1 body into m (pointers into body). Returns 0, or a negative
 * SST_E* error for a wrong version, a field past the body or over its
 * bound (the body is then not a SecI1 we take). */
int nego_seci1_decode(const struct sst_bytes *body, struct seci1 *m);

/* Whether the cookie of SecI1 m (decoded from body) is the one req's
 * current or previous secret gives the address in req. Returns 0, or
 * -SST_EBADAUTH for a missing or wrong cookie. */
int nego_cookie_check(const struct sst_secure_cookie_req *req, const struct sst_bytes *body,
	const struct seci1 *m);

#endif /* NEGO_SECURE_H */
