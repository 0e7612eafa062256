/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stream layer's receive path: every authenticated packet of a channel
 * comes here (sst_channel_upper.receive) starting at its stream header.
 *
 * A packet whose data cannot be buffered (no buffers, beyond the window,
 * for a SID that is being attached elsewhere) is refused
 * (SST_CHANNEL_RX_REFUSE): the channel then does not acknowledge it and the
 * sender resends its data (paper 4.2.4). Everything else is acknowledged,
 * including packets we ignore on purpose, so that nothing is resent
 * forever.
 */
#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

#include "sst_seq.h"
#include "stream_rx.h"
#include "stream_app.h"
#include "stream_chan_finish.h"
#include "stream_chan_sids.h"
#include "stream_ctl.h"
#include "stream_life.h"
#include "stream_usid.h"

static enum sst_channel_rx_verdict
refuse(struct sst_stream_chan *c, struct rte_mbuf *m)
{
	c->peer->host->stats.rx_refused++;
	rte_pktmbuf_free(m);
	return SST_CHANNEL_RX_REFUSE;
}

static enum sst_channel_rx_verdict
drop(uint64_t *counter, struct rte_mbuf *m, bool eliciting)
{
	(*counter)++;
	rte_pktmbuf_free(m);
	return eliciting ? SST_CHANNEL_RX_NEEDS_ACK : SST_CHANNEL_RX_ACCEPT;
}

/* A packet for a SID in its quiet period (stream_chan_moved()), or for one
 * a stream this side let go had (sst_sid_used_before()). Only in the quiet
 * period can it be a moved stream's, refused to be resent where the stream
 * is now: after it the peer knew of the move for a replay window, and the
 * ring of moved SIDs, 16 bits each, names SIDs of earlier laps too (a late
 * segment of a finished stream whose SID matched one was refused for good,
 * and its stream never finished). */
static enum sst_channel_rx_verdict
stale(struct sst_stream_chan *c, uint16_t sid, struct rte_mbuf *m)
{
	if (sst_sid_is_quiet(c->rx_sids, sid) && stream_chan_was_moved(c, sid))
		return refuse(c, m);
	return drop(&c->peer->host->stats.rx_stale, m, true);
}

/* A packet for a SID we never heard of: tell peers that understand it. */
static enum sst_channel_rx_verdict
unknown_sid(struct sst_stream_chan *c, uint16_t sid, uint32_t orient, struct rte_mbuf *m)
{
	struct sst_stream_host *h = c->peer->host;

	if (stream_peer_can(c->peer, SST_CAP_RESET)) {
		stream_chan_queue_code(c, sid | orient);
		h->stats.stateless_resets++;
	}
	return drop(&h->stats.rx_unknown_sid, m, true);
}

static void
peer_window(struct sst_stream *s, uint64_t seq, uint8_t window)
{
	window &= SST_WINDOW_EXP_MASK;
	if (s->tx == NULL) {
		s->tx_window = window;
		return;
	}
	if (sst_flowctl_tx_on_window(&s->tx->fc, seq, window) == 1 &&
		sst_flowctl_tx_allowance(&s->tx->fc) > 0)
		stream_tx_wake(s);
}

/* Attach the peer's SID for s on c, replacing an attachment elsewhere. */
static int
attach_rx(struct sst_stream_chan *c, struct sst_stream *s, uint16_t sid)
{
	uint64_t counter;
	bool moved = false;
	int rc;

	if (stream_rx_bound(s) && s->rx_chan == c && s->rx_sid == sid)
		return 0;
	rc = sst_sid_attach(c->rx_sids, sid, s, &counter);
	if (rc < 0)
		return rc;
	stream_chan_busy(c);
	if (stream_rx_bound(s) && s->rx_chan != NULL && !s->rx_chan->dead) {
		/* Late packets for the old attachment are refused (the sender
		 * resends them here) until its quiet period ends. */
		stream_sid_quiet(s->rx_chan, s->rx_chan->rx_sids, s->rx_sid, false);
		stream_chan_moved(s->rx_chan, s->rx_sid);
	}
	if (s->rx_chan != c && s->rx != NULL) {
		/* Sequence numbers start over on another channel: adverts and
		 * probes are ordered by the new channel's numbers from now on. */
		s->rx->fc.advertised = false;
		s->rx->fc.probing = false;
		s->rx->fc.round_acked = false;
	}
	/* The peer orders window updates by this channel's numbers from its
	 * Attach on: adverts sent elsewhere (on the old channel, or in our own
	 * Attach, which it cannot order) may never count, and a sender left
	 * with too little credit would wait for good. Advertise here. */
	if (s->rx_chan != c) {
		stream_ctl_moving(s);
		if (!(stream_is_reset(s) || stream_recv_eof(s))) {
			s->flags |= SF_WINDOW_DUE;
			moved = true;
		}
	}
	s->rx_chan = c;
	s->rx_sid = sid;
	if (!stream_rx_bound(s))
		stream_set_rx_attach(s, STREAM_RX_ATTACHED);
	if (moved)
		stream_ctl_queue(s);
	return 0;
}

