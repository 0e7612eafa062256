/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Datagram reassembly (lib/stream/stream_dgram.c) driven by arbitrary input:
 * a receiver with input-chosen limits gets fragments with any sequence number
 * in a sliding window of 64, any of 4 SIDs, any flags (undefined ones too),
 * lengths 0..4080 in chains of 1-3 mbufs, while time passes, partial
 * datagrams expire and SIDs are reset; and payloads cut by sst_dgram_split()
 * and fed back in order or reversed. After every step:
 *  - every datagram delivered is exactly the concatenation of the latest
 *    fragments at consecutive sequence numbers seq..seq + frags - 1, all of
 *    its SID, Begin on the first, End on the last, neither in between;
 *  - the structure is sound: each group is a consecutive run of one SID with
 *    Begin only at its head and End only at its tail and never both, its
 *    ends point to it, its counters are the sums; the age list is ordered;
 *    the seq hash holds every buffered fragment once and nothing else;
 *    buffered fragments at s and s + 1 in different groups are End, Begin;
 *  - the bounds hold: fragments <= capacity, bytes <= max_bytes, each
 *    group within max_frags and max_dgram_bytes;
 *  - a split payload within the limits comes back whole, byte for byte;
 *  - next_expiry() is after the time just expired;
 * and at the end every mbuf is back in its pool and every fragment offered
 * was delivered or dropped exactly once.
 */
#include <errno.h>
#include <string.h>

#include <rte_mbuf.h>

#include "fuzz_check.h"
#include "sst_test_eal.h"
#include "sst_test_mbuf.h"
#include "stream_dgram.h"

enum {
	POOL_SIZE = 16384,
	ROOM = 256,
	CAP_MAX = 68,
	SPAN = 1 << 12, /* seqs the random window may reach */
	WIN = 64,
	SPLIT_MAX = 64,
};

#define SPLIT_BASE (UINT64_C(1) << 40)

static struct rte_mempool *pool, *clones;
static unsigned int pool_avail, clones_avail;
static _Alignas(64) uint8_t rx_mem[1 << 16];

/* The latest fragment accepted at each seq of the random window. */
static struct rec {
	uint64_t tag;
	uint32_t len;
	uint16_t sid;
	uint8_t flags;
} rec[SPAN];

int LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (sst_test_eal_init("fuzz_stream_dgram") < 0)
		abort();
	pool = sst_test_pool("fuzz_dg", POOL_SIZE, ROOM);
	clones = sst_test_pool("fuzz_dg_cl", POOL_SIZE, 0);
	if (pool == NULL || clones == NULL)
		abort();
	pool_avail = rte_mempool_avail_count(pool);
	clones_avail = rte_mempool_avail_count(clones);
	return 0;
}

/* Pattern bytes [tag << 20, + len) in at least nseg segments that fit. */
static struct rte_mbuf *
make_chain(uint64_t tag, uint32_t len, unsigned int nseg)
{
	struct rte_mbuf *m;

	while (len - (nseg - 1) * (len / nseg) > ROOM)
		nseg++;
	m = sst_test_pattern_chain(pool, ROOM, tag << 20, len, nseg);
	FUZZ_CHECK(m != NULL);
	return m;
}

/* Bytes [off, off + len) of m are the pattern from p. */
static bool
bytes_are(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint64_t p)
{
	static uint8_t buf[1 << 16];
	const uint8_t *b = len ? rte_pktmbuf_read(m, off, len, buf) : buf;

	if (b == NULL)
		return false;
	for (uint32_t k = 0; k < len; k++)
		if (b[k] != sst_test_pattern(p + k))
			return false;
	return true;
}

/* A delivered datagram: one SID, Begin..End, the latest fragments. */
static void
check_out(const struct sst_dgram *d, uint64_t base)
{
	const struct rte_mbuf *s;
	uint32_t off = 0, segs = 0, total = 0;

	FUZZ_CHECK(d->m != NULL && d->frags >= 1 && d->m->pkt_len == d->len);
	for (s = d->m; s != NULL; s = s->next) {
		segs++;
		total += s->data_len;
	}
	FUZZ_CHECK(segs == d->m->nb_segs && total == d->len);
	FUZZ_CHECK(d->seq >= base && d->seq + d->frags - base <= SPAN);
	for (uint32_t i = 0; i < d->frags; i++) {
		const struct rec *r = &rec[d->seq + i - base];
		uint8_t want = (i == 0 ? SST_FLAG_DGRAM_BEGIN : 0) |
			       (i + 1 == d->frags ? SST_FLAG_DGRAM_END : 0);

		FUZZ_CHECK(r->sid == d->sid && r->flags == want);
		FUZZ_CHECK(bytes_are(d->m, off, r->len, r->tag << 20));
		off += r->len;
	}
	FUZZ_CHECK(off == d->len);
}

