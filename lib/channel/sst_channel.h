/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The SST channel layer (paper 4.2): a sequenced, acknowledged, congestion
 * controlled and armored packet service between two hosts, on which the
 * stream layer runs. A channel numbers every packet it sends with a 64-bit
 * sequence number (24 bits on the wire), piggybacks an ack word on every
 * packet, tells the upper layer exactly once per packet whether it was
 * delivered or lost, and protects every packet with the armor suite chosen
 * when it was created.
 *
 * A channel is a sans-IO state machine: it never reads a clock and never
 * touches a port. Time comes in as an argument; sealed packets go out
 * through the lower-layer callback given at creation; timers are
 * sst_channel_next_expiry() plus sst_channel_handle_expiry(). One channel
 * belongs to one thread (an engine worker); nothing in it is thread-safe.
 */
#ifndef SST_CHANNEL_H
#define SST_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "sst_crypto_driver.h"
#include "sst_mem.h"
#include "sst_time.h"

struct sst_channel;
struct sst_cc;
struct sst_cc_ops;

/**
 * The highest of our sequence numbers the 2007 prototype acknowledges on a
 * channel: it keeps received numbers in 16 bits, so past this packet its
 * acknowledgments freeze (wire-format.md 9.4). A channel to a peer that
 * may be the prototype stops numbering there (packet_limit
 * SST_CHANNEL_PROTOTYPE_SEQ_MAX + 1) and is replaced before.
 */
#define SST_CHANNEL_PROTOTYPE_SEQ_MAX UINT64_C(65535)

/**
 * A channel acknowledges ack-only packets (those its upper layer took as
 * SST_CHANNEL_RX_ACCEPT) only at every this-many-th, so that two idle peers
 * do not acknowledge each other's acknowledgments for ever (the 2007
 * prototype's policy, and ours: channel_ack.h). A sender that needs a
 * prompt answer to ack-only packets (a keepalive probe) sends this many.
 */
#define SST_CHANNEL_ACK_ONLY_EVERY 4

/** Events a channel reports besides packets. */
enum sst_channel_event {
	/** The sequence space, the key's usage limit or its integrity limit
	 * (failed opens) is running out: set up a replacement channel and
	 * migrate the streams (reported once). */
	SST_CHANNEL_EV_REPLACE = 1,
	/** The channel failed for good: the peer acknowledged a packet we
	 * never sent (an optimistic-ack attack), or the key reached its
	 * integrity limit. */
	SST_CHANNEL_EV_FAILED,
};

/** What the layer above did with a packet sst_channel_upper.receive() gave it. */
enum sst_channel_rx_verdict {
	/** Taken; nothing in it asks for a prompt acknowledgment (an ack-only packet). */
	SST_CHANNEL_RX_ACCEPT = 0,
	/** Taken, and it asks to be acknowledged promptly (stream data or control). */
	SST_CHANNEL_RX_NEEDS_ACK,
	/**
	 * Not taken: the layer above could not process or buffer it. The
	 * channel leaves it out of the replay window and the acknowledgments,
	 * as if it never arrived (paper 4.2.4: acknowledgments are definitive),
	 * so the sender sees it lost and resends its data.
	 */
	SST_CHANNEL_RX_REFUSE,
};

/** The layer above (the stream layer), called from inside channel functions. */
struct sst_channel_upper {
	/**
	 * An authenticated packet arrived. The mbuf starts at the stream
	 * header (the channel header and trailer are gone); ownership passes,
	 * whatever the verdict.
	 * @param ctx sst_channel_params.upper_ctx.
	 * @param m The packet.
	 * @param seq The sequence number it came under.
	 * @param now Current time.
	 * @return what became of the packet (enum sst_channel_rx_verdict).
	 */
	enum sst_channel_rx_verdict (*receive)(
		void *ctx, struct rte_mbuf *m, uint64_t seq, sst_time_t now);
	/* acked() and lost() must not send on the channel: they run inside
	 * the channel's own processing; queue the work and send afterwards. */
	/** The packet sent under seq (tagged cookie at send time) arrived.
	 * @param ctx sst_channel_params.upper_ctx.
	 * @param seq The sequence number of the packet.
	 * @param cookie What the sender tagged it with.
	 * @param now Current time.
	 */
	void (*acked)(void *ctx, uint64_t seq, uintptr_t cookie, sst_time_t now);
	/** The packet sent under seq is considered lost: resend its data, if any.
	 * @param ctx sst_channel_params.upper_ctx.
	 * @param seq The sequence number of the packet.
	 * @param cookie What the sender tagged it with.
	 * @param now Current time.
	 */
	void (*lost)(void *ctx, uint64_t seq, uintptr_t cookie, sst_time_t now);
	/**
	 * An acknowledgment is due and no packet is going out to carry it: send
	 * an ack-only packet now with sst_channel_send(ack_eliciting = false).
	 * @param ctx sst_channel_params.upper_ctx.
	 * @param now Current time.
	 */
	void (*ack_due)(void *ctx, sst_time_t now);
	/** Something happened to the channel (enum sst_channel_event).
	 * @param ctx sst_channel_params.upper_ctx.
	 * @param ev What happened.
	 * @param now Current time.
	 */
	void (*event)(void *ctx, enum sst_channel_event ev, sst_time_t now);
};

