/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Datagram reassembly and fragmentation (paper 2.2, 4.3.5). See
 * stream_dgram.h for the layout, the bounds and the costs; this file keeps
 * these invariants, which the rest relies on:
 *  - every buffered fragment is in the seq hash exactly once and in exactly
 *    one group; a group's fragments have consecutive sequence numbers, one
 *    SID, Begin only on the head, End only on the tail, and never both
 *    (a complete group is delivered at once);
 *  - head->grp and tail->grp point to their group (interior fragments'
 *    grp is stale and never read);
 *  - buffered fragments at s and s + 1 in different groups: s has End and
 *    s + 1 has Begin;
 *  - the age list is ordered by creation (order, and so born, increasing);
 *  - frags_used, bytes_used and groups_used are the sums over the groups.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "stream_dgram.h"

enum {
	BEGIN = SST_FLAG_DGRAM_BEGIN,
	END = SST_FLAG_DGRAM_END,
	SID_BUCKETS_MAX = 1 << 16, /**< one per SID is enough */
};

static uint32_t
seq_buckets(uint32_t capacity)
{
	return rte_align32pow2(2 * capacity);
}

static uint32_t
sid_buckets(uint32_t capacity)
{
	return RTE_MIN(rte_align32pow2(capacity), (uint32_t)SID_BUCKETS_MAX);
}

size_t
sst_dgram_rx_size(uint32_t capacity)
{
	if (capacity < SST_DGRAM_CAP_MIN || capacity > SST_DGRAM_CAP_MAX)
		return 0;
	return sizeof(struct sst_dgram_rx) +
	       (size_t)capacity * (sizeof(struct dgram_frag) + sizeof(struct dgram_group)) +
	       (size_t)seq_buckets(capacity) * sizeof(struct dgram_frag *) +
	       (size_t)sid_buckets(capacity) * sizeof(struct dgram_group *);
}

/* Empty every table and put every fragment and group on the free lists. */
static void
state_init(struct sst_dgram_rx *rx)
{
	uint32_t i, cap = rx->conf.capacity;

	rx->bytes_used = 0;
	rx->frags_used = 0;
	rx->groups_used = 0;
	rx->oldest = NULL;
	rx->newest = NULL;
	rx->free_frags = NULL;
	rx->free_groups = NULL;
	for (i = cap; i-- > 0;) {
		rx->frag_mem[i] = (struct dgram_frag){.hnext = rx->free_frags};
		rx->free_frags = &rx->frag_mem[i];
		rx->group_mem[i] = (struct dgram_group){.newer = rx->free_groups};
		rx->free_groups = &rx->group_mem[i];
	}
	memset(rx->fbucket, 0, (size_t)(rx->fmask + 1) * sizeof(*rx->fbucket));
	memset(rx->sbucket, 0, (size_t)(rx->smask + 1) * sizeof(*rx->sbucket));
}

int
sst_dgram_rx_init(struct sst_dgram_rx *rx, const struct sst_dgram_rx_conf *conf)
{
	uint32_t cap;

	if (rx == NULL || conf == NULL || sst_dgram_rx_size(conf->capacity) == 0)
		return -EINVAL;
	if (conf->max_bytes == 0 || conf->max_frags == 0 || conf->max_dgram_bytes == 0 ||
		conf->timeout == 0 || conf->max_frags > conf->capacity ||
		conf->max_frags > SST_DGRAM_FRAGS_MAX || conf->max_dgram_bytes > conf->max_bytes)
		return -EINVAL;
	cap = conf->capacity;
	memset(rx, 0, sizeof(*rx));
	rx->conf = *conf;
	rx->seed = conf->seed;
	rx->fmask = seq_buckets(cap) - 1;
	rx->smask = sid_buckets(cap) - 1;
	rx->frag_mem = (struct dgram_frag *)(rx + 1);
	rx->group_mem = (struct dgram_group *)(rx->frag_mem + cap);
	rx->fbucket = (struct dgram_frag **)(rx->group_mem + cap);
	rx->sbucket = (struct dgram_group **)(rx->fbucket + rx->fmask + 1);
	state_init(rx);
	return 0;
}

