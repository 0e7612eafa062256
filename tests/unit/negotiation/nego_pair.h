/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Negotiation hosts in test memory for the feature tests (test_nego_early,
 * test_nego_instance, test_nego_steer): a side is one host with its
 * application (channel numbers, results, an outbox of the messages it
 * sent), in checksum or secure mode, with deterministic randomness. Secure
 * sides pin each other's keys ("peer"). Hooks let a test see established
 * channels and Packet chunks.
 */
#ifndef NEGO_PAIR_H
#define NEGO_PAIR_H

#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "nego_secure.h"
#include "nego_wire.h"
#include "sst_negotiation.h"
#include "sst_test.h"
#include "sst_test_chans.h"
#include "sst_test_rng.h"

enum { TP_MSG_MAX = 2048, TP_OUT_MAX = 64, TP_NRES = 16 };

struct tp_msg {
	struct sst_nego_addr to;
	size_t len;
	uint8_t b[TP_MSG_MAX];
};

struct tp_side {
	struct sst_nego_host *h;
	struct sst_nego_host_params p; /* adjusted by tests before tp_start() */
	struct sst_nego_addr self;
	struct sst_secure_identity id;
	struct sst_secure_host hosts[4];
	struct sst_secure_known_hosts kh;
	struct sst_secure_config cfg;
	uint64_t rng;
	struct tp_msg out[TP_OUT_MAX];
	unsigned int nout;
	struct sst_test_chans chans;
	unsigned int established;
	struct sst_nego_result res[TP_NRES]; /* by order of establishment */
	int refuse;			     /* established() returns it */
	const char *peer_name;		     /* ops->peer_name; tp_init: "peer" */
	unsigned int npackets;		     /* Packet chunks handed to us */
	unsigned int nfailed;		     /* ops->failed calls */
	int failed_error;		     /* the last one's error */
	/* Test hooks (optional). */
	int (*on_established)(struct tp_side *s, const struct sst_nego_result *r, sst_time_t now);
	void (*on_packet)(
		struct tp_side *s, uint8_t chan, const void *pkt, size_t len, sst_time_t now);
	void *user;
};

static void
tp_random(void *ctx, void *buf, size_t len)
{
	sst_test_splitmix_fill(ctx, buf, len);
}

static void
tp_transmit(void *ctx, const struct sst_nego_addr *to, const void *msg, size_t len, sst_time_t now)
{
	struct tp_side *s = ctx;

	(void)now;
	CU_ASSERT_FATAL(s->nout < TP_OUT_MAX && len <= TP_MSG_MAX);
	s->out[s->nout].to = *to;
	s->out[s->nout].len = len;
	memcpy(s->out[s->nout].b, msg, len);
	s->nout++;
}

static int
tp_alloc(void *ctx, const struct sst_nego_addr *peer)
{
	(void)peer;
	return sst_test_chan_take(&((struct tp_side *)ctx)->chans);
}

static void
tp_free(void *ctx, const struct sst_nego_addr *peer, uint8_t chan)
{
	(void)peer;
	CU_ASSERT_TRUE(sst_test_chan_give(&((struct tp_side *)ctx)->chans, chan));
}

static int
tp_established(void *ctx, const struct sst_nego_result *r, sst_time_t now)
{
	struct tp_side *s = ctx;
	int rc = s->refuse;

	if (rc == 0 && s->on_established != NULL)
		rc = s->on_established(s, r, now);
	s->res[s->established % TP_NRES] = *r;
	s->established++;
	return rc;
}

static void
tp_packet(void *ctx, const struct sst_nego_addr *peer, uint8_t chan, const void *pkt, size_t len,
	sst_time_t now)
{
	struct tp_side *s = ctx;

	(void)peer;
	s->npackets++;
	if (s->on_packet != NULL)
		s->on_packet(s, chan, pkt, len, now);
}

static void
tp_failed(void *ctx, const struct sst_nego_addr *peer, uint8_t chan, int error, sst_time_t now)
{
	struct tp_side *s = ctx;

	(void)peer;
	(void)now;
	/* The number went back before the call. */
	CU_ASSERT_FALSE(s->chans.used[chan]);
	s->nfailed++;
	s->failed_error = error;
}

static const char *
tp_peer_name(void *ctx, const struct sst_nego_addr *peer)
{
	(void)peer;
	return ((struct tp_side *)ctx)->peer_name;
}

static const struct sst_nego_ops tp_ops = {
	.transmit = tp_transmit,
	.chan_alloc = tp_alloc,
	.chan_free = tp_free,
	.established = tp_established,
	.packet = tp_packet,
	.peer_name = tp_peer_name,
	.failed = tp_failed,
};

static inline struct sst_nego_addr
tp_addr(uint32_t ip, uint16_t port)
{
	struct sst_nego_addr a = {.len = 6};

	a.bytes[0] = (uint8_t)(ip >> 24);
	a.bytes[1] = (uint8_t)(ip >> 16);
	a.bytes[2] = (uint8_t)(ip >> 8);
	a.bytes[3] = (uint8_t)ip;
	a.bytes[4] = (uint8_t)(port >> 8);
	a.bytes[5] = (uint8_t)port;
	return a;
}