/** Where sealed packets go: the engine's transmit path or a simulator link. */
struct sst_channel_lower {
	/** Take n sealed packets (ownership passes).
	 * @param ctx sst_channel_params.lower_ctx.
	 * @param pkts The sealed packets, whose ownership passes.
	 * @param n Number of packets.
	 * @param now Current time.
	 */
	void (*transmit)(void *ctx, struct rte_mbuf **pkts, uint16_t n, sst_time_t now);
};

/**
 * A rewriter of the ack words a channel sends, for test and attack tools
 * only (sst-gen --attack optimistic-ack, docs/channel.md "Forging our own
 * acks"). A real endpoint never sets it: an ack word that says more than
 * what arrived is exactly what the optimistic-ack defence catches, and
 * the peer fails the channel. It sits before the armor, so a secure
 * channel's forged words are sealed (authenticated) like honest ones,
 * which an on-path rewriter cannot do. Unset (the default), the channel's
 * send path is the same code as without this facility: the rewriter is
 * put in place of the ack generator's function pointer at creation.
 */
struct sst_channel_ack_forge {
	/**
	 * Rewrite the ack word that the next packets carry, after the channel
	 * made it and before any packet carrying it is sealed; called once per
	 * word taken (a send burst, or each ack-only packet).
	 * @param ctx sst_channel_params.ack_forge_ctx.
	 * @param rx_highest The highest of the peer's numbers this channel
	 *   received (0: none yet).
	 * @param last_sent The number this channel's previous word
	 *   acknowledged, as rewritten (0: none yet): a rewriter that claims
	 *   every number in turn continues from it.
	 * @param ack_seq In: the number the honest word acknowledges; out: the
	 *   one to send (its low 24 bits go on the wire).
	 * @param ack_count In: the honest AckCt; out: the one to send (0..15,
	 *   numbers below ack_seq also acknowledged).
	 */
	void (*rewrite)(void *ctx, uint64_t rx_highest, uint64_t last_sent, uint64_t *ack_seq,
		uint8_t *ack_count);
};

/**
 * Default tx_log (sst_channel_params): 20 MB of 1232-byte packets in
 * flight, so that one channel fills 1 Gbit/s x 100 ms. The log grows to it
 * with use: 24 bytes per packet in flight, 384 KB at the most.
 */
#define SST_CHANNEL_TX_LOG_DEFAULT 16384

