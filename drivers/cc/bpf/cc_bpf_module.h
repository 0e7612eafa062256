/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bpf driver's module cache and per-channel state, shared by the
 * driver (cc_bpf.c) and its telemetry (cc_bpf_tel.c); never installed.
 */
#ifndef CC_BPF_MODULE_H
#define CC_BPF_MODULE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <sodium.h>

#include "cc_bpf.h"
#include "sst_cc_stp.h"
#include "sst_log.h"
#include "sst_policer.h"

/* The driver's log type (cc_bpf.c) and its macro, for its files. */
extern int sst_logtype_cc_bpf;
#define CC_BPF_LOG(level, fmt, ...) SST_LOG(level, sst_logtype_cc_bpf, "cc_bpf", fmt, ##__VA_ARGS__)

enum {
	CC_BPF_CACHE_MAX = 16, /* modules per process */
	CC_BPF_SOURCE_MAX = 256,
	CC_BPF_HASH_LEN = crypto_generichash_BYTES, /* 32: BLAKE2b-256 */
};

struct rte_bpf;

struct cc_bpf_prog {
	struct rte_bpf *bpf; /* NULL: the module has no such entry point */
	uint64_t (*native)(void *ctx);
};

struct cc_bpf_module {
	struct sst_cc_ops ops; /* first: cc->ops points here */
	uint8_t hash[CC_BPF_HASH_LEN];
	bool jit;		  /* loaded for native execution (bpf:, not bpfi:) */
	bool native;		  /* every entry point runs natively */
	uint32_t abi_version;	  /* the module's (SST_CC_BPF_ABI_OLDEST to _VERSION) */
	uint64_t budget;	  /* TSC cycles per call, averaged over a window */
	atomic_uint revoked;	  /* enum sst_cc_stp_revoke: channels leave it */
	atomic_ullong fallbacks;  /* channels that left it for the fallback */
	atomic_ullong violations; /* policer verdicts against it */
	atomic_ullong overruns;	  /* timed calls over its budget */
	bool policed;		  /* under the TCP-friendly policer (the default) */
	uint16_t scratch_len;	  /* bytes of scratch any entry point may touch */
	char source[CC_BPF_SOURCE_MAX];
	struct cc_bpf_prog prog[SST_CC_BPF_EV_COUNT];
};

/* Per-channel state in cc->priv: the module's scratch and the measurements
 * the context carries that no single event does. */
struct cc_bpf_state {
	uint8_t scratch[SST_CC_BPF_SCRATCH] __attribute__((aligned(8)));
	sst_time_t srtt, min_rtt, rttvar;
	uint64_t losses, timeouts;
	uint64_t delivered, delivery_rate;
	uint64_t dr_mark_delivered;
	sst_time_t dr_mark_time;
	bool dr_marked, rtt_seen;
	uint16_t win_calls; /* timed calls in this budget window */
	uint16_t win_over;  /* of which over the budget */
	struct sst_policer pol;
	uint32_t rng;	   /* xorshift32: chooses the timed calls */
	uint32_t overruns; /* timed calls over the budget (telemetry; wraps) */
	uint64_t calls;	   /* module calls on this channel (telemetry) */
};

/* The cache: entries [0, cc_bpf_count) are published, never removed. */
extern struct cc_bpf_module cc_bpf_cache[CC_BPF_CACHE_MAX];
extern atomic_uint cc_bpf_count;

/* Refusals by the step that refused, for the whole process (telemetry). */
extern atomic_ullong cc_bpf_refused[4];
enum cc_bpf_refusal {
	CC_BPF_REFUSED_ELF,
	CC_BPF_REFUSED_VERIFIER,
	CC_BPF_REFUSED_RTE_BPF,
	CC_BPF_REFUSED_REVOKED,
};

/* Count a refusal for the process and the thread's worker. */
void cc_bpf_count_refusal(enum cc_bpf_refusal why);

/* The stp_info op of every module (sst_cc_stp.h). */
int cc_bpf_stp_info(const struct sst_cc *cc, struct sst_cc_stp_info *info);

/* Register /sst/cc_bpf and /sst/cc_bpf_modules (from the constructor). */
void cc_bpf_telemetry_register(void);

#endif /* CC_BPF_MODULE_H */
