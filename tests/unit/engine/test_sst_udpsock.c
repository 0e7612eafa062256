/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The whole stack over kernel UDP on the loopback interface, in one
 * process: two hosts, each a udpsock link, a negotiation host, a stream
 * host and the peer it talks to, driven by the poll loop an engine worker
 * will run (receive a burst, hand control packets to negotiation and
 * channel packets to their channel by byte 0, run the timers, flush). The
 * client negotiates a channel in checksum mode, opens a stream to the
 * "echo" service and sends 300 KB in writes of assorted sizes plus three
 * substreams; the server echoes everything back; the client checks every
 * byte. Real time (this is a test, not the protocol core).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_mbuf.h>

#include "sst_link.h"
#include "sst_negotiation.h"
#include "sst_stream.h"
#include "sst_test.h"
#include "sst_test_eal.h"
#include "sst_test_mbuf.h"

enum { TOTAL = 300000, SUBSTREAMS = 3, SUB_BYTES = 20000 };

static struct rte_mempool *pool, *clones;

struct node {
	const char *name;
	struct sst_link *link;
	struct sst_net_endpoint self, peer_ep;
	struct sst_nego_host *nego;
	struct sst_stream_host *sh;
	struct sst_stream_peer *peer;
	struct sst_stream_chan *chan;
	uint8_t local_channel, next_channel;
	bool server;
	/* client */
	struct sst_stream *s;
	uint64_t echoed, bad;
	uint64_t sub_echoed[SUBSTREAMS];
	struct sst_stream *subs[SUBSTREAMS];
	bool connected;
};

static sst_time_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (sst_time_t)ts.tv_sec * SST_NSEC_PER_SEC + (sst_time_t)ts.tv_nsec;
}

static void
addr_of(const struct sst_net_endpoint *ep, struct sst_nego_addr *a)
{
	a->len = sizeof(*ep);
	memcpy(a->bytes, ep, sizeof(*ep));
}

static void
nego_transmit(
	void *ctx, const struct sst_nego_addr *to, const void *msg, size_t len, sst_time_t now)
{
	struct node *n = ctx;
	struct sst_net_endpoint ep;
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	(void)now;
	CU_ASSERT_FATAL(m != NULL && to->len == sizeof(ep));
	memcpy(&ep, to->bytes, sizeof(ep));
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), msg, len);
	sst_link_tx_burst(n->link, &m, &ep, 1);
}

static int
chan_alloc(void *ctx, const struct sst_nego_addr *peer)
{
	struct node *n = ctx;

	(void)peer;
	return ++n->next_channel;
}

static void
chan_free(void *ctx, const struct sst_nego_addr *peer, uint8_t chan)
{
	(void)ctx;
	(void)peer;
	(void)chan;
}

static void
low_transmit(void *ctx, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	struct node *nd = ctx;
	struct sst_net_endpoint to[32];

	(void)now;
	for (uint16_t i = 0; i < n; i++)
		to[i] = nd->peer_ep;
	sst_link_tx_burst(nd->link, pkts, to, n);
}

static const struct sst_channel_lower lower = {.transmit = low_transmit};

static int
established(void *ctx, const struct sst_nego_result *r, sst_time_t now)
{
	struct node *n = ctx;
	struct sst_channel_params chp;
	struct sst_stream_chan_params cp = {.channel = &chp};

	CU_ASSERT_FATAL(sst_nego_channel_params(r, &chp) == 0);
	chp.pool = pool;
	chp.lower = &lower;
	chp.lower_ctx = n;
	memcpy(&n->peer_ep, r->peer.bytes, sizeof(n->peer_ep));
	n->peer = sst_stream_peer_create(n->sh, r->common_caps);
	CU_ASSERT_FATAL(n->peer != NULL);
	cp.local_hcid = r->tx_hcid;
	cp.local_hcid_len = r->hcid_len;
	cp.peer_hcid = r->rx_hcid;
	cp.peer_hcid_len = r->hcid_len;
	cp.initiator = r->role == SST_NEGO_INITIATOR;
	n->chan = sst_stream_chan_create(n->peer, &cp, now);
	CU_ASSERT_FATAL(n->chan != NULL);
	n->local_channel = r->local_channel;
	return 0;
}

static const struct sst_nego_ops nego_ops = {
	.transmit = nego_transmit,
	.chan_alloc = chan_alloc,
	.chan_free = chan_free,
	.established = established,
};

static uint8_t
pattern(uint64_t stream, uint64_t off)
{
	return sst_test_pattern(off + stream * 1000003);
}

static struct rte_mbuf *
chunk(uint64_t stream, uint64_t off, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p;

	CU_ASSERT_FATAL(m != NULL);
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	for (uint32_t i = 0; i < len; i++)
		p[i] = pattern(stream, off + i);
	return m;
}

