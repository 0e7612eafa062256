/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The conformance matrix's transfers over impaired paths (matrix_world.h):
 * a clean handshake, concurrent streams, a long path, loss, corruption,
 * blackouts, NAT rebinding, duplicates and reordering, channel replacement
 * under load, and the leak census after all of it.
 */
#include "matrix_world.h"

static void
test_matrix_handshake(void)
{
	uint64_t want[1] = {64 * 1024};

	transfer("handshake", 100000000, 10 * SST_NSEC_PER_MSEC, 0, want, 1, 10 * SST_NSEC_PER_SEC,
		NULL);
	CU_ASSERT_EQUAL(sst_worker_stats(mx.client.w)->channels_made, 1);
	CU_ASSERT_EQUAL(sst_worker_nego_stats(mx.server.w)->established_responder, 1);
	CU_ASSERT_EQUAL(sst_worker_nego_stats(mx.client.w)->established_initiator, 1);
	/* One round trip of negotiation: no ChkI1 resent on a clean path. */
	CU_ASSERT_EQUAL(sst_worker_nego_stats(mx.client.w)->tx_i1_retx, 0);
	matrix_done();
}

static void
test_matrix_transfer_2_3_5(void)
{
	uint64_t want[3] = {2 * MIB, 3 * MIB, 5 * MIB};

	transfer("2+3+5 MiB on three streams", 100000000, 10 * SST_NSEC_PER_MSEC, 0, want, 3,
		60 * SST_NSEC_PER_SEC, NULL);
	matrix_done();
}

static void
test_matrix_long_rtt(void)
{
	uint64_t want[2] = {MIB, MIB / 2};

	/* 750 ms each way: the round trip (1.5 s) is longer than the first
	 * retransmission timeout (1 s), so the first ChkI1 and the first data
	 * are sent again before any answer can come. */
	transfer("750 ms one way", 10000000, 750 * SST_NSEC_PER_MSEC, 0, want, 2,
		120 * SST_NSEC_PER_SEC, NULL);
	CU_ASSERT_EQUAL(sst_worker_stats(mx.client.w)->dead_peers, 0);
	CU_ASSERT_EQUAL(sst_worker_stats(mx.server.w)->dead_peers, 0);
	matrix_done();
}

static void
test_matrix_transfer_loss(void)
{
	uint64_t want[2] = {3 * MIB, 2 * MIB};
	struct sst_simlink_stats st[2];

	transfer("2 % loss each way", 50000000, 20 * SST_NSEC_PER_MSEC, 0.02, want, 2,
		120 * SST_NSEC_PER_SEC, NULL);
	for (int i = 0; i < 2; i++)
		sst_simlink_stats_get(sst_simpair_link(mx.pair, i), &st[i]);
	printf("  lost on the path: %" PRIu64 " + %" PRIu64 " packets\n", st[0].dropped_loss,
		st[1].dropped_loss);
	CU_ASSERT(st[0].dropped_loss > 0 && st[1].dropped_loss > 0);
	matrix_done();
}