/* Data of an Init, Reply or Data packet for s at stream offset off. */
static enum sst_channel_rx_verdict
deliver(struct sst_stream_chan *c, struct sst_stream *s, uint64_t off,
	const struct sst_stream_hdr *hdr, struct rte_mbuf *m, uint64_t seq, sst_time_t now)
{
	struct stream_rxio *rx;
	uint32_t len = rte_pktmbuf_pkt_len(m);
	int rc;

	peer_window(s, seq, hdr->window);
	if (stream_is_ended(s) || stream_recv_eof(s)) {
		rte_pktmbuf_free(m);
		return SST_CHANNEL_RX_NEEDS_ACK;
	}
	if (stream_rx_buffers(s) < 0)
		return refuse(c, m);
	rx = s->rx;
	if (sst_flowctl_rx_check(&rx->fc, off, len) == SST_FLOWCTL_DROP)
		return refuse(c, m);
	/* Posing as the prototype's reader, a Close on data goes unseen
	 * (rx_data_flags). */
	rc = sst_rob_insert(
		&rx->rob, off, m, len > 0 ? hdr->flags & c->peer->host->rx_data_flags : hdr->flags);
	if (rc == -EPROTO || rc == -EINVAL) {
		/* Data past its own end, or two different ends. */
		c->peer->host->stats.rx_malformed++;
		stream_do_reset(s, SST_STREAM_RESET_REMOTE, true, now);
		return SST_CHANNEL_RX_NEEDS_ACK;
	}
	if (rc < 0) {
		c->peer->host->stats.rx_refused++;
		return SST_CHANNEL_RX_REFUSE;
	}
	c->last_rx_sid = s->rx_sid;
	s->rx_recent = true;
	stream_rx_fc_update(s);
	if (sst_rob_readable(&rx->rob) > 0 || sst_rob_eof(&rx->rob))
		stream_rx_deliverable(s, now);
	if (s->rx != NULL && !(s->flags & SF_WINDOW_DUE) &&
		(sst_flowctl_rx_update_due(&s->rx->fc) ||
			(s->life == STREAM_PENDING_ACCEPT &&
				sst_flowctl_rx_edge_due(&s->rx->fc)))) {
		s->flags |= SF_WINDOW_DUE;
		stream_ctl_queue(s);
	}
	return SST_CHANNEL_RX_NEEDS_ACK;
}

/* Put a new stream of the peer where the application will find it. */
static void
offer(struct sst_stream *parent, struct sst_stream *s, sst_time_t now)
{
	const struct sst_stream_ops *ops = s->peer->host->p.ops;
	struct stream_rxio *prx;

	RTE_SET_USED(now);
	if (stream_is_root(parent))
		return; /* top-level: offered once its service request is in */
	prx = parent->rx;
	s->link = NULL;
	s->user = parent; /* until accepted: whom to tell when it completes */
	if (prx->accept_tail != NULL)
		prx->accept_tail->link = s;
	else
		prx->accept_head = s;
	prx->accept_tail = s;
	if (ops != NULL && ops->accepted != NULL && stream_app_holds(parent))
		ops->accepted(s->peer->host->p.ctx, parent, s, NULL, now);
}

/* The peer may create another stream: it holds less than its share of
 * control blocks (sst_stream_host_params.peer_max_streams). */
static bool
peer_share_left(struct sst_stream_chan *c)
{
	struct sst_stream_host *h = c->peer->host;

	if (c->peer->nstreams - c->peer->nours < h->p.peer_max_streams)
		return true;
	h->stats.peer_streams_refused++;
	return false;
}

