/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The congestion-control registry (sst_cc_driver.h): a fixed table of ops
 * tables, filled by the drivers' constructors before main() and read-only
 * afterwards, so lookups need no lock. Registration validates the whole
 * contract once, so the per-packet code calls every op without checks.
 */
#include <errno.h>

#include <rte_log.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "sst_cc.h"

/* Congestion control's log type (module registration and selection). */
RTE_LOG_REGISTER(sst_logtype_cc, sst.cc, NOTICE);

static const struct sst_cc_ops *cc_registry[SST_CC_REGISTRY_MAX];
static unsigned int cc_registered;

/* Loaders of "prefix:arg" names, also filled by constructors only. */
struct cc_loader {
	const char *prefix;
	sst_cc_loader_t load;
};
static struct cc_loader cc_loaders[SST_CC_LOADER_MAX];
static unsigned int cc_nloaders;

/* The name is non-empty and NUL-terminated inside its array. */
static int
cc_name_valid(const char *name)
{
	return name[0] != '\0' && memchr(name, '\0', SST_CC_NAME_MAX) != NULL;
}

int
sst_cc_register(const struct sst_cc_ops *ops)
{
	/* ':' is reserved for the names loaders resolve. */
	if (ops == NULL || !cc_name_valid(ops->name) || ops->priv_size > SST_CC_PRIV_MAX ||
		strchr(ops->name, ':') != NULL)
		return -EINVAL;
	/* One callback per event, all mandatory: the channel never checks for NULL. */
	if (ops->init == NULL || ops->on_sent == NULL || ops->on_ack == NULL ||
		ops->on_loss == NULL || ops->on_rto == NULL)
		return -EINVAL;
	if (sst_cc_find(ops->name) != NULL)
		return -EEXIST;
	if (cc_registered == SST_CC_REGISTRY_MAX)
		return -ENOSPC;
	cc_registry[cc_registered++] = ops;
	return 0;
}

int
sst_cc_register_loader(const char *prefix, sst_cc_loader_t load)
{
	size_t len = prefix != NULL ? strnlen(prefix, SST_CC_PREFIX_MAX + 1) : 0;

	if (load == NULL || len == 0 || len > SST_CC_PREFIX_MAX || memchr(prefix, ':', len) != NULL)
		return -EINVAL;
	for (unsigned int i = 0; i < cc_nloaders; i++)
		if (strcmp(cc_loaders[i].prefix, prefix) == 0)
			return -EEXIST;
	if (cc_nloaders == SST_CC_LOADER_MAX)
		return -ENOSPC;
	cc_loaders[cc_nloaders++] = (struct cc_loader){.prefix = prefix, .load = load};
	return 0;
}

static void
cc_error(char *err, size_t errlen, const char *msg, const char *name)
{
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, "%s '%s'", msg, name);
}

const struct sst_cc_ops *
sst_cc_resolve(const char *name, char *err, size_t errlen)
{
	const char *colon;

	if (name == NULL) {
		cc_error(err, errlen, "no controller name", "");
		return NULL;
	}
	for (unsigned int i = 0; i < cc_registered; i++)
		if (strncmp(cc_registry[i]->name, name, SST_CC_NAME_MAX) == 0)
			return cc_registry[i];
	colon = strchr(name, ':');
	for (unsigned int i = 0; colon != NULL && i < cc_nloaders; i++)
		if (strlen(cc_loaders[i].prefix) == (size_t)(colon - name) &&
			strncmp(cc_loaders[i].prefix, name, (size_t)(colon - name)) == 0)
			return cc_loaders[i].load(colon + 1, err, errlen);
	cc_error(err, errlen, "unknown congestion controller", name);
	return NULL;
}

const struct sst_cc_ops *
sst_cc_find(const char *name)
{
	return sst_cc_resolve(name, NULL, 0);
}

int
sst_cc_init(struct sst_cc *cc, const struct sst_cc_ops *ops, uint32_t mss, sst_time_t now)
{
	if (cc == NULL || ops == NULL || mss == 0)
		return -EINVAL;
	memset(cc, 0, sizeof(*cc));
	cc->ops = ops;
	cc->mss = mss;
	cc->cwnd = sst_cc_initial_window(mss);
	cc->ssthresh = UINT64_MAX;
	ops->init(cc, now);
	return 0;
}

int
sst_cc_switch(struct sst_cc *cc, const struct sst_cc_ops *ops, sst_time_t now)
{
	uint64_t cwnd, ssthresh, recovery_seq;
	bool in_recovery;

	if (cc == NULL || ops == NULL || cc->ops == NULL || cc->mss == 0)
		return -EINVAL;
	cwnd = cc->cwnd;
	ssthresh = cc->ssthresh;
	in_recovery = cc->in_recovery;
	recovery_seq = cc->recovery_seq;
	memset(cc->priv, 0, sizeof(cc->priv));
	cc->ops = ops;
	cc->pacing_rate = 0;
	ops->init(cc, now);
	cc->cwnd = cwnd;
	cc->ssthresh = ssthresh;
	cc->in_recovery = in_recovery;
	cc->recovery_seq = recovery_seq;
	return 0;
}

uint64_t
sst_cc_pacing_rate(const struct sst_cc *cc, sst_time_t srtt)
{
	uint64_t rate;

	if (cc->pacing_rate != 0)
		return cc->pacing_rate;
	if (srtt == 0)
		return 0;
	/* 2 x cwnd per srtt in slow start, 1.25 x cwnd per srtt afterwards. */
	if (sst_cc_in_slow_start(cc))
		rate = sst_cc_mul_div(cc->cwnd, 2 * SST_NSEC_PER_SEC, srtt);
	else
		rate = sst_cc_mul_div(cc->cwnd, 5 * SST_NSEC_PER_SEC / 4, srtt);
	/* 0 would mean "unpaced": the slowest paced rate is 1 byte/s. */
	return rate != 0 ? rate : 1;
}
