/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Peers and channels over their lives (the states and their transitions
 * are drawn in worker_internal.h; docs/robustness.md tells an operator
 * what they mean). Everything here decides; nothing destroys: a channel
 * sent to ENDING is destroyed at the end of the pass (sst_worker_poll()),
 * outside every callback that may still hold it, and a peer without a
 * channel is freed there once its application let go of its streams.
 *
 * The checks run once per visit of a channel (worker_chan_upkeep()), and
 * worker_chan_upkeep_expiry() says when the next is due, so that a channel
 * nothing happens to is visited only when one of its clocks runs out.
 */
#include <inttypes.h>

#include <rte_common.h>
#include <rte_log.h>

#include "sst_log.h"
#include "worker_internal.h"

RTE_LOG_REGISTER(sst_logtype_worker, sst.worker, NOTICE);

static void
chan_set_state(struct sst_worker *w, struct worker_chan *wc, enum worker_chan_state state)
{
	wc->state = state;
	worker_chan_activate(w, wc);
}

void
worker_chan_end_soon(struct sst_worker *w, struct worker_chan *wc)
{
	chan_set_state(w, wc, CHAN_ENDING);
}

static bool
chan_live(const struct worker_chan *wc)
{
	return wc->state == CHAN_LIVE || wc->state == CHAN_REPLACE_WANTED ||
	       wc->state == CHAN_REPLACING;
}

static void
chan_want_replacement(struct sst_worker *w, struct worker_chan *wc, sst_time_t not_before)
{
	chan_set_state(w, wc, CHAN_REPLACE_WANTED);
	wc->replace_not_before = not_before;
}

static void
chan_retire(struct sst_worker *w, struct worker_chan *wc, sst_time_t by)
{
	/* A channel retiring already keeps the earlier of its two ends. */
	if (wc->state == CHAN_RETIRING && wc->retire_by < by)
		return;
	chan_set_state(w, wc, CHAN_RETIRING);
	wc->retire_by = by;
}

/* ---- Replacement ---- */

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
static bool
crossing_loser(const struct worker_chan *wc, const struct worker_chan *live)
{
	struct sst_channel_info ci;

	if (!live->successor || live->state != CHAN_LIVE ||
		live->initiator != live->pred_initiator || wc->initiator == live->pred_initiator)
		return false;
	sst_channel_info(sst_stream_chan_channel(live->sc), &ci);
	return ci.next_seq < ci.seq_limit / 2 && ci.rx_highest < ci.seq_limit / 2;
}

/* The channel to wc's peer its streams are on: the one not retiring. */
static struct worker_chan *
live_chan(const struct worker_chan *wc)
{
	struct worker_chan *o;

	TAILQ_FOREACH(o, &wc->peer->chans, peer_link)
		if (o != wc && chan_live(o))
			return o;
	return NULL;
}

void
worker_chan_established(struct sst_worker *w, struct worker_chan *wc, bool moved, sst_time_t now)
{
	struct worker_chan *live = live_chan(wc), *old;
	sst_time_t t;

	if (live != NULL && !moved && crossing_loser(wc, live)) {
		sst_stream_chan_migrate_all(wc->sc, live->sc, now);
		worker_event(wc, SST_EVENT_MIGRATED, now, live->number);
		sst_stream_chan_prefer(live->sc);
		worker_chan_activate(w, live);
		chan_retire(w, wc, now + RETIRE_GRACE);
		w->stats.channels_crossed++;
		return;
	}
	if (live != NULL) {
		wc->successor = true;
		/* The winner of a crossing carries on the family's tie-break. */
		wc->pred_initiator = live->successor && live->initiator != live->pred_initiator &&
						     wc->initiator == live->pred_initiator
					     ? live->pred_initiator
					     : live->initiator;
	}
	/* A new channel to a peer that has others (it moved, or one side
	 * replaces a channel running out of sequence space or key use, or
	 * that fell silent): the streams move here, and the old channels
	 * retire. */
	TAILQ_FOREACH(old, &wc->peer->chans, peer_link) {
		if (old == wc || old->state == CHAN_ENDING)
			continue;
		sst_stream_chan_migrate_all(old->sc, wc->sc, now);
		worker_event(old, SST_EVENT_MIGRATED, now, wc->number);
		if (old->state == CHAN_LINGERING)
			continue; /* closed already, and it ends soon */
		/* The peer left the old endpoint, or the old channel fell
		 * silent (we may have moved): nothing sent on it arrives any
		 * more, so no FINISH will be answered. It ends after a short
		 * grace (its streams' queued work moves over at its next
		 * flushes) rather than the long one; what it had in flight is
		 * resent on the new channel. */
		t = (moved && old->at != wc->at) || old->silent ? UNREACHABLE_GRACE : RETIRE_GRACE;
		chan_retire(w, old, now + t);
	}
}

