/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-stream flow control (paper 4.3.6), both directions, sans-IO: plain
 * state in caller memory, no clock, no allocation. Packet sequence numbers
 * are the channel's 64-bit (extrapolated) transmit or receive sequence
 * numbers and are passed in by the caller.
 *
 * Credit. The window byte of every stream packet advertises 2^e - 1 bytes
 * of receive credit (wire-format.md 4): the number of bytes the sender may
 * have unacknowledged on the stream, not an absolute offset. The receiver
 * deducts every segment it buffers (acknowledged, not yet read) from its
 * buffer, and gives it back when the application reads it; the sender
 * deducts every segment it sends from the credit and gives it back when
 * the segment is acknowledged or declared lost.
 *
 * Receiver (struct sst_flowctl_rx). The caller must:
 *  1. sst_flowctl_rx_check() each arriving Data/Init/Reply segment before
 *     giving it to the reassembly buffer, and drop it unacknowledged (as if
 *     lost, paper 4.3.6) when the verdict is SST_FLOWCTL_DROP;
 *  2. sst_flowctl_rx_set_buffered() after every change of the reassembly
 *     buffer (insert, read, reset), with its read offset and byte counts;
 *  3. sst_flowctl_rx_advertise() for every packet it sends on the stream,
 *     to get the window byte to put in it (Datagram packets included,
 *     though their window byte is ignored on receive);
 *  4. after step 2 for a read, send an Ack packet when
 *     sst_flowctl_rx_update_due() says so (and no other packet of the
 *     stream is about to leave);
 *  5. sst_flowctl_rx_on_ack() whenever the channel reports a transmitted
 *     packet acknowledged (any packet of the stream: the module only acts
 *     on the one that completes its measurement round).
 *
 * Auto-tuning (CUSP, receiver barrier policy). The buffer the window is
 * computed from, the target, starts at the minimum buffer. One
 * advertisement at a time is a probe: the read offset is noted when it is
 * sent; once a packet at or after it is acknowledged (one round trip
 * later) the target becomes 2 x the bytes read since the probe, plus 2
 * segments (the sender only sends whole segments, and without that slack
 * a window that a fast application keeps empty could not reach the next
 * power of two), at least the minimum and at most the maximum buffer. The
 * reads are counted until the next advertisement, which ends the round
 * and starts the next one, so data that arrives with the acknowledgment
 * and is read at once counts. The window thus doubles every round trip
 * while the application keeps up, and settles near 2 x the application's
 * read rate per round trip when it does not.
 *
 * Sender (struct sst_flowctl_tx). The caller reports every window byte
 * received with the sequence number of the packet that carried it
 * (sst_flowctl_tx_on_window(): only the most recently sent update counts),
 * and the bytes of each segment sent, acknowledged and declared lost. It
 * then asks sst_flowctl_tx_sendable() how much to send now.
 */
#ifndef STREAM_FLOWCTL_H
#define STREAM_FLOWCTL_H

#include <stdbool.h>
#include <stdint.h>

#include "stream_wire.h"

enum {
	/** The prototype's default receive buffer (window byte 0x10). */
	SST_FLOWCTL_BUF_DEFAULT = 65536,
	/** Largest buffer accepted (a window byte goes up to 2^31 - 1). */
	SST_FLOWCTL_BUF_MAX = 1 << 30,
	/** Window byte a sender assumes before the first update (2^16 - 1). */
	SST_FLOWCTL_WINDOW_DEFAULT = 16,
	/** The prototype's largest segment payload. */
	SST_FLOWCTL_MSS_DEFAULT = 1200,
};

/** What the receiver does with an arriving segment: sst_flowctl_rx_check(). */
enum sst_flowctl_verdict {
	SST_FLOWCTL_ACCEPT = 0, /**< give it to the reassembly buffer */
	SST_FLOWCTL_DROP = 1,	/**< overrun: discard unacknowledged, as lost */
};

/** Receiver counters (data path: counted, never logged). */
struct sst_flowctl_rx_stats {
	uint64_t adverts;	    /**< window bytes handed out */
	uint64_t retunes;	    /**< measurement rounds completed */
	uint64_t overrun_drops;	    /**< segments dropped beyond the credit */
	uint64_t overrun_tolerated; /**< non-strict: beyond the credit, taken */
	uint64_t overrun_max_drops; /**< non-strict: beyond the maximum buffer */
};

