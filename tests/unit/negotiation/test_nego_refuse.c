/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SecRefuse (docs/secure-mode.md 3.6, issue 15 finding 6): a responder with
 * no suite in common with a SecI1 answers with a refusal and keeps nothing;
 * the initiator gives up at once (ops.failed(-ENOTSUP)) instead of at its
 * 20 s timeout. Checked: the refusal's bytes, that it is smaller than every
 * SecI1 message that can cause it, that it comes before any cookie or
 * table entry, that it carries the steering tag; that C believes only a
 * refusal that echoes its whole ni and lists no suite it offered, while
 * its attempt still waits for SecR1, from the address it dialled: a
 * forged, altered, truncated or late refusal changes nothing and the
 * genuine handshake completes.
 */
#include <errno.h>
#include <string.h>

#include <sodium.h>

#include "nego_pair.h"

#define SEC (SST_NSEC_PER_SEC)

static struct tp_side C, S;

/* C offers only ChaCha20-Poly1305; S accepts only @p s_suite. */
static void
pair_init(enum sst_crypto_suite s_suite)
{
	tp_init(&C, 0x43, 0x0a000001, true);
	tp_init(&S, 0x53, 0x0a000002, true);
	tp_pin(&C, &S);
	C.cfg.nsuites = 1;
	C.cfg.suites[0] = SST_CRYPTO_CHACHA20POLY1305;
	S.cfg.nsuites = 1;
	S.cfg.suites[0] = s_suite;
	tp_start(&C);
	tp_start(&S);
}

static void
pair_fini(void)
{
	tp_fini(&C);
	tp_fini(&S);
}

/* C connects; S answers its SecI1 once. @return C's channel. */
static int
connect_once(sst_time_t now)
{
	int chan = sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, now);

	CU_ASSERT_FATAL(chan > 0);
	CU_ASSERT_EQUAL_FATAL(tp_deliver(&C, &S, now), 1);
	return chan;
}

/* The refusal, byte for byte, is no larger than the SecI1 it answers, and
 * S keeps nothing for it, not even under load (no cookie first). */
static void
test_refusal_sent(void)
{
	const struct sst_nego_stats *st;
	struct sst_bytes body;
	uint8_t want[44];
	size_t i1_len;

	for (int load = 0; load < 2; load++) {
		pair_init(SST_CRYPTO_AES128GCM);
		sst_nego_set_under_load(S.h, load != 0);
		sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 0);
		i1_len = C.out[0].len;
		tp_deliver(&C, &S, 0);
		CU_ASSERT_EQUAL_FATAL(S.nout, 1);
		CU_ASSERT_EQUAL(tp_type(&S.out[0]), SST_NEGO_SECREFUSE);
		/* Header 8, chunk length and type 8, ni 32, reason 4, one suite. */
		CU_ASSERT_EQUAL(S.out[0].len, 60);
		CU_ASSERT_TRUE(S.out[0].len < i1_len);
		body = tp_body(&S.out[0], 0);
		CU_ASSERT_EQUAL_FATAL(body.len, sizeof(want));
		/* ni as C sent it: SecI1's body starts with the version word. */
		memcpy(want, tp_body(&C.out[0], 0).ptr + 4, 32);
		sst_put_be32(want + 32, SST_SECURE_REFUSE_NO_SUITE);
		sst_put_be32(want + 36, 1);
		sst_put_be32(want + 40, SST_CRYPTO_AES128GCM);
		CU_ASSERT_EQUAL(memcmp(body.ptr, want, sizeof(want)), 0);
		st = sst_nego_stats(S.h);
		CU_ASSERT_TRUE(st->tx_sec_refuse == 1 && st->rx_sec_i1_refused == 1 &&
			       st->tx_sec_cookie == 0 && st->tx_sec_r1 == 0);
		CU_ASSERT_TRUE(st->amp_tx_bytes == 60 && st->amp_rx_bytes == i1_len);
		CU_ASSERT_TRUE(sst_nego_responding(S.h) == 0 && sst_nego_half_open(S.h) == 0 &&
			       S.chans.in_use == 0);
		pair_fini();
	}
}

