/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checks of internal invariants, for debug builds. Meson defines NDEBUG
 * only when b_ndebug asks for it: the project's builds (debugoptimized for
 * the tests and the release job, debug under ASan) keep the checks, so the
 * test suites run them; a build configured with -Db_ndebug=true compiles
 * them out. A failed check is a bug in the library: it logs where, then
 * traps (lib/ never calls abort(); the trap stops the process the same way
 * and leaves a core).
 */
#ifndef SST_ASSERT_H
#define SST_ASSERT_H

#include <rte_log.h>

#ifdef NDEBUG
#define SST_DEBUG_ASSERT(cond) ((void)0)
#else
#define SST_DEBUG_ASSERT(cond)                                                                \
	do {                                                                                  \
		if (!(cond)) {                                                                \
			rte_log(RTE_LOG_CRIT, RTE_LOGTYPE_USER1,                              \
				"%s:%d: %s: internal check failed: %s\n", __FILE__, __LINE__, \
				__func__, #cond);                                             \
			__builtin_trap();                                                     \
		}                                                                             \
	} while (0)
#endif

#endif /* SST_ASSERT_H */
