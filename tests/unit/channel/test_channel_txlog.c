/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the sender's packet log (lib/channel/channel_txlog.c): room and
 * in-flight accounting, ack ranges reported exactly once, the 3-packet rule
 * (CUSP: a packet is dead when an ASN 3 packets ahead of it does not ack
 * it), the time threshold and loss_time, lose_all, skipped numbers and
 * withdrawal, and a long randomized run against an honest model receiver.
 * Growable logs (issue 14): growth with packets in flight, acks and losses
 * across each growth boundary, a failed growth behaving as a full log, and
 * the randomized run again on a log that grows and now and then cannot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel_txlog.h"
#include "sst_test.h"
#include "sst_test_mem.h"

#define BIG SST_NSEC_PER_SEC /* a loss delay that never fires in short tests */

/* ---- recording the log's reports ---- */

struct ev {
	uint64_t seq;
	char kind; /* 'a'cked or 'l'ost */
	uintptr_t cookie;
	uint32_t bytes;
	sst_time_t sent;
};

static struct ev evs[512];
static unsigned nev;

static void
rec(char kind, uint64_t seq, const struct sst_txlog_entry *e)
{
	if (nev < sizeof(evs) / sizeof(evs[0]))
		evs[nev] = (struct ev){seq, kind, e->cookie, e->bytes, e->sent};
	nev++;
}

static void
rec_acked(void *ctx, uint64_t seq, const struct sst_txlog_entry *e)
{
	(void)ctx;
	rec('a', seq, e);
}

static void
rec_lost(void *ctx, uint64_t seq, const struct sst_txlog_entry *e)
{
	(void)ctx;
	rec('l', seq, e);
}

static const struct sst_txlog_events rec_ev = {rec_acked, rec_lost, NULL};

/* The reports since the last call, as "a1 a2 l3". */
static const char *
events(void)
{
	static char buf[2048];
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < nev && i < sizeof(evs) / sizeof(evs[0]); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%c%llu", i ? " " : "",
			evs[i].kind, (unsigned long long)evs[i].seq);
	nev = 0;
	return buf;
}

#define EXPECT_EVENTS(want)                                                                        \
	do {                                                                                       \
		const char *got_ = events();                                                       \
		CU_ASSERT_STRING_EQUAL(got_, want);                                                \
		if (strcmp(got_, want) != 0)                                                       \
			fprintf(stderr, "  line %d: events \"%s\", want \"%s\"\n", __LINE__, got_, \
				want);                                                             \
	} while (0)

static struct sst_txlog *
log_new(uint32_t capacity)
{
	struct sst_txlog *log = malloc(sst_txlog_size(capacity));

	CU_ASSERT_FATAL(log != NULL);
	memset(log, 0x5a, sst_txlog_size(capacity));
	CU_ASSERT_EQUAL_FATAL(sst_txlog_init(log, capacity), 0);
	nev = 0;
	return log;
}

static struct sst_txlog_ack_result res; /* of the last ack() */

static void
ack(struct sst_txlog *log, uint64_t from, uint64_t to, sst_time_t now, sst_time_t delay)
{
	memset(&res, 0xa5, sizeof(res));
	sst_txlog_ack(log, from, to, now, delay, &rec_ev, &res);
}

/* Push first..last, checking the numbers they get; the cookie is the number. */
static void
push_n(struct sst_txlog *log, uint64_t first, uint64_t last, sst_time_t sent, uint32_t bytes,
	bool eliciting)
{
	for (uint64_t s = first; s <= last; s++)
		CU_ASSERT_EQUAL(sst_txlog_push(log, sent, bytes, s, eliciting), s);
}

#define EXPECT_FLIGHT(log, bytes, packets)                          \
	do {                                                        \
		CU_ASSERT_EQUAL((log)->bytes_in_flight, bytes);     \
		CU_ASSERT_EQUAL((log)->packets_in_flight, packets); \
	} while (0)

#define EXPECT_RES(packets, bytes, newest, rtt)              \
	do {                                                 \
		CU_ASSERT_EQUAL(res.acked_packets, packets); \
		CU_ASSERT_EQUAL(res.acked_bytes, bytes);     \
		CU_ASSERT_EQUAL(res.newest_acked, newest);   \
		CU_ASSERT_EQUAL(res.rtt_sample, rtt);        \
	} while (0)

/* ---- cases ---- */

static void
test_size_validation(void)
{
	static const uint32_t bad[] = {
		0, 1, 32, 63, 65, 100, 3 << 10, SST_TXLOG_MAX + 1, SST_TXLOG_MAX * 2u};
	uint64_t mem[64];
	struct sst_txlog *log;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CU_ASSERT_EQUAL(sst_txlog_size(bad[i]), 0);
		CU_ASSERT_EQUAL(sst_txlog_init((struct sst_txlog *)mem, bad[i]), -EINVAL);
	}
	CU_ASSERT_EQUAL(
		sst_txlog_size(64), sizeof(struct sst_txlog) + 64 * sizeof(struct sst_txlog_entry));
	CU_ASSERT_EQUAL(sst_txlog_size(SST_TXLOG_MAX),
		sizeof(struct sst_txlog) + (size_t)SST_TXLOG_MAX * sizeof(struct sst_txlog_entry));
	log = log_new(64);
	CU_ASSERT_EQUAL(log->capacity, 64);
	CU_ASSERT_EQUAL(log->next_seq, 1); /* 0 is the fictitious packet */
	CU_ASSERT_EQUAL(log->oldest, 1);
	CU_ASSERT_EQUAL(log->largest_acked, 0);
	EXPECT_FLIGHT(log, 0, 0);
	CU_ASSERT_EQUAL(sst_txlog_room(log), 64);
	CU_ASSERT_EQUAL(sst_txlog_loss_time(log, BIG), SST_TIME_NEVER);
	CU_ASSERT_EQUAL(sst_txlog_oldest_sent(log), SST_TIME_NEVER);
	free(log);
}

