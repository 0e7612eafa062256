/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen template mode: sorting what the target answered to the attack
 * templates. A flood of spoofed ChkI1 or SecI1 is answered, by a server
 * with the defences of docs/negotiation.md, with cookie requests (ChkR1
 * without a channel, SecCookie) once it is under load and with R1s before;
 * garbage and truncated packets should be answered by nothing. Only frames
 * from the target's endpoint count as answers (the spoofed sources may
 * draw ARP requests, which are not).
 */
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "gen_answers.h"
#include "nego_secure.h"
#include "nego_wire.h"

/* A negotiation message: the kind of its first chunk we recognise. */
static enum gen_answer_kind
nego_kind(const uint8_t *p, uint32_t len)
{
	struct sst_nego_msg msg;
	struct sst_nego_iter it;
	struct sst_nego_chunk ch;
	struct sst_nego_chkr1 r1;

	if (sst_nego_msg_parse(p, len, &msg) < 0)
		return GEN_ANSWER_OTHER;
	sst_nego_iter_init(&it, &msg);
	while (sst_nego_iter_next(&it, &ch) == 1) {
		switch (ch.type) {
		case SST_NEGO_CHKR1:
			if (sst_nego_chkr1_decode(&ch.body, &r1) < 0)
				return GEN_ANSWER_OTHER;
			return sst_nego_chkr1_wants_cookie(&r1) ? GEN_ANSWER_COOKIE : GEN_ANSWER_R1;
		case SST_NEGO_SECCOOKIE:
			return GEN_ANSWER_COOKIE;
		case SST_NEGO_SECR1:
			return GEN_ANSWER_R1;
		case SST_NEGO_SECREFUSE:
			return GEN_ANSWER_RESET;
		default:
			break;
		}
	}
	return GEN_ANSWER_OTHER;
}

enum gen_answer_kind
gen_answer_classify(const struct sst_net_endpoint *target, const uint8_t *frame, uint32_t len)
{
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)frame;
	const struct rte_ipv4_hdr *ip;
	const struct rte_udp_hdr *udp;
	uint32_t ihl, udp_len;
	const uint8_t *p;

	if (len < sizeof(*eth) + sizeof(*ip) ||
		eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return GEN_ANSWER_NOT_TARGET;
	ip = (const struct rte_ipv4_hdr *)(eth + 1);
	ihl = (uint32_t)(ip->version_ihl & 0xf) * 4;
	if ((ip->version_ihl >> 4) != 4 || ihl < sizeof(*ip) ||
		len < sizeof(*eth) + ihl + sizeof(*udp) || ip->next_proto_id != IPPROTO_UDP ||
		target->addr.family != SST_NET_IPV4 ||
		memcmp(&ip->src_addr, target->addr.bytes, 4) != 0)
		return GEN_ANSWER_NOT_TARGET;
	udp = (const struct rte_udp_hdr *)((const uint8_t *)ip + ihl);
	if (rte_be_to_cpu_16(udp->src_port) != target->port)
		return GEN_ANSWER_NOT_TARGET;
	/* From the target: an answer, whatever it holds. */
	udp_len = rte_be_to_cpu_16(udp->dgram_len);
	p = (const uint8_t *)(udp + 1);
	if (udp_len < sizeof(*udp) || sizeof(*eth) + ihl + udp_len > len)
		return GEN_ANSWER_OTHER;
	udp_len -= sizeof(*udp);
	if (udp_len == 0)
		return GEN_ANSWER_OTHER;
	return p[0] == 0 ? nego_kind(p, udp_len) : GEN_ANSWER_RESET;
}

uint64_t
gen_answers_from_target(const struct gen_answers *a)
{
	return a->n[GEN_ANSWER_COOKIE] + a->n[GEN_ANSWER_R1] + a->n[GEN_ANSWER_RESET] +
	       a->n[GEN_ANSWER_OTHER];
}

bool
gen_answers_wanted(const char *template_name)
{
	static const char *const attacks[] = {"chki1", "seci1", "garbage", "truncated"};

	for (unsigned int i = 0; template_name != NULL && i < RTE_DIM(attacks); i++)
		if (strcmp(template_name, attacks[i]) == 0)
			return true;
	return false;
}

void
gen_answers_format(const struct gen_answers *a, uint64_t sent, bool json, char *buf, size_t size)
{
	uint64_t answered = gen_answers_from_target(a);
	unsigned long long unanswered = sent > answered ? sent - answered : 0;

	snprintf(buf, size,
		json ? "\"answers\": {\"cookie_requests\": %llu, \"r1\": %llu, \"resets\": %llu, "
		       "\"other\": %llu, \"unanswered\": %llu, \"not_from_target\": %llu, "
		       "\"missed_by_port\": %llu}"
		     : "cookie requests %llu, R1 %llu, resets %llu, other %llu, unanswered "
		       "%llu (not from the target: %llu; missed by the port: %llu)",
		(unsigned long long)a->n[GEN_ANSWER_COOKIE],
		(unsigned long long)a->n[GEN_ANSWER_R1], (unsigned long long)a->n[GEN_ANSWER_RESET],
		(unsigned long long)a->n[GEN_ANSWER_OTHER], unanswered,
		(unsigned long long)a->n[GEN_ANSWER_NOT_TARGET], (unsigned long long)a->missed);
}
