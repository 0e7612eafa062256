/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The link driver registry and the link object (sst_link.h). As for the
 * armor drivers, registration happens in RTE_INIT constructors before
 * main(), on one thread, into a fixed table that is only read afterwards.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>

#include "sst_link.h"
#include "sst_log.h"

RTE_LOG_REGISTER(sst_logtype_link, sst.link, NOTICE);
#define LINK_LOG(level, fmt, ...) SST_LOG(level, sst_logtype_link, "link", fmt, ##__VA_ARGS__)

static const struct sst_link_ops *registry[SST_LINK_DRIVERS_MAX];
static unsigned int registry_count;

struct sst_link {
	const struct sst_link_ops *ops;
	struct sst_link_stats stats;
	uint8_t priv[] __rte_cache_aligned;
};

int
sst_link_register(const struct sst_link_ops *ops)
{
	if (ops == NULL || ops->name == NULL || ops->open == NULL || ops->rx_burst == NULL ||
		ops->tx_burst == NULL || ops->close == NULL ||
		(ops->kind != SST_LINK_FRAMES && ops->kind != SST_LINK_DATAGRAMS))
		return -EINVAL;
	if (sst_link_find(ops->name) != NULL)
		return -EEXIST;
	if (registry_count == SST_LINK_DRIVERS_MAX) {
		LINK_LOG(ERR, "driver %s rejected: registry full", ops->name);
		return -ENOSPC;
	}
	registry[registry_count++] = ops;
	return 0;
}

const struct sst_link_ops *
sst_link_find(const char *name)
{
	for (unsigned int i = 0; name != NULL && i < registry_count; i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

int
sst_link_device_setup(const char *driver, const void *driver_conf, uint16_t nb_links,
	struct rte_mempool *const *pools, struct sst_link_device_info *info)
{
	const struct sst_link_ops *ops = sst_link_find(driver);

	memset(info, 0, sizeof(*info));
	if (ops == NULL) {
		snprintf(info->err, sizeof(info->err), "no link driver named %s", driver);
		return -ENOENT;
	}
	return ops->device_setup != NULL ? ops->device_setup(driver_conf, nb_links, pools, info)
					 : 0;
}

int
sst_link_device_teardown(const char *driver, const void *driver_conf)
{
	const struct sst_link_ops *ops = sst_link_find(driver);

	if (ops == NULL)
		return -ENOENT;
	return ops->device_teardown != NULL ? ops->device_teardown(driver_conf) : 0;
}

struct sst_link *
sst_link_open(const struct sst_link_conf *conf)
{
	const struct sst_link_ops *ops;
	struct sst_link *l;
	int rc;

	if (conf == NULL || conf->pool == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	ops = sst_link_find(conf->driver);
	if (ops == NULL) {
		LINK_LOG(ERR, "no link driver named %s", conf->driver ? conf->driver : "(null)");
		rte_errno = ENOENT;
		return NULL;
	}
	l = rte_zmalloc("sst_link", sizeof(*l) + ops->priv_size, RTE_CACHE_LINE_SIZE);
	if (l == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	l->ops = ops;
	rc = ops->open(l->priv, conf, &l->stats);
	if (rc < 0) {
		rte_free(l);
		rte_errno = -rc;
		return NULL;
	}
	return l;
}

void
sst_link_close(struct sst_link *l)
{
	if (l == NULL)
		return;
	l->ops->close(l->priv);
	rte_free(l);
}

enum sst_link_kind
sst_link_kind(const struct sst_link *l)
{
	return l->ops->kind;
}

uint16_t
sst_link_rx_burst(
	struct sst_link *l, struct rte_mbuf **pkts, struct sst_net_endpoint *from, uint16_t n)
{
	return l->ops->rx_burst(l->priv, pkts, from, n);
}

uint16_t
sst_link_tx_burst(
	struct sst_link *l, struct rte_mbuf **pkts, const struct sst_net_endpoint *to, uint16_t n)
{
	return l->ops->tx_burst(l->priv, pkts, to, n);
}

int
sst_link_local(const struct sst_link *l, struct sst_net_endpoint *ep)
{
	if (l->ops->local == NULL)
		return -ENOTSUP;
	return l->ops->local((void *)(uintptr_t)l->priv, ep);
}

int
sst_link_wait_fd(const struct sst_link *l)
{
	if (l->ops->wait_fd == NULL)
		return -ENOTSUP;
	return l->ops->wait_fd((void *)(uintptr_t)l->priv);
}

const struct sst_link_stats *
sst_link_stats(const struct sst_link *l)
{
	return &l->stats;
}