static void
test_room(void)
{
	struct sst_txlog *log = log_new(64);

	push_n(log, 1, 10, 0, 100, true);
	CU_ASSERT_EQUAL(sst_txlog_room(log), 54);
	CU_ASSERT_EQUAL(sst_txlog_skip(log), 11);
	CU_ASSERT_EQUAL(sst_txlog_room(log), 53);
	push_n(log, 12, 64, 0, 100, true);
	CU_ASSERT_EQUAL(sst_txlog_room(log), 0);
	EXPECT_FLIGHT(log, 6300, 63);
	ack(log, 1, 10, 1, BIG);
	CU_ASSERT_EQUAL(res.acked_packets, 10);
	CU_ASSERT_EQUAL(log->oldest, 11); /* the skip holds the bottom */
	CU_ASSERT_EQUAL(sst_txlog_room(log), 10);
	ack(log, 12, 13, 1, BIG);
	CU_ASSERT_EQUAL(log->oldest, 11); /* 13 is only 2 past the skip */
	ack(log, 14, 26, 1, BIG);
	CU_ASSERT_EQUAL(log->oldest, 27); /* 11 retired, 12..26 acked */
	CU_ASSERT_EQUAL(sst_txlog_room(log), 26);
	ack(log, 27, 64, 1, BIG);
	CU_ASSERT_EQUAL(res.acked_packets, 38);
	CU_ASSERT_EQUAL(log->oldest, 65);
	CU_ASSERT_EQUAL(sst_txlog_room(log), 64);
	EXPECT_FLIGHT(log, 0, 0);
	CU_ASSERT_EQUAL(nev, 63);
	nev = 0;
	/* The ring wraps: the next lap reuses the slots. */
	push_n(log, 65, 128, 5, 1, true);
	CU_ASSERT_EQUAL(sst_txlog_room(log), 0);
	ack(log, 65, 128, 9, BIG);
	EXPECT_RES(64, 64, 128, 4);
	CU_ASSERT_EQUAL(evs[0].cookie, 65);
	CU_ASSERT_EQUAL(evs[63].cookie, 128);
	CU_ASSERT_EQUAL(sst_txlog_room(log), 64);
	/* A very late word for numbers of the previous lap, whose slots now
	 * hold 129..134, reports nothing. */
	nev = 0;
	push_n(log, 129, 134, 10, 1, true);
	ack(log, 65, 70, 11, BIG);
	EXPECT_RES(0, 0, 0, 0);
	CU_ASSERT_EQUAL(nev, 0);
	EXPECT_FLIGHT(log, 6, 6);
	free(log);
}

/* Only ack-eliciting packets count in flight; ack-only packets are still
 * reported when acked or lost. */
static void
test_in_flight_counts_eliciting_only(void)
{
	struct sst_txlog *log = log_new(64);

	sst_txlog_push(log, 1, 1000, 1, true);
	sst_txlog_push(log, 2, 50, 2, false);
	sst_txlog_push(log, 3, 1200, 3, true);
	EXPECT_FLIGHT(log, 2200, 2);
	CU_ASSERT_EQUAL(sst_txlog_oldest_sent(log), 1);
	ack(log, 1, 1, 7, BIG);
	EXPECT_EVENTS("a1");
	EXPECT_FLIGHT(log, 1200, 1);
	/* The retransmission timer's reference skips the ack-only packet 2. */
	CU_ASSERT_EQUAL(sst_txlog_oldest_sent(log), 3);
	ack(log, 2, 2, 7, BIG);
	EXPECT_EVENTS("a2");
	EXPECT_RES(1, 50, 2, 0); /* no RTT sample from an ack-only packet */
	EXPECT_FLIGHT(log, 1200, 1);
	sst_txlog_push(log, 4, 60, 4, false);
	EXPECT_FLIGHT(log, 1200, 1);
	CU_ASSERT_EQUAL(sst_txlog_lose_all(log, &rec_ev), 2);
	EXPECT_EVENTS("l3 l4");
	CU_ASSERT_EQUAL(sst_txlog_oldest_sent(log), SST_TIME_NEVER);
	EXPECT_FLIGHT(log, 0, 0);
	free(log);
}

