/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stream layer's side of a channel (sst_stream_chan): creating and
 * retiring it (its streams wait for and move to the peer's next channel),
 * and its SIDs under pressure (idle streams detached, streams waiting for a
 * SID). The send path is stream_tx.c, the receive path stream_rx.c.
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "sst_mem.h"
#include "stream_internal.h"

/* ---- Channel attachments ---- */

void
stream_chan_event(void *ctx, enum sst_channel_event ev, sst_time_t now)
{
	struct sst_stream_chan *c = ctx;
	const struct sst_stream_ops *ops = c->peer->host->p.ops;

	RTE_SET_USED(now);
	if (ops != NULL && ops->channel_event != NULL)
		ops->channel_event(c->peer->host->p.ctx, c, ev);
}

static void
chan_free(struct sst_stream_chan *c)
{
	/* The SID spaces give their tables back (a space never initialised,
	 * when a later step failed, is all zero: nothing to give). */
	if (c->ch != NULL)
		sst_channel_destroy(c->ch);
	stream_peer_hcid_drop(c->peer, c->local_hcid);
	stream_peer_hcid_drop(c->peer, c->peer_hcid);
	sst_sid_space_fini(c->tx_sids);
	sst_sid_space_fini(c->rx_sids);
	rte_free(c->sent);
	rte_free(c->codes);
	if (c->dgram != NULL)
		sst_dgram_rx_fini(c->dgram);
	rte_free(c->dgram);
	rte_free(c);
}

/*
 * The reassembly of multi-fragment datagrams, set up at the first fragment
 * (most channels never see one): bounded in fragments, bytes and time.
 * Returns 0 or -ENOMEM (the caller refuses the fragment, as when full).
 */
int
stream_chan_dgram_rx(struct sst_stream_chan *c, sst_time_t now)
{
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
	c->dgram = rte_zmalloc("sst_dgram", sst_dgram_rx_size(dc.capacity), RTE_CACHE_LINE_SIZE);
	if (c->dgram == NULL || sst_dgram_rx_init(c->dgram, &dc) < 0) {
		rte_free(c->dgram);
		c->dgram = NULL;
		c->stats.table_grow_failures++;
		return -ENOMEM;
	}
	return 0;
}

/* Streams left without a channel continue on this one: each sends an Attach
 * for its side; the peer does the same for its side. */
static void
adopt_orphans(struct sst_stream_chan *c)
{
	struct sst_stream_peer *p = c->peer;

	for (uint32_t i = 0; i <= p->usid_mask; i++) {
		struct sst_stream *s = p->usids[i];

		if (s == NULL || s->tx_chan != NULL || (s->flags & (SF_RESET | SF_FINISHED)))
			continue;
		s->tx_chan = c;
		s->flags &= ~(SF_TX_ATTACHED | SF_TX_ACKED);
		if (s->tx != NULL || (s->flags & SF_INITIATOR))
			stream_attach_due(s);
	}
}

struct sst_stream_chan *
sst_stream_chan_create(
	struct sst_stream_peer *p, const struct sst_stream_chan_params *cp, sst_time_t now)
{
	struct sst_stream_host *h = p->host;
	struct sst_channel_params chp;
	struct sst_stream_chan *c;
	int slot = -1, li, pi;

	if (cp == NULL || cp->channel == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	for (int i = 0; i < STREAM_PEER_CHANS_MAX && slot < 0; i++)
		if (p->chans[i] == NULL)
			slot = i;
	li = stream_peer_hcid(p, cp->local_hcid, cp->local_hcid_len);
	pi = stream_peer_hcid(p, cp->peer_hcid, cp->peer_hcid_len);
	if (slot < 0 || li < 0 || pi < 0) {
		rte_errno = slot < 0 || li == -ENOSPC || pi == -ENOSPC ? ENOSPC : EINVAL;
		return NULL;
	}
	c = rte_zmalloc("sst_stream_chan", sizeof(*c), RTE_CACHE_LINE_SIZE);
	if (c == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	c->peer = p;
	c->local_hcid = (uint8_t)li;
	c->peer_hcid = (uint8_t)pi;
	stream_peer_hcid_hold(p, c->local_hcid);
	stream_peer_hcid_hold(p, c->peer_hcid);
	c->initiator = cp->initiator;
	c->user = cp->user;
	c->on_hold = cp->hold;
	c->root_tx_window = sst_window_encode(h->p.rx_window_min);
	chp = *cp->channel;
	chp.upper = &sst_stream_chan_upper;
	chp.upper_ctx = c;
	c->replay_window = chp.replay_window != 0 ? chp.replay_window : 32;
	/* Every table below starts empty or small and grows with use up to
	 * these limits (issue 14): the records of packets in flight with the
	 * packets, the codes owed with the SIDs taken, the SID spaces with
	 * the streams attached. */
	c->sent_max = chp.tx_log != 0 ? chp.tx_log : 4096;
	c->code_max = h->p.max_sids + STREAM_CODES_STATELESS;
	c->tx_sids = &c->tx_space;
	c->rx_sids = &c->rx_space;
	if (sst_sid_space_init_grow(c->tx_sids, h->p.max_sids, SST_SID_TX, &p->root, &sst_mem_rte) <
			0 ||
		sst_sid_space_init_grow(
			c->rx_sids, h->p.max_sids, SST_SID_RX, &p->root, &sst_mem_rte) < 0) {
		chan_free(c);
		rte_errno = EINVAL;
		return NULL;
	}
	c->ch = sst_channel_create(&chp, now);
	if (c->ch == NULL) {
		int err = rte_errno;

		chan_free(c);
		rte_errno = err;
		return NULL;
	}
	c->mss = stream_chan_mss(c);
	sst_sched_init(&c->sched, c->mss);
	c->born = p->chans_made++;
	p->chans[slot] = c;
	adopt_orphans(c);
	return c;
}

void
sst_stream_chan_release(struct sst_stream_chan *c)
{
	if (!c->on_hold)
		return;
	c->on_hold = false;
	/* Whatever was queued meanwhile is due now. */
	c->flush_wanted = false;
	stream_chan_wants_flush(c);
}

void
sst_stream_chan_destroy(struct sst_stream_chan *c, sst_time_t now)
{
	struct sst_stream_peer *p = c->peer;
	struct sst_stream_chan *next;

	c->dead = true;
	/* Whatever flies on this channel will never be acknowledged here. */
	stream_tx_lost_all(c, now);
	for (uint32_t i = 0; i <= p->usid_mask; i++) {
		struct sst_stream *s = p->usids[i];

		if (s == NULL)
			continue;
		if (s->tx_chan == c) {
			s->tx_chan = NULL;
			s->flags &= ~(SF_TX_ATTACHED | SF_TX_ACKED | SF_ATTACH_DUE);
			if (s->tx != NULL)
				sst_sched_remove(&s->tx->sched);
		}
		if (s->rx_chan == c) {
			s->rx_chan = NULL;
			s->flags &= ~(SF_RX_ATTACHED | SF_WINDOW_DUE);
		}
	}
	while (c->ctl.count > 0) {
		struct sst_stream *s = stream_queue_pop(&c->ctl, p->host->ctl_next, p->host);

		s->flags &= ~SF_CTL_QUEUED;
		stream_ctl_requeue(s, c);
		stream_unref(s, now);
	}
	while (c->sid_waiters.count > 0) {
		struct sst_stream *s =
			stream_queue_pop(&c->sid_waiters, p->host->sidw_next, p->host);

		s->flags &= ~SF_SID_WAITING;
		stream_unref(s, now);
	}
	for (int i = 0; i < STREAM_PEER_CHANS_MAX; i++)
		if (p->chans[i] == c)
			p->chans[i] = NULL;
	chan_free(c);
	next = stream_peer_chan(p);
	if (next != NULL)
		adopt_orphans(next);
}

struct sst_channel *
sst_stream_chan_channel(const struct sst_stream_chan *c)
{
	return c->ch;
}

bool
sst_stream_chan_pending(const struct sst_stream_chan *c)
{
	return c->sched.root != NULL || c->ctl.count > 0 || c->ctl_sweep || c->code_count > 0 ||
	       c->finish_ack_due || c->sid_waiters.count > 0 || c->burst_n > 0;
}

int
sst_stream_chan_probe(struct sst_stream_chan *c)
{
	struct sst_stream_peer *p = c->peer;

	if (c->dead)
		return -ENOTCONN;
	/* Rare (once per idle period of a channel): a walk of the peer's
	 * streams rather than an index kept for it. */
	for (uint32_t i = 0; i <= p->usid_mask; i++) {
		struct sst_stream *s = p->usids[i];

		if (s == NULL || (s->flags & (SF_RESET | SF_FINISHED)) ||
			!(s->flags & SF_RX_ATTACHED) || s->rx_chan != c)
			continue;
		s->flags |= SF_WINDOW_DUE;
		stream_ctl_queue(s);
		return 0;
	}
	return -ENOENT;
}

void *
sst_stream_chan_user(const struct sst_stream_chan *c)
{
	return c->user;
}

sst_time_t
sst_stream_chan_timer(const struct sst_stream_chan *c)
{
	return c->dgram != NULL ? sst_time_min(c->next_flush, sst_dgram_rx_next_expiry(c->dgram))
				: c->next_flush;
}

sst_time_t
sst_stream_chan_next_expiry(const struct sst_stream_chan *c)
{
	/* The idle sweep gives receive buffers back on its own timer. */
	return sst_time_min(sst_stream_chan_timer(c), sst_stream_host_next_expiry(c->peer->host));
}

sst_time_t
sst_stream_host_next_expiry(const struct sst_stream_host *h)
{
	/* Streams ended outside any channel's work (their peer's last channel
	 * went, as when it is declared dead) are freed here. */
	if (h->reap != NULL)
		return 0;
	return h->rxios_used > 0 ? h->sweep_next : SST_TIME_NEVER;
}

void
sst_stream_host_handle_expiry(struct sst_stream_host *h, sst_time_t now)
{
	stream_reap(h, now);
	if (h->rxios_used > 0 && h->sweep_next <= now)
		stream_idle_sweep(h, now);
}

void
sst_stream_chan_stats(const struct sst_stream_chan *c, struct sst_stream_chan_stats *st)
{
	const struct sst_sid_stats *t = sst_sid_space_stats(c->tx_sids);
	const struct sst_sid_stats *r = sst_sid_space_stats(c->rx_sids);

	*st = c->stats;
	st->sids_quiet = t->quiet + r->quiet;
	st->sids_attached = t->attached + r->attached;
	st->table_grow_failures += t->grow_failures + r->grow_failures;
	st->table_bytes = t->table_bytes + r->table_bytes +
			  (uint64_t)c->sent_cap * sizeof(*c->sent) +
			  (uint64_t)c->code_cap * sizeof(*c->codes) +
			  (c->dgram != NULL ? sst_dgram_rx_size(STREAM_DGRAM_RX_FRAGS) : 0);
}

/*
 * A quiet SID normally belonged to a stream that finished: whatever still
 * arrives for it is a spurious retransmission, acknowledged and dropped. A
 * SID whose stream moved to another channel is different: the data still
 * arriving for it is refused so the sender resends it where the stream is.
 */
void
stream_chan_moved(struct sst_stream_chan *c, uint16_t sid)
{
	c->moved_sids[c->moved_next++ % RTE_DIM(c->moved_sids)] = sid;
}

bool
stream_chan_was_moved(const struct sst_stream_chan *c, uint16_t sid)
{
	for (size_t i = 0; i < RTE_DIM(c->moved_sids); i++)
		if (c->moved_sids[i] == sid && sid != 0)
			return true;
	return false;
}

/* ---- SIDs under pressure ---- */

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
			(s->flags & (SF_TX_ATTACHED | SF_TX_ACKED)) !=
				(SF_TX_ATTACHED | SF_TX_ACKED) ||
			(s->flags & (SF_RESET | SF_FINISHED | SF_CTL_QUEUED)))
			continue;
		stream_give_up_tx_sid(s, STREAM_CODE_DETACH);
		s->flags |= SF_PEER_KNOWS;
		c->stats.idle_detaches++;
		return true;
	}
	return false;
}

