/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tools' hosts (tool_link.h): EAL, pools, and an engine (sst_engine.h)
 * of `workers` workers on the chosen link, all polled by the tool's thread
 * (embedded mode), with the counters summed over the workers.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include <rte_cpuflags.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "sst_eal.h"
#include "sst_engine.h"
#include "sst_ethdev.h"
#include "sst_udpsock.h"
#include "sst_link.h"
#include "sst_pool.h"
#include "sst_simpair.h"
#include "tool_args.h"
#include "tool_link.h"

enum {
	DATA_ROOM = 2048,
	DEFAULT_MBUFS = 16383,
	DEFAULT_SOCK_BUFFER = 4 << 20,
	LOOPBACK_CAPACITY = 32768,
	DEFAULT_QUEUE_PKTS = 1000,
};

/* How long a net that receives nothing keeps spinning before it naps,
 * and the longest nap: short enough that a person or a pipe never waits
 * noticeably, long enough that an idle tool costs no CPU. Over kernel
 * sockets, net_af_packet and net_af_xdp ports the sleep is a poll() that
 * a packet ends at once, entered as soon as a pass finds nothing (no
 * spin), so it may be longer: it bounds only how late the tools' own
 * timers run (progress lines, schedules, the retries of a server short of
 * mbufs). */
#define IDLE_SPIN_NS (2 * SST_NSEC_PER_MSEC)
#define IDLE_SLEEP_NS (200 * SST_NSEC_PER_USEC)
#define IDLE_BLOCK_NS (1 * SST_NSEC_PER_MSEC)

struct tool_host {
	char name[16];
	struct rte_mempool *pool, *clones;
	struct sst_engine *e;
	uint16_t workers;
	struct sst_net_endpoint self;
	enum sst_nego_mode mode;
	struct sst_secure_identity id;
	bool has_id;
	struct sst_secure_config sec;
	/* --capture FILE.pcapng: the engine writes <stem>-w<i>.pcapng, one
	 * file a worker (its captures belong to their workers' threads); a
	 * host of one worker renames its file to FILE when the engine has
	 * closed it (capture_file empty: nothing to rename). */
	char capture_stem[4096];
	char capture_file[4096];
};

struct tool_net {
	struct tool_host *h[2];
	int n;
	struct sst_simpair *pair;
	struct sst_simpair_conf spc[2];
	const void *spc_ptr[2][1];
	/* Loopback with several workers: a net_ring pair, frames through lib/net. */
	char ring_name[16];
	uint16_t ring_queues;
	struct sst_ethdev_link_conf eth[2][SST_WORKERS_MAX];
	const void *eth_ptr[2][SST_WORKERS_MAX];
	struct sst_udpsock_conf udp; /* udp: every worker's driver_conf */
	const void *udp_ptr[SST_WORKERS_MAX];
	uint64_t last_rx;
	sst_time_t busy_at;
	/* What every worker of the net can block on (wait_fds()), found at
	 * the first idle pass: nfds 0 when one of them has nothing. */
	struct pollfd fds[2 * SST_WORKERS_MAX];
	nfds_t nfds;
	bool fds_known;
	/** The time of the pass tool_net_poll() is making, 0 outside one: the
	 * loopback link's clock during a pass, so that a pass reads the clock
	 * once, not at every burst of each side (issue 17). */
	sst_time_t pass_now;
	char desc[160];
};

sst_time_t
tool_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (sst_time_t)ts.tv_sec * SST_NSEC_PER_SEC + (sst_time_t)ts.tv_nsec;
}

static sst_time_t
pair_clock(void *ctx)
{
	const struct tool_net *n = ctx;

	return n->pass_now != 0 ? n->pass_now : tool_now();
}

/* The CPUs this process may run on, as an EAL cpuset "(0,1,...)": the
 * EAL pins its main thread to lcore 0's cpuset, and pinning every tool
 * (and every test running in parallel) to CPU 0 would make them share
 * one core. */
static void
allowed_cpus(char *buf, size_t len)
{
	cpu_set_t set;
	size_t used = 0;

	snprintf(buf, len, "(0)");
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return;
	buf[used++] = '(';
	for (int c = 0; c < CPU_SETSIZE && used + 8 < len; c++)
		if (CPU_ISSET(c, &set))
			used += (size_t)snprintf(
				buf + used, len - used, "%s%d", buf[used - 1] == '(' ? "" : ",", c);
	snprintf(buf + used, len - used, ")");
}

/* The tool's own arguments: @p app_argv gets a new vector (free() it):
 * argv[0], then what follows "--", or all of argv without "--". @return
 * its length, or -1 (out of memory). */
