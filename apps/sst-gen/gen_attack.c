/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen client attacks on its own channels. --attack optimistic-ack:
 * every checksum-mode channel packet the client sends acknowledges the
 * target's highest number it saw plus --ack-jump, with the widest count
 * the header takes (AckCt 15: 16 numbers), whether those packets arrived
 * or not; where that would leave numbers since the previous word
 * unclaimed (more than 16 came at once), the word claims the next 16 of
 * them instead, so that every number is claimed in turn. An honest
 * receiver never acknowledges a number it did not get; a sender that
 * skips unpredictable numbers (docs/channel.md "The optimistic-ack
 * defence") catches such a peer at its first skip and fails the channel;
 * one that does not is made to believe every packet arrived. A jump past what the target sent acknowledges the future: the
 * target drops those packets.
 *
 * In checksum mode this is done by a link driver ("gen_attack") wrapped
 * around each channel's socket, like an on-path rewriter: it reads the
 * negotiation going by (our ChkI1's key and channel number, the ChkR1's
 * channel number), rewrites the ack word of what we send and seals the
 * Chk32 trailer again under our key. A secure channel encrypts its ack
 * word and authenticates it under a session no rewriter holds: there the
 * client's own channels forge their words before sealing them, through
 * the channel layer's test and attack hook
 * (sst_channel_params.ack_forge_for_testing, gen_attack_ack_forge()); the
 * wrapper then only counts what the target sends.
 *
 * --attack stream-slots (below) needs no rewriting: it opens streams and
 * never uses them.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "channel_wire.h"
#include "gen_client.h"
#include "nego_secure.h"
#include "nego_wire.h"
#include "sst_chk32.h"

/* What the rewriter knows of one channel, by the number we send it under
 * (the target's, byte 0 of our packets) or receive it under (ours). */
struct atk_out {
	bool known;
	uint32_t key;	     /**< our checksum key (our ChkI1's) */
	uint8_t ours;	     /**< our channel number: the target's packets carry it */
	uint64_t tx_highest; /**< our highest number, to rebuild the next */
	uint64_t claimed;    /**< the number our previous word acknowledged */
};

enum { REPLAY_SOURCES = 4, REPLAY_MSG_MAX = 2048 };

/* --attack cookie-replay: the first SecI2 (or ChkI1 with a cookie) we
 * sent, and the sockets it was sent again from. */
struct atk_replay {
	uint8_t msg[REPLAY_MSG_MAX];
	uint16_t len;
	struct sst_net_endpoint to;
	uint64_t taken_tsc;    /**< 0: nothing taken yet */
	uint64_t replayed_tsc; /**< cookie-expiry: when it went again (0: not yet) */
	bool done;
	int fd[REPLAY_SOURCES];
};

struct atk_link {
	struct sst_link *inner;
	struct sst_link_stats *stats;
	struct gen_attack_stats *as;
	enum gen_attack kind;
	uint32_t jump;
	struct atk_replay rp;
	uint32_t pending_key[SST_CHAN_MAX + 1]; /**< ChkI1 sent, by our number */
	uint64_t rx_highest[SST_CHAN_MAX + 1];	/**< the target's, by our number */
	bool rx_seen[SST_CHAN_MAX + 1];
	struct atk_out out[SST_CHAN_MAX + 1]; /**< by the target's number */
};

struct atk_conf {
	void **self; /**< where the link's state goes (gen_chan.atk) */
	struct sst_link *inner;
	struct gen_attack_stats *as;
	enum gen_attack kind;
	uint32_t jump;
};

static uint32_t
be24(const uint8_t *b)
{
	return (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2];
}

/* Negotiation going by: learn keys and channel numbers. */
static void
learn(struct atk_link *a, bool tx, const uint8_t *b, uint32_t len)
{
	struct sst_nego_msg msg;
	struct sst_nego_iter it;
	struct sst_nego_chunk ch;
	struct sst_nego_chki1 i1 = {0};
	struct sst_nego_chkr1 r1;
	struct sst_secure_i1_info sec_i1;

	if (sst_nego_msg_parse(b, len, &msg) < 0)
		return;
	sst_nego_iter_init(&it, &msg);
	while (sst_nego_iter_next(&it, &ch) == 1) {
		if (!tx && a->rp.replayed_tsc != 0) {
			/* After our replay: what the target made of it. */
			if (ch.type == SST_NEGO_SECR1)
				a->as->replay_accepted++;
			else if (ch.type == SST_NEGO_SECCOOKIE)
				a->as->replay_challenged++;
		}
		if (tx && ch.type == SST_NEGO_CHKI1 && sst_nego_chki1_decode(&ch.body, &i1) == 0)
			a->pending_key[i1.chani] = i1.cki;
		/* cookie-expiry: a SecI1 with the cookie the target asked for. */
		if (tx && a->kind == GEN_ATTACK_COOKIE_EXPIRY && a->rp.taken_tsc == 0 &&
			len <= REPLAY_MSG_MAX && ch.type == SST_NEGO_SECI1 &&
			sst_secure_i1_info(&ch.body, &sec_i1) == 0 && sec_i1.cookie_len > 0) {
			memcpy(a->rp.msg, b, len);
			a->rp.len = (uint16_t)len;
			a->rp.taken_tsc = rte_rdtsc();
			a->as->replay_taken++;
		}
		/* What proves the initiator's address to the responder: a
		 * SecI2, or a ChkI1 answering a cookie request. */
		if (tx && a->kind == GEN_ATTACK_COOKIE_REPLAY && a->rp.taken_tsc == 0 &&
			len <= REPLAY_MSG_MAX &&
			(ch.type == SST_NEGO_SECI2 ||
				(ch.type == SST_NEGO_CHKI1 && i1.cookie.len > 0))) {
			memcpy(a->rp.msg, b, len);
			a->rp.len = (uint16_t)len;
			a->rp.taken_tsc = rte_rdtsc();
			a->as->replay_taken++;
		}
		if (tx || ch.type != SST_NEGO_CHKR1 || sst_nego_chkr1_decode(&ch.body, &r1) < 0 ||
			sst_nego_chkr1_wants_cookie(&r1) || r1.chanr > SST_CHAN_MAX)
			continue;
		for (uint32_t n = 1; n <= SST_CHAN_MAX; n++)
			if (a->pending_key[n] == r1.cki && r1.cki != 0) {
				struct atk_out *o = &a->out[r1.chanr];

				/* A new channel under that number starts afresh. */
				*o = (struct atk_out){
					.known = true, .key = r1.cki, .ours = (uint8_t)n};
				a->rx_seen[n] = false;
				a->rx_highest[n] = 0;
				a->pending_key[n] = 0;
				break;
			}
	}
}

/* The number a forged word acknowledges: @p target (the highest seen +
 * jump) unless that leaves numbers after the @p last claim uncovered (a
 * skipped one may be among them, and an honest receiver's words would
 * cover the rest); then the 16 after it. */
static uint64_t
claim_next(uint64_t target, uint64_t last)
{
	if (last != 0 && target > last + SST_CHAN_ACKCT_MAX + 1)
		return last + SST_CHAN_ACKCT_MAX + 1;
	return target;
}

/* Acknowledge what we never checked: the target's highest + jump, 16 numbers. */
static void
forge(struct atk_link *a, struct atk_out *o, struct rte_mbuf *m)
{
	uint8_t *b = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = rte_pktmbuf_pkt_len(m);
	struct rte_mbuf *last = rte_pktmbuf_lastseg(m);
	uint64_t seq, ack;
	uint8_t *t;
	uint32_t chk;

	if (rte_pktmbuf_data_len(m) < SST_CHAN_HDR_LEN || rte_pktmbuf_data_len(last) < 4 ||
		len < SST_CHAN_HDR_LEN + SST_CHK32_TRAILER_LEN || !a->rx_seen[o->ours] ||
		sst_chan_seq_expand(o->tx_highest, be24(b + 1), &seq) < 0)
		return;
	o->tx_highest = RTE_MAX(o->tx_highest, seq);
	ack = claim_next(a->rx_highest[o->ours] + a->jump, o->claimed);
	o->claimed = ack;
	b[4] = SST_CHAN_ACKCT_MAX;
	b[5] = (uint8_t)(ack >> 16);
	b[6] = (uint8_t)(ack >> 8);
	b[7] = (uint8_t)ack;
	chk = sst_chk32_mbuf(seq, m, len - SST_CHK32_TRAILER_LEN) + o->key;
	t = rte_pktmbuf_mtod_offset(last, uint8_t *, rte_pktmbuf_data_len(last) - 4);
	t[0] = (uint8_t)(chk >> 24);
	t[1] = (uint8_t)(chk >> 16);
	t[2] = (uint8_t)(chk >> 8);
	t[3] = (uint8_t)chk;
	if (a->as->forged == 0)
		a->as->first_forged_tsc = rte_rdtsc();
	a->as->forged++;
}

static void
seen_rx(struct atk_link *a, struct rte_mbuf *m)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);
	uint64_t seq;

	if (len == 0)
		return;
	if (b[0] == 0) {
		learn(a, false, b, len);
		return;
	}
	if (len < SST_CHAN_HDR_LEN ||
		sst_chan_seq_expand(a->rx_highest[b[0]], be24(b + 1), &seq) < 0)
		return;
	/* The highest number that came, authentic or not: an attacker on
	 * the path reads the numbers and does not check the trailers. */
	a->rx_highest[b[0]] = a->rx_seen[b[0]] ? RTE_MAX(a->rx_highest[b[0]], seq) : seq;
	a->rx_seen[b[0]] = true;
	if (a->as->forged != 0) {
		a->as->rx_after++;
		a->as->last_rx_tsc = rte_rdtsc();
	}
}

