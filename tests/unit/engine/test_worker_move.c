/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A peer that moves between the workers of a sharded server
 * (lib/engine/worker_move.c): a two-worker server shares one link (as
 * SO_REUSEPORT sockets share a port; the worker polled first takes every
 * packet, so the software dispatch does the sharding), a client echoes
 * 300 KB through it, and right after its first write its address and port
 * change without its knowledge to an endpoint that hashes to the other
 * server worker. The client falls silent and negotiates from its new
 * endpoint; the worker that endpoint hashes to finds the client's host
 * instance in the engine's directory, hands the ChkI1 to the worker that
 * holds the peer and steers the endpoint there; that worker moves the peer
 * (path_changes 1) and every byte is echoed. When the channels have ended
 * and the endpoint's quiet period passed, both steering entries are gone.
 * Virtual time: the quiet period (20 s) costs nothing. The same in secure
 * mode, where the SecI1 is handed over and the holder answers the whole
 * handshake.
 */
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "sst_shard.h"
#include "worker_internal.h"
#include "worker_nodes.h"

static sst_time_t
pair_clock(void *ctx)
{
	RTE_SET_USED(ctx);
	return now_ns();
}

/* Poll every node once, 50 us of virtual time later. */
static void
poll_all(struct node *const *nodes, int n)
{
	virtual_now += 50 * SST_NSEC_PER_USEC;
	for (int i = 0; i < n; i++)
		sst_worker_poll(nodes[i]->w, now_ns());
}

static void
write_some(struct node *client, uint64_t *written, bool *shut)
{
	while (*written < TOTAL) {
		uint32_t len = (uint32_t)RTE_MIN(1 + *written % 1777, TOTAL - *written);
		struct rte_mbuf *m = chunk(0, *written, len);

		if (sst_stream_write(client->s, m, 0, now_ns()) < 0) {
			rte_pktmbuf_free(m);
			return;
		}
		*written += len;
	}
	if (!*shut) {
		sst_stream_shutdown(client->s, now_ns());
		*shut = true;
	}
}

