/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Initiator data with SecI2 (docs/secure-mode.md 3.4, sst_nego_send_early()):
 * a secure initiator C and responder S with real AES-128-GCM channels built
 * from their results. While C's channel is unconfirmed, the packets it
 * transmits go through sst_nego_send_early() and travel as Packet chunks
 * after a copy of SecI2; S hands them to its channel through ops->packet.
 * Checked: C's first data packet, sent right after SecR1, reaches S's
 * channel when the first SecI2 is lost, and also when it is not (the copy is
 * then a byte-identical repetition); once C confirms (S's first packet
 * arrived) packets go alone; the limits (early_max, byte 0, the phase of
 * the attempt, checksum mode) and that nothing else changes: S's
 * amplification counters, its table, a tampered SecI2 or packet.
 */
#include <errno.h>
#include <string.h>

#include <rte_mbuf.h>

#include "nego_pair.h"
#include "sst_channel.h"
#include "sst_test_channel.h"
#include "sst_test_eal.h"

#define SEC (SST_NSEC_PER_SEC)

static struct rte_mempool *pool;
static struct tp_side C, S;

/* A side's channels and what they delivered, by local channel number. */
struct app_chan {
	struct tp_side *side;
	struct sst_channel *ch;
	uint8_t local, peer;
	bool confirmed; /* C: the responder's first packet arrived */
	unsigned int got;
	uint8_t last[64];
	size_t last_len;
};

struct app {
	struct app_chan chans[256];
	/* Channel packets sent alone (not inside a negotiation message). */
	struct tp_msg raw[TP_OUT_MAX];
	unsigned int nraw;
	unsigned int early_sent; /* packets sst_nego_send_early() took */
	bool no_early;		 /* route nothing through the host */
	const char *send_in_cb;	 /* data sent from inside established() */
};

static struct app AC, AS;

static struct app *
app_of(const struct tp_side *s)
{
	return s == &C ? &AC : &AS;
}

static enum sst_channel_rx_verdict
up_receive(void *ctx, struct rte_mbuf *m, uint64_t seq, sst_time_t now)
{
	struct app_chan *c = ctx;
	bool eliciting = !sst_test_is_ack_only(m);

	(void)seq;
	if (eliciting) {
		const void *p;

		c->got++;
		c->last_len = RTE_MIN((size_t)rte_pktmbuf_pkt_len(m), sizeof(c->last));
		p = rte_pktmbuf_read(m, 0, (uint32_t)c->last_len, c->last);
		if (p != c->last)
			memcpy(c->last, p, c->last_len);
	}
	/* The engine's rule: an authenticated packet from the responder
	 * means it has our SecI2. */
	if (c->side == &C && !c->confirmed) {
		c->confirmed = true;
		CU_ASSERT_EQUAL(sst_nego_confirm(C.h, &S.self, c->local), 0);
	}
	rte_pktmbuf_free(m);
	(void)now;
	return eliciting ? SST_CHANNEL_RX_NEEDS_ACK : SST_CHANNEL_RX_ACCEPT;
}

static void
up_acked(void *ctx, uint64_t seq, uintptr_t cookie, sst_time_t now)
{
	(void)ctx, (void)seq, (void)cookie, (void)now;
}

static void
up_ack_due(void *ctx, sst_time_t now)
{
	struct app_chan *c = ctx;

	sst_test_send_ack_only(c->ch, pool, now);
}

static void
up_event(void *ctx, enum sst_channel_event ev, sst_time_t now)
{
	(void)ctx, (void)ev, (void)now;
}

/* The engine's transmit path: an unconfirmed initiator channel offers each
 * packet to the negotiation host first; what it does not take goes alone. */
static void
low_transmit(void *ctx, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	struct app_chan *c = ctx;
	struct app *a = app_of(c->side);

	for (uint16_t i = 0; i < n; i++) {
		uint8_t buf[TP_MSG_MAX];
		uint32_t len = rte_pktmbuf_pkt_len(pkts[i]);
		const void *p;
		int rc = -ENOENT;

		CU_ASSERT_FATAL(len <= sizeof(buf));
		p = rte_pktmbuf_read(pkts[i], 0, len, buf);
		CU_ASSERT_FATAL(p != NULL);
		if (p != buf)
			memcpy(buf, p, len);
		if (c->side == &C && !c->confirmed && !a->no_early)
			rc = sst_nego_send_early(C.h, &S.self, c->local, buf, len, now);
		if (rc == 0) {
			a->early_sent++;
		} else {
			CU_ASSERT_FATAL(a->nraw < TP_OUT_MAX);
			a->raw[a->nraw].len = len;
			memcpy(a->raw[a->nraw].b, buf, len);
			a->nraw++;
		}
		rte_pktmbuf_free(pkts[i]);
	}
}

