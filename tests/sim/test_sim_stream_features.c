/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stream-layer scenarios in the simulator (issue 4 acceptance), part 2:
 * datagrams (one packet, fragments, ephemeral substreams, read as
 * substreams), the path MTU shrinking, migration (a channel lost, attach
 * and detach), channel teardown and replacement, service refusal and legacy
 * peers (among them the Close that goes alone to the prototype). Part 1 is test_sim_stream.c. Seeds are fixed; SST_SIM_SEED=<n>
 * replays another one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "channel_wire.h"
#include "sst_test.h"
#include "stream_wire.h"
#include "stream_world.h"

static uint64_t seed;

/* ---- Datagrams ---- */

struct dgram_plan {
	struct world *w;
	struct flow *f;
	uint64_t next, count;
	uint32_t len;
	uint64_t sent, refused;
};

static void
dgram_send_next(void *arg, sst_time_t now)
{
	struct dgram_plan *dp = arg;

	int rc = world_send_datagram(dp->w, dp->f, 0, dp->next++, dp->len);

	if (rc == 0)
		dp->sent++;
	else
		dp->refused++;
	world_pump(dp->w, now);
	if (dp->next < dp->count)
		sim_schedule(dp->w->sim, now + 20 * SST_NSEC_PER_MSEC, dgram_send_next, dp);
}

/*
 * Under 10% loss: 400 small datagrams (one packet each) leave no state at
 * the sender and arrive about 90% of the time; 30 large ones (20 KB) go as
 * reliable ephemeral substreams and all arrive. The receiver reads both
 * kinds with sst_stream_recv_datagram().
 */
static void
test_datagrams(void)
{
	struct world_params wp;
	struct world *w;
	struct flow *f;
	struct dgram_plan small = {0}, large = {0};
	const struct sst_stream_host_stats *st;
	uint64_t live_streams, live_tx, burst = 0;
	double ratio;

	world_params_default(&wp, seed);
	wp.link.loss = 0.10;
	w = world_create(&wp);
	f = world_flow_start(w, 100, 100, 0);
	/* Neither side reads the stream's own data yet: it stays open. */
	f->paused[0] = f->paused[1] = true;
	world_run_until(w, 2 * SST_NSEC_PER_SEC);
	CU_ASSERT_FATAL(f->connected);
	st = sst_stream_host_stats(w->ep[0].sh);
	live_streams = st->streams_live;
	live_tx = st->tx_buffers_live;
	/* A burst: pacing lets a few go, the rest are refused (-ENOBUFS). */
	for (int i = 0; i < 10; i++)
		if (world_send_datagram(w, f, 0, UINT64_C(1) << 40 | (uint64_t)i, 1000) == 0)
			burst++;
	CU_ASSERT(burst >= 1);
	st = sst_stream_host_stats(w->ep[0].sh);
	CU_ASSERT_EQUAL(st->streams_live, live_streams);
	CU_ASSERT_EQUAL(st->tx_buffers_live, live_tx);
	small = (struct dgram_plan){.w = w, .f = f, .next = 0, .count = 400, .len = 1000};
	large = (struct dgram_plan){.w = w, .f = f, .next = 1000, .count = 1030, .len = 20000};
	sim_schedule(w->sim, sim_now(w->sim), dgram_send_next, &small);
	sim_schedule(w->sim, sim_now(w->sim) + SST_NSEC_PER_MSEC, dgram_send_next, &large);
	world_run_until(w, 60 * SST_NSEC_PER_SEC);
	ratio = (double)(w->dgrams_rx[1] - 30) / (double)(small.sent + burst);
	printf("\n  small: %" PRIu64 " sent, large: %" PRIu64 " sent; b received %" PRIu64
	       " datagrams (%" PRIu64 " bytes), %" PRIu64 " bad\n",
		small.sent + burst, large.sent, w->dgrams_rx[1], w->dgram_bytes_rx[1],
		w->dgram_bad);
	CU_ASSERT_EQUAL(w->dgram_bad, 0);
	CU_ASSERT_EQUAL(large.sent, 30);
	CU_ASSERT(small.sent >= 100); /* the rest found the congestion window full */
	/* Every large one arrived (20000 bytes each); the small ones as the
	 * loss allows. */
	CU_ASSERT(w->dgram_bytes_rx[1] >= 30 * 20000);
	CU_ASSERT(w->dgram_bytes_rx[1] - 30 * 20000 == (w->dgrams_rx[1] - 30) * 1000);
	CU_ASSERT(ratio > 0.8 && ratio < 0.97);
	f->paused[0] = f->paused[1] = false;
	world_read_flow(w, f, 0);
	world_read_flow(w, f, 1);
	CU_ASSERT_EQUAL(world_run(w, 200 * SST_NSEC_PER_SEC), 0);
	world_check_done(w);
	world_destroy(w);
}

