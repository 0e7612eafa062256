/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-cat's session: standard input to one stream, the stream to standard
 * output. The client opens the stream (and with --substreams N also sends
 * its input on N substreams, whose echo it checks byte for byte); a plain
 * listener takes the first stream that arrives. With --datagram, each
 * input line goes as a datagram and each datagram received is printed as
 * a line. The session ends when our input ended and was acknowledged and
 * the peer ended its side: both directions closed (the stream finished).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cat.h"
#include "sst_pool.h"

enum {
	READ_BURST = 32,
	IN_CHUNK = 16384, /**< stdin bytes read per pass at most */
	LINE_MAX_LEN = 65535,
};

struct cat_sub {
	struct sst_stream *s;
	struct rte_mbuf *pend; /**< input not yet taken by the stream */
	uint64_t rx;	       /**< bytes echoed back */
	uint64_t bad;	       /**< echoed bytes that differ from the input */
	bool eof;
};

struct cat {
	const struct cat_conf *conf;
	struct tool_host *h;
	struct sst_stream_peer *peer;
	struct sst_stream *s; /**< the stream */
	bool connected;	      /**< its service request was answered */
	struct rte_mbuf *pend;
	struct cat_sub sub[CAT_SUBSTREAMS_MAX];
	uint32_t nsub;
	/* --substreams: the input since the oldest byte not yet echoed on
	 * every substream (sent[0] is input byte sent_base). */
	uint8_t *sent;
	size_t sent_len, sent_cap;
	uint64_t sent_base, in_bytes;
	/* --datagram: the line being read. */
	char *line;
	size_t line_len;
	bool line_full; /**< a whole line waits for mbufs (the pool was empty) */
	/* Input read but not yet in mbufs: the pool was empty. It goes out
	 * before anything more is read: nothing read is ever dropped. */
	uint8_t held[IN_CHUNK];
	size_t held_len;
	struct rte_mbuf *dgram; /**< a datagram the window has no room for yet */
	bool in_eof, shut, peer_eof, finished, failed, done, closing;
	bool reread;			/**< data waits while standard output is full */
	struct sst_stream *foreign[16]; /**< the peer's substreams that wait so */
	uint32_t nforeign;
	struct cat_out out;
	sst_time_t give_up;
	/* A stream's end reported inside a read of it: acted on after. */
	struct sst_stream *in_read;
	bool close_pending;
	enum sst_stream_end close_why;
};

static void
fail(struct cat *cat, const char *what)
{
	if (!cat->failed)
		fprintf(stderr, "sst-cat: %s\n", what);
	cat->failed = true;
	cat->done = true;
}

/* ---- Input ---- */

static void
copy_bytes(const void *src, uint8_t *dst, uint64_t at, uint16_t len)
{
	memcpy(dst, (const uint8_t *)src + at, len);
}

/* The bytes [p, p + len) in mbufs of the host's pool. */
static struct rte_mbuf *
mbuf_of(struct cat *cat, const void *p, size_t len)
{
	return tool_mbuf_chain(tool_host_pool(cat->h), len, copy_bytes, p);
}

/* Hand a pending chunk to its stream. @return false while it waits. */
static bool
put(struct sst_stream *s, struct rte_mbuf **pend, sst_time_t now)
{
	int rc;

	if (*pend == NULL)
		return true;
	rc = sst_stream_write(s, *pend, 0, now);
	if (rc == -EAGAIN)
		return false; /* ops.writable() or the next pass */
	if (rc < 0)
		rte_pktmbuf_free(*pend);
	*pend = NULL;
	return true;
}

static bool
flush_pending(struct cat *cat, sst_time_t now)
{
	bool all = put(cat->s, &cat->pend, now);

	for (uint32_t i = 0; i < cat->nsub; i++)
		all = put(cat->sub[i].s, &cat->sub[i].pend, now) && all;
	if (cat->dgram != NULL) {
		if (sst_stream_send_datagram(cat->s, cat->dgram, now) == 0)
			cat->dgram = NULL;
		else
			all = false;
	}
	return all;
}

