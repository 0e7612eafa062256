/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen client: N channels, each a worker on a UDP socket of its own
 * (from the --src address and port ranges), polled in turn by this thread,
 * or (--port) local endpoints of the port's workers, each worker making and
 * running its shard of them (gen_lcore.c). Each channel runs its workload:
 * streams opened in wl->concurrent slots, each a request of R bytes (then
 * our end), a response of S bytes checked byte by byte (none for bulk) and
 * the peer's end, or datagrams (gen_dgram.c); new channels and new streams
 * are paced by token buckets (--channel-rate, --stream-rate), which each
 * shard keeps for its share.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <sodium.h>

#include "gen_client.h"
#include "sst_secure.h"
#include "tool_args.h"

enum {
	READ_BURST = 32,
	CONNECTS_PER_PASS = 64, /* unpaced: handshakes started per pass */
	DEFAULT_MBUFS = 65535,
};

static struct sst_secure_config secure_conf;

static void
account_setup(struct gen_shard *sh, struct gen_chan *ch)
{
	uint64_t dt = rte_rdtsc() - ch->t_connect;

	gen_hist_add(&sh->setup, tool_tsc_to_ns(dt, sh->g->tsc_hz));
	sh->tot.setups++;
	sh->tot.up++;
}

void
gen_chan_ready(struct gen_chan *ch, struct sst_stream_peer *peer)
{
	ch->peer = peer;
	if (ch->state == CH_CONNECTING) {
		gen_chan_set_state(ch, CH_UP);
		account_setup(ch->sh, ch);
	}
	if (ch->state == CH_UP)
		gen_active_add(ch);
}

void
gen_chan_gone(struct gen_chan *ch, struct sst_stream_peer *peer)
{
	if (ch->peer == peer)
		ch->peer = NULL;
}

void
gen_chan_failed(struct gen_chan *ch)
{
	if (ch->state == CH_CONNECTING) {
		gen_chan_set_state(ch, CH_FAILED);
		ch->sh->tot.setup_failed++;
	}
}

static void
peer_ready(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	(void)ep;
	gen_chan_ready(ctx, peer);
}

static void
peer_gone(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	(void)ep;
	gen_chan_gone(ctx, peer);
}

static void
connect_failed(void *ctx, const struct sst_net_endpoint *ep, int err)
{
	(void)ep;
	(void)err;
	gen_chan_failed(ctx);
}

/* The channel's round is over when every stream of it ended: with --time
 * another round follows, otherwise the channel is done (and held). */
static void
round_check(struct gen_chan *ch)
{
	if (ch->live > 0 || ch->started < ch->wl->streams || ch->state != CH_UP)
		return;
	ch->rounds++;
	if (ch->g->c->time_ns != 0 && !ch->g->stopping) {
		ch->started = 0;
		return;
	}
	gen_chan_set_state(ch, CH_DONE);
}

/* A stream ended: @p ok when its whole response came back exact. */
static void
flow_end(struct gen_chan *ch, struct gen_flow *f, bool ok, sst_time_t now)
{
	struct gen_shard *sh = ch->sh;

	if (!f->live)
		return;
	f->live = false;
	if (ok) {
		sh->tot.txns++;
		sh->tot.payload_ok += (uint64_t)f->req + f->resp;
		/* The port's stamp on the response's last bytes (gen_clock.c),
		 * or now; a stamp placed before the start is the line's error. */
		gen_hist_add(
			&sh->txn, tool_tsc_to_ns((f->t_rx > f->t0 ? f->t_rx : rte_rdtsc()) - f->t0,
					  sh->g->tsc_hz));
	} else {
		sh->tot.stream_failed++;
		if (f->rx != f->resp)
			sh->tot.short_responses++;
	}
	sst_stream_set_user(f->s, NULL);
	sst_stream_close(f->s, now);
	f->s = NULL;
	f->ready_at = now + ch->wl->think_ns;
	ch->live--;
	sh->live--;
	round_check(ch);
	if (ch->state == CH_UP)
		gen_active_add(ch); /* a slot is free */
}

