/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Secure-mode handshake (docs/secure-mode.md): SecI1 -> SecR1 -> SecI2, the
 * SecCookie challenge, the transcript and key schedule. The setup-time files
 * (identity key, known hosts) are in nego_identity.c. Section numbers below
 * ("spec 4.2") refer to docs/secure-mode.md.
 *
 * Every entry point works on locals first and writes its state struct only
 * after the last step that can fail, so that a forged or corrupted message
 * changes nothing; locals that held secrets are wiped on every exit.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include <sodium.h>

#include "nego_secure.h"
#include "sst_error.h"
#include "sst_params.h"

/* The wire codes of spec 3.1 are the enum values; keep them so. */
static_assert(
	SST_CRYPTO_CHK32 == 1 && SST_CRYPTO_AES128GCM == 2 && SST_CRYPTO_CHACHA20POLY1305 == 3,
	"suite wire codes");
static_assert(crypto_aead_chacha20poly1305_ietf_ABYTES == SST_SECURE_TAG_LEN &&
		      crypto_sign_BYTES == SST_SECURE_SIG_LEN &&
		      crypto_sign_PUBLICKEYBYTES == SST_SECURE_KEY_LEN &&
		      crypto_scalarmult_BYTES == SST_SECURE_KEY_LEN,
	"libsodium sizes");
static_assert(SST_SECURE_R1_HEAD_LEN == 3 * SST_SECURE_KEY_LEN + 8, "SecR1 head");

enum {
	KEY = SST_SECURE_KEY_LEN,
	TAG = SST_SECURE_TAG_LEN,
	SIG = SST_SECURE_SIG_LEN,
	/* Sealed blocks (spec 3.3, 3.4): plaintext bounds plus the tag. */
	PR_MAX = KEY + 4 + SST_SECURE_ULP_MAX + SIG,
	SEALED_R_MAX = PR_MAX + TAG,
	PI_MAX = 4 + KEY + 4 + SIG,
	SEALED_I_MAX = PI_MAX + TAG,
	/* Initiator-to-responder keys use KDF id 1, the other direction 2. */
	DIR_I = 1,
	DIR_R = 2,
	PH_IDLE = 0,
	PH_WAIT = 1,
	PH_DONE = 2,
	SIGMSG = 31 + KEY, /* signed message: 31-byte label, hash */
};

/* Largest SecI1 and SecR1 bodies (spec 3.2, 3.3; SecI1 has five words). */
static_assert(
	2 * KEY + 4 * SST_SECURE_OFFER_MAX + 20 + SST_SECURE_ULP_MAX + SST_SECURE_COOKIE_MAX <=
			SST_SECURE_CHUNK_MAX &&
		SST_SECURE_R1_HEAD_LEN + 4 + SEALED_R_MAX <= SST_SECURE_CHUNK_MAX,
	"messages fit a chunk buffer");

/* Labels (spec 5). KDF labels are crypto_kdf contexts: exactly 8 bytes. */
static const char proto_name[] = "SST-DPDK secure v1";
static const char sig_label_r[] = "SST-DPDK secure v1 R1 signature";
static const char sig_label_i[] = "SST-DPDK secure v1 I2 signature";
static const char kdf_hs[] = "SST hs  ";
static const char kdf_key[] = "SST key ";
static const char kdf_iv[] = "SST iv  ";
static const char kdf_chk[] = "SST chk ";
static const char kdf_hcid[] = "SST hcid";
static const uint8_t zero_nonce[crypto_aead_chacha20poly1305_ietf_NPUBBYTES];

static_assert(sizeof(kdf_hs) - 1 == crypto_kdf_CONTEXTBYTES && sizeof(kdf_hcid) - 1 == 8 &&
		      sizeof(sig_label_r) == sizeof(sig_label_i) &&
		      sizeof(sig_label_r) - 1 + KEY == SIGMSG,
	"label lengths");

void
sst_secure_random_sodium(void *ctx, void *buf, size_t len)
{
	(void)ctx;
	randombytes_buf(buf, len);
}

/* Transcript start (spec 4): h0 = BLAKE2b-256(protocol name). */
static void
th_init(uint8_t h[KEY])
{
	crypto_generichash(h, KEY, (const uint8_t *)proto_name, sizeof(proto_name) - 1, NULL, 0);
}

