/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the chk32 armor driver (drivers/crypto/chk32) and of what it
 * builds on in lib/channel: sst_chk32_mbuf() against sst_chk32() over every
 * way of cutting a packet into segments, the driver against real prototype
 * packets (vectors chk-01 and chk-07) flat and split at every point, the
 * trailer-segment path for shared and full last segments, rejection of every
 * corrupted byte, wrong sequence numbers and keys, burst ordering, and
 * sst_crypto_mbuf_trim(). The null driver's pass-through is checked too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "channel_wire.h"
#include "crypto_test_util.h"
#include "sst_crypto_driver.h"
#include "sst_test.h"
#include "sst_test_eal.h"

#define KEY_C UINT32_C(0xc21c5f62) /* chk-01 cki: key of C->S packets */
#define KEY_S UINT32_C(0x35d53d2a) /* chk-01 ckr: key of S->C packets */
#define POOL_SIZE 1023

static struct rte_mempool *pool;
static const struct sst_crypto_ops *ops;

/* Whole UDP payloads (trailer included) of captured channel packets. */
static const struct {
	const char *hex;
	uint64_t seq;
	uint32_t key;
} packets[] = {
	/* chk-01 #3: the README's worked example, trailer debe8592. */
	{"010000010000000000011610000000000000010100000007696e7465726f7000000000046563686f"
	 "debe8592",
		1, KEY_C},
	/* chk-01 #5: Chk32 d0b7aa16 + 35d53d2a = 068ce740. */
	{"010000010100000100012610000100000000020100000000068ce740", 1, KEY_S},
	/* chk-01 #4, #6 (odd lengths), #7, #8 (ack-only). */
	{"0100000200000000000114100000001848656c6c6f2066726f6d207468652053535420323030372070"
	 "726f746f7479706520696e7465726f7020636c69656e7421592b3d6a",
		2, KEY_C},
	{"0100000201000001000124100001000848656c6c6f2066726f6d207468652053535420323030372070"
	 "726f746f7479706520696e7465726f7020636c69656e7421aa7b2c24",
		2, KEY_S},
	{"010000030200000200015010f371327b", 3, KEY_C},
	{"0100000303000003000150106c2e1144", 3, KEY_S},
	/* chk-07 #243: Attach on channel 2, key 33c269b4. */
	{"020000010000000000017010000000000000000100000008d974d4aeab1d6a8d7f471f99", 1, 0x33c269b4},
};

#define NPKT (sizeof(packets) / sizeof(packets[0]))

struct capture {
	uint8_t wire[128];
	uint32_t len;  /* with trailer */
	uint32_t body; /* without */
};

static void
load(size_t i, struct capture *c)
{
	c->len = (uint32_t)sst_test_hex(packets[i].hex, c->wire, sizeof(c->wire));
	c->body = c->len - 4;
}

/* A sender's and a receiver's session for one key. */
static void
sessions(uint32_t key, struct ct_session *tx, struct ct_session *rx)
{
	struct sst_crypto_keys k;

	memset(&k, 0, sizeof(k));
	k.tx_chk_key = key;
	k.rx_chk_key = key ^ 0xffffffff; /* unused direction */
	CU_ASSERT_EQUAL(ops->session_init(tx->mem, &k), 0);
	k.tx_chk_key = key ^ 0xffffffff;
	k.rx_chk_key = key;
	CU_ASSERT_EQUAL(ops->session_init(rx->mem, &k), 0);
}

static int
seal1(struct ct_session *s, struct rte_mbuf **m, uint64_t seq)
{
	return ops->seal_burst(s->mem, m, &seq, 1, pool);
}

static int
open1(struct ct_session *s, struct rte_mbuf **m, uint64_t seq)
{
	return ops->open_burst(s->mem, m, &seq, 1);
}

