/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen: an SST traffic generator (docs/tools/sst-gen.md). Three modes:
 * "client" holds many channels with request/response streams on each and
 * checks every byte; "server" answers them; "template" replays pre-built
 * frames on a DPDK port (data packets, spoofed handshakes, garbage) as fast
 * as the port goes or at a rate.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "gen_client.h"
#include "perf.h"
#include "sst_crypto_driver.h"
#include "tool_args.h"

enum {
	OPT_CONCURRENT = 256,
	OPT_THINK,
	OPT_CHANNEL_RATE,
	OPT_STREAM_RATE,
	OPT_SERVICE,
	OPT_PROTOCOL,
	OPT_SRC_ADDRS,
	OPT_SRC_PORTS,
	OPT_MAX_CHANNELS,
	OPT_PROFILE,
	OPT_TX_PORT,
	OPT_QUEUES,
	OPT_PCAP,
	OPT_TEMPLATE,
	OPT_DST,
	OPT_VARY_ADDRS,
	OPT_VARY_PORTS,
	OPT_MBUFS,
	OPT_SEED,
	OPT_ATTACK,
	OPT_ACK_JUMP,
	OPT_MAX_STREAMS,
	OPT_SST_PERF,
	OPT_REPLAY_AFTER,
	OPT_COOKIE_PERIOD,
	OPT_LOAD_HIGH,
	OPT_WORKERS,
	OPT_WORKLOAD,
	OPT_DATAGRAMS,
	OPT_DGRAM_RATE,
	OPT_CORRUPT,
	OPT_HOLD,
};

