/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker (sst_worker.h): the layers wired together over one link.
 * Byte 0 of a channel packet is the number we gave the channel, which
 * means something only with the endpoint the packet came from: a packet
 * finds its channel by (endpoint, number) in the channel table
 * (worker_peers.c keeps the endpoints, peers and channels); one that finds
 * none is dropped and counted.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_per_lcore.h>

#include "sst_burst.h"
#include "sst_worker.h"
#include "worker_internal.h"

/* The worker polling on this thread, for sst_worker_running(). */
static RTE_DEFINE_PER_LCORE(struct sst_worker *, running_worker);

struct sst_worker *
sst_worker_running(void)
{
	return RTE_PER_LCORE(running_worker);
}

/* ---- The stream layer's callbacks: ours first, then the application's ---- */

static struct worker_chan *
chan_of(const struct sst_stream_chan *sc)
{
	return sst_stream_chan_user(sc);
}

static void
on_connected(void *ctx, struct sst_stream *s, int err, sst_time_t now)
{
	struct sst_worker *w = ctx;

	worker_event_stream(w, SST_EVENT_STREAM_CONNECTED, now, s, (uint64_t)-err);
	if (w->app_ops->connected != NULL)
		w->app_ops->connected(w->app_ctx, s, err, now);
}

static void
on_accepted(void *ctx, struct sst_stream *parent, struct sst_stream *s, void *svc, sst_time_t now)
{
	struct sst_worker *w = ctx;

	worker_event_stream(w, SST_EVENT_STREAM_ACCEPTED, now, s, parent != NULL);
	if (w->app_ops->accepted != NULL)
		w->app_ops->accepted(w->app_ctx, parent, s, svc, now);
}

static void
on_readable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct sst_worker *w = ctx;

	if (w->app_ops->readable != NULL)
		w->app_ops->readable(w->app_ctx, s, now);
}

static void
on_writable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct sst_worker *w = ctx;

	if (w->app_ops->writable != NULL)
		w->app_ops->writable(w->app_ctx, s, now);
}

static void
on_closed(void *ctx, struct sst_stream *s, enum sst_stream_end why, sst_time_t now)
{
	struct sst_worker *w = ctx;

	if (w->app_ops->closed != NULL)
		w->app_ops->closed(w->app_ctx, s, why, now);
}

static void
on_ended(void *ctx, const struct sst_stream *s, enum sst_stream_end why, sst_time_t now)
{
	struct sst_worker *w = ctx;

	worker_event_stream(w, SST_EVENT_STREAM_CLOSED, now, s, why);
	if (w->app_ops->ended != NULL)
		w->app_ops->ended(w->app_ctx, s, why, now);
}

/* A failed channel goes (its streams wait for the next one to the peer);
 * one that asks for replacement gets it at the end of this poll
 * (replace_check()), outside the channel that is calling us. */
static void
on_channel_event(void *ctx, struct sst_stream_chan *c, enum sst_channel_event ev, sst_time_t now)
{
	struct sst_worker *w = ctx;
	struct worker_chan *wc = chan_of(c);

	if (wc != NULL) {
		worker_chan_activate(w, wc);
		if (ev == SST_CHANNEL_EV_FAILED)
			worker_chan_end_soon(w, wc);
		if (ev == SST_CHANNEL_EV_REPLACE)
			worker_chan_replace_asked(w, wc);
	}
	if (w->app_ops->channel_event != NULL)
		w->app_ops->channel_event(w->app_ctx, c, ev, now);
}

/* The stream layer queued work on c: visit it in this pass. */
static void
on_channel_pending(void *ctx, struct sst_stream_chan *c)
{
	struct sst_worker *w = ctx;
	struct worker_chan *wc = chan_of(c);

	if (wc != NULL && wc->sc != NULL)
		worker_chan_activate(w, wc);
}

static void
on_channel_closed(void *ctx, struct sst_stream_chan *c, sst_time_t now)
{
	struct sst_worker *w = ctx;
	struct worker_chan *wc = chan_of(c);

	if (wc != NULL)
		worker_chan_end_soon(w, wc);
	if (w->app_ops->channel_closed != NULL)
		w->app_ops->channel_closed(w->app_ctx, c, now);
}

/* ---- The worker ---- */

static const struct sst_stream_ops no_ops;

