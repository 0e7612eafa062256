/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The whole stack over kernel UDP on the loopback interface, in one
 * process: two workers (sst_worker.h), each on a udpsock link with its
 * negotiation host, stream host and peers, polled in turn. The
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

enum { TOTAL = 300000, SUBSTREAMS = 3, SUB_BYTES = 20000 };

static struct rte_mempool *pool, *clones;
/* A host's secret is fresh in every run; a restarted client gets another. */
static uint8_t client_secret = 0xc1;
/* Lowered to make channels run out of sequence space within a test. */
static uint64_t client_packet_limit, server_packet_limit;
/* The server's control blocks (0: 256) and peers (0: no limit); a
 * client's buffers (0: 64). */
static uint32_t server_max_streams, server_max_peers, client_buffers;
/* Lowered to see a dead peer within a test (0: the worker's default). */
static sst_time_t dead_peer_timeout;
/* channels_crossed of both sides in the last exchange. */
static uint64_t crossed;
/* The client poses as the 2007 prototype (no SST-DPDK blob). */
static bool client_legacy;
/* silences of the server and the client in the last exchange. */
static uint64_t silences[2];

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
static struct sst_link *
tapped(struct sst_link *l, int side)
{
	memset(&checks[side], 0, sizeof(checks[side]));
	l = sst_test_tap_open_link(l, pool, wire_hook, &checks[side]);
	CU_ASSERT_FATAL(l != NULL);
	return l;
}

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
};

static sst_time_t
now_ns(void)
{
	struct timespec ts;

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
	if (!n->hog)
		CU_ASSERT_EQUAL(err, 0);
	n->connected = err == 0;
}

static void
op_closed(void *ctx, struct sst_stream *s, enum sst_stream_end why)
{
	struct node *n = ctx;

	n->aborted += why == SST_STREAM_ABORTED;
	n->timed_out += why == SST_STREAM_TIMED_OUT;
	/* The server lets go of a stream whose peer died, as an application
	 * should; only then can the peer's record go. */
	if (n->server && why == SST_STREAM_TIMED_OUT)
		sst_stream_close(s, now_ns());
}

static const struct sst_stream_ops stream_ops = {
	.closed = op_closed,
	.accepted = op_accepted,
	.readable = op_readable,
	.connected = op_connected,
};

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
	wp.idle_timeout = 200 * SST_NSEC_PER_MSEC;
	wp.channel_packet_limit = server ? server_packet_limit : client_packet_limit;
	wp.dead_peer_timeout = dead_peer_timeout;
	wp.max_peers = server ? server_max_peers : 0;
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
	struct sst_link_conf lc = {.size = sizeof(lc), .driver = "udpsock", .pool = pool};

	lc.local.addr.family = SST_NET_IPV4;
	lc.local.addr.bytes[0] = 127;
	lc.local.addr.bytes[3] = 1;
	return sst_link_open(&lc);
}

/* Something that happens once during an exchange, after some time. */
struct event {
	sst_time_t after;
	void (*fn)(void *arg, struct node *client, struct node *server, sst_time_t now);
	void *arg;
	bool done;
	/** the server must see a path change; the move comes right after the
	 * client's first write, so that nearly all the data is sent after it
	 * (after some time, it may come when the client has nothing left to
	 * send, and only receives, which needs no move) */
	bool moves_client;
	bool one_channel; /**< both sides settle on one channel before the streams close */
};

/* The client writes, the server echoes, the client checks every byte.
 * channels: how many each side makes (0: at least two, by replacement).
 * Both links are tapped: no side may send anything of a channel before its
 * ChkR1 (struct wire_check). */
static void
run_echo(struct sst_link *client_link, struct sst_link *server_link, const char *over,
	struct event *ev, uint64_t channels)
{
	static struct node client, server;
	uint64_t written = 0, sub_written[SUBSTREAMS] = {0};
	sst_time_t start = now_ns(), deadline = start + 60 * SST_NSEC_PER_SEC;
	bool shut = false, replaced = false;

