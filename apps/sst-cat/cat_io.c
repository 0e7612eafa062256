/* SPDX-License-Identifier: BSD-3-Clause */
/* sst-cat's standard input and output, polled (cat_io.h). */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cat_io.h"

static bool
ready(int fd, short events)
{
	struct pollfd p = {.fd = fd, .events = events};

	/* POLLHUP and POLLERR also make the next call return at once. */
	return poll(&p, 1, 0) == 1 && p.revents != 0;
}

ssize_t
cat_in_read(int fd, void *buf, size_t len)
{
	ssize_t n;

	if (!ready(fd, POLLIN))
		return 0;
	n = read(fd, buf, len);
	if (n > 0)
		return n;
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n < 0)
		fprintf(stderr, "sst-cat: reading standard input: %s\n", strerror(errno));
	return -1;
}

void
cat_out_push(struct cat_out *o, struct rte_mbuf *m, bool newline)
{
	uint32_t i = (o->head + o->n) % CAT_OUT_MAX;

	if (o->error) {
		rte_pktmbuf_free(m);
		return;
	}
	o->q[i].m = m;
	o->q[i].newline = newline;
	o->n++;
}

static void
pop(struct cat_out *o)
{
	rte_pktmbuf_free(o->q[o->head].m);
	o->head = (o->head + 1) % CAT_OUT_MAX;
	o->n--;
	o->off = 0;
}

/* Write up to PIPE_BUF bytes: after POLLOUT a pipe takes that many without
 * blocking (a regular file or terminal takes them in any case). */
static ssize_t
put(struct cat_out *o, const void *p, size_t len)
{
	ssize_t n;

	if (!ready(o->fd, POLLOUT))
		return 0;
	n = write(o->fd, p, len < PIPE_BUF ? len : PIPE_BUF);
	if (n >= 0)
		return n;
	if (errno == EINTR || errno == EAGAIN)
		return 0;
	fprintf(stderr, "sst-cat: writing standard output: %s\n", strerror(errno));
	o->error = true;
	return -1;
}

void
cat_out_flush(struct cat_out *o)
{
	while (o->n > 0 && !o->error) {
		struct rte_mbuf *m = o->q[o->head].m;
		uint32_t len = rte_pktmbuf_pkt_len(m);
		ssize_t k;

		if (o->off < len) {
			/* The segment holding byte o->off. */
			struct rte_mbuf *seg = m;
			uint32_t skip = o->off;

			while (skip >= rte_pktmbuf_data_len(seg)) {
				skip -= rte_pktmbuf_data_len(seg);
				seg = seg->next;
			}
			k = put(o, rte_pktmbuf_mtod_offset(seg, const char *, skip),
				rte_pktmbuf_data_len(seg) - skip);
			if (k <= 0)
				return;
			o->off += (uint32_t)k;
			o->written += (uint64_t)k;
			continue;
		}
		if (o->q[o->head].newline) {
			k = put(o, "\n", 1);
			if (k <= 0)
				return;
		}
		pop(o);
	}
	if (o->error)
		cat_out_drop(o);
}

void
cat_out_drop(struct cat_out *o)
{
	while (o->n > 0)
		pop(o);
}
