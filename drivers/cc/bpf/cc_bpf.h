/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bpf congestion-control driver's internal interface, for its own
 * files and for the tests, fuzz targets and benchmarks that exercise the
 * parts one by one (the channel only ever sees the sst_cc_ops a module
 * loads as, through sst_cc_find("bpf:FILE.o")).
 *
 * Loading a module is: cc_bpf_elf_parse() (the ELF object, checked with
 * our own bounds-checked reader, never libelf, so what runs is exactly
 * what was verified), cc_bpf_verify() on each entry point (our
 * pre-verifier, because rte_bpf's own validator in DPDK 22.11 is not
 * sound), then rte_bpf_load() of the verified instructions.
 */
#ifndef CC_BPF_H
#define CC_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <bpf_def.h>

#include "sst_cc_bpf_abi.h"
#include "sst_cc_driver.h"

/* Room for an error message: the rule, the instruction and the detail. */
#define CC_BPF_ERR_MAX 192
/* The largest module file the loader reads. */
#define CC_BPF_FILE_MAX (1u << 20)

/* One entry point in an ELF image: instructions, possibly unaligned. */
struct cc_bpf_elf_prog {
	const uint8_t *code; /* NULL: the module has no such entry point */
	uint32_t nb_ins;
};

/* The entry points of a module, indexed by enum sst_cc_bpf_event. */
struct cc_bpf_elf {
	struct cc_bpf_elf_prog prog[SST_CC_BPF_EV_COUNT];
	uint32_t abi_version; /* the module's, SST_CC_BPF_ABI_OLDEST to _VERSION */
};

/*
 * Write a refusal's reason into @p err (when it has room) and return
 * -EINVAL: every part of the loader (the ELF reader, the JIT's check, the
 * driver) reports why a module is refused the same way.
 */
int __attribute__((format(printf, 3, 4)))
cc_bpf_refuse(char *err, size_t errlen, const char *fmt, ...);

/*
 * Parse a module's ELF image: a little-endian ELF64 relocatable object for
 * EM_BPF whose entry-point sections are executable, whole instructions,
 * at most SST_CC_BPF_MAX_INSNS each, without relocations, with the
 * mandatory ones present and an ABI section of a version this driver runs
 * (entry points of later versions than the module's are left out).
 * @p out points into @p buf. Returns 0, or -EINVAL with the reason in @p err.
 */
int cc_bpf_elf_parse(
	const uint8_t *buf, size_t len, struct cc_bpf_elf *out, char *err, size_t errlen);

/*
 * The pre-verifier (docs/stp.md, "Verifier rules"): a single forward pass
 * over @p nb_ins instructions (read with memcpy, so @p code may be
 * unaligned). Returns 0, -EINVAL with "insn N: rule: detail" in @p err, or
 * -ENOMEM when its workspace cannot be mapped.
 */
int cc_bpf_verify(const uint8_t *code, uint32_t nb_ins, char *err, size_t errlen);

/*
 * cc_bpf_verify(), and on success the end of the highest context byte the
 * program may load or store in @p ctx_end (0: none). Every access is at a
 * constant offset (the verifier's rules), so no byte past it is ever
 * touched: the driver copies the scratch area only up to there.
 */
int cc_bpf_verify_ctx(
	const uint8_t *code, uint32_t nb_ins, uint32_t *ctx_end, char *err, size_t errlen);

/*
 * Check the machine code rte_bpf's x86-64 JIT made of the @p n verified
 * instructions @p ins (@p code, @p size bytes): every jump lands at the
 * start of its target's code. Returns 0, or -EINVAL with why in @p err
 * (the program must then run in the interpreter), or -ENOMEM.
 */
int cc_bpf_jit_check(const struct ebpf_insn *ins, uint32_t n, const void *code, size_t size,
	char *err, size_t errlen);

/*
 * Load a module from memory, or return the one already loaded with the
 * same BLAKE2b-256 and execution mode. @p source names it in lookups
 * (sst_cc_find()) and logs. @p jit false runs the interpreter even where
 * rte_bpf has a JIT. Returns the module's ops, which live as long as the
 * process, or NULL with the reason in @p err.
 */