static int
eal_split(int argc, char **argv, char ***app_argv)
{
	int sep = 0;
	char **v;

	for (int i = 1; i < argc && sep == 0; i++)
		if (strcmp(argv[i], "--") == 0)
			sep = i;
	v = calloc((size_t)(argc - sep + 1), sizeof(*v));
	if (v == NULL)
		return -1;
	v[0] = argv[0];
	for (int i = sep + 1; i < argc; i++)
		v[i - sep] = argv[i];
	*app_argv = v;
	return sep == 0 ? argc : argc - sep;
}

static int
eal_init(int argc, char **argv, const char *prog, unsigned int mem_mb)
{
	static char cpus[600], lcores[640];
	static const char *const extra[] = {lcores, "--no-telemetry", NULL};
	struct sst_eal_opts o = {.size = sizeof(o), .prog = prog, .memory_mb = mem_mb};
	int rc;

	allowed_cpus(cpus, sizeof(cpus));
	snprintf(lcores, sizeof(lcores), "--lcores=0@%s", cpus);
	o.extra_args = extra;
	rc = sst_eal_init(argc, argv, &o);
	if (rc < 0) {
		fprintf(stderr, "%s: cannot start the DPDK EAL: %s\n", prog, rte_strerror(-rc));
		return -1;
	}
	if (sodium_init() < 0) {
		fprintf(stderr, "%s: cannot start libsodium\n", prog);
		sst_eal_cleanup();
		return -1;
	}
	return 0;
}

volatile sig_atomic_t tool_interrupted;

static void
on_signal(int sig)
{
	tool_interrupted = sig;
}

int
tool_eal_start(int argc, char **argv, const struct tool_start *s)
{
	char **app_argv;
	int app_argc = eal_split(argc, argv, &app_argv);
	int rc;

	if (app_argc < 0)
		return TOOL_EXIT_SETUP;
	rc = s->parse(app_argc, app_argv, s->conf);
	free(app_argv);
	if (rc != 0)
		return rc;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (s->ignore_sigpipe)
		signal(SIGPIPE, SIG_IGN);
	if (eal_init(argc, argv, s->prog, s->eal_memory_mb(s->conf)) < 0)
		return TOOL_EXIT_SETUP;
	return 0;
}

void
tool_eal_fini(void)
{
	sst_eal_cleanup();
}

static bool
is_aead(enum sst_crypto_suite s)
{
	return s == SST_CRYPTO_AES128GCM || s == SST_CRYPTO_CHACHA20POLY1305;
}

/* Secure mode: the configuration the negotiation host points to (it must
 * outlive the worker, so it lives in the host). */
static void
secure_setup(struct tool_host *h, const struct tool_host_conf *c)
{
	struct sst_secure_config *s = &h->sec;

	memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	if (c->identity != NULL) {
		h->id = *c->identity;
		h->has_id = true;
	} else if (c->responder) {
		uint8_t seed[32];

		randombytes_buf(seed, sizeof(seed));
		h->has_id = sst_secure_identity_from_seed(&h->id, seed) == 0;
		sodium_memzero(seed, sizeof(seed));
	}
	s->identity = h->has_id ? &h->id : NULL;
	s->known_hosts = c->known_hosts;
	s->policy = c->known_hosts != NULL ? SST_SECURE_PINNED : SST_SECURE_TOFU;
	s->allow_anonymous = true;
	s->random = sst_secure_random_sodium;
	if (is_aead(c->armor)) {
		s->nsuites = 1;
		s->suites[0] = c->armor;
	} else {
		sst_secure_suites_default(s, rte_cpu_get_flag_enabled(RTE_CPUFLAG_AES) > 0, false);
	}
}

static void
host_destroy(struct tool_host *h)
{
	if (h == NULL)
		return;
	sst_engine_destroy(h->e);
	if (h->e != NULL && h->capture_file[0] != '\0') {
		char made[sizeof(h->capture_stem) + 16];

		snprintf(made, sizeof(made), "%s-w0.pcapng", h->capture_stem);
		if (rename(made, h->capture_file) != 0)
			fprintf(stderr, "%s: --capture: cannot rename %s to %s: %s\n", h->name,
				made, h->capture_file, strerror(errno));
	}
	rte_mempool_free(h->pool);
	rte_mempool_free(h->clones);
	sst_secure_identity_wipe(&h->id);
	free(h);
}

/* Where a host's engine sends and receives. */
struct host_link {
	const char *driver;
	const void *const *confs; /**< per worker */
	struct sst_net_endpoint local;
	const struct sst_net_params *net; /**< frame links */
};