static void
usage(FILE *out)
{
	fprintf(out,
		"Usage: sst-gen [EAL-ARGS --] client (--udp HOST:PORT | --loopback) [OPTIONS]\n"
		"       sst-gen [EAL-ARGS --] server --udp [ADDR:]PORT [OPTIONS]\n"
		"       sst-gen EAL-ARGS -- template --tx-port N [OPTIONS]\n"
		"\n"
		"Generate SST traffic: many channels of verified request/response streams,\n"
		"or pre-built packets replayed on a DPDK port at line rate.\n"
		"\n"
		"Client (stateful mode):\n"
		"  -u, --udp HOST:PORT    the server (sst-gen server, sst-cat --listen --echo\n"
		"                         with --echo, or any SST server of the service)\n"
		"  -l, --loopback         an sst-gen server in this process (127.0.0.1)\n"
		"  -c, --channels N       channels, each from a source endpoint of its own (1)\n"
		"  -m, --streams M        streams per channel (10); with --time, per round\n"
		"      --concurrent K     streams in flight per channel (1)\n"
		"  -R, --request SIZE     request bytes: N, uniform:A-B, exp:MEAN or\n"
		"                         pareto:MIN,SHAPE (64; at least 12 unless --echo)\n"
		"  -S, --response SIZE    response bytes, same forms (64)\n"
		"      --think MS         pause of a stream slot between streams (0)\n"
		"      --workload KIND    rr (request/response, default); bulk (each stream\n"
		"                         sends --request bytes one way, checked by the\n"
		"                         sst-gen server); datagram (one stream per channel\n"
		"                         sending --datagrams datagrams of --request bytes,\n"
		"                         held to 20 to 1024, checked and echoed by the server)\n"
		"      --datagrams N      datagram: per channel (100; with --time, until then)\n"
		"      --dgram-rate N     datagram: per second per channel (unlimited)\n"
		"      --corrupt N        one wrong byte in every Nth stream and every Nth\n"
		"                         datagram of a channel: the server must catch each\n"
		"                         (the run then fails)\n"
		"      --hold             after the report, keep the port until interrupted\n"
		"                         (SIGINT, SIGTERM): over net_memif, stop the server\n"
		"                         first, so that no poller of its is inside a receive\n"
		"                         when this side's exit unmaps the rings\n"
		"      --channel-rate N   new channels per second (unlimited)\n"
		"      --stream-rate N    new streams per second over all channels (unlimited)\n"
		"  -t, --time SECONDS     run rounds of streams for this long (default: each\n"
		"                         channel runs its M streams once)\n"
		"  -e, --echo             the server echoes: each response is the request\n"
		"      --sst-perf         the server is sst-perf --server: the run is one rr\n"
		"                         test of it with --verify (fixed sizes), whose\n"
		"                         counters must agree with ours\n"
		"      --src ADDR[:PORT]  first source address (and port) of the channels\n"
		"      --src-addrs N      consecutive source addresses from --src (1)\n"
		"      --src-ports N      consecutive source ports from --src's port (any)\n"
		"      --profile FILE     workload mix (JSON: rr, bulk and datagram workloads "
		"with\n"
		"                         their shares; see docs/tools/sst-gen.md)\n"
		"      --seed N           seed of the size distributions (1)\n"
		"      --attack optimistic-ack\n"
		"                         acknowledge the target's packets whether they\n"
		"                         came or not (secure mode: forged before sealing);\n"
		"                         the run lasts until --timeout, and reports what the\n"
		"                         target sent after the first forged ack\n"
		"      --ack-jump N       acknowledge N numbers past the highest seen (0)\n"
		"      --attack stream-slots\n"
		"                         open streams on every channel and never use\n"
		"                         them, until the target refuses one; hold them\n"
		"                         until --timeout\n"
		"      --attack cookie-replay\n"
		"                         send each channel's SecI2 (or ChkI1 with a\n"
		"                         cookie) again from 4 other endpoints; count\n"
		"                         the target's answers to them\n"
		"      --attack cookie-expiry\n"
		"                         secure mode: after the run, send each channel's\n"
		"                         SecI1 that carried a cookie again from its own\n"
		"                         endpoint, --replay-after MS after it first went;\n"
		"                         count the target's answers (SecR1: accepted,\n"
		"                         SecCookie: refused)\n"
		"      --replay-after MS  cookie-expiry: the replay's delay\n"
		"\n"
		"Client and server:\n"
		"  -a, --armor NAME       chk32 (checksum mode, default), aes128gcm or chacha20\n"
		"      --service NAME     the service (sst-gen)\n"
		"      --protocol NAME    its protocol (rr)\n"
		"      --port N, --ip ADDR/LEN, --gateway ADDR\n"
		"                         a DPDK port instead of kernel UDP; the client's\n"
		"                         channels then come from one worker, each from an\n"
		"                         endpoint of the --src ranges (from the --ip address)\n"
		"      --workers N        --port: N workers, one per queue of the port, each\n"
		"                         on a worker lcore of its own when the EAL gives\n"
		"                         N + 1 lcores (-l, --lcores), else all polled by\n"
		"                         the main thread; a client's channel is made by\n"
		"                         the worker RSS gives its packets to (1; both ends\n"
		"                         of a memif need the same N)\n"
		"      --mbufs N          packet buffers (65535)\n"
		"      --max-channels N   server: channels clients may hold at once (1024)\n"
		"      --max-streams N    server: streams at once (1048576), a peer a quarter\n"
		"      --cookie-period MS server: cookie secret rotation (120000); a cookie\n"
		"                         lives one to two periods\n"
		"      --load-high N      server: half-open handshakes that put it under\n"
		"                         load, when it checks cookies (max-channels / 2,\n"
		"                         at least 64)\n"
		"\n"
		"Template (stateless mode, a DPDK port from the EAL arguments):\n"
		"      --tx-port N        the port to send on\n"
		"      --queues Q         transmit queues, one worker lcore each (1)\n"
		"      --template KIND    data (a checksum-mode channel packet), chki1 (a\n"
		"                         spoofed checksum-mode handshake), seci1 (a spoofed\n"
		"                         secure-mode handshake), garbage, truncated (data)\n"
		"      --pcap FILE        replay the frames of a capture instead\n"
		"  -n, --size BYTES       UDP payload of generated data packets (64)\n"
		"  -r, --rate PPS         packets per second over all queues (line rate)\n"
		"  -N, --count N          packets in all (default: --time, 5 s)\n"
		"      --src ADDR:PORT    source of generated packets (198.18.0.1:40000)\n"
		"      --dst ADDR:PORT    destination (198.19.0.1:4433)\n"
		"      --vary-addrs N     source addresses cycled per packet (65536)\n"
		"      --vary-ports N     source ports cycled per packet (1)\n"
		"\n"
		"Output:\n"
		"  -j, --json             the result as one JSON object (no per-second lines)\n"
		"  -q, --quiet            no per-second lines\n"
		"  -T, --timeout SECONDS  give up after this long (default: time + 30 s, or 120)\n"
		"  -h, --help             this help\n"
		"\n"
		"Exit status: 0 success; 1 a channel, a stream or a byte failed; 2 bad\n"
		"arguments; 3 setup failed (EAL, memory, socket, port).\n");
}

