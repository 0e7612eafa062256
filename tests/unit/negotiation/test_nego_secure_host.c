/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Secure mode in the negotiation host (lib/negotiation/nego_secure_host.c,
 * docs/negotiation.md section 2.2): two hosts exchange SecI1, SecR1, SecI2
 * and SecCookie in memory with deterministic randomness. Checked: mirrored
 * results and channel parameters; retransmissions give identical bytes and
 * no second state; every byte of every message flipped, every truncation,
 * and replays create nothing; the cookie path keeps zero state per unproven
 * initiator (by the table's counters); the half-open limit, eviction and
 * expiry; the 3x amplification bound; the per-source rate limit under load;
 * policy (pinned, TOFU, anonymous); Packet chunks after SecI2.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <sodium.h>

#include "nego_secure.h"
#include "sst_error.h"
#include "sst_negotiation.h"
#include "sst_test.h"
#include "sst_test_chans.h"
#include "sst_test_rng.h"

enum { MSG_MAX = 600, OUT_MAX = 1100, NRES = 8 };

#define SEC (SST_NSEC_PER_SEC)

/* Deterministic randomness: a splitmix64 stream per host. */
struct test_rng {
	uint64_t x;
};

static void
test_random(void *ctx, void *buf, size_t len)
{
	struct test_rng *r = ctx;

	sst_test_splitmix_fill(&r->x, buf, len);
}

struct out_msg {
	struct sst_nego_addr to;
	size_t len;
	uint8_t b[MSG_MAX];
};

/* One host under test with its application. */
struct side {
	struct sst_nego_host *h;
	struct sst_nego_addr self;
	struct sst_secure_identity id;
	struct sst_secure_host hosts[4];
	struct sst_secure_known_hosts kh;
	struct sst_secure_config cfg;
	struct test_rng rng;
	struct out_msg out[OUT_MAX];
	unsigned int nout;
	struct sst_test_chans chans;
	unsigned int established;
	struct sst_nego_result res[NRES];
	unsigned int npackets;
	uint8_t pkt[64];
	size_t pkt_len;
	int refuse;
};

static struct side C, S;

static void
on_transmit(void *ctx, const struct sst_nego_addr *to, const void *msg, size_t len, sst_time_t now)
{
	struct side *s = ctx;

	(void)now;
	CU_ASSERT_FATAL(s->nout < OUT_MAX && len <= MSG_MAX);
	s->out[s->nout].to = *to;
	s->out[s->nout].len = len;
	memcpy(s->out[s->nout].b, msg, len);
	s->nout++;
}

static int
on_alloc(void *ctx, const struct sst_nego_addr *peer)
{
	struct side *s = ctx;

	(void)peer;
	return sst_test_chan_take(&s->chans);
}

static void
on_free(void *ctx, const struct sst_nego_addr *peer, uint8_t chan)
{
	struct side *s = ctx;

	(void)peer;
	CU_ASSERT_TRUE(sst_test_chan_give(&s->chans, chan));
}

static int
on_established(void *ctx, const struct sst_nego_result *r, sst_time_t now)
{
	struct side *s = ctx;

	(void)now;
	s->res[s->established % NRES] = *r;
	s->established++;
	return s->refuse;
}

static void
on_packet(void *ctx, const struct sst_nego_addr *peer, uint8_t chan, const void *pkt, size_t len,
	sst_time_t now)
{
	(void)peer;
	struct side *s = ctx;

	(void)chan;
	(void)now;
	s->npackets++;
	s->pkt_len = RTE_MIN(len, sizeof(s->pkt));
	memcpy(s->pkt, pkt, s->pkt_len);
}

static const char *
on_peer_name(void *ctx, const struct sst_nego_addr *peer)
{
	(void)peer;
	return ctx == &C ? "server" : NULL;
}

static const struct sst_nego_ops ops = {
	.transmit = on_transmit,
	.chan_alloc = on_alloc,
	.chan_free = on_free,
	.established = on_established,
	.packet = on_packet,
	.peer_name = on_peer_name,
};

static struct sst_nego_addr
addr_of(uint32_t ip, uint16_t port)
{
	struct sst_nego_addr a = {.len = 6};

	a.bytes[0] = (uint8_t)(ip >> 24);
	a.bytes[1] = (uint8_t)(ip >> 16);
	a.bytes[2] = (uint8_t)(ip >> 8);
	a.bytes[3] = (uint8_t)ip;
	a.bytes[4] = (uint8_t)(port >> 8);
	a.bytes[5] = (uint8_t)port;
	return a;
}

/* Host parameters that tests adjust before side_start(). */
static struct sst_nego_host_params P[2];

static void
side_init(struct side *s, uint8_t seed_byte, uint8_t rng_base, uint32_t ip)
{
	struct sst_nego_host_params *p = &P[s == &S];
	uint8_t seed[32];

	memset(s, 0, sizeof(*s));
	for (int i = 0; i < 32; i++)
		seed[i] = (uint8_t)(seed_byte + i);
	CU_ASSERT_EQUAL(sst_secure_identity_from_seed(&s->id, seed), 0);
	s->self = addr_of(ip, 4000);
	s->kh = (struct sst_secure_known_hosts){s->hosts, 4, 0};
	s->rng.x = rng_base;
	s->cfg.size = sizeof(s->cfg);
	s->cfg.identity = &s->id;
	s->cfg.policy = SST_SECURE_PINNED;
	s->cfg.known_hosts = &s->kh;
	sst_secure_suites_default(&s->cfg, true, false);
	s->cfg.random = test_random;
	s->cfg.random_ctx = &s->rng;
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	memset(p->secret, seed_byte, sizeof(p->secret));
	p->ulp_caps = SST_NEGO_CAP_ALL;
	p->ops = &ops;
	p->ctx = s;
	p->secure = &s->cfg;
}

/* A host in test memory (sst_nego_host_create() needs the EAL). */
static struct sst_nego_host *
host_new(const struct sst_nego_host_params *p)
{
	size_t size = sst_nego_host_size(p);
	struct sst_nego_host *h;

	CU_ASSERT_FATAL(size != 0);
	h = aligned_alloc(64, RTE_ALIGN_CEIL(size, 64));
	CU_ASSERT_FATAL(h != NULL);
	CU_ASSERT_EQUAL_FATAL(sst_nego_host_init(h, p), 0);
	return h;
}

static void
host_free(struct sst_nego_host *h)
{
	if (h == NULL)
		return;
	sst_nego_host_fini(h);
	free(h);
}

static void
side_start(struct side *s)
{
	s->h = host_new(&P[s == &S]);
}

static void
side_stop(struct side *s)
{
	host_free(s->h);
	s->h = NULL;
	sst_secure_identity_wipe(&s->id);
}

/* A pinned client C (10.0.0.1) and server S (10.0.0.2), not started. */
static void
pair_init(void)
{
	side_init(&C, 0x00, 0x40, 0x0a000001);
	side_init(&S, 0x20, 0x80, 0x0a000002);
	CU_ASSERT_EQUAL(sst_secure_known_hosts_add(&C.kh, "server", S.id.pk), 0);
	CU_ASSERT_EQUAL(sst_secure_known_hosts_add(&S.kh, "client", C.id.pk), 0);
}

static void
pair_start(void)
{
	side_start(&C);
	side_start(&S);
}

static void
pair_stop(void)
{
	side_stop(&C);
	side_stop(&S);
}

/* Deliver every message from one side to the other; returns how many. */
static unsigned int
deliver(struct side *from, struct side *to, sst_time_t now)
{
	unsigned int n = from->nout;

	from->nout = 0;
	for (unsigned int k = 0; k < n; k++)
		sst_nego_receive(to->h, &from->self, from->out[k].b, from->out[k].len, now);
	return n;
}

/* The chunk type of a one-chunk message. */
static int32_t
type_of(const struct out_msg *m)
{
	struct sst_nego_msg pm;
	struct sst_nego_iter it;
	struct sst_nego_chunk c;

	if (sst_nego_msg_parse(m->b, m->len, &pm) != 0 || pm.nchunks != 1)
		return -1;
	sst_nego_iter_init(&it, &pm);
	sst_nego_iter_next(&it, &c);
	return c.type;
}

/* Run a full handshake C -> S at time now; returns C's channel. */
static int
handshake(sst_time_t now)
{
	int chan = sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, now);

	CU_ASSERT_TRUE(chan > 0);
	deliver(&C, &S, now);
	deliver(&S, &C, now);
	deliver(&C, &S, now);
	return chan;
}