static void
test_matrix_corruption(void)
{
	struct sst_simlink_params lp;
	uint64_t want[2] = {2 * MIB, MIB};
	struct sst_channel_stats before, after;
	uint64_t no_chan[2], rejected;

	/* A third of the negotiation messages and 5 % of the channel packets,
	 * each way, with one bit flipped. */
	link_params(&lp, 50000000, 10 * SST_NSEC_PER_MSEC);
	matrix_open(&lp, &lp);
	mx.path.corrupt_nego = 0.3;
	mx.path.corrupt_nego_first = 3;
	mx.path.corrupt_chan = 0.05;
	flows_want(want, 2);
	before = chan_totals();
	no_chan[0] = sst_worker_stats(mx.server.w)->rx_no_channel +
		     sst_worker_stats(mx.client.w)->rx_no_channel;
	CU_ASSERT(matrix_run(120 * SST_NSEC_PER_SEC, NULL));
	mx.path.corrupt_chan = 0;
	mx.path.corrupt_nego = 0;
	after = chan_totals();
	no_chan[1] = sst_worker_stats(mx.server.w)->rx_no_channel +
		     sst_worker_stats(mx.client.w)->rx_no_channel;
	rejected = after.rx_bad_trailer - before.rx_bad_trailer + after.rx_too_old -
		   before.rx_too_old + after.rx_duplicate - before.rx_duplicate +
		   after.rx_malformed - before.rx_malformed;
	report("corruption");
	{
		const struct sst_nego_stats *n[2] = {
			sst_worker_nego_stats(mx.server.w), sst_worker_nego_stats(mx.client.w)};

		for (int i = 0; i < 2; i++)
			printf("  %s negotiation: %" PRIu64 " messages, %" PRIu64
			       " malformed, %" PRIu64 " bad chunks, %" PRIu64
			       " unmatched R1, %" PRIu64 " I1 conflicts; established %" PRIu64 "\n",
				i == 0 ? "server" : "client", n[i]->rx_msgs, n[i]->rx_malformed,
				n[i]->rx_bad_chunk, n[i]->rx_r1_unmatched, n[i]->rx_i1_conflict,
				n[i]->established_initiator + n[i]->established_responder);
	}
	printf("  corrupted: %" PRIu64 " negotiation, %" PRIu64
	       " channel packets; rejected by the channels: %" PRIu64 " armor, %" PRIu64
	       " too old, %" PRIu64 " duplicate; for no channel: %" PRIu64 "\n",
		mx.path.corrupted_nego, mx.path.corrupted_chan,
		after.rx_bad_trailer - before.rx_bad_trailer, after.rx_too_old - before.rx_too_old,
		after.rx_duplicate - before.rx_duplicate, no_chan[1] - no_chan[0]);
	printf("  the client called %u times\n", mx.calls);
	check_exact();
	CU_ASSERT(mx.path.corrupted_chan > 100);
	/* Every corrupted channel packet was rejected and counted: by the
	 * armor, or by the replay window when the flip hit the number, or,
	 * when its channel had just been replaced (a run of losses can look
	 * like silence) or a corrupted ChkI1 made the server a channel the
	 * client never knew, by the worker as for no channel. No other packet
	 * is rejected by a channel on this path (nothing else is corrupted,
	 * duplicated or late): with one channel each side the count is exact. */
	CU_ASSERT(rejected <= mx.path.corrupted_chan);
	CU_ASSERT(rejected + no_chan[1] - no_chan[0] >= mx.path.corrupted_chan);
	if (sst_worker_stats(mx.client.w)->channels_made == 1 &&
		sst_worker_stats(mx.server.w)->channels_made == 1)
		CU_ASSERT_EQUAL(rejected, mx.path.corrupted_chan);
	matrix_done();
}

/* A blackout of 5 s every 7 s, both ways, from 1 s into the run. */
static void
blackhole_5_on_2_off(sst_time_t elapsed)
{
	sst_time_t phase;

	if (elapsed < SST_NSEC_PER_SEC) {
		mx.path.blackhole = false;
		return;
	}
	phase = (elapsed - SST_NSEC_PER_SEC) % (7 * SST_NSEC_PER_SEC);
	mx.path.blackhole = phase < 5 * SST_NSEC_PER_SEC;
}

/*
 * Between blackouts the windows are a few packets (each blackout's
 * timeouts leave ssthresh at two), so the run takes what the link carries
 * at such windows: 253 s of virtual time until session 16, 323 to 330 s
 * since a packet waits for room for all of it under the window (the flight
 * no longer passes cwnd by up to a packet) and the pacer sends no runs of
 * three. The limit is for a transfer that stalls.
 */
static void
test_matrix_blackhole(void)
{
	uint64_t want[2] = {6 * MIB, 4 * MIB};

	transfer("blackhole 5 s on, 2 s off", 20000000, 20 * SST_NSEC_PER_MSEC, 0, want, 2,
		450 * SST_NSEC_PER_SEC, blackhole_5_on_2_off);
	mx.path.blackhole = false;
	printf("  packets eaten by the blackouts: %" PRIu64 "\n", mx.path.dropped_in_black);
	CU_ASSERT(mx.path.dropped_in_black > 0);
	/* A 5 s outage is no death: dead_peer_timeout is 30 s. */
	CU_ASSERT_EQUAL(sst_worker_stats(mx.client.w)->dead_peers, 0);
	CU_ASSERT_EQUAL(sst_worker_stats(mx.server.w)->dead_peers, 0);
	matrix_done();
}

/* Every 5 s the client's NAT gives it a new mapping: a new port, then a
 * new address, in turn. */
static void
nat_rebinding(sst_time_t elapsed)
{
	static unsigned moves;
	unsigned due = (unsigned)(elapsed / (5 * SST_NSEC_PER_SEC));

	if (elapsed == 0)
		moves = 0;
	while (moves < due) {
		moves++;
		if (moves % 2 == 1)
			mx.client_ep.port = (uint16_t)(mx.client_ep.port + 1000);
		else
			mx.client_ep.addr.bytes[3] = (uint8_t)(mx.client_ep.addr.bytes[3] + 10);
		sst_simpair_set_endpoint(mx.pair, 1, &mx.client_ep);
	}
}

