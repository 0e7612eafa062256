/* SPDX-License-Identifier: BSD-3-Clause */
/* The two-host stream world of stream_world.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_mbuf.h>

#include "sst_test.h"
#include "sst_test_eal.h"
#include "sst_test_mbuf.h"
#include "stream_world.h"

static struct rte_mempool *pool, *clone_pool;

/* A datagram's bytes, gathered to be checked (up to WORLD_DGRAM_MAX). */
static uint8_t dgram_buf[WORLD_DGRAM_MAX + 8];

struct chan_port {
	struct endpoint *ep;
	uint16_t port;
};

/* Which flow a stream belongs to, by the USID counter both sides agree on. */
static uint64_t *by_usid;
static uint64_t by_usid_cap;

int
world_eal_init(const char *prefix)
{
	if (sst_test_eal_init(prefix) != 0)
		return -1;
	pool = sst_test_pool("world_pool", 65535, 2048 + RTE_PKTMBUF_HEADROOM);
	clone_pool = sst_test_pool("world_clones", 65535, 0);
	if (pool == NULL || clone_pool == NULL) {
		printf("world: no mbuf pools\n");
		return -1;
	}
	return 0;
}

int
world_test_main(const char *suite, const struct sst_test_case *cases, uint64_t *seed)
{
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "%s_%d", suite, (int)getpid());
	if (world_eal_init(prefix) != 0)
		return 1;
	*seed = sim_seed_from_env(0x5eedf00d);
	return sst_test_run(suite, cases);
}

struct rte_mempool *
world_pool(void)
{
	return pool;
}

void
world_params_default(struct world_params *wp, uint64_t seed)
{
	memset(wp, 0, sizeof(*wp));
	wp->seed = seed;
	wp->caps = SST_CAPS_ALL;
	wp->replay_window = 64;
	world_link_defaults(&wp->link);
	wp->host.max_streams = 4096;
	wp->host.max_tx_buffers = 512;
	wp->host.max_rx_buffers = 512;
	/* The library's default before issue 19: the scenarios' timing (a
	 * writer blocked on its buffer) was written for it. */
	wp->host.send_buffer = 1 << 20;
	wp->host.max_sids = 2048;
	wp->host.peer_usids = 4096;
}

void
world_params_link(struct world_params *wp, uint64_t seed, uint64_t rate_bps, sst_time_t delay_ns,
	uint32_t queue_pkts)
{
	world_params_default(wp, seed);
	wp->channel_defaults = true;
	wp->link.rate_bps = rate_bps;
	wp->link.delay_ns = delay_ns;
	wp->link.queue_pkts = queue_pkts;
}

void
world_run_until(struct world *w, sst_time_t t)
{
	world_pump(w, sim_now(w->sim));
	sim_run_until(w->sim, t);
}

void
world_link_defaults(struct sst_simlink_params *l)
{
	sst_simlink_params_default(l);
	l->rate_bps = 100 * 1000 * 1000;
	l->delay_ns = 5 * SST_NSEC_PER_MSEC;
	l->queue_pkts = 500;
	l->capacity = 16384;
	l->pool = pool;
}

static uint8_t
flow_byte(uint64_t id, uint64_t off)
{
	if (off < 8)
		return (uint8_t)(id >> (8 * off));
	return sst_test_pattern(off + id * UINT64_C(0x9e3779b97f));
}

static struct flow *
flow_lookup(struct world *w, struct sst_stream *s)
{
	struct sst_stream_info info;

	sst_stream_info(s, &info);
	if (info.usid_counter >= by_usid_cap || by_usid[info.usid_counter] == 0)
		return NULL;
	return &w->flows[by_usid[info.usid_counter] - 1];
}

/* Only for streams the application holds (accepted or opened). */
static struct flow *
flow_of(struct world *w, struct sst_stream *s)
{
	struct flow *f = sst_stream_user(s);

	if (f != NULL)
		return f;
	f = flow_lookup(w, s);
	if (f != NULL)
		sst_stream_set_user(s, f);
	return f;
}

