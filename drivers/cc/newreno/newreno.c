/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NewReno, the default congestion controller ("newreno").
 *
 * Slow start and congestion avoidance follow RFC 5681 section 3.1 with byte
 * counting (RFC 3465): in slow start cwnd grows by the bytes acked, in
 * congestion avoidance by mss * acked / cwnd per ack, which adds one MSS per
 * window of acked data (the remainder of the division is carried over so
 * no growth is lost to rounding).
 *
 * Loss recovery is RFC 6582 transposed to packet sequence numbers: the
 * loss of a packet above the recovery point starts a recovery epoch
 * (ssthresh = max(cwnd / 2, 2 MSS), cwnd = ssthresh, recovery point =
 * highest sequence number sent); losses at or below the recovery point
 * belong to the same congestion event and change nothing; an ack whose
 * largest acked packet is above the recovery point ends the epoch. The
 * window does not grow during recovery, nor while the sender is
 * application-limited (RFC 7661: growth is only earned by a full window).
 *
 * ssthresh is half the window, as in Linux (tcp_reno_ssthresh()), not
 * RFC 5681's half the flight: a paced sender's flight lags its window by
 * a packet or two when the loss is found (more after a reduction), so half
 * the flight cut SST below the TCP flows it shares a queue with; the window
 * cannot be inflated by an application-limited sender, since such acks
 * earn no growth. In the simulator against a TCP-like flow
 * (tests/sim/test_sim_fair.c, docs/congestion-control.md) SST's share on
 * the dsl-like link went from 38.5 % to 51.7 %.
 *
 * A retransmission timeout (RFC 5681 section 3.1, equation 4) sets ssthresh
 * the same way, collapses cwnd to the one-packet loss window and records
 * the highest sequence number sent as the recovery point (RFC 6582
 * section 3.2 step 4), so the packets the channel then declares lost do not
 * cut the window again. A timeout before any RTT sample (the flow's first
 * packets lost) leaves ssthresh as it is. Apart from that loss window the
 * window never falls below sst_cc_min_window().
 *
 * Sending after an idle period longer than the retransmission timeout
 * restarts from RFC 5681 section 4.1's restart window, min(IW, cwnd); as
 * in RFC 2861 and Linux, ssthresh first keeps 3/4 of the window that was
 * in use, so slow start climbs back to most of it within a few round trips.
 */
#include <assert.h>
#include <string.h>

#include <rte_common.h>
#include <rte_log.h>

#include "sst_cc_driver.h"
#include "sst_log.h"

RTE_LOG_REGISTER_DEFAULT(sst_logtype_cc_newreno, NOTICE);
#define NEWRENO_LOG(level, fmt, ...) \
	SST_LOG(level, sst_logtype_cc_newreno, "cc_newreno", fmt, ##__VA_ARGS__)

struct newreno {
	uint64_t ca_carry; /**< mss * acked not yet turned into window, < cwnd */
};

static_assert(sizeof(struct newreno) <= SST_CC_PRIV_MAX, "newreno state too large");

static struct newreno *
newreno_priv(struct sst_cc *cc)
{
	return (struct newreno *)cc->priv;
}

/* ssthresh after a congestion event: half the window, at least two packets. */
static uint64_t
newreno_ssthresh(const struct sst_cc *cc)
{
	uint64_t half = cc->cwnd / 2;
	uint64_t floor = sst_cc_min_window(cc->mss);

	return half > floor ? half : floor;
}

static void
newreno_init(struct sst_cc *cc, sst_time_t now)
{
	RTE_SET_USED(now);
	memset(newreno_priv(cc), 0, sizeof(struct newreno));
}

static void
newreno_on_sent(struct sst_cc *cc, const struct sst_cc_sent_event *ev)
{
	/* Nothing: NewReno reacts to acks and losses only. */
	RTE_SET_USED(cc);
	RTE_SET_USED(ev);
}

static void
newreno_on_ack(struct sst_cc *cc, const struct sst_cc_ack_event *ev)
{
	struct newreno *nr = newreno_priv(cc);
	uint64_t acked = ev->acked_bytes;

	if (cc->in_recovery) {
		/* RFC 6582 section 3.2 step 3: a full ack ends recovery; it earns no growth. */
		if (ev->largest_acked > cc->recovery_seq)
			cc->in_recovery = false;
		return;
	}
	if (ev->app_limited || acked == 0)
		return;
	if (cc->cwnd < cc->ssthresh) {
		/* Slow start: one byte of window per byte acked, up to ssthresh. */
		uint64_t room = cc->ssthresh - cc->cwnd;

		if (acked <= room) {
			cc->cwnd += acked;
			return;
		}
		cc->cwnd = cc->ssthresh;
		acked -= room;
	}
	/* Congestion avoidance: cwnd += mss * acked / cwnd, remainder carried. */
	nr->ca_carry += (uint64_t)cc->mss * acked;
	if (nr->ca_carry >= cc->cwnd) {
		uint64_t grow = nr->ca_carry / cc->cwnd;

		nr->ca_carry -= grow * cc->cwnd;
		cc->cwnd += grow;
	}
}

static void
newreno_on_loss(struct sst_cc *cc, const struct sst_cc_loss_event *ev)
{
	struct newreno *nr = newreno_priv(cc);

	/* RFC 6582: a loss at or below the recovery point is the same congestion event. */
	if (ev->seq <= cc->recovery_seq)
		return;
	cc->ssthresh = newreno_ssthresh(cc);
	cc->cwnd = cc->ssthresh;
	cc->in_recovery = true;
	cc->recovery_seq = ev->largest_sent;
	nr->ca_carry = 0;
}

static void
newreno_on_rto(struct sst_cc *cc, const struct sst_cc_rto_event *ev)
{
	struct newreno *nr = newreno_priv(cc);

	/* Before any RTT sample the window is the initial one, not a measure
	 * of the path: ssthresh stays, so slow start from one packet
	 * finds the path's window (RFC 5681 section 3.1's one-segment window
	 * after a lost SYN; Linux keeps ssthresh infinite after one). */
	if (!ev->no_rtt_sample)
		cc->ssthresh = newreno_ssthresh(cc);
	cc->cwnd = cc->mss; /* RFC 5681 loss window */
	cc->in_recovery = false;
	if (ev->largest_sent > cc->recovery_seq)
		cc->recovery_seq = ev->largest_sent;
	nr->ca_carry = 0;
}

static void
newreno_on_idle(struct sst_cc *cc, const struct sst_cc_idle_event *ev)
{
	uint64_t iw = sst_cc_initial_window(cc->mss);
	uint64_t keep = cc->cwnd - cc->cwnd / 4;

	RTE_SET_USED(ev);
	if (cc->cwnd <= iw)
		return;
	if (keep > cc->ssthresh)
		cc->ssthresh = keep;
	cc->cwnd = iw;
	newreno_priv(cc)->ca_carry = 0;
}

static const struct sst_cc_ops newreno_ops = {
	.name = "newreno",
	.priv_size = sizeof(struct newreno),
	.init = newreno_init,
	.on_sent = newreno_on_sent,
	.on_ack = newreno_on_ack,
	.on_loss = newreno_on_loss,
	.on_rto = newreno_on_rto,
	.on_idle = newreno_on_idle,
};

RTE_INIT(newreno_register)
{
	int rc = sst_cc_register(&newreno_ops);

	if (rc != 0)
		NEWRENO_LOG(ERR, "cannot register \"%s\": %d", newreno_ops.name, rc);
}
