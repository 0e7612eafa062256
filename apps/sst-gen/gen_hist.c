/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen: latency histograms with logarithmic buckets (the layout of
 * HdrHistogram with 5 bits of sub-bucket precision): adding a value is a
 * count-leading-zeros and an increment, so it costs the same at any scale.
 */
#include <string.h>

#include "gen.h"

enum { SUB = 1u << GEN_HIST_SUB_BITS };

static uint32_t
bucket_of(uint64_t v)
{
	uint32_t msb, shift;

	if (v < SUB)
		return (uint32_t)v;
	msb = 63u - (uint32_t)__builtin_clzll(v);
	shift = msb - GEN_HIST_SUB_BITS;
	/* Bucket group shift + 1, sub-bucket from the bits below the msb. */
	return ((shift + 1) << GEN_HIST_SUB_BITS) + (uint32_t)((v >> shift) & (SUB - 1));
}

/* The largest value of bucket i (what a quantile reports: never below the
 * true value). */
static uint64_t
bucket_top(uint32_t i)
{
	uint32_t group = i >> GEN_HIST_SUB_BITS, sub = i & (SUB - 1), shift;

	if (group == 0)
		return sub;
	shift = group - 1;
	return (((uint64_t)(SUB + sub) + 1) << shift) - 1;
}

void
gen_hist_add(struct gen_hist *h, uint64_t v)
{
	h->b[bucket_of(v)]++;
	h->n++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
}

uint64_t
gen_hist_quantile(const struct gen_hist *h, double q)
{
	uint64_t want, seen = 0;

	if (h->n == 0)
		return 0;
	want = (uint64_t)(q * (double)h->n + 0.5);
	if (want == 0)
		want = 1;
	for (uint32_t i = 0; i < GEN_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= want)
			return bucket_top(i) < h->max ? bucket_top(i) : h->max;
	}
	return h->max;
}

void
gen_hist_merge(struct gen_hist *dst, const struct gen_hist *src)
{
	dst->n += src->n;
	dst->sum += src->sum;
	dst->max = dst->max > src->max ? dst->max : src->max;
	for (uint32_t i = 0; i < GEN_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
}
