/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-perf: an iperf for SST (docs/tools/sst-perf.md). Bulk transfer,
 * request/response transactions each on a new stream, datagrams, many
 * concurrent streams, and priorities changed by the client (prio), in one
 * process over an in-memory link (--loopback) or between two processes over
 * kernel UDP (--udp).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"
#include "perf_prio.h"
#include "tool_events.h"
#include "perf_stp.h"
#include "perf_web.h"
#include "sst_cc_driver.h"
#include "sst_engine.h"
#include "tool_args.h"

enum {
	DEFAULT_TIME_S = 5,
	DEFAULT_DGRAM = 1000,
	DGRAM_MAX = 16 << 20, /* half the default send buffer */
	DEFAULT_STREAMS_N = 10000,
	DEFAULT_RR_BYTES = 64,
	DEFAULT_MBUFS = 32767,
	SERVER_STREAMS = 120000,
	/* Stream buffers each pool starts with; it doubles between passes as
	 * streams need more (a pool made whole costs a page per buffer). */
	INITIAL_STREAM_BUFFERS = 64,
	STREAMS_MAX = 1000000,
	/* Long options without a short form. */
	OPT_PACKET_LIMIT = 256,
	OPT_LEGACY,
	OPT_IDLE_TIMEOUT,
	OPT_CAPTURE,
	OPT_SHIP_CC,
	OPT_CC_POLICY,
	OPT_UNPOLICED,
	OPT_PRIO_AT,
	OPT_STP_TIMEOUT,
	OPT_STP_MUTE,
	OPT_FRAMES,
	OPT_SUBSTREAMS,
	OPT_MAC,
	OPT_EVENT_LOG,
	OPT_TRACE,
	OPT_NO_UDP_OFFLOAD,
	DEFAULT_IDLE_S = 60,
};

