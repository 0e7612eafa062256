/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ELF reader of the bpf driver. A module is untrusted input, so the
 * image is read with our own bounds-checked code rather than libelf (which
 * rte_bpf_elf_load() uses): every header, section and name is checked to
 * lie inside the buffer before it is read, all reads go through memcpy
 * (an image may be unaligned), and offsets are added only after checking
 * they cannot wrap. The instructions that are verified are then the very
 * bytes handed to rte_bpf_load(): no relocation is applied in between,
 * because sections with relocations are refused.
 */
#include <elf.h>
#include <errno.h>
#include <string.h>

#include "cc_bpf.h"

#ifndef EM_BPF
#define EM_BPF 247
#endif

static const char *const entry_sections[SST_CC_BPF_EV_COUNT] = {
	[SST_CC_BPF_EV_INIT] = SST_CC_BPF_SEC_INIT,
	[SST_CC_BPF_EV_SENT] = SST_CC_BPF_SEC_SENT,
	[SST_CC_BPF_EV_ACK] = SST_CC_BPF_SEC_ACK,
	[SST_CC_BPF_EV_LOSS] = SST_CC_BPF_SEC_LOSS,
	[SST_CC_BPF_EV_RTO] = SST_CC_BPF_SEC_RTO,
	[SST_CC_BPF_EV_IDLE] = SST_CC_BPF_SEC_IDLE,
};

/* The ABI version that introduced each entry point: an older module's
 * section of that name is not one (its host ignored it). */
static const uint32_t entry_since[SST_CC_BPF_EV_COUNT] = {
	[SST_CC_BPF_EV_INIT] = 1,
	[SST_CC_BPF_EV_SENT] = 1,
	[SST_CC_BPF_EV_ACK] = 1,
	[SST_CC_BPF_EV_LOSS] = 1,
	[SST_CC_BPF_EV_RTO] = 1,
	[SST_CC_BPF_EV_IDLE] = 2,
};

static const bool entry_mandatory[SST_CC_BPF_EV_COUNT] = {
	[SST_CC_BPF_EV_ACK] = true,
	[SST_CC_BPF_EV_LOSS] = true,
	[SST_CC_BPF_EV_RTO] = true,
};

struct elf_reader {
	const uint8_t *buf;
	size_t len;
	Elf64_Ehdr eh;
	const char *shstr; /* section names */
	size_t shstr_len;
	char *err;
	size_t errlen;
};

/* Whether [off, off + size) lies inside the image. */
static bool
elf_in_bounds(const struct elf_reader *r, uint64_t off, uint64_t size)
{
	return off <= r->len && size <= r->len - off;
}

static void
elf_shdr(const struct elf_reader *r, unsigned int idx, Elf64_Shdr *sh)
{
	memcpy(sh, r->buf + r->eh.e_shoff + (size_t)idx * sizeof(*sh), sizeof(*sh));
}

/* The section's name, or NULL when it does not lie in the name table. */
static const char *
elf_name(const struct elf_reader *r, const Elf64_Shdr *sh)
{
	if (sh->sh_name >= r->shstr_len ||
		memchr(r->shstr + sh->sh_name, '\0', r->shstr_len - sh->sh_name) == NULL)
		return NULL;
	return r->shstr + sh->sh_name;
}