/** Receive side of one stream direction. Fields are read-only to callers. */
struct sst_flowctl_rx {
	uint64_t read_off;   /**< everything below was read by the app */
	uint64_t ready;	     /**< in-order bytes buffered, not yet read */
	uint64_t ooo;	     /**< out-of-order bytes buffered */
	uint64_t edge;	     /**< highest offset any live advert allowed */
	uint64_t edge_round; /**< highest edge advertised since the probe */
	uint64_t last_seq;   /**< sequence number of the latest advert */
	uint64_t probe_seq;  /**< advert the current round measures from */
	uint64_t probe_read; /**< read_off when the probe was sent */
	/** Free space from which the window byte exceeds the latest advert's:
	 *  2 x adv_credit + 1 (the next window byte's credit). */
	uint64_t grow_free;
	uint32_t min_buf;    /**< configured minimum window (bytes) */
	uint32_t max_buf;    /**< configured maximum window (bytes) */
	uint32_t target;     /**< current auto-tuned window (bytes) */
	uint32_t mss;	     /**< largest segment payload */
	uint32_t adv_credit; /**< credit of the latest advert */
	uint8_t adv_window;  /**< window byte of the latest advert */
	bool advertised;     /**< last_seq is valid */
	bool probing;	     /**< probe_seq is valid */
	bool round_acked;    /**< the probe was acknowledged: re-tuning */
	bool strict;	     /**< drop overruns instead of tolerating them */
	struct sst_flowctl_rx_stats stats;
};

/** Sender counters. */
struct sst_flowctl_tx_stats {
	uint64_t updates;	/**< window updates applied */
	uint64_t stale_updates; /**< window updates ignored as older */
	uint64_t sws_waits;	/**< sendable() held back a partial segment */
};

/** Send side of one stream direction. Fields are read-only to callers. */
struct sst_flowctl_tx {
	uint64_t inflight;   /**< bytes sent and not acknowledged or lost */
	uint64_t update_seq; /**< packet that carried the credit in use */
	uint32_t credit;     /**< bytes the peer lets us have in flight */
	uint32_t mss;	     /**< largest segment payload */
	uint8_t window;	     /**< window byte the credit came from */
	bool updated;	     /**< update_seq is valid */
	struct sst_flowctl_tx_stats stats;
};

/*
 * Receiver
 */

/**
 * Initialise a receiver for a stream direction starting at offset 0.
 *
 * Until the first advertisement the receiver assumes the sender uses the
 * credit of the minimum buffer (the default 65536 gives 2^16 - 1, the
 * sender's SST_FLOWCTL_WINDOW_DEFAULT).
 *
 * @param min_buf
 *   Minimum and initial window in bytes, at least 2 x mss.
 * @param max_buf
 *   Maximum window in bytes, from min_buf to SST_FLOWCTL_BUF_MAX. The
 *   reassembly buffer's window should be this value: no segment ending
 *   beyond read offset + max_buf is ever accepted.
 * @param mss
 *   Largest segment payload (SST_FLOWCTL_MSS_DEFAULT), at least 1.
 * @param strict
 *   Drop segments beyond the advertised credit (paper 4.3.6). False for
 *   peers like the prototype that do not enforce the window on send:
 *   overruns are then taken up to max_buf.
 * @return 0, or -EINVAL (NULL rx, or a size outside the ranges above).
 */
int sst_flowctl_rx_init(
	struct sst_flowctl_rx *rx, uint32_t min_buf, uint32_t max_buf, uint32_t mss, bool strict);

/**
 * Report the reassembly buffer's state: call after every insert, read or
 * reset (the values are struct sst_rob's read_off, bytes_ready and
 * bytes_ooo).
 *
 * @param read_off
 *   Offset up to which the application has read; never decreases.
 * @param ready
 *   In-order bytes buffered and not yet read.
 * @param ooo
 *   Out-of-order bytes buffered.
 * @return 0, or -EINVAL (read_off below the previous one; nothing changed).
 */
int sst_flowctl_rx_set_buffered(
	struct sst_flowctl_rx *rx, uint64_t read_off, uint64_t ready, uint64_t ooo);

