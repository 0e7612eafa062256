/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-perf prio: the SST paper's Figure 9 (section 5) in real time. The
 * client asks for two downloads of --response bytes at once, a third at
 * the first --prio-at time with a high priority, and at the second time
 * raises the second download above the first; it prints the bytes
 * received of each download every step. Priorities travel as the paper's
 * out-of-band requests (sst_stream_request_priority()), which the server
 * applies to its side of the stream: a sender's priority is the sending
 * application's to set, so without it the requests change nothing.
 */
#ifndef PERF_PRIO_H
#define PERF_PRIO_H

#include <stdbool.h>
#include <stdint.h>

#include "perf.h"

enum {
	PERF_PRIO_FLOWS = 3,
	PERF_PRIO_HIGH = 2,   /**< the third download's */
	PERF_PRIO_RAISED = 1, /**< the second download's after the swap */
};

/** The client's progress through the schedule. */
struct perf_prio {
	sst_time_t next_sample;
	bool started, third_open, third_raised, swapped, finished;
};

/** Parse --prio-at THIRD,SWAP[,STEP] (seconds) into @p c.
 * @return 0, or -1 when it is not that. */
int perf_prio_parse(struct perf_conf *c, const char *arg);

/** prio defaults: 1.5 MB downloads, the third at 5 s, the swap at 10 s,
 * a sample every 100 ms. */
void perf_prio_defaults(struct perf_conf *c, bool schedule_given);

/** Client, each pass of a running test: open downloads, send priority
 * requests and print samples as the schedule says. */
void perf_prio_poll(struct perf_client *cl, sst_time_t now);

/** Server: apply the priority requests that arrived on data stream @p s.
 * Other datagrams on it are dropped (a prio client sends none). */
void perf_prio_serve(struct sst_stream *s, sst_time_t now);

#endif /* PERF_PRIO_H */
