/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive reassembly buffer (lib/stream/stream_rob.c) driven by
 * arbitrary input: segments (any offset around the window, any length,
 * chains of 1-3 mbufs, any flags), reads, window growth and resets. After
 * every step:
 *  - the return code equals the model's (received-byte bitmap, final
 *    offset, window); -ENOSPC only when every piece is in use, and then
 *    what was kept is a subset of the segment;
 *  - the structure is sound: islands sorted, disjoint, never adjacent, all
 *    beyond the ready point; pieces contiguous, each mbuf chain exactly its
 *    length; counters equal the sums; islands <= pieces <= capacity;
 *  - every buffered and every delivered byte is the sender's byte at that
 *    offset, deliveries are contiguous from the start, Message end only
 *    where a segment ended with it, Close exactly at the final offset;
 *  - buffered bytes <= window;
 * and at the end every mbuf is back in its pool.
 */
#include <errno.h>
#include <string.h>

#include <rte_mbuf.h>

#include "fuzz_check.h"
#include "sst_test_eal.h"
#include "sst_test_mbuf.h"
#include "stream_rob.h"

enum {
	POOL_SIZE = 16384,
	ROOM = 256,
	SPAN = 1 << 22, /* model bytes; a run stops before passing it */
	CAP_BIG = 2048,
};

static struct rte_mempool *pool, *clones;
static unsigned int pool_avail, clones_avail;
static _Alignas(64) uint8_t rob_mem[1 << 20];
static uint8_t rcv[SPAN];  /* byte received (model) */
static uint8_t mark[SPAN]; /* a segment with Message end ended here */

int LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (sst_test_eal_init("fuzz_stream_rob") < 0)
		abort();
	pool = sst_test_pool("fuzz_rob", POOL_SIZE, ROOM);
	clones = sst_test_pool("fuzz_rob_cl", POOL_SIZE, 0);
	if (pool == NULL || clones == NULL)
		abort();
	pool_avail = rte_mempool_avail_count(pool);
	clones_avail = rte_mempool_avail_count(clones);
	return 0;
}

struct model {
	uint64_t base, read_off, ready_end, high, final_off, next;
	uint32_t window;
	bool has_final;
};

static struct rte_mbuf *
make_seg(uint64_t off, uint32_t len, unsigned int nseg)
{
	struct rte_mbuf *m;

	nseg = RTE_MAX(nseg, (len + ROOM - 17) / (ROOM - 16));
	m = sst_test_pattern_chain(pool, ROOM, off, len, nseg);
	FUZZ_CHECK(m != NULL);
	return m;
}

static void
check_piece(const struct rob_piece *p)
{
	const struct rte_mbuf *s;
	uint64_t o = p->off;
	uint32_t total = 0;
	uint16_t nseg = 0;

	FUZZ_CHECK(p->m != NULL && p->len > 0 && p->m->pkt_len == p->len);
	for (s = p->m; s != NULL; s = s->next, nseg++) {
		const uint8_t *d = rte_pktmbuf_mtod(s, const uint8_t *);

		for (uint16_t k = 0; k < s->data_len; k++)
			FUZZ_CHECK(d[k] == sst_test_pattern(o++));
		total += s->data_len;
	}
	FUZZ_CHECK(total == p->len && nseg == p->m->nb_segs);
}

struct walk {
	uint64_t last_end; /* end of the previous island */
	uint64_t bytes;
	uint32_t islands, pieces;
	const struct model *md;
	uint8_t *scratch; /* when set: mark the held bytes */
};

static void
walk_tree(const struct rob_island *t, struct walk *w, unsigned int depth)
{
	const struct rob_piece *p;
	uint64_t o;

	if (t == NULL)
		return;
	FUZZ_CHECK(depth < 200); /* a treap of <= 2048 nodes */
	walk_tree(t->l, w, depth + 1);
	FUZZ_CHECK(t->start > w->last_end && t->end > t->start);
	o = t->start;
	for (p = t->head; p != NULL; p = p->next) {
		FUZZ_CHECK(p->off == o);
		check_piece(p);
		o += p->len;
		w->pieces++;
		if (p == t->tail)
			FUZZ_CHECK(p->next == NULL);
	}
	FUZZ_CHECK(o == t->end);
	if (w->scratch != NULL)
		memset(w->scratch + (t->start - w->md->base), 1, t->end - t->start);
	w->bytes += t->end - t->start;
	w->last_end = t->end;
	w->islands++;
	walk_tree(t->r, w, depth + 1);
}

