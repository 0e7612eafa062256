/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the send queue (lib/stream/stream_sendq.c): segmentation to
 * max_len with Push/Message only at write ends, Close on the last segment
 * and the zero-length Push|Close; zero copy (segments are indirect clones
 * of the queued mbufs, bytes match); lost ranges resent before new data and
 * re-cut to a smaller max_len; out-of-order and duplicate acks releasing
 * each mbuf once; the byte, mbuf and range bounds; reset; and 50k random
 * operations against a model of the receiver, with segments cloned, copied
 * out (sst_sendq_next_segment_copy()) and copied into mbuf chains
 * (sst_sendq_next_segment_chain(), guard bytes all around). Every test
 * ends with every mbuf back in its pool.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "sst_test.h"
#include "sst_test_eal.h"
#include "sst_test_mbuf.h"
#include "stream_sendq.h"

enum {
	POOL_N = 16384,
	ROOM = 1024,
	SMALL_N = 3,
};

static struct rte_mempool *pool, *clones, *small;
static unsigned int pool_avail, clones_avail;
static _Alignas(64) uint8_t q_mem[1 << 20];
static struct sst_sendq *const q = (struct sst_sendq *)q_mem;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd(void)
{
	return sst_test_xorshift(&rng_state);
}

/* A chain of (at least) nseg mbufs holding the bytes [off, off + len). */
static struct rte_mbuf *
mk(uint64_t off, uint32_t len, unsigned int nseg)
{
	struct rte_mbuf *m;

	nseg = RTE_MAX(nseg, (len + ROOM - 1) / ROOM);
	m = sst_test_pattern_chain(pool, ROOM, off, len, nseg);
	CU_ASSERT_FATAL(m != NULL);
	return m;
}

static void
setup(uint64_t max_bytes, uint32_t max_mbufs, uint32_t max_ranges)
{
	CU_ASSERT_FATAL(sst_sendq_size(max_mbufs, max_ranges) <= sizeof(q_mem));
	CU_ASSERT_FATAL(sst_sendq_init(q, max_bytes, max_mbufs, max_ranges, clones, 0) == 0);
}

static void
no_leak(void)
{
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), pool_avail);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(clones), clones_avail);
}

static void
teardown(void)
{
	sst_sendq_fini(q);
	no_leak();
}

/* Append len bytes at the queue's tail in nseg mbufs. */
static int
app(uint32_t len, unsigned int nseg, uint32_t flags)
{
	struct rte_mbuf *m = mk(q->tail, len, nseg);
	int rc = sst_sendq_append(q, m, flags);

	if (rc != 0)
		rte_pktmbuf_free(m);
	return rc;
}

/* Segments are cloned (SEG_CLONE), copied to seg_buf (SEG_COPY,
 * sst_sendq_next_segment_copy(); seg_buf starts with a guard) or copied
 * into a chain of mbufs of random rooms (SEG_CHAIN,
 * sst_sendq_next_segment_chain(); every buffer filled with the guard byte
 * first) as copy_mode says. */
enum { SEG_GUARD = 16, SEG_CLONE = 0, SEG_COPY, SEG_CHAIN };
static int copy_mode;
static uint8_t seg_buf[SEG_GUARD + 4096 + SEG_GUARD];
static struct rte_mbuf *chain_dst; /* SEG_CHAIN: the last segment's chain */
static uint32_t chain_off;	   /* where in it the bytes start */

/* A chain of mbufs of random rooms (data_len) for at least need bytes,
 * sometimes one more mbuf than that; every byte of every buffer 0xa5. */
static struct rte_mbuf *
guarded_chain(uint32_t need)
{
	struct rte_mbuf *head = NULL, *last = NULL;
	bool extra = rnd() % 4 == 0;

	do {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

		CU_ASSERT_FATAL(m != NULL);
		memset(m->buf_addr, 0xa5, m->buf_len);
		if (head == NULL) {
			head = m;
		} else {
			last->next = m;
			head->nb_segs++;
		}
		last = m;
		if (need == 0) {
			extra = false;
			m->data_len = (uint16_t)(rnd() % 64);
		} else {
			m->data_len = (uint16_t)(1 + rnd() % RTE_MIN(need, 300u));
			need -= m->data_len;
		}
		head->pkt_len += m->data_len;
	} while (need > 0 || extra);
	return head;
}

/* The next segment of at most max_len bytes, cloned or copied. */
static int
next_seg(uint32_t max_len, struct sst_sendq_seg *s)
{
	int rc;

	if (copy_mode == SEG_CLONE)
		return sst_sendq_next_segment(q, max_len, s);
	if (copy_mode == SEG_COPY) {
		CU_ASSERT_FATAL(max_len <= sizeof(seg_buf) - 2 * SEG_GUARD);
		memset(seg_buf, 0xa5, sizeof(seg_buf));
		return sst_sendq_next_segment_copy(q, max_len, s, seg_buf + SEG_GUARD);
	}
	chain_off = (uint32_t)(rnd() % 13);
	chain_dst = guarded_chain(chain_off + max_len);
	rc = sst_sendq_next_segment_chain(q, max_len, s, chain_dst, chain_off);
	CU_ASSERT(chain_dst->pkt_len >= chain_off + max_len);
	if (rc != 1) {
		rte_pktmbuf_free(chain_dst);
		chain_dst = NULL;
	}
	return rc;
}

/* A segment copied into chain_dst: its bytes from chain_off on, across the
 * mbufs' ends; every other byte of every buffer (the headroom, the data
 * before chain_off and behind the segment, the tailroom) still 0xa5. */
