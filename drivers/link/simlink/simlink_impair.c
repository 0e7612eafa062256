/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Random impairments of one link direction. Every decision of a stream is one
 * draw made whenever the impairment is on, whatever the outcome of the other
 * impairments, so a stream's pattern depends only on its own parameters and
 * on the number of packets that reach it.
 */
#include <errno.h>

#include "simlink_impair.h"

void
simlink_impair_seed(struct simlink_impair *imp, uint64_t seed)
{
	uint64_t sm = seed;

	for (int i = 0; i < SIMLINK_RNG_MAX; i++)
		simlink_rng_seed(&imp->rng[i], &sm);
	imp->ge_bad = false;
}

void
simlink_impair_configure(struct simlink_impair *imp, const struct sst_simlink_params *p)
{
	imp->loss = simlink_prob_threshold(p->loss);
	imp->ge_gb = simlink_prob_threshold(p->ge_p_good_bad);
	imp->ge_bg = simlink_prob_threshold(p->ge_p_bad_good);
	imp->ge_loss[0] = simlink_prob_threshold(p->ge_loss_good);
	imp->ge_loss[1] = simlink_prob_threshold(p->ge_loss_bad);
	imp->reorder = simlink_prob_threshold(p->reorder);
	imp->duplicate = simlink_prob_threshold(p->duplicate);
	imp->corrupt = simlink_prob_threshold(p->corrupt);
	imp->jitter_ns = p->jitter_ns;
	imp->reorder_ns = p->reorder_delay_ns;
	imp->corrupt_bits = p->corrupt_bits;
	imp->corrupt_offset = p->corrupt_offset;
	imp->jitter_dist = p->jitter_dist;
	if (imp->ge_gb == 0)
		imp->ge_bad = false;
}

/*
 * Gilbert-Elliott model: the packet is lost with the loss probability of the
 * current state, then the state moves on (good -> bad with ge_gb, bad -> good
 * with ge_bg). A stay in the bad state thus lasts a geometric number of
 * packets of mean 1 / p(bad->good), and the long-run share of packets sent in
 * the bad state is p(good->bad) / (p(good->bad) + p(bad->good)).
 */
static bool
ge_lost(struct simlink_impair *imp)
{
	struct simlink_rng *r = &imp->rng[SIMLINK_RNG_GE];
	bool lost = simlink_rng_chance(r, imp->ge_loss[imp->ge_bad]);

	if (imp->ge_bad)
		imp->ge_bad = !simlink_rng_chance(r, imp->ge_bg);
	else
		imp->ge_bad = simlink_rng_chance(r, imp->ge_gb);
	return lost;
}

bool
simlink_impair_lost(struct simlink_impair *imp)
{
	bool lost = false;

	if (imp->loss != 0)
		lost = simlink_rng_chance(&imp->rng[SIMLINK_RNG_LOSS], imp->loss);
	if (imp->ge_gb != 0)
		lost = ge_lost(imp) || lost;
	return lost;
}

uint64_t
simlink_impair_jitter(struct simlink_impair *imp)
{
	struct simlink_rng *r = &imp->rng[SIMLINK_RNG_JITTER];
	uint64_t sum = 0;

	if (imp->jitter_ns == 0)
		return 0;
	if (imp->jitter_dist == SST_SIMLINK_JITTER_UNIFORM)
		return simlink_rng_below(r, imp->jitter_ns + 1);
	/* Irwin-Hall with four terms: bell-shaped, bounded by construction. */
	for (int i = 0; i < 4; i++)
		sum += simlink_rng_below(r, imp->jitter_ns + 1);
	return sum / 4;
}

bool
simlink_impair_reorder(struct simlink_impair *imp)
{
	return imp->reorder != 0 &&
	       simlink_rng_chance(&imp->rng[SIMLINK_RNG_REORDER], imp->reorder);
}

bool
simlink_impair_duplicate(struct simlink_impair *imp)
{
	return imp->duplicate != 0 &&
	       simlink_rng_chance(&imp->rng[SIMLINK_RNG_DUP], imp->duplicate);
}

/* Whether writing into any segment of m would change data someone else sees. */
static bool
mbuf_shared(const struct rte_mbuf *m)
{
	for (const struct rte_mbuf *seg = m; seg != NULL; seg = seg->next) {
		if (RTE_MBUF_CLONED(seg) || rte_mbuf_refcnt_read(seg) > 1)
			return true;
		if (RTE_MBUF_HAS_EXTBUF(seg) && rte_mbuf_ext_refcnt_read(seg->shinfo) > 1)
			return true;
	}
	return false;
}

/* Flip bit `bit` (counted from the first data byte of the packet). */
static void
flip_bit(struct rte_mbuf *m, uint64_t bit)
{
	uint64_t off = bit / 8;
	struct rte_mbuf *seg = m;

	while (off >= seg->data_len) {
		off -= seg->data_len;
		seg = seg->next;
	}
	*rte_pktmbuf_mtod_offset(seg, uint8_t *, off) ^= (uint8_t)(1u << (bit % 8));
}

int
simlink_impair_corrupt(struct simlink_impair *imp, struct rte_mbuf **mp, struct rte_mempool *pool)
{
	struct simlink_rng *r = &imp->rng[SIMLINK_RNG_CORRUPT];
	uint64_t chosen[SST_SIMLINK_MAX_CORRUPT_BITS];
	struct rte_mbuf *m = *mp;
	uint64_t first, region;
	uint32_t n;

	if (imp->corrupt == 0 || !simlink_rng_chance(r, imp->corrupt))
		return 0;
	if (rte_pktmbuf_pkt_len(m) <= imp->corrupt_offset)
		return 0;
	if (mbuf_shared(m)) {
		struct rte_mbuf *copy =
			rte_pktmbuf_copy(m, pool != NULL ? pool : m->pool, 0, UINT32_MAX);

		if (copy == NULL)
			return -ENOMEM;
		rte_pktmbuf_free(m);
		*mp = m = copy;
	}
	first = (uint64_t)imp->corrupt_offset * 8;
	region = (uint64_t)rte_pktmbuf_pkt_len(m) * 8 - first;
	if (region <= imp->corrupt_bits) {
		for (uint64_t b = 0; b < region; b++)
			flip_bit(m, first + b);
		return 1;
	}
	/* Distinct positions, so that no flip undoes another. */
	n = 0;
	while (n < imp->corrupt_bits) {
		uint64_t bit = first + simlink_rng_below(r, region);
		uint32_t i;

		for (i = 0; i < n && chosen[i] != bit; i++)
			;
		if (i < n)
			continue;
		chosen[n++] = bit;
		flip_bit(m, bit);
	}
	return 1;
}
