/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Builds minimal eBPF ELF objects in memory for the bpf driver's tests and
 * fuzz target: a null section, the named sections given, the ABI section
 * and the section-name table, in the layout clang produces for
 * `clang -target bpf -c`. Tests then break what they want.
 */
#ifndef CC_BPF_ELF_BUILD_H
#define CC_BPF_ELF_BUILD_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cc_bpf.h"

#define ELF_BUILD_MAX_SECTIONS 8

/* eBPF instructions, for programs written by hand. */
#define INSN(c, d, s, o, i) \
	((struct ebpf_insn){.code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i)})
#define MOV_K(d, k) INSN(EBPF_ALU64 | EBPF_MOV | BPF_K, d, 0, 0, k)
#define MOV_X(d, s) INSN(EBPF_ALU64 | EBPF_MOV | BPF_X, d, s, 0, 0)
#define ALU_K(op, d, k) INSN(EBPF_ALU64 | (op) | BPF_K, d, 0, 0, k)
#define ALU_X(op, d, s) INSN(EBPF_ALU64 | (op) | BPF_X, d, s, 0, 0)
#define ALU32_X(op, d, s) INSN(BPF_ALU | (op) | BPF_X, d, s, 0, 0)
#define LDX(sz, d, s, o) INSN(BPF_LDX | BPF_MEM | (sz), d, s, o, 0)
#define STX(sz, d, s, o) INSN(BPF_STX | BPF_MEM | (sz), d, s, o, 0)
#define ST(sz, d, o, k) INSN(BPF_ST | BPF_MEM | (sz), d, 0, o, k)
#define JMP_K(op, d, k, o) INSN(BPF_JMP | (op) | BPF_K, d, 0, o, k)
#define JMP_X(op, d, s, o) INSN(BPF_JMP | (op) | BPF_X, d, s, o, 0)
#define JA(o) INSN(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define CALL(k) INSN(BPF_JMP | EBPF_CALL, 0, 0, 0, k)
#define EXIT() INSN(BPF_JMP | EBPF_EXIT, 0, 0, 0, 0)
#define CTX_OFF(field) ((int16_t)offsetof(struct sst_cc_bpf_ctx, field))

struct elf_build_sec {
	const char *name;
	uint32_t type;	/* SHT_PROGBITS for code */
	uint64_t flags; /* SHF_ALLOC | SHF_EXECINSTR for code */
	const void *data;
	size_t len;
	uint32_t info; /* for relocation sections: the section index they patch */
};

/*
 * Write an ELF image with @p nsec sections (plus the null section, an ABI
 * section when @p abi is not 0, and .shstrtab) into @p out. Section i of
 * @p sec gets index i + 1. Returns the image's size, or 0 if @p cap is too
 * small.
 */
static inline size_t
elf_build(
	uint8_t *out, size_t cap, const struct elf_build_sec *sec, unsigned int nsec, uint32_t abi)
{
	struct elf_build_sec all[ELF_BUILD_MAX_SECTIONS + 2];
	Elf64_Shdr sh[ELF_BUILD_MAX_SECTIONS + 3];
	char names[512];
	size_t nlen = 1, off = sizeof(Elf64_Ehdr);
	unsigned int n = 0;
	Elf64_Ehdr eh;

	if (nsec > ELF_BUILD_MAX_SECTIONS)
		return 0;
	for (unsigned int i = 0; i < nsec; i++)
		all[n++] = sec[i];
	if (abi != 0)
		all[n++] = (struct elf_build_sec){
			SST_CC_BPF_SEC_ABI, SHT_PROGBITS, SHF_ALLOC, &abi, 4, 0};
	memset(sh, 0, sizeof(sh));
	names[0] = '\0';
	for (unsigned int i = 0; i < n; i++) {
		size_t l = strlen(all[i].name) + 1;

		if (nlen + l > sizeof(names) || off + all[i].len > cap)
			return 0;
		memcpy(names + nlen, all[i].name, l);
		sh[i + 1] = (Elf64_Shdr){.sh_name = (uint32_t)nlen,
			.sh_type = all[i].type,
			.sh_flags = all[i].flags,
			.sh_offset = off,
			.sh_size = all[i].len,
			.sh_info = all[i].info,
			.sh_addralign = 8};
		if (all[i].len > 0)
			memcpy(out + off, all[i].data, all[i].len);
		off += (all[i].len + 7) & ~(size_t)7;
		nlen += l;
	}
	memcpy(names + nlen, ".shstrtab", sizeof(".shstrtab"));
	sh[n + 1] = (Elf64_Shdr){.sh_name = (uint32_t)nlen,
		.sh_type = SHT_STRTAB,
		.sh_offset = off,
		.sh_size = nlen + sizeof(".shstrtab"),
		.sh_addralign = 1};
	nlen += sizeof(".shstrtab");
	if (off + nlen + 8 + (n + 2) * sizeof(Elf64_Shdr) > cap)
		return 0;
	memcpy(out + off, names, nlen);
	off = (off + nlen + 7) & ~(size_t)7;
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_REL;
	eh.e_machine = 247; /* EM_BPF */
	eh.e_version = EV_CURRENT;
	eh.e_shoff = off;
	eh.e_ehsize = sizeof(eh);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = (uint16_t)(n + 2);
	eh.e_shstrndx = (uint16_t)(n + 1);
	memcpy(out, &eh, sizeof(eh));
	memcpy(out + off, sh, (n + 2) * sizeof(Elf64_Shdr));
	return off + (n + 2) * sizeof(Elf64_Shdr);
}

/* A module whose on_ack, on_loss and on_rto are all @p ins. */
static inline size_t
elf_build_module(uint8_t *out, size_t cap, const struct ebpf_insn *ins, uint32_t n)
{
	const uint64_t code = SHF_ALLOC | SHF_EXECINSTR;
	struct elf_build_sec sec[] = {
		{SST_CC_BPF_SEC_ACK, SHT_PROGBITS, code, ins, n * sizeof(*ins), 0},
		{SST_CC_BPF_SEC_LOSS, SHT_PROGBITS, code, ins, n * sizeof(*ins), 0},
		{SST_CC_BPF_SEC_RTO, SHT_PROGBITS, code, ins, n * sizeof(*ins), 0},
	};

	return elf_build(out, cap, sec, 3, SST_CC_BPF_ABI_VERSION);
}

#endif /* CC_BPF_ELF_BUILD_H */
