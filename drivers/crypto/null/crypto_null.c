/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The null armor: no trailer, no protection, nothing rewritten. It exists so
 * that channel and stream tests can run one body against a real and a fake
 * armor; it must never be offered to a peer (the negotiation layer knows
 * no wire code for it).
 */
#include <errno.h>

#include <rte_common.h>
#include <rte_log.h>

#include "sst_crypto_driver.h"
#include "sst_log.h"

RTE_LOG_REGISTER(sst_logtype_crypto_null, sst.crypto.null, NOTICE);
#define CRYPTO_NULL_LOG(level, fmt, ...) \
	SST_LOG(level, sst_logtype_crypto_null, "crypto_null", fmt, ##__VA_ARGS__)

static int
null_session_init(void *session, const struct sst_crypto_keys *keys)
{
	RTE_SET_USED(session);
	RTE_SET_USED(keys);
	return 0;
}

static void
null_session_fini(void *session)
{
	RTE_SET_USED(session);
}

static uint16_t
null_seal_burst(
	void *session, struct rte_mbuf **pkts, uint64_t *seq, uint16_t n, struct rte_mempool *pool)
{
	RTE_SET_USED(session);
	RTE_SET_USED(pkts);
	RTE_SET_USED(seq);
	RTE_SET_USED(pool);
	return n;
}

static uint16_t
null_open_burst(void *session, struct rte_mbuf **pkts, uint64_t *seq, uint16_t n)
{
	RTE_SET_USED(session);
	RTE_SET_USED(pkts);
	RTE_SET_USED(seq);
	return n;
}

static const struct sst_crypto_ops null_ops = {
	.driver = "null",
	.suite = SST_CRYPTO_NULL,
	.priority = 0,
	.trailer_len = 0,
	.key_len = 0,
	.session_size = 0,
	.packet_limit = UINT64_MAX,
	.integrity_limit = UINT64_MAX,
	.session_init = null_session_init,
	.session_fini = null_session_fini,
	.seal_burst = null_seal_burst,
	.open_burst = null_open_burst,
};

RTE_INIT(crypto_null_register)
{
	int rc = sst_crypto_register(&null_ops);

	if (rc < 0)
		CRYPTO_NULL_LOG(ERR, "registration failed: %d", rc);
}
