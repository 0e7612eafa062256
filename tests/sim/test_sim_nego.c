/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Negotiation in the simulator, checksum and secure mode: host A sets up 50
 * channels to host B over a link that loses 30% of the packets in each
 * direction, then every channel carries one packet each way. In secure mode
 * B is also run under load (every SecI1 is challenged with a cookie first),
 * A confirms a channel (ends its SecI2 repetition) when B's first packet
 * arrives on it, and channels use the negotiated AEAD suite.
 *
 * With early data (secure mode), A sends a packet on every channel from
 * inside established(), before its first SecI2: while the channel is
 * unconfirmed the packet goes through sst_nego_send_early() as a Packet
 * chunk after a SecI2 copy, and B's host hands it to B's channel (without
 * it, the packet would always arrive before B has the channel).
 *
 * Each host demultiplexes as the prototype does (byte 0: 0 is a control
 * message for the negotiation host, anything else the local channel
 * number). A's application connects again when an attempt fails after its
 * 20 s (with 6 ChkI1 per attempt and a 0.49 chance per round trip, about 2%
 * of attempts fail; the prototype's application would retry too). Checked:
 *  - all 50 of A's channels are established, each with a channel at B that
 *    has the mirrored numbers and keys, and B never made two channels for
 *    one attempt (B's channels = A's attempts that reached B);
 *  - the negotiation tables end empty at A and hold only live entries at B;
 *  - a packet goes through every channel in both directions.
 * Seeds are fixed; SST_SIM_SEED=<n> replays another one.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>
#include <sodium.h>

#include "sim.h"
#include "sst_channel.h"
#include "sst_negotiation.h"
#include "sst_test.h"
#include "sst_test_chans.h"
#include "sst_test_rng.h"
#include "sst_test_channel.h"
#include "sst_test_eal.h"

enum { NCHAN = 50 };

static struct rte_mempool *pool;

struct app;

/* One channel of an application, and the upper-layer context for it. */
struct chan {
	struct app *app;
	struct sst_channel *ch;
	struct sst_nego_result r;
	unsigned int got; /* data packets received */
	bool confirmed;	  /* initiator: the responder's first packet arrived */
};

struct app {
	const char *name;
	struct sim_host *host;
	struct sst_nego_host *nego;
	struct sst_nego_addr self, peer;
	struct chan chans[256];		  /* by local channel number */
	struct sst_test_chans numbers;	  /* channel numbers allocated */
	unsigned int established, failed; /* callbacks seen */
	unsigned int channels;		  /* channels created */
	int connects;			  /* attempts started */
	bool retry;			  /* connect again after a failure */
	enum sst_nego_mode mode;
	bool early; /* secure initiator: first data from established(), with SecI2 */
	struct sst_secure_identity id;
	struct sst_secure_host hosts[1];
	struct sst_secure_known_hosts kh;
	struct sst_secure_config cfg;
	uint64_t rng;
};

static enum sst_channel_rx_verdict
up_receive(void *ctx, struct rte_mbuf *m, uint64_t seq, sst_time_t now)
{
	struct chan *c = ctx;
	bool eliciting = !sst_test_is_ack_only(m);

	(void)seq;
	(void)now;
	if (eliciting)
		c->got++;
	/* Secure mode: the responder has our SecI2, stop repeating it. */
	if (c->app->mode == SST_NEGO_MODE_SECURE && c->r.role == SST_NEGO_INITIATOR) {
		sst_nego_confirm(c->app->nego, &c->app->peer, c->r.local_channel);
		c->confirmed = true;
	}
	rte_pktmbuf_free(m);
	return eliciting ? SST_CHANNEL_RX_NEEDS_ACK : SST_CHANNEL_RX_ACCEPT;
}

static void
up_acked(void *ctx, uint64_t seq, uintptr_t cookie, sst_time_t now)
{
	(void)ctx;
	(void)seq;
	(void)cookie;
	(void)now;
}

static void
up_ack_due(void *ctx, sst_time_t now)
{
	struct chan *c = ctx;

	sst_test_send_ack_only(c->ch, pool, now);
}

static void
up_event(void *ctx, enum sst_channel_event ev, sst_time_t now)
{
	(void)ctx;
	(void)ev;
	(void)now;
	CU_FAIL("channel event");
}

/* An unconfirmed initiator channel offers its packets to the negotiation
 * host first (docs/secure-mode.md 3.4); what it does not take goes alone. */
static bool
send_early(struct chan *c, struct rte_mbuf *m, sst_time_t now)
{
	uint8_t buf[2048];
	uint32_t len = rte_pktmbuf_pkt_len(m);
	const void *p;

	if (!c->app->early || c->confirmed || len > sizeof(buf))
		return false;
	p = rte_pktmbuf_read(m, 0, len, buf);
	if (p == NULL || sst_nego_send_early(
				 c->app->nego, &c->app->peer, c->r.local_channel, p, len, now) < 0)
		return false;
	rte_pktmbuf_free(m);
	return true;
}

static void
low_transmit(void *ctx, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	struct chan *c = ctx;

	for (uint16_t i = 0; i < n; i++)
		if (!send_early(c, pkts[i], now))
			sim_host_tx(c->app->host, 0, pkts[i]);
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
nego_transmit(
	void *ctx, const struct sst_nego_addr *to, const void *msg, size_t len, sst_time_t now)
{
	struct app *a = ctx;
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	(void)now;
	CU_ASSERT_TRUE(sst_nego_addr_equal(to, &a->peer));
	CU_ASSERT_FATAL(m != NULL);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), msg, len);
	sim_host_tx(a->host, 0, m);
}