/* Spec 3.6: the largest refusal (8 suites, what a decoder takes) against
 * the smallest SecI1 message (no suite offered, no ulpi, no cookie). */
static void
test_refusal_bound(void)
{
	uint8_t i1[200], out[200];
	struct sst_secure_config cfg;
	struct sst_nego_builder b;
	struct sst_xdr_writer w;
	struct sst_bytes body;
	uint64_t rng = 7;
	size_t n;

	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.random = tp_random;
	cfg.random_ctx = &rng;
	sst_secure_suites_default(&cfg, true, true);
	/* SecI1 body: version, ni, ei, offer<> empty, chani, ulpi<>, cookie<>. */
	sst_xdr_writer_init(&w, i1, sizeof(i1));
	sst_xdr_put_u32(&w, 1);
	memset(i1 + 4, 0x11, 64);
	w.pos += 64;
	sst_xdr_put_u32(&w, 0);
	sst_xdr_put_u32(&w, 1);
	sst_xdr_put_u32(&w, 0);
	sst_xdr_put_u32(&w, 0);
	body = (struct sst_bytes){i1, w.pos};
	sst_nego_build_begin(&b, out, sizeof(out));
	CU_ASSERT_EQUAL_FATAL(sst_secure_refusal(&cfg, &body, &b), SST_SECURE_REFUSED);
	n = sst_nego_build_end(&b);
	/* The smallest SecI1 message: 8 + 8 + 84 bytes. */
	CU_ASSERT_EQUAL(SST_NEGO_HDR_LEN + 8 + w.pos, 100);
	CU_ASSERT_EQUAL(n, 56 + 4 * cfg.nsuites);
	CU_ASSERT_TRUE(56 + 4 * SST_SECURE_OFFER_MAX < 100);
	/* A mutual suite: nothing is appended. */
	sst_put_be32(i1 + 68, 1);
	memmove(i1 + 76, i1 + 72, w.pos - 72);
	sst_put_be32(i1 + 72, SST_CRYPTO_AES128GCM);
	body.len = w.pos + 4;
	sst_nego_build_begin(&b, out, sizeof(out));
	CU_ASSERT_EQUAL(sst_secure_refusal(&cfg, &body, &b), 0);
	CU_ASSERT_EQUAL(sst_nego_build_end(&b), SST_NEGO_HDR_LEN);
	/* A SecI1 that does not decode is not answered. */
	body.len--;
	sst_nego_build_begin(&b, out, sizeof(out));
	CU_ASSERT_TRUE(sst_secure_refusal(&cfg, &body, &b) < 0);
}

/* docs/secure-mode.md 10: the SecRefuse of the vector SecI1 by a responder
 * that accepts only CHK32. */
static void
test_refusal_vector(void)
{
	static const char i1_hex[] =
		"00535354000000010000006c0000003100000001606162636465666768696a6b"
		"6c6d6e6f707172737475767778797a7b7c7d7e7f79a631eede1bf9c98f12032c"
		"deadd0e7a079398fc786b88cc846ec89af85a51a000000020000000200000003"
		"000000010000000c7373742d6470646b2f31206900000000";
	static const char want_hex[] =
		"00535354000000010000003000000035606162636465666768696a6b6c6d6e6f"
		"707172737475767778797a7b7c7d7e7f000000010000000100000001";
	uint8_t i1[120], want[60], out[128];
	struct sst_secure_config cfg;
	struct sst_nego_builder b;
	struct sst_bytes body;
	uint64_t rng = 1;
	size_t n;

	CU_ASSERT_FATAL(
		sodium_hex2bin(i1, sizeof(i1), i1_hex, sizeof(i1_hex) - 1, NULL, &n, NULL) == 0 &&
		n == sizeof(i1));
	CU_ASSERT_FATAL(sodium_hex2bin(want, sizeof(want), want_hex, sizeof(want_hex) - 1, NULL, &n,
				NULL) == 0 &&
			n == sizeof(want));
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.random = tp_random;
	cfg.random_ctx = &rng;
	cfg.nsuites = 1;
	cfg.suites[0] = SST_CRYPTO_CHK32;
	body = (struct sst_bytes){i1 + 16, sizeof(i1) - 16};
	sst_nego_build_begin(&b, out, sizeof(out));
	CU_ASSERT_EQUAL_FATAL(sst_secure_refusal(&cfg, &body, &b), SST_SECURE_REFUSED);
	CU_ASSERT_EQUAL_FATAL(sst_nego_build_end(&b), sizeof(want));
	CU_ASSERT_EQUAL(memcmp(out, want, sizeof(want)), 0);
	CU_ASSERT_TRUE(sizeof(want) < sizeof(i1));
}