	node_init(&server, "srv", true, tapped(server_link, 0));
	node_init(&client, "cli", false, tapped(client_link, 1));
	CU_ASSERT_FATAL(
		sst_worker_connect(client.w, &server.self, SST_NEGO_MODE_CHECKSUM, start) == 0);
	while (now_ns() < deadline) {
		sst_time_t now = now_ns();

		if (ev != NULL && !ev->done && now - start >= ev->after &&
			(!ev->moves_client || written > 0)) {
			ev->fn(ev->arg, &client, &server, now);
			ev->done = true;
		}
		sst_worker_poll(server.w, now);
		sst_worker_poll(client.w, now);
		if (client.peer != NULL && client.s == NULL) {
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
	printf("\n  %llu bytes echoed over %s in %.2f s, %llu substream bytes, %llu bad\n",
		(unsigned long long)client.echoed, over, (double)(now_ns() - start) / 1e9,
		(unsigned long long)(client.sub_echoed[0] + client.sub_echoed[1] +
				     client.sub_echoed[2]),
		(unsigned long long)client.bad);
	CU_ASSERT_TRUE(client.connected);
	CU_ASSERT_EQUAL(client.echoed, TOTAL);
	for (int i = 0; i < SUBSTREAMS; i++)
		CU_ASSERT_EQUAL(client.sub_echoed[i], SUB_BYTES);
	CU_ASSERT_EQUAL(client.bad, 0);
	if (channels != 0) {
		CU_ASSERT_EQUAL(sst_worker_stats(client.w)->channels_made, channels);
		CU_ASSERT_EQUAL(sst_worker_stats(server.w)->channels_made, channels);
	} else {
		/* Replacements: asked for by whichever side runs low first. */
		uint64_t asked[2] = {sst_worker_stats(client.w)->channels_replaced,
			sst_worker_stats(server.w)->channels_replaced};

		channels = sst_worker_stats(client.w)->channels_made;
		printf("  %llu channels, %llu + %llu replacements asked by client + server\n",
			(unsigned long long)channels, (unsigned long long)asked[0],
			(unsigned long long)asked[1]);
		CU_ASSERT(channels >= 2);
		CU_ASSERT(asked[0] + asked[1] >= channels - 1);
		if (client_packet_limit == 0)
			CU_ASSERT_EQUAL(asked[0], 0);
		if (server_packet_limit == 0)
			CU_ASSERT_EQUAL(asked[1], 0);
		replaced = true;
	}
	{
		/* The counters are served under /sst/worker,<id>. */
		struct rte_tel_data *d = rte_tel_data_alloc();
		char id[16];

		CU_ASSERT_FATAL(d != NULL);
		CU_ASSERT(sst_worker_id(client.w) >= 0 && sst_worker_id(server.w) >= 0);
		CU_ASSERT_NOT_EQUAL(sst_worker_id(client.w), sst_worker_id(server.w));
		snprintf(id, sizeof(id), "%d", sst_worker_id(client.w));
		CU_ASSERT_EQUAL(sst_worker_telemetry("/sst/worker", id, d), 0);
		CU_ASSERT_EQUAL(sst_worker_telemetry("/sst/worker", "63", d), -EINVAL);
		CU_ASSERT_EQUAL(sst_worker_telemetry("/sst/worker", "x", d), -EINVAL);
		CU_ASSERT_EQUAL(sst_worker_telemetry("/sst/worker", NULL, d), -EINVAL);
		rte_tel_data_free(d);
	}
	if (ev != NULL && ev->one_channel) {
		/* The channels the streams left close by FINISH at once; two
		 * sides that kept different ones would hold both until a
		 * retired channel's 10 s grace ran out. */
		deadline = now_ns() + 5 * SST_NSEC_PER_SEC;
		while (now_ns() < deadline &&
			(sst_worker_stats(client.w)->channels_open != 1 ||
				sst_worker_stats(server.w)->channels_open != 1)) {
			sst_worker_poll(server.w, now_ns());
			sst_worker_poll(client.w, now_ns());
		}
		CU_ASSERT_EQUAL(sst_worker_stats(client.w)->channels_open, 1);
		CU_ASSERT_EQUAL(sst_worker_stats(server.w)->channels_open, 1);
	}
	if (client.s != NULL)
		sst_stream_close(client.s, now_ns());
	for (int i = 0; i < SUBSTREAMS; i++)
		if (client.subs[i] != NULL)
			sst_stream_close(client.subs[i], now_ns());
	/* With every stream done the channel idles, and after idle_timeout
	 * both workers close it by FINISH, with no TIME_WAIT. */
	deadline = now_ns() + 10 * SST_NSEC_PER_SEC;
	while (now_ns() < deadline && (sst_worker_stats(client.w)->channels_open != 0 ||
					      sst_worker_stats(server.w)->channels_open != 0)) {
		sst_worker_poll(server.w, now_ns());
		sst_worker_poll(client.w, now_ns());
	}
	CU_ASSERT_EQUAL(sst_worker_stats(client.w)->channels_closed,
		sst_worker_stats(client.w)->channels_made);
	CU_ASSERT_EQUAL(sst_worker_stats(server.w)->channels_closed,
		sst_worker_stats(server.w)->channels_made);
	CU_ASSERT_EQUAL(sst_worker_stats(client.w)->channels_open, 0);
	if (ev != NULL && ev->moves_client) {
		CU_ASSERT(sst_worker_stats(client.w)->silences >= 1);
		CU_ASSERT_EQUAL(sst_worker_stats(server.w)->path_changes, 1);
		CU_ASSERT_EQUAL(sst_worker_stats(server.w)->restarts, 0);
	}
	RTE_SET_USED(replaced);
	printf("  ChkR1 sent by server + client: %llu + %llu; channel packets sent before "
	       "their ChkR1: %llu + %llu\n",
		(unsigned long long)checks[0].replies, (unsigned long long)checks[1].replies,
		(unsigned long long)checks[0].early, (unsigned long long)checks[1].early);
	CU_ASSERT(checks[0].replies >= 1);
	CU_ASSERT_EQUAL(checks[0].early, 0);
	CU_ASSERT_EQUAL(checks[1].early, 0);
	CU_ASSERT(sst_worker_stats(client.w)->channels_idle +
			  sst_worker_stats(server.w)->channels_idle >=
		  1);
	crossed = sst_worker_stats(client.w)->channels_crossed +
		  sst_worker_stats(server.w)->channels_crossed;
	silences[0] = sst_worker_stats(server.w)->silences;
	silences[1] = sst_worker_stats(client.w)->silences;
	node_fini(&client);
	node_fini(&server);
}

static void
test_echo_over_kernel_udp(void)
{
	run_echo(udp_link(), udp_link(), "kernel UDP", NULL, 1);
}

/* Two links joined by a simpair with the same model each way. */
static struct sst_simpair *
simpair_links(
	const struct sst_simlink_params *lp, struct sst_simpair_conf sc[2], struct sst_link *l[2])
{
	struct sst_net_endpoint ep[2] = {0};
	struct sst_link_conf lc = {.size = sizeof(lc), .driver = "simpair", .pool = pool};
	struct sst_simpair *pair;

	for (int i = 0; i < 2; i++) {
		ep[i].addr.family = SST_NET_IPV4;
		ep[i].addr.bytes[0] = 10;
		ep[i].addr.bytes[3] = (uint8_t)(1 + i);
		ep[i].port = 8661;
	}
	pair = sst_simpair_create(lp, lp, &ep[0], &ep[1], NULL, NULL);
	CU_ASSERT_FATAL(pair != NULL);
	for (int i = 0; i < 2; i++) {
		sc[i] = (struct sst_simpair_conf){.pair = pair, .side = i};
		lc.driver_conf = &sc[i];
		l[i] = sst_link_open(&lc);
		CU_ASSERT_FATAL(l[i] != NULL);
	}
	return pair;
}

/* Two workers over a simpair with 3% loss, reordering and duplication in
 * each direction, 20 Mbit/s and 2 ms: every byte still arrives. */
static void
test_echo_over_impaired_simpair(void)
{
	struct sst_simlink_params lp;
	struct sst_simpair_conf sc[2];
	struct sst_simpair *pair;
	struct sst_link *l[2];
	struct sst_simlink_stats st;

	sst_test_link_model(&lp, 20 * 1000 * 1000, 2 * SST_NSEC_PER_MSEC, 300,
		&(struct sst_test_impairments){.loss = 0.03, .reorder = 0.02, .duplicate = 0.01},
		pool);
	pair = simpair_links(&lp, sc, l);
	run_echo(l[0], l[1], "an impaired simpair", NULL, 1);
	sst_simlink_stats_get(sst_simpair_link(pair, 0), &st);
	printf("  client to server: %llu packets, %llu lost\n", (unsigned long long)st.sent,
		(unsigned long long)st.dropped_loss);
	CU_ASSERT(st.dropped_loss > 0);
	sst_simpair_destroy(pair);
}

static void
rebind(void *arg, struct node *client, struct node *server, sst_time_t now)
{
	struct sst_simpair *pair = arg;
	struct sst_net_endpoint ep = {.addr = {.family = SST_NET_IPV4}, .port = 40000};

	RTE_SET_USED(client);
	RTE_SET_USED(server);
	RTE_SET_USED(now);
	ep.addr.bytes[0] = 192;
	ep.addr.bytes[1] = 0;
	ep.addr.bytes[2] = 2;
	ep.addr.bytes[3] = 7;
	sst_simpair_set_endpoint(pair, 0, &ep);
}

/* An exchange over a clean simpair (50 Mbit/s, 1 ms each way) during which
 * ev happens 20 ms in (a move: at the first write), given the pair. */
static void
simpair_echo_with_event(struct event *ev, const char *over, uint64_t channels)
{
	struct sst_simlink_params lp;
	struct sst_simpair_conf sc[2];
	struct sst_simpair *pair;
	struct sst_link *l[2];

	sst_test_link_model(&lp, 50 * 1000 * 1000, SST_NSEC_PER_MSEC, 300, NULL, pool);
	pair = simpair_links(&lp, sc, l);
	ev->after = ev->moves_client ? 0 : 20 * SST_NSEC_PER_MSEC;
	ev->arg = pair;
	run_echo(l[0], l[1], over, ev, channels);
	CU_ASSERT_TRUE(ev->done);
	sst_simpair_destroy(pair);
}

/* Mobility, the SST way: right after the client's first write the client's
 * address and port change without its knowledge (a NAT rebinding). The server drops
 * what now comes from an endpoint it has no channel with, so the client's
 * data goes unacknowledged; the client notices the silence and negotiates
 * a new channel from where it is now, which the server knows by the
 * client's host instance: the peer moves there with its streams on both
 * sides, and the exchange completes byte-exact; both channels close when
 * idle. */
static void
test_echo_with_address_change(void)
{
	struct event ev = {.fn = rebind, .moves_client = true};

	simpair_echo_with_event(&ev, "a simpair whose client moves", 2);
}

/*
 * Channel replacement (issue 5): channels may number only 256 packets, so
 * they run out of sequence space several times during the exchange, over a
 * simpair with 1% loss and reordering each way. Each time the side near
 * the end negotiates a successor, the streams (and their lost segments)
 * move to it, the old channel closes by FINISH, and every byte arrives.
 * Twice: with the limit on both sides, and on the server's only (so the
 * responder of the first channel initiates the successors).
 */
static void
replacement_round(uint64_t client_limit, uint64_t server_limit, const char *over)
{
	struct sst_simlink_params lp;
	struct sst_simpair_conf sc[2];
	struct sst_simpair *pair;
	struct sst_link *l[2];

	sst_test_link_model(&lp, 50 * 1000 * 1000, SST_NSEC_PER_MSEC, 300,
		&(struct sst_test_impairments){.loss = 0.01, .reorder = 0.01}, pool);
	pair = simpair_links(&lp, sc, l);
	client_packet_limit = client_limit;
	server_packet_limit = server_limit;
	run_echo(l[0], l[1], over, NULL, 0);
	client_packet_limit = server_packet_limit = 0;
	sst_simpair_destroy(pair);
}

static void
test_echo_with_channel_replacement(void)
{
	replacement_round(256, 256, "a simpair, 256 packets per channel");
	replacement_round(0, 256, "a simpair, 256 packets per server channel");
}

static void
cross_replace(void *arg, struct node *client, struct node *server, sst_time_t now)
{
	RTE_SET_USED(arg);
	CU_ASSERT(sst_worker_connect(client->w, &server->self, SST_NEGO_MODE_CHECKSUM, now) == 0);
	CU_ASSERT(sst_worker_connect(server->w, &client->self, SST_NEGO_MODE_CHECKSUM, now) == 0);
}

/*
 * Crossing replacements: 20 ms into the exchange both sides negotiate a
 * new channel to the other in the same instant, as when each replaces one
 * channel at once. Over 1 ms each way each side has the other's channel up
 * a round trip before its own (checksum mode: the responder's side is up
 * at ChkI1), so "the newest channel takes the streams" would leave each
 * side sending on the channel the other retires. Both must keep the one
 * the first channel's initiator (the client) made, retire the other
 * unused (channels_crossed, once) and complete byte-exact; the first
 * channel and the loser close by FINISH while the streams are still open,
 * and the winner once they are done.
 */
static void
test_echo_with_crossing_replacements(void)
{
	struct event ev = {.fn = cross_replace, .one_channel = true};

	crossed = 0;
	simpair_echo_with_event(&ev, "a simpair, crossing replacements", 3);
	CU_ASSERT_EQUAL(crossed, 1);
}

static void
freeze_client_acks(void *arg, struct node *client, struct node *server, sst_time_t now)
{
	RTE_SET_USED(arg);
	RTE_SET_USED(client);
	RTE_SET_USED(server);
	RTE_SET_USED(now);
	checks[1].freeze_armed = true;
}

/*
 * Issue 15, finding 7(c): a peer that may be the 2007 prototype stops
 * acknowledging our packets on a channel (its 16-bit record of our numbers
 * freezes past 65,535 of them; here the client, posing as the prototype,
 * has its tap freeze the ack word of everything it sends on the first
 * channel from 20 ms in, while its own packets still arrive and are
 * acknowledged). The prototype renegotiates only when its own data stalls:
 * when it only receives it never migrates. So our side, the responder
 * sending the echo, must: its silence makes it negotiate a new channel to
 * the client, the streams move there and the echo completes byte-exact.
 */
static void
test_echo_with_legacy_acks_frozen(void)
{
	struct event ev = {.fn = freeze_client_acks};

	client_legacy = true;
	simpair_echo_with_event(&ev, "a simpair, a legacy client whose acks freeze", 2);
	client_legacy = false;
	printf("  ack words frozen: %llu; silences of server + client: %llu + %llu\n",
		(unsigned long long)checks[1].frozen, (unsigned long long)silences[0],
		(unsigned long long)silences[1]);
	CU_ASSERT(checks[1].frozen >= 1);
	CU_ASSERT(silences[0] >= 1);
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
static void
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

static void
connect_udp_pair(struct node *client, struct node *server)
{
	node_init(server, "srv", true, udp_link());
	connect_udp_pair_to(client, "cli", client_secret, server);
}

/*
 * Restart detection (issue 5): the client's host goes away without a word
 * (its worker destroyed, no FINISH) and comes back on the same address and
 * port as a new instance. The server learns it from the new negotiation,
 * drops the stale channel and aborts the streams that lived on it instead
 * of migrating them to the new channel. A client posing as the 2007
 * prototype (@p legacy) sends no instance: its new key tells (issue 15,
 * finding 7(d)); its ChkI1 for the number the server still holds used to
 * be ignored for 20 s.
 */
static void
run_restart(bool legacy)
{
	static struct node client, server;
	struct sst_net_endpoint cep;
	struct sst_link_conf lc = {.size = sizeof(lc), .driver = "udpsock", .pool = pool};

	client_legacy = legacy;
	connect_udp_pair(&client, &server);
	cep = client.self;
	CU_ASSERT_FATAL(sst_stream_write(client.s, chunk(0, 0, 1000), 0, now_ns()) == 0);
	POLL_UNTIL(&client, &server, client.echoed == 1000);
	CU_ASSERT_EQUAL(client.echoed, 1000);
	CU_ASSERT_EQUAL(sst_worker_stats(server.w)->channels_open, 1);

	/* Gone without a word, back on the same port as a new instance. */
	node_fini(&client);
	client_secret = 0xc2;
	lc.local = cep;
	node_init(&client, "cli", false, sst_link_open(&lc));
	CU_ASSERT_FATAL(
		sst_worker_connect(client.w, &server.self, SST_NEGO_MODE_CHECKSUM, now_ns()) == 0);
	POLL_UNTIL(&client, &server,
		client.peer != NULL && sst_worker_stats(server.w)->channels_open == 1 &&
			server.aborted == 1);
	CU_ASSERT_FATAL(client.peer != NULL);
	CU_ASSERT_EQUAL(sst_worker_stats(server.w)->restarts, 1);
	CU_ASSERT_EQUAL(sst_worker_stats(server.w)->channels_made, 2);
	CU_ASSERT_EQUAL(sst_worker_stats(server.w)->channels_open, 1);
	CU_ASSERT_EQUAL(server.aborted, 1);
	/* The new channel works. */
	client.echoed = 0;
	client.s = sst_stream_connect(client.peer, "echo", "test", now_ns());
	CU_ASSERT_FATAL(client.s != NULL);
	CU_ASSERT_FATAL(sst_stream_write(client.s, chunk(0, 0, 1000), 0, now_ns()) == 0);
	POLL_UNTIL(&client, &server, client.echoed == 1000);
	CU_ASSERT_EQUAL(client.echoed, 1000);
	CU_ASSERT_EQUAL(client.bad, 0);
	client_secret = 0xc1;
	client_legacy = false;
	node_fini(&client);
	node_fini(&server);
}

static void
test_restart_detected(void)
{
	run_restart(false);
}

static void
test_legacy_restart_detected(void)
{
	run_restart(true);
}

/*
 * Dead-peer detection (issue 15, finding 1): one side dies without a word
 * (kill -9: its worker and socket gone) while the other still has data in
 * flight to it. Nothing more is heard, so after dead_peer_timeout the
 * survivor declares it dead: its channel ends, its streams fail with
 * SST_STREAM_TIMED_OUT, and the peer's record is freed (peer_gone()). It
 * used to retransmit to the dead port every 60 s forever.
 */
static void
run_dead_peer(bool server_dies)
{
	static struct node client, server;
	struct node *dies = server_dies ? &server : &client;
	struct node *lives = server_dies ? &client : &server;
	sst_time_t deadline;
	uint64_t written = 0;

	dead_peer_timeout = SST_NSEC_PER_SEC;
	connect_udp_pair(&client, &server);
	/* Far more than the buffers hold: data is in flight both ways when
	 * the first echo comes back. */
	while (written < 60000) {
		struct rte_mbuf *m = chunk(0, written, 1000);

		if (sst_stream_write(client.s, m, 0, now_ns()) < 0) {
			rte_pktmbuf_free(m);
			break;
		}
		written += 1000;
	}
	POLL_UNTIL(&client, &server, client.echoed > 0);
	CU_ASSERT_FATAL(client.echoed > 0 && client.echoed < written);

	sst_worker_destroy(dies->w);
	sst_link_close(dies->link);
	/* A client that only waits to receive has nothing outstanding (as
	 * TCP without keepalive, its wait is the application's): it writes. */
	if (server_dies) {
		struct rte_mbuf *m = chunk(0, written, 1000);

		/* Refused only when the buffers are full of unacknowledged data. */
		if (sst_stream_write(client.s, m, 0, now_ns()) < 0)
			rte_pktmbuf_free(m);
	}
	deadline = now_ns() + 5 * SST_NSEC_PER_SEC;
	while (now_ns() < deadline &&
		(sst_worker_stats(lives->w)->channels_open != 0 || lives->timed_out == 0 ||
			(!server_dies && sst_worker_stats(lives->w)->peers_open != 0)))
		sst_worker_poll(lives->w, now_ns());
	CU_ASSERT_EQUAL(sst_worker_stats(lives->w)->dead_peers, 1);
	CU_ASSERT_EQUAL(sst_worker_stats(lives->w)->channels_open, 0);
	CU_ASSERT(lives->timed_out >= 1);
	if (server_dies) {
		/* The application still holds its stream: the peer stays until
		 * it lets go. */
		CU_ASSERT_EQUAL(sst_worker_stats(lives->w)->peers_open, 1);
		sst_stream_close(client.s, now_ns());
		sst_worker_poll(lives->w, now_ns());
	}
	CU_ASSERT_EQUAL(sst_worker_stats(lives->w)->peers_open, 0);
	CU_ASSERT_EQUAL(sst_worker_stats(lives->w)->peers_freed, 1);
	CU_ASSERT_EQUAL(lives->gone, 1);
	sst_worker_destroy(lives->w);
	sst_link_close(lives->link);
	dead_peer_timeout = 0;
}

static void
test_dead_client_freed(void)
{
	run_dead_peer(false);
}

static void
test_dead_server_fails_streams(void)
{
	run_dead_peer(true);
}

/*
 * Fair shares (issue 15, finding 4): a peer that opens more streams than
 * the server has control blocks and never reads an answer took every one
 * of them, and every later client got a channel whose streams were never
 * served. Now it holds at most its share (a quarter of each limit by
 * default) and hears a Reset for the rest, while another client is served.
 */
/* Streams of its peers the server holds or refused. */
static uint64_t
server_streams_seen(struct node *server)
{
	const struct sst_stream_host_stats *ss =
		sst_stream_host_stats(sst_worker_stream_host(server->w));

	return ss->streams_live + ss->peer_streams_refused + ss->no_stream;
}

static void
test_stream_hog_next_to_normal_client(void)
{
	static struct node hog, client, server;
	enum { HOG_STREAMS = 200 };
	const struct sst_stream_host_stats *ss;
	sst_time_t until;

	server_max_streams = 128;
	node_init(&server, "srv", true, udp_link());
	client_secret = 0xc3;
	client_buffers = 256;
	node_init(&hog, "hog", false, udp_link());
	client_secret = 0xc1;
	client_buffers = 0;
	hog.hog = true;
	CU_ASSERT_FATAL(
		sst_worker_connect(hog.w, &server.self, SST_NEGO_MODE_CHECKSUM, now_ns()) == 0);
	POLL_UNTIL(&hog, &server, hog.peer != NULL);
	CU_ASSERT_FATAL(hog.peer != NULL);
	for (int i = 0; i < HOG_STREAMS; i++) {
		struct sst_stream *s = sst_stream_connect(hog.peer, "echo", "test", now_ns());
		struct rte_mbuf *m = chunk(0, 0, 100);

		CU_ASSERT_FATAL(s != NULL);
		if (sst_stream_write(s, m, 0, now_ns()) < 0)
			rte_pktmbuf_free(m);
	}
	/* The hog's streams reach the server (their echoes are never read). */
	POLL_UNTIL(&hog, &server, server_streams_seen(&server) >= HOG_STREAMS);

	node_init(&client, "cli", false, udp_link());
	CU_ASSERT_FATAL(
		sst_worker_connect(client.w, &server.self, SST_NEGO_MODE_CHECKSUM, now_ns()) == 0);
	until = now_ns() + 10 * SST_NSEC_PER_SEC;
	while (now_ns() < until && client.echoed < 1000) {
		sst_worker_poll(server.w, now_ns());
		sst_worker_poll(hog.w, now_ns());
		sst_worker_poll(client.w, now_ns());
		if (client.peer != NULL && client.s == NULL) {
			client.s = sst_stream_connect(client.peer, "echo", "test", now_ns());
			CU_ASSERT_FATAL(client.s != NULL);
			CU_ASSERT_FATAL(
				sst_stream_write(client.s, chunk(0, 0, 1000), 0, now_ns()) == 0);
		}
	}
	ss = sst_stream_host_stats(sst_worker_stream_host(server.w));
	printf("\n  hog: %d streams opened, %llu refused beyond its share; server: %llu streams "
	       "live, %llu refused for want of a control block\n",
		HOG_STREAMS, (unsigned long long)ss->peer_streams_refused,
		(unsigned long long)ss->streams_live, (unsigned long long)ss->no_stream);
	CU_ASSERT_EQUAL(client.echoed, 1000);
	CU_ASSERT_EQUAL(client.bad, 0);
	CU_ASSERT(ss->peer_streams_refused > 0);
	CU_ASSERT(hog.aborted +
			  sst_stream_host_stats(sst_worker_stream_host(hog.w))->streams_reset_rx >
		  0);
	node_fini(&client);
	node_fini(&hog);
	node_fini(&server);
	server_max_streams = 0;
}

/* Polls the three until cond holds (10 s at most). */
#define POLL3_UNTIL(a, b, c, cond)                                    \
	do {                                                          \
		sst_time_t until_ = now_ns() + 10 * SST_NSEC_PER_SEC; \
		while (!(cond) && now_ns() < until_) {                \
			sst_worker_poll((a)->w, now_ns());            \
			sst_worker_poll((b)->w, now_ns());            \
			sst_worker_poll((c)->w, now_ns());            \
		}                                                     \
	} while (0)

/*
 * Bounded peers (issue 15): at max_peers, a new host takes the place of an
 * idle one (no stream, its channel unused) rather than being refused; one
 * whose streams are open keeps its place, and the newcomer is refused.
 */
static void
test_idle_peer_evicted_at_max_peers(void)
{
	static struct node first, second, third, server;

	server_max_peers = 2;
	node_init(&server, "srv", true, udp_link());
	server_max_peers = 0;
	connect_udp_pair_to(&first, "c1", 0xc4, &server);
	connect_udp_pair_to(&second, "c2", 0xc5, &server);
	/* The first leaves its stream; the second keeps one open. */
	CU_ASSERT_FATAL(sst_stream_write(first.s, chunk(0, 0, 1000), 0, now_ns()) == 0);
	POLL3_UNTIL(&first, &second, &server, first.echoed == 1000);
	sst_stream_close(first.s, now_ns());
	first.s = NULL;
	POLL3_UNTIL(&first, &second, &server,
		sst_stream_host_stats(sst_worker_stream_host(server.w))->streams_live == 1);
	CU_ASSERT_EQUAL(sst_worker_stats(server.w)->peers_open, 2);

	node_init(&third, "c3", false, udp_link());
	CU_ASSERT_FATAL(
		sst_worker_connect(third.w, &server.self, SST_NEGO_MODE_CHECKSUM, now_ns()) == 0);
	POLL3_UNTIL(&third, &second, &server, third.peer != NULL);
	CU_ASSERT_FATAL(third.peer != NULL);
	/* The idle first made way; the second, with its stream, stays. */
	sst_worker_poll(server.w, now_ns());
	CU_ASSERT_EQUAL(sst_worker_stats(server.w)->peers_evicted, 1);
	CU_ASSERT_EQUAL(sst_worker_stats(server.w)->peers_full, 0);
	CU_ASSERT_EQUAL(sst_worker_stats(server.w)->peers_open, 2);
	third.s = sst_stream_connect(third.peer, "echo", "test", now_ns());
	CU_ASSERT_FATAL(third.s != NULL);
	CU_ASSERT_FATAL(sst_stream_write(third.s, chunk(0, 0, 1000), 0, now_ns()) == 0);
	CU_ASSERT_FATAL(sst_stream_write(second.s, chunk(0, 0, 1000), 0, now_ns()) == 0);
	POLL3_UNTIL(&third, &second, &server, third.echoed == 1000 && second.echoed == 1000);
	CU_ASSERT_EQUAL(third.echoed, 1000);
	CU_ASSERT_EQUAL(second.echoed, 1000);
	/* Now both have streams open: a fourth host is refused. */
	node_fini(&first);
	node_init(&first, "c4", false, udp_link());
	CU_ASSERT_FATAL(
		sst_worker_connect(first.w, &server.self, SST_NEGO_MODE_CHECKSUM, now_ns()) == 0);
	POLL3_UNTIL(&first, &second, &server, sst_worker_stats(server.w)->peers_full > 0);
	sst_worker_poll(third.w, now_ns());
	CU_ASSERT(sst_worker_stats(server.w)->peers_full > 0);
	CU_ASSERT_EQUAL(sst_worker_stats(server.w)->peers_evicted, 1);
	node_fini(&first);
	node_fini(&second);
	node_fini(&third);
	node_fini(&server);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_echo_over_kernel_udp),
	SST_TEST(test_echo_over_impaired_simpair),
	SST_TEST(test_echo_with_address_change),
	SST_TEST(test_restart_detected),
	SST_TEST(test_legacy_restart_detected),
	SST_TEST(test_dead_client_freed),
	SST_TEST(test_dead_server_fails_streams),
	SST_TEST(test_stream_hog_next_to_normal_client),
	SST_TEST(test_idle_peer_evicted_at_max_peers),
	SST_TEST(test_echo_with_channel_replacement),
	SST_TEST(test_echo_with_crossing_replacements),
	SST_TEST(test_echo_with_legacy_acks_frozen),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_worker_echo") < 0 || sst_test_tap_register() < 0)
		return 1;
	pool = sst_test_pool("sst_udp_pool", 16383, 2048 + RTE_PKTMBUF_HEADROOM);
	clones = sst_test_pool("sst_udp_clones", 16383, 0);
	if (pool == NULL || clones == NULL)
		return 1;
	return sst_test_run("sst_udpsock", cases);
}