/*
 * 8 KB datagrams on a link losing 0.5%: to a peer that reassembles
 * fragments they go as 7 Datagram packets on consecutive numbers and no
 * substream is opened; to a legacy peer, as ephemeral substreams. Either
 * way they arrive whole.
 */
static void
run_fragments(uint32_t caps)
{
	struct world_params wp;
	struct world *w;
	struct flow *f;
	struct dgram_plan dp = {0};
	uint64_t opened;

	world_params_default(&wp, seed);
	wp.caps = caps;
	wp.link.loss = 0.005;
	w = world_create(&wp);
	f = world_flow_start(w, 100, 100, 0);
	f->paused[0] = f->paused[1] = true;
	world_run_until(w, 2 * SST_NSEC_PER_SEC);
	CU_ASSERT_FATAL(f->connected);
	opened = sst_stream_host_stats(w->ep[0].sh)->streams_opened;
	dp = (struct dgram_plan){.w = w, .f = f, .next = 0, .count = 100, .len = 8000};
	sim_schedule(w->sim, sim_now(w->sim), dgram_send_next, &dp);
	world_run_until(w, 30 * SST_NSEC_PER_SEC);
	printf("\n  %s peer: %" PRIu64 " of %" PRIu64 " datagrams of 8000 bytes arrived, %" PRIu64
	       " substreams opened\n",
		caps ? "extended" : "legacy", w->dgrams_rx[1], dp.sent,
		sst_stream_host_stats(w->ep[0].sh)->streams_opened - opened);
	CU_ASSERT_EQUAL(w->dgram_bad, 0);
	CU_ASSERT_EQUAL(w->dgram_bytes_rx[1], w->dgrams_rx[1] * 8000);
	CU_ASSERT(dp.sent >= 90);
	if (caps & SST_CAP_DGRAM_FRAGMENTS) {
		/* Fragments, but for the datagrams sent just after a loss:
		 * the channel's loss estimate, averaged over about 64 packets,
		 * is above k x loss <= 0.1 for a few packets after any single
		 * loss (stream_app.c), so at 0.5 % loss a datagram or two go
		 * as substreams in most seeds (4 of seeds 1 to 6 before issue
		 * 19's ack change, and then the default seed too). */
		CU_ASSERT(sst_stream_host_stats(w->ep[0].sh)->streams_opened - opened <=
			  dp.sent / 20);
		CU_ASSERT(w->dgrams_rx[1] * 10 >= dp.sent * 9);
		/* Fragments: what a prototype would have dropped. */
		CU_ASSERT(sst_stream_host_stats(w->ep[1].sh)->rx_beyond_prototype > 0);
	} else {
		CU_ASSERT_EQUAL(sst_stream_host_stats(w->ep[1].sh)->rx_beyond_prototype, 0);
		CU_ASSERT_EQUAL(
			sst_stream_host_stats(w->ep[0].sh)->streams_opened - opened, dp.sent);
		CU_ASSERT_EQUAL(w->dgrams_rx[1], dp.sent);
	}
	f->paused[0] = f->paused[1] = false;
	world_read_flow(w, f, 0);
	world_read_flow(w, f, 1);
	CU_ASSERT_EQUAL(world_run(w, 200 * SST_NSEC_PER_SEC), 0);
	world_check_done(w);
	world_destroy(w);
}

