/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the negotiation-host fuzzers (fuzz_nego_responder.c,
 * fuzz_nego_secure.c) share: their peer addresses, channel numbers handed
 * out per address (chan_alloc/chan_free) with a count in use, a host's
 * parameters and memory, the check that the host sent one chunk, a walk
 * over a message's chunks, and the operand "src len bytes[len]" of a
 * message from the input.
 */
#ifndef FUZZ_NEGO_H
#define FUZZ_NEGO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "fuzz_check.h"
#include "nego_wire.h"
#include "sst_negotiation.h"
#include "sst_test_chans.h"

enum { NADDR = 4 };

static struct sst_nego_addr addrs[NADDR];

/* Address i: 6 + i bytes, first_byte 0 0 (1 + i), then zeros. */
static inline void
fuzz_nego_addrs_init(uint8_t first_byte)
{
	if (addrs[0].len != 0)
		return;
	for (unsigned int i = 0; i < NADDR; i++) {
		addrs[i].len = (uint8_t)(6 + i);
		addrs[i].bytes[0] = first_byte;
		addrs[i].bytes[3] = (uint8_t)(1 + i);
	}
}

static inline unsigned int
addr_index(const struct sst_nego_addr *a)
{
	for (unsigned int i = 0; i < NADDR; i++)
		if (sst_nego_addr_equal(a, &addrs[i]))
			return i;
	FUZZ_CHECK(0);
	return 0;
}

/* A side's channel numbers: one space per peer address, as a channel
 * number names a channel only together with the peer's address. */
struct fuzz_nego_chans {
	struct sst_test_chans by_addr[NADDR];
	unsigned int in_use;
};

/* chan_alloc: @return a free number for @p peer, or 0 when none is left. */
static inline int
fuzz_nego_chan_take(struct fuzz_nego_chans *c, const struct sst_nego_addr *peer)
{
	int chan = sst_test_chan_take(&c->by_addr[addr_index(peer)]);

	if (chan > 0)
		c->in_use++;
	return chan;
}

/* chan_free: the number must be in use (never freed twice). */
static inline void
fuzz_nego_chan_give(struct fuzz_nego_chans *c, const struct sst_nego_addr *peer, uint8_t chan)
{
	FUZZ_CHECK(sst_test_chan_give(&c->by_addr[addr_index(peer)], chan));
	c->in_use--;
}

/* Parameters a fuzzed host starts from: a secret of @p secret_byte (each
 * side its own), every capability, the callbacks; the caller sets the
 * limits. */
static inline struct sst_nego_host_params
fuzz_nego_params(uint8_t secret_byte, const struct sst_nego_ops *ops, void *ctx)
{
	struct sst_nego_host_params p;

	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	memset(p.secret, secret_byte, sizeof(p.secret));
	p.ulp_caps = SST_NEGO_CAP_ALL;
	p.ops = ops;
	p.ctx = ctx;
	return p;
}

/* Memory for a host with parameters @p p (never freed: reused by every
 * input after sst_nego_host_fini()). */
static inline struct sst_nego_host *
fuzz_nego_host_alloc(const struct sst_nego_host_params *p)
{
	size_t size = sst_nego_host_size(p);
	struct sst_nego_host *h;

	FUZZ_CHECK(size != 0);
	h = aligned_alloc(64, (size + 63) & ~(size_t)63);
	FUZZ_CHECK(h != NULL);
	return h;
}

/* The one chunk of a message a host sent (hosts send one chunk a message). */
static inline struct sst_nego_chunk
fuzz_nego_sent_chunk(const void *msg, size_t len)
{
	struct sst_nego_msg m;
	struct sst_nego_iter it;
	struct sst_nego_chunk c;

	FUZZ_CHECK(sst_nego_msg_parse(msg, len, &m) == 0 && m.nchunks == 1);
	sst_nego_iter_init(&it, &m);
	FUZZ_CHECK(sst_nego_iter_next(&it, &c));
	return c;
}

/* Call @p note for every chunk of a message that parses (for none when it
 * does not): how a fuzzer learns what a message holds independently of the
 * host it feeds. */
static inline void
fuzz_nego_each_chunk(const uint8_t *p, size_t len, void (*note)(const struct sst_nego_chunk *c))
{
	struct sst_nego_msg m;
	struct sst_nego_iter it;
	struct sst_nego_chunk c;

	if (sst_nego_msg_parse(p, len, &m) != 0)
		return;
	sst_nego_iter_init(&it, &m);
	while (sst_nego_iter_next(&it, &c))
		note(&c);
}

/* Read the operand "src len bytes[len]" into @p msg (@p cap bytes): len
 * 0xff takes the rest of the input, and bytes run out with the input.
 * @return len; @p src the address index. */
static inline unsigned int
fuzz_nego_take_message(struct fuzz_input *in, uint8_t *msg, size_t cap, unsigned int *src)
{
	unsigned int len;

	*src = fuzz_take(in) % NADDR;
	len = fuzz_take(in);
	len = len == 0xff ? (unsigned int)RTE_MIN(in->left, cap) : len;
	len = (unsigned int)RTE_MIN((size_t)len, in->left);
	memcpy(msg, in->p, len);
	in->p += len;
	in->left -= len;
	return len;
}

#endif /* FUZZ_NEGO_H */