void
sst_dgram_rx_fini(struct sst_dgram_rx *rx)
{
	uint32_t i;

	for (i = 0; i < rx->conf.capacity; i++) {
		if (rx->frag_mem[i].m != NULL) {
			rte_pktmbuf_free(rx->frag_mem[i].m);
			rx->stats.frags_dropped++;
		}
	}
	state_init(rx);
}

/* ---- hash tables ---- */

/*
 * Keyed mix (the seed, then the murmur3 finaliser): sequence numbers that
 * the peer picks without knowing the seed land in unpredictable buckets.
 */
static inline uint64_t
mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

static inline struct dgram_frag **
seq_bucket(const struct sst_dgram_rx *rx, uint64_t seq)
{
	return &rx->fbucket[mix64(seq ^ rx->seed) & rx->fmask];
}

static inline struct dgram_group **
sid_bucket(const struct sst_dgram_rx *rx, uint16_t sid)
{
	return &rx->sbucket[mix64(sid ^ (rx->seed >> 16)) & rx->smask];
}

/* The buffered fragment at seq, or NULL. */
static struct dgram_frag *
frag_find(const struct sst_dgram_rx *rx, uint64_t seq)
{
	struct dgram_frag *f;

	for (f = *seq_bucket(rx, seq); f != NULL; f = f->hnext)
		if (f->seq == seq)
			return f;
	return NULL;
}

/* ---- groups ---- */

/* Take a group from the free list and make it the newest. Precondition:
 * groups_used < capacity (groups never outnumber fragments). */
static struct dgram_group *
group_new(struct sst_dgram_rx *rx, struct dgram_frag *f, sst_time_t born)
{
	struct dgram_group *g = rx->free_groups, **b = sid_bucket(rx, f->sid);

	rx->free_groups = g->newer;
	*g = (struct dgram_group){
		.older = rx->newest,
		.head = f,
		.tail = f,
		.order = rx->next_order++,
		.born = born,
		.bytes = f->len,
		.frags = 1,
		.segs = f->m->nb_segs,
		.sid = f->sid,
	};
	if (rx->newest != NULL)
		rx->newest->newer = g;
	else
		rx->oldest = g;
	rx->newest = g;
	g->snext = *b;
	g->spprev = b;
	if (*b != NULL)
		(*b)->spprev = &g->snext;
	*b = g;
	f->grp = g;
	rx->groups_used++;
	return g;
}

/* Unlink g from the age list and the SID hash and free it (not its fragments). */
static void
group_put(struct sst_dgram_rx *rx, struct dgram_group *g)
{
	if (g->older != NULL)
		g->older->newer = g->newer;
	else
		rx->oldest = g->newer;
	if (g->newer != NULL)
		g->newer->older = g->older;
	else
		rx->newest = g->older;
	*g->spprev = g->snext;
	if (g->snext != NULL)
		g->snext->spprev = g->spprev;
	*g = (struct dgram_group){.newer = rx->free_groups};
	rx->free_groups = g;
	rx->groups_used--;
}

/* Remove fragment f from the seq hash and return it to the free list; its
 * mbuf has been handed out or freed by the caller. */
static void
frag_put(struct sst_dgram_rx *rx, struct dgram_frag *f)
{
	*f->hpprev = f->hnext;
	if (f->hnext != NULL)
		f->hnext->hpprev = f->hpprev;
	rx->frags_used--;
	rx->bytes_used -= f->len;
	*f = (struct dgram_frag){.hnext = rx->free_frags};
	rx->free_frags = f;
}

/* Free group g with every fragment and mbuf it holds. */
static void
group_drop(struct sst_dgram_rx *rx, struct dgram_group *g)
{
	struct dgram_frag *f = g->head;

	while (f != NULL) {
		struct dgram_frag *next = f->next;

		rte_pktmbuf_free(f->m);
		rx->stats.frags_dropped++;
		frag_put(rx, f);
		f = next;
	}
	group_put(rx, g);
}

/*
 * Hand out complete group g (Begin on the head, End on the tail) as one
 * chain: each fragment's chain is linked behind the previous one's last
 * segment, as rte_pktmbuf_chain() does, but without walking the growing
 * chain each time (that would be quadratic in fragments). The segment
 * count was bounded when the group grew, so this cannot fail.
 */
