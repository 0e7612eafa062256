/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the ack generator (lib/channel/channel_ack.c) driven through a
 * real receive window: the paper's Figure 4 (section 4.2.4), the chk-01
 * capture's ack words, every rule of the prototype's ack timing
 * (wire-format.md section 2, prototype notes 2.2), and its 16-bit record
 * that freezes acks past 65,535 packets (section 9.4), to pose as it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel_ack.h"
#include "channel_replay.h"
#include "channel_wire.h"
#include "sst_test.h"

#define MS SST_NSEC_PER_MSEC
#define US SST_NSEC_PER_USEC

struct rx {
	struct sst_replay *w;
	struct sst_ackgen a;
};

static void
rx_init(struct rx *rx, const struct sst_ack_policy *p)
{
	struct sst_ack_policy def;

	rx->w = malloc(sst_replay_size(32));
	CU_ASSERT_FATAL(rx->w != NULL);
	CU_ASSERT_EQUAL_FATAL(sst_replay_init(rx->w, 32), 0);
	if (p == NULL) {
		sst_ack_default_policy(&def);
		p = &def;
	}
	CU_ASSERT_EQUAL_FATAL(sst_ackgen_init(&rx->a, p), 0);
}

/* One authenticated packet, in the order the receive path uses; @p quiet:
 * it ends a quiet period (the channel's judgment). */
static void
rx_packet_quiet(struct rx *rx, uint64_t seq, bool eliciting, bool quiet, sst_time_t now)
{
	CU_ASSERT_EQUAL(sst_replay_check(rx->w, seq), SST_REPLAY_NEW);
	sst_ackgen_on_receive(&rx->a, seq, rx->w->highest, eliciting, quiet, now);
	sst_replay_update(rx->w, seq);
}

static void
rx_packet(struct rx *rx, uint64_t seq, bool eliciting, sst_time_t now)
{
	rx_packet_quiet(rx, seq, eliciting, false, now);
}

/* Take a word and compare it with the expected one. */
#define EXPECT_WORD(rx, want_seq, want_ct)                                                  \
	do {                                                                                \
		uint64_t s_ = UINT64_MAX;                                                   \
		uint8_t c_ = 0xff;                                                          \
		sst_ackgen_take(&(rx)->a, (rx)->w, &s_, &c_);                               \
		CU_ASSERT_EQUAL(s_, (uint64_t)(want_seq));                                  \
		CU_ASSERT_EQUAL(c_, (uint8_t)(want_ct));                                    \
		if (s_ != (uint64_t)(want_seq) || c_ != (uint8_t)(want_ct))                 \
			fprintf(stderr, "  line %d: got %llu/%u, want %llu/%u\n", __LINE__, \
				(unsigned long long)s_, c_, (unsigned long long)(want_seq), \
				(unsigned)(want_ct));                                       \
	} while (0)

static void
test_policy_and_init(void)
{
	struct sst_ack_policy p;
	struct sst_ackgen a;

	sst_ack_default_policy(&p);
	CU_ASSERT_EQUAL(p.max_delay, 10 * MS);
	CU_ASSERT_EQUAL(p.eliciting_threshold, 2);
	CU_ASSERT_EQUAL(p.ack_only_threshold, 4);
	CU_ASSERT_EQUAL(sst_ackgen_init(&a, &p), 0);
	CU_ASSERT_EQUAL(a.deadline, SST_TIME_NEVER);
	CU_ASSERT_FALSE(sst_ackgen_pending(&a));
	CU_ASSERT_FALSE(sst_ackgen_due(&a, 0));
	CU_ASSERT_FALSE(sst_ackgen_due(&a, SST_TIME_NEVER - 1));
	p.eliciting_threshold = 0;
	CU_ASSERT_EQUAL(sst_ackgen_init(&a, &p), -EINVAL);
	sst_ack_default_policy(&p);
	p.ack_only_threshold = 0;
	CU_ASSERT_EQUAL(sst_ackgen_init(&a, &p), -EINVAL);
}

/* Figure 4: a host that acknowledges every packet receives 1..7 with 4 lost.
 * Each word is as long as the run allows; the run counts packet 0. One
 * addition to the figure: the word that ends the run below the gap is
 * sent a second time, in its own packet, before the gap's word. */
