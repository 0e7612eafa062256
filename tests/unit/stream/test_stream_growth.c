/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the tables that grow with a stream's flight (issue 19): the
 * send queue's entries and ranges (sst_sendq_set_growth()) and the
 * reassembly buffer's pieces (sst_rob_set_growth()) start in the caller's
 * memory and grow on an allocator up to their limits, keep every byte in
 * order across a growth, refuse at the limit, leave the state untouched
 * when the allocator fails, and give every block back at fini and reset.
 * The allocator counts what it hands out and can be told to fail.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "sst_test.h"
#include "sst_test_eal.h"
#include "sst_test_mbuf.h"
#include "stream_rob.h"
#include "stream_sendq.h"

enum {
	POOL_N = 4096,
	ROOM = 1024,
	SEG = 100,
};

/* One pool for data and for the clones that cut it into segments. */
static struct rte_mempool *pool;
static unsigned int pool_avail;
static _Alignas(64) uint8_t mem[1 << 16];

/* ---- a counting allocator that can fail ---- */

static long live_blocks;
static bool fail_next;

static void *
count_zalloc(void *ctx, size_t size)
{
	void *p;

	(void)ctx;
	if (fail_next)
		return NULL;
	/* A header with the size: a release that names another fails. */
	p = aligned_alloc(64, 64 + (size + 63) / 64 * 64);
	if (p != NULL) {
		memset(p, 0, 64 + size);
		*(size_t *)p = size;
		live_blocks++;
		p = (uint8_t *)p + 64;
	}
	return p;
}

static void
count_release(void *ctx, void *p, size_t size)
{
	(void)ctx;
	if (p == NULL)
		return;
	p = (uint8_t *)p - 64;
	CU_ASSERT_EQUAL(*(size_t *)p, size);
	live_blocks--;
	free(p);
}

static const struct sst_mem_ops count_mem = {.zalloc = count_zalloc, .release = count_release};

static void
no_leak(void)
{
	CU_ASSERT_EQUAL(live_blocks, 0);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), pool_avail);
}

/* ---- send queue ---- */

static struct sst_sendq *const q = (struct sst_sendq *)mem;

static int
append_one(uint32_t len)
{
	struct rte_mbuf *m = sst_test_pattern_chain(pool, ROOM, q->tail, len, 1);
	int rc;

	CU_ASSERT_FATAL(m != NULL);
	rc = sst_sendq_append(q, m, SST_FLAG_PUSH);
	if (rc < 0)
		rte_pktmbuf_free(m);
	return rc;
}

/* 4 entries and 10 ranges inline, growing to 64 and 130: 60 mbufs go in,
 * every other segment is lost (30 ranges), all are resent and acknowledged
 * in order, and the tables go back at fini. */
