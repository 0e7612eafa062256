/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * EAL bring-up for the applications. By the DPDK convention an
 * application's EAL arguments are what comes before "--" on its command
 * line; an application started without any (no "--", or nothing before
 * it) gets an embedded default that needs no NIC, no hugepages and no
 * configuration:
 *
 *   `--no-huge --no-pci -m <memory_mb> --file-prefix=<prog>-<pid> --log-level=<log_level>`
 *
 * The per-process file prefix lets any number of such processes (tests,
 * tools) run side by side.
 */
#ifndef SST_EAL_H
#define SST_EAL_H

#include <stdint.h>

enum {
	SST_EAL_MEMORY_MB = 512, /**< memory of the default arguments */
	SST_EAL_ARGS_MAX = 64,	 /**< arguments passed to rte_eal_init() at most */
};

/** Options of sst_eal_init(). Fields left zero take the defaults shown. */
struct sst_eal_opts {
	uint32_t size;	       /**< sizeof(struct sst_eal_opts) */
	const char *prog;      /**< in the file prefix; NULL: the last part of argv[0] */
	uint32_t memory_mb;    /**< -m of the default arguments; 0: SST_EAL_MEMORY_MB */
	const char *log_level; /**< --log-level of the default arguments; NULL: "error" */
	/** NULL-terminated; added to the default arguments only (e.g.
	 * "--lcores=0-1"): a user who gives EAL arguments decides these. */
	const char *const *extra_args;
	/** NULL-terminated; added in every case (e.g. a --vdev the
	 * application cannot run without). */
	const char *const *always_args;
};

/**
 * Initialise the EAL from the application's command line, or with the
 * default arguments when the user gave none. On failure one line saying
 * why, with a hint, is logged at ERR (on stderr unless the application
 * redirected DPDK's log).
 *
 * @param opts
 *   May be NULL (all defaults).
 * @param argc
 *   The application's argc (at least 1: the program name).
 * @param argv
 *   The application's argv: EAL arguments, "--", then the application's; without "--" the default
 *   arguments are used and argv is left to the application. The "--" entry is overwritten with the
 *   program name.
 * @return
 *   Like rte_eal_init(), the number of argv entries consumed: the
 *   application continues with argc - ret and argv + ret, whose first entry
 *   is the program name again, followed by the arguments after "--".
 *   Negative errno on failure: -EINVAL (bad arguments, or opts without its
 *   size), -E2BIG (more than SST_EAL_ARGS_MAX arguments), -EALREADY (the EAL
 *   is already up), or the EAL's error (-EACCES: hugepages or devices need
 *   privileges; -ENOMEM; ...).
 */
int sst_eal_init(int argc, char **argv, const struct sst_eal_opts *opts);

/**
 * Release the EAL (rte_eal_cleanup()) and, in the primary process, remove
 * the runtime directory of its file prefix (the default one or one named in
 * the arguments) so that runs leave nothing behind: DPDK keeps it, and with
 * --no-huge it holds 48 bytes per 4 KB page of -m. A secondary process
 * leaves it to its primary.
 */
void sst_eal_cleanup(void);

#endif /* SST_EAL_H */