static void
test_paper_figure4(void)
{
	static const struct {
		uint64_t seq, again, ack_seq;
		uint8_t ct;
	} fig4[] = {
		{1, 0, 1, 1}, /* 0-1 */
		{2, 0, 2, 2}, /* 0-2 */
		{3, 0, 3, 3}, /* 0-3 */
		{5, 3, 5, 0}, /* 0-3 again; 5: the gap is acked at once with AckCt 0 */
		{6, 0, 6, 1}, /* 5-6 */
		{7, 0, 7, 2}, /* 5-7 */
	};
	struct sst_ack_policy p;
	struct rx rx;

	sst_ack_default_policy(&p);
	p.eliciting_threshold = 1;
	rx_init(&rx, &p);
	for (size_t i = 0; i < sizeof(fig4) / sizeof(fig4[0]); i++) {
		sst_time_t now = (sst_time_t)(i + 1) * MS;

		rx_packet(&rx, fig4[i].seq, true, now);
		CU_ASSERT_TRUE(sst_ackgen_due(&rx.a, now));
		if (fig4[i].again != 0) {
			EXPECT_WORD(&rx, fig4[i].again, fig4[i].again);
			CU_ASSERT_TRUE(sst_ackgen_due(&rx.a, now));
		}
		EXPECT_WORD(&rx, fig4[i].ack_seq, fig4[i].ct);
		CU_ASSERT_FALSE(sst_ackgen_pending(&rx.a));
		CU_ASSERT_FALSE(sst_ackgen_due(&rx.a, now + 100 * MS));
	}
	free(rx.w);
}

/* chk-01: the client acks S's 1 and 2 at once with 2/2 (second data packet),
 * the server pays 1/1 on its reply and 3/3 on the delayed ack ~10 ms later. */
static void
test_chk01_words(void)
{
	struct rx c, s;

	/* Client (receives S->C 1 and 2, both data). */
	rx_init(&c, NULL);
	rx_packet(&c, 1, true, 589 * US);
	CU_ASSERT_FALSE(sst_ackgen_due(&c.a, 589 * US));
	rx_packet(&c, 2, true, 772 * US);
	CU_ASSERT_TRUE(sst_ackgen_due(&c.a, 772 * US));
	EXPECT_WORD(&c, 2, 2); /* packet 7: ack 2/2, packets 0-2 */
	free(c.w);

	/* Server: its reply takes the owed word for packet 1: 1/1 = 0-1. */
	rx_init(&s, NULL);
	rx_packet(&s, 1, true, 445 * US);
	CU_ASSERT_EQUAL(s.a.deadline, 445 * US + 10 * MS);
	EXPECT_WORD(&s, 1, 1);
	EXPECT_WORD(&s, 1, 1); /* every packet carries a word, even owing nothing */
	rx_packet(&s, 2, true, 466 * US);
	rx_packet(&s, 3, false, 931 * US); /* the client's Ack */
	CU_ASSERT_TRUE(sst_ackgen_pending(&s.a));
	CU_ASSERT_EQUAL(s.a.deadline, 466 * US + 10 * MS);
	CU_ASSERT_FALSE(sst_ackgen_due(&s.a, 466 * US + 10 * MS - 1));
	CU_ASSERT_TRUE(sst_ackgen_due(&s.a, 11118 * US)); /* packet 8's time */
	EXPECT_WORD(&s, 3, 3);				  /* 3/3 = 0-3 */
	free(s.w);
}

static void
test_delayed_ack_deadline(void)
{
	struct rx rx;
	sst_time_t t0 = 5 * MS;

	rx_init(&rx, NULL);
	rx_packet(&rx, 1, true, t0);
	CU_ASSERT_TRUE(sst_ackgen_pending(&rx.a));
	CU_ASSERT_EQUAL(rx.a.deadline, t0 + 10 * MS);
	CU_ASSERT_FALSE(sst_ackgen_due(&rx.a, t0));
	CU_ASSERT_FALSE(sst_ackgen_due(&rx.a, t0 + 10 * MS - 1));
	CU_ASSERT_TRUE(sst_ackgen_due(&rx.a, t0 + 10 * MS));
	/* Ack-only packets do not move the deadline. */
	rx_packet(&rx, 2, false, t0 + 3 * MS);
	rx_packet(&rx, 3, false, t0 + 4 * MS);
	CU_ASSERT_EQUAL(rx.a.deadline, t0 + 10 * MS);
	EXPECT_WORD(&rx, 3, 3);
	CU_ASSERT_EQUAL(rx.a.deadline, SST_TIME_NEVER);
	CU_ASSERT_FALSE(sst_ackgen_pending(&rx.a));
	/* A new first data packet starts a new timer from its own arrival. */
	rx_packet(&rx, 4, true, 40 * MS);
	CU_ASSERT_EQUAL(rx.a.deadline, 50 * MS);
	free(rx.w);
}

