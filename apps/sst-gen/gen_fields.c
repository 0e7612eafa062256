/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen template mode: the per-packet fields, updated incrementally.
 * A template's checksums are summed once with the varied fields zero
 * (gen_frame_prepare()); a packet then adds only what it changes: the
 * source address and port to the IPv4 and UDP one's complement sums
 * (RFC 1071: the sum is order-independent, so a word's contribution is its
 * value), and for channel packets the sequence number to Chk32. Chk32
 * (docs/wire-format.md 3) is a = sum of words, b = sum of the running a,
 * both mod 65537, so word k of n contributes w to a and w * (n - k) to b.
 * This is what lets one core replay at the rate testpmd's txonly sends.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "gen_template.h"
#include "sst_chk32.h"

enum { CHK_MOD = 65537 };

#define SEQ_BYTES 8u

/* The one's complement sum of len bytes as big-endian words, folded
 * (DPDK sums native words; the sum is the same up to a byte swap). */
static uint32_t
sum_words(const void *p, size_t len, uint32_t sum)
{
	return sum + rte_be_to_cpu_16(rte_raw_cksum(p, len));
}

/* Two steps fold any 32-bit sum: the first leaves at most 0x1fffe, the
 * second at most 0xffff (a loop here cost 20 instructions a packet). */
static uint16_t
fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)((sum & 0xffff) + (sum >> 16));
}

/* Chk32 of the sequence number 0 and the template's channel packet, as
 * the untruncated sums (sst_chk32() keeps 16 bits of each). */
static void
chk_sums(struct gen_frame *f, const uint8_t *pkt)
{
	uint32_t a = 0, b = 0, bytes = SEQ_BYTES + f->chan_len + 1;
	uint8_t w[2];

	bytes += bytes % 2;
	f->chk_words = bytes / 2;
	for (uint32_t k = 0; k < f->chk_words; k++) {
		for (uint32_t j = 0; j < 2; j++) {
			uint32_t at = 2 * k + j;

			w[j] = at < SEQ_BYTES		       ? 0
			       : at < SEQ_BYTES + f->chan_len  ? pkt[at - SEQ_BYTES]
			       : at == SEQ_BYTES + f->chan_len ? 0x80
							       : 0;
		}
		a = (a + ((uint32_t)w[0] << 8 | w[1])) % CHK_MOD;
		b = (b + a) % CHK_MOD;
	}
	f->chk_a = a;
	f->chk_b = b;
}

void
gen_frame_vary(const struct gen_frame *f, uint8_t *p, const struct gen_vary *v, uint32_t chk_key)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p + GEN_L2_LEN);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(p + GEN_UDP_OFF);
	uint32_t src = f->src + v->addr;
	uint16_t port = (uint16_t)(f->sport + v->port);
	uint32_t us = f->udp_sum + (src >> 16) + (src & 0xffff) + port;
	uint16_t c;

	ip->src_addr = rte_cpu_to_be_32(src);
	ip->hdr_checksum =
		rte_cpu_to_be_16((uint16_t)~fold(f->ip_sum + (src >> 16) + (src & 0xffff)));
	udp->src_port = rte_cpu_to_be_16(port);
	if (f->kind == GEN_FRAME_CHANNEL) {
		uint8_t *pkt = p + GEN_PAYLOAD_OFF;
		uint64_t seq = v->seq, n = f->chk_words, a, b, w1, w2, w3, h4, sum;
		uint32_t t, t_be, len = f->chan_len;

		/* Header word 0: the low 24 bits of the sequence number. */
		pkt[1] = (uint8_t)(seq >> 16);
		pkt[2] = (uint8_t)(seq >> 8);
		pkt[3] = (uint8_t)seq;
		us += (uint32_t)((seq >> 16) & 0xff) + (uint32_t)(seq & 0xffff);
		/* Chk32: words 0-3 the 64-bit sequence number, 4 and 5 the
		 * header's; word k adds w to a and w * (n - k) to b, so b gains
		 * n times their sum less their sum weighted by k (one multiply
		 * where a loop took six; with the trailer stored whole, callgrind
		 * counts 132 instructions a packet here instead of 203). */
		w1 = (seq >> 32) & 0xffff;
		w2 = (seq >> 16) & 0xffff;
		w3 = seq & 0xffff;
		h4 = (seq >> 16) & 0xff;
		sum = (seq >> 48) + w1 + w2 + w3 + h4 + w3;
		a = f->chk_a + sum;
		b = f->chk_b + n * sum - (w1 + 2 * w2 + 3 * w3 + 4 * h4 + 5 * w3);
		t = (uint32_t)((a % CHK_MOD) & 0xffff) | (uint32_t)((b % CHK_MOD) & 0xffff) << 16;
		t += chk_key;
		t_be = rte_cpu_to_be_32(t);
		memcpy(pkt + len, &t_be, sizeof(t_be));
		/* Its bytes in the UDP sum: high or low halves of words, as
		 * the trailer starts on an even or odd offset (per template). */
		us += f->trailer_odd ? (t >> 24) + ((t >> 8) & 0xffff) + ((t & 0xff) << 8)
				     : (t >> 16) + (t & 0xffff);
	}
	c = (uint16_t)~fold(us);
	udp->dgram_cksum = rte_cpu_to_be_16(c == 0 ? 0xffff : c);
}

