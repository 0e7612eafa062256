/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Random data laid out as mbuf chains cut at random points, for the
 * differential tests of the checksum implementations: the segments are
 * struct rte_mbuf laid out by hand over caller memory (only buf_addr,
 * data_off, data_len, next and the head's pkt_len and nb_segs are set), so
 * the tests need no EAL and no pool.
 */
#ifndef SST_TEST_SPLIT_H
#define SST_TEST_SPLIT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_mbuf.h>

#include "sst_test_mbuf.h"

enum {
	SST_TEST_SPLIT_SEGS = 8,      /**< most segments in a chain */
	SST_TEST_SPLIT_ALIGN = 64,    /**< segments start at 0..63 bytes into their slot */
	SST_TEST_SPLIT_MAX = 4096,    /**< longest random chain */
	SST_TEST_SPLIT_ROUNDS = 3000, /**< random chains per test */
};

/* The sanitizer builds run unoptimised with every access checked: there,
 * sweeps over alignments take every ninth (0, 9, ..., 63: each residue
 * modulo 4, odd and even, inside and across cache lines) to stay within a
 * second or two. */
#ifdef __SANITIZE_ADDRESS__
#define SST_TEST_SPLIT_ALIGN_STEP 9
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SST_TEST_SPLIT_ALIGN_STEP 9
#endif
#endif
#ifndef SST_TEST_SPLIT_ALIGN_STEP
#define SST_TEST_SPLIT_ALIGN_STEP 1
#endif

/** Count one more mismatch (returns bad + 1); print the first five. */
static inline unsigned int
sst_test_split_mismatch(unsigned int bad, const char *what, const char *impl, size_t len, size_t at)
{
	if (bad < 5)
		fprintf(stderr, "  %s: %s differs from the reference at length %zu (%zu)\n", what,
			impl, len, at);
	return bad + 1;
}

/** Fill p with n bytes of the xorshift stream *rng. */
static inline void
sst_test_random_fill(uint8_t *p, size_t n, uint64_t *rng)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)sst_test_xorshift(rng);
}

/**
 * Copy flat[0, total) into a chain of 1..SST_TEST_SPLIT_SEGS segments
 * cut at random points (equal cuts give empty segments), segment s at a
 * random offset below SST_TEST_SPLIT_ALIGN into store + s * slot.
 * Precondition: slot >= total + SST_TEST_SPLIT_ALIGN, store holds
 * SST_TEST_SPLIT_SEGS slots, segs SST_TEST_SPLIT_SEGS mbufs.
 * @return the head, segs.
 */
static inline struct rte_mbuf *
sst_test_split_chain(struct rte_mbuf *segs, uint8_t *store, size_t slot, const uint8_t *flat,
	uint32_t total, uint64_t *rng)
{
	unsigned int nseg = 1 + (unsigned int)(sst_test_xorshift(rng) % SST_TEST_SPLIT_SEGS);
	uint32_t cut[SST_TEST_SPLIT_SEGS + 1];

	cut[0] = 0;
	cut[nseg] = total;
	for (unsigned int s = 1; s < nseg; s++)
		cut[s] = (uint32_t)(sst_test_xorshift(rng) % (total + 1));
	/* Insertion sort of the inner cuts. */
	for (unsigned int s = 2; s < nseg; s++)
		for (unsigned int t = s; t > 1 && cut[t - 1] > cut[t]; t--) {
			uint32_t x = cut[t];

			cut[t] = cut[t - 1];
			cut[t - 1] = x;
		}
	memset(segs, 0, SST_TEST_SPLIT_SEGS * sizeof(*segs));
	for (unsigned int s = 0; s < nseg; s++) {
		uint8_t *at = store + s * slot + sst_test_xorshift(rng) % SST_TEST_SPLIT_ALIGN;

		memcpy(at, flat + cut[s], cut[s + 1] - cut[s]);
		segs[s].buf_addr = at;
		segs[s].data_len = (uint16_t)(cut[s + 1] - cut[s]);
		segs[s].next = s + 1 < nseg ? &segs[s + 1] : NULL;
	}
	segs[0].nb_segs = (uint16_t)nseg;
	segs[0].pkt_len = total;
	return segs;
}

/** One random packet of a differential test: flat and as a chain. */
struct sst_test_split {
	uint8_t flat[SST_TEST_SPLIT_MAX];
	uint8_t store[SST_TEST_SPLIT_SEGS * (SST_TEST_SPLIT_MAX + SST_TEST_SPLIT_ALIGN)];
	struct rte_mbuf segs[SST_TEST_SPLIT_SEGS];
	uint32_t total; /**< bytes in flat and in the chain */
};

/**
 * The packet of round r: mostly packet sizes (0..1500 bytes), every fourth
 * up to SST_TEST_SPLIT_MAX; random bytes, every sixteenth all 0xff (the
 * largest sums); cut by sst_test_split_chain().
 * @return the chain's head.
 */
static inline struct rte_mbuf *
sst_test_split_next(struct sst_test_split *t, unsigned int r, uint64_t *rng)
{
	t->total = (uint32_t)(sst_test_xorshift(rng) % (r % 4 ? 1501 : SST_TEST_SPLIT_MAX + 1));
	sst_test_random_fill(t->flat, t->total, rng);
	if (r % 16 == 0)
		memset(t->flat, 0xff, t->total);
	return sst_test_split_chain(t->segs, t->store, SST_TEST_SPLIT_MAX + SST_TEST_SPLIT_ALIGN,
		t->flat, t->total, rng);
}

#endif /* SST_TEST_SPLIT_H */
