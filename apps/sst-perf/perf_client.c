/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-perf, the client side: opens the control stream, sends the
 * parameters, runs the mode's data streams, checks what comes back, and
 * collects the server's counters at the end. Everything runs on the
 * worker's thread: stream callbacks for what arrives, app_poll (once per
 * worker pass, before the flush) for what we send.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "perf_client.h"

enum {
	READ_BURST = 32,
	CHUNK = 16384,	    /**< bytes per write: one mbuf past the tag (perf_mbuf()) */
	OPEN_BATCH = 256,   /**< streams mode: new (or ended) streams per pass */
	OPEN_WINDOW = 4096, /**< streams mode: streams waiting for their answer */
	DGRAM_BATCH = 64,   /**< datagrams per pass at most */
	WRITES_PER_TURN = 64,
};

/* Datagrams still in flight when the sender stops get this long to land. */
#define DGRAM_GRACE (250 * SST_NSEC_PER_MSEC)
/* Bytes of a datagram made in one step (next_dgram()). */
#define DGRAM_PIECE (64u << 10)
/* Bytes of large datagrams travelling at once at most. */
#define DGRAM_INFLIGHT (8u << 20)
/* Reliable datagrams still travelling then get up to this much more. */
#define DGRAM_DRAIN (5 * SST_NSEC_PER_SEC)

