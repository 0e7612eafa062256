/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checksum-mode negotiation (lib/negotiation/nego_checksum.c, nego_host.c):
 * message round trips, the prototype's recorded ChkI1/ChkR1 (chk-01),
 * channels built from the results that open the capture's data packets,
 * the retransmission schedule, duplicates, pings, failure after 20 s,
 * table bounds, malformed input and the index under churn.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "nego_wire.h"
#include "sst_channel.h"
#include "sst_error.h"
#include "sst_negotiation.h"
#include "sst_test.h"
#include "sst_test_eal.h"

enum {
	NTP_OUTBOX = 64,
	NTP_MSG_MAX = 256,
	NTP_PEERS = 64,
	NTP_RESULTS = 64,
};

struct ntp_msg {
	struct sst_nego_addr to;
	uint8_t bytes[NTP_MSG_MAX];
	size_t len;
	sst_time_t time;
};

struct ntp_peer_chans {
	struct sst_nego_addr addr;
	uint8_t used[32]; /* bit n: channel n allocated */
};

struct ntp {
	struct ntp_msg out[NTP_OUTBOX];
	unsigned int nout; /* messages in out[] */
	struct ntp_peer_chans peers[NTP_PEERS];
	unsigned int npeers;
	unsigned int chans_in_use;
	struct sst_nego_result results[NTP_RESULTS];
	unsigned int nresults;
	uint64_t established;
	uint64_t failed;
	int last_error;
	int refuse;	      /* established() returns this when non-zero */
	uint32_t fixed_key;   /* chk_key hook: this key when non-zero */
	bool alloc_exhausted; /* chan_alloc fails */
};

static void
ntp_transmit(void *ctx, const struct sst_nego_addr *to, const void *msg, size_t len, sst_time_t now)
{
	struct ntp *t = ctx;

	if (t->nout < NTP_OUTBOX && len <= NTP_MSG_MAX) {
		t->out[t->nout].to = *to;
		memcpy(t->out[t->nout].bytes, msg, len);
		t->out[t->nout].len = len;
		t->out[t->nout].time = now;
		t->nout++;
	}
}

static struct ntp_peer_chans *
ntp_peer(struct ntp *t, const struct sst_nego_addr *peer)
{
	for (unsigned int i = 0; i < t->npeers; i++)
		if (sst_nego_addr_equal(&t->peers[i].addr, peer))
			return &t->peers[i];
	if (t->npeers == NTP_PEERS)
		return NULL;
	memset(&t->peers[t->npeers], 0, sizeof(t->peers[0]));
	t->peers[t->npeers].addr = *peer;
	return &t->peers[t->npeers++];
}

/* The prototype's rule: the lowest free number in 1..255 per peer. */
static int
ntp_chan_alloc(void *ctx, const struct sst_nego_addr *peer)
{
	struct ntp *t = ctx;
	struct ntp_peer_chans *p = ntp_peer(t, peer);

	if (p == NULL || t->alloc_exhausted)
		return -ENOSPC;
	for (int c = 1; c < 256; c++) {
		if (!(p->used[c / 8] & (1u << (c % 8)))) {
			p->used[c / 8] |= (uint8_t)(1u << (c % 8));
			t->chans_in_use++;
			return c;
		}
	}
	return -ENOSPC;
}

static void
ntp_chan_free(void *ctx, const struct sst_nego_addr *peer, uint8_t chan)
{
	struct ntp *t = ctx;
	struct ntp_peer_chans *p = ntp_peer(t, peer);

	if (p == NULL || !(p->used[chan / 8] & (1u << (chan % 8)))) {
		t->last_error = -EALREADY; /* freeing a number not allocated: a bug */
		return;
	}
	p->used[chan / 8] &= (uint8_t) ~(1u << (chan % 8));
	t->chans_in_use--;
}

static int
ntp_established(void *ctx, const struct sst_nego_result *r, sst_time_t now)
{
	struct ntp *t = ctx;

	(void)now;
	if (t->refuse != 0)
		return t->refuse;
	t->established++;
	if (t->nresults < NTP_RESULTS)
		t->results[t->nresults++] = *r;
	return 0;
}

static void
ntp_failed(void *ctx, const struct sst_nego_addr *peer, uint8_t local_channel, int error,
	sst_time_t now)
{
	struct ntp *t = ctx;

	(void)peer, (void)local_channel, (void)now;
	t->failed++;
	t->last_error = error;
}

static uint32_t
ntp_chk_key(void *ctx, uint8_t local_channel, const struct sst_nego_addr *peer, sst_time_t now)
{
	struct ntp *t = ctx;

	(void)peer;
	return t->fixed_key != 0 ? t->fixed_key
				 : 0x1000u * local_channel + (uint32_t)(now / 4000) + 0x5a5a0000u;
}

/* Without and with the key hook (the default key rule, or fixed_key). */
static const struct sst_nego_ops ntp_ops = {
	ntp_transmit, ntp_chan_alloc, ntp_chan_free, ntp_established, ntp_failed, NULL};
static const struct sst_nego_ops ntp_ops_keyed = {
	ntp_transmit, ntp_chan_alloc, ntp_chan_free, ntp_established, ntp_failed, ntp_chk_key};

/* An IPv4 address and port as 6 bytes. */
static struct sst_nego_addr
ntp_addr(uint32_t ip, uint16_t port)
{
	struct sst_nego_addr a = {.len = 6};

	for (int i = 0; i < 4; i++)
		a.bytes[i] = (uint8_t)(ip >> (24 - 8 * i));
	a.bytes[4] = (uint8_t)(port >> 8);
	a.bytes[5] = (uint8_t)port;
	return a;
}

/* chk-01-handshake-connect-echo.pcap frame 1, C (127.0.0.1:8665) -> S
 * (127.0.0.1:8661), UDP payload: ChkI1 cki c21c5f62, chani 1. */
static const char cap_i1[] = "00535354 00000001 00000018 00000011 c21c5f62 00000001"
			     "00000000 00000000 00000000";
/* Frame 2, S -> C: ChkR1 cki c21c5f62, ckr 35d53d2a, chanr 1. */
static const char cap_r1[] = "00535354 00000001 0000001c 00000012 c21c5f62 35d53d2a"
			     "00000001 00000000 00000000 00000000";
/* Frame 3, C -> S: channel 1, seq 1, Init + ConnectRequest, key cki. */
static const char cap_c2s[] = "010000010000000000011610000000000000010100000007696e7465726f70"
			      "00000000046563686fdebe8592";