static void
check_mirrored(const struct sst_nego_result *i, const struct sst_nego_result *r)
{
	CU_ASSERT_EQUAL(i->mode, SST_NEGO_MODE_SECURE);
	CU_ASSERT_EQUAL(i->role, SST_NEGO_INITIATOR);
	CU_ASSERT_EQUAL(r->role, SST_NEGO_RESPONDER);
	CU_ASSERT_EQUAL(i->suite, r->suite);
	CU_ASSERT_EQUAL(i->local_channel, r->peer_channel);
	CU_ASSERT_EQUAL(i->peer_channel, r->local_channel);
	CU_ASSERT_EQUAL(memcmp(i->keys.tx_key, r->keys.rx_key, sizeof(i->keys.tx_key)), 0);
	CU_ASSERT_EQUAL(memcmp(i->keys.rx_key, r->keys.tx_key, sizeof(i->keys.rx_key)), 0);
	CU_ASSERT_EQUAL(memcmp(i->keys.tx_iv, r->keys.rx_iv, sizeof(i->keys.tx_iv)), 0);
	CU_ASSERT_EQUAL(i->keys.tx_chk_key, r->keys.rx_chk_key);
	CU_ASSERT_NOT_EQUAL(memcmp(i->keys.tx_key, i->keys.rx_key, sizeof(i->keys.tx_key)), 0);
	CU_ASSERT_EQUAL(i->hcid_len, SST_NEGO_HCID_SEC_LEN);
	CU_ASSERT_EQUAL(r->hcid_len, SST_NEGO_HCID_SEC_LEN);
	CU_ASSERT_EQUAL(memcmp(i->tx_hcid, r->rx_hcid, SST_NEGO_HCID_SEC_LEN), 0);
	CU_ASSERT_EQUAL(memcmp(i->rx_hcid, r->tx_hcid, SST_NEGO_HCID_SEC_LEN), 0);
	CU_ASSERT_EQUAL(memcmp(&i->root_usid, &r->root_usid, sizeof(i->root_usid)), 0);
	CU_ASSERT_EQUAL(memcmp(i->root_usid.hcid, i->tx_hcid, SST_NEGO_HCID_SEC_LEN), 0);
	CU_ASSERT_TRUE(i->peer_ulp.extended && r->peer_ulp.extended);
	CU_ASSERT_EQUAL(i->common_caps, SST_NEGO_CAP_ALL);
}

