/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The conformance matrix's hostile and unlucky peers (matrix_world.h): a
 * client that crashes mid-transfer, one that restarts on the same
 * endpoint, and one that sends packets with one illegal item each, sealed
 * with the channel's key.
 */
#include "matrix_world.h"
#include "stream_wire.h"

/* One illegal item in a packet otherwise valid and sealed with the
 * channel's key (the negative-packet case): what a hostile peer that holds
 * the key (any checksum-mode peer does) can send. */
enum forgery {
	FORGE_NONE,
	FORGE_ACK_BEYOND,     /**< acknowledges packets never sent */
	FORGE_SID_BEYOND,     /**< Data for a SID past the receiver's table */
	FORGE_PAST_WINDOW,    /**< Data 1 GiB past the stream's window */
	FORGE_ATTACH_UNKNOWN, /**< Attach of a stream nobody opened */
	FORGE_TRUNCATED,      /**< a stream header cut short */
	FORGE_SEQ_FAR,	      /**< a number far outside the replay window */
	FORGE_COUNT,
};

static const char *const forgery_names[FORGE_COUNT] = {
	[FORGE_ACK_BEYOND] = "ack beyond what was sent",
	[FORGE_SID_BEYOND] = "SID beyond the limit",
	[FORGE_PAST_WINDOW] = "data past the window",
	[FORGE_ATTACH_UNKNOWN] = "Attach to an unknown stream",
	[FORGE_TRUNCATED] = "truncated stream header",
	[FORGE_SEQ_FAR] = "number far outside the window",
};

/* The client's last Data packet on its first channel: SID and TSN, for a
 * forgery that names a live stream. */
static uint16_t last_data_sid;
static uint32_t last_data_tsn;

static void
put_be(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = bytes - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

/* Turn the client's ack-only packet m (flattened) into forgery kind,
 * sealed again with the key of the client's first channel. The carrier is
 * an ack-only packet because nothing rides on it: a Data packet replaced
 * would be acknowledged by the channel and its segment never resent.
 * @return false if m is no ack-only packet. */
static bool
forge_packet(struct rte_mbuf *m, int kind)
{
	const struct wire_check *wc = &checks[1];
	uint8_t *b;
	uint32_t body = SST_CHAN_HDR_LEN + SST_STREAM_HDR_LONG + 100, chk;
	uint64_t seq = wc->tx_highest;

	if (rte_pktmbuf_linearize(m) < 0 ||
		rte_pktmbuf_pkt_len(m) !=
			SST_CHAN_HDR_LEN + SST_STREAM_HDR_SHORT + SST_CHK32_TRAILER_LEN ||
		rte_pktmbuf_tailroom(m) < 200)
		return false;
	b = rte_pktmbuf_mtod(m, uint8_t *);
	if (b[10] >> 4 != SST_STREAM_ACK)
		return false;
	memset(b + SST_CHAN_HDR_LEN, 0, body - SST_CHAN_HDR_LEN);
	b[10] = SST_STREAM_DATA << 4 | SST_FLAG_PUSH;
	switch (kind) {
	case FORGE_ACK_BEYOND:
		put_be(b + 5, ((uint32_t)b[5] << 16 | b[6] << 8 | b[7]) + 0x100000, 3);
		b[10] = SST_STREAM_ACK << 4;
		body = SST_CHAN_HDR_LEN + SST_STREAM_HDR_SHORT;
		break;
	case FORGE_SID_BEYOND:
		put_be(b + 8, 0xfff0, 2);
		break;
	case FORGE_PAST_WINDOW:
		put_be(b + 8, last_data_sid, 2);
		put_be(b + 12, last_data_tsn + 0x40000000u, 4);
		break;
	case FORGE_ATTACH_UNKNOWN: {
		struct sst_usid usid = {.counter = 0x5eed5eed, .hcid_len = 8};
		int n;

		memset(usid.hcid, 0xab, usid.hcid_len);
		put_be(b + 8, 200, 2); /* a SID the client has not used */
		b[10] = SST_STREAM_ATTACH << 4;
		n = sst_attach_body_encode(&usid, NULL, b + 12, 64);
		if (n < 0)
			return false;
		body = 12 + (uint32_t)n;
		break;
	}
	case FORGE_TRUNCATED:
		body = SST_CHAN_HDR_LEN + 2;
		break;
	case FORGE_SEQ_FAR:
		/* 2^23 + 2^20 ahead in 24 bits: the receiver expands it to a
		 * number far behind its window, or to none at all. */
		put_be(b + 1, wc->tx_highest + 0x900000, 3);
		seq = wc->tx_highest + 0x900000 - 0x1000000;
		b[10] = SST_STREAM_ACK << 4;
		body = SST_CHAN_HDR_LEN + SST_STREAM_HDR_SHORT;
		break;
	default:
		return false;
	}
	m->data_len = (uint16_t)(body + SST_CHK32_TRAILER_LEN);
	m->pkt_len = body + SST_CHK32_TRAILER_LEN;
	chk = sst_chk32_mbuf(seq, m, body) + wc->first_cki;
	put_be(b + body, chk, 4);
	return true;
}

static int forge_next = FORGE_NONE; /**< enum forgery: the next ack-only packet becomes it */
static uint64_t forged;		    /**< forgeries sent */

static void
client_lies(struct path_ctl *pc, struct rte_mbuf *m)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);

	(void)pc;
	if (rte_pktmbuf_data_len(m) < SST_PACKET_MIN || b[0] != checks[1].first_chanr)
		return;
	if (b[10] >> 4 == SST_STREAM_DATA) {
		last_data_sid = (uint16_t)(b[8] << 8 | b[9]);
		last_data_tsn = (uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 | b[14] << 8 | b[15];
	} else if (forge_next != FORGE_NONE && forge_packet(m, forge_next)) {
		forge_next = FORGE_NONE;
		forged++;
	}
}

