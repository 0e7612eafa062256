/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the secure-mode handshake (lib/negotiation/nego_secure.c,
 * docs/secure-mode.md): each suite, the cost order, every byte of every
 * message tampered, downgrades, pinning, TOFU through a real file, anonymous
 * initiators, cookies and their rotation, replay, malformed input (no state
 * change), the key file, and the vectors of docs/secure-mode.md section 10
 * (SST_SECURE_PRINT_VECTORS=1 in the environment prints them).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "nego_secure.h"
#include "sst_error.h"
#include "sst_test.h"

#define EXPECT_AT(got, want, at)                                                              \
	do {                                                                                  \
		long long g_ = (long long)(got), w_ = (long long)(want);                      \
		CU_ASSERT_EQUAL(g_, w_);                                                      \
		if (g_ != w_)                                                                 \
			fprintf(stderr, "  line %d, at %zu: got %lld, want %lld\n", __LINE__, \
				(size_t)(at), g_, w_);                                        \
	} while (0)

enum { MSG_MAX = 600 };

/* Randomness for tests: byte k of the stream is (base + k) & 0xff, so that the
 * random inputs of a test vector can be written down as "0x40, 0x41, ...". */
struct counter_rng {
	uint8_t next;
};

static void
counter_random(void *ctx, void *buf, size_t len)
{
	struct counter_rng *r = ctx;
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = r->next++;
}

/* One side of a test handshake. */
struct party {
	struct sst_secure_identity id;
	struct sst_secure_host hosts[4];
	struct sst_secure_known_hosts kh;
	struct sst_secure_config cfg;
	struct counter_rng rng;
};

static void
party_init(struct party *p, uint8_t seed_byte, uint8_t rng_base, bool with_identity)
{
	uint8_t seed[32];

	memset(p, 0, sizeof(*p));
	for (int i = 0; i < 32; i++)
		seed[i] = (uint8_t)(seed_byte + i);
	CU_ASSERT_EQUAL(sst_secure_identity_from_seed(&p->id, seed), 0);
	p->kh = (struct sst_secure_known_hosts){p->hosts, 4, 0};
	p->rng.next = rng_base;
	p->cfg.size = sizeof(p->cfg);
	p->cfg.identity = with_identity ? &p->id : NULL;
	p->cfg.policy = SST_SECURE_PINNED;
	p->cfg.known_hosts = &p->kh;
	sst_secure_suites_default(&p->cfg, true, false);
	p->cfg.random = counter_random;
	p->cfg.random_ctx = &p->rng;
}

static void
set_suites(struct party *p, int n, const int *s)
{
	p->cfg.nsuites = (uint8_t)n;
	for (int k = 0; k < n; k++)
		p->cfg.suites[k] = (enum sst_crypto_suite)s[k];
}

/* Pin each party's key in the other's table ("server" and "client"). */
static void
pin_both(struct party *i, struct party *r)
{
	CU_ASSERT_EQUAL(sst_secure_known_hosts_add(&i->kh, "server", r->id.pk), 0);
	CU_ASSERT_EQUAL(sst_secure_known_hosts_add(&r->kh, "client", i->id.pk), 0);
}

/* A handshake in progress, messages kept as sent. */
struct hs {
	struct sst_secure_initiator is;
	struct sst_secure_responder rs;
	uint8_t i1[MSG_MAX], r1[MSG_MAX], i2[MSG_MAX];
	size_t i1_len, r1_len, i2_len;
	struct sst_secure_result ires, rres;
};

static const char ulpi[] = "sst-dpdk/1 i";
static const char ulpr[] = "sst-dpdk/1 resp";

/* The body of the first chunk of the given type in a message. */
static int
chunk_of(const uint8_t *msg, size_t len, int32_t type, struct sst_bytes *body)
{
	struct sst_nego_msg m;
	struct sst_nego_iter it;
	struct sst_nego_chunk c;
	int rc = sst_nego_msg_parse(msg, len, &m);

	if (rc < 0)
		return rc;
	sst_nego_iter_init(&it, &m);
	while (sst_nego_iter_next(&it, &c))
		if (c.type == type) {
			*body = c.body;
			return 0;
		}
	return -SST_EBADTYPE;
}

static int
start(struct hs *h, struct party *i)
{
	struct sst_nego_builder b;
	int rc;

	sst_nego_build_begin(&b, h->i1, sizeof(h->i1));
	rc = sst_secure_initiator_start(&h->is, &i->cfg, 1, ulpi, strlen(ulpi), &b);
	h->i1_len = sst_nego_build_end(&b);
	return rc;
}

/* Responder step on a (possibly altered) SecI1 message. */
static int
on_i1(struct sst_secure_responder *rs, struct party *r, const uint8_t *i1, size_t i1_len,
	const struct sst_secure_cookie_req *ck, uint8_t *r1, size_t *r1_len)
{
	struct sst_nego_builder b;
	struct sst_bytes body;
	int rc = chunk_of(i1, i1_len, SST_NEGO_SECI1, &body);

	if (rc < 0)
		return rc;
	sst_nego_build_begin(&b, r1, MSG_MAX);
	rc = sst_secure_responder_on_i1(rs, &r->cfg, &body, ck, 2, ulpr, strlen(ulpr), &b);
	*r1_len = sst_nego_build_end(&b);
	return rc;
}

static int
on_r1(struct sst_secure_initiator *is, struct party *i, const uint8_t *r1, size_t r1_len,
	const char *name, uint8_t *i2, size_t *i2_len, struct sst_secure_result *res)
{
	struct sst_nego_builder b;
	struct sst_bytes body;
	int rc = chunk_of(r1, r1_len, SST_NEGO_SECR1, &body);

	if (rc < 0)
		return rc;
	sst_nego_build_begin(&b, i2, MSG_MAX);
	rc = sst_secure_initiator_on_r1(is, &i->cfg, &body, name, &b, res);
	*i2_len = sst_nego_build_end(&b);
	return rc;
}

static int
on_i2(struct sst_secure_responder *rs, struct party *r, const uint8_t *i2, size_t i2_len,
	const char *name, struct sst_secure_result *res)
{
	struct sst_bytes body;
	int rc = chunk_of(i2, i2_len, SST_NEGO_SECI2, &body);

	return rc < 0 ? rc : sst_secure_responder_on_i2(rs, &r->cfg, &body, name, res);
}

/* Run a whole handshake; returns the first failure. */
static int
handshake(struct hs *h, struct party *i, struct party *r, const char *rname, const char *iname)
{
	int rc;

	memset(h, 0, sizeof(*h));
	if ((rc = start(h, i)) < 0 ||
		(rc = on_i1(&h->rs, r, h->i1, h->i1_len, NULL, h->r1, &h->r1_len)) < 0 ||
		(rc = on_r1(&h->is, i, h->r1, h->r1_len, rname, h->i2, &h->i2_len, &h->ires)) < 0)
		return rc;
	return on_i2(&h->rs, r, h->i2, h->i2_len, iname, &h->rres);
}