/* --port: the channel packets the port's workers received so far. */
static uint64_t
port_rx_channel(const struct gen_client *g)
{
	uint64_t rx = 0;

	for (uint16_t i = 0; i < g->nw; i++)
		rx += sst_worker_stats(sst_engine_worker(g->e, i))->rx_channel;
	return rx;
}

/* --port: what the target sent after the first forged word, from the
 * workers' counters (no link of ours sees the packets there), and when it
 * last sent: checked at each forged word, which our acks of its packets
 * bring. */
static void
port_rx_seen(struct gen_client *g)
{
	struct gen_attack_stats *as = &g->attack;
	uint64_t rx = port_rx_channel(g);

	if (as->forged == 0)
		as->port_rx_base = as->port_rx_last = rx;
	else if (rx != as->port_rx_last) {
		as->port_rx_last = rx;
		as->last_rx_tsc = rte_rdtsc();
	}
	as->rx_after = rx - as->port_rx_base;
}

/* The word our own channel made, replaced before it is sealed by the same
 * lie forge() tells in checksum mode over kernel UDP: in secure mode, and
 * over a port in both. A channel that has received nothing yet has
 * nothing to lie about. Counted per word (a send burst shares one), where
 * forge() counts packets. */
static void
forge_sealed(
	void *ctx, uint64_t rx_highest, uint64_t last_sent, uint64_t *ack_seq, uint8_t *ack_count)
{
	struct gen_client *g = ctx;

	if (rx_highest == 0)
		return;
	if (g->e != NULL)
		port_rx_seen(g);
	*ack_seq = claim_next(rx_highest + g->c->ack_jump, last_sent);
	*ack_count = SST_CHAN_ACKCT_MAX;
	if (g->attack.forged == 0)
		g->attack.first_forged_tsc = rte_rdtsc();
	g->attack.forged++;
}

