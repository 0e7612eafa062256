/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of the moved-stream marks of a receive SID space
 * (lib/stream/stream_ids.c, sst_sid_mark_moved()): a replacement moves
 * every stream of a channel at once, and each SID it leaves quiet must keep
 * its mark (the ring of the last 16 moved SIDs this replaced forgot the
 * 17th); the mark ends with the quiet period, so that a later lap's SID is
 * never taken for a moved one. Apart from test_stream_ids.c, which is at
 * its size limit.
 */
#include <errno.h>
#include <stdint.h>

#include "sst_test.h"
#include "stream_ids.h"

enum { N = 40 };

static _Alignas(64) uint8_t mem[1 << 16];
static int obj, root;

static void
test_moved_marks(void)
{
	struct sst_sid_space *sa = (struct sst_sid_space *)mem;
	uint64_t c;

	CU_ASSERT_FATAL(sst_sid_space_size(N) <= sizeof(mem));
	CU_ASSERT_EQUAL_FATAL(sst_sid_space_init(sa, N, SST_SID_RX, &root), 0);
	for (uint16_t sid = 1; sid <= N; sid++)
		CU_ASSERT_EQUAL(sst_sid_attach(sa, sid, &obj, &c), 0);
	CU_ASSERT_EQUAL(sst_sid_mark_moved(sa, 1), -ENOENT); /* attached */
	CU_ASSERT_EQUAL(sst_sid_mark_moved(sa, N + 1), -ENOENT);
	CU_ASSERT_EQUAL(sst_sid_mark_moved(sa, 0), -ENOENT);
	for (uint16_t sid = 1; sid <= N; sid++) {
		CU_ASSERT_EQUAL(sst_sid_release(sa, sid, 10, 10), 0);
		if (sid % 4 != 0)
			CU_ASSERT_EQUAL(sst_sid_mark_moved(sa, sid), 0);
	}
	for (uint16_t sid = 1; sid <= N; sid++) {
		CU_ASSERT(sst_sid_is_quiet(sa, sid));
		CU_ASSERT_EQUAL(sst_sid_quiet_moved(sa, sid), sid % 4 != 0);
		CU_ASSERT(!sst_sid_quiet_ended(sa, sid));
	}
	CU_ASSERT(!sst_sid_quiet_moved(sa, 0) && !sst_sid_quiet_moved(sa, N + 1));
	CU_ASSERT_EQUAL(sst_sid_tick(sa, 10, 10), N);
	for (uint16_t sid = 1; sid <= N; sid++)
		CU_ASSERT(!sst_sid_quiet_moved(sa, sid) && sst_sid_used_before(sa, sid));
	CU_ASSERT_EQUAL(sst_sid_mark_moved(sa, 1), -ENOENT); /* past its quiet period */
	/* An entry reused for another SID starts unmarked. */
	CU_ASSERT_EQUAL(sst_sid_attach(sa, N + 1, &obj, &c), 0);
	CU_ASSERT_EQUAL(sst_sid_release_ended(sa, N + 1, 20, 20), 0);
	CU_ASSERT(sst_sid_quiet_ended(sa, N + 1) && !sst_sid_quiet_moved(sa, N + 1));
	sst_sid_space_fini(sa);
}

static const struct sst_test_case cases[] = {
	SST_TEST(test_moved_marks),
	SST_TEST_END,
};

SST_TEST_MAIN("stream_ids_moved", cases)
