/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Protection under load (lib/negotiation/nego_load.c, docs/negotiation.md
 * section 5; issue 15 finding 3). A responder flooded with spoofed SecI1 or
 * ChkI1 from thousands of source addresses must go under load by itself
 * once its half-open entries pass a threshold, and from then on keep
 * nothing for an I1 whose address no cookie proves: its half-open count,
 * its table and the channel numbers it takes stay flat while the flood
 * goes on, and a genuine client still gets a channel through the cookie.
 * Checked too: the per-source rate limit (WireGuard's 20 per second, burst
 * 5) applies only under load; an initiator answers a checksum-mode cookie
 * request; nothing is sent to an unproven address beyond 3x what it sent.
 *
 * Channel numbers are handed out per peer address, as the engine does, so
 * that a flood from many addresses never runs out of numbers: what bounds
 * the state is the host, not the allocator.
 */
#include <errno.h>
#include <string.h>

#include "nego_pair.h"

#define SEC (SST_NSEC_PER_SEC)
#define MS (SST_NSEC_PER_MSEC)

enum {
	PEER_SLOTS = 1 << 13, /* addresses a side's allocator tracks */
	FLOOD = 3000,	      /* spoofed I1 per flood */
	/* The default threshold: max_responding / 8. */
	LOAD_HIGH = SST_NEGO_DEFAULT_MAX_RESPONDING / 8,
};

/* Channel numbers of one peer address. */
struct ld_peer {
	struct sst_nego_addr a;
	uint8_t used[32];
};

/* A side (nego_pair.h) whose channel numbers are per peer address. */
struct ld_side {
	struct tp_side tp; /* first: the pair's callbacks take ctx as a tp_side */
	struct ld_peer peers[PEER_SLOTS];
	uint64_t allocs; /* chan_alloc() calls that gave a number */
	uint64_t held;	 /* numbers taken and not given back */
	/* The responder channels established(), to release them. */
	struct sst_nego_result rec[FLOOD];
	unsigned int nrec;
};

static struct ld_side C, S, N;

static struct ld_peer *
ld_peer_of(struct ld_side *s, const struct sst_nego_addr *a)
{
	uint32_t h = 2166136261u;

	for (uint8_t i = 0; i < a->len; i++)
		h = (h ^ a->bytes[i]) * 16777619u;
	for (uint32_t k = 0; k < PEER_SLOTS; k++) {
		struct ld_peer *p = &s->peers[(h + k) & (PEER_SLOTS - 1)];

		if (p->a.len == 0)
			p->a = *a;
		if (sst_nego_addr_equal(&p->a, a))
			return p;
	}
	CU_FAIL_FATAL("peer table full");
	return NULL;
}

static int
ld_alloc(void *ctx, const struct sst_nego_addr *peer)
{
	struct ld_side *s = ctx;
	struct ld_peer *p = ld_peer_of(s, peer);

	for (int c = 1; c < 256; c++)
		if (!(p->used[c / 8] & (1u << (c % 8)))) {
			p->used[c / 8] |= (uint8_t)(1u << (c % 8));
			s->allocs++;
			s->held++;
			return c;
		}
	return -ENOSPC;
}

static void
ld_free(void *ctx, const struct sst_nego_addr *peer, uint8_t chan)
{
	struct ld_side *s = ctx;
	struct ld_peer *p = ld_peer_of(s, peer);

	CU_ASSERT_TRUE_FATAL(p->used[chan / 8] & (1u << (chan % 8)));
	p->used[chan / 8] &= (uint8_t) ~(1u << (chan % 8));
	s->held--;
}

static int
ld_established(void *ctx, const struct sst_nego_result *r, sst_time_t now)
{
	struct ld_side *s = ctx;

	if (r->role == SST_NEGO_RESPONDER && s->nrec < FLOOD)
		s->rec[s->nrec++] = *r;
	return tp_established(ctx, r, now);
}

static const struct sst_nego_ops ld_ops = {
	.transmit = tp_transmit,
	.chan_alloc = ld_alloc,
	.chan_free = ld_free,
	.established = ld_established,
	.packet = tp_packet,
	.peer_name = tp_peer_name,
	.failed = tp_failed,
};

