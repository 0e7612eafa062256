/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the receive reassembly buffer (lib/stream/stream_rob.c): in-order,
 * reversed and permuted arrival; overlaps of every kind (left, right,
 * inside, covering one or several islands, exact duplicates); the window,
 * the capacity, the final-offset rules, message boundaries, reset; offsets
 * beyond 2^32; and 100k random operations on mbuf chains checked byte for
 * byte against a reference model. Every test ends with every mbuf back in
 * its pool.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "sst_test.h"
#include "sst_test_eal.h"
#include "sst_test_mbuf.h"
#include "stream_rob.h"

enum {
	POOL_N = 16384,
	ROOM = 512,
	CAP_MAX = 4096,
};

static struct rte_mempool *pool, *clones;
static unsigned int pool_avail, clones_avail;
static _Alignas(64) uint8_t rob_mem[1 << 20];
static struct sst_rob *const rob = (struct sst_rob *)rob_mem;

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t
rnd(void)
{
	return sst_test_xorshift(&rng_state);
}

/* A chain of nseg mbufs holding the sender's bytes [off, off + len). */
static struct rte_mbuf *
seg(uint64_t off, uint32_t len, unsigned int nseg)
{
	struct rte_mbuf *m;

	/* Enough segments for the data room, with slack for the remainder. */
	nseg = RTE_MAX(nseg, (len + ROOM - 17) / (ROOM - 16));
	m = sst_test_pattern_chain(pool, ROOM, off, len, nseg);
	CU_ASSERT_FATAL(m != NULL);
	return m;
}

static void
setup(uint32_t cap, uint32_t window, uint64_t start)
{
	CU_ASSERT_FATAL(sst_rob_size(cap) <= sizeof(rob_mem));
	CU_ASSERT_FATAL(sst_rob_init(rob, cap, window, clones, start) == 0);
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
	sst_rob_fini(rob);
	no_leak();
}

/* Check one delivered chain byte for byte and free it. */
static void
check_rx(const struct sst_rob_rx *rx, uint64_t *next)
{
	const struct rte_mbuf *s;
	uint64_t o = rx->off;
	uint32_t total = 0;
	uint16_t nseg = 0;
	bool ok = true;

	CU_ASSERT_EQUAL(rx->off, *next);
	CU_ASSERT(rx->m->pkt_len > 0);
	for (s = rx->m; s != NULL; s = s->next, nseg++) {
		const uint8_t *p = rte_pktmbuf_mtod(s, const uint8_t *);

		for (uint16_t k = 0; k < s->data_len; k++)
			ok &= p[k] == sst_test_pattern(o++);
		total += s->data_len;
	}
	CU_ASSERT(ok);
	CU_ASSERT_EQUAL(total, rx->m->pkt_len);
	CU_ASSERT_EQUAL(nseg, rx->m->nb_segs);
	*next = rx->off + rx->m->pkt_len;
	rte_pktmbuf_free(rx->m);
}

/* Read everything ready; returns the records' flags OR-ed, checks bytes. */
static uint32_t
read_all(uint64_t *next, uint32_t *nrec)
{
	struct sst_rob_rx rx[8];
	uint32_t flags = 0;
	uint16_t n;

	while ((n = sst_rob_read(rob, rx, 8)) > 0) {
		for (uint16_t i = 0; i < n; i++) {
			check_rx(&rx[i], next);
			flags |= rx[i].flags;
		}
		if (nrec != NULL)
			*nrec += n;
	}
	CU_ASSERT_EQUAL(sst_rob_read_offset(rob), *next);
	CU_ASSERT_EQUAL(sst_rob_readable(rob), 0);
	return flags;
}

static int
ins(uint64_t off, uint32_t len, uint32_t flags)
{
	return sst_rob_insert(
		rob, off, len ? seg(off, len, 1 + (uint32_t)(rnd() % 3)) : NULL, flags);
}

/* ---- tests ---- */

