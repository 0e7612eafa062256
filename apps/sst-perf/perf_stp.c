/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-perf's STP agent (perf_stp.h). Each exchange is one stream of the
 * STP service and one struct sst_stp: bytes read from the stream go to
 * sst_stp_input(), what it offers is written back, and once it ended (and
 * its bytes are out) the stream is closed and the outcome printed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>
#include <sodium.h>

#include "cc_bpf.h"
#include "perf_stp.h"

enum {
	STP_SLOTS = 8,	  /* exchanges at once */
	STP_PEERS = 64,	  /* peers asked, remembered so each is asked once */
	STP_CHUNK = 1024, /* bytes per write */
	STP_READ_BURST = 16,
};

struct stp_slot {
	struct sst_stream *s;
	struct sst_stp *st;
	struct sst_stream_peer *peer;
	bool asker;
	bool mute; /* --stp-mute: a responder that never answers */
	bool in_read, ended;
	int moved; /* responder: channels moved to the module */
};

/* A peer whose channels this host moved to a module it asked for: a
 * replacement channel (renegotiated after a silence, or past its packet
 * limit) starts on the host's controller and is moved when it comes up. */
struct stp_running {
	const struct sst_stream_peer *peer;
	const struct sst_cc_ops *ops;
};

struct perf_stp {
	const struct perf_conf *c;
	bool server; /* one summary a process: the server's side prints it */
	bool ship;
	bool closing;
	const struct sst_stream_ops *inner;
	const struct sst_worker_ops *inner_worker;
	void *inner_ctx;
	struct tool_host *h;
	struct stp_slot slot[STP_SLOTS];
	unsigned int open; /* slots in use; with none, the poll skips expire() */
	const struct sst_stream_peer *asked[STP_PEERS];
	unsigned int nasked;
	struct stp_slot *applying; /* the responder whose hooks run */
	unsigned int used;	   /* modules this host accepted to run */
	struct stp_running running[STP_PEERS];
	unsigned int nrunning;
	unsigned int carried; /* replacement channels moved to a module */
};

