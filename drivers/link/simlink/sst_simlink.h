/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * simlink: one direction of an impaired network link, as a pure library.
 *
 * A link takes packets (mbufs) at a time "now" and gives them back at the
 * time the modelled network would deliver them: after the wait in a
 * tail-drop queue, the serialization at a fixed rate, the propagation delay
 * and random jitter, with random and bursty (Gilbert-Elliott) loss,
 * reordering, duplication and bit corruption. It never reads a clock: the
 * deterministic simulator (tests/sim) drives it in virtual time, and the
 * engine can drive it in real time between two ports of one process. The
 * same seed and the same calls give the same deliveries, bit for bit.
 *
 * Nothing is allocated per packet: a link holds at most `capacity` packets in
 * storage sized when it is created. Duplicates and private copies for
 * corruption come from a mempool given in the parameters.
 *
 * The exact semantics of every parameter are in docs/simulator.md.
 */
#ifndef SST_SIMLINK_H
#define SST_SIMLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "sst_time.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One direction of a simulated link (opaque). */
struct sst_simlink;

/** Most bits sst_simlink_params::corrupt_bits may ask for. */
#define SST_SIMLINK_MAX_CORRUPT_BITS 64

/** Most packets one link may hold (sst_simlink_params::capacity). */
#define SST_SIMLINK_MAX_CAPACITY (UINT32_C(1) << 24)

/** Largest delay, jitter or reorder delay accepted: one hour. */
#define SST_SIMLINK_MAX_DELAY (3600 * SST_NSEC_PER_SEC)

/** Shape of the jitter distribution. */
enum sst_simlink_jitter {
	/** Extra delay uniform in [0, jitter_ns]. */
	SST_SIMLINK_JITTER_UNIFORM = 0,
	/**
	 * Extra delay bell-shaped in [0, jitter_ns]: the mean of four uniform
	 * draws (Irwin-Hall), mean jitter_ns / 2, standard deviation about
	 * 0.144 * jitter_ns, never outside the bounds.
	 */
	SST_SIMLINK_JITTER_NORMAL = 1,
};

/**
 * Parameters of one link direction. Start from sst_simlink_params_default(),
 * which gives a perfect link (infinite rate, no delay, no impairment), and
 * set what the test needs. Probabilities are in [0, 1].
 */
struct sst_simlink_params {
	/** sizeof(struct sst_simlink_params) as the caller knows it. */
	uint32_t size;
	/** Packets the link can hold at once, queued and in flight (>= 1). */
	uint32_t capacity;
	/** Seed of the link's random streams. */
	uint64_t seed;
	/** Transmission rate in bits per second; 0: infinite (no serialization). */
	uint64_t rate_bps;
	/** Bytes added to each packet for serialization only (preamble, FCS, gap). */
	uint32_t overhead_bytes;
	/** Largest packet (rte_pktmbuf_pkt_len) carried; 0: no limit. */
	uint32_t mtu;
	/** Most packets in the queue, the one being transmitted included; 0: no limit. */
	uint32_t queue_pkts;
	/** Most bytes in the queue, the packet being transmitted included; 0: no limit. */
	uint64_t queue_bytes;
	/** Propagation delay in ns: the least time from end of transmission to delivery. */
	uint64_t delay_ns;
	/** Largest random extra delay in ns; 0: none. */
	uint64_t jitter_ns;
	/** Distribution of the extra delay. */
	enum sst_simlink_jitter jitter_dist;
	/**
	 * false (default): jitter never reorders; a packet is never delivered
	 * before the packet sent ahead of it. true: each packet keeps its own
	 * jittered time and may overtake others.
	 */
	bool jitter_reorder;
	/** Probability that a packet is lost, independently of the others. */
	double loss;
	/** Gilbert-Elliott: probability of going from the good to the bad state
	 *  after a packet; 0 disables the bursty-loss model. */
	double ge_p_good_bad;
	/** Gilbert-Elliott: probability of going from bad to good after a packet. */
	double ge_p_bad_good;
	/** Gilbert-Elliott: loss probability in the good state (default 0). */
	double ge_loss_good;
	/** Gilbert-Elliott: loss probability in the bad state (default 1). */
	double ge_loss_bad;
	/** Probability that a packet is held back by reorder_delay_ns. */
	double reorder;
	/** Extra delay of a held-back packet; later packets overtake it. */
	uint64_t reorder_delay_ns;
	/** Probability that a delivered packet is delivered twice. */
	double duplicate;
	/** Probability that a packet has bits flipped. */
	double corrupt;
	/** Bits flipped in a corrupted packet, all distinct (1..64; default 1). */
	uint32_t corrupt_bits;
	/** Bytes at the start of a packet never corrupted (e.g. the headers). */
	uint32_t corrupt_offset;
	/**
	 * Pool for duplicates and for private copies of shared mbufs before
	 * corruption; NULL: the pool of the packet being copied.
	 */
	struct rte_mempool *pool;
};