/*
 * The server refused the stream before answering (a server resets a
 * stream beyond a peer's share, or one it has no buffers for yet, to be
 * sent again: sst_stream_host_params): not a failure of the server, so the
 * slot opens it again after a millisecond, and the refusal is counted.
 */
static void
refused(struct gen_chan *ch, struct gen_flow *f, sst_time_t now)
{
	struct gen_shard *sh = ch->sh;

	f->live = false;
	sst_stream_set_user(f->s, NULL);
	sst_stream_close(f->s, now);
	f->s = NULL;
	f->ready_at = now + SST_NSEC_PER_SEC / 1000;
	ch->live--;
	sh->live--;
	ch->started--;
	sh->tot.streams--;
	sh->tot.refused++;
	gen_active_add(ch);
}

static void
write_some(struct gen_chan *ch, struct gen_flow *f, sst_time_t now)
{
	struct gen_client *g = ch->g;

	while (f->tx < f->req) {
		uint32_t len = RTE_MIN(f->req - f->tx, (uint32_t)GEN_CHUNK);
		struct rte_mbuf *m = rte_pktmbuf_alloc(g->pool);
		uint8_t *p = m != NULL ? (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len) : NULL;
		int rc;

		if (p == NULL) {
			rte_pktmbuf_free(m);
			return; /* the next pass tries again */
		}
		if (g->c->sst_perf)
			gen_perf_fill(p, f->tag, f->tx, len);
		else
			gen_fill(p, f->tag, f->resp, f->tx, len);
		/* --corrupt: the first byte past the header of every Nth stream. */
		if (g->c->corrupt_every != 0 && f->tx == 0 && len > GEN_HEADER_LEN &&
			(f->tag & ((1ull << 40) - 1)) % g->c->corrupt_every == 0)
			p[GEN_HEADER_LEN] ^= 0xff;
		rc = sst_stream_write(f->s, m, 0, now);
		if (rc < 0) {
			rte_pktmbuf_free(m);
			if (rc != -EAGAIN)
				flow_end(ch, f, false, now);
			return; /* -EAGAIN: ops.writable() brings us back */
		}
		f->tx += len;
		ch->sh->tot.payload_tx += len;
	}
	if (!f->shut && sst_stream_shutdown(f->s, now) == 0)
		f->shut = true;
}

/* Read what arrived and check it against the content. */
static void
drain(struct gen_chan *ch, struct gen_flow *f, sst_time_t now)
{
	struct gen_client *g = ch->g;
	struct sst_stream_data d[READ_BURST];
	uint64_t bad = 0;
	bool eof = false, closed;
	int k;

	ch->in_read = f->s;
	while ((k = sst_stream_read(f->s, d, READ_BURST, now)) > 0)
		for (int i = 0; i < k; i++) {
			f->t_rx = gen_clock_rx_tsc(&ch->sh->clock, d[i].m);
			for (struct rte_mbuf *seg = d[i].m; seg != NULL; seg = seg->next) {
				uint32_t len = seg->data_len;

				if ((uint64_t)f->rx + len > f->resp)
					bad += f->rx + len - RTE_MAX(f->rx, f->resp);
				else if (g->c->sst_perf)
					bad += gen_perf_check(
						rte_pktmbuf_mtod(seg, const uint8_t *), f->tag,
						f->req, f->rx, len);
				else
					bad += gen_check(rte_pktmbuf_mtod(seg, const uint8_t *),
						f->tag, f->resp, f->rx, len);
				f->rx += len;
			}
			rte_pktmbuf_free(d[i].m);
		}
	ch->in_read = NULL;
	closed = ch->close_pending;
	ch->close_pending = false;
	ch->sh->tot.verify_errors += bad;
	if (k == -EPIPE)
		eof = true;
	if (eof || closed || (k < 0 && k != -EAGAIN))
		flow_end(ch, f, eof && bad == 0 && f->rx == f->resp && f->tx == f->req, now);
	else if (bad != 0)
		flow_end(ch, f, false, now);
}

/* The stream callbacks find the channel through the stream's slot: one
 * worker may serve every channel (--port). */
