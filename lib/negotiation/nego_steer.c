/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steering tags (docs/negotiation.md section 8). Several workers, each with
 * its own negotiation host, share one UDP port; an answer to one of our
 * initiations must reach the host that holds the attempt, wherever the
 * packet came from (the peer's address may have changed, so hashing the
 * address does not do). Each host puts its tag where the responder echoes
 * it: the low bits of cki (ChkR1 echoes cki) and of the last byte of ni
 * (SecCookie, SecR1 and SecRefuse echo ni). This file reads the tag back without any
 * host state, on the receive path, from untrusted bytes: the framing is
 * checked in full by sst_nego_msg_parse() and every field read lies inside
 * the chunk body. A forged tag only sends a message to a worker whose host
 * then finds no attempt for it and drops it, as any worker would.
 *
 * The same reading finds the host instance a SecI1 names, for the worker
 * that holds a peer which moved to an endpoint another worker owns
 * (docs/engine.md, "Mobility"): that worker, not the one the endpoint
 * hashes to, must answer the whole handshake, since the responder's state
 * between SecR1 and SecI2 lives in the host that sent the SecR1.
 */
#include <errno.h>

#include "nego_internal.h"

int
sst_nego_steer_tag(const void *msg, size_t len, uint8_t steer_bits)
{
	unsigned int mask = (1u << (steer_bits & 7)) - 1;
	struct sst_nego_chunk c;
	struct sst_nego_chkr1 r1;
	struct sst_nego_iter it;
	struct sst_nego_msg m;
	const uint8_t *ni;

	if (msg == NULL || steer_bits > SST_NEGO_STEER_BITS_MAX ||
		sst_nego_msg_parse(msg, len, &m) < 0 || m.nchunks == 0)
		return -1;
	sst_nego_iter_init(&it, &m);
	sst_nego_iter_next(&it, &c);
	/* Our responders send each answer alone, so the first chunk decides;
	 * whatever else a message holds goes with it. */
	switch (c.type) {
	case SST_NEGO_CHKR1:
		if (sst_nego_chkr1_decode(&c.body, &r1) < 0)
			return -1;
		return (int)(r1.cki & mask);
	case SST_NEGO_SECR1:
	case SST_NEGO_SECCOOKIE:
	case SST_NEGO_SECREFUSE:
		/* All three bodies start with the echoed ni (spec 3.3, 3.5,
		 * 3.6). */
		if (sst_secure_peek_nonce(c.type, &c.body, &ni) < 0)
			return -1;
		return (int)(ni[SST_SECURE_KEY_LEN - 1] & mask);
	default:
		/* Initiator messages (ChkI1, SecI1, SecI2 and its Packet
		 * chunks), the prototype's DH chunks, unknown types. */
		return -1;
	}
}

int
sst_nego_secure_i1_instance(const void *msg, size_t len, uint64_t *instance)
{
	struct sst_nego_chunk c;
	struct sst_nego_iter it;
	struct sst_nego_msg m;
	struct sst_nego_ulp ulp;
	struct seci1 i1;

	if (msg == NULL || instance == NULL || sst_nego_msg_parse(msg, len, &m) < 0 ||
		m.nchunks == 0)
		return -EINVAL;
	sst_nego_iter_init(&it, &m);
	sst_nego_iter_next(&it, &c);
	if (c.type != SST_NEGO_SECI1 || nego_seci1_decode(&c.body, &i1) < 0)
		return -EINVAL;
	sst_nego_ulp_decode(i1.ulp.ptr, i1.ulp.len, &ulp);
	if (!ulp.has_instance)
		return -ENOENT;
	*instance = ulp.instance;
	return 0;
}
