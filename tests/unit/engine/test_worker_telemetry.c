/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the counters /sst/worker serves (sst_worker_counter(),
 * sst_worker_telemetry()): they are read on another thread than the
 * worker's, so they come from the copy the worker publishes at its
 * creation and in its upkeep (every 100 ms of its time), never from the
 * fields its thread writes without synchronisation. What the worker does
 * between two upkeeps shows only after the next one.
 */
#include <errno.h>
#include <string.h>

#include <rte_telemetry.h>

#include "sst_link.h"
#include "sst_worker.h"
#include "sst_test.h"
#include "sst_test_eal.h"
#include "sst_test_udp.h"

enum { POOL_N = 1024 };

static struct rte_mempool *pool, *clones;

static uint64_t
counter(int id, const char *name)
{
	uint64_t v = UINT64_MAX;

	CU_ASSERT_EQUAL(sst_worker_counter(id, name, &v), 0);
	return v;
}

/* A worker sends a ChkI1 to a link nobody polls: its link counts the packet
 * at once, /sst/worker only after the next upkeep. */
static void
test_counters_published(void)
{
	const sst_time_t t0 = SST_NSEC_PER_SEC;
	struct sst_link *link = sst_test_udp_link(pool), *quiet = sst_test_udp_link(pool);
	struct sst_worker_params wp = {.size = sizeof(wp), .pool = pool, .link = link};
	struct rte_tel_data *d = rte_tel_data_alloc();
	struct sst_net_endpoint to;
	struct sst_worker *w;
	uint64_t v;
	char id[16];
	int i;

	CU_ASSERT_FATAL(link != NULL && quiet != NULL && d != NULL);
	CU_ASSERT_FATAL(sst_link_local(quiet, &to) == 0);
	memset(wp.nego.secret, 0x7e, sizeof(wp.nego.secret));
	wp.stream.name = "tel";
	wp.stream.clone_pool = clones;
	wp.stream.max_streams = 64;
	wp.stream.max_tx_buffers = 8;
	wp.stream.max_rx_buffers = 8;
	wp.stream.max_sids = 64;
	w = sst_worker_create(&wp);
	CU_ASSERT_FATAL(w != NULL);
	i = sst_worker_id(w);
	CU_ASSERT_FATAL(i >= 0);
	/* Published at creation: readable before the first poll. */
	CU_ASSERT_EQUAL(counter(i, "link_tx_packets"), 0);
	CU_ASSERT_EQUAL(counter(i, "streams_open"), 0);
	CU_ASSERT_EQUAL(sst_worker_counter(i, "no_such_counter", &v), -ENOENT);
	CU_ASSERT_EQUAL(sst_worker_counter(i, NULL, &v), -EINVAL);
	CU_ASSERT_EQUAL(sst_worker_counter(i, "rx_packets", NULL), -EINVAL);
	CU_ASSERT_EQUAL(sst_worker_counter(-1, "rx_packets", &v), -EINVAL);
	CU_ASSERT_EQUAL(sst_worker_counter(SST_WORKERS_MAX, "rx_packets", &v), -EINVAL);
	sst_worker_poll(w, t0); /* an upkeep: the next is due at t0 + 100 ms */
	CU_ASSERT_FATAL(sst_worker_connect(w, &to, SST_NEGO_MODE_CHECKSUM, t0) == 0);
	sst_worker_poll(w, t0 + SST_NSEC_PER_MSEC);
	CU_ASSERT_FATAL(sst_link_stats(link)->tx_packets >= 1);
	/* The worker's own counter moved; the published one waits. */
	CU_ASSERT_EQUAL(counter(i, "link_tx_packets"), 0);
	sst_worker_poll(w, t0 + 100 * SST_NSEC_PER_MSEC);
	CU_ASSERT_EQUAL(counter(i, "link_tx_packets"), sst_link_stats(link)->tx_packets);
	snprintf(id, sizeof(id), "%d", i);
	CU_ASSERT_EQUAL(sst_worker_telemetry("/sst/worker", id, d), 0);
	sst_worker_destroy(w);
	/* The copy outlives the worker, but no longer answers for it. */
	CU_ASSERT_EQUAL(sst_worker_counter(i, "link_tx_packets", &v), -EINVAL);
	CU_ASSERT_EQUAL(sst_worker_telemetry("/sst/worker", id, d), -EINVAL);
	rte_tel_data_free(d);
	sst_link_close(quiet);
	sst_link_close(link);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_counters_published),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_worker_telemetry") < 0)
		return 1;
	pool = sst_test_pool("sst_tel_pool", POOL_N, 2048);
	clones = sst_test_pool("sst_tel_clones", POOL_N, 0);
	if (pool == NULL || clones == NULL)
		return 1;
	return sst_test_run("sst_worker_telemetry", cases);
}
