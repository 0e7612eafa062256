/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pre-verifier's arithmetic (cc_bpf_verify.c has the design): constant
 * folding, the non-zero facts divisions need, pointer offsets, shift
 * ranges, and the register forms DPDK 22.11's JIT gets wrong.
 */
#include <errno.h>

#include "cc_bpf_verify.h"

/* Constant folding of the operations whose result is cheap to know. */
static bool
fold(uint8_t op, bool is64, uint64_t a, uint64_t b, int64_t *out)
{
	uint64_t r;

	switch (op) {
	case BPF_ADD:
		r = a + b;
		break;
	case BPF_SUB:
		r = a - b;
		break;
	case BPF_MUL:
		r = a * b;
		break;
	case BPF_OR:
		r = a | b;
		break;
	case BPF_AND:
		r = a & b;
		break;
	case BPF_XOR:
		r = a ^ b;
		break;
	default:
		return false;
	}
	*out = (int64_t)(is64 ? r : (uint32_t)r);
	return true;
}

static int
verify_alu_ptr(struct verifier *v, uint32_t i, const struct ebpf_insn *ins, struct vstate *s,
	const struct vreg *src, bool is64)
{
	uint8_t op = BPF_OP(ins->code);
	struct vreg *dst = &s->r[ins->dst_reg];
	int64_t delta;

	if (is64 && (op == BPF_ADD || op == BPF_SUB) && !src->known)
		return cc_bpf_reject(v, i, "variable-offset",
			"r%u holds %s: adding a value that is not a known constant", ins->dst_reg,
			type_name(dst));
	if (!is64 || (op != BPF_ADD && op != BPF_SUB))
		return cc_bpf_reject(v, i, "pointer-arithmetic",
			"r%u holds %s: only adding or subtracting a constant is allowed",
			ins->dst_reg, type_name(dst));
	delta = op == BPF_ADD ? src->val : -src->val;
	if (src->val < -PTR_OFF_MAX || src->val > PTR_OFF_MAX || dst->val + delta < -PTR_OFF_MAX ||
		dst->val + delta > PTR_OFF_MAX)
		return cc_bpf_reject(
			v, i, "pointer-arithmetic", "offset of r%u out of range", ins->dst_reg);
	dst->val += delta;
	return 0;
}

static int
verify_shift(struct verifier *v, uint32_t i, const struct vreg *src, bool is64)
{
	int64_t width = is64 ? 64 : 32;

	if (!src->known)
		return cc_bpf_reject(v, i, "variable-shift",
			"shift by a register whose value is not a known constant");
	if (src->val < 0 || src->val >= width)
		return cc_bpf_reject(v, i, "shift-range", "shift by %lld on %lld bits",
			(long long)src->val, (long long)width);
	return 0;
}

/* BPF_END's source bit selects the byte order, so it has its own checks;
 * in the 64-bit class it is v4's unconditional swap, which rte_bpf lacks. */
static int
verify_byteswap(
	struct verifier *v, uint32_t i, const struct ebpf_insn *ins, struct vstate *s, bool is64)
{
	int rc;

	if (is64 || ins->src_reg != 0 || (ins->imm != 16 && ins->imm != 32 && ins->imm != 64))
		return cc_bpf_reject(
			v, i, "bad-opcode", "byte swap 0x%02x/%d", ins->code, ins->imm);
	rc = use_reg(v, i, s, ins->dst_reg);
	if (rc != 0)
		return rc;
	if (is_ptr(&s->r[ins->dst_reg]))
		return cc_bpf_reject(v, i, "pointer-arithmetic", "byte swap of a pointer");
	s->r[ins->dst_reg] = scalar();
	return 0;
}

/*
 * Register forms DPDK 22.11's x86-64 JIT miscompiles (found by
 * fuzz_cc_bpf, which compares it with the interpreter): a 32-bit division
 * or modulo by a register clobbers the high half of r3 (RDX); a 64-bit one
 * of r0 or r3 by itself, and a shift of any register by itself, give wrong
 * results. Refused, so that a module computes the same either way.
 */
static int
verify_jit_errata(struct verifier *v, uint32_t i, const struct ebpf_insn *ins, bool is64)
{
	uint8_t op = BPF_OP(ins->code);
	bool self = ins->dst_reg == ins->src_reg;

	if (BPF_SRC(ins->code) != BPF_X)
		return 0;
	if ((op == BPF_DIV || op == BPF_MOD) && !is64)
		return cc_bpf_reject(v, i, "jit-erratum",
			"32-bit division by a register (divide by a constant, or in 64 bits)");
	if ((op == BPF_DIV || op == BPF_MOD || op == BPF_LSH || op == BPF_RSH || op == EBPF_ARSH) &&
		self)
		return cc_bpf_reject(
			v, i, "jit-erratum", "r%u divided or shifted by itself", ins->dst_reg);
	return 0;
}