static void
test_ack_ranges_report_once(void)
{
	struct sst_txlog *log = log_new(64);

	for (uint64_t s = 1; s <= 6; s++)
		sst_txlog_push(log, (s - 1) * 10, 100 + (uint32_t)s, 1000 + s, true);
	ack(log, 1, 4, 100, BIG);
	EXPECT_EVENTS("a1 a2 a3 a4");
	EXPECT_RES(4, 101 + 102 + 103 + 104, 4, 100 - 30);
	CU_ASSERT_FALSE(res.covers_skipped);
	for (unsigned i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(evs[i].cookie, 1001 + i);
		CU_ASSERT_EQUAL(evs[i].bytes, 101 + i);
		CU_ASSERT_EQUAL(evs[i].sent, i * 10);
	}
	CU_ASSERT_EQUAL(log->largest_acked, 4);
	ack(log, 2, 6, 120, BIG); /* overlaps what 1..4 said */
	EXPECT_EVENTS("a5 a6");
	EXPECT_RES(2, 105 + 106, 6, 120 - 50);
	ack(log, 1, 6, 130, BIG); /* a duplicate: nothing new */
	EXPECT_EVENTS("");
	EXPECT_RES(0, 0, 0, 0);
	CU_ASSERT_FALSE(res.covers_skipped);
	CU_ASSERT_EQUAL(log->oldest, 7);
	EXPECT_FLIGHT(log, 0, 0);

	/* A hole filled later: 8..9, then 7..10. */
	push_n(log, 7, 10, 200, 10, true);
	ack(log, 8, 9, 210, BIG);
	EXPECT_EVENTS("a8 a9");
	ack(log, 7, 10, 220, BIG);
	EXPECT_EVENTS("a7 a10");
	EXPECT_RES(2, 20, 10, 20);
	CU_ASSERT_EQUAL(log->largest_acked, 10);
	/* An older word arriving late moves nothing back. */
	ack(log, 5, 8, 230, BIG);
	EXPECT_EVENTS("");
	CU_ASSERT_EQUAL(log->largest_acked, 10);
	free(log);
}

/* The RTT sample comes from the newest ack-eliciting packet newly acked. */
static void
test_rtt_sample_newest_eliciting(void)
{
	struct sst_txlog *log = log_new(64);

	sst_txlog_push(log, 10, 100, 1, true);
	sst_txlog_push(log, 20, 100, 2, true);
	sst_txlog_push(log, 30, 40, 3, false);
	ack(log, 1, 3, 100, BIG);
	EXPECT_RES(3, 240, 3, 80); /* packet 2's, not 3's */
	sst_txlog_push(log, 40, 40, 4, false);
	sst_txlog_push(log, 50, 100, 5, true);
	sst_txlog_push(log, 60, 100, 6, true);
	ack(log, 6, 6, 100, BIG);
	EXPECT_RES(1, 100, 6, 40);
	ack(log, 4, 5, 100, BIG); /* 5 is older than 6 but the newest here */
	EXPECT_RES(2, 140, 5, 50);
	free(log);
}

/* CUSP: an ack 3 packets ahead kills; 2 ahead does not. */
static void
test_packet_threshold(void)
{
	struct sst_txlog *log = log_new(64);

	CU_ASSERT_EQUAL(SST_LOSS_PACKET_THRESHOLD, 3);
	push_n(log, 1, 10, 0, 100, true);
	ack(log, 3, 3, 1, BIG);
	EXPECT_EVENTS("a3"); /* 1 is 2 behind: alive */
	ack(log, 4, 4, 1, BIG);
	EXPECT_EVENTS("a4 l1"); /* acked first, then lost */
	ack(log, 6, 6, 1, BIG);
	EXPECT_EVENTS("a6 l2");
	EXPECT_FLIGHT(log, 500, 5); /* 5 7 8 9 10 */
	ack(log, 9, 10, 1, BIG);
	EXPECT_EVENTS("a9 a10 l5 l7");
	CU_ASSERT_EQUAL(log->oldest, 8);
	CU_ASSERT_EQUAL(sst_txlog_detect_lost(log, 2, BIG, &rec_ev), 0);
	/* SST never resends: a late word for lost packets reports only what
	 * is still in flight. */
	ack(log, 5, 8, 2, BIG);
	EXPECT_EVENTS("a8");
	EXPECT_RES(1, 100, 8, 2);
	EXPECT_FLIGHT(log, 0, 0);
	free(log);
}

/* The time threshold: once a later packet is acked, an older one dies when
 * now - sent >= loss_delay; loss_time says exactly when. */
static void
test_time_threshold(void)
{
	struct sst_txlog *log = log_new(64);

	sst_txlog_push(log, 0, 100, 1, true);
	sst_txlog_push(log, 30, 100, 2, true);
	sst_txlog_push(log, 60, 100, 3, true);
	sst_txlog_push(log, 65, 100, 4, true);
	CU_ASSERT_EQUAL(sst_txlog_loss_time(log, 100), SST_TIME_NEVER); /* nothing acked */
	ack(log, 3, 3, 70, 100);
	EXPECT_EVENTS("a3");
	CU_ASSERT_EQUAL(sst_txlog_loss_time(log, 100), 100);
	CU_ASSERT_EQUAL(sst_txlog_loss_time(log, 50), 50);
	CU_ASSERT_EQUAL(sst_txlog_detect_lost(log, 99, 100, &rec_ev), 0);
	EXPECT_EVENTS("");
	CU_ASSERT_EQUAL(sst_txlog_detect_lost(log, 100, 100, &rec_ev), 1);
	EXPECT_EVENTS("l1");
	CU_ASSERT_EQUAL(sst_txlog_loss_time(log, 100), 130);
	CU_ASSERT_EQUAL(sst_txlog_detect_lost(log, 129, 100, &rec_ev), 0);
	CU_ASSERT_EQUAL(sst_txlog_detect_lost(log, 130, 100, &rec_ev), 1);
	EXPECT_EVENTS("l2");
	/* 4 is above the largest acked: only the timer can take it. */
	CU_ASSERT_EQUAL(sst_txlog_loss_time(log, 100), SST_TIME_NEVER);
	CU_ASSERT_EQUAL(sst_txlog_detect_lost(log, 10000, 100, &rec_ev), 0);
	EXPECT_FLIGHT(log, 100, 1);
	CU_ASSERT_EQUAL(sst_txlog_oldest_sent(log), 65);
	free(log);

	/* Already past the threshold when the ack arrives: lost in the same call. */
	log = log_new(64);
	sst_txlog_push(log, 0, 100, 1, true);
	sst_txlog_push(log, 10, 100, 2, true);
	sst_txlog_push(log, 20, 100, 3, true);
	ack(log, 3, 3, 105, 100);
	EXPECT_EVENTS("a3 l1");
	CU_ASSERT_EQUAL(sst_txlog_loss_time(log, 100), 110);
	ack(log, 3, 3, 110, 100); /* a repeated word still runs detection */
	EXPECT_EVENTS("l2");
	free(log);
}

