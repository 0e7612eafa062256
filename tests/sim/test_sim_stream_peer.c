/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst_stream_peer_destroy() while the application still holds streams of
 * the peer (lib/stream/stream_peer.c): the handles stay valid. Each stream
 * heard closed() with SST_STREAM_ABORTED, calls on it fail as on a reset
 * stream, its peer still answers, and closing the handles frees the
 * streams and, with the last, the peer. The peer's memory is reused for
 * junk right after the destroy, so a handle still pointing at a freed
 * peer reads the junk (or crashes).
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "sst_stream.h"
#include "sst_test.h"
#include "stream_internal.h"
#include "stream_world.h"

enum { FLOWS = 4 };

static uint64_t seed;

static void
test_destroy_with_held_streams(void)
{
	struct world_params wp;
	struct endpoint *a;
	struct world *w;
	struct rte_mbuf *m;
	sst_time_t now;
	uint32_t held;
	void *junk;

	world_params_default(&wp, seed);
	w = world_create(&wp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	for (int i = 0; i < FLOWS; i++)
		world_flow_start(w, 1 << 20, 1000, 0);
	world_run_until(w, sim_now(w->sim) + 50 * SST_NSEC_PER_MSEC);
	now = sim_now(w->sim);
	a = &w->ep[0];
	held = sst_stream_peer_streams(a->peer);
	CU_ASSERT_FATAL(held >= FLOWS);
	for (int i = 0; i < FLOWS; i++)
		CU_ASSERT_PTR_NOT_NULL_FATAL(w->flows[i].s[0]);

	sst_stream_peer_destroy(a->peer);
	/* The world stops here: side a has no peer and no channel. */
	a->peer = NULL;
	a->nchans = 0;
	memset(a->chans, 0, sizeof(a->chans));
	junk = rte_malloc(NULL, sizeof(struct sst_stream_peer), RTE_CACHE_LINE_SIZE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(junk);
	memset(junk, 0xa5, sizeof(struct sst_stream_peer));

	for (int i = 0; i < FLOWS; i++) {
		struct sst_stream *s = w->flows[i].s[0];
		struct sst_stream_peer *p = sst_stream_peer_of(s);
		struct sst_stream_info info;

		CU_ASSERT_EQUAL(w->flows[i].end[0], SST_STREAM_ABORTED + 1);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		CU_ASSERT_PTR_NOT_EQUAL(p, junk);
		CU_ASSERT_EQUAL(sst_stream_peer_streams(p), held - (uint32_t)i);
		sst_stream_info(s, &info);
		CU_ASSERT_TRUE(info.reset);
		m = rte_pktmbuf_alloc(world_pool());
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_PTR_NOT_NULL_FATAL(rte_pktmbuf_append(m, 100));
		CU_ASSERT_EQUAL(sst_stream_write(s, m, 0, now), -ECONNRESET);
		rte_pktmbuf_free(m);
		/* No channel to open anything on. */
		CU_ASSERT_PTR_NULL(sst_stream_create_substream(s, now));
		CU_ASSERT_PTR_NULL(sst_stream_connect(p, "test", "flow", now));
		CU_ASSERT_EQUAL(rte_errno, ENOTCONN);
		sst_stream_close(s, now);
		w->flows[i].s[0] = NULL;
		w->flows[i].closed[0] = true;
		/* Freed at the host's next safe point, with the peer after the
		 * last one. */
		sst_stream_host_handle_expiry(a->sh, now);
	}
	CU_ASSERT_EQUAL(sst_stream_host_stats(a->sh)->streams_live, 0);
	rte_free(junk);
	world_destroy(w);
}

/* The host goes while streams of a destroyed peer are still held: it frees
 * that peer too (the handles go with the host). */
static void
test_host_destroy_frees_gone_peer(void)
{
	struct world_params wp;
	struct world *w;

	world_params_default(&wp, seed);
	w = world_create(&wp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	world_flow_start(w, 1 << 20, 1000, 0);
	world_run_until(w, sim_now(w->sim) + 50 * SST_NSEC_PER_MSEC);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w->flows[0].s[0]);
	sst_stream_peer_destroy(w->ep[0].peer);
	w->ep[0].peer = NULL;
	w->ep[0].nchans = 0;
	memset(w->ep[0].chans, 0, sizeof(w->ep[0].chans));
	CU_ASSERT_EQUAL(sst_stream_peer_streams(sst_stream_peer_of(w->flows[0].s[0])), 1);
	world_destroy(w);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_destroy_with_held_streams),
	SST_TEST(test_host_destroy_frees_gone_peer),
	SST_TEST_END,
};

int
main(void)
{
	return world_test_main("sim_stream_peer", cases, &seed);
}
