/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Logging helpers. Each library and driver registers its own log type with
 * `RTE_LOG_REGISTER_DEFAULT(sst_logtype_<name>, NOTICE)` and defines a
 * `<NAME>_LOG(level, fmt, ...)` macro with SST_LOG(). Logging is for control
 * events (a channel set up, a module rejected); the per-packet path counts
 * instead of logging.
 */
#ifndef SST_LOG_H
#define SST_LOG_H

#include <rte_log.h>

/**
 * Log one line at an RTE_LOG_<level> under a registered log type, prefixed
 * with the component name. The newline is added here.
 */
#define SST_LOG(level, logtype, prefix, fmt, ...) \
	rte_log(RTE_LOG_##level, logtype, prefix ": " fmt "\n", ##__VA_ARGS__)

#endif /* SST_LOG_H */
