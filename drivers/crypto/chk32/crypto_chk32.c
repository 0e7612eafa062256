/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checksum armor, byte-compatible with the SST prototype (paper 4.2.3,
 * docs/wire-format.md section 3): a 4-byte big-endian trailer holding Chk32
 * of the sequence number and the packet plus the sender's 32-bit key. It
 * detects corruption and blind injection by an off-path sender who does not
 * know the key, not an on-path attacker: the keys cross the network in
 * clear during checksum negotiation.
 *
 * Seal appends the trailer in place: into the last segment's tailroom when
 * that segment is a direct mbuf nobody else references, otherwise into a
 * one-segment trailer mbuf from the pool chained behind it (retransmissions
 * send clones, whose indirect segments share the original's data, so this
 * is the common case for them). Open checks the
 * trailer, which may straddle segments, and trims it.
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <sodium.h>

#include "sst_chk32.h"
#include "sst_crypto_driver.h"
#include "sst_log.h"

RTE_LOG_REGISTER(sst_logtype_crypto_chk32, sst.crypto.chk32, NOTICE);
#define CRYPTO_CHK32_LOG(level, fmt, ...) \
	SST_LOG(level, sst_logtype_crypto_chk32, "crypto_chk32", fmt, ##__VA_ARGS__)

struct chk32_session {
	uint32_t tx_key; /* ours, added to our trailers */
	uint32_t rx_key; /* the peer's */
};

static_assert(sizeof(struct chk32_session) <= SST_CRYPTO_SESSION_MAX, "session too large");
static_assert(SST_CHK32_TRAILER_LEN == 4, "Chk32 trailer is one 32-bit word");

static int
chk32_session_init(void *session, const struct sst_crypto_keys *keys)
{
	struct chk32_session *s = session;

	s->tx_key = keys->tx_chk_key;
	s->rx_key = keys->rx_chk_key;
	return 0;
}

static void
chk32_session_fini(void *session)
{
	sodium_memzero(session, sizeof(struct chk32_session));
}

/* Append the trailer of one packet. Returns 0, or -EBUSY (the head's or the
 * last segment's mbuf is shared, so its metadata is not ours to change),
 * -ENOBUFS (no trailer mbuf) or -EOVERFLOW (chain too long), with the packet
 * unchanged. */
static inline int
chk32_seal_one(
	const struct chk32_session *s, struct rte_mbuf *m, uint64_t seq, struct rte_mempool *pool)
{
	struct rte_mbuf *last = rte_pktmbuf_lastseg(m);
	rte_be32_t t;
	struct rte_mbuf *tm;

	if (rte_mbuf_refcnt_read(m) != 1 || rte_mbuf_refcnt_read(last) != 1)
		return -EBUSY;
	t = rte_cpu_to_be_32(sst_chk32_mbuf(seq, m, m->pkt_len) + s->tx_key);
	/* Only a direct segment owns its data; an indirect one (a clone) or
	 * an external buffer shares it with the original. */
	if (RTE_MBUF_DIRECT(last) && rte_pktmbuf_tailroom(last) >= SST_CHK32_TRAILER_LEN) {
		memcpy(rte_pktmbuf_mtod_offset(last, uint8_t *, last->data_len), &t, sizeof(t));
		last->data_len += SST_CHK32_TRAILER_LEN;
		m->pkt_len += SST_CHK32_TRAILER_LEN;
		return 0;
	}
	if (pool == NULL)
		return -ENOBUFS;
	tm = rte_pktmbuf_alloc(pool);
	if (tm == NULL)
		return -ENOBUFS;
	if (rte_pktmbuf_tailroom(tm) < SST_CHK32_TRAILER_LEN) {
		rte_pktmbuf_free(tm);
		return -ENOBUFS;
	}
	memcpy(rte_pktmbuf_append(tm, SST_CHK32_TRAILER_LEN), &t, sizeof(t));
	if (rte_pktmbuf_chain(m, tm) != 0) {
		rte_pktmbuf_free(tm);
		return -EOVERFLOW;
	}
	return 0;
}

static int
chk32_seal_cb(const void *session, struct rte_mbuf *m, uint64_t seq, void *pool)
{
	return chk32_seal_one(session, m, seq, pool);
}

/* The burst entry points are never inlined: a profile-guided build would
 * otherwise promote the channel's indirect call and inline them into its
 * send and receive bursts, and a profile could no longer tell the armor's
 * cycles from the channel's (perf/compare.sh's "outside the armor"). One
 * call a burst. */
static __rte_noinline uint16_t
chk32_seal_burst(
	void *session, struct rte_mbuf **pkts, uint64_t *seq, uint16_t n, struct rte_mempool *pool)
{
	return sst_crypto_burst_each(session, pkts, seq, n, chk32_seal_cb, pool);
}

/* Verify and strip the trailer of one packet. Returns 0, or -1 (shorter than
 * a trailer, or the trailer is wrong) with the packet unchanged. */
static inline int
chk32_open_one(const struct chk32_session *s, struct rte_mbuf *m, uint64_t seq)
{
	uint8_t copy[SST_CHK32_TRAILER_LEN];
	const uint8_t *p;
	uint32_t body, got;

	if (m->pkt_len < SST_CHK32_TRAILER_LEN)
		return -1;
	body = m->pkt_len - SST_CHK32_TRAILER_LEN;
	p = rte_pktmbuf_read(m, body, SST_CHK32_TRAILER_LEN, copy);
	if (p == NULL)
		return -1;
	got = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	if (got != sst_chk32_mbuf(seq, m, body) + s->rx_key)
		return -1;
	sst_crypto_mbuf_trim(m, SST_CHK32_TRAILER_LEN);
	return 0;
}

static int
chk32_open_cb(const void *session, struct rte_mbuf *m, uint64_t seq, void *arg)
{
	RTE_SET_USED(arg);
	return chk32_open_one(session, m, seq);
}

static __rte_noinline uint16_t
chk32_open_burst(void *session, struct rte_mbuf **pkts, uint64_t *seq, uint16_t n)
{
	return sst_crypto_burst_each(session, pkts, seq, n, chk32_open_cb, NULL);
}

static const struct sst_crypto_ops chk32_ops = {
	.driver = "chk32",
	.suite = SST_CRYPTO_CHK32,
	.priority = 0,
	.trailer_len = SST_CHK32_TRAILER_LEN,
	.key_len = 0,
	.session_size = sizeof(struct chk32_session),
	/* No confidentiality and no cryptographic integrity claim: the keys
	 * are public to anyone on path, so usage limits do not apply. */
	.packet_limit = UINT64_MAX,
	.integrity_limit = UINT64_MAX,
	.session_init = chk32_session_init,
	.session_fini = chk32_session_fini,
	.seal_burst = chk32_seal_burst,
	.open_burst = chk32_open_burst,
};

RTE_INIT(crypto_chk32_register)
{
	int rc = sst_crypto_register(&chk32_ops);

	if (rc < 0)
		CRYPTO_CHK32_LOG(ERR, "registration failed: %d", rc);
}
