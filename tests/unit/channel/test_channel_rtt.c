/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the RTT estimator (lib/channel/channel_rtt.c) against RFC 6298:
 * the first sample (2.2), later samples (2.3, RTTVAR before SRTT, with the
 * exact integer arithmetic), the floor and ceiling (2.4, 2.5), backoff (5.5)
 * and its reset by a fresh sample (5.7).
 */
#include <errno.h>

#include "channel_rtt.h"
#include "sst_test.h"

#define MS SST_NSEC_PER_MSEC
#define US SST_NSEC_PER_USEC
#define SEC SST_NSEC_PER_SEC

/* An estimator with no floor worth speaking of, to see RFC 6298's formulas. */
static void
bare_init(struct sst_rtt *r, sst_time_t granularity)
{
	struct sst_rtt_params p = {.initial_rto = 1 * SEC,
		.min_rto = 1,
		.max_rto = 60 * SEC,
		.granularity = granularity};

	CU_ASSERT_EQUAL_FATAL(sst_rtt_init(r, &p), 0);
}

static void
test_defaults(void)
{
	struct sst_rtt_params p;
	struct sst_rtt r;

	sst_rtt_default_params(&p);
	CU_ASSERT_EQUAL(p.initial_rto, 1 * SEC);
	CU_ASSERT_EQUAL(p.min_rto, 200 * MS);
	CU_ASSERT_EQUAL(p.max_rto, 60 * SEC);
	CU_ASSERT_EQUAL(p.granularity, 1 * MS);
	CU_ASSERT_EQUAL(sst_rtt_init(&r, &p), 0);
	CU_ASSERT_EQUAL(r.srtt, 0);
	CU_ASSERT_EQUAL(r.rttvar, 0);
	CU_ASSERT_EQUAL(r.rto, 1 * SEC);
	CU_ASSERT_EQUAL(r.backoff, 0);
	CU_ASSERT_EQUAL(r.min, SST_TIME_NEVER);
	/* Before the first sample the smoothed RTT is the initial RTO. */
	CU_ASSERT_EQUAL(sst_rtt_smoothed(&r), 1 * SEC);
}

static void
test_init_validation(void)
{
	struct sst_rtt_params good, p;
	struct sst_rtt r;

	sst_rtt_default_params(&good);
	p = good;
	p.initial_rto = 0;
	CU_ASSERT_EQUAL(sst_rtt_init(&r, &p), -EINVAL);
	p = good;
	p.min_rto = 0;
	CU_ASSERT_EQUAL(sst_rtt_init(&r, &p), -EINVAL);
	p = good;
	p.max_rto = 0;
	CU_ASSERT_EQUAL(sst_rtt_init(&r, &p), -EINVAL);
	p = good;
	p.min_rto = p.max_rto + 1;
	CU_ASSERT_EQUAL(sst_rtt_init(&r, &p), -EINVAL);
	p = good;
	p.initial_rto = p.max_rto + 1;
	CU_ASSERT_EQUAL(sst_rtt_init(&r, &p), -EINVAL);
	/* Equal bounds are a fixed timeout, not an error. */
	p = good;
	p.min_rto = p.max_rto = p.initial_rto = 3 * SEC;
	CU_ASSERT_EQUAL(sst_rtt_init(&r, &p), 0);
	sst_rtt_sample(&r, 10 * MS);
	CU_ASSERT_EQUAL(r.rto, 3 * SEC);
	sst_rtt_backoff(&r);
	CU_ASSERT_EQUAL(r.rto, 3 * SEC);
}

/* RFC 6298 2.2: SRTT = R, RTTVAR = R/2, RTO = SRTT + max(G, 4 RTTVAR). */
static void
test_first_sample(void)
{
	struct sst_rtt r;
	struct sst_rtt_params p;

	bare_init(&r, 1 * MS);
	sst_rtt_sample(&r, 100 * MS);
	CU_ASSERT_EQUAL(r.srtt, 100 * MS);
	CU_ASSERT_EQUAL(r.rttvar, 50 * MS);
	CU_ASSERT_EQUAL(r.rto, 300 * MS);
	CU_ASSERT_EQUAL(r.latest, 100 * MS);
	CU_ASSERT_EQUAL(r.min, 100 * MS);
	CU_ASSERT_EQUAL(sst_rtt_smoothed(&r), 100 * MS);

	/* G dominates when 4 RTTVAR is below it. */
	bare_init(&r, 1 * MS);
	sst_rtt_sample(&r, 100 * US);
	CU_ASSERT_EQUAL(r.srtt, 100 * US);
	CU_ASSERT_EQUAL(r.rttvar, 50 * US);
	CU_ASSERT_EQUAL(r.rto, 100 * US + 1 * MS);

	/* Odd nanoseconds: R/2 truncates. */
	bare_init(&r, 1);
	sst_rtt_sample(&r, 7);
	CU_ASSERT_EQUAL(r.srtt, 7);
	CU_ASSERT_EQUAL(r.rttvar, 3);
	CU_ASSERT_EQUAL(r.rto, 19);

	/* With the defaults the 200 ms floor applies: 10 + 4 * 5 = 30 ms. */
	sst_rtt_default_params(&p);
	CU_ASSERT_EQUAL_FATAL(sst_rtt_init(&r, &p), 0);
	sst_rtt_sample(&r, 10 * MS);
	CU_ASSERT_EQUAL(r.srtt, 10 * MS);
	CU_ASSERT_EQUAL(r.rttvar, 5 * MS);
	CU_ASSERT_EQUAL(r.rto, 200 * MS);
	/* ... and above it the formula: 80 + 160 = 240 ms. */
	CU_ASSERT_EQUAL_FATAL(sst_rtt_init(&r, &p), 0);
	sst_rtt_sample(&r, 80 * MS);
	CU_ASSERT_EQUAL(r.rto, 240 * MS);
}