/** What became of a packet given to sst_simlink_enqueue(). */
enum sst_simlink_verdict {
	/** Accepted: the link owns the mbuf and will deliver it (or its copy). */
	SST_SIMLINK_QUEUED = 0,
	/** Longer than the MTU; the caller keeps the mbuf. */
	SST_SIMLINK_DROP_MTU,
	/** Queue limit reached (tail drop); the caller keeps the mbuf. */
	SST_SIMLINK_DROP_QUEUE,
	/** Lost on the wire (random or Gilbert-Elliott); the caller keeps the mbuf. */
	SST_SIMLINK_DROP_LOSS,
	/** The link's fixed storage (capacity) is full; the caller keeps the mbuf. */
	SST_SIMLINK_DROP_FULL,
	/** No mbuf for a private copy to corrupt; the caller keeps the mbuf. */
	SST_SIMLINK_DROP_NOMEM,
	/** Number of verdicts. */
	SST_SIMLINK_VERDICT_MAX,
};

/** Counters of one link direction. */
struct sst_simlink_stats {
	uint64_t sent;		  /**< packets given to sst_simlink_enqueue() */
	uint64_t sent_bytes;	  /**< their bytes */
	uint64_t delivered;	  /**< packets returned by sst_simlink_dequeue() */
	uint64_t delivered_bytes; /**< their bytes */
	uint64_t dropped_mtu;	  /**< SST_SIMLINK_DROP_MTU */
	uint64_t dropped_queue;	  /**< SST_SIMLINK_DROP_QUEUE */
	uint64_t dropped_loss;	  /**< SST_SIMLINK_DROP_LOSS */
	uint64_t dropped_full;	  /**< SST_SIMLINK_DROP_FULL */
	uint64_t dropped_nomem;	  /**< SST_SIMLINK_DROP_NOMEM */
	uint64_t duplicated;	  /**< extra copies put on the link */
	uint64_t dup_failed;	  /**< duplicates not made: no mbuf or no room */
	uint64_t corrupted;	  /**< packets (copies included) with bits flipped */
	uint64_t reordered;	  /**< packets held back by reorder_delay_ns */
};

/**
 * Fill parameters with the defaults: a perfect link of capacity 1024 packets
 * (infinite rate, no delay, no limit, no impairment), seed 0, corrupt_bits 1,
 * ge_loss_bad 1, and size set.
 *
 * @param p
 *   Parameters to fill.
 */
void sst_simlink_params_default(struct sst_simlink_params *p);

/**
 * Check parameters without creating a link.
 *
 * @param p
 *   Parameters.
 * @return
 *   0 if a link can be created with them; -EINVAL if p is NULL, its size is
 *   0 or larger than this library's struct, a probability is outside [0, 1]
 *   or NaN, capacity is 0 or above SST_SIMLINK_MAX_CAPACITY, queue_pkts is
 *   above capacity, a delay is above SST_SIMLINK_MAX_DELAY, jitter_dist is
 *   unknown, or corrupt is not 0 and corrupt_bits is not in 1..64.
 */
int sst_simlink_params_check(const struct sst_simlink_params *p);

/**
 * Bytes of memory a link of the given capacity needs (for sst_simlink_init()).
 *
 * @param capacity
 *   Packets the link can hold (sst_simlink_params::capacity).
 * @return
 *   The size, or 0 if capacity is 0 or above SST_SIMLINK_MAX_CAPACITY.
 */
size_t sst_simlink_size(uint32_t capacity);

/**
 * Set up a link in caller memory.
 *
 * @param mem
 *   At least sst_simlink_size(p->capacity) bytes, aligned to 8 bytes.
 * @param p
 *   Parameters (copied).
 * @return
 *   The link (at mem), or NULL with rte_errno set to EINVAL if mem is NULL or
 *   the parameters fail sst_simlink_params_check().
 */
struct sst_simlink *sst_simlink_init(void *mem, const struct sst_simlink_params *p);

/**
 * Release what a link holds: every packet still queued or in flight is freed.
 * The memory itself stays the caller's.
 *
 * @param link
 *   A link from sst_simlink_init(), or NULL (nothing done).
 */
void sst_simlink_fini(struct sst_simlink *link);

/**
 * Create a link in memory from rte_zmalloc_socket().
 *
 * @param p
 *   Parameters (copied).
 * @param socket_id
 *   NUMA socket of the memory, or SOCKET_ID_ANY.
 * @return
 *   The link, or NULL with rte_errno set: EINVAL for bad parameters, ENOMEM
 *   if the memory could not be allocated.
 */