struct sst_worker *
sst_worker_create(const struct sst_worker_params *p)
{
	struct sst_nego_host_params np;
	struct sst_stream_host_params sp;
	struct sst_worker *w;
	int rc;

	if (p == NULL || p->link == NULL || p->pool == NULL) {
		WORKER_LOG(ERR, "%s is required",
			p == NULL	  ? "params"
			: p->link == NULL ? "params.link"
					  : "params.pool");
		rte_errno = EINVAL;
		return NULL;
	}
	w = rte_zmalloc("sst_worker", sizeof(*w), RTE_CACHE_LINE_SIZE);
	if (w == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	w->p = *p;
	w->link = p->link;
	if (p->ops != NULL && p->ops->app_poll != NULL) {
		w->app_poll = p->ops->app_poll;
		w->app_poll_ctx = p->ctx;
	}
	if (w->p.idle_timeout == 0)
		w->p.idle_timeout = 60 * SST_NSEC_PER_SEC;
	if (w->p.dead_peer_timeout == 0)
		w->p.dead_peer_timeout = 30 * SST_NSEC_PER_SEC;
	w->app_ops = p->stream.ops != NULL ? p->stream.ops : &no_ops;
	w->app_ctx = p->stream.ctx;
	w->stream_ops = (struct sst_stream_ops){
		.connected = on_connected,
		.accepted = on_accepted,
		.readable = on_readable,
		.writable = on_writable,
		.closed = on_closed,
		.ended = on_ended,
		.channel_event = on_channel_event,
		.channel_closed = on_channel_closed,
		.channel_pending = on_channel_pending,
	};
	np = p->nego;
	np.size = sizeof(np);
	np.ops = &worker_nego_ops;
	np.ctx = w;
	/* Under load, setups are limited per source address: the family and
	 * address bytes of ep_to_addr(), not the port. */
	if (np.rate_prefix == 0)
		np.rate_prefix = 17;
	/* Extra local endpoints are hosts of their own to a server: not one
	 * instance seen at many endpoints (sst_worker_params.local_ports). */
	if (p->local_ports != 0 && np.ulp_version == 0)
		np.ulp_version = 1;
	if (p->shard_map != NULL)
		w->shard = *p->shard_map;
	else
		sst_shard_map_init(&w->shard, p->shard_count);
	w->p.shard_map = NULL; /* the caller's copy may go */
	if (p->shard_count > 1) {
		/* Answers to our initiations find their way back to us. */
		while ((1u << w->steer_bits) < p->shard_count)
			w->steer_bits++;
		np.steer_tag = (uint8_t)p->shard_index;
		np.steer_bits = w->steer_bits;
	}
	sp = p->stream;
	sp.size = sizeof(sp);
	sp.ops = &w->stream_ops;
	sp.ctx = w;
	if (sp.pool == NULL)
		sp.pool = p->pool;
	if (sp.mem == NULL)
		sp.mem = sst_mem_cache_ops(&w->mem);
	rc = worker_peers_init(w);
	if (rc < 0)
		goto fail;
	rc = worker_io_init(w);
	if (rc < 0)
		goto fail_peers;
	w->nego = sst_nego_host_create(&np);
	if (w->nego == NULL)
		goto fail_io;
	w->sh = sst_stream_host_create(&sp);
	if (w->sh == NULL)
		goto fail_nego;
	w->id = worker_telemetry_add(w);
	return w;

fail_nego:
	rc = -(rte_errno != 0 ? rte_errno : ENOMEM);
	sst_nego_host_destroy(w->nego);
	goto fail_io_rc;
fail_io:
	rc = -(rte_errno != 0 ? rte_errno : ENOMEM);
fail_io_rc:
	worker_io_fini(w);
fail_peers:
	worker_peers_fini(w);
fail:
	rte_free(w);
	rte_errno = -rc;
	return NULL;
}

/* Field by field: struct sst_channel_stats is all uint64_t counters. */
static void
chan_stats_add(struct sst_channel_stats *sum, const struct sst_channel_stats *st)
{
	uint64_t *to = (uint64_t *)sum;
	const uint64_t *from = (const uint64_t *)st;

	static_assert(sizeof(*st) % sizeof(uint64_t) == 0, "counters only");
	for (size_t i = 0; i < sizeof(*st) / sizeof(uint64_t); i++)
		to[i] += from[i];
}

static void
chan_stats_refresh(struct sst_worker *w)
{
	struct sst_channel_stats sum = w->ended;

	for (uint32_t i = 0; i < w->nchans; i++)
		chan_stats_add(&sum, sst_channel_stats(sst_stream_chan_channel(w->chans[i]->sc)));
	w->stats.channels = sum;
	w->stats.mem_in_use = w->mem.stats.in_use_bytes;
	w->stats.mem_reserved = w->mem.stats.reserved_bytes;
}

static void
chan_end(struct sst_worker *w, struct worker_chan *wc, sst_time_t now)
{
	struct sst_nego_addr a;

	worker_event(wc, SST_EVENT_CHAN_DOWN, now, 0);
	chan_stats_add(&w->ended, sst_channel_stats(sst_stream_chan_channel(wc->sc)));
	ep_to_addr(&wc->at->ep, &a);
	sst_stream_chan_destroy(wc->sc, now);
	sst_nego_release(w->nego, &a, wc->number, wc->peer_channel);
	worker_chan_remove(w, wc, now);
	worker_obj_free(w, wc, sizeof(*wc));
	w->stats.channels_open--;
	w->stats.channels_closed++;
}

void
sst_worker_destroy(struct sst_worker *w)
{
	if (w == NULL)
		return;
	worker_telemetry_remove(w);
	while (w->nchans > 0)
		chan_end(w, w->chans[w->nchans - 1], 0);
	worker_peers_destroy_all(w);
	sst_stream_host_destroy(w->sh);
	/* It gives the numbers of unfinished attempts back: tables first. */
	sst_nego_host_destroy(w->nego);
	worker_io_fini(w);
	/* Last: the stream layer's objects came from its cache too. */
	worker_peers_fini(w);
	rte_free(w);
}

int
worker_connect_to(struct sst_worker *w, const struct sst_net_endpoint *ep, enum sst_nego_mode mode,
	sst_time_t now)
{
	struct sst_nego_addr a;
	int rc;

	ep_to_addr(ep, &a);
	rc = sst_nego_connect(w->nego, &a, mode, now);
	return rc < 0 ? rc : 0;
}

/* In a sharded engine every channel between two endpoints lives on the
 * worker that owns the peer's endpoint, on both sides: the peer treats a
 * second channel from us as a replacement and moves its streams there, so
 * two of our workers must never both hold one. */
int
sst_worker_connect(struct sst_worker *w, const struct sst_net_endpoint *ep, enum sst_nego_mode mode,
	sst_time_t now)
{
	if (w->p.shard_count > 1 && sst_shard_owner(&w->shard, ep) != w->p.shard_index)
		return -EXDEV;
	w->now = now;
	return worker_connect_to(w, ep, mode, now);
}

int
sst_worker_close_idle(struct sst_worker *w, sst_time_t now)
{
	/* The channels whose streams are still ending close when they end
	 * (idle_check()): asked once, a stopping application left them open,
	 * and the peer held them until its idle timeout. */
	w->closing = true;
	for (uint32_t i = 0; i < w->nchans; i++)
		worker_chan_close_idle(w, w->chans[i], now);
	return (int)w->stats.channels_open;
}

/*
 * Channel packets, n of them (at most SST_MAX_BURST), each from its
 * endpoint: byte 0 and the endpoint name the channel. Looked up together
 * (worker_chans_find()); each run of consecutive packets for one channel
 * goes to it in one call, so that its armor opens them as a burst
 * (sst_crypto_ops.open_burst). Runs, not groups: packets of different
 * channels keep their arrival order, which a crossing replacement or a
 * migration (an Attach on the new channel after data on the old) relies
 * on; bulk traffic on one channel is one run either way.
 */
static void
channel_packets(struct sst_worker *w, struct rte_mbuf **pkts, const struct sst_net_endpoint *from,
	uint16_t n, sst_time_t now)
{
	struct worker_chan *wcs[SST_MAX_BURST];
	uint8_t numbers[SST_MAX_BURST] = {0}; /* gcc cannot tell that n <= SST_MAX_BURST */

	for (uint16_t i = 0; i < n; i++)
		numbers[i] = *rte_pktmbuf_mtod(pkts[i], uint8_t *);
	worker_chans_find(w, from, numbers, n, wcs);
	for (uint16_t first = 0, count; first < n; first = (uint16_t)(first + count)) {
		struct worker_chan *wc = wcs[first];

		for (count = 1; first + count < n && wcs[first + count] == wc; count++)
			;
		if (wc == NULL) {
			w->stats.rx_no_channel += count;
			rte_pktmbuf_free_bulk(&pkts[first], count);
			continue;
		}
		w->stats.rx_channel += count;
		worker_chan_activate(w, wc);
		if (sst_channel_receive(
			    sst_stream_chan_channel(wc->sc), &pkts[first], count, now) == 0)
			continue;
		wc->peer->last_heard = now;
		if (wc->unconfirmed) {
			/* Authenticated: the peer has our answer. A secure
			 * initiator stops repeating SecI2; a checksum
			 * responder's channel stops counting as half-open
			 * (load detection, docs/negotiation.md 5.1). */
			struct sst_nego_addr a;

			ep_to_addr(&from[first], &a);
			sst_nego_confirm(w->nego, &a, numbers[first]);
			wc->unconfirmed = false;
		}
	}
}

/*
 * A channel's share of the pass: its timers, its flush, its upkeep; then
 * when it needs a visit again at the latest (its place in the timer heap).
 * A pass visits only the channels on its active list (a packet, an event,
 * work the stream layer queued: channel_pending()) and those whose time
 * came, so that a worker with a million mostly idle channels does not walk
 * them all in every pass.
 */
static void
chan_visit(struct sst_worker *w, struct worker_chan *wc, sst_time_t now)
{
	struct sst_channel *ch = sst_stream_chan_channel(wc->sc);

	/* Past the packets' processing: a new channel's negotiation reply has
	 * left (chan_create()). */
	sst_stream_chan_release(wc->sc);
	/* Losses first, so that the flush resends what they found; the ack
	 * after it, so that a packet the flush sends (a reply the application
	 * just wrote) carries the ack word instead of an ack-only packet going
	 * out beside it: two of a transaction's six packets were ack-only. */
	if (sst_channel_next_expiry(ch) <= now)
		sst_channel_handle_timeouts(ch, now);
	sst_stream_chan_flush(wc->sc, now);
	if (sst_channel_next_expiry(ch) <= now)
		sst_channel_handle_expiry(ch, now);
	worker_chan_upkeep(w, wc, now);
	wc->wake_at = sst_time_min(
		sst_time_min(sst_channel_next_expiry(ch), sst_stream_chan_timer(wc->sc)),
		worker_chan_upkeep_expiry(w, wc));
	worker_chan_timer(w, wc);
}

/* Empty datagrams are dropped; byte 0 is 0 for negotiation. */
static void
control_packet(struct sst_worker *w, struct rte_mbuf *m, const struct sst_net_endpoint *from,
	sst_time_t now)
{
	struct sst_nego_addr a;

	if (rte_pktmbuf_data_len(m) == 0) {
		w->stats.rx_no_channel++;
	} else {
		ep_to_addr(from, &a);
		w->stats.rx_control++;
		w->nego_handoff = worker_move_secure_owner(w, m, from);
		if (w->nego_handoff < 0)
			sst_nego_receive(w->nego, &a, rte_pktmbuf_mtod(m, void *),
				rte_pktmbuf_data_len(m), now);
		/* It named a peer another worker holds (worker_move.c). */
		if (w->nego_handoff >= 0) {
			worker_move_handoff(w, m, from, (uint16_t)w->nego_handoff);
			w->nego_handoff = -1;
			return;
		}
	}
	rte_pktmbuf_free(m);
}

void
sst_worker_poll(struct sst_worker *w, sst_time_t now)
{
	struct rte_mbuf **pkts = w->rx_pkts;
	const struct sst_net_endpoint *from = w->rx_from;
	uint16_t n = worker_rx(w, now);
	struct sst_worker *outer = RTE_PER_LCORE(running_worker);
	/* The bpf driver's rare events (a revocation, a refusal) count for us. */
	struct sst_cc_stp_stats *outer_stp = sst_cc_stp_sink_set(&w->stp);

	RTE_PER_LCORE(running_worker) = w;
	w->now = now;
	w->stats.rx_packets += n;
	/* Runs of channel packets go to their channels together; a control
	 * packet between them is handled in its place, since it may make the
	 * channel that the packets after it are for. */
	for (uint16_t i = 0; i < n;) {
		uint16_t run = 0;

		while (i + run < n && run < SST_MAX_BURST &&
			rte_pktmbuf_data_len(pkts[i + run]) > 0 &&
			*rte_pktmbuf_mtod(pkts[i + run], uint8_t *) != 0)
			run++;
		if (run > 0) {
			channel_packets(w, &pkts[i], &from[i], run, now);
			i += run;
		} else {
			control_packet(w, pkts[i], &from[i], now);
			i++;
		}
	}
	if (sst_nego_next_expiry(w->nego) <= now)
		sst_nego_handle_expiry(w->nego, now);
	worker_io_expiry(w, now);
	if (w->app_poll != NULL)
		w->app_poll(w->app_poll_ctx, w, now);
	/* By index: a callback may add channels (they are appended). */
	/* The stream host's timer once, not through every channel's. */
	if (sst_stream_host_next_expiry(w->sh) <= now)
		sst_stream_host_handle_expiry(w->sh, now);
	/* The channels whose time came join those with work. */
	while (w->nheap > 0 && w->heap[0]->wake_at <= now) {
		struct worker_chan *wc = w->heap[0];

		wc->wake_at = SST_TIME_NEVER;
		worker_chan_timer(w, wc);
		worker_chan_activate(w, wc);
	}
	/* Besides, a few channels in turn each pass, whatever they say: a
	 * change no one told the channel of (a stream freed by another
	 * channel's flush leaves it unused, which starts its idle timeout) is
	 * seen within nchans / SWEEP_PER_PASS passes. */
	for (uint32_t k = 0; k < SWEEP_PER_PASS && k < w->nchans; k++) {
		w->sweep_cursor = w->sweep_cursor + 1 < w->nchans ? w->sweep_cursor + 1 : 0;
		worker_chan_activate(w, w->chans[w->sweep_cursor]);
	}
	/* By index: a visit may activate others (they are appended). */
	for (uint32_t i = 0; i < w->nactive; i++)
		chan_visit(w, w->active[i], now);
	/* Channels end here, outside every callback that may still use them;
	 * those with work left (a congestion window full) stay active for the
	 * next pass. */
	for (uint32_t i = 0; i < w->nactive; i++) {
		struct worker_chan *wc = w->active[i];

		/* Ending one may hand its streams to another, which is
		 * appended: the loop reaches it too. */
		if (wc != NULL && wc->state == CHAN_ENDING) {
			w->active[i] = NULL;
			chan_end(w, wc, now);
		}
	}
	{
		uint32_t keep = 0;

		for (uint32_t i = 0; i < w->nactive; i++) {
			struct worker_chan *wc = w->active[i];

			if (wc == NULL)
				continue;
			wc->active = sst_stream_chan_pending(wc->sc);
			if (wc->active)
				w->active[keep++] = wc;
		}
		w->nactive = keep;
	}
	worker_peers_reap(w, now);
	worker_eps_expire(w, now);
	worker_refusals_log(w, now);
	worker_io_flush(w, now);
	if (now >= w->next_sum) {
		/* The sum visits every channel: about 2 us each on a loaded VM
		 * without hugepages, so at 48,000 channels it took 95% of the
		 * worker's time and at 100,000 more than the 100 ms between
		 * sums (issue 21). With many channels it is made less often, so
		 * that it costs a few percent at most. */
		if (++w->sum_ticks >= 1 + w->nchans / SUM_CHANS_PER_TICK) {
			chan_stats_refresh(w);
			w->sum_ticks = 0;
		}
		worker_telemetry_serve(w);
		w->next_sum = now + 100 * SST_NSEC_PER_MSEC;
	}
	RTE_PER_LCORE(running_worker) = outer;
	sst_cc_stp_sink_set(outer_stp);
}

sst_time_t
sst_worker_next_expiry(const struct sst_worker *w)
{
	sst_time_t t = sst_time_min(sst_nego_next_expiry(w->nego), worker_io_next_expiry(w));
	const struct worker_ep *lingering = TAILQ_FIRST(&w->lingering);

	if (lingering != NULL)
		t = sst_time_min(t, lingering->linger_until);
	/* Channels with work left are visited at the next pass; the others
	 * when their time comes, the earliest first in the heap. */
	if (w->nactive > 0)
		return 0;
	if (w->nheap > 0)
		t = sst_time_min(t, w->heap[0]->wake_at);
	t = sst_time_min(t, sst_stream_host_next_expiry(w->sh));
	return t;
}

int
sst_worker_wait_fd(const struct sst_worker *w)
{
	if (w->p.shard_count > 1)
		return -ENOTSUP;
	return sst_link_wait_fd(w->link);
}

struct sst_stream_host *
sst_worker_stream_host(struct sst_worker *w)
{
	return w->sh;
}

struct sst_stream_peer *
sst_worker_peer(struct sst_worker *w, const struct sst_net_endpoint *ep)
{
	struct worker_ep *e = worker_ep_find(w, ep, worker_hash_ep(w, ep));

	return e != NULL && e->peer != NULL ? e->peer->sp : NULL;
}

const struct sst_worker_stats *
sst_worker_stats(const struct sst_worker *w)
{
	return &w->stats;
}

int
sst_worker_id(const struct sst_worker *w)
{
	return w->id;
}

const struct sst_nego_stats *
sst_worker_nego_stats(const struct sst_worker *w)
{
	return sst_nego_stats(w->nego);
}

const struct sst_link_stats *
sst_worker_link_stats(const struct sst_worker *w)
{
	return sst_link_stats(w->link);
}
