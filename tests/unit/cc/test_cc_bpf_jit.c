/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the check of DPDK's x86-64 JIT output
 * (drivers/cc/bpf/cc_bpf_jit_check.c): the programs fuzz_cc_bpf found,
 * which both verifiers accept and whose JIT-compiled code jumps four bytes
 * short of its targets (one wrote far outside the context, the other
 * returned another value than the interpreter), fail the check and load
 * as interpreted modules; code with jumps of every length around the
 * one-byte displacement's limit passes and computes what the interpreter
 * does; and code changed after the JIT (a displacement moved, a byte cut)
 * fails; and a jump back to the exit that the JIT encodes forward fails.
 * Skipped where rte_bpf has no JIT.
 */
#include <stdio.h>
#include <string.h>

#include <rte_bpf.h>

#include "cc_bpf.h"
#include "cc_bpf_elf_build.h"
#include "sst_test.h"

#define PROG_LEN 116
#define ADD32_K(d, k) INSN(BPF_ALU | BPF_ADD | BPF_K, d, 0, 0, k)
#define LD_IMM64(d, lo, hi) INSN(BPF_LD | BPF_IMM | EBPF_DW, d, 0, 0, lo), INSN(0, 0, 0, 0, hi)

static char err[CC_BPF_ERR_MAX];

/* @p head, then "w0 += -4" up to the exit at PROG_LEN - 1: the shape of
 * both fuzz findings (many forward jumps over runs of 3-byte additions,
 * near the 127 bytes a one-byte displacement reaches). */
static uint32_t
pad_program(struct ebpf_insn *prog, const struct ebpf_insn *head, uint32_t n)
{
	memcpy(prog, head, n * sizeof(*head));
	for (uint32_t i = n; i < PROG_LEN - 1; i++)
		prog[i] = ADD32_K(0, -4);
	prog[PROG_LEN - 1] = EXIT();
	return PROG_LEN;
}

/* fuzz_cc_bpf's first finding: the JIT's code wrote to an unmapped address. */
static uint32_t
write_outside(struct ebpf_insn *prog)
{
	const struct ebpf_insn head[] = {
		MOV_K(0, 2099168848),
		JMP_K(EBPF_JLT, 0, 3, 105),
		LD_IMM64(6, 1937014398, 2122219134),
		JMP_K(EBPF_JSGT, 6, 6, 15),
		JMP_K(EBPF_JSGT, 6, 6, 16),
		JMP_K(EBPF_JSGT, 6, 7, 17),
		MOV_X(5, 1),
		ALU_K(BPF_ADD, 5, 1008),
		JMP_K(EBPF_JSGT, 6, 6, 0),
		JMP_K(EBPF_JSGT, 6, 6, 21),
		JMP_K(EBPF_JSLT, 6, 5, 12),
		INSN(BPF_ALU | BPF_MOD | BPF_K, 0, 0, 0, 2),
		JMP_K(EBPF_JSGT, 6, 0, 24),
		STX(BPF_B, 1, 6, 384),
		STX(BPF_B, 1, 6, 384),
		STX(BPF_B, 1, 6, 384),
		STX(BPF_B, 1, 6, 384),
		STX(BPF_B, 10, 6, -264),
		STX(BPF_B, 1, 6, 384),
		STX(BPF_B, 1, 6, 384),
		STX(BPF_B, 1, 6, 384),
		STX(BPF_B, 1, 6, 384),
		STX(BPF_B, 1, 6, 384),
		STX(BPF_B, 1, 6, 384),
		STX(BPF_B, 1, 6, 384),
		STX(BPF_B, 1, 6, 384),
		STX(BPF_B, 1, 6, 384),
		STX(BPF_B, 1, 6, 384),
		STX(BPF_B, 1, 6, 384),
		JMP_K(EBPF_JSGT, 6, 6, 41),
		JMP_K(EBPF_JSGT, 6, 6, 42),
		JMP_K(EBPF_JSGT, 6, 6, 43),
		JMP_K(EBPF_JSGT, 6, 6, 44),
		JMP_K(EBPF_JSGT, 6, 6, 45),
		JMP_K(EBPF_JSGT, 6, 6, 46),
		JMP_K(EBPF_JSGT, 6, 6, 47),
		JMP_K(EBPF_JSGT, 6, 6, 48),
		JMP_K(EBPF_JSGT, 6, 6, 49),
		JMP_K(BPF_JEQ, 6, 0, 0),
		ADD32_K(0, -4),
		ADD32_K(0, -4),
		ADD32_K(0, -4),
		ADD32_K(0, -4),
		ADD32_K(0, -4),
		ADD32_K(0, -4),
		ADD32_K(0, -4),
		ADD32_K(0, -4),
		ADD32_K(0, -4),
		ADD32_K(0, 2),
		JMP_K(EBPF_JSGE, 6, 0, 0),
		ST(BPF_B, 1, 192, 0),
	};

	return pad_program(prog, head, (uint32_t)(sizeof(head) / sizeof(head[0])));
}

