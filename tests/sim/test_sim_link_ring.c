/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The link model's two ways of holding packets (drivers/link/simlink/
 * simlink_heap.h): a ring while nothing can put them out of order, the
 * heap otherwise (issue 17). Both must deliver the same packets at the same
 * times, through switches between them with packets in the link, and
 * impairments set on a link holding a ring must work as on the heap.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>

#include "sim_pkt.h"
#include "sst_simlink.h"
#include "sst_test.h"
#include "sst_test_eal.h"

#define MS SST_NSEC_PER_MSEC
#define US SST_NSEC_PER_USEC

static struct rte_mempool *pool;

/*
 * What a link did with a workload: each verdict, the next delivery time
 * at each step, and each delivery as its time and packet number, in order; late counts the deliveries of a
 * packet older than one delivered before it.
 */
struct ring_trace {
	uint64_t ev[96000];
	uint32_t n;
	uint32_t late;
	uint32_t count_at_switch[2];
	struct sst_simlink_stats st;
};

/*
 * A link of 64 packets at 50 Mbit/s (a ring that wraps many times),
 * overloaded and drained by turns: packets of varied sizes, bursts, reads
 * of 1 to 4 packets, every 100 us, until the link is empty. With sw !=
 * NULL the link takes sw[0] at step 4500 and sw[1] at step 8500, with
 * packets in it (overloaded: the ring is full).
 */
static void
ring_workload(const struct sst_simlink_params *p, const struct sst_simlink_params *sw,
	struct ring_trace *tr)
{
	struct sst_simlink *l = sst_simlink_create(p, SOCKET_ID_ANY);
	struct rte_mbuf *out[4];
	uint32_t seq = 0, max_seq = 0;
	bool any = false;

	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	tr->n = 0;
	tr->late = 0;
	for (uint32_t i = 0; i < 12000 || sst_simlink_count(l) > 0; i++) {
		sst_time_t t = (sst_time_t)i * 100 * US;
		uint16_t k;

		if (sw != NULL && (i == 4500 || i == 8500)) {
			tr->count_at_switch[i / 8000] = sst_simlink_count(l);
			CU_ASSERT_EQUAL(sst_simlink_set_params(l, &sw[i / 8000]), 0);
		}
		/* Overloaded 1000 steps (the link fills and drops), then drained. */
		uint32_t burst = (i / 1000) % 2 == 0 ? (i % 7 == 0 ? 4u : 1u) : i % 2;

		for (uint32_t b = 0; i < 12000 && b < burst; b++) {
			struct rte_mbuf *m = sim_pkt(pool, 64 + (seq * 37) % 1300, seq);
			enum sst_simlink_verdict v = sst_simlink_enqueue(l, m, t);

			if (v != SST_SIMLINK_QUEUED)
				rte_pktmbuf_free(m);
			tr->ev[tr->n++] = v;
			seq++;
		}
		tr->ev[tr->n++] = sst_simlink_next_delivery(l);
		k = sst_simlink_dequeue(l, t, out, (uint16_t)(1 + i % 4));
		for (uint16_t j = 0; j < k; j++) {
			uint32_t s = sim_pkt_seq(out[j]);

			if (any && s < max_seq)
				tr->late++;
			if (!any || s > max_seq)
				max_seq = s;
			any = true;
			tr->ev[tr->n++] = t;
			tr->ev[tr->n++] = s;
		}
		for (uint16_t j = 0; j < k; j++)
			rte_pktmbuf_free(out[j]);
	}
	sst_simlink_stats_get(l, &tr->st);
	sst_simlink_destroy(l);
}

/*
 * Issue 17: a link with nothing that can put packets out of order holds
 * them in a ring instead of the heap. Both must deliver the same packets at
 * the same times: a perfect rate-limited link (ring) against the same link
 * with a loss probability that never fires (heap), and against a link
 * switched from ring to heap and back with packets in it. Impairments set
 * on a ring with packets in it take effect as before.
 */
static void
test_ring_matches_heap(void)
{
	static struct ring_trace ring, heap, switched;
	struct sst_simlink_params p, sw[2];
	unsigned int before = rte_mempool_avail_count(pool);

	sst_simlink_params_default(&p);
	p.seed = 17;
	p.capacity = 64;
	p.rate_bps = 50000000;
	ring_workload(&p, NULL, &ring);

	CU_ASSERT(ring.st.dropped_full > 0); /* it filled, so it wrapped */
	CU_ASSERT_EQUAL(ring.late, 0);

	/* 1e-15 a packet: the heap's path, and (checked) not one lost. */
	p.loss = 1e-15;
	ring_workload(&p, NULL, &heap);
	CU_ASSERT_EQUAL(heap.st.dropped_loss, 0);
	CU_ASSERT_EQUAL(ring.n, heap.n);
	CU_ASSERT_EQUAL(memcmp(ring.ev, heap.ev, ring.n * sizeof(ring.ev[0])), 0);

	/* Ring, then heap with the ring's packets, then ring again once empty. */
	p.loss = 0;
	sw[0] = p;
	sw[0].loss = 1e-15;
	sw[1] = p;
	ring_workload(&p, sw, &switched);
	CU_ASSERT(switched.count_at_switch[0] > 1 && switched.count_at_switch[1] > 1);
	CU_ASSERT_EQUAL(ring.n, switched.n);
	CU_ASSERT_EQUAL(memcmp(ring.ev, switched.ev, ring.n * sizeof(ring.ev[0])), 0);

	/* Reordering set on a ring holding packets: held-back packets are overtaken. */
	sw[0] = p;
	sw[0].reorder = 0.05;
	sw[0].reorder_delay_ns = 1 * MS;
	ring_workload(&p, sw, &switched);
	CU_ASSERT(switched.count_at_switch[0] > 1);
	CU_ASSERT(switched.late > 50);
	CU_ASSERT_EQUAL(switched.late, switched.st.reordered);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), before);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_ring_matches_heap),
	SST_TEST_END,
};

int
main(void)
{
	return sst_test_main_with_pool(
		"test_sim_link_ring", "sim_link_ring", 8192, 2048, &pool, cases);
}
