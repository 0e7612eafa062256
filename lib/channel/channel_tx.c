/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The channel's transmit path (paper 4.2.2-4.2.4): number each packet, put
 * the channel header and the current ack word in front of the stream
 * layer's bytes, seal a burst with the channel's armor, record every number
 * in the tx log and hand the packets to the lower layer.
 */
#include <string.h>

#include <rte_byteorder.h>

#include "channel_internal.h"
#include "channel_wire.h"
#include "sst_cc.h"
#include "sst_burst.h"

/* Put the 8-byte channel header in front of a packet: into the first
 * segment's headroom, or in a header segment of its own when there is no
 * room (or the first segment is shared with a retransmission queue). */
static struct rte_mbuf *
prepend_header(struct sst_channel *ch, struct rte_mbuf *m, uint64_t seq, uint64_t ack_seq,
	uint8_t ack_count)
{
	struct sst_chan_hdr_wire hdr = {
		.chan_tsn = rte_cpu_to_be_32(
			(uint32_t)ch->peer_channel << 24 | ((uint32_t)seq & SST_CHAN_SEQ_MASK)),
		.ack = rte_cpu_to_be_32(
			(uint32_t)ack_count << 24 | ((uint32_t)ack_seq & SST_CHAN_SEQ_MASK)),
	};
	char *p = NULL;

	if (RTE_MBUF_DIRECT(m) && rte_mbuf_refcnt_read(m) == 1)
		p = rte_pktmbuf_prepend(m, SST_CHAN_HDR_LEN);
	if (p == NULL) {
		struct rte_mbuf *h = rte_pktmbuf_alloc(ch->pool);

		if (h == NULL)
			return NULL;
		p = rte_pktmbuf_append(h, SST_CHAN_HDR_LEN);
		if (p == NULL || rte_pktmbuf_chain(h, m) < 0) {
			rte_pktmbuf_free(h);
			return NULL;
		}
		m = h;
	}
	memcpy(p, &hdr, sizeof(hdr));
	return m;
}

/* A number that will not be sent after all (no mbuf for the header or the
 * armor): report it lost so the upper layer resends its data and every
 * number still ends exactly once. This is local, not congestion, so the
 * controller does not hear of it. */
static void
abandon(struct sst_channel *ch, uint64_t seq, struct rte_mbuf *m, uint64_t *seqs_out, uint16_t n,
	sst_time_t now)
{
	struct sst_txlog_entry e;

	rte_pktmbuf_free(m);
	ch->stats.tx_seal_failed++;
	if (seqs_out != NULL)
		for (uint16_t i = 0; i < n; i++)
			if (seqs_out[i] == seq)
				seqs_out[i] = 0;
	if (sst_txlog_withdraw(ch->txlog, seq, &e)) {
		ch->stats.lost++;
		ch->upper->lost(ch->upper_ctx, seq, e.cookie, now);
	}
}

/*
 * Packets the channel cannot number (the log is full, the sequence space or
 * the key is used up, the channel failed) are dropped here, and their
 * cookies are reported lost under number 0, so that every cookie handed to
 * sst_channel_send() ends exactly once in acked() or lost(): an upper layer
 * that keeps a record per packet would otherwise wait for them forever.
 */
static void
refuse_unnumbered(struct sst_channel *ch, struct rte_mbuf **pkts, const uintptr_t *cookies,
	uint16_t n, sst_time_t now)
{
	rte_pktmbuf_free_bulk(pkts, n);
	ch->stats.tx_unnumbered += n;
	for (uint16_t i = 0; cookies != NULL && i < n; i++)
		ch->upper->lost(ch->upper_ctx, 0, cookies[i], now);
}

/* Make the next number usable: skip it first if the skip schedule says so.
 * False when the log is full (at its limit, or it could not grow) or the
 * key's usage limit is reached. */
static bool
number_available(struct sst_channel *ch)
{
	bool ok = true;

	if (ch->txlog->next_seq == ch->next_skip) {
		ok = sst_txlog_reserve(ch->txlog, 2) == 0;
		if (ok) {
			sst_txlog_skip(ch->txlog);
			ch->stats.tx_skipped++;
			channel_schedule_skip(ch);
		}
	}
	ok = ok && ch->txlog->next_seq < ch->seq_limit && sst_txlog_reserve(ch->txlog, 1) == 0;
	ch->stats.tx_log_grow_failures = ch->txlog->grow_failures;
	return ok;
}

