/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the bpf driver's pre-verifier (drivers/cc/bpf/cc_bpf_verify.c):
 * each hostile program, written here instruction by instruction, is
 * rejected by the rule it breaks, at the instruction that breaks it; and
 * the programs a module legitimately needs (context loads and stores,
 * stack spills, guarded divisions, constant shifts, forward branches that
 * join) are accepted, also by rte_bpf_load() behind it.
 */
#include <stdio.h>
#include <string.h>

#include <rte_bpf.h>

#include "cc_bpf.h"
#include "cc_bpf_elf_build.h"
#include "sst_test.h"

#define N(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

static char err[CC_BPF_ERR_MAX];

/* Verify @p ins and expect "insn AT: RULE: ..." (or acceptance, rule NULL). */
static void
expect(const struct ebpf_insn *ins, uint32_t n, const char *rule, uint32_t at)
{
	char prefix[64];
	int rc = cc_bpf_verify((const uint8_t *)ins, n, err, sizeof(err));

	if (rule == NULL) {
		if (rc != 0)
			printf("\n  unexpected rejection: %s\n", err);
		CU_ASSERT_EQUAL(rc, 0);
		return;
	}
	snprintf(prefix, sizeof(prefix), "insn %u: %s: ", at, rule);
	if (rc != -EINVAL || strncmp(err, prefix, strlen(prefix)) != 0)
		printf("\n  want \"%s...\", got %d \"%s\"\n", prefix, rc, err);
	CU_ASSERT_EQUAL(rc, -EINVAL);
	CU_ASSERT_EQUAL(strncmp(err, prefix, strlen(prefix)), 0);
}

static void
test_out_of_bounds_load(void)
{
	const struct ebpf_insn past_end[] = {
		LDX(EBPF_DW, 0, 1, sizeof(struct sst_cc_bpf_ctx)), EXIT()};
	const struct ebpf_insn straddle[] = {
		LDX(BPF_W, 0, 1, sizeof(struct sst_cc_bpf_ctx) - 2), EXIT()};
	const struct ebpf_insn before[] = {LDX(BPF_B, 0, 1, -1), EXIT()};
	const struct ebpf_insn moved[] = {
		MOV_X(2, 1), ALU_K(BPF_ADD, 2, 440), LDX(EBPF_DW, 0, 2, 8), EXIT()};
	const struct ebpf_insn stack_below[] = {MOV_K(0, 0), LDX(EBPF_DW, 0, 10, -520), EXIT()};
	const struct ebpf_insn last[] = {
		LDX(EBPF_DW, 0, 1, sizeof(struct sst_cc_bpf_ctx) - 8), EXIT()};

	expect(past_end, N(past_end), "out-of-bounds", 0);
	expect(straddle, N(straddle), "out-of-bounds", 0);
	expect(before, N(before), "out-of-bounds", 0);
	expect(moved, N(moved), "out-of-bounds", 2);
	expect(stack_below, N(stack_below), "out-of-bounds", 1);
	expect(last, N(last), NULL, 0); /* the scratch area's last word */
}

static void
test_out_of_bounds_store(void)
{
	const struct ebpf_insn ctx_end[] = {MOV_K(0, 0), STX(EBPF_DW, 1, 0, 448), EXIT()};
	const struct ebpf_insn ctx_imm[] = {ST(BPF_H, 1, -2, 7), MOV_K(0, 0), EXIT()};
	const struct ebpf_insn fp_zero[] = {MOV_K(0, 0), STX(EBPF_DW, 10, 0, 0), EXIT()};
	const struct ebpf_insn fp_low[] = {MOV_K(0, 0), ST(EBPF_DW, 10, -520, 1), EXIT()};

	expect(ctx_end, N(ctx_end), "out-of-bounds", 1);
	expect(ctx_imm, N(ctx_imm), "out-of-bounds", 0);
	expect(fp_zero, N(fp_zero), "out-of-bounds", 1);
	expect(fp_low, N(fp_low), "out-of-bounds", 1);
}