/* lose_all declares everything in flight lost once; late acks change nothing. */
static void
test_lose_all_exactly_once(void)
{
	struct sst_txlog *log = log_new(64);

	sst_txlog_push(log, 0, 100, 1, true);
	sst_txlog_push(log, 0, 40, 2, false);
	sst_txlog_push(log, 0, 100, 3, true);
	sst_txlog_push(log, 0, 100, 4, true);
	sst_txlog_push(log, 0, 40, 5, false);
	ack(log, 3, 3, 1, BIG);
	EXPECT_EVENTS("a3");
	CU_ASSERT_EQUAL(sst_txlog_lose_all(log, &rec_ev), 4);
	EXPECT_EVENTS("l1 l2 l4 l5");
	EXPECT_FLIGHT(log, 0, 0);
	CU_ASSERT_EQUAL(log->oldest, 6);
	CU_ASSERT_EQUAL(sst_txlog_room(log), 64);
	ack(log, 1, 5, 2, BIG);
	EXPECT_EVENTS("");
	EXPECT_RES(0, 0, 0, 0);
	CU_ASSERT_EQUAL(sst_txlog_lose_all(log, &rec_ev), 0);
	CU_ASSERT_EQUAL(sst_txlog_detect_lost(log, 10 * BIG, 1, &rec_ev), 0);
	EXPECT_EVENTS("");
	CU_ASSERT_EQUAL(sst_txlog_loss_time(log, 1), SST_TIME_NEVER);
	CU_ASSERT_EQUAL(sst_txlog_oldest_sent(log), SST_TIME_NEVER);
	free(log);
}

/* An ack that covers a number we skipped proves an optimistic acker. */
static void
test_covers_skipped(void)
{
	struct sst_txlog *log = log_new(64);

	CU_ASSERT_EQUAL(sst_txlog_push(log, 0, 100, 1, true), 1);
	CU_ASSERT_EQUAL(sst_txlog_skip(log), 2);
	CU_ASSERT_EQUAL(sst_txlog_push(log, 0, 100, 3, true), 3);
	EXPECT_FLIGHT(log, 200, 2);
	CU_ASSERT_EQUAL(sst_txlog_room(log), 61);
	ack(log, 3, 3, 1, BIG);
	CU_ASSERT_FALSE(res.covers_skipped);
	ack(log, 1, 1, 1, BIG);
	CU_ASSERT_FALSE(res.covers_skipped);
	EXPECT_EVENTS("a3 a1");
	ack(log, 2, 2, 1, BIG);
	CU_ASSERT_TRUE(res.covers_skipped);
	ack(log, 0, 3, 1, BIG);
	CU_ASSERT_TRUE(res.covers_skipped);
	EXPECT_EVENTS("");
	/* A range that runs into a skip from below. */
	sst_txlog_push(log, 0, 100, 4, true);
	sst_txlog_skip(log);
	sst_txlog_push(log, 0, 100, 6, true);
	ack(log, 4, 6, 1, BIG);
	CU_ASSERT_TRUE(res.covers_skipped);
	free(log);
}

/* A skipped number 3 below the largest acked is retired without a report. */
static void
test_skip_retired(void)
{
	struct sst_txlog *log = log_new(64);

	sst_txlog_push(log, 0, 100, 1, true);
	sst_txlog_skip(log);
	push_n(log, 3, 5, 0, 100, true);
	ack(log, 1, 1, 1, BIG);
	CU_ASSERT_EQUAL(log->oldest, 2);
	ack(log, 3, 4, 1, BIG);
	CU_ASSERT_EQUAL(log->oldest, 2);
	CU_ASSERT_EQUAL(sst_txlog_room(log), 64 - 4);
	/* A skip is not in flight: no loss timer for it. */
	CU_ASSERT_EQUAL(sst_txlog_loss_time(log, 100), SST_TIME_NEVER);
	ack(log, 5, 5, 1, BIG);
	CU_ASSERT_FALSE(res.covers_skipped);
	CU_ASSERT_EQUAL(log->oldest, 6);
	CU_ASSERT_EQUAL(sst_txlog_room(log), 64);
	EXPECT_EVENTS("a1 a3 a4 a5");
	CU_ASSERT_EQUAL(sst_txlog_lose_all(log, &rec_ev), 0);
	EXPECT_EVENTS("");
	free(log);
}