static void
test_sendq_grows(void)
{
	struct sst_sendq_seg seg;
	uint64_t sent = 0;

	CU_ASSERT_FATAL(sst_sendq_size(4, 10) <= sizeof(mem));
	CU_ASSERT_FATAL(sst_sendq_init(q, 1 << 20, 4, 10, pool, 0) == 0);
	CU_ASSERT_EQUAL(sst_sendq_set_growth(q, 3, 130, &count_mem), -EINVAL);
	CU_ASSERT_EQUAL(sst_sendq_set_growth(q, 64, 130, NULL), -EINVAL);
	CU_ASSERT_EQUAL(sst_sendq_set_growth(q, SST_SENDQ_CAP_MAX + 1, 130, &count_mem), -EINVAL);
	CU_ASSERT_FATAL(sst_sendq_set_growth(q, 64, 130, &count_mem) == 0);
	/* Wrap the inline ring first, so the growth re-lays a wrapped ring. */
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(append_one(SEG), 0);
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_FATAL(sst_sendq_next_segment(q, SEG, &seg) == 1);
		rte_pktmbuf_free(seg.m);
		CU_ASSERT_EQUAL(sst_sendq_on_acked(q, seg.off, seg.len), 0);
	}
	for (int i = 0; i < 64; i++)
		CU_ASSERT_EQUAL(append_one(SEG), 0);
	CU_ASSERT_EQUAL(append_one(SEG), -ENOSPC); /* the limit */
	CU_ASSERT_EQUAL(q->ent_cap, 64);
	CU_ASSERT(q->stats.grows >= 1);
	CU_ASSERT(live_blocks >= 1);
	while (sent < 64 * SEG && sst_sendq_next_segment(q, SEG, &seg) == 1) {
		const uint8_t *p = rte_pktmbuf_mtod(seg.m, const uint8_t *);

		CU_ASSERT_EQUAL(seg.off, 3 * SEG + sent);
		CU_ASSERT_EQUAL(p[0], sst_test_pattern(seg.off));
		CU_ASSERT_EQUAL(p[seg.len - 1], sst_test_pattern(seg.off + seg.len - 1));
		rte_pktmbuf_free(seg.m);
		sent += seg.len;
	}
	for (uint64_t off = 3 * SEG; off < 67 * SEG; off += 2 * SEG)
		CU_ASSERT_EQUAL(sst_sendq_on_lost(q, off, SEG), 0);
	CU_ASSERT_EQUAL(sent, 64 * SEG);
	CU_ASSERT(q->nranges >= 30);
	CU_ASSERT(q->range_cap > 10);
	/* Resends come first, then everything is acknowledged. */
	while (sst_sendq_pending(q) && sst_sendq_next_segment(q, SEG, &seg) == 1) {
		CU_ASSERT(seg.retransmit);
		rte_pktmbuf_free(seg.m);
	}
	CU_ASSERT_EQUAL(sst_sendq_on_acked(q, 3 * SEG, 64 * SEG), 0);
	CU_ASSERT_EQUAL(sst_sendq_queued(q), 0);
	CU_ASSERT_EQUAL(q->stats.grow_failures, 0);
	sst_sendq_fini(q);
	CU_ASSERT_EQUAL(q->ent_cap, 4);
	CU_ASSERT_EQUAL(q->range_cap, 10);
	no_leak();
}

/* The allocator fails: the append is refused as at the limit and the queue
 * is as it was; once memory is back the same append succeeds. */
static void
test_sendq_grow_fails(void)
{
	CU_ASSERT_FATAL(sst_sendq_init(q, 1 << 20, 4, 10, pool, 0) == 0);
	CU_ASSERT_FATAL(sst_sendq_set_growth(q, 64, 130, &count_mem) == 0);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(append_one(SEG), 0);
	fail_next = true;
	CU_ASSERT_EQUAL(append_one(SEG), -ENOSPC);
	fail_next = false;
	CU_ASSERT_EQUAL(q->stats.grow_failures, 1);
	CU_ASSERT_EQUAL(q->ent_count, 4);
	CU_ASSERT_EQUAL(q->tail, 4 * SEG);
	CU_ASSERT_EQUAL(append_one(SEG), 0);
	CU_ASSERT_EQUAL(q->ent_count, 5);
	sst_sendq_fini(q);
	no_leak();
}

/* ---- reassembly buffer ---- */

static struct sst_rob *const rob = (struct sst_rob *)mem;

static int
insert(uint64_t off, uint32_t len)
{
	return sst_rob_insert(rob, off, sst_test_pattern_chain(pool, ROOM, off, len, 1), 0);
}

/* Read everything ready and check it continues the pattern at *at. */
static void
read_all(uint64_t *at)
{
	struct sst_rob_rx rx[32];
	uint16_t n;

	while ((n = sst_rob_read(rob, rx, 32)) > 0)
		for (uint16_t i = 0; i < n; i++) {
			uint32_t len = rte_pktmbuf_pkt_len(rx[i].m);
			const uint8_t *p = rte_pktmbuf_mtod(rx[i].m, const uint8_t *);

			CU_ASSERT_EQUAL(rx[i].off, *at);
			CU_ASSERT_EQUAL(p[0], sst_test_pattern(*at));
			*at += len;
			rte_pktmbuf_free(rx[i].m);
		}
}

/* 4 pieces inline, growing to 64: 40 out-of-order segments (every other
 * one, 40 islands), then the holes; 80 pieces would be needed at once for
 * all of them, so the last holes wait for reads. */
