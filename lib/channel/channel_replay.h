/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive window of a channel (paper 4.2.2): which of the last `size`
 * sequence numbers have been received. It serves two purposes: replay
 * protection (a packet at or beyond `size` behind the highest, or already
 * received, is dropped) and acknowledgment (the contiguous run of received
 * packets that an ack word reports). The prototype uses 32; high
 * bandwidth-delay paths need thousands, so the window is a bitmap ring of any
 * power-of-two size held in caller memory.
 *
 * Checking and updating are separate because a packet may only change the
 * window after its armor verified (wire-format.md section 2).
 */
#ifndef CHANNEL_REPLAY_H
#define CHANNEL_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	SST_REPLAY_MIN = 32,
	SST_REPLAY_MAX = 65536,
};

/** Outcome of a replay check. */
enum sst_replay_verdict {
	SST_REPLAY_NEW = 0,   /**< acceptable */
	SST_REPLAY_TOO_OLD,   /**< size or more behind the highest */
	SST_REPLAY_DUPLICATE, /**< already received */
};

struct sst_replay {
	uint64_t
		highest; /**< highest sequence number received; 0 = none (packet 0 is fictitious) */
	uint32_t size;	 /**< window in packets, a power of two */
	uint32_t words;	 /**< size / 64, at least 1 */
	uint64_t bits[]; /**< bit (seq % size) set = received */
};

/** Bytes of a window of @p size packets; 0 if size is not a power of two in range. */
size_t sst_replay_size(uint32_t size);

/**
 * Initialise a window in memory of sst_replay_size(size) bytes. Packet 0
 * counts as received, as in the prototype.
 * @return 0 or -EINVAL.
 */
int sst_replay_init(struct sst_replay *w, uint32_t size);

/** May packet @p seq be accepted? Does not change the window. */
enum sst_replay_verdict sst_replay_check(const struct sst_replay *w, uint64_t seq);

/** Record an authenticated packet (it must have passed sst_replay_check). */
void sst_replay_update(struct sst_replay *w, uint64_t seq);

/** True if @p seq is inside the window and was received. */
bool sst_replay_received(const struct sst_replay *w, uint64_t seq);

/**
 * Length of the run of received packets ending just below @p seq, counting
 * back at most @p max (so that (seq, run) is an honest ack word when seq was
 * received).
 */
uint32_t sst_replay_run_below(const struct sst_replay *w, uint64_t seq, uint32_t max);

#endif /* CHANNEL_REPLAY_H */