static void
test_withdraw(void)
{
	struct sst_txlog *log = log_new(64);
	struct sst_txlog_entry e;

	sst_txlog_push(log, 5, 100, 7, true);
	sst_txlog_push(log, 6, 40, 8, false);
	sst_txlog_push(log, 7, 300, 9, true);
	CU_ASSERT_TRUE(sst_txlog_withdraw(log, 2, &e));
	CU_ASSERT(e.cookie == 8 && e.bytes == 40 && e.sent == 6 && e.ack_eliciting == 0);
	EXPECT_FLIGHT(log, 400, 2);
	CU_ASSERT_FALSE(sst_txlog_withdraw(log, 2, &e));
	CU_ASSERT_TRUE(sst_txlog_withdraw(log, 1, &e));
	CU_ASSERT(e.cookie == 7 && e.bytes == 100 && e.sent == 5 && e.ack_eliciting == 1);
	EXPECT_FLIGHT(log, 300, 1);
	CU_ASSERT_FALSE(sst_txlog_withdraw(log, 0, &e));
	CU_ASSERT_FALSE(sst_txlog_withdraw(log, 4, &e)); /* not numbered yet */
	CU_ASSERT_EQUAL(sst_txlog_skip(log), 4);
	CU_ASSERT_FALSE(sst_txlog_withdraw(log, 4, &e));
	EXPECT_EVENTS("");
	ack(log, 1, 3, 20, BIG); /* a later ack of 1 and 2 is ignored */
	EXPECT_EVENTS("a3");
	EXPECT_RES(1, 300, 3, 13);
	CU_ASSERT_FALSE(sst_txlog_withdraw(log, 3, &e)); /* acked */
	CU_ASSERT_EQUAL(sst_txlog_lose_all(log, &rec_ev), 0);
	EXPECT_EVENTS("");
	EXPECT_FLIGHT(log, 0, 0);
	free(log);
}

/* Withdrawn numbers are resolved: they must not hold the log's room when
 * nothing else would ever advance it (every send failed, nothing in flight,
 * so no ack and no timer will come). */
static void
test_withdraw_releases_room(void)
{
	struct sst_txlog *log = log_new(64);
	struct sst_txlog_entry e;

	push_n(log, 1, 64, 0, 100, true);
	CU_ASSERT_EQUAL(sst_txlog_room(log), 0);
	for (uint64_t s = 64; s >= 2; s--) /* newest first: the bottom stays */
		CU_ASSERT_TRUE(sst_txlog_withdraw(log, s, &e));
	CU_ASSERT_EQUAL(sst_txlog_room(log), 0);
	CU_ASSERT_TRUE(sst_txlog_withdraw(log, 1, &e));
	EXPECT_FLIGHT(log, 0, 0);
	CU_ASSERT_EQUAL(log->oldest, 65);
	CU_ASSERT_EQUAL(sst_txlog_room(log), 64);
	CU_ASSERT_EQUAL(sst_txlog_push(log, 1, 100, 65, true), 65);
	EXPECT_EVENTS("");
	free(log);
}

/* ---- randomized: every number ends exactly once, against a model ---- */

#define PN 60000 /* numbers the run may assign */

static struct {
	uint8_t kind[PN]; /* 0 unassigned, 1 sent, 2 skipped, 3 withdrawn */
	uint8_t done[PN], received[PN], elic[PN];
	uint32_t bytes[PN];
	sst_time_t sent[PN];
	uint64_t bytes_in_flight, packets_in_flight, call_bytes, call_newest;
	uint32_t bad, call_acked, call_lost, acked, lost;
	sst_time_t now, call_rtt;
} m;

static uint64_t rng;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A report must be the first for a number that was really sent. */
static void
model_report(uint64_t seq, const struct sst_txlog_entry *e, bool acked)
{
	if (seq == 0 || seq >= PN || m.kind[seq] != 1 || m.done[seq]++ != 0 ||
		e->cookie != seq * 7 || e->bytes != m.bytes[seq] || e->sent != m.sent[seq] ||
		(acked && !m.received[seq])) { /* an honest receiver never acked it */
		m.bad++;
		return;
	}
	m.bytes_in_flight -= m.elic[seq] ? m.bytes[seq] : 0;
	m.packets_in_flight -= m.elic[seq];
}

static void
model_acked(void *ctx, uint64_t seq, const struct sst_txlog_entry *e)
{
	(void)ctx;
	model_report(seq, e, true);
	m.acked++;
	m.call_acked++;
	m.call_bytes += e->bytes;
	m.call_newest = seq;
	m.call_rtt = e->ack_eliciting ? m.now - e->sent : m.call_rtt;
}

static void
model_lost(void *ctx, uint64_t seq, const struct sst_txlog_entry *e)
{
	(void)ctx;
	model_report(seq, e, false);
	m.lost++;
	m.call_lost++;
}

static const struct sst_txlog_events model_ev = {model_acked, model_lost, NULL};

static bool
unresolved(uint64_t s)
{
	return m.kind[s] == 1 && !m.done[s];
}

