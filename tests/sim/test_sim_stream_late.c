/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Late segments of a stream the receiving side finished and let go: they
 * are acknowledged as stale, never refused for good nor answered with a
 * stateless Reset (docs/channel.md, "The optimistic-ack defence"). The
 * other cases are in test_sim_stream.c (test_replies_resent_after_finish,
 * _after_wrap, test_attach_after_finish).
 */
#include <stdint.h>
#include <string.h>

#include "sst_stream.h"
#include "sst_test.h"
#include "stream_chan_sids.h"
#include "stream_internal.h"
#include "stream_wire.h"
#include "stream_world.h"

static uint64_t seed;

/* a's packets once b sent Data (its acks of it) are lost, 8 of them. When
 * b sends Data after the first 4, a's side is as after a move of a stream
 * of an earlier lap with the same 16-bit SID: the SID's quiet period, if
 * any, is over, and it is marked moved again (which, since the mark lives
 * in the quiet entry, no longer outlasts the quiet period). */
static bool
drop_acks_of_data_moved(struct world *w, int side, uint16_t port, const struct rte_mbuf *m)
{
	static struct {
		bool data;
		unsigned int dropped;
	} st;
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	bool data = rte_pktmbuf_data_len(m) > 10 && (p[10] >> 4) == SST_STREAM_DATA;

	(void)port;
	if (w->user == NULL) {
		memset(&st, 0, sizeof(st));
		w->user = &st;
	}
	if (side == 1 && data && st.dropped >= 4) {
		struct sst_stream_chan *c = w->ep[0].chans[0];

		sst_sid_tick(c->rx_sids, UINT64_MAX, UINT64_MAX);
		stream_chan_moved(c, (uint16_t)(p[8] << 8 | p[9]));
	}
	st.data |= side == 1 && data;
	if (side == 0 && st.data && st.dropped < 8) {
		st.dropped++;
		return true;
	}
	return false;
}

/*
 * b's Data resent after a finished the stream, for a SID that a move of an
 * earlier lap's stream marked, past its quiet period: acknowledged as
 * stale. When the marks were a ring of the last 16 moved SIDs it was
 * refused as a moved stream's, for good, and b's side never finished
 * (sst-perf --streams 100000 stalled so in about 1 run of 30 once such
 * late segments reached the ring).
 */
static void
test_data_resent_moved_sid(void)
{
	struct world_params wp;
	struct world *w;

	world_params_default(&wp, seed);
	w = world_create(&wp);
	w->tx_filter = drop_acks_of_data_moved;
	world_flow_start(w, 64, 30000, 0);
	CU_ASSERT_EQUAL(world_run(w, 60 * SST_NSEC_PER_SEC), 0);
	world_check_done(w);
	for (int side = 0; side < 2; side++) {
		const struct sst_stream_host_stats *st = sst_stream_host_stats(w->ep[side].sh);

		CU_ASSERT_EQUAL(st->streams_closed, 1);
		CU_ASSERT_EQUAL(
			st->streams_reset_tx + st->streams_reset_rx + st->stateless_resets, 0);
	}
	CU_ASSERT(sst_stream_host_stats(w->ep[0].sh)->rx_stale > 0);
	world_destroy(w);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_data_resent_moved_sid),
	SST_TEST_END,
};

int
main(void)
{
	return world_test_main("sim_stream_late", cases, &seed);
}