static void
echo_with_move(enum sst_nego_mode mode)
{
	static struct node client, srv[2];
	static struct secure_side sec[2];
	struct node *const nodes[] = {&srv[0], &srv[1], &client};
	struct sst_net_endpoint ep[2] = {0}, moved = {.addr = {.family = SST_NET_IPV4}};
	struct sst_link_conf lc = {.size = sizeof(lc), .driver = "simpair", .pool = pool};
	struct sst_simpair_conf sc[2];
	struct sst_simlink_params lp;
	struct sst_shard_map map;
	struct rte_ring *inboxes[2];
	struct sst_simpair *pair;
	struct sst_link *l[2];
	uint16_t owner, other;
	uint64_t written = 0;
	bool shut = false;
	sst_time_t deadline;

	virtual_time = true;
	virtual_now = SST_NSEC_PER_SEC;
	for (int i = 0; i < 2; i++) {
		ep[i].addr.family = SST_NET_IPV4;
		ep[i].addr.bytes[0] = 10;
		ep[i].addr.bytes[3] = (uint8_t)(1 + i);
		ep[i].port = 8661;
	}
	/* The move goes to an endpoint the other worker owns. */
	sst_shard_map_init(&map, 2);
	owner = sst_shard_owner(&map, &ep[0]);
	moved.addr.bytes[0] = 192;
	moved.addr.bytes[2] = 2;
	moved.addr.bytes[3] = 7;
	for (moved.port = 40000; sst_shard_owner(&map, &moved) == owner; moved.port++)
		;
	other = sst_shard_owner(&map, &moved);
	printf("\n  client at port 8661 (worker %u), moves to port %u (worker %u)\n", owner,
		moved.port, other);

	sst_test_link_model(&lp, 50 * 1000 * 1000, SST_NSEC_PER_MSEC, 300, NULL, pool);
	pair = sst_simpair_create(&lp, &lp, &ep[0], &ep[1], pair_clock, NULL);
	CU_ASSERT_FATAL(pair != NULL);
	for (int i = 0; i < 2; i++) {
		char name[32];

		sc[i] = (struct sst_simpair_conf){.pair = pair, .side = i};
		lc.driver_conf = &sc[i];
		l[i] = sst_link_open(&lc);
		CU_ASSERT_FATAL(l[i] != NULL);
		snprintf(name, sizeof(name), "mob_inbox%d", i);
		inboxes[i] = rte_ring_create(name, 1024, SOCKET_ID_ANY, RING_F_SC_DEQ);
		CU_ASSERT_FATAL(inboxes[i] != NULL);
	}
	if (mode == SST_NEGO_MODE_SECURE) {
		secure_side_init(&sec[0], 0x51);
		secure_side_init(&sec[1], 0xc5);
		node_secure[0] = &sec[0].cfg;
		node_secure[1] = &sec[1].cfg;
	}
	node_dir = sst_worker_dir_create(2, SOCKET_ID_ANY);
	CU_ASSERT_FATAL(node_dir != NULL);
	node_inboxes = inboxes;
	node_shard_count = 2;
	for (uint16_t i = 0; i < 2; i++) {
		node_shard_index = i;
		node_init(&srv[i], i == 0 ? "srv0" : "srv1", true, l[1]);
	}
	node_shard_count = 0;
	node_init(&client, "cli", false, l[0]);

	CU_ASSERT_FATAL(sst_worker_connect(client.w, &srv[0].self, mode, now_ns()) == 0);
	deadline = now_ns() + 30 * SST_NSEC_PER_SEC;
	while (now_ns() < deadline && client.echoed < TOTAL) {
		poll_all(nodes, 3);
		if (client.peer != NULL && client.s == NULL) {
			client.s = sst_stream_connect(client.peer, "echo", "test", now_ns());
			CU_ASSERT_FATAL(client.s != NULL);
		}
		if (client.s == NULL)
			continue;
		/* In secure mode the client writes once the SecR1 came, before
		 * the server has the SecI2: it moves once the server holds it. */
		if (written > 0 && moved.port != 0 &&
			sst_worker_stats(srv[owner].w)->peers_open == 1) {
			/* A NAT rebinding: the client does not know. */
			sst_simpair_set_endpoint(pair, 0, &moved);
			moved.port = 0;
		}
		write_some(&client, &written, &shut);
	}
	printf("  %llu bytes echoed in %.2f s of virtual time, %llu bad\n",
		(unsigned long long)client.echoed,
		(double)(now_ns() - SST_NSEC_PER_SEC) / SST_NSEC_PER_SEC,
		(unsigned long long)client.bad);
	CU_ASSERT_EQUAL(client.echoed, TOTAL);
	CU_ASSERT_EQUAL(client.bad, 0);
	CU_ASSERT(sst_worker_stats(client.w)->silences >= 1);
	/* The worker that holds the peer moved it; the other made nothing
	 * of its own, handed the negotiation over once and steers the
	 * endpoint, which the holder keeps as its own. */
	CU_ASSERT_EQUAL(sst_worker_stats(srv[owner].w)->path_changes, 1);
	CU_ASSERT_EQUAL(sst_worker_stats(srv[owner].w)->restarts, 0);
	CU_ASSERT_EQUAL(sst_worker_stats(srv[owner].w)->steer_entries, 1);
	CU_ASSERT_EQUAL(sst_worker_stats(srv[other].w)->peers_handed, 1);
	CU_ASSERT_EQUAL(sst_worker_stats(srv[other].w)->steer_entries, 1);
	CU_ASSERT_EQUAL(sst_worker_stats(srv[other].w)->channels_made, 0);
	CU_ASSERT_EQUAL(sst_worker_stats(srv[other].w)->peers_open, 0);
	CU_ASSERT(sst_worker_stats(srv[other].w)->handoff_out > 0);

	/* Every stream done: the channels idle and close by FINISH. */
	sst_stream_close(client.s, now_ns());
	deadline = now_ns() + 10 * SST_NSEC_PER_SEC;
	while (now_ns() < deadline && (sst_worker_stats(client.w)->channels_open != 0 ||
					      sst_worker_stats(srv[owner].w)->channels_open != 0))
		poll_all(nodes, 3);
	CU_ASSERT_EQUAL(sst_worker_stats(client.w)->channels_open, 0);
	CU_ASSERT_EQUAL(sst_worker_stats(srv[owner].w)->channels_open, 0);
	/* The endpoint's channel numbers stay taken for the quiet period
	 * (SST_NEGO_FAIL_AFTER), and its steering with them ... */
	CU_ASSERT_EQUAL(sst_worker_stats(srv[other].w)->steer_entries, 1);
	/* ... then the holder lets it go and tells the other worker. */
	deadline = now_ns() + SST_NEGO_FAIL_AFTER + SST_NSEC_PER_SEC;
	while (now_ns() < deadline && (sst_worker_stats(srv[0].w)->steer_entries != 0 ||
					      sst_worker_stats(srv[1].w)->steer_entries != 0)) {
		virtual_now += 10 * SST_NSEC_PER_MSEC;
		poll_all(nodes, 3);
	}
	CU_ASSERT_EQUAL(sst_worker_stats(srv[0].w)->steer_entries, 0);
	CU_ASSERT_EQUAL(sst_worker_stats(srv[1].w)->steer_entries, 0);
	CU_ASSERT_EQUAL(sst_worker_stats(srv[owner].w)->endpoints, 0);

	node_fini(&client);
	sst_worker_destroy(srv[0].w);
	sst_worker_destroy(srv[1].w);
	sst_link_close(l[1]);
	sst_simpair_destroy(pair);
	sst_worker_dir_destroy(node_dir);
	node_dir = NULL;
	node_inboxes = NULL;
	for (int i = 0; i < 2; i++)
		rte_ring_free(inboxes[i]);
	virtual_time = false;
	node_secure[0] = node_secure[1] = NULL;
	sst_secure_identity_wipe(&sec[0].id);
	sst_secure_identity_wipe(&sec[1].id);
}