static void
test_round_trip(void)
{
	struct sst_channel_params pi, pr;
	const struct sst_nego_stats *ss, *cs;
	int chan;

	pair_init();
	pair_start();
	chan = sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 0);
	CU_ASSERT_EQUAL(chan, 1);
	CU_ASSERT_EQUAL(C.nout, 1);
	CU_ASSERT_EQUAL(type_of(&C.out[0]), SST_NEGO_SECI1);
	CU_ASSERT_EQUAL(sst_nego_initiating(C.h), 1);
	deliver(&C, &S, 0);
	CU_ASSERT_EQUAL(S.nout, 1);
	CU_ASSERT_EQUAL(type_of(&S.out[0]), SST_NEGO_SECR1);
	CU_ASSERT_EQUAL(S.out[0].len, 260); /* 240 + ulpr (20): docs/secure-mode.md 3.3 */
	CU_ASSERT_EQUAL(sst_nego_half_open(S.h), 1);
	CU_ASSERT_EQUAL(sst_nego_responding(S.h), 1);
	CU_ASSERT_EQUAL(S.established, 0);
	CU_ASSERT_NOT_EQUAL(sst_nego_next_expiry(S.h), SST_TIME_NEVER);
	deliver(&S, &C, 0);
	/* The initiator is established on SecR1 and sends SecI2. */
	CU_ASSERT_EQUAL(C.established, 1);
	CU_ASSERT_EQUAL(C.nout, 1);
	CU_ASSERT_EQUAL(type_of(&C.out[0]), SST_NEGO_SECI2);
	CU_ASSERT_EQUAL(C.out[0].len, 172);
	CU_ASSERT_EQUAL(sst_nego_initiating(C.h), 0);
	deliver(&C, &S, 0);
	CU_ASSERT_EQUAL(S.established, 1);
	CU_ASSERT_EQUAL(sst_nego_half_open(S.h), 0);
	CU_ASSERT_EQUAL(sst_nego_responding(S.h), 1);
	check_mirrored(&C.res[0], &S.res[0]);
	CU_ASSERT_EQUAL(C.res[0].suite, SST_CRYPTO_AES128GCM);
	CU_ASSERT_EQUAL(C.res[0].peer_status, SST_SECURE_PEER_KNOWN);
	CU_ASSERT_EQUAL(S.res[0].peer_status, SST_SECURE_PEER_KNOWN);
	CU_ASSERT_EQUAL(memcmp(C.res[0].peer_id, S.id.pk, 32), 0);
	CU_ASSERT_EQUAL(memcmp(S.res[0].peer_id, C.id.pk, 32), 0);
	CU_ASSERT_EQUAL(sst_nego_channel_params(&C.res[0], &pi), 0);
	CU_ASSERT_EQUAL(sst_nego_channel_params(&S.res[0], &pr), 0);
	CU_ASSERT_EQUAL(pi.suite, SST_CRYPTO_AES128GCM);
	CU_ASSERT_EQUAL(pi.local_channel, pr.peer_channel);
	CU_ASSERT_EQUAL(memcmp(pi.keys.tx_key, pr.keys.rx_key, sizeof(pi.keys.tx_key)), 0);
	/* SecI2 is repeated until confirmed. */
	CU_ASSERT_EQUAL(sst_nego_confirm(C.h, &S.self, (uint8_t)chan), 0);
	CU_ASSERT_EQUAL(sst_nego_confirm(C.h, &S.self, (uint8_t)chan), -ENOENT);
	CU_ASSERT_EQUAL(sst_nego_next_expiry(C.h), SST_TIME_NEVER);
	cs = sst_nego_stats(C.h);
	ss = sst_nego_stats(S.h);
	CU_ASSERT_TRUE(cs->tx_sec_i1 == 1 && cs->tx_sec_i2 == 1 && cs->rx_sec_r1 == 1);
	CU_ASSERT_TRUE(cs->established_initiator == 1 && cs->confirmed == 1);
	CU_ASSERT_TRUE(ss->rx_sec_i1 == 1 && ss->tx_sec_r1 == 1 && ss->rx_sec_i2 == 1);
	CU_ASSERT_TRUE(ss->established_responder == 1 && ss->amp_limited == 0);
	CU_ASSERT_TRUE(ss->amp_tx_bytes == 260 && ss->amp_rx_bytes == 128);
	/* Numbers: C's and S's channels are the caller's. */
	CU_ASSERT_TRUE(C.chans.in_use == 1 && S.chans.in_use == 1);
	CU_ASSERT_EQUAL(sst_nego_release(S.h, &C.self, S.res[0].local_channel, (uint8_t)chan), 0);
	CU_ASSERT_EQUAL(sst_nego_responding(S.h), 0);
	pair_stop();
}

/* Suites: CHK32 only when both allow it; channel params take its keys. */
static void
test_suites(void)
{
	struct sst_channel_params p;

	for (int both = 0; both < 2; both++) {
		pair_init();
		sst_secure_suites_default(&C.cfg, true, true);
		sst_secure_suites_default(&S.cfg, false, both != 0);
		pair_start();
		handshake(0);
		CU_ASSERT_EQUAL_FATAL(S.established, 1);
		CU_ASSERT_EQUAL(
			C.res[0].suite, both ? SST_CRYPTO_CHK32 : SST_CRYPTO_CHACHA20POLY1305);
		check_mirrored(&C.res[0], &S.res[0]);
		CU_ASSERT_EQUAL(sst_nego_channel_params(&C.res[0], &p), 0);
		CU_ASSERT_EQUAL(p.suite, C.res[0].suite);
		CU_ASSERT_EQUAL(p.keys.tx_chk_key, S.res[0].keys.rx_chk_key);
		pair_stop();
	}
	/* No mutual suite: S refuses (SecRefuse, test_nego_refuse.c) and
	 * keeps nothing. */
	pair_init();
	C.cfg.nsuites = 1;
	C.cfg.suites[0] = SST_CRYPTO_CHK32;
	pair_start();
	sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 0);
	deliver(&C, &S, 0);
	CU_ASSERT_EQUAL(S.nout, 1);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->rx_sec_i1_refused, 1);
	CU_ASSERT_TRUE(sst_nego_responding(S.h) == 0 && S.chans.in_use == 0);
	pair_stop();
}