/* C gives up at once, its number back, with -ENOTSUP. */
static void
test_initiator_gives_up(void)
{
	const struct sst_nego_stats *st;
	int chan;

	pair_init(SST_CRYPTO_AES128GCM);
	chan = connect_once(0);
	CU_ASSERT_EQUAL(tp_deliver(&S, &C, SEC / 1000), 1);
	CU_ASSERT_EQUAL(C.nfailed, 1);
	CU_ASSERT_EQUAL(C.failed_error, -ENOTSUP);
	CU_ASSERT_FALSE(C.chans.used[chan]);
	CU_ASSERT_EQUAL(sst_nego_initiating(C.h), 0);
	st = sst_nego_stats(C.h);
	CU_ASSERT_TRUE(st->rx_sec_refuse == 1 && st->rx_sec_refuse_bad == 0 && st->failed == 0);
	/* Nothing more: no retransmission, no second failure. */
	sst_nego_handle_expiry(C.h, 30 * SEC);
	CU_ASSERT_TRUE(C.nout == 0 && C.nfailed == 1);
	/* The same refusal again matches nothing. */
	S.nout = 1;
	tp_deliver(&S, &C, 31 * SEC);
	CU_ASSERT_EQUAL(sst_nego_stats(C.h)->rx_sec_refuse_bad, 1);
	pair_fini();
}

/* A SecRefuse with this body to C, as from S. */
static void
refuse_to_c(const uint8_t *body, size_t len, sst_time_t now)
{
	uint8_t msg[TP_MSG_MAX];
	struct sst_nego_builder b;

	sst_nego_build_begin(&b, msg, sizeof(msg));
	CU_ASSERT_EQUAL_FATAL(sst_nego_build_raw(&b, SST_NEGO_SECREFUSE, body, len), 0);
	sst_nego_receive(C.h, &S.self, msg, sst_nego_build_end(&b), now);
}

/* Forged refusals toward a C whose server does share its suite: none of
 * them ends the attempt, and the genuine handshake completes after. */
