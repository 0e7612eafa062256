/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stream-layer scenarios in the simulator, part 3: channels replaced again
 * and again under live streams (the peer's half-channel ID table must free
 * the IDs of channels gone), control work due on another channel than the
 * one a stream is queued on (stream_ctl_requeue()), and new streams going
 * to the newest channel by creation order once channel slots are reused.
 * Seeds are fixed; SST_SIM_SEED=<n> replays another one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>

#include "sst_test.h"
#include "stream_world.h"

static uint64_t seed;

struct slot_wait {
	struct world *w;
	int idx;
	uint64_t closed[2]; /* chans_closed to reach on each side */
};

static bool
slot_in_use(void *arg)
{
	struct slot_wait *sw = arg;

	return !sst_stream_chan_unused(sw->w->ep[0].chans[sw->idx]) ||
	       !sst_stream_chan_unused(sw->w->ep[1].chans[sw->idx]);
}

static bool
slot_closing(void *arg)
{
	struct slot_wait *sw = arg;

	return sw->w->chans_closed[0] < sw->closed[0] || sw->w->chans_closed[1] < sw->closed[1];
}

/*
 * Replace channel @p old: open a new one, move a's streams to it (b's
 * follow), wait until the old one is empty on both sides, close it by
 * FINISH and destroy it once both sides reported it closed. @return the
 * new channel's slot, or -1 (a step did not finish within 5 s).
 */
static int
replace_channel(struct world *w, const struct world_params *wp, int old)
{
	struct slot_wait sw = {.w = w, .idx = old};
	int next = world_add_channel(w, wp);
	sst_time_t now = sim_now(w->sim);

	if (sst_stream_chan_migrate_all(w->ep[0].chans[old], w->ep[0].chans[next], now) < 0)
		return -1;
	world_pump(w, now);
	if (sim_run_while(w->sim, slot_in_use, &sw, now + 5 * SST_NSEC_PER_SEC) != 0) {
		printf("\nchannel in slot %d never emptied\n", old);
		return -1;
	}
	sw.closed[0] = w->chans_closed[0] + 1;
	sw.closed[1] = w->chans_closed[1] + 1;
	now = sim_now(w->sim);
	if (sst_stream_chan_close(w->ep[0].chans[old], now) != 0)
		return -1;
	world_pump(w, now);
	if (sim_run_while(w->sim, slot_closing, &sw, now + 5 * SST_NSEC_PER_SEC) != 0) {
		printf("\nchannel in slot %d never closed\n", old);
		return -1;
	}
	world_kill_channel(w, old);
	return next;
}

/*
 * 24 replacements, one after the other, under 6 long transfers (and a short
 * one opened on every third new channel, whose USID names that channel's
 * half-channel ID): each channel takes two entries of the peer's 16-entry
 * table, which used to keep them for good, so the ninth channel could not
 * be created (ENOSPC) and a peer whose channels kept being replaced
 * stalled. Every transfer must end byte-exact.
 */
static void
test_replace_many_times(void)
{
	enum { REPLACEMENTS = 24 };
	struct world_params wp;
	struct world *w;
	int cur = 0, done = 0;

	world_params_default(&wp, seed);
	wp.link.rate_bps = 20 * 1000 * 1000;
	w = world_create(&wp);
	for (int i = 0; i < 6; i++)
		world_flow_start(w, 1000000, 400000, 0);
	world_run_until(w, 50 * SST_NSEC_PER_MSEC);
	for (; done < REPLACEMENTS; done++) {
		if (done % 3 == 0)
			world_flow_start(w, 30000, 30000, 0);
		cur = replace_channel(w, &wp, cur);
		if (cur < 0)
			break;
	}
	printf("\n  %d replacements in %.2f s (virtual), %" PRIu64 " of %" PRIu64
	       " flows done by then, %" PRIu64 " + %" PRIu64 " channels closed\n",
		done, (double)sim_now(w->sim) / SST_NSEC_PER_SEC, w->flows_done, w->nflows,
		w->chans_closed[0], w->chans_closed[1]);
	CU_ASSERT_EQUAL_FATAL(done, REPLACEMENTS);
	/* The long transfers were still running through all of them. */
	CU_ASSERT(w->flows_done + 6 <= w->nflows);
	CU_ASSERT_EQUAL(w->chans_closed[0], REPLACEMENTS);
	CU_ASSERT_EQUAL(w->chans_closed[1], REPLACEMENTS);
	CU_ASSERT_EQUAL(world_run(w, 300 * SST_NSEC_PER_SEC), 0);
	world_check_done(w);
	world_destroy(w);
}

/*
 * A stream waits in one channel's control queue at a time, while its Attach
 * is due on its sending channel and its window update on its receiving
 * one. b's application, which stopped reading (a's window closed), reads
 * everything and moves its sending side to a second channel at one
 * instant, with no flush in between:
 *  - window_first: the window update joins the old channel's queue, then
 *    the Attach is due on the new one (the stream is queued already);
 *  - attach_first: the Attach joins the new channel's queue, then the
 *    window update is due on the old one.
 * Whatever is still due elsewhere when the stream leaves a queue must join
 * that channel's queue (stream_ctl_requeue()): otherwise the Attach is never
 * sent and b's data waits for good (window_first), or the window update is
 * never sent and a waits on a zero window (attach_first).
 */
