/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pre-verifier that runs before rte_bpf's validator, whose DPDK 22.11
 * version has soundness bugs (instructions jumped over are never
 * evaluated, empty programs, range tracking), so memory safety does not
 * rest on it. It is deliberately simpler than a general eBPF verifier:
 * jumps only go forward, so one pass in instruction order sees every
 * instruction after all of its predecessors, and the abstract state at a
 * join is the meet of the states that reach it. The cost is linear in the
 * program (one state per instruction, each merged once per edge).
 *
 * The abstract state per register: unset, a scalar (possibly a known
 * constant, possibly known non-zero), the context pointer plus a constant
 * offset, or the frame pointer plus a constant offset; and per stack byte,
 * whether every path wrote it. Anything the state cannot express is
 * rejected, never approximated: variable offsets, pointer arithmetic
 * other than adding a constant, pointers stored to memory, compared or
 * returned, divisions by a register that may be zero, shifts by a
 * variable or out-of-range amount (undefined in C, so the interpreter and
 * the JIT would disagree), reads of unwritten stack, helper calls.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "cc_bpf_verify.h"

/* Record why instruction @p i is rejected; returns -EINVAL. */
int
cc_bpf_reject(struct verifier *v, uint32_t i, const char *rule, const char *fmt, ...)
{
	va_list ap;
	int len;

	if (v->err == NULL || v->errlen == 0)
		return -EINVAL;
	len = snprintf(v->err, v->errlen, "insn %u: %s: ", i, rule);
	if (len >= 0 && (size_t)len < v->errlen) {
		va_start(ap, fmt);
		vsnprintf(v->err + len, v->errlen - (size_t)len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* The meet of two register states: what holds on both paths. */
static struct vreg
vreg_meet(const struct vreg *a, const struct vreg *b)
{
	struct vreg m = scalar();

	if (a->type == V_UNSET || b->type == V_UNSET)
		return (struct vreg){.type = V_UNSET};
	/* Mixed on some path stays mixed: two such states joined again must not
	 * look alike and turn into a scalar that may be an address. */
	if (a->type == V_CONFLICT || b->type == V_CONFLICT || a->type != b->type ||
		(is_ptr(a) && a->val != b->val))
		return (struct vreg){.type = V_CONFLICT};
	if (is_ptr(a))
		return *a;
	m.known = a->known && b->known && a->val == b->val;
	m.val = m.known ? a->val : 0;
	m.nonzero = a->nonzero && b->nonzero;
	return m;
}

static void
vstate_meet_into(struct vstate *dst, const struct vstate *src)
{
	if (!dst->reached) {
		*dst = *src;
		return;
	}
	dst->paths =
		dst->paths + src->paths > VISITS_MAX ? VISITS_MAX + 1 : dst->paths + src->paths;
	for (unsigned int r = 0; r < VREG_NUM; r++)
		dst->r[r] = vreg_meet(&dst->r[r], &src->r[r]);
	for (unsigned int b = 0; b < sizeof(dst->stack_init); b++)
		dst->stack_init[b] &= src->stack_init[b];
}

static unsigned int
access_size(uint8_t code)
{
	switch (BPF_SIZE(code)) {
	case BPF_B:
		return 1;
	case BPF_H:
		return 2;
	case BPF_W:
		return 4;
	default:
		return 8;
	}
}

static bool
stack_range_init(const struct vstate *s, int64_t lo, unsigned int size)
{
	for (unsigned int k = 0; k < size; k++) {
		size_t byte = (size_t)(lo + STACK_SIZE) + k;

		if (!(s->stack_init[byte / 8] & (1u << (byte % 8))))
			return false;
	}
	return true;
}

static void
stack_range_mark(struct vstate *s, int64_t lo, unsigned int size)
{
	for (unsigned int k = 0; k < size; k++) {
		size_t byte = (size_t)(lo + STACK_SIZE) + k;

		s->stack_init[byte / 8] |= (uint8_t)(1u << (byte % 8));
	}
}

/*
 * A load or store of @p size bytes at base register @p reg + @p off: the
 * base must be the context or the frame pointer with a constant offset,
 * the bytes inside the object and naturally aligned, and stack bytes read
 * written before on every path. Returns the access's offset in @p at.
 */
static int
check_access(struct verifier *v, uint32_t i, struct vstate *s, unsigned int reg, int16_t off,
	unsigned int size, bool store, int64_t *at)
{
	const struct vreg *base = &s->r[reg];
	const char *what = store ? "store" : "load";
	int64_t lo = base->val + off;
	int64_t limit_lo, limit_hi;
	int rc = use_reg(v, i, s, reg);

	if (rc != 0)
		return rc;
	if (base->type == V_SCALAR)
		return cc_bpf_reject(v, i, "not-a-pointer",
			"%u-byte %s through r%u, which holds a scalar (only the context in r1 and "
			"the frame pointer r10, plus constants, may be dereferenced)",
			size, what, reg);
	if (base->type == V_CTX) {
		limit_lo = 0;
		limit_hi = (int64_t)sizeof(struct sst_cc_bpf_ctx);
	} else {
		limit_lo = -STACK_SIZE;
		limit_hi = 0;
	}
	if (lo < limit_lo || lo + (int64_t)size > limit_hi)
		return cc_bpf_reject(v, i, "out-of-bounds",
			"%u-byte %s at %s%+lld, outside [%lld, %lld)", size, what,
			base->type == V_CTX ? "ctx" : "fp", (long long)lo, (long long)limit_lo,
			(long long)limit_hi);
	if (lo % (int64_t)size != 0)
		return cc_bpf_reject(v, i, "misaligned", "%u-byte %s at %s%+lld", size, what,
			base->type == V_CTX ? "ctx" : "fp", (long long)lo);
	if (base->type == V_STACK) {
		if (store)
			stack_range_mark(s, lo, size);
		else if (!stack_range_init(s, lo, size))
			return cc_bpf_reject(v, i, "uninitialised-stack",
				"%u-byte load at fp%+lld reads bytes not written on every path",
				size, (long long)lo);
	}
	if (base->type == V_CTX && lo + (int64_t)size > v->ctx_end)
		v->ctx_end = lo + (int64_t)size;
	*at = base->type == V_CTX ? lo : INT64_MIN;
	return 0;
}

/* The context fields the driver guarantees are never 0 (cwnd >= mss >= 1). */
static bool
ctx_field_nonzero(int64_t at, unsigned int size)
{
	return (at == (int64_t)offsetof(struct sst_cc_bpf_ctx, cwnd) && size == 8) ||
	       (at == (int64_t)offsetof(struct sst_cc_bpf_ctx, mss) && size == 4);
}

static int
verify_mem(struct verifier *v, uint32_t i, const struct ebpf_insn *ins, struct vstate *s)
{
	unsigned int size = access_size(ins->code);
	uint8_t cls = BPF_CLASS(ins->code);
	int64_t at;
	int rc;

	if (BPF_MODE(ins->code) != BPF_MEM)
		return cc_bpf_reject(v, i, "bad-opcode",
			"opcode 0x%02x (only plain loads and stores)", ins->code);
	if (cls == BPF_LDX) {
		if (ins->imm != 0)
			return cc_bpf_reject(v, i, "bad-opcode", "load with a non-zero immediate");
		if (ins->dst_reg == EBPF_REG_10)
			return cc_bpf_reject(v, i, "write-r10", "the frame pointer is read-only");
		rc = check_access(v, i, s, ins->src_reg, ins->off, size, false, &at);
		if (rc != 0)
			return rc;
		s->r[ins->dst_reg] = scalar();
		s->r[ins->dst_reg].nonzero = ctx_field_nonzero(at, size);
		return 0;
	}
	if (cls == BPF_ST && ins->src_reg != 0)
		return cc_bpf_reject(v, i, "bad-opcode", "immediate store with a source register");
	if (cls == BPF_STX) {
		if (ins->imm != 0)
			return cc_bpf_reject(v, i, "bad-opcode", "store with a non-zero immediate");
		rc = use_reg(v, i, s, ins->src_reg);
		if (rc != 0)
			return rc;
		if (is_ptr(&s->r[ins->src_reg]))
			return cc_bpf_reject(v, i, "pointer-store", "r%u holds a pointer (%s)",
				ins->src_reg, type_name(&s->r[ins->src_reg]));
	}
	return check_access(v, i, s, ins->dst_reg, ins->off, size, true, &at);
}

/* Relations a taken or not-taken comparison establishes (unsigned). */
enum rel { REL_NONE, REL_EQ, REL_NE, REL_GT, REL_GE, REL_LT, REL_LE, REL_SET };

static enum rel
jump_rel(uint8_t op, bool taken)
{
	static const struct {
		uint8_t op;
		enum rel taken, fall;
	} map[] = {
		{BPF_JEQ, REL_EQ, REL_NE},
		{EBPF_JNE, REL_NE, REL_EQ},
		{BPF_JGT, REL_GT, REL_LE},
		{BPF_JGE, REL_GE, REL_LT},
		{EBPF_JLT, REL_LT, REL_GE},
		{EBPF_JLE, REL_LE, REL_GT},
		{BPF_JSET, REL_SET, REL_NONE},
	};

	for (size_t k = 0; k < sizeof(map) / sizeof(map[0]); k++)
		if (map[k].op == op)
			return taken ? map[k].taken : map[k].fall;
	return REL_NONE; /* signed comparisons: nothing learnt */
}

/* Learn which operands are non-zero from "a REL b" holding. */
static void
refine(struct vreg *a, struct vreg *b, enum rel rel)
{
	bool a_zero = a->known && a->val == 0, b_zero = b->known && b->val == 0;

	switch (rel) {
	case REL_GT:
		a->nonzero = true;
		break;
	case REL_LT:
		b->nonzero = true;
		break;
	case REL_GE:
		a->nonzero |= b->nonzero;
		break;
	case REL_LE:
		b->nonzero |= a->nonzero;
		break;
	case REL_EQ:
		a->nonzero |= b->nonzero;
		b->nonzero |= a->nonzero;
		break;
	case REL_NE:
		a->nonzero |= b_zero;
		b->nonzero |= a_zero;
		break;
	case REL_SET:
		a->nonzero = true;
		b->nonzero = true;
		break;
	default:
		break;
	}
}

/* The state after a conditional jump, on the taken or the fall-through edge. */
static void
branch_state(struct vstate *out, const struct vstate *s, const struct ebpf_insn *ins, bool taken)
{
	struct vreg k;
	struct vreg *b;

	*out = *s;
	if (BPF_SRC(ins->code) == BPF_X) {
		b = &out->r[ins->src_reg];
	} else {
		k = constant((int64_t)ins->imm);
		b = &k;
	}
	refine(&out->r[ins->dst_reg], b, jump_rel(BPF_OP(ins->code), taken));
}

static bool
is_exit(const struct ebpf_insn *ins)
{
	return ins->code == (BPF_JMP | EBPF_EXIT) && ins->dst_reg == 0 && ins->src_reg == 0 &&
	       ins->off == 0 && ins->imm == 0;
}

/* Leaving the program (by EXIT, or by a jump back onto one) with state @p s. */
static int
check_exit(struct verifier *v, uint32_t i, const struct vstate *s)
{
	if (s->r[EBPF_REG_0].type == V_UNSET || s->r[EBPF_REG_0].type == V_CONFLICT)
		return cc_bpf_reject(v, i, "r0-unset", "exit with r0 not set on every path");
	if (is_ptr(&s->r[EBPF_REG_0]))
		return cc_bpf_reject(v, i, "pointer-leak", "exit returns a pointer");
	return 0;
}

/*
 * A jump to an earlier instruction is a loop unless that instruction is
 * EXIT (clang places a shared exit block early and jumps back to it): such
 * a jump leaves the program, so the pass checks it as an exit right here.
 */
static int
verify_backward(
	struct verifier *v, uint32_t i, const struct ebpf_insn *ins, struct vstate *s, bool *falls)
{
	int64_t target = (int64_t)i + 1 + ins->off;
	struct ebpf_insn t = {0};
	struct vstate br;

	if (target >= 0 && !v->imm_hi[target])
		t = insn_at(v, (uint32_t)target);
	if (!is_exit(&t))
		return cc_bpf_reject(v, i, "backward-jump",
			"jump by %d to an instruction other than an exit: no loops", ins->off);
	if (BPF_OP(ins->code) == BPF_JA) {
		*falls = false;
		return check_exit(v, i, s);
	}
	branch_state(&br, s, ins, true);
	branch_state(s, s, ins, false);
	return check_exit(v, i, &br);
}

static int
verify_jmp(
	struct verifier *v, uint32_t i, const struct ebpf_insn *ins, struct vstate *s, bool *falls)
{
	uint8_t op = BPF_OP(ins->code);
	uint32_t target;
	struct vstate br;
	int rc;

	if (op == EBPF_CALL)
		return cc_bpf_reject(v, i, "helper-call",
			ins->src_reg == EBPF_PSEUDO_CALL
				? "bpf-to-bpf call (inline the function)"
				: "call of helper %d (no helper is allowed)",
			ins->imm);
	if (op == EBPF_EXIT) {
		if (!is_exit(ins))
			return cc_bpf_reject(v, i, "bad-opcode", "malformed exit");
		*falls = false;
		return check_exit(v, i, s);
	}
	if (jump_rel(op, true) == REL_NONE && op != BPF_JA && op != EBPF_JSGT && op != EBPF_JSGE &&
		op != EBPF_JSLT && op != EBPF_JSLE)
		return cc_bpf_reject(v, i, "bad-opcode", "jump operation 0x%02x", op);
	if (op == BPF_JA) {
		if (ins->code != (BPF_JMP | BPF_JA) || ins->dst_reg || ins->src_reg || ins->imm)
			return cc_bpf_reject(v, i, "bad-opcode", "malformed goto");
	} else {
		/* DPDK 22.11's x86-64 JIT miscompiles a bit test against a constant
		 * (a wrong branch, or a jump into the middle of an instruction). */
		if (op == BPF_JSET && BPF_SRC(ins->code) == BPF_K)
			return cc_bpf_reject(v, i, "jit-erratum",
				"bit test with a constant (test against a register)");
		if (BPF_SRC(ins->code) == BPF_X ? ins->imm != 0 : ins->src_reg != 0)
			return cc_bpf_reject(
				v, i, "bad-opcode", "comparison with unused fields set");
		rc = use_reg(v, i, s, ins->dst_reg);
		if (rc == 0 && BPF_SRC(ins->code) == BPF_X)
			rc = use_reg(v, i, s, ins->src_reg);
		if (rc != 0)
			return rc;
		if (is_ptr(&s->r[ins->dst_reg]) ||
			(BPF_SRC(ins->code) == BPF_X && is_ptr(&s->r[ins->src_reg])))
			return cc_bpf_reject(v, i, "pointer-leak", "comparison of a pointer");
	}
	if (ins->off < 0)
		return verify_backward(v, i, ins, s, falls);
	target = i + 1 + (uint32_t)ins->off;
	if (target >= v->n)
		return cc_bpf_reject(
			v, i, "jump-out-of-range", "target %u past the last instruction", target);
	if (v->imm_hi[target])
		return cc_bpf_reject(
			v, i, "jump-out-of-range", "target %u is inside a 16-byte load", target);
	if (op == BPF_JA) {
		vstate_meet_into(&v->in[target], s);
		*falls = false;
		return 0;
	}
	branch_state(&br, s, ins, true);
	vstate_meet_into(&v->in[target], &br);
	branch_state(&br, s, ins, false);
	*s = br;
	return 0;
}

static int
verify_ld_imm64(struct verifier *v, uint32_t i, const struct ebpf_insn *ins, struct vstate *s)
{
	struct ebpf_insn hi = insn_at(v, i + 1);

	if (ins->dst_reg == EBPF_REG_10)
		return cc_bpf_reject(v, i, "write-r10", "the frame pointer is read-only");
	s->r[ins->dst_reg] = constant(
		(int64_t)((uint64_t)(uint32_t)ins->imm | ((uint64_t)(uint32_t)hi.imm << 32)));
	return 0;
}

/* Structure first: opcodes every path would need, 16-byte loads well formed. */
static int
verify_structure(struct verifier *v)
{
	for (uint32_t i = 0; i < v->n; i++) {
		struct ebpf_insn ins = insn_at(v, i), hi;
		uint8_t cls = BPF_CLASS(ins.code);

		if (ins.dst_reg >= VREG_NUM || ins.src_reg >= VREG_NUM)
			return cc_bpf_reject(
				v, i, "bad-register", "r%u/r%u", ins.dst_reg, ins.src_reg);
		if (cls == BPF_RET)
			return cc_bpf_reject(v, i, "bad-opcode",
				"opcode 0x%02x (no JMP32 in rte_bpf)", ins.code);
		if (cls != BPF_LD)
			continue;
		if (ins.code != (BPF_LD | BPF_IMM | EBPF_DW))
			return cc_bpf_reject(
				v, i, "bad-opcode", "opcode 0x%02x (no packet loads)", ins.code);
		if (ins.src_reg != 0 || ins.off != 0)
			return cc_bpf_reject(
				v, i, "bad-opcode", "16-byte load of a map or pseudo value");
		if (i + 1 >= v->n)
			return cc_bpf_reject(
				v, i, "bad-opcode", "16-byte load cut by the end of the program");
		hi = insn_at(v, i + 1);
		if (hi.code != 0 || hi.dst_reg != 0 || hi.src_reg != 0 || hi.off != 0)
			return cc_bpf_reject(
				v, i + 1, "bad-opcode", "malformed second half of a 16-byte load");
		v->imm_hi[++i] = true;
	}
	return 0;
}

static int
verify_insn(struct verifier *v, uint32_t i, struct vstate *s, bool *falls)
{
	struct ebpf_insn ins = insn_at(v, i);

	switch (BPF_CLASS(ins.code)) {
	case BPF_LD:
		return verify_ld_imm64(v, i, &ins, s);
	case BPF_LDX:
	case BPF_ST:
	case BPF_STX:
		return verify_mem(v, i, &ins, s);
	case BPF_ALU:
	case EBPF_ALU64:
		return cc_bpf_verify_alu(v, i, &ins, s);
	default:
		return verify_jmp(v, i, &ins, s, falls);
	}
}

static int
verify_flow(struct verifier *v)
{
	struct vstate cur;
	bool falls = true;
	uint32_t visits = 0;
	int rc;

	memset(&cur, 0, sizeof(cur));
	cur.reached = true;
	cur.paths = 1;
	for (unsigned int r = 0; r < VREG_NUM; r++)
		cur.r[r].type = V_UNSET;
	cur.r[EBPF_REG_1] = (struct vreg){.type = V_CTX};
	cur.r[EBPF_REG_10] = (struct vreg){.type = V_STACK};
	for (uint32_t i = 0; i < v->n; i++) {
		if (v->imm_hi[i])
			continue;
		if (falls)
			vstate_meet_into(&v->in[i], &cur);
		if (!v->in[i].reached) {
			struct ebpf_insn ins = insn_at(v, i);

			/* An exit reached only by jumps back to it is checked at those jumps. */
			if (is_exit(&ins)) {
				falls = false;
				continue;
			}
			return cc_bpf_reject(
				v, i, "unreachable", "no path reaches this instruction");
		}
		cur = v->in[i];
		visits += cur.paths;
		if (visits > VISITS_MAX)
			return cc_bpf_reject(v, i, "too-many-paths",
				"more than %d instruction visits over all paths (rte_bpf's "
				"validator "
				"walks each path)",
				VISITS_MAX);
		falls = true;
		rc = verify_insn(v, i, &cur, &falls);
		if (rc != 0)
			return rc;
	}
	if (falls)
		return cc_bpf_reject(
			v, v->n - 1, "no-exit", "the last instruction falls off the end");
	return 0;
}

int
cc_bpf_verify(const uint8_t *code, uint32_t nb_ins, char *err, size_t errlen)
{
	return cc_bpf_verify_ctx(code, nb_ins, NULL, err, errlen);
}

int
cc_bpf_verify_ctx(const uint8_t *code, uint32_t nb_ins, uint32_t *ctx_end, char *err, size_t errlen)
{
	struct verifier v = {.code = code, .n = nb_ins, .err = err, .errlen = errlen};
	size_t ws_len;
	void *ws;
	int rc;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (nb_ins == 0 || code == NULL)
		return cc_bpf_reject(&v, 0, "empty-program", "no instructions");
	if (nb_ins > SST_CC_BPF_MAX_INSNS)
		return cc_bpf_reject(&v, SST_CC_BPF_MAX_INSNS, "too-many-instructions",
			"%u instructions, at most %u", nb_ins, SST_CC_BPF_MAX_INSNS);
	/* About 1 MB for the largest program: mapped, not on the stack. */
	ws_len = (size_t)nb_ins * (sizeof(struct vstate) + sizeof(bool));
	ws = mmap(NULL, ws_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ws == MAP_FAILED)
		return -ENOMEM;
	v.in = ws;
	v.imm_hi = (bool *)(v.in + nb_ins);
	rc = verify_structure(&v);
	if (rc == 0)
		rc = verify_flow(&v);
	munmap(ws, ws_len);
	if (rc == 0 && ctx_end != NULL)
		*ctx_end = (uint32_t)v.ctx_end;
	return rc;
}
