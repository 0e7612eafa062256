/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sender's record of every packet it numbered (paper 4.2.4; CUSP II-A).
 * Each sequence number ends exactly once as "acked" or "lost", never both:
 * SST never resends a packet, the stream layer resends data in new packets,
 * so a late ack of a packet already declared lost changes nothing.
 *
 * Loss rules: a packet is lost when an ack covers a packet 3 or more beyond
 * it (CUSP's fast-retransmit analogue), or when a later packet was acked and
 * it has been outstanding longer than the loss delay (RFC 9002's time
 * threshold), or when the retransmission timer fires.
 *
 * A number the sender skipped on purpose (the optimistic-ack defence) is
 * recorded too: an ack that covers it proves the peer acknowledges packets
 * it never received.
 *
 * Memory. A fixed log (sst_txlog_init()) has its entries after the struct,
 * in the caller's memory. A growable log (sst_txlog_init_grow(), what
 * channels use) holds no entry until its first packet, then
 * SST_TXLOG_INIT, and doubles (up to its limit) whenever the numbers
 * outstanding (oldest .. next_seq) would not fit: a channel pays for the
 * packets it has in flight, not for the most it may have. The log never
 * shrinks. A growth that fails leaves the log as it was and is reported as
 * the log being full.
 */
#ifndef CHANNEL_TXLOG_H
#define CHANNEL_TXLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sst_mem.h"
#include "sst_time.h"

enum {
	SST_TXLOG_MIN = 64, /**< the smallest limit a log may be given */
	/** Entries a growable log takes for its first packet. */
	SST_TXLOG_INIT = 32,
	SST_TXLOG_MAX = 1 << 22, /**< the 24-bit field's safe reach (2^22) */
	SST_LOSS_PACKET_THRESHOLD = 3,
};

enum sst_txlog_state {
	SST_TX_UNUSED = 0,
	SST_TX_IN_FLIGHT,
	SST_TX_SKIPPED,
	SST_TX_DONE, /**< acked, lost or a skip that passed */
};

struct sst_txlog_entry {
	sst_time_t sent;
	uintptr_t cookie; /**< the upper layer's tag for this packet */
	uint32_t bytes;
	uint8_t state;
	uint8_t ack_eliciting;
};

/** What happened to packets, reported by the log to its owner. */
struct sst_txlog_events {
	void (*acked)(void *ctx, uint64_t seq, const struct sst_txlog_entry *e);
	void (*lost)(void *ctx, uint64_t seq, const struct sst_txlog_entry *e);
	void *ctx;
};

struct sst_txlog {
	uint64_t next_seq;	       /**< the number the next packet gets */
	uint64_t oldest;	       /**< every number below it is resolved */
	uint64_t largest_acked;	       /**< 0 before any ack */
	uint64_t bytes_in_flight;      /**< of ack-eliciting packets only (RFC 9002) */
	uint32_t packets_in_flight;    /**< ack-eliciting ones */
	uint32_t ack_only_in_flight;   /**< the others */
	uint32_t capacity;	       /**< entries now, a power of two (growable: 0 at first) */
	uint32_t limit;		       /**< entries at most, a power of two */
	uint32_t grows;		       /**< growable: times the entries were doubled */
	uint32_t grow_failures;	       /**< growable: no memory for a growth */
	const struct sst_mem_ops *mem; /**< growable: where entries come from; NULL: fixed */
	struct sst_txlog_entry *e;     /**< capacity entries, indexed by seq % capacity */
};

/**
 * Bytes of a fixed log of @p capacity entries (the struct, then the
 * entries); 0 when not a power of two in range.
 */
size_t sst_txlog_size(uint32_t capacity);

/**
 * Initialise a fixed log in memory of sst_txlog_size(capacity) bytes.
 * @return 0 or -EINVAL. Numbering starts at 1 (0 is the fictitious packet).
 */
int sst_txlog_init(struct sst_txlog *log, uint32_t capacity);

/**
 * Initialise a growable log in memory of sizeof(struct sst_txlog) bytes: no
 * entry until the first packet, then SST_TXLOG_INIT, doubling up to
 * @p limit through @p mem. Nothing is allocated here.
 * @return 0 or -EINVAL (limit not a power of two in range, NULL mem).
 */
int sst_txlog_init_grow(struct sst_txlog *log, uint32_t limit, const struct sst_mem_ops *mem);

/** Give a growable log's entries back (nothing for a fixed one). */
void sst_txlog_fini(struct sst_txlog *log);

/** Numbers that may still be assigned before the log reaches its limit. */
static inline uint32_t
sst_txlog_room(const struct sst_txlog *log)
{
	return log->limit - (uint32_t)(log->next_seq - log->oldest);
}

/**
 * Make sure the next @p n numbers can be recorded: a growable log grows as
 * needed (amortized O(1) per packet: each growth doubles it).
 * @return 0, or -ENOBUFS (the limit is reached, or no memory for the
 *   growth: the log is unchanged, and full as far as the caller goes).
 */
int sst_txlog_reserve(struct sst_txlog *log, uint32_t n);

/**
 * Record a packet under the next number (sst_txlog_reserve(log, 1) must
 * have returned 0).
 * @return its sequence number.
 */
uint64_t sst_txlog_push(struct sst_txlog *log, sst_time_t now, uint32_t bytes, uintptr_t cookie,
	bool ack_eliciting);

/** Skip the next number (reserved as for sst_txlog_push()). @return the skipped number. */
uint64_t sst_txlog_skip(struct sst_txlog *log);

/**
 * Take a number back out of flight without reporting it (it was never sent:
 * the channel ran out of mbufs). A later ack of it is ignored.
 * @return true with the entry copied to @p e, false if it was not in flight.
 */
bool sst_txlog_withdraw(struct sst_txlog *log, uint64_t seq, struct sst_txlog_entry *e);

/** Result of processing one ack word. */
struct sst_txlog_ack_result {
	uint32_t acked_packets;
	uint64_t acked_bytes;
	uint64_t newest_acked; /**< highest number newly acked, 0 if none */
	sst_time_t
		rtt_sample;  /**< now - sent of the newest ack-eliciting packet acked; 0 if none */
	bool covers_skipped; /**< the ack claims a number we never sent */
};

/**
 * Apply an ack word: packets from..to were received (to < next_seq, checked
 * by the caller). Reports each newly acked packet through ev, then declares
 * lost what the packet and time thresholds say.
 *
 * @param loss_delay
 *   The time threshold (e.g. 9/8 of max(srtt, latest RTT)).
 */
void sst_txlog_ack(struct sst_txlog *log, uint64_t from, uint64_t to, sst_time_t now,
	sst_time_t loss_delay, const struct sst_txlog_events *ev, struct sst_txlog_ack_result *res);

/**
 * Declare lost what the time threshold says by now (the loss timer fired).
 * @return packets declared lost.
 */
uint32_t sst_txlog_detect_lost(struct sst_txlog *log, sst_time_t now, sst_time_t loss_delay,
	const struct sst_txlog_events *ev);

/** Declare every packet in flight lost (retransmission timeout). @return how many. */
uint32_t sst_txlog_lose_all(struct sst_txlog *log, const struct sst_txlog_events *ev);

/**
 * When the time threshold will declare the next packet lost, or
 * SST_TIME_NEVER when no packet below the largest acked is outstanding.
 */
sst_time_t sst_txlog_loss_time(const struct sst_txlog *log, sst_time_t loss_delay);

/** Send time of the oldest packet in flight, or SST_TIME_NEVER. */
sst_time_t sst_txlog_oldest_sent(const struct sst_txlog *log);

#endif /* CHANNEL_TXLOG_H */
