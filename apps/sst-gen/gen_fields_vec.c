/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen template mode: one burst's varied fields computed lane by lane,
 * four packets at a time, for a template of one channel packet (the
 * scalar gen_frame_vary_burst() is the reference: both are checked against
 * each other at start, gen_fields.c, and in tests/unit/gen).
 *
 * A burst's sequence numbers are consecutive, so while their high 48 bits
 * stay the same (65,536 packets) each field is the same function of the
 * low word w3: Chk32's a is a_hi + 2 w3 and b is b_hi + (2n - 8) w3 (mod
 * 65,537, gen_fields.c), the UDP sum adds w3 and the trailer's halves.
 * These are computed for the whole burst first, with GCC's vector
 * extensions (SSE on the build's baseline CPU), into arrays on the stack;
 * one pass over the mbufs then stores them: an 8-byte word at byte 38
 * (UDP length, UDP checksum, channel header word 0) and the trailer, plus,
 * when the source address or port varies, an 8-byte word at byte 24 (IPv4
 * checksum and source) and the source port. callgrind counted 119
 * instructions a packet in the scalar loop (its registers spilled to the
 * stack) where this takes about 30 (docs/tools/sst-gen.md, "Figures").
 */
#include <stdbool.h>
#include <string.h>

#include <rte_mbuf.h>

#include "gen_template.h"

enum { CHK_MOD = 65537, LANES = 4, OFF_IP_CKSUM = GEN_L2_LEN + 10, OFF_UDP_LEN = GEN_UDP_OFF + 4 };

typedef uint32_t vu32 __attribute__((vector_size(4 * LANES)));
typedef int32_t vi32 __attribute__((vector_size(4 * LANES)));
typedef uint8_t vu8 __attribute__((vector_size(4 * LANES)));

static const vu32 lane_index = {0, 1, 2, 3};

/* Byte order of each 32-bit lane reversed (pshufb). */
static inline vu32
bswap32_v(vu32 x)
{
	vu8 b = (vu8)x;

	return (vu32)__builtin_shufflevector(
		b, b, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
}

/* Each lane (below 2^16) byte-swapped as a 16-bit word. */
static inline vu32
bswap16_v(vu32 x)
{
	return ((x >> 8) | (x << 8)) & 0xffff;
}

/* The low 16 bits of x mod 65537, lane by lane (x < 2^32): x is its low
 * half less its high half (2^16 = -1), plus 65,537 when that is negative,
 * which in the low 16 bits is plus 1: the comparison's -1 subtracted.
 * Both halves are below 2^16, so the signed comparison is the unsigned
 * one. The high 16 bits of the result are garbage. */
static inline vu32
mod65537_low16_v(vu32 x)
{
	vu32 lo = x & 0xffff, hi = x >> 16;

	return lo - hi - (vu32)((vi32)lo < (vi32)hi);
}

/* One's complement sum folded to 16 bits, complemented. */
static inline vu32
cksum_v(vu32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

/*
 * The checksums are summed in the byte-swapped domain: the one's
 * complement sum of words read little-endian is the byte swap of the sum
 * of the same words read big-endian (RFC 1071, byte order independence),
 * so the sum of what a packet stores (read as it lies) folds to the
 * checksum as it is stored, and no lane swaps a checksum. What the scalar
 * code keeps in the big-endian domain is brought over once per run.
 */
static inline uint32_t
swapped_sum(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return ((sum >> 8) | (sum << 8)) & 0xffff;
}

/* Two lanes' 32-bit words as one 64-bit word each: lo[i] | hi[i] << 32,
 * stored to @p out (2 * LANES words). */
static inline void
store_pairs(uint32_t *out, vu32 lo, vu32 hi)
{
	vu32 a = __builtin_shufflevector(lo, hi, 0, 4, 1, 5);
	vu32 b = __builtin_shufflevector(lo, hi, 2, 6, 3, 7);

	memcpy(out, &a, sizeof(a));
	memcpy(out + LANES, &b, sizeof(b));
}

/* What a burst stores, by packet: w24 and w38 as pairs of 32-bit words
 * (the 8 bytes at 24 and at 38), the trailer, the source port. Room for
 * one vector past the burst: the last chunk computes whole vectors. */
struct burst_words {
	uint32_t w24[2 * (GEN_BURST_MAX + LANES)];
	uint32_t w38[2 * (GEN_BURST_MAX + LANES)];
	uint32_t trailer[GEN_BURST_MAX + LANES];
	uint32_t port[GEN_BURST_MAX + LANES];
	uint32_t us[GEN_BURST_MAX + LANES]; /**< each packet's address and port in the UDP sum */
};

/* The address and port words of packets 0 to n - 1 (counters from @p r's,
 * which wrap at most once in a burst: each range is 1 or at least
 * GEN_BURST_MAX), and what they add to the UDP sum (swapped domain). */
static void
flow_words(
	const struct gen_frame *f, const struct gen_vary_run *r, uint16_t n, struct burst_words *w)
{
	const uint32_t vary_addrs = r->vary_addrs, vary_ports = r->vary_ports;
	const uint32_t ip_sum = swapped_sum(f->ip_sum);
	/* The destination's first two bytes, as they lie (bytes 30 and 31). */
	const uint32_t dst01 = (uint32_t)f->bytes[GEN_L2_LEN + 16] | f->bytes[GEN_L2_LEN + 17] << 8;

	for (uint16_t k = 0; k < n; k += LANES) {
		vu32 addr = r->v.addr + lane_index + k, port = r->v.port + lane_index + k;
		vu32 src_be, ss, sp_be;

		addr = vary_addrs == 1 ? (vu32){0}
				       : addr - ((vu32)(addr >= vary_addrs) & vary_addrs);
		port = vary_ports == 1 ? (vu32){0}
				       : port - ((vu32)(port >= vary_ports) & vary_ports);
		src_be = bswap32_v(f->src + addr);
		ss = (src_be & 0xffff) + (src_be >> 16);
		sp_be = bswap16_v((f->sport + port) & 0xffff); /* the port wraps at 2^16 */
		store_pairs(&w->w24[2 * k], cksum_v(ip_sum + ss) | src_be << 16,
			src_be >> 16 | dst01 << 16);
		ss += sp_be;
		memcpy(&w->port[k], &sp_be, sizeof(sp_be));
		memcpy(&w->us[k], &ss, sizeof(ss));
	}
}

/* Packets k0 to k0 + len - 1 of the burst, whose sequence numbers' high
 * 48 bits are r->hi (r's sums up to date) and low words w3_0 onwards:
 * the channel header word, the trailer and the UDP checksum. With one
 * flow the address and port add a constant to the UDP sum, else
 * flow_words()'s per packet. */
static inline void
chan_words(const struct gen_frame *f, const struct gen_vary_run *r, uint32_t chk_key, uint16_t k0,
	uint16_t len, uint32_t w3_0, struct burst_words *w, bool odd, bool one_flow)
{
	const uint32_t hdr = f->hdr0 | ((uint32_t)r->hi & 0xff) << 16;
	const uint32_t ulen_be = (uint32_t)f->bytes[OFF_UDP_LEN] | f->bytes[OFF_UDP_LEN + 1] << 8;
	const uint32_t flow0 = (f->src >> 16) + (f->src & 0xffff) + f->sport;
	const uint32_t us_run = swapped_sum(r->us_hi + (one_flow ? flow0 : 0));
	const uint32_t b_inc = LANES * r->b_w3;
	vu32 w3 = w3_0 + lane_index;
	vu32 a = r->a_hi + 2 * w3, b = r->b_hi + r->b_w3 * w3;

	for (uint16_t j = 0; j < len; j += LANES) {
		vu32 hdr_be = bswap32_v(hdr | w3), t, us, c;

		/* Chk32's a in the low half, b in the high (the shift drops
		 * b's garbage), plus the key. */
		t = ((mod65537_low16_v(a) & 0xffff) | mod65537_low16_v(b) << 16) + chk_key;
		t = bswap32_v(t);
		/* The trailer's bytes in the UDP sum: whole words, or split
		 * across three as it starts on an even or odd offset; the
		 * header's low word (w3) as it lies. */
		us = us_run + (hdr_be >> 16) +
		     (odd ? ((t & 0xff) << 8) + ((t >> 8) & 0xffff) + (t >> 24)
			  : (t & 0xffff) + (t >> 16));
		if (!one_flow) {
			vu32 flow;

			memcpy(&flow, &w->us[k0 + j], sizeof(flow));
			us += flow;
		}
		c = cksum_v(us);
		c += (vu32)(c == 0) & 0xffff; /* UDP: a zero checksum is sent as 0xffff */
		store_pairs(&w->w38[2 * (k0 + j)], ulen_be | c << 16, hdr_be);
		memcpy(&w->trailer[k0 + j], &t, sizeof(t));
		w3 += LANES;
		a += 2 * LANES;
		b += b_inc;
	}
}

/* A counter advanced by at most GEN_BURST_MAX, back into [0, range):
 * ranges are 1 or at least GEN_BURST_MAX (no division per burst). */
static inline uint32_t
wrap_once(uint32_t x, uint32_t range)
{
	return range == 1 ? 0 : x >= range ? x - range : x;
}

bool
gen_frame_vary_burst_vec_fits(const struct gen_frame *f, const struct gen_vary_run *r)
{
	return f->kind == GEN_FRAME_CHANNEL &&
	       (r->vary_addrs == 1 || r->vary_addrs >= GEN_BURST_MAX) &&
	       (r->vary_ports == 1 || r->vary_ports >= GEN_BURST_MAX);
}

void
gen_frame_vary_burst_vec(const struct gen_frame *f, struct rte_mbuf **m, uint16_t n,
	struct gen_vary_run *r, uint32_t chk_key)
{
	struct burst_words w;
	const uint16_t trailer = GEN_PAYLOAD_OFF + f->chan_len;
	const bool one_flow = r->vary_addrs == 1 && r->vary_ports == 1;
	uint64_t seq = r->v.seq;

	if (!one_flow)
		flow_words(f, r, n, &w);
	/* At most two runs of one high part: n <= GEN_BURST_MAX < 2^16. */
	for (uint16_t k = 0; k < n;) {
		uint32_t w3_0 = (uint32_t)(seq + 1) & 0xffff;
		uint16_t len = (uint16_t)RTE_MIN((uint32_t)(n - k), 0x10000u - w3_0);

		if (!r->hi_valid || r->hi != (seq + 1) >> 16)
			gen_vary_run_hi(f, r, (seq + 1) >> 16);
		/* Each case its own copy, its conditions constant. */
		if (one_flow && f->trailer_odd)
			chan_words(f, r, chk_key, k, len, w3_0, &w, true, true);
		else if (one_flow)
			chan_words(f, r, chk_key, k, len, w3_0, &w, false, true);
		else if (f->trailer_odd)
			chan_words(f, r, chk_key, k, len, w3_0, &w, true, false);
		else
			chan_words(f, r, chk_key, k, len, w3_0, &w, false, false);
		k += len;
		seq += len;
	}
	/* The other bytes are the template's, in the buffer since the pool
	 * was filled (gen_frame_fill()): with one flow, the address, port and
	 * IPv4 checksum of packet 0 too. */
	for (uint16_t k = 0; k < n; k++) {
		uint8_t *p = rte_pktmbuf_mtod(m[k], uint8_t *);

		memcpy(p + OFF_UDP_LEN, &w.w38[2 * k], 8);
		memcpy(p + trailer, &w.trailer[k], 4);
		if (!one_flow) {
			uint16_t port = (uint16_t)w.port[k];

			memcpy(p + OFF_IP_CKSUM, &w.w24[2 * k], 8);
			memcpy(p + GEN_UDP_OFF, &port, 2);
		}
	}
	r->v.seq = seq;
	r->v.addr = wrap_once(r->v.addr + n, r->vary_addrs);
	r->v.port = wrap_once(r->v.port + n, r->vary_ports);
}
