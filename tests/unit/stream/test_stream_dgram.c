/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of datagram reassembly and fragmentation (lib/stream/stream_dgram.c):
 * single-packet datagrams; multi-fragment ones in order and in every order of
 * four fragments; interleaved datagrams of several SIDs; duplicates; loss and
 * the timeout; the capacity, byte and size bounds and eviction of the oldest
 * partial datagram; inconsistent SIDs and flags; reset_sid; datagrams past
 * 64 KiB and at the mbuf segment limit (the sender's split is tested in
 * test_stream_dgram_split); 50k random operations (reordering, loss,
 * duplication, junk, timeouts, resets) against a model. Contents are checked
 * byte for byte; every test ends with every mbuf back in its pool.
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
	POOL_N = 16384,
	ROOM = 512,
	CLONES_N = 70000,
	B = SST_FLAG_DGRAM_BEGIN,
	E = SST_FLAG_DGRAM_END,
	BE = B | E,
};

#define MS UINT64_C(1000000) /* ns */

/* A call's return code, then the fragments buffered after it. */
#define EXPECT(call, want, frags)                               \
	do {                                                    \
		CU_ASSERT_EQUAL(call, want);                    \
		CU_ASSERT_EQUAL(sst_dgram_rx_frags(rx), frags); \
	} while (0)

#define no_leak()                                                               \
	do {                                                                    \
		CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), pool_avail);     \
		CU_ASSERT_EQUAL(rte_mempool_avail_count(clones), clones_avail); \
	} while (0)

static struct rte_mempool *pool, *clones;
static unsigned int pool_avail, clones_avail;
static _Alignas(64) uint8_t rx_mem[8 << 20];
static struct sst_dgram_rx *const rx = (struct sst_dgram_rx *)rx_mem;
static struct sst_dgram out;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd(void)
{
	return sst_test_xorshift(&rng_state);
}

/* A fragment holding the pattern bytes [off, off + len) in nseg segments
 * (more if a segment would not fit). */
static struct rte_mbuf *
chunk(uint64_t off, uint32_t len, unsigned int nseg)
{
	struct rte_mbuf *m;

	/* Enough segments that the last, which takes the remainder, fits. */
	while (len - (nseg - 1) * (len / nseg) > ROOM)
		nseg++;
	m = sst_test_pattern_chain(pool, ROOM, off, len, nseg);
	CU_ASSERT_FATAL(m != NULL);
	return m;
}

static void
setup_conf(
	uint32_t cap, uint32_t max_bytes, uint32_t max_frags, uint32_t max_dgram, uint64_t timeout)
{
	struct sst_dgram_rx_conf c = {cap, max_bytes, max_frags, max_dgram, timeout, 0x12345678};

	CU_ASSERT_FATAL(sst_dgram_rx_size(cap) != 0 && sst_dgram_rx_size(cap) <= sizeof(rx_mem));
	CU_ASSERT_FATAL(sst_dgram_rx_init(rx, &c) == 0);
}

static void
setup(void)
{
	setup_conf(256, 1 << 20, 256, 1 << 20, 100 * MS);
}

static void
teardown(void)
{
	const struct sst_dgram_rx_stats *s = &rx->stats;

	sst_dgram_rx_fini(rx);
	CU_ASSERT_EQUAL(sst_dgram_rx_frags(rx), 0);
	CU_ASSERT_EQUAL(s->frags, s->frags_delivered + s->frags_dropped);
	no_leak();
}

/* Check that d holds the pattern bytes [off, off + len) and free it. */
static void
check_dgram(struct sst_dgram *d, uint64_t off, uint32_t len)
{
	const struct rte_mbuf *s;
	uint32_t total = 0;
	uint16_t nseg = 0;
	bool ok = true;

	CU_ASSERT_FATAL(d->m != NULL);
	CU_ASSERT_EQUAL(d->len, len);
	CU_ASSERT_EQUAL(d->m->pkt_len, len);
	for (s = d->m; s != NULL; s = s->next, nseg++) {
		const uint8_t *p = rte_pktmbuf_mtod(s, const uint8_t *);

		for (uint16_t k = 0; k < s->data_len; k++)
			ok &= p[k] == sst_test_pattern(off + total + k);
		total += s->data_len;
	}
	CU_ASSERT(ok && total == len && nseg == d->m->nb_segs);
	rte_pktmbuf_free(d->m);
	d->m = NULL;
}

/* Insert fragment i of n (fl bytes each, 1-3 segments) of the datagram
 * starting at seq0 whose bytes are the pattern from base. */
static int
ins_frag(uint16_t sid, uint64_t seq0, unsigned int i, unsigned int n, uint64_t base, uint32_t fl,
	sst_time_t now)
{
	uint32_t flags = (i == 0 ? B : 0) | (i + 1 == n ? E : 0);

	return sst_dgram_rx_insert(
		rx, sid, seq0 + i, flags, chunk(base + (uint64_t)i * fl, fl, 1 + i % 3), now, &out);
}

/* Insert one single-segment fragment at time 0. */
static int
ins(uint16_t sid, uint64_t seq, uint32_t flags, uint64_t off, uint32_t len)
{
	return sst_dgram_rx_insert(rx, sid, seq, flags, chunk(off, len, 1), 0, &out);
}