static void __attribute__((format(printf, 2, 3))) fail(struct perf_client *cl, const char *fmt, ...)
{
	va_list ap;

	if (cl->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(cl->error, sizeof(cl->error), fmt, ap);
	va_end(ap);
	cl->failed = true;
	/* The report shows what was done until now: no figure may be taken
	 * against a start that never came. */
	if (!cl->data_ended) {
		cl->t_end = tool_now();
		cl->tsc1 = rte_rdtsc();
		if (cl->h != NULL)
			tool_host_counters(cl->h, &cl->c1);
	}
	if (cl->t_start == 0) {
		cl->t_start = cl->t_end;
		cl->tsc0 = cl->tsc1;
		cl->c0 = cl->c1;
	}
	cl->phase = CP_DONE;
}

static void
enqueue(struct perf_client *cl, struct cli_flow *f)
{
	if (f->queued)
		return;
	f->queued = true;
	cl->work[(cl->work_head + cl->work_len) % cl->nflows] = f;
	cl->work_len++;
}

/* ---- Starting flows ---- */

/* streams and prio: requests and responses on streams kept open until
 * every response is in. */
static bool
streams_like(const struct perf_conf *c)
{
	return c->mode == PERF_STREAMS || c->mode == PERF_PRIO;
}

static bool
open_flow(
	struct perf_client *cl, struct cli_flow *f, uint64_t index, uint64_t tx_len, sst_time_t now)
{
	/* A substream names no service: its Init carries the request itself
	 * (paper 4.3.9: a transaction in one Init and one Reply packet). */
	f->s = cl->conf->substreams
		       ? sst_stream_create_substream(cl->ctl, now)
		       : sst_stream_connect(cl->peer, PERF_SERVICE, PERF_PROTO_DATA, now);
	if (f->s == NULL) {
		/* No control block or send buffer free: try again at the next
		 * pass (the timeout ends a run that never gets one). */
		cl->open_retries++;
		return false;
	}
	sst_stream_set_user(f->s, f);
	f->tag = perf_tag(index);
	f->tx_off = 0;
	f->tx_len = tx_len;
	f->rx_off = 0;
	f->rx_len = cl->conf->response;
	f->t0 = now;
	f->state = FL_OPEN;
	f->blocked = false;
	f->answered = false;
	cl->started++;
	cl->in_flight++;
	enqueue(cl, f);
	return true;
}

bool
perf_client_open(struct perf_client *cl, uint32_t i, sst_time_t now)
{
	return open_flow(cl, &cl->flows[i], i, cl->conf->request, now);
}

static void
start_data(struct perf_client *cl, sst_time_t now)
{
	const struct perf_conf *c = cl->conf;

	switch (c->mode) {
	case PERF_BULK:
		for (uint32_t i = 0; i < cl->nflows; i++) {
			uint64_t share = c->size / cl->nflows + (i < c->size % cl->nflows ? 1 : 0);

			if (!open_flow(
				    cl, &cl->flows[i], i, c->size != 0 ? share : UINT64_MAX, now)) {
				fail(cl, "cannot open data stream %u", i);
				return;
			}
		}
		break;
	case PERF_DGRAM:
		if (!open_flow(cl, &cl->flows[0], 0, 0, now))
			fail(cl, "cannot open the data stream");
		cl->started = 0; /* counts datagrams from here on */
		break;
	case PERF_RR:
	case PERF_STREAMS:
	case PERF_PRIO:
	case PERF_WEB:
		break; /* opened by pump_open() */
	default:
		break;
	}
}

/* rr and streams: start transactions or streams as slots and the limits allow. */
static void
pump_open(struct perf_client *cl, sst_time_t now)
{
	const struct perf_conf *c = cl->conf;

	if (c->mode == PERF_RR) {
		for (uint32_t i = 0; i < cl->nflows && !cl->stopping; i++) {
			if (cl->flows[i].state != FL_FREE)
				continue;
			if (c->count != 0 && cl->started >= c->count) {
				cl->stopping = true;
				cl->t_stop = now;
				break;
			}
			if (!open_flow(cl, &cl->flows[i], cl->started, c->request, now))
				return;
		}
	} else if (c->mode == PERF_PRIO) {
		perf_prio_poll(cl, now);
	} else if (c->mode == PERF_WEB) {
		perf_web_poll(cl, now);
	} else if (c->mode == PERF_STREAMS) {
		/* A window of streams waiting for their answer: each holds a
		 * send buffer until its request is acknowledged. */
		for (uint32_t k = 0; k < OPEN_BATCH && cl->started < cl->nflows &&
				     cl->started - cl->answered < OPEN_WINDOW;
			k++)
			if (!open_flow(cl, &cl->flows[cl->started], cl->started, c->request, now))
				return;
	}
}

/* ---- Writing ---- */

/* Write what the flow has to write. @return false when it must be tried
 * again at the next pass (pool empty, or its turn is over). */
static bool
pump_flow(struct perf_client *cl, struct cli_flow *f, sst_time_t now)
{
	struct rte_mempool *pool = tool_host_pool(cl->h);

	for (int n = 0; f->state == FL_OPEN && f->tx_off < f->tx_len; n++) {
		uint32_t len = (uint32_t)RTE_MIN(f->tx_len - f->tx_off, (uint64_t)CHUNK);
		bool last = f->tx_off + len == f->tx_len;
		struct rte_mbuf *m;
		int rc;

		if (n == WRITES_PER_TURN)
			return false;
		m = perf_mbuf(pool, f->tag, f->tx_off, len);
		if (m == NULL)
			return false;
		rc = sst_stream_write(f->s, m, last ? 0 : SST_WRITE_MORE, now);
		if (rc == -EAGAIN) {
			rte_pktmbuf_free(m);
			f->blocked = true;
			return true;
		}
		if (rc < 0) {
			rte_pktmbuf_free(m);
			cl->failures++;
			fail(cl, "write refused: %s", strerror(-rc));
			return true;
		}
		f->tx_off += len;
		cl->tx_bytes += len;
	}
	/* Bulk and rr end their direction after the data; streams keeps it
	 * open until every stream has had its answer. */
	if (f->state == FL_OPEN && f->tx_off == f->tx_len && !streams_like(cl->conf) &&
		cl->conf->mode != PERF_DGRAM) {
		sst_stream_shutdown(f->s, now);
		f->state = FL_SHUT;
	}
	return true;
}

static void
pump_work(struct perf_client *cl, sst_time_t now)
{
	for (uint32_t n = cl->work_len; n > 0 && !cl->failed; n--) {
		struct cli_flow *f = cl->work[cl->work_head];

		cl->work_head = (cl->work_head + 1) % cl->nflows;
		cl->work_len--;
		f->queued = false;
		if (f->state != FL_OPEN || f->blocked)
			continue;
		if (!pump_flow(cl, f, now))
			enqueue(cl, f);
	}
}

/*
 * Reliable datagrams still travelling: each one's substream lives at this
 * side until the server has read it, so more streams than when the data
 * stream connected (the control and data streams) means some have not
 * landed yet. They get DGRAM_DRAIN; the report fails the run for those
 * that never arrive (perf_report.c).
 */
static bool
dgrams_draining(struct perf_client *cl, sst_time_t now)
{
	struct tool_counters c;

	if (now - cl->t_stop >= DGRAM_GRACE + DGRAM_DRAIN)
		return false;
	tool_host_counters(cl->h, &c);
	return c.streams_live > cl->dgram_live0;
}

/*
 * The next datagram, built 64 KB at a time and kept across passes: the
 * pool grows only as it empties (sst_pool.h), so a 1 MB datagram (512
 * mbufs) could never be made at once from the 256 a pool starts with.
 * NULL while it is not complete.
 */
static struct rte_mbuf *
next_dgram(struct perf_client *cl)
{
	struct rte_mempool *pool = tool_host_pool(cl->h);
	uint32_t size = (uint32_t)cl->conf->size;
	struct rte_mbuf *m;

	while (cl->dg_built < size) {
		uint32_t n = RTE_MIN(size - cl->dg_built, DGRAM_PIECE);

		m = perf_mbuf(pool, perf_tag(cl->started), cl->dg_built, n);
		if (m == NULL)
			return NULL;
		if (cl->dg_part == NULL) {
			cl->dg_part = m;
		} else if (rte_pktmbuf_chain(cl->dg_part, m) < 0) {
			rte_pktmbuf_free(m);
			return NULL;
		}
		cl->dg_built += n;
	}
	m = cl->dg_part;
	cl->dg_part = NULL;
	cl->dg_built = 0;
	return m;
}

/*
 * Large datagrams wait while DGRAM_INFLIGHT bytes of them are travelling
 * (substreams live at this side): the receiver holds each one's mbufs until
 * it is whole, and 60 datagrams of 1 MB would take both sides' pools,
 * leaving none to carry the rest.
 */
static bool
dgrams_too_many(struct perf_client *cl)
{
	struct tool_counters c;

	if (cl->conf->size <= DGRAM_PIECE)
		return false;
	tool_host_counters(cl->h, &c);
	return c.streams_live > cl->dgram_live0 &&
	       (c.streams_live - cl->dgram_live0) * cl->conf->size >= DGRAM_INFLIGHT;
}

/* Keep a datagram the stack refused for the next pass. */
static void
keep_dgram(struct perf_client *cl, struct rte_mbuf *m)
{
	cl->dg_part = m;
	cl->dg_built = rte_pktmbuf_pkt_len(m);
}

static void
pump_dgrams(struct perf_client *cl, sst_time_t now)
{
	const struct perf_conf *c = cl->conf;
	struct cli_flow *f = &cl->flows[0];

	if (!cl->dgram_ready || f->state != FL_OPEN)
		return;
	for (int k = 0; k < DGRAM_BATCH && !cl->stopping; k++) {
		struct rte_mbuf *m;
		int rc;

		if (c->count != 0 && cl->started >= c->count) {
			cl->stopping = true;
			cl->t_stop = now;
			break;
		}
		if (dgrams_too_many(cl))
			break;
		m = next_dgram(cl);
		if (m == NULL)
			break;
		rc = sst_stream_send_datagram(f->s, m, now);
		if (rc == -ENOBUFS) {
			/* The congestion window is full (or no stream control
			 * block for the reliable path): the datagram is ours. */
			keep_dgram(cl, m);
			break;
		}
		if (rc < 0) {
			rte_pktmbuf_free(m);
			fail(cl, "datagram refused: %s", strerror(-rc));
			return;
		}
		cl->started++;
		cl->tx_bytes += c->size;
	}
	if (cl->stopping && now - cl->t_stop >= DGRAM_GRACE && !dgrams_draining(cl, now)) {
		sst_stream_shutdown(f->s, now);
		f->state = FL_SHUT;
	}
}

/* The time is up: bulk streams end here; rr and dgram start nothing new. */
static void
stop(struct perf_client *cl, sst_time_t now)
{
	cl->stopping = true;
	cl->t_stop = now;
	if (cl->conf->mode != PERF_BULK)
		return;
	for (uint32_t i = 0; i < cl->nflows; i++) {
		struct cli_flow *f = &cl->flows[i];

		if (f->state == FL_OPEN) {
			f->tx_len = f->tx_off;
			sst_stream_shutdown(f->s, now);
			f->state = FL_SHUT;
		}
	}
}

/* Every data stream is done: end the control stream, which asks the
 * server for its counters. */
static void
data_done(struct perf_client *cl, sst_time_t now)
{
	if (cl->data_ended)
		return;
	cl->data_ended = true;
	cl->t_end = now;
	cl->tsc1 = rte_rdtsc();
	tool_host_counters(cl->h, &cl->c1);
	sst_stream_shutdown(cl->ctl, now);
	cl->phase = CP_RESULTS;
}

static void
check_end(struct perf_client *cl, sst_time_t now)
{
	const struct perf_conf *c = cl->conf;
	bool done = false;

	switch (c->mode) {
	case PERF_BULK:
	case PERF_DGRAM:
		done = cl->finished + cl->failures == cl->nflows;
		break;
	case PERF_RR:
	case PERF_WEB:
		done = cl->stopping && cl->in_flight == 0;
		break;
	case PERF_STREAMS:
	case PERF_PRIO:
		done = cl->finished + cl->failures == cl->nflows;
		break;
	default:
		break;
	}
	if (done)
		data_done(cl, now);
}

/* streams mode: every stream has had its answer, so all were open at once:
 * now end them all. */
static void
streams_all_answered(struct perf_client *cl, sst_time_t now)
{
	struct tool_counters c;

	cl->t_answered = now;
	tool_host_counters(cl->h, &c);
	cl->peak_live = c.streams_live;
	cl->shutting = true;
}

static void flow_end(struct perf_client *cl, struct cli_flow *f, bool ok, sst_time_t now);

/* streams mode: end the streams a batch per pass, as they were opened. */
static void
pump_shut(struct perf_client *cl, sst_time_t now)
{
	for (uint32_t k = 0; k < OPEN_BATCH && cl->shut_next < cl->nflows; cl->shut_next++) {
		struct cli_flow *f = &cl->flows[cl->shut_next];

		if (f->state != FL_OPEN)
			continue;
		/* A shutdown waits for a send buffer by itself; it fails only
		 * on a stream that was reset without its closed() reaching
		 * us yet: that flow failed, and the others still end. */
		if (sst_stream_shutdown(f->s, now) < 0) {
			flow_end(cl, f, false, now);
			continue;
		}
		f->state = FL_SHUT;
		k++;
	}
}

static void
op_app_poll(void *ctx, struct sst_worker *w, sst_time_t now)
{
	struct perf_client *cl = ctx;
	const struct perf_conf *c = cl->conf;

	/* Every worker's pass calls this; the client's streams all live on
	 * one worker, so its work is done in that worker's pass only, as an
	 * application on the worker's lcore would do it. */
	if (cl->phase == CP_DONE || (cl->home != NULL && w != cl->home))
		return;
	if (now >= cl->give_up) {
		struct tool_counters tc;

		/* Where it stood, so that a run that never ends can be told
		 * apart from one that was merely slow. */
		tool_host_counters(cl->h, &tc);
		fail(cl,
			"timed out (--timeout) in the %s phase: %" PRIu64 " of %" PRIu32
			" flows started, %" PRIu64 " answered, %" PRIu64 " finished, %" PRIu64
			" failed, %" PRIu32 " shut, %" PRIu64 " streams live",
			cl->phase == CP_CONNECTING ? "connecting"
			: cl->phase == CP_PARAMS   ? "setup"
			: cl->phase == CP_RUNNING  ? "test"
						   : "results",
			cl->started, cl->nflows, cl->answered, cl->finished, cl->failures,
			cl->shut_next, tc.streams_live);
		return;
	}
	if (cl->phase == CP_CONNECTING && cl->peer != NULL && cl->ctl == NULL) {
		struct perf_params p = {.mode = c->mode,
			.flags = (c->verify ? PERF_FLAG_VERIFY : 0) |
				 (c->substreams ? PERF_FLAG_SUBSTREAMS : 0),
			.request = c->request,
			.response = c->response,
			.dgram_size = c->mode == PERF_DGRAM ? (uint32_t)c->size : 0,
			.streams = c->streams};
		uint8_t out[PERF_PARAMS_LEN];

		cl->ctl = sst_stream_connect(cl->peer, PERF_SERVICE, PERF_PROTO_CONTROL, now);
		perf_params_encode(&p, out);
		if (cl->ctl == NULL || perf_write_bytes(cl->ctl, tool_host_pool(cl->h), out,
					       sizeof(out), now) < 0) {
			fail(cl, "cannot open the control stream");
			return;
		}
		cl->phase = CP_PARAMS;
	}
	if (cl->phase != CP_RUNNING)
		return;
	if (!cl->stopping && cl->deadline != 0 && now >= cl->deadline)
		stop(cl, now);
	pump_open(cl, now);
	pump_work(cl, now);
	if (cl->shutting)
		pump_shut(cl, now);
	if (c->mode == PERF_DGRAM)
		pump_dgrams(cl, now);
	check_end(cl, now);
	if (!c->quiet && !c->json && cl->phase == CP_RUNNING && now >= cl->next_progress) {
		perf_progress(cl, now);
		/* A pass that overran a second does not bunch lines up. */
		cl->next_progress = RTE_MAX(cl->next_progress + SST_NSEC_PER_SEC, now);
	}
}

/* ---- What arrives ---- */

/*
 * The stream layer may report a stream's end from inside sst_stream_read()
 * (the read that takes the last bytes finishes it), before that read has
 * returned them: a closed() for the stream being read only notes the end,
 * and the reader acts on it once it has what the read returned.
 */
static bool
defer_close(struct perf_client *cl, struct sst_stream *s, enum sst_stream_end why)
{
	if (s != cl->in_read)
		return false;
	cl->close_pending = true;
	cl->close_why = why;
	return true;
}

static bool
take_close(struct perf_client *cl, enum sst_stream_end *why)
{
	bool pending = cl->close_pending;

	*why = cl->close_why;
	cl->close_pending = false;
	return pending;
}

static void
control_readable(struct perf_client *cl, sst_time_t now)
{
	struct sst_stream_data d[READ_BURST];
	enum sst_stream_end why;
	int k;

	cl->in_read = cl->ctl;
	while ((k = sst_stream_read(cl->ctl, d, READ_BURST, now)) > 0)
		for (int i = 0; i < k; i++) {
			uint32_t len = rte_pktmbuf_pkt_len(d[i].m);
			uint32_t take = RTE_MIN(len, (uint32_t)sizeof(cl->ctl_buf) - cl->ctl_len);
			uint8_t tmp[sizeof(cl->ctl_buf)];
			const void *src = rte_pktmbuf_read(d[i].m, 0, take, tmp);

			if (take > 0 && src != NULL)
				memcpy(cl->ctl_buf + cl->ctl_len, src, take);
			cl->ctl_len += take;
			rte_pktmbuf_free(d[i].m);
		}
	cl->in_read = NULL;
	if (take_close(cl, &why) && why != SST_STREAM_FINISHED) {
		fail(cl, "the control stream ended: %s", sst_stream_end_describe(why));
		return;
	}
	if (cl->phase == CP_PARAMS && cl->ctl_len >= PERF_READY_LEN) {
		uint8_t status = cl->ctl_buf[7];

		if (status == PERF_BUSY) {
			fail(cl, "the server is busy with another test");
			return;
		}
		if (status == PERF_TOO_MANY) {
			fail(cl,
				"the server holds fewer than %u streams at once (start it with a "
				"larger --streams)",
				cl->conf->streams);
			return;
		}
		if (status != PERF_OK) {
			fail(cl, "the server refused the parameters (an older sst-perf?)");
			return;
		}
		cl->phase = CP_RUNNING;
		cl->t_start = now;
		cl->tsc0 = rte_rdtsc();
		tool_host_counters(cl->h, &cl->c0);
		cl->next_progress = now + SST_NSEC_PER_SEC;
		cl->prog_t = now;
		if (cl->conf->time_ns != 0)
			cl->deadline = now + cl->conf->time_ns;
		start_data(cl, now);
	}
	if (k == -EPIPE || k == -ECONNRESET) {
		if (cl->phase != CP_RESULTS) {
			fail(cl, "the server ended the test early");
			return;
		}
		if (cl->ctl_len != sizeof(cl->ctl_buf) ||
			perf_result_decode(cl->ctl_buf + PERF_READY_LEN, &cl->r) < 0) {
			fail(cl, "the server's counters did not arrive whole (%u bytes)",
				cl->ctl_len);
			return;
		}
		sst_stream_close(cl->ctl, now);
		cl->ctl = NULL;
		cl->phase = CP_DONE;
	}
}

static void
flow_release(struct perf_client *cl, struct cli_flow *f, bool ok, sst_time_t now)
{
	sst_stream_set_user(f->s, NULL);
	sst_stream_close(f->s, now);
	f->s = NULL;
	f->state = perf_mode_transactions(cl->conf->mode) ? FL_FREE : FL_DONE;
	cl->in_flight--;
	if (ok)
		cl->finished++;
	else
		cl->failures++;
}

/*
 * A flow's stream ended (ok: by its close). In streams mode one that ended
 * before its answer never gets one, so the answers of the others complete
 * the set: without counting it the run would wait for ever.
 */
static void
flow_end(struct perf_client *cl, struct cli_flow *f, bool ok, sst_time_t now)
{
	bool unanswered = streams_like(cl->conf) && !f->answered;

	flow_release(cl, f, ok, now);
	if (unanswered && ++cl->unanswered_ends + cl->answered == cl->nflows)
		streams_all_answered(cl, now);
}

static void flow_closed(
	struct perf_client *cl, struct cli_flow *f, enum sst_stream_end why, sst_time_t now);

static void
flow_readable(struct perf_client *cl, struct cli_flow *f, sst_time_t now)
{
	const struct perf_conf *c = cl->conf;
	struct sst_stream_data d[READ_BURST];
	uint64_t rtag = perf_response_tag(f->tag, c->request);
	enum sst_stream_end why;
	int k;

	cl->in_read = f->s;
	while ((k = sst_stream_read(f->s, d, READ_BURST, now)) > 0)
		for (int i = 0; i < k; i++) {
			for (struct rte_mbuf *seg = d[i].m; seg != NULL; seg = seg->next) {
				uint32_t len = rte_pktmbuf_data_len(seg);

				if (c->verify)
					cl->verify_errors +=
						perf_check(rte_pktmbuf_mtod(seg, const uint8_t *),
							rtag, f->rx_off, len);
				f->rx_off += len;
			}
			cl->rx_bytes += rte_pktmbuf_pkt_len(d[i].m);
			rte_pktmbuf_free(d[i].m);
		}
	cl->in_read = NULL;
	if (streams_like(c) && !f->answered && f->rx_off >= c->response) {
		f->answered = true;
		perf_hist_add(cl->hist, now - f->t0);
		if (++cl->answered + cl->unanswered_ends == cl->nflows)
			streams_all_answered(cl, now);
	}
	if (k == -EPIPE && perf_mode_transactions(c->mode)) {
		/* A transaction ends with the whole response and its end. */
		if (f->rx_off != f->rx_len)
			cl->verify_errors += f->rx_off > f->rx_len ? f->rx_off - f->rx_len
								   : f->rx_len - f->rx_off;
		perf_hist_add(cl->hist, now - f->t0);
		flow_end(cl, f, true, now);
	} else if (k == -ECONNRESET) {
		flow_end(cl, f, false, now);
	}
	if (take_close(cl, &why))
		flow_closed(cl, f, why, now);
}

static void
op_readable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct perf_client *cl = ctx;
	struct cli_flow *f = sst_stream_user(s);

	if (cl->closing || cl->phase == CP_DONE)
		return;
	if (s == cl->ctl)
		control_readable(cl, now);
	else if (f != NULL)
		flow_readable(cl, f, now);
}

