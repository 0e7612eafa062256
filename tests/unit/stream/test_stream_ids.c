/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the stream identifier spaces (lib/stream/stream_ids.c): allocation
 * order from counter 1; the wrap past 0xffff skipping SID 0 and SIDs attached
 * or quiet; giving up after SST_SID_ALLOC_ATTEMPTS; the quiet period exactly
 * at its thresholds on either side; late attaches of quiet SIDs; capacity
 * limits (attached, and quiet ones held by a peer looping attach/detach);
 * receive-side counter reconstruction across 2^16 boundaries; lookups of
 * unknown SIDs; the root stream; SIDs of counters a space went past, and
 * quiet SIDs of streams that ended; and 100,000 streams allocated and
 * released against a model, mirrored into a receive space that must
 * reconstruct the same counters. Growable spaces (issue 14): an attach
 * storm up to max with every lookup checked after each growth, quiet SIDs
 * (and which ended) and their FIFO order kept across growths, a failed
 * growth behaving as a full table (-ENOSPC, -EBUSY) with nothing changed,
 * and a looping peer bounded as before.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "sst_error.h"
#include "sst_test.h"
#include "sst_test_mem.h"
#include "stream_ids.h"

static _Alignas(64) uint8_t mem_a[1 << 22];
static _Alignas(64) uint8_t mem_b[1 << 22];
static struct sst_sid_space *const sa = (struct sst_sid_space *)mem_a;
static struct sst_sid_space *const sb = (struct sst_sid_space *)mem_b;

/* Distinct attachments: &obj[i]. */
static int obj[64];
static int root_obj;

static void
init_tx(struct sst_sid_space *s, uint32_t max)
{
	CU_ASSERT_FATAL(sst_sid_space_size(max) <= sizeof(mem_a));
	CU_ASSERT_EQUAL_FATAL(sst_sid_space_init(s, max, SST_SID_TX, &root_obj), 0);
}

static void
init_rx(struct sst_sid_space *s, uint32_t max)
{
	CU_ASSERT_FATAL(sst_sid_space_size(max) <= sizeof(mem_a));
	CU_ASSERT_EQUAL_FATAL(sst_sid_space_init(s, max, SST_SID_RX, &root_obj), 0);
}

/* Allocate a SID and release it at once, its quiet period already over. */
static void
churn(struct sst_sid_space *s, uint64_t until)
{
	uint16_t sid;
	uint64_t c;

	while (sst_sid_space_counter(s) < until) {
		CU_ASSERT_EQUAL_FATAL(sst_sid_alloc(s, &obj[63], &sid, &c), 0);
		CU_ASSERT_EQUAL_FATAL(sst_sid_release(s, sid, 0, 0), 0);
		CU_ASSERT_EQUAL_FATAL(sst_sid_tick(s, 0, 0), 1);
	}
}

static void
test_size_init(void)
{
	CU_ASSERT_EQUAL(sst_sid_space_size(0), 0);
	CU_ASSERT_EQUAL(sst_sid_space_size(SST_SID_SPACE_MAX + 1), 0);
	CU_ASSERT(sst_sid_space_size(1) > sizeof(struct sst_sid_space));
	CU_ASSERT(sst_sid_space_size(SST_SID_SPACE_MAX) <= sizeof(mem_a));
	CU_ASSERT(sst_sid_space_size(2) > sst_sid_space_size(1));
	CU_ASSERT_EQUAL(sst_sid_space_init(NULL, 4, SST_SID_TX, NULL), -EINVAL);
	CU_ASSERT_EQUAL(sst_sid_space_init(sa, 0, SST_SID_TX, NULL), -EINVAL);
	CU_ASSERT_EQUAL(sst_sid_space_init(sa, SST_SID_SPACE_MAX + 1, SST_SID_TX, NULL), -EINVAL);
	CU_ASSERT_EQUAL(sst_sid_space_init(sa, 4, (enum sst_sid_dir)2, NULL), -EINVAL);
	CU_ASSERT_EQUAL(sst_sid_space_init(sa, SST_SID_SPACE_MAX, SST_SID_RX, NULL), 0);
	CU_ASSERT_EQUAL(sst_sid_space_counter(sa), 0);
	sst_sid_space_fini(sa);
	init_tx(sa, 4);
	CU_ASSERT_EQUAL(sst_sid_space_counter(sa), 1);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->attached, 0);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->quiet, 0);
	sst_sid_space_fini(sa);
}

static void
test_alloc_order(void)
{
	uint16_t sid;
	uint64_t c;

	init_tx(sa, 8);
	for (unsigned int i = 1; i <= 5; i++) {
		CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[i], &sid, &c), 0);
		CU_ASSERT_EQUAL(sid, i);
		CU_ASSERT_EQUAL(c, i);
		CU_ASSERT_PTR_EQUAL(sst_sid_lookup(sa, (uint16_t)i), &obj[i]);
	}
	CU_ASSERT_EQUAL(sst_sid_space_counter(sa), 6);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->attached, 5);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->allocs, 5);
	CU_ASSERT_EQUAL(sst_sid_counter(sa, 3, &c), 0);
	CU_ASSERT_EQUAL(c, 3);
	/* A released SID is not reused by the next allocation: the counter moves on. */
	CU_ASSERT_EQUAL(sst_sid_release(sa, 2, 0, 0), 0);
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 0, 0), 1);
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[6], &sid, NULL), 0);
	CU_ASSERT_EQUAL(sid, 6);
	sst_sid_space_fini(sa);
}

static void
test_wrong_space(void)
{
	uint16_t sid;

	init_rx(sa, 4);
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[1], &sid, NULL), -EINVAL);
	sst_sid_space_fini(sa);
	init_tx(sa, 4);
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 1, &obj[1], NULL), -EINVAL);
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, NULL, &sid, NULL), -EINVAL);
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[1], NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(sst_sid_space_counter(sa), 1);
	sst_sid_space_fini(sa);
	init_rx(sa, 4);
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 1, NULL, NULL), -EINVAL);
	CU_ASSERT_PTR_NULL(sst_sid_lookup(sa, 1));
	sst_sid_space_fini(sa);
}

