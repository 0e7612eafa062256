/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steering tags (docs/negotiation.md section 8): an initiator host with
 * steer_tag/steer_bits puts the tag in the low bits of cki (checksum mode)
 * and of the last byte of ni (secure mode); sst_nego_steer_tag() reads it
 * back from the responder's ChkR1, SecCookie and SecR1 without any state,
 * returns -1 for every initiator message, ping and malformed input, and two
 * "workers" (hosts with different tags on one address) both complete their
 * handshakes when a dispatcher routes answers by the tag alone.
 * sst_nego_secure_i1_instance() reads the instance a SecI1 names.
 */
#include <errno.h>
#include <string.h>

#include "nego_pair.h"

#define SEC (SST_NSEC_PER_SEC)

static struct tp_side C, S, W[2];

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int
tag_of(const struct tp_msg *m, uint8_t bits)
{
	return sst_nego_steer_tag(m->b, m->len, bits);
}

/* Every message of a checksum and a secure handshake (with a cookie), for
 * every number of bits and every tag: answers carry the tag, nothing else
 * does. */
static void
test_each_message(void)
{
	static const uint8_t ping[8] = {0, 0x53, 0x53, 0x54, 0, 0, 0, 0};

	for (uint8_t bits = 0; bits <= SST_NEGO_STEER_BITS_MAX; bits++) {
		for (unsigned int tag = 0; tag < (1u << bits); tag += 1 + tag / 3) {
			struct sst_bytes body;

			tp_init(&C, 0x10, 0x0a000001, true);
			tp_init(&S, 0x30, 0x0a000002, true);
			tp_pin(&C, &S);
			C.p.steer_bits = bits;
			C.p.steer_tag = (uint8_t)tag;
			C.rng += tag * 131 + bits;
			tp_start(&C);
			tp_start(&S);
			/* Checksum: ChkI1 -> -1, ChkR1 -> tag, cki keeps the tag. */
			CU_ASSERT_TRUE(
				sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_CHECKSUM, 0) > 0);
			CU_ASSERT_EQUAL(tag_of(&C.out[0], bits), -1);
			body = tp_body(&C.out[0], 0);
			CU_ASSERT_EQUAL(be32(body.ptr) & ((1u << bits) - 1), tag);
			tp_deliver(&C, &S, 0);
			CU_ASSERT_EQUAL(tp_type(&S.out[0]), SST_NEGO_CHKR1);
			CU_ASSERT_EQUAL(tag_of(&S.out[0], bits), (int)tag);
			tp_deliver(&S, &C, 0);
			CU_ASSERT_EQUAL(C.established, 1);
			/* Secure, S under load: SecI1 -1, SecCookie tag, SecI1
			 * with cookie -1, SecR1 tag, SecI2 -1. */
			sst_nego_set_under_load(S.h, true);
			CU_ASSERT_TRUE(sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 0) > 0);
			CU_ASSERT_EQUAL(tag_of(&C.out[0], bits), -1);
			body = tp_body(&C.out[0], 0);
			CU_ASSERT_EQUAL(body.ptr[4 + 31] & ((1u << bits) - 1), tag);
			tp_deliver(&C, &S, 0);
			CU_ASSERT_EQUAL(tp_type(&S.out[0]), SST_NEGO_SECCOOKIE);
			CU_ASSERT_EQUAL(tag_of(&S.out[0], bits), (int)tag);
			tp_deliver(&S, &C, 0);
			CU_ASSERT_EQUAL(tag_of(&C.out[0], bits), -1);
			tp_deliver(&C, &S, 0);
			CU_ASSERT_EQUAL(tp_type(&S.out[0]), SST_NEGO_SECR1);
			CU_ASSERT_EQUAL(tag_of(&S.out[0], bits), (int)tag);
			tp_deliver(&S, &C, 0);
			CU_ASSERT_EQUAL_FATAL(C.established, 2);
			CU_ASSERT_EQUAL(tp_type(&C.out[0]), SST_NEGO_SECI2);
			CU_ASSERT_EQUAL(tag_of(&C.out[0], bits), -1);
			/* SecI2 with a Packet chunk is an initiator message too. */
			{
				uint8_t pkt[8] = {C.res[1].peer_channel};

				C.nout = 0;
				CU_ASSERT_EQUAL(
					sst_nego_send_early(C.h, &S.self, C.res[1].local_channel,
						pkt, sizeof(pkt), 0),
					0);
				CU_ASSERT_EQUAL(tag_of(&C.out[0], bits), -1);
			}
			tp_deliver(&C, &S, 0);
			CU_ASSERT_EQUAL(S.established, 2);
			CU_ASSERT_EQUAL(sst_nego_steer_tag(ping, sizeof(ping), bits), -1);
			tp_fini(&C);
			tp_fini(&S);
		}
	}
}

