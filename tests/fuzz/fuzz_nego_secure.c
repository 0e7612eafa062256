/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for secure mode in the negotiation host
 * (lib/negotiation/nego_secure_host.c, nego_host.c, nego_ratelimit.c): a
 * secure responder R and a secure initiator I that pin each other's keys,
 * fed arbitrary messages mixed with their genuine ones.
 *
 * Input: a program of operations, one byte each, with operands after it
 * (bytes run out as zeros, which end the program):
 *   0 src len bytes[len]  message from address src to R
 *   1 src len bytes[len]  message from address src to I
 *   2 k                   forward the k-th latest message I sent to R (from address 0)
 *   3 k                   forward the k-th latest message R sent to I (from address 0)
 *   4 k pos x             like 2, with byte pos of the message XORed with x (x != 0)
 *   5 dt                  both clocks move by dt x 100 ms; timers run
 *   6 x                   x % 4: 0 I connects to address 0, 1 R under load,
 *                         2 R not under load, 3 I confirms its latest channel
 *   7 k                   R releases its k-th established channel
 * len 0xff takes the rest of the input. The seeds
 * (tests/fuzz/corpus/fuzz_nego_secure) are programs of genuine handshakes,
 * with cookies, retransmissions, expiry and tampering.
 *
 * Invariants, after every operation:
 *  - R holds at most max_responding entries and at most max_half_open
 *    half-open ones; its channel numbers in use are exactly its established
 *    channels plus its half-open entries; I's are its established channels
 *    plus its open attempts (nothing leaks, nothing is freed twice);
 *  - R is established only by a message that holds a SecI2 chunk, and then
 *    I was established earlier for the same handshake (same half-channel
 *    IDs) with mirrored keys, suite and channel numbers, and the result
 *    names I's key as KNOWN (R pins it; nobody else has I's key);
 *  - I is established as initiator only by a message from address 0 that
 *    holds a SecR1 chunk, with R's key as KNOWN;
 *  - under load (told by op 6, or by itself at 3 half-open entries, left
 *    at 1), a message without a SecI1 that carries a cookie never adds an
 *    entry to R (zero state per unproven initiator);
 *  - R never sends an unvalidated address more than 3x what it received
 *    from unvalidated addresses (amp_tx_bytes <= 3 amp_rx_bytes);
 *  - everything R sends is one well-formed SecR1, SecCookie or SecRefuse;
 *    everything I sends is one secure chunk;
 *  - a SecRefuse (either side answers a SecI1 without a mutual suite with
 *    one) is smaller than the message that caused it, and a refused attempt
 *    of I gives its channel number back (the count above).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <sodium.h>

#include "fuzz_check.h"
#include "fuzz_nego.h"
#include "sst_test_rng.h"
#include "nego_secure.h"
#include "nego_wire.h"
#include "sst_negotiation.h"

enum { MAX_RESP = 8, MAX_HALF = 4, MAX_INIT = 4, QLEN = 8, MSG_MAX = 1024, NRES = 64 };

struct qmsg {
	size_t len;
	uint8_t b[MSG_MAX];
};

struct side {
	struct sst_nego_host *h;
	struct sst_secure_identity id;
	struct sst_secure_host hosts[1];
	struct sst_secure_known_hosts kh;
	struct sst_secure_config cfg;
	uint64_t rng;
	struct fuzz_nego_chans chans;
	unsigned int established;
	struct sst_nego_result res[NRES]; /* established results, in order */
	unsigned int nres;
	struct qmsg q[QLEN];
	unsigned int nq; /* messages sent (ring index = nq % QLEN) */
};

static struct side R, I;
static sst_time_t now;
static bool under_load;
static int last_chan; /* I's latest channel, for confirm */
/* What the message being processed holds, parsed independently. */
static struct {
	unsigned int src;
	size_t len; /* 0 outside sst_nego_receive(): timer transmissions */
	bool seci2, secr1, seci1_cookie;
} cur;

static void
rng_fill(void *ctx, void *buf, size_t len)
{
	sst_test_splitmix_fill(ctx, buf, len);
}

static void
on_transmit(void *ctx, const struct sst_nego_addr *to, const void *msg, size_t len, sst_time_t t)
{
	struct side *s = ctx;
	struct sst_nego_chunk c;
	struct qmsg *q;

	(void)to;
	(void)t;
	FUZZ_CHECK(len <= MSG_MAX);
	c = fuzz_nego_sent_chunk(msg, len);
	if (s == &R)
		FUZZ_CHECK(c.type == SST_NEGO_SECR1 || c.type == SST_NEGO_SECCOOKIE ||
			   c.type == SST_NEGO_SECREFUSE);
	else
		FUZZ_CHECK(c.type >= SST_NEGO_SECI1 && c.type <= SST_NEGO_SECREFUSE);
	/* Spec 3.6: a refusal never amplifies. */
	if (c.type == SST_NEGO_SECREFUSE)
		FUZZ_CHECK(cur.len > 0 && len < cur.len);
	q = &s->q[s->nq++ % QLEN];
	q->len = len;
	memcpy(q->b, msg, len);
}

