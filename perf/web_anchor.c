/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * web_anchor: the kernel's side of the web workload (Figure 8 of the SST
 * paper, section 5.5; scripts/evaluate.sh, docs/evaluation.md). It loads
 * the pages of a trace (perf/web_trace.py) from a txn_anchor server the
 * way the paper's four HTTP flavours over TCP do, and prints each page's
 * load time:
 *
 *   web_anchor HOST [--port P] --mode serial|parallel|persist|pipeline
 *              --trace FILE [--pages N] [--request B] [--timeout MS]
 *
 *   serial    HTTP/1.0 as early browsers: a new connection per object,
 *             one at a time;
 *   parallel  HTTP/1.0 with up to 8 connections at once, one object each;
 *   persist   HTTP/1.1: 2 persistent connections, one request at a time on
 *             each;
 *   pipeline  HTTP/1.1 pipelined: 2 persistent connections, up to 4
 *             requests in flight on each (responses come in request order).
 *
 * As in the paper, the secondary objects of a page are requested only once
 * the primary has arrived whole, and pages load one after the other;
 * persistent connections stay open from page to page (one server). An
 * object is a txn_anchor transaction: the request (--request bytes, 64 by
 * default, the same as sst-perf web's) starts with its length and the
 * response length wanted (two 32-bit big-endian words), and the response
 * is that many bytes, its first word its own length, which is checked.
 *
 * Output, one line per page: page,requests,bytes,load_ms; a failed page
 * (a connection refused, reset or silent for --timeout) ends the run with
 * exit status 1.
 *
 * Plain POSIX and the kernel's sockets, one thread: nonblocking sockets
 * and poll(), so that parallel connections open at once.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "web_trace_load.h"

enum {
	DEFAULT_PORT = 5201 + 100, /* txn_anchor's */
	HEADER = 8,
	MAX_CONNS = 8,
	MAX_DEPTH = 4,
	MAX_REQUEST = 65536,
};

/* An HTTP flavour: how many connections, how many requests in flight on
 * each, and whether a connection outlives its response. */
struct flavour {
	const char *name;
	uint32_t conns, depth;
	bool persistent;
};

static const struct flavour flavours[] = {
	{"serial", 1, 1, false},
	{"parallel", MAX_CONNS, 1, false},
	{"persist", 2, 1, true},
	{"pipeline", 2, MAX_DEPTH, true},
};

struct conn {
	int fd; /* -1: no connection */
	bool connecting;
	uint32_t q[MAX_DEPTH]; /* objects asked for, oldest first */
	uint32_t qn;
	uint32_t sent; /* of q: requests written */
	uint64_t got;  /* bytes of q[0]'s response so far */
	uint8_t hdr[HEADER];
};

struct client {
	const struct flavour *fl;
	struct sockaddr_in to;
	uint32_t request;
	int timeout_ms;
	struct conn c[MAX_CONNS];
	uint8_t req[MAX_REQUEST];
	char error[256];
};

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int
fail(struct client *cl, const char *what)
{
	snprintf(cl->error, sizeof(cl->error), "%s: %s", what, errno ? strerror(errno) : "failed");
	return -1;
}

/* The response to a request for want bytes: txn_anchor sends at least its
 * header. */
static uint64_t
response_len(uint32_t want)
{
	return want < HEADER ? HEADER : want;
}

static void
conn_close(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* Start a connection (it completes in the poll loop). */
static int
conn_open(struct client *cl, struct conn *c)
{
	int one = 1;

	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (c->fd < 0)
		return fail(cl, "socket");
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(c->fd, (const struct sockaddr *)&cl->to, sizeof(cl->to)) < 0) {
		if (errno != EINPROGRESS)
			return fail(cl, "connect");
		c->connecting = true;
	}
	return 0;
}

/* Write the requests queued on a connected c. A request is far smaller
 * than a socket's send buffer, so a short write means a broken
 * connection. */
static int
conn_send(struct client *cl, struct conn *c, const uint32_t *sizes)
{
	for (; c->sent < c->qn; c->sent++) {
		uint32_t h[2] = {htonl(cl->request), htonl(sizes[c->q[c->sent]])};

		memcpy(cl->req, h, sizeof(h));
		if (write(c->fd, cl->req, cl->request) != (ssize_t)cl->request)
			return fail(cl, "request");
	}
	return 0;
}

/* Take n received bytes of c's responses, in order. @return objects
 * completed, or -1 when a response header is not what was asked for. */
static int
conn_take(struct client *cl, struct conn *c, const uint8_t *p, size_t n, const uint32_t *sizes)
{
	int done = 0;

	while (n > 0 && c->qn > 0) {
		uint64_t want = response_len(sizes[c->q[0]]);
		size_t k = want - c->got < n ? (size_t)(want - c->got) : n;

		for (size_t i = 0; i < k && c->got + i < HEADER; i++)
			c->hdr[c->got + i] = p[i];
		c->got += k;
		p += k;
		n -= k;
		if (c->got >= HEADER && c->got - k < HEADER) {
			uint32_t len;

			memcpy(&len, c->hdr, sizeof(len));
			if (ntohl(len) != want) {
				errno = EPROTO;
				return fail(cl, "response of the wrong length");
			}
		}
		if (c->got == want) {
			memmove(c->q, c->q + 1, (c->qn - 1) * sizeof(c->q[0]));
			c->qn--;
			c->sent--;
			c->got = 0;
			done++;
		}
	}
	if (n > 0) {
		errno = EPROTO;
		return fail(cl, "bytes beyond the responses asked for");
	}
	return done;
}

/* Give the next objects to connections that can take them, round-robin
 * (a browser spreads its requests). @return 0 or -1. */
static int
assign(struct client *cl, const uint32_t *sizes, uint32_t *next, uint32_t limit)
{
	bool more = true;

	while (more && *next < limit) {
		more = false;
		for (uint32_t i = 0; i < cl->fl->conns && *next < limit; i++) {
			struct conn *c = &cl->c[i];

			if (c->qn >= cl->fl->depth || (!cl->fl->persistent && c->fd >= 0))
				continue;
			if (c->fd < 0 && conn_open(cl, c) < 0)
				return -1;
			c->q[c->qn++] = (*next)++;
			if (!c->connecting && conn_send(cl, c, sizes) < 0)
				return -1;
			more = true;
		}
	}
	return 0;
}

static char buf[1 << 16];

/* One poll round: connections that completed, responses that arrived.
 * @return objects completed, or -1. */
static int
poll_round(struct client *cl, const uint32_t *sizes)
{
	struct pollfd pf[MAX_CONNS];
	uint32_t idx[MAX_CONNS], n = 0;
	int done = 0, rc;

	for (uint32_t i = 0; i < cl->fl->conns; i++) {
		struct conn *c = &cl->c[i];

		if (c->fd < 0 || (c->qn == 0 && !c->connecting))
			continue;
		pf[n] = (struct pollfd){.fd = c->fd, .events = c->connecting ? POLLOUT : POLLIN};
		idx[n++] = i;
	}
	rc = poll(pf, n, cl->timeout_ms);
	if (rc < 0 && errno != EINTR)
		return fail(cl, "poll");
	if (rc == 0) {
		errno = ETIMEDOUT;
		return fail(cl, "no response");
	}
	for (uint32_t j = 0; j < n && rc > 0; j++) {
		struct conn *c = &cl->c[idx[j]];

		if (pf[j].revents == 0)
			continue;
		if (c->connecting) {
			int err = 0;
			socklen_t l = sizeof(err);

			getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l);
			if (err != 0) {
				errno = err;
				return fail(cl, "connect");
			}
			c->connecting = false;
			if (conn_send(cl, c, sizes) < 0)
				return -1;
			continue;
		}
		for (;;) {
			ssize_t k = read(c->fd, buf, sizeof(buf));
			int d;

			if (k < 0 && (errno == EAGAIN || errno == EINTR))
				break;
			if (k <= 0) {
				if (k == 0)
					errno = ECONNRESET;
				return fail(cl, "connection ended early");
			}
			d = conn_take(cl, c, (const uint8_t *)buf, (size_t)k, sizes);
			if (d < 0)
				return -1;
			done += d;
			if (c->qn == 0)
				break;
		}
		/* HTTP/1.0: the connection ends with its response. */
		if (c->qn == 0 && !cl->fl->persistent)
			conn_close(c);
	}
	return done;
}

