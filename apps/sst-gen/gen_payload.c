/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen: the content of requests and responses (gen.h). Past the header
 * a byte is a cheap function of the tag and the offset, so a receiver
 * checks any byte without state beyond the offset, and two streams never
 * carry the same bytes at the same offset for long.
 */
#include <stdio.h>
#include <string.h>

#include "gen.h"

static uint8_t
content_byte(uint64_t t, uint32_t s, uint64_t o)
{
	uint64_t x;

	if (o < 8)
		return (uint8_t)(t >> (56 - 8 * o));
	if (o < GEN_HEADER_LEN)
		return (uint8_t)(s >> (24 - 8 * (o - 8)));
	x = (t * 0x9e3779b97f4a7c15ull) ^ (o >> 3);
	return (uint8_t)((x >> (8 * (o & 7))) + (uint8_t)o);
}

void
gen_fill(uint8_t *dst, uint64_t t, uint32_t s, uint64_t off, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		dst[i] = content_byte(t, s, off + i);
}

uint64_t
gen_check(const uint8_t *src, uint64_t t, uint32_t s, uint64_t off, uint32_t len)
{
	uint64_t bad = 0;

	for (uint32_t i = 0; i < len; i++)
		bad += src[i] != content_byte(t, s, off + i);
	return bad;
}

void
gen_dgram_fill(uint8_t *dst, uint64_t tag, uint32_t len, uint64_t tsc)
{
	gen_fill(dst, tag, len, 0, len);
	for (int i = 0; i < 8; i++)
		dst[GEN_HEADER_LEN + i] = (uint8_t)(tsc >> (56 - 8 * i));
}

uint64_t
gen_dgram_check(const uint8_t *src, uint32_t len, uint64_t *tag, uint64_t *tsc)
{
	uint32_t said = 0;

	if (len < GEN_DGRAM_HEADER)
		return len;
	*tag = *tsc = 0;
	for (int i = 0; i < 8; i++) {
		*tag = *tag << 8 | src[i];
		*tsc = *tsc << 8 | src[GEN_HEADER_LEN + i];
	}
	for (int i = 8; i < GEN_HEADER_LEN; i++)
		said = said << 8 | src[i];
	if (said != len)
		return len;
	return gen_check(
		src + GEN_DGRAM_HEADER, *tag, len, GEN_DGRAM_HEADER, len - GEN_DGRAM_HEADER);
}

uint64_t
gen_rss(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long long size, rss;
	int n;

	if (f == NULL)
		return 0;
	n = fscanf(f, "%llu %llu", &size, &rss);
	fclose(f);
	return n == 2 ? rss * 4096ull : 0;
}
