/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive reassembly (paper 4.3.4). See stream_rob.h for the layout, the
 * bounds and the costs; this file keeps three invariants that the rest
 * relies on:
 *  - islands are disjoint, never adjacent, and all start above ready_end
 *    (an island that reaches ready_end moves to the ready queue at once);
 *  - an island's pieces are contiguous, in order, and cover it exactly;
 *  - every piece holds exactly its len bytes in its mbuf chain.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "sst_rand.h"
#include "stream_rob.h"

enum {
	ROB_MARKS = SST_FLAG_MESSAGE | SST_FLAG_PUSH, /**< flags kept on pieces */
};

size_t
sst_rob_size(uint32_t capacity)
{
	if (capacity < SST_ROB_CAP_MIN || capacity > SST_ROB_CAP_MAX)
		return 0;
	return sizeof(struct sst_rob) +
	       (size_t)capacity * (sizeof(struct rob_piece) + sizeof(struct rob_island));
}

static inline struct rob_piece *
chunk_pieces(struct rob_chunk *c)
{
	return (struct rob_piece *)(c + 1);
}

static inline struct rob_island *
chunk_islands(struct rob_chunk *c)
{
	return (struct rob_island *)(chunk_pieces(c) + c->n);
}

/* A chunk of n pieces and n islands. */
static size_t
chunk_bytes(uint32_t n)
{
	return sizeof(struct rob_chunk) +
	       (size_t)n * (sizeof(struct rob_piece) + sizeof(struct rob_island));
}

/* Give the chunks back (their pieces hold nothing). */
static void
release_chunks(struct sst_rob *rob)
{
	while (rob->chunks != NULL) {
		struct rob_chunk *c = rob->chunks;

		rob->chunks = c->next;
		rob->mem->release(rob->mem->ctx, c, chunk_bytes(c->n));
	}
	rob->capacity = rob->own_capacity;
}

/* Forget all data (the chunks go back: memory in proportion to use). The
 * caller's pieces and islands are handed out fresh, in order, as they are
 * first needed, so a new stream starts in O(1) whatever its capacity, and
 * release_all() visits only what this incarnation used. */
static void
state_init(struct sst_rob *rob, uint64_t start)
{
	release_chunks(rob);

	rob->read_off = start;
	rob->ready_end = start;
	rob->high = start;
	rob->final_off = 0;
	rob->has_final = false;
	rob->ooo_first = UINT64_MAX;
	rob->bytes_ready = 0;
	rob->bytes_ooo = 0;
	rob->pieces_used = 0;
	rob->islands = 0;
	rob->ready_head = NULL;
	rob->ready_tail = NULL;
	rob->root = NULL;
	rob->free_pieces = NULL;
	rob->free_islands = NULL;
	rob->fresh_pieces = 0;
	rob->fresh_islands = 0;
}

int
sst_rob_init(struct sst_rob *rob, uint32_t capacity, uint32_t window,
	struct rte_mempool *clone_pool, uint64_t start)
{
	if (rob == NULL || clone_pool == NULL || sst_rob_size(capacity) == 0)
		return -EINVAL;
	memset(rob, 0, sizeof(*rob));
	rob->capacity = capacity;
	rob->own_capacity = capacity;
	rob->max_capacity = capacity;
	rob->window = window;
	rob->clone_pool = clone_pool;
	rob->rng = 0x9e3779b9u ^ (uint32_t)(uintptr_t)rob;
	if (rob->rng == 0)
		rob->rng = 1;
	rob->piece_mem = (struct rob_piece *)(rob + 1);
	rob->island_mem = (struct rob_island *)(rob->piece_mem + capacity);
	state_init(rob, start);
	return 0;
}

int
sst_rob_set_growth(struct sst_rob *rob, uint32_t max_capacity, const struct sst_mem_ops *mem)
{
	if (mem == NULL || max_capacity < rob->own_capacity || max_capacity > SST_ROB_CAP_MAX)
		return -EINVAL;
	rob->max_capacity = max_capacity;
	rob->mem = mem;
	return 0;
}

/*
 * Add as many pieces as the rob has (at most up to max_capacity), and as
 * many islands, to the free lists. Returns 0, or -ENOSPC (at the limit,
 * or no memory).
 */