/* The prototype's rule: the lowest free number (one peer here). */
static int
nego_chan_alloc(void *ctx, const struct sst_nego_addr *peer)
{
	struct app *a = ctx;

	(void)peer;
	return sst_test_chan_take(&a->numbers);
}

static void
nego_chan_free(void *ctx, const struct sst_nego_addr *peer, uint8_t chan)
{
	struct app *a = ctx;

	(void)peer;
	CU_ASSERT_TRUE(a->chans[chan].ch == NULL);
	CU_ASSERT_TRUE(sst_test_chan_give(&a->numbers, chan));
}

static void send_one(struct chan *c, sst_time_t now);

static int
nego_established(void *ctx, const struct sst_nego_result *r, sst_time_t now)
{
	struct app *a = ctx;
	struct chan *c = &a->chans[r->local_channel];
	struct sst_channel_params p;

	a->established++;
	CU_ASSERT_TRUE(sst_nego_addr_equal(&r->peer, &a->peer));
	CU_ASSERT_TRUE(a->numbers.used[r->local_channel]);
	CU_ASSERT_PTR_NULL_FATAL(c->ch);
	CU_ASSERT_EQUAL_FATAL(sst_nego_channel_params(r, &p), 0);
	p.pool = pool;
	p.upper = &upper;
	p.upper_ctx = c;
	p.lower = &lower;
	p.lower_ctx = c;
	c->app = a;
	c->r = *r;
	c->ch = sst_channel_create(&p, now);
	if (c->ch == NULL)
		return -ENOMEM;
	a->channels++;
	/* Data at once, before the host sends its first SecI2. */
	if (a->early && r->role == SST_NEGO_INITIATOR)
		send_one(c, now);
	return 0;
}

/* B: a packet from a Packet chunk after A's SecI2 goes to its channel. */
static void
nego_packet(void *ctx, const struct sst_nego_addr *peer, uint8_t chan, const void *pkt, size_t len,
	sst_time_t now)
{
	struct app *a = ctx;
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	(void)peer;
	CU_ASSERT_FATAL(m != NULL && a->chans[chan].ch != NULL);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), pkt, len);
	sst_channel_receive(a->chans[chan].ch, &m, 1, now);
}

static void
nego_failed(void *ctx, const struct sst_nego_addr *peer, uint8_t local_channel, int error,
	sst_time_t now)
{
	struct app *a = ctx;

	(void)local_channel;
	CU_ASSERT_EQUAL(error, -ETIMEDOUT);
	a->failed++;
	if (a->retry) {
		a->connects++;
		CU_ASSERT_TRUE(sst_nego_connect(a->nego, peer, a->mode, now) > 0);
	}
}

static const struct sst_nego_ops nego_ops = {
	.transmit = nego_transmit,
	.chan_alloc = nego_chan_alloc,
	.chan_free = nego_chan_free,
	.established = nego_established,
	.failed = nego_failed,
	.packet = nego_packet,
};