static const struct sst_channel_ack_forge sealed_forge = {.rewrite = forge_sealed};

const struct sst_channel_ack_forge *
gen_attack_ack_forge(const struct gen_client *g)
{
	bool port = g->c->port.set;

	return g->c->attack == GEN_ATTACK_OPTIMISTIC_ACK &&
			       (port || g->c->armor != SST_CRYPTO_CHK32)
		       ? &sealed_forge
		       : NULL;
}

/* The endpoint as a socket address. @return its length, 0 if not IP. */
static socklen_t
sockaddr_of(const struct sst_net_endpoint *ep, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (ep->addr.family == SST_NET_IPV4) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(ep->port);
		memcpy(&sin->sin_addr, ep->addr.bytes, 4);
		return sizeof(*sin);
	}
	if (ep->addr.family == SST_NET_IPV6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(ep->port);
		memcpy(&sin6->sin6_addr, ep->addr.bytes, 16);
		return sizeof(*sin6);
	}
	return 0;
}

/*
 * --attack cookie-replay: 100 ms after we sent what proves our address
 * (the handshake is over by then), the same bytes again from
 * REPLAY_SOURCES other endpoints (sockets of their own, ports the kernel
 * picks): an attacker who captured them. The target must not answer a
 * message whose cookie names another address; whatever comes back to
 * those sockets is counted.
 */