/* Check one datagram's bytes: [8-byte number][pattern]. */
static void
check_datagram(struct world *w, int side, const uint8_t *p, uint32_t len)
{
	uint64_t n = 0;

	if (p == NULL || len < 8) {
		w->dgram_bad++;
	} else {
		memcpy(&n, p, 8);
		for (uint32_t i = 8; i < len; i++)
			if (p[i] != sst_test_pattern(i + n * 977)) {
				w->dgram_bad++;
				break;
			}
	}
	w->dgrams_rx[side]++;
	w->dgram_bytes_rx[side] += len;
}

/* Datagrams read as substreams (the receiver may: paper 2.2). */
static void
accept_datagrams(struct endpoint *ep, struct sst_stream *s, sst_time_t now)
{
	struct sst_stream *sub;

	while ((sub = sst_stream_accept_substream(s, now)) != NULL) {
		uint8_t *buf = dgram_buf;
		struct sst_stream_data d[32];
		uint32_t len = 0;
		int n;

		while ((n = sst_stream_read(sub, d, 32, now)) > 0)
			for (int i = 0; i < n; i++) {
				uint32_t k = rte_pktmbuf_pkt_len(d[i].m);

				if (len + k <= sizeof(dgram_buf)) {
					const void *p = rte_pktmbuf_read(d[i].m, 0, k, buf + len);

					if (p != buf + len)
						memcpy(buf + len, p, k);
				}
				len += k;
				rte_pktmbuf_free(d[i].m);
			}
		CU_ASSERT_EQUAL(n, -EPIPE);
		check_datagram(ep->w, ep->side, len <= sizeof(dgram_buf) ? buf : NULL, len);
		ep->w->dgrams_as_substreams++;
		sst_stream_close(sub, now);
	}
}

static void
read_datagrams(struct endpoint *ep, struct sst_stream *s, sst_time_t now)
{
	struct world *w = ep->w;
	struct rte_mbuf *m;

	if (w->dgram_via_accept)
		accept_datagrams(ep, s, now);

	while ((m = sst_stream_recv_datagram(s, now)) != NULL) {
		uint32_t len = rte_pktmbuf_pkt_len(m);

		if (sst_stream_apply_priority_message(s, m)) {
			w->priority_requests++;
			rte_pktmbuf_free(m);
			continue;
		}
		const uint8_t *p =
			len <= sizeof(dgram_buf) ? rte_pktmbuf_read(m, 0, len, dgram_buf) : NULL;

		check_datagram(w, ep->side, p, len);
		rte_pktmbuf_free(m);
	}
}

int
world_send_datagram(struct world *w, struct flow *f, int side, uint64_t n, uint32_t len)
{
	struct rte_mbuf *head = NULL;
	uint32_t done = 0;
	int rc;

	while (done < len) {
		uint32_t k = RTE_MIN(len - done, 2000u);
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint8_t *p;

		CU_ASSERT_FATAL(m != NULL);
		p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)k);
		for (uint32_t i = 0; i < k; i++)
			p[i] = done + i < 8 ? (uint8_t)(n >> (8 * (done + i)))
					    : sst_test_pattern(done + i + n * 977);
		if (head == NULL)
			head = m;
		else
			CU_ASSERT_FATAL(rte_pktmbuf_chain(head, m) == 0);
		done += k;
	}
	rc = sst_stream_send_datagram(f->s[side], head, sim_now(w->sim));
	if (rc < 0)
		rte_pktmbuf_free(head);
	return rc;
}

static void
flow_maybe_done(struct world *w, struct flow *f, int side, sst_time_t now)
{
	if (f->s[side] != NULL && f->eof[side] && f->written[side] == f->len[side] &&
		!f->closed[side] && !w->hold_finished) {
		f->closed[side] = true;
		f->done_at[side] = now;
		sst_stream_close(f->s[side], now);
		f->s[side] = NULL;
		if (f->closed[0] && f->closed[1]) {
			w->flows_done++;
			if (w->on_flow_done != NULL)
				w->on_flow_done(w, f);
		}
	}
}

