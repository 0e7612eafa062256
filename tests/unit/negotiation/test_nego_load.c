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
#include <stdio.h>
#include <string.h>

#include "nego_pair.h"
#include "nego_secure.h"

#define SEC (SST_NSEC_PER_SEC)
#define MS (SST_NSEC_PER_MSEC)

enum {
	PEER_SLOTS = 1 << 13, /* addresses a side's allocator tracks */
	FLOOD = 3000,	      /* spoofed I1 per flood */
	/* The default threshold: max_responding / 2. */
	LOAD_HIGH = SST_NEGO_DEFAULT_MAX_RESPONDING / 2,
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
	/* LOAD_HIGH half-open entries, then nothing per SecI1. */
	CU_ASSERT_TRUE(f.max_half_open == LOAD_HIGH && f.max_responding == LOAD_HIGH);
	CU_ASSERT_EQUAL(S.held, LOAD_HIGH);
	check_flat(&f);
	CU_ASSERT_TRUE(sst_nego_under_load(S.tp.h) && st->load_on == 1 && st->load_off == 0);
	CU_ASSERT_EQUAL(st->rx_sec_i1_challenged, FLOOD - LOAD_HIGH);
	CU_ASSERT_EQUAL(st->tx_sec_cookie, FLOOD - LOAD_HIGH);
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
	/* The spoofed entries expire (40 s): S leaves the load, and a new
	 * SecI1 gets its SecR1 at once. */
	sst_nego_handle_expiry(S.tp.h, SST_NEGO_HALF_OPEN_TTL + FLOOD * MS);
	CU_ASSERT_TRUE(sst_nego_half_open(S.tp.h) == 0 && S.held == 1);
	CU_ASSERT_TRUE(!sst_nego_under_load(S.tp.h) && st->load_off == 1);
	CU_ASSERT_EQUAL(st->half_open_expired, LOAD_HIGH);
	C.tp.nout = S.tp.nout = 0;
	CU_ASSERT_FATAL(sst_nego_connect(C.tp.h, &S.tp.self, SST_NEGO_MODE_SECURE,
				SST_NEGO_HALF_OPEN_TTL + FLOOD * MS) > 0);
	tp_deliver(&C.tp, &S.tp, SST_NEGO_HALF_OPEN_TTL + FLOOD * MS);
	CU_ASSERT_TRUE(S.tp.nout == 1 && tp_type(&S.tp.out[0]) == SST_NEGO_SECR1);
	printf("\n  secure flood: %u SecI1, %u half-open at most, then a %u-byte SecCookie "
	       "each and no state; %llu bytes in, %llu out (%.2fx)\n",
		FLOOD, f.max_half_open, 68, (unsigned long long)f.rx_bytes,
		(unsigned long long)f.tx_bytes, (double)f.tx_bytes / (double)f.rx_bytes);
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
	CU_ASSERT_TRUE(f.max_responding == LOAD_HIGH && f.max_half_open == LOAD_HIGH);
	CU_ASSERT_TRUE(S.tp.established == LOAD_HIGH && S.held == LOAD_HIGH);
	check_flat(&f);
	CU_ASSERT_TRUE(sst_nego_under_load(S.tp.h) && st->load_on == 1);
	CU_ASSERT_TRUE(
		st->rx_i1_challenged == FLOOD - LOAD_HIGH && st->tx_r1_cookie == FLOOD - LOAD_HIGH);
	CU_ASSERT_EQUAL(f.max_reply, 60); /* a ChkR1 with our blob; cookie requests: 56 */
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
	CU_ASSERT_TRUE(st->rx_i1_cookie_ok == 1 && st->rx_r1_cookie == 0);
	CU_ASSERT_EQUAL(sst_nego_stats(C.tp.h)->rx_r1_cookie, 1);
	/* C's channel carries its first packet (the engine confirms it): it
	 * is not half-open. The spoofed channels never do; when they end
	 * (the engine's idle timeout), S is no longer under load. */
	CU_ASSERT_EQUAL(sst_nego_confirm(S.tp.h, &C.tp.self, S.rec[S.nrec - 1].local_channel), 0);
	CU_ASSERT_EQUAL(sst_nego_half_open(S.tp.h), LOAD_HIGH);
	for (unsigned int k = 0; k < S.nrec - 1; k++) {
		CU_ASSERT_EQUAL(sst_nego_release(S.tp.h, &S.rec[k].peer, S.rec[k].local_channel,
					S.rec[k].peer_channel),
			0);
		CU_ASSERT_EQUAL(sst_nego_under_load(S.tp.h), k + 1 < LOAD_HIGH / 2);
	}
	CU_ASSERT_TRUE(st->load_off == 1 && sst_nego_half_open(S.tp.h) == 0);
	printf("\n  checksum flood: %u ChkI1, %u channels at most, then %u-byte cookie "
	       "requests and no state; %llu bytes in, %llu out (%.2fx)\n",
		FLOOD, f.max_responding, 56, (unsigned long long)f.rx_bytes,
		(unsigned long long)f.tx_bytes, (double)f.tx_bytes / (double)f.rx_bytes);
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
	CU_ASSERT_EQUAL(S.tp.established, LOAD_HIGH);
	check_flat(&f);
	CU_ASSERT_EQUAL(sst_nego_stats(S.tp.h)->rx_i1_legacy, FLOOD - LOAD_HIGH);
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

/* S's answer to one ChkI1 from @p a (its outbox cleared). @return the
 * number of messages S sent; *r1 holds the first, decoded. */
static unsigned int
ask(const struct sst_nego_addr *a, const uint8_t *msg, size_t len, sst_time_t now,
	struct sst_nego_chkr1 *r1, struct tp_msg *copy)
{
	unsigned int n;

