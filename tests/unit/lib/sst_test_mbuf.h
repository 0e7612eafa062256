/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test data in mbufs: a byte pattern that depends on every bit of the stream
 * offset (so a byte delivered at the wrong offset shows), chains of mbufs
 * holding it, and a fixed-seed random stream for models and fuzz harnesses.
 */
#ifndef SST_TEST_MBUF_H
#define SST_TEST_MBUF_H

#include <stdint.h>

#include <rte_mbuf.h>

/** The pattern byte at stream offset o. */
static inline uint8_t
sst_test_pattern(uint64_t o)
{
	return (uint8_t)(o * 131 + (o >> 8) * 7 + (o >> 32) * 13 + 1);
}

/** xorshift64: the next value of a fixed-seed random stream (state != 0). */
static inline uint64_t
sst_test_xorshift(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/**
 * A chain of nseg mbufs from mp holding the pattern bytes [off, off + len):
 * len / nseg bytes in each segment but the last, which takes the rest.
 * @return the chain, or NULL (nothing kept) when the pool is empty, a
 * segment would exceed room bytes, or the chain would be too long.
 */
static inline struct rte_mbuf *
sst_test_pattern_chain(
	struct rte_mempool *mp, uint16_t room, uint64_t off, uint32_t len, unsigned int nseg)
{
	struct rte_mbuf *head = NULL;
	uint32_t done = 0;

	for (unsigned int i = 0; i < nseg; i++) {
		uint32_t n = i + 1 == nseg ? len - done : len / nseg;
		struct rte_mbuf *m = n <= room ? rte_pktmbuf_alloc(mp) : NULL;
		uint8_t *p;

		if (m == NULL || (p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)n)) == NULL) {
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(head);
			return NULL;
		}
		for (uint32_t k = 0; k < n; k++)
			p[k] = sst_test_pattern(off + done + k);
		done += n;
		if (head == NULL) {
			head = m;
		} else if (rte_pktmbuf_chain(head, m) != 0) {
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(head);
			return NULL;
		}
	}
	return head;
}

/** A test's pattern for several streams: the byte at offset off of stream
 * number `stream` (streams differ, so crossed data shows). */
typedef uint8_t sst_test_stream_pattern(int stream, uint64_t off);

/**
 * One mbuf from mp holding len bytes (at most its room) of the stream's
 * pattern from offset off. @return NULL when the pool is empty.
 */
static inline struct rte_mbuf *
sst_test_stream_chunk(struct rte_mempool *mp, sst_test_stream_pattern *pattern, int stream,
	uint64_t off, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *p;

	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	for (uint32_t j = 0; j < len; j++)
		p[j] = pattern(stream, off + j);
	return m;
}

/** How many bytes of m (every segment) differ from the stream's pattern
 * from offset off. */
static inline uint64_t
sst_test_stream_mismatches(
	const struct rte_mbuf *m, sst_test_stream_pattern *pattern, int stream, uint64_t off)
{
	uint64_t bad = 0;

	for (; m != NULL; m = m->next) {
		const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

		for (uint16_t j = 0; j < m->data_len; j++)
			bad += p[j] != pattern(stream, off++);
	}
	return bad;
}

#endif /* SST_TEST_MBUF_H */