static void
ld_init(struct ld_side *s, uint8_t seed, uint32_t ip, bool secure)
{
	memset(s, 0, sizeof(*s));
	tp_init(&s->tp, seed, ip, secure);
	s->tp.p.ops = &ld_ops;
	s->tp.p.ctx = s;
}

/* C (client) and S (server), secure or checksum-only, keys pinned. */
static void
pair_init(bool secure)
{
	ld_init(&C, 0x43, 0x0a000001, secure);
	ld_init(&S, 0x53, 0x0a000002, secure);
	tp_pin(&C.tp, &S.tp);
}

static void
pair_start(void)
{
	tp_start(&C.tp);
	tp_start(&S.tp);
}

static void
pair_fini(void)
{
	tp_fini(&C.tp);
	tp_fini(&S.tp);
	tp_fini(&N.tp);
}

/* Spoofed source k: 198.18.0.0/15, the benchmarking range. */
static struct sst_nego_addr
spoofed(uint32_t k)
{
	return tp_addr(0xc6120000u + k, (uint16_t)(1024 + k % 50000));
}

/* A ChkI1 message as a flooder builds it: extended (an SST-DPDK ulp blob)
 * or legacy (empty ulpi, as the prototype), optionally with a cookie. */
static size_t
chk_i1(uint8_t *buf, size_t cap, uint32_t cki, uint32_t chani, bool extended, const uint8_t *cookie,
	size_t cookie_len)
{
	uint8_t ulp[SST_NEGO_ULP_LEN];
	struct sst_nego_chki1 i1 = {.cki = cki, .chani = chani};
	struct sst_nego_builder b;

	if (extended) {
		i1.ulpi.ptr = ulp;
		i1.ulpi.len = (size_t)sst_nego_ulp_encode_instance(
			SST_NEGO_ULP_VERSION, SST_NEGO_CAP_ALL, cki | 1, ulp, sizeof(ulp));
	}
	i1.cookie.ptr = cookie;
	i1.cookie.len = cookie_len;
	sst_nego_build_begin(&b, buf, cap);
	CU_ASSERT_EQUAL_FATAL(sst_nego_build_chki1(&b, &i1), 0);
	return sst_nego_build_end(&b);
}

/* What a flood did to the responder, and what it sent back. */
struct flood_seen {
	uint32_t max_half_open;
	uint32_t max_responding;
	uint64_t rx_bytes, tx_bytes; /* to and from the spoofed addresses */
	size_t max_reply;	     /* largest reply to one message */
	size_t reply_of_smallest;    /* ... and to the smallest message */
	size_t smallest;
	unsigned int replies;
	/* At the flood's half-way mark, to compare with its end. */
	uint32_t mid_half_open, mid_responding;
	uint64_t mid_allocs, mid_established;
};

/* One message from a spoofed address; S's answers go nowhere. */
static void
spoof_one(struct flood_seen *f, const struct sst_nego_addr *a, const uint8_t *msg, size_t len,
	sst_time_t now)
{
	size_t out = 0;

	sst_nego_receive(S.tp.h, a, msg, len, now);
	for (unsigned int j = 0; j < S.tp.nout; j++) {
		CU_ASSERT_TRUE(sst_nego_addr_equal(&S.tp.out[j].to, a));
		out += S.tp.out[j].len;
		f->replies++;
	}
	S.tp.nout = 0;
	CU_ASSERT_TRUE(out <= 3 * len);
	f->rx_bytes += len;
	f->tx_bytes += out;
	f->max_reply = RTE_MAX(f->max_reply, out);
	if (f->smallest == 0 || len < f->smallest) {
		f->smallest = len;
		f->reply_of_smallest = out;
	}
	f->max_half_open = RTE_MAX(f->max_half_open, sst_nego_half_open(S.tp.h));
	f->max_responding = RTE_MAX(f->max_responding, sst_nego_responding(S.tp.h));
}

static void
flood_mid(struct flood_seen *f)
{
	f->mid_half_open = sst_nego_half_open(S.tp.h);
	f->mid_responding = sst_nego_responding(S.tp.h);
	f->mid_allocs = S.allocs;
	f->mid_established = S.tp.established;
}

/* FLOOD spoofed ChkI1, 1 ms apart, each from its own address with its own
 * key (a flooder draws them), extended or legacy. */