/* Frame 5, S -> C: channel 1, seq 1, Reply + ConnectReply, key ckr. */
static const char cap_s2c[] = "010000010100000100012610000100000000020100000000068ce740";

#define CAP_CKI UINT32_C(0xc21c5f62)
#define CAP_CKR UINT32_C(0x35d53d2a)

static struct rte_mempool *pool;
static struct sst_nego_addr addr_c, addr_s; /* C 127.0.0.1:8665, S 127.0.0.1:8661 */

static struct sst_nego_host *
host_new(struct ntp *t, const struct sst_nego_ops *ops, uint32_t max_init, uint32_t max_resp,
	bool legacy)
{
	struct sst_nego_host_params p;
	struct sst_nego_host *h;
	size_t size;

	memset(t, 0, sizeof(*t));
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	for (int i = 0; i < SST_NEGO_SECRET_LEN; i++)
		p.secret[i] = (uint8_t)(i * 7 + 1);
	p.ulp_caps = SST_NEGO_CAP_ALL;
	p.ulp_legacy = legacy;
	p.max_initiating = max_init;
	p.max_responding = max_resp;
	p.rate_per_sec = p.rate_burst = UINT32_MAX; /* faster than any source may send */
	p.ops = ops;
	p.ctx = t;
	size = sst_nego_host_size(&p);
	CU_ASSERT_FATAL(size != 0);
	h = aligned_alloc(64, RTE_ALIGN_CEIL(size, 64));
	CU_ASSERT_FATAL(h != NULL);
	CU_ASSERT_EQUAL_FATAL(sst_nego_host_init(h, &p), 0);
	return h;
}

static void
host_free(struct sst_nego_host *h)
{
	sst_nego_host_fini(h);
	free(h);
}

/* Deliver every message in from's outbox to host h (as coming from addr). */
static void
deliver(struct ntp *from, struct sst_nego_host *h, const struct sst_nego_addr *addr, sst_time_t now)
{
	for (unsigned int i = 0; i < from->nout; i++)
		CU_ASSERT_EQUAL(
			sst_nego_receive(h, addr, from->out[i].bytes, from->out[i].len, now), 0);
	from->nout = 0;
}

/* Parse a message holding one chunk of the given type; return its body. */
static bool
one_chunk(const struct ntp_msg *m, int32_t type, struct sst_bytes *body)
{
	struct sst_nego_msg msg;
	struct sst_nego_iter it;
	struct sst_nego_chunk c;

	if (sst_nego_msg_parse(m->bytes, m->len, &msg) != 0 || msg.nchunks != 1)
		return false;
	sst_nego_iter_init(&it, &msg);
	if (!sst_nego_iter_next(&it, &c) || c.type != type)
		return false;
	*body = c.body;
	return true;
}

/* Two SST-DPDK hosts: ChkI1 and ChkR1 as built, decoded field by field,
 * and mirrored results on both sides. */
static void
test_round_trip(void)
{
	struct ntp tc, ts;
	struct sst_nego_host *hc = host_new(&tc, &ntp_ops, 0, 0, false);
	struct sst_nego_host *hs = host_new(&ts, &ntp_ops, 0, 0, false);
	struct sst_nego_chki1 i1;
	struct sst_nego_chkr1 r1;
	struct sst_nego_ulp u;
	struct sst_bytes body;
	const struct sst_nego_result *ri, *rr;
	int chan;

	chan = sst_nego_connect(hc, &addr_s, SST_NEGO_MODE_CHECKSUM, 1000);
	CU_ASSERT_EQUAL(chan, 1);
	CU_ASSERT_EQUAL_FATAL(tc.nout, 1);
	CU_ASSERT_TRUE(sst_nego_addr_equal(&tc.out[0].to, &addr_s));
	CU_ASSERT_FATAL(one_chunk(&tc.out[0], SST_NEGO_CHKI1, &body));
	CU_ASSERT_EQUAL_FATAL(sst_nego_chki1_decode(&body, &i1), 0);
	CU_ASSERT_TRUE(i1.chani == 1 && i1.cookie.len == 0 && i1.cpkt.len == 0);
	sst_nego_ulp_decode(i1.ulpi.ptr, i1.ulpi.len, &u);
	CU_ASSERT_TRUE(
		u.extended && u.version == SST_NEGO_ULP_VERSION && u.caps == SST_NEGO_CAP_ALL);
	CU_ASSERT_EQUAL(sst_nego_initiating(hc), 1);

	deliver(&tc, hs, &addr_c, 2000);
	CU_ASSERT_TRUE(ts.established == 1 && sst_nego_responding(hs) == 1);
	CU_ASSERT_EQUAL_FATAL(ts.nout, 1);
	CU_ASSERT_TRUE(sst_nego_addr_equal(&ts.out[0].to, &addr_c));
	CU_ASSERT_FATAL(one_chunk(&ts.out[0], SST_NEGO_CHKR1, &body));
	CU_ASSERT_EQUAL_FATAL(sst_nego_chkr1_decode(&body, &r1), 0);
	CU_ASSERT_TRUE(r1.cki == i1.cki && r1.ckr != i1.cki && r1.chanr == 1);
	sst_nego_ulp_decode(r1.ulpr.ptr, r1.ulpr.len, &u);
	CU_ASSERT_TRUE(u.extended);

	deliver(&ts, hc, &addr_s, 3000);
	CU_ASSERT_EQUAL_FATAL(tc.established, 1);
	CU_ASSERT_TRUE(sst_nego_initiating(hc) == 0 && sst_nego_next_expiry(hc) == SST_TIME_NEVER);
	ri = &tc.results[0];
	rr = &ts.results[0];
	CU_ASSERT_TRUE(ri->mode == SST_NEGO_MODE_CHECKSUM && rr->mode == SST_NEGO_MODE_CHECKSUM);
	CU_ASSERT_TRUE(ri->role == SST_NEGO_INITIATOR && rr->role == SST_NEGO_RESPONDER);
	CU_ASSERT_TRUE(ri->suite == SST_CRYPTO_CHK32 && rr->suite == SST_CRYPTO_CHK32);
	CU_ASSERT_TRUE(
		ri->local_channel == rr->peer_channel && ri->peer_channel == rr->local_channel);
	CU_ASSERT_TRUE(ri->keys.tx_chk_key == i1.cki && ri->keys.rx_chk_key == r1.ckr);
	CU_ASSERT_TRUE(rr->keys.tx_chk_key == r1.ckr && rr->keys.rx_chk_key == i1.cki);
	CU_ASSERT_TRUE(ri->hcid_len == 8 && rr->hcid_len == 8);
	CU_ASSERT_TRUE(memcmp(ri->tx_hcid, rr->rx_hcid, 8) == 0 &&
		       memcmp(ri->rx_hcid, rr->tx_hcid, 8) == 0);
	CU_ASSERT_NOT_EQUAL(memcmp(ri->tx_hcid, ri->rx_hcid, 8), 0);
	CU_ASSERT_TRUE(ri->root_usid.counter == 0 && ri->root_usid.hcid_len == 8);
	CU_ASSERT_TRUE(memcmp(ri->root_usid.hcid, ri->tx_hcid, 8) == 0 &&
		       memcmp(&ri->root_usid, &rr->root_usid, sizeof(ri->root_usid)) == 0);
	CU_ASSERT_TRUE(sst_nego_addr_equal(&ri->peer, &addr_s));
	CU_ASSERT_TRUE(sst_nego_addr_equal(&rr->peer, &addr_c));
	CU_ASSERT_TRUE(ri->peer_ulp.extended && rr->peer_ulp.extended);
	CU_ASSERT_TRUE(ri->common_caps == SST_NEGO_CAP_ALL && rr->common_caps == SST_NEGO_CAP_ALL);
	CU_ASSERT_TRUE(sst_nego_stats(hc)->established_initiator == 1 &&
		       sst_nego_stats(hs)->established_responder == 1);
	/* A second connect to the same peer takes the next number and a
	 * different key. */
	CU_ASSERT_EQUAL(sst_nego_connect(hc, &addr_s, SST_NEGO_MODE_CHECKSUM, 5000), 2);
	deliver(&tc, hs, &addr_c, 6000);
	deliver(&ts, hc, &addr_s, 7000);
	CU_ASSERT_EQUAL_FATAL(tc.established, 2);
	CU_ASSERT_TRUE(tc.results[1].local_channel == 2 && tc.results[1].peer_channel == 2);
	CU_ASSERT_NOT_EQUAL(tc.results[1].keys.tx_chk_key, ri->keys.tx_chk_key);
	CU_ASSERT_EQUAL(sst_nego_connect(hc, &addr_s, SST_NEGO_MODE_SECURE, 0), -ENOTSUP);
	CU_ASSERT_TRUE(tc.last_error == 0 && ts.last_error == 0);
	host_free(hc);
	host_free(hs);
}

