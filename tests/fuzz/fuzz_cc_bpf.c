/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the bpf congestion-control driver's checks
 * (drivers/cc/bpf: the pre-verifier and the ELF reader) and for what they
 * promise: a program both verifiers accept is memory-safe and
 * deterministic. Input byte 0 chooses the mode:
 *
 *   0  a program generated from the input: mostly plausible instructions
 *      (context and stack loads and stores at chosen offsets, ALU with
 *      constants and registers, forward jumps, pointer copies and offsets,
 *      16-byte loads, early exits), so that many pass the verifier;
 *   1  the input's bytes as raw instructions;
 *   2  the input as an ELF image (cc_bpf_elf_parse, then each entry point
 *      verified).
 *
 * After a program passes our verifier and rte_bpf_load(): it runs on four
 * contexts made from the input (cwnd >= mss >= 1, as the driver
 * guarantees) in rte_bpf's interpreter and, where the JIT compiled it and
 * its code passed cc_bpf_jit_check() (as the driver runs it), natively.
 * Both must return the same value and leave the same context, and the
 * guard bytes around the context must be intact (the JIT's stores are not
 * seen by ASan). FUZZ_CC_BPF_STATS=1 in the environment prints, per input,
 * whether the JIT's code passed the check, and why not.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bpf.h>
#include <rte_log.h>

#include "cc_bpf.h"
#include "cc_bpf_elf_build.h"
#include "fuzz_check.h"

#define MAX_GEN 256
#define GUARD 64

struct guarded_ctx {
	uint8_t before[GUARD];
	struct sst_cc_bpf_ctx ctx;
	uint8_t after[GUARD];
};

static uint32_t
take32(struct fuzz_input *in)
{
	uint32_t v = 0;

	for (int k = 0; k < 4; k++)
		v = v << 8 | fuzz_take(in);
	return v;
}

static const uint8_t alu_ops[] = {BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_OR, BPF_AND, BPF_LSH,
	BPF_RSH, BPF_NEG, BPF_MOD, BPF_XOR, EBPF_MOV, EBPF_ARSH};
static const uint8_t jmp_ops[] = {BPF_JEQ, BPF_JGT, BPF_JGE, BPF_JSET, EBPF_JNE, EBPF_JSGT,
	EBPF_JSGE, EBPF_JLT, EBPF_JLE, EBPF_JSLT, EBPF_JSLE};
static const uint8_t sizes[] = {BPF_B, BPF_H, BPF_W, EBPF_DW};

/* A memory operand: the context at an aligned field, the stack, or junk. */
static void
gen_mem(struct fuzz_input *in, uint8_t *base, int16_t *off)
{
	uint8_t b = fuzz_take(in);

	switch (b % 4) {
	case 0:
		*base = EBPF_REG_1;
		*off = (int16_t)(8 * (fuzz_take(in) % (sizeof(struct sst_cc_bpf_ctx) / 8)));
		break;
	case 1:
		*base = EBPF_REG_10;
		*off = (int16_t)(-8 * (1 + fuzz_take(in) % 64));
		break;
	case 2:
		*base = fuzz_take(in) % 11;
		*off = (int16_t)(8 * (fuzz_take(in) % 8));
		break;
	default:
		*base = fuzz_take(in) % 11;
		*off = (int16_t)(fuzz_take(in) << 8 | fuzz_take(in));
		break;
	}
}

