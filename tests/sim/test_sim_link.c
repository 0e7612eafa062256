/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The link model (drivers/link/simlink) on its own: exact timing of
 * serialization, queueing and propagation; tail drop, MTU and capacity drops;
 * statistics of the random impairments against their parameters over many
 * packets with a fixed seed; corruption of private and shared mbufs;
 * determinism and independence of the random streams.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include "sim_pkt.h"
#include "sst_simlink.h"
#include "sst_test.h"
#include "sst_test_eal.h"

#define MS SST_NSEC_PER_MSEC
#define US SST_NSEC_PER_USEC

static struct rte_mempool *pool;

/* Bits in which a packet differs from the pattern of sim_pkt(pool, len, seq). */
static unsigned int
diff_bits(const struct rte_mbuf *m, uint32_t seq, uint32_t *first_byte)
{
	uint8_t ref[2048];
	uint32_t len = rte_pktmbuf_pkt_len(m);
	unsigned int bits = 0;
	uint8_t buf[2048];
	const uint8_t *d = rte_pktmbuf_read(m, 0, len, buf);

	for (uint32_t i = 0; i < len; i++)
		ref[i] = (uint8_t)(seq + i);
	if (len >= 4)
		memcpy(ref, &seq, 4);
	*first_byte = UINT32_MAX;
	for (uint32_t i = 0; i < len; i++) {
		unsigned int b = (unsigned int)__builtin_popcount(ref[i] ^ d[i]);

		if (b != 0 && *first_byte == UINT32_MAX)
			*first_byte = i;
		bits += b;
	}
	return bits;
}

static struct sst_simlink *
mklink(const struct sst_simlink_params *p)
{
	struct sst_simlink *l = sst_simlink_create(p, SOCKET_ID_ANY);

	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	return l;
}

static void
free_all(struct rte_mbuf **m, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		rte_pktmbuf_free(m[i]);
}

static void
test_params(void)
{
	struct sst_simlink_params p;
	uint8_t mem[4096] __attribute__((aligned(8)));
	unsigned int before = rte_mempool_avail_count(pool);

	sst_simlink_params_default(&p);
	CU_ASSERT_EQUAL(sst_simlink_params_check(&p), 0);
	CU_ASSERT_EQUAL(p.size, sizeof(p));
	CU_ASSERT_EQUAL(sst_simlink_params_check(NULL), -EINVAL);
	p.loss = 1.5;
	CU_ASSERT_EQUAL(sst_simlink_params_check(&p), -EINVAL);
	p.loss = NAN;
	CU_ASSERT_EQUAL(sst_simlink_params_check(&p), -EINVAL);
	p.loss = -0.1;
	CU_ASSERT_EQUAL(sst_simlink_params_check(&p), -EINVAL);
	sst_simlink_params_default(&p);
	p.capacity = 0;
	CU_ASSERT_EQUAL(sst_simlink_params_check(&p), -EINVAL);
	sst_simlink_params_default(&p);
	p.queue_pkts = p.capacity + 1;
	CU_ASSERT_EQUAL(sst_simlink_params_check(&p), -EINVAL);
	sst_simlink_params_default(&p);
	p.corrupt = 0.1;
	p.corrupt_bits = 0;
	CU_ASSERT_EQUAL(sst_simlink_params_check(&p), -EINVAL);
	p.corrupt_bits = SST_SIMLINK_MAX_CORRUPT_BITS + 1;
	CU_ASSERT_EQUAL(sst_simlink_params_check(&p), -EINVAL);
	sst_simlink_params_default(&p);
	p.delay_ns = SST_SIMLINK_MAX_DELAY + 1;
	CU_ASSERT_EQUAL(sst_simlink_params_check(&p), -EINVAL);
	sst_simlink_params_default(&p);
	p.jitter_dist = (enum sst_simlink_jitter)7;
	CU_ASSERT_EQUAL(sst_simlink_params_check(&p), -EINVAL);
	sst_simlink_params_default(&p);
	p.size = 0;
	CU_ASSERT_EQUAL(sst_simlink_params_check(&p), -EINVAL);
	p.size = sizeof(p) + 8;
	CU_ASSERT_EQUAL(sst_simlink_params_check(&p), -EINVAL);

	/* Caller memory: size/init/fini. */
	sst_simlink_params_default(&p);
	p.capacity = 4;
	CU_ASSERT_EQUAL(sst_simlink_size(0), 0);
	CU_ASSERT_EQUAL(sst_simlink_size(SST_SIMLINK_MAX_CAPACITY + 1), 0);
	CU_ASSERT_TRUE_FATAL(sst_simlink_size(4) <= sizeof(mem));
	CU_ASSERT_PTR_NULL(sst_simlink_init(NULL, &p));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	p.loss = 2;
	CU_ASSERT_PTR_NULL(sst_simlink_init(mem, &p));
	CU_ASSERT_PTR_NULL(sst_simlink_create(&p, SOCKET_ID_ANY));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	p.loss = 0;
	struct sst_simlink *l = sst_simlink_init(mem, &p);
	CU_ASSERT_PTR_EQUAL_FATAL(l, (void *)mem);
	CU_ASSERT_EQUAL(sst_simlink_next_delivery(l), SST_TIME_NEVER);
	CU_ASSERT_EQUAL(sst_simlink_enqueue(l, sim_pkt(pool, 100, 1), 0), SST_SIMLINK_QUEUED);
	CU_ASSERT_EQUAL(sst_simlink_count(l), 1);
	sst_simlink_fini(l); /* frees the packet */
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), before);

	/* set_params: capacity is fixed. */
	l = mklink(&p);
	p.capacity = 8;
	CU_ASSERT_EQUAL(sst_simlink_set_params(l, &p), -EINVAL);
	p.capacity = 0;
	CU_ASSERT_EQUAL(sst_simlink_set_params(l, &p), 0);
	p.capacity = 4;
	p.mtu = 10;
	CU_ASSERT_EQUAL(sst_simlink_set_params(l, &p), 0);
	struct rte_mbuf *m = sim_pkt(pool, 11, 0);
	CU_ASSERT_EQUAL(sst_simlink_enqueue(l, m, 0), SST_SIMLINK_DROP_MTU);
	rte_pktmbuf_free(m);
	sst_simlink_destroy(l);
	sst_simlink_destroy(NULL);

	CU_ASSERT_STRING_EQUAL(sst_simlink_verdict_name(SST_SIMLINK_DROP_QUEUE), "queue");
	CU_ASSERT_STRING_EQUAL(sst_simlink_verdict_name(SST_SIMLINK_VERDICT_MAX), "unknown");
}