static void
group_deliver(struct sst_dgram_rx *rx, struct dgram_group *g, struct sst_dgram *out)
{
	struct dgram_frag *f = g->head, *next;
	struct rte_mbuf *head = f->m, *last = rte_pktmbuf_lastseg(head);

	*out = (struct sst_dgram){
		.m = head, .seq = f->seq, .len = g->bytes, .frags = g->frags, .sid = g->sid};
	next = f->next;
	frag_put(rx, f);
	while ((f = next) != NULL) {
		struct rte_mbuf *m = f->m;

		last->next = m;
		head->nb_segs = (uint16_t)(head->nb_segs + m->nb_segs);
		head->pkt_len += m->pkt_len;
		m->pkt_len = m->data_len;
		last = rte_pktmbuf_lastseg(m);
		next = f->next;
		frag_put(rx, f);
	}
	rx->stats.frags_delivered += g->frags;
	rx->stats.datagrams++;
	group_put(rx, g);
}

/* The oldest group other than a and b (either may be NULL), or NULL. */
static struct dgram_group *
oldest_except(
	const struct sst_dgram_rx *rx, const struct dgram_group *a, const struct dgram_group *b)
{
	struct dgram_group *g = rx->oldest;

	while (g != NULL && (g == a || g == b))
		g = g->newer;
	return g;
}

/* May fragment a (at s) and fragment b (at s + 1) be parts of one datagram? */
static inline bool
continues(uint16_t a_sid, uint8_t a_flags, uint16_t b_sid, uint8_t b_flags)
{
	return a_sid == b_sid && (a_flags & END) == 0 && (b_flags & BEGIN) == 0;
}

/*
 * Drop the fragment being inserted (mbuf m) together with the groups it
 * would have joined (lg, rg, either may be NULL).
 */
static void
drop_new(
	struct sst_dgram_rx *rx, struct rte_mbuf *m, struct dgram_group *lg, struct dgram_group *rg)
{
	if (lg != NULL)
		group_drop(rx, lg);
	if (rg != NULL)
		group_drop(rx, rg);
	rte_pktmbuf_free(m);
	rx->stats.frags_dropped++;
}

int
sst_dgram_rx_insert(struct sst_dgram_rx *rx, uint16_t sid, uint64_t seq, uint32_t flags,
	struct rte_mbuf *m, sst_time_t now, struct sst_dgram *out)
{
	struct dgram_frag *l = NULL, *r = NULL, *f, **b;
	struct dgram_group *lg = NULL, *rg = NULL, *g;
	uint8_t fl = (uint8_t)flags;
	uint32_t len, frags, segs;
	uint64_t bytes;
	bool left_ok, right_ok, dead;

	if (m == NULL)
		return -EINVAL;
	rx->stats.frags++;
	if ((flags & ~(uint32_t)SST_FLAGS_DGRAM_ALL) != 0) {
		rx->stats.invalid++;
		drop_new(rx, m, NULL, NULL);
		return -EINVAL;
	}
	len = m->pkt_len;
	if (len > rx->conf.max_dgram_bytes) {
		rx->stats.oversize++;
		drop_new(rx, m, NULL, NULL);
		return -EMSGSIZE;
	}
	if (frag_find(rx, seq) != NULL) {
		rx->stats.duplicates++;
		drop_new(rx, m, NULL, NULL);
		return SST_DGRAM_DUPLICATE;
	}
	if (now < rx->last_now)
		now = rx->last_now;
	rx->last_now = now;

	/* The datagram's neighbours can only be at seq - 1 and seq + 1, as
	 * the tail and the head of the groups there (paper 4.3.5: fragments
	 * of one datagram have consecutive sequence numbers). */
	if (seq > 0)
		l = frag_find(rx, seq - 1);
	if (seq < UINT64_MAX)
		r = frag_find(rx, seq + 1);
	left_ok = l != NULL && continues(l->sid, l->flags, sid, fl);
	right_ok = r != NULL && continues(sid, fl, r->sid, r->flags);
	/* This fragment is dead if it needs a neighbour that cannot be it, and
	 * a neighbour is dead if it needed seq: in both cases the sequence
	 * number the datagram waits for holds a fragment of something else. */
	dead = (l != NULL && !left_ok && (fl & BEGIN) == 0) ||
	       (r != NULL && !right_ok && (fl & END) == 0);
	if (l != NULL && !left_ok && (l->flags & END) == 0) {
		rx->stats.inconsistent++;
		group_drop(rx, l->grp);
	}
	if (r != NULL && !right_ok && (r->flags & BEGIN) == 0) {
		rx->stats.inconsistent++;
		group_drop(rx, r->grp);
	}
	lg = left_ok ? l->grp : NULL;
	rg = right_ok ? r->grp : NULL;
	if (dead) {
		rx->stats.inconsistent++;
		drop_new(rx, m, lg, rg);
		return -EPROTO;
	}
	if ((fl & (BEGIN | END)) == (BEGIN | END)) {
		/* A whole datagram in one packet: never buffered. */
		*out = (struct sst_dgram){.m = m, .seq = seq, .len = len, .frags = 1, .sid = sid};
		rx->stats.frags_delivered++;
		rx->stats.datagrams++;
		rx->stats.single++;
		return SST_DGRAM_COMPLETE;
	}