static bool
all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != 0)
			return false;
	return true;
}

/* The two results mirror each other. */
static void
check_mirror(const struct hs *h, enum sst_crypto_suite suite)
{
	const struct sst_crypto_keys *a = &h->ires.keys, *b = &h->rres.keys;

	CU_ASSERT(h->ires.suite == suite && h->rres.suite == suite);
	/* Our transmit side is the peer's receive side, and the two differ. */
	CU_ASSERT(memcmp(a->tx_key, b->rx_key, 32) == 0 && memcmp(a->rx_key, b->tx_key, 32) == 0);
	CU_ASSERT(memcmp(a->tx_iv, b->rx_iv, 12) == 0 && memcmp(a->rx_iv, b->tx_iv, 12) == 0);
	CU_ASSERT(a->tx_chk_key == b->rx_chk_key && a->rx_chk_key == b->tx_chk_key);
	CU_ASSERT(memcmp(a->tx_key, a->rx_key, 32) != 0 && memcmp(a->tx_iv, a->rx_iv, 12) != 0);
	CU_ASSERT(a->tx_chk_key != a->rx_chk_key && !all_zero(a->tx_key, 32));
	CU_ASSERT(memcmp(h->ires.tx_hcid, h->rres.rx_hcid, 16) == 0 &&
		  memcmp(h->ires.rx_hcid, h->rres.tx_hcid, 16) == 0);
	CU_ASSERT(memcmp(h->ires.tx_hcid, h->ires.rx_hcid, 16) != 0);
	CU_ASSERT(h->ires.peer_channel == 2 && h->rres.peer_channel == 1);
	CU_ASSERT(h->ires.peer_ulp_len == strlen(ulpr) && memcmp(h->ires.peer_ulp, ulpr, 15) == 0);
	CU_ASSERT(h->rres.peer_ulp_len == strlen(ulpi) && memcmp(h->rres.peer_ulp, ulpi, 12) == 0);
}

enum { CHK = SST_CRYPTO_CHK32, AES = SST_CRYPTO_AES128GCM, CHA = SST_CRYPTO_CHACHA20POLY1305 };
static const int all_suites[3] = {CHK, AES, CHA};

static void
test_each_suite(void)
{
	for (int k = 0; k < 3; k++) {
		struct party i, r;
		struct hs h;

		party_init(&i, 0x00, 0x40, true);
		party_init(&r, 0x20, 0x80, true);
		pin_both(&i, &r);
		set_suites(&i, 1, &all_suites[k]);
		set_suites(&r, 3, all_suites);
		EXPECT_AT(handshake(&h, &i, &r, "server", "client"), 0, k);
		check_mirror(&h, (enum sst_crypto_suite)all_suites[k]);
		CU_ASSERT(h.ires.peer == SST_SECURE_PEER_KNOWN &&
			  h.rres.peer == SST_SECURE_PEER_KNOWN);
		CU_ASSERT(memcmp(h.ires.peer_id, r.id.pk, 32) == 0 &&
			  memcmp(h.rres.peer_id, i.id.pk, 32) == 0);
		/* Both states are spent and hold no secret. */
		CU_ASSERT(all_zero(h.is.e_sk, 32) && all_zero(h.rs.s_tr, 32) &&
			  all_zero(h.rs.k_hs_i, 32));
		/* A second message for a finished handshake is refused. */
		EXPECT_AT(on_i2(&h.rs, &r, h.i2, h.i2_len, NULL, &h.rres), -EINVAL, k);
		EXPECT_AT(on_r1(&h.is, &i, h.r1, h.r1_len, NULL, h.i2, &h.i2_len, &h.ires), -EINVAL,
			k);
		sst_secure_result_wipe(&h.ires);
		CU_ASSERT(all_zero(&h.ires, sizeof(h.ires)));
	}
}

/* The responder's cost order picks among the offered suites. */
static void
test_cost_order(void)
{
	static const struct {
		int ni, nr;
		int i[3], r[3];
		int want;
	} cases[] = {
		{3, 3, {CHA, AES, CHK}, {CHK, AES, CHA}, CHK},
		{2, 3, {CHA, AES}, {CHK, AES, CHA}, AES},
		{2, 2, {AES, CHA}, {CHA, AES}, CHA},
		{1, 2, {CHK}, {AES, CHA}, -ENOTSUP},
		{2, 1, {AES, CHA}, {CHK}, -ENOTSUP},
	};
	struct sst_secure_config c = {.size = sizeof(c)};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct party i, r;
		struct hs h;
		int rc;

		party_init(&i, 0x00, 0x40, true);
		party_init(&r, 0x20, 0x80, true);
		pin_both(&i, &r);
		set_suites(&i, cases[k].ni, cases[k].i);
		set_suites(&r, cases[k].nr, cases[k].r);
		rc = handshake(&h, &i, &r, "server", "client");
		EXPECT_AT(rc < 0 ? rc : (int)h.ires.suite, cases[k].want, k);
		if (rc == 0)
			check_mirror(&h, (enum sst_crypto_suite)cases[k].want);
	}
	sst_secure_suites_default(&c, true, true);
	CU_ASSERT_EQUAL(c.nsuites, 3);
	CU_ASSERT_EQUAL(c.suites[0], SST_CRYPTO_CHK32);
	CU_ASSERT_EQUAL(c.suites[1], SST_CRYPTO_AES128GCM);
	sst_secure_suites_default(&c, false, false);
	CU_ASSERT_EQUAL(c.nsuites, 2);
	CU_ASSERT_EQUAL(c.suites[0], SST_CRYPTO_CHACHA20POLY1305);
	CU_ASSERT_EQUAL(c.suites[1], SST_CRYPTO_AES128GCM);
}

/*
 * The rest of a handshake after message `which` (0: SecI1, 1: SecR1, 2: SecI2)
 * arrives as msg: 1 if it fails. h's states wait for that message and must
 * come out unchanged, which the genuine message checks at the end.
 */
static int
rest_fails(
	struct hs *h, struct party *i, struct party *r, int which, const uint8_t *msg, size_t len)
{
	uint8_t r1[MSG_MAX], i2[MSG_MAX];
	struct sst_secure_responder rs;
	struct sst_secure_result res;
	size_t r1_len, i2_len;
	int rc;

	if (which == 0) {
		memset(&rs, 0, sizeof(rs));
		rc = on_i1(&rs, r, msg, len, NULL, r1, &r1_len);
		if (rc == 0)
			rc = on_r1(&h->is, i, r1, r1_len, "server", i2, &i2_len, &res);
		sst_secure_responder_fini(&rs);
	} else if (which == 1) {
		rc = on_r1(&h->is, i, msg, len, "server", i2, &i2_len, &res);
	} else {
		rc = on_i2(&h->rs, r, msg, len, "client", &res);
	}
	return rc < 0;
}