#define bad(...) tool_usage_error("sst-gen", __VA_ARGS__)

/* The library's suite names, and "chacha20" as the other tools spell it. */
static int
parse_armor(const char *s, struct gen_conf *c)
{
	int suite = sst_crypto_suite_parse(strcmp(s, "chacha20") == 0 ? "chacha20poly1305" : s);

	if (suite <= SST_CRYPTO_NULL)
		return -1;
	c->armor = (enum sst_crypto_suite)suite;
	c->armor_name = sst_crypto_suite_name(c->armor);
	return 0;
}

static int
port_option(const char *name, const char *arg, struct gen_conf *c)
{
	return tool_port_option("sst-gen", name, arg, &c->port) < 0 ? TOOL_EXIT_ARGS : 0;
}

struct given {
	bool udp, src, dst, time, profile, wl;
	bool workload; /**< --workload, --datagrams, --dgram-rate */
	const char *udp_text, *src_text, *dst_text, *profile_path;
};

static int
parse_u32(const char *name, const char *arg, uint64_t min, uint64_t max, uint32_t *out)
{
	uint64_t v;

	if (tool_parse_u64(arg, min, max, &v) < 0)
		return bad("--%s '%s': want %llu to %llu", name, arg, (unsigned long long)min,
			(unsigned long long)max);
	*out = (uint32_t)v;
	return 0;
}