/* Hostile input: every truncation and every single-bit change of each
 * answer, other framing, and bits out of range. Whatever comes back is -1
 * or a tag in range, and a message that does not parse is -1. */
static void
test_malformed(void)
{
	struct tp_msg ans[3];
	uint8_t buf[TP_MSG_MAX];

	tp_init(&C, 0x10, 0x0a000001, true);
	tp_init(&S, 0x30, 0x0a000002, true);
	tp_pin(&C, &S);
	C.p.steer_bits = 3;
	C.p.steer_tag = 5;
	tp_start(&C);
	tp_start(&S);
	sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_CHECKSUM, 0);
	tp_deliver(&C, &S, 0);
	ans[0] = S.out[0];
	S.nout = 0;
	sst_nego_set_under_load(S.h, true);
	sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 0);
	tp_deliver(&C, &S, 0);
	ans[1] = S.out[0];
	tp_deliver(&S, &C, 0);
	tp_deliver(&C, &S, 0);
	ans[2] = S.out[0];
	CU_ASSERT_TRUE(
		tp_type(&ans[1]) == SST_NEGO_SECCOOKIE && tp_type(&ans[2]) == SST_NEGO_SECR1);
	for (int k = 0; k < 3; k++) {
		const struct tp_msg *m = &ans[k];

		CU_ASSERT_EQUAL(tag_of(m, 3), 5);
		CU_ASSERT_EQUAL(tag_of(m, 7), -1); /* bits out of range */
		CU_ASSERT_EQUAL(sst_nego_steer_tag(NULL, m->len, 3), -1);
		for (size_t n = 0; n < m->len; n++)
			CU_ASSERT_EQUAL(sst_nego_steer_tag(m->b, n, 3), -1);
		for (size_t i = 0; i < m->len; i++) {
			for (int bit = 0; bit < 8; bit++) {
				struct sst_nego_msg pm;
				int t;

				memcpy(buf, m->b, m->len);
				buf[i] ^= (uint8_t)(1u << bit);
				t = sst_nego_steer_tag(buf, m->len, 3);
				CU_ASSERT_TRUE(t >= -1 && t < 8);
				if (sst_nego_msg_parse(buf, m->len, &pm) != 0)
					CU_ASSERT_EQUAL(t, -1);
			}
		}
		/* Trailing bytes after the message: framing fails. */
		memcpy(buf, m->b, m->len);
		memset(buf + m->len, 0, 4);
		CU_ASSERT_EQUAL(sst_nego_steer_tag(buf, m->len + 4, 3), -1);
	}
	/* A ChkR1 that does not decode (chanr over 255) is not an answer. */
	memcpy(buf, ans[0].b, ans[0].len);
	buf[16 + 8 + 2] = 1; /* chanr = 0x1xx */
	CU_ASSERT_EQUAL(sst_nego_steer_tag(buf, ans[0].len, 3), -1);
	/* A SecR1 body shorter than ni. */
	{
		struct sst_nego_builder b;

		sst_nego_build_begin(&b, buf, sizeof(buf));
		sst_nego_build_raw(&b, SST_NEGO_SECR1, ans[2].b + 16, 28);
		CU_ASSERT_EQUAL(sst_nego_steer_tag(buf, sst_nego_build_end(&b), 3), -1);
		/* The answer after another chunk: the first chunk decides. */
		sst_nego_build_begin(&b, buf, sizeof(buf));
		sst_nego_build_raw(&b, 0x7777, NULL, 0);
		sst_nego_build_raw(&b, SST_NEGO_SECR1, ans[2].b + 16, ans[2].len - 16);
		CU_ASSERT_EQUAL(sst_nego_steer_tag(buf, sst_nego_build_end(&b), 3), -1);
		/* ... and what follows it goes with it. */
		sst_nego_build_begin(&b, buf, sizeof(buf));
		sst_nego_build_raw(&b, SST_NEGO_SECR1, ans[2].b + 16, ans[2].len - 16);
		sst_nego_build_raw(&b, SST_NEGO_SECI1, NULL, 0);
		CU_ASSERT_EQUAL(sst_nego_steer_tag(buf, sst_nego_build_end(&b), 3), 5);
	}
	/* The prototype's ChkR1 (chk-01 frame 2): cki c21c5f62 echoed. */
	{
		static const uint8_t r1[40] = {0, 0x53, 0x53, 0x54, 0, 0, 0, 1, 0, 0, 0, 0x1c, 0, 0,
			0, 0x12, 0xc2, 0x1c, 0x5f, 0x62, 0x35, 0xd5, 0x3d, 0x2a, 0, 0, 0, 1};

		CU_ASSERT_EQUAL(sst_nego_steer_tag(r1, sizeof(r1), 6), 0x62 & 63);
		CU_ASSERT_EQUAL(sst_nego_steer_tag(r1, sizeof(r1), 0), 0);
	}
	tp_fini(&C);
	tp_fini(&S);
}

