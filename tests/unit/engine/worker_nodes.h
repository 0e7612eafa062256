/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two or more workers over kernel UDP on the loopback interface (or a
 * simpair), in one process, polled in turn: the nodes of test_worker_echo.c
 * (the echo exchanges, replacement, mobility) and test_worker_life.c
 * (restarts, dead peers, fair shares, bounded peers). A server node
 * echoes every stream and substream; a client node checks every byte of
 * the echo. Each side's link is tapped (sst_test_tap.h) to check the wire
 * order of every exchange. Real time (this is a test, not the protocol
 * core).
 */
#ifndef WORKER_NODES_H
#define WORKER_NODES_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_mbuf.h>
#include <rte_telemetry.h>

#include "channel_wire.h"
#include "nego_wire.h"
#include "sst_link.h"
#include "sst_simpair.h"
#include "sst_stream.h"
#include "sst_worker.h"
#include "sst_test.h"
#include "sst_test_eal.h"
#include "sst_test_mbuf.h"
#include "sst_test_simlink.h"
#include "sst_test_tap.h"
#include "sst_test_udp.h"

enum { TOTAL = 300000, SUBSTREAMS = 3, SUB_BYTES = 20000 };

static struct rte_mempool *pool, *clones;
/* A host's secret is fresh in every run; a restarted client gets another. */
static uint8_t client_secret = 0xc1;
/* Lowered to make channels run out of sequence space within a test. */
static uint64_t client_packet_limit, server_packet_limit;
/* The server's control blocks (0: 256) and peers (0: no limit); a
 * client's buffers (0: 64). */
static uint32_t server_max_streams, server_max_peers, client_buffers;
/* The workers' idle_timeout (0: 200 ms, so that tests see channels close). */
static sst_time_t node_idle_timeout;
/* Lowered to see a dead peer within a test (0: the worker's default). */
static sst_time_t dead_peer_timeout;
/* The client poses as the 2007 prototype (no SST-DPDK blob). */
static bool client_legacy;
/* Server nodes made while node_shard_count > 1 are worker node_shard_index
 * of a sharded server (test_worker_move.c). */
static uint16_t node_shard_index, node_shard_count;
static struct rte_ring *const *node_inboxes;
static struct sst_worker_dir *node_dir;
/* Secure mode for server (0) and client (1) nodes made while set. */
static const struct sst_secure_config *node_secure[2];

/*
 * What one side's tap (sst_test_tap.h) saw on the wire. Issue 15, finding
 * 7(b): a responder must send nothing of a channel before the ChkR1 that
 * gives the initiator its number and key; the initiator (the 2007
 * prototype, or us) drops such a packet ("inactive flow"), and only the
 * resend one timeout later arrives. So the tap records the ChkI1s this side
 * received and has not answered yet, by the initiator's channel number
 * (the byte 0 of what we send on that channel), and counts the channel
 * packets sent under such a number before the ChkR1.
 */
struct wire_check {
	bool pending[256];
	uint32_t pending_cki[256];
	bool answered[256];
	uint32_t answered_cki[256];
	uint64_t early;	  /**< channel packets sent before their channel's ChkR1 */
	uint64_t replies; /**< ChkR1 sent */
	/* Once armed, the ack word of everything this side sends on its first
	 * checksum-mode channel as initiator stays what it was then (the
	 * trailer sealed again with the key from our ChkI1): a peer whose
	 * acknowledgments stopped advancing, as the 2007 prototype's do past
	 * 65,535 packets of a channel, while its own packets still arrive. */
	bool freeze_armed;
	uint32_t first_cki;  /**< our key on the first channel we initiated */
	uint8_t first_chanr; /**< byte 0 of what we send on it (from the ChkR1) */
	uint64_t tx_highest; /**< our highest number on it, to rebuild the next */
	bool frozen_set;
	uint8_t frozen_word1[4];
	uint64_t frozen; /**< packets whose ack word was frozen */
};

static struct wire_check checks[2]; /* the server's, the client's */