static void
check_rx(const struct sst_dgram_rx *rx, uint64_t base, bool contents)
{
	const struct sst_dgram_rx_conf *c = &rx->conf;
	const struct dgram_group *g, *prev = NULL;
	uint64_t bytes = 0, chained = 0;
	uint32_t frags = 0, groups = 0, nfree = 0;

	for (g = rx->oldest; g != NULL; prev = g, g = g->newer) {
		const struct dgram_frag *f, *last = NULL;
		uint32_t n = 0, b = 0, segs = 0;

		FUZZ_CHECK(g->older == prev);
		FUZZ_CHECK(prev == NULL || (prev->order < g->order && prev->born <= g->born));
		FUZZ_CHECK(g->head->grp == g && g->tail->grp == g && *g->spprev == g);
		for (f = g->head; f != NULL; last = f, f = f->next) {
			FUZZ_CHECK(f->m != NULL && f->m->pkt_len == f->len && f->sid == g->sid);
			FUZZ_CHECK(last == NULL || f->seq == last->seq + 1);
			FUZZ_CHECK(f == g->head || !(f->flags & SST_FLAG_DGRAM_BEGIN));
			FUZZ_CHECK(f == g->tail || !(f->flags & SST_FLAG_DGRAM_END));
			FUZZ_CHECK(*f->hpprev == f);
			if (contents && f->seq - base < SPAN) {
				const struct rec *r = &rec[f->seq - base];

				FUZZ_CHECK(r->len == f->len && r->sid == f->sid &&
					   r->flags == f->flags);
				FUZZ_CHECK(bytes_are(f->m, 0, f->len, r->tag << 20));
			}
			n++;
			b += f->len;
			segs += f->m->nb_segs;
		}
		FUZZ_CHECK(last == g->tail && n == g->frags && b == g->bytes && segs == g->segs);
		FUZZ_CHECK(!((g->head->flags & SST_FLAG_DGRAM_BEGIN) &&
			     (g->tail->flags & SST_FLAG_DGRAM_END)));
		FUZZ_CHECK(n <= c->max_frags && b <= c->max_dgram_bytes && segs <= UINT16_MAX);
		frags += n;
		bytes += b;
		groups++;
	}
	FUZZ_CHECK(prev == rx->newest);
	FUZZ_CHECK(frags == rx->frags_used && bytes == rx->bytes_used && groups == rx->groups_used);
	FUZZ_CHECK(frags <= c->capacity && bytes <= c->max_bytes);
	/* The hash holds exactly the buffered fragments. */
	for (uint32_t i = 0; i <= rx->fmask; i++)
		for (const struct dgram_frag *f = rx->fbucket[i]; f != NULL; f = f->hnext) {
			FUZZ_CHECK(f->m != NULL);
			chained++;
		}
	FUZZ_CHECK(chained == frags);
	for (const struct dgram_frag *f = rx->free_frags; f != NULL; f = f->hnext) {
		FUZZ_CHECK(f->m == NULL);
		nfree++;
	}
	FUZZ_CHECK(nfree + frags == c->capacity);
	/* Neighbours in different groups: End, then Begin. */
	for (uint32_t i = 0; i < c->capacity; i++) {
		const struct dgram_frag *f = &rx->frag_mem[i];

		if (f->m == NULL || f != f->grp->head)
			continue;
		for (uint32_t j = 0; j < c->capacity; j++) {
			const struct dgram_frag *e = &rx->frag_mem[j];

			if (e->m != NULL && e->seq + 1 == f->seq)
				FUZZ_CHECK((e->flags & SST_FLAG_DGRAM_END) &&
					   (f->flags & SST_FLAG_DGRAM_BEGIN));
		}
	}
}

/* Cut a payload with sst_dgram_split() and feed it back; it must return
 * whole when within the limits. */