/**
 * Window byte for the current state, without recording anything: the
 * largest e with 2^e - 1 <= free space, where free space is the target
 * (as re-tuned, see sst_flowctl_rx_on_ack())
 * minus every buffered byte, but at least 2 x mss while only out-of-order
 * data is buffered (so the sender can always fill the hole, notes 2.5).
 */
uint8_t sst_flowctl_rx_window(const struct sst_flowctl_rx *rx);

/**
 * Window byte to put in the packet with sequence number @p seq, recorded
 * as the latest advertisement. Starts a measurement round if none is
 * running.
 *
 * @param seq
 *   The packet's channel transmit sequence number, above that of the
 *   previous advertisement.
 * @param window
 *   Out: the window byte.
 * @return 0, or -EINVAL (seq not above the previous advertisement's).
 */
int sst_flowctl_rx_advertise(struct sst_flowctl_rx *rx, uint64_t seq, uint8_t *window);

/**
 * The window free space is computed from: the target, or once a
 * measurement round has been acknowledged, CUSP's barrier policy: twice
 * what the application read since the probe was sent (its progress in one
 * round trip), plus 2 x mss because the sender only sends whole segments
 * (without that slack, a window a fast application keeps empty, 2^e - 1
 * minus a partial segment, would double to just below 2^(e+1) - 1 and its
 * encoding would never grow), clamped to [min_buf, max_buf]. The progress
 * is taken up to now, not up to the acknowledgment: the data that arrives
 * with the acknowledgment was sent in the round and is read after it is
 * processed. Inline for sst_flowctl_rx_update_due().
 */
static inline uint32_t
sst_flowctl_rx_target(const struct sst_flowctl_rx *rx)
{
	uint64_t target;

	if (!rx->round_acked)
		return rx->target;
	target = 2 * (rx->read_off - rx->probe_read) + 2 * (uint64_t)rx->mss;
	if (target < rx->min_buf)
		target = rx->min_buf;
	if (target > rx->max_buf)
		target = rx->max_buf;
	return (uint32_t)target;
}

/**
 * Free receive space in bytes, the window byte's source: target minus
 * everything buffered, but at least 2 x mss while only out-of-order data
 * is buffered (prototype notes 2.5), so a sender whose credit is eaten by
 * data above a hole can still fill the hole.
 */
static inline uint64_t
sst_flowctl_rx_free(const struct sst_flowctl_rx *rx)
{
	uint64_t used = rx->ready + rx->ooo;
	uint64_t target = sst_flowctl_rx_target(rx);
	uint64_t free_bytes = used < target ? target - used : 0;
	uint64_t floor = 2 * (uint64_t)rx->mss;

	if (rx->ready == 0 && rx->ooo > 0 && free_bytes < floor)
		free_bytes = floor;
	return free_bytes;
}

/**
 * The part of sst_flowctl_rx_update_due() for a window byte above the
 * latest advert's: whether the credit grew by the step.
 */
bool sst_flowctl_rx_update_worth(const struct sst_flowctl_rx *rx);

/**
 * Whether an explicit window update (an Ack packet) is worth sending:
 * the credit now is above the latest advertised one by at least
 * min(2 x mss, target / 4). Smaller growth waits for the next packet
 * the stream sends anyway (receiver silly-window avoidance). Always false
 * before the first advertisement (the sender's initial credit stands).
 *
 * Inline, with the common answer first: the stream layer asks after every
 * segment received and every read (2.8 times a packet in a bulk transfer,
 * issue 17), and the credit can only be above the advert's once the free
 * space reaches the next window byte's credit, grow_free.
 */
static inline bool
sst_flowctl_rx_update_due(const struct sst_flowctl_rx *rx)
{
	if (!rx->advertised || sst_flowctl_rx_free(rx) < rx->grow_free)
		return false;
	return sst_flowctl_rx_update_worth(rx);
}

/**
 * Whether an advertisement now would move the edge the sender knows
 * (read offset + buffered + credit, over the adverts it may still use) by
 * at least the step of sst_flowctl_rx_update_due(). For a stream its
 * receiver never answers on, whose credit never grows because its bytes
 * count as read as they arrive (a datagram's substream waiting whole in
 * its parent's accept queue): its sender knows only the initial credit,
 * and without an update at the edge it would wait there for good.
 */
