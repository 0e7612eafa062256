/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the event log (sst_event_log.h): each kind of record formats as
 * the JSON line documented (a stream's end by its name), with the widest
 * values within
 * SST_EVENT_LINE_MAX; unknown kinds and short buffers are refused; records
 * go through the ring to the file in order, those beyond a full ring are
 * dropped and counted, and the file holds exactly the lines written;
 * bad parameters and unusable paths are refused with their errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>

#include "sst_event_log.h"
#include "sst_stream.h"
#include "sst_test.h"
#include "sst_test_eal.h"

static void
expect_line(const struct sst_event_rec *r, const char *want)
{
	char buf[SST_EVENT_LINE_MAX];
	int n = sst_event_format(r, buf, sizeof(buf));

	CU_ASSERT_EQUAL(n, (int)strlen(want));
	CU_ASSERT_STRING_EQUAL(buf, want);
}

static void
test_format(void)
{
	struct sst_event_rec r = {.time = 1500000, .worker = 1, .channel = 7};

	r.kind = SST_EVENT_RTT;
	r.a = 20000;
	r.b = 21000;
	r.c = 10500;
	expect_line(&r, "{\"t\":1500000,\"w\":1,\"ch\":7,\"ev\":\"rtt\",\"sample_ns\":20000,"
			"\"srtt_ns\":21000,\"rttvar_ns\":10500}\n");
	r.kind = SST_EVENT_CWND;
	r.a = 14720;
	r.b = UINT64_MAX;
	r.c = 1232;
	expect_line(&r, "{\"t\":1500000,\"w\":1,\"ch\":7,\"ev\":\"cwnd\",\"cwnd\":14720,"
			"\"ssthresh\":18446744073709551615,\"in_flight\":1232}\n");
	r.kind = SST_EVENT_LOSS;
	r.a = 42;
	r.b = 1232;
	expect_line(
		&r, "{\"t\":1500000,\"w\":1,\"ch\":7,\"ev\":\"loss\",\"seq\":42,\"bytes\":1232}\n");
	r.kind = SST_EVENT_RTO;
	r.a = 400000000;
	expect_line(&r, "{\"t\":1500000,\"w\":1,\"ch\":7,\"ev\":\"rto\",\"rto_ns\":400000000}\n");
	r.kind = SST_EVENT_CHAN_UP;
	r.a = 3;
	r.b = 1;
	expect_line(
		&r, "{\"t\":1500000,\"w\":1,\"ch\":7,\"ev\":\"up\",\"peer_ch\":3,\"secure\":1}\n");
	r.kind = SST_EVENT_CHAN_DOWN;
	expect_line(&r, "{\"t\":1500000,\"w\":1,\"ch\":7,\"ev\":\"down\"}\n");
	r.kind = SST_EVENT_REPLACED;
	expect_line(&r, "{\"t\":1500000,\"w\":1,\"ch\":7,\"ev\":\"replacing\"}\n");
	r.kind = SST_EVENT_MIGRATED;
	r.a = 9;
	expect_line(&r, "{\"t\":1500000,\"w\":1,\"ch\":7,\"ev\":\"migrated\",\"to\":9}\n");
	/* A stream's events name no channel (0): the stream is its peer's. */
	r.channel = 0;
	r.kind = SST_EVENT_STREAM_CONNECTED;
	r.a = 5;
	r.b = ECONNREFUSED;
	expect_line(&r, "{\"t\":1500000,\"w\":1,\"ch\":0,\"ev\":\"stream_connected\",\"usid\":5,"
			"\"err\":111}\n");
	r.kind = SST_EVENT_STREAM_ACCEPTED;
	r.b = 1;
	expect_line(&r, "{\"t\":1500000,\"w\":1,\"ch\":0,\"ev\":\"stream_accepted\",\"usid\":5,"
			"\"sub\":1}\n");
	r.kind = SST_EVENT_STREAM_CLOSED;
	r.b = SST_STREAM_RESET_REMOTE;
	r.c = 1048576;
	expect_line(&r, "{\"t\":1500000,\"w\":1,\"ch\":0,\"ev\":\"stream_closed\",\"usid\":5,"
			"\"why\":\"reset_remote\",\"written\":1048576}\n");
	r.b = SST_STREAM_TIMED_OUT + 1;
	expect_line(&r, "{\"t\":1500000,\"w\":1,\"ch\":0,\"ev\":\"stream_closed\",\"usid\":5,"
			"\"why\":\"unknown\",\"written\":1048576}\n");
}

/* The widest record of every kind fits SST_EVENT_LINE_MAX; one byte less
 * than a line needs is refused. */
static void
test_format_limits(void)
{
	struct sst_event_rec r = {.time = UINT64_MAX,
		.a = UINT64_MAX,
		.b = UINT64_MAX,
		.c = UINT64_MAX,
		.worker = UINT16_MAX,
		.channel = UINT8_MAX};
	char buf[SST_EVENT_LINE_MAX];

	for (int k = 1; k < SST_EVENT_KINDS; k++) {
		int n;

		r.kind = (uint8_t)k;
		n = sst_event_format(&r, buf, sizeof(buf));
		CU_ASSERT_TRUE(n > 0 && n < SST_EVENT_LINE_MAX);
		CU_ASSERT_EQUAL(buf[n - 1], '\n');
		CU_ASSERT_EQUAL(sst_event_format(&r, buf, (size_t)n), -ENOSPC);
		CU_ASSERT_EQUAL(sst_event_format(&r, buf, (size_t)n + 1), n);
	}
	r.kind = 0;
	CU_ASSERT_EQUAL(sst_event_format(&r, buf, sizeof(buf)), -EINVAL);
	r.kind = SST_EVENT_KINDS;
	CU_ASSERT_EQUAL(sst_event_format(&r, buf, sizeof(buf)), -EINVAL);
}

static void
temp_path(char *path, size_t len)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(path, len, "%s/test_event_log.%d.jsonl", tmp != NULL ? tmp : "/tmp", getpid());
}

