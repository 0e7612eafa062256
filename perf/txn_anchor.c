/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * txn_anchor: the kernel's side of the transaction experiments
 * (scripts/evaluate.sh, docs/evaluation.md, Figure 7 of the SST paper).
 * Request/response transactions over kernel TCP and UDP, timed by the
 * client, to set beside sst-perf's rr mode over the same emulated link:
 *
 *   txn_anchor server [--port P]
 *   txn_anchor client HOST [--port P] --mode conn|persist|udp
 *              [--request B] [--response B] [--count N] [--timeout MS]
 *   txn_anchor pair udp|crr [--size B] [--seconds S]
 *
 * conn: a new TCP connection per transaction (the handshake is in every
 * latency); persist: one TCP connection for all of them; udp: one request
 * datagram, answered by a response of up to 65,507 bytes (a UDP datagram's
 * most) in pieces of one packet each, all sent again when the request
 * comes again (the client resends it after --timeout, 10 times at most,
 * then counts the transaction as failed). The pieces stand for the IP
 * fragments of one large datagram: losing one loses the whole response.
 * They are datagrams of their own because an emulator on net_af_packet
 * never sees IP fragments (DPDK's af_packet socket asks the kernel to
 * reassemble them, and a reassembled datagram is no frame of the link).
 * A request starts with its own length and the response length wanted
 * (two 32-bit big-endian words; udp adds the transaction's number). The
 * client prints one JSON object: the latency distribution in microseconds
 * of the transactions that completed, the failed ones and, for udp, the
 * resends.
 *
 * pair: the transaction anchors of perf/compare.sh (issue 17), both ends in
 * this process, the server a thread, over 127.0.0.1, so that the
 * scheduler's accounting of this one process (its threads' stat files in
 * /proc/PID/task) is the CPU time of both ends, as it is for sst-perf
 * --loopback: udp is a ping-pong of one datagram each way (netperf's
 * UDP_RR), crr a new TCP connection per transaction (netperf's TCP_CRR),
 * --size bytes each way (default 32). It prints a progress line a second
 * in sst-perf's rr format ("[  1.00 s]  N transactions/s, TOTAL in all"),
 * so that compare.sh reads both the same way and measures between two
 * lines, away from the setup.
 *
 * Plain POSIX and the kernel's sockets: no DPDK, no SST.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum {
	DEFAULT_PORT = 5201 + 100,
	HEADER = 8,
	UDP_MAX = 65507,
	MAX_MSG = 64 << 20,
	MAX_COUNT = 1000000,
	CHUNK = 65536,
};

/* Per thread: pair runs the server and the client in one process. */
static _Thread_local uint8_t buf[CHUNK];

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static int
die(const char *what)
{
	fprintf(stderr, "txn_anchor: %s: %s\n", what, strerror(errno));
	return 1;
}

/* Read (or write) exactly len bytes. @return 0, or -1 at an error or the
 * end of the connection. */