static void __attribute__((format(printf, 2, 3)))
say(const struct perf_stp *ps, const char *fmt, ...)
{
	va_list ap;

	if (ps->c->quiet || ps->c->json)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static struct stp_running *
running_of(struct perf_stp *ps, const struct sst_stream_peer *peer)
{
	for (unsigned int i = 0; i < ps->nrunning; i++)
		if (ps->running[i].peer == peer)
			return &ps->running[i];
	return NULL;
}

static void
running_set(struct perf_stp *ps, const struct sst_stream_peer *peer, const struct sst_cc_ops *ops)
{
	struct stp_running *r = running_of(ps, peer);

	if (r == NULL && ps->nrunning < STP_PEERS)
		r = &ps->running[ps->nrunning++];
	if (r != NULL)
		*r = (struct stp_running){.peer = peer, .ops = ops};
}

static void
running_forget(struct perf_stp *ps, const struct sst_stream_peer *peer)
{
	struct stp_running *r = running_of(ps, peer);

	if (r != NULL)
		*r = ps->running[--ps->nrunning];
}

static const struct sst_cc_ops *
hook_lookup(void *ctx, const uint8_t *hash)
{
	(void)ctx;
	return cc_bpf_find_hash(hash, true);
}

static const struct sst_cc_ops *
hook_load(void *ctx, const uint8_t *code, size_t len, char *err, size_t errlen)
{
	(void)ctx;
	return cc_bpf_load_mem(code, len, true, "shipped by a peer", err, errlen);
}

static int
hook_apply(void *ctx, const struct sst_cc_ops *ops, sst_time_t now)
{
	struct perf_stp *ps = ctx;
	struct sst_worker *w = sst_worker_running();
	int rc;

	if (w == NULL || ps->applying == NULL)
		return -ENOENT;
	rc = sst_worker_peer_set_cc(w, ps->applying->peer, ops, now);
	ps->applying->moved = rc > 0 ? rc : 0;
	if (rc > 0)
		running_set(ps, ps->applying->peer, ops);
	return rc < 0 ? rc : 0;
}

static struct stp_slot *
slot_of(struct perf_stp *ps, const struct sst_stream *s)
{
	/* Called on every event of every stream the wrapped tool has: with
	 * no exchange open, it is no STP stream's. */
	if (ps->open == 0)
		return NULL;
	for (int i = 0; i < STP_SLOTS; i++)
		if (ps->slot[i].s != NULL && ps->slot[i].s == s)
			return &ps->slot[i];
	return NULL;
}

static struct stp_slot *
slot_new(struct perf_stp *ps)
{
	for (int i = 0; i < STP_SLOTS; i++) {
		struct stp_slot *x = &ps->slot[i];

		if (x->s != NULL)
			continue;
		memset(x, 0, sizeof(*x));
		x->st = aligned_alloc(64, (sst_stp_size() + 63) & ~(size_t)63);
		if (x->st == NULL)
			return NULL;
		ps->open++;
		return x;
	}
	return NULL;
}

/* Print what became of the exchange. */
static void
report(struct perf_stp *ps, const struct stp_slot *x)
{
	char hex[2 * SST_STP_HASH_LEN + 1], what[128];
	enum sst_stp_state state = sst_stp_state(x->st);

	sodium_bin2hex(hex, sizeof(hex), sst_stp_hash(x->st), SST_STP_HASH_LEN);
	hex[9] = '\0';
	if (state == SST_STP_ACCEPTED && x->asker)
		snprintf(what, sizeof(what), "accepted (%s)",
			sst_stp_code_shipped(x->st) ? "code shipped" : "from its cache");
	else if (state == SST_STP_ACCEPTED && ++ps->used > 0)
		snprintf(what, sizeof(what), "running on %d channel%s (%s)", x->moved,
			x->moved == 1 ? "" : "s",
			sst_stp_code_received(x->st) ? "code received" : "from the cache");
	else if (state == SST_STP_REFUSED)
		snprintf(what, sizeof(what), "refused, %s",
			sst_stp_reason_name(sst_stp_reason(x->st)));
	else
		snprintf(what, sizeof(what), "failed");
	say(ps, "sst-perf: %s congestion control #%s: %s",
		x->asker ? "asked the peer to run" : "the peer asked us to run", hex, what);
	if (sst_stp_detail(x->st)[0] != '\0')
		say(ps, "sst-perf:   %s", sst_stp_detail(x->st));
}

static void
slot_free(struct perf_stp *ps, struct stp_slot *x)
{
	ps->open--;
	free(x->st);
	memset(x, 0, sizeof(*x));
}

/* Write what the exchange offers while the stream takes it. */
static void
pump_tx(struct perf_stp *ps, struct stp_slot *x, sst_time_t now)
{
	const uint8_t *p;
	size_t n;

	while ((n = sst_stp_tx_peek(x->st, &p)) > 0) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(tool_host_pool(ps->h));
		uint16_t k = (uint16_t)RTE_MIN(n, (size_t)STP_CHUNK);
		char *d;

		if (m == NULL)
			return;
		d = rte_pktmbuf_append(m, k);
		if (d != NULL)
			memcpy(d, p, k);
		if (d == NULL || sst_stream_write(x->s, m, 0, now) < 0) {
			rte_pktmbuf_free(m);
			return; /* ops.writable() comes back */
		}
		sst_stp_tx_advance(x->st, k);
	}
}

/* Close and forget an exchange that ended (or whose stream did). */
static void
finish(struct perf_stp *ps, struct stp_slot *x, sst_time_t now)
{
	struct sst_stream *s = x->s;

	if (x->ended)
		sst_stp_input_end(x->st, now);
	if (!sst_stp_done(x->st) && !x->ended)
		return;
	report(ps, x);
	slot_free(ps, x);
	sst_stream_close(s, now);
}

/* --stp-mute: what the peer sends is read and dropped, nothing is ever
 * answered, and the stream is let go once the peer gave up on it. */
static void
serve_mute(struct perf_stp *ps, struct stp_slot *x, sst_time_t now)
{
	struct sst_stream_data d[STP_READ_BURST];
	struct sst_stream *s = x->s;
	int k;

	while ((k = sst_stream_read(s, d, STP_READ_BURST, now)) > 0)
		for (int i = 0; i < k; i++)
			rte_pktmbuf_free(d[i].m);
	if (k != -EPIPE && k != -ECONNRESET && !x->ended)
		return;
	slot_free(ps, x);
	sst_stream_close(s, now);
}

static void
serve(struct perf_stp *ps, struct stp_slot *x, sst_time_t now)
{
	struct sst_stream_data d[STP_READ_BURST];
	int k;

	if (x->mute) {
		serve_mute(ps, x, now);
		return;
	}
	x->in_read = true;
	ps->applying = x;
	while ((k = sst_stream_read(x->s, d, STP_READ_BURST, now)) > 0)
		for (int i = 0; i < k; i++) {
			for (struct rte_mbuf *seg = d[i].m; seg != NULL; seg = seg->next)
				sst_stp_input(x->st, rte_pktmbuf_mtod(seg, const uint8_t *),
					seg->data_len, now);
			rte_pktmbuf_free(d[i].m);
		}
	ps->applying = NULL;
	x->in_read = false;
	if (k == -EPIPE || k == -ECONNRESET)
		x->ended = true;
	if (!x->ended)
		pump_tx(ps, x, now);
	finish(ps, x, now);
}

