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
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "gen.h"
#include "sst_engine.h"
#include "sst_worker.h"
#include "tool_args.h"

enum {
	READ_BURST = 32,
	SRV_PUBLISH_NS = 5 * 1000 * 1000,   /**< a lane's counts for the line */
	SRV_IDLE_SPIN_NS = 2 * 1000 * 1000, /**< without a packet: then nap */
	SRV_IDLE_NAP_US = 100,
};

struct srv_flow {
	struct sst_stream *s;
	uint8_t hdr[GEN_HEADER_LEN];
	uint64_t tag;
	uint32_t resp;
	uint64_t rx, tx;
	bool eof, shut;
	/* Its answer found the packet pool empty: nothing else may ever wake
	 * it (its request is in, no write of it holds a send buffer), so each
	 * pass of its lane tries again (server_app_poll()). */
	bool starved;
	struct srv_flow *next_starved; /**< the lane's starved list */
	struct srv_flow *prev, *next;
};

/* What the server counts, per lane. */
struct srv_counts {
	uint64_t streams, answered, failed, verify_errors, rx_bytes, tx_bytes;
	/* The datagram workload: taken, wrong, sent back, and not sent back
	 * (the stack had no window for the echo then: lost, as on a network). */
	uint64_t dgrams, dgrams_bad, dgrams_echoed, dgrams_unechoed;
};
enum { SRV_COUNT_WORDS = sizeof(struct srv_counts) / sizeof(uint64_t) };

/*
 * The streams of one thread: the callbacks of a worker run on its lcore
 * (--port with a worker lcore each) or all on the main thread, and each
 * finds its lane by rte_lcore_id(), so that the lanes share nothing. The
 * main lcore reads the counts each lane publishes (relaxed atomics) for
 * the per-second line.
 */
struct srv_lane {
	alignas(64) struct srv_flow *all;
	struct srv_flow *starved; /**< flows with starved set, most recent first */
	struct sst_stream *in_read;
	bool close_pending;
	struct srv_counts n;
	_Atomic uint64_t pub[SRV_COUNT_WORDS];
	sst_time_t next_publish;
	bool launched;
	uint16_t worker; /**< launched: the engine's worker it polls */
	uint64_t last_rx;
	sst_time_t busy_at;
};

struct gen_server {
	const struct gen_conf *c;
	struct tool_host *h;
	bool closing;
	bool on_lcores;
	_Atomic bool halt;
	sst_time_t next_tick;
	struct srv_lane lane[RTE_MAX_LCORE];
};

static struct srv_lane *
lane_of(struct gen_server *sv)
{
	unsigned int id = rte_lcore_id();

	return &sv->lane[id < RTE_MAX_LCORE ? id : 0];
}

static void
untrack(struct srv_lane *ln, struct srv_flow *f, sst_time_t now)
{
	for (struct srv_flow **pp = &ln->starved; f->starved && *pp != NULL;
		pp = &(*pp)->next_starved)
		if (*pp == f) {
			*pp = f->next_starved;
			break;
		}
	sst_stream_set_user(f->s, NULL);
	sst_stream_close(f->s, now);
	if (f->prev != NULL)
		f->prev->next = f->next;
	else
		ln->all = f->next;
	if (f->next != NULL)
		f->next->prev = f->prev;
	free(f);
}

/* The pool had no packet buffer for f's answer: try again next pass. */
static void
starve(struct gen_server *sv, struct srv_flow *f)
{
	struct srv_lane *ln = lane_of(sv);

	if (!f->starved) {
		f->starved = true;
		f->next_starved = ln->starved;
		ln->starved = f;
	}
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
			starve(sv, f);
			return true;
		}
		gen_fill(p, f->tag, f->resp, f->tx, len);
		rc = sst_stream_write(f->s, m, 0, now);
		if (rc < 0) {
			rte_pktmbuf_free(m);
			return rc == -EAGAIN;
		}
		f->tx += len;
		lane_of(sv)->n.tx_bytes += len;
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

/* A request shorter than the header: answer with its bytes. @return
 * false when the pool had no buffer for them (f starves until it has). */
static bool
echo_short(struct gen_server *sv, struct srv_flow *f, sst_time_t now)
{
	struct rte_mbuf *m;
	uint8_t *p;

	m = rte_pktmbuf_alloc(tool_host_pool(sv->h));
	p = m != NULL ? (uint8_t *)rte_pktmbuf_append(m, (uint16_t)f->rx) : NULL;
	if (p == NULL) {
		rte_pktmbuf_free(m);
		starve(sv, f);
		return false;
	}
	memcpy(p, f->hdr, f->rx);
	if (sst_stream_write(f->s, m, 0, now) < 0)
		rte_pktmbuf_free(m);
	f->tx = f->rx;
	return true;
}

