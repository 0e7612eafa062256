/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The channel object end to end, in process: two channels joined by a
 * hand-driven "wire" that the test can drop, duplicate, reorder and tamper
 * with, and virtual time. Also checks that a channel speaks exactly the
 * prototype's bytes (chk-01 of the prototype captures).
 */
#include <string.h>

#include <rte_mbuf.h>

#include "channel_pair.h"
#include "sst_test_eal.h"

/* The exact bytes of the prototype's chk-01 session, client side: seq 1 and
 * 2 with ack 0/0, then after the server's packets 1-2 an Ack with 2/2. */
static void
test_prototype_bytes(void)
{
	static const char *const client_hex[] = {
		"010000010000000000011610000000000000010100000007696e7465726f7000000000046563686f"
		"debe8592",
		"0100000200000000000114100000001848656c6c6f2066726f6d207468652053535420323030372070"
		"726f746f7479706520696e7465726f7020636c69656e7421592b3d6a",
	};
	static const char *const server_hex[] = {
		"010000010100000100012610000100000000020100000000068ce740",
		"0100000201000001000124100001000848656c6c6f2066726f6d207468652053535420323030372070"
		"726f746f7479706520696e7465726f7020636c69656e7421aa7b2c24",
	};
	static const char ack_hex[] = "010000030200000200015010f371327b";
	struct sst_channel_params p;
	struct end c;
	uint8_t buf[128], out[128];
	size_t len;

	memset(&c, 0, sizeof(c));
	params_for(&p, &c, SST_CRYPTO_CHK32, 0xc21c5f62, 0x35d53d2a);
	c.ch = sst_channel_create(&p, 0);
	CU_ASSERT_FATAL(c.ch != NULL);
	for (int i = 0; i < 2; i++) {
		struct rte_mbuf *m;

		len = sst_test_hex(client_hex[i], buf, sizeof(buf));
		/* Hand the channel only the stream part; it must rebuild the rest. */
		m = make_packet(buf + 8, (uint32_t)(len - 8 - 4));
		CU_ASSERT_EQUAL(sst_channel_send(c.ch, &m, NULL, 1, true, 1000, NULL), 1);
		CU_ASSERT_FATAL(c.nwire == 1);
		CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(c.wire[0]), len);
		CU_ASSERT_EQUAL(
			memcmp(rte_pktmbuf_read(c.wire[0], 0, (uint32_t)len, out), buf, len), 0);
		wire_discard(&c);
	}
	for (int i = 0; i < 2; i++) {
		struct rte_mbuf *m;

		len = sst_test_hex(server_hex[i], buf, sizeof(buf));
		m = make_packet(buf, (uint32_t)len);
		CU_ASSERT_EQUAL(sst_channel_receive(c.ch, &m, 1, 2000), 1);
	}
	CU_ASSERT_EQUAL(c.nreceived, 2);
	CU_ASSERT_EQUAL(c.acked, 1); /* the server acked our packet 1 (ack 1/1) */
	/* The ack owed for two data packets goes out as the capture's Ack. */
	c.auto_ack = true;
	CU_ASSERT_TRUE(sst_channel_next_expiry(c.ch) <= 2000);
	sst_channel_handle_expiry(c.ch, 2000);
	CU_ASSERT_FATAL(c.nwire == 1);
	len = sst_test_hex(ack_hex, buf, sizeof(buf));
	CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(c.wire[0]), len);
	CU_ASSERT_EQUAL(memcmp(rte_pktmbuf_read(c.wire[0], 0, (uint32_t)len, out), buf, len), 0);
	wire_discard(&c);
	sst_channel_destroy(c.ch);
}

static void
test_exchange_all_acked(void)
{
	struct end a, b;
	sst_time_t now;

	pair_setup(&a, &b, SST_CRYPTO_CHK32, 0);
	send_data(&a, 20, 1000);
	CU_ASSERT_EQUAL(deliver(&a, &b, 2000, -1), 20);
	CU_ASSERT_EQUAL(b.nreceived, 20);
	CU_ASSERT_EQUAL(b.last_len, 100);
	now = settle(&a, &b, 2000, 100 * SST_NSEC_PER_MSEC);
	CU_ASSERT_EQUAL(a.acked, 20);
	CU_ASSERT_EQUAL(a.lost, 0);
	CU_ASSERT_EQUAL(b.nreceived - sst_channel_stats(b.ch)->rx_packets, 0);
	CU_ASSERT_EQUAL(sst_channel_stats(a.ch)->rx_bad_trailer, 0);
	CU_ASSERT_TRUE(now < 20 * SST_NSEC_PER_MSEC);
	check_exactly_once(&a);
	pair_teardown(&a, &b);
}

