/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The contract between the channel layer and its armor ("crypto") drivers
 * (paper 4.2.3; docs/wire-format.md sections 3 and 7; docs/channel-crypto.md).
 * A driver implements one or more suites; the channel picks a suite once, at
 * creation, and then calls that suite's burst functions through these
 * pointers, so the per-packet path never switches on the suite.
 *
 * Packet layout handed to a suite: a complete channel packet, channel header
 * first. Bytes 0-3 (channel number and low sequence bits) are always sent in
 * clear because the receiver needs them to find the channel and rebuild the
 * sequence number before it can open the packet; AEAD suites authenticate
 * them as associated data and encrypt everything after them. The trailer
 * (trailer_len bytes: a checksum or an authentication tag) goes at the end.
 *
 * Nonces: AEAD suites build a 96-bit nonce as the direction's 12-byte IV
 * XORed with the 64-bit sequence number (big-endian, in the last 8 bytes).
 * The channel never reuses a sequence number under one key, so a nonce is
 * never reused; the channel asks for a replacement before packet_limit.
 *
 * Registration happens in RTE_INIT constructors, before main(), on one
 * thread; lookups come later. The registry therefore takes no locks, and it
 * keeps pointers to the ops, which must have static storage.
 */
#ifndef SST_CRYPTO_DRIVER_H
#define SST_CRYPTO_DRIVER_H

#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

/** What a suite does to a packet; several drivers may implement one suite. */
enum sst_crypto_suite {
	SST_CRYPTO_NULL = 0,	     /**< no trailer, no protection: tests only */
	SST_CRYPTO_CHK32,	     /**< prototype-compatible keyed checksum */
	SST_CRYPTO_AES128GCM,	     /**< AES-128-GCM, 16-byte tag */
	SST_CRYPTO_CHACHA20POLY1305, /**< ChaCha20-Poly1305 (RFC 8439), 16-byte tag */
	SST_CRYPTO_SUITE_COUNT,	     /**< number of suites */
};

enum {
	SST_CRYPTO_KEY_MAX = 32,     /**< bytes of the largest key */
	SST_CRYPTO_IV_LEN = 12,	     /**< bytes of an AEAD IV (and nonce) */
	SST_CRYPTO_TRAILER_MAX = 16, /**< bytes of the largest trailer */
	/**
	 * Largest per-channel session a driver may need (checked at build time
	 * and at registration). Sized for AES-GCM: IPsec-MB's precomputed key
	 * data (round keys and 48 GHASH key powers) is 1008 bytes per
	 * direction, 1024 once cache-line aligned.
	 */
	SST_CRYPTO_SESSION_MAX = 2304,
	/** Alignment of the session memory the caller provides. */
	SST_CRYPTO_SESSION_ALIGN = 64,
	/** Bytes in clear at the start of every packet. */
	SST_CRYPTO_CLEAR_PREFIX = 4,
	/** Packets a driver handles at a time inside one burst call. */
	SST_CRYPTO_CHUNK = 32,
	/** Capacity of the registry. */
	SST_CRYPTO_DRIVERS_MAX = 16,
};

/** Key material of one channel, both directions. */
struct sst_crypto_keys {
	uint8_t tx_key[SST_CRYPTO_KEY_MAX]; /**< AEAD key of what we send (key_len bytes used) */
	uint8_t rx_key[SST_CRYPTO_KEY_MAX]; /**< AEAD key of what we receive */
	uint8_t tx_iv[SST_CRYPTO_IV_LEN];   /**< IV of what we send (sst_crypto_nonce()) */
	uint8_t rx_iv[SST_CRYPTO_IV_LEN];   /**< IV of what we receive */
	uint32_t tx_chk_key;		    /**< Chk32: our key, added to our trailers */
	uint32_t rx_chk_key;		    /**< Chk32: the peer's key */
};

/**
 * A suite as implemented by one driver.
 *
 * Burst functions follow the DPDK convention: they return how many packets
 * succeeded and move the failed ones, unchanged, behind the good ones, in
 * their original order. seq[] is permuted with pkts[], so that seq[i] still
 * belongs to pkts[i] on return. Every mbuf chain is one packet; chains may
 * have any number of segments. n is not bounded; drivers work in chunks of
 * SST_CRYPTO_CHUNK and settle each chunk with sst_crypto_burst_settle().
 */
struct sst_crypto_ops {
	const char *driver;	     /**< "chk32", "ipsec_mb", "sodium", "null" */
	enum sst_crypto_suite suite; /**< the suite it implements */
	/** Among drivers of one suite, the highest priority is the default. */
	uint8_t priority;
	uint8_t trailer_len;   /**< the suite's: 0 null, 4 chk32, 16 AEAD */
	uint8_t key_len;       /**< bytes of tx_key/rx_key used (0 for chk32, null) */
	uint16_t session_size; /**< <= SST_CRYPTO_SESSION_MAX */
	/**
	 * Packets one key may protect in one direction (confidentiality usage
	 * limit); the channel rekeys or closes before reaching it.
	 */
	uint64_t packet_limit;
	/**
	 * Packets that may fail to open under one key (integrity limit: each
	 * failure is a forgery attempt that succeeds with some probability);
	 * the channel counts failures and stops using the key at this number.
	 * UINT64_MAX where the armor makes no cryptographic claim.
	 */
	uint64_t integrity_limit;