/* The client calls and its stream @p flow gets @p bytes echoed (within
 * 30 s): the transfer is under way. */
static void
echo_until(int flow, uint64_t bytes)
{
	matrix_connect();
	while (mx.client.flows[flow].echoed < bytes &&
		virtual_now < mx.start + 30 * SST_NSEC_PER_SEC)
		matrix_turn();
	CU_ASSERT_FATAL(mx.client.flows[flow].echoed >= bytes);
}

/* The client dies mid-transfer (nothing of it leaves again); the server,
 * with data in flight toward it, finds it dead after dead_peer_timeout and
 * frees everything: channels, peer, streams, and their mbufs. */
static void
test_matrix_crash_mid_transfer(void)
{
	struct sst_simlink_params lp;
	uint64_t want[2] = {4 * MIB, 4 * MIB};
	unsigned pool_free, clones_free;
	sst_time_t crash;

	dead_peer_timeout = 3 * SST_NSEC_PER_SEC;
	link_params(&lp, 20000000, 10 * SST_NSEC_PER_MSEC);
	matrix_open(&lp, &lp);
	pool_free = rte_mempool_avail_count(pool);
	clones_free = rte_mempool_avail_count(clones);
	flows_want(want, 2);
	echo_until(0, MIB);
	mx.path.client_dead = true;
	flows_free_pending(&mx.client);
	crash = virtual_now;
	while (sst_worker_stats(mx.server.w)->peers_open > 0 &&
		virtual_now < crash + 10 * SST_NSEC_PER_SEC)
		matrix_turn();
	printf("\n  server freed the dead client after %.2f s (timeout 3 s): dead peers %" PRIu64
	       ", channels open %" PRIu64 ", peers open %" PRIu64 "\n",
		(double)(virtual_now - crash) / 1e9, sst_worker_stats(mx.server.w)->dead_peers,
		sst_worker_stats(mx.server.w)->channels_open,
		sst_worker_stats(mx.server.w)->peers_open);
	CU_ASSERT_EQUAL(sst_worker_stats(mx.server.w)->dead_peers, 1);
	CU_ASSERT_EQUAL(sst_worker_stats(mx.server.w)->channels_open, 0);
	CU_ASSERT_EQUAL(sst_worker_stats(mx.server.w)->peers_open, 0);
	CU_ASSERT(virtual_now - crash < 3 * SST_NSEC_PER_SEC + 2 * SST_NSEC_PER_SEC);
	/* The client's worker goes (a crashed process's memory goes with it);
	 * the server still runs, and holds nothing of the client. */
	node_fini(&mx.client);
	mx.client.w = NULL;
	matrix_idle(SST_NSEC_PER_SEC);
	sst_simlink_flush(sst_simpair_link(mx.pair, 0));
	sst_simlink_flush(sst_simpair_link(mx.pair, 1));
	printf("  mbufs free: %u before, %u after; clones %u before, %u after\n", pool_free,
		rte_mempool_avail_count(pool), clones_free, rte_mempool_avail_count(clones));
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), pool_free);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(clones), clones_free);
	node_fini(&mx.server);
	sst_simpair_destroy(mx.pair);
	virtual_time = false;
	dead_peer_timeout = 0;
}

