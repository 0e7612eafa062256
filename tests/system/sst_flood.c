/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-flood: spoofed first messages against an SST responder, to see what a
 * flood costs it (issue 15 finding 3, docs/negotiation.md 5.1). For N
 * seconds it sends ChkI1 (with an SST-DPDK ulp blob, or with --legacy
 * none) and SecI1 to HOST:PORT as fast as it can, or at --rate messages per
 * second, each from its own spoofed IPv4 source: an address drawn from
 * --sources (default 198.18.0.0/15, the benchmarking range) and a port, so
 * that every message is a new (address, chani) to the responder. The
 * messages are built with lib/negotiation's builders: each ChkI1 with its
 * own key and channel number; SecI1 come from a pool of 256 real ones
 * (drawing an X25519 key per message would make the flooder slower than the
 * responder it floods, and to the responder a SecI1 from another address is
 * another handshake).
 *
 * It writes IPv4 and UDP headers itself on a raw socket (IP_HDRINCL), which
 * needs root or CAP_NET_RAW. Run it against a server in a network namespace
 * (tests/system/flood_netns.sh does), so that the spoofed packets and the
 * answers to them stay on this host.
 *
 *   sst-flood [--seconds N] [--mode chk|sec|both] [--legacy] [--rate PER_SEC]
 *             [--sources A.B.C.D/LEN] [--seed S] HOST:PORT
 *
 * SIGTERM or SIGINT end it early. Prints what it sent on stdout. Exit
 * status 0; 1 when the socket cannot be opened or a send fails; 2 on bad
 * usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "nego_secure.h"
#include "nego_wire.h"
#include "sst_negotiation.h"

enum {
	BATCH = 64,    /* messages per sendmmsg() */
	POOL = 256,    /* distinct SecI1 */
	IP_HDR = 20,   /* IPv4 header, no options */
	UDP_HDR = 8,   /* UDP header */
	MSG_MAX = 512, /* a negotiation message (a SecI1 is about 128 bytes) */
	PKT_MAX = IP_HDR + UDP_HDR + MSG_MAX,
	PORT_MIN = 1024, /* spoofed source ports: 1024..65535 */
};

struct flood {
	struct sockaddr_in to;
	uint32_t src_net, src_mask; /* host byte order */
	bool chk, sec, legacy;
	double seconds;
	uint64_t rate; /* messages per second; 0: as fast as possible */
	uint64_t rng;
	uint8_t seci1[POOL][MSG_MAX];
	size_t seci1_len[POOL];
	uint64_t sent_chk, sent_sec, bytes;
};

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t
next_rand(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
	return z ^ (z >> 31);
}

static double
now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The Internet checksum's one's complement sum of len bytes, added to sum. */
static uint32_t
ones_sum(const uint8_t *p, size_t len, uint32_t sum)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len % 2 != 0)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t
ones_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* IPv4 and UDP headers in front of the len-byte message at p + 28, from
 * src:sport (host byte order) to f->to. @return the packet's length. */
static size_t
headers(const struct flood *f, uint8_t *p, uint32_t src, uint16_t sport, size_t len, uint16_t id)
{
	size_t ulen = UDP_HDR + len;
	uint32_t sum;
	uint16_t c;

	p[0] = 0x45; /* version 4, 5 words */
	p[1] = 0;
	put16(p + 2, (uint16_t)(IP_HDR + ulen));
	put16(p + 4, id);
	put16(p + 6, 0);
	p[8] = 64;
	p[9] = IPPROTO_UDP;
	put16(p + 10, 0);
	put16(p + 12, (uint16_t)(src >> 16));
	put16(p + 14, (uint16_t)src);
	memcpy(p + 16, &f->to.sin_addr, 4);
	put16(p + 10, ones_fold(ones_sum(p, IP_HDR, 0)));
	put16(p + 20, sport);
	memcpy(p + 22, &f->to.sin_port, 2);
	put16(p + 24, (uint16_t)ulen);
	put16(p + 26, 0);
	/* Pseudo-header: source, destination, protocol, UDP length. */
	sum = ones_sum(p + 12, 8, IPPROTO_UDP + (uint32_t)ulen);
	c = ones_fold(ones_sum(p + IP_HDR, ulen, sum));
	put16(p + 26, c != 0 ? c : 0xffff);
	return IP_HDR + ulen;
}

