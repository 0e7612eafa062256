/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Unique Stream IDs (paper 4.3.4, docs/wire-format.md section 4): the name
 * a stream keeps across channels, which the stream layer's Attach packets
 * and the negotiation result (the channel's root stream) both carry.
 */
#ifndef SST_USID_H
#define SST_USID_H

#include <stdint.h>

enum {
	SST_HCID_MAX = 32, /**< longest half-channel ID we accept */
};

/** A Unique Stream ID: stream counter and the half-channel ID it was born on. */
struct sst_usid {
	uint64_t counter;	    /**< streams started on the half-channel before this one */
	uint8_t hcid_len;	    /**< bytes of hcid in use, 1..SST_HCID_MAX */
	uint8_t hcid[SST_HCID_MAX]; /**< the half-channel ID */
};

#endif /* SST_USID_H */