/* Load one page: the primary alone, then the secondaries. @return 0 or -1. */
static int
load_page(struct client *cl, const uint32_t *sizes, uint32_t n)
{
	uint32_t next = 0, done = 0;

	while (done < n) {
		int d;

		if (assign(cl, sizes, &next, done == 0 ? 1 : n) < 0)
			return -1;
		d = poll_round(cl, sizes);
		if (d < 0)
			return -1;
		done += (uint32_t)d;
	}
	return 0;
}

static int
run(struct client *cl, const struct web_trace *t)
{
	int rc = 0;

	for (uint32_t i = 0; i < MAX_CONNS; i++)
		conn_close(&cl->c[i]);
	printf("page,requests,bytes,load_ms\n");
	for (uint32_t p = 0; p < t->pages; p++) {
		const uint32_t *sizes = web_trace_page(t, p);
		uint32_t n = web_trace_objects(t, p);
		uint64_t bytes = 0;
		double t0 = now_ms();

		for (uint32_t i = 0; i < n; i++)
			bytes += sizes[i];
		if (load_page(cl, sizes, n) < 0) {
			fprintf(stderr, "web_anchor: %s: page %u: %s\n", cl->fl->name, p,
				cl->error);
			rc = 1;
			break;
		}
		printf("%u,%u,%llu,%.3f\n", p, n, (unsigned long long)bytes, now_ms() - t0);
		fflush(stdout);
	}
	for (uint32_t i = 0; i < MAX_CONNS; i++)
		conn_close(&cl->c[i]);
	return rc;
}

