/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Priority scheduler of a channel's streams: strict priority between
 * levels, deficit round robin by bytes within a level. See stream_sched.h
 * for the design and the costs.
 */
#include "sst_rand.h"
#include "stream_sched.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

/* Seed of the treap heap keys; any non-zero value. */
#define SCHED_RNG_SEED 0x9e3779b9u

/*
 * Next treap heap key (xorshift32). The keys need only be independent of
 * the priorities the application picks, not unpredictable.
 */
static uint32_t
sched_rng(struct sst_sched *s)
{
	return sst_xorshift32(&s->rng);
}

/* The owner of level @p prio, or NULL if no entry of that priority is ready. */
static struct sst_sched_entry *
level_find(const struct sst_sched *s, int32_t prio)
{
	struct sst_sched_entry *n = s->root;

	while (n != NULL && n->prio != prio)
		n = prio < n->prio ? n->left : n->right;
	return n;
}

/* Make @p parent's link to @p old (the root's if parent is NULL) point to @p new. */
static void
replace_child(struct sst_sched *s, struct sst_sched_entry *parent, struct sst_sched_entry *old,
	struct sst_sched_entry *new)
{
	if (parent == NULL)
		s->root = new;
	else if (parent->left == old)
		parent->left = new;
	else
		parent->right = new;
}

/* Rotate @p x, which has a parent, one step up the treap. */
static void
rotate_up(struct sst_sched *s, struct sst_sched_entry *x)
{
	struct sst_sched_entry *p = x->parent;
	struct sst_sched_entry *g = p->parent;

	if (p->left == x) {
		p->left = x->right;
		if (x->right != NULL)
			x->right->parent = p;
		x->right = p;
	} else {
		p->right = x->left;
		if (x->left != NULL)
			x->left->parent = p;
		x->left = p;
	}
	p->parent = x;
	x->parent = g;
	replace_child(s, g, p, x);
}

/* The owner of the highest level, or NULL if there is no level. */
static struct sst_sched_entry *
level_max(const struct sst_sched *s)
{
	struct sst_sched_entry *n = s->root;

	if (n == NULL)
		return NULL;
	while (n->right != NULL)
		n = n->right;
	return n;
}

/*
 * Start the turn of @p e: one quantum of credit. Entries wait with credit
 * in [1 - quantum, 0], so every turn starts with positive credit.
 */
static void
turn_start(struct sst_sched *s, struct sst_sched_entry *e)
{
	e->deficit += (int32_t)s->quantum;
	s->stats.turns++;
}

/*
 * Create the level of @p e, which is not ready and whose priority has no
 * ready entry: @p e becomes its owner, only entry and cursor.
 */
static void
level_insert(struct sst_sched *s, struct sst_sched_entry *e)
{
	struct sst_sched_entry *p = NULL;
	struct sst_sched_entry **link = &s->root;

	while (*link != NULL) {
		p = *link;
		link = e->prio < p->prio ? &p->left : &p->right;
	}
	e->owner = true;
	e->parent = p;
	e->left = NULL;
	e->right = NULL;
	e->heap = sched_rng(s);
	e->cursor = e;
	e->next = e;
	e->prev = e;
	*link = e;
	while (e->parent != NULL && e->parent->heap < e->heap)
		rotate_up(s, e);
	if (s->top == NULL || e->prio > s->top->prio)
		s->top = e;
	s->stats.levels++;
}

/* Delete the level owned by @p o, its last entry. */
static void
level_delete(struct sst_sched *s, struct sst_sched_entry *o)
{
	/* Rotate it down to a leaf, keeping heap order, then cut it off. */
	while (o->left != NULL || o->right != NULL) {
		struct sst_sched_entry *c;

		if (o->right == NULL || (o->left != NULL && o->left->heap > o->right->heap))
			c = o->left;
		else
			c = o->right;
		rotate_up(s, c);
	}
	replace_child(s, o->parent, o, NULL);
	o->owner = false;
	o->parent = NULL;
	o->cursor = NULL;
	if (s->top == o)
		s->top = level_max(s);
	s->stats.levels--;
}

