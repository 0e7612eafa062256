/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An application thread that talks to an engine worker through rings
 * (sst_ring.h): the worker runs on an EAL worker lcore of its own
 * (sst_engine_launch()), and this program's main thread, which never
 * touches a stream, offers the echo service through a ring client and
 * answers every event it polls. Data arrives as mbufs that are the
 * application's, and goes back the same way: nothing is copied.
 *
 *   echo_rings [EAL-ARGS --] [PORT [SECONDS]]
 *
 * Serves "echo"/"test" on 127.0.0.1:PORT over kernel UDP (0: a free port,
 * printed as "listening on 127.0.0.1:PORT" on stderr) until SIGINT or
 * SIGTERM, or for SECONDS. Try it with: sst-cat 127.0.0.1:PORT echo test
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include <sst_engine.h>
#include <sst_ring.h>

#include "example_init.h"

/* Records waiting for write credit, oldest first. A stream's records
 * must go back in order, so once one waits, every later one waits behind
 * it (one queue for all streams keeps the example short). An entry
 * without an mbuf is the shutdown that follows a stream's last record. */
enum { PENDING_MAX = 1024 };
static struct pending {
	int h;
	uint32_t flags;
	struct rte_mbuf *m;
} pending[PENDING_MAX];
static unsigned int pending_head, pending_n;

static void
pending_push(int h, struct rte_mbuf *m, uint32_t flags)
{
	pending[(pending_head + pending_n++) % PENDING_MAX] =
		(struct pending){.h = h, .flags = flags, .m = m};
}

/* Write what waits while there is credit (WRITABLE events give it back).
 * A record whose handle closed meanwhile (-EBADF) is dropped. */
static void
pending_flush(struct sst_ring_client *c)
{
	while (pending_n > 0) {
		struct pending *p = &pending[pending_head];
		int rc = p->m != NULL ? sst_ring_write(c, p->h, p->m, p->flags)
				      : sst_ring_shutdown(c, p->h);

		if (rc == -EAGAIN || rc == -ENOBUFS)
			return;
		if (rc < 0 && p->m != NULL)
			rte_pktmbuf_free(p->m);
		pending_head = (pending_head + 1) % PENDING_MAX;
		pending_n--;
	}
}

/* One event of the worker. Returns -1 when the client cannot go on. */
static int
handle(struct sst_ring_client *c, const struct sst_ring_event *ev)
{
	switch (ev->type) {
	case SST_RING_EV_LISTENING:
		if (ev->err < 0) {
			fprintf(stderr, "cannot offer echo/test: %d\n", ev->err);
			return -1;
		}
		break;
	case SST_RING_EV_DATA:
		/* Back on the same stream, after whatever waits for credit. */
		pending_push((int)ev->handle, ev->m,
			ev->flags & SST_RING_EV_F_MESSAGE ? SST_WRITE_MESSAGE : 0);
		pending_flush(c);
		break;
	case SST_RING_EV_END:
		/* The peer ended its direction: end ours after the echo. */
		pending_push((int)ev->handle, NULL, 0);
		pending_flush(c);
		break;
	case SST_RING_EV_CLOSED:
		sst_ring_close(c, (int)ev->handle); /* FREED follows */
		break;
	default: /* ACCEPTED, WRITABLE (credit counted by the client), FREED */
		break;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct sst_ring_client_params cp = {.size = sizeof(cp)};
	struct sst_engine_params ep;
	struct sst_net_endpoint local;
	struct sst_ring_client *c;
	struct sst_engine *e;
	uint64_t end;
	int seconds, rc = 0;

	if (example_init(argc, argv, &ep, &seconds) < 0)
		return 3;
	ep.ring_mode = true; /* a ring agent on every worker */
	e = sst_engine_create(&ep);
	if (e == NULL || sst_engine_launch(e) < 0) {
		sst_engine_destroy(e);
		sst_eal_cleanup();
		return 3;
	}
	/* The client may attach while the worker runs: it is served from
	 * the worker's next poll. */
	c = sst_ring_client_create(sst_engine_ring_agent(e, 0), &cp);
	if (c == NULL || sst_ring_listen(c, "echo", "test", SST_RING_SUBSTREAMS_OFF) < 0) {
		rc = 3;
		goto out;
	}
	sst_engine_local(e, &local);
	fprintf(stderr, "listening on 127.0.0.1:%u\n", local.port);

	end = seconds > 0 ? rte_get_timer_cycles() + (uint64_t)seconds * rte_get_timer_hz()
			  : UINT64_MAX;
	while (!example_quit && rte_get_timer_cycles() < end) {
		struct sst_ring_event ev[32];
		/* Take no more events than the queue can hold: while it is
		 * full the event ring fills, the worker stops reading the
		 * streams and flow control slows the peers down. */
		unsigned int room = RTE_MIN(RTE_DIM(ev), PENDING_MAX - pending_n);
		int n = sst_ring_poll(c, ev, room);

		if (n < 0)
			break;
		pending_flush(c);
		if (n == 0) {
			rte_delay_us_sleep(100); /* idle: let the core go */
			continue;
		}
		for (int i = 0; i < n; i++)
			if (handle(c, &ev[i]) < 0)
				example_quit = 1;
	}
out:
	/* The worker still runs: destroy detaches the client at its next
	 * poll, then the engine stops (closing channels, up to a second). */
	sst_ring_client_destroy(c);
	sst_engine_stop(e, SST_NSEC_PER_SEC);
	sst_engine_destroy(e);
	sst_eal_cleanup();
	return rc;
}