void
worker_chan_replace_asked(struct sst_worker *w, struct worker_chan *wc)
{
	if (wc->state == CHAN_LIVE)
		chan_want_replacement(w, wc, wc->initiator ? 0 : SST_TIME_NEVER);
}

void
worker_peer_replace_failed(struct sst_worker *w, struct worker_peer *p, sst_time_t now)
{
	struct worker_chan *wc;

	/* Tried again, while the old channel still has numbers left. */
	TAILQ_FOREACH(wc, &p->chans, peer_link)
		if (wc->state == CHAN_REPLACING)
			chan_want_replacement(w, wc, now + REPLACE_RETRY);
}

/*
 * Channel replacement (issue 5): a channel near the end of its sequence
 * space or of what its key may protect gets a successor negotiated to the
 * same endpoint, in the same mode, on this worker (so in a sharded engine
 * the answers come back here by our steering tag, and the peer's engine
 * takes our first message on the worker that holds its side already). When
 * the successor is up the streams move to it (worker_chan_established())
 * and the old channel retires: FINISH as soon as no stream uses it, so
 * both sides drop it without TIME_WAIT. A retiring channel that can no
 * longer number packets, or that has outlived RETIRE_GRACE (the peer never
 * answered our FINISH), ends here: what it still had in flight is resent
 * on the new one.
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
replace_check(struct sst_worker *w, struct worker_chan *wc, const struct sst_channel_info *ci,
	sst_time_t now)
{
	if (wc->initiator && wc->state == CHAN_LIVE &&
		ci->rx_highest >= ci->seq_limit - ci->seq_limit / 8)
		chan_want_replacement(w, wc, 0);
	if (wc->state == CHAN_REPLACE_WANTED && wc->replace_not_before == SST_TIME_NEVER)
		wc->replace_not_before = now + RESPONDER_GRACE + 4 * ci->srtt;
	if (wc->state == CHAN_REPLACE_WANTED && now >= wc->replace_not_before) {
		if (worker_connect_to(w, &wc->peer->at->ep, wc->mode, now) == 0) {
			chan_set_state(w, wc, CHAN_REPLACING);
			w->stats.channels_replaced++;
			worker_event(wc, SST_EVENT_REPLACED, now, 0);
		} else {
			wc->replace_not_before = now + REPLACE_RETRY;
		}
	}
	if (wc->state != CHAN_RETIRING)
		return;
	if (wc->exhausted_until == 0 && sst_stream_chan_exhausted(wc->sc))
		wc->exhausted_until = now + 2 * ci->srtt + EXHAUSTED_LINGER;
	if (ci->next_seq >= ci->seq_limit || now >= wc->retire_by ||
		(wc->exhausted_until != 0 && now >= wc->exhausted_until)) {
		worker_chan_end_soon(w, wc);
	} else if (!wc->finish_offered && sst_stream_chan_unused(wc->sc)) {
		if (sst_stream_chan_close(wc->sc, now) == 0) {
			wc->finish_offered = true;
			wc->finish_offered_at = now;
		} else
			worker_chan_end_soon(w, wc); /* a prototype peer: no FINISH to wait for */
	}
}

