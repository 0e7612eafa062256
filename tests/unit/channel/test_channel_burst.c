/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Acknowledgments of packets that arrive in bursts (perf/channel_bench's
 * pattern, and a DPDK port's): the sender sends 32 packets at a time and
 * skips a number now and then (the optimistic-ack defence), the receiver
 * takes each burst in one sst_channel_receive() call, and nothing is lost
 * or reordered, so no packet may be reported lost. A gap makes the
 * receiver owe the run below it once more (a repeat word); when 16 more
 * packets followed in the same burst, the ack that their count asked for
 * took the repeat instead of their own word, the next one covered only the
 * last 16, and the packet between was never acknowledged: the sender
 * declared it lost and halved its window, once per skipped number (106
 * times in channel_bench's 565 bursts).
 */
#include "channel_pair.h"
#include "sst_test_eal.h"

/* 600 bursts of 32 with the skip defence on. Without a flush between
 * bursts no timer runs (as channel_bench): only the last burst's tail may
 * wait for its word. With one (the stream layer's flush pays owed words),
 * everything is acknowledged once the pair settles. */
static void
run_bursts(bool flush)
{
	struct end a, b;
	sst_time_t now = 1000;
	uint64_t sent = 0;

	pair_setup(&a, &b, SST_CRYPTO_CHK32, 0x5eed);
	for (int burst = 0; burst < 600; burst++) {
		send_data(&a, 32, now);
		sent += 32;
		deliver(&a, &b, now, -1);
		if (flush)
			sst_channel_flush_ack(b.ch, now);
		deliver(&b, &a, now, -1);
		deliver(&a, &b, now, -1); /* A's own ack-only packets, if any */
		now += 1000;
	}
	if (flush)
		settle(&a, &b, now, now + SST_NSEC_PER_SEC);
	CU_ASSERT(sst_channel_stats(a.ch)->tx_skipped > 50);
	CU_ASSERT_EQUAL(a.lost, 0);
	CU_ASSERT(flush ? a.acked == sent : a.acked + 16 >= sent);
	check_exactly_once(&a);
	pair_teardown(&a, &b);
}

static void
test_bursts_after_gaps(void)
{
	run_bursts(false);
}

static void
test_bursts_with_flush(void)
{
	run_bursts(true);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_bursts_after_gaps),
	SST_TEST(test_bursts_with_flush),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_channel_burst") < 0)
		return 1;
	pool = sst_test_pool("test_channel_burst", 16384, 2048);
	if (pool == NULL)
		return 1;
	return sst_test_run("channel_burst", cases);
}
