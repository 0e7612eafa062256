/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EAL bring-up (sst_eal.h). The EAL is initialised once per process, so the
 * argument vector and the strings of the default arguments live in static
 * storage: rte_eal_init() permutes the vector and may keep pointers into it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "sst_eal.h"
#include "sst_log.h"
#include "sst_params.h"

RTE_LOG_REGISTER(sst_logtype_eal, sst.eal, NOTICE);
#define EAL_LOG(level, fmt, ...) SST_LOG(level, sst_logtype_eal, "EAL", fmt, ##__VA_ARGS__)

static char *eal_argv[SST_EAL_ARGS_MAX + 1];
static char arg_memory[16];
static char arg_prefix[96];
static char arg_log[64];
static char runtime_dir[PATH_MAX];
static bool eal_up;

/* What a user can do about the usual failures. */
static const char *
eal_hint(int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
		return "hugepages and devices need root: run as root, or give no EAL arguments "
		       "(no hugepages, no NIC)";
	case ENOMEM:
		return "try a smaller -m, or --no-huge";
	case EALREADY:
		return "the EAL is already up in this process";
	case EINVAL:
		return "check the EAL arguments before \"--\"";
	case EEXIST:
		return "another process uses this --file-prefix";
	default:
		return "try --no-huge, or run as root";
	}
}

static int
eal_fail(int err)
{
	EAL_LOG(ERR, "cannot initialise: %s; %s", rte_strerror(err), eal_hint(err));
	return -err;
}

static int
push_list(int n, const char *const *list)
{
	for (; list != NULL && *list != NULL; list++) {
		if (n == SST_EAL_ARGS_MAX)
			return -E2BIG;
		eal_argv[n++] = (char *)(uintptr_t)*list;
	}
	return n;
}

static int
push_defaults(int n, const char *argv0, const struct sst_eal_opts *opts)
{
	const char *prog = opts->prog;
	char *const defaults[] = {(char *)"--no-huge", (char *)"--no-pci", (char *)"-m", arg_memory,
		arg_prefix, arg_log};

	if (prog == NULL) {
		prog = strrchr(argv0, '/');
		prog = prog != NULL ? prog + 1 : argv0;
	}
	snprintf(arg_memory, sizeof(arg_memory), "%u",
		opts->memory_mb != 0 ? opts->memory_mb : (unsigned int)SST_EAL_MEMORY_MB);
	snprintf(arg_prefix, sizeof(arg_prefix), "--file-prefix=%.64s-%d", prog, (int)getpid());
	snprintf(arg_log, sizeof(arg_log), "--log-level=%.48s",
		opts->log_level != NULL ? opts->log_level : "error");
	for (size_t i = 0; i < RTE_DIM(defaults); i++)
		eal_argv[n++] = defaults[i];
	return push_list(n, opts->extra_args);
}

int
sst_eal_init(int argc, char **argv, const struct sst_eal_opts *opts)
{
	static const struct sst_eal_opts none = {.size = sizeof(none)};
	int sep = 0, n = 0;

	if (opts == NULL)
		opts = &none;
	if (argc < 1 || argv == NULL || argv[0] == NULL ||
		!sst_params_size_ok(opts->size, sizeof(*opts), SST_PARAMS_ANY_LARGER))
		return eal_fail(EINVAL);
	/* Before the static vector is rebuilt: the EAL may still point into it. */
	if (eal_up)
		return eal_fail(EALREADY);
	for (int i = 1; i < argc && sep == 0; i++)
		if (strcmp(argv[i], "--") == 0)
			sep = i;
	eal_argv[n++] = argv[0];
	if (sep > 1) {
		if (sep > SST_EAL_ARGS_MAX)
			return eal_fail(E2BIG);
		for (int i = 1; i < sep; i++)
			eal_argv[n++] = argv[i];
	} else {
		n = push_defaults(n, argv[0], opts);
	}
	if (n >= 0)
		n = push_list(n, opts->always_args);
	if (n < 0)
		return eal_fail(-n);
	eal_argv[n] = NULL;
	if (rte_eal_init(n, eal_argv) < 0)
		return eal_fail(rte_errno);
	eal_up = true;
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	if (sep == 0)
		return 0;
	/* As after rte_eal_init(): the program name, then what follows "--". */
	argv[sep] = argv[0];
	return sep;
}

/* The runtime directory of a prefix only this process used: the EAL leaves
 * its config and memory-map files behind, one directory per run. */
static void
remove_runtime_dir(void)
{
	int fd = open(runtime_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			unlinkat(fd, e->d_name, 0);
	closedir(d);
	rmdir(runtime_dir);
}

void
sst_eal_cleanup(void)
{
	/* The primary process owns its prefix's directory: DPDK refuses a second
	 * primary on it, and secondaries cannot attach once the primary is gone.
	 * A secondary leaves it to its primary. */
	bool remove = eal_up && rte_eal_process_type() == RTE_PROC_PRIMARY;

	rte_eal_cleanup();
	if (remove && runtime_dir[0] != '\0')
		remove_runtime_dir();
	runtime_dir[0] = '\0';
}
