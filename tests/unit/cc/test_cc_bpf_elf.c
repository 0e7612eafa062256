/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the bpf driver's ELF reader (drivers/cc/bpf/cc_bpf_elf.c) and of
 * the whole check a module goes through before it is kept (cc_bpf_check():
 * ELF, pre-verifier, rte_bpf_load): malformed objects are refused with
 * their reason (every truncation, wrong machine, no text section, missing
 * entry points, relocations, ABI version), and 1,000 mutations of a valid
 * module never crash the loader (run under ASan and UBSan in the clang
 * configuration) and are either refused with a reason or fully checked.
 */
#include <stdio.h>
#include <string.h>

#include "cc_bpf.h"
#include "cc_bpf_elf_build.h"
#include "sst_test.h"

static char err[CC_BPF_ERR_MAX];
static uint8_t img[8192];

static const struct ebpf_insn ret_cwnd[] = {LDX(EBPF_DW, 0, 1, CTX_OFF(cwnd)), EXIT()};

static size_t
valid_module(void)
{
	size_t len = elf_build_module(img, sizeof(img), ret_cwnd, 2);

	CU_ASSERT_FATAL(len > 0);
	return len;
}

static void
expect_refused(const uint8_t *buf, size_t len, const char *reason)
{
	struct cc_bpf_elf elf;
	int rc = cc_bpf_elf_parse(buf, len, &elf, err, sizeof(err));

	if (rc != -EINVAL || strstr(err, reason) == NULL)
		printf("\n  want \"%s\", got %d \"%s\"\n", reason, rc, err);
	CU_ASSERT_EQUAL(rc, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, reason));
}

