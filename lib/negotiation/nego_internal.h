/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internals of the negotiation host (never installed). nego_host.c owns the
 * object: lifecycle, timers, message dispatch and the ulp blob; nego_table.c
 * the bounded table of negotiations. Each mode implements its protocol steps in its
 * own file (nego_checksum.c for ChkI1/ChkR1, nego_secure_host.c for the
 * secure-mode messages) behind the chunk handlers and the entry kinds
 * declared here; nego_load.c holds load detection, the cookie secret and
 * the amplification budget, nego_ratelimit.c the per-source rate limiter,
 * nego_restart.c the peer instance records of restart detection and
 * nego_steer.c the stateless steering-tag parser.
 */
#ifndef NEGO_INTERNAL_H
#define NEGO_INTERNAL_H

#include <stdint.h>

#include <sodium.h>

#include "nego_secure.h"
#include "nego_wire.h"
#include "sst_negotiation.h"

enum {
	/** Largest message we build: one chunk with a ulp blob. */
	NEGO_TX_MAX = 128,
	NEGO_NONE = UINT32_MAX, /**< "no entry" index */
	NEGO_HASH_KEY_LEN = 16, /**< SipHash key (crypto_shorthash) */
	/** Index slot flag: the slot holds an entry's second key. */
	NEGO_SLOT_ALT = 1u << 31,
	/** A stored secure message: header, one chunk, its largest body. */
	NEGO_SEC_MSG_MAX = SST_NEGO_HDR_LEN + 8 + SST_SECURE_CHUNK_MAX,
	/** Ways of the rate limiter's set-associative table. */
	NEGO_RATE_WAYS = 4,
};

/** What a table entry is. */
enum nego_kind {
	NEGO_KIND_FREE = 0,
	/** Our open attempt, keyed by (peer, our key cki). */
	NEGO_KIND_INIT,
	/** A peer-initiated channel, keyed by (peer, peer's channel number). */
	NEGO_KIND_RESP,
	/** Second key of a secure RESP entry: (peer, first word of nr). */
	NEGO_KIND_NONCE,
	/** Second key of a half-open checksum RESP entry: (peer, local
	 * channel), for sst_nego_confirm(). */
	NEGO_KIND_CHAN,
	/** Not an entry: the hash domain of peer records (nego_restart.c). */
	NEGO_KIND_PEER,
};

/** Where a secure-mode entry is (0 for checksum mode). */
enum nego_phase {
	NEGO_PH_NONE = 0,
	NEGO_PH_I1,   /**< INIT: SecI1 sent, waiting for SecR1 or SecCookie */
	NEGO_PH_I2,   /**< INIT: established, repeating SecI2 until confirmed */
	NEGO_PH_HALF, /**< RESP: SecR1 sent, waiting for SecI2 (half-open) */
	NEGO_PH_DONE, /**< RESP: SecI2 verified, channel established */
	/** Checksum RESP: ChkR1 sent, channel established, nothing heard
	 * from the initiator yet (half-open for load detection). */
	NEGO_PH_UNHEARD,
};