/* RFC 6298 2.3: RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R'| with the old SRTT,
 * then SRTT = 7/8 SRTT + 1/8 R'. */
static void
test_later_samples(void)
{
	struct sst_rtt r;

	bare_init(&r, 1 * MS);
	sst_rtt_sample(&r, 100 * MS);
	sst_rtt_sample(&r, 200 * MS);
	/* |100 - 200| = 100: RTTVAR = (150 + 100) / 4 = 62.5 ms. (Updating
	 * SRTT first would give |112.5 - 200| and 59.375 ms.) */
	CU_ASSERT_EQUAL(r.rttvar, 62500 * US);
	CU_ASSERT_EQUAL(r.srtt, 112500 * US); /* (700 + 200) / 8 */
	CU_ASSERT_EQUAL(r.rto, 362500 * US);  /* 112.5 + 4 * 62.5 */
	CU_ASSERT_EQUAL(r.latest, 200 * MS);
	CU_ASSERT_EQUAL(r.min, 100 * MS);
	sst_rtt_sample(&r, 50 * MS);
	/* |112.5 - 50| = 62.5: RTTVAR stays 62.5 ms; SRTT = 837.5 / 8. */
	CU_ASSERT_EQUAL(r.rttvar, 62500 * US);
	CU_ASSERT_EQUAL(r.srtt, 104687500);
	CU_ASSERT_EQUAL(r.rto, 354687500);
	CU_ASSERT_EQUAL(r.latest, 50 * MS);
	CU_ASSERT_EQUAL(r.min, 50 * MS);
	CU_ASSERT_EQUAL(sst_rtt_smoothed(&r), 104687500);

	/* Integer truncation, in nanoseconds. */
	bare_init(&r, 1);
	sst_rtt_sample(&r, 7); /* srtt 7, var 3 */
	sst_rtt_sample(&r, 10);
	CU_ASSERT_EQUAL(r.rttvar, 3); /* (9 + 3) / 4 */
	CU_ASSERT_EQUAL(r.srtt, 7);   /* 59 / 8 */
	CU_ASSERT_EQUAL(r.rto, 19);
	sst_rtt_sample(&r, 100);
	CU_ASSERT_EQUAL(r.rttvar, 25); /* (9 + 93) / 4 */
	CU_ASSERT_EQUAL(r.srtt, 18);   /* 149 / 8 */
	CU_ASSERT_EQUAL(r.rto, 118);
	sst_rtt_sample(&r, 2);
	CU_ASSERT_EQUAL(r.rttvar, 22); /* (75 + 16) / 4 */
	CU_ASSERT_EQUAL(r.srtt, 16);   /* 128 / 8 */
	CU_ASSERT_EQUAL(r.rto, 104);
	CU_ASSERT_EQUAL(r.min, 2);

	/* A steady path: RTTVAR decays until G takes over. */
	bare_init(&r, 1 * MS);
	for (int i = 0; i < 200; i++)
		sst_rtt_sample(&r, 40 * MS);
	CU_ASSERT_EQUAL(r.srtt, 40 * MS);
	CU_ASSERT_EQUAL(r.rttvar, 0);
	CU_ASSERT_EQUAL(r.rto, 41 * MS);
}

