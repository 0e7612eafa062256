/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The event log (sst_event_log.h): records on an rte_ring, many workers
 * putting, one writer formatting JSON lines into a stdio file.
 *
 * The workers' side is worker_event() and the channel trace callback
 * below: a record is built on the stack and enqueued, or dropped and
 * counted if the ring is full; nothing waits, allocates or writes there.
 * The counter of drops is the one word several workers write, so it is
 * atomic; the writer's counters are its own.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "sst_event_log.h"
#include "worker_internal.h"

enum {
	EVENT_RING_MIN = 64,
	EVENT_RING_MAX = 1u << 20,
	EVENT_RING_DEFAULT = 1u << 16,
	EVENT_DRAIN_BURST = 64, /**< records taken off the ring at a time */
};

static_assert(sizeof(struct sst_event_rec) == 40 && sizeof(struct sst_event_rec) % 4 == 0,
	"event records are fixed-size ring elements");

struct sst_event_log {
	struct rte_ring *ring;
	FILE *file;
	atomic_uint_fast64_t dropped;
	uint64_t written;
};

/* The name of each kind and of its values (NULL: not shown); b_why: b is an
 * enum sst_stream_end, written as its name. */
static const struct {
	const char *name;
	const char *a, *b, *c;
	bool b_why;
} kinds[SST_EVENT_KINDS] = {
	[SST_EVENT_CHAN_UP] = {"up", "peer_ch", "secure", NULL},
	[SST_EVENT_CHAN_DOWN] = {"down", NULL, NULL, NULL},
	[SST_EVENT_REPLACED] = {"replacing", NULL, NULL, NULL},
	[SST_EVENT_MIGRATED] = {"migrated", "to", NULL, NULL},
	[SST_EVENT_RTT] = {"rtt", "sample_ns", "srtt_ns", "rttvar_ns"},
	[SST_EVENT_CWND] = {"cwnd", "cwnd", "ssthresh", "in_flight"},
	[SST_EVENT_LOSS] = {"loss", "seq", "bytes", NULL},
	[SST_EVENT_RTO] = {"rto", "rto_ns", NULL, NULL},
	[SST_EVENT_STREAM_CONNECTED] = {"stream_connected", "usid", "err", NULL},
	[SST_EVENT_STREAM_ACCEPTED] = {"stream_accepted", "usid", "sub", NULL},
	[SST_EVENT_STREAM_CLOSED] = {"stream_closed", "usid", "why", "written", true},
};

/* The names of enum sst_stream_end in the log. */
static const char *
end_name(uint64_t why)
{
	static const char *const names[] = {
		[SST_STREAM_FINISHED] = "finished",
		[SST_STREAM_RESET_LOCAL] = "reset_local",
		[SST_STREAM_RESET_REMOTE] = "reset_remote",
		[SST_STREAM_REFUSED] = "refused",
		[SST_STREAM_ABORTED] = "aborted",
		[SST_STREAM_TIMED_OUT] = "timed_out",
	};

	return why < RTE_DIM(names) && names[why] != NULL ? names[why] : "unknown";
}

int
sst_event_format(const struct sst_event_rec *r, char *buf, size_t len)
{
	const char *names[3];
	const uint64_t vals[3] = {r->a, r->b, r->c};
	size_t at;
	int n;

	if (r->kind == 0 || r->kind >= SST_EVENT_KINDS)
		return -EINVAL;
	names[0] = kinds[r->kind].a;
	names[1] = kinds[r->kind].b;
	names[2] = kinds[r->kind].c;
	n = snprintf(buf, len, "{\"t\":%" PRIu64 ",\"w\":%u,\"ch\":%u,\"ev\":\"%s\"", r->time,
		r->worker, r->channel, kinds[r->kind].name);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	at = (size_t)n;
	for (int i = 0; i < 3 && names[i] != NULL; i++) {
		if (i == 1 && kinds[r->kind].b_why)
			n = snprintf(
				buf + at, len - at, ",\"%s\":\"%s\"", names[i], end_name(vals[i]));
		else
			n = snprintf(buf + at, len - at, ",\"%s\":%" PRIu64, names[i], vals[i]);
		if (n < 0 || (size_t)n >= len - at)
			return -ENOSPC;
		at += (size_t)n;
	}
	n = snprintf(buf + at, len - at, "}\n");
	if (n < 0 || (size_t)n >= len - at)
		return -ENOSPC;
	return (int)(at + (size_t)n);
}