/* The engine's capture prefix for --capture @p name (NULL: none): a name
 * ending in .pcapng is a file, which a host of one worker writes itself
 * (through its worker's <stem>-w0.pcapng, renamed at the end); any other
 * name is a prefix, as the engine takes it. */
static const char *
capture_stem(struct tool_host *h, const char *name)
{
	static const char ext[] = ".pcapng";
	size_t len;

	if (name == NULL)
		return NULL;
	len = strlen(name);
	if (len <= sizeof(ext) - 1 || strcmp(name + len - (sizeof(ext) - 1), ext) != 0 ||
		len >= sizeof(h->capture_file))
		return name;
	snprintf(h->capture_stem, sizeof(h->capture_stem), "%.*s", (int)(len - (sizeof(ext) - 1)),
		name);
	if (h->workers == 1)
		snprintf(h->capture_file, sizeof(h->capture_file), "%s", name);
	return h->capture_stem;
}

static struct tool_host *
host_create(const struct tool_host_conf *c, const struct host_link *l)
{
	struct tool_host *h = calloc(1, sizeof(*h));
	struct sst_engine_params ep = {.size = sizeof(ep)};
	uint32_t mbufs = c->mbufs != 0 ? c->mbufs : DEFAULT_MBUFS;
	char name[40];
	struct sst_pool_params pp = {
		.size = sizeof(pp),
		.max = mbufs,
		.cache_size = 256,
		.socket_id = SOCKET_ID_ANY,
	};

	if (h == NULL) {
		fprintf(stderr, "out of memory\n");
		return NULL;
	}
	if (c->small_pools)
		pp.cache_size = 0;
	if (c->legacy && is_aead(c->armor)) {
		fprintf(stderr, "%s: a legacy (prototype) host has checksum mode only\n", c->name);
		free(h);
		return NULL;
	}
	snprintf(h->name, sizeof(h->name), "%s", c->name);
	h->workers = (uint16_t)(c->workers != 0 ? c->workers : 1);
	h->mode = is_aead(c->armor) ? SST_NEGO_MODE_SECURE : SST_NEGO_MODE_CHECKSUM;
	/* Both start small and grow as the engine polls (sst_pool.h): an
	 * idle tool holds a few hundred mbufs, a bulk transfer all of them. */
	snprintf(name, sizeof(name), "%s_p", h->name);
	pp.name = name;
	pp.data_room = DATA_ROOM + RTE_PKTMBUF_HEADROOM;
	h->pool = sst_pool_create(&pp);
	snprintf(name, sizeof(name), "%s_c", h->name);
	pp.data_room = 0;
	h->clones = sst_pool_create(&pp);
	if (h->pool == NULL || h->clones == NULL) {
		fprintf(stderr, "%s: cannot create a pool of %u mbufs: %s\n", h->name, mbufs,
			rte_strerror(rte_errno));
		goto fail;
	}
	if (!c->legacy)
		secure_setup(h, c);
	ep.workers = h->workers;
	ep.driver = l->driver;
	ep.driver_confs = l->confs;
	ep.local = l->local;
	if (l->net != NULL)
		ep.net = *l->net;
	ep.rx_buffer = c->sock_buffer != 0 ? c->sock_buffer : DEFAULT_SOCK_BUFFER;
	ep.tx_buffer = ep.rx_buffer;
	ep.mbufs = mbufs;
	ep.mbuf_cache = c->small_pools ? SST_ENGINE_NO_CACHE : 0;
	ep.mtu = c->mtu;
	randombytes_buf(ep.nego.secret, sizeof(ep.nego.secret));
	/* The prototype sends empty ulp fields: a legacy host advertises
	 * nothing, so both sides fall back to what the prototype supports. */
	ep.nego.ulp_legacy = c->legacy;
	ep.nego.ulp_caps = c->legacy ? 0 : SST_NEGO_CAP_ALL;
	ep.nego.max_responding = c->max_channels;
	ep.nego.cookie_period = c->cookie_period;
	ep.nego.load_high = c->load_high;
	if (!c->legacy && (h->has_id || h->mode == SST_NEGO_MODE_SECURE))
		ep.nego.secure = &h->sec;
	ep.stream = c->stream;
	ep.stream.size = sizeof(ep.stream);
	ep.stream.name = h->name;
	ep.stream.pool = h->pool;
	ep.stream.clone_pool = h->clones;
	/* Posing as the prototype includes its reader, which never sees a
	 * Close that arrives on a data segment. */
	ep.stream.prototype_reader = c->legacy;
	ep.cc = c->cc;
	ep.idle_timeout = c->idle_timeout;
	ep.dead_peer_timeout = c->dead_peer_timeout;
	ep.no_skip_numbers = c->no_skip_numbers;
	ep.channel_packet_limit = c->packet_limit;
	ep.capture = capture_stem(h, c->capture);
	ep.ops = c->ops;
	ep.ctx = c->ctx;
	h->e = sst_engine_create(&ep);
	sodium_memzero(ep.nego.secret, sizeof(ep.nego.secret));
	if (h->e == NULL) {
		fprintf(stderr, "%s: cannot create the engine (%u worker%s, %s link): %s\n",
			h->name, h->workers, h->workers == 1 ? "" : "s", l->driver,
			rte_strerror(rte_errno));
		goto fail;
	}
	sst_engine_local(h->e, &h->self);
	return h;
fail:
	host_destroy(h);
	return NULL;
}