/* Transcript step (spec 4): h = BLAKE2b-256(h || be32(len) || a || b). */
static void
th_mix(uint8_t h[KEY], const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	crypto_generichash_state s;
	uint8_t len[4];

	sst_put_be32(len, (uint32_t)(alen + blen));
	crypto_generichash_init(&s, NULL, 0, KEY);
	crypto_generichash_update(&s, h, KEY);
	crypto_generichash_update(&s, len, sizeof(len));
	crypto_generichash_update(&s, a, alen);
	if (blen > 0)
		crypto_generichash_update(&s, b, blen);
	crypto_generichash_final(&s, h, KEY);
	sodium_memzero(&s, sizeof(s));
}

/* Handshake secrets (spec 5): s_hs from the DH value and h2, and the two
 * keys that seal the identity blocks. */
static void
derive_hs(const uint8_t dh[KEY], const uint8_t h2[KEY], uint8_t s_hs[KEY], uint8_t k_i[KEY],
	uint8_t k_r[KEY])
{
	crypto_generichash(s_hs, KEY, h2, KEY, dh, KEY);
	crypto_kdf_derive_from_key(k_i, KEY, DIR_I, kdf_hs, s_hs);
	crypto_kdf_derive_from_key(k_r, KEY, DIR_R, kdf_hs, s_hs);
}

/* Ed25519 signature input (spec 4.2): label || transcript-derived hash. */
static void
sig_input(uint8_t m[SIGMSG], const char *label, const uint8_t hash[KEY])
{
	memcpy(m, label, SIGMSG - KEY);
	memcpy(m + SIGMSG - KEY, hash, KEY);
}

void
sst_secure_suites_default(struct sst_secure_config *cfg, bool aes_hw, bool allow_chk32)
{
	uint8_t n = 0;

	if (allow_chk32)
		cfg->suites[n++] = SST_CRYPTO_CHK32;
	cfg->suites[n++] = aes_hw ? SST_CRYPTO_AES128GCM : SST_CRYPTO_CHACHA20POLY1305;
	cfg->suites[n++] = aes_hw ? SST_CRYPTO_CHACHA20POLY1305 : SST_CRYPTO_AES128GCM;
	cfg->nsuites = n;
}

int
sst_secure_config_check(const struct sst_secure_config *cfg, bool responder)
{
	if (cfg == NULL || !sst_params_size_ok(cfg->size, sizeof(*cfg), sizeof(*cfg)) ||
		cfg->random == NULL || cfg->nsuites == 0 || cfg->nsuites > SST_SECURE_SUITES_MAX ||
		(responder && cfg->identity == NULL))
		return -EINVAL;
	for (unsigned int i = 0; i < cfg->nsuites; i++) {
		if (cfg->suites[i] < SST_CRYPTO_CHK32 || cfg->suites[i] >= SST_CRYPTO_SUITE_COUNT)
			return -EINVAL;
		for (unsigned int j = 0; j < i; j++)
			if (cfg->suites[j] == cfg->suites[i])
				return -EINVAL;
	}
	/* Idempotent; selects libsodium's fastest implementations once. */
	return sodium_init() < 0 ? -EINVAL : 0;
}

void
sst_secure_result_wipe(struct sst_secure_result *res)
{
	sodium_memzero(res, sizeof(*res));
}

/* Output of a completed handshake (spec 5.3): traffic keys, IVs, checksum
 * keys and half-channel IDs of both directions from s_tr. */
static void
derive_result(struct sst_secure_result *res, const uint8_t s_tr[KEY], bool initiator)
{
	struct sst_crypto_keys *k = &res->keys;
	uint8_t *key[2] = {k->tx_key, k->rx_key}, *iv[2] = {k->tx_iv, k->rx_iv};
	uint8_t *hcid[2] = {res->tx_hcid, res->rx_hcid};
	uint32_t *chk[2] = {&k->tx_chk_key, &k->rx_chk_key};
	uint8_t t[16];

	for (int d = 0; d < 2; d++) {
		uint64_t id = (d == 0) == initiator ? DIR_I : DIR_R; /* d = 0: transmit */

		crypto_kdf_derive_from_key(key[d], SST_CRYPTO_KEY_MAX, id, kdf_key, s_tr);
		crypto_kdf_derive_from_key(t, sizeof(t), id, kdf_iv, s_tr);
		memcpy(iv[d], t, SST_CRYPTO_IV_LEN);
		crypto_kdf_derive_from_key(t, sizeof(t), id, kdf_chk, s_tr);
		*chk[d] = (uint32_t)t[0] << 24 | (uint32_t)t[1] << 16 | (uint32_t)t[2] << 8 | t[3];
		crypto_kdf_derive_from_key(hcid[d], SST_SECURE_HCID_LEN, id, kdf_hcid, s_tr);
	}
	sodium_memzero(t, sizeof(t));
}

