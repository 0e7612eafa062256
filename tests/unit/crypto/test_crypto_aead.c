/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the AEAD armor drivers (drivers/crypto/ipsec_mb, .../sodium):
 * known answers built on published vectors (the GCM specification's test
 * case 4 and RFC 8439 section 2.8.2: same key, nonce and plaintext, so the
 * ciphertext is the published one; the tags for our 4-byte associated data
 * were computed independently with Python's 'cryptography' package),
 * interoperation of ipsec_mb and sodium in both directions, round trips of
 * every length, every single-byte tamper (clear prefix included), wrong
 * sequence numbers, truncation, burst ordering across chunks, chained input
 * to seal, chained packets to open, jumbo chains sealed in place, shared
 * packets, pool exhaustion and session wiping.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-ipsec-mb.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "crypto_test_util.h"
#include "sst_crypto_driver.h"
#include "sst_test.h"
#include "sst_test_eal.h"

#define POOL_SIZE 2047

static struct rte_mempool *pool;

/* The three implementations under test. */
enum { GCM_IMB, CHACHA_IMB, CHACHA_SODIUM, NIMPL };
static const struct sst_crypto_ops *impl[NIMPL];
static const char *const impl_name[NIMPL] = {
	"aes128gcm/ipsec_mb", "chacha20poly1305/ipsec_mb", "chacha20poly1305/sodium"};

/* GCM spec (McGrew, Viega) test case 4. */
static const char gcm_key[] = "feffe9928665731c6d6a8f9467308308";
static const char gcm_iv[] = "cafebabefacedbaddecaf888";
static const char gcm_pt[] = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
			     "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39";
static const char gcm_aad[] = "feedfacedeadbeeffeedfacedeadbeefabaddad2";
static const char gcm_ct[] = "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
			     "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091";
static const char gcm_tag[] = "5bc94fbc3221a5db94fae95ae7121a47";
/* The tag for associated data 01000001 instead (Python cryptography). */
static const char gcm_tag_prefix[] = "e20f868562626aabb3e9004b66da2c8b";
static const char gcm_tag_empty[] = "5e5407814f0ada6eb9609efac8b926f6";

/* RFC 8439 section 2.8.2. */
static const char cc_key[] = "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f";
static const char cc_nonce[] = "070000004041424344454647";
static const char cc_pt[] = "Ladies and Gentlemen of the class of '99: If I could offer you "
			    "only one tip for the future, sunscreen would be it.";
static const char cc_ct[] = "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
			    "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
			    "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
			    "3ff4def08e4b7a9de576d26586cec64b6116";
static const char cc_tag_prefix[] = "897513730e36f370b5d71d81356cbc6b";
static const char cc_tag_empty[] = "602bac1e5e992f465026eac4389d2975";

static const uint8_t prefix[4] = {0x01, 0x00, 0x00, 0x01};

/* Keys with the published key, and an IV chosen so that the nonce of
 * sequence number 1 is the published nonce. */
static void
kat_keys(struct sst_crypto_keys *k, const char *key_hex, const char *nonce_hex)
{
	memset(k, 0, sizeof(*k));
	sst_test_hex(key_hex, k->tx_key, sizeof(k->tx_key));
	sst_test_hex(key_hex, k->rx_key, sizeof(k->rx_key));
	sst_test_hex(nonce_hex, k->tx_iv, sizeof(k->tx_iv));
	k->tx_iv[11] ^= 1;
	memcpy(k->rx_iv, k->tx_iv, sizeof(k->rx_iv));
}

/* Pseudo-random keys; the receiver's are the sender's, swapped. */
static void
rand_keys(struct sst_crypto_keys *tx, struct sst_crypto_keys *rx, uint32_t seed)
{
	memset(tx, 0, sizeof(*tx));
	ct_fill(tx->tx_key, sizeof(tx->tx_key), seed);
	ct_fill(tx->rx_key, sizeof(tx->rx_key), seed + 1);
	ct_fill(tx->tx_iv, sizeof(tx->tx_iv), seed + 2);
	ct_fill(tx->rx_iv, sizeof(tx->rx_iv), seed + 3);
	*rx = *tx;
	memcpy(rx->tx_key, tx->rx_key, sizeof(rx->tx_key));
	memcpy(rx->rx_key, tx->tx_key, sizeof(rx->rx_key));
	memcpy(rx->tx_iv, tx->rx_iv, sizeof(rx->tx_iv));
	memcpy(rx->rx_iv, tx->tx_iv, sizeof(rx->rx_iv));
}

static int
seal1(const struct sst_crypto_ops *ops, struct ct_session *s, struct rte_mbuf **m, uint64_t seq)
{
	return ops->seal_burst(s->mem, m, &seq, 1, pool);
}

static int
open1(const struct sst_crypto_ops *ops, struct ct_session *s, struct rte_mbuf **m, uint64_t seq)
{
	return ops->open_burst(s->mem, m, &seq, 1);
}

/* Seal a flat copy of data and return the sealed bytes in out. */
static uint32_t
seal_bytes(const struct sst_crypto_ops *ops, struct ct_session *s, const uint8_t *data,
	uint32_t len, uint64_t seq, uint8_t *out, uint32_t cap)
{
	struct rte_mbuf *m = ct_flat(pool, data, len);
	uint32_t n = UINT32_MAX;

	if (m == NULL)
		return n;
	if (seal1(ops, s, &m, seq) == 1)
		n = ct_read(m, out, cap);
	rte_pktmbuf_free(m);
	return n;
}

/* The library itself on the published GCM vector, 20-byte AAD included:
 * checks our reading of the IPsec-MB API before the driver relies on it. */
static void
test_ipsec_mb_gcm_spec(void)
{
	IMB_MGR *mgr = alloc_mb_mgr(0);
	struct gcm_key_data key __attribute__((aligned(64)));
	struct gcm_context_data ctx;
	uint8_t k[16], iv[12], pt[60], aad[20], ct[60], want[60], tag[16], want_tag[16];

	CU_ASSERT_PTR_NOT_NULL_FATAL(mgr);
	init_mb_mgr_auto(mgr, NULL);
	sst_test_hex(gcm_key, k, sizeof(k));
	sst_test_hex(gcm_iv, iv, sizeof(iv));
	CU_ASSERT_EQUAL(sst_test_hex(gcm_pt, pt, sizeof(pt)), 60);
	sst_test_hex(gcm_aad, aad, sizeof(aad));
	sst_test_hex(gcm_ct, want, sizeof(want));
	sst_test_hex(gcm_tag, want_tag, sizeof(want_tag));
	IMB_AES128_GCM_PRE(mgr, k, &key);
	IMB_AES128_GCM_ENC(mgr, &key, &ctx, ct, pt, 60, iv, aad, 20, tag, 16);
	CU_ASSERT_EQUAL(memcmp(ct, want, 60), 0);
	CU_ASSERT_EQUAL(memcmp(tag, want_tag, 16), 0);
	free_mb_mgr(mgr);
}

/* Known answers through the drivers: packet = 01000001 || plaintext. */
static void
test_known_answers(void)
{
	static const struct {
		int impl;
		const char *key, *nonce, *tag, *tag_empty;
		int text; /* plaintext given as text rather than hex */
	} kat[] = {
		{GCM_IMB, gcm_key, gcm_iv, gcm_tag_prefix, gcm_tag_empty, 0},
		{CHACHA_IMB, cc_key, cc_nonce, cc_tag_prefix, cc_tag_empty, 1},
		{CHACHA_SODIUM, cc_key, cc_nonce, cc_tag_prefix, cc_tag_empty, 1},
	};

	for (size_t i = 0; i < sizeof(kat) / sizeof(kat[0]); i++) {
		const struct sst_crypto_ops *ops = impl[kat[i].impl];
		struct sst_crypto_keys k;
		struct ct_session s;
		uint8_t pkt[256], want[256], got[256];
		uint32_t len, n;
		struct rte_mbuf *m;

		kat_keys(&k, kat[i].key, kat[i].nonce);
		CU_ASSERT_EQUAL_FATAL(ops->session_init(s.mem, &k), 0);
		memcpy(pkt, prefix, 4);
		memcpy(want, prefix, 4);
		if (kat[i].text) {
			len = (uint32_t)strlen(cc_pt);
			memcpy(pkt + 4, cc_pt, len);
			CU_ASSERT_EQUAL(sst_test_hex(cc_ct, want + 4, sizeof(want) - 4), len);
		} else {
			len = (uint32_t)sst_test_hex(gcm_pt, pkt + 4, sizeof(pkt) - 4);
			CU_ASSERT_EQUAL(sst_test_hex(gcm_ct, want + 4, sizeof(want) - 4), len);
		}
		sst_test_hex(kat[i].tag, want + 4 + len, 16);
		n = seal_bytes(ops, &s, pkt, 4 + len, 1, got, sizeof(got));
		CU_ASSERT_EQUAL(n, 4 + len + 16);
		if (memcmp(got, want, 4 + len + 16) != 0) {
			CU_FAIL("sealed bytes differ from the known answer");
			fprintf(stderr, "  %s\n", impl_name[kat[i].impl]);
		}
		/* Open the known answer itself. */
		m = ct_flat(pool, want, 4 + len + 16);
		CU_ASSERT_EQUAL(open1(ops, &s, &m, 1), 1);
		CU_ASSERT(ct_equal(m, pkt, 4 + len));
		rte_pktmbuf_free(m);
		/* Empty plaintext: only the prefix, authenticated. */
		n = seal_bytes(ops, &s, pkt, 4, 1, got, sizeof(got));
		CU_ASSERT_EQUAL(n, 20);
		sst_test_hex(kat[i].tag_empty, want + 4, 16);
		CU_ASSERT_EQUAL(memcmp(got, want, 20), 0);
		ops->session_fini(s.mem);
	}
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), POOL_SIZE);
}

