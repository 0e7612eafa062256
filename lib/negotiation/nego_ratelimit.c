/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-source rate limiting of first messages (ChkI1, SecI1), in bounded
 * memory (docs/negotiation.md section 5.3). Each source is a cell of the
 * generic cell rate algorithm (GCRA, equivalent to a token bucket of
 * `burst` tokens refilled at `per_sec`): one 64-bit theoretical arrival
 * time, TAT. A message at `now` passes when TAT - tolerance <= now, and then
 * TAT = max(TAT, now) + interval.
 *
 * Sources live in a fixed table of 4-way sets, indexed by SipHash of the
 * source's address prefix under a key derived from the host secret (an
 * attacker cannot aim many sources at one set). A new source takes the way
 * with the earliest TAT: a cell whose TAT is in the past is the same as an
 * empty one, so eviction only forgets sources that sent least recently. A
 * flood of spoofed sources can evict a genuine one; it then starts with a
 * full bucket again, which is the safe direction for availability, and the
 * cookie challenge still bounds what any source costs.
 */
#include <string.h>

#include <rte_common.h>
#include <sodium.h>

#include "nego_internal.h"

size_t
nego_rate_size(uint32_t slots)
{
	return (size_t)slots * sizeof(struct nego_rate);
}

void
nego_rate_init(struct sst_nego_host *h, struct nego_rate *table, uint32_t slots, uint32_t per_sec,
	uint32_t burst, uint8_t prefix)
{
	static const uint8_t tag[] = "sst-nego-rate-key";

	h->rate = table;
	h->rate_mask = slots - 1;
	h->rate_prefix = prefix;
	h->rate_interval = RTE_MAX(SST_NSEC_PER_SEC / per_sec, (uint64_t)1);
	h->rate_tolerance = (uint64_t)(burst - 1) * h->rate_interval;
	crypto_generichash(
		h->rate_key, sizeof(h->rate_key), tag, sizeof(tag), h->secret, sizeof(h->secret));
}

bool
nego_rate_allow(struct sst_nego_host *h, const struct sst_nego_addr *peer, sst_time_t now)
{
	uint8_t out[crypto_shorthash_BYTES];
	size_t len = h->rate_prefix != 0 ? RTE_MIN(h->rate_prefix, peer->len) : peer->len;
	struct nego_rate *set, *c = NULL;
	uint64_t tag = 0;

	crypto_shorthash(out, peer->bytes, len, h->rate_key);
	for (size_t i = 0; i < sizeof(out); i++)
		tag = tag << 8 | out[i];
	tag |= 1; /* 0 marks an empty cell */
	set = &h->rate[(uint32_t)(tag >> 32) & h->rate_mask & ~(uint32_t)(NEGO_RATE_WAYS - 1)];
	for (unsigned int w = 0; w < NEGO_RATE_WAYS; w++)
		if (set[w].tag == tag)
			c = &set[w];
	if (c == NULL) {
		c = &set[0];
		for (unsigned int w = 1; w < NEGO_RATE_WAYS; w++)
			if (set[w].tat < c->tat)
				c = &set[w];
		c->tag = tag;
		c->tat = now;
	}
	if (c->tat < now)
		c->tat = now;
	if (c->tat - now > h->rate_tolerance)
		return false;
	c->tat += h->rate_interval;
	return true;
}