static void
test_rob_grows(void)
{
	uint64_t at = 0;

	CU_ASSERT_FATAL(sst_rob_size(4) <= sizeof(mem));
	CU_ASSERT_FATAL(sst_rob_init(rob, 4, 1 << 20, pool, 0) == 0);
	CU_ASSERT_EQUAL(sst_rob_set_growth(rob, 3, &count_mem), -EINVAL);
	CU_ASSERT_EQUAL(sst_rob_set_growth(rob, 64, NULL), -EINVAL);
	CU_ASSERT_FATAL(sst_rob_set_growth(rob, 64, &count_mem) == 0);
	for (int i = 0; i < 40; i++)
		CU_ASSERT(insert((uint64_t)(2 * i + 1) * SEG, SEG) >= 0);
	CU_ASSERT_EQUAL(rob->capacity, 64);
	CU_ASSERT_EQUAL(rob->islands, 40);
	CU_ASSERT_EQUAL(rob->stats.grows, 4); /* 4 -> 8 -> 16 -> 32 -> 64 */
	for (int i = 0; i < 24; i++)
		CU_ASSERT(insert((uint64_t)(2 * i) * SEG, SEG) >= 0);
	/* Full: the next hole is refused until the application reads. */
	CU_ASSERT_EQUAL(insert(48 * SEG, SEG), -ENOSPC);
	CU_ASSERT_EQUAL(rob->stats.drop_capacity, 1);
	read_all(&at);
	CU_ASSERT_EQUAL(at, 48 * SEG);
	for (int i = 24; i < 40; i++)
		CU_ASSERT(insert((uint64_t)(2 * i) * SEG, SEG) >= 0);
	read_all(&at);
	CU_ASSERT_EQUAL(at, 80 * SEG);
	CU_ASSERT_EQUAL(rob->stats.grow_failures, 0);
	/* Reset gives the chunks back; growth starts over. */
	CU_ASSERT(insert(at + SEG, SEG) >= 0);
	sst_rob_reset(rob, at);
	CU_ASSERT_EQUAL(rob->capacity, 4);
	CU_ASSERT_EQUAL(live_blocks, 0);
	for (int i = 0; i < 10; i++)
		CU_ASSERT(insert(at + (uint64_t)(2 * i + 1) * SEG, SEG) >= 0);
	CU_ASSERT(live_blocks >= 1);
	sst_rob_fini(rob);
	CU_ASSERT_EQUAL(rob->capacity, 4);
	no_leak();
}

/* The allocator fails: the segment is dropped as when the rob is full and
 * counted; what was buffered stays. */
static void
test_rob_grow_fails(void)
{
	CU_ASSERT_FATAL(sst_rob_init(rob, 4, 1 << 20, pool, 0) == 0);
	CU_ASSERT_FATAL(sst_rob_set_growth(rob, 64, &count_mem) == 0);
	for (int i = 0; i < 4; i++)
		CU_ASSERT(insert((uint64_t)(2 * i + 1) * SEG, SEG) >= 0);
	fail_next = true;
	CU_ASSERT_EQUAL(insert(9 * SEG, SEG), -ENOSPC);
	fail_next = false;
	CU_ASSERT_EQUAL(rob->stats.grow_failures, 1);
	CU_ASSERT_EQUAL(rob->capacity, 4);
	CU_ASSERT_EQUAL(rob->islands, 4);
	CU_ASSERT(insert(9 * SEG, SEG) >= 0);
	CU_ASSERT_EQUAL(rob->capacity, 8);
	sst_rob_fini(rob);
	no_leak();
}

static void
test_eal(void)
{
	if (sst_test_eal_init("test_stream_growth") < 0)
		exit(1);
	pool = sst_test_pool("gr_mbufs", POOL_N, ROOM);
	CU_ASSERT_FATAL(pool != NULL);
	pool_avail = rte_mempool_avail_count(pool);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_eal),
	SST_TEST(test_sendq_grows),
	SST_TEST(test_sendq_grow_fails),
	SST_TEST(test_rob_grows),
	SST_TEST(test_rob_grow_fails),
	SST_TEST_END,
};

SST_TEST_MAIN("stream_growth", cases)