static void
test_forged_ignored(void)
{
	uint8_t msg[TP_MSG_MAX], body[64];
	struct tp_msg refusal;
	unsigned int bad = 0;
	size_t len;

	/* A genuine refusal to C from an AES-only responder, for its bytes. */
	pair_init(SST_CRYPTO_AES128GCM);
	connect_once(0);
	refusal = S.out[0];
	pair_fini();
	/* The same C (same randomness: same ni) against a ChaCha20 server. */
	pair_init(SST_CRYPTO_CHACHA20POLY1305);
	sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 0);
	CU_ASSERT_EQUAL_FATAL(
		memcmp(tp_body(&C.out[0], 0).ptr + 4, tp_body(&refusal, 0).ptr, 32), 0);
	/* Every bit of its ni flipped (0 and 7 of each byte). */
	for (size_t i = 0; i < 32; i++)
		for (int bit = 0; bit < 8; bit += 7) {
			memcpy(msg, refusal.b, refusal.len);
			msg[16 + i] ^= (uint8_t)(1u << bit);
			sst_nego_receive(C.h, &S.self, msg, refusal.len, SEC / 100);
			bad++;
		}
	/* Every truncation and a trailing word (the framing length follows). */
	for (len = 17; len < refusal.len; len++, bad++)
		refuse_to_c(refusal.b + 16, len - 16, SEC / 100);
	memcpy(body, refusal.b + 16, 44);
	memset(body + 44, 0, 4);
	refuse_to_c(body, 48, SEC / 100);
	/* Inconsistent: it lists ChaCha20, which C offered. */
	sst_put_be32(body + 40, SST_CRYPTO_CHACHA20POLY1305);
	refuse_to_c(body, 44, SEC / 100);
	/* An unknown reason; no suite listed; more than 8 listed. */
	memcpy(body, refusal.b + 16, 44);
	sst_put_be32(body + 32, 2);
	refuse_to_c(body, 44, SEC / 100);
	sst_put_be32(body + 32, SST_SECURE_REFUSE_NO_SUITE);
	sst_put_be32(body + 36, 0);
	refuse_to_c(body, 40, SEC / 100);
	sst_put_be32(body + 36, 9);
	refuse_to_c(body, 44, SEC / 100);
	bad += 5;
	/* The genuine refusal, but from another address. */
	sst_nego_receive(C.h, &C.self, refusal.b, refusal.len, SEC / 100);
	bad++;
	CU_ASSERT_EQUAL(sst_nego_stats(C.h)->rx_sec_refuse_bad, bad);
	CU_ASSERT_TRUE(C.nfailed == 0 && sst_nego_initiating(C.h) == 1);
	/* The attempt goes on: the handshake completes. */
	tp_deliver(&C, &S, SEC / 50);
	tp_deliver(&S, &C, SEC / 50);
	CU_ASSERT_EQUAL_FATAL(C.established, 1);
	CU_ASSERT_EQUAL(C.res[0].suite, SST_CRYPTO_CHACHA20POLY1305);
	/* After SecR1 the genuine refusal is late: ignored too. */
	sst_nego_receive(C.h, &S.self, refusal.b, refusal.len, SEC / 40);
	CU_ASSERT_EQUAL(sst_nego_stats(C.h)->rx_sec_refuse_bad, bad + 1);
	tp_deliver(&C, &S, SEC / 30);
	CU_ASSERT_TRUE(S.established == 1 && C.nfailed == 0);
	pair_fini();
}

/* A message's bytes are one budget: a second SecI1 in the same message
 * gets no refusal. The refusal carries the initiator's steering tag. */
static void
test_budget_and_tag(void)
{
	uint8_t msg[TP_MSG_MAX];
	struct sst_nego_builder b;
	struct sst_bytes i1;

	tp_init(&C, 0x43, 0x0a000001, true);
	tp_init(&S, 0x53, 0x0a000002, true);
	C.cfg.nsuites = 1;
	C.cfg.suites[0] = SST_CRYPTO_CHACHA20POLY1305;
	S.cfg.nsuites = 1;
	S.cfg.suites[0] = SST_CRYPTO_AES128GCM;
	C.p.steer_bits = 3;
	C.p.steer_tag = 5;
	tp_start(&C);
	tp_start(&S);
	sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 0);
	i1 = tp_body(&C.out[0], 0);
	sst_nego_build_begin(&b, msg, sizeof(msg));
	sst_nego_build_raw(&b, SST_NEGO_SECI1, i1.ptr, i1.len);
	sst_nego_build_raw(&b, SST_NEGO_SECI1, i1.ptr, i1.len);
	sst_nego_receive(S.h, &C.self, msg, sst_nego_build_end(&b), 0);
	CU_ASSERT_EQUAL_FATAL(S.nout, 1);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->amp_limited, 1);
	CU_ASSERT_EQUAL(sst_nego_steer_tag(S.out[0].b, S.out[0].len, 3), 5);
	tp_deliver(&S, &C, 1);
	CU_ASSERT_TRUE(C.nfailed == 1 && C.failed_error == -ENOTSUP);
	pair_fini();
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_refusal_sent),
	SST_TEST(test_refusal_bound),
	SST_TEST(test_refusal_vector),
	SST_TEST(test_initiator_gives_up),
	SST_TEST(test_forged_ignored),
	SST_TEST(test_budget_and_tag),
	SST_TEST_END,
};

int
main(void)
{
	return sst_test_run("nego_refuse", cases);
}