static void
test_variable_offset(void)
{
	/* ctx + (a value the module read): the offset is not known. */
	const struct ebpf_insn added[] = {LDX(EBPF_DW, 2, 1, CTX_OFF(seq)), ALU_X(BPF_ADD, 1, 2),
		LDX(EBPF_DW, 0, 1, 0), EXIT()};
	/* Two paths, two offsets, one load. */
	const struct ebpf_insn joined[] = {
		LDX(EBPF_DW, 2, 1, CTX_OFF(seq)),
		MOV_X(3, 1),
		JMP_K(BPF_JEQ, 2, 0, 1),
		ALU_K(BPF_ADD, 3, 8),
		LDX(EBPF_DW, 0, 3, 0),
		EXIT(),
	};
	const struct ebpf_insn scalar_base[] = {
		LDX(EBPF_DW, 2, 1, CTX_OFF(seq)), LDX(EBPF_DW, 0, 2, 0), EXIT()};
	const struct ebpf_insn mul_ptr[] = {ALU_K(BPF_MUL, 1, 2), MOV_K(0, 0), EXIT()};
	const struct ebpf_insn ptr_store[] = {
		STX(EBPF_DW, 1, 1, CTX_OFF(scratch)), MOV_K(0, 0), EXIT()};
	const struct ebpf_insn ptr_ret[] = {MOV_X(0, 10), EXIT()};
	/* A pointer on one path, a scalar on the other, and a second join of
	 * that mixed state with itself: still neither, so the 32-bit add that
	 * would turn the stack's address into a return value is refused
	 * (fuzz_cc_bpf found the interpreter and the JIT returning different
	 * addresses when the second join called it a scalar). */
	const struct ebpf_insn rejoined[] = {
		LDX(EBPF_DW, 2, 1, CTX_OFF(seq)),
		MOV_K(0, 0),
		JMP_K(BPF_JEQ, 2, 0, 1),
		MOV_X(0, 10),
		JMP_K(BPF_JEQ, 2, 1, 0),
		INSN(BPF_ALU | BPF_ADD | BPF_K, 0, 0, 0, -4),
		EXIT(),
	};

	expect(added, N(added), "variable-offset", 1);
	expect(joined, N(joined), "variable-offset", 4);
	expect(scalar_base, N(scalar_base), "not-a-pointer", 1);
	expect(mul_ptr, N(mul_ptr), "pointer-arithmetic", 0);
	expect(ptr_store, N(ptr_store), "pointer-store", 0);
	expect(ptr_ret, N(ptr_ret), "pointer-leak", 1);
	expect(rejoined, N(rejoined), "variable-offset", 5);
}

static void
test_backward_jump(void)
{
	const struct ebpf_insn loop[] = {MOV_K(0, 0), ALU_K(BPF_ADD, 0, 1), JA(-2), EXIT()};
	const struct ebpf_insn self[] = {MOV_K(0, 0), JMP_K(BPF_JEQ, 0, 0, -1), EXIT()};
	const struct ebpf_insn past[] = {MOV_K(0, 0), JA(5), EXIT()};

	/* A jump back onto an exit leaves the program: accepted, with r0 checked. */
	const struct ebpf_insn to_exit[] = {
		LDX(EBPF_DW, 0, 1, CTX_OFF(cwnd)),
		JA(1),
		EXIT(),
		LDX(EBPF_DW, 2, 1, CTX_OFF(seq)),
		JMP_K(BPF_JEQ, 2, 0, -3),
		ALU_K(BPF_ADD, 0, 1),
		JA(-5),
	};
	const struct ebpf_insn to_exit_unset[] = {
		MOV_K(0, 0),
		JA(1),
		EXIT(),
		MOV_K(3, 1),
		JMP_K(BPF_JEQ, 3, 0, 1),
		MOV_K(0, 0),
		MOV_X(0, 10),
		JA(-6),
	};

	expect(to_exit, N(to_exit), NULL, 0);
	expect(to_exit_unset, N(to_exit_unset), "pointer-leak", 7);
	expect(loop, N(loop), "backward-jump", 2);
	expect(self, N(self), "backward-jump", 1);
	expect(past, N(past), "jump-out-of-range", 1);
}

static void
test_helper_call(void)
{
	const struct ebpf_insn helper[] = {MOV_K(1, 0), CALL(1), EXIT()};
	const struct ebpf_insn local[] = {
		INSN(BPF_JMP | EBPF_CALL, 0, EBPF_PSEUDO_CALL, 0, 1), MOV_K(0, 0), EXIT()};

	expect(helper, N(helper), "helper-call", 1);
	expect(local, N(local), "helper-call", 0);
}

