/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen --profile: a mix of workloads in a small, strict subset of JSON
 * (RFC 8259 objects, arrays, strings without escapes but \" and \\, and
 * non-negative numbers):
 *
 *   {"workloads": [
 *     {"name": "web", "weight": 3, "streams": 10, "concurrent": 2,
 *      "request": "exp:300", "response": "pareto:1000,1.2", "think_ms": 5},
 *     {"name": "upload", "kind": "bulk", "streams": 1, "request": "4M"},
 *     {"name": "voice", "kind": "datagram", "request": 160, "datagrams": 500,
 *      "dgram_rate": 50}]}
 *
 * "kind" is a channel's workload as --workload says it (rr, the default;
 * bulk: requests only; datagram: "datagrams" of "request" bytes at
 * "dgram_rate" a second, echoed).
 *
 * Unknown keys, duplicate workloads past GEN_WORKLOADS_MAX, trailing
 * garbage and missing commas are errors with the line they are on: a
 * profile that says something else than the user meant must not run.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

struct json {
	const char *p, *path;
	int line;
	bool failed;
	/* The current workload's keys that depend on its kind. */
	bool response_seen, dgram_seen;
};

static void
fail(struct json *j, const char *what)
{
	if (!j->failed)
		fprintf(stderr, "sst-gen: %s:%d: %s\n", j->path, j->line, what);
	j->failed = true;
}

static void
skip_ws(struct json *j)
{
	while (isspace((unsigned char)*j->p)) {
		if (*j->p == '\n')
			j->line++;
		j->p++;
	}
}

static bool
expect(struct json *j, char ch)
{
	char msg[32];

	skip_ws(j);
	if (*j->p == ch) {
		j->p++;
		return true;
	}
	snprintf(msg, sizeof(msg), "expected '%c'", ch);
	fail(j, msg);
	return false;
}

/* A string into @p out (at most len - 1 bytes). */
static bool
string(struct json *j, char *out, size_t len)
{
	size_t n = 0;

	if (!expect(j, '"'))
		return false;
	while (*j->p != '"') {
		char ch = *j->p++;

		if (ch == '\0' || ch == '\n') {
			fail(j, "unterminated string");
			return false;
		}
		if (ch == '\\') {
			ch = *j->p++;
			if (ch != '"' && ch != '\\') {
				fail(j, "unsupported escape (only \\\" and \\\\)");
				return false;
			}
		}
		if (n + 1 >= len) {
			fail(j, "string too long");
			return false;
		}
		out[n++] = ch;
	}
	j->p++;
	out[n] = '\0';
	return true;
}

/* A value as text: a string's contents or a number's digits. */
static bool
scalar(struct json *j, char *out, size_t len)
{
	size_t n = 0;

	skip_ws(j);
	if (*j->p == '"')
		return string(j, out, len);
	while (isdigit((unsigned char)*j->p) || *j->p == '.' || *j->p == 'e' || *j->p == 'E' ||
		*j->p == '+') {
		if (n + 1 >= len) {
			fail(j, "number too long");
			return false;
		}
		out[n++] = *j->p++;
	}
	out[n] = '\0';
	if (n == 0)
		fail(j, "expected a string or a non-negative number");
	return n > 0;
}

static bool
number(struct json *j, const char *text, double min, double max, double *out)
{
	char *end;

	*out = strtod(text, &end);
	if (*end != '\0' || end == text || *out < min || *out > max) {
		fail(j, "number out of range");
		return false;
	}
	return true;
}