static void
test_chk32_mbuf(void)
{
	static const uint64_t seqs[] = {0, 1, UINT64_C(0x0123456789abcdef), UINT64_MAX};
	uint8_t data[300];
	unsigned int bad = 0, runs = 0;

	ct_fill(data, sizeof(data), 99);
	for (uint32_t len = 0; len <= 64; len++)
		for (uint32_t i = 0; i <= len; i++)
			for (uint32_t j = i; j <= len; j++) {
				uint32_t cuts[2] = {i, j};
				struct rte_mbuf *m = ct_chain(pool, data, len, cuts, 2);
				uint64_t seq = seqs[(len + i + j) % 4];

				CU_ASSERT_PTR_NOT_NULL_FATAL(m);
				if (sst_chk32_mbuf(seq, m, len) != sst_chk32(seq, data, len))
					bad++;
				/* A prefix of the chain, as open uses it. */
				for (uint32_t k = 1; k <= len && k <= 5; k++)
					if (sst_chk32_mbuf(seq, m, len - k) !=
						sst_chk32(seq, data, len - k))
						bad++;
				rte_pktmbuf_free(m);
				runs++;
			}
	/* Longer packets cut into many odd segments. */
	for (uint32_t len = 65; len <= sizeof(data); len += 7) {
		uint32_t cuts[40];
		unsigned int nc = 0;

		for (uint32_t c = 1; c < len && nc < 40; c += 1 + (c * 7) % 13)
			cuts[nc++] = c;
		struct rte_mbuf *m = ct_chain(pool, data, len, cuts, nc);

		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		if (sst_chk32_mbuf(len, m, len) != sst_chk32(len, data, len))
			bad++;
		rte_pktmbuf_free(m);
		runs++;
	}
	CU_ASSERT(runs > 40000);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), POOL_SIZE);
}

/* The README's worked examples through the driver. */
static void
test_worked_examples(void)
{
	struct ct_session tx, rx;
	struct capture c;
	struct rte_mbuf *m;

	for (size_t i = 0; i < 2; i++) {
		load(i, &c);
		sessions(packets[i].key, &tx, &rx);
		m = ct_flat(pool, c.wire, c.body);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_EQUAL(seal1(&tx, &m, 1), 1);
		CU_ASSERT_EQUAL(m->nb_segs, 1); /* trailer went into tailroom */
		CU_ASSERT(ct_equal(m, c.wire, c.len));
		CU_ASSERT_EQUAL(open1(&rx, &m, 1), 1);
		CU_ASSERT(ct_equal(m, c.wire, c.body));
		rte_pktmbuf_free(m);
		ops->session_fini(tx.mem);
		ops->session_fini(rx.mem);
	}
	/* Trailer values as the README gives them. */
	load(0, &c);
	CU_ASSERT_EQUAL(memcmp(c.wire + c.body, "\xde\xbe\x85\x92", 4), 0);
	load(1, &c);
	CU_ASSERT_EQUAL(memcmp(c.wire + c.body, "\x06\x8c\xe7\x40", 4), 0);
}

/* Seal every captured body cut into two and three segments at every point:
 * the result is the captured packet byte for byte. */
static void
test_seal_split(void)
{
	unsigned int bad = 0, runs = 0;

	for (size_t p = 0; p < NPKT; p++) {
		struct ct_session tx, rx;
		struct capture c;

		load(p, &c);
		sessions(packets[p].key, &tx, &rx);
		for (uint32_t i = 0; i <= c.body; i++)
			for (uint32_t j = i; j <= c.body; j++) {
				uint32_t cuts[2] = {i, j};
				struct rte_mbuf *m = ct_chain(pool, c.wire, c.body, cuts, 2);

				CU_ASSERT_PTR_NOT_NULL_FATAL(m);
				if (seal1(&tx, &m, packets[p].seq) != 1 ||
					!ct_equal(m, c.wire, c.len) || m->nb_segs != 3)
					bad++;
				rte_pktmbuf_free(m);
				runs++;
			}
	}
	CU_ASSERT(runs > 1000);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), POOL_SIZE);
}

/* Open every captured packet cut at every point and every pair of points,
 * so the trailer straddles segments in every possible way. */
static void
test_open_split(void)
{
	unsigned int bad = 0, runs = 0;

	for (size_t p = 0; p < NPKT; p++) {
		struct ct_session tx, rx;
		struct capture c;

		load(p, &c);
		sessions(packets[p].key, &tx, &rx);
		for (uint32_t i = 0; i <= c.len; i++)
			for (uint32_t j = i; j <= c.len; j++) {
				uint32_t cuts[2] = {i, j};
				struct rte_mbuf *m = ct_chain(pool, c.wire, c.len, cuts, 2);

				CU_ASSERT_PTR_NOT_NULL_FATAL(m);
				if (open1(&rx, &m, packets[p].seq) != 1 ||
					!ct_equal(m, c.wire, c.body))
					bad++;
				rte_pktmbuf_free(m);
				runs++;
			}
	}
	CU_ASSERT(runs > 1000);
	CU_ASSERT_EQUAL(bad, 0);
	/* Trimmed trailer segments went back to the pool. */
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), POOL_SIZE);
}

/* A last segment with no tailroom, or one shared with someone else, gets a
 * trailer segment; the shared data is never written. */
