/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-perf web (perf_web.h): the client's walk through the trace. The
 * objects themselves are rr transactions (perf_client.c, perf_server.c):
 * a stream each, a request, the response and its end; only the response
 * length differs from object to object, and the request's tag says it.
 */
#include <inttypes.h>
#include <stdlib.h>

#include <rte_byteorder.h>

#include "perf_client.h"
#include "perf_web.h"
#include "web_trace_load.h"

/* The tag's first 4 bytes on the wire: the object's number (plus one, as
 * perf_tag() counts, so that no tag is 0); the last 4: the response
 * length. perf_tag()'s tags are the number byte-swapped, so a web tag is
 * one of them with the length in the bytes a number below 2^32 leaves 0. */
uint64_t
perf_web_tag(uint64_t index, uint32_t response)
{
	return rte_bswap64((uint64_t)response << 32 | (uint32_t)(index + 1));
}

uint32_t
perf_web_response_len(uint64_t tag)
{
	return (uint32_t)(rte_bswap64(tag) >> 32);
}

int
perf_web_load(struct perf_conf *c, const char *path, uint32_t pages)
{
	static struct web_trace trace;
	char err[256];

	web_trace_free(&trace);
	if (web_trace_load(path, pages, &trace, err, sizeof(err)) < 0) {
		fprintf(stderr, "sst-perf: --trace: %s\n", err);
		return -1;
	}
	c->web = &trace;
	c->streams = trace.max_objects;
	return 0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The last page is done: a summary line, and the test ends. */
static void
web_done(struct perf_client *cl, sst_time_t now)
{
	struct perf_web *w = &cl->web;
	uint32_t n = cl->conf->web->pages;

	cl->stopping = true;
	cl->t_stop = now;
	if (cl->conf->json)
		return;
	qsort(w->load_ns, n, sizeof(*w->load_ns), cmp_u64);
	printf("# web: %u pages, %" PRIu64 " objects, page load time median %.3f ms, min %.3f, "
	       "max %.3f, %" PRIu64 " pages with a failed object\n",
		n, cl->started, (double)w->load_ns[n / 2] / 1e6, (double)w->load_ns[0] / 1e6,
		(double)w->load_ns[n - 1] / 1e6, w->failed_pages);
}

/* The page's objects are all in (or failed): its line, then the next. */
static void
page_done(struct perf_client *cl, sst_time_t now)
{
	const struct web_trace *t = cl->conf->web;
	struct perf_web *w = &cl->web;
	const uint32_t *sizes = web_trace_page(t, w->page);
	uint32_t n = web_trace_objects(t, w->page);
	uint64_t bytes = 0;

	for (uint32_t i = 0; i < n; i++)
		bytes += sizes[i];
	w->load_ns[w->page] = now - w->t0;
	if (cl->failures != w->failures0)
		w->failed_pages++;
	if (cl->conf->json)
		printf("{\"page\":%u,\"requests\":%u,\"bytes\":%" PRIu64 ",\"load_ms\":%.3f}\n",
			w->page, n, bytes, (double)(now - w->t0) / 1e6);
	else
		printf("%u,%u,%" PRIu64 ",%.3f\n", w->page, n, bytes, (double)(now - w->t0) / 1e6);
	fflush(stdout);
	w->page++;
	w->opened = 0;
	w->primary_done = false;
	w->t0 = now;
	w->failures0 = cl->failures;
}

void
perf_web_poll(struct perf_client *cl, sst_time_t now)
{
	const struct web_trace *t = cl->conf->web;
	struct perf_web *w = &cl->web;

	if (cl->stopping)
		return;
	if (!w->started) {
		w->load_ns = calloc(t->pages, sizeof(*w->load_ns));
		if (w->load_ns == NULL) {
			cl->failures++;
			cl->stopping = true;
			return;
		}
		w->started = true;
		w->t0 = now;
		if (!cl->conf->json)
			printf("page,requests,bytes,load_ms\n");
	}
	while (w->page < t->pages) {
		const uint32_t *sizes = web_trace_page(t, w->page);
		uint32_t n = web_trace_objects(t, w->page);

		/* The primary alone; the secondaries once it has arrived. */
		if (w->opened == 1 && cl->in_flight == 0)
			w->primary_done = true;
		while (w->opened < (w->primary_done ? n : 1)) {
			/* Every flow of the page before has ended: slot i is free. */
			struct cli_flow *f = &cl->flows[w->opened];
			uint64_t index = cl->started;

			if (!perf_client_open(cl, w->opened, now))
				return; /* no stream free: the next pass tries again */
			f->tag = perf_web_tag(index, sizes[w->opened]);
			f->rx_len = sizes[w->opened];
			w->opened++;
		}
		if (cl->in_flight > 0 || !w->primary_done)
			return;
		page_done(cl, now);
	}
	web_done(cl, now);
}

void
perf_web_fini(struct perf_web *w)
{
	free(w->load_ns);
	w->load_ns = NULL;
}