static void
check_chunk(struct wire_check *wc, bool tx, const struct sst_nego_chunk *ch)
{
	struct sst_nego_chki1 i1;
	struct sst_nego_chkr1 r1;

	if (tx && ch->type == SST_NEGO_CHKI1 && sst_nego_chki1_decode(&ch->body, &i1) == 0 &&
		wc->first_cki == 0)
		wc->first_cki = i1.cki;
	if (!tx && ch->type == SST_NEGO_CHKR1 && sst_nego_chkr1_decode(&ch->body, &r1) == 0 &&
		r1.cki == wc->first_cki && wc->first_chanr == 0)
		wc->first_chanr = (uint8_t)r1.chanr;
	if (!tx && ch->type == SST_NEGO_CHKI1 && sst_nego_chki1_decode(&ch->body, &i1) == 0) {
		/* A copy of a ChkI1 already answered is answered again at
		 * once: its channel is up, nothing is early. */
		if (wc->answered[i1.chani] && wc->answered_cki[i1.chani] == i1.cki)
			return;
		wc->pending[i1.chani] = true;
		wc->pending_cki[i1.chani] = i1.cki;
	}
	if (tx && ch->type == SST_NEGO_CHKR1 && sst_nego_chkr1_decode(&ch->body, &r1) == 0) {
		wc->replies++;
		for (int n = 1; n < 256; n++)
			if (wc->pending[n] && wc->pending_cki[n] == r1.cki) {
				wc->pending[n] = false;
				wc->answered[n] = true;
				wc->answered_cki[n] = r1.cki;
			}
	}
}

/* The ack word of m (ours, on the first channel) as it was when the freeze
 * began; the Chk32 trailer sealed again over the changed bytes. */
static void
freeze_ack(struct wire_check *wc, struct rte_mbuf *m)
{
	uint8_t *b = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = rte_pktmbuf_pkt_len(m);
	struct rte_mbuf *last = rte_pktmbuf_lastseg(m);
	uint8_t *trailer;
	uint64_t seq;
	uint32_t chk;

	if (sst_chan_seq_expand(wc->tx_highest, (uint32_t)b[1] << 16 | b[2] << 8 | b[3], &seq) <
			0 ||
		rte_pktmbuf_data_len(m) < SST_CHAN_HDR_LEN || rte_pktmbuf_data_len(last) < 4)
		return;
	wc->tx_highest = RTE_MAX(wc->tx_highest, seq);
	if (!wc->frozen_set) {
		memcpy(wc->frozen_word1, b + 4, 4);
		wc->frozen_set = true;
	}
	memcpy(b + 4, wc->frozen_word1, 4);
	chk = sst_chk32_mbuf(seq, m, len - 4) + wc->first_cki;
	trailer = rte_pktmbuf_mtod_offset(last, uint8_t *, rte_pktmbuf_data_len(last) - 4);
	trailer[0] = (uint8_t)(chk >> 24);
	trailer[1] = (uint8_t)(chk >> 16);
	trailer[2] = (uint8_t)(chk >> 8);
	trailer[3] = (uint8_t)chk;
	wc->frozen++;
}

static bool
wire_hook(void *ctx, bool tx, struct rte_mbuf *m, const struct sst_net_endpoint *peer)
{
	struct wire_check *wc = ctx;
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	struct sst_nego_msg msg;
	struct sst_nego_iter it;
	struct sst_nego_chunk ch;
	uint64_t seq;

	RTE_SET_USED(peer);
	if (rte_pktmbuf_data_len(m) == 0)
		return false;
	if (b[0] != 0) {
		if (tx && wc->pending[b[0]])
			wc->early++;
		if (tx && b[0] == wc->first_chanr) {
			/* Every packet: the reference of the numbers' expansion. */
			if (wc->freeze_armed)
				freeze_ack(wc, m);
			else if (rte_pktmbuf_data_len(m) >= 4 &&
				 sst_chan_seq_expand(wc->tx_highest,
					 (uint32_t)b[1] << 16 | b[2] << 8 | b[3], &seq) == 0)
				wc->tx_highest = RTE_MAX(wc->tx_highest, seq);
		}
		return false;
	}
	if (sst_nego_msg_parse(b, rte_pktmbuf_data_len(m), &msg) < 0)
		return false;
	sst_nego_iter_init(&it, &msg);
	while (sst_nego_iter_next(&it, &ch) == 1)
		check_chunk(wc, tx, &ch);
	return false;
}

