/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A channel's transmit SIDs for our streams: which channel of a peer new
 * streams use, taking a SID (detaching an idle stream when the space is
 * full), the streams waiting for one, and the SIDs of streams that moved
 * to another channel.
 */
#include <errno.h>

#include "stream_chan_sids.h"
#include "stream_chan_finish.h"
#include "stream_ctl.h"
#include "stream_life.h"

struct sst_stream_chan *
stream_peer_chan(struct sst_stream_peer *p)
{
	struct sst_stream_chan *newest = NULL;

	/* The newest live channel: migration moves streams forward, and a
	 * replaced one, still emptying, gets no new streams. */
	for (int i = 0; i < STREAM_PEER_CHANS_MAX; i++) {
		struct sst_stream_chan *c = p->chans[i];

		if (c != NULL && !c->dead && (newest == NULL || stream_chan_newer(c, newest)))
			newest = c;
	}
	return newest;
}

/*
 * A quiet SID normally belonged to a stream that finished: whatever still
 * arrives for it is a spurious retransmission, acknowledged and dropped. A
 * SID whose stream moved to another channel is different: the data still
 * arriving for it is refused so the sender resends it where the stream is.
 * The mark is kept in the SID's quiet entry, not in a ring of the last few:
 * a replacement moves every stream of a channel at once, and a late
 * segment of one that fell out of a ring of 16 was acknowledged and
 * dropped, a hole its sender never filled (its stream stalled for good,
 * the data behind the hole refused on the new channel).
 */
void
stream_chan_moved(struct sst_stream_chan *c, uint16_t sid)
{
	sst_sid_mark_moved(c->rx_sids, sid);
}

bool
stream_chan_was_moved(const struct sst_stream_chan *c, uint16_t sid)
{
	return sst_sid_quiet_moved(c->rx_sids, sid);
}

/*
 * A channel's SID space bounds the streams attached to it at once, not the
 * streams that exist (paper 4.3.7: LSIDs are a cache of attachments). When
 * it is full, an idle stream of ours (nothing queued or in flight) gives its
 * SID up with a Detach and re-attaches by Attach when it next sends. Only
 * peers that understand Detach; the search is bounded per call.
 */
bool
stream_chan_detach_idle(struct sst_stream_chan *c, const struct sst_stream *keep)
{
	struct sst_stream_peer *p = c->peer;

	if (!stream_peer_can(p, SST_CAP_DETACH))
		return false;
	for (uint32_t i = 0; i < 256; i++) {
		struct sst_stream *s = p->usids[c->detach_cursor];

		c->detach_cursor = (c->detach_cursor + 1) & p->usid_mask;
		if (s == NULL || s == keep || s->tx_chan != c || s->tx != NULL ||
			!stream_tx_attached_acked(s) || stream_is_ended(s) ||
			(s->flags & SF_IN_CTL_QUEUE))
			continue;
		stream_give_up_tx_sid(s, STREAM_CODE_DETACH);
		s->peer_knows = true;
		c->stats.idle_detaches++;
		return true;
	}
	return false;
}

static void
sid_wait(struct sst_stream_chan *c, struct sst_stream *s)
{
	if ((s->flags & SF_IN_SID_WAITERS) || stream_is_root(s))
		return;
	s->flags |= SF_IN_SID_WAITERS;
	stream_ref(s);
	stream_queue_push(&c->sid_waiters, c->peer->host->sidw_next, s);
	stream_chan_wants_flush(c);
}

/* A few waiting streams try again at each flush. */
void
stream_chan_sid_waiters_wake(struct sst_stream_chan *c, sst_time_t now)
{
	struct sst_stream_host *h = c->peer->host;

	for (uint32_t n = RTE_MIN(c->sid_waiters.count, 8u); n > 0; n--) {
		struct sst_stream *s = stream_queue_pop(&c->sid_waiters, h->sidw_next, h);

		s->flags &= ~SF_IN_SID_WAITERS;
		if (s->flags & SF_ATTACH_DUE)
			stream_ctl_queue(s);
		stream_tx_wake(s);
		stream_unref(s, now);
	}
}

/*
 * Take a transmit SID for s: when the space is full (at max_sids, or it
 * could not grow), an idle stream gives its SID up first. Room for the
 * Detach or Reset that will one day give the new SID up is reserved in the
 * ring of codes owed before (so that a code holding a SID always fits);
 * without it the SID is refused as when the space is full.
 * Returns 0 or sst_sid_alloc()'s error.
 */
int
stream_chan_sid_take(struct sst_stream_chan *c, struct sst_stream *s, uint64_t *counter)
{
	uint32_t held = sst_sid_space_stats(c->tx_sids)->attached + 1;
	int rc = stream_chan_codes_reserve(c, held + STREAM_CODES_STATELESS) < 0
			 ? -ENOSPC
			 : sst_sid_alloc(c->tx_sids, s, &s->tx_sid, counter);

	if (rc == -ENOSPC && stream_chan_detach_idle(c, s))
		rc = sst_sid_alloc(c->tx_sids, s, &s->tx_sid, counter);
	return rc;
}

int
stream_chan_sid_alloc(struct sst_stream_chan *c, struct sst_stream *s, uint64_t *counter)
{
	int rc = stream_chan_sid_take(c, s, counter);

	if (rc < 0)
		sid_wait(c, s);
	else
		stream_chan_busy(c);
	return rc;
}