/* A stream the peer creates, by Init or by Attach with the Init flag. */
static struct sst_stream *
new_stream(struct sst_stream_chan *c, struct sst_stream *parent, uint16_t sid, uint8_t window,
	sst_time_t now)
{
	struct sst_stream_host *h = c->peer->host;
	struct sst_stream *s;
	uint64_t counter;
	bool top = stream_is_root(parent);

	/* A parent the application has not taken yet (its rendezvous or its
	 * accept is pending) keeps its children until it can decide. */
	bool pending = parent->life == STREAM_PENDING_ACCEPT ||
		       parent->life == STREAM_PENDING_REPLY || stream_service_waiting(parent);

	if (stream_is_reset(parent) || (!parent->listening && !pending) ||
		(!top && stream_rx_buffers(parent) < 0) || !peer_share_left(c))
		return NULL;
	s = stream_alloc(c->peer, STREAM_PEERS,
		top ? STREAM_PENDING_SERVICE : STREAM_PENDING_ACCEPT,
		top ? STREAM_SERVICE_WAITING : STREAM_SERVICE_NONE);
	if (s == NULL)
		return NULL;
	if (sst_sid_attach(c->rx_sids, sid, s, &counter) < 0) {
		s->refs = 0;
		c->peer->nstreams--;
		stream_slab_put(h, s);
		return NULL;
	}
	stream_chan_busy(c);
	s->usid_counter = counter;
	s->hcid = c->peer_hcid;
	s->peer_knows = true;
	s->rx_chan = c;
	s->tx_chan = c; /* we answer where it arrived */
	s->rx_sid = sid;
	stream_set_rx_attach(s, STREAM_RX_ATTACHED);
	s->tx_window = window & SST_WINDOW_EXP_MASK;
	s->prio = top ? 0 : parent->prio;
	if (stream_usid_insert(c->peer, s) < 0) {
		stream_set_life(s, STREAM_ABANDONED);
		stream_do_reset(s, SST_STREAM_ABORTED, true, now);
		stream_unref(s, now);
		return NULL;
	}
	h->stats.streams_accepted += top ? 0 : 1;
	/* The first reference is the accept queue's, or the rendezvous'
	 * until the service takes the stream. */
	offer(parent, s, now);
	return s;
}

/*
 * At most once (paper 4.3.4: a USID names one stream for good). An Init on
 * c names the stream (c's peer half-channel ID, the SID's counter); the
 * peer may have moved that stream to another channel before it heard that
 * the Init arrived, with an Attach that carries Init, and that Attach may
 * arrive first (the Init delayed on its path, or in a busy worker's
 * queue). The stream exists then, attached elsewhere: the Init is refused,
 * so that the peer resends its bytes on the stream's channel, and no second
 * stream is made (whose application would answer the request twice).
 */
static bool
init_names_attached(struct sst_stream_chan *c, uint16_t sid)
{
	uint64_t counter;

	return sst_seq_expand(c->rx_sids->counter, sid, SST_SID_BITS, &counter) == 0 &&
	       stream_usid_find(c->peer, counter, c->peer_hcid) != NULL;
}

/*
 * The stream s was made by an Attach with Init whose USID names the peer's
 * half of another channel of ours, born (hcid index idx, counter): its Init
 * may still arrive there, after s ended and was forgotten, when
 * init_names_attached() no longer finds it. Its SID there is taken and put
 * at once in the quiet period of a stream that ended, as late_attach()
 * does, so that the Init is dropped as stale. Nothing is done when no
 * channel of ours has that half, or the SID is taken there already.
 */
static void
reserve_birth_sid(struct sst_stream_chan *c, uint8_t idx, uint64_t counter)
{
	struct sst_stream_peer *p = c->peer;
	uint16_t sid = (uint16_t)counter;

	for (int i = 0; i < STREAM_PEER_CHANS_MAX; i++) {
		struct sst_stream_chan *o = p->chans[i];

		if (o == NULL || o == c || o->dead || o->peer_hcid != idx)
			continue;
		if (sst_sid_attach(o->rx_sids, sid, &o->held, NULL) == 0)
			stream_sid_quiet(o, o->rx_sids, sid, true);
		return;
	}
}