static bool
workers_ok(const struct tool_host_conf *c)
{
	if (c->workers <= SST_WORKERS_MAX)
		return true;
	fprintf(stderr, "%u workers: at most %u\n", c->workers, (unsigned int)SST_WORKERS_MAX);
	return false;
}

/* A net of one host (udp, a DPDK port): it takes n, freed on failure,
 * and writes the host's endpoint into ep for the description. */
static struct tool_net *
single_host_net(struct tool_net *n, const struct tool_host_conf *c, const struct host_link *l,
	char *ep, size_t ep_len)
{
	n->h[0] = host_create(c, l);
	if (n->h[0] == NULL) {
		free(n);
		return NULL;
	}
	n->n = 1;
	tool_endpoint_text(&n->h[0]->self, ep, ep_len);
	return n;
}

/*
 * The tools block until a packet arrives or the next timer, often the
 * pacer's next send a few microseconds away. Linux lets such a wait run
 * up to the thread's timer slack (50 us by default) late: at 1 Gbit/s
 * that is 4 packets' time lost at every wait.
 */
static void
precise_waits(void)
{
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
}

struct tool_net *
tool_net_udp(const struct tool_host_conf *c)
{
	struct tool_net *n;
	struct host_link l = {.driver = "udpsock", .local = c->local};
	char ep[80];

	if (!workers_ok(c))
		return NULL;
	precise_waits();
	n = calloc(1, sizeof(*n));
	if (n == NULL)
		return NULL;
	n->udp.size = sizeof(n->udp);
	n->udp.no_gso = c->udp_no_offload;
	n->udp.no_gro = c->udp_no_offload;
	for (uint32_t i = 0; i < SST_WORKERS_MAX; i++)
		n->udp_ptr[i] = &n->udp;
	l.confs = n->udp_ptr;
	if (single_host_net(n, c, &l, ep, sizeof(ep)) == NULL)
		return NULL;
	snprintf(n->desc, sizeof(n->desc), "udp (kernel socket%s) %s, %u worker%s",
		c->udp_no_offload ? ", no offloads" : "", ep, n->h[0]->workers,
		n->h[0]->workers == 1 ? "" : "s");
	return n;
}

int
tool_port_option(const char *prog, const char *opt, const char *arg, struct tool_port *p)
{
	char buf[64];
	const char *slash;
	char *end;
	unsigned long v;

	if (strcmp(opt, "port") == 0) {
		v = strtoul(arg, &end, 10);
		if (*arg == '\0' || *end != '\0' || v >= RTE_MAX_ETHPORTS) {
			fprintf(stderr, "%s: --port '%s': want a DPDK port id\n", prog, arg);
			return -1;
		}
		p->set = true;
		p->port_id = (uint16_t)v;
		return 1;
	}
	if (strcmp(opt, "ip") == 0) {
		slash = strchr(arg, '/');
		if (slash == NULL || (size_t)(slash - arg) >= sizeof(buf)) {
			fprintf(stderr, "%s: --ip '%s': want ADDR/PREFIXLEN\n", prog, arg);
			return -1;
		}
		memcpy(buf, arg, (size_t)(slash - arg));
		buf[slash - arg] = '\0';
		v = strtoul(slash + 1, &end, 10);
		if (sst_net_addr_parse(buf, &p->ip) < 0 || *end != '\0' || slash[1] == '\0' ||
			v < 1 || v > (p->ip.family == SST_NET_IPV4 ? 32u : 128u)) {
			fprintf(stderr, "%s: --ip '%s': want ADDR/PREFIXLEN\n", prog, arg);
			return -1;
		}
		p->prefix_len = (uint8_t)v;
		return 1;
	}
	if (strcmp(opt, "mac") == 0) {
		if (rte_ether_unformat_addr(arg, &p->mac) < 0 ||
			!rte_is_valid_assigned_ether_addr(&p->mac)) {
			fprintf(stderr,
				"%s: --mac '%s': want a unicast address, e.g. 02:00:00:00:00:01\n",
				prog, arg);
			return -1;
		}
		return 1;
	}
	if (strcmp(opt, "gateway") == 0) {
		if (sst_net_addr_parse(arg, &p->gateway) < 0) {
			fprintf(stderr, "%s: --gateway '%s': want an address\n", prog, arg);
			return -1;
		}
		return 1;
	}
	return 0;
}