static void
test_too_many_instructions(void)
{
	static struct ebpf_insn big[SST_CC_BPF_MAX_INSNS + 1];

	for (uint32_t i = 0; i < SST_CC_BPF_MAX_INSNS; i++)
		big[i] = ALU_K(BPF_ADD, 0, 1);
	big[0] = MOV_K(0, 0);
	big[SST_CC_BPF_MAX_INSNS - 1] = EXIT();
	expect(big, SST_CC_BPF_MAX_INSNS, NULL, 0); /* the largest accepted program */
	big[SST_CC_BPF_MAX_INSNS - 1] = ALU_K(BPF_ADD, 0, 1);
	big[SST_CC_BPF_MAX_INSNS] = EXIT();
	expect(big, SST_CC_BPF_MAX_INSNS + 1, "too-many-instructions", SST_CC_BPF_MAX_INSNS);
	expect(big, 0, "empty-program", 0);
}

/* rte_bpf's validator walks every path: 2^k paths through k diamonds. */
static void
test_too_many_paths(void)
{
	static struct ebpf_insn prog[2 + 2 * 16 + 1];
	uint32_t n = 0;

	prog[n++] = MOV_K(0, 0);
	prog[n++] = LDX(EBPF_DW, 2, 1, CTX_OFF(seq));
	for (int k = 0; k < 16; k++) {
		prog[n++] = JMP_K(BPF_JEQ, 2, k, 1);
		prog[n++] = ALU_K(BPF_ADD, 0, 1);
	}
	prog[n++] = EXIT();
	/* 8 diamonds: 2 + 4 x (2 + 4 + ... + 256) visits, accepted. */
	prog[2 + 2 * 8] = EXIT();
	expect(prog, 2 + 2 * 8 + 1, NULL, 0);
	prog[2 + 2 * 8] = JMP_K(BPF_JEQ, 2, 8, 1);
	/* 16: 2^18 visits; they pass 8192 at the 13th diamond (3 x 2^12 at its jump). */
	expect(prog, n, "too-many-paths", 2 + 2 * 12);
}

static void
test_no_exit(void)
{
	const struct ebpf_insn none[] = {MOV_K(0, 0), ALU_K(BPF_ADD, 0, 1)};
	/* The exit is only on one path; the other falls off the end. */
	const struct ebpf_insn one_path[] = {
		MOV_K(0, 0), JMP_K(BPF_JEQ, 0, 0, 1), EXIT(), MOV_K(0, 1)};

	expect(none, N(none), "no-exit", 1);
	expect(one_path, N(one_path), "no-exit", 3);
}

static void
test_r0_unset(void)
{
	const struct ebpf_insn never[] = {EXIT()};
	const struct ebpf_insn one_path[] = {
		LDX(EBPF_DW, 2, 1, CTX_OFF(seq)),
		JMP_K(BPF_JEQ, 2, 0, 1),
		MOV_K(0, 1),
		EXIT(),
	};
	const struct ebpf_insn other_reg[] = {ALU_X(BPF_ADD, 0, 3), EXIT()};

	expect(never, N(never), "r0-unset", 0);
	expect(one_path, N(one_path), "r0-unset", 3);
	expect(other_reg, N(other_reg), "uninitialised-register", 0);
}

