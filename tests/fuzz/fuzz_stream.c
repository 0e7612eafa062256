/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The whole stream layer driven by arbitrary input: two stream hosts a and
 * b joined by one channel each way, where the input decides which packets
 * arrive (dropped, duplicated, held back and reordered), injects arbitrary
 * stream packets into b as if they came from an authenticated peer, makes
 * the applications open streams and substreams, write, read, close, reset,
 * reprioritise and send datagrams, and lets time pass. Nothing may crash or
 * trip the sanitizers; at the end both hosts are destroyed and every mbuf
 * must be back in its pool.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "fuzz_check.h"
#include "sst_stream.h"
#include "sst_test_eal.h"

enum {
	POOL_SIZE = 16384,
	HELD_MAX = 64,
	APP_MAX = 64,
};

static struct rte_mempool *pool, *clones;

struct side {
	struct sst_stream_host *h;
	struct sst_stream_peer *p;
	struct sst_stream_chan *c;
	struct sst_stream *app[APP_MAX]; /* handles the application holds */
	struct rte_mbuf *held[HELD_MAX]; /* packets on their way to the other side */
	unsigned int nheld;
};

static struct side sides[2];
static sst_time_t now;

static void
low_transmit(void *ctx, struct rte_mbuf **pkts, uint16_t n, sst_time_t t)
{
	struct side *s = ctx;

	(void)t;
	for (uint16_t i = 0; i < n; i++) {
		if (s->nheld < HELD_MAX)
			s->held[s->nheld++] = pkts[i];
		else
			rte_pktmbuf_free(pkts[i]);
	}
}

static const struct sst_channel_lower lower = {.transmit = low_transmit};

static void
app_keep(struct side *s, struct sst_stream *st)
{
	for (int i = 0; i < APP_MAX; i++)
		if (s->app[i] == NULL) {
			s->app[i] = st;
			return;
		}
	sst_stream_close(st, now);
}

static void
app_forget(struct side *s, struct sst_stream *st)
{
	for (int i = 0; i < APP_MAX; i++)
		if (s->app[i] == st)
			s->app[i] = NULL;
}

static void
op_accepted(void *ctx, struct sst_stream *parent, struct sst_stream *st, void *svc, sst_time_t at)
{
	struct side *s = ctx;

	(void)svc;
	if (parent != NULL && (st = sst_stream_accept_substream(parent, at)) == NULL)
		return;
	sst_stream_listen_substream(st, true);
	app_keep(s, st);
}

static void
op_readable(void *ctx, struct sst_stream *st, sst_time_t at)
{
	struct sst_stream_data d[32];
	struct rte_mbuf *m;
	int n;

	while ((n = sst_stream_read(st, d, 32, at)) > 0)
		for (int i = 0; i < n; i++)
			rte_pktmbuf_free(d[i].m);
	while ((m = sst_stream_recv_datagram(st, at)) != NULL) {
		sst_stream_apply_priority_message(st, m);
		rte_pktmbuf_free(m);
	}
	if (ctx != NULL && sst_stream_user(st) == NULL) {
		/* Now and then datagrams are read as substreams. */
		struct sst_stream *sub = sst_stream_accept_substream(st, at);

		if (sub != NULL)
			app_keep(ctx, sub);
	}
}

static const struct sst_stream_ops ops = {
	.accepted = op_accepted,
	.readable = op_readable,
};

int LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (sst_test_eal_init("fuzz_stream") < 0)
		abort();
	pool = sst_test_pool("fuzz_stream", POOL_SIZE, 2048);
	clones = sst_test_pool("fuzz_stream_cl", POOL_SIZE, 0);
	if (pool == NULL || clones == NULL)
		abort();
	return 0;
}

