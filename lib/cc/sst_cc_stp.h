/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * What a host shows of the untrusted controllers it runs (STP, docs/stp.md,
 * "Telemetry"): the counters of the events that concern them, attributed to
 * whoever runs them (a worker), and what one channel's controller is (which
 * module, how it is executed, its policer's state).
 *
 * lib/cc knows neither the workers nor the bpf driver: a worker names the
 * counters its thread's events go to with sst_cc_stp_sink_set() while it
 * polls, and the driver adds to them (sst_cc_stp_sink()) on the rare events
 * only (a load, a refusal, a revocation, a timed call over budget, a channel
 * leaving a module), never per call. The sink is per thread, so a worker's
 * counters have one writer, its own thread, which also publishes them.
 */
#ifndef SST_CC_STP_H
#define SST_CC_STP_H

#include <stdbool.h>
#include <stdint.h>

struct sst_cc;

/** Events of untrusted controllers, as counted for one worker (or process). */
struct sst_cc_stp_stats {
	uint64_t loads;		   /**< modules loaded (new to the process's cache) */
	uint64_t refused_elf;	   /**< refused by the ELF reader (or the ABI word) */
	uint64_t refused_verifier; /**< refused by the pre-verifier */
	uint64_t refused_rte_bpf;  /**< refused by rte_bpf's validator or loader */
	uint64_t refused_revoked;  /**< asked for again after their revocation */
	uint64_t revoked_policer;  /**< modules revoked by a policer verdict */
	uint64_t revoked_budget;   /**< modules revoked by the CPU budget */
	uint64_t budget_overruns;  /**< timed calls that took more than the budget */
	uint64_t fallbacks;	   /**< channels moved from a revoked module to NewReno */
};

/** Why a module was revoked (none: it was not). */
enum sst_cc_stp_revoke {
	SST_CC_STP_REVOKE_NONE = 0, /**< not revoked */
	SST_CC_STP_REVOKE_POLICER,  /**< it asked for more than the policer allowed */
	SST_CC_STP_REVOKE_BUDGET,   /**< its calls took more than its CPU budget */
};

/** What one channel's controller is, when it is an untrusted module. */
struct sst_cc_stp_info {
	uint8_t hash[32];	/**< the module's identity: BLAKE2b-256 of its ELF image */
	bool native;		/**< JIT-compiled (else rte_bpf's interpreter) */
	bool policed;		/**< under the TCP-friendly policer */
	uint8_t revoked;	/**< enum sst_cc_stp_revoke: the channel leaves at its next event */
	uint8_t policer_state;	/**< enum sst_policer_state */
	uint32_t loss_rate_ppm; /**< the policer's loss event rate, millionths */
	uint64_t policer_rate;	/**< allowed bytes per second */
	uint64_t policer_window;  /**< allowed window, bytes */
	uint64_t calls;		  /**< module calls on this channel */
	uint64_t budget_overruns; /**< calls timed for the budget that exceeded it */
	uint64_t budget;	  /**< the module's budget, TSC cycles per call */
};

/**
 * Direct the calling thread's counts to @p s (NULL: nowhere).
 * @param s
 *   Counters the thread alone writes while they are set, or NULL.
 * @return
 *   The counters set before, to restore when done.
 */
struct sst_cc_stp_stats *sst_cc_stp_sink_set(struct sst_cc_stp_stats *s);

/**
 * The calling thread's counters, or NULL when nobody counts.
 * @return
 *   What sst_cc_stp_sink_set() last set on this thread.
 */
struct sst_cc_stp_stats *sst_cc_stp_sink(void);

/**
 * What @p cc runs, if it is an untrusted module.
 * @param cc
 *   A channel's controller state (read on the channel's thread).
 * @param info
 *   Filled in when the controller is a module.
 * @return
 *   0, or -ENOTSUP: the controller is not a module (a built-in one).
 */
int sst_cc_stp_info(const struct sst_cc *cc, struct sst_cc_stp_info *info);

/**
 * The name of a revocation reason: "none", "policer" or "budget".
 * @param why
 *   enum sst_cc_stp_revoke.
 * @return
 *   A static string ("?" for an unknown value).
 */
const char *sst_cc_stp_revoke_name(unsigned int why);

#endif /* SST_CC_STP_H */
