/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checks of internal invariants, for debug builds. Meson defines NDEBUG
 * only when b_ndebug asks for it: the tests' builds (release: build/, and
 * asan: build-asan/) keep the checks, so the test suites run them; the fast
 * build users run and the benchmarks measure (scripts/build.sh fast:
 * build-fast/, -Db_ndebug=true) compiles them out.
 *
 * A failed check is a bug in the library, but a library neither prints nor
 * aborts (conventions rule 6): the check counts the failure in a counter
 * its owner exposes in its statistics (for example
 * sst_stream_host_stats.illegal_transitions) and logs the first one of that
 * counter, where it failed, under the library's log type. The process goes
 * on; the tests check that the counter stays 0.
 */
#ifndef DEBUG_CHECK_H
#define DEBUG_CHECK_H

#include <rte_branch_prediction.h>

#include "sst_log.h"

#ifdef NDEBUG
#define SST_DEBUG_CHECK(cond, counter, logtype, prefix) ((void)0)
#else
#define SST_DEBUG_CHECK(cond, counter, logtype, prefix)                                       \
	do {                                                                                  \
		if (unlikely(!(cond)) && (counter)++ == 0)                                    \
			SST_LOG(ERR, logtype, prefix, "%s:%d: %s: internal check failed: %s", \
				__FILE__, __LINE__, __func__, #cond);                         \
	} while (0)
#endif

#endif /* DEBUG_CHECK_H */
