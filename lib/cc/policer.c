/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TCP-friendly policer (sst_policer.h): STP's Figure 3 states over the
 * rate rules of RFC 5348 (TFRC), computed from the channel's acks and
 * losses only.
 */
#include <math.h>
#include <string.h>

#include "sst_cc.h"
#include "sst_policer.h"

/* RFC 5348 section 5.4: weights of the 8 most recent loss intervals, in tenths. */
static const uint32_t interval_weight[SST_POLICER_INTERVALS] = {10, 10, 10, 10, 8, 6, 4, 2};

/* RFC 5348 section 4.2's initial window, per round trip. */
static uint64_t
policer_initial_rate(const struct sst_policer *p)
{
	uint64_t w = 4380 > 2 * (uint64_t)p->mss ? 4380 : 2 * (uint64_t)p->mss;

	if (w > 4 * (uint64_t)p->mss)
		w = 4 * (uint64_t)p->mss;
	return sst_cc_mul_div(w, SST_NSEC_PER_SEC, p->srtt);
}

/* One packet per 64 s (RFC 5348's t_mbi), the least a sender is allowed. */
static uint64_t
policer_min_rate(const struct sst_policer *p)
{
	return (p->mss + 63) / 64;
}

uint64_t
sst_policer_tcp_rate(uint32_t mss, sst_time_t rtt, uint32_t loss_ppm)
{
	double r = (double)rtt / 1e9, lp = (double)loss_ppm / 1e6;
	double denom =
		r * sqrt(2 * lp / 3) + 4 * r * (3 * sqrt(3 * lp / 8)) * lp * (1 + 32 * lp * lp);
	double x = (double)mss / denom;

	return x >= 1.8e19 ? UINT64_MAX : (uint64_t)x;
}

uint32_t
sst_policer_loss_rate_ppm(const struct sst_policer *p)
{
	uint64_t closed = 0, with_open = 0, wclosed = 0, wopen = 0;
	uint64_t mean;

	if (p->nintervals == 0)
		return 0;
	for (unsigned int i = 0; i < p->nintervals; i++) {
		closed += (uint64_t)interval_weight[i] * p->intervals[i];
		wclosed += interval_weight[i];
	}
	/* The open interval counts as the most recent when it raises the mean. */
	with_open = (uint64_t)interval_weight[0] * p->open_interval;
	wopen = interval_weight[0];
	for (unsigned int i = 0; i + 1 < SST_POLICER_INTERVALS && i < p->nintervals; i++) {
		with_open += (uint64_t)interval_weight[i + 1] * p->intervals[i];
		wopen += interval_weight[i + 1];
	}
	mean = closed / wclosed > with_open / wopen ? closed / wclosed : with_open / wopen;
	return mean == 0 ? 1000000 : (uint32_t)(1000000 / mean > 0 ? 1000000 / mean : 1);
}

uint64_t
sst_policer_window(const struct sst_policer *p)
{
	uint64_t w = p->rate;

	/* Per event, for every module: rate x srtt fits in 64 bits but on a
	 * path of seconds at gigabytes per second, and a division by the
	 * constant 10^9 compiles to a multiplication, where the 128-bit
	 * quotient of sst_cc_mul_div() is a call to __udivti3 (tens of cycles;
	 * callgrind, perf/cc_bench). Both give the same floor. */
	if (p->srtt != 0 && __builtin_mul_overflow(p->rate, p->srtt, &w))
		w = sst_cc_mul_div(p->rate, p->srtt, SST_NSEC_PER_SEC);
	else if (p->srtt != 0)
		w /= SST_NSEC_PER_SEC;

	return w > p->mss ? w : p->mss;
}

void
sst_policer_init(struct sst_policer *p, uint32_t mss, sst_time_t now)
{
	memset(p, 0, sizeof(*p));
	p->state = SST_POLICER_INIT;
	p->mss = mss;
	p->rate = 4 * (uint64_t)mss; /* 4 packets per second */
	p->last_feedback = now;
	p->epoch_start = now;
}

