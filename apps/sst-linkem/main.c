/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-linkem: the command line (docs/tools/sst-linkem.md). The bridge
 * itself is in linkem.c.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_dev.h>
#include <rte_errno.h>

#include "linkem.h"
#include "tool_args.h"
#include "tool_link.h"

enum {
	DEFAULT_MBUFS = 16383,
	MBUFS_MIN = 1023,
	MBUFS_MAX = 1 << 20,
	DEFAULT_FRAMES = 2048,
	/* A bottleneck queue left to the default holds one round trip of the
	 * link's rate, and never less than this many full frames. */
	QUEUE_MIN_FRAMES = 32,
	FULL_FRAME = 1514,
	ARG_MAX_LEN = 160,
	/* Long options without a short form. */
	OPT_RATE = 256,
	OPT_DELAY,
	OPT_JITTER,
	OPT_LOSS,
	OPT_QUEUE,
	OPT_QUEUE_BYTES,
	OPT_OVERHEAD,
	OPT_SEED,
	OPT_MBUFS,
	OPT_FRAMES,
	OPT_BUSY,
	OPT_WAIT,
	OPT_ARRIVAL,
};

static void
usage(FILE *out)
{
	fprintf(out,
		"Usage: sst-linkem [EAL-ARGS --] [OPTIONS] IFACE_A IFACE_B\n"
		"\n"
		"Bridge two network interfaces (veth ends, typically) through an emulated link:\n"
		"every frame read on one goes through the simlink model of its direction\n"
		"(bottleneck queue, serialization at a rate, loss, one-way delay, jitter) and\n"
		"out of the other, in real time, so that kernel TCP and SST-DPDK cross the same\n"
		"link. The interfaces are opened as DPDK net_af_packet ports (needs root).\n"
		"\n"
		"Link (each option takes V for both directions, or V/W: V from A to B, W\n"
		"from B to A):\n"
		"      --rate MBIT        rate in Mbit/s (default 0: unlimited)\n"
		"      --delay MS         one-way delay in milliseconds (default 0)\n"
		"      --jitter MS        random extra delay, uniform in [0, MS]; never\n"
		"                         reorders (default 0)\n"
		"      --loss PCT         random loss in percent (default 0)\n"
		"      --queue PKTS       bottleneck queue in frames (0: no limit)\n"
		"      --queue-bytes B    bottleneck queue in bytes, K and M suffixes (0: no\n"
		"                         limit). With a rate and neither queue option: one\n"
		"                         round trip (2 x delay) of the rate, at least 32 frames\n"
		"      --overhead BYTES   bytes added to each frame's serialization time\n"
		"                         (24: preamble, FCS and gap; default 0, as tc tbf)\n"
		"      --seed N           seed of the random loss and jitter (default 1)\n"
		"\n"
		"Run:\n"
		"  -t, --time SECONDS     stop after this long (default: until SIGINT/SIGTERM)\n"
		"      --mbufs N          packet buffers, which bound the frames held in both\n"
		"                         directions (default 16383)\n"
		"      --frames N         net_af_packet ring frames per interface (default 2048)\n"
		"      --wait sleep|poll|busy   when idle: sleep until the next delivery\n"
		"                         is near, at most the one-way delay (1 ms at most;\n"
		"                         with --arrival read: 50 us, which may add as much to a\n"
		"                         frame's delay) (sleep, the default); block until a\n"
		"                         frame arrives or the next delivery is near (poll);\n"
		"                         never wait (busy)\n"
		"      --busy             --wait busy\n"
		"      --arrival kernel|read   a frame enters the link at the kernel's stamp of\n"
		"                         its arrival (kernel, the default) or when it is read\n"
		"                         (read: frames that waited in the ring while the\n"
		"                         emulator was off the CPU enter the queue together)\n"
		"  -q, --quiet            no counters each second\n"
		"  -h, --help             this help\n"
		"\n"
		"Each second a line on stderr per direction: frames in and out, Mbit/s out, and\n"
		"drops (queue, loss, full storage, refused by the interface), frames held; the\n"
		"longest pause of the bridge and wait of a frame in the ring, the frames that\n"
		"arrived back to back, and frames and queue drops by their wait in the ring\n"
		"(< 20 us, < 100 us, < 1 ms, longer). At exit the totals on stdout.\n"
		"\n"
		"Exit status: 0 success; 2 bad arguments; 3 setup failed (EAL, interface,\n"
		"memory).\n");
}