static void
check_rob(const struct sst_rob *rob, const struct model *md, bool exact)
{
	struct walk w = {.last_end = rob->ready_end, .md = md};
	const struct rob_piece *p;
	uint64_t o = rob->read_off;
	uint32_t ready = 0;

	for (p = rob->ready_head; p != NULL; p = p->next) {
		FUZZ_CHECK(p->off == o);
		check_piece(p);
		o += p->len;
		ready++;
		if (p->next == NULL)
			FUZZ_CHECK(p == rob->ready_tail);
	}
	FUZZ_CHECK(rob->ready_head != NULL || rob->ready_tail == NULL);
	FUZZ_CHECK(o == rob->ready_end && rob->bytes_ready == o - rob->read_off);
	walk_tree(rob->root, &w, 0);
	FUZZ_CHECK(w.bytes == rob->bytes_ooo && w.islands == rob->islands);
	FUZZ_CHECK(w.pieces + ready == rob->pieces_used && rob->pieces_used <= rob->capacity);
	FUZZ_CHECK(rob->islands <= rob->pieces_used);
	FUZZ_CHECK(sst_rob_buffered(rob) <= rob->window);
	FUZZ_CHECK(rob->read_off == md->read_off);
	if (!exact)
		return;
	FUZZ_CHECK(rob->ready_end == md->ready_end && rob->high == md->high);
	FUZZ_CHECK(rob->has_final == md->has_final);
	FUZZ_CHECK(!md->has_final || rob->final_off == md->final_off);
}

/* The model's held bytes: recount and compare with the rob's islands. */
static void
compare_held(const struct sst_rob *rob, const struct model *md, uint8_t *scratch)
{
	struct walk w = {.last_end = rob->ready_end, .md = md, .scratch = scratch};
	uint64_t lo = md->ready_end - md->base, hi = md->read_off + md->window - md->base;

	memset(scratch + lo, 0, hi - lo);
	walk_tree(rob->root, &w, 0);
	for (uint64_t i = lo; i < hi; i++)
		FUZZ_CHECK(scratch[i] == rcv[i]);
}

static uint8_t scratch[SPAN];

static void
model_ready(struct model *md)
{
	while (md->ready_end - md->base < SPAN && rcv[md->ready_end - md->base])
		md->ready_end++;
}

/* The first byte at or above @p from that the model holds, or @p limit. */
static uint64_t
first_held(const struct model *md, uint64_t from, uint64_t limit)
{
	for (uint64_t o = from; o < limit; o++)
		if (rcv[o - md->base])
			return o;
	return limit;
}

static void
do_insert(struct sst_rob *rob, struct model *md, struct fuzz_input *in)
{
	uint16_t d = (uint16_t)(fuzz_take(in) | fuzz_take(in) << 8);
	uint8_t l = fuzz_take(in), f = fuzz_take(in);
	uint64_t off = md->read_off + d % (md->window + 512);
	uint32_t len = f & 0x80 ? 0 : (uint32_t)l * (f & 0x40 ? 8 : 1) + (f & 0x20 ? 1 : 0);
	uint32_t flags = f & (SST_ROB_FLAGS | 0x8);
	uint64_t end, o;
	bool fresh = false, new_final;
	int rc, want;

	off = off < 256 + md->base ? md->base : off - 256;
	end = off + len;
	if (end - md->base >= SPAN - 1)
		return;
	new_final = (flags & SST_FLAG_CLOSE) && !md->has_final;
	for (o = RTE_MAX(off, md->ready_end); o < end && !fresh; o++)
		fresh = !rcv[o - md->base];
	if (flags & 0x8)
		want = -EINVAL;
	else if ((flags & SST_FLAG_CLOSE) &&
		 ((md->has_final && md->final_off != end) || end < md->high))
		want = -EPROTO;
	else if (!(flags & SST_FLAG_CLOSE) && md->has_final && end > md->final_off)
		want = -EPROTO;
	else if (len == 0)
		want = new_final ? SST_ROB_ACCEPTED : SST_ROB_DUPLICATE;
	else if (end <= md->ready_end)
		want = new_final ? SST_ROB_ACCEPTED : SST_ROB_DUPLICATE;
	else if (end - md->read_off > md->window)
		want = -EOVERFLOW;
	else if (!fresh)
		want = new_final ? SST_ROB_ACCEPTED : SST_ROB_DUPLICATE;
	else
		want = SST_ROB_ACCEPTED;

	rc = sst_rob_insert(rob, off, len ? make_seg(off, len, 1 + (f & 3) % 3) : NULL, flags);
	if (len == 0 && want == SST_ROB_DUPLICATE && (flags & (SST_FLAG_MESSAGE | SST_FLAG_PUSH)))
		FUZZ_CHECK(
			rc == SST_ROB_DUPLICATE || rc == SST_ROB_ACCEPTED); /* a mark was added */
	else if (want == SST_ROB_ACCEPTED && len > 0 && fresh && rc == -ENOSPC)
		/* No piece left, or only the last, which out-of-order bytes may
		 * not take: a segment at the read point that ends before the
		 * first byte held above it (a hole's fill) always gets it. */
		FUZZ_CHECK(rob->pieces_used == rob->capacity ||
			   (rob->pieces_used + 1 == rob->capacity &&
				   !(off <= md->ready_end &&
					   end <= first_held(md, md->ready_end, end))));
	else
		FUZZ_CHECK(rc == want);
	/* Out-of-order bytes never hold every piece: the last is the hole's. */
	if (rob->bytes_ready == 0)
		FUZZ_CHECK(rob->pieces_used < rob->capacity);
	if (len == 0 && (flags & SST_FLAG_MESSAGE) && rc >= 0)
		mark[off - md->base] = 1; /* may mark the piece ending there */
	if (rc == SST_ROB_ACCEPTED || rc == -ENOSPC) {
		if (new_final) {
			md->has_final = true;
			md->final_off = end;
		}
	}
	if (rc == SST_ROB_ACCEPTED && len > 0 && fresh) {
		for (o = RTE_MAX(off, md->read_off); o < end; o++)
			rcv[o - md->base] = 1;
		if (flags & SST_FLAG_MESSAGE)
			mark[end - md->base] = 1;
		md->high = RTE_MAX(md->high, end);
	} else if (rc == -ENOSPC) {
		/* Some holes may have been filled: a subset of the segment. */
		uint64_t lo = md->ready_end - md->base, hi = md->read_off + md->window - md->base;

		{
			struct walk w = {.last_end = rob->ready_end, .md = md, .scratch = scratch};

			memset(scratch + lo, 0, hi - lo);
			walk_tree(rob->root, &w, 0);
			for (o = md->ready_end; o < rob->ready_end; o++)
				scratch[o - md->base] = 1;
			for (uint64_t i = lo; i < hi; i++) {
				FUZZ_CHECK(scratch[i] >= rcv[i]);
				FUZZ_CHECK(scratch[i] == rcv[i] ||
					   (i + md->base >= off && i + md->base < end));
				if (scratch[i] && !rcv[i])
					md->high = RTE_MAX(md->high, i + md->base + 1);
				rcv[i] = scratch[i];
			}
		}
	}
	model_ready(md);
}

