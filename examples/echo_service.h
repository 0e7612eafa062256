/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The echo service of the embedded examples (echo_embedded.c,
 * l2fwd_sst.c): stream callbacks, which run on the worker's thread.
 * Register echo_ops as the engine's params.stream.ops and offer the
 * service with sst_stream_listen().
 */
#ifndef ECHO_SERVICE_H
#define ECHO_SERVICE_H

#include <errno.h>

#include <rte_mbuf.h>

#include <sst_engine.h>
#include <sst_stream.h>

/* Data arrived: write each record back as it came (the mbufs change
 * hands, nothing is copied). The stream layer calls this on the worker's
 * thread with the time of the worker's pass, which every call back into
 * the stack takes. */
static inline void
echo_readable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct sst_stream_data d[32];
	int n;

	(void)ctx;
	while ((n = sst_stream_read(s, d, RTE_DIM(d), now)) > 0) {
		for (int i = 0; i < n; i++) {
			/* A full send buffer drops the record: a real service
			 * would keep it and wait for writable(). */
			if (sst_stream_write(s, d[i].m, d[i].flags, now) < 0)
				rte_pktmbuf_free(d[i].m);
		}
	}
	if (n == -EPIPE) /* the peer ended its direction: end ours */
		sst_stream_shutdown(s, now);
}

/* The stream ended (both directions, a reset, or a dead peer): release it. */
static inline void
echo_closed(void *ctx, struct sst_stream *s, enum sst_stream_end why, sst_time_t now)
{
	(void)ctx;
	(void)why;
	sst_stream_close(s, now);
}

static const struct sst_stream_ops echo_ops = {
	.readable = echo_readable,
	.closed = echo_closed,
};

#endif /* ECHO_SERVICE_H */