/* Retransmitted SecI1 gets the same SecR1 and no second state; SecI2 is
 * repeated on the schedule, a repeated SecI2 creates nothing new. */
static void
test_retransmissions(void)
{
	struct out_msg i1, r1, i2;
	sst_time_t t;

	pair_init();
	pair_start();
	sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 0);
	i1 = C.out[0];
	C.nout = 0;
	t = sst_nego_next_expiry(C.h);
	CU_ASSERT_EQUAL(t, SST_NEGO_RETX_INITIAL);
	sst_nego_handle_expiry(C.h, t);
	CU_ASSERT_TRUE(
		C.nout == 1 && C.out[0].len == i1.len && memcmp(C.out[0].b, i1.b, i1.len) == 0);
	sst_nego_receive(S.h, &C.self, i1.b, i1.len, t);
	r1 = S.out[0];
	S.nout = 0;
	deliver(&C, &S, t);
	CU_ASSERT_TRUE(
		S.nout == 1 && S.out[0].len == r1.len && memcmp(S.out[0].b, r1.b, r1.len) == 0);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->rx_sec_i1_duplicate, 1);
	CU_ASSERT_TRUE(sst_nego_responding(S.h) == 1 && S.chans.in_use == 1);
	S.nout = 0;
	sst_nego_receive(C.h, &S.self, r1.b, r1.len, t);
	CU_ASSERT_EQUAL(C.established, 1);
	i2 = C.out[0];
	C.nout = 0;
	/* A second copy of SecR1 matches nothing now. */
	sst_nego_receive(C.h, &S.self, r1.b, r1.len, t);
	CU_ASSERT_EQUAL(C.established, 1);
	CU_ASSERT_EQUAL(sst_nego_stats(C.h)->rx_sec_r1_unmatched, 1);
	/* SecI2 at +0.5 s, +1.5 s, ... identical, until 20 s. */
	for (int k = 0; k < 10 && sst_nego_next_expiry(C.h) != SST_TIME_NEVER; k++)
		sst_nego_handle_expiry(C.h, sst_nego_next_expiry(C.h));
	CU_ASSERT_EQUAL(sst_nego_next_expiry(C.h), SST_TIME_NEVER);
	CU_ASSERT_EQUAL(C.nout, 5);
	for (unsigned int k = 0; k < C.nout; k++)
		CU_ASSERT_TRUE(C.out[k].len == i2.len && memcmp(C.out[k].b, i2.b, i2.len) == 0);
	CU_ASSERT_EQUAL(sst_nego_stats(C.h)->unconfirmed, 1);
	CU_ASSERT_EQUAL(C.chans.in_use, 1); /* still the caller's channel */
	sst_nego_receive(S.h, &C.self, i2.b, i2.len, t);
	deliver(&C, &S, t);
	CU_ASSERT_EQUAL(S.established, 1);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->rx_sec_i2_duplicate, 5);
	/* SecI1 again after establishment: ignored, nothing sent. */
	sst_nego_receive(S.h, &C.self, i1.b, i1.len, t);
	CU_ASSERT_TRUE(S.nout == 0 && sst_nego_responding(S.h) == 1 && S.chans.in_use == 1);
	pair_stop();
}

/* Hand a message with byte k flipped (bit b), or cut to k bytes, to h. */
static void
send_variant(struct sst_nego_host *h, const struct sst_nego_addr *from, const struct out_msg *m,
	size_t k, int bit, sst_time_t now)
{
	uint8_t buf[MSG_MAX];

	memcpy(buf, m->b, m->len);
	if (bit < 0) {
		sst_nego_receive(h, from, buf, k, now);
		return;
	}
	buf[k] ^= (uint8_t)(1u << bit);
	sst_nego_receive(h, from, buf, m->len, now);
}

/* Every bit 0 and 7 of every byte, and every truncation, of SecI1, SecR1
 * and SecI2: no channel anywhere, and the genuine messages still work. */