static void
test_second_eliciting_due_now(void)
{
	struct rx rx;

	rx_init(&rx, NULL);
	rx_packet(&rx, 1, true, 1 * MS);
	rx_packet(&rx, 2, true, 4 * MS);
	CU_ASSERT_EQUAL(rx.a.deadline, 4 * MS);
	CU_ASSERT_TRUE(sst_ackgen_due(&rx.a, 4 * MS));
	EXPECT_WORD(&rx, 2, 2);
	/* The count restarts after a take: one more is not enough. */
	rx_packet(&rx, 3, true, 5 * MS);
	CU_ASSERT_EQUAL(rx.a.deadline, 15 * MS);
	rx_packet(&rx, 4, true, 6 * MS);
	CU_ASSERT_EQUAL(rx.a.deadline, 6 * MS);
	EXPECT_WORD(&rx, 4, 4);
	free(rx.w);
}

/* Two idle peers must not ack each other's acks forever: ack-only packets
 * alone are owed an ack only at every 4th. */
static void
test_ack_only_every_fourth(void)
{
	struct rx rx;

	rx_init(&rx, NULL);
	for (uint64_t s = 1; s <= 3; s++) {
		rx_packet(&rx, s, false, s * MS);
		CU_ASSERT_TRUE(sst_ackgen_pending(&rx.a));
		CU_ASSERT_EQUAL(rx.a.deadline, SST_TIME_NEVER);
		CU_ASSERT_FALSE(sst_ackgen_due(&rx.a, 10 * SST_NSEC_PER_SEC));
	}
	rx_packet(&rx, 4, false, 4 * MS);
	CU_ASSERT_EQUAL(rx.a.deadline, 4 * MS);
	CU_ASSERT_TRUE(sst_ackgen_due(&rx.a, 4 * MS));
	EXPECT_WORD(&rx, 4, 4);
	for (uint64_t s = 5; s <= 7; s++)
		rx_packet(&rx, s, false, s * MS);
	CU_ASSERT_FALSE(sst_ackgen_due(&rx.a, 10 * SST_NSEC_PER_SEC));
	rx_packet(&rx, 8, false, 8 * MS);
	CU_ASSERT_TRUE(sst_ackgen_due(&rx.a, 8 * MS));
	EXPECT_WORD(&rx, 8, 8);
	free(rx.w);
}

/* A keepalive probe is one ack-only packet after a quiet period: answered
 * at once by our policy, not by the prototype's (which needs the fourth). */
static void
test_quiet_ack_only_answered(void)
{
	struct sst_ack_policy proto;
	struct rx rx;

	rx_init(&rx, NULL);
	CU_ASSERT_TRUE(rx.a.policy.quiet_ack);
	rx_packet(&rx, 1, false, 1 * MS);
	CU_ASSERT_FALSE(sst_ackgen_due(&rx.a, 10 * SST_NSEC_PER_SEC));
	rx_packet_quiet(&rx, 2, false, true, 15 * SST_NSEC_PER_SEC);
	CU_ASSERT_TRUE(sst_ackgen_due(&rx.a, 15 * SST_NSEC_PER_SEC));
	EXPECT_WORD(&rx, 2, 2);
	free(rx.w);

	sst_ack_default_policy(&proto);
	proto.quiet_ack = false;
	rx_init(&rx, &proto);
	rx_packet_quiet(&rx, 1, false, true, 15 * SST_NSEC_PER_SEC);
	CU_ASSERT_FALSE(sst_ackgen_due(&rx.a, 30 * SST_NSEC_PER_SEC));
	free(rx.w);
}

