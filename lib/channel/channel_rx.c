/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The channel's receive path (paper 4.2.2-4.2.4; wire-format.md section 2):
 *  1. rebuild the 64-bit sequence number from the clear 24 bits and check
 *     it against the replay window (too old or duplicate: drop);
 *  2. open the armor for the whole burst (bad trailer: drop);
 *  3. per packet, in order: re-check the window (a duplicate inside one
 *     burst), decode the now-authentic header, refuse an ack of a number we
 *     have not sent, apply the ack word, and only then update the window
 *     and hand the packet to the stream layer.
 * Nothing a packet says changes any state before its armor verified.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_prefetch.h>

#include "channel_internal.h"
#include "channel_wire.h"
#include "sst_cc.h"
#include "sst_burst.h"

/* The first 4 bytes: channel byte and low sequence bits, clear under every
 * armor. Returns false when the packet cannot be a channel packet. */
static bool
read_seq(const struct sst_channel *ch, const struct rte_mbuf *m, uint64_t *seq)
{
	uint32_t word0_be, word0;
	const void *p;

	if (rte_pktmbuf_pkt_len(m) < (uint32_t)SST_CHAN_HDR_LEN + ch->crypto->trailer_len)
		return false;
	/* Behind Ethernet, IP and UDP headers the payload sits 2 bytes off a
	 * 4-byte boundary: copy rather than load through the pointer. */
	p = rte_pktmbuf_read(m, 0, sizeof(word0_be), &word0_be);
	memcpy(&word0_be, p, sizeof(word0_be));
	word0 = rte_be_to_cpu_32(word0_be);
	return sst_chan_seq_expand(ch->replay->highest, word0 & SST_CHAN_SEQ_MASK, seq) == 0;
}

/* Every armor reads the trailer (tag or checksum) before the rest: its
 * line is on the way while the burst's other packets are checked. */
static inline void
prefetch_trailer(struct rte_mbuf *m)
{
	const struct rte_mbuf *last = rte_pktmbuf_lastseg(m);

	if (last->data_len > 0)
		rte_prefetch0(rte_pktmbuf_mtod_offset(last, const char *, last->data_len - 1));
}

static void
drop(struct rte_mbuf *m, uint64_t *counter)
{
	(*counter)++;
	rte_pktmbuf_free(m);
}

/*
 * Whether an ack is for a round trip that left the window unused, which
 * earns the controller no growth (RFC 7661): a window grown while the
 * application or the peer's flow control kept the flight below it has
 * never been tried, and would be spent at once, in a burst, when the
 * sender has data again. The round trip used the window when a packet sent
 * after the acknowledged one found it full (Linux's tcp_is_cwnd_limited()),
 * or when at least half of it was in flight as the ack came (RFC 7661's
 * validated phase, pipeACK >= cwnd / 2; Linux's test in slow start). The
 * half matters in congestion avoidance too: the pacer, at 1.25 windows a
 * round trip, keeps a bulk sender's flight a few packets short of the
 * window after a loss, and without the half one of two NewReno flows
 * sharing a bottleneck took 110.3 % of its fair share (test_sim_stp, seed
 * 4; 100.4 % with no marking, 95.2 % with the half).
 */
static bool
ack_app_limited(const struct sst_channel *ch, uint64_t newest_acked, uint64_t flight_before)
{
	return newest_acked >= ch->cwnd_full_until && 2 * flight_before < ch->cc.cwnd;
}

