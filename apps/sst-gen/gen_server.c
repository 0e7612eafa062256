/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen server: the far end of the stateful mode. Every stream of the
 * service is a request whose first GEN_HEADER_LEN bytes say its tag and the
 * response size it wants; the server checks every byte of the request
 * against the content (gen_payload.c), answers with that many bytes of the
 * same content and ends its direction once the request ended and the
 * response is written. Requests shorter than the header are answered as an
 * echo server would (the bytes themselves), so any client gets an answer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "gen.h"
#include "sst_engine.h"
#include "sst_worker.h"
#include "tool_args.h"

enum { READ_BURST = 32 };

struct srv_flow {
	struct sst_stream *s;
	uint8_t hdr[GEN_HEADER_LEN];
	uint64_t tag;
	uint32_t resp;
	uint64_t rx, tx;
	bool eof, shut;
	struct srv_flow *prev, *next;
};

struct gen_server {
	const struct gen_conf *c;
	struct tool_host *h;
	struct srv_flow *all;
	bool closing;
	struct sst_stream *in_read;
	bool close_pending;
	uint64_t streams, answered, failed, verify_errors, rx_bytes, tx_bytes;
	sst_time_t next_tick;
};

static void
untrack(struct gen_server *sv, struct srv_flow *f, sst_time_t now)
{
	sst_stream_set_user(f->s, NULL);
	sst_stream_close(f->s, now);
	if (f->prev != NULL)
		f->prev->next = f->next;
	else
		sv->all = f->next;
	if (f->next != NULL)
		f->next->prev = f->prev;
	free(f);
}

/* Write the response as far as the send buffer takes it. @return false
 * when the stream failed. */
static bool
respond(struct gen_server *sv, struct srv_flow *f, sst_time_t now)
{
	while (f->tx < f->resp) {
		uint32_t len = (uint32_t)RTE_MIN(f->resp - f->tx, (uint64_t)GEN_CHUNK);
		struct rte_mbuf *m = rte_pktmbuf_alloc(tool_host_pool(sv->h));
		uint8_t *p = m != NULL ? (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len) : NULL;
		int rc;

		if (p == NULL) {
			rte_pktmbuf_free(m);
			return true; /* the pool refills as packets leave */
		}
		gen_fill(p, f->tag, f->resp, f->tx, len);
		rc = sst_stream_write(f->s, m, 0, now);
		if (rc < 0) {
			rte_pktmbuf_free(m);
			return rc == -EAGAIN;
		}
		f->tx += len;
		sv->tx_bytes += len;
	}
	return true;
}

/* Take request bytes: the header first (it says what to answer), then the
 * rest, checked. Short requests are kept to be echoed. */
static uint64_t
take(struct srv_flow *f, const uint8_t *p, uint32_t len)
{
	uint64_t bad = 0;

	while (len > 0 && f->rx < GEN_HEADER_LEN) {
		f->hdr[f->rx++] = *p++;
		len--;
		if (f->rx == GEN_HEADER_LEN) {
			for (int i = 0; i < 8; i++)
				f->tag = f->tag << 8 | f->hdr[i];
			f->resp = (uint32_t)f->hdr[8] << 24 | (uint32_t)f->hdr[9] << 16 |
				  (uint32_t)f->hdr[10] << 8 | f->hdr[11];
		}
	}
	if (len > 0) {
		bad = gen_check(p, f->tag, f->resp, f->rx, len);
		f->rx += len;
	}
	return bad;
}

/* A request shorter than the header: answer with its bytes. */
static void
echo_short(struct gen_server *sv, struct srv_flow *f, sst_time_t now)
{
	struct rte_mbuf *m;
	uint8_t *p;

	if (f->rx == 0)
		return;
	m = rte_pktmbuf_alloc(tool_host_pool(sv->h));
	p = m != NULL ? (uint8_t *)rte_pktmbuf_append(m, (uint16_t)f->rx) : NULL;
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	memcpy(p, f->hdr, f->rx);
	if (sst_stream_write(f->s, m, 0, now) < 0)
		rte_pktmbuf_free(m);
	f->tx = f->rx;
}

