/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen template mode: what the target answered to the attack templates
 * (chki1, seci1, garbage, truncated), read from the port's receive queue
 * and sorted by kind (gen_answers.c).
 */
#ifndef GEN_ANSWERS_H
#define GEN_ANSWERS_H

#include <stdbool.h>
#include <stdint.h>

#include "sst_net.h"

/** What one received frame is. */
enum gen_answer_kind {
	/** A ChkR1 that asks for a cookie (no channel yet), or a SecCookie. */
	GEN_ANSWER_COOKIE = 0,
	/** A ChkR1 that gives a channel, or a SecR1: a handshake taken in. */
	GEN_ANSWER_R1,
	/** A SecRefuse, or a channel packet (byte 0 not 0): to a spoofed
	 * source no channel exists, so only a stateless answer (a Reset)
	 * can be one. */
	GEN_ANSWER_RESET,
	/** Anything else from the target's endpoint (another negotiation
	 * message, one that does not parse). */
	GEN_ANSWER_OTHER,
	/** Not IPv4/UDP from the target's endpoint (ARP for the spoofed
	 * addresses, other traffic on the link): not an answer. */
	GEN_ANSWER_NOT_TARGET,
	GEN_ANSWER_KINDS
};

/** Counters by kind. */
struct gen_answers {
	uint64_t n[GEN_ANSWER_KINDS];
	/** Frames the port received but could not hand over (its imissed
	 * and rx_nombuf): answers that may be missing from the counts. */
	uint64_t missed;
};

/**
 * Sort one frame.
 * @param target The endpoint the templates went to (--dst).
 * @param frame The frame from its Ethernet header on.
 * @param len Its bytes.
 * @return Its kind.
 */
enum gen_answer_kind gen_answer_classify(
	const struct sst_net_endpoint *target, const uint8_t *frame, uint32_t len);

/** Answers of the target: every kind but GEN_ANSWER_NOT_TARGET. */
uint64_t gen_answers_from_target(const struct gen_answers *a);

/** Whether a template name is one of the attack templates whose answers
 * are counted. */
bool gen_answers_wanted(const char *template_name);

/**
 * The answers' part of a per-second line, the table's line or the JSON
 * member, into @p buf.
 * @param a The counters.
 * @param sent Packets sent, for the unanswered ones (sent less answers).
 * @param json The JSON member ("answers": {...}) rather than text.
 */
void gen_answers_format(
	const struct gen_answers *a, uint64_t sent, bool json, char *buf, size_t size);

#endif /* GEN_ANSWERS_H */