static bool
peer_asked(struct perf_stp *ps, const struct sst_stream_peer *peer)
{
	for (unsigned int i = 0; i < ps->nasked; i++)
		if (ps->asked[i] == peer)
			return true;
	if (ps->nasked < STP_PEERS)
		ps->asked[ps->nasked++] = peer;
	return false;
}

/* STP's first step (the receiver asks for a better sender): USE(H). */
static void
ask(struct perf_stp *ps, struct sst_stream_peer *peer, sst_time_t now)
{
	struct stp_slot *x;

	if (peer == NULL || peer_asked(ps, peer) || (x = slot_new(ps)) == NULL)
		return;
	x->s = sst_stream_connect(peer, SST_STP_SERVICE, SST_STP_PROTOCOL, now);
	if (x->s == NULL) {
		slot_free(ps, x);
		return;
	}
	x->asker = true;
	x->peer = peer;
	sst_stp_request(x->st, ps->c->ship_hash, ps->c->ship_code, ps->c->ship_len, now);
	if (ps->c->stp_timeout_ns != 0)
		sst_stp_set_timeout(x->st, ps->c->stp_timeout_ns, now);
	pump_tx(ps, x, now);
}

static void
op_connected(void *ctx, struct sst_stream *s, int err, sst_time_t now)
{
	struct perf_stp *ps = ctx;
	struct stp_slot *x = slot_of(ps, s);

	if (x == NULL) {
		if (ps->inner->connected != NULL)
			ps->inner->connected(ps->inner_ctx, s, err, now);
		return;
	}
	if (err != 0 && !ps->closing) {
		x->ended = true;
		finish(ps, x, now);
	}
}

static void
op_accepted(void *ctx, struct sst_stream *parent, struct sst_stream *s, void *svc, sst_time_t now)
{
	struct perf_stp *ps = ctx;
	const struct sst_stp_hooks hooks = {
		.lookup = hook_lookup, .load = hook_load, .apply = hook_apply, .ctx = ps};
	struct sst_worker *w = sst_worker_running();
	struct stp_slot *x;

	if (svc != ps) {
		if (ps->ship && parent == NULL && !ps->closing)
			ask(ps, sst_stream_peer_of(s), now);
		if (ps->inner->accepted != NULL)
			ps->inner->accepted(ps->inner_ctx, parent, s, svc, now);
		return;
	}
	if (ps->closing || (x = slot_new(ps)) == NULL) {
		sst_stream_reset(s, now);
		sst_stream_close(s, now);
		return;
	}
	x->s = s;
	x->peer = sst_stream_peer_of(s);
	x->mute = ps->c->stp_mute;
	if (!x->mute) {
		sst_stp_respond(x->st, &ps->c->cc_policy,
			w != NULL ? sst_worker_peer_identity(w, x->peer) : NULL, &hooks, now);
		if (ps->c->stp_timeout_ns != 0)
			sst_stp_set_timeout(x->st, ps->c->stp_timeout_ns, now);
	}
	serve(ps, x, now);
}

static void
op_readable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct perf_stp *ps = ctx;
	struct stp_slot *x = slot_of(ps, s);

	if (x == NULL) {
		if (ps->inner->readable != NULL)
			ps->inner->readable(ps->inner_ctx, s, now);
		return;
	}
	if (!ps->closing)
		serve(ps, x, now);
}

static void
op_writable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	struct perf_stp *ps = ctx;
	struct stp_slot *x = slot_of(ps, s);

	if (x == NULL) {
		if (ps->inner->writable != NULL)
			ps->inner->writable(ps->inner_ctx, s, now);
		return;
	}
	if (!ps->closing && !x->mute) {
		pump_tx(ps, x, now);
		finish(ps, x, now);
	}
}

static void
op_closed(void *ctx, struct sst_stream *s, enum sst_stream_end why, sst_time_t now)
{
	struct perf_stp *ps = ctx;
	struct stp_slot *x = slot_of(ps, s);

	(void)why;
	if (x == NULL) {
		if (ps->inner->closed != NULL)
			ps->inner->closed(ps->inner_ctx, s, why, now);
		return;
	}
	x->ended = true;
	if (x->mute && !ps->closing)
		serve_mute(ps, x, now);
	else if (!x->in_read && !ps->closing)
		finish(ps, x, now);
}