/* The client restarts (a new process on the same address and port, with a
 * new host secret) mid-transfer: the server finds the new instance by its
 * new key, drops the old one's channel and streams, and serves the new one. */
static void
test_matrix_peer_restart(void)
{
	struct sst_simlink_params lp;
	uint64_t want[2] = {2 * MIB, MIB};
	uint8_t secret_was = client_secret;

	link_params(&lp, 20000000, 10 * SST_NSEC_PER_MSEC);
	matrix_open(&lp, &lp);
	flows_want(want, 2);
	echo_until(0, MIB / 2);
	/* The old instance is gone without a word; the new one comes up on
	 * the same endpoint at once. */
	flows_free_pending(&mx.client);
	node_fini(&mx.client);
	client_secret = 0xc7;
	node_init(&mx.client, "cli2", false, path_link(1));
	client_secret = secret_was;
	mx.connecting = false;
	flows_want(want, 2);
	CU_ASSERT(matrix_run(60 * SST_NSEC_PER_SEC, NULL));
	report("peer restart");
	printf("  server: restarts %" PRIu64 ", channels open %" PRIu64 ", peers open %" PRIu64
	       "\n",
		sst_worker_stats(mx.server.w)->restarts,
		sst_worker_stats(mx.server.w)->channels_open,
		sst_worker_stats(mx.server.w)->peers_open);
	check_exact();
	CU_ASSERT_EQUAL(sst_worker_stats(mx.server.w)->restarts, 1);
	CU_ASSERT_EQUAL(sst_worker_stats(mx.server.w)->peers_open, 1);
	CU_ASSERT_EQUAL(sst_worker_stats(mx.server.w)->channels_open, 1);
	CU_ASSERT_EQUAL(sst_worker_stats(mx.server.w)->dead_peers, 0);
	matrix_done();
}

/* What the server counts of refused packets, and what it holds. */
struct server_view {
	uint64_t refusals[8];
	uint64_t accepted, opened, live, channels_open, channels_made, peers_open;
};

static void
server_view(struct server_view *v)
{
	const struct sst_stream_host_stats *h =
		sst_stream_host_stats(sst_worker_stream_host(mx.server.w));
	const struct sst_worker_stats *w = sst_worker_stats(mx.server.w);
	struct sst_channel_stats c = chan_totals();

	*v = (struct server_view){
		.refusals = {c.rx_bad_trailer, c.rx_too_old, c.rx_malformed,
			w->channels.rx_ack_beyond, h->rx_malformed,
			h->rx_unknown_sid + h->stateless_resets, h->rx_refused, w->rx_no_channel},
		.accepted = h->streams_accepted,
		.opened = h->streams_opened,
		.live = h->streams_live,
		.channels_open = w->channels_open,
		.channels_made = w->channels_made,
		.peers_open = w->peers_open,
	};
}

/* Negative packets: during a transfer, one forged packet of each kind
 * toward the server. Each is refused and counted; none opens a stream,
 * changes the channels or the peers, or fails the channel; the transfer
 * ends byte exact. */
