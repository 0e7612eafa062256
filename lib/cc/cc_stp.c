/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the events of untrusted controllers are counted (sst_cc_stp.h): a
 * pointer per thread, set by the worker that polls on it, so that the bpf
 * driver attributes a revocation or a refusal to that worker without
 * knowing workers, and its counters keep one writer.
 */
#include <errno.h>
#include <stddef.h>

#include "sst_cc_driver.h"
#include "sst_cc_stp.h"

static _Thread_local struct sst_cc_stp_stats *cc_stp_sink;

struct sst_cc_stp_stats *
sst_cc_stp_sink_set(struct sst_cc_stp_stats *s)
{
	struct sst_cc_stp_stats *before = cc_stp_sink;

	cc_stp_sink = s;
	return before;
}

struct sst_cc_stp_stats *
sst_cc_stp_sink(void)
{
	return cc_stp_sink;
}

int
sst_cc_stp_info(const struct sst_cc *cc, struct sst_cc_stp_info *info)
{
	if (cc == NULL || cc->ops == NULL || cc->ops->stp_info == NULL || info == NULL)
		return -ENOTSUP;
	return cc->ops->stp_info(cc, info);
}

const char *
sst_cc_stp_revoke_name(unsigned int why)
{
	static const char *const names[] = {
		[SST_CC_STP_REVOKE_NONE] = "none",
		[SST_CC_STP_REVOKE_POLICER] = "policer",
		[SST_CC_STP_REVOKE_BUDGET] = "budget",
	};

	return why < sizeof(names) / sizeof(names[0]) ? names[why] : "?";
}