/* A perfect link delivers at once, in order, and counts. */
static void
test_perfect_link(void)
{
	struct sst_simlink_params p;
	struct rte_mbuf *out[8];
	struct sst_simlink_stats st;
	struct sst_simlink *l;

	sst_simlink_params_default(&p);
	l = mklink(&p);
	for (uint32_t i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(
			sst_simlink_enqueue(l, sim_pkt(pool, 64, i), 1000), SST_SIMLINK_QUEUED);
	CU_ASSERT_EQUAL(sst_simlink_next_delivery(l), 1000);
	CU_ASSERT_EQUAL(sst_simlink_dequeue(l, 999, out, 8), 0);
	CU_ASSERT_EQUAL_FATAL(sst_simlink_dequeue(l, 1000, out, 3), 3);
	CU_ASSERT_EQUAL_FATAL(sst_simlink_dequeue(l, 1000, out + 3, 8), 2);
	for (uint32_t i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(sim_pkt_seq(out[i]), i);
	free_all(out, 5);
	CU_ASSERT_EQUAL(sst_simlink_next_delivery(l), SST_TIME_NEVER);
	sst_simlink_stats_get(l, &st);
	CU_ASSERT_EQUAL(st.sent, 5);
	CU_ASSERT_EQUAL(st.sent_bytes, 5 * 64);
	CU_ASSERT_EQUAL(st.delivered, 5);
	CU_ASSERT_EQUAL(st.delivered_bytes, 5 * 64);
	sst_simlink_stats_reset(l);
	sst_simlink_stats_get(l, &st);
	CU_ASSERT_EQUAL(st.sent, 0);
	sst_simlink_destroy(l);
}

/* Propagation delay is exact, whatever the send time. */
static void
test_propagation_delay(void)
{
	static const sst_time_t sends[] = {0, 1, 999, 123456789, 5 * SST_NSEC_PER_SEC};
	struct sst_simlink_params p;
	struct rte_mbuf *out[2];
	struct sst_simlink *l;

	sst_simlink_params_default(&p);
	p.delay_ns = 12345678;
	l = mklink(&p);
	for (size_t i = 0; i < RTE_DIM(sends); i++) {
		CU_ASSERT_EQUAL(sst_simlink_enqueue(l, sim_pkt(pool, 1500, (uint32_t)i), sends[i]),
			SST_SIMLINK_QUEUED);
		CU_ASSERT_EQUAL(sst_simlink_next_delivery(l), sends[i] + p.delay_ns);
		CU_ASSERT_EQUAL(sst_simlink_dequeue(l, sends[i] + p.delay_ns - 1, out, 2), 0);
		CU_ASSERT_EQUAL_FATAL(sst_simlink_dequeue(l, sends[i] + p.delay_ns, out, 2), 1);
		CU_ASSERT_EQUAL(sim_pkt_seq(out[0]), i);
		rte_pktmbuf_free(out[0]);
	}
	sst_simlink_destroy(l);
}

/*
 * A burst into a slow link leaves spaced by the serialization time
 * (size * 8 / rate); the queue holds queue_pkts packets, the one being sent
 * included, and drops the rest at the tail.
 */
static void
test_serialization_and_tail_drop(void)
{
	struct sst_simlink_params p;
	struct rte_mbuf *out[16];
	struct sst_simlink_stats st;
	struct sst_simlink *l;
	struct rte_mbuf *m;
	uint32_t seq = 0;

	sst_simlink_params_default(&p);
	p.rate_bps = 8000000; /* 1000 bytes: 1 ms */
	p.delay_ns = 5 * MS;
	p.queue_pkts = 5;
	l = mklink(&p);
	for (int i = 0; i < 10; i++) {
		m = sim_pkt(pool, 1000, seq++);
		enum sst_simlink_verdict v = sst_simlink_enqueue(l, m, 0);

		CU_ASSERT_EQUAL(v, i < 5 ? SST_SIMLINK_QUEUED : SST_SIMLINK_DROP_QUEUE);
		if (v != SST_SIMLINK_QUEUED)
			rte_pktmbuf_free(m);
	}
	/* At 3 ms three packets have left: room for three more. */
	for (int i = 0; i < 4; i++) {
		m = sim_pkt(pool, 1000, seq++);
		enum sst_simlink_verdict v = sst_simlink_enqueue(l, m, 3 * MS);

		CU_ASSERT_EQUAL(v, i < 3 ? SST_SIMLINK_QUEUED : SST_SIMLINK_DROP_QUEUE);
		if (v != SST_SIMLINK_QUEUED)
			rte_pktmbuf_free(m);
	}
	/* Deliveries: 1..5 ms + 5 ms for the burst, then 6..8 ms + 5 ms. */
	static const uint32_t want_seq[] = {0, 1, 2, 3, 4, 10, 11, 12};
	for (int i = 0; i < 8; i++) {
		sst_time_t want = (sst_time_t)(i + 1) * MS + 5 * MS;

		CU_ASSERT_EQUAL(sst_simlink_next_delivery(l), want);
		CU_ASSERT_EQUAL(sst_simlink_dequeue(l, want - 1, out, 16), 0);
		CU_ASSERT_EQUAL_FATAL(sst_simlink_dequeue(l, want, out, 16), 1);
		CU_ASSERT_EQUAL(sim_pkt_seq(out[0]), want_seq[i]);
		rte_pktmbuf_free(out[0]);
	}
	sst_simlink_stats_get(l, &st);
	CU_ASSERT_EQUAL(st.sent, 14);
	CU_ASSERT_EQUAL(st.dropped_queue, 6);
	CU_ASSERT_EQUAL(st.delivered, 8);
	sst_simlink_destroy(l);

	/* Byte limit, and per-packet overhead in the serialization time. */
	sst_simlink_params_default(&p);
	p.rate_bps = 10000000;
	p.overhead_bytes = 250; /* 1000 + 250 bytes at 10 Mbit/s: 1 ms */
	p.queue_bytes = 2500;
	l = mklink(&p);
	for (int i = 0; i < 3; i++) {
		m = sim_pkt(pool, 1000, (uint32_t)i);
		enum sst_simlink_verdict v = sst_simlink_enqueue(l, m, 0);

		CU_ASSERT_EQUAL(v, i < 2 ? SST_SIMLINK_QUEUED : SST_SIMLINK_DROP_QUEUE);
		if (v != SST_SIMLINK_QUEUED)
			rte_pktmbuf_free(m);
	}
	CU_ASSERT_EQUAL(sst_simlink_next_delivery(l), 1 * MS);
	CU_ASSERT_EQUAL(sst_simlink_dequeue(l, 2 * MS, out, 16), 2);
	free_all(out, 2);
	sst_simlink_destroy(l);

	/* A rate that does not divide: remainders carry, the burst is exact. */
	sst_simlink_params_default(&p);
	p.rate_bps = 3000000000; /* 8000 bits: 2666.67 ns */
	l = mklink(&p);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(sst_simlink_enqueue(l, sim_pkt(pool, 1000, (uint32_t)i), 0),
			SST_SIMLINK_QUEUED);
	CU_ASSERT_EQUAL(sst_simlink_dequeue(l, 2666, out, 16), 1);
	CU_ASSERT_EQUAL(sst_simlink_dequeue(l, 5333, out + 1, 16), 1);
	CU_ASSERT_EQUAL(sst_simlink_next_delivery(l), 8000);
	CU_ASSERT_EQUAL(sst_simlink_dequeue(l, 8000, out + 2, 16), 1);
	free_all(out, 3);
	sst_simlink_destroy(l);

	/* An idle link starts sending at once. */
	sst_simlink_params_default(&p);
	p.rate_bps = 8000000;
	l = mklink(&p);
	CU_ASSERT_EQUAL(
		sst_simlink_enqueue(l, sim_pkt(pool, 500, 0), 100 * MS), SST_SIMLINK_QUEUED);
	CU_ASSERT_EQUAL(sst_simlink_next_delivery(l), 100 * MS + 500 * US);
	sst_simlink_destroy(l);
}

static void
test_mtu_and_capacity(void)
{
	struct sst_simlink_params p;
	struct sst_simlink_stats st;
	struct sst_simlink *l;
	struct rte_mbuf *m;

	sst_simlink_params_default(&p);
	p.mtu = 1500;
	p.capacity = 4;
	p.delay_ns = SST_NSEC_PER_SEC;
	l = mklink(&p);
	CU_ASSERT_EQUAL(sst_simlink_enqueue(l, sim_pkt(pool, 1500, 0), 0), SST_SIMLINK_QUEUED);
	m = sim_pkt(pool, 1501, 1);
	CU_ASSERT_EQUAL(sst_simlink_enqueue(l, m, 0), SST_SIMLINK_DROP_MTU);
	CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(m), 1501); /* the caller's, untouched */
	rte_pktmbuf_free(m);
	for (uint32_t i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(
			sst_simlink_enqueue(l, sim_pkt(pool, 100, i), 0), SST_SIMLINK_QUEUED);
	m = sim_pkt(pool, 100, 9);
	CU_ASSERT_EQUAL(sst_simlink_enqueue(l, m, 0), SST_SIMLINK_DROP_FULL);
	rte_pktmbuf_free(m);
	sst_simlink_stats_get(l, &st);
	CU_ASSERT_EQUAL(st.sent, 6);
	CU_ASSERT_EQUAL(st.dropped_mtu, 1);
	CU_ASSERT_EQUAL(st.dropped_full, 1);
	CU_ASSERT_EQUAL(sst_simlink_count(l), 4);
	CU_ASSERT_EQUAL(sst_simlink_flush(l), 4);
	CU_ASSERT_EQUAL(sst_simlink_count(l), 0);
	sst_simlink_destroy(l);
}

/*
 * Push n packets of len bytes through a link with no delay, one at a time, and
 * return the verdicts in v[] (if not NULL); the delivered copies are freed.
 */
static void
run_packets(struct sst_simlink *l, uint32_t n, uint32_t len, uint8_t *v)
{
	struct rte_mbuf *out[4];

	for (uint32_t i = 0; i < n; i++) {
		struct rte_mbuf *m = sim_pkt(pool, len, i);
		enum sst_simlink_verdict r = sst_simlink_enqueue(l, m, (sst_time_t)i * US);
		uint16_t k;

		if (v != NULL)
			v[i] = (uint8_t)r;
		if (r != SST_SIMLINK_QUEUED)
			rte_pktmbuf_free(m);
		while ((k = sst_simlink_dequeue(l, (sst_time_t)i * US, out, 4)) > 0)
			free_all(out, k);
	}
}

static void
test_random_loss_rate(void)
{
	static const double rates[] = {0.01, 0.1, 0.5};
	const uint32_t n = 200000;

	for (size_t r = 0; r < RTE_DIM(rates); r++) {
		struct sst_simlink_params p;
		struct sst_simlink_stats st;
		struct sst_simlink *l;
		double got;

		sst_simlink_params_default(&p);
		p.seed = 42;
		p.loss = rates[r];
		l = mklink(&p);
		run_packets(l, n, 64, NULL);
		sst_simlink_stats_get(l, &st);
		got = (double)st.dropped_loss / n;
		/* 5 standard deviations of a binomial proportion. */
		CU_ASSERT_DOUBLE_EQUAL(got, rates[r], 5 * sqrt(rates[r] * (1 - rates[r]) / n));
		CU_ASSERT_EQUAL(st.delivered + st.dropped_loss, n);
		sst_simlink_destroy(l);
	}
}

/*
 * Gilbert-Elliott with loss only in the bad state: loss bursts last
 * 1 / p(bad->good) packets on average, and the loss rate is
 * p(good->bad) / (p(good->bad) + p(bad->good)).
 */
static void
test_gilbert_elliott(void)
{
	const uint32_t n = 500000;
	struct sst_simlink_params p;
	struct sst_simlink_stats st;
	struct sst_simlink *l;
	uint64_t bursts = 0, lost = 0, run = 0;
	uint8_t *v = malloc(n);

	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	sst_simlink_params_default(&p);
	p.seed = 7;
	p.ge_p_good_bad = 0.01;
	p.ge_p_bad_good = 0.25;
	l = mklink(&p);
	run_packets(l, n, 64, v);
	for (uint32_t i = 0; i < n; i++) {
		if (v[i] == SST_SIMLINK_DROP_LOSS) {
			lost++;
			run++;
		} else if (run > 0) {
			bursts++;
			run = 0;
		}
	}
	sst_simlink_stats_get(l, &st);
	CU_ASSERT_EQUAL(st.dropped_loss, lost);
	CU_ASSERT_DOUBLE_EQUAL((double)lost / n, 0.01 / 0.26, 0.004);
	CU_ASSERT_FATAL(bursts > 1000);
	CU_ASSERT_DOUBLE_EQUAL((double)lost / bursts, 1 / 0.25, 0.25);
	sst_simlink_destroy(l);

	/* Loss in both states, mixed with independent loss. */
	sst_simlink_params_default(&p);
	p.seed = 8;
	p.loss = 0.02;
	p.ge_p_good_bad = 0.05;
	p.ge_p_bad_good = 0.2;
	p.ge_loss_good = 0.01;
	p.ge_loss_bad = 0.5;
	l = mklink(&p);
	run_packets(l, n, 64, NULL);
	sst_simlink_stats_get(l, &st);
	/* P(bad) = 0.2; GE loss = 0.8 * 0.01 + 0.2 * 0.5 = 0.108; with the
	 * independent 2%: 1 - 0.98 * 0.892 = 0.12584. */
	CU_ASSERT_DOUBLE_EQUAL((double)st.dropped_loss / n, 0.12584, 0.004);
	sst_simlink_destroy(l);
	free(v);
}

static void
test_duplication(void)
{
	const uint32_t n = 100000;
	struct sst_simlink_params p;
	struct sst_simlink_stats st;
	struct rte_mbuf *out[4];
	struct sst_simlink *l;
	uint64_t dups_seen = 0;

	sst_simlink_params_default(&p);
	p.seed = 3;
	p.duplicate = 0.05;
	p.pool = pool;
	l = mklink(&p);
	for (uint32_t i = 0; i < n; i++) {
		uint16_t k;

		CU_ASSERT_EQUAL_FATAL(
			sst_simlink_enqueue(l, sim_pkt(pool, 200, i), i), SST_SIMLINK_QUEUED);
		k = sst_simlink_dequeue(l, i, out, 4);
		CU_ASSERT_FATAL(k == 1 || k == 2);
		for (uint16_t j = 0; j < k; j++) {
			uint32_t first;

			CU_ASSERT_EQUAL(diff_bits(out[j], i, &first), 0); /* exact copies */
			CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(out[j]), 200);
		}
		if (k == 2) {
			CU_ASSERT_PTR_NOT_EQUAL(out[0], out[1]);
			dups_seen++;
		}
		free_all(out, k);
	}
	sst_simlink_stats_get(l, &st);
	CU_ASSERT_EQUAL(st.duplicated, dups_seen);
	CU_ASSERT_EQUAL(st.delivered, n + dups_seen);
	CU_ASSERT_EQUAL(st.dup_failed, 0);
	CU_ASSERT_DOUBLE_EQUAL((double)dups_seen / n, 0.05, 5 * sqrt(0.05 * 0.95 / n));
	sst_simlink_destroy(l);
}

/*
 * Corruption flips exactly corrupt_bits distinct bits, never before
 * corrupt_offset, in the share of packets asked for; packets no longer than
 * the offset are left alone.
 */
static void
test_corruption(void)
{
	const uint32_t n = 50000;
	struct sst_simlink_params p;
	struct sst_simlink_stats st;
	struct rte_mbuf *out[4];
	struct sst_simlink *l;
	uint64_t seen = 0;

	sst_simlink_params_default(&p);
	p.seed = 11;
	p.corrupt = 0.1;
	p.corrupt_bits = 3;
	p.corrupt_offset = 28;
	l = mklink(&p);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t len = 29 + i % 300, first;
		unsigned int bits;

		CU_ASSERT_EQUAL_FATAL(
			sst_simlink_enqueue(l, sim_pkt(pool, len, i), 0), SST_SIMLINK_QUEUED);
		CU_ASSERT_EQUAL_FATAL(sst_simlink_dequeue(l, 0, out, 4), 1);
		bits = diff_bits(out[0], i, &first);
		CU_ASSERT(bits == 0 || bits == 3);
		if (bits != 0) {
			CU_ASSERT(first >= 28);
			seen++;
		}
		rte_pktmbuf_free(out[0]);
	}
	sst_simlink_stats_get(l, &st);
	CU_ASSERT_EQUAL(st.corrupted, seen);
	CU_ASSERT_DOUBLE_EQUAL((double)seen / n, 0.1, 5 * sqrt(0.1 * 0.9 / n));

	/* Never beyond the end: packets no longer than the offset are intact. */
	sst_simlink_stats_reset(l);
	p.corrupt = 1.0;
	CU_ASSERT_EQUAL(sst_simlink_set_params(l, &p), 0);
	for (uint32_t i = 0; i < 100; i++) {
		uint32_t first;

		CU_ASSERT_EQUAL(
			sst_simlink_enqueue(l, sim_pkt(pool, 28, i), 0), SST_SIMLINK_QUEUED);
		CU_ASSERT_EQUAL_FATAL(sst_simlink_dequeue(l, 0, out, 4), 1);
		CU_ASSERT_EQUAL(diff_bits(out[0], i, &first), 0);
		rte_pktmbuf_free(out[0]);
	}
	sst_simlink_stats_get(l, &st);
	CU_ASSERT_EQUAL(st.corrupted, 0);
	sst_simlink_destroy(l);
}

