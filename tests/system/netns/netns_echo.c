/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The two ends of the system test tests/system/netns.sh (issue 6): an echo
 * server on the kernel's UDP (the udpsock link) and a client engine on a
 * DPDK port (ethdev on net_af_packet, frames through lib/net: ARP, IPv4,
 * UDP, ICMP echo), talking through the real Linux stack of a namespace.
 *
 *   netns_echo [EAL args] -- --serve ADDR:PORT
 *   netns_echo [EAL args] -- --connect ADDR:PORT --ip ADDR/LEN [--bytes N]
 *              [--streams N] [--linger SECONDS] [--secure]
 *
 * The client checks every echoed byte, stays up for --linger seconds (so
 * the script can ping it and read the namespace's ARP cache), and exits 0
 * only when everything came back right.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "sst_engine.h"
#include "sst_ethdev.h"
#include "sst_test_echo.h"

enum { MAX_STREAMS = 16 };

static volatile sig_atomic_t stop_requested;

static struct {
	bool serve, secure;
	struct sst_net_endpoint peer; /* --connect: the server; --serve: where to bind */
	struct sst_net_addr ip;
	uint8_t prefix_len;
	uint64_t bytes;
	int streams;
	int linger;
} opt = {.bytes = 1000000, .streams = 3, .linger = 0};

static struct {
	struct sst_engine *e;
	struct rte_mempool *clones;
	bool connect_sent;
	struct sst_stream_peer *peer;
	struct sst_stream *s[MAX_STREAMS];
	uint64_t written[MAX_STREAMS], echoed[MAX_STREAMS], bad;
	bool shut, failed;
} st;

static uint8_t
pattern(int stream, uint64_t off)
{
	return (uint8_t)((off * 131 + (uint64_t)stream * 17 + (off >> 8)) & 0xff);
}

static struct sst_test_echoes echoes;

static void
echo(struct sst_stream *s, sst_time_t now)
{
	sst_test_echo(&echoes, s, now);
}

static void
check(struct sst_stream *s, sst_time_t now)
{
	int idx = -1;

	for (int i = 0; i < opt.streams; i++)
		if (st.s[i] == s)
			idx = i;
	if (idx >= 0)
		sst_test_echo_check(s, pattern, idx, &st.echoed[idx], &st.bad, now);
}

static void
op_accepted(void *ctx, struct sst_stream *parent, struct sst_stream *s, void *svc, sst_time_t now)
{
	(void)ctx;
	(void)svc;
	if (parent != NULL)
		s = sst_stream_accept_substream(parent, now);
	if (s != NULL)
		echo(s, now);
}

static void
op_readable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	(void)ctx;
	if (opt.serve)
		echo(s, now);
	else
		check(s, now);
}

static void
op_connected(void *ctx, struct sst_stream *s, int err, sst_time_t now)
{
	(void)ctx;
	(void)s;
	(void)now;
	if (err != 0) {
		fprintf(stderr, "netns_echo: stream refused: %s\n", strerror(-err));
		st.failed = true;
	}
}

static void
op_writable(void *ctx, struct sst_stream *s, sst_time_t now)
{
	(void)ctx;
	if (opt.serve)
		echo(s, now);
}

static const struct sst_stream_ops stream_ops = {
	.accepted = op_accepted,
	.readable = op_readable,
	.writable = op_writable,
	.connected = op_connected,
};

static void
peer_ready(void *ctx, struct sst_stream_peer *peer, const struct sst_net_endpoint *ep)
{
	(void)ctx;
	(void)ep;
	if (!opt.serve)
		st.peer = peer;
}

static void
connect_failed(void *ctx, const struct sst_net_endpoint *ep, int err)
{
	(void)ctx;
	(void)ep;
	fprintf(stderr, "netns_echo: no channel to the server: %s\n", strerror(-err));
	st.failed = true;
}

static void
app_poll(void *ctx, struct sst_worker *w, sst_time_t now)
{
	(void)ctx;
	if (opt.serve)
		return;
	if (!st.connect_sent) {
		sst_worker_connect(w, &opt.peer,
			opt.secure ? SST_NEGO_MODE_SECURE : SST_NEGO_MODE_CHECKSUM, now);
		st.connect_sent = true;
	}
	if (st.peer == NULL)
		return;
	for (int i = 0; i < opt.streams; i++) {
		if (st.s[i] == NULL &&
			(st.s[i] = sst_stream_connect(st.peer, "echo", "netns", now)) == NULL)
			return;
		while (st.written[i] < opt.bytes) {
			uint32_t len = (uint32_t)RTE_MIN(
				1 + st.written[i] % 1400, opt.bytes - st.written[i]);
			struct rte_mbuf *m =
				sst_test_stream_chunk(st.clones, pattern, i, st.written[i], len);

			if (m == NULL)
				break;
			if (sst_stream_write(st.s[i], m, 0, now) < 0) {
				rte_pktmbuf_free(m);
				break;
			}
			st.written[i] += len;
		}
	}
}