/** One negotiation, ours or a peer's. */
struct nego_entry {
	uint64_t hash; /**< of (kind, peer, id) under the host's hash key */
	struct sst_nego_addr peer;
	uint8_t kind; /**< enum nego_kind */
	uint8_t mode; /**< enum sst_nego_mode */
	uint8_t local_channel;
	uint8_t peer_channel; /**< RESP: chani; INIT: 0 until established (secure: chanr) */
	uint32_t id;	      /**< the hashed id: INIT cki (checksum) or ni word, RESP chani */
	uint32_t cki;	      /**< initiator's key */
	uint32_t ckr;	      /**< responder's key (RESP only) */
	uint32_t prev_cki;    /**< checksum RESP: the key of the entry this one replaced, or 0 */
	uint32_t pos;	      /**< INIT: position in the host's attempt list */
	uint32_t next_free;   /**< free-list link while FREE */
	uint64_t instance;    /**< RESP: the instance the initiator's I1 claimed; 0: none */
	sst_time_t created;   /**< first message sent or accepted */
	sst_time_t last_tx;   /**< INIT: latest I1 sent */
	sst_time_t next_tx;   /**< INIT: next retransmission */
	uint64_t interval;    /**< INIT: current retransmission interval */
	uint64_t hash2;	      /**< RESP: hash of its second key */
	uint32_t id2;	      /**< RESP: secure: first word of nr; checksum: local channel */
	uint8_t alt_kind;     /**< indexed under (alt_kind, peer, id2) too; 0: not */
	uint8_t phase;	      /**< enum nego_phase */
	uint8_t validated;    /**< RESP: address proven (cookie or SecI2) */
	uint8_t cookies;      /**< INIT: cookie requests answered */
	uint8_t cookie_len;   /**< checksum INIT: the cookie our ChkI1 carries, or 0 */
	uint8_t cookie[SST_NEGO_COOKIE_LEN];
	uint32_t hprev; /**< half-open list (creation order), or NEGO_NONE */
	uint32_t hnext;
};

/**
 * Secure-mode state of an entry (a parallel array, present only when the
 * host has a secure configuration): the handshake core's state, the nonces
 * that name the handshake, the amplification budget, and the message we
 * repeat (INIT: SecI1 or SecI2; RESP: SecR1) byte for byte.
 */
struct nego_sec {
	union {
		struct sst_secure_initiator i;
		struct sst_secure_responder r;
	} st;
	uint8_t ni[SST_SECURE_KEY_LEN];
	uint8_t nr[SST_SECURE_KEY_LEN]; /**< RESP */
	uint32_t rx_bytes;		/**< RESP: received from the address before validation */
	uint32_t tx_bytes;		/**< RESP: sent to it before validation */
	uint16_t msg_len;
	/** INIT: SecI1, then SecI2; RESP: SecR1, then (established) the body
	 * of the SecI2 that verified, to recognise its repetitions. */
	uint8_t msg[NEGO_SEC_MSG_MAX];
};

/**
 * Restart detection (docs/negotiation.md section 3.1): what a peer address
 * told us about its instance, and which of our channels with it were
 * established under that instance and not yet released. Records are keyed
 * by address (local channel numbers are unique per address among live
 * channels, so sst_nego_release() finds a channel's bit by address and
 * number alone); the principal (mode, and the secure identity) must match
 * for an instance change to count as a restart.
 */
struct nego_peer {
	uint64_t hash; /**< of the address under the host's hash key */
	uint64_t instance;
	/** The instance the last restart replaced (0: none): a late message
	 * of that dead process is not a restart back to it. */
	uint64_t prev_instance;
	struct sst_nego_addr peer;
	uint8_t mode;	    /**< enum sst_nego_mode of the channels */
	uint16_t nchan;	    /**< bits set in chans */
	uint32_t next_free; /**< free-list link while unused */
	uint64_t chans[4];  /**< local channel numbers 0..255 */
	uint8_t id
		[SST_SECURE_KEY_LEN]; /**< secure: the peer's Ed25519 key; zero in checksum mode */
};

