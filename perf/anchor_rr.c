/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel's transaction anchors for perf/compare.sh (issue 17): both
 * ends in this process, one thread each, over 127.0.0.1, so that the
 * scheduler's accounting of this one process (its threads' stat files in
 * /proc/PID/task) is the CPU time of both ends, as it is for sst-perf --loopback.
 *
 *   udp: UDP ping-pong, one datagram each way per transaction on a
 *        connected socket pair (netperf's UDP_RR);
 *   crr: a new TCP connection per transaction: connect, request, response,
 *        close (netperf's TCP_CRR).
 *
 * One progress line a second on stdout, in sst-perf's rr format
 * ("[  1.00 s]  N transactions/s, TOTAL in all"), so that compare.sh reads
 * both the same way and measures between two lines, away from the setup.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { MAX_MSG = 65536 };

struct anchor {
	bool crr;
	size_t size;
	double seconds;
	int server_fd; /* udp: the server's socket; crr: the listener */
	struct sockaddr_in at;
	atomic_bool stop;
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A blocked server call returns every 100 ms to look at the stop flag. */
static void
set_timeout(int fd)
{
	struct timeval tv = {.tv_sec = 0, .tv_usec = 100000};

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/* Read (out: write) exactly n bytes of a stream. @return 0, or -1 (closed
 * or failed). */
static int
stream_all(int fd, char *buf, size_t n, bool out)
{
	while (n > 0) {
		ssize_t r = out ? write(fd, buf, n) : read(fd, buf, n);

		if (r <= 0)
			return -1;
		buf += r;
		n -= (size_t)r;
	}
	return 0;
}

static void *
server(void *arg)
{
	struct anchor *a = arg;
	static char buf[MAX_MSG];

	while (!atomic_load(&a->stop)) {
		if (!a->crr) {
			struct sockaddr_in from;
			socklen_t fl = sizeof(from);
			ssize_t r = recvfrom(
				a->server_fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);

			if (r > 0)
				sendto(a->server_fd, buf, (size_t)r, 0, (struct sockaddr *)&from,
					fl);
			continue;
		}
		int fd = accept(a->server_fd, NULL, NULL);

		if (fd < 0)
			continue;
		if (stream_all(fd, buf, a->size, false) == 0)
			stream_all(fd, buf, a->size, true);
		close(fd);
	}
	return NULL;
}

/* One transaction from the client's side. @return 0 or -1. */
static int
transact(struct anchor *a, int udp_fd, char *buf)
{
	int fd, rc = -1;

	if (!a->crr) {
		if (send(udp_fd, buf, a->size, 0) < 0)
			return -1;
		return recv(udp_fd, buf, a->size, 0) == (ssize_t)a->size ? 0 : -1;
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a->at, sizeof(a->at)) == 0 &&
		stream_all(fd, buf, a->size, true) == 0 && stream_all(fd, buf, a->size, false) == 0)
		rc = 0;
	close(fd);
	return rc;
}

static int
open_server(struct anchor *a)
{
	socklen_t l = sizeof(a->at);

	a->server_fd = socket(AF_INET, a->crr ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (a->server_fd < 0)
		return -1;
	memset(&a->at, 0, sizeof(a->at));
	a->at.sin_family = AF_INET;
	a->at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(a->server_fd, (struct sockaddr *)&a->at, sizeof(a->at)) < 0 ||
		getsockname(a->server_fd, (struct sockaddr *)&a->at, &l) < 0)
		return -1;
	if (a->crr && listen(a->server_fd, 1024) < 0)
		return -1;
	set_timeout(a->server_fd);
	return 0;
}

static void
usage(void)
{
	fprintf(stderr, "usage: anchor_rr udp|crr [-t SECONDS] [-s BYTES]\n"
			"  udp: kernel UDP ping-pong; crr: a TCP connection per transaction\n"
			"  -t: run time (default 5), -s: bytes each way (default 32)\n");
}

int
main(int argc, char **argv)
{
	static char buf[MAX_MSG];
	struct anchor a = {.size = 32, .seconds = 5};
	uint64_t done = 0, last = 0, tries = 0;
	double t0, next;
	pthread_t th;
	int opt, udp_fd = -1;

	if (argc < 2 || (strcmp(argv[1], "udp") != 0 && strcmp(argv[1], "crr") != 0)) {
		usage();
		return 2;
	}
	a.crr = strcmp(argv[1], "crr") == 0;
	optind = 2;
	while ((opt = getopt(argc, argv, "t:s:")) != -1) {
		if (opt == 't') {
			a.seconds = atof(optarg);
		} else if (opt == 's') {
			a.size = (size_t)atol(optarg);
		} else {
			usage();
			return 2;
		}
	}
	if (a.size == 0 || a.size > MAX_MSG || a.seconds <= 0) {
		usage();
		return 2;
	}
	if (open_server(&a) < 0) {
		perror("anchor_rr: server socket");
		return 1;
	}
	if (!a.crr) {
		udp_fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (udp_fd < 0 || connect(udp_fd, (struct sockaddr *)&a.at, sizeof(a.at)) < 0) {
			perror("anchor_rr: client socket");
			return 1;
		}
		/* A datagram lost to a full buffer is sent again. */
		set_timeout(udp_fd);
	}
	if (pthread_create(&th, NULL, server, &a) != 0) {
		fprintf(stderr, "anchor_rr: cannot start the server thread\n");
		return 1;
	}
	memset(buf, 'x', a.size);
	t0 = now_s();
	next = t0 + 1;
	for (;;) {
		double t;

		if (transact(&a, udp_fd, buf) == 0)
			done++;
		if ((++tries & 63) != 0)
			continue;
		t = now_s();
		if (t >= next) {
			printf("[%6.2f s] %10" PRIu64 " transactions/s, %" PRIu64 " in all\n",
				t - t0, done - last, done);
			fflush(stdout);
			last = done;
			next += 1;
		}
		if (t - t0 >= a.seconds)
			break;
	}
	atomic_store(&a.stop, true);
	pthread_join(th, NULL);
	printf("transactions %" PRIu64 " in %.2f s\n", done, now_s() - t0);
	return 0;
}