/* Move the level node from owner @p o to @p n, another entry of the level. */
static void
level_handoff(struct sst_sched *s, struct sst_sched_entry *o, struct sst_sched_entry *n)
{
	n->parent = o->parent;
	n->left = o->left;
	n->right = o->right;
	n->heap = o->heap;
	n->cursor = o->cursor;
	n->owner = true;
	replace_child(s, o->parent, o, n);
	if (n->left != NULL)
		n->left->parent = n;
	if (n->right != NULL)
		n->right->parent = n;
	if (s->top == o)
		s->top = n;
	o->owner = false;
	o->parent = NULL;
	o->left = NULL;
	o->right = NULL;
	o->cursor = NULL;
}

/* The owner of the level of ready entry @p e. */
static struct sst_sched_entry *
level_of(const struct sst_sched *s, struct sst_sched_entry *e)
{
	if (e->owner)
		return e;
	if (s->top != NULL && s->top->prio == e->prio)
		return s->top;
	return level_find(s, e->prio);
}

/*
 * Take ready entry @p e out of its level; the turn passes on if it was its
 * turn, and its credit is dropped (debt kept).
 */
static void
sched_detach(struct sst_sched_entry *e)
{
	struct sst_sched *s = e->sched;
	struct sst_sched_entry *o = level_of(s, e);
	struct sst_sched_entry *n = e->next;

	if (n == e) {
		level_delete(s, e);
	} else {
		if (o->cursor == e) {
			o->cursor = n;
			turn_start(s, n);
		}
		e->prev->next = n;
		n->prev = e->prev;
		if (o == e)
			level_handoff(s, e, n);
	}
	e->next = NULL;
	e->prev = NULL;
	if (e->deficit > 0)
		e->deficit = 0;
	e->sched = NULL;
	s->stats.ready--;
}

int
sst_sched_init(struct sst_sched *s, uint32_t quantum)
{
	if (s == NULL || quantum == 0 || quantum > SST_SCHED_QUANTUM_MAX)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->quantum = quantum;
	s->rng = SCHED_RNG_SEED;
	return 0;
}

void
sst_sched_fini(struct sst_sched *s)
{
	if (s == NULL)
		return;
	s->root = NULL;
	s->top = NULL;
	memset(&s->stats, 0, sizeof(s->stats));
}

void
sst_sched_entry_init(struct sst_sched_entry *e, int32_t prio)
{
	memset(e, 0, sizeof(*e));
	e->prio = prio;
}

int
sst_sched_ready(struct sst_sched *s, struct sst_sched_entry *e)
{
	struct sst_sched_entry *o;

	if (s == NULL || e == NULL)
		return -EINVAL;
	if (e->sched == s)
		return 0;
	if (e->sched != NULL)
		return -EBUSY;
	if (e->deficit > 0)
		e->deficit = 0;
	e->sched = s;
	s->stats.ready++;
	o = level_find(s, e->prio);
	if (o == NULL) {
		level_insert(s, e);
		turn_start(s, e);
		return 0;
	}
	/* Join the end of the round: just before the entry whose turn it is. */
	e->owner = false;
	e->next = o->cursor;
	e->prev = o->cursor->prev;
	e->prev->next = e;
	o->cursor->prev = e;
	return 0;
}

void
sst_sched_unready(struct sst_sched_entry *e)
{
	if (e != NULL && e->sched != NULL)
		sched_detach(e);
}

void
sst_sched_set_priority(struct sst_sched_entry *e, int32_t prio)
{
	struct sst_sched *s;

	if (e == NULL || e->prio == prio)
		return;
	s = e->sched;
	if (s == NULL) {
		e->prio = prio;
		return;
	}
	sched_detach(e);
	e->prio = prio;
	sst_sched_ready(s, e);
}

void
sst_sched_served(struct sst_sched *s, struct sst_sched_entry *e, uint32_t bytes)
{
	struct sst_sched_entry *o;
	int64_t d;

	if (s == NULL || e == NULL)
		return;
	s->stats.served_bytes += bytes;
	/* Debt is capped at one quantum (less one byte): see stream_sched.h. */
	d = (int64_t)e->deficit - bytes;
	if (d < 1 - (int64_t)s->quantum)
		d = 1 - (int64_t)s->quantum;
	e->deficit = (int32_t)d;
	if (d > 0 || e->sched != s)
		return;
	o = level_of(s, e);
	if (o->cursor != e)
		return;
	/* Its credit is spent: the next entry of the level starts its turn. */
	o->cursor = e->next;
	turn_start(s, e->next);
}

void
sst_sched_remove(struct sst_sched_entry *e)
{
	if (e == NULL)
		return;
	if (e->sched != NULL)
		sched_detach(e);
	e->deficit = 0;
}