/* Every length from 4 to 300 and a few large ones: sealed by one
 * implementation, opened by another of the same suite (and by itself). */
static void
test_round_trip_and_interop(void)
{
	static const int pairs[][2] = {
		{GCM_IMB, GCM_IMB},
		{CHACHA_IMB, CHACHA_IMB},
		{CHACHA_SODIUM, CHACHA_SODIUM},
		{CHACHA_IMB, CHACHA_SODIUM},
		{CHACHA_SODIUM, CHACHA_IMB},
	};
	unsigned int bad = 0, runs = 0;

	for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++) {
		const struct sst_crypto_ops *a = impl[pairs[p][0]], *b = impl[pairs[p][1]];
		struct sst_crypto_keys ktx, krx;
		struct ct_session tx, rx;

		rand_keys(&ktx, &krx, (uint32_t)p * 10);
		CU_ASSERT_EQUAL_FATAL(a->session_init(tx.mem, &ktx), 0);
		CU_ASSERT_EQUAL_FATAL(b->session_init(rx.mem, &krx), 0);
		for (uint32_t len = 4; len <= 1500; len += len < 300 ? 1 : 97) {
			uint8_t data[1600];
			uint64_t seq = (uint64_t)len * 0x10001 + (p << 40);
			struct rte_mbuf *m;

			ct_fill(data, len, len);
			m = ct_flat(pool, data, len);
			CU_ASSERT_PTR_NOT_NULL_FATAL(m);
			if (seal1(a, &tx, &m, seq) != 1 || m->pkt_len != len + 16 ||
				m->nb_segs != 1 ||
				memcmp(rte_pktmbuf_mtod(m, uint8_t *), data, 4) != 0 ||
				(len > 8 && memcmp(rte_pktmbuf_mtod(m, uint8_t *) + 4, data + 4,
						    len - 4) == 0))
				bad++;
			else if (open1(b, &rx, &m, seq) != 1 || !ct_equal(m, data, len))
				bad++;
			rte_pktmbuf_free(m);
			runs++;
		}
		a->session_fini(tx.mem);
		b->session_fini(rx.mem);
	}
	CU_ASSERT(runs > 1500);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), POOL_SIZE);
}