struct tool_net *
tool_net_port(const struct tool_host_conf *c, const struct tool_port *p)
{
	struct sst_net_params np = {.size = sizeof(np)};
	struct host_link l = {.driver = "ethdev", .net = &np};
	struct tool_net *n;
	uint16_t workers = (uint16_t)(c->workers != 0 ? c->workers : 1);
	char ep[80];

	if (!workers_ok(c))
		return NULL;
	precise_waits();
	if (p->ip.family == SST_NET_NONE) {
		fprintf(stderr, "--port needs our address on it: --ip ADDR/PREFIXLEN\n");
		return NULL;
	}
	if (p->gateway.family != SST_NET_NONE && p->gateway.family != p->ip.family) {
		fprintf(stderr, "--gateway: not of the family of --ip\n");
		return NULL;
	}
	if (!rte_eth_dev_is_valid_port(p->port_id)) {
		fprintf(stderr,
			"no DPDK port %u: give one to the EAL before '--' (a NIC, or e.g. "
			"--vdev=net_af_packet0,iface=eth0 or net_af_xdp0,iface=eth0)\n",
			p->port_id);
		return NULL;
	}
	n = calloc(1, sizeof(*n));
	if (n == NULL)
		return NULL;
	if (p->ip.family == SST_NET_IPV4) {
		np.ipv4 = p->ip;
		np.ipv4_prefix_len = p->prefix_len;
		np.ipv4_gateway = p->gateway;
	} else {
		np.ipv6 = p->ip;
		np.ipv6_prefix_len = p->prefix_len;
		np.ipv6_gateway = p->gateway;
	}
	l.local.addr = p->ip;
	l.local.port = c->local.port != 0 ? c->local.port : 4433;
	np.mac = p->mac;
	for (uint16_t q = 0; q < workers; q++) {
		n->eth[0][q] = (struct sst_ethdev_link_conf){.port_id = p->port_id,
			.queue_id = q,
			.promiscuous = !rte_is_zero_ether_addr(&p->mac)};
		n->eth_ptr[0][q] = &n->eth[0][q];
	}
	l.confs = n->eth_ptr[0];
	if (single_host_net(n, c, &l, ep, sizeof(ep)) == NULL)
		return NULL;
	snprintf(n->desc, sizeof(n->desc), "DPDK port %u, %s, %u worker%s", p->port_id, ep, workers,
		workers == 1 ? "" : "s");
	return n;
}

struct tool_net *
tool_net_open(const struct tool_host_conf *c, const struct tool_port *p)
{
	return p != NULL && p->set ? tool_net_port(c, p) : tool_net_udp(c);
}

/*
 * Loopback with several workers: a net_ring pair with a queue per worker,
 * Ethernet frames through lib/net on both sides, and the engine's
 * dispatch between workers (net_ring has no RSS). No impairments here:
 * they are the simpair's.
 */
static struct tool_net *
loopback_frames(const struct tool_host_conf *c0, const struct tool_host_conf *c1,
	const struct tool_impair *imp)
{
	const struct tool_host_conf *c[2] = {c0, c1};
	uint16_t port[2];
	struct tool_net *n;
	int rc;

	if (imp->rate_bps != 0 || imp->delay_ns != 0 || imp->loss > 0 || imp->reorder > 0 ||
		imp->duplicate > 0) {
		fprintf(stderr, "link impairments need one worker a side (the in-memory link with "
				"several workers is a net_ring pair, which has none)\n");
		return NULL;
	}
	n = calloc(1, sizeof(*n));
	if (n == NULL)
		return NULL;
	n->ring_queues = (uint16_t)RTE_MAX(RTE_MAX(c0->workers, c1->workers), 1u);
	if (c0->workers != c1->workers) {
		fprintf(stderr,
			"loopback with several workers needs the same number on both sides\n");
		free(n);
		return NULL;
	}
	snprintf(n->ring_name, sizeof(n->ring_name), "toolr%d", (int)getpid() % 100000);
	rc = sst_ethdev_ring_pair(n->ring_name, n->ring_queues, &port[0], &port[1]);
	if (rc < 0) {
		fprintf(stderr, "cannot create the net_ring pair: %s\n", strerror(-rc));
		free(n);
		return NULL;
	}
	for (int i = 0; i < 2; i++) {
		struct sst_net_params np = {.size = sizeof(np)};
		struct host_link l = {.driver = "ethdev", .confs = n->eth_ptr[i], .net = &np};

		/* net_ring ports have no address of their own. */
		np.mac = (struct rte_ether_addr){{0x02, 0x53, 0x53, 0x54, 0, (uint8_t)(1 + i)}};
		np.ipv4 = sst_net_addr4(10, 0, 0, (uint8_t)(1 + i));
		np.ipv4_prefix_len = 24;
		l.local.addr = np.ipv4;
		l.local.port = 8661;
		for (uint16_t q = 0; q < n->ring_queues; q++) {
			n->eth[i][q] =
				(struct sst_ethdev_link_conf){.port_id = port[i], .queue_id = q};
			n->eth_ptr[i][q] = &n->eth[i][q];
		}
		n->h[i] = host_create(c[i], &l);
		if (n->h[i] == NULL) {
			tool_net_destroy(n);
			return NULL;
		}
		n->n = i + 1;
	}
	snprintf(n->desc, sizeof(n->desc),
		"loopback (net_ring pair, Ethernet frames, %u workers a side)", n->ring_queues);
	return n;
}