bool sst_flowctl_rx_edge_due(const struct sst_flowctl_rx *rx);

/**
 * The channel acknowledged the transmitted packet @p seq. If a
 * measurement round is running and @p seq is at or after its probe, the
 * round is acknowledged: from now on the window is computed from
 * clamp(2 x bytes read since the probe + 2 x mss, min_buf, max_buf), with
 * reads up to the moment it is computed, and the next
 * sst_flowctl_rx_advertise() fixes that as the target and starts the next
 * round. Advertisements older than the probe no longer bound the sender.
 *
 * @return 1 if this acknowledgment ended the round, 0 otherwise.
 */
int sst_flowctl_rx_on_ack(struct sst_flowctl_rx *rx, uint64_t seq);

/**
 * Verdict for an arriving segment covering [off, off + len), before it is
 * given to the reassembly buffer.
 *
 * The credit edge is the highest read offset + buffered bytes + credit of
 * any advertisement the sender may still be using (those since the last
 * completed measurement round, and the initial credit): a sender that
 * keeps its unacknowledged bytes within the credit never sends beyond it.
 * - Strict: a segment ending beyond the edge is SST_FLOWCTL_DROP.
 * - Not strict: it is accepted while it ends within read offset +
 *   max_buf, and counted as a tolerated overrun.
 * A segment ending beyond read offset + max_buf is dropped in either
 * mode. Note that SST's credit is relative: a sender that applies an
 * acknowledgment before the window update that came with it may overrun
 * the edge a little, which is why legacy peers need non-strict mode.
 */
enum sst_flowctl_verdict sst_flowctl_rx_check(
	struct sst_flowctl_rx *rx, uint64_t off, uint32_t len);

/*
 * Sender
 */

/**
 * Initialise a sender with nothing in flight.
 *
 * @param mss
 *   Largest segment payload, at least 1.
 * @param window
 *   Window byte assumed before the peer's first update
 *   (SST_FLOWCTL_WINDOW_DEFAULT; a stream opened by Init borrows the
 *   parent's window instead, which the caller accounts on the parent).
 * @return 0, or -EINVAL (NULL tx or mss 0).
 */
int sst_flowctl_tx_init(struct sst_flowctl_tx *tx, uint32_t mss, uint8_t window);

/**
 * A window byte arrived in the received packet @p seq (channel receive
 * sequence number). Only the most recently sent update counts (paper
 * 4.3.6): an update from a packet at or below the one in use is ignored.
 * Bits outside the exponent are ignored.
 *
 * @return 1 if the update was applied, 0 if it was stale.
 */
int sst_flowctl_tx_on_window(struct sst_flowctl_tx *tx, uint64_t seq, uint8_t window);

/** @p bytes of payload were sent (first transmission or resend). */
void sst_flowctl_tx_sent(struct sst_flowctl_tx *tx, uint32_t bytes);

/**
 * @p bytes of payload in flight were acknowledged.
 * @return 0, or -ERANGE (more than in flight; nothing changed).
 */
int sst_flowctl_tx_acked(struct sst_flowctl_tx *tx, uint32_t bytes);

/**
 * @p bytes of payload in flight were declared lost (they leave the flight
 * and count again when resent).
 * @return 0, or -ERANGE (more than in flight; nothing changed).
 */
int sst_flowctl_tx_lost(struct sst_flowctl_tx *tx, uint32_t bytes);

/** Credit minus bytes in flight, 0 when the flight fills the credit. */
uint64_t sst_flowctl_tx_allowance(const struct sst_flowctl_tx *tx);

/**
 * Bytes to send now out of @p pending queued bytes, under the paper's
 * sender silly-window rule (4.3.6): never cut a segment just to fit the
 * window. The answer is every pending byte if they all fit in the
 * allowance and @p push is set (the last one ends a write: its short
 * segment carries Push); otherwise the whole mss-sized segments that fit
 * (a partial segment waits until the window can take a full one). Never
 * more than sst_flowctl_tx_allowance().
 *
 * @param pending
 *   Bytes queued on the stream, not sent yet.
 * @param push
 *   The last pending byte ends a write (or the stream).
 */
uint64_t sst_flowctl_tx_sendable(struct sst_flowctl_tx *tx, uint64_t pending, bool push);

#endif /* STREAM_FLOWCTL_H */