static uint16_t
send_burst(struct sst_channel *ch, struct rte_mbuf **pkts, const uintptr_t *cookies, uint16_t n,
	bool ack_eliciting, sst_time_t now, uint64_t *seqs_out)
{
	struct rte_mbuf *burst[SST_MAX_BURST];
	uint64_t seqs[SST_MAX_BURST];
	uint16_t count = 0, sealed;
	uint64_t ack_seq = 0;
	uint8_t ack_count = 0;

	if (seqs_out != NULL)
		memset(seqs_out, 0, n * sizeof(*seqs_out));

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint64_t seq;
		uint32_t bytes;

		if (!number_available(ch)) {
			/* Full or exhausted: these were never numbered. */
			refuse_unnumbered(
				ch, pkts + i, cookies != NULL ? cookies + i : NULL, n - i, now);
			break;
		}
		/* The receive window cannot change during a send burst, so one
		 * ack word serves the whole burst, unless a late packet's own
		 * word went first and the highest is still owed. */
		if (i == 0 || sst_ackgen_pending(&ch->ackgen))
			ch->ack_take(&ch->ackgen, ch->replay, &ack_seq, &ack_count);
		bytes = rte_pktmbuf_pkt_len(m) + SST_CHAN_HDR_LEN + ch->crypto->trailer_len;
		seq = sst_txlog_push(
			ch->txlog, now, bytes, cookies != NULL ? cookies[i] : 0, ack_eliciting);
		if (seqs_out != NULL)
			seqs_out[i] = seq;
		m = prepend_header(ch, m, seq, ack_seq, ack_count);
		if (m == NULL) {
			abandon(ch, seq, pkts[i], seqs_out, n, now);
			continue;
		}
		burst[count] = m;
		seqs[count] = seq;
		count++;
	}

	sealed = ch->crypto->seal_burst(ch->crypto_session, burst, seqs, count, ch->pool);
	for (uint16_t i = sealed; i < count; i++)
		abandon(ch, seqs[i], burst[i], seqs_out, n, now);

	for (uint16_t i = 0; i < sealed; i++) {
		uint32_t bytes = rte_pktmbuf_pkt_len(burst[i]);

		ch->stats.tx_bytes += bytes;
		if (!ack_eliciting)
			continue;
		struct sst_cc_sent_event ev = {
			.now = now,
			.seq = seqs[i],
			.bytes = bytes,
			.bytes_in_flight = ch->txlog->bytes_in_flight,
		};
		sst_cc_on_sent(&ch->cc, &ev);
		sst_pacer_on_sent(&ch->pacer, bytes, now);
	}
	/* The window is in use (channel_rx.c's application-limited test). */
	if (ack_eliciting && sealed > 0 && channel_window_full(ch))
		ch->cwnd_full_until = ch->txlog->next_seq;
	ch->stats.tx_packets += sealed;
	if (!ack_eliciting)
		ch->stats.tx_ack_only += sealed;
	if (ack_eliciting && sealed > 0 && ch->rto_start == SST_TIME_NEVER)
		ch->rto_start = now;
	if (ack_eliciting && sealed > 0)
		ch->last_tx = now;
	if (sealed > 0)
		ch->lower->transmit(ch->lower_ctx, burst, sealed, now);
	return sealed;
}

uint16_t
sst_channel_send(struct sst_channel *ch, struct rte_mbuf **pkts, const uintptr_t *cookies,
	uint16_t n, bool ack_eliciting, sst_time_t now, uint64_t *seqs)
{
	uint16_t sent = 0;

	if (ch->failed) {
		refuse_unnumbered(ch, pkts, cookies, n, now);
		return 0;
	}
	for (uint16_t done = 0; done < n;) {
		uint16_t chunk = RTE_MIN(n - done, SST_MAX_BURST);

		sent += send_burst(ch, pkts + done, cookies != NULL ? cookies + done : NULL, chunk,
			ack_eliciting, now, seqs != NULL ? seqs + done : NULL);
		done += chunk;
	}
	/* Near the end of what one key may protect, ask for a replacement
	 * while there is still room to migrate (1/8 of the limit). */
	if (ch->txlog->next_seq >= channel_replace_point(ch))
		channel_want_replacement(ch, now);
	return sent;
}

