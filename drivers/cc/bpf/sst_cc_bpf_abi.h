/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The ABI between the bpf congestion-control driver and a module (STP's
 * "transport upgrade", docs/stp.md). A module is an eBPF ELF object built
 * with `clang -target bpf -mcpu=v2 -O2 -c`; this header is all it
 * includes. Each entry point is one function in its own section (below),
 * called with r1 = a pointer to struct sst_cc_bpf_ctx, which the driver
 * fills before the call and reads back after it. The function returns the
 * new congestion window in bytes; the driver clamps it to
 * [mss, SST_CC_BPF_CWND_MAX].
 *
 * The context has one fixed layout per ABI version: fields are only ever
 * appended in the reserved words, and a module declares the version it
 * was built for with SST_CC_BPF_MODULE, which the loader checks: a host
 * runs modules of its version and every earlier one (an earlier module
 * sees the fields it knows, the later ones zero, and is never called for
 * an event its version did not have), and refuses later ones.
 *
 * Version 2 added the flags word (SST_CC_BPF_F_NO_RTT_SAMPLE), idle_time
 * and the on_idle entry point.
 */
#ifndef SST_CC_BPF_ABI_H
#define SST_CC_BPF_ABI_H

#ifdef __bpf__
/* The BPF target has no libc headers; the compiler's own types suffice. */
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
#else
#include <stdint.h>
#endif

/** The ABI version this header describes. */
#define SST_CC_BPF_ABI_VERSION 2
/** The oldest ABI version a host of this version still runs. */
#define SST_CC_BPF_ABI_OLDEST 1
#define SST_CC_BPF_SCRATCH 256		 /**< bytes of private state kept across calls */
#define SST_CC_BPF_CWND_MAX (1ULL << 30) /**< the largest window a module may set */
#define SST_CC_BPF_MAX_INSNS 4096	 /**< instructions per entry point, at most */

/* Entry points, one ELF section each. on_ack, on_loss and on_rto are
 * mandatory; init, on_sent and on_idle are optional (absent, nothing runs). */
#define SST_CC_BPF_SEC_INIT "sst_cc/init"    /**< init: optional */
#define SST_CC_BPF_SEC_SENT "sst_cc/on_sent" /**< a packet was sent: optional */
#define SST_CC_BPF_SEC_ACK "sst_cc/on_ack"   /**< packets were acknowledged */
#define SST_CC_BPF_SEC_LOSS "sst_cc/on_loss" /**< a packet was declared lost */
#define SST_CC_BPF_SEC_RTO "sst_cc/on_rto"   /**< a retransmission timeout */
#define SST_CC_BPF_SEC_IDLE "sst_cc/on_idle" /**< sending resumes after idle: optional, v2 */
/** A 4-byte little-endian word holding SST_CC_BPF_ABI_VERSION. */
#define SST_CC_BPF_SEC_ABI "sst_cc_abi"

/** What the call is for (sst_cc_bpf_ctx.event). */
enum sst_cc_bpf_event {
	SST_CC_BPF_EV_INIT = 0,	 /**< init */
	SST_CC_BPF_EV_SENT = 1,	 /**< on_sent */
	SST_CC_BPF_EV_ACK = 2,	 /**< on_ack */
	SST_CC_BPF_EV_LOSS = 3,	 /**< on_loss */
	SST_CC_BPF_EV_RTO = 4,	 /**< on_rto */
	SST_CC_BPF_EV_IDLE = 5,	 /**< on_idle (ABI version 2) */
	SST_CC_BPF_EV_COUNT = 6, /**< number of events */
};

/** sst_cc_bpf_ctx.flags (ABI version 2). */
enum sst_cc_bpf_flag {
	/** rto, idle: no packet of the channel was acknowledged yet, so there
	 * is no RTT sample: a timeout ran on the initial RTO and says
	 * nothing of the path (native NewReno and CUBIC keep ssthresh). */
	SST_CC_BPF_F_NO_RTT_SAMPLE = 1,
};

/**
 * The context of one call. Times are nanoseconds, sizes bytes, rates bytes
 * per second. Inputs are what the channel measured; writes to them are
 * ignored. The in/out fields carry the controller's state: the driver
 * copies back ssthresh, pacing_rate (0: the channel derives the rate from
 * the window; otherwise clamped to [mss, SST_CC_BPF_RATE_MAX]),
 * recovery_seq, in_recovery and the scratch area, and takes the window
 * from the return value. cwnd >= mss >= 1 on every call, which the
 * verifier knows (a division by either is accepted).
 */
struct sst_cc_bpf_ctx {
	/* Inputs. */
	uint32_t abi_version;	  /**< 0: SST_CC_BPF_ABI_VERSION */
	uint32_t event;		  /**< 4: enum sst_cc_bpf_event */
	uint64_t now;		  /**< 8: time of the event, ns */
	uint32_t mss;		  /**< 16: bytes of a full-sized packet, >= 1 */
	uint32_t app_limited;	  /**< 20: ack: the window was not filled lately */
	uint64_t srtt;		  /**< 24: 0 before the first sample */
	uint64_t rttvar;	  /**< 32: RFC 6298 estimate over the acks' samples */
	uint64_t min_rtt;	  /**< 40: smallest RTT sample so far; 0 before the first */
	uint64_t rtt_sample;	  /**< 48: ack: of the largest acked packet; 0 when none */
	uint64_t bytes_in_flight; /**< 56: after the event */
	uint64_t delivery_rate;	  /**< 64: bytes acked per second over the last srtt */
	uint64_t losses;	  /**< 72: packets declared lost so far (loss events) */
	uint64_t timeouts;	  /**< 80: retransmission timeouts so far */
	uint64_t seq;		  /**< 88: ack: largest acked; sent, loss: the packet */
	uint64_t largest_sent;	  /**< 96: loss, rto: highest sequence number sent */
	uint64_t bytes_acked;	  /**< 104: ack: bytes newly acked */
	uint64_t packets_acked;	  /**< 112: ack: packets newly acked */
	uint64_t pkt_bytes;	  /**< 120: sent, loss: the packet's size */
	/* In/out. */
	uint64_t cwnd;	       /**< 128: the window before the call (out: return it) */
	uint64_t ssthresh;     /**< 136: UINT64_MAX until the first congestion event */
	uint64_t pacing_rate;  /**< 144: the pacing rate, bytes/s; 0: from the window */
	uint64_t recovery_seq; /**< 152: 0: none */
	uint64_t in_recovery;  /**< 160: 0 or 1 (any non-zero reads back as 1) */
	/* Inputs of version 2 (zero for a version 1 module). */
	uint32_t flags;	      /**< 168: enum sst_cc_bpf_flag */
	uint32_t reserved0;   /**< 172: zero */
	uint64_t idle_time;   /**< 176: idle: how long nothing was sent, ns */
	uint64_t reserved[1]; /**< 184: zero; later versions append here */
	/** 192: the module's private state, kept across calls */
	uint8_t scratch[SST_CC_BPF_SCRATCH] __attribute__((aligned(8)));
};

#define SST_CC_BPF_RATE_MAX 12500000000ULL /**< the largest pacing rate (100 Gbit/s), bytes/s */

#ifdef __bpf__
#define SST_CC_BPF_SEC(name) __attribute__((section(name), used))
/* Declares the ABI version the module was built for (once per module). */
#define SST_CC_BPF_MODULE                                                      \
	const uint32_t sst_cc_abi_version SST_CC_BPF_SEC(SST_CC_BPF_SEC_ABI) = \
		SST_CC_BPF_ABI_VERSION
#endif

#endif /* SST_CC_BPF_ABI_H */
