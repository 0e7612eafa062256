/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-cat --echo: an echo service. Every stream of the service and every
 * substream of those (to any depth) gets back what it sends, byte for
 * byte and message for message (the received mbufs are written back: zero
 * copy); a datagram is answered with a datagram on the same stream; a
 * stream's end is answered with ours. Serves until interrupted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cat.h"

enum { READ_BURST = 32 };

/* One echoed stream: what was read and not yet written back. */
struct echo_stream {
	struct sst_stream *s;
	struct sst_stream_data pend[READ_BURST];
	uint32_t head, n;
	bool eof;
	struct echo_stream *prev, *next;
};

struct cat_echo {
	const struct cat_conf *conf;
	struct tool_host *h;
	struct echo_stream *all;
	bool closing;
	/* A stream's end reported inside a read of it: acted on after. */
	struct sst_stream *in_read;
	bool close_pending;
	uint64_t streams, dgrams, dgrams_dropped;
	sst_time_t next_stats; /**< the next --stats line */
};

static struct echo_stream *
track(struct cat_echo *e, struct sst_stream *s)
{
	struct echo_stream *st = calloc(1, sizeof(*st));

	if (st == NULL) {
		sst_stream_reset(s, tool_now());
		sst_stream_close(s, tool_now());
		return NULL;
	}
	st->s = s;
	st->next = e->all;
	if (e->all != NULL)
		e->all->prev = st;
	e->all = st;
	sst_stream_set_user(s, st);
	/* Substreams of an echoed stream are echoed too. */
	sst_stream_listen_substream(s, true);
	e->streams++;
	return st;
}

static void
untrack(struct cat_echo *e, struct echo_stream *st, bool reset, sst_time_t now)
{
	while (st->n > 0) {
		rte_pktmbuf_free(st->pend[st->head].m);
		st->head = (st->head + 1) % READ_BURST;
		st->n--;
	}
	sst_stream_set_user(st->s, NULL);
	if (reset)
		sst_stream_reset(st->s, now);
	sst_stream_close(st->s, now);
	if (st->prev != NULL)
		st->prev->next = st->next;
	else
		e->all = st->next;
	if (st->next != NULL)
		st->next->prev = st->prev;
	free(st);
}

/* Write back what is pending. @return false while some is left. */
static bool
write_back(struct echo_stream *st, sst_time_t now)
{
	while (st->n > 0) {
		struct sst_stream_data *d = &st->pend[st->head];
		int rc = sst_stream_write(st->s, d->m, d->flags, now);

		if (rc == -EAGAIN)
			return false; /* ops.writable() brings us back */
		if (rc < 0)
			rte_pktmbuf_free(d->m);
		st->head = (st->head + 1) % READ_BURST;
		st->n--;
	}
	return true;
}

static void
pump(struct cat_echo *e, struct echo_stream *st, sst_time_t now)
{
	struct sst_stream_data d[READ_BURST];
	struct rte_mbuf *m;
	bool closed;
	int k = 0;

	while ((m = sst_stream_recv_datagram(st->s, now)) != NULL) {
		e->dgrams++;
		if (sst_stream_send_datagram(st->s, m, now) < 0) {
			/* No room in the congestion window: a datagram may be lost. */
			rte_pktmbuf_free(m);
			e->dgrams_dropped++;
		}
	}
	e->in_read = st->s;
	while (write_back(st, now) && !st->eof) {
		k = sst_stream_read(st->s, d, READ_BURST, now);
		if (k <= 0)
			break;
		for (int i = 0; i < k; i++)
			st->pend[(st->head + st->n++) % READ_BURST] = d[i];
	}
	e->in_read = NULL;
	closed = e->close_pending;
	e->close_pending = false;
	if (k == -EPIPE)
		st->eof = true;
	if (k == -ECONNRESET || closed) {
		untrack(e, st, false, now);
		return;
	}
	if (st->eof && st->n == 0) {
		sst_stream_shutdown(st->s, now);
		untrack(e, st, false, now);
	}
}