struct sst_simlink *sst_simlink_create(const struct sst_simlink_params *p, int socket_id);

/**
 * Free a link from sst_simlink_create() and every packet it holds.
 *
 * @param link
 *   The link, or NULL (nothing done).
 */
void sst_simlink_destroy(struct sst_simlink *link);

/**
 * Change the parameters of a link in use. Packets already accepted keep the
 * times computed for them; the new parameters apply from the next
 * sst_simlink_enqueue(). The random streams are reseeded only if the seed
 * changes. The Gilbert-Elliott state is kept.
 *
 * @param link
 *   The link.
 * @param p
 *   New parameters (copied); capacity must be the link's or 0 (kept).
 * @return
 *   0; -EINVAL if link or p is NULL, the parameters fail
 *   sst_simlink_params_check(), or capacity differs from the link's.
 */
int sst_simlink_set_params(struct sst_simlink *link, const struct sst_simlink_params *p);

/**
 * Offer a packet to the link at time now. In order: the MTU check, the
 * queue limits (tail drop), the link storage, then on the wire the loss
 * models, the delivery time (serialization, delay, jitter, reordering), the
 * duplication and the corruption. Everything is decided here; a lost packet
 * has still taken its place in the queue and its transmission time.
 *
 * @param link
 *   The link.
 * @param m
 *   The packet. On SST_SIMLINK_QUEUED the link owns it (corruption may
 *   replace it by a private copy and free this reference); on any other
 *   verdict the caller keeps it, untouched.
 * @param now
 *   Current time in ns; not earlier than the previous call's (an earlier time
 *   is taken as the latest time seen).
 * @return
 *   SST_SIMLINK_QUEUED or the reason of the drop. Every verdict is counted.
 */
enum sst_simlink_verdict sst_simlink_enqueue(
	struct sst_simlink *link, struct rte_mbuf *m, sst_time_t now);

/**
 * Offer n packets at @p now: what n calls of sst_simlink_enqueue() in
 * their order would do, verdict for verdict. On a link with nothing to
 * draw, no rate and no byte limit (the loopback's default) every packet of
 * the burst gets the delivery time of the first, worked out once.
 *
 * @param link
 *   The link.
 * @param pkts
 *   The packets; ownership as for sst_simlink_enqueue(), packet by packet.
 * @param n
 *   How many.
 * @param now
 *   Current time in ns, as for sst_simlink_enqueue().
 * @param verdicts
 *   Array of n receiving each packet's verdict.
 */
void sst_simlink_enqueue_burst(struct sst_simlink *link, struct rte_mbuf **pkts, uint16_t n,
	sst_time_t now, enum sst_simlink_verdict *verdicts);

/**
 * Time of the next delivery: the earliest time at which sst_simlink_dequeue()
 * returns a packet.
 *
 * @param link
 *   The link.
 * @return
 *   The time, or SST_TIME_NEVER if the link holds no packet.
 */
sst_time_t sst_simlink_next_delivery(const struct sst_simlink *link);

/**
 * Take the packets whose delivery time has come, in delivery order (time,
 * then the order in which they were accepted).
 *
 * @param link
 *   The link.
 * @param now
 *   Current time in ns.
 * @param mbufs
 *   Array receiving up to max packets; the caller owns them.
 * @param max
 *   Size of mbufs.
 * @return
 *   Number of packets written to mbufs.
 */
uint16_t sst_simlink_dequeue(
	struct sst_simlink *link, sst_time_t now, struct rte_mbuf **mbufs, uint16_t max);

/**
 * Number of packets the link holds (accepted and not yet dequeued).
 *
 * @param link
 *   The link.
 * @return
 *   The count.
 */
uint32_t sst_simlink_count(const struct sst_simlink *link);

/**
 * Free every packet the link holds, as if they were all lost; they are not
 * counted as delivered nor dropped. Counters and random streams are kept.
 *
 * @param link
 *   The link.
 * @return
 *   Number of packets freed.
 */
uint32_t sst_simlink_flush(struct sst_simlink *link);

/**
 * Read the counters.
 *
 * @param link
 *   The link.
 * @param stats
 *   Receives a copy of the counters.
 */
void sst_simlink_stats_get(const struct sst_simlink *link, struct sst_simlink_stats *stats);

/**
 * Zero the counters.
 *
 * @param link
 *   The link.
 */
void sst_simlink_stats_reset(struct sst_simlink *link);

/**
 * Name of a verdict, for traces and test messages.
 *
 * @param v
 *   A verdict.
 * @return
 *   A static string ("queued", "mtu", "queue", "loss", "full", "nomem"), or
 *   "unknown"; never NULL.
 */
const char *sst_simlink_verdict_name(enum sst_simlink_verdict v);

#ifdef __cplusplus
}
#endif

#endif /* SST_SIMLINK_H */