static int
parse_option(int opt, const char *arg, struct gen_conf *c, struct given *g)
{
	struct gen_workload *w = &c->wl[0];
	double d;

	switch (opt) {
	case 'u':
		g->udp = true;
		g->udp_text = arg;
		return 0;
	case 'l':
		c->loopback = true;
		return 0;
	case 'c':
		return parse_u32("channels", arg, 1, GEN_CHANNELS_MAX, &c->channels);
	case 'm':
		g->wl = true;
		return parse_u32("streams", arg, 1, 1u << 30, &w->streams);
	case OPT_CONCURRENT:
		g->wl = true;
		return parse_u32("concurrent", arg, 1, 1024, &w->concurrent);
	case 'R':
	case 'S':
		g->wl = true;
		if (gen_dist_parse(arg, opt == 'R' ? &w->request : &w->response) < 0)
			return bad("'%s': want N, uniform:A-B, exp:MEAN or pareto:MIN,SHAPE", arg);
		return 0;
	case OPT_THINK:
		g->wl = true;
		if (tool_parse_double(arg, 0, 3600000, &d) < 0)
			return bad("--think '%s': want milliseconds", arg);
		w->think_ns = (uint64_t)(d * 1e6);
		return 0;
	case OPT_CHANNEL_RATE:
	case OPT_STREAM_RATE:
		if (tool_parse_double(arg, 0.001, 1e9, &d) < 0)
			return bad("'%s': want a rate per second", arg);
		*(opt == OPT_CHANNEL_RATE ? &c->channel_rate : &c->stream_rate) = d;
		return 0;
	case 't':
		if (tool_parse_double(arg, 0.001, 86400, &d) < 0)
			return bad("--time '%s': want seconds", arg);
		c->time_ns = (uint64_t)(d * 1e9);
		g->time = true;
		return 0;
	case 'T':
		if (tool_parse_double(arg, 0.1, 86400, &d) < 0)
			return bad("--timeout '%s': want seconds", arg);
		c->timeout_ns = (uint64_t)(d * 1e9);
		return 0;
	case OPT_SST_PERF:
		c->sst_perf = true;
		return 0;
	case 'e':
		c->echo = true;
		return 0;
	case OPT_DST:
		g->dst = true;
		g->dst_text = arg;
		return 0;
	case 's':
		g->src = true;
		g->src_text = arg;
		return 0;
	case OPT_SRC_ADDRS:
		return parse_u32("src-addrs", arg, 1, 1u << 24, &c->src_addrs);
	case OPT_MAX_CHANNELS:
		return parse_u32("max-channels", arg, 16, 1000000, &c->max_channels);
	case OPT_SRC_PORTS:
		return parse_u32("src-ports", arg, 1, 65535, &c->src_ports);
	case OPT_PROFILE:
		g->profile = true;
		g->profile_path = arg;
		return 0;
	case OPT_ATTACK:
		if (strcmp(arg, "optimistic-ack") == 0)
			c->attack = GEN_ATTACK_OPTIMISTIC_ACK;
		else if (strcmp(arg, "stream-slots") == 0)
			c->attack = GEN_ATTACK_STREAM_SLOTS;
		else if (strcmp(arg, "cookie-replay") == 0)
			c->attack = GEN_ATTACK_COOKIE_REPLAY;
		else if (strcmp(arg, "cookie-expiry") == 0)
			c->attack = GEN_ATTACK_COOKIE_EXPIRY;
		else
			return bad("--attack '%s': want optimistic-ack, stream-slots, "
				   "cookie-replay or cookie-expiry",
				arg);
		return 0;
	case OPT_MAX_STREAMS:
		return parse_u32("max-streams", arg, 64, 1u << 24, &c->max_streams);
	case OPT_REPLAY_AFTER:
	case OPT_COOKIE_PERIOD:
		if (tool_parse_double(arg, 1, 3600000, &d) < 0)
			return bad("--%s '%s': want milliseconds",
				opt == OPT_REPLAY_AFTER ? "replay-after" : "cookie-period", arg);
		*(opt == OPT_REPLAY_AFTER ? &c->replay_after_ns : &c->cookie_period_ns) =
			(uint64_t)(d * 1e6);
		return 0;
	case OPT_LOAD_HIGH:
		return parse_u32("load-high", arg, 1, 1000000, &c->load_high);
	case OPT_WORKERS:
		return parse_u32("workers", arg, 1, SST_WORKERS_MAX, &c->workers);
	case OPT_WORKLOAD:
		g->workload = true;
		if (strcmp(arg, "rr") == 0)
			w->kind = GEN_WL_RR;
		else if (strcmp(arg, "bulk") == 0)
			w->kind = GEN_WL_BULK;
		else if (strcmp(arg, "datagram") == 0)
			w->kind = GEN_WL_DATAGRAM;
		else
			return bad("--workload '%s': want rr, bulk or datagram", arg);
		return 0;
	case OPT_DATAGRAMS:
		g->workload = true;
		return tool_parse_u64(arg, 1, 1ull << 40, &w->datagrams) < 0
			       ? bad("--datagrams '%s': want a count", arg)
			       : 0;
	case OPT_CORRUPT:
		return parse_u32("corrupt", arg, 1, UINT32_MAX, &c->corrupt_every);
	case OPT_HOLD:
		c->hold = true;
		return 0;
	case OPT_DGRAM_RATE:
		g->workload = true;
		if (tool_parse_double(arg, 0.001, 1e9, &w->dgram_rate) < 0)
			return bad("--dgram-rate '%s': want datagrams per second", arg);
		return 0;
	case OPT_ACK_JUMP:
		return parse_u32("ack-jump", arg, 0, 1u << 20, &c->ack_jump);
	case OPT_SEED:
		return tool_parse_u64(arg, 0, UINT64_MAX, &c->seed) < 0
			       ? bad("--seed '%s': want a number", arg)
			       : 0;
	case 'a':
		return parse_armor(arg, c) < 0
			       ? bad("--armor '%s': want chk32, aes128gcm or chacha20", arg)
			       : 0;
	case OPT_SERVICE:
		c->service = arg;
		return 0;
	case OPT_PROTOCOL:
		c->protocol = arg;
		return 0;
	case 'p':
		return port_option("port", arg, c);
	case 'I':
		return port_option("ip", arg, c);
	case 'G':
		return port_option("gateway", arg, c);
	case OPT_MBUFS:
		return parse_u32("mbufs", arg, 1024, 1u << 22, &c->mbufs);
	case OPT_TX_PORT: {
		uint32_t v = 0;
		int rc = parse_u32("tx-port", arg, 0, 1023, &v);

		c->tx_port = (uint16_t)v;
		return rc;
	}
	case OPT_QUEUES:
		return parse_u32("queues", arg, 1, 64, &c->queues);
	case OPT_TEMPLATE:
		c->template = arg;
		return 0;
	case OPT_PCAP:
		c->pcap = arg;
		return 0;
	case 'n':
		return parse_u32("size", arg, 0, 1400, &c->pkt_size);
	case 'r':
		return tool_parse_u64(arg, 1, 1ull << 40, &c->pps) < 0
			       ? bad("--rate '%s': want packets per second", arg)
			       : 0;
	case 'N':
		return tool_parse_u64(arg, 1, UINT64_MAX, &c->count) < 0
			       ? bad("--count '%s': want a packet count", arg)
			       : 0;
	case OPT_VARY_ADDRS:
		return parse_u32("vary-addrs", arg, 1, 1u << 24, &c->vary_addrs);
	case OPT_VARY_PORTS:
		return parse_u32("vary-ports", arg, 1, 65535, &c->vary_ports);
	case 'j':
		c->json = true;
		return 0;
	case 'q':
		c->quiet = true;
		return 0;
	default:
		return TOOL_EXIT_ARGS;
	}
}

