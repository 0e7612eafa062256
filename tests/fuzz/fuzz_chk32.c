/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for Chk32's implementations (lib/channel/channel_chk32.c
 * and its SIMD kernels): on fuzzer-chosen data, cut into an mbuf chain at
 * fuzzer-chosen points and alignments, every implementation the CPU runs
 * gives the scalar reference's value, over the flat bytes and over the
 * chain, for the whole packet and for a prefix; and the scalar one equals
 * the definition computed word by word. The same chains go through every
 * implementation of lib/net's Internet checksum (net_cksum.c and its SIMD
 * kernels), whole and from the prefix's end on (an odd offset half the
 * time), against rte_raw_cksum() of the flat bytes.
 *
 * Input: seq (8 bytes, big-endian); c = number of cuts (byte % 8); c cuts
 * (16 bits each, modulo the length + 1); c + 1 segment alignments (byte %
 * 64); r = repeat (byte % 16): the rest of the input, laid r + 1 times end
 * to end, is the packet (up to 16 times the input, so past the SIMD
 * kernel's batches of 8,160 bytes); a prefix length (16 bits, modulo the
 * length + 1). Each segment is its own allocation, exactly as long as its
 * data, so a kernel reading past a segment's end shows under ASan.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "channel_wire.h"
#include "fuzz_check.h"
#include "sst_net.h"

#define MAX_CUTS 7
#define MAX_ALIGN 64
#define MAX_REPEAT 16

/* The definition (docs/wire-format.md section 3): reduce after every word. */
static uint32_t
ref_chk32(uint64_t seq, const uint8_t *p, size_t len)
{
	uint32_t a = 0, b = 0, w;
	size_t i;

	for (int k = 0; k < 4; k++) {
		a = (a + ((uint32_t)(seq >> (48 - 16 * k)) & 0xffff)) % 65537;
		b = (b + a) % 65537;
	}
	for (i = 0; i + 1 < len; i += 2) {
		a = (a + ((uint32_t)p[i] << 8 | p[i + 1])) % 65537;
		b = (b + a) % 65537;
	}
	w = i < len ? (uint32_t)p[i] << 8 | 0x80 : 0x8000;
	a = (a + w) % 65537;
	b = (b + a) % 65537;
	return (a & 0xffff) | (b & 0xffff) << 16;
}

static uint32_t
take16(struct fuzz_input *in)
{
	uint32_t hi = fuzz_take(in);

	return hi << 8 | fuzz_take(in);
}

static void
check_chain(uint64_t seq, const uint8_t *flat, uint32_t total, uint32_t prefix, const uint32_t *cut,
	const uint8_t *align, unsigned int ncuts)
{
	struct rte_mbuf segs[MAX_CUTS + 1];
	uint8_t *mem[MAX_CUTS + 1];
	uint32_t want_all = sst_chk32_with(SST_CHK32_IMPL_SCALAR, seq, flat, total);
	uint32_t want_prefix = sst_chk32_with(SST_CHK32_IMPL_SCALAR, seq, flat, prefix);

	memset(segs, 0, sizeof(segs));
	for (unsigned int s = 0; s <= ncuts; s++) {
		uint32_t from = s == 0 ? 0 : cut[s - 1], to = s == ncuts ? total : cut[s];

		/* malloc(0) may return NULL; one byte more keeps the address. */
		mem[s] = malloc(align[s] + (to - from) + (to == from));
		FUZZ_CHECK(mem[s] != NULL);
		memcpy(mem[s] + align[s], flat + from, to - from);
		segs[s].buf_addr = mem[s] + align[s];
		segs[s].data_len = (uint16_t)(to - from);
		segs[s].next = s < ncuts ? &segs[s + 1] : NULL;
	}
	segs[0].pkt_len = total;
	segs[0].nb_segs = (uint16_t)(ncuts + 1);
	for (int i = 0; i < SST_CHK32_IMPL_COUNT; i++) {
		enum sst_chk32_impl impl = (enum sst_chk32_impl)i;

		if (!sst_chk32_impl_supported(impl))
			continue;
		FUZZ_CHECK(sst_chk32_with(impl, seq, flat, total) == want_all);
		FUZZ_CHECK(sst_chk32_with(impl, seq, flat, prefix) == want_prefix);
		FUZZ_CHECK(sst_chk32_mbuf_with(impl, seq, segs, total) == want_all);
		FUZZ_CHECK(sst_chk32_mbuf_with(impl, seq, segs, prefix) == want_prefix);
	}
	FUZZ_CHECK(sst_chk32_mbuf(seq, segs, total) == want_all);
	for (int i = 0; i < SST_NET_CKSUM_IMPL_COUNT; i++) {
		enum sst_net_cksum_impl impl = (enum sst_net_cksum_impl)i;
		uint16_t ck;

		if (!sst_net_cksum_impl_supported(impl))
			continue;
		FUZZ_CHECK(sst_net_cksum_mbuf_with(impl, segs, 0, total, &ck) == 0 &&
			   ck == rte_raw_cksum(flat, total));
		FUZZ_CHECK(sst_net_cksum_mbuf_with(impl, segs, prefix, total - prefix, &ck) == 0 &&
			   ck == rte_raw_cksum(flat + prefix, total - prefix));
	}
	for (unsigned int s = 0; s <= ncuts; s++)
		free(mem[s]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = {data, size};
	uint32_t cut[MAX_CUTS], total, prefix;
	uint8_t align[MAX_CUTS + 1];
	unsigned int ncuts, repeat;
	uint64_t seq = 0;
	uint8_t *flat;

	for (int i = 0; i < 8; i++)
		seq = seq << 8 | fuzz_take(&in);
	ncuts = fuzz_take(&in) % (MAX_CUTS + 1);
	for (unsigned int s = 0; s < ncuts; s++)
		cut[s] = take16(&in);
	for (unsigned int s = 0; s <= ncuts; s++)
		align[s] = fuzz_take(&in) % MAX_ALIGN;
	repeat = fuzz_take(&in) % MAX_REPEAT + 1;
	prefix = take16(&in);
	total = (uint32_t)(in.left * repeat);
	if (total > UINT16_MAX) /* a segment's data_len is 16 bits */
		total = UINT16_MAX;
	flat = malloc(total + 1);
	FUZZ_CHECK(flat != NULL);
	for (uint32_t i = 0; i < total; i++)
		flat[i] = in.p[i % in.left];
	prefix %= total + 1;
	for (unsigned int s = 0; s < ncuts; s++)
		cut[s] %= total + 1;
	/* Cuts in order (insertion sort); equal cuts make empty segments. */
	for (unsigned int s = 1; s < ncuts; s++)
		for (unsigned int t = s; t > 0 && cut[t - 1] > cut[t]; t--) {
			uint32_t x = cut[t];

			cut[t] = cut[t - 1];
			cut[t - 1] = x;
		}
	FUZZ_CHECK(sst_chk32_with(SST_CHK32_IMPL_SCALAR, seq, flat, total) ==
		   ref_chk32(seq, flat, total));
	check_chain(seq, flat, total, prefix, cut, align, ncuts);
	free(flat);
	return 0;
}
