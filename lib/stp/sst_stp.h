/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * STP's shipping and negotiation of congestion-control modules (Patel et
 * al., SOSP 2003; docs/stp.md, "Shipping a module"): a host asks its peer
 * to run module H, the BLAKE2b-256 of the module's ELF image, for the
 * peer's sending direction of a channel (the receiver asks for a better
 * sender):
 *
 *   requester                 responder
 *   USE(H)          ---->     policy? cache?
 *                   <----     OK(H) | NO(H, reason) | SENDME(H)
 *   CODE(H, image)  ---->     hash, verify, load
 *                   <----     OK(H) | NO(H, reason)
 *
 * One struct sst_stp is one side of one such exchange on one control
 * stream. It is sans-IO: the caller feeds the bytes the stream delivered
 * (sst_stp_input()), writes the bytes it offers (sst_stp_tx_peek(),
 * sst_stp_tx_advance()), passes the time, and tells it when the stream
 * ended. The responder never loads or applies code itself: the caller's
 * hooks look a module up by hash, load one from bytes (drivers/cc/bpf),
 * and move the channel to it (sst_channel_set_cc()). A refused or failed
 * module leaves the channel on the controller it had.
 */
#ifndef SST_STP_H
#define SST_STP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sst_cc_driver.h"
#include "sst_time.h"

enum {
	SST_STP_HASH_LEN = 32, /**< BLAKE2b-256 */
	SST_STP_CODE_MAX =
		192 * 1024,	  /**< largest image shipped: 5 full entry points and the ELF */
	SST_STP_DETAIL_MAX = 160, /**< bytes of a NO's detail */
	SST_STP_PINNED_MAX = 16,  /**< identities a policy pins */
	SST_STP_KEY_LEN = 32,	  /**< an Ed25519 public key */
};

/** The service and protocol of the control stream an exchange runs on: a
 * top-level stream (a substream of the root) of the peer that asks. */
#define SST_STP_SERVICE "sst-stp"
#define SST_STP_PROTOCOL "cc" /**< see SST_STP_SERVICE */

/** How long a side waits for the next message before it gives up. */
#define SST_STP_TIMEOUT (10 * SST_NSEC_PER_SEC)

/** Message types (the first byte of every message). */
enum sst_stp_msg {
	SST_STP_MSG_USE = 1,	/**< requester: run module H */
	SST_STP_MSG_OK = 2,	/**< responder: H is in use */
	SST_STP_MSG_SENDME = 3, /**< responder: H is unknown here, send its image */
	SST_STP_MSG_CODE = 4,	/**< requester: the image */
	SST_STP_MSG_NO = 5,	/**< responder: refused (reason byte, detail) */
};

/** Why a responder said NO (the reason byte). */
enum sst_stp_reason {
	SST_STP_NO_POLICY = 1,	  /**< this host takes no code from that peer */
	SST_STP_NO_HASH = 2,	  /**< the code does not hash to H, or names another H */
	SST_STP_NO_INVALID = 3,	  /**< the ELF reader or a verifier refused the code */
	SST_STP_NO_TOO_LARGE = 4, /**< the code is longer than SST_STP_CODE_MAX */
	SST_STP_NO_FAILED = 5,	 /**< a sound module that could not be used (cache full, revoked) */
	SST_STP_NO_PROTOCOL = 6, /**< a message out of place or malformed */
};

/** Where an exchange is. */
enum sst_stp_state {
	SST_STP_WAIT_REPLY, /**< requester: USE or CODE sent */
	SST_STP_WAIT_USE,   /**< responder: nothing received yet */
	SST_STP_WAIT_CODE,  /**< responder: SENDME sent */
	SST_STP_ACCEPTED,   /**< OK sent or received: the peer runs (or we run) H */
	SST_STP_REFUSED,    /**< NO sent or received: sst_stp_reason(), sst_stp_detail() */
	SST_STP_FAILED,	    /**< malformed input, timeout, or the stream ended early */
};

/** Who may make this host run their code. */
enum sst_stp_policy_mode {
	SST_STP_DENY = 0,	  /**< nobody (the default) */
	SST_STP_ALLOW_PINNED = 1, /**< peers authenticated in secure mode with a pinned key */
	SST_STP_ALLOW_ALL = 2,	  /**< anybody, authenticated or not: tests and labs */
};

/** A host's policy for code its peers ship. */
struct sst_stp_policy {
	enum sst_stp_policy_mode mode; /**< who may ship code */
	unsigned int npinned;	       /**< entries of pinned used */
	/** SST_STP_ALLOW_PINNED: the Ed25519 identities whose code we run. */
	uint8_t pinned[SST_STP_PINNED_MAX][SST_STP_KEY_LEN];
};