void
world_close_finished(struct world *w)
{
	w->hold_finished = false;
	for (uint64_t i = 0; i < w->nflows; i++)
		for (int side = 0; side < 2; side++)
			flow_maybe_done(w, &w->flows[i], side, sim_now(w->sim));
}

static void
write_more(struct endpoint *ep, struct flow *f, sst_time_t now)
{
	int side = ep->side;
	struct sst_stream *s = f->s[side];

	while (s != NULL && f->written[side] < f->len[side]) {
		uint64_t n = RTE_MIN((uint64_t)ep->w->chunk, f->len[side] - f->written[side]);
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint8_t *p;
		int rc;

		CU_ASSERT_FATAL(m != NULL);
		p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)n);
		for (uint64_t i = 0; i < n && !ep->w->unchecked; i++)
			p[i] = flow_byte(f->id, f->written[side] + i);
		rc = sst_stream_write(s, m, 0, now);
		if (rc < 0) {
			rte_pktmbuf_free(m);
			if (rc != -EAGAIN)
				printf("\nwrite on flow %" PRIu64 " side %d: %d\n", f->id, side,
					rc);
			CU_ASSERT_EQUAL(rc, -EAGAIN);
			return;
		}
		f->written[side] += n;
	}
	if (s != NULL && f->written[side] == f->len[side] && !f->shut[side] &&
		(!ep->w->keep_open || f->end_wanted[side])) {
		f->shut[side] = true;
		CU_ASSERT_EQUAL(sst_stream_shutdown(s, now), 0);
		flow_maybe_done(ep->w, f, side, now);
	}
}

static void
read_some(struct endpoint *ep, struct sst_stream *s, sst_time_t now)
{
	struct world *w = ep->w;
	struct sst_stream_data d[32];
	struct flow *f = flow_of(w, s);
	int side = ep->side, n;

	read_datagrams(ep, s, now);
	if (f == NULL || ep->read_paused || f->paused[side])
		return;
	while ((n = sst_stream_read(s, d, 32, now)) > 0) {
		for (int i = 0; i < n; i++) {
			uint8_t buf[2048];
			uint32_t len = rte_pktmbuf_pkt_len(d[i].m);

			for (uint32_t done = w->unchecked ? len : 0; done < len;) {
				uint32_t k = RTE_MIN(len - done, (uint32_t)sizeof(buf));
				const uint8_t *p = rte_pktmbuf_read(d[i].m, done, k, buf);

				for (uint32_t j = 0; j < k; j++)
					if (p[j] != flow_byte(f->id, f->got[side] + done + j)) {
						if (!f->bad)
							printf("\nflow %" PRIu64
							       " side %d: byte %" PRIu64
							       " differs\n",
								f->id, side,
								f->got[side] + done + j);
						f->bad = true;
						w->mismatches++;
						break;
					}
				done += k;
			}
			if (f->got[side] == 0 && len > 0)
				f->first_byte_at[side] = now;
			f->got[side] += len;
			w->bytes_checked += len;
			rte_pktmbuf_free(d[i].m);
		}
	}
	if (n == -EPIPE) {
		f->eof[side] = true;
		CU_ASSERT_EQUAL(f->got[side], f->len[1 - side]);
		flow_maybe_done(w, f, side, now);
	}
}

static void
op_connected(void *ctx, struct sst_stream *s, int err, sst_time_t now)
{
	struct endpoint *ep = ctx;
	struct flow *f = flow_of(ep->w, s);

	(void)now;
	if (f == NULL)
		return;
	f->connected = err == 0;
	f->connect_err = err;
}

