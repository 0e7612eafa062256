/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The writer of --event-log (sst-perf, sst-cat): a plain thread (not an EAL
 * lcore) that takes the workers' records off the log's ring every few
 * milliseconds and writes them as JSON lines, so that the polling thread
 * never formats or writes. It stops after the workers, with a last drain.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_errno.h>

#include "sst_engine.h"
#include "sst_event_log.h"
#include "tool_events.h"
#include "tool_link.h"

enum { WRITER_PERIOD_NS = 10 * 1000 * 1000 };

struct tool_events {
	const char *prog; /**< the tool's name, for its messages */
	struct sst_event_log *log;
	pthread_t writer;
	atomic_bool stop;
};

static void *
writer_main(void *arg)
{
	struct tool_events *pe = arg;
	const struct timespec period = {.tv_sec = 0, .tv_nsec = WRITER_PERIOD_NS};

	while (!atomic_load(&pe->stop)) {
		if (sst_event_log_drain(pe->log) < 0) {
			fprintf(stderr, "%s: --event-log: write failed\n", pe->prog);
			break;
		}
		nanosleep(&period, NULL);
	}
	return NULL;
}

struct tool_events *
tool_events_start(const char *prog, const char *path, struct tool_net *net, int hosts)
{
	struct tool_events *pe = calloc(1, sizeof(*pe));
	int rc;

	if (pe == NULL) {
		fprintf(stderr, "%s: --event-log: out of memory\n", prog);
		return NULL;
	}
	pe->prog = prog;
	pe->log = sst_event_log_create(path, 0);
	if (pe->log == NULL) {
		fprintf(stderr, "%s: --event-log %s: %s\n", prog, path, rte_strerror(rte_errno));
		free(pe);
		return NULL;
	}
	for (int i = 0; i < hosts; i++) {
		struct sst_engine *e = tool_host_engine(tool_net_host(net, i));

		for (uint16_t k = 0; k < sst_engine_workers(e); k++)
			sst_worker_set_event_log(sst_engine_worker(e, k), pe->log);
	}
	atomic_init(&pe->stop, false);
	rc = pthread_create(&pe->writer, NULL, writer_main, pe);
	if (rc != 0) {
		fprintf(stderr, "%s: --event-log: no writer thread: %s\n", prog, strerror(rc));
		sst_event_log_destroy(pe->log);
		free(pe);
		return NULL;
	}
	return pe;
}

void
tool_events_stop(struct tool_events *pe)
{
	uint64_t dropped;

	if (pe == NULL)
		return;
	atomic_store(&pe->stop, true);
	pthread_join(pe->writer, NULL);
	dropped = sst_event_log_dropped(pe->log);
	if (dropped > 0)
		fprintf(stderr, "%s: --event-log: %llu events dropped (the writer lagged)\n",
			pe->prog, (unsigned long long)dropped);
	sst_event_log_destroy(pe->log);
	free(pe);
}
