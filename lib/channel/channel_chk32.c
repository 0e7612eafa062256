/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Chk32, the prototype's keyed 32-bit checksum (paper 4.2.3; the 2007 spec's
 * Figure 20). The definition reduces both sums modulo 65537 after every
 * 16-bit word. Reduction commutes with addition, so we keep exact 64-bit sums
 * and reduce rarely: a is at most 65535 per word and b grows with the square
 * of the word count, so a block of 2^20 words (2 MiB, far beyond any packet)
 * cannot overflow 64 bits. This removes two divisions per word from the
 * per-packet path.
 *
 * The bulk of the words goes through a kernel (channel_chk32.h): the
 * scalar one here, the reference, or a SIMD one chosen once at start-up
 * from the CPU's flags (channel_chk32_avx2.c, channel_chk32_avx512.c). The sequence number, the
 * words straddling segments and the terminator stay here, shared by all.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cpuflags.h>
#include <rte_mbuf.h>

#include "channel_chk32.h"
#include "channel_wire.h"
#include "sst_error.h"

#define CHK32_MOD 65537u
#define CHK32_BLOCK_WORDS (UINT64_C(1) << 20)
/* A SIMD kernel takes any run of a whole chunk: the compiler's vectorised
 * form of the scalar block costs more than the kernel's horizontal sums
 * (perf/chk32_bench, session 14: 64 bytes 40.6 -> 22.8 cycles flat, 48.8
 * -> 43.1 as a 41-byte header and its payload; the 1200-byte packet's
 * header segment too). */
#define CHK32_SIMD_MIN_WORDS 16

struct chk32_state {
	uint64_t a;
	uint64_t b;
	uint64_t words; /* since the last reduction */
};

static inline void
chk32_count(struct chk32_state *s, uint64_t n)
{
	s->words += n;
	if (s->words == CHK32_BLOCK_WORDS) {
		s->a %= CHK32_MOD;
		s->b %= CHK32_MOD;
		s->words = 0;
	}
}

static inline void
chk32_word(struct chk32_state *s, uint32_t w)
{
	s->a += w;
	s->b += s->a;
	chk32_count(s, 1);
}

/*
 * The scalar kernel, 16 words at a time: after words w0..w15, a has grown
 * by their sum and b by 16a + 16w0 + 15w1 + ... + 1w15. Both partial sums
 * fit 32 bits (at most 136 * 65535), which lets the compiler vectorise the
 * block with plain SSE2 multiply-adds and breaks the a-to-b dependency
 * chain the word-at-a-time form serialises on: about 3.5 times faster
 * than that form on 1200-byte packets. The reference the SIMD kernels are
 * tested against.
 */
static __rte_always_inline size_t
chk32_kernel_scalar(uint64_t *ap, uint64_t *bp, const uint8_t *p, size_t nwords)
{
	uint64_t a = *ap, b = *bp;
	size_t i = 0;

	for (; i + 16 <= nwords; i += 16, p += 32) {
		uint32_t sa = 0, sb = 0;

		for (unsigned int k = 0; k < 16; k++) {
			uint32_t w = (uint32_t)p[2 * k] << 8 | p[2 * k + 1];

			sa += w;
			sb += (16 - k) * w;
		}
		b += 16 * a + sb;
		a += sa;
	}
	*ap = a;
	*bp = b;
	return i;
}

/*
 * Add nwords big-endian words starting at p: runs of up to a whole block
 * through the kernel without the reduction test, its remainder (under 16
 * words) one word at a time. The sums are the exact ones of the
 * definition, so the overflow bound above holds for every kernel.
 */
