/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A check of the machine code DPDK's x86-64 JIT made of a verified program,
 * before it runs: every jump lands where its eBPF jump pointed.
 *
 * Why it is needed: the JIT sizes each jump (rel8 or rel32) from the code
 * offsets of the previous pass, and repeats passes until the total size stops
 * changing. A jump can grow in one pass while another shrinks, so the total
 * can repeat while offsets still move; the final pass then encodes jumps to
 * where instructions were one pass earlier: into another instruction's
 * middle, or onto an instruction the verifier never saw on that path
 * (fuzz_cc_bpf found both: a write far outside the context, and a wrong
 * result). DPDK 22.11's and later JITs share the loop. A peer's module that
 * trips it would run code no verifier checked, so its code is not run.
 *
 * How: decode the code (the JIT emits a small, fixed set of x86-64 forms;
 * anything else refuses), split it into the runs each eBPF instruction
 * emits (how many x86 instructions each emits follows from the JIT's
 * emitters: the opcode and its registers), and compare every x86 jump's
 * target with the start of the run of its eBPF target. A program that
 * fails runs in rte_bpf's interpreter instead, which has no layout.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "cc_bpf.h"

/* x86-64 registers as the JIT numbers them. */
enum { RAX = 0, RCX = 1, RDX = 2, RBX = 3, RSP = 4, RBP = 5, R13 = 13, R14 = 14, R15 = 15 };
enum { RDI = 7, RSI = 6, R8 = 8 };

static const uint8_t ebpf2x86[EBPF_REG_NUM] = {
	RAX, RDI, RSI, RDX, RCX, R8, RBX, R13, R14, R15, RBP};

enum x86_kind { X86_PLAIN, X86_JMP, X86_JCC };

struct x86_insn {
	uint32_t off, len;
	uint8_t kind;
	int64_t target; /* a jump's target offset */
	uint8_t opcode, modrm_reg;
	int64_t imm;
};

struct jit_check {
	const uint8_t *code;
	size_t size;
	struct x86_insn *x;
	uint32_t nx;
	char *err;
	size_t errlen;
};

static bool
take(const struct jit_check *c, size_t *p, size_t n, int64_t *val)
{
	uint64_t v = 0;

	if (*p + n > c->size)
		return false;
	for (size_t k = 0; k < n; k++)
		v |= (uint64_t)c->code[*p + k] << (8 * k);
	*p += n;
	/* sign-extend: displacements and immediates of 1, 2 and 4 bytes */
	if (n < 8 && (v >> (8 * n - 1)) & 1)
		v |= ~0ULL << (8 * n);
	if (val != NULL)
		*val = (int64_t)v;
	return true;
}

/* A ModRM operand in the forms the JIT emits: a register, or a base
 * register (with SIB for rsp and r12) and an 8- or 32-bit displacement. */
static bool
take_modrm(const struct jit_check *c, size_t *p, uint8_t *reg)
{
	int64_t m;
	uint8_t mod, rm;

	if (!take(c, p, 1, &m))
		return false;
	mod = (uint8_t)m >> 6 & 3;
	rm = (uint8_t)m & 7;
	*reg = (uint8_t)m >> 3 & 7;
	if (mod == 3)
		return true;
	if (mod == 0) /* never emitted: rip-relative or no displacement */
		return false;
	if (rm == 4 && !take(c, p, 1, NULL))
		return false;
	return take(c, p, mod == 1 ? 1 : 4, NULL);
}

