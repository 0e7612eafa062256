/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-cat: netcat for SST (docs/tools/sst-cat.md). Connects to (or
 * listens for) one stream of a service and protocol over kernel UDP:
 * standard input goes to the stream, the stream to standard output. Also
 * datagrams (--datagram), substreams (--substreams) and an echo service
 * (--listen --echo), in checksum or secure mode, or posing as the 2007
 * prototype (--legacy) to check a peer's fallback.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include <rte_cpuflags.h>

#include "cat.h"
#include "tool_args.h"
#include "tool_events.h"

enum {
	KNOWN_HOSTS_MAX = 256,
};

#define bad(...) tool_usage_error("sst-cat", __VA_ARGS__)

static void
usage(FILE *out)
{
	fprintf(out,
		"Usage: sst-cat [OPTIONS] HOST:PORT SERVICE PROTOCOL\n"
		"       sst-cat --listen [OPTIONS] [ADDR:]PORT SERVICE PROTOCOL\n"
		"       sst-cat EAL-ARGS -- ...          DPDK EAL arguments first\n"
		"\n"
		"Netcat for SST over kernel UDP: standard input goes to one stream of SERVICE\n"
		"and PROTOCOL, what the stream brings goes to standard output. The client\n"
		"connects; --listen takes the first stream that arrives (others are reset).\n"
		"Both end once standard input ended and the peer ended its side.\n"
		"\n"
		"Options:\n"
		"  -l, --listen           wait for a stream on [ADDR:]PORT (port 0: any free one;\n"
		"                         'listening on ADDR:PORT' goes to stderr)\n"
		"  -e, --echo             with --listen: an echo service for any number of\n"
		"                         clients until interrupted: every stream and substream\n"
		"                         gets back what it sends, every datagram a datagram\n"
		"  -d, --datagram         send each input line as a datagram (without its "
		"newline)\n"
		"                         and print each datagram received as a line\n"
		"  -n, --substreams N     client: also send the input on N substreams (1-64) of\n"
		"                         the stream and check that each brings it back byte for\n"
		"                         byte (for an echo service); a mismatch fails the run\n"
		"  -s, --secure           secure mode (X25519/Ed25519 handshake, AEAD armor);\n"
		"                         default: checksum mode (the 2007 prototype's)\n"
		"      --suite NAME       with --secure: aes128gcm or chacha20 (default:\n"
		"                         aes128gcm with AES instructions, else chacha20)\n"
		"      --identity FILE    our Ed25519 key (64 hex digits; created if missing);\n"
		"                         default: anonymous client, throwaway listener key\n"
		"      --known-hosts FILE\n"
		"                         client: accept only servers whose key is listed\n"
		"                         ('<64 hex digits> <name>' lines); default: any key\n"
		"      --legacy           act as the 2007 prototype: checksum mode only, empty\n"
		"                         ulpi/ulpr (no SST-DPDK capabilities advertised, none\n"
		"                         used); fails (exit 1) if the peer sent anything the\n"
		"                         prototype cannot take (Reset, Detach, datagram\n"
		"                         fragments, packets over 1200 payload bytes)\n"
		"      --dead-peer-timeout SECONDS  a peer not heard from for this long while\n"
		"                         our data waits for it is dead: its channels end, its\n"
		"                         streams fail (default 30)\n"
		"      --send-buffer MB   bytes a stream may queue, in MiB (1-64; default 4):\n"
		"                         more fills long fat pipes, and input waits while the\n"
		"                         packet pool is empty\n"
		"      --stats SECONDS    with --echo: a line of counters on stderr this often\n"
		"                         (peers, channels, streams, dead peers, refusals)\n"
		"      --bind [ADDR:]PORT client: send from this address and port (a peer then\n"
		"                         sees a restarted client at the same endpoint, as the\n"
		"                         prototype's, which binds 8661); default: any port\n"
		"  -t, --timeout SECONDS  client: give up when the stream is not connected\n"
		"                         (channel up, service answered) after this long\n"
		"                         (default 20)\n"
		"      --port N           use DPDK port N (from the EAL arguments, e.g.\n"
		"                         --vdev=net_af_xdp0,iface=eth0) instead of\n"
		"                         kernel UDP, with lib/net answering ARP and ping\n"
		"      --ip ADDR/LEN      with --port: our address on it (required)\n"
		"      --gateway ADDR     with --port: the default route\n"
		"      --workers N        workers (1..64), each with its own queue of the port\n"
		"      --capture FILE.pcapng  record what we send and receive (pcapng; sst-dump,\n"
		"                         tshark and Wireshark read it); with several workers\n"
		"                         one file each, FILE-w<i>.pcapng. A name without\n"
		"                         .pcapng is a prefix: PREFIX-w<i>.pcapng\n"
		"      --event-log FILE   write the channels' and streams' events (RTT samples,\n"
		"                         windows, losses, channels up and down, streams\n"
		"                         connected, accepted and closed) as JSON lines\n"
		"                         (docs/observability.md)\n"
		"  -v, --verbose          say what happens on stderr (channel, keys, substreams)\n"
		"  -q, --quiet            no 'listening on' line\n"
		"  -h, --help             this help\n"
		"\n"
		"Without EAL arguments the EAL runs without hugepages or NICs (--no-huge\n"
		"--no-pci, a file prefix of its own).\n"
		"\n"
		"Exit status: 0 success; 1 the connection or the transfer failed (reset,\n"
		"refused, no answer, substream mismatch); 2 bad arguments; 3 setup failed.\n");
}