static void
test_wrap(void)
{
	uint16_t sid;
	uint64_t c;

	init_tx(sa, 8);
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[1], &sid, &c), 0); /* A: kept */
	CU_ASSERT_EQUAL(sid, 1);
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[2], &sid, &c), 0); /* B: quiet later */
	CU_ASSERT_EQUAL(sid, 2);
	churn(sa, 0xfffe);
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[3], &sid, &c), 0);
	CU_ASSERT_EQUAL(sid, 0xfffe);
	CU_ASSERT_EQUAL(c, 0xfffe);
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[4], &sid, &c), 0);
	CU_ASSERT_EQUAL(sid, 0xffff);
	CU_ASSERT_EQUAL(c, 0xffff);
	CU_ASSERT_EQUAL(sst_sid_release(sa, 0xffff, 50, 50), 0);
	CU_ASSERT_EQUAL(sst_sid_release(sa, 2, 50, 50), 0);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->skipped, 0);
	/* 0x10000 is SID 0 (root), 0x10001 SID 1 (attached), 0x10002 SID 2 (quiet). */
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[5], &sid, &c), 0);
	CU_ASSERT_EQUAL(sid, 3);
	CU_ASSERT_EQUAL(c, 0x10003);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->skipped, 2);
	CU_ASSERT_EQUAL(sst_sid_counter(sa, 3, &c), 0);
	CU_ASSERT_EQUAL(c, 0x10003);
	CU_ASSERT_EQUAL(sst_sid_counter(sa, 1, &c), 0);
	CU_ASSERT_EQUAL(c, 1);
	CU_ASSERT_PTR_NULL(sst_sid_lookup(sa, 2));
	CU_ASSERT(sst_sid_is_quiet(sa, 2));
	CU_ASSERT(sst_sid_is_quiet(sa, 0xffff));
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 50, 49), 0);
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 49, 50), 0);
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 50, 50), 2);
	CU_ASSERT(!sst_sid_is_quiet(sa, 2));
	CU_ASSERT(!sst_sid_is_quiet(sa, 0xffff));
	/* Past the next wrap, 0x1fffe is SID 0xfffe (still attached): skipped. */
	churn(sa, 0x1fffe);
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[6], &sid, &c), 0);
	CU_ASSERT_EQUAL(sid, 0xffff);
	CU_ASSERT_EQUAL(c, 0x1ffff);
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[7], &sid, &c), 0);
	CU_ASSERT_EQUAL(sid, 2); /* 0x20000 root, 0x20001 SID 1 attached */
	CU_ASSERT_EQUAL(c, 0x20002);
	sst_sid_space_fini(sa);
}

static void
test_alloc_exhausted(void)
{
	uint16_t sid;
	uint64_t c;

	init_tx(sa, 32);
	for (unsigned int i = 1; i <= 17; i++)
		CU_ASSERT_EQUAL_FATAL(sst_sid_alloc(sa, &obj[i], &sid, NULL), 0);
	churn(sa, 0x10000);
	/* Counter values 0x10001..0x10010 are SIDs 1..16, all attached. */
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[20], &sid, &c), -EBUSY);
	CU_ASSERT_EQUAL(sst_sid_space_counter(sa), 0x10011);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->alloc_failures, 1);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->skipped, SST_SID_ALLOC_ATTEMPTS);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->attached, 17);
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[20], &sid, &c), 0);
	CU_ASSERT_EQUAL(sid, 18);
	CU_ASSERT_EQUAL(c, 0x10012);
	CU_ASSERT_PTR_EQUAL(sst_sid_lookup(sa, 18), &obj[20]);
	sst_sid_space_fini(sa);
}

static void
test_quiet_tx_thresholds(void)
{
	uint16_t sid;

	init_tx(sa, 4);
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[1], &sid, NULL), 0);
	CU_ASSERT_EQUAL(sst_sid_release(sa, sid, 100, 200), 0);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->attached, 0);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->quiet, 1);
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 99, 200), 0);
	CU_ASSERT(sst_sid_is_quiet(sa, sid));
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 100, 199), 0);
	CU_ASSERT(sst_sid_is_quiet(sa, sid));
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 99, 199), 0);
	CU_ASSERT(sst_sid_is_quiet(sa, sid));
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 100, 200), 1);
	CU_ASSERT(!sst_sid_is_quiet(sa, sid));
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->quiet, 0);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->quiet_expired, 1);
	/* FIFO order: a SID behind the head never leaves before its own time. */
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[2], &sid, NULL), 0); /* 2 */
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[3], &sid, NULL), 0); /* 3 */
	CU_ASSERT_EQUAL(sst_sid_release(sa, 2, 300, 300), 0);
	CU_ASSERT_EQUAL(sst_sid_release(sa, 3, 310, 305), 0);
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 309, 400), 1);
	CU_ASSERT(!sst_sid_is_quiet(sa, 2));
	CU_ASSERT(sst_sid_is_quiet(sa, 3));
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 310, 304), 0);
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 310, 305), 1);
	CU_ASSERT(!sst_sid_is_quiet(sa, 3));
	/* A non-monotonic release only waits longer, behind the head. */
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[4], &sid, NULL), 0); /* 4 */
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[5], &sid, NULL), 0); /* 5 */
	CU_ASSERT_EQUAL(sst_sid_release(sa, 4, 500, 500), 0);
	CU_ASSERT_EQUAL(sst_sid_release(sa, 5, 400, 400), 0);
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 450, 450), 0);
	CU_ASSERT(sst_sid_is_quiet(sa, 5));
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 500, 500), 2);
	sst_sid_space_fini(sa);
}

static void
test_quiet_rx_late_attach(void)
{
	uint64_t c;

	init_rx(sa, 4);
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 7, &obj[1], &c), 0);
	CU_ASSERT_EQUAL(c, 7);
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 7, &obj[2], &c), -EEXIST);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->reject_attached, 1);
	CU_ASSERT_PTR_EQUAL(sst_sid_lookup(sa, 7), &obj[1]);
	CU_ASSERT_EQUAL(sst_sid_release(sa, 7, 100, 200), 0);
	CU_ASSERT_PTR_NULL(sst_sid_lookup(sa, 7));
	/* A late Init for SID 7 must not create a stream while it is quiet. */
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 7, &obj[2], &c), -EBUSY);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->reject_quiet, 1);
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 99, 1000), 0);
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 7, &obj[2], &c), -EBUSY);
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 1000, 199), 0);
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 7, &obj[2], &c), -EBUSY);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->reject_quiet, 3);
	CU_ASSERT_PTR_NULL(sst_sid_lookup(sa, 7));
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 100, 200), 1);
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 7, &obj[2], &c), 0);
	CU_ASSERT_PTR_EQUAL(sst_sid_lookup(sa, 7), &obj[2]);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->alloc_failures, 4);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->allocs, 2);
	sst_sid_space_fini(sa);
}

