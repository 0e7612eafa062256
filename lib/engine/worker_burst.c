/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Grouping a burst by key (worker_burst.h): a counting sort over the
 * distinct keys. A burst holds few of them (bulk traffic: one channel, one
 * owner), so the distinct keys are found by a linear search that starts
 * with the previous packet's key; n stays at most SST_MAX_BURST.
 */
#include "worker_burst.h"

uint16_t
worker_burst_group(const uintptr_t *keys, uint16_t n, uint16_t *order, uint16_t *starts)
{
	uintptr_t distinct[SST_MAX_BURST];
	uint8_t group[SST_MAX_BURST];
	uint16_t fill[SST_MAX_BURST];
	uint16_t ngroups = 0;

	for (uint16_t i = 0; i < n && i < SST_MAX_BURST; i++) {
		uint16_t g = i > 0 && keys[i] == keys[i - 1] ? group[i - 1] : 0;

		if (i == 0 || keys[i] != keys[i - 1]) {
			while (g < ngroups && distinct[g] != keys[i])
				g++;
			if (g == ngroups) {
				distinct[ngroups] = keys[i];
				fill[ngroups] = 0;
				ngroups++;
			}
		}
		group[i] = (uint8_t)g;
		fill[g]++;
	}
	/* fill[g]: the group's size, then where its next packet goes. */
	starts[0] = 0;
	for (uint16_t g = 0; g < ngroups; g++) {
		starts[g + 1] = (uint16_t)(starts[g] + fill[g]);
		fill[g] = starts[g];
	}
	for (uint16_t i = 0; i < n && i < SST_MAX_BURST; i++)
		order[fill[group[i]]++] = i;
	return ngroups;
}