/** One source of the rate limiter (GCRA: theoretical arrival time). */
struct nego_rate {
	uint64_t tag; /**< keyed hash of the source, 0: empty */
	uint64_t tat; /**< ns; the source may send when tat - tolerance <= now */
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
	uint32_t *index;	    /**< index_mask + 1 slots: entry + 1 (| ALT), or 0 */
	uint32_t *attempts;	    /**< max_initiating: indexes of INIT entries */
	uint8_t txbuf[NEGO_TX_MAX];
	/* Secure mode (sec == NULL without a secure configuration). */
	struct nego_sec *sec; /**< nentries, parallel to entries */
	struct sst_secure_config sec_cfg;
	bool sec_responder; /**< we have an identity: we answer SecI1 */
	/* Load (nego_load.c): told, or detected on the half-open count. */
	bool load_told;
	bool load_seen;
	uint32_t load_high;
	uint32_t load_low;
	/* The cookie secret of both modes' challenges; its random source is
	 * the secure configuration's, or one derived from the secret. */
	struct sst_secure_cookie_secret cookie;
	uint64_t cookie_period;
	sst_secure_random_fn cookie_random;
	void *cookie_random_ctx;
	uint64_t cookie_draws; /**< derived source: secrets drawn so far */
	uint32_t max_half_open;
	uint32_t n_unheard; /**< RESP entries in NEGO_PH_UNHEARD */
	uint32_t n_half;    /**< RESP entries in NEGO_PH_HALF */
	uint32_t n_confirm; /**< INIT entries in NEGO_PH_I2 */
	uint32_t half_head; /**< oldest half-open entry, or NEGO_NONE */
	uint32_t half_tail;
	uint8_t amp_factor;
	/* The message being received: its bytes give one amplification budget. */
	uint32_t rx_budget;
	uint8_t pkt_chan; /**< channel whose SecI2 this message verified, or 0 */
	/* Rate limiter of ChkI1/SecI1 per source. */
	struct nego_rate *rate; /**< rate_mask + 1 slots */
	uint32_t rate_mask;
	uint8_t rate_prefix;
	uint64_t rate_interval;	 /**< ns per first message */
	uint64_t rate_tolerance; /**< (burst - 1) x interval */
	uint8_t rate_key[NEGO_HASH_KEY_LEN];
	/* Our instance; steering tag; SecI2 with Packet chunks. */
	uint64_t instance;
	uint8_t steer_tag;
	uint8_t steer_bits;
	uint16_t early_max;
	uint8_t *early_buf; /**< early_max bytes (secure mode only) */
	/* Restart detection: peer records, indexed by address. */
	struct nego_peer *peers; /**< max_peers */
	uint32_t *peer_index;	 /**< peer_mask + 1 slots: record + 1, or 0 */
	uint32_t peer_mask;
	uint32_t max_peers;
	uint32_t n_peers;
	uint32_t peer_free;
	/** nego_restart_check() to _commit(): the instance a reported restart
	 * replaces (the caller may free the record in between by releasing
	 * the stale channels from established(); the pair never nests). */
	uint64_t restart_prev;
};

/* --- nego_table.c: the table, for the host and the mode files --- */

/** SipHash of (kind, peer, id) under the host's index key. */
uint64_t nego_hash(const struct sst_nego_host *h, enum nego_kind kind,
	const struct sst_nego_addr *peer, uint32_t id);

/** Our checksum key cki with the steering tag in its low bits. */
static inline uint32_t
nego_steer_key(const struct sst_nego_host *h, uint32_t key)
{
	uint32_t mask = (1u << h->steer_bits) - 1;

	return (key & ~mask) | h->steer_tag;
}

/** Find the entry of (kind, peer, id). @return it, or NULL. */
struct nego_entry *nego_lookup(struct sst_nego_host *h, enum nego_kind kind,
	const struct sst_nego_addr *peer, uint32_t id);

/**
 * Take a free entry and index it under (kind, peer, id). The caller checked
 * the per-kind limit and that the key is absent. @return it, or NULL.
 */
struct nego_entry *nego_insert(struct sst_nego_host *h, enum nego_kind kind,
	const struct sst_nego_addr *peer, uint32_t id);

/** Remove an entry from the index (and the attempt list, the half-open
 * list) and free it. Its secure state is wiped. */
void nego_remove(struct sst_nego_host *h, struct nego_entry *e);

/** Index a RESP entry under its second key (kind, peer, id2). */
void nego_index_alt(
	struct sst_nego_host *h, struct nego_entry *e, enum nego_kind kind, uint32_t id2);