static inline void
chk32_words(struct chk32_state *s, const uint8_t *p, size_t nwords, chk32_kernel_fn kernel)
{
	while (nwords > 0) {
		size_t run = RTE_MIN(nwords, (size_t)(CHK32_BLOCK_WORDS - s->words));
		size_t i = 0;
		uint64_t a, b;

		/* The kernel works on the state in memory, so that the
		 * address of the locals below is never taken through an
		 * indirect call and they stay in registers for the rest. */
		if (run >= CHK32_SIMD_MIN_WORDS)
			i = kernel(&s->a, &s->b, p, run);
		a = s->a;
		b = s->b;
		i += chk32_kernel_scalar(&a, &b, p + 2 * i, run - i);
		p += 2 * i;
		/* The remainder (under 16 words: all of a small packet's
		 * header segment, the end of every segment), four words from
		 * one load: b grows by 4a and the four running totals of the
		 * words, in half the instructions of a word at a time. */
		for (; i + 4 <= run; i += 4, p += 8) {
			uint64_t x, r1, r2, r3, r4;

			memcpy(&x, p, sizeof(x));
			x = rte_be_to_cpu_64(x);
			r1 = x >> 48;
			r2 = r1 + (x >> 32 & 0xffff);
			r3 = r2 + (x >> 16 & 0xffff);
			r4 = r3 + (x & 0xffff);
			b += 4 * a + r1 + r2 + r3 + r4;
			a += r4;
		}
		for (; i < run; i++, p += 2) {
			a += (uint32_t)p[0] << 8 | p[1];
			b += a;
		}
		s->a = a;
		s->b = b;
		chk32_count(s, run);
		nwords -= run;
	}
}

static inline void
chk32_start(struct chk32_state *s, uint64_t seq)
{
	uint64_t w0 = seq >> 48, w1 = (seq >> 32) & 0xffff, w2 = (seq >> 16) & 0xffff;
	uint64_t w3 = seq & 0xffff;

	/* The definition's first four words, in closed form. */
	s->a = w0 + w1 + w2 + w3;
	s->b = 4 * w0 + 3 * w1 + 2 * w2 + w3;
	s->words = 4;
}

/* Add the 0x80 terminator, which either completes an odd last byte (odd >= 0)
 * or forms a word of its own (0x80 0x00), and fold the sums. */
static inline uint32_t
chk32_finish(struct chk32_state *s, int odd)
{
	if (odd >= 0)
		chk32_word(s, (uint32_t)odd << 8 | 0x80);
	else
		chk32_word(s, 0x8000);
	s->a %= CHK32_MOD;
	s->b %= CHK32_MOD;
	return (uint32_t)(s->a & 0xffff) | (uint32_t)(s->b & 0xffff) << 16;
}

/* The implementations, by enum sst_chk32_impl, narrowest first. */
static const struct {
	const char *name;
	chk32_kernel_fn kernel;
	int cpu_flag;		/* enum rte_cpu_flag_t the kernel needs, or -1 */
	unsigned int simd_bits; /* its vector width, as rte_vect counts it */
} chk32_impls[SST_CHK32_IMPL_COUNT] = {
	[SST_CHK32_IMPL_SCALAR] = {"scalar", chk32_kernel_scalar, -1, 0},
	[SST_CHK32_IMPL_AVX2] = {"avx2", chk32_kernel_avx2, RTE_CPUFLAG_AVX2, 256},
	/* AVX-512BW implies AVX-512F on every CPU that has it. */
	[SST_CHK32_IMPL_AVX512] = {"avx512", chk32_kernel_avx512, RTE_CPUFLAG_AVX512BW, 512},
};

/* What the EAL allows before it has been asked (DPDK's default maximum
 * SIMD width on x86: 512-bit code only on request, because some CPUs
 * lower their clock while they run it). */
#define CHK32_DEFAULT_SIMD_BITS 256

/* Chosen before main() (the widest within the EAL's default SIMD width),
 * and again by sst_chk32_impl_select() before any thread checksums (the
 * engine's creation does it with the EAL's width): the per-packet path
 * reads it without synchronisation. */
static enum sst_chk32_impl chk32_active = SST_CHK32_IMPL_SCALAR;
static chk32_kernel_fn chk32_kernel = chk32_kernel_scalar;

bool
sst_chk32_impl_supported(enum sst_chk32_impl impl)
{
	if ((unsigned int)impl >= SST_CHK32_IMPL_COUNT)
		return false;
	return chk32_impls[impl].cpu_flag < 0 ||
	       rte_cpu_get_flag_enabled((enum rte_cpu_flag_t)chk32_impls[impl].cpu_flag) > 0;
}

const char *
sst_chk32_impl_name(enum sst_chk32_impl impl)
{
	return (unsigned int)impl < SST_CHK32_IMPL_COUNT ? chk32_impls[impl].name : NULL;
}

enum sst_chk32_impl
sst_chk32_impl_active(void)
{
	return chk32_active;
}