static void
test_size_init(void)
{
	struct sst_dgram_rx_conf c = {8, 1000, 8, 1000, 1, 1}; /* see setup_conf() */
	struct sst_dgram_rx_conf bad[6] = {c, c, c, c, c, c};

	CU_ASSERT_EQUAL(sst_dgram_rx_size(0), 0);
	CU_ASSERT_EQUAL(sst_dgram_rx_size(SST_DGRAM_CAP_MAX + 1), 0);
	CU_ASSERT(sst_dgram_rx_size(1) > sizeof(struct sst_dgram_rx));
	CU_ASSERT_EQUAL(sst_dgram_rx_init(NULL, &c), -EINVAL);
	CU_ASSERT_EQUAL(sst_dgram_rx_init(rx, NULL), -EINVAL);
	bad[0].capacity = 0;
	bad[1].max_frags = 9;
	bad[2].max_frags = 0;
	bad[3].max_dgram_bytes = 1001;
	bad[4].max_bytes = 0;
	bad[5].timeout = 0;
	for (unsigned int i = 0; i < RTE_DIM(bad); i++)
		CU_ASSERT_EQUAL(sst_dgram_rx_init(rx, &bad[i]), -EINVAL);
	CU_ASSERT_EQUAL(sst_dgram_rx_init(rx, &c), 0);
	CU_ASSERT_EQUAL(sst_dgram_rx_next_expiry(rx), SST_TIME_NEVER);
	CU_ASSERT_EQUAL(sst_dgram_rx_insert(rx, 1, 1, E, NULL, 0, &out), -EINVAL);
	CU_ASSERT_EQUAL(ins(1, 1, 0x4, 0, 10), -EINVAL);
	EXPECT(ins(1, 1, 0x8 | BE, 0, 10), -EINVAL, 0);
	CU_ASSERT_EQUAL(rx->stats.invalid, 2);
	teardown();
}

/* Begin|End: returned at once, never buffered. */
static void
test_single(void)
{
	setup();
	CU_ASSERT_EQUAL(sst_dgram_rx_insert(rx, 7, 100, BE, chunk(500, 1000, 3), 0, &out),
		SST_DGRAM_COMPLETE);
	CU_ASSERT(out.sid == 7 && out.seq == 100 && out.frags == 1);
	check_dgram(&out, 500, 1000);
	/* An empty datagram. */
	CU_ASSERT_EQUAL(ins(7, 101, BE, 0, 0), SST_DGRAM_COMPLETE);
	check_dgram(&out, 0, 0);
	/* Between a fragment with End and one with Begin: nothing changes. */
	CU_ASSERT_EQUAL(ins_frag(7, 200, 1, 2, 0, 10, 0), SST_DGRAM_BUFFERED); /* 201 End */
	CU_ASSERT_EQUAL(ins_frag(7, 203, 0, 2, 0, 10, 0), SST_DGRAM_BUFFERED); /* 203 Begin */
	EXPECT(ins(7, 202, BE, 9, 9), SST_DGRAM_COMPLETE, 2);
	check_dgram(&out, 9, 9);
	CU_ASSERT_EQUAL(rx->stats.single, 3);
	CU_ASSERT_EQUAL(rx->stats.datagrams, 3);
	CU_ASSERT_EQUAL(rx->stats.inconsistent, 0);
	teardown();
}

static void
test_in_order(void)
{
	setup();
	for (unsigned int i = 0; i < 5; i++) {
		EXPECT(ins_frag(3, 1000, i, 5, 4000, 300, i),
			i == 4 ? SST_DGRAM_COMPLETE : SST_DGRAM_BUFFERED, i == 4 ? 0 : i + 1);
		CU_ASSERT_EQUAL(sst_dgram_rx_partials(rx), i == 4 ? 0 : 1);
	}
	CU_ASSERT(out.sid == 3 && out.seq == 1000 && out.frags == 5);
	CU_ASSERT_EQUAL(out.m->nb_segs, 1 + 2 + 3 + 1 + 2);
	check_dgram(&out, 4000, 1500);
	CU_ASSERT_EQUAL(sst_dgram_rx_bytes(rx), 0);
	CU_ASSERT_EQUAL(sst_dgram_rx_next_expiry(rx), SST_TIME_NEVER);
	teardown();
}

/* Every arrival order of a 4-fragment datagram completes on the last one. */
static void
test_permutations(void)
{
	unsigned int count = 0;

	setup();
	for (unsigned int code = 0; code < 256; code++) {
		unsigned int perm[4], used = 0;
		uint64_t seq0 = 10 + count * 4;

		for (unsigned int k = 0; k < 4; k++) {
			perm[k] = code >> (2 * k) & 3;
			used |= 1u << perm[k];
		}
		if (used != 0xf)
			continue; /* not a permutation */
		for (unsigned int k = 0; k < 4; k++)
			CU_ASSERT_EQUAL(ins_frag(1, seq0, perm[k], 4, count * 1000, 100 + count, k),
				k == 3 ? SST_DGRAM_COMPLETE : SST_DGRAM_BUFFERED);
		CU_ASSERT(out.seq == seq0 && out.frags == 4);
		check_dgram(&out, count * 1000, 4 * (100 + count));
		CU_ASSERT_EQUAL(sst_dgram_rx_partials(rx), 0);
		count++;
	}
	CU_ASSERT_EQUAL(count, 24);
	CU_ASSERT_EQUAL(rx->stats.datagrams, 24);
	teardown();
}

struct ipkt {
	uint64_t seq;
	uint32_t flags;
	uint16_t sid;
	uint32_t d, off;
};