static bool
chain_ok(const struct sst_sendq_seg *s)
{
	uint32_t pos = 0;
	bool ok = s->m == NULL;

	for (const struct rte_mbuf *m = chain_dst; m != NULL; m = m->next) {
		const uint8_t *b = m->buf_addr;

		for (uint32_t k = 0; k < m->buf_len; k++) {
			bool data = k >= m->data_off && k < (uint32_t)m->data_off + m->data_len;
			uint32_t at = pos + k - m->data_off;

			if (data && at >= chain_off && at < chain_off + s->len)
				ok &= b[k] == sst_test_pattern(s->off + at - chain_off);
			else
				ok &= b[k] == 0xa5;
		}
		pos += m->data_len;
	}
	rte_pktmbuf_free(chain_dst);
	chain_dst = NULL;
	return ok;
}

/* A copied segment: no mbuf, its bytes in seg_buf, nothing written around. */
static bool
copy_ok(const struct sst_sendq_seg *s)
{
	bool ok = s->m == NULL;

	if (copy_mode == SEG_CHAIN)
		return chain_ok(s);
	for (uint32_t k = 0; k < SEG_GUARD; k++)
		ok &= seg_buf[k] == 0xa5 && seg_buf[SEG_GUARD + s->len + k] == 0xa5;
	for (uint32_t k = 0; k < s->len; k++)
		ok &= seg_buf[SEG_GUARD + k] == sst_test_pattern(s->off + k);
	return ok;
}

/* Check a segment's mbufs: indirect, exactly len bytes, the right bytes. */
static bool
seg_ok(const struct sst_sendq_seg *s)
{
	const struct rte_mbuf *c;
	uint64_t o = s->off;
	uint32_t total = 0;
	bool ok = true;

	if (copy_mode != SEG_CLONE)
		return copy_ok(s);
	if (s->len == 0)
		return s->m == NULL;
	if (s->m == NULL || s->m->pkt_len != s->len)
		return false;
	for (c = s->m; c != NULL; c = c->next) {
		const uint8_t *p = rte_pktmbuf_mtod(c, const uint8_t *);

		ok &= RTE_MBUF_CLONED(c) != 0;
		for (uint16_t k = 0; k < c->data_len; k++)
			ok &= p[k] == sst_test_pattern(o++);
		total += c->data_len;
	}
	return ok && total == s->len;
}

/* Take the next segment, check it, free its mbufs; returns next_segment's rc. */
static int
take(uint32_t max_len, struct sst_sendq_seg *s)
{
	int rc = next_seg(max_len, s);

	if (rc == 1) {
		CU_ASSERT(seg_ok(s));
		rte_pktmbuf_free(s->m);
		s->m = NULL;
	}
	return rc;
}

#define EXPECT_SEG(max, o, l, f)                            \
	do {                                                \
		struct sst_sendq_seg s_;                    \
		CU_ASSERT_EQUAL_FATAL(take((max), &s_), 1); \
		CU_ASSERT_EQUAL(s_.off, (o));               \
		CU_ASSERT_EQUAL(s_.len, (l));               \
		CU_ASSERT_EQUAL(s_.flags, (uint32_t)(f));   \
	} while (0)

/* ---- tests ---- */

static void
test_size_init(void)
{
	CU_ASSERT_EQUAL(sst_sendq_size(0, 8), 0);
	CU_ASSERT_EQUAL(sst_sendq_size(8, 0), 0);
	CU_ASSERT_EQUAL(sst_sendq_size(SST_SENDQ_CAP_MAX + 1, 8), 0);
	CU_ASSERT(sst_sendq_size(1, 1) > sizeof(struct sst_sendq));
	CU_ASSERT_EQUAL(sst_sendq_init(NULL, 100, 8, 8, clones, 0), -EINVAL);
	CU_ASSERT_EQUAL(sst_sendq_init(q, 100, 8, 8, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(sst_sendq_init(q, 0, 8, 8, clones, 0), -EINVAL);
	CU_ASSERT_EQUAL(sst_sendq_init(q, 100, 0, 8, clones, 0), -EINVAL);
	setup(1000, 8, 8);
	CU_ASSERT_EQUAL(app(10, 1, SST_FLAG_CLOSE), -EINVAL);
	CU_ASSERT_EQUAL(app(10, 1, 0x8), -EINVAL);
	CU_ASSERT_EQUAL(sst_sendq_queued(q), 0);
	CU_ASSERT_FALSE(sst_sendq_pending(q));
	CU_ASSERT_EQUAL(sst_sendq_next_segment(q, 1200, &(struct sst_sendq_seg){0}), 0);
	teardown();
}

static void
test_segmentation(void)
{
	setup(1 << 20, 64, 16);
	CU_ASSERT_EQUAL(app(3000, 3, SST_FLAG_PUSH), 0);
	CU_ASSERT_EQUAL(app(500, 1, SST_FLAG_MESSAGE | SST_FLAG_PUSH), 0);
	CU_ASSERT_EQUAL(app(100, 1, 0), 0); /* unmarked writes run together */
	CU_ASSERT_EQUAL(app(100, 2, 0), 0);
	CU_ASSERT_EQUAL(app(700, 1, SST_FLAG_MESSAGE), 0);
	CU_ASSERT_EQUAL(sst_sendq_unsent(q), 4400);
	CU_ASSERT_EQUAL(sst_sendq_queued(q), 4400);
	EXPECT_SEG(1200, 0, 1200, 0);
	EXPECT_SEG(1200, 1200, 1200, 0);
	EXPECT_SEG(1200, 2400, 600, SST_FLAG_PUSH); /* stops at the write end */
	EXPECT_SEG(1200, 3000, 500, SST_FLAG_MESSAGE | SST_FLAG_PUSH);
	CU_ASSERT_EQUAL(sst_sendq_close(q), 0);
	CU_ASSERT_EQUAL(sst_sendq_close(q), -EALREADY);
	CU_ASSERT_EQUAL(app(10, 1, 0), -EPIPE);
	EXPECT_SEG(600, 3500, 600, 0); /* crosses unmarked write ends */
	EXPECT_SEG(600, 4100, 300, SST_FLAG_MESSAGE | SST_FLAG_CLOSE | SST_FLAG_PUSH);
	CU_ASSERT_EQUAL(sst_sendq_next_segment(q, 1200, &(struct sst_sendq_seg){0}), 0);
	CU_ASSERT_EQUAL(sst_sendq_in_flight(q), 4400);
	CU_ASSERT_EQUAL(sst_sendq_unsent(q), 0);
	/* Acks, the last one (carrying Close) first. */
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 4100, 300), 0);
	CU_ASSERT_FALSE(sst_sendq_finished(q));
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 0, 4100), 0);
	CU_ASSERT(sst_sendq_finished(q));
	CU_ASSERT_EQUAL(sst_sendq_acked(q), 4400);
	CU_ASSERT_EQUAL(sst_sendq_queued(q), 0);
	no_leak(); /* released on ack, not only at fini */
	teardown();
}