static void
op_accepted(void *ctx, struct sst_stream *parent, struct sst_stream *s, void *svc, sst_time_t now)
{
	struct endpoint *ep = ctx;
	struct flow *f;

	(void)svc;
	if (parent != NULL) {
		/* Substreams of no flow are datagrams: they stay queued until
		 * they are complete and read with sst_stream_recv_datagram(). */
		if (flow_lookup(ep->w, s) == NULL)
			return;
		s = sst_stream_accept_substream(parent, now);
		if (s == NULL)
			return;
	} else {
		ep->w->accepted[ep->side]++;
	}
	f = flow_of(ep->w, s);
	CU_ASSERT_FATAL(f != NULL);
	f->s[ep->side] = s;
	sst_stream_listen_substream(s, true);
	write_more(ep, f, now);
	read_some(ep, s, now);
}

static void
op_readable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct endpoint *ep = ctx;

	read_some(ep, s, now);
}

void
world_flow_more(struct world *w, struct flow *f, int side, uint64_t bytes)
{
	f->len[side] += bytes;
	write_more(&w->ep[side], f, sim_now(w->sim));
}

void
world_flow_end(struct world *w, struct flow *f, int side)
{
	f->end_wanted[side] = true;
	write_more(&w->ep[side], f, sim_now(w->sim));
}

static bool
bytes_short(void *arg)
{
	struct world *w = arg;

	return w->bytes_checked < w->bytes_goal;
}

int
world_run_bytes(struct world *w, uint64_t bytes, sst_time_t deadline)
{
	w->bytes_goal = bytes;
	world_pump(w, sim_now(w->sim));
	return sim_run_while(w->sim, bytes_short, w, deadline);
}

void
world_read_flow(struct world *w, struct flow *f, int side)
{
	if (f->s[side] != NULL)
		read_some(&w->ep[side], f->s[side], sim_now(w->sim));
	world_pump(w, sim_now(w->sim));
}

void
world_read_flow_unflushed(struct world *w, struct flow *f, int side)
{
	if (f->s[side] != NULL)
		read_some(&w->ep[side], f->s[side], sim_now(w->sim));
}

static void
op_writable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct endpoint *ep = ctx;
	struct flow *f = flow_of(ep->w, s);

	if (f != NULL)
		write_more(ep, f, now);
}

static void
op_closed(void *ctx, struct sst_stream *s, enum sst_stream_end why, sst_time_t now)
{
	struct endpoint *ep = ctx;
	struct flow *f = flow_of(ep->w, s);

	(void)now;
	if (f != NULL)
		f->end[ep->side] = (int)why + 1;
}

static void
op_channel_closed(void *ctx, struct sst_stream_chan *c, sst_time_t now)
{
	struct endpoint *ep = ctx;

	(void)now;
	(void)c;
	ep->w->chans_closed[ep->side]++;
}

static const struct sst_stream_ops world_ops = {
	.channel_closed = op_channel_closed,
	.connected = op_connected,
	.accepted = op_accepted,
	.readable = op_readable,
	.writable = op_writable,
	.closed = op_closed,
};

struct late_dup {
	struct endpoint *to;
	uint16_t port;
	struct rte_mbuf *m; /* NULL: the slot is free */
};

enum { LATE_DUPS_MAX = 4096 };
static struct late_dup late_dups[LATE_DUPS_MAX];

static void
late_dup_deliver(void *arg, sst_time_t now)
{
	struct late_dup *d = arg;
	struct world *w = d->to->w;
	struct rte_mbuf *m = d->m;

	d->m = NULL;
	if (d->port < d->to->nchans && d->to->chans[d->port] != NULL)
		sst_channel_receive(sst_stream_chan_channel(d->to->chans[d->port]), &m, 1, now);
	else
		rte_pktmbuf_free(m);
	world_pump(w, now);
}

/* Keep a copy of the packet and hand it to the peer again much later, as
 * a network that stored it would. */
