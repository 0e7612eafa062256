/* SPDX-License-Identifier: BSD-3-Clause */
/* The libraries' allocator for growable tables: the DPDK heap. */
#include <rte_common.h>
#include <rte_malloc.h>

#include "sst_mem.h"

static void *
rte_zalloc_op(void *ctx, size_t size)
{
	RTE_SET_USED(ctx);
	return rte_zmalloc("sst_table", size, RTE_CACHE_LINE_SIZE);
}

static void
rte_free_op(void *ctx, void *p)
{
	RTE_SET_USED(ctx);
	rte_free(p);
}

const struct sst_mem_ops sst_mem_rte = {
	.zalloc = rte_zalloc_op,
	.release = rte_free_op,
	.ctx = NULL,
};