/* After an ack or a detection at m.now: nothing below the largest acked is
 * past either threshold, and loss_time is the first survivor's deadline. */
static void
check_thresholds(const struct sst_txlog *log, sst_time_t delay)
{
	sst_time_t want = SST_TIME_NEVER;

	for (uint64_t s = log->oldest; s < log->largest_acked; s++) {
		if (!unresolved(s))
			continue;
		m.bad += s + 3 <= log->largest_acked || m.now - m.sent[s] >= delay;
		want = want == SST_TIME_NEVER ? m.sent[s] + delay : want;
	}
	m.bad += sst_txlog_loss_time(log, delay) != want ||
		 (want != SST_TIME_NEVER && want <= m.now);
}

/* Random pushes, skips and withdrawals; a network that loses 10% and
 * reorders; an honest receiver whose ack words (10% lost) cover runs of
 * what it really received; loss detection; now and then a timeout. */
static void
random_run(struct sst_txlog *log)
{
	const sst_time_t delay = 80;
	struct sst_txlog_entry e;
	uint64_t net[512], highest_rx = 0, largest = 0, below = 1, oldest_seen = 1, seq;
	uint32_t qlen = 0, late = 0, pushes = 0, withdrawn = 0, acks = 0, step, wrong = 0;

	memset(&m, 0, sizeof(m));
	rng = UINT64_C(0x7e57c0de);
	for (step = 0; step < 100000 && m.bad == 0; step++) {
		uint64_t r = rnd() % 1000,
			 room = log->next_seq < PN && sst_txlog_reserve(log, 1) == 0;

		m.now += rnd() % 4;
		m.call_acked = m.call_lost = 0;
		m.call_bytes = m.call_newest = m.call_rtt = 0;
		if (r < 350 && room) {
			uint32_t bytes = 1 + (uint32_t)(rnd() % 1500), elic = rnd() % 5 != 0;

			seq = sst_txlog_push(log, m.now, bytes, log->next_seq * 7, elic);
			m.kind[seq] = 1;
			m.bytes[seq] = bytes;
			m.sent[seq] = m.now;
			m.elic[seq] = (uint8_t)elic;
			m.bytes_in_flight += elic ? bytes : 0;
			m.packets_in_flight += elic;
			pushes++;
			r = rnd() % 100;
			if (r < 2) { /* never sent after all */
				m.bad += !sst_txlog_withdraw(log, seq, &e) || e.cookie != seq * 7;
				m.kind[seq] = 3;
				withdrawn++;
				m.bytes_in_flight -= elic ? bytes : 0;
				m.packets_in_flight -= elic;
			} else if (r >= 12 && qlen < 512) { /* else lost on the way */
				net[qlen++] = seq;
			}
		} else if (r < 370 && room) {
			m.kind[sst_txlog_skip(log)] = 2;
		} else if (r < 770 && qlen > 0) { /* deliver, a little reordered */
			uint32_t i = rnd() % 4 != 0 ? 0 : (uint32_t)(rnd() % (qlen < 4 ? qlen : 4));

			seq = net[i];
			memmove(net + i, net + i + 1, (qlen - i - 1) * sizeof(net[0]));
			qlen--;
			m.received[seq] = 1;
			late += m.done[seq]; /* already declared lost */
			highest_rx = seq > highest_rx ? seq : highest_rx;
		} else if (r < 920 && highest_rx > 0 && rnd() % 10 != 0) { /* an honest ack */
			uint64_t a = highest_rx - rnd() % 8 * (rnd() % 4 == 0), ct = 0;

			a = m.received[a] ? a : highest_rx;
			while (ct < 15 && ct < a && (a - ct - 1 == 0 || m.received[a - ct - 1]))
				ct++;
			sst_txlog_ack(log, a - ct, a, m.now, delay, &model_ev, &res);
			largest = a > largest ? a : largest;
			acks++;
			m.bad += res.covers_skipped || res.acked_packets != m.call_acked ||
				 res.acked_bytes != m.call_bytes ||
				 res.newest_acked != m.call_newest ||
				 res.rtt_sample != m.call_rtt || log->largest_acked != largest;
			check_thresholds(log, delay);
		} else if (r < 970) {
			m.bad += sst_txlog_detect_lost(log, m.now, delay, &model_ev) != m.call_lost;
			check_thresholds(log, delay);
		} else if (r < 973) {
			m.bad += sst_txlog_lose_all(log, &model_ev) != m.call_lost;
			m.bad += log->packets_in_flight != 0 || log->bytes_in_flight != 0;
		}
		m.bad += log->bytes_in_flight != m.bytes_in_flight ||
			 log->packets_in_flight != m.packets_in_flight;
		m.bad += log->oldest < oldest_seen || log->oldest > log->next_seq;
		oldest_seen = log->oldest;
		for (; below < log->oldest; below++) /* released means resolved */
			m.bad += unresolved(below);
		if (step % 64 == 0) {
			sst_time_t want = SST_TIME_NEVER;

			for (uint64_t s = log->next_seq - 1; s >= log->oldest && s > 0; s--)
				want = unresolved(s) && m.elic[s] ? m.sent[s] : want;
			m.bad += sst_txlog_oldest_sent(log) != want;
		}
	}
	CU_ASSERT_EQUAL(m.bad, 0);
	if (m.bad != 0)
		fprintf(stderr, "  model mismatch at step %u\n", step - 1);
	m.call_lost = 0;
	sst_txlog_lose_all(log, &model_ev);
	EXPECT_FLIGHT(log, 0, 0);
	for (uint64_t s = 1; s < log->next_seq; s++)
		wrong += m.done[s] != (m.kind[s] == 1);
	CU_ASSERT_EQUAL(wrong, 0);
	CU_ASSERT_EQUAL(m.acked + m.lost, pushes - withdrawn);
	/* The run really went through every path. */
	CU_ASSERT(pushes > 30000 && acks > 10000 && m.acked > 15000 && m.lost > 2000);
	CU_ASSERT(late > 100);
}