static void
test_trailer_segment(void)
{
	struct ct_session tx, rx;
	struct capture c;
	struct rte_mbuf *m, *clone;
	uint8_t before[128];

	load(0, &c);
	sessions(KEY_C, &tx, &rx);

	/* Full last segment: data ends at the end of the buffer. */
	m = rte_pktmbuf_alloc(pool);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	m->data_off = (uint16_t)(m->buf_len - c.body);
	memcpy(rte_pktmbuf_append(m, (uint16_t)c.body), c.wire, c.body);
	CU_ASSERT_EQUAL(rte_pktmbuf_tailroom(m), 0);
	CU_ASSERT_EQUAL(seal1(&tx, &m, 1), 1);
	CU_ASSERT_EQUAL(m->nb_segs, 2);
	CU_ASSERT_EQUAL(m->next->data_len, 4);
	CU_ASSERT(ct_equal(m, c.wire, c.len));
	CU_ASSERT_EQUAL(open1(&rx, &m, 1), 1);
	CU_ASSERT_EQUAL(m->nb_segs, 1);
	CU_ASSERT(ct_equal(m, c.wire, c.body));
	rte_pktmbuf_free(m);

	/* A clone (indirect segments), as retransmission sends. */
	m = ct_flat(pool, c.wire, c.body);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	clone = rte_pktmbuf_clone(m, pool);
	CU_ASSERT_PTR_NOT_NULL_FATAL(clone);
	CU_ASSERT_EQUAL(seal1(&tx, &clone, 1), 1);
	CU_ASSERT_EQUAL(clone->nb_segs, 2);
	CU_ASSERT(ct_equal(clone, c.wire, c.len));
	CU_ASSERT(ct_equal(m, c.wire, c.body)); /* the original is untouched */
	CU_ASSERT_EQUAL(m->nb_segs, 1);
	rte_pktmbuf_free(clone);

	/* A segment whose mbuf is itself shared (reference count 2): its
	 * metadata belongs to two holders, so seal refuses the packet and
	 * changes nothing. */
	rte_mbuf_refcnt_update(m, 1);
	CU_ASSERT_EQUAL(seal1(&tx, &m, 1), 0);
	CU_ASSERT_EQUAL(m->nb_segs, 1);
	CU_ASSERT(ct_equal(m, c.wire, c.body));
	rte_pktmbuf_free(m); /* drops one reference */
	rte_pktmbuf_free(m);

	/* No tailroom and no pool: the packet fails and is left unchanged. */
	m = rte_pktmbuf_alloc(pool);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	m->data_off = (uint16_t)(m->buf_len - c.body);
	memcpy(rte_pktmbuf_append(m, (uint16_t)c.body), c.wire, c.body);
	memcpy(before, c.wire, c.body);
	{
		uint64_t seq = 1;

		CU_ASSERT_EQUAL(ops->seal_burst(tx.mem, &m, &seq, 1, NULL), 0);
	}
	CU_ASSERT_EQUAL(m->nb_segs, 1);
	CU_ASSERT(ct_equal(m, before, c.body));
	rte_pktmbuf_free(m);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), POOL_SIZE);
}

/* An empty pool: the packets that need a trailer segment fail, unchanged,
 * behind the ones sealed in their tailroom. */
static void
test_seal_pool_empty(void)
{
	struct rte_mempool *tiny = sst_test_pool("chk32_tiny", 4, 256);
	struct ct_session tx, rx;
	struct rte_mbuf *m[4], *orig[4];
	uint64_t seq[4] = {1, 2, 3, 4};
	struct capture c;

	CU_ASSERT_PTR_NOT_NULL_FATAL(tiny);
	load(0, &c);
	sessions(KEY_C, &tx, &rx);
	for (int i = 0; i < 4; i++) {
		m[i] = rte_pktmbuf_alloc(tiny);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m[i]);
		if (i % 2 == 0)
			m[i]->data_off = (uint16_t)(m[i]->buf_len - c.body);
		memcpy(rte_pktmbuf_append(m[i], (uint16_t)c.body), c.wire, c.body);
		orig[i] = m[i];
	}
	CU_ASSERT_EQUAL(rte_mempool_avail_count(tiny), 0);
	CU_ASSERT_EQUAL(ops->seal_burst(tx.mem, m, seq, 4, tiny), 2);
	CU_ASSERT_PTR_EQUAL(m[0], orig[1]);
	CU_ASSERT_PTR_EQUAL(m[1], orig[3]);
	CU_ASSERT_PTR_EQUAL(m[2], orig[0]);
	CU_ASSERT_PTR_EQUAL(m[3], orig[2]);
	CU_ASSERT_EQUAL(seq[0], 2);
	CU_ASSERT_EQUAL(seq[1], 4);
	CU_ASSERT_EQUAL(seq[2], 1);
	CU_ASSERT_EQUAL(seq[3], 3);
	CU_ASSERT(ct_equal(m[2], c.wire, c.body));
	CU_ASSERT(ct_equal(m[3], c.wire, c.body));
	CU_ASSERT_EQUAL(open1(&rx, &m[0], 2), 1);
	CU_ASSERT_EQUAL(open1(&rx, &m[1], 4), 1);
	for (int i = 0; i < 4; i++)
		rte_pktmbuf_free(m[i]);
	rte_mempool_free(tiny);
}