static int
remember(struct cat *cat, const uint8_t *p, size_t len)
{
	if (cat->sent_len + len > cat->sent_cap) {
		size_t cap = RTE_MAX(cat->sent_cap * 2, cat->sent_len + len + 65536);
		uint8_t *n = realloc(cat->sent, cap);

		if (n == NULL)
			return -1;
		cat->sent = n;
		cat->sent_cap = cap;
	}
	memcpy(cat->sent + cat->sent_len, p, len);
	cat->sent_len += len;
	return 0;
}

/* Forget the input every substream has echoed. */
static void
trim_sent(struct cat *cat)
{
	uint64_t low = UINT64_MAX, drop;

	for (uint32_t i = 0; i < cat->nsub; i++)
		low = RTE_MIN(low, cat->sub[i].rx);
	drop = low - cat->sent_base;
	if (drop < (1u << 20))
		return;
	memmove(cat->sent, cat->sent + drop, cat->sent_len - drop);
	cat->sent_len -= drop;
	cat->sent_base = low;
}

/* The bytes in mbufs for the stream and each substream, all or none.
 * @return false when the pool had too few (the caller keeps the bytes). */
static bool
take_bytes(struct cat *cat, const uint8_t *p, size_t len)
{
	struct rte_mbuf *m[1 + CAT_SUBSTREAMS_MAX];

	for (uint32_t i = 0; i <= cat->nsub; i++) {
		m[i] = mbuf_of(cat, p, len);
		if (m[i] == NULL) {
			while (i-- > 0)
				rte_pktmbuf_free(m[i]);
			return false;
		}
	}
	cat->pend = m[0];
	for (uint32_t i = 0; i < cat->nsub; i++)
		cat->sub[i].pend = m[1 + i];
	if (cat->nsub > 0 && remember(cat, p, len) < 0)
		fail(cat, "out of memory for the substream check");
	cat->in_bytes += len;
	return true;
}

/* The line read so far goes out as a datagram, or waits (line_full) for
 * mbufs to come back. */
static void
line_out(struct cat *cat)
{
	cat->dgram = mbuf_of(cat, cat->line, cat->line_len);
	cat->line_full = cat->dgram == NULL;
	if (!cat->line_full)
		cat->line_len = 0;
}

/* --datagram: whole lines go out, one datagram each (without the newline);
 * a line longer than a datagram is cut. The caller reads one byte at a
 * time, so at most one datagram is made per call. */
static void
take_lines(struct cat *cat, const uint8_t *p, size_t len, bool eof)
{
	while (len > 0) {
		const uint8_t *nl = memchr(p, '\n', len);
		size_t k = nl != NULL ? (size_t)(nl - p) : len;
		bool cut = k > LINE_MAX_LEN - cat->line_len;

		if (cut)
			k = LINE_MAX_LEN - cat->line_len;
		memcpy(cat->line + cat->line_len, p, k);
		cat->line_len += k;
		p += k;
		len -= k;
		if (!cut && nl != NULL) {
			p++;
			len--;
		}
		if (cut || nl != NULL)
			line_out(cat);
	}
	if (eof && cat->line_len > 0)
		line_out(cat);
}

/* Input is copied into the pool the stream layer also takes headers and
 * control packets from: reading waits while less than a quarter of the
 * pool's largest size is free, so queued input never starves the sending
 * that frees it (a send buffer larger than the pool would deadlock). */
static bool
pool_low(const struct cat *cat)
{
	const struct rte_mempool *mp = tool_host_pool(cat->h);

	return sst_pool_in_use(mp) + mp->size / 4 >= mp->size;
}