static void
host_receive(void *ctx, struct rte_mbuf *m, uint16_t port, sst_time_t now)
{
	struct app *a = ctx;
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

	(void)port;
	if (rte_pktmbuf_data_len(m) < 1) {
		rte_pktmbuf_free(m);
	} else if (p[0] == 0) {
		sst_nego_receive(a->nego, &a->peer, p, rte_pktmbuf_data_len(m), now);
		rte_pktmbuf_free(m);
	} else if (a->chans[p[0]].ch != NULL) {
		sst_channel_receive(a->chans[p[0]].ch, &m, 1, now);
	} else {
		rte_pktmbuf_free(m); /* no such channel (yet) */
	}
}

static sst_time_t
host_next_expiry(void *ctx)
{
	struct app *a = ctx;
	sst_time_t t = sst_nego_next_expiry(a->nego);

	for (int c = 1; c < 256; c++)
		if (a->chans[c].ch != NULL)
			t = sst_time_min(t, sst_channel_next_expiry(a->chans[c].ch));
	return t;
}

static void
host_handle_expiry(void *ctx, sst_time_t now)
{
	struct app *a = ctx;

	sst_nego_handle_expiry(a->nego, now);
	for (int c = 1; c < 256; c++)
		if (a->chans[c].ch != NULL)
			sst_channel_handle_expiry(a->chans[c].ch, now);
}

static const struct sim_host_ops host_ops = {
	.receive = host_receive,
	.next_expiry = host_next_expiry,
	.handle_expiry = host_handle_expiry,
};

static struct sst_nego_addr
addr_of(uint8_t last)
{
	struct sst_nego_addr a = {.len = 6, .bytes = {10, 0, 0, last, 0x21, 0xd5}};

	return a;
}

/* Deterministic randomness for the handshakes: splitmix64. */
static void
app_random(void *ctx, void *buf, size_t len)
{
	sst_test_splitmix_fill(ctx, buf, len);
}

static void
identity_of(uint8_t host, struct sst_secure_identity *id)
{
	uint8_t seed[32];

	for (int i = 0; i < 32; i++)
		seed[i] = (uint8_t)(host * 17 + i);
	CU_ASSERT_EQUAL(sst_secure_identity_from_seed(id, seed), 0);
}

/* Secure mode: our identity, the peer's key pinned (named "peer"). */
static void
app_secure(struct app *a, uint8_t self, uint8_t peer, uint64_t seed)
{
	struct sst_secure_identity pid;

	identity_of(self, &a->id);
	identity_of(peer, &pid);
	a->kh = (struct sst_secure_known_hosts){a->hosts, 1, 0};
	CU_ASSERT_EQUAL(sst_secure_known_hosts_add(&a->kh, "peer", pid.pk), 0);
	sst_secure_identity_wipe(&pid);
	a->rng = seed * 1000 + self;
	a->cfg.size = sizeof(a->cfg);
	a->cfg.identity = &a->id;
	a->cfg.policy = SST_SECURE_PINNED;
	a->cfg.known_hosts = &a->kh;
	sst_secure_suites_default(&a->cfg, true, false);
	a->cfg.random = app_random;
	a->cfg.random_ctx = &a->rng;
}

static void
app_init(struct app *a, struct sim *sim, const char *name, uint8_t self, uint8_t peer,
	enum sst_nego_mode mode, uint64_t seed)
{
	struct sst_nego_host_params p;

	memset(a, 0, sizeof(*a));
	a->mode = mode;
	if (mode == SST_NEGO_MODE_SECURE)
		app_secure(a, self, peer, seed);
	a->name = name;
	a->self = addr_of(self);
	a->peer = addr_of(peer);
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	for (int i = 0; i < SST_NEGO_SECRET_LEN; i++)
		p.secret[i] = (uint8_t)(self * 31 + i);
	p.ulp_caps = SST_NEGO_CAP_ALL;
	p.ops = &nego_ops;
	p.ctx = a;
	if (mode == SST_NEGO_MODE_SECURE)
		p.secure = &a->cfg;
	a->nego = sst_nego_host_create(&p);
	CU_ASSERT_FATAL(a->nego != NULL);
	a->host = sim_host_add(sim, name, &host_ops, a);
	CU_ASSERT_FATAL(a->host != NULL);
}

