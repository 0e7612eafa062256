/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-perf, the server side: one test at a time (a second client is told
 * it is busy). The control stream brings the parameters; data streams are
 * read (and checked with --verify), answered in rr and streams modes, and
 * their datagrams counted in dgram mode; when the client ends the control
 * stream, the server's counters go back on it.
 *
 * Data streams are matched to the test by arrival: the stream API gives no
 * way to ask which peer a stream came from, so serving one test at a time
 * is also what keeps two clients' counters apart.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "perf.h"
#include "perf_prio.h"
#include "perf_web.h"

enum {
	SVC_CONTROL = 1,
	SVC_DATA = 2,
	READ_BURST = 32,
	READ_DEFER_MAX = 16, /**< readable calls a bulk flow's read waits for at most */
};
/* How often a test under way is checked for traffic (--idle-timeout). */
#define IDLE_LOOK_NS (100 * SST_NSEC_PER_MSEC)

/* One data stream at the server. */
struct srv_flow {
	struct sst_stream *s;
	struct perf_rx rx;
	uint64_t tx_off;   /**< response bytes written */
	uint64_t resp_len; /**< set when the response starts */
	uint64_t resp_tag; /**< set when the response starts */
	bool responding, responded, eof, stalled, pending;
	uint32_t deferred; /**< readable calls since the last read */
	struct srv_flow *next_stalled;
	struct srv_flow *next_pending;
	struct srv_flow *prev, *next; /**< every live flow, to free them at exit */
};

struct perf_server {
	const struct perf_conf *conf;
	struct tool_host *h;
	uint64_t tests;
	/* The test being served. */
	bool busy, ready;
	struct sst_stream *ctl;
	uint8_t ctl_buf[PERF_PARAMS_LEN];
	uint32_t ctl_len;
	struct perf_params p;
	struct perf_result r;
	struct tool_counters c0;
	uint64_t tsc0;
	uint64_t live;
	sst_time_t rx_first, rx_last;
	struct srv_flow *stalled;
	/* Bulk: flows the stream layer called readable since their last read,
	 * read in app_poll (defer_read()). */
	struct srv_flow *pending;
	struct srv_flow *flows;
	/* Ended flows kept for the next: a test of transactions starts one a
	 * transaction, and malloc and free cost more than the stream layer's
	 * own work on a small one. At most the test's peak of live flows. */
	struct srv_flow *spare;
	uint64_t seen_rx;     /**< link packets received, at active_at */
	sst_time_t active_at; /**< the last look that saw a packet arrive */
	sst_time_t looked_at; /**< when the counters were last read for it */
	bool closing;	      /**< being destroyed: callbacks do nothing */
	/* A stream's end reported inside a read of it: the reader acts on it
	 * once it has what the read returned (the stream layer may finish a
	 * stream from inside the read that takes its last bytes). */
	struct sst_stream *in_read;
	bool close_pending;
	enum sst_stream_end close_why;
	/* Test hook (tests/system/perf_dgram_fail.sh): datagrams to discard
	 * uncounted, from SST_PERF_TEST_LOSE_DGRAMS, as if they never came. */
	uint64_t lose_dgrams;
};

static bool
take_close(struct perf_server *sv, enum sst_stream_end *why)
{
	bool pending = sv->close_pending;

	*why = sv->close_why;
	sv->close_pending = false;
	return pending;
}

/* A flow whose response could not be written for want of mbufs: retried
 * from app_poll (no callback would come for it). */
static void
stall(struct perf_server *sv, struct srv_flow *f)
{
	if (f->stalled)
		return;
	f->stalled = true;
	f->next_stalled = sv->stalled;
	sv->stalled = f;
}

static void
unstall(struct perf_server *sv, struct srv_flow *f)
{
	for (struct srv_flow **pp = &sv->stalled; *pp != NULL; pp = &(*pp)->next_stalled)
		if (*pp == f) {
			*pp = f->next_stalled;
			break;
		}
	f->stalled = false;
}