static void
flood_chk(struct flood_seen *f, bool extended, sst_time_t t0)
{
	uint8_t msg[128];

	memset(f, 0, sizeof(*f));
	for (uint32_t k = 0; k < FLOOD; k++) {
		struct sst_nego_addr a = spoofed(k);
		size_t len = chk_i1(
			msg, sizeof(msg), 0x51000000u + k * 7919u, 1 + k % 255, extended, NULL, 0);

		if (k == FLOOD / 2)
			flood_mid(f);
		spoof_one(f, &a, msg, len, t0 + k * MS);
	}
}

/* FLOOD copies of one SecI1 (chani, keys and nonce are the same: the
 * responder sees a new (address, chani) each time), 1 ms apart. */
static void
flood_sec(struct flood_seen *f, const struct tp_msg *i1, sst_time_t t0)
{
	memset(f, 0, sizeof(*f));
	for (uint32_t k = 0; k < FLOOD; k++) {
		struct sst_nego_addr a = spoofed(k);

		if (k == FLOOD / 2)
			flood_mid(f);
		spoof_one(f, &a, i1->b, i1->len, t0 + k * MS);
	}
}

/* The second half of a flood left no trace: no half-open entry, no table
 * entry, no channel number, no channel. */
static void
check_flat(const struct flood_seen *f)
{
	CU_ASSERT_EQUAL(sst_nego_half_open(S.tp.h), f->mid_half_open);
	CU_ASSERT_EQUAL(sst_nego_responding(S.tp.h), f->mid_responding);
	CU_ASSERT_EQUAL(S.allocs, f->mid_allocs);
	CU_ASSERT_EQUAL(S.tp.established, f->mid_established);
}

/* Exchange C's and S's messages (only those between them) until quiet. */
static void
converse(sst_time_t now)
{
	for (int round = 0; round < 8 && (C.tp.nout > 0 || S.tp.nout > 0); round++) {
		tp_deliver(&C.tp, &S.tp, now);
		tp_deliver(&S.tp, &C.tp, now);
	}
}

/* Secure mode: a flood of spoofed SecI1 puts S under load after LOAD_HIGH
 * half-open entries; then each one costs a 68-byte SecCookie and nothing
 * else, and C completes through the cookie while the flood goes on. */
static void
test_secure_flood(void)
{
	const struct sst_nego_stats *st;
	struct flood_seen f;
	struct tp_msg i1;

	pair_init(true);
	pair_start();
	CU_ASSERT_FATAL(sst_nego_connect(C.tp.h, &S.tp.self, SST_NEGO_MODE_SECURE, 0) > 0);
	i1 = C.tp.out[0]; /* stays in C's outbox for later */
	flood_sec(&f, &i1, 0);
	st = sst_nego_stats(S.tp.h);
	/* At most LOAD_HIGH half-open entries, then nothing per SecI1. */
	CU_ASSERT_TRUE(f.max_half_open <= LOAD_HIGH);
	CU_ASSERT_TRUE(f.max_responding <= LOAD_HIGH);
	CU_ASSERT_TRUE(S.held <= LOAD_HIGH);
	check_flat(&f);
	CU_ASSERT_TRUE(st->rx_sec_i1_challenged >= FLOOD - LOAD_HIGH);
	CU_ASSERT_EQUAL(S.tp.established, 0);
	/* Amplification: 3x at most, message by message (spoof_one) and in
	 * total, also by S's own counters. */
	CU_ASSERT_TRUE(f.tx_bytes <= 3 * f.rx_bytes);
	CU_ASSERT_TRUE(st->amp_tx_bytes <= 3 * st->amp_rx_bytes);
	/* The genuine client, during the flood: SecCookie, SecI1 with the
	 * cookie, SecR1, SecI2. */
	tp_deliver(&C.tp, &S.tp, FLOOD * MS);
	CU_ASSERT_EQUAL_FATAL(S.tp.nout, 1);
	CU_ASSERT_EQUAL(tp_type(&S.tp.out[0]), SST_NEGO_SECCOOKIE);
	converse(FLOOD * MS);
	CU_ASSERT_TRUE(C.tp.established == 1 && S.tp.established == 1);
	CU_ASSERT_EQUAL(st->rx_sec_i1_cookie_ok, 1);
	pair_fini();
}