static const struct sst_channel_upper upper = {
	.receive = up_receive,
	.acked = up_acked,
	.lost = up_acked,
	.ack_due = up_ack_due,
	.event = up_event,
};

static const struct sst_channel_lower lower = {.transmit = low_transmit};

static void
send_data(struct app_chan *c, const char *text, sst_time_t now)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	size_t n = strlen(text);

	CU_ASSERT_FATAL(m != NULL);
	memcpy(rte_pktmbuf_append(m, (uint16_t)n), text, n);
	CU_ASSERT_EQUAL(sst_channel_send(c->ch, &m, NULL, 1, true, now, NULL), 1);
}

static int
make_channel(struct tp_side *s, const struct sst_nego_result *r, sst_time_t now)
{
	struct app_chan *c = &app_of(s)->chans[r->local_channel];
	struct sst_channel_params p;

	CU_ASSERT_EQUAL_FATAL(sst_nego_channel_params(r, &p), 0);
	CU_ASSERT_PTR_NULL_FATAL(c->ch);
	p.pool = pool;
	p.upper = &upper;
	p.upper_ctx = c;
	p.lower = &lower;
	p.lower_ctx = c;
	c->side = s;
	c->local = r->local_channel;
	c->peer = r->peer_channel;
	c->ch = sst_channel_create(&p, now);
	if (c->ch == NULL)
		return -ENOMEM;
	if (app_of(s)->send_in_cb != NULL)
		send_data(c, app_of(s)->send_in_cb, now);
	return 0;
}

/* S's ops->packet: the packet goes to the channel's receive path. */
static void
on_packet(struct tp_side *s, uint8_t chan, const void *pkt, size_t len, sst_time_t now)
{
	struct app_chan *c = &app_of(s)->chans[chan];
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	CU_ASSERT_FATAL(m != NULL && c->ch != NULL);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), pkt, len);
	sst_channel_receive(c->ch, &m, 1, now);
}

/* Channel packets sent alone by one side, delivered by byte 0. */
static unsigned int
deliver_raw(struct tp_side *from, struct tp_side *to, sst_time_t now)
{
	struct app *a = app_of(from);
	unsigned int n = a->nraw, got = 0;

	a->nraw = 0;
	for (unsigned int k = 0; k < n; k++) {
		struct app_chan *c = &app_of(to)->chans[a->raw[k].b[0]];
		struct rte_mbuf *m;

		if (c->ch == NULL)
			continue; /* no such channel (yet): dropped */
		m = rte_pktmbuf_alloc(pool);
		CU_ASSERT_FATAL(m != NULL);
		memcpy(rte_pktmbuf_append(m, (uint16_t)a->raw[k].len), a->raw[k].b, a->raw[k].len);
		got += sst_channel_receive(c->ch, &m, 1, now);
	}
	return got;
}

static void
pair_setup(void)
{
	memset(&AC, 0, sizeof(AC));
	memset(&AS, 0, sizeof(AS));
	tp_init(&C, 0x10, 0x0a000001, true);
	tp_init(&S, 0x30, 0x0a000002, true);
	tp_pin(&C, &S);
	C.on_established = make_channel;
	S.on_established = make_channel;
	S.on_packet = on_packet;
}

static void
pair_teardown(void)
{
	for (int k = 0; k < 256; k++) {
		sst_channel_destroy(AC.chans[k].ch);
		sst_channel_destroy(AS.chans[k].ch);
	}
	memset(&AC, 0, sizeof(AC));
	memset(&AS, 0, sizeof(AS));
	tp_fini(&C);
	tp_fini(&S);
}