/* Identity policy (spec 6): a known key passes, a name pinned to another key
 * never does, an unknown key only under TOFU. */
static int
trust_check(const struct sst_secure_config *cfg, const char *name, const uint8_t pk[KEY],
	enum sst_secure_peer *peer)
{
	enum sst_secure_peer p = SST_SECURE_PEER_UNKNOWN;

	if (cfg->known_hosts != NULL)
		p = sst_secure_known_hosts_lookup(cfg->known_hosts, name, pk);
	if (p == SST_SECURE_PEER_UNKNOWN && cfg->policy == SST_SECURE_TOFU)
		p = SST_SECURE_PEER_NEW;
	if (p != SST_SECURE_PEER_KNOWN && p != SST_SECURE_PEER_NEW)
		return -EACCES;
	*peer = p;
	return 0;
}

static int
initiator_emit_i1(struct sst_secure_initiator *st, struct sst_nego_builder *out)
{
	uint8_t body[SST_SECURE_CHUNK_MAX];
	struct sst_xdr_writer w;
	int rc;

	sst_xdr_writer_init(&w, body, sizeof(body));
	sst_xdr_put_u32(&w, SST_SECURE_VERSION);
	sst_xdr_put_fixed(&w, st->ni, KEY);
	sst_xdr_put_fixed(&w, st->e_pk, KEY);
	sst_xdr_put_u32(&w, st->nsuites);
	for (unsigned int i = 0; i < st->nsuites; i++)
		sst_xdr_put_u32(&w, st->suites[i]);
	sst_xdr_put_u32(&w, st->chani);
	sst_xdr_put_opaque(&w, st->ulp, st->ulp_len);
	sst_xdr_put_opaque(&w, st->cookie, st->cookie_len);
	rc = sst_nego_build_raw(out, SST_NEGO_SECI1, body, w.pos);
	if (rc < 0)
		return rc;
	th_init(st->h1);
	th_mix(st->h1, body, w.pos, NULL, 0);
	return 0;
}

void
sst_secure_initiator_fini(struct sst_secure_initiator *st)
{
	sodium_memzero(st, sizeof(*st));
}

/* Spec 3.2: the initiator's hello. */
int
sst_secure_initiator_start(struct sst_secure_initiator *st, const struct sst_secure_config *cfg,
	uint8_t chani, const void *ulp, size_t ulp_len, struct sst_nego_builder *out)
{
	return sst_secure_initiator_start_tagged(st, cfg, chani, ulp, ulp_len, 0, 0, out);
}

int
sst_secure_initiator_start_tagged(struct sst_secure_initiator *st,
	const struct sst_secure_config *cfg, uint8_t chani, const void *ulp, size_t ulp_len,
	uint8_t ni_tag, uint8_t ni_bits, struct sst_nego_builder *out)
{
	uint8_t mask = (uint8_t)((1u << ni_bits) - 1);
	int rc = sst_secure_config_check(cfg, false);

	if (rc < 0)
		return rc;
	if (chani == 0 || ulp_len > SST_SECURE_ULP_MAX || (ulp == NULL && ulp_len > 0) ||
		ni_bits > 8)
		return -EINVAL;
	sodium_memzero(st, sizeof(*st));
	st->chani = chani;
	st->nsuites = cfg->nsuites;
	for (unsigned int i = 0; i < cfg->nsuites; i++)
		st->suites[i] = (uint8_t)cfg->suites[i];
	st->ulp_len = (uint16_t)ulp_len;
	if (ulp_len > 0)
		memcpy(st->ulp, ulp, ulp_len);
	cfg->random(cfg->random_ctx, st->e_sk, KEY);
	cfg->random(cfg->random_ctx, st->ni, KEY);
	/* Steering: the responder echoes ni in SecCookie and SecR1, so a
	 * tag here lets a multi-worker endpoint route the answer to the worker
	 * that sent SecI1 without any state. ni stays unique and unpredictable
	 * in its other 256 - ni_bits bits, which is all the handshake needs of
	 * it (freshness of the transcript; the endpoint's table key is its
	 * first word). */
	st->ni[KEY - 1] = (uint8_t)((st->ni[KEY - 1] & ~mask) | (ni_tag & mask));
	/* Cannot fail for a clamped scalar; checked anyway. */
	rc = crypto_scalarmult_base(st->e_pk, st->e_sk) != 0 ? -EINVAL : initiator_emit_i1(st, out);
	if (rc < 0)
		sst_secure_initiator_fini(st);
	else
		st->phase = PH_WAIT;
	return rc;
}