/*
 * Bulk: a readable call is answered in app_poll, or at once every
 * READ_DEFER_MAX calls. The stream layer calls readable for every packet it
 * delivers, and a reader that reads until a read returns nothing then took
 * two reads a packet, one of them empty, with the callbacks around them.
 * app_poll comes after every packet of the pass is delivered and before the
 * channels' flushes (sst_worker_poll()), so it reads the pass's packets
 * together and the window they free still goes out in this pass. Not all
 * of them: the channel acknowledges a run of 16 packets (SST_CHAN_ACKCT_MAX)
 * from inside the receive path, and that ack's window byte counts the
 * bytes still unread; left unread for the whole pass, they cut its window
 * and the window updates that followed were 2.4 % more packets
 * (docs/performance.md, "Session 17").
 */
static void
defer_read(struct perf_server *sv, struct srv_flow *f)
{
	if (f->pending)
		return;
	f->pending = true;
	f->next_pending = sv->pending;
	sv->pending = f;
}

static void
undefer_read(struct perf_server *sv, struct srv_flow *f)
{
	for (struct srv_flow **pp = &sv->pending; *pp != NULL; pp = &(*pp)->next_pending)
		if (*pp == f) {
			*pp = f->next_pending;
			break;
		}
	f->pending = false;
}

static void
flow_end(struct perf_server *sv, struct srv_flow *f, bool ok, sst_time_t now)
{
	/* rr, streams and prio: the request is exactly request bytes. */
	if (ok && perf_mode_answers(sv->p.mode) && f->rx.off != sv->p.request)
		sv->r.verify_errors += f->rx.off > sv->p.request ? f->rx.off - sv->p.request
								 : sv->p.request - f->rx.off;
	if (f->stalled)
		unstall(sv, f);
	if (f->pending)
		undefer_read(sv, f);
	if (ok)
		sv->r.streams_done++;
	else
		sv->r.streams_failed++;
	sst_stream_set_user(f->s, NULL);
	sst_stream_close(f->s, now);
	sv->live--;
	if (f->prev != NULL)
		f->prev->next = f->next;
	else
		sv->flows = f->next;
	if (f->next != NULL)
		f->next->prev = f->prev;
	f->next = sv->spare;
	sv->spare = f;
}

static struct srv_flow *
flow_new(struct perf_server *sv)
{
	struct srv_flow *f = sv->spare;

	if (f == NULL)
		return calloc(1, sizeof(*f));
	sv->spare = f->next;
	memset(f, 0, sizeof(*f));
	return f;
}

static void
free_flows(struct srv_flow *f)
{
	while (f != NULL) {
		struct srv_flow *next = f->next;

		free(f);
		f = next;
	}
}

static void
count_rx(struct perf_server *sv, uint32_t len, sst_time_t now)
{
	if (sv->r.rx_bytes == 0)
		sv->rx_first = now;
	sv->rx_last = now;
	sv->r.rx_bytes += len;
}

/* Write as much of the response as the send buffer takes. @return 1 when
 * it is all written, 0 when the rest waits for ops.writable(), -1 when the
 * pool ran dry. */
static int
respond(struct perf_server *sv, struct srv_flow *f, sst_time_t now)
{
	struct rte_mempool *pool = tool_host_pool(sv->h);

	if (!f->responding) {
		f->responding = true;
		f->resp_tag = perf_response_tag(perf_rx_tag(&f->rx), sv->p.request);
		/* web: each request asks for its own length (perf_web.h). */
		f->resp_len = sv->p.mode == PERF_WEB ? perf_web_response_len(perf_rx_tag(&f->rx))
						     : sv->p.response;
	}
	while (f->tx_off < f->resp_len) {
		uint32_t len = (uint32_t)RTE_MIN(f->resp_len - f->tx_off, 2048u);
		bool last = f->tx_off + len == f->resp_len;
		struct rte_mbuf *m = perf_mbuf(pool, f->resp_tag, f->tx_off, len);

		if (m == NULL)
			return -1;
		if (sst_stream_write(f->s, m, last ? 0 : SST_WRITE_MORE, now) < 0) {
			rte_pktmbuf_free(m);
			return 0;
		}
		f->tx_off += len;
	}
	if (!f->responded) {
		/* rr and web: the end of the response ends the transaction; it
		 * needs a send buffer like data does. */
		if (perf_mode_transactions(sv->p.mode) &&
			sst_stream_shutdown(f->s, now) == -ENOBUFS)
			return -1;
		f->responded = true;
	}
	return 1;
}