static void
test_datagram_fragments(void)
{
	run_fragments(SST_CAPS_ALL);
	run_fragments(SST_CAPS_LEGACY);
}

/* The receiver reads datagrams as substreams instead: the small ones (Datagram
 * packets) and the large ones (ephemeral substreams) alike. */
static void
test_datagram_as_substream(void)
{
	struct world_params wp;
	struct world *w;
	struct flow *f;
	struct dgram_plan small, large;

	world_params_default(&wp, seed);
	w = world_create(&wp);
	w->dgram_via_accept = true;
	f = world_flow_start(w, 100, 100, 0);
	f->paused[0] = f->paused[1] = true;
	world_run_until(w, SST_NSEC_PER_SEC);
	CU_ASSERT_FATAL(f->connected);
	small = (struct dgram_plan){.w = w, .f = f, .next = 0, .count = 20, .len = 900};
	large = (struct dgram_plan){.w = w, .f = f, .next = 100, .count = 105, .len = 30000};
	sim_schedule(w->sim, sim_now(w->sim), dgram_send_next, &small);
	sim_schedule(w->sim, sim_now(w->sim), dgram_send_next, &large);
	world_run_until(w, 10 * SST_NSEC_PER_SEC);
	printf("\n  %" PRIu64 " datagrams read as substreams of %" PRIu64 " sent\n",
		w->dgrams_as_substreams, small.sent + large.sent);
	CU_ASSERT_EQUAL(w->dgram_bad, 0);
	CU_ASSERT_EQUAL(w->dgrams_as_substreams, small.sent + large.sent);
	CU_ASSERT_EQUAL(w->dgram_bytes_rx[1], small.sent * 900 + large.sent * 30000);
	f->paused[0] = f->paused[1] = false;
	world_read_flow(w, f, 0);
	world_read_flow(w, f, 1);
	CU_ASSERT_EQUAL(world_run(w, 200 * SST_NSEC_PER_SEC), 0);
	world_check_done(w);
	world_destroy(w);
}

/* ---- The path MTU shrinks ---- */

struct mtu_change {
	struct world *w;
	struct sst_simlink_params link;
	uint32_t mtu;
};

static void
shrink_link_mtu(void *arg, sst_time_t now)
{
	struct mtu_change *mc = arg;

	(void)now;
	mc->link.mtu = mc->mtu;
	for (int dir = 0; dir < 2; dir++)
		CU_ASSERT_EQUAL(
			sst_simlink_set_params(sim_link_dir(mc->w->links[0], dir), &mc->link), 0);
}

/* What an ICMP "fragmentation needed" would tell the hosts, a little later. */
static void
shrink_channel_mtu(void *arg, sst_time_t now)
{
	struct mtu_change *mc = arg;

	for (int side = 0; side < 2; side++)
		CU_ASSERT_EQUAL(sst_channel_set_mtu(
					sst_stream_chan_channel(mc->w->ep[side].chans[0]), mc->mtu),
			0);
	world_pump(mc->w, now);
}

/* Mid-transfer the link starts dropping packets over 600 bytes and the
 * channels learn the new MTU: what was in flight is lost and resent re-cut
 * to the smaller segments, byte-exact. */
static void
test_mtu_shrinks(void)
{
	struct world_params wp;
	struct mtu_change mc;
	struct world *w;
	struct sst_simlink_stats ls;

	world_params_default(&wp, seed);
	w = world_create(&wp);
	world_flow_start(w, 1 << 20, 300000, 0);
	world_flow_start(w, 500000, 500000, 0);
	mc = (struct mtu_change){.w = w, .link = wp.link, .mtu = 600};
	sim_schedule(w->sim, 60 * SST_NSEC_PER_MSEC, shrink_link_mtu, &mc);
	sim_schedule(w->sim, 90 * SST_NSEC_PER_MSEC, shrink_channel_mtu, &mc);
	CU_ASSERT_EQUAL(world_run(w, 300 * SST_NSEC_PER_SEC), 0);
	world_check_done(w);
	sst_simlink_stats_get(sim_link_dir(w->links[0], 0), &ls);
	printf("\n  a to b: %" PRIu64 " packets dropped as too big\n", ls.dropped_mtu);
	CU_ASSERT(ls.dropped_mtu > 0);
	world_destroy(w);
}

