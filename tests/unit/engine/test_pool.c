/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the growable packet pools (lib/engine/pool.c): a pool grows by
 * doubling under allocation pressure and never past its largest size; every
 * object of every chunk is a valid pktmbuf and lies in one of the pool's
 * chunks; another thread allocating and freeing while the pool grows only
 * ever sees initialised mbufs; a pool that runs out of EAL memory reports
 * -ENOMEM once, then waits before retrying, and keeps what it has; bad
 * parameters and other mempools.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "sst_pool.h"
#include "sst_test.h"
#include "sst_test_eal.h"

enum {
	DATA_ROOM = 2048 + RTE_PKTMBUF_HEADROOM,
	BURST = 32,
	HELD = 12000, /**< mbufs the main thread keeps in the threads test */
};

static struct sst_pool_params
params(const char *name, uint32_t max, uint32_t initial, uint32_t chunk_max)
{
	return (struct sst_pool_params){
		.size = sizeof(struct sst_pool_params),
		.name = name,
		.max = max,
		.initial = initial,
		.chunk_max = chunk_max,
		.cache_size = 32,
		.data_room = DATA_ROOM,
		.socket_id = SOCKET_ID_ANY,
	};
}

/* A pktmbuf as rte_pktmbuf_alloc() hands it out, from this pool. */
static bool
valid_mbuf(const struct rte_mempool *mp, struct rte_mbuf *m)
{
	const char *reason = NULL;

	return m->pool == mp && m->buf_len == DATA_ROOM && m->data_off == RTE_PKTMBUF_HEADROOM &&
	       m->nb_segs == 1 && m->next == NULL && rte_pktmbuf_pkt_len(m) == 0 &&
	       rte_mbuf_refcnt_read(m) == 1 && rte_mbuf_check(m, 1, &reason) == 0;
}

struct chunks {
	uintptr_t lo[64], hi[64];
	unsigned int n;
};

static void
chunk_of(struct rte_mempool *mp, void *opaque, struct rte_mempool_memhdr *memhdr, unsigned int i)
{
	struct chunks *c = opaque;

	RTE_SET_USED(mp);
	RTE_SET_USED(i);
	if (c->n < RTE_DIM(c->lo)) {
		c->lo[c->n] = (uintptr_t)memhdr->addr;
		c->hi[c->n++] = (uintptr_t)memhdr->addr + memhdr->len;
	}
}

/* Index of the chunk that holds @p m, or -1. */
static int
find_chunk(const struct chunks *c, const struct rte_mbuf *m)
{
	for (unsigned int i = 0; i < c->n; i++)
		if ((uintptr_t)m >= c->lo[i] && (uintptr_t)m + sizeof(*m) <= c->hi[i])
			return (int)i;
	return -1;
}

static int
ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

/* Allocate in bursts, growing between them as the engine does between
 * passes, until the pool is exhausted at its largest size. */