/* fuzz_cc_bpf's second finding: the JIT's code returned another value. */
static uint32_t
wrong_result(struct ebpf_insn *prog)
{
	const struct ebpf_insn head[] = {
		MOV_K(0, 1597139448),
		LD_IMM64(8, -117901064, 1499027801),
		ST(BPF_B, 1, 192, -117901311),
		INSN(BPF_ALU | BPF_LSH | BPF_K, 0, 0, 0, 8),
		ADD32_K(0, -4),
		ADD32_K(0, -4),
		ADD32_K(0, 4),
		ADD32_K(0, -4),
		ADD32_K(0, -4),
		JMP_K(EBPF_JLE, 0, 6, 30),
		JMP_K(EBPF_JLE, 0, 6, 30),
		JMP_K(EBPF_JLE, 0, 6, 30),
		JMP_K(EBPF_JLE, 0, 6, 30),
		JMP_K(EBPF_JLE, 0, 6, 53),
		JMP_K(EBPF_JLE, 0, 6, 30),
		JMP_K(EBPF_JLE, 0, 6, 30),
		JMP_K(EBPF_JSGT, 0, 0, 30),
		INSN(BPF_ALU | BPF_OR | BPF_K, 0, 0, 0, 26),
		JMP_K(BPF_JEQ, 0, 6, 19),
		JMP_K(EBPF_JLE, 0, 6, 30),
		JMP_K(EBPF_JLE, 0, 6, 30),
		JMP_K(EBPF_JLE, 0, 6, 30),
		JMP_K(EBPF_JLE, 0, 6, 30),
		JMP_K(EBPF_JLE, 0, 6, 30),
		JMP_K(BPF_JEQ, 0, 6, 0),
		JMP_K(EBPF_JLE, 0, 6, 30),
		JMP_K(EBPF_JLE, 0, 0, 30),
		INSN(BPF_ALU | BPF_OR | BPF_K, 0, 0, 0, 4),
		LD_IMM64(8, -117901064, -117901064),
		LD_IMM64(8, -128362151, 1499027801),
		ST(BPF_H, 10, -208, 1499027960),
		MOV_X(8, 1),
		ALU_K(BPF_ADD, 8, -64),
		LD_IMM64(1, 100671006, 505290270),
		JMP_K(EBPF_JLE, 0, 6, 30),
		JMP_K(EBPF_JNE, 0, 0, 0),
	};

	return pad_program(prog, head, (uint32_t)(sizeof(head) / sizeof(head[0])));
}

static struct rte_bpf *
load(const struct ebpf_insn *prog, uint32_t n, struct rte_bpf_jit *jit)
{
	struct rte_bpf_prm prm = {
		.ins = prog,
		.nb_ins = n,
		.prog_arg = {.type = RTE_BPF_ARG_PTR, .size = sizeof(struct sst_cc_bpf_ctx)},
	};
	struct rte_bpf *bpf;

	if (cc_bpf_verify((const uint8_t *)prog, n, err, sizeof(err)) != 0)
		printf("\n  refused by the verifier: %s\n", err);
	CU_ASSERT_EQUAL_FATAL(cc_bpf_verify((const uint8_t *)prog, n, NULL, 0), 0);
	bpf = rte_bpf_load(&prm);
	CU_ASSERT_PTR_NOT_NULL_FATAL(bpf);
	memset(jit, 0, sizeof(*jit));
	CU_ASSERT_EQUAL(rte_bpf_get_jit(bpf, jit), 0);
	return bpf;
}

