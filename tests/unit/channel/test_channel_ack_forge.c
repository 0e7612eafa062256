/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst_channel_params.ack_forge_for_testing: a test and attack facility
 * that rewrites a channel's own ack words before they are sealed. Checks
 * that it is absent from a channel that does not ask for it, that the
 * forged words go out sealed (a secure peer authenticates them), and that
 * the optimistic-ack defence of that peer catches them, where the same
 * exchange with honest words does not.
 */
#include <string.h>

#include <rte_mbuf.h>

#include "channel_ack.h"
#include "channel_pair.h"
#include "sst_test_eal.h"

/* Acknowledge the 16 numbers up to the highest received, whether they
 * arrived or not, or the 16 after the previous word where the highest is
 * further on: every number is claimed in turn. What sst-gen --attack
 * optimistic-ack sends. */
struct forger {
	unsigned int calls;
	uint64_t last_seq;
};

static void
forge_highest(
	void *ctx, uint64_t rx_highest, uint64_t last_sent, uint64_t *ack_seq, uint8_t *ack_count)
{
	struct forger *f = ctx;

	f->calls++;
	CU_ASSERT_EQUAL(last_sent, f->last_seq);
	*ack_seq = last_sent != 0 && rx_highest > last_sent + 16 ? last_sent + 16 : rx_highest;
	*ack_count = 200; /* out of range on purpose: the channel clamps it to 15 */
	f->last_seq = *ack_seq;
}

static const struct sst_channel_ack_forge forge_ops = {.rewrite = forge_highest};

/* a skips numbers (seed), b forges its acks when @p f is not NULL. */
static void
forge_pair(struct end *a, struct end *b, enum sst_crypto_suite suite, struct forger *f)
{
	struct sst_channel_params p;

	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	params_for(&p, a, suite, 0x11111111, 0x22222222);
	p.skip_seed = 0x5eed;
	a->ch = sst_channel_create(&p, 0);
	params_for(&p, b, suite, 0x22222222, 0x11111111);
	p.ack_forge_for_testing = f != NULL ? &forge_ops : NULL;
	p.ack_forge_ctx = f;
	b->ch = sst_channel_create(&p, 0);
	CU_ASSERT_FATAL(a->ch != NULL && b->ch != NULL);
}

/* Without a rewriter the channel takes its ack words with the ack
 * generator's own function: the facility costs it nothing. */
static void
test_unset_is_honest_path(void)
{
	struct end a, b;
	struct forger f = {0};

	forge_pair(&a, &b, SST_CRYPTO_CHK32, NULL);
	CU_ASSERT(a.ch->ack_take == sst_ackgen_take);
	CU_ASSERT(b.ch->ack_take == sst_ackgen_take);
	CU_ASSERT_PTR_NULL(b.ch->ack_forge);
	pair_teardown(&a, &b);
	forge_pair(&a, &b, SST_CRYPTO_CHK32, &f);
	CU_ASSERT(b.ch->ack_take != sst_ackgen_take);
	CU_ASSERT(b.ch->ack_take_honest == sst_ackgen_take);
	pair_teardown(&a, &b);
}

/* A table without its function is refused. */
static void
test_forge_without_rewrite_refused(void)
{
	static const struct sst_channel_ack_forge empty = {.rewrite = NULL};
	struct sst_channel_params p;
	struct end e;

	memset(&e, 0, sizeof(e));
	params_for(&p, &e, SST_CRYPTO_CHK32, 1, 2);
	p.ack_forge_for_testing = &empty;
	CU_ASSERT_EQUAL(sst_channel_size(&p), 0);
	CU_ASSERT_PTR_NULL(sst_channel_create(&p, 0));
}

/*
 * One packet each way per round, a's numbers with skips in them: with
 * honest words b never acknowledges a skipped number; with forged ones
 * (16 numbers up to the highest) it soon does, sealed under the AEAD (which
 * encrypts the ack word) so a authenticates every one, and a fails the
 * channel. @return rounds until
 * a failed (or the limit).
 */
static unsigned int
exchange(struct end *a, struct end *b, struct forger *f, bool cleartext, unsigned int limit)
{
	sst_time_t now = 1000;
	unsigned int round;

	for (round = 0; round < limit && !sst_channel_failed(a->ch); round++) {
		send_data(a, 1, now);
		deliver(a, b, now, -1);
		send_data(b, 1, now);
		/* Checksum mode: the forged word is on the wire in the clear
		 * (an AEAD encrypts it: only bytes 0-3 are clear). */
		if (f != NULL && b->nwire == 1 && cleartext) {
			const uint8_t *h = rte_pktmbuf_mtod(b->wire[0], const uint8_t *);

			CU_ASSERT_EQUAL(h[4], SST_CHAN_ACKCT_MAX);
			CU_ASSERT_EQUAL(((uint32_t)h[5] << 16 | (uint32_t)h[6] << 8 | h[7]),
				(uint32_t)f->last_seq & SST_CHAN_SEQ_MASK);
		}
		deliver(b, a, now, -1);
		now += SST_NSEC_PER_MSEC;
	}
	return round;
}