static void
test_zero_close(void)
{
	struct sst_sendq_seg s;

	/* Closing an empty direction. */
	setup(1 << 20, 64, 16);
	CU_ASSERT_EQUAL(sst_sendq_close(q), 0);
	CU_ASSERT(sst_sendq_pending(q));
	CU_ASSERT_EQUAL(take(0, &s), 1);
	CU_ASSERT_EQUAL(s.off, 0);
	CU_ASSERT_EQUAL(s.len, 0);
	CU_ASSERT(s.m == NULL);
	CU_ASSERT_EQUAL(s.flags, SST_FLAG_PUSH | SST_FLAG_CLOSE);
	CU_ASSERT_FALSE(s.retransmit);
	CU_ASSERT_FALSE(sst_sendq_finished(q));
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 0, 0), 0);
	CU_ASSERT(sst_sendq_finished(q));
	teardown();

	/* Closing after every byte was sent: data segments carry no Close. */
	setup(1 << 20, 64, 16);
	CU_ASSERT_EQUAL(app(100, 1, SST_FLAG_PUSH), 0);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 100, 0), -EINVAL); /* beyond the bytes sent */
	EXPECT_SEG(1200, 0, 100, SST_FLAG_PUSH);
	CU_ASSERT_EQUAL(sst_sendq_close(q), 0);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 100, 0), 0); /* not sent yet: ignored */
	CU_ASSERT_EQUAL(sst_sendq_on_lost(q, 0, 100), 0);
	EXPECT_SEG(1200, 0, 100, SST_FLAG_PUSH); /* resend first, still no Close */
	EXPECT_SEG(1200, 100, 0, SST_FLAG_PUSH | SST_FLAG_CLOSE);
	CU_ASSERT_EQUAL(sst_sendq_on_lost(q, 100, 0), 0);
	CU_ASSERT_EQUAL(take(1200, &s), 1);
	CU_ASSERT(s.off == 100 && s.len == 0 && s.retransmit);
	CU_ASSERT_EQUAL(s.flags, SST_FLAG_PUSH | SST_FLAG_CLOSE);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 0, 100), 0);
	CU_ASSERT_FALSE(sst_sendq_finished(q)); /* the Close itself is not acked */
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 100, 0), 0);
	CU_ASSERT(sst_sendq_finished(q));
	CU_ASSERT_EQUAL(sst_sendq_next_segment(q, 1200, &s), 0);
	teardown();
}

static void
test_zero_copy(void)
{
	struct rte_mbuf *m = mk(0, 1000, 2), *m2 = m->next;
	struct sst_sendq_seg s1, s2;

	setup(1 << 20, 64, 16);
	CU_ASSERT_EQUAL(sst_sendq_append(q, m, SST_FLAG_PUSH), 0);
	CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(m), 1);
	CU_ASSERT_EQUAL(sst_sendq_next_segment(q, 700, &s1), 1);
	CU_ASSERT_EQUAL(sst_sendq_next_segment(q, 700, &s2), 1);
	CU_ASSERT(seg_ok(&s1) && seg_ok(&s2));
	CU_ASSERT(s1.off == 0 && s1.len == 700 && s2.off == 700 && s2.len == 300);
	/* s1 spans both mbufs, s2 only the second: indirect, sharing the buffers. */
	CU_ASSERT_EQUAL(s1.m->nb_segs, 2);
	CU_ASSERT(RTE_MBUF_CLONED(s1.m) && RTE_MBUF_CLONED(s1.m->next));
	CU_ASSERT(RTE_MBUF_CLONED(s2.m) != 0); /* a 64-bit flag: compare, never truncate */
	CU_ASSERT_EQUAL(rte_mbuf_from_indirect(s1.m), m);
	CU_ASSERT_EQUAL(rte_mbuf_from_indirect(s2.m), m2);
	CU_ASSERT(rte_pktmbuf_mtod(s1.m, uint8_t *) == rte_pktmbuf_mtod(m, uint8_t *));
	CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(m), 2);
	CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(m2), 3);
	CU_ASSERT_EQUAL(q->stats.clones, 3);
	/* The NIC frees s1 before the ack: the queued original stays. */
	rte_pktmbuf_free(s1.m);
	CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(m), 1);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 0, 700), 0);
	/* m is released; m2 still holds unacknowledged bytes. */
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), pool_avail - 1);
	CU_ASSERT_EQUAL(sst_sendq_queued(q), m2->data_len);
	/* Acked while the NIC still holds the clone: the buffer lives on. */
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 700, 300), 0);
	CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(m2), 1);
	CU_ASSERT(seg_ok(&s2));
	rte_pktmbuf_free(s2.m);
	no_leak();
	teardown();
}