/**
 * Whether the policy lets a peer make this host run its code.
 *
 * @param p
 *   The policy; NULL denies.
 * @param peer_id
 *   The peer's Ed25519 key as secure mode authenticated it, or NULL (or all
 *   zero: what negotiation reports for checksum mode) for an
 *   unauthenticated peer, whom only SST_STP_ALLOW_ALL admits.
 * @return
 *   true if allowed.
 */
bool sst_stp_policy_allows(const struct sst_stp_policy *p, const uint8_t *peer_id);

/**
 * Parse a policy name: "deny", "allow-all", or "pinned" (keys added with
 * sst_stp_policy_pin()).
 * @param p The policy, reset to the named mode with nothing pinned.
 * @param name The name.
 * @return 0, or -EINVAL (NULL argument or an unknown name).
 */
int sst_stp_policy_parse(struct sst_stp_policy *p, const char *name);

/**
 * Pin one more identity.
 * @param p The policy.
 * @param key The Ed25519 public key (copied).
 * @return 0, -EINVAL (NULL) or -ENOSPC (SST_STP_PINNED_MAX pinned).
 */
int sst_stp_policy_pin(struct sst_stp_policy *p, const uint8_t key[SST_STP_KEY_LEN]);

/** What a responder calls to find, load and use a module. */
struct sst_stp_hooks {
	/** The module of hash @p hash if this host has it loaded and usable, or NULL.
	 * @param ctx sst_stp_hooks.ctx.
	 * @param hash The module's hash.
	 * @return The module's ops, or NULL.
	 */
	const struct sst_cc_ops *(*lookup)(void *ctx, const uint8_t *hash);
	/** Verify and load an image whose hash was checked; NULL with a reason in @p err.
	 * @param ctx sst_stp_hooks.ctx.
	 * @param code The module's image.
	 * @param len Its length.
	 * @param err Where to write why it was refused.
	 * @param errlen Bytes of @p err.
	 * @return The module's ops, or NULL.
	 */
	const struct sst_cc_ops *(*load)(
		void *ctx, const uint8_t *code, size_t len, char *err, size_t errlen);
	/** Move the channel to @p ops; 0 or a negative errno (the channel keeps its own).
	 * @param ctx sst_stp_hooks.ctx.
	 * @param ops The controller to move to.
	 * @param now Current time.
	 * @return 0, or a negative errno.
	 */
	int (*apply)(void *ctx, const struct sst_cc_ops *ops, sst_time_t now);
	void *ctx; /**< passed to every hook */
};

struct sst_stp;

/** Bytes of caller memory one exchange needs.
 * @return That size, its receive buffer included. */
size_t sst_stp_size(void);

/**
 * Start a requester in @p mem (sst_stp_size() bytes, 8-byte aligned): it
 * offers USE(@p hash) at once and ships @p code if the peer answers SENDME.
 *
 * @param mem
 *   Caller memory.
 * @param hash
 *   The module's BLAKE2b-256.
 * @param code, len
 *   Its ELF image, which must stay valid until the exchange ends; NULL/0 if
 *   this host can only ask for a module the peer has (a SENDME then fails
 *   the exchange).
 * @param now
 *   Current time: the reply is awaited until now + SST_STP_TIMEOUT.
 * @return
 *   The exchange, or NULL (NULL mem or hash, len > SST_STP_CODE_MAX).
 */
struct sst_stp *sst_stp_request(
	void *mem, const uint8_t *hash, const uint8_t *code, size_t len, sst_time_t now);

/**
 * Start a responder in @p mem for a peer of identity @p peer_id (see
 * sst_stp_policy_allows(); copied) under @p policy (kept by pointer) with
 * @p hooks (copied). It waits for USE until now + SST_STP_TIMEOUT.
 * @param mem Caller memory (sst_stp_size() bytes, 8-byte aligned).
 * @param policy Who may ship code; kept by pointer, so it must outlive
 *   the exchange.
 * @param peer_id The peer's Ed25519 key, or NULL (unauthenticated).
 * @param hooks The caller's lookup, load and apply.
 * @param now Current time.
 * @return
 *   The exchange, or NULL (NULL mem, policy or hooks, or a hook missing).
 */
struct sst_stp *sst_stp_respond(void *mem, const struct sst_stp_policy *policy,
	const uint8_t *peer_id, const struct sst_stp_hooks *hooks, sst_time_t now);