/* The datagram workload: check every byte of each datagram and send it
 * back as it came (its send time in it), so that the client checks the
 * echo and takes the round trip; a wrong one is counted. */
static void
datagrams(struct srv_lane *ln, struct srv_flow *f, sst_time_t now)
{
	struct rte_mbuf *m;

	while ((m = sst_stream_recv_datagram(f->s, now)) != NULL) {
		uint8_t buf[GEN_DGRAM_MAX];
		uint32_t len = rte_pktmbuf_pkt_len(m);
		const uint8_t *p = len <= GEN_DGRAM_MAX ? rte_pktmbuf_read(m, 0, len, buf) : NULL;
		uint64_t tag, tsc, bad = p != NULL ? gen_dgram_check(p, len, &tag, &tsc) : len;

		ln->n.dgrams++;
		ln->n.rx_bytes += len;
		if (bad != 0) {
			ln->n.dgrams_bad++;
			ln->n.verify_errors += bad;
		}
		/* A wrong one goes back too: the client finds it wrong as well
		 * (dropped, it would count as lost there, not as a failure). */
		if (sst_stream_send_datagram(f->s, m, now) == 0) {
			ln->n.dgrams_echoed++;
			ln->n.tx_bytes += len;
		} else {
			ln->n.dgrams_unechoed++;
			rte_pktmbuf_free(m);
		}
	}
}

/*
 * Wrong request bytes: tell the client with a wrong response byte, then
 * our end. A reset would not do: one that comes before the client has the
 * service's answer reaches it as a refusal, which a client opens again
 * (servers refuse streams they have no buffers for yet), and a bulk
 * stream's refused run came out "ok". @return false when the byte could
 * not be written (the caller resets the stream).
 */
static bool
refute(struct gen_server *sv, struct srv_flow *f, sst_time_t now)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(tool_host_pool(sv->h));
	uint8_t *p = m != NULL ? (uint8_t *)rte_pktmbuf_append(m, 1) : NULL;

	if (p == NULL) {
		rte_pktmbuf_free(m);
		return false;
	}
	gen_fill(p, f->tag, f->resp, f->tx, 1);
	p[0] ^= 0xff;
	if (sst_stream_write(f->s, m, 0, now) < 0) {
		rte_pktmbuf_free(m);
		return false;
	}
	sst_stream_shutdown(f->s, now);
	return true;
}

static void
pump(struct gen_server *sv, struct srv_flow *f, sst_time_t now)
{
	struct srv_lane *ln = lane_of(sv);
	struct sst_stream_data d[READ_BURST];
	uint64_t bad = 0;
	bool closed;
	int k = 0;

	datagrams(ln, f, now);
	ln->in_read = f->s;
	while (!f->eof && (k = sst_stream_read(f->s, d, READ_BURST, now)) > 0)
		for (int i = 0; i < k; i++) {
			for (struct rte_mbuf *seg = d[i].m; seg != NULL; seg = seg->next) {
				bad += take(
					f, rte_pktmbuf_mtod(seg, const uint8_t *), seg->data_len);
				ln->n.rx_bytes += seg->data_len;
			}
			rte_pktmbuf_free(d[i].m);
		}
	ln->in_read = NULL;
	closed = ln->close_pending;
	ln->close_pending = false;
	ln->n.verify_errors += bad;
	if (k == -EPIPE)
		f->eof = true;
	/* Ended without an answer written: one that found no buffer would
	 * otherwise go out empty when the direction is shut below. */
	if (f->eof && f->rx < GEN_HEADER_LEN && f->tx < f->rx && !closed && k != -ECONNRESET &&
		!echo_short(sv, f, now))
		return;
	if (closed || k == -ECONNRESET || bad != 0 ||
		(f->rx >= GEN_HEADER_LEN && !respond(sv, f, now))) {
		ln->n.failed++;
		/* The reset reports closed() at once: without its user the
		 * stream is not released (and counted) a second time there. */
		sst_stream_set_user(f->s, NULL);
		if (bad != 0 && !refute(sv, f, now))
			sst_stream_reset(f->s, now);
		untrack(ln, f, now);
		return;
	}
	if (f->eof && (f->tx >= f->resp || f->rx < GEN_HEADER_LEN) && !f->shut) {
		f->shut = true;
		sst_stream_shutdown(f->s, now);
		ln->n.answered++;
		untrack(ln, f, now);
	}
}

/* Each pass of a worker (on its lcore, or the thread that polls it): the
 * flows of its lane whose answers found the pool empty try again. */