/*
 * Every byte of SecI1, SecR1 and SecI2 (identified and anonymous), flipped in
 * turn with two masks, and every truncation, makes the handshake fail: the
 * receiver refuses the message, or (SecI1) answers a SecR1 that the initiator
 * refuses. Afterwards the genuine messages still complete the handshake.
 */
static void
test_tamper(void)
{
	for (int which = 0; which < 6; which++) {
		int step = which % 3, anon = which / 3;
		uint8_t bad[MSG_MAX], *msg;
		struct party i, r;
		struct hs h;
		size_t len;

		party_init(&i, 0x00, 0x40, !anon);
		party_init(&r, 0x20, 0x80, true);
		pin_both(&i, &r);
		r.cfg.allow_anonymous = anon;
		memset(&h, 0, sizeof(h));
		CU_ASSERT_EQUAL_FATAL(start(&h, &i), 0);
		if (step >= 1)
			CU_ASSERT_EQUAL_FATAL(
				on_i1(&h.rs, &r, h.i1, h.i1_len, NULL, h.r1, &h.r1_len), 0);
		if (step >= 2)
			CU_ASSERT_EQUAL_FATAL(on_r1(&h.is, &i, h.r1, h.r1_len, "server", h.i2,
						      &h.i2_len, &h.ires),
				0);
		msg = step == 0 ? h.i1 : step == 1 ? h.r1 : h.i2;
		len = step == 0 ? h.i1_len : step == 1 ? h.r1_len : h.i2_len;
		for (size_t at = 0; at < len; at++)
			for (int bit = 0; bit < 8; bit += 7) {
				memcpy(bad, msg, len);
				bad[at] ^= (uint8_t)(1u << bit);
				EXPECT_AT(rest_fails(&h, &i, &r, step, bad, len), 1,
					which * 1000 + at);
			}
		for (size_t n = 0; n < len; n++)
			EXPECT_AT(rest_fails(&h, &i, &r, step, msg, n), 1, which * 1000 + n);
		if (step < 1)
			CU_ASSERT_EQUAL(on_i1(&h.rs, &r, h.i1, h.i1_len, NULL, h.r1, &h.r1_len), 0);
		if (step < 2)
			CU_ASSERT_EQUAL(on_r1(&h.is, &i, h.r1, h.r1_len, "server", h.i2, &h.i2_len,
						&h.ires),
				0);
		CU_ASSERT_EQUAL(on_i2(&h.rs, &r, h.i2, h.i2_len, "client", &h.rres), 0);
		check_mirror(&h, SST_CRYPTO_AES128GCM);
		CU_ASSERT_EQUAL(
			h.rres.peer, anon ? SST_SECURE_PEER_ANONYMOUS : SST_SECURE_PEER_KNOWN);
	}
}

/* Offsets in a SecI1 message: 8-byte header, length and type words, then the
 * body: version, ni, ei, offer count at 72, offer entries from 76. */
enum { I1_BODY = 16, I1_NOFFER = I1_BODY + 68, I1_OFFER = I1_BODY + 72 };

/* Rewrite a SecI1 message with the offer entry at index k removed. */
static size_t
strip_offer(const uint8_t *i1, size_t len, int k, uint8_t *out)
{
	struct sst_nego_builder b;
	uint8_t body[MSG_MAX];
	size_t blen = len - I1_BODY, at = I1_OFFER - I1_BODY + 4 * (size_t)k;

	memcpy(body, i1 + I1_BODY, blen);
	memmove(body + at, body + at + 4, blen - at - 4);
	body[I1_NOFFER - I1_BODY + 3]--;
	sst_nego_build_begin(&b, out, MSG_MAX);
	CU_ASSERT_EQUAL(sst_nego_build_raw(&b, SST_NEGO_SECI1, body, blen - 4), 0);
	return sst_nego_build_end(&b);
}

/* A man in the middle changes the offer or the choice: the initiator notices. */
static void
test_downgrade(void)
{
	static const int strong[2] = {AES, CHA};
	uint8_t bad[MSG_MAX], r1[MSG_MAX], i2[MSG_MAX];
	size_t bad_len, r1_len, i2_len;
	struct sst_secure_result res;
	struct party i, r;
	struct hs h;

	party_init(&i, 0x00, 0x40, true);
	party_init(&r, 0x20, 0x80, true);
	pin_both(&i, &r);
	set_suites(&i, 2, strong);
	set_suites(&r, 3, all_suites); /* would take CHK32 if offered */
	memset(&h, 0, sizeof(h));
	CU_ASSERT_EQUAL_FATAL(start(&h, &i), 0);
	CU_ASSERT_EQUAL(h.i1[I1_NOFFER + 3], 2);
	CU_ASSERT_EQUAL(h.i1[I1_OFFER + 3], SST_CRYPTO_AES128GCM);

	/* Offer rewritten to CHK32: the choice was never offered. */
	memcpy(bad, h.i1, h.i1_len);
	bad[I1_OFFER + 3] = SST_CRYPTO_CHK32;
	memset(&h.rs, 0, sizeof(h.rs));
	CU_ASSERT_EQUAL(on_i1(&h.rs, &r, bad, h.i1_len, NULL, r1, &r1_len), 0);
	CU_ASSERT_EQUAL(on_r1(&h.is, &i, r1, r1_len, "server", i2, &i2_len, &res), -ENOTSUP);

	/* AES stripped from the offer: ChaCha is chosen, but the transcripts differ. */
	set_suites(&r, 2, strong);
	bad_len = strip_offer(h.i1, h.i1_len, 0, bad);
	memset(&h.rs, 0, sizeof(h.rs));
	CU_ASSERT_EQUAL(on_i1(&h.rs, &r, bad, bad_len, NULL, r1, &r1_len), 0);
	CU_ASSERT_EQUAL(r1[16 + 99], SST_CRYPTO_CHACHA20POLY1305);
	CU_ASSERT_EQUAL(on_r1(&h.is, &i, r1, r1_len, "server", i2, &i2_len, &res), -SST_EBADAUTH);

	/* The choice in SecR1 changed from AES to ChaCha (both offered). */
	memset(&h.rs, 0, sizeof(h.rs));
	CU_ASSERT_EQUAL(on_i1(&h.rs, &r, h.i1, h.i1_len, NULL, r1, &r1_len), 0);
	CU_ASSERT_EQUAL(r1[16 + 99], SST_CRYPTO_AES128GCM);
	r1[16 + 99] = SST_CRYPTO_CHACHA20POLY1305;
	CU_ASSERT_EQUAL(on_r1(&h.is, &i, r1, r1_len, "server", i2, &i2_len, &res), -SST_EBADAUTH);
	r1[16 + 99] = SST_CRYPTO_AES128GCM;
	CU_ASSERT_EQUAL(on_r1(&h.is, &i, r1, r1_len, "server", i2, &i2_len, &res), 0);
	CU_ASSERT_EQUAL(res.suite, SST_CRYPTO_AES128GCM);
	sst_secure_responder_fini(&h.rs);
}