static void
usage(FILE *out)
{
	fprintf(out,
		"Usage: sst-perf --loopback [OPTIONS] [MODE]      client and server in this "
		"process\n"
		"       sst-perf --udp HOST:PORT [OPTIONS] [MODE]  client of a server over UDP\n"
		"       sst-perf --server --udp [ADDR:]PORT [OPTIONS]\n"
		"       sst-perf EAL-ARGS -- ...                   DPDK EAL arguments first\n"
		"\n"
		"Measure SST-DPDK: goodput, transactions, latency, retransmissions and CPU cost.\n"
		"\n"
		"Modes:\n"
		"  bulk      stream bytes from client to server (default)\n"
		"  rr        transactions: each opens a new stream, sends --request bytes, reads\n"
		"            --response bytes and the end of the stream\n"
		"  dgram     datagrams of --size bytes on one stream; reports the delivery ratio\n"
		"            and how they travelled (datagram packets or reliable substreams)\n"
		"  streams   open --streams streams at once, one request and response on each,\n"
		"            then close them all\n"
		"  prio      the SST paper's Figure 9: two downloads of --response bytes\n"
		"            (1.5 MB), a third with a high priority at the first --prio-at\n"
		"            time, the second raised above the first at the second; prints\n"
		"            each download's bytes received (CSV, or JSON lines with --json)\n"
		"  web       the SST paper's Figure 8: load the pages of --trace one after the\n"
		"            other, a stream per object, a page's secondary objects all at\n"
		"            once after its primary; prints each page's load time (CSV)\n"
		"\n"
		"Where:\n"
		"  -l, --loopback         both sides in this process, over an in-memory link\n"
		"                         (unlimited rate, no delay unless impaired below)\n"
		"  -u, --udp ENDPOINT     over kernel UDP: the server's HOST:PORT ([ADDR]:PORT "
		"for\n"
		"                         IPv6); with --server, [ADDR:]PORT to listen on\n"
		"      --no-udp-offload   over kernel UDP: datagram by datagram, without the\n"
		"                         kernel's UDP segmentation offloads (GSO, GRO)\n"
		"  -s, --server           serve tests (one at a time) until interrupted\n"
		"      --once             server: exit after one test\n"
		"      --idle-timeout SECONDS  server: abandon a test that brought no packet for\n"
		"                         this long (a client that vanished; default 60)\n"
		"\n"
		"Test:\n"
		"  -t, --time SECONDS     run time (default 5 when no --size or --count bounds "
		"it)\n"
		"  -n, --size BYTES       bulk: bytes to send in all; dgram: bytes per datagram\n"
		"                         (default 1000); K, M, G suffixes are powers of 1024\n"
		"  -c, --count N          rr: transactions; dgram: datagrams; web: pages (all)\n"
		"      --trace FILE       web: the pages, a line each: object sizes in bytes,\n"
		"                         the primary first (perf/web_trace.py writes one)\n"
		"  -P, --streams N        bulk: parallel streams (1); rr: transactions in flight "
		"(1);\n"
		"                         streams: streams open at once (10000, at most 1000000);\n"
		"                         server: most streams at once (120000)\n"
		"      --request BYTES    rr, streams and prio: request size (64)\n"
		"      --response BYTES   rr, streams and prio: response size (64; streams: at\n"
		"                         least 1; prio: 1500000)\n"
		"      --prio-at T3,TSWAP[,STEP]  prio: when the third download starts and\n"
		"                         the swap happens, seconds (5,10); STEP: sample\n"
		"                         interval (0.1)\n"
		"      --verify           send a pattern and check every byte received; any\n"
		"                         mismatch fails the run\n"
		"      --substreams       rr and web: open each transaction as a substream of\n"
		"                         the test's control stream (one Init and one Reply\n"
		"                         packet for a small one) instead of a top-level\n"
		"                         stream, whose service request and reply take a\n"
		"                         packet each way more\n"
		"\n"
		"Stack:\n"
		"  -a, --armor NAME       chk32 (checksum mode, default), aes128gcm or chacha20\n"
		"                         (secure mode with that suite, anonymous client)\n"
		"      --cc NAME          congestion control: newreno (default), cubic, or an\n"
		"                         eBPF module: bpf:FILE.o (JIT), bpfi:FILE.o "
		"(interpreted)\n"
		"      --ship-cc FILE.o   server (the receiver): ask each client to send with\n"
		"                         this eBPF module (STP; shipped when the client lacks\n"
		"                         it); the client's --cc-policy decides\n"
		"      --unpoliced        the --cc module runs without the TCP-friendly policer\n"
		"                         (benchmarks of the module's own cost only)\n"
		"      --stp-timeout SECONDS  how long an STP exchange waits for each message\n"
		"                         before it fails (default 10)\n"
		"      --stp-mute         take STP requests and never answer them (a peer\n"
		"                         that hangs, to test the other side's timeout)\n"
		"      --cc-policy POLICY whose modules this host runs: deny (default),\n"
		"                         allow-all, or pinned:KEYFILE (peers authenticated in\n"
		"                         secure mode with a key listed in KEYFILE, 64 hex\n"
		"                         digits a line)\n"
		"  -w, --workers N        workers per side (1..64; loopback with more than one:\n"
		"                         a net_ring pair, Ethernet frames, no impairments)\n"
		"      --frames           loopback over that net_ring pair with one worker\n"
		"                         too (to compare -w 1 with -w 2 on the same path)\n"
		"      --port N           with --udp: DPDK port N (from the EAL arguments, e.g.\n"
		"                         --vdev=net_af_xdp0,iface=eth0 or net_af_packet0,...)\n"
		"                         instead of kernel UDP, lib/net answering ARP and ping\n"
		"      --ip ADDR/LEN      with --port: our address on it (required)\n"
		"      --gateway ADDR     with --port: the default route\n"
		"      --mac ADDR         with --port: the Ethernet address to use instead of\n"
		"                         the port's (then promiscuous); on net_af_packet, one\n"
		"                         the interface does not hold spares the kernel's stack\n"
		"                         routing every SST frame\n"
		"      --mtu BYTES        largest channel packet (default 1232)\n"
		"      --mbufs N          packet buffers per side (default 32767)\n"
		"      --packet-limit N   replace a channel (new keys, streams moved over) after\n"
		"                         N packets (at least 256; default: what the armor\n"
		"                         allows, 2^24 for aes128gcm)\n"
		"      --legacy           the server (over --udp: this side) poses as the 2007\n"
		"                         prototype: checksum mode, no SST-DPDK extensions, and\n"
		"                         its quirks (a Close on data unseen, acks frozen past\n"
		"                         65,535 packets of a channel)\n"
		"      --capture FILE.pcapng  record the traffic (pcapng; sst-dump, tshark and\n"
		"                         Wireshark read it): on the loopback each side's, to\n"
		"                         FILE-client.pcapng and FILE-server.pcapng; with\n"
		"                         several workers one file each, FILE-w<i>.pcapng\n"
		"                         (FILE-client-w<i>.pcapng...). A name without\n"
		"                         .pcapng is a prefix: PREFIX-server-w<i>.pcapng and\n"
		"                         PREFIX-client-w<i>.pcapng\n"
		"      --event-log FILE   write each channel's and stream's events (RTT samples,\n"
		"                         window changes, losses, channels up, down, replaced,\n"
		"                         streams connected, accepted, closed) to FILE as JSON\n"
		"                         lines; scripts/plot-events.py plots them\n"
		"\n"
		"Loopback link impairments (each direction):\n"
		"      --rate MBIT        link rate in Mbit/s (default unlimited)\n"
		"      --delay MS         one-way delay in milliseconds (default 0)\n"
		"      --loss PCT         packet loss in percent\n"
		"      --reorder PCT      packets held back 1 ms (later ones overtake them)\n"
		"      --dup PCT          packets delivered twice\n"
		"      --queue PKTS       bottleneck queue with --rate (default 1000)\n"
		"      --seed N           seed of the link's random choices (default 1)\n"
		"\n"
		"Output:\n"
		"  -j, --json             the result as one JSON object (no progress lines)\n"
		"  -q, --quiet            no progress lines (stderr, one per second)\n"
		"      --timeout SECONDS  give up after this long (default: run time + 30 s, or "
		"300 s)\n"
		"  -h, --help             this help\n"
		"\n"
		"The result table (docs/tools/sst-perf.md explains each line): duration, payload\n"
		"delivered, goodput, transactions/s, latency p50/p99/p999, retransmits, packets,\n"
		"cycles per byte and per packet (TSC ticks of the polling threads of both sides),\n"
		"verify errors and failed streams.\n"
		"\n"
		"Without EAL arguments the EAL runs without hugepages or NICs (--no-huge\n"
		"--no-pci, a file prefix of its own), so any number of runs can share a host.\n"
		"\n"
		"Exit status: 0 success; 1 the test failed or --verify found errors; 2 bad\n"
		"arguments; 3 setup failed (EAL, memory, socket).\n");
}

