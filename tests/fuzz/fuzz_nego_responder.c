/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the checksum-mode negotiation state machine
 * (lib/negotiation/nego_host.c, nego_checksum.c): a responder host R and an
 * initiator host I with an outstanding attempt, fed arbitrary messages.
 *
 * Input: a program of operations, one byte each, with operands after it
 * (bytes run out as zeros, which end the program):
 *   0 src len bytes[len]  message from address src to R
 *   1 src len bytes[len]  message from address src to I
 *   2 dt                  I's clock moves by dt x 100 ms (timers run), R's by dt ms
 *   3 k                   R releases its k-th held channel
 *   4 src                 R0 ping from src to I
 *   5 src                 I starts another attempt to src
 * I's first attempt goes to address 0 with the capture's key c21c5f62, so
 * the seeds (tests/fuzz/corpus/fuzz_nego_responder) hold the recorded ChkI1
 * and ChkR1 of chk-01 and variants.
 *
 * Invariants, after every operation:
 *  - R holds at most max_responding entries and exactly the channels the
 *    model says (one per (address, chani) accepted and not released: R's
 *    clock stays under 20 s, so an entry is replaced only by a restart,
 *    below);
 *  - R establishes only for a message that independently parses and holds
 *    a ChkI1 whose (address, chani) R did not hold, and never twice for
 *    one, unless that ChkI1's ulp blob (decoded here) carries an instance
 *    other than the held channel's and R reports peer_restarted
 *    (docs/negotiation.md 3.1: a new instance replaces the entry at once),
 *    or it carries no instance and its key is not the held one's
 *    straggler (3.2, key_kind() here: a key that moved against R's clock
 *    by more than 25 s is a restart, reported as peer_restarted; a newer
 *    one within that the same host's next channel, not a restart; an
 *    older one, or the key the held entry replaced, never replaces it);
 *  - I establishes as initiator only for a message from the attempt's
 *    address holding a ChkR1 that decodes, echoes an outstanding key, with
 *    chanr 1..255 and ckr != cki; at most once per attempt (I also answers
 *    ChkI1, as a responder holding at most 1 entry);
 *  - every message R sends is one well-formed ChkR1 echoing a held key, or a
 *    56-byte cookie request (chanr 0, ckr == cki, a 16-byte cookie, no
 *    ulpr) to the sender of the message being processed, echoing the key
 *    of one of its ChkI1 that carries an SST-DPDK ulp blob
 *    (docs/negotiation.md 5.1);
 *  - under load (R goes there by itself at 4 half-open entries, and leaves
 *    at 2: its channels are never confirmed, releases bring it back), a
 *    message whose ChkI1 carry no cookie adds no entry to R;
 *  - R never sends an address more than 3x what it received from
 *    unvalidated addresses (amp_tx_bytes <= 3 amp_rx_bytes);
 *  - channel numbers are never freed twice nor leaked: numbers in use equal
 *    R's channels, and I's attempts plus I's channels.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "fuzz_check.h"
#include "fuzz_nego.h"
#include "nego_wire.h"
#include "sst_negotiation.h"

enum { MAX_RESP = 8, MAX_INIT = 4, MODEL_MAX = 64 };

#define CAP_CKI UINT32_C(0xc21c5f62)

struct side {
	struct sst_nego_host *h;
	struct fuzz_nego_chans chans;
	unsigned int established;
	struct sst_nego_result last;
	unsigned int sent;
	int keys_given;
	sst_time_t now;
};

static struct side R, I;
/* Model of R's table: (address, chani) -> local channel. */
static struct {
	unsigned int a;
	uint8_t chani, local;
	uint32_t cki;
	uint64_t inst;	   /* instance in its ChkI1's blob, 0: none */
	sst_time_t at;	   /* R's clock when it accepted it */
	uint32_t prev_cki; /* the key of the entry it replaced, 0: none */
} model[MODEL_MAX];
static unsigned int nmodel;
/* What the message being processed holds, parsed independently. */
static struct {
	bool valid_i1[SST_NEGO_CHUNKS_MAX];
	bool extended[SST_NEGO_CHUNKS_MAX]; /* its ulpi is an SST-DPDK blob */
	struct sst_nego_chki1 i1[SST_NEGO_CHUNKS_MAX];
	unsigned int ni1;
	bool cookie; /* a valid ChkI1 carries a cookie */
	bool has_r1;
	struct sst_nego_chkr1 r1[SST_NEGO_CHUNKS_MAX];
	unsigned int nr1;
	unsigned int src;
} cur;
/* I's outstanding keys: (address, key), and which were answered. */
static struct {
	unsigned int a;
	uint32_t cki;
	bool live;
} att[64];
static unsigned int natt;