static void
take_dgrams(struct perf_server *sv, struct srv_flow *f, sst_time_t now)
{
	struct rte_mbuf *m;

	while ((m = sst_stream_recv_datagram(f->s, now)) != NULL) {
		struct perf_rx rx = {0};

		if (sv->lose_dgrams > 0) {
			sv->lose_dgrams--;
			rte_pktmbuf_free(m);
			continue;
		}
		for (struct rte_mbuf *seg = m; seg != NULL; seg = seg->next)
			sv->r.verify_errors += perf_rx_take(&rx,
				rte_pktmbuf_mtod(seg, const uint8_t *), rte_pktmbuf_data_len(seg),
				(sv->p.flags & PERF_FLAG_VERIFY) != 0);
		if (sv->p.dgram_size != 0 && rx.off != sv->p.dgram_size)
			sv->r.verify_errors++;
		count_rx(sv, rte_pktmbuf_pkt_len(m), now);
		sv->r.dgrams++;
		sv->r.dgram_bytes += rte_pktmbuf_pkt_len(m);
		rte_pktmbuf_free(m);
	}
}

/* Read a data stream; answer, finish or count it as the mode says. */
static void
serve_data(struct perf_server *sv, struct srv_flow *f, sst_time_t now)
{
	struct sst_stream_data d[READ_BURST];
	bool verify = (sv->p.flags & PERF_FLAG_VERIFY) != 0;
	enum sst_stream_end why;
	int k;

	sv->in_read = f->s;
	f->deferred = 0;
	if (sv->p.mode == PERF_DGRAM)
		take_dgrams(sv, f, now);
	else if (sv->p.mode == PERF_PRIO)
		perf_prio_serve(f->s, now);
	while ((k = sst_stream_read(f->s, d, READ_BURST, now)) > 0)
		for (int i = 0; i < k; i++) {
			for (struct rte_mbuf *seg = d[i].m; seg != NULL; seg = seg->next)
				sv->r.verify_errors +=
					perf_rx_take(&f->rx, rte_pktmbuf_mtod(seg, const uint8_t *),
						rte_pktmbuf_data_len(seg), verify);
			count_rx(sv, rte_pktmbuf_pkt_len(d[i].m), now);
			rte_pktmbuf_free(d[i].m);
		}
	sv->in_read = NULL;
	if (take_close(sv, &why)) {
		flow_end(sv, f, why == SST_STREAM_FINISHED, now);
		return;
	}
	if (k == -ECONNRESET) {
		flow_end(sv, f, false, now);
		return;
	}
	if (k == -EPIPE)
		f->eof = true;
	if (perf_mode_answers(sv->p.mode) && (f->rx.off >= sv->p.request || f->eof)) {
		int rc = respond(sv, f, now);

		if (rc < 0)
			stall(sv, f);
		if (rc <= 0)
			return; /* the rest when the send buffer has room */
	}
	if (perf_mode_transactions(sv->p.mode) && f->responded) {
		/* The client reads our end; its own end needs no wait. */
		flow_end(sv, f, true, now);
		return;
	}
	if (f->eof) {
		/* The end needs a send buffer: without one, try again later
		 * (closing now would reset the stream). */
		if (sst_stream_shutdown(f->s, now) == -ENOBUFS) {
			stall(sv, f);
			return;
		}
		flow_end(sv, f, true, now);
	}
}

