/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the congestion-control registry and helpers (lib/cc/cc.c):
 * sst_cc_register() validates the whole ops table (every callback present,
 * a non-empty NUL-terminated name, private state within SST_CC_PRIV_MAX)
 * and refuses duplicates and a full table; sst_cc_find(); sst_cc_init()
 * defaults; sst_cc_pacing_rate(); sst_cc_mul_div().
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sst_cc.h"
#include "sst_test.h"

static int test_inits;

static void
t_init(struct sst_cc *cc, sst_time_t now)
{
	(void)cc;
	(void)now;
	test_inits++;
}

static void
t_sent(struct sst_cc *cc, const struct sst_cc_sent_event *ev)
{
	(void)cc;
	(void)ev;
}

static void
t_ack(struct sst_cc *cc, const struct sst_cc_ack_event *ev)
{
	(void)cc;
	(void)ev;
}

static void
t_loss(struct sst_cc *cc, const struct sst_cc_loss_event *ev)
{
	(void)cc;
	(void)ev;
}

static void
t_rto(struct sst_cc *cc, const struct sst_cc_rto_event *ev)
{
	(void)cc;
	(void)ev;
}

#define T_OPS(n)                                                                               \
	{                                                                                      \
		.name = n, .priv_size = 8, .init = t_init, .on_sent = t_sent, .on_ack = t_ack, \
		.on_loss = t_loss, .on_rto = t_rto                                             \
	}

static void
test_builtin_registered(void)
{
	/* The drivers register from constructors (linked whole). */
	const struct sst_cc_ops *nr = sst_cc_find("newreno");
	const struct sst_cc_ops *cu = sst_cc_find("cubic");

	CU_ASSERT_PTR_NOT_NULL(nr);
	CU_ASSERT_PTR_NOT_NULL(cu);
	CU_ASSERT_PTR_EQUAL(sst_cc_find(SST_CC_DEFAULT), nr);
	if (nr != NULL)
		CU_ASSERT_STRING_EQUAL(nr->name, "newreno");
	if (cu != NULL)
		CU_ASSERT_STRING_EQUAL(cu->name, "cubic");
}

static void
test_register_missing_op(void)
{
	static struct sst_cc_ops ops[5] = {
		T_OPS("miss0"), T_OPS("miss1"), T_OPS("miss2"), T_OPS("miss3"), T_OPS("miss4")};

	ops[0].init = NULL;
	ops[1].on_sent = NULL;
	ops[2].on_ack = NULL;
	ops[3].on_loss = NULL;
	ops[4].on_rto = NULL;
	for (int i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(sst_cc_register(&ops[i]), -EINVAL);
		CU_ASSERT_PTR_NULL(sst_cc_find(ops[i].name));
	}
	CU_ASSERT_EQUAL(sst_cc_register(NULL), -EINVAL);
}

static void
test_register_priv_size(void)
{
	static struct sst_cc_ops big = T_OPS("big");
	static struct sst_cc_ops max = T_OPS("max");

	big.priv_size = SST_CC_PRIV_MAX + 1;
	CU_ASSERT_EQUAL(sst_cc_register(&big), -EINVAL);
	CU_ASSERT_PTR_NULL(sst_cc_find("big"));
	big.priv_size = UINT16_MAX;
	CU_ASSERT_EQUAL(sst_cc_register(&big), -EINVAL);
	/* Exactly the maximum is fine. */
	max.priv_size = SST_CC_PRIV_MAX;
	CU_ASSERT_EQUAL(sst_cc_register(&max), 0);
	CU_ASSERT_PTR_EQUAL(sst_cc_find("max"), &max);
}

static void
test_register_names(void)
{
	static struct sst_cc_ops empty = T_OPS("");
	static struct sst_cc_ops full = T_OPS("");
	static struct sst_cc_ops longest = T_OPS("fifteen-chars-x");

	CU_ASSERT_EQUAL(sst_cc_register(&empty), -EINVAL);
	/* A name that fills the array has no terminating NUL. */
	memset(full.name, 'a', sizeof(full.name));
	CU_ASSERT_EQUAL(sst_cc_register(&full), -EINVAL);
	CU_ASSERT_EQUAL(strlen(longest.name), SST_CC_NAME_MAX - 1);
	CU_ASSERT_EQUAL(sst_cc_register(&longest), 0);
	CU_ASSERT_PTR_EQUAL(sst_cc_find("fifteen-chars-x"), &longest);
	/* Prefixes and extensions of a name are other names. */
	CU_ASSERT_PTR_NULL(sst_cc_find("fifteen-chars-"));
	CU_ASSERT_PTR_NULL(sst_cc_find("fifteen-chars-xy"));
}

