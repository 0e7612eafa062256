/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The channel object. Never installed: the stream layer and the engine use
 * sst_channel.h; tests and tools that need the parts use this header.
 */
#ifndef CHANNEL_INTERNAL_H
#define CHANNEL_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>

#include "channel_ack.h"
#include "channel_replay.h"
#include "channel_rtt.h"
#include "channel_txlog.h"
#include "sst_cc_driver.h"
#include "sst_channel.h"
#include "sst_pacer.h"

/* Skips are 32..287 packets apart: rare enough to cost nothing, frequent
 * enough that an optimistic acker hits one within a window. */
enum { CHANNEL_SKIP_MIN_GAP = 32 };

struct sst_channel {
	/* Fixed at creation: the fast path's choices. */
	const struct sst_crypto_ops *crypto;
	void *crypto_session;
	struct sst_replay *replay;
	struct sst_txlog *txlog;
	const struct sst_channel_upper *upper;
	void *upper_ctx;
	const struct sst_channel_lower *lower;
	void *lower_ctx;
	struct rte_mempool *pool;
	const struct sst_mem_ops *mem; /**< p->mem, or sst_mem_rte */
	size_t alloc_size;	       /**< sst_channel_create()'s; 0: the caller's memory */
	uint32_t mtu;
	uint8_t local_channel;
	uint8_t peer_channel;
	bool failed;
	bool replace_reported;

	/* Sequence-space management. */
	uint64_t seq_limit;  /**< first number we may not use */
	uint64_t next_skip;  /**< the next number to skip; UINT64_MAX: never */
	uint64_t skip_state; /**< keyed generator of skip distances */

	/* Reliability and congestion state. */
	struct sst_ackgen ackgen;
	/* How received packets are recorded for acks and how ack words are
	 * made: ours, or the 2007 prototype's when posing as it
	 * (sst_channel_params.prototype_acks); chosen once. */
	void (*ack_record)(struct sst_ackgen *a, uint64_t seq, uint64_t highest, bool ack_eliciting,
		bool quiet, sst_time_t now);
	void (*ack_take)(struct sst_ackgen *a, const struct sst_replay *w, uint64_t *ack_seq,
		uint8_t *ack_count);
	/* sst_channel_params.ack_forge_for_testing: ack_take is then
	 * channel_take_forged(), which calls the honest one kept here and
	 * hands its word to the rewriter. */
	void (*ack_take_honest)(struct sst_ackgen *a, const struct sst_replay *w, uint64_t *ack_seq,
		uint8_t *ack_count);
	const struct sst_channel_ack_forge *ack_forge;
	void *ack_forge_ctx;
	uint64_t ack_forge_last; /**< the previous forged word's number */
	struct sst_rtt rtt;
	sst_time_t rto_start; /**< when the retransmission timer started; NEVER: off */
	/** When the last ack-eliciting packet left; NEVER: none yet. A send
	 * allowance asked with nothing in flight a timeout later is a restart
	 * after idle (sst_cc_on_idle()). */
	sst_time_t last_tx;
	/** When the last authentic packet was accepted; NEVER: none yet (the
	 * quiet rule of channel_ack.h). */
	sst_time_t last_rx;
	/* The ack word last applied, when, and with which loss delay
	 * (channel_rx.c): the packets of a burst carry one word, and the same
	 * word applied again with the same time and delay changes nothing.
	 * rx_ack_now NEVER: none yet. */
	uint64_t rx_ack_seq;
	uint8_t rx_ack_count;
	sst_time_t rx_ack_now;
	sst_time_t rx_ack_delay;
	/** The number after the last packet sent while the window was full
	 * (channel_window_full()): an ack below it is for a round trip that
	 * used the whole window, and earns the controller's growth; an ack
	 * above it is application-limited (RFC 7661, channel_rx.c). */
	uint64_t cwnd_full_until;
	struct sst_cc cc;
	struct sst_pacer pacer;

	struct sst_channel_stats stats;

	/* Tracing (sst_channel_set_trace()): off when trace is NULL. */
	sst_channel_trace_fn trace;
	void *trace_ctx;
	uint64_t traced_cwnd, traced_ssthresh; /**< the window last traced */
};

/* Shared by channel.c, channel_tx.c and channel_rx.c. */