static void
test_grow_under_pressure(void)
{
	static const uint32_t want[] = {100, 200, 400, 800, 1600, 2624, 3000};
	struct sst_pool_params p = params("tp_grow", 3000, 100, 1024);
	struct rte_mempool *mp = sst_pool_create(&p);
	struct rte_mbuf **all = calloc(3000, sizeof(*all));
	uintptr_t *addrs = calloc(3000, sizeof(*addrs));
	unsigned int n = 0, steps = 0, in_chunk[64] = {0};
	struct chunks ch = {.n = 0};

	CU_ASSERT_FATAL(mp != NULL && all != NULL && addrs != NULL);
	CU_ASSERT(sst_pool_growable(mp));
	CU_ASSERT_EQUAL(mp->size, 3000);
	CU_ASSERT_EQUAL(sst_pool_populated(mp), 100);
	CU_ASSERT_EQUAL(rte_pktmbuf_data_room_size(mp), DATA_ROOM);
	/* Nothing to do while three quarters are free. */
	CU_ASSERT_EQUAL(sst_pool_grow(mp), 0);
	for (;;) {
		struct rte_mbuf *b[BURST];
		int rc;

		if (rte_pktmbuf_alloc_bulk(mp, b, BURST) == 0) {
			memcpy(&all[n], b, sizeof(b));
			n += BURST;
		} else {
			while (n < 3000 && (all[n] = rte_pktmbuf_alloc(mp)) != NULL)
				n++;
		}
		rc = sst_pool_grow(mp);
		CU_ASSERT(rc >= 0);
		if (rc > 0) {
			steps++;
			CU_ASSERT(steps < RTE_DIM(want));
			if (steps < RTE_DIM(want))
				CU_ASSERT_EQUAL(sst_pool_populated(mp), want[steps]);
		}
		if (n == 3000 || (rc == 0 && rte_mempool_avail_count(mp) == 0))
			break;
	}
	CU_ASSERT_EQUAL(n, 3000);
	CU_ASSERT_EQUAL(steps, RTE_DIM(want) - 1);
	/* The maximum holds: nothing more to grow, nothing more to take. */
	CU_ASSERT_EQUAL(sst_pool_populated(mp), 3000);
	CU_ASSERT_EQUAL(sst_pool_in_use(mp), 3000);
	CU_ASSERT_EQUAL(sst_pool_grow(mp), 0);
	CU_ASSERT_PTR_NULL(rte_pktmbuf_alloc(mp));
	CU_ASSERT_EQUAL(mp->populated_size, 3000);
	/* Every object valid, distinct, and in one of the chunks, each of
	 * which gave some. */
	rte_mempool_mem_iter(mp, chunk_of, &ch);
	CU_ASSERT_EQUAL(ch.n, RTE_DIM(want));
	for (unsigned int i = 0; i < n; i++) {
		int k = find_chunk(&ch, all[i]);

		CU_ASSERT(valid_mbuf(mp, all[i]));
		CU_ASSERT(k >= 0);
		if (k >= 0)
			in_chunk[k]++;
		/* The whole data room is ours to write. */
		memset(rte_pktmbuf_append(all[i], 2048), (int)i, 2048);
		addrs[i] = (uintptr_t)all[i];
	}
	for (unsigned int k = 0; k < ch.n; k++)
		CU_ASSERT(in_chunk[k] > 0);
	qsort(addrs, n, sizeof(*addrs), ptr_cmp);
	for (unsigned int i = 1; i < n; i++)
		CU_ASSERT(addrs[i] != addrs[i - 1]);
	rte_pktmbuf_free_bulk(all, n);
	CU_ASSERT_EQUAL(sst_pool_in_use(mp), 0);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(mp), 3000);
	free(addrs);
	free(all);
	rte_mempool_free(mp);
}

/* A fully populated pool from the start (initial = max), a pool smaller
 * than the default first chunk, and a mempool of another kind. */
static void
test_sizes(void)
{
	struct sst_pool_params p = params("tp_full", 700, 700, 0);
	struct rte_mempool *full = sst_pool_create(&p);
	struct rte_mempool *tiny, *plain;

	CU_ASSERT_FATAL(full != NULL);
	CU_ASSERT_EQUAL(sst_pool_populated(full), 700);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(full), 700);
	rte_mempool_free(full);

	p = params("tp_tiny", 5, 0, 0);
	p.cache_size = 0; /* a cache must be smaller than the pool */
	tiny = sst_pool_create(&p);
	CU_ASSERT_FATAL(tiny != NULL);
	CU_ASSERT_EQUAL(sst_pool_populated(tiny), 5);
	rte_mempool_free(tiny);

	/* Grows from one object when it is taken (a quarter, rounded up). */
	p = params("tp_one", 4, 1, 0);
	p.cache_size = 0;
	tiny = sst_pool_create(&p);
	CU_ASSERT_FATAL(tiny != NULL);
	{
		struct rte_mbuf *m = rte_pktmbuf_alloc(tiny);

		CU_ASSERT_EQUAL(sst_pool_grow(tiny), 1);
		CU_ASSERT_EQUAL(sst_pool_populated(tiny), 2);
		rte_pktmbuf_free(m);
	}
	rte_mempool_free(tiny);

	plain = rte_pktmbuf_pool_create("tp_plain", 64, 0, 0, DATA_ROOM, SOCKET_ID_ANY);
	CU_ASSERT_FATAL(plain != NULL);
	CU_ASSERT_FALSE(sst_pool_growable(plain));
	CU_ASSERT_EQUAL(sst_pool_grow(plain), 0);
	CU_ASSERT_EQUAL(sst_pool_populated(plain), 64);
	rte_mempool_free(plain);
}