static void
pump_input(struct cat *cat, sst_time_t now)
{
	static uint8_t buf[IN_CHUNK];
	/* --datagram reads a line's worth at a time so that no line waits
	 * behind another in our buffer. */
	size_t want = cat->conf->datagram ? 1 : sizeof(buf);

	if (cat->s == NULL || cat->in_eof || !flush_pending(cat, now))
		return;
	if (cat->conf->datagram && !cat->connected)
		return; /* datagrams on a stream the peer knows of */
	if (cat->line_full)
		line_out(cat);
	if (cat->held_len > 0 && take_bytes(cat, cat->held, cat->held_len))
		cat->held_len = 0;
	if (cat->line_full || cat->held_len > 0 || !flush_pending(cat, now) || pool_low(cat))
		return;
	for (int n = 0; n < 4096 && !cat->in_eof && !cat->line_full && !pool_low(cat); n++) {
		ssize_t k = cat_in_read(0, buf, want);

		if (k == 0)
			break;
		if (k < 0) {
			cat->in_eof = true;
			if (cat->conf->datagram)
				take_lines(cat, buf, 0, true);
		} else if (cat->conf->datagram) {
			take_lines(cat, buf, (size_t)k, false);
		} else if (!take_bytes(cat, buf, (size_t)k)) {
			memcpy(cat->held, buf, (size_t)k);
			cat->held_len = (size_t)k;
			break;
		}
		if (!flush_pending(cat, now) || !cat->conf->datagram)
			break;
	}
	if (cat->in_eof && !cat->line_full && cat->held_len == 0 && flush_pending(cat, now) &&
		!cat->shut) {
		sst_stream_shutdown(cat->s, now);
		for (uint32_t i = 0; i < cat->nsub; i++)
			sst_stream_shutdown(cat->sub[i].s, now);
		cat->shut = true;
	}
}

/* ---- Output ---- */

static void
check_echo(struct cat *cat, struct cat_sub *sub, struct rte_mbuf *m)
{
	for (struct rte_mbuf *seg = m; seg != NULL; seg = seg->next) {
		const uint8_t *p = rte_pktmbuf_mtod(seg, const uint8_t *);
		uint32_t len = rte_pktmbuf_data_len(seg);

		for (uint32_t i = 0; i < len; i++, sub->rx++)
			sub->bad += sub->rx >= cat->in_bytes ||
				    p[i] != cat->sent[sub->rx - cat->sent_base];
	}
	rte_pktmbuf_free(m);
	trim_sent(cat);
}

static void stream_closed(struct cat *cat, struct sst_stream *s, enum sst_stream_end why);

static void
forget_foreign(struct cat *cat, struct sst_stream *s)
{
	for (uint32_t i = 0; i < cat->nforeign; i++)
		if (cat->foreign[i] == s)
			cat->foreign[i--] = cat->foreign[--cat->nforeign];
}

/* Read a stream while standard output has room. */
static void
drain(struct cat *cat, struct sst_stream *s, sst_time_t now)
{
	struct cat_sub *sub = sst_stream_user(s) != cat ? sst_stream_user(s) : NULL;
	struct sst_stream_data d[READ_BURST];
	struct rte_mbuf *m;
	enum sst_stream_end why = SST_STREAM_FINISHED;
	bool closed;
	int k = 0;

	cat->in_read = s;
	while (sub == NULL && cat_out_room(&cat->out) &&
		(m = sst_stream_recv_datagram(s, now)) != NULL)
		cat_out_push(&cat->out, m, true);
	while (sub != NULL || cat_out_room(&cat->out)) {
		uint16_t room = sub != NULL
					? READ_BURST
					: (uint16_t)RTE_MIN(READ_BURST, CAT_OUT_MAX - cat->out.n);

		k = sst_stream_read(s, d, room, now);
		if (k <= 0)
			break;
		for (int i = 0; i < k; i++) {
			if (sub != NULL)
				check_echo(cat, sub, d[i].m);
			else
				cat_out_push(&cat->out, d[i].m, false);
		}
	}
	cat->in_read = NULL;
	closed = cat->close_pending;
	why = cat->close_why;
	cat->close_pending = false;
	if (k > 0 || (sub == NULL && !cat_out_room(&cat->out)))
		cat->reread = true; /* stopped for room: go on after a flush */
	if (k > 0 && sub == NULL && s != cat->s && cat->nforeign < RTE_DIM(cat->foreign)) {
		forget_foreign(cat, s);
		cat->foreign[cat->nforeign++] = s;
	}
	if (k == -EPIPE) {
		if (sub != NULL) {
			sub->eof = true;
		} else if (s == cat->s) {
			cat->peer_eof = true;
		} else if (!closed) {
			/* A substream the peer opened: we only read it. */
			forget_foreign(cat, s);
			sst_stream_shutdown(s, now);
			sst_stream_close(s, now);
			return;
		}
	}
	if (k == -ECONNRESET && !closed) {
		closed = true;
		why = SST_STREAM_RESET_REMOTE;
	}
	if (closed)
		stream_closed(cat, s, why);
}

