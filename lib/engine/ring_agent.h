/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The agent's two halves (sst_ring.h, ring mode on the worker's side):
 * ring_agent.c opens streams for slots and holds the agent's stream and
 * worker callbacks; ring_cmd.c reads each client's command ring and
 * executes the commands, calling back into the first for what opens or
 * fails a slot. Both run on the worker's thread, inside its app_poll or
 * its callbacks; nothing here takes a lock or allocates.
 */
#ifndef RING_AGENT_H
#define RING_AGENT_H

#include "ring_internal.h"

/* ring_agent.c */

/*
 * Slot sl will never have a stream (its channel or its parent failed, or
 * it was reset before it opened): it and every substream waiting for it
 * end with err and why, reported to the client (CONNECTED for a connect,
 * CLOSED, or FREED once the client closed it already).
 */
void ring_slot_fail(struct sst_ring_agent *a, struct ring_slot *sl, int err,
	enum sst_stream_end why, sst_time_t now);

/* CONNECT for slot sl to the service, protocol and endpoint in n: at once
 * over a channel the worker has, else once the channel is up (negotiated
 * here unless another connect to the endpoint waits already). A failure
 * fails the slot. */
void ring_connect_start(
	struct sst_ring_agent *a, struct ring_slot *sl, const struct ring_names *n, sst_time_t now);

/* LISTEN for slot sl on the service and protocol in n, in mode n->mode:
 * the slot becomes a listener, or ends; LISTENING is owed either way with
 * the outcome (0, -EINVAL, -ENOSPC or sst_stream_listen()'s error). */
void ring_listen_start(struct sst_ring_agent *a, struct ring_slot *sl, const struct ring_names *n);

/* Listener slot sl stops listening (unlistening on the stream host only
 * if host_alive) and gives its service entry back. */
void ring_listen_end(struct sst_ring_agent *a, struct ring_slot *sl, bool host_alive);

/* SUBSTREAM for slot sl under parent: opened at once when the parent is
 * live, after it when it is still opening (in the order asked), otherwise
 * the slot fails with -ENOTCONN. */
void ring_substream_start(
	struct sst_ring_agent *a, struct ring_slot *sl, struct ring_slot *parent, sst_time_t now);

/* ring_cmd.c */

/* Execute client c's commands waiting in its ring, at most RING_CMD_BUDGET
 * elements per call (a busy client cannot hold the worker). */
void ring_cmd_run(struct sst_ring_agent *a, struct sst_ring_client *c, sst_time_t now);

#endif /* RING_AGENT_H */
