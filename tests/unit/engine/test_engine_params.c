/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engine parameters (issue 20, "defaults that work"): what
 * sst_engine_params_default() gives fits the EAL's default memory under
 * --no-huge (no -m: 64 MB) with nothing else set, a parameter at fault is
 * named in the log, and a failed sst_engine_create() leaves no pool or
 * ring behind.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "sst_engine.h"
#include "sst_test.h"
#include "sst_test_udp.h"

/* rte_log goes here while a test looks for a message. */
static char log_buf[8192];
static FILE *log_stream;

static void
log_capture(void)
{
	/* fmemopen() writes its terminating zero only with what it writes:
	 * clear what the last capture left. */
	memset(log_buf, 0, sizeof(log_buf));
	log_stream = fmemopen(log_buf, sizeof(log_buf), "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(log_stream);
	setvbuf(log_stream, NULL, _IONBF, 0);
	rte_openlog_stream(log_stream);
}

static void
log_release(void)
{
	rte_openlog_stream(NULL);
	fclose(log_stream);
}

static void
count_pool(struct rte_mempool *mp, void *arg)
{
	(void)mp;
	(*(unsigned int *)arg)++;
}

static unsigned int
pools(void)
{
	unsigned int n = 0;

	rte_mempool_walk(count_pool, &n);
	return n;
}

static struct sst_engine *
default_engine(uint16_t workers)
{
	struct sst_engine_params ep;

	sst_engine_params_default(&ep);
	ep.workers = workers;
	ep.local.addr = sst_net_addr4(127, 0, 0, 1);
	return sst_engine_create(&ep);
}

/* Two engines of defaults, a one-worker and a two-worker one, side by
 * side in the default memory; each got a port and its own clone pools. */
static void
test_defaults_fit(void)
{
	struct sst_net_endpoint ep;
	struct sst_engine *a, *b;
	unsigned int before = pools();

	a = default_engine(1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	b = default_engine(2);
	if (b == NULL)
		fprintf(stderr, "second engine: %s\n", rte_strerror(rte_errno));
	CU_ASSERT_PTR_NOT_NULL(b);
	sst_engine_local(a, &ep);
	CU_ASSERT(ep.port != 0);
	/* Packets and clones for each of the three workers, and the stream
	 * hosts' pools. */
	CU_ASSERT(pools() >= before + 6);
	for (int i = 0; i < 100; i++) {
		sst_engine_poll(a, 0);
		if (b != NULL)
			sst_engine_poll(b, (uint16_t)(i % 2));
	}
	sst_engine_destroy(b);
	sst_engine_destroy(a);
	CU_ASSERT_EQUAL(pools(), before);
}

static void
expect_named(const struct sst_engine_params *ep, const char *name)
{
	log_capture();
	CU_ASSERT_PTR_NULL(sst_engine_create(ep));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	log_release();
	if (strstr(log_buf, name) == NULL) {
		fprintf(stderr, "expected \"%s\" in: %s\n", name, log_buf);
		CU_FAIL("the parameter is not named");
	}
}

static const struct sst_secure_config bad_secure = {.size = sizeof(bad_secure)};

static void
test_missing_named(void)
{
	struct sst_engine_params ep;

	expect_named(NULL, "params are required");
	sst_engine_params_default(&ep);
	ep.size = 0;
	expect_named(&ep, "params.size is required");
	sst_engine_params_default(&ep);
	ep.workers = SST_WORKERS_MAX + 1;
	expect_named(&ep, "params.workers");
	sst_engine_params_default(&ep);
	ep.nego.secure = &bad_secure; /* no random source, no suite */
	expect_named(&ep, "nego.secure is refused");
}

/* Under the engine, the worker and the stream host name the parameter
 * they refuse too (for applications that build their own workers). */
static void
expect_logged(const char *name)
{
	log_release();
	if (strstr(log_buf, name) == NULL) {
		fprintf(stderr, "expected \"%s\" in: %s\n", name, log_buf);
		CU_FAIL("the parameter is not named");
	}
}

static void
test_lower_missing_named(void)
{
	struct rte_mempool *pool, *clones;
	struct sst_worker_params wp = {.size = sizeof(wp)};
	struct sst_stream_host_params hp = {.size = sizeof(hp)};

	pool = rte_pktmbuf_pool_create("params_pkts", 511, 0, 0, 2048, SOCKET_ID_ANY);
	clones = rte_pktmbuf_pool_create("params_clones", 511, 0, 0, 0, SOCKET_ID_ANY);
	CU_ASSERT_FATAL(pool != NULL && clones != NULL);
	log_capture();
	CU_ASSERT_PTR_NULL(sst_worker_create(&wp));
	expect_logged("params.link is required");
	wp.link = sst_test_udp_link(pool);
	CU_ASSERT_FATAL(wp.link != NULL);
	log_capture();
	CU_ASSERT_PTR_NULL(sst_worker_create(&wp));
	expect_logged("params.pool is required");
	wp.pool = pool;
	wp.stream.clone_pool = clones;
	wp.shard_count = 2;
	log_capture();
	CU_ASSERT_PTR_NULL(sst_worker_create(&wp));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	expect_logged("params.inboxes are required");
	wp.shard_count = 0;
	wp.stream.clone_pool = NULL;
	log_capture();
	CU_ASSERT_PTR_NULL(sst_worker_create(&wp));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	expect_logged("params.clone_pool is required");
	hp.pool = pool;
	log_capture();
	CU_ASSERT_PTR_NULL(sst_stream_host_create(&hp));
	expect_logged("params.clone_pool is required");
	sst_link_close(wp.link);
	rte_mempool_free(clones);
	rte_mempool_free(pool);
}

/* Failures after the pools and inboxes exist (an unknown link driver,
 * then an EAL too small for the pools) give everything back. */
static void
test_failure_unwinds(void)
{
	struct sst_engine_params ep;
	unsigned int before = pools();

	sst_engine_params_default(&ep);
	ep.workers = 3;
	ep.driver = "no-such-driver";
	ep.local.addr = sst_net_addr4(127, 0, 0, 1);
	CU_ASSERT_PTR_NULL(sst_engine_create(&ep));
	CU_ASSERT_EQUAL(pools(), before);

	sst_engine_params_default(&ep);
	ep.workers = 2;
	ep.mbufs = 1u << 20; /* 2.3 GB of mbufs: more than the EAL has */
	ep.mbufs_initial = ep.mbufs;
	log_capture();
	CU_ASSERT_PTR_NULL(sst_engine_create(&ep));
	log_release();
	CU_ASSERT(strstr(log_buf, "params.mbufs") != NULL);
	CU_ASSERT_EQUAL(pools(), before);
}

int
main(void)
{
	char prefix[64];
	/* No -m: the EAL's own default memory under --no-huge. */
	char *argv[] = {(char *)"test_engine_params", (char *)"--no-huge", (char *)"--no-pci",
		(char *)"--no-shconf", (char *)"--no-telemetry",
		(char *)"--log-level=lib.eal:error", prefix, NULL};
	static const struct sst_test_case cases[] = {
		{"defaults fit the default memory", test_defaults_fit},
		{"missing parameters are named", test_missing_named},
		{"the worker and the stream host name them too", test_lower_missing_named},
		{"a failed create unwinds", test_failure_unwinds},
		{NULL, NULL},
	};

	snprintf(prefix, sizeof(prefix), "--file-prefix=sst-engine-params-%d", (int)getpid());
	if (rte_eal_init((int)RTE_DIM(argv) - 1, argv) < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	return sst_test_run("engine_params", cases);
}