static int
grow(struct sst_rob *rob)
{
	uint32_t n = RTE_MIN(rob->capacity, rob->max_capacity - rob->capacity);
	struct rob_chunk *c;

	if (n == 0)
		return -ENOSPC;
	c = rob->mem->zalloc(rob->mem->ctx, chunk_bytes(n));
	if (c == NULL) {
		rob->stats.grow_failures++;
		return -ENOSPC;
	}
	c->n = n;
	c->next = rob->chunks;
	rob->chunks = c;
	for (uint32_t i = n; i-- > 0;) {
		chunk_pieces(c)[i].next = rob->free_pieces;
		rob->free_pieces = &chunk_pieces(c)[i];
		chunk_islands(c)[i].r = rob->free_islands;
		rob->free_islands = &chunk_islands(c)[i];
	}
	rob->capacity += n;
	rob->stats.grows++;
	return 0;
}

/* Free every buffered mbuf; the pieces in use are exactly those with one,
 * all among those handed out since state_init(). */
static void
release_all(struct sst_rob *rob)
{
	uint32_t i;

	for (i = 0; i < rob->fresh_pieces; i++)
		if (rob->piece_mem[i].m != NULL)
			rte_pktmbuf_free(rob->piece_mem[i].m);
	for (struct rob_chunk *c = rob->chunks; c != NULL; c = c->next)
		for (i = 0; i < c->n; i++)
			if (chunk_pieces(c)[i].m != NULL)
				rte_pktmbuf_free(chunk_pieces(c)[i].m);
}

void
sst_rob_fini(struct sst_rob *rob)
{
	release_all(rob);
	state_init(rob, rob->read_off);
}

void
sst_rob_reset(struct sst_rob *rob, uint64_t start)
{
	release_all(rob);
	state_init(rob, start);
}

/* ---- the island treap (keyed by start, random priorities) ---- */

static uint32_t
rob_rand(struct sst_rob *rob)
{
	return sst_xorshift32(&rob->rng);
}

/* Split t into the islands starting below key (*l) and the others (*r). */
static void
split(struct rob_island *t, uint64_t key, struct rob_island **l, struct rob_island **r)
{
	if (t == NULL) {
		*l = NULL;
		*r = NULL;
	} else if (t->start < key) {
		split(t->r, key, &t->r, r);
		*l = t;
	} else {
		split(t->l, key, l, &t->l);
		*r = t;
	}
}

/* Join two treaps; every start in a is below every start in b. */
static struct rob_island *
join(struct rob_island *a, struct rob_island *b)
{
	if (a == NULL)
		return b;
	if (b == NULL)
		return a;
	if (a->prio > b->prio) {
		a->r = join(a->r, b);
		return a;
	}
	b->l = join(a, b->l);
	return b;
}

static void
tree_insert(struct sst_rob *rob, struct rob_island *n)
{
	struct rob_island *a, *b;

	n->l = NULL;
	n->r = NULL;
	n->prio = rob_rand(rob);
	split(rob->root, n->start, &a, &b);
	rob->root = join(join(a, n), b);
}

static void
tree_erase(struct sst_rob *rob, struct rob_island *n)
{
	struct rob_island *a, *b, *mid, *c;

	split(rob->root, n->start, &a, &b);
	split(b, n->start + 1, &mid, &c);
	rob->root = join(a, c);
}

/* The island with the largest start <= x, or NULL. */
static struct rob_island *
tree_floor(const struct sst_rob *rob, uint64_t x)
{
	struct rob_island *t = rob->root, *best = NULL;

	while (t != NULL) {
		if (t->start <= x) {
			best = t;
			t = t->r;
		} else {
			t = t->l;
		}
	}
	return best;
}

/* The island with the smallest start >= x, or NULL. */
static struct rob_island *
tree_ceil(const struct sst_rob *rob, uint64_t x)
{
	struct rob_island *t = rob->root, *best = NULL;

	while (t != NULL) {
		if (t->start >= x) {
			best = t;
			t = t->l;
		} else {
			t = t->r;
		}
	}
	return best;
}

static void
island_remove(struct sst_rob *rob, struct rob_island *n)
{
	tree_erase(rob, n);
	rob->islands--;
	n->head = NULL;
	n->tail = NULL;
	n->l = NULL;
	n->r = rob->free_islands;
	rob->free_islands = n;
}

