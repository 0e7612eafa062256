/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The contract between the channel layer and congestion controllers
 * (paper 4.2.4; STP section on congestion control modules). A controller is
 * an ops table registered by name with one callback per event. The channel
 * owns a struct sst_cc per channel; a controller keeps its private state in
 * cc->priv (at most SST_CC_PRIV_MAX bytes, checked when it registers) and
 * publishes its decisions in cc->cwnd, cc->ssthresh and cc->pacing_rate.
 *
 * Everything is counted on packet sequence numbers, which SST never reuses:
 * a retransmission is a new packet, so there is no retransmission ambiguity
 * and "the recovery point" is simply the highest sequence number sent when
 * recovery began (RFC 6582 semantics transposed from bytes to packets).
 * Sequence numbers start at 1 (0 is never sent), so recovery_seq == 0 means
 * "no recovery point yet". Windows are in bytes. Callbacks never read a
 * clock: "now" comes in the event. They must not fail, allocate or log.
 *
 * Ownership: the channel owns struct sst_cc and every field except priv;
 * it sets ops and mss (through sst_cc_init()) and only reads cwnd,
 * ssthresh, pacing_rate, in_recovery and recovery_seq. The controller
 * writes those and owns priv. The channel owns the measurements (flight,
 * RTT, loss detection, app-limited state) and passes them in the events.
 */
#ifndef SST_CC_DRIVER_H
#define SST_CC_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sst_time.h"

struct sst_cc_stp_info;

enum {
	/** Bytes of private state per channel: room for a bpf module's 256-byte
	 * scratch area, the driver's measurements and its policer (drivers/cc/bpf). */
	SST_CC_PRIV_MAX = 512,
	SST_CC_NAME_MAX = 16, /**< bytes of a controller's name, NUL included */
};

/** Per-channel congestion state the channel reads and controllers write. */
struct sst_cc {
	const struct sst_cc_ops *ops; /**< the controller (set by sst_cc_init()) */
	uint64_t cwnd;		      /**< bytes the channel may have in flight */
	uint64_t ssthresh;	      /**< slow-start threshold, bytes */
	uint64_t pacing_rate;	      /**< bytes per second; 0: the channel derives it */
	uint32_t mss;		      /**< bytes of a full-sized packet (set by the channel) */
	bool in_recovery;	      /**< inside a loss-recovery epoch */
	uint64_t recovery_seq; /**< highest seq sent when recovery or an RTO began; 0: none */
	/** The controller's private state (its priv_size bytes used). */
	uint8_t priv[SST_CC_PRIV_MAX] __attribute__((aligned(8)));
};

/** A packet left. */
struct sst_cc_sent_event {
	sst_time_t now;		  /**< when it left */
	uint64_t seq;		  /**< its sequence number */
	uint32_t bytes;		  /**< its size on the wire */
	uint64_t bytes_in_flight; /**< after this packet */
};

/** Packets were acknowledged (one event per ack word that acked something new). */
struct sst_cc_ack_event {
	sst_time_t now;		  /**< when the ack arrived */
	uint64_t largest_acked;	  /**< highest sequence number acked by this ack */
	uint32_t acked_bytes;	  /**< bytes newly acked */
	uint32_t acked_packets;	  /**< packets newly acked */
	uint64_t bytes_in_flight; /**< after removing the acked packets */
	sst_time_t rtt_sample;	  /**< of largest_acked; 0 when none */
	sst_time_t srtt;	  /**< smoothed RTT after this sample */
	sst_time_t min_rtt;	  /**< smallest RTT sample so far */
	bool app_limited;	  /**< cwnd was not filled lately (an idle period included) */
};

/** A packet was declared lost (by the 3-packet rule or the time threshold). */
struct sst_cc_loss_event {
	sst_time_t now;		  /**< when the loss was declared */
	uint64_t seq;		  /**< the lost packet */
	uint32_t bytes;		  /**< its size */
	uint64_t largest_sent;	  /**< the recovery point if this starts recovery */
	uint64_t bytes_in_flight; /**< after removing the lost packet */
};

/**
 * The retransmission timer expired. The channel calls on_rto once per
 * expiry, after its backoff bookkeeping and before it declares the
 * outstanding packets lost (those later on_loss events carry sequence
 * numbers at or below largest_sent, which the controller ignores).
 */