/* ---- The end ---- */

static void
stream_closed(struct cat *cat, struct sst_stream *s, enum sst_stream_end why)
{
	if (s == cat->s) {
		if (why != SST_STREAM_FINISHED)
			fail(cat, why == SST_STREAM_REFUSED	? "the service was refused"
				  : why == SST_STREAM_TIMED_OUT ? "the peer stopped answering"
								: "the stream was reset");
		cat->finished = true;
		return;
	}
	/* A substream: ours ends after its echo; any other is just done. */
	if (why != SST_STREAM_FINISHED && sst_stream_user(s) != NULL)
		fail(cat, "a substream was reset");
	if (sst_stream_user(s) == NULL) {
		forget_foreign(cat, s);
		sst_stream_close(s, tool_now());
	}
}

static bool
subs_done(const struct cat *cat)
{
	for (uint32_t i = 0; i < cat->nsub; i++)
		if (!cat->sub[i].eof)
			return false;
	return true;
}

static void
check_done(struct cat *cat)
{
	if (cat->done || !cat->finished || !cat_out_empty(&cat->out) || !subs_done(cat))
		return;
	for (uint32_t i = 0; i < cat->nsub; i++) {
		struct cat_sub *sub = &cat->sub[i];
		bool ok = sub->bad == 0 && sub->rx == cat->in_bytes;

		if (cat->conf->verbose || !ok)
			fprintf(stderr, "sst-cat: substream %u: %llu of %llu bytes echoed, %s\n",
				i + 1, (unsigned long long)sub->rx,
				(unsigned long long)cat->in_bytes, ok ? "all right" : "MISMATCH");
		if (!ok)
			cat->failed = true;
	}
	cat->done = true;
}

/* ---- Callbacks ---- */

static void
op_accepted(void *ctx, struct sst_stream *parent, struct sst_stream *s, void *svc, sst_time_t now)
{
	struct cat *cat = ctx;

	(void)svc;
	if (cat->closing)
		return;
	if (parent != NULL) {
		/* A substream the peer opened: printed like the stream. */
		s = sst_stream_accept_substream(parent, now);
		if (s != NULL)
			drain(cat, s, now);
		return;
	}
	if (cat->s != NULL) {
		sst_stream_reset(s, now); /* one stream at a time */
		sst_stream_close(s, now);
		return;
	}
	cat->s = s;
	cat->connected = true;
	sst_stream_set_user(s, cat);
	sst_stream_listen_substream(s, true);
	if (cat->conf->verbose)
		fprintf(stderr, "sst-cat: stream accepted\n");
	drain(cat, s, now);
}

static void
op_readable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct cat *cat = ctx;

	if (!cat->closing && !cat->done)
		drain(cat, s, now);
}

static void
op_writable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct cat *cat = ctx;

	(void)s;
	if (!cat->closing && !cat->done)
		pump_input(cat, now);
}