/* Any single corrupted byte, a wrong sequence number, the wrong key or a
 * truncated packet fails, flat and split. */
static void
test_open_rejects(void)
{
	unsigned int missed = 0, checked = 0;

	for (size_t p = 0; p < NPKT; p++) {
		struct ct_session tx, rx, other_tx, other_rx;
		struct capture c;
		struct rte_mbuf *m;

		load(p, &c);
		sessions(packets[p].key, &tx, &rx);
		sessions(packets[p].key ^ 1, &other_tx, &other_rx);
		for (uint32_t k = 0; k < c.len; k++)
			for (unsigned int v = 1; v <= 255; v += 17) {
				uint8_t bad[128];
				uint32_t cuts[1] = {(k * 5 + v) % c.len};

				memcpy(bad, c.wire, c.len);
				bad[k] ^= (uint8_t)v;
				m = ct_chain(pool, bad, c.len, cuts, v % 2);
				CU_ASSERT_PTR_NOT_NULL_FATAL(m);
				if (open1(&rx, &m, packets[p].seq) != 0)
					missed++;
				rte_pktmbuf_free(m);
				checked++;
			}
		m = ct_flat(pool, c.wire, c.len);
		CU_ASSERT_EQUAL(open1(&rx, &m, packets[p].seq + 1), 0);
		CU_ASSERT_EQUAL(open1(&rx, &m, packets[p].seq + (UINT64_C(1) << 24)), 0);
		CU_ASSERT_EQUAL(open1(&other_rx, &m, packets[p].seq), 0);
		/* The failures left the packet whole; the right one opens. */
		CU_ASSERT_EQUAL(open1(&rx, &m, packets[p].seq), 1);
		rte_pktmbuf_free(m);
		/* Shorter than the capture, down to nothing. */
		for (uint32_t len = 0; len < c.len; len++) {
			m = ct_flat(pool, c.wire, len);
			CU_ASSERT_EQUAL(open1(&rx, &m, packets[p].seq), 0);
			rte_pktmbuf_free(m);
		}
	}
	CU_ASSERT(checked > 3000);
	CU_ASSERT_EQUAL(missed, 0);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), POOL_SIZE);
}

/* 40 packets (more than a chunk) with a few bad ones: the good ones come
 * first, then the bad ones, each in their original order. */
static void
test_burst_order(void)
{
	struct ct_session tx, rx;
	struct rte_mbuf *m[40], *orig[40];
	uint64_t seq[40];
	uint8_t body[64];
	unsigned int nbad = 0, ngood = 0;
	uint16_t got;

	sessions(KEY_S, &tx, &rx);
	for (int i = 0; i < 40; i++) {
		ct_fill(body, sizeof(body), (uint32_t)i);
		seq[i] = 1000 + (uint64_t)i;
		m[i] = ct_flat(pool, body, (uint32_t)(12 + i));
		CU_ASSERT_PTR_NOT_NULL_FATAL(m[i]);
	}
	CU_ASSERT_EQUAL(ops->seal_burst(tx.mem, m, seq, 40, pool), 40);
	for (int i = 0; i < 40; i++) {
		orig[i] = m[i];
		/* Corrupt packets 0, 5, 31, 32 and 39. */
		if (i == 0 || i == 5 || i == 31 || i == 32 || i == 39)
			rte_pktmbuf_mtod(m[i], uint8_t *)[i % 8] ^= 0x40;
	}
	got = ops->open_burst(rx.mem, m, seq, 40);
	CU_ASSERT_EQUAL(got, 35);
	for (int i = 0; i < 40; i++) {
		int is_bad = i == 0 || i == 5 || i == 31 || i == 32 || i == 39;

		if (is_bad) {
			CU_ASSERT_PTR_EQUAL(m[35 + nbad], orig[i]);
			CU_ASSERT_EQUAL(seq[35 + nbad], 1000 + (uint64_t)i);
			nbad++;
		} else {
			CU_ASSERT_PTR_EQUAL(m[ngood], orig[i]);
			CU_ASSERT_EQUAL(seq[ngood], 1000 + (uint64_t)i);
			/* Trailer stripped. */
			CU_ASSERT_EQUAL(m[ngood]->pkt_len, 12 + (uint32_t)i);
			ngood++;
		}
	}
	for (int i = 0; i < 40; i++)
		rte_pktmbuf_free(m[i]);
	CU_ASSERT_EQUAL(ops->open_burst(rx.mem, m, seq, 0), 0);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), POOL_SIZE);
}