static void
test_release_errors(void)
{
	uint16_t sid;

	init_tx(sa, 4);
	CU_ASSERT_EQUAL(sst_sid_release(sa, 0, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(sst_sid_release(sa, 1, 0, 0), -ENOENT);
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[1], &sid, NULL), 0);
	CU_ASSERT_EQUAL(sst_sid_release(sa, 1, 5, 5), 0);
	CU_ASSERT_EQUAL(sst_sid_release(sa, 1, 5, 5), -EALREADY);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->quiet, 1);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->releases, 1);
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 5, 5), 1);
	CU_ASSERT_EQUAL(sst_sid_release(sa, 1, 0, 0), -ENOENT);
	CU_ASSERT_EQUAL(sst_sid_tick(sa, UINT64_MAX, UINT64_MAX), 0);
	sst_sid_space_fini(sa);
}

static void
test_capacity(void)
{
	uint16_t sid;
	unsigned int ok = 0;

	init_tx(sa, 3);
	for (unsigned int i = 1; i <= 3; i++)
		CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[i], &sid, NULL), 0);
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[4], &sid, NULL), -ENOSPC);
	CU_ASSERT_EQUAL(sst_sid_space_counter(sa), 4); /* nothing consumed */
	for (uint16_t i = 1; i <= 3; i++)
		CU_ASSERT_EQUAL(sst_sid_release(sa, i, 10, 10), 0);
	for (unsigned int i = 4; i <= 6; i++)
		CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[i], &sid, NULL), 0);
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[7], &sid, NULL), -ENOSPC);
	CU_ASSERT_EQUAL(sst_sid_release(sa, 4, 10, 10), 0);
	/* 2 attached + 4 quiet fill the 6 entries. */
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[7], &sid, NULL), -EBUSY);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->reject_capacity, 3);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->alloc_failures, 3);
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 10, 10), 4);
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[7], &sid, NULL), 0);
	CU_ASSERT_EQUAL(sid, 7);
	sst_sid_space_fini(sa);

	/* Receive side: the peer's attachments are bounded the same way. */
	init_rx(sa, 2);
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 1, &obj[1], NULL), 0);
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 2, &obj[2], NULL), 0);
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 3, &obj[3], NULL), -ENOSPC);
	CU_ASSERT_PTR_NULL(sst_sid_lookup(sa, 3));
	CU_ASSERT_EQUAL(sst_sid_release(sa, 1, 5, 5), 0);
	CU_ASSERT_EQUAL(sst_sid_release(sa, 2, 5, 5), 0);
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 3, &obj[3], NULL), 0);
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 4, &obj[4], NULL), 0);
	CU_ASSERT_EQUAL(sst_sid_release(sa, 3, 6, 6), 0);
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 5, &obj[5], NULL), -EBUSY);
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 5, 5), 2);
	CU_ASSERT(sst_sid_is_quiet(sa, 3));
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 5, &obj[5], NULL), 0);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->attached, 2);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->quiet, 1);
	sst_sid_space_fini(sa);

	/* A peer looping attach/detach without sequence progress: 8 entries, no more. */
	init_rx(sa, 4);
	for (unsigned int i = 1; i <= 1000; i++) {
		if (sst_sid_attach(sa, (uint16_t)i, &obj[1], NULL) == 0) {
			ok++;
			CU_ASSERT_EQUAL(sst_sid_release(sa, (uint16_t)i, 1000, 1000), 0);
		}
	}
	CU_ASSERT_EQUAL(ok, 8);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->quiet, 8);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->reject_capacity, 992);
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 1000, 1000), 8);
	sst_sid_space_fini(sa);
}

static void
test_rx_counter(void)
{
	uint64_t c = 0;
	uint64_t want;
	unsigned int crossed = 0;

	init_rx(sa, 8);
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 1, &obj[1], &c), 0);
	CU_ASSERT_EQUAL(c, 1);
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 0x7fff, &obj[2], &c), 0);
	CU_ASSERT_EQUAL(c, 0x7fff);
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 0xfff0, &obj[3], &c), 0);
	CU_ASSERT_EQUAL(c, 0xfff0);
	CU_ASSERT_EQUAL(sst_sid_space_counter(sa), 0xfff0);
	/* Just past 2^16. */
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 0x0005, &obj[4], &c), 0);
	CU_ASSERT_EQUAL(c, 0x10005);
	/* A late announcement of an older stream lies below the highest. */
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 0xffff, &obj[5], &c), 0);
	CU_ASSERT_EQUAL(c, 0xffff);
	CU_ASSERT_EQUAL(sst_sid_space_counter(sa), 0x10005);
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 0x8000, &obj[6], &c), 0);
	CU_ASSERT_EQUAL(c, 0x18000);
	CU_ASSERT_EQUAL(sst_sid_counter(sa, 5, &c), 0);
	CU_ASSERT_EQUAL(c, 0x10005);
	CU_ASSERT_EQUAL(sst_sid_counter(sa, 0xffff, &c), 0);
	CU_ASSERT_EQUAL(c, 0xffff);
	CU_ASSERT_EQUAL(sst_sid_counter(sa, 0x8000, &c), 0);
	CU_ASSERT_EQUAL(c, 0x18000);
	sst_sid_space_fini(sa);

	/* Steps of 0x3000 cross a 2^16 boundary every few attaches. */
	init_rx(sa, 8);
	want = 0;
	for (unsigned int i = 0; i < 400; i++) {
		uint16_t sid;

		want += 0x3000 + (i % 7);
		sid = (uint16_t)want;
		if (sid == SST_SID_ROOT)
			continue;
		if ((want >> 16) != ((want - 0x3000 - (i % 7)) >> 16))
			crossed++;
		CU_ASSERT_EQUAL_FATAL(sst_sid_attach(sa, sid, &obj[i % 64], &c), 0);
		CU_ASSERT_EQUAL_FATAL(c, want);
		CU_ASSERT_EQUAL(sst_sid_release(sa, sid, i, i), 0);
		CU_ASSERT_EQUAL(sst_sid_tick(sa, i, i), 1);
	}
	CU_ASSERT(crossed > 70);
	CU_ASSERT(want > (UINT64_C(1) << 22));
	sst_sid_space_fini(sa);

	/* A counter that would lie below 0 is refused. */
	init_rx(sa, 8);
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 0x8000, &obj[1], &c), -SST_ESEQRANGE);
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 0x9000, &obj[1], &c), -SST_ESEQRANGE);
	CU_ASSERT_PTR_NULL(sst_sid_lookup(sa, 0x8000));
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->attached, 0);
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 0x7fff, &obj[1], &c), 0);
	CU_ASSERT_EQUAL(c, 0x7fff);
	sst_sid_space_fini(sa);
}

