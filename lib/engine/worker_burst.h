/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A received burst grouped by the worker that owns its packets
 * (worker_io.c), so that a handoff is one ring operation per owner; each
 * owner's packets keep their arrival order. (Channels are not grouped:
 * worker.c hands a channel each run of its consecutive packets, since the
 * order between channels matters to migration.)
 */
#ifndef WORKER_BURST_H
#define WORKER_BURST_H

#include <stdint.h>

#include "sst_burst.h"

/**
 * Group n packets (at most SST_MAX_BURST) by key: order[] gets the packet
 * indexes with the packets of each key together, the keys in the order of
 * their first packet and each key's packets in arrival order; group g is
 * order[starts[g]] .. order[starts[g + 1] - 1]. starts holds up to
 * SST_MAX_BURST + 1 entries.
 * @return the number of groups (0 when n is 0).
 */
uint16_t worker_burst_group(const uintptr_t *keys, uint16_t n, uint16_t *order, uint16_t *starts);

#endif /* WORKER_BURST_H */