/** A checksum RESP entry whose ChkR1 went out becomes half-open
 * (NEGO_PH_UNHEARD), findable by (peer, local channel). */
void nego_unheard_link(struct sst_nego_host *h, struct nego_entry *e);

/** The initiator was heard (or the entry goes): no longer half-open. No-op
 * for an entry in another phase. */
void nego_unheard_unlink(struct sst_nego_host *h, struct nego_entry *e);

/** Append a RESP entry to the half-open list (it becomes NEGO_PH_HALF). */
void nego_half_link(struct sst_nego_host *h, struct nego_entry *e);

/** Take an entry off the half-open list (no-op if it is not on it). */
void nego_half_unlink(struct sst_nego_host *h, struct nego_entry *e);

/** The secure state of an entry (the host has a secure configuration). */
static inline struct nego_sec *
nego_sec_of(struct sst_nego_host *h, const struct nego_entry *e)
{
	return &h->sec[e - h->entries];
}

/** Big-endian word from 4 bytes (table ids of nonces). */
static inline uint32_t
nego_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/** Recompute the cached next expiry after an attempt's timer changed. */
void nego_rearm(struct sst_nego_host *h);

/* --- nego_load.c: protection under load (docs/negotiation.md 5) --- */

/** load_high and load_low from the parameters (0: the defaults).
 * @return 0, or -EINVAL when load_low is not below load_high. */
int nego_load_thresholds(const struct sst_nego_host_params *p, uint32_t max_responding,
	uint32_t *high, uint32_t *low);

/** Thresholds and the cookie secret, at init (h->secret and the secure
 * configuration are set). */
void nego_load_init(struct sst_nego_host *h, const struct sst_nego_host_params *p);

/** Whether the host is under load (told or detected). */
static inline bool
nego_under_load(const struct sst_nego_host *h)
{
	return h->load_told || h->load_seen;
}

/** The half-open count changed: go under load, or leave it, with
 * hysteresis; count the transitions. */
void nego_load_update(struct sst_nego_host *h);

/** Rotate the cookie secret when its period has passed. */
void nego_cookie_rotate(struct sst_nego_host *h, sst_time_t now);

/**
 * The amplification budget (5.2) of an answer to an unvalidated address:
 * @p len bytes against the @p budget bytes of the message it answers.
 * Counts amp_rx_bytes (the budget), and amp_tx_bytes or amp_limited.
 * @return true if the answer may be sent.
 */
bool nego_amp_allow(struct sst_nego_host *h, uint32_t budget, size_t len);

/* --- nego_ratelimit.c: setups per source under load --- */

/** Bytes of the limiter's table for this many slots (a power of two). */
size_t nego_rate_size(uint32_t slots);

/** Set the limiter up over its table (zeroed by the host). */
void nego_rate_init(struct sst_nego_host *h, struct nego_rate *table, uint32_t slots,
	uint32_t per_sec, uint32_t burst, uint8_t prefix);

/**
 * Charge one setup (a cookie-proven ChkI1/SecI1 under load) to its source.
 * @return true if it is within the source's rate; false: drop it (counted
 * by the caller).
 */
bool nego_rate_allow(struct sst_nego_host *h, const struct sst_nego_addr *peer, sst_time_t now);

/* --- nego_restart.c: peer instances (docs/negotiation.md section 3.1) --- */

/** Bytes of the records and their index for max records (index slots a power of two). */
size_t nego_peers_size(uint32_t max, uint32_t *slots);

/** Set up the records in memory of nego_peers_size() bytes (zeroed). */
void nego_peers_init(struct sst_nego_host *h, void *mem, uint32_t max, uint32_t slots);

/**
 * Before established(): fill r->peer_instance_known, peer_instance,
 * peer_restarted and peer_stale from r->peer_ulp, r->peer, r->mode and
 * r->peer_id.
 */
void nego_restart_check(struct sst_nego_host *h, struct sst_nego_result *r);

