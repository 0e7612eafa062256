/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the armor driver registry (lib/channel/channel_crypto.c): the
 * drivers linked into this program registered themselves before main(); the
 * tests check what they declared, lookups by suite and driver, priorities,
 * every validation rule of sst_crypto_register(), a full registry, suite
 * names, and the burst settling helper every driver uses.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>

#include "sst_crypto_driver.h"
#include "sst_test.h"

static int
fake_init(void *session, const struct sst_crypto_keys *keys)
{
	(void)session;
	(void)keys;
	return 0;
}

static void
fake_fini(void *session)
{
	(void)session;
}

static uint16_t
fake_seal(
	void *session, struct rte_mbuf **pkts, uint64_t *seq, uint16_t n, struct rte_mempool *pool)
{
	(void)session;
	(void)pkts;
	(void)seq;
	(void)pool;
	return n;
}

static uint16_t
fake_open(void *session, struct rte_mbuf **pkts, uint64_t *seq, uint16_t n)
{
	(void)session;
	(void)pkts;
	(void)seq;
	return n;
}

static const struct sst_crypto_ops fake_template = {
	.driver = "fake",
	.suite = SST_CRYPTO_CHACHA20POLY1305,
	.priority = 200,
	.trailer_len = 16,
	.key_len = 32,
	.session_size = 64,
	.packet_limit = 1000,
	.integrity_limit = 1000,
	.session_init = fake_init,
	.session_fini = fake_fini,
	.seal_burst = fake_seal,
	.open_burst = fake_open,
};

/* Registered ops must outlive the registry: static storage. */
static struct sst_crypto_ops bad;
static struct sst_crypto_ops fakes[SST_CRYPTO_DRIVERS_MAX];
static char fake_names[SST_CRYPTO_DRIVERS_MAX][16];

/* The drivers this program links, as they registered before main(). Runs
 * first, before the tests below register fakes. */
static void
test_builtin_drivers(void)
{
	static const struct {
		enum sst_crypto_suite suite;
		const char *driver;
		uint8_t trailer, key;
	} want[] = {
		{SST_CRYPTO_NULL, "null", 0, 0},
		{SST_CRYPTO_CHK32, "chk32", 4, 0},
		{SST_CRYPTO_AES128GCM, "ipsec_mb", 16, 16},
		{SST_CRYPTO_CHACHA20POLY1305, "ipsec_mb", 16, 32},
		{SST_CRYPTO_CHACHA20POLY1305, "sodium", 16, 32},
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct sst_crypto_ops *ops = sst_crypto_find(want[i].suite, want[i].driver);

		CU_ASSERT_PTR_NOT_NULL_FATAL(ops);
		CU_ASSERT_STRING_EQUAL(ops->driver, want[i].driver);
		CU_ASSERT_EQUAL(ops->suite, want[i].suite);
		CU_ASSERT_EQUAL(ops->trailer_len, want[i].trailer);
		CU_ASSERT_EQUAL(ops->key_len, want[i].key);
		CU_ASSERT(ops->session_size <= SST_CRYPTO_SESSION_MAX);
		CU_ASSERT(ops->packet_limit > 0);
		CU_ASSERT(ops->integrity_limit > 0);
	}
	/* Defaults: the only driver of a suite, or the higher priority. */
	CU_ASSERT_STRING_EQUAL(sst_crypto_find(SST_CRYPTO_NULL, NULL)->driver, "null");
	CU_ASSERT_STRING_EQUAL(sst_crypto_find(SST_CRYPTO_CHK32, NULL)->driver, "chk32");
	CU_ASSERT_STRING_EQUAL(sst_crypto_find(SST_CRYPTO_AES128GCM, NULL)->driver, "ipsec_mb");
	CU_ASSERT_STRING_EQUAL(
		sst_crypto_find(SST_CRYPTO_CHACHA20POLY1305, NULL)->driver, "ipsec_mb");
	CU_ASSERT(sst_crypto_find(SST_CRYPTO_CHACHA20POLY1305, "ipsec_mb")->priority >
		  sst_crypto_find(SST_CRYPTO_CHACHA20POLY1305, "sodium")->priority);
	/* AES-GCM usage limit is far below ChaCha20-Poly1305's. */
	CU_ASSERT(sst_crypto_find(SST_CRYPTO_AES128GCM, NULL)->packet_limit <= (UINT64_C(1) << 32));
}