static void
run_ctl_requeue(bool window_first, uint64_t a_bytes, uint64_t b_bytes)
{
	struct world_params wp;
	struct world *w;
	struct flow *f;
	struct sst_stream_info info;
	sst_time_t now;
	int rc;

	world_params_default(&wp, seed);
	wp.link.rate_bps = 20 * 1000 * 1000;
	w = world_create(&wp);
	f = world_flow_start(w, a_bytes, b_bytes, 0);
	f->paused[1] = true;
	world_add_channel(w, &wp);
	world_run_until(w, 300 * SST_NSEC_PER_MSEC);
	CU_ASSERT_FATAL(f->s[1] != NULL);
	/* a waits on a closed window: credit for less than a segment. */
	sst_stream_info(f->s[0], &info);
	CU_ASSERT(info.tx_unacked > info.tx_in_flight);
	CU_ASSERT(info.tx_credit < info.tx_in_flight + 1500);
	sst_stream_info(f->s[1], &info);
	printf("\n  %s: b holds %" PRIu64 " bytes, has sent %" PRIu64 " of %" PRIu64,
		window_first ? "window first" : "attach first", info.rx_buffered, f->written[1],
		f->len[1]);
	now = sim_now(w->sim);
	f->paused[1] = false;
	if (window_first)
		world_read_flow_unflushed(w, f, 1);
	CU_ASSERT_EQUAL(sst_stream_migrate(f->s[1], w->ep[1].chans[1], now), 0);
	if (!window_first)
		world_read_flow_unflushed(w, f, 1);
	rc = world_run(w, 60 * SST_NSEC_PER_SEC);
	printf(", done at %.2f s\n", (double)sim_now(w->sim) / SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL(rc, 0);
	world_check_done(w);
	world_destroy(w);
}

static void
test_ctl_requeue(void)
{
	/* b still has data to send: it waits for its Attach. a has 2000
	 * bytes beyond the 64,200 b buffers: once they arrive, no other window
	 * update is due whose queueing could bring the Attach along. */
	run_ctl_requeue(true, 64200 + 2000 - 8, 3000000);
	/* b sent all it had: only a window update lets a go on. */
	run_ctl_requeue(false, 2000000, 100);
}

static void
chan_sids(struct world *w, int idx, uint64_t *sids)
{
	struct sst_stream_chan_stats cs;

	*sids = 0;
	for (int side = 0; side < 2; side++) {
		sst_stream_chan_stats(w->ep[side].chans[idx], &cs);
		*sids += cs.sids_attached;
	}
}

/*
 * New streams go to the peer's newest channel by creation order, not by
 * slot: once the first channel (slot 0) was replaced by one in slot 1 and
 * a third took slot 0 again, new streams (top-level and their substreams)
 * must go to slot 0, and the older channel in slot 1 stays unused and
 * closes by FINISH under the running transfers.
 */
static void
test_newest_channel_by_creation(void)
{
	struct world_params wp;
	struct world *w;
	struct flow *f[4];
	uint64_t sids_old, sids_new;
	int older, newest;

	world_params_default(&wp, seed);
	w = world_create(&wp);
	world_flow_start(w, 20000, 20000, 0);
	world_run_until(w, 50 * SST_NSEC_PER_MSEC);
	older = replace_channel(w, &wp, 0); /* slot 0 closed and destroyed */
	CU_ASSERT_EQUAL_FATAL(older, 1);
	newest = world_add_channel(w, &wp);
	CU_ASSERT_EQUAL_FATAL(newest, 0); /* the slot is reused */
	for (int i = 0; i < 4; i++)
		f[i] = world_flow_start(w, 300000, 300000, 0);
	world_run_until(w, sim_now(w->sim) + 30 * SST_NSEC_PER_MSEC);
	CU_ASSERT_FATAL(f[0]->connected);
	world_substream_start(w, f[0], 200000, 100000);
	world_run_until(w, sim_now(w->sim) + 10 * SST_NSEC_PER_MSEC);
	chan_sids(w, older, &sids_old);
	chan_sids(w, newest, &sids_new);
	printf("\n  SIDs attached: %" PRIu64 " on the newest channel (slot %d), %" PRIu64
	       " on the older one (slot %d)\n",
		sids_new, newest, sids_old, older);
	CU_ASSERT_EQUAL(sids_old, 0);
	CU_ASSERT(sids_new >= 2 * 5);
	CU_ASSERT_EQUAL(w->flows_done, 1);
	/* The older channel carries nothing: it closes while the rest runs. */
	CU_ASSERT_EQUAL(sst_stream_chan_close(w->ep[0].chans[older], sim_now(w->sim)), 0);
	world_run_until(w, sim_now(w->sim) + 100 * SST_NSEC_PER_MSEC);
	CU_ASSERT_EQUAL(w->chans_closed[0], 2);
	CU_ASSERT_EQUAL(w->chans_closed[1], 2);
	world_kill_channel(w, older);
	CU_ASSERT_EQUAL(world_run(w, 60 * SST_NSEC_PER_SEC), 0);
	world_check_done(w);
	world_destroy(w);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_replace_many_times),
	SST_TEST(test_ctl_requeue),
	SST_TEST(test_newest_channel_by_creation),
	SST_TEST_END,
};

int
main(void)
{
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "sim_replace_%d", (int)getpid());
	if (world_eal_init(prefix) != 0)
		return 1;
	seed = sim_seed_from_env(0x5eedf00d);
	return sst_test_run("sim_replace", cases);
}