static void
op_writable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct perf_client *cl = ctx;
	struct cli_flow *f = sst_stream_user(s);

	(void)now;
	if (cl->closing || f == NULL || !f->blocked)
		return;
	f->blocked = false;
	enqueue(cl, f);
}

static void
op_connected(void *ctx, struct sst_stream *s, int err, sst_time_t now)
{
	struct perf_client *cl = ctx;

	(void)now;
	if (cl->closing || cl->phase == CP_DONE)
		return;
	/* A stream whose sst_stream_connect() failed may still be reported. */
	if (s != cl->ctl && sst_stream_user(s) == NULL)
		return;
	if (err != 0) {
		fail(cl, "the server refused the %s stream: %s", s == cl->ctl ? "control" : "data",
			strerror(-err));
		return;
	}
	if (cl->conf->mode == PERF_DGRAM && s != cl->ctl) {
		struct tool_counters c;

		tool_host_counters(cl->h, &c);
		cl->dgram_live0 = c.streams_live;
		cl->dgram_ready = true;
	}
}

static void
flow_closed(struct perf_client *cl, struct cli_flow *f, enum sst_stream_end why, sst_time_t now)
{
	if (f->s == NULL)
		return; /* released while reading */
	if (why == SST_STREAM_FINISHED && streams_like(cl->conf) && !f->answered)
		cl->verify_errors += cl->conf->response - f->rx_off;
	flow_end(cl, f, why == SST_STREAM_FINISHED, now);
}