/* Flip each byte of a sealed packet in turn (clear prefix and tag
 * included), present it with the wrong sequence number, or shorten it:
 * open fails every time, and the intact packet still opens. */
static void
test_tamper(void)
{
	unsigned int missed = 0, checked = 0;

	for (int i = 0; i < NIMPL; i++) {
		const struct sst_crypto_ops *ops = impl[i];
		struct sst_crypto_keys ktx, krx;
		struct ct_session tx, rx;
		uint8_t data[100], sealed[200];
		const uint64_t seq = UINT64_C(0x123456789a);
		struct rte_mbuf *m;
		uint32_t n;

		rand_keys(&ktx, &krx, 77 + (uint32_t)i);
		CU_ASSERT_EQUAL_FATAL(ops->session_init(tx.mem, &ktx), 0);
		CU_ASSERT_EQUAL_FATAL(ops->session_init(rx.mem, &krx), 0);
		ct_fill(data, sizeof(data), 5);
		n = seal_bytes(ops, &tx, data, sizeof(data), seq, sealed, sizeof(sealed));
		CU_ASSERT_EQUAL_FATAL(n, sizeof(data) + 16);
		for (uint32_t k = 0; k < n; k++)
			for (unsigned int v = 0x01; v <= 0x80; v <<= 1) {
				uint8_t bad[200];

				memcpy(bad, sealed, n);
				bad[k] ^= (uint8_t)v;
				m = ct_flat(pool, bad, n);
				if (open1(ops, &rx, &m, seq) != 0)
					missed++;
				rte_pktmbuf_free(m);
				checked++;
			}
		/* Wrong sequence numbers: neighbours, other 24-bit epochs. */
		{
			static const int64_t delta[] = {1, -1, 1 << 24, -(1 << 24), 1LL << 40};

			for (size_t d = 0; d < 5; d++) {
				m = ct_flat(pool, sealed, n);
				if (open1(ops, &rx, &m, seq + (uint64_t)delta[d]) != 0)
					missed++;
				rte_pktmbuf_free(m);
				checked++;
			}
		}
		/* The sender's own rx session holds other keys. */
		m = ct_flat(pool, sealed, n);
		CU_ASSERT_EQUAL(open1(ops, &tx, &m, seq), 0);
		rte_pktmbuf_free(m);
		/* Truncated: every length below the full one. */
		for (uint32_t len = 0; len < n; len++) {
			m = ct_flat(pool, sealed, len);
			if (open1(ops, &rx, &m, seq) != 0)
				missed++;
			rte_pktmbuf_free(m);
			checked++;
		}
		/* Packets too short to seal. */
		for (uint32_t len = 0; len < 4; len++) {
			uint64_t s1 = 1;

			m = ct_flat(pool, data, len);
			CU_ASSERT_EQUAL(ops->seal_burst(tx.mem, &m, &s1, 1, pool), 0);
			CU_ASSERT(ct_equal(m, data, len));
			rte_pktmbuf_free(m);
		}
		m = ct_flat(pool, sealed, n);
		CU_ASSERT_EQUAL(open1(ops, &rx, &m, seq), 1);
		CU_ASSERT(ct_equal(m, data, sizeof(data)));
		rte_pktmbuf_free(m);
		ops->session_fini(tx.mem);
		ops->session_fini(rx.mem);
	}
	CU_ASSERT(checked > 3 * 116 * 8);
	CU_ASSERT_EQUAL(missed, 0);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), POOL_SIZE);
}