static void
test_lookup_unknown(void)
{
	uint16_t sid;
	uint64_t c = 42;

	init_tx(sa, 4);
	CU_ASSERT_PTR_NULL(sst_sid_lookup(sa, 5));
	CU_ASSERT_PTR_NULL(sst_sid_lookup(sa, 0xffff));
	CU_ASSERT_EQUAL(sst_sid_counter(sa, 5, &c), -ENOENT);
	CU_ASSERT_EQUAL(c, 42);
	CU_ASSERT(!sst_sid_is_quiet(sa, 5));
	CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[1], &sid, NULL), 0);
	CU_ASSERT_PTR_EQUAL(sst_sid_lookup(sa, 1), &obj[1]);
	CU_ASSERT_PTR_NULL(sst_sid_lookup(sa, 2));
	CU_ASSERT_EQUAL(sst_sid_release(sa, 1, 1, 1), 0);
	CU_ASSERT_PTR_NULL(sst_sid_lookup(sa, 1));
	CU_ASSERT_EQUAL(sst_sid_counter(sa, 1, &c), -ENOENT);
	sst_sid_space_fini(sa);
	/* Every SID of an empty receive space is unknown. */
	init_rx(sa, 4);
	for (uint32_t v = 1; v <= 0xffff; v++) {
		if (sst_sid_lookup(sa, (uint16_t)v) != NULL) {
			CU_FAIL("unknown SID found");
			break;
		}
	}
	sst_sid_space_fini(sa);
}

static void
test_root(void)
{
	int other;
	uint64_t c = 42;

	init_tx(sa, 4);
	init_rx(sb, 4);
	CU_ASSERT_PTR_EQUAL(sst_sid_lookup(sa, SST_SID_ROOT), &root_obj);
	CU_ASSERT_PTR_EQUAL(sst_sid_lookup(sb, SST_SID_ROOT), &root_obj);
	CU_ASSERT_EQUAL(sst_sid_counter(sb, 0, &c), 0);
	CU_ASSERT_EQUAL(c, 0);
	CU_ASSERT_EQUAL(sst_sid_release(sa, 0, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(sst_sid_release(sb, 0, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(sst_sid_attach(sb, 0, &other, &c), -EEXIST);
	CU_ASSERT(!sst_sid_is_quiet(sa, 0));
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->attached, 0);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sb)->attached, 0);
	CU_ASSERT_PTR_EQUAL(sst_sid_lookup(sb, SST_SID_ROOT), &root_obj);
	sst_sid_set_root(sb, &other);
	CU_ASSERT_PTR_EQUAL(sst_sid_lookup(sb, SST_SID_ROOT), &other);
	sst_sid_space_fini(sa);
	sst_sid_space_fini(sb);
	/* The root may be set after init. */
	CU_ASSERT_EQUAL(sst_sid_space_init(sa, 4, SST_SID_TX, NULL), 0);
	CU_ASSERT_PTR_NULL(sst_sid_lookup(sa, 0));
	sst_sid_set_root(sa, &root_obj);
	CU_ASSERT_PTR_EQUAL(sst_sid_lookup(sa, 0), &root_obj);
	sst_sid_space_fini(sa);
}

/*
 * SIDs of counters a space went past, as opposed to attached, quiet and
 * never used ones, on both sides and across the 2^16 wrap (after which
 * every SID was used in the last lap); and quiet SIDs
 * of streams that ended, known as such until the period is over.
 */
static void
test_past_and_ended(void)
{
	uint16_t sid;
	uint64_t c;

	init_tx(sa, 8);
	CU_ASSERT(!sst_sid_used_before(sa, 1) && !sst_sid_used_before(sa, 0xffff));
	for (int i = 1; i <= 3; i++)
		CU_ASSERT_EQUAL(sst_sid_alloc(sa, &obj[i], &sid, NULL), 0);
	CU_ASSERT(!sst_sid_used_before(sa, 2)); /* attached */
	CU_ASSERT_EQUAL(sst_sid_release_ended(sa, 2, 10, 10), 0);
	CU_ASSERT(sst_sid_is_quiet(sa, 2) && sst_sid_quiet_ended(sa, 2));
	CU_ASSERT(!sst_sid_used_before(sa, 2)); /* quiet */
	CU_ASSERT_EQUAL(sst_sid_release_ended(sa, 2, 10, 10), -EALREADY);
	CU_ASSERT_EQUAL(sst_sid_release_ended(sa, 4, 10, 10), -ENOENT);
	CU_ASSERT_EQUAL(sst_sid_release_ended(sa, 0, 10, 10), -EINVAL);
	CU_ASSERT_EQUAL(sst_sid_release(sa, 3, 10, 10), 0);
	CU_ASSERT(sst_sid_is_quiet(sa, 3) && !sst_sid_quiet_ended(sa, 3));
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 9, 10), 0);
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 10, 10), 2);
	CU_ASSERT(!sst_sid_quiet_ended(sa, 2) && sst_sid_used_before(sa, 2));
	CU_ASSERT(!sst_sid_used_before(sa, 4)); /* the next one to try */
	CU_ASSERT(!sst_sid_used_before(sa, SST_SID_ROOT) && !sst_sid_quiet_ended(sa, 0));
	/* Past the wrap: the SIDs behind the last counter, and those ahead,
	 * used in the last lap (they were not, and a late Reply 2^15 or more
	 * counters back was answered with a stateless Reset). */
	churn(sa, 0x10011);
	CU_ASSERT(sst_sid_used_before(sa, 0x0010) && sst_sid_used_before(sa, 0x8010));
	CU_ASSERT(sst_sid_used_before(sa, 0x0011) && sst_sid_used_before(sa, 0x800f));
	CU_ASSERT(!sst_sid_used_before(sa, 1)); /* still attached */
	sst_sid_space_fini(sa);

	/* Receive, capacity 1: entries are reused, and start unmarked. */
	init_rx(sa, 1);
	CU_ASSERT(!sst_sid_used_before(sa, 1));
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 5, &obj[1], &c), 0);
	CU_ASSERT(sst_sid_used_before(sa, 4) && !sst_sid_used_before(sa, 6));
	CU_ASSERT_EQUAL(sst_sid_release_ended(sa, 5, 1, 1), 0);
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 5, &obj[1], &c), -EBUSY);
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 1, 1), 1);
	CU_ASSERT(sst_sid_used_before(sa, 5));
	CU_ASSERT_EQUAL(sst_sid_attach(sa, 3, &obj[2], &c), 0); /* late, below the highest */
	CU_ASSERT_EQUAL(sst_sid_release(sa, 3, 1, 1), 0);
	CU_ASSERT(sst_sid_is_quiet(sa, 3) && !sst_sid_quiet_ended(sa, 3));
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 1, 1), 1);
	/* Past the wrap: every SID, ahead of the highest too (the last lap). */
	for (unsigned int i = 0; i < 3; i++) {
		static const uint16_t v[] = {0x7fff, 0xfff0, 0x0004};

		CU_ASSERT_EQUAL(sst_sid_attach(sa, v[i], &obj[3], &c), 0);
		CU_ASSERT_EQUAL(sst_sid_release(sa, v[i], 1, 1), 0);
		CU_ASSERT_EQUAL(sst_sid_tick(sa, 1, 1), 1);
	}
	CU_ASSERT_EQUAL(sst_sid_space_counter(sa), 0x10004);
	CU_ASSERT(sst_sid_used_before(sa, 0xfff5) && sst_sid_used_before(sa, 0x8004));
	CU_ASSERT(sst_sid_used_before(sa, 0x8003) && sst_sid_used_before(sa, 0x0006));
	sst_sid_space_fini(sa);
}