/** How to create a channel. Fields left zero take the defaults shown. */
struct sst_channel_params {
	uint32_t size;		     /**< sizeof(struct sst_channel_params), for future growth */
	uint8_t local_channel;	     /**< our number: byte 0 of packets sent to us, 1..255 */
	uint8_t peer_channel;	     /**< the peer's number: byte 0 of packets we send, 1..255 */
	enum sst_crypto_suite suite; /**< armor; SST_CRYPTO_NULL only in tests */
	const char *crypto_driver;   /**< NULL: the suite's preferred driver */
	struct sst_crypto_keys keys; /**< the keys (copied into the session; wipe yours) */
	const char *cc;		     /**< congestion controller name; NULL: "newreno" */
	uint32_t replay_window;	     /**< packets, power of two; 0: 32 (the prototype's) */
	uint32_t tx_log;	     /**< packets that may be outstanding, power of two; 0:
				     SST_CHANNEL_TX_LOG_DEFAULT
				     (the log's limit: it grows up to it with use) */
	uint32_t mtu;		     /**< largest channel packet (UDP payload); 0: 1232 */
	uint64_t skip_seed;   /**< secret for the unpredictable skipped numbers; 0: never skip */
	sst_time_t ack_delay; /**< delayed-ack timer; 0: 10 ms */
	/** Packets one key may protect; 0 (or more than the suite allows): the
	 * suite's packet_limit. Lower it to replace channels (and keys) sooner. */
	uint64_t packet_limit;
	/** The path's round-trip time if known (from the channel this one
	 * replaces); 0: unknown, the first retransmission timeout is 1 s. */
	sst_time_t initial_rtt;
	/**
	 * Acknowledge as the 2007 prototype does, to pose as it in interop
	 * tests (sst-cat --legacy): it records received numbers in 16 bits,
	 * so past SST_CHANNEL_PROTOTYPE_SEQ_MAX packets its acknowledgments
	 * freeze (wire-format.md 9.4). Never for real service.
	 */
	bool prototype_acks;
	struct rte_mempool *pool; /**< for trailers and AEAD output */
	/** The layer above; every callback required. The channel keeps the
	 * pointer: the table must outlive it. */
	const struct sst_channel_upper *upper;
	void *upper_ctx; /**< first argument of every upper callback */
	/** Where sealed packets go; transmit required, kept like upper. */
	const struct sst_channel_lower *lower;
	void *lower_ctx; /**< first argument of lower->transmit() */
	/** Where sst_channel_create() takes the channel and its transmit log
	 * grows (NULL: the DPDK heap, sst_mem_rte); kept like upper. */
	const struct sst_mem_ops *mem;
	/** TEST AND ATTACK TOOLS ONLY: rewrite our outgoing ack words before
	 * they are sealed (struct sst_channel_ack_forge); NULL, the default:
	 * honest acks. Kept like upper. */
	const struct sst_channel_ack_forge *ack_forge_for_testing;
	void *ack_forge_ctx; /**< first argument of ack_forge_for_testing->rewrite() */
};

/** Counters, for telemetry and tests. */
struct sst_channel_stats {
	uint64_t tx_packets;	       /**< packets sealed and handed to the lower layer */
	uint64_t tx_bytes;	       /**< their bytes */
	uint64_t tx_ack_only;	       /**< of which ack-only packets */
	uint64_t tx_skipped;	       /**< numbers skipped on purpose */
	uint64_t tx_seal_failed;       /**< no mbuf for the armor */
	uint64_t tx_unnumbered;	       /**< handed over when no number was left: reported lost */
	uint64_t rx_packets;	       /**< authenticated and delivered */
	uint64_t rx_bytes;	       /**< bytes of those packets */
	uint64_t rx_too_old;	       /**< behind the replay window */
	uint64_t rx_duplicate;	       /**< seen before (replay window) */
	uint64_t rx_bad_trailer;       /**< failed the armor */
	uint64_t rx_ack_beyond;	       /**< acked a number we have not sent yet */
	uint64_t rx_malformed;	       /**< too short, or a bad channel header */
	uint64_t rx_refused;	       /**< refused by the upper layer: not acknowledged */
	uint64_t rx_after_failure;     /**< arrived after the channel failed */
	uint64_t acked;		       /**< our packets reported delivered */
	uint64_t lost;		       /**< our packets reported lost */
	uint64_t rto;		       /**< retransmission timeouts */
	uint64_t optimistic_acks;      /**< acks of skipped numbers (fatal) */
	uint64_t tx_log_grow_failures; /**< the tx log could not grow: packets left unnumbered */
	/** Packets that carried data sent before (the upper layer resending
	 * what a lost packet held), as sst_channel_count_resent() reports them. */
	uint64_t tx_resent_packets;
	/** Payload bytes of those packets that were sent before. */
	uint64_t tx_resent_bytes;
};

/**
 * Bytes of memory a channel with these parameters needs at setup. The log
 * of packets in flight grows beyond it on the DPDK heap (up to tx_log
 * entries, as packets in flight increase) and goes with sst_channel_fini().
 * @param p Parameters.
 * @return the size, or 0 for invalid parameters with rte_errno EINVAL (a
 *   required field missing or a size out of range) or ENOENT (unknown
 *   suite, driver or congestion controller).
 */
size_t sst_channel_size(const struct sst_channel_params *p);

/**
 * Set up a channel in caller memory of sst_channel_size() bytes (aligned to
 * a cache line). The channel belongs to the calling thread.
 * @param ch The memory.
 * @param p Parameters, read during the call (upper and lower are kept).
 * @param now Current time.
 * @retval 0 Ready.
 * @retval -EINVAL Bad parameters.
 * @retval -ENOENT Unknown suite, driver or congestion controller.
 * @return Otherwise the armor driver's session_init() error.
 */