static void
test_echo_with_move_to_other_worker(void)
{
	echo_with_move(SST_NEGO_MODE_CHECKSUM);
}

static void
test_secure_echo_with_move_to_other_worker(void)
{
	echo_with_move(SST_NEGO_MODE_SECURE);
}

/* The directory's parameters. */
static void
test_dir_create(void)
{
	struct sst_worker_dir *d;

	CU_ASSERT_PTR_NULL(sst_worker_dir_create(1, SOCKET_ID_ANY));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_PTR_NULL(sst_worker_dir_create(SST_WORKERS_MAX + 1, SOCKET_ID_ANY));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	d = sst_worker_dir_create(2, SOCKET_ID_ANY);
	CU_ASSERT_PTR_NOT_NULL(d);
	sst_worker_dir_destroy(d);
	sst_worker_dir_destroy(NULL);
}

/*
 * The directory and the steering table of two workers, without packets:
 * an instance one worker indexes is found by the other only (checksum
 * mode, a channel the peer opened); adopted endpoints stay where they
 * were adopted; a worker that holds STEER_MAX entries hands nothing more
 * away.
 */
static void
test_directory_and_steering(void)
{
	struct sst_worker_dir *d = sst_worker_dir_create(2, SOCKET_ID_ANY);
	struct sst_nego_result r = {.mode = SST_NEGO_MODE_CHECKSUM,
		.role = SST_NEGO_RESPONDER,
		.peer_instance_known = true,
		.peer_instance = UINT64_C(0x0123456789abcdef)};
	struct sst_net_endpoint ep = {.addr = sst_net_addr4(192, 0, 2, 9)};
	struct sst_worker *w[2];

	CU_ASSERT_FATAL(d != NULL);
	for (uint16_t i = 0; i < 2; i++) {
		w[i] = rte_zmalloc("test_worker", sizeof(*w[i]), 0);
		CU_ASSERT_FATAL(w[i] != NULL);
		w[i]->p.dir = d;
		w[i]->p.shard_count = 2;
		w[i]->p.shard_index = i;
		sst_shard_map_init(&w[i]->shard, 2);
		CU_ASSERT_FATAL(worker_peers_init(w[i]) == 0);
	}
	CU_ASSERT_EQUAL(worker_move_owner(w[0], &r), -1);
	worker_dir_add(w[1], r.peer_instance);
	CU_ASSERT_EQUAL(worker_move_owner(w[0], &r), 1);
	CU_ASSERT_EQUAL(worker_move_owner(w[1], &r), -1); /* its own peer */
	r.mode = SST_NEGO_MODE_SECURE;
	CU_ASSERT_EQUAL(worker_move_owner(w[0], &r), -1);
	r.mode = SST_NEGO_MODE_CHECKSUM;
	r.role = SST_NEGO_INITIATOR; /* we chose the endpoint: no move */
	CU_ASSERT_EQUAL(worker_move_owner(w[0], &r), -1);
	r.role = SST_NEGO_RESPONDER;
	worker_dir_del(w[1], r.peer_instance);
	CU_ASSERT_EQUAL(worker_move_owner(w[0], &r), -1);
	worker_dir_add(w[1], r.peer_instance);

	for (uint32_t i = 0; i < STEER_MAX; i++) {
		ep.port = (uint16_t)(1000 + i);
		CU_ASSERT_FATAL(worker_move_adopt(w[0], &ep, SST_NSEC_PER_SEC) == 0);
	}
	CU_ASSERT_EQUAL(w[0]->stats.steer_entries, STEER_MAX);
	CU_ASSERT_EQUAL(w[0]->stats.endpoints, STEER_MAX);
	ep.port = 1000;
	CU_ASSERT_EQUAL(worker_steer_owner(w[0], &ep), 0);
	CU_ASSERT_EQUAL(worker_steer_owner(w[1], &ep), -1);
	CU_ASSERT_EQUAL(worker_move_owner(w[0], &r), -1); /* full */
	worker_move_release(w[0], &ep);
	CU_ASSERT_EQUAL(w[0]->stats.steer_entries, STEER_MAX - 1);
	CU_ASSERT_EQUAL(worker_steer_owner(w[0], &ep), -1);
	CU_ASSERT_EQUAL(worker_move_owner(w[0], &r), 1);
	worker_dir_del(w[1], r.peer_instance);

	for (int i = 0; i < 2; i++) {
		worker_peers_fini(w[i]);
		rte_free(w[i]);
	}
	sst_worker_dir_destroy(d);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_dir_create),
	SST_TEST(test_directory_and_steering),
	SST_TEST(test_echo_with_move_to_other_worker),
	SST_TEST(test_secure_echo_with_move_to_other_worker),
	SST_TEST_END,
};

int
main(void)
{
	return worker_nodes_main("test_worker_move", cases);
}