/* A shared mbuf is copied before corruption: the other user's data stays. */
static void
test_corruption_shared_mbuf(void)
{
	struct sst_simlink_params p;
	struct rte_mbuf *out[4];
	struct sst_simlink *l;
	struct rte_mbuf *m, *clone;
	uint32_t first;

	sst_simlink_params_default(&p);
	p.corrupt = 1.0;
	p.corrupt_bits = 5;
	p.pool = pool;
	l = mklink(&p);

	/* refcnt 2: the sender keeps a reference for retransmission. */
	m = sim_pkt(pool, 300, 1);
	rte_mbuf_refcnt_update(m, 1);
	CU_ASSERT_EQUAL(sst_simlink_enqueue(l, m, 0), SST_SIMLINK_QUEUED);
	CU_ASSERT_EQUAL_FATAL(sst_simlink_dequeue(l, 0, out, 4), 1);
	CU_ASSERT_PTR_NOT_EQUAL(out[0], m);
	CU_ASSERT_EQUAL(diff_bits(out[0], 1, &first), 5);
	CU_ASSERT_EQUAL(diff_bits(m, 1, &first), 0);
	CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(m), 1);
	rte_pktmbuf_free(out[0]);
	rte_pktmbuf_free(m);

	/* An indirect clone: the direct buffer is not touched. */
	m = sim_pkt(pool, 300, 2);
	clone = rte_pktmbuf_clone(m, pool);
	CU_ASSERT_PTR_NOT_NULL_FATAL(clone);
	CU_ASSERT_EQUAL(sst_simlink_enqueue(l, clone, 0), SST_SIMLINK_QUEUED);
	CU_ASSERT_EQUAL_FATAL(sst_simlink_dequeue(l, 0, out, 4), 1);
	CU_ASSERT_FALSE(RTE_MBUF_CLONED(out[0]));
	CU_ASSERT_EQUAL(diff_bits(out[0], 2, &first), 5);
	CU_ASSERT_EQUAL(diff_bits(m, 2, &first), 0);
	rte_pktmbuf_free(out[0]);
	CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(m), 1);
	rte_pktmbuf_free(m);

	/* A private mbuf is corrupted in place. */
	m = sim_pkt(pool, 300, 3);
	CU_ASSERT_EQUAL(sst_simlink_enqueue(l, m, 0), SST_SIMLINK_QUEUED);
	CU_ASSERT_EQUAL_FATAL(sst_simlink_dequeue(l, 0, out, 4), 1);
	CU_ASSERT_PTR_EQUAL(out[0], m);
	CU_ASSERT_EQUAL(diff_bits(out[0], 3, &first), 5);
	rte_pktmbuf_free(out[0]);

	/* Multi-segment packets: bits flipped in the second segment too. */
	p.corrupt_offset = 100;
	CU_ASSERT_EQUAL(sst_simlink_set_params(l, &p), 0);
	for (uint32_t i = 0; i < 20; i++) {
		struct rte_mbuf *a = sim_pkt(pool, 100, 0), *b = sim_pkt(pool, 100, 100);

		CU_ASSERT_EQUAL_FATAL(rte_pktmbuf_chain(a, b), 0);
		/* sim_pkt(pool, 100, 0) ++ sim_pkt(pool, 100, 100) has the pattern of sim_pkt(pool, 200, 0)
		 * except for the sequence number bytes of b. */
		for (int j = 0; j < 4; j++)
			rte_pktmbuf_mtod(b, uint8_t *)[j] = (uint8_t)(100 + j);
		CU_ASSERT_EQUAL(sst_simlink_enqueue(l, a, 0), SST_SIMLINK_QUEUED);
		CU_ASSERT_EQUAL_FATAL(sst_simlink_dequeue(l, 0, out, 4), 1);
		CU_ASSERT_EQUAL(diff_bits(out[0], 0, &first), 5);
		CU_ASSERT(first >= 100);
		rte_pktmbuf_free(out[0]);
	}
	sst_simlink_destroy(l);
}