/* C connects; SecI1 and SecR1 go through: C is established. */
static struct app_chan *
to_established(sst_time_t now)
{
	int chan = sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, now);

	CU_ASSERT_FATAL(chan > 0);
	/* Before SecR1 there are no keys: nothing to carry. */
	CU_ASSERT_EQUAL(sst_nego_send_early(C.h, &S.self, (uint8_t)chan, "\x01x", 2, now), -ENOENT);
	tp_deliver(&C, &S, now);
	tp_deliver(&S, &C, now);
	CU_ASSERT_EQUAL_FATAL(C.established, 1);
	CU_ASSERT_EQUAL_FATAL(C.nout, 1); /* the first SecI2 */
	CU_ASSERT_EQUAL(tp_type(&C.out[0]), SST_NEGO_SECI2);
	return &AC.chans[chan];
}

/* The first SecI2 is lost; C's first data packet still reaches S's channel,
 * inside a SecI2 copy; S's answer confirms C, and later packets go alone. */
static void
test_first_i2_lost(void)
{
	const struct sst_nego_stats *ss, *cs;
	struct app_chan *c, *s;
	int32_t types[4];

	pair_setup();
	tp_start(&C);
	tp_start(&S);
	c = to_established(0);
	C.nout = 0; /* lost */
	send_data(c, "hello early", 0);
	CU_ASSERT_TRUE(AC.early_sent == 1 && AC.nraw == 0 && C.nout == 1);
	CU_ASSERT_EQUAL(tp_chunks(&C.out[0], types, 4), 2);
	CU_ASSERT_TRUE(types[0] == SST_NEGO_SECI2 && types[1] == SST_NEGO_PACKET);
	tp_deliver(&C, &S, 10);
	CU_ASSERT_EQUAL_FATAL(S.established, 1);
	s = &AS.chans[S.res[0].local_channel];
	CU_ASSERT_TRUE(s->got == 1 && S.npackets == 1);
	CU_ASSERT_TRUE(s->last_len == 11 && memcmp(s->last, "hello early", 11) == 0);
	/* S answers on its channel: C is confirmed, its SecI2 stops. */
	send_data(s, "hi", 20);
	CU_ASSERT_EQUAL(deliver_raw(&S, &C, 30), 1);
	CU_ASSERT_TRUE(c->confirmed && c->got == 1);
	CU_ASSERT_EQUAL(sst_nego_next_expiry(C.h), SST_TIME_NEVER);
	send_data(c, "later", 40);
	CU_ASSERT_TRUE(AC.early_sent == 1 && AC.nraw == 1 && C.nout == 0);
	CU_ASSERT_EQUAL(deliver_raw(&C, &S, 50), 1);
	CU_ASSERT_EQUAL(s->got, 2);
	CU_ASSERT_EQUAL(sst_nego_send_early(C.h, &S.self, c->local, "\x01x", 2, 50), -ENOENT);
	cs = sst_nego_stats(C.h);
	ss = sst_nego_stats(S.h);
	CU_ASSERT_TRUE(cs->tx_packet == 1 && cs->tx_sec_i2 == 2 && cs->confirmed == 1);
	CU_ASSERT_TRUE(ss->rx_packet == 1 && ss->rx_packet_dropped == 0);
	/* Limits untouched: S's counters are those of a plain handshake. */
	CU_ASSERT_TRUE(ss->amp_tx_bytes == 260 && ss->amp_rx_bytes == 128);
	CU_ASSERT_TRUE(ss->amp_limited == 0 && ss->rx_sec_i2 == 1 && ss->rx_sec_i2_bad == 0);
	CU_ASSERT_TRUE(sst_nego_responding(S.h) == 1 && sst_nego_half_open(S.h) == 0);
	pair_teardown();
}

/* Without loss the plain SecI2 arrives first; the copy that carries the
 * packet is a byte-identical repetition and its packet is taken too. Data
 * sent from inside established() rides the same way. */