static void
test_retransmit_first(void)
{
	struct sst_sendq_seg s;

	setup(1 << 20, 64, 16);
	CU_ASSERT_EQUAL(app(6000, 6, SST_FLAG_PUSH), 0);
	EXPECT_SEG(1200, 0, 1200, 0);
	EXPECT_SEG(1200, 1200, 1200, 0);
	EXPECT_SEG(1200, 2400, 1200, 0);
	CU_ASSERT_EQUAL(sst_sendq_on_lost(q, 1200, 1200), 0);
	CU_ASSERT_EQUAL(sst_sendq_lost(q), 1200);
	CU_ASSERT_EQUAL(sst_sendq_in_flight(q), 2400);
	CU_ASSERT_EQUAL(take(1200, &s), 1);
	CU_ASSERT(s.off == 1200 && s.len == 1200 && s.retransmit && s.flags == 0);
	CU_ASSERT_EQUAL(sst_sendq_lost(q), 0);
	CU_ASSERT_EQUAL(take(1200, &s), 1);
	CU_ASSERT(s.off == 3600 && s.len == 1200 && !s.retransmit);
	/* Two lost ranges: the lower one goes first, whatever the loss order. */
	CU_ASSERT_EQUAL(sst_sendq_on_lost(q, 3600, 1200), 0);
	CU_ASSERT_EQUAL(sst_sendq_on_lost(q, 0, 1200), 0);
	EXPECT_SEG(1200, 0, 1200, 0);
	EXPECT_SEG(1200, 3600, 1200, 0);
	EXPECT_SEG(1200, 4800, 1200, SST_FLAG_PUSH);
	CU_ASSERT_EQUAL(q->stats.segs_retx, 3);
	CU_ASSERT_EQUAL(q->stats.bytes_retx, 3600);
	/* Loss of bytes never sent: rejected. */
	CU_ASSERT_EQUAL(sst_sendq_on_lost(q, 5000, 1001), -EINVAL);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 6001, 0), -EINVAL);
	teardown();
}

/*
 * The Close for a peer that may be the 2007 prototype (issue 15, finding
 * 7(a)): alone, in an empty segment after every data byte, never on the
 * last data segment, also when data was still unsent at the close and when
 * data is lost and resent after it; the direction finishes when both the
 * data and that segment are acknowledged.
 */
static void
test_close_alone(void)
{
	struct sst_sendq_seg s;

	setup(1 << 20, 64, 16);
	CU_ASSERT_EQUAL(app(2000, 2, SST_FLAG_PUSH), 0);
	EXPECT_SEG(1200, 0, 1200, 0);
	CU_ASSERT_EQUAL(sst_sendq_close_alone(q), 0);
	CU_ASSERT_EQUAL(sst_sendq_close_alone(q), -EALREADY);
	CU_ASSERT_EQUAL(sst_sendq_close(q), -EALREADY);
	CU_ASSERT_EQUAL(app(10, 1, 0), -EPIPE);
	/* No credit: the Close may not overtake the unsent data. */
	CU_ASSERT_EQUAL(sst_sendq_next_segment(q, 0, &s), 0);
	EXPECT_SEG(1200, 1200, 800, SST_FLAG_PUSH); /* the last data: no Close */
	CU_ASSERT_EQUAL(sst_sendq_on_lost(q, 1200, 800), 0);
	EXPECT_SEG(1200, 1200, 800, SST_FLAG_PUSH); /* lost data before the Close */
	EXPECT_SEG(1200, 2000, 0, SST_FLAG_PUSH | SST_FLAG_CLOSE);
	CU_ASSERT_FALSE(sst_sendq_pending(q));
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 0, 2000), 0);
	CU_ASSERT_FALSE(sst_sendq_finished(q)); /* the data alone does not end it */
	CU_ASSERT_EQUAL(sst_sendq_on_lost(q, 2000, 0), 0);
	CU_ASSERT_EQUAL(take(1200, &s), 1);
	CU_ASSERT(s.off == 2000 && s.len == 0 && s.retransmit);
	CU_ASSERT_EQUAL(s.flags, SST_FLAG_PUSH | SST_FLAG_CLOSE);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 2000, 0), 0);
	CU_ASSERT(sst_sendq_finished(q));
	teardown();

	/* Closing an empty direction: the same as sst_sendq_close(). */
	setup(1 << 20, 64, 16);
	CU_ASSERT_EQUAL(sst_sendq_close_alone(q), 0);
	EXPECT_SEG(1200, 0, 0, SST_FLAG_PUSH | SST_FLAG_CLOSE);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 0, 0), 0);
	CU_ASSERT(sst_sendq_finished(q));
	teardown();
}

