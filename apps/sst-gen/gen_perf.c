/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen client against `sst-perf --server` (--sst-perf): the target
 * speaks its own protocol (docs/tools/sst-perf.md, "What a test is"), so
 * the run is one sst-perf rr test with --verify shared by every channel.
 * The first channel up opens the control stream ("sst-perf", "control")
 * and sends the test's parameters; once the server says ready, every
 * channel opens its streams to ("sst-perf", "data"), each a transaction
 * whose request and response carry sst-perf's payload pattern (perf.h,
 * apps/sst-perf/perf_common.c, built into sst-gen: one pattern, not a copy
 * of it); at the end the control stream is ended and the server's counters
 * come back on it: its count of streams done must equal ours, with no
 * failed stream and no wrong byte on its side either.
 *
 * The server matches data streams to its test by arrival, not by peer
 * (perf_server.c), which is what lets streams of many channels, each
 * another peer to it, count in one test.
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>

#include "gen_client.h"
#include "perf.h"

enum { READ_BURST = 8, FINISH_WAIT_S = 10 };

int
gen_perf_check_conf(const struct gen_conf *c, uint32_t *request, uint32_t *response)
{
	for (uint32_t i = 0; i < c->nwl; i++)
		if (c->wl[i].request.kind != GEN_FIXED || c->wl[i].response.kind != GEN_FIXED ||
			c->wl[i].request.a != c->wl[0].request.a ||
			c->wl[i].response.a != c->wl[0].response.a)
			return -1;
	*request = (uint32_t)c->wl[0].request.a;
	*response = (uint32_t)c->wl[0].response.a;
	return 0;
}

void
gen_perf_fill(uint8_t *dst, uint64_t tag, uint64_t off, uint32_t len)
{
	perf_fill(dst, tag, off, len);
}

uint64_t
gen_perf_check(const uint8_t *src, uint64_t tag, uint32_t req, uint64_t off, uint32_t len)
{
	/* The server builds the response's tag from what it learnt of the
	 * request's (all of it from 8 request bytes on). */
	return perf_check(src, perf_response_tag(tag, req), off, len);
}

void
gen_perf_init(struct gen_client *g)
{
	perf_pattern_init();
	g->perf.flow.ctl = true;
}

/* Open the control stream on channel ch and send the parameters. */
static void
open_control(struct gen_chan *ch, sst_time_t now)
{
	struct gen_client *g = ch->g;
	struct gen_perf *p = &g->perf;
	struct perf_params pp = {.mode = PERF_RR, .flags = PERF_FLAG_VERIFY};
	uint8_t out[PERF_PARAMS_LEN];

	gen_perf_check_conf(g->c, &pp.request, &pp.response);
	pp.streams = g->nch; /* rr: streams in flight (informative) */
	p->flow.s = sst_stream_connect(ch->peer, PERF_SERVICE, PERF_PROTO_CONTROL, now);
	if (p->flow.s == NULL)
		return; /* no control block now: the next pass tries again */
	p->flow.ch = ch;
	p->flow.live = true;
	sst_stream_set_user(p->flow.s, &p->flow);
	perf_params_encode(&pp, out);
	if (perf_write_bytes(p->flow.s, g->pool, out, sizeof(out), now) < 0) {
		p->state = GEN_PERF_FAILED;
		snprintf(p->why, sizeof(p->why), "cannot send the test's parameters");
		return;
	}
	p->state = GEN_PERF_ASKED;
}

bool
gen_perf_ready(struct gen_chan *ch, sst_time_t now)
{
	struct gen_perf *p = &ch->g->perf;

	if (p->state == GEN_PERF_IDLE)
		open_control(ch, now);
	return p->state == GEN_PERF_READY;
}