/* Server: echo whatever arrives, substreams included. */
static void
echo(struct node *n, struct sst_stream *s, sst_time_t now)
{
	struct sst_stream_data d[32];
	int k;

	while ((k = sst_stream_read(s, d, 32, now)) > 0)
		for (int i = 0; i < k; i++)
			if (sst_stream_write(s, d[i].m, d[i].flags, now) < 0) {
				rte_pktmbuf_free(d[i].m);
				CU_FAIL("echo write refused");
			}
	if (k == -EPIPE) {
		sst_stream_shutdown(s, now);
		sst_stream_close(s, now);
	}
	(void)n;
}

/* Client: check the echo byte by byte. */
static void
check(struct node *n, struct sst_stream *s, uint64_t id, uint64_t *got, sst_time_t now)
{
	struct sst_stream_data d[32];
	int k;

	while ((k = sst_stream_read(s, d, 32, now)) > 0)
		for (int i = 0; i < k; i++) {
			uint32_t len = rte_pktmbuf_pkt_len(d[i].m);
			uint8_t buf[2048];
			const uint8_t *p = rte_pktmbuf_read(d[i].m, 0, len, buf);

			for (uint32_t j = 0; j < len; j++)
				n->bad += p[j] != pattern(id, *got + j);
			*got += len;
			rte_pktmbuf_free(d[i].m);
		}
}

static void
op_accepted(void *ctx, struct sst_stream *parent, struct sst_stream *s, void *svc)
{
	struct node *n = ctx;

	(void)svc;
	if (parent != NULL)
		s = sst_stream_accept_substream(parent);
	if (s == NULL)
		return;
	sst_stream_listen_substream(s, true);
	echo(n, s, now_ns());
}

static void
op_readable(void *ctx, struct sst_stream *s)
{
	struct node *n = ctx;

	if (n->server) {
		echo(n, s, now_ns());
		return;
	}
	for (int i = 0; i < SUBSTREAMS; i++)
		if (s == n->subs[i])
			check(n, s, 1 + (uint64_t)i, &n->sub_echoed[i], now_ns());
	if (s == n->s)
		check(n, s, 0, &n->echoed, now_ns());
}

static void
op_connected(void *ctx, struct sst_stream *s, int err)
{
	struct node *n = ctx;

	(void)s;
	CU_ASSERT_EQUAL(err, 0);
	n->connected = err == 0;
}

static const struct sst_stream_ops stream_ops = {
	.accepted = op_accepted,
	.readable = op_readable,
	.connected = op_connected,
};

static void
node_init(struct node *n, const char *name, bool server)
{
	struct sst_link_conf lc = {.size = sizeof(lc), .driver = "udpsock", .pool = pool};
	struct sst_nego_host_params np = {.size = sizeof(np)};
	struct sst_stream_host_params sp = {.size = sizeof(sp)};

	memset(n, 0, sizeof(*n));
	n->name = name;
	n->server = server;
	lc.local.addr.family = SST_NET_IPV4;
	lc.local.addr.bytes[0] = 127;
	lc.local.addr.bytes[3] = 1;
	n->link = sst_link_open(&lc);
	CU_ASSERT_FATAL(n->link != NULL);
	CU_ASSERT_FATAL(sst_link_local(n->link, &n->self) == 0);
	memset(np.secret, server ? 0x5e : 0xc1, sizeof(np.secret));
	np.ulp_caps = SST_NEGO_CAP_ALL;
	np.ops = &nego_ops;
	np.ctx = n;
	n->nego = sst_nego_host_create(&np);
	CU_ASSERT_FATAL(n->nego != NULL);
	sp.name = name;
	sp.pool = pool;
	sp.clone_pool = clones;
	sp.max_streams = 256;
	sp.max_tx_buffers = 64;
	sp.max_rx_buffers = 64;
	sp.max_sids = 256;
	sp.ops = &stream_ops;
	sp.ctx = n;
	n->sh = sst_stream_host_create(&sp);
	CU_ASSERT_FATAL(n->sh != NULL);
	if (server)
		CU_ASSERT_FATAL(sst_stream_listen(n->sh, "echo", "test", NULL) == 0);
}

static void
node_fini(struct node *n)
{
	sst_stream_peer_destroy(n->peer);
	sst_stream_host_destroy(n->sh);
	sst_nego_host_destroy(n->nego);
	sst_link_close(n->link);
}