static void
test_resegment(void)
{
	setup(1 << 20, 64, 16);
	CU_ASSERT_EQUAL(app(1000, 1, SST_FLAG_PUSH), 0);
	CU_ASSERT_EQUAL(app(2000, 2, SST_FLAG_MESSAGE), 0);
	EXPECT_SEG(1200, 0, 1000, SST_FLAG_PUSH);
	EXPECT_SEG(1200, 1000, 1200, 0);
	EXPECT_SEG(1200, 2200, 800, SST_FLAG_MESSAGE);
	CU_ASSERT_EQUAL(sst_sendq_close(q), 0); /* everything sent: zero-length Close */
	CU_ASSERT_EQUAL(sst_sendq_on_lost(q, 0, 1000), 0);
	CU_ASSERT_EQUAL(sst_sendq_on_lost(q, 2200, 800), 0);
	CU_ASSERT_EQUAL(sst_sendq_on_lost(q, 1000, 1200), 0); /* merges all three */
	CU_ASSERT_EQUAL(q->nranges, 1);
	/* The MTU shrank: re-cut, flags still only at the write ends. */
	EXPECT_SEG(400, 0, 400, 0);
	EXPECT_SEG(400, 400, 400, 0);
	EXPECT_SEG(400, 800, 200, SST_FLAG_PUSH);
	EXPECT_SEG(400, 1000, 400, 0);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 2200, 800), 0); /* the original arrived */
	CU_ASSERT_EQUAL(sst_sendq_lost(q), 800);
	EXPECT_SEG(1000, 1400, 800, 0);
	EXPECT_SEG(1000, 3000, 0, SST_FLAG_PUSH | SST_FLAG_CLOSE);
	CU_ASSERT_FALSE(sst_sendq_pending(q));
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 0, 3000), 0);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 3000, 0), 0);
	CU_ASSERT(sst_sendq_finished(q));
	no_leak();
	teardown();
}

static void
test_acks(void)
{
	static const uint32_t order[] = {5, 3, 9, 3, 0, 5, 8, 1, 2, 7, 6, 4, 9, 0};
	bool acked[10] = {false};
	uint32_t nacked = 0;

	/* Ten 100-byte writes, one mbuf and one segment each. */
	setup(1 << 20, 64, 16);
	for (unsigned int i = 0; i < 10; i++) {
		CU_ASSERT_EQUAL(app(100, 1, SST_FLAG_PUSH), 0);
		EXPECT_SEG(1200, i * 100, 100, SST_FLAG_PUSH);
	}
	for (unsigned int k = 0; k < RTE_DIM(order); k++) {
		uint32_t i = order[k];
		uint64_t dup = q->stats.bytes_dup_ack;

		CU_ASSERT_EQUAL(sst_sendq_on_acked(q, i * 100, 100), 0);
		CU_ASSERT_EQUAL(q->stats.bytes_dup_ack - dup, acked[i] ? 100 : 0);
		nacked += !acked[i];
		acked[i] = true;
		/* Each mbuf goes back to the pool exactly when its bytes are acked. */
		CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), pool_avail - 10 + nacked);
		CU_ASSERT_EQUAL(sst_sendq_acked(q), nacked * 100);
		CU_ASSERT_EQUAL(sst_sendq_queued(q), (10 - nacked) * 100);
		CU_ASSERT_EQUAL(sst_sendq_in_flight(q), (10 - nacked) * 100);
	}
	CU_ASSERT_EQUAL(q->una, 1000);
	CU_ASSERT_EQUAL(q->nranges, 0);
	teardown();

	/* One mbuf, four segments: released only when the last byte is acked. */
	setup(1 << 20, 64, 16);
	CU_ASSERT_EQUAL(app(1000, 1, 0), 0);
	for (unsigned int i = 0; i < 4; i++)
		EXPECT_SEG(250, i * 250, 250, 0);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 750, 250), 0);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 250, 250), 0);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 250, 250), 0);
	CU_ASSERT_EQUAL(sst_sendq_on_lost(q, 0, 1000), 0); /* only the holes */
	CU_ASSERT_EQUAL(sst_sendq_lost(q), 500);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 0, 250), 0);
	CU_ASSERT_EQUAL(sst_sendq_lost(q), 250);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), pool_avail - 1);
	EXPECT_SEG(1200, 500, 250, 0);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 500, 250), 0);
	CU_ASSERT_EQUAL(sst_sendq_acked(q), 1000);
	no_leak();
	teardown();
}

static void
test_bounds(void)
{
	struct rte_mbuf *m;

	/* Bytes. */
	setup(4000, 64, 16);
	CU_ASSERT_EQUAL(app(3000, 3, 0), 0);
	m = mk(3000, 1500, 2);
	CU_ASSERT_EQUAL(sst_sendq_append(q, m, 0), -ENOBUFS);
	CU_ASSERT_EQUAL(m->pkt_len, 1500); /* untouched, still the caller's */
	CU_ASSERT_EQUAL(m->nb_segs, 2);
	rte_pktmbuf_free(m);
	CU_ASSERT_EQUAL(sst_sendq_queued(q), 3000);
	CU_ASSERT_EQUAL(app(1000, 1, 0), 0);
	CU_ASSERT_EQUAL(app(1, 1, 0), -ENOBUFS);
	EXPECT_SEG(1200, 0, 1200, 0);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 0, 1200), 0);
	CU_ASSERT_EQUAL(sst_sendq_queued(q), 3000); /* only the mbuf of 0-1000 is all acked */
	CU_ASSERT_EQUAL(app(1001, 1, 0), -ENOBUFS);
	CU_ASSERT_EQUAL(app(1000, 1, 0), 0);
	teardown();

	/* Mbufs. */
	setup(1 << 20, 4, 16);
	CU_ASSERT_EQUAL(app(500, 5, 0), -ENOSPC);
	CU_ASSERT_EQUAL(app(400, 4, 0), 0);
	CU_ASSERT_EQUAL(app(1, 1, 0), -ENOSPC);
	teardown();

	/* Ranges: three holes need more than two. */
	setup(1 << 20, 64, 2);
	CU_ASSERT_EQUAL(app(1000, 1, 0), 0);
	for (unsigned int i = 0; i < 10; i++)
		EXPECT_SEG(100, i * 100, 100, 0);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 200, 100), 0);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 400, 100), 0);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 600, 100), -ENOSPC);
	CU_ASSERT_EQUAL(sst_sendq_acked(q), 200);
	CU_ASSERT_EQUAL(sst_sendq_on_lost(q, 0, 100), -ENOSPC);
	CU_ASSERT_EQUAL(sst_sendq_lost(q), 0);
	CU_ASSERT_EQUAL(q->stats.nospace, 2);
	/* In-order acks need no range, and free ranges as they go. */
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 0, 200), 0);
	CU_ASSERT_EQUAL(q->una, 300);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 600, 100), 0);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 300, 100), 0);
	CU_ASSERT_EQUAL(q->una, 500);
	CU_ASSERT_EQUAL(sst_sendq_acked(q), 600);
	teardown();
}

