/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What lib/stp needs of the worker (sst_worker.h): a peer's proven
 * identity for the policy, and moving the peer's channels to a module it
 * shipped. Both scan the worker's channels: control-plane calls, once per
 * exchange, never on the data path.
 */
#include <errno.h>
#include <string.h>

#include "sst_cc_driver.h"
#include "sst_channel.h"
#include "worker_internal.h"

static bool
chan_live(const struct worker_chan *wc)
{
	return wc->state == CHAN_LIVE || wc->state == CHAN_REPLACE_WANTED ||
	       wc->state == CHAN_REPLACING;
}

const uint8_t *
sst_worker_peer_identity(const struct sst_worker *w, const struct sst_stream_peer *sp)
{
	for (uint32_t i = 0; i < w->nchans; i++)
		if (w->chans[i]->peer != NULL && w->chans[i]->peer->sp == sp)
			return w->chans[i]->peer->id;
	return NULL;
}

int
sst_worker_peer_set_cc(struct sst_worker *w, const struct sst_stream_peer *sp,
	const struct sst_cc_ops *ops, sst_time_t now)
{
	int moved = 0;

	for (uint32_t i = 0; i < w->nchans; i++) {
		struct worker_chan *wc = w->chans[i];
		struct sst_channel *ch;
		struct sst_channel_info ci;

		if (wc->peer == NULL || wc->peer->sp != sp || !chan_live(wc))
			continue;
		ch = sst_stream_chan_channel(wc->sc);
		/* A channel already on it keeps its state (the module's scratch,
		 * its policer): asked again when a replacement channel came up,
		 * only the new channel moves. */
		sst_channel_info(ch, &ci);
		if (ops != NULL && ci.cc != NULL && strcmp(ci.cc, ops->name) == 0)
			continue;
		if (sst_channel_set_cc(ch, ops, now) == 0)
			moved++;
	}
	return moved > 0 ? moved : -ENOENT;
}
