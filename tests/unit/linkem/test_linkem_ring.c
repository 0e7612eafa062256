/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-linkem's view of the af_packet receive ring (apps/sst-linkem/
 * linkem_ring.c): the frames the kernel handed over are found in ring
 * order with their stamps and lengths, across the ring's end; the view
 * follows the reader; a stamp becomes an arrival on the bridge's clock,
 * never ahead of it nor out of order. And why it exists: a steady stream
 * at the link's rate, read at once after the bridge was off the CPU,
 * overflows the bottleneck queue when it enters the model at the read,
 * and does not at its stamps. A ring in memory and virtual times: nothing
 * here depends on the machine's timing.
 */
#include <string.h>

#include <linux/if_packet.h>

#include <rte_mbuf.h>

#include "../../../apps/sst-linkem/linkem_ring.h"
#include "sst_simlink.h"
#include "sst_test.h"
#include "sst_test_eal.h"

enum { FRAMES = 8, FRAME_SIZE = 2048 };

static struct rte_mempool *pool;
static uint8_t ring_mem[FRAMES * FRAME_SIZE] __attribute__((aligned(4096)));

static struct tpacket2_hdr *
frame(unsigned int i)
{
	return (struct tpacket2_hdr *)(ring_mem + (size_t)i * FRAME_SIZE);
}

/* The kernel hands frame i over, stamped sec.nsec, len bytes long. */
static void
hand_over(unsigned int i, uint32_t sec, uint32_t nsec, uint32_t len)
{
	struct tpacket2_hdr *h = frame(i);

	h->tp_sec = sec;
	h->tp_nsec = nsec;
	h->tp_snaplen = len;
	h->tp_len = len;
	h->tp_status = TP_STATUS_USER | TP_STATUS_TS_SOFTWARE;
}

/* The reader gives frame i back to the kernel. */
static void
give_back(unsigned int i)
{
	frame(i)->tp_status = TP_STATUS_KERNEL;
}

/* An empty ring (every frame the kernel's) and a view of it. */
static void
fresh_ring(struct linkem_ring *r)
{
	memset(ring_mem, 0, sizeof(ring_mem));
	linkem_ring_init(r, ring_mem, FRAMES, FRAME_SIZE);
}

static void
test_peek_in_ring_order(void)
{
	struct linkem_ring r;
	uint64_t ts[FRAMES];
	uint32_t len[FRAMES];

	fresh_ring(&r);
	CU_ASSERT_EQUAL(linkem_ring_peek(&r, ts, len, FRAMES), 0);
	hand_over(0, 7, 100, 60);
	hand_over(1, 7, 250, 1514);
	hand_over(2, 8, 5, 98);
	/* Frame 4 is the kernel's next but one: not waiting while 3 is not. */
	hand_over(4, 9, 0, 60);
	CU_ASSERT_EQUAL(linkem_ring_peek(&r, ts, len, FRAMES), 3);
	CU_ASSERT_EQUAL(ts[0], UINT64_C(7000000100));
	CU_ASSERT_EQUAL(ts[1], UINT64_C(7000000250));
	CU_ASSERT_EQUAL(ts[2], UINT64_C(8000000005));
	CU_ASSERT_EQUAL(len[0], 60);
	CU_ASSERT_EQUAL(len[1], 1514);
	CU_ASSERT_EQUAL(len[2], 98);
	CU_ASSERT_EQUAL(linkem_ring_peek(&r, ts, len, 2), 2);
	/* The reader took two: the view starts at the third. */
	give_back(0);
	give_back(1);
	linkem_ring_advance(&r, 2);
	CU_ASSERT_EQUAL(linkem_ring_peek(&r, ts, len, FRAMES), 1);
	CU_ASSERT_EQUAL(ts[0], UINT64_C(8000000005));
	CU_ASSERT_EQUAL(len[0], 98);
}

static void
test_peek_across_the_end(void)
{
	struct linkem_ring r;
	uint64_t ts[FRAMES];
	uint32_t len[FRAMES];

	fresh_ring(&r);
	for (unsigned int i = 0; i < FRAMES - 2; i++) {
		hand_over(i, 1, i, 60);
		give_back(i);
	}
	linkem_ring_advance(&r, FRAMES - 2);
	hand_over(FRAMES - 2, 2, 1, 100);
	hand_over(FRAMES - 1, 2, 2, 200);
	hand_over(0, 2, 3, 300);
	CU_ASSERT_EQUAL(linkem_ring_peek(&r, ts, len, FRAMES), 3);
	CU_ASSERT_EQUAL(ts[2], UINT64_C(2000000003));
	CU_ASSERT_EQUAL(len[2], 300);
	linkem_ring_advance(&r, 3);
	CU_ASSERT_EQUAL(r.next, 1);
	/* A full ring: every frame waiting, none twice. */
	for (unsigned int i = 0; i < FRAMES; i++)
		hand_over(i, 3, i, 60 + i);
	CU_ASSERT_EQUAL(linkem_ring_peek(&r, ts, len, FRAMES), FRAMES);
	CU_ASSERT_EQUAL(len[0], 61);
	CU_ASSERT_EQUAL(len[FRAMES - 1], 60);
}