/*
 * A window the sender does not use does not grow (RFC 7661): a packet a
 * round trip for 50 round trips leaves slow start's window where it was,
 * where each ack used to add its bytes (channel_rx.c, ack_app_limited()).
 * Half the window in flight is using it: those acks grow it.
 */
static void
test_app_limited_no_growth(void)
{
	struct sst_channel_info info;
	struct end a, b;
	sst_time_t now = 1000;
	uint64_t initial;

	pair_setup(&a, &b, SST_CRYPTO_CHK32, 0);
	sst_channel_info(a.ch, &info);
	initial = info.cwnd;
	for (int round = 0; round < 50; round++) {
		send_data(&a, 1, now);
		deliver(&a, &b, now + SST_NSEC_PER_MSEC, -1);
		now = settle(&a, &b, now + SST_NSEC_PER_MSEC, now + 200 * SST_NSEC_PER_MSEC);
		now += 10 * SST_NSEC_PER_MSEC;
	}
	CU_ASSERT_EQUAL(a.acked, 50);
	sst_channel_info(a.ch, &info);
	CU_ASSERT_EQUAL(info.cwnd, initial);
	while (2 * info.bytes_in_flight < info.cwnd) {
		send_data(&a, 8, now);
		sst_channel_info(a.ch, &info);
	}
	deliver(&a, &b, now + SST_NSEC_PER_MSEC, -1);
	settle(&a, &b, now + SST_NSEC_PER_MSEC, now + 200 * SST_NSEC_PER_MSEC);
	sst_channel_info(a.ch, &info);
	CU_ASSERT_EQUAL(info.bytes_in_flight, 0);
	CU_ASSERT(info.cwnd > initial);
	pair_teardown(&a, &b);
}

