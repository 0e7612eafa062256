/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NewReno as a bpf module: the same algorithm, to the byte, as
 * drivers/cc/newreno/newreno.c (RFC 5681 with byte counting, RFC 6582
 * recovery on packet sequence numbers, the restart after idle);
 * tests/unit/cc/test_cc_bpf.c compares the two event by event, and
 * tests/sim/test_sim_stp_trace.c compares their cwnd traces in the
 * simulator.
 */
#include "sst_cc_bpf_abi.h"

SST_CC_BPF_MODULE;

struct newreno {
	uint64_t ca_carry; /* mss * acked not yet turned into window, < cwnd */
};

_Static_assert(sizeof(struct newreno) <= SST_CC_BPF_SCRATCH, "newreno state too large");

static inline __attribute__((always_inline)) struct newreno *
nr_state(struct sst_cc_bpf_ctx *ctx)
{
	return (struct newreno *)ctx->scratch;
}

/* ssthresh after a congestion event: half the window (Linux's, not
 * RFC 5681's half the flight), at least two packets. */
static inline __attribute__((always_inline)) uint64_t
nr_ssthresh(const struct sst_cc_bpf_ctx *ctx)
{
	uint64_t half = ctx->cwnd / 2;
	uint64_t floor = 2 * (uint64_t)ctx->mss;

	return half > floor ? half : floor;
}

SST_CC_BPF_SEC(SST_CC_BPF_SEC_ACK)
uint64_t
nr_on_ack(struct sst_cc_bpf_ctx *ctx)
{
	struct newreno *nr = nr_state(ctx);
	uint64_t cwnd = ctx->cwnd;
	uint64_t acked = ctx->bytes_acked;
	uint64_t carry;

	if (ctx->in_recovery) {
		/* A full ack ends recovery; it earns no growth. */
		if (ctx->seq > ctx->recovery_seq)
			ctx->in_recovery = 0;
		return cwnd;
	}
	if (ctx->app_limited || acked == 0)
		return cwnd;
	if (cwnd < ctx->ssthresh) {
		uint64_t room = ctx->ssthresh - cwnd;

		if (acked <= room)
			return cwnd + acked;
		acked -= room;
		/* The window is now ssthresh, which exceeds the old window (>= 1). */
		cwnd = ctx->ssthresh;
	}
	carry = nr->ca_carry + (uint64_t)ctx->mss * acked;
	if (carry >= cwnd) {
		/* cwnd is not 0: the context's window, or ssthresh above it. */
		uint64_t grow = carry / cwnd;

		carry -= grow * cwnd;
		cwnd += grow;
	}
	nr->ca_carry = carry;
	return cwnd;
}

SST_CC_BPF_SEC(SST_CC_BPF_SEC_LOSS)
uint64_t
nr_on_loss(struct sst_cc_bpf_ctx *ctx)
{
	/* A loss at or below the recovery point is the same congestion event. */
	if (ctx->seq <= ctx->recovery_seq)
		return ctx->cwnd;
	ctx->ssthresh = nr_ssthresh(ctx);
	ctx->in_recovery = 1;
	ctx->recovery_seq = ctx->largest_sent;
	nr_state(ctx)->ca_carry = 0;
	return ctx->ssthresh;
}

SST_CC_BPF_SEC(SST_CC_BPF_SEC_RTO)
uint64_t
nr_on_rto(struct sst_cc_bpf_ctx *ctx)
{
	/* Before any RTT sample the initial window measured nothing of the
	 * path: ssthresh stays, as after a lost SYN. */
	if (!(ctx->flags & SST_CC_BPF_F_NO_RTT_SAMPLE))
		ctx->ssthresh = nr_ssthresh(ctx);
	ctx->in_recovery = 0;
	if (ctx->largest_sent > ctx->recovery_seq)
		ctx->recovery_seq = ctx->largest_sent;
	nr_state(ctx)->ca_carry = 0;
	return ctx->mss; /* RFC 5681 loss window */
}

/* RFC 5681 section 4.1: after a silence longer than the timeout, restart
 * from min(IW, cwnd), keeping 3/4 of the window in ssthresh (RFC 2861). */
SST_CC_BPF_SEC(SST_CC_BPF_SEC_IDLE)
uint64_t
nr_on_idle(struct sst_cc_bpf_ctx *ctx)
{
	uint64_t mss = ctx->mss, cwnd = ctx->cwnd;
	uint64_t iw = 10 * mss, cap = 14600 > 2 * mss ? 14600 : 2 * mss;
	uint64_t keep = cwnd - cwnd / 4;

	if (iw > cap)
		iw = cap;
	if (cwnd <= iw)
		return cwnd;
	if (keep > ctx->ssthresh)
		ctx->ssthresh = keep;
	nr_state(ctx)->ca_carry = 0;
	return iw;
}
