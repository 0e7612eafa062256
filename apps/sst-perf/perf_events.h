/* SPDX-License-Identifier: BSD-3-Clause */
/* --event-log FILE: the event log of every worker of the run (sst_event_log.h),
 * written by a thread of its own so that the polling thread only queues. */
#ifndef PERF_EVENTS_H
#define PERF_EVENTS_H

struct perf_events;
struct tool_net;

/** Open @p path, give the log to every worker of @p net and start the
 * writer. Before any channel is made. @return NULL (said on stderr). */
struct perf_events *perf_events_start(const char *path, struct tool_net *net, int hosts);

/** Stop the writer and close the file once the workers are gone; says on
 * stderr how many events were dropped, if any. NULL is ignored. */
void perf_events_stop(struct perf_events *pe);

#endif /* PERF_EVENTS_H */