static void
test_pinning(void)
{
	struct party i, r, other;
	struct hs h;

	party_init(&i, 0x00, 0x40, true);
	party_init(&r, 0x20, 0x80, true);
	party_init(&other, 0x60, 0xc0, true);
	/* "server" pinned to another key: refused under either policy. */
	CU_ASSERT_EQUAL(sst_secure_known_hosts_add(&i.kh, "server", other.id.pk), 0);
	CU_ASSERT_EQUAL(sst_secure_known_hosts_add(&r.kh, "client", i.id.pk), 0);
	CU_ASSERT_EQUAL(handshake(&h, &i, &r, "server", NULL), -EACCES);
	i.cfg.policy = SST_SECURE_TOFU;
	CU_ASSERT_EQUAL(handshake(&h, &i, &r, "server", NULL), -EACCES);
	/* Unknown name: refused when pinned, accepted as new under TOFU. */
	CU_ASSERT_EQUAL(handshake(&h, &i, &r, "elsewhere", NULL), 0);
	CU_ASSERT_EQUAL(h.ires.peer, SST_SECURE_PEER_NEW);
	i.cfg.policy = SST_SECURE_PINNED;
	CU_ASSERT_EQUAL(handshake(&h, &i, &r, "elsewhere", NULL), -EACCES);
	CU_ASSERT_EQUAL(handshake(&h, &i, &r, NULL, NULL), -EACCES);
	/* Any name, key listed: accepted. */
	CU_ASSERT_EQUAL(sst_secure_known_hosts_add(&i.kh, "server2", r.id.pk), 0);
	CU_ASSERT_EQUAL(handshake(&h, &i, &r, NULL, NULL), 0);
	CU_ASSERT_EQUAL(handshake(&h, &i, &r, "server2", "client"), 0);
	CU_ASSERT_EQUAL(h.rres.peer, SST_SECURE_PEER_KNOWN);
	/* The responder pins its clients the same way. */
	r.kh.n = 0;
	CU_ASSERT_EQUAL(handshake(&h, &i, &r, "server2", NULL), -EACCES);
	CU_ASSERT_EQUAL(sst_secure_known_hosts_add(&r.kh, "client", other.id.pk), 0);
	CU_ASSERT_EQUAL(handshake(&h, &i, &r, "server2", "client"), -EACCES);
	r.cfg.policy = SST_SECURE_TOFU;
	CU_ASSERT_EQUAL(handshake(&h, &i, &r, "server2", NULL), 0);
	CU_ASSERT_EQUAL(h.rres.peer, SST_SECURE_PEER_NEW);
	/* Lookup results. */
	CU_ASSERT(
		sst_secure_known_hosts_lookup(&i.kh, "server", r.id.pk) ==
			SST_SECURE_PEER_MISMATCH &&
		sst_secure_known_hosts_lookup(&i.kh, "server", other.id.pk) ==
			SST_SECURE_PEER_KNOWN &&
		sst_secure_known_hosts_lookup(&i.kh, "x", other.id.pk) == SST_SECURE_PEER_UNKNOWN &&
		sst_secure_known_hosts_lookup(&i.kh, NULL, i.id.pk) == SST_SECURE_PEER_UNKNOWN);
	/* Table limits and names. */
	CU_ASSERT_EQUAL(sst_secure_known_hosts_add(&i.kh, "a b", r.id.pk), -EINVAL);
	CU_ASSERT_EQUAL(sst_secure_known_hosts_add(&i.kh, "", r.id.pk), -EINVAL);
	CU_ASSERT_EQUAL(sst_secure_known_hosts_add(&i.kh, "c", r.id.pk), 0);
	CU_ASSERT_EQUAL(sst_secure_known_hosts_add(&i.kh, "d", r.id.pk), 0);
	CU_ASSERT_EQUAL(sst_secure_known_hosts_add(&i.kh, "e", r.id.pk), -ENOSPC);
}

static void
make_tmpdir(char *dir, size_t cap)
{
	const char *base = getenv("TMPDIR");

	snprintf(dir, cap, "%s/sst-secure-XXXXXX", base != NULL ? base : "/tmp");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
}

static void
write_text(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

/* Parsing of known-hosts files: comments, blanks, limits, bad lines. */
static void
known_hosts_parse(const char *path, const uint8_t pk[32])
{
	char text[600], hex[65];
	struct sst_secure_host hosts[2];
	struct sst_secure_known_hosts kh = {hosts, 2, 0};
	/* Each bad line: prefix, the key in hex, suffix. */
	static const char *bad[][2] = {
		{"00112233 short\n", NULL},
		{"zz", " name\n"},
		{"", "\n"},
		{"", " name extra\n"},
		{"", "0 name\n"},
		{"", " aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n"},
	};

	sodium_bin2hex(hex, sizeof(hex), pk, 32);
	snprintf(text, sizeof(text), "# comment\n\n   \n%s host-a\n%s\thost-b  \r\n", hex, hex);
	write_text(path, text, 0644);
	CU_ASSERT_EQUAL(sst_secure_known_hosts_load(&kh, path), 0);
	CU_ASSERT_EQUAL(kh.n, 2);
	CU_ASSERT_STRING_EQUAL(hosts[0].name, "host-a");
	CU_ASSERT_STRING_EQUAL(hosts[1].name, "host-b");
	CU_ASSERT(memcmp(hosts[1].pk, pk, 32) == 0);
	snprintf(text, sizeof(text), "%s a\n%s b\n%s c\n", hex, hex, hex);
	write_text(path, text, 0644);
	CU_ASSERT_EQUAL(sst_secure_known_hosts_load(&kh, path), -ENOSPC);
	CU_ASSERT_EQUAL(kh.n, 0);
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		snprintf(text, sizeof(text), "%s%s%s", bad[k][0], bad[k][1] ? hex : "",
			bad[k][1] ? bad[k][1] : "");
		write_text(path, text, 0644);
		EXPECT_AT(sst_secure_known_hosts_load(&kh, path), -EINVAL, k);
	}
	/* A line longer than any valid one. */
	memset(text, 'a', 300);
	text[300] = '\n';
	text[301] = '\0';
	write_text(path, text, 0644);
	CU_ASSERT_EQUAL(sst_secure_known_hosts_load(&kh, path), -EINVAL);
}

