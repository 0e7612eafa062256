/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Large datagrams degrade gracefully into streams (paper 2.2; issue 19):
 * on a lossless link every datagram from 1 KB to 1 MB arrives, whole and
 * intact, whether it travels as Datagram packets (up to 32 fragments) or
 * as a reliable ephemeral substream; the receiver never refuses a segment
 * of one, and the goodput does not collapse past the fragment limit (it
 * used to: the receiver held a datagram's substream unread, so its window
 * closed at 64 KB, and above 32 fragments segments were refused and
 * resent). The sender sends as fast as the stack takes them, retrying a
 * refused (-ENOBUFS) datagram a millisecond later. SST_SIM_SEED=<n>
 * replays another seed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "sst_test.h"
#include "stream_world.h"

static uint64_t seed;

struct sender {
	struct world *w;
	struct flow *f;
	uint32_t len;
	uint64_t count, sent, refused;
};

/* Send until the stack refuses one, then try again in a millisecond. */
static void
send_some(void *arg, sst_time_t now)
{
	struct sender *sd = arg;

	while (sd->sent < sd->count) {
		int rc = world_send_datagram(sd->w, sd->f, 0, sd->sent + 1, sd->len);

		if (rc == -ENOBUFS) {
			sd->refused++;
			break;
		}
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		sd->sent++;
	}
	world_pump(sd->w, now);
	if (sd->sent < sd->count)
		sim_schedule(sd->w->sim, now + SST_NSEC_PER_MSEC, send_some, sd);
}

static bool
undelivered(void *arg)
{
	const struct sender *sd = arg;

	return sd->w->dgrams_rx[1] < sd->count;
}

/* @return the datagrams' goodput in bit/s, from the first send to the
 * last arrival. */
static double
run_size(uint32_t len, uint64_t count)
{
	struct world_params wp;
	struct world *w;
	struct sender sd;
	sst_time_t t0;
	int rc;
	double secs, rate;
	uint64_t refused_a, refused_b, retx;

	world_params_default(&wp, seed);
	/* Lossless: no rate, so no queue to overflow (the unreliable
	 * fragments of slow start's overshoot would be lost there). */
	wp.link.rate_bps = 0;
	w = world_create(&wp);
	sd = (struct sender){.w = w, .len = len, .count = count};
	sd.f = world_flow_start(w, 100, 100, 0);
	/* Neither side reads the stream's own bytes: it stays open. */
	sd.f->paused[0] = sd.f->paused[1] = true;
	world_run_until(w, SST_NSEC_PER_SEC);
	CU_ASSERT_FATAL(sd.f->connected);
	t0 = sim_now(w->sim);
	sim_schedule(w->sim, t0, send_some, &sd);
	rc = sim_run_while(w->sim, undelivered, &sd, t0 + 60 * SST_NSEC_PER_SEC);
	secs = (double)(sim_now(w->sim) - t0) / 1e9;
	rate = (double)w->dgram_bytes_rx[1] * 8 / secs;
	refused_a = sst_stream_host_stats(w->ep[0].sh)->rx_refused;
	refused_b = sst_stream_host_stats(w->ep[1].sh)->rx_refused;
	retx = sst_stream_host_stats(w->ep[0].sh)->segments_retx;
	printf("\n  %7" PRIu32 " bytes: %" PRIu64 "/%" PRIu64 " delivered in %.3f s, %.0f/s, %.1f "
	       "Mbit/s; %" PRIu64 " refused at b, %" PRIu64 " segments resent, %" PRIu64
	       " as substreams (seed %" PRIu64 ")",
		len, w->dgrams_rx[1], sd.sent, secs, (double)w->dgrams_rx[1] / secs, rate / 1e6,
		refused_b, retx, w->dgrams_as_substreams, wp.seed);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(sd.sent, count);
	CU_ASSERT_EQUAL(w->dgrams_rx[1], count);
	CU_ASSERT_EQUAL(w->dgram_bytes_rx[1], count * len);
	CU_ASSERT_EQUAL(w->dgram_bad, 0);
	CU_ASSERT_EQUAL(refused_a + refused_b, 0);
	CU_ASSERT_EQUAL(retx, 0);
	sd.f->paused[0] = sd.f->paused[1] = false;
	world_read_flow(w, sd.f, 0);
	world_read_flow(w, sd.f, 1);
	CU_ASSERT_EQUAL(world_run(w, sim_now(w->sim) + 60 * SST_NSEC_PER_SEC), 0);
	world_check_done(w);
	world_destroy(w);
	return rate;
}

/*
 * 1 KB to 1 MB over 10 ms round trip without a rate limit, so that
 * nothing is lost (no queue), about 2 MB of each size: all
 * arrive, and past the fragment limit (32 fragments) the goodput stays
 * above half that of 20 KB datagrams (fragments): it falls smoothly.
 */
static void
test_large_datagrams(void)
{
	static const uint32_t sizes[] = {
		1000, 8000, 20000, 37000, 38000, 39000, 65535, 65536, 100000, 262144, 1048576};

	double ref = 0;

	for (unsigned int i = 0; i < RTE_DIM(sizes); i++) {
		uint64_t count = RTE_MAX((uint64_t)(2 << 20) / sizes[i], UINT64_C(4));
		double rate = run_size(sizes[i], count);

		if (sizes[i] == 20000)
			ref = rate;
		if (sizes[i] >= 37000)
			CU_ASSERT(rate >= ref / 2);
	}
	printf("\n");
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_large_datagrams),
	SST_TEST_END,
};

int
main(void)
{
	return world_test_main("sim_dgram_large", cases, &seed);
}
