/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen client: per-pass work in proportion to what there is to do, not
 * to the channels held (issue 21). One worker may hold 100,000 channels
 * (--port); walking them all on every pass (to find the ones that may
 * start a stream, and to see whether the run is over) took a quarter of
 * the client's CPU at 10,000 channels, and at 100,000 made each pass so
 * long that the memif rings overflowed both ways. So the channels that
 * may start a stream are on a run queue (added when they come up or a
 * slot frees, dropped when every slot is busy or every stream started),
 * and the run's end is read from counters of the channels by state and
 * of the live streams. All of it is per shard (a worker's channels), so
 * that workers on lcores of their own share none of it.
 */
#include <stdlib.h>

#include "gen_client.h"

void
gen_chan_set_state(struct gen_chan *ch, uint8_t st)
{
	struct gen_shard *sh = ch->sh;

	sh->nstate[ch->state]--;
	sh->nstate[st]++;
	ch->state = st;
}

int
gen_active_init(struct gen_shard *sh, bool queue)
{
	sh->nstate[CH_IDLE] = sh->nchans;
	sh->nrun = 0;
	if (!queue)
		return 0; /* a worker per channel polls its own channel */
	sh->runq = calloc(sh->nchans != 0 ? sh->nchans : 1, sizeof(*sh->runq));
	return sh->runq != NULL ? 0 : -1;
}

void
gen_active_fini(struct gen_shard *sh)
{
	free(sh->runq);
	sh->runq = NULL;
}

void
gen_active_add(struct gen_chan *ch)
{
	struct gen_shard *sh = ch->sh;

	if (ch->queued || sh->runq == NULL)
		return;
	ch->queued = true;
	sh->runq[sh->nrun++] = ch->id;
}

void
gen_active_poll(struct gen_shard *sh, sst_time_t now)
{
	struct gen_chan *all = sh->g->ch;
	uint32_t keep = 0, n = sh->nrun;

	/* Channels added during the walk (a stream that ends at once) are
	 * past n: walked next pass. */
	for (uint32_t i = 0; i < n; i++) {
		struct gen_chan *ch = &all[sh->runq[i]];

		ch->queued = false;
		/* Added again inside its own poll: it is past n already. */
		if (gen_chan_poll(ch, now) && !ch->queued) {
			ch->queued = true;
			sh->runq[keep++] = ch->id;
		}
	}
	/* What was added meanwhile moves down behind what stays. */
	for (uint32_t i = n; i < sh->nrun; i++)
		sh->runq[keep++] = sh->runq[i];
	sh->nrun = keep;
}

bool
gen_shard_done(const struct gen_shard *sh)
{
	bool stopping = atomic_load_explicit(&sh->g->stopping, memory_order_relaxed);

	if (sh->next < sh->nchans && !stopping)
		return false;
	/* Stopping: what is under way may end, nothing new starts; only live
	 * streams (all on channels that are up) are waited for. */
	if (stopping)
		return sh->live == 0;
	return sh->nstate[CH_CONNECTING] == 0 && sh->nstate[CH_UP] == 0;
}