static void
maybe_late_dup(struct endpoint *ep, uint16_t port, struct rte_mbuf *m, sst_time_t now)
{
	struct world *w = ep->w;
	struct late_dup *d = NULL;
	uint64_t r = sst_test_xorshift(&w->rng);

	if (w->late_dup <= 0 || (double)(r % 1000000) >= w->late_dup * 1e6)
		return;
	for (unsigned int i = 0; i < LATE_DUPS_MAX && d == NULL; i++)
		if (late_dups[(r + i) % LATE_DUPS_MAX].m == NULL)
			d = &late_dups[(r + i) % LATE_DUPS_MAX];
	if (d == NULL)
		return;
	d->to = &w->ep[1 - ep->side];
	d->port = port;
	d->m = rte_pktmbuf_copy(m, pool, 0, UINT32_MAX);
	if (d->m == NULL)
		return;
	w->late_dups_sent++;
	sim_schedule(w->sim, now + 1 + sst_test_xorshift(&w->rng) % w->late_dup_max,
		late_dup_deliver, d);
}

static void
low_transmit(void *ctx, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	struct chan_port *cp = ctx;

	for (uint16_t i = 0; i < n; i++) {
		struct world *w = cp->ep->w;

		if (w->tx_filter != NULL && w->tx_filter(w, cp->ep->side, cp->port, pkts[i])) {
			rte_pktmbuf_free(pkts[i]);
			continue;
		}
		maybe_late_dup(cp->ep, cp->port, pkts[i], now);
		sim_host_tx(cp->ep->host, cp->port, pkts[i]);
	}
}

static const struct sst_channel_lower world_lower = {.transmit = low_transmit};

static void
ep_flush(struct endpoint *ep, sst_time_t now)
{
	for (int i = 0; i < ep->nchans; i++)
		if (ep->chans[i] != NULL)
			sst_stream_chan_flush(ep->chans[i], now);
}

static void
host_receive(void *ctx, struct rte_mbuf *m, uint16_t port, sst_time_t now)
{
	struct endpoint *ep = ctx;

	if (port >= ep->nchans || ep->chans[port] == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	sst_channel_receive(sst_stream_chan_channel(ep->chans[port]), &m, 1, now);
	world_pump(ep->w, now);
}

static sst_time_t
host_next_expiry(void *ctx)
{
	struct endpoint *ep = ctx;
	sst_time_t t = SST_TIME_NEVER;

	for (int i = 0; i < ep->nchans; i++)
		if (ep->chans[i] != NULL) {
			t = sst_time_min(
				t, sst_channel_next_expiry(sst_stream_chan_channel(ep->chans[i])));
			t = sst_time_min(t, sst_stream_chan_next_expiry(ep->chans[i]));
		}
	return t;
}

static void
host_handle_expiry(void *ctx, sst_time_t now)
{
	struct endpoint *ep = ctx;

	for (int i = 0; i < ep->nchans; i++)
		if (ep->chans[i] != NULL)
			sst_channel_handle_expiry(sst_stream_chan_channel(ep->chans[i]), now);
	world_pump(ep->w, now);
}

static const struct sim_host_ops world_host_ops = {
	.receive = host_receive,
	.next_expiry = host_next_expiry,
	.handle_expiry = host_handle_expiry,
};

struct sst_stream_chan *
world_make_chan(struct world *w, int side, const struct world_params *wp, int idx)
{
	struct endpoint *ep = &w->ep[side];
	static struct chan_port ports[2][WORLD_MAX_CHANS];
	struct sst_channel_params chp;
	struct sst_stream_chan_params cp;
	/* A slot's next channel has other IDs and keys than its last. */
	uint32_t g = (uint32_t)idx + WORLD_MAX_CHANS * w->chan_gen[idx];
	uint32_t key[2] = {0xa1a2a3a4u + g, 0xb1b2b3b4u + g};
	uint8_t hcid[2][8];

	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 4; k++) {
			hcid[i][k] = (uint8_t)(key[0] >> (24 - 8 * k));
			hcid[i][4 + k] = (uint8_t)(key[1] >> (24 - 8 * k));
		}
	hcid[1][0] ^= 0xff; /* the two directions differ */
	ports[ep->side][idx] = (struct chan_port){.ep = ep, .port = (uint16_t)idx};
	memset(&chp, 0, sizeof(chp));
	chp.size = sizeof(chp);
	chp.local_channel = (uint8_t)(idx + 1);
	chp.peer_channel = (uint8_t)(idx + 1);
	chp.suite = wp->suite != 0 ? wp->suite : SST_CRYPTO_CHK32;
	chp.keys.tx_chk_key = key[ep->side];
	chp.keys.rx_chk_key = key[1 - ep->side];
	memset(chp.keys.tx_key, (int)key[ep->side], sizeof(chp.keys.tx_key));
	memset(chp.keys.rx_key, (int)key[1 - ep->side], sizeof(chp.keys.rx_key));
	memset(chp.keys.tx_iv, (int)(key[ep->side] >> 8), sizeof(chp.keys.tx_iv));
	memset(chp.keys.rx_iv, (int)(key[1 - ep->side] >> 8), sizeof(chp.keys.rx_iv));
	chp.replay_window = wp->channel_defaults ? 0 : wp->replay_window;
	chp.tx_log = wp->channel_defaults ? 0 : wp->tx_log != 0 ? wp->tx_log : 8192;
	chp.packet_limit = wp->packet_limit;
	chp.skip_seed = 0x5eed + (uint64_t)ep->side;
	chp.pool = pool;
	chp.lower = &world_lower;
	chp.lower_ctx = &ports[ep->side][idx];
	memset(&cp, 0, sizeof(cp));
	cp.channel = &chp;
	cp.local_hcid = hcid[ep->side];
	cp.local_hcid_len = 8;
	cp.peer_hcid = hcid[1 - ep->side];
	cp.peer_hcid_len = 8;
	cp.initiator = ep->side == 0;
	return sst_stream_chan_create(ep->peer, &cp, sim_now(w->sim));
}