static void
app_fini(struct app *a)
{
	for (int c = 1; c < 256; c++)
		sst_channel_destroy(a->chans[c].ch);
	sst_nego_host_destroy(a->nego);
	sst_secure_identity_wipe(&a->id);
}

/* Secure mode: B's channel exists once A's SecI2 has arrived. */
static bool
setup_unfinished(void *arg)
{
	struct app *ab = arg;

	return ab[0].channels < NCHAN ||
	       (ab[0].mode == SST_NEGO_MODE_SECURE && ab[1].channels < NCHAN);
}

/* B's channels whose first packet (A's early one) arrived during setup. */
static unsigned int
early_arrived(const struct app *ab)
{
	unsigned int n = 0;

	for (int c = 1; c < 256; c++)
		n += ab[1].chans[c].ch != NULL && ab[1].chans[c].got > 0;
	return n;
}

static bool
exchange_unfinished(void *arg)
{
	struct app *ab = arg;

	for (int c = 1; c < 256; c++) {
		const struct chan *x = &ab[0].chans[c];

		if (x->ch != NULL && (x->got == 0 || ab[1].chans[x->r.peer_channel].got == 0))
			return true;
	}
	return false;
}

static void
send_one(struct chan *c, sst_time_t now)
{
	static const uint8_t data[8] = {0x00, 0x01, 0x30, 0x10, 'p', 'i', 'n', 'g'};
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	CU_ASSERT_FATAL(m != NULL);
	memcpy(rte_pktmbuf_append(m, sizeof(data)), data, sizeof(data));
	CU_ASSERT_EQUAL(sst_channel_send(c->ch, &m, NULL, 1, true, now, NULL), 1);
}