/* A burst of 32, and one of 70 (three chunks), with a few bad packets:
 * good ones first, bad ones behind, each in order. */
static void
test_burst_order(void)
{
	static const uint16_t sizes[] = {32, 70};

	for (int i = 0; i < NIMPL; i++)
		for (size_t z = 0; z < 2; z++) {
			const struct sst_crypto_ops *ops = impl[i];
			uint16_t n = sizes[z], ngood = 0, nbad = 0, nexp = 0;
			struct sst_crypto_keys ktx, krx;
			struct ct_session tx, rx;
			struct rte_mbuf *m[70], *orig[70];
			uint64_t seq[70];
			uint8_t data[200];

			rand_keys(&ktx, &krx, 300 + (uint32_t)i);
			CU_ASSERT_EQUAL_FATAL(ops->session_init(tx.mem, &ktx), 0);
			CU_ASSERT_EQUAL_FATAL(ops->session_init(rx.mem, &krx), 0);
			for (uint16_t j = 0; j < n; j++) {
				ct_fill(data, sizeof(data), j);
				seq[j] = 7 + j;
				m[j] = ct_flat(pool, data, 20u + j);
				CU_ASSERT_PTR_NOT_NULL_FATAL(m[j]);
			}
			CU_ASSERT_EQUAL(ops->seal_burst(tx.mem, m, seq, n, pool), n);
			for (uint16_t j = 0; j < n; j++) {
				int bad =
					j == 0 || j == 3 || j == 4 || j == 31 || j == 33 || j == 69;

				orig[j] = m[j];
				if (bad)
					rte_pktmbuf_mtod(m[j], uint8_t *)[j % 4] ^= 1;
				else
					nexp++;
			}
			CU_ASSERT_EQUAL(ops->open_burst(rx.mem, m, seq, n), nexp);
			for (uint16_t j = 0; j < n; j++) {
				int bad =
					j == 0 || j == 3 || j == 4 || j == 31 || j == 33 || j == 69;

				if (bad) {
					CU_ASSERT_PTR_EQUAL(m[nexp + nbad], orig[j]);
					CU_ASSERT_EQUAL(seq[nexp + nbad], 7u + j);
					nbad++;
				} else {
					ct_fill(data, sizeof(data), j);
					CU_ASSERT_PTR_EQUAL(m[ngood], orig[j]);
					CU_ASSERT_EQUAL(seq[ngood], 7u + j);
					CU_ASSERT(ct_equal(m[ngood], data, 20u + j));
					ngood++;
				}
			}
			for (uint16_t j = 0; j < n; j++)
				rte_pktmbuf_free(m[j]);
			ops->session_fini(tx.mem);
			ops->session_fini(rx.mem);
		}
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), POOL_SIZE);
}

/* Chained input to seal gives the same bytes as flat input and frees the
 * chain; chained packets open, wherever the cuts fall (inside the prefix,
 * inside the tag, empty segments). */
