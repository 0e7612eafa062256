/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen template mode: the frames it replays (gen_frames.c builds them)
 * and the transmit loop (gen_template.c).
 */
#ifndef GEN_TEMPLATE_H
#define GEN_TEMPLATE_H

#include <stdbool.h>
#include <stdint.h>

#include "gen.h"

enum {
	GEN_FRAME_MAX = 1518,
	GEN_TEMPLATES_MAX = 4096,
	GEN_L2_LEN = 14,
	GEN_L3_LEN = 20,
	GEN_L4_LEN = 8,
	GEN_UDP_OFF = GEN_L2_LEN + GEN_L3_LEN,
	GEN_PAYLOAD_OFF = GEN_UDP_OFF + GEN_L4_LEN,
};

/** What a template's payload is, so that the per-packet pass knows what
 * to vary beyond addresses and ports. */
enum gen_frame_kind {
	GEN_FRAME_RAW = 0, /**< sent as it is (a non-IPv4/UDP frame of a capture) */
	GEN_FRAME_UDP,	   /**< IPv4/UDP: addresses, ports, checksums */
	GEN_FRAME_CHANNEL, /**< ... and a checksum-mode channel packet: channel
			     * number, sequence number, Chk32 trailer */
};

struct gen_frame {
	uint16_t len;
	uint8_t kind;
	uint8_t bytes[GEN_FRAME_MAX];
};

struct gen_frames {
	uint32_t n;
	uint32_t chk_key; /**< the Chk32 key of channel packets */
	struct gen_frame f[GEN_TEMPLATES_MAX];
};

/** Build the frames the configuration asks for (generated kinds or a
 * capture). @return 0, or -1 after printing why. */
int gen_frames_build(const struct gen_conf *c, struct gen_frames *fr);

#endif /* GEN_TEMPLATE_H */