static void
do_read(struct sst_rob *rob, struct model *md, uint8_t max)
{
	struct sst_rob_rx rx[8];
	uint16_t n = sst_rob_read(rob, rx, (uint16_t)(max % 8 + 1));

	for (uint16_t i = 0; i < n; i++) {
		struct rob_piece p = {.m = rx[i].m, .off = rx[i].off, .len = rx[i].m->pkt_len};
		uint64_t end = rx[i].off + rx[i].m->pkt_len;

		FUZZ_CHECK(rx[i].off == md->next);
		check_piece(&p);
		if (rx[i].flags & SST_FLAG_MESSAGE)
			FUZZ_CHECK(mark[end - md->base]);
		FUZZ_CHECK(!(rx[i].flags & SST_FLAG_CLOSE) ==
			   !(md->has_final && end == md->final_off));
		md->next = end;
		rte_pktmbuf_free(rx[i].m);
	}
	md->read_off = md->next;
	FUZZ_CHECK(sst_rob_read_offset(rob) == md->read_off);
	FUZZ_CHECK(sst_rob_eof(rob) == (md->has_final && md->read_off == md->final_off));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sst_rob *rob = (struct sst_rob *)rob_mem;
	struct fuzz_input in = {data, size};
	uint8_t c0 = fuzz_take(&in), c1 = fuzz_take(&in);
	uint32_t cap = c0 & 0x80 ? CAP_BIG : 1 + (c0 & 0x3f);
	struct model md = {0};

	md.base = (1ull << 32) - 4096 + (uint64_t)c1 * 64;
	md.window = 64u << (c1 & 7);
	md.read_off = md.ready_end = md.high = md.next = md.base;
	FUZZ_CHECK(sst_rob_init(rob, cap, md.window, clones, md.base) == 0);
	memset(rcv, 0, sizeof(rcv));
	memset(mark, 0, sizeof(mark));
	while (in.left > 0) {
		uint8_t op = fuzz_take(&in);

		if (md.read_off + md.window + 8192 - md.base >= SPAN)
			break;
		switch (op >> 5) {
		case 0:
		case 1:
		case 2:
		case 3:
			do_insert(rob, &md, &in);
			break;
		case 4:
		case 5:
			do_read(rob, &md, op);
			break;
		case 6:
			/* The window only grows here, so buffered <= window holds. */
			md.window += (uint32_t)(op & 0x1f) * 64;
			sst_rob_set_window(rob, md.window);
			break;
		default:
			if ((op & 0x1f) == 0x1f) {
				sst_rob_reset(rob, md.read_off);
				memset(rcv, 0, sizeof(rcv));
				memset(mark, 0, sizeof(mark));
				md.ready_end = md.high = md.read_off;
				md.has_final = false;
				md.base = md.read_off;
			} else {
				do_read(rob, &md, op);
			}
			break;
		}
		check_rob(rob, &md, true);
		if ((op & 0x7) == 0)
			compare_held(rob, &md, scratch);
	}
	sst_rob_fini(rob);
	FUZZ_CHECK(rte_mempool_avail_count(pool) == pool_avail);
	FUZZ_CHECK(rte_mempool_avail_count(clones) == clones_avail);
	return 0;
}