static const struct sst_worker_ops worker_ops = {
	.peer_ready = peer_ready,
	.connect_failed = connect_failed,
	.app_poll = app_poll,
};

static bool
all_echoed(void)
{
	for (int i = 0; i < opt.streams; i++)
		if (st.echoed[i] < opt.bytes)
			return false;
	return true;
}

static int
parse_endpoint(const char *text, struct sst_net_endpoint *ep)
{
	char buf[64];
	const char *colon = strrchr(text, ':');

	if (colon == NULL || (size_t)(colon - text) >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, text, (size_t)(colon - text));
	buf[colon - text] = '\0';
	ep->port = (uint16_t)atoi(colon + 1);
	return ep->port == 0 ? -EINVAL : sst_net_addr_parse(buf, &ep->addr);
}

static void
usage(void)
{
	fprintf(stderr,
		"usage: netns_echo [EAL args] -- --serve ADDR:PORT\n"
		"       netns_echo [EAL args] -- --connect ADDR:PORT --ip ADDR/LEN [--bytes N]\n"
		"                  [--streams N] [--linger SECONDS] [--secure]\n"
		"--serve: an echo server on kernel UDP; --connect: a client engine on DPDK\n"
		"port 0 (e.g. --vdev=net_af_packet0,iface=veth0) with address --ip.\n");
}

static int
parse_args(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--help") == 0) {
			usage();
			exit(0);
		} else if (strcmp(a, "--secure") == 0) {
			opt.secure = true;
		} else if (v == NULL) {
			usage();
			return -1;
		} else if (strcmp(a, "--serve") == 0 || strcmp(a, "--connect") == 0) {
			opt.serve = strcmp(a, "--serve") == 0;
			if (parse_endpoint(v, &opt.peer) < 0)
				return -1;
			i++;
		} else if (strcmp(a, "--ip") == 0) {
			char buf[64];
			const char *slash = strchr(v, '/');

			if (slash == NULL || (size_t)(slash - v) >= sizeof(buf))
				return -1;
			memcpy(buf, v, (size_t)(slash - v));
			buf[slash - v] = '\0';
			opt.prefix_len = (uint8_t)atoi(slash + 1);
			if (sst_net_addr_parse(buf, &opt.ip) < 0)
				return -1;
			i++;
		} else if (strcmp(a, "--bytes") == 0) {
			opt.bytes = strtoull(v, NULL, 0);
			i++;
		} else if (strcmp(a, "--streams") == 0) {
			opt.streams = atoi(v);
			i++;
		} else if (strcmp(a, "--linger") == 0) {
			opt.linger = atoi(v);
			i++;
		} else {
			usage();
			return -1;
		}
	}
	if (opt.peer.port == 0 || opt.streams < 1 || opt.streams > MAX_STREAMS ||
		(!opt.serve && opt.ip.family == SST_NET_NONE)) {
		usage();
		return -1;
	}
	return 0;
}

/* What a failure needs to be understood: where the packets went. */
static void
print_counters(struct sst_worker *w)
{
	const struct sst_worker_stats *ws = sst_worker_stats(w);
	const struct sst_net_stats *ns = sst_worker_net_stats(w);

	fprintf(stderr,
		"worker: rx %llu (control %llu, channel %llu, no channel %llu), channels made "
		"%llu, tx refused %llu\n",
		(unsigned long long)ws->rx_packets, (unsigned long long)ws->rx_control,
		(unsigned long long)ws->rx_channel, (unsigned long long)ws->rx_no_channel,
		(unsigned long long)ws->channels_made, (unsigned long long)ws->tx_refused);
	fprintf(stderr,
		"channels: tx %llu (ack-only %llu), acked %llu, lost %llu, rto %llu, seal failed "
		"%llu; rx %llu, refused %llu, duplicate %llu, too old %llu\n",
		(unsigned long long)ws->channels.tx_packets,
		(unsigned long long)ws->channels.tx_ack_only,
		(unsigned long long)ws->channels.acked, (unsigned long long)ws->channels.lost,
		(unsigned long long)ws->channels.rto,
		(unsigned long long)ws->channels.tx_seal_failed,
		(unsigned long long)ws->channels.rx_packets,
		(unsigned long long)ws->channels.rx_refused,
		(unsigned long long)ws->channels.rx_duplicate,
		(unsigned long long)ws->channels.rx_too_old);
	if (ns != NULL)
		fprintf(stderr,
			"net: rx frames %llu, udp %llu, udp cksum %llu, udp len %llu, ip4 cksum "
			"%llu, not ours %llu/%llu, src %llu, arp req %llu rep %llu, echo %llu; "
			"tx frames %llu udp %llu\n",
			(unsigned long long)ns->rx_frames, (unsigned long long)ns->rx_udp,
			(unsigned long long)ns->rx_udp_cksum, (unsigned long long)ns->rx_udp_len,
			(unsigned long long)ns->rx_ip4_cksum,
			(unsigned long long)ns->rx_eth_not_ours,
			(unsigned long long)ns->rx_ip4_not_ours, (unsigned long long)ns->rx_ip4_src,
			(unsigned long long)ns->rx_arp_request,
			(unsigned long long)ns->rx_arp_reply, (unsigned long long)ns->rx_icmp4_echo,
			(unsigned long long)ns->tx_frames, (unsigned long long)ns->tx_udp);
}

