/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shard map (lib/engine/shard.c): its hash is the Toeplitz hash a NIC's
 * RSS computes over a UDP packet from the peer to us, checked against
 * Microsoft's RSS verification suite (the values every NIC vendor tests
 * against: IPv4 and IPv6, with and without ports); the owner is the
 * redirection table's entry for the hash's low bits; the default table
 * deals workers out in turn and spreads peers over all of them. The
 * software-only hash (SST_SHARD_HASH_CRC) is CRC32-C of the peer's address
 * and port (vectors computed bit by bit with the Castagnoli polynomial)
 * xor that of our endpoint, whatever the map's key and ports flag, so
 * both ends of a pair name one worker. A peer reached from one
 * of a worker's extra local endpoints (a tagged endpoint) hashes with that
 * local endpoint as the destination, as RSS hashes its packets, so the
 * channels of many local endpoints to one server spread over the workers.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_thash.h>

#include "sst_shard.h"
#include "sst_test.h"
#include "sst_worker.h"
#include "worker_tag.h"

struct vector {
	const char *dst, *src; /* the destination is us, the source the peer */
	uint16_t dport, sport;
	uint32_t hash_addrs, hash_ports;
};

static const struct vector vectors[] = {
	{"161.142.100.80", "66.9.149.187", 1766, 2794, 0x323e8fc2, 0x51ccc178},
	{"65.69.140.83", "199.92.111.2", 4739, 14230, 0xd718262a, 0xc626b0ea},
	{"12.22.207.184", "24.19.198.95", 38024, 12898, 0xd2d0a5de, 0x5c2b394a},
	{"209.142.163.6", "38.27.205.30", 2217, 48228, 0x82989176, 0xafc7327f},
	{"202.188.127.2", "153.39.163.191", 1303, 44251, 0x5d1809c5, 0x10e828a2},
	{"3ffe:2501:200:3::1", "3ffe:2501:200:1fff::7", 1766, 2794, 0x2cc18cd5, 0x40207d3d},
	{"ff02::1", "3ffe:501:8::260:97ff:fe40:efab", 4739, 14230, 0x0f0c461c, 0xdde51bbf},
	{"fe80::200:f8ff:fe21:67cf", "3ffe:1900:4545:3:200:f8ff:fe21:67cf", 38024, 44251,
		0x4b61e985, 0x02d1feef},
};

static void
parse(const char *text, struct sst_net_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, text, a->bytes) == 1)
		a->family = SST_NET_IPV4;
	else if (inet_pton(AF_INET6, text, a->bytes) == 1)
		a->family = SST_NET_IPV6;
}

static void
test_verification_suite(void)
{
	for (size_t i = 0; i < RTE_DIM(vectors); i++) {
		const struct vector *v = &vectors[i];
		struct sst_net_addr local;
		struct sst_net_endpoint peer = {.port = v->sport};
		struct sst_shard_map m;

		parse(v->dst, &local);
		parse(v->src, &peer.addr);
		CU_ASSERT_FATAL(local.family != 0 && peer.addr.family == local.family);
		sst_shard_map_init(&m, 4);
		sst_shard_map_set_local(&m, &local, &local, v->dport);
		CU_ASSERT_EQUAL(sst_shard_hash(&m, &peer), v->hash_ports);
		if (sst_shard_hash(&m, &peer) != v->hash_ports)
			printf("\n  %s -> %s: %08x, not %08x", v->src, v->dst,
				sst_shard_hash(&m, &peer), v->hash_ports);
		m.l4 = false;
		CU_ASSERT_EQUAL(sst_shard_hash(&m, &peer), v->hash_addrs);
	}
}

static void
test_owner_is_the_table_entry(void)
{
	struct sst_shard_map m;
	struct sst_net_endpoint peer;

	parse("66.9.149.187", &peer.addr);
	peer.port = 2794;
	sst_shard_map_init(&m, 3);
	parse("161.142.100.80", &m.local4);
	m.local_port = 1766;
	/* 0x51ccc178 % 128 = 0x78 = 120: entry 120 of the table. */
	CU_ASSERT_EQUAL(sst_shard_owner(&m, &peer), 120 % 3);
	m.reta[120] = 2;
	CU_ASSERT_EQUAL(sst_shard_owner(&m, &peer), 2);
	/* A port's table of 512 entries: entry 0x178 = 376. */
	m.reta_size = 512;
	for (uint16_t i = 0; i < 512; i++)
		m.reta[i] = i == 376 ? 1 : 0;
	CU_ASSERT_EQUAL(sst_shard_owner(&m, &peer), 1);
	/* Alone, everything is worker 0's. */
	sst_shard_map_init(&m, 1);
	CU_ASSERT_EQUAL(sst_shard_owner(&m, &peer), 0);
}