static void
op_connected(void *ctx, struct sst_stream *s, int err, sst_time_t now)
{
	struct cat *cat = ctx;

	(void)now;
	if (cat->closing || s != cat->s)
		return;
	if (err != 0) {
		fail(cat, err == -ECONNREFUSED ? "the peer does not offer that service and protocol"
					       : "the stream was reset before the peer answered");
		return;
	}
	cat->connected = true;
}

static void
op_closed(void *ctx, struct sst_stream *s, enum sst_stream_end why, sst_time_t now)
{
	struct cat *cat = ctx;

	(void)now;
	if (cat->closing)
		return;
	if (s == cat->in_read) {
		cat->close_pending = true;
		cat->close_why = why;
		return;
	}
	stream_closed(cat, s, why);
}

const char *
cat_peer_kind(const struct cat_conf *c, const struct sst_stream_peer *peer, char *buf, size_t len)
{
	uint32_t caps = sst_stream_peer_caps(peer);

	if (c->legacy)
		return "we pose as the 2007 prototype: no extensions either way";
	if (caps == SST_CAPS_LEGACY)
		return "legacy peer (empty ulp blob): only what the 2007 prototype supports";
	snprintf(buf, len, "SST-DPDK peer, capabilities 0x%x", (unsigned int)caps);
	return buf;
}

static void
op_peer_ready(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	struct cat *cat = ctx;
	char kind[64];

	(void)ep;
	cat->peer = peer;
	if (cat->conf->verbose)
		fprintf(stderr, "sst-cat: channel up (%s mode; %s)\n",
			cat->conf->secure ? "secure" : "checksum",
			cat_peer_kind(cat->conf, peer, kind, sizeof(kind)));
}

/* No channel came up; @p why says what ended the wait. */
static void
fail_no_channel(struct cat *cat, const char *why)
{
	char msg[128];

	snprintf(msg, sizeof(msg), "%s (%s)",
		cat->conf->known_hosts_file != NULL
			? "no channel: no answer, or the server's key is not in the known hosts"
			: "no answer from the peer",
		why);
	fail(cat, msg);
}

static void
op_connect_failed(void *ctx, const struct sst_net_endpoint *ep, int err)
{
	struct cat *cat = ctx;

	(void)ep;
	if (cat->closing || cat->peer != NULL)
		return;
	/* The server answered SecI1 with a refusal (docs/secure-mode.md 3.6). */
	if (err == -ENOTSUP)
		fail(cat, "no common cipher suite: the server accepts none of the suites we "
			  "offer");
	else
		fail_no_channel(cat, "negotiation timed out");
}

static void
open_stream(struct cat *cat, sst_time_t now)
{
	cat->s = sst_stream_connect(cat->peer, cat->conf->service, cat->conf->protocol, now);
	if (cat->s == NULL) {
		fail(cat, "cannot open a stream");
		return;
	}
	sst_stream_set_user(cat->s, cat);
	sst_stream_listen_substream(cat->s, true);
	for (uint32_t i = 0; i < cat->conf->substreams; i++) {
		cat->sub[i].s = sst_stream_create_substream(cat->s, now);
		if (cat->sub[i].s == NULL) {
			fail(cat, "cannot open a substream");
			return;
		}
		sst_stream_set_user(cat->sub[i].s, &cat->sub[i]);
		cat->nsub++;
	}
}