/* RFC 5348 4.3's recv_limit: twice the largest receive rate of the last
 * two round trips (once after a loss in a data-limited one); the rate in
 * force while nothing was received (before the first round trip). */
static uint64_t
policer_recv_limit(const struct sst_policer *p)
{
	uint64_t m = p->recv_set[0] > p->recv_set[1] ? p->recv_set[0] : p->recv_set[1];

	if (m == 0)
		return p->rate;
	if (p->recv_limit_1x)
		return m;
	return m > UINT64_MAX / 2 ? UINT64_MAX : 2 * m;
}

/*
 * The allowed rate after a round trip (or a loss), by state: RFC 5348
 * section 4.3's step 4. The receive limit is twice the largest receive rate
 * of the last two round trips (X_recv_set), so that one round trip that
 * measured little (a stall of the host, an ack held back) does not collapse
 * the allowance. Slow start allows the receive limit itself (at most a
 * doubling of what was received), not the RFC's min(2 X, recv_limit): a
 * doubling from the rate allowed compounds with the no-feedback timer's
 * halvings, and in test_policer's real-time runs held NewReno to 4-13 % of
 * its rate when the host stalled for 4-16 ms every few round trips.
 */
static void
policer_update_rate(struct sst_policer *p)
{
	uint64_t init = policer_initial_rate(p);
	uint64_t limit = policer_recv_limit(p);

	if (p->state == SST_POLICER_SLOWSTART) {
		p->rate = limit > init ? limit : init;
	} else if (p->state == SST_POLICER_STEADY) {
		uint64_t x = sst_policer_tcp_rate(p->mss, p->srtt, sst_policer_loss_rate_ppm(p));

		x = x / 10 * 13; /* STP's 1.3 x */
		p->rate = x < limit ? x : limit;
	}
	if (p->rate < policer_min_rate(p))
		p->rate = policer_min_rate(p);
}

/*
 * RFC 5348 section 4.3's X_recv_set at the end of a round trip that received
 * @p x bytes per second. A data-limited round trip (the application, or flow
 * control, left the window unfilled) says nothing of what the path can
 * carry: the set keeps its largest value and is never lowered ("Maximize
 * X_recv_set"), unless the round trip had a new loss event, when its
 * entries are halved and x counts for 0.85 of itself, and the limit is the
 * set's maximum rather than twice it.
 */
static void
policer_recv_set(struct sst_policer *p, uint64_t x)
{
	uint64_t m;

	p->recv_limit_1x = false;
	p->last_limited = p->epoch_limited;
	if (!p->epoch_limited) {
		p->recv_set[1] = p->recv_set[0];
		p->recv_set[0] = x;
		return;
	}
	if (p->epoch_loss) {
		p->recv_set[0] /= 2;
		p->recv_set[1] /= 2;
		x = x / 20 * 17;
		p->recv_limit_1x = true;
	}
	m = p->recv_set[0] > p->recv_set[1] ? p->recv_set[0] : p->recv_set[1];
	m = m > x ? m : x;
	p->recv_set[0] = m;
	p->recv_set[1] = m;
}

/*
 * The round trip that closed at this instant received @p x bytes per second
 * after all (acks of the same instant came after the one that closed it):
 * its entry of X_recv_set as policer_recv_set() would have made it.
 */
static void
policer_recv_amend(struct sst_policer *p, uint64_t x)
{
	if (!p->last_limited) {
		p->recv_set[0] = x;
		return;
	}
	if (p->recv_limit_1x)
		x = x / 20 * 17;
	if (x > p->recv_set[0]) {
		p->recv_set[0] = x;
		p->recv_set[1] = x;
	}
}