/**
 * Feed bytes the control stream delivered, in order. Complete messages
 * are acted on at once (a responder's hooks run from here).
 * @param st The exchange.
 * @param data The bytes (read during the call only).
 * @param len Bytes at @p data.
 * @param now Current time.
 * @return
 *   0, or a negative errno once the exchange failed (-EPROTO malformed or
 *   out of place, -EFBIG code too long): the caller should send what is
 *   offered (a NO) and end the stream.
 */
int sst_stp_input(struct sst_stp *st, const uint8_t *data, size_t len, sst_time_t now);

/**
 * The stream ended (the peer closed or reset it): an exchange not finished
 * fails (a module cut short is never loaded).
 * @param st The exchange.
 * @param now Current time.
 */
void sst_stp_input_end(struct sst_stp *st, sst_time_t now);

/**
 * The next bytes to write on the stream.
 * @param st The exchange.
 * @param data
 *   Receives a pointer to them (valid until the next call on @p st).
 * @return
 *   How many (0: nothing to send now).
 */
size_t sst_stp_tx_peek(struct sst_stp *st, const uint8_t **data);

/** Some of the offered bytes were written.
 * @param st The exchange.
 * @param n How many; at most what sst_stp_tx_peek() offered. */
void sst_stp_tx_advance(struct sst_stp *st, size_t n);

/** When the exchange gives up waiting.
 * @param st The exchange.
 * @return The deadline; SST_TIME_NEVER once it ended. */
sst_time_t sst_stp_next_expiry(const struct sst_stp *st);

/** Give up if the deadline passed (the exchange fails).
 * @param st The exchange.
 * @param now Current time. */
void sst_stp_handle_expiry(struct sst_stp *st, sst_time_t now);

/**
 * Wait @p timeout rather than SST_STP_TIMEOUT for each message: the wait
 * under way, if any, now ends at @p now + @p timeout.
 * @param st
 *   The exchange.
 * @param timeout
 *   Nanoseconds, not 0 nor SST_TIME_NEVER.
 * @param now
 *   Current time.
 * @return
 *   0, or -EINVAL for a timeout of 0 or SST_TIME_NEVER.
 */
int sst_stp_set_timeout(struct sst_stp *st, sst_time_t timeout, sst_time_t now);

/** Where the exchange is.
 * @param st The exchange.
 * @return Its state. */
enum sst_stp_state sst_stp_state(const struct sst_stp *st);

/** Whether the exchange is over.
 * @param st The exchange.
 * @return True when it ended (accepted, refused or failed) and its bytes
 *   were all sent. */
bool sst_stp_done(const struct sst_stp *st);

/** The reason of a NO sent or received.
 * @param st The exchange.
 * @return The reason, or 0 without a NO. */
enum sst_stp_reason sst_stp_reason(const struct sst_stp *st);

/** A short name for a reason.
 * @param r A reason.
 * @return "policy", "hash", ... (static strings); "none" for 0,
 *   "unknown" outside the enum. */
const char *sst_stp_reason_name(enum sst_stp_reason r);

/** Whether a requester shipped the code.
 * @param st The exchange.
 * @return True when the peer answered SENDME and CODE was offered. */
bool sst_stp_code_shipped(const struct sst_stp *st);

/** A readable account of the outcome.
 * @param st The exchange.
 * @return The NO's detail, or why it failed; "" otherwise. Valid as long
 *   as @p st. */
const char *sst_stp_detail(const struct sst_stp *st);

/** The module the exchange is about.
 * @param st The exchange.
 * @return Its SST_STP_HASH_LEN-byte hash, inside @p st (all zero before a
 *   responder saw USE). */
const uint8_t *sst_stp_hash(const struct sst_stp *st);

/** Whether a responder received the code.
 * @param st The exchange.
 * @return True when CODE arrived; false: found in its cache, or none came. */
bool sst_stp_code_received(const struct sst_stp *st);

/** Process-wide counters of the exchanges (telemetry, /sst/stp). */
struct sst_stp_counters {
	uint64_t requested; /**< USE sent */
	uint64_t shipped;   /**< CODE sent */
	uint64_t accepted;  /**< OK received */
	uint64_t refused;   /**< NO received */
	uint64_t used;	    /**< responder: modules put in use (OK sent) */
	uint64_t cached;    /**< of which found by hash without SENDME */
	uint64_t denied;    /**< responder: NO sent, any reason */
	uint64_t failed;    /**< either side: malformed, timeout, cut short */
};

/** Read the counters (relaxed: each is exact, the set is not a snapshot);
 * rte_telemetry shows them as /sst/stp. Any thread.
 * @param c Filled in. */
void sst_stp_counters(struct sst_stp_counters *c);

#endif /* SST_STP_H */
