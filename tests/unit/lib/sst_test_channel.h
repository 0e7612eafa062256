/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A stand-in for the stream layer in channel tests, fuzz targets and
 * benchmarks, until the stream layer exists: the ack-only packet it sends
 * when the channel calls ack_due() is the prototype's SST Ack packet on SID 1
 * with window byte 0x10 (as in the captures), and any other packet counts as
 * ack-eliciting.
 */
#ifndef SST_TEST_CHANNEL_H
#define SST_TEST_CHANNEL_H

#include <stdbool.h>
#include <string.h>

#include <rte_mbuf.h>

#include "sst_channel.h"

/** The stream-layer bytes of an ack-only packet: SID 1, type Ack, window 0x10. */
static const uint8_t sst_test_ack_only[4] = {0x00, 0x01, 0x50, 0x10};

/** Whether a packet the channel delivered is the stand-in ack-only packet. */
static inline bool
sst_test_is_ack_only(const struct rte_mbuf *m)
{
	uint8_t buf[sizeof(sst_test_ack_only)];
	const void *p;

	if (rte_pktmbuf_pkt_len(m) != sizeof(sst_test_ack_only))
		return false;
	p = rte_pktmbuf_read(m, 0, sizeof(buf), buf);
	return p != NULL && memcmp(p, sst_test_ack_only, sizeof(buf)) == 0;
}

/** Answer ack_due(): send one ack-only packet (nothing if the pool is empty). */
static inline void
sst_test_send_ack_only(struct sst_channel *ch, struct rte_mempool *mp, sst_time_t now)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

	if (m == NULL)
		return;
	memcpy(rte_pktmbuf_append(m, sizeof(sst_test_ack_only)), sst_test_ack_only,
		sizeof(sst_test_ack_only));
	sst_channel_send(ch, &m, NULL, 1, false, now, NULL);
}

#endif /* SST_TEST_CHANNEL_H */