static void
test_matrix_nat_rebinding(void)
{
	uint64_t want[2] = {3 * MIB, 2 * MIB};
	uint64_t moves;

	/* 3 Mbit/s: the echo takes about 30 s, five rebindings. */
	nat_rebinding(0);
	transfer("NAT rebinding every 5 s", 3000000, 20 * SST_NSEC_PER_MSEC, 0, want, 2,
		300 * SST_NSEC_PER_SEC, nat_rebinding);
	moves = (virtual_now - mx.start) / (5 * SST_NSEC_PER_SEC);
	printf("  server saw %" PRIu64 " path changes for %" PRIu64 " rebindings\n",
		sst_worker_stats(mx.server.w)->path_changes, moves);
	CU_ASSERT(moves >= 3);
	CU_ASSERT(sst_worker_stats(mx.server.w)->path_changes >= 3);
	CU_ASSERT_EQUAL(sst_worker_stats(mx.server.w)->restarts, 0);
	matrix_done();
}

/* The client moves once, when for 150 ms (more than three round trips)
 * it sent nothing but acknowledgments while the echo still comes: all it
 * wrote is with the server, whose echo of it takes half a second more. */
static struct {
	sst_time_t last_data; /**< the client's last packet larger than an ack */
	uint64_t echoed_at_move;
	bool moved;
} receiving;

/* An ack-only packet: the channel header, its ack word, the trailer. */
enum { ACK_ONLY_MAX = 64 };

static void
note_client_data(struct path_ctl *pc, struct rte_mbuf *m)
{
	(void)pc;
	if (rte_pktmbuf_pkt_len(m) > ACK_ONLY_MAX)
		receiving.last_data = virtual_now;
}

static void
rebind_while_receiving(sst_time_t elapsed)
{
	const struct node_flow *f = &mx.client.flows[0];

	(void)elapsed;
	if (receiving.moved || f->echoed == 0 ||
		virtual_now - receiving.last_data < 150 * SST_NSEC_PER_MSEC)
		return;
	receiving.moved = true;
	receiving.echoed_at_move = f->echoed;
	mx.client_ep.port = (uint16_t)(mx.client_ep.port + 1000);
	sst_simpair_set_endpoint(mx.pair, 1, &mx.client_ep);
}

/*
 * A client whose NAT mapping changes when it has nothing of its own in
 * flight: it only acknowledges the echo, and the server drops those acks
 * as coming from an endpoint it does not know. The client must still
 * notice (its acknowledgments go unanswered while the server keeps
 * sending) and renegotiate, long before the server's dead-peer timeout;
 * before, it waited for data of its own to stall, which never came, and
 * the server declared it dead 30 s later (the matrix's nat_rebinding case
 * stalled so when a rebinding fell between the end of the upload and the
 * end of the echo).
 */
static void
test_matrix_nat_rebinding_receiving(void)
{
	struct sst_simlink_params down, up;
	uint64_t want[1] = {MIB};

	/* Echo slower than the upload: the echo of the server's buffered
	 * data is still coming when the upload is done. */
	link_params(&down, 1000000, 20 * SST_NSEC_PER_MSEC);
	down.queue_pkts = 16;
	link_params(&up, 50000000, 20 * SST_NSEC_PER_MSEC);
	memset(&receiving, 0, sizeof(receiving));
	matrix_open(&down, &up);
	mx.path.client_tx = note_client_data;
	flows_want(want, 1);
	CU_ASSERT(matrix_run(25 * SST_NSEC_PER_SEC, rebind_while_receiving));
	report("NAT rebinding while only receiving");
	printf("  moved with %" PRIu64 " of %" PRIu64 " bytes echoed; path changes %" PRIu64
	       ", dead peers %" PRIu64 "\n",
		receiving.echoed_at_move, want[0], sst_worker_stats(mx.server.w)->path_changes,
		sst_worker_stats(mx.server.w)->dead_peers);
	CU_ASSERT(receiving.moved);
	CU_ASSERT(receiving.echoed_at_move < want[0]);
	check_exact();
	CU_ASSERT_EQUAL(sst_worker_stats(mx.server.w)->path_changes, 1);
	CU_ASSERT_EQUAL(sst_worker_stats(mx.server.w)->dead_peers, 0);
	CU_ASSERT_EQUAL(sst_worker_stats(mx.server.w)->restarts, 0);
	matrix_done();
}

