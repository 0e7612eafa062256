/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading the web trace of Figure 8 (web_trace_load.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "web_trace_load.h"

/* Append v to *a (of *n entries, room for *cap). @return 0 or -1. */
static int
push(uint32_t **a, uint32_t *n, uint32_t *cap, uint32_t v)
{
	if (*n == *cap) {
		uint32_t c = *cap == 0 ? 256 : *cap * 2;
		uint32_t *b = realloc(*a, (size_t)c * sizeof(**a));

		if (b == NULL || c < *cap)
			return -1;
		*a = b;
		*cap = c;
	}
	(*a)[(*n)++] = v;
	return 0;
}

/* The sizes of one line into t. @return objects read (0: a comment or
 * empty line), or -1 after writing why. */
static int
parse_line(char *line, uint32_t lineno, struct web_trace *t, uint32_t *nsizes, uint32_t *cap,
	char *err, size_t errlen)
{
	char *p = line;
	int n = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '#' || *p == '\n' || *p == '\0')
		return 0;
	while (*p != '\0' && *p != '\n') {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(p, &end, 10);
		if (end == p || errno != 0 || v == 0 || v > WEB_TRACE_MAX_BYTES ||
			(*end != ' ' && *end != '\t' && *end != '\n' && *end != '\0')) {
			snprintf(err, errlen,
				"line %u: want object sizes in bytes, 1 to %d, separated by spaces",
				lineno, WEB_TRACE_MAX_BYTES);
			return -1;
		}
		if (++n > WEB_TRACE_MAX_OBJECTS) {
			snprintf(err, errlen, "line %u: more than %d objects", lineno,
				WEB_TRACE_MAX_OBJECTS);
			return -1;
		}
		if (push(&t->sizes, nsizes, cap, (uint32_t)v) < 0) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		p = end;
		while (*p == ' ' || *p == '\t')
			p++;
	}
	return n;
}

int
web_trace_load(const char *path, uint32_t max_pages, struct web_trace *t, char *err, size_t errlen)
{
	uint32_t nsizes = 0, scap = 0, nfirst = 0, fcap = 0, lineno = 0;
	FILE *f = fopen(path, "r");
	char line[16384];
	bool ok = f != NULL;

	memset(t, 0, sizeof(*t));
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (ok && (max_pages == 0 || t->pages < max_pages) && fgets(line, sizeof(line), f)) {
		int n;

		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			snprintf(err, errlen, "line %u: longer than %zu bytes", lineno,
				sizeof(line) - 1);
			ok = false;
			break;
		}
		n = parse_line(line, lineno, t, &nsizes, &scap, err, errlen);
		if (n < 0) {
			ok = false;
		} else if (n > 0) {
			if (push(&t->first, &nfirst, &fcap, nsizes - (uint32_t)n) < 0) {
				snprintf(err, errlen, "out of memory");
				ok = false;
			}
			t->pages++;
			if ((uint32_t)n > t->max_objects)
				t->max_objects = (uint32_t)n;
		}
	}
	fclose(f);
	if (ok && t->pages == 0) {
		snprintf(err, errlen, "%s: no page in it", path);
		ok = false;
	}
	if (ok && push(&t->first, &nfirst, &fcap, nsizes) < 0) {
		snprintf(err, errlen, "out of memory");
		ok = false;
	}
	if (!ok) {
		web_trace_free(t);
		return -1;
	}
	return 0;
}

void
web_trace_free(struct web_trace *t)
{
	free(t->first);
	free(t->sizes);
	memset(t, 0, sizeof(*t));
}