static void
test_marks_and_nomem(void)
{
	struct sst_sendq_seg s;

	setup(1 << 20, 64, 16);
	CU_ASSERT_EQUAL(sst_sendq_append(q, NULL, 0), 0);
	CU_ASSERT_EQUAL(sst_sendq_append(q, NULL, SST_FLAG_PUSH), -EINVAL); /* nothing to mark */
	CU_ASSERT_EQUAL(app(300, 1, 0), 0);
	CU_ASSERT_EQUAL(sst_sendq_append(q, NULL, SST_FLAG_MESSAGE), 0);
	CU_ASSERT_EQUAL(sst_sendq_append(q, rte_pktmbuf_alloc(pool), SST_FLAG_PUSH), 0);
	CU_ASSERT_EQUAL(app(300, 1, 0), 0);
	EXPECT_SEG(1200, 0, 300, SST_FLAG_MESSAGE | SST_FLAG_PUSH);
	EXPECT_SEG(1200, 300, 300, 0);
	CU_ASSERT_EQUAL(sst_sendq_append(q, NULL, SST_FLAG_PUSH), -EINVAL); /* already sent */
	teardown();

	/* Clone pool empty: nothing changes, the same segment comes later. */
	CU_ASSERT_FATAL(sst_sendq_init(q, 1 << 20, 64, 16, small, 0) == 0);
	CU_ASSERT_EQUAL(app(500, 5, SST_FLAG_PUSH), 0);
	CU_ASSERT_EQUAL(sst_sendq_next_segment(q, 1200, &s), -ENOMEM);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(small), SMALL_N);
	CU_ASSERT_EQUAL(sst_sendq_unsent(q), 500);
	CU_ASSERT_EQUAL(q->stats.nomem, 1);
	CU_ASSERT_EQUAL(take(300, &s), 1);
	CU_ASSERT(s.off == 0 && s.len == 300 && s.flags == 0);
	CU_ASSERT_EQUAL(take(300, &s), 1);
	CU_ASSERT(s.off == 300 && s.len == 200 && s.flags == SST_FLAG_PUSH);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(small), SMALL_N);
	sst_sendq_fini(q);
	no_leak();
}

static void
test_reset(void)
{
	struct sst_sendq_seg s;

	setup(1 << 20, 64, 16);
	CU_ASSERT_EQUAL(app(5000, 5, SST_FLAG_PUSH), 0);
	EXPECT_SEG(1200, 0, 1200, 0);
	CU_ASSERT_EQUAL(sst_sendq_next_segment(q, 1200, &s), 1); /* still "on the NIC" */
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 1200, 1200), 0);
	CU_ASSERT_EQUAL(sst_sendq_close(q), 0);
	sst_sendq_reset(q);
	CU_ASSERT_EQUAL(sst_sendq_queued(q), 0);
	CU_ASSERT_EQUAL(sst_sendq_acked(q), 0);
	CU_ASSERT_FALSE(sst_sendq_pending(q));
	CU_ASSERT_FALSE(sst_sendq_finished(q));
	CU_ASSERT(seg_ok(&s)); /* the clone keeps its buffer alive */
	rte_pktmbuf_free(s.m);
	no_leak();
	CU_ASSERT_EQUAL(app(100, 1, 0), 0); /* open again */
	EXPECT_SEG(1200, 0, 100, 0);
	teardown();
}

/* ---- random operations against a model ---- */

enum {
	MODEL_LEN = 1 << 23, /* bytes appended at most */
	MODEL_OPS = 50000,
	MODEL_OUT = 256,	 /* segments outstanding at most */
	MODEL_BYTES = 48 * 1024, /* max_bytes */
};

struct out_seg {
	uint64_t off;
	uint32_t len;
};

static uint8_t marks[MODEL_LEN + 1]; /* flags of the write ending at o, 0x80 = a write ends */
static uint8_t got[MODEL_LEN];	     /* the receiver has byte o */
static bool acked_b[MODEL_LEN];	     /* the sender was told byte o arrived */
static struct out_seg out[MODEL_OUT];
static unsigned int nout;
static uint64_t m_tail, m_acked;
static bool close_seen;