int sst_channel_init(struct sst_channel *ch, const struct sst_channel_params *p, sst_time_t now);

/** Wipe the keys and release what the channel holds. The memory stays the caller's.
 * @param ch The channel; NULL, or one finished already, is ignored. */
void sst_channel_fini(struct sst_channel *ch);

/** sst_channel_size() + memory from p->mem (the DPDK heap by default) +
 * sst_channel_init().
 * @param p Parameters, as for sst_channel_init().
 * @param now Current time.
 * @return The channel, or NULL with rte_errno set: the errors of
 *   sst_channel_size() and sst_channel_init() (positive), ENOMEM. */
struct sst_channel *sst_channel_create(const struct sst_channel_params *p, sst_time_t now);

/** sst_channel_fini() + the memory back where it came from.
 * @param ch A channel from sst_channel_create(); NULL is ignored. */
void sst_channel_destroy(struct sst_channel *ch);

/**
 * Packets sst_channel_send() can number now: the room left in the log of
 * packets in flight (tx_log) and in the sequence space, less the numbers
 * skipped on purpose; 0 once the channel failed. Packets beyond it are
 * dropped and reported lost, so an upper layer that builds many small
 * packets (control packets are not congestion controlled) stops here.
 * @param ch The channel.
 * @return That number of packets.
 */
uint32_t sst_channel_packet_room(const struct sst_channel *ch);

/**
 * Bytes the upper layer may send now under congestion control, and when
 * more may be sent if none may now.
 *
 * @param ch The channel.
 * @param now Current time.
 * @param next
 *   Set to the time pacing or the congestion window lets the next
 *   full-sized packet go (SST_TIME_NEVER: wait for acks); may be NULL.
 * @return bytes of ack-eliciting packets allowed now (0 if none): the
 *   congestion window's room, no more than the pacer lets leave back to
 *   back. A packet may start while any byte of the allowance is left, so
 *   the pacer's k packets are (k - 1) full packets and one byte.
 */
uint64_t sst_channel_send_allowance(struct sst_channel *ch, sst_time_t now, sst_time_t *next);

/**
 * Change the largest channel packet (the path MTU, e.g. after an ICMP
 * "fragmentation needed"); sst_channel_max_payload() follows. Packets
 * already sent are not resent: the upper layer re-cuts what it resends.
 * @param ch The channel.
 * @param mtu Largest channel packet (UDP payload), bytes.
 * @retval 0 Changed.
 * @retval -EINVAL Outside 64..65507, or no room for the headers.
 */
int sst_channel_set_mtu(struct sst_channel *ch, uint32_t mtu);

/** The current largest channel packet.
 * @param ch The channel.
 * @return Bytes (UDP payload). */
uint32_t sst_channel_mtu(const struct sst_channel *ch);

/** Largest stream-layer packet (stream header + payload) that fits one channel packet.
 * @param ch The channel.
 * @return Bytes. */
uint32_t sst_channel_max_payload(const struct sst_channel *ch);

/**
 * Send packets: each mbuf chain starts at the stream header. The channel
 * numbers them, adds its header and the current ack word, seals them and
 * passes them to the lower layer. Ownership of every packet passes to the
 * channel, sent or not, and every cookie ends exactly once in acked() or
 * lost(): a packet that could not be numbered (sst_channel_packet_room()
 * was exceeded, or the channel failed) is reported lost under number 0,
 * from inside this call.
 *
 * @param ch The channel.
 * @param pkts The packets.
 * @param n Packets at @p pkts.
 * @param now Current time.
 * @param cookies
 *   The upper layer's tags, handed back in acked()/lost(); may be NULL.
 * @param seqs
 *   Receives, for each packet, the sequence number it went out under, or 0
 *   if it was not sent; may be NULL.
 * @param ack_eliciting
 *   False only for ack-only packets, which do not count against the
 *   congestion window.
 * @return packets sent; the rest were dropped because the channel failed,
 *   its log or sequence space is full, or no mbuf was left for the armor
 *   (all are reported lost).
 */
uint16_t sst_channel_send(struct sst_channel *ch, struct rte_mbuf **pkts, const uintptr_t *cookies,
	uint16_t n, bool ack_eliciting, sst_time_t now, uint64_t *seqs);