struct tool_net *
tool_net_loopback(const struct tool_host_conf *c0, const struct tool_host_conf *c1,
	const struct tool_impair *imp)
{
	static const struct tool_impair none;
	struct sst_simlink_params lp;
	struct sst_net_endpoint ep[2] = {0};
	struct tool_net *n;
	const struct tool_host_conf *c[2] = {c0, c1};

	if (!workers_ok(c0) || !workers_ok(c1))
		return NULL;
	if (imp == NULL)
		imp = &none;
	if (c0->workers > 1 || c1->workers > 1 || (c0->frames && c1->frames))
		return loopback_frames(c0, c1, imp);
	n = calloc(1, sizeof(*n));
	if (n == NULL)
		return NULL;
	sst_simlink_params_default(&lp);
	lp.capacity = LOOPBACK_CAPACITY;
	lp.seed = imp->seed;
	lp.rate_bps = imp->rate_bps;
	lp.delay_ns = imp->delay_ns;
	lp.loss = imp->loss;
	lp.reorder = imp->reorder;
	lp.reorder_delay_ns = imp->reorder_ns != 0 ? imp->reorder_ns : SST_NSEC_PER_MSEC;
	lp.duplicate = imp->duplicate;
	lp.queue_pkts = imp->queue_pkts;
	if (lp.queue_pkts == 0 && imp->rate_bps != 0)
		lp.queue_pkts = DEFAULT_QUEUE_PKTS;
	for (int i = 0; i < 2; i++) {
		ep[i].addr.family = SST_NET_IPV4;
		ep[i].addr.bytes[0] = 10;
		ep[i].addr.bytes[3] = (uint8_t)(1 + i);
		ep[i].port = 8661;
	}
	n->pair = sst_simpair_create(&lp, &lp, &ep[0], &ep[1], pair_clock, n);
	if (n->pair == NULL) {
		fprintf(stderr, "cannot create the loopback link: %s\n", rte_strerror(rte_errno));
		free(n);
		return NULL;
	}
	for (int i = 0; i < 2; i++) {
		struct host_link l = {.driver = "simpair", .confs = n->spc_ptr[i]};

		n->spc[i] = (struct sst_simpair_conf){.pair = n->pair, .side = i};
		n->spc_ptr[i][0] = &n->spc[i];
		n->h[i] = host_create(c[i], &l);
		if (n->h[i] == NULL) {
			tool_net_destroy(n);
			return NULL;
		}
		n->n = i + 1;
	}
	if (imp->rate_bps != 0)
		snprintf(n->desc, sizeof(n->desc),
			"loopback (in-memory link, %.0f Mbit/s, %.3f ms each way)",
			(double)imp->rate_bps / 1e6, (double)imp->delay_ns / 1e6);
	else
		snprintf(n->desc, sizeof(n->desc),
			"loopback (in-memory link, unlimited rate, %.3f ms each way)",
			(double)imp->delay_ns / 1e6);
	return n;
}

void
tool_net_destroy(struct tool_net *n)
{
	if (n == NULL)
		return;
	for (int i = 0; i < 2; i++)
		host_destroy(n->h[i]);
	sst_simpair_destroy(n->pair);
	if (n->ring_queues != 0)
		sst_ethdev_ring_pair_free(n->ring_name, n->ring_queues);
	free(n);
}

struct tool_host *
tool_net_host(struct tool_net *n, int i)
{
	return i >= 0 && i < n->n ? n->h[i] : NULL;
}