static void
op_accepted(void *ctx, struct sst_stream *parent, struct sst_stream *s, void *svc, sst_time_t now)
{
	struct cat_echo *e = ctx;
	struct echo_stream *st;

	(void)svc;
	if (e->closing)
		return;
	if (parent != NULL)
		s = sst_stream_accept_substream(parent, now);
	if (s == NULL)
		return;
	if (parent == NULL && e->conf->verbose) {
		char kind[64];

		fprintf(stderr, "sst-cat: echoing a stream (%s)\n",
			cat_peer_kind(e->conf, sst_stream_peer_of(s), kind, sizeof(kind)));
	}
	st = track(e, s);
	if (st != NULL)
		pump(e, st, now);
}

static void
op_readable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct cat_echo *e = ctx;
	struct echo_stream *st = sst_stream_user(s);

	if (!e->closing && st != NULL)
		pump(e, st, now);
}

static void
op_closed(void *ctx, struct sst_stream *s, enum sst_stream_end why, sst_time_t now)
{
	struct cat_echo *e = ctx;
	struct echo_stream *st = sst_stream_user(s);

	(void)why;
	if (e->closing || st == NULL)
		return;
	if (s == e->in_read) {
		e->close_pending = true;
		return;
	}
	untrack(e, st, false, now);
}

const struct sst_stream_ops cat_echo_stream_ops = {
	.accepted = op_accepted,
	.readable = op_readable,
	.writable = op_readable,
	.closed = op_closed,
};

struct cat_echo *
cat_echo_new(const struct cat_conf *c)
{
	struct cat_echo *e = calloc(1, sizeof(*e));

	if (e != NULL)
		e->conf = c;
	return e;
}

int
cat_echo_start(struct cat_echo *e, struct tool_host *h)
{
	e->h = h;
	if (tool_host_listen(h, e->conf->service, e->conf->protocol, NULL) < 0) {
		fprintf(stderr, "sst-cat: cannot offer service '%s' protocol '%s'\n",
			e->conf->service, e->conf->protocol);
		return -1;
	}
	return 0;
}

/* --stats: what an operator watches on a long-running echo service. */
bool
cat_echo_tick(void *arg)
{
	struct cat_echo *e = arg;
	struct tool_counters k;
	sst_time_t now;

	if (e->conf->stats_ns == 0)
		return false;
	now = tool_now();
	if (now < e->next_stats)
		return false;
	e->next_stats = now + e->conf->stats_ns;
	tool_host_counters(e->h, &k);
	fprintf(stderr,
		"sst-cat: stats: peers %llu, channels %llu, streams %llu; since start: peers "
		"freed %llu, dead peers %llu, restarted peers %llu, streams echoed %llu, refused "
		"over a peer's share %llu streams and %llu buffers, no control block %llu; "
		"negotiation: %llu messages, %llu challenged, %llu rate-limited, %llu established, "
		"under load %llu times; link: %llu packets %llu bytes in, %llu packets %llu bytes "
		"out\n",
		(unsigned long long)k.peers_open, (unsigned long long)k.channels_open,
		(unsigned long long)k.streams_live, (unsigned long long)k.peers_freed,
		(unsigned long long)k.dead_peers, (unsigned long long)k.restarts,
		(unsigned long long)e->streams, (unsigned long long)k.peer_streams_refused,
		(unsigned long long)k.peer_buffers_refused, (unsigned long long)k.no_stream,
		(unsigned long long)k.nego_rx_msgs, (unsigned long long)k.nego_challenged,
		(unsigned long long)k.nego_rate_limited, (unsigned long long)k.nego_established,
		(unsigned long long)k.nego_load_on, (unsigned long long)k.link_rx_packets,
		(unsigned long long)k.link_rx_bytes, (unsigned long long)k.link_tx_packets,
		(unsigned long long)k.link_tx_bytes);
	return false;
}

void
cat_echo_quiesce(struct cat_echo *e)
{
	if (e == NULL)
		return;
	e->closing = true;
	for (struct echo_stream *st = e->all; st != NULL; st = st->next)
		while (st->n > 0) {
			rte_pktmbuf_free(st->pend[st->head].m);
			st->head = (st->head + 1) % READ_BURST;
			st->n--;
		}
}

void
cat_echo_destroy(struct cat_echo *e)
{
	if (e == NULL)
		return;
	if (e->conf->verbose)
		fprintf(stderr, "sst-cat: echoed %llu streams and substreams, %llu datagrams\n",
			(unsigned long long)e->streams, (unsigned long long)e->dgrams);
	while (e->all != NULL) {
		struct echo_stream *st = e->all;

		e->all = st->next;
		free(st);
	}
	free(e);
}