static void
op_readable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct gen_flow *f = sst_stream_user(s);

	(void)ctx;
	if (f != NULL && (void *)f != &gen_slot_marker && f->ctl)
		gen_perf_readable(f->ch->g, now);
	else if (f != NULL && (void *)f != &gen_slot_marker && f->ch->wl->kind == GEN_WL_DATAGRAM)
		gen_dgram_readable(f, now);
	else if (f != NULL && (void *)f != &gen_slot_marker)
		drain(f->ch, f, now);
}

static void
op_writable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct gen_flow *f = sst_stream_user(s);

	(void)ctx;
	if (f != NULL && (void *)f != &gen_slot_marker && f->live && !f->ctl &&
		f->ch->wl->kind != GEN_WL_DATAGRAM)
		write_some(f->ch, f, now);
}

static void
op_closed(void *ctx, struct sst_stream *s, enum sst_stream_end why, sst_time_t now)
{
	struct gen_flow *f = sst_stream_user(s);
	struct gen_chan *ch;

	(void)ctx; /* a channel or the client: see gen_attack_slot_closed() */
	if (f == NULL)
		return;
	if ((void *)f == &gen_slot_marker) {
		gen_attack_slot_closed(s, why, now);
		return;
	}
	if (f->ctl) {
		gen_perf_closed(f->ch->g, now);
		return;
	}
	ch = f->ch;
	if (ch->wl->kind == GEN_WL_DATAGRAM) {
		gen_dgram_closed(f, now);
		return;
	}
	if (s == ch->in_read) {
		ch->close_pending = true;
		return;
	}
	if (why == SST_STREAM_REFUSED && f->rx == 0) {
		refused(ch, f, now);
		return;
	}
	flow_end(ch, f, false, now);
}

static const struct sst_stream_ops stream_ops = {
	.readable = op_readable,
	.writable = op_writable,
	.closed = op_closed,
};

/* Take a token of a bucket refilled at @p rate per second (0: unlimited). */
static bool
take_token(double *tokens, double rate)
{
	if (rate <= 0)
		return true;
	if (*tokens < 1)
		return false;
	*tokens -= 1;
	return true;
}

static void
start_stream(struct gen_chan *ch, struct gen_flow *f, sst_time_t now)
{
	struct gen_client *g = ch->g;
	struct gen_shard *sh = ch->sh;
	const struct gen_workload *wl = ch->wl;
	uint64_t req = gen_dist_draw(&wl->request, &sh->rng);

	f->s = sst_stream_connect(ch->peer, g->c->service, g->c->protocol, now);
	if (f->s == NULL)
		return; /* no control block now: the next pass tries again */
	f->tx = f->rx = 0;
	f->shut = false;
	if (g->c->echo) {
		f->req = (uint32_t)req;
		f->resp = f->req;
	} else if (wl->kind == GEN_WL_BULK) {
		/* One way: the server checks the bytes and answers none. */
		f->req = (uint32_t)RTE_MAX(req, (uint64_t)GEN_HEADER_LEN);
		f->resp = 0;
	} else if (g->c->sst_perf) {
		/* sst-perf's requests need no header: the test gives the sizes. */
		f->req = (uint32_t)req;
		f->resp = (uint32_t)gen_dist_draw(&wl->response, &sh->rng);
	} else {
		f->req = (uint32_t)RTE_MAX(req, (uint64_t)GEN_HEADER_LEN);
		f->resp = (uint32_t)gen_dist_draw(&wl->response, &sh->rng);
	}
	/* Unique per run: the channel, then a sequence number. */
	f->tag = (uint64_t)ch->id << 40 | (++sh->stream_seq & ((1ull << 40) - 1));
	f->t0 = rte_rdtsc();
	f->t_rx = 0;
	f->live = true;
	sst_stream_set_user(f->s, f);
	ch->started++;
	ch->live++;
	sh->live++;
	sh->tot.streams++;
	write_some(ch, f, now);
}