struct sst_event_log *
sst_event_log_create(const char *path, uint32_t ring_size)
{
	static atomic_uint serial;
	struct sst_event_log *log;
	char name[RTE_RING_NAMESIZE];
	int err;

	if (ring_size == 0)
		ring_size = EVENT_RING_DEFAULT;
	if (path == NULL || ring_size < EVENT_RING_MIN || ring_size > EVENT_RING_MAX ||
		!rte_is_power_of_2(ring_size)) {
		rte_errno = EINVAL;
		return NULL;
	}
	log = rte_zmalloc("sst_event_log", sizeof(*log), 0);
	if (log == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	snprintf(name, sizeof(name), "sst_evlog%u", atomic_fetch_add(&serial, 1));
	/* Workers put, one writer takes. */
	log->ring = rte_ring_create_elem(name, sizeof(struct sst_event_rec), ring_size,
		SOCKET_ID_ANY, RING_F_SC_DEQ | RING_F_EXACT_SZ);
	if (log->ring == NULL) {
		err = rte_errno;
		goto fail_ring;
	}
	log->file = fopen(path, "w");
	if (log->file == NULL) {
		err = errno;
		goto fail_file;
	}
	atomic_init(&log->dropped, 0);
	return log;

fail_file:
	rte_ring_free(log->ring);
fail_ring:
	rte_free(log);
	rte_errno = err;
	return NULL;
}

void
sst_event_log_destroy(struct sst_event_log *log)
{
	if (log == NULL)
		return;
	sst_event_log_drain(log);
	fclose(log->file);
	rte_ring_free(log->ring);
	rte_free(log);
}

int
sst_event_log_put(struct sst_event_log *log, const struct sst_event_rec *r)
{
	struct sst_event_rec copy = *r; /* the ring's API takes no const */

	if (rte_ring_enqueue_elem(log->ring, &copy, sizeof(copy)) == 0)
		return 0;
	atomic_fetch_add_explicit(&log->dropped, 1, memory_order_relaxed);
	return -ENOBUFS;
}

int
sst_event_log_drain(struct sst_event_log *log)
{
	struct sst_event_rec recs[EVENT_DRAIN_BURST];
	char line[SST_EVENT_LINE_MAX];
	int total = 0;
	unsigned int n;

	while ((n = rte_ring_dequeue_burst_elem(
			log->ring, recs, sizeof(recs[0]), RTE_DIM(recs), NULL)) > 0) {
		for (unsigned int i = 0; i < n; i++) {
			int len = sst_event_format(&recs[i], line, sizeof(line));

			if (len < 0)
				continue; /* a kind this build does not know: not ours */
			if (fwrite(line, 1, (size_t)len, log->file) != (size_t)len)
				return -EIO;
			log->written++;
			total++;
		}
	}
	if (total > 0 && fflush(log->file) != 0)
		return -errno;
	return total;
}

uint64_t
sst_event_log_dropped(const struct sst_event_log *log)
{
	return atomic_load_explicit(&log->dropped, memory_order_relaxed);
}

uint64_t
sst_event_log_written(const struct sst_event_log *log)
{
	return log->written;
}

void
sst_worker_set_event_log(struct sst_worker *w, struct sst_event_log *log)
{
	w->event_log = log;
}

/* ---- The workers' side ---- */

void
worker_event_put(const struct worker_chan *wc, enum sst_event_kind kind, sst_time_t now, uint64_t a,
	uint64_t b, uint64_t c)
{
	const struct sst_event_rec r = {
		/* Teardown ends channels without a time (0): the last pass's. */
		.time = now != 0 ? now : wc->w->now,
		.a = a,
		.b = b,
		.c = c,
		.worker = (uint16_t)(wc->w->id >= 0 ? wc->w->id : UINT16_MAX),
		.channel = wc->number,
		.kind = (uint8_t)kind,
	};

	/* A channel handed to a worker without a log (a log given to some
	 * workers only) goes unlogged there. */
	if (wc->w->event_log != NULL)
		sst_event_log_put(wc->w->event_log, &r);
}

void
worker_event_stream_put(const struct sst_worker *w, enum sst_event_kind kind, sst_time_t now,
	const struct sst_stream *s, uint64_t b)
{
	struct sst_stream_info info;
	struct sst_event_rec r = {
		.time = now != 0 ? now : w->now,
		.b = b,
		.worker = (uint16_t)(w->id >= 0 ? w->id : UINT16_MAX),
		.kind = (uint8_t)kind,
	};

	sst_stream_info(s, &info);
	r.a = info.usid_counter;
	if (kind == SST_EVENT_STREAM_CLOSED)
		r.c = info.tx_offset;
	sst_event_log_put(w->event_log, &r);
}

/* The channel's trace callback (sst_channel_set_trace()): ctx is the
 * worker_chan. */
static void
chan_trace(void *ctx, const struct sst_channel_trace *t)
{
	static const uint8_t kind_of[] = {
		[SST_CHANNEL_TRACE_RTT] = SST_EVENT_RTT,
		[SST_CHANNEL_TRACE_CWND] = SST_EVENT_CWND,
		[SST_CHANNEL_TRACE_LOSS] = SST_EVENT_LOSS,
		[SST_CHANNEL_TRACE_RTO] = SST_EVENT_RTO,
	};

	if ((size_t)t->kind < RTE_DIM(kind_of) && kind_of[t->kind] != 0)
		worker_event_put(ctx, (enum sst_event_kind)kind_of[t->kind], t->now, t->v[0],
			t->v[1], t->v[2]);
}

void
worker_event_chan_up_logged(struct worker_chan *wc, sst_time_t now)
{
	sst_channel_set_trace(sst_stream_chan_channel(wc->sc), chan_trace, wc);
	worker_event_put(
		wc, SST_EVENT_CHAN_UP, now, wc->peer_channel, wc->mode == SST_NEGO_MODE_SECURE, 0);
}