static int
on_alloc(void *ctx, const struct sst_nego_addr *peer)
{
	return fuzz_nego_chan_take(&((struct side *)ctx)->chans, peer);
}

static void
on_free(void *ctx, const struct sst_nego_addr *peer, uint8_t chan)
{
	fuzz_nego_chan_give(&((struct side *)ctx)->chans, peer, chan);
}

static int
on_established(void *ctx, const struct sst_nego_result *r, sst_time_t t)
{
	struct side *s = ctx;
	bool found = false;

	(void)t;
	FUZZ_CHECK(r->mode == SST_NEGO_MODE_SECURE && r->suite != SST_CRYPTO_NULL);
	FUZZ_CHECK(r->local_channel != 0 && r->peer_channel != 0);
	FUZZ_CHECK(r->hcid_len == SST_NEGO_HCID_SEC_LEN);
	FUZZ_CHECK(addr_index(&r->peer) == cur.src);
	FUZZ_CHECK(r->peer_status == SST_SECURE_PEER_KNOWN);
	if (s == &R) {
		FUZZ_CHECK(r->role == SST_NEGO_RESPONDER && cur.seci2);
		FUZZ_CHECK(memcmp(r->peer_id, I.id.pk, SST_SECURE_KEY_LEN) == 0);
		/* Only I holds its key: I established this very handshake. */
		for (unsigned int k = 0; k < I.nres && !found; k++) {
			const struct sst_nego_result *x = &I.res[k];

			if (memcmp(x->tx_hcid, r->rx_hcid, SST_NEGO_HCID_SEC_LEN) != 0)
				continue;
			found = true;
			FUZZ_CHECK(memcmp(x->rx_hcid, r->tx_hcid, SST_NEGO_HCID_SEC_LEN) == 0);
			FUZZ_CHECK(x->suite == r->suite && x->peer_channel == r->local_channel &&
				   x->local_channel == r->peer_channel);
			FUZZ_CHECK(memcmp(x->keys.tx_key, r->keys.rx_key, sizeof(x->keys.tx_key)) ==
				   0);
			FUZZ_CHECK(memcmp(x->keys.rx_key, r->keys.tx_key, sizeof(x->keys.rx_key)) ==
				   0);
		}
		FUZZ_CHECK(found || I.nres == NRES);
	} else {
		/* I also answers SecI1 as a responder; only its own attempts
		 * are checked as an initiator. */
		if (r->role == SST_NEGO_RESPONDER)
			FUZZ_CHECK(cur.seci2);
		else
			FUZZ_CHECK(cur.secr1 && cur.src == 0 &&
				   memcmp(r->peer_id, R.id.pk, SST_SECURE_KEY_LEN) == 0);
	}
	if (s->nres < NRES)
		s->res[s->nres++] = *r;
	s->established++;
	return 0;
}

static const struct sst_nego_ops ops = {
	.transmit = on_transmit,
	.chan_alloc = on_alloc,
	.chan_free = on_free,
	.established = on_established,
};

/* R pins I's key and I pins R's: the two seeds are fixed. */
static void
side_init(struct side *s)
{
	struct sst_nego_host_params p;
	struct sst_secure_identity peer;
	uint8_t seed[32];

	if (s->h != NULL)
		sst_nego_host_fini(s->h);
	memset(seed, s == &R ? 0x52 : 0x49, sizeof(seed));
	FUZZ_CHECK(sst_secure_identity_from_seed(&s->id, seed) == 0);
	memset(seed, s == &R ? 0x49 : 0x52, sizeof(seed));
	FUZZ_CHECK(sst_secure_identity_from_seed(&peer, seed) == 0);
	s->kh = (struct sst_secure_known_hosts){s->hosts, 1, 0};
	FUZZ_CHECK(sst_secure_known_hosts_add(&s->kh, "peer", peer.pk) == 0);
	s->rng = s == &R ? 1 : 2;
	memset(&s->cfg, 0, sizeof(s->cfg));
	s->cfg.size = sizeof(s->cfg);
	s->cfg.identity = &s->id;
	s->cfg.known_hosts = &s->kh;
	sst_secure_suites_default(&s->cfg, true, s == &R);
	s->cfg.random = rng_fill;
	s->cfg.random_ctx = &s->rng;
	p = fuzz_nego_params(s == &R ? 0x52 : 0x49, &ops, s);
	p.max_initiating = MAX_INIT;
	p.max_responding = s == &R ? MAX_RESP : 2;
	p.max_half_open = s == &R ? MAX_HALF : 0;
	p.load_high = 3;
	p.load_low = 1;
	p.rate_slots = 4;
	p.rate_per_sec = 20;
	p.rate_burst = 8;
	p.secure = &s->cfg;
	if (s->h == NULL)
		s->h = fuzz_nego_host_alloc(&p);
	memset(&s->chans, 0, sizeof(s->chans));
	s->established = s->nres = s->nq = 0;
	FUZZ_CHECK(sst_nego_host_init(s->h, &p) == 0);
}