/* Whether a ulp blob is an SST-DPDK one, independently (docs/negotiation.md
 * 3): at least 12 bytes, magic "SSTD", version not 0. */
static bool
blob_extended(const struct sst_bytes *b)
{
	return b->len >= 12 && b->ptr[0] == 0x53 && b->ptr[1] == 0x53 && b->ptr[2] == 0x54 &&
	       b->ptr[3] == 0x44 && (b->ptr[4] | b->ptr[5] | b->ptr[6] | b->ptr[7]) != 0;
}

/* The instance of a ulp blob, independently (docs/negotiation.md 3):
 * magic, version >= 2, 8 bytes after the capabilities; 0: none. */
static uint64_t
blob_instance(const struct sst_bytes *b)
{
	uint64_t v = 0;

	if (b->len < 20 || b->ptr[0] != 0x53 || b->ptr[1] != 0x53 || b->ptr[2] != 0x54 ||
		b->ptr[3] != 0x44 || ((b->ptr[4] | b->ptr[5] | b->ptr[6]) == 0 && b->ptr[7] < 2))
		return 0;
	for (int i = 12; i < 20; i++)
		v = v << 8 | b->ptr[i];
	return v;
}

static void
on_transmit(void *ctx, const struct sst_nego_addr *to, const void *msg, size_t len, sst_time_t now)
{
	struct side *s = ctx;
	struct sst_nego_chunk c;

	(void)now;
	s->sent++;
	c = fuzz_nego_sent_chunk(msg, len);
	if (s == &R) {
		struct sst_nego_chkr1 r1;
		bool held = false;
		unsigned int a = addr_index(to);

		FUZZ_CHECK(c.type == SST_NEGO_CHKR1 && sst_nego_chkr1_decode(&c.body, &r1) == 0);
		if (sst_nego_chkr1_wants_cookie(&r1)) {
			bool asked = false;

			FUZZ_CHECK(len == 56 && r1.chanr == 0 && r1.ckr == r1.cki &&
				   r1.cookie.len == SST_NEGO_COOKIE_LEN && r1.ulpr.len == 0);
			FUZZ_CHECK(a == cur.src);
			for (unsigned int k = 0; k < cur.ni1; k++)
				asked |= cur.valid_i1[k] && cur.extended[k] &&
					 cur.i1[k].cki == r1.cki;
			FUZZ_CHECK(asked);
			return;
		}
		for (unsigned int k = 0; k < nmodel; k++)
			held |= model[k].a == a && model[k].cki == r1.cki &&
				model[k].local == r1.chanr;
		/* An answer to a new ChkI1 is sent after established(), which
		 * added it to the model. */
		FUZZ_CHECK(held);
	} else {
		struct sst_nego_chki1 i1;
		struct sst_nego_chkr1 r1;

		/* I's attempts send ChkI1; I answers a peer's ChkI1 with ChkR1. */
		FUZZ_CHECK((c.type == SST_NEGO_CHKI1 && sst_nego_chki1_decode(&c.body, &i1) == 0) ||
			   (c.type == SST_NEGO_CHKR1 && sst_nego_chkr1_decode(&c.body, &r1) == 0));
	}
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

/* How a ChkI1 without an instance that names a held (address, chani)
 * with another key reads (docs/negotiation.md 3.2): keys are a hash plus
 * the sender's clock in 4-us units, so the new key's distance from the held
 * one, against R's clock since it accepted that one, tells another secret
 * (beyond 25 s either way: a restart) from the same host's next channel
 * (a newer key) and a straggler (an older one). */
enum { KEY_STRAY, KEY_NEXT, KEY_RESTART };

static int
key_kind(uint32_t held, sst_time_t held_at, uint32_t cki, sst_time_t now)
{
	const int32_t slack = 25 * 250000; /* 25 s in 4-us units */
	int32_t moved = (int32_t)(cki - held);
	int32_t off = (int32_t)(cki - held - (uint32_t)((now - held_at) / 4000));

	if (off > slack || off < -slack)
		return KEY_RESTART;
	return moved > 0 ? KEY_NEXT : KEY_STRAY;
}

static int
on_established(void *ctx, const struct sst_nego_result *r, sst_time_t now)
{
	struct side *s = ctx;
	unsigned int a = addr_index(&r->peer);
	bool ok = false;

	s->established++;
	s->last = *r;
	FUZZ_CHECK(r->mode == SST_NEGO_MODE_CHECKSUM && r->suite == SST_CRYPTO_CHK32);
	FUZZ_CHECK(r->local_channel != 0 && r->peer_channel != 0);
	FUZZ_CHECK(r->keys.tx_chk_key != r->keys.rx_chk_key);
	FUZZ_CHECK(a == cur.src);
	FUZZ_CHECK(s == &I || r->role == SST_NEGO_RESPONDER);
	if (r->role == SST_NEGO_RESPONDER) {
		uint64_t inst = 0;
		unsigned int slot = nmodel;
		uint32_t prev = 0;

		for (unsigned int k = 0; k < cur.ni1; k++)
			if (cur.valid_i1[k] && cur.i1[k].chani == r->peer_channel &&
				cur.i1[k].cki == r->keys.rx_chk_key) {
				ok = true;
				inst = blob_instance(&cur.i1[k].ulpi);
			}
		FUZZ_CHECK(ok);
		FUZZ_CHECK(r->peer_instance_known == (inst != 0) && r->peer_instance == inst);
		if (s == &I)
			return 0; /* I answers ChkI1 too; its table is checked by size */
		for (unsigned int k = 0; k < nmodel; k++) {
			if (!(model[k].a == a && model[k].chani == r->peer_channel))
				continue;
			if (inst != 0) {
				/* Only another instance replaces a held entry this
				 * soon (nego_restart_supersedes()). Whether that is
				 * reported as a restart is the peer table's call (a
				 * restart another channel already reported, or a peer
				 * whose channels are all gone, is not one), tested in
				 * test_nego_instance; the model does not follow it. */
				FUZZ_CHECK(inst != model[k].inst);
			} else {
				int kind = key_kind(
					model[k].cki, model[k].at, r->keys.rx_chk_key, now);

				FUZZ_CHECK(kind != KEY_STRAY &&
					   r->keys.rx_chk_key != model[k].prev_cki);
				FUZZ_CHECK(r->peer_restarted == (kind == KEY_RESTART));
			}
			prev = model[k].cki;
			slot = k;
		}
		FUZZ_CHECK(slot < MODEL_MAX);
		model[slot].a = a;
		model[slot].chani = r->peer_channel;
		model[slot].local = r->local_channel;
		model[slot].cki = r->keys.rx_chk_key;
		model[slot].inst = inst;
		model[slot].at = now;
		model[slot].prev_cki = prev;
		if (slot == nmodel)
			nmodel++;
	} else {
		for (unsigned int k = 0; k < cur.nr1; k++)
			ok |= cur.r1[k].cki == r->keys.tx_chk_key &&
			      cur.r1[k].ckr == r->keys.rx_chk_key &&
			      cur.r1[k].chanr == r->peer_channel;
		FUZZ_CHECK(ok);
		ok = false;
		for (unsigned int k = 0; k < natt; k++) {
			if (att[k].live && att[k].a == a && att[k].cki == r->keys.tx_chk_key) {
				att[k].live = false;
				ok = true;
				break;
			}
		}
		FUZZ_CHECK(ok);
	}
	return 0;
}

static void
on_failed(void *ctx, const struct sst_nego_addr *peer, uint8_t local_channel, int error,
	sst_time_t now)
{
	(void)ctx;
	(void)peer;
	(void)local_channel;
	(void)now;
	FUZZ_CHECK(error == -ETIMEDOUT);
}

/* I's keys: the capture's for its first attempt, then distinct ones. */
static uint32_t
on_key(void *ctx, uint8_t local_channel, const struct sst_nego_addr *peer, sst_time_t now)
{
	struct side *s = ctx;

	(void)peer;
	(void)now;
	if (s == &R)
		return 0x35d53d2a + local_channel;
	return s->keys_given++ == 0 ? CAP_CKI : CAP_CKI + 0x100u * (uint32_t)s->keys_given;
}

static const struct sst_nego_ops ops = {
	.transmit = on_transmit,
	.chan_alloc = on_alloc,
	.chan_free = on_free,
	.established = on_established,
	.failed = on_failed,
	.chk_key = on_key,
};

static void
side_init(struct side *s, uint32_t max_init, uint32_t max_resp)
{
	struct sst_nego_host_params p = fuzz_nego_params(s == &R ? 0x52 : 0x49, &ops, s);

	p.max_initiating = max_init;
	p.max_responding = max_resp;
	if (s == &R) {
		p.load_high = 4;
		p.load_low = 2;
	}
	if (s->h == NULL) {
		s->h = fuzz_nego_host_alloc(&p);
	} else {
		sst_nego_host_fini(s->h);
	}
	memset(&s->chans, 0, sizeof(s->chans));
	s->established = s->sent = 0;
	s->keys_given = 0;
	s->now = 0;
	FUZZ_CHECK(sst_nego_host_init(s->h, &p) == 0);
}

static void
note_chunk(const struct sst_nego_chunk *c)
{
	if (c->type == SST_NEGO_CHKI1) {
		cur.valid_i1[cur.ni1] = sst_nego_chki1_decode(&c->body, &cur.i1[cur.ni1]) == 0;
		if (cur.valid_i1[cur.ni1]) {
			cur.extended[cur.ni1] = blob_extended(&cur.i1[cur.ni1].ulpi);
			cur.cookie |= cur.i1[cur.ni1].cookie.len > 0;
		}
		cur.ni1++;
	} else if (c->type == SST_NEGO_CHKR1 &&
		   sst_nego_chkr1_decode(&c->body, &cur.r1[cur.nr1]) == 0 &&
		   !sst_nego_chkr1_wants_cookie(&cur.r1[cur.nr1]))
		cur.nr1++;
}

/* Parse the message independently, for the established() checks. */
static void
expect(const uint8_t *p, size_t len, unsigned int src)
{
	memset(&cur, 0, sizeof(cur));
	cur.src = src;
	fuzz_nego_each_chunk(p, len, note_chunk);
}

static void
check_invariants(void)
{
	unsigned int live = 0, i_chans = 0;

	FUZZ_CHECK(sst_nego_responding(R.h) <= MAX_RESP);
	FUZZ_CHECK(sst_nego_responding(R.h) == nmodel);
	FUZZ_CHECK(sst_nego_stats(R.h)->amp_tx_bytes <= 3 * sst_nego_stats(R.h)->amp_rx_bytes);
	/* R's numbers: one per channel it ever established (released ones
	 * stay the caller's: the fuzzer never frees them). */
	FUZZ_CHECK(R.chans.in_use == R.established);
	FUZZ_CHECK(sst_nego_initiating(I.h) <= MAX_INIT);
	FUZZ_CHECK(sst_nego_responding(I.h) <= 1);
	for (unsigned int k = 0; k < natt; k++)
		live += att[k].live;
	i_chans = I.established;
	FUZZ_CHECK(I.chans.in_use == sst_nego_initiating(I.h) + i_chans);
	FUZZ_CHECK(sst_nego_initiating(I.h) <= live);
}

static void
connect_i(unsigned int a)
{
	int chan = sst_nego_connect(I.h, &addrs[a], SST_NEGO_MODE_CHECKSUM, I.now);

	if (chan > 0 && natt < RTE_DIM(att)) {
		att[natt].a = a;
		att[natt].cki =
			I.keys_given == 1 ? CAP_CKI : CAP_CKI + 0x100u * (uint32_t)I.keys_given;
		att[natt].live = true;
		natt++;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = {data, size};
	uint8_t msg[1024];

	fuzz_nego_addrs_init(127);
	side_init(&R, 1, MAX_RESP);
	side_init(&I, MAX_INIT, 1);
	nmodel = natt = 0;
	connect_i(0);
	check_invariants();
	for (;;) {
		uint8_t op = fuzz_take(&in);
		unsigned int src, len;

		if (op == 0 && in.left == 0)
			break;
		switch (op % 6) {
		case 0:
		case 1:
			len = fuzz_nego_take_message(&in, msg, sizeof(msg), &src);
			expect(msg, len, src);
			if (op % 6 == 0) {
				/* Zero state per unproven ChkI1 under load. */
				uint32_t before = sst_nego_responding(R.h);
				bool loaded = sst_nego_under_load(R.h);

				sst_nego_receive(R.h, &addrs[src], msg, len, R.now);
				if (loaded && !cur.cookie)
					FUZZ_CHECK(sst_nego_responding(R.h) <= before);
			} else {
				sst_nego_receive(I.h, &addrs[src], msg, len, I.now);
			}
			break;
		case 2: {
			uint8_t dt = fuzz_take(&in);

			I.now += (sst_time_t)dt * 100 * SST_NSEC_PER_MSEC;
			if (R.now + dt * SST_NSEC_PER_MSEC < 19 * SST_NSEC_PER_SEC)
				R.now += (sst_time_t)dt * SST_NSEC_PER_MSEC;
			while (sst_nego_next_expiry(I.h) <= I.now)
				sst_nego_handle_expiry(I.h, sst_nego_next_expiry(I.h));
			break;
		}
		case 3:
			if (nmodel > 0) {
				unsigned int k = fuzz_take(&in) % nmodel;

				FUZZ_CHECK(sst_nego_release(R.h, &addrs[model[k].a], model[k].local,
						   model[k].chani) == 0);
				model[k] = model[--nmodel];
			}
			break;
		case 4: {
			static const uint8_t r0[8] = {0, 0x53, 0x53, 0x54, 0, 0, 0, 0};

			src = fuzz_take(&in) % NADDR;
			expect(r0, sizeof(r0), src);
			FUZZ_CHECK(sst_nego_receive(I.h, &addrs[src], r0, sizeof(r0), I.now) == 0);
			break;
		}
		default:
			connect_i(fuzz_take(&in) % NADDR);
			break;
		}
		check_invariants();
	}
	return 0;
}