struct sst_cc_rto_event {
	sst_time_t now;		  /**< when the timer fired */
	uint64_t largest_sent;	  /**< highest sequence number sent so far */
	uint64_t bytes_in_flight; /**< outstanding bytes when the timer fired */
	/** No packet has been acknowledged yet (no RTT sample): the timer ran
	 * on the initial RTO and says nothing of the path's capacity (the
	 * first packets met a queue another flow filled, or were lost). */
	bool no_rtt_sample;
};

/**
 * The channel resumes sending after an idle period: nothing was in flight
 * and nothing was sent for at least one retransmission timeout (RFC 5681
 * section 4.1's restart; RFC 2861, RFC 7661). The window measured the
 * path as it was before the silence, which may have changed since.
 */
struct sst_cc_idle_event {
	sst_time_t now;	    /**< when sending resumes */
	sst_time_t idle;    /**< how long nothing was sent (>= the timeout) */
	sst_time_t rto;	    /**< the retransmission timeout the silence exceeded */
	sst_time_t srtt;    /**< smoothed RTT; 0 before the first sample */
	bool no_rtt_sample; /**< no packet was acknowledged yet */
};

/** The congestion controller interface. */
struct sst_cc_ops {
	char name[SST_CC_NAME_MAX]; /**< unique, NUL-terminated, no ':' */
	uint16_t priv_size;	    /**< <= SST_CC_PRIV_MAX */

	/** Set the initial window (cc->mss is set).
	 * @param cc The flow's controller state.
	 * @param now Current time.
	 */
	void (*init)(struct sst_cc *cc, sst_time_t now);
	/** A packet carrying data or acks was sent.
	 * @param cc The flow's controller state.
	 * @param ev The packet sent.
	 */
	void (*on_sent)(struct sst_cc *cc, const struct sst_cc_sent_event *ev);
	/** New packets were acknowledged.
	 * @param cc The flow's controller state.
	 * @param ev What was acknowledged.
	 */
	void (*on_ack)(struct sst_cc *cc, const struct sst_cc_ack_event *ev);
	/** A packet was lost; the controller decides whether this starts recovery.
	 * @param cc The flow's controller state.
	 * @param ev The packet lost.
	 */
	void (*on_loss)(struct sst_cc *cc, const struct sst_cc_loss_event *ev);
	/** The retransmission timer expired (after backoff bookkeeping).
	 * @param cc The flow's controller state.
	 * @param ev The timeout.
	 */
	void (*on_rto)(struct sst_cc *cc, const struct sst_cc_rto_event *ev);
	/** Optional (NULL: the window survives the silence): sending resumes
	 * after an idle period. Rare, so the channel checks for NULL.
	 * @param cc The flow's controller state.
	 * @param ev The idle period.
	 */
	void (*on_idle)(struct sst_cc *cc, const struct sst_cc_idle_event *ev);
	/** Optional (NULL for built-in controllers): what an untrusted module
	 * running on this channel is, for telemetry (sst_cc_stp.h).
	 * @param cc The flow's controller state.
	 * @param info Filled in.
	 * @return 0, or -ENOTSUP. */
	int (*stp_info)(const struct sst_cc *cc, struct sst_cc_stp_info *info);
};

/** Controllers the registry holds at most. */
#define SST_CC_REGISTRY_MAX 16

/**
 * Register a controller (drivers call this from an RTE_INIT constructor).
 * The registry keeps the pointer, so @p ops must have static storage.
 * Registration is control-plane work and not thread-safe: constructors, or
 * the main lcore before workers start.
 * @param ops The controller; every op required.
 * @return 0, -EINVAL (NULL ops, missing op, empty or unterminated name,
 * priv_size too large, a ':' in the name), -EEXIST (name taken), -ENOSPC (registry full).
 */
int sst_cc_register(const struct sst_cc_ops *ops);

/** Find a controller by name, or load one through a loader.
 * @param name A registered controller's name, or "PREFIX:ARG".
 * @return ops, or NULL (unknown, or the loader failed). */
const struct sst_cc_ops *sst_cc_find(const char *name);

/**
 * A loader makes controllers on demand from names "PREFIX:ARG" that no
 * registered controller has (drivers/cc/bpf loads "bpf:FILE.o"). It is
 * called by sst_cc_find() with ARG, possibly from several lcores at once;
 * the ops it returns must stay valid for the life of the process.
 * @return ops, or NULL with a reason in @p err (when @p errlen > 0).
 * @param arg What follows "PREFIX:" in the name.
 * @param err Where to write why it failed.
 * @param errlen Bytes of @p err (0: no reason wanted).
 */