static void
replay_poll(struct atk_link *a)
{
	struct atk_replay *rp = &a->rp;
	struct sockaddr_storage to;
	socklen_t tolen;
	uint8_t buf[REPLAY_MSG_MAX];

	if (rp->taken_tsc != 0 && !rp->done &&
		rte_rdtsc() - rp->taken_tsc > rte_get_tsc_hz() / 10) {
		rp->done = true;
		tolen = sockaddr_of(&rp->to, &to);
		for (int k = 0; k < REPLAY_SOURCES && tolen != 0; k++) {
			rp->fd[k] = socket(to.ss_family, SOCK_DGRAM | SOCK_NONBLOCK, 0);
			if (rp->fd[k] >= 0 &&
				sendto(rp->fd[k], rp->msg, rp->len, 0, (const struct sockaddr *)&to,
					tolen) == rp->len)
				a->as->replayed++;
		}
	}
	for (int k = 0; k < REPLAY_SOURCES; k++)
		while (rp->fd[k] >= 0 && recv(rp->fd[k], buf, sizeof(buf), 0) >= 0)
			a->as->replay_answers++;
}

static int
atk_open(void *priv, const struct sst_link_conf *conf, struct sst_link_stats *stats)
{
	struct atk_link *a = priv;
	const struct atk_conf *c = conf->driver_conf;

	memset(a, 0, sizeof(*a));
	a->inner = c->inner;
	a->as = c->as;
	a->kind = c->kind;
	a->jump = c->jump;
	for (int k = 0; k < REPLAY_SOURCES; k++)
		a->rp.fd[k] = -1;
	a->stats = stats;
	if (c->self != NULL)
		*c->self = a;
	return a->inner != NULL && a->as != NULL ? 0 : -EINVAL;
}

static uint16_t
atk_rx(void *priv, struct rte_mbuf **pkts, struct sst_net_endpoint *from, uint16_t n)
{
	struct atk_link *a = priv;
	uint16_t got = sst_link_rx_burst(a->inner, pkts, from, n);

	if (a->kind == GEN_ATTACK_COOKIE_REPLAY)
		replay_poll(a);
	for (uint16_t i = 0; i < got; i++) {
		seen_rx(a, pkts[i]);
		a->stats->rx_bytes += rte_pktmbuf_pkt_len(pkts[i]);
	}
	a->stats->rx_packets += got;
	return got;
}

static uint16_t
atk_tx(void *priv, struct rte_mbuf **pkts, const struct sst_net_endpoint *to, uint16_t n)
{
	struct atk_link *a = priv;
	uint64_t bytes = 0;
	uint16_t sent;

	for (uint16_t i = 0; i < n; i++) {
		uint8_t *b = rte_pktmbuf_mtod(pkts[i], uint8_t *);
		uint32_t len = rte_pktmbuf_data_len(pkts[i]);

		bytes += rte_pktmbuf_pkt_len(pkts[i]);
		if (len == 0)
			continue;
		if (b[0] == 0) {
			bool had = a->rp.taken_tsc != 0;

			learn(a, true, b, len);
			if (!had && a->rp.taken_tsc != 0)
				a->rp.to = to[i];
		} else if (a->out[b[0]].known && a->kind == GEN_ATTACK_OPTIMISTIC_ACK)
			forge(a, &a->out[b[0]], pkts[i]);
	}
	sent = sst_link_tx_burst(a->inner, pkts, to, n);
	a->stats->tx_packets += sent;
	a->stats->tx_bytes += sent == n ? bytes : 0;
	return sent;
}