/* sst_crypto_mbuf_trim() over a chain with odd and empty segments. */
static void
test_trim(void)
{
	uint8_t data[11];
	const uint32_t cuts[4] = {3, 4, 4, 6}; /* segments 3, 1, 0, 2, 5 */

	ct_fill(data, sizeof(data), 7);
	for (uint32_t t = 0; t <= sizeof(data); t++) {
		struct rte_mbuf *m = ct_chain(pool, data, sizeof(data), cuts, 4);
		uint16_t want_segs;

		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		sst_crypto_mbuf_trim(m, t);
		CU_ASSERT(ct_equal(m, data, (uint32_t)sizeof(data) - t));
		/* Kept: the segments up to the one holding the last byte. */
		switch (sizeof(data) - t) {
		case 0:
			want_segs = 1;
			break;
		case 1:
		case 2:
		case 3:
			want_segs = 1;
			break;
		case 4:
			want_segs = 2;
			break;
		case 5:
		case 6:
			want_segs = 4;
			break;
		default:
			want_segs = 5;
			break;
		}
		CU_ASSERT_EQUAL(m->nb_segs, want_segs);
		rte_pktmbuf_free(m);
	}
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), POOL_SIZE);
}

static void
test_null_driver(void)
{
	const struct sst_crypto_ops *null = sst_crypto_find(SST_CRYPTO_NULL, NULL);
	struct sst_crypto_keys k;
	struct ct_session s;
	struct rte_mbuf *m;
	uint8_t data[50];
	uint64_t seq = 5;

	CU_ASSERT_PTR_NOT_NULL_FATAL(null);
	memset(&k, 0, sizeof(k));
	ct_fill(data, sizeof(data), 3);
	CU_ASSERT_EQUAL(null->session_init(s.mem, &k), 0);
	m = ct_flat(pool, data, sizeof(data));
	CU_ASSERT_EQUAL(null->seal_burst(s.mem, &m, &seq, 1, pool), 1);
	CU_ASSERT(ct_equal(m, data, sizeof(data)));
	CU_ASSERT_EQUAL(null->open_burst(s.mem, &m, &seq, 1), 1);
	CU_ASSERT(ct_equal(m, data, sizeof(data)));
	null->session_fini(s.mem);
	rte_pktmbuf_free(m);
}

static void
test_session_fini_wipes(void)
{
	struct ct_session s;
	struct sst_crypto_keys k;

	memset(&k, 0, sizeof(k));
	k.tx_chk_key = 0xdeadbeef;
	k.rx_chk_key = 0xfeedface;
	memset(s.mem, 0x5a, sizeof(s.mem));
	CU_ASSERT_EQUAL(ops->session_init(s.mem, &k), 0);
	ops->session_fini(s.mem);
	for (size_t i = 0; i < ops->session_size; i++)
		CU_ASSERT_EQUAL(s.mem[i], 0);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_chk32_mbuf),
	SST_TEST(test_worked_examples),
	SST_TEST(test_seal_split),
	SST_TEST(test_open_split),
	SST_TEST(test_trailer_segment),
	SST_TEST(test_seal_pool_empty),
	SST_TEST(test_open_rejects),
	SST_TEST(test_burst_order),
	SST_TEST(test_trim),
	SST_TEST(test_null_driver),
	SST_TEST(test_session_fini_wipes),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("crypto_chk32") < 0)
		return EXIT_FAILURE;
	pool = sst_test_pool("chk32", POOL_SIZE, 2048);
	ops = sst_crypto_find(SST_CRYPTO_CHK32, "chk32");
	if (pool == NULL || ops == NULL)
		return EXIT_FAILURE;
	return sst_test_run("crypto_chk32", cases);
}