/* Model run: states of every SID of the transmit space. */
enum { M_FREE, M_ATTACHED, M_QUIET };
static uint8_t m_state[65536];
static uint64_t m_qtx[65536], m_qrx[65536];
static void *m_ptr[65536];

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void
test_model_100k(void)
{
	enum { MAX = 64, LIVE = 48, PERMANENT = 10, STREAMS = 100000, MOL = 32 };
	uint16_t live[MAX], quiet[2 * MAX];
	unsigned int nlive = 0, nquiet = 0, streams = 0, skips = 0, bad = 0;
	uint64_t tx_seq = 0, rx_seq = 0, last_c = 0;

	memset(m_state, 0, sizeof(m_state));
	init_tx(sa, MAX);
	init_rx(sb, MAX);
	while (streams < STREAMS && bad == 0) {
		/* The channel moves on; both spaces see the same sequence numbers. */
		tx_seq += rnd() % 3;
		rx_seq += rnd() % 3;
		sst_sid_tick(sa, tx_seq, rx_seq);
		sst_sid_tick(sb, tx_seq, rx_seq);
		for (unsigned int i = 0; i < nquiet;) {
			uint16_t q = quiet[i];

			if (tx_seq >= m_qtx[q] && rx_seq >= m_qrx[q]) {
				m_state[q] = M_FREE;
				quiet[i] = quiet[--nquiet];
			} else {
				i++;
			}
			if (sst_sid_is_quiet(sa, q) != (m_state[q] == M_QUIET) ||
				sst_sid_is_quiet(sb, q) != (m_state[q] == M_QUIET))
				bad++;
		}
		if (nlive <= PERMANENT || (nlive < LIVE && rnd() % 2)) {
			uint16_t sid;
			uint64_t c, rc_c;

			CU_ASSERT_EQUAL_FATAL(sst_sid_alloc(sa, &obj[nlive], &sid, &c), 0);
			/* Never a SID attached or quiet; consecutive apart from skips. */
			if (sid == 0 || m_state[sid] != M_FREE || (uint16_t)c != sid || c <= last_c)
				bad++;
			for (uint64_t v = last_c + 1; v < c; v++) {
				if ((uint16_t)v != 0 && m_state[(uint16_t)v] == M_FREE)
					bad++;
				if ((uint16_t)v != 0)
					skips++;
			}
			last_c = c;
			m_state[sid] = M_ATTACHED;
			m_ptr[sid] = &obj[nlive];
			live[nlive++] = sid;
			streams++;
			/* The peer reconstructs the same counter from the 16 bits. */
			if (sst_sid_attach(sb, sid, &obj[nlive - 1], &rc_c) != 0 || rc_c != c)
				bad++;
		} else {
			unsigned int k = PERMANENT + (unsigned int)(rnd() % (nlive - PERMANENT));
			uint16_t sid = live[k];

			live[k] = live[--nlive];
			CU_ASSERT_EQUAL_FATAL(
				sst_sid_release(sa, sid, tx_seq + MOL, rx_seq + MOL), 0);
			CU_ASSERT_EQUAL_FATAL(
				sst_sid_release(sb, sid, tx_seq + MOL, rx_seq + MOL), 0);
			m_state[sid] = M_QUIET;
			m_qtx[sid] = tx_seq + MOL;
			m_qrx[sid] = rx_seq + MOL;
			CU_ASSERT_FATAL(nquiet < 2 * MAX);
			quiet[nquiet++] = sid;
		}
		if (nlive > 0 && rnd() % 8 == 0) {
			/* Re-point a live SID (as a SID parked for a Reset); never a quiet one. */
			uint16_t sid = live[rnd() % nlive];

			m_ptr[sid] = &obj[rnd() % 64];
			if (sst_sid_set_ptr(sa, sid, m_ptr[sid]) != 0 ||
				sst_sid_set_ptr(sb, sid, m_ptr[sid]) != 0 ||
				(nquiet > 0 && sst_sid_set_ptr(sa, quiet[0], &obj[0]) != -ENOENT))
				bad++;
		}
		/* Every live SID still maps to its attachment, in both spaces. */
		for (unsigned int i = 0; i < nlive; i++) {
			if (sst_sid_lookup(sa, live[i]) != m_ptr[live[i]] ||
				sst_sid_lookup(sb, live[i]) != m_ptr[live[i]])
				bad++;
		}
		if (sst_sid_space_stats(sa)->attached != nlive ||
			sst_sid_space_stats(sa)->quiet != nquiet ||
			sst_sid_space_stats(sb)->attached != nlive ||
			sst_sid_space_stats(sb)->quiet != nquiet)
			bad++;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(streams, STREAMS);
	CU_ASSERT(last_c > 0x10000); /* wrapped at least once */
	CU_ASSERT(skips >= PERMANENT);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->skipped, skips);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->allocs, STREAMS);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->alloc_failures, 0);
	CU_ASSERT_EQUAL(sst_sid_space_counter(sb), last_c);
	sst_sid_space_fini(sa);
	sst_sid_space_fini(sb);
}