/* TOFU with a real file: unknown, appended, reloaded, then pinned. */
static void
test_tofu_file(void)
{
	char dir[256], path[300];
	struct party i, r, impostor;
	struct hs h;

	make_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/known_hosts", dir);
	party_init(&i, 0x00, 0x40, true);
	party_init(&r, 0x20, 0x80, true);
	party_init(&impostor, 0x60, 0xc0, true);
	r.cfg.allow_anonymous = true;
	i.cfg.policy = SST_SECURE_TOFU;
	CU_ASSERT_EQUAL(sst_secure_known_hosts_load(&i.kh, path), 0); /* no file yet */
	CU_ASSERT_EQUAL(i.kh.n, 0);
	CU_ASSERT_EQUAL(handshake(&h, &i, &r, "server.example", NULL), -EACCES); /* r pins */
	r.cfg.policy = SST_SECURE_TOFU;
	CU_ASSERT_EQUAL(handshake(&h, &i, &r, "server.example", NULL), 0);
	CU_ASSERT_EQUAL(h.ires.peer, SST_SECURE_PEER_NEW);
	CU_ASSERT_EQUAL(sst_secure_known_hosts_append(path, "server.example", h.ires.peer_id), 0);
	CU_ASSERT_EQUAL(sst_secure_known_hosts_load(&i.kh, path), 0);
	CU_ASSERT_EQUAL(i.kh.n, 1);
	CU_ASSERT_EQUAL(handshake(&h, &i, &r, "server.example", NULL), 0);
	CU_ASSERT_EQUAL(h.ires.peer, SST_SECURE_PEER_KNOWN);
	/* Another key under the pinned name is refused, even under TOFU. */
	CU_ASSERT_EQUAL(handshake(&h, &i, &impostor, "server.example", NULL), -EACCES);
	/* The file as written: one line, key in hex, name. */
	{
		char want[200], got[200] = "";
		FILE *f = fopen(path, "r");
		struct stat sb;

		sodium_bin2hex(want, 65, r.id.pk, 32);
		strcat(want, " server.example\n");
		CU_ASSERT_FATAL(f != NULL);
		CU_ASSERT(fgets(got, sizeof(got), f) != NULL);
		fclose(f);
		CU_ASSERT_STRING_EQUAL(got, want);
		CU_ASSERT_EQUAL(stat(path, &sb), 0);
		CU_ASSERT_EQUAL(sb.st_mode & 0777, 0600);
	}
	CU_ASSERT_EQUAL(sst_secure_known_hosts_append(path, "bad name", r.id.pk), -EINVAL);
	known_hosts_parse(path, r.id.pk);
	unlink(path);
	rmdir(dir);
}

static void
test_identity_file(void)
{
	char dir[256], path[300], hex[65 + 1];
	struct sst_secure_identity a, b;
	struct counter_rng rng = {0x10};
	uint8_t seed[32];

	make_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/id", dir);
	CU_ASSERT_EQUAL(sst_secure_identity_load(path, &a), -ENOENT);
	CU_ASSERT_EQUAL(sst_secure_identity_load_or_create(path, counter_random, &rng, &a), 1);
	CU_ASSERT_EQUAL(sst_secure_identity_load_or_create(path, counter_random, &rng, &b), 0);
	CU_ASSERT(memcmp(a.pk, b.pk, 32) == 0);
	CU_ASSERT(memcmp(a.sk, b.sk, 64) == 0);
	for (int k = 0; k < 32; k++)
		seed[k] = (uint8_t)(0x10 + k);
	CU_ASSERT_EQUAL(sst_secure_identity_from_seed(&b, seed), 0);
	CU_ASSERT(memcmp(a.pk, b.pk, 32) == 0);
	/* Readable by others: refused. */
	chmod(path, 0640);
	CU_ASSERT_EQUAL(sst_secure_identity_load(path, &b), -EPERM);
	CU_ASSERT_EQUAL(sst_secure_identity_load_or_create(path, counter_random, &rng, &b), -EPERM);
	/* Malformed contents. */
	sodium_bin2hex(hex, 65, seed, 32);
	write_text(path, hex, 0600); /* no newline */
	CU_ASSERT_EQUAL(sst_secure_identity_load(path, &b), -EINVAL);
	hex[5] = 'x';
	hex[64] = '\n';
	hex[65] = '\0';
	write_text(path, hex, 0600);
	CU_ASSERT_EQUAL(sst_secure_identity_load(path, &b), -EINVAL);
	hex[5] = '0';
	write_text(path, hex, 0600);
	CU_ASSERT_EQUAL(sst_secure_identity_load(path, &b), 0);
	sst_secure_identity_wipe(&a);
	CU_ASSERT(all_zero(&a, sizeof(a)));
	unlink(path);
	CU_ASSERT_EQUAL(sst_secure_identity_load(dir, &b), -EINVAL); /* a directory */
	rmdir(dir);
}

static void
test_anonymous(void)
{
	struct party i, r;
	struct hs h;

	party_init(&i, 0x00, 0x40, false);
	party_init(&r, 0x20, 0x80, true);
	pin_both(&i, &r);
	CU_ASSERT_EQUAL(handshake(&h, &i, &r, "server", NULL), -EACCES);
	r.cfg.policy = SST_SECURE_TOFU; /* TOFU does not admit anonymous initiators */
	CU_ASSERT_EQUAL(handshake(&h, &i, &r, "server", NULL), -EACCES);
	r.cfg.allow_anonymous = true;
	CU_ASSERT_EQUAL(handshake(&h, &i, &r, "server", NULL), 0);
	check_mirror(&h, SST_CRYPTO_AES128GCM);
	CU_ASSERT_EQUAL(h.rres.peer, SST_SECURE_PEER_ANONYMOUS);
	CU_ASSERT(all_zero(h.rres.peer_id, 32));
	/* A responder needs an identity. */
	r.cfg.identity = NULL;
	CU_ASSERT_EQUAL(handshake(&h, &i, &r, "server", NULL), -EINVAL);
}

static const uint8_t addr_a[6] = {192, 0, 2, 1, 0x0f, 0xa0};
static const uint8_t addr_b[6] = {192, 0, 2, 2, 0x0f, 0xa0};