typedef const struct sst_cc_ops *(*sst_cc_loader_t)(const char *arg, char *err, size_t errlen);

/** Loaders the registry holds at most, and the longest prefix. */
#define SST_CC_LOADER_MAX 4
#define SST_CC_PREFIX_MAX 8 /**< see SST_CC_LOADER_MAX */

/**
 * Register a loader for names "PREFIX:ARG" (from constructors, like
 * sst_cc_register()). @p prefix must have static storage.
 * @param prefix The PREFIX of the names it resolves.
 * @param load The loader.
 * @return 0, -EINVAL (NULL, empty, too long or containing ':'), -EEXIST
 * (prefix taken), -ENOSPC (registry full).
 */
int sst_cc_register_loader(const char *prefix, sst_cc_loader_t load);

/**
 * sst_cc_find() that says why a name does not resolve.
 * @param name
 *   A registered controller's name, or "PREFIX:ARG" for a loader.
 * @param err
 *   Receives the reason on failure ("unknown controller", or the
 *   loader's); may be NULL when @p errlen is 0.
 * @param errlen
 *   Size of @p err.
 * @return ops, or NULL.
 */
const struct sst_cc_ops *sst_cc_resolve(const char *name, char *err, size_t errlen);

/** The default controller ("newreno"). */
#define SST_CC_DEFAULT "newreno"

/**
 * Attach a controller to a channel's state and initialise it: clears the
 * state (priv included), sets ops and mss, cwnd to sst_cc_initial_window(),
 * ssthresh to UINT64_MAX (slow start until the first loss), then calls
 * ops->init, which may change any of them.
 * @param cc The channel's state.
 * @param ops The controller; kept, so it must outlive @p cc.
 * @param mss Bytes of a full-sized packet.
 * @param now Current time.
 * @return 0 or -EINVAL (NULL cc or ops, mss 0).
 */
int sst_cc_init(struct sst_cc *cc, const struct sst_cc_ops *ops, uint32_t mss, sst_time_t now);

/**
 * Move a live channel to another controller (a module a peer shipped, or
 * the fallback when a module is revoked): the window, ssthresh and the
 * recovery state carry over, so what is in flight stays accounted; the
 * private state and the pacing rate are the new controller's (priv is
 * cleared and ops->init runs, then the carried fields are put back).
 * Control plane, on the lcore that owns the channel, between events.
 * @param cc The channel's state.
 * @param ops The new controller; kept, so it must outlive @p cc.
 * @param now Current time.
 * @return 0 or -EINVAL (NULL cc or ops, cc not initialised).
 */
int sst_cc_switch(struct sst_cc *cc, const struct sst_cc_ops *ops, sst_time_t now);

/** Initial window of RFC 6928 / RFC 5681 for a given MSS.
 * @param mss Bytes of a full-sized packet.
 * @return min(10 mss, max(14600, 2 mss)) bytes. */
static inline uint64_t
sst_cc_initial_window(uint32_t mss)
{
	uint64_t iw = 10 * (uint64_t)mss;
	uint64_t cap = 14600 > 2 * (uint64_t)mss ? 14600 : 2 * (uint64_t)mss;

	return iw < cap ? iw : cap;
}

/**
 * The smallest window a controller may set: two packets (the prototype's
 * CWND_MIN). The one-packet loss window after a timeout is the exception.
 * @param mss Bytes of a full-sized packet.
 * @return 2 mss bytes.
 */
static inline uint64_t
sst_cc_min_window(uint32_t mss)
{
	return 2 * (uint64_t)mss;
}

/**
 * a * b / c rounded down, without intermediate overflow, saturating at
 * UINT64_MAX. For controllers that scale windows by ratios (acked/cwnd,
 * cwnd/srtt). Uses the 128-bit integers GCC and Clang provide on every
 * 64-bit target DPDK supports.
 * @param a A factor.
 * @param b The other.
 * @param c The divisor; must not be 0.
 * @return The quotient, or UINT64_MAX when it does not fit.
 */
static inline uint64_t
sst_cc_mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	__extension__ typedef unsigned __int128 sst_u128;
	sst_u128 q = (sst_u128)a * b / c;

	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

#endif /* SST_CC_DRIVER_H */