/* sst_pool_create(p) fails with rte_errno @p err. */
static bool
refused(const struct sst_pool_params *p, int err)
{
	return sst_pool_create(p) == NULL && rte_errno == err;
}

static void
test_bad_params(void)
{
	struct sst_pool_params bad[] = {
		params("tp_bad", 100, 0, 0),
		params("tp_bad", 0, 0, 0),     /* no size */
		params("tp_bad", 100, 101, 0), /* first chunk past the largest size */
		params("tp_bad", 100, 0, 0),
		params(NULL, 100, 0, 0),
	};
	struct sst_pool_params p;

	bad[0].size = 0;      /* no sizeof */
	bad[3].priv_size = 3; /* not RTE_MBUF_PRIV_ALIGN'ed */
	CU_ASSERT(refused(NULL, EINVAL));
	for (size_t i = 0; i < RTE_DIM(bad); i++)
		CU_ASSERT(refused(&bad[i], EINVAL));
	/* Chunk memzones are "MP_<name>_<k>": a name that leaves no room. */
	p = params("tp_a_name_of_28_characters__", 100, 0, 0);
	CU_ASSERT(refused(&p, ENAMETOOLONG));
	/* Two pools of one name. */
	p = params("tp_twice", 100, 0, 0);
	{
		struct rte_mempool *a = sst_pool_create(&p);

		CU_ASSERT_FATAL(a != NULL);
		CU_ASSERT_PTR_NULL(sst_pool_create(&p));
		CU_ASSERT_EQUAL(rte_errno, EEXIST);
		rte_mempool_free(a);
	}
}

/*
 * Another thread takes and frees mbufs, and frees those the main thread
 * hands it (as a net_ring peer frees our frames), while the main thread
 * allocates and grows the pool: every mbuf either thread gets must be
 * initialised, including those of a chunk being added at that moment.
 */
struct peer {
	struct rte_mempool *mp;
	struct rte_ring *handoff;
	atomic_bool stop;
	unsigned long freed, taken, invalid;
};

static void *
peer_main(void *arg)
{
	struct peer *p = arg;
	void *objs[BURST];

	while (!atomic_load(&p->stop) || rte_ring_count(p->handoff) > 0) {
		unsigned int k = rte_ring_dequeue_burst(p->handoff, objs, BURST, NULL);
		struct rte_mbuf *m = rte_pktmbuf_alloc(p->mp);

		for (unsigned int i = 0; i < k; i++)
			rte_pktmbuf_free(objs[i]);
		p->freed += k;
		if (m != NULL) {
			p->taken++;
			if (!valid_mbuf(p->mp, m))
				p->invalid++;
			rte_pktmbuf_free(m);
		}
	}
	return NULL;
}