static void
test_end(struct perf_server *sv, sst_time_t now)
{
	struct tool_counters c;

	if (!sv->busy)
		return;
	tool_host_counters(sv->h, &c);
	sv->r.rx_span_ns = sv->rx_last - sv->rx_first;
	sv->r.segments_retx = c.segments_retx - sv->c0.segments_retx;
	sv->r.tx_packets = c.link_tx_packets - sv->c0.link_tx_packets;
	sv->r.cycles = sv->conf->loopback ? 0 : rte_rdtsc() - sv->tsc0;
	if (sv->ctl != NULL) {
		uint8_t out[PERF_RESULT_LEN];

		perf_result_encode(&sv->r, out);
		perf_write_bytes(sv->ctl, tool_host_pool(sv->h), out, sizeof(out), now);
		sst_stream_shutdown(sv->ctl, now);
		sst_stream_close(sv->ctl, now);
		sv->ctl = NULL;
	}
	if (!sv->conf->loopback && !sv->conf->quiet)
		fprintf(stderr,
			"sst-perf server: %s test done: %" PRIu64 " bytes received, %" PRIu64
			" streams done, %" PRIu64 " failed, %" PRIu64 " datagrams, %" PRIu64
			" verify errors\n",
			sv->ready ? perf_mode_names[sv->p.mode] : "unstarted", sv->r.rx_bytes,
			sv->r.streams_done, sv->r.streams_failed, sv->r.dgrams,
			sv->r.verify_errors);
	sv->busy = false;
	sv->ready = false;
	sv->tests++;
}

static void
serve_control(struct perf_server *sv, sst_time_t now)
{
	struct sst_stream_data d[READ_BURST];
	enum sst_stream_end why;
	int k;

	sv->in_read = sv->ctl;
	while ((k = sst_stream_read(sv->ctl, d, READ_BURST, now)) > 0)
		for (int i = 0; i < k; i++) {
			uint32_t len = rte_pktmbuf_pkt_len(d[i].m);
			uint32_t take = RTE_MIN(len, (uint32_t)sizeof(sv->ctl_buf) - sv->ctl_len);
			uint8_t tmp[PERF_PARAMS_LEN];
			const void *src = rte_pktmbuf_read(d[i].m, 0, take, tmp);

			if (take > 0 && src != NULL)
				memcpy(sv->ctl_buf + sv->ctl_len, src, take);
			sv->ctl_len += take;
			rte_pktmbuf_free(d[i].m);
		}
	sv->in_read = NULL;
	if (take_close(sv, &why) && why != SST_STREAM_FINISHED) {
		sv->r.status = PERF_BAD_PARAMS;
		test_end(sv, now);
		return;
	}
	if (!sv->ready && sv->ctl_len == PERF_PARAMS_LEN) {
		uint8_t out[PERF_READY_LEN] = {0x53, 0x50, 0x52, 0x46};
		int rc = perf_params_decode(sv->ctl_buf, &sv->p);

		if (rc == 0 && sv->p.mode == PERF_DGRAM && sv->p.dgram_size == 0)
			rc = -EINVAL;
		/* web: the response length is in the request's 8-byte tag. */
		if (rc == 0 && sv->p.mode == PERF_WEB && sv->p.request < 8)
			rc = -EINVAL;
		out[7] = rc == 0 ? PERF_OK : PERF_BAD_PARAMS;
		/* Its pools and tables were sized for its --streams at start. */
		if (rc == 0 && sv->p.mode == PERF_STREAMS && sv->p.streams > sv->conf->streams) {
			out[7] = PERF_TOO_MANY;
			rc = -ENOSPC;
		}
		sv->ready = rc == 0;
		if (sv->ready && (sv->p.flags & PERF_FLAG_SUBSTREAMS) != 0)
			sst_stream_listen_substream(sv->ctl, true);
		perf_write_bytes(sv->ctl, tool_host_pool(sv->h), out, sizeof(out), now);
		sv->tsc0 = rte_rdtsc();
		tool_host_counters(sv->h, &sv->c0);
	}
	if (k == -EPIPE || k == -ECONNRESET)
		test_end(sv, now);
}