/* What a run of packets saw: counts, order and one-way delays. */
struct order_result {
	uint32_t n;
	uint32_t late; /* deliveries of a packet older than one already delivered */
	sst_time_t min_delay, max_delay;
	double mean_delay;
};

/*
 * Send n packets every 100 us and count the late deliveries. From packet
 * n - 20 on, the link gets the parameters calm (if not NULL), so that the
 * last packets held back still have later packets to be overtaken by.
 */
static struct order_result
run_order(struct sst_simlink *l, uint32_t n, const struct sst_simlink_params *calm)
{
	struct order_result r = {.min_delay = SST_TIME_NEVER};
	struct rte_mbuf *out[32];
	uint32_t max_seq = 0;
	bool any = false;

	for (uint32_t i = 0; i < n || sst_simlink_count(l) > 0; i++) {
		sst_time_t t = (sst_time_t)i * 100 * US;
		uint16_t k;

		if (calm != NULL && i == n - 20)
			CU_ASSERT_EQUAL(sst_simlink_set_params(l, calm), 0);
		if (i < n)
			CU_ASSERT_EQUAL_FATAL(sst_simlink_enqueue(l, sim_pkt(pool, 100, i), t),
				SST_SIMLINK_QUEUED);
		while ((k = sst_simlink_dequeue(l, t + 100 * US - 1, out, RTE_DIM(out))) > 0) {
			for (uint16_t j = 0; j < k; j++) {
				uint32_t s = sim_pkt_seq(out[j]);

				if (any && s < max_seq)
					r.late++;
				if (!any || s > max_seq)
					max_seq = s;
				any = true;
				r.n++;
			}
			free_all(out, k);
		}
	}
	return r;
}

