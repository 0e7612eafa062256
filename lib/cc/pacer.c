/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Token-bucket pacer (sst_pacer.h). The bucket's content is kept in
 * nanobytes (10^-9 byte): a rate in bytes per second earns exactly
 * rate * elapsed_ns nanobytes, so refills need no division and lose no
 * fraction. A full bucket holds at most SST_PACER_BURST_MAX * 10^9 < 2^62
 * nanobytes, and every product below is first compared against the room
 * left in the bucket, so nothing overflows whatever the rate or the gap.
 */
#include <stdint.h>

#include "sst_cc_driver.h"
#include "sst_pacer.h"

#define NANO SST_NSEC_PER_SEC

/* The bucket's content in nanobytes. */
static uint64_t
pacer_content(const struct sst_pacer *p)
{
	return p->tokens * NANO + p->frac;
}

static void
pacer_set_content(struct sst_pacer *p, uint64_t nb)
{
	p->tokens = nb / NANO;
	p->frac = nb % NANO;
}

/* Nanoseconds a rate needs to earn nb nanobytes, rounded up. rate != 0. */
static uint64_t
pacer_time_for(uint64_t nb, uint64_t rate)
{
	return nb / rate + (nb % rate != 0);
}

/* How deep the bucket fills now, in bytes. What the rate earned while the
 * pacer itself held a packet back is owed in full (a sender woken late
 * catches up), up to the burst; only what it earned while the window or
 * an empty queue held the sender stops at the quantum. */
static uint64_t
pacer_depth(const struct sst_pacer *p)
{
	if (p->drained || p->held)
		return p->burst > p->quantum ? p->burst : p->quantum;
	return p->quantum;
}

/*
 * Credit the bucket for the time since p->last at the current (non-zero)
 * rate and move p->last to now. Does nothing while now <= p->last, which
 * covers both a repeated "now" and a debt not yet repaid. A bucket that
 * holds more than its depth (what it earned while drained) keeps it and
 * earns nothing.
 */
static void
pacer_refill(struct sst_pacer *p, sst_time_t now)
{
	uint64_t elapsed, have, full, room;

	if (now <= p->last)
		return;
	elapsed = now - p->last;
	p->last = now;
	have = pacer_content(p);
	full = pacer_depth(p) * NANO;
	if (have >= full)
		return;
	room = full - have;
	/* elapsed > room / rate  <=>  rate * elapsed > room, without the product. */
	if (elapsed > room / p->rate)
		pacer_set_content(p, full);
	else
		pacer_set_content(p, have + p->rate * elapsed);
}

/*
 * A quarter of a millisecond of the rate, at least the smallest quantum,
 * at most SST_PACER_SLICE_MAX unless the smallest is more. Linux sizes its
 * bursts to a millisecond; that let 4 and 5 packets go at once at
 * 50 Mbit/s (tests/sim/test_sim_bulk_loss.c). At tens of Gbit/s the slice
 * is what lets a sender hand over whole bursts: held to an initial window,
 * the in-memory bulk run cost 15 % more cycles a byte (session 16).
 */
static void
pacer_size_quantum(struct sst_pacer *p)
{
	uint64_t slice = p->rate / 4000;

	if (!p->sliced) {
		p->quantum = p->burst;
		return;
	}
	if (slice > SST_PACER_SLICE_MAX)
		slice = SST_PACER_SLICE_MAX;
	p->quantum = slice > p->quantum_min ? slice : p->quantum_min;
}

void
sst_pacer_init(struct sst_pacer *p, uint64_t burst, sst_time_t now)
{
	p->rate = 0;
	p->burst = burst < SST_PACER_BURST_MAX ? burst : SST_PACER_BURST_MAX;
	p->quantum_min = p->burst;
	p->quantum = p->burst;
	p->tokens = p->burst;
	p->frac = 0;
	p->last = now;
	p->drained = true;
	p->held = false;
	p->sliced = false;
}

void
sst_pacer_set_quantum(struct sst_pacer *p, uint64_t min_bytes)
{
	p->quantum_min = min_bytes;
	p->sliced = true;
	pacer_size_quantum(p);
}

void
sst_pacer_on_drained(struct sst_pacer *p, sst_time_t now)
{
	if (p->drained)
		return;
	/* What was earned until now was earned at the quantum's depth. */
	if (p->rate != 0)
		pacer_refill(p, now);
	p->drained = true;
}

void
sst_pacer_set_rate(struct sst_pacer *p, uint64_t rate, sst_time_t now)
{
	uint64_t old = p->rate;

	if (old == 0) {
		/* Pacing starts (or stays off): a fresh, full bucket. */
		p->rate = rate;
		pacer_size_quantum(p);
		p->tokens = p->burst;
		p->frac = 0;
		p->last = now;
		return;
	}
	pacer_refill(p, now);
	p->rate = rate;
	pacer_size_quantum(p);
	if (rate == 0 || p->last <= now)
		return;
	/*
	 * A debt of (last - now) * old nanobytes is outstanding: it takes
	 * (last - now) * old / rate at the new rate (saturating; such a debt
	 * means the sender ignored the pacer for a very long time).
	 */
	p->last = sst_time_add(now, sst_cc_mul_div(p->last - now, old, rate));
}

sst_time_t
sst_pacer_next_send(struct sst_pacer *p, uint32_t bytes, sst_time_t now)
{
	uint64_t need, have;
	sst_time_t from;

	if (p->rate == 0)
		return now;
	pacer_refill(p, now);
	/* A packet larger than the bucket waits for a full bucket only. */
	need = (bytes < pacer_depth(p) ? bytes : pacer_depth(p)) * NANO;
	have = pacer_content(p);
	from = p->last > now ? p->last : now;
	p->held = from > now || have < need;
	if (have >= need)
		return from;
	return sst_time_add(from, pacer_time_for(need - have, p->rate));
}

uint32_t
sst_pacer_packets_ready(const struct sst_pacer *p, uint32_t bytes)
{
	uint64_t n;

	if (p->rate == 0)
		return UINT32_MAX;
	n = p->tokens / bytes;
	if (n == 0)
		return 1;
	return n < UINT32_MAX ? (uint32_t)n : UINT32_MAX - 1;
}

void
sst_pacer_on_sent(struct sst_pacer *p, uint32_t bytes, sst_time_t now)
{
	uint64_t cost = (uint64_t)bytes * NANO;
	uint64_t have, debt, extra, wait;

	if (p->rate == 0) {
		p->drained = false;
		p->held = false;
		return;
	}
	pacer_refill(p, now);
	p->drained = false;
	p->held = false;
	have = pacer_content(p);
	if (have >= cost) {
		pacer_set_content(p, have - cost);
		return;
	}
	/*
	 * Debt: the bucket is empty until the rate has earned the missing
	 * nanobytes. Waiting a whole number of nanoseconds earns up to
	 * rate - 1 nanobytes more than the debt; they stay in the bucket.
	 */
	debt = cost - have;
	wait = pacer_time_for(debt, p->rate);
	extra = (p->rate - debt % p->rate) % p->rate;
	if (extra > p->quantum * NANO)
		extra = p->quantum * NANO;
	pacer_set_content(p, extra);
	p->last = sst_time_add(p->last, wait);
}