	/**
	 * Prepare a channel's session in caller memory of session_size bytes,
	 * aligned to SST_CRYPTO_SESSION_ALIGN: expand keys, precompute tables.
	 * Called on the lcore that will run the channel's bursts. On failure
	 * the session holds no key material.
	 * @return 0 or -EINVAL (unusable keys, misaligned session), -ENOTSUP
	 * (CPU lacks support), -ENOMEM (per-lcore state could not be set up).
	 * @param session The session memory (session_size bytes, aligned).
	 * @param keys The channel's keys, copied or expanded.
	 */
	int (*session_init)(void *session, const struct sst_crypto_keys *keys);

	/** Wipe the session's key material.
	 * @param session A session that session_init() prepared.
	 */
	void (*session_fini)(void *session);

	/**
	 * Protect packets for sending. pkts[i] carries sequence number seq[i].
	 * On success pkts[i] is replaced by the sealed packet, which may be the
	 * same chain with the trailer appended (a trailer segment from pool is
	 * chained when the last segment's data is shared (an indirect or
	 * external-buffer mbuf) or it has no tailroom) or a
	 * fresh contiguous mbuf from pool holding the ciphertext, in which case
	 * the input chain is freed (the stream layer holds its own references
	 * for retransmission), or, for a packet in one direct segment with
	 * reference count 1 (nobody else holds it), the same mbuf encrypted in
	 * place with the tag appended. Seal never writes into the data of a shared,
	 * indirect or external-buffer segment. A suite that appends to the
	 * chain changes the metadata of its head and last segment, so those
	 * mbufs must not be shared (reference count 1): to keep a packet for
	 * retransmission, seal a clone (rte_pktmbuf_clone()), whose indirect
	 * segments share only the data. Such a suite fails a packet whose head
	 * or last mbuf is shared.
	 * @return the number sealed; failures (no mbuf, a packet shorter than
	 * SST_CRYPTO_CLEAR_PREFIX or too long for one mbuf of pool, a shared
	 * head or last mbuf where the suite appends) are left unchanged, except
	 * that a packet whose in-place encryption failed has undefined bytes.
	 * @param session The channel's session.
	 * @param pkts The packets, replaced by the sealed ones.
	 * @param seq Their sequence numbers.
	 * @param n Number of packets.
	 * @param pool Where trailer segments and ciphertext mbufs come from.
	 */
	uint16_t (*seal_burst)(void *session, struct rte_mbuf **pkts, uint64_t *seq, uint16_t n,
		struct rte_mempool *pool);

	/**
	 * Verify (and decrypt in place) received packets, then strip the
	 * trailer. pkts[i] carries sequence number seq[i], already rebuilt.
	 * Suites that decrypt in place need writable segments (direct,
	 * reference count 1), which received packets are; a packet with a
	 * shared segment fails rather than have another holder's bytes
	 * rewritten.
	 * @return the number that verified; the rest (bad trailer, too short
	 * for one) are moved behind them, and their content is undefined.
	 * @param session The channel's session.
	 * @param pkts The received packets, verified ones first on return.
	 * @param seq Their sequence numbers, rebuilt to 64 bits.
	 * @param n Number of packets.
	 */
	uint16_t (*open_burst)(void *session, struct rte_mbuf **pkts, uint64_t *seq, uint16_t n);
};

/**
 * Register a suite implementation (drivers call this from an RTE_INIT
 * constructor).
 * @return 0, -EINVAL (NULL ops or driver name, an unknown suite, a missing
 * op, session_size over SST_CRYPTO_SESSION_MAX, trailer_len other than the
 * suite's, key_len over SST_CRYPTO_KEY_MAX, a usage limit of 0), -EEXIST (same
 * driver and suite already registered), -ENOSPC (registry full).
 * @param ops The implementation; kept, so it must have static storage.
 */
int sst_crypto_register(const struct sst_crypto_ops *ops);

/**
 * Find a suite implementation.
 * @param suite
 *   The suite.
 * @param driver
 *   NULL for the highest-priority driver of the suite (the first registered
 *   among equals).
 * @return the ops, or NULL (rte_errno = ENOENT).
 */
const struct sst_crypto_ops *sst_crypto_find(enum sst_crypto_suite suite, const char *driver);

/**
 * Suite name for logs and options: "null", "chk32", "aes128gcm",
 * "chacha20poly1305"; "unknown" for a value outside the enum.
 * @param suite The suite.
 * @return The name (a static string).
 */