static void
test_random_exactly_once(void)
{
	struct sst_txlog *log = log_new(256);

	random_run(log);
	free(log);
}

/* ---- growable logs ---- */

static struct sst_test_mem tmem;

static struct sst_txlog *
log_grow_new(uint32_t limit)
{
	static struct sst_txlog log;

	sst_test_mem_init(&tmem);
	memset(&log, 0x5a, sizeof(log));
	CU_ASSERT_EQUAL_FATAL(sst_txlog_init_grow(&log, limit, &tmem.ops), 0);
	nev = 0;
	return &log;
}

/* Push one packet (cookie = its number), growing as needed. */
static void
push_grow(struct sst_txlog *log, sst_time_t sent)
{
	CU_ASSERT_EQUAL_FATAL(sst_txlog_reserve(log, 1), 0);
	CU_ASSERT_EQUAL(sst_txlog_push(log, sent, 100, log->next_seq, true), log->next_seq - 1);
}

static void
test_grow_validation(void)
{
	struct sst_txlog log;
	struct sst_mem_ops none = {0};

	sst_test_mem_init(&tmem);
	CU_ASSERT_EQUAL(sst_txlog_init_grow(&log, 100, &tmem.ops), -EINVAL);
	CU_ASSERT_EQUAL(sst_txlog_init_grow(&log, SST_TXLOG_MAX * 2, &tmem.ops), -EINVAL);
	CU_ASSERT_EQUAL(sst_txlog_init_grow(&log, 64, NULL), -EINVAL);
	CU_ASSERT_EQUAL(sst_txlog_init_grow(&log, 64, &none), -EINVAL);
	/* Nothing until the first packet; the room is the limit's. */
	CU_ASSERT_EQUAL(sst_txlog_init_grow(&log, 1024, &tmem.ops), 0);
	CU_ASSERT_EQUAL(log.capacity, 0);
	CU_ASSERT_EQUAL(tmem.allocs, 0);
	CU_ASSERT_EQUAL(sst_txlog_room(&log), 1024);
	CU_ASSERT_EQUAL(sst_txlog_loss_time(&log, BIG), SST_TIME_NEVER);
	CU_ASSERT_EQUAL(sst_txlog_oldest_sent(&log), SST_TIME_NEVER);
	CU_ASSERT_EQUAL(sst_txlog_lose_all(&log, &rec_ev), 0);
	CU_ASSERT_EQUAL(sst_txlog_reserve(&log, 1), 0);
	CU_ASSERT_EQUAL(log.capacity, SST_TXLOG_INIT);
	/* More than the limit can never be reserved. */
	CU_ASSERT_EQUAL(sst_txlog_reserve(&log, 1025), -ENOBUFS);
	CU_ASSERT_EQUAL(log.grow_failures, 0);
	sst_txlog_fini(&log);
	CU_ASSERT_EQUAL(tmem.live, 0);
}

/*
 * Packets in flight across every growth: 32, then 64, 128 and 256 entries
 * with holes (acked out of order) and the oldest unacknowledged ones kept
 * below each boundary; acks and the 3-packet rule across the boundaries;
 * every number ends exactly once; the limit is a hard stop.
 */