	frags = 1 + (lg ? lg->frags : 0) + (rg ? rg->frags : 0);
	bytes = (uint64_t)len + (lg ? lg->bytes : 0) + (rg ? rg->bytes : 0);
	segs = (uint32_t)m->nb_segs + (lg ? lg->segs : 0) + (rg ? rg->segs : 0);
	if (frags > rx->conf.max_frags || bytes > rx->conf.max_dgram_bytes ||
		segs > RTE_MBUF_MAX_NB_SEGS) {
		/* The datagram can never be delivered: drop what we have. */
		rx->stats.oversize++;
		drop_new(rx, m, lg, rg);
		return -EMSGSIZE;
	}
	/* Make room by evicting the oldest partial datagrams: they are the
	 * likeliest to have lost a fragment that will never be resent. The
	 * limits checked at init guarantee that the groups this fragment
	 * joins (at most max_frags - 1 fragments, max_dgram_bytes - len
	 * bytes) leave room once every other group is gone. */
	while (rx->frags_used >= rx->conf.capacity || rx->bytes_used + len > rx->conf.max_bytes) {
		struct dgram_group *victim = oldest_except(rx, lg, rg);

		if (victim == NULL) {
			/* Cannot happen (see above); refuse rather than overrun. */
			rx->stats.oversize++;
			drop_new(rx, m, lg, rg);
			return -EMSGSIZE;
		}
		rx->stats.evicted++;
		group_drop(rx, victim);
	}

	f = rx->free_frags;
	rx->free_frags = f->hnext;
	b = seq_bucket(rx, seq);
	*f = (struct dgram_frag){
		.hnext = *b, .hpprev = b, .m = m, .seq = seq, .len = len, .sid = sid, .flags = fl};
	if (*b != NULL)
		(*b)->hpprev = &f->hnext;
	*b = f;
	rx->frags_used++;
	rx->bytes_used += len;

	if (lg != NULL && rg != NULL) {
		/* f joins two groups: the older one survives (age order). */
		g = lg->order < rg->order ? lg : rg;
		lg->tail->next = f;
		f->next = rg->head;
		g->head = lg->head;
		g->tail = rg->tail;
		group_put(rx, g == lg ? rg : lg);
		g->head->grp = g;
		g->tail->grp = g;
		f->grp = g;
	} else if (lg != NULL) {
		g = lg;
		g->tail->next = f;
		g->tail = f;
		f->grp = g;
	} else if (rg != NULL) {
		g = rg;
		f->next = g->head;
		g->head = f;
		f->grp = g;
	} else {
		g = group_new(rx, f, now);
	}
	if (lg != NULL || rg != NULL) {
		g->frags = frags;
		g->bytes = (uint32_t)bytes;
		g->segs = segs;
	}
	if ((g->head->flags & BEGIN) != 0 && (g->tail->flags & END) != 0) {
		group_deliver(rx, g, out);
		return SST_DGRAM_COMPLETE;
	}
	return SST_DGRAM_BUFFERED;
}

uint32_t
sst_dgram_rx_expire(struct sst_dgram_rx *rx, sst_time_t now)
{
	uint32_t n = 0;

	while (rx->oldest != NULL && sst_time_add(rx->oldest->born, rx->conf.timeout) <= now) {
		group_drop(rx, rx->oldest);
		rx->stats.timeouts++;
		n++;
	}
	return n;
}

