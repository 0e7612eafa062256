/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Send queue (paper 4.3.4). See stream_sendq.h for the byte states, the
 * bounds and the costs; this file keeps these invariants:
 *  - held entries are contiguous in offset order from the ring head to
 *    tail, each non-empty; an entry's mbuf is released (m = NULL) exactly
 *    when every byte of it is acknowledged, and the entry leaves the ring
 *    once it lies below una;
 *  - ranges are sorted, disjoint, inside [una, snd_nxt), and two adjacent
 *    ranges never have the same state; the first range never is an ACKED
 *    range starting at una (una is moved past it instead);
 *  - bytes_lost and bytes_ooo are the sums of the LOST and ACKED ranges.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "stream_sendq.h"

enum sendq_state {
	SENDQ_LOST = 1,
	SENDQ_ACKED = 2,
};

enum sendq_close {
	SENDQ_OPEN = 0,
	SENDQ_CLOSED = 1,      /**< closed, the Close not yet acknowledged */
	SENDQ_CLOSE_ACKED = 2, /**< a segment carrying Close was acknowledged */
};

size_t
sst_sendq_size(uint32_t max_mbufs, uint32_t max_ranges)
{
	if (max_mbufs < SST_SENDQ_CAP_MIN || max_mbufs > SST_SENDQ_CAP_MAX ||
		max_ranges < SST_SENDQ_CAP_MIN || max_ranges > SST_SENDQ_CAP_MAX)
		return 0;
	return sizeof(struct sst_sendq) + (size_t)max_mbufs * sizeof(struct sendq_ent) +
	       (size_t)max_ranges * sizeof(struct sendq_range);
}

/* Forget all data and start empty at q->start (mbufs already released). */
static void
state_init(struct sst_sendq *q)
{
	q->una = q->start;
	q->snd_nxt = q->start;
	q->tail = q->start;
	q->bytes_held = 0;
	q->bytes_ooo = 0;
	q->bytes_lost = 0;
	q->ent_head = 0;
	q->ent_count = 0;
	q->ent_hint = 0;
	q->nranges = 0;
	q->close = SENDQ_OPEN;
	q->close_zero = false;
	q->zero_due = false;
	q->zero_sent = false;
}

int
sst_sendq_init(struct sst_sendq *q, uint64_t max_bytes, uint32_t max_mbufs, uint32_t max_ranges,
	struct rte_mempool *clone_pool, uint64_t start)
{
	if (q == NULL || clone_pool == NULL || max_bytes == 0 ||
		sst_sendq_size(max_mbufs, max_ranges) == 0)
		return -EINVAL;
	memset(q, 0, sizeof(*q));
	q->start = start;
	q->max_bytes = max_bytes;
	q->max_mbufs = max_mbufs;
	q->max_ranges = max_ranges;
	q->ent_cap = max_mbufs;
	q->range_cap = max_ranges;
	q->own_ent_cap = max_mbufs;
	q->own_range_cap = max_ranges;
	q->clone_pool = clone_pool;
	q->own_ents = (struct sendq_ent *)(q + 1);
	q->own_ranges = (struct sendq_range *)(q->own_ents + max_mbufs);
	q->ents = q->own_ents;
	q->ranges = q->own_ranges;
	state_init(q);
	return 0;
}

int
sst_sendq_set_growth(
	struct sst_sendq *q, uint32_t max_mbufs, uint32_t max_ranges, const struct sst_mem_ops *mem)
{
	if (mem == NULL || max_mbufs < q->ent_cap || max_ranges < q->range_cap ||
		max_mbufs > SST_SENDQ_CAP_MAX || max_ranges > SST_SENDQ_CAP_MAX)
		return -EINVAL;
	q->max_mbufs = max_mbufs;
	q->max_ranges = max_ranges;
	q->mem = mem;
	return 0;
}

