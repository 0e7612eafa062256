/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A datagram link for engine tests that wraps another one (a simpair, a
 * udpsock) and shows the test every datagram that passes, each way, in the
 * order the worker hands them over or takes them, with the choice to drop
 * it or to rewrite it: where a test checks rules of wire order (nothing of
 * a channel before its negotiation reply), makes some of a peer's packets
 * vanish or changes what they say. Closing
 * the tap closes the link it wraps. Call sst_test_tap_register() once.
 */
#ifndef SST_TEST_TAP_H
#define SST_TEST_TAP_H

#include <errno.h>
#include <stdbool.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "sst_link.h"

/** What the test sees: @p tx true for a datagram the worker sends, false
 * for one it receives; @p peer is where it goes or comes from. The test
 * may rewrite @p m in place. @return true to drop it. */
typedef bool sst_test_tap_fn(
	void *ctx, bool tx, struct rte_mbuf *m, const struct sst_net_endpoint *peer);

/** driver_conf of a "test_tap" link. */
struct sst_test_tap_conf {
	struct sst_link *inner; /**< taken over: closed with the tap */
	sst_test_tap_fn *fn;
	void *ctx;
};

struct sst_test_tap {
	struct sst_test_tap_conf c;
	struct sst_link_stats *stats;
};

static inline int
sst_test_tap_open(void *priv, const struct sst_link_conf *conf, struct sst_link_stats *stats)
{
	struct sst_test_tap *t = priv;

	t->c = *(const struct sst_test_tap_conf *)conf->driver_conf;
	t->stats = stats;
	return t->c.inner != NULL ? 0 : -EINVAL;
}

static inline uint16_t
sst_test_tap_rx(void *priv, struct rte_mbuf **pkts, struct sst_net_endpoint *from, uint16_t n)
{
	struct sst_test_tap *t = priv;
	uint16_t got = sst_link_rx_burst(t->c.inner, pkts, from, n), kept = 0;

	for (uint16_t i = 0; i < got; i++) {
		if (t->c.fn(t->c.ctx, false, pkts[i], &from[i])) {
			rte_pktmbuf_free(pkts[i]);
			continue;
		}
		pkts[kept] = pkts[i];
		from[kept] = from[i];
		kept++;
	}
	t->stats->rx_packets += kept;
	return kept;
}

static inline uint16_t
sst_test_tap_tx(void *priv, struct rte_mbuf **pkts, const struct sst_net_endpoint *to, uint16_t n)
{
	struct sst_test_tap *t = priv;
	uint16_t sent = 0;

	for (uint16_t i = 0; i < n; i++) {
		if (t->c.fn(t->c.ctx, true, pkts[i], &to[i])) {
			rte_pktmbuf_free(pkts[i]);
			continue;
		}
		/* One at a time: the order the worker gave stays the order sent. */
		sent += sst_link_tx_burst(t->c.inner, &pkts[i], &to[i], 1);
	}
	t->stats->tx_packets += sent;
	return sent;
}

static inline int
sst_test_tap_local(void *priv, struct sst_net_endpoint *ep)
{
	struct sst_test_tap *t = priv;

	return sst_link_local(t->c.inner, ep);
}

static inline void
sst_test_tap_close(void *priv)
{
	struct sst_test_tap *t = priv;

	sst_link_close(t->c.inner);
}

static const struct sst_link_ops sst_test_tap_ops = {
	.name = "test_tap",
	.kind = SST_LINK_DATAGRAMS,
	.priv_size = sizeof(struct sst_test_tap),
	.open = sst_test_tap_open,
	.rx_burst = sst_test_tap_rx,
	.tx_burst = sst_test_tap_tx,
	.local = sst_test_tap_local,
	.close = sst_test_tap_close,
};

static inline int
sst_test_tap_register(void)
{
	int rc = sst_link_register(&sst_test_tap_ops);

	return rc == -EEXIST ? 0 : rc;
}

/** A tap around @p inner (NULL: it failed; inner is closed then). */
static inline struct sst_link *
sst_test_tap_open_link(
	struct sst_link *inner, struct rte_mempool *pool, sst_test_tap_fn *fn, void *ctx)
{
	struct sst_test_tap_conf tc = {.inner = inner, .fn = fn, .ctx = ctx};
	struct sst_link_conf lc = {
		.size = sizeof(lc), .driver = "test_tap", .pool = pool, .driver_conf = &tc};
	struct sst_link *l = inner != NULL ? sst_link_open(&lc) : NULL;

	if (l == NULL)
		sst_link_close(inner);
	return l;
}

#endif /* SST_TEST_TAP_H */