static void
op_accepted(void *ctx, struct sst_stream *parent, struct sst_stream *s, void *svc, sst_time_t now)
{
	struct perf_server *sv = ctx;
	struct srv_flow *f;

	if (sv->closing)
		return;
	if (parent != NULL) {
		/* rr and web with --substreams: a transaction. Other parents'
		 * are dgram mode's reliable datagrams, read whole by
		 * recv_datagram. */
		if (parent != sv->ctl)
			return;
		s = sst_stream_accept_substream(parent, now);
		if (s == NULL)
			return;
	} else if ((uintptr_t)svc == SVC_CONTROL) {
		if (sv->busy) {
			uint8_t out[PERF_READY_LEN] = {0x53, 0x50, 0x52, 0x46, 0, 0, 0, PERF_BUSY};

			perf_write_bytes(s, tool_host_pool(sv->h), out, sizeof(out), now);
			sst_stream_shutdown(s, now);
			sst_stream_close(s, now);
			return;
		}
		sv->busy = true;
		sv->ready = false;
		sv->active_at = now;
		sv->ctl = s;
		sv->ctl_len = 0;
		sv->live = 0;
		memset(&sv->r, 0, sizeof(sv->r));
		serve_control(sv, now);
		return;
	}
	if (!sv->ready) {
		sst_stream_reset(s, now);
		sst_stream_close(s, now);
		return;
	}
	f = flow_new(sv);
	if (f == NULL) {
		sst_stream_reset(s, now);
		sst_stream_close(s, now);
		sv->r.streams_failed++;
		return;
	}
	f->s = s;
	sst_stream_set_user(s, f);
	f->next = sv->flows;
	if (sv->flows != NULL)
		sv->flows->prev = f;
	sv->flows = f;
	sv->live++;
	sv->r.peak_live = RTE_MAX(sv->r.peak_live, sv->live);
	/* prio: priority requests come on substreams. */
	if (sv->p.mode == PERF_DGRAM || sv->p.mode == PERF_PRIO)
		sst_stream_listen_substream(s, true);
	serve_data(sv, f, now);
}

static void
op_readable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct perf_server *sv = ctx;
	struct srv_flow *f = sst_stream_user(s);

	if (sv->closing)
		return;
	if (s == sv->ctl)
		serve_control(sv, now);
	else if (f != NULL && sv->p.mode == PERF_BULK && ++f->deferred < READ_DEFER_MAX)
		defer_read(sv, f);
	else if (f != NULL)
		serve_data(sv, f, now);
}

static void
op_writable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	op_readable(ctx, s, now);
}

static void
op_closed(void *ctx, struct sst_stream *s, enum sst_stream_end why, sst_time_t now)
{
	struct perf_server *sv = ctx;
	struct srv_flow *f = sst_stream_user(s);

	if (sv->closing)
		return;
	if (s == sv->in_read) {
		sv->close_pending = true;
		sv->close_why = why;
		return;
	}
	if (s == sv->ctl) {
		if (why != SST_STREAM_FINISHED)
			sv->r.status = PERF_BAD_PARAMS;
		sst_stream_close(s, now);
		sv->ctl = NULL;
		test_end(sv, now);
		return;
	}
	if (f != NULL)
		flow_end(sv, f, why == SST_STREAM_FINISHED, now);
}

const struct sst_stream_ops perf_server_stream_ops = {
	.accepted = op_accepted,
	.readable = op_readable,
	.writable = op_writable,
	.closed = op_closed,
};

/* A client that vanished mid-test would keep the server busy for good:
 * a test with no traffic for conf->idle_ns (--idle-timeout) is abandoned. */