void
gen_perf_readable(struct gen_client *g, sst_time_t now)
{
	struct gen_perf *p = &g->perf;
	struct sst_stream_data d[READ_BURST];
	int k;

	/* The stream layer may report the stream's end from inside the read
	 * that takes its last bytes: gen_perf_closed() waits for us then. */
	p->reading = true;
	while ((k = sst_stream_read(p->flow.s, d, READ_BURST, now)) > 0)
		for (int i = 0; i < k; i++) {
			uint32_t len = rte_pktmbuf_pkt_len(d[i].m);
			uint32_t take = RTE_MIN(len, (uint32_t)sizeof(p->buf) - p->len);
			const void *src = rte_pktmbuf_read(d[i].m, 0, take, p->buf + p->len);

			if (take > 0 && src != NULL && src != p->buf + p->len)
				memcpy(p->buf + p->len, src, take);
			p->len += take;
			rte_pktmbuf_free(d[i].m);
		}
	p->reading = false;
	if (p->state == GEN_PERF_ASKED && p->len >= PERF_READY_LEN) {
		static const char *const said[] = {
			"ready", "busy", "bad parameters", "too many streams"};
		uint8_t st = p->buf[7];

		if (st == PERF_OK) {
			p->state = GEN_PERF_READY;
		} else {
			p->state = GEN_PERF_FAILED;
			snprintf(p->why, sizeof(p->why), "the server said %s",
				st < RTE_DIM(said) ? said[st] : "?");
			g->stopping = true;
		}
		memmove(p->buf, p->buf + PERF_READY_LEN, p->len - PERF_READY_LEN);
		p->len -= PERF_READY_LEN;
	}
	if (p->state == GEN_PERF_ENDING && p->len >= PERF_RESULT_LEN) {
		struct perf_result r;

		if (perf_result_decode(p->buf, &r) < 0) {
			p->state = GEN_PERF_FAILED;
			snprintf(p->why, sizeof(p->why), "a malformed result");
		} else {
			p->status = r.status;
			p->done = r.streams_done;
			p->failed = r.streams_failed;
			p->verify_errors = r.verify_errors;
			p->rx_bytes = r.rx_bytes;
			p->state = GEN_PERF_RESULT;
		}
	}
	if (k == -ECONNRESET && p->state != GEN_PERF_RESULT) {
		p->state = GEN_PERF_FAILED;
		snprintf(p->why, sizeof(p->why), "the server reset the control stream");
		g->stopping = true;
	}
	if (p->close_pending)
		gen_perf_closed(g, now);
}

void
gen_perf_closed(struct gen_client *g, sst_time_t now)
{
	struct gen_perf *p = &g->perf;

	p->close_pending = p->reading;
	if (p->reading)
		return;
	sst_stream_set_user(p->flow.s, NULL);
	sst_stream_close(p->flow.s, now);
	p->flow.s = NULL;
	p->flow.live = false;
	if (p->state != GEN_PERF_RESULT && p->state != GEN_PERF_FAILED) {
		p->state = GEN_PERF_FAILED;
		snprintf(p->why, sizeof(p->why), "the control stream ended before the result");
		g->stopping = true;
	}
}

int
gen_perf_finish(struct gen_client *g, void (*poll)(struct gen_client *, sst_time_t))
{
	struct gen_perf *p = &g->perf;
	sst_time_t until = tool_now() + FINISH_WAIT_S * SST_NSEC_PER_SEC;

	if (p->state == GEN_PERF_READY && p->flow.s != NULL) {
		if (sst_stream_shutdown(p->flow.s, tool_now()) < 0) {
			p->state = GEN_PERF_FAILED;
			snprintf(p->why, sizeof(p->why), "cannot end the control stream");
		} else {
			p->state = GEN_PERF_ENDING;
		}
	}
	while (p->state == GEN_PERF_ENDING && tool_now() < until && !tool_interrupted)
		poll(g, tool_now());
	if (p->state == GEN_PERF_ENDING)
		snprintf(
			p->why, sizeof(p->why), "no result from the server in %d s", FINISH_WAIT_S);
	if (p->state == GEN_PERF_IDLE || p->state == GEN_PERF_ASKED)
		snprintf(p->why, sizeof(p->why), "the server never said ready");
	if (p->flow.s != NULL) {
		sst_stream_set_user(p->flow.s, NULL);
		sst_stream_close(p->flow.s, tool_now());
		p->flow.s = NULL;
	}
	return p->state == GEN_PERF_RESULT ? 0 : -1;
}

bool
gen_perf_agrees(const struct gen_client *g)
{
	const struct gen_perf *p = &g->perf;

	return p->state == GEN_PERF_RESULT && p->status == PERF_OK && p->failed == 0 &&
	       p->verify_errors == 0 && p->done == g->tot.txns;
}

void
gen_perf_report(const struct gen_client *g, bool json)
{
	const struct gen_perf *p = &g->perf;

	if (!g->c->sst_perf)
		return;
	if (p->state != GEN_PERF_RESULT) {
		if (json)
			printf("  \"target\": {\"error\": \"%s\"},\n", p->why);
		else
			printf("%-22s %s\n", "sst-perf server", p->why);
		return;
	}
	if (json)
		printf("  \"target\": {\"status\": %u, \"streams_done\": %llu, "
		       "\"streams_failed\": %llu, \"verify_errors\": %llu, \"rx_bytes\": %llu},\n",
			p->status, (unsigned long long)p->done, (unsigned long long)p->failed,
			(unsigned long long)p->verify_errors, (unsigned long long)p->rx_bytes);
	else
		printf("%-22s %llu streams done, %llu failed, %llu bytes wrong, %llu bytes "
		       "received (%s)\n",
			"sst-perf server", (unsigned long long)p->done,
			(unsigned long long)p->failed, (unsigned long long)p->verify_errors,
			(unsigned long long)p->rx_bytes,
			gen_perf_agrees(g) ? "agrees" : "DISAGREES");
}