/* Spec 3.5: resend SecI1 with the responder's cookie. */
int
sst_secure_initiator_on_cookie(
	struct sst_secure_initiator *st, const struct sst_bytes *body, struct sst_nego_builder *out)
{
	struct sst_secure_initiator next;
	struct sst_xdr_reader r;
	struct sst_bytes cookie;
	const uint8_t *ni;
	int rc;

	if (st->phase != PH_WAIT)
		return -EINVAL;
	sst_xdr_reader_init(&r, body->ptr, body->len);
	if ((rc = sst_xdr_get_fixed(&r, KEY, &ni)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SST_SECURE_COOKIE_MAX, &cookie)) < 0 ||
		(rc = sst_xdr_expect_end(&r)) < 0)
		return rc;
	if (cookie.len == 0)
		return -SST_EBADVALUE;
	if (sodium_memcmp(ni, st->ni, KEY) != 0)
		return -SST_EBADAUTH;
	next = *st;
	memcpy(next.cookie, cookie.ptr, cookie.len);
	next.cookie_len = (uint8_t)cookie.len;
	rc = initiator_emit_i1(&next, out);
	if (rc == 0)
		*st = next;
	sodium_memzero(&next, sizeof(next));
	return rc;
}

void
sst_secure_responder_fini(struct sst_secure_responder *st)
{
	sodium_memzero(st, sizeof(*st));
}

/* Spec 3.3: the responder's cost order decides among the offered suites. */
static int
pick_suite(const struct sst_secure_config *cfg, const struct seci1 *m)
{
	for (unsigned int i = 0; i < cfg->nsuites; i++)
		for (uint32_t j = 0; j < m->noffer; j++)
			if (m->offer[j] == (uint32_t)cfg->suites[i])
				return cfg->suites[i];
	return -ENOTSUP;
}

/*
 * Spec 3.6: SecRefuse = ni[32] || unsigned reason || unsigned suites<8>. As
 * stateless as SecCookie: everything comes from the SecI1 and the
 * configuration, so an unproven (or spoofed) initiator costs a decode.
 */
int
sst_secure_refusal(const struct sst_secure_config *cfg, const struct sst_bytes *i1,
	struct sst_nego_builder *out)
{
	uint8_t buf[KEY + 8 + 4 * SST_SECURE_SUITES_MAX];
	struct sst_xdr_writer w;
	struct seci1 m;
	int rc;

	if (sst_secure_config_check(cfg, false) < 0)
		return -EINVAL;
	if ((rc = nego_seci1_decode(i1, &m)) < 0)
		return rc;
	if (pick_suite(cfg, &m) >= 0)
		return 0;
	sst_xdr_writer_init(&w, buf, sizeof(buf));
	sst_xdr_put_fixed(&w, m.ni, KEY);
	sst_xdr_put_u32(&w, SST_SECURE_REFUSE_NO_SUITE);
	sst_xdr_put_u32(&w, cfg->nsuites);
	for (unsigned int i = 0; i < cfg->nsuites; i++)
		sst_xdr_put_u32(&w, (uint32_t)cfg->suites[i]);
	rc = sst_nego_build_raw(out, SST_NEGO_SECREFUSE, buf, w.pos);
	return rc < 0 ? rc : SST_SECURE_REFUSED;
}