static uint32_t
gen_program(struct fuzz_input *in, struct ebpf_insn *p)
{
	uint32_t n = 0, len = 2 + fuzz_take(in) % (MAX_GEN - 4);

	if (fuzz_take(in) % 4 != 0)
		p[n++] = MOV_K(0, (int32_t)take32(in));
	while (n < len) {
		uint8_t t = fuzz_take(in), r = fuzz_take(in) % 10, s = fuzz_take(in) % 11;
		uint8_t op = alu_ops[fuzz_take(in) % sizeof(alu_ops)];
		uint8_t sz = sizes[fuzz_take(in) % 4];
		uint8_t base;
		int16_t off;

		switch (t % 12) {
		case 0: /* small immediates make valid shifts and non-zero divisors likely */
			p[n++] = INSN((t & 0x80 ? EBPF_ALU64 : BPF_ALU) | op | BPF_K, r, 0, 0,
				(int32_t)(fuzz_take(in) % 40) - 4);
			break;
		case 1:
			p[n++] = INSN((t & 0x80 ? EBPF_ALU64 : BPF_ALU) | op | BPF_X, r, s, 0, 0);
			break;
		case 2:
		case 3:
			gen_mem(in, &base, &off);
			p[n++] = INSN(BPF_LDX | BPF_MEM | sz, r, base, off, 0);
			break;
		case 4:
			gen_mem(in, &base, &off);
			p[n++] = INSN(BPF_STX | BPF_MEM | sz, base, s, off, 0);
			break;
		case 5:
			gen_mem(in, &base, &off);
			p[n++] = INSN(BPF_ST | BPF_MEM | sz, base, 0, off, (int32_t)take32(in));
			break;
		case 6: /* a forward jump, at most to the final exit */
			off = (int16_t)(fuzz_take(in) % (len - n));
			p[n++] = INSN(BPF_JMP | jmp_ops[fuzz_take(in) % sizeof(jmp_ops)] |
					      (t & 0x80 ? BPF_X : BPF_K),
				r, t & 0x80 ? s : 0, off,
				t & 0x80 ? 0 : (int32_t)(fuzz_take(in) % 8));
			break;
		case 7: /* a pointer copy moved by a constant */
			p[n++] = MOV_X(r, t & 0x80 ? EBPF_REG_10 : EBPF_REG_1);
			p[n++] = ALU_K(BPF_ADD, r, (int32_t)(int8_t)fuzz_take(in) * 8);
			break;
		case 8:
			p[n++] = INSN(BPF_LD | BPF_IMM | EBPF_DW, r, 0, 0, (int32_t)take32(in));
			p[n++] = INSN(0, 0, 0, 0, (int32_t)take32(in));
			break;
		case 9:
			p[n++] = t & 0x80 ? MOV_X(0, s) : MOV_K(0, (int32_t)take32(in));
			break;
		case 10:
			p[n++] = EXIT();
			break;
		default: /* anything at all */
			p[n++] =
				INSN(fuzz_take(in), r, s, (int16_t)take32(in), (int32_t)take32(in));
			break;
		}
	}
	p[n++] = EXIT();
	return n;
}

static void
fill_ctx(struct fuzz_input *in, struct guarded_ctx *g)
{
	uint8_t *b = (uint8_t *)&g->ctx;

	memset(g->before, 0xa5, GUARD);
	memset(g->after, 0x5a, GUARD);
	for (size_t k = 0; k < sizeof(g->ctx); k++)
		b[k] = fuzz_take(in) ^ (uint8_t)(k * 29);
	g->ctx.abi_version = SST_CC_BPF_ABI_VERSION;
	g->ctx.mss = 1 + g->ctx.mss % 9000;
	if (g->ctx.cwnd < g->ctx.mss)
		g->ctx.cwnd = g->ctx.mss;
}

static bool
guards_intact(const struct guarded_ctx *g)
{
	for (int k = 0; k < GUARD; k++)
		if (g->before[k] != 0xa5 || g->after[k] != 0x5a)
			return false;
	return true;
}

/* Run an accepted program both ways on a few contexts. The verifier's
 * ctx_end bounds what it may touch (the driver copies no scratch past it):
 * with every byte past it changed, the program returns the same, leaves
 * the same bytes below it, and those past it as they were. */