static void
op_channel_event(void *ctx, struct sst_stream_chan *c, enum sst_channel_event ev, sst_time_t now)
{
	struct perf_stp *ps = ctx;

	if (ps->inner->channel_event != NULL)
		ps->inner->channel_event(ps->inner_ctx, c, ev, now);
}

static void
op_channel_closed(void *ctx, struct sst_stream_chan *c, sst_time_t now)
{
	struct perf_stp *ps = ctx;

	if (ps->inner->channel_closed != NULL)
		ps->inner->channel_closed(ps->inner_ctx, c, now);
}

static void
op_channel_pending(void *ctx, struct sst_stream_chan *c)
{
	struct perf_stp *ps = ctx;

	if (ps->inner->channel_pending != NULL)
		ps->inner->channel_pending(ps->inner_ctx, c);
}

/* Exchanges whose peer stopped answering (each side waits --stp-timeout,
 * SST_STP_TIMEOUT by default, for the next message): they fail, are
 * reported, and their streams are reset, as nothing more is wanted of them. */
static void
expire(struct perf_stp *ps, sst_time_t now)
{
	for (int i = 0; i < STP_SLOTS; i++) {
		struct stp_slot *x = &ps->slot[i];
		struct sst_stream *s = x->s;

		if (s == NULL || x->mute || x->in_read || now < sst_stp_next_expiry(x->st))
			continue;
		sst_stp_handle_expiry(x->st, now);
		x->in_read = true; /* a closed() from the reset must not finish it */
		sst_stream_reset(s, now);
		report(ps, x);
		slot_free(ps, x);
		sst_stream_close(s, now);
	}
}

static void
op_app_poll(void *ctx, struct sst_worker *w, sst_time_t now)
{
	struct perf_stp *ps = ctx;

	if (!ps->closing && ps->open > 0)
		expire(ps, now);
	if (ps->inner_worker->app_poll != NULL)
		ps->inner_worker->app_poll(ps->inner_ctx, w, now);
}

/* A channel to @p peer came up: if this host runs a module for it, the
 * new channel (a replacement) moves to it as the others did; a module
 * revoked since (policer, CPU budget) is not used again. */
static void
op_peer_ready(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	struct perf_stp *ps = ctx;
	struct stp_running *r = running_of(ps, peer);
	struct sst_worker *w = sst_worker_running();
	int rc;

	if (r != NULL && cc_bpf_revoked(r->ops))
		running_forget(ps, peer);
	else if (r != NULL && w != NULL && !ps->closing &&
		 (rc = sst_worker_peer_set_cc(w, peer, r->ops, tool_now())) > 0)
		ps->carried += (unsigned int)rc;
	if (ps->inner_worker->peer_ready != NULL)
		ps->inner_worker->peer_ready(ps->inner_ctx, peer, ep);
}

/* A peer the worker destroys may come back as another at the same address,
 * or its memory as another peer: it is asked again. */
static void
op_peer_gone(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	struct perf_stp *ps = ctx;

	for (unsigned int i = 0; i < ps->nasked; i++)
		if (ps->asked[i] == peer)
			ps->asked[i--] = ps->asked[--ps->nasked];
	running_forget(ps, peer);
	if (ps->inner_worker->peer_gone != NULL)
		ps->inner_worker->peer_gone(ps->inner_ctx, peer, ep);
}

static void
op_connect_failed(void *ctx, const struct sst_net_endpoint *ep, int err)
{
	struct perf_stp *ps = ctx;

	if (ps->inner_worker->connect_failed != NULL)
		ps->inner_worker->connect_failed(ps->inner_ctx, ep, err);
}

const struct sst_worker_ops perf_stp_worker_ops = {
	.peer_ready = op_peer_ready,
	.peer_gone = op_peer_gone,
	.connect_failed = op_connect_failed,
	.app_poll = op_app_poll,
};

const struct sst_stream_ops perf_stp_stream_ops = {
	.connected = op_connected,
	.accepted = op_accepted,
	.readable = op_readable,
	.writable = op_writable,
	.closed = op_closed,
	.channel_event = op_channel_event,
	.channel_closed = op_channel_closed,
	.channel_pending = op_channel_pending,
};

struct perf_stp *
perf_stp_new(const struct perf_conf *c, bool ship, const struct sst_stream_ops *inner,
	const struct sst_worker_ops *inner_worker, void *inner_ctx)
{
	struct perf_stp *ps = calloc(1, sizeof(*ps));

	if (ps == NULL)
		return NULL;
	ps->c = c;
	ps->server = ship;
	ps->ship = ship && c->ship_code != NULL;
	ps->inner = inner;
	ps->inner_worker = inner_worker;
	ps->inner_ctx = inner_ctx;
	return ps;
}