/* Both findings: verified, compiled, and refused by the check for a jump
 * that lands short of its target (never run natively here: one crashes). */
static void
test_misplaced_jumps_refused(void)
{
	static struct ebpf_insn prog[PROG_LEN];
	uint32_t (*const finding[])(struct ebpf_insn *) = {write_outside, wrong_result};

	for (size_t k = 0; k < sizeof(finding) / sizeof(finding[0]); k++) {
		uint32_t n = finding[k](prog);
		struct rte_bpf_jit jit;
		struct rte_bpf *bpf = load(prog, n, &jit);
		int rc;

		if (jit.func == NULL) {
			rte_bpf_destroy(bpf);
			CU_PASS("no JIT here");
			continue;
		}
		rc = cc_bpf_jit_check(prog, n, (const void *)jit.func, jit.sz, err, sizeof(err));
		if (rc != -EINVAL || strstr(err, "lands at") == NULL)
			printf("\n  finding %zu: check gave %d \"%s\"\n", k, rc, err);
		CU_ASSERT_EQUAL(rc, -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, "lands at"));
		rte_bpf_destroy(bpf);
	}
}

/* A module made of a finding loads, and runs in the interpreter. */
static void
test_refused_module_interpreted(void)
{
	static struct ebpf_insn prog[PROG_LEN];
	static uint8_t image[16384];
	uint32_t n = wrong_result(prog);
	size_t len = elf_build_module(image, sizeof(image), prog, n);
	const struct sst_cc_ops *ops;

	CU_ASSERT_FATAL(len > 0);
	ops = cc_bpf_load_mem(image, len, true, "test: misplaced jumps", err, sizeof(err));
	if (ops == NULL)
		printf("\n  refused: %s\n", err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ops);
	CU_ASSERT_FALSE(cc_bpf_is_jit(ops));
}

/* One forward jump over 1 to 80 additions (3 to 240 bytes: both sides of
 * the one-byte displacement's reach), taken and not: the layout settles,
 * the check passes, and native and interpreted results agree. */
static void
test_jump_lengths_accepted(void)
{
	static struct ebpf_insn prog[96];

	for (uint32_t over = 1; over <= 80; over++) {
		uint32_t n = 0;
		struct rte_bpf_jit jit;
		struct rte_bpf *bpf;

		prog[n++] = LDX(EBPF_DW, 0, 1, CTX_OFF(cwnd));
		prog[n++] = JMP_K(BPF_JGT, 0, 5000, (int16_t)over);
		for (uint32_t k = 0; k < over; k++)
			prog[n++] = ADD32_K(0, 7);
		prog[n++] = EXIT();
		bpf = load(prog, n, &jit);
		if (jit.func == NULL) {
			rte_bpf_destroy(bpf);
			CU_PASS("no JIT here");
			return;
		}
		if (cc_bpf_jit_check(prog, n, (const void *)jit.func, jit.sz, err, sizeof(err)) !=
			0)
			printf("\n  over %u: %s\n", over, err);
		CU_ASSERT_EQUAL_FATAL(
			cc_bpf_jit_check(prog, n, (const void *)jit.func, jit.sz, NULL, 0), 0);
		for (uint64_t cwnd = 4000; cwnd <= 6000; cwnd += 2000) {
			struct sst_cc_bpf_ctx a = {.cwnd = cwnd}, b = a;

			CU_ASSERT_EQUAL(rte_bpf_exec(bpf, &a), jit.func(&b));
			CU_ASSERT_EQUAL(jit.func(&b), cwnd <= 5000 ? cwnd + 7 * over : cwnd);
		}
		rte_bpf_destroy(bpf);
	}
}

/* A jump back to the shared exit from 126 to 128 bytes past it: the JIT
 * picks the one-byte form from the distance before subtracting the jump's
 * own two bytes, so -129 is encoded as +127 (found by fuzz_cc_bpf once
 * the check ran). Every other distance passes and computes what the
 * interpreter does. */
