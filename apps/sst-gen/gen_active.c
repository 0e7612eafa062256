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
 * of the live streams.
 */
#include <stdlib.h>

#include "gen_client.h"

void
gen_chan_set_state(struct gen_chan *ch, uint8_t st)
{
	struct gen_client *g = ch->g;

	g->nstate[ch->state]--;
	g->nstate[st]++;
	ch->state = st;
}

int
gen_active_init(struct gen_client *g, bool queue)
{
	g->nstate[CH_IDLE] = g->nch;
	g->nrun = 0;
	if (!queue)
		return 0; /* a worker per channel polls its own channel */
	g->runq = calloc(g->nch != 0 ? g->nch : 1, sizeof(*g->runq));
	return g->runq != NULL ? 0 : -1;
}

void
gen_active_fini(struct gen_client *g)
{
	free(g->runq);
	g->runq = NULL;
}

void
gen_active_add(struct gen_chan *ch)
{
	struct gen_client *g = ch->g;

	if (ch->queued || g->runq == NULL)
		return;
	ch->queued = true;
	g->runq[g->nrun++] = ch->id;
}

void
gen_active_poll(struct gen_client *g, sst_time_t now)
{
	uint32_t keep = 0, n = g->nrun;

	/* Channels added during the walk (a stream that ends at once) are
	 * past n: walked next pass. */
	for (uint32_t i = 0; i < n; i++) {
		struct gen_chan *ch = &g->ch[g->runq[i]];

		ch->queued = false;
		/* Added again inside its own poll: it is past n already. */
		if (gen_chan_poll(ch, now) && !ch->queued) {
			ch->queued = true;
			g->runq[keep++] = ch->id;
		}
	}
	/* What was added meanwhile moves down behind what stays. */
	for (uint32_t i = n; i < g->nrun; i++)
		g->runq[keep++] = g->runq[i];
	g->nrun = keep;
}

bool
gen_client_all_done(const struct gen_client *g)
{
	if (g->next_connect < g->nch && !g->stopping)
		return false;
	/* Stopping: what is under way may end, nothing new starts; only live
	 * streams (all on channels that are up) are waited for. */
	if (g->stopping)
		return g->live == 0;
	return g->nstate[CH_CONNECTING] == 0 && g->nstate[CH_UP] == 0;
}