static enum sst_channel_rx_verdict
rx_init(struct sst_stream_chan *c, const struct sst_stream_hdr *hdr, struct rte_mbuf *m,
	uint64_t seq, sst_time_t now)
{
	struct sst_stream *parent, *s;

	if (hdr->sid == 0)
		return drop(&c->peer->host->stats.rx_malformed, m, true); /* the root has no data */
	s = sst_sid_lookup(c->rx_sids, hdr->sid);
	if (s == NULL) {
		if (init_names_attached(c, hdr->sid))
			return refuse(c, m);
		if (sst_sid_is_quiet(c->rx_sids, hdr->sid))
			return stale(c, hdr->sid, m);
		parent = sst_sid_lookup(c->rx_sids, hdr->ref_sid);
		/* A parent that finished here cannot take children; one not seen
		 * yet may have its attachment on the way. */
		if (parent == NULL && sst_sid_is_quiet(c->rx_sids, hdr->ref_sid) &&
			!stream_chan_was_moved(c, hdr->ref_sid))
			return unknown_sid(c, hdr->sid, STREAM_CODE_ORIENT, m);
		if (parent == NULL)
			return refuse(c, m);
		/* Beyond its share the peer hears so at once, unless a Reset
		 * would abort it (the prototype): then it sends again later. */
		if (c->peer->nstreams - c->peer->nours >= c->peer->host->p.peer_max_streams &&
			stream_peer_can(c->peer, SST_CAP_RESET)) {
			c->peer->host->stats.peer_streams_refused++;
			return unknown_sid(c, hdr->sid, STREAM_CODE_ORIENT, m);
		}
		s = new_stream(c, parent, hdr->sid, hdr->window, now);
		if (s == NULL) {
			if (parent->listening)
				return refuse(c, m); /* out of memory: let it come again */
			return unknown_sid(c, hdr->sid, STREAM_CODE_ORIENT, m);
		}
	}
	return deliver(c, s, hdr->tsn, hdr, m, seq, now);
}

static enum sst_channel_rx_verdict
rx_reply(struct sst_stream_chan *c, const struct sst_stream_hdr *hdr, struct rte_mbuf *m,
	uint64_t seq, sst_time_t now)
{
	struct sst_stream *s = sst_sid_lookup(c->tx_sids, hdr->ref_sid);
	int rc;

	/* The peer resends the last segments of a stream that finished here
	 * until it hears that they arrived, which may be long after the quiet
	 * period when acknowledgments come late or are lost: acknowledged
	 * (we have them all), where a refusal has them resent for good and a
	 * stateless Reset aborts the peer's side of a completed stream. Past
	 * the quiet period, a Reply for a SID we gave up by Detach is too old
	 * to pass the replay window (the quiet period starts once the peer
	 * knows), so one naming a SID of ours that is gone is such a resend;
	 * a peer without Detach is not told when a stream moves, and keeps
	 * its stateless Reset. */
	if (s == NULL && (sst_sid_quiet_ended(c->tx_sids, hdr->ref_sid) ||
				 (stream_peer_can(c->peer, SST_CAP_DETACH) &&
					 sst_sid_used_before(c->tx_sids, hdr->ref_sid))))
		return drop(&c->peer->host->stats.rx_stale, m, true);
	/* A Reply naming a SID we gave up (or whose quiet period runs) was
	 * sent before the peer learned of it: refused, so it is resent by
	 * Attach. */
	if (s == &c->held || (s == NULL && sst_sid_is_quiet(c->tx_sids, hdr->ref_sid)))
		return refuse(c, m);
	if (s == NULL || stream_is_root(s))
		return unknown_sid(c, hdr->sid, STREAM_CODE_ORIENT, m);
	if (hdr->sid == 0)
		return drop(&c->peer->host->stats.rx_malformed, m, true);
	rc = attach_rx(c, s, hdr->sid);
	if (rc < 0)
		return refuse(c, m);
	/* The peer replies only on a SID it took from our Init, so it is
	 * aware of the SID and Data may follow (paper 4.3.4), whether or not
	 * the channel's acknowledgment of the Init arrives. Waiting for that
	 * one instead, a late or lost acknowledgment has the Init resent, and
	 * a resend that arrives after the peer finished the stream and forgot
	 * its SID opens a second stream there with this one's bytes. */
	if (stream_is_ours(s) && !(s->flags & SF_ATTACH_DUE) && s->tx_attach == STREAM_TX_BOUND &&
		s->tx_chan == c) {
		stream_tx_attach_acked(s);
		stream_tx_wake(s);
	}
	return deliver(c, s, hdr->tsn, hdr, m, seq, now);
}