/* Decode the instruction at @p at; false on a form the JIT never emits. */
static bool
decode(const struct jit_check *c, size_t at, struct x86_insn *x)
{
	size_t p = at;
	int64_t b, rel;
	bool opsize16 = false, rexw = false;
	uint8_t op;

	memset(x, 0, sizeof(*x));
	x->off = (uint32_t)at;
	if (!take(c, &p, 1, &b))
		return false;
	if ((uint8_t)b == 0x66) {
		opsize16 = true;
		if (!take(c, &p, 1, &b))
			return false;
	}
	if (((uint8_t)b & 0xf0) == 0x40) {
		rexw = (uint8_t)b & 8;
		if (!take(c, &p, 1, &b))
			return false;
	}
	op = (uint8_t)b;
	x->opcode = op;
	switch (op) {
	case 0x01: /* add, or, and, sub, xor, cmp, test, xchg, mov, mov load, mov byte */
	case 0x09:
	case 0x21:
	case 0x29:
	case 0x31:
	case 0x39:
	case 0x85:
	case 0x87:
	case 0x88:
	case 0x89:
	case 0x8b:
	case 0xd3: /* shift by cl */
		if (!take_modrm(c, &p, &x->modrm_reg))
			return false;
		break;
	case 0x83: /* alu, imm8 */
	case 0xc1: /* shift, imm8 */
	case 0xc6: /* store byte, imm8 */
		if (!take_modrm(c, &p, &x->modrm_reg) || !take(c, &p, 1, &x->imm))
			return false;
		break;
	case 0x81: /* alu, imm32 */
	case 0xc7: /* mov or store, imm32 (imm16 with 0x66) */
		if (!take_modrm(c, &p, &x->modrm_reg) || !take(c, &p, opsize16 ? 2 : 4, &x->imm))
			return false;
		break;
	case 0xf7: /* test imm32 (/0), neg, mul, div */
		if (!take_modrm(c, &p, &x->modrm_reg))
			return false;
		if (x->modrm_reg == 0 && !take(c, &p, opsize16 ? 2 : 4, &x->imm))
			return false;
		break;
	case 0xc3:
		break;
	case 0xeb:
	case 0xe9:
		if (!take(c, &p, op == 0xeb ? 1 : 4, &rel))
			return false;
		x->kind = X86_JMP;
		x->target = (int64_t)p + rel;
		break;
	case 0x0f:
		if (!take(c, &p, 1, &b))
			return false;
		op = (uint8_t)b;
		if (op == 0xb6 || op == 0xb7 || (op & 0xf0) == 0x40) { /* movzx, cmovcc */
			if (!take_modrm(c, &p, &x->modrm_reg))
				return false;
		} else if ((op & 0xf0) == 0x80) {
			if (!take(c, &p, 4, &rel))
				return false;
			x->kind = X86_JCC;
			x->target = (int64_t)p + rel;
		} else if ((op & 0xf8) != 0xc8) { /* bswap */
			return false;
		}
		break;
	default:
		if ((op & 0xf0) == 0x70) {
			if (!take(c, &p, 1, &rel))
				return false;
			x->kind = X86_JCC;
			x->target = (int64_t)p + rel;
		} else if ((op & 0xf8) == 0xb8) { /* mov imm32, or imm64 with REX.W */
			if (!take(c, &p, rexw ? 8 : 4, &x->imm))
				return false;
		} else {
			return false;
		}
	}
	x->len = (uint32_t)(p - at);
	return true;
}

/* How many x86 instructions the JIT emits for eBPF instruction @p ins (not
 * EXIT, whose count depends on whether it is the first), following its
 * emitters: moves of a register to itself are left out, multiplications
 * and divisions save and restore rax and rdx around the operation unless
 * they are the destination, shifts by a register swap it with rcx. */
static int
emitted(const struct ebpf_insn *ins)
{
	uint8_t cls = BPF_CLASS(ins->code), op = BPF_OP(ins->code);
	uint8_t dr = ebpf2x86[ins->dst_reg], sr = ebpf2x86[ins->src_reg];
	bool x = BPF_SRC(ins->code) == BPF_X;
	int n;

	switch (cls) {
	case BPF_LD: /* the 16-byte immediate load, one mov */
	case BPF_LDX:
	case BPF_ST:
	case BPF_STX:
		return 1;
	case BPF_JMP:
		return op == BPF_JA ? 1 : 2; /* cmp or test, then the jump */
	default:
		break;
	}
	switch (op) {
	case BPF_LSH:
	case BPF_RSH:
	case EBPF_ARSH:
		return x && sr != RCX ? 3 : 1;
	case EBPF_MOV:
		return x && cls == EBPF_ALU64 && sr == dr ? 0 : 1;
	case EBPF_END:
		if (ins->code & EBPF_TO_BE)
			return ins->imm == 16 ? 2 : 1;
		return ins->imm == 64 ? 0 : 1;
	case BPF_MUL:
		/* save rax and rdx, rax = dst, rdx = src (or the immediate), mul */
		n = 2 + (dr != RAX) + (x ? sr != RDX : 1) + 1;
		return n + (dr != RDX) + 2 * (dr != RAX);
	case BPF_DIV:
	case BPF_MOD:
		/* by a register: test it and leave with 0 on zero (three) */
		n = x ? 3 : 0;
		n += (dr != RAX) + (dr != RDX) + (dr != RAX) + 1 + !x + 1;
		n += op == BPF_DIV ? dr != RAX : dr != RDX;
		return n + (dr != RAX) + (dr != RDX);
	default:
		return 1;
	}
}