static void
test_division_by_zero(void)
{
	const struct ebpf_insn by_field[] = {LDX(EBPF_DW, 2, 1, CTX_OFF(bytes_acked)),
		MOV_K(0, 100), ALU_X(BPF_DIV, 0, 2), EXIT()};
	const struct ebpf_insn mod_field[] = {
		LDX(EBPF_DW, 2, 1, CTX_OFF(srtt)), MOV_K(0, 100), ALU_X(BPF_MOD, 0, 2), EXIT()};
	const struct ebpf_insn by_zero[] = {MOV_K(0, 100), ALU_K(BPF_DIV, 0, 0), EXIT()};
	/* Guarded on one path only: the join may be 0. */
	const struct ebpf_insn half_guard[] = {
		LDX(EBPF_DW, 2, 1, CTX_OFF(srtt)),
		MOV_K(0, 1),
		JMP_K(BPF_JEQ, 0, 0, 1),
		JMP_K(BPF_JEQ, 2, 0, 0),
		ALU_X(BPF_DIV, 0, 2),
		EXIT(),
	};
	/* No 32-bit division by a register: the 22.11 JIT gets it wrong (and a non-zero
	 * 64-bit value may be 0 in 32 bits). */
	const struct ebpf_insn div32[] = {
		LDX(EBPF_DW, 2, 1, CTX_OFF(cwnd)), MOV_K(0, 100), ALU32_X(BPF_DIV, 0, 2), EXIT()};
	/* Accepted: cwnd and mss are never 0; a tested divisor is not 0 past the test. */
	const struct ebpf_insn by_cwnd[] = {LDX(EBPF_DW, 2, 1, CTX_OFF(cwnd)),
		LDX(BPF_W, 3, 1, CTX_OFF(mss)), MOV_K(0, 100), ALU_X(BPF_DIV, 0, 2),
		ALU_X(BPF_MOD, 0, 3), EXIT()};
	const struct ebpf_insn guarded[] = {
		LDX(EBPF_DW, 2, 1, CTX_OFF(srtt)),
		MOV_K(0, 0),
		JMP_K(BPF_JEQ, 2, 0, 2),
		MOV_K(0, 1000),
		ALU_X(BPF_DIV, 0, 2),
		EXIT(),
	};
	const struct ebpf_insn above[] = {
		LDX(EBPF_DW, 2, 1, CTX_OFF(srtt)),
		LDX(EBPF_DW, 3, 1, CTX_OFF(min_rtt)),
		MOV_K(0, 0),
		JMP_X(BPF_JGE, 3, 2, 1), /* falls through when srtt > min_rtt >= 0 */
		ALU_X(BPF_DIV, 0, 2),
		EXIT(),
	};

	expect(by_field, N(by_field), "division-by-zero", 2);
	expect(mod_field, N(mod_field), "division-by-zero", 2);
	expect(by_zero, N(by_zero), "division-by-zero", 1);
	expect(half_guard, N(half_guard), "division-by-zero", 4);
	expect(div32, N(div32), "jit-erratum", 2);
	expect(by_cwnd, N(by_cwnd), NULL, 0);
	expect(guarded, N(guarded), NULL, 0);
	expect(above, N(above), NULL, 0);
}

static void
test_other_rules(void)
{
	const struct ebpf_insn uninit_stack[] = {LDX(EBPF_DW, 0, 10, -8), EXIT()};
	const struct ebpf_insn misaligned[] = {LDX(EBPF_DW, 0, 1, 4), EXIT()};
	const struct ebpf_insn var_shift[] = {
		LDX(EBPF_DW, 2, 1, CTX_OFF(seq)), MOV_K(0, 1), ALU_X(BPF_LSH, 0, 2), EXIT()};
	const struct ebpf_insn big_shift[] = {MOV_K(0, 1), ALU_K(BPF_LSH, 0, 64), EXIT()};
	const struct ebpf_insn dead[] = {MOV_K(0, 0), EXIT(), MOV_K(0, 1), EXIT()};
	const struct ebpf_insn fp_write[] = {MOV_K(10, 0), MOV_K(0, 0), EXIT()};
	const struct ebpf_insn jmp32[] = {MOV_K(0, 0), INSN(0x06 | BPF_JEQ, 0, 0, 0, 0), EXIT()};
	const struct ebpf_insn ld_abs[] = {INSN(BPF_LD | BPF_ABS | BPF_W, 0, 0, 0, 0), EXIT()};
	const struct ebpf_insn xadd[] = {MOV_K(0, 1),
		INSN(BPF_STX | EBPF_XADD | EBPF_DW, 1, 0, CTX_OFF(scratch), 0), EXIT()};
	const struct ebpf_insn sdiv[] = {
		MOV_K(0, 7), INSN(EBPF_ALU64 | BPF_DIV | BPF_K, 0, 0, 1, 2), EXIT()};
	const struct ebpf_insn into_imm64[] = {MOV_K(0, 0), JA(1),
		INSN(BPF_LD | BPF_IMM | EBPF_DW, 0, 0, 0, 1), INSN(0, 0, 0, 0, 0), EXIT()};
	const struct ebpf_insn map_load[] = {
		INSN(BPF_LD | BPF_IMM | EBPF_DW, 0, 1, 0, 1), INSN(0, 0, 0, 0, 0), EXIT()};
	const struct ebpf_insn bad_reg[] = {MOV_K(11, 0), MOV_K(0, 0), EXIT()};

	const struct ebpf_insn self_div[] = {
		LDX(EBPF_DW, 0, 1, CTX_OFF(cwnd)), ALU_X(BPF_DIV, 0, 0), EXIT()};
	const struct ebpf_insn self_shift[] = {MOV_K(0, 3), ALU_X(BPF_LSH, 0, 0), EXIT()};

	const struct ebpf_insn jset_k[] = {
		LDX(EBPF_DW, 2, 1, CTX_OFF(seq)), MOV_K(0, 0), JMP_K(BPF_JSET, 2, 1, 0), EXIT()};

	expect(jset_k, N(jset_k), "jit-erratum", 2);
	expect(self_div, N(self_div), "jit-erratum", 1);
	expect(self_shift, N(self_shift), "jit-erratum", 1);
	expect(uninit_stack, N(uninit_stack), "uninitialised-stack", 0);
	expect(misaligned, N(misaligned), "misaligned", 0);
	expect(var_shift, N(var_shift), "variable-shift", 2);
	expect(big_shift, N(big_shift), "shift-range", 1);
	expect(dead, N(dead), "unreachable", 2);
	expect(fp_write, N(fp_write), "write-r10", 0);
	expect(jmp32, N(jmp32), "bad-opcode", 1);
	expect(ld_abs, N(ld_abs), "bad-opcode", 0);
	expect(xadd, N(xadd), "bad-opcode", 1);
	expect(sdiv, N(sdiv), "bad-opcode", 1);
	expect(into_imm64, N(into_imm64), "jump-out-of-range", 1);
	expect(map_load, N(map_load), "bad-opcode", 0);
	expect(bad_reg, N(bad_reg), "bad-register", 0);
}