static void
test_cookie(void)
{
	struct counter_rng srng = {0xe0};
	struct sst_secure_cookie_secret sec, other;
	struct sst_secure_cookie_req req = {&sec, addr_a, sizeof(addr_a)};
	struct sst_secure_cookie_req wrong_addr = {&sec, addr_b, sizeof(addr_b)};
	struct sst_secure_cookie_req wrong_sec = {&other, addr_a, sizeof(addr_a)};
	uint8_t ch[MSG_MAX], i1b[MSG_MAX], bad[MSG_MAX];
	size_t ch_len, i1b_len;
	struct sst_nego_builder b;
	struct sst_bytes body, cbody;
	struct party i, r;
	struct hs h;

	party_init(&i, 0x00, 0x40, true);
	party_init(&r, 0x20, 0x80, true);
	pin_both(&i, &r);
	sst_secure_cookie_secret_init(&sec, counter_random, &srng, 1000);
	sst_secure_cookie_secret_init(&other, counter_random, &srng, 1000);
	memset(&h, 0, sizeof(h));
	CU_ASSERT_EQUAL_FATAL(start(&h, &i), 0);

	/* No cookie yet: a challenge, and the responder keeps nothing. */
	CU_ASSERT_EQUAL(on_i1(&h.rs, &r, h.i1, h.i1_len, &req, ch, &ch_len), SST_SECURE_CHALLENGED);
	CU_ASSERT(all_zero(&h.rs, sizeof(h.rs)));
	CU_ASSERT_EQUAL(r.rng.next, 0x80); /* no randomness drawn either */
	CU_ASSERT_EQUAL(ch_len, 8 + 8 + 32 + 4 + 16);
	CU_ASSERT_EQUAL_FATAL(chunk_of(ch, ch_len, SST_NEGO_SECCOOKIE, &cbody), 0);
	CU_ASSERT_EQUAL_FATAL(chunk_of(h.i1, h.i1_len, SST_NEGO_SECI1, &body), 0);
	CU_ASSERT_EQUAL(sst_secure_cookie_verify(&req, &body), -SST_EBADAUTH);

	/* A challenge for another handshake, or malformed, is refused. */
	memcpy(bad, cbody.ptr, cbody.len); /* nonce changed */
	bad[3] ^= 1;
	memcpy(bad + 100, cbody.ptr, 32); /* empty cookie */
	memset(bad + 132, 0, 4);
	sst_nego_build_begin(&b, i1b, sizeof(i1b));
	CU_ASSERT(sst_secure_initiator_on_cookie(&h.is, &(struct sst_bytes){bad, cbody.len}, &b) ==
			  -SST_EBADAUTH &&
		  sst_secure_initiator_on_cookie(&h.is, &(struct sst_bytes){cbody.ptr, 51}, &b) ==
			  -SST_ETRUNC &&
		  sst_secure_initiator_on_cookie(&h.is, &(struct sst_bytes){bad + 100, 36}, &b) ==
			  -SST_EBADVALUE);

	/* The retry carries the cookie; same ephemeral and nonce. */
	CU_ASSERT_EQUAL_FATAL(sst_secure_initiator_on_cookie(&h.is, &cbody, &b), 0);
	i1b_len = sst_nego_build_end(&b);
	CU_ASSERT_EQUAL(i1b_len, h.i1_len + 16);
	CU_ASSERT(memcmp(i1b + 12, h.i1 + 12, h.i1_len - 12 - 4) == 0);
	CU_ASSERT_EQUAL_FATAL(chunk_of(i1b, i1b_len, SST_NEGO_SECI1, &body), 0);
	CU_ASSERT_EQUAL(sst_secure_cookie_verify(&req, &body), 0);
	CU_ASSERT_EQUAL(sst_secure_cookie_verify(&wrong_addr, &body), -SST_EBADAUTH);
	CU_ASSERT_EQUAL(sst_secure_cookie_verify(&wrong_sec, &body), -SST_EBADAUTH);
	/* Wrong address: challenged again, not answered. */
	CU_ASSERT_EQUAL(
		on_i1(&h.rs, &r, i1b, i1b_len, &wrong_addr, ch, &ch_len), SST_SECURE_CHALLENGED);
	/* Every bit of the cookie-covered part matters. */
	for (size_t at = I1_BODY; at < i1b_len; at++) {
		struct sst_bytes tb;

		memcpy(bad, i1b, i1b_len);
		bad[at] ^= 0x10;
		if (chunk_of(bad, i1b_len, SST_NEGO_SECI1, &tb) == 0)
			EXPECT_AT(sst_secure_cookie_verify(&req, &tb) < 0, 1, at);
	}

	/* Rotation: valid for one more period, then not. */
	CU_ASSERT_EQUAL(
		sst_secure_cookie_secret_rotate(&sec, counter_random, &srng, 1999, 1000), false);
	CU_ASSERT_EQUAL(
		sst_secure_cookie_secret_rotate(&sec, counter_random, &srng, 2000, 1000), true);
	CU_ASSERT_EQUAL(sst_secure_cookie_verify(&req, &body), 0);
	CU_ASSERT_EQUAL(
		sst_secure_cookie_secret_rotate(&sec, counter_random, &srng, 3000, 1000), true);
	CU_ASSERT_EQUAL(sst_secure_cookie_verify(&req, &body), -SST_EBADAUTH);
	/* A fresh challenge under the new secret completes the handshake. */
	CU_ASSERT_EQUAL(on_i1(&h.rs, &r, i1b, i1b_len, &req, ch, &ch_len), SST_SECURE_CHALLENGED);
	CU_ASSERT_EQUAL_FATAL(chunk_of(ch, ch_len, SST_NEGO_SECCOOKIE, &cbody), 0);
	sst_nego_build_begin(&b, i1b, sizeof(i1b));
	CU_ASSERT_EQUAL_FATAL(sst_secure_initiator_on_cookie(&h.is, &cbody, &b), 0);
	i1b_len = sst_nego_build_end(&b);
	CU_ASSERT_EQUAL(on_i1(&h.rs, &r, i1b, i1b_len, &req, h.r1, &h.r1_len), 0);
	CU_ASSERT_EQUAL(on_r1(&h.is, &i, h.r1, h.r1_len, "server", h.i2, &h.i2_len, &h.ires), 0);
	CU_ASSERT_EQUAL(on_i2(&h.rs, &r, h.i2, h.i2_len, "client", &h.rres), 0);
	check_mirror(&h, SST_CRYPTO_AES128GCM);
	sst_secure_cookie_secret_wipe(&sec);
	CU_ASSERT(all_zero(&sec, sizeof(sec)));
}

/* SecI2 of one handshake replayed into another, with and without the nonce
 * echo fixed up: refused, and the genuine SecI2 still completes. */
static void
test_replay_i2(void)
{
	struct party i, r;
	struct hs a, b;
	struct sst_secure_result res;

	party_init(&i, 0x00, 0x40, true);
	party_init(&r, 0x20, 0x80, true);
	pin_both(&i, &r);
	CU_ASSERT_EQUAL_FATAL(handshake(&a, &i, &r, "server", "client"), 0);
	memset(&b, 0, sizeof(b));
	CU_ASSERT_EQUAL_FATAL(start(&b, &i), 0);
	CU_ASSERT_EQUAL_FATAL(on_i1(&b.rs, &r, b.i1, b.i1_len, NULL, b.r1, &b.r1_len), 0);
	CU_ASSERT_EQUAL(on_i2(&b.rs, &r, a.i2, a.i2_len, "client", &res), -SST_EBADAUTH);
	memcpy(a.i2 + 16, b.rs.nr, 32);
	CU_ASSERT_EQUAL(on_i2(&b.rs, &r, a.i2, a.i2_len, "client", &res), -SST_EBADAUTH);
	/* Replayed SecR1 of the first handshake to the second initiator. */
	CU_ASSERT(on_r1(&b.is, &i, a.r1, a.r1_len, "server", b.i2, &b.i2_len, &res) < 0);
	CU_ASSERT_EQUAL(on_r1(&b.is, &i, b.r1, b.r1_len, "server", b.i2, &b.i2_len, &b.ires), 0);
	CU_ASSERT_EQUAL(on_i2(&b.rs, &r, b.i2, b.i2_len, "client", &b.rres), 0);
	check_mirror(&b, SST_CRYPTO_AES128GCM);
	CU_ASSERT(memcmp(a.ires.keys.tx_key, b.ires.keys.tx_key, 32) != 0);
}