static int
atk_local(void *priv, struct sst_net_endpoint *ep)
{
	struct atk_link *a = priv;

	return sst_link_local(a->inner, ep);
}

static void
atk_close(void *priv)
{
	struct atk_link *a = priv;

	for (int k = 0; k < REPLAY_SOURCES; k++)
		if (a->rp.fd[k] >= 0)
			close(a->rp.fd[k]);
	sst_link_close(a->inner);
}

static const struct sst_link_ops atk_ops = {
	.name = "gen_attack",
	.kind = SST_LINK_DATAGRAMS,
	.priv_size = sizeof(struct atk_link),
	.open = atk_open,
	.rx_burst = atk_rx,
	.tx_burst = atk_tx,
	.local = atk_local,
	.close = atk_close,
};

struct sst_link *
gen_attack_wrap(struct sst_link *inner, struct gen_client *g, void **self)
{
	struct atk_conf ac = {.self = self,
		.inner = inner,
		.as = &g->attack,
		.kind = g->c->attack,
		.jump = g->c->ack_jump};
	struct sst_link_conf lc = {
		.size = sizeof(lc), .driver = "gen_attack", .pool = g->pool, .driver_conf = &ac};
	struct sst_link *l;
	int rc = sst_link_register(&atk_ops);

	if (inner == NULL)
		return NULL;
	l = rc == 0 || rc == -EEXIST ? sst_link_open(&lc) : NULL;
	if (l == NULL)
		sst_link_close(inner);
	return l;
}

/* cookie-expiry: a SecI1 from an endpoint of its own, which the target
 * takes as a new handshake and holds half-open: a target whose load
 * threshold is 1 (sst-gen server --load-high 1) is under load while it
 * lasts, and checks the cookies of what comes next. */
static void
load_maker(struct atk_link *a)
{
	struct sockaddr_storage to;
	socklen_t tolen = sockaddr_of(&a->rp.to, &to);

	a->rp.fd[0] = tolen != 0 ? socket(to.ss_family, SOCK_DGRAM | SOCK_NONBLOCK, 0) : -1;
	if (a->rp.fd[0] >= 0 && sendto(a->rp.fd[0], a->rp.msg, a->rp.len, 0,
					(const struct sockaddr *)&to, tolen) == a->rp.len)
		a->as->load_makers++;
}

/*
 * --attack cookie-expiry: once every channel is closed (FINISH: the target
 * forgot them, so a SecI1 with their numbers is new to it), each channel's
 * SecI1 that carried a cookie goes again from the channel's own socket,
 * the address the cookie names, when --replay-after has passed since it
 * first went; 100 ms before the first, one of them goes from another
 * endpoint (load_maker()). A target under load checks cookies: within the
 * cookie's lifetime (one to two rotation periods) it cannot tell the
 * replay from the initiator's retransmission and answers a SecR1
 * (half-open state, dropped when nothing follows); after it, the cookie no
 * longer verifies: the target must answer at most a new challenge
 * (SecCookie) and count it (rx_sec_i1_cookie_bad).
 */
