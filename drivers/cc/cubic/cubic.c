/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CUBIC (RFC 9438), registered as "cubic".
 *
 * Windows are in bytes. With C = 0.4 MSS/s^3 and beta_cubic = 0.7 the
 * window after a congestion event follows
 *
 *   W_cubic(t) = C * (t - K)^3 + W_max,  K = cbrt((W_max - cwnd_epoch) / C)
 *
 * (section 4.2), where t is the time since the current congestion
 * avoidance stage began, taken from the events' "now" (the controller never
 * reads a clock). Each ack in congestion avoidance moves cwnd towards
 * target = W_cubic(t + RTT), clamped to [cwnd, 1.5 cwnd], by
 * (target - cwnd) * acked / cwnd (sections 4.4, 4.5), RTT being the
 * path's minimum, as Linux takes it, not the smoothed RTT, which carries
 * the queue the window builds (docs/congestion-control.md), unless the
 * Reno-friendly estimate W_est, which grows by alpha_cubic =
 * 3 (1 - beta) / (1 + beta) = 9/17 MSS per window acked (1 MSS once W_est
 * reaches the window before the last reduction), is above W_cubic(t), in
 * which case cwnd follows W_est (section 4.3).
 *
 * Arithmetic is integer-only, with no libm: t and K are in microseconds,
 * C * mss * d^3 is computed with 128-bit intermediates (d^3 < 2^93 because
 * d is capped at 2^31 us, about 36 minutes, where the term already exceeds
 * any usable window), and K comes from an integer Newton cube root that is
 * only evaluated once per congestion event.
 *
 * Slow start is RFC 5681 slow start (cwnd grows by the bytes acked up to
 * ssthresh) that ends early when the round trip grows, by HyStart's delay
 * test as Linux's CUBIC applies it (Ha and Rhee 2011; tcp_cubic.c): from a
 * window of 16 packets on, a round (the acks of what was sent when it
 * began) whose smallest RTT sample, taken over at least 8 samples, exceeds
 * the path's minimum by clamp(min / 8, 4 ms, 16 ms) sets ssthresh to cwnd,
 * and congestion avoidance starts there, before the queue overflows. Once
 * per flow, and again after a timeout. Not HyStart++ (RFC 9406): its
 * conservative slow start would grow on for five rounds, where the kernel
 * TCP we share bottlenecks with stops (docs/congestion-control.md).
 *
 * A congestion event is detected as in NewReno (RFC 6582 on packet
 * sequence numbers): only a loss above the recovery point reduces the
 * window, and it reduces it once:
 * ssthresh = cwnd = max(beta * cwnd, 2 MSS) (section 4.6; we use cwnd
 * rather than the flight size, which section 4.6 allows), with W_max
 * lowered to (1 + beta) / 2 * cwnd when the loss happens below the previous
 * W_max (fast convergence, section 4.7). A timeout (section 4.8) sets
 * ssthresh the same way and cwnd to one MSS; the congestion avoidance stage
 * that follows uses K = 0 and W_max = the window at its start. A timeout
 * before any RTT sample only sets cwnd to one MSS (slow start goes on). The window
 * does not grow during recovery or on application-limited acks, and the
 * time covered by application-limited acks is not counted in t (section
 * 5.8), so an idle or slow sender does not come back to a window it never
 * tested. Sending after an idle period longer than the retransmission
 * timeout restarts from min(IW, cwnd) with ssthresh at least 3/4 of the
 * window (RFC 5681 section 4.1, RFC 2861, as NewReno), and the idle time
 * is not counted in t either (Linux's CA_EVENT_TX_START).
 */
#include <assert.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include <rte_common.h>
#include <rte_log.h>

#include "sst_cc_driver.h"
#include "sst_log.h"

RTE_LOG_REGISTER_DEFAULT(sst_logtype_cc_cubic, NOTICE);
#define CUBIC_LOG(level, fmt, ...) \
	SST_LOG(level, sst_logtype_cc_cubic, "cc_cubic", fmt, ##__VA_ARGS__)

__extension__ typedef unsigned __int128 cubic_u128;

enum {
	/* beta_cubic = 7/10; fast convergence keeps (1 + beta) / 2 = 17/20 of the window. */
	CUBIC_BETA_NUM = 7,
	CUBIC_BETA_DEN = 10,
	CUBIC_FC_NUM = 17,
	CUBIC_FC_DEN = 20,
	/* alpha_cubic = 3 (1 - beta) / (1 + beta) = 9/17. */
	CUBIC_ALPHA_NUM = 9,
	CUBIC_ALPHA_DEN = 17,
	/* HyStart: from this window (packets) on, over rounds of at least
	 * this many RTT samples (Linux's hystart_low_window and
	 * HYSTART_MIN_SAMPLES). */
	HYSTART_LOW_WINDOW = 16,
	HYSTART_MIN_SAMPLES = 8,
};

/* HyStart's delay threshold: min RTT / 8, within these bounds. */
#define HYSTART_DELAY_MIN (4 * SST_NSEC_PER_MSEC)
#define HYSTART_DELAY_MAX (16 * SST_NSEC_PER_MSEC)

/* C = 0.4 = 2/5 MSS/s^3, so C * mss * d_us^3 = 2 * mss * d_us^3 / (5 * 10^18) bytes. */
#define CUBIC_C_NUM 2
#define CUBIC_C_DEN_US3 UINT64_C(5000000000000000000)
/* Largest |t - K| in microseconds that the cube is evaluated at (2^31 us, ~36 min). */
#define CUBIC_D_MAX_US (UINT64_C(1) << 31)

struct cubic {
	uint64_t w_max;		/**< bytes, before the last reduction (fast convergence applied) */
	uint64_t origin;	/**< W_max of the current curve, bytes */
	uint64_t k_us;		/**< K of the current curve, microseconds */
	sst_time_t epoch_start; /**< start of the current avoidance stage, less frozen time */
	sst_time_t last_ack;	/**< now of the previous ack, to freeze app-limited time */
	uint64_t w_est;		/**< Reno-friendly estimate, bytes */
	uint64_t est_carry;	/**< alpha * mss * acked not yet added to w_est */
	uint64_t cwnd_carry;	/**< (target - cwnd) * acked not yet added to cwnd */
	uint64_t cwnd_prior;	/**< cwnd before the last reduction */
	bool in_epoch;		/**< an avoidance stage is running (epoch_start valid) */
	bool after_rto;		/**< the next stage follows a timeout: K = 0 */
	/* HyStart */
	bool hystart_done;	  /**< slow start was ended by delay (until a timeout) */
	uint8_t round_samples;	  /**< RTT samples in this round */
	uint64_t sent_highest;	  /**< the highest number sent */
	uint64_t round_end;	  /**< the round ends when an ack passes this number */
	sst_time_t round_min_rtt; /**< smallest RTT sample in this round */
};

static_assert(sizeof(struct cubic) <= SST_CC_PRIV_MAX, "cubic state too large");

static struct cubic *
cubic_priv(struct sst_cc *cc)
{
	return (struct cubic *)cc->priv;
}

/* floor(cbrt(n)) by Newton's iteration from above (exact for every n). */
static uint64_t
cubic_icbrt(cubic_u128 n)
{
	unsigned int bits = 0;
	cubic_u128 x, y;

	if (n == 0)
		return 0;
	for (cubic_u128 m = n; m != 0; m >>= 1)
		bits++;
	/* n < 2^bits, so 2^ceil(bits / 3) > cbrt(n). */
	x = (cubic_u128)1 << ((bits + 2) / 3);
	for (;;) {
		/* While x > floor(cbrt(n)), x^3 > n and the step strictly decreases x. */
		y = (2 * x + n / (x * x)) / 3;
		if (y >= x)
			return (uint64_t)x;
		x = y;
	}
}

/* K in microseconds for a curve that must climb from cwnd_epoch to w_max. */
static uint64_t
cubic_k_us(uint64_t w_max, uint64_t cwnd_epoch, uint32_t mss)
{
	cubic_u128 us3;
	uint64_t k;

	if (cwnd_epoch >= w_max)
		return 0;
	/* (W_max - cwnd_epoch) / (C * mss) seconds^3, in us^3: < 2^64 * 2^62.2. */
	us3 = (cubic_u128)(w_max - cwnd_epoch) * CUBIC_C_DEN_US3 / ((uint64_t)CUBIC_C_NUM * mss);
	k = cubic_icbrt(us3);
	return k < CUBIC_D_MAX_US ? k : CUBIC_D_MAX_US;
}

/* W_cubic(t) in bytes, t in nanoseconds since the stage began (section 4.2). */
static uint64_t
cubic_window(const struct cubic *cb, uint32_t mss, sst_time_t t)
{
	uint64_t t_us = t / SST_NSEC_PER_USEC;
	uint64_t d = t_us >= cb->k_us ? t_us - cb->k_us : cb->k_us - t_us;
	cubic_u128 delta;

	if (d > CUBIC_D_MAX_US)
		d = CUBIC_D_MAX_US;
	/* d^3 < 2^93 and 2 * mss < 2^33: the product fits in 128 bits. */
	delta = (cubic_u128)d * d * d * ((uint64_t)CUBIC_C_NUM * mss) / CUBIC_C_DEN_US3;
	if (t_us >= cb->k_us)
		return delta >= UINT64_MAX - cb->origin ? UINT64_MAX : cb->origin + (uint64_t)delta;
	return delta >= cb->origin ? 0 : cb->origin - (uint64_t)delta;
}

/* ssthresh after a congestion event: beta * cwnd, at least two packets. */
static uint64_t
cubic_ssthresh(const struct sst_cc *cc)
{
	uint64_t w = sst_cc_mul_div(cc->cwnd, CUBIC_BETA_NUM, CUBIC_BETA_DEN);
	uint64_t floor = sst_cc_min_window(cc->mss);

	return w > floor ? w : floor;
}

/* The first ack of a congestion avoidance stage starts the epoch (section 4.2). */
static void
cubic_start_epoch(struct sst_cc *cc, struct cubic *cb, sst_time_t now)
{
	cb->in_epoch = true;
	cb->epoch_start = now;
	cb->w_est = cc->cwnd;
	cb->est_carry = 0;
	cb->cwnd_carry = 0;
	if (cb->after_rto) {
		/* Section 4.8: the first stage after a timeout starts at its own window. */
		cb->after_rto = false;
		cb->w_max = cc->cwnd;
	}
	if (cc->cwnd < cb->w_max) {
		cb->origin = cb->w_max;
		cb->k_us = cubic_k_us(cb->w_max, cc->cwnd, cc->mss);
	} else {
		/* Already at or above W_max (after a timeout, or no loss yet): convex from here. */
		cb->origin = cc->cwnd;
		cb->k_us = 0;
	}
}

/* Section 4.3: W_est += alpha * mss * acked / cwnd; alpha = 1 once W_est >= cwnd_prior. */
static void
cubic_grow_estimate(const struct sst_cc *cc, struct cubic *cb, uint64_t acked)
{
	uint64_t num = cb->w_est >= cb->cwnd_prior ? CUBIC_ALPHA_DEN : CUBIC_ALPHA_NUM;
	uint64_t den = CUBIC_ALPHA_DEN * cc->cwnd;

	/* mss < 2^16 (a UDP payload) and acked < 2^32: the product fits. */
	cb->est_carry += num * cc->mss * acked;
	cb->w_est += cb->est_carry / den;
	cb->est_carry %= den;
}

/* Sections 4.4 and 4.5: cwnd += (target - cwnd) * acked / cwnd, remainder carried. */
static void
cubic_grow_window(struct sst_cc *cc, struct cubic *cb, uint64_t target, uint64_t acked)
{
	uint64_t gap = target - cc->cwnd;

	if (gap > (UINT64_MAX - cb->cwnd_carry) / acked) {
		/* Only for absurd windows: drop the carry rather than overflow. */
		cc->cwnd += sst_cc_mul_div(gap, acked, cc->cwnd);
		cb->cwnd_carry = 0;
		return;
	}
	cb->cwnd_carry += gap * acked;
	if (cb->cwnd_carry >= cc->cwnd) {
		uint64_t grow = cb->cwnd_carry / cc->cwnd;

		cb->cwnd_carry -= grow * cc->cwnd;
		cc->cwnd += grow;
	}
}

static void
cubic_avoid(struct sst_cc *cc, struct cubic *cb, const struct sst_cc_ack_event *ev, uint64_t acked)
{
	/* The path's RTT, not the smoothed one, which carries the queue the
	 * window itself builds: with it the target ran a queue's delay ahead
	 * of the curve (Linux's bictcp_update() adds delay_min). */
	sst_time_t rtt = ev->min_rtt != 0      ? ev->min_rtt
			 : ev->rtt_sample != 0 ? ev->rtt_sample
					       : ev->srtt;
	sst_time_t t;
	uint64_t w_t, target, cap;

	if (!cb->in_epoch)
		cubic_start_epoch(cc, cb, ev->now);
	t = ev->now > cb->epoch_start ? ev->now - cb->epoch_start : 0;
	w_t = cubic_window(cb, cc->mss, t);
	target = cubic_window(cb, cc->mss, sst_time_add(t, rtt));
	cap = cc->cwnd + cc->cwnd / 2;
	if (target < cc->cwnd)
		target = cc->cwnd;
	else if (target > cap)
		target = cap;

	cubic_grow_estimate(cc, cb, acked);
	if (w_t < cb->w_est) {
		/* Reno-friendly region: at least as fast as Reno would be. */
		if (cb->w_est > cc->cwnd)
			cc->cwnd = cb->w_est;
		return;
	}
	cubic_grow_window(cc, cb, target, acked);
}

/*
 * HyStart's delay test on one ack in slow start. The round's minimum, not
 * single samples, is compared, so that a burst queued behind itself does
 * not end slow start; the path's minimum is the channel's.
 */
static void
cubic_hystart(struct sst_cc *cc, struct cubic *cb, const struct sst_cc_ack_event *ev)
{
	sst_time_t thresh = RTE_MAX(HYSTART_DELAY_MIN, RTE_MIN(HYSTART_DELAY_MAX, ev->min_rtt / 8));

	if (ev->largest_acked > cb->round_end) {
		cb->round_end = cb->sent_highest;
		cb->round_samples = 0;
		cb->round_min_rtt = SST_TIME_NEVER;
	}
	if (ev->rtt_sample < cb->round_min_rtt)
		cb->round_min_rtt = ev->rtt_sample;
	if (cb->round_samples < HYSTART_MIN_SAMPLES) {
		cb->round_samples++;
		return;
	}
	if (cb->round_min_rtt > sst_time_add(ev->min_rtt, thresh)) {
		cb->hystart_done = true;
		cc->ssthresh = cc->cwnd;
		CUBIC_LOG(DEBUG,
			"HyStart: slow start ends at %" PRIu64 " bytes (round RTT %" PRIu64
			" ns, min %" PRIu64 " ns)",
			cc->cwnd, cb->round_min_rtt, ev->min_rtt);
	}
}

static void
cubic_init(struct sst_cc *cc, sst_time_t now)
{
	struct cubic *cb = cubic_priv(cc);

	memset(cb, 0, sizeof(*cb));
	cb->last_ack = now;
}

static void
cubic_on_sent(struct sst_cc *cc, const struct sst_cc_sent_event *ev)
{
	/* Only HyStart's rounds need it: idle time reaches the controller as
	 * application-limited acks. */
	cubic_priv(cc)->sent_highest = ev->seq;
}

static void
cubic_on_ack(struct sst_cc *cc, const struct sst_cc_ack_event *ev)
{
	struct cubic *cb = cubic_priv(cc);
	sst_time_t prev = cb->last_ack;
	uint64_t acked = ev->acked_bytes;

	cb->last_ack = ev->now;
	if (cc->in_recovery) {
		/* A full ack ends recovery (RFC 6582); it earns no growth. */
		if (ev->largest_acked > cc->recovery_seq)
			cc->in_recovery = false;
		return;
	}
	if (acked == 0)
		return;
	/* Samples of application-limited rounds count: the queue they see is
	 * the path's, whoever filled it. */
	if (cc->cwnd < cc->ssthresh && !cb->hystart_done && ev->rtt_sample != 0 &&
		ev->min_rtt != 0 && cc->cwnd >= (uint64_t)HYSTART_LOW_WINDOW * cc->mss)
		cubic_hystart(cc, cb, ev);
	if (ev->app_limited) {
		/* Section 5.8: no growth, and the time since the last ack does not count. */
		if (cb->in_epoch) {
			sst_time_t from = prev > cb->epoch_start ? prev : cb->epoch_start;

			if (ev->now > from)
				cb->epoch_start += ev->now - from;
		}
		return;
	}
	if (cc->cwnd < cc->ssthresh) {
		uint64_t room = cc->ssthresh - cc->cwnd;

		if (acked <= room) {
			cc->cwnd += acked;
			return;
		}
		cc->cwnd = cc->ssthresh;
		acked -= room;
	}
	cubic_avoid(cc, cb, ev, acked);
}

static void
cubic_on_loss(struct sst_cc *cc, const struct sst_cc_loss_event *ev)
{
	struct cubic *cb = cubic_priv(cc);

	/* One reduction per congestion event (RFC 6582 on sequence numbers). */
	if (ev->seq <= cc->recovery_seq)
		return;
	/* Section 4.7, fast convergence: a loss below W_max releases bandwidth. */
	if (cc->cwnd < cb->w_max)
		cb->w_max = sst_cc_mul_div(cc->cwnd, CUBIC_FC_NUM, CUBIC_FC_DEN);
	else
		cb->w_max = cc->cwnd;
	/* Section 4.6, multiplicative decrease. */
	cb->cwnd_prior = cc->cwnd;
	cc->ssthresh = cubic_ssthresh(cc);
	cc->cwnd = cc->ssthresh;
	cc->in_recovery = true;
	cc->recovery_seq = ev->largest_sent;
	cb->in_epoch = false;
	cb->after_rto = false;
}

static void
cubic_on_rto(struct sst_cc *cc, const struct sst_cc_rto_event *ev)
{
	struct cubic *cb = cubic_priv(cc);

	if (ev->no_rtt_sample) {
		/* The flow's first packets timed out: nothing was measured of
		 * the path, so slow start from one packet, as after a lost SYN
		 * (ssthresh and the congestion state stay). */
		cc->cwnd = cc->mss;
		cc->in_recovery = false;
		if (ev->largest_sent > cc->recovery_seq)
			cc->recovery_seq = ev->largest_sent;
		return;
	}
	/* Section 4.8: Reno's loss window, ssthresh from beta_cubic. */
	cb->cwnd_prior = cc->cwnd;
	cc->ssthresh = cubic_ssthresh(cc);
	cc->cwnd = cc->mss;
	cc->in_recovery = false;
	if (ev->largest_sent > cc->recovery_seq)
		cc->recovery_seq = ev->largest_sent;
	cb->in_epoch = false;
	cb->after_rto = true;
	/* The slow start that follows may end by delay again (Linux resets
	 * HyStart on entering its loss state). */
	cb->hystart_done = false;
	cb->round_end = 0;
}

static void
cubic_on_idle(struct sst_cc *cc, const struct sst_cc_idle_event *ev)
{
	struct cubic *cb = cubic_priv(cc);
	uint64_t iw = sst_cc_initial_window(cc->mss);
	uint64_t keep = cc->cwnd - cc->cwnd / 4;

	/* The curve resumes where it was when the silence began. */
	if (cb->in_epoch)
		cb->epoch_start += ev->idle;
	cb->last_ack = ev->now;
	if (cc->cwnd <= iw)
		return;
	if (keep > cc->ssthresh)
		cc->ssthresh = keep;
	cc->cwnd = iw;
}

static const struct sst_cc_ops cubic_ops = {
	.name = "cubic",
	.priv_size = sizeof(struct cubic),
	.init = cubic_init,
	.on_sent = cubic_on_sent,
	.on_ack = cubic_on_ack,
	.on_loss = cubic_on_loss,
	.on_rto = cubic_on_rto,
	.on_idle = cubic_on_idle,
};

RTE_INIT(cubic_register)
{
	int rc = sst_cc_register(&cubic_ops);

	if (rc != 0)
		CUBIC_LOG(ERR, "cannot register \"%s\": %d", cubic_ops.name, rc);
}