static int
check_client(struct gen_conf *c, const struct given *g)
{
	char err[256];

	if (c->loopback + g->udp != 1)
		return bad("%s", "client: say where: --udp HOST:PORT, or --loopback");
	if (g->udp &&
		tool_parse_endpoint(g->udp_text, false, false, &c->server, err, sizeof(err)) < 0)
		return bad("--udp %s", err);
	if (c->loopback)
		c->server.addr.family = SST_NET_IPV4;
	if (g->src &&
		tool_parse_endpoint(g->src_text, false, true, &c->local, err, sizeof(err)) < 0 &&
		tool_parse_endpoint(g->src_text, true, true, &c->local, err, sizeof(err)) < 0)
		return bad("--src %s", err);
	if (c->src_addrs != 0 && !g->src)
		return bad("%s", "--src-addrs goes with --src ADDR");
	if (g->src && c->src_addrs == 0)
		c->src_addrs = 1;
	if (c->src_ports != 0 && c->local.port == 0)
		return bad("%s", "--src-ports goes with --src ADDR:PORT (the first port)");
	if (c->src_ports != 0 && (uint32_t)c->local.port + c->src_ports > 65536)
		return bad("%s", "--src-ports: the range passes port 65535");
	if (c->port.set) {
		/* One worker on the port speaks from every source endpoint: its
		 * address range starts at its own address. */
		if (c->loopback || c->port.ip.family != SST_NET_IPV4 || c->src_ports == 0 ||
			c->local.addr.family != SST_NET_IPV4 ||
			memcmp(c->local.addr.bytes, c->port.ip.bytes, 4) != 0)
			return bad("%s", "client --port: IPv4, --ip ADDR/LEN, --src ADDR:PORT "
					 "(the same ADDR) and --src-ports N");
		if ((uint64_t)c->src_addrs * c->src_ports < c->channels)
			return bad("%s", "client --port: a source endpoint per channel "
					 "(--src-addrs x --src-ports >= --channels)");
	}
	if (c->workers > 1 && !c->port.set)
		return bad("%s", "--workers N goes with --port (over kernel UDP each client "
				 "channel has a worker of its own)");
	if (c->attack != GEN_ATTACK_NONE && c->workers > 1)
		return bad("%s",
			"--attack: one worker (its counters are the client's, not a shard's)");
	if ((c->attack == GEN_ATTACK_COOKIE_REPLAY || c->attack == GEN_ATTACK_COOKIE_EXPIRY) &&
		c->port.set)
		return bad("%s", "--attack cookie-replay, cookie-expiry: kernel UDP (not --port)");
	if (c->attack == GEN_ATTACK_COOKIE_EXPIRY &&
		(c->armor == SST_CRYPTO_CHK32 || c->replay_after_ns == 0))
		return bad("%s",
			"--attack cookie-expiry: secure mode (--armor) and --replay-after MS");
	if (g->profile && g->wl)
		return bad("%s", "--profile replaces --streams/--request/--response/--think");
	if (g->workload && (g->profile || c->echo || c->sst_perf || c->attack != GEN_ATTACK_NONE) &&
		c->wl[0].kind != GEN_WL_RR)
		return bad("%s", "--workload bulk or datagram: against an sst-gen server, "
				 "without --profile, --echo, --sst-perf or --attack");
	if (g->profile && gen_profile_load(g->profile_path, c) < 0)
		return TOOL_EXIT_ARGS;
	if (g->profile && (c->echo || c->sst_perf || c->attack != GEN_ATTACK_NONE))
		for (uint32_t i = 0; i < c->nwl; i++)
			if (c->wl[i].kind != GEN_WL_RR)
				return bad("%s", "a profile's bulk and datagram workloads: against "
						 "an sst-gen server, without --echo, --sst-perf "
						 "or --attack");
	for (uint32_t i = 0; i < c->nwl; i++)
		if (c->echo && c->wl[i].response.kind != GEN_FIXED)
			return bad("%s", "--echo: the response is the request (drop --response)");
	if (c->sst_perf) {
		uint32_t req, resp;

		if (c->echo || c->loopback || c->attack != GEN_ATTACK_NONE)
			return bad("%s", "--sst-perf: not with --echo, --loopback or --attack");
		if (gen_perf_check_conf(c, &req, &resp) < 0)
			return bad("%s", "--sst-perf: one fixed --request and --response size "
					 "(an sst-perf test has one of each)");
		c->service = PERF_SERVICE;
		c->protocol = PERF_PROTO_DATA;
	}
	if (c->timeout_ns == 0)
		c->timeout_ns = c->time_ns != 0 ? c->time_ns + 30 * SST_NSEC_PER_SEC
						: 120 * SST_NSEC_PER_SEC;
	return 0;
}