/* Spec 3.6, initiator: believe a refusal only if it is ours and consistent. */
int
sst_secure_initiator_on_refuse(const struct sst_secure_initiator *st, const struct sst_bytes *body)
{
	struct sst_xdr_reader r;
	uint32_t reason, n, code;
	const uint8_t *ni;
	int rc;

	if (st->phase != PH_WAIT)
		return -EINVAL;
	sst_xdr_reader_init(&r, body->ptr, body->len);
	if ((rc = sst_xdr_get_fixed(&r, KEY, &ni)) < 0 || (rc = sst_xdr_get_u32(&r, &reason)) < 0 ||
		(rc = sst_xdr_get_u32(&r, &n)) < 0)
		return rc;
	if (n > SST_SECURE_OFFER_MAX)
		return -SST_ETOOLONG;
	for (uint32_t i = 0; i < n; i++) {
		if ((rc = sst_xdr_get_u32(&r, &code)) < 0)
			return rc;
		/* A responder that has a suite we offered would have chosen it:
		 * this refusal is forged or confused, and the genuine answer
		 * may still come. */
		for (unsigned int j = 0; j < st->nsuites; j++)
			if (code == st->suites[j])
				return -SST_EBADVALUE;
	}
	if ((rc = sst_xdr_expect_end(&r)) < 0)
		return rc;
	if (reason != SST_SECURE_REFUSE_NO_SUITE || n == 0)
		return -SST_EBADVALUE;
	return sodium_memcmp(ni, st->ni, KEY) == 0 ? 0 : -SST_EBADAUTH;
}

/* Secrets of one handshake step, wiped together on every exit. */
struct step_secrets {
	uint8_t e_sk[KEY]; /* responder's ephemeral */
	uint8_t dh[KEY];
	uint8_t s_hs[KEY];
	uint8_t k_i[KEY];
	uint8_t k_r[KEY];
	uint8_t s_tr[KEY];
	uint8_t plain[PR_MAX];
	uint8_t plain_i[PI_MAX];
};

int
sst_secure_responder_on_i1(struct sst_secure_responder *st, const struct sst_secure_config *cfg,
	const struct sst_bytes *body, const struct sst_secure_cookie_req *cookie, uint8_t chanr,
	const void *ulp, size_t ulp_len, struct sst_nego_builder *out)
{
	uint8_t r1[SST_SECURE_CHUNK_MAX], er_pk[KEY], nr[KEY], h2[KEY], h3[KEY], sigmsg[SIGMSG];
	struct sst_xdr_writer w, pw;
	struct step_secrets s;
	unsigned long long sealed_len;
	struct seci1 m;
	size_t plain_len;
	int rc, suite;

	if (st->phase != PH_IDLE || chanr == 0 || ulp_len > SST_SECURE_ULP_MAX ||
		(ulp == NULL && ulp_len > 0))
		return -EINVAL;
	if ((rc = sst_secure_config_check(cfg, true)) < 0 || (rc = nego_seci1_decode(body, &m)) < 0)
		return rc;
	if (cookie != NULL && nego_cookie_check(cookie, body, &m) < 0)
		return sst_secure_cookie_challenge(cookie, body, out);
	suite = pick_suite(cfg, &m);
	if (suite < 0)
		return suite;

	cfg->random(cfg->random_ctx, s.e_sk, KEY);
	cfg->random(cfg->random_ctx, nr, KEY);
	/* A low-order ei gives an all-zero shared value: refuse it. */
	if (crypto_scalarmult_base(er_pk, s.e_sk) != 0 ||
		crypto_scalarmult(s.dh, s.e_sk, m.ei) != 0) {
		rc = -SST_EBADVALUE;
		goto out;
	}
	/* SecR1 head: ni, er, nr, suite, chanr; then the transcript to h2. */
	sst_xdr_writer_init(&w, r1, sizeof(r1));
	sst_xdr_put_fixed(&w, m.ni, KEY);
	sst_xdr_put_fixed(&w, er_pk, KEY);
	sst_xdr_put_fixed(&w, nr, KEY);
	sst_xdr_put_u32(&w, (uint32_t)suite);
	sst_xdr_put_u32(&w, chanr);
	th_init(h2);
	th_mix(h2, body->ptr, body->len, NULL, 0);
	th_mix(h2, r1, SST_SECURE_R1_HEAD_LEN, NULL, 0);
	derive_hs(s.dh, h2, s.s_hs, s.k_i, s.k_r);

	/* P_r = idr[32] || ulpr<256> || sigr[64], signed: mix(h2, idr || ulpr). */
	sst_xdr_writer_init(&pw, s.plain, PR_MAX);
	sst_xdr_put_fixed(&pw, cfg->identity->pk, KEY);
	sst_xdr_put_opaque(&pw, ulp, ulp_len);
	memcpy(h3, h2, KEY);
	th_mix(h3, s.plain, pw.pos, NULL, 0);
	sig_input(sigmsg, sig_label_r, h3);
	crypto_sign_detached(s.plain + pw.pos, NULL, sigmsg, SIGMSG, cfg->identity->sk);
	plain_len = pw.pos + SIG;
	sst_put_be32(r1 + w.pos, (uint32_t)(plain_len + TAG));
	w.pos += 4;
	crypto_aead_chacha20poly1305_ietf_encrypt(
		r1 + w.pos, &sealed_len, s.plain, plain_len, h2, KEY, NULL, zero_nonce, s.k_r);
	memcpy(h3, h2, KEY);
	th_mix(h3, r1 + w.pos, (size_t)sealed_len, NULL, 0);
	w.pos += (size_t)sealed_len; /* a multiple of 4: no padding */
	crypto_generichash(s.s_tr, KEY, h3, KEY, s.s_hs, KEY);
	if (sst_nego_build_raw(out, SST_NEGO_SECR1, r1, w.pos) < 0) {
		rc = -ENOSPC;
		goto out;
	}

	/* Committed: keep what SecI2 needs. */
	st->phase = PH_WAIT;
	st->suite = (uint8_t)suite;
	st->chani = (uint8_t)m.chani;
	st->ulp_len = (uint16_t)m.ulp.len;
	if (m.ulp.len > 0)
		memcpy(st->ulp, m.ulp.ptr, m.ulp.len);
	memcpy(st->nr, nr, KEY);
	memcpy(st->idr, cfg->identity->pk, KEY);
	memcpy(st->h3, h3, KEY);
	memcpy(st->k_hs_i, s.k_i, KEY);
	memcpy(st->s_tr, s.s_tr, KEY);
	rc = 0;
out:
	sodium_memzero(&s, sizeof(s));
	return rc;
}

