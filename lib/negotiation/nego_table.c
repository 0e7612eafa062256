/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The negotiation host's bounded table of negotiations (nego_internal.h;
 * its layout is described in nego_host.c): one preallocated array of
 * entries, indexed by an open-addressing hash table under SipHash with a
 * key derived from the host secret, with backward-shift deletion; a
 * responder entry's second key; and the lists of unheard and half-open
 * responder entries in creation order.
 */
#include <string.h>

#include <sodium.h>

#include "nego_internal.h"

uint64_t
nego_hash(const struct sst_nego_host *h, enum nego_kind kind, const struct sst_nego_addr *peer,
	uint32_t id)
{
	uint8_t in[2 + SST_NEGO_ADDR_MAX + 4];
	uint8_t out[crypto_shorthash_BYTES];
	size_t n = 0;
	uint64_t v = 0;

	in[n++] = (uint8_t)kind;
	in[n++] = peer->len;
	memcpy(in + n, peer->bytes, peer->len);
	n += peer->len;
	for (int s = 24; s >= 0; s -= 8)
		in[n++] = (uint8_t)(id >> s);
	crypto_shorthash(out, in, n, h->hash_key);
	for (size_t i = 0; i < sizeof(out); i++)
		v = v << 8 | out[i];
	return v;
}

static bool
nego_match(const struct nego_entry *e, uint64_t hash, enum nego_kind kind,
	const struct sst_nego_addr *peer, uint32_t id)
{
	return e->hash == hash && e->kind == kind && e->id == id &&
	       sst_nego_addr_equal(&e->peer, peer);
}

struct nego_entry *
nego_lookup(
	struct sst_nego_host *h, enum nego_kind kind, const struct sst_nego_addr *peer, uint32_t id)
{
	uint64_t hash = nego_hash(h, kind, peer, id);

	/* The index is at most half full, so every probe sequence ends at an
	 * empty slot. */
	for (uint32_t s = (uint32_t)hash & h->index_mask;; s = (s + 1) & h->index_mask) {
		uint32_t v = h->index[s];
		struct nego_entry *e;

		if (v == 0)
			return NULL;
		e = &h->entries[(v & ~NEGO_SLOT_ALT) - 1];
		if ((v & NEGO_SLOT_ALT) != 0) {
			if (kind == e->alt_kind && e->hash2 == hash && e->id2 == id &&
				sst_nego_addr_equal(&e->peer, peer))
				return e;
		} else if (nego_match(e, hash, kind, peer, id)) {
			return e;
		}
	}
}

/* Put slot value v into the first free slot of hash's probe run. */
static void
index_put(struct sst_nego_host *h, uint64_t hash, uint32_t v)
{
	uint32_t s;

	for (s = (uint32_t)hash & h->index_mask; h->index[s] != 0; s = (s + 1) & h->index_mask)
		;
	h->index[s] = v;
}

/* The hash a slot value was placed under. */
static uint64_t
slot_hash(const struct sst_nego_host *h, uint32_t v)
{
	const struct nego_entry *e = &h->entries[(v & ~NEGO_SLOT_ALT) - 1];

	return (v & NEGO_SLOT_ALT) != 0 ? e->hash2 : e->hash;
}

/* Remove slot value v (placed under hash) from the index. */
static void
index_del(struct sst_nego_host *h, uint64_t hash, uint32_t v)
{
	uint32_t s = (uint32_t)hash & h->index_mask;

	while (h->index[s] != v)
		s = (s + 1) & h->index_mask;
	/* Backward-shift deletion: move later members of the probe run into
	 * the hole when their home slot does not lie after it (cyclically). */
	for (uint32_t j = (s + 1) & h->index_mask; h->index[j] != 0; j = (j + 1) & h->index_mask) {
		uint32_t home = (uint32_t)slot_hash(h, h->index[j]) & h->index_mask;

		if (((j - home) & h->index_mask) >= ((j - s) & h->index_mask)) {
			h->index[s] = h->index[j];
			s = j;
		}
	}
	h->index[s] = 0;
}

