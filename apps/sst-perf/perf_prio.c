/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-perf prio (perf_prio.h): the client's schedule and samples, and the
 * server's handling of priority requests. The downloads themselves are
 * streams-mode flows (perf_client.c, perf_server.c): a request, then a
 * response the server writes at once; what the link gives each is the
 * stream layer's choice, by priority.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "perf_client.h"
#include "perf_prio.h"

enum {
	PRIO_BYTES = 1500000, /* the paper's 1.5 MB downloads */
	PRIO_THIRD_S = 5,
	PRIO_SWAP_S = 10,
	PRIO_STEP_MS = 100,
};

int
perf_prio_parse(struct perf_conf *c, const char *arg)
{
	double v[3] = {0, 0, PRIO_STEP_MS / 1e3};
	const char *p = arg;
	char *end;
	int n;

	for (n = 0; n < 3; n++) {
		v[n] = strtod(p, &end);
		if (end == p || v[n] < 0 || v[n] > 3600)
			return -1;
		p = end;
		if (*p != ',')
			break;
		p++;
	}
	if (*p != '\0' || n < 1 || v[2] < 0.001)
		return -1;
	c->prio_third_ns = (uint64_t)(v[0] * 1e9);
	c->prio_swap_ns = (uint64_t)(v[1] * 1e9);
	c->prio_step_ns = (uint64_t)(v[2] * 1e9);
	return 0;
}

void
perf_prio_defaults(struct perf_conf *c, bool schedule_given)
{
	c->streams = PERF_PRIO_FLOWS;
	if (c->response == 0)
		c->response = PRIO_BYTES;
	if (!schedule_given) {
		c->prio_third_ns = PRIO_THIRD_S * SST_NSEC_PER_SEC;
		c->prio_swap_ns = PRIO_SWAP_S * SST_NSEC_PER_SEC;
		c->prio_step_ns = PRIO_STEP_MS * SST_NSEC_PER_MSEC;
	}
}

/* One line of received bytes per download, at t seconds into the test. */
static void
sample(struct perf_client *cl, sst_time_t now)
{
	double t = (double)(now - cl->t_start) / 1e9;
	const struct cli_flow *f = cl->flows;

	if (cl->conf->json)
		printf("{\"t_s\":%.3f,\"rx_bytes\":[%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]}\n", t,
			f[0].rx_off, f[1].rx_off, f[2].rx_off);
	else
		printf("%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", t, f[0].rx_off, f[1].rx_off,
			f[2].rx_off);
	/* Read as it comes (evaluate.sh, a terminal). */
	fflush(stdout);
}

/* Ask the server to serve download i at prio. @return true once asked, or
 * when the download is over (nothing left to prioritise). */
static bool
request(struct perf_client *cl, uint32_t i, int32_t prio, sst_time_t now)
{
	struct cli_flow *f = &cl->flows[i];

	if (f->state == FL_DONE || f->answered)
		return true;
	/* -ENOBUFS: no stream free for the message; the next pass tries again. */
	return sst_stream_request_priority(f->s, prio, now) == 0;
}

void
perf_prio_poll(struct perf_client *cl, sst_time_t now)
{
	const struct perf_conf *c = cl->conf;
	struct perf_prio *pp = &cl->prio;
	sst_time_t t = now - cl->t_start;

	if (pp->finished)
		return;
	if (!pp->started) {
		/* Two downloads at equal priority: they share the link. */
		for (uint32_t i = cl->started; i < 2; i++)
			if (!perf_client_open(cl, i, now))
				return;
		pp->started = true;
		if (!c->json)
			printf("t_s,req1_bytes,req2_bytes,req3_bytes\n");
		sample(cl, now);
		pp->next_sample = now + c->prio_step_ns;
	}
	if (!pp->third_open && t >= c->prio_third_ns)
		pp->third_open = perf_client_open(cl, 2, now);
	/* The request follows the stream's opening packet: the response may
	 * start at the old priority, for about a round trip. */
	if (pp->third_open && !pp->third_raised)
		pp->third_raised = request(cl, 2, PERF_PRIO_HIGH, now);
	if (!pp->swapped && t >= c->prio_swap_ns)
		pp->swapped = request(cl, 1, PERF_PRIO_RAISED, now);
	if (cl->answered + cl->unanswered_ends == PERF_PRIO_FLOWS) {
		sample(cl, now);
		pp->finished = true;
	} else if (now >= pp->next_sample) {
		sample(cl, now);
		pp->next_sample = RTE_MAX(pp->next_sample + c->prio_step_ns, now);
	}
}

void
perf_prio_serve(struct sst_stream *s, sst_time_t now)
{
	struct rte_mbuf *m;

	while ((m = sst_stream_recv_datagram(s, now)) != NULL) {
		sst_stream_apply_priority_message(s, m);
		rte_pktmbuf_free(m);
	}
}