/*
 * RFC 5348 section 4.4's no-feedback timer, checked when feedback comes:
 * the rate halves each time max(4 R, 2 s / X) passes without any, the
 * interval growing as X falls (with round trips of microseconds, 4 R alone
 * would take a host's stall of milliseconds for hundreds of expiries). As
 * the RFC does, the halving goes into X_recv_set, a single value of half
 * the new rate, so that the next round trip's limit does not undo it.
 *
 * Only in STEADY, where STP's Figure 3 halves after 4 idle round trips: in
 * SLOWSTART the rate is twice what the receiver got, which a silence does
 * not raise, and a silence of the path ends in a retransmission timeout,
 * a loss, and STEADY. Applied in SLOWSTART, it took every descheduling of
 * a loaded host (sst-perf's loopback: stalls of 1-50 ms against round
 * trips of 50 us) for a dozen expiries, and NewReno in eBPF restarted each
 * time slice from the initial window, at a tenth of native NewReno's rate.
 */
static void
policer_idle(struct sst_policer *p, sst_time_t now)
{
	sst_time_t idle;
	bool halved = false;

	if (p->state != SST_POLICER_STEADY || p->srtt == 0 || now <= p->last_feedback)
		return;
	idle = now - p->last_feedback;
	/* Each halving waits at least 4 R: an ack within that of the last
	 * (nearly all of them) needs no division (one per ack before; it was
	 * most of the policer's cost per event in perf/cc_bench). */
	while (idle >= 4 * p->srtt && p->rate > policer_min_rate(p)) {
		sst_time_t t = sst_cc_mul_div(2 * (uint64_t)p->mss, SST_NSEC_PER_SEC, p->rate);

		if (t < 4 * p->srtt)
			t = 4 * p->srtt;
		if (idle < t)
			break;
		idle -= t;
		p->rate /= 2;
		halved = true;
	}
	if (p->rate < policer_min_rate(p))
		p->rate = policer_min_rate(p);
	if (halved) {
		p->recv_set[0] = p->rate / 2;
		p->recv_set[1] = p->rate / 2;
		p->recv_limit_1x = false;
	}
}

/* The end of a round trip for the compliance average. */
static void
policer_close_epoch(struct sst_policer *p)
{
	uint64_t mean = 0;
	uint64_t ratio;

	if (p->req_n != 0 && !p->epoch_limited) {
		/* One round trip counts for at most twice the allowance, so that a
		 * spike alone does not condemn a controller that complies otherwise.
		 * Each request is weighed against the allowance it was made under,
		 * not the one this round trip's end computed: a round trip that
		 * spanned a stall of the host (a receive rate of almost nothing)
		 * ends with a small allowance that no request of it saw. */
		ratio = sst_cc_mul_div(p->req_sum, 64, p->allow_sum);
		p->ratio[p->ratio_next] = ratio > 128 ? 128 : (uint8_t)ratio;
		p->ratio_next = (uint8_t)((p->ratio_next + 1) % SST_POLICER_EPOCHS);
		if (p->nepochs < SST_POLICER_EPOCHS)
			p->nepochs++;
	}
	p->req_sum = 0;
	p->allow_sum = 0;
	p->req_n = 0;
	p->epoch_limited = false;
	p->epoch_loss = false;
	if (p->nepochs < SST_POLICER_EPOCHS)
		return;
	for (unsigned int i = 0; i < SST_POLICER_EPOCHS; i++)
		mean += p->ratio[i];
	if (mean > 64 * SST_POLICER_EPOCHS) {
		p->pending = true;
		p->nepochs = 0; /* judged again on 8 fresh round trips */
	}
}

