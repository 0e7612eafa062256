/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What happens to a channel over time, checked once per pass for each
 * (worker_chan_upkeep()): the idle timeout, silence, replacement before a
 * limit runs out, and the end of a retiring channel. The decisions only
 * set the channel's flags and times; channels end at the end of the pass
 * (sst_worker_poll()), outside every callback.
 */
#include <rte_common.h>

#include "worker_internal.h"

/*
 * Crossing replacements: both sides replaced one channel P at once (the
 * initiator's attempt took longer than the responder's grace), so two
 * successors come up, in either order on either side. Each side must keep
 * the same one, or each would move its streams to the channel the other
 * retires. The winner is the one negotiated by P's initiator: on each side
 * it is the successor whose role matches the role we had on P, which
 * successors remember (pred_initiator). wc, just established, loses to the
 * live channel when that one is such a winner and still fresh: a live
 * channel past half its numbers either way may be due for replacement
 * itself, and wc is then that replacement.
 */
bool
worker_crossing_loser(const struct worker_chan *wc, const struct worker_chan *live)
{
	struct sst_channel_info ci;

	if (!live->successor || live->replace_wanted || live->replacing ||
		live->initiator != live->pred_initiator || wc->initiator == live->pred_initiator)
		return false;
	sst_channel_info(sst_stream_chan_channel(live->sc), &ci);
	return ci.next_seq < ci.seq_limit / 2 && ci.rx_highest < ci.seq_limit / 2;
}

/* Idle timeout (issue 5): a channel no stream used for idle_timeout is
 * offered for closing; the peer agrees by FINISH when it has no stream on
 * it either, and the channel then ends without TIME_WAIT. */
static void
idle_check(struct sst_worker *w, struct worker_chan *wc, sst_time_t now)
{
	if (w->p.idle_timeout == SST_TIME_NEVER)
		return;
	if (!sst_stream_chan_unused(wc->sc)) {
		wc->idle_since = SST_TIME_NEVER;
		wc->idle_offered = false;
		wc->linger_until = 0;
		return;
	}
	if (wc->idle_since == SST_TIME_NEVER)
		wc->idle_since = now;
	if (!wc->idle_offered && now - wc->idle_since >= w->p.idle_timeout) {
		wc->idle_offered = true;
		w->stats.channels_idle++;
		/* A prototype peer has no FINISH: after that long idle, it goes. */
		if (sst_stream_chan_close(wc->sc, now) < 0)
			wc->closing = true;
	}
}

/*
 * Channel replacement (issue 5): a channel near the end of its sequence
 * space or of what its key may protect gets a successor negotiated to the
 * same endpoint, in the same mode, on this worker (so in a sharded engine
 * the answers come back here by our steering tag, and the peer's engine
 * takes our first message on the worker that holds its side already). When
 * the successor is up the streams move to it (nego_established()) and the
 * old channel retires: FINISH as soon as no stream uses it, so both sides
 * drop it without TIME_WAIT. A retiring channel that can no longer number
 * packets, or that has outlived RETIRE_GRACE (the peer never answered our
 * FINISH), ends here: what it still had in flight is resent on the new one.
 *
 * Both sides replacing one channel at once would cross: each would move
 * the streams to the channel it made last and retire the other's. So the
 * channel's initiator replaces it, for both directions: it sees the peer's
 * numbers too, and asks when either side's reach 7/8 of its limit. The
 * responder asks itself only if nothing came RESPONDER_GRACE plus a few
 * round trips after its own 7/8 (the peer allows more packets than we do,
 * or is a prototype that never replaces).
 */
