/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What echo_embedded.c and echo_rings.c share: the EAL, two lcores unless
 * the user gave EAL arguments (the main one for the application, one for
 * the worker), their arguments [PORT [SECONDS]], the engine's parameters
 * for 127.0.0.1:PORT over kernel UDP, and a flag SIGINT and SIGTERM set.
 */
#ifndef EXAMPLE_INIT_H
#define EXAMPLE_INIT_H

#include <signal.h>
#include <stdlib.h>

#include <sst_eal.h>
#include <sst_engine.h>

static volatile sig_atomic_t example_quit;

static inline void
example_on_signal(int sig)
{
	(void)sig;
	example_quit = 1;
}

/* Returns 0, or -1 when the EAL did not come up (it said why). */
static inline int
example_init(int argc, char **argv, struct sst_engine_params *ep, int *seconds)
{
	static const char *const lcores[] = {"--lcores=0-1", NULL};
	struct sst_eal_opts eo = {.size = sizeof(eo), .extra_args = lcores};
	int used = sst_eal_init(argc, argv, &eo);

	if (used < 0)
		return -1;
	argc -= used;
	argv += used;
	*seconds = argc > 2 ? atoi(argv[2]) : 0;
	sst_engine_params_default(ep);
	ep->local.addr = sst_net_addr4(127, 0, 0, 1);
	ep->local.port = (uint16_t)(argc > 1 ? atoi(argv[1]) : 0);
	signal(SIGINT, example_on_signal);
	signal(SIGTERM, example_on_signal);
	return 0;
}

#endif /* EXAMPLE_INIT_H */