static void
test_find_missing(void)
{
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(sst_crypto_find(SST_CRYPTO_AES128GCM, "sodium"));
	CU_ASSERT_EQUAL(rte_errno, ENOENT);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(sst_crypto_find(SST_CRYPTO_CHK32, "nonexistent"));
	CU_ASSERT_EQUAL(rte_errno, ENOENT);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(sst_crypto_find(SST_CRYPTO_SUITE_COUNT, NULL));
	CU_ASSERT_EQUAL(rte_errno, ENOENT);
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(sst_crypto_find((enum sst_crypto_suite) - 1, "null"));
	CU_ASSERT_EQUAL(rte_errno, ENOENT);
}

static void
test_register_invalid(void)
{
	CU_ASSERT_EQUAL(sst_crypto_register(NULL), -EINVAL);

	/* Each op missing in turn. */
	for (int op = 0; op < 4; op++) {
		bad = fake_template;
		bad.driver = "bad";
		switch (op) {
		case 0:
			bad.session_init = NULL;
			break;
		case 1:
			bad.session_fini = NULL;
			break;
		case 2:
			bad.seal_burst = NULL;
			break;
		default:
			bad.open_burst = NULL;
			break;
		}
		CU_ASSERT_EQUAL(sst_crypto_register(&bad), -EINVAL);
	}
	bad = fake_template;
	bad.driver = NULL;
	CU_ASSERT_EQUAL(sst_crypto_register(&bad), -EINVAL);
	bad.driver = "";
	CU_ASSERT_EQUAL(sst_crypto_register(&bad), -EINVAL);

	bad = fake_template;
	bad.driver = "bad";
	bad.session_size = SST_CRYPTO_SESSION_MAX + 1;
	CU_ASSERT_EQUAL(sst_crypto_register(&bad), -EINVAL);
	bad.session_size = UINT16_MAX;
	CU_ASSERT_EQUAL(sst_crypto_register(&bad), -EINVAL);

	bad = fake_template;
	bad.driver = "bad";
	bad.trailer_len = SST_CRYPTO_TRAILER_MAX + 1;
	CU_ASSERT_EQUAL(sst_crypto_register(&bad), -EINVAL);
	bad.trailer_len = 12; /* truncated tags are not the suite's */
	CU_ASSERT_EQUAL(sst_crypto_register(&bad), -EINVAL);
	bad.suite = SST_CRYPTO_CHK32; /* 16 is not Chk32's trailer */
	bad.trailer_len = 16;
	CU_ASSERT_EQUAL(sst_crypto_register(&bad), -EINVAL);

	bad = fake_template;
	bad.driver = "bad";
	bad.key_len = SST_CRYPTO_KEY_MAX + 1;
	CU_ASSERT_EQUAL(sst_crypto_register(&bad), -EINVAL);

	bad = fake_template;
	bad.driver = "bad";
	bad.suite = SST_CRYPTO_SUITE_COUNT;
	CU_ASSERT_EQUAL(sst_crypto_register(&bad), -EINVAL);

	bad = fake_template;
	bad.driver = "bad";
	bad.packet_limit = 0;
	CU_ASSERT_EQUAL(sst_crypto_register(&bad), -EINVAL);
	bad.packet_limit = 1;
	bad.integrity_limit = 0;
	CU_ASSERT_EQUAL(sst_crypto_register(&bad), -EINVAL);

	/* Nothing was registered along the way. */
	CU_ASSERT_PTR_NULL(sst_crypto_find(SST_CRYPTO_CHACHA20POLY1305, "bad"));
	CU_ASSERT_PTR_NULL(sst_crypto_find(SST_CRYPTO_CHK32, "bad"));
	/* The boundaries themselves are accepted. */
	bad = fake_template;
	bad.driver = "edge";
	bad.session_size = SST_CRYPTO_SESSION_MAX;
	bad.key_len = SST_CRYPTO_KEY_MAX;
	CU_ASSERT_EQUAL(sst_crypto_register(&bad), 0);
	CU_ASSERT_PTR_EQUAL(sst_crypto_find(SST_CRYPTO_CHACHA20POLY1305, "edge"), &bad);
}