#define bad(...) tool_usage_error("sst-perf", __VA_ARGS__)

struct given {
	bool time, size, count, streams, request, response, udp, impair, armor, idle, prio_at;
	const char *udp_text;
	const char *trace;
};

static int
parse_armor(const char *s, struct perf_conf *c)
{
	static const struct {
		const char *name;
		enum sst_crypto_suite suite;
	} armors[] = {
		{"chk32", SST_CRYPTO_CHK32},
		{"aes128gcm", SST_CRYPTO_AES128GCM},
		{"chacha20", SST_CRYPTO_CHACHA20POLY1305},
	};

	for (size_t i = 0; i < RTE_DIM(armors); i++)
		if (strcmp(s, armors[i].name) == 0) {
			c->armor = armors[i].suite;
			c->armor_name = armors[i].name;
			return 0;
		}
	return -1;
}

static int
parse_option(int opt, const char *arg, struct perf_conf *c, struct given *g)
{
	uint64_t v;
	double d;

	switch (opt) {
	case 'l':
		c->loopback = true;
		return 0;
	case 'u':
		g->udp = true;
		g->udp_text = arg;
		return 0;
	case 'p':
	case 'I':
	case 'G':
	case OPT_MAC:
		return tool_port_option("sst-perf",
			       opt == 'p'	? "port"
			       : opt == 'I'	? "ip"
			       : opt == OPT_MAC ? "mac"
						: "gateway",
			       arg, &c->port) < 0
			       ? TOOL_EXIT_ARGS
			       : 0;
	case 's':
		c->server = true;
		return 0;
	case 'O':
		c->once = true;
		return 0;
	case OPT_TRACE:
		g->trace = arg;
		return 0;
	case OPT_PRIO_AT:
		if (perf_prio_parse(c, arg) < 0)
			return bad("--prio-at '%s': want THIRD,SWAP[,STEP] in seconds", arg);
		g->prio_at = true;
		return 0;
	case 't':
		if (tool_parse_double(arg, 0.001, 86400, &d) < 0)
			return bad("--time '%s': want seconds, 0.001 to 86400", arg);
		c->time_ns = (uint64_t)(d * 1e9);
		g->time = true;
		return 0;
	case 'n':
		if (tool_parse_u64(arg, 1, UINT64_MAX, &c->size) < 0)
			return bad("--size '%s': want a positive byte count", arg);
		g->size = true;
		return 0;
	case 'c':
		if (tool_parse_u64(arg, 1, UINT64_MAX, &c->count) < 0)
			return bad("--count '%s': want a positive number", arg);
		g->count = true;
		return 0;
	case 'P':
		if (tool_parse_u64(arg, 1, STREAMS_MAX, &v) < 0)
			return bad("--streams '%s': want 1 to 1000000", arg);
		c->streams = (uint32_t)v;
		g->streams = true;
		return 0;
	case 'R':
	case 'S':
		if (tool_parse_u64(arg, 0, 1u << 30, &v) < 0)
			return bad("'%s': want a byte count up to 1G", arg);
		if (opt == 'R')
			c->request = (uint32_t)v;
		else
			c->response = (uint32_t)v;
		*(opt == 'R' ? &g->request : &g->response) = true;
		return 0;
	case 'V':
		c->verify = true;
		return 0;
	case 'a':
		if (parse_armor(arg, c) < 0)
			return bad("--armor '%s': want chk32, aes128gcm or chacha20", arg);
		return 0;
	case 'C': {
		char why[256];

		/* Loads a bpf: module now, so that channels find it loaded. */
		if (sst_cc_resolve(arg, why, sizeof(why)) == NULL)
			return bad("--cc '%s': %s (want newreno, cubic, bpf:FILE.o or bpfi:FILE.o)",
				arg, why);
		c->cc = arg;
		return 0;
	}
	case 'w':
		if (tool_parse_u64(arg, 1, 64, &v) < 0)
			return bad("--workers '%s': want 1..64", arg);
		c->workers = (uint32_t)v;
		return 0;
	case OPT_FRAMES:
		c->frames = true;
		return 0;
	case OPT_SUBSTREAMS:
		c->substreams = true;
		return 0;
	case 'M':
		if (tool_parse_u64(arg, 576, 9000, &v) < 0)
			return bad("--mtu '%s': want 576 to 9000", arg);
		c->mtu = (uint32_t)v;
		return 0;
	case 'B':
		if (tool_parse_u64(arg, 1024, 1u << 22, &v) < 0)
			return bad("--mbufs '%s': want 1024 to 4M", arg);
		c->mbufs = (uint32_t)v;
		return 0;
	case 'r':
		if (tool_parse_double(arg, 0.001, 1e6, &d) < 0)
			return bad("--rate '%s': want Mbit/s, 0.001 to 1000000", arg);
		c->impair.rate_bps = (uint64_t)(d * 1e6);
		g->impair = true;
		return 0;
	case 'd':
		if (tool_parse_double(arg, 0, 10000, &d) < 0)
			return bad("--delay '%s': want milliseconds, 0 to 10000", arg);
		c->impair.delay_ns = (uint64_t)(d * 1e6);
		g->impair = true;
		return 0;
	case 'L':
	case 'o':
	case 'D':
		if (tool_parse_percent(arg, &d) < 0)
			return bad("'%s': want a percentage, 0 to 100", arg);
		*(opt == 'L'	     ? &c->impair.loss
			: opt == 'o' ? &c->impair.reorder
				     : &c->impair.duplicate) = d;
		g->impair = true;
		return 0;
	case 'Q':
		if (tool_parse_u64(arg, 1, 1u << 20, &v) < 0)
			return bad("--queue '%s': want 1 to 1M packets", arg);
		c->impair.queue_pkts = (uint32_t)v;
		g->impair = true;
		return 0;
	case 'e':
		if (tool_parse_u64(arg, 0, UINT64_MAX, &c->impair.seed) < 0)
			return bad("--seed '%s': want a number", arg);
		return 0;
	case OPT_PACKET_LIMIT:
		if (tool_parse_u64(arg, 256, UINT64_MAX, &c->packet_limit) < 0)
			return bad("--packet-limit '%s': want a packet count, at least 256", arg);
		return 0;
	case OPT_LEGACY:
		c->legacy = true;
		return 0;
	case OPT_CAPTURE:
		if (*arg == '\0')
			return bad("%s", "--capture: want a file prefix");
		c->capture = arg;
		return 0;
	case OPT_EVENT_LOG:
		if (*arg == '\0')
			return bad("%s", "--event-log: want a file");
		c->event_log = arg;
		return 0;
	case OPT_SHIP_CC:
		return perf_stp_parse_ship(c, arg) == 0 ? 0 : TOOL_EXIT_ARGS;
	case OPT_UNPOLICED:
		c->unpoliced = true;
		return 0;
	case OPT_NO_UDP_OFFLOAD:
		c->udp_no_offload = true;
		return 0;
	case OPT_STP_TIMEOUT:
		if (tool_parse_double(arg, 0.001, 86400, &d) < 0)
			return bad("--stp-timeout '%s': want seconds, 0.001 to 86400", arg);
		c->stp_timeout_ns = (uint64_t)(d * 1e9);
		return 0;
	case OPT_STP_MUTE:
		c->stp_mute = true;
		return 0;
	case OPT_CC_POLICY:
		if (perf_stp_parse_policy(c, arg) != 0)
			return bad("--cc-policy '%s': want deny, allow-all or pinned:KEYFILE", arg);
		return 0;
	case OPT_IDLE_TIMEOUT:
		if (tool_parse_double(arg, 0.1, 86400, &d) < 0)
			return bad("--idle-timeout '%s': want seconds, 0.1 to 86400", arg);
		c->idle_ns = (uint64_t)(d * 1e9);
		g->idle = true;
		return 0;
	case 'j':
		c->json = true;
		return 0;
	case 'q':
		c->quiet = true;
		return 0;
	case 'T':
		if (tool_parse_double(arg, 0.1, 86400, &d) < 0)
			return bad("--timeout '%s': want seconds", arg);
		c->timeout_ns = (uint64_t)(d * 1e9);
		return 0;
	default:
		return TOOL_EXIT_ARGS;
	}
}

