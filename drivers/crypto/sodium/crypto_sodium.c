/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20-Poly1305 (RFC 8439, IETF 96-bit nonce) armor on libsodium: the
 * portable fallback for CPUs or builds without IPsec-MB. Same layout and
 * nonce as the ipsec_mb driver, so either end may use either driver:
 *
 *   bytes 0-3           clear, authenticated as associated data
 *   bytes 4..len-1      encrypted
 *   16 bytes            tag
 *
 * nonce = iv XOR (0^32 || seq, big-endian): sst_crypto_nonce().
 *
 * libsodium has no multi-buffer path, so a burst is a loop over packets.
 * Seal is out of place into one fresh contiguous mbuf from the pool, like
 * ipsec_mb. Open is in place: a contiguous packet goes through
 * crypto_aead_chacha20poly1305_ietf_decrypt_detached(), which verifies
 * before it writes; a chain is authenticated segment by segment with the
 * Poly1305 streaming API and, once the tag matches, decrypted with the
 * ChaCha20 key stream at the right block counter.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <sodium.h>

#include "sst_crypto_driver.h"
#include "sst_log.h"

RTE_LOG_REGISTER(sst_logtype_crypto_sodium, sst.crypto.sodium, NOTICE);
#define SODIUM_LOG(level, fmt, ...) \
	SST_LOG(level, sst_logtype_crypto_sodium, "crypto_sodium", fmt, ##__VA_ARGS__)

enum {
	SOD_TAG_LEN = crypto_aead_chacha20poly1305_ietf_ABYTES,
	SOD_KEY_LEN = crypto_aead_chacha20poly1305_ietf_KEYBYTES,
	SOD_AAD_LEN = SST_CRYPTO_CLEAR_PREFIX,
	SOD_BLOCK = 64, /* ChaCha20 block */
};

static_assert(crypto_aead_chacha20poly1305_ietf_NPUBBYTES == SST_CRYPTO_IV_LEN, "96-bit nonce");
static_assert(SOD_TAG_LEN == 16 && SOD_KEY_LEN == 32, "RFC 8439 sizes");

struct sodium_session {
	uint8_t tx_key[SOD_KEY_LEN];
	uint8_t rx_key[SOD_KEY_LEN];
	uint8_t tx_iv[SST_CRYPTO_IV_LEN];
	uint8_t rx_iv[SST_CRYPTO_IV_LEN];
};

static_assert(sizeof(struct sodium_session) <= SST_CRYPTO_SESSION_MAX, "session too large");

static int
sodium_session_init(void *session, const struct sst_crypto_keys *keys)
{
	struct sodium_session *s = session;

	/* Picks the fastest implementations; idempotent and thread-safe. */
	if (sodium_init() < 0) {
		SODIUM_LOG(ERR, "sodium_init failed");
		return -ENOTSUP;
	}
	memcpy(s->tx_key, keys->tx_key, SOD_KEY_LEN);
	memcpy(s->rx_key, keys->rx_key, SOD_KEY_LEN);
	memcpy(s->tx_iv, keys->tx_iv, SST_CRYPTO_IV_LEN);
	memcpy(s->rx_iv, keys->rx_iv, SST_CRYPTO_IV_LEN);
	return 0;
}

static void
sodium_session_fini(void *session)
{
	sodium_memzero(session, sizeof(struct sodium_session));
}

/* Seal one packet into out. Returns 0 or -1 (out missing or too small,
 * packet shorter than the clear prefix). */
static inline int
sodium_seal_one(
	const struct sodium_session *s, struct rte_mbuf *in, struct rte_mbuf *out, uint64_t seq)
{
	uint32_t len = in->pkt_len;
	uint8_t nonce[SST_CRYPTO_IV_LEN];
	const uint8_t *src;
	uint8_t *dst;

	if (out == NULL || len < SOD_AAD_LEN || len + SOD_TAG_LEN > rte_pktmbuf_tailroom(out))
		return -1;
	dst = rte_pktmbuf_mtod(out, uint8_t *);
	out->data_len = (uint16_t)(len + SOD_TAG_LEN);
	out->pkt_len = len + SOD_TAG_LEN;
	/* A chain is gathered into the output and encrypted there in place. */
	src = rte_pktmbuf_read(in, 0, len, dst);
	if (src != dst)
		memcpy(dst, src, SOD_AAD_LEN);
	sst_crypto_nonce(nonce, s->tx_iv, seq);
	crypto_aead_chacha20poly1305_ietf_encrypt_detached(dst + SOD_AAD_LEN, dst + len, NULL,
		src + SOD_AAD_LEN, len - SOD_AAD_LEN, src, SOD_AAD_LEN, NULL, nonce, s->tx_key);
	return 0;
}

static uint16_t
sodium_seal_burst(
	void *session, struct rte_mbuf **pkts, uint64_t *seq, uint16_t n, struct rte_mempool *pool)
{
	const struct sodium_session *s = session;
	uint16_t good = 0;

	for (uint32_t off = 0; off < n; off += SST_CRYPTO_CHUNK) {
		uint16_t cnt = RTE_MIN(n - off, SST_CRYPTO_CHUNK);
		struct rte_mbuf *out[SST_CRYPTO_CHUNK];
		uint64_t fail = 0;

		if (pool == NULL || rte_pktmbuf_alloc_bulk(pool, out, cnt) != 0)
			for (uint16_t i = 0; i < cnt; i++)
				out[i] = pool != NULL ? rte_pktmbuf_alloc(pool) : NULL;
		for (uint16_t i = 0; i < cnt; i++) {
			if (sodium_seal_one(s, pkts[off + i], out[i], seq[off + i]) < 0) {
				fail |= UINT64_C(1) << i;
				rte_pktmbuf_free(out[i]);
				continue;
			}
			rte_pktmbuf_free(pkts[off + i]);
			pkts[off + i] = out[i];
		}
		good = sst_crypto_burst_settle(pkts, seq, good, off, cnt, fail);
	}
	return good;
}

/* Whether open may rewrite every segment of m. */
static inline int
sodium_writable(const struct rte_mbuf *m)
{
	for (; m != NULL; m = m->next)
		if (!RTE_MBUF_DIRECT(m) || rte_mbuf_refcnt_read(m) != 1)
			return 0;
	return 1;
}

/*
 * XOR n bytes at d with the key stream from ciphertext offset pos (block
 * counter 1 + pos / 64, RFC 8439 section 2.8). Whole blocks go straight
 * through crypto_stream_chacha20_ietf_xor_ic(); a block split between
 * segments is generated into ks and applied piecewise.
 */
static void
sodium_xor_stream(uint8_t *d, uint32_t n, uint32_t pos, const uint8_t *nonce, const uint8_t *key)
{
	static const uint8_t zero[SOD_BLOCK];
	uint8_t ks[SOD_BLOCK];

	while (n > 0) {
		uint32_t in_block = pos % SOD_BLOCK;
		uint32_t ic = 1 + pos / SOD_BLOCK;
		uint32_t take;

		if (in_block == 0 && n >= SOD_BLOCK) {
			take = n - n % SOD_BLOCK;
			crypto_stream_chacha20_ietf_xor_ic(d, d, take, nonce, ic, key);
		} else {
			take = RTE_MIN(n, SOD_BLOCK - in_block);
			crypto_stream_chacha20_ietf_xor_ic(ks, zero, SOD_BLOCK, nonce, ic, key);
			for (uint32_t i = 0; i < take; i++)
				d[i] ^= ks[in_block + i];
		}
		d += take;
		pos += take;
		n -= take;
	}
	sodium_memzero(ks, sizeof(ks));
}

/*
 * Open a multi-segment packet in place. RFC 8439 section 2.8: the Poly1305
 * key is the first 32 bytes of key-stream block 0, and the MAC covers
 * aad || pad16 || ciphertext || pad16 || le64(aad len) || le64(text len).
 * Returns 0 or -1.
 */
static int
sodium_open_chain(const uint8_t *key, struct rte_mbuf *m, const uint8_t *nonce)
{
	static const uint8_t zero[16];
	uint32_t body = m->pkt_len - SOD_TAG_LEN, clen = body - SOD_AAD_LEN;
	crypto_onetimeauth_poly1305_state st;
	uint8_t block0[SOD_BLOCK], lens[16], aad[SOD_AAD_LEN], tag[SOD_TAG_LEN], want[SOD_TAG_LEN];
	const uint8_t *p;
	uint32_t skip, left, pos;
	int rc = -1;

	crypto_stream_chacha20_ietf(block0, sizeof(block0), nonce, key);
	crypto_onetimeauth_poly1305_init(&st, block0);
	p = rte_pktmbuf_read(m, 0, SOD_AAD_LEN, aad);
	crypto_onetimeauth_poly1305_update(&st, p, SOD_AAD_LEN);
	crypto_onetimeauth_poly1305_update(&st, zero, 16 - SOD_AAD_LEN);
	skip = SOD_AAD_LEN;
	left = clen;
	for (struct rte_mbuf *seg = m; seg != NULL && left > 0; seg = seg->next) {
		uint32_t n = seg->data_len;

		if (skip >= n) {
			skip -= n;
			continue;
		}
		n = RTE_MIN(n - skip, left);
		crypto_onetimeauth_poly1305_update(
			&st, rte_pktmbuf_mtod_offset(seg, uint8_t *, skip), n);
		skip = 0;
		left -= n;
	}
	crypto_onetimeauth_poly1305_update(&st, zero, (16 - clen % 16) % 16);
	for (int i = 0; i < 8; i++) {
		lens[i] = (uint8_t)((uint64_t)SOD_AAD_LEN >> (8 * i));
		lens[8 + i] = (uint8_t)((uint64_t)clen >> (8 * i));
	}
	crypto_onetimeauth_poly1305_update(&st, lens, sizeof(lens));
	crypto_onetimeauth_poly1305_final(&st, want);
	p = rte_pktmbuf_read(m, body, SOD_TAG_LEN, tag);
	if (p == NULL || crypto_verify_16(p, want) != 0)
		goto out;
	/* Authentic: decrypt each segment's share. */
	skip = SOD_AAD_LEN;
	left = clen;
	pos = 0;
	for (struct rte_mbuf *seg = m; seg != NULL && left > 0; seg = seg->next) {
		uint32_t n = seg->data_len;

		if (skip >= n) {
			skip -= n;
			continue;
		}
		n = RTE_MIN(n - skip, left);
		sodium_xor_stream(
			rte_pktmbuf_mtod_offset(seg, uint8_t *, skip), n, pos, nonce, key);
		skip = 0;
		left -= n;
		pos += n;
	}
	sst_crypto_mbuf_trim(m, SOD_TAG_LEN);
	rc = 0;
out:
	sodium_memzero(&st, sizeof(st));
	sodium_memzero(block0, sizeof(block0));
	sodium_memzero(want, sizeof(want));
	return rc;
}

/* Open one packet. Returns 0 or -1. */
static inline int
sodium_open_one(const struct sodium_session *s, struct rte_mbuf *m, uint64_t seq)
{
	uint8_t nonce[SST_CRYPTO_IV_LEN];
	uint32_t len = m->pkt_len;
	uint8_t *p;

	if (len < SOD_AAD_LEN + SOD_TAG_LEN || !sodium_writable(m))
		return -1;
	sst_crypto_nonce(nonce, s->rx_iv, seq);
	if (m->nb_segs > 1)
		return sodium_open_chain(s->rx_key, m, nonce);
	p = rte_pktmbuf_mtod(m, uint8_t *);
	if (crypto_aead_chacha20poly1305_ietf_decrypt_detached(p + SOD_AAD_LEN, NULL,
		    p + SOD_AAD_LEN, len - SOD_AAD_LEN - SOD_TAG_LEN, p + len - SOD_TAG_LEN, p,
		    SOD_AAD_LEN, nonce, s->rx_key) != 0)
		return -1;
	rte_pktmbuf_trim(m, SOD_TAG_LEN);
	return 0;
}

static int
sodium_open_cb(const void *session, struct rte_mbuf *m, uint64_t seq, void *arg)
{
	RTE_SET_USED(arg);
	return sodium_open_one(session, m, seq);
}

static uint16_t
sodium_open_burst(void *session, struct rte_mbuf **pkts, uint64_t *seq, uint16_t n)
{
	return sst_crypto_burst_each(session, pkts, seq, n, sodium_open_cb, NULL);
}

/* Usage limits as for the ipsec_mb driver's ChaCha20-Poly1305 (same suite,
 * same reasoning: RFC 9001 section 6.6). */
static const struct sst_crypto_ops sodium_ops = {
	.driver = "sodium",
	.suite = SST_CRYPTO_CHACHA20POLY1305,
	.priority = 5,
	.trailer_len = SOD_TAG_LEN,
	.key_len = SOD_KEY_LEN,
	.session_size = sizeof(struct sodium_session),
	.packet_limit = UINT64_C(1) << 62,
	.integrity_limit = UINT64_C(1) << 36,
	.session_init = sodium_session_init,
	.session_fini = sodium_session_fini,
	.seal_burst = sodium_seal_burst,
	.open_burst = sodium_open_burst,
};

RTE_INIT(crypto_sodium_register)
{
	int rc = sst_crypto_register(&sodium_ops);

	if (rc < 0)
		SODIUM_LOG(ERR, "registration failed: %d", rc);
}
