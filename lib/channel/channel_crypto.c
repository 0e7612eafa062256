/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The armor driver registry (sst_crypto_driver.h). Drivers register from
 * RTE_INIT constructors, so every registration happens before main() on one
 * thread; the table is a fixed array of pointers to the drivers' static ops,
 * filled once and only read afterwards, which is why it needs no lock and
 * never allocates. Validation here is what lets the channel call every op
 * without a NULL check and size sessions without asking the driver.
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_log.h>

#include "sst_crypto_driver.h"
#include "sst_log.h"

RTE_LOG_REGISTER(sst_logtype_crypto, sst.crypto, NOTICE);
#define CRYPTO_LOG(level, fmt, ...) SST_LOG(level, sst_logtype_crypto, "crypto", fmt, ##__VA_ARGS__)

static const struct sst_crypto_ops *registry[SST_CRYPTO_DRIVERS_MAX];
static unsigned int registry_count;

static const char *const suite_names[SST_CRYPTO_SUITE_COUNT] = {
	[SST_CRYPTO_NULL] = "null",
	[SST_CRYPTO_CHK32] = "chk32",
	[SST_CRYPTO_AES128GCM] = "aes128gcm",
	[SST_CRYPTO_CHACHA20POLY1305] = "chacha20poly1305",
};

/* The trailer is part of the suite's wire format, not a driver's choice:
 * two drivers of one suite must interoperate byte for byte. */
static const uint8_t suite_trailer_len[SST_CRYPTO_SUITE_COUNT] = {
	[SST_CRYPTO_NULL] = 0,
	[SST_CRYPTO_CHK32] = 4,
	[SST_CRYPTO_AES128GCM] = 16,
	[SST_CRYPTO_CHACHA20POLY1305] = 16,
};

static_assert(SST_CRYPTO_TRAILER_MAX >= 16, "AEAD tags must fit the trailer bound");
static_assert(SST_CRYPTO_CHUNK <= 64, "sst_crypto_burst_settle() takes 64-bit masks");

/* Why ops cannot be registered, as a sentence for the log; NULL if it can. */
static const char *
ops_invalid(const struct sst_crypto_ops *ops)
{
	if (ops->driver == NULL || ops->driver[0] == '\0')
		return "no driver name";
	if ((unsigned int)ops->suite >= SST_CRYPTO_SUITE_COUNT)
		return "unknown suite";
	if (ops->session_init == NULL || ops->session_fini == NULL || ops->seal_burst == NULL ||
		ops->open_burst == NULL)
		return "missing op";
	if (ops->session_size > SST_CRYPTO_SESSION_MAX)
		return "session too large";
	if (ops->trailer_len > SST_CRYPTO_TRAILER_MAX ||
		ops->trailer_len != suite_trailer_len[ops->suite])
		return "trailer length not the suite's";
	if (ops->key_len > SST_CRYPTO_KEY_MAX)
		return "key too long";
	if (ops->packet_limit == 0 || ops->integrity_limit == 0)
		return "zero usage limit";
	return NULL;
}

int
sst_crypto_register(const struct sst_crypto_ops *ops)
{
	const char *why;

	if (ops == NULL)
		return -EINVAL;
	why = ops_invalid(ops);
	if (why != NULL) {
		CRYPTO_LOG(
			ERR, "driver %s rejected: %s", ops->driver ? ops->driver : "(null)", why);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < registry_count; i++)
		if (registry[i]->suite == ops->suite &&
			strcmp(registry[i]->driver, ops->driver) == 0)
			return -EEXIST;
	if (registry_count == SST_CRYPTO_DRIVERS_MAX) {
		CRYPTO_LOG(ERR, "driver %s rejected: registry full", ops->driver);
		return -ENOSPC;
	}
	registry[registry_count++] = ops;
	CRYPTO_LOG(DEBUG, "registered %s/%s priority %u", ops->driver, suite_names[ops->suite],
		ops->priority);
	return 0;
}

const struct sst_crypto_ops *
sst_crypto_find(enum sst_crypto_suite suite, const char *driver)
{
	const struct sst_crypto_ops *best = NULL;

	for (unsigned int i = 0; i < registry_count; i++) {
		const struct sst_crypto_ops *ops = registry[i];

		if (ops->suite != suite)
			continue;
		if (driver != NULL) {
			if (strcmp(ops->driver, driver) == 0)
				return ops;
		} else if (best == NULL || ops->priority > best->priority) {
			best = ops;
		}
	}
	if (best == NULL)
		rte_errno = ENOENT;
	return best;
}

const char *
sst_crypto_suite_name(enum sst_crypto_suite suite)
{
	if ((unsigned int)suite >= SST_CRYPTO_SUITE_COUNT)
		return "unknown";
	return suite_names[suite];
}

int
sst_crypto_suite_parse(const char *name)
{
	if (name == NULL)
		return -EINVAL;
	for (int s = 0; s < SST_CRYPTO_SUITE_COUNT; s++)
		if (strcmp(name, suite_names[s]) == 0)
			return s;
	return -EINVAL;
}

void
sst_crypto_mbuf_trim(struct rte_mbuf *m, uint32_t len)
{
	uint32_t keep = m->pkt_len - len;
	struct rte_mbuf *seg = m;
	uint16_t nb_segs = 1;

	/* Find the segment holding the last byte kept; with keep 0 that is
	 * the head, which becomes empty but stays. */
	while (keep > seg->data_len) {
		keep -= seg->data_len;
		seg = seg->next;
		nb_segs++;
	}
	seg->data_len = (uint16_t)keep;
	if (seg->next != NULL) {
		rte_pktmbuf_free(seg->next);
		seg->next = NULL;
	}
	m->nb_segs = nb_segs;
	m->pkt_len -= len;
}