static void
test_register_duplicate(void)
{
	static struct sst_crypto_ops dup_chk32, other_suite;
	const struct sst_crypto_ops *real = sst_crypto_find(SST_CRYPTO_CHK32, "chk32");

	dup_chk32 = *real;
	CU_ASSERT_EQUAL(sst_crypto_register(&dup_chk32), -EEXIST);
	CU_ASSERT_EQUAL(sst_crypto_register(real), -EEXIST);
	CU_ASSERT_PTR_EQUAL(sst_crypto_find(SST_CRYPTO_CHK32, "chk32"), real);
	/* The same driver name for another suite is a different entry. */
	other_suite = fake_template;
	other_suite.driver = "edge";
	other_suite.suite = SST_CRYPTO_AES128GCM;
	other_suite.priority = 0;
	CU_ASSERT_EQUAL(sst_crypto_register(&other_suite), 0);
	CU_ASSERT_EQUAL(sst_crypto_register(&other_suite), -EEXIST);
	/* Lower priority than ipsec_mb: not the default. */
	CU_ASSERT_STRING_EQUAL(sst_crypto_find(SST_CRYPTO_AES128GCM, NULL)->driver, "ipsec_mb");
}

static void
test_priority(void)
{
	/* "edge" (priority 200) registered above outranks ipsec_mb (10). */
	CU_ASSERT_STRING_EQUAL(sst_crypto_find(SST_CRYPTO_CHACHA20POLY1305, NULL)->driver, "edge");
	/* Named lookups still find every driver. */
	CU_ASSERT_STRING_EQUAL(
		sst_crypto_find(SST_CRYPTO_CHACHA20POLY1305, "ipsec_mb")->driver, "ipsec_mb");
	CU_ASSERT_STRING_EQUAL(
		sst_crypto_find(SST_CRYPTO_CHACHA20POLY1305, "sodium")->driver, "sodium");
}

static void
test_registry_full(void)
{
	int rc = 0, added = 0;

	for (int i = 0; i < SST_CRYPTO_DRIVERS_MAX && rc == 0; i++) {
		fakes[i] = fake_template;
		snprintf(fake_names[i], sizeof(fake_names[i]), "fill%d", i);
		fakes[i].driver = fake_names[i];
		fakes[i].suite = SST_CRYPTO_NULL;
		fakes[i].trailer_len = 0;
		fakes[i].priority = 0;
		rc = sst_crypto_register(&fakes[i]);
		if (rc == 0)
			added++;
	}
	CU_ASSERT_EQUAL(rc, -ENOSPC);
	/* 5 built-in entries and 2 "edge" entries were there before. */
	CU_ASSERT_EQUAL(added, SST_CRYPTO_DRIVERS_MAX - 7);
	/* A full registry still answers, and the default is unchanged (the
	 * first registered wins among equal priorities). */
	CU_ASSERT_STRING_EQUAL(sst_crypto_find(SST_CRYPTO_NULL, NULL)->driver, "null");
	CU_ASSERT_PTR_NOT_NULL(sst_crypto_find(SST_CRYPTO_NULL, "fill0"));
	/* Duplicates are still reported as such. */
	CU_ASSERT_EQUAL(sst_crypto_register(&fakes[0]), -EEXIST);
}