static void
test_matrix_replay_reorder(void)
{
	struct sst_simlink_params lp, bad;
	uint64_t want[2] = {2 * MIB, MIB};
	struct sst_simlink_stats st[2];
	struct sst_channel_stats before, after;
	uint64_t dups;

	link_params(&lp, 50000000, 10 * SST_NSEC_PER_MSEC);
	matrix_open(&lp, &lp);
	flows_want(want, 2);
	/* Duplication and reordering start once the channel is up, so that
	 * every copy the path makes is a channel packet. */
	matrix_connect();
	while (mx.client.peer == NULL && virtual_now < mx.start + 5 * SST_NSEC_PER_SEC)
		matrix_turn();
	CU_ASSERT_FATAL(mx.client.peer != NULL);
	before = chan_totals();
	bad = lp;
	bad.duplicate = 0.1;
	bad.reorder = 0.1;
	bad.reorder_delay_ns = 3 * SST_NSEC_PER_MSEC;
	for (int i = 0; i < 2; i++) {
		bad.seed = seed + 7 + (uint64_t)i;
		CU_ASSERT_FATAL(sst_simlink_set_params(sst_simpair_link(mx.pair, i), &bad) == 0);
		sst_simlink_stats_reset(sst_simpair_link(mx.pair, i));
	}
	CU_ASSERT(matrix_run(120 * SST_NSEC_PER_SEC, NULL));
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_FATAL(sst_simlink_set_params(sst_simpair_link(mx.pair, i), &lp) == 0);
		sst_simlink_stats_get(sst_simpair_link(mx.pair, i), &st[i]);
	}
	after = chan_totals();
	dups = st[0].duplicated + st[1].duplicated;
	report("duplicates 10 %, reordering 10 %");
	printf("  copies made by the path: %" PRIu64 ", packets held back: %" PRIu64
	       "; dropped as duplicate %" PRIu64 ", too old %" PRIu64 "\n",
		dups, st[0].reordered + st[1].reordered, after.rx_duplicate - before.rx_duplicate,
		after.rx_too_old - before.rx_too_old);
	check_exact();
	CU_ASSERT(dups > 100);
	/* Every copy was dropped and counted: as a duplicate, or as too old
	 * when the replay window had moved past it (which a held-back
	 * original can be too: hence at least, not exactly). */
	CU_ASSERT(after.rx_duplicate - before.rx_duplicate <= dups);
	CU_ASSERT(after.rx_duplicate - before.rx_duplicate + after.rx_too_old - before.rx_too_old >=
		  dups);
	matrix_done();
}

static void
test_matrix_replacement_under_load(void)
{
	uint64_t want[3] = {2 * MIB, 2 * MIB, MIB};

	/* Keys run out every 1,000 packets on both sides, with loss: the
	 * channels are replaced many times with data in flight each time. */
	client_packet_limit = 1000;
	server_packet_limit = 1000;
	transfer("replacement under load", 50000000, 10 * SST_NSEC_PER_MSEC, 0.01, want, 3,
		120 * SST_NSEC_PER_SEC, NULL);
	CU_ASSERT(sst_worker_stats(mx.client.w)->channels_made >= 5);
	CU_ASSERT(sst_worker_stats(mx.client.w)->channels_replaced +
			  sst_worker_stats(mx.server.w)->channels_replaced >=
		  4);
	close_and_settle();
	client_packet_limit = 0;
	server_packet_limit = 0;
	matrix_close();
}

/* Leak census: after a lossy, reordered transfer with channel
 * replacements, everything closed: every mbuf is back in its pool (and,
 * under ASan, LeakSanitizer finds no heap block left at exit). */
static void
test_matrix_leak_census(void)
{
	struct sst_simlink_params lp;
	uint64_t want[3] = {MIB, MIB, MIB / 2};
	unsigned pool_free = rte_mempool_avail_count(pool);
	unsigned clones_free = rte_mempool_avail_count(clones);

	client_packet_limit = 1500;
	link_params(&lp, 50000000, 10 * SST_NSEC_PER_MSEC);
	lp.loss = 0.02;
	lp.reorder = 0.05;
	lp.reorder_delay_ns = 2 * SST_NSEC_PER_MSEC;
	lp.duplicate = 0.02;
	matrix_open(&lp, &lp);
	flows_want(want, 3);
	CU_ASSERT(matrix_run(120 * SST_NSEC_PER_SEC, NULL));
	report("leak census");
	check_exact();
	CU_ASSERT(sst_worker_stats(mx.client.w)->channels_made >= 2);
	close_and_settle();
	client_packet_limit = 0;
	matrix_close();
	printf("  mbufs free: %u of %u before, %u after; clones %u before, %u after\n", pool_free,
		pool->size, rte_mempool_avail_count(pool), clones_free,
		rte_mempool_avail_count(clones));
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), pool_free);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(clones), clones_free);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_matrix_handshake),
	SST_TEST(test_matrix_transfer_2_3_5),
	SST_TEST(test_matrix_long_rtt),
	SST_TEST(test_matrix_transfer_loss),
	SST_TEST(test_matrix_corruption),
	SST_TEST(test_matrix_blackhole),
	SST_TEST(test_matrix_nat_rebinding),
	SST_TEST(test_matrix_nat_rebinding_receiving),
	SST_TEST(test_matrix_replay_reorder),
	SST_TEST(test_matrix_replacement_under_load),
	SST_TEST(test_matrix_leak_census),
	SST_TEST_END,
};

int
main(void)
{
	return matrix_main("matrix_stack", cases);
}