/* Arguments, configurations, phases, and a low-order ephemeral key. */
static void
test_malformed(void)
{
	struct party i, r;
	struct hs h;
	struct sst_nego_builder b;
	struct sst_bytes body;
	uint8_t buf[MSG_MAX], r1[MSG_MAX];
	size_t r1_len;
	const uint8_t *nonce;

	party_init(&i, 0x00, 0x40, true);
	party_init(&r, 0x20, 0x80, true);
	memset(&h, 0, sizeof(h));
	sst_nego_build_begin(&b, buf, sizeof(buf));
	CU_ASSERT_EQUAL(sst_secure_initiator_start(&h.is, &i.cfg, 0, NULL, 0, &b), -EINVAL);
	CU_ASSERT_EQUAL(sst_secure_initiator_start(&h.is, &i.cfg, 1, NULL, 1, &b), -EINVAL);
	CU_ASSERT_EQUAL(sst_secure_initiator_start(&h.is, &i.cfg, 1, buf, 257, &b), -EINVAL);
	/* Bad configurations: a duplicate, NULL or unknown suite, size, no suite. */
	for (int k = 0; k < 5; k++) {
		struct sst_secure_config c = i.cfg;
		enum sst_crypto_suite s1[3] = {
			c.suites[0], SST_CRYPTO_NULL, SST_CRYPTO_SUITE_COUNT};

		c.suites[1] = k < 3 ? s1[k] : c.suites[1];
		c.size -= k == 3;
		c.nsuites = k == 4 ? 0 : c.nsuites;
		EXPECT_AT(sst_secure_config_check(&c, false), -EINVAL, k);
	}
	CU_ASSERT_EQUAL(sst_secure_config_check(&i.cfg, false), 0);
	/* No room for SecI1: the state is left wiped. */
	sst_nego_build_begin(&b, buf, 100);
	CU_ASSERT_EQUAL(sst_secure_initiator_start(&h.is, &i.cfg, 1, NULL, 0, &b), -ENOSPC);
	CU_ASSERT(all_zero(&h.is, sizeof(h.is)));
	/* Messages for a state that is not waiting for them. */
	CU_ASSERT_EQUAL(start(&h, &i), 0);
	CU_ASSERT_EQUAL(on_i2(&h.rs, &r, h.i1, h.i1_len, NULL, &h.rres), -SST_EBADTYPE);
	CU_ASSERT_EQUAL_FATAL(chunk_of(h.i1, h.i1_len, SST_NEGO_SECI1, &body), 0);
	CU_ASSERT_EQUAL(sst_secure_responder_on_i2(&h.rs, &r.cfg, &body, NULL, &h.rres), -EINVAL);
	/* Every truncation of SecI1, and no room for SecR1: state untouched. */
	for (uint32_t n = 0; n < body.len; n++) {
		struct sst_bytes t = {body.ptr, n};

		sst_nego_build_begin(&b, r1, sizeof(r1));
		EXPECT_AT(sst_secure_responder_on_i1(&h.rs, &r.cfg, &t, NULL, 2, NULL, 0, &b) < 0,
			1, n);
	}
	sst_nego_build_begin(&b, r1, 200);
	CU_ASSERT_EQUAL(
		sst_secure_responder_on_i1(&h.rs, &r.cfg, &body, NULL, 2, NULL, 0, &b), -ENOSPC);
	CU_ASSERT(all_zero(&h.rs, sizeof(h.rs)));
	CU_ASSERT_EQUAL(on_i1(&h.rs, &r, h.i1, h.i1_len, NULL, r1, &r1_len), 0);
	CU_ASSERT_EQUAL(on_i1(&h.rs, &r, h.i1, h.i1_len, NULL, buf, &h.i2_len), -EINVAL);
	/* No room for SecI2: the initiator can retry. */
	CU_ASSERT_EQUAL_FATAL(chunk_of(r1, r1_len, SST_NEGO_SECR1, &body), 0);
	i.cfg.policy = SST_SECURE_TOFU;
	sst_nego_build_begin(&b, buf, 60);
	CU_ASSERT_EQUAL(
		sst_secure_initiator_on_r1(&h.is, &i.cfg, &body, NULL, &b, &h.ires), -ENOSPC);
	CU_ASSERT(!all_zero(h.is.e_sk, sizeof(h.is.e_sk)));
	CU_ASSERT_EQUAL(sst_secure_peek_nonce(SST_NEGO_SECR1, &body, &nonce), 0);
	CU_ASSERT(memcmp(nonce, h.is.ni, 32) == 0);
	CU_ASSERT_EQUAL(sst_secure_peek_nonce(SST_NEGO_CHKI1, &body, &nonce), -SST_EBADTYPE);
	CU_ASSERT_EQUAL(sst_secure_peek_nonce(SST_NEGO_SECI2, &(struct sst_bytes){r1, 31}, &nonce),
		-SST_ETRUNC);

	/* A low-order (all-zero) ephemeral in SecI1: refused, no state. */
	sst_secure_responder_fini(&h.rs);
	memset(buf, 0, sizeof(buf));
	memcpy(buf, h.i1, h.i1_len);
	memset(buf + I1_BODY + 36, 0, 32);
	CU_ASSERT_EQUAL(on_i1(&h.rs, &r, buf, h.i1_len, NULL, r1, &r1_len), -SST_EBADVALUE);
	CU_ASSERT(all_zero(&h.rs, sizeof(h.rs)));
	/* Version, channel number and offer bounds. */
	memcpy(buf, h.i1, h.i1_len);
	buf[I1_BODY + 3] = 2;
	CU_ASSERT_EQUAL(on_i1(&h.rs, &r, buf, h.i1_len, NULL, r1, &r1_len), -SST_EBADVALUE);
	memcpy(buf, h.i1, h.i1_len);
	buf[I1_NOFFER + 3] = 9;
	CU_ASSERT_EQUAL(on_i1(&h.rs, &r, buf, h.i1_len, NULL, r1, &r1_len), -SST_ETOOLONG);
	memcpy(buf, h.i1, h.i1_len);
	buf[I1_OFFER + 8 + 2] = 1; /* chani 0x101 */
	CU_ASSERT_EQUAL(on_i1(&h.rs, &r, buf, h.i1_len, NULL, r1, &r1_len), -SST_EBADVALUE);
	sst_nego_build_begin(&b, buf, sizeof(buf));
	CU_ASSERT_EQUAL(sst_secure_initiator_on_r1(&h.is, &i.cfg, &body, NULL, &b, &h.ires), 0);
	CU_ASSERT(all_zero(&h.is.e_sk, sizeof(h.is.e_sk)));
	sst_secure_initiator_fini(&h.is);
	CU_ASSERT(all_zero(&h.is, sizeof(h.is)));
}