/* Link l seen through side's wire check (0: the server, 1: the client). */
static inline struct sst_link *
tapped(struct sst_link *l, int side)
{
	memset(&checks[side], 0, sizeof(checks[side]));
	l = sst_test_tap_open_link(l, pool, wire_hook, &checks[side]);
	CU_ASSERT_FATAL(l != NULL);
	return l;
}

/* A client's stream of its own (the matrix's concurrent transfers): the
 * client writes want bytes of pattern id, the server echoes them, the
 * client checks every byte of the echo. */
struct node_flow {
	struct sst_stream *s;
	uint64_t id;
	uint64_t want, written, echoed;
	struct rte_mbuf *pending; /**< written when the stream takes it */
	bool shut;
};

enum { NODE_MAX_FLOWS = 8 };

struct node {
	const char *name;
	struct sst_link *link;
	struct sst_net_endpoint self;
	struct sst_worker *w;
	struct sst_stream_peer *peer;
	bool server;
	/* client */
	struct sst_stream *s;
	uint64_t echoed, bad;
	uint64_t sub_echoed[SUBSTREAMS];
	struct sst_stream *subs[SUBSTREAMS];
	bool connected;
	bool hog;	    /**< opens streams beyond its share: refusals expected */
	uint64_t aborted;   /**< streams that ended with SST_STREAM_ABORTED */
	uint64_t timed_out; /**< streams that ended with SST_STREAM_TIMED_OUT */
	uint64_t gone;	    /**< peer_gone() calls */
	struct node_flow flows[NODE_MAX_FLOWS];
	int nflows;
};

/* The conformance matrix (tests/matrix) runs the same nodes in virtual
 * time: it sets virtual_time and moves virtual_now itself, and its simpair
 * reads the same clock, so a 750 ms path or a 5 s blackout costs no wall
 * time and every run of a seed is the same run. */
static bool virtual_time;
static sst_time_t virtual_now;

static sst_time_t
now_ns(void)
{
	struct timespec ts;

	if (virtual_time)
		return virtual_now;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (sst_time_t)ts.tv_sec * SST_NSEC_PER_SEC + (sst_time_t)ts.tv_nsec;
}

static void
peer_ready(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	struct node *n = ctx;

	(void)ep;
	n->peer = peer;
}

static void
peer_gone(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	struct node *n = ctx;

	(void)ep;
	if (n->peer == peer)
		n->peer = NULL;
	n->gone++;
}

static const struct sst_worker_ops worker_ops = {.peer_ready = peer_ready, .peer_gone = peer_gone};

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

/* What the server read of a stream and could not write back yet: it reads
 * no more until that went out (ops.writable() calls it again), so a fast
 * client meets the server's send buffers as back-pressure, not as loss. */
struct echo_backlog {
	struct sst_stream_data d[32];
	int first, n;
	bool eof;
};

static void
backlog_free(struct sst_stream *s)
{
	struct echo_backlog *b = sst_stream_user(s);

	if (b == NULL)
		return;
	for (int i = b->first; i < b->first + b->n; i++)
		rte_pktmbuf_free(b->d[i].m);
	free(b);
	sst_stream_set_user(s, NULL);
}

