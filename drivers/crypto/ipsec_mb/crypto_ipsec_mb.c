/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * AEAD armor on Intel IPsec-MB (docs/wire-format.md section 7,
 * docs/channel-crypto.md): AES-128-GCM and ChaCha20-Poly1305.
 *
 *   bytes 0-3           clear, authenticated as associated data
 *   bytes 4..len-1      encrypted
 *   16 bytes            tag
 *
 * nonce = iv XOR (0^32 || seq, big-endian): sst_crypto_nonce().
 *
 * A burst goes through IPsec-MB's burst API (IMB_SUBMIT_BURST): all jobs of
 * a chunk are submitted at once, so the library runs them side by side where
 * its implementation has lanes (multi-buffer ChaCha20-Poly1305 on AVX-512:
 * 24 % cheaper per 64-byte packet than one job at a time, and faster than
 * the library's direct API at every size, docs/channel-crypto.md), and
 * where it is single-buffer (AES-GCM) a job costs little more than a direct
 * call.
 * Every chunk flushes the manager before the call returns, so no job
 * outlives the session keys and mbufs it points to.
 *
 * IMB_MGR: a manager holds the job queues and is not safe to share between
 * threads, and it is about 200 KB, so one per channel would cost more than
 * the rest of the channel. We keep one per lcore (RTE_PER_LCORE, thread-
 * local): no locks, no sharing, and a worker's channels all use it. It is
 * created by session_init on the calling lcore, which is the lcore that owns
 * the channel; a thread that runs bursts without ever creating a session
 * creates its manager on its first burst, once. The main thread's manager is
 * freed at exit.
 *
 * Seal is in place when the packet is one direct segment nobody else
 * references (nothing needs its plaintext any more) and has room for the
 * tag, or a chain of such segments too long for one mbuf of the pool (the
 * direct API, segment by segment); otherwise out of place, into one fresh
 * contiguous mbuf from the pool (the input chain, whose data a
 * retransmission queue may share, stays intact until the call frees it).
 * Open is in place on the received mbuf; single-segment packets use the job
 * API, chains the direct (init/update/finalize) API segment by segment.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <intel-ipsec-mb.h>
#include <rte_common.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_per_lcore.h>
#include <sodium.h>

#include "sst_crypto_driver.h"
#include "sst_log.h"

RTE_LOG_REGISTER(sst_logtype_crypto_ipsec_mb, sst.crypto.ipsec_mb, NOTICE);
#define IPSEC_MB_LOG(level, fmt, ...) \
	SST_LOG(level, sst_logtype_crypto_ipsec_mb, "crypto_ipsec_mb", fmt, ##__VA_ARGS__)

enum {
	IMB_TAG_LEN = 16,
	IMB_AAD_LEN = SST_CRYPTO_CLEAR_PREFIX,
	IMB_GCM_KEY_LEN = 16,
	IMB_CHACHA_KEY_LEN = 32,
};

/*
 * One session layout for both suites; session_size cuts it after the key
 * union member the suite uses, so a ChaCha20-Poly1305 session is 128 bytes.
 * IPsec-MB wants its GCM key data 16-byte aligned and runs best at 64.
 */
struct imb_session {
	uint8_t tx_iv[SST_CRYPTO_IV_LEN];
	uint8_t rx_iv[SST_CRYPTO_IV_LEN];
	union {
		struct {
			struct gcm_key_data tx __rte_aligned(64);
			struct gcm_key_data rx __rte_aligned(64);
		} gcm;
		struct {
			uint8_t tx[IMB_CHACHA_KEY_LEN] __rte_aligned(64);
			uint8_t rx[IMB_CHACHA_KEY_LEN];
		} chacha;
	} k __rte_aligned(64);
};

#define IMB_GCM_SESSION_SIZE \
	(offsetof(struct imb_session, k) + sizeof(((struct imb_session *)0)->k.gcm))
#define IMB_CHACHA_SESSION_SIZE \
	(offsetof(struct imb_session, k) + sizeof(((struct imb_session *)0)->k.chacha))

static_assert(sizeof(struct imb_session) <= SST_CRYPTO_SESSION_MAX, "session too large");
static_assert(_Alignof(struct imb_session) <= SST_CRYPTO_SESSION_ALIGN, "session alignment");
static_assert(IMB_CHACHA_SESSION_SIZE <= 128, "ChaCha20-Poly1305 session stays small");

static RTE_DEFINE_PER_LCORE(IMB_MGR *, imb_mgr);

/* Create this thread's manager. Control path (session_init), or a thread's
 * first burst if it never created a session. Returns 0, -ENOMEM or -ENOTSUP
 * (no implementation for this CPU). */
static int
imb_mgr_create(void)
{
	IMB_ARCH arch = IMB_ARCH_NONE;
	IMB_MGR *mgr = alloc_mb_mgr(0);

	if (mgr == NULL)
		return -ENOMEM;
	init_mb_mgr_auto(mgr, &arch);
	if (arch == IMB_ARCH_NONE || imb_get_errno(mgr) != 0) {
		IPSEC_MB_LOG(ERR, "IPsec-MB %s has no implementation for this CPU",
			imb_get_version_str());
		free_mb_mgr(mgr);
		return -ENOTSUP;
	}
	RTE_PER_LCORE(imb_mgr) = mgr;
	IPSEC_MB_LOG(DEBUG, "lcore %u: IPsec-MB %s manager, arch %d", rte_lcore_id(),
		imb_get_version_str(), (int)arch);
	return 0;
}

static inline IMB_MGR *
imb_mgr_get(void)
{
	if (RTE_PER_LCORE(imb_mgr) == NULL && imb_mgr_create() < 0)
		return NULL;
	return RTE_PER_LCORE(imb_mgr);
}

RTE_FINI(crypto_ipsec_mb_fini)
{
	if (RTE_PER_LCORE(imb_mgr) != NULL) {
		free_mb_mgr(RTE_PER_LCORE(imb_mgr));
		RTE_PER_LCORE(imb_mgr) = NULL;
	}
}

/* Checks common to both suites' session_init; sets up this lcore's
 * manager. */
static int
imb_session_check(void *session)
{
	if (((uintptr_t)session & (SST_CRYPTO_SESSION_ALIGN - 1)) != 0)
		return -EINVAL;
	if (RTE_PER_LCORE(imb_mgr) == NULL)
		return imb_mgr_create();
	return 0;
}

static int
gcm_session_init(void *session, const struct sst_crypto_keys *keys)
{
	struct imb_session *s = session;
	IMB_MGR *mgr;
	int rc = imb_session_check(session);

	if (rc < 0)
		return rc;
	mgr = RTE_PER_LCORE(imb_mgr);
	/* Key schedule and GHASH key powers, once per key. */
	IMB_AES128_GCM_PRE(mgr, keys->tx_key, &s->k.gcm.tx);
	IMB_AES128_GCM_PRE(mgr, keys->rx_key, &s->k.gcm.rx);
	memcpy(s->tx_iv, keys->tx_iv, SST_CRYPTO_IV_LEN);
	memcpy(s->rx_iv, keys->rx_iv, SST_CRYPTO_IV_LEN);
	return 0;
}

static void
gcm_session_fini(void *session)
{
	sodium_memzero(session, IMB_GCM_SESSION_SIZE);
}

static int
chacha_session_init(void *session, const struct sst_crypto_keys *keys)
{
	struct imb_session *s = session;
	int rc = imb_session_check(session);

	if (rc < 0)
		return rc;
	memcpy(s->k.chacha.tx, keys->tx_key, IMB_CHACHA_KEY_LEN);
	memcpy(s->k.chacha.rx, keys->rx_key, IMB_CHACHA_KEY_LEN);
	memcpy(s->tx_iv, keys->tx_iv, SST_CRYPTO_IV_LEN);
	memcpy(s->rx_iv, keys->rx_iv, SST_CRYPTO_IV_LEN);
	return 0;
}

static void
chacha_session_fini(void *session)
{
	sodium_memzero(session, IMB_CHACHA_SESSION_SIZE);
}

/*
 * The functions below take the suite as a compile-time constant: each
 * burst entry point passes its own, so the suite tests fold away and the
 * per-packet code has no mode switch.
 */

static __rte_always_inline const void *
imb_key(const struct imb_session *s, enum sst_crypto_suite suite, int tx)
{
	if (suite == SST_CRYPTO_AES128GCM)
		return tx ? (const void *)&s->k.gcm.tx : (const void *)&s->k.gcm.rx;
	return tx ? s->k.chacha.tx : s->k.chacha.rx;
}

/* Fill a job: AAD = src[0, 4), text = src[4, len) to dst, tag to tag. */
static __rte_always_inline void
imb_job_fill(IMB_JOB *job, enum sst_crypto_suite suite, const void *key, int encrypt,
	const uint8_t *src, uint8_t *dst, uint32_t len, const uint8_t *nonce, uint8_t *tag)
{
	job->enc_keys = key;
	job->dec_keys = key;
	job->src = src;
	job->dst = dst;
	job->cipher_start_src_offset_in_bytes = IMB_AAD_LEN;
	job->msg_len_to_cipher_in_bytes = len - IMB_AAD_LEN;
	job->hash_start_src_offset_in_bytes = IMB_AAD_LEN;
	job->msg_len_to_hash_in_bytes = len - IMB_AAD_LEN;
	job->iv = nonce;
	job->iv_len_in_bytes = SST_CRYPTO_IV_LEN;
	job->auth_tag_output = tag;
	job->auth_tag_output_len_in_bytes = IMB_TAG_LEN;
	job->cipher_direction = encrypt ? IMB_DIR_ENCRYPT : IMB_DIR_DECRYPT;
	job->chain_order = encrypt ? IMB_ORDER_CIPHER_HASH : IMB_ORDER_HASH_CIPHER;
	if (suite == SST_CRYPTO_AES128GCM) {
		job->key_len_in_bytes = IMB_KEY_128_BYTES;
		job->cipher_mode = IMB_CIPHER_GCM;
		job->hash_alg = IMB_AUTH_AES_GMAC;
		job->u.GCM.aad = src;
		job->u.GCM.aad_len_in_bytes = IMB_AAD_LEN;
	} else {
		job->key_len_in_bytes = IMB_KEY_256_BYTES;
		job->cipher_mode = IMB_CIPHER_CHACHA20_POLY1305;
		job->hash_alg = IMB_AUTH_CHACHA20_POLY1305;
		job->u.CHACHA20_POLY1305.aad = src;
		job->u.CHACHA20_POLY1305.aad_len_in_bytes = IMB_AAD_LEN;
	}
}

/* The AEAD jobs of one chunk, described before IPsec-MB gets them. */
struct imb_work {
	const uint8_t *src[SST_CRYPTO_CHUNK]; /* AAD, then the text from byte 4 */
	uint8_t *dst[SST_CRYPTO_CHUNK];	      /* where byte 4 of the output goes */
	uint8_t *tag[SST_CRYPTO_CHUNK];
	uint32_t len[SST_CRYPTO_CHUNK]; /* AAD and text */
	uint8_t nonce[SST_CRYPTO_CHUNK][SST_CRYPTO_IV_LEN];
	uint8_t pkt[SST_CRYPTO_CHUNK]; /* packet index in the chunk */
	uint16_t n;
};

/*
 * Run a chunk's jobs as one IPsec-MB burst and flush it, so that no job
 * outlives this call; a packet whose job did not complete gets its bit set
 * in *fail.
 *
 * The burst API costs less per job than the one-job API (measured: about 40
 * cycles per 64-byte AES-GCM packet, docs/channel-crypto.md). Jobs go in
 * through the _NOCHECK entry, as in DPDK's aesni_mb PMD: the library's
 * argument checks would repeat what imb_job_fill() guarantees by
 * construction (lengths come from validated mbufs, the rest are
 * constants), and the completion status is still checked below.
 */
static __rte_always_inline void
imb_run(IMB_MGR *mgr, enum sst_crypto_suite suite, const void *key, int encrypt, struct imb_work *w,
	uint64_t *fail)
{
	IMB_JOB *jobs[SST_CRYPTO_CHUNK];
	uint64_t seen = 0, all = 0;
	uint32_t done;

	if (w->n == 0)
		return;
	for (uint16_t k = 0; k < w->n; k++)
		all |= UINT64_C(1) << w->pkt[k];
	/* The manager is flushed at the end of every chunk, so the whole
	 * chunk always fits its queue; refuse rather than assume. */
	if (IMB_GET_NEXT_BURST(mgr, w->n, jobs) < w->n) {
		*fail |= all;
		return;
	}
	for (uint16_t k = 0; k < w->n; k++) {
		imb_job_fill(jobs[k], suite, key, encrypt, w->src[k], w->dst[k], w->len[k],
			w->nonce[k], w->tag[k]);
		jobs[k]->user_data = (void *)(uintptr_t)w->pkt[k];
	}
	done = IMB_SUBMIT_BURST_NOCHECK(mgr, w->n, jobs);
	for (;;) {
		for (uint32_t k = 0; k < done; k++) {
			uint64_t bit = UINT64_C(1) << (uintptr_t)jobs[k]->user_data;

			seen |= bit;
			if (jobs[k]->status != IMB_STATUS_COMPLETED)
				*fail |= bit;
		}
		if (seen == all)
			break;
		done = IMB_FLUSH_BURST(mgr, SST_CRYPTO_CHUNK, jobs);
		if (done == 0)
			break;
	}
	*fail |= all & ~seen;
}

/*
 * Whether a packet can be sealed where it lies: one direct segment that
 * nobody else references (so no retransmission queue still needs the
 * plaintext) with room for the tag. This saves an mbuf allocation, a free
 * and a copy per packet, about half the driver's cost at 64 bytes.
 */
static inline bool
imb_seal_in_place_ok(const struct rte_mbuf *m)
{
	return m->nb_segs == 1 && RTE_MBUF_DIRECT(m) && rte_mbuf_refcnt_read(m) == 1 &&
	       rte_pktmbuf_tailroom(m) >= IMB_TAG_LEN;
}

/* Whether seal or open may rewrite every segment of m. */
static inline int
imb_writable(const struct rte_mbuf *m)
{
	for (; m != NULL; m = m->next)
		if (!RTE_MBUF_DIRECT(m) || rte_mbuf_refcnt_read(m) != 1)
			return 0;
	return 1;
}

/*
 * Whether a packet is sealed in place as the chain it is (one segment or
 * more; imb_seal_in_place_ok() takes the single segments with room for the
 * tag): with its tag it is longer than one mbuf of the pool holds, and every
 * segment is ours. A jumbo packet (MTU 9000) comes as a chain of the pool's
 * mbufs, and out of place it could only fail: every data packet of an
 * AES-GCM channel at MTU 9000 did, and the transfer stalled. Without a pool
 * such a packet still fails, as before.
 */
static inline bool
imb_seal_chain_ok(const struct rte_mbuf *m, struct rte_mempool *pool)
{
	uint32_t room;

	if (pool == NULL)
		return false;
	room = rte_pktmbuf_data_room_size(pool);
	room -= RTE_MIN(room, (uint32_t)RTE_PKTMBUF_HEADROOM);
	return m->pkt_len + IMB_TAG_LEN > room && imb_writable(m);
}

/* Get an output mbuf for each packet that cannot be sealed in place, flat
 * (bit in *in_place) or as a chain (bit in *chain): in bulk, or one by one
 * when the pool is too low (the ones missing then fail). out[i] stays NULL
 * for packets sealed in place. */
static inline void
imb_alloc_out(struct rte_mempool *pool, struct rte_mbuf **pkts, struct rte_mbuf **out, uint16_t cnt,
	uint64_t *in_place, uint64_t *chain)
{
	struct rte_mbuf *spare[SST_CRYPTO_CHUNK];
	uint16_t need = 0, next = 0;

	*in_place = 0;
	*chain = 0;
	for (uint16_t i = 0; i < cnt; i++) {
		if (imb_seal_in_place_ok(pkts[i]))
			*in_place |= UINT64_C(1) << i;
		else if (imb_seal_chain_ok(pkts[i], pool))
			*chain |= UINT64_C(1) << i;
		else
			need++;
	}
	if (need > 0 && (pool == NULL || rte_pktmbuf_alloc_bulk(pool, spare, need) != 0))
		for (uint16_t i = 0; i < need; i++)
			spare[i] = pool != NULL ? rte_pktmbuf_alloc(pool) : NULL;
	for (uint16_t i = 0; i < cnt; i++)
		out[i] = ((*in_place | *chain) >> i & 1) ? NULL : spare[next++];
}

/* The direct API's state of one packet, either suite. */
union imb_chain_ctx {
	struct gcm_context_data gcm;
	struct chacha20_poly1305_context_data chacha;
};

/* Start a chain's AEAD: nonce, and bytes [0, 4) as associated data. */
static __rte_always_inline void
imb_chain_start(IMB_MGR *mgr, enum sst_crypto_suite suite, const void *key, union imb_chain_ctx *c,
	const struct rte_mbuf *m, const uint8_t *nonce)
{
	uint8_t aad[IMB_AAD_LEN];
	const uint8_t *p = rte_pktmbuf_read(m, 0, IMB_AAD_LEN, aad);

	if (suite == SST_CRYPTO_AES128GCM)
		IMB_AES128_GCM_INIT(mgr, key, &c->gcm, nonce, p, IMB_AAD_LEN);
	else
		IMB_CHACHA20_POLY1305_INIT(mgr, key, &c->chacha, nonce, p, IMB_AAD_LEN);
}

/* Encrypt or decrypt bytes [4, end) of a chain in place, each segment's
 * share in turn. */
static __rte_always_inline void
imb_chain_update(IMB_MGR *mgr, enum sst_crypto_suite suite, const void *key, union imb_chain_ctx *c,
	struct rte_mbuf *m, uint32_t end, int encrypt)
{
	uint32_t skip = IMB_AAD_LEN, left = end - IMB_AAD_LEN;

	for (struct rte_mbuf *seg = m; seg != NULL && left > 0; seg = seg->next) {
		uint8_t *d = rte_pktmbuf_mtod(seg, uint8_t *);
		uint32_t n = seg->data_len;

		if (skip >= n) {
			skip -= n;
			continue;
		}
		d += skip;
		n = RTE_MIN(n - skip, left);
		skip = 0;
		left -= n;
		if (suite == SST_CRYPTO_AES128GCM && encrypt)
			IMB_AES128_GCM_ENC_UPDATE(mgr, key, &c->gcm, d, d, n);
		else if (suite == SST_CRYPTO_AES128GCM)
			IMB_AES128_GCM_DEC_UPDATE(mgr, key, &c->gcm, d, d, n);
		else if (encrypt)
			IMB_CHACHA20_POLY1305_ENC_UPDATE(mgr, key, &c->chacha, d, d, n);
		else
			IMB_CHACHA20_POLY1305_DEC_UPDATE(mgr, key, &c->chacha, d, d, n);
	}
}

/*
 * Seal a chain in place with the direct API, segment by segment (bytes
 * [4, len) encrypted, bytes [0, 4) authenticated), the tag after the last
 * byte: in the last segment's tailroom, or in one more mbuf from pool.
 * Precondition: imb_seal_chain_ok(m, pool). Returns 0, or -1 with m
 * unchanged (no room for the tag).
 */
static __rte_always_inline int
imb_seal_chain(IMB_MGR *mgr, enum sst_crypto_suite suite, const void *key, struct rte_mbuf *m,
	const uint8_t *nonce, struct rte_mempool *pool)
{
	struct rte_mbuf *last = rte_pktmbuf_lastseg(m), *extra = NULL;
	union imb_chain_ctx c;
	uint8_t *tag;

	if (rte_pktmbuf_tailroom(last) < IMB_TAG_LEN) {
		if (m->nb_segs >= RTE_MBUF_MAX_NB_SEGS)
			return -1;
		extra = rte_pktmbuf_alloc(pool);
		if (extra == NULL || rte_pktmbuf_tailroom(extra) < IMB_TAG_LEN) {
			rte_pktmbuf_free(extra);
			return -1;
		}
	}
	imb_chain_start(mgr, suite, key, &c, m, nonce);
	imb_chain_update(mgr, suite, key, &c, m, m->pkt_len, 1);
	if (extra != NULL) {
		tag = rte_pktmbuf_mtod(extra, uint8_t *);
		extra->data_len = IMB_TAG_LEN;
		extra->pkt_len = IMB_TAG_LEN;
		last->next = extra;
		m->nb_segs++;
	} else {
		tag = rte_pktmbuf_mtod_offset(last, uint8_t *, last->data_len);
		last->data_len += IMB_TAG_LEN;
	}
	m->pkt_len += IMB_TAG_LEN;
	if (suite == SST_CRYPTO_AES128GCM)
		IMB_AES128_GCM_ENC_FINALIZE(mgr, key, &c.gcm, tag, IMB_TAG_LEN);
	else
		IMB_CHACHA20_POLY1305_ENC_FINALIZE(mgr, &c.chacha, tag, IMB_TAG_LEN);
	sodium_memzero(&c, sizeof(c));
	return 0;
}

static __rte_always_inline uint16_t
imb_seal_burst(enum sst_crypto_suite suite, void *session, struct rte_mbuf **pkts, uint64_t *seq,
	uint16_t n, struct rte_mempool *pool)
{
	const struct imb_session *s = session;
	const void *key = imb_key(s, suite, 1);
	IMB_MGR *mgr = imb_mgr_get();
	uint16_t good = 0;

	if (mgr == NULL)
		return 0;
	for (uint32_t off = 0; off < n; off += SST_CRYPTO_CHUNK) {
		uint16_t cnt = RTE_MIN(n - off, SST_CRYPTO_CHUNK);
		struct rte_mbuf *out[SST_CRYPTO_CHUNK];
		struct imb_work w;
		uint64_t fail = 0, in_place, chain;

		w.n = 0;
		imb_alloc_out(pool, pkts + off, out, cnt, &in_place, &chain);
		for (uint16_t i = 0; i < cnt; i++) {
			struct rte_mbuf *in = pkts[off + i];
			uint32_t len = in->pkt_len;
			const uint8_t *src;
			uint8_t *dst;

			if (len < IMB_AAD_LEN) {
				fail |= UINT64_C(1) << i;
				continue;
			}
			if (chain >> i & 1) {
				sst_crypto_nonce(w.nonce[w.n], s->tx_iv, seq[off + i]);
				if (imb_seal_chain(mgr, suite, key, in, w.nonce[w.n], pool) < 0)
					fail |= UINT64_C(1) << i;
				continue;
			}
			if (in_place >> i & 1) {
				src = dst = rte_pktmbuf_mtod(in, uint8_t *);
				in->data_len = (uint16_t)(len + IMB_TAG_LEN);
				in->pkt_len = len + IMB_TAG_LEN;
			} else {
				if (out[i] == NULL ||
					len + IMB_TAG_LEN > rte_pktmbuf_tailroom(out[i])) {
					fail |= UINT64_C(1) << i;
					continue;
				}
				dst = rte_pktmbuf_mtod(out[i], uint8_t *);
				out[i]->data_len = (uint16_t)(len + IMB_TAG_LEN);
				out[i]->pkt_len = len + IMB_TAG_LEN;
				/* A contiguous packet is read where it lies; a chain
				 * is gathered into the output and encrypted there. */
				src = rte_pktmbuf_read(in, 0, len, dst);
				if (src != dst)
					memcpy(dst, src, IMB_AAD_LEN);
			}
			w.src[w.n] = src;
			w.dst[w.n] = dst + IMB_AAD_LEN;
			w.tag[w.n] = dst + len;
			w.len[w.n] = len;
			sst_crypto_nonce(w.nonce[w.n], s->tx_iv, seq[off + i]);
			w.pkt[w.n++] = (uint8_t)i;
		}
		imb_run(mgr, suite, key, 1, &w, &fail);
		for (uint16_t i = 0; i < cnt; i++) {
			struct rte_mbuf *in = pkts[off + i];

			if (chain >> i & 1)
				continue; /* sealed where it lies, or unchanged */
			if (in_place >> i & 1) {
				/* A failed in-place job leaves undefined bytes;
				 * at least the length is restored. */
				if ((fail >> i & 1) && in->pkt_len >= IMB_AAD_LEN + IMB_TAG_LEN) {
					in->data_len -= IMB_TAG_LEN;
					in->pkt_len -= IMB_TAG_LEN;
				}
			} else if (fail >> i & 1) {
				rte_pktmbuf_free(out[i]);
			} else {
				rte_pktmbuf_free(in);
				pkts[off + i] = out[i];
			}
		}
		good = sst_crypto_burst_settle(pkts, seq, good, off, cnt, fail);
	}
	return good;
}

/*
 * Open a multi-segment packet with the direct API: decrypt each segment's
 * share of bytes [4, len - 16) in place, then compare tags in constant time
 * and trim. Received packets are normally one segment; this is the slow
 * path for reassembled or scattered ones. Returns 0 or -1.
 */
static __rte_always_inline int
imb_open_chain(IMB_MGR *mgr, enum sst_crypto_suite suite, const void *key, struct rte_mbuf *m,
	const uint8_t *nonce)
{
	uint32_t body = m->pkt_len - IMB_TAG_LEN;
	uint8_t tag[IMB_TAG_LEN], want[IMB_TAG_LEN];
	union imb_chain_ctx c;
	const uint8_t *p;
	int rc = -1;

	imb_chain_start(mgr, suite, key, &c, m, nonce);
	imb_chain_update(mgr, suite, key, &c, m, body, 0);
	if (suite == SST_CRYPTO_AES128GCM)
		IMB_AES128_GCM_DEC_FINALIZE(mgr, key, &c.gcm, want, IMB_TAG_LEN);
	else
		IMB_CHACHA20_POLY1305_DEC_FINALIZE(mgr, &c.chacha, want, IMB_TAG_LEN);
	p = rte_pktmbuf_read(m, body, IMB_TAG_LEN, tag);
	if (p != NULL && crypto_verify_16(p, want) == 0) {
		sst_crypto_mbuf_trim(m, IMB_TAG_LEN);
		rc = 0;
	}
	sodium_memzero(&c, sizeof(c));
	sodium_memzero(want, sizeof(want));
	return rc;
}

static __rte_always_inline uint16_t
imb_open_burst(enum sst_crypto_suite suite, void *session, struct rte_mbuf **pkts, uint64_t *seq,
	uint16_t n)
{
	const struct imb_session *s = session;
	const void *key = imb_key(s, suite, 0);
	IMB_MGR *mgr = imb_mgr_get();
	uint16_t good = 0;

	if (mgr == NULL)
		return 0;
	for (uint32_t off = 0; off < n; off += SST_CRYPTO_CHUNK) {
		uint16_t cnt = RTE_MIN(n - off, SST_CRYPTO_CHUNK);
		uint8_t want[SST_CRYPTO_CHUNK][IMB_TAG_LEN];
		struct imb_work w;
		uint64_t fail = 0;

		w.n = 0;
		for (uint16_t i = 0; i < cnt; i++) {
			struct rte_mbuf *m = pkts[off + i];
			uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);

			if (m->pkt_len < IMB_AAD_LEN + IMB_TAG_LEN || !imb_writable(m)) {
				fail |= UINT64_C(1) << i;
				continue;
			}
			sst_crypto_nonce(w.nonce[w.n], s->rx_iv, seq[off + i]);
			if (m->nb_segs > 1) {
				if (imb_open_chain(mgr, suite, key, m, w.nonce[w.n]) < 0)
					fail |= UINT64_C(1) << i;
				continue;
			}
			w.src[w.n] = p;
			w.dst[w.n] = p + IMB_AAD_LEN;
			w.tag[w.n] = want[w.n];
			w.len[w.n] = m->pkt_len - IMB_TAG_LEN;
			w.pkt[w.n++] = (uint8_t)i;
		}
		imb_run(mgr, suite, key, 0, &w, &fail);
		for (uint16_t k = 0; k < w.n; k++) {
			struct rte_mbuf *m = pkts[off + w.pkt[k]];

			if (fail >> w.pkt[k] & 1)
				continue;
			if (crypto_verify_16(w.src[k] + w.len[k], want[k]) != 0) {
				fail |= UINT64_C(1) << w.pkt[k];
				continue;
			}
			rte_pktmbuf_trim(m, IMB_TAG_LEN);
		}
		/* The computed tags of rejected packets are valid tags for
		 * the attacker's ciphertexts: do not leave them on the stack. */
		sodium_memzero(want, sizeof(want));
		good = sst_crypto_burst_settle(pkts, seq, good, off, cnt, fail);
	}
	return good;
}

static uint16_t
gcm_seal_burst(
	void *session, struct rte_mbuf **pkts, uint64_t *seq, uint16_t n, struct rte_mempool *pool)
{
	return imb_seal_burst(SST_CRYPTO_AES128GCM, session, pkts, seq, n, pool);
}

static uint16_t
gcm_open_burst(void *session, struct rte_mbuf **pkts, uint64_t *seq, uint16_t n)
{
	return imb_open_burst(SST_CRYPTO_AES128GCM, session, pkts, seq, n);
}

static uint16_t
chacha_seal_burst(
	void *session, struct rte_mbuf **pkts, uint64_t *seq, uint16_t n, struct rte_mempool *pool)
{
	return imb_seal_burst(SST_CRYPTO_CHACHA20POLY1305, session, pkts, seq, n, pool);
}

static uint16_t
chacha_open_burst(void *session, struct rte_mbuf **pkts, uint64_t *seq, uint16_t n)
{
	return imb_open_burst(SST_CRYPTO_CHACHA20POLY1305, session, pkts, seq, n);
}

/*
 * Usage limits (docs/channel-crypto.md). AES-GCM: the 96-bit nonce space
 * (2^64 sequence numbers here) is not the bound; the bound is the birthday
 * distinguisher on AES as a permutation, which grows with the square of the
 * blocks encrypted under one key. TLS 1.3 (RFC 8446 section 5.5) allows
 * 2^24.5 records of up to 2^14 bytes for a margin of about 2^-57; our
 * packets are smaller than such records (at most a 9000-byte jumbo frame),
 * so 2^24 packets keeps at least that margin. Integrity: 2^52 forgery
 * attempts (RFC 9001 section 6.6, same margin).
 */
static const struct sst_crypto_ops gcm_ops = {
	.driver = "ipsec_mb",
	.suite = SST_CRYPTO_AES128GCM,
	.priority = 10,
	.trailer_len = IMB_TAG_LEN,
	.key_len = IMB_GCM_KEY_LEN,
	.session_size = IMB_GCM_SESSION_SIZE,
	.packet_limit = UINT64_C(1) << 24,
	.integrity_limit = UINT64_C(1) << 52,
	.session_init = gcm_session_init,
	.session_fini = gcm_session_fini,
	.seal_burst = gcm_seal_burst,
	.open_burst = gcm_open_burst,
};

/*
 * ChaCha20-Poly1305: ChaCha20 is a PRF, so there is no birthday bound on
 * confidentiality; RFC 9001 section 6.6 puts its limit beyond 2^62 packets,
 * which is what we use (centuries at 100 Mpps). Poly1305 forgeries are the
 * binding limit: 2^36 failed opens (RFC 9001 section 6.6).
 */
static const struct sst_crypto_ops chacha_ops = {
	.driver = "ipsec_mb",
	.suite = SST_CRYPTO_CHACHA20POLY1305,
	.priority = 10,
	.trailer_len = IMB_TAG_LEN,
	.key_len = IMB_CHACHA_KEY_LEN,
	.session_size = IMB_CHACHA_SESSION_SIZE,
	.packet_limit = UINT64_C(1) << 62,
	.integrity_limit = UINT64_C(1) << 36,
	.session_init = chacha_session_init,
	.session_fini = chacha_session_fini,
	.seal_burst = chacha_seal_burst,
	.open_burst = chacha_open_burst,
};

RTE_INIT(crypto_ipsec_mb_register)
{
	int rc;

	rc = sst_crypto_register(&gcm_ops);
	if (rc < 0)
		IPSEC_MB_LOG(ERR, "aes128gcm registration failed: %d", rc);
	rc = sst_crypto_register(&chacha_ops);
	if (rc < 0)
		IPSEC_MB_LOG(ERR, "chacha20poly1305 registration failed: %d", rc);
}