/* One pass of an engine worker's loop. */
static void
node_poll(struct node *n, sst_time_t now)
{
	struct rte_mbuf *pkts[32];
	struct sst_net_endpoint from[32];
	uint16_t k = sst_link_rx_burst(n->link, pkts, from, 32);

	for (uint16_t i = 0; i < k; i++) {
		uint8_t b0 = *rte_pktmbuf_mtod(pkts[i], uint8_t *);

		if (b0 == 0) {
			struct sst_nego_addr a;

			addr_of(&from[i], &a);
			sst_nego_receive(n->nego, &a, rte_pktmbuf_mtod(pkts[i], void *),
				rte_pktmbuf_data_len(pkts[i]), now);
			rte_pktmbuf_free(pkts[i]);
		} else if (n->chan != NULL && b0 == n->local_channel) {
			sst_channel_receive(sst_stream_chan_channel(n->chan), &pkts[i], 1, now);
		} else {
			rte_pktmbuf_free(pkts[i]); /* no such channel */
		}
	}
	if (sst_nego_next_expiry(n->nego) <= now)
		sst_nego_handle_expiry(n->nego, now);
	if (n->chan != NULL) {
		struct sst_channel *ch = sst_stream_chan_channel(n->chan);

		if (sst_channel_next_expiry(ch) <= now)
			sst_channel_handle_expiry(ch, now);
		sst_stream_chan_flush(n->chan, now);
	}
}

static void
test_echo_over_kernel_udp(void)
{
	static struct node client, server;
	struct sst_nego_addr to;
	uint64_t written = 0, sub_written[SUBSTREAMS] = {0};
	sst_time_t start = now_ns(), deadline = start + 30 * SST_NSEC_PER_SEC;
	bool shut = false;

	node_init(&server, "srv", true);
	node_init(&client, "cli", false);
	addr_of(&server.self, &to);
	CU_ASSERT_FATAL(sst_nego_connect(client.nego, &to, SST_NEGO_MODE_CHECKSUM, start) > 0);
	while (now_ns() < deadline) {
		sst_time_t now = now_ns();

		node_poll(&server, now);
		node_poll(&client, now);
		if (client.chan != NULL && client.s == NULL) {
			client.s = sst_stream_connect(client.peer, "echo", "test", now);
			CU_ASSERT_FATAL(client.s != NULL);
			for (int i = 0; i < SUBSTREAMS; i++) {
				client.subs[i] = sst_stream_create_substream(client.s, now);
				CU_ASSERT_FATAL(client.subs[i] != NULL);
			}
		}
		if (client.s != NULL) {
			/* Writes of assorted sizes, as far as the buffers take. */
			while (written < TOTAL) {
				uint32_t len =
					(uint32_t)RTE_MIN(1 + written % 1777, TOTAL - written);
				struct rte_mbuf *m = chunk(0, written, len);

				if (sst_stream_write(client.s, m, 0, now) < 0) {
					rte_pktmbuf_free(m);
					break;
				}
				written += len;
			}
			for (int i = 0; i < SUBSTREAMS; i++)
				while (sub_written[i] < SUB_BYTES) {
					struct rte_mbuf *m =
						chunk(1 + (uint64_t)i, sub_written[i], 1000);

					if (sst_stream_write(client.subs[i], m, SST_WRITE_MESSAGE,
						    now) < 0) {
						rte_pktmbuf_free(m);
						break;
					}
					sub_written[i] += 1000;
				}
			if (written == TOTAL && !shut) {
				sst_stream_shutdown(client.s, now);
				for (int i = 0; i < SUBSTREAMS; i++)
					sst_stream_shutdown(client.subs[i], now);
				shut = true;
			}
		}
		if (client.echoed == TOTAL && client.sub_echoed[0] == SUB_BYTES &&
			client.sub_echoed[1] == SUB_BYTES && client.sub_echoed[2] == SUB_BYTES)
			break;
	}
	printf("\n  %llu bytes echoed over kernel UDP in %.2f s, %llu substream bytes, %llu bad\n",
		(unsigned long long)client.echoed, (double)(now_ns() - start) / 1e9,
		(unsigned long long)(client.sub_echoed[0] + client.sub_echoed[1] +
				     client.sub_echoed[2]),
		(unsigned long long)client.bad);
	CU_ASSERT_TRUE(client.connected);
	CU_ASSERT_EQUAL(client.echoed, TOTAL);
	for (int i = 0; i < SUBSTREAMS; i++)
		CU_ASSERT_EQUAL(client.sub_echoed[i], SUB_BYTES);
	CU_ASSERT_EQUAL(client.bad, 0);
	CU_ASSERT_EQUAL(sst_nego_stats(client.nego)->established_initiator, 1);
	CU_ASSERT_EQUAL(sst_nego_stats(server.nego)->established_responder, 1);
	if (client.s != NULL)
		sst_stream_close(client.s, now_ns());
	for (int i = 0; i < SUBSTREAMS; i++)
		if (client.subs[i] != NULL)
			sst_stream_close(client.subs[i], now_ns());
	node_fini(&client);
	node_fini(&server);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_echo_over_kernel_udp),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_sst_udpsock") < 0)
		return 1;
	pool = sst_test_pool("sst_udp_pool", 16383, 2048 + RTE_PKTMBUF_HEADROOM);
	clones = sst_test_pool("sst_udp_clones", 16383, 0);
	if (pool == NULL || clones == NULL)
		return 1;
	return sst_test_run("sst_udpsock", cases);
}