static void
test_grow_in_flight(void)
{
	struct sst_txlog *log = log_grow_new(256);
	unsigned lost;

	for (int i = 0; i < 32; i++)
		push_grow(log, 10);
	CU_ASSERT_EQUAL(log->capacity, 32);
	CU_ASSERT_EQUAL(log->grows, 1);
	ack(log, 5, 10, 20, BIG); /* 1..4 lost by the 3-packet rule */
	EXPECT_EVENTS("a5 a6 a7 a8 a9 a10 l1 l2 l3 l4");
	CU_ASSERT_EQUAL(log->oldest, 11);
	/* 22 outstanding (11..32): the 11th more (43) needs 64 entries. */
	for (int i = 0; i < 10; i++)
		push_grow(log, 30);
	CU_ASSERT_EQUAL(log->capacity, 32);
	push_grow(log, 30);
	CU_ASSERT_EQUAL(log->capacity, 64);
	CU_ASSERT_EQUAL(log->grows, 2);
	EXPECT_FLIGHT(log, 100 * 33, 33);
	/* An ack across the old boundary (32 | 33) finds what was recorded. */
	ack(log, 31, 34, 40, BIG);
	EXPECT_EVENTS("a31 a32 a33 a34 l11 l12 l13 l14 l15 l16 l17 l18 l19 l20 l21 l22 l23 l24 "
		      "l25 l26 l27 l28 l29 l30");
	CU_ASSERT_EQUAL(res.rtt_sample, 10);
	EXPECT_FLIGHT(log, 100 * 9, 9); /* 35..43 */
	/* Grow to 128 and 256 with 35 still outstanding below every boundary. */
	while (log->next_seq < 35 + 256)
		push_grow(log, 50);
	CU_ASSERT_EQUAL(log->capacity, 256);
	CU_ASSERT_EQUAL(log->grows, 4);
	CU_ASSERT_EQUAL(sst_txlog_oldest_sent(log), 30);
	/* At the limit: full, and no growth is tried. */
	CU_ASSERT_EQUAL(sst_txlog_room(log), 0);
	CU_ASSERT_EQUAL(sst_txlog_reserve(log, 1), -ENOBUFS);
	CU_ASSERT_EQUAL(log->grow_failures, 0);
	/* An ack at the top: everything 3 below it is lost, once, in order,
	 * with the cookie it was recorded under. */
	ack(log, 290, 290, 60, BIG);
	CU_ASSERT_EQUAL(res.acked_packets, 1);
	lost = nev - 1;
	CU_ASSERT_EQUAL(lost, 287 - 35 + 1);
	CU_ASSERT_EQUAL(evs[1].seq, 35);
	CU_ASSERT_EQUAL(evs[1].cookie, 35);
	CU_ASSERT_EQUAL(evs[1].sent, 30);
	CU_ASSERT_EQUAL(evs[lost].seq, 287);
	nev = 0;
	CU_ASSERT_EQUAL(sst_txlog_lose_all(log, &rec_ev), 2); /* 288, 289 */
	nev = 0;
	EXPECT_FLIGHT(log, 0, 0);
	CU_ASSERT_EQUAL(log->oldest, log->next_seq);
	sst_txlog_fini(log);
	CU_ASSERT_EQUAL(tmem.live, 0);
}

/* A growth that fails leaves the log as it was, full as far as the caller
 * goes; once acks make room, numbering goes on, and a later growth works. */
static void
test_grow_failure_is_full(void)
{
	struct sst_txlog *log = log_grow_new(1024);

	tmem.allow = 1; /* the first 32 entries, then nothing */
	for (int i = 0; i < 32; i++)
		push_grow(log, 10);
	CU_ASSERT_EQUAL(sst_txlog_reserve(log, 1), -ENOBUFS);
	CU_ASSERT_EQUAL(log->grow_failures, 1);
	CU_ASSERT_EQUAL(log->capacity, 32);
	CU_ASSERT_EQUAL(log->next_seq, 33);
	CU_ASSERT_EQUAL(
		sst_txlog_room(log), 1024 - 32); /* the limit's room: a plan, not a promise */
	EXPECT_FLIGHT(log, 3200, 32);
	ack(log, 1, 4, 20, BIG);
	EXPECT_EVENTS("a1 a2 a3 a4");
	for (int i = 0; i < 4; i++)
		push_grow(log, 30);
	CU_ASSERT_EQUAL(sst_txlog_reserve(log, 1), -ENOBUFS);
	CU_ASSERT_EQUAL(log->grow_failures, 2);
	/* Numbers 33..36 sit where 1..4 were: acks and losses find them. */
	ack(log, 33, 36, 40, BIG);
	EXPECT_EVENTS("a33 a34 a35 a36 l5 l6 l7 l8 l9 l10 l11 l12 l13 l14 l15 l16 l17 l18 l19 l20 "
		      "l21 l22 l23 l24 l25 l26 l27 l28 l29 l30 l31 l32");
	CU_ASSERT_EQUAL(res.rtt_sample, 10);
	tmem.allow = UINT64_MAX;
	for (int i = 0; i < 40; i++)
		push_grow(log, 50);
	CU_ASSERT_EQUAL(log->capacity, 64);
	CU_ASSERT_EQUAL(sst_txlog_lose_all(log, &rec_ev), 40);
	nev = 0;
	sst_txlog_fini(log);
	CU_ASSERT_EQUAL(tmem.live, 0);
}

/* The randomized run on a log that starts empty, grows (up to 256 entries)
 * and finds no memory for every other growth. */
static void
test_grow_random_exactly_once(void)
{
	struct sst_txlog *log = log_grow_new(256);

	tmem.fail_every = 2;
	random_run(log);
	CU_ASSERT(log->capacity >= 64);
	CU_ASSERT(log->grow_failures > 0);
	sst_txlog_fini(log);
	CU_ASSERT_EQUAL(tmem.live, 0);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_size_validation),
	SST_TEST(test_room),
	SST_TEST(test_in_flight_counts_eliciting_only),
	SST_TEST(test_ack_ranges_report_once),
	SST_TEST(test_rtt_sample_newest_eliciting),
	SST_TEST(test_packet_threshold),
	SST_TEST(test_time_threshold),
	SST_TEST(test_lose_all_exactly_once),
	SST_TEST(test_covers_skipped),
	SST_TEST(test_skip_retired),
	SST_TEST(test_withdraw),
	SST_TEST(test_withdraw_releases_room),
	SST_TEST(test_random_exactly_once),
	SST_TEST(test_grow_validation),
	SST_TEST(test_grow_in_flight),
	SST_TEST(test_grow_failure_is_full),
	SST_TEST(test_grow_random_exactly_once),
	SST_TEST_END,
};

SST_TEST_MAIN("channel_txlog", cases)