/* 60 datagrams of 4 SIDs, back to back in sequence space, shuffled. */
static void
test_interleaved(void)
{
	enum { N = 60, FL = 77 };
	struct ipkt pk[N * 6], t;
	uint64_t seq = 1ull << 40, first[N];
	unsigned int np = 0, seen[N] = {0};

	setup();
	for (uint32_t d = 0; d < N; d++) {
		unsigned int n = 1 + d % 6;

		first[d] = seq;
		for (unsigned int i = 0; i < n; i++)
			pk[np++] = (struct ipkt){
				seq + i, (i == 0 ? B : 0) | (i + 1 == n ? E : 0), d % 4, d, i * FL};
		seq += n;
	}
	for (unsigned int i = np; i > 1; i--) {
		unsigned int j = (unsigned int)(rnd() % i);

		t = pk[i - 1];
		pk[i - 1] = pk[j];
		pk[j] = t;
	}
	for (unsigned int i = 0; i < np; i++) {
		int rc = sst_dgram_rx_insert(rx, pk[i].sid, pk[i].seq, pk[i].flags,
			chunk(pk[i].d * 100000ull + pk[i].off, FL, 1), i, &out);

		CU_ASSERT(rc == SST_DGRAM_BUFFERED || rc == SST_DGRAM_COMPLETE);
		if (rc == SST_DGRAM_COMPLETE) {
			uint32_t d = 0;

			while (d < N && first[d] != out.seq)
				d++;
			CU_ASSERT_FATAL(d < N);
			CU_ASSERT(out.sid == d % 4 && out.frags == 1 + d % 6);
			seen[d]++;
			check_dgram(&out, d * 100000ull, (1 + d % 6) * FL);
		}
	}
	for (unsigned int d = 0; d < N; d++)
		CU_ASSERT_EQUAL(seen[d], 1);
	CU_ASSERT_EQUAL(sst_dgram_rx_frags(rx), 0);
	CU_ASSERT_EQUAL(rx->stats.inconsistent, 0);
	teardown();
}