/*
 * Delays one by one: enqueue one packet, read its delivery time (the link
 * holds only it), so each delay is exact. Returns min, max and mean.
 */
static struct order_result
run_delays(struct sst_simlink *l, uint32_t n)
{
	struct order_result r = {.min_delay = SST_TIME_NEVER};
	struct rte_mbuf *out[4];
	double sum = 0;

	for (uint32_t i = 0; i < n; i++) {
		sst_time_t t = (sst_time_t)i * SST_NSEC_PER_SEC, d;

		CU_ASSERT_EQUAL_FATAL(
			sst_simlink_enqueue(l, sim_pkt(pool, 100, i), t), SST_SIMLINK_QUEUED);
		d = sst_simlink_next_delivery(l) - t;
		r.min_delay = RTE_MIN(r.min_delay, d);
		r.max_delay = RTE_MAX(r.max_delay, d);
		sum += (double)d;
		CU_ASSERT_EQUAL_FATAL(sst_simlink_dequeue(l, t + d, out, 4), 1);
		rte_pktmbuf_free(out[0]);
	}
	r.n = n;
	r.mean_delay = sum / n;
	return r;
}

static void
test_jitter(void)
{
	struct sst_simlink_params p;
	struct order_result r;
	struct sst_simlink *l;

	/* Uniform: within [delay, delay + jitter], mean in the middle. */
	sst_simlink_params_default(&p);
	p.seed = 5;
	p.delay_ns = 10 * MS;
	p.jitter_ns = 4 * MS;
	l = mklink(&p);
	r = run_delays(l, 20000);
	CU_ASSERT(r.min_delay >= 10 * MS && r.min_delay < 10 * MS + 10 * US);
	CU_ASSERT(r.max_delay <= 14 * MS && r.max_delay > 14 * MS - 10 * US);
	CU_ASSERT_DOUBLE_EQUAL(r.mean_delay, 12.0 * MS, 0.05 * MS);
	sst_simlink_destroy(l);

	/* Normal-ish: bounded, mean in the middle, rarely near the bounds. */
	p.jitter_dist = SST_SIMLINK_JITTER_NORMAL;
	l = mklink(&p);
	r = run_delays(l, 20000);
	CU_ASSERT(r.min_delay >= 10 * MS && r.max_delay <= 14 * MS);
	CU_ASSERT(r.min_delay > 10 * MS + 100 * US && r.max_delay < 14 * MS - 100 * US);
	CU_ASSERT_DOUBLE_EQUAL(r.mean_delay, 12.0 * MS, 0.05 * MS);
	sst_simlink_destroy(l);

	/* By default jitter keeps the order... */
	p.jitter_dist = SST_SIMLINK_JITTER_UNIFORM;
	l = mklink(&p);
	r = run_order(l, 20000, NULL);
	CU_ASSERT_EQUAL(r.n, 20000);
	CU_ASSERT_EQUAL(r.late, 0);
	sst_simlink_destroy(l);

	/* ...unless allowed to reorder. */
	p.jitter_reorder = true;
	l = mklink(&p);
	r = run_order(l, 20000, NULL);
	CU_ASSERT_EQUAL(r.n, 20000);
	CU_ASSERT(r.late > 1000);
	sst_simlink_destroy(l);
}

