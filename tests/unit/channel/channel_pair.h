/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two channels in one process joined by a hand-driven "wire" that a test
 * can drop, duplicate, reorder and tamper with, in virtual time: each end
 * records what its upper layer saw (packets, acks, losses, ack_due calls)
 * and answers ack_due with an ack-only packet unless told not to. Shared
 * by test_channel and test_channel_burst; the test sets `pool` first.
 */
#ifndef CHANNEL_PAIR_H
#define CHANNEL_PAIR_H

#include <string.h>

#include <rte_mbuf.h>

#include "channel_internal.h"
#include "channel_wire.h"
#include "sst_channel.h"
#include "sst_test.h"
#include "sst_test_channel.h"

enum { WIRE_MAX = 4096, LOG_MAX = 65536 };

/* One endpoint: its channel, what its upper layer saw, and its outgoing wire. */
struct end {
	struct sst_channel *ch;
	struct rte_mbuf *wire[WIRE_MAX]; /* sealed packets waiting for the peer */
	unsigned int nwire;
	uint64_t received[LOG_MAX]; /* sequence numbers delivered upward */
	unsigned int nreceived;
	uint8_t last_payload[64];
	uint32_t last_len;
	uint8_t outcome[LOG_MAX]; /* per our sequence number: 1 acked, 2 lost, 3 both (bug) */
	unsigned int acked, lost, acks_due, failed_events, replace_events;
	bool auto_ack;	     /* answer ack_due with an ack-only packet */
	uint64_t refuse_seq; /* the upper layer refuses this packet (0: none) */
};

static struct rte_mempool *pool;

static inline struct rte_mbuf *
make_packet(const void *data, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	CU_ASSERT_FATAL(m != NULL);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), data, len);
	return m;
}

static inline enum sst_channel_rx_verdict
up_receive(void *ctx, struct rte_mbuf *m, uint64_t seq, sst_time_t now)
{
	struct end *e = ctx;
	const void *p;
	bool eliciting;

	(void)now;
	e->received[e->nreceived++ % LOG_MAX] = seq;
	e->last_len = rte_pktmbuf_pkt_len(m);
	/* rte_pktmbuf_read() copies only when the bytes are not contiguous. */
	p = rte_pktmbuf_read(m, 0, RTE_MIN(e->last_len, sizeof(e->last_payload)), e->last_payload);
	memmove(e->last_payload, p, RTE_MIN(e->last_len, sizeof(e->last_payload)));
	eliciting = !sst_test_is_ack_only(m);
	rte_pktmbuf_free(m);
	if (seq == e->refuse_seq) {
		e->refuse_seq = 0;
		return SST_CHANNEL_RX_REFUSE;
	}
	return eliciting ? SST_CHANNEL_RX_NEEDS_ACK : SST_CHANNEL_RX_ACCEPT;
}

static inline void
up_acked(void *ctx, uint64_t seq, uintptr_t cookie, sst_time_t now)
{
	struct end *e = ctx;

	(void)cookie;
	(void)now;
	e->outcome[seq % LOG_MAX] |= 1;
	e->acked++;
}

static inline void
up_lost(void *ctx, uint64_t seq, uintptr_t cookie, sst_time_t now)
{
	struct end *e = ctx;

	(void)cookie;
	(void)now;
	e->outcome[seq % LOG_MAX] |= 2;
	e->lost++;
}

static inline void
up_ack_due(void *ctx, sst_time_t now)
{
	struct end *e = ctx;

	e->acks_due++;
	if (e->auto_ack)
		sst_test_send_ack_only(e->ch, pool, now);
}

static inline void
up_event(void *ctx, enum sst_channel_event ev, sst_time_t now)
{
	struct end *e = ctx;

	(void)now;
	if (ev == SST_CHANNEL_EV_FAILED)
		e->failed_events++;
	else
		e->replace_events++;
}

static inline void
low_transmit(void *ctx, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	struct end *e = ctx;

	(void)now;
	for (uint16_t i = 0; i < n; i++) {
		CU_ASSERT_FATAL(e->nwire < WIRE_MAX);
		e->wire[e->nwire++] = pkts[i];
	}
}

static const struct sst_channel_upper upper = {
	.receive = up_receive,
	.acked = up_acked,
	.lost = up_lost,
	.ack_due = up_ack_due,
	.event = up_event,
};

static const struct sst_channel_lower lower = {.transmit = low_transmit};