/* Every worker gets a fair part of many peers. */
static void
test_spread(void)
{
	struct sst_shard_map m;
	uint32_t per[4] = {0};

	sst_shard_map_init(&m, 4);
	parse("10.0.0.1", &m.local4);
	m.local_port = 4433;
	for (uint32_t i = 0; i < 4000; i++) {
		struct sst_net_endpoint peer = {.port = (uint16_t)(10000 + i)};
		uint16_t owner;

		parse("192.168.1.7", &peer.addr);
		peer.addr.bytes[3] = (uint8_t)(i % 251);
		owner = sst_shard_owner(&m, &peer);
		CU_ASSERT_FATAL(owner < 4);
		per[owner]++;
	}
	for (int k = 0; k < 4; k++)
		CU_ASSERT(per[k] > 800 && per[k] < 1200);
}

/* CRC32-C (initial value 0, no final inversion, as rte_hash_crc()) of the
 * address bytes, then of the port's two bytes in host (little-endian)
 * order: computed with a bitwise CRC, not with DPDK. */
static const struct {
	const char *peer;
	uint16_t port;
	uint32_t hash;
} crc_vectors[] = {
	{"66.9.149.187", 2794, 0x570f77a6},
	{"199.92.111.2", 14230, 0x9c5c1b91},
	{"3ffe:501:8::260:97ff:fe40:efab", 14230, 0x98fced1c},
};

static void
test_crc_vectors(void)
{
	for (size_t i = 0; i < RTE_DIM(crc_vectors); i++) {
		struct sst_net_endpoint peer = {.port = crc_vectors[i].port};
		struct sst_shard_map m;

		parse(crc_vectors[i].peer, &peer.addr);
		CU_ASSERT_FATAL(peer.addr.family != 0);
		sst_shard_map_init(&m, 4);
		CU_ASSERT_EQUAL(m.hash, SST_SHARD_HASH_TOEPLITZ);
		CU_ASSERT_EQUAL(sst_shard_map_set_hash(&m, SST_SHARD_HASH_CRC), 0);
		/* No half of ours yet: the peer's CRC alone. */
		CU_ASSERT_EQUAL(sst_shard_hash(&m, &peer), crc_vectors[i].hash);
		if (sst_shard_hash(&m, &peer) != crc_vectors[i].hash)
			printf("\n  %s:%u: %08x, not %08x", crc_vectors[i].peer, peer.port,
				sst_shard_hash(&m, &peer), crc_vectors[i].hash);
		/* Our half enters by xor, the CRC of our endpoint of the
		 * peer's family (itself checked as a peer with no half of
		 * ours); the Toeplitz settings do not. */
		struct sst_net_endpoint ours = {.port = 4433};
		struct sst_shard_map bare = m;
		uint32_t want;

		parse(peer.addr.family == SST_NET_IPV6 ? "fe80::1" : "10.9.8.7", &ours.addr);
		want = crc_vectors[i].hash ^ sst_shard_hash(&bare, &ours);
		parse("10.9.8.7", &m.local4);
		parse("fe80::1", &m.local6);
		m.local_port = 4433;
		m.l4 = false;
		m.key[0] ^= 0xff;
		CU_ASSERT_EQUAL(sst_shard_hash(&m, &peer), want);
		CU_ASSERT_EQUAL(sst_shard_owner(&m, &peer), m.reta[want % 128]);
		/* And back: the RSS hash again. */
		CU_ASSERT_EQUAL(sst_shard_map_set_hash(&m, SST_SHARD_HASH_TOEPLITZ), 0);
		CU_ASSERT_NOT_EQUAL(sst_shard_hash(&m, &peer), crc_vectors[i].hash);
	}
}