static void
test_tamper(void)
{
	struct out_msg i1, r1, i2;
	unsigned int fresh = 0;

	pair_init();
	P[1].rate_burst = 10000; /* hundreds of variants at once */
	pair_start();
	sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 0);
	i1 = C.out[0];
	C.nout = 0;
	/* SecI1 variants (offer included): S may answer one (SecI1 is not
	 * authenticated), but whatever SecR1 comes back fails at C. */
	for (size_t k = 0; k < i1.len; k++) {
		for (int bit = -1; bit <= 7; bit += 8) {
			if (bit < 0 && k == 0)
				continue;
			send_variant(S.h, &C.self, &i1, k, bit, 0);
			for (unsigned int j = 0; j < S.nout; j++)
				sst_nego_receive(C.h, &S.self, S.out[j].b, S.out[j].len, 0);
			fresh += S.nout;
			S.nout = 0;
			CU_ASSERT_EQUAL_FATAL(C.established, 0);
			CU_ASSERT_EQUAL(S.established, 0);
		}
	}
	CU_ASSERT_TRUE(fresh > 0);
	CU_ASSERT_EQUAL(C.nout, 0);
	CU_ASSERT_EQUAL(
		sst_nego_stats(C.h)->rx_sec_r1_bad + sst_nego_stats(C.h)->rx_sec_r1_unmatched,
		fresh);
	/* Clear S's half-open entries of the variants. */
	sst_nego_handle_expiry(S.h, SST_NEGO_HALF_OPEN_TTL);
	CU_ASSERT_TRUE(sst_nego_responding(S.h) == 0 && S.chans.in_use == 0);
	sst_nego_receive(S.h, &C.self, i1.b, i1.len, SST_NEGO_HALF_OPEN_TTL);
	r1 = S.out[0];
	S.nout = 0;
	for (size_t k = 0; k < r1.len; k++)
		for (int bit = -1; bit <= 7; bit += 8)
			if (bit >= 0 || k > 0)
				send_variant(C.h, &S.self, &r1, k, bit, 0);
	CU_ASSERT_TRUE(C.established == 0 && C.nout == 0);
	sst_nego_receive(C.h, &S.self, r1.b, r1.len, 0);
	CU_ASSERT_EQUAL_FATAL(C.established, 1);
	i2 = C.out[0];
	C.nout = 0;
	for (size_t k = 0; k < i2.len; k++)
		for (int bit = -1; bit <= 7; bit += 8)
			if (bit >= 0 || k > 0)
				send_variant(S.h, &C.self, &i2, k, bit, SST_NEGO_HALF_OPEN_TTL);
	CU_ASSERT_TRUE(S.established == 0 && S.nout == 0 && sst_nego_half_open(S.h) == 1);
	CU_ASSERT_TRUE(sst_nego_stats(S.h)->rx_sec_i2_bad > 0);
	sst_nego_receive(S.h, &C.self, i2.b, i2.len, SST_NEGO_HALF_OPEN_TTL);
	CU_ASSERT_EQUAL(S.established, 1);
	check_mirrored(&C.res[0], &S.res[0]);
	pair_stop();
}

/* A replayed handshake: after S released the channel, the old SecI1 makes
 * a half-open entry that the old SecI2 cannot complete (new nr). */
static void
test_replay(void)
{
	struct out_msg i1, i2;

	pair_init();
	pair_start();
	sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 0);
	i1 = C.out[0];
	deliver(&C, &S, 0);
	deliver(&S, &C, 0);
	i2 = C.out[0];
	deliver(&C, &S, 0);
	CU_ASSERT_EQUAL_FATAL(S.established, 1);
	CU_ASSERT_EQUAL(sst_nego_release(S.h, &C.self, S.res[0].local_channel, 1), 0);
	sst_nego_receive(S.h, &C.self, i1.b, i1.len, 30 * SEC);
	CU_ASSERT_EQUAL(sst_nego_half_open(S.h), 1);
	sst_nego_receive(S.h, &C.self, i2.b, i2.len, 30 * SEC);
	CU_ASSERT_EQUAL(S.established, 1);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->rx_sec_i2_unmatched, 1);
	/* The replayed entry expires and gives its number back. */
	sst_nego_handle_expiry(S.h, 30 * SEC + SST_NEGO_HALF_OPEN_TTL);
	CU_ASSERT_TRUE(sst_nego_half_open(S.h) == 0 && sst_nego_responding(S.h) == 0);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->half_open_expired, 1);
	CU_ASSERT_EQUAL(S.chans.in_use, 1); /* the released channel is still the caller's */
	pair_stop();
}

/* Under load: 1000 SecI1 from unproven addresses get SecCookie and zero
 * state; the real initiator answers the cookie and gets a channel. */
static void
test_cookie_under_load(void)
{
	const struct sst_nego_stats *ss;
	struct out_msg i1;
	uint8_t bad[MSG_MAX];

	pair_init();
	pair_start();
	sst_nego_set_under_load(S.h, true);
	sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 0);
	i1 = C.out[0];
	for (uint32_t k = 0; k < 1000; k++) {
		struct sst_nego_addr a = addr_of(0xc6120000 + k, 5000);

		sst_nego_receive(S.h, &a, i1.b, i1.len, k);
		CU_ASSERT_EQUAL(S.nout, 1);
		CU_ASSERT_EQUAL(type_of(&S.out[0]), SST_NEGO_SECCOOKIE);
		CU_ASSERT_EQUAL(S.out[0].len, 68);
		S.nout = 0;
		CU_ASSERT_TRUE(sst_nego_responding(S.h) == 0 && sst_nego_half_open(S.h) == 0);
	}
	ss = sst_nego_stats(S.h);
	CU_ASSERT_EQUAL(ss->rx_sec_i1_challenged, 1000);
	CU_ASSERT_EQUAL(S.chans.in_use, 0);
	CU_ASSERT_TRUE(ss->amp_tx_bytes <= 3 * ss->amp_rx_bytes);
	/* The cookie of another address does not pass. */
	deliver(&C, &S, 0);
	CU_ASSERT_EQUAL(type_of(&S.out[0]), SST_NEGO_SECCOOKIE);
	deliver(&S, &C, 0);
	CU_ASSERT_EQUAL(sst_nego_stats(C.h)->rx_sec_cookie, 1);
	CU_ASSERT_EQUAL(C.nout, 1);
	i1 = C.out[0];
	{
		struct sst_nego_addr other = addr_of(0x0a000009, 4000);

		sst_nego_receive(S.h, &other, i1.b, i1.len, 0);
		CU_ASSERT_TRUE(sst_nego_responding(S.h) == 0 && S.nout == 1);
		S.nout = 0;
	}
	/* A flipped cookie byte does not pass either. */
	memcpy(bad, i1.b, i1.len);
	bad[i1.len - 1] ^= 1;
	sst_nego_receive(S.h, &C.self, bad, i1.len, 0);
	CU_ASSERT_TRUE(sst_nego_responding(S.h) == 0 && S.nout == 1);
	S.nout = 0;
	/* The genuine one does. */
	deliver(&C, &S, 0);
	CU_ASSERT_EQUAL(ss->rx_sec_i1_cookie_ok, 1);
	CU_ASSERT_TRUE(sst_nego_half_open(S.h) == 1 && S.nout == 1);
	CU_ASSERT_EQUAL(type_of(&S.out[0]), SST_NEGO_SECR1);
	deliver(&S, &C, 0);
	deliver(&C, &S, 0);
	CU_ASSERT_TRUE(C.established == 1 && S.established == 1);
	check_mirrored(&C.res[0], &S.res[0]);
	/* A retransmitted cookie SecI1 while under load: same SecR1. */
	CU_ASSERT_EQUAL(ss->rx_sec_i1_challenged, 1003);
	/* Cookies expire: two rotation periods later the same SecI1 is
	 * challenged again (after the channel is released). */
	CU_ASSERT_EQUAL(sst_nego_release(S.h, &C.self, S.res[0].local_channel, 1), 0);
	sst_nego_handle_expiry(S.h, SST_NEGO_COOKIE_PERIOD);
	sst_nego_handle_expiry(S.h, 2 * SST_NEGO_COOKIE_PERIOD);
	sst_nego_receive(S.h, &C.self, i1.b, i1.len, 2 * SST_NEGO_COOKIE_PERIOD);
	CU_ASSERT_TRUE(sst_nego_responding(S.h) == 0 && S.nout == 1);
	CU_ASSERT_EQUAL(type_of(&S.out[0]), SST_NEGO_SECCOOKIE);
	pair_stop();
}