static void
test_chains(void)
{
	unsigned int bad = 0, runs = 0;

	for (int i = 0; i < NIMPL; i++) {
		const struct sst_crypto_ops *ops = impl[i];
		struct sst_crypto_keys ktx, krx;
		struct ct_session tx, rx;
		uint8_t data[150], flat[200];
		uint32_t n;

		rand_keys(&ktx, &krx, 500 + (uint32_t)i);
		CU_ASSERT_EQUAL_FATAL(ops->session_init(tx.mem, &ktx), 0);
		CU_ASSERT_EQUAL_FATAL(ops->session_init(rx.mem, &krx), 0);
		ct_fill(data, sizeof(data), 11);
		for (uint32_t len = 4; len <= sizeof(data); len += 73) {
			n = seal_bytes(ops, &tx, data, len, 42, flat, sizeof(flat));
			CU_ASSERT_EQUAL_FATAL(n, len + 16);
			for (uint32_t a = 0; a <= len; a++)
				for (uint32_t b = a; b <= len; b += 1 + (b - a) / 3) {
					uint32_t cuts[2] = {a, b};
					struct rte_mbuf *m = ct_chain(pool, data, len, cuts, 2);

					if (seal1(ops, &tx, &m, 42) != 1 || m->nb_segs != 1 ||
						!ct_equal(m, flat, n))
						bad++;
					rte_pktmbuf_free(m);
					runs++;
				}
			for (uint32_t a = 0; a <= n; a++)
				for (uint32_t b = a; b <= n; b += 1 + (b - a) / 3) {
					uint32_t cuts[2] = {a, b};
					struct rte_mbuf *m = ct_chain(pool, flat, n, cuts, 2);

					if (open1(ops, &rx, &m, 42) != 1 || !ct_equal(m, data, len))
						bad++;
					rte_pktmbuf_free(m);
					/* A chain with one flipped bit fails. */
					flat[(a + b) % n] ^= 0x10;
					m = ct_chain(pool, flat, n, cuts, 2);
					if (open1(ops, &rx, &m, 42) != 0)
						bad++;
					rte_pktmbuf_free(m);
					flat[(a + b) % n] ^= 0x10;
					runs += 2;
				}
		}
		ops->session_fini(tx.mem);
		ops->session_fini(rx.mem);
	}
	CU_ASSERT(runs > 3000);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), POOL_SIZE);
}

/* Open refuses to decrypt in place what someone else also holds; seal
 * reads shared input and only drops its own reference. */
static void
test_shared(void)
{
	for (int i = 0; i < NIMPL; i++) {
		const struct sst_crypto_ops *ops = impl[i];
		struct sst_crypto_keys ktx, krx;
		struct ct_session tx, rx;
		uint8_t data[64], sealed[100];
		struct rte_mbuf *m, *clone;
		uint32_t n;

		rand_keys(&ktx, &krx, 900 + (uint32_t)i);
		CU_ASSERT_EQUAL_FATAL(ops->session_init(tx.mem, &ktx), 0);
		CU_ASSERT_EQUAL_FATAL(ops->session_init(rx.mem, &krx), 0);
		ct_fill(data, sizeof(data), 1);
		n = seal_bytes(ops, &tx, data, sizeof(data), 9, sealed, sizeof(sealed));
		CU_ASSERT_EQUAL_FATAL(n, sizeof(data) + 16);

		m = ct_flat(pool, sealed, n);
		clone = rte_pktmbuf_clone(m, pool);
		CU_ASSERT_PTR_NOT_NULL_FATAL(clone);
		CU_ASSERT_EQUAL(open1(ops, &rx, &clone, 9), 0);
		CU_ASSERT_EQUAL(open1(ops, &rx, &m, 9), 0); /* refcnt 2 now */
		CU_ASSERT(ct_equal(m, sealed, n));
		rte_pktmbuf_free(clone);
		CU_ASSERT_EQUAL(open1(ops, &rx, &m, 9), 1);
		rte_pktmbuf_free(m);

		/* Seal a clone, as retransmission does: the original stays. */
		m = ct_flat(pool, data, sizeof(data));
		clone = rte_pktmbuf_clone(m, pool);
		CU_ASSERT_EQUAL(seal1(ops, &tx, &clone, 9), 1);
		CU_ASSERT(ct_equal(clone, sealed, n));
		CU_ASSERT(ct_equal(m, data, sizeof(data)));
		CU_ASSERT_EQUAL(rte_mbuf_refcnt_read(m), 1);
		rte_pktmbuf_free(clone);
		rte_pktmbuf_free(m);
		ops->session_fini(tx.mem);
		ops->session_fini(rx.mem);
	}
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), POOL_SIZE);
}

/* Seal out of place needs one output mbuf per packet: with a pool too
 * small for the burst, the packets left without one fail unchanged, in
 * order, and a packet too long for one mbuf that someone else still holds
 * fails (ipsec_mb seals one of its own in place, test_seal_jumbo_chain).
 * The inputs are two-segment chains, which no suite seals in place flat. */
/* A packet in one direct segment that nobody else holds is sealed where it
 * lies (ipsec_mb), without an mbuf from the pool; one the caller still
 * references (a retransmission queue) is sealed out of place and left
 * intact. Both open to the same plaintext. */