static void
test_forged_acks_caught(void)
{
	static const enum sst_crypto_suite suites[] = {
		SST_CRYPTO_AES128GCM, SST_CRYPTO_CHACHA20POLY1305, SST_CRYPTO_CHK32};

	for (unsigned int i = 0; i < RTE_DIM(suites); i++) {
		struct forger f = {0};
		struct end a, b;

		/* Honest: 600 rounds cross at least two skips, none acknowledged. */
		forge_pair(&a, &b, suites[i], NULL);
		CU_ASSERT_EQUAL(exchange(&a, &b, NULL, false, 600), 600);
		CU_ASSERT_FALSE(sst_channel_failed(a.ch));
		CU_ASSERT_TRUE(sst_channel_stats(a.ch)->tx_skipped >= 2);
		CU_ASSERT_EQUAL(sst_channel_stats(a.ch)->optimistic_acks, 0);
		pair_teardown(&a, &b);

		forge_pair(&a, &b, suites[i], &f);
		CU_ASSERT_TRUE(exchange(&a, &b, &f, suites[i] == SST_CRYPTO_CHK32, 600) < 600);
		CU_ASSERT_TRUE(f.calls > 0);
		CU_ASSERT_TRUE(sst_channel_failed(a.ch));
		CU_ASSERT_EQUAL(a.failed_events, 1);
		CU_ASSERT_EQUAL(sst_channel_stats(a.ch)->optimistic_acks, 1);
		CU_ASSERT_EQUAL(sst_channel_stats(a.ch)->rx_bad_trailer, 0);
		/* b itself is unharmed: it only lied. */
		CU_ASSERT_FALSE(sst_channel_failed(b.ch));
		pair_teardown(&a, &b);
	}
}

/*
 * Bursts of 32 from a, b acknowledging as a receiver does (a word at each
 * gap, another whenever 16 numbers are owed, ack-only packets): the skipped
 * number then often arrives as a gap with more than 16 packets after it in
 * the same burst, and a word that claims only the 16 numbers below the
 * highest never covers it. sst-gen's secure optimistic acker escaped that
 * way now and then (CI, session 20). A forger that claims every number in
 * turn is caught at the first skip.
 */
static unsigned int
exchange_bursts(struct end *a, struct end *b, unsigned int limit)
{
	sst_time_t now = 1000;
	unsigned int round;

	b->auto_ack = true;
	for (round = 0; round < limit && !sst_channel_failed(a->ch); round++) {
		send_data(a, 32, now);
		deliver(a, b, now, -1);
		deliver(b, a, now, -1);
		now += SST_NSEC_PER_MSEC;
	}
	return round;
}

static void
test_forged_acks_caught_in_bursts(void)
{
	static const enum sst_crypto_suite suites[] = {SST_CRYPTO_AES128GCM, SST_CRYPTO_CHK32};

	for (unsigned int i = 0; i < RTE_DIM(suites); i++) {
		struct forger f = {0};
		struct end a, b;

		forge_pair(&a, &b, suites[i], NULL);
		CU_ASSERT_EQUAL(exchange_bursts(&a, &b, 100), 100);
		CU_ASSERT_TRUE(sst_channel_stats(a.ch)->tx_skipped >= 8);
		CU_ASSERT_EQUAL(sst_channel_stats(a.ch)->optimistic_acks, 0);
		pair_teardown(&a, &b);

		/* Caught at the first skip: within 288 numbers, 10 bursts. */
		forge_pair(&a, &b, suites[i], &f);
		CU_ASSERT_TRUE(exchange_bursts(&a, &b, 100) <= 10);
		CU_ASSERT_TRUE(sst_channel_failed(a.ch));
		CU_ASSERT_EQUAL(sst_channel_stats(a.ch)->optimistic_acks, 1);
		pair_teardown(&a, &b);
	}
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_unset_is_honest_path),
	SST_TEST(test_forge_without_rewrite_refused),
	SST_TEST(test_forged_acks_caught),
	SST_TEST(test_forged_acks_caught_in_bursts),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_channel_ack_forge") < 0)
		return 1;
	pool = sst_test_pool("test_channel_ack_forge", 16384, 2048);
	if (pool == NULL)
		return 1;
	return sst_test_run("channel_ack_forge", cases);
}