/* A ChkI1 as an initiator would send it, its key and number drawn. */
static size_t
build_chki1(struct flood *f, uint8_t *msg)
{
	uint8_t ulp[SST_NEGO_ULP_LEN];
	struct sst_nego_chki1 i1 = {
		.cki = (uint32_t)next_rand(&f->rng),
		.chani = 1 + (uint32_t)(next_rand(&f->rng) % 255),
	};
	struct sst_nego_builder b;

	if (!f->legacy) {
		i1.ulpi.ptr = ulp;
		i1.ulpi.len = (size_t)sst_nego_ulp_encode_instance(SST_NEGO_ULP_VERSION,
			SST_NEGO_CAP_ALL, next_rand(&f->rng) | 1, ulp, sizeof(ulp));
	}
	sst_nego_build_begin(&b, msg, MSG_MAX);
	if (sst_nego_build_chki1(&b, &i1) < 0)
		return 0;
	return sst_nego_build_end(&b);
}

/* POOL real SecI1 (anonymous initiators offering every suite), each with its
 * own ephemeral key, nonce and channel number. */
static int
build_pool(struct flood *f)
{
	struct sst_secure_config cfg = {.size = sizeof(cfg)};
	uint8_t ulp[SST_NEGO_ULP_LEN];
	int ulp_len = sst_nego_ulp_encode_instance(
		SST_NEGO_ULP_VERSION, SST_NEGO_CAP_ALL, 1 + next_rand(&f->rng), ulp, sizeof(ulp));

	sst_secure_suites_default(&cfg, true, true);
	cfg.random = sst_secure_random_sodium;
	for (int k = 0; k < POOL; k++) {
		struct sst_secure_initiator st;
		struct sst_nego_builder b;
		int rc;

		sst_nego_build_begin(&b, f->seci1[k], MSG_MAX);
		rc = sst_secure_initiator_start(
			&st, &cfg, (uint8_t)(1 + k % 255), ulp, (size_t)ulp_len, &b);
		sst_secure_initiator_fini(&st);
		if (rc < 0)
			return rc;
		f->seci1_len[k] = sst_nego_build_end(&b);
	}
	return 0;
}

static int
parse_sources(struct flood *f, const char *arg)
{
	char buf[32];
	struct in_addr a;
	char *slash;
	long len;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	strcpy(buf, arg);
	slash = strchr(buf, '/');
	if (slash == NULL)
		return -1;
	*slash = '\0';
	len = strtol(slash + 1, NULL, 10);
	if (inet_pton(AF_INET, buf, &a) != 1 || len < 8 || len > 32)
		return -1;
	f->src_mask = len == 32 ? 0 : UINT32_MAX >> len;
	f->src_net = ntohl(a.s_addr) & ~f->src_mask;
	return 0;
}

static int
parse_target(struct flood *f, const char *arg)
{
	char buf[64];
	char *colon;
	long port;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	strcpy(buf, arg);
	colon = strrchr(buf, ':');
	if (colon == NULL)
		return -1;
	*colon = '\0';
	port = strtol(colon + 1, NULL, 10);
	f->to.sin_family = AF_INET;
	f->to.sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, buf, &f->to.sin_addr) == 1 && port > 0 && port < 65536 ? 0 : -1;
}

static void
usage(FILE *out)
{
	fprintf(out, "usage: sst-flood [--seconds N] [--mode chk|sec|both] [--legacy] "
		     "[--rate PER_SEC]\n"
		     "                 [--sources A.B.C.D/LEN] [--seed S] HOST:PORT\n"
		     "  spoofed ChkI1/SecI1 to an SST responder, one source per message "
		     "(root: a raw socket)\n");
}