static void
test_seal_in_place(void)
{
	for (int i = 0; i < NIMPL; i++) {
		const struct sst_crypto_ops *ops = impl[i];
		bool in_place = strcmp(ops->driver, "ipsec_mb") == 0;
		struct sst_crypto_keys ktx, krx;
		struct ct_session tx, rx;
		struct rte_mbuf *m[2], *orig[2];
		uint64_t seq[2] = {7, 8};
		uint8_t data[100];

		rand_keys(&ktx, &krx, 2000 + (uint32_t)i);
		CU_ASSERT_EQUAL_FATAL(ops->session_init(tx.mem, &ktx), 0);
		CU_ASSERT_EQUAL_FATAL(ops->session_init(rx.mem, &krx), 0);
		ct_fill(data, sizeof(data), 3);
		m[0] = orig[0] = ct_flat(pool, data, 100);
		m[1] = orig[1] = ct_flat(pool, data, 100);
		rte_mbuf_refcnt_update(orig[1], 1); /* kept for retransmission */
		CU_ASSERT_EQUAL_FATAL(ops->seal_burst(tx.mem, m, seq, 2, pool), 2);
		CU_ASSERT_EQUAL(m[0] == orig[0], in_place);
		CU_ASSERT_PTR_NOT_EQUAL(m[1], orig[1]);
		CU_ASSERT(ct_equal(orig[1], data, 100)); /* the kept copy is intact */
		CU_ASSERT_EQUAL(rte_pktmbuf_pkt_len(m[0]), 100 + 16);
		CU_ASSERT_EQUAL(open1(ops, &rx, &m[0], 7), 1);
		CU_ASSERT_EQUAL(open1(ops, &rx, &m[1], 8), 1);
		CU_ASSERT(ct_equal(m[0], data, 100));
		CU_ASSERT(ct_equal(m[1], data, 100));
		rte_pktmbuf_free(m[0]);
		rte_pktmbuf_free(m[1]);
		rte_pktmbuf_free(orig[1]);
		ops->session_fini(tx.mem);
		ops->session_fini(rx.mem);
	}
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), POOL_SIZE);
}

/*
 * A jumbo packet (MTU 9000) is a chain of the pool's mbufs, too long for
 * any one of them: ipsec_mb seals it in place, segment by segment, to the
 * bytes a flat seal of the same packet gives (a pool of 10 KB mbufs), with
 * the tag in the last segment's tailroom or, when that is full, in one more
 * mbuf; it opens, and a flipped bit does not. Out of place it could only
 * fail, and every data packet of an AES-GCM channel at MTU 9000 did.
 */
static void
test_seal_jumbo_chain(void)
{
	struct rte_mempool *big = sst_test_pool("aead_big", 4, 10240);
	uint32_t room = rte_pktmbuf_data_room_size(pool) - RTE_PKTMBUF_HEADROOM;
	static uint8_t data[9000], ref[9100], got[9100];

	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	ct_fill(data, sizeof(data), 77);
	for (int i = 0; i < NIMPL; i++) {
		const struct sst_crypto_ops *ops = impl[i];
		struct sst_crypto_keys ktx, krx;
		struct ct_session tx, rx;

		if (strcmp(ops->driver, "ipsec_mb") != 0)
			continue;
		rand_keys(&ktx, &krx, 3000 + (uint32_t)i);
		CU_ASSERT_EQUAL_FATAL(ops->session_init(tx.mem, &ktx), 0);
		CU_ASSERT_EQUAL_FATAL(ops->session_init(rx.mem, &krx), 0);
		for (uint32_t len = room - 15; len <= sizeof(data); len += 2011) {
			/* Full segments and a partial last one (one segment
			 * with 15 bytes of tailroom for the shortest), odd cuts
			 * (inside the prefix too), full segments after a
			 * partial first one: the tag takes one more mbuf in the
			 * shortest packet's and in the last layout. */
			const uint32_t odd[] = {1, 3, 700, 2500, 4100, 6000, 7800};
			uint32_t full[8], nfull = 0, nodd = 0, n;
			uint32_t tcuts[8], ntcuts = 0, back[8], nback = 0;
			struct rte_mbuf *m, *head;

			for (uint32_t c = room; c < len && nfull < RTE_DIM(full); c += room)
				full[nfull++] = c;
			for (uint32_t c = room; c < len + 16 && ntcuts < RTE_DIM(tcuts); c += room)
				tcuts[ntcuts++] = c;
			/* Full segments from the end: the first one partial. */
			for (uint32_t k = (len - 1) / room; k > 0 && nback < RTE_DIM(back); k--)
				back[nback++] = len - k * room;
			while (nodd < RTE_DIM(odd) && odd[nodd] < len)
				nodd++;
			m = ct_flat(big, data, len);
			CU_ASSERT_PTR_NOT_NULL_FATAL(m);
			CU_ASSERT_EQUAL_FATAL(
				ops->seal_burst(tx.mem, &m, &(uint64_t){9}, 1, big), 1);
			n = ct_read(m, ref, sizeof(ref));
			rte_pktmbuf_free(m);
			CU_ASSERT_EQUAL_FATAL(n, len + 16);
			for (int layout = 0; layout < 3; layout++) {
				const uint32_t *cuts = layout == 0   ? full
						       : layout == 1 ? odd
								     : back;
				uint32_t ncuts = layout == 0 ? nfull : layout == 1 ? nodd : nback;

				if (layout == 2 && nback == 0)
					continue;
				m = head = ct_chain(pool, data, len, cuts, ncuts);
				CU_ASSERT_PTR_NOT_NULL_FATAL(m);
				CU_ASSERT_EQUAL(
					ops->seal_burst(tx.mem, &m, &(uint64_t){9}, 1, pool), 1);
				CU_ASSERT_PTR_EQUAL(m, head);
				CU_ASSERT_EQUAL(ct_read(m, got, sizeof(got)), len + 16);
				CU_ASSERT_EQUAL(memcmp(got, ref, len + 16), 0);
				CU_ASSERT_EQUAL(open1(ops, &rx, &m, 9), 1);
				CU_ASSERT_EQUAL(ct_read(m, got, sizeof(got)), len);
				CU_ASSERT_EQUAL(memcmp(got, data, len), 0);
				rte_pktmbuf_free(m);
				/* One flipped bit of the sealed packet, as a chain of
				 * full segments: refused. */
				ref[len / 2] ^= 4;
				m = ct_chain(pool, ref, len + 16, tcuts, ntcuts);
				CU_ASSERT_PTR_NOT_NULL_FATAL(m);
				CU_ASSERT_EQUAL(open1(ops, &rx, &m, 9), 0);
				rte_pktmbuf_free(m);
				ref[len / 2] ^= 4;
			}
		}
		ops->session_fini(tx.mem);
		ops->session_fini(rx.mem);
	}
	rte_mempool_free(big);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), POOL_SIZE);
}