static void
replace_check(struct sst_worker *w, struct worker_chan *wc, sst_time_t now)
{
	struct sst_channel_info ci;

	sst_channel_info(sst_stream_chan_channel(wc->sc), &ci);
	if (wc->initiator && !wc->retiring && !wc->replacing && !wc->replace_wanted &&
		ci.rx_highest >= ci.seq_limit - ci.seq_limit / 8) {
		wc->replace_wanted = true;
		wc->replace_not_before = 0;
	}
	if (wc->replace_wanted && wc->replace_not_before == SST_TIME_NEVER)
		wc->replace_not_before = now + RESPONDER_GRACE + 4 * ci.srtt;
	if (wc->replace_wanted && now >= wc->replace_not_before) {
		wc->replace_wanted = false;
		if (worker_connect_to(w, &wc->peer->at->ep, wc->mode, now) == 0) {
			wc->replacing = true;
			w->stats.channels_replaced++;
		} else {
			wc->replace_wanted = true;
			wc->replace_not_before = now + REPLACE_RETRY;
		}
	}
	if (!wc->retiring)
		return;
	if (wc->exhausted_until == 0 && sst_stream_chan_exhausted(wc->sc))
		wc->exhausted_until = now + 2 * ci.srtt + EXHAUSTED_LINGER;
	if (ci.next_seq >= ci.seq_limit || now >= wc->retire_by ||
		(wc->exhausted_until != 0 && now >= wc->exhausted_until)) {
		wc->closing = true;
	} else if (!wc->idle_offered && sst_stream_chan_unused(wc->sc)) {
		if (sst_stream_chan_close(wc->sc, now) == 0)
			wc->idle_offered = true;
		else
			wc->closing = true; /* a prototype peer: no FINISH to wait for */
	}
}

/*
 * Whose silence starts a new channel: the side that opened the first
 * channel to the peer (it can reach the peer), and either side toward a
 * peer that may be the 2007 prototype. That one renegotiates only when its
 * own data stalls: when it only receives it never migrates, so a channel
 * whose acknowledgments stopped advancing (its 16-bit record of our
 * numbers, wire-format.md 9.4, or anything else) would hang for good.
 */
static bool
silence_replaces(const struct worker_chan *wc)
{
	return wc->peer->we_initiated || sst_stream_peer_caps(wc->peer->sp) == SST_CAPS_LEGACY;
}

/*
 * Silence: data is in flight and the peer has acknowledged none of it for
 * SILENCE_MIN or four round trips. Our address may have changed under a
 * NAT, so that the peer drops what we send as coming from an endpoint it
 * does not know (worker.c has no other way to hear of it): the side that
 * opened the first channel to the peer, the one that can reach it,
 * negotiates a new channel, which the peer recognises by our host instance
 * (peer_for()) and to which the streams move. It also ends the wait on a
 * peer whose acknowledgments froze (the 2007 prototype stops acknowledging
 * after 65,535 packets of one channel), on either side (silence_replaces()).
 */
static void
silence_check(struct sst_worker *w, struct worker_chan *wc, sst_time_t now)
{
	struct sst_channel_info ci;

	if (!silence_replaces(wc) || wc->retiring || wc->replacing || wc->replace_wanted)
		return;
	sst_channel_info(sst_stream_chan_channel(wc->sc), &ci);
	if (ci.bytes_in_flight == 0 || ci.largest_acked != wc->acked_seen) {
		wc->acked_seen = ci.largest_acked;
		wc->acked_since = now;
		return;
	}
	if (now - wc->acked_since >= RTE_MAX(SILENCE_MIN, 4 * ci.srtt)) {
		wc->replace_wanted = true;
		wc->replace_not_before = now;
		wc->silent = true;
		w->stats.silences++;
	}
}

void
worker_chan_upkeep(struct sst_worker *w, struct worker_chan *wc, sst_time_t now)
{
	idle_check(w, wc, now);
	silence_check(w, wc, now);
	replace_check(w, wc, now);
	if (wc->linger_until != 0 && now >= wc->linger_until)
		wc->closing = true;
}

sst_time_t
worker_chan_upkeep_expiry(const struct sst_worker *w, const struct worker_chan *wc)
{
	sst_time_t t = SST_TIME_NEVER;

	if (wc->idle_since != SST_TIME_NEVER && !wc->idle_offered &&
		w->p.idle_timeout != SST_TIME_NEVER)
		t = sst_time_min(t, wc->idle_since + w->p.idle_timeout);
	if (wc->replace_wanted)
		t = sst_time_min(t, wc->replace_not_before);
	if (wc->retiring)
		t = sst_time_min(t, wc->retire_by);
	if (wc->exhausted_until != 0)
		t = sst_time_min(t, wc->exhausted_until);
	if (wc->linger_until != 0)
		t = sst_time_min(t, wc->linger_until);
	if (silence_replaces(wc) && !wc->retiring && !wc->replacing) {
		struct sst_channel_info ci;

		sst_channel_info(sst_stream_chan_channel(wc->sc), &ci);
		if (ci.bytes_in_flight > 0)
			t = sst_time_min(t, wc->acked_since + RTE_MAX(SILENCE_MIN, 4 * ci.srtt));
	}
	return t;
}