/* The half-open limit: beyond it SecI1 is challenged; a proven initiator
 * takes the oldest half-open entry's place. */
static void
test_half_open_limit(void)
{
	const struct sst_nego_stats *ss;

	pair_init();
	P[1].max_half_open = 4;
	pair_start();
	ss = sst_nego_stats(S.h);
	for (int k = 0; k < 4; k++)
		sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 0);
	deliver(&C, &S, 0);
	CU_ASSERT_TRUE(sst_nego_half_open(S.h) == 4 && S.nout == 4);
	S.nout = 0;
	sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 0);
	deliver(&C, &S, 0);
	CU_ASSERT_TRUE(sst_nego_half_open(S.h) == 4 && S.nout == 1);
	CU_ASSERT_EQUAL(type_of(&S.out[0]), SST_NEGO_SECCOOKIE);
	deliver(&S, &C, 0);
	deliver(&C, &S, 0);
	CU_ASSERT_EQUAL(ss->rx_sec_i1_cookie_ok, 1);
	CU_ASSERT_EQUAL(ss->half_open_evicted, 1);
	CU_ASSERT_TRUE(sst_nego_half_open(S.h) == 4 && S.chans.in_use == 4);
	CU_ASSERT_EQUAL(type_of(&S.out[0]), SST_NEGO_SECR1);
	deliver(&S, &C, 0);
	deliver(&C, &S, 0);
	CU_ASSERT_TRUE(C.established == 1 && S.established == 1);
	/* The other three expire after SST_NEGO_HALF_OPEN_TTL. */
	CU_ASSERT_EQUAL(sst_nego_next_expiry(S.h), SST_NEGO_HALF_OPEN_TTL);
	sst_nego_handle_expiry(S.h, SST_NEGO_HALF_OPEN_TTL);
	CU_ASSERT_TRUE(sst_nego_half_open(S.h) == 0 && sst_nego_responding(S.h) == 1);
	CU_ASSERT_TRUE(ss->half_open_expired == 3 && S.chans.in_use == 1);
	pair_stop();
}

/* The 3x rule, with a stricter factor so that SecR1 (260 bytes) exceeds
 * 1x a SecI1 (128): the first SecI1 is challenged, the proven one answered. */
static void
test_amplification(void)
{
	const struct sst_nego_stats *ss;

	pair_init();
	P[1].amp_factor = 1;
	pair_start();
	ss = sst_nego_stats(S.h);
	sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 0);
	deliver(&C, &S, 0);
	CU_ASSERT_TRUE(S.nout == 1 && type_of(&S.out[0]) == SST_NEGO_SECCOOKIE);
	CU_ASSERT_TRUE(ss->amp_limited == 1 && sst_nego_responding(S.h) == 0);
	CU_ASSERT_TRUE(ss->amp_tx_bytes == 68 && ss->amp_rx_bytes == 128);
	deliver(&S, &C, 0);
	deliver(&C, &S, 0);
	CU_ASSERT_TRUE(S.nout == 1 && type_of(&S.out[0]) == SST_NEGO_SECR1);
	deliver(&S, &C, 0);
	deliver(&C, &S, 0);
	CU_ASSERT_TRUE(C.established == 1 && S.established == 1);
	pair_stop();
	/* Factor 3: duplicates of an unproven SecI1 are answered within 3x. */
	pair_init();
	pair_start();
	ss = sst_nego_stats(S.h);
	sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 0);
	for (int k = 0; k < 5; k++)
		sst_nego_receive(S.h, &C.self, C.out[0].b, C.out[0].len, 0);
	CU_ASSERT_EQUAL(S.nout, 5);
	CU_ASSERT_TRUE(ss->amp_tx_bytes <= 3 * ss->amp_rx_bytes);
	/* Two SecI1 chunks in one message share its budget. */
	{
		uint8_t two[2 * MSG_MAX];
		struct sst_nego_builder b;
		size_t body = C.out[0].len - 16, len;

		sst_nego_build_begin(&b, two, sizeof(two));
		sst_nego_build_raw(&b, SST_NEGO_SECI1, C.out[0].b + 16, body);
		sst_nego_build_raw(&b, SST_NEGO_SECI1, C.out[0].b + 16, body);
		len = sst_nego_build_end(&b);
		S.nout = 0;
		sst_nego_receive(S.h, &C.self, two, len, 0);
		CU_ASSERT_TRUE(ss->amp_tx_bytes <= 3 * ss->amp_rx_bytes);
	}
	pair_stop();
}