/**
 * Send up to SST_MAX_BURST ack-eliciting packets on consecutive sequence
 * numbers (the fragments of one datagram, paper 4.3.5): a skipped number
 * due inside the run is moved past it. All or nothing: when the log has no
 * room for the whole run, or the channel failed, every packet is freed,
 * reported lost under number 0, and 0 returned. A packet whose armor fails
 * is reported lost like any other.
 * @param ch The channel.
 * @param pkts The packets; each is the channel's, sent or not.
 * @param cookies The upper layer's tags, as for sst_channel_send(); may be NULL.
 * @param n Packets at @p pkts, at most SST_MAX_BURST.
 * @param now Current time.
 * @param seqs As for sst_channel_send(); may be NULL.
 * @return packets sent.
 */
uint16_t sst_channel_send_contiguous(struct sst_channel *ch, struct rte_mbuf **pkts,
	const uintptr_t *cookies, uint16_t n, sst_time_t now, uint64_t *seqs);

/**
 * Process received packets addressed to this channel (byte 0 already
 * matched). Good packets go to the upper layer; the others are freed and
 * counted by reason. Every packet is the channel's after the call.
 * @param ch The channel.
 * @param pkts The packets.
 * @param n Packets at @p pkts.
 * @param now Current time.
 * @return packets delivered to the upper layer.
 */
uint16_t sst_channel_receive(
	struct sst_channel *ch, struct rte_mbuf **pkts, uint16_t n, sst_time_t now);

/** When sst_channel_handle_expiry() must next be called.
 * @param ch The channel.
 * @return The time, or SST_TIME_NEVER. */
sst_time_t sst_channel_next_expiry(const struct sst_channel *ch);

/** Run the timers due by now: delayed ack, loss detection, retransmission timeout.
 * @param ch The channel.
 * @param now Current time. */
void sst_channel_handle_expiry(struct sst_channel *ch, sst_time_t now);

/**
 * Run the loss detection and retransmission timeout due by now, and not
 * the delayed ack. An upper layer that sends right after the timers (what
 * they found lost, what its application wrote) calls this first and
 * sst_channel_handle_expiry() after sending: the packets it sent carry the
 * ack word, so no ack-only packet goes out beside them.
 * @param ch The channel.
 * @param now Current time.
 */
void sst_channel_handle_timeouts(struct sst_channel *ch, sst_time_t now);

/** The lowest sequence number the next packet sent can get (a skip may
 * make it higher).
 * @param ch The channel.
 * @return That number. */
uint64_t sst_channel_next_seq(const struct sst_channel *ch);

/** The highest sequence number received (sst_channel_info()'s rx_highest,
 * without filling in the rest: the stream layer asks at every flush).
 * @param ch The channel.
 * @return That number, 0 before any packet arrived. */
uint64_t sst_channel_rx_highest(const struct sst_channel *ch);

/** Whether the channel failed (see SST_CHANNEL_EV_FAILED).
 * @param ch The channel.
 * @return True once it failed. */
bool sst_channel_failed(const struct sst_channel *ch);

/** Counters.
 * @param ch The channel.
 * @return The channel's own counters, updated in place; valid until
 *   sst_channel_fini(). */
const struct sst_channel_stats *sst_channel_stats(const struct sst_channel *ch);

/** Read-only view of the channel's state, for tests, tools and telemetry. */
struct sst_channel_info {
	uint64_t next_seq;	     /**< number the next packet gets */
	uint64_t seq_limit;	     /**< first number this channel may not use */
	uint64_t largest_acked;	     /**< highest of our numbers the peer acked */
	uint64_t rx_highest;	     /**< highest number received */
	uint64_t bytes_in_flight;    /**< of ack-eliciting packets */
	uint32_t ack_only_in_flight; /**< ack-only packets not yet acked or lost */
	uint64_t cwnd;		     /**< congestion window, bytes */
	uint64_t ssthresh;	     /**< slow-start threshold, bytes (UINT64_MAX: none yet) */
	sst_time_t srtt;	     /**< smoothed round-trip time, ns */
	sst_time_t rto;		     /**< retransmission timeout, ns */
	uint32_t trailer_len;	     /**< bytes the armor adds to each packet */
	const char *suite;	     /**< armor suite name (static string) */
	const char *cc;		     /**< congestion controller name (static string) */
	/** RTT variation (RFC 6298 RTTVAR), in nanoseconds; 0 before the
	 * first sample. */
	sst_time_t rttvar;
	/** Packets that carried resent data (sst_channel_stats.tx_resent_packets). */
	uint64_t resent_packets;
	/** Payload bytes resent in them (sst_channel_stats.tx_resent_bytes). */
	uint64_t resent_bytes;
};