/* A free island (place() checked there is one), handed out like pieces. */
static struct rob_island *
island_get(struct sst_rob *rob)
{
	struct rob_island *n = rob->free_islands;

	if (n == NULL) {
		n = &rob->island_mem[rob->fresh_islands++];
		*n = (struct rob_island){0};
		return n;
	}
	rob->free_islands = n->r;
	return n;
}

/* ---- pieces ---- */

/* A free piece: one given back, else one of the caller's never handed out
 * since state_init(), else one of a new chunk. */
static struct rob_piece *
piece_get(struct sst_rob *rob)
{
	struct rob_piece *p = rob->free_pieces;

	if (p == NULL && rob->fresh_pieces < rob->own_capacity) {
		p = &rob->piece_mem[rob->fresh_pieces++];
		*p = (struct rob_piece){0};
		rob->pieces_used++;
		return p;
	}
	if (p == NULL && rob->capacity < rob->max_capacity && grow(rob) == 0)
		p = rob->free_pieces;
	if (p != NULL) {
		rob->free_pieces = p->next;
		p->next = NULL;
		rob->pieces_used++;
	}
	return p;
}

static void
piece_put(struct sst_rob *rob, struct rob_piece *p)
{
	p->m = NULL;
	p->next = rob->free_pieces;
	rob->free_pieces = p;
	rob->pieces_used--;
}

/*
 * Cut the chain m down to its bytes [off, off + len): whole segments outside
 * go back to their pool, the boundary segments are adjusted in place
 * (rte_pktmbuf_adj for the head; the tail by data_len, as
 * rte_pktmbuf_trim does for a single segment). No payload byte moves.
 * Preconditions: len > 0 and off + len <= m->pkt_len. Returns the new head.
 */
static struct rte_mbuf *
chain_cut(struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	struct rte_mbuf *seg, *rest;
	uint32_t kept = 0;
	uint16_t nseg = 1;

	while (off >= m->data_len) {
		struct rte_mbuf *next = m->next;

		next->pkt_len = m->pkt_len - m->data_len;
		next->nb_segs = (uint16_t)(m->nb_segs - 1);
		off -= m->data_len;
		m->next = NULL;
		m->nb_segs = 1;
		m->pkt_len = m->data_len;
		rte_pktmbuf_free(m);
		m = next;
	}
	if (off > 0)
		rte_pktmbuf_adj(m, (uint16_t)off);
	seg = m;
	while (kept + seg->data_len < len) {
		kept += seg->data_len;
		seg = seg->next;
		nseg++;
	}
	seg->data_len = (uint16_t)(len - kept);
	rest = seg->next;
	seg->next = NULL;
	if (rest != NULL)
		rte_pktmbuf_free(rest);
	m->pkt_len = len;
	m->nb_segs = nseg;
	return m;
}

/* Move island g, which starts at ready_end, to the end of the ready queue. */
static void
drain(struct sst_rob *rob, struct rob_island *g)
{
	uint64_t bytes = g->end - g->start;

	if (rob->ready_tail != NULL)
		rob->ready_tail->next = g->head;
	else
		rob->ready_head = g->head;
	rob->ready_tail = g->tail;
	rob->ready_end = g->end;
	rob->bytes_ready += bytes;
	rob->bytes_ooo -= bytes;
	island_remove(rob, g);
	if (rob->root == NULL) {
		rob->ooo_first = UINT64_MAX;
	} else {
		struct rob_island *t = rob->root;

		while (t->l != NULL)
			t = t->l;
		rob->ooo_first = t->start;
	}
}

/*
 * Place the segment's bytes [a, b) (m holds [off, off + len)) as a new
 * piece at the end of island *g, or as a new island if *g is NULL. The last
 * piece of a segment reuses m itself; earlier ones are indirect clones, so
 * that m stays whole until its last use.
 * The last piece the rob may have is kept for bytes at the read point: were
 * islands allowed every piece, the retransmission that fills the hole below
 * them would find none, nothing would become readable to free one, and the
 * stream would stall for good (32 pieces, a 512 KB response after a slow
 * start overshoot: test_sim_stream_features.c).
 * Returns 0, or -ENOSPC / -ENOMEM with m untouched and still the caller's.
 */
