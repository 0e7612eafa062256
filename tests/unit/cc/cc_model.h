/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small deterministic sender for the congestion-controller tests: one
 * flow over a path with a fixed round-trip time and no bottleneck queue,
 * clocked by acks. Every packet is mss bytes and is acked exactly one RTT
 * after it left, in sequence order; packets chosen by the test are dropped
 * instead and declared lost once a packet three sequence numbers above them
 * is acked (the channel's 3-packet rule) or, failing that, once 9/8 RTT
 * passed since they left (the time threshold, which covers a window whose
 * last packets were all dropped). After each ack the sender sends
 * as many packets as cwnd allows, so all packets of one window leave (and
 * are acked) at the same instant and the model advances one RTT per round.
 * The sender always has data; a round may be marked application-limited.
 * With a bottleneck rate set (model.rate), each packet's RTT sample also
 * carries the queueing delay of what was in flight beyond the path's
 * bandwidth-delay product when it left (the round's clock does not change:
 * it is there for controllers that read delay, such as HyStart).
 */
#ifndef CC_MODEL_H
#define CC_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sst_cc.h"
#include "sst_test.h"

#define MODEL_QUEUE 65536 /* packets in flight at most; a power of two */
#define MODEL_DROPS 64	  /* drops pending detection at most */

struct model_pkt {
	uint64_t seq;
	sst_time_t sent;
	sst_time_t qdelay; /* queueing delay its RTT sample reports */
};

struct model {
	struct sst_cc cc;
	sst_time_t rtt;
	sst_time_t now;
	uint64_t next_seq; /* the first packet is number 1 */
	uint64_t flight;   /* bytes */
	bool app_limited;  /* mark the acks of the next rounds application-limited */
	uint64_t rate;	   /* bottleneck bytes per second for RTT samples (0: none) */
	sst_time_t srtt;   /* the smoothed RTT the acks report (0: rtt) */
	/* Packets in flight that will be acked, in sequence order. */
	struct model_pkt q[MODEL_QUEUE];
	uint32_t head, tail;
	/* Packets the path dropped, not yet declared lost, and when they left. */
	uint64_t pending[MODEL_DROPS];
	sst_time_t pending_sent[MODEL_DROPS];
	unsigned int npending;
	/* Sequence numbers the test wants dropped (sorted or not). */
	uint64_t drop[MODEL_DROPS];
	unsigned int ndrop;
	/* What happened. */
	unsigned int losses;	 /* on_loss events */
	unsigned int reductions; /* losses after which cwnd was smaller */
	uint64_t min_cwnd;	 /* smallest cwnd seen after any event */
	uint64_t loss_cwnd;	 /* cwnd just before the last loss that reduced it */
	uint64_t loss_flight;	 /* flight passed with that loss */
	sst_time_t loss_time;	 /* when it happened */
};

static inline void
model_note_cwnd(struct model *m)
{
	if (m->cc.cwnd < m->min_cwnd)
		m->min_cwnd = m->cc.cwnd;
}

/* The smoothed RTT the acks report. */
static inline sst_time_t
model_srtt(const struct model *m)
{
	return m->srtt != 0 ? m->srtt : m->rtt;
}

/* What a packet leaving now waits behind at the bottleneck. */
static inline sst_time_t
model_qdelay(const struct model *m)
{
	uint64_t bdp, ahead = m->flight + m->cc.mss;

	if (m->rate == 0)
		return 0;
	bdp = m->rate * m->rtt / SST_NSEC_PER_SEC;
	return ahead > bdp ? (ahead - bdp) * SST_NSEC_PER_SEC / m->rate : 0;
}

static inline void
model_send_allowed(struct model *m)
{
	uint32_t mss = m->cc.mss;

	while (m->flight + mss <= m->cc.cwnd) {
		struct sst_cc_sent_event ev = {
			.now = m->now,
			.seq = m->next_seq,
			.bytes = mss,
			.bytes_in_flight = m->flight + mss,
		};
		bool dropped = false;

		for (unsigned int i = 0; i < m->ndrop; i++)
			if (m->drop[i] == m->next_seq)
				dropped = true;
		if (dropped) {
			if (m->npending == MODEL_DROPS) {
				fprintf(stderr, "model: too many pending drops\n");
				CU_FAIL_FATAL("model overflow");
			}
			m->pending_sent[m->npending] = m->now;
			m->pending[m->npending++] = m->next_seq;
		} else {
			if (m->tail - m->head == MODEL_QUEUE) {
				fprintf(stderr, "model: queue full\n");
				CU_FAIL_FATAL("model overflow");
			}
			m->q[m->tail++ % MODEL_QUEUE] = (struct model_pkt){
				.seq = m->next_seq, .sent = m->now, .qdelay = model_qdelay(m)};
		}
		m->flight += mss;
		m->next_seq++;
		sst_cc_on_sent(&m->cc, &ev);
	}
}

/* Declare a dropped packet lost. */
static inline void
model_lose(struct model *m, uint64_t seq)
{
	uint64_t before = m->cc.cwnd;
	struct sst_cc_loss_event ev;

	m->flight -= m->cc.mss;
	ev = (struct sst_cc_loss_event){
		.now = m->now,
		.seq = seq,
		.bytes = m->cc.mss,
		.largest_sent = m->next_seq - 1,
		.bytes_in_flight = m->flight,
	};
	sst_cc_on_loss(&m->cc, &ev);
	m->losses++;
	if (m->cc.cwnd < before) {
		m->reductions++;
		m->loss_cwnd = before;
		m->loss_flight = m->flight;
		m->loss_time = m->now;
	}
	model_note_cwnd(m);
}

/*
 * The 3-packet rule (drops three or more below the acked packet are lost)
 * and the time threshold (drops older than 9/8 RTT are lost).
 */
static inline void
model_detect(struct model *m, uint64_t acked)
{
	unsigned int i = 0;

	while (i < m->npending) {
		if (m->pending[i] + 3 <= acked ||
			m->pending_sent[i] + m->rtt + m->rtt / 8 <= m->now) {
			uint64_t seq = m->pending[i];

			m->npending--;
			m->pending[i] = m->pending[m->npending];
			m->pending_sent[i] = m->pending_sent[m->npending];
			model_lose(m, seq);
		} else {
			i++;
		}
	}
}

static inline void
model_init(struct model *m, const char *name, uint32_t mss, sst_time_t rtt)
{
	const struct sst_cc_ops *ops = sst_cc_find(name);

	memset(m, 0, sizeof(*m));
	CU_ASSERT_PTR_NOT_NULL_FATAL(ops);
	CU_ASSERT_EQUAL_FATAL(sst_cc_init(&m->cc, ops, mss, 0), 0);
	m->rtt = rtt;
	m->next_seq = 1;
	m->min_cwnd = UINT64_MAX;
}

/* Send the first window (after the test has adjusted cwnd/ssthresh if it wants). */
static inline void
model_start(struct model *m)
{
	model_send_allowed(m);
}

/* Drop the packet with this sequence number when it is sent. */
static inline void
model_drop(struct model *m, uint64_t seq)
{
	if (m->ndrop < MODEL_DROPS)
		m->drop[m->ndrop++] = seq;
}

/* One round trip: ack everything sent one RTT ago, sending as acks arrive. */
static inline void
model_round(struct model *m)
{
	m->now += m->rtt;
	while (m->head != m->tail && m->q[m->head % MODEL_QUEUE].sent + m->rtt <= m->now) {
		struct model_pkt pkt = m->q[m->head++ % MODEL_QUEUE];
		uint64_t seq = pkt.seq;
		struct sst_cc_ack_event ev;

		m->flight -= m->cc.mss;
		ev = (struct sst_cc_ack_event){
			.now = m->now,
			.largest_acked = seq,
			.acked_bytes = m->cc.mss,
			.acked_packets = 1,
			.bytes_in_flight = m->flight,
			.rtt_sample = m->rtt + pkt.qdelay,
			.srtt = model_srtt(m),
			.min_rtt = m->rtt,
			.app_limited = m->app_limited,
		};
		sst_cc_on_ack(&m->cc, &ev);
		model_note_cwnd(m);
		model_detect(m, seq);
		model_send_allowed(m);
	}
	model_detect(m, 0);
	model_send_allowed(m);
}

/*
 * The retransmission timer fires now: the controller hears on_rto, then the
 * channel declares everything outstanding lost, then sends what cwnd allows.
 */
static inline void
model_rto(struct model *m)
{
	struct sst_cc_rto_event ev = {
		.now = m->now,
		.largest_sent = m->next_seq - 1,
		.bytes_in_flight = m->flight,
	};

	sst_cc_on_rto(&m->cc, &ev);
	model_note_cwnd(m);
	while (m->head != m->tail)
		model_lose(m, m->q[m->head++ % MODEL_QUEUE].seq);
	while (m->npending > 0)
		model_lose(m, m->pending[--m->npending]);
	model_send_allowed(m);
}

/* Rounds until the controller leaves recovery (at most limit). */
static inline unsigned int
model_finish_recovery(struct model *m, unsigned int limit)
{
	unsigned int n = 0;

	while (m->cc.in_recovery && n < limit) {
		model_round(m);
		n++;
	}
	return n;
}

/*
 * A timeout before any RTT sample (the flow's first packets lost, e.g.
 * behind a queue another flow keeps full) measured nothing of the path:
 * one packet of window, and ssthresh stays so that slow start finds the
 * window. With a sample, the timeout sets ssthresh as usual. Shared by the
 * native controllers' tests.
 */
static inline void
model_check_rto_before_first_sample(const char *name, uint32_t mss)
{
	struct sst_cc cc;
	struct sst_cc_rto_event ev = {
		.now = SST_NSEC_PER_SEC,
		.largest_sent = 11,
		.bytes_in_flight = 10 * (uint64_t)mss,
		.no_rtt_sample = true,
	};

	CU_ASSERT_EQUAL_FATAL(sst_cc_init(&cc, sst_cc_find(name), mss, 0), 0);
	sst_cc_on_rto(&cc, &ev);
	CU_ASSERT_EQUAL(cc.cwnd, mss);
	CU_ASSERT_EQUAL(cc.ssthresh, UINT64_MAX);
	CU_ASSERT_EQUAL(cc.recovery_seq, 11);
	CU_ASSERT_TRUE(sst_cc_in_slow_start(&cc));
	ev.no_rtt_sample = false;
	ev.largest_sent = 20;
	sst_cc_on_rto(&cc, &ev);
	CU_ASSERT_EQUAL(cc.cwnd, mss);
	CU_ASSERT(cc.ssthresh < 10 * (uint64_t)mss);
	CU_ASSERT(cc.ssthresh >= 2 * (uint64_t)mss);
}

/*
 * Sending resumes after idle (RFC 5681 section 4.1): a window above the
 * initial window restarts from it, ssthresh keeps at least 3/4 of the old
 * window (RFC 2861), so slow start climbs back; a window at or below the
 * initial window is left alone. Shared by the native controllers' tests
 * (test_cc_bpf compares NewReno in eBPF with native NewReno on the same).
 */
static inline void
model_check_restart_after_idle(const char *name, uint32_t mss)
{
	struct model *m = calloc(1, sizeof(*m));
	uint64_t iw = sst_cc_initial_window(mss);
	struct sst_cc_idle_event ev = {
		.idle = 3 * SST_NSEC_PER_SEC,
		.rto = SST_NSEC_PER_SEC,
		.srtt = 100 * SST_NSEC_PER_MSEC,
	};

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	model_init(m, name, mss, 100 * SST_NSEC_PER_MSEC);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m->cc.ops->on_idle);
	m->cc.ssthresh = 30 * (uint64_t)mss;
	model_start(m);
	for (int r = 0; r < 5; r++)
		model_round(m); /* slow start, then avoidance above 30 packets */
	/* The application stops: the rest is acked, application-limited. */
	m->now += m->rtt;
	while (m->head != m->tail) {
		struct sst_cc_ack_event ack = {
			.now = m->now,
			.largest_acked = m->q[m->head++ % MODEL_QUEUE].seq,
			.acked_bytes = mss,
			.acked_packets = 1,
			.bytes_in_flight = m->flight -= mss,
			.rtt_sample = m->rtt,
			.srtt = model_srtt(m),
			.min_rtt = m->rtt,
			.app_limited = true,
		};

		sst_cc_on_ack(&m->cc, &ack);
	}
	CU_ASSERT(m->cc.cwnd > 30 * (uint64_t)mss);
	{
		uint64_t before = m->cc.cwnd;

		m->now += ev.idle;
		ev.now = m->now;
		uint64_t keep = before - before / 4;

		sst_cc_on_idle(&m->cc, &ev);
		CU_ASSERT_EQUAL(m->cc.cwnd, iw);
		CU_ASSERT_EQUAL(
			m->cc.ssthresh, keep > 30 * (uint64_t)mss ? keep : 30 * (uint64_t)mss);
		/* Far above an old ssthresh: 3/4 of the window is kept. */
		m->cc.cwnd = 80 * (uint64_t)mss;
		m->cc.ssthresh = 2 * (uint64_t)mss;
		sst_cc_on_idle(&m->cc, &ev);
		CU_ASSERT_EQUAL(m->cc.cwnd, iw);
		CU_ASSERT_EQUAL(m->cc.ssthresh, 60 * (uint64_t)mss);
	}
	/* At the initial window: nothing to restart. */
	sst_cc_on_idle(&m->cc, &ev);
	CU_ASSERT_EQUAL(m->cc.cwnd, iw);
	/* Slow start again, up to the kept ssthresh. */
	model_start(m);
	model_round(m);
	CU_ASSERT_EQUAL(m->cc.cwnd, 2 * iw);
	/* A window below the initial one (after a timeout) stays. */
	m->cc.cwnd = mss;
	m->cc.ssthresh = 4 * (uint64_t)mss;
	sst_cc_on_idle(&m->cc, &ev);
	CU_ASSERT_EQUAL(m->cc.cwnd, mss);
	CU_ASSERT_EQUAL(m->cc.ssthresh, 4 * (uint64_t)mss);
	free(m);
}

#endif /* CC_MODEL_H */