/* A stalled stream: whether its bytes wait for credit, for an ack or for
 * the peer. */
static void
print_stream(int i, const struct sst_stream *s)
{
	struct sst_stream_info in;

	sst_stream_info(s, &in);
	fprintf(stderr,
		"stream %d: tx %llu unacked %llu in flight %llu credit %u; rx %llu buffered "
		"%llu window %u; buffers tx %d rx %d; finished %d reset %d\n",
		i, (unsigned long long)in.tx_offset, (unsigned long long)in.tx_unacked,
		(unsigned long long)in.tx_in_flight, in.tx_credit, (unsigned long long)in.rx_offset,
		(unsigned long long)in.rx_buffered, in.rx_window, in.tx_buffers, in.rx_buffers,
		in.finished, in.reset);
}

static void
on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

int
main(int argc, char **argv)
{
	static struct sst_ethdev_link_conf eth = {.port_id = 0, .queue_id = 0};
	static const void *confs[1] = {&eth};
	struct sst_engine_params ep = {.size = sizeof(ep), .workers = 1};
	int used = rte_eal_init(argc, argv);
	sst_time_t deadline, linger_end = SST_TIME_NEVER;
	int rc = 0;

	if (used < 0) {
		fprintf(stderr, "netns_echo: EAL: %s\n", rte_strerror(rte_errno));
		return 2;
	}
	if (parse_args(argc - used, argv + used) < 0)
		return 2;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	st.clones = rte_pktmbuf_pool_create("netns_data", 16383, 256, 0, 2048, SOCKET_ID_ANY);
	if (st.clones == NULL)
		return 2;
	memset(ep.nego.secret, opt.serve ? 0x5e : 0xc1, sizeof(ep.nego.secret));
	ep.nego.ulp_caps = SST_NEGO_CAP_ALL;
	ep.stream.name = opt.serve ? "srv" : "cli";
	ep.stream.clone_pool = st.clones;
	ep.stream.ops = &stream_ops;
	ep.ops = &worker_ops;
	if (opt.serve) {
		ep.local = opt.peer;
	} else {
		if (rte_eth_dev_count_avail() == 0) {
			fprintf(stderr, "netns_echo: no DPDK port (give --vdev=...)\n");
			return 2;
		}
		ep.driver = "ethdev";
		ep.driver_confs = confs;
		ep.net.ipv4 = opt.ip;
		ep.net.ipv4_prefix_len = opt.prefix_len;
		ep.local.addr = opt.ip;
		ep.local.port = 4433;
	}
	st.e = sst_engine_create(&ep);
	if (st.e == NULL) {
		fprintf(stderr, "netns_echo: no engine: %s\n", rte_strerror(rte_errno));
		return 2;
	}
	if (opt.serve) {
		sst_stream_listen(
			sst_worker_stream_host(sst_engine_worker(st.e, 0)), "echo", "netns", NULL);
		printf("netns_echo: serving on port %u\n", opt.peer.port);
		fflush(stdout);
		while (!stop_requested)
			sst_engine_poll(st.e, 0);
	} else {
		deadline = sst_engine_now() + 60 * SST_NSEC_PER_SEC;
		while (!stop_requested && !st.failed && sst_engine_now() < deadline) {
			sst_engine_poll(st.e, 0);
			if (linger_end == SST_TIME_NEVER && all_echoed()) {
				printf("netns_echo: %d x %llu bytes echoed, %llu bad\n",
					opt.streams, (unsigned long long)opt.bytes,
					(unsigned long long)st.bad);
				fflush(stdout);
				for (int i = 0; i < opt.streams; i++)
					sst_stream_close(st.s[i], sst_engine_now());
				linger_end = sst_engine_now() +
					     (sst_time_t)opt.linger * SST_NSEC_PER_SEC;
			}
			if (sst_engine_now() >= linger_end)
				break;
		}
		if (!all_echoed() || st.bad != 0 || st.failed) {
			fprintf(stderr, "netns_echo: FAILED:");
			for (int i = 0; i < opt.streams; i++)
				fprintf(stderr, " stream %d %llu/%llu", i,
					(unsigned long long)st.echoed[i],
					(unsigned long long)opt.bytes);
			fprintf(stderr, ", %llu bad bytes\n", (unsigned long long)st.bad);
			print_counters(sst_engine_worker(st.e, 0));
			for (int i = 0; i < opt.streams; i++)
				if (st.s[i] != NULL)
					print_stream(i, st.s[i]);
			rc = 1;
		}
	}
	sst_engine_stop(st.e, SST_NSEC_PER_SEC);
	sst_engine_destroy(st.e);
	sst_test_echo_fini(&echoes);
	rte_mempool_free(st.clones);
	rte_eal_cleanup();
	return rc;
}