/* ---- Idle channels ---- */

/* A checksum responder's channel its initiator never used (UNHEARD_IDLE). */
static bool
chan_unheard(const struct worker_chan *wc)
{
	return wc->unconfirmed && !wc->initiator && wc->mode == SST_NEGO_MODE_CHECKSUM;
}

/* Idle timeout (issue 5): a channel no stream used for idle_timeout is
 * offered for closing; the peer agrees by FINISH when it has no stream on
 * it either, and the channel then ends without TIME_WAIT. One never heard
 * from ends after UNHEARD_IDLE whatever was offered: no one will agree. */
static void
idle_check(struct sst_worker *w, struct worker_chan *wc, sst_time_t now)
{
	if (w->p.idle_timeout == SST_TIME_NEVER)
		return;
	if (!sst_stream_chan_unused(wc->sc)) {
		wc->idle_since = SST_TIME_NEVER;
		wc->finish_offered = false;
		if (wc->state == CHAN_LINGERING)
			chan_set_state(w, wc, CHAN_LIVE);
		return;
	}
	if (wc->idle_since == SST_TIME_NEVER)
		wc->idle_since = now;
	if (w->closing && !wc->finish_offered && wc->state == CHAN_LIVE) {
		worker_chan_close_idle(w, wc, now);
		return;
	}
	if (chan_unheard(wc) && now - wc->idle_since >= UNHEARD_IDLE) {
		w->stats.channels_unheard++;
		worker_chan_end_soon(w, wc);
		return;
	}
	if (wc->finish_offered && wc->state != CHAN_LINGERING &&
		now - wc->finish_offered_at >= FINISH_WAIT) {
		worker_chan_end_soon(w, wc);
		return;
	}
	if (!wc->finish_offered && now - wc->idle_since >= w->p.idle_timeout) {
		wc->finish_offered = true;
		wc->finish_offered_at = now;
		w->stats.channels_idle++;
		/* A prototype peer has no FINISH: after that long idle, it goes. */
		if (sst_stream_chan_close(wc->sc, now) < 0)
			worker_chan_end_soon(w, wc);
	}
}

void
worker_chan_close_idle(struct sst_worker *w, struct worker_chan *wc, sst_time_t now)
{
	if (wc->finish_offered || wc->state == CHAN_ENDING || !sst_stream_chan_unused(wc->sc))
		return;
	wc->finish_offered = true;
	wc->finish_offered_at = now;
	worker_chan_activate(w, wc);
	if (sst_stream_chan_close(wc->sc, now) < 0) {
		/* A prototype peer: no FINISH to wait for. */
		sst_channel_flush_ack(sst_stream_chan_channel(wc->sc), now);
		chan_set_state(w, wc, CHAN_LINGERING);
		wc->linger_until = now + PROTOTYPE_LINGER;
	}
}