uint16_t
sst_channel_send_contiguous(struct sst_channel *ch, struct rte_mbuf **pkts,
	const uintptr_t *cookies, uint16_t n, sst_time_t now, uint64_t *seqs)
{
	struct sst_txlog *log = ch->txlog;

	/* The log grows for the whole run (and a skip) first, so that a failed
	 * growth refuses the datagram rather than cutting it short. */
	if (ch->failed || n == 0 || n > SST_MAX_BURST ||
		sst_txlog_reserve(log, (uint32_t)n + 1) < 0 ||
		log->next_seq + n > channel_data_limit(ch)) {
		refuse_unnumbered(ch, pkts, cookies, n, now);
		return 0;
	}
	/* The receiver tells the fragments of one datagram by their
	 * consecutive numbers: a skip due inside the run is taken before it
	 * (the next one is scheduled at least CHANNEL_SKIP_MIN_GAP, more than a
	 * burst, further on). */
	if (ch->next_skip > log->next_seq && ch->next_skip < log->next_seq + n)
		ch->next_skip = log->next_seq;
	return sst_channel_send(ch, pkts, cookies, n, true, now, seqs);
}

uint32_t
sst_channel_packet_room(const struct sst_channel *ch)
{
	const struct sst_txlog *log = ch->txlog;
	uint64_t room = sst_txlog_room(log);

	if (ch->failed || log->next_seq >= ch->seq_limit)
		return 0;
	/* Skips take numbers too: at most one per SKIP_MIN_GAP packets. */
	room -= RTE_MIN(room, 1 + room / CHANNEL_SKIP_MIN_GAP);
	return (uint32_t)RTE_MIN(room, ch->seq_limit - log->next_seq);
}

/* Sending resumes after a silence of at least a timeout with nothing in
 * flight: the controller decides what the window it had is still worth
 * (RFC 5681 section 4.1). Once per silence: the clock restarts here. */
static void
restart_after_idle(struct sst_channel *ch, sst_time_t now)
{
	struct sst_cc_idle_event ev = {
		.now = now,
		.idle = now - ch->last_tx,
		.rto = ch->rtt.rto,
		.srtt = ch->rtt.srtt,
		.no_rtt_sample = ch->rtt.srtt == 0,
	};

	ch->last_tx = now;
	sst_cc_on_idle(&ch->cc, &ev);
	channel_update_pacing(ch, now);
	channel_trace_cwnd(ch, now);
}

uint64_t
sst_channel_send_allowance(struct sst_channel *ch, sst_time_t now, sst_time_t *next)
{
	const struct sst_txlog *log = ch->txlog;
	uint64_t room;
	uint32_t ready;
	sst_time_t when;

	if (next != NULL)
		*next = SST_TIME_NEVER;
	/* Keep the receiver able to rebuild our numbers from 24 bits: never
	 * run 2^22 or more ahead of what it acknowledged. */
	if (ch->failed || sst_txlog_room(log) <= 1 || log->next_seq >= channel_data_limit(ch) ||
		log->next_seq - log->largest_acked >= SST_TXLOG_MAX - 1)
		return 0;
	if (log->bytes_in_flight == 0) {
		sst_pacer_on_drained(&ch->pacer, now);
		if (ch->last_tx != SST_TIME_NEVER && now > ch->last_tx &&
			now - ch->last_tx >= ch->rtt.rto)
			restart_after_idle(ch, now);
	}
	if (channel_window_full(ch)) {
		ch->cwnd_full_until = log->next_seq;
		return 0;
	}
	room = ch->cc.cwnd - log->bytes_in_flight;
	when = sst_pacer_next_send(&ch->pacer, ch->mtu, now);
	if (when > now) {
		if (next != NULL)
			*next = when;
		return 0;
	}
	/* A sender may start a packet while any of the allowance is left:
	 * (k - 1) packets and a byte is room for k. Without this cap the
	 * window room that built up while the pacer held the channel back
	 * left in one run (6 packets on average on wifi, session 16). */
	ready = sst_pacer_packets_ready(&ch->pacer, ch->mtu);
	if (ready != UINT32_MAX)
		room = RTE_MIN(room, (uint64_t)(ready - 1) * ch->mtu + 1);
	return room;
}