static void
run_both(struct fuzz_input *in, const struct ebpf_insn *ins, uint32_t n, uint32_t ctx_end)
{
	struct rte_bpf_prm prm = {
		.ins = ins,
		.nb_ins = n,
		.prog_arg = {.type = RTE_BPF_ARG_PTR, .size = sizeof(struct sst_cc_bpf_ctx)},
	};
	struct rte_bpf_jit jit = {0};
	struct rte_bpf *bpf = rte_bpf_load(&prm);

	if (bpf == NULL)
		return; /* rte_bpf's own validator may refuse more */
	FUZZ_CHECK(rte_bpf_get_jit(bpf, &jit) == 0);
	if (jit.func != NULL) {
		char why[CC_BPF_ERR_MAX];
		int rc = cc_bpf_jit_check(ins, n, (const void *)jit.func, jit.sz, why, sizeof(why));

		FUZZ_CHECK(rc == 0 || (rc == -EINVAL && why[0] != '\0'));
		if (getenv("FUZZ_CC_BPF_STATS") != NULL)
			fprintf(stderr, "jit-check: %s\n", rc == 0 ? "ok" : why);
		if (rc != 0)
			jit.func = NULL; /* the driver runs the interpreter */
	}
	for (int round = 0; round < 4; round++) {
		static struct guarded_ctx a, b, c, c0;
		uint64_t ra, rb;

		fill_ctx(in, &a);
		b = a;
		c = a;
		for (size_t k = ctx_end; k < sizeof(c.ctx); k++)
			((uint8_t *)&c.ctx)[k] ^= 0xff;
		c0 = c;
		ra = rte_bpf_exec(bpf, &a.ctx);
		FUZZ_CHECK(guards_intact(&a));
		FUZZ_CHECK(ctx_end <= sizeof(c.ctx));
		FUZZ_CHECK(rte_bpf_exec(bpf, &c.ctx) == ra);
		FUZZ_CHECK(memcmp(&c.ctx, &a.ctx, ctx_end) == 0);
		FUZZ_CHECK(memcmp((uint8_t *)&c.ctx + ctx_end, (uint8_t *)&c0.ctx + ctx_end,
				   sizeof(c.ctx) - ctx_end) == 0);
		if (jit.func == NULL)
			continue;
		rb = jit.func(&b.ctx);
		FUZZ_CHECK(guards_intact(&b));
		FUZZ_CHECK(ra == rb);
		FUZZ_CHECK(memcmp(&a, &b, sizeof(a)) == 0);
	}
	rte_bpf_destroy(bpf);
}

static void
fuzz_elf(const uint8_t *data, size_t size)
{
	char err[CC_BPF_ERR_MAX];
	struct cc_bpf_elf elf;
	int rc = cc_bpf_elf_parse(data, size, &elf, err, sizeof(err));

	FUZZ_CHECK(rc == 0 || (rc == -EINVAL && err[0] != '\0'));
	if (rc != 0)
		return;
	for (int ev = 0; ev < SST_CC_BPF_EV_COUNT; ev++) {
		const struct cc_bpf_elf_prog *p = &elf.prog[ev];

		if (p->code == NULL)
			continue;
		FUZZ_CHECK(p->nb_ins >= 1 && p->nb_ins <= SST_CC_BPF_MAX_INSNS);
		FUZZ_CHECK(FUZZ_INSIDE(p->code, (size_t)p->nb_ins * 8, data, size));
		rc = cc_bpf_verify(p->code, p->nb_ins, err, sizeof(err));
		FUZZ_CHECK(rc == 0 || (rc == -EINVAL && strncmp(err, "insn ", 5) == 0));
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* rte_bpf logs every program it refuses. */
	rte_log_set_level_pattern("lib.bpf*", RTE_LOG_EMERG);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ebpf_insn prog[MAX_GEN + 4 + SST_CC_BPF_MAX_INSNS];
	struct fuzz_input in = {.p = data + 1, .left = size > 0 ? size - 1 : 0};
	char err[CC_BPF_ERR_MAX];
	uint32_t ctx_end = 0;
	uint32_t n;
	int rc;

	if (size == 0)
		return 0;
	switch (data[0] % 3) {
	case 0:
		n = gen_program(&in, prog);
		break;
	case 1:
		n = (uint32_t)((size - 1) / sizeof(struct ebpf_insn));
		if (n > SST_CC_BPF_MAX_INSNS + 4)
			n = SST_CC_BPF_MAX_INSNS + 4;
		memcpy(prog, data + 1, (size_t)n * sizeof(struct ebpf_insn));
		in.p += (size_t)n * sizeof(struct ebpf_insn);
		in.left -= (size_t)n * sizeof(struct ebpf_insn);
		break;
	default:
		fuzz_elf(data + 1, size - 1);
		return 0;
	}
	rc = cc_bpf_verify_ctx((const uint8_t *)prog, n, &ctx_end, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || (rc == -EINVAL && strncmp(err, "insn ", 5) == 0));
	if (rc == 0)
		run_both(&in, prog, n, ctx_end);
	return 0;
}