/* Combinations and defaults that depend on the mode. */
static int
check_conf(struct perf_conf *c, const struct given *g)
{
	char err[256];

	if (c->port.set && c->loopback) {
		fprintf(stderr, "sst-perf: --port goes with --udp (the other side's endpoint), not "
				"--loopback\n");
		return TOOL_EXIT_ARGS;
	}
	if (c->loopback + g->udp != 1)
		return bad("%s", "say where: --loopback, or --udp HOST:PORT");
	if (c->ship_code != NULL && !c->server && !c->loopback)
		return bad("%s", "--ship-cc: the receiver asks, so a server (or --loopback)");
	if (c->unpoliced && perf_stp_unpolice(c->cc) != 0)
		return bad("%s", "--unpoliced goes with --cc bpf:FILE.o or bpfi:FILE.o");
	if (c->server && c->loopback)
		return bad("%s", "--server goes with --udp (--loopback runs both sides)");
	if (g->impair && !c->loopback)
		return bad("%s", "link impairments (--rate, --delay, --loss, ...) need --loopback");
	if (c->once && !c->server)
		return bad("%s", "--once is for --server");
	if (g->idle && !c->server)
		return bad("%s", "--idle-timeout is for --server");
	if (c->legacy && c->armor != SST_CRYPTO_CHK32)
		return bad("%s",
			"--legacy: the 2007 prototype has checksum mode only (--armor chk32)");
	if (g->udp && tool_parse_endpoint(g->udp_text, c->server, c->server,
			      c->server ? &c->local : &c->peer, err, sizeof(err)) < 0)
		return bad("--udp %s", err);
	if (c->server) {
		if (g->time || g->size || g->count || g->request || g->response || c->verify ||
			g->trace != NULL || c->substreams)
			return bad("%s", "a server takes the test's parameters from each client");
		if (!g->streams)
			c->streams = SERVER_STREAMS;
		return 0;
	}
	if (g->time && (g->count || (g->size && c->mode == PERF_BULK)))
		return bad(
			"%s", "--time and --count (or bulk --size) both bound the run: pick one");
	switch (c->mode) {
	case PERF_BULK:
		if (g->count || g->request || g->response)
			return bad("%s",
				"bulk takes --size or --time, not --count/--request/--response");
		if (g->size && c->size < c->streams)
			return bad("%s", "bulk --size must be at least one byte per stream");
		break;
	case PERF_RR:
		if (g->size)
			return bad("%s", "rr takes --request and --response, not --size");
		if (!g->request)
			c->request = DEFAULT_RR_BYTES;
		if (!g->response)
			c->response = DEFAULT_RR_BYTES;
		break;
	case PERF_DGRAM:
		if (g->streams || g->request || g->response)
			return bad("%s", "dgram takes --size and --count or --time");
		if (!g->size)
			c->size = DEFAULT_DGRAM;
		if (c->size > DGRAM_MAX)
			return bad("%s", "dgram --size: at most 16M bytes");
		break;
	case PERF_STREAMS:
		if (g->size || g->count || g->time)
			return bad("%s", "streams takes --streams, --request and --response");
		if (!g->streams)
			c->streams = DEFAULT_STREAMS_N;
		if (!g->request)
			c->request = DEFAULT_RR_BYTES;
		if (!g->response)
			c->response = DEFAULT_RR_BYTES;
		if (c->response == 0)
			return bad("%s", "streams --response: at least 1 byte (it is the answer)");
		break;
	case PERF_PRIO:
		if (g->size || g->count || g->time || g->streams)
			return bad("%s", "prio takes --request, --response and --prio-at");
		if (!g->request)
			c->request = DEFAULT_RR_BYTES;
		perf_prio_defaults(c, g->prio_at);
		break;
	case PERF_WEB:
		if (g->size || g->time || g->streams || g->response || g->trace == NULL)
			return bad("%s", "web takes --trace, and --count (pages) and --request");
		if (!g->request)
			c->request = DEFAULT_RR_BYTES;
		if (c->request < 8)
			return bad("%s", "web --request: at least 8 bytes (they carry the length)");
		if (c->count > UINT32_MAX || perf_web_load(c, g->trace, (uint32_t)c->count) < 0)
			return TOOL_EXIT_ARGS;
		c->count = 0;
		if (c->timeout_ns == 0)
			c->timeout_ns = 3600 * SST_NSEC_PER_SEC;
		break;
	default:
		break;
	}
	if (g->trace != NULL && c->mode != PERF_WEB)
		return bad("%s", "--trace is for web");
	if (g->prio_at && c->mode != PERF_PRIO)
		return bad("%s", "--prio-at is for prio");
	if (c->substreams && !perf_mode_transactions(c->mode))
		return bad("%s", "--substreams is for rr and web");
	if (!g->time && !g->count && !(g->size && c->mode == PERF_BULK) &&
		c->mode != PERF_STREAMS && c->mode != PERF_PRIO && c->mode != PERF_WEB)
		c->time_ns = DEFAULT_TIME_S * SST_NSEC_PER_SEC;
	if (c->timeout_ns == 0)
		c->timeout_ns = c->time_ns != 0 ? c->time_ns + 30 * SST_NSEC_PER_SEC
						: 300 * SST_NSEC_PER_SEC;
	return 0;
}