static void
test_ring_to_file(void)
{
	enum { RING = 64, PUT = RING + 6 };
	struct sst_event_log *log;
	char path[256], line[SST_EVENT_LINE_MAX], want[SST_EVENT_LINE_MAX];
	unsigned int lines = 0;
	FILE *f;

	temp_path(path, sizeof(path));
	log = sst_event_log_create(path, RING);
	CU_ASSERT_PTR_NOT_NULL_FATAL(log);
	for (unsigned int i = 0; i < PUT; i++) {
		struct sst_event_rec r = {.time = i, .kind = SST_EVENT_LOSS, .a = i, .b = 100};

		CU_ASSERT_EQUAL(sst_event_log_put(log, &r), i < RING ? 0 : -ENOBUFS);
	}
	CU_ASSERT_EQUAL(sst_event_log_dropped(log), PUT - RING);
	CU_ASSERT_EQUAL(sst_event_log_drain(log), RING);
	CU_ASSERT_EQUAL(sst_event_log_drain(log), 0);
	/* Room again once drained; destroy writes what is left. */
	struct sst_event_rec last = {.time = 999, .kind = SST_EVENT_CHAN_DOWN, .channel = 2};
	CU_ASSERT_EQUAL(sst_event_log_put(log, &last), 0);
	CU_ASSERT_EQUAL(sst_event_log_written(log), RING);
	sst_event_log_destroy(log);

	f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		struct sst_event_rec r = {
			.time = lines, .kind = SST_EVENT_LOSS, .a = lines, .b = 100};

		if (lines == RING)
			r = last;
		sst_event_format(&r, want, sizeof(want));
		CU_ASSERT_STRING_EQUAL(line, want);
		lines++;
	}
	fclose(f);
	CU_ASSERT_EQUAL(lines, RING + 1);
	unlink(path);
}

static void
test_create_errors(void)
{
	char path[256];

	temp_path(path, sizeof(path));
	CU_ASSERT_PTR_NULL(sst_event_log_create(path, 63));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_PTR_NULL(sst_event_log_create(path, 100));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_PTR_NULL(sst_event_log_create(path, 1u << 21));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_PTR_NULL(sst_event_log_create(NULL, 0));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_PTR_NULL(sst_event_log_create("/nonexistent-dir/events.jsonl", 0));
	CU_ASSERT_EQUAL(rte_errno, ENOENT);
	sst_event_log_destroy(NULL);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_format),
	SST_TEST(test_format_limits),
	SST_TEST(test_ring_to_file),
	SST_TEST(test_create_errors),
	SST_TEST_END,
};

int
main(void)
{
	if (sst_test_eal_init("test_event_log") < 0)
		return 1;
	return sst_test_run("event_log", cases);
}