bool
gen_chan_poll(struct gen_chan *ch, sst_time_t now)
{
	struct gen_client *g = ch->g;
	bool waiting = false;

	if (ch->state != CH_UP || ch->peer == NULL)
		return false; /* ready, a peer back or a round again: queued then */
	if (ch->wl->kind == GEN_WL_DATAGRAM)
		return gen_dgram_poll(ch, &ch->flows[0], now); /* it drains while stopping */
	if (g->stopping)
		return false;
	if (g->c->sst_perf && !gen_perf_ready(ch, now))
		return true;
	for (uint32_t i = 0; i < ch->wl->concurrent && ch->started < ch->wl->streams; i++) {
		struct gen_flow *f = &ch->flows[i];

		if (f->live)
			continue;
		if (now >= f->ready_at && take_token(&ch->sh->stream_tokens, g->c->stream_rate))
			start_stream(ch, f, now);
		/* Not started (think time, tokens, no control block): the slot
		 * waits with nothing to wake it but this poll. */
		waiting |= !f->live;
	}
	return waiting && ch->started < ch->wl->streams && ch->state == CH_UP;
}

/* The channel's share of a pass (the worker's app_poll). */
static void
app_poll(void *ctx, struct sst_worker *w, sst_time_t now)
{
	struct gen_chan *ch = ctx;

	(void)w;
	if (ch->g->c->attack == GEN_ATTACK_STREAM_SLOTS)
		gen_attack_slots_poll(ch, now);
	else
		gen_chan_poll(ch, now);
}

static const struct sst_worker_ops worker_ops = {
	.peer_ready = peer_ready,
	.peer_gone = peer_gone,
	.connect_failed = connect_failed,
	.app_poll = app_poll,
};

/* Channel i's source: address base + i / ports (within src_addrs), port
 * base + i % ports; no range: any address of the server's family, any port. */
void
gen_source_of(const struct gen_conf *c, uint32_t i, struct sst_net_endpoint *ep)
{
	memset(ep, 0, sizeof(*ep));
	ep->addr.family = c->server.addr.family;
	if (c->src_addrs != 0 && c->local.addr.family == SST_NET_IPV4) {
		uint32_t ports = c->src_ports != 0 ? c->src_ports : 1;
		uint32_t a = (uint32_t)c->local.addr.bytes[0] << 24 |
			     (uint32_t)c->local.addr.bytes[1] << 16 |
			     (uint32_t)c->local.addr.bytes[2] << 8 | c->local.addr.bytes[3];

		a += (i / ports) % c->src_addrs;
		ep->addr = c->local.addr;
		ep->addr.bytes[0] = (uint8_t)(a >> 24);
		ep->addr.bytes[1] = (uint8_t)(a >> 16);
		ep->addr.bytes[2] = (uint8_t)(a >> 8);
		ep->addr.bytes[3] = (uint8_t)a;
	}
	if (c->src_ports != 0)
		ep->port = (uint16_t)(c->local.port + i % c->src_ports);
}

/* The workload of channel i: by weight, in a fixed interleaving. */
static const struct gen_workload *
workload_of(const struct gen_conf *c, uint32_t i)
{
	uint32_t total = 0, at;

	for (uint32_t k = 0; k < c->nwl; k++)
		total += c->wl[k].weight;
	at = i % total;
	for (uint32_t k = 0; k < c->nwl; k++) {
		if (at < c->wl[k].weight)
			return &c->wl[k];
		at -= c->wl[k].weight;
	}
	return &c->wl[0];
}

void
gen_host_params(struct gen_client *g, struct sst_nego_host_params *nego,
	struct sst_stream_host_params *stream, void *ctx)
{
	randombytes_buf(nego->secret, sizeof(nego->secret));
	nego->ulp_caps = SST_NEGO_CAP_ALL;
	if (g->c->armor != SST_CRYPTO_CHK32)
		nego->secure = &secure_conf;
	stream->clone_pool = g->clones;
	/* SIDs are reused only after a quiet period: a table the size of
	 * the slots stalls a channel that runs rounds of streams (with 10 it
	 * stopped after 20). The default grows with the SIDs in use. */
	stream->send_mbufs = 64;
	stream->rx_pieces = 64;
	stream->ops = &stream_ops;
	stream->ctx = ctx;
}