/* A fixed checksum key from the hook: the tag overrides its low bits, and
 * two attempts to one peer stay distinct with the same tag. */
static uint32_t
fixed_key(void *ctx, uint8_t local_channel, const struct sst_nego_addr *peer, sst_time_t now)
{
	(void)ctx, (void)local_channel, (void)peer, (void)now;
	return 0xabcdef00;
}

static void
test_params(void)
{
	struct sst_nego_ops ops = tp_ops;
	struct sst_bytes b0, b1;

	tp_init(&C, 0x10, 0x0a000001, false);
	tp_init(&S, 0x30, 0x0a000002, false);
	C.p.steer_bits = 7;
	CU_ASSERT_EQUAL(sst_nego_host_size(&C.p), 0);
	C.p.steer_bits = 2;
	C.p.steer_tag = 4;
	CU_ASSERT_EQUAL(sst_nego_host_size(&C.p), 0);
	C.p.steer_tag = 3;
	ops.chk_key = fixed_key;
	C.p.ops = &ops;
	tp_start(&C);
	tp_start(&S);
	sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_CHECKSUM, 0);
	sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_CHECKSUM, 0);
	b0 = tp_body(&C.out[0], 0);
	b1 = tp_body(&C.out[1], 0);
	CU_ASSERT_EQUAL(be32(b0.ptr), 0xabcdef03);
	CU_ASSERT_EQUAL(be32(b1.ptr), 0xabcdef07);
	tp_deliver(&C, &S, 0);
	tp_deliver(&S, &C, 0);
	CU_ASSERT_TRUE(C.established == 2 && S.established == 2);
	CU_ASSERT_EQUAL(C.res[0].keys.tx_chk_key & 3, 3);
	tp_fini(&C);
	tp_fini(&S);
}

/* Two workers (hosts with tags 1 and 2 of 2 bits) on one address and port,
 * with disjoint channel numbers, negotiate with one responder at once; the
 * dispatcher looks at nothing but the tag. Every answer reaches the worker
 * that initiated, and both complete, in both modes, with cookies. An answer
 * handed to the other worker matches nothing there. */
static void
dispatch(sst_time_t now)
{
	unsigned int n = S.nout;

	S.nout = 0;
	for (unsigned int k = 0; k < n; k++) {
		int t = tag_of(&S.out[k], 2);

		CU_ASSERT_FATAL(t == 1 || t == 2);
		sst_nego_receive(W[t - 1].h, &S.self, S.out[k].b, S.out[k].len, now);
	}
}