/* Send for f->seconds. @return 0, or -1 on a send error. */
static int
run(struct flood *f, int fd)
{
	static uint8_t pkts[BATCH][PKT_MAX];
	struct mmsghdr mm[BATCH];
	struct iovec iov[BATCH];
	double start = now_sec(), t = start;
	uint64_t n = 0, id = 0;

	memset(mm, 0, sizeof(mm));
	while (t - start < f->seconds && !stop) {
		unsigned int k, sent = 0;

		if (f->rate != 0 && (double)n >= (t - start) * (double)f->rate) {
			struct timespec pause = {0, 100000};

			nanosleep(&pause, NULL);
			t = now_sec();
			continue;
		}
		for (k = 0; k < BATCH; k++) {
			uint64_t r = next_rand(&f->rng);
			uint32_t src = f->src_net | ((uint32_t)r & f->src_mask);
			uint16_t sport = (uint16_t)(PORT_MIN + (r >> 32) % (65536 - PORT_MIN));
			bool sec = f->sec && (!f->chk || (r >> 60) % 2 == 0);
			uint8_t *msg = pkts[k] + IP_HDR + UDP_HDR;
			size_t len;

			if (sec) {
				unsigned int i = (unsigned int)((r >> 48) % POOL);

				len = f->seci1_len[i];
				memcpy(msg, f->seci1[i], len);
				f->sent_sec++;
			} else {
				len = build_chki1(f, msg);
				f->sent_chk++;
			}
			iov[k].iov_base = pkts[k];
			iov[k].iov_len = headers(f, pkts[k], src, sport, len, (uint16_t)id++);
			mm[k].msg_hdr.msg_name = &f->to;
			mm[k].msg_hdr.msg_namelen = sizeof(f->to);
			mm[k].msg_hdr.msg_iov = &iov[k];
			mm[k].msg_hdr.msg_iovlen = 1;
			f->bytes += len;
		}
		while (sent < BATCH) {
			int rc = sendmmsg(fd, mm + sent, BATCH - sent, 0);

			if (rc < 0 && errno != EINTR && errno != ENOBUFS) {
				perror("sst-flood: sendmmsg");
				return -1;
			}
			if (rc > 0)
				sent += (unsigned int)rc;
		}
		n += BATCH;
		t = now_sec();
	}
	f->seconds = t - start;
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"seconds", required_argument, NULL, 't'},
		{"mode", required_argument, NULL, 'm'},
		{"legacy", no_argument, NULL, 'l'},
		{"rate", required_argument, NULL, 'r'},
		{"sources", required_argument, NULL, 's'},
		{"seed", required_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static struct flood f;
	int c, fd, one = 1, rc;

	f.seconds = 5;
	f.chk = f.sec = true;
	f.rng = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	parse_sources(&f, "198.18.0.0/15");
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			f.seconds = strtod(optarg, NULL);
			break;
		case 'm':
			f.chk = strcmp(optarg, "sec") != 0;
			f.sec = strcmp(optarg, "chk") != 0;
			if (strcmp(optarg, "chk") != 0 && strcmp(optarg, "sec") != 0 &&
				strcmp(optarg, "both") != 0) {
				usage(stderr);
				return 2;
			}
			break;
		case 'l':
			f.legacy = true;
			break;
		case 'r':
			f.rate = strtoull(optarg, NULL, 10);
			break;
		case 's':
			if (parse_sources(&f, optarg) < 0) {
				usage(stderr);
				return 2;
			}
			break;
		case 'S':
			f.rng = strtoull(optarg, NULL, 0);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || parse_target(&f, argv[optind]) < 0 || !(f.seconds > 0)) {
		usage(stderr);
		return 2;
	}
	if (sodium_init() < 0 || (f.sec && build_pool(&f) < 0)) {
		fprintf(stderr, "sst-flood: cannot build SecI1\n");
		return 1;
	}
	{
		struct sigaction sa = {.sa_handler = on_signal};

		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
	}
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0 || setsockopt(fd, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one)) < 0) {
		perror("sst-flood: raw socket (root or CAP_NET_RAW)");
		return 1;
	}
	rc = run(&f, fd);
	close(fd);
	printf("sst-flood: %llu messages (%llu ChkI1%s, %llu SecI1) in %.2f s: %.0f per second, "
	       "%.1f Mbit/s of UDP payload\n",
		(unsigned long long)(f.sent_chk + f.sent_sec), (unsigned long long)f.sent_chk,
		f.legacy ? " legacy" : "", (unsigned long long)f.sent_sec, f.seconds,
		(double)(f.sent_chk + f.sent_sec) / f.seconds,
		(double)f.bytes * 8 / f.seconds / 1e6);
	return rc < 0 ? 1 : 0;
}