sst_time_t
sst_dgram_rx_next_expiry(const struct sst_dgram_rx *rx)
{
	if (rx->oldest == NULL)
		return SST_TIME_NEVER;
	return sst_time_add(rx->oldest->born, rx->conf.timeout);
}

uint32_t
sst_dgram_rx_reset_sid(struct sst_dgram_rx *rx, uint16_t sid)
{
	struct dgram_group *g = *sid_bucket(rx, sid), *next;
	uint32_t n = 0;

	for (; g != NULL; g = next) {
		next = g->snext;
		if (g->sid == sid) {
			group_drop(rx, g);
			n++;
		}
	}
	rx->stats.resets += n;
	return n;
}

/* ---- send side ---- */

/* Where the fragments' bytes come from: the payload chain, read once
 * from front to back. */
struct split_src {
	const struct rte_mbuf *seg;
	uint32_t off;
};

/* Copy the next len bytes of src to dst. */
static void
src_read(struct split_src *src, uint8_t *dst, uint32_t len)
{
	while (len > 0) {
		uint32_t take;

		while (src->off == src->seg->data_len) {
			src->seg = src->seg->next;
			src->off = 0;
		}
		take = RTE_MIN(len, (uint32_t)src->seg->data_len - src->off);
		memcpy(dst, rte_pktmbuf_mtod_offset(src->seg, const uint8_t *, src->off), take);
		src->off += take;
		dst += take;
		len -= take;
	}
}

/*
 * One fragment: the next len bytes of src copied into direct mbufs from
 * pool, the first with the pool's headroom (the headers are prepended in
 * place), every one leaving tail_reserve bytes of tailroom. NULL when the
 * pool runs dry or its mbufs have no room.
 */
static struct rte_mbuf *
fragment_copy(struct split_src *src, uint32_t len, struct rte_mempool *pool, uint16_t tail_reserve)
{
	struct rte_mbuf *head = NULL, *last = NULL;

	do {
		struct rte_mbuf *d = rte_pktmbuf_alloc(pool);
		uint32_t take;

		if (d == NULL)
			goto fail;
		if (head == NULL) {
			head = d;
		} else {
			d->data_off = 0;
			last->next = d;
			head->nb_segs++;
		}
		last = d;
		if (rte_pktmbuf_tailroom(d) <= tail_reserve)
			goto fail;
		take = RTE_MIN(len, (uint32_t)(rte_pktmbuf_tailroom(d) - tail_reserve));
		src_read(src, rte_pktmbuf_mtod(d, uint8_t *), take);
		d->data_len = (uint16_t)take;
		head->pkt_len += take;
		len -= take;
	} while (len > 0);
	return head;
fail:
	rte_pktmbuf_free(head);
	return NULL;
}

int
sst_dgram_split(struct rte_mbuf *m, uint32_t max_payload, struct rte_mempool *pool,
	uint16_t tail_reserve, struct sst_dgram_frag *frags, uint32_t max_frags)
{
	struct split_src src = {.seg = m, .off = 0};
	uint32_t total, n, i;

	if (m == NULL || pool == NULL || frags == NULL || max_payload == 0)
		return -EINVAL;
	total = m->pkt_len;
	n = total <= max_payload ? 1
				 : (uint32_t)(((uint64_t)total + max_payload - 1) / max_payload);
	if (n > max_frags)
		return -ENOSPC;
	if (n == 1) {
		frags[0] = (struct sst_dgram_frag){.m = m, .len = total, .flags = BEGIN | END};
		return 1;
	}
	/* Fragment i covers [i * max_payload, ...). */
	for (i = 0; i < n; i++) {
		uint32_t len = RTE_MIN(max_payload, total - i * max_payload);
		struct rte_mbuf *f = fragment_copy(&src, len, pool, tail_reserve);

		if (f == NULL)
			goto nomem;
		frags[i] = (struct sst_dgram_frag){.m = f,
			.len = len,
			.flags = (uint8_t)((i == 0 ? BEGIN : 0) | (i + 1 == n ? END : 0))};
	}
	rte_pktmbuf_free(m);
	return (int)n;
nomem:
	while (i-- > 0) {
		rte_pktmbuf_free(frags[i].m);
		frags[i].m = NULL;
	}
	return -ENOMEM;
}