/* ---- Silence and death ---- */

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
 * Silence: the peer has acknowledged none of our packets for SILENCE_MIN
 * or four round trips, while data of ours was in flight through
 * SILENCE_RTOS retransmission timeouts, or while only our acknowledgments
 * were and the peer kept sending (SILENCE_HEARD packets, counted from
 * half that time on: what it sent before it could have heard us does not
 * count). Every packet the peer sends acknowledges the highest of ours it
 * received, so a peer that goes on sending without acknowledging ours does
 * not hear us. Our address may have changed under a
 * NAT, so that the peer drops what we send as coming from an endpoint it
 * does not know (worker.c has no other way to hear of it): the side that
 * opened the first channel to the peer, the one that can reach it,
 * negotiates a new channel, which the peer recognises by our host instance
 * (peer_for()) and to which the streams move. It also ends the wait on a
 * peer whose acknowledgments froze (the 2007 prototype stops acknowledging
 * after 65,535 packets of one channel), on either side (silence_replaces()).
 *
 * The second case is a side that only receives when its address changes:
 * a client whose upload waits for credit while the server's echo waits for
 * acknowledgments the server drops. Nothing of the client's data is in
 * flight, so the first case never comes, and both waited for the server's
 * dead-peer timeout (the matrix's nat_rebinding case stalled so).
 */
static void
silence_check(struct sst_worker *w, struct worker_chan *wc, const struct sst_channel_info *ci,
	sst_time_t now)
{
	sst_time_t stalled, limit;
	uint64_t rtos, heard;

	if (!silence_replaces(wc) || wc->state != CHAN_LIVE)
		return;
	rtos = sst_channel_stats(sst_stream_chan_channel(wc->sc))->rto;
	heard = sst_channel_stats(sst_stream_chan_channel(wc->sc))->rx_packets;
	if ((ci->bytes_in_flight == 0 && ci->ack_only_in_flight == 0) ||
		ci->largest_acked != wc->acked_seen) {
		wc->acked_seen = ci->largest_acked;
		wc->acked_since = now;
		wc->rtos_seen = rtos;
		wc->heard_seen = heard;
		wc->heard_counting = false;
		return;
	}
	stalled = now - wc->acked_since;
	limit = RTE_MAX(SILENCE_MIN, 4 * ci->srtt);
	if (!wc->heard_counting && stalled >= limit / 2) {
		wc->heard_seen = heard;
		wc->heard_counting = true;
	}
	if (stalled < limit)
		return;
	if ((ci->bytes_in_flight > 0 && rtos - wc->rtos_seen >= SILENCE_RTOS) ||
		(wc->heard_counting && heard - wc->heard_seen >= SILENCE_HEARD)) {
		chan_want_replacement(w, wc, now);
		wc->silent = true;
		w->stats.silences++;
	}
}

/* When the peer of wc is dead unless it is heard from; NEVER while
 * nothing waits for it. */
static sst_time_t
dead_at(const struct sst_worker *w, const struct worker_chan *wc)
{
	if (wc->waiting_since == SST_TIME_NEVER || w->p.dead_peer_timeout == SST_TIME_NEVER)
		return SST_TIME_NEVER;
	return RTE_MAX(wc->peer->last_heard, wc->waiting_since) + w->p.dead_peer_timeout;
}

/*
 * Keepalive: a channel that carries streams and has nothing in flight
 * hears nothing from a peer that vanished (a client killed after all our
 * answers were acknowledged, its stream still open), and would hold the
 * peer for good. So would a channel with no stream when the idle timeout
 * is off (an application whose clients keep channels idle between rounds):
 * a client gone without FINISH left it open for ever. Half a
 * dead_peer_timeout after the peer was last heard (or probed), such a
 * channel asks it to answer (sst_stream_chan_probe()); the probe is then
 * data waiting for the peer. NEVER: no streams while the idle timeout
 * reclaims such channels, or traffic, or no dead-peer detection.
 */
static sst_time_t
keepalive_at(const struct sst_worker *w, const struct worker_chan *wc)
{
	if (w->p.dead_peer_timeout == SST_TIME_NEVER || wc->state != CHAN_LIVE ||
		wc->waiting_since != SST_TIME_NEVER ||
		(sst_stream_chan_unused(wc->sc) && w->p.idle_timeout != SST_TIME_NEVER))
		return SST_TIME_NEVER;
	return RTE_MAX(wc->peer->last_heard, wc->probed_at) + w->p.dead_peer_timeout / 2;
}

/*
 * The peer crashed, or the path to it is gone for good: nothing
 * authenticated came from it for dead_peer_timeout while our data waited
 * for it (retransmission alone would go on forever, backing off to one
 * packet a minute). Silence replacement, on the side that can reach the
 * peer, had its chance first: it begins after a second or so. A peer that
 * is quiet while we have nothing for it is not dead, only idle (the idle
 * timeout closes its channels). ci: the channel's figures. True when it
 * probed the peer or failed it, which changes them.
 */
static bool
dead_peer_check(struct sst_worker *w, struct worker_chan *wc, const struct sst_channel_info *ci,
	sst_time_t now)
{
	struct worker_peer *p = wc->peer;
	struct worker_chan *o;

	/* Our data waits for the peer when it is sent and not acknowledged.
	 * (Data queued behind a closed receive window does not count: a live
	 * peer that does not read need not say anything.) */
	if (ci->bytes_in_flight == 0) {
		wc->waiting_since = SST_TIME_NEVER;
		if (now >= keepalive_at(w, wc) && sst_stream_chan_probe(wc->sc) == 0) {
			wc->probed_at = now;
			w->stats.keepalives++;
			return true;
		}
		return false;
	}
	if (wc->waiting_since == SST_TIME_NEVER)
		wc->waiting_since = now;
	if (p->state == PEER_DEAD || now < dead_at(w, wc))
		return false;
	p->state = PEER_DEAD;
	w->stats.dead_peers++;
	TAILQ_FOREACH(o, &p->chans, peer_link)
		worker_chan_end_soon(w, o);
	sst_stream_peer_fail(p->sp, SST_STREAM_TIMED_OUT, now);
	return true;
}

/* Channels worker_peer_evict_idle() looks at for one new peer: a bounded
 * cost per refused peer, even under a flood of them. */
enum { EVICT_SCAN = 64 };

/*
 * max_peers is reached and one more host has negotiated a channel. A peer
 * that holds no stream and has not used its channels (idle_since) is only
 * taking room: the one idle longest among the next EVICT_SCAN channels
 * makes way. Its channels end without FINISH (there is no time to wait for
 * it); if it comes back it negotiates again, as after an idle timeout.
 */
bool
worker_peer_evict_idle(struct sst_worker *w)
{
	struct worker_chan *best = NULL, *o;
	struct worker_peer *p;

	for (uint32_t k = 0; k < EVICT_SCAN && k < w->nchans; k++) {
		struct worker_chan *wc;

		w->evict_cursor = w->evict_cursor + 1 < w->nchans ? w->evict_cursor + 1 : 0;
		wc = w->chans[w->evict_cursor];
		if (wc->state != CHAN_LIVE || wc->idle_since == SST_TIME_NEVER ||
			wc->peer->state != PEER_CONNECTED ||
			sst_stream_peer_streams(wc->peer->sp) != 0)
			continue;
		if (best == NULL || wc->idle_since < best->idle_since)
			best = wc;
	}
	if (best == NULL)
		return false;
	p = best->peer;
	p->state = PEER_EVICTED;
	w->npeers_leaving++;
	w->stats.peers_evicted++;
	TAILQ_FOREACH(o, &p->chans, peer_link)
		worker_chan_end_soon(w, o);
	return true;
}

void
worker_peer_restarted(struct sst_worker *w, struct worker_peer *p, sst_time_t now)
{
	struct worker_chan *wc;

	w->stats.restarts++;
	TAILQ_FOREACH(wc, &p->chans, peer_link)
		worker_chan_end_soon(w, wc);
	sst_stream_peer_abort(p->sp, now);
}

void
worker_chan_upkeep(struct sst_worker *w, struct worker_chan *wc, sst_time_t now)
{
	const struct sst_channel *ch = sst_stream_chan_channel(wc->sc);
	struct sst_channel_info ci;

	if (wc->state == CHAN_ENDING)
		return;
	idle_check(w, wc, now);
	/* The channel's figures once a visit (each read fills the whole
	 * struct), again only when a check sent something or failed the
	 * peer in between. */
	sst_channel_info(ch, &ci);
	silence_check(w, wc, &ci, now);
	if (dead_peer_check(w, wc, &ci, now))
		sst_channel_info(ch, &ci);
	replace_check(w, wc, &ci, now);
	if (wc->state == CHAN_LINGERING && now >= wc->linger_until)
		worker_chan_end_soon(w, wc);
}

sst_time_t
worker_chan_upkeep_expiry(const struct sst_worker *w, const struct worker_chan *wc)
{
	sst_time_t t = sst_time_min(dead_at(w, wc), keepalive_at(w, wc));

	if (wc->idle_since != SST_TIME_NEVER && !wc->finish_offered &&
		w->p.idle_timeout != SST_TIME_NEVER)
		t = sst_time_min(t, wc->idle_since + w->p.idle_timeout);
	if (wc->idle_since != SST_TIME_NEVER && chan_unheard(wc))
		t = sst_time_min(t, wc->idle_since + UNHEARD_IDLE);
	if (wc->finish_offered && wc->state != CHAN_LINGERING)
		t = sst_time_min(t, wc->finish_offered_at + FINISH_WAIT);
	switch (wc->state) {
	case CHAN_REPLACE_WANTED:
		t = sst_time_min(t, wc->replace_not_before);
		break;
	case CHAN_RETIRING:
		t = sst_time_min(t, wc->retire_by);
		if (wc->exhausted_until != 0)
			t = sst_time_min(t, wc->exhausted_until);
		break;
	case CHAN_LINGERING:
		t = sst_time_min(t, wc->linger_until);
		break;
	default:
		break;
	}
	if (silence_replaces(wc) && wc->state == CHAN_LIVE) {
		struct sst_channel_info ci;

		sst_channel_info(sst_stream_chan_channel(wc->sc), &ci);
		if (ci.bytes_in_flight > 0)
			t = sst_time_min(t, wc->acked_since + RTE_MAX(SILENCE_MIN, 4 * ci.srtt));
	}
	return t;
}

/* ---- Refusals, logged once per interval ---- */

void
worker_refusals_log(struct sst_worker *w, sst_time_t now)
{
	const struct sst_stream_host_stats *ss;
	const struct sst_nego_stats *ns;

	if (now < w->refusals_log_at)
		return;
	w->refusals_log_at = now + REFUSALS_LOG_INTERVAL;
	ss = sst_stream_host_stats(w->sh);
	ns = sst_nego_stats(w->nego);
	const uint64_t now_counts[RTE_DIM(w->refusals_logged)] = {
		w->stats.peers_full,
		w->stats.numbers_exhausted,
		w->stats.dead_peers,
		ss->peer_streams_refused,
		ss->peer_buffers_refused,
		ss->no_stream,
		ns->rx_rate_limited,
		ns->rx_i1_refused_full + ns->rx_sec_i1_refused,
		ns->rx_i1_legacy,
		ns->rx_i1_challenged + ns->rx_sec_i1_challenged,
	};
	uint64_t d[RTE_DIM(w->refusals_logged)];
	bool any = false;

	for (size_t i = 0; i < RTE_DIM(d); i++) {
		d[i] = now_counts[i] - w->refusals_logged[i];
		any |= d[i] != 0;
		w->refusals_logged[i] = now_counts[i];
	}
	if (!any)
		return;
	/* One line for all of it: a flood or a hog must not flood the log. */
	WORKER_LOG(NOTICE,
		"%d: refused in the last %us or so: %" PRIu64 " peers (max_peers), %" PRIu64
		" channels (255 numbers of an endpoint), %" PRIu64 " dead peers, %" PRIu64
		" streams and %" PRIu64 " buffers over a peer's share, %" PRIu64
		" streams (no control block), %" PRIu64 " setups rate-limited, %" PRIu64
		" setups refused, %" PRIu64 " legacy setups dropped and %" PRIu64
		" challenged under load",
		w->id, (unsigned int)(REFUSALS_LOG_INTERVAL / SST_NSEC_PER_SEC), d[0], d[1], d[2],
		d[3], d[4], d[5], d[6], d[7], d[8], d[9]);
}