/* Entry at logical index i (0 = ring head). */
static inline struct sendq_ent *
ent(const struct sst_sendq *q, uint32_t i)
{
	uint32_t k = q->ent_head + i;

	if (k >= q->ent_cap)
		k -= q->ent_cap;
	return &q->ents[k];
}

/*
 * A table for need entries of size bytes, doubling *cap (at most max), on
 * the queue's allocator; *cap is set to its capacity. NULL (counted when
 * memory is short) if need is beyond max or no memory is left.
 */
static void *
table_alloc(struct sst_sendq *q, uint32_t *cap, uint32_t need, uint32_t max, size_t size)
{
	uint32_t c = *cap;
	void *t;

	if (need > max)
		return NULL;
	while (c < need)
		c = c > max / 2 ? max : 2 * c;
	t = q->mem->zalloc(q->mem->ctx, (size_t)c * size);
	if (t == NULL) {
		q->stats.grow_failures++;
		return NULL;
	}
	*cap = c;
	q->stats.grows++;
	return t;
}

/* Give the tables back to the caller's memory (they hold nothing). */
static void
release_tables(struct sst_sendq *q)
{
	if (q->ents != q->own_ents)
		q->mem->release(q->mem->ctx, q->ents, (size_t)q->ent_cap * sizeof(*q->ents));
	if (q->ranges != q->own_ranges)
		q->mem->release(q->mem->ctx, q->ranges, (size_t)q->range_cap * sizeof(*q->ranges));
	q->ents = q->own_ents;
	q->ranges = q->own_ranges;
	q->ent_cap = q->own_ent_cap;
	q->range_cap = q->own_range_cap;
}

/*
 * Make room for need entries in the ring, which is re-laid from index 0.
 * Returns 0, or -ENOSPC (beyond max_mbufs, or no memory: nothing changed).
 */
static int
grow_ents(struct sst_sendq *q, uint32_t need)
{
	uint32_t cap = q->ent_cap;
	struct sendq_ent *e = table_alloc(q, &cap, need, q->max_mbufs, sizeof(*e));

	if (e == NULL)
		return -ENOSPC;
	for (uint32_t i = 0; i < q->ent_count; i++)
		e[i] = *ent(q, i);
	if (q->ents != q->own_ents)
		q->mem->release(q->mem->ctx, q->ents, (size_t)q->ent_cap * sizeof(*q->ents));
	q->ents = e;
	q->ent_cap = cap;
	q->ent_head = 0;
	q->ent_hint = 0;
	return 0;
}

/* Make room for need ranges. Returns 0, or -ENOSPC (nothing changed). */
static int
grow_ranges(struct sst_sendq *q, uint32_t need)
{
	uint32_t cap = q->range_cap;
	struct sendq_range *r = table_alloc(q, &cap, need, q->max_ranges, sizeof(*r));

	if (r == NULL)
		return -ENOSPC;
	memcpy(r, q->ranges, (size_t)q->nranges * sizeof(*r));
	if (q->ranges != q->own_ranges)
		q->mem->release(q->mem->ctx, q->ranges, (size_t)q->range_cap * sizeof(*q->ranges));
	q->ranges = r;
	q->range_cap = cap;
	return 0;
}

/* Release every held mbuf and empty the ring. */
static void
release_all(struct sst_sendq *q)
{
	for (uint32_t i = 0; i < q->ent_count; i++) {
		struct sendq_ent *e = ent(q, i);

		rte_pktmbuf_free(e->m);
		e->m = NULL;
	}
}

void
sst_sendq_fini(struct sst_sendq *q)
{
	if (q == NULL)
		return;
	release_all(q);
	release_tables(q);
	state_init(q);
}

void
sst_sendq_reset(struct sst_sendq *q)
{
	release_all(q);
	state_init(q);
}

/* Does the entry at logical index i exist and hold byte x? */
static inline bool
ent_holds(const struct sst_sendq *q, uint32_t i, uint64_t x)
{
	return i < q->ent_count && ent(q, i)->off <= x && x - ent(q, i)->off < ent(q, i)->len;
}

