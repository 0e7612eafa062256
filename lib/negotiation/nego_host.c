/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The negotiation host (docs/negotiation.md): lifecycle, the attempt
 * timers, message dispatch, and the ulp blob. The bounded table of
 * negotiations is nego_table.c; the protocol steps of each mode live in
 * their own file (nego_checksum.c, nego_secure_host.c).
 *
 * The table (nego_table.c) holds two kinds of entries in one preallocated array: our open
 * attempts (at most max_initiating, keyed by (peer, our key)) and
 * peer-initiated channels (at most max_responding, keyed by (peer, the
 * peer's channel number)). It is indexed by an open-addressing hash table
 * with linear probing, at most half full, hashed with SipHash under a key
 * derived from the host secret, so that a sender who does not know the
 * secret cannot aim at one chain. Deletion shifts the following entries
 * back, so no tombstones accumulate. Nothing is allocated after setup.
 *
 * A responder entry may have a second key: a secure one (peer, first word
 * of nr), so that SecI2 (which carries only nr) finds it; a half-open
 * checksum one (peer, local channel), so that sst_nego_confirm() finds it.
 * Its index slot is flagged NEGO_SLOT_ALT, and the index is sized for two
 * keys per responder entry. Secure half-open entries are also on a list in
 * creation order, so that the oldest expires (or is evicted for a
 * cookie-proven initiator) in O(1).
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <sodium.h>

#include "nego_internal.h"
#include "sst_error.h"
#include "sst_log.h"
#include "sst_params.h"
#include "sst_xdr.h"

RTE_LOG_REGISTER(sst_logtype_nego, sst.nego, NOTICE);
#define NEGO_LOG(level, fmt, ...) SST_LOG(level, sst_logtype_nego, "nego", fmt, ##__VA_ARGS__)

static_assert(SST_NEGO_ADDR_MAX < 256, "address length must fit its byte");
static_assert(NEGO_TX_MAX >= SST_NEGO_HDR_LEN + 8 + 28 + 3 * 4 + SST_NEGO_ULP_LEN,
	"transmit buffer too small for a ChkR1 with a ulp blob");

/* --- sizes and layout --- */

struct nego_layout {
	uint32_t max_initiating;
	uint32_t max_responding;
	uint32_t nentries;
	uint32_t index_slots;
	uint32_t rate_slots;
	uint32_t max_peers;
	uint32_t peer_slots;
	uint16_t early_max;
	size_t entries_off;
	size_t index_off;
	size_t attempts_off;
	size_t sec_off; /**< 0 without a secure configuration */
	size_t early_off;
	size_t rate_off;
	size_t peers_off;
	size_t size;
};

static int
nego_layout(const struct sst_nego_host_params *p, struct nego_layout *l)
{
	uint32_t load_high, load_low;
	uint64_t n;

	if (p == NULL || !sst_params_size_ok(p->size, 1, sizeof(*p)) || p->ops == NULL ||
		p->ops->transmit == NULL || p->ops->chan_alloc == NULL ||
		p->ops->chan_free == NULL || p->ops->established == NULL)
		return -EINVAL;
	/* Zeroed, so that without a secure configuration its offsets are 0, not
	 * garbage that gcc's link-time optimiser rightly warns about. */
	*l = (struct nego_layout){0};
	l->max_initiating = p->max_initiating ? p->max_initiating : SST_NEGO_DEFAULT_MAX_INITIATING;
	l->max_responding = p->max_responding ? p->max_responding : SST_NEGO_DEFAULT_MAX_RESPONDING;
	n = (uint64_t)l->max_initiating + l->max_responding;
	if (n > SST_NEGO_MAX_ENTRIES || p->rate_slots > SST_NEGO_RATE_SLOTS_MAX ||
		p->max_peer_records > SST_NEGO_MAX_ENTRIES ||
		p->steer_bits > SST_NEGO_STEER_BITS_MAX || (p->steer_tag >> p->steer_bits) != 0 ||
		(p->secure != NULL && sst_secure_config_check(p->secure, false) < 0) ||
		nego_load_thresholds(p, l->max_responding, &load_high, &load_low) < 0)
		return -EINVAL;
	l->max_peers = p->max_peer_records ? p->max_peer_records : (uint32_t)n;
	/* The smallest useful message: a SecI2 (172 bytes) and a Packet chunk. */
	l->early_max = p->early_max ? p->early_max : SST_NEGO_EARLY_MAX_DEFAULT;
	if (l->early_max < 256)
		return -EINVAL;
	l->nentries = (uint32_t)n;
	/* Responder entries may hold a second key. */
	l->index_slots = (uint32_t)rte_align64pow2(2 * (n + (uint64_t)l->max_responding));
	l->rate_slots = (uint32_t)rte_align32pow2(
		RTE_MAX(p->rate_slots ? p->rate_slots : SST_NEGO_DEFAULT_RATE_SLOTS,
			(uint32_t)NEGO_RATE_WAYS));
	l->entries_off = RTE_ALIGN_CEIL(sizeof(struct sst_nego_host), 8);
	l->index_off = l->entries_off + (size_t)n * sizeof(struct nego_entry);
	l->attempts_off = l->index_off + (size_t)l->index_slots * sizeof(uint32_t);
	l->rate_off =
		RTE_ALIGN_CEIL(l->attempts_off + (size_t)l->max_initiating * sizeof(uint32_t), 8);
	l->size = l->rate_off + nego_rate_size(l->rate_slots);
	l->peers_off = RTE_ALIGN_CEIL(l->size, 8);
	l->size = l->peers_off + nego_peers_size(l->max_peers, &l->peer_slots);
	if (p->secure != NULL) {
		l->sec_off = RTE_ALIGN_CEIL(l->size, 8);
		l->early_off = l->sec_off + (size_t)n * sizeof(struct nego_sec);
		l->size = l->early_off + l->early_max;
	}
	return 0;
}

size_t
sst_nego_host_size(const struct sst_nego_host_params *user)
{
	struct sst_nego_host_params p;
	struct nego_layout l;
	int rc;

	/* Fields past the caller's size (an older caller) read as zero:
	 * their defaults, as in sst_nego_host_init(). */
	if (user == NULL || !sst_params_size_ok(user->size, 1, sizeof(p))) {
		rte_errno = EINVAL;
		return 0;
	}
	memset(&p, 0, sizeof(p));
	memcpy(&p, user, user->size);
	rc = nego_layout(&p, &l);
	sodium_memzero(&p, sizeof(p)); /* the copy holds the secret */
	if (rc < 0) {
		rte_errno = EINVAL;
		return 0;
	}
	return l.size;
}

/*
 * Our instance (docs/negotiation.md 3.1): it tells a peer that we are not
 * the host it talked to before a restart, so it must differ between two
 * runs. Drawn from the secure configuration's random source; a host
 * without one derives it from its secret, which is the caller's
 * randomness for checksum mode (fresh per run in production, fixed in
 * tests). 0 means "no instance" on the wire, so it is never ours.
 */
static uint64_t
nego_instance_draw(const struct sst_nego_host_params *p)
{
	static const uint8_t tag[] = "sst-nego-instance";
	uint8_t in[sizeof(tag) + 1], out[crypto_generichash_BYTES_MIN];
	uint64_t v = p->instance;

	for (uint8_t k = 0; v == 0; k++) {
		if (p->secure != NULL) {
			p->secure->random(p->secure->random_ctx, &v, sizeof(v));
		} else {
			memcpy(in, tag, sizeof(tag));
			in[sizeof(tag)] = k;
			crypto_generichash(
				out, sizeof(out), in, sizeof(in), p->secret, sizeof(p->secret));
			memcpy(&v, out, sizeof(v));
		}
	}
	sodium_memzero(out, sizeof(out));
	return v;
}

int
sst_nego_host_init(struct sst_nego_host *h, const struct sst_nego_host_params *user)
{
	static const uint8_t table_tag[] = "sst-nego-table-key";
	struct sst_nego_host_params p;
	struct nego_layout l;
	int rc;

	if (h == NULL || user == NULL || !sst_params_size_ok(user->size, 1, sizeof(p)))
		return -EINVAL;
	memset(&p, 0, sizeof(p));
	memcpy(&p, user, user->size);
	rc = nego_layout(&p, &l);
	if (rc == 0 && sodium_init() < 0)
		rc = -EINVAL;
	if (rc < 0) {
		/* The copy holds the host secret: no path leaves it on the
		 * stack (conventions rule 7). */
		sodium_memzero(&p, sizeof(p));
		return rc;
	}
	memset(h, 0, l.size);
	h->ops = *p.ops;
	h->ctx = p.ctx;
	memcpy(h->secret, p.secret, sizeof(h->secret));
	/* The index hash key is derived from the secret, apart from the keys. */
	crypto_generichash(h->hash_key, sizeof(h->hash_key), table_tag, sizeof(table_tag),
		h->secret, sizeof(h->secret));
	h->instance = nego_instance_draw(&p);
	h->steer_tag = p.steer_tag;
	h->steer_bits = p.steer_bits;
	h->early_max = l.early_max;
	h->ulp_version = p.ulp_version ? p.ulp_version : SST_NEGO_ULP_VERSION;
	h->ulp_caps = p.ulp_caps;
	if (!p.ulp_legacy)
		h->ulp_len = (uint8_t)sst_nego_ulp_encode_instance(
			h->ulp_version, h->ulp_caps, h->instance, h->ulp, sizeof(h->ulp));
	h->max_initiating = l.max_initiating;
	h->max_responding = l.max_responding;
	h->nentries = l.nentries;
	h->index_mask = l.index_slots - 1;
	h->entries = (struct nego_entry *)((uint8_t *)h + l.entries_off);
	h->index = (uint32_t *)((uint8_t *)h + l.index_off);
	h->attempts = (uint32_t *)((uint8_t *)h + l.attempts_off);
	for (uint32_t i = 0; i < h->nentries; i++)
		h->entries[i].next_free = i + 1 < h->nentries ? i + 1 : NEGO_NONE;
	h->free_head = 0;
	h->next_expiry = SST_TIME_NEVER;
	h->half_head = h->half_tail = NEGO_NONE;
	h->amp_factor = p.amp_factor ? p.amp_factor : SST_NEGO_AMP_FACTOR;
	nego_rate_init(h, (struct nego_rate *)((uint8_t *)h + l.rate_off), l.rate_slots,
		p.rate_per_sec ? p.rate_per_sec : SST_NEGO_DEFAULT_RATE,
		p.rate_burst ? p.rate_burst : SST_NEGO_DEFAULT_BURST, p.rate_prefix);
	nego_peers_init(h, (uint8_t *)h + l.peers_off, l.max_peers, l.peer_slots);
	if (p.secure != NULL) {
		h->sec = (struct nego_sec *)((uint8_t *)h + l.sec_off);
		h->early_buf = (uint8_t *)h + l.early_off;
		h->sec_cfg = *p.secure;
		h->sec_responder = p.secure->identity != NULL;
		h->max_half_open = p.max_half_open ? RTE_MIN(p.max_half_open, h->max_responding)
						   : h->max_responding;
	}
	nego_load_init(h, &p);
	sodium_memzero(&p, sizeof(p));
	return 0;
}

void
sst_nego_host_fini(struct sst_nego_host *h)
{
	if (h == NULL || h->entries == NULL)
		return;
	while (h->n_init > 0) {
		struct nego_entry *e = &h->entries[h->attempts[h->n_init - 1]];
		struct sst_nego_addr peer = e->peer;
		uint8_t chan = e->local_channel;
		bool owned = e->phase == NEGO_PH_I2; /* established: the caller's */

		nego_remove(h, e);
		if (!owned)
			h->ops.chan_free(h->ctx, &peer, chan);
	}
	/* Established secure responders still hold their entries. */
	for (uint32_t i = 0; i < h->nentries; i++) {
		struct nego_entry *e = &h->entries[i];

		if (e->kind == NEGO_KIND_RESP && e->phase == NEGO_PH_HALF) {
			struct sst_nego_addr peer = e->peer;
			uint8_t chan = e->local_channel;

			nego_remove(h, e);
			h->ops.chan_free(h->ctx, &peer, chan);
		}
	}
	if (h->sec != NULL)
		sodium_memzero(h->sec, (size_t)h->nentries * sizeof(*h->sec));
	sst_secure_cookie_secret_wipe(&h->cookie);
	sodium_memzero(h->rate_key, sizeof(h->rate_key));
	sodium_memzero(h->entries, (size_t)h->nentries * sizeof(*h->entries));
	sodium_memzero(h->peers, (size_t)h->max_peers * sizeof(*h->peers));
	sodium_memzero(h->secret, sizeof(h->secret));
	sodium_memzero(h->hash_key, sizeof(h->hash_key));
	sodium_memzero(h->txbuf, sizeof(h->txbuf));
	h->entries = NULL;
}

struct sst_nego_host *
sst_nego_host_create(const struct sst_nego_host_params *p)
{
	size_t size = sst_nego_host_size(p);
	struct sst_nego_host *h;
	int rc;

	if (size == 0)
		return NULL;
	h = rte_zmalloc("sst_nego_host", size, RTE_CACHE_LINE_SIZE);
	if (h == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	rc = sst_nego_host_init(h, p);
	if (rc < 0) {
		rte_free(h);
		rte_errno = -rc;
		return NULL;
	}
	return h;
}

void
sst_nego_host_destroy(struct sst_nego_host *h)
{
	if (h == NULL)
		return;
	sst_nego_host_fini(h);
	rte_free(h);
}

/* --- the attempt timers --- */

static sst_time_t
attempt_expiry(const struct nego_entry *e)
{
	return sst_time_min(e->next_tx, sst_time_add(e->created, SST_NEGO_FAIL_AFTER));
}

void
nego_rearm(struct sst_nego_host *h)
{
	sst_time_t t = SST_TIME_NEVER;

	for (uint32_t k = 0; k < h->n_init; k++)
		t = sst_time_min(t, attempt_expiry(&h->entries[h->attempts[k]]));
	h->next_expiry = sst_time_min(t, nego_sec_next_expiry(h));
}

/* --- the modes --- */

static const struct nego_mode {
	enum sst_nego_mode mode;
	/** (Re)send an attempt's current initiator message. */
	void (*send)(struct sst_nego_host *h, struct nego_entry *e, sst_time_t now);
} nego_modes[] = {
	{SST_NEGO_MODE_CHECKSUM, nego_chk_send_i1},
	{SST_NEGO_MODE_SECURE, nego_sec_send},
};

static const struct nego_mode *
nego_mode_find(enum sst_nego_mode mode)
{
	for (size_t i = 0; i < RTE_DIM(nego_modes); i++)
		if (nego_modes[i].mode == mode)
			return &nego_modes[i];
	return NULL;
}

static bool
addr_valid(const struct sst_nego_addr *a)
{
	return a != NULL && a->len > 0 && a->len <= SST_NEGO_ADDR_MAX;
}

int
sst_nego_connect(struct sst_nego_host *h, const struct sst_nego_addr *peer, enum sst_nego_mode mode,
	sst_time_t now)
{
	const struct nego_mode *m = nego_mode_find(mode);
	struct nego_entry *e;
	uint32_t cki;
	int chan;

	if (h == NULL || !addr_valid(peer))
		return -EINVAL;
	if (m == NULL || (mode == SST_NEGO_MODE_SECURE && h->sec == NULL))
		return -ENOTSUP;
	if (h->n_init >= h->max_initiating)
		return -ENOSPC;
	chan = h->ops.chan_alloc(h->ctx, peer);
	if (chan < 0)
		return chan;
	if (chan == 0 || chan > 255)
		return -ERANGE;
	if (mode == SST_NEGO_MODE_SECURE) {
		int err = 0;

		e = nego_sec_begin(h, peer, (uint8_t)chan, &err);
		if (e == NULL) {
			h->ops.chan_free(h->ctx, peer, (uint8_t)chan);
			return err;
		}
	} else {
		/* Our key names the attempt: keep it unique per peer, and
		 * its low bits the steering tag (ChkR1 echoes cki). */
		cki = nego_steer_key(h, nego_chk_key(h, (uint8_t)chan, peer, now));
		while (nego_lookup(h, NEGO_KIND_INIT, peer, cki) != NULL)
			cki += 1u << h->steer_bits;
		e = nego_insert(h, NEGO_KIND_INIT, peer, cki);
		if (e == NULL) {
			h->ops.chan_free(h->ctx, peer, (uint8_t)chan);
			return -ENOSPC;
		}
		e->cki = cki;
	}
	e->mode = (uint8_t)mode;
	e->local_channel = (uint8_t)chan;
	e->created = now;
	e->interval = SST_NEGO_RETX_INITIAL;
	e->next_tx = sst_time_add(now, e->interval);
	e->last_tx = now;
	m->send(h, e, now);
	h->stats.tx_i1++;
	nego_rearm(h);
	return chan;
}

static struct nego_entry *
attempt_find(struct sst_nego_host *h, const struct sst_nego_addr *peer, uint8_t local_channel)
{
	for (uint32_t k = 0; k < h->n_init; k++) {
		struct nego_entry *e = &h->entries[h->attempts[k]];

		if (e->local_channel == local_channel && sst_nego_addr_equal(&e->peer, peer))
			return e;
	}
	return NULL;
}

int
sst_nego_cancel(struct sst_nego_host *h, const struct sst_nego_addr *peer, uint8_t local_channel)
{
	struct nego_entry *e;

	if (h == NULL || !addr_valid(peer))
		return -EINVAL;
	e = attempt_find(h, peer, local_channel);
	if (e == NULL)
		return -ENOENT;
	if (e->phase == NEGO_PH_I2)
		return sst_nego_confirm(h, peer, local_channel);
	nego_remove(h, e);
	nego_rearm(h);
	h->ops.chan_free(h->ctx, peer, local_channel);
	return 0;
}

int
sst_nego_confirm(struct sst_nego_host *h, const struct sst_nego_addr *peer, uint8_t local_channel)
{
	struct nego_entry *e;

	if (h == NULL || !addr_valid(peer))
		return -EINVAL;
	e = attempt_find(h, peer, local_channel);
	if (e != NULL && e->phase == NEGO_PH_I2) {
		/* The number is the caller's channel's since established(). */
		nego_remove(h, e);
		nego_rearm(h);
		h->stats.confirmed++;
		return 0;
	}
	/* A checksum responder's channel: the initiator uses it, so it got
	 * our ChkR1; the entry stays (it answers retransmitted ChkI1) but is
	 * no longer half-open. */
	e = nego_lookup(h, NEGO_KIND_CHAN, peer, local_channel);
	if (e == NULL || e->phase != NEGO_PH_UNHEARD)
		return -ENOENT;
	nego_unheard_unlink(h, e);
	h->stats.chk_heard++;
	return 0;
}

int
sst_nego_send_early(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	uint8_t local_channel, const void *pkt, size_t len, sst_time_t now)
{
	struct nego_entry *e;

	if (h == NULL || !addr_valid(peer) || pkt == NULL || len == 0)
		return -EINVAL;
	e = attempt_find(h, peer, local_channel);
	/* Only an established attempt that still repeats SecI2 (spec 3.4):
	 * before SecR1 there are no keys, after confirmation the responder
	 * has the channel and the packet goes alone. */
	if (e == NULL || e->phase != NEGO_PH_I2)
		return -ENOENT;
	return nego_sec_send_early(h, e, pkt, len, now);
}

uint64_t
sst_nego_instance(const struct sst_nego_host *h)
{
	return h->instance;
}

int
sst_nego_release(struct sst_nego_host *h, const struct sst_nego_addr *peer, uint8_t local_channel,
	uint8_t peer_channel)
{
	struct nego_entry *e;

	if (h == NULL || !addr_valid(peer))
		return -EINVAL;
	/* Whatever its role, the channel no longer holds its peer's
	 * instance record (its number is unique for this address). */
	nego_restart_release(h, peer, local_channel);
	e = nego_lookup(h, NEGO_KIND_RESP, peer, peer_channel);
	/* A half-open entry has no channel of the caller's yet. */
	if (e == NULL || e->local_channel != local_channel || e->phase == NEGO_PH_HALF)
		return -ENOENT;
	nego_remove(h, e);
	return 0;
}

/* An R0 ping from peer (wire-format.md 6.4): our attempts to it resend their
 * first message at once, unless they just sent it. */
static void
nego_on_ping(struct sst_nego_host *h, const struct sst_nego_addr *peer, sst_time_t now)
{
	bool matched = false;

	h->stats.rx_ping++;
	for (uint32_t k = 0; k < h->n_init; k++) {
		struct nego_entry *e = &h->entries[h->attempts[k]];

		if (!sst_nego_addr_equal(&e->peer, peer))
			continue;
		matched = true;
		if (now < sst_time_add(e->last_tx, SST_NEGO_PING_HOLDOFF))
			continue;
		nego_mode_find((enum sst_nego_mode)e->mode)->send(h, e, now);
		e->last_tx = now;
		h->stats.tx_i1_retx++;
	}
	if (!matched)
		h->stats.rx_ping_unmatched++;
}

int
sst_nego_receive(struct sst_nego_host *h, const struct sst_nego_addr *from, const void *msg,
	size_t len, sst_time_t now)
{
	struct sst_nego_chunk chunk;
	struct sst_nego_iter it;
	struct sst_nego_msg m;
	int rc;

	h->stats.rx_msgs++;
	if (!addr_valid(from) || msg == NULL) {
		h->stats.rx_malformed++;
		return -EINVAL;
	}
	rc = sst_nego_msg_parse(msg, len, &m);
	if (rc < 0) {
		h->stats.rx_malformed++;
		return rc;
	}
	h->rx_budget = (uint32_t)RTE_MIN(len, (size_t)UINT32_MAX);
	h->pkt_chan = 0;
	if (m.nchunks == 0) {
		nego_on_ping(h, from, now);
		return 0;
	}
	sst_nego_iter_init(&it, &m);
	while (sst_nego_iter_next(&it, &chunk)) {
		switch (chunk.type) {
		case SST_NEGO_CHKI1:
			nego_chk_on_i1(h, from, &chunk.body, now);
			break;
		case SST_NEGO_CHKR1:
			nego_chk_on_r1(h, from, &chunk.body, now);
			break;
		case SST_NEGO_SECI1:
			nego_sec_on_i1(h, from, &chunk.body, now);
			break;
		case SST_NEGO_SECR1:
			nego_sec_on_r1(h, from, &chunk.body, now);
			break;
		case SST_NEGO_SECI2:
			nego_sec_on_i2(h, from, &chunk.body, now);
			break;
		case SST_NEGO_SECCOOKIE:
			nego_sec_on_cookie(h, from, &chunk.body, now);
			break;
		case SST_NEGO_SECREFUSE:
			nego_sec_on_refuse(h, from, &chunk.body, now);
			break;
		case SST_NEGO_PACKET:
			nego_sec_on_packet(h, from, &chunk.body, now);
			break;
		case SST_NEGO_DHI1:
		case SST_NEGO_DHR1:
		case SST_NEGO_DHI2:
		case SST_NEGO_DHR2:
			h->stats.rx_unsupported++;
			break;
		default:
			h->stats.rx_unknown_chunk++;
			break;
		}
	}
	return 0;
}

sst_time_t
sst_nego_next_expiry(const struct sst_nego_host *h)
{
	return h->next_expiry;
}

void
sst_nego_handle_expiry(struct sst_nego_host *h, sst_time_t now)
{
	uint32_t k = 0;

	/* A callback may add or remove attempts; removal swaps the last one
	 * into place, so an attempt moved behind k waits for the next call
	 * (nego_rearm() still reports it due). */
	while (k < h->n_init) {
		struct nego_entry *e = &h->entries[h->attempts[k]];

		if (e->phase == NEGO_PH_I2 &&
			now >= sst_time_add(e->created, SST_NEGO_FAIL_AFTER)) {
			/* Established: the number is the caller's; only the
			 * repetition of SecI2 ends. */
			nego_remove(h, e);
			h->stats.unconfirmed++;
			continue;
		}
		if (now >= sst_time_add(e->created, SST_NEGO_FAIL_AFTER)) {
			struct sst_nego_addr peer = e->peer;
			uint8_t chan = e->local_channel;

			nego_remove(h, e);
			h->stats.failed++;
			h->ops.chan_free(h->ctx, &peer, chan);
			NEGO_LOG(INFO, "negotiation on local channel %u timed out", chan);
			if (h->ops.failed != NULL)
				h->ops.failed(h->ctx, &peer, chan, -ETIMEDOUT, now);
			continue;
		}
		if (now >= e->next_tx) {
			nego_mode_find((enum sst_nego_mode)e->mode)->send(h, e, now);
			e->last_tx = now;
			h->stats.tx_i1_retx++;
			e->interval = RTE_MIN(2 * e->interval, SST_NEGO_RETX_MAX);
			e->next_tx = sst_time_add(now, e->interval);
		}
		k++;
	}
	nego_sec_expire(h, now);
	nego_cookie_rotate(h, now);
	nego_rearm(h);
}

uint32_t
sst_nego_initiating(const struct sst_nego_host *h)
{
	return h->n_init - h->n_confirm;
}

uint32_t
sst_nego_half_open(const struct sst_nego_host *h)
{
	return h->n_half + h->n_unheard;
}

uint32_t
sst_nego_responding(const struct sst_nego_host *h)
{
	return h->n_resp;
}

const struct sst_nego_stats *
sst_nego_stats(const struct sst_nego_host *h)
{
	return &h->stats;
}

/* --- the ulp blob (docs/negotiation.md section 3) --- */

int
sst_nego_ulp_encode_instance(
	uint32_t version, uint32_t caps, uint64_t instance, void *buf, size_t cap)
{
	/* Each version appends fields: version 2 the instance. */
	size_t need = version >= 2 ? SST_NEGO_ULP_LEN : SST_NEGO_ULP_V1_LEN;
	struct sst_xdr_writer w;

	if (cap < need)
		return -ENOSPC;
	sst_xdr_writer_init(&w, buf, cap);
	sst_xdr_put_u32(&w, SST_NEGO_ULP_MAGIC);
	sst_xdr_put_u32(&w, version);
	sst_xdr_put_u32(&w, caps);
	if (version >= 2)
		sst_xdr_put_u64(&w, instance);
	return (int)w.pos;
}

int
sst_nego_ulp_encode(uint32_t version, uint32_t caps, void *buf, size_t cap)
{
	return sst_nego_ulp_encode_instance(version, caps, 0, buf, cap);
}

void
sst_nego_ulp_decode(const void *buf, size_t len, struct sst_nego_ulp *ulp)
{
	struct sst_xdr_reader r;
	uint32_t magic = 0, version = 0, caps = 0;
	uint64_t instance = 0;

	memset(ulp, 0, sizeof(*ulp));
	if (buf == NULL || len < SST_NEGO_ULP_V1_LEN)
		return;
	sst_xdr_reader_init(&r, buf, len);
	sst_xdr_get_u32(&r, &magic);
	sst_xdr_get_u32(&r, &version);
	sst_xdr_get_u32(&r, &caps);
	/* Later versions append fields; what we know of them is the prefix. */
	if (magic != SST_NEGO_ULP_MAGIC || version == 0)
		return;
	ulp->extended = true;
	ulp->version = version;
	ulp->caps = caps;
	/* Version 2 appended the instance; a version 2 blob cut short (or a
	 * version 1 blob with trailing bytes) has none. */
	if (version >= 2 && sst_xdr_get_u64(&r, &instance) == 0 && instance != 0) {
		ulp->has_instance = true;
		ulp->instance = instance;
	}
}

int
sst_nego_channel_params(const struct sst_nego_result *r, struct sst_channel_params *p)
{
	if (r == NULL || p == NULL || r->suite == SST_CRYPTO_NULL ||
		r->suite >= SST_CRYPTO_SUITE_COUNT || r->local_channel == 0 || r->peer_channel == 0)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	p->local_channel = r->local_channel;
	p->peer_channel = r->peer_channel;
	p->suite = r->suite;
	p->keys = r->keys;
	/* A peer without an SST-DPDK blob may be the 2007 prototype: its
	 * acknowledgments freeze once it received 65,535 packets of a channel
	 * (wire-format.md 9.4), so ours stops numbering there, and asks for a
	 * successor at 7/8 of it (channel replacement), long before. */
	if (r->mode == SST_NEGO_MODE_CHECKSUM && !r->peer_ulp.extended)
		p->packet_limit = SST_CHANNEL_PROTOTYPE_SEQ_MAX + 1;
	/* Posing as the prototype, acknowledge as it does. */
	p->prototype_acks = r->local_legacy;
	return 0;
}