/*
 * Test vectors (docs/secure-mode.md section 10): identities from seeds
 * 00..1f (initiator) and 20..3f (responder); randomness 40, 41, ... for the
 * initiator and 80, 81, ... for the responder; chani 1, chanr 2; ulp blobs
 * above; the initiator offers AES-128-GCM then ChaCha20-Poly1305, the
 * responder's order is the same.
 */
static const char vec_id_i[] = "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8";
static const char vec_id_r[] = "29acbae141bccaf0b22e1a94d34d0bc7361e526d0bfe12c89794bc9322966dd7";
static const char vec_i1[] = "00535354000000010000006c0000003100000001606162636465666768696a6b"
			     "6c6d6e6f707172737475767778797a7b7c7d7e7f79a631eede1bf9c98f12032c"
			     "deadd0e7a079398fc786b88cc846ec89af85a51a000000020000000200000003"
			     "000000010000000c7373742d6470646b2f31206900000000";
static const char vec_r1[] = "0053535400000001000000f400000032606162636465666768696a6b6c6d6e6f"
			     "707172737475767778797a7b7c7d7e7f493e82fc74464a59268817623d2053c5"
			     "eb8e2cc4a988b4fee179ec6b010d531da0a1a2a3a4a5a6a7a8a9aaabacadaeaf"
			     "b0b1b2b3b4b5b6b7b8b9babbbcbdbebf000000020000000200000084ba8ab99a"
			     "b436428490637d8bf6fc9ffb35c6b0926aca80f69ed576a333f782e2126dcd94"
			     "5a0e6ee05e0f21037d0175cb21981fa3743a000b52149cd8bdaac2e55ba3030a"
			     "779b48ad2e1c24c8c65489db655d1f2c00fffd3423cefb8e1ad86ad02683eb86"
			     "c3cb41251f5e182d7fbca8402765a2073686ff4ea1716a09a2bd21499cf9e626";
static const char vec_i2[] = "0053535400000001000000a000000033a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"
			     "b0b1b2b3b4b5b6b7b8b9babbbcbdbebf0000007852e3bc65196e286385ef2889"
			     "973944eeb458d6b30791643ef2e20dcdfdec60482f6c46f313d3bdda938f4c35"
			     "8b5d4db1c62cffdfaabdb4f0391e57bb81c3ff5d97a7a342110f5d898fac7544"
			     "b4f34a86547bd9e34f13e8ee2d1af3652bdb23bf352d08607dd5e0dc54176de6"
			     "1998a38a48754e49ca94c698";
static const char vec_key_ir[] = "502dc1b46afeefe69dc98a5124216c8b81821312e9e31278196f70487b5f1e32";
static const char vec_key_ri[] = "23a32e7d12f6cb0231397eec2c2a285f73a8f21cdcca21eecdbdbd53ce8966f6";
static const char vec_iv_ir[] = "e934f4c5307c561af7868244";
static const char vec_iv_ri[] = "cc7b99a02ee8f0ca37c26c44";
static const char vec_chk[] = "879756b16b9a1ba3";
static const char vec_hcid_ir[] = "d4e95603ef590cfbe6133f9ee24920b6";
static const char vec_hcid_ri[] = "12dcf86c8366fcd92c347cf33bb47885";
static const char vec_cookie[] = "00535354000000010000003800000034606162636465666768696a6b6c6d6e6f"
				 "707172737475767778797a7b7c7d7e7f00000010354a37a987200353ea92b853"
				 "5a5008b3";

static void
test_vectors(void)
{
	struct counter_rng srng = {0xc0};
	struct sst_secure_cookie_secret sec;
	struct sst_secure_cookie_req req = {&sec, addr_a, sizeof(addr_a)};
	bool print = getenv("SST_SECURE_PRINT_VECTORS") != NULL;
	uint8_t ch[MSG_MAX], chk[8], want[MSG_MAX];
	struct sst_secure_responder rs;
	const struct sst_crypto_keys *k;
	struct party i, r;
	size_t ch_len;
	struct hs h;

	party_init(&i, 0x00, 0x40, true);
	party_init(&r, 0x20, 0x80, true);
	pin_both(&i, &r);
	CU_ASSERT_EQUAL_FATAL(handshake(&h, &i, &r, "server", "client"), 0);
	sst_secure_cookie_secret_init(&sec, counter_random, &srng, 0);
	memset(&rs, 0, sizeof(rs));
	CU_ASSERT_EQUAL(on_i1(&rs, &r, h.i1, h.i1_len, &req, ch, &ch_len), SST_SECURE_CHALLENGED);
	k = &h.ires.keys;
	for (int b = 0; b < 4; b++) {
		chk[b] = (uint8_t)(k->tx_chk_key >> (24 - 8 * b));
		chk[4 + b] = (uint8_t)(k->rx_chk_key >> (24 - 8 * b));
	}
	const struct {
		const char *name, *hex;
		const uint8_t *p;
		size_t n;
	} v[] = {
		{"initiator identity", vec_id_i, i.id.pk, 32},
		{"responder identity", vec_id_r, r.id.pk, 32},
		{"SecI1", vec_i1, h.i1, h.i1_len},
		{"SecR1", vec_r1, h.r1, h.r1_len},
		{"SecI2", vec_i2, h.i2, h.i2_len},
		{"key i->r", vec_key_ir, k->tx_key, 32},
		{"key r->i", vec_key_ri, k->rx_key, 32},
		{"iv i->r", vec_iv_ir, k->tx_iv, 12},
		{"iv r->i", vec_iv_ri, k->rx_iv, 12},
		{"chk i->r, r->i", vec_chk, chk, 8},
		{"hcid i->r", vec_hcid_ir, h.ires.tx_hcid, 16},
		{"hcid r->i", vec_hcid_ri, h.ires.rx_hcid, 16},
		{"SecCookie", vec_cookie, ch, ch_len},
	};
	for (size_t x = 0; x < sizeof(v) / sizeof(v[0]); x++) {
		size_t wn = sst_test_hex(v[x].hex, want, sizeof(want));

		for (size_t b = 0; print && b < v[x].n; b++)
			printf("%s%s%02x%s", b == 0 ? v[x].name : "", b % 32 == 0 ? "\n    " : "",
				v[x].p[b], b + 1 == v[x].n ? "\n" : "");
		EXPECT_AT(wn == v[x].n && memcmp(want, v[x].p, wn) == 0, 1, x);
	}
	check_mirror(&h, SST_CRYPTO_AES128GCM);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_each_suite),
	SST_TEST(test_cost_order),
	SST_TEST(test_tamper),
	SST_TEST(test_downgrade),
	SST_TEST(test_pinning),
	SST_TEST(test_tofu_file),
	SST_TEST(test_identity_file),
	SST_TEST(test_anonymous),
	SST_TEST(test_cookie),
	SST_TEST(test_replay_i2),
	SST_TEST(test_malformed),
	SST_TEST(test_vectors),
	SST_TEST_END,
};

SST_TEST_MAIN("nego_secure", cases)