static void
test_seal_pool_limits(void)
{
	struct rte_mempool *tiny = sst_test_pool("aead_tiny", 3, 256);

	CU_ASSERT_PTR_NOT_NULL_FATAL(tiny);
	for (int i = 0; i < NIMPL; i++) {
		const struct sst_crypto_ops *ops = impl[i];
		struct sst_crypto_keys ktx, krx;
		struct ct_session tx, rx;
		struct rte_mbuf *m[5], *orig[5];
		uint64_t seq[5] = {1, 2, 3, 4, 5};
		uint8_t data[300];

		rand_keys(&ktx, &krx, 1000 + (uint32_t)i);
		CU_ASSERT_EQUAL_FATAL(ops->session_init(tx.mem, &ktx), 0);
		CU_ASSERT_EQUAL_FATAL(ops->session_init(rx.mem, &krx), 0);
		ct_fill(data, sizeof(data), 2);
		for (int j = 0; j < 5; j++) {
			static const uint32_t cut[] = {10};

			/* Packet 1 does not fit a 256-byte mbuf with its tag,
			 * and a retransmission queue holds it. */
			m[j] = ct_chain(pool, data, j == 1 ? 250 : 30, cut, 1);
			orig[j] = m[j];
		}
		rte_mbuf_refcnt_update(orig[1], 1);
		CU_ASSERT_EQUAL(ops->seal_burst(tx.mem, m, seq, 5, tiny), 2);
		CU_ASSERT_PTR_EQUAL(m[2], orig[1]);
		CU_ASSERT_PTR_EQUAL(m[3], orig[3]);
		CU_ASSERT_PTR_EQUAL(m[4], orig[4]);
		CU_ASSERT_EQUAL(seq[0], 1);
		CU_ASSERT_EQUAL(seq[1], 3);
		CU_ASSERT_EQUAL(seq[2], 2);
		CU_ASSERT(ct_equal(m[2], data, 250));
		CU_ASSERT(ct_equal(m[3], data, 30));
		CU_ASSERT_EQUAL(open1(ops, &rx, &m[0], 1), 1);
		CU_ASSERT_EQUAL(open1(ops, &rx, &m[1], 3), 1);
		CU_ASSERT(ct_equal(m[1], data, 30));
		for (int j = 0; j < 5; j++)
			rte_pktmbuf_free(m[j]);
		rte_pktmbuf_free(orig[1]);
		CU_ASSERT_EQUAL(rte_mempool_avail_count(tiny), 3);
		/* No pool at all. */
		m[0] = ct_chain(pool, data, 30, (const uint32_t[]){10}, 1);
		CU_ASSERT_EQUAL(ops->seal_burst(tx.mem, m, seq, 1, NULL), 0);
		CU_ASSERT(ct_equal(m[0], data, 30));
		rte_pktmbuf_free(m[0]);
		ops->session_fini(tx.mem);
		ops->session_fini(rx.mem);
	}
	rte_mempool_free(tiny);
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), POOL_SIZE);
}