/*
 * A receive space filled to every entry (max attached, max quiet) with SIDs
 * scattered over the whole 16-bit range, round after round: every SID is
 * found in its state, every other is unknown, and the table empties.
 */
static void
test_full_table(void)
{
	enum { MAX = 1000, ROUNDS = 6 };
	static uint8_t used[65536];
	uint16_t quiet[MAX], att[MAX];

	memset(used, 0, sizeof(used));
	init_rx(sa, MAX);
	for (unsigned int r = 0; r < ROUNDS; r++) {
		uint64_t base = sst_sid_space_counter(sa);
		unsigned int n = 0, bad = 0;

		/* MAX SIDs within 2^15 of the highest counter, not in use. */
		while (n < MAX) {
			uint16_t sid = (uint16_t)(base + 1 + rnd() % 0x7000);

			if (sid == 0 || used[sid])
				continue;
			if (sst_sid_attach(sa, sid, &obj[n % 64], NULL) != 0)
				bad++;
			used[sid] = 1;
			att[n++] = sid;
		}
		/* Full: max attached is checked before the quiet SIDs. */
		CU_ASSERT_EQUAL(
			sst_sid_attach(sa, (uint16_t)(base + 0x7001), &obj[0], NULL), -ENOSPC);
		if (r == 0)
			CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->quiet, 0);
		for (unsigned int i = 0; i < MAX; i++) {
			if (sst_sid_lookup(sa, att[i]) != &obj[i % 64])
				bad++;
			if (r > 0 && !sst_sid_is_quiet(sa, quiet[i]))
				bad++;
		}
		for (uint32_t v = 1; v <= 0xffff; v++) {
			if (!used[v] && (sst_sid_lookup(sa, (uint16_t)v) != NULL ||
						sst_sid_is_quiet(sa, (uint16_t)v)))
				bad++;
		}
		/* The previous round's quiet SIDs go; this round's become quiet. */
		if (sst_sid_tick(sa, r, r) != (r == 0 ? 0 : MAX))
			bad++;
		for (unsigned int i = 0; i < MAX; i++) {
			if (r > 0)
				used[quiet[i]] = 0;
			if (sst_sid_release(sa, att[i], r + 1, r + 1) != 0)
				bad++;
			quiet[i] = att[i];
		}
		CU_ASSERT_EQUAL(bad, 0);
		CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->attached, 0);
		CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->quiet, MAX);
	}
	CU_ASSERT_EQUAL(sst_sid_tick(sa, ROUNDS, ROUNDS), MAX);
	CU_ASSERT_EQUAL(sst_sid_space_stats(sa)->quiet, 0);
	for (uint32_t v = 1; v <= 0xffff; v++) {
		if (sst_sid_lookup(sa, (uint16_t)v) != NULL || sst_sid_is_quiet(sa, (uint16_t)v)) {
			CU_FAIL("SID left after the last quiet period");
			break;
		}
	}
	sst_sid_space_fini(sa);
}

/* ---- growable spaces ---- */

static struct sst_test_mem tmem;
static struct sst_sid_space gs, gr; /* growable: the struct only */

static void
init_grow(struct sst_sid_space *s, uint32_t max, enum sst_sid_dir dir)
{
	memset(s, 0x5a, sizeof(*s));
	CU_ASSERT_EQUAL_FATAL(sst_sid_space_init_grow(s, max, dir, &root_obj, &tmem.ops), 0);
}

/* Every SID the model says is attached maps to its pointer and counter. */
static unsigned int
check_attached(const struct sst_sid_space *s, const uint64_t *counter, uint32_t n)
{
	unsigned int bad = 0;

	for (uint32_t i = 1; i <= n; i++) {
		uint64_t c = 0;

		bad += sst_sid_lookup(s, (uint16_t)i) != (void *)&counter[i];
		bad += sst_sid_counter(s, (uint16_t)i, &c) != 0 || c != counter[i];
	}
	bad += sst_sid_lookup(s, 0) != &root_obj;
	bad += sst_sid_lookup(s, (uint16_t)(n + 1)) != NULL;
	return bad;
}