/* ---- Migration ---- */

static void
kill_channel0(void *arg, sst_time_t now)
{
	struct world_params *wp = arg;
	struct world *w = wp->link.pool != NULL ? (struct world *)(uintptr_t)wp->seed : NULL;

	(void)now;
	world_add_channel(w, wp);
	world_kill_channel(w, 0);
}

/* The channel under a transfer dies mid-way; the streams resume on a new
 * channel to the same peer and complete byte-exact. */
static void
test_migration_channel_lost(void)
{
	struct world_params wp, wp2;
	struct world *w;
	struct flow *f0, *f1;

	world_params_default(&wp, seed);
	wp.link.loss = 0.02;
	w = world_create(&wp);
	f0 = world_flow_start(w, 2 << 20, 1 << 20, 0);
	f1 = world_flow_start(w, 300000, 5000, 0);
	wp2 = wp;
	wp2.seed = (uint64_t)(uintptr_t)w;
	sim_schedule(w->sim, 300 * SST_NSEC_PER_MSEC, kill_channel0, &wp2);
	CU_ASSERT_EQUAL(world_run(w, 300 * SST_NSEC_PER_SEC), 0);
	world_check_done(w);
	printf("\n  flows done at %.3f s and %.3f s; attaches sent a %" PRIu64 " b %" PRIu64 "\n",
		(double)f0->done_at[1] / 1e9, (double)f1->done_at[1] / 1e9,
		sst_stream_host_stats(w->ep[0].sh)->attaches_tx,
		sst_stream_host_stats(w->ep[1].sh)->attaches_tx);
	CU_ASSERT(sst_stream_host_stats(w->ep[0].sh)->attaches_tx >= 2);
	CU_ASSERT(sst_stream_host_stats(w->ep[1].sh)->attaches_tx >= 1);
	world_destroy(w);
}

/* Both sides move a live stream to a second channel (Attach on the new
 * one, Detach on the old) while the old channel stays up. */
static void
test_migration_attach_detach(void)
{
	struct world_params wp;
	struct world *w;
	struct flow *f;
	const struct sst_channel_stats *old_a;
	uint64_t old_tx_before;

	world_params_default(&wp, seed);
	w = world_create(&wp);
	f = world_flow_start(w, 3 << 20, 2 << 20, 0);
	world_run_until(w, 200 * SST_NSEC_PER_MSEC);
	world_add_channel(w, &wp);
	CU_ASSERT_FATAL(f->s[0] != NULL && f->s[1] != NULL);
	CU_ASSERT_EQUAL(sst_stream_migrate(f->s[0], w->ep[0].chans[1], sim_now(w->sim)), 0);
	CU_ASSERT_EQUAL(sst_stream_migrate(f->s[1], w->ep[1].chans[1], sim_now(w->sim)), 0);
	world_run_until(w, 1200 * SST_NSEC_PER_MSEC);
	old_a = sst_channel_stats(sst_stream_chan_channel(w->ep[0].chans[0]));
	old_tx_before = old_a->tx_packets;
	CU_ASSERT_EQUAL(world_run(w, 300 * SST_NSEC_PER_SEC), 0);
	world_check_done(w);
	/* After the move only acknowledgments (if anything) use the old one. */
	printf("\n  old channel: %" PRIu64 " packets from a after the move settled\n",
		old_a->tx_packets - old_tx_before);
	CU_ASSERT(old_a->tx_packets - old_tx_before < 50);
	world_destroy(w);
}

/* ---- Closing channels without TIME_WAIT ---- */

/*
 * a finishes its side of a stream while b, not reading, keeps its side: a's
 * FINISH is declined by silence and a's channel stays. Once b read and
 * finished too, b offers in turn and both close at once; every FINISH went
 * inside the channel's armor (a forged one is dropped there: see
 * test_channel's tamper tests).
 */