static void
setup(uint32_t caps)
{
	static int instance;
	uint8_t hcid[2][8] = {{1, 2, 3, 4, 5, 6, 7, 8}, {9, 10, 11, 12, 13, 14, 15, 16}};

	instance++;
	for (int i = 0; i < 2; i++) {
		struct side *s = &sides[i];
		struct sst_stream_host_params hp = {.size = sizeof(hp)};
		struct sst_channel_params chp = {.size = sizeof(chp)};
		struct sst_stream_chan_params cp = {.channel = &chp};
		char name[32];

		memset(s, 0, sizeof(*s));
		snprintf(name, sizeof(name), "f%d%c", instance % 1000, 'a' + i);
		hp.name = name;
		hp.pool = pool;
		hp.clone_pool = clones;
		hp.max_streams = 256;
		hp.max_tx_buffers = 32;
		hp.max_rx_buffers = 32;
		hp.max_sids = 64;
		hp.send_mbufs = 64;
		hp.rx_pieces = 64;
		hp.ops = &ops;
		hp.ctx = s;
		s->h = sst_stream_host_create(&hp);
		FUZZ_CHECK(s->h != NULL);
		s->p = sst_stream_peer_create(s->h, caps);
		FUZZ_CHECK(s->p != NULL);
		chp.local_channel = 1;
		chp.peer_channel = 1;
		chp.suite = SST_CRYPTO_NULL;
		chp.replay_window = 32;
		chp.tx_log = 256;
		chp.pool = pool;
		chp.lower = &lower;
		chp.lower_ctx = s;
		cp.local_hcid = hcid[i];
		cp.local_hcid_len = 8;
		cp.peer_hcid = hcid[1 - i];
		cp.peer_hcid_len = 8;
		cp.initiator = i == 0;
		s->c = sst_stream_chan_create(s->p, &cp, now);
		FUZZ_CHECK(s->c != NULL);
	}
	sst_stream_listen(sides[1].h, "fuzz", "x", NULL);
}

static void
teardown(void)
{
	for (int i = 0; i < 2; i++) {
		struct side *s = &sides[i];

		rte_pktmbuf_free_bulk(s->held, s->nheld);
		s->nheld = 0;
		for (int k = 0; k < APP_MAX; k++)
			if (s->app[k] != NULL)
				sst_stream_close(s->app[k], now);
		sst_stream_peer_destroy(s->p);
		sst_stream_host_destroy(s->h);
	}
}

static struct rte_mbuf *
payload(uint32_t len, uint8_t fill)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	if (m == NULL)
		return NULL;
	if (rte_pktmbuf_append(m, (uint16_t)len) == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(rte_pktmbuf_mtod(m, void *), fill, len);
	return m;
}

static struct sst_stream *
pick(struct side *s, uint8_t k)
{
	return s->app[k % APP_MAX];
}