/* A channel's worker over kernel UDP, on its own socket. */
static struct sst_worker *
gen_worker_create(struct gen_client *g, struct sst_worker_params *wp,
	const struct sst_worker_ops *ops, void *ctx)
{
	struct sst_worker *w;

	gen_host_params(g, &wp->nego, &wp->stream, ctx);
	wp->ops = ops;
	wp->ctx = ctx;
	/* A held channel stays up for the whole run. */
	wp->idle_timeout = SST_TIME_NEVER;
	w = sst_worker_create(wp);
	sodium_memzero(wp->nego.secret, sizeof(wp->nego.secret));
	return w;
}

static int
chan_open(struct gen_client *g, struct gen_chan *ch, sst_time_t now)
{
	const struct gen_conf *c = g->c;
	struct sst_link_conf lc = {.size = sizeof(lc), .driver = "udpsock", .pool = g->pool};
	struct sst_worker_params wp = {.size = sizeof(wp), .pool = g->pool};
	bool secure = c->armor != SST_CRYPTO_CHK32;
	enum sst_nego_mode mode = secure ? SST_NEGO_MODE_SECURE : SST_NEGO_MODE_CHECKSUM;
	char name[16];
	int rc;

	if (g->e != NULL) {
		/* --port: from the channel's own endpoint, on the worker that
		 * owns the pair (its packets arrive there, or are handed). */
		struct sst_net_endpoint src;

		gen_source_of(c, ch->id, &src);
		ch->w = sst_engine_worker(g->e, ch->sh->index);
		gen_chan_set_state(ch, CH_CONNECTING);
		ch->t_connect = rte_rdtsc();
		return sst_worker_connect_from(ch->w, &src, &c->server, mode, now);
	}

	gen_source_of(c, ch->id, &lc.local);
	ch->link = sst_link_open(&lc);
	if (ch->link != NULL &&
		(c->attack == GEN_ATTACK_OPTIMISTIC_ACK || c->attack == GEN_ATTACK_COOKIE_REPLAY ||
			c->attack == GEN_ATTACK_COOKIE_EXPIRY))
		ch->link = gen_attack_wrap(ch->link, g, &ch->atk);
	if (ch->link == NULL)
		return -rte_errno;
	/* Stream-host pool names: unique in the process. */
	snprintf(name, sizeof(name), "g%x", ch->id);
	wp.link = ch->link;
	/* A secret per channel: each is another host to the server. */
	wp.nego.max_initiating = 2;
	wp.nego.max_responding = 2;
	wp.nego.rate_slots = 2;
	wp.stream.name = name;
	wp.stream.max_streams = ch->wl->concurrent + 16;
	if (c->attack == GEN_ATTACK_STREAM_SLOTS)
		wp.stream.max_streams = 1u << 16;
	wp.stream.max_tx_buffers = ch->wl->concurrent + 1;
	wp.stream.max_rx_buffers = ch->wl->concurrent + 1;
	wp.stream.initial_buffers = 1;
	wp.ack_forge_for_testing = gen_attack_ack_forge(g);
	wp.ack_forge_ctx = g;
	ch->w = gen_worker_create(g, &wp, &worker_ops, ch);
	if (ch->w == NULL)
		return -rte_errno;
	gen_chan_set_state(ch, CH_CONNECTING);
	ch->t_connect = rte_rdtsc();
	rc = sst_worker_connect(ch->w, &c->server, mode, now);
	return rc;
}

static void
chan_close(struct gen_chan *ch)
{
	if (ch->link != NULL) /* else the port's worker, destroyed last */
		sst_worker_destroy(ch->w);
	sst_link_close(ch->link);
	ch->w = NULL;
	ch->link = NULL;
	ch->peer = NULL;
}

void
gen_client_sum_links(struct gen_client *g)
{
	struct gen_totals *t = &g->tot;

	t->tx_pkts = t->rx_pkts = t->tx_bytes = t->rx_bytes = 0;
	/* The channels' own sockets (a port's queues are the shards'). */
	for (uint32_t i = 0; i < g->next_connect; i++) {
		const struct sst_link_stats *ls;

		if (g->ch[i].link == NULL)
			continue;
		ls = sst_link_stats(g->ch[i].link);
		t->tx_pkts += ls->tx_packets;
		t->rx_pkts += ls->rx_packets;
		t->tx_bytes += ls->tx_bytes;
		t->rx_bytes += ls->rx_bytes;
	}
}

