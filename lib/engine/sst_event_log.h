/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The structured event log of the engine's channels and streams (issue
 * 20): congestion control (RTT samples, window changes), losses and
 * timeouts, the channels' lives (up, down, replaced, streams migrated) and
 * the streams' (connected, accepted, closed and why), as JSON lines for
 * plots (scripts/plot-events.py) and post-mortems.
 *
 * Off the packet path: a worker puts fixed-size records (struct
 * sst_event_rec) on a multi-producer ring and never waits; when the ring
 * is full the record is dropped and counted. One writer (any thread that
 * is not a worker: the application's, or one it starts for the purpose)
 * takes them off with sst_event_log_drain(), formats them and writes the
 * file. The protocol layers stay deterministic: the channel reports its
 * events with the time it was given (sst_channel_set_trace()).
 *
 * A worker logs only when an event log was given to it
 * (sst_worker_set_event_log()); without one, each event costs a test of a
 * NULL pointer.
 */
#ifndef SST_EVENT_LOG_H
#define SST_EVENT_LOG_H

#include <stddef.h>
#include <stdint.h>

struct sst_event_log;
struct sst_worker;

/** What a record tells: the meaning of its values a, b and c. */
enum sst_event_kind {
	SST_EVENT_CHAN_UP = 1, /**< a channel was made: a the peer's number, b 1 if secure */
	SST_EVENT_CHAN_DOWN,   /**< the channel ended */
	SST_EVENT_REPLACED,    /**< a replacement for the channel is being negotiated */
	SST_EVENT_MIGRATED,    /**< its streams moved: a the number of the channel they went to */
	SST_EVENT_RTT,	       /**< a RTT sample: a the sample, b srtt, c rttvar (ns) */
	SST_EVENT_CWND,	       /**< the window changed: a cwnd, b ssthresh, c bytes in flight */
	SST_EVENT_LOSS,	       /**< a packet was declared lost: a its number, b its bytes */
	SST_EVENT_RTO,	       /**< the retransmission timer expired: a the timeout after (ns) */
	/** A stream we opened connected (b 0) or failed (b the positive
	 * errno: ECONNREFUSED, ECONNRESET): a its USID counter */
	SST_EVENT_STREAM_CONNECTED,
	/** The peer opened a stream: a its USID counter, b 1 for a
	 * substream, 0 for a top-level stream of a service */
	SST_EVENT_STREAM_ACCEPTED,
	/** A stream ended: a its USID counter, b why (enum sst_stream_end,
	 * written as its name), c the bytes written to it */
	SST_EVENT_STREAM_CLOSED,
	SST_EVENT_KINDS, /**< the number of kinds plus one (kinds start at 1) */
};

/** One event as it travels from a worker to the writer: 40 bytes. */
struct sst_event_rec {
	uint64_t time;	 /**< the worker's time of the event, in nanoseconds */
	uint64_t a;	 /**< first value, by kind (enum sst_event_kind) */
	uint64_t b;	 /**< second value, by kind */
	uint64_t c;	 /**< third value, by kind */
	uint16_t worker; /**< the worker's telemetry id */
	/** our channel number (byte 0 of what the peer sends us); 0 for a
	 * stream's event (a stream is its peer's and moves between channels) */
	uint8_t channel;
	uint8_t kind;	   /**< enum sst_event_kind */
	uint32_t reserved; /**< zero */
};

/** Room sst_event_format() needs for any record, its newline included. */
#define SST_EVENT_LINE_MAX 192

/**
 * Format a record as one JSON object and a newline, e.g.
 * {"t":1500000,"w":0,"ch":1,"ev":"rtt","sample_ns":20000,"srtt_ns":20000,"rttvar_ns":10000}
 *
 * @param r
 *   The record.
 * @param buf
 *   Where to write; NUL-terminated on success.
 * @param len
 *   Bytes of @p buf; SST_EVENT_LINE_MAX is always enough.
 * @return the length of the line (without the NUL), -EINVAL (unknown
 *   kind) or -ENOSPC (@p buf too short).
 */
int sst_event_format(const struct sst_event_rec *r, char *buf, size_t len);

/**
 * Open an event log: create (truncate) the file and a ring of @p ring_size
 * records. At setup: this allocates.
 *
 * @param path
 *   The file to write.
 * @param ring_size
 *   Records the ring holds, a power of two from 64 to 1048576 (0: 65536);
 *   events beyond, while the writer lags, are dropped.
 * @return the log, or NULL with rte_errno set: EINVAL (bad size or path),
 *   the error of opening the file, or ENOMEM.
 */
struct sst_event_log *sst_event_log_create(const char *path, uint32_t ring_size);

/**
 * Write out what is left (sst_event_log_drain()), close the file and free
 * the log. The workers must no longer use it.
 *
 * @param log
 *   The log; NULL is ignored.
 */
void sst_event_log_destroy(struct sst_event_log *log);

/**
 * Queue a record: any thread, never blocks.
 *
 * @param log
 *   The log.
 * @param r
 *   The record, copied.
 * @return 0, or -ENOBUFS: the ring is full, the record was dropped and
 *   counted (sst_event_log_dropped()).
 */
int sst_event_log_put(struct sst_event_log *log, const struct sst_event_rec *r);

/**
 * The writer's step: take the queued records off the ring, format them and
 * write them to the file. One writer thread at a time; not a worker.
 *
 * @param log
 *   The log.
 * @return the records written, or a negative errno of the write (the
 *   records taken are lost).
 */
int sst_event_log_drain(struct sst_event_log *log);

/**
 * Records dropped because the ring was full. Any thread.
 *
 * @param log
 *   The log.
 * @return the count since the log was created.
 */
uint64_t sst_event_log_dropped(const struct sst_event_log *log);

/**
 * Records written to the file so far. The writer's thread.
 *
 * @param log
 *   The log.
 * @return the count since the log was created.
 */
uint64_t sst_event_log_written(const struct sst_event_log *log);

/**
 * Have worker @p w log its channels' events to @p log (NULL: stop). Call
 * at setup, before the worker makes channels: channels it made before are
 * not traced. The log must outlive the worker's use of it.
 *
 * @param w
 *   The worker.
 * @param log
 *   The log, or NULL.
 */
void sst_worker_set_event_log(struct sst_worker *w, struct sst_event_log *log);

#endif /* SST_EVENT_LOG_H */