static void
test_i2_arrives_first(void)
{
	struct app_chan *c, *s;

	pair_setup();
	tp_start(&C);
	tp_start(&S);
	c = to_established(0);
	send_data(c, "one", 0);
	send_data(c, "two", 0);
	CU_ASSERT_TRUE(C.nout == 3 && AC.early_sent == 2);
	tp_deliver(&C, &S, 10);
	CU_ASSERT_EQUAL_FATAL(S.established, 1);
	s = &AS.chans[S.res[0].local_channel];
	CU_ASSERT_TRUE(s->got == 2 && S.npackets == 2);
	CU_ASSERT_TRUE(s->last_len == 3 && memcmp(s->last, "two", 3) == 0);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->rx_sec_i2_duplicate, 2);
	/* A replay of the whole message: the channel drops the copy. */
	C.nout = 0;
	send_data(c, "three", 20);
	memcpy(&C.out[1], &C.out[0], sizeof(C.out[0]));
	C.nout = 2;
	tp_deliver(&C, &S, 30);
	CU_ASSERT_TRUE(s->got == 3 && S.npackets == 4);
	CU_ASSERT_EQUAL(sst_channel_stats(s->ch)->rx_duplicate, 1);
	CU_ASSERT_EQUAL(S.established, 1);
	pair_teardown();
}

/* A SecI2 that is not the one that verified carries nothing; a packet that
 * fails the armor is dropped by the channel; a Packet chunk for another
 * channel is dropped by the host. */
static void
test_tampered(void)
{
	struct app_chan *c, *s;
	struct sst_bytes pb;
	struct tp_msg m;
	size_t last;

	pair_setup();
	tp_start(&C);
	tp_start(&S);
	c = to_established(0);
	tp_deliver(&C, &S, 0);
	CU_ASSERT_EQUAL_FATAL(S.established, 1);
	s = &AS.chans[S.res[0].local_channel];
	send_data(c, "data", 10);
	m = C.out[0];
	C.nout = 0;
	pb = tp_body(&m, 1); /* opaque packet<>: length word, packet, padding */
	last = (size_t)(pb.ptr - m.b) + 4 + ((size_t)pb.ptr[2] << 8 | pb.ptr[3]) - 1;
	/* A byte of the SecI2 body changed (its sealed block): dropped. */
	m.b[16 + 40] ^= 1;
	sst_nego_receive(S.h, &C.self, m.b, m.len, 20);
	CU_ASSERT_TRUE(s->got == 0 && S.npackets == 0);
	CU_ASSERT_EQUAL(sst_nego_stats(S.h)->rx_packet_dropped, 1);
	/* The packet's last byte (its tag) changed: the channel refuses it. */
	m.b[16 + 40] ^= 1;
	m.b[last] ^= 1;
	sst_nego_receive(S.h, &C.self, m.b, m.len, 20);
	CU_ASSERT_TRUE(s->got == 0 && S.npackets == 1);
	CU_ASSERT_EQUAL(sst_channel_stats(s->ch)->rx_bad_trailer, 1);
	m.b[last] ^= 1;
	sst_nego_receive(S.h, &C.self, m.b, m.len, 20);
	CU_ASSERT_TRUE(s->got == 1 && S.npackets == 2);
	/* After release, the SecI2 matches nothing and carries nothing. */
	CU_ASSERT_EQUAL(sst_nego_release(S.h, &C.self, s->local, s->peer), 0);
	sst_nego_receive(S.h, &C.self, m.b, m.len, 20);
	CU_ASSERT_TRUE(S.npackets == 2 && sst_nego_stats(S.h)->rx_sec_i2_unmatched == 1);
	pair_teardown();
}

/* The API's limits: early_max, byte 0, checksum mode, bad arguments, and
 * the end of SecI2 repetition after 20 s. */
