/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory per channel (issue 14), measured on the DPDK heap: N channel pairs
 * between two stream hosts in this process (one peer per pair on each
 * host, packets handed over in memory), then
 *
 *   idle    bytes per channel with no stream: the channel block (armor
 *           session included), the stream layer's attachment and tables;
 *   active  bytes per channel with one open stream that carried a 32-byte
 *           request and a 32-byte response: what the tables grew to.
 *
 * Both are heap_allocsz_bytes differences (rte_malloc_get_socket_stats())
 * divided by the channels, so the allocator's per-block overhead counts;
 * send and receive buffers come from the hosts' pools, created before, and
 * are not in these figures (sizes printed). Also prints the sizes of the
 * main structures. Run by hand: nice build/perf/chan_mem_bench [--chans N]
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "channel_internal.h"
#include "sst_stream.h"
#include "sst_test_eal.h"
#include "stream_internal.h"

enum { QCAP = 256 };

/* Packets in transit one way. */
struct wire {
	struct rte_mbuf *pkts[QCAP];
	uint16_t n;
	uint64_t dropped;
};

struct pair {
	struct sst_stream_peer *peer[2];
	struct sst_stream_chan *chan[2];
	struct wire to[2]; /* to[i]: packets on their way to side i */
	struct sst_stream *s[2];
	uint32_t got[2]; /* bytes each side read */
};

static struct rte_mempool *pool, *clone_pool;
static struct pair *pairs;
static uint32_t npairs;
static sst_time_t now = 1;

static void
transmit(void *ctx, struct rte_mbuf **pkts, uint16_t n, sst_time_t t)
{
	struct wire *w = ctx;

	(void)t;
	for (uint16_t i = 0; i < n; i++) {
		if (w->n < QCAP) {
			w->pkts[w->n++] = pkts[i];
		} else {
			rte_pktmbuf_free(pkts[i]);
			w->dropped++;
		}
	}
}

static const struct sst_channel_lower lower = {.transmit = transmit};

static size_t
heap_bytes(void)
{
	struct rte_malloc_socket_stats st;
	size_t sum = 0;

	for (int s = 0; s < RTE_MAX_NUMA_NODES; s++)
		if (rte_malloc_get_socket_stats(s, &st) == 0)
			sum += st.heap_allocsz_bytes;
	return sum;
}

/* The application: the server keeps what it accepts; both sides read. */
static void
on_accepted(void *ctx, struct sst_stream *parent, struct sst_stream *s, void *sctx, sst_time_t at)
{
	(void)ctx;
	(void)parent;
	(void)sctx;
	(void)at;
	for (uint32_t i = 0; i < npairs; i++)
		if (pairs[i].peer[1] == s->peer)
			pairs[i].s[1] = s;
}

static const struct sst_stream_ops ops = {.accepted = on_accepted};

static struct sst_stream_host *
host(const char *name, uint32_t chans)
{
	struct sst_stream_host_params hp = {
		.size = sizeof(hp),
		.name = name,
		.pool = pool,
		.clone_pool = clone_pool,
		.max_streams = 2 * chans + 64,
		.max_tx_buffers = chans + 16,
		.max_rx_buffers = chans + 16,
		/* What a channel costs, not fairness between its peers. */
		.peer_max_streams = 2 * chans + 64,
		.peer_max_tx_buffers = chans + 16,
		.peer_max_rx_buffers = chans + 16,
		.send_mbufs = 64,
		.rx_pieces = 64,
		.ops = &ops,
	};

	return sst_stream_host_create(&hp);
}

static struct sst_stream_chan *
chan(struct pair *p, int side, uint32_t i)
{
	struct sst_channel_params chp;
	struct sst_stream_chan_params cp;
	uint8_t hcid[2][8];

	for (int k = 0; k < 2; k++) {
		memcpy(hcid[k], &i, sizeof(i));
		memset(hcid[k] + 4, 0xa0 + k, 4);
	}
	memset(&chp, 0, sizeof(chp));
	chp.size = sizeof(chp);
	chp.local_channel = 1;
	chp.peer_channel = 1;
	chp.suite = SST_CRYPTO_CHK32;
	chp.keys.tx_chk_key = 0x1234 + (uint32_t)side;
	chp.keys.rx_chk_key = 0x1235 - (uint32_t)side;
	chp.pool = pool;
	chp.lower = &lower;
	chp.lower_ctx = &p->to[1 - side];
	memset(&cp, 0, sizeof(cp));
	cp.channel = &chp;
	cp.local_hcid = hcid[side];
	cp.local_hcid_len = 8;
	cp.peer_hcid = hcid[1 - side];
	cp.peer_hcid_len = 8;
	cp.initiator = side == 0;
	return sst_stream_chan_create(p->peer[side], &cp, now);
}

/* Hand over what is in transit, read, flush, until nothing moves. */
static void
pump(uint32_t n)
{
	for (int round = 0; round < 64; round++) {
		bool moved = false;

		now += 1000 * 1000;
		for (uint32_t i = 0; i < n; i++) {
			struct pair *p = &pairs[i];

			for (int side = 0; side < 2; side++) {
				struct wire *w = &p->to[side];
				struct rte_mbuf *pk[QCAP];
				uint16_t k = w->n;
				struct sst_stream_data d[8];
				int r;

				memcpy(pk, w->pkts, k * sizeof(pk[0]));
				w->n = 0;
				if (k > 0) {
					moved = true;
					sst_channel_receive(
						sst_stream_chan_channel(p->chan[side]), pk, k, now);
				}
				sst_channel_handle_expiry(
					sst_stream_chan_channel(p->chan[side]), now);
				while (p->s[side] != NULL &&
					(r = sst_stream_read(p->s[side], d, 8, now)) > 0)
					for (int j = 0; j < r; j++) {
						p->got[side] += rte_pktmbuf_pkt_len(d[j].m);
						rte_pktmbuf_free(d[j].m);
					}
				sst_stream_chan_flush(p->chan[side], now);
			}
		}
		if (!moved && round > 4)
			break;
	}
}

