/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine (sst_engine.h): per-worker pools, links and inboxes, the
 * workers, and the loops that run them.
 */
/* rte_vect_get_max_simd_bitwidth() is still experimental in DPDK 22.11;
 * it is how an application's --force-max-simd-bitwidth reaches us. */
#define ALLOW_EXPERIMENTAL_API
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_ring.h>
#include <rte_vect.h>
#include <sodium.h>

#include "sst_capture.h"
#include "sst_chk32.h"
#include "sst_engine.h"
#include "sst_pool.h"
#include "sst_ring.h"

RTE_LOG_REGISTER(sst_logtype_engine, sst.engine, NOTICE);
#define ENGINE_LOG(level, ...) \
	rte_log(RTE_LOG_##level, sst_logtype_engine, "sst_engine: " __VA_ARGS__)

struct engine_worker {
	struct sst_worker *w;
	struct sst_link *link;
	struct sst_capture *capture;
	struct sst_ring_agent *agent; /**< ring mode */
	struct rte_mempool *pool;
	struct rte_mempool *clones; /**< when params.stream.clone_pool is NULL */
	unsigned int lcore;	    /**< launched on; RTE_MAX_LCORE: not launched */
	bool grow_logged;	    /**< a pool failed to grow: said once */
	sst_time_t housekeeping_at; /**< the next engine_housekeeping() */
	sst_time_t housekeeping_ns; /**< and the time from one to the next */
};

/* Time between two looks at the worker's pools. A look reads each pool's
 * ring count (a cache line every worker writes) and cache: four pools cost
 * about 180 instructions, a tenth of a small transaction's two passes, and
 * more with two workers bouncing the rings' lines. By time, not by passes:
 * a loop that sleeps between passes must still grow a pool as soon as it
 * wakes (every 8th pass left sst-gen's memif ports without mbufs for
 * sleeps on end, and its channels were replaced for silence). A pass that
 * finds a pool empty meanwhile gets NULL, as it could before (sst_pool.h).
 *
 * Looks that find nothing to grow double the time to the next, up to
 * ENGINE_HOUSEKEEPING_MAX_NS; a growth brings it back to the minimum, so a
 * pool that is filling is looked at every 10 us. With two workers in one
 * thread the idle one's looks miss the cache on the busy one's lines
 * (docs/performance.md, session 24); a ramp that empties a pool between
 * two looks leaves it short for 160 us at most. */
#define ENGINE_HOUSEKEEPING_NS (10 * SST_NSEC_PER_USEC)
#define ENGINE_HOUSEKEEPING_MAX_NS (16 * ENGINE_HOUSEKEEPING_NS)

struct sst_engine {
	struct sst_engine_params p;
	uint16_t n;
	bool device_ready; /**< we set the links' device up: we tear it down */
	atomic_bool stop;
	atomic_uint loops; /**< sst_engine_worker_loop()s running */
	unsigned int id;   /**< names the stream pools when params.stream.name is NULL */
	sst_time_t drain_ns;
	struct rte_ring *inboxes[SST_WORKERS_MAX];
	struct sst_worker_dir *dir; /**< which worker holds which peer (sharded) */
	struct engine_worker workers[SST_WORKERS_MAX];
	char names[SST_WORKERS_MAX][32]; /**< the stream hosts' names */
	struct sst_shard_map shard;	 /**< who owns which peer: the port's RSS, if known */
};

static uint64_t tsc_hz;
static atomic_uint engines_created;

sst_time_t
sst_engine_now(void)
{
	uint64_t c = rte_get_tsc_cycles();

	if (tsc_hz == 0)
		tsc_hz = rte_get_tsc_hz();
	/* Split so that the multiplication cannot overflow. */
	return (sst_time_t)((c / tsc_hz) * SST_NSEC_PER_SEC +
			    (c % tsc_hz) * SST_NSEC_PER_SEC / tsc_hz);
}

/* A port whose RSS we know: the map follows its key, hash types and
 * redirection table (queue i is worker i's), so the software dispatch
 * agrees with where the port puts each packet. */
static void
shard_map_from_device(struct sst_shard_map *m, const struct sst_link_device_info *info)
{
	m->l4 = info->rss_l4;
	memcpy(m->key, info->rss_key, sizeof(m->key));
	m->reta_size = info->rss_reta_size;
	memcpy(m->reta, info->rss_reta, sizeof(m->reta));
}

static int
open_links(struct sst_engine *e)
{
	const struct sst_engine_params *p = &e->p;
	const char *driver = p->driver != NULL ? p->driver : "udpsock";
	struct rte_mempool *pools[SST_WORKERS_MAX];
	struct sst_link_device_info info;
	int rc;

	for (uint16_t i = 0; i < e->n; i++)
		pools[i] = e->workers[i].pool;
	if (!p->device_ready) {
		rc = sst_link_device_setup(driver,
			p->driver_confs != NULL ? p->driver_confs[0] : NULL, e->n, pools, &info);
		if (rc < 0) {
			ENGINE_LOG(ERR, "%s: %s\n", driver, info.err);
			return rc;
		}
		e->device_ready = true;
		if (info.rss && info.rss_known)
			shard_map_from_device(&e->shard, &info);
		else /* no NIC to agree with: the cheap hash */
			sst_shard_map_set_hash(&e->shard, SST_SHARD_HASH_CRC);
		if (info.tx_cksum_offload)
			e->p.net.tx_cksum_offload = true;
		if (info.in_process)
			e->p.net.in_process = true;
		if (rte_is_zero_ether_addr(&e->p.net.mac))
			e->p.net.mac = info.mac;
	} else if (sst_shard_map_set_hash(&e->shard, p->shard_hash) < 0) {
		ENGINE_LOG(ERR, "params.shard_hash: %d is no enum sst_shard_hash_kind\n",
			(int)p->shard_hash);
		return -EINVAL;
	}
	for (uint16_t i = 0; i < e->n; i++) {
		struct sst_link_conf lc = {
			.size = sizeof(lc),
			.driver = driver,
			.local = p->local,
			.pool = e->workers[i].pool,
			.rx_buffer = p->rx_buffer,
			.tx_buffer = p->tx_buffer,
			.reuse_port = e->n > 1,
		};

		if (p->driver_confs != NULL)
			lc.driver_conf = p->driver_confs[i];
		e->workers[i].link = sst_link_open(&lc);
		if (e->workers[i].link == NULL) {
			ENGINE_LOG(ERR, "worker %u: cannot open a %s link: %s\n", i, driver,
				rte_strerror(rte_errno));
			return -rte_errno;
		}
		/* Workers after the first bind the port the first one got. */
		if (i == 0 && lc.local.port == 0 &&
			sst_link_kind(e->workers[0].link) == SST_LINK_DATAGRAMS)
			sst_link_local(e->workers[0].link, &e->p.local);
	}
	return 0;
}

static int
create_workers(struct sst_engine *e)
{
	for (uint16_t i = 0; i < e->n; i++) {
		if (e->p.capture != NULL) {
			char path[4096];

			snprintf(path, sizeof(path), "%s-w%u.pcapng", e->p.capture, i);
			e->workers[i].capture =
				sst_capture_open(path, UINT16_MAX, e->p.capture_snaplen, NULL);
			if (e->workers[i].capture == NULL) {
				ENGINE_LOG(ERR, "worker %u: cannot capture to %s: %s\n", i, path,
					rte_strerror(rte_errno));
				return -rte_errno;
			}
		}
		struct sst_worker_params wp = {
			.size = sizeof(wp),
			.link = e->workers[i].link,
			.pool = e->workers[i].pool,
			.net = e->p.net,
			.udp_port = e->p.local.port,
			.mtu = e->p.mtu,
			.shard_index = i,
			.shard_count = e->n,
			.inboxes = e->inboxes,
			.shard_map = &e->shard,
			.dir = e->dir,
			.nego = e->p.nego,
			.stream = e->p.stream,
			.cc = e->p.cc,
			.max_peers = e->p.max_peers,
			.idle_timeout = e->p.idle_timeout,
			.dead_peer_timeout = e->p.dead_peer_timeout,
			.no_skip_numbers = e->p.no_skip_numbers,
			.channel_packet_limit = e->p.channel_packet_limit,
			.ops = e->p.ops,
			.ctx = e->p.ctx,
			.capture = e->workers[i].capture,
			.local_port_first = e->p.local_port_first,
			.local_ports = e->p.local_ports,
			.ack_forge_for_testing = e->p.ack_forge_for_testing,
			.ack_forge_ctx = e->p.ack_forge_ctx,
		};

		if (e->p.ring_mode) {
			e->workers[i].agent = sst_ring_agent_create(e->p.ring);
			if (e->workers[i].agent == NULL) {
				ENGINE_LOG(ERR, "worker %u: no ring agent: %s\n", i,
					rte_strerror(rte_errno));
				return -rte_errno;
			}
			sst_ring_agent_worker_params(e->workers[i].agent, &wp);
		}
		/* The stream host names its objects: one name per worker. */
		if (e->p.stream.name != NULL)
			snprintf(
				e->names[i], sizeof(e->names[i]), "%.14s.w%u", e->p.stream.name, i);
		else
			snprintf(e->names[i], sizeof(e->names[i]), "sst%u.w%u", e->id, i);
		wp.stream.name = e->names[i];
		if (wp.stream.clone_pool == NULL)
			wp.stream.clone_pool = e->workers[i].clones;
		e->workers[i].w = sst_worker_create(&wp);
		if (e->workers[i].w == NULL) {
			ENGINE_LOG(ERR, "worker %u: %s%s\n", i, rte_strerror(rte_errno),
				rte_errno == EEXIST ? " (params.stream.name: the stream pools' "
						      "names must be unique in the process)"
						    : "");
			return -rte_errno;
		}
		if (e->workers[i].agent != NULL)
			sst_ring_agent_bind(e->workers[i].agent, e->workers[i].w);
	}
	return 0;
}

/* The per-lcore cache of a worker's pool (sst_engine_params.mbuf_cache). */
static uint32_t
pool_cache(const struct sst_engine_params *p)
{
	if (p->mbuf_cache == SST_ENGINE_NO_CACHE)
		return 0;
	return p->mbuf_cache != 0 ? p->mbuf_cache : 256;
}

void
sst_engine_params_default(struct sst_engine_params *p)
{
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	p->workers = 1;
	p->mbufs = SST_ENGINE_DEFAULT_MBUFS;
	p->inbox_size = SST_ENGINE_DEFAULT_INBOX;
	p->nego.size = sizeof(p->nego);
	/* The host secret keys the cookies and handshake tags: it must be
	 * unpredictable, never a constant default. */
	randombytes_buf(p->nego.secret, sizeof(p->nego.secret));
	p->stream.size = sizeof(p->stream);
	p->stream.max_streams = SST_ENGINE_DEFAULT_STREAMS;
	p->stream.max_tx_buffers = SST_ENGINE_DEFAULT_STREAM_BUFFERS;
	p->stream.max_rx_buffers = SST_ENGINE_DEFAULT_STREAM_BUFFERS;
}

/* Name the first parameter that is missing or out of range, so that a
 * caller learns which one from the log rather than from a bare EINVAL of
 * a layer below. Returns 0 or -EINVAL. */
static int
engine_check_params(const struct sst_engine_params *p)
{
	static const uint8_t zero[SST_NEGO_SECRET_LEN];

	if (p == NULL) {
		ENGINE_LOG(ERR, "params are required: see sst_engine_params_default()\n");
		return -EINVAL;
	}
	if (p->size == 0 || p->size > sizeof(*p)) {
		ENGINE_LOG(ERR, "params.size is required: sizeof(struct sst_engine_params) "
				"(sst_engine_params_default() sets it)\n");
		return -EINVAL;
	}
	if (p->workers > SST_WORKERS_MAX) {
		ENGINE_LOG(ERR, "params.workers: %u is over SST_WORKERS_MAX (%u)\n", p->workers,
			SST_WORKERS_MAX);
		return -EINVAL;
	}
	if (p->nego.secure != NULL && sst_secure_config_check(p->nego.secure, false) < 0) {
		ENGINE_LOG(ERR, "nego.secure is refused: its size, random source and suites are "
				"required, SST_CRYPTO_NULL is never acceptable (sst_secure.h)\n");
		return -EINVAL;
	}
	if (p->ring_mode && (p->ops != NULL || p->stream.ops != NULL))
		ENGINE_LOG(WARNING, "ring_mode: ops and stream.ops are ignored (the ring agents "
				    "take their place)\n");
	if (memcmp(p->nego.secret, zero, sizeof(zero)) == 0)
		ENGINE_LOG(WARNING,
			"nego.secret is all zero: cookies and handshake tags are predictable "
			"(sst_engine_params_default() draws one)\n");
	return 0;
}

/* Worker i's pools: packets, and clones unless the caller brought them. */
static int
create_pools(struct sst_engine *e, uint16_t i)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	/* Small at first, grown between passes (engine_housekeeping()). */
	struct sst_pool_params pp = {
		.size = sizeof(pp),
		.name = name,
		.max = e->p.mbufs,
		.initial = RTE_MIN(e->p.mbufs_initial, e->p.mbufs),
		.cache_size = pool_cache(&e->p),
		.data_room = RTE_MBUF_DEFAULT_BUF_SIZE,
		.socket_id = e->p.socket_id,
	};

	snprintf(name, sizeof(name), "sst_e%p_w%u", (void *)e, i);
	e->workers[i].pool = sst_pool_create(&pp);
	if (e->workers[i].pool == NULL) {
		ENGINE_LOG(ERR,
			"worker %u: no mbuf pool of %u (params.mbufs; "
			"the EAL's memory, -m, must hold it): %s\n",
			i, e->p.mbufs, rte_strerror(rte_errno));
		return -rte_errno;
	}
	if (e->p.stream.clone_pool != NULL)
		return 0;
	/* Indirect mbufs only: the segments they describe stay in pool. */
	snprintf(name, sizeof(name), "sst_e%p_c%u", (void *)e, i);
	pp.data_room = 0;
	e->workers[i].clones = sst_pool_create(&pp);
	if (e->workers[i].clones == NULL) {
		ENGINE_LOG(ERR, "worker %u: no clone pool of %u: %s\n", i, e->p.mbufs,
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

struct sst_engine *
sst_engine_create(const struct sst_engine_params *p)
{
	struct sst_engine *e;
	int rc;

	rc = engine_check_params(p);
	if (rc < 0) {
		rte_errno = -rc;
		return NULL;
	}
	e = rte_zmalloc_socket("sst_engine", sizeof(*e), RTE_CACHE_LINE_SIZE, p->socket_id);
	if (e == NULL) {
		ENGINE_LOG(ERR, "no memory for the engine\n");
		rte_errno = ENOMEM;
		return NULL;
	}
	/* Fields past the caller's size (an older caller) read as zero. */
	memcpy(&e->p, p, p->size);
	e->n = p->workers != 0 ? p->workers : 1;
	e->id = atomic_fetch_add(&engines_created, 1);
	/* The EAL is up now, so its SIMD width (--force-max-simd-bitwidth)
	 * is known; no worker checksums yet. */
	sst_chk32_impl_select(sst_chk32_impl_widest(rte_vect_get_max_simd_bitwidth()));
	sst_net_cksum_impl_select(sst_net_cksum_impl_widest(rte_vect_get_max_simd_bitwidth()));
	if (e->p.mbufs == 0)
		e->p.mbufs = 16383;
	if (e->p.mbufs_initial == 0)
		e->p.mbufs_initial = SST_POOL_INITIAL;
	if (e->p.inbox_size == 0)
		e->p.inbox_size = 4096;
	for (uint16_t i = 0; i < e->n; i++)
		e->workers[i].lcore = RTE_MAX_LCORE;
	for (uint16_t i = 0; i < e->n && rc == 0; i++) {
		char name[RTE_RING_NAMESIZE];

		rc = create_pools(e, i);
		if (rc < 0 || e->n == 1)
			continue;
		snprintf(name, sizeof(name), "sst_e%p_in%u", (void *)e, i);
		/* Any worker may hand over (multi-producer); only i takes. */
		e->inboxes[i] = rte_ring_create(name, e->p.inbox_size, p->socket_id, RING_F_SC_DEQ);
		if (e->inboxes[i] == NULL) {
			ENGINE_LOG(ERR, "worker %u: no inbox ring of %u (params.inbox_size): %s\n",
				i, e->p.inbox_size, rte_strerror(rte_errno));
			rc = -rte_errno;
		}
	}
	sst_shard_map_init(&e->shard, e->n);
	if (rc == 0 && e->n > 1) {
		e->dir = sst_worker_dir_create(e->n, p->socket_id);
		if (e->dir == NULL)
			rc = -rte_errno;
	}
	if (rc == 0)
		rc = open_links(e);
	if (rc == 0) {
		/* The hash covers our address and port, as a packet to us
		 * carries them: a frame link's addresses are the network
		 * layer's, a socket's the one it was bound to. */
		bool frames = sst_link_kind(e->workers[0].link) == SST_LINK_FRAMES;

		sst_shard_map_set_local(&e->shard, frames ? &e->p.net.ipv4 : &e->p.local.addr,
			frames ? &e->p.net.ipv6 : &e->p.local.addr, e->p.local.port);
		rc = create_workers(e);
	}
	if (rc < 0) {
		sst_engine_destroy(e);
		rte_errno = -rc;
		return NULL;
	}
	return e;
}

void
sst_engine_destroy(struct sst_engine *e)
{
	if (e == NULL)
		return;
	for (uint16_t i = 0; i < e->n; i++) {
		sst_worker_destroy(e->workers[i].w);
		/* After its worker: the streams are gone, only mbufs remain. */
		sst_ring_agent_destroy(e->workers[i].agent);
	}
	for (uint16_t i = 0; i < e->n; i++) {
		sst_link_close(e->workers[i].link);
		sst_capture_close(e->workers[i].capture);
	}
	if (e->device_ready)
		sst_link_device_teardown(e->p.driver != NULL ? e->p.driver : "udpsock",
			e->p.driver_confs != NULL ? e->p.driver_confs[0] : NULL);
	for (uint16_t i = 0; i < e->n; i++) {
		rte_ring_free(e->inboxes[i]);
		rte_mempool_free(e->workers[i].clones);
		rte_mempool_free(e->workers[i].pool);
	}
	sst_worker_dir_destroy(e->dir);
	rte_free(e);
}

uint16_t
sst_engine_workers(const struct sst_engine *e)
{
	return e->n;
}

struct sst_worker *
sst_engine_worker(struct sst_engine *e, uint16_t i)
{
	return i < e->n ? e->workers[i].w : NULL;
}

struct sst_ring_agent *
sst_engine_ring_agent(struct sst_engine *e, uint16_t i)
{
	return i < e->n ? e->workers[i].agent : NULL;
}

void
sst_engine_local(const struct sst_engine *e, struct sst_net_endpoint *ep)
{
	*ep = e->p.local;
}

uint16_t
sst_engine_owner(const struct sst_engine *e, const struct sst_net_endpoint *ep)
{
	return sst_shard_owner(&e->shard, ep);
}

/* Between two passes of worker i, off the packet path: grow the pools it
 * allocates from when they run low (sst_pool.h; a pool shared by several
 * workers is grown by whichever gets there first). */
static bool
engine_housekeeping(struct sst_engine *e, uint16_t i)
{
	struct rte_mempool *pools[] = {
		e->workers[i].pool, e->workers[i].clones, e->p.stream.pool, e->p.stream.clone_pool};
	struct engine_worker *ew = &e->workers[i];
	bool grew = false;

	for (size_t k = 0; k < RTE_DIM(pools); k++) {
		int rc = pools[k] != NULL ? sst_pool_grow(pools[k]) : 0;

		grew |= rc > 0;
		if (rc < 0 && !ew->grow_logged) {
			ENGINE_LOG(WARNING,
				"worker %u: pool %s cannot grow past %u mbufs: %s "
				"(too little EAL memory for its %u?)\n",
				i, pools[k]->name, sst_pool_populated(pools[k]), rte_strerror(-rc),
				pools[k]->size);
			ew->grow_logged = true;
		}
	}
	return grew;
}

void
sst_engine_poll_at(struct sst_engine *e, uint16_t i, sst_time_t now)
{
	struct engine_worker *ew = &e->workers[i];

	sst_worker_poll(ew->w, now);
	/* The second test: a caller whose clock went back (a test's). */
	if (now >= ew->housekeeping_at || ew->housekeeping_at - now > ENGINE_HOUSEKEEPING_MAX_NS) {
		ew->housekeeping_ns = engine_housekeeping(e, i) || ew->housekeeping_ns == 0
					      ? ENGINE_HOUSEKEEPING_NS
					      : RTE_MIN(2 * ew->housekeeping_ns,
							(sst_time_t)ENGINE_HOUSEKEEPING_MAX_NS);
		ew->housekeeping_at = now + ew->housekeeping_ns;
	}
}

void
sst_engine_poll(struct sst_engine *e, uint16_t i)
{
	sst_engine_poll_at(e, i, sst_engine_now());
}

/* Until every channel closed (FINISH) or the drain time passed. */
static void
drain(struct sst_engine *e, uint16_t i)
{
	struct sst_worker *w = e->workers[i].w;
	sst_time_t deadline = sst_engine_now() + e->drain_ns;

	while (sst_worker_close_idle(w, sst_engine_now()) > 0 && sst_engine_now() < deadline)
		sst_engine_poll(e, i);
}

int
sst_engine_worker_loop(struct sst_engine *e, uint16_t i)
{
	atomic_fetch_add(&e->loops, 1);
	while (!atomic_load_explicit(&e->stop, memory_order_relaxed))
		sst_engine_poll(e, i);
	drain(e, i);
	atomic_fetch_sub(&e->loops, 1);
	return 0;
}

struct launch_arg {
	struct sst_engine *e;
	uint16_t i;
};

static struct launch_arg launch_args[SST_WORKERS_MAX];

static int
launched_loop(void *arg)
{
	struct launch_arg *a = arg;

	return sst_engine_worker_loop(a->e, a->i);
}

int
sst_engine_launch(struct sst_engine *e)
{
	unsigned int lcore = rte_get_next_lcore(-1, 1, 0);

	if (rte_lcore_count() < (unsigned int)e->n + 1) {
		ENGINE_LOG(ERR, "%u workers need %u lcores (have %u): give the EAL -l 0-%u\n", e->n,
			e->n + 1, rte_lcore_count(), e->n);
		return -EBUSY;
	}
	for (uint16_t i = 0; i < e->n; i++, lcore = rte_get_next_lcore(lcore, 1, 0)) {
		int rc;

		launch_args[i] = (struct launch_arg){.e = e, .i = i};
		rc = rte_eal_remote_launch(launched_loop, &launch_args[i], lcore);
		if (rc < 0) {
			sst_engine_stop(e, 0);
			return rc;
		}
		e->workers[i].lcore = lcore;
	}
	return 0;
}

void
sst_engine_stop(struct sst_engine *e, sst_time_t drain_ns)
{
	bool launched = false;

	e->drain_ns = drain_ns;
	atomic_store(&e->stop, true);
	for (uint16_t i = 0; i < e->n; i++)
		if (e->workers[i].lcore != RTE_MAX_LCORE) {
			rte_eal_wait_lcore(e->workers[i].lcore);
			e->workers[i].lcore = RTE_MAX_LCORE;
			launched = true;
		}
	/* Loops on the application's threads drain themselves; wait. */
	while (atomic_load(&e->loops) > 0) {
		rte_pause();
		launched = true;
	}
	/* Polled by the caller: drain here, all workers in turn. */
	if (!launched) {
		sst_time_t deadline = sst_engine_now() + drain_ns;
		bool open = true;

		while (open && sst_engine_now() < deadline) {
			open = false;
			for (uint16_t i = 0; i < e->n; i++)
				if (sst_worker_close_idle(e->workers[i].w, sst_engine_now()) > 0)
					open = true;
			for (uint16_t i = 0; i < e->n; i++)
				sst_engine_poll(e, i);
		}
	}
}

bool
sst_engine_stopping(const struct sst_engine *e)
{
	return atomic_load(&e->stop);
}