/* Held-back packets are overtaken: each shows up late once. */
static void
test_reordering(void)
{
	const uint32_t n = 100000;
	struct sst_simlink_params p, calm;
	struct sst_simlink_stats st;
	struct order_result r;
	struct sst_simlink *l;

	sst_simlink_params_default(&p);
	p.seed = 9;
	p.delay_ns = 10 * MS;
	p.reorder = 0.05;
	p.reorder_delay_ns = 1 * MS;
	l = mklink(&p);
	calm = p;
	calm.reorder = 0;
	r = run_order(l, n, &calm);
	sst_simlink_stats_get(l, &st);
	CU_ASSERT_EQUAL(r.n, n);
	CU_ASSERT_EQUAL(r.late, st.reordered);
	CU_ASSERT_DOUBLE_EQUAL((double)st.reordered / n, 0.05, 5 * sqrt(0.05 * 0.95 / n));
	sst_simlink_destroy(l);
}

/* A link with every impairment at once. */
static void
impaired_params(struct sst_simlink_params *p, uint64_t seed, double corrupt)
{
	sst_simlink_params_default(p);
	p->seed = seed;
	p->rate_bps = 100000000;
	p->delay_ns = 2 * MS;
	p->jitter_ns = 1 * MS;
	p->queue_pkts = 50;
	p->loss = 0.05;
	p->ge_p_good_bad = 0.01;
	p->ge_p_bad_good = 0.3;
	p->reorder = 0.02;
	p->reorder_delay_ns = 500 * US;
	p->duplicate = 0.02;
	p->corrupt = corrupt;
	p->pool = pool;
}