static void
test_two_workers(void)
{
	struct tp_msg wrong;

	tp_init(&S, 0x30, 0x0a000002, true);
	for (int w = 0; w < 2; w++) {
		tp_init(&W[w], 0x10, 0x0a000001, true); /* one host identity, one port */
		tp_pin(&W[w], &S);
		W[w].rng += (uint64_t)w * 7919;
		W[w].p.instance = 42; /* one process */
		W[w].p.steer_bits = 2;
		W[w].p.steer_tag = (uint8_t)(w + 1);
		/* Worker w hands out numbers w*128 + 1 ..: disjoint. */
		for (int c = 1; c < 256; c++)
			W[w].chans.used[c] = (uint8_t)((c - 1) / 128 != w || c == 128);
	}
	S.kh.n = 1; /* pinned once is enough: both workers hold that key */
	/* One address: under load its cookie-proven setups share one rate
	 * (5 at once by default); this test is about routing, not that. */
	S.p.rate_burst = 16;
	for (int w = 0; w < 2; w++)
		tp_start(&W[w]);
	tp_start(&S);
	sst_nego_set_under_load(S.h, true);
	for (int round = 0; round < 2; round++) {
		enum sst_nego_mode mode = round ? SST_NEGO_MODE_SECURE : SST_NEGO_MODE_CHECKSUM;

		for (int w = 0; w < 2; w++)
			for (int k = 0; k < 3; k++)
				CU_ASSERT_TRUE(sst_nego_connect(W[w].h, &S.self, mode, SEC) > 0);
		for (int step = 0; step < 4; step++) {
			tp_deliver(&W[0], &S, SEC);
			tp_deliver(&W[1], &S, SEC);
			dispatch(SEC);
		}
		CU_ASSERT_EQUAL(W[0].established, 3u * (round + 1));
		CU_ASSERT_EQUAL(W[1].established, 3u * (round + 1));
		CU_ASSERT_EQUAL(S.established, 6u * (round + 1));
		CU_ASSERT_TRUE(
			sst_nego_initiating(W[0].h) == 0 && sst_nego_initiating(W[1].h) == 0);
	}
	for (int w = 0; w < 2; w++)
		for (unsigned int k = 0; k < W[w].established; k++)
			CU_ASSERT_EQUAL((W[w].res[k].local_channel - 1) / 128, w);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->peer_restarts, 0); /* one instance */
	/* The other worker does not know the attempt. */
	sst_nego_connect(W[0].h, &S.self, SST_NEGO_MODE_CHECKSUM, 2 * SEC);
	sst_nego_set_under_load(S.h, false);
	tp_deliver(&W[0], &S, 2 * SEC);
	wrong = S.out[0];
	CU_ASSERT_EQUAL(tag_of(&wrong, 2), 1);
	sst_nego_receive(W[1].h, &S.self, wrong.b, wrong.len, 2 * SEC);
	CU_ASSERT_EQUAL(sst_nego_stats(W[1].h)->rx_r1_unmatched, 1);
	dispatch(2 * SEC);
	CU_ASSERT_EQUAL(W[0].established, 7);
	tp_fini(&W[0]);
	tp_fini(&W[1]);
	tp_fini(&S);
}

/* The instance a SecI1 names, read without a host (a sharded engine hands
 * the SecI1 of a moved peer to the worker that holds it): found in a
 * SecI1, not in a ChkI1, a SecI1 whose blob has none, or a cut message. */
static void
test_secure_i1_instance(void)
{
	uint64_t instance = 0;

	for (int legacy = 0; legacy < 2; legacy++) {
		tp_init(&C, 0x10, 0x0a000001, true);
		tp_init(&S, 0x30, 0x0a000002, true);
		C.p.instance = UINT64_C(0x1122334455667788);
		C.p.ulp_legacy = legacy;
		tp_start(&C);
		CU_ASSERT_TRUE(sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_CHECKSUM, 0) > 0);
		CU_ASSERT_TRUE(sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 0) > 0);
		CU_ASSERT_EQUAL(tp_type(&C.out[1]), SST_NEGO_SECI1);
		CU_ASSERT_EQUAL(
			sst_nego_secure_i1_instance(C.out[0].b, C.out[0].len, &instance), -EINVAL);
		CU_ASSERT_EQUAL(sst_nego_secure_i1_instance(C.out[1].b, C.out[1].len, &instance),
			legacy ? -ENOENT : 0);
		CU_ASSERT_EQUAL(
			sst_nego_secure_i1_instance(C.out[1].b, C.out[1].len - 1, &instance),
			-EINVAL);
		CU_ASSERT_EQUAL(sst_nego_secure_i1_instance(NULL, 0, &instance), -EINVAL);
		tp_fini(&C);
		tp_fini(&S);
	}
	CU_ASSERT_EQUAL(instance, UINT64_C(0x1122334455667788));
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_each_message),
	SST_TEST(test_secure_i1_instance),
	SST_TEST(test_malformed),
	SST_TEST(test_params),
	SST_TEST(test_two_workers),
	SST_TEST_END,
};

SST_TEST_MAIN("nego_steer", cases)