static void
note_chunk(const struct sst_nego_chunk *c)
{
	struct sst_secure_i1_info info;

	cur.seci2 |= c->type == SST_NEGO_SECI2;
	cur.secr1 |= c->type == SST_NEGO_SECR1;
	if (c->type == SST_NEGO_SECI1 && sst_secure_i1_info(&c->body, &info) == 0)
		cur.seci1_cookie |= info.cookie_len > 0;
}

/* Parse the message independently, for the established() checks. */
static void
expect(const uint8_t *p, size_t len, unsigned int src)
{
	memset(&cur, 0, sizeof(cur));
	cur.src = src;
	cur.len = len;
	fuzz_nego_each_chunk(p, len, note_chunk);
}

static void
check_invariants(void)
{
	const struct sst_nego_stats *rs = sst_nego_stats(R.h);

	FUZZ_CHECK(sst_nego_responding(R.h) <= MAX_RESP);
	FUZZ_CHECK(sst_nego_half_open(R.h) <= MAX_HALF);
	FUZZ_CHECK(sst_nego_half_open(R.h) <= sst_nego_responding(R.h));
	FUZZ_CHECK(R.chans.in_use == R.established + sst_nego_half_open(R.h));
	FUZZ_CHECK(sst_nego_initiating(I.h) <= MAX_INIT);
	FUZZ_CHECK(I.chans.in_use ==
		   I.established + sst_nego_initiating(I.h) + sst_nego_half_open(I.h));
	FUZZ_CHECK(rs->amp_tx_bytes <= 3 * rs->amp_rx_bytes);
	FUZZ_CHECK(rs->established_responder == R.established);
}

/* Deliver to R, checking the zero-state rule under load. */
static void
to_r(const uint8_t *msg, size_t len, unsigned int src)
{
	uint32_t before = sst_nego_responding(R.h);
	bool loaded = sst_nego_under_load(R.h);

	FUZZ_CHECK(loaded || !under_load);
	expect(msg, len, src);
	sst_nego_receive(R.h, &addrs[src], msg, len, now);
	if (loaded && !cur.seci1_cookie)
		FUZZ_CHECK(sst_nego_responding(R.h) <= before);
}

static const struct qmsg *
latest(const struct side *s, unsigned int k)
{
	if (s->nq == 0)
		return NULL;
	k %= RTE_MIN(s->nq, (unsigned int)QLEN);
	return &s->q[(s->nq - 1 - k) % QLEN];
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = {data, size};
	uint8_t msg[MSG_MAX];

	fuzz_nego_addrs_init(10);
	side_init(&R);
	side_init(&I);
	now = 0;
	under_load = false;
	last_chan = 0;
	check_invariants();
	for (;;) {
		uint8_t op = fuzz_take(&in);
		const struct qmsg *q;
		unsigned int src, len;

		if (op == 0 && in.left == 0)
			break;
		switch (op % 8) {
		case 0:
		case 1:
			len = fuzz_nego_take_message(&in, msg, sizeof(msg), &src);
			if (op % 8 == 0) {
				to_r(msg, len, src);
			} else {
				expect(msg, len, src);
				sst_nego_receive(I.h, &addrs[src], msg, len, now);
			}
			break;
		case 2:
		case 4: {
			uint8_t k = fuzz_take(&in);

			q = latest(&I, k);
			if (q == NULL)
				break;
			memcpy(msg, q->b, q->len);
			if (op % 8 == 4) {
				uint8_t pos = fuzz_take(&in), x = fuzz_take(&in);

				msg[pos % q->len] ^= x != 0 ? x : 1;
			}
			to_r(msg, q->len, 0);
			break;
		}
		case 3:
			q = latest(&R, fuzz_take(&in));
			if (q == NULL)
				break;
			memcpy(msg, q->b, q->len);
			expect(msg, q->len, 0);
			sst_nego_receive(I.h, &addrs[0], msg, q->len, now);
			break;
		case 5:
			cur.len = 0;
			now += (sst_time_t)fuzz_take(&in) * 100 * SST_NSEC_PER_MSEC;
			while (sst_nego_next_expiry(I.h) <= now)
				sst_nego_handle_expiry(I.h, sst_nego_next_expiry(I.h));
			sst_nego_handle_expiry(R.h, now);
			break;
		case 6:
			switch (fuzz_take(&in) % 4) {
			case 0: {
				int c = sst_nego_connect(I.h, &addrs[0], SST_NEGO_MODE_SECURE, now);

				FUZZ_CHECK(c > 0 || c == -ENOSPC);
				if (c > 0)
					last_chan = c;
				break;
			}
			case 1:
			case 2:
				under_load = op == 6 && in.p[-1] % 4 == 1;
				sst_nego_set_under_load(R.h, under_load);
				break;
			default:
				if (last_chan > 0)
					sst_nego_confirm(I.h, &addrs[0], (uint8_t)last_chan);
				break;
			}
			break;
		default:
			if (R.nres > 0) {
				const struct sst_nego_result *x = &R.res[fuzz_take(&in) % R.nres];

				sst_nego_release(R.h, &x->peer, x->local_channel, x->peer_channel);
			}
			break;
		}
		check_invariants();
	}
	return 0;
}