static void
test_frees_from_another_thread(void)
{
	struct sst_pool_params p = params("tp_mt", 16384, 64, 2048);
	struct peer peer = {.mp = NULL};
	struct rte_mbuf **held = calloc(HELD, sizeof(*held));
	unsigned long sent = 0, invalid = 0;
	unsigned int grown = 0, nheld = 0;
	pthread_attr_t attr;
	cpu_set_t cpus;
	pthread_t t;

	/* No cache: every get and put of both threads goes to the shared ring. */
	p.cache_size = 0;
	peer.mp = sst_pool_create(&p);
	peer.handoff =
		rte_ring_create("tp_handoff", 32768, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	CU_ASSERT_FATAL(peer.mp != NULL && peer.handoff != NULL && held != NULL);
	/* On any CPU: the EAL pinned this thread to lcore 0's, and two
	 * threads of one CPU spinning on each other's ring updates would
	 * crawl. */
	CPU_ZERO(&cpus);
	for (int c = 0; c < CPU_SETSIZE && c < 64; c++)
		CPU_SET(c, &cpus);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
	CU_ASSERT_FATAL(pthread_create(&t, &attr, peer_main, &peer) == 0);
	pthread_attr_destroy(&attr);
	/* Keep half of what we take until HELD are held, so that the pool
	 * runs low and grows while the peer takes and frees. */
	while (nheld < HELD) {
		struct rte_mbuf *b[BURST];
		unsigned int k = 0, keep;

		while (k < BURST && (b[k] = rte_pktmbuf_alloc(peer.mp)) != NULL)
			k++;
		for (unsigned int i = 0; i < k; i++)
			if (!valid_mbuf(peer.mp, b[i]))
				invalid++;
		keep = RTE_MIN(k / 2, HELD - nheld);
		memcpy(&held[nheld], b, keep * sizeof(b[0]));
		nheld += keep;
		/* The ring holds 32767: the peer keeps up long before. */
		while (rte_ring_enqueue_bulk(peer.handoff, (void **)&b[keep], k - keep, NULL) ==
				0 &&
			k > keep)
			;
		sent += k - keep;
		if (sst_pool_grow(peer.mp) > 0)
			grown++;
	}
	atomic_store(&peer.stop, true);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(invalid, 0);
	CU_ASSERT_EQUAL(peer.invalid, 0);
	CU_ASSERT_EQUAL(peer.freed, sent);
	CU_ASSERT(grown >= 5);
	CU_ASSERT(sst_pool_populated(peer.mp) > HELD);
	CU_ASSERT(sst_pool_populated(peer.mp) <= 16384);
	CU_ASSERT_EQUAL(sst_pool_in_use(peer.mp), HELD);
	rte_pktmbuf_free_bulk(held, nheld);
	CU_ASSERT_EQUAL(sst_pool_in_use(peer.mp), 0);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(peer.mp), sst_pool_populated(peer.mp));
	free(held);
	rte_ring_free(peer.handoff);
	rte_mempool_free(peer.mp);
}

/* A pool larger than the EAL's memory (512 MB here): growth stops with
 * -ENOMEM, is not retried on the next calls, and what the pool holds stays
 * usable. */
static void
test_out_of_memory(void)
{
	struct sst_pool_params p = params("tp_oom", 1u << 20, 4096, 16384);
	struct rte_mempool *mp = sst_pool_create(&p);
	struct rte_mbuf **all = calloc(1u << 20, sizeof(*all));
	unsigned int n = 0;
	int rc = 0;

	CU_ASSERT_FATAL(mp != NULL && all != NULL);
	while (rc >= 0) {
		while ((all[n] = rte_pktmbuf_alloc(mp)) != NULL)
			n++;
		rc = sst_pool_grow(mp);
		CU_ASSERT(rc != 0);
	}
	CU_ASSERT_EQUAL(rc, -ENOMEM);
	CU_ASSERT(sst_pool_populated(mp) < mp->size);
	CU_ASSERT_EQUAL(n, sst_pool_populated(mp));
	/* The next calls wait rather than try again at once. */
	CU_ASSERT_EQUAL(sst_pool_grow(mp), 0);
	CU_ASSERT_EQUAL(sst_pool_grow(mp), 0);
	rte_pktmbuf_free_bulk(all, n);
	CU_ASSERT_EQUAL(sst_pool_in_use(mp), 0);
	free(all);
	rte_mempool_free(mp);
	/* The memory came back: a new pool can grow into it. */
	p = params("tp_oom2", 8192, 4096, 0);
	mp = sst_pool_create(&p);
	CU_ASSERT_FATAL(mp != NULL);
	rte_mempool_free(mp);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_grow_under_pressure),
	SST_TEST(test_sizes),
	SST_TEST(test_bad_params),
	SST_TEST(test_frees_from_another_thread),
	SST_TEST(test_out_of_memory),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_pool") < 0)
		return 1;
	return sst_test_run("sst_pool", cases);
}