void
gen_attack_expiry_replay(struct gen_client *g, void (*poll)(struct gen_client *, sst_time_t))
{
	uint64_t hz = rte_get_tsc_hz(), wait = tool_ns_to_tsc(g->c->replay_after_ns, hz);
	uint64_t last = 0, first = UINT64_MAX;
	struct atk_link *maker = NULL;
	uint32_t left = 0;

	for (uint32_t i = 0; i < g->next_connect; i++) {
		struct atk_link *a = g->ch[i].atk;

		if (a != NULL && a->rp.taken_tsc != 0) {
			left++;
			if (a->rp.taken_tsc < first) {
				first = a->rp.taken_tsc;
				maker = a;
			}
		}
	}
	while (left > 0 && !tool_interrupted) {
		if (maker != NULL && rte_rdtsc() + hz / 10 >= first + wait) {
			load_maker(maker);
			maker = NULL;
		}
		for (uint32_t i = 0; i < g->next_connect; i++) {
			struct atk_link *a = g->ch[i].atk;
			struct rte_mbuf *m;

			if (a == NULL || a->rp.taken_tsc == 0 || a->rp.replayed_tsc != 0 ||
				rte_rdtsc() - a->rp.taken_tsc < wait)
				continue;
			left--;
			/* Once, even when no buffer is left for it. */
			a->rp.replayed_tsc = last = rte_rdtsc();
			m = rte_pktmbuf_alloc(g->pool);
			if (m == NULL || rte_pktmbuf_append(m, a->rp.len) == NULL) {
				rte_pktmbuf_free(m);
				continue;
			}
			memcpy(rte_pktmbuf_mtod(m, uint8_t *), a->rp.msg, a->rp.len);
			if (sst_link_tx_burst(a->inner, &m, &a->rp.to, 1) == 1)
				g->attack.replayed++;
			else
				rte_pktmbuf_free(m);
		}
		poll(g, tool_now());
	}
	/* A second for the answers. */
	while (last != 0 && rte_rdtsc() - last < hz && !tool_interrupted)
		poll(g, tool_now());
}

/*
 * --attack stream-slots: each channel, once up, opens streams to the
 * service (sst_stream_connect() sends the service request, so the target
 * holds a control block for each) and never writes, reads or closes them,
 * until the target refuses one (its per-peer share of control blocks,
 * sst_stream_host_params.peer_max_streams); it then holds what it has
 * until the run ends. Streams are marked by gen_slot_marker as their user.
 */
char gen_slot_marker;

enum { SLOT_OPENS_PER_PASS = 64 };

/* The client whose channels hold slots: a stream's closed() callback has
 * the worker's context, a channel over kernel UDP but the client over a
 * port, so the channel is found from the stream's peer (one client per
 * process). */
static struct gen_client *slots_client;

void
gen_attack_slots_poll(struct gen_chan *ch, sst_time_t now)
{
	struct gen_client *g = ch->g;

	slots_client = g;
	if (ch->state != CH_UP || ch->peer == NULL || g->stopping || ch->slots_refused != 0)
		return;
	for (int k = 0; k < SLOT_OPENS_PER_PASS; k++) {
		struct sst_stream *s =
			sst_stream_connect(ch->peer, g->c->service, g->c->protocol, now);

		if (s == NULL)
			return; /* our own control blocks ran out: the next pass */
		sst_stream_set_user(s, &gen_slot_marker);
		ch->slots_held++;
		g->attack.slots_opened++;
		g->attack.slots_held++;
	}
}

void
gen_attack_slots_poll_all(struct gen_client *g, sst_time_t now)
{
	for (uint32_t i = 0; i < g->next_connect; i++)
		gen_attack_slots_poll(&g->ch[i], now);
}

void
gen_attack_slot_closed(struct sst_stream *s, enum sst_stream_end why, sst_time_t now)
{
	struct gen_attack_stats *as = &slots_client->attack;
	const struct sst_stream_peer *peer = sst_stream_peer_of(s);
	struct gen_chan *ch = NULL;

	for (uint32_t i = 0; i < slots_client->next_connect && ch == NULL; i++)
		if (slots_client->ch[i].peer == peer)
			ch = &slots_client->ch[i];
	/* The target answers nothing on these streams: a reset from it is
	 * a refusal too (over a peer's share, the stream layer resets). */
	if (why == SST_STREAM_REFUSED || why == SST_STREAM_RESET_REMOTE) {
		if (as->slots_refused == 0)
			as->slots_before_refusal = as->slots_held;
		as->slots_refused++;
		if (ch != NULL)
			ch->slots_refused++;
	} else {
		as->slots_ended++;
	}
	if (ch != NULL)
		ch->slots_held--;
	as->slots_held--;
	sst_stream_set_user(s, NULL);
	sst_stream_close(s, now);
}