static void
op_closed(void *ctx, struct sst_stream *s, enum sst_stream_end why, sst_time_t now)
{
	struct perf_client *cl = ctx;
	struct cli_flow *f = sst_stream_user(s);

	if (cl->closing || cl->phase == CP_DONE || defer_close(cl, s, why))
		return;
	if (s == cl->ctl) {
		if (why != SST_STREAM_FINISHED)
			fail(cl, "the control stream ended: %s", sst_stream_end_describe(why));
		else
			control_readable(cl, now);
		return;
	}
	if (f == NULL)
		return;
	if (why == SST_STREAM_FINISHED)
		flow_readable(cl, f, now); /* what is left, the end included */
	flow_closed(cl, f, why, now);
}

static void
op_peer_ready(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	struct perf_client *cl = ctx;

	(void)ep;
	cl->peer = peer;
}

/* The peer had neither channel nor stream left: forget it. */
static void
op_peer_gone(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	struct perf_client *cl = ctx;

	(void)ep;
	if (cl->peer == peer)
		cl->peer = NULL;
}

static void
op_connect_failed(void *ctx, const struct sst_net_endpoint *ep, int err)
{
	struct perf_client *cl = ctx;

	(void)ep;
	if (cl->closing)
		return;
	fail(cl, "no channel to the server: %s", strerror(-err));
}