/* A decoded SecR1 (spec 3.3). */
struct secr1 {
	const uint8_t *ni;
	const uint8_t *er;
	const uint8_t *nr;
	uint32_t suite;
	uint32_t chanr;
	struct sst_bytes sealed;
};

static int
secr1_decode(const struct sst_bytes *body, struct secr1 *m)
{
	struct sst_xdr_reader r;
	int rc;

	sst_xdr_reader_init(&r, body->ptr, body->len);
	if ((rc = sst_xdr_get_fixed(&r, KEY, &m->ni)) < 0 ||
		(rc = sst_xdr_get_fixed(&r, KEY, &m->er)) < 0 ||
		(rc = sst_xdr_get_fixed(&r, KEY, &m->nr)) < 0 ||
		(rc = sst_xdr_get_u32(&r, &m->suite)) < 0 ||
		(rc = sst_xdr_get_u32(&r, &m->chanr)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SEALED_R_MAX, &m->sealed)) < 0)
		return rc;
	if (m->chanr == 0 || m->chanr > 255 || m->sealed.len < KEY + 4 + SIG + TAG)
		return -SST_EBADVALUE;
	return sst_xdr_expect_end(&r);
}

/* Spec 3.3: open and check P_r; on success *idr and *ulpr point into plain. */
static int
r1_open(const struct secr1 *m, const uint8_t h2[KEY], struct step_secrets *s, const uint8_t **idr,
	struct sst_bytes *ulpr)
{
	uint8_t h[KEY], msg[SIGMSG];
	unsigned long long plain_len;
	struct sst_xdr_reader r;
	const uint8_t *sig;
	size_t signed_len;
	int rc;

	if (crypto_aead_chacha20poly1305_ietf_decrypt(s->plain, &plain_len, NULL, m->sealed.ptr,
		    m->sealed.len, h2, KEY, zero_nonce, s->k_r) != 0)
		return -SST_EBADAUTH;
	sst_xdr_reader_init(&r, s->plain, (size_t)plain_len);
	if ((rc = sst_xdr_get_fixed(&r, KEY, idr)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SST_SECURE_ULP_MAX, ulpr)) < 0)
		return rc;
	signed_len = r.pos;
	if ((rc = sst_xdr_get_fixed(&r, SIG, &sig)) < 0 || (rc = sst_xdr_expect_end(&r)) < 0)
		return rc;
	memcpy(h, h2, KEY);
	th_mix(h, s->plain, signed_len, NULL, 0);
	sig_input(msg, sig_label_r, h);
	if (crypto_sign_verify_detached(sig, msg, sizeof(msg), *idr) != 0)
		return -SST_EBADAUTH;
	return 0;
}