/* A shard's token buckets take its share of the rates. */
static void
refill(struct gen_shard *sh, sst_time_t now)
{
	double dt = (double)(now - sh->last_refill) / 1e9;
	const struct gen_conf *c = sh->g->c;
	double stream_rate = c->stream_rate / sh->g->nsh, chan_rate = c->channel_rate / sh->g->nsh;

	sh->last_refill = now;
	/* Buckets hold at most 10 ms of tokens: a slow pass cannot turn into
	 * a burst far above the rate. */
	sh->stream_tokens =
		RTE_MIN(sh->stream_tokens + dt * stream_rate, RTE_MAX(1.0, stream_rate / 100));
	sh->chan_tokens = RTE_MIN(sh->chan_tokens + dt * chan_rate, RTE_MAX(1.0, chan_rate / 100));
}

void
gen_connect_more(struct gen_shard *sh, sst_time_t now)
{
	struct gen_client *g = sh->g;

	refill(sh, now);
	for (int k = 0; k < CONNECTS_PER_PASS && sh->next < sh->nchans; k++) {
		struct gen_chan *ch = &g->ch[sh->chans[sh->next]];
		int rc;

		if (!take_token(&sh->chan_tokens, g->c->channel_rate))
			return;
		sh->next++;
		if (g->nsh == 1)
			g->next_connect = sh->next; /* the one shard, in channel order */
		rc = chan_open(g, ch, now);
		if (rc == -ENOSPC && g->e != NULL) {
			/* --port: as many handshakes under way as the
			 * negotiation host holds; this one starts later. */
			sh->next--;
			gen_chan_set_state(ch, CH_IDLE);
			return;
		}
		if (rc < 0) {
			/* Each channel's worker takes a few DPDK memzones for its
			 * stream buffers: RTE_MAX_MEMZONE (2560 in DPDK 22.11) is
			 * what ends a large run first. */
			if (sh->tot.setup_failed == 0)
				fprintf(stderr,
					"sst-gen: channel %u: %s (each channel is a "
					"worker of its own, whose stream buffers take DPDK "
					"memzones: about 600 channels per process)\n",
					ch->id, strerror(-rc));
			gen_chan_set_state(ch, CH_FAILED);
			sh->tot.setup_failed++;
		}
	}
}

static void
poll_channels(struct gen_client *g, sst_time_t now)
{
	if (g->e != NULL) {
		gen_port_poll(g, now);
		return;
	}
	for (uint32_t i = 0; i < g->next_connect; i++)
		if (g->ch[i].w != NULL)
			sst_worker_poll(g->ch[i].w, now);
}

/* FINISH on every channel, so that the server forgets them at once. */
static void
finish_all(struct gen_client *g)
{
	sst_time_t until = tool_now() + SST_NSEC_PER_SEC;
	uint32_t open = 1;

	for (uint32_t i = 0; i < g->nch; i++) {
		struct gen_chan *ch = &g->ch[i];

		for (uint32_t k = 0; ch->flows != NULL && k < ch->wl->concurrent; k++)
			if (ch->flows[k].live && ch->wl->kind == GEN_WL_DATAGRAM)
				gen_dgram_closed(&ch->flows[k], tool_now());
			else if (ch->flows[k].live)
				flow_end(ch, &ch->flows[k], false, tool_now());
		if (ch->w != NULL && g->e == NULL)
			sst_worker_close_idle(ch->w, tool_now());
	}
	for (uint16_t i = 0; i < g->nw; i++)
		sst_worker_close_idle(sst_engine_worker(g->e, i), tool_now());
	while (open > 0 && tool_now() < until) {
		poll_channels(g, tool_now());
		open = g->e != NULL ? gen_port_open_channels(g) : 0;
		for (uint32_t i = 0; g->e == NULL && i < g->next_connect && open == 0; i++)
			open += g->ch[i].w != NULL && sst_worker_stats(g->ch[i].w)->channels_open;
	}
}