/* Take a segment as the receiver would; check flags against the writes. */
static void
model_send(uint32_t max_len)
{
	struct sst_sendq_seg s;
	int rc;

	if (nout == MODEL_OUT)
		return;
	rc = next_seg(max_len, &s);
	CU_ASSERT_FATAL(rc == 0 || rc == 1);
	if (rc == 0) {
		CU_ASSERT_FALSE(sst_sendq_pending(q));
		return;
	}
	CU_ASSERT(s.len <= max_len);
	CU_ASSERT(s.off + s.len <= m_tail);
	CU_ASSERT_FATAL(seg_ok(&s));
	/* Push/Message exactly at ends of marked writes; never crossing one. */
	for (uint64_t o = s.off + 1; o < s.off + s.len; o++)
		CU_ASSERT((marks[o] & SST_SENDQ_APPEND_FLAGS) == 0);
	if (s.len == 0) {
		CU_ASSERT_EQUAL(s.flags, SST_FLAG_PUSH | SST_FLAG_CLOSE);
		CU_ASSERT_EQUAL(s.off, m_tail);
		CU_ASSERT(q->close_zero);
	} else {
		uint32_t want = marks[s.off + s.len] & SST_SENDQ_APPEND_FLAGS;

		/* Close rides on the last data segment unless it all went before. */
		if (q->close != 0 && !q->close_zero && s.off + s.len == m_tail)
			want |= SST_FLAG_PUSH | SST_FLAG_CLOSE;
		CU_ASSERT_EQUAL(s.flags, want);
	}
	close_seen |= (s.flags & SST_FLAG_CLOSE) != 0;
	for (uint32_t k = 0; k < s.len; k++)
		got[s.off + k] = 1;
	rte_pktmbuf_free(s.m);
	out[nout++] = (struct out_seg){s.off, s.len};
}

/* The channel reports outstanding segment i acked or lost. */
static void
model_report(unsigned int i, bool ack)
{
	struct out_seg o = out[i];

	out[i] = out[--nout];
	if (ack) {
		CU_ASSERT_EQUAL(sst_sendq_on_acked(q, o.off, o.len), 0);
		for (uint32_t k = 0; k < o.len; k++) {
			m_acked += !acked_b[o.off + k];
			acked_b[o.off + k] = true;
		}
	} else {
		CU_ASSERT_EQUAL(sst_sendq_on_lost(q, o.off, o.len), 0);
		/* A spurious loss: the original may still arrive and be acked. */
		if (rnd() % 2 == 0 && nout < MODEL_OUT)
			out[nout++] = o;
	}
}

static void
model_check(void)
{
	CU_ASSERT_EQUAL(sst_sendq_acked(q), m_acked);
	CU_ASSERT(sst_sendq_queued(q) <= MODEL_BYTES);
	CU_ASSERT(sst_sendq_queued(q) >= m_tail - m_acked);
	CU_ASSERT_EQUAL(sst_sendq_in_flight(q) + sst_sendq_lost(q) + sst_sendq_acked(q) +
				sst_sendq_unsent(q),
		m_tail);
	CU_ASSERT(q->nranges <= 2 * MODEL_OUT + 2);
}

static void
test_random_model(void)
{
	unsigned int nobufs = 0, lost = 0, acks = 0;

	memset(marks, 0, sizeof(marks));
	memset(got, 0, sizeof(got));
	memset(acked_b, 0, sizeof(acked_b));
	nout = 0;
	m_tail = 0;
	m_acked = 0;
	close_seen = false;
	setup(MODEL_BYTES, 4096, 2 * MODEL_OUT + 2);
	for (unsigned int op = 0; op < MODEL_OPS; op++) {
		uint64_t r = rnd();

		switch (r % 8) {
		case 0:
		case 1: {
			uint32_t len = 1 + (uint32_t)(rnd() % 3000);
			uint32_t flags = (uint32_t)(rnd() % 4 == 0 ? 0 : rnd() % 4) << 1;
			int rc;

			flags &= SST_SENDQ_APPEND_FLAGS;
			if (m_tail + len > MODEL_LEN)
				break;
			rc = app(len, 1 + (unsigned int)(rnd() % 4), flags);
			CU_ASSERT(rc == 0 || rc == -ENOBUFS || rc == -ENOSPC);
			if (rc == 0) {
				m_tail += len;
				marks[m_tail] = (uint8_t)(flags | 0x80);
			} else {
				nobufs++;
			}
			break;
		}
		case 2:
		case 3:
		case 4:
			model_send(rnd() % 16 == 0 ? 1 + (uint32_t)(rnd() % 300) : 1200);
			break;
		case 5:
		case 6:
			if (nout > 0) {
				model_report((unsigned int)(rnd() % nout), true);
				acks++;
			}
			break;
		default:
			if (nout > 0 && rnd() % 3 == 0) {
				model_report((unsigned int)(rnd() % nout), false);
				lost++;
			}
			break;
		}
		model_check();
	}
	printf("\n  appended %lu, nobufs %u, lost %u, acks %u, retx %lu, dup %lu\n",
		(unsigned long)m_tail, nobufs, lost, acks, (unsigned long)q->stats.segs_retx,
		(unsigned long)q->stats.bytes_dup_ack);
	CU_ASSERT(nobufs > 100 && lost > 1000 && acks > 5000);
	CU_ASSERT(q->stats.segs_retx > 1000 && q->stats.bytes_dup_ack > 0);
	/* Close and drain: everything sent, every loss resent, all acked. */
	CU_ASSERT_EQUAL(sst_sendq_close(q), 0);
	for (unsigned int round = 0; !sst_sendq_finished(q); round++) {
		CU_ASSERT_FATAL(round < 100000);
		if (sst_sendq_pending(q) && nout < MODEL_OUT)
			model_send(1200);
		else if (nout > 0)
			model_report((unsigned int)(rnd() % nout), rnd() % 4 != 0);
		model_check();
	}
	while (nout > 0) /* late duplicates of segments already acked */
		model_report(nout - 1, true);
	CU_ASSERT(close_seen);
	CU_ASSERT_EQUAL(sst_sendq_acked(q), m_tail);
	CU_ASSERT(m_tail > 1000000);
	/* The receiver has every byte appended (checked byte for byte as sent). */
	for (uint64_t o = 0; o < m_tail; o++)
		if (!got[o]) {
			CU_FAIL("byte never sent");
			break;
		}
	CU_ASSERT_EQUAL(sst_sendq_queued(q), 0);
	no_leak(); /* every mbuf released by the acks, before fini */
	teardown();
}