static enum sst_channel_rx_verdict
rx_data(struct sst_stream_chan *c, const struct sst_stream_hdr *hdr, struct rte_mbuf *m,
	uint64_t seq, sst_time_t now)
{
	struct sst_stream *s = sst_sid_lookup(c->rx_sids, hdr->sid);
	uint64_t ref, off;

	if (s == NULL || stream_is_root(s)) {
		/* The peer sends Data only once we acknowledged the stream's
		 * attachment, so a SID we no longer know from a counter it
		 * already announced names a stream we finished (or reset, and
		 * our Reset is resent until acknowledged). The peer resends the
		 * last segments of a finished stream until it hears that they
		 * arrived, and with acknowledgments late or lost that may be
		 * long after the quiet period: acknowledged like a late packet
		 * in the quiet period, not answered with a stateless Reset,
		 * which would abort the peer's side of a stream that completed. */
		if (sst_sid_is_quiet(c->rx_sids, hdr->sid) ||
			sst_sid_used_before(c->rx_sids, hdr->sid))
			return stale(c, hdr->sid, m);
		return unknown_sid(c, hdr->sid, STREAM_CODE_ORIENT, m);
	}
	ref = s->rx != NULL ? sst_rob_read_offset(&s->rx->rob) : s->rx_off;
	if (sst_seq_expand(ref, hdr->tsn, 32, &off) < 0)
		return drop(&c->peer->host->stats.rx_malformed, m, true);
	return deliver(c, s, off, hdr, m, seq, now);
}

static enum sst_channel_rx_verdict
rx_ack(struct sst_stream_chan *c, const struct sst_stream_hdr *hdr, struct rte_mbuf *m,
	uint64_t seq)
{
	struct sst_stream *s = sst_sid_lookup(c->tx_sids, hdr->sid);

	if (s == &c->held)
		s = NULL;
	if (s != NULL && stream_is_root(s))
		c->root_tx_window = hdr->window & SST_WINDOW_EXP_MASK;
	else if (s != NULL)
		peer_window(s, seq, hdr->window);
	rte_pktmbuf_free(m);
	return SST_CHANNEL_RX_ACCEPT;
}

/*
 * The reassembly of multi-fragment datagrams, set up at the first fragment
 * (most channels never see one): bounded in fragments, bytes and time.
 * Returns 0 or -ENOMEM (the caller refuses the fragment, as when full).
 */
static int
chan_dgram_rx(struct sst_stream_chan *c, sst_time_t now)
{
	const struct sst_mem_ops *mem = c->peer->host->p.mem;
	struct sst_dgram_rx_conf dc = {
		.capacity = STREAM_DGRAM_RX_FRAGS,
		.max_bytes = 512 * 1024,
		.max_frags = 64,
		.max_dgram_bytes = UINT16_MAX,
		.timeout = 2 * SST_NSEC_PER_SEC,
		.seed = (uint64_t)(uintptr_t)c ^ ((uint64_t)now << 17) ^ 0x9e3779b97f4a7c15ULL,
	};

	if (c->dgram != NULL)
		return 0;
	c->dgram = mem->zalloc(mem->ctx, sst_dgram_rx_size(dc.capacity));
	if (c->dgram == NULL || sst_dgram_rx_init(c->dgram, &dc) < 0) {
		mem->release(mem->ctx, c->dgram, sst_dgram_rx_size(dc.capacity));
		c->dgram = NULL;
		c->stats.table_grow_failures++;
		return -ENOMEM;
	}
	return 0;
}