#define bad(...) tool_usage_error("sst-linkem", __VA_ARGS__)

struct given {
	bool queue[LINKEM_DIRS];
};

/* Split "V" or "V/W" into half[0] and half[1] (V twice when there is no
 * W), in @p buf. @return 0 or -1. */
static int
split_pair(const char *s, char buf[ARG_MAX_LEN], const char *half[LINKEM_DIRS])
{
	char *slash;

	if (strlen(s) >= ARG_MAX_LEN)
		return -1;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	half[0] = buf;
	half[1] = buf;
	if (slash != NULL) {
		*slash = '\0';
		half[1] = slash + 1;
	}
	return 0;
}

/* "V" or "V/W" into v[0] and v[1], each a double in [min, max]. */
static int
parse_pair(const char *s, double min, double max, double v[LINKEM_DIRS])
{
	char buf[ARG_MAX_LEN];
	const char *half[LINKEM_DIRS];

	if (split_pair(s, buf, half) < 0)
		return -1;
	for (int d = 0; d < LINKEM_DIRS; d++)
		if (tool_parse_double(half[d], min, max, &v[d]) < 0)
			return -1;
	return 0;
}

/* The same for byte counts with K and M suffixes. */
static int
parse_pair_u64(const char *s, uint64_t max, uint64_t v[LINKEM_DIRS])
{
	char buf[ARG_MAX_LEN];
	const char *half[LINKEM_DIRS];

	if (split_pair(s, buf, half) < 0)
		return -1;
	for (int d = 0; d < LINKEM_DIRS; d++)
		if (tool_parse_u64(half[d], 0, max, &v[d]) < 0)
			return -1;
	return 0;
}

static int
parse_link_option(
	int opt, const char *name, const char *arg, struct linkem_conf *c, struct given *g)
{
	struct sst_simlink_params *p = c->dir;
	double v[LINKEM_DIRS];
	uint64_t u[LINKEM_DIRS];
	int rc;

	if (opt == OPT_QUEUE || opt == OPT_QUEUE_BYTES || opt == OPT_OVERHEAD)
		rc = parse_pair_u64(arg, opt == OPT_QUEUE ? MBUFS_MAX : UINT32_MAX, u);
	else if (opt == OPT_LOSS)
		rc = parse_pair(arg, 0, 100, v);
	else if (opt == OPT_RATE)
		rc = parse_pair(arg, 0, 1e6, v);
	else
		rc = parse_pair(arg, 0, 60000, v);
	if (rc < 0)
		return bad("bad --%s '%s'", name, arg);
	for (int d = 0; d < LINKEM_DIRS; d++) {
		switch (opt) {
		case OPT_RATE:
			p[d].rate_bps = (uint64_t)(v[d] * 1e6);
			break;
		case OPT_DELAY:
			p[d].delay_ns = (uint64_t)(v[d] * 1e6);
			break;
		case OPT_JITTER:
			p[d].jitter_ns = (uint64_t)(v[d] * 1e6);
			break;
		case OPT_LOSS:
			p[d].loss = v[d] / 100.0;
			break;
		case OPT_QUEUE:
			p[d].queue_pkts = (uint32_t)u[d];
			g->queue[d] = true;
			break;
		case OPT_QUEUE_BYTES:
			p[d].queue_bytes = u[d];
			g->queue[d] = true;
			break;
		default:
			p[d].overhead_bytes = (uint32_t)u[d];
			break;
		}
	}
	return 0;
}

