/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Closing a channel without TIME_WAIT: the FINISH exchange (a Reset naming
 * the root), offered when the channel holds nothing, declined by silence
 * while a stream attaches, and over once both sides' FINISH went through.
 */
#include "stream_chan_finish.h"
#include "stream_ctl.h"

bool
sst_stream_chan_unused(const struct sst_stream_chan *c)
{
	return sst_sid_space_stats(c->tx_sids)->attached == 0 &&
	       sst_sid_space_stats(c->rx_sids)->attached == 0 && c->ctl.count == 0 &&
	       c->sid_waiters.count == 0;
}

void
stream_chan_send_finish(struct sst_stream_chan *c)
{
	c->finish_sent = true;
	c->finish_acked = false;
	c->finish_losses = 0;
	stream_chan_queue_code(c, 0); /* a Reset naming the root: FINISH */
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
		ops->channel_closed(c->peer->host->p.ctx, c, now);
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

/*
 * The peer waits for our answer when its FINISH came while a stream of ours
 * still used c (declined by silence): our last segments not yet
 * acknowledged, say, because the acknowledgment was lost or left out of
 * the FINISH packet's ack word by a gap. It is answered once the last one
 * is gone. Answering only when we would have offered ourselves (the
 * engine's idle timeout, 60 s by default) held the channel that long for
 * a peer that had stopped waiting and left without a word: nothing of an
 * unused channel is in flight for dead-peer detection to see.
 */
void
stream_chan_finish_answer(struct sst_stream_chan *c)
{
	if (c->peer_finished && !c->finish_sent && !c->closed && !c->dead &&
		sst_stream_chan_unused(c) && stream_peer_can(c->peer, SST_CAP_RESET))
		stream_chan_send_finish(c);
}

void
stream_chan_peer_finish(struct sst_stream_chan *c, sst_time_t now)
{
	if (c->closed)
		return;
	c->peer_finished = true;
	/* With a stream still here the peer's offer is declined by silence
	 * until none is (stream_chan_finish_answer()). */
	stream_chan_finish_answer(c);
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