static enum sst_channel_rx_verdict
rx_datagram(struct sst_stream_chan *c, const struct sst_stream_hdr *hdr, struct rte_mbuf *m,
	uint64_t seq, sst_time_t now)
{
	struct sst_stream *parent = sst_sid_lookup(c->rx_sids, hdr->sid);
	struct sst_dgram d;

	if (parent == NULL || stream_is_root(parent))
		return drop(&c->peer->host->stats.rx_unknown_sid, m, true);
	if (hdr->flags == (SST_FLAG_DGRAM_BEGIN | SST_FLAG_DGRAM_END)) {
		stream_queue_datagram(parent, m, now);
		return SST_CHANNEL_RX_NEEDS_ACK;
	}
	/* A fragment: complete datagrams come out whole, bounded in memory
	 * and time (stream_dgram); whatever cannot complete is dropped. The
	 * reassembly is set up at the first fragment; without memory for it
	 * the fragment is refused (the sender sees it lost). */
	if (chan_dgram_rx(c, now) < 0)
		return refuse(c, m);
	if (sst_dgram_rx_insert(c->dgram, hdr->sid, seq, hdr->flags, m, now, &d) ==
		SST_DGRAM_COMPLETE) {
		parent = sst_sid_lookup(c->rx_sids, d.sid);
		if (parent != NULL && !stream_is_root(parent))
			stream_queue_datagram(parent, d.m, now);
		else
			rte_pktmbuf_free(d.m);
	}
	return SST_CHANNEL_RX_NEEDS_ACK;
}

static enum sst_channel_rx_verdict
rx_reset(struct sst_stream_chan *c, const struct sst_stream_hdr *hdr, struct rte_mbuf *m,
	sst_time_t now)
{
	/* Orientation set: the SID is ours; clear: the sender's. */
	struct sst_sid_space *space = hdr->flags & SST_FLAG_RESET_ORIENT ? c->tx_sids : c->rx_sids;
	struct sst_stream *s = sst_sid_lookup(space, hdr->sid);

	rte_pktmbuf_free(m);
	if (hdr->sid == 0 && !(hdr->flags & SST_FLAG_RESET_ORIENT)) {
		stream_chan_peer_finish(c, now); /* FINISH: the peer has no stream here */
		return SST_CHANNEL_RX_NEEDS_ACK;
	}
	if (s == NULL || s == &c->held || stream_is_root(s))
		return SST_CHANNEL_RX_NEEDS_ACK;
	c->peer->host->stats.streams_reset_rx++;
	if (stream_service_waiting(s) && stream_is_ours(s))
		stream_do_reset(s, SST_STREAM_REFUSED, false, now);
	else
		stream_do_reset(s, SST_STREAM_RESET_REMOTE, false, now);
	return SST_CHANNEL_RX_NEEDS_ACK;
}

/* Has the peer announced stream counter @p counter on a channel it holds
 * with us (the highest counter of each channel's receive space)? */
static bool
peer_used_counter(const struct sst_stream_peer *p, uint64_t counter)
{
	for (int i = 0; i < STREAM_PEER_CHANS_MAX; i++)
		if (p->chans[i] != NULL && counter <= sst_sid_space_counter(p->chans[i]->rx_sids))
			return true;
	return false;
}

/*
 * An Attach (not Init) for a stream this side finished and forgot, or
 * reset: the peer moved its side (a channel replaced) before it heard that
 * we had it all, and resends on this SID what we did not acknowledge. The
 * SID is taken and at once put in the quiet period of a stream that ended,
 * so those are acknowledged as stale (rx_data()) where a stateless Reset
 * aborted the peer's side of a completed stream. A reset stream's own Reset
 * is on its way. If the SID cannot be taken, the Attach is acknowledged all
 * the same. Only for a stream counter the peer has used on one of its
 * channels here: an Attach naming one beyond is forged and gets its Reset.
 */
static enum sst_channel_rx_verdict
late_attach(struct sst_stream_chan *c, uint16_t sid)
{
	uint64_t counter;

	if (sst_sid_attach(c->rx_sids, sid, &c->held, &counter) == 0)
		stream_sid_quiet(c, c->rx_sids, sid, true);
	c->peer->host->stats.rx_stale++;
	return SST_CHANNEL_RX_NEEDS_ACK;
}

/*
 * An Attach on an older channel than the one the peer's side of s is
 * attached on here: sent before the peer moved on (it moves forward only,
 * as ours does below), and delivered late (held in a stalled host's queue,
 * another path). Followed, it moved our receiving side back to a channel
 * the peer had left: what the peer then sent where the stream is was
 * refused as a moved stream's until that SID's quiet period ended, and
 * from then on acknowledged and dropped as stale, lost for good. The SID
 * is taken here and put at once in the quiet period of a stream that
 * moved, so that whatever the peer sent on it is refused and resent where
 * the stream is.
 */
