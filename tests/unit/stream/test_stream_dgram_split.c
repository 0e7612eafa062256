/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the sender's split of a datagram (sst_dgram_split() in
 * lib/stream/stream_dgram.c): a payload that fits is passed on as it is;
 * larger ones are copied into fragments of the packet pool's own direct
 * mbufs, one per fragment where it fits, a chain otherwise, the first
 * behind the pool's headroom, every mbuf keeping the reserved tailroom.
 * Every buffer of the fragment pools is filled with a guard byte first, so
 * a byte written outside a fragment's data fails the test; the bytes are
 * checked one by one, and every mbuf is back in its pool after each test.
 * The receiver's side of the same fragments is fuzz_stream_dgram's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "sst_test.h"
#include "sst_test_eal.h"
#include "sst_test_mbuf.h"
#include "stream_dgram.h"

enum {
	SRC_N = 4096,
	SRC_ROOM = 512,
	FRAG_N = 64,
	RESERVE = 16,
	GUARD = 0xa5,
	B = SST_FLAG_DGRAM_BEGIN,
	E = SST_FLAG_DGRAM_END,
};

/* src: the application's payloads; pkts: a packet pool whose mbufs take a
 * 1,200-byte fragment; small: 400-byte mbufs (chains); tiny: 4 mbufs;
 * none: mbufs with no room beyond the reserve. */
static struct rte_mempool *src, *pkts, *small, *tiny, *none;
static unsigned int src_avail;

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t
rnd(void)
{
	return sst_test_xorshift(&rng_state);
}

/* Every buffer of mp filled with GUARD. */
static void
poison(struct rte_mempool *mp)
{
	struct rte_mbuf *all[FRAG_N];
	unsigned int n = rte_mempool_avail_count(mp);

	CU_ASSERT_FATAL(n <= FRAG_N && rte_pktmbuf_alloc_bulk(mp, all, n) == 0);
	for (unsigned int i = 0; i < n; i++)
		memset(all[i]->buf_addr, GUARD, all[i]->buf_len);
	rte_pktmbuf_free_bulk(all, n);
}

/* Each pool holds every mbuf it was made with. */
static void
no_leak(void)
{
	CU_ASSERT_EQUAL(rte_mempool_avail_count(src), src_avail);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pkts), FRAG_N);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(small), FRAG_N);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(tiny), 4);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(none), 4);
}

/* A copied fragment holding the pattern bytes [off, off + len): direct
 * mbufs of its own, the first behind the pool's headroom, each keeping
 * RESERVE bytes of tailroom, every byte outside the data still GUARD. */
static bool
frag_ok(const struct rte_mbuf *f, uint64_t off, uint32_t len)
{
	bool ok = f->data_off == RTE_PKTMBUF_HEADROOM && f->pkt_len == len;
	uint32_t total = 0;
	uint16_t nseg = 0;

	for (const struct rte_mbuf *m = f; m != NULL; m = m->next, nseg++) {
		const uint8_t *b = m->buf_addr;

		ok &= RTE_MBUF_DIRECT(m) && rte_mbuf_refcnt_read(m) == 1;
		ok &= rte_pktmbuf_tailroom(m) >= RESERVE;
		for (uint32_t k = 0; k < m->buf_len; k++) {
			if (k < m->data_off || k >= (uint32_t)m->data_off + m->data_len)
				ok &= b[k] == GUARD;
			else
				ok &= b[k] == sst_test_pattern(off + total++);
		}
	}
	return ok && total == len && nseg == f->nb_segs;
}

/* Split len pattern bytes in nseg segments at max_payload into mp's
 * mbufs; check every fragment (and its mbuf count when nsegs is given);
 * free them. Returns the number of fragments. */
static int
split_check(struct rte_mempool *mp, uint32_t len, unsigned int nseg, uint32_t max_payload,
	const uint16_t *nsegs)
{
	struct sst_dgram_frag fr[64];
	struct rte_mbuf *m;
	int n;

	poison(mp);
	m = sst_test_pattern_chain(src, SRC_ROOM, 77, len, nseg);
	CU_ASSERT_FATAL(m != NULL);
	n = sst_dgram_split(m, max_payload, mp, RESERVE, fr, RTE_DIM(fr));
	CU_ASSERT_FATAL(n > 1);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(src), src_avail); /* m is gone */
	for (int i = 0; i < n; i++) {
		uint32_t want = RTE_MIN(max_payload, len - (uint32_t)i * max_payload);

		CU_ASSERT_EQUAL(fr[i].flags, (i == 0 ? B : 0) | (i + 1 == n ? E : 0));
		CU_ASSERT_EQUAL(fr[i].len, want);
		CU_ASSERT(frag_ok(fr[i].m, 77 + (uint64_t)i * max_payload, want));
		if (nsegs != NULL)
			CU_ASSERT_EQUAL(fr[i].m->nb_segs, nsegs[i]);
		rte_pktmbuf_free(fr[i].m);
	}
	return n;
}

