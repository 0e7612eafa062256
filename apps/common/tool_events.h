/* SPDX-License-Identifier: BSD-3-Clause */
/* --event-log FILE of sst-perf and sst-cat: the event log of every worker of
 * the run (sst_event_log.h), written by a thread of its own so that the
 * polling thread only queues. */
#ifndef TOOL_EVENTS_H
#define TOOL_EVENTS_H

struct tool_events;
struct tool_net;

/** Open @p path, give the log to every worker of the first @p hosts hosts
 * of @p net and start the writer. Before any channel is made.
 * @param prog The tool's name, which starts its messages.
 * @return The writer, or NULL (said on stderr). */
struct tool_events *tool_events_start(
	const char *prog, const char *path, struct tool_net *net, int hosts);

/** Stop the writer and close the file once the workers are gone; says on
 * stderr how many events were dropped, if any. NULL is ignored. */
void tool_events_stop(struct tool_events *pe);

#endif /* TOOL_EVENTS_H */