static void
test_set_hash_rejects_unknown(void)
{
	struct sst_shard_map m;

	sst_shard_map_init(&m, 2);
	CU_ASSERT_EQUAL(sst_shard_map_set_hash(&m, SST_SHARD_HASH_KINDS), -EINVAL);
	CU_ASSERT_EQUAL(sst_shard_map_set_hash(&m, (enum sst_shard_hash_kind) - 1), -EINVAL);
	CU_ASSERT_EQUAL(m.hash, SST_SHARD_HASH_TOEPLITZ);
}

/* The CRC map spreads peers as fairly, IPv4 and IPv6, ports alone too. */
static void
test_crc_spread(void)
{
	for (int v6 = 0; v6 < 2; v6++) {
		struct sst_shard_map m;
		uint32_t per[4] = {0}, same_addr[4] = {0};

		sst_shard_map_init(&m, 4);
		CU_ASSERT_EQUAL(sst_shard_map_set_hash(&m, SST_SHARD_HASH_CRC), 0);
		for (uint32_t i = 0; i < 4000; i++) {
			struct sst_net_endpoint peer = {.port = (uint16_t)(10000 + i)};
			uint16_t owner;

			parse(v6 ? "2001:db8::7" : "192.168.1.7", &peer.addr);
			owner = sst_shard_owner(&m, &peer);
			CU_ASSERT_FATAL(owner < 4);
			same_addr[owner]++;
			peer.addr.bytes[v6 ? 15 : 3] = (uint8_t)(i % 251);
			owner = sst_shard_owner(&m, &peer);
			CU_ASSERT_FATAL(owner < 4);
			per[owner]++;
		}
		for (int k = 0; k < 4; k++) {
			CU_ASSERT(per[k] > 800 && per[k] < 1200);
			CU_ASSERT(same_addr[k] > 800 && same_addr[k] < 1200);
		}
	}
}

/* peer, tagged with the local endpoint it is reached from (worker_tag.h's
 * layout, which sst_worker_ep_split() must take apart again). */
static struct sst_net_endpoint
tagged(const char *peer, uint16_t peer_port, const char *local, uint16_t local_port)
{
	struct sst_net_endpoint ep = {.port = peer_port}, l, r;
	struct sst_net_addr a;

	parse(peer, &ep.addr);
	parse(local, &a);
	memcpy(&ep.addr.bytes[EP_LOCAL_ADDR], a.bytes, 4);
	ep.addr.bytes[EP_LOCAL_PORT] = (uint8_t)(local_port >> 8);
	ep.addr.bytes[EP_LOCAL_PORT + 1] = (uint8_t)local_port;
	ep.addr.bytes[EP_LOCAL_TAG] = 1;
	CU_ASSERT_FATAL(sst_worker_ep_split(&ep, &l, &r));
	CU_ASSERT(l.port == local_port && memcmp(l.addr.bytes, a.bytes, 4) == 0);
	CU_ASSERT(r.port == peer_port && r.addr.bytes[EP_LOCAL_TAG] == 0);
	return ep;
}

/* A tagged endpoint hashes as the packets of its channel: from the peer to
 * the local endpoint in the tag, whatever address and port the map holds.
 * Microsoft's IPv4 vectors, with the map's own half set elsewhere. */
static void
test_tagged_is_the_packets_tuple(void)
{
	for (size_t i = 0; i < 5; i++) {
		const struct vector *v = &vectors[i];
		struct sst_net_endpoint peer = tagged(v->src, v->sport, v->dst, v->dport);
		struct sst_net_addr elsewhere;
		struct sst_shard_map m;

		sst_shard_map_init(&m, 4);
		parse("10.0.0.1", &elsewhere);
		sst_shard_map_set_local(&m, &elsewhere, NULL, 4433);
		CU_ASSERT_EQUAL(sst_shard_hash(&m, &peer), v->hash_ports);
		CU_ASSERT_EQUAL(sst_shard_owner(&m, &peer), m.reta[v->hash_ports % m.reta_size]);
		m.l4 = false;
		CU_ASSERT_EQUAL(sst_shard_hash(&m, &peer), v->hash_addrs);
	}
}

/* The owner of a tagged endpoint is the queue a NIC's RSS picks for its
 * packets: rte_softrss() over the IPv4/UDP tuple (src = the server, dst =
 * our local endpoint) as DPDK's own struct lays it out, through a table
 * that is not dealt in turn. */
