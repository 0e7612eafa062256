/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the error codes and their descriptions (lib/common/error.c). The
 * short names are a stable interface (counters, JSON output), so they are
 * checked exactly.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "sst_error.h"
#include "sst_test.h"

static const struct {
	int code;
	const char *name;
} names[] = {
	{SST_ETRUNC, "truncated"},
	{SST_EBADTYPE, "bad-type"},
	{SST_EBADFLAGS, "bad-flags"},
	{SST_ERESERVED, "reserved"},
	{SST_EBADMAGIC, "bad-magic"},
	{SST_EBADLEN, "bad-length"},
	{SST_EBADPAD, "bad-padding"},
	{SST_ETOOLONG, "too-long"},
	{SST_ETRAILING, "trailing"},
	{SST_EBADVALUE, "bad-value"},
	{SST_ESEQRANGE, "seq-range"},
	{SST_EBADAUTH, "bad-auth"},
};

#define NNAMES (sizeof(names) / sizeof(names[0]))

static void
test_code_values(void)
{
	/* Codes are consecutive from the base and above every errno. */
	CU_ASSERT_EQUAL(SST_ETRUNC, SST_ERROR_BASE);
	CU_ASSERT_EQUAL(SST_ERROR_END, SST_ERROR_BASE + (int)NNAMES);
	for (size_t i = 0; i < NNAMES; i++)
		CU_ASSERT_EQUAL(names[i].code, SST_ERROR_BASE + (int)i);
	CU_ASSERT(SST_ERROR_BASE > EHWPOISON);
	CU_ASSERT(SST_ERROR_BASE > ENOSPC && SST_ERROR_BASE > EINVAL && SST_ERROR_BASE > ENOMEM);
}

static void
test_names(void)
{
	for (size_t i = 0; i < NNAMES; i++) {
		const char *n = sst_error_name(-names[i].code);

		CU_ASSERT_PTR_NOT_NULL_FATAL(n);
		CU_ASSERT_STRING_EQUAL(n, names[i].name);
		for (size_t j = 0; j < i; j++)
			CU_ASSERT_STRING_NOT_EQUAL(n, names[j].name);
	}
	CU_ASSERT_STRING_EQUAL(sst_error_name(0), "ok");
}

static void
test_strerror(void)
{
	for (size_t i = 0; i < NNAMES; i++) {
		const char *t = sst_strerror(-names[i].code);

		CU_ASSERT_PTR_NOT_NULL_FATAL(t);
		CU_ASSERT(strlen(t) > 5);
		CU_ASSERT_STRING_NOT_EQUAL(t, "unknown error");
		CU_ASSERT_STRING_NOT_EQUAL(t, "success");
		/* Each code has its own text. */
		for (size_t j = 0; j < i; j++)
			CU_ASSERT_STRING_NOT_EQUAL(t, sst_strerror(-names[j].code));
	}
	CU_ASSERT_STRING_EQUAL(sst_strerror(-SST_ETRUNC), "input ends inside a field");
	CU_ASSERT_STRING_EQUAL(sst_strerror(-SST_EBADAUTH), "checksum or authenticator mismatch");
	CU_ASSERT_STRING_EQUAL(sst_strerror(0), "success");
}

static void
test_errno_codes(void)
{
	static const int errs[] = {EINVAL, ENOSPC, ENOMEM, EEXIST, EAGAIN, ENOENT, 1};

	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		char want[256];

		/* Copy: strerror() may reuse its buffer. */
		snprintf(want, sizeof(want), "%s", strerror(errs[i]));
		CU_ASSERT_STRING_EQUAL(sst_strerror(-errs[i]), want);
		CU_ASSERT_STRING_EQUAL(sst_error_name(-errs[i]), "errno");
	}
}

static void
test_out_of_range(void)
{
	/* Just outside the SST range, INT_MIN and positive values: never
	 * NULL, never mistaken for an SST code. */
	static const int odd[] = {-(SST_ERROR_BASE - 1), -SST_ERROR_END, -(SST_ERROR_END + 1),
		-100000, INT_MIN, INT_MIN + 1, 1, SST_ETRUNC, SST_EBADAUTH, INT_MAX};

	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		const char *t = sst_strerror(odd[i]);
		const char *n = sst_error_name(odd[i]);

		CU_ASSERT_PTR_NOT_NULL_FATAL(t);
		CU_ASSERT_PTR_NOT_NULL_FATAL(n);
		CU_ASSERT_STRING_EQUAL(n, "errno");
		for (size_t j = 0; j < NNAMES; j++) {
			CU_ASSERT_STRING_NOT_EQUAL(n, names[j].name);
			CU_ASSERT_STRING_NOT_EQUAL(t, sst_strerror(-names[j].code));
		}
	}
	CU_ASSERT_STRING_EQUAL(sst_strerror(1), "unknown error");
	CU_ASSERT_STRING_EQUAL(sst_strerror(SST_ETRUNC), "unknown error");
	CU_ASSERT_STRING_EQUAL(sst_strerror(INT_MAX), "unknown error");
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_code_values),
	SST_TEST(test_names),
	SST_TEST(test_strerror),
	SST_TEST(test_errno_codes),
	SST_TEST(test_out_of_range),
	SST_TEST_END,
};

SST_TEST_MAIN("error", cases)