static int
place(struct sst_rob *rob, struct rob_island **g, struct rte_mbuf *m, uint64_t off, uint64_t a,
	uint64_t b, uint32_t flags, bool last)
{
	struct rob_piece *p;
	struct rte_mbuf *mm = m;
	uint32_t len = (uint32_t)(b - a);
	bool at_end = b == off + m->pkt_len;

	if (a != rob->ready_end &&
		rob->pieces_used + 1 >= RTE_MAX(rob->capacity, rob->max_capacity)) {
		rob->stats.drop_capacity++;
		return -ENOSPC;
	}
	p = piece_get(rob);
	if (p == NULL) {
		rob->stats.drop_capacity++;
		return -ENOSPC;
	}
	if (*g == NULL && rob->free_islands == NULL && rob->fresh_islands == rob->own_capacity) {
		/* Cannot happen: islands never outnumber pieces. */
		piece_put(rob, p);
		rob->stats.drop_capacity++;
		return -ENOSPC;
	}
	if (!last) {
		mm = rte_pktmbuf_clone(m, rob->clone_pool);
		if (mm == NULL) {
			piece_put(rob, p);
			rob->stats.drop_nomem++;
			return -ENOMEM;
		}
		rob->stats.clones++;
	}
	if (a != off || len != mm->pkt_len)
		mm = chain_cut(mm, (uint32_t)(a - off), len);
	p->m = mm;
	p->off = a;
	p->len = len;
	p->flags = at_end ? flags & ROB_MARKS : 0;
	if (*g == NULL) {
		struct rob_island *n = island_get(rob);

		n->start = a;
		n->end = b;
		n->head = p;
		n->tail = p;
		tree_insert(rob, n);
		rob->islands++;
		if (a < rob->ooo_first)
			rob->ooo_first = a;
		*g = n;
	} else {
		(*g)->tail->next = p;
		(*g)->tail = p;
		(*g)->end = b;
	}
	rob->bytes_ooo += len;
	if (b > rob->high)
		rob->high = b;
	return 0;
}

/* Append island n (which starts at g->end) to island g. */
static void
absorb(struct sst_rob *rob, struct rob_island *g, struct rob_island *n)
{
	g->tail->next = n->head;
	g->tail = n->tail;
	g->end = n->end;
	island_remove(rob, n);
}

/*
 * The general case: [s, end) holds new bytes somewhere, and may overlap
 * islands. Fill each hole of [s, end) with a piece and merge the islands
 * it touches into one. m holds [off, end). Consumes m.
 */
static int
insert_ooo(struct sst_rob *rob, uint64_t off, struct rte_mbuf *m, uint64_t s, uint64_t end,
	uint32_t flags, bool new_final)
{
	struct rob_island *g = NULL, *p = tree_floor(rob, s);
	uint64_t cur = s, fresh = 0;
	int rc = 0;

	if (p != NULL && p->end >= end) {
		rob->stats.segs_dup++;
		rob->stats.bytes_dup += m->pkt_len;
		rte_pktmbuf_free(m);
		return new_final ? SST_ROB_ACCEPTED : SST_ROB_DUPLICATE;
	}
	if (p != NULL && p->end >= s) {
		cur = p->end;
		g = p;
	}
	for (;;) {
		struct rob_island *n = tree_ceil(rob, cur);
		bool touches = n != NULL && n->start <= end;
		uint64_t hole_end = touches ? n->start : end;
		bool last = !touches || n->end >= end;

		/* Islands are never adjacent, so there is always a hole here. */
		rc = place(rob, &g, m, off, cur, hole_end, flags, last);
		if (rc < 0) {
			rte_pktmbuf_free(m);
			break;
		}
		fresh += hole_end - cur;
		if (!touches)
			break;
		cur = n->end;
		absorb(rob, g, n);
		if (last)
			break;
	}
	rob->stats.bytes_dup += (end - off) - fresh;
	if (g != NULL && g->start == rob->ready_end)
		drain(rob, g);
	return rc < 0 ? rc : SST_ROB_ACCEPTED;
}