static int
check_conf(struct gen_conf *c, const struct given *g)
{
	char err[256];

	if (c->hold && c->mode != GEN_MODE_CLIENT)
		return bad("%s", "--hold is for the client");
	switch (c->mode) {
	case GEN_MODE_CLIENT:
		return check_client(c, g);
	case GEN_MODE_SERVER:
		if (c->workers > 1 && !c->port.set)
			return bad("%s", "server --workers N goes with --port");
		if (!g->udp)
			return bad("%s", "server: say where: --udp [ADDR:]PORT");
		if (tool_parse_endpoint(g->udp_text, true, true, &c->local, err, sizeof(err)) < 0)
			return bad("--udp %s", err);
		return 0;
	default:
		if (c->workers != 0)
			return bad("%s", "template: --queues Q (not --workers)");
		if (g->src && tool_parse_endpoint(
				      g->src_text, false, true, &c->tmpl_src, err, sizeof(err)) < 0)
			return bad("--src %s", err);
		if (g->dst && tool_parse_endpoint(g->dst_text, false, false, &c->tmpl_dst, err,
				      sizeof(err)) < 0)
			return bad("--dst %s", err);
		if (!g->src)
			tool_parse_endpoint(
				"198.18.0.1:40000", false, false, &c->tmpl_src, err, sizeof(err));
		if (!g->dst)
			tool_parse_endpoint(
				"198.19.0.1:4433", false, false, &c->tmpl_dst, err, sizeof(err));
		if (c->tmpl_src.addr.family != SST_NET_IPV4 ||
			c->tmpl_dst.addr.family != SST_NET_IPV4)
			return bad("%s", "template: IPv4 --src and --dst");
		if (strcmp(c->template, "data") != 0 && strcmp(c->template, "chki1") != 0 &&
			strcmp(c->template, "seci1") != 0 && strcmp(c->template, "garbage") != 0 &&
			strcmp(c->template, "truncated") != 0)
			return bad("--template '%s': want data, chki1, seci1, garbage or truncated",
				c->template);
		if (c->count == 0 && c->time_ns == 0)
			c->time_ns = 5 * SST_NSEC_PER_SEC;
		return 0;
	}
}