static bool
is_exit(const struct ebpf_insn *ins)
{
	return ins->code == (BPF_JMP | EBPF_EXIT);
}

/* The prologue: "sub $8k, %rsp", k saves, and "mov %rsp, %rbp; sub $n, %rsp"
 * when r10 is used; none when no callee-saved register is. Returns its
 * length in instructions and the number of saves in @p spill. */
static uint32_t
prologue(const struct jit_check *c, uint32_t *spill, bool *frame)
{
	const struct x86_insn *x = c->x;

	*spill = 0;
	*frame = false;
	if (c->nx == 0 || !(x[0].opcode == 0x83 || x[0].opcode == 0x81) || x[0].modrm_reg != 5 ||
		c->code[x[0].off] != 0x48 || (c->code[x[0].off + 2] & 7) != RSP)
		return 0;
	*spill = (uint32_t)(x[0].imm / 8);
	if (1 + *spill < c->nx) {
		const uint8_t *m = c->code + x[1 + *spill].off;

		*frame = x[1 + *spill].len == 3 && m[0] == 0x48 && m[1] == 0x89 && m[2] == 0xe5;
	}
	return 1 + *spill + (*frame ? 2 : 0);
}

static int
check_jump(struct jit_check *c, uint32_t i, const struct x86_insn *x, uint8_t kind,
	uint32_t target_off, const char *what)
{
	if (x->kind != kind)
		return cc_bpf_refuse(c->err, c->errlen,
			"insn %u: the JIT's code at +%u is not the %s expected", i, x->off, what);
	if (x->target != (int64_t)target_off)
		return cc_bpf_refuse(c->err, c->errlen,
			"insn %u: the JIT's %s at +%u lands at +%lld, not at +%u where its target "
			"starts",
			i, what, x->off, (long long)x->target, target_off);
	return 0;
}

/* Walk the eBPF program over the decoded code: @p start[i] is where the
 * run of instruction i begins (start[n] the end); then check the jumps. */
