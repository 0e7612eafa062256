/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internals of the negotiation host (never installed). nego_host.c owns the
 * object: lifecycle, the bounded table of negotiations, timers, message
 * dispatch and the ulp blob. Each mode implements its protocol steps in its
 * own file (nego_checksum.c for ChkI1/ChkR1) behind the chunk handlers and
 * the entry kinds declared here.
 */
#ifndef NEGO_INTERNAL_H
#define NEGO_INTERNAL_H

#include <stdint.h>

#include <sodium.h>

#include "nego_wire.h"
#include "sst_negotiation.h"

enum {
	/** Largest message we build: one chunk with a ulp blob. */
	NEGO_TX_MAX = 128,
	NEGO_NONE = UINT32_MAX, /**< "no entry" index */
	NEGO_HASH_KEY_LEN = 16, /**< SipHash key (crypto_shorthash) */
};

/** What a table entry is. */
enum nego_kind {
	NEGO_KIND_FREE = 0,
	/** Our open attempt, keyed by (peer, our key cki). */
	NEGO_KIND_INIT,
	/** A peer-initiated channel, keyed by (peer, peer's channel number). */
	NEGO_KIND_RESP,
};

/** One negotiation, ours or a peer's. */
struct nego_entry {
	uint64_t hash; /**< of (kind, peer, id) under the host's hash key */
	struct sst_nego_addr peer;
	uint8_t kind; /**< enum nego_kind */
	uint8_t mode; /**< enum sst_nego_mode */
	uint8_t local_channel;
	uint8_t peer_channel; /**< RESP: chani; INIT: 0 until established */
	uint32_t id;	      /**< the hashed id: INIT cki, RESP chani */
	uint32_t cki;	      /**< initiator's key */
	uint32_t ckr;	      /**< responder's key (RESP only) */
	uint32_t pos;	      /**< INIT: position in the host's attempt list */
	uint32_t next_free;   /**< free-list link while FREE */
	sst_time_t created;   /**< first message sent or accepted */
	sst_time_t last_tx;   /**< INIT: latest I1 sent */
	sst_time_t next_tx;   /**< INIT: next retransmission */
	uint64_t interval;    /**< INIT: current retransmission interval */
};

struct sst_nego_host {
	struct sst_nego_ops ops;
	void *ctx;
	uint8_t secret[SST_NEGO_SECRET_LEN];
	uint8_t hash_key[NEGO_HASH_KEY_LEN];
	uint32_t ulp_version;
	uint32_t ulp_caps;
	uint8_t ulp[SST_NEGO_ULP_LEN]; /**< our encoded blob */
	uint8_t ulp_len;	       /**< 0 when we pose as a legacy peer */
	uint32_t max_initiating;
	uint32_t max_responding;
	uint32_t n_init;
	uint32_t n_resp;
	uint32_t nentries;   /**< max_initiating + max_responding */
	uint32_t index_mask; /**< index slots - 1 (a power of two, >= 2 x nentries) */
	uint32_t free_head;
	sst_time_t next_expiry; /**< cached minimum over the attempts */
	struct sst_nego_stats stats;
	struct nego_entry *entries; /**< nentries, after the struct */
	uint32_t *index;	    /**< index_mask + 1 slots: entry + 1, or 0 */
	uint32_t *attempts;	    /**< max_initiating: indexes of INIT entries */
	uint8_t txbuf[NEGO_TX_MAX];
};

/* --- nego_host.c: the table, for the mode files --- */

/** Find the entry of (kind, peer, id). @return it, or NULL. */
struct nego_entry *nego_lookup(struct sst_nego_host *h, enum nego_kind kind,
	const struct sst_nego_addr *peer, uint32_t id);

/**
 * Take a free entry and index it under (kind, peer, id). The caller checked
 * the per-kind limit and that the key is absent. @return it, or NULL.
 */
struct nego_entry *nego_insert(struct sst_nego_host *h, enum nego_kind kind,
	const struct sst_nego_addr *peer, uint32_t id);

/** Remove an entry from the index (and the attempt list) and free it. */
void nego_remove(struct sst_nego_host *h, struct nego_entry *e);

/** Recompute the cached next expiry after an attempt's timer changed. */
void nego_rearm(struct sst_nego_host *h);

/** Whether a peer-initiated negotiation may get state now; the hook where
 * a stateless cookie challenge will go (docs/negotiation.md). */
bool nego_admit(struct sst_nego_host *h, const struct sst_nego_addr *peer);

/* --- nego_checksum.c: checksum mode (ChkI1/ChkR1) --- */

/** Our checksum key for a new channel (the ops hook or the default hash). */
uint32_t nego_chk_key(struct sst_nego_host *h, uint8_t local_channel,
	const struct sst_nego_addr *peer, sst_time_t now);

/** Send (or resend) an attempt's ChkI1. */
void nego_chk_send_i1(struct sst_nego_host *h, struct nego_entry *e, sst_time_t now);

/** Responder: a ChkI1 chunk from peer. */
void nego_chk_on_i1(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct sst_bytes *body, sst_time_t now);

/** Initiator: a ChkR1 chunk from peer. */
void nego_chk_on_r1(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct sst_bytes *body, sst_time_t now);

#endif /* NEGO_INTERNAL_H */