static inline void
params_for(struct sst_channel_params *p, struct end *e, enum sst_crypto_suite suite,
	uint32_t tx_key, uint32_t rx_key)
{
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	p->local_channel = 1;
	p->peer_channel = 1;
	p->suite = suite;
	p->keys.tx_chk_key = tx_key;
	p->keys.rx_chk_key = rx_key;
	for (int i = 0; i < SST_CRYPTO_KEY_MAX; i++) {
		p->keys.tx_key[i] = (uint8_t)(tx_key + i);
		p->keys.rx_key[i] = (uint8_t)(rx_key + i);
	}
	for (int i = 0; i < SST_CRYPTO_IV_LEN; i++) {
		p->keys.tx_iv[i] = (uint8_t)(tx_key >> (i % 4));
		p->keys.rx_iv[i] = (uint8_t)(rx_key >> (i % 4));
	}
	p->pool = pool;
	p->upper = &upper;
	p->upper_ctx = e;
	p->lower = &lower;
	p->lower_ctx = e;
}

/* A pair of ends with mirrored keys. */
static inline void
pair_setup(struct end *a, struct end *b, enum sst_crypto_suite suite, uint64_t skip_seed)
{
	struct sst_channel_params p;

	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	params_for(&p, a, suite, 0x11111111, 0x22222222);
	p.skip_seed = skip_seed;
	a->ch = sst_channel_create(&p, 0);
	params_for(&p, b, suite, 0x22222222, 0x11111111);
	b->ch = sst_channel_create(&p, 0);
	CU_ASSERT_FATAL(a->ch != NULL && b->ch != NULL);
	a->auto_ack = b->auto_ack = true;
}

static inline void
wire_discard(struct end *e)
{
	rte_pktmbuf_free_bulk(e->wire, e->nwire);
	e->nwire = 0;
}

static inline void
pair_teardown(struct end *a, struct end *b)
{
	wire_discard(a);
	wire_discard(b);
	sst_channel_destroy(a->ch);
	sst_channel_destroy(b->ch);
}

/* Deliver what `from` sent to `to`, optionally dropping packet index `drop`. */
static inline uint16_t
deliver(struct end *from, struct end *to, sst_time_t now, int drop)
{
	struct rte_mbuf *burst[WIRE_MAX];
	unsigned int n = 0;
	uint16_t got = 0;

	for (unsigned int i = 0; i < from->nwire; i++) {
		if ((int)i == drop)
			rte_pktmbuf_free(from->wire[i]);
		else
			burst[n++] = from->wire[i];
	}
	from->nwire = 0;
	for (unsigned int i = 0; i < n; i += 32) {
		uint16_t chunk = (uint16_t)RTE_MIN(32u, n - i);

		got += sst_channel_receive(to->ch, burst + i, chunk, now);
	}
	return got;
}

static inline void
send_data(struct end *e, unsigned int count, sst_time_t now)
{
	struct rte_mbuf *pkts[64];
	uint8_t payload[100];

	CU_ASSERT_FATAL(count <= 64);
	for (unsigned int i = 0; i < count; i++) {
		memset(payload, (int)i, sizeof(payload));
		/* A Data header on SID 1 then bytes. */
		payload[0] = 0x00;
		payload[1] = 0x01;
		payload[2] = 0x30;
		payload[3] = 0x10;
		pkts[i] = make_packet(payload, sizeof(payload));
	}
	CU_ASSERT_EQUAL(
		sst_channel_send(e->ch, pkts, NULL, (uint16_t)count, true, now, NULL), count);
}

/* Run both ends' timers and wires until quiet or until `until`. */
static inline sst_time_t
settle(struct end *a, struct end *b, sst_time_t now, sst_time_t until)
{
	for (int guard = 0; guard < 10000; guard++) {
		sst_time_t t;

		if (a->nwire != 0 || b->nwire != 0) {
			deliver(a, b, now, -1);
			deliver(b, a, now, -1);
			continue;
		}
		t = sst_time_min(sst_channel_next_expiry(a->ch), sst_channel_next_expiry(b->ch));
		if (t == SST_TIME_NEVER || t > until)
			return now;
		now = t > now ? t : now;
		sst_channel_handle_expiry(a->ch, now);
		sst_channel_handle_expiry(b->ch, now);
	}
	CU_FAIL("settle did not settle");
	return now;
}

static inline void
check_exactly_once(const struct end *e)
{
	struct sst_channel_info info;

	sst_channel_info(e->ch, &info);
	for (uint64_t s = 1; s < info.next_seq && s < LOG_MAX; s++)
		CU_ASSERT_NOT_EQUAL(e->outcome[s], 3);
}

#endif /* CHANNEL_PAIR_H */