/* The recorded ChkI1 through an SST-DPDK responder: a well-formed ChkR1
 * for channel 1, and a legacy peer in the result. Posing as the prototype
 * (empty ulpr) with the capture's key, the answer is byte for byte the
 * recorded ChkR1. */
static void
test_prototype_i1(void)
{
	uint8_t i1[64], r1[64];
	size_t ni1 = sst_test_hex(cap_i1, i1, sizeof(i1));
	size_t nr1 = sst_test_hex(cap_r1, r1, sizeof(r1));
	struct ntp ts;
	struct sst_nego_host *hs = host_new(&ts, &ntp_ops, 0, 0, false);
	struct sst_nego_chkr1 dec;
	struct sst_bytes body;

	CU_ASSERT_EQUAL_FATAL(ni1, 36);
	CU_ASSERT_EQUAL_FATAL(nr1, 40);
	CU_ASSERT_EQUAL(sst_nego_receive(hs, &addr_c, i1, ni1, 1000), 0);
	CU_ASSERT_EQUAL_FATAL(ts.nout, 1);
	CU_ASSERT_FATAL(one_chunk(&ts.out[0], SST_NEGO_CHKR1, &body));
	CU_ASSERT_EQUAL_FATAL(sst_nego_chkr1_decode(&body, &dec), 0);
	CU_ASSERT_TRUE(dec.cki == CAP_CKI && dec.ckr != CAP_CKI && dec.chanr == 1);
	CU_ASSERT_TRUE(
		dec.cookie.len == 0 && dec.cpkt.len == 0 && dec.ulpr.len == SST_NEGO_ULP_LEN);
	CU_ASSERT_EQUAL_FATAL(ts.established, 1);
	CU_ASSERT_FALSE(ts.results[0].peer_ulp.extended || ts.results[0].peer_ulp.caps ||
			ts.results[0].common_caps);
	CU_ASSERT_EQUAL(ts.results[0].keys.rx_chk_key, CAP_CKI);
	host_free(hs);

	hs = host_new(&ts, &ntp_ops_keyed, 0, 0, true);
	ts.fixed_key = CAP_CKR;
	CU_ASSERT_EQUAL(sst_nego_receive(hs, &addr_c, i1, ni1, 1000), 0);
	CU_ASSERT_EQUAL_FATAL(ts.nout, 1);
	CU_ASSERT_TRUE(ts.out[0].len == nr1 && memcmp(ts.out[0].bytes, r1, nr1) == 0);
	host_free(hs);
}

/* Channel callbacks for the capture test: count what arrives, keep the
 * last packet sent. */
static unsigned int chan_delivered;
static struct rte_mbuf *last_sent;

static enum sst_channel_rx_verdict
up_receive(void *ctx, struct rte_mbuf *m, uint64_t seq, sst_time_t now)
{
	(void)ctx, (void)seq, (void)now;
	chan_delivered++;
	rte_pktmbuf_free(m);
	return SST_CHANNEL_RX_NEEDS_ACK;
}

static void
up_acked(void *ctx, uint64_t seq, uintptr_t cookie, sst_time_t now)
{
	(void)ctx, (void)seq, (void)cookie, (void)now;
}

static void
up_ack_due(void *ctx, sst_time_t now)
{
	(void)ctx, (void)now;
}

static void
up_event(void *ctx, enum sst_channel_event ev, sst_time_t now)
{
	(void)ctx, (void)ev, (void)now;
}