static void
add_chan(struct world *w, struct endpoint *ep, const struct world_params *wp, int idx)
{
	ep->chans[idx] = world_make_chan(w, ep->side, wp, idx);
	if (ep->chans[idx] == NULL)
		printf("\nchannel in slot %d (generation %" PRIu32 ") on side %d: %s\n", idx,
			w->chan_gen[idx], ep->side, rte_strerror(rte_errno));
	CU_ASSERT_FATAL(ep->chans[idx] != NULL);
	if (idx >= ep->nchans)
		ep->nchans = idx + 1;
}

int
world_add_channel(struct world *w, const struct world_params *wp)
{
	int idx = 0;

	while (idx < w->ep[0].nchans &&
		(w->ep[0].chans[idx] != NULL || w->ep[1].chans[idx] != NULL))
		idx++;
	CU_ASSERT_FATAL(idx < WORLD_MAX_CHANS);
	if (w->links[idx] == NULL) {
		w->links[idx] = sim_connect(w->sim, w->ep[0].host, (uint16_t)idx, w->ep[1].host,
			(uint16_t)idx, &wp->link, NULL);
		CU_ASSERT_FATAL(w->links[idx] != NULL);
	}
	add_chan(w, &w->ep[0], wp, idx);
	add_chan(w, &w->ep[1], wp, idx);
	return idx;
}

