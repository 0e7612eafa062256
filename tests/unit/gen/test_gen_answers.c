/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen's sorting of a target's answers to the template attacks
 * (apps/sst-gen/gen_answers.c): negotiation messages by their chunks,
 * channel packets as resets, and only frames from the target's endpoint.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "../../../apps/sst-gen/gen_answers.h"
#include "nego_secure.h"
#include "nego_wire.h"
#include "sst_test.h"

enum {
	HDRS = sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr) +
	       sizeof(struct rte_udp_hdr)
};

static const struct sst_net_endpoint target = {
	.addr = {.family = SST_NET_IPV4, .bytes = {10, 77, 0, 1}}, .port = 4433};

/* A frame from @p src_ip:@p sport carrying @p payload. @return its length. */
static uint32_t
frame(uint8_t *buf, const uint8_t src_ip[4], uint16_t sport, const void *payload, uint32_t len)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)buf;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

	memset(buf, 0, HDRS);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->next_proto_id = IPPROTO_UDP;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) + sizeof(*udp) + len));
	memcpy(&ip->src_addr, src_ip, 4);
	udp->src_port = rte_cpu_to_be_16(sport);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(sizeof(*udp) + len));
	memcpy(buf + HDRS, payload, len);
	return HDRS + len;
}

static enum gen_answer_kind
classify(const void *payload, uint32_t len)
{
	uint8_t buf[512];

	return gen_answer_classify(
		&target, buf, frame(buf, target.addr.bytes, target.port, payload, len));
}

/* A message of one chunk of @p type with @p body. @return its length. */
static uint32_t
message(uint8_t *buf, size_t cap, int32_t type, const void *body, size_t len)
{
	struct sst_nego_builder b;

	CU_ASSERT_FATAL(sst_nego_build_begin(&b, buf, cap) == 0);
	CU_ASSERT_FATAL(sst_nego_build_raw(&b, type, body, len) == 0);
	return (uint32_t)sst_nego_build_end(&b);
}

static void
test_chkr1(void)
{
	struct sst_nego_chkr1 r1 = {.cki = 7, .ckr = 9, .chanr = 3};
	struct sst_nego_builder b;
	uint8_t msg[256];
	size_t len;

	CU_ASSERT_FATAL(sst_nego_build_begin(&b, msg, sizeof(msg)) == 0);
	CU_ASSERT_FATAL(sst_nego_build_chkr1(&b, &r1) == 0);
	len = sst_nego_build_end(&b);
	CU_ASSERT_EQUAL(classify(msg, (uint32_t)len), GEN_ANSWER_R1);
	/* No channel: a cookie request. */
	r1.chanr = 0;
	CU_ASSERT_FATAL(sst_nego_build_begin(&b, msg, sizeof(msg)) == 0);
	CU_ASSERT_FATAL(sst_nego_build_chkr1(&b, &r1) == 0);
	len = sst_nego_build_end(&b);
	CU_ASSERT_EQUAL(classify(msg, (uint32_t)len), GEN_ANSWER_COOKIE);
}

static void
test_secure_chunks(void)
{
	static const uint8_t body[8] = {0};
	uint8_t msg[256];

	CU_ASSERT_EQUAL(classify(msg, message(msg, sizeof(msg), SST_NEGO_SECCOOKIE, body, 8)),
		GEN_ANSWER_COOKIE);
	CU_ASSERT_EQUAL(
		classify(msg, message(msg, sizeof(msg), SST_NEGO_SECR1, body, 8)), GEN_ANSWER_R1);
	CU_ASSERT_EQUAL(classify(msg, message(msg, sizeof(msg), SST_NEGO_SECREFUSE, body, 8)),
		GEN_ANSWER_RESET);
	/* A chunk we do not sort (a SecI1 echoed, say): other. */
	CU_ASSERT_EQUAL(classify(msg, message(msg, sizeof(msg), SST_NEGO_SECI1, body, 8)),
		GEN_ANSWER_OTHER);
	/* Not a message at all, though it starts with 0. */
	memset(msg, 0, 12);
	msg[3] = 0x99;
	CU_ASSERT_EQUAL(classify(msg, 12), GEN_ANSWER_OTHER);
}

static void
test_channel_packet_and_empty(void)
{
	static const uint8_t chan[16] = {1, 0, 0, 1};

	CU_ASSERT_EQUAL(classify(chan, sizeof(chan)), GEN_ANSWER_RESET);
	CU_ASSERT_EQUAL(classify(chan, 0), GEN_ANSWER_OTHER);
}

/* Frames not from the target's endpoint are not answers; a cut frame
 * from it is one we cannot read. */
static void
test_not_from_target(void)
{
	static const uint8_t chan[16] = {1, 0, 0, 1};
	static const uint8_t other_ip[4] = {198, 18, 0, 1};
	uint8_t buf[512];
	uint32_t len;

	len = frame(buf, other_ip, target.port, chan, sizeof(chan));
	CU_ASSERT_EQUAL(gen_answer_classify(&target, buf, len), GEN_ANSWER_NOT_TARGET);
	len = frame(buf, target.addr.bytes, (uint16_t)(target.port + 1), chan, sizeof(chan));
	CU_ASSERT_EQUAL(gen_answer_classify(&target, buf, len), GEN_ANSWER_NOT_TARGET);
	len = frame(buf, target.addr.bytes, target.port, chan, sizeof(chan));
	((struct rte_ether_hdr *)buf)->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	CU_ASSERT_EQUAL(gen_answer_classify(&target, buf, len), GEN_ANSWER_NOT_TARGET);
	len = frame(buf, target.addr.bytes, target.port, chan, sizeof(chan));
	CU_ASSERT_EQUAL(gen_answer_classify(&target, buf, 20), GEN_ANSWER_NOT_TARGET);
	/* The UDP length claims more than the frame holds. */
	CU_ASSERT_EQUAL(gen_answer_classify(&target, buf, len - 4), GEN_ANSWER_OTHER);
}

static void
test_format_and_wanted(void)
{
	struct gen_answers a = {.n = {5, 2, 1, 1, 9}, .missed = 3};
	char buf[256];

	CU_ASSERT_EQUAL(gen_answers_from_target(&a), 9);
	gen_answers_format(&a, 20, true, buf, sizeof(buf));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"cookie_requests\": 5, \"r1\": 2, \"resets\": 1"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"unanswered\": 11, \"not_from_target\": 9"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"missed_by_port\": 3}"));
	/* More answers than packets (a retransmitting target): none unanswered. */
	gen_answers_format(&a, 4, false, buf, sizeof(buf));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "unanswered 0"));
	CU_ASSERT_TRUE(gen_answers_wanted("chki1") && gen_answers_wanted("seci1") &&
		       gen_answers_wanted("garbage") && gen_answers_wanted("truncated"));
	CU_ASSERT_FALSE(gen_answers_wanted("data") || gen_answers_wanted(NULL));
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_chkr1),
	SST_TEST(test_secure_chunks),
	SST_TEST(test_channel_packet_and_empty),
	SST_TEST(test_not_from_target),
	SST_TEST(test_format_and_wanted),
	SST_TEST_END,
};

int
main(void)
{
	return sst_test_run("gen_answers", cases);
}