static int
parse_args(int argc, char **argv, void *conf)
{
	static const struct option opts[] = {
		{"loopback", no_argument, NULL, 'l'},
		{"udp", required_argument, NULL, 'u'},
		{"server", no_argument, NULL, 's'},
		{"once", no_argument, NULL, 'O'},
		{"time", required_argument, NULL, 't'},
		{"size", required_argument, NULL, 'n'},
		{"count", required_argument, NULL, 'c'},
		{"streams", required_argument, NULL, 'P'},
		{"request", required_argument, NULL, 'R'},
		{"response", required_argument, NULL, 'S'},
		{"verify", no_argument, NULL, 'V'},
		{"armor", required_argument, NULL, 'a'},
		{"cc", required_argument, NULL, 'C'},
		{"workers", required_argument, NULL, 'w'},
		{"frames", no_argument, NULL, OPT_FRAMES},
		{"substreams", no_argument, NULL, OPT_SUBSTREAMS},
		{"port", required_argument, NULL, 'p'},
		{"ip", required_argument, NULL, 'I'},
		{"gateway", required_argument, NULL, 'G'},
		{"mac", required_argument, NULL, OPT_MAC},
		{"mtu", required_argument, NULL, 'M'},
		{"mbufs", required_argument, NULL, 'B'},
		{"packet-limit", required_argument, NULL, OPT_PACKET_LIMIT},
		{"legacy", no_argument, NULL, OPT_LEGACY},
		{"capture", required_argument, NULL, OPT_CAPTURE},
		{"event-log", required_argument, NULL, OPT_EVENT_LOG},
		{"trace", required_argument, NULL, OPT_TRACE},
		{"idle-timeout", required_argument, NULL, OPT_IDLE_TIMEOUT},
		{"ship-cc", required_argument, NULL, OPT_SHIP_CC},
		{"cc-policy", required_argument, NULL, OPT_CC_POLICY},
		{"unpoliced", no_argument, NULL, OPT_UNPOLICED},
		{"no-udp-offload", no_argument, NULL, OPT_NO_UDP_OFFLOAD},
		{"prio-at", required_argument, NULL, OPT_PRIO_AT},
		{"stp-timeout", required_argument, NULL, OPT_STP_TIMEOUT},
		{"stp-mute", no_argument, NULL, OPT_STP_MUTE},
		{"rate", required_argument, NULL, 'r'},
		{"delay", required_argument, NULL, 'd'},
		{"loss", required_argument, NULL, 'L'},
		{"reorder", required_argument, NULL, 'o'},
		{"dup", required_argument, NULL, 'D'},
		{"queue", required_argument, NULL, 'Q'},
		{"seed", required_argument, NULL, 'e'},
		{"json", no_argument, NULL, 'j'},
		{"quiet", no_argument, NULL, 'q'},
		{"timeout", required_argument, NULL, 'T'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct perf_conf *c = conf;
	struct given g = {0};
	int opt, rc;

	c->mode = PERF_BULK;
	c->streams = 1;
	c->armor = SST_CRYPTO_CHK32;
	c->armor_name = "chk32";
	c->impair.seed = 1;
	c->idle_ns = DEFAULT_IDLE_S * SST_NSEC_PER_SEC;
	while ((opt = getopt_long(argc, argv, "lu:st:n:c:P:a:w:jqh", opts, NULL)) != -1) {
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
	if (optind < argc) {
		int m;

		for (m = 0; m < PERF_MODES; m++)
			if (strcmp(argv[optind], perf_mode_names[m]) == 0)
				break;
		if (m == PERF_MODES)
			return bad("unknown mode '%s': want bulk, rr, dgram, streams, prio or web",
				argv[optind]);
		if (c->server)
			return bad("%s", "a server serves every mode: drop the mode");
		c->mode = (enum perf_mode)m;
		if (optind + 1 < argc)
			return bad("unexpected argument '%s'", argv[optind + 1]);
	}
	c->impaired = g.impair;
	return check_conf(c, &g);
}

/*
 * Stream-layer limits for a side that has up to n streams at once. Send and
 * receive buffers are preallocated per stream that uses them, so they are
 * sized to what the mode sends: deep queues for bulk and datagrams, a few
 * mbufs for the small requests and responses of rr and streams (a larger
 * response just waits for room).
 */
static void
host_conf_limits(struct tool_host_conf *hc, const struct perf_conf *c, bool server, uint32_t n)
{
	bool small = c->mode == PERF_RR || c->mode == PERF_STREAMS || c->server;
	uint32_t msg = RTE_MAX(c->request, c->response);
	uint32_t buffers = c->mode == PERF_STREAMS || c->server ? 16384u : n + 64;

	memset(hc, 0, sizeof(*hc));
	hc->armor = c->armor;
	hc->responder = server;
	hc->cc = c->cc;
	hc->workers = c->workers;
	hc->frames = c->frames;
	hc->mbufs = c->mbufs != 0 ? c->mbufs : DEFAULT_MBUFS;
	/* Per-lcore pool caches make each packet's allocation and free a
	 * few loads and stores instead of a ring operation (callgrind, one
	 * worker: -985 instructions an rr transaction, -80 a bulk packet in
	 * the receive path; docs/performance.md). They cost an array for
	 * every possible lcore, written at creation (about 1 MB a pool, 4 MB
	 * in all), which an idle server or a client waiting for its peer
	 * does not spend (tests/system/idle_rss.sh: under 32 MiB). The
	 * loopback, both ends of a benchmark in one process, keeps them. */
	hc->small_pools = !c->loopback && c->workers <= 1;
	hc->mtu = c->mtu;
	hc->udp_no_offload = c->udp_no_offload;
	hc->packet_limit = c->packet_limit;
	/* Over --udp this side is the legacy one; on the loopback, the server
	 * (so that the client shows the fallback). */
	hc->legacy = c->legacy && (server || !c->loopback);
	hc->stream.max_streams = n + 1024;
	hc->stream.max_tx_buffers = RTE_MIN(buffers, n + 64);
	hc->stream.max_rx_buffers = RTE_MIN(buffers, n + 64);
	hc->stream.initial_buffers = INITIAL_STREAM_BUFFERS;
	if (small) {
		hc->stream.send_mbufs = RTE_MIN(RTE_MAX(msg / 2048 + 2, 8u), 64u);
		hc->stream.rx_pieces = 32;
	}
	/* A udp server serves any mode with the library's limits, which
	 * fill a long fat pipe: their tables grow only for the streams that
	 * need them (a fixed 256 pieces capped one stream at 300 KB in
	 * flight, 30 Mbit/s at 80 ms). */
	if (c->server) {
		hc->stream.max_tx_buffers = 4096;
		hc->stream.max_rx_buffers = 4096;
		hc->stream.send_mbufs = 0;
		hc->stream.rx_pieces = 0;
	}
	/* A bulk client sending on many streams shares 32 MiB between them. A
	 * server's mode and stream count are placeholders (each client brings
	 * its test): its streams keep the library's send buffer, which a
	 * response needs to fill the path (here 64 KB capped every response
	 * at 64 KB a round trip). */
	if (!c->server && c->mode == PERF_BULK && c->streams > 32)
		hc->stream.send_buffer = RTE_MAX(64u << 10, (32u << 20) / c->streams);
	/* A benchmark gives the peer under test everything: no fair shares
	 * (sst_stream_host_params) between its few peers. */
	hc->stream.peer_max_streams = hc->stream.max_streams;
	hc->stream.peer_max_tx_buffers = hc->stream.max_tx_buffers;
	hc->stream.peer_max_rx_buffers = hc->stream.max_rx_buffers;
}

/* The client's host or the server's, with that side's callbacks
 * (perf_client.c, perf_server.c) behind the STP agent @p ps made for them
 * (perf_stp_new()). */
static void
host_conf(struct tool_host_conf *hc, const struct perf_conf *c, bool server, struct perf_stp *ps)
{
	/* One name per side: on the loopback both are in this process. */
	static char capture[2][4096];
	const char *side = server ? "server" : "client";
	size_t len = c->capture != NULL ? strlen(c->capture) : 0;
	bool file = len > 7 && strcmp(c->capture + len - 7, ".pcapng") == 0;

	host_conf_limits(hc, c, server, c->streams);
	if (file && !c->loopback) {
		hc->capture = c->capture;
	} else if (c->capture != NULL) {
		if (file)
			snprintf(capture[server], sizeof(capture[server]), "%.*s-%s.pcapng",
				(int)(len - 7), c->capture, side);
		else
			snprintf(capture[server], sizeof(capture[server]), "%s-%s", c->capture,
				side);
		hc->capture = capture[server];
	}
	hc->name = server ? "perfs" : "perfc";
	/* STP's streams are perf_stp's, the others go through to the side's. */
	hc->stream.ops = &perf_stp_stream_ops;
	hc->stream.ctx = ps;
	/* The agent's timers run in the worker's pass, before the side's. */
	hc->ops = &perf_stp_worker_ops;
	hc->ctx = ps;
}

/* Poll until the client's test is over (or a signal ends it), napping
 * between packets when @p may_sleep. @return the report's exit status. */
static int
run_test(struct tool_net *net, struct perf_client *cl, bool may_sleep)
{
	while (!perf_client_done(cl) && !tool_interrupted)
		tool_net_poll(net, may_sleep);
	if (tool_interrupted)
		perf_client_abort(cl, tool_interrupted);
	return perf_client_report(cl, tool_net_describe(net));
}

/*
 * EAL memory. Without hugepages only what is touched costs memory, but
 * the EAL writes a 48-byte record per 4 KB page of it at start (12 MB of
 * RSS per GB), so the estimate follows the largest sizes of this run: the
 * packet pools, a few KB of stream-layer state per stream (control block,
 * SID table entries, channel tables, which grow on demand) and the stream
 * buffers the mode uses (host_conf_limits()). Running short would look
 * like a peer that never answers, so each term keeps a margin.
 *
 * A server idles most of its life, so its estimate has no round margin:
 * 32 MB for the EAL's own (as sst-cat), the packet pools, 1 KB per stream
 * of its room (120,000 by default; the control blocks, which grow on
 * demand, are 96 bytes: a loopback run of 100,000 concurrent streams,
 * both sides and their pools in one EAL of 512 MB, peaked at 277 MB of
 * RSS) and its stream buffers at their largest, about 16 KB a pair. So an
 * idle server stays under 32 MB of RSS (tests/system/idle_rss.sh), where
 * the general estimate's 700 MB cost 8.4 MB of page records.
 */
static unsigned int
eal_memory_mb(const void *conf)
{
	const struct perf_conf *c = conf;
	uint64_t mbufs = c->mbufs != 0 ? c->mbufs : DEFAULT_MBUFS;
	uint64_t sides = c->loopback ? 2 : 1;
	uint64_t buffers = (uint64_t)c->streams + 64;
	uint64_t mb = 256 + sides * (mbufs * 5 / 2048 + (uint64_t)c->streams * 2 / 1024);

	/* Bulk: a deep send and reassembly buffer (about 60 and 80 KB) per
	 * stream on each side; a server has at most 4096 each way, shallower
	 * (64 mbufs, 256 pieces). Small requests and responses: a few KB a
	 * pair. */
	if (c->server)
		mb = 32 + mbufs * 5 / 2048 + (uint64_t)c->streams / 1024 +
		     RTE_MIN(buffers, 4096u) * 16 / 1024;
	else if (c->mode == PERF_BULK || c->mode == PERF_DGRAM)
		mb += sides * buffers * 140 / 1024;
	else
		mb += sides * RTE_MIN(buffers, 16384u) * 8 / 1024;
	return (unsigned int)RTE_MIN(mb, 65536u);
}

static int
run_loopback(struct perf_conf *c)
{
	struct perf_client *cl = perf_client_new(c);
	struct perf_server *sv = perf_server_new(c);
	struct perf_stp *cps =
		perf_stp_new(c, false, &perf_client_stream_ops, &perf_client_worker_ops, cl);
	struct perf_stp *sps =
		perf_stp_new(c, true, &perf_server_stream_ops, &perf_server_worker_ops, sv);
	struct tool_host_conf cc, sc;
	struct tool_events *pe = NULL;
	struct tool_net *net = NULL;
	int rc;

	if (cl == NULL || sv == NULL || cps == NULL || sps == NULL) {
		fprintf(stderr, "sst-perf: out of memory\n");
		rc = TOOL_EXIT_SETUP;
		goto out;
	}
	host_conf(&cc, c, false, cps);
	host_conf(&sc, c, true, sps);
	net = tool_net_loopback(&cc, &sc, c->impaired ? &c->impair : NULL);
	if (net != NULL && c->event_log != NULL &&
		(pe = tool_events_start("sst-perf", c->event_log, net, 2)) == NULL) {
		rc = TOOL_EXIT_SETUP;
		goto out;
	}
	if (net == NULL || perf_server_start(sv, tool_net_host(net, 1)) < 0 ||
		perf_stp_start(sps, tool_net_host(net, 1)) < 0 ||
		perf_stp_start(cps, tool_net_host(net, 0)) < 0 ||
		perf_client_start(
			cl, tool_net_host(net, 0), tool_host_local(tool_net_host(net, 1))) < 0) {
		rc = TOOL_EXIT_SETUP;
		goto out;
	}
	rc = run_test(net, cl, false);
out:
	perf_client_quiesce(cl);
	perf_server_quiesce(sv);
	perf_stp_quiesce(cps);
	perf_stp_quiesce(sps);
	tool_net_destroy(net);
	tool_events_stop(pe);
	perf_client_destroy(cl);
	perf_server_destroy(sv);
	perf_stp_destroy(cps);
	perf_stp_destroy(sps);
	return rc;
}

static int
run_client(struct perf_conf *c)
{
	struct perf_client *cl = perf_client_new(c);
	struct perf_stp *ps =
		perf_stp_new(c, false, &perf_client_stream_ops, &perf_client_worker_ops, cl);
	struct tool_events *pe = NULL;
	struct tool_host_conf hc;
	struct tool_net *net = NULL;
	int rc;

	if (cl == NULL || ps == NULL) {
		fprintf(stderr, "sst-perf: out of memory\n");
		rc = TOOL_EXIT_SETUP;
		goto out;
	}
	host_conf(&hc, c, false, ps);
	hc.local.addr.family = c->peer.addr.family;
	net = tool_net_open(&hc, &c->port);
	if (net != NULL && c->event_log != NULL &&
		(pe = tool_events_start("sst-perf", c->event_log, net, 1)) == NULL) {
		rc = TOOL_EXIT_SETUP;
		goto out;
	}
	if (net == NULL || perf_stp_start(ps, tool_net_host(net, 0)) < 0 ||
		perf_client_start(cl, tool_net_host(net, 0), &c->peer) < 0) {
		rc = TOOL_EXIT_SETUP;
		goto out;
	}
	/* Where a packet ends the wait at once (kernel UDP, net_af_packet,
	 * net_af_xdp),
	 * blocking costs no latency, and a client that spins instead is
	 * descheduled as a CPU hog on a shared machine, its packets waiting
	 * for the scheduler's tick (issue 17). */
	rc = run_test(net, cl, c->mode == PERF_WEB || tool_net_can_block(net));
	/* Let the server's channel end now rather than at its idle timeout. */
	perf_client_quiesce(cl);
	tool_net_finish_channels(net, SST_NSEC_PER_SEC / 2);
out:
	perf_client_quiesce(cl);
	perf_stp_quiesce(ps);
	tool_net_destroy(net);
	tool_events_stop(pe);
	perf_client_destroy(cl);
	perf_stp_destroy(ps);
	return rc;
}

static int
run_server(struct perf_conf *c)
{
	struct perf_server *sv = perf_server_new(c);
	struct perf_stp *ps =
		perf_stp_new(c, true, &perf_server_stream_ops, &perf_server_worker_ops, sv);
	struct tool_events *pe = NULL;
	struct tool_host_conf hc;
	struct tool_net *net = NULL;
	const struct sst_stream_host_params *limits;
	char ep[80];
	int rc = 0;

	if (sv == NULL || ps == NULL) {
		fprintf(stderr, "sst-perf: out of memory\n");
		rc = TOOL_EXIT_SETUP;
		goto out;
	}
	host_conf(&hc, c, true, ps);
	hc.local = c->local;
	net = tool_net_open(&hc, &c->port);
	if (net != NULL && c->event_log != NULL &&
		(pe = tool_events_start("sst-perf", c->event_log, net, 1)) == NULL) {
		rc = TOOL_EXIT_SETUP;
		goto out;
	}
	if (net == NULL || perf_server_start(sv, tool_net_host(net, 0)) < 0 ||
		perf_stp_start(ps, tool_net_host(net, 0)) < 0) {
		rc = TOOL_EXIT_SETUP;
		goto out;
	}
	tool_endpoint_text(tool_host_local(tool_net_host(net, 0)), ep, sizeof(ep));
	fprintf(stderr, "sst-perf: listening on %s\n", ep);
	limits = sst_stream_host_params(sst_worker_stream_host(
		sst_engine_worker(tool_host_engine(tool_net_host(net, 0)), 0)));
	fprintf(stderr,
		"sst-perf: up to %" PRIu32 " streams, each with a send buffer of %" PRIu32
		" KiB and a receive window of up to %" PRIu32 " KiB\n",
		limits->max_streams, limits->send_buffer >> 10, limits->rx_window_max >> 10);
	while (!tool_interrupted && !(c->once && perf_server_tests(sv) > 0))
		tool_net_poll(net, true);
out:
	perf_server_quiesce(sv);
	perf_stp_quiesce(ps);
	tool_net_destroy(net);
	tool_events_stop(pe);
	perf_server_destroy(sv);
	perf_stp_destroy(ps);
	return rc;
}

int
main(int argc, char **argv)
{
	static struct perf_conf conf;
	const struct tool_start start = {
		.prog = "sst-perf",
		.parse = parse_args,
		.conf = &conf,
		.eal_memory_mb = eal_memory_mb,
	};
	int rc = tool_eal_start(argc, argv, &start);

	if (rc != 0)
		return rc;
	perf_pattern_init();
	if (conf.loopback)
		rc = run_loopback(&conf);
	else if (conf.server)
		rc = run_server(&conf);
	else
		rc = run_client(&conf);
	perf_pattern_fini();
	tool_eal_fini();
	return rc;
}