static int
write32(struct sst_stream *s)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	char *p = m != NULL ? rte_pktmbuf_append(m, 32) : NULL;

	if (p != NULL)
		memset(p, 'x', 32);
	if (p == NULL || sst_stream_write(s, m, SST_WRITE_MESSAGE, now) < 0) {
		rte_pktmbuf_free(m);
		return -1;
	}
	return 0;
}

static int
run(uint32_t n)
{
	struct sst_stream_host *h[2];
	size_t h0, h1, h2, h3, sess;
	uint32_t answered = 0;
	struct sst_channel_params chp = {.size = sizeof(chp),
		.local_channel = 1,
		.peer_channel = 1,
		.suite = SST_CRYPTO_CHK32,
		.pool = NULL,
		.lower = &lower,
		.upper = &sst_stream_chan_upper};

	pairs = calloc(n, sizeof(*pairs));
	npairs = n;
	h[0] = host("cma", n);
	h[1] = host("cmb", n);
	if (pairs == NULL || h[0] == NULL || h[1] == NULL ||
		sst_stream_listen(h[1], "mem", "rr", NULL) != 0) {
		printf("chan_mem_bench: setup failed\n");
		return 1;
	}
	h0 = heap_bytes();
	for (uint32_t i = 0; i < n; i++)
		for (int side = 0; side < 2; side++)
			pairs[i].peer[side] = sst_stream_peer_create(h[side], SST_CAPS_ALL);
	h1 = heap_bytes();
	for (uint32_t i = 0; i < n; i++)
		for (int side = 0; side < 2; side++)
			if ((pairs[i].chan[side] = chan(&pairs[i], side, i)) == NULL) {
				printf("chan_mem_bench: channel %u: %s\n", i,
					rte_strerror(rte_errno));
				return 1;
			}
	h2 = heap_bytes();
	for (uint32_t i = 0; i < n; i++) {
		pairs[i].s[0] = sst_stream_connect(pairs[i].peer[0], "mem", "rr", now);
		if (pairs[i].s[0] == NULL || write32(pairs[i].s[0]) < 0) {
			printf("chan_mem_bench: connect %u failed\n", i);
			return 1;
		}
	}
	pump(n);
	for (uint32_t i = 0; i < n; i++)
		if (pairs[i].s[1] != NULL && pairs[i].got[1] == 32 && write32(pairs[i].s[1]) == 0)
			answered++;
	pump(n);
	h3 = heap_bytes();
	for (uint32_t i = 0; i < n; i++)
		answered -= pairs[i].got[0] != 32;
	chp.pool = pool;
	sess = sst_channel_size(&chp);
	printf("chan_mem_bench: %u channel pairs (%u channels), chk32 armor, defaults: max_sids "
	       "16384, tx_log 4096, replay window 32\n",
		n, 2 * n);
	printf("  streams with request and response done: %u of %u\n", answered, n);
	printf("  peer:                          %8.0f bytes (not counted below)\n",
		(double)(h1 - h0) / (2.0 * n));
	printf("  idle channel:                  %8.0f bytes (heap, per channel)\n",
		(double)(h2 - h1) / (2.0 * n));
	printf("  channel with one stream:       %8.0f bytes (heap, per channel)\n",
		(double)(h3 - h1) / (2.0 * n));
	printf("  sst_channel_size() block:      %8zu bytes (chk32 session included)\n", sess);
	printf("sizeof: sst_stream_chan %zu, sst_channel %zu, sst_sid_space %zu, sid_entry %zu, "
	       "stream_sent %zu, sst_txlog %zu, sst_txlog_entry %zu, sst_replay %zu, sst_dgram_rx "
	       "%zu (+ tables: %zu at %u fragments), sst_stream %zu, sst_stream_peer %zu\n",
		sizeof(struct sst_stream_chan), sizeof(struct sst_channel),
		sizeof(struct sst_sid_space), sizeof(struct sid_entry), sizeof(struct stream_sent),
		sizeof(struct sst_txlog), sizeof(struct sst_txlog_entry), sizeof(struct sst_replay),
		sizeof(struct sst_dgram_rx), sst_dgram_rx_size(STREAM_DGRAM_RX_FRAGS),
		(unsigned)STREAM_DGRAM_RX_FRAGS, sizeof(struct sst_stream),
		sizeof(struct sst_stream_peer));
	printf("pool objects (not heap): send buffer %u bytes, receive buffer %u bytes\n",
		h[0]->txios->elt_size, h[0]->rxios->elt_size);
	return answered == n ? 0 : 1;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"chans", required_argument, NULL, 'c'},
		{NULL, 0, NULL, 0},
	};
	uint32_t n = 200;
	char prefix[64];
	int c;

	while ((c = getopt_long(argc, argv, "c:", opts, NULL)) != -1) {
		if (c != 'c' || (n = (uint32_t)strtoul(optarg, NULL, 0)) == 0 || n > 4000) {
			fprintf(stderr, "usage: chan_mem_bench [--chans N] (pairs, 1..4000)\n");
			return 2;
		}
	}
	snprintf(prefix, sizeof(prefix), "chan_mem_bench_%d", (int)getpid());
	if (sst_test_eal_init(prefix) != 0)
		return 1;
	pool = sst_test_pool("cm_pkts", 8 * n + 4096, 2048);
	clone_pool = sst_test_pool("cm_clones", 8 * n + 4096, 0);
	if (pool == NULL || clone_pool == NULL)
		return 1;
	return run(n);
}