enum sst_chk32_impl
sst_chk32_impl_widest(unsigned int max_simd_bits)
{
	for (int i = SST_CHK32_IMPL_COUNT - 1; i > 0; i--)
		if (chk32_impls[i].simd_bits <= max_simd_bits &&
			sst_chk32_impl_supported((enum sst_chk32_impl)i))
			return (enum sst_chk32_impl)i;
	return SST_CHK32_IMPL_SCALAR;
}

int
sst_chk32_impl_select(enum sst_chk32_impl impl)
{
	if ((unsigned int)impl >= SST_CHK32_IMPL_COUNT)
		return -EINVAL;
	if (!sst_chk32_impl_supported(impl))
		return -ENOTSUP;
	chk32_active = impl;
	chk32_kernel = chk32_impls[impl].kernel;
	return 0;
}

RTE_INIT(chk32_select)
{
	sst_chk32_impl_select(sst_chk32_impl_widest(CHK32_DEFAULT_SIMD_BITS));
}

static __rte_always_inline uint32_t
chk32_buf(chk32_kernel_fn kernel, uint64_t seq, const uint8_t *p, size_t len)
{
	struct chk32_state s;

	chk32_start(&s, seq);
	chk32_words(&s, p, len / 2, kernel);
	return chk32_finish(&s, len & 1 ? p[len - 1] : -1);
}

/* The chain form carries at most one byte between segments: the first half
 * of a word whose second half starts the next segment. */
static __rte_always_inline uint32_t
chk32_chain(chk32_kernel_fn kernel, uint64_t seq, const struct rte_mbuf *m, uint32_t len)
{
	struct chk32_state s;
	int odd = -1;

	chk32_start(&s, seq);
	for (; m != NULL && len > 0; m = m->next) {
		const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
		uint32_t n = RTE_MIN(len, (uint32_t)m->data_len);

		len -= n;
		if (n == 0)
			continue;
		if (odd >= 0) {
			chk32_word(&s, (uint32_t)odd << 8 | p[0]);
			p++;
			n--;
			odd = -1;
		}
		chk32_words(&s, p, n / 2, kernel);
		if (n & 1)
			odd = p[n - 1];
	}
	return chk32_finish(&s, odd);
}

uint32_t
sst_chk32(uint64_t seq, const void *pkt, size_t len)
{
	return chk32_buf(chk32_kernel, seq, pkt, len);
}

uint32_t
sst_chk32_mbuf(uint64_t seq, const struct rte_mbuf *m, uint32_t len)
{
	return chk32_chain(chk32_kernel, seq, m, len);
}

uint32_t
sst_chk32_with(enum sst_chk32_impl impl, uint64_t seq, const void *pkt, size_t len)
{
	return chk32_buf(chk32_impls[impl].kernel, seq, pkt, len);
}

uint32_t
sst_chk32_mbuf_with(enum sst_chk32_impl impl, uint64_t seq, const struct rte_mbuf *m, uint32_t len)
{
	return chk32_chain(chk32_impls[impl].kernel, seq, m, len);
}

int
sst_chk32_seal(uint64_t seq, void *buf, size_t len, size_t cap, uint32_t key)
{
	uint8_t *p = buf;
	uint32_t t;

	if (len > cap || cap - len < SST_CHK32_TRAILER_LEN)
		return -ENOSPC;
	t = sst_chk32_trailer(seq, buf, len, key);
	p[len] = t >> 24;
	p[len + 1] = t >> 16;
	p[len + 2] = t >> 8;
	p[len + 3] = t;
	return (int)(len + SST_CHK32_TRAILER_LEN);
}

int
sst_chk32_verify(uint64_t seq, const void *pkt, size_t len, uint32_t key)
{
	const uint8_t *p = pkt;
	size_t body;
	uint32_t got;

	if (len < SST_CHK32_TRAILER_LEN)
		return -SST_ETRUNC;
	body = len - SST_CHK32_TRAILER_LEN;
	got = (uint32_t)p[body] << 24 | (uint32_t)p[body + 1] << 16 | (uint32_t)p[body + 2] << 8 |
	      p[body + 3];
	return got == sst_chk32_trailer(seq, pkt, body, key) ? 0 : -SST_EBADAUTH;
}
