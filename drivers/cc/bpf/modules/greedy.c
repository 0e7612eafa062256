/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A greedy module: the largest window the driver allows, whatever happens.
 * It never backs off, which is what a hostile peer would ship; it exists
 * to be policed (docs/stp.md).
 */
#include "sst_cc_bpf_abi.h"

SST_CC_BPF_MODULE;

SST_CC_BPF_SEC(SST_CC_BPF_SEC_INIT)
uint64_t
greedy_init(struct sst_cc_bpf_ctx *ctx)
{
	(void)ctx;
	return SST_CC_BPF_CWND_MAX;
}

SST_CC_BPF_SEC(SST_CC_BPF_SEC_ACK)
uint64_t
greedy_on_ack(struct sst_cc_bpf_ctx *ctx)
{
	(void)ctx;
	return SST_CC_BPF_CWND_MAX;
}

SST_CC_BPF_SEC(SST_CC_BPF_SEC_LOSS)
uint64_t
greedy_on_loss(struct sst_cc_bpf_ctx *ctx)
{
	(void)ctx;
	return SST_CC_BPF_CWND_MAX;
}

SST_CC_BPF_SEC(SST_CC_BPF_SEC_RTO)
uint64_t
greedy_on_rto(struct sst_cc_bpf_ctx *ctx)
{
	(void)ctx;
	return SST_CC_BPF_CWND_MAX;
}
