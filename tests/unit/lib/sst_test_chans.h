/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Channel numbers for the negotiation tests' chan_alloc/chan_free
 * callbacks: the lowest free number 1..255, as the prototype hands them out
 * per remote endpoint.
 */
#ifndef SST_TEST_CHANS_H
#define SST_TEST_CHANS_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

struct sst_test_chans {
	uint8_t used[256];
	unsigned int in_use;
};

/** @return the lowest free number, now taken, or -ENOSPC. */
static inline int
sst_test_chan_take(struct sst_test_chans *t)
{
	for (int c = 1; c < 256; c++)
		if (!t->used[c]) {
			t->used[c] = 1;
			t->in_use++;
			return c;
		}
	return -ENOSPC;
}

/** @return false if @p chan was not taken (a double free). */
static inline bool
sst_test_chan_give(struct sst_test_chans *t, uint8_t chan)
{
	if (!t->used[chan])
		return false;
	t->used[chan] = 0;
	t->in_use--;
	return true;
}

#endif /* SST_TEST_CHANS_H */