static const struct option options[] = {
	{"rate", required_argument, NULL, OPT_RATE},
	{"delay", required_argument, NULL, OPT_DELAY},
	{"jitter", required_argument, NULL, OPT_JITTER},
	{"loss", required_argument, NULL, OPT_LOSS},
	{"queue", required_argument, NULL, OPT_QUEUE},
	{"queue-bytes", required_argument, NULL, OPT_QUEUE_BYTES},
	{"overhead", required_argument, NULL, OPT_OVERHEAD},
	{"seed", required_argument, NULL, OPT_SEED},
	{"time", required_argument, NULL, 't'},
	{"mbufs", required_argument, NULL, OPT_MBUFS},
	{"frames", required_argument, NULL, OPT_FRAMES},
	{"busy", no_argument, NULL, OPT_BUSY},
	{"wait", required_argument, NULL, OPT_WAIT},
	{"arrival", required_argument, NULL, OPT_ARRIVAL},
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static const char *
option_name(int opt)
{
	for (const struct option *o = options; o->name != NULL; o++)
		if (o->val == opt)
			return o->name;
	return "?";
}

/* The default bottleneck queue (see --queue-bytes in the help). */
static void
default_queues(struct linkem_conf *c, const struct given *g)
{
	for (int d = 0; d < LINKEM_DIRS; d++) {
		struct sst_simlink_params *p = &c->dir[d];
		uint64_t bdp = p->rate_bps / 8 * (2 * p->delay_ns) / SST_NSEC_PER_SEC;

		if (g->queue[d] || p->rate_bps == 0)
			continue;
		p->queue_bytes = RTE_MAX(bdp, (uint64_t)QUEUE_MIN_FRAMES * FULL_FRAME);
	}
}

/* --wait's words in enum linkem_wait's order; --arrival's. */
static const char *const wait_words[] = {"sleep", "poll", "busy", NULL};
static const char *const arrival_words[] = {"kernel", "read", NULL};

/* The index of @p s in the NULL-ended @p words, or -1. */
static int
word_index(const char *s, const char *const *words)
{
	for (int i = 0; words[i] != NULL; i++)
		if (strcmp(s, words[i]) == 0)
			return i;
	return -1;
}

static int
parse_args(int argc, char **argv, struct linkem_conf *c)
{
	struct given g = {{false, false}};
	uint64_t seed = 1, v;
	int opt, k;

	memset(c, 0, sizeof(*c));
	for (int d = 0; d < LINKEM_DIRS; d++)
		sst_simlink_params_default(&c->dir[d]);
	c->mbufs = DEFAULT_MBUFS;
	c->frames = DEFAULT_FRAMES;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "t:qh", options, NULL)) != -1) {
		switch (opt) {
		case 't':
			if (tool_parse_double(optarg, 0.001, 1e7, &c->run_s) < 0)
				return bad("bad --time '%s'", optarg);
			break;
		case 'q':
			c->quiet = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case OPT_SEED:
			if (tool_parse_u64(optarg, 0, UINT64_MAX, &seed) < 0)
				return bad("bad --seed '%s'", optarg);
			break;
		case OPT_MBUFS:
			if (tool_parse_u64(optarg, MBUFS_MIN, MBUFS_MAX, &v) < 0)
				return bad("--mbufs wants %d..%d", MBUFS_MIN, MBUFS_MAX);
			c->mbufs = (uint32_t)v;
			break;
		case OPT_FRAMES:
			if (tool_parse_u64(optarg, 64, 65536, &v) < 0)
				return bad("--frames wants 64..65536");
			c->frames = (uint32_t)v;
			break;
		case OPT_BUSY:
			c->wait = LINKEM_WAIT_BUSY;
			break;
		case OPT_WAIT:
			k = word_index(optarg, wait_words);
			if (k < 0)
				return bad("--wait wants poll, sleep or busy");
			c->wait = (enum linkem_wait)k;
			break;
		case OPT_ARRIVAL:
			k = word_index(optarg, arrival_words);
			if (k < 0)
				return bad("--arrival wants kernel or read");
			c->arrival_read = k == 1;
			break;
		case '?':
			return bad("unknown option or missing value");
		default:
			if (parse_link_option(opt, option_name(opt), optarg, c, &g) != 0)
				return TOOL_EXIT_ARGS;
			break;
		}
	}
	if (argc - optind != LINKEM_DIRS)
		return bad("two interfaces wanted, IFACE_A IFACE_B");
	c->iface[0] = argv[optind];
	c->iface[1] = argv[optind + 1];
	if (strcmp(c->iface[0], c->iface[1]) == 0)
		return bad("IFACE_A and IFACE_B are the same interface");
	for (int d = 0; d < LINKEM_DIRS; d++) {
		if (strlen(c->iface[d]) >= 16 || strpbrk(c->iface[d], ",= ") != NULL)
			return bad("bad interface name '%s'", c->iface[d]);
		/* Each direction draws from its own streams. */
		c->dir[d].seed = seed * 2 + (uint64_t)d;
	}
	default_queues(c, &g);
	for (int d = 0; d < LINKEM_DIRS; d++) {
		struct sst_simlink_params p = c->dir[d];

		p.capacity = c->mbufs;
		if (p.queue_pkts > p.capacity)
			return bad("--queue above --mbufs (%u)", c->mbufs);
		if (sst_simlink_params_check(&p) != 0)
			return bad("the link parameters are not valid");
	}
	return 0;
}