/* Checksum mode, spoofed ChkI1 that claim to be SST-DPDK hosts: at most
 * LOAD_HIGH channels, then each costs a 56-byte cookie request (a ChkR1
 * with chanr 0, the prototype's format) and nothing else; C answers the
 * cookie and gets its channel during the flood. */
static void
test_checksum_flood(void)
{
	const struct sst_nego_stats *st;
	struct flood_seen f;

	pair_init(false);
	pair_start();
	flood_chk(&f, true, 0);
	st = sst_nego_stats(S.tp.h);
	CU_ASSERT_TRUE(f.max_responding <= LOAD_HIGH);
	CU_ASSERT_TRUE(S.tp.established <= LOAD_HIGH);
	CU_ASSERT_TRUE(S.held <= LOAD_HIGH);
	check_flat(&f);
	CU_ASSERT_TRUE(f.tx_bytes <= 3 * f.rx_bytes);
	CU_ASSERT_TRUE(st->amp_rx_bytes > 0 && st->amp_tx_bytes <= 3 * st->amp_rx_bytes);
	CU_ASSERT_EQUAL(st->rx_i1_refused_full, 0);
	/* C: ChkI1, cookie request, ChkI1 with the cookie, ChkR1. */
	CU_ASSERT_FATAL(sst_nego_connect(C.tp.h, &S.tp.self, SST_NEGO_MODE_CHECKSUM, 0) > 0);
	tp_deliver(&C.tp, &S.tp, FLOOD * MS);
	CU_ASSERT_EQUAL_FATAL(S.tp.nout, 1);
	CU_ASSERT_EQUAL(tp_type(&S.tp.out[0]), SST_NEGO_CHKR1);
	CU_ASSERT_EQUAL(S.tp.out[0].len, 56);
	converse(FLOOD * MS);
	CU_ASSERT_EQUAL(C.tp.established, 1);
	CU_ASSERT_EQUAL(S.tp.established, f.mid_established + 1);
	pair_fini();
}

/* Checksum mode, spoofed legacy ChkI1 (what the prototype sends): they
 * cannot be challenged, so under load they are dropped; a legacy client
 * is refused too while S is under load (the documented caveat) and served
 * once it is not; an SST-DPDK client is served through the cookie. */
static void
test_checksum_flood_legacy(void)
{
	const sst_time_t t1 = FLOOD * MS;
	struct flood_seen f;
	unsigned int spoofed_chans;

	pair_init(false);
	ld_init(&N, 0x4e, 0x0a000003, false);
	N.tp.p.ulp_legacy = true;
	pair_start();
	tp_start(&N.tp);
	flood_chk(&f, false, 0);
	CU_ASSERT_TRUE(S.tp.established <= LOAD_HIGH);
	check_flat(&f);
	CU_ASSERT_EQUAL(f.replies, S.tp.established); /* no reply once under load */
	spoofed_chans = S.tp.established;
	/* The legacy client N, under load: nothing. */
	CU_ASSERT_FATAL(sst_nego_connect(N.tp.h, &S.tp.self, SST_NEGO_MODE_CHECKSUM, t1) > 0);
	tp_deliver(&N.tp, &S.tp, t1);
	CU_ASSERT_TRUE(S.tp.nout == 0 && S.tp.established == spoofed_chans);
	/* The SST-DPDK client C: through the cookie. */
	CU_ASSERT_FATAL(sst_nego_connect(C.tp.h, &S.tp.self, SST_NEGO_MODE_CHECKSUM, t1) > 0);
	converse(t1);
	CU_ASSERT_EQUAL(C.tp.established, 1);
	/* The spoofed channels end (the engine's idle timeout): no longer
	 * under load, N's next retransmission gets its channel. */
	for (unsigned int k = 0; k < S.nrec; k++)
		CU_ASSERT_EQUAL(sst_nego_release(S.tp.h, &S.rec[k].peer, S.rec[k].local_channel,
					S.rec[k].peer_channel),
			0);
	sst_nego_handle_expiry(N.tp.h, t1 + SST_NEGO_RETX_INITIAL);
	tp_deliver(&N.tp, &S.tp, t1 + SST_NEGO_RETX_INITIAL);
	tp_deliver(&S.tp, &N.tp, t1 + SST_NEGO_RETX_INITIAL);
	CU_ASSERT_EQUAL(N.tp.established, 1);
	pair_fini();
}

