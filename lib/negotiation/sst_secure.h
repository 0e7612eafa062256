/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Secure-mode configuration (docs/secure-mode.md): the host identity, the
 * known-hosts table, the acceptable armor suites and the randomness source
 * that an application gives the negotiation layer (the secure member
 * of struct sst_nego_host_params). The handshake itself is internal to lib/negotiation.
 *
 * The identity and known-hosts structs live in caller memory; the library
 * only reads them during a handshake, so they must outlive every host that
 * uses them and must not change while one runs. The file functions do file
 * I/O and run at setup, never per packet.
 */
#ifndef SST_SECURE_H
#define SST_SECURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sst_crypto_driver.h"

enum {
	SST_SECURE_VERSION = 1,	     /**< version of the secure-mode messages */
	SST_SECURE_KEY_LEN = 32,     /**< X25519 and Ed25519 public keys, nonces, hashes */
	SST_SECURE_SIG_LEN = 64,     /**< Ed25519 signature */
	SST_SECURE_TAG_LEN = 16,     /**< ChaCha20-Poly1305 tag of a sealed block */
	SST_SECURE_HCID_LEN = 16,    /**< half-channel ID (stream-layer USIDs) */
	SST_SECURE_COOKIE_LEN = 16,  /**< the cookies we make */
	SST_SECURE_COOKIE_MAX = 64,  /**< wire bound on a cookie */
	SST_SECURE_ULP_MAX = 256,    /**< wire bound on an upper-layer blob */
	SST_SECURE_OFFER_MAX = 8,    /**< wire bound on the suite offer */
	SST_SECURE_NAME_MAX = 64,    /**< known-hosts name, NUL included */
	SST_SECURE_SUITES_MAX = 4,   /**< suites in a configuration */
	SST_SECURE_CHUNK_MAX = 512,  /**< largest chunk body we build */
	SST_SECURE_CHALLENGED = 1,   /**< sst_secure_responder_on_i1(): sent SecCookie */
	SST_SECURE_REFUSED = 2,	     /**< sst_secure_refusal(): sent SecRefuse */
	SST_SECURE_R1_HEAD_LEN = 104 /**< SecR1 bytes before the sealed block */
};

/** Randomness source: fill buf with len unpredictable bytes. It cannot
 * fail; ctx is the configuration's random_ctx.
 * @param ctx The configuration's random_ctx.
 * @param buf Where to write.
 * @param len Bytes to write.
 */
typedef void (*sst_secure_random_fn)(void *ctx, void *buf, size_t len);

/** The production randomness source: libsodium's randombytes_buf().
 * @param ctx Unused.
 * @param buf Output.
 * @param len Bytes to fill. */
void sst_secure_random_sodium(void *ctx, void *buf, size_t len);

/** An Ed25519 host identity. */
struct sst_secure_identity {
	uint8_t pk[SST_SECURE_KEY_LEN]; /**< the public key */
	uint8_t sk[64];			/**< libsodium form: seed || pk */
};

/** An entry of the known-hosts table: a name and the key pinned for it. */
struct sst_secure_host {
	uint8_t pk[SST_SECURE_KEY_LEN]; /**< the pinned Ed25519 key */
	char name[SST_SECURE_NAME_MAX]; /**< the host's name, NUL-terminated */
};

/** Known-hosts table in caller memory: {hosts, cap, 0} is an empty one. */
struct sst_secure_known_hosts {
	struct sst_secure_host *hosts; /**< the entries (the caller's array) */
	uint32_t cap;		       /**< entries hosts has room for */
	uint32_t n;		       /**< entries in use */
};

/** How to treat a peer key that the known-hosts table does not list. */
enum sst_secure_policy {
	SST_SECURE_PINNED = 0, /**< reject it */
	SST_SECURE_TOFU,       /**< accept it; the result says to remember it */
};

/** What the handshake learnt about the peer. */
enum sst_secure_peer {
	SST_SECURE_PEER_KNOWN = 0, /**< listed in known-hosts */
	SST_SECURE_PEER_NEW,	   /**< unlisted, accepted by TOFU: append it */
	SST_SECURE_PEER_ANONYMOUS, /**< initiator without identity (responder only) */
	SST_SECURE_PEER_UNKNOWN,   /**< lookup only: no entry for this name/key */
	SST_SECURE_PEER_MISMATCH,  /**< lookup only: the name is pinned to another key */
};