/* Server: echo whatever arrives, substreams included. */
static void
echo(struct node *n, struct sst_stream *s, sst_time_t now)
{
	struct echo_backlog *b = sst_stream_user(s);
	int k, rc;

	(void)n;
	if (b == NULL) {
		b = calloc(1, sizeof(*b));
		CU_ASSERT_FATAL(b != NULL);
		sst_stream_set_user(s, b);
	}
	for (;;) {
		while (b->n > 0) {
			struct sst_stream_data *d = &b->d[b->first];

			rc = sst_stream_write(s, d->m, d->flags, now);
			if (rc == -EAGAIN)
				return;
			if (rc < 0) {
				/* Reset under us: nothing more to echo. */
				backlog_free(s);
				sst_stream_close(s, now);
				return;
			}
			b->first++;
			b->n--;
		}
		if (b->eof)
			break;
		b->first = 0;
		k = sst_stream_read(s, b->d, 32, now);
		if (k == -EPIPE)
			b->eof = true;
		else if (k <= 0)
			return;
		else
			b->n = k;
	}
	backlog_free(s);
	sst_stream_shutdown(s, now);
	sst_stream_close(s, now);
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
op_accepted(void *ctx, struct sst_stream *parent, struct sst_stream *s, void *svc, sst_time_t now)
{
	struct node *n = ctx;

	(void)svc;
	if (parent != NULL)
		s = sst_stream_accept_substream(parent, now);
	if (s == NULL)
		return;
	sst_stream_listen_substream(s, true);
	echo(n, s, now_ns());
}

static void
op_readable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct node *n = ctx;

	(void)now;
	if (n->server) {
		echo(n, s, now_ns());
		return;
	}
	for (int i = 0; i < SUBSTREAMS; i++)
		if (s == n->subs[i])
			check(n, s, 1 + (uint64_t)i, &n->sub_echoed[i], now_ns());
	if (s == n->s)
		check(n, s, 0, &n->echoed, now_ns());
	for (int i = 0; i < n->nflows; i++)
		if (s == n->flows[i].s)
			check(n, s, n->flows[i].id, &n->flows[i].echoed, now_ns());
}

static void
op_connected(void *ctx, struct sst_stream *s, int err, sst_time_t now)
{
	struct node *n = ctx;

	(void)now;
	(void)s;
	if (!n->hog)
		CU_ASSERT_EQUAL(err, 0);
	n->connected = err == 0;
}

static void
op_closed(void *ctx, struct sst_stream *s, enum sst_stream_end why, sst_time_t now)
{
	struct node *n = ctx;

	(void)now;
	n->aborted += why == SST_STREAM_ABORTED;
	n->timed_out += why == SST_STREAM_TIMED_OUT;
	if (n->server)
		backlog_free(s);
	/* The server lets go of a stream whose peer died, as an application
	 * should; only then can the peer's record go. */
	if (n->server && why == SST_STREAM_TIMED_OUT)
		sst_stream_close(s, now_ns());
}

static void
op_writable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct node *n = ctx;

	(void)now;
	if (n->server)
		echo(n, s, now_ns());
}

static const struct sst_stream_ops stream_ops = {
	.closed = op_closed,
	.accepted = op_accepted,
	.readable = op_readable,
	.writable = op_writable,
	.connected = op_connected,
};

/* A node's identity for secure runs (TOFU), for node_secure[]. */
struct secure_side {
	struct sst_secure_identity id;
	struct sst_secure_config cfg;
};

static inline void
secure_side_init(struct secure_side *sd, uint8_t seed_byte)
{
	uint8_t seed[32];

	memset(seed, seed_byte, sizeof(seed));
	CU_ASSERT_FATAL(sst_secure_identity_from_seed(&sd->id, seed) == 0);
	memset(&sd->cfg, 0, sizeof(sd->cfg));
	sd->cfg.size = sizeof(sd->cfg);
	sd->cfg.identity = &sd->id;
	sd->cfg.policy = SST_SECURE_TOFU;
	sst_secure_suites_default(&sd->cfg, true, false);
	sd->cfg.random = sst_secure_random_sodium;
}