/* The rate limit: a NAT's clients (one IP address, many ports) are not
 * throttled while S is not under load; under load, cookie-proven setups
 * from one address pass at WireGuard's rate, 20 per second after a burst
 * of 5, and the ones held back get through on their retransmission. */
static void
test_rate_limit(void)
{
	const struct sst_nego_stats *st;
	uint8_t msg[128];
	const unsigned int nat = LOAD_HIGH - 8;

	pair_init(false);
	S.tp.p.rate_prefix = 4; /* tp_addr(): 4 bytes of IPv4 address, then the port */
	pair_start();
	st = sst_nego_stats(S.tp.h);
	/* Not under load: nat setups at once from one address. */
	for (unsigned int k = 0; k < nat; k++) {
		struct sst_nego_addr a = tp_addr(0xcb007101, (uint16_t)(2000 + k));
		size_t len = chk_i1(msg, sizeof(msg), 0x7000 + k, 1, true, NULL, 0);

		sst_nego_receive(S.tp.h, &a, msg, len, SEC);
		S.tp.nout = 0;
	}
	CU_ASSERT_EQUAL(S.tp.established, nat);
	CU_ASSERT_EQUAL(st->rx_rate_limited, 0);
	pair_fini();
	/* Under load: C opens 10 channels at once; each is challenged, each
	 * answers its cookie; 5 pass, 5 wait for a token. */
	pair_init(false);
	S.tp.p.rate_prefix = 4;
	pair_start();
	st = sst_nego_stats(S.tp.h);
	sst_nego_set_under_load(S.tp.h, true);
	for (int k = 0; k < 10; k++)
		CU_ASSERT_FATAL(
			sst_nego_connect(C.tp.h, &S.tp.self, SST_NEGO_MODE_CHECKSUM, 0) > 0);
	converse(0);
	CU_ASSERT_EQUAL(C.tp.established, 5);
	CU_ASSERT_EQUAL(st->rx_rate_limited, 5);
	/* C retransmits after 0.5 s; 10 tokens came back in the meantime. */
	sst_nego_handle_expiry(C.tp.h, SST_NEGO_RETX_INITIAL);
	converse(SST_NEGO_RETX_INITIAL);
	CU_ASSERT_EQUAL(C.tp.established, 10);
	CU_ASSERT_EQUAL(st->rx_rate_limited, 5);
	pair_fini();
}

/* Amplification in checksum mode with a factor of 1 (the tests' strict
 * bound; the default is 3): a ChkR1 with our ulp blob (60 bytes) exceeds a
 * legacy ChkI1 (36 bytes), so S keeps nothing and sends nothing; an
 * extended ChkI1 (56 bytes) gets a cookie request of 56 bytes instead,
 * and the ChkI1 that returns the cookie (proven) gets its ChkR1. */
static void
test_checksum_amplification(void)
{
	const struct sst_nego_stats *st;
	uint8_t msg[128];
	struct sst_nego_addr a = tp_addr(0xcb007102, 3000);
	size_t len;

	pair_init(false);
	S.tp.p.amp_factor = 1;
	pair_start();
	st = sst_nego_stats(S.tp.h);
	len = chk_i1(msg, sizeof(msg), 0x1234, 1, false, NULL, 0);
	CU_ASSERT_EQUAL(len, 36);
	sst_nego_receive(S.tp.h, &a, msg, len, 0);
	CU_ASSERT_TRUE(S.tp.nout == 0 && S.tp.established == 0 && S.held == 0);
	CU_ASSERT_TRUE(st->amp_limited == 1 && st->amp_tx_bytes == 0);
	CU_ASSERT_FATAL(sst_nego_connect(C.tp.h, &S.tp.self, SST_NEGO_MODE_CHECKSUM, 0) > 0);
	CU_ASSERT_EQUAL(C.tp.out[0].len, 56);
	tp_deliver(&C.tp, &S.tp, 0);
	CU_ASSERT_EQUAL_FATAL(S.tp.nout, 1);
	CU_ASSERT_TRUE(S.tp.out[0].len == 56 && S.tp.established == 0);
	CU_ASSERT_TRUE(st->amp_tx_bytes == 56 && st->amp_rx_bytes == 36 + 56);
	converse(0);
	CU_ASSERT_TRUE(C.tp.established == 1 && S.tp.established == 1);
	CU_ASSERT_TRUE(st->amp_tx_bytes <= st->amp_rx_bytes);
	pair_fini();
}