/** Configuration of one endpoint; may be shared by many handshakes. */
struct sst_secure_config {
	uint32_t size; /**< sizeof(struct sst_secure_config) */
	/** Our identity; NULL makes an anonymous initiator (a responder needs one). */
	const struct sst_secure_identity *identity;
	enum sst_secure_policy policy; /**< unlisted peer keys: rejected or TOFU */
	bool allow_anonymous;	       /**< responder: accept initiators without identity */
	/** Pinned peer keys; NULL is an empty table. Read only here. */
	const struct sst_secure_known_hosts *known_hosts;
	/**
	 * Acceptable suites, cheapest first: the initiator offers them, the
	 * responder picks the first of its list that the offer contains.
	 * SST_CRYPTO_NULL is never acceptable.
	 */
	uint8_t nsuites;
	enum sst_crypto_suite suites[SST_SECURE_SUITES_MAX]; /**< see nsuites */
	sst_secure_random_fn random; /**< sst_secure_random_sodium in production */
	void *random_ctx;	     /**< first argument of random */
};

/**
 * Fill cfg->suites with the default cost order: CHK32 first when allowed,
 * then AES-128-GCM before ChaCha20-Poly1305 on hardware with AES
 * instructions, the other way round without.
 * @param cfg The configuration; suites and nsuites are set.
 * @param aes_hw The CPU has AES instructions.
 * @param allow_chk32 Put CHK32 (no confidentiality) first.
 */
void sst_secure_suites_default(struct sst_secure_config *cfg, bool aes_hw, bool allow_chk32);

/**
 * Check a configuration (done by every handshake entry point).
 * @param cfg The configuration.
 * @param responder Check it for the responder role too.
 * @return 0, or -EINVAL (size, no randomness, no or bad suites, a responder
 * role without identity when @p responder).
 */
int sst_secure_config_check(const struct sst_secure_config *cfg, bool responder);

/** Make an identity from a 32-byte seed.
 * @param id Filled in (wipe it with sst_secure_identity_wipe()).
 * @param seed The secret seed.
 * @return 0, or -EINVAL (libsodium failed). */
int sst_secure_identity_from_seed(struct sst_secure_identity *id, const uint8_t seed[32]);

/** Wipe an identity.
 * @param id The identity, zeroed. */
void sst_secure_identity_wipe(struct sst_secure_identity *id);

/**
 * Load an identity key file (64 hex digits of the seed and a newline).
 * @param path The file.
 * @param id Filled in on success.
 * @return 0, -ENOENT, -EPERM (group or others may access the file),
 *   -EINVAL (malformed), or another -errno from the file system.
 */
int sst_secure_identity_load(const char *path, struct sst_secure_identity *id);

/**
 * Load the identity key file, creating it (mode 0600, never overwriting) with
 * a fresh seed if it does not exist (if another process creates it at the
 * same time, its key is loaded).
 * @param path The file.
 * @param random Randomness for the seed.
 * @param random_ctx First argument of @p random.
 * @param id Filled in on success.
 * @return 0 (loaded), 1 (created by this call), or an error of sst_secure_identity_load()
 *   or of the file creation.
 */
int sst_secure_identity_load_or_create(const char *path, sst_secure_random_fn random,
	void *random_ctx, struct sst_secure_identity *id);

/**
 * Add an entry in memory.
 * @param kh The table.
 * @param name The host's name (copied).
 * @param pk Its key (copied).
 * @return 0, -EINVAL (name empty, too long, or with spaces or control
 *   characters), -ENOSPC (table full).
 */
int sst_secure_known_hosts_add(
	struct sst_secure_known_hosts *kh, const char *name, const uint8_t pk[SST_SECURE_KEY_LEN]);

/**
 * Look a peer up: KNOWN if an entry has this key (and this name, unless name
 * is NULL), MISMATCH if the name is listed only with other keys, else UNKNOWN.
 * @param kh The table (not NULL).
 * @param name The name the peer should have, or NULL: any.
 * @param pk The peer's key.
 * @return SST_SECURE_PEER_KNOWN, _MISMATCH or _UNKNOWN.
 */
enum sst_secure_peer sst_secure_known_hosts_lookup(const struct sst_secure_known_hosts *kh,
	const char *name, const uint8_t pk[SST_SECURE_KEY_LEN]);

/**
 * Replace the table with a known-hosts file: lines "KEY NAME" (KEY: 64 hex
 * digits), blank lines and lines starting with '#' ignored. A missing file
 * is an empty table.
 * @param kh The table; its array stays, entries are replaced.
 * @param path The file.
 * @return 0, -EINVAL (malformed line; the table is then empty), -ENOSPC
 *   (more entries than cap; empty too), -EIO, or another -errno from the
 *   file system.
 */
int sst_secure_known_hosts_load(struct sst_secure_known_hosts *kh, const char *path);

/**
 * Append an entry to a known-hosts file (created with mode 0600 if missing),
 * after a TOFU handshake reported SST_SECURE_PEER_NEW.
 * @param path The file.
 * @param name The host's name.
 * @param pk Its key.
 * @return 0, -EINVAL (bad name), or an -errno from the file system.
 */
int sst_secure_known_hosts_append(
	const char *path, const char *name, const uint8_t pk[SST_SECURE_KEY_LEN]);

#endif /* SST_SECURE_H */