static void
step(struct fuzz_input *in)
{
	uint8_t op = fuzz_take(in);
	uint8_t arg = fuzz_take(in);
	struct side *s = &sides[op & 1];
	struct side *o = &sides[!(op & 1)];
	struct sst_stream *st = pick(s, arg);
	struct rte_mbuf *m;

	switch ((op >> 1) % 15) {
	case 0: /* deliver the oldest held packet */
	case 1:
		if (o->nheld > 0) {
			m = o->held[0];
			memmove(o->held, o->held + 1, --o->nheld * sizeof(*o->held));
			sst_channel_receive(sst_stream_chan_channel(s->c), &m, 1, now);
		}
		break;
	case 2: /* lose, duplicate or reorder a held packet */
		if (o->nheld > 0) {
			unsigned int i = arg % o->nheld;

			if (arg & 0x80) {
				m = rte_pktmbuf_copy(o->held[i], pool, 0, UINT32_MAX);
				if (m != NULL)
					sst_channel_receive(
						sst_stream_chan_channel(s->c), &m, 1, now);
			} else if (arg & 0x40) {
				m = o->held[i];
				o->held[i] = o->held[o->nheld - 1];
				o->held[o->nheld - 1] = m;
			} else {
				rte_pktmbuf_free(o->held[i]);
				o->held[i] = o->held[--o->nheld];
			}
		}
		break;
	case 3: { /* an arbitrary stream packet from the peer */
		uint8_t len = fuzz_take(in);
		struct rte_mbuf *pkt = rte_pktmbuf_alloc(pool);
		uint8_t *p = pkt != NULL ? (uint8_t *)rte_pktmbuf_append(pkt, len) : NULL;

		if (p == NULL) {
			rte_pktmbuf_free(pkt);
			break;
		}
		for (unsigned int i = 0; i < len; i++)
			p[i] = fuzz_take(in);
		sst_stream_chan_upper.receive(
			s->c, pkt, sst_channel_next_seq(sst_stream_chan_channel(o->c)) + arg, now);
		break;
	}
	case 4:
		st = sst_stream_connect(s->p, arg & 1 ? "fuzz" : "nope", "x", now);
		if (st != NULL)
			app_keep(s, st);
		break;
	case 5:
		if (st != NULL && (st = sst_stream_create_substream(st, now)) != NULL)
			app_keep(s, st);
		break;
	case 6:
		if (st != NULL && (m = payload(1u + arg * 37u % 1900u, arg)) != NULL &&
			sst_stream_write(st, m, arg & 0x10 ? SST_WRITE_MESSAGE : 0, now) < 0)
			rte_pktmbuf_free(m);
		break;
	case 7:
		if (st != NULL)
			op_readable(NULL, st, now);
		break;
	case 8:
		if (st != NULL) {
			if (arg & 0x80)
				sst_stream_reset(st, now);
			else if (arg & 0x40)
				sst_stream_shutdown(st, now);
			else {
				app_forget(s, st);
				sst_stream_close(st, now);
			}
		}
		break;
	case 9:
		if (st != NULL && (arg & 0x80))
			sst_stream_request_priority(st, (int8_t)(arg << 1), now);
		else if (st != NULL)
			sst_stream_set_priority(st, (int8_t)arg);
		break;
	case 13: /* offer to close the channel */
		sst_stream_chan_close(s->c, now);
		break;
	case 12: /* the path MTU changes */
		sst_channel_set_mtu(sst_stream_chan_channel(s->c), 200u + arg * 5u);
		break;
	case 10: /* a datagram: one packet, fragments, or an ephemeral substream */
		if (st != NULL && (m = payload(1u + arg * 7u % 1900u, arg)) != NULL) {
			for (int k = 0; k < (arg & 3); k++) {
				struct rte_mbuf *more = payload(1900, arg);

				if (more == NULL || rte_pktmbuf_chain(m, more) < 0)
					rte_pktmbuf_free(more);
			}
			if (sst_stream_send_datagram(st, m, now) < 0)
				rte_pktmbuf_free(m);
		}
		break;
	default: /* time passes */
		now += (sst_time_t)(arg + 1) * SST_NSEC_PER_MSEC;
		for (int i = 0; i < 2; i++) {
			struct sst_channel *ch = sst_stream_chan_channel(sides[i].c);

			if (sst_channel_next_expiry(ch) <= now)
				sst_channel_handle_expiry(ch, now);
		}
		break;
	}
	sst_stream_chan_flush(sides[0].c, now);
	sst_stream_chan_flush(sides[1].c, now);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int before = rte_mempool_avail_count(pool);
	unsigned int clones_before = rte_mempool_avail_count(clones);
	struct fuzz_input in = {.p = data, .left = size};

	now = SST_NSEC_PER_SEC;
	setup(fuzz_take(&in) & 1 ? SST_CAPS_ALL : SST_CAPS_LEGACY);
	for (int steps = 0; in.left > 0 && steps < 2000; steps++)
		step(&in);
	teardown();
	FUZZ_CHECK(rte_mempool_avail_count(pool) == before);
	FUZZ_CHECK(rte_mempool_avail_count(clones) == clones_before);
	return 0;
}