void
nego_index_alt(struct sst_nego_host *h, struct nego_entry *e, enum nego_kind kind, uint32_t id2)
{
	uint32_t i = (uint32_t)(e - h->entries);

	e->hash2 = nego_hash(h, kind, &e->peer, id2);
	e->id2 = id2;
	e->alt_kind = (uint8_t)kind;
	index_put(h, e->hash2, (i + 1) | NEGO_SLOT_ALT);
}

void
nego_unheard_link(struct sst_nego_host *h, struct nego_entry *e)
{
	e->phase = NEGO_PH_UNHEARD;
	nego_index_alt(h, e, NEGO_KIND_CHAN, e->local_channel);
	h->n_unheard++;
	nego_load_update(h);
}

void
nego_unheard_unlink(struct sst_nego_host *h, struct nego_entry *e)
{
	uint32_t i = (uint32_t)(e - h->entries);

	if (e->kind != NEGO_KIND_RESP || e->phase != NEGO_PH_UNHEARD)
		return;
	index_del(h, e->hash2, (i + 1) | NEGO_SLOT_ALT);
	e->alt_kind = 0;
	e->phase = NEGO_PH_NONE;
	h->n_unheard--;
	nego_load_update(h);
}

void
nego_half_link(struct sst_nego_host *h, struct nego_entry *e)
{
	uint32_t i = (uint32_t)(e - h->entries);

	e->phase = NEGO_PH_HALF;
	e->hprev = h->half_tail;
	e->hnext = NEGO_NONE;
	if (h->half_tail != NEGO_NONE)
		h->entries[h->half_tail].hnext = i;
	else
		h->half_head = i;
	h->half_tail = i;
	h->n_half++;
	nego_load_update(h);
}

void
nego_half_unlink(struct sst_nego_host *h, struct nego_entry *e)
{
	if (e->kind != NEGO_KIND_RESP || e->phase != NEGO_PH_HALF)
		return;
	if (e->hprev != NEGO_NONE)
		h->entries[e->hprev].hnext = e->hnext;
	else
		h->half_head = e->hnext;
	if (e->hnext != NEGO_NONE)
		h->entries[e->hnext].hprev = e->hprev;
	else
		h->half_tail = e->hprev;
	e->hprev = e->hnext = NEGO_NONE;
	e->phase = NEGO_PH_NONE;
	h->n_half--;
	nego_load_update(h);
}

struct nego_entry *
nego_insert(
	struct sst_nego_host *h, enum nego_kind kind, const struct sst_nego_addr *peer, uint32_t id)
{
	uint32_t i = h->free_head;
	struct nego_entry *e;

	if (i == NEGO_NONE)
		return NULL;
	e = &h->entries[i];
	h->free_head = e->next_free;
	memset(e, 0, sizeof(*e));
	e->hash = nego_hash(h, kind, peer, id);
	e->kind = (uint8_t)kind;
	e->peer = *peer;
	e->id = id;
	e->next_free = NEGO_NONE;
	e->hprev = e->hnext = NEGO_NONE;
	index_put(h, e->hash, i + 1);
	if (kind == NEGO_KIND_INIT) {
		e->pos = h->n_init;
		h->attempts[h->n_init++] = i;
	} else {
		h->n_resp++;
	}
	return e;
}

void
nego_remove(struct sst_nego_host *h, struct nego_entry *e)
{
	uint32_t i = (uint32_t)(e - h->entries);

	index_del(h, e->hash, i + 1);
	nego_unheard_unlink(h, e);
	if (e->alt_kind != 0)
		index_del(h, e->hash2, (i + 1) | NEGO_SLOT_ALT);
	nego_half_unlink(h, e);
	if (e->kind == NEGO_KIND_INIT && e->phase == NEGO_PH_I2)
		h->n_confirm--;
	if (h->sec != NULL)
		sodium_memzero(&h->sec[i], sizeof(h->sec[i]));
	if (e->kind == NEGO_KIND_INIT) {
		uint32_t last = h->attempts[--h->n_init];

		h->attempts[e->pos] = last;
		h->entries[last].pos = e->pos;
	} else {
		h->n_resp--;
	}
	sodium_memzero(e, sizeof(*e));
	e->next_free = h->free_head;
	h->free_head = i;
}