static void
test_tagged_owner_is_rss(void)
{
	struct sst_shard_map m;
	struct sst_net_addr server;

	sst_shard_map_init(&m, 3);
	for (uint16_t i = 0; i < m.reta_size; i++)
		m.reta[i] = (uint16_t)((i * 7 + i / 5) % 3);
	parse("10.9.0.1", &server);
	sst_shard_map_set_local(&m, &server, NULL, 7); /* not the tagged half */
	for (uint32_t i = 0; i < 600; i++) {
		char local[32];
		uint16_t lport = (uint16_t)(20000 + i % 300);
		struct sst_net_endpoint peer;
		struct rte_ipv4_tuple t = {
			.src_addr = RTE_IPV4(10, 9, 0, 1),
			.dst_addr = RTE_IPV4(10, 9, 0, (uint8_t)(2 + i / 300)),
			.sport = 4433,
			.dport = lport,
		};
		uint32_t rss;

		snprintf(local, sizeof(local), "10.9.0.%u", 2 + i / 300);
		peer = tagged("10.9.0.1", 4433, local, lport);
		rss = rte_softrss((uint32_t *)&t, RTE_THASH_V4_L4_LEN, m.key);
		CU_ASSERT_EQUAL(sst_shard_hash(&m, &peer), rss);
		CU_ASSERT_EQUAL(sst_shard_owner(&m, &peer), m.reta[rss % m.reta_size]);
	}
}

/* The channels of one generator to one server (two local addresses x 100
 * ports): untagged they would be one endpoint, one owner; tagged they
 * spread over two workers, under either hash. */
static void
test_tagged_spread(void)
{
	for (int crc = 0; crc < 2; crc++) {
		struct sst_shard_map m;
		struct sst_net_addr us;
		uint32_t per[2] = {0};

		sst_shard_map_init(&m, 2);
		if (crc)
			CU_ASSERT_EQUAL(sst_shard_map_set_hash(&m, SST_SHARD_HASH_CRC), 0);
		parse("10.9.0.2", &us);
		sst_shard_map_set_local(&m, &us, NULL, 4433);
		for (uint32_t i = 0; i < 200; i++) {
			char local[32];
			struct sst_net_endpoint peer;

			snprintf(local, sizeof(local), "10.9.0.%u", 2 + i / 100);
			peer = tagged("10.9.0.1", 4433, local, (uint16_t)(20000 + i % 100));
			per[sst_shard_owner(&m, &peer)]++;
		}
		CU_ASSERT(per[0] > 70 && per[1] > 70);
		if (!(per[0] > 70 && per[1] > 70))
			printf("\n  %s: %u and %u", crc ? "crc" : "toeplitz", per[0], per[1]);
	}
}

/* Under CRC a tagged endpoint's hash depends on its local half, and an
 * untagged one's is what it was (the vectors above): a generator's
 * channels differ, the server's view of one peer does not change. */
static void
test_crc_tagged(void)
{
	struct sst_shard_map m;
	struct sst_net_endpoint a = tagged("10.9.0.1", 4433, "10.9.0.2", 20000);
	struct sst_net_endpoint b = tagged("10.9.0.1", 4433, "10.9.0.2", 20001);
	struct sst_net_endpoint c = tagged("10.9.0.1", 4433, "10.9.0.3", 20000);
	struct sst_net_endpoint plain = {.port = 4433};

	sst_shard_map_init(&m, 4);
	CU_ASSERT_EQUAL(sst_shard_map_set_hash(&m, SST_SHARD_HASH_CRC), 0);
	parse("10.9.0.1", &plain.addr);
	CU_ASSERT_NOT_EQUAL(sst_shard_hash(&m, &a), sst_shard_hash(&m, &b));
	CU_ASSERT_NOT_EQUAL(sst_shard_hash(&m, &a), sst_shard_hash(&m, &c));
	CU_ASSERT_NOT_EQUAL(sst_shard_hash(&m, &a), sst_shard_hash(&m, &plain));
	CU_ASSERT_EQUAL(sst_shard_hash(&m, &a),
		sst_shard_hash(&m, &(struct sst_net_endpoint){a.addr, a.port}));
}

