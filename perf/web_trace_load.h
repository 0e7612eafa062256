/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The web trace of Figure 8 (perf/web_trace.py writes it): one page per
 * line, the sizes in bytes of its objects, the primary first; lines that
 * start with '#' and empty lines are comments. Read by both sides of the
 * comparison, perf/web_anchor (HTTP-like loads over kernel TCP) and
 * sst-perf web (one SST stream per object), so that they load the same
 * pages. Plain C, no DPDK.
 */
#ifndef WEB_TRACE_LOAD_H
#define WEB_TRACE_LOAD_H

#include <stddef.h>
#include <stdint.h>

enum {
	WEB_TRACE_MAX_OBJECTS = 1024,	/**< objects of one page at most */
	WEB_TRACE_MAX_BYTES = 64 << 20, /**< bytes of one object at most */
};

/** The pages of a trace: page p's objects are
 * sizes[first[p]] .. sizes[first[p + 1] - 1]. */
struct web_trace {
	uint32_t pages;
	uint32_t max_objects; /**< the most objects of one page */
	uint32_t *first;      /**< pages + 1 entries */
	uint32_t *sizes;
};

/**
 * Read the first @p max_pages pages of the trace at @p path (all of them
 * when 0) into @p t.
 * @return 0; -1 after writing why into @p err (a line that is not
 * numbers, a size of 0 or above WEB_TRACE_MAX_BYTES, a page of more than
 * WEB_TRACE_MAX_OBJECTS objects, no page at all, no memory, no file).
 */
int web_trace_load(
	const char *path, uint32_t max_pages, struct web_trace *t, char *err, size_t errlen);

/** Free what web_trace_load() allocated (a zeroed @p t is fine). */
void web_trace_free(struct web_trace *t);

/** Objects of page @p p. */
static inline uint32_t
web_trace_objects(const struct web_trace *t, uint32_t p)
{
	return t->first[p + 1] - t->first[p];
}

/** Sizes of page @p p's objects, the primary first. */
static inline const uint32_t *
web_trace_page(const struct web_trace *t, uint32_t p)
{
	return t->sizes + t->first[p];
}

#endif /* WEB_TRACE_LOAD_H */