static void
test_size_init(void)
{
	CU_ASSERT_EQUAL(sst_rob_size(0), 0);
	CU_ASSERT_EQUAL(sst_rob_size(SST_ROB_CAP_MAX + 1), 0);
	CU_ASSERT(sst_rob_size(1) > sizeof(struct sst_rob));
	CU_ASSERT_EQUAL(sst_rob_init(rob, 0, 100, clones, 0), -EINVAL);
	CU_ASSERT_EQUAL(sst_rob_init(rob, 8, 100, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(sst_rob_init(NULL, 8, 100, clones, 0), -EINVAL);
	setup(8, 100, 0);
	CU_ASSERT_EQUAL(sst_rob_insert(rob, 0, seg(0, 10, 1), 0x8), -EINVAL);
	CU_ASSERT_EQUAL(sst_rob_buffered(rob), 0);
	teardown();
}

static void
test_in_order(void)
{
	uint64_t next = 0;

	setup(256, 1 << 20, 0);
	for (unsigned int i = 0; i < 200; i++) {
		CU_ASSERT_EQUAL(ins(i * 100, 100, 0), SST_ROB_ACCEPTED);
		CU_ASSERT_EQUAL(sst_rob_readable(rob), (i + 1) * 100 - next);
		if (i % 50 == 49)
			read_all(&next, NULL);
	}
	read_all(&next, NULL);
	CU_ASSERT_EQUAL(next, 20000);
	CU_ASSERT_EQUAL(rob->stats.clones, 0);
	CU_ASSERT_EQUAL(sst_rob_buffered(rob), 0);
	teardown();
}

static void
test_reversed(void)
{
	uint64_t next = 0;
	uint32_t nrec = 0;

	setup(64, 1 << 20, 0);
	for (unsigned int i = 50; i-- > 1;) {
		CU_ASSERT_EQUAL(ins(i * 77, 77, 0), SST_ROB_ACCEPTED);
		CU_ASSERT_EQUAL(sst_rob_readable(rob), 0);
		/* Adjacent arrivals merge: one island throughout. */
		CU_ASSERT_EQUAL(rob->islands, 1);
	}
	CU_ASSERT_EQUAL(sst_rob_buffered(rob), 49 * 77);
	CU_ASSERT_EQUAL(ins(0, 77, 0), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(sst_rob_readable(rob), 50 * 77);
	CU_ASSERT_EQUAL(rob->islands, 0);
	read_all(&next, &nrec);
	CU_ASSERT_EQUAL(next, 50 * 77);
	CU_ASSERT_EQUAL(nrec, 50);
	CU_ASSERT_EQUAL(rob->stats.clones, 0);
	teardown();
}

static void
test_permutations(void)
{
	uint64_t offs[65];
	unsigned int order[64];

	for (unsigned int round = 0; round < 300; round++) {
		uint64_t next = 1000;

		setup(64, 1 << 20, 1000);
		offs[0] = 1000;
		for (unsigned int i = 0; i < 64; i++) {
			offs[i + 1] = offs[i] + 1 + rnd() % 300;
			order[i] = i;
		}
		for (unsigned int i = 63; i > 0; i--) {
			unsigned int j = (unsigned int)(rnd() % (i + 1)), t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		for (unsigned int i = 0; i < 64; i++) {
			unsigned int k = order[i];

			CU_ASSERT_EQUAL(ins(offs[k], (uint32_t)(offs[k + 1] - offs[k]), 0),
				SST_ROB_ACCEPTED);
			if (rnd() % 4 == 0)
				read_all(&next, NULL);
		}
		read_all(&next, NULL);
		CU_ASSERT_EQUAL(next, offs[64]);
		CU_ASSERT_EQUAL(rob->islands, 0);
		teardown();
	}
}

/* One overlap case: islands [100,200) and [300,400) buffered, a hole at
 * [0,100); insert [a,b); expect rc, then fill everything and read. */
static void
overlap_case(uint64_t a, uint64_t b, int want, uint32_t want_islands)
{
	uint64_t next = 0;

	setup(16, 10000, 0);
	CU_ASSERT_EQUAL(ins(100, 100, 0), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(ins(300, 100, 0), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(ins(a, (uint32_t)(b - a), 0), want);
	CU_ASSERT_EQUAL(rob->islands, want_islands);
	CU_ASSERT_EQUAL(ins(0, 500, 0), SST_ROB_ACCEPTED);
	read_all(&next, NULL);
	CU_ASSERT_EQUAL(next, 500);
	teardown();
}

static void
test_overlaps(void)
{
	overlap_case(50, 150, SST_ROB_ACCEPTED, 2);   /* left */
	overlap_case(150, 250, SST_ROB_ACCEPTED, 2);  /* right */
	overlap_case(120, 180, SST_ROB_DUPLICATE, 2); /* inside */
	overlap_case(100, 200, SST_ROB_DUPLICATE, 2); /* exact */
	overlap_case(50, 250, SST_ROB_ACCEPTED, 2);   /* covering */
	overlap_case(150, 350, SST_ROB_ACCEPTED, 1);  /* bridging two */
	overlap_case(50, 450, SST_ROB_ACCEPTED, 1);   /* covering two */
	overlap_case(200, 300, SST_ROB_ACCEPTED, 1);  /* exactly the hole */
	overlap_case(199, 301, SST_ROB_ACCEPTED, 1);  /* one byte each side */
	overlap_case(400, 401, SST_ROB_ACCEPTED, 2);  /* adjacent right */
	overlap_case(99, 100, SST_ROB_ACCEPTED, 2);   /* adjacent left */
	overlap_case(0, 120, SST_ROB_ACCEPTED, 1);    /* reaches the read point */
	overlap_case(0, 1, SST_ROB_ACCEPTED, 2);      /* in order, nothing else */

	/* Covering several islands needs clones: one per extra hole. */
	setup(16, 10000, 0);
	for (unsigned int i = 1; i < 6; i++)
		CU_ASSERT_EQUAL(ins(i * 100, 50, 0), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(sst_rob_insert(rob, 20, seg(20, 700, 3), 0), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(rob->stats.clones, 5);
	CU_ASSERT_EQUAL(rob->islands, 1);
	CU_ASSERT_EQUAL(sst_rob_buffered(rob), 700);
	CU_ASSERT_EQUAL(rob->stats.bytes_dup, 250);
	/* Below the read point, partly: cut. */
	CU_ASSERT_EQUAL(ins(0, 30, 0), SST_ROB_ACCEPTED);
	{
		uint64_t next = 0;

		read_all(&next, NULL);
		CU_ASSERT_EQUAL(next, 720);
		CU_ASSERT_EQUAL(ins(700, 30, 0), SST_ROB_ACCEPTED);
		CU_ASSERT_EQUAL(ins(0, 730, 0), SST_ROB_DUPLICATE);
		read_all(&next, NULL);
		CU_ASSERT_EQUAL(next, 730);
	}
	teardown();
}

static void
test_window(void)
{
	uint64_t next = 0;

	setup(64, 1000, 0);
	CU_ASSERT_EQUAL(ins(0, 600, 0), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(ins(600, 400, 0), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(sst_rob_window_free(rob), 0);
	CU_ASSERT_EQUAL(ins(1000, 1, 0), -EOVERFLOW);
	CU_ASSERT_EQUAL(ins(1500, 10, 0), -EOVERFLOW);
	CU_ASSERT_EQUAL(rob->stats.drop_window, 2);
	CU_ASSERT_EQUAL(sst_rob_buffered(rob), 1000);
	/* A duplicate is a duplicate even with the window full. */
	CU_ASSERT_EQUAL(ins(0, 1000, 0), SST_ROB_DUPLICATE);
	read_all(&next, NULL);
	CU_ASSERT_EQUAL(sst_rob_window_free(rob), 1000);
	/* Out of order: the horizon is read offset + window. */
	CU_ASSERT_EQUAL(ins(1900, 101, 0), -EOVERFLOW);
	CU_ASSERT_EQUAL(ins(1900, 100, 0), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(sst_rob_window_free(rob), 900);
	/* A segment only partly beyond is dropped whole. */
	CU_ASSERT_EQUAL(ins(1000, 1001, 0), -EOVERFLOW);
	CU_ASSERT_EQUAL(sst_rob_buffered(rob), 100);
	CU_ASSERT_EQUAL(rob->stats.drop_window, 4);
	sst_rob_set_window(rob, 2000);
	CU_ASSERT_EQUAL(ins(1000, 2000, 0), SST_ROB_ACCEPTED);
	read_all(&next, NULL);
	CU_ASSERT_EQUAL(next, 3000);
	teardown();
}

static void
test_capacity(void)
{
	uint64_t next = 0;

	/* Out of order, three of four pieces: the last is kept for the bytes
	 * at the read point, which nothing else can make readable. */
	setup(4, 100000, 0);
	for (unsigned int i = 1; i <= 3; i++)
		CU_ASSERT_EQUAL(ins(i * 10, 1, 0), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(ins(40, 1, 0), -ENOSPC);
	CU_ASSERT_EQUAL(ins(50, 1, 0), -ENOSPC);
	CU_ASSERT_EQUAL(ins(5, 40, 0), -ENOSPC);
	CU_ASSERT_EQUAL(rob->stats.drop_capacity, 3);
	/* Duplicates need no room. */
	CU_ASSERT_EQUAL(ins(10, 1, 0), SST_ROB_DUPLICATE);
	CU_ASSERT_EQUAL(sst_rob_buffered(rob), 3);
	CU_ASSERT_EQUAL(rob->pieces_used, 3);
	CU_ASSERT_EQUAL(ins(0, 5, 0), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(sst_rob_buffered(rob), 8);
	CU_ASSERT_EQUAL(rob->pieces_used, 4);
	CU_ASSERT_EQUAL(ins(5, 1, 0), -ENOSPC);
	{
		/* Nothing leaked by the failures: only the buffered chains are out. */
		unsigned int held = 0;

		for (unsigned int i = 0; i < rob->fresh_pieces; i++)
			if (rob->piece_mem[i].m != NULL)
				held += rob->piece_mem[i].m->nb_segs;
		CU_ASSERT_EQUAL(rte_mempool_avail_count(pool) + held, pool_avail);
		CU_ASSERT_EQUAL(rte_mempool_avail_count(clones), clones_avail);
	}
	sst_rob_reset(rob, 0);
	CU_ASSERT_EQUAL(sst_rob_buffered(rob), 0);
	no_leak();

	/* A segment that fills some holes before running out keeps them. */
	setup(4, 100000, 0);
	CU_ASSERT_EQUAL(ins(10, 10, 0), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(ins(30, 10, 0), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(ins(15, 20, 0), SST_ROB_ACCEPTED); /* one hole: [20,30) */
	CU_ASSERT_EQUAL(rob->islands, 1);
	CU_ASSERT_EQUAL(ins(50, 10, 0), -ENOSPC);
	sst_rob_reset(rob, 0);
	setup(3, 100000, 0);
	CU_ASSERT_EQUAL(ins(10, 10, 0), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(ins(5, 30, 0), -ENOSPC); /* [5,10) fits, [20,35) does not */
	CU_ASSERT_EQUAL(sst_rob_buffered(rob), 15);
	CU_ASSERT_EQUAL(rob->islands, 1);
	sst_rob_reset(rob, 0);
	no_leak();

	/* Reading gives the room back. */
	setup(2, 100000, 0);
	CU_ASSERT_EQUAL(ins(0, 10, 0), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(ins(10, 10, 0), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(ins(20, 10, 0), -ENOSPC);
	read_all(&next, NULL);
	CU_ASSERT_EQUAL(ins(20, 10, 0), SST_ROB_ACCEPTED);
	read_all(&next, NULL);
	CU_ASSERT_EQUAL(next, 30);
	teardown();
}

static void
test_final(void)
{
	uint64_t next = 0, fin = 0;
	uint32_t flags;

	setup(16, 10000, 0);
	CU_ASSERT_FALSE(sst_rob_final(rob, &fin));
	CU_ASSERT_EQUAL(ins(50, 50, SST_FLAG_CLOSE), SST_ROB_ACCEPTED);
	CU_ASSERT(sst_rob_final(rob, &fin));
	CU_ASSERT_EQUAL(fin, 100);
	CU_ASSERT_EQUAL(ins(90, 20, 0), -EPROTO);			 /* beyond the end */
	CU_ASSERT_EQUAL(ins(100, 0, SST_FLAG_CLOSE), SST_ROB_DUPLICATE); /* same end */
	CU_ASSERT_EQUAL(ins(0, 120, SST_FLAG_CLOSE), -EPROTO);		 /* another end */
	CU_ASSERT_EQUAL(ins(0, 60, SST_FLAG_CLOSE), -EPROTO);
	CU_ASSERT_EQUAL(rob->stats.proto_errors, 3);
	CU_ASSERT_FALSE(sst_rob_eof(rob));
	CU_ASSERT_EQUAL(ins(0, 50, 0), SST_ROB_ACCEPTED);
	flags = read_all(&next, NULL);
	CU_ASSERT(flags & SST_FLAG_CLOSE);
	CU_ASSERT(sst_rob_eof(rob));
	CU_ASSERT_EQUAL(ins(0, 100, SST_FLAG_CLOSE), SST_ROB_DUPLICATE);
	teardown();

	/* Close below bytes already received. */
	setup(16, 10000, 0);
	CU_ASSERT_EQUAL(ins(50, 50, 0), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(ins(0, 60, SST_FLAG_CLOSE), -EPROTO);
	CU_ASSERT_EQUAL(ins(100, 0, SST_FLAG_CLOSE), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(ins(0, 50, 0), SST_ROB_ACCEPTED);
	next = 0;
	flags = read_all(&next, NULL);
	CU_ASSERT(flags & SST_FLAG_CLOSE);
	CU_ASSERT(sst_rob_eof(rob));
	teardown();

	/* An empty stream; and a Close on a duplicate segment. */
	setup(16, 10000, 7);
	CU_ASSERT_EQUAL(sst_rob_insert(rob, 7, NULL, SST_FLAG_CLOSE), SST_ROB_ACCEPTED);
	CU_ASSERT(sst_rob_eof(rob));
	CU_ASSERT_EQUAL(ins(7, 1, 0), -EPROTO);
	sst_rob_reset(rob, 0);
	CU_ASSERT_FALSE(sst_rob_final(rob, &fin));
	CU_ASSERT_EQUAL(ins(0, 10, 0), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(ins(0, 10, SST_FLAG_CLOSE), SST_ROB_ACCEPTED);
	CU_ASSERT(sst_rob_final(rob, &fin));
	CU_ASSERT_EQUAL(fin, 10);
	/* A Close beyond the window is dropped like the rest of the segment. */
	sst_rob_reset(rob, 0);
	CU_ASSERT_EQUAL(ins(9000, 2000, SST_FLAG_CLOSE), -EOVERFLOW);
	CU_ASSERT_FALSE(sst_rob_final(rob, &fin));
	teardown();
}

static void
test_messages(void)
{
	struct sst_rob_rx rx[16];
	uint64_t next = 0;
	uint16_t n;

	setup(16, 10000, 0);
	CU_ASSERT_EQUAL(ins(20, 10, SST_FLAG_MESSAGE), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(ins(10, 10, SST_FLAG_PUSH), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(ins(30, 10, 0), SST_ROB_ACCEPTED);
	/* An empty segment marks the piece ending where it starts. */
	CU_ASSERT_EQUAL(ins(40, 0, SST_FLAG_MESSAGE), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(ins(40, 0, SST_FLAG_MESSAGE), SST_ROB_DUPLICATE);
	CU_ASSERT_EQUAL(ins(0, 10, SST_FLAG_MESSAGE), SST_ROB_ACCEPTED);
	/* A resend whose end is already buffered adds no mark. */
	CU_ASSERT_EQUAL(ins(0, 25, SST_FLAG_MESSAGE), SST_ROB_DUPLICATE);
	n = sst_rob_read(rob, rx, 16);
	CU_ASSERT_EQUAL_FATAL(n, 4);
	CU_ASSERT_EQUAL(rx[0].flags, SST_FLAG_MESSAGE);
	CU_ASSERT_EQUAL(rx[1].flags, SST_FLAG_PUSH);
	CU_ASSERT_EQUAL(rx[2].flags, SST_FLAG_MESSAGE);
	CU_ASSERT_EQUAL(rx[3].flags, SST_FLAG_MESSAGE);
	for (uint16_t i = 0; i < n; i++)
		check_rx(&rx[i], &next);
	/* The mark of bytes already read is lost, quietly. */
	CU_ASSERT_EQUAL(ins(40, 0, SST_FLAG_MESSAGE), SST_ROB_DUPLICATE);
	/* Message end and Close on the same byte. */
	CU_ASSERT_EQUAL(ins(40, 5, SST_FLAG_MESSAGE | SST_FLAG_CLOSE), SST_ROB_ACCEPTED);
	n = sst_rob_read(rob, rx, 16);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(rx[0].flags, SST_FLAG_MESSAGE | SST_FLAG_CLOSE);
	check_rx(&rx[0], &next);
	CU_ASSERT(sst_rob_eof(rob));
	/* Reading stops at max. */
	sst_rob_reset(rob, 0);
	for (unsigned int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(ins(i, 1, 0), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(sst_rob_read(rob, rx, 2), 2);
	rte_pktmbuf_free(rx[0].m);
	rte_pktmbuf_free(rx[1].m);
	CU_ASSERT_EQUAL(sst_rob_read_offset(rob), 2);
	CU_ASSERT_EQUAL(sst_rob_readable(rob), 3);
	teardown();
}

static void
test_reset(void)
{
	uint64_t next = 1ull << 40;

	setup(256, 1 << 20, 0);
	for (unsigned int i = 0; i < 100; i++)
		ins(rnd() % 100000, 1 + (uint32_t)(rnd() % 400), (uint32_t)(rnd() % 4) << 1);
	CU_ASSERT(sst_rob_buffered(rob) > 0);
	CU_ASSERT(rob->stats.clones > 0);
	sst_rob_reset(rob, next);
	no_leak();
	CU_ASSERT_EQUAL(sst_rob_buffered(rob), 0);
	CU_ASSERT_EQUAL(sst_rob_read_offset(rob), next);
	CU_ASSERT_EQUAL(rob->islands, 0);
	CU_ASSERT_EQUAL(ins(next, 10, 0), SST_ROB_ACCEPTED);
	read_all(&next, NULL);
	teardown();
}

/* Offsets past 2^32 (the caller extrapolated them), across the boundary. */
static void
test_high_offsets(void)
{
	uint64_t base = (1ull << 32) - 150, next = base;

	setup(64, 1 << 20, base);
	CU_ASSERT_EQUAL(ins(base + 200, 100, 0), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(ins(base + 100, 100, 0), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(ins(base + 50, 300, 0), SST_ROB_ACCEPTED);
	CU_ASSERT_EQUAL(ins(base, 60, 0), SST_ROB_ACCEPTED);
	read_all(&next, NULL);
	CU_ASSERT_EQUAL(next, base + 350);
	CU_ASSERT_EQUAL(ins(base, 100, 0), SST_ROB_DUPLICATE);
	CU_ASSERT_EQUAL(ins((1ull << 33) + 5, 1, 0), -EOVERFLOW);
	teardown();
}

/* ---- 100k random operations against a model ---- */

enum {
	MODEL_LEN = 1 << 24,
	MODEL_WIN = 4096,
};

static uint8_t model_rcv[MODEL_LEN];

static bool
is_boundary(uint64_t o)
{
	return (o * 2654435761u >> 7) % 5 == 0;
}

static void
test_random_model(void)
{
	const uint64_t base = (1ull << 32) - 100000;
	uint64_t read_off = base, ready_end = base, next = base;
	uint64_t held = 0, accepted = 0, dups = 0, overruns = 0;

	memset(model_rcv, 0, sizeof(model_rcv));
	/* Capacity = window: a piece holds at least a byte, so never -ENOSPC. */
	setup(MODEL_WIN, MODEL_WIN, base);
	for (unsigned int op = 0; op < 100000; op++) {
		uint64_t off = read_off + rnd() % (MODEL_WIN + 400) - 300;
		uint32_t len = 1 + (uint32_t)(rnd() % (rnd() % 4 == 0 ? 1500 : 200));
		uint64_t end;
		uint32_t flags;
		bool fresh = false;
		int want, rc;

		if (off < base)
			off = base;
		end = off + len;
		flags = is_boundary(end) ? SST_FLAG_MESSAGE : 0;
		for (uint64_t o = RTE_MAX(off, ready_end); o < end && !fresh; o++)
			fresh = !model_rcv[o - base];
		if (!fresh)
			want = SST_ROB_DUPLICATE;
		else if (end - read_off > MODEL_WIN)
			want = -EOVERFLOW;
		else
			want = SST_ROB_ACCEPTED;
		rc = sst_rob_insert(rob, off, seg(off, len, 1 + (uint32_t)(rnd() % 3)), flags);
		CU_ASSERT_EQUAL(rc, want);
		if (rc != want) {
			fprintf(stderr, "op %u: [%llu,+%u) rc %d want %d\n", op,
				(unsigned long long)(off - base), len, rc, want);
			break;
		}
		if (want == SST_ROB_ACCEPTED) {
			for (uint64_t o = RTE_MAX(off, read_off); o < end; o++) {
				held += !model_rcv[o - base];
				model_rcv[o - base] = 1;
			}
			while (model_rcv[ready_end - base])
				ready_end++;
			accepted++;
		} else {
			dups += want == SST_ROB_DUPLICATE;
			overruns += want == -EOVERFLOW;
		}
		CU_ASSERT_FATAL(ready_end - base < MODEL_LEN - 8192);
		CU_ASSERT_EQUAL(sst_rob_buffered(rob), held);
		CU_ASSERT_EQUAL(sst_rob_readable(rob), ready_end - read_off);
		CU_ASSERT(sst_rob_buffered(rob) <= MODEL_WIN);
		CU_ASSERT(rob->pieces_used <= MODEL_WIN && rob->islands <= rob->pieces_used);
		if (rnd() % 3 == 0) {
			struct sst_rob_rx rx[4];
			uint16_t n = sst_rob_read(rob, rx, (uint16_t)(1 + rnd() % 4));

			for (uint16_t i = 0; i < n; i++) {
				if (rx[i].flags & SST_FLAG_MESSAGE)
					CU_ASSERT(is_boundary(rx[i].off + rx[i].m->pkt_len));
				held -= rx[i].m->pkt_len;
				check_rx(&rx[i], &next);
			}
			read_off = next;
			CU_ASSERT_EQUAL(sst_rob_read_offset(rob), read_off);
		}
	}
	CU_ASSERT(read_off > (1ull << 32)); /* the run crossed 2^32 */
	CU_ASSERT(accepted > 10000 && dups > 1000 && overruns > 1000);
	CU_ASSERT_EQUAL(rob->stats.drop_window, overruns);
	teardown();
}

static void
suite_init(void)
{
	if (sst_test_eal_init("test_stream_rob") < 0)
		exit(1);
	pool = sst_test_pool("rob_data", POOL_N, ROOM);
	clones = sst_test_pool("rob_clones", POOL_N, 0);
	if (pool == NULL || clones == NULL)
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
	SST_TEST(test_in_order),
	SST_TEST(test_reversed),
	SST_TEST(test_permutations),
	SST_TEST(test_overlaps),
	SST_TEST(test_window),
	SST_TEST(test_capacity),
	SST_TEST(test_final),
	SST_TEST(test_messages),
	SST_TEST(test_reset),
	SST_TEST(test_high_offsets),
	SST_TEST(test_random_model),
	SST_TEST_END,
};

SST_TEST_MAIN("stream_rob", cases)