/* Verdicts and delivery times of a mixed workload, as one digest. */
static uint64_t
workload_digest(uint64_t seed, double corrupt, uint8_t *loss_pattern)
{
	struct sst_simlink_params p;
	struct rte_mbuf *out[64];
	struct sst_simlink *l;
	uint64_t h = 1469598103934665603u;
	uint32_t first;

	impaired_params(&p, seed, corrupt);
	l = mklink(&p);
	for (uint32_t i = 0; i < 20000 || sst_simlink_count(l) > 0; i++) {
		sst_time_t t = (sst_time_t)i * 50 * US;
		uint16_t k;

		if (i < 20000) {
			struct rte_mbuf *m = sim_pkt(pool, 100 + i % 1000, i);
			enum sst_simlink_verdict v = sst_simlink_enqueue(l, m, t);

			if (loss_pattern != NULL)
				loss_pattern[i] = v == SST_SIMLINK_DROP_LOSS;
			if (v != SST_SIMLINK_QUEUED)
				rte_pktmbuf_free(m);
			h = (h ^ v) * 1099511628211u;
		}
		k = sst_simlink_dequeue(l, t, out, RTE_DIM(out));
		for (uint16_t j = 0; j < k; j++) {
			uint32_t s = sim_pkt_seq(out[j]);

			h = (h ^ t) * 1099511628211u;
			h = (h ^ s) * 1099511628211u;
			h = (h ^ diff_bits(out[j], s, &first)) * 1099511628211u;
		}
		free_all(out, k);
	}
	sst_simlink_destroy(l);
	return h;
}

static void
test_seed_determinism(void)
{
	uint8_t *a = calloc(20000, 1), *b = calloc(20000, 1);

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(workload_digest(1, 0.01, NULL), workload_digest(1, 0.01, NULL));
	CU_ASSERT_NOT_EQUAL(workload_digest(1, 0.01, NULL), workload_digest(2, 0.01, NULL));
	/* Independent streams: adding corruption loses the same packets. */
	CU_ASSERT_NOT_EQUAL(workload_digest(1, 0, a), workload_digest(1, 0.2, b));
	CU_ASSERT_EQUAL(memcmp(a, b, 20000), 0);
	free(a);
	free(b);
}