	S.tp.nout = 0;
	sst_nego_receive(S.tp.h, a, msg, len, now);
	n = S.tp.nout;
	if (n > 0) {
		struct sst_bytes body;

		*copy = S.tp.out[0];
		body = tp_body(copy, 0);
		CU_ASSERT_EQUAL_FATAL(sst_nego_chkr1_decode(&body, r1), 0);
	}
	S.tp.nout = 0;
	return n;
}

/* One checksum setup from address a through the cookie, as an SST-DPDK
 * initiator makes it under load: ChkI1, cookie request, ChkI1 with the
 * cookie. @return true if S made the channel. */
static bool
setup_with_cookie(const struct sst_nego_addr *a, uint32_t cki, uint32_t chani, sst_time_t now)
{
	uint8_t msg[128];
	struct sst_nego_chkr1 r1;
	struct tp_msg copy;
	unsigned int before = S.tp.established;
	size_t len = chk_i1(msg, sizeof(msg), cki, chani, true, NULL, 0);

	if (ask(a, msg, len, now, &r1, &copy) != 1 || !sst_nego_chkr1_wants_cookie(&r1))
		return false;
	CU_ASSERT_TRUE(r1.cki == cki && r1.ckr == cki && r1.chanr == 0 &&
		       r1.cookie.len == SST_NEGO_COOKIE_LEN && r1.ulpr.len == 0);
	len = chk_i1(msg, sizeof(msg), cki, chani, true, r1.cookie.ptr, r1.cookie.len);
	ask(a, msg, len, now, &r1, &copy);
	return S.tp.established == before + 1;
}

/* The thresholds and their hysteresis: under load at load_high half-open
 * entries, still under load down to load_low + 1, off at load_low; an entry
 * leaves the count when confirmed (its initiator was heard) or released;
 * sst_nego_set_under_load() forces the load and hands back to detection;
 * every transition counted. */
static void
test_hysteresis(void)
{
	const struct sst_nego_stats *st;
	struct sst_nego_addr a[16];
	uint8_t msg[128];
	size_t len;

	pair_init(false);
	S.tp.p.load_high = 8;
	S.tp.p.load_low = 4;
	pair_start();
	st = sst_nego_stats(S.tp.h);
	for (uint32_t k = 0; k < 16; k++)
		a[k] = tp_addr(0xcb007200 + k, 4000);
	for (uint32_t k = 0; k < 8; k++) {
		CU_ASSERT_FALSE(sst_nego_under_load(S.tp.h));
		len = chk_i1(msg, sizeof(msg), 0x100 + k, 1, true, NULL, 0);
		sst_nego_receive(S.tp.h, &a[k], msg, len, 0);
	}
	CU_ASSERT_TRUE(S.tp.established == 8 && sst_nego_half_open(S.tp.h) == 8);
	CU_ASSERT_TRUE(sst_nego_under_load(S.tp.h) && st->load_on == 1);
	/* Under load: the ninth is challenged and leaves no trace. */
	S.tp.nout = 0;
	len = chk_i1(msg, sizeof(msg), 0x108, 1, true, NULL, 0);
	sst_nego_receive(S.tp.h, &a[8], msg, len, 0);
	CU_ASSERT_TRUE(S.tp.established == 8 && sst_nego_responding(S.tp.h) == 8);
	CU_ASSERT_EQUAL(st->rx_i1_challenged, 1);
	/* Three initiators are heard: 5 half-open, still under load. */
	for (uint32_t k = 0; k < 3; k++)
		CU_ASSERT_EQUAL(sst_nego_confirm(S.tp.h, &a[k], S.rec[k].local_channel), 0);
	CU_ASSERT_EQUAL(sst_nego_confirm(S.tp.h, &a[0], S.rec[0].local_channel), -ENOENT);
	CU_ASSERT_EQUAL(sst_nego_confirm(S.tp.h, &a[9], 1), -ENOENT);
	CU_ASSERT_TRUE(sst_nego_half_open(S.tp.h) == 5 && sst_nego_under_load(S.tp.h));
	CU_ASSERT_EQUAL(st->chk_heard, 3);
	/* The fourth is released (its channel ended unheard): 4, off. */
	CU_ASSERT_EQUAL(sst_nego_release(S.tp.h, &a[3], S.rec[3].local_channel, 1), 0);
	CU_ASSERT_TRUE(sst_nego_half_open(S.tp.h) == 4 && !sst_nego_under_load(S.tp.h));
	CU_ASSERT_TRUE(st->load_on == 1 && st->load_off == 1);
	/* A heard channel's release does not touch the count. */
	CU_ASSERT_EQUAL(sst_nego_release(S.tp.h, &a[0], S.rec[0].local_channel, 1), 0);
	CU_ASSERT_EQUAL(sst_nego_half_open(S.tp.h), 4);
	/* Between the thresholds, on the way up: not under load. */
	len = chk_i1(msg, sizeof(msg), 0x108, 1, true, NULL, 0);
	sst_nego_receive(S.tp.h, &a[8], msg, len, 0);
	CU_ASSERT_TRUE(S.tp.established == 9 && !sst_nego_under_load(S.tp.h));
	/* Told: under load whatever the count; then detection again. */
	sst_nego_set_under_load(S.tp.h, true);
	CU_ASSERT_TRUE(sst_nego_under_load(S.tp.h) && st->load_on == 2);
	sst_nego_set_under_load(S.tp.h, true);
	CU_ASSERT_EQUAL(st->load_on, 2);
	len = chk_i1(msg, sizeof(msg), 0x109, 1, true, NULL, 0);
	sst_nego_receive(S.tp.h, &a[9], msg, len, 0);
	CU_ASSERT_EQUAL(S.tp.established, 9);
	sst_nego_set_under_load(S.tp.h, false);
	CU_ASSERT_TRUE(!sst_nego_under_load(S.tp.h) && st->load_off == 2);
	sst_nego_receive(S.tp.h, &a[9], msg, len, 0);
	CU_ASSERT_EQUAL(S.tp.established, 10);
	pair_fini();
	/* Parameters: load_low must be below load_high; UINT32_MAX turns the
	 * detection off; the default of a 4-entry table is its size. */
	pair_init(false);
	S.tp.p.load_high = 4;
	S.tp.p.load_low = 4;
	CU_ASSERT_EQUAL(sst_nego_host_size(&S.tp.p), 0);
	S.tp.p.load_high = 0;
	S.tp.p.load_low = 16; /* below the default 512 */
	CU_ASSERT_NOT_EQUAL(sst_nego_host_size(&S.tp.p), 0);
	S.tp.p.load_low = 512;
	CU_ASSERT_EQUAL(sst_nego_host_size(&S.tp.p), 0);
	S.tp.p.load_low = 0;
	S.tp.p.load_high = UINT32_MAX;
	pair_start();
	for (uint32_t k = 0; k < 200; k++) {
		struct sst_nego_addr x = spoofed(k);

		len = chk_i1(msg, sizeof(msg), 0x200 + k, 1, true, NULL, 0);
		sst_nego_receive(S.tp.h, &x, msg, len, 0);
		S.tp.nout = 0;
	}
	CU_ASSERT_TRUE(S.tp.established == 200 && !sst_nego_under_load(S.tp.h));
	pair_fini();
	pair_init(false);
	S.tp.p.max_responding = 4;
	pair_start();
	for (uint32_t k = 0; k < 4; k++) {
		CU_ASSERT_FALSE(sst_nego_under_load(S.tp.h));
		len = chk_i1(msg, sizeof(msg), 0x300 + k, 1, true, NULL, 0);
		sst_nego_receive(S.tp.h, &a[k], msg, len, 0);
	}
	CU_ASSERT_TRUE(S.tp.established == 4 && sst_nego_under_load(S.tp.h));
	pair_fini();
}

/* Every outcome of a ChkI1 under load, each under its one counter: no
 * cookie (challenged), a cookie of another address or with a changed byte
 * (bad, challenged again), the valid one (ok), a legacy initiator
 * (dropped), a retransmission of a held channel (answered, no state);
 * cookies die after two rotations of the secret; the cookie request
 * carries the initiator's steering tag. */
static void
test_cookie_outcomes(void)
{
	const struct sst_nego_stats *st;
	struct sst_nego_addr a = tp_addr(0xcb007301, 4000), b = tp_addr(0xcb007302, 4000);
	struct sst_nego_chkr1 r1;
	struct tp_msg copy;
	uint8_t msg[128], cookie[SST_NEGO_COOKIE_LEN];
	size_t len;

	pair_init(false);
	pair_start();
	st = sst_nego_stats(S.tp.h);
	sst_nego_set_under_load(S.tp.h, true);
	len = chk_i1(msg, sizeof(msg), 0x4445, 7, true, NULL, 0);
	CU_ASSERT_EQUAL_FATAL(ask(&a, msg, len, 0, &r1, &copy), 1);
	CU_ASSERT_TRUE(sst_nego_chkr1_wants_cookie(&r1) && r1.cki == 0x4445);
	/* 8 bytes of header, chunk length 44, type ChkR1 (wire-format.md 6.3). */
	CU_ASSERT_TRUE(copy.len == 56 && copy.b[11] == 0x2c && copy.b[15] == 0x12);
	/* The tag is in cki's low bits, which the request echoes. */
	CU_ASSERT_EQUAL(sst_nego_steer_tag(copy.b, copy.len, 3), 0x4445 & 7);
	CU_ASSERT_TRUE(st->rx_i1_challenged == 1 && st->tx_r1_cookie == 1);
	memcpy(cookie, r1.cookie.ptr, sizeof(cookie));
	/* Another address. */
	len = chk_i1(msg, sizeof(msg), 0x4445, 7, true, cookie, sizeof(cookie));
	CU_ASSERT_EQUAL(ask(&b, msg, len, 0, &r1, &copy), 1);
	CU_ASSERT_TRUE(st->rx_i1_cookie_bad == 1 && st->rx_i1_challenged == 2);
	/* Another chani, another key, a changed byte, a short cookie. */
	len = chk_i1(msg, sizeof(msg), 0x4445, 8, true, cookie, sizeof(cookie));
	ask(&a, msg, len, 0, &r1, &copy);
	len = chk_i1(msg, sizeof(msg), 0x4446, 7, true, cookie, sizeof(cookie));
	ask(&a, msg, len, 0, &r1, &copy);
	cookie[5] ^= 0x20;
	len = chk_i1(msg, sizeof(msg), 0x4445, 7, true, cookie, sizeof(cookie));
	ask(&a, msg, len, 0, &r1, &copy);
	cookie[5] ^= 0x20;
	len = chk_i1(msg, sizeof(msg), 0x4445, 7, true, cookie, sizeof(cookie) - 1);
	ask(&a, msg, len, 0, &r1, &copy);
	CU_ASSERT_TRUE(st->rx_i1_cookie_bad == 5 && st->rx_i1_challenged == 6);
	CU_ASSERT_TRUE(S.tp.established == 0 && S.held == 0 && sst_nego_responding(S.tp.h) == 0);
	/* The valid one, a minute later (same secret period). */
	len = chk_i1(msg, sizeof(msg), 0x4445, 7, true, cookie, sizeof(cookie));
	CU_ASSERT_EQUAL(ask(&a, msg, len, 60 * SEC, &r1, &copy), 1);
	CU_ASSERT_TRUE(!sst_nego_chkr1_wants_cookie(&r1) && r1.cki == 0x4445);
	CU_ASSERT_TRUE(st->rx_i1_cookie_ok == 1 && S.tp.established == 1);
	/* Its retransmission without the cookie: the same ChkR1, no state. */
	len = chk_i1(msg, sizeof(msg), 0x4445, 7, true, NULL, 0);
	CU_ASSERT_EQUAL(ask(&a, msg, len, 61 * SEC, &r1, &copy), 1);
	CU_ASSERT_TRUE(st->rx_i1_duplicate == 1 && S.tp.established == 1 && r1.chanr != 0);
	/* A legacy initiator: dropped, nothing sent. */
	len = chk_i1(msg, sizeof(msg), 0x5555, 1, false, NULL, 0);
	CU_ASSERT_EQUAL(ask(&b, msg, len, 61 * SEC, &r1, &copy), 0);
	CU_ASSERT_EQUAL(st->rx_i1_legacy, 1);
	/* Two rotations later the cookie is dead. */
	CU_ASSERT_EQUAL(sst_nego_release(S.tp.h, &a, S.rec[0].local_channel, 7), 0);
	sst_nego_handle_expiry(S.tp.h, SST_NEGO_COOKIE_PERIOD);
	sst_nego_handle_expiry(S.tp.h, 2 * SST_NEGO_COOKIE_PERIOD);
	len = chk_i1(msg, sizeof(msg), 0x4445, 7, true, cookie, sizeof(cookie));
	CU_ASSERT_EQUAL(ask(&a, msg, len, 2 * SST_NEGO_COOKIE_PERIOD, &r1, &copy), 1);
	CU_ASSERT_TRUE(sst_nego_chkr1_wants_cookie(&r1) && st->rx_i1_cookie_bad == 6);
	/* Not under load, a cookie is not needed and not checked. */
	sst_nego_set_under_load(S.tp.h, false);
	CU_ASSERT_EQUAL(ask(&a, msg, len, 2 * SST_NEGO_COOKIE_PERIOD, &r1, &copy), 1);
	CU_ASSERT_TRUE(!sst_nego_chkr1_wants_cookie(&r1) && S.tp.established == 2);
	CU_ASSERT_EQUAL(st->rx_i1_cookie_bad, 6);
	pair_fini();
}

/* The rate limiter's memory is its fixed table: 8 cells serve 1000
 * cookie-proven sources (3 setups each, all within their rate: a new
 * source always finds a cell); the host's size does not depend on them.
 * One source beyond its burst is still held back. */
static void
test_rate_limit_memory(void)
{
	const struct sst_nego_stats *st;
	unsigned int ok = 0;
	size_t size;

	pair_init(false);
	S.tp.p.rate_slots = 8;
	S.tp.p.max_responding = 4096;
	size = sst_nego_host_size(&S.tp.p);
	pair_start();
	st = sst_nego_stats(S.tp.h);
	sst_nego_set_under_load(S.tp.h, true);
	for (uint32_t k = 0; k < 1000; k++) {
		struct sst_nego_addr a = tp_addr(0xcb010000 + k, 4000);

		for (uint32_t j = 0; j < 3; j++)
			ok += setup_with_cookie(&a, 0x10000 * j + k, 1 + j, k * MS);
	}
	CU_ASSERT_TRUE(ok == 3000 && st->rx_rate_limited == 0);
	for (uint32_t j = 0; j < 10; j++) {
		struct sst_nego_addr a = tp_addr(0xcb020000, 4000);

		ok += setup_with_cookie(&a, 0x900 + j, 1 + j, SEC);
	}
	CU_ASSERT_TRUE(ok == 3005 && st->rx_rate_limited == 5);
	CU_ASSERT_EQUAL(sst_nego_host_size(&S.tp.p), size);
	pair_fini();
}

/* The 3x bound, measured (docs/negotiation.md 5.2): for each kind of I1 an
 * unproven address can send, what comes back per byte, by S's counters;
 * never above 3, also for a message of several ChkI1 chunks (the first
 * one has the message's budget, the others none). */
static void
test_amplification_figures(void)
{
	const struct sst_nego_stats *st;
	struct sst_nego_addr a = tp_addr(0xcb007401, 4000);
	uint8_t msg[256], four[512];
	struct sst_nego_builder b;
	uint64_t rx0, tx0;
	size_t len;

	pair_init(true);
	pair_start();
	st = sst_nego_stats(S.tp.h);
#define FIGURE(what)                                                                               \
	do {                                                                                       \
		uint64_t rx = st->amp_rx_bytes - rx0, tx = st->amp_tx_bytes - tx0;                 \
                                                                                                   \
		CU_ASSERT_TRUE(rx > 0 && tx <= 3 * rx);                                            \
		printf("\n  %-44s %3llu bytes in, %3llu out: %.2fx", what, (unsigned long long)rx, \
			(unsigned long long)tx, (double)tx / (double)rx);                          \
		rx0 = st->amp_rx_bytes;                                                            \
		tx0 = st->amp_tx_bytes;                                                            \
	} while (0)
	rx0 = tx0 = 0;
	len = chk_i1(msg, sizeof(msg), 0x11, 1, false, NULL, 0);
	sst_nego_receive(S.tp.h, &a, msg, len, 0);
	FIGURE("legacy ChkI1 -> ChkR1");
	len = chk_i1(msg, sizeof(msg), 0x12, 2, true, NULL, 0);
	sst_nego_receive(S.tp.h, &a, msg, len, 0);
	FIGURE("SST-DPDK ChkI1 -> ChkR1");
	sst_nego_set_under_load(S.tp.h, true);
	len = chk_i1(msg, sizeof(msg), 0x13, 3, true, NULL, 0);
	sst_nego_receive(S.tp.h, &a, msg, len, 0);
	FIGURE("SST-DPDK ChkI1 under load -> cookie request");
	sst_nego_set_under_load(S.tp.h, false);
	CU_ASSERT_FATAL(sst_nego_connect(C.tp.h, &S.tp.self, SST_NEGO_MODE_SECURE, 0) > 0);
	a.bytes[3]++; /* a new (address, chani) */
	sst_nego_receive(S.tp.h, &a, C.tp.out[0].b, C.tp.out[0].len, 0);
	FIGURE("SecI1 -> SecR1");
	sst_nego_set_under_load(S.tp.h, true);
	a.bytes[3]++;
	sst_nego_receive(S.tp.h, &a, C.tp.out[0].b, C.tp.out[0].len, 0);
	FIGURE("SecI1 under load -> SecCookie");
	sst_nego_set_under_load(S.tp.h, false);
	a.bytes[3]++;
	sst_nego_build_begin(&b, four, sizeof(four));
	for (uint32_t k = 0; k < 4; k++) {
		struct sst_nego_msg m;
		struct sst_nego_iter it;
		struct sst_nego_chunk c;

		len = chk_i1(msg, sizeof(msg), 0x20 + k, 1 + k, true, NULL, 0);
		CU_ASSERT_EQUAL_FATAL(sst_nego_msg_parse(msg, len, &m), 0);
		sst_nego_iter_init(&it, &m);
		CU_ASSERT_FATAL(sst_nego_iter_next(&it, &c));
		sst_nego_build_raw(&b, c.type, c.body.ptr, c.body.len);
	}
	len = sst_nego_build_end(&b);
	S.tp.nout = 0;
	sst_nego_receive(S.tp.h, &a, four, len, 0);
	FIGURE("4 ChkI1 in one message -> 1 ChkR1");
	CU_ASSERT_EQUAL(S.tp.nout, 1);
#undef FIGURE
	printf("\n");
	CU_ASSERT_TRUE(st->amp_tx_bytes <= 3 * st->amp_rx_bytes);
	pair_fini();
}

/* A random source for the cookie secret: each byte the next value. */
static void
step_random(void *ctx, void *buf, size_t len)
{
	uint8_t *next = ctx, *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = (*next)++;
}

/*
 * Rotation after a quiet spell. The secret is rotated lazily, when a cookie
 * is made or checked: a secret that was current until more than a period
 * ago must not stay valid as the previous one, or a cookie would live as
 * long as the quiet spell (sst-gen client --attack cookie-expiry: a SecI1
 * replayed 7 s after, with 3 s periods, was accepted). Rotations keep to
 * the period's grid, so that a cookie lives at most two periods.
 */
static void
test_cookie_quiet_spell(void)
{
	uint8_t srng = 1;
	struct sst_secure_cookie_secret sec;
	uint8_t s1[SST_SECURE_KEY_LEN];

	sst_secure_cookie_secret_init(&sec, step_random, &srng, 1000);
	/* 1.5 periods: the first secret is the previous one (cookies made
	 * with it up to 2000, valid until 3000), rotated "at" 2000. */
	CU_ASSERT_TRUE(sst_secure_cookie_secret_rotate(&sec, step_random, &srng, 2500, 1000));
	CU_ASSERT_TRUE(sec.has_prev);
	CU_ASSERT_EQUAL(sec.rotated_at, 2000);
	memcpy(s1, sec.cur, sizeof(s1));
	/* 2.5 periods after that rotation: s1 (current until 3000 at the
	 * latest) is stale; nothing is kept. */
	CU_ASSERT_TRUE(sst_secure_cookie_secret_rotate(&sec, step_random, &srng, 4500, 1000));
	CU_ASSERT_FALSE(sec.has_prev);
	CU_ASSERT(memcmp(sec.cur, s1, sizeof(s1)) != 0);
	CU_ASSERT_EQUAL(sec.rotated_at, 4000);
	/* One period on: the usual step, the current one kept. */
	memcpy(s1, sec.cur, sizeof(s1));
	CU_ASSERT_TRUE(sst_secure_cookie_secret_rotate(&sec, step_random, &srng, 5000, 1000));
	CU_ASSERT_TRUE(sec.has_prev);
	CU_ASSERT(memcmp(sec.prev, s1, sizeof(s1)) == 0);
	sst_secure_cookie_secret_wipe(&sec);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_secure_flood),
	SST_TEST(test_checksum_flood),
	SST_TEST(test_checksum_flood_legacy),
	SST_TEST(test_rate_limit),
	SST_TEST(test_checksum_amplification),
	SST_TEST(test_initiator_cookie),
	SST_TEST(test_hysteresis),
	SST_TEST(test_cookie_outcomes),
	SST_TEST(test_rate_limit_memory),
	SST_TEST(test_amplification_figures),
	SST_TEST(test_cookie_quiet_spell),
	SST_TEST_END,
};

SST_TEST_MAIN("nego_load", cases)