static void
test_matrix_negative_packets(void)
{
	static const char *const counter_names[8] = {"armor", "too old", "channel malformed",
		"ack beyond", "stream malformed", "unknown SID", "stream refused", "no channel"};
	struct sst_simlink_params lp;
	uint64_t want[2] = {4 * MIB, 4 * MIB};

	/* The streams stay open (no Close) while the forgeries go: a forgery
	 * that names one must meet a stream that still receives. 5 Mbit/s:
	 * the echo lasts long enough to carry every forgery. */
	link_params(&lp, 5000000, 10 * SST_NSEC_PER_MSEC);
	matrix_open(&lp, &lp);
	mx.hold_shut = true;
	mx.path.client_tx = client_lies;
	flows_want(want, 2);
	echo_until(1, MIB / 4);
	printf("\n");
	for (int kind = FORGE_NONE + 1; kind < FORGE_COUNT; kind++) {
		struct server_view before, after;
		struct sst_simlink_stats st;
		uint64_t refused = 0, queued;
		sst_time_t until;
		char what[160];
		int k = 0;

		server_view(&before);
		forge_next = kind;
		/* Carriers are the client's ack-only packets: while it receives
		 * the echo, then keepalives (every 15 s) once all is echoed. */
		until = virtual_now + 30 * SST_NSEC_PER_SEC;
		while (forge_next != FORGE_NONE && virtual_now < until)
			matrix_turn();
		CU_ASSERT_FATAL(forge_next == FORGE_NONE);
		/* Until the forgery is through the path's queue. */
		sst_simlink_stats_get(sst_simpair_link(mx.pair, 1), &st);
		queued = st.sent;
		do {
			matrix_turn();
			sst_simlink_stats_get(sst_simpair_link(mx.pair, 1), &st);
		} while (st.delivered + st.dropped_queue + st.dropped_loss < queued);
		server_view(&after);
		what[0] = 0;
		for (int i = 0; i < 8; i++) {
			uint64_t d = after.refusals[i] - before.refusals[i];

			refused += d;
			if (d > 0)
				k += snprintf(what + k, sizeof(what) - (size_t)k, " %s +%" PRIu64,
					counter_names[i], d);
		}
		printf("  %-30s (%.2f s) refused:%s\n", forgery_names[kind],
			(double)(virtual_now - mx.start) / 1e9,
			k > 0 ? what : " (nothing counted)");
		CU_ASSERT(refused >= 1);
		CU_ASSERT_EQUAL(after.accepted, before.accepted);
		CU_ASSERT_EQUAL(after.opened, before.opened);
		CU_ASSERT_EQUAL(after.channels_made, before.channels_made);
		CU_ASSERT_EQUAL(after.channels_open, before.channels_open);
		CU_ASSERT_EQUAL(after.peers_open, before.peers_open);
	}
	CU_ASSERT_EQUAL(forged, FORGE_COUNT - 1);
	mx.hold_shut = false;
	CU_ASSERT(matrix_run(120 * SST_NSEC_PER_SEC, NULL));
	report("negative packets");
	check_exact();
	CU_ASSERT_EQUAL(sst_worker_stats(mx.server.w)->channels_made, 1);
	matrix_done();
}

/* The client dies the moment its first channel packet would leave: the
 * server answered its ChkI1 and holds a channel it never hears on. */
static void
client_dies_after_i1(struct path_ctl *pc, struct rte_mbuf *m)
{
	if (rte_pktmbuf_data_len(m) > 0 && rte_pktmbuf_mtod(m, const uint8_t *)[0] != 0)
		pc->client_dead = true;
}

/* A checksum responder's channel its initiator never used ends after
 * UNHEARD_IDLE (10 s) unused, without waiting for a FINISH or for
 * dead-peer detection: what a spoofed ChkI1 from before the host went
 * under load leaves, and the load it keeps up, go soon. */