/* Per-source rate limit (section 5.3): not under load, none (clients
 * behind one NAT share an address); under load, cookie-proven setups from
 * one source pass after a burst of rate_burst at rate_per_sec, and those
 * held back pass on their retransmission; the table does not grow. */
static void
test_rate_limit(void)
{
	const struct sst_nego_stats *ss;
	size_t size;

	pair_init();
	P[1].rate_per_sec = 10;
	P[1].rate_burst = 5;
	P[1].rate_slots = 8;
	size = sst_nego_host_size(&P[1]);
	pair_start();
	ss = sst_nego_stats(S.h);
	for (int k = 0; k < 20; k++)
		sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 0);
	deliver(&C, &S, 0);
	CU_ASSERT_TRUE(S.nout == 20 && sst_nego_half_open(S.h) == 20);
	CU_ASSERT_EQUAL(ss->rx_rate_limited, 0);
	deliver(&S, &C, 0);
	deliver(&C, &S, 0);
	CU_ASSERT_TRUE(C.established == 20 && S.established == 20);
	/* Under load: 10 more at once, each challenged, 5 pass. */
	sst_nego_set_under_load(S.h, true);
	for (int k = 0; k < 10; k++)
		sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, SEC);
	deliver(&C, &S, SEC);
	CU_ASSERT_EQUAL(ss->rx_sec_i1_challenged, 10);
	deliver(&S, &C, SEC);
	deliver(&C, &S, SEC);
	CU_ASSERT_TRUE(ss->rx_sec_i1_cookie_ok == 10 && ss->rx_rate_limited == 5);
	CU_ASSERT_EQUAL(S.nout, 5);
	deliver(&S, &C, SEC);
	deliver(&C, &S, SEC);
	CU_ASSERT_TRUE(C.established == 25 && S.established == 25);
	/* 0.5 s later C repeats the other five SecI1 (with their cookies):
	 * 5 tokens came back. */
	C.nout = 0;
	sst_nego_handle_expiry(C.h, SEC + SST_NEGO_RETX_INITIAL);
	{
		unsigned int i1s = 0;

		for (unsigned int k = 0; k < C.nout; k++)
			i1s += type_of(&C.out[k]) == SST_NEGO_SECI1; /* the rest: SecI2 */
		CU_ASSERT_EQUAL(i1s, 5);
	}
	deliver(&C, &S, SEC + SST_NEGO_RETX_INITIAL);
	deliver(&S, &C, SEC + SST_NEGO_RETX_INITIAL);
	deliver(&C, &S, SEC + SST_NEGO_RETX_INITIAL);
	CU_ASSERT_TRUE(C.established == 30 && S.established == 30);
	CU_ASSERT_EQUAL(ss->rx_rate_limited, 5);
	CU_ASSERT_EQUAL(sst_nego_host_size(&P[1]), size);
	pair_stop();
}

/* Policy: TOFU reports a new key, anonymous initiators only if allowed,
 * an unknown responder key is refused by a pinned initiator. */
static void
test_policy(void)
{
	/* TOFU responder, unknown client. */
	pair_init();
	S.kh.n = 0;
	S.cfg.policy = SST_SECURE_TOFU;
	pair_start();
	handshake(0);
	CU_ASSERT_EQUAL_FATAL(S.established, 1);
	CU_ASSERT_EQUAL(S.res[0].peer_status, SST_SECURE_PEER_NEW);
	pair_stop();
	/* Anonymous client: refused, then allowed. */
	for (int allow = 0; allow < 2; allow++) {
		pair_init();
		C.cfg.identity = NULL;
		S.cfg.allow_anonymous = allow != 0;
		pair_start();
		handshake(0);
		CU_ASSERT_EQUAL(C.established, 1);
		CU_ASSERT_EQUAL(S.established, (unsigned int)allow);
		CU_ASSERT_EQUAL(sst_nego_stats(S.h)->rx_sec_i2_bad, (uint64_t)!allow);
		if (allow)
			CU_ASSERT_EQUAL(S.res[0].peer_status, SST_SECURE_PEER_ANONYMOUS);
		pair_stop();
	}
	/* Unknown server for a pinned client: SecR1 refused, nothing sent. */
	pair_init();
	C.kh.n = 0;
	pair_start();
	handshake(0);
	CU_ASSERT_TRUE(C.established == 0 && S.established == 0);
	CU_ASSERT_EQUAL(sst_nego_stats(C.h)->rx_sec_r1_bad, 1);
	/* An anonymous host (no identity) cannot answer SecI1. */
	pair_stop();
	pair_init();
	S.cfg.identity = NULL;
	pair_start();
	handshake(0);
	CU_ASSERT_TRUE(S.nout == 0 && sst_nego_stats(S.h)->rx_sec_i1_unsupported == 1);
	pair_stop();
}

