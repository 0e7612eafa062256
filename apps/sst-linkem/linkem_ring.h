/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * When each frame reached sst-linkem, as the kernel recorded it.
 *
 * The bridge polls its ports from one thread that shares the CPUs with
 * the endpoints it connects. Whenever the scheduler takes the CPU from it
 * (milliseconds at a time on a busy 2-vCPU machine), frames pile up in
 * the af_packet receive ring, and a bridge that gives the link model the
 * time it read them turns a steady stream into a burst at one instant,
 * which overflows a bottleneck queue the real stream would not have: the
 * link would have served most of them during the gap. The kernel stamps
 * each frame as it puts it in the ring (tpacket2_hdr tp_sec and tp_nsec,
 * CLOCK_REALTIME), and those stamps are the arrivals the model needs.
 *
 * DPDK 22.11's net_af_packet does not hand them over (its timestamp
 * offload came in 23.03), so this is a second, read-only mapping of the
 * PMD's own ring: a packet socket maps the same ring pages to every mmap()
 * of the right length. The view peeks at the frames the PMD will read next
 * and follows the PMD's position by counting what it read. It depends on
 * the PMD's ring geometry, which the bridge sets itself (blocksz, framesz,
 * framecnt), and on the PMD reading frames in ring order, one by one.
 */
#ifndef LINKEM_RING_H
#define LINKEM_RING_H

#include <stddef.h>
#include <stdint.h>

#include "sst_time.h"

struct linkem_ring {
	const uint8_t *map; /**< the receive ring (the first half of the mapping) */
	size_t map_len;	    /**< the whole mapping: receive and transmit rings */
	uint32_t frame_size;
	uint32_t frames;
	uint32_t next; /**< the frame the PMD reads next */
};

/**
 * Map the receive ring of packet socket @p fd, set up with @p frames
 * frames of @p frame_size bytes (TPACKET_V2, in blocks holding a whole
 * number of frames, a transmit ring of the same size after it), read-only.
 * @return 0, or a negative errno (r->map NULL).
 */
int linkem_ring_open(struct linkem_ring *r, int fd, uint32_t frames, uint32_t frame_size);

/** Unmap (nothing when not mapped). */
void linkem_ring_close(struct linkem_ring *r);

/**
 * Over a ring laid out in memory at @p mem: for tests, which build one.
 */
void linkem_ring_init(struct linkem_ring *r, const void *mem, uint32_t frames, uint32_t frame_size);

/**
 * The kernel's stamps (ns since the epoch, CLOCK_REALTIME; 0 when the
 * frame has none) and the lengths of the frames waiting at the ring's
 * head, at most @p max of them, in ring order. The lengths let the caller
 * check that the PMD read the same frames.
 * @return how many frames are waiting (up to max).
 */
uint16_t linkem_ring_peek(const struct linkem_ring *r, uint64_t *ts, uint32_t *len, uint16_t max);

/** The PMD read @p n frames: follow it. */
void linkem_ring_advance(struct linkem_ring *r, uint16_t n);

/**
 * When a frame the kernel stamped @p ts arrived on the bridge's clock,
 * given that the bridge's clock read @p now when the real-time clock read
 * @p real_now: never after now (a stamp ahead of the clock is taken as
 * now), never before @p floor (the previous frame's arrival: the model
 * takes arrivals in order); now when there is no stamp (0).
 */
sst_time_t linkem_arrival(uint64_t ts, uint64_t real_now, sst_time_t now, sst_time_t floor);

#endif /* LINKEM_RING_H */
