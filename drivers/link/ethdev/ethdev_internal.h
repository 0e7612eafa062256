/* SPDX-License-Identifier: BSD-3-Clause */
/* What the link driver and the port setup of drivers/link/ethdev share:
 * one log type, so that every ethdev message can be turned up together
 * (--log-level=sst.link.ethdev:debug). */
#ifndef ETHDEV_INTERNAL_H
#define ETHDEV_INTERNAL_H

#include "sst_log.h"

extern int sst_logtype_ethdev;

#define ETHDEV_LOG(level, fmt, ...) SST_LOG(level, sst_logtype_ethdev, "ethdev", fmt, ##__VA_ARGS__)

#endif /* ETHDEV_INTERNAL_H */