static void
low_transmit(void *ctx, struct rte_mbuf **pkts, uint16_t n, sst_time_t now)
{
	(void)ctx, (void)now;
	for (uint16_t i = 0; i < n; i++) {
		rte_pktmbuf_free(last_sent);
		last_sent = pkts[i];
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

/* A channel from a result. If send_hex is given, first send that captured
 * packet's stream part and check the channel seals it to the same bytes
 * (its ack must be valid for the packet received next); then feed it the
 * captured packet hex. @return packets delivered. */
static unsigned int
open_with(const struct sst_nego_result *r, const char *send_hex, const char *hex)
{
	struct sst_channel_params p;
	struct sst_channel *ch;
	struct rte_mbuf *m;
	uint8_t buf[128], out[128];
	size_t n;

	CU_ASSERT_EQUAL_FATAL(sst_nego_channel_params(r, &p), 0);
	CU_ASSERT_TRUE(p.suite == SST_CRYPTO_CHK32 && p.size == sizeof(p) && p.pool == NULL);
	p.pool = pool;
	p.upper = &upper;
	p.lower = &lower;
	ch = sst_channel_create(&p, 0);
	CU_ASSERT_FATAL(ch != NULL);
	if (send_hex != NULL) {
		n = sst_test_hex(send_hex, buf, sizeof(buf));
		m = rte_pktmbuf_alloc(pool);
		CU_ASSERT_FATAL(m != NULL);
		memcpy(rte_pktmbuf_append(m, (uint16_t)(n - 12)), buf + 8, n - 12);
		CU_ASSERT_EQUAL(sst_channel_send(ch, &m, NULL, 1, true, 500, NULL), 1);
		CU_ASSERT_FATAL(last_sent != NULL);
		CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(last_sent), n);
		CU_ASSERT_EQUAL(
			memcmp(rte_pktmbuf_read(last_sent, 0, (uint32_t)n, out), buf, n), 0);
		rte_pktmbuf_free(last_sent);
		last_sent = NULL;
	}
	n = sst_test_hex(hex, buf, sizeof(buf));
	m = rte_pktmbuf_alloc(pool);
	CU_ASSERT_FATAL(m != NULL);
	memcpy(rte_pktmbuf_append(m, (uint16_t)n), buf, n);
	chan_delivered = 0;
	sst_channel_receive(ch, &m, 1, 1000);
	sst_channel_destroy(ch);
	return chan_delivered;
}

/* Both sides fed the capture's keys: the initiator's ChkI1 is byte for byte
 * frame 1, the captured ChkR1 establishes it, and channels built from both
 * results open the capture's data packets in their direction. */
static void
test_capture_channels(void)
{
	uint8_t i1[64], r1[64];
	size_t ni1 = sst_test_hex(cap_i1, i1, sizeof(i1));
	size_t nr1 = sst_test_hex(cap_r1, r1, sizeof(r1));
	static const uint8_t id_c[8] = {0xc2, 0x1c, 0x5f, 0x62, 0x35, 0xd5, 0x3d, 0x2a};
	static const uint8_t id_s[8] = {0x35, 0xd5, 0x3d, 0x2a, 0xc2, 0x1c, 0x5f, 0x62};
	struct ntp tc, ts;
	struct sst_nego_host *hc = host_new(&tc, &ntp_ops_keyed, 0, 0, true);
	struct sst_nego_host *hs = host_new(&ts, &ntp_ops_keyed, 0, 0, true);
	struct sst_nego_result rc, rs;
	struct sst_nego_result bad;

	tc.fixed_key = CAP_CKI;
	ts.fixed_key = CAP_CKR;
	CU_ASSERT_EQUAL(sst_nego_connect(hc, &addr_s, SST_NEGO_MODE_CHECKSUM, 0), 1);
	CU_ASSERT_EQUAL_FATAL(tc.nout, 1);
	CU_ASSERT_TRUE(tc.out[0].len == ni1 && memcmp(tc.out[0].bytes, i1, ni1) == 0 &&
		       sst_nego_receive(hc, &addr_s, r1, nr1, 1000) == 0);
	CU_ASSERT_EQUAL(sst_nego_receive(hs, &addr_c, i1, ni1, 1000), 0);
	CU_ASSERT_EQUAL_FATAL(tc.established, 1);
	CU_ASSERT_EQUAL_FATAL(ts.established, 1);
	rc = tc.results[0];
	rs = ts.results[0];
	CU_ASSERT_TRUE(rc.keys.tx_chk_key == CAP_CKI && rc.keys.rx_chk_key == CAP_CKR);
	CU_ASSERT_TRUE(rs.keys.tx_chk_key == CAP_CKR && rs.keys.rx_chk_key == CAP_CKI);
	CU_ASSERT_TRUE(rc.local_channel == 1 && rc.peer_channel == 1);
	CU_ASSERT_TRUE(rs.local_channel == 1 && rs.peer_channel == 1);
	CU_ASSERT_TRUE(memcmp(rc.tx_hcid, id_c, 8) == 0 && memcmp(rc.rx_hcid, id_s, 8) == 0 &&
		       memcmp(rs.tx_hcid, id_s, 8) == 0);
	CU_ASSERT_TRUE(memcmp(rs.rx_hcid, id_c, 8) == 0 && memcmp(rs.root_usid.hcid, id_c, 8) == 0);
	CU_ASSERT_FALSE(rc.peer_ulp.extended || rs.peer_ulp.extended);
	/* C opens S's packet (frame 5), S opens C's (frame 3). */
	CU_ASSERT_TRUE(open_with(&rc, cap_c2s, cap_s2c) == 1 && open_with(&rs, NULL, cap_c2s) == 1);
	/* The wrong direction's key opens nothing. */
	bad = rs;
	bad.keys.rx_chk_key = CAP_CKR;
	CU_ASSERT_EQUAL(open_with(&bad, NULL, cap_c2s), 0);
	host_free(hc);
	host_free(hs);
}

/* 0.5 s, doubling: ChkI1 at 0, 0.5, 1.5, 3.5, 7.5 and 15.5 s, failure at
 * 20 s; every copy identical. */
static void
test_retransmission_schedule(void)
{
	static const double expect[] = {0, 0.5, 1.5, 3.5, 7.5, 15.5};
	const sst_time_t t0 = 3 * SST_NSEC_PER_SEC;
	struct ntp tc;
	struct sst_nego_host *hc = host_new(&tc, &ntp_ops, 0, 0, false);
	sst_time_t t;
	unsigned int i;

	CU_ASSERT_EQUAL(sst_nego_connect(hc, &addr_s, SST_NEGO_MODE_CHECKSUM, t0), 1);
	while ((t = sst_nego_next_expiry(hc)) != SST_TIME_NEVER)
		sst_nego_handle_expiry(hc, t);
	CU_ASSERT_EQUAL_FATAL(tc.nout, RTE_DIM(expect));
	for (i = 0; i < RTE_DIM(expect); i++) {
		CU_ASSERT_EQUAL(tc.out[i].time, t0 + (sst_time_t)(expect[i] * 1e9));
		CU_ASSERT_EQUAL(tc.out[i].len, tc.out[0].len);
		CU_ASSERT_EQUAL(memcmp(tc.out[i].bytes, tc.out[0].bytes, tc.out[0].len), 0);
	}
	CU_ASSERT_TRUE(tc.failed == 1 && tc.last_error == -ETIMEDOUT && tc.chans_in_use == 0);
	CU_ASSERT_EQUAL(sst_nego_initiating(hc), 0);
	CU_ASSERT_TRUE(sst_nego_stats(hc)->tx_i1 == 1 && sst_nego_stats(hc)->tx_i1_retx == 5 &&
		       sst_nego_stats(hc)->failed == 1);
	/* Timers called late: the interval restarts from the late call, and
	 * failure still comes at 20 s. */
	tc.nout = 0;
	CU_ASSERT_EQUAL(sst_nego_connect(hc, &addr_s, SST_NEGO_MODE_CHECKSUM, t0), 1);
	sst_nego_handle_expiry(hc, t0 + 2 * SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL(sst_nego_next_expiry(hc), t0 + 3 * SST_NSEC_PER_SEC);
	sst_nego_handle_expiry(hc, t0 + 25 * SST_NSEC_PER_SEC);
	CU_ASSERT_TRUE(tc.failed == 2 && sst_nego_next_expiry(hc) == SST_TIME_NEVER);
	/* A cancelled attempt sends nothing more and reports nothing. */
	CU_ASSERT_TRUE(sst_nego_connect(hc, &addr_s, SST_NEGO_MODE_CHECKSUM, t0) == 1 &&
		       sst_nego_cancel(hc, &addr_s, 2) == -ENOENT &&
		       sst_nego_cancel(hc, &addr_s, 1) == 0);
	CU_ASSERT_EQUAL(sst_nego_next_expiry(hc), SST_TIME_NEVER);
	CU_ASSERT_TRUE(tc.chans_in_use == 0 && tc.failed == 2);
	host_free(hc);
}

/* Retransmitted ChkI1: the same ChkR1, one channel. Duplicated ChkR1: one
 * established. A ChkR1 that matches no attempt: ignored. */
static void
test_duplicates(void)
{
	struct ntp tc, ts;
	struct sst_nego_host *hc = host_new(&tc, &ntp_ops, 0, 0, false);
	struct sst_nego_host *hs = host_new(&ts, &ntp_ops, 0, 0, false);
	struct ntp_msg i1, r1, r1b;
	struct sst_nego_addr other = ntp_addr(0x0a000001, 8661);

	sst_nego_connect(hc, &addr_s, SST_NEGO_MODE_CHECKSUM, 0);
	i1 = tc.out[0];
	for (int k = 0; k < 3; k++)
		CU_ASSERT_EQUAL(sst_nego_receive(hs, &addr_c, i1.bytes, i1.len, k * 1000), 0);
	CU_ASSERT_TRUE(ts.established == 1 && ts.chans_in_use == 1);
	CU_ASSERT_EQUAL(sst_nego_responding(hs), 1);
	CU_ASSERT_EQUAL_FATAL(ts.nout, 3);
	r1 = ts.out[0];
	for (int k = 1; k < 3; k++) {
		CU_ASSERT_EQUAL(ts.out[k].len, r1.len);
		CU_ASSERT_EQUAL(memcmp(ts.out[k].bytes, r1.bytes, r1.len), 0);
	}
	CU_ASSERT_TRUE(sst_nego_stats(hs)->rx_i1_duplicate == 2 && sst_nego_stats(hs)->tx_r1 == 3);
	/* The same ChkR1 from another address matches nothing. */
	CU_ASSERT_TRUE(
		sst_nego_receive(hc, &other, r1.bytes, r1.len, 500) == 0 && tc.established == 0);
	/* A ChkR1 with another cki matches nothing. */
	r1b = r1;
	r1b.bytes[16] ^= 0x40;
	CU_ASSERT_TRUE(sst_nego_receive(hc, &addr_s, r1b.bytes, r1b.len, 600) == 0 &&
		       tc.established == 0 && sst_nego_stats(hc)->rx_r1_unmatched == 2);
	for (int k = 0; k < 3; k++)
		CU_ASSERT_EQUAL(sst_nego_receive(hc, &addr_s, r1.bytes, r1.len, 1000 + k), 0);
	CU_ASSERT_TRUE(tc.established == 1 && sst_nego_stats(hc)->rx_r1_unmatched == 4 &&
		       sst_nego_initiating(hc) == 0);
	/* A late retransmission of the ChkI1 still gets the same ChkR1. */
	ts.nout = 0;
	sst_nego_receive(hs, &addr_c, i1.bytes, i1.len, 19 * SST_NSEC_PER_SEC);
	CU_ASSERT_EQUAL_FATAL(ts.nout, 1);
	CU_ASSERT_TRUE(memcmp(ts.out[0].bytes, r1.bytes, r1.len) == 0 && ts.established == 1);
	host_free(hc);
	host_free(hs);
}

/* Same (address, chani), another key: refused within 20 s of the entry
 * (a stray or forged ChkI1), a restart after that. Release frees the key. */
static void
test_conflict_and_release(void)
{
	struct ntp tc, ts;
	struct sst_nego_host *hc = host_new(&tc, &ntp_ops, 0, 0, false);
	struct sst_nego_host *hs = host_new(&ts, &ntp_ops, 0, 0, false);
	struct ntp_msg i1;
	uint8_t chan;

	sst_nego_connect(hc, &addr_s, SST_NEGO_MODE_CHECKSUM, 0);
	i1 = tc.out[0];
	sst_nego_receive(hs, &addr_c, i1.bytes, i1.len, 0);
	CU_ASSERT_EQUAL_FATAL(ts.established, 1);
	chan = ts.results[0].local_channel;
	i1.bytes[19] ^= 1; /* another cki */
	sst_nego_receive(hs, &addr_c, i1.bytes, i1.len, 5 * SST_NSEC_PER_SEC);
	CU_ASSERT_TRUE(ts.established == 1 && sst_nego_stats(hs)->rx_i1_conflict == 1);
	sst_nego_receive(hs, &addr_c, i1.bytes, i1.len, 21 * SST_NSEC_PER_SEC);
	CU_ASSERT_TRUE(ts.established == 2 && sst_nego_responding(hs) == 1);
	CU_ASSERT_NOT_EQUAL(ts.results[1].local_channel, chan);
	/* Release: the entry is gone; a wrong number is refused. */
	CU_ASSERT_TRUE(sst_nego_release(hs, &addr_c, chan, 1) == -ENOENT &&
		       sst_nego_release(hs, &addr_c, ts.results[1].local_channel, 1) == 0 &&
		       sst_nego_responding(hs) == 0);
	CU_ASSERT_EQUAL(sst_nego_release(hs, &addr_c, ts.results[1].local_channel, 1), -ENOENT);
	host_free(hc);
	host_free(hs);
}

/* A zero-chunk R0 from the peer makes the initiator resend at once, unless
 * it just sent; from anyone else it does nothing. */
static void
test_ping(void)
{
	struct ntp tc;
	struct sst_nego_host *hc = host_new(&tc, &ntp_ops, 0, 0, false);
	struct sst_nego_addr other = ntp_addr(0x0a000001, 8661);
	static const uint8_t r0[8] = {0x00, 0x53, 0x53, 0x54, 0, 0, 0, 0};
	const sst_time_t ms = SST_NSEC_PER_MSEC;

	sst_nego_connect(hc, &addr_s, SST_NEGO_MODE_CHECKSUM, 0);
	sst_nego_connect(hc, &other, SST_NEGO_MODE_CHECKSUM, 0);
	CU_ASSERT_TRUE(
		tc.nout == 2 && sst_nego_receive(hc, &addr_s, r0, sizeof(r0), 300 * ms) == 0);
	CU_ASSERT_EQUAL_FATAL(tc.nout, 3);
	CU_ASSERT_EQUAL(tc.out[2].time, 300 * ms);
	CU_ASSERT_TRUE(sst_nego_addr_equal(&tc.out[2].to, &addr_s));
	CU_ASSERT_EQUAL(memcmp(tc.out[2].bytes, tc.out[0].bytes, tc.out[0].len), 0);
	sst_nego_receive(hc, &addr_s, r0, sizeof(r0), 350 * ms); /* hold-off */
	CU_ASSERT_EQUAL(tc.nout, 3);
	sst_nego_receive(hc, &addr_c, r0, sizeof(r0), 450 * ms); /* nobody we call */
	CU_ASSERT_TRUE(tc.nout == 3 && sst_nego_stats(hc)->rx_ping == 3 &&
		       sst_nego_stats(hc)->rx_ping_unmatched == 1);
	/* The ping does not move the schedule: the timer still fires at 0.5 s
	 * for both attempts. */
	CU_ASSERT_EQUAL(sst_nego_next_expiry(hc), 500 * ms);
	sst_nego_handle_expiry(hc, 500 * ms);
	CU_ASSERT_EQUAL(tc.nout, 5);
	host_free(hc);
}

/* The table never holds more than its bounds; refused ChkI1 are counted
 * and create nothing; a released entry makes room. */
static void
test_table_bounds(void)
{
	struct ntp tc, ts;
	struct sst_nego_host *hc = host_new(&tc, &ntp_ops, 2, 4, false);
	struct sst_nego_host *hs = host_new(&ts, &ntp_ops, 2, 4, false);
	struct ntp_msg i1;

	CU_ASSERT_TRUE(sst_nego_connect(hc, &addr_s, SST_NEGO_MODE_CHECKSUM, 0) == 1 &&
		       sst_nego_connect(hc, &addr_s, SST_NEGO_MODE_CHECKSUM, 0) == 2 &&
		       sst_nego_connect(hc, &addr_s, SST_NEGO_MODE_CHECKSUM, 0) == -ENOSPC);
	CU_ASSERT_EQUAL(tc.chans_in_use, 2);
	i1 = tc.out[0];
	for (uint32_t k = 0; k < 10; k++) {
		struct sst_nego_addr a = ntp_addr(0x0a000000 + k, 1000);
		uint64_t before = ts.established;

		sst_nego_receive(hs, &a, i1.bytes, i1.len, k);
		CU_ASSERT_TRUE(sst_nego_responding(hs) <= 4);
		/* In use, not half-open: a table of live channels refuses. */
		if (ts.established > before)
			CU_ASSERT_EQUAL(
				sst_nego_confirm(hs, &a, ts.results[ts.nresults - 1].local_channel),
				0);
	}
	CU_ASSERT_FALSE(sst_nego_under_load(hs));
	CU_ASSERT_TRUE(ts.established == 4 && ts.nout == 4 && ts.chans_in_use == 4);
	CU_ASSERT_EQUAL(sst_nego_stats(hs)->rx_i1_refused_full, 6);
	/* Duplicates of held entries are still answered when full. */
	{
		struct sst_nego_addr a0 = ntp_addr(0x0a000000, 1000);

		sst_nego_receive(hs, &a0, i1.bytes, i1.len, 20);
		CU_ASSERT_EQUAL(ts.nout, 5);
		CU_ASSERT_EQUAL(ts.established, 4);
		CU_ASSERT_EQUAL(sst_nego_release(hs, &a0, ts.results[0].local_channel, 1), 0);
	}
	{
		struct sst_nego_addr a9 = ntp_addr(0x0a000009, 1000);

		sst_nego_receive(hs, &a9, i1.bytes, i1.len, 30);
		CU_ASSERT_EQUAL(ts.established, 5);
		CU_ASSERT_EQUAL(sst_nego_responding(hs), 4);
	}
	/* Our own attempts use their own quota, not the responder's. */
	CU_ASSERT_EQUAL(sst_nego_connect(hs, &addr_c, SST_NEGO_MODE_CHECKSUM, 0), 1);
	host_free(hc);
	CU_ASSERT_EQUAL(tc.chans_in_use, 0); /* fini gave the numbers back */
	host_free(hs);
}

/* Malformed, truncated and altered messages: dropped, counted, no state. */
static void
test_malformed(void)
{
	uint8_t i1[64], r1[64], buf[64];
	size_t ni1 = sst_test_hex(cap_i1, i1, sizeof(i1));
	size_t nr1 = sst_test_hex(cap_r1, r1, sizeof(r1));
	struct ntp ts, tc;
	struct sst_nego_host *hs = host_new(&ts, &ntp_ops, 0, 0, false);
	struct sst_nego_host *hc = host_new(&tc, &ntp_ops_keyed, 0, 0, false);
	const struct sst_nego_stats *st = sst_nego_stats(hs);
	struct sst_nego_addr bad_addr = {.len = 0};
	struct sst_nego_chki1 c = {.cki = 7, .chani = 9};
	struct sst_nego_builder b;
	uint64_t unknown, unsupported;

	/* Every truncation. */
	for (size_t n = 0; n < ni1; n++)
		CU_ASSERT_TRUE(sst_nego_receive(hs, &addr_c, i1, n, 0) < 0);
	CU_ASSERT_EQUAL(st->rx_malformed, ni1);
	/* Every byte altered, except the key (16-19) and chani's low byte
	 * (23), which checksum mode cannot tell from a genuine value: the
	 * message is refused. */
	for (size_t k = 0; k < ni1; k++) {
		if ((k >= 16 && k <= 19) || k == 23)
			continue;
		for (int v = 1; v < 256; v <<= 1) {
			memcpy(buf, i1, ni1);
			buf[k] ^= (uint8_t)v;
			sst_nego_receive(hs, &addr_c, buf, ni1, 0);
		}
	}
	/* Trailing bytes; an empty address. */
	memcpy(buf, i1, ni1);
	memset(buf + ni1, 0, 4);
	CU_ASSERT_TRUE(sst_nego_receive(hs, &addr_c, buf, ni1 + 4, 0) == -SST_ETRAILING &&
		       sst_nego_receive(hs, &bad_addr, i1, ni1, 0) == -EINVAL);
	CU_ASSERT_TRUE(ts.established == 0 && ts.nout == 0 && ts.chans_in_use == 0);
	CU_ASSERT_EQUAL(sst_nego_responding(hs), 0);
	CU_ASSERT_TRUE(st->rx_bad_chunk > 0);
	/* A ChkR1 with chanr 0 or ckr == cki asks for a cookie: no channel. */
	tc.fixed_key = CAP_CKI;
	sst_nego_connect(hc, &addr_s, SST_NEGO_MODE_CHECKSUM, 0);
	memcpy(buf, r1, nr1);
	buf[27] = 0; /* chanr 0 */
	sst_nego_receive(hc, &addr_s, buf, nr1, 10);
	memcpy(buf, r1, nr1);
	memcpy(buf + 20, buf + 16, 4); /* ckr = cki */
	sst_nego_receive(hc, &addr_s, buf, nr1, 10);
	/* Neither carries a cookie to answer with. */
	CU_ASSERT_TRUE(sst_nego_stats(hc)->rx_r1_cookie_bad == 2 &&
		       sst_nego_stats(hc)->rx_r1_cookie == 0 && tc.nout == 1);
	/* chanr above 255 does not decode. */
	memcpy(buf, r1, nr1);
	buf[26] = 1;
	sst_nego_receive(hc, &addr_s, buf, nr1, 10);
	CU_ASSERT_TRUE(sst_nego_stats(hc)->rx_bad_chunk == 1 && tc.established == 0 &&
		       sst_nego_initiating(hc) == 1);
	/* Unknown and DH chunks are skipped; a ChkI1 after them still counts. */
	unknown = st->rx_unknown_chunk;
	unsupported = st->rx_unsupported;
	sst_nego_build_begin(&b, buf, sizeof(buf));
	sst_nego_build_raw(&b, 0x77, "abcd", 4);
	sst_nego_build_raw(&b, SST_NEGO_DHR2, "", 0);
	sst_nego_build_chki1(&b, &c);
	CU_ASSERT_EQUAL(sst_nego_receive(hs, &addr_c, buf, sst_nego_build_end(&b), 0), 0);
	CU_ASSERT_TRUE(
		st->rx_unknown_chunk == unknown + 1 && st->rx_unsupported == unsupported + 1);
	CU_ASSERT_EQUAL(ts.established, 1);
	host_free(hs);
	host_free(hc);
}

/* established() refusing: nothing is sent, the number goes back. Running
 * out of channel numbers: counted, nothing sent. */
static void
test_refusal(void)
{
	struct ntp tc, ts;
	struct sst_nego_host *hc = host_new(&tc, &ntp_ops, 0, 0, false);
	struct sst_nego_host *hs = host_new(&ts, &ntp_ops, 0, 0, false);
	struct ntp_msg i1;

	sst_nego_connect(hc, &addr_s, SST_NEGO_MODE_CHECKSUM, 0);
	i1 = tc.out[0];
	ts.refuse = -ENOMEM;
	sst_nego_receive(hs, &addr_c, i1.bytes, i1.len, 0);
	CU_ASSERT_TRUE(ts.nout == 0 && ts.chans_in_use == 0 && sst_nego_responding(hs) == 0);
	CU_ASSERT_EQUAL(sst_nego_stats(hs)->rx_i1_refused, 1);
	ts.refuse = 0;
	ts.alloc_exhausted = true;
	sst_nego_receive(hs, &addr_c, i1.bytes, i1.len, 0);
	CU_ASSERT_TRUE(ts.nout == 0 && sst_nego_stats(hs)->rx_i1_no_channel == 1);
	ts.alloc_exhausted = false;
	sst_nego_receive(hs, &addr_c, i1.bytes, i1.len, 0);
	CU_ASSERT_EQUAL_FATAL(ts.nout, 1);
	tc.refuse = -ENOMEM;
	deliver(&ts, hc, &addr_s, 0);
	CU_ASSERT_TRUE(tc.chans_in_use == 0 && sst_nego_initiating(hc) == 0);
	CU_ASSERT_EQUAL(sst_nego_stats(hc)->rx_r1_refused, 1);
	tc.alloc_exhausted = true;
	CU_ASSERT_EQUAL(sst_nego_connect(hc, &addr_s, SST_NEGO_MODE_CHECKSUM, 0), -ENOSPC);
	host_free(hc);
	host_free(hs);
}

/* The index under churn against a model: random ChkI1 from 40 addresses x
 * 8 channel numbers and random releases, with a bound of 64 entries. */
static void
test_index_churn(void)
{
	static uint8_t model[40][8]; /* local channel + 1, or 0 */
	static bool unheard[40][8];  /* half-open: not confirmed */
	struct ntp ts;
	struct sst_nego_host *hs = host_new(&ts, &ntp_ops_keyed, 1, 64, true);
	uint64_t x = 0x9e3779b97f4a7c15;
	unsigned int held = 0, estab = 0, nunheard = 0;

	memset(model, 0, sizeof(model));
	memset(unheard, 0, sizeof(unheard));
	for (int step = 0; step < 20000; step++) {
		unsigned int a, c;
		struct sst_nego_addr addr;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		a = (unsigned int)(x % 40);
		c = (unsigned int)((x >> 8) % 8);
		addr = ntp_addr(0xc0a80000 + a, 4000);
		if ((x >> 20) % 3 != 0) {
			struct sst_nego_builder b;
			struct sst_nego_chki1 i1 = {.cki = 0x1000 + a * 8 + c, .chani = c + 1};
			uint8_t buf[64];
			size_t n;

			sst_nego_build_begin(&b, buf, sizeof(buf));
			sst_nego_build_chki1(&b, &i1);
			n = sst_nego_build_end(&b);
			ts.nout = 0;
			sst_nego_receive(hs, &addr, buf, n, (sst_time_t)step);
			if (model[a][c] != 0) {
				CU_ASSERT_EQUAL(ts.nout, 1); /* duplicate answered */
			} else if (held < 64) {
				CU_ASSERT_EQUAL_FATAL(ts.established, estab + 1);
				estab++;
				model[a][c] = (uint8_t)(ts.results[(estab - 1) % NTP_RESULTS]
								.local_channel +
							1);
				held++;
				/* Some stay half-open (a second index key), never
				 * 16 (the load threshold of 64 entries). */
				unheard[a][c] = nunheard < 8 && (x >> 33) % 2 == 0;
				nunheard += unheard[a][c];
				if (!unheard[a][c])
					CU_ASSERT_EQUAL(
						sst_nego_confirm(hs, &addr, model[a][c] - 1), 0);
			} else {
				CU_ASSERT_EQUAL(ts.nout, 0);
			}
		} else if (model[a][c] != 0 && unheard[a][c] && (x >> 34) % 2 == 0) {
			/* The first packet comes late. */
			CU_ASSERT_EQUAL(sst_nego_confirm(hs, &addr, model[a][c] - 1), 0);
			unheard[a][c] = false;
			nunheard--;
		} else if (model[a][c] != 0) {
			nunheard -= unheard[a][c];
			unheard[a][c] = false;
			CU_ASSERT_EQUAL(sst_nego_release(hs, &addr, model[a][c] - 1, c + 1), 0);
			ntp_chan_free(&ts, &addr, model[a][c] - 1);
			model[a][c] = 0;
			held--;
		} else {
			CU_ASSERT_EQUAL(sst_nego_release(hs, &addr, 1, c + 1), -ENOENT);
		}
		CU_ASSERT_EQUAL(sst_nego_responding(hs), held);
		CU_ASSERT_EQUAL(sst_nego_half_open(hs), nunheard);
		if (ts.nresults == NTP_RESULTS)
			ts.nresults = 0;
	}
	CU_ASSERT_TRUE(ts.established == estab && ts.last_error == 0);
	host_free(hs);
}

static void
test_params_and_lifecycle(void)
{
	struct sst_nego_host_params p;
	struct sst_channel_params cp;
	struct sst_nego_result r;
	struct sst_nego_host *h;
	struct ntp t;
	static const struct sst_nego_ops no_tx = {
		.chan_alloc = ntp_chan_alloc,
		.chan_free = ntp_chan_free,
		.established = ntp_established,
	};

	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.ops = &ntp_ops;
	p.ctx = &t;
	CU_ASSERT_NOT_EQUAL(sst_nego_host_size(&p), 0);
	p.size = 0;
	CU_ASSERT_EQUAL(sst_nego_host_size(&p), 0);
	p.size = sizeof(p) + 1;
	CU_ASSERT_EQUAL(sst_nego_host_size(&p), 0);
	p.size = sizeof(p);
	p.ops = &no_tx;
	CU_ASSERT_EQUAL(sst_nego_host_size(&p), 0);
	CU_ASSERT_PTR_NULL(sst_nego_host_create(&p));
	p.ops = &ntp_ops;
	p.max_responding = SST_NEGO_MAX_ENTRIES;
	CU_ASSERT_EQUAL(sst_nego_host_size(&p), 0);
	p.max_responding = 0;
	memset(&t, 0, sizeof(t));
	h = sst_nego_host_create(&p);
	CU_ASSERT_FATAL(h != NULL);
	CU_ASSERT_EQUAL(sst_nego_next_expiry(h), SST_TIME_NEVER);
	CU_ASSERT_EQUAL(
		sst_nego_connect(h, &(struct sst_nego_addr){.len = 0}, SST_NEGO_MODE_CHECKSUM, 0),
		-EINVAL);
	CU_ASSERT_EQUAL(sst_nego_connect(h, &addr_s, SST_NEGO_MODE_CHECKSUM, 0), 1);
	sst_nego_host_destroy(h);
	CU_ASSERT_EQUAL(t.chans_in_use, 0);
	sst_nego_host_destroy(NULL);
	memset(&r, 0, sizeof(r)); /* no suite, no channel numbers */
	CU_ASSERT_EQUAL(sst_nego_channel_params(&r, &cp), -EINVAL);
}

/* The default key rule: deterministic in (secret, channel, peer, time),
 * different per channel, and moving with the clock (microseconds/4). */
static void
test_default_keys(void)
{
	struct ntp t1, t2;
	struct sst_nego_host *h1 = host_new(&t1, &ntp_ops, 0, 0, false);
	struct sst_nego_host *h2 = host_new(&t2, &ntp_ops, 0, 0, false);
	struct sst_nego_chki1 k[3];
	struct sst_bytes body;

	sst_nego_connect(h1, &addr_s, SST_NEGO_MODE_CHECKSUM, 4000);
	sst_nego_connect(h2, &addr_s, SST_NEGO_MODE_CHECKSUM, 4000);
	sst_nego_connect(h2, &addr_s, SST_NEGO_MODE_CHECKSUM, 4000);
	sst_nego_connect(h1, &addr_s, SST_NEGO_MODE_CHECKSUM, 4000 + 8000);
	CU_ASSERT_EQUAL(memcmp(t1.out[0].bytes, t2.out[0].bytes, t1.out[0].len), 0);
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_FATAL(one_chunk(i < 2 ? &t2.out[i] : &t1.out[1], SST_NEGO_CHKI1, &body));
		CU_ASSERT_EQUAL(sst_nego_chki1_decode(&body, &k[i]), 0);
	}
	CU_ASSERT_NOT_EQUAL(k[0].cki, k[1].cki);
	CU_ASSERT_EQUAL(k[2].cki, k[1].cki + 2); /* channel 2, 2 us later */
	host_free(h1);
	host_free(h2);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_round_trip),
	SST_TEST(test_prototype_i1),
	SST_TEST(test_capture_channels),
	SST_TEST(test_retransmission_schedule),
	SST_TEST(test_duplicates),
	SST_TEST(test_conflict_and_release),
	SST_TEST(test_ping),
	SST_TEST(test_table_bounds),
	SST_TEST(test_malformed),
	SST_TEST(test_refusal),
	SST_TEST(test_index_churn),
	SST_TEST(test_params_and_lifecycle),
	SST_TEST(test_default_keys),
	SST_TEST_END,
};

int
main(void)
{
	addr_c = ntp_addr(0x7f000001, 8665);
	addr_s = ntp_addr(0x7f000001, 8661);
	if (sst_test_eal_init("test_nego_checksum") < 0)
		return 1;
	pool = sst_test_pool("test_nego_checksum", 256, 2048);
	if (pool == NULL)
		return 1;
	return sst_test_run("nego_checksum", cases);
}
