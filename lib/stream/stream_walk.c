/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A read-only walk over the streams attached to a channel, for telemetry
 * and tools (sst_stream_chan_walk(), sst_stream.h): each stream is shown
 * as a snapshot record, so that callers outside the stream layer never
 * read its structs.
 *
 * The walk goes over the entry tables of the channel's two SID spaces in
 * index order, the transmit space first: positions 0..tx.entries-1 name
 * transmit entries, the following ones receive entries. A stream that has
 * a SID in both spaces of the channel is shown once, under its transmit
 * SID. The position returned to continue is only a place in the tables: a
 * table that grows or a stream that detaches between two calls may make
 * the next page skip or repeat a stream, which a listing for people can
 * afford; a walk within one call sees a consistent channel (the channel's
 * thread runs it).
 */
#include <stddef.h>

#include "sst_stream_walk.h"
#include "stream_internal.h"

static const char *
end_state_name(enum stream_end_state s)
{
	static const char *const names[] = {
		[STREAM_LIVE] = "live",
		[STREAM_FINISHED] = "finished",
		[STREAM_RESET] = "reset",
		[STREAM_RESET_AFTER_FINISH] = "reset_after_finish",
	};

	return (size_t)s < STREAM_END_STATES ? names[s] : "?";
}

static const char *
send_state_name(enum stream_send_state s)
{
	static const char *const names[] = {
		[STREAM_SEND_OPEN] = "open",
		[STREAM_SEND_CLOSE_OWED] = "close_owed",
		[STREAM_SEND_CLOSE_QUEUED] = "close_queued",
		[STREAM_SEND_CLOSE_ACKED] = "close_acked",
	};

	return (size_t)s < STREAM_SEND_STATES ? names[s] : "?";
}

static const char *
recv_state_name(enum stream_recv_state s)
{
	static const char *const names[] = {
		[STREAM_RECV_OPEN] = "open",
		[STREAM_RECV_EOF_READ] = "eof_read",
	};

	return (size_t)s < STREAM_RECV_STATES ? names[s] : "?";
}

static void
describe(const struct sst_stream *s, uint16_t sid, bool ours, struct sst_stream_walk_entry *e)
{
	e->stream = s;
	e->sid = sid;
	e->ours = ours;
	e->state = end_state_name((enum stream_end_state)s->end);
	e->send_state = send_state_name((enum stream_send_state)s->send);
	e->recv_state = recv_state_name((enum stream_recv_state)s->recv);
	e->priority = s->prio;
	e->tx_written = s->tx_off;
	/* Without a send buffer nothing is queued or in flight: everything
	 * written was sent and acknowledged. */
	e->tx_sent = s->tx_off;
	e->tx_acked = s->tx_off;
	e->tx_buffered = 0;
	if (s->tx != NULL) {
		e->tx_sent = s->tx->q.snd_nxt;
		e->tx_acked = s->tx->q.una;
		e->tx_buffered = sst_sendq_queued(&s->tx->q);
	}
	e->rx_received = s->rx_off;
	e->rx_buffered = 0;
	e->rx_window = 0;
	if (s->rx != NULL) {
		e->rx_received = sst_rob_read_offset(&s->rx->rob) + sst_rob_readable(&s->rx->rob);
		e->rx_buffered = sst_rob_buffered(&s->rx->rob);
		e->rx_window = s->rx->fc.adv_credit;
	}
}

/* The stream at entry i of space sp and its SID, or NULL: a free or quiet
 * entry, or a SID parked for a Reset (the channel's held marker). */
static const struct sst_stream *
entry_stream(
	const struct sst_stream_chan *c, const struct sst_sid_space *sp, uint32_t i, uint16_t *sid)
{
	const struct sst_stream *s = sst_sid_entry(sp, i, sid);

	return s == &c->held ? NULL : s;
}

uint32_t
sst_stream_chan_walk(
	const struct sst_stream_chan *c, uint32_t from, sst_stream_walk_fn fn, void *arg)
{
	const struct sst_sid_space *tx = c->tx_sids, *rx = c->rx_sids;
	uint32_t end = tx->entries + rx->entries;
	struct sst_stream_walk_entry e;

	for (uint32_t pos = from; pos < end; pos++) {
		bool ours = pos < tx->entries;
		const struct sst_sid_space *sp = ours ? tx : rx;
		uint32_t i = ours ? pos : pos - tx->entries;
		uint16_t sid = 0;
		const struct sst_stream *s = entry_stream(c, sp, i, &sid);

		if (s == NULL)
			continue;
		if (!ours && sst_sid_lookup(tx, s->tx_sid) == s)
			continue; /* shown under its transmit SID */
		describe(s, sid, ours, &e);
		if (fn(&e, arg) != 0)
			return pos + 1;
	}
	return 0;
}