static int
check_layout(struct jit_check *c, const struct ebpf_insn *ins, uint32_t n, uint32_t *start_x)
{
	uint32_t spill, k, epilogue_x = UINT32_MAX, exit_len;
	bool frame, seen_exit = false;
	int rc;

	k = prologue(c, &spill, &frame);
	exit_len = (spill != 0 ? (frame ? 1 : 0) + spill + 1 : 0) + 1;
	for (uint32_t i = 0; i < n; i++) {
		int cnt;

		start_x[i] = k;
		if (i > 0 && ins[i - 1].code == (BPF_LD | BPF_IMM | EBPF_DW))
			continue; /* the second slot emits nothing */
		if (ins[i].dst_reg >= EBPF_REG_NUM || ins[i].src_reg >= EBPF_REG_NUM)
			return cc_bpf_refuse(c->err, c->errlen, "insn %u: no such register", i);
		if (is_exit(&ins[i])) {
			cnt = seen_exit ? 1 : (int)exit_len;
			if (!seen_exit)
				epilogue_x = k;
			seen_exit = true;
		} else {
			cnt = emitted(&ins[i]);
		}
		k += (uint32_t)cnt;
		if (k > c->nx)
			return cc_bpf_refuse(
				c->err, c->errlen, "insn %u: the JIT's code ends early", i);
	}
	start_x[n] = k;
	if (k != c->nx)
		return cc_bpf_refuse(c->err, c->errlen,
			"the JIT's code has %u instructions, the program's make %u", c->nx, k);
	for (uint32_t i = 0; i < n; i++) {
		uint8_t cls = BPF_CLASS(ins[i].code), op = BPF_OP(ins[i].code);
		uint32_t last = start_x[i + 1] - 1, exit_off;
		int64_t target;

		if (i > 0 && ins[i - 1].code == (BPF_LD | BPF_IMM | EBPF_DW))
			continue;
		exit_off = epilogue_x < c->nx ? c->x[epilogue_x].off : UINT32_MAX;
		/* no jump anywhere but where one is expected */
		for (uint32_t j = start_x[i]; j < start_x[i + 1]; j++) {
			bool expected = j == last && cls == BPF_JMP &&
					(!is_exit(&ins[i]) || start_x[i] != epilogue_x);

			expected |= (op == BPF_DIV || op == BPF_MOD) &&
				    BPF_SRC(ins[i].code) == BPF_X && j == start_x[i] + 2 &&
				    (cls == BPF_ALU || cls == EBPF_ALU64);
			if (!expected && c->x[j].kind != X86_PLAIN)
				return cc_bpf_refuse(c->err, c->errlen,
					"insn %u: an unexpected jump in the JIT's code at +%u", i,
					c->x[j].off);
		}
		if (cls == BPF_ALU || cls == EBPF_ALU64) {
			if ((op == BPF_DIV || op == BPF_MOD) && BPF_SRC(ins[i].code) == BPF_X) {
				rc = check_jump(c, i, &c->x[start_x[i] + 2], X86_JCC, exit_off,
					"exit on a zero divisor");
				if (rc != 0)
					return rc;
			}
			continue;
		}
		if (cls != BPF_JMP)
			continue;
		if (is_exit(&ins[i])) {
			if (start_x[i] != epilogue_x) {
				rc = check_jump(
					c, i, &c->x[last], X86_JMP, exit_off, "jump to the exit");
				if (rc != 0)
					return rc;
			}
			continue;
		}
		target = (int64_t)i + 1 + ins[i].off;
		if (target < 0 || target >= n || start_x[target] >= c->nx)
			return cc_bpf_refuse(
				c->err, c->errlen, "insn %u: a jump out of the program", i);
		rc = check_jump(c, i, &c->x[last], op == BPF_JA ? X86_JMP : X86_JCC,
			c->x[start_x[target]].off, op == BPF_JA ? "jump" : "conditional jump");
		if (rc != 0)
			return rc;
	}
	return 0;
}

int
cc_bpf_jit_check(const struct ebpf_insn *ins, uint32_t n, const void *code, size_t size, char *err,
	size_t errlen)
{
	struct jit_check c = {.code = code, .size = size, .err = err, .errlen = errlen};
	uint32_t *start_x;
	size_t at = 0, ws_len;
	void *ws;
	int rc;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (code == NULL || n == 0)
		return cc_bpf_refuse(c.err, c.errlen, "no code");
	/* Every instruction is at least a byte long. Mapped, as the verifier's
	 * workspace: loading a module is rare, and the data path never does. */
	ws_len = size * sizeof(*c.x) + ((size_t)n + 1) * sizeof(*start_x);
	ws = mmap(NULL, ws_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ws == MAP_FAILED)
		return -ENOMEM;
	c.x = ws;
	start_x = (uint32_t *)(c.x + size);
	rc = 0;
	while (at < size && rc == 0) {
		if (!decode(&c, at, &c.x[c.nx]))
			rc = cc_bpf_refuse(c.err, c.errlen,
				"the JIT's code at +%zu is not a form it emits", at);
		else
			at += c.x[c.nx++].len;
	}
	/* Jumps index start_x by eBPF targets the verifier bounded (< n). */
	if (rc == 0)
		rc = check_layout(&c, ins, n, start_x);
	munmap(ws, ws_len);
	return rc;
}