static void
abandon_test(struct perf_server *sv, sst_time_t now)
{
	if (!sv->conf->quiet)
		fprintf(stderr, "sst-perf server: no traffic for %.1f s: test abandoned\n",
			(double)sv->conf->idle_ns / 1e9);
	/* A reset reports the stream closed from inside the call (op_closed),
	 * which would end the flow, or the whole test, a second time and
	 * clear the pointer used here: each stream is let go of first. */
	while (sv->flows != NULL) {
		struct srv_flow *f = sv->flows;

		sst_stream_set_user(f->s, NULL);
		sst_stream_reset(f->s, now);
		flow_end(sv, f, false, now);
	}
	if (sv->ctl != NULL) {
		struct sst_stream *ctl = sv->ctl;

		sv->ctl = NULL;
		sst_stream_reset(ctl, now);
		sst_stream_close(ctl, now);
	}
	test_end(sv, now);
}

static void
op_app_poll(void *ctx, struct sst_worker *w, sst_time_t now)
{
	struct perf_server *sv = ctx;
	struct srv_flow *f;
	struct tool_counters c;

	(void)w;
	if (sv->closing)
		return;
	/* Any packet received counts as traffic. Reading the counters sums
	 * every worker's figures, so it is done a few times a second, not on
	 * every pass of every worker (with two workers it was 1,000
	 * instructions a transaction). */
	if (sv->busy && now - sv->looked_at >= IDLE_LOOK_NS) {
		sv->looked_at = now;
		tool_host_counters(sv->h, &c);
		if (c.link_rx_packets != sv->seen_rx) {
			sv->seen_rx = c.link_rx_packets;
			sv->active_at = now;
		} else if (now - sv->active_at > sv->conf->idle_ns) {
			abandon_test(sv, now);
			return;
		}
	}
	/* One at a time from the head: a read may end other flows (their
	 * flow_end() takes them off the list) or make others readable. */
	while (sv->pending != NULL) {
		struct srv_flow *p = sv->pending;

		sv->pending = p->next_pending;
		p->pending = false;
		if (p->deferred > 0) /* else read since, at a READ_DEFER_MAX-th call */
			serve_data(sv, p, now);
	}
	f = sv->stalled;
	sv->stalled = NULL;
	while (f != NULL) {
		struct srv_flow *next = f->next_stalled;

		f->stalled = false;
		serve_data(sv, f, now);
		f = next;
	}
}

const struct sst_worker_ops perf_server_worker_ops = {.app_poll = op_app_poll};

struct perf_server *
perf_server_new(const struct perf_conf *c)
{
	struct perf_server *sv = calloc(1, sizeof(*sv));
	const char *lose = getenv("SST_PERF_TEST_LOSE_DGRAMS");

	if (sv != NULL) {
		sv->conf = c;
		sv->lose_dgrams = lose != NULL ? strtoull(lose, NULL, 10) : 0;
	}
	return sv;
}

int
perf_server_start(struct perf_server *sv, struct tool_host *h)
{
	sv->h = h;
	if (tool_host_listen(h, PERF_SERVICE, PERF_PROTO_CONTROL, (void *)(uintptr_t)SVC_CONTROL) <
			0 ||
		tool_host_listen(h, PERF_SERVICE, PERF_PROTO_DATA, (void *)(uintptr_t)SVC_DATA) <
			0) {
		fprintf(stderr, "sst-perf: cannot offer the service\n");
		return -1;
	}
	return 0;
}

void
perf_server_quiesce(struct perf_server *sv)
{
	if (sv != NULL)
		sv->closing = true;
}

void
perf_server_destroy(struct perf_server *sv)
{
	if (sv == NULL)
		return;
	free_flows(sv->flows);
	free_flows(sv->spare);
	free(sv);
}

uint64_t
perf_server_tests(const struct perf_server *sv)
{
	return sv->tests;
}