static int
usage(void)
{
	fprintf(stderr,
		"usage: web_anchor HOST [--port P] --mode serial|parallel|persist|pipeline\n"
		"                  --trace FILE [--pages N] [--request B] [--timeout MS]\n");
	return 2;
}

static int
num(const char *s, unsigned long lo, unsigned long hi, uint32_t *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int
main(int argc, char **argv)
{
	static struct client cl = {.request = 64, .timeout_ms = 30000};
	uint32_t port = DEFAULT_PORT, pages = 0, v;
	const char *host = NULL, *mode = NULL, *trace = NULL;
	struct web_trace t;
	char err[256];
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *a = i + 1 < argc ? argv[i + 1] : NULL;

		if (o[0] != '-' && host == NULL) {
			host = o;
			continue;
		}
		if (a == NULL)
			return usage();
		if (strcmp(o, "--port") == 0)
			rc = num(a, 1, 65535, &port);
		else if (strcmp(o, "--mode") == 0)
			rc = (mode = a, 0);
		else if (strcmp(o, "--trace") == 0)
			rc = (trace = a, 0);
		else if (strcmp(o, "--pages") == 0)
			rc = num(a, 1, 1000000, &pages);
		else if (strcmp(o, "--request") == 0)
			rc = num(a, HEADER, MAX_REQUEST, &cl.request);
		else if (strcmp(o, "--timeout") == 0)
			rc = num(a, 1, 600000, &v) < 0 ? -1 : (cl.timeout_ms = (int)v, 0);
		else
			rc = -1;
		if (rc < 0)
			return usage();
		i++;
	}
	for (size_t i = 0; mode != NULL && i < sizeof(flavours) / sizeof(flavours[0]); i++)
		if (strcmp(mode, flavours[i].name) == 0)
			cl.fl = &flavours[i];
	if (host == NULL || cl.fl == NULL || trace == NULL)
		return usage();
	cl.to.sin_family = AF_INET;
	cl.to.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &cl.to.sin_addr) != 1) {
		fprintf(stderr, "web_anchor: '%s' is not an IPv4 address\n", host);
		return 2;
	}
	if (web_trace_load(trace, pages, &t, err, sizeof(err)) < 0) {
		fprintf(stderr, "web_anchor: %s\n", err);
		return 2;
	}
	rc = run(&cl, &t);
	web_trace_free(&t);
	return rc;
}