static int
io_full(int fd, void *p, size_t len, bool writing)
{
	uint8_t *b = p;

	while (len > 0) {
		ssize_t n = writing ? write(fd, b, len) : read(fd, b, len);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			return -1;
		}
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

static int
read_full(int fd, void *p, size_t len)
{
	return io_full(fd, p, len, false);
}

static int
write_full(int fd, const void *p, size_t len)
{
	return io_full(fd, (void *)(uintptr_t)p, len, true);
}

/* Read and drop len bytes. */
static int
drain(int fd, uint64_t len)
{
	while (len > 0) {
		size_t n = len < sizeof(buf) ? (size_t)len : sizeof(buf);

		if (read_full(fd, buf, n) < 0)
			return -1;
		len -= n;
	}
	return 0;
}

/* Write len bytes of the zero pattern, header words first. */
static int
send_msg(int fd, uint32_t len, uint32_t want)
{
	uint32_t h[2] = {htonl(len), htonl(want)};
	uint32_t left = len > HEADER ? len - HEADER : 0;

	if (write_full(fd, h, HEADER) < 0)
		return -1;
	while (left > 0) {
		uint32_t n = left < sizeof(buf) ? left : (uint32_t)sizeof(buf);

		if (write_full(fd, buf, n) < 0)
			return -1;
		left -= n;
	}
	return 0;
}

/* Read one request (its header then the rest). @return the response size
 * asked for, or -1 at the end of the connection. */
static int64_t
recv_request(int fd)
{
	uint32_t h[2];
	uint32_t len;

	if (read_full(fd, h, HEADER) < 0)
		return -1;
	len = ntohl(h[0]);
	if (len > MAX_MSG || (len > HEADER && drain(fd, len - HEADER) < 0))
		return -1;
	return ntohl(h[1]);
}

static void
serve_tcp_conn(int fd)
{
	int64_t want;

	while ((want = recv_request(fd)) >= 0)
		if (send_msg(fd, (uint32_t)(want < HEADER ? HEADER : want), 0) < 0)
			break;
	close(fd);
}

/* The payload of one UDP piece, after its id and index words, so that a
 * piece fits a 1500-byte packet. */
enum { UDP_PIECE = 1400, UDP_MAX_RESENDS = 10 };

/* Answers requests until *stop (never, when stop is NULL; with a stop
 * flag the socket has a receive timeout, so that the flag is seen). */
static void
serve_udp(int fd, const atomic_bool *stop)
{
	struct sockaddr_storage from;
	socklen_t fl;

	while (stop == NULL || !atomic_load(stop)) {
		uint32_t h[3], want;
		ssize_t n;

		fl = sizeof(from);
		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		if (n < (ssize_t)sizeof(h))
			continue;
		memcpy(h, buf, sizeof(h));
		want = ntohl(h[1]);
		if (want > UDP_MAX)
			want = UDP_MAX;
		/* Each piece: the request's id, the piece's index, its payload. */
		for (uint32_t i = 0; i * UDP_PIECE < want || i == 0; i++) {
			uint32_t len =
				want - i * UDP_PIECE < UDP_PIECE ? want - i * UDP_PIECE : UDP_PIECE;
			uint32_t ph[2] = {h[2], htonl(i)};

			memcpy(buf, ph, sizeof(ph));
			sendto(fd, buf, sizeof(ph) + len, 0, (struct sockaddr *)&from, fl);
		}
	}
}

static int
bound_socket(int type, uint16_t port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	int one = 1;
	int fd = socket(AF_INET, type, 0);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int
server(uint16_t port)
{
	int lfd = bound_socket(SOCK_STREAM, port);
	int ufd = bound_socket(SOCK_DGRAM, port);
	int one = 1;

	if (lfd < 0 || ufd < 0 || listen(lfd, 1024) < 0)
		return die("bind");
	signal(SIGCHLD, SIG_IGN); /* connection children reap themselves */
	if (fork() == 0) {
		/* Children end with the server (a script kills only its pid). */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		close(lfd);
		serve_udp(ufd, NULL);
		_exit(0);
	}
	close(ufd);
	for (;;) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return die("accept");
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (fork() == 0) {
			prctl(PR_SET_PDEATHSIG, SIGTERM);
			close(lfd);
			serve_tcp_conn(fd);
			_exit(0);
		}
		close(fd);
	}
}

struct client_conf {
	struct sockaddr_in to;
	const char *mode;
	uint32_t request, response, count;
	int timeout_ms;
};

static int
tcp_connect(const struct client_conf *c)
{
	int one = 1;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (const struct sockaddr *)&c->to, sizeof(c->to)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* One transaction on a connected TCP socket. */
static int
tcp_txn(int fd, const struct client_conf *c)
{
	if (send_msg(fd, c->request, c->response) < 0)
		return -1;
	return drain(fd, c->response < HEADER ? HEADER : c->response);
}

/* One UDP transaction (request id @p id), the request resent after the
 * timeout. @return resends, or -1 when the response never came whole. */
static int
udp_txn(int fd, const struct client_conf *c, uint32_t id)
{
	uint32_t h[3] = {htonl(c->request), htonl(c->response), htonl(id)};
	uint32_t pieces = c->response == 0 ? 1 : (c->response + UDP_PIECE - 1) / UDP_PIECE;
	uint64_t got = 0, all = pieces >= 64 ? UINT64_MAX : (UINT64_C(1) << pieces) - 1;
	uint8_t req[UDP_PIECE];
	int resends = 0;

	memset(req, 0, sizeof(req));
	memcpy(req, h, sizeof(h));
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		uint32_t ph[2];

		if (send(fd, req, c->request < sizeof(h) ? sizeof(h) : c->request, 0) < 0)
			return -1;
		while (poll(&p, 1, c->timeout_ms) == 1) {
			ssize_t n = recv(fd, buf, sizeof(buf), 0);

			if (n < (ssize_t)sizeof(ph))
				continue;
			memcpy(ph, buf, sizeof(ph));
			if (ntohl(ph[0]) != id || ntohl(ph[1]) >= pieces)
				continue; /* a late piece of an earlier transaction */
			got |= UINT64_C(1) << ntohl(ph[1]);
			if (got == all)
				return resends;
		}
		if (++resends > UDP_MAX_RESENDS)
			return -1;
	}
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
pct(const double *v, uint32_t n, double p)
{
	return v[(uint32_t)(p * (n - 1) + 0.5)];
}

static int
client(const struct client_conf *c)
{
	double *lat = calloc(c->count, sizeof(*lat));
	bool conn = strcmp(c->mode, "conn") == 0, udp = strcmp(c->mode, "udp") == 0;
	int fd = -1, resends = 0;
	uint32_t done = 0; /* transactions that completed */
	double sum = 0;

	if (lat == NULL)
		return die("calloc");
	if (udp) {
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd < 0 || connect(fd, (const struct sockaddr *)&c->to, sizeof(c->to)) < 0)
			return die("udp socket");
	} else if (!conn && (fd = tcp_connect(c)) < 0) {
		return die("connect");
	}
	for (uint32_t i = 0; i < c->count; i++) {
		double t0 = now_us();
		int rc;

		if (conn) {
			fd = tcp_connect(c);
			if (fd < 0)
				return die("connect");
		}
		rc = udp ? udp_txn(fd, c, i) : tcp_txn(fd, c);
		if (rc < 0 && !udp)
			return die("transaction");
		if (rc >= 0) {
			resends += udp ? rc : 0;
			lat[done] = now_us() - t0;
			sum += lat[done++];
		}
		if (conn) {
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0)
		close(fd);
	printf("{\"mode\":\"%s\",\"request\":%u,\"response\":%u,\"count\":%u,\"failed\":%u,",
		c->mode, c->request, c->response, c->count, c->count - done);
	if (done == 0) {
		printf("\"latency_us\":null,\"resends\":%d}\n", resends);
	} else {
		qsort(lat, done, sizeof(*lat), cmp_double);
		printf("\"latency_us\":{\"min\":%.1f,\"p10\":%.1f,\"p50\":%.1f,\"p90\":%.1f,"
		       "\"max\":%.1f,\"mean\":%.1f},\"resends\":%d}\n",
			lat[0], pct(lat, done, 0.1), pct(lat, done, 0.5), pct(lat, done, 0.9),
			lat[done - 1], sum / done, resends);
	}
	free(lat);
	return 0;
}

static int
usage(void)
{
	fprintf(stderr,
		"usage: txn_anchor server [--port P]\n"
		"       txn_anchor client HOST [--port P] --mode conn|persist|udp\n"
		"                  [--request B] [--response B] [--count N] "
		"[--timeout MS]\n"
		"       txn_anchor pair udp|crr [--size B] [--seconds S]\n"
		"  pair: both ends in this process (perf/compare.sh): udp ping-pong or a TCP\n"
		"  connection per transaction, B bytes each way (default 32, at most 1400)\n");
	return 2;
}

static int
num(const char *s, unsigned long max, uint32_t *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* ---- pair: both ends in one process ---- */

struct pair {
	bool crr;
	uint32_t size;
	double seconds;
	int server_fd; /* udp: the server's socket; crr: the listener */
	struct client_conf c;
	atomic_bool stop;
};

/* A blocked server call returns every 100 ms to look at the stop flag. */
static void
recv_timeout(int fd)
{
	struct timeval tv = {.tv_sec = 0, .tv_usec = 100000};

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

static void *
pair_server(void *arg)
{
	struct pair *p = arg;

	if (!p->crr) {
		serve_udp(p->server_fd, &p->stop);
		return NULL;
	}
	while (!atomic_load(&p->stop)) {
		int fd = accept(p->server_fd, NULL, NULL);

		if (fd >= 0)
			serve_tcp_conn(fd); /* one transaction, then the client closes */
	}
	return NULL;
}

static int
pair_open_server(struct pair *p)
{
	socklen_t l = sizeof(p->c.to);

	p->server_fd = socket(AF_INET, p->crr ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (p->server_fd < 0)
		return -1;
	p->c.to.sin_family = AF_INET;
	p->c.to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(p->server_fd, (struct sockaddr *)&p->c.to, sizeof(p->c.to)) < 0 ||
		getsockname(p->server_fd, (struct sockaddr *)&p->c.to, &l) < 0)
		return -1;
	if (p->crr && listen(p->server_fd, 1024) < 0)
		return -1;
	recv_timeout(p->server_fd);
	return 0;
}

/* One transaction from the client's side. @return 0 or -1. */
static int
pair_transact(struct pair *p, int udp_fd, uint32_t id)
{
	int fd, rc;

	if (!p->crr)
		return udp_txn(udp_fd, &p->c, id) < 0 ? -1 : 0;
	fd = tcp_connect(&p->c);
	if (fd < 0)
		return -1;
	rc = tcp_txn(fd, &p->c);
	close(fd);
	return rc;
}

static int
pair(struct pair *p)
{
	uint64_t done = 0, last = 0, tries = 0;
	double t0, next;
	pthread_t th;
	int udp_fd = -1;

	p->c.request = p->c.response = p->size;
	p->c.timeout_ms = 100; /* a ping-pong datagram lost to a full buffer is sent again */
	if (pair_open_server(p) < 0)
		return die("server socket");
	if (!p->crr) {
		udp_fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (udp_fd < 0 || connect(udp_fd, (struct sockaddr *)&p->c.to, sizeof(p->c.to)) < 0)
			return die("client socket");
	}
	if (pthread_create(&th, NULL, pair_server, p) != 0) {
		fprintf(stderr, "txn_anchor: cannot start the server thread\n");
		return 1;
	}
	t0 = now_us() / 1e6;
	next = t0 + 1;
	for (;;) {
		double t;

		if (pair_transact(p, udp_fd, (uint32_t)tries) == 0)
			done++;
		if ((++tries & 63) != 0)
			continue;
		t = now_us() / 1e6;
		if (t >= next) {
			printf("[%6.2f s] %10" PRIu64 " transactions/s, %" PRIu64 " in all\n",
				t - t0, done - last, done);
			fflush(stdout);
			last = done;
			next += 1;
		}
		if (t - t0 >= p->seconds)
			break;
	}
	atomic_store(&p->stop, true);
	pthread_join(th, NULL);
	printf("transactions %" PRIu64 " in %.2f s\n", done, now_us() / 1e6 - t0);
	return 0;
}

static int
pair_main(int argc, char **argv)
{
	struct pair p = {.size = 32, .seconds = 5};
	uint32_t v;

	if (argc < 3 || (strcmp(argv[2], "udp") != 0 && strcmp(argv[2], "crr") != 0))
		return usage();
	p.crr = strcmp(argv[2], "crr") == 0;
	for (int i = 3; i < argc; i += 2) {
		const char *o = argv[i], *a = i + 1 < argc ? argv[i + 1] : NULL;

		if (a == NULL)
			return usage();
		if (strcmp(o, "--size") == 0 && num(a, UDP_PIECE, &p.size) == 0 && p.size > 0)
			continue;
		if (strcmp(o, "--seconds") == 0 && num(a, 86400, &v) == 0 && v > 0) {
			p.seconds = v;
			continue;
		}
		return usage();
	}
	return pair(&p);
}

int
main(int argc, char **argv)
{
	struct client_conf c = {
		.mode = "conn", .request = 64, .response = 64, .count = 100, .timeout_ms = 1000};
	uint32_t port = DEFAULT_PORT, v;
	const char *host = NULL;
	bool is_server;

	if (argc < 2)
		return usage();
	if (strcmp(argv[1], "pair") == 0)
		return pair_main(argc, argv);
	is_server = strcmp(argv[1], "server") == 0;
	if (!is_server && strcmp(argv[1], "client") != 0)
		return usage();
	for (int i = 2; i < argc; i++) {
		const char *o = argv[i], *a = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = 0;

		if (o[0] != '-' && !is_server && host == NULL) {
			host = o;
			continue;
		}
		if (a == NULL)
			return usage();
		if (strcmp(o, "--port") == 0)
			rc = num(a, 65535, &port);
		else if (strcmp(o, "--mode") == 0)
			c.mode = a;
		else if (strcmp(o, "--request") == 0)
			rc = num(a, MAX_MSG, &c.request);
		else if (strcmp(o, "--response") == 0)
			rc = num(a, MAX_MSG, &c.response);
		else if (strcmp(o, "--count") == 0)
			rc = num(a, MAX_COUNT, &c.count) < 0 || c.count == 0 ? -1 : 0;
		else if (strcmp(o, "--timeout") == 0)
			rc = num(a, 60000, &v) < 0 || v == 0 ? -1 : (c.timeout_ms = (int)v, 0);
		else
			rc = -1;
		if (rc < 0)
			return usage();
		i++;
	}
	if (is_server)
		return server((uint16_t)port);
	if (host == NULL || (strcmp(c.mode, "conn") != 0 && strcmp(c.mode, "persist") != 0 &&
				    strcmp(c.mode, "udp") != 0))
		return usage();
	if (strcmp(c.mode, "udp") == 0 && c.response > UDP_MAX) {
		fprintf(stderr, "txn_anchor: udp responses are at most %d bytes\n", UDP_MAX);
		return 2;
	}
	c.to.sin_family = AF_INET;
	c.to.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &c.to.sin_addr) != 1) {
		fprintf(stderr, "txn_anchor: '%s' is not an IPv4 address\n", host);
		return 2;
	}
	return client(&c);
}