/* Whatever happens, every packet is delivered or dropped exactly once. */
static void
test_accounting(void)
{
	struct sst_simlink_params p;
	struct sst_simlink_stats st;
	struct rte_mbuf *out[64];
	struct sst_simlink *l;
	unsigned int before = rte_mempool_avail_count(pool);

	sst_simlink_params_default(&p);
	p.seed = 99;
	p.rate_bps = 50000000;
	p.delay_ns = 1 * MS;
	p.jitter_ns = 300 * US;
	p.queue_pkts = 20;
	p.mtu = 1200;
	p.loss = 0.03;
	p.duplicate = 0.03;
	p.corrupt = 0.03;
	p.reorder = 0.03;
	p.reorder_delay_ns = 200 * US;
	p.capacity = 64;
	l = mklink(&p);
	for (uint32_t i = 0; i < 50000 || sst_simlink_count(l) > 0; i++) {
		sst_time_t t = (sst_time_t)i * 20 * US;
		uint16_t k;

		if (i < 50000) {
			struct rte_mbuf *m = sim_pkt(pool, 64 + (i * 37) % 1300, i);

			if (i % 5 == 0)
				rte_mbuf_refcnt_update(m, 1); /* shared now and then */
			if (sst_simlink_enqueue(l, m, t) != SST_SIMLINK_QUEUED)
				rte_pktmbuf_free(m);
			if (i % 5 == 0)
				rte_pktmbuf_free(m);
		}
		k = sst_simlink_dequeue(l, t, out, RTE_DIM(out));
		free_all(out, k);
	}
	sst_simlink_stats_get(l, &st);
	CU_ASSERT_EQUAL(st.sent + st.duplicated, st.delivered + st.dropped_mtu + st.dropped_queue +
							 st.dropped_loss + st.dropped_full +
							 st.dropped_nomem);
	CU_ASSERT(st.dropped_mtu > 0 && st.dropped_queue > 0 && st.dropped_loss > 0);
	CU_ASSERT(st.duplicated > 0 && st.corrupted > 0 && st.reordered > 0);
	sst_simlink_destroy(l);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), before);
}

/* One sequence of bursts offered to two links of the same parameters, to
 * one a burst at a time (sst_simlink_enqueue_burst()) and to the other a
 * packet at a time: the same verdicts, counters, and deliveries (which
 * packet, when), including MTU and capacity drops in the burst path's
 * fast case (nothing to draw, no rate) and the random impairments. */
static void
burst_as_singles(const struct sst_simlink_params *p)
{
	struct sst_simlink *a = mklink(p), *b = mklink(p);
	struct sst_simlink_stats sa, sb;
	struct rte_mbuf *in_a[40], *in_b[40], *out_a[64], *out_b[64];
	enum sst_simlink_verdict va[40];
	uint32_t seq = 0, bad = 0;
	unsigned int before = rte_mempool_avail_count(pool);

	for (uint32_t round = 0; round < 400 || sst_simlink_count(b) > 0; round++) {
		sst_time_t t = (sst_time_t)round * 30 * US;
		uint16_t n = round < 400 ? (uint16_t)(round * 7 % 41) : 0, ka, kb;

		for (uint16_t i = 0; i < n; i++, seq++) {
			uint32_t len = 64 + seq * 53 % 1400;

			in_a[i] = sim_pkt(pool, len, seq);
			in_b[i] = sim_pkt(pool, len, seq);
		}
		sst_simlink_enqueue_burst(a, in_a, n, t, va);
		for (uint16_t i = 0; i < n; i++) {
			enum sst_simlink_verdict vb = sst_simlink_enqueue(b, in_b[i], t);

			bad += va[i] != vb;
			if (va[i] != SST_SIMLINK_QUEUED)
				rte_pktmbuf_free(in_a[i]);
			if (vb != SST_SIMLINK_QUEUED)
				rte_pktmbuf_free(in_b[i]);
		}
		bad += sst_simlink_next_delivery(a) != sst_simlink_next_delivery(b);
		/* Half a burst a turn: the links hold packets across bursts. */
		ka = sst_simlink_dequeue(a, t, out_a, 20);
		kb = sst_simlink_dequeue(b, t, out_b, 20);
		bad += ka != kb;
		for (uint16_t i = 0; i < ka && i < kb; i++)
			bad += sim_pkt_seq(out_a[i]) != sim_pkt_seq(out_b[i]) ||
			       rte_pktmbuf_pkt_len(out_a[i]) != rte_pktmbuf_pkt_len(out_b[i]);
		free_all(out_a, ka);
		free_all(out_b, kb);
		if (round > 10000)
			break;
	}
	sst_simlink_stats_get(a, &sa);
	sst_simlink_stats_get(b, &sb);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(memcmp(&sa, &sb, sizeof(sa)), 0);
	CU_ASSERT(sa.sent > 5000);
	CU_ASSERT_EQUAL(sst_simlink_count(a), 0);
	sst_simlink_destroy(a);
	sst_simlink_destroy(b);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), before);
}

static void
test_burst_as_singles(void)
{
	struct sst_simlink_params p;

	/* The fast case, with the drops it still makes. */
	sst_simlink_params_default(&p);
	p.mtu = 1200;
	p.capacity = 48;
	burst_as_singles(&p);
	/* A rate, and every impairment: packet by packet. */
	impaired_params(&p, 7, 0.05);
	burst_as_singles(&p);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_params),
	SST_TEST(test_perfect_link),
	SST_TEST(test_propagation_delay),
	SST_TEST(test_serialization_and_tail_drop),
	SST_TEST(test_mtu_and_capacity),
	SST_TEST(test_random_loss_rate),
	SST_TEST(test_gilbert_elliott),
	SST_TEST(test_duplication),
	SST_TEST(test_corruption),
	SST_TEST(test_corruption_shared_mbuf),
	SST_TEST(test_jitter),
	SST_TEST(test_reordering),
	SST_TEST(test_seed_determinism),
	SST_TEST(test_accounting),
	SST_TEST(test_burst_as_singles),
	SST_TEST_END,
};

int
main(void)
{
	return sst_test_main_with_pool("test_sim_link", "sim_link", 8192, 2048, &pool, cases);
}