static void
defaults(struct gen_conf *c)
{
	struct gen_workload *w = &c->wl[0];

	c->channels = 1;
	c->armor = SST_CRYPTO_CHK32;
	c->armor_name = "chk32";
	c->service = GEN_SERVICE;
	c->protocol = GEN_PROTOCOL;
	c->seed = 1;
	c->queues = 1;
	c->pkt_size = 64;
	c->template = "data";
	c->vary_addrs = 65536;
	c->vary_ports = 1;
	c->nwl = 1;
	snprintf(w->name, sizeof(w->name), "default");
	w->weight = 1;
	w->streams = 10;
	w->concurrent = 1;
	w->datagrams = 100;
	gen_dist_parse("64", &w->request);
	gen_dist_parse("64", &w->response);
}

static int
parse_args(int argc, char **argv, void *conf)
{
	static const struct option opts[] = {
		{"udp", required_argument, NULL, 'u'},
		{"loopback", no_argument, NULL, 'l'},
		{"channels", required_argument, NULL, 'c'},
		{"streams", required_argument, NULL, 'm'},
		{"concurrent", required_argument, NULL, OPT_CONCURRENT},
		{"request", required_argument, NULL, 'R'},
		{"response", required_argument, NULL, 'S'},
		{"think", required_argument, NULL, OPT_THINK},
		{"channel-rate", required_argument, NULL, OPT_CHANNEL_RATE},
		{"stream-rate", required_argument, NULL, OPT_STREAM_RATE},
		{"time", required_argument, NULL, 't'},
		{"timeout", required_argument, NULL, 'T'},
		{"echo", no_argument, NULL, 'e'},
		{"sst-perf", no_argument, NULL, OPT_SST_PERF},
		{"src", required_argument, NULL, 's'},
		{"src-addrs", required_argument, NULL, OPT_SRC_ADDRS},
		{"src-ports", required_argument, NULL, OPT_SRC_PORTS},
		{"max-channels", required_argument, NULL, OPT_MAX_CHANNELS},
		{"dst", required_argument, NULL, OPT_DST},
		{"profile", required_argument, NULL, OPT_PROFILE},
		{"seed", required_argument, NULL, OPT_SEED},
		{"attack", required_argument, NULL, OPT_ATTACK},
		{"ack-jump", required_argument, NULL, OPT_ACK_JUMP},
		{"max-streams", required_argument, NULL, OPT_MAX_STREAMS},
		{"replay-after", required_argument, NULL, OPT_REPLAY_AFTER},
		{"cookie-period", required_argument, NULL, OPT_COOKIE_PERIOD},
		{"load-high", required_argument, NULL, OPT_LOAD_HIGH},
		{"workers", required_argument, NULL, OPT_WORKERS},
		{"workload", required_argument, NULL, OPT_WORKLOAD},
		{"datagrams", required_argument, NULL, OPT_DATAGRAMS},
		{"dgram-rate", required_argument, NULL, OPT_DGRAM_RATE},
		{"corrupt", required_argument, NULL, OPT_CORRUPT},
		{"hold", no_argument, NULL, OPT_HOLD},
		{"armor", required_argument, NULL, 'a'},
		{"service", required_argument, NULL, OPT_SERVICE},
		{"protocol", required_argument, NULL, OPT_PROTOCOL},
		{"port", required_argument, NULL, 'p'},
		{"ip", required_argument, NULL, 'I'},
		{"gateway", required_argument, NULL, 'G'},
		{"mbufs", required_argument, NULL, OPT_MBUFS},
		{"tx-port", required_argument, NULL, OPT_TX_PORT},
		{"queues", required_argument, NULL, OPT_QUEUES},
		{"template", required_argument, NULL, OPT_TEMPLATE},
		{"pcap", required_argument, NULL, OPT_PCAP},
		{"size", required_argument, NULL, 'n'},
		{"rate", required_argument, NULL, 'r'},
		{"count", required_argument, NULL, 'N'},
		{"vary-addrs", required_argument, NULL, OPT_VARY_ADDRS},
		{"vary-ports", required_argument, NULL, OPT_VARY_PORTS},
		{"json", no_argument, NULL, 'j'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct gen_conf *c = conf;
	struct given g = {0};
	int opt, rc;

	defaults(c);
	/* The mode comes first (as in "git commit"), or --help alone. */
	if (argc >= 2 && strcmp(argv[1], "client") == 0)
		c->mode = GEN_MODE_CLIENT;
	else if (argc >= 2 && strcmp(argv[1], "server") == 0)
		c->mode = GEN_MODE_SERVER;
	else if (argc >= 2 && strcmp(argv[1], "template") == 0)
		c->mode = GEN_MODE_TEMPLATE;
	else if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		exit(0);
	} else
		return bad("%s", "want a mode first: client, server or template");
	argc--;
	argv++;
	while ((opt = getopt_long(argc, argv, "u:lc:m:R:S:t:T:es:a:n:r:N:jqh", opts, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			exit(0);
		}
		if (opt == '?')
			return bad("%s", "unknown option or missing value");
		rc = parse_option(opt, optarg, c, &g);
		if (rc != 0)
			return rc;
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	return check_conf(c, &g);
}

/* EAL memory: the pools, and per channel its worker's tables (measured:
 * docs/tools/sst-gen.md "Scale"), with a margin. A server asks for less:
 * it idles most of its life, and the EAL writes 12 MB of page records per
 * GB asked for at start (issue 14: an idle tool under 32 MB); 320 MB holds
 * its reserved stream tables (about 112 MB for 2^20 streams) and the
 * 1,000-channel runs measured (50 kB a channel). */
static unsigned int
eal_memory_mb(const void *conf)
{
	const struct gen_conf *c = conf;
	uint64_t mb = c->mode == GEN_MODE_SERVER ? 320 : 512;

	if (c->mode == GEN_MODE_CLIENT)
		mb += (uint64_t)c->channels * (c->loopback ? 2 : 1) / 4;
	/* A server raised past its default channel count: about 10 kB each
	 * (the memif runs of docs/tools/sst-gen.md, "Port mode"). */
	if (c->mode == GEN_MODE_SERVER)
		mb += (uint64_t)c->max_channels / 100;
	return (unsigned int)RTE_MIN(mb, 65536u);
}

int
main(int argc, char **argv)
{
	static struct gen_conf conf;
	const struct tool_start start = {
		.prog = "sst-gen",
		.parse = parse_args,
		.conf = &conf,
		.eal_memory_mb = eal_memory_mb,
	};
	int rc = tool_eal_start(argc, argv, &start);

	if (rc != 0)
		return rc;
	switch (conf.mode) {
	case GEN_MODE_CLIENT:
		rc = gen_client_run(&conf);
		break;
	case GEN_MODE_SERVER:
		rc = gen_server_run(&conf);
		break;
	default:
		rc = gen_template_run(&conf);
		break;
	}
	tool_eal_fini();
	return rc;
}
