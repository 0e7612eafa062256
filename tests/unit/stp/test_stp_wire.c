/* SPDX-License-Identifier: BSD-3-Clause */
/* STP's message header and encoder (lib/stp/stp_wire.c). */
#include <errno.h>
#include <string.h>

#include "stp_wire.h"
#include "sst_test.h"

static struct stp_hdr
hdr(uint8_t type, uint32_t len)
{
	return (struct stp_hdr){
		.type = type, .version = STP_WIRE_VERSION, .len = rte_cpu_to_be_32(len)};
}

static void
test_hdr_check(void)
{
	struct stp_hdr h;

	for (uint8_t t = SST_STP_MSG_USE; t <= SST_STP_MSG_SENDME; t++) {
		h = hdr(t, SST_STP_HASH_LEN);
		CU_ASSERT_EQUAL(stp_hdr_check(&h), 0);
		h = hdr(t, SST_STP_HASH_LEN + 1);
		CU_ASSERT_EQUAL(stp_hdr_check(&h), -EPROTO);
		h = hdr(t, SST_STP_HASH_LEN - 1);
		CU_ASSERT_EQUAL(stp_hdr_check(&h), -EPROTO);
	}
	h = hdr(SST_STP_MSG_CODE, SST_STP_HASH_LEN);
	CU_ASSERT_EQUAL(stp_hdr_check(&h), -EPROTO); /* no code */
	h = hdr(SST_STP_MSG_CODE, SST_STP_HASH_LEN + SST_STP_CODE_MAX);
	CU_ASSERT_EQUAL(stp_hdr_check(&h), 0);
	h = hdr(SST_STP_MSG_CODE, SST_STP_HASH_LEN + SST_STP_CODE_MAX + 1);
	CU_ASSERT_EQUAL(stp_hdr_check(&h), -EFBIG);
	h = hdr(SST_STP_MSG_CODE, UINT32_MAX);
	CU_ASSERT_EQUAL(stp_hdr_check(&h), -EFBIG);
	h = hdr(SST_STP_MSG_NO, STP_NO_FIXED);
	CU_ASSERT_EQUAL(stp_hdr_check(&h), 0);
	h = hdr(SST_STP_MSG_NO, STP_NO_FIXED + SST_STP_DETAIL_MAX);
	CU_ASSERT_EQUAL(stp_hdr_check(&h), 0);
	h = hdr(SST_STP_MSG_NO, STP_NO_FIXED + SST_STP_DETAIL_MAX + 1);
	CU_ASSERT_EQUAL(stp_hdr_check(&h), -EPROTO);
	h = hdr(SST_STP_MSG_NO, STP_NO_FIXED - 1);
	CU_ASSERT_EQUAL(stp_hdr_check(&h), -EPROTO);
	h = hdr(0, SST_STP_HASH_LEN);
	CU_ASSERT_EQUAL(stp_hdr_check(&h), -EPROTO);
	h = hdr(6, SST_STP_HASH_LEN);
	CU_ASSERT_EQUAL(stp_hdr_check(&h), -EPROTO);
	h = hdr(SST_STP_MSG_USE, SST_STP_HASH_LEN);
	h.version = 2;
	CU_ASSERT_EQUAL(stp_hdr_check(&h), -EPROTO);
	h = hdr(SST_STP_MSG_USE, SST_STP_HASH_LEN);
	h.zero = rte_cpu_to_be_16(1);
	CU_ASSERT_EQUAL(stp_hdr_check(&h), -EPROTO);
}

static void
test_encode(void)
{
	uint8_t hash[SST_STP_HASH_LEN], out[256];
	static const uint8_t use_hdr[] = {1, 1, 0, 0, 0, 0, 0, 32};
	static const uint8_t code_hdr[] = {4, 1, 0, 0, 0, 0, 0x01, 0x20}; /* 32 + 256 */
	static const uint8_t no_hdr[] = {5, 1, 0, 0, 0, 0, 0, 32 + 1 + 3};
	struct stp_hdr h;
	size_t n;

	for (unsigned int i = 0; i < sizeof(hash); i++)
		hash[i] = (uint8_t)i;
	n = stp_encode(out, sizeof(out), SST_STP_MSG_USE, hash, 0, 0, NULL);
	CU_ASSERT_EQUAL(n, 40);
	CU_ASSERT_EQUAL(memcmp(out, use_hdr, 8), 0);
	CU_ASSERT_EQUAL(memcmp(out + 8, hash, 32), 0);
	n = stp_encode(out, sizeof(out), SST_STP_MSG_CODE, hash, 256, 0, NULL);
	CU_ASSERT_EQUAL(n, 40); /* the code itself follows from the caller's memory */
	CU_ASSERT_EQUAL(memcmp(out, code_hdr, 8), 0);
	n = stp_encode(out, sizeof(out), SST_STP_MSG_NO, hash, 0, SST_STP_NO_POLICY, "abc");
	CU_ASSERT_EQUAL(n, 44);
	CU_ASSERT_EQUAL(memcmp(out, no_hdr, 8), 0);
	CU_ASSERT_EQUAL(out[40], SST_STP_NO_POLICY);
	CU_ASSERT_EQUAL(memcmp(out + 41, "abc", 3), 0);
	memcpy(&h, out, sizeof(h));
	CU_ASSERT_EQUAL(stp_hdr_check(&h), 0);
	CU_ASSERT_EQUAL(stp_encode(out, 39, SST_STP_MSG_USE, hash, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL(stp_encode(out, 43, SST_STP_MSG_NO, hash, 0, 1, "abc"), 0);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_hdr_check),
	SST_TEST(test_encode),
	SST_TEST_END,
};

SST_TEST_MAIN("stp_wire", cases)