static void
test_register_duplicate(void)
{
	static struct sst_cc_ops a = T_OPS("dup");
	static struct sst_cc_ops b = T_OPS("dup");
	static struct sst_cc_ops nr = T_OPS("newreno");

	CU_ASSERT_EQUAL(sst_cc_register(&a), 0);
	CU_ASSERT_EQUAL(sst_cc_register(&b), -EEXIST);
	CU_ASSERT_EQUAL(sst_cc_register(&a), -EEXIST);
	CU_ASSERT_PTR_EQUAL(sst_cc_find("dup"), &a);
	/* A built-in name cannot be taken over. */
	CU_ASSERT_EQUAL(sst_cc_register(&nr), -EEXIST);
	CU_ASSERT_PTR_NOT_EQUAL(sst_cc_find("newreno"), &nr);
}

static void
test_find_unknown(void)
{
	CU_ASSERT_PTR_NULL(sst_cc_find("vegas"));
	CU_ASSERT_PTR_NULL(sst_cc_find(""));
	CU_ASSERT_PTR_NULL(sst_cc_find(NULL));
	CU_ASSERT_PTR_NULL(sst_cc_find("newren"));
	CU_ASSERT_PTR_NULL(sst_cc_find("newreno2"));
}

static void
test_init(void)
{
	static struct sst_cc_ops ops = T_OPS("init");
	struct sst_cc cc;

	CU_ASSERT_EQUAL(sst_cc_register(&ops), 0);
	memset(&cc, 0xa5, sizeof(cc));
	CU_ASSERT_EQUAL(sst_cc_init(&cc, &ops, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(sst_cc_init(&cc, NULL, 1200, 0), -EINVAL);
	CU_ASSERT_EQUAL(sst_cc_init(NULL, &ops, 1200, 0), -EINVAL);
	CU_ASSERT_EQUAL(test_inits, 0);

	CU_ASSERT_EQUAL(sst_cc_init(&cc, &ops, 1460, 7), 0);
	CU_ASSERT_EQUAL(test_inits, 1);
	CU_ASSERT_PTR_EQUAL(cc.ops, &ops);
	CU_ASSERT_EQUAL(cc.mss, 1460);
	CU_ASSERT_EQUAL(cc.cwnd, 14600);
	CU_ASSERT_EQUAL(cc.ssthresh, UINT64_MAX);
	CU_ASSERT_EQUAL(cc.pacing_rate, 0);
	CU_ASSERT_FALSE(cc.in_recovery);
	CU_ASSERT_EQUAL(cc.recovery_seq, 0);
	CU_ASSERT_EQUAL(cc.priv[0], 0);
	CU_ASSERT_EQUAL(cc.priv[SST_CC_PRIV_MAX - 1], 0);
	CU_ASSERT_TRUE(sst_cc_in_slow_start(&cc));

	/* RFC 6928 initial window: min(10 MSS, max(14600, 2 MSS)). */
	CU_ASSERT_EQUAL(sst_cc_initial_window(1000), 10000);
	CU_ASSERT_EQUAL(sst_cc_initial_window(1460), 14600);
	CU_ASSERT_EQUAL(sst_cc_initial_window(1500), 14600);
	CU_ASSERT_EQUAL(sst_cc_initial_window(9000), 18000);
	CU_ASSERT_EQUAL(sst_cc_min_window(1200), 2400);

	/* The built-in controllers start from the same initial window. */
	CU_ASSERT_EQUAL(sst_cc_init(&cc, sst_cc_find("newreno"), 1200, 0), 0);
	CU_ASSERT_EQUAL(cc.cwnd, 12000);
	CU_ASSERT_EQUAL(cc.ssthresh, UINT64_MAX);
	CU_ASSERT_EQUAL(sst_cc_init(&cc, sst_cc_find("cubic"), 1200, 0), 0);
	CU_ASSERT_EQUAL(cc.cwnd, 12000);
	CU_ASSERT_EQUAL(cc.ssthresh, UINT64_MAX);
}

static void
test_pacing_rate(void)
{
	struct sst_cc cc;

	memset(&cc, 0, sizeof(cc));
	cc.mss = 1000;
	cc.cwnd = 100000;
	cc.ssthresh = UINT64_MAX;
	/* No RTT yet: unpaced. */
	CU_ASSERT_EQUAL(sst_cc_pacing_rate(&cc, 0), 0);
	/* Slow start: 2 * 100000 B / 100 ms = 2 MB/s. */
	CU_ASSERT_EQUAL(sst_cc_pacing_rate(&cc, 100 * SST_NSEC_PER_MSEC), 2000000);
	/* Avoidance: 1.25 * 100000 B / 100 ms. */
	cc.ssthresh = 100000;
	CU_ASSERT_EQUAL(sst_cc_pacing_rate(&cc, 100 * SST_NSEC_PER_MSEC), 1250000);
	/* 10 us RTT and a 1 MB window: 125 GB/s (1 Tbit/s), no overflow. */
	cc.cwnd = 1000000;
	cc.ssthresh = 1;
	CU_ASSERT_EQUAL(sst_cc_pacing_rate(&cc, 10 * SST_NSEC_PER_USEC), UINT64_C(125000000000));
	/* Absurd windows saturate instead of wrapping. */
	cc.cwnd = UINT64_MAX / 2;
	CU_ASSERT_EQUAL(sst_cc_pacing_rate(&cc, 1), UINT64_MAX);
	/* Tiny window, huge RTT: still paced, at the slowest rate. */
	cc.cwnd = 1;
	CU_ASSERT_EQUAL(sst_cc_pacing_rate(&cc, 3600 * SST_NSEC_PER_SEC), 1);
	/* A controller's own rate wins. */
	cc.pacing_rate = 12345;
	CU_ASSERT_EQUAL(sst_cc_pacing_rate(&cc, 100 * SST_NSEC_PER_MSEC), 12345);
	CU_ASSERT_EQUAL(sst_cc_pacing_rate(&cc, 0), 12345);
}

static void
test_mul_div(void)
{
	CU_ASSERT_EQUAL(sst_cc_mul_div(10, 7, 10), 7);
	CU_ASSERT_EQUAL(sst_cc_mul_div(19, 7, 10), 13);
	CU_ASSERT_EQUAL(sst_cc_mul_div(UINT64_MAX, UINT64_MAX, UINT64_MAX), UINT64_MAX);
	CU_ASSERT_EQUAL(sst_cc_mul_div(UINT64_MAX, 3, 4), UINT64_MAX / 4 * 3 + 2);
	CU_ASSERT_EQUAL(sst_cc_mul_div(UINT64_MAX, 2, 1), UINT64_MAX);
	CU_ASSERT_EQUAL(sst_cc_mul_div(UINT64_C(1) << 40, UINT64_C(1) << 40, UINT64_C(1) << 30),
		UINT64_C(1) << 50);
}

static void
test_registry_full(void)
{
	static struct sst_cc_ops ops[SST_CC_REGISTRY_MAX];
	unsigned int ok = 0;
	int rc = 0;

	/* Fill what is left; earlier tests and the two drivers hold 6 slots. */
	for (unsigned int i = 0; i < SST_CC_REGISTRY_MAX; i++) {
		ops[i] = (struct sst_cc_ops)T_OPS("");
		snprintf(ops[i].name, sizeof(ops[i].name), "fill%u", i);
		rc = sst_cc_register(&ops[i]);
		if (rc != 0)
			break;
		ok++;
	}
	CU_ASSERT_EQUAL(rc, -ENOSPC);
	CU_ASSERT_EQUAL(ok, SST_CC_REGISTRY_MAX - 6);
	CU_ASSERT_PTR_EQUAL(sst_cc_find("fill0"), &ops[0]);
	CU_ASSERT_PTR_NULL(sst_cc_find("fill10"));
	/* Validation still comes first on a full table. */
	CU_ASSERT_EQUAL(sst_cc_register(&ops[0]), -EEXIST);
	ops[SST_CC_REGISTRY_MAX - 1].on_ack = NULL;
	CU_ASSERT_EQUAL(sst_cc_register(&ops[SST_CC_REGISTRY_MAX - 1]), -EINVAL);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_builtin_registered),
	SST_TEST(test_register_missing_op),
	SST_TEST(test_register_priv_size),
	SST_TEST(test_register_names),
	SST_TEST(test_register_duplicate),
	SST_TEST(test_find_unknown),
	SST_TEST(test_init),
	SST_TEST(test_pacing_rate),
	SST_TEST(test_mul_div),
	SST_TEST(test_registry_full),
	SST_TEST_END,
};

SST_TEST_MAIN("cc", cases)
