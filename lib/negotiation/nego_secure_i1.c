/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SecI1 as a responder reads it before it keeps any state (spec 3.2, 3.5,
 * 7): decoding it, the stateless cookie that proves the initiator's
 * address (computed, challenged, verified; the secret and its rotation),
 * and the few fields the host peeks at (sst_secure_i1_info()). The
 * handshake steps are nego_secure.c.
 */
#include <string.h>

#include <sodium.h>

#include "nego_secure.h"
#include "sst_error.h"

enum { KEY = SST_SECURE_KEY_LEN };

static const char cookie_label[] = "SST-DPDK cookie v1";

int
nego_seci1_decode(const struct sst_bytes *body, struct seci1 *m)
{
	struct sst_xdr_reader r;
	uint32_t version;
	int rc;

	sst_xdr_reader_init(&r, body->ptr, body->len);
	if ((rc = sst_xdr_get_u32(&r, &version)) < 0)
		return rc;
	if (version != SST_SECURE_VERSION)
		return -SST_EBADVALUE;
	if ((rc = sst_xdr_get_fixed(&r, KEY, &m->ni)) < 0 ||
		(rc = sst_xdr_get_fixed(&r, KEY, &m->ei)) < 0 ||
		(rc = sst_xdr_get_u32(&r, &m->noffer)) < 0)
		return rc;
	if (m->noffer > SST_SECURE_OFFER_MAX)
		return -SST_ETOOLONG;
	for (uint32_t i = 0; i < m->noffer; i++)
		if ((rc = sst_xdr_get_u32(&r, &m->offer[i])) < 0)
			return rc;
	if ((rc = sst_xdr_get_u32(&r, &m->chani)) < 0 ||
		(rc = sst_xdr_get_opaque(&r, SST_SECURE_ULP_MAX, &m->ulp)) < 0)
		return rc;
	m->prefix_len = r.pos;
	if ((rc = sst_xdr_get_opaque(&r, SST_SECURE_COOKIE_MAX, &m->cookie)) < 0)
		return rc;
	if (m->chani == 0 || m->chani > 255)
		return -SST_EBADVALUE;
	return sst_xdr_expect_end(&r);
}

/* Append st's SecI1 (spec 3.2) to out and set st->h1 = mix(h0, body). The
 * body cannot overflow: the static_assert above bounds it. */

/* Spec 7: cookie = BLAKE2b-128(key = secret, label || be32(alen) || addr ||
 * SecI1 body up to its cookie field). */
static void
cookie_compute(const uint8_t secret[KEY], const struct sst_secure_cookie_req *req,
	const uint8_t *prefix, size_t prefix_len, uint8_t out[SST_SECURE_COOKIE_LEN])
{
	crypto_generichash_state s;
	uint8_t alen[4];

	sst_put_be32(alen, (uint32_t)req->addr_len);
	crypto_generichash_init(&s, secret, KEY, SST_SECURE_COOKIE_LEN);
	crypto_generichash_update(&s, (const uint8_t *)cookie_label, sizeof(cookie_label) - 1);
	crypto_generichash_update(&s, alen, sizeof(alen));
	crypto_generichash_update(&s, req->addr, req->addr_len);
	crypto_generichash_update(&s, prefix, prefix_len);
	crypto_generichash_final(&s, out, SST_SECURE_COOKIE_LEN);
	sodium_memzero(&s, sizeof(s));
}

int
nego_cookie_check(const struct sst_secure_cookie_req *req, const struct sst_bytes *body,
	const struct seci1 *m)
{
	uint8_t want[SST_SECURE_COOKIE_LEN];
	int ok = 0;

	if (m->cookie.len != SST_SECURE_COOKIE_LEN)
		return -SST_EBADAUTH;
	cookie_compute(req->secret->cur, req, body->ptr, m->prefix_len, want);
	ok |= sodium_memcmp(want, m->cookie.ptr, sizeof(want)) == 0;
	if (req->secret->has_prev) {
		cookie_compute(req->secret->prev, req, body->ptr, m->prefix_len, want);
		ok |= sodium_memcmp(want, m->cookie.ptr, sizeof(want)) == 0;
	}
	sodium_memzero(want, sizeof(want));
	return ok ? 0 : -SST_EBADAUTH;
}

int
sst_secure_cookie_verify(const struct sst_secure_cookie_req *req, const struct sst_bytes *i1)
{
	struct seci1 m;
	int rc = nego_seci1_decode(i1, &m);

	return rc < 0 ? rc : nego_cookie_check(req, i1, &m);
}

void
sst_secure_cookie_secret_init(struct sst_secure_cookie_secret *s, sst_secure_random_fn random,
	void *random_ctx, uint64_t now)
{
	sodium_memzero(s, sizeof(*s));
	random(random_ctx, s->cur, KEY);
	s->rotated_at = now;
}

bool
sst_secure_cookie_secret_rotate(struct sst_secure_cookie_secret *s, sst_secure_random_fn random,
	void *random_ctx, uint64_t now, uint64_t period)
{
	uint64_t periods;

	if (now - s->rotated_at < period)
		return false;
	/* Called lazily (when a cookie is made or checked), maybe periods
	 * late: the current secret stays valid as the previous one only if
	 * it was current until at most a period ago, and the rotation keeps
	 * to the period's grid; otherwise a cookie would live as long as a
	 * quiet spell (the previous secret kept for good), not two periods. */
	periods = (now - s->rotated_at) / period;
	if (periods == 1) {
		memcpy(s->prev, s->cur, KEY);
		s->has_prev = true;
	} else {
		sodium_memzero(s->prev, KEY);
		s->has_prev = false;
	}
	random(random_ctx, s->cur, KEY);
	s->rotated_at += periods * period;
	return true;
}

void
sst_secure_cookie_secret_wipe(struct sst_secure_cookie_secret *s)
{
	sodium_memzero(s, sizeof(*s));
}

/* Spec 3.5: SecCookie = ni[32] || opaque cookie<64>. */
int
sst_secure_cookie_challenge(const struct sst_secure_cookie_req *req, const struct sst_bytes *i1,
	struct sst_nego_builder *out)
{
	uint8_t buf[KEY + 4 + SST_SECURE_COOKIE_LEN];
	struct seci1 m;
	int rc = nego_seci1_decode(i1, &m);

	if (rc < 0)
		return rc;
	memcpy(buf, m.ni, KEY);
	sst_put_be32(buf + KEY, SST_SECURE_COOKIE_LEN);
	cookie_compute(req->secret->cur, req, i1->ptr, m.prefix_len, buf + KEY + 4);
	rc = sst_nego_build_raw(out, SST_NEGO_SECCOOKIE, buf, sizeof(buf));
	return rc < 0 ? rc : SST_SECURE_CHALLENGED;
}

int
sst_secure_i1_info(const struct sst_bytes *body, struct sst_secure_i1_info *info)
{
	struct seci1 m;
	int rc = nego_seci1_decode(body, &m);

	if (rc < 0)
		return rc;
	info->ni = m.ni;
	info->chani = (uint8_t)m.chani;
	info->noffer = (uint8_t)m.noffer;
	info->cookie_len = (uint8_t)m.cookie.len;
	info->ulp = m.ulp;
	return 0;
}
