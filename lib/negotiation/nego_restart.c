/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Restart detection (docs/negotiation.md section 3.1). Every host draws a
 * random 64-bit instance at init and advertises it in its ulp blob. For
 * each peer address we hold channels with, a record keeps the instance
 * those channels were established under and which local channel numbers
 * they are (a 256-bit set). A new channel from the same address and the
 * same principal (mode, and in secure mode the same authenticated
 * identity) with another instance, while the set is not empty, means the
 * peer restarted: the result says peer_restarted and the record starts
 * over with the new instance and channel, so the stale channels no longer
 * count (the caller drops them). sst_nego_release() takes a channel out of
 * its record; an empty record is freed.
 *
 * The record also remembers the instance that its last restart replaced.
 * A message the dead process sent just before it died may arrive after
 * the new process's (a retransmitted ChkI1 delayed in the network, a SecI2
 * completing a handshake begun before the restart); without this memory it
 * would read as a restart back to the old instance and make the caller drop
 * the new process's live channels. Such a channel is reported as
 * peer_stale instead: neither a restart nor recorded.
 *
 * Channels whose peer sent no instance (a legacy peer, an older SST-DPDK
 * blob), anonymous secure initiators (whose instance binds to nobody) and
 * channels of another principal while a record is held are not recorded:
 * they can neither trigger nor suffer a restart report here. A legacy
 * peer's restart shows in its checksum key instead (nego_checksum.c,
 * legacy_key()), which the checksum path reports in peer_restarted. The records live
 * in one preallocated array with an open-addressing index hashed with
 * SipHash under the host's key (linear probing, backward-shift deletion,
 * at most half full), so nothing is allocated and a sender cannot aim at
 * one probe chain.
 */
#include <string.h>

#include <rte_common.h>
#include <sodium.h>

#include "nego_internal.h"

size_t
nego_peers_size(uint32_t max, uint32_t *slots)
{
	*slots = (uint32_t)rte_align64pow2(2 * (uint64_t)RTE_MAX(max, 1u));
	return RTE_ALIGN_CEIL((size_t)max * sizeof(struct nego_peer), 8) +
	       (size_t)*slots * sizeof(uint32_t);
}

void
nego_peers_init(struct sst_nego_host *h, void *mem, uint32_t max, uint32_t slots)
{
	h->peers = mem;
	h->peer_index = (uint32_t *)((uint8_t *)mem +
				     RTE_ALIGN_CEIL((size_t)max * sizeof(struct nego_peer), 8));
	h->peer_mask = slots - 1;
	h->max_peers = max;
	h->n_peers = 0;
	for (uint32_t i = 0; i < max; i++)
		h->peers[i].next_free = i + 1 < max ? i + 1 : NEGO_NONE;
	h->peer_free = max > 0 ? 0 : NEGO_NONE;
}

static uint64_t
peer_hash(const struct sst_nego_host *h, const struct sst_nego_addr *peer)
{
	return nego_hash(h, NEGO_KIND_PEER, peer, 0);
}

static struct nego_peer *
peer_find(struct sst_nego_host *h, const struct sst_nego_addr *peer, uint64_t hash)
{
	for (uint32_t s = (uint32_t)hash & h->peer_mask;; s = (s + 1) & h->peer_mask) {
		uint32_t v = h->peer_index[s];
		struct nego_peer *p;

		if (v == 0)
			return NULL;
		p = &h->peers[v - 1];
		if (p->hash == hash && sst_nego_addr_equal(&p->peer, peer))
			return p;
	}
}

static struct nego_peer *
peer_add(struct sst_nego_host *h, const struct sst_nego_addr *peer, uint64_t hash)
{
	uint32_t i = h->peer_free, s;
	struct nego_peer *p;

	if (i == NEGO_NONE)
		return NULL;
	p = &h->peers[i];
	h->peer_free = p->next_free;
	memset(p, 0, sizeof(*p));
	p->hash = hash;
	p->peer = *peer;
	p->next_free = NEGO_NONE;
	for (s = (uint32_t)hash & h->peer_mask; h->peer_index[s] != 0; s = (s + 1) & h->peer_mask)
		;
	h->peer_index[s] = i + 1;
	h->n_peers++;
	return p;
}

static void
peer_del(struct sst_nego_host *h, struct nego_peer *p)
{
	uint32_t v = (uint32_t)(p - h->peers) + 1;
	uint32_t s = (uint32_t)p->hash & h->peer_mask;

	while (h->peer_index[s] != v)
		s = (s + 1) & h->peer_mask;
	/* Backward-shift deletion, as for the entry index (nego_host.c). */
	for (uint32_t j = (s + 1) & h->peer_mask; h->peer_index[j] != 0;
		j = (j + 1) & h->peer_mask) {
		uint32_t home = (uint32_t)h->peers[h->peer_index[j] - 1].hash & h->peer_mask;

		if (((j - home) & h->peer_mask) >= ((j - s) & h->peer_mask)) {
			h->peer_index[s] = h->peer_index[j];
			s = j;
		}
	}
	h->peer_index[s] = 0;
	sodium_memzero(p, sizeof(*p));
	p->next_free = h->peer_free;
	h->peer_free = v - 1;
	h->n_peers--;
}