static void
test_floor_and_ceiling(void)
{
	struct sst_rtt_params p;
	struct sst_rtt r;

	sst_rtt_default_params(&p);
	CU_ASSERT_EQUAL_FATAL(sst_rtt_init(&r, &p), 0);
	sst_rtt_sample(&r, 1 * MS);
	CU_ASSERT_EQUAL(r.srtt, 1 * MS);
	CU_ASSERT_EQUAL(r.rto, 200 * MS);
	sst_rtt_sample(&r, 1 * MS);
	CU_ASSERT_EQUAL(r.rto, 200 * MS);

	p.max_rto = 2 * SEC;
	CU_ASSERT_EQUAL_FATAL(sst_rtt_init(&r, &p), 0);
	sst_rtt_sample(&r, 1 * SEC); /* 1 + 4 * 0.5 = 3 s */
	CU_ASSERT_EQUAL(r.srtt, 1 * SEC);
	CU_ASSERT_EQUAL(r.rto, 2 * SEC);
	sst_rtt_sample(&r, 100 * MS);
	/* var = (1.5 + 0.9) / 4 = 0.6 s, srtt = 7.1 / 8 = 0.8875 s: 3.2875 s */
	CU_ASSERT_EQUAL(r.rttvar, 600 * MS);
	CU_ASSERT_EQUAL(r.srtt, 887500 * US);
	CU_ASSERT_EQUAL(r.rto, 2 * SEC);
}

/* RFC 6298 5.5: each expiry doubles the timeout, up to the ceiling; a new
 * sample gives a fresh estimate. */
static void
test_backoff(void)
{
	static const sst_time_t want[] = {
		2 * SEC, 4 * SEC, 8 * SEC, 16 * SEC, 32 * SEC, 60 * SEC, 60 * SEC, 60 * SEC};
	struct sst_rtt_params p;
	struct sst_rtt r;

	sst_rtt_default_params(&p);
	CU_ASSERT_EQUAL_FATAL(sst_rtt_init(&r, &p), 0);
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		sst_rtt_backoff(&r);
		CU_ASSERT_EQUAL(r.rto, want[i]);
		CU_ASSERT_EQUAL(r.backoff, i + 1);
	}
	CU_ASSERT_EQUAL(r.srtt, 0); /* backoff is not a sample */
	CU_ASSERT_EQUAL(sst_rtt_smoothed(&r), 1 * SEC);
	sst_rtt_sample(&r, 100 * MS);
	CU_ASSERT_EQUAL(r.backoff, 0);
	CU_ASSERT_EQUAL(r.rto, 300 * MS);
	sst_rtt_backoff(&r);
	CU_ASSERT_EQUAL(r.rto, 600 * MS);
	sst_rtt_backoff(&r);
	CU_ASSERT_EQUAL(r.rto, 1200 * MS);
	CU_ASSERT_EQUAL(r.backoff, 2);
	/* The fresh estimate comes from SRTT/RTTVAR, not from the backed-off
	 * value: var = (3 * 50 + 0) / 4 = 37.5 ms, RTO = 100 + 150 ms. */
	sst_rtt_sample(&r, 100 * MS);
	CU_ASSERT_EQUAL(r.backoff, 0);
	CU_ASSERT_EQUAL(r.rttvar, 37500 * US);
	CU_ASSERT_EQUAL(r.rto, 250 * MS);

	/* A ceiling that is not a power-of-two multiple is still reached. */
	p.max_rto = 3 * SEC;
	CU_ASSERT_EQUAL_FATAL(sst_rtt_init(&r, &p), 0);
	sst_rtt_backoff(&r);
	CU_ASSERT_EQUAL(r.rto, 2 * SEC);
	sst_rtt_backoff(&r);
	CU_ASSERT_EQUAL(r.rto, 3 * SEC);
	sst_rtt_backoff(&r);
	CU_ASSERT_EQUAL(r.rto, 3 * SEC);
	CU_ASSERT_EQUAL(r.backoff, 3);

	/* Doubling is exact right below an odd ceiling: 2, 4, then 5. */
	p = (struct sst_rtt_params){.initial_rto = 2, .min_rto = 1, .max_rto = 5, .granularity = 1};
	CU_ASSERT_EQUAL_FATAL(sst_rtt_init(&r, &p), 0);
	sst_rtt_backoff(&r);
	CU_ASSERT_EQUAL(r.rto, 4);
	sst_rtt_backoff(&r);
	CU_ASSERT_EQUAL(r.rto, 5);
}

/* A zero sample (a clock too coarse to see the RTT) is still a sample: the
 * estimator must not take the next one for its first. */
static void
test_zero_sample(void)
{
	struct sst_rtt r;

	bare_init(&r, 1 * MS);
	sst_rtt_sample(&r, 0);
	CU_ASSERT_NOT_EQUAL(r.srtt, 0);
	CU_ASSERT_NOT_EQUAL(sst_rtt_smoothed(&r), 1 * SEC);
	CU_ASSERT(r.rto <= 1 * MS + 2);
	sst_rtt_sample(&r, 80 * MS);
	CU_ASSERT(r.srtt <= 10 * MS + 1); /* not 80 ms: 2.3 applied, not 2.2 */
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_defaults),
	SST_TEST(test_init_validation),
	SST_TEST(test_first_sample),
	SST_TEST(test_later_samples),
	SST_TEST(test_floor_and_ceiling),
	SST_TEST(test_backoff),
	SST_TEST(test_zero_sample),
	SST_TEST_END,
};

SST_TEST_MAIN("channel_rtt", cases)