static int
setup(struct gen_client *g, const struct gen_conf *c)
{
	uint32_t mbufs = c->mbufs != 0 ? c->mbufs : DEFAULT_MBUFS;
	uint32_t slots = 0;
	struct rlimit rl;

	/* A socket per channel. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	memset(&secure_conf, 0, sizeof(secure_conf));
	secure_conf.size = sizeof(secure_conf);
	secure_conf.policy = SST_SECURE_TOFU;
	secure_conf.allow_anonymous = true;
	secure_conf.random = sst_secure_random_sodium;
	secure_conf.nsuites = 1;
	secure_conf.suites[0] = c->armor;
	g->c = c;
	g->nch = c->channels;
	g->tsc_hz = rte_get_tsc_hz();
	if (c->sst_perf)
		gen_perf_init(g);
	g->pool = rte_pktmbuf_pool_create(
		"gen_pool", mbufs, 256, 0, RTE_PKTMBUF_HEADROOM + 2048, (int)rte_socket_id());
	g->clones = rte_pktmbuf_pool_create("gen_clones", mbufs, 256, 0, 0, (int)rte_socket_id());
	g->ch = calloc(g->nch, sizeof(*g->ch));
	if (g->pool == NULL || g->clones == NULL || g->ch == NULL) {
		fprintf(stderr, "sst-gen: cannot allocate %u mbufs or %u channels\n", mbufs,
			g->nch);
		return -1;
	}
	for (uint32_t i = 0; i < g->nch; i++) {
		g->ch[i].g = g;
		g->ch[i].id = i;
		g->ch[i].wl = workload_of(c, i);
		slots += g->ch[i].wl->concurrent;
	}
	/* All the channels' stream slots in one array. */
	g->ch[0].flows = calloc(slots, sizeof(struct gen_flow));
	if (g->ch[0].flows == NULL)
		return -1;
	for (uint32_t i = 1; i < g->nch; i++)
		g->ch[i].flows = g->ch[i - 1].flows + g->ch[i - 1].wl->concurrent;
	for (uint32_t i = 0; i < g->nch; i++)
		for (uint32_t k = 0; k < g->ch[i].wl->concurrent; k++)
			g->ch[i].flows[k].ch = &g->ch[i];
	if (c->port.set && gen_port_open(g) < 0)
		return -1;
	return gen_shards_init(g);
}

static void
teardown(struct gen_client *g)
{
	for (uint32_t i = 0; i < g->nch && g->ch != NULL; i++)
		if (g->ch[i].w != NULL)
			chan_close(&g->ch[i]);
	gen_port_close(g);
	if (g->ch != NULL)
		free(g->ch[0].flows);
	free(g->ch);
	gen_shards_fini(g);
	rte_mempool_free(g->pool);
	rte_mempool_free(g->clones);
}

/* The far end in this process (--loopback): an sst-gen server over kernel
 * UDP on 127.0.0.1, polled between the channels. */
static struct tool_net *
loopback_server(const struct gen_conf *c, struct gen_server **srv)
{
	struct tool_host_conf hc = {0};
	struct tool_net *net;
	char err[128];

	*srv = gen_server_new(c);
	if (*srv == NULL)
		return NULL;
	hc.name = "gensrv";
	hc.armor = c->armor;
	hc.responder = true;
	hc.mbufs = 32767;
	hc.stream.max_streams = c->channels * 8 + 1024;
	hc.stream.peer_max_streams = 0;
	hc.stream.send_mbufs = 64;
	hc.stream.rx_pieces = 64;
	hc.stream.ops = &gen_server_stream_ops;
	hc.stream.ctx = *srv;
	hc.ops = &gen_server_worker_ops;
	hc.ctx = *srv;
	hc.idle_timeout = SST_TIME_NEVER;
	if (tool_parse_endpoint("127.0.0.1:0", false, true, &hc.local, err, sizeof(err)) < 0)
		return NULL;
	net = tool_net_udp(&hc);
	if (net == NULL || gen_server_start(*srv, tool_net_host(net, 0)) < 0) {
		tool_net_destroy(net);
		return NULL;
	}
	return net;
}