/* A payload that fits: the mbuf itself, Begin|End, nothing copied. */
static void
test_fits(void)
{
	struct sst_dgram_frag fr[2];
	struct rte_mbuf *m = sst_test_pattern_chain(src, SRC_ROOM, 0, 1200, 3);

	CU_ASSERT_EQUAL(sst_dgram_split(m, 1200, pkts, RESERVE, fr, 2), 1);
	CU_ASSERT(fr[0].m == m && fr[0].flags == (B | E) && fr[0].len == 1200);
	rte_pktmbuf_free(m);
	m = rte_pktmbuf_alloc(src);
	CU_ASSERT_EQUAL(sst_dgram_split(m, 1200, pkts, RESERVE, fr, 1), 1);
	CU_ASSERT(fr[0].m == m && fr[0].flags == (B | E) && fr[0].len == 0);
	rte_pktmbuf_free(m);
	no_leak();
}

/* 3000 bytes in six 500-byte segments, cut at 1200: one mbuf per fragment
 * in the packet pool; in 400-byte mbufs chains of 384 + 512 + 304 bytes
 * (the first behind its headroom) and 384 + 216. */
static void
test_copied(void)
{
	CU_ASSERT_EQUAL(split_check(pkts, 3000, 6, 1200, (const uint16_t[]){1, 1, 1}), 3);
	CU_ASSERT_EQUAL(split_check(small, 3000, 6, 1200, (const uint16_t[]){3, 3, 2}), 3);
	no_leak();
}

/* Random lengths, segmentations and fragment sizes, into both pools. */
static void
test_random(void)
{
	for (int i = 0; i < 300; i++) {
		uint32_t max = 1 + (uint32_t)(rnd() % 1400);
		uint32_t len = max + 1 + (uint32_t)(rnd() % (11 * max)); /* <= 12 fragments */
		unsigned int nseg = 1 + (unsigned int)(rnd() % 8);

		while (len - (nseg - 1) * (len / nseg) > SRC_ROOM)
			nseg++;
		split_check(i % 2 ? small : pkts, len, nseg, max, NULL);
	}
	no_leak();
}

/* Failures leave everything as it was: the caller keeps m, unchanged. */
static void
test_errors(void)
{
	struct sst_dgram_frag fr[8];
	struct rte_mbuf *m = sst_test_pattern_chain(src, SRC_ROOM, 5, 5000, 10);

	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT_EQUAL(sst_dgram_split(m, 1200, pkts, RESERVE, fr, 2), -ENOSPC);
	CU_ASSERT_EQUAL(sst_dgram_split(m, 0, pkts, RESERVE, fr, 8), -EINVAL);
	CU_ASSERT_EQUAL(sst_dgram_split(NULL, 1200, pkts, RESERVE, fr, 8), -EINVAL);
	CU_ASSERT_EQUAL(sst_dgram_split(m, 1200, NULL, RESERVE, fr, 8), -EINVAL);
	/* Mbufs with no room beyond the reserve cannot take a byte. */
	CU_ASSERT_EQUAL(sst_dgram_split(m, 1200, none, RESERVE, fr, 8), -ENOMEM);
	/* The pool runs dry half-way (five fragments of two mbufs each). */
	CU_ASSERT_EQUAL(sst_dgram_split(m, 1000, tiny, RESERVE, fr, 8), -ENOMEM);
	CU_ASSERT_EQUAL(m->pkt_len, 5000);
	CU_ASSERT_EQUAL(m->nb_segs, 10);
	for (struct rte_mbuf *s = m; s != NULL; s = s->next)
		CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(s), 1);
	rte_pktmbuf_free(m);
	CU_ASSERT(split_check(pkts, 5000, 10, 1200, NULL) == 5); /* and the pools still serve */
	no_leak();
}

static void
test_eal(void)
{
	if (sst_test_eal_init("test_stream_dgram_split") < 0)
		exit(1);
	src = sst_test_pool("dgs_src", SRC_N, SRC_ROOM);
	pkts = sst_test_pool("dgs_pkts", FRAG_N, 1400);
	small = sst_test_pool("dgs_small", FRAG_N, 400);
	tiny = sst_test_pool("dgs_tiny", 4, 512);
	none = sst_test_pool("dgs_none", 4, RESERVE);
	if (src == NULL || pkts == NULL || small == NULL || tiny == NULL || none == NULL)
		exit(1);
	src_avail = rte_mempool_avail_count(src);
	CU_ASSERT_EQUAL(src_avail, SRC_N);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_eal),
	SST_TEST(test_fits),
	SST_TEST(test_copied),
	SST_TEST(test_random),
	SST_TEST(test_errors),
	SST_TEST_END,
};

SST_TEST_MAIN("stream_dgram_split", cases)