static void
test_loss_reported_once(void)
{
	struct end a, b;

	pair_setup(&a, &b, SST_CRYPTO_CHK32, 0);
	send_data(&a, 10, 1000);
	CU_ASSERT_EQUAL(deliver(&a, &b, 2000, 3), 9); /* seq 4 vanishes */
	settle(&a, &b, 2000, 5 * SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL(a.acked, 9);
	CU_ASSERT_EQUAL(a.lost, 1);
	CU_ASSERT_EQUAL(a.outcome[4], 2);
	check_exactly_once(&a);
	pair_teardown(&a, &b);
}

/*
 * The packets of one send burst carry one ack word, and the receiver applies
 * it once (channel_rx.c). The same word arriving later must be applied
 * again: loss detection's time threshold may have passed meanwhile. A sends
 * 1 and 2, 1 vanishes; B answers with three packets acking 2. At 1 ms the
 * first of them acks 2 and 1 is not lost yet (1 packet behind, 1 ms old);
 * 10 s later the second one, with the same word, finds 1 lost by time; the
 * third, the same word at the same time, changes nothing.
 */
static void
test_same_ack_word_later(void)
{
	sst_time_t t0 = SST_NSEC_PER_SEC, t1 = t0 + SST_NSEC_PER_MSEC,
		   t2 = t1 + 10 * SST_NSEC_PER_SEC;
	struct end a, b;

	pair_setup(&a, &b, SST_CRYPTO_CHK32, 0);
	a.auto_ack = b.auto_ack = false;
	send_data(&a, 2, t0);
	CU_ASSERT_EQUAL(deliver(&a, &b, t0, 0), 1); /* seq 1 vanishes */
	send_data(&b, 3, t1);
	CU_ASSERT_FATAL(b.nwire == 3);
	CU_ASSERT_EQUAL(sst_channel_receive(a.ch, &b.wire[0], 1, t1), 1);
	CU_ASSERT_EQUAL(a.acked, 1);
	CU_ASSERT_EQUAL(a.outcome[2], 1);
	CU_ASSERT_EQUAL(a.lost, 0);
	CU_ASSERT_EQUAL(sst_channel_receive(a.ch, &b.wire[1], 1, t2), 1);
	CU_ASSERT_EQUAL(a.lost, 1);
	CU_ASSERT_EQUAL(a.outcome[1], 2);
	CU_ASSERT_EQUAL(sst_channel_receive(a.ch, &b.wire[2], 1, t2), 1);
	CU_ASSERT_EQUAL(a.acked, 1);
	CU_ASSERT_EQUAL(a.lost, 1);
	b.nwire = 0;
	check_exactly_once(&a);
	pair_teardown(&a, &b);
}

/* What telemetry shows of a channel: after the first RTT sample, RTTVAR is
 * half of it (RFC 6298 2.2); resent packets are those the upper layer
 * reports, each with its bytes, in the info and the counters alike. */
static void
test_info_rttvar_and_resent(void)
{
	struct sst_channel_info info;
	struct end a, b;

	pair_setup(&a, &b, SST_CRYPTO_CHK32, 0);
	sst_channel_info(a.ch, &info);
	CU_ASSERT_EQUAL(info.rttvar, 0);
	CU_ASSERT_EQUAL(info.resent_packets, 0);
	send_data(&a, 1, 1000);
	settle(&a, &b, 1000, 100 * SST_NSEC_PER_MSEC);
	CU_ASSERT_EQUAL(a.acked, 1);
	sst_channel_info(a.ch, &info);
	CU_ASSERT_TRUE(info.srtt > 0);
	CU_ASSERT_EQUAL(info.rttvar, info.srtt / 2);
	sst_channel_count_resent(a.ch, 100);
	sst_channel_count_resent(a.ch, 7);
	sst_channel_info(a.ch, &info);
	CU_ASSERT_EQUAL(info.resent_packets, 2);
	CU_ASSERT_EQUAL(info.resent_bytes, 107);
	CU_ASSERT_EQUAL(sst_channel_stats(a.ch)->tx_resent_packets, 2);
	CU_ASSERT_EQUAL(sst_channel_stats(a.ch)->tx_resent_bytes, 107);
	sst_channel_info(b.ch, &info);
	CU_ASSERT_EQUAL(info.resent_packets, 0);
	pair_teardown(&a, &b);
}

/* What the trace saw (test_trace). */
struct trace_log {
	unsigned int n[SST_CHANNEL_TRACE_RTO + 1];
	struct sst_channel_trace last[SST_CHANNEL_TRACE_RTO + 1];
	sst_time_t prev_now;
	bool time_went_back;
};

static void
trace_record(void *ctx, const struct sst_channel_trace *t)
{
	struct trace_log *l = ctx;

	CU_ASSERT_FATAL(t->kind >= SST_CHANNEL_TRACE_RTT && t->kind <= SST_CHANNEL_TRACE_RTO);
	l->n[t->kind]++;
	l->last[t->kind] = *t;
	l->time_went_back |= t->now < l->prev_now;
	l->prev_now = t->now;
}

/* A traced channel reports its RTT samples, window changes, losses and
 * timeouts with the times it was given; an untraced one (the peer) and
 * one whose trace was turned off report nothing. */
static void
test_trace(void)
{
	struct trace_log la, lb;
	struct sst_channel_info info;
	struct end a, b;
	sst_time_t now;

	memset(&la, 0, sizeof(la));
	memset(&lb, 0, sizeof(lb));
	pair_setup(&a, &b, SST_CRYPTO_CHK32, 0);
	sst_channel_set_trace(a.ch, trace_record, &la);
	send_data(&a, 10, 1000);
	CU_ASSERT_EQUAL(deliver(&a, &b, 2000, 3), 9); /* seq 4 vanishes */
	now = settle(&a, &b, 2000, 5 * SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL(a.lost, 1);
	CU_ASSERT_TRUE(la.n[SST_CHANNEL_TRACE_RTT] >= 1);
	CU_ASSERT_EQUAL(la.n[SST_CHANNEL_TRACE_LOSS], 1);
	CU_ASSERT_EQUAL(la.last[SST_CHANNEL_TRACE_LOSS].v[0], 4);
	CU_ASSERT_TRUE(la.last[SST_CHANNEL_TRACE_LOSS].v[1] > 0);
	CU_ASSERT_TRUE(la.n[SST_CHANNEL_TRACE_CWND] >= 1);
	CU_ASSERT_FALSE(la.time_went_back);
	CU_ASSERT_TRUE(la.prev_now >= 2000 && la.prev_now <= now);
	sst_channel_info(a.ch, &info);
	CU_ASSERT_EQUAL(la.last[SST_CHANNEL_TRACE_RTT].v[1], info.srtt);
	CU_ASSERT_EQUAL(la.last[SST_CHANNEL_TRACE_RTT].v[2], info.rttvar);
	CU_ASSERT_EQUAL(la.last[SST_CHANNEL_TRACE_CWND].v[0], info.cwnd);
	CU_ASSERT_EQUAL(la.last[SST_CHANNEL_TRACE_CWND].v[1], info.ssthresh);
	/* A timeout: nothing acknowledged. */
	send_data(&a, 2, now);
	wire_discard(&a);
	now = sst_channel_next_expiry(a.ch);
	sst_channel_handle_expiry(a.ch, now);
	CU_ASSERT_EQUAL(la.n[SST_CHANNEL_TRACE_RTO], 1);
	CU_ASSERT_EQUAL(la.last[SST_CHANNEL_TRACE_RTO].now, now);
	sst_channel_info(a.ch, &info);
	CU_ASSERT_EQUAL(la.last[SST_CHANNEL_TRACE_RTO].v[0], info.rto);
	/* Off: nothing more. */
	sst_channel_set_trace(a.ch, NULL, NULL);
	memset(&la, 0, sizeof(la));
	send_data(&a, 3, now);
	settle(&a, &b, now, now + 5 * SST_NSEC_PER_SEC);
	for (int k = 0; k <= SST_CHANNEL_TRACE_RTO; k++)
		CU_ASSERT_EQUAL(la.n[k], 0);
	pair_teardown(&a, &b);
}

/* A packet the upper layer refuses is never acknowledged: the sender sees
 * it lost, and a copy arriving later is accepted as new. */
static void
test_refused_not_acked(void)
{
	struct end a, b;
	struct rte_mbuf *copy;

	pair_setup(&a, &b, SST_CRYPTO_CHK32, 0);
	b.refuse_seq = 5;
	send_data(&a, 10, 1000);
	copy = rte_pktmbuf_copy(a.wire[4], pool, 0, UINT32_MAX);
	CU_ASSERT_FATAL(copy != NULL);
	CU_ASSERT_EQUAL(deliver(&a, &b, 2000, -1), 10);
	CU_ASSERT_EQUAL(sst_channel_stats(b.ch)->rx_refused, 1);
	CU_ASSERT_EQUAL(sst_channel_stats(b.ch)->rx_packets, 9);
	settle(&a, &b, 2000, 5 * SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL(a.acked, 9);
	CU_ASSERT_EQUAL(a.lost, 1);
	CU_ASSERT_EQUAL(a.outcome[5], 2);
	/* Not in the replay window: the same packet is taken when it comes again. */
	CU_ASSERT_EQUAL(sst_channel_receive(b.ch, &copy, 1, 3000), 1);
	CU_ASSERT_EQUAL(sst_channel_stats(b.ch)->rx_packets, 10);
	check_exactly_once(&a);
	pair_teardown(&a, &b);
}

/* Runs sent with sst_channel_send_contiguous() get consecutive numbers
 * although the skip schedule wants a number inside many of them. */
static void
test_contiguous_runs(void)
{
	struct end a, b;
	uint64_t skipped_before, moved = 0;

	pair_setup(&a, &b, SST_CRYPTO_CHK32, 0x5eed);
	for (int run = 0; run < 200; run++) {
		struct rte_mbuf *pkts[8];
		uint64_t seqs[8];
		uint8_t payload[40] = {0x00, 0x01, 0x43, 0x10};

		for (int i = 0; i < 8; i++)
			pkts[i] = make_packet(payload, sizeof(payload));
		skipped_before = sst_channel_stats(a.ch)->tx_skipped;
		CU_ASSERT_EQUAL_FATAL(
			sst_channel_send_contiguous(a.ch, pkts, NULL, 8, 1000, seqs), 8);
		for (int i = 1; i < 8; i++)
			CU_ASSERT_EQUAL(seqs[i], seqs[0] + 1 + (uint64_t)i - 1);
		moved += sst_channel_stats(a.ch)->tx_skipped != skipped_before;
		deliver(&a, &b, 2000, -1);
		settle(&a, &b, 2000, 10 * SST_NSEC_PER_MSEC);
	}
	/* Numbers are still skipped, between runs. */
	CU_ASSERT(sst_channel_stats(a.ch)->tx_skipped > 0);
	CU_ASSERT(moved > 0);
	check_exactly_once(&a);
	pair_teardown(&a, &b);
}

/* Two gaps before B acks (A's 4, 8 lost): whichever of B's acks but 10/1 is
 * lost, A loses only 4 and 8 (7/2 went out once: the repeat was taken). */
static void
test_two_gaps_one_ack(void)
{
	/* Not 10/1, which alone acknowledges 9 and 10. */
	for (unsigned int drop = 0, nacks = 2; drop + 1 < nacks; drop++) {
		struct end a, b;

		pair_setup(&a, &b, SST_CRYPTO_CHK32, 0);
		send_data(&a, 10, 1000);
		rte_pktmbuf_free_bulk(&a.wire[3], 1);
		rte_pktmbuf_free_bulk(&a.wire[7], 1);
		memmove(&a.wire[3], &a.wire[4], 3 * sizeof(a.wire[0]));
		memmove(&a.wire[6], &a.wire[8], 2 * sizeof(a.wire[0]));
		a.nwire = 8;
		CU_ASSERT_EQUAL(deliver(&a, &b, 2000, -1), 8);
		sst_channel_handle_expiry(b.ch, 2000); /* pays the rest */
		nacks = b.nwire;
		deliver(&b, &a, 3000, (int)drop);
		settle(&a, &b, 3000, 5 * SST_NSEC_PER_SEC);
		for (uint64_t s = 1; s <= 10; s++)
			CU_ASSERT_EQUAL(a.outcome[s], s == 4 || s == 8 ? 2 : 1);
		pair_teardown(&a, &b);
	}
}

static void
test_replay_and_tamper(void)
{
	struct end a, b;
	struct rte_mbuf *copy, *bad;
	uint8_t *p;

	pair_setup(&a, &b, SST_CRYPTO_CHK32, 0);
	send_data(&a, 2, 1000);
	copy = rte_pktmbuf_copy(a.wire[0], pool, 0, UINT32_MAX);
	bad = rte_pktmbuf_copy(a.wire[1], pool, 0, UINT32_MAX);
	CU_ASSERT_FATAL(copy != NULL && bad != NULL);
	CU_ASSERT_EQUAL(deliver(&a, &b, 2000, 1), 1);
	CU_ASSERT_EQUAL(sst_channel_receive(b.ch, &copy, 1, 2000), 0);
	CU_ASSERT_EQUAL(sst_channel_stats(b.ch)->rx_duplicate, 1);
	p = rte_pktmbuf_mtod_offset(bad, uint8_t *, 20);
	*p ^= 0x01;
	CU_ASSERT_EQUAL(sst_channel_receive(b.ch, &bad, 1, 2000), 0);
	CU_ASSERT_EQUAL(sst_channel_stats(b.ch)->rx_bad_trailer, 1);
	CU_ASSERT_EQUAL(b.nreceived, 1);
	pair_teardown(&a, &b);
}

static void
test_too_old(void)
{
	struct end a, b;
	struct rte_mbuf *first;

	pair_setup(&a, &b, SST_CRYPTO_CHK32, 0);
	send_data(&a, 1, 1000);
	first = a.wire[0];
	a.nwire = 0;
	for (int i = 0; i < 2; i++) {
		send_data(&a, 20, 1000);
		deliver(&a, &b, 2000, -1);
	}
	/* 40 newer packets arrived: packet 1 is 40 behind a 32-packet window. */
	CU_ASSERT_EQUAL(sst_channel_receive(b.ch, &first, 1, 2000), 0);
	CU_ASSERT_EQUAL(sst_channel_stats(b.ch)->rx_too_old, 1);
	pair_teardown(&a, &b);
}

static void
test_ack_beyond_dropped(void)
{
	struct end a, b;
	struct rte_mbuf *m;
	uint8_t pkt[16];

	pair_setup(&a, &b, SST_CRYPTO_CHK32, 0);
	/* From "a": seq 1 acking b's packet 5, which b never sent. */
	memcpy(pkt, "\x01\x00\x00\x01\x00\x00\x00\x05\x00\x01\x50\x10", 12);
	CU_ASSERT_EQUAL(sst_chk32_seal(1, pkt, 12, sizeof(pkt), 0x11111111), 16);
	m = make_packet(pkt, 16);
	CU_ASSERT_EQUAL(sst_channel_receive(b.ch, &m, 1, 1000), 0);
	CU_ASSERT_EQUAL(sst_channel_stats(b.ch)->rx_ack_beyond, 1);
	/* The same packet acking 0 is fine. */
	pkt[7] = 0;
	CU_ASSERT_EQUAL(sst_chk32_seal(1, pkt, 12, sizeof(pkt), 0x11111111), 16);
	m = make_packet(pkt, 16);
	CU_ASSERT_EQUAL(sst_channel_receive(b.ch, &m, 1, 1000), 1);
	pair_teardown(&a, &b);
}

static void
test_optimistic_ack_fails_channel(void)
{
	struct end a, b;
	struct rte_mbuf *m;
	uint64_t skipped = 0;
	uint8_t pkt[16];

	pair_setup(&a, &b, SST_CRYPTO_CHK32, 0x5eed);
	for (int round = 0; round < 10 && skipped == 0; round++) {
		send_data(&a, 64, 1000);
		wire_discard(&a);
		skipped = sst_channel_stats(a.ch)->tx_skipped;
	}
	CU_ASSERT_FATAL(skipped > 0);
	/* An honest-looking ack word that covers the first skipped number:
	 * find it in the log. */
	for (uint64_t s = a.ch->txlog->oldest; s < a.ch->txlog->next_seq; s++) {
		if (a.ch->txlog->e[s & (a.ch->txlog->capacity - 1)].state == SST_TX_SKIPPED) {
			skipped = s;
			break;
		}
	}
	memcpy(pkt, "\x01\x00\x00\x01\x0f\x00\x00\x00\x00\x01\x50\x10", 12);
	pkt[5] = (uint8_t)((skipped + 5) >> 16);
	pkt[6] = (uint8_t)((skipped + 5) >> 8);
	pkt[7] = (uint8_t)(skipped + 5);
	CU_ASSERT_EQUAL(sst_chk32_seal(1, pkt, 12, sizeof(pkt), 0x22222222), 16);
	m = make_packet(pkt, 16);
	sst_channel_receive(a.ch, &m, 1, 2000);
	CU_ASSERT_TRUE(sst_channel_failed(a.ch));
	CU_ASSERT_EQUAL(a.failed_events, 1);
	CU_ASSERT_EQUAL(sst_channel_stats(a.ch)->optimistic_acks, 1);
	/* A failed channel sends nothing. */
	m = make_packet(sst_test_ack_only, sizeof(sst_test_ack_only));
	CU_ASSERT_EQUAL(sst_channel_send(a.ch, &m, NULL, 1, true, 3000, NULL), 0);
	pair_teardown(&a, &b);
}

static void
test_delayed_ack_timer(void)
{
	struct end a, b;

	pair_setup(&a, &b, SST_CRYPTO_CHK32, 0);
	b.auto_ack = false;
	send_data(&a, 1, 1000);
	deliver(&a, &b, 5000, -1);
	/* One data packet: the ack waits 10 ms. */
	CU_ASSERT_EQUAL(sst_channel_next_expiry(b.ch), 5000 + 10 * SST_NSEC_PER_MSEC);
	send_data(&a, 1, 6000);
	deliver(&a, &b, 7000, -1);
	/* A second one: due now. */
	CU_ASSERT_EQUAL(sst_channel_next_expiry(b.ch), 7000);
	sst_channel_handle_expiry(b.ch, 7000);
	CU_ASSERT_EQUAL(b.acks_due, 1);
	pair_teardown(&a, &b);
}

static void
test_rto_loses_everything_once(void)
{
	struct end a, b;
	sst_time_t rto;

	pair_setup(&a, &b, SST_CRYPTO_CHK32, 0);
	send_data(&a, 5, 1000);
	wire_discard(&a);
	rto = sst_channel_next_expiry(a.ch);
	CU_ASSERT_EQUAL(rto, 1000 + SST_NSEC_PER_SEC); /* RFC 6298 initial RTO */
	sst_channel_handle_expiry(a.ch, rto);
	CU_ASSERT_EQUAL(a.lost, 5);
	CU_ASSERT_EQUAL(sst_channel_stats(a.ch)->rto, 1);
	CU_ASSERT_EQUAL(sst_channel_next_expiry(a.ch), SST_TIME_NEVER);
	/* Backed off: the next timer is twice as long. */
	send_data(&a, 1, rto);
	wire_discard(&a);
	CU_ASSERT_EQUAL(sst_channel_next_expiry(a.ch), rto + 2 * SST_NSEC_PER_SEC);
	check_exactly_once(&a);
	pair_teardown(&a, &b);
}

static void
test_aead_exchange(void)
{
	static const enum sst_crypto_suite suites[] = {
		SST_CRYPTO_AES128GCM, SST_CRYPTO_CHACHA20POLY1305, SST_CRYPTO_NULL};

	for (unsigned int i = 0; i < RTE_DIM(suites); i++) {
		struct end a, b;

		pair_setup(&a, &b, suites[i], 0);
		send_data(&a, 8, 1000);
		CU_ASSERT_EQUAL(deliver(&a, &b, 2000, -1), 8);
		CU_ASSERT_EQUAL(b.last_len, 100);
		CU_ASSERT_EQUAL(b.last_payload[10], 7);
		settle(&a, &b, 2000, SST_NSEC_PER_SEC);
		CU_ASSERT_EQUAL(a.acked, 8);
		pair_teardown(&a, &b);
	}
}

/*
 * A test armor with tiny usage limits: like null, but a packet whose byte 8
 * (the first byte after the channel header) is 0xBA fails to open, which
 * stands for a forgery.
 */
static int
tiny_session_init(void *session, const struct sst_crypto_keys *keys)
{
	(void)session;
	(void)keys;
	return 0;
}

static void
tiny_session_fini(void *session)
{
	(void)session;
}

static uint16_t
tiny_seal_burst(
	void *session, struct rte_mbuf **pkts, uint64_t *seq, uint16_t n, struct rte_mempool *mp)
{
	(void)session;
	(void)pkts;
	(void)seq;
	(void)mp;
	return n;
}

static uint16_t
tiny_open_burst(void *session, struct rte_mbuf **pkts, uint64_t *seq, uint16_t n)
{
	struct rte_mbuf *bad[SST_CRYPTO_CHUNK];
	uint64_t bad_seq[SST_CRYPTO_CHUNK];
	uint16_t good = 0, nbad = 0;

	(void)session;
	for (uint16_t i = 0; i < n; i++) {
		if (*rte_pktmbuf_mtod_offset(pkts[i], uint8_t *, 8) == 0xba) {
			bad[nbad] = pkts[i];
			bad_seq[nbad++] = seq[i];
		} else {
			pkts[good] = pkts[i];
			seq[good++] = seq[i];
		}
	}
	memcpy(pkts + good, bad, nbad * sizeof(*bad));
	memcpy(seq + good, bad_seq, nbad * sizeof(*bad_seq));
	return good;
}

static const struct sst_crypto_ops tiny_ops = {
	.driver = "tiny-limits",
	.suite = SST_CRYPTO_NULL,
	.packet_limit = 64,
	.integrity_limit = 8,
	.session_init = tiny_session_init,
	.session_fini = tiny_session_fini,
	.seal_burst = tiny_seal_burst,
	.open_burst = tiny_open_burst,
};

static void
tiny_pair(struct end *a, struct end *b)
{
	struct sst_channel_params p;

	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	params_for(&p, a, SST_CRYPTO_NULL, 1, 2);
	p.crypto_driver = "tiny-limits";
	a->ch = sst_channel_create(&p, 0);
	params_for(&p, b, SST_CRYPTO_NULL, 2, 1);
	p.crypto_driver = "tiny-limits";
	b->ch = sst_channel_create(&p, 0);
	CU_ASSERT_FATAL(a->ch != NULL && b->ch != NULL);
}

/* Near a key's packet limit the channel asks for a replacement once (at
 * 7/8), and at the limit it stops numbering packets. */
static void
test_usage_limit(void)
{
	struct end a, b;
	struct rte_mbuf *m;

	tiny_pair(&a, &b);
	for (int i = 0; i < 54; i++) {
		send_data(&a, 1, 1000);
		wire_discard(&a);
	}
	CU_ASSERT_EQUAL(a.replace_events, 0);
	send_data(&a, 1, 1000); /* number 55: the next would be 56 = 7/8 of 64 */
	CU_ASSERT_EQUAL(a.replace_events, 1);
	for (int i = 0; i < 8; i++)
		send_data(&a, 1, 1000);
	wire_discard(&a);
	CU_ASSERT_EQUAL(a.replace_events, 1);
	CU_ASSERT_EQUAL(sst_channel_send_allowance(a.ch, 1000, NULL), 0);
	m = make_packet(sst_test_ack_only, sizeof(sst_test_ack_only));
	CU_ASSERT_EQUAL(sst_channel_send(a.ch, &m, NULL, 1, true, 1000, NULL), 0);
	CU_ASSERT_FALSE(sst_channel_failed(a.ch));
	pair_teardown(&a, &b);
}

/* A lower packet limit from the parameters (rekeying sooner): the
 * replacement is asked for at 7/8 of it, new data stops at 15/16, and the
 * last sixteenth still carries acknowledgments and control packets. */
static void
test_packet_limit_param(void)
{
	struct sst_channel_params p;
	struct sst_channel_info info;
	struct end a, b;
	sst_time_t now = 1000;
	struct rte_mbuf *m;
	uint64_t sent = 0;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	params_for(&p, &a, SST_CRYPTO_CHK32, 0x11111111, 0x22222222);
	p.packet_limit = 100; /* too few to migrate in */
	CU_ASSERT_PTR_NULL(sst_channel_create(&p, 0));
	p.packet_limit = UINT64_MAX; /* more than the suite allows: the suite's */
	a.ch = sst_channel_create(&p, 0);
	CU_ASSERT_FATAL(a.ch != NULL);
	sst_channel_info(a.ch, &info);
	CU_ASSERT_EQUAL(info.seq_limit, sst_crypto_find(SST_CRYPTO_CHK32, NULL)->packet_limit);
	sst_channel_destroy(a.ch);
	p.packet_limit = 256;
	a.ch = sst_channel_create(&p, 0);
	params_for(&p, &b, SST_CRYPTO_CHK32, 0x22222222, 0x11111111);
	b.ch = sst_channel_create(&p, 0);
	CU_ASSERT_FATAL(a.ch != NULL && b.ch != NULL);
	a.auto_ack = b.auto_ack = true;
	for (;;) {
		sst_channel_info(a.ch, &info);
		if (sst_channel_send_allowance(a.ch, now, NULL) == 0)
			break;
		CU_ASSERT_EQUAL(a.replace_events, info.next_seq >= 256 - 256 / 8 ? 1u : 0u);
		send_data(&a, 1, now);
		sent++;
		now = settle(&a, &b, now + 1000, now + 1000000);
	}
	CU_ASSERT_EQUAL(info.seq_limit, 256);
	CU_ASSERT_EQUAL(info.next_seq, 256 - 256 / 16);
	CU_ASSERT_EQUAL(a.replace_events, 1);
	CU_ASSERT(sent > 200);
	/* Control and acknowledgments go on to the limit, and no further. */
	while (info.next_seq < 256) {
		m = make_packet(sst_test_ack_only, sizeof(sst_test_ack_only));
		CU_ASSERT_EQUAL(sst_channel_send(a.ch, &m, NULL, 1, false, now, NULL), 1);
		sst_channel_info(a.ch, &info);
	}
	m = make_packet(sst_test_ack_only, sizeof(sst_test_ack_only));
	CU_ASSERT_EQUAL(sst_channel_send(a.ch, &m, NULL, 1, false, now, NULL), 0);
	CU_ASSERT_FALSE(sst_channel_failed(a.ch));
	pair_teardown(&a, &b);
}

/* Every failed open counts against the key: a replacement is asked for at
 * 7/8 of the integrity limit and the channel fails at the limit. */
static void
test_integrity_limit(void)
{
	static const uint8_t forged[] = {0x01, 0, 0, 0, 0, 0, 0, 0, 0xba, 0x01, 0x30, 0x10};
	struct end a, b;

	tiny_pair(&a, &b);
	for (int i = 1; i <= 8; i++) {
		struct rte_mbuf *m = make_packet(forged, sizeof(forged));
		uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);

		p[3] = (uint8_t)i; /* a fresh number each time, past the replay check */
		CU_ASSERT_EQUAL(sst_channel_receive(b.ch, &m, 1, 1000), 0);
		CU_ASSERT_EQUAL(sst_channel_stats(b.ch)->rx_bad_trailer, (uint64_t)i);
		CU_ASSERT_EQUAL(b.replace_events, i >= 7 ? 1u : 0u);
		CU_ASSERT_EQUAL(b.failed_events, i >= 8 ? 1u : 0u);
	}
	CU_ASSERT_TRUE(sst_channel_failed(b.ch));
	pair_teardown(&a, &b);
}

static void
test_bad_params(void)
{
	struct sst_channel_params p;
	struct end e;

	memset(&e, 0, sizeof(e));
	params_for(&p, &e, SST_CRYPTO_CHK32, 1, 2);
	p.replay_window = 33;
	CU_ASSERT_EQUAL(sst_channel_size(&p), 0);
	p.replay_window = 0;
	p.local_channel = 0;
	CU_ASSERT_EQUAL(sst_channel_size(&p), 0);
	p.local_channel = 1;
	p.cc = "no-such-cc";
	CU_ASSERT_EQUAL(sst_channel_size(&p), 0);
	CU_ASSERT_PTR_NULL(sst_channel_create(&p, 0));
	p.cc = NULL;
	p.mtu = 10;
	CU_ASSERT_EQUAL(sst_channel_size(&p), 0);
	p.mtu = 0;
	CU_ASSERT_NOT_EQUAL(sst_channel_size(&p), 0);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_prototype_bytes),
	SST_TEST(test_exchange_all_acked),
	SST_TEST(test_app_limited_no_growth),
	SST_TEST(test_loss_reported_once),
	SST_TEST(test_same_ack_word_later),
	SST_TEST(test_info_rttvar_and_resent),
	SST_TEST(test_trace),
	SST_TEST(test_refused_not_acked),
	SST_TEST(test_contiguous_runs),
	SST_TEST(test_two_gaps_one_ack),
	SST_TEST(test_replay_and_tamper),
	SST_TEST(test_too_old),
	SST_TEST(test_ack_beyond_dropped),
	SST_TEST(test_optimistic_ack_fails_channel),
	SST_TEST(test_delayed_ack_timer),
	SST_TEST(test_rto_loses_everything_once),
	SST_TEST(test_aead_exchange),
	SST_TEST(test_usage_limit),
	SST_TEST(test_packet_limit_param),
	SST_TEST(test_integrity_limit),
	SST_TEST(test_bad_params),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_channel") < 0 || sst_crypto_register(&tiny_ops) < 0)
		return 1;
	pool = sst_test_pool("test_channel", 16384, 2048);
	if (pool == NULL)
		return 1;
	return sst_test_run("channel", cases);
}