static void
test_backward_exit_jumps(void)
{
	static struct ebpf_insn prog[96];
	uint32_t refused = 0;

	for (uint32_t over = 1; over <= 80; over++) {
		uint32_t n = 0;
		struct rte_bpf_jit jit;
		struct rte_bpf *bpf;
		int rc;

		prog[n++] = LDX(EBPF_DW, 0, 1, CTX_OFF(cwnd));
		prog[n++] = JMP_K(BPF_JGT, 0, 5000, 1);
		prog[n++] = EXIT(); /* the epilogue */
		for (uint32_t k = 0; k < over; k++)
			prog[n++] = ADD32_K(0, 7);
		prog[n++] = EXIT(); /* a jump back to it */
		bpf = load(prog, n, &jit);
		if (jit.func == NULL) {
			rte_bpf_destroy(bpf);
			CU_PASS("no JIT here");
			return;
		}
		rc = cc_bpf_jit_check(prog, n, (const void *)jit.func, jit.sz, err, sizeof(err));
		if (rc != 0) {
			refused++;
			CU_ASSERT_EQUAL(rc, -EINVAL);
			CU_ASSERT_PTR_NOT_NULL(strstr(err, "jump to the exit"));
			rte_bpf_destroy(bpf);
			continue;
		}
		for (uint64_t cwnd = 4000; cwnd <= 6000; cwnd += 2000) {
			struct sst_cc_bpf_ctx a = {.cwnd = cwnd}, b = a;

			CU_ASSERT_EQUAL(rte_bpf_exec(bpf, &a), jit.func(&b));
		}
		rte_bpf_destroy(bpf);
	}
	/* 42 additions put the jump 127 bytes past the epilogue's ret. */
	printf("(%u of 80 refused) ", refused);
	CU_ASSERT(refused >= 1);
}

/* Code the check has not seen from the JIT: a jump's displacement moved
 * by one, the last byte cut, a byte of an unknown form. */
static void
test_changed_code_refused(void)
{
	const struct ebpf_insn prog[] = {
		LDX(EBPF_DW, 0, 1, CTX_OFF(cwnd)),
		JMP_K(BPF_JGT, 0, 5000, 2),
		ADD32_K(0, 7),
		ADD32_K(0, 7),
		EXIT(),
	};
	static uint8_t code[4096];
	struct rte_bpf_jit jit;
	struct rte_bpf *bpf = load(prog, 5, &jit);
	size_t jcc = SIZE_MAX;

	if (jit.func == NULL) {
		rte_bpf_destroy(bpf);
		CU_PASS("no JIT here");
		return;
	}
	CU_ASSERT_FATAL(jit.sz <= sizeof(code));
	memcpy(code, (const void *)jit.func, jit.sz);
	CU_ASSERT_EQUAL(cc_bpf_jit_check(prog, 5, code, jit.sz, NULL, 0), 0);
	/* the short conditional jump: 0x7X rel8, the only one */
	for (size_t k = 0; k < jit.sz; k++)
		if ((code[k] & 0xf0) == 0x70 && jcc == SIZE_MAX)
			jcc = k;
	CU_ASSERT_FATAL(jcc != SIZE_MAX);
	code[jcc + 1]++;
	CU_ASSERT_EQUAL(cc_bpf_jit_check(prog, 5, code, jit.sz, err, sizeof(err)), -EINVAL);
	code[jcc + 1]--;
	CU_ASSERT_EQUAL(cc_bpf_jit_check(prog, 5, code, jit.sz - 1, err, sizeof(err)), -EINVAL);
	code[0] = 0xcc; /* int3 */
	CU_ASSERT_EQUAL(cc_bpf_jit_check(prog, 5, code, jit.sz, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "not a form it emits"));
	rte_bpf_destroy(bpf);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_misplaced_jumps_refused),
	SST_TEST(test_refused_module_interpreted),
	SST_TEST(test_jump_lengths_accepted),
	SST_TEST(test_backward_exit_jumps),
	SST_TEST(test_changed_code_refused),
	SST_TEST_END,
};

SST_TEST_MAIN("cc_bpf_jit", cases)