static bool
member(struct json *j, const char *key, struct gen_workload *w)
{
	char v[64];
	double d;

	if (!scalar(j, v, sizeof(v)))
		return false;
	if (strcmp(key, "name") == 0) {
		if (strlen(v) >= sizeof(w->name)) {
			fail(j, "name longer than 31 bytes");
			return false;
		}
		memcpy(w->name, v, strlen(v) + 1);
	} else if (strcmp(key, "weight") == 0) {
		if (!number(j, v, 1, 1e6, &d))
			return false;
		w->weight = (uint32_t)d;
	} else if (strcmp(key, "streams") == 0) {
		if (!number(j, v, 1, 1 << 30, &d))
			return false;
		w->streams = (uint32_t)d;
	} else if (strcmp(key, "concurrent") == 0) {
		if (!number(j, v, 1, 1024, &d))
			return false;
		w->concurrent = (uint32_t)d;
	} else if (strcmp(key, "kind") == 0) {
		if (strcmp(v, "rr") == 0) {
			w->kind = GEN_WL_RR;
		} else if (strcmp(v, "bulk") == 0) {
			w->kind = GEN_WL_BULK;
		} else if (strcmp(v, "datagram") == 0) {
			w->kind = GEN_WL_DATAGRAM;
		} else {
			fail(j, "bad kind: want rr, bulk or datagram");
			return false;
		}
	} else if (strcmp(key, "datagrams") == 0) {
		j->dgram_seen = true;
		if (!number(j, v, 1, 1099511627776.0, &d))
			return false;
		w->datagrams = (uint64_t)d;
	} else if (strcmp(key, "dgram_rate") == 0) {
		j->dgram_seen = true;
		if (!number(j, v, 0.001, 1e9, &d))
			return false;
		w->dgram_rate = d;
	} else if (strcmp(key, "think_ms") == 0) {
		if (!number(j, v, 0, 3600000, &d))
			return false;
		w->think_ns = (uint64_t)(d * 1e6);
	} else if (strcmp(key, "request") == 0 || strcmp(key, "response") == 0) {
		j->response_seen |= key[2] == 's';
		if (gen_dist_parse(v, key[2] == 'q' ? &w->request : &w->response) < 0) {
			fail(j, "bad size: want N, uniform:A-B, exp:MEAN or pareto:MIN,SHAPE");
			return false;
		}
	} else {
		fail(j, "unknown key (name, kind, weight, streams, concurrent, request, "
			"response, think_ms, datagrams, dgram_rate)");
		return false;
	}
	return true;
}

static bool
workload(struct json *j, struct gen_workload *w)
{
	char key[32];

	memset(w, 0, sizeof(*w));
	w->weight = 1;
	w->kind = GEN_WL_RR;
	w->datagrams = 100; /* --datagrams' default */
	w->streams = 10;
	w->concurrent = 1;
	gen_dist_parse("64", &w->request);
	gen_dist_parse("64", &w->response);
	j->response_seen = false;
	j->dgram_seen = false;
	if (!expect(j, '{'))
		return false;
	skip_ws(j);
	if (*j->p == '}') {
		j->p++;
		return true;
	}
	do {
		if (!string(j, key, sizeof(key)) || !expect(j, ':') || !member(j, key, w))
			return false;
		skip_ws(j);
	} while (*j->p == ',' && j->p++);
	if (!expect(j, '}'))
		return false;
	if (w->kind != GEN_WL_RR && j->response_seen) {
		fail(j, w->kind == GEN_WL_BULK ? "a bulk workload has no response"
					       : "a datagram workload's echo is its request: "
						 "no response");
		return false;
	}
	if (w->kind != GEN_WL_DATAGRAM && j->dgram_seen) {
		fail(j, "datagrams and dgram_rate go with \"kind\": \"datagram\"");
		return false;
	}
	return true;
}

static bool
document(struct json *j, struct gen_conf *c)
{
	char key[32];

	if (!expect(j, '{') || !string(j, key, sizeof(key)))
		return false;
	if (strcmp(key, "workloads") != 0) {
		fail(j, "unknown key (want \"workloads\")");
		return false;
	}
	if (!expect(j, ':') || !expect(j, '['))
		return false;
	c->nwl = 0;
	do {
		if (c->nwl == GEN_WORKLOADS_MAX) {
			fail(j, "too many workloads (16 at most)");
			return false;
		}
		if (!workload(j, &c->wl[c->nwl++]))
			return false;
		skip_ws(j);
	} while (*j->p == ',' && j->p++);
	if (!expect(j, ']') || !expect(j, '}'))
		return false;
	skip_ws(j);
	if (*j->p != '\0') {
		fail(j, "trailing text after the profile");
		return false;
	}
	return true;
}

int
gen_profile_load(const char *path, struct gen_conf *c)
{
	struct json j = {.path = path, .line = 1};
	char *text = NULL;
	size_t len = 0, got;
	FILE *f = fopen(path, "r");

	if (f == NULL) {
		fprintf(stderr, "sst-gen: cannot open profile %s\n", path);
		return -1;
	}
	/* Profiles are small: 64 kB is plenty and bounds a mistaken path. */
	text = calloc(1, 65537);
	if (text != NULL) {
		got = fread(text, 1, 65536, f);
		len = got;
	}
	fclose(f);
	if (text == NULL || len == 65536) {
		fprintf(stderr, "sst-gen: profile %s: %s\n", path,
			text == NULL ? "out of memory" : "larger than 64 kB");
		free(text);
		return -1;
	}
	j.p = text;
	document(&j, c);
	free(text);
	return j.failed ? -1 : 0;
}