/* Whether a channel of r may be recorded at all, and under which identity:
 * secure mode needs an authenticated identity, so that nobody who is not
 * the peer can claim (or fake a restart of) its instance. */
static bool
trackable(const struct sst_nego_result *r)
{
	return r->peer_ulp.has_instance &&
	       (r->mode == SST_NEGO_MODE_CHECKSUM || r->peer_status == SST_SECURE_PEER_KNOWN ||
		       r->peer_status == SST_SECURE_PEER_NEW);
}

static bool
same_principal(const struct nego_peer *p, const struct sst_nego_result *r)
{
	return p->mode == r->mode && memcmp(p->id, r->peer_id, SST_SECURE_KEY_LEN) == 0;
}

void
nego_restart_check(struct sst_nego_host *h, struct sst_nego_result *r)
{
	/* A peer without an instance may have shown a restart by its
	 * checksum key (nego_checksum.c, legacy_key()): the mode's check. */
	bool key_restart = r->peer_restarted;
	const struct nego_peer *p;
	bool other;

	r->peer_instance_known = r->peer_ulp.has_instance;
	r->peer_instance = r->peer_ulp.instance;
	r->peer_restarted = false;
	r->peer_stale = false;
	if (!trackable(r)) {
		r->peer_restarted = key_restart && !r->peer_ulp.has_instance;
		return;
	}
	p = peer_find(h, &r->peer, peer_hash(h, &r->peer));
	other = p != NULL && p->nchan > 0 && same_principal(p, r) &&
		p->instance != r->peer_instance;
	r->peer_stale = other && p->prev_instance == r->peer_instance;
	r->peer_restarted = other && !r->peer_stale;
	h->restart_prev = r->peer_restarted ? p->instance : 0;
}

static void
chan_set(struct nego_peer *p, uint8_t chan)
{
	uint64_t bit = UINT64_C(1) << (chan & 63);

	if ((p->chans[chan >> 6] & bit) == 0) {
		p->chans[chan >> 6] |= bit;
		p->nchan++;
	}
}

void
nego_restart_commit(struct sst_nego_host *h, const struct sst_nego_result *r)
{
	uint64_t hash;
	struct nego_peer *p;

	if (r->peer_restarted)
		h->stats.peer_restarts++;
	if (r->peer_stale)
		h->stats.peer_stale++;
	if (!trackable(r) || r->peer_stale)
		return;
	hash = peer_hash(h, &r->peer);
	/* established() may have released channels: look again. */
	p = peer_find(h, &r->peer, hash);
	if (p == NULL)
		p = peer_add(h, &r->peer, hash);
	if (p == NULL || (p->nchan > 0 && !same_principal(p, r))) {
		/* No room, or the address belongs to another principal with
		 * live channels: this channel is not recorded. */
		h->stats.peer_untracked++;
		return;
	}
	if (p->nchan == 0 || p->instance != r->peer_instance) {
		/* A new record, or a restart: the earlier channels are stale
		 * and no longer count, and their instance is dead (known from
		 * the check even if established() released them all). */
		p->prev_instance = r->peer_restarted ? h->restart_prev : 0;
		memset(p->chans, 0, sizeof(p->chans));
		p->nchan = 0;
		p->instance = r->peer_instance;
		p->mode = (uint8_t)r->mode;
		memcpy(p->id, r->peer_id, SST_SECURE_KEY_LEN);
	}
	chan_set(p, r->local_channel);
}

void
nego_restart_release(
	struct sst_nego_host *h, const struct sst_nego_addr *peer, uint8_t local_channel)
{
	uint64_t bit = UINT64_C(1) << (local_channel & 63);
	struct nego_peer *p = peer_find(h, peer, peer_hash(h, peer));

	if (p == NULL || (p->chans[local_channel >> 6] & bit) == 0)
		return;
	p->chans[local_channel >> 6] &= ~bit;
	if (--p->nchan == 0)
		peer_del(h, p);
}

bool
nego_restart_claimed(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	enum sst_nego_mode mode, const struct sst_nego_ulp *ulp)
{
	const struct nego_peer *p;

	if (!ulp->has_instance)
		return false;
	p = peer_find(h, peer, peer_hash(h, peer));
	/* The dead instance's late ChkI1 claims nothing: it would take the
	 * entry of the process that replaced it. */
	return p != NULL && p->nchan > 0 && p->mode == mode && p->instance != ulp->instance &&
	       p->prev_instance != ulp->instance;
}

bool
nego_restart_supersedes(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct nego_entry *e, const struct sst_nego_ulp *ulp)
{
	const struct nego_peer *p;

	/* A half-open handshake is the one thing a forged I1 could break:
	 * it keeps the 20 s rule. An established entry only recognises its
	 * initiator's repetitions; its channel stays the caller's. */
	if (e->phase == NEGO_PH_HALF || !ulp->has_instance || e->instance == 0 ||
		ulp->instance == e->instance)
		return false;
	p = peer_find(h, peer, peer_hash(h, peer));
	return p == NULL || p->prev_instance != ulp->instance;
}

int
nego_report_established(struct sst_nego_host *h, struct sst_nego_result *r, sst_time_t now)
{
	int rc;

	nego_restart_check(h, r);
	rc = h->ops.established(h->ctx, r, now);
	if (rc >= 0)
		nego_restart_commit(h, r);
	sodium_memzero(r, sizeof(*r));
	return rc;
}
