/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The original prototype's AES armor, for reading its captures only: bytes
 * 0-3 in clear, the rest AES-128-CTR, then a 16-byte HMAC-SHA-256 tag over
 * the sequence number and the ciphertext packet twice (a prototype quirk,
 * docs/wire-format.md). It is obsolete cryptography and SST-DPDK never sends
 * it; sst-dump uses it to verify and decode such captures when the session
 * keys are known.
 */
#ifndef DUMP_LEGACY_AES_H
#define DUMP_LEGACY_AES_H

#include <stddef.h>
#include <stdint.h>

enum {
	DUMP_AES_KEY_LEN = 16,
	DUMP_AES_MAC_KEY_LEN = 32,
	DUMP_AES_TAG_LEN = 16,
};

/** Keys of one direction, with the AES key schedule expanded. */
struct dump_aes_keys {
	uint8_t mac_key[DUMP_AES_MAC_KEY_LEN];
	uint32_t enc_sched[4 * 15] __attribute__((aligned(16)));
	uint32_t dec_sched[4 * 15] __attribute__((aligned(16)));
};

/** Set up the IPsec-MB manager. @return 0 or -1. */
int dump_aes_init(void);

/** Release it. */
void dump_aes_fini(void);

/** Expand a direction's keys. @return 0, or -1 before dump_aes_init(). */
int dump_aes_keys_set(struct dump_aes_keys *k, const uint8_t aes_key[DUMP_AES_KEY_LEN],
	const uint8_t mac_key[DUMP_AES_MAC_KEY_LEN]);

/**
 * Authenticate and decrypt one channel packet.
 *
 * @param pkt
 *   The whole UDP payload, tag included.
 * @param out
 *   Receives the plaintext packet without the tag (len - 16 bytes).
 * @return
 *   0, -SST_ETRUNC (too short) or -SST_EBADAUTH (tag mismatch).
 */
int dump_aes_open(
	const struct dump_aes_keys *k, uint64_t seq, const uint8_t *pkt, size_t len, uint8_t *out);

#endif /* DUMP_LEGACY_AES_H */