static void
server_app_poll(void *ctx, struct sst_worker *w, sst_time_t now)
{
	struct gen_server *sv = ctx;
	struct srv_lane *ln = lane_of(sv);
	struct srv_flow *f, *next;

	(void)w;
	if (sv->closing)
		return;
	/* Only the flows that starved (the list is taken whole: pump() may
	 * starve a flow again, onto a new list for the next pass). */
	f = ln->starved;
	ln->starved = NULL;
	for (; f != NULL; f = next) {
		next = f->next_starved;
		f->starved = false;
		pump(sv, f, now);
	}
}

const struct sst_worker_ops gen_server_worker_ops = {
	.app_poll = server_app_poll,
};

static void
op_accepted(void *ctx, struct sst_stream *parent, struct sst_stream *s, void *svc, sst_time_t now)
{
	struct gen_server *sv = ctx;
	struct srv_lane *ln = lane_of(sv);
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
	f->next = ln->all;
	if (ln->all != NULL)
		ln->all->prev = f;
	ln->all = f;
	sst_stream_set_user(s, f);
	/* Datagrams too large for a packet come as substreams. */
	sst_stream_listen_substream(s, true);
	ln->n.streams++;
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
	struct srv_lane *ln = lane_of(sv);
	struct srv_flow *f = sst_stream_user(s);

	(void)why;
	if (sv->closing || f == NULL)
		return;
	if (s == ln->in_read) {
		ln->close_pending = true;
		return;
	}
	ln->n.failed++;
	untrack(ln, f, now);
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
	struct gen_server *sv = aligned_alloc(alignof(struct gen_server), sizeof(*sv));

	if (sv == NULL)
		return NULL;
	memset(sv, 0, sizeof(*sv));
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

/* The lanes' counts: with @p published what the lcores published (they
 * run), else their own (this thread's, or stopped lcores'). */
static void
srv_counts_sum(struct gen_server *sv, bool published, struct srv_counts *sum)
{
	uint64_t total[SRV_COUNT_WORDS] = {0};

	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		uint64_t words[SRV_COUNT_WORDS];

		if (published)
			for (uint32_t k = 0; k < SRV_COUNT_WORDS; k++)
				words[k] = atomic_load_explicit(
					&sv->lane[i].pub[k], memory_order_relaxed);
		else
			memcpy(words, &sv->lane[i].n, sizeof(words));
		for (uint32_t k = 0; k < SRV_COUNT_WORDS; k++)
			total[k] += words[k];
	}
	memcpy(sum, total, sizeof(total));
}

/* The per-second line while the workers run on their lcores: the streams
 * from the lanes' published counts, the channels from the copy of its
 * counters each worker publishes (sst_worker_counter()); the negotiation's
 * and the channels' defences come in the line at the end. */
static void
tick_on_lcores(struct gen_server *sv)
{
	struct sst_engine *e = tool_host_engine(sv->h);
	uint64_t open = 0, made = 0, v;
	struct srv_counts n;

	srv_counts_sum(sv, true, &n);
	for (uint16_t i = 0; i < sst_engine_workers(e); i++) {
		int id = sst_worker_id(sst_engine_worker(e, i));

		if (sst_worker_counter(id, "channels_open", &v) == 0)
			open += v;
		if (sst_worker_counter(id, "channels_made", &v) == 0)
			made += v;
	}
	fprintf(stderr,
		"sst-gen server: channels %llu (made %llu), streams %llu answered %llu failed "
		"%llu, verify errors %llu, rx %llu B tx %llu B, datagrams %llu (bad %llu, echoed "
		"%llu, not echoed %llu)\n",
		(unsigned long long)open, (unsigned long long)made, (unsigned long long)n.streams,
		(unsigned long long)n.answered, (unsigned long long)n.failed,
		(unsigned long long)n.verify_errors, (unsigned long long)n.rx_bytes,
		(unsigned long long)n.tx_bytes, (unsigned long long)n.dgrams,
		(unsigned long long)n.dgrams_bad, (unsigned long long)n.dgrams_echoed,
		(unsigned long long)n.dgrams_unechoed);
}

void
gen_server_tick(struct gen_server *sv, bool last)
{
	struct tool_counters k;
	struct srv_counts n;

	if (sv->on_lcores && !last) {
		tick_on_lcores(sv);
		return;
	}
	srv_counts_sum(sv, false, &n);
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
		"%llu, verify errors %llu, rx %llu B tx %llu B, datagrams %llu (bad %llu, echoed "
		"%llu, not echoed %llu); negotiation: %llu messages, "
		"%llu challenged, %llu rate-limited, %llu established, %llu cookies ok, %llu "
		"cookies bad, %llu SecI2 unmatched; acks: %llu numbers "
		"skipped, %llu optimistic (channel failed), %llu beyond what was sent; streams "
		"open %llu, refused over a peer's share %llu\n",
		last ? " (end)" : "", (unsigned long long)k.channels_open,
		(unsigned long long)k.channels_made, (unsigned long long)n.streams,
		(unsigned long long)n.answered, (unsigned long long)n.failed,
		(unsigned long long)n.verify_errors, (unsigned long long)n.rx_bytes,
		(unsigned long long)n.tx_bytes, (unsigned long long)n.dgrams,
		(unsigned long long)n.dgrams_bad, (unsigned long long)n.dgrams_echoed,
		(unsigned long long)n.dgrams_unechoed, (unsigned long long)k.nego_rx_msgs,
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
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		while (sv->lane[i].all != NULL) {
			struct srv_flow *f = sv->lane[i].all;

			sv->lane[i].all = f->next;
			free(f);
		}
	free(sv);
}

