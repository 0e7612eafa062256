/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * simpair (sst_simpair.h): a datagram link driver over two simlink models.
 * Sending enqueues into the model toward the other side at the current
 * time; receiving dequeues what the model delivers by now. This driver,
 * being the engine's side, reads the clock (or the caller's).
 */
#include <errno.h>
#include <time.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "sst_burst.h"
#include "sst_simpair.h"

struct sst_simpair {
	struct sst_simlink *dir[2]; /**< dir[s]: what side s sends */
	struct sst_net_endpoint ep[2];
	sst_time_t (*clock)(void *ctx);
	void *clock_ctx;
};

struct simpair_link {
	struct sst_simpair *pair;
	int side;
	struct sst_link_stats *stats;
};

static sst_time_t
monotonic(void *ctx)
{
	struct timespec ts;

	RTE_SET_USED(ctx);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (sst_time_t)ts.tv_sec * SST_NSEC_PER_SEC + (sst_time_t)ts.tv_nsec;
}

struct sst_simpair *
sst_simpair_create(const struct sst_simlink_params *ab, const struct sst_simlink_params *ba,
	const struct sst_net_endpoint *ep0, const struct sst_net_endpoint *ep1,
	sst_time_t (*clock)(void *ctx), void *clock_ctx)
{
	struct sst_simpair *p = rte_zmalloc("sst_simpair", sizeof(*p), 0);

	if (p == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	p->dir[0] = sst_simlink_create(ab, SOCKET_ID_ANY);
	p->dir[1] = sst_simlink_create(ba, SOCKET_ID_ANY);
	if (p->dir[0] == NULL || p->dir[1] == NULL) {
		int err = rte_errno;

		sst_simlink_destroy(p->dir[0]);
		sst_simlink_destroy(p->dir[1]);
		rte_free(p);
		rte_errno = err != 0 ? err : EINVAL;
		return NULL;
	}
	p->ep[0] = *ep0;
	p->ep[1] = *ep1;
	p->clock = clock != NULL ? clock : monotonic;
	p->clock_ctx = clock_ctx;
	return p;
}

void
sst_simpair_destroy(struct sst_simpair *p)
{
	if (p == NULL)
		return;
	sst_simlink_destroy(p->dir[0]);
	sst_simlink_destroy(p->dir[1]);
	rte_free(p);
}

void
sst_simpair_set_endpoint(struct sst_simpair *p, int side, const struct sst_net_endpoint *ep)
{
	p->ep[side & 1] = *ep;
}

struct sst_simlink *
sst_simpair_link(struct sst_simpair *p, int dir)
{
	return p->dir[dir & 1];
}

static int
simpair_open(void *priv, const struct sst_link_conf *conf, struct sst_link_stats *stats)
{
	struct simpair_link *l = priv;
	const struct sst_simpair_conf *c = conf->driver_conf;

	if (c == NULL || c->pair == NULL || (c->side != 0 && c->side != 1))
		return -EINVAL;
	l->pair = c->pair;
	l->side = c->side;
	l->stats = stats;
	return 0;
}

static uint16_t
simpair_rx_burst(void *priv, struct rte_mbuf **pkts, struct sst_net_endpoint *from, uint16_t n)
{
	struct simpair_link *l = priv;
	struct sst_simpair *p = l->pair;
	uint16_t got = sst_simlink_dequeue(p->dir[1 - l->side], p->clock(p->clock_ctx), pkts, n);

	for (uint16_t i = 0; i < got; i++) {
		from[i] = p->ep[1 - l->side];
		l->stats->rx_packets++;
		l->stats->rx_bytes += rte_pktmbuf_pkt_len(pkts[i]);
	}
	return got;
}

/* At most SST_MAX_BURST packets: the model's verdicts on them, then what
 * the link counts and frees. */
static uint16_t
tx_chunk(struct simpair_link *l, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	enum sst_simlink_verdict v[SST_MAX_BURST];
	uint32_t len[SST_MAX_BURST];
	uint16_t sent = 0;

	/* Lengths first: a queued packet is the link's, and corruption may
	 * have replaced it by a copy and freed it by the time a verdict is
	 * read. */
	for (uint16_t i = 0; i < n; i++)
		len[i] = rte_pktmbuf_pkt_len(pkts[i]);
	sst_simlink_enqueue_burst(l->pair->dir[l->side], pkts, n, now, v);
	for (uint16_t i = 0; i < n; i++) {
		/* A packet the model loses was sent as far as we can tell, as
		 * on a wire; one its queue refuses is a full queue here. */
		if (v[i] != SST_SIMLINK_QUEUED)
			rte_pktmbuf_free(pkts[i]);
		if (v[i] == SST_SIMLINK_QUEUED || v[i] == SST_SIMLINK_DROP_LOSS) {
			l->stats->tx_packets++;
			l->stats->tx_bytes += len[i];
			sent++;
		} else {
			l->stats->tx_full++;
		}
	}
	return sent;
}

static uint16_t
simpair_tx_burst(void *priv, struct rte_mbuf **pkts, const struct sst_net_endpoint *to, uint16_t n)
{
	struct simpair_link *l = priv;
	struct sst_simpair *p = l->pair;
	sst_time_t now = p->clock(p->clock_ctx);
	uint16_t sent = 0;

	RTE_SET_USED(to); /* one peer: the other side */
	for (uint16_t done = 0; done < n;) {
		uint16_t chunk = RTE_MIN((uint16_t)(n - done), (uint16_t)SST_MAX_BURST);

		sent += tx_chunk(l, &pkts[done], chunk, now);
		done += chunk;
	}
	return sent;
}

static int
simpair_local(void *priv, struct sst_net_endpoint *ep)
{
	struct simpair_link *l = priv;

	*ep = l->pair->ep[l->side];
	return 0;
}

static void
simpair_close(void *priv)
{
	RTE_SET_USED(priv);
}

static const struct sst_link_ops simpair_ops = {
	.name = "simpair",
	.kind = SST_LINK_DATAGRAMS,
	.priv_size = sizeof(struct simpair_link),
	.open = simpair_open,
	.rx_burst = simpair_rx_burst,
	.tx_burst = simpair_tx_burst,
	.local = simpair_local,
	.close = simpair_close,
};

RTE_INIT(link_simpair_register)
{
	sst_link_register(&simpair_ops);
}