void
gen_attack_report(const struct gen_client *g, bool json)
{
	const struct gen_attack_stats *a = &g->attack;
	/* The target's silence since the first rewrite, or since the last
	 * packet it sent after it (--port: seen at our last forged word). */
	uint64_t quiet_since = a->last_rx_tsc != 0 ? a->last_rx_tsc : a->first_forged_tsc;
	uint64_t rx_after =
		g->e != NULL && a->forged != 0 ? port_rx_channel(g) - a->port_rx_base : a->rx_after;
	double silent_ms = a->forged != 0 && g->t_end_tsc > quiet_since
				   ? (double)(g->t_end_tsc - quiet_since) * 1e3 / (double)g->tsc_hz
				   : 0;

	if (g->c->attack == GEN_ATTACK_STREAM_SLOTS)
		printf(json ? "  \"attack\": {\"kind\": \"stream-slots\", \"slots_opened\": %llu, "
			      "\"slots_held\": %llu, \"slots_refused\": %llu, "
			      "\"held_at_first_refusal\": %llu, \"slots_ended\": %llu},\n"
			    : "attack                 stream slots: %llu opened, %llu held at the "
			      "end, %llu refused by the target (the first when %llu were held), "
			      "%llu ended otherwise\n",
			(unsigned long long)a->slots_opened, (unsigned long long)a->slots_held,
			(unsigned long long)a->slots_refused,
			(unsigned long long)a->slots_before_refusal,
			(unsigned long long)a->slots_ended);
	if (g->c->attack == GEN_ATTACK_COOKIE_REPLAY)
		printf(json ? "  \"attack\": {\"kind\": \"cookie-replay\", \"replay_taken\": %llu, "
			      "\"replayed\": %llu, \"replay_answers\": %llu},\n"
			    : "attack                 cookie replay: %llu handshake messages "
			      "taken, "
			      "sent again %llu times from other endpoints, %llu answers\n",
			(unsigned long long)a->replay_taken, (unsigned long long)a->replayed,
			(unsigned long long)a->replay_answers);
	if (g->c->attack == GEN_ATTACK_COOKIE_EXPIRY)
		printf(json ? "  \"attack\": {\"kind\": \"cookie-expiry\", \"replay_after_ms\": "
			      "%llu, \"replay_taken\": %llu, \"replayed\": %llu, "
			      "\"replay_accepted\": %llu, \"replay_challenged\": %llu, "
			      "\"load_makers\": %llu},\n"
			    : "attack                 cookie expiry: %llu ms after, %llu SecI1 "
			      "with "
			      "a cookie taken, %llu sent again from their own endpoints: %llu "
			      "accepted (SecR1), %llu challenged again (SecCookie); %llu sent "
			      "from another endpoint first, to load the target\n",
			(unsigned long long)(g->c->replay_after_ns / 1000000),
			(unsigned long long)a->replay_taken, (unsigned long long)a->replayed,
			(unsigned long long)a->replay_accepted,
			(unsigned long long)a->replay_challenged,
			(unsigned long long)a->load_makers);
	if (g->c->attack == GEN_ATTACK_OPTIMISTIC_ACK)
		printf(json ? "  \"attack\": {\"kind\": \"optimistic-ack\", \"ack_jump\": %u, "
			      "\"forged_acks\": %llu, \"target_packets_after\": %llu, "
			      "\"target_silent_ms\": %.0f},\n"
			    : "attack                 optimistic acks (jump %u): %llu forged; the "
			      "target sent %llu channel packets after the first, then nothing "
			      "for the last %.0f ms\n",
			g->c->ack_jump, (unsigned long long)a->forged, (unsigned long long)rx_after,
			silent_ms);
}