const char *
tool_net_describe(const struct tool_net *n)
{
	return n->desc;
}

/* The descriptors every worker of the net can block on (kernel sockets),
 * into fds[]; 0 when one of them has none (it must be polled). */
static nfds_t
wait_fds(const struct tool_net *n, struct pollfd *fds)
{
	nfds_t k = 0;

	for (int i = 0; i < n->n; i++)
		for (uint16_t w = 0; w < n->h[i]->workers; w++) {
			int fd = sst_worker_wait_fd(sst_engine_worker(n->h[i]->e, w));

			if (fd < 0)
				return 0;
			fds[k++] = (struct pollfd){.fd = fd, .events = POLLIN};
		}
	return k;
}

bool
tool_net_can_block(struct tool_net *n)
{
	if (!n->fds_known) {
		n->nfds = wait_fds(n, n->fds);
		n->fds_known = true;
	}
	return n->nfds > 0;
}

void
tool_net_poll(struct tool_net *n, bool may_sleep)
{
	sst_time_t now = tool_now(), next = SST_TIME_NEVER;
	uint64_t rx = 0;
	struct timespec ts;

	/* The tools' clock, not the engine's: the callbacks and the loopback
	 * link read tool_now() too. */
	n->pass_now = now;
	for (int i = 0; i < n->n; i++)
		for (uint16_t k = 0; k < n->h[i]->workers; k++)
			/* With the engine's housekeeping: it grows the pools. */
			sst_engine_poll_at(n->h[i]->e, k, now);
	n->pass_now = 0;
	if (!may_sleep)
		return;
	/* Only a pass that may sleep asks what arrived: the counters are a
	 * cache line of each worker that a spinning pass would read for
	 * nothing (issue 17: an idle worker's pass is its cache misses). */
	for (int i = 0; i < n->n; i++)
		for (uint16_t k = 0; k < n->h[i]->workers; k++)
			rx += sst_worker_stats(sst_engine_worker(n->h[i]->e, k))->rx_packets;
	if (rx != n->last_rx) {
		n->last_rx = rx;
		n->busy_at = now;
		return;
	}
	/* Where a packet ends the wait at once, waiting costs a pass nothing
	 * and spinning costs the CPU the peer may need: block as soon as a
	 * pass finds nothing. Napping would add up to its length to every
	 * packet's latency, so spin a while first. */
	if (!tool_net_can_block(n) && now - n->busy_at < IDLE_SPIN_NS)
		return;
	for (int i = 0; i < n->n; i++)
		for (uint16_t k = 0; k < n->h[i]->workers; k++)
			next = sst_time_min(
				next, sst_worker_next_expiry(sst_engine_worker(n->h[i]->e, k)));
	now = tool_now();
	if (next <= now)
		return;
	next = RTE_MIN(next - now, n->nfds > 0 ? IDLE_BLOCK_NS : IDLE_SLEEP_NS);
	ts.tv_sec = 0;
	ts.tv_nsec = (long)next;
	if (n->nfds > 0)
		ppoll(n->fds, n->nfds, &ts, NULL);
	else
		nanosleep(&ts, NULL);
}

struct sst_worker *
tool_host_owner(struct tool_host *h, const struct sst_net_endpoint *to)
{
	return sst_engine_worker(h->e, sst_engine_owner(h->e, to));
}

int
tool_host_connect(struct tool_host *h, const struct sst_net_endpoint *to, sst_time_t now)
{
	/* On the worker that owns the peer's endpoint (sst_engine.h). */
	return sst_worker_connect(tool_host_owner(h, to), to, h->mode, now);
}

int
tool_host_close_idle(struct tool_host *h, sst_time_t now)
{
	int open = 0;

	for (uint16_t k = 0; k < h->workers; k++)
		open += sst_worker_close_idle(sst_engine_worker(h->e, k), now);
	return open;
}

void
tool_net_finish_channels(struct tool_net *n, sst_time_t wait)
{
	struct tool_host *h = tool_net_host(n, 0);
	sst_time_t until = tool_now() + wait;
	struct tool_counters k;

	tool_host_close_idle(h, tool_now());
	do {
		tool_net_poll(n, false);
		tool_host_counters(h, &k);
	} while (k.channels_open > 0 && tool_now() < until);
}

int
tool_host_listen(struct tool_host *h, const char *service, const char *protocol, void *ctx)
{
	for (uint16_t k = 0; k < h->workers; k++) {
		int rc = sst_stream_listen(
			sst_worker_stream_host(sst_engine_worker(h->e, k)), service, protocol, ctx);

		if (rc < 0)
			return rc;
	}
	return 0;
}

