/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The read-only walk over a channel's streams (sst_stream_chan_walk(),
 * lib/stream/stream_walk.c) and the channel's count of resent packets,
 * on 70 flows at once over a lossy simulated link: one walk shows every
 * stream once, with its SID, states and consistent offsets; walks of 32
 * a page, each started where the previous one stopped, show the same
 * streams in the same order and end with 0; and once the flows are done,
 * the channel counted exactly the segments the stream layer resent.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sst_channel.h"
#include "sst_stream_walk.h"
#include "sst_test.h"
#include "stream_world.h"

enum { FLOWS = 70, PAGE = 32, SEEN_MAX = 512 };

static uint64_t seed;

struct walk {
	unsigned int n, stop_at; /* stop_at 0: never stop */
	struct sst_stream_walk_entry e[SEEN_MAX];
};

static int
collect(const struct sst_stream_walk_entry *e, void *arg)
{
	struct walk *wk = arg;

	CU_ASSERT_FATAL(wk->n < SEEN_MAX);
	wk->e[wk->n++] = *e;
	return wk->stop_at != 0 && wk->n % wk->stop_at == 0;
}

static void
test_walk_and_resent(void)
{
	static struct walk all, paged;
	struct sst_channel_info ci;
	struct world_params wp;
	struct sst_stream_chan *c;
	struct world *w;
	uint32_t from = 0;
	unsigned int ours = 0, pages = 0;

	world_params_default(&wp, seed);
	wp.link.loss = 0.02;
	w = world_create(&wp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	for (unsigned int i = 0; i < FLOWS; i++)
		world_flow_start(w, 200000, 1000, 0);
	world_run_until(w, sim_now(w->sim) + 100 * SST_NSEC_PER_MSEC);
	c = w->ep[0].chans[0];

	memset(&all, 0, sizeof(all));
	CU_ASSERT_EQUAL(sst_stream_chan_walk(c, 0, collect, &all), 0);
	for (unsigned int i = 0; i < all.n; i++) {
		const struct sst_stream_walk_entry *e = &all.e[i];

		CU_ASSERT_PTR_NOT_NULL(e->stream);
		CU_ASSERT_STRING_EQUAL(e->state, "live");
		CU_ASSERT_PTR_NOT_NULL(e->send_state);
		CU_ASSERT_PTR_NOT_NULL(e->recv_state);
		CU_ASSERT_EQUAL(e->priority, 0);
		CU_ASSERT_TRUE(e->tx_acked <= e->tx_sent && e->tx_sent <= e->tx_written);
		/* Ours at a: the flows' streams, written to at once. */
		CU_ASSERT_TRUE(!e->ours || e->tx_written > 0);
		for (unsigned int j = 0; j < i; j++)
			CU_ASSERT_FALSE(all.e[j].stream == e->stream);
		ours += e->ours;
	}
	/* Each flow's stream is ours at a, named by our SID. */
	CU_ASSERT_TRUE(ours >= FLOWS);

	memset(&paged, 0, sizeof(paged));
	paged.stop_at = PAGE;
	do {
		unsigned int before = paged.n;

		from = sst_stream_chan_walk(c, from, collect, &paged);
		pages++;
		CU_ASSERT_TRUE(from == 0 || paged.n - before == PAGE);
	} while (from != 0 && pages < 10);
	CU_ASSERT_EQUAL(from, 0);
	CU_ASSERT_EQUAL(paged.n, all.n);
	CU_ASSERT_TRUE(pages >= 3);
	for (unsigned int i = 0; i < paged.n && i < all.n; i++) {
		CU_ASSERT_PTR_EQUAL(paged.e[i].stream, all.e[i].stream);
		CU_ASSERT_EQUAL(paged.e[i].sid, all.e[i].sid);
	}

	CU_ASSERT_EQUAL(world_run(w, 600 * SST_NSEC_PER_SEC), 0);
	world_check_done(w);
	sst_channel_info(sst_stream_chan_channel(c), &ci);
	printf("\n  %u streams walked in %u pages; %" PRIu64 " packets (%" PRIu64
	       " bytes) resent, %" PRIu64 " segments\n",
		all.n, pages, ci.resent_packets, ci.resent_bytes,
		sst_stream_host_stats(w->ep[0].sh)->segments_retx);
	CU_ASSERT_TRUE(ci.resent_packets > 0);
	CU_ASSERT_EQUAL(ci.resent_packets, sst_stream_host_stats(w->ep[0].sh)->segments_retx);
	CU_ASSERT_TRUE(ci.resent_bytes >= ci.resent_packets);
	world_destroy(w);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_walk_and_resent),
	SST_TEST_END,
};

int
main(void)
{
	return world_test_main("sim_stream_walk", cases, &seed);
}
