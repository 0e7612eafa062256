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

struct rte_mbuf;

enum {
	GEN_FRAME_MAX = 1518,
	GEN_TEMPLATES_MAX = 4096,
	GEN_L2_LEN = 14,
	GEN_L3_LEN = 20,
	GEN_L4_LEN = 8,
	GEN_UDP_OFF = GEN_L2_LEN + GEN_L3_LEN,
	GEN_PAYLOAD_OFF = GEN_UDP_OFF + GEN_L4_LEN,
	GEN_BURST_MAX = 32, /**< mbufs a transmit burst allocates and varies */
};

/** What a template's payload is, so that the per-packet pass knows what
 * to vary beyond addresses and ports. */
enum gen_frame_kind {
	GEN_FRAME_RAW = 0, /**< sent as it is (a non-IPv4/UDP frame of a capture) */
	GEN_FRAME_UDP,	   /**< IPv4/UDP: addresses, ports, checksums */
	GEN_FRAME_CHANNEL, /**< ... and a checksum-mode channel packet: channel
			     * number, sequence number, Chk32 trailer */
};

/*
 * A template and what makes its packets cheap to vary (gen_fields.c): the
 * sums of everything that stays, so that a packet's checksums cost a few
 * additions for the fields that change instead of a pass over its bytes.
 */
struct gen_frame {
	uint16_t len;
	uint8_t kind;
	uint16_t chan_len;     /**< channel packets: bytes before the trailer */
	uint32_t src;	       /**< IPv4 source of packet 0 (host order) */
	uint16_t sport;	       /**< UDP source port of packet 0 */
	uint32_t ip_sum;       /**< IPv4 header's 16-bit word sum, source and checksum zero */
	uint32_t udp_sum;      /**< the UDP sum (pseudo-header too), varied fields zero */
	uint32_t chk_a, chk_b; /**< Chk32 sums (mod 65537), sequence fields zero */
	uint32_t chk_words;    /**< 16-bit words Chk32 runs over */
	uint32_t hdr0;	       /**< channel packets: header byte 0 (the channel) << 24 */
	bool trailer_odd;      /**< the Chk32 trailer starts on an odd UDP offset */
	uint8_t bytes[GEN_FRAME_MAX];
};

struct gen_frames {
	uint32_t n;
	uint32_t chk_key; /**< the Chk32 key of channel packets */
	struct gen_frame f[GEN_TEMPLATES_MAX];
};

/** Prepare frame @p f for gen_frame_vary() (clears the fields that vary)
 * and check, on a scratch copy, that the incremental sums give what the
 * full computations give. @return 0 or -1 (a bug: the sums disagree). */
int gen_frame_prepare(struct gen_frame *f, uint32_t chk_key);

/** What packet i of a queue varies: offsets from the template's source
 * address and port (i mod --vary-addrs, i mod --vary-ports, kept by the
 * caller as counters: a division per packet costs more than the rest) and
 * the channel sequence number. */
struct gen_vary {
	uint32_t addr, port;
	uint64_t seq;
};

/** Vary the copy of template @p f at @p p as @p v says (channel packets:
 * the Chk32 trailer under @p chk_key too); IPv4 and UDP checksums to match. */
void gen_frame_vary(
	const struct gen_frame *f, uint8_t *p, const struct gen_vary *v, uint32_t chk_key);

/** A queue's run of packets of one template (gen_frame_vary_burst()): the
 * varied fields' counters, and what the sequence number's high 48 bits
 * add to the sums, kept while they stay the same (65,536 packets). */
struct gen_vary_run {
	struct gen_vary v; /**< the last packet's (the next one's seq is v.seq + 1) */
	uint32_t vary_addrs, vary_ports;
	uint64_t hi;		    /**< seq >> 16 that the sums below are for */
	uint32_t a_hi, b_hi, us_hi; /**< Chk32's a and b, the UDP sum, with w3 = 0 */
	uint32_t b_w3;		    /**< what each unit of w3 adds to b: 2n - 8 */
	bool hi_valid;
};

/** Vary @p n copies of template @p f (not GEN_FRAME_RAW) in mbufs @p m
 * (their lengths set too) as
 * n calls of gen_frame_vary() would, each after r->v.seq++ and followed by
 * the address and port counters' steps; the Chk32 sums' part that only
 * the sequence number's high 48 bits change is computed once per 65,536
 * packets. */
void gen_frame_vary_burst(const struct gen_frame *f, struct rte_mbuf **m, uint16_t n,
	struct gen_vary_run *r, uint32_t chk_key);

/** Copy template @p f to @p p as packet 0 of a queue (address and port
 * offsets 0): what a prefilled pool's buffers hold, so that with one flow
 * gen_frame_vary_burst_vec() writes neither address nor port. */
void gen_frame_fill(const struct gen_frame *f, uint8_t *p, uint32_t chk_key);

/** Bring @p r's sums for the sequence number's high 48 bits to @p hi
 * (seq >> 16) for template @p f. */
void gen_vary_run_hi(const struct gen_frame *f, struct gen_vary_run *r, uint64_t hi);

/** Whether gen_frame_vary_burst_vec() takes template @p f with @p r's
 * ranges: a channel packet, each of --vary-addrs and --vary-ports 1 or at
 * least GEN_BURST_MAX (a counter wraps at most once in a burst). */
bool gen_frame_vary_burst_vec_fits(const struct gen_frame *f, const struct gen_vary_run *r);

/** gen_frame_vary_burst() (@p n <= GEN_BURST_MAX), the fields computed
 * four packets at a time (gen_fields_vec.c), for mbufs that already hold
 * the template as gen_frame_fill() writes it and its length (a prefilled
 * pool): it writes the fields that change and no length. Only where
 * gen_frame_vary_burst_vec_fits(). */
void gen_frame_vary_burst_vec(const struct gen_frame *f, struct rte_mbuf **m, uint16_t n,
	struct gen_vary_run *r, uint32_t chk_key);

/** Packets 0 to @p n - 1 (@p n <= GEN_BURST_MAX) of a burst made both
 * ways: by gen_frame_vary_burst() with run @p r and by
 * gen_frame_vary_burst_vec() with run @p rv, the second's left in @p vec.
 * @return 0 when they agree byte for byte and the runs end alike, -1
 * otherwise. Not thread-safe (a static scratch burst). */
int gen_frame_burst_pair(const struct gen_frame *f, struct gen_vary_run *r, struct gen_vary_run *rv,
	uint16_t n, uint32_t chk_key, uint8_t (*vec)[GEN_FRAME_MAX]);

/** gen_frame_vary_burst_vec() against gen_frame_vary_burst(), byte for
 * byte, over bursts that cross 2^16, 2^32, 2^40 and 2^48 boundaries of
 * the sequence number and wrap the address and port counters, for channel
 * template @p f. @return 0 when they agree, -1 otherwise (a bug). */
int gen_frame_check_vec(const struct gen_frame *f, uint32_t chk_key);

/** Build the frames the configuration asks for (generated kinds or a
 * capture). @return 0, or -1 after printing why. */
int gen_frames_build(const struct gen_conf *c, struct gen_frames *fr);

#endif /* GEN_TEMPLATE_H */
