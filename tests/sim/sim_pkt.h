/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Numbered packets for the link model's tests (test_sim_link.c,
 * test_sim_link_ring.c): a packet says which it is, and its bytes say
 * whether the link changed them.
 */
#ifndef SIM_PKT_H
#define SIM_PKT_H

#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>

#include "sst_test_eal.h"

/* A packet of len bytes from mp; byte i is (seq + i) & 0xff, seq stored in
 * bytes 0-3. */
static inline struct rte_mbuf *
sim_pkt(struct rte_mempool *mp, uint32_t len, uint32_t seq)
{
	struct rte_mbuf *m = sst_test_mbuf_of_len(mp, len);
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);

	for (uint32_t i = 0; i < len; i++)
		d[i] = (uint8_t)(seq + i);
	if (len >= 4)
		memcpy(d, &seq, 4);
	return m;
}

/* The number sim_pkt() stored. */
static inline uint32_t
sim_pkt_seq(const struct rte_mbuf *m)
{
	uint32_t seq;

	memcpy(&seq, rte_pktmbuf_mtod(m, const void *), 4);
	return seq;
}

#endif /* SIM_PKT_H */