static void
test_limits(void)
{
	uint8_t big[TP_MSG_MAX];
	struct app_chan *c;
	int chan;

	pair_setup();
	C.p.early_max = 300;
	tp_start(&C);
	tp_start(&S);
	c = to_established(0);
	C.nout = 0;
	memset(big, 0xee, sizeof(big));
	big[0] = c->peer;
	/* 172 (SecI2) + 8 (chunk) + 4 + 116 = 300 fits, 117 does not. */
	CU_ASSERT_EQUAL(sst_nego_send_early(C.h, &S.self, c->local, big, 116, 0), 0);
	CU_ASSERT_TRUE(C.nout == 1 && C.out[0].len == 300);
	CU_ASSERT_EQUAL(sst_nego_send_early(C.h, &S.self, c->local, big, 117, 0), -EMSGSIZE);
	big[0] = (uint8_t)(c->peer + 1);
	CU_ASSERT_EQUAL(sst_nego_send_early(C.h, &S.self, c->local, big, 16, 0), -EINVAL);
	CU_ASSERT_EQUAL(sst_nego_send_early(C.h, &S.self, c->local, big, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(sst_nego_send_early(C.h, &S.self, c->local, NULL, 4, 0), -EINVAL);
	CU_ASSERT_EQUAL(sst_nego_send_early(NULL, &S.self, c->local, big, 4, 0), -EINVAL);
	CU_ASSERT_EQUAL(
		sst_nego_send_early(C.h, &S.self, (uint8_t)(c->local + 1), big, 4, 0), -ENOENT);
	CU_ASSERT_EQUAL(C.nout, 1);
	/* 20 s after SecR1 the repetition ends unconfirmed: nothing carried. */
	sst_nego_handle_expiry(C.h, 20 * SEC);
	CU_ASSERT_EQUAL(sst_nego_stats(C.h)->unconfirmed, 1);
	big[0] = c->peer;
	CU_ASSERT_EQUAL(sst_nego_send_early(C.h, &S.self, c->local, big, 16, 20 * SEC), -ENOENT);
	/* Checksum-mode attempts never carry packets. */
	chan = sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_CHECKSUM, 20 * SEC);
	CU_ASSERT_TRUE(chan > 0);
	CU_ASSERT_EQUAL(
		sst_nego_send_early(C.h, &S.self, (uint8_t)chan, big, 16, 20 * SEC), -ENOENT);
	/* early_max below a SecI2 with a small packet is refused at setup. */
	S.p.early_max = 255;
	CU_ASSERT_EQUAL(sst_nego_host_size(&S.p), 0);
	pair_teardown();
}

/* The contrast: without the early path, a packet sent right after SecR1
 * while the first SecI2 is lost arrives before S has the channel and is
 * dropped (the stream layer would have to resend it). */
static void
test_without_early(void)
{
	struct app_chan *c, *s;

	pair_setup();
	tp_start(&C);
	tp_start(&S);
	c = to_established(0);
	C.nout = 0; /* the first SecI2 is lost */
	AC.no_early = true;
	send_data(c, "alone", 0);
	CU_ASSERT_EQUAL(deliver_raw(&C, &S, 10), 0); /* S has no channel yet */
	sst_nego_handle_expiry(C.h, SST_NEGO_RETX_INITIAL);
	tp_deliver(&C, &S, SST_NEGO_RETX_INITIAL);
	CU_ASSERT_EQUAL_FATAL(S.established, 1);
	s = &AS.chans[S.res[0].local_channel];
	CU_ASSERT_EQUAL(s->got, 0); /* lost: the stream layer would resend it */
	pair_teardown();
}

/* Data the application sends from inside established() (before the host
 * sends its first SecI2) rides in a SecI2 copy too, and arrives. */
static void
test_data_in_callback(void)
{
	struct app_chan *s;
	int32_t types[4];

	pair_setup();
	AC.send_in_cb = "from the callback";
	tp_start(&C);
	tp_start(&S);
	CU_ASSERT_TRUE(sst_nego_connect(C.h, &S.self, SST_NEGO_MODE_SECURE, 0) > 0);
	tp_deliver(&C, &S, 0);
	tp_deliver(&S, &C, 0);
	CU_ASSERT_EQUAL_FATAL(C.nout, 2);
	CU_ASSERT_EQUAL(tp_chunks(&C.out[0], types, 4), 2);
	CU_ASSERT_EQUAL(tp_type(&C.out[1]), SST_NEGO_SECI2);
	C.out[1] = C.out[0]; /* the plain SecI2 is lost, the copy arrives twice */
	tp_deliver(&C, &S, 10);
	CU_ASSERT_EQUAL_FATAL(S.established, 1);
	s = &AS.chans[S.res[0].local_channel];
	CU_ASSERT_TRUE(s->got == 1 && s->last_len == 17);
	CU_ASSERT_EQUAL(sst_channel_stats(s->ch)->rx_duplicate, 1);
	pair_teardown();
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_first_i2_lost),
	SST_TEST(test_i2_arrives_first),
	SST_TEST(test_data_in_callback),
	SST_TEST(test_tampered),
	SST_TEST(test_limits),
	SST_TEST(test_without_early),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_nego_early") < 0)
		return 1;
	pool = sst_test_pool("test_nego_early", 512, 2048);
	if (pool == NULL)
		return 1;
	return sst_test_run("nego_early", cases);
}
