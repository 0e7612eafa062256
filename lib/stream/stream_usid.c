/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A peer's streams by USID (counter, half-channel ID): an open-addressing
 * index that survives the channels, and the table of half-channel IDs the
 * USIDs name, each entry reference-counted by the channels that have it and
 * the streams whose USID names it.
 *
 * The index starts small (STREAM_USIDS_INIT slots) and doubles when half
 * full, up to twice peer_usids: a server meets many peers that open one
 * stream each, and an index sized for the most streams a peer may have
 * cost 1 MiB per peer at the defaults. A growth that cannot allocate
 * refuses the stream as a full index does (-ENOSPC).
 */
#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

#include "stream_usid.h"

static uint32_t
usid_hash(const struct sst_stream_peer *p, uint64_t counter, uint8_t hcid)
{
	uint64_t x = (counter ^ ((uint64_t)hcid << 56)) * UINT64_C(0x9e3779b97f4a7c15);

	return (uint32_t)(x >> 32) & p->usid_mask;
}

/* Double the index: every stream moves to its slot under the new mask. */
static int
usid_grow(struct sst_stream_peer *p)
{
	struct sst_stream **old = p->usids;
	uint32_t old_mask = p->usid_mask, slots = 2 * (old_mask + 1);
	const struct sst_mem_ops *mem = p->host->p.mem;
	struct sst_stream **usids = mem->zalloc(mem->ctx, slots * sizeof(*usids));

	if (usids == NULL)
		return -ENOSPC;
	p->usids = usids;
	p->usid_mask = slots - 1;
	for (uint32_t k = 0; k <= old_mask; k++) {
		struct sst_stream *t = old[k];
		uint32_t i;

		if (t == NULL)
			continue;
		i = usid_hash(p, t->usid_counter, t->hcid);
		while (p->usids[i] != NULL)
			i = (i + 1) & p->usid_mask;
		p->usids[i] = t;
	}
	mem->release(mem->ctx, old, (old_mask + 1) * sizeof(*old));
	return 0;
}

int
stream_usid_insert(struct sst_stream_peer *p, struct sst_stream *s)
{
	uint32_t i;

	if (p->usid_count >= p->usid_max)
		return -ENOSPC;
	/* At most half full, so that probes stay short. */
	if (2 * (p->usid_count + 1) > p->usid_mask + 1 && usid_grow(p) < 0)
		return -ENOSPC;
	i = usid_hash(p, s->usid_counter, s->hcid);
	while (p->usids[i] != NULL)
		i = (i + 1) & p->usid_mask;
	p->usids[i] = s;
	p->usid_count++;
	stream_peer_hcid_hold(p, s->hcid);
	return 0;
}

struct sst_stream *
stream_usid_find(struct sst_stream_peer *p, uint64_t counter, uint8_t hcid)
{
	for (uint32_t i = usid_hash(p, counter, hcid);; i = (i + 1) & p->usid_mask) {
		struct sst_stream *s = p->usids[i];

		if (s == NULL)
			return NULL;
		if (s->usid_counter == counter && s->hcid == hcid)
			return s;
	}
}

/* Backward-shift deletion keeps probe sequences intact without tombstones. */
void
stream_usid_remove(struct sst_stream_peer *p, struct sst_stream *s)
{
	uint32_t i = usid_hash(p, s->usid_counter, s->hcid);

	while (p->usids[i] != s) {
		if (p->usids[i] == NULL)
			return;
		i = (i + 1) & p->usid_mask;
	}
	p->usids[i] = NULL;
	p->usid_count--;
	stream_peer_hcid_drop(p, s->hcid);
	for (uint32_t j = (i + 1) & p->usid_mask; p->usids[j] != NULL; j = (j + 1) & p->usid_mask) {
		struct sst_stream *t = p->usids[j];
		uint32_t home = usid_hash(p, t->usid_counter, t->hcid);

		/* t may move to the hole if its home is not in (i, j]. */
		if (((j - home) & p->usid_mask) >= ((j - i) & p->usid_mask)) {
			p->usids[i] = t;
			p->usids[j] = NULL;
			i = j;
		}
	}
}

int
stream_peer_hcid(struct sst_stream_peer *p, const uint8_t *id, uint8_t len)
{
	if (len == 0 || len > SST_HCID_MAX)
		return -EINVAL;
	for (int i = 0; i < STREAM_PEER_HCIDS_MAX; i++)
		if (p->hcids[i].len == len && memcmp(p->hcids[i].id, id, len) == 0)
			return i;
	/* A free entry, else one that nobody took after looking it up. */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < STREAM_PEER_HCIDS_MAX; i++)
			if (pass == 0 ? p->hcids[i].len == 0 : p->hcids[i].refs == 0) {
				p->hcids[i].len = len;
				memcpy(p->hcids[i].id, id, len);
				p->hcids[i].refs = 0;
				return i;
			}
	return -ENOSPC;
}

void
stream_peer_hcid_hold(struct sst_stream_peer *p, uint8_t idx)
{
	if (idx < STREAM_PEER_HCIDS_MAX)
		p->hcids[idx].refs++;
}

void
stream_peer_hcid_drop(struct sst_stream_peer *p, uint8_t idx)
{
	if (idx < STREAM_PEER_HCIDS_MAX && p->hcids[idx].refs > 0 && --p->hcids[idx].refs == 0)
		p->hcids[idx].len = 0;
}

void
stream_usid_rekey(struct sst_stream_peer *p, struct sst_stream *s, uint64_t counter, uint8_t hcid)
{
	/* Hold the new entry first: dropping the old one must not free it.
	 * The insert cannot fail: the removal made room. */
	stream_peer_hcid_hold(p, hcid);
	stream_usid_remove(p, s);
	s->usid_counter = counter;
	s->hcid = hcid;
	stream_usid_insert(p, s);
	stream_peer_hcid_drop(p, hcid);
}
