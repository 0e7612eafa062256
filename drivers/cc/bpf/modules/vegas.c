/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A delay-based module after TCP Vegas (Brakmo and Peterson, 1995). Once
 * per round trip it compares the window with the packets the path holds
 * at the base RTT: diff = cwnd * (rtt - base_rtt) / rtt, in packets, is
 * the backlog this flow keeps in the bottleneck's queue. Below ALPHA
 * packets the window grows by one packet, above BETA it shrinks by one;
 * in slow start it doubles per round trip until the backlog exceeds
 * GAMMA. rtt is the smallest sample of the round (the least noisy),
 * base_rtt the channel's min_rtt. Losses halve the window as in Reno, a
 * timeout collapses it to one packet (a timeout of the first flight, before
 * any RTT sample, keeps slow start on). After idle it restarts from
 * min(IW, cwnd) with a fresh round, as Linux's Vegas does.
 */
#include "sst_cc_bpf_abi.h"

SST_CC_BPF_MODULE;

#define ALPHA 2
#define BETA 4
#define GAMMA 1

struct vegas {
	uint64_t round_start; /* when this round's samples began; 0: none */
	uint64_t round_min;   /* smallest RTT sample this round; 0: none */
	uint64_t slow_start;  /* 1 until the first backlog above GAMMA or loss */
	uint64_t started;     /* init ran */
};

_Static_assert(sizeof(struct vegas) <= SST_CC_BPF_SCRATCH, "vegas state too large");

#define VEGAS(ctx) ((struct vegas *)(ctx)->scratch)

static inline __attribute__((always_inline)) uint64_t
vegas_floor(const struct sst_cc_bpf_ctx *ctx)
{
	return 2 * (uint64_t)ctx->mss;
}

SST_CC_BPF_SEC(SST_CC_BPF_SEC_INIT)
uint64_t
vegas_init(struct sst_cc_bpf_ctx *ctx)
{
	VEGAS(ctx)->slow_start = 1;
	VEGAS(ctx)->started = 1;
	return ctx->cwnd;
}

SST_CC_BPF_SEC(SST_CC_BPF_SEC_ACK)
uint64_t
vegas_on_ack(struct sst_cc_bpf_ctx *ctx)
{
	struct vegas *vg = VEGAS(ctx);
	uint64_t cwnd = ctx->cwnd, mss = ctx->mss;
	uint64_t rtt, base, diff;

	if (ctx->rtt_sample != 0 && (vg->round_min == 0 || ctx->rtt_sample < vg->round_min))
		vg->round_min = ctx->rtt_sample;
	if (vg->round_start == 0) {
		vg->round_start = ctx->now;
		return cwnd;
	}
	/* One decision per round trip. */
	if (ctx->srtt == 0 || ctx->now - vg->round_start < ctx->srtt || ctx->app_limited)
		return cwnd;
	rtt = vg->round_min;
	base = ctx->min_rtt;
	vg->round_start = ctx->now;
	vg->round_min = 0;
	if (rtt == 0 || base == 0 || rtt < base)
		return cwnd;
	diff = cwnd / mss * (rtt - base) / rtt;
	if (vg->slow_start) {
		if (diff <= GAMMA)
			return cwnd * 2;
		vg->slow_start = 0;
		ctx->ssthresh = cwnd;
	}
	if (diff < ALPHA)
		return cwnd + mss;
	if (diff > BETA && cwnd > vegas_floor(ctx) + mss)
		return cwnd - mss;
	return cwnd;
}

SST_CC_BPF_SEC(SST_CC_BPF_SEC_LOSS)
uint64_t
vegas_on_loss(struct sst_cc_bpf_ctx *ctx)
{
	uint64_t half = ctx->bytes_in_flight / 2;

	if (ctx->seq <= ctx->recovery_seq)
		return ctx->cwnd;
	VEGAS(ctx)->slow_start = 0;
	ctx->recovery_seq = ctx->largest_sent;
	ctx->ssthresh = half > vegas_floor(ctx) ? half : vegas_floor(ctx);
	return ctx->ssthresh;
}

SST_CC_BPF_SEC(SST_CC_BPF_SEC_RTO)
uint64_t
vegas_on_rto(struct sst_cc_bpf_ctx *ctx)
{
	if (ctx->largest_sent > ctx->recovery_seq)
		ctx->recovery_seq = ctx->largest_sent;
	if (ctx->flags & SST_CC_BPF_F_NO_RTT_SAMPLE)
		return ctx->mss; /* the first flight: nothing measured yet */
	VEGAS(ctx)->slow_start = 0;
	ctx->ssthresh = vegas_floor(ctx);
	return ctx->mss;
}

SST_CC_BPF_SEC(SST_CC_BPF_SEC_IDLE)
uint64_t
vegas_on_idle(struct sst_cc_bpf_ctx *ctx)
{
	uint64_t mss = ctx->mss;
	uint64_t iw = 10 * mss, cap = 14600 > 2 * mss ? 14600 : 2 * mss;

	if (iw > cap)
		iw = cap;
	/* The samples of the last round are stale. */
	VEGAS(ctx)->round_start = 0;
	VEGAS(ctx)->round_min = 0;
	return ctx->cwnd < iw ? ctx->cwnd : iw;
}