/* Spec 3.4: SecI2 = nr[32] || sealed(P_i), P_i = idi<32> || sigi<64>, the
 * signature covering mix(h3, idr || idi<32>). Returns the body length. */
static size_t
i2_build(const struct sst_secure_config *cfg, const uint8_t nr[KEY], const uint8_t idr[KEY],
	const uint8_t h3[KEY], const uint8_t k_i[KEY], uint8_t *plain, uint8_t *i2)
{
	uint8_t h[KEY], msg[SIGMSG];
	unsigned long long sealed_len;
	struct sst_xdr_writer w;

	sst_xdr_writer_init(&w, plain, PI_MAX);
	if (cfg->identity == NULL) {
		sst_xdr_put_opaque(&w, NULL, 0);
		sst_xdr_put_opaque(&w, NULL, 0);
	} else {
		sst_xdr_put_opaque(&w, cfg->identity->pk, KEY);
		memcpy(h, h3, KEY);
		th_mix(h, idr, KEY, plain, w.pos);
		sig_input(msg, sig_label_i, h);
		sst_xdr_put_u32(&w, SIG);
		crypto_sign_detached(plain + w.pos, NULL, msg, sizeof(msg), cfg->identity->sk);
		w.pos += SIG;
	}
	memcpy(i2, nr, KEY);
	sst_put_be32(i2 + KEY, (uint32_t)(w.pos + TAG));
	crypto_aead_chacha20poly1305_ietf_encrypt(
		i2 + KEY + 4, &sealed_len, plain, w.pos, h3, KEY, NULL, zero_nonce, k_i);
	return KEY + 4 + (size_t)sealed_len;
}

int
sst_secure_initiator_on_r1(struct sst_secure_initiator *st, const struct sst_secure_config *cfg,
	const struct sst_bytes *body, const char *peer_name, struct sst_nego_builder *out,
	struct sst_secure_result *res)
{
	uint8_t h2[KEY], h3[KEY], i2[KEY + 4 + SEALED_I_MAX];
	enum sst_secure_peer peer;
	struct sst_bytes ulpr;
	struct step_secrets s;
	const uint8_t *idr;
	struct secr1 m;
	size_t i2_len;
	bool offered = false;
	int rc;

	if (st->phase != PH_WAIT)
		return -EINVAL;
	if ((rc = sst_secure_config_check(cfg, false)) < 0 || (rc = secr1_decode(body, &m)) < 0)
		return rc;
	if (sodium_memcmp(m.ni, st->ni, KEY) != 0)
		return -SST_EBADAUTH;
	for (unsigned int i = 0; i < st->nsuites; i++)
		offered |= m.suite == st->suites[i];
	if (!offered)
		return -ENOTSUP;

	memcpy(h2, st->h1, KEY);
	th_mix(h2, body->ptr, SST_SECURE_R1_HEAD_LEN, NULL, 0);
	if (crypto_scalarmult(s.dh, st->e_sk, m.er) != 0) {
		rc = -SST_EBADVALUE;
		goto out;
	}
	derive_hs(s.dh, h2, s.s_hs, s.k_i, s.k_r);
	rc = r1_open(&m, h2, &s, &idr, &ulpr);
	if (rc < 0)
		goto out;
	rc = trust_check(cfg, peer_name, idr, &peer);
	if (rc < 0)
		goto out;
	memcpy(h3, h2, KEY);
	th_mix(h3, m.sealed.ptr, m.sealed.len, NULL, 0);
	crypto_generichash(s.s_tr, KEY, h3, KEY, s.s_hs, KEY);
	i2_len = i2_build(cfg, m.nr, idr, h3, s.k_i, s.plain_i, i2);
	if (sst_nego_build_raw(out, SST_NEGO_SECI2, i2, i2_len) < 0) {
		rc = -ENOSPC;
		goto out;
	}