static void
test_gap_due_now(void)
{
	struct rx rx;

	rx_init(&rx, NULL);
	rx_packet(&rx, 1, true, 1 * MS);
	rx_packet(&rx, 2, true, 2 * MS);
	EXPECT_WORD(&rx, 2, 2);
	rx_packet(&rx, 5, true, 3 * MS); /* 3 and 4 missing */
	CU_ASSERT_EQUAL(rx.a.deadline, 3 * MS);
	CU_ASSERT_TRUE(sst_ackgen_due(&rx.a, 3 * MS));
	EXPECT_WORD(&rx, 2, 2); /* the run below the gap, again */
	CU_ASSERT_TRUE(sst_ackgen_due(&rx.a, 3 * MS));
	EXPECT_WORD(&rx, 5, 0);
	CU_ASSERT_FALSE(sst_ackgen_pending(&rx.a));
	/* A gap is reported at once even on an ack-only packet. */
	rx_packet(&rx, 7, false, 4 * MS);
	CU_ASSERT_TRUE(sst_ackgen_due(&rx.a, 4 * MS));
	EXPECT_WORD(&rx, 5, 0);
	EXPECT_WORD(&rx, 7, 0);
	/* In order again: back to the delayed ack. */
	rx_packet(&rx, 8, true, 5 * MS);
	CU_ASSERT_EQUAL(rx.a.deadline, 15 * MS);
	EXPECT_WORD(&rx, 8, 1);
	free(rx.w);
}

/* A late packet gets its own word first; the highest is still owed. */
static void
test_late_packet_own_word_first(void)
{
	struct rx rx;

	rx_init(&rx, NULL);
	rx_packet(&rx, 1, true, 1 * MS);
	rx_packet(&rx, 2, true, 1 * MS);
	EXPECT_WORD(&rx, 2, 2);
	rx_packet(&rx, 3, true, 2 * MS);
	rx_packet(&rx, 5, true, 2 * MS);
	EXPECT_WORD(&rx, 3, 3);
	EXPECT_WORD(&rx, 5, 0);
	rx_packet(&rx, 6, true, 3 * MS);
	CU_ASSERT_EQUAL(rx.a.deadline, 13 * MS);
	rx_packet(&rx, 4, true, 4 * MS); /* late */
	CU_ASSERT_EQUAL(rx.a.deadline, 4 * MS);
	EXPECT_WORD(&rx, 4, 4); /* 0-4 */
	CU_ASSERT_TRUE(sst_ackgen_pending(&rx.a));
	CU_ASSERT_TRUE(sst_ackgen_due(&rx.a, 4 * MS));
	EXPECT_WORD(&rx, 6, 6); /* 0-6, now that 4 filled the hole */
	CU_ASSERT_FALSE(sst_ackgen_pending(&rx.a));
	CU_ASSERT_EQUAL(rx.a.deadline, SST_TIME_NEVER);
	EXPECT_WORD(&rx, 6, 6);

	/* A late packet that does not close the hole: 5 after 3, 6, 7. */
	free(rx.w);
	rx_init(&rx, NULL);
	rx_packet(&rx, 1, true, 1 * MS);
	rx_packet(&rx, 2, true, 1 * MS);
	rx_packet(&rx, 3, true, 1 * MS);
	rx_packet(&rx, 6, true, 1 * MS);
	rx_packet(&rx, 7, true, 1 * MS);
	EXPECT_WORD(&rx, 3, 3);
	EXPECT_WORD(&rx, 7, 1);
	rx_packet(&rx, 5, false, 2 * MS); /* late, ack-only */
	CU_ASSERT_TRUE(sst_ackgen_due(&rx.a, 2 * MS));
	EXPECT_WORD(&rx, 5, 0);
	CU_ASSERT_TRUE(sst_ackgen_due(&rx.a, 2 * MS));
	EXPECT_WORD(&rx, 7, 2); /* 5-7 */
	CU_ASSERT_FALSE(sst_ackgen_pending(&rx.a));
	free(rx.w);
}

/*
 * The word that ends the run below a gap is the only one that can cover
 * that run, and once the sender has seen the gap's word it counts the
 * run's last packets towards their loss: it goes out twice, the second
 * copy in its own packet right before the gap's word, even when an
 * ordinary ack already carried it (a number the sender skipped makes such
 * a gap every few hundred packets). Not when a late packet closed the gap
 * first (its own word covers the run), and not when posing as the
 * prototype.
 */