struct rte_mbuf *
tool_mbuf_chain_with(struct rte_mempool *pool, size_t len, uint16_t per_mbuf, tool_make_fn *make,
	const void *ctx)
{
	struct rte_mbuf *head = NULL;
	uint64_t at = 0;

	do {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint16_t k;

		if (m == NULL) {
			rte_pktmbuf_free(head);
			return NULL;
		}
		k = (uint16_t)RTE_MIN(
			len, per_mbuf != 0 ? per_mbuf : (size_t)rte_pktmbuf_tailroom(m));
		make(ctx, m, at, k);
		at += k;
		len -= k;
		if (head == NULL) {
			head = m;
		} else if (rte_pktmbuf_chain(head, m) < 0) {
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(head);
			return NULL;
		}
	} while (len > 0);
	return head;
}

struct fill_as_make {
	tool_fill_fn *fill;
	const void *ctx;
};

static void
make_by_filling(const void *ctx, struct rte_mbuf *m, uint64_t at, uint16_t len)
{
	const struct fill_as_make *f = ctx;

	f->fill(f->ctx, (uint8_t *)rte_pktmbuf_append(m, len), at, len);
}

struct rte_mbuf *
tool_mbuf_chain(struct rte_mempool *pool, size_t len, tool_fill_fn *fill, const void *ctx)
{
	const struct fill_as_make f = {fill, ctx};

	return tool_mbuf_chain_with(pool, len, 0, make_by_filling, &f);
}

struct rte_mempool *
tool_host_pool(struct tool_host *h)
{
	return h->pool;
}

const struct sst_net_endpoint *
tool_host_local(const struct tool_host *h)
{
	return &h->self;
}

struct sst_engine *
tool_host_engine(struct tool_host *h)
{
	return h->e;
}

const uint8_t *
tool_host_public_key(const struct tool_host *h)
{
	return h->has_id ? h->id.pk : NULL;
}

void
tool_host_counters(const struct tool_host *h, struct tool_counters *c)
{
	memset(c, 0, sizeof(*c));
	for (uint16_t k = 0; k < h->workers; k++) {
		struct sst_worker *wk = sst_engine_worker(h->e, k);
		const struct sst_link_stats *l = sst_worker_link_stats(wk);
		const struct sst_stream_host_stats *s =
			sst_stream_host_stats(sst_worker_stream_host(wk));
		const struct sst_worker_stats *w = sst_worker_stats(wk);
		const struct sst_nego_stats *n = sst_worker_nego_stats(wk);

		c->link_tx_packets += l->tx_packets;
		c->link_rx_packets += l->rx_packets;
		c->link_tx_bytes += l->tx_bytes;
		c->link_rx_bytes += l->rx_bytes;
		c->link_tx_drops += l->tx_full + l->tx_errors;
		c->segments_tx += s->segments_tx;
		c->segments_retx += s->segments_retx;
		c->datagrams_tx += s->datagrams_tx;
		c->datagrams_rx += s->datagrams_rx;
		c->streams_opened += s->streams_opened;
		c->streams_accepted += s->streams_accepted;
		c->streams_closed += s->streams_closed;
		c->streams_live += s->streams_live;
		c->rx_refused += s->rx_refused;
		c->no_buffer += s->no_buffer;
		c->no_stream += s->no_stream;
		c->channels_open += w->channels_open;
		c->channels_made += w->channels_made;
		c->channels_replaced += w->channels_replaced;
		c->peers_open += w->peers_open;
		c->peers_freed += w->peers_freed;
		c->dead_peers += w->dead_peers;
		c->restarts += w->restarts;
		c->peer_streams_refused += s->peer_streams_refused;
		c->peer_buffers_refused += s->peer_buffers_refused;
		c->rx_beyond_prototype += s->rx_beyond_prototype;
		c->nego_rx_msgs += n->rx_msgs;
		c->nego_challenged += n->rx_i1_challenged + n->rx_sec_i1_challenged;
		c->nego_rate_limited += n->rx_rate_limited;
		c->nego_established += n->established_initiator + n->established_responder;
		c->nego_load_on += n->load_on;
		c->nego_cookie_bad += n->rx_i1_cookie_bad + n->rx_sec_i1_cookie_bad;
		c->nego_cookie_ok += n->rx_i1_cookie_ok + n->rx_sec_i1_cookie_ok;
		c->nego_i2_unmatched += n->rx_sec_i2_unmatched;
		c->chan_tx_skipped += w->channels.tx_skipped;
		c->chan_optimistic_acks += w->channels.optimistic_acks;
		c->chan_rx_ack_beyond += w->channels.rx_ack_beyond;
	}
}