struct world *
world_create(const struct world_params *wp)
{
	static int instance;
	struct sim_config cfg = {.seed = wp->seed};
	struct world *w = calloc(1, sizeof(*w));

	CU_ASSERT_FATAL(w != NULL);
	w->sim = sim_create(&cfg);
	CU_ASSERT_FATAL(w->sim != NULL);
	w->chunk = 1800;
	w->rng = wp->seed | 1;
	w->flows_cap = wp->flows_cap != 0 ? wp->flows_cap : 1024;
	w->flows = calloc(w->flows_cap, sizeof(*w->flows));
	by_usid_cap = 4 * w->flows_cap + 1024;
	free(by_usid);
	by_usid = calloc(by_usid_cap, sizeof(*by_usid));
	CU_ASSERT_FATAL(w->flows != NULL && by_usid != NULL);
	instance++;
	for (int side = 0; side < 2; side++) {
		struct endpoint *ep = &w->ep[side];
		struct sst_stream_host_params hp = wp->host;
		char name[32];

		snprintf(name, sizeof(name), "w%d%c", instance, side ? 'b' : 'a');
		ep->w = w;
		ep->side = side;
		hp.size = sizeof(hp);
		hp.name = name;
		hp.pool = pool;
		hp.clone_pool = clone_pool;
		hp.ops = &world_ops;
		hp.ctx = ep;
		/* One peer per side: it gets all of the host unless a scenario
		 * tests the fair shares. */
		if (hp.peer_max_streams == 0)
			hp.peer_max_streams = hp.max_streams;
		if (hp.peer_max_tx_buffers == 0)
			hp.peer_max_tx_buffers = hp.max_tx_buffers;
		if (hp.peer_max_rx_buffers == 0)
			hp.peer_max_rx_buffers = hp.max_rx_buffers;
		ep->sh = sst_stream_host_create(&hp);
		if (ep->sh == NULL)
			printf("\nstream host: %s\n", rte_strerror(rte_errno));
		CU_ASSERT_FATAL(ep->sh != NULL);
		ep->peer = sst_stream_peer_create(ep->sh, wp->caps);
		CU_ASSERT_FATAL(ep->peer != NULL);
		ep->host = sim_host_add(w->sim, side ? "b" : "a", &world_host_ops, ep);
		CU_ASSERT_FATAL(ep->host != NULL);
	}
	CU_ASSERT_FATAL(sst_stream_listen(w->ep[1].sh, "test", "flow", NULL) == 0);
	world_add_channel(w, wp);
	return w;
}

void
world_destroy(struct world *w)
{
	for (int side = 0; side < 2; side++) {
		struct endpoint *ep = &w->ep[side];

		sst_stream_peer_destroy(ep->peer);
		sst_stream_host_destroy(ep->sh);
	}
	sim_destroy(w->sim);
	for (unsigned int i = 0; i < LATE_DUPS_MAX; i++) {
		rte_pktmbuf_free(late_dups[i].m);
		late_dups[i].m = NULL;
	}
	free(w->flows);
	free(w);
}

/* Connect a flow; false when the host has no send buffer for it yet. */
static bool
flow_connect(struct world *w, struct flow *f, sst_time_t now)
{
	struct sst_stream_info info;

	f->s[0] = sst_stream_connect(w->ep[0].peer, "test", "flow", now);
	if (f->s[0] == NULL) {
		if (rte_errno != ENOBUFS)
			printf("\nconnect of flow %" PRIu64 ": %s\n", f->id,
				rte_strerror(rte_errno));
		CU_ASSERT_FATAL(rte_errno == ENOBUFS);
		return false;
	}
	sst_stream_set_user(f->s[0], f);
	sst_stream_set_priority(f->s[0], f->prio);
	sst_stream_info(f->s[0], &info);
	CU_ASSERT_FATAL(info.usid_counter < by_usid_cap);
	by_usid[info.usid_counter] = f->id + 1;
	write_more(&w->ep[0], f, now);
	return true;
}

/* Flows that could not connect yet try again, in order. */
static void
connect_pending(struct world *w, sst_time_t now)
{
	while (w->next_connect < w->nflows) {
		struct flow *f = &w->flows[w->next_connect];

		if (f->s[0] == NULL && !f->closed[0] && f->parent == NULL &&
			!flow_connect(w, f, now))
			return;
		w->next_connect++;
	}
}

struct flow *
world_flow_start(struct world *w, uint64_t a_bytes, uint64_t b_bytes, int32_t prio)
{
	struct flow *f;

	CU_ASSERT_FATAL(w->nflows < w->flows_cap);
	f = &w->flows[w->nflows];
	memset(f, 0, sizeof(*f));
	f->id = w->nflows++;
	f->len[0] = a_bytes + 8;
	f->len[1] = b_bytes + 8;
	f->prio = prio;
	connect_pending(w, sim_now(w->sim));
	return f;
}