static enum sst_channel_rx_verdict
late_move(struct sst_stream_chan *c, uint16_t sid)
{
	if (sst_sid_attach(c->rx_sids, sid, &c->held, NULL) == 0) {
		stream_sid_quiet(c, c->rx_sids, sid, false);
		stream_chan_moved(c, sid);
	}
	c->peer->host->stats.rx_stale++;
	return SST_CHANNEL_RX_NEEDS_ACK;
}

static enum sst_channel_rx_verdict
rx_attach(struct sst_stream_chan *c, const struct sst_stream_hdr *hdr, struct rte_mbuf *m,
	sst_time_t now)
{
	struct sst_stream_peer *p = c->peer;
	uint8_t buf[2 * (8 + 4 + SST_HCID_MAX)];
	uint32_t len = rte_pktmbuf_pkt_len(m);
	struct sst_usid usid, pusid;
	bool init = (hdr->flags & SST_FLAG_ATTACH_INIT) != 0;
	struct sst_stream *s, *parent;
	const void *body;
	int idx, pidx;

	body = len <= sizeof(buf) ? rte_pktmbuf_read(m, 0, len, buf) : NULL;
	if (body == NULL || sst_attach_body_decode(body, len, init, &usid, &pusid) < 0)
		return drop(&p->host->stats.rx_malformed, m, true);
	rte_pktmbuf_free(m);
	m = NULL;
	p->host->stats.attaches_rx++;
	idx = stream_peer_hcid(p, usid.hcid, usid.hcid_len);
	if (idx < 0)
		return unknown_sid(c, hdr->sid, STREAM_CODE_ORIENT, m);
	s = stream_usid_find(p, usid.counter, (uint8_t)idx);
	if (s == NULL && init) {
		pidx = stream_peer_hcid(p, pusid.hcid, pusid.hcid_len);
		parent = pusid.counter == 0 ? &p->root
			 : pidx < 0	    ? NULL
					    : stream_usid_find(p, pusid.counter, (uint8_t)pidx);
		if (parent == NULL && pidx < 0)
			return unknown_sid(c, hdr->sid, STREAM_CODE_ORIENT, m);
		/* A parent not seen yet may have its own Attach on the way: a
		 * stream and its children move to a new channel together and
		 * their Attaches can arrive in any order (as rx_init() does for
		 * an Init). Refused, it comes again. */
		if (parent == NULL)
			return refuse(c, m);
		s = new_stream(c, parent, hdr->sid, hdr->window, now);
		if (s == NULL) {
			return SST_CHANNEL_RX_REFUSE;
		}
		/* An Attach names the stream by its USID, not this SID's counter:
		 * the index must find it under that one. */
		stream_usid_rekey(p, s, usid.counter, (uint8_t)idx);
		reserve_birth_sid(c, (uint8_t)idx, usid.counter);
		return SST_CHANNEL_RX_NEEDS_ACK;
	}
	if (s != NULL && stream_is_root(s))
		return unknown_sid(c, hdr->sid, STREAM_CODE_ORIENT, m);
	if ((s == NULL && peer_used_counter(p, usid.counter)) || (s != NULL && stream_is_reset(s)))
		return late_attach(c, hdr->sid);
	if (s == NULL)
		return unknown_sid(c, hdr->sid, STREAM_CODE_ORIENT, m);
	/* We have all the peer sent, and it has all we sent: its side moved
	 * before it heard so, and will send nothing on this SID. Bound, the
	 * SID would keep the channel in use with nothing to release it. */
	if (stream_is_finished(s))
		return SST_CHANNEL_RX_NEEDS_ACK;
	if (stream_rx_bound(s) && s->rx_chan != NULL && s->rx_chan != c && !s->rx_chan->dead &&
		stream_chan_newer(s->rx_chan, c))
		return late_move(c, hdr->sid);
	if (attach_rx(c, s, hdr->sid) < 0) {
		return SST_CHANNEL_RX_REFUSE;
	}
	peer_window(s, 0, hdr->window);
	/* The peer moved its side here: ours follows (paper 4.3.7), so a
	 * channel being replaced empties without the application's help. Only
	 * forward: an Attach on an older channel is the peer's side catching
	 * up with a move it has not seen yet (two replacements crossed, and
	 * it attached on the one both sides then retire), and following it
	 * back would leave our side on a channel being closed. */
	if (stream_tx_bound(s) && s->tx_chan != NULL && s->tx_chan != c && !s->tx_chan->dead &&
		!stream_is_finished(s) && stream_chan_newer(c, s->tx_chan))
		sst_stream_migrate(s, c, now);
	return SST_CHANNEL_RX_NEEDS_ACK;
}

