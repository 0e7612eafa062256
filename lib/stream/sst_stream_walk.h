/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A read-only walk over the streams attached to a channel, a page at a
 * time, for telemetry (/sst/streams) and tools: each stream reaches the
 * caller as a snapshot record, so nothing outside the stream layer reads
 * its structures.
 */
#ifndef SST_STREAM_WALK_H
#define SST_STREAM_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "sst_stream.h"

/**
 * One stream attached to a channel, as sst_stream_chan_walk() shows it: a
 * snapshot taken for the callback. Offsets count from the stream's start.
 */
struct sst_stream_walk_entry {
	/** The stream; valid during the callback only, and only to read it
	 * through the functions of this header. */
	const struct sst_stream *stream;
	/** Its SID on the channel, in the space ours says. */
	uint16_t sid;
	/** True: sid is ours (the transmit space: we send the stream's data
	 * with it); false: the peer's (the receive space). A stream with a
	 * SID in both spaces of the channel is shown once, with ours. */
	bool ours;
	/** How the stream ended, a static string: "live", "finished",
	 * "reset" or "reset_after_finish". */
	const char *state;
	/** Our direction, a static string: "open", "close_owed",
	 * "close_queued" or "close_acked". */
	const char *send_state;
	/** The peer's direction, a static string: "open" or "eof_read". */
	const char *recv_state;
	/** Its priority (sst_stream_set_priority()). */
	int32_t priority;
	/** Bytes the application wrote. */
	uint64_t tx_written;
	/** Offset below which every byte was sent at least once. */
	uint64_t tx_sent;
	/** Offset below which every byte was acknowledged (bytes acknowledged
	 * out of order above it are not counted). */
	uint64_t tx_acked;
	/** Send-buffer fill: bytes held until acknowledged (0 without a send
	 * buffer). */
	uint64_t tx_buffered;
	/** Offset below which every byte was received in order (read by the
	 * application or waiting to be read). */
	uint64_t rx_received;
	/** Receive-buffer fill: bytes held, in order and out of order (0
	 * without a receive buffer). */
	uint64_t rx_buffered;
	/** Receive window: the credit we last advertised (0 without a receive
	 * buffer). */
	uint32_t rx_window;
};

/**
 * Called by sst_stream_chan_walk() for each stream.
 *
 * @param e
 *   The stream; the record lives for the call only.
 * @param arg
 *   The walk's argument.
 * @return 0 to go on, anything else to stop after this stream.
 */
typedef int (*sst_stream_walk_fn)(const struct sst_stream_walk_entry *e, void *arg);

/**
 * Show the streams attached to a channel, a page at a time (telemetry,
 * tools): for each, from position @p from on, a snapshot record to @p fn,
 * until fn asks to stop or the streams run out. Reads only; the
 * channel's root stream is not shown. Call it on the channel's thread,
 * between events; @p fn must not call into the stream layer except to
 * read. Positions are places in the channel's SID tables: streams that
 * attach or detach between two pages may be skipped or shown twice.
 *
 * @param c
 *   The channel.
 * @param from
 *   Where to start: 0 for the first page, else what the previous call
 *   returned.
 * @param fn
 *   Called for each stream.
 * @param arg
 *   Passed to @p fn.
 * @return where the next page starts (pass it as @p from) when @p fn
 *   stopped the walk; 0 when every stream from @p from on was shown.
 */
uint32_t sst_stream_chan_walk(
	const struct sst_stream_chan *c, uint32_t from, sst_stream_walk_fn fn, void *arg);

#endif /* SST_STREAM_WALK_H */