/* What a module needs is accepted, by us and by rte_bpf behind us. */
static void
test_accepted_programs(void)
{
	const struct ebpf_insn prog[] = {
		LDX(EBPF_DW, 2, 1, CTX_OFF(cwnd)),
		STX(EBPF_DW, 10, 2, -8), /* spill */
		LDX(EBPF_DW, 3, 1, CTX_OFF(scratch) + 8),
		ALU_K(BPF_ADD, 3, 1),
		STX(EBPF_DW, 1, 3, CTX_OFF(scratch) + 8),
		INSN(BPF_LD | BPF_IMM | EBPF_DW, 4, 0, 0, 5),
		INSN(0, 0, 0, 0, 1),
		ALU_K(BPF_RSH, 3, 3),
		JMP_X(BPF_JGT, 3, 4, 2),
		LDX(EBPF_DW, 0, 10, -8), /* fill */
		JA(1),
		MOV_X(0, 3),
		ST(BPF_W, 1, CTX_OFF(in_recovery), 0),
		EXIT(),
	};
	struct rte_bpf_prm prm = {
		.ins = prog,
		.nb_ins = N(prog),
		.prog_arg = {.type = RTE_BPF_ARG_PTR, .size = sizeof(struct sst_cc_bpf_ctx)},
	};
	struct sst_cc_bpf_ctx ctx = {.cwnd = 4000};
	struct rte_bpf *bpf;

	expect(prog, N(prog), NULL, 0);
	bpf = rte_bpf_load(&prm);
	CU_ASSERT_PTR_NOT_NULL_FATAL(bpf);
	CU_ASSERT_EQUAL(rte_bpf_exec(bpf, &ctx), 4000);
	CU_ASSERT_EQUAL(ctx.scratch[8], 1);
	rte_bpf_destroy(bpf);
	CU_ASSERT_EQUAL(cc_bpf_verify((const uint8_t *)prog, N(prog), NULL, 0), 0);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_out_of_bounds_load),
	SST_TEST(test_out_of_bounds_store),
	SST_TEST(test_variable_offset),
	SST_TEST(test_backward_jump),
	SST_TEST(test_helper_call),
	SST_TEST(test_too_many_instructions),
	SST_TEST(test_too_many_paths),
	SST_TEST(test_no_exit),
	SST_TEST(test_r0_unset),
	SST_TEST(test_division_by_zero),
	SST_TEST(test_other_rules),
	SST_TEST(test_accepted_programs),
	SST_TEST_END,
};

SST_TEST_MAIN("cc_bpf_verify", cases)