static void
print_totals(const struct linkem_dir_stats st[LINKEM_DIRS])
{
	for (int d = 0; d < LINKEM_DIRS; d++)
		printf("%s in %" PRIu64 " out %" PRIu64 " bytes %" PRIu64 " drop queue %" PRIu64
		       " loss %" PRIu64 " full %" PRIu64 " txfail %" PRIu64 "\n",
			linkem_dir_name(d), st[d].rx, st[d].tx, st[d].tx_bytes,
			st[d].link.dropped_queue, st[d].link.dropped_loss, st[d].link.dropped_full,
			st[d].tx_fail);
}

static unsigned int
eal_memory_mb(const void *conf)
{
	const struct linkem_conf *c = conf;

	return 96 + (unsigned int)((uint64_t)c->mbufs * 2560 >> 20);
}

static int
parse_cb(int argc, char **argv, void *conf)
{
	return parse_args(argc, argv, conf);
}

/* Plug the two interfaces in as net_af_packet ports. @return 0 or -1
 * after printing why. */
static int
attach_ports(const struct linkem_conf *c)
{
	char devargs[ARG_MAX_LEN];

	for (int d = 0; d < LINKEM_DIRS; d++) {
		snprintf(devargs, sizeof(devargs),
			"%s,iface=%s,framecnt=%u,framesz=%u,qdisc_bypass=1", linkem_port_name(d),
			c->iface[d], c->frames, (unsigned int)LINKEM_FRAME_SIZE);
		/* It returns -1 or an errno that says little: the EAL's log says
		 * more. */
		if (rte_dev_probe(devargs) != 0) {
			fprintf(stderr,
				"sst-linkem: cannot open interface %s as a net_af_packet "
				"port (does it exist in this network namespace? root?)\n",
				c->iface[d]);
			return -1;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct linkem_conf conf;
	struct linkem_dir_stats st[LINKEM_DIRS];
	const struct tool_start ts = {
		.prog = "sst-linkem",
		.parse = parse_cb,
		.conf = &conf,
		.eal_memory_mb = eal_memory_mb,
	};
	int rc = tool_eal_start(argc, argv, &ts);

	if (rc != 0)
		return rc;
	if (attach_ports(&conf) != 0) {
		tool_eal_fini();
		return TOOL_EXIT_SETUP;
	}
	rc = linkem_run(&conf, &tool_interrupted, st);
	if (rc == 0)
		print_totals(st);
	tool_eal_fini();
	return rc;
}