static void
test_channel_close(void)
{
	struct world_params wp;
	struct world *w;
	struct flow *f;

	world_params_default(&wp, seed);
	w = world_create(&wp);
	f = world_flow_start(w, 1000, 10, 0);
	f->paused[1] = true;
	world_run_until(w, SST_NSEC_PER_SEC);
	CU_ASSERT_TRUE(f->closed[0]);
	CU_ASSERT_TRUE(sst_stream_chan_unused(w->ep[0].chans[0]));
	CU_ASSERT_FALSE(sst_stream_chan_unused(w->ep[1].chans[0]));
	CU_ASSERT_EQUAL(sst_stream_chan_close(w->ep[1].chans[0], sim_now(w->sim)), -EBUSY);
	CU_ASSERT_EQUAL(sst_stream_chan_close(w->ep[0].chans[0], sim_now(w->sim)), 0);
	world_run_until(w, 3 * SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL(w->chans_closed[0], 0);
	CU_ASSERT_EQUAL(w->chans_closed[1], 0);
	f->paused[1] = false;
	world_read_flow(w, f, 1);
	CU_ASSERT_EQUAL(world_run(w, 10 * SST_NSEC_PER_SEC), 0);
	world_check_done(w);
	CU_ASSERT_TRUE(sst_stream_chan_unused(w->ep[1].chans[0]));
	CU_ASSERT_EQUAL(sst_stream_chan_close(w->ep[1].chans[0], sim_now(w->sim)), 0);
	world_run_until(w, sim_now(w->sim) + SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL(w->chans_closed[0], 1);
	CU_ASSERT_EQUAL(w->chans_closed[1], 1);
	world_kill_channel(w, 0);
	world_destroy(w);
}

static void
test_channel_close_legacy(void)
{
	struct world_params wp;
	struct world *w;

	world_params_default(&wp, seed);
	wp.caps = SST_CAPS_LEGACY;
	w = world_create(&wp);
	CU_ASSERT_EQUAL(sst_stream_chan_close(w->ep[0].chans[0], 0), -ENOTSUP);
	world_destroy(w);
}

/*
 * A channel that cannot be created fails cleanly (NULL, rte_errno set) and
 * the peer keeps working: the failure path once tidied SID spaces that had
 * never been initialised (a crash of a server that ran out of memory with
 * channels to legacy peers, which no FINISH closes). Its tables now grow
 * with use, so the failure comes from the channel's parameters, late in
 * the creation as the allocation failure did; growths that fail later are
 * tested with the tables (test_stream_ids, test_channel_txlog).
 */
static void
test_channel_create_no_memory(void)
{
	struct world_params wp, huge;
	struct world *w;
	struct flow *f;

	world_params_default(&wp, seed);
	w = world_create(&wp);
	huge = wp;
	/* A record per packet in flight: no heap holds that. The records and
	 * the channel's log now grow with the packets in flight, so such a
	 * limit costs nothing at creation: the channel refuses it (it is past
	 * SST_TXLOG_MAX), and the creation fails as cleanly as it did for
	 * want of memory. */
	huge.tx_log = 1u << 31;
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(world_make_chan(w, 0, &huge, 1));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	f = world_flow_start(w, 100000, 50000, 0);
	CU_ASSERT_EQUAL(world_run(w, 60 * SST_NSEC_PER_SEC), 0);
	CU_ASSERT_TRUE(f->connected);
	world_check_done(w);
	world_destroy(w);
}

/*
 * Channel replacement: mid-transfer a second channel is opened and a moves
 * every stream to it; b's sides follow when a's Attaches arrive; the old
 * channel empties and is closed by FINISH on both sides, while the
 * transfers complete byte-exact on the new one.
 */
static void
test_channel_replacement(void)
{
	struct world_params wp;
	struct world *w;
	int moved;

	world_params_default(&wp, seed);
	w = world_create(&wp);
	for (int i = 0; i < 8; i++)
		world_flow_start(w, 400000, 200000, 0);
	world_run_until(w, 60 * SST_NSEC_PER_MSEC);
	world_add_channel(w, &wp);
	moved = sst_stream_chan_migrate_all(w->ep[0].chans[0], w->ep[0].chans[1], sim_now(w->sim));
	printf("\n  %d streams moved", moved);
	CU_ASSERT(moved >= 1);
	world_run_until(w, sim_now(w->sim) + 2 * SST_NSEC_PER_SEC);
	CU_ASSERT_TRUE(sst_stream_chan_unused(w->ep[0].chans[0]));
	CU_ASSERT_TRUE(sst_stream_chan_unused(w->ep[1].chans[0]));
	CU_ASSERT_EQUAL(sst_stream_chan_close(w->ep[0].chans[0], sim_now(w->sim)), 0);
	world_run_until(w, sim_now(w->sim) + SST_NSEC_PER_SEC);
	printf(", old channel closed on %" PRIu64 " + %" PRIu64 " sides\n", w->chans_closed[0],
		w->chans_closed[1]);
	CU_ASSERT_EQUAL(w->chans_closed[0], 1);
	CU_ASSERT_EQUAL(w->chans_closed[1], 1);
	world_kill_channel(w, 0);
	CU_ASSERT_EQUAL(world_run(w, 300 * SST_NSEC_PER_SEC), 0);
	world_check_done(w);
	world_destroy(w);
}

/* ---- Service rendezvous ---- */

static void
run_refused(uint32_t caps)
{
	struct world_params wp;
	struct world *w;
	struct flow f = {0};
	struct sst_stream *s;

	world_params_default(&wp, seed);
	wp.caps = caps;
	w = world_create(&wp);
	s = sst_stream_connect(w->ep[0].peer, "nobody", "here", 0);
	CU_ASSERT_FATAL(s != NULL);
	sst_stream_set_user(s, &f);
	world_run_until(w, 2 * SST_NSEC_PER_SEC);
	CU_ASSERT_FALSE(f.connected);
	CU_ASSERT_EQUAL(f.connect_err, -ECONNREFUSED);
	CU_ASSERT_EQUAL(sst_stream_host_stats(w->ep[1].sh)->services_refused, 1);
	CU_ASSERT_EQUAL(
		sst_stream_host_stats(w->ep[1].sh)->streams_reset_tx, caps & SST_CAP_RESET ? 1 : 0);
	sst_stream_close(s, sim_now(w->sim));
	world_run_until(w, 4 * SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL(sst_stream_host_stats(w->ep[0].sh)->streams_live, 0);
	CU_ASSERT_EQUAL(sst_stream_host_stats(w->ep[1].sh)->streams_live, 0);
	world_destroy(w);
}

static void
test_service_refused(void)
{
	run_refused(SST_CAPS_ALL);
	run_refused(SST_CAPS_LEGACY);
}

/* A peer that did not advertise our capabilities is never sent Reset or
 * Detach, and its window overruns are tolerated. */
static void
test_legacy_peer(void)
{
	struct world_params wp;

	world_params_default(&wp, seed);
	wp.caps = SST_CAPS_LEGACY;
	wp.link.loss = 0.05;
	{
		struct world *w = world_create(&wp);

		for (int i = 0; i < 16; i++)
			world_flow_start(w, 50000, 20000, 0);
		CU_ASSERT_EQUAL(world_run(w, 300 * SST_NSEC_PER_SEC), 0);
		world_check_done(w);
		for (int side = 0; side < 2; side++) {
			const struct sst_stream_host_stats *st =
				sst_stream_host_stats(w->ep[side].sh);

			CU_ASSERT_EQUAL(st->streams_reset_tx, 0);
			CU_ASSERT_EQUAL(st->stateless_resets, 0);
			/* Nor segments or datagrams over the prototype's 1200 bytes. */
			CU_ASSERT_EQUAL(st->rx_beyond_prototype, 0);
		}
		world_destroy(w);
	}
}

/* Segments of Init, Reply or Data that carry Close, as each side sends
 * them: with data, and alone (empty). A tx_filter that drops nothing. */
static uint64_t close_on_data[2], close_alone[2];

static bool
count_closes(struct world *w, int side, uint16_t port, const struct rte_mbuf *m)
{
	uint8_t buf[SST_CHAN_HDR_LEN + SST_STREAM_HDR_LONG];
	uint32_t len = rte_pktmbuf_pkt_len(m), trailer = 4; /* Chk32 */
	struct sst_stream_hdr hdr;
	const uint8_t *p;
	int hlen;

	RTE_SET_USED(w);
	RTE_SET_USED(port);
	if (len < sizeof(buf) + trailer)
		return false; /* too short for a data segment */
	p = rte_pktmbuf_read(m, 0, sizeof(buf), buf);
	hlen = sst_stream_hdr_decode(p + SST_CHAN_HDR_LEN, sizeof(buf) - SST_CHAN_HDR_LEN, &hdr);
	if (hlen < 0 || (hdr.flags & SST_FLAG_CLOSE) == 0 ||
		(hdr.type != SST_STREAM_INIT && hdr.type != SST_STREAM_REPLY &&
			hdr.type != SST_STREAM_DATA))
		return false;
	if (len - SST_CHAN_HDR_LEN - (uint32_t)hlen - trailer > 0)
		close_on_data[side]++;
	else
		close_alone[side]++;
	return false;
}

/*
 * Run 8 flows whose writers end their direction right after their last
 * write, while the data is still queued: the Close could ride on the last
 * data segment. Both sides read as @p prototype_reader says.
 */
static void
run_closes(uint32_t caps, bool prototype_reader)
{
	struct world_params wp;
	struct world *w;

	world_params_default(&wp, seed);
	wp.caps = caps;
	wp.host.prototype_reader = prototype_reader;
	w = world_create(&wp);
	w->tx_filter = count_closes;
	memset(close_on_data, 0, sizeof(close_on_data));
	memset(close_alone, 0, sizeof(close_alone));
	for (int i = 0; i < 8; i++)
		world_flow_start(w, 100000 + 777 * (uint64_t)i, 30000 + 555 * (uint64_t)i, 0);
	CU_ASSERT_EQUAL(world_run(w, 60 * SST_NSEC_PER_SEC), 0);
	world_check_done(w);
	printf("\n  caps 0x%x: Close on data %" PRIu64 " + %" PRIu64 ", alone %" PRIu64
	       " + %" PRIu64,
		caps, close_on_data[0], close_on_data[1], close_alone[0], close_alone[1]);
	world_destroy(w);
}

/*
 * Issue 15, finding 7(a): the 2007 prototype's reader stops at the message
 * boundary before it looks at the Close flag, so a Close on the last data
 * segment is never seen and its side of the stream never ends (a 1 MiB
 * echo toward it hung at close). To a peer that advertised no capability
 * the Close goes alone, in an empty segment after the data, and both
 * sides, reading as the prototype does, see every end and finish every
 * flow. The control run shows that the writers do close with data queued:
 * between SST-DPDK peers the Close rides on the last segment.
 */
static void
test_legacy_close_alone(void)
{
	run_closes(SST_CAPS_LEGACY, true);
	CU_ASSERT_EQUAL(close_on_data[0] + close_on_data[1], 0);
	CU_ASSERT(close_alone[0] >= 8 && close_alone[1] >= 8);
	run_closes(SST_CAPS_ALL, false);
	CU_ASSERT(close_on_data[0] >= 1 && close_on_data[1] >= 1);
	printf("\n");
}

/* ---- The packet pool running dry ---- */

enum { DRY_HELD_MAX = 65536 };
static struct rte_mbuf *dry_held[DRY_HELD_MAX];

/* Take every mbuf the pool has left. @return how many. */
static unsigned int
pool_drain(void)
{
	unsigned int n = 0;
	struct rte_mbuf *m;

	while (n < DRY_HELD_MAX && (m = rte_pktmbuf_alloc(world_pool())) != NULL)
		dry_held[n++] = m;
	return n;
}

/*
 * Controls owed while the packet pool is empty: 600 streams stay open on
 * a channel that attaches 64 per direction at once, so idle ones are
 * detached; then, with not one mbuf left in the pool, each side writes a
 * last byte on every stream and ends it, which owes an Attach for most
 * of them, and the channels run 50 ms like that before the mbufs come
 * back. An Attach that found no mbuf was dropped with what was owed
 * cleared and the stream left waiting for its acknowledgment: the stream
 * never finished (sst-perf --streams 100000 hung in about 1 run of 25
 * with its Close queued behind such an Attach, 1,948 streams live). Every
 * stream must finish, byte-exact.
 */
static void
test_controls_without_mbufs(void)
{
	const uint64_t streams = 600, first = streams * (3008 + 2008);
	struct world_params wp;
	unsigned int held;
	struct world *w;

	world_params_default(&wp, seed);
	wp.host.max_sids = 64;
	w = world_create(&wp);
	w->keep_open = true;
	for (uint64_t i = 0; i < streams; i++)
		world_flow_start(w, 3000, 2000, 0);
	CU_ASSERT_EQUAL(world_run_bytes(w, first, 600 * SST_NSEC_PER_SEC), 0);
	CU_ASSERT_EQUAL(w->bytes_checked, first);
	/* The writes queue their bytes (mbufs of the same pool); the
	 * channels are flushed at the next pump, with the pool empty. */
	w->keep_open = false;
	for (uint64_t i = 0; i < w->nflows; i++) {
		world_flow_more(w, &w->flows[i], 0, 1);
		world_flow_more(w, &w->flows[i], 1, 1);
	}
	held = pool_drain();
	CU_ASSERT(held > 0);
	world_run_until(w, sim_now(w->sim) + 50 * SST_NSEC_PER_MSEC);
	held += pool_drain(); /* what the 50 ms gave back stays taken too */
	printf("\n  %u mbufs held through the dry spell; attaches sent: a %" PRIu64 ", b %" PRIu64
	       "\n",
		held, sst_stream_host_stats(w->ep[0].sh)->attaches_tx,
		sst_stream_host_stats(w->ep[1].sh)->attaches_tx);
	rte_pktmbuf_free_bulk(dry_held, held);
	CU_ASSERT_EQUAL(world_run(w, 1200 * SST_NSEC_PER_SEC), 0);
	world_check_done(w);
	world_destroy(w);
}

/*
 * A receive buffer of few reassembly pieces (sst-perf's rr client has 32)
 * and a 512 KB response whose slow start overshoots the 1.5 Mbit/s link's
 * 32-packet queue: the losses leave holes, the segments above them fill
 * every piece, and the retransmission that fills the lowest hole used to
 * find none left. Refused, resent, refused again: nothing became readable
 * to free a piece, and the stream stalled until the peers gave up (the
 * evaluation's Figure 7 at 512 KB once the server's send buffer no longer
 * held the response to 64 KB in flight). The last piece is now kept for
 * bytes at the read point.
 */
static void
test_few_pieces_after_overshoot(void)
{
	struct world_params wp;
	struct world *w;

	world_params_link(&wp, seed, 1500 * 1000, 25 * SST_NSEC_PER_MSEC, 32);
	wp.host.rx_pieces = 32;
	w = world_create(&wp);
	world_flow_start(w, 64, 524288, 0);
	CU_ASSERT_EQUAL(world_run(w, 60 * SST_NSEC_PER_SEC), 0);
	printf("\n  512 KB through 32 pieces in %.2f s\n",
		(double)sim_now(w->sim) / SST_NSEC_PER_SEC);
	world_check_done(w);
	CU_ASSERT(sst_stream_host_stats(w->ep[0].sh)->rx_refused > 0);
	world_destroy(w);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_few_pieces_after_overshoot),
	SST_TEST(test_datagrams),
	SST_TEST(test_datagram_fragments),
	SST_TEST(test_datagram_as_substream),
	SST_TEST(test_mtu_shrinks),
	SST_TEST(test_migration_channel_lost),
	SST_TEST(test_migration_attach_detach),
	SST_TEST(test_channel_close),
	SST_TEST(test_channel_close_legacy),
	SST_TEST(test_channel_create_no_memory),
	SST_TEST(test_channel_replacement),
	SST_TEST(test_service_refused),
	SST_TEST(test_legacy_peer),
	SST_TEST(test_legacy_close_alone),
	SST_TEST(test_controls_without_mbufs),
	SST_TEST_END,
};

int
main(void)
{
	return world_test_main("sim_stream_features", cases, &seed);
}