static void
sid_wait(struct sst_stream_chan *c, struct sst_stream *s)
{
	if (s->flags & (SF_SID_WAITING | SF_ROOT))
		return;
	s->flags |= SF_SID_WAITING;
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

		s->flags &= ~SF_SID_WAITING;
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

/* ---- Closing without TIME_WAIT ---- */

bool
sst_stream_chan_unused(const struct sst_stream_chan *c)
{
	return sst_sid_space_stats(c->tx_sids)->attached == 0 &&
	       sst_sid_space_stats(c->rx_sids)->attached == 0 && c->ctl.count == 0 &&
	       c->sid_waiters.count == 0;
}

void
sst_stream_chan_prefer(struct sst_stream_chan *c)
{
	c->born = c->peer->chans_made++;
}

bool
sst_stream_chan_exhausted(const struct sst_stream_chan *c)
{
	return sst_channel_packet_room(c->ch) < STREAM_CTL_ROOM;
}

static void
send_finish(struct sst_stream_chan *c)
{
	c->finish_sent = true;
	c->finish_acked = false;
	c->finish_losses = 0;
	stream_chan_queue_code(c, 0); /* a Reset naming the root: FINISH */
}

int
sst_stream_chan_close(struct sst_stream_chan *c, sst_time_t now)
{
	if (!stream_peer_can(c->peer, SST_CAP_RESET))
		return -ENOTSUP;
	if (c->dead || !sst_stream_chan_unused(c))
		return -EBUSY;
	if (!c->finish_sent)
		send_finish(c);
	sst_stream_chan_flush(c, now);
	return 0;
}

static void
check_closed(struct sst_stream_chan *c, sst_time_t now)
{
	const struct sst_stream_ops *ops = c->peer->host->p.ops;

	if (c->closed || !c->finish_sent || !c->peer_finished ||
		(!c->finish_acked && c->finish_losses < 3))
		return;
	c->closed = true;
	/* The peer's FINISH is acknowledged by the next flush: there will be
	 * no later packet (never from here, inside the channel's callbacks). */
	c->finish_ack_due = true;
	stream_chan_wants_flush(c);
	RTE_SET_USED(now);
	if (ops != NULL && ops->channel_closed != NULL)
		ops->channel_closed(c->peer->host->p.ctx, c);
}

/* A stream attaches: whatever closing was under way is off. */
void
stream_chan_busy(struct sst_stream_chan *c)
{
	if (c->closed)
		return;
	c->finish_sent = c->finish_acked = c->peer_finished = false;
	c->finish_losses = 0;
}

void
stream_chan_peer_finish(struct sst_stream_chan *c, sst_time_t now)
{
	if (c->closed)
		return;
	c->peer_finished = true;
	/* With a stream still here the peer's offer is declined by silence:
	 * it stays open until we offer in turn. */
	if (!c->finish_sent && sst_stream_chan_unused(c) && stream_peer_can(c->peer, SST_CAP_RESET))
		send_finish(c);
	check_closed(c, now);
}

void
stream_chan_finish_outcome(struct sst_stream_chan *c, bool acked, sst_time_t now)
{
	if (!c->finish_sent || c->closed)
		return;
	if (acked) {
		c->finish_acked = true;
	} else if (++c->finish_losses < 3 || !c->peer_finished) {
		stream_chan_queue_code(c, 0);
		return;
	}
	check_closed(c, now);
}

int
sst_stream_chan_migrate_all(struct sst_stream_chan *old, struct sst_stream_chan *c, sst_time_t now)
{
	struct sst_stream_peer *p = old->peer;
	int moved = 0;

	if (c == NULL || c == old || c->peer != p || c->dead)
		return -EINVAL;
	for (uint32_t i = 0; i <= p->usid_mask; i++) {
		struct sst_stream *s = p->usids[i];

		if (s != NULL && s->tx_chan == old && !(s->flags & (SF_RESET | SF_FINISHED)) &&
			sst_stream_migrate(s, c, now) == 0)
			moved++;
	}
	sst_stream_chan_flush(c, now);
	sst_stream_chan_flush(old, now);
	return moved;
}
