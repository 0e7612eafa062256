/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "sst_test.h"

int
sst_test_run(const char *suite_name, const struct sst_test_case *cases)
{
	CU_pSuite suite;
	unsigned int failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return EXIT_FAILURE;
	suite = CU_add_suite(suite_name, NULL, NULL);
	if (suite == NULL)
		goto fail;
	/* SST_TEST_ONLY=name runs one case: a scenario that belongs to more
	 * than one suite is registered again under the others with it. */
	const char *only = getenv("SST_TEST_ONLY");
	unsigned int added = 0;

	for (const struct sst_test_case *c = cases; c->name != NULL; c++) {
		if (only != NULL && strcmp(only, c->name) != 0)
			continue;
		if (CU_add_test(suite, c->name, c->fn) == NULL)
			goto fail;
		added++;
	}
	if (added == 0) {
		fprintf(stderr, "no test case named %s\n", only != NULL ? only : "(any)");
		CU_cleanup_registry();
		return EXIT_FAILURE;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	if (CU_basic_run_tests() != CUE_SUCCESS)
		goto fail;
	failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
fail:
	fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
	CU_cleanup_registry();
	return EXIT_FAILURE;
}

static int
hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

size_t
sst_test_hex(const char *hex, uint8_t *buf, size_t cap)
{
	size_t n = 0;
	int hi = -1;

	for (; *hex != '\0'; hex++) {
		int d = hex_digit((unsigned char)*hex);

		if (d < 0)
			continue;
		if (hi < 0) {
			hi = d;
			continue;
		}
		if (n == cap) {
			fprintf(stderr, "sst_test_hex: buffer too small\n");
			exit(EXIT_FAILURE);
		}
		buf[n++] = (uint8_t)(hi << 4 | d);
		hi = -1;
	}
	return n;
}