static void
test_arrival(void)
{
	const uint64_t real_now = UINT64_C(1700000000000000000);
	const sst_time_t now = 5000000;

	/* 300 us before the read. */
	CU_ASSERT_EQUAL(linkem_arrival(real_now - 300000, real_now, now, 0), now - 300000);
	/* No stamp, or one ahead of the clock: the read. */
	CU_ASSERT_EQUAL(linkem_arrival(0, real_now, now, 0), now);
	CU_ASSERT_EQUAL(linkem_arrival(real_now + 10, real_now, now, 0), now);
	/* Never before the previous frame's arrival, nor before time 0. */
	CU_ASSERT_EQUAL(linkem_arrival(real_now - 300000, real_now, now, now - 1000), now - 1000);
	CU_ASSERT_EQUAL(linkem_arrival(real_now - 2 * now, real_now, now, 0), 0);
	CU_ASSERT_EQUAL(linkem_arrival(real_now - 2 * now, real_now, now, 17), 17);
}

/* A 1 Gbit/s link with a 32-frame queue; 100 full frames arriving at its
 * rate (one each 12 us) while the bridge is off the CPU, read at once
 * 1.2 ms later. Returns the queue's drops. */
static uint64_t
backlog_drops(bool stamped)
{
	struct sst_simlink_params p;
	struct sst_simlink *link;
	struct sst_simlink_stats st;
	struct linkem_ring r;
	uint64_t ts[FRAMES];
	uint32_t len[FRAMES];
	const uint64_t real0 = UINT64_C(1700000000000000000);
	const sst_time_t t0 = 1000000, read_at = t0 + 100 * 12000;
	sst_time_t floor = 0;
	unsigned int slot = 0;

	sst_simlink_params_default(&p);
	p.rate_bps = 1000000000;
	p.queue_pkts = 32;
	p.capacity = 256;
	p.pool = pool;
	link = sst_simlink_create(&p, SOCKET_ID_ANY);
	CU_ASSERT_FATAL(link != NULL);
	fresh_ring(&r);
	/* The ring is smaller than the backlog here: the kernel refills what
	 * the reader gives back, in bursts as the bridge reads them. */
	for (unsigned int k = 0; k < 100;) {
		uint16_t n;

		for (unsigned int i = 0; i < FRAMES && k + i < 100; i++) {
			uint64_t stamp = real0 + (t0 + (k + i) * 12000);

			hand_over((slot + i) % FRAMES, (uint32_t)(stamp / SST_NSEC_PER_SEC),
				(uint32_t)(stamp % SST_NSEC_PER_SEC), 1500);
		}
		n = linkem_ring_peek(&r, ts, len, FRAMES);
		CU_ASSERT_FATAL(n > 0);
		for (uint16_t i = 0; i < n; i++) {
			struct rte_mbuf *m = sst_test_mbuf_of_len(pool, len[i]);
			sst_time_t at = read_at;

			CU_ASSERT_FATAL(m != NULL);
			if (stamped)
				at = linkem_arrival(ts[i], real0 + read_at, read_at, floor);
			floor = at;
			if (sst_simlink_enqueue(link, m, at) != SST_SIMLINK_QUEUED)
				rte_pktmbuf_free(m);
			give_back((slot + i) % FRAMES);
		}
		linkem_ring_advance(&r, n);
		slot = (slot + n) % FRAMES;
		k += n;
	}
	/* Everything accepted is delivered, late for the bridge but in order. */
	for (;;) {
		struct rte_mbuf *out[32];
		uint16_t n = sst_simlink_dequeue(link, read_at + 10 * SST_NSEC_PER_SEC, out, 32);

		if (n == 0)
			break;
		rte_pktmbuf_free_bulk(out, n);
	}
	sst_simlink_stats_get(link, &st);
	CU_ASSERT_EQUAL(st.delivered + st.dropped_queue, 100);
	sst_simlink_destroy(link);
	return st.dropped_queue;
}

static void
test_backlog_enters_at_its_stamps(void)
{
	/* At the read, 100 frames meet a 32-frame queue at one instant. */
	CU_ASSERT(backlog_drops(false) >= 100 - 32 - 1);
	/* At their stamps, each frame left before the next came. */
	CU_ASSERT_EQUAL(backlog_drops(true), 0);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_peek_in_ring_order),
	SST_TEST(test_peek_across_the_end),
	SST_TEST(test_arrival),
	SST_TEST(test_backlog_enters_at_its_stamps),
	SST_TEST_END,
};

int
main(void)
{
	return sst_test_main_with_pool(
		"test_linkem_ring", "linkem_ring", 512, RTE_MBUF_DEFAULT_BUF_SIZE, &pool, cases);
}