/* Packet chunks after SecI2 go to ops->packet; before it they are dropped. */
static void
test_packet_chunks(void)
{
	uint8_t msg[MSG_MAX + 64], pkt[12] = {0, 0xaa, 0xbb};
	struct sst_nego_builder b;
	struct out_msg i2;
	size_t len;

	pair_init();
	pair_start();
	sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 0);
	deliver(&C, &S, 0);
	deliver(&S, &C, 0);
	i2 = C.out[0];
	C.nout = 0;
	pkt[0] = C.res[0].peer_channel;
	/* Packet, then SecI2, then Packet: only the second one is taken. */
	sst_nego_build_begin(&b, msg, sizeof(msg));
	{
		uint8_t body[4 + sizeof(pkt)] = {0, 0, 0, sizeof(pkt)};

		memcpy(body + 4, pkt, sizeof(pkt));
		sst_nego_build_raw(&b, SST_NEGO_PACKET, body, sizeof(body));
		sst_nego_build_raw(&b, SST_NEGO_SECI2, i2.b + 16, i2.len - 16);
		sst_nego_build_raw(&b, SST_NEGO_PACKET, body, sizeof(body));
	}
	len = sst_nego_build_end(&b);
	sst_nego_receive(S.h, &C.self, msg, len, 0);
	CU_ASSERT_EQUAL(S.established, 1);
	CU_ASSERT_EQUAL(S.npackets, 1);
	CU_ASSERT_TRUE(S.pkt_len == sizeof(pkt) && memcmp(S.pkt, pkt, sizeof(pkt)) == 0);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->rx_packet_dropped, 1);
	/* The same message again: SecI2 is a byte-identical repetition, so
	 * its packet goes to the channel (spec 3.4; the channel's replay
	 * window drops the copy); the Packet before it is still dropped. */
	sst_nego_receive(S.h, &C.self, msg, len, 0);
	CU_ASSERT_TRUE(S.established == 1 && S.npackets == 2);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->rx_packet_dropped, 2);
	/* fini while C repeats SecI2: the channel number stays C's. */
	host_free(C.h);
	C.h = NULL;
	CU_ASSERT_EQUAL(C.chans.in_use, 1);
	pair_stop();
}

/* Lifecycle: parameters, refusal, cancel, fini with open entries. */
static void
test_lifecycle(void)
{
	struct sst_nego_host_params p;
	struct sst_nego_result r;
	struct sst_channel_params cp;
	int chan;

	pair_init();
	p = P[0];
	p.secure = NULL;
	C.h = host_new(&p);
	CU_ASSERT_EQUAL(sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 0), -ENOTSUP);
	host_free(C.h);
	C.cfg.nsuites = 0;
	CU_ASSERT_EQUAL(sst_nego_host_size(&P[0]), 0);
	sst_secure_suites_default(&C.cfg, true, false);
	P[0].rate_slots = SST_NEGO_RATE_SLOTS_MAX + 1;
	CU_ASSERT_EQUAL(sst_nego_host_size(&P[0]), 0);
	P[0].rate_slots = 0;
	memset(&r, 0, sizeof(r));
	r.local_channel = r.peer_channel = 1;
	r.suite = SST_CRYPTO_NULL;
	CU_ASSERT_EQUAL(sst_nego_channel_params(&r, &cp), -EINVAL);
	pair_start();
	/* Refusal at each side gives the number back and sends nothing. */
	C.refuse = -EPERM;
	handshake(0);
	CU_ASSERT_TRUE(C.established == 1 && C.chans.in_use == 0 && C.nout == 0);
	CU_ASSERT_EQUAL(sst_nego_stats(C.h)->rx_sec_r1_refused, 1);
	C.refuse = 0;
	S.refuse = -EPERM;
	handshake(21 * SEC); /* replaces S's entry of the first attempt */
	CU_ASSERT_TRUE(S.established == 1 && S.chans.in_use == 0 && sst_nego_responding(S.h) == 0);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->rx_sec_i2_refused, 1);
	S.refuse = 0;
	/* Cancel while waiting for SecR1 frees; after it, acts as confirm. */
	chan = sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 21 * SEC);
	CU_ASSERT_EQUAL(sst_nego_cancel(C.h, &S.self, (uint8_t)chan), 0);
	CU_ASSERT_EQUAL(C.chans.in_use, 1); /* the channel S refused is still C's */
	C.nout = 0;
	chan = sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 21 * SEC);
	deliver(&C, &S, 21 * SEC);
	deliver(&S, &C, 21 * SEC);
	CU_ASSERT_EQUAL(sst_nego_cancel(C.h, &S.self, (uint8_t)chan), 0);
	CU_ASSERT_EQUAL(sst_nego_stats(C.h)->confirmed, 1);
	/* fini with a half-open entry at S gives its number back. */
	C.nout = 0;
	sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 21 * SEC);
	deliver(&C, &S, 21 * SEC);
	CU_ASSERT_EQUAL(sst_nego_half_open(S.h), 2);
	sst_nego_host_fini(S.h);
	CU_ASSERT_EQUAL(S.chans.in_use, 0);
	pair_stop();
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_round_trip),
	SST_TEST(test_suites),
	SST_TEST(test_retransmissions),
	SST_TEST(test_tamper),
	SST_TEST(test_replay),
	SST_TEST(test_cookie_under_load),
	SST_TEST(test_half_open_limit),
	SST_TEST(test_amplification),
	SST_TEST(test_rate_limit),
	SST_TEST(test_policy),
	SST_TEST(test_packet_chunks),
	SST_TEST(test_lifecycle),
	SST_TEST_END,
};

SST_TEST_MAIN("nego_secure_host", cases)