const char *sst_crypto_suite_name(enum sst_crypto_suite suite);

/** Parse a suite name.
 * @param name A name as sst_crypto_suite_name() gives it.
 * @return the suite, or -EINVAL (unknown name or NULL). */
int sst_crypto_suite_parse(const char *name);

/**
 * Remove the last len bytes of a packet (a trailer), wherever they lie in
 * the chain: segments left empty at the end are freed.
 * Precondition: len <= m->pkt_len.
 * @param m The packet.
 * @param len Bytes removed from its end.
 */
void sst_crypto_mbuf_trim(struct rte_mbuf *m, uint32_t len);

/** Build the 96-bit AEAD nonce of a packet: iv XOR (0^32 || seq big-endian).
 * @param nonce Output.
 * @param iv The session's IV for the direction.
 * @param seq The packet's full sequence number. */
static inline void
sst_crypto_nonce(
	uint8_t nonce[SST_CRYPTO_IV_LEN], const uint8_t iv[SST_CRYPTO_IV_LEN], uint64_t seq)
{
	for (int i = 0; i < 4; i++)
		nonce[i] = iv[i];
	for (int i = 0; i < 8; i++)
		nonce[4 + i] = iv[4 + i] ^ (uint8_t)(seq >> (56 - 8 * i));
}

/**
 * Settle one chunk of a burst so that the burst keeps its contract. On
 * entry pkts[0, good) succeeded, pkts[good, off) failed, and the chunk
 * pkts[off, off + cnt) has just been processed with bit i of fail set for
 * each failure of pkts[off + i]. On return the good packets of the chunk
 * follow the earlier good ones and all failures follow them, each group in
 * its original order; seq[] is moved the same way.
 * Preconditions: good <= off, cnt <= 64.
 * @param pkts The burst's packets.
 * @param seq Their sequence numbers.
 * @param good Packets that succeeded before the chunk.
 * @param off First packet of the chunk.
 * @param cnt Packets in the chunk.
 * @param fail Bit i set: pkts[off + i] failed.
 * @return the number of good packets in pkts[0, off + cnt).
 */
static inline uint16_t
sst_crypto_burst_settle(struct rte_mbuf **pkts, uint64_t *seq, uint16_t good, uint16_t off,
	uint16_t cnt, uint64_t fail)
{
	struct rte_mbuf *okp[64], *badp[64];
	uint64_t oks[64], bads[64];
	uint16_t nok = 0, nbad = 0;

	if (fail == 0 && good == off)
		return off + cnt;
	for (uint16_t i = 0; i < cnt; i++) {
		if (fail >> i & 1) {
			badp[nbad] = pkts[off + i];
			bads[nbad++] = seq[off + i];
		} else {
			okp[nok] = pkts[off + i];
			oks[nok++] = seq[off + i];
		}
	}
	memmove(&pkts[good + nok], &pkts[good], (size_t)(off - good) * sizeof(pkts[0]));
	memmove(&seq[good + nok], &seq[good], (size_t)(off - good) * sizeof(seq[0]));
	memcpy(&pkts[good], okp, nok * sizeof(pkts[0]));
	memcpy(&seq[good], oks, nok * sizeof(seq[0]));
	memcpy(&pkts[off + nok], badp, nbad * sizeof(pkts[0]));
	memcpy(&seq[off + nok], bads, nbad * sizeof(seq[0]));
	return good + nok;
}

/**
 * A whole burst for drivers without a multi-buffer path: one(session, m,
 * seq, arg) handles one packet and returns 0, or a negative value with the
 * packet left as the contract says for failures; the burst is settled chunk
 * by chunk. Inlined with a constant callback, the call is direct.
 * @param session The driver's session.
 * @param pkts The packets.
 * @param seq Their sequence numbers.
 * @param n Packets at @p pkts.
 * @param one Processes one packet.
 * @param arg Passed to @p one.
 * @return the number of packets that succeeded.
 */
static __rte_always_inline uint16_t
sst_crypto_burst_each(const void *session, struct rte_mbuf **pkts, uint64_t *seq, uint16_t n,
	int (*one)(const void *session, struct rte_mbuf *m, uint64_t seq, void *arg), void *arg)
{
	uint16_t good = 0;

	for (uint32_t off = 0; off < n; off += SST_CRYPTO_CHUNK) {
		uint16_t cnt = (uint16_t)RTE_MIN(n - off, (uint32_t)SST_CRYPTO_CHUNK);
		uint64_t fail = 0;

		for (uint16_t i = 0; i < cnt; i++)
			if (one(session, pkts[off + i], seq[off + i], arg) < 0)
				fail |= UINT64_C(1) << i;
		good = sst_crypto_burst_settle(pkts, seq, good, (uint16_t)off, cnt, fail);
	}
	return good;
}

#endif /* SST_CRYPTO_DRIVER_H */
