/* SPDX-License-Identifier: BSD-3-Clause */
/* The worker's hash tables (worker_table.h). */
#include <errno.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "worker_table.h"

enum { TABLE_MIN = 16 };

static struct worker_table_slot *
slots_alloc(const char *name, uint32_t n)
{
	return rte_zmalloc(name, (size_t)n * sizeof(struct worker_table_slot), RTE_CACHE_LINE_SIZE);
}

static void
place(struct worker_table_slot *slots, uint32_t mask, uint64_t hash, void *obj)
{
	uint32_t i = (uint32_t)hash;

	while (slots[i & mask].obj != NULL)
		i++;
	slots[i & mask] = (struct worker_table_slot){.hash = hash, .obj = obj};
}

int
worker_table_init(struct worker_table *t, const char *name, uint32_t initial)
{
	uint32_t n = rte_align32pow2(RTE_MAX(initial, (uint32_t)TABLE_MIN));

	t->name = name;
	t->count = 0;
	t->slots = slots_alloc(name, n);
	if (t->slots == NULL)
		return -ENOMEM;
	t->mask = n - 1;
	return 0;
}

void
worker_table_fini(struct worker_table *t)
{
	rte_free(t->slots);
	t->slots = NULL;
	t->count = 0;
}

void
worker_table_free_all(struct worker_table *t)
{
	for (uint32_t i = 0; t->slots != NULL && i <= t->mask; i++)
		rte_free(t->slots[i].obj);
	worker_table_fini(t);
}

/* Double the slots: each object moves once, by its stored hash. */
static int
grow(struct worker_table *t)
{
	uint32_t n = (t->mask + 1) * 2;
	struct worker_table_slot *slots;

	if (n == 0)
		return -ENOMEM; /* 2^32 slots: as far as the 32-bit index goes */
	slots = slots_alloc(t->name, n);
	if (slots == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i <= t->mask; i++)
		if (t->slots[i].obj != NULL)
			place(slots, n - 1, t->slots[i].hash, t->slots[i].obj);
	rte_free(t->slots);
	t->slots = slots;
	t->mask = n - 1;
	return 0;
}

int
worker_table_add(struct worker_table *t, uint64_t hash, void *obj)
{
	/* Load stays at most 1/2: probes end at an empty slot soon. */
	if ((t->count + 1) * 2 > t->mask + 1) {
		int rc = grow(t);

		if (rc < 0)
			return rc;
	}
	place(t->slots, t->mask, hash, obj);
	t->count++;
	return 0;
}

int
worker_table_del(struct worker_table *t, uint64_t hash, const void *obj)
{
	uint32_t i = (uint32_t)hash;
	uint32_t hole;

	for (;; i++) {
		const struct worker_table_slot *s = &t->slots[i & t->mask];

		if (s->obj == NULL)
			return -ENOENT;
		if (s->obj == obj)
			break;
	}
	/* Backward shift: later members of the run move into the hole unless
	 * their home slot lies cyclically after it (they would become
	 * unreachable from home). */
	hole = i & t->mask;
	for (uint32_t j = (hole + 1) & t->mask; t->slots[j].obj != NULL; j = (j + 1) & t->mask) {
		uint32_t home = (uint32_t)t->slots[j].hash & t->mask;

		if (((j - home) & t->mask) >= ((j - hole) & t->mask)) {
			t->slots[hole] = t->slots[j];
			hole = j;
		}
	}
	t->slots[hole] = (struct worker_table_slot){0};
	t->count--;
	return 0;
}