static void
test_gap_run_repeated(void)
{
	struct rx rx;
	uint64_t taken;

	rx_init(&rx, NULL);
	for (uint64_t s = 1; s <= 10; s++)
		rx_packet(&rx, s, true, 1 * MS);
	EXPECT_WORD(&rx, 10, 10);
	CU_ASSERT_FALSE(sst_ackgen_pending(&rx.a));
	rx_packet(&rx, 12, true, 2 * MS); /* 11 skipped by the sender */
	CU_ASSERT_TRUE(sst_ackgen_pending(&rx.a));
	CU_ASSERT_TRUE(sst_ackgen_due(&rx.a, 2 * MS));
	taken = rx.a.taken;
	EXPECT_WORD(&rx, 10, 10);
	CU_ASSERT_TRUE(sst_ackgen_due(&rx.a, 2 * MS));
	EXPECT_WORD(&rx, 12, 0);
	CU_ASSERT_EQUAL(rx.a.taken, taken + 2);
	CU_ASSERT_FALSE(sst_ackgen_pending(&rx.a));
	CU_ASSERT_FALSE(sst_ackgen_due(&rx.a, 100 * MS));
	/* Once only: the next gap's run is its own. */
	rx_packet(&rx, 13, true, 3 * MS);
	rx_packet(&rx, 14, true, 3 * MS);
	EXPECT_WORD(&rx, 14, 2);
	CU_ASSERT_FALSE(sst_ackgen_pending(&rx.a));

	/* A late packet closes the gap before the words are taken. */
	rx_packet(&rx, 16, true, 4 * MS);
	rx_packet(&rx, 15, true, 4 * MS);
	EXPECT_WORD(&rx, 15, 3); /* 12-15: 11 was never sent */
	EXPECT_WORD(&rx, 16, 4);
	CU_ASSERT_FALSE(sst_ackgen_pending(&rx.a));
	free(rx.w);

	/* The prototype words each run once. */
	rx_init(&rx, NULL);
	sst_ackgen_on_receive_prototype(&rx.a, 1, rx.w->highest, true, false, 1 * MS);
	sst_replay_update(rx.w, 1);
	sst_ackgen_on_receive_prototype(&rx.a, 3, rx.w->highest, true, false, 1 * MS);
	sst_replay_update(rx.w, 3);
	EXPECT_WORD(&rx, 3, 0);
	CU_ASSERT_FALSE(sst_ackgen_pending(&rx.a));
	free(rx.w);
}

static void
test_take_resets(void)
{
	struct rx rx;

	rx_init(&rx, NULL);
	rx_packet(&rx, 1, true, 1 * MS);
	rx_packet(&rx, 2, false, 1 * MS);
	rx_packet(&rx, 4, false, 1 * MS);
	rx_packet(&rx, 3, true, 1 * MS);
	CU_ASSERT_EQUAL(rx.a.eliciting, 2);
	CU_ASSERT_EQUAL(rx.a.ack_only, 2);
	CU_ASSERT_EQUAL(rx.a.reordered, 3);
	EXPECT_WORD(&rx, 3, 3);
	EXPECT_WORD(&rx, 4, 4);
	CU_ASSERT_EQUAL(rx.a.eliciting, 0);
	CU_ASSERT_EQUAL(rx.a.ack_only, 0);
	CU_ASSERT_EQUAL(rx.a.reordered, 0);
	CU_ASSERT_EQUAL(rx.a.deadline, SST_TIME_NEVER);
	CU_ASSERT_FALSE(sst_ackgen_pending(&rx.a));
	CU_ASSERT_FALSE(sst_ackgen_due(&rx.a, 1000 * SST_NSEC_PER_SEC));
	free(rx.w);
}

/* AckCt is a 4-bit field: the run is reported up to 15 packets long. */
static void
test_ackct_capped(void)
{
	struct rx rx;

	CU_ASSERT_EQUAL(SST_CHAN_ACKCT_MAX, 15);
	rx_init(&rx, NULL);
	for (uint64_t s = 1; s <= 30; s++) {
		rx_packet(&rx, s, true, s * MS);
		if (s % 2 == 0) {
			CU_ASSERT_TRUE(sst_ackgen_due(&rx.a, s * MS));
			EXPECT_WORD(&rx, s, s < 15 ? s : 15);
		}
	}
	/* A late packet's run is capped too: 31 lost, 32..40, then 31. */
	for (uint64_t s = 32; s <= 40; s++)
		rx_packet(&rx, s, true, 40 * MS);
	EXPECT_WORD(&rx, 30, 15); /* the run below the gap, again */
	EXPECT_WORD(&rx, 40, 8);
	rx_packet(&rx, 31, true, 41 * MS);
	EXPECT_WORD(&rx, 31, 15);
	EXPECT_WORD(&rx, 40, 15);
	free(rx.w);
}