/* Apply one ack word (AckSeq - AckCt .. AckSeq) from an authentic packet. */
static void
process_ack(struct sst_channel *ch, uint64_t ack_seq, uint8_t ack_count, sst_time_t now)
{
	struct channel_txlog_call call = {.ch = ch, .now = now};
	struct sst_txlog_events ev = channel_txlog_events;
	struct sst_txlog_ack_result res;
	uint64_t from = ack_seq >= ack_count ? ack_seq - ack_count : 0;
	sst_time_t delay = channel_loss_delay(ch);

	/* Every packet of the peer's send burst carries the same word
	 * (channel_tx.c). Applied once, it resolved every number it covers
	 * (numbers are never reused), and loss detection depends only on the
	 * largest number acked, the time and the delay: the same word with the
	 * same time and delay again would find nothing. */
	if (ack_seq == ch->rx_ack_seq && ack_count == ch->rx_ack_count && now == ch->rx_ack_now &&
		delay == ch->rx_ack_delay)
		return;
	ch->rx_ack_seq = ack_seq;
	ch->rx_ack_count = ack_count;
	ch->rx_ack_now = now;
	ch->rx_ack_delay = delay;
	ev.ctx = &call;
	sst_txlog_ack(ch->txlog, from, ack_seq, now, delay, &ev, &res);
	if (res.covers_skipped) {
		/* The peer acknowledged a number we never sent: it acks what
		 * it did not receive to inflate our window (optimistic ack). */
		ch->stats.optimistic_acks++;
		channel_fail(ch, now);
		return;
	}
	if (res.acked_packets == 0)
		return;
	if (res.rtt_sample != 0) {
		sst_rtt_sample(&ch->rtt, res.rtt_sample);
		channel_trace(ch, SST_CHANNEL_TRACE_RTT, now, ch->rtt.latest, ch->rtt.srtt,
			ch->rtt.rttvar);
	}
	/* RFC 6298 5.3: restart the timer when new data is acknowledged. */
	ch->rto_start = ch->txlog->packets_in_flight != 0 ? now : SST_TIME_NEVER;
	if (res.acked_bytes != 0) {
		struct sst_cc_ack_event cev = {
			.now = now,
			.largest_acked = res.newest_acked,
			.acked_bytes = (uint32_t)res.acked_bytes,
			.acked_packets = res.acked_packets,
			.bytes_in_flight = ch->txlog->bytes_in_flight,
			.rtt_sample = res.rtt_sample,
			.srtt = ch->rtt.srtt,
			.min_rtt = ch->rtt.min,
			.app_limited = ack_app_limited(
				ch, res.newest_acked, ch->txlog->bytes_in_flight + res.acked_bytes),
		};
		sst_cc_on_ack(&ch->cc, &cev);
		channel_update_pacing(ch, now);
		channel_trace_cwnd(ch, now);
	}
}

/* Step 3 for one authentic packet. */
static bool
accept(struct sst_channel *ch, struct rte_mbuf *m, uint64_t seq, sst_time_t now)
{
	struct sst_chan_hdr hdr;
	uint8_t raw[SST_CHAN_HDR_LEN];
	const uint8_t *p;
	uint64_t ack_seq, prev_highest;
	enum sst_channel_rx_verdict verdict;
	bool quiet;

	if (sst_replay_check(ch->replay, seq) != SST_REPLAY_NEW) {
		drop(m, &ch->stats.rx_duplicate);
		return false;
	}
	p = rte_pktmbuf_read(m, 0, sizeof(raw), raw);
	if (p == NULL || sst_chan_hdr_decode(p, sizeof(raw), &hdr) < 0) {
		drop(m, &ch->stats.rx_malformed);
		return false;
	}
	/* Acks are rebuilt against the highest number we sent: a value
	 * beyond it acknowledges the future and the packet is dropped. */
	if (sst_chan_seq_expand(ch->txlog->next_seq - 1, hdr.ack24, &ack_seq) < 0 ||
		ack_seq >= ch->txlog->next_seq) {
		drop(m, &ch->stats.rx_ack_beyond);
		return false;
	}
	process_ack(ch, ack_seq, hdr.ack_count, now);
	if (ch->failed) {
		drop(m, &ch->stats.rx_after_failure);
		return false;
	}
	prev_highest = ch->replay->highest;
	/* A gap ends the run the next ack word would report: acknowledge the
	 * run first, or its older packets would never be covered. */
	if (seq > prev_highest + 1)
		channel_pay_acks(ch, now, CHANNEL_PAY_ALL_OWED);
	ch->stats.rx_bytes += rte_pktmbuf_pkt_len(m) + ch->crypto->trailer_len;
	rte_pktmbuf_adj(m, SST_CHAN_HDR_LEN);
	verdict = ch->upper->receive(ch->upper_ctx, m, seq, now);
	if (verdict == SST_CHANNEL_RX_REFUSE) {
		/* Paper 4.2.4: acknowledgments are definitive, so a packet the
		 * upper layer could not buffer is left out of the replay window
		 * and the ack words: the sender will see it lost. */
		ch->stats.rx_refused++;
		return true;
	}
	sst_replay_update(ch->replay, seq);
	ch->stats.rx_packets++;
	/* The first packet after a quiet period (longer than two round trips,
	 * so that an answer to an answer never ends one): see channel_ack.h. */
	quiet = ch->last_rx != SST_TIME_NEVER &&
		now - ch->last_rx >= RTE_MAX(SST_ACK_QUIET, 2 * ch->rtt.srtt);
	ch->last_rx = now;
	ch->ack_record(
		&ch->ackgen, seq, prev_highest, verdict == SST_CHANNEL_RX_NEEDS_ACK, quiet, now);
	/* One ack word covers at most 16 packets; a longer unacknowledged run
	 * (a burst arriving at once) is acknowledged before it outgrows it. */
	if (sst_ackgen_unacked(&ch->ackgen) > SST_CHAN_ACKCT_MAX)
		channel_pay_acks(ch, now, CHANNEL_PAY_FULL_RUN);
	return true;
}