/* x mod 65537 for x < 2^32, without a division: 2^16 = -1 (mod 65537),
 * so x is its low half less its high half. */
static inline uint32_t
mod65537(uint32_t x)
{
	uint32_t lo = x & 0xffff, hi = x >> 16;

	return lo - hi + (lo < hi ? (uint32_t)CHK_MOD : 0u);
}

/* What the sequence number's high 48 bits add (gen_frame_vary()'s sums
 * with w3 = 0): a gains s48 + w1 + w2 + h4 and b n times that less their
 * weights (w1 + 2 w2 + 4 h4); w3 then adds 2 to a and 2n - 8 to b. Sums
 * stay below 2^32: n is at most 764 words. */
void
gen_vary_run_hi(const struct gen_frame *f, struct gen_vary_run *r, uint64_t hi)
{
	uint32_t n = f->chk_words, s48 = (uint32_t)(hi >> 32), w1 = (uint32_t)(hi >> 16) & 0xffff;
	uint32_t w2 = (uint32_t)hi & 0xffff, h4 = (uint32_t)hi & 0xff;
	uint32_t sum = s48 + w1 + w2 + h4;

	r->hi = hi;
	r->hi_valid = true;
	r->a_hi = f->chk_a + sum;
	r->b_hi = f->chk_b + n * sum - (w1 + 2 * w2 + 4 * h4);
	r->b_w3 = 2 * n - 8;
	r->us_hi = f->udp_sum + h4;
}

void
gen_frame_vary_burst(const struct gen_frame *f, struct rte_mbuf **m, uint16_t n,
	struct gen_vary_run *r, uint32_t chk_key)
{
	const uint16_t flen = f->len;
	const bool channel = f->kind == GEN_FRAME_CHANNEL, odd = f->trailer_odd;
	const uint32_t src0 = f->src, ip_sum = f->ip_sum, hdr0 = f->hdr0;
	const uint16_t sport = f->sport, trailer = GEN_PAYLOAD_OFF + f->chan_len;
	const uint32_t vary_addrs = r->vary_addrs, vary_ports = r->vary_ports;
	uint32_t addr = r->v.addr, port = r->v.port, us_base = f->udp_sum;
	/* In locals: a byte store to the packet may alias *r, which would
	 * load them again for every packet. */
	uint32_t a_hi = r->a_hi, b_hi = r->b_hi, b_w3 = r->b_w3, us_hi = r->us_hi;
	uint64_t seq = r->v.seq, hi = r->hi_valid ? r->hi : UINT64_MAX;

	for (uint16_t k = 0; k < n; k++) {
		uint8_t *p = rte_pktmbuf_mtod(m[k], uint8_t *);
		uint32_t src = src0 + addr, sp = (uint16_t)(sport + port);
		uint32_t ss = (src >> 16) + (src & 0xffff), us, v32;
		uint16_t v16;

		seq++;
		us = ss + sp;
		if (channel) {
			uint32_t w3 = (uint32_t)seq & 0xffff, t;

			if (seq >> 16 != hi) {
				hi = seq >> 16;
				gen_vary_run_hi(f, r, hi);
				a_hi = r->a_hi;
				b_hi = r->b_hi;
				b_w3 = r->b_w3;
				us_hi = r->us_hi;
			}
			t = ((mod65537(a_hi + 2 * w3) & 0xffff) |
				    (mod65537(b_hi + b_w3 * w3) & 0xffff) << 16) +
			    chk_key;
			us += us_hi + w3 +
			      (odd ? (t >> 24) + ((t >> 8) & 0xffff) + ((t & 0xff) << 8)
				   : (t >> 16) + (t & 0xffff));
			v32 = rte_cpu_to_be_32(hdr0 | ((uint32_t)seq & 0xffffff));
			memcpy(p + GEN_PAYLOAD_OFF, &v32, 4);
			v32 = rte_cpu_to_be_32(t);
			memcpy(p + trailer, &v32, 4);
		} else {
			us += us_base;
		}
		v32 = rte_cpu_to_be_32(src);
		memcpy(p + GEN_L2_LEN + 12, &v32, 4); /* IPv4 source */
		v16 = rte_cpu_to_be_16((uint16_t)~fold(ip_sum + ss));
		memcpy(p + GEN_L2_LEN + 10, &v16, 2); /* IPv4 header checksum */
		v16 = rte_cpu_to_be_16((uint16_t)sp);
		memcpy(p + GEN_UDP_OFF, &v16, 2); /* UDP source port */
		v16 = (uint16_t)~fold(us);
		v16 = rte_cpu_to_be_16(v16 == 0 ? 0xffff : v16);
		memcpy(p + GEN_UDP_OFF + 6, &v16, 2); /* UDP checksum */
		m[k]->data_len = flen;
		m[k]->pkt_len = flen;
		if (++addr == vary_addrs)
			addr = 0;
		if (++port == vary_ports)
			port = 0;
	}
	r->v.addr = addr;
	r->v.port = port;
	r->v.seq = seq;
}