int
cc_bpf_verify_alu(struct verifier *v, uint32_t i, const struct ebpf_insn *ins, struct vstate *s)
{
	bool is64 = BPF_CLASS(ins->code) == EBPF_ALU64;
	uint8_t op = BPF_OP(ins->code);
	struct vreg *dst = &s->r[ins->dst_reg];
	struct vreg src;
	int rc;

	if (ins->off != 0 || ins->dst_reg == EBPF_REG_10)
		return cc_bpf_reject(v, i, ins->off != 0 ? "bad-opcode" : "write-r10",
			ins->off != 0 ? "ALU offset field must be 0 (no sdiv/smod/movsx)"
				      : "the frame pointer is read-only");
	if (op == EBPF_END)
		return verify_byteswap(v, i, ins, s, is64);
	if (BPF_SRC(ins->code) == BPF_X) {
		if (ins->imm != 0 || op == BPF_NEG)
			return cc_bpf_reject(v, i, "bad-opcode",
				"opcode 0x%02x with a source register", ins->code);
		rc = use_reg(v, i, s, ins->src_reg);
		if (rc != 0)
			return rc;
		src = s->r[ins->src_reg];
	} else {
		if (ins->src_reg != 0)
			return cc_bpf_reject(
				v, i, "bad-opcode", "immediate form with a source register");
		src = constant(is64 ? (int64_t)ins->imm : (int64_t)(uint32_t)ins->imm);
	}
	if (op == EBPF_MOV) {
		if (is_ptr(&src) && !is64)
			return cc_bpf_reject(
				v, i, "pointer-arithmetic", "32-bit copy of a pointer");
		if (!is64 && src.known)
			src = constant((int64_t)(uint32_t)src.val);
		else if (!is64)
			src = scalar();
		*dst = src;
		return 0;
	}
	rc = use_reg(v, i, s, ins->dst_reg);
	if (rc == 0)
		rc = verify_jit_errata(v, i, ins, is64);
	if (rc != 0)
		return rc;
	if (is_ptr(dst))
		return verify_alu_ptr(v, i, ins, s, &src, is64);
	if (is_ptr(&src))
		return cc_bpf_reject(v, i, "pointer-arithmetic", "r%u holds a pointer (%s)",
			ins->src_reg, type_name(&src));
	switch (op) {
	case BPF_ADD:
	case BPF_SUB:
	case BPF_MUL:
	case BPF_OR:
	case BPF_AND:
	case BPF_XOR:
	case BPF_NEG:
	case EBPF_ARSH:
		break;
	case BPF_DIV:
	case BPF_MOD:
		/* rte_bpf stops a program that divides by 0 and returns 0, a window the
		 * module never meant. (32-bit divisions by a register are refused above.) */
		if (BPF_SRC(ins->code) == BPF_K ? ins->imm == 0 : !src.nonzero)
			return cc_bpf_reject(v, i, "division-by-zero",
				BPF_SRC(ins->code) == BPF_K ? "division by the constant 0"
							    : "divisor r%u may be 0",
				ins->src_reg);
		break;
	case BPF_LSH:
	case BPF_RSH:
		break;
	default:
		return cc_bpf_reject(v, i, "bad-opcode", "ALU operation 0x%02x", op);
	}
	if (op == BPF_LSH || op == BPF_RSH || op == EBPF_ARSH) {
		rc = verify_shift(v, i, &src, is64);
		if (rc != 0)
			return rc;
	}
	if (op == BPF_NEG && (ins->imm != 0 || BPF_SRC(ins->code) != BPF_K))
		return cc_bpf_reject(v, i, "bad-opcode", "negation with an operand");
	{
		struct vreg res = scalar();
		int64_t val;

		if (dst->known && src.known &&
			fold(op, is64, (uint64_t)dst->val, (uint64_t)src.val, &val))
			res = constant(val);
		else if (op == BPF_OR && is64)
			res.nonzero = dst->nonzero || src.nonzero;
		else if (op == BPF_OR)
			res.nonzero = src.known && (uint32_t)src.val != 0;
		*dst = res;
	}
	return 0;
}