/* Every failed open is a forgery attempt against the key; past the suite's
 * integrity limit the key may no longer be trusted (RFC 9001 6.6). Ask for a
 * replacement at 7/8 of it and stop at the limit. */
static void
check_integrity_limit(struct sst_channel *ch, sst_time_t now)
{
	uint64_t limit = ch->crypto->integrity_limit;

	if (ch->stats.rx_bad_trailer >= limit)
		channel_fail(ch, now);
	else if (ch->stats.rx_bad_trailer >= limit - limit / 8)
		channel_want_replacement(ch, now);
}

static uint16_t
receive_burst(struct sst_channel *ch, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	struct rte_mbuf *cand[SST_MAX_BURST];
	uint64_t seqs[SST_MAX_BURST];
	uint16_t count = 0, opened, delivered = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint64_t seq;

		if (ch->failed) {
			drop(m, &ch->stats.rx_after_failure);
			continue;
		}
		if (!read_seq(ch, m, &seq)) {
			drop(m, &ch->stats.rx_malformed);
			continue;
		}
		switch (sst_replay_check(ch->replay, seq)) {
		case SST_REPLAY_TOO_OLD:
			drop(m, &ch->stats.rx_too_old);
			continue;
		case SST_REPLAY_DUPLICATE:
			drop(m, &ch->stats.rx_duplicate);
			continue;
		case SST_REPLAY_NEW:
			break;
		}
		prefetch_trailer(m);
		cand[count] = m;
		seqs[count] = seq;
		count++;
	}
	opened = ch->crypto->open_burst(ch->crypto_session, cand, seqs, count);
	for (uint16_t i = opened; i < count; i++)
		drop(cand[i], &ch->stats.rx_bad_trailer);
	if (opened < count)
		check_integrity_limit(ch, now);
	/* Opening a burst of full packets streams more bytes through the
	 * cache than it holds, and accept()'s first touch of each packet
	 * stalled: the mbuf two packets ahead and the headers one ahead come
	 * back while this one is taken in (docs/performance.md, "Session 23"). */
	for (uint16_t i = 0; i < RTE_MIN(opened, 2); i++)
		rte_prefetch0(cand[i]);
	for (uint16_t i = 0; i < opened; i++) {
		if (i + 2 < opened)
			rte_prefetch0(cand[i + 2]);
		if (i + 1 < opened)
			rte_prefetch0(rte_pktmbuf_mtod(cand[i + 1], char *));
		if (ch->failed)
			drop(cand[i], &ch->stats.rx_after_failure);
		else if (accept(ch, cand[i], seqs[i], now))
			delivered++;
	}
	return delivered;
}

uint16_t
sst_channel_receive(struct sst_channel *ch, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	uint16_t delivered = 0;

	for (uint16_t done = 0; done < n;) {
		uint16_t chunk = RTE_MIN(n - done, SST_MAX_BURST);

		delivered += receive_burst(ch, pkts + done, chunk, now);
		done += chunk;
	}
	return delivered;
}