/* gen_frame_vary_burst() against gen_frame_vary(), packet by packet, over
 * a run that crosses a 2^16 boundary of the sequence number and wraps the
 * address and port counters. @return 0 when every byte agrees. */
static int
check_burst(const struct gen_frame *f, uint32_t chk_key)
{
	enum { N = 4 };
	static uint8_t one[N][GEN_FRAME_MAX], many[N][GEN_FRAME_MAX];
	struct gen_vary_run r = {
		.v = {.addr = 1, .port = 0, .seq = 0x0123456789abfffdULL},
		.vary_addrs = 3,
		.vary_ports = 2,
	};
	struct gen_vary v = r.v;
	/* Buffers of their own: data at buf_addr (data_off 0). */
	struct rte_mbuf mb[N], *pkts[N];

	for (int k = 0; k < N; k++) {
		memcpy(one[k], f->bytes, f->len);
		memcpy(many[k], f->bytes, f->len);
		memset(&mb[k], 0, sizeof(mb[k]));
		mb[k].buf_addr = many[k];
		pkts[k] = &mb[k];
		v.seq++;
		gen_frame_vary(f, one[k], &v, chk_key);
		if (++v.addr == r.vary_addrs)
			v.addr = 0;
		if (++v.port == r.vary_ports)
			v.port = 0;
	}
	gen_frame_vary_burst(f, pkts, N, &r, chk_key);
	for (int k = 0; k < N; k++)
		if (memcmp(one[k], many[k], f->len) != 0)
			return -1;
	return 0;
}

void
gen_frame_fill(const struct gen_frame *f, uint8_t *p, uint32_t chk_key)
{
	const struct gen_vary first = {.addr = 0, .port = 0, .seq = 0};

	memcpy(p, f->bytes, f->len);
	if (f->kind != GEN_FRAME_RAW)
		gen_frame_vary(f, p, &first, chk_key);
}

int
gen_frame_burst_pair(const struct gen_frame *f, struct gen_vary_run *r, struct gen_vary_run *rv,
	uint16_t n, uint32_t chk_key, uint8_t (*vec)[GEN_FRAME_MAX])
{
	static uint8_t ref[GEN_BURST_MAX][GEN_FRAME_MAX];
	struct rte_mbuf mr[GEN_BURST_MAX], mv[GEN_BURST_MAX], *pr[GEN_BURST_MAX],
		*pv[GEN_BURST_MAX];

	/* Buffers of their own: data at buf_addr (data_off 0). */
	for (uint16_t k = 0; k < n; k++) {
		memcpy(ref[k], f->bytes, f->len);
		gen_frame_fill(f, vec[k], chk_key);
		memset(&mr[k], 0, sizeof(mr[k]));
		memset(&mv[k], 0, sizeof(mv[k]));
		mr[k].buf_addr = ref[k];
		mv[k].buf_addr = vec[k];
		pr[k] = &mr[k];
		pv[k] = &mv[k];
	}
	gen_frame_vary_burst(f, pr, n, r, chk_key);
	gen_frame_vary_burst_vec(f, pv, n, rv, chk_key);
	for (uint16_t k = 0; k < n; k++)
		if (memcmp(ref[k], vec[k], f->len) != 0)
			return -1;
	return r->v.seq == rv->v.seq && r->v.addr == rv->v.addr && r->v.port == rv->v.port ? 0 : -1;
}