/** True when a first message with this ulp blob comes from a new instance
 * of a peer we hold channels with, not the one its last restart replaced
 * (checksum mode: it may replace the earlier instance's negotiation entry
 * at once, within the 20 s that otherwise make it a stray). */
bool nego_restart_claimed(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	enum sst_nego_mode mode, const struct sst_nego_ulp *ulp);

/** True when an I1 with this ulp blob that names the number of entry @p e
 * (another key or nonce) comes from a new process at the peer's address:
 * e's handshake is over (not half-open), the I1 claims an instance and
 * e's initiator claimed another, and it is not the instance the peer's
 * last restart replaced. It may then replace e at once, in either mode,
 * within the 20 s that otherwise make it a stray (docs/negotiation.md 3.1). */
bool nego_restart_supersedes(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct nego_entry *e, const struct sst_nego_ulp *ulp);

/** After established() accepted r: record its channel under the peer's instance. */
void nego_restart_commit(struct sst_nego_host *h, const struct sst_nego_result *r);

/**
 * Report a new channel to the caller: established() between
 * nego_restart_check() and, when it accepts, nego_restart_commit(). @p r
 * (it holds the channel's keys) is wiped. @return established()'s rc (a
 * negative one: the caller refused the channel).
 */
int nego_report_established(struct sst_nego_host *h, struct sst_nego_result *r, sst_time_t now);

/** A channel ended: it no longer holds the record of its address. */
void nego_restart_release(
	struct sst_nego_host *h, const struct sst_nego_addr *peer, uint8_t local_channel);

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

/* --- nego_secure_host.c: secure mode (docs/secure-mode.md) --- */

/**
 * Initiator: start a secure attempt with local channel chan: draw the
 * handshake, insert the INIT entry keyed by (peer, first word of ni) and
 * store its SecI1 (the caller sends it). @return the entry, or NULL
 * (-ENOSPC: table; other errors: the core's) with *err set.
 */
struct nego_entry *nego_sec_begin(
	struct sst_nego_host *h, const struct sst_nego_addr *peer, uint8_t chan, int *err);

/** (Re)send an attempt's stored message: SecI1, or SecI2 once established. */
void nego_sec_send(struct sst_nego_host *h, struct nego_entry *e, sst_time_t now);

/** Responder: a SecI1 chunk. */
void nego_sec_on_i1(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct sst_bytes *body, sst_time_t now);

/** Responder: a SecI2 chunk. */
void nego_sec_on_i2(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct sst_bytes *body, sst_time_t now);

/** Responder: a Packet chunk (valid only right after a verified SecI2). */
void nego_sec_on_packet(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct sst_bytes *body, sst_time_t now);

/** Initiator: a SecR1 chunk. */
void nego_sec_on_r1(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct sst_bytes *body, sst_time_t now);

/** Initiator: send the attempt's SecI2 again with a Packet chunk (the
 * attempt is in NEGO_PH_I2). @return as sst_nego_send_early(). */
int nego_sec_send_early(
	struct sst_nego_host *h, struct nego_entry *e, const void *pkt, size_t len, sst_time_t now);

/** Initiator: a SecCookie chunk. */
void nego_sec_on_cookie(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct sst_bytes *body, sst_time_t now);

/** Initiator: a SecRefuse chunk; a believed one ends the attempt with
 * ops.failed(-ENOTSUP). */
void nego_sec_on_refuse(struct sst_nego_host *h, const struct sst_nego_addr *peer,
	const struct sst_bytes *body, sst_time_t now);

/** Responder: expire half-open entries older than SST_NEGO_HALF_OPEN_TTL. */
void nego_sec_expire(struct sst_nego_host *h, sst_time_t now);

/** When nego_sec_expire() must next run, or SST_TIME_NEVER. */
sst_time_t nego_sec_next_expiry(const struct sst_nego_host *h);

#endif /* NEGO_INTERNAL_H */