static inline void
tp_identity(uint8_t seed_byte, struct sst_secure_identity *id)
{
	uint8_t seed[32];

	for (int i = 0; i < 32; i++)
		seed[i] = (uint8_t)(seed_byte + i);
	CU_ASSERT_EQUAL(sst_secure_identity_from_seed(id, seed), 0);
}

/* A side at ip:4000 with identity seed seed_byte; secure when secure is
 * true (identity, AES-GCM preferred, pinned policy with an empty table:
 * tp_pin() adds the peer). Not started. */
static inline void
tp_init(struct tp_side *s, uint8_t seed_byte, uint32_t ip, bool secure)
{
	memset(s, 0, sizeof(*s));
	s->self = tp_addr(ip, 4000);
	s->peer_name = "peer";
	s->rng = 0x1000u + seed_byte;
	tp_identity(seed_byte, &s->id);
	s->kh = (struct sst_secure_known_hosts){s->hosts, 4, 0};
	s->cfg.size = sizeof(s->cfg);
	s->cfg.identity = &s->id;
	s->cfg.policy = SST_SECURE_PINNED;
	s->cfg.known_hosts = &s->kh;
	sst_secure_suites_default(&s->cfg, true, false);
	s->cfg.random = tp_random;
	s->cfg.random_ctx = &s->rng;
	s->p.size = sizeof(s->p);
	memset(s->p.secret, seed_byte, sizeof(s->p.secret));
	s->p.ulp_caps = SST_NEGO_CAP_ALL;
	s->p.ops = &tp_ops;
	s->p.ctx = s;
	s->p.secure = secure ? &s->cfg : NULL;
}

/* Each side pins the other's key under the name "peer". */
static inline void
tp_pin(struct tp_side *a, struct tp_side *b)
{
	CU_ASSERT_EQUAL(sst_secure_known_hosts_add(&a->kh, "peer", b->id.pk), 0);
	CU_ASSERT_EQUAL(sst_secure_known_hosts_add(&b->kh, "peer", a->id.pk), 0);
}

/* A host in test memory (sst_nego_host_create() needs the EAL). */
static inline void
tp_start(struct tp_side *s)
{
	size_t size = sst_nego_host_size(&s->p);

	CU_ASSERT_FATAL(size != 0);
	s->h = aligned_alloc(64, RTE_ALIGN_CEIL(size, 64));
	CU_ASSERT_FATAL(s->h != NULL);
	CU_ASSERT_EQUAL_FATAL(sst_nego_host_init(s->h, &s->p), 0);
}

/* Destroy the host only (the application's channel numbers and results
 * stay, as when a process's negotiation host goes and comes back). */
static inline void
tp_stop(struct tp_side *s)
{
	if (s->h == NULL)
		return;
	sst_nego_host_fini(s->h);
	free(s->h);
	s->h = NULL;
}

static inline void
tp_fini(struct tp_side *s)
{
	tp_stop(s);
	sst_secure_identity_wipe(&s->id);
}

/* Deliver every message in from's outbox to `to` (as from from->self). */
static inline unsigned int
tp_deliver(struct tp_side *from, struct tp_side *to, sst_time_t now)
{
	unsigned int n = from->nout;

	from->nout = 0;
	for (unsigned int k = 0; k < n; k++)
		sst_nego_receive(to->h, &from->self, from->out[k].b, from->out[k].len, now);
	return n;
}

/* The chunk types of a message, in order; @return how many (-1: malformed). */
static inline int
tp_chunks(const struct tp_msg *m, int32_t *types, int max)
{
	struct sst_nego_msg pm;
	struct sst_nego_iter it;
	struct sst_nego_chunk c;
	int n = 0;

	if (sst_nego_msg_parse(m->b, m->len, &pm) != 0)
		return -1;
	sst_nego_iter_init(&it, &pm);
	while (sst_nego_iter_next(&it, &c))
		if (n < max)
			types[n++] = c.type;
	return n;
}

/* The body of chunk k of a message (which parses). */
static inline struct sst_bytes
tp_body(const struct tp_msg *m, int k)
{
	struct sst_nego_msg pm;
	struct sst_nego_iter it;
	struct sst_nego_chunk c = {0};

	CU_ASSERT_FATAL(sst_nego_msg_parse(m->b, m->len, &pm) == 0);
	sst_nego_iter_init(&it, &pm);
	for (int i = 0; i <= k; i++)
		CU_ASSERT_FATAL(sst_nego_iter_next(&it, &c));
	return c.body;
}

/* The type of a one-chunk message, or -1. */
static inline int32_t
tp_type(const struct tp_msg *m)
{
	int32_t t[2];

	return tp_chunks(m, t, 2) == 1 ? t[0] : -1;
}

#endif /* NEGO_PAIR_H */