/* A segment without data: a Close and/or a mark on the byte before off. */
static int
insert_empty(struct sst_rob *rob, uint64_t off, struct rte_mbuf *m, uint32_t flags, bool new_final)
{
	uint32_t mark = flags & ROB_MARKS;
	struct rob_piece *p = NULL;
	int rc = SST_ROB_DUPLICATE;

	if (m != NULL)
		rte_pktmbuf_free(m);
	if (new_final) {
		rob->has_final = true;
		rob->final_off = off;
		rc = SST_ROB_ACCEPTED;
	}
	if (mark != 0 && off > rob->read_off) {
		if (off == rob->ready_end) {
			p = rob->ready_tail;
		} else {
			struct rob_island *i = tree_floor(rob, off - 1);

			if (i != NULL && i->end == off)
				p = i->tail;
		}
		if (p != NULL && (p->flags & mark) != mark) {
			p->flags |= mark;
			rc = SST_ROB_ACCEPTED;
		}
	}
	if (rc == SST_ROB_DUPLICATE)
		rob->stats.segs_dup++;
	return rc;
}

int
sst_rob_insert(struct sst_rob *rob, uint64_t off, struct rte_mbuf *m, uint32_t flags)
{
	uint64_t len = m != NULL ? m->pkt_len : 0;
	uint64_t end = off + len, s;
	bool new_final;

	rob->stats.segs++;
	if ((flags & ~(uint32_t)SST_ROB_FLAGS) != 0 || end < off) {
		rte_pktmbuf_free(m);
		return -EINVAL;
	}
	/* Close works like TCP's FIN (paper 4.3.4): one final offset, and no
	 * byte beyond it. */
	if ((flags & SST_FLAG_CLOSE) != 0) {
		if ((rob->has_final && rob->final_off != end) || end < rob->high)
			goto proto;
	} else if (rob->has_final && end > rob->final_off) {
		goto proto;
	}
	new_final = (flags & SST_FLAG_CLOSE) != 0 && !rob->has_final;
	if (len == 0)
		return insert_empty(rob, off, m, flags, new_final);
	if (end <= rob->ready_end) {
		rob->stats.segs_dup++;
		rob->stats.bytes_dup += len;
		rte_pktmbuf_free(m);
		if (!new_final)
			return SST_ROB_DUPLICATE;
		rob->has_final = true;
		rob->final_off = end;
		return SST_ROB_ACCEPTED;
	}
	/* A sender that overruns the window is treated as if the segment had
	 * been lost (paper 4.3.6): drop it whole, count it. */
	if (end - rob->read_off > rob->window) {
		rob->stats.drop_window++;
		rte_pktmbuf_free(m);
		return -EOVERFLOW;
	}
	if (new_final) {
		rob->has_final = true;
		rob->final_off = end;
	}
	s = RTE_MAX(off, rob->ready_end);
	if (s == rob->ready_end && end <= rob->ooo_first) {
		/* In order with no hole before the first island: straight to
		 * the ready queue. */
		struct rob_piece *p = piece_get(rob);

		if (p == NULL) {
			rob->stats.drop_capacity++;
			rte_pktmbuf_free(m);
			return -ENOSPC;
		}
		if (s != off) {
			rob->stats.bytes_dup += s - off;
			m = chain_cut(m, (uint32_t)(s - off), (uint32_t)(end - s));
		}
		p->m = m;
		p->off = s;
		p->len = (uint32_t)(end - s);
		p->flags = flags & ROB_MARKS;
		if (rob->ready_tail != NULL)
			rob->ready_tail->next = p;
		else
			rob->ready_head = p;
		rob->ready_tail = p;
		rob->ready_end = end;
		rob->bytes_ready += p->len;
		if (end > rob->high)
			rob->high = end;
		if (end == rob->ooo_first)
			drain(rob, tree_floor(rob, end));
		return SST_ROB_ACCEPTED;
	}
	return insert_ooo(rob, off, m, s, end, flags, new_final);
proto:
	rob->stats.proto_errors++;
	rte_pktmbuf_free(m);
	return -EPROTO;
}

uint16_t
sst_rob_read(struct sst_rob *rob, struct sst_rob_rx *rx, uint16_t max)
{
	uint16_t n = 0;
	struct rob_piece *p;

	while (n < max && (p = rob->ready_head) != NULL) {
		rx[n].m = p->m;
		rx[n].off = p->off;
		rx[n].flags = p->flags;
		if (rob->has_final && p->off + p->len == rob->final_off)
			rx[n].flags |= SST_FLAG_CLOSE;
		rob->ready_head = p->next;
		if (rob->ready_head == NULL)
			rob->ready_tail = NULL;
		rob->read_off += p->len;
		rob->bytes_ready -= p->len;
		piece_put(rob, p);
		n++;
	}
	return n;
}