static void
test_suite_names(void)
{
	static const char *const names[] = {"null", "chk32", "aes128gcm", "chacha20poly1305"};

	for (int s = 0; s < SST_CRYPTO_SUITE_COUNT; s++) {
		CU_ASSERT_STRING_EQUAL(sst_crypto_suite_name((enum sst_crypto_suite)s), names[s]);
		CU_ASSERT_EQUAL(sst_crypto_suite_parse(names[s]), s);
	}
	CU_ASSERT_STRING_EQUAL(sst_crypto_suite_name(SST_CRYPTO_SUITE_COUNT), "unknown");
	CU_ASSERT_STRING_EQUAL(sst_crypto_suite_name((enum sst_crypto_suite) - 1), "unknown");
	CU_ASSERT_EQUAL(sst_crypto_suite_parse(NULL), -EINVAL);
	CU_ASSERT_EQUAL(sst_crypto_suite_parse(""), -EINVAL);
	CU_ASSERT_EQUAL(sst_crypto_suite_parse("AES128GCM"), -EINVAL);
	CU_ASSERT_EQUAL(sst_crypto_suite_parse("aes128gcm "), -EINVAL);
	CU_ASSERT_EQUAL(sst_crypto_suite_parse("unknown"), -EINVAL);
}

static void
test_nonce(void)
{
	static const uint8_t iv[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
	uint8_t n[12];

	sst_crypto_nonce(n, iv, 0);
	CU_ASSERT_EQUAL(memcmp(n, iv, 12), 0);
	sst_crypto_nonce(n, iv, UINT64_C(0x0102030405060708));
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(n[i], iv[i]);
	for (int i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(n[4 + i], iv[4 + i] ^ (i + 1));
}

/* sst_crypto_burst_settle() against a reference stable partition, over a
 * burst of 100 processed in chunks of 32 with pseudo-random failures. */
static void
test_burst_settle(void)
{
	uint32_t x = 1;

	for (int round = 0; round < 200; round++) {
		struct rte_mbuf *pkts[100], *want[100];
		uint64_t seq[100];
		uint8_t failed[100];
		uint16_t n = (uint16_t)(round % 100 + 1), good = 0, nwant = 0;
		unsigned int mismatched = 0;

		for (uint16_t i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			pkts[i] = (struct rte_mbuf *)(uintptr_t)(0x1000 + 64 * i);
			seq[i] = 5000 + i;
			failed[i] = (uint8_t)((x >> 16) % (round % 4 + 2) == 0);
		}
		for (uint16_t i = 0; i < n; i++)
			if (!failed[i])
				want[nwant++] = pkts[i];
		for (uint16_t i = 0, k = nwant; i < n; i++)
			if (failed[i])
				want[k++] = pkts[i];
		for (uint32_t off = 0; off < n; off += SST_CRYPTO_CHUNK) {
			uint16_t cnt = n - off < SST_CRYPTO_CHUNK ? n - off : SST_CRYPTO_CHUNK;
			uint64_t fail = 0;

			for (uint16_t i = 0; i < cnt; i++)
				if (failed[off + i])
					fail |= UINT64_C(1) << i;
			good = sst_crypto_burst_settle(pkts, seq, good, off, cnt, fail);
		}
		CU_ASSERT_EQUAL(good, nwant);
		CU_ASSERT_EQUAL(memcmp(pkts, want, n * sizeof(pkts[0])), 0);
		/* Each sequence number still belongs to its packet. */
		for (uint16_t i = 0; i < n; i++)
			if (seq[i] != 5000 + ((uintptr_t)pkts[i] - 0x1000) / 64)
				mismatched++;
		CU_ASSERT_EQUAL(mismatched, 0);
	}
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_builtin_drivers),
	SST_TEST(test_find_missing),
	SST_TEST(test_register_invalid),
	SST_TEST(test_register_duplicate),
	SST_TEST(test_priority),
	SST_TEST(test_registry_full),
	SST_TEST(test_suite_names),
	SST_TEST(test_nonce),
	SST_TEST(test_burst_settle),
	SST_TEST_END,
};

SST_TEST_MAIN("crypto_registry", cases)
