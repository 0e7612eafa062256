/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet helpers shared by the armor driver tests: build a packet from bytes
 * as one mbuf or as a chain cut at given offsets, read a packet back while
 * checking that its chain is consistent, and run a suite through its ops.
 */
#ifndef CRYPTO_TEST_UTIL_H
#define CRYPTO_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_mbuf.h>

#include "sst_crypto_driver.h"
#include "sst_test.h"

/* Session memory as the channel provides it. */
struct ct_session {
	_Alignas(SST_CRYPTO_SESSION_ALIGN) uint8_t mem[SST_CRYPTO_SESSION_MAX];
};

/* A packet of len bytes of data, cut before each offset in cuts (ascending,
 * each in [0, len]; equal offsets make empty segments). NULL if the pool ran
 * dry. */
static inline struct rte_mbuf *
ct_chain(struct rte_mempool *mp, const uint8_t *data, uint32_t len, const uint32_t *cuts,
	unsigned int ncuts)
{
	struct rte_mbuf *head = NULL;
	uint32_t start = 0;

	for (unsigned int k = 0; k <= ncuts; k++) {
		uint32_t end = k < ncuts ? cuts[k] : len;
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
		char *p;

		if (m == NULL)
			goto fail;
		p = rte_pktmbuf_append(m, (uint16_t)(end - start));
		if (p == NULL) {
			rte_pktmbuf_free(m);
			goto fail;
		}
		memcpy(p, data + start, end - start);
		if (head == NULL) {
			head = m;
		} else if (rte_pktmbuf_chain(head, m) != 0) {
			rte_pktmbuf_free(m);
			goto fail;
		}
		start = end;
	}
	return head;
fail:
	rte_pktmbuf_free(head);
	return NULL;
}

static inline struct rte_mbuf *
ct_flat(struct rte_mempool *mp, const uint8_t *data, uint32_t len)
{
	return ct_chain(mp, data, len, NULL, 0);
}

/* Copy a packet out; returns its length, or UINT32_MAX if the chain's
 * lengths or segment count disagree with its head or it does not fit. */
static inline uint32_t
ct_read(const struct rte_mbuf *m, uint8_t *buf, uint32_t cap)
{
	uint32_t total = 0;
	uint16_t segs = 0;

	for (const struct rte_mbuf *s = m; s != NULL; s = s->next) {
		if (total + s->data_len > cap)
			return UINT32_MAX;
		memcpy(buf + total, rte_pktmbuf_mtod(s, const uint8_t *), s->data_len);
		total += s->data_len;
		segs++;
	}
	if (total != m->pkt_len || segs != m->nb_segs)
		return UINT32_MAX;
	return total;
}

/* Whether a packet holds exactly the given bytes. */
static inline int
ct_equal(const struct rte_mbuf *m, const uint8_t *data, uint32_t len)
{
	uint8_t buf[4096];

	return ct_read(m, buf, sizeof(buf)) == len && memcmp(buf, data, len) == 0;
}

/* Fill buf with the test generator's bytes. */
static inline void
ct_fill(uint8_t *buf, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (uint8_t)(seed >> 16);
	}
}

#endif /* CRYPTO_TEST_UTIL_H */
