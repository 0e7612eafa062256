/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-perf web: the SST paper's Figure 8 (section 5.5), the web workload.
 * The client loads the pages of a trace (--trace, perf/web_trace.py writes
 * one) one after the other, each object a transaction on a stream of its
 * own on the one channel (HTTP/1.0 over SST): the primary object first,
 * then, once it has arrived whole, every secondary object of the page at
 * once, as the paper's browser does, without a limit on streams in
 * flight. It prints one line per page (page,requests,bytes,load_ms), the
 * format of perf/web_anchor, the kernel TCP side of the comparison.
 *
 * On the wire a web request is an rr request (--request bytes, at least 8)
 * whose 8-byte tag carries the object's number and the response length
 * asked for, so that a server needs no trace: perf_web_tag() and
 * perf_web_response_len().
 */
#ifndef PERF_WEB_H
#define PERF_WEB_H

#include <stdbool.h>
#include <stdint.h>

#include "perf.h"

struct perf_client;

/** The client's progress through the trace. */
struct perf_web {
	uint32_t page;	 /**< the page being loaded */
	uint32_t opened; /**< its objects asked for so far */
	bool started, primary_done;
	sst_time_t t0;	       /**< when the page's primary was asked for */
	uint64_t failures0;    /**< cl->failures when the page started */
	uint64_t failed_pages; /**< pages with an object that failed */
	uint64_t *load_ns;     /**< each page's load time */
};

/** The tag of web request @p index asking for @p response bytes. */
uint64_t perf_web_tag(uint64_t index, uint32_t response);

/** Server: the response length a web request tagged @p tag asks for. */
uint32_t perf_web_response_len(uint64_t tag);

/** Read --trace into @p c (its first --pages pages, all when 0) and size
 * the client's flows to the largest page. @return 0, or -1 after
 * printing why. */
int perf_web_load(struct perf_conf *c, const char *path, uint32_t pages);

/** Client, each pass of a running test: ask for the objects the page
 * allows, note the page's end, go on to the next; the test stops after
 * the last page. */
void perf_web_poll(struct perf_client *cl, sst_time_t now);

/** Free what the client's web state holds. */
void perf_web_fini(struct perf_web *w);

#endif /* PERF_WEB_H */