/*
 * Whether the congestion window has no room for another packet. A whole
 * packet must fit under the window (as Linux counts its window in
 * packets): a flow that starts a packet on any byte of room keeps up to a
 * packet more in flight than one that does not, which on a small window
 * (dsl: 6 to 10 packets) cost it 4 points of its share at the full queue
 * (tests/sim/test_sim_fair.c). With less than a packet in flight (a window
 * update after a timeout cut the window to one packet) what is left of the
 * window is enough.
 */
static inline bool
channel_window_full(const struct sst_channel *ch)
{
	uint64_t flight = ch->txlog->bytes_in_flight;

	return flight >= ch->cc.cwnd || (flight >= ch->mtu && ch->cc.cwnd - flight < ch->mtu);
}

/** Pick the next number to skip (the optimistic-ack defence). */
void channel_schedule_skip(struct sst_channel *ch);

/** Fail the channel for good and tell the upper layer (once). */
void channel_fail(struct sst_channel *ch, sst_time_t now);

/** Ask the upper layer (once) for a replacement channel. */
void channel_want_replacement(struct sst_channel *ch, sst_time_t now);

/** Which words channel_pay_acks() pays, each in an ack-only packet of its
 * own (one per upper->ack_due() call, which takes one word). */
enum channel_pay {
	/** The first at once, whatever its deadline (a flush pays a delayed
	 * ack), then while words are due by now (timers, flushes). */
	CHANNEL_PAY_DUE,
	/** While anything is owed: at a gap, a repeat still owed for an
	 * earlier gap, then the run that ends here, before the gap's packet
	 * starts a new run (a single call left that run without a word). */
	CHANNEL_PAY_ALL_OWED,
	/** While the run since the last word outgrows one word's 16 numbers:
	 * its own word, after a repeat still owed (paying only the repeat left
	 * the run's oldest packet out of the next word: test_channel_burst). */
	CHANNEL_PAY_FULL_RUN,
};

/** Pay ack words as @p what says, up to SST_ACK_WORDS_AT_ONCE, stopping
 * when the upper layer sent nothing or the channel failed. */
void channel_pay_acks(struct sst_channel *ch, sst_time_t now, enum channel_pay what);

/*
 * The last part of the sequence space: at 7/8 of it the channel asks to be
 * replaced; new data stops at 15/16, so that while the replacement is
 * negotiated and the streams move, the last sixteenth still carries what
 * only this channel can carry: acknowledgments of the peer's packets,
 * Detaches and the FINISH that closes it without TIME_WAIT.
 */
static inline uint64_t
channel_replace_point(const struct sst_channel *ch)
{
	return ch->seq_limit - ch->seq_limit / 8;
}

static inline uint64_t
channel_data_limit(const struct sst_channel *ch)
{
	return ch->seq_limit - ch->seq_limit / 16;
}

/** The time threshold of loss detection. */
sst_time_t channel_loss_delay(const struct sst_channel *ch);

/** Recompute the pacing rate after the window or the RTT changed. */
void channel_update_pacing(struct sst_channel *ch, sst_time_t now);

/** The context of the tx log's callbacks: the channel and the time of the
 * call that makes the log report (neither keeps a time of its own). */
struct channel_txlog_call {
	struct sst_channel *ch;
	sst_time_t now;
};

/** Report an event to the channel's trace, if it has one. */
static inline void
channel_trace(struct sst_channel *ch, enum sst_channel_trace_kind kind, sst_time_t now, uint64_t a,
	uint64_t b, uint64_t c)
{
	if (unlikely(ch->trace != NULL)) {
		const struct sst_channel_trace t = {.kind = kind, .now = now, .v = {a, b, c}};

		ch->trace(ch->trace_ctx, &t);
	}
}

/** Trace the window if it changed since it was last traced. */
static inline void
channel_trace_cwnd(struct sst_channel *ch, sst_time_t now)
{
	if (unlikely(ch->trace != NULL) &&
		(ch->cc.cwnd != ch->traced_cwnd || ch->cc.ssthresh != ch->traced_ssthresh)) {
		ch->traced_cwnd = ch->cc.cwnd;
		ch->traced_ssthresh = ch->cc.ssthresh;
		channel_trace(ch, SST_CHANNEL_TRACE_CWND, now, ch->cc.cwnd, ch->cc.ssthresh,
			ch->txlog->bytes_in_flight);
	}
}

/** The tx log's callbacks into the channel (ctx = a struct channel_txlog_call). */
extern const struct sst_txlog_events channel_txlog_events;

#endif /* CHANNEL_INTERNAL_H */