static void
test_duplicates(void)
{
	setup();
	CU_ASSERT_EQUAL(ins_frag(2, 50, 0, 3, 0, 100, 0), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(ins_frag(2, 50, 2, 3, 0, 100, 0), SST_DGRAM_BUFFERED);
	/* Same seq again, even with other contents or flags: the first stays. */
	CU_ASSERT_EQUAL(ins_frag(2, 50, 0, 3, 0, 100, 0), SST_DGRAM_DUPLICATE);
	EXPECT(ins(9, 52, BE, 0, 5), SST_DGRAM_DUPLICATE, 2);
	CU_ASSERT_EQUAL(rx->stats.duplicates, 2);
	CU_ASSERT_EQUAL(ins_frag(2, 50, 1, 3, 0, 100, 0), SST_DGRAM_COMPLETE);
	check_dgram(&out, 0, 300);
	/* Once delivered, a late copy is a new fragment that waits alone
	 * (the channel's replay window normally drops it first). */
	EXPECT(ins_frag(2, 50, 1, 3, 0, 100, 0), SST_DGRAM_BUFFERED, 1);
	teardown();
}

/* A lost fragment: the rest waits until the timeout, counted from the
 * first fragment's arrival, then goes back to the pool. */
static void
test_loss_timeout(void)
{
	setup_conf(64, 1 << 20, 64, 1 << 20, 50 * MS);
	CU_ASSERT_EQUAL(ins_frag(1, 10, 0, 4, 0, 100, 10 * MS), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(ins_frag(1, 10, 1, 4, 0, 100, 20 * MS), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(ins_frag(1, 10, 3, 4, 0, 100, 30 * MS), SST_DGRAM_BUFFERED);
	/* Another datagram, later. */
	CU_ASSERT_EQUAL(ins_frag(2, 20, 0, 2, 0, 100, 40 * MS), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(sst_dgram_rx_partials(rx), 3);
	CU_ASSERT_EQUAL(sst_dgram_rx_next_expiry(rx), 60 * MS);
	CU_ASSERT_EQUAL(sst_dgram_rx_expire(rx, 60 * MS - 1), 0);
	EXPECT(sst_dgram_rx_expire(rx, 60 * MS), 1, 2);
	CU_ASSERT_EQUAL(sst_dgram_rx_next_expiry(rx), 80 * MS);
	/* The lost fragment arrives late: it joins the tail, which keeps
	 * its age; the head is gone, so it never completes. */
	CU_ASSERT_EQUAL(ins_frag(1, 10, 2, 4, 0, 100, 75 * MS), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(sst_dgram_rx_next_expiry(rx), 80 * MS);
	CU_ASSERT_EQUAL(sst_dgram_rx_expire(rx, 80 * MS), 1);
	CU_ASSERT_EQUAL(sst_dgram_rx_next_expiry(rx), 90 * MS);
	EXPECT(sst_dgram_rx_expire(rx, 200 * MS), 1, 0);
	CU_ASSERT_EQUAL(rx->stats.timeouts, 3);
	CU_ASSERT_EQUAL(sst_dgram_rx_next_expiry(rx), SST_TIME_NEVER);
	no_leak();

	/* Two groups merged by a middle fragment keep the older age, and
	 * time that goes backwards counts as the latest time seen. */
	CU_ASSERT_EQUAL(ins_frag(4, 100, 3, 4, 0, 10, 300 * MS), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(ins_frag(4, 100, 0, 4, 0, 10, 310 * MS), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(ins_frag(4, 100, 1, 4, 0, 10, 0), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(sst_dgram_rx_next_expiry(rx), 350 * MS);
	CU_ASSERT_EQUAL(ins_frag(4, 100, 2, 4, 0, 10, 320 * MS), SST_DGRAM_COMPLETE);
	check_dgram(&out, 0, 40);
	CU_ASSERT_EQUAL(ins_frag(5, 200, 0, 2, 0, 10, 0), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(sst_dgram_rx_next_expiry(rx), 370 * MS);
	teardown();
}

static void
test_bounds(void)
{
	/* Capacity 6 fragments: the oldest partial datagram goes first. */
	setup_conf(6, 1 << 20, 6, 1 << 20, 100 * MS);
	CU_ASSERT_EQUAL(ins_frag(1, 10, 0, 3, 0, 10, 1), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(ins_frag(2, 20, 0, 3, 0, 10, 2), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(ins_frag(2, 20, 1, 3, 0, 10, 3), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(ins_frag(3, 30, 0, 3, 0, 10, 4), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(ins_frag(3, 30, 1, 3, 0, 10, 5), SST_DGRAM_BUFFERED);
	EXPECT(ins_frag(1, 10, 1, 3, 0, 10, 6), SST_DGRAM_BUFFERED, 6);
	/* Full: the last fragment of datagram 3 evicts datagram 1, the
	 * oldest, and completes datagram 3. */
	EXPECT(ins_frag(3, 30, 2, 3, 1000, 10, 7), SST_DGRAM_COMPLETE, 2); /* 2 is left */
	CU_ASSERT_EQUAL(out.sid, 3);
	rte_pktmbuf_free(out.m);
	CU_ASSERT_EQUAL(rx->stats.evicted, 1);
	/* Full again; a fragment that joins the oldest group does not evict
	 * it but the next one. */
	CU_ASSERT_EQUAL(ins_frag(4, 40, 0, 3, 0, 10, 8), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(ins_frag(4, 40, 1, 3, 0, 10, 9), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(ins_frag(5, 50, 0, 3, 0, 10, 10), SST_DGRAM_BUFFERED);
	EXPECT(ins_frag(5, 50, 1, 3, 0, 10, 11), SST_DGRAM_BUFFERED, 6);
	EXPECT(ins_frag(2, 20, 2, 3, 0, 10, 12), SST_DGRAM_COMPLETE, 2);
	check_dgram(&out, 0, 30);
	CU_ASSERT_EQUAL(rx->stats.evicted, 2); /* datagram 4 */
	teardown();

	/* Bytes: 1000 at most; a fragment evicts until it fits. */
	setup_conf(64, 1000, 64, 1000, 100 * MS);
	CU_ASSERT_EQUAL(ins_frag(1, 10, 0, 2, 0, 300, 1), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(ins_frag(2, 20, 0, 2, 0, 300, 2), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(ins_frag(3, 30, 0, 2, 0, 300, 3), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(ins_frag(4, 40, 0, 2, 0, 400, 4), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(sst_dgram_rx_bytes(rx), 1000);
	CU_ASSERT_EQUAL(rx->stats.evicted, 1);
	CU_ASSERT_EQUAL(ins_frag(5, 50, 0, 2, 0, 1000, 5), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(sst_dgram_rx_bytes(rx), 1000);
	CU_ASSERT_EQUAL(rx->stats.evicted, 4);
	/* Past the datagram size: the fragment alone, or with its group. */
	CU_ASSERT_EQUAL(ins_frag(6, 60, 0, 2, 0, 1001, 6), -EMSGSIZE);
	EXPECT(ins_frag(5, 50, 1, 2, 0, 1, 6), -EMSGSIZE, 0);
	CU_ASSERT_EQUAL(sst_dgram_rx_insert(rx, 1, 99, BE, chunk(0, 1001, 2), 0, &out), -EMSGSIZE);
	CU_ASSERT_EQUAL(rx->stats.oversize, 3);
	teardown();

	/* Fragments per datagram: 4 at most. */
	setup_conf(64, 1 << 20, 4, 1 << 20, 100 * MS);
	for (unsigned int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(ins_frag(1, 10, i, 5, 0, 10, 0), SST_DGRAM_BUFFERED);
	EXPECT(ins_frag(1, 10, 4, 5, 0, 10, 0), -EMSGSIZE, 0);
	for (unsigned int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(ins_frag(1, 20, i, 4, 0, 10, 0),
			i == 3 ? SST_DGRAM_COMPLETE : SST_DGRAM_BUFFERED);
	check_dgram(&out, 0, 40);
	/* Also when a fragment joins two groups. */
	for (unsigned int i = 0; i < 5; i += i == 1 ? 2 : 1)
		CU_ASSERT_EQUAL(ins_frag(1, 30, i, 5, 0, 10, 0), SST_DGRAM_BUFFERED);
	EXPECT(ins_frag(1, 30, 2, 5, 0, 10, 0), -EMSGSIZE, 0);
	CU_ASSERT_EQUAL(rx->stats.oversize, 2);
	teardown();
}

/* Inconsistent fragments never produce a mixed datagram. */
static void
test_inconsistent(void)
{
	setup();
	/* Another SID in the middle: both sides are dead. */
	CU_ASSERT_EQUAL(ins_frag(1, 10, 0, 3, 0, 10, 0), SST_DGRAM_BUFFERED);
	EXPECT(ins(2, 11, 0, 0, 10), -EPROTO, 0);
	CU_ASSERT_EQUAL(rx->stats.inconsistent, 2);
	CU_ASSERT_EQUAL(ins_frag(1, 10, 2, 3, 0, 10, 0), SST_DGRAM_BUFFERED);
	EXPECT(ins_frag(1, 10, 1, 3, 0, 10, 0), SST_DGRAM_BUFFERED, 2); /* no Begin: waits */
	CU_ASSERT_EQUAL(sst_dgram_rx_reset_sid(rx, 1), 1);

	/* Another SID at the end, carrying End: the open group is dead, and
	 * so is the fragment (no Begin, and its predecessor is foreign). */
	CU_ASSERT_EQUAL(ins_frag(1, 20, 0, 2, 0, 10, 0), SST_DGRAM_BUFFERED);
	EXPECT(ins(2, 21, E, 0, 10), -EPROTO, 0);

	/* A Begin in the middle of a run starts a new datagram; the open
	 * one before it is dead. */
	CU_ASSERT_EQUAL(ins_frag(1, 30, 0, 3, 0, 10, 0), SST_DGRAM_BUFFERED);
	EXPECT(ins(1, 31, B, 100, 10), SST_DGRAM_BUFFERED, 1);
	CU_ASSERT_EQUAL(ins(1, 32, E, 110, 10), SST_DGRAM_COMPLETE);
	CU_ASSERT_EQUAL(out.seq, 31);
	check_dgram(&out, 100, 20);

	/* End, then a fragment without Begin: the fragment is dead. */
	CU_ASSERT_EQUAL(ins_frag(1, 40, 1, 2, 0, 10, 0), SST_DGRAM_BUFFERED); /* 41 End */
	CU_ASSERT_EQUAL(ins(1, 42, 0, 0, 10), -EPROTO);
	EXPECT(ins(1, 42, E, 0, 10), -EPROTO, 1);
	/* A fragment with Begin fits after an End. */
	CU_ASSERT_EQUAL(ins(1, 42, B, 0, 10), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(ins_frag(1, 40, 0, 2, 0, 10, 0), SST_DGRAM_COMPLETE);
	check_dgram(&out, 0, 20);

	/* A Begin|End between two halves of a datagram kills both. */
	CU_ASSERT_EQUAL(ins_frag(3, 50, 0, 3, 0, 10, 0), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(ins_frag(3, 50, 2, 3, 0, 10, 0), SST_DGRAM_BUFFERED);
	EXPECT(ins(3, 51, BE, 7, 10), SST_DGRAM_COMPLETE, 1); /* 42 (Begin) is left */
	check_dgram(&out, 7, 10);
	CU_ASSERT_EQUAL(sst_dgram_rx_reset_sid(rx, 1), 1);

	/* Two Begins in a row: the first is dead. Two Ends in a row: the
	 * second is dead. What is left completes as 61..63 only. */
	CU_ASSERT_EQUAL(ins(4, 60, B, 0, 10), SST_DGRAM_BUFFERED);
	EXPECT(ins(4, 61, B, 0, 10), SST_DGRAM_BUFFERED, 1);
	CU_ASSERT_EQUAL(ins(4, 63, E, 20, 10), SST_DGRAM_BUFFERED);
	EXPECT(ins(4, 64, E, 0, 10), -EPROTO, 2);
	EXPECT(ins(4, 62, 0, 10, 10), SST_DGRAM_COMPLETE, 0);
	CU_ASSERT(out.seq == 61 && out.frags == 3);
	check_dgram(&out, 0, 30);
	CU_ASSERT_EQUAL(rx->stats.datagrams, 4);
	teardown();
}

static void
test_reset_sid(void)
{
	uint32_t left;

	setup();
	for (uint16_t sid = 0; sid < 40; sid++) {
		CU_ASSERT_EQUAL(ins_frag(sid, 100 + sid * 10, 0, 3, 0, 10, 0), SST_DGRAM_BUFFERED);
		CU_ASSERT_EQUAL(ins_frag(sid, 100 + sid * 10, 2, 3, 0, 10, 0), SST_DGRAM_BUFFERED);
		CU_ASSERT_EQUAL(ins_frag(sid, 1000 + sid * 10, 1, 3, 0, 10, 0), SST_DGRAM_BUFFERED);
	}
	CU_ASSERT_EQUAL(sst_dgram_rx_partials(rx), 120);
	EXPECT(sst_dgram_rx_reset_sid(rx, 7), 3, 117);
	CU_ASSERT_EQUAL(sst_dgram_rx_reset_sid(rx, 7), 0);
	EXPECT(sst_dgram_rx_reset_sid(rx, 4000), 0, 117);
	/* The dropped seqs are free again; the others still complete. */
	CU_ASSERT_EQUAL(ins_frag(7, 170, 1, 3, 0, 10, 0), SST_DGRAM_BUFFERED);
	CU_ASSERT_EQUAL(ins_frag(8, 180, 1, 3, 0, 10, 0), SST_DGRAM_COMPLETE);
	CU_ASSERT_EQUAL(out.sid, 8);
	check_dgram(&out, 0, 30);
	left = sst_dgram_rx_partials(rx);
	CU_ASSERT_EQUAL(left, 120 - 3 + 1 - 2);
	for (uint16_t sid = 0; sid < 40; sid++)
		sst_dgram_rx_reset_sid(rx, sid);
	CU_ASSERT_EQUAL(sst_dgram_rx_frags(rx), 0);
	CU_ASSERT_EQUAL(sst_dgram_rx_partials(rx), 0);
	CU_ASSERT_EQUAL(rx->stats.resets, 3 + left);
	no_leak();
	teardown();
}

/* 200 KB in 1200-byte fragments of 3 segments, shuffled; then datagrams
 * right at the mbuf segment limit and one past it. */
static void
test_large(void)
{
	enum { LEN = 200000, FL = 1200, NF = (LEN + FL - 1) / FL, NCL = 32768 };
	unsigned int order[NF];
	struct rte_mbuf *one[4];
	int rc = 0;

	setup_conf(4096, 1 << 22, 4096, 1 << 22, 100 * MS);
	for (unsigned int i = 0; i < NF; i++)
		order[i] = i;
	for (unsigned int i = NF; i > 1; i--) {
		unsigned int j = (unsigned int)(rnd() % i), t = order[i - 1];

		order[i - 1] = order[j];
		order[j] = t;
	}
	for (unsigned int k = 0; k < NF; k++) {
		unsigned int i = order[k];
		uint32_t len = i + 1 == NF ? LEN - i * FL : FL;

		rc = sst_dgram_rx_insert(rx, 9, (1ull << 33) + i,
			(i == 0 ? B : 0) | (i + 1 == NF ? E : 0), chunk((uint64_t)i * FL, len, 3),
			k, &out);
		CU_ASSERT_EQUAL(rc, k + 1 == NF ? SST_DGRAM_COMPLETE : SST_DGRAM_BUFFERED);
	}
	CU_ASSERT_EQUAL(out.frags, NF);
	CU_ASSERT_EQUAL(out.m->nb_segs, 3 * NF);
	check_dgram(&out, 0, LEN);
	teardown();

	/* 65535 segments: 32767 fragments of 2 one-byte clones and one of 1
	 * (pass 0); the same with 2 in the last fragment is one too many. */
	setup_conf(40000, 1 << 20, 40000, 1 << 20, 100 * MS);
	for (unsigned int i = 0; i < 4; i++)
		one[i] = chunk(i, 1, 1);
	for (unsigned int pass = 0; pass < 2; pass++) {
		for (unsigned int i = 0; i < NCL; i++) {
			struct rte_mbuf *m = rte_pktmbuf_clone(one[i % 4], clones), *m2 = NULL;
			bool last = i + 1 == NCL;

			if (!last || pass == 1)
				m2 = rte_pktmbuf_clone(one[(i + 1) % 4], clones);
			CU_ASSERT_FATAL(m != NULL && (m2 == NULL || rte_pktmbuf_chain(m, m2) == 0));
			rc = sst_dgram_rx_insert(rx, 1, 1000000ull * (pass + 1) + i,
				(i == 0 ? B : 0) | (last ? E : 0), m, 0, &out);
			if (!last && rc != SST_DGRAM_BUFFERED)
				break;
		}
		if (pass == 0) {
			CU_ASSERT_EQUAL_FATAL(rc, SST_DGRAM_COMPLETE);
			CU_ASSERT_EQUAL(out.m->nb_segs, RTE_MBUF_MAX_NB_SEGS);
			CU_ASSERT_EQUAL(out.len, RTE_MBUF_MAX_NB_SEGS);
			CU_ASSERT_EQUAL(out.frags, NCL);
			rte_pktmbuf_free(out.m);
		} else {
			EXPECT(rc, -EMSGSIZE, 0);
			CU_ASSERT_EQUAL(rx->stats.oversize, 1);
		}
	}
	for (unsigned int i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(one[i]), 1);
		rte_pktmbuf_free(one[i]);
	}
	teardown();
}

/* ---- 50k random operations against a model ---- */

enum {
	M_CAP = 48,
	M_BYTES = 20000,
	M_FRAGS = 8,
	M_DGRAM = 6000,
	M_SPAN = 1 << 18,
	NET = 24,
};

#define M_TIMEOUT (20 * MS)

/* The model: a plain array by seq, groups found by scanning. */
struct mfrag {
	bool present;
	uint16_t sid;
	uint8_t flags;
	uint16_t segs;
	uint32_t len;
	uint64_t tag; /* pattern offset of its first byte */
	uint64_t ord; /* arrival index */
	sst_time_t t; /* arrival time */
};

struct pkt {
	uint64_t seq, tag;
	uint32_t len, flags;
	uint16_t sid;
	uint8_t nseg;
};

struct mgroup {
	uint64_t h, t, bytes, ord; /* head, tail, bytes, first arrival */
	sst_time_t born;	   /* time of the first arrival */
	uint32_t frags;
};

static struct mfrag mf[M_SPAN];
static uint64_t m_list[M_CAP + 1];
static unsigned int m_n;
static uint64_t m_bytes;

/* Are the fragments at a and a + 1 one datagram's? */
static bool
m_links(uint64_t a)
{
	return mf[a].present && mf[a + 1].present && mf[a].sid == mf[a + 1].sid &&
	       !(mf[a].flags & E) && !(mf[a + 1].flags & B);
}

static struct mgroup
m_group(uint64_t s)
{
	struct mgroup g = {.ord = UINT64_MAX};

	while (s > 0 && m_links(s - 1))
		s--;
	g.h = s;
	for (;; s++) {
		if (mf[s].ord < g.ord) {
			g.ord = mf[s].ord;
			g.born = mf[s].t;
		}
		g.frags++;
		g.bytes += mf[s].len;
		if (!m_links(s))
			break;
	}
	g.t = s;
	return g;
}

static void
m_remove(uint64_t s)
{
	mf[s].present = false;
	m_bytes -= mf[s].len;
	for (unsigned int i = 0; i < m_n; i++)
		if (m_list[i] == s) {
			m_list[i] = m_list[--m_n];
			break;
		}
}

static void
m_drop_group(uint64_t s)
{
	struct mgroup g = m_group(s);

	for (s = g.h; s <= g.t; s++)
		m_remove(s);
}

/* The rules of sst_dgram_rx_insert(), naively. Fills *d on completion. */
static int
m_insert(const struct pkt *p, uint64_t ord, sst_time_t now, struct mgroup *d, uint32_t *evicted)
{
	uint64_t s = p->seq;
	struct mgroup lg = {0}, rg = {0};
	bool l, r, lok, rok, dead;

	*evicted = 0;
	if (p->flags & ~3u)
		return -EINVAL;
	if (p->len > M_DGRAM)
		return -EMSGSIZE;
	if (mf[s].present)
		return SST_DGRAM_DUPLICATE;
	l = mf[s - 1].present;
	r = mf[s + 1].present;
	lok = l && mf[s - 1].sid == p->sid && !(mf[s - 1].flags & E) && !(p->flags & B);
	rok = r && mf[s + 1].sid == p->sid && !(p->flags & E) && !(mf[s + 1].flags & B);
	dead = (l && !lok && !(p->flags & B)) || (r && !rok && !(p->flags & E));
	if (l && !lok && !(mf[s - 1].flags & E))
		m_drop_group(s - 1);
	if (r && !rok && !(mf[s + 1].flags & B))
		m_drop_group(s + 1);
	if (dead) {
		if (lok)
			m_drop_group(s - 1);
		if (rok)
			m_drop_group(s + 1);
		return -EPROTO;
	}
	if (p->flags == BE) {
		*d = (struct mgroup){.h = s, .t = s, .bytes = p->len, .frags = 1};
		return SST_DGRAM_COMPLETE;
	}
	if (lok)
		lg = m_group(s - 1);
	if (rok)
		rg = m_group(s + 1);
	if (1 + lg.frags + rg.frags > M_FRAGS || p->len + lg.bytes + rg.bytes > M_DGRAM) {
		if (lok)
			m_drop_group(s - 1);
		if (rok)
			m_drop_group(s + 1);
		return -EMSGSIZE;
	}
	while (m_n >= M_CAP || m_bytes + p->len > M_BYTES) {
		uint64_t best = UINT64_MAX, victim = 0;

		for (unsigned int i = 0; i < m_n; i++) {
			struct mgroup g = m_group(m_list[i]);

			if ((lok && g.h == lg.h) || (rok && g.h == rg.h))
				continue;
			if (g.ord < best) {
				best = g.ord;
				victim = m_list[i];
			}
		}
		CU_ASSERT_FATAL(best != UINT64_MAX);
		m_drop_group(victim);
		(*evicted)++;
	}
	mf[s] = (struct mfrag){true, p->sid, (uint8_t)p->flags, p->nseg, p->len, p->tag, ord, now};
	m_list[m_n++] = s;
	m_bytes += p->len;
	*d = m_group(s);
	if ((mf[d->h].flags & B) && (mf[d->t].flags & E))
		return SST_DGRAM_COMPLETE;
	return SST_DGRAM_BUFFERED;
}

/* Check the delivered datagram against the model's fragments (or the packet
 * itself for Begin|End) byte for byte, and take them out of the model. */
static void
m_check_out(const struct pkt *p, const struct mgroup *d, uint64_t base)
{
	static uint8_t buf[M_DGRAM];
	uint32_t off = 0;
	bool ok = true;

	CU_ASSERT(out.seq == base + d->h && out.frags == d->frags && out.sid == p->sid);
	CU_ASSERT(out.len == d->bytes && out.m->pkt_len == d->bytes);
	for (uint64_t s = d->h; s <= d->t; s++) {
		uint64_t tag = s == p->seq ? p->tag : mf[s].tag;
		uint32_t len = s == p->seq ? p->len : mf[s].len;
		const uint8_t *b = rte_pktmbuf_read(out.m, off, len, buf);

		CU_ASSERT_FATAL(b != NULL || len == 0);
		for (uint32_t j = 0; j < len; j++)
			ok &= b[j] == sst_test_pattern(tag + j);
		off += len;
		if (mf[s].present)
			m_remove(s);
	}
	CU_ASSERT(ok);
	rte_pktmbuf_free(out.m);
}

/* Drop every model group that has expired at t (by_sid false) or is of
 * SID t (by_sid true); count them. */
static uint32_t
m_drop_where(bool by_sid, uint64_t t)
{
	uint32_t n = 0;

	for (unsigned int i = 0; i < m_n;) {
		uint64_t s = m_list[i];

		if (by_sid ? mf[s].sid == t : m_group(s).born + M_TIMEOUT <= t) {
			m_drop_group(s);
			n++;
			i = 0;
		} else {
			i++;
		}
	}
	return n;
}

static void
test_random_model(void)
{
	const uint64_t base = 1ull << 40;
	struct pkt net[NET];
	unsigned int nnet = 0;
	uint64_t next_seq = 16, tag = 0, ord = 0, evicted = 0, timeouts = 0, completes = 0;
	uint64_t dups = 0, incons = 0, oversize = 0;
	sst_time_t now = 0;
	struct sst_dgram_rx_conf c = {M_CAP, M_BYTES, M_FRAGS, M_DGRAM, M_TIMEOUT, 42};

	memset(mf, 0, sizeof(mf));
	m_n = 0;
	m_bytes = 0;
	CU_ASSERT_FATAL(sst_dgram_rx_init(rx, &c) == 0);
	for (unsigned int op = 0; op < 50000; op++) {
		unsigned int what = (unsigned int)(rnd() % 100);

		if (next_seq + 64 >= M_SPAN)
			break;
		now += rnd() % (MS / 2);
		if (what < 3) {
			uint32_t n = sst_dgram_rx_expire(rx, now), mn = m_drop_where(false, now);

			CU_ASSERT(sst_dgram_rx_next_expiry(rx) > now);
			CU_ASSERT_EQUAL(n, mn);
			timeouts += mn;
		} else if (what < 4) {
			uint16_t sid = (uint16_t)(rnd() % 6);
			uint32_t n = sst_dgram_rx_reset_sid(rx, sid);

			CU_ASSERT_EQUAL(n, m_drop_where(true, sid));
		} else if (nnet < NET && what < 50) {
			/* The sender: a datagram of 1-7 fragments on consecutive
			 * seqs; sometimes junk near the recent seqs. */
			if (rnd() % 16 == 0) {
				net[nnet++] = (struct pkt){next_seq - 1 - rnd() % 12, tag,
					(uint32_t)(rnd() % 1300), (uint32_t)(rnd() % 5),
					(uint16_t)(rnd() % 6), (uint8_t)(1 + rnd() % 3)};
				tag += 1 << 16;
				continue;
			}
			unsigned int n = 1 + (unsigned int)(rnd() % 7);
			uint16_t sid = (uint16_t)(rnd() % 6);

			for (unsigned int i = 0; i < n && nnet < NET; i++) {
				net[nnet++] = (struct pkt){next_seq + i, tag,
					(uint32_t)(rnd() % (rnd() % 8 == 0 ? 7000 : 600)),
					(i == 0 ? B : 0) | (i + 1 == n ? E : 0), sid,
					(uint8_t)(1 + rnd() % 3)};
				tag += 1 << 16;
			}
			next_seq += n;
		} else if (nnet > 0) {
			/* The network: a random pending packet arrives (reorder);
			 * it may also stay pending (duplicate) or vanish (loss). */
			unsigned int i = (unsigned int)(rnd() % nnet);
			unsigned int r = (unsigned int)(rnd() % 100);
			struct pkt p = net[i];
			struct mgroup d = {0};
			uint32_t ev = 0;
			int rc, want;

			if (r >= 5)
				net[i] = net[--nnet];
			if (r >= 3 && r < 8)
				continue; /* delayed (3, 4) or lost (5-7) */
			want = m_insert(&p, ord++, now, &d, &ev);
			rc = sst_dgram_rx_insert(rx, p.sid, base + p.seq, p.flags,
				chunk(p.tag, p.len, p.nseg), now, &out);
			CU_ASSERT_EQUAL_FATAL(rc, want);
			evicted += ev;
			dups += rc == SST_DGRAM_DUPLICATE;
			incons += rc == -EPROTO;
			oversize += rc == -EMSGSIZE;
			if (rc == SST_DGRAM_COMPLETE) {
				m_check_out(&p, &d, base);
				completes++;
			}
		}
		CU_ASSERT_EQUAL(sst_dgram_rx_frags(rx), m_n);
		CU_ASSERT_EQUAL(sst_dgram_rx_bytes(rx), m_bytes);
		CU_ASSERT(sst_dgram_rx_frags(rx) <= M_CAP && sst_dgram_rx_bytes(rx) <= M_BYTES);
		CU_ASSERT_EQUAL(rx->stats.evicted, evicted);
		CU_ASSERT_EQUAL(rx->stats.timeouts, timeouts);
	}
	CU_ASSERT_EQUAL(rx->stats.datagrams, completes);
	CU_ASSERT_EQUAL(rx->stats.duplicates, dups);
	CU_ASSERT_EQUAL(rx->stats.oversize, oversize);
	CU_ASSERT(rx->stats.inconsistent >= incons);
	/* Every path was taken. */
	CU_ASSERT(completes > 3000 && rx->stats.single > 500 && evicted > 50 && timeouts > 50);
	CU_ASSERT(dups > 100 && incons > 50 && oversize > 50 && rx->stats.resets > 10);
	teardown();
}

static void
test_eal(void)
{
	if (sst_test_eal_init("test_stream_dgram") < 0)
		exit(1);
	pool = sst_test_pool("dgram_data", POOL_N, ROOM);
	clones = sst_test_pool("dgram_clones", CLONES_N, 0);
	if (pool == NULL || clones == NULL)
		exit(1);
	pool_avail = rte_mempool_avail_count(pool);
	clones_avail = rte_mempool_avail_count(clones);
	CU_ASSERT_EQUAL(pool_avail, POOL_N);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_eal),
	SST_TEST(test_size_init),
	SST_TEST(test_single),
	SST_TEST(test_in_order),
	SST_TEST(test_permutations),
	SST_TEST(test_interleaved),
	SST_TEST(test_duplicates),
	SST_TEST(test_loss_timeout),
	SST_TEST(test_bounds),
	SST_TEST(test_inconsistent),
	SST_TEST(test_reset_sid),
	SST_TEST(test_large),
	SST_TEST(test_random_model),
	SST_TEST_END,
};

SST_TEST_MAIN("stream_dgram", cases)