/*
 * Under CRC both ends of a pair name the same worker: a map whose local
 * half is A gives peer B the owner a map whose local half is B gives peer
 * A, for any number of workers and either family, and a peer tagged with
 * its local endpoint hashes as the same pair untagged. On a pair of ports
 * without RSS whose queue i leads to the other side's queue i (net_ring,
 * memif), the worker that sends a channel's packets is then the worker
 * that owns the channel at the other end, and no packet takes the
 * dispatch step. (It was the peer's half alone: half the pairs of a
 * two-worker loopback went through a handoff, both ways.)
 */
static void
test_crc_pair_symmetric(void)
{
	static const char *const addrs[2][3] = {
		{"10.0.0.1", "10.0.0.2", "192.168.7.9"},
		{"2001:db8::1", "2001:db8::2", "fe80::9"},
	};
	uint32_t same = 0, pairs = 0;

	for (int v6 = 0; v6 < 2; v6++)
		for (uint16_t count = 2; count <= 8; count++)
			for (uint32_t i = 0; i < 300; i++) {
				struct sst_shard_map ma, mb;
				struct sst_net_endpoint a = {.port = (uint16_t)(4433 + i % 7)};
				struct sst_net_endpoint b = {.port = (uint16_t)(30000 + i)};

				parse(addrs[v6][i % 3], &a.addr);
				parse(addrs[v6][(i + 1) % 3], &b.addr);
				sst_shard_map_init(&ma, count);
				sst_shard_map_init(&mb, count);
				CU_ASSERT_EQUAL(sst_shard_map_set_hash(&ma, SST_SHARD_HASH_CRC), 0);
				CU_ASSERT_EQUAL(sst_shard_map_set_hash(&mb, SST_SHARD_HASH_CRC), 0);
				sst_shard_map_set_local(
					&ma, v6 ? NULL : &a.addr, v6 ? &a.addr : NULL, a.port);
				sst_shard_map_set_local(
					&mb, v6 ? NULL : &b.addr, v6 ? &b.addr : NULL, b.port);
				CU_ASSERT_EQUAL(sst_shard_hash(&ma, &b), sst_shard_hash(&mb, &a));
				CU_ASSERT_EQUAL(sst_shard_owner(&ma, &b), sst_shard_owner(&mb, &a));
				pairs++;
				same += sst_shard_owner(&ma, &b) == sst_shard_owner(&mb, &a);
			}
	printf("\n  %u of %u pairs agree", same, pairs);
	/* A generator's channel from an extra local endpoint, and the server's
	 * view of it. */
	for (uint32_t i = 0; i < 200; i++) {
		struct sst_shard_map mg, ms;
		struct sst_net_endpoint srv =
			tagged("10.9.0.1", 4433, "10.9.0.2", (uint16_t)(20000 + i));
		struct sst_net_endpoint cli = {.port = (uint16_t)(20000 + i)};

		parse("10.9.0.2", &cli.addr);
		sst_shard_map_init(&mg, 4);
		sst_shard_map_init(&ms, 4);
		CU_ASSERT_EQUAL(sst_shard_map_set_hash(&mg, SST_SHARD_HASH_CRC), 0);
		CU_ASSERT_EQUAL(sst_shard_map_set_hash(&ms, SST_SHARD_HASH_CRC), 0);
		parse("10.9.0.99", &mg.local4); /* the generator's own: not the tag's */
		parse("10.9.0.1", &ms.local4);
		ms.local_port = 4433;
		CU_ASSERT_EQUAL(sst_shard_owner(&mg, &srv), sst_shard_owner(&ms, &cli));
	}
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_verification_suite),
	SST_TEST(test_owner_is_the_table_entry),
	SST_TEST(test_spread),
	SST_TEST(test_crc_vectors),
	SST_TEST(test_set_hash_rejects_unknown),
	SST_TEST(test_crc_spread),
	SST_TEST(test_tagged_is_the_packets_tuple),
	SST_TEST(test_tagged_owner_is_rss),
	SST_TEST(test_tagged_spread),
	SST_TEST(test_crc_tagged),
	SST_TEST(test_crc_pair_symmetric),
	SST_TEST_END,
};

int
main(void)
{
	return sst_test_run("shard", cases);
}