void
sst_policer_on_ack(struct sst_policer *p, sst_time_t now, uint64_t acked_bytes,
	uint64_t acked_packets, sst_time_t rtt_sample, sst_time_t srtt, bool app_limited)
{
	sst_time_t round;

	policer_idle(p, now);
	p->last_feedback = now;
	p->open_interval += acked_packets;
	if (srtt != 0)
		p->srtt = srtt;
	if (rtt_sample != 0)
		p->rtt_last = rtt_sample < UINT32_MAX ? (uint32_t)rtt_sample : UINT32_MAX;
	/* Acks handed over at the instant a round trip closed (a burst of
	 * them, as a receiver that takes 32 packets at a time sends) arrived
	 * within it: counted in the next one, the loopback's pairs of acks
	 * halved its receive rate, and the whole flight acked at once after a
	 * stall would count as received within the next round trip. */
	if (p->last_len != 0 && now == p->epoch_start) {
		p->epoch_bytes += acked_bytes;
		policer_recv_amend(
			p, sst_cc_mul_div(p->epoch_bytes, SST_NSEC_PER_SEC, p->last_len));
		policer_update_rate(p);
		p->epoch_limited |= app_limited;
		return;
	}
	if (p->last_len != 0) {
		p->last_len = 0; /* the next round trip's first ack */
		p->epoch_bytes = 0;
	}
	p->epoch_bytes += acked_bytes;
	p->epoch_limited |= app_limited;
	if (p->state == SST_POLICER_INIT) {
		if (p->srtt == 0 && rtt_sample == 0)
			return;
		if (p->srtt == 0)
			p->srtt = rtt_sample;
		p->state = SST_POLICER_SLOWSTART;
		p->rate = policer_initial_rate(p);
		p->epoch_start = now;
		p->epoch_bytes = 0;
		return;
	}
	/* A round trip is the latest RTT sample when that is shorter than srtt:
	 * a stall of the host (milliseconds, against round trips of tens of
	 * microseconds on a loopback) inflates srtt for many round trips, and a
	 * receive rate averaged over a stall is not the rate of a round trip. */
	round = p->rtt_last != 0 && p->rtt_last < p->srtt ? p->rtt_last : p->srtt;
	if (now < p->epoch_start + round)
		return;
	policer_recv_set(p, sst_cc_mul_div(p->epoch_bytes, SST_NSEC_PER_SEC, now - p->epoch_start));
	policer_update_rate(p);
	policer_close_epoch(p);
	/* Its bytes stay in epoch_bytes while acks of this instant amend it. */
	p->last_len =
		now - p->epoch_start < UINT32_MAX ? (uint32_t)(now - p->epoch_start) : UINT32_MAX;
	p->epoch_start = now;
}

void
sst_policer_on_loss(struct sst_policer *p, sst_time_t now)
{
	/* RFC 5348 section 5.2: losses within a round trip of an event's first
	 * loss belong to that event. */
	if (p->nintervals != 0 && now < p->loss_event_start + p->srtt)
		return;
	memmove(&p->intervals[1], &p->intervals[0],
		(SST_POLICER_INTERVALS - 1) * sizeof(p->intervals[0]));
	p->intervals[0] = p->open_interval == 0		  ? 1
			  : p->open_interval > UINT32_MAX ? UINT32_MAX
							  : (uint32_t)p->open_interval;
	if (p->nintervals < SST_POLICER_INTERVALS)
		p->nintervals++;
	p->open_interval = 0;
	p->loss_event_start = now;
	p->epoch_loss = true;
	if (p->state == SST_POLICER_INIT)
		return; /* no RTT yet: the INIT rate stands */
	p->state = SST_POLICER_STEADY;
	policer_update_rate(p);
}

bool
sst_policer_account(struct sst_policer *p, uint64_t given, uint64_t asked, uint64_t acked)
{
	const uint64_t cap = 1ULL << 40; /* keeps a round trip's sums exact */
	uint64_t allowed = sst_policer_window(p);

	/* A controller held at the cap grows from the window it was given: by
	 * the bytes acked in slow start (RFC 5681 3.1, byte counting), less in
	 * congestion avoidance. With round trips of tens of microseconds, a
	 * host that is descheduled for milliseconds sees the receive rate and
	 * the allowance collapse, and then acks of 32 packets at once (found
	 * with sst-perf's loopback, where NewReno in eBPF was revoked in every
	 * run): each of NewReno's requests exceeded the allowance by the bytes
	 * its ack acknowledged. Such a request sends nothing above the cap;
	 * greed is asking beyond it. */
	if (given <= cap && acked <= cap && allowed < given + acked)
		allowed = given + acked;
	p->req_sum += asked < cap ? asked : cap;
	p->allow_sum += allowed < cap ? allowed : cap;
	p->req_n++;
	if (!p->pending)
		return false;
	p->pending = false;
	p->violations++;
	return true;
}