/*
 * Logical index of the entry holding byte x. Precondition: some entry
 * holds it (una <= x < tail, or x at an entry still in the ring).
 * Segments are cut one after the other: the entry where the last one
 * ended (q->ent_hint, a slot) or the next nearly always holds x. A binary
 * search otherwise (docs/performance.md: 130 instructions a segment).
 */
static uint32_t
ent_find(const struct sst_sendq *q, uint64_t x)
{
	uint32_t lo = 0, hi = q->ent_count; /* answer in [lo, hi) */
	uint32_t h = q->ent_hint >= q->ent_head ? q->ent_hint - q->ent_head
						: q->ent_hint + q->ent_cap - q->ent_head;

	for (uint32_t k = h; k <= h + 1; k++)
		if (ent_holds(q, k, x))
			return k;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ent(q, mid)->off <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the first range ending after x (nranges if none). */
static uint32_t
rg_find(const struct sst_sendq *q, uint64_t x)
{
	uint32_t lo = 0, hi = q->nranges;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (q->ranges[mid].end > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Add (sign 1) or remove (sign -1) a range's bytes from its counter. */
static void
rg_count(struct sst_sendq *q, const struct sendq_range *r, int sign)
{
	uint64_t *c = r->state == SENDQ_LOST ? &q->bytes_lost : &q->bytes_ooo;

	*c += (uint64_t)(int64_t)sign * (r->end - r->start); /* modulo 2^64 */
}

/*
 * Replace ranges [i, j) with the n ranges in nv. Precondition: the result
 * fits (nranges - (j - i) + n <= max_ranges) and keeps the invariants.
 */
static void
rg_replace(struct sst_sendq *q, uint32_t i, uint32_t j, const struct sendq_range *nv, uint32_t n)
{
	for (uint32_t k = i; k < j; k++)
		rg_count(q, &q->ranges[k], -1);
	if (j - i != n)
		memmove(&q->ranges[i + n], &q->ranges[j],
			(q->nranges - j) * sizeof(struct sendq_range));
	for (uint32_t k = 0; k < n; k++) {
		q->ranges[i + k] = nv[k];
		rg_count(q, &nv[k], 1);
	}
	q->nranges = q->nranges - (j - i) + n;
}

/*
 * Give the bytes [a, b) the state st, merging with neighbours of the same
 * state. Precondition: una <= a < b <= snd_nxt, and a > una for ACKED
 * (an ACKED range at una is folded into una by advance_una instead).
 * Returns 0, or -ENOSPC when the result would not fit (nothing changed).
 */
static int
rg_paint(struct sst_sendq *q, uint64_t a, uint64_t b, uint32_t st)
{
	struct sendq_range nv[3];
	struct sendq_range mid = {.start = a, .end = b, .state = st};
	uint32_t i = rg_find(q, a), j = i, lo = i, hi, n = 0;

	while (j < q->nranges && q->ranges[j].start < b)
		j++;
	hi = j;
	if (i < j && q->ranges[i].start < a) {
		if (q->ranges[i].state == st)
			mid.start = q->ranges[i].start;
		else
			nv[n++] = (struct sendq_range){q->ranges[i].start, a, q->ranges[i].state};
	} else if (i > 0 && q->ranges[i - 1].end == a && q->ranges[i - 1].state == st) {
		lo = i - 1;
		mid.start = q->ranges[i - 1].start;
	}
	nv[n++] = mid;
	if (j > i && q->ranges[j - 1].end > b) {
		if (q->ranges[j - 1].state == st)
			nv[n - 1].end = q->ranges[j - 1].end;
		else
			nv[n++] = (struct sendq_range){
				b, q->ranges[j - 1].end, q->ranges[j - 1].state};
	} else if (j < q->nranges && q->ranges[j].start == b && q->ranges[j].state == st) {
		nv[n - 1].end = q->ranges[j].end;
		hi = j + 1;
	}
	if (q->nranges - (hi - lo) + n > q->range_cap &&
		grow_ranges(q, q->nranges - (hi - lo) + n) < 0)
		return -ENOSPC;
	rg_replace(q, lo, hi, nv, n);
	return 0;
}

/* Bytes of [a, b) already acknowledged. */
static uint64_t
acked_in(const struct sst_sendq *q, uint64_t a, uint64_t b)
{
	uint64_t n = 0;

	if (a < q->una) {
		n = RTE_MIN(b, q->una) - a;
		a = q->una;
	}
	for (uint32_t i = rg_find(q, a); i < q->nranges && q->ranges[i].start < b; i++)
		if (q->ranges[i].state == SENDQ_ACKED)
			n += RTE_MIN(b, q->ranges[i].end) - RTE_MAX(a, q->ranges[i].start);
	return n;
}

/* True if every byte of [a, b) is acknowledged. */
static bool
all_acked(const struct sst_sendq *q, uint64_t a, uint64_t b)
{
	uint32_t i;

	if (b <= q->una)
		return true;
	if (a < q->una)
		return false; /* no ACKED range starts at una */
	i = rg_find(q, a);
	return i < q->nranges && q->ranges[i].state == SENDQ_ACKED && q->ranges[i].start <= a &&
	       q->ranges[i].end >= b;
}

/* Every byte below b is acknowledged: move una, dropping the ranges below. */
static void
advance_una(struct sst_sendq *q, uint64_t b)
{
	uint32_t j = rg_find(q, b);

	if (j < q->nranges && q->ranges[j].start < b) {
		struct sendq_range r = q->ranges[j];

		r.start = b;
		rg_replace(q, 0, j + 1, &r, 1);
	} else {
		rg_replace(q, 0, j, NULL, 0);
	}
	q->una = b;
	if (q->nranges > 0 && q->ranges[0].state == SENDQ_ACKED && q->ranges[0].start == b) {
		q->una = q->ranges[0].end;
		rg_replace(q, 0, 1, NULL, 0);
	}
}

/* Release the mbufs touching [a, b) now wholly acknowledged. in_order (a
 * was una, now b or beyond): each lies below una, and popping the ring's
 * head releases it: O(mbufs completed), no search. */
static void
release_acked(struct sst_sendq *q, uint64_t a, uint64_t b, bool in_order)
{
	uint32_t i;

	if (!in_order && q->ent_count > 0 && a < q->tail) {
		for (i = ent_find(q, RTE_MAX(a, ent(q, 0)->off)); i < q->ent_count; i++) {
			struct sendq_ent *e = ent(q, i);

			if (e->off >= b)
				break;
			if (e->m != NULL && all_acked(q, e->off, e->off + e->len)) {
				rte_pktmbuf_free(e->m);
				e->m = NULL;
				q->bytes_held -= e->len;
			}
		}
	}
	while (q->ent_count > 0) {
		struct sendq_ent *e = ent(q, 0);

		if (e->off + e->len > q->una)
			break;
		if (e->m != NULL) {
			rte_pktmbuf_free(e->m);
			e->m = NULL;
			q->bytes_held -= e->len;
		}
		q->ent_head = q->ent_head + 1 == q->ent_cap ? 0 : q->ent_head + 1;
		q->ent_count--;
	}
}

int
sst_sendq_append(struct sst_sendq *q, struct rte_mbuf *m, uint32_t flags)
{
	struct rte_mbuf *s, *nx;
	uint64_t len = 0;
	uint32_t n = 0;

	if (flags & ~(uint32_t)SST_SENDQ_APPEND_FLAGS)
		return -EINVAL;
	if (q->close != SENDQ_OPEN)
		return -EPIPE;
	for (s = m; s != NULL; s = s->next) {
		len += s->data_len;
		n += s->data_len > 0;
	}
	if (len == 0) {
		/* Marks only: they go on the last write if it is not sent yet. */
		if (flags != 0) {
			if (q->snd_nxt == q->tail)
				return -EINVAL;
			ent(q, q->ent_count - 1)->flags |= flags;
		}
		rte_pktmbuf_free(m);
		return 0;
	}
	if (q->bytes_held + len > q->max_bytes)
		return -ENOBUFS;
	if (q->ent_count + n > q->ent_cap && grow_ents(q, q->ent_count + n) < 0)
		return -ENOSPC;
	/* Unlink the chain: each mbuf is released on its own when acked. */
	for (s = m; s != NULL; s = nx) {
		nx = s->next;
		s->next = NULL;
		if (s->data_len == 0) {
			rte_pktmbuf_free_seg(s);
			continue;
		}
		s->nb_segs = 1;
		s->pkt_len = s->data_len;
		*ent(q, q->ent_count++) =
			(struct sendq_ent){.m = s, .off = q->tail, .len = s->data_len, .flags = 0};
		q->tail += s->data_len;
	}
	ent(q, q->ent_count - 1)->flags = flags;
	q->bytes_held += len;
	return 0;
}

int
sst_sendq_close(struct sst_sendq *q)
{
	if (q->close != SENDQ_OPEN)
		return -EALREADY;
	q->close = SENDQ_CLOSED;
	/* With every byte sent, no data segment is left to carry the Close. */
	q->close_zero = q->snd_nxt == q->tail;
	q->zero_due = q->close_zero;
	return 0;
}

int
sst_sendq_close_alone(struct sst_sendq *q)
{
	if (q->close != SENDQ_OPEN)
		return -EALREADY;
	q->close = SENDQ_CLOSED;
	/* The zero-length segment is due now, but sst_sendq_next_segment()
	 * hands out lost and unsent data first, so it still goes last. */
	q->close_zero = true;
	q->zero_due = true;
	return 0;
}

/* Where make_seg() copies a segment's bytes: room bytes at p, then (for a
 * chain) the data of the mbufs after m, each its data_len long. */
struct seg_dst {
	struct rte_mbuf *m;
	uint8_t *p;
	uint32_t room;
};

static void
dst_write(struct seg_dst *d, const uint8_t *src, uint32_t len)
{
	while (len > 0) {
		uint32_t k;

		if (d->room == 0) {
			d->m = d->m->next;
			d->p = rte_pktmbuf_mtod(d->m, uint8_t *);
			d->room = d->m->data_len;
		}
		k = RTE_MIN(len, d->room);
		memcpy(d->p, src, k);
		d->p += k;
		d->room -= k;
		src += k;
		len -= k;
	}
}

/*
 * Build the segment that starts at o and ends at lim at the latest, or
 * earlier at the end of a write marked Push or Message end. With d NULL
 * its bytes are indirect mbufs (clones of the entries); otherwise they are
 * copied to d, which has room for lim - o bytes, and seg->m is NULL: a
 * segment costs less copied next to its headers than cloned, chained
 * and detached again when it is freed (docs/performance.md).
 * Precondition: o < lim <= tail and every byte in between is held.
 * Returns 1, or -ENOMEM (clones only; nothing changed).
 */
static int
make_seg(
	struct sst_sendq *q, uint64_t o, uint64_t lim, struct sst_sendq_seg *seg, struct seg_dst *d)
{
	struct rte_mbuf *head = NULL;
	uint64_t x = o;
	uint32_t flags = 0;

	for (uint32_t i = ent_find(q, o); x < lim; i++) {
		const struct sendq_ent *e = ent(q, i);
		uint64_t e_end = e->off + e->len;
		uint64_t to = RTE_MIN(e_end, lim);

		/* The next segment starts here (or in the entry after). */
		q->ent_hint = (uint32_t)(e - q->ents);

		if (d != NULL) {
			/* Entries are single mbufs: their bytes are contiguous. */
			dst_write(d, rte_pktmbuf_mtod_offset(e->m, const uint8_t *, x - e->off),
				(uint32_t)(to - x));
		} else {
			struct rte_mbuf *c = rte_pktmbuf_clone(e->m, q->clone_pool);

			if (c == NULL)
				goto nomem;
			q->stats.clones++;
			/* One indirect mbuf, cut to the bytes [x, to) of the entry. */
			c->data_off = (uint16_t)(c->data_off + (x - e->off));
			c->data_len = (uint16_t)(to - x);
			c->pkt_len = c->data_len;
			if (head == NULL) {
				head = c;
			} else if (rte_pktmbuf_chain(head, c) != 0) {
				rte_pktmbuf_free(c);
				goto nomem;
			}
		}
		x = to;
		if (x == e_end && e->flags != 0) {
			flags = e->flags;
			break;
		}
	}
	if (q->close != SENDQ_OPEN && !q->close_zero && x == q->tail)
		flags |= SST_FLAG_CLOSE | SST_FLAG_PUSH;
	*seg = (struct sst_sendq_seg){
		.m = head, .off = o, .len = (uint32_t)(x - o), .flags = flags};
	q->stats.segs++;
	if (d != NULL) {
		q->stats.copies++;
		q->stats.bytes_copied += seg->len;
	}
	return 1;

nomem:
	rte_pktmbuf_free(head);
	q->stats.nomem++;
	return -ENOMEM;
}

/* sst_sendq_next_segment() and the copies: d as make_seg's. */
static int
next_seg(struct sst_sendq *q, uint32_t max_len, struct sst_sendq_seg *seg, struct seg_dst *d)
{
	int rc;

	if (q->bytes_lost > 0 && max_len > 0) {
		/* Resend the lowest lost byte first (paper 4.3.4), re-cut to max_len. */
		uint32_t k = 0;
		struct sendq_range *r;

		while (q->ranges[k].state != SENDQ_LOST)
			k++;
		r = &q->ranges[k];
		rc = make_seg(q, r->start, RTE_MIN(r->end, r->start + max_len), seg, d);
		if (rc < 0)
			return rc;
		seg->retransmit = true;
		q->stats.segs_retx++;
		q->stats.bytes_retx += seg->len;
		if (seg->len == r->end - r->start) {
			rg_replace(q, k, k + 1, NULL, 0);
		} else {
			r->start += seg->len;
			q->bytes_lost -= seg->len;
		}
		return 1;
	}
	if (q->snd_nxt < q->tail && max_len > 0) {
		rc = make_seg(q, q->snd_nxt, RTE_MIN(q->tail, q->snd_nxt + max_len), seg, d);
		if (rc < 0)
			return rc;
		seg->retransmit = false;
		q->snd_nxt += seg->len;
		return 1;
	}
	if (q->zero_due && q->snd_nxt == q->tail) {
		/* wire-format.md 4: a zero-length Push|Close ends the direction,
		 * after every data byte was sent once (sst_sendq_close_alone()
		 * makes it due while data is still unsent). */
		*seg = (struct sst_sendq_seg){.m = NULL,
			.off = q->tail,
			.len = 0,
			.flags = SST_FLAG_PUSH | SST_FLAG_CLOSE,
			.retransmit = q->zero_sent};
		q->zero_due = false;
		q->zero_sent = true;
		q->stats.segs++;
		if (seg->retransmit)
			q->stats.segs_retx++;
		return 1;
	}
	return 0;
}

int
sst_sendq_next_segment(struct sst_sendq *q, uint32_t max_len, struct sst_sendq_seg *seg)
{
	return next_seg(q, max_len, seg, NULL);
}

int
sst_sendq_next_segment_copy(
	struct sst_sendq *q, uint32_t max_len, struct sst_sendq_seg *seg, void *buf)
{
	struct seg_dst d = {.m = NULL, .p = buf, .room = UINT32_MAX};

	return next_seg(q, max_len, seg, &d);
}

int
sst_sendq_next_segment_chain(struct sst_sendq *q, uint32_t max_len, struct sst_sendq_seg *seg,
	struct rte_mbuf *dst, uint32_t dst_off)
{
	struct seg_dst d = {.m = dst};

	while (dst_off >= d.m->data_len && d.m->next != NULL) {
		dst_off -= d.m->data_len;
		d.m = d.m->next;
	}
	d.p = rte_pktmbuf_mtod_offset(d.m, uint8_t *, dst_off);
	d.room = d.m->data_len - dst_off;
	return next_seg(q, max_len, seg, &d);
}

/* Check that [off, off + len) lies within the bytes sent. */
static inline bool
range_sent(const struct sst_sendq *q, uint64_t off, uint32_t len)
{
	return off <= q->snd_nxt && len <= q->snd_nxt - off;
}

/* Is (off, 0) the zero-length Close that was sent? */
static inline bool
is_zero_close(const struct sst_sendq *q, uint64_t off)
{
	return q->close == SENDQ_CLOSED && q->close_zero && q->zero_sent && off == q->tail;
}

int
sst_sendq_on_acked(struct sst_sendq *q, uint64_t off, uint32_t len)
{
	uint64_t a, b = off + len;
	int rc;

	if (!range_sent(q, off, len))
		return -EINVAL;
	if (len == 0) {
		if (is_zero_close(q, off)) {
			q->close = SENDQ_CLOSE_ACKED;
			q->zero_due = false;
		}
		return 0;
	}
	q->stats.bytes_dup_ack += acked_in(q, off, b);
	if (b > q->una) {
		bool in_order = off <= q->una;

		a = RTE_MAX(off, q->una);
		if (in_order) {
			advance_una(q, b);
		} else {
			rc = rg_paint(q, a, b, SENDQ_ACKED);
			if (rc < 0) {
				q->stats.bytes_dup_ack -= acked_in(q, off, b);
				q->stats.nospace++;
				return rc;
			}
		}
		release_acked(q, a, b, in_order);
	}
	/* Every segment ending at the final offset carried Close (not zero mode). */
	if (q->close == SENDQ_CLOSED && !q->close_zero && b == q->tail)
		q->close = SENDQ_CLOSE_ACKED;
	return 0;
}

int
sst_sendq_on_lost(struct sst_sendq *q, uint64_t off, uint32_t len)
{
	uint64_t a, b = off + len, x;
	uint32_t gaps = 0, i;

	if (!range_sent(q, off, len))
		return -EINVAL;
	if (len == 0) {
		if (is_zero_close(q, off))
			q->zero_due = true;
		return 0;
	}
	if (b <= q->una)
		return 0;
	a = RTE_MAX(off, q->una);
	/* Only bytes in flight become lost: count those runs first. */
	for (x = a, i = rg_find(q, a); x < b;) {
		if (i < q->nranges && q->ranges[i].start <= x) {
			x = q->ranges[i++].end;
		} else {
			x = i < q->nranges ? RTE_MIN(b, q->ranges[i].start) : b;
			gaps++;
		}
	}
	if (q->nranges + gaps > q->range_cap && grow_ranges(q, q->nranges + gaps) < 0) {
		q->stats.nospace++;
		return -ENOSPC;
	}
	for (x = a; x < b;) {
		i = rg_find(q, x);
		if (i < q->nranges && q->ranges[i].start <= x) {
			x = q->ranges[i].end;
		} else {
			uint64_t ge = i < q->nranges ? RTE_MIN(b, q->ranges[i].start) : b;

			/* Cannot fail: each run adds at most one range, counted above. */
			(void)rg_paint(q, x, ge, SENDQ_LOST);
			x = ge;
		}
	}
	return 0;
}

uint64_t
sst_sendq_in_flight(const struct sst_sendq *q)
{
	return q->snd_nxt - q->una - q->bytes_ooo - q->bytes_lost;
}

bool
sst_sendq_pending(const struct sst_sendq *q)
{
	return q->bytes_lost > 0 || q->snd_nxt < q->tail || q->zero_due;
}

bool
sst_sendq_finished(const struct sst_sendq *q)
{
	return q->close == SENDQ_CLOSE_ACKED && q->una == q->tail;
}
