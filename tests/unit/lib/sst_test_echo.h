/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An echo service for tests, in embedded mode: what a stream receives is
 * written back (the received mbufs, zero copy). When the send buffer is
 * full the record waits in a slot until the stream is writable again, and
 * reading stops meanwhile, so the stream layer's flow control slows the
 * peer instead of data being dropped. Call sst_test_echo() from the
 * readable, writable and accepted callbacks. The client checks what comes
 * back with sst_test_echo_check().
 */
#ifndef SST_TEST_ECHO_H
#define SST_TEST_ECHO_H

#include <errno.h>
#include <stdbool.h>

#include <rte_mbuf.h>

#include "sst_stream.h"
#include "sst_test_mbuf.h"

enum { SST_TEST_ECHO_SLOTS = 512 };

struct sst_test_echo_slot {
	struct sst_stream *s;
	struct rte_mbuf *m;
	uint32_t flags;
};

struct sst_test_echoes {
	struct sst_test_echo_slot slot[SST_TEST_ECHO_SLOTS];
	uint64_t stalls; /**< writes that had to wait */
	uint64_t lost;	 /**< no slot free: dropped (a test should check it is 0) */
};

static inline struct sst_test_echo_slot *
sst_test_echo_slot(struct sst_test_echoes *e, const struct sst_stream *s)
{
	for (int i = 0; i < SST_TEST_ECHO_SLOTS; i++)
		if (e->slot[i].s == s)
			return &e->slot[i];
	return NULL;
}

/* @return false while s waits for room. */
static inline bool
sst_test_echo_write(struct sst_test_echoes *e, struct sst_stream *s, struct rte_mbuf *m,
	uint32_t flags, sst_time_t now)
{
	struct sst_test_echo_slot *slot;
	int rc = sst_stream_write(s, m, flags, now);

	if (rc == 0)
		return true;
	if (rc != -EAGAIN) {
		rte_pktmbuf_free(m);
		return true; /* the stream ended: nothing to wait for */
	}
	slot = sst_test_echo_slot(e, NULL);
	if (slot == NULL) {
		e->lost++;
		rte_pktmbuf_free(m);
		return true;
	}
	*slot = (struct sst_test_echo_slot){s, m, flags};
	e->stalls++;
	return false;
}

static inline void
sst_test_echo(struct sst_test_echoes *e, struct sst_stream *s, sst_time_t now)
{
	struct sst_test_echo_slot *slot = sst_test_echo_slot(e, s);
	struct sst_stream_data d;
	int k;

	if (slot != NULL) {
		struct rte_mbuf *m = slot->m;
		uint32_t flags = slot->flags;

		*slot = (struct sst_test_echo_slot){NULL, NULL, 0};
		if (!sst_test_echo_write(e, s, m, flags, now))
			return;
	}
	while ((k = sst_stream_read(s, &d, 1, now)) > 0)
		if (!sst_test_echo_write(e, s, d.m, d.flags, now))
			return;
	if (k == -EPIPE || k == -ECONNRESET) {
		sst_stream_shutdown(s, now);
		sst_stream_close(s, now);
	}
}

/* The client's side of an echo test: read what stream s (number idx)
 * brings back, add its bytes to *echoed and those that differ from the
 * pattern the client wrote to *bad. */
static inline void
sst_test_echo_check(struct sst_stream *s, sst_test_stream_pattern *pattern, int idx,
	uint64_t *echoed, uint64_t *bad, sst_time_t now)
{
	struct sst_stream_data d[32];
	int k;

	while ((k = sst_stream_read(s, d, 32, now)) > 0)
		for (int i = 0; i < k; i++) {
			*bad += sst_test_stream_mismatches(d[i].m, pattern, idx, *echoed);
			*echoed += rte_pktmbuf_pkt_len(d[i].m);
			rte_pktmbuf_free(d[i].m);
		}
}

/* Free what still waits (at the end of a test). */
static inline void
sst_test_echo_fini(struct sst_test_echoes *e)
{
	for (int i = 0; i < SST_TEST_ECHO_SLOTS; i++)
		if (e->slot[i].m != NULL) {
			rte_pktmbuf_free(e->slot[i].m);
			e->slot[i] = (struct sst_test_echo_slot){NULL, NULL, 0};
		}
}

#endif /* SST_TEST_ECHO_H */