static enum sst_channel_rx_verdict
rx_detach(struct sst_stream_chan *c, const struct sst_stream_hdr *hdr, struct rte_mbuf *m)
{
	struct sst_stream *s = sst_sid_lookup(c->rx_sids, hdr->sid);

	rte_pktmbuf_free(m);
	if (s != NULL && !stream_is_root(s) && s->rx_chan == c && s->rx_sid == hdr->sid) {
		stream_sid_quiet(c, c->rx_sids, hdr->sid, false);
		stream_chan_moved(c, hdr->sid);
		stream_ctl_moving(s);
		stream_rx_unbind(s);
		s->rx_chan = NULL;
	}
	return SST_CHANNEL_RX_NEEDS_ACK;
}

/* A packet the prototype would abort on or drop (stats.rx_beyond_prototype). */
static bool
beyond_prototype(const struct sst_stream_hdr *hdr, uint32_t payload)
{
	switch (hdr->type) {
	case SST_STREAM_RESET:
	case SST_STREAM_DETACH:
		return true;
	case SST_STREAM_DATAGRAM:
		return hdr->flags != (SST_FLAG_DGRAM_BEGIN | SST_FLAG_DGRAM_END) ||
		       payload > SST_SEGMENT_MAX;
	case SST_STREAM_INIT:
	case SST_STREAM_REPLY:
	case SST_STREAM_DATA:
		return payload > SST_SEGMENT_MAX;
	default:
		return false;
	}
}

static enum sst_channel_rx_verdict rx_dispatch(
	struct sst_stream_chan *c, struct rte_mbuf *m, uint64_t seq, sst_time_t now);

enum sst_channel_rx_verdict
stream_rx_packet(void *ctx, struct rte_mbuf *m, uint64_t seq, sst_time_t now)
{
	struct sst_stream_chan *c = ctx;
	enum sst_channel_rx_verdict verdict = rx_dispatch(c, m, seq, now);

	stream_reap(c->peer->host, now);
	return verdict;
}

static enum sst_channel_rx_verdict
rx_dispatch(struct sst_stream_chan *c, struct rte_mbuf *m, uint64_t seq, sst_time_t now)
{
	struct sst_stream_hdr hdr;
	uint8_t raw[SST_STREAM_HDR_LONG];
	const void *p;
	int hlen;

	c->stats.rx_packets++;
	p = rte_pktmbuf_read(m, 0, RTE_MIN(sizeof(raw), rte_pktmbuf_pkt_len(m)), raw);
	hlen = p == NULL ? -1 : sst_stream_hdr_decode(p, rte_pktmbuf_pkt_len(m), &hdr);
	if (hlen < 0 || rte_pktmbuf_adj(m, (uint16_t)hlen) == NULL)
		return drop(&c->peer->host->stats.rx_malformed, m, false);
	if (beyond_prototype(&hdr, rte_pktmbuf_pkt_len(m)))
		c->peer->host->stats.rx_beyond_prototype++;
	switch (hdr.type) {
	case SST_STREAM_INIT:
		return rx_init(c, &hdr, m, seq, now);
	case SST_STREAM_REPLY:
		return rx_reply(c, &hdr, m, seq, now);
	case SST_STREAM_DATA:
		return rx_data(c, &hdr, m, seq, now);
	case SST_STREAM_ACK:
		return rx_ack(c, &hdr, m, seq);
	case SST_STREAM_DATAGRAM:
		return rx_datagram(c, &hdr, m, seq, now);
	case SST_STREAM_RESET:
		return rx_reset(c, &hdr, m, now);
	case SST_STREAM_ATTACH:
		return rx_attach(c, &hdr, m, now);
	case SST_STREAM_DETACH:
		return rx_detach(c, &hdr, m);
	default:
		return drop(&c->peer->host->stats.rx_malformed, m, false);
	}
}