static void
lane_publish(struct srv_lane *ln, sst_time_t now)
{
	uint64_t words[SRV_COUNT_WORDS];

	memcpy(words, &ln->n, sizeof(words));
	for (uint32_t k = 0; k < SRV_COUNT_WORDS; k++)
		atomic_store_explicit(&ln->pub[k], words[k], memory_order_relaxed);
	ln->next_publish = now + SRV_PUBLISH_NS;
}

/* A worker's lcore: its passes until halt. A server waits on its clients,
 * so after a while without a packet it naps between passes (as
 * tool_net_poll() does on one thread) instead of taking a CPU from them. */
static int
lane_loop(void *arg)
{
	struct gen_server *sv = arg;
	struct srv_lane *ln = lane_of(sv);
	struct sst_engine *e = tool_host_engine(sv->h);
	const struct sst_worker *w = sst_engine_worker(e, ln->worker);

	while (!atomic_load_explicit(&sv->halt, memory_order_acquire)) {
		sst_time_t now = tool_now();
		uint64_t rx;

		sst_engine_poll_at(e, ln->worker, now);
		if (now >= ln->next_publish)
			lane_publish(ln, now);
		rx = sst_worker_stats(w)->rx_packets;
		if (rx != ln->last_rx) {
			ln->last_rx = rx;
			ln->busy_at = now;
		} else if (now - ln->busy_at > SRV_IDLE_SPIN_NS) {
			rte_delay_us_sleep(SRV_IDLE_NAP_US);
		}
	}
	return 0;
}

/* --port: each worker on a worker lcore of its own when the EAL gives
 * enough; else all are polled by this thread (tool_net_poll()). */
static int
lanes_launch(struct gen_server *sv)
{
	struct sst_engine *e = tool_host_engine(sv->h);
	uint16_t nw = sst_engine_workers(e), k = 0;
	unsigned int lcore;

	if (rte_lcore_count() - 1 < nw) {
		if (nw > 1 && !sv->c->quiet)
			fprintf(stderr,
				"sst-gen: %u workers, %u worker lcores: all polled by the main "
				"thread (the EAL's -l or --lcores with %u lcores gives each its "
				"own)\n",
				nw, rte_lcore_count() - 1, nw + 1u);
		return 0;
	}
	sv->on_lcores = true;
	RTE_LCORE_FOREACH_WORKER(lcore)
	{
		int rc;

		if (k == nw)
			break;
		sv->lane[lcore].worker = k;
		rc = rte_eal_remote_launch(lane_loop, sv, lcore);
		if (rc < 0) {
			fprintf(stderr, "sst-gen: worker %u on lcore %u: %s\n", k, lcore,
				strerror(-rc));
			return -1;
		}
		sv->lane[lcore].launched = true;
		k++;
		if (!sv->c->quiet)
			fprintf(stderr, "sst-gen: worker %u on lcore %u\n", k - 1, lcore);
	}
	return 0;
}

static void
lanes_join(struct gen_server *sv)
{
	atomic_store_explicit(&sv->halt, true, memory_order_release);
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		if (sv->lane[i].launched) {
			rte_eal_wait_lcore(i);
			sv->lane[i].launched = false;
		}
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
	hc.ops = &gen_server_worker_ops;
	hc.ctx = sv;
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
	if (c->port.set && lanes_launch(sv) < 0) {
		rc = TOOL_EXIT_SETUP;
		goto out;
	}
	while (!tool_interrupted) {
		if (sv->on_lcores)
			rte_delay_us_sleep(10 * 1000); /* the workers run on their lcores */
		else
			tool_net_poll(net, true);
		if (!c->quiet && tool_now() >= sv->next_tick) {
			sv->next_tick += SST_NSEC_PER_SEC;
			gen_server_tick(sv, false);
		}
	}
	lanes_join(sv);
	gen_server_tick(sv, true);
out:
	lanes_join(sv);
	gen_server_quiesce(sv);
	tool_net_destroy(net);
	gen_server_destroy(sv);
	return rc;
}