	/* Committed (spec 5.3): the initiator's keys. */
	sodium_memzero(res, sizeof(*res));
	derive_result(res, s.s_tr, true);
	res->suite = (enum sst_crypto_suite)m.suite;
	res->peer_channel = (uint8_t)m.chanr;
	res->peer = peer;
	memcpy(res->peer_id, idr, KEY);
	res->peer_ulp_len = (uint16_t)ulpr.len;
	memcpy(res->peer_ulp, ulpr.ptr, ulpr.len);
	sst_secure_initiator_fini(st);
	st->phase = PH_DONE;
	rc = 0;
out:
	sodium_memzero(&s, sizeof(s));
	return rc;
}

int
sst_secure_responder_on_i2(struct sst_secure_responder *st, const struct sst_secure_config *cfg,
	const struct sst_bytes *body, const char *peer_name, struct sst_secure_result *res)
{
	uint8_t h[KEY], msg[SIGMSG], plain[PI_MAX];
	struct sst_bytes sealed, idi, sig;
	unsigned long long plain_len;
	enum sst_secure_peer peer = SST_SECURE_PEER_ANONYMOUS;
	struct sst_xdr_reader r;
	const uint8_t *nr;
	size_t signed_len;
	int rc;

	if (st->phase != PH_WAIT)
		return -EINVAL;
	sst_xdr_reader_init(&r, body->ptr, body->len);
	if ((rc = sst_secure_config_check(cfg, true)) < 0 ||
		(rc = sst_xdr_get_fixed(&r, KEY, &nr)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SEALED_I_MAX, &sealed)) < 0 ||
		(rc = sst_xdr_expect_end(&r)) < 0)
		return rc;
	if (sodium_memcmp(nr, st->nr, KEY) != 0)
		return -SST_EBADAUTH;
	if (crypto_aead_chacha20poly1305_ietf_decrypt(plain, &plain_len, NULL, sealed.ptr,
		    sealed.len, st->h3, KEY, zero_nonce, st->k_hs_i) != 0)
		return -SST_EBADAUTH;
	/* The block authenticated; what follows checks its content. */
	sst_xdr_reader_init(&r, plain, (size_t)plain_len);
	if ((rc = sst_xdr_get_opaque(&r, KEY, &idi)) < 0)
		goto out;
	signed_len = r.pos;
	if ((rc = sst_xdr_get_opaque(&r, SIG, &sig)) < 0 || (rc = sst_xdr_expect_end(&r)) < 0)
		goto out;
	rc = -SST_EBADVALUE;
	if (idi.len == 0 && sig.len == 0) {
		rc = cfg->allow_anonymous ? 0 : -EACCES;
	} else if (idi.len == KEY && sig.len == SIG) {
		memcpy(h, st->h3, KEY);
		th_mix(h, st->idr, KEY, plain, signed_len);
		sig_input(msg, sig_label_i, h);
		rc = crypto_sign_verify_detached(sig.ptr, msg, sizeof(msg), idi.ptr) != 0
			     ? -SST_EBADAUTH
			     : trust_check(cfg, peer_name, idi.ptr, &peer);
	}
	if (rc < 0)
		goto out;

	/* Committed (spec 5.3): the responder's keys. */
	sodium_memzero(res, sizeof(*res));
	derive_result(res, st->s_tr, false);
	res->suite = (enum sst_crypto_suite)st->suite;
	res->peer_channel = st->chani;
	res->peer = peer;
	if (peer != SST_SECURE_PEER_ANONYMOUS)
		memcpy(res->peer_id, idi.ptr, KEY);
	res->peer_ulp_len = st->ulp_len;
	memcpy(res->peer_ulp, st->ulp, st->ulp_len);
	sst_secure_responder_fini(st);
	st->phase = PH_DONE;
out:
	sodium_memzero(plain, sizeof(plain));
	return rc;
}

int
sst_secure_peek_nonce(int32_t type, const struct sst_bytes *body, const uint8_t **nonce)
{
	size_t off = type == SST_NEGO_SECI1 ? 4 : 0;

	if (type < SST_NEGO_SECI1 || type > SST_NEGO_SECREFUSE)
		return -SST_EBADTYPE;
	if (body->len < off + KEY)
		return -SST_ETRUNC;
	*nonce = body->ptr + off;
	return 0;
}