/* Checksum mode, initiator: a cookie request (ChkR1 with chanr 0 that
 * echoes our key) makes C send its ChkI1 again at once with the cookie,
 * and its retransmissions carry it; an empty cookie, another key and a
 * fifth request are ignored. */
static void
test_initiator_cookie(void)
{
	struct sst_nego_chkr1 r1 = {.ckr = 0, .chanr = 0};
	struct sst_nego_chki1 i1, again;
	uint8_t cookie[16], msg[128];
	struct sst_nego_builder b;
	struct sst_bytes body;
	struct tp_msg first;
	size_t len;

	pair_init(false);
	pair_start();
	memset(cookie, 0xc0, sizeof(cookie));
	CU_ASSERT_FATAL(sst_nego_connect(C.tp.h, &S.tp.self, SST_NEGO_MODE_CHECKSUM, 0) > 0);
	first = C.tp.out[0];
	body = tp_body(&first, 0);
	CU_ASSERT_EQUAL_FATAL(sst_nego_chki1_decode(&body, &i1), 0);
	C.tp.nout = 0;
	r1.cki = r1.ckr = i1.cki;
	for (int k = 0; k < 6; k++) {
		cookie[0] = (uint8_t)k;
		r1.cookie.ptr = cookie;
		r1.cookie.len = k == 0 ? 0 : sizeof(cookie); /* first: empty */
		sst_nego_build_begin(&b, msg, sizeof(msg));
		CU_ASSERT_EQUAL_FATAL(sst_nego_build_chkr1(&b, &r1), 0);
		len = sst_nego_build_end(&b);
		sst_nego_receive(C.tp.h, &S.tp.self, msg, len, (sst_time_t)k * MS);
		/* Answered: the requests with a cookie, at most 4 of them. */
		CU_ASSERT_EQUAL(C.tp.nout, (k >= 1 && k <= 4) ? 1u : 0u);
		if (C.tp.nout == 1) {
			body = tp_body(&C.tp.out[0], 0);
			CU_ASSERT_EQUAL_FATAL(sst_nego_chki1_decode(&body, &again), 0);
			CU_ASSERT_TRUE(again.cki == i1.cki && again.chani == i1.chani);
			CU_ASSERT_TRUE(again.ulpi.len == i1.ulpi.len &&
				       memcmp(again.ulpi.ptr, i1.ulpi.ptr, i1.ulpi.len) == 0);
			CU_ASSERT_TRUE(again.cookie.len == sizeof(cookie) &&
				       memcmp(again.cookie.ptr, cookie, sizeof(cookie)) == 0);
		}
		C.tp.nout = 0;
	}
	/* Another key: not ours. */
	r1.cki = r1.ckr = i1.cki ^ 0x100;
	sst_nego_build_begin(&b, msg, sizeof(msg));
	sst_nego_build_chkr1(&b, &r1);
	len = sst_nego_build_end(&b);
	sst_nego_receive(C.tp.h, &S.tp.self, msg, len, 10 * MS);
	CU_ASSERT_EQUAL(C.tp.nout, 0);
	/* The timer's copies carry the last cookie. */
	sst_nego_handle_expiry(C.tp.h, 2 * SEC);
	CU_ASSERT_EQUAL_FATAL(C.tp.nout, 1);
	body = tp_body(&C.tp.out[0], 0);
	CU_ASSERT_EQUAL_FATAL(sst_nego_chki1_decode(&body, &again), 0);
	CU_ASSERT_TRUE(again.cookie.len == sizeof(cookie) && again.cookie.ptr[0] == 4);
	CU_ASSERT_EQUAL(C.tp.established, 0);
	pair_fini();
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_secure_flood),
	SST_TEST(test_checksum_flood),
	SST_TEST(test_checksum_flood_legacy),
	SST_TEST(test_rate_limit),
	SST_TEST(test_checksum_amplification),
	SST_TEST(test_initiator_cookie),
	SST_TEST_END,
};

SST_TEST_MAIN("nego_load", cases)