/** Fill info.
 * @param ch The channel.
 * @param info Filled in completely. */
void sst_channel_info(const struct sst_channel *ch, struct sst_channel_info *info);

/** What a channel traces (sst_channel_set_trace()). */
enum sst_channel_trace_kind {
	/** An RTT sample was taken: v[0] the sample, v[1] the smoothed RTT,
	 * v[2] the RTT variation, all in nanoseconds. */
	SST_CHANNEL_TRACE_RTT = 1,
	/** The congestion window or ssthresh changed: v[0] cwnd, v[1]
	 * ssthresh, v[2] bytes in flight. */
	SST_CHANNEL_TRACE_CWND,
	/** A packet was declared lost: v[0] its sequence number, v[1] its
	 * bytes (0 for an ack-only packet). */
	SST_CHANNEL_TRACE_LOSS,
	/** The retransmission timer expired: v[0] the timeout after backoff,
	 * in nanoseconds. */
	SST_CHANNEL_TRACE_RTO,
};

/** One traced event, valid during the trace callback only. */
struct sst_channel_trace {
	enum sst_channel_trace_kind kind; /**< what happened */
	sst_time_t now; /**< the time the channel function that traced was given */
	uint64_t v[3];	/**< by kind (enum sst_channel_trace_kind); unused ones 0 */
};

/**
 * A channel's trace callback. It runs inside channel functions, on the
 * channel's thread: it must not call the channel, and should only copy
 * the event out (an engine puts it on a ring to a writer, off the packet
 * path).
 *
 * @param ctx
 *   The context given to sst_channel_set_trace().
 * @param t
 *   The event.
 */
typedef void (*sst_channel_trace_fn)(void *ctx, const struct sst_channel_trace *t);

/**
 * Trace the channel's congestion control and loss recovery: RTT samples,
 * changes of the window, losses and timeouts go to @p fn as they happen,
 * with the time the channel was given (the channel still reads no clock
 * and does no I/O). Off by default; a channel without a trace pays one
 * test per event.
 *
 * @param ch
 *   The channel.
 * @param fn
 *   The callback; NULL turns tracing off.
 * @param ctx
 *   Passed to @p fn.
 */
void sst_channel_set_trace(struct sst_channel *ch, sst_channel_trace_fn fn, void *ctx);

/**
 * Count a packet the upper layer sends with data it sent before. The
 * channel never resends by itself (it reports losses; the stream layer
 * resends their data in new packets under new numbers), so only the upper
 * layer knows which packets are retransmissions; it tells the channel
 * here, so that the channel's counters hold them next to its losses
 * (sst_channel_stats.tx_resent_packets, sst_channel_info.resent_packets).
 * Never fails; not for the fast path of first transmissions.
 *
 * @param ch
 *   The channel the packet goes out on.
 * @param bytes
 *   Payload bytes of the packet that were sent before.
 */
void sst_channel_count_resent(struct sst_channel *ch, uint32_t bytes);

/**
 * Move the channel to another congestion controller while it runs (a
 * module its peer shipped, lib/stp): the window, ssthresh and recovery
 * state carry over (sst_cc_switch()), and the pacer takes the new
 * controller's rate. Call between events, on the channel's lcore.
 * @param ch The channel.
 * @param ops The controller; kept, so it must outlive the channel.
 * @param now Current time.
 * @retval 0 Switched.
 * @retval -EINVAL ch or ops NULL.
 */
int sst_channel_set_cc(struct sst_channel *ch, const struct sst_cc_ops *ops, sst_time_t now);

/**
 * The channel's congestion controller state, for a reader on the channel's
 * lcore that describes it (sst_cc_stp_info(): which module runs, its
 * policer). Read only; valid until the channel's next event.
 * @param ch The channel.
 * @return Its controller state.
 */
const struct sst_cc *sst_channel_cc(const struct sst_channel *ch);

/**
 * Send the acknowledgment the channel owes now (through upper->ack_due())
 * rather than at the delayed-ack deadline: before a channel is dropped
 * without FINISH (a prototype peer), so that the peer's last packets do
 * not wait for an acknowledgment that would never come.
 * @param ch The channel.
 * @param now Current time.
 */
void sst_channel_flush_ack(struct sst_channel *ch, sst_time_t now);

#endif /* SST_CHANNEL_H */