static void
do_split(struct sst_dgram_rx *rx, struct fuzz_input *in, uint64_t *tag, uint64_t *seq,
	sst_time_t now)
{
	struct sst_dgram_frag fr[SPLIT_MAX];
	uint32_t len = (uint32_t)(fuzz_take(in) | fuzz_take(in) << 8) % 20000;
	uint8_t a = fuzz_take(in);
	uint32_t mp = 1 + (uint32_t)fuzz_take(in) * 8;
	struct rte_mbuf *m = make_chain(++*tag, len, 1 + (a & 7));
	uint32_t delivered = 0;
	struct sst_dgram out;
	int n = sst_dgram_split(m, mp, pool, 16 /* an armor trailer */, fr, SPLIT_MAX);

	if (n == -ENOSPC) {
		FUZZ_CHECK((len + mp - 1) / mp > SPLIT_MAX);
		rte_pktmbuf_free(m);
		return;
	}
	FUZZ_CHECK(n >= 1);
	for (int i = 0; i < n; i++) {
		FUZZ_CHECK(fr[i].len == fr[i].m->pkt_len && fr[i].len <= mp);
		FUZZ_CHECK(fr[i].flags == ((i == 0 ? SST_FLAG_DGRAM_BEGIN : 0) |
						  (i + 1 == n ? SST_FLAG_DGRAM_END : 0)));
	}
	for (int k = 0; k < n; k++) {
		int i = a & 0x80 ? n - 1 - k : k;
		int rc = sst_dgram_rx_insert(
			rx, a >> 5 & 3, *seq + (uint64_t)i, fr[i].flags, fr[i].m, now, &out);

		if (rc == SST_DGRAM_COMPLETE) {
			FUZZ_CHECK(out.seq == *seq && out.frags == (uint32_t)n && out.len == len);
			FUZZ_CHECK(bytes_are(out.m, 0, len, *tag << 20));
			rte_pktmbuf_free(out.m);
			delivered++;
		}
	}
	if ((uint32_t)n <= rx->conf.max_frags && len <= rx->conf.max_dgram_bytes)
		FUZZ_CHECK(delivered == 1);
	*seq += (uint64_t)n + 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = {data, size};
	struct sst_dgram_rx *rx = (struct sst_dgram_rx *)rx_mem;
	struct sst_dgram_rx_conf c;
	const uint64_t base = (UINT64_C(1) << 32) - 100;
	uint64_t lo = base, tag = 0, split_seq = SPLIT_BASE;
	sst_time_t now = 0;
	uint8_t c0 = fuzz_take(&in), c1 = fuzz_take(&in), c2 = fuzz_take(&in), c3 = fuzz_take(&in);
	unsigned int step = 0;

	c.capacity = 4 + c0 % (CAP_MAX - 3);
	c.max_frags = 1 + c1 % c.capacity;
	c.max_bytes = 256u * (1 + c2 % 64);
	c.max_dgram_bytes = RTE_MIN(c.max_bytes, 64u * (1 + c3));
	c.timeout = 1000u * (1 + (c0 >> 6) * 8 + (c1 >> 5));
	c.seed = c2 * 0x9e3779b97f4a7c15ull;
	FUZZ_CHECK(sst_dgram_rx_size(c.capacity) <= sizeof(rx_mem));
	FUZZ_CHECK(sst_dgram_rx_init(rx, &c) == 0);
	memset(rec, 0, sizeof(rec));
	while (in.left > 0 && lo - base + WIN < SPAN) {
		uint8_t op = fuzz_take(&in);

		switch (op >> 5) {
		case 0:
		case 1:
		case 2:
		case 3: {
			uint8_t a = fuzz_take(&in), f = fuzz_take(&in), l = fuzz_take(&in);
			uint64_t seq = lo + (a & (WIN - 1));
			uint16_t sid = a >> 6;
			uint32_t flags = f & 3, len = (uint32_t)l * (f & 4 ? 16 : 1);
			struct sst_dgram out;
			int rc;

			if ((f & 0xe0) == 0xe0)
				flags |= 4 << (f & 3 & 1); /* undefined */
			now += (f >> 5 & 3) * 300;
			rc = sst_dgram_rx_insert(rx, sid, seq, flags,
				make_chain(++tag, len, 1 + (f >> 3 & 3) % 3), now, &out);
			FUZZ_CHECK(rc == SST_DGRAM_BUFFERED || rc == SST_DGRAM_COMPLETE ||
				   rc == SST_DGRAM_DUPLICATE || rc == -EINVAL || rc == -EPROTO ||
				   rc == -EMSGSIZE);
			FUZZ_CHECK((rc == -EINVAL) == (flags > 3));
			if (rc == SST_DGRAM_BUFFERED || rc == SST_DGRAM_COMPLETE)
				rec[seq - base] = (struct rec){tag, len, sid, (uint8_t)flags};
			if (rc == SST_DGRAM_COMPLETE) {
				check_out(&out, base);
				FUZZ_CHECK(out.seq <= seq && seq < out.seq + out.frags);
				rte_pktmbuf_free(out.m);
			}
			break;
		}
		case 4:
			now += (sst_time_t)(op & 0x1f) * 500;
			sst_dgram_rx_expire(rx, now);
			FUZZ_CHECK(sst_dgram_rx_next_expiry(rx) > now);
			break;
		case 5:
			sst_dgram_rx_reset_sid(rx, op & 3);
			break;
		case 6:
			do_split(rx, &in, &tag, &split_seq, now);
			break;
		default:
			lo += op & 0xf; /* the window slides */
			break;
		}
		check_rx(rx, base, (++step & 7) == 0);
	}
	sst_dgram_rx_fini(rx);
	FUZZ_CHECK(rx->frags_used == 0 && rx->groups_used == 0 && rx->bytes_used == 0);
	FUZZ_CHECK(rx->stats.frags == rx->stats.frags_delivered + rx->stats.frags_dropped);
	FUZZ_CHECK(rte_mempool_avail_count(pool) == pool_avail);
	FUZZ_CHECK(rte_mempool_avail_count(clones) == clones_avail);
	return 0;
}