static void
op_app_poll(void *ctx, struct sst_worker *w, sst_time_t now)
{
	struct cat *cat = ctx;

	(void)w;
	if (cat->closing || cat->done)
		return;
	/* --timeout bounds the whole connect, in every mode: a secure channel
	 * is up at SecR1, before the server has proven it will serve us, and a
	 * server that goes silent then must not keep us waiting for good. */
	if (!cat->conf->listen && !cat->connected && now >= cat->give_up) {
		if (cat->peer != NULL)
			fail(cat, "the channel is up but the service request got no answer "
				  "(--timeout)");
		else
			fail_no_channel(cat, "--timeout");
		return;
	}
	if (!cat->conf->listen && cat->peer != NULL && cat->s == NULL)
		open_stream(cat, now);
	pump_input(cat, now);
	cat_out_flush(&cat->out);
	if (cat->out.error) {
		fail(cat, "standard output failed");
		return;
	}
	if (cat->reread && cat_out_room(&cat->out)) {
		cat->reread = false;
		if (cat->s != NULL)
			drain(cat, cat->s, now);
	}
	while (cat->nforeign > 0 && cat_out_room(&cat->out))
		drain(cat, cat->foreign[--cat->nforeign], now);
	check_done(cat);
}

const struct sst_stream_ops cat_stream_ops = {
	.connected = op_connected,
	.accepted = op_accepted,
	.readable = op_readable,
	.writable = op_writable,
	.closed = op_closed,
};

/* The peer had neither channel nor stream left: forget it (a new channel
 * makes a new one). */
static void
op_peer_gone(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	struct cat *cat = ctx;

	(void)ep;
	if (cat->peer == peer)
		cat->peer = NULL;
}

const struct sst_worker_ops cat_worker_ops = {
	.peer_ready = op_peer_ready,
	.peer_gone = op_peer_gone,
	.connect_failed = op_connect_failed,
	.app_poll = op_app_poll,
};

/* ---- Life cycle ---- */

struct cat *
cat_new(const struct cat_conf *c)
{
	struct cat *cat = calloc(1, sizeof(*cat));

	if (cat == NULL)
		return NULL;
	cat->conf = c;
	cat->out.fd = 1;
	if (c->datagram) {
		cat->line = malloc(LINE_MAX_LEN);
		if (cat->line == NULL) {
			free(cat);
			return NULL;
		}
	}
	return cat;
}

int
cat_start(struct cat *cat, struct tool_host *h)
{
	sst_time_t now = tool_now();
	int rc;

	cat->h = h;
	cat->give_up = now + cat->conf->timeout_ns;
	if (cat->conf->listen) {
		if (tool_host_listen(h, cat->conf->service, cat->conf->protocol, NULL) < 0) {
			fprintf(stderr, "sst-cat: cannot offer service '%s' protocol '%s'\n",
				cat->conf->service, cat->conf->protocol);
			return -1;
		}
		return 0;
	}
	rc = tool_host_connect(h, &cat->conf->peer, now);
	if (rc < 0) {
		fprintf(stderr, "sst-cat: cannot start a channel: %s\n", strerror(-rc));
		return -1;
	}
	return 0;
}

bool
cat_done(const struct cat *cat)
{
	/* Standard output is flushed after a failure too, as far as it goes. */
	return cat->done && (cat->failed || cat_out_empty(&cat->out));
}

int
cat_status(const struct cat *cat)
{
	return cat->failed ? 1 : 0;
}

void
cat_quiesce(struct cat *cat)
{
	if (cat == NULL || cat->closing)
		return;
	/* Handles go back first, so that the channel is unused and can end
	 * by FINISH. */
	for (uint32_t i = 0; i < cat->nsub; i++) {
		if (cat->sub[i].s != NULL)
			sst_stream_close(cat->sub[i].s, tool_now());
		cat->sub[i].s = NULL;
	}
	if (cat->s != NULL)
		sst_stream_close(cat->s, tool_now());
	cat->s = NULL;
	cat->closing = true;
	rte_pktmbuf_free(cat->pend);
	rte_pktmbuf_free(cat->dgram);
	cat->pend = cat->dgram = NULL;
	for (uint32_t i = 0; i < cat->nsub; i++) {
		rte_pktmbuf_free(cat->sub[i].pend);
		cat->sub[i].pend = NULL;
	}
	cat_out_drop(&cat->out);
}

void
cat_destroy(struct cat *cat)
{
	if (cat == NULL)
		return;
	free(cat->sent);
	free(cat->line);
	free(cat);
}