static void
test_matrix_unheard_channel(void)
{
	struct sst_simlink_params lp;
	uint64_t want[1] = {1000};
	sst_time_t up;

	/* The worker's default idle timeout (60 s): the unheard rule alone
	 * ends the channel. */
	node_idle_timeout = 60 * SST_NSEC_PER_SEC;
	link_params(&lp, 20000000, 10 * SST_NSEC_PER_MSEC);
	matrix_open(&lp, &lp);
	mx.path.client_tx = client_dies_after_i1;
	mx.client.hog = true; /* its stream never connects: no error asserted */
	flows_want(want, 1);
	matrix_connect();
	while (sst_worker_stats(mx.server.w)->channels_open == 0 &&
		virtual_now < mx.start + 5 * SST_NSEC_PER_SEC)
		matrix_turn();
	CU_ASSERT_FATAL(sst_worker_stats(mx.server.w)->channels_open == 1);
	up = virtual_now;
	while (sst_worker_stats(mx.server.w)->peers_open > 0 &&
		virtual_now < up + 30 * SST_NSEC_PER_SEC)
		matrix_turn();
	printf("\n  a channel never heard on ended after %.2f s: unheard %" PRIu64
	       ", dead peers %" PRIu64 ", channels open %" PRIu64 ", peers open %" PRIu64 "\n",
		(double)(virtual_now - up) / 1e9, sst_worker_stats(mx.server.w)->channels_unheard,
		sst_worker_stats(mx.server.w)->dead_peers,
		sst_worker_stats(mx.server.w)->channels_open,
		sst_worker_stats(mx.server.w)->peers_open);
	CU_ASSERT_EQUAL(sst_worker_stats(mx.server.w)->channels_unheard, 1);
	CU_ASSERT_EQUAL(sst_worker_stats(mx.server.w)->dead_peers, 0);
	CU_ASSERT_EQUAL(sst_worker_stats(mx.server.w)->channels_open, 0);
	CU_ASSERT_EQUAL(sst_worker_stats(mx.server.w)->peers_open, 0);
	CU_ASSERT(virtual_now - up < 11 * SST_NSEC_PER_SEC);
	flows_free_pending(&mx.client);
	node_fini(&mx.client);
	mx.client.w = NULL;
	node_fini(&mx.server);
	sst_simpair_destroy(mx.pair);
	virtual_time = false;
	node_idle_timeout = 0;
}

/* A client that connects and then says nothing for longer than
 * UNHEARD_IDLE loses its channel at the server without knowing; its first
 * stream afterwards meets silence, and the client negotiates a new
 * channel (silence_check()): served, only a little later. */
static void
test_matrix_quiet_client(void)
{
	struct sst_simlink_params lp;
	uint64_t want[1] = {64 * 1024};

	node_idle_timeout = 60 * SST_NSEC_PER_SEC;
	link_params(&lp, 20000000, 10 * SST_NSEC_PER_MSEC);
	matrix_open(&lp, &lp);
	matrix_connect();
	matrix_idle(15 * SST_NSEC_PER_SEC);
	printf("\n  server after 15 s of a quiet client: channels open %" PRIu64
	       ", unheard %" PRIu64 "\n",
		sst_worker_stats(mx.server.w)->channels_open,
		sst_worker_stats(mx.server.w)->channels_unheard);
	CU_ASSERT_EQUAL(sst_worker_stats(mx.server.w)->channels_unheard, 1);
	flows_want(want, 1);
	CU_ASSERT(matrix_run(30 * SST_NSEC_PER_SEC, NULL));
	report("a client quiet for 15 s after its handshake");
	check_exact();
	/* The idle close below waits for the test's shorter idle timeout. */
	node_idle_timeout = 0;
	matrix_close();
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_matrix_crash_mid_transfer),
	SST_TEST(test_matrix_peer_restart),
	SST_TEST(test_matrix_negative_packets),
	SST_TEST(test_matrix_unheard_channel),
	SST_TEST(test_matrix_quiet_client),
	SST_TEST_END,
};

int
main(void)
{
	return matrix_main("matrix_hostile", cases);
}