static int
elf_header(struct elf_reader *r)
{
	Elf64_Shdr strsh;

	if (r->len < sizeof(Elf64_Ehdr))
		return cc_bpf_refuse(r->err, r->errlen,
			"truncated ELF: %zu bytes, the header alone is %zu", r->len,
			sizeof(Elf64_Ehdr));
	memcpy(&r->eh, r->buf, sizeof(r->eh));
	if (memcmp(r->eh.e_ident, ELFMAG, SELFMAG) != 0)
		return cc_bpf_refuse(r->err, r->errlen, "not an ELF file (bad magic)");
	if (r->eh.e_ident[EI_CLASS] != ELFCLASS64 || r->eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return cc_bpf_refuse(r->err, r->errlen, "not a little-endian ELF64 object");
	if (r->eh.e_machine != EM_BPF)
		return cc_bpf_refuse(r->err, r->errlen,
			"wrong machine %u in the ELF header (want EM_BPF, %u)", r->eh.e_machine,
			EM_BPF);
	if (r->eh.e_type != ET_REL)
		return cc_bpf_refuse(r->err, r->errlen,
			"ELF type %u, want a relocatable object (clang -c)", r->eh.e_type);
	if (r->eh.e_shnum == 0 || r->eh.e_shentsize != sizeof(Elf64_Shdr))
		return cc_bpf_refuse(r->err, r->errlen, "no section headers");
	if (!elf_in_bounds(r, r->eh.e_shoff, (uint64_t)r->eh.e_shnum * sizeof(Elf64_Shdr)))
		return cc_bpf_refuse(
			r->err, r->errlen, "truncated ELF: the section headers end past the file");
	if (r->eh.e_shstrndx == SHN_UNDEF || r->eh.e_shstrndx >= r->eh.e_shnum)
		return cc_bpf_refuse(r->err, r->errlen, "no section name table");
	elf_shdr(r, r->eh.e_shstrndx, &strsh);
	if (strsh.sh_type != SHT_STRTAB || !elf_in_bounds(r, strsh.sh_offset, strsh.sh_size))
		return cc_bpf_refuse(r->err, r->errlen,
			"truncated ELF: the section name table ends past the file");
	r->shstr = (const char *)r->buf + strsh.sh_offset;
	r->shstr_len = strsh.sh_size;
	return 0;
}

static int
elf_entry_index(const char *name)
{
	for (int ev = 0; ev < SST_CC_BPF_EV_COUNT; ev++)
		if (strcmp(name, entry_sections[ev]) == 0)
			return ev;
	return -1;
}

static int
elf_abi_section(struct elf_reader *r, const Elf64_Shdr *sh, uint32_t *seen)
{
	uint32_t version;

	if (*seen != 0 || sh->sh_type != SHT_PROGBITS || sh->sh_size != sizeof(version))
		return cc_bpf_refuse(r->err, r->errlen, "malformed %s section", SST_CC_BPF_SEC_ABI);
	memcpy(&version, r->buf + sh->sh_offset, sizeof(version));
	if (version < SST_CC_BPF_ABI_OLDEST || version > SST_CC_BPF_ABI_VERSION)
		return cc_bpf_refuse(r->err, r->errlen,
			"module built for ABI version %u, this host runs %u to %u", version,
			SST_CC_BPF_ABI_OLDEST, SST_CC_BPF_ABI_VERSION);
	*seen = version;
	return 0;
}

static int
elf_entry_section(
	struct elf_reader *r, const Elf64_Shdr *sh, const char *name, struct cc_bpf_elf_prog *prog)
{
	uint64_t n = sh->sh_size / sizeof(struct ebpf_insn);

	if (prog->code != NULL)
		return cc_bpf_refuse(r->err, r->errlen, "section %s appears twice", name);
	if (sh->sh_type != SHT_PROGBITS || !(sh->sh_flags & SHF_EXECINSTR))
		return cc_bpf_refuse(r->err, r->errlen, "section %s is not executable code", name);
	if (sh->sh_size == 0 || sh->sh_size % sizeof(struct ebpf_insn) != 0)
		return cc_bpf_refuse(r->err, r->errlen,
			"section %s: %llu bytes, not a whole number of instructions", name,
			(unsigned long long)sh->sh_size);
	if (n > SST_CC_BPF_MAX_INSNS)
		return cc_bpf_refuse(r->err, r->errlen,
			"section %s: too-many-instructions: %llu, at most %u", name,
			(unsigned long long)n, SST_CC_BPF_MAX_INSNS);
	prog->code = r->buf + sh->sh_offset;
	prog->nb_ins = (uint32_t)n;
	return 0;
}

/* Relocations would change verified instructions: none may target code. */
static int
elf_check_relocations(struct elf_reader *r)
{
	for (unsigned int s = 0; s < r->eh.e_shnum; s++) {
		Elf64_Shdr sh, target;
		const char *name;

		elf_shdr(r, s, &sh);
		if (sh.sh_type != SHT_REL && sh.sh_type != SHT_RELA)
			continue;
		if (sh.sh_info >= r->eh.e_shnum)
			return cc_bpf_refuse(
				r->err, r->errlen, "relocation section %u targets no section", s);
		elf_shdr(r, sh.sh_info, &target);
		name = elf_name(r, &target);
		if (name != NULL && elf_entry_index(name) >= 0 && sh.sh_size != 0)
			return cc_bpf_refuse(r->err, r->errlen,
				"section %s has relocations (globals, maps and calls are not "
				"supported)",
				name);
	}
	return 0;
}

int
cc_bpf_elf_parse(const uint8_t *buf, size_t len, struct cc_bpf_elf *out, char *err, size_t errlen)
{
	struct elf_reader r = {.buf = buf, .len = len, .err = err, .errlen = errlen};
	uint32_t abi = 0; /* 0: no ABI section yet */
	bool any = false;
	int rc;

	memset(out, 0, sizeof(*out));
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (buf == NULL)
		return cc_bpf_refuse(r.err, r.errlen, "no image");
	rc = elf_header(&r);
	for (unsigned int s = 0; rc == 0 && s < r.eh.e_shnum; s++) {
		Elf64_Shdr sh;
		const char *name;
		int ev;

		elf_shdr(&r, s, &sh);
		if (sh.sh_type == SHT_NULL || sh.sh_type == SHT_NOBITS)
			continue;
		if (!elf_in_bounds(&r, sh.sh_offset, sh.sh_size))
			return cc_bpf_refuse(
				r.err, r.errlen, "truncated ELF: section %u ends past the file", s);
		name = elf_name(&r, &sh);
		if (name == NULL)
			return cc_bpf_refuse(r.err, r.errlen, "section %u has no valid name", s);
		ev = elf_entry_index(name);
		if (ev >= 0) {
			rc = elf_entry_section(&r, &sh, name, &out->prog[ev]);
			any = true;
		} else if (strcmp(name, SST_CC_BPF_SEC_ABI) == 0) {
			rc = elf_abi_section(&r, &sh, &abi);
		}
	}
	if (rc != 0)
		return rc;
	if (!any)
		return cc_bpf_refuse(r.err, r.errlen, "no text section: no %s, %s or %s",
			SST_CC_BPF_SEC_ACK, SST_CC_BPF_SEC_LOSS, SST_CC_BPF_SEC_RTO);
	for (int ev = 0; ev < SST_CC_BPF_EV_COUNT; ev++)
		if (entry_mandatory[ev] && out->prog[ev].code == NULL)
			return cc_bpf_refuse(
				r.err, r.errlen, "missing entry point %s", entry_sections[ev]);
	if (abi == 0)
		return cc_bpf_refuse(r.err, r.errlen, "no %s section (declare SST_CC_BPF_MODULE)",
			SST_CC_BPF_SEC_ABI);
	out->abi_version = abi;
	for (int ev = 0; ev < SST_CC_BPF_EV_COUNT; ev++)
		if (entry_since[ev] > abi)
			out->prog[ev] = (struct cc_bpf_elf_prog){0};
	return elf_check_relocations(&r);
}
