/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stream layer's side of a channel (sst_stream_chan): creating and
 * retiring it (its streams wait for and move to the peer's next channel),
 * closing it, moving all its streams, its queries and statistics. Its SIDs
 * are stream_chan_sids.c, its FINISH exchange stream_chan_finish.c, the send
 * path stream_tx.c, the receive path stream_rx.c.
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "sst_mem.h"
#include "stream_chan.h"
#include "stream_ack.h"
#include "stream_chan_finish.h"
#include "stream_chan_sids.h"
#include "stream_ctl.h"
#include "stream_life.h"
#include "stream_rx.h"
#include "stream_tx.h"
#include "stream_usid.h"

static void
stream_chan_event(void *ctx, enum sst_channel_event ev, sst_time_t now)
{
	struct sst_stream_chan *c = ctx;
	const struct sst_stream_ops *ops = c->peer->host->p.ops;

	RTE_SET_USED(now);
	if (ops != NULL && ops->channel_event != NULL)
		ops->channel_event(c->peer->host->p.ctx, c, ev, now);
}

const struct sst_channel_upper sst_stream_chan_upper = {
	.receive = stream_rx_packet,
	.acked = stream_tx_acked,
	.lost = stream_tx_lost,
	.ack_due = stream_tx_ack_due,
	.event = stream_chan_event,
};

static void
chan_free(struct sst_stream_chan *c)
{
	const struct sst_mem_ops *mem = c->peer->host->p.mem;

	/* The SID spaces give their tables back (a space never initialised,
	 * when a later step failed, is all zero: nothing to give). */
	if (c->ch != NULL)
		sst_channel_destroy(c->ch);
	stream_peer_hcid_drop(c->peer, c->local_hcid);
	stream_peer_hcid_drop(c->peer, c->peer_hcid);
	sst_sid_space_fini(c->tx_sids);
	sst_sid_space_fini(c->rx_sids);
	mem->release(mem->ctx, c->sent, (size_t)c->sent_cap * sizeof(*c->sent));
	mem->release(mem->ctx, c->codes, (size_t)c->code_cap * sizeof(*c->codes));
	if (c->dgram != NULL) {
		sst_dgram_rx_fini(c->dgram);
		mem->release(mem->ctx, c->dgram, sst_dgram_rx_size(STREAM_DGRAM_RX_FRAGS));
	}
	mem->release(mem->ctx, c, sizeof(*c));
}

/* Streams left without a channel continue on this one: each sends an Attach
 * for its side; the peer does the same for its side. */
static void
adopt_orphans(struct sst_stream_chan *c)
{
	struct sst_stream_peer *p = c->peer;

	for (uint32_t i = 0; i <= p->usid_mask; i++) {
		struct sst_stream *s = p->usids[i];

		if (s == NULL || s->tx_chan != NULL || stream_is_ended(s))
			continue;
		s->tx_chan = c;
		stream_tx_unbind(s);
		if (s->tx != NULL || stream_is_ours(s))
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
	c = h->p.mem->zalloc(h->p.mem->ctx, sizeof(*c));
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
	if (chp.mem == NULL)
		chp.mem = h->p.mem;
	chp.upper = &sst_stream_chan_upper;
	chp.upper_ctx = c;
	c->replay_window = chp.replay_window != 0 ? chp.replay_window : 32;
	/* Every table below starts empty or small and grows with use up to
	 * these limits (issue 14): the records of packets in flight with the
	 * packets, the codes owed with the SIDs taken, the SID spaces with
	 * the streams attached. */
	c->sent_max = chp.tx_log != 0 ? chp.tx_log : SST_CHANNEL_TX_LOG_DEFAULT;
	c->code_max = h->p.max_sids + STREAM_CODES_STATELESS;
	c->tx_sids = &c->tx_space;
	c->rx_sids = &c->rx_space;
	if (sst_sid_space_init_grow(c->tx_sids, h->p.max_sids, SST_SID_TX, &p->root, h->p.mem) <
			0 ||
		sst_sid_space_init_grow(c->rx_sids, h->p.max_sids, SST_SID_RX, &p->root, h->p.mem) <
			0) {
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
			stream_tx_unbind(s);
			s->flags &= ~SF_ATTACH_DUE;
			if (s->tx != NULL)
				sst_sched_remove(&s->tx->sched);
		}
		if (s->rx_chan == c) {
			s->rx_chan = NULL;
			stream_rx_unbind(s);
			s->flags &= ~SF_WINDOW_DUE;
		}
	}
	while (c->ctl.count > 0) {
		struct sst_stream *s = stream_queue_pop(&c->ctl, p->host->ctl_next, p->host);

		s->flags &= ~SF_IN_CTL_QUEUE;
		stream_ctl_requeue(s, c);
		stream_unref(s, now);
	}
	while (c->sid_waiters.count > 0) {
		struct sst_stream *s =
			stream_queue_pop(&c->sid_waiters, p->host->sidw_next, p->host);

		s->flags &= ~SF_IN_SID_WAITERS;
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
	/* Streams held by the allowance need an acknowledgment (a packet,
	 * which makes the worker visit the channel) or next_flush (its timer):
	 * counting them pending kept a window-limited sender's worker from
	 * ever waiting, and sst-perf over kernel UDP spun in recvmmsg() on the
	 * CPU that its peer and the link emulator needed (issue 19, gig). */
	return (c->sched.root != NULL && !c->allowance_held) || c->ctl.count > 0 || c->ctl_sweep ||
	       c->code_count > 0 || c->finish_ack_due || c->sid_waiters.count > 0 ||
	       c->burst_n > 0 || c->probe_due > 0;
}

int
sst_stream_chan_probe(struct sst_stream_chan *c)
{
	if (c->dead)
		return -ENOTCONN;
	/*
	 * One Ack packet with the root's window (send_probe()), which needs no
	 * stream. It finds the peer's channel quiet, and our peers acknowledge
	 * an Ack packet on a quiet channel at once (channel_ack.h). The 2007
	 * prototype acknowledges only every SST_CHANNEL_ACK_ONLY_EVERY-th: the
	 * probe is then lost at the retransmission timeout and sent again
	 * whole, that many packets (stream_ack.c), which it answers. (Always
	 * sending that many cost a server with 100,000 idle channels four
	 * times the packets, its keepalives arriving as fast as the channels
	 * were made, and in test_many_channels on a loaded host they crowded
	 * out every request.)
	 */
	c->probe_due = 1;
	return 0;
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

int
sst_stream_chan_close(struct sst_stream_chan *c, sst_time_t now)
{
	if (!stream_peer_can(c->peer, SST_CAP_RESET))
		return -ENOTSUP;
	if (c->dead || !sst_stream_chan_unused(c))
		return -EBUSY;
	if (!c->finish_sent)
		stream_chan_send_finish(c);
	sst_stream_chan_flush(c, now);
	return 0;
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

		if (s != NULL && s->tx_chan == old && !stream_is_ended(s) &&
			sst_stream_migrate(s, c, now) == 0)
			moved++;
	}
	sst_stream_chan_flush(c, now);
	sst_stream_chan_flush(old, now);
	return moved;
}