static void
test_sessions(void)
{
	for (int i = 0; i < NIMPL; i++) {
		const struct sst_crypto_ops *ops = impl[i];
		struct sst_crypto_keys k;
		struct ct_session s;

		rand_keys(&k, &k, 1);
		memset(s.mem, 0xa5, sizeof(s.mem));
		CU_ASSERT_EQUAL(ops->session_init(s.mem, &k), 0);
		ops->session_fini(s.mem);
		for (size_t j = 0; j < ops->session_size; j++)
			if (s.mem[j] != 0) {
				CU_FAIL("session not wiped");
				break;
			}
	}
	/* ipsec_mb needs the documented alignment. */
	{
		struct ct_session s;
		struct sst_crypto_keys k;

		rand_keys(&k, &k, 2);
		CU_ASSERT_EQUAL(impl[GCM_IMB]->session_init(s.mem + 16, &k), -EINVAL);
		CU_ASSERT_EQUAL(impl[CHACHA_IMB]->session_init(s.mem + 8, &k), -EINVAL);
	}
	CU_ASSERT_EQUAL(impl[GCM_IMB]->session_size > 2048, 1);
	CU_ASSERT(impl[CHACHA_IMB]->session_size <= 128);
	CU_ASSERT(impl[CHACHA_SODIUM]->session_size <= 128);
}

struct lcore_job {
	const struct sst_crypto_ops *ops;
	struct ct_session *tx;
	struct rte_mbuf **m;
	uint64_t *seq;
	uint16_t n, sealed;
};

static int
seal_on_lcore(void *arg)
{
	struct lcore_job *j = arg;

	j->sealed = j->ops->seal_burst(j->tx->mem, j->m, j->seq, j->n, pool);
	return 0;
}

/* A burst on an lcore that never created a session: ipsec_mb sets up that
 * lcore's own IPsec-MB manager on its first burst. */
static void
test_other_lcore(void)
{
	unsigned int worker = rte_get_next_lcore(-1, 1, 0);

	if (worker >= RTE_MAX_LCORE) {
		fprintf(stderr, "  (one lcore only: skipped)\n");
		return;
	}
	for (int i = 0; i < NIMPL; i++) {
		const struct sst_crypto_ops *ops = impl[i];
		struct sst_crypto_keys ktx, krx;
		struct ct_session tx, rx;
		struct rte_mbuf *m[8];
		uint64_t seq[8];
		uint8_t data[100];
		struct lcore_job j = {ops, &tx, m, seq, 8, 0};

		rand_keys(&ktx, &krx, 1200 + (uint32_t)i);
		CU_ASSERT_EQUAL_FATAL(ops->session_init(tx.mem, &ktx), 0);
		CU_ASSERT_EQUAL_FATAL(ops->session_init(rx.mem, &krx), 0);
		ct_fill(data, sizeof(data), 4);
		for (int k = 0; k < 8; k++) {
			m[k] = ct_flat(pool, data, 20 + 10 * (uint32_t)k);
			seq[k] = 100 + (uint64_t)k;
		}
		CU_ASSERT_EQUAL_FATAL(rte_eal_remote_launch(seal_on_lcore, &j, worker), 0);
		CU_ASSERT_EQUAL(rte_eal_wait_lcore(worker), 0);
		CU_ASSERT_EQUAL(j.sealed, 8);
		CU_ASSERT_EQUAL(ops->open_burst(rx.mem, m, seq, 8), 8);
		for (int k = 0; k < 8; k++) {
			CU_ASSERT(ct_equal(m[k], data, 20 + 10 * (uint32_t)k));
			rte_pktmbuf_free(m[k]);
		}
		ops->session_fini(tx.mem);
		ops->session_fini(rx.mem);
	}
	CU_ASSERT_EQUAL(rte_mempool_avail_count(pool), POOL_SIZE);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_ipsec_mb_gcm_spec),
	SST_TEST(test_known_answers),
	SST_TEST(test_round_trip_and_interop),
	SST_TEST(test_tamper),
	SST_TEST(test_burst_order),
	SST_TEST(test_chains),
	SST_TEST(test_shared),
	SST_TEST(test_seal_in_place),
	SST_TEST(test_seal_pool_limits),
	SST_TEST(test_seal_jumbo_chain),
	SST_TEST(test_sessions),
	SST_TEST(test_other_lcore),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("crypto_aead") < 0)
		return EXIT_FAILURE;
	pool = sst_test_pool("aead", POOL_SIZE, 2048);
	impl[GCM_IMB] = sst_crypto_find(SST_CRYPTO_AES128GCM, "ipsec_mb");
	impl[CHACHA_IMB] = sst_crypto_find(SST_CRYPTO_CHACHA20POLY1305, "ipsec_mb");
	impl[CHACHA_SODIUM] = sst_crypto_find(SST_CRYPTO_CHACHA20POLY1305, "sodium");
	if (pool == NULL || impl[0] == NULL || impl[1] == NULL || impl[2] == NULL)
		return EXIT_FAILURE;
	return sst_test_run("crypto_aead", cases);
}