static void
pump(struct gen_server *sv, struct srv_flow *f, sst_time_t now)
{
	struct sst_stream_data d[READ_BURST];
	uint64_t bad = 0;
	bool closed;
	int k = 0;

	sv->in_read = f->s;
	while (!f->eof && (k = sst_stream_read(f->s, d, READ_BURST, now)) > 0)
		for (int i = 0; i < k; i++) {
			for (struct rte_mbuf *seg = d[i].m; seg != NULL; seg = seg->next) {
				bad += take(
					f, rte_pktmbuf_mtod(seg, const uint8_t *), seg->data_len);
				sv->rx_bytes += seg->data_len;
			}
			rte_pktmbuf_free(d[i].m);
		}
	sv->in_read = NULL;
	closed = sv->close_pending;
	sv->close_pending = false;
	sv->verify_errors += bad;
	if (k == -EPIPE) {
		f->eof = true;
		if (f->rx < GEN_HEADER_LEN)
			echo_short(sv, f, now);
	}
	if (closed || k == -ECONNRESET || bad != 0 ||
		(f->rx >= GEN_HEADER_LEN && !respond(sv, f, now))) {
		sv->failed++;
		if (bad != 0)
			sst_stream_reset(f->s, now);
		untrack(sv, f, now);
		return;
	}
	if (f->eof && (f->tx >= f->resp || f->rx < GEN_HEADER_LEN) && !f->shut) {
		f->shut = true;
		sst_stream_shutdown(f->s, now);
		sv->answered++;
		untrack(sv, f, now);
	}
}

static void
op_accepted(void *ctx, struct sst_stream *parent, struct sst_stream *s, void *svc, sst_time_t now)
{
	struct gen_server *sv = ctx;
	struct srv_flow *f;

	(void)svc;
	if (sv->closing || parent != NULL)
		return;
	f = calloc(1, sizeof(*f));
	if (f == NULL) {
		sst_stream_reset(s, now);
		sst_stream_close(s, now);
		return;
	}
	f->s = s;
	f->next = sv->all;
	if (sv->all != NULL)
		sv->all->prev = f;
	sv->all = f;
	sst_stream_set_user(s, f);
	sv->streams++;
	pump(sv, f, now);
}

static void
op_readable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct gen_server *sv = ctx;
	struct srv_flow *f = sst_stream_user(s);

	if (!sv->closing && f != NULL)
		pump(sv, f, now);
}

static void
op_closed(void *ctx, struct sst_stream *s, enum sst_stream_end why, sst_time_t now)
{
	struct gen_server *sv = ctx;
	struct srv_flow *f = sst_stream_user(s);

	(void)why;
	if (sv->closing || f == NULL)
		return;
	if (s == sv->in_read) {
		sv->close_pending = true;
		return;
	}
	sv->failed++;
	untrack(sv, f, now);
}

const struct sst_stream_ops gen_server_stream_ops = {
	.accepted = op_accepted,
	.readable = op_readable,
	.writable = op_readable,
	.closed = op_closed,
};

struct gen_server *
gen_server_new(const struct gen_conf *c)
{
	struct gen_server *sv = calloc(1, sizeof(*sv));

	if (sv != NULL)
		sv->c = c;
	return sv;
}

int
gen_server_start(struct gen_server *sv, struct tool_host *h)
{
	sv->h = h;
	if (tool_host_listen(h, sv->c->service, sv->c->protocol, NULL) < 0) {
		fprintf(stderr, "sst-gen: cannot offer service '%s' protocol '%s'\n",
			sv->c->service, sv->c->protocol);
		return -1;
	}
	return 0;
}