/* Other thresholds are honoured as configured. */
static void
test_custom_policy(void)
{
	struct sst_ack_policy p = {
		.max_delay = 1 * MS, .eliciting_threshold = 3, .ack_only_threshold = 1};
	struct rx rx;

	rx_init(&rx, &p);
	rx_packet(&rx, 1, true, 10 * MS);
	CU_ASSERT_EQUAL(rx.a.deadline, 11 * MS);
	rx_packet(&rx, 2, true, 10 * MS + 1);
	CU_ASSERT_EQUAL(rx.a.deadline, 11 * MS);
	rx_packet(&rx, 3, true, 10 * MS + 2);
	CU_ASSERT_EQUAL(rx.a.deadline, 10 * MS + 2);
	EXPECT_WORD(&rx, 3, 3);
	rx_packet(&rx, 4, false, 20 * MS);
	CU_ASSERT_EQUAL(rx.a.deadline, 20 * MS);
	EXPECT_WORD(&rx, 4, 4);
	free(rx.w);
}

/*
 * Posing as the 2007 prototype (sst_channel_params.prototype_acks): its
 * record of received numbers is 16 bits wide, so the ack words are the
 * ones of chk-07 (wire-format.md 9.4): exact up to 65,535; then 65535/15
 * on every word that pays the normal ack, and each later packet, recorded
 * as its number modulo 65536, acknowledged alone and at once with AckCt 0.
 */
static void
test_prototype_freeze(void)
{
	struct rx rx;
	uint64_t s;
	uint8_t c;

	rx_init(&rx, NULL);
	for (uint64_t seq = 1; seq <= 65535; seq++) {
		CU_ASSERT_EQUAL(sst_replay_check(rx.w, seq), SST_REPLAY_NEW);
		sst_ackgen_on_receive_prototype(&rx.a, seq, rx.w->highest, true, false, 0);
		sst_replay_update(rx.w, seq);
		if (seq % 2 == 0) {
			sst_ackgen_take_prototype(&rx.a, rx.w, &s, &c);
			CU_ASSERT_EQUAL(s, seq);
		}
	}
	sst_ackgen_take_prototype(&rx.a, rx.w, &s, &c);
	CU_ASSERT(s == 65535 && c == 15);
	/* Packet 65,536 is 0 in 16 bits: behind the highest, a late packet. */
	for (uint64_t seq = 65536; seq < 65536 + 40; seq++) {
		CU_ASSERT_EQUAL(sst_replay_check(rx.w, seq), SST_REPLAY_NEW);
		sst_ackgen_on_receive_prototype(&rx.a, seq, rx.w->highest, true, false, MS);
		sst_replay_update(rx.w, seq);
		CU_ASSERT(sst_ackgen_due(&rx.a, MS));
		sst_ackgen_take_prototype(&rx.a, rx.w, &s, &c);
		CU_ASSERT(s == (seq & 0xffff) && c == 0);
		/* A packet going out with nothing owed carries the frozen word. */
		sst_ackgen_take_prototype(&rx.a, rx.w, &s, &c);
		CU_ASSERT(s == 65535 && c == 15);
	}
	CU_ASSERT_EQUAL(rx.w->highest, 65536 + 39); /* the replay window is not fooled */
	free(rx.w);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_policy_and_init),
	SST_TEST(test_paper_figure4),
	SST_TEST(test_chk01_words),
	SST_TEST(test_delayed_ack_deadline),
	SST_TEST(test_second_eliciting_due_now),
	SST_TEST(test_ack_only_every_fourth),
	SST_TEST(test_quiet_ack_only_answered),
	SST_TEST(test_gap_due_now),
	SST_TEST(test_late_packet_own_word_first),
	SST_TEST(test_gap_run_repeated),
	SST_TEST(test_take_resets),
	SST_TEST(test_ackct_capped),
	SST_TEST(test_custom_policy),
	SST_TEST(test_prototype_freeze),
	SST_TEST_END,
};

SST_TEST_MAIN("channel_ack", cases)