int
gen_frame_check_vec(const struct gen_frame *f, uint32_t chk_key)
{
	/* Runs that cross boundaries of the sequence number inside a burst
	 * (2^16; 2^32; 2^40, where queue 1 starts; 2^48), with one flow and
	 * with counters that wrap inside bursts; bursts of several sizes. */
	static const struct {
		uint64_t seq;
		uint32_t addrs, ports, addr, port;
	} runs[] = {
		{0x0123456789abffe0ULL, 1, 1, 0, 0},
		{0x00000000ffffffd5ULL, 65536, 1, 65530, 0},
		{(1ULL << 40) - 40, GEN_BURST_MAX, 40, 31, 35},
		{0xfffffffffffefff0ULL, 1, 65536, 0, 0},
	};
	static const uint16_t sizes[] = {GEN_BURST_MAX, 1, 7, GEN_BURST_MAX, 9, GEN_BURST_MAX};
	static uint8_t vec[GEN_BURST_MAX][GEN_FRAME_MAX];

	for (size_t i = 0; i < RTE_DIM(runs); i++) {
		/* The last run's ports pass 65,535 (the port wraps to 0) in
		 * its first burst. */
		uint32_t port = i + 1 < RTE_DIM(runs)
					? runs[i].port
					: (uint32_t)(0x10000 - f->sport - 20) & 0xffff;
		struct gen_vary_run r = {
			.v = {.addr = runs[i].addr, .port = port, .seq = runs[i].seq},
			.vary_addrs = runs[i].addrs,
			.vary_ports = runs[i].ports,
		};
		struct gen_vary_run rv = r;

		if (!gen_frame_vary_burst_vec_fits(f, &r))
			return -1;
		for (size_t s = 0; s < RTE_DIM(sizes); s++)
			if (gen_frame_burst_pair(f, &r, &rv, sizes[s], chk_key, vec) < 0)
				return -1;
	}
	return 0;
}

int
gen_frame_prepare(struct gen_frame *f, uint32_t chk_key)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f->bytes + GEN_L2_LEN);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(f->bytes + GEN_UDP_OFF);
	uint8_t *pkt = f->bytes + GEN_PAYLOAD_OFF;
	/* Every word of the sequence number nonzero: queue q numbers from q * 2^40. */
	const struct gen_vary probe = {.addr = 1000, .port = 7, .seq = 0x0123456789abcdefULL};
	uint8_t copy[GEN_FRAME_MAX];
	uint16_t ulen;
	uint32_t s;

	if (f->kind == GEN_FRAME_RAW)
		return 0;
	ulen = rte_be_to_cpu_16(udp->dgram_len);
	if (ulen < GEN_L4_LEN || GEN_UDP_OFF + ulen > f->len) {
		f->kind = GEN_FRAME_RAW; /* a capture's odd frame: replayed as it is */
		return 0;
	}
	f->src = rte_be_to_cpu_32(ip->src_addr);
	f->sport = rte_be_to_cpu_16(udp->src_port);
	ip->src_addr = 0;
	ip->hdr_checksum = 0;
	f->ip_sum = sum_words((const uint8_t *)ip, GEN_L3_LEN, 0);
	udp->src_port = 0;
	udp->dgram_cksum = 0;
	if (f->kind == GEN_FRAME_CHANNEL) {
		f->chan_len = (uint16_t)(ulen - GEN_L4_LEN - SST_CHK32_TRAILER_LEN);
		f->hdr0 = (uint32_t)pkt[0] << 24;
		memset(pkt + 1, 0, 3);
		memset(pkt + f->chan_len, 0, SST_CHK32_TRAILER_LEN);
		chk_sums(f, pkt);
		f->trailer_odd = (GEN_L4_LEN + f->chan_len) % 2 != 0;
	}
	/* Pseudo-header without the source: destination, protocol, length. */
	s = sum_words((const uint8_t *)&ip->dst_addr, 4, 0) + IPPROTO_UDP + ulen;
	f->udp_sum = sum_words((const uint8_t *)udp, ulen, s);
	/* The incremental sums against the full ones, on a packet far from 0. */
	memcpy(copy, f->bytes, f->len);
	gen_frame_vary(f, copy, &probe, chk_key);
	ip = (struct rte_ipv4_hdr *)(copy + GEN_L2_LEN);
	udp = (struct rte_udp_hdr *)(copy + GEN_UDP_OFF);
	if (fold(sum_words((const uint8_t *)ip, GEN_L3_LEN, 0)) != 0xffff)
		return -1;
	s = sum_words((const uint8_t *)&ip->src_addr, 8, 0) + IPPROTO_UDP + ulen;
	if (fold(sum_words((const uint8_t *)udp, ulen, s)) != 0xffff)
		return -1;
	if (f->kind == GEN_FRAME_CHANNEL &&
		sst_chk32_verify(probe.seq, copy + GEN_PAYLOAD_OFF,
			f->chan_len + SST_CHK32_TRAILER_LEN, chk_key) != 0)
		return -1;
	return check_burst(f, chk_key);
}
