/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An echo service embedded in a DPDK application: the engine runs its
 * worker on an EAL worker lcore of its own (sst_engine_launch()), and the
 * application's code is the stream callbacks below, which run on that
 * worker's thread. Every stream of service "echo", protocol "test" gets
 * back what it sends, and its end when the peer ends its direction.
 *
 *   echo_embedded [EAL-ARGS --] [PORT [SECONDS]]
 *
 * Serves on 127.0.0.1:PORT over kernel UDP (0: a free port, printed as
 * "listening on 127.0.0.1:PORT" on stderr) until SIGINT or SIGTERM, or for
 * SECONDS. Try it with: sst-cat 127.0.0.1:PORT echo test
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <sst_engine.h>

#include "echo_service.h"
#include "example_init.h"

int
main(int argc, char **argv)
{
	struct sst_engine_params ep;
	struct sst_net_endpoint local;
	struct sst_engine *e;
	int seconds;

	if (example_init(argc, argv, &ep, &seconds) < 0)
		return 3;
	ep.stream.ops = &echo_ops;
	e = sst_engine_create(&ep);
	if (e == NULL) {
		sst_eal_cleanup();
		return 3;
	}
	/* Before the worker runs: afterwards only its thread may do this. */
	sst_stream_listen(sst_worker_stream_host(sst_engine_worker(e, 0)), "echo", "test", NULL);
	if (sst_engine_launch(e) < 0) {
		sst_engine_destroy(e);
		sst_eal_cleanup();
		return 3;
	}
	sst_engine_local(e, &local);
	fprintf(stderr, "listening on 127.0.0.1:%u\n", local.port);

	for (int t = 0; !example_quit && (seconds == 0 || t < seconds * 10); t++)
		usleep(100000);

	/* Graceful: the worker closes its channels (up to a second), then its
	 * lcore returns; streams still open are aborted by destroy. */
	sst_engine_stop(e, SST_NSEC_PER_SEC);
	sst_engine_destroy(e);
	sst_eal_cleanup();
	return 0;
}