int
gen_client_run(const struct gen_conf *conf)
{
	struct gen_conf c = *conf;
	struct gen_client g = {0};
	struct gen_server *srv = NULL;
	struct tool_net *net = NULL;
	sst_time_t now, deadline;
	int rc = TOOL_EXIT_SETUP;

	if (c.loopback) {
		net = loopback_server(&c, &srv);
		if (net == NULL)
			goto out;
		c.server = *tool_host_local(tool_net_host(net, 0));
	}
	if (setup(&g, &c) < 0)
		goto out;
	g.rss0 = gen_rss();
	g.t_start = g.last_line = tool_now();
	for (uint16_t k = 0; k < g.nsh; k++)
		g.sh[k].last_refill = g.t_start;
	deadline = g.t_start + c.timeout_ns;
	if (g.on_lcores && gen_lcores_launch(&g) < 0)
		goto out;
	for (;;) {
		now = tool_now();
		if (g.on_lcores) {
			/* The workers run on their lcores: this one watches. */
			rte_delay_us_sleep(1000);
		} else {
			/* Over kernel UDP, the one shard connects here; a port's
			 * workers connect theirs in their passes. */
			if (g.e == NULL && !g.stopping)
				gen_connect_more(&g.sh[0], now);
			poll_channels(&g, now);
		}
		if (net != NULL)
			tool_net_poll(net, false);
		if (now - g.last_line >= SST_NSEC_PER_SEC) {
			gen_shards_merge(&g, g.on_lcores, false);
			if (g.e == NULL)
				gen_client_sum_links(&g);
			g.rss_peak = RTE_MAX(g.rss_peak, gen_rss());
			if (g.e != NULL)
				gen_port_second(&g, now);
			gen_report_second(&g, now);
			if (srv != NULL && !c.quiet && !c.json)
				gen_server_tick(srv, false);
		}
		if (c.time_ns != 0 && now - g.t_start >= c.time_ns)
			g.stopping = true;
		if (tool_interrupted || now >= deadline)
			g.stopping = true;
		if (gen_shards_done(&g, &g.t_end))
			break;
		if (tool_interrupted || now >= deadline + SST_NSEC_PER_SEC) {
			g.t_end = tool_now();
			break;
		}
	}
	if (g.on_lcores)
		gen_lcores_join(&g);
	g.t_end_tsc = rte_rdtsc();
	g.rss_peak = RTE_MAX(g.rss_peak, gen_rss());
	if (c.sst_perf)
		gen_perf_finish(&g, poll_channels); /* its counters, for the report */
	finish_all(&g);
	if (c.attack == GEN_ATTACK_COOKIE_EXPIRY)
		gen_attack_expiry_replay(&g, poll_channels);
	/* Every worker stopped (or is polled here): their own figures. */
	gen_shards_merge(&g, false, true);
	if (g.e == NULL)
		gen_client_sum_links(&g);
	rc = gen_report_final(&g);
	if (!c.json)
		gen_client_life(&g);
	/* An attack's streams end when the target defends itself: it runs
	 * to its timeout, and what the target did is in the report. */
	if (tool_now() >= deadline && rc == 0 && c.attack == GEN_ATTACK_NONE)
		rc = 1;
	if (srv != NULL && !c.json)
		gen_server_tick(srv, true);
	if (c.hold) {
		/* DPDK 22.11's memif PMD unmaps a departed peer's rings under
		 * its pollers (docs/engine.md): the peer stops first. */
		fflush(stdout);
		fprintf(stderr, "sst-gen: holding the port until interrupted\n");
		while (!tool_interrupted)
			rte_delay_us_sleep(10000);
	}
out:
	if (g.on_lcores)
		gen_lcores_join(&g);
	teardown(&g);
	if (srv != NULL)
		gen_server_quiesce(srv);
	tool_net_destroy(net);
	gen_server_destroy(srv);
	return rc;
}