const struct sst_cc_ops *cc_bpf_load_mem(
	const uint8_t *buf, size_t len, bool jit, const char *source, char *err, size_t errlen);

/*
 * Everything cc_bpf_load_mem() checks, without keeping the module: parse,
 * pre-verify, rte_bpf_load() (its validator and JIT), destroy. Returns 0
 * or a negative errno with the reason in @p err.
 */
int cc_bpf_check(const uint8_t *buf, size_t len, char *err, size_t errlen);

/*
 * The CPU budget: one call in CC_BPF_BUDGET_SAMPLE on average, chosen at
 * random, is timed with the TSC; when more than half of a channel's window
 * of CC_BPF_BUDGET_WINDOW timed calls took more than the
 * module's budget (CC_BPF_BUDGET_DEFAULT cycles per call unless set), the
 * module is revoked: each channel on it moves to NewReno at its next event, keeping
 * its window, and the module cannot be found or loaded again. Its code
 * stays mapped (another lcore may be running it).
 */
#define CC_BPF_BUDGET_SAMPLE 16
#define CC_BPF_BUDGET_WINDOW 256
#define CC_BPF_BUDGET_DEFAULT 100000

/* Set a loaded module's budget in TSC cycles per call (control plane). */
void cc_bpf_set_budget(const struct sst_cc_ops *ops, uint64_t cycles);

/*
 * The TCP-friendly policer (lib/cc/sst_policer.h) runs beside every module,
 * fed by the channel's events only: it caps the window at its allowed rate
 * times srtt and a pacing rate at its allowed rate, and when a module asked
 * on average for more than allowed over 8 round trips, the module is
 * revoked as for the CPU budget (counted by cc_bpf_violations()). Tests of
 * a module's own arithmetic turn it off (control plane, before use).
 */
void cc_bpf_set_policed(const struct sst_cc_ops *ops, bool policed);
uint64_t cc_bpf_violations(const struct sst_cc_ops *ops);

/* Whether the module was revoked, and how many channels left it. */
bool cc_bpf_revoked(const struct sst_cc_ops *ops);
uint64_t cc_bpf_fallbacks(const struct sst_cc_ops *ops);

/* Whether a module loaded for JIT execution actually runs natively. */
bool cc_bpf_is_jit(const struct sst_cc_ops *ops);

/* The module's identity: the BLAKE2b-256 of its ELF image. */
const uint8_t *cc_bpf_hash(const struct sst_cc_ops *ops);

/*
 * The loaded, unrevoked module of BLAKE2b-256 @p hash for execution mode
 * @p jit, or NULL: what a host asked to run module H looks up before it
 * asks for the code (lib/stp). Reads published entries without the lock.
 */
const struct sst_cc_ops *cc_bpf_find_hash(const uint8_t *hash, bool jit);

/* Why the module was revoked: enum sst_cc_stp_revoke (NONE: it was not). */
unsigned int cc_bpf_revoke_reason(const struct sst_cc_ops *ops);

/* Sums over every module loaded in the process, for telemetry. */
struct cc_bpf_totals {
	uint64_t modules;	   /* loaded (revoked ones included) */
	uint64_t revoked;	   /* modules unloaded: over budget or by the policer */
	uint64_t violations;	   /* policer verdicts */
	uint64_t fallbacks;	   /* channels moved to NewReno */
	uint64_t revoked_policer;  /* of the revoked, by the policer */
	uint64_t revoked_budget;   /* of the revoked, by the CPU budget */
	uint64_t budget_overruns;  /* timed calls over their module's budget */
	uint64_t refused_elf;	   /* loads refused by the ELF reader */
	uint64_t refused_verifier; /* by the pre-verifier */
	uint64_t refused_rte_bpf;  /* by rte_bpf */
	uint64_t refused_revoked;  /* revoked modules asked for again */
};
void cc_bpf_totals(struct cc_bpf_totals *t);

#endif /* CC_BPF_H */
