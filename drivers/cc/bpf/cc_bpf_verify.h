/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pre-verifier's abstract state, shared by its two files:
 * cc_bpf_verify.c (memory, jumps, the pass) and cc_bpf_verify_alu.c
 * (arithmetic). See cc_bpf_verify.c for the design.
 */
#ifndef CC_BPF_VERIFY_H
#define CC_BPF_VERIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cc_bpf.h"

enum {
	VREG_NUM = EBPF_REG_NUM,
	STACK_SIZE = 512,      /* rte_bpf's stack per call */
	PTR_OFF_MAX = 1 << 20, /* offsets beyond this are rejected before they overflow */
	/* rte_bpf's validator walks every path, each instruction once per path
	 * reaching it, at about 1 us a visit: this many visits keep it near 10 ms. */
	VISITS_MAX = 8192,
};

enum vtype {
	V_UNSET = 0, /* not written on some path */
	V_SCALAR,
	V_CTX,
	V_STACK,
	V_CONFLICT, /* different kinds, or pointers at different offsets, on different paths */
};

struct vreg {
	uint8_t type;
	bool known;   /* a scalar whose value is val */
	bool nonzero; /* a scalar known not to be 0 */
	int64_t val;  /* constant value, or pointer offset */
};

struct vstate {
	bool reached;
	uint32_t paths; /* from the entry to here, saturating at VISITS_MAX + 1 */
	struct vreg r[VREG_NUM];
	uint8_t stack_init[STACK_SIZE / 8]; /* bit per byte below r10 */
};

struct verifier {
	const uint8_t *code;
	uint32_t n;
	struct vstate *in; /* per instruction: the meet of the states reaching it */
	bool *imm_hi;	   /* second slot of a 16-byte load */
	char *err;
	size_t errlen;
	int64_t ctx_end; /* the end of the highest context access seen */
};

static inline struct ebpf_insn
insn_at(const struct verifier *v, uint32_t i)
{
	struct ebpf_insn ins;

	memcpy(&ins, v->code + (size_t)i * sizeof(ins), sizeof(ins));
	return ins;
}

/* Record why instruction @p i is rejected ("insn I: RULE: ..."); returns -EINVAL. */
int __attribute__((format(printf, 4, 5)))
cc_bpf_reject(struct verifier *v, uint32_t i, const char *rule, const char *fmt, ...);

static inline struct vreg
scalar(void)
{
	return (struct vreg){.type = V_SCALAR};
}

static inline struct vreg
constant(int64_t val)
{
	return (struct vreg){.type = V_SCALAR, .known = true, .nonzero = val != 0, .val = val};
}

static inline bool
is_ptr(const struct vreg *r)
{
	return r->type == V_CTX || r->type == V_STACK;
}

static inline const char *
type_name(const struct vreg *r)
{
	static const char *const names[] = {"unset", "a scalar", "the context", "the stack", "?"};

	return names[r->type];
}

/* A register read as an operand: it must be set on every path. */
static inline int
use_reg(struct verifier *v, uint32_t i, const struct vstate *s, unsigned int reg)
{
	if (s->r[reg].type == V_UNSET)
		return cc_bpf_reject(v, i, "uninitialised-register",
			"r%u is read but not set on every path", reg);
	if (s->r[reg].type == V_CONFLICT)
		return cc_bpf_reject(v, i, "variable-offset",
			"r%u holds different pointers or kinds of value on different paths", reg);
	return 0;
}

/* Check an ALU instruction and apply it to @p s (cc_bpf_verify_alu.c). */
int cc_bpf_verify_alu(
	struct verifier *v, uint32_t i, const struct ebpf_insn *ins, struct vstate *s);

#endif /* CC_BPF_VERIFY_H */