/* The model again, every segment copied out instead of cloned. */
static void
test_random_model_copy(void)
{
	copy_mode = SEG_COPY;
	test_random_model();
	copy_mode = SEG_CLONE;
	CU_ASSERT_EQUAL(q->stats.clones, 0);
	CU_ASSERT(q->stats.copies > 1000);
}

/* And copied into chains of mbufs (a jumbo segment across the packet's own
 * mbufs): the bytes cross the mbufs' ends at random places. */
static void
test_random_model_chain(void)
{
	copy_mode = SEG_CHAIN;
	test_random_model();
	copy_mode = SEG_CLONE;
	CU_ASSERT_EQUAL(q->stats.clones, 0);
	CU_ASSERT(q->stats.copies > 1000);
	CU_ASSERT(chain_dst == NULL);
}

/*
 * Copied segments: the right bytes across mbuf ends, no clone made (the
 * clone pool is empty throughout), the queued mbufs neither referenced nor
 * released before their bytes are acknowledged; a retransmission after
 * part of an mbuf was acknowledged copies only the bytes still held, and
 * every mbuf goes back to its pool on the acks.
 */
static void
test_copy_retransmit(void)
{
	struct rte_mbuf *m = mk(0, 3000, 3); /* three mbufs of 1000 bytes */
	struct rte_mbuf *hold[SMALL_N];
	struct sst_sendq_seg s;

	CU_ASSERT_FATAL(sst_sendq_init(q, 1 << 20, 64, 16, small, 0) == 0);
	CU_ASSERT_FATAL(rte_pktmbuf_alloc_bulk(small, hold, SMALL_N) == 0);
	copy_mode = SEG_COPY;
	CU_ASSERT_EQUAL(sst_sendq_append(q, m, SST_FLAG_PUSH), 0);
	EXPECT_SEG(1400, 0, 1400, 0);
	EXPECT_SEG(1400, 1400, 1400, 0);
	EXPECT_SEG(1400, 2800, 200, SST_FLAG_PUSH);
	CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(m), 1);
	CU_ASSERT_EQUAL(q->stats.copies, 3);
	CU_ASSERT_EQUAL(q->stats.bytes_copied, 3000);
	/* Half of the first mbuf and the last segment arrive, the rest is lost. */
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 0, 700), 0);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 2800, 200), 0);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), pool_avail - 3);
	CU_ASSERT_EQUAL(sst_sendq_on_lost(q, 0, 1400), 0);
	CU_ASSERT_EQUAL(sst_sendq_on_lost(q, 1400, 1400), 0);
	CU_ASSERT_EQUAL(sst_sendq_lost(q), 2100);
	/* Resent from the first unacknowledged byte, across the first mbuf's end. */
	CU_ASSERT_EQUAL(take(1000, &s), 1);
	CU_ASSERT(s.off == 700 && s.len == 1000 && s.retransmit && s.flags == 0);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 700, 1000), 0);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), pool_avail - 2);
	CU_ASSERT_EQUAL(take(1200, &s), 1);
	CU_ASSERT(s.off == 1700 && s.len == 1100 && s.retransmit && s.flags == 0);
	CU_ASSERT_EQUAL(take(1200, &s), 0);
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 1700, 1100), 0);
	CU_ASSERT_EQUAL(sst_sendq_queued(q), 0);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), pool_avail);
	CU_ASSERT_EQUAL(q->stats.clones + q->stats.nomem, 0);
	CU_ASSERT_EQUAL(q->stats.bytes_copied, 5100);
	copy_mode = SEG_CLONE;
	rte_pktmbuf_free_bulk(hold, SMALL_N);
	sst_sendq_fini(q);
	no_leak();
}

static void
suite_init(void)
{
	if (sst_test_eal_init("test_stream_sendq") < 0)
		exit(1);
	pool = sst_test_pool("sq_data", POOL_N, ROOM);
	clones = sst_test_pool("sq_clones", POOL_N, 0);
	small = sst_test_pool("sq_small", SMALL_N, 0);
	if (pool == NULL || clones == NULL || small == NULL)
		exit(1);
	pool_avail = rte_mempool_avail_count(pool);
	clones_avail = rte_mempool_avail_count(clones);
}

static void
test_eal(void)
{
	suite_init();
	CU_ASSERT_EQUAL(pool_avail, POOL_N);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_eal),
	SST_TEST(test_size_init),
	SST_TEST(test_segmentation),
	SST_TEST(test_zero_close),
	SST_TEST(test_close_alone),
	SST_TEST(test_zero_copy),
	SST_TEST(test_retransmit_first),
	SST_TEST(test_resegment),
	SST_TEST(test_acks),
	SST_TEST(test_bounds),
	SST_TEST(test_marks_and_nomem),
	SST_TEST(test_reset),
	SST_TEST(test_random_model),
	SST_TEST(test_random_model_copy),
	SST_TEST(test_random_model_chain),
	SST_TEST(test_copy_retransmit),
	SST_TEST_END,
};

SST_TEST_MAIN("stream_sendq", cases)