static void
test_valid(void)
{
	size_t len = valid_module();
	struct cc_bpf_elf elf;

	CU_ASSERT_EQUAL(cc_bpf_elf_parse(img, len, &elf, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NULL(elf.prog[SST_CC_BPF_EV_INIT].code);
	CU_ASSERT_PTR_NULL(elf.prog[SST_CC_BPF_EV_SENT].code);
	for (int ev = SST_CC_BPF_EV_ACK; ev <= SST_CC_BPF_EV_RTO; ev++) {
		CU_ASSERT_EQUAL(elf.prog[ev].nb_ins, 2);
		CU_ASSERT_EQUAL(memcmp(elf.prog[ev].code, ret_cwnd, sizeof(ret_cwnd)), 0);
	}
	CU_ASSERT_EQUAL(cc_bpf_check(img, len, err, sizeof(err)), 0);
}

static void
test_truncated(void)
{
	size_t len = valid_module();

	/* Every proper prefix is refused (the section headers come last). */
	for (size_t cut = 0; cut < len; cut++) {
		struct cc_bpf_elf elf;

		CU_ASSERT_EQUAL(cc_bpf_elf_parse(img, cut, &elf, err, sizeof(err)), -EINVAL);
		CU_ASSERT(err[0] != '\0');
	}
	expect_refused(img, 10, "truncated ELF");
	expect_refused(img, len - 1, "truncated ELF");
}

static void
test_wrong_machine(void)
{
	size_t len = valid_module();
	Elf64_Ehdr eh;

	memcpy(&eh, img, sizeof(eh));
	eh.e_machine = EM_X86_64;
	memcpy(img, &eh, sizeof(eh));
	expect_refused(img, len, "wrong machine 62");
	eh.e_machine = 247;
	eh.e_ident[EI_CLASS] = ELFCLASS32;
	memcpy(img, &eh, sizeof(eh));
	expect_refused(img, len, "ELF64");
	img[0] = 0;
	expect_refused(img, len, "bad magic");
}

static void
test_no_text_section(void)
{
	const uint32_t data = 0;
	struct elf_build_sec only_data[] = {{".data", SHT_PROGBITS, SHF_ALLOC, &data, 4, 0}};
	struct elf_build_sec not_exec[] = {
		{SST_CC_BPF_SEC_ACK, SHT_PROGBITS, SHF_ALLOC, ret_cwnd, sizeof(ret_cwnd), 0}};
	struct elf_build_sec partial[] = {
		{SST_CC_BPF_SEC_ACK, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, ret_cwnd,
			sizeof(ret_cwnd), 0},
		{SST_CC_BPF_SEC_LOSS, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, ret_cwnd,
			sizeof(ret_cwnd), 0},
	};
	struct elf_build_sec ragged[] = {
		{SST_CC_BPF_SEC_ACK, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, ret_cwnd, 12, 0}};
	size_t len;

	len = elf_build(img, sizeof(img), only_data, 1, SST_CC_BPF_ABI_VERSION);
	expect_refused(img, len, "no text section");
	len = elf_build(img, sizeof(img), not_exec, 1, SST_CC_BPF_ABI_VERSION);
	expect_refused(img, len, "not executable");
	len = elf_build(img, sizeof(img), partial, 2, SST_CC_BPF_ABI_VERSION);
	expect_refused(img, len, "missing entry point " SST_CC_BPF_SEC_RTO);
	len = elf_build(img, sizeof(img), ragged, 1, SST_CC_BPF_ABI_VERSION);
	expect_refused(img, len, "not a whole number of instructions");
}

static void
test_abi_and_relocations(void)
{
	const uint64_t code = SHF_ALLOC | SHF_EXECINSTR;
	const uint8_t rel[16] = {0};
	struct elf_build_sec sec[] = {
		{SST_CC_BPF_SEC_ACK, SHT_PROGBITS, code, ret_cwnd, sizeof(ret_cwnd), 0},
		{SST_CC_BPF_SEC_LOSS, SHT_PROGBITS, code, ret_cwnd, sizeof(ret_cwnd), 0},
		{SST_CC_BPF_SEC_RTO, SHT_PROGBITS, code, ret_cwnd, sizeof(ret_cwnd), 0},
		{".relsst_cc/on_ack", SHT_REL, 0, rel, sizeof(rel), 1},
	};
	struct elf_build_sec with_idle[] = {
		sec[0],
		sec[1],
		sec[2],
		{SST_CC_BPF_SEC_IDLE, SHT_PROGBITS, code, ret_cwnd, sizeof(ret_cwnd), 0},
	};
	struct cc_bpf_elf elf;
	size_t len;

	len = elf_build(img, sizeof(img), sec, 3, 0);
	expect_refused(img, len, "no " SST_CC_BPF_SEC_ABI " section");
	len = elf_build(img, sizeof(img), sec, 3, SST_CC_BPF_ABI_VERSION + 1);
	expect_refused(img, len, "ABI version 3, this host runs 1 to 2");
	len = elf_build(img, sizeof(img), sec, 4, SST_CC_BPF_ABI_VERSION);
	expect_refused(img, len, "has relocations");
	/* Version 2 has on_idle; a version 1 module runs on this host, and a
	 * section of that name in it is not an entry point (v1 had none). */
	len = elf_build(img, sizeof(img), with_idle, 4, 2);
	CU_ASSERT_EQUAL_FATAL(cc_bpf_elf_parse(img, len, &elf, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(elf.abi_version, 2);
	CU_ASSERT_EQUAL(elf.prog[SST_CC_BPF_EV_IDLE].nb_ins, 2);
	len = elf_build(img, sizeof(img), with_idle, 4, 1);
	CU_ASSERT_EQUAL_FATAL(cc_bpf_elf_parse(img, len, &elf, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(elf.abi_version, 1);
	CU_ASSERT_PTR_NULL(elf.prog[SST_CC_BPF_EV_IDLE].code);
	CU_ASSERT_EQUAL(elf.prog[SST_CC_BPF_EV_ACK].nb_ins, 2);
	CU_ASSERT_EQUAL(cc_bpf_check(img, len, err, sizeof(err)), 0);
}

/* The verifier's verdict reaches the caller with the entry point's name. */
static void
test_check_reports_verifier(void)
{
	const struct ebpf_insn loop[] = {MOV_K(0, 0), JA(-1), EXIT()};
	size_t len = elf_build_module(img, sizeof(img), loop, 3);

	CU_ASSERT_EQUAL(cc_bpf_check(img, len, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "on_ack: insn 1: backward-jump"));
}

static uint64_t
xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* 1,000 mutants of a valid module: bytes flipped, header fields and
 * section headers overwritten, cut short. None may crash; each is refused
 * with a reason or passes every check. */
static void
test_fuzzed_elves(void)
{
	const struct ebpf_insn prog[] = {
		LDX(EBPF_DW, 2, 1, CTX_OFF(cwnd)),
		LDX(BPF_W, 3, 1, CTX_OFF(mss)),
		MOV_X(0, 2),
		JMP_X(BPF_JGT, 2, 3, 1),
		MOV_X(0, 3),
		ALU_X(BPF_DIV, 0, 3),
		EXIT(),
	};
	static uint8_t orig[8192], mut[8192];
	size_t len = elf_build_module(orig, sizeof(orig), prog, 7);
	unsigned int refused = 0, accepted = 0;
	uint64_t seed = 0x5eed5eed5eedULL;
	Elf64_Ehdr eh;

	CU_ASSERT_FATAL(len > 0);
	CU_ASSERT_EQUAL(cc_bpf_check(orig, len, err, sizeof(err)), 0);
	memcpy(&eh, orig, sizeof(eh));
	for (int i = 0; i < 1000; i++) {
		size_t mlen = len;
		unsigned int flips = 1 + xorshift(&seed) % 8;
		int rc;

		memcpy(mut, orig, len);
		for (unsigned int f = 0; f < flips; f++) {
			uint64_t r = xorshift(&seed);
			size_t at;

			switch (r % 4) {
			case 0: /* anywhere */
				at = (r >> 8) % len;
				break;
			case 1: /* the ELF header */
				at = (r >> 8) % sizeof(eh);
				break;
			case 2: /* the section headers */
				at = eh.e_shoff + (r >> 8) % (len - eh.e_shoff);
				break;
			default: /* the code */
				at = sizeof(eh) + (r >> 8) % (3 * sizeof(prog));
				break;
			}
			mut[at] = (uint8_t)(r >> 40);
		}
		if (xorshift(&seed) % 8 == 0)
			mlen = xorshift(&seed) % len;
		memset(err, 0, sizeof(err));
		rc = cc_bpf_check(mut, mlen, err, sizeof(err));
		CU_ASSERT(rc == 0 || (rc == -EINVAL && err[0] != '\0'));
		if (rc == 0)
			accepted++;
		else
			refused++;
	}
	printf("(%u refused, %u accepted) ", refused, accepted);
	CU_ASSERT_EQUAL(refused + accepted, 1000);
	CU_ASSERT(refused > 500); /* the mutations do reach the checks */
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_valid),
	SST_TEST(test_truncated),
	SST_TEST(test_wrong_machine),
	SST_TEST(test_no_text_section),
	SST_TEST(test_abi_and_relocations),
	SST_TEST(test_check_reports_verifier),
	SST_TEST(test_fuzzed_elves),
	SST_TEST_END,
};

SST_TEST_MAIN("cc_bpf_elf", cases)