static void
run_setup(uint64_t seed, double loss, enum sst_nego_mode mode, bool under_load, bool early)
{
	static struct app ab[2];
	struct sim_config cfg = {.seed = seed};
	struct sim *sim = sim_create(&cfg);
	struct sst_simlink_params link;
	struct sim_link *l;
	const struct sst_nego_stats *sa, *sb;
	unsigned int paired = 0;
	int rc;

	CU_ASSERT_FATAL(sim != NULL);
	app_init(&ab[0], sim, "a", 1, 2, mode, seed);
	app_init(&ab[1], sim, "b", 2, 1, mode, seed);
	ab[0].retry = true;
	ab[0].early = early;
	sst_nego_set_under_load(ab[1].nego, under_load);
	sst_simlink_params_default(&link);
	link.rate_bps = 10 * 1000 * 1000;
	link.delay_ns = 20 * SST_NSEC_PER_MSEC;
	link.jitter_ns = 5 * SST_NSEC_PER_MSEC;
	link.capacity = 4096;
	link.loss = loss;
	link.pool = pool;
	l = sim_connect(sim, ab[0].host, 0, ab[1].host, 0, &link, NULL);
	CU_ASSERT_FATAL(l != NULL);
	for (int i = 0; i < NCHAN; i++) {
		ab[0].connects++;
		CU_ASSERT_EQUAL(sst_nego_connect(ab[0].nego, &ab[0].peer, mode, 0), i + 1);
	}
	rc = sim_run_while(sim, setup_unfinished, ab, 600 * SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL(rc, 0);
	sa = sst_nego_stats(ab[0].nego);
	sb = sst_nego_stats(ab[1].nego);
	printf("\n  seed %" PRIu64 ", loss %.0f%%: %u channels in %.1f s, %d attempts (%u failed),"
	       " ChkI1 %" PRIu64 "+%" PRIu64 " retx, ChkR1 %" PRIu64 " (%" PRIu64
	       " for duplicates), B channels %u",
		seed, loss * 100, ab[0].channels, (double)sim_now(sim) / 1e9, ab[0].connects,
		ab[0].failed, sa->tx_i1, sa->tx_i1_retx, sb->tx_r1, sb->rx_i1_duplicate,
		ab[1].channels);
	if (early)
		printf("\n    early data: %" PRIu64 " Packet chunks sent, %" PRIu64
		       " taken by B (%" PRIu64 " dropped), B's channels with the first packet %u",
			sa->tx_packet, sb->rx_packet, sb->rx_packet_dropped, early_arrived(ab));
	if (mode == SST_NEGO_MODE_SECURE)
		printf("\n    secure%s: SecI1 %" PRIu64 ", SecI2 %" PRIu64 ", SecR1 %" PRIu64
		       ", SecCookie %" PRIu64 " (answered %" PRIu64 "), duplicate SecI2 %" PRIu64
		       ", half-open expired %" PRIu64 ", amplification %" PRIu64 "/%" PRIu64
		       " bytes",
			under_load ? " under load" : "", sa->tx_sec_i1, sa->tx_sec_i2,
			sb->tx_sec_r1, sb->tx_sec_cookie, sa->rx_sec_cookie,
			sb->rx_sec_i2_duplicate, sb->half_open_expired, sb->amp_tx_bytes,
			sb->amp_rx_bytes);
	CU_ASSERT_EQUAL(ab[0].channels, NCHAN);
	CU_ASSERT_EQUAL(ab[0].established, NCHAN);
	CU_ASSERT_EQUAL(sst_nego_initiating(ab[0].nego), 0);
	/* B made at most one channel per attempt of A, never a duplicate. */
	CU_ASSERT_TRUE(ab[1].channels >= NCHAN && ab[1].channels <= (unsigned int)ab[0].connects);
	CU_ASSERT_EQUAL(sb->established_responder, ab[1].channels);
	CU_ASSERT_TRUE(
		sst_nego_responding(ab[1].nego) <= ab[1].channels + sst_nego_half_open(ab[1].nego));
	if (mode == SST_NEGO_MODE_SECURE) {
		/* One B channel per A channel, never two; every unproven
		 * address got no more than 3x its bytes. */
		CU_ASSERT_EQUAL(ab[1].channels, NCHAN);
		CU_ASSERT_TRUE(sb->amp_tx_bytes <= 3 * sb->amp_rx_bytes);
		CU_ASSERT_EQUAL(sb->rx_sec_i2_bad, 0);
		if (under_load)
			CU_ASSERT_TRUE(sb->tx_sec_cookie > 0 && sb->rx_sec_i1_cookie_ok >= NCHAN);
		/* Early packets only ride SecI2 copies, each one at most
		 * once per channel here (the channel sends it once). */
		CU_ASSERT_TRUE(sb->rx_packet <= sa->tx_packet);
		CU_ASSERT_EQUAL(sa->tx_packet > 0, early);
		if (early && loss == 0)
			CU_ASSERT_EQUAL(early_arrived(ab), NCHAN);
	}
	/* Every channel of A has its mirror at B. */
	for (int c = 1; c < 256; c++) {
		const struct chan *x = &ab[0].chans[c];
		const struct chan *y;

		if (x->ch == NULL)
			continue;
		y = &ab[1].chans[x->r.peer_channel];
		CU_ASSERT_PTR_NOT_NULL_FATAL(y->ch);
		CU_ASSERT_EQUAL(y->r.peer_channel, c);
		CU_ASSERT_EQUAL(y->r.keys.rx_chk_key, x->r.keys.tx_chk_key);
		CU_ASSERT_EQUAL(y->r.keys.tx_chk_key, x->r.keys.rx_chk_key);
		CU_ASSERT_EQUAL(
			memcmp(y->r.keys.rx_key, x->r.keys.tx_key, sizeof(x->r.keys.tx_key)), 0);
		CU_ASSERT_EQUAL(y->r.suite, x->r.suite);
		CU_ASSERT_EQUAL(x->r.suite,
			mode == SST_NEGO_MODE_SECURE ? SST_CRYPTO_AES128GCM : SST_CRYPTO_CHK32);
		CU_ASSERT_EQUAL(
			memcmp(&y->r.root_usid, &x->r.root_usid, sizeof(x->r.root_usid)), 0);
		CU_ASSERT_TRUE(x->r.peer_ulp.extended && y->r.peer_ulp.extended);
		paired++;
	}
	CU_ASSERT_EQUAL(paired, NCHAN);
	/* One packet each way on every channel (the link now loses nothing,
	 * the channel layer has no data retransmission of its own). */
	link.loss = 0;
	CU_ASSERT_EQUAL(sst_simlink_set_params(sim_link_dir(l, 0), &link), 0);
	CU_ASSERT_EQUAL(sst_simlink_set_params(sim_link_dir(l, 1), &link), 0);
	for (int c = 1; c < 256; c++) {
		struct chan *x = &ab[0].chans[c];
		struct chan *y;

		if (x->ch == NULL)
			continue;
		y = &ab[1].chans[x->r.peer_channel];
		/* With early data: A resends only what did not arrive (the
		 * stream layer's job), through SecI2 while unconfirmed. */
		if (y->got == 0)
			send_one(x, sim_now(sim));
		send_one(y, sim_now(sim));
	}
	sim_host_kick(ab[0].host);
	sim_host_kick(ab[1].host);
	rc = sim_run_while(sim, exchange_unfinished, ab, sim_now(sim) + 60 * SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL(rc, 0);
	for (int c = 1; c < 256; c++) {
		const struct chan *x = &ab[0].chans[c];

		if (x->ch == NULL)
			continue;
		CU_ASSERT_EQUAL(x->got, 1);
		/* An early copy still in flight may arrive after the resend. */
		CU_ASSERT_TRUE(ab[1].chans[x->r.peer_channel].got >= 1 &&
			       ab[1].chans[x->r.peer_channel].got <= 1u + early);
		CU_ASSERT_EQUAL(sst_channel_stats(x->ch)->rx_bad_trailer, 0);
		CU_ASSERT_EQUAL(
			sst_channel_stats(ab[1].chans[x->r.peer_channel].ch)->rx_bad_trailer, 0);
	}
	app_fini(&ab[0]);
	app_fini(&ab[1]);
	sim_destroy(sim);
}

static void
test_50_channels_30pct_loss(void)
{
	uint64_t seed = sim_seed_from_env(0);

	if (seed != 0) {
		run_setup(seed, 0.30, SST_NEGO_MODE_CHECKSUM, false, false);
		return;
	}
	for (uint64_t s = 1; s <= 4; s++)
		run_setup(s, 0.30, SST_NEGO_MODE_CHECKSUM, false, false);
}

static void
test_50_channels_clean(void)
{
	run_setup(sim_seed_from_env(7), 0, SST_NEGO_MODE_CHECKSUM, false, false);
}

static void
test_secure_50_channels_clean(void)
{
	run_setup(sim_seed_from_env(7), 0, SST_NEGO_MODE_SECURE, false, false);
}

static void
test_secure_50_channels_30pct_loss(void)
{
	uint64_t seed = sim_seed_from_env(0);

	if (seed != 0) {
		run_setup(seed, 0.30, SST_NEGO_MODE_SECURE, false, false);
		run_setup(seed, 0.30, SST_NEGO_MODE_SECURE, true, false);
		return;
	}
	for (uint64_t s = 1; s <= 4; s++)
		run_setup(s, 0.30, SST_NEGO_MODE_SECURE, false, false);
	/* Under load: every SecI1 is challenged first. */
	for (uint64_t s = 1; s <= 2; s++)
		run_setup(s, 0.30, SST_NEGO_MODE_SECURE, true, false);
}

/* First data with SecI2: on a clean link every channel's first packet,
 * sent before the first SecI2, arrives through a Packet chunk; with 30%
 * loss the packets that did not arrive are resent and all get through. */
static void
test_secure_early_data(void)
{
	uint64_t seed = sim_seed_from_env(0);

	run_setup(seed != 0 ? seed : 7, 0, SST_NEGO_MODE_SECURE, false, true);
	for (uint64_t s = 1; s <= (seed != 0 ? 0 : 2); s++)
		run_setup(s, 0.30, SST_NEGO_MODE_SECURE, false, true);
	if (seed != 0)
		run_setup(seed, 0.30, SST_NEGO_MODE_SECURE, false, true);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_50_channels_clean),
	SST_TEST(test_50_channels_30pct_loss),
	SST_TEST(test_secure_50_channels_clean),
	SST_TEST(test_secure_50_channels_30pct_loss),
	SST_TEST(test_secure_early_data),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_sim_nego") < 0)
		return 1;
	pool = sst_test_pool("sim_nego", 16384, 2048);
	if (pool == NULL)
		return 1;
	return sst_test_run("sim_nego", cases);
}