const struct sst_stream_ops perf_client_stream_ops = {
	.connected = op_connected,
	.readable = op_readable,
	.writable = op_writable,
	.closed = op_closed,
};

const struct sst_worker_ops perf_client_worker_ops = {
	.peer_ready = op_peer_ready,
	.peer_gone = op_peer_gone,
	.connect_failed = op_connect_failed,
	.app_poll = op_app_poll,
};

struct perf_client *
perf_client_new(const struct perf_conf *c)
{
	struct perf_client *cl = calloc(1, sizeof(*cl));

	if (cl == NULL)
		return NULL;
	cl->conf = c;
	cl->nflows = c->mode == PERF_DGRAM ? 1 : c->streams;
	cl->flows = calloc(cl->nflows, sizeof(*cl->flows));
	cl->work = calloc(cl->nflows, sizeof(*cl->work));
	cl->hist = calloc(1, sizeof(*cl->hist));
	if (cl->flows == NULL || cl->work == NULL || cl->hist == NULL) {
		perf_client_destroy(cl);
		return NULL;
	}
	return cl;
}

int
perf_client_start(
	struct perf_client *cl, struct tool_host *h, const struct sst_net_endpoint *server)
{
	sst_time_t now = tool_now();
	int rc;

	cl->h = h;
	cl->server = *server;
	cl->home = tool_host_owner(h, server);
	cl->give_up = now + cl->conf->timeout_ns;
	rc = tool_host_connect(h, server, now);
	if (rc < 0) {
		fprintf(stderr, "sst-perf: cannot start a channel: %s\n", strerror(-rc));
		return -1;
	}
	return 0;
}

void
perf_client_abort(struct perf_client *cl, int sig)
{
	fail(cl, "interrupted by signal %d (%s)", sig, strsignal(sig));
}

bool
perf_client_done(const struct perf_client *cl)
{
	return cl->phase == CP_DONE;
}

void
perf_client_quiesce(struct perf_client *cl)
{
	if (cl != NULL)
		cl->closing = true;
}

void
perf_client_destroy(struct perf_client *cl)
{
	if (cl == NULL)
		return;
	rte_pktmbuf_free(cl->dg_part);
	perf_web_fini(&cl->web);
	free(cl->flows);
	free(cl->work);
	free(cl->hist);
	free(cl);
}