int
perf_stp_start(struct perf_stp *ps, struct tool_host *h)
{
	int rc;

	ps->h = h;
	rc = tool_host_listen(h, SST_STP_SERVICE, SST_STP_PROTOCOL, ps);
	if (rc < 0) {
		fprintf(stderr, "sst-perf: cannot listen for STP: %s\n", strerror(-rc));
		return -1;
	}
	return 0;
}

/* What became of the modules this host ran: the policer or the CPU
 * budget may have revoked them during the test. */
void
perf_stp_quiesce(struct perf_stp *ps)
{
	struct cc_bpf_totals t;

	if (ps == NULL || ps->closing)
		return;
	ps->closing = true;
	if (ps->carried != 0)
		say(ps, "sst-perf: replacement channels moved to the module in use: %u",
			ps->carried);
	if (ps->used == 0 &&
		!(ps->server && ps->c->cc != NULL && strncmp(ps->c->cc, "bpf", 3) == 0))
		return;
	cc_bpf_totals(&t);
	say(ps,
		"sst-perf: modules in this process: %" PRIu64 " loaded, %" PRIu64
		" revoked (%" PRIu64 " policer verdicts), %" PRIu64 " channels moved to newreno",
		t.modules, t.revoked, t.violations, t.fallbacks);
}

void
perf_stp_destroy(struct perf_stp *ps)
{
	if (ps == NULL)
		return;
	for (int i = 0; i < STP_SLOTS; i++)
		free(ps->slot[i].st);
	free(ps);
}

int
perf_stp_parse_ship(struct perf_conf *c, const char *path)
{
	FILE *f = fopen(path, "rb");
	char why[CC_BPF_ERR_MAX];

	if (f == NULL) {
		fprintf(stderr, "sst-perf: --ship-cc '%s': %s\n", path, strerror(errno));
		return -1;
	}
	free(c->ship_code);
	c->ship_code = malloc(SST_STP_CODE_MAX + 1);
	c->ship_len = c->ship_code != NULL ? fread(c->ship_code, 1, SST_STP_CODE_MAX + 1, f) : 0;
	fclose(f);
	if (c->ship_len == 0 || c->ship_len > SST_STP_CODE_MAX) {
		fprintf(stderr, "sst-perf: --ship-cc '%s': want 1 byte to %d bytes\n", path,
			SST_STP_CODE_MAX);
		return -1;
	}
	/* Refuse here what the peer would refuse: a module that does not load. */
	if (cc_bpf_check(c->ship_code, c->ship_len, why, sizeof(why)) != 0) {
		fprintf(stderr, "sst-perf: --ship-cc '%s': %s\n", path, why);
		return -1;
	}
	crypto_generichash(c->ship_hash, sizeof(c->ship_hash), c->ship_code, c->ship_len, NULL, 0);
	c->ship_path = path;
	return 0;
}

/* KEYFILE: one Ed25519 public key per line, 64 hex digits; # comments. */
static int
parse_keys(struct perf_conf *c, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256];
	int n = 0;

	if (f == NULL) {
		fprintf(stderr, "sst-perf: --cc-policy: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		uint8_t key[SST_STP_KEY_LEN];
		size_t len;

		line[strcspn(line, "#\r\n")] = '\0';
		if (line[strspn(line, " \t")] == '\0')
			continue;
		if (sodium_hex2bin(key, sizeof(key), line, strlen(line), " \t", &len, NULL) != 0 ||
			len != sizeof(key) || sst_stp_policy_pin(&c->cc_policy, key) != 0) {
			fprintf(stderr,
				"sst-perf: --cc-policy: %s: want at most %d keys of 64 hex "
				"digits, one a line\n",
				path, SST_STP_PINNED_MAX);
			fclose(f);
			return -1;
		}
		n++;
	}
	fclose(f);
	return n > 0 ? 0 : -1;
}

int
perf_stp_parse_policy(struct perf_conf *c, const char *arg)
{
	if (strncmp(arg, "pinned:", 7) == 0) {
		sst_stp_policy_parse(&c->cc_policy, "pinned");
		return parse_keys(c, arg + 7);
	}
	if (strcmp(arg, "pinned") == 0)
		return -1;
	return sst_stp_policy_parse(&c->cc_policy, arg) == 0 ? 0 : -1;
}

int
perf_stp_unpolice(const char *cc)
{
	const struct sst_cc_ops *ops =
		cc != NULL && strncmp(cc, "bpf", 3) == 0 ? sst_cc_find(cc) : NULL;

	if (ops == NULL)
		return -1;
	cc_bpf_set_policed(ops, false);
	return 0;
}