static void
test_grow_init(void)
{
	sst_test_mem_init(&tmem);
	CU_ASSERT_EQUAL(sst_sid_space_init_grow(&gs, 4, SST_SID_TX, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(sst_sid_space_init_grow(NULL, 4, SST_SID_TX, NULL, &tmem.ops), -EINVAL);
	CU_ASSERT_EQUAL(sst_sid_space_init_grow(&gs, 0, SST_SID_TX, NULL, &tmem.ops), -EINVAL);
	CU_ASSERT_EQUAL(
		sst_sid_space_init_grow(&gs, SST_SID_SPACE_MAX + 1, SST_SID_TX, NULL, &tmem.ops),
		-EINVAL);
	/* Nothing allocated before the first attachment; lookups work. */
	init_grow(&gs, SST_SID_SPACE_MAX, SST_SID_RX);
	CU_ASSERT_EQUAL(tmem.allocs, 0);
	CU_ASSERT_EQUAL(gs.cap, 0);
	CU_ASSERT_EQUAL(sst_sid_space_stats(&gs)->table_bytes, 0);
	CU_ASSERT_PTR_NULL(sst_sid_lookup(&gs, 1));
	CU_ASSERT_PTR_EQUAL(sst_sid_lookup(&gs, 0), &root_obj);
	CU_ASSERT_FALSE(sst_sid_is_quiet(&gs, 1));
	CU_ASSERT_EQUAL(sst_sid_release(&gs, 1, 0, 0), -ENOENT);
	CU_ASSERT_EQUAL(sst_sid_tick(&gs, 0, 0), 0);
	CU_ASSERT_EQUAL(sst_sid_set_ptr(&gs, 1, &obj[1]), -ENOENT);
	sst_sid_space_fini(&gs);
	CU_ASSERT_EQUAL(tmem.live, 0);
}

/*
 * An attach storm from the peer up to max (1000, not a power of two), and
 * allocations of ours up to max: the tables double from SST_SID_SPACE_INIT
 * and end at exactly what a fixed space of max costs; every SID attached so
 * far is found with its pointer and counter after each growth; max + 1 is
 * refused as before.
 */
static void
test_grow_attach_storm(void)
{
	static uint64_t counter[1002];
	uint64_t last_grows = 0;
	unsigned int bad = 0, growths_checked = 0;
	uint16_t sid;

	sst_test_mem_init(&tmem);
	init_grow(&gr, 1000, SST_SID_RX);
	for (uint32_t i = 1; i <= 1000; i++) {
		CU_ASSERT_EQUAL_FATAL(
			sst_sid_attach(&gr, (uint16_t)i, &counter[i], &counter[i]), 0);
		if (sst_sid_space_stats(&gr)->grows != last_grows) {
			last_grows = sst_sid_space_stats(&gr)->grows;
			bad += check_attached(&gr, counter, i);
			growths_checked++;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(gr.cap, 1000);
	CU_ASSERT_EQUAL(growths_checked, 9); /* 4, 8, ..., 512, 1000 */
	CU_ASSERT_EQUAL(sst_sid_space_stats(&gr)->table_bytes,
		sst_sid_space_size(1000) - sizeof(struct sst_sid_space));
	CU_ASSERT_EQUAL(sst_sid_attach(&gr, 1001, &counter[1001], NULL), -ENOSPC);
	CU_ASSERT_EQUAL(sst_sid_space_stats(&gr)->reject_capacity, 1);
	CU_ASSERT_EQUAL(check_attached(&gr, counter, 1000), 0);
	CU_ASSERT_EQUAL(tmem.live, 1); /* the old tables went at each growth */
	sst_sid_space_fini(&gr);
	CU_ASSERT_EQUAL(tmem.live, 0);

	/* Our own allocations grow the same way and keep their order. */
	init_grow(&gs, 1000, SST_SID_TX);
	for (uint32_t i = 1; i <= 1000; i++) {
		CU_ASSERT_EQUAL_FATAL(sst_sid_alloc(&gs, &counter[i], &sid, &counter[i]), 0);
		bad += sid != i || counter[i] != i;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(check_attached(&gs, counter, 1000), 0);
	CU_ASSERT_EQUAL(sst_sid_alloc(&gs, &obj[1], &sid, NULL), -ENOSPC);
	sst_sid_space_fini(&gs);
	CU_ASSERT_EQUAL(tmem.live, 0);
}

/*
 * Quiet SIDs survive growths: still quiet (a late attach of one is refused
 * with -EBUSY), still unknown to lookups, and freed by ticks exactly at
 * their thresholds in release order, however many growths came between.
 */
static void
test_grow_quiet_preserved(void)
{
	static uint64_t counter[64];

	sst_test_mem_init(&tmem);
	init_grow(&gr, 40, SST_SID_RX);
	for (uint16_t i = 1; i <= 4; i++)
		CU_ASSERT_EQUAL(sst_sid_attach(&gr, i, &counter[i], &counter[i]), 0);
	CU_ASSERT_EQUAL(gr.cap, 4);
	/* 1..3 quiet until 10, 20, 30 on both sides; 2's stream ended. */
	for (uint16_t i = 1; i <= 3; i++)
		CU_ASSERT_EQUAL(i == 2 ? sst_sid_release_ended(&gr, i, 10 * i, 10 * i)
				       : sst_sid_release(&gr, i, 10 * i, 10 * i),
			0);
	for (uint16_t i = 5; i <= 40; i++)
		CU_ASSERT_EQUAL(sst_sid_attach(&gr, i, &counter[i], &counter[i]), 0);
	CU_ASSERT_EQUAL(gr.cap, 40); /* 4 -> 8 -> 16 -> 32 -> 40 */
	CU_ASSERT_EQUAL(sst_sid_space_stats(&gr)->grows, 5);
	for (uint16_t i = 1; i <= 3; i++) {
		CU_ASSERT(sst_sid_is_quiet(&gr, i));
		CU_ASSERT_PTR_NULL(sst_sid_lookup(&gr, i));
		CU_ASSERT_EQUAL(sst_sid_attach(&gr, i, &obj[i], NULL), -EBUSY);
		CU_ASSERT_EQUAL(sst_sid_quiet_ended(&gr, i), i == 2);
	}
	CU_ASSERT_EQUAL(sst_sid_space_stats(&gr)->quiet, 3);
	CU_ASSERT_EQUAL(sst_sid_space_stats(&gr)->attached, 37);
	CU_ASSERT_PTR_EQUAL(sst_sid_lookup(&gr, 4), &counter[4]);
	CU_ASSERT_PTR_EQUAL(sst_sid_lookup(&gr, 40), &counter[40]);
	/* One below on either side: still quiet; then one at a time, in order. */
	CU_ASSERT_EQUAL(sst_sid_tick(&gr, 9, 100), 0);
	CU_ASSERT_EQUAL(sst_sid_tick(&gr, 100, 9), 0);
	CU_ASSERT_EQUAL(sst_sid_tick(&gr, 10, 10), 1);
	CU_ASSERT_FALSE(sst_sid_is_quiet(&gr, 1));
	CU_ASSERT(sst_sid_is_quiet(&gr, 2));
	/* A release after the growths joins the FIFO behind the older ones. */
	CU_ASSERT_EQUAL(sst_sid_release(&gr, 40, 25, 25), 0);
	CU_ASSERT_EQUAL(sst_sid_tick(&gr, 25, 25), 1); /* 2 (20); 3 (30) holds 40 back */
	CU_ASSERT(sst_sid_is_quiet(&gr, 40));
	CU_ASSERT_EQUAL(sst_sid_tick(&gr, 30, 30), 2);
	CU_ASSERT_EQUAL(sst_sid_space_stats(&gr)->quiet, 0);
	CU_ASSERT_EQUAL(sst_sid_attach(&gr, 1, &obj[1], NULL), 0);
	sst_sid_space_fini(&gr);
	CU_ASSERT_EQUAL(tmem.live, 0);
}

/*
 * A growth that finds no memory is the table being full: -ENOSPC when the
 * attached SIDs fill the capacity, -EBUSY when quiet ones fill the entries;
 * counted as capacity rejects and growth failures; nothing changed (no
 * counter value consumed, every SID still found); a later growth works.
 */
static void
test_grow_failure_is_full(void)
{
	static uint64_t counter[64];
	uint16_t sid;

	sst_test_mem_init(&tmem);
	tmem.allow = 1; /* the first tables (4 SIDs), then no memory */
	init_grow(&gs, 64, SST_SID_TX);
	for (unsigned int i = 1; i <= 4; i++)
		CU_ASSERT_EQUAL(sst_sid_alloc(&gs, &counter[i], &sid, &counter[i]), 0);
	CU_ASSERT_EQUAL(sst_sid_alloc(&gs, &obj[5], &sid, NULL), -ENOSPC);
	CU_ASSERT_EQUAL(sst_sid_space_counter(&gs), 5); /* nothing consumed */
	CU_ASSERT_EQUAL(sst_sid_space_stats(&gs)->grow_failures, 1);
	CU_ASSERT_EQUAL(sst_sid_space_stats(&gs)->reject_capacity, 1);
	CU_ASSERT_EQUAL(sst_sid_space_stats(&gs)->alloc_failures, 1);
	CU_ASSERT_EQUAL(gs.cap, 4);
	CU_ASSERT_EQUAL(check_attached(&gs, counter, 4), 0);
	/* Quiet SIDs fill the 8 entries: -EBUSY, as a fixed space of 4 says. */
	for (uint16_t i = 1; i <= 4; i++)
		CU_ASSERT_EQUAL(sst_sid_release(&gs, i, 10, 10), 0);
	for (unsigned int i = 5; i <= 8; i++)
		CU_ASSERT_EQUAL(sst_sid_alloc(&gs, &obj[i], &sid, NULL), 0);
	CU_ASSERT_EQUAL(sst_sid_release(&gs, 8, 10, 10), 0);
	CU_ASSERT_EQUAL(sst_sid_alloc(&gs, &obj[9], &sid, NULL), -EBUSY);
	CU_ASSERT_EQUAL(sst_sid_space_stats(&gs)->grow_failures, 2);
	CU_ASSERT_EQUAL(sst_sid_space_stats(&gs)->quiet, 5);
	/* Memory again: the same call grows and succeeds; quiet SIDs stay quiet. */
	tmem.allow = UINT64_MAX;
	CU_ASSERT_EQUAL(sst_sid_alloc(&gs, &obj[9], &sid, NULL), 0);
	CU_ASSERT_EQUAL(sid, 9);
	CU_ASSERT_EQUAL(gs.cap, 8);
	for (uint16_t i = 1; i <= 4; i++)
		CU_ASSERT(sst_sid_is_quiet(&gs, i));
	CU_ASSERT(sst_sid_is_quiet(&gs, 8));
	CU_ASSERT_EQUAL(sst_sid_tick(&gs, 10, 10), 5);
	sst_sid_space_fini(&gs);

	/* The receive side refuses the peer's SID the same way. */
	sst_test_mem_init(&tmem);
	tmem.allow = 0;
	init_grow(&gr, 64, SST_SID_RX);
	CU_ASSERT_EQUAL(sst_sid_attach(&gr, 1, &obj[1], NULL), -ENOSPC);
	CU_ASSERT_EQUAL(sst_sid_space_counter(&gr), 0);
	CU_ASSERT_PTR_NULL(sst_sid_lookup(&gr, 1));
	tmem.allow = UINT64_MAX;
	CU_ASSERT_EQUAL(sst_sid_attach(&gr, 1, &obj[1], NULL), 0);
	sst_sid_space_fini(&gr);
	CU_ASSERT_EQUAL(tmem.live, 0);
}

/* A peer looping attach/detach without sequence progress makes a growable
 * space grow to max and no further: 2 * max entries, as a fixed space. */
static void
test_grow_looping_peer(void)
{
	unsigned int ok = 0;

	sst_test_mem_init(&tmem);
	init_grow(&gr, 16, SST_SID_RX);
	for (unsigned int i = 1; i <= 1000; i++) {
		if (sst_sid_attach(&gr, (uint16_t)i, &obj[1], NULL) == 0) {
			ok++;
			CU_ASSERT_EQUAL(sst_sid_release(&gr, (uint16_t)i, 1000, 1000), 0);
		}
	}
	CU_ASSERT_EQUAL(ok, 32);
	CU_ASSERT_EQUAL(gr.cap, 16);
	CU_ASSERT_EQUAL(sst_sid_space_stats(&gr)->table_bytes,
		sst_sid_space_size(16) - sizeof(struct sst_sid_space));
	CU_ASSERT_EQUAL(sst_sid_space_stats(&gr)->reject_capacity, 968);
	CU_ASSERT_EQUAL(sst_sid_space_stats(&gr)->grow_failures, 0);
	CU_ASSERT_EQUAL(sst_sid_tick(&gr, 1000, 1000), 32);
	sst_sid_space_fini(&gr);
	CU_ASSERT_EQUAL(tmem.live, 0);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_size_init),
	SST_TEST(test_alloc_order),
	SST_TEST(test_wrong_space),
	SST_TEST(test_wrap),
	SST_TEST(test_alloc_exhausted),
	SST_TEST(test_quiet_tx_thresholds),
	SST_TEST(test_quiet_rx_late_attach),
	SST_TEST(test_release_errors),
	SST_TEST(test_capacity),
	SST_TEST(test_rx_counter),
	SST_TEST(test_lookup_unknown),
	SST_TEST(test_root),
	SST_TEST(test_past_and_ended),
	SST_TEST(test_model_100k),
	SST_TEST(test_full_table),
	SST_TEST(test_grow_init),
	SST_TEST(test_grow_attach_storm),
	SST_TEST(test_grow_quiet_preserved),
	SST_TEST(test_grow_failure_is_full),
	SST_TEST(test_grow_looping_peer),
	SST_TEST_END,
};

SST_TEST_MAIN("stream_ids", cases)