static void
node_init(struct node *n, const char *name, bool server, struct sst_link *link)
{
	struct sst_worker_params wp = {.size = sizeof(wp), .pool = pool};

	memset(n, 0, sizeof(*n));
	n->name = name;
	n->server = server;
	n->link = link;
	CU_ASSERT_FATAL(n->link != NULL);
	CU_ASSERT_FATAL(sst_link_local(n->link, &n->self) == 0);
	wp.link = n->link;
	memset(wp.nego.secret, server ? 0x5e : client_secret, sizeof(wp.nego.secret));
	wp.nego.ulp_legacy = !server && client_legacy;
	wp.nego.ulp_caps = wp.nego.ulp_legacy ? 0 : SST_NEGO_CAP_ALL;
	wp.nego.secure = node_secure[server ? 0 : 1];
	wp.stream.name = name;
	wp.stream.clone_pool = clones;
	wp.stream.max_streams = server && server_max_streams != 0 ? server_max_streams : 256;
	wp.stream.max_tx_buffers = !server && client_buffers != 0 ? client_buffers : 64;
	wp.stream.max_rx_buffers = !server && client_buffers != 0 ? client_buffers : 64;
	wp.stream.max_sids = 256;
	wp.stream.ops = &stream_ops;
	wp.stream.ctx = n;
	wp.ops = &worker_ops;
	wp.ctx = n;
	wp.idle_timeout = node_idle_timeout != 0 ? node_idle_timeout : 200 * SST_NSEC_PER_MSEC;
	wp.channel_packet_limit = server ? server_packet_limit : client_packet_limit;
	wp.dead_peer_timeout = dead_peer_timeout;
	wp.max_peers = server ? server_max_peers : 0;
	if (server && node_shard_count > 1) {
		wp.shard_index = node_shard_index;
		wp.shard_count = node_shard_count;
		wp.inboxes = node_inboxes;
		wp.dir = node_dir;
	}
	n->w = sst_worker_create(&wp);
	CU_ASSERT_FATAL(n->w != NULL);
	if (server)
		CU_ASSERT_FATAL(
			sst_stream_listen(sst_worker_stream_host(n->w), "echo", "test", NULL) == 0);
}

static void
node_fini(struct node *n)
{
	sst_worker_destroy(n->w);
	sst_link_close(n->link);
}

static struct sst_link *
udp_link(void)
{
	return sst_test_udp_link(pool);
}

/* Poll both until cond holds or 10 s pass. */
#define POLL_UNTIL(a, b, cond)                                        \
	do {                                                          \
		sst_time_t until_ = now_ns() + 10 * SST_NSEC_PER_SEC; \
		while (!(cond) && now_ns() < until_) {                \
			sst_worker_poll((a)->w, now_ns());            \
			sst_worker_poll((b)->w, now_ns());            \
		}                                                     \
	} while (0)

/* A client (its own host secret) of a server over kernel UDP, its stream
 * to "echo" open. */
static inline void
connect_udp_pair_to(struct node *client, const char *name, uint8_t secret, struct node *server)
{
	uint8_t secret_was = client_secret;

	client_secret = secret;
	node_init(client, name, false, udp_link());
	client_secret = secret_was;
	CU_ASSERT_FATAL(sst_worker_connect(
				client->w, &server->self, SST_NEGO_MODE_CHECKSUM, now_ns()) == 0);
	POLL_UNTIL(client, server, client->peer != NULL);
	CU_ASSERT_FATAL(client->peer != NULL);
	client->s = sst_stream_connect(client->peer, "echo", "test", now_ns());
	CU_ASSERT_FATAL(client->s != NULL);
}

static inline void
connect_udp_pair(struct node *client, struct node *server)
{
	node_init(server, "srv", true, udp_link());
	connect_udp_pair_to(client, "cli", client_secret, server);
}

/* A test program's main(): the EAL, the tap, the pools, then the cases. */
static inline int
worker_nodes_main(const char *name, const struct sst_test_case *cases)
{
	if (sst_test_eal_init(name) < 0 || sst_test_tap_register() < 0)
		return 1;
	pool = sst_test_pool("sst_udp_pool", 16383, 2048 + RTE_PKTMBUF_HEADROOM);
	clones = sst_test_pool("sst_udp_clones", 16383, 0);
	if (pool == NULL || clones == NULL)
		return 1;
	return sst_test_run("sst_udpsock", cases);
}

#endif /* WORKER_NODES_H */