void
gen_server_tick(struct gen_server *sv, bool last)
{
	struct tool_counters k;

	tool_host_counters(sv->h, &k);
	if (last) {
		/* How the channels came and went: one per client unless
		 * handshakes or channels were repeated (issue 21). */
		struct sst_engine *e = tool_host_engine(sv->h);
		struct gen_life l = {0};

		for (uint16_t i = 0; i < sst_engine_workers(e); i++)
			gen_life_add(&l, sst_engine_worker(e, i));
		gen_life_print("server", &l);
	}
	fprintf(stderr,
		"sst-gen server%s: channels %llu (made %llu), streams %llu answered %llu failed "
		"%llu, verify errors %llu, rx %llu B tx %llu B; negotiation: %llu messages, "
		"%llu challenged, %llu rate-limited, %llu established, %llu cookies ok, %llu "
		"cookies bad, %llu SecI2 unmatched; acks: %llu numbers "
		"skipped, %llu optimistic (channel failed), %llu beyond what was sent; streams "
		"open %llu, refused over a peer's share %llu\n",
		last ? " (end)" : "", (unsigned long long)k.channels_open,
		(unsigned long long)k.channels_made, (unsigned long long)sv->streams,
		(unsigned long long)sv->answered, (unsigned long long)sv->failed,
		(unsigned long long)sv->verify_errors, (unsigned long long)sv->rx_bytes,
		(unsigned long long)sv->tx_bytes, (unsigned long long)k.nego_rx_msgs,
		(unsigned long long)k.nego_challenged, (unsigned long long)k.nego_rate_limited,
		(unsigned long long)k.nego_established, (unsigned long long)k.nego_cookie_ok,
		(unsigned long long)k.nego_cookie_bad, (unsigned long long)k.nego_i2_unmatched,
		(unsigned long long)k.chan_tx_skipped, (unsigned long long)k.chan_optimistic_acks,
		(unsigned long long)k.chan_rx_ack_beyond, (unsigned long long)k.streams_live,
		(unsigned long long)k.peer_streams_refused);
}

void
gen_server_quiesce(struct gen_server *sv)
{
	if (sv != NULL)
		sv->closing = true;
}

void
gen_server_destroy(struct gen_server *sv)
{
	if (sv == NULL)
		return;
	while (sv->all != NULL) {
		struct srv_flow *f = sv->all;

		sv->all = f->next;
		free(f);
	}
	free(sv);
}

int
gen_server_run(const struct gen_conf *c)
{
	struct gen_server *sv = gen_server_new(c);
	struct tool_host_conf hc = {0};
	struct tool_net *net = NULL;
	char ep[80];
	int rc = 0;

	if (sv == NULL)
		return TOOL_EXIT_SETUP;
	hc.name = "gensrv";
	hc.armor = c->armor;
	hc.responder = true;
	hc.local = c->local;
	hc.mbufs = c->mbufs != 0 ? c->mbufs : 65535;
	/* Idle, it holds a few pages (issue 14: an idle tool under 32 MB):
	 * one worker, so no per-lcore pool caches (1 MB a pool), and stream
	 * buffers that grow from 16 each way. */
	hc.small_pools = true;
	/* --port --workers N: a queue per worker; a memif's two ends must
	 * have as many queues. */
	hc.workers = c->workers;
	hc.max_channels = c->max_channels;
	hc.cookie_period = c->cookie_period_ns;
	hc.load_high = c->load_high;
	hc.stream.max_streams = c->max_streams != 0 ? c->max_streams : 1u << 20;
	hc.stream.max_tx_buffers = 65536;
	hc.stream.max_rx_buffers = 65536;
	hc.stream.initial_buffers = 16;
	hc.stream.send_mbufs = 64;
	hc.stream.rx_pieces = 64;
	hc.stream.ops = &gen_server_stream_ops;
	hc.stream.ctx = sv;
	/* Clients hold their channels idle between rounds. */
	hc.idle_timeout = SST_TIME_NEVER;
	/* A target for --attack optimistic-ack: its channels skip numbers
	 * (every engine's do by default). */
	net = tool_net_open(&hc, &c->port);
	if (net == NULL || gen_server_start(sv, tool_net_host(net, 0)) < 0) {
		rc = TOOL_EXIT_SETUP;
		goto out;
	}
	tool_endpoint_text(tool_host_local(tool_net_host(net, 0)), ep, sizeof(ep));
	fprintf(stderr, "sst-gen: serving %s/%s on %s\n", c->service, c->protocol, ep);
	sv->next_tick = tool_now() + SST_NSEC_PER_SEC;
	while (!tool_interrupted) {
		tool_net_poll(net, true);
		if (!c->quiet && tool_now() >= sv->next_tick) {
			sv->next_tick += SST_NSEC_PER_SEC;
			gen_server_tick(sv, false);
		}
	}
	gen_server_tick(sv, true);
out:
	gen_server_quiesce(sv);
	tool_net_destroy(net);
	gen_server_destroy(sv);
	return rc;
}
