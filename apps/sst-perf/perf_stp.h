/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-perf's side of STP (lib/stp, docs/stp.md): a host that receives a
 * test's data asks its peer, the sender, to use the module of --ship-cc
 * (and ships it on SENDME); every host answers such requests under its
 * --cc-policy, loading shipped modules with the bpf driver and moving the
 * peer's channels to them. It sits between the stream layer and the
 * client's or server's callbacks: streams of the STP service are its own,
 * everything else goes through to the callbacks it wraps.
 */
#ifndef PERF_STP_H
#define PERF_STP_H

#include <stdbool.h>

#include "perf.h"

struct perf_stp;

/** Wrap @p inner and @p inner_worker (both with @p inner_ctx); @p ship:
 * ask each new peer for c->ship. @return NULL when out of memory. */
struct perf_stp *perf_stp_new(const struct perf_conf *c, bool ship,
	const struct sst_stream_ops *inner, const struct sst_worker_ops *inner_worker,
	void *inner_ctx);

/** Answer STP requests on host @p h. @return 0 or -1 after printing why. */
int perf_stp_start(struct perf_stp *ps, struct tool_host *h);

/** Stop reacting (before the host is destroyed). */
void perf_stp_quiesce(struct perf_stp *ps);

/** Free (after the host). */
void perf_stp_destroy(struct perf_stp *ps);

/** The callbacks to give the stream host, with the perf_stp as ctx. */
extern const struct sst_stream_ops perf_stp_stream_ops;

/** The worker callbacks, with the perf_stp as ctx: app_poll gives up on
 * exchanges whose peer stopped answering (sst_stp_next_expiry()). */
extern const struct sst_worker_ops perf_stp_worker_ops;

/** Parse --ship-cc FILE.o into @p c. @return 0, or -1 after printing why. */
int perf_stp_parse_ship(struct perf_conf *c, const char *path);

/** Parse --cc-policy deny|allow-all|pinned:KEYFILE into @p c. @return 0 or -1. */
int perf_stp_parse_policy(struct perf_conf *c, const char *arg);

/** --unpoliced: turn the policer off for the module @p cc names.
 * @return 0, or -1 when @p cc is not a loaded bpf module. */
int perf_stp_unpolice(const char *cc);

#endif /* PERF_STP_H */