static int
parse_args(int argc, char **argv, void *conf)
{
	static const struct option opts[] = {
		{"listen", no_argument, NULL, 'l'},
		{"echo", no_argument, NULL, 'e'},
		{"datagram", no_argument, NULL, 'd'},
		{"substreams", required_argument, NULL, 'n'},
		{"secure", no_argument, NULL, 's'},
		{"suite", required_argument, NULL, 'S'},
		{"identity", required_argument, NULL, 'I'},
		{"known-hosts", required_argument, NULL, 'K'},
		{"legacy", no_argument, NULL, 'L'},
		{"timeout", required_argument, NULL, 't'},
		{"dead-peer-timeout", required_argument, NULL, 'D'},
		{"stats", required_argument, NULL, 'T'},
		{"send-buffer", required_argument, NULL, 'B'},
		{"bind", required_argument, NULL, 'b'},
		{"port", required_argument, NULL, 'P'},
		{"ip", required_argument, NULL, 'A'},
		{"gateway", required_argument, NULL, 'G'},
		{"workers", required_argument, NULL, 'w'},
		{"capture", required_argument, NULL, 'C'},
		{"event-log", required_argument, NULL, 'E'},
		{"verbose", no_argument, NULL, 'v'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct cat_conf *c = conf;
	char err[256];
	uint64_t v;
	double d;
	int opt;

	c->suite = rte_cpu_get_flag_enabled(RTE_CPUFLAG_AES) > 0 ? SST_CRYPTO_AES128GCM
								 : SST_CRYPTO_CHACHA20POLY1305;
	c->timeout_ns = 20 * SST_NSEC_PER_SEC;
	while ((opt = getopt_long(argc, argv, "ledn:st:vqh", opts, NULL)) != -1) {
		switch (opt) {
		case 'P':
		case 'A':
		case 'G':
			if (tool_port_option("sst-cat",
				    opt == 'P'	 ? "port"
				    : opt == 'A' ? "ip"
						 : "gateway",
				    optarg, &c->port) < 0)
				return TOOL_EXIT_ARGS;
			break;
		case 'w':
			if (tool_parse_u64(optarg, 1, 64, &v) < 0)
				return bad("--workers '%s': want 1..64", optarg);
			c->workers = (uint32_t)v;
			break;
		case 'l':
			c->listen = true;
			break;
		case 'e':
			c->echo = true;
			break;
		case 'd':
			c->datagram = true;
			break;
		case 'n':
			if (tool_parse_u64(optarg, 1, CAT_SUBSTREAMS_MAX, &v) < 0)
				return bad("--substreams '%s': want 1 to %d", optarg,
					CAT_SUBSTREAMS_MAX);
			c->substreams = (uint32_t)v;
			break;
		case 's':
			c->secure = true;
			break;
		case 'S':
			if (strcmp(optarg, "aes128gcm") == 0)
				c->suite = SST_CRYPTO_AES128GCM;
			else if (strcmp(optarg, "chacha20") == 0)
				c->suite = SST_CRYPTO_CHACHA20POLY1305;
			else
				return bad("--suite '%s': want aes128gcm or chacha20", optarg);
			c->suite_set = true;
			break;
		case 'L':
			c->legacy = true;
			break;
		case 'I':
			c->identity_file = optarg;
			break;
		case 'K':
			c->known_hosts_file = optarg;
			break;
		case 'b':
			if (tool_parse_endpoint(optarg, true, false, &c->local, err, sizeof(err)) <
				0)
				return bad("--bind: %s", err);
			c->bind_set = true;
			break;
		case 't':
			if (tool_parse_double(optarg, 0.1, 86400, &d) < 0)
				return bad("--timeout '%s': want seconds", optarg);
			c->timeout_ns = (uint64_t)(d * 1e9);
			break;
		case 'D':
			if (tool_parse_double(optarg, 0.1, 86400, &d) < 0)
				return bad("--dead-peer-timeout '%s': want seconds, 0.1 to 86400",
					optarg);
			c->dead_peer_ns = (uint64_t)(d * 1e9);
			break;
		case 'C':
			c->capture = optarg;
			break;
		case 'E':
			c->event_log = optarg;
			break;
		case 'B':
			if (tool_parse_double(optarg, 1, 64, &d) < 0 || d != (double)(uint32_t)d)
				return bad("--send-buffer '%s': want whole MiB, 1 to 64", optarg);
			c->send_buffer = (uint32_t)d << 20;
			break;
		case 'T':
			if (tool_parse_double(optarg, 0.1, 86400, &d) < 0)
				return bad("--stats '%s': want seconds, 0.1 to 86400", optarg);
			c->stats_ns = (uint64_t)(d * 1e9);
			break;
		case 'v':
			c->verbose = true;
			break;
		case 'q':
			c->quiet = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return bad("unknown option or missing value");
		}
	}
	if (argc - optind != 3)
		return bad("want %s SERVICE PROTOCOL", c->listen ? "[ADDR:]PORT" : "HOST:PORT");
	if (c->bind_set && c->listen)
		return bad("--bind is for the client (a listener binds its [ADDR:]PORT)");
	if (tool_parse_endpoint(argv[optind], c->listen, c->listen,
		    c->listen ? &c->local : &c->peer, err, sizeof(err)) < 0)
		return bad("%s", err);
	if (c->bind_set && c->local.addr.family != c->peer.addr.family)
		return bad("--bind: not the address family of HOST");
	c->service = argv[optind + 1];
	c->protocol = argv[optind + 2];
	if (strlen(c->service) == 0 || strlen(c->protocol) == 0)
		return bad("empty service or protocol name");
	if (c->echo && !c->listen)
		return bad("--echo goes with --listen");
	if (c->stats_ns != 0 && !c->echo)
		return bad("--stats goes with --echo");
	if (c->echo && (c->datagram || c->substreams != 0))
		return bad("--echo answers whatever comes: no --datagram or --substreams");
	if (c->substreams != 0 && c->listen)
		return bad("--substreams is for the client (with an echo service)");
	if (c->substreams != 0 && c->datagram)
		return bad("--substreams and --datagram do not go together");
	if (c->known_hosts_file != NULL && c->listen)
		return bad("--known-hosts is for the client (the listener accepts any client)");
	if (c->legacy && (c->secure || c->suite_set || c->identity_file != NULL ||
				 c->known_hosts_file != NULL))
		return bad("--legacy is the 2007 prototype's checksum mode: no --secure, --suite, "
			   "--identity or --known-hosts");
	if ((c->known_hosts_file != NULL || c->identity_file != NULL) && !c->secure && !c->listen)
		return bad("--identity and --known-hosts need --secure");
	/* Without --secure the client runs checksum mode and a listener offers
	 * its default suites: a --suite that changed nothing would let a user
	 * believe the stream is encrypted. */
	if (c->suite_set && !c->secure)
		return bad("--suite chooses secure mode's cipher suite: add --secure");
	return 0;
}

static void
print_key(const char *what, const uint8_t *pk)
{
	fprintf(stderr, "sst-cat: %s ", what);
	for (int i = 0; i < 32; i++)
		fprintf(stderr, "%02x", pk[i]);
	fprintf(stderr, "\n");
}

/* Keys from files, for the host configuration (they must outlive it). */
static int
load_keys(const struct cat_conf *c, struct sst_secure_identity *id,
	struct sst_secure_known_hosts *kh, struct tool_host_conf *hc)
{
	int rc;

	if (c->identity_file != NULL) {
		rc = sst_secure_identity_load_or_create(
			c->identity_file, sst_secure_random_sodium, NULL, id);
		if (rc < 0) {
			fprintf(stderr, "sst-cat: identity %s: %s\n", c->identity_file,
				rc == -EPERM ? "others may read it (chmod 600)" : strerror(-rc));
			return -1;
		}
		if (rc == 1)
			fprintf(stderr, "sst-cat: created identity %s\n", c->identity_file);
		hc->identity = id;
	}
	if (c->known_hosts_file != NULL) {
		/* The library reads a missing file as an empty table (a TOFU
		 * endpoint creates it), but here the file pins the servers we
		 * accept: a typo in its name would refuse every server, silently
		 * until the timeout. */
		if (access(c->known_hosts_file, R_OK) != 0) {
			fprintf(stderr, "sst-cat: known hosts %s: %s\n", c->known_hosts_file,
				strerror(errno));
			return -1;
		}
		rc = sst_secure_known_hosts_load(kh, c->known_hosts_file);
		if (rc < 0) {
			fprintf(stderr, "sst-cat: known hosts %s: %s\n", c->known_hosts_file,
				rc == -EINVAL ? "malformed line" : strerror(-rc));
			return -1;
		}
		if (kh->n == 0) {
			fprintf(stderr,
				"sst-cat: known hosts %s: lists no key, so no server could be "
				"accepted\n",
				c->known_hosts_file);
			return -1;
		}
		hc->known_hosts = kh;
	}
	return 0;
}

static void
run_loop(struct tool_net *net, bool (*done)(void *), void *arg)
{
	while (!tool_interrupted && !done(arg))
		tool_net_poll(net, true);
}

static bool
cat_finished(void *arg)
{
	return cat_done(arg);
}

/* --legacy: a real prototype would have aborted on a Reset or Detach, or
 * dropped fragments and oversized packets; the peer should have seen from
 * our empty ulp blob that we are legacy and sent none. */
static bool
beyond_prototype(struct tool_net *net)
{
	struct tool_counters k;

	tool_host_counters(tool_net_host(net, 0), &k);
	if (k.rx_beyond_prototype == 0)
		return false;
	fprintf(stderr,
		"sst-cat: the peer sent %llu packet%s the 2007 prototype cannot take (Reset, "
		"Detach, datagram fragments or over 1200 payload bytes)\n",
		(unsigned long long)k.rx_beyond_prototype, k.rx_beyond_prototype == 1 ? "" : "s");
	return true;
}

static int
run(const struct cat_conf *c)
{
	static struct sst_secure_identity id;
	static struct sst_secure_host hosts[KNOWN_HOSTS_MAX];
	struct sst_secure_known_hosts kh = {hosts, KNOWN_HOSTS_MAX, 0};
	struct tool_host_conf hc = {.name = "cat"};
	struct cat_echo *echo = NULL;
	struct cat *cat = NULL;
	struct tool_net *net = NULL;
	struct tool_events *events = NULL;
	char ep[80];
	int rc = TOOL_EXIT_SETUP;

	if (c->echo)
		echo = cat_echo_new(c);
	else
		cat = cat_new(c);
	if (echo == NULL && cat == NULL) {
		fprintf(stderr, "sst-cat: out of memory\n");
		return TOOL_EXIT_SETUP;
	}
	hc.armor = c->secure ? c->suite : SST_CRYPTO_CHK32;
	hc.responder = c->listen;
	hc.legacy = c->legacy;
	hc.local = c->listen || c->bind_set ? c->local : (struct sst_net_endpoint){0};
	if (!c->listen)
		hc.local.addr.family = c->peer.addr.family;
	/* Largest sizes: the packet pools start with a few hundred mbufs and
	 * grow to these only under load (sst_pool.h); so do the stream
	 * buffers (70 to 90 KB each), from CAT_INITIAL_BUFFERS each way up to
	 * 1024, for an echo service with hundreds of clients at once (with
	 * 256, some of 300 concurrent clients were refused). */
	hc.mbufs = CAT_MBUFS;
	/* A stream queues at most 4 MiB (2048 mbufs of the pool, the rest for
	 * packets in flight and received): input is copied into the pool, and
	 * the library's 32 MiB default would empty it. */
	hc.stream.send_buffer = c->send_buffer != 0 ? c->send_buffer : 4u << 20;
	hc.stream.max_streams = 4096;
	hc.stream.max_tx_buffers = CAT_STREAM_BUFFERS;
	hc.stream.max_rx_buffers = CAT_STREAM_BUFFERS;
	hc.stream.initial_buffers = CAT_INITIAL_BUFFERS;
	hc.small_pools = true; /* a netcat: a megabyte of caches per pool is not worth it */
	hc.stream.ops = c->echo ? &cat_echo_stream_ops : &cat_stream_ops;
	hc.stream.ctx = c->echo ? (void *)echo : (void *)cat;
	hc.ops = c->echo ? NULL : &cat_worker_ops;
	hc.ctx = cat;
	if (load_keys(c, &id, &kh, &hc) < 0)
		goto out;
	hc.workers = c->workers;
	hc.dead_peer_timeout = c->dead_peer_ns;
	hc.capture = c->capture;
	net = tool_net_open(&hc, &c->port);
	if (net == NULL)
		goto out;
	if (c->event_log != NULL &&
		(events = tool_events_start("sst-cat", c->event_log, net, 1)) == NULL)
		goto out;
	if (c->echo ? cat_echo_start(echo, tool_net_host(net, 0)) < 0
		    : cat_start(cat, tool_net_host(net, 0)) < 0)
		goto out;
	if (c->verbose && tool_host_public_key(tool_net_host(net, 0)) != NULL)
		print_key("our key", tool_host_public_key(tool_net_host(net, 0)));
	if (c->listen && !c->quiet) {
		tool_endpoint_text(tool_host_local(tool_net_host(net, 0)), ep, sizeof(ep));
		fprintf(stderr, "sst-cat: listening on %s\n", ep);
	}
	if (c->echo)
		run_loop(net, cat_echo_tick, echo);
	else
		run_loop(net, cat_finished, cat);
	if (tool_interrupted && !c->echo) {
		fprintf(stderr, "sst-cat: interrupted\n");
		rc = 1;
	} else {
		rc = c->echo ? 0 : cat_status(cat);
	}
	cat_quiesce(cat);
	cat_echo_quiesce(echo);
	tool_net_finish_channels(net, SST_NSEC_PER_SEC);
	if (c->legacy && beyond_prototype(net))
		rc = 1;
out:
	/* Quiescing gives back the mbufs we hold (before their pools go);
	 * the state stays for the callbacks of the host's destruction. */
	cat_quiesce(cat);
	cat_echo_quiesce(echo);
	tool_net_destroy(net);
	tool_events_stop(events);
	cat_destroy(cat);
	cat_echo_destroy(echo);
	sodium_memzero(&id, sizeof(id));
	return rc;
}

/*
 * EAL memory, in megabytes. Without hugepages it is one mapping of which
 * only what is touched costs memory, but the EAL keeps a 48-byte segment
 * record per 4 KB page of it, all written at start (12 MB per GB), so it is
 * sized to what the largest pools and channels need rather than generously:
 * the two packet pools at their largest (an mbuf takes a whole 4 KB page
 * without hugepages: objects may not cross pages), their clones and
 * per-lcore caches, the stream buffers (about 170 KB a sending and
 * receiving pair), and what peers need: a channel's tables once took 4 MB
 * and now grow from about 2 KB (docs/engine.md, "Scale, measured"), so a
 * megabyte per peer (64 for a listener) plus 32 MB of slack hold
 * thousands of small ones (a client has one peer, and briefly a second
 * channel while one is replaced). Every megabyte less saves 12 KB of the
 * EAL's page records.
 */
static unsigned int
eal_memory_mb(const void *conf)
{
	const struct cat_conf *c = conf;
	unsigned int peers = c->listen ? 64 : 2;

	return 2 * CAT_MBUFS / 256 + CAT_MBUFS / 4096 + 3 + CAT_STREAM_BUFFERS * 170 / 1024 +
	       peers + 32;
}

int
main(int argc, char **argv)
{
	static struct cat_conf conf;
	const struct tool_start start = {
		.prog = "sst-cat",
		.parse = parse_args,
		.conf = &conf,
		.eal_memory_mb = eal_memory_mb,
		/* A reader of standard output that went away is a write error
		 * to report (cat_io.c), not a reason to die. */
		.ignore_sigpipe = true,
	};
	int rc = tool_eal_start(argc, argv, &start);

	if (rc != 0)
		return rc;
	rc = run(&conf);
	tool_eal_fini();
	return rc;
}