void
world_kill_channel(struct world *w, int idx)
{
	for (int side = 0; side < 2; side++) {
		struct endpoint *ep = &w->ep[side];

		sst_stream_chan_destroy(ep->chans[idx], sim_now(w->sim));
		ep->chans[idx] = NULL;
	}
	w->chan_gen[idx]++;
	world_pump(w, sim_now(w->sim));
}

struct flow *
world_substream_start(struct world *w, struct flow *parent, uint64_t a_bytes, uint64_t b_bytes)
{
	struct flow *f;
	struct sst_stream_info info;
	sst_time_t now = sim_now(w->sim);

	CU_ASSERT_FATAL(w->nflows < w->flows_cap && parent->s[0] != NULL);
	f = &w->flows[w->nflows];
	memset(f, 0, sizeof(*f));
	f->id = w->nflows++;
	f->len[0] = a_bytes + 8;
	f->len[1] = b_bytes + 8;
	f->parent = parent;
	f->connected = true; /* substreams have no rendezvous */
	f->s[0] = sst_stream_create_substream(parent->s[0], now);
	CU_ASSERT_FATAL(f->s[0] != NULL);
	sst_stream_set_user(f->s[0], f);
	sst_stream_info(f->s[0], &info);
	CU_ASSERT_FATAL(info.usid_counter < by_usid_cap);
	by_usid[info.usid_counter] = f->id + 1;
	write_more(&w->ep[0], f, now);
	return f;
}

void
world_pump(struct world *w, sst_time_t now)
{
	connect_pending(w, now);
	for (int side = 0; side < 2; side++) {
		ep_flush(&w->ep[side], now);
	}
}

static bool
unfinished(void *arg)
{
	struct world *w = arg;

	/* Done when the application is and every stream is gone too. */
	return w->flows_done < w->nflows || sst_stream_host_stats(w->ep[0].sh)->streams_live != 0 ||
	       sst_stream_host_stats(w->ep[1].sh)->streams_live != 0;
}

int
world_run(struct world *w, sst_time_t deadline)
{
	world_pump(w, sim_now(w->sim));
	return sim_run_while(w->sim, unfinished, w, deadline);
}

void
world_check_done(struct world *w)
{
	CU_ASSERT_EQUAL(w->mismatches, 0);
	CU_ASSERT_EQUAL(w->flows_done, w->nflows);
	for (uint64_t i = 0; i < w->nflows; i++) {
		struct flow *f = &w->flows[i];

		/* A handle closed before the end hears of nothing more. */
		bool ends_ok = (f->end[0] == 0 || f->end[0] == SST_STREAM_FINISHED + 1) &&
			       (f->end[1] == 0 || f->end[1] == SST_STREAM_FINISHED + 1);

		if (f->got[0] != f->len[1] || f->got[1] != f->len[0] || f->bad || !f->connected ||
			!ends_ok) {
			printf("\nflow %" PRIu64 ": a got %" PRIu64 "/%" PRIu64 ", b got %" PRIu64
			       "/%" PRIu64 ", connected %d (%d), end %d/%d\n",
				i, f->got[0], f->len[1], f->got[1], f->len[0], f->connected,
				f->connect_err, f->end[0], f->end[1]);
			CU_FAIL("flow incomplete");
			break;
		}
	}
	/* Every stream finished and was freed with its buffers. */
	for (int side = 0; side < 2; side++) {
		const struct sst_stream_host_stats *st = sst_stream_host_stats(w->ep[side].sh);

		if (st->streams_live != 0 || st->tx_buffers_live != 0 || st->rx_buffers_live != 0)
			printf("\nside %d: %" PRIu64 " streams, %" PRIu64 " tx and %" PRIu64
			       " rx buffers still live\n",
				side, st->streams_live, st->tx_buffers_live, st->rx_buffers_live);
		CU_ASSERT_EQUAL(st->streams_live, 0);
		CU_ASSERT_EQUAL(st->illegal_transitions, 0);
		CU_ASSERT_EQUAL(st->tx_buffers_live, 0);
		CU_ASSERT_EQUAL(st->rx_buffers_live, 0);
	}
}
