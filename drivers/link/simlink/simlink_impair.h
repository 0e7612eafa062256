/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The random impairments of a link: independent and Gilbert-Elliott loss,
 * jitter, reordering, duplication and corruption. Each impairment draws from
 * its own random stream, so turning one on or changing its parameters never
 * changes the pattern of another: a test that adds corruption to a lossy link
 * loses the same packets as before.
 */
#ifndef SIMLINK_IMPAIR_H
#define SIMLINK_IMPAIR_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "simlink_rng.h"
#include "sst_simlink.h"

/** The random streams, one per impairment. */
enum simlink_stream {
	SIMLINK_RNG_LOSS,
	SIMLINK_RNG_GE,
	SIMLINK_RNG_JITTER,
	SIMLINK_RNG_REORDER,
	SIMLINK_RNG_DUP,
	SIMLINK_RNG_CORRUPT,
	SIMLINK_RNG_MAX,
};

/** Impairment state and thresholds derived once from the parameters. */
struct simlink_impair {
	struct simlink_rng rng[SIMLINK_RNG_MAX];
	uint64_t loss;	     /**< threshold of independent loss */
	uint64_t ge_gb;	     /**< threshold good -> bad; 0: model off */
	uint64_t ge_bg;	     /**< threshold bad -> good */
	uint64_t ge_loss[2]; /**< loss threshold in the good [0] and bad [1] state */
	uint64_t reorder;    /**< threshold of holding a packet back */
	uint64_t duplicate;  /**< threshold of duplication */
	uint64_t corrupt;    /**< threshold of corruption */
	uint64_t jitter_ns;  /**< largest extra delay */
	uint64_t reorder_ns; /**< extra delay of a held-back packet */
	uint32_t corrupt_bits;
	uint32_t corrupt_offset;
	enum sst_simlink_jitter jitter_dist;
	bool ge_bad; /**< Gilbert-Elliott state: true in the bad state */
};

/* Seed every stream from one link seed. */
void simlink_impair_seed(struct simlink_impair *imp, uint64_t seed);

/* Derive thresholds from checked parameters; keeps the streams and GE state. */
void simlink_impair_configure(struct simlink_impair *imp, const struct sst_simlink_params *p);

/* Whether the next packet is lost (independent or Gilbert-Elliott loss). */
bool simlink_impair_lost(struct simlink_impair *imp);

/* Random extra delay of the next packet, in [0, jitter_ns]. */
uint64_t simlink_impair_jitter(struct simlink_impair *imp);

/* Whether the next packet is held back by reorder_ns. */
bool simlink_impair_reorder(struct simlink_impair *imp);

/* Whether the next packet is duplicated. */
bool simlink_impair_duplicate(struct simlink_impair *imp);

/*
 * Draw whether the packet *m is corrupted and if so flip corrupt_bits
 * distinct random bits at or beyond corrupt_offset. A shared mbuf (refcnt > 1,
 * indirect, or an external buffer with other users, in any segment) is first
 * replaced by a private copy from pool (or the packet's own pool), and this
 * reference to the original freed. Returns 1 if bits were flipped, 0 if not
 * (not drawn, or no byte beyond the offset), -ENOMEM if no copy could be
 * made (*m unchanged).
 */
int simlink_impair_corrupt(
	struct simlink_impair *imp, struct rte_mbuf **m, struct rte_mempool *pool);

#endif /* SIMLINK_IMPAIR_H */
