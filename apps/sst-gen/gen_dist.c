/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen: random numbers and the size distributions of requests and
 * responses. Sizes come from a seeded generator so that a run can be
 * repeated exactly (--seed).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "tool_args.h"

uint64_t
gen_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A uniform double in (0, 1]: never 0, so that log() stays finite. */
static double
unit(uint64_t *state)
{
	return (double)((gen_rand(state) >> 11) + 1) / 9007199254740992.0;
}

/* A byte count (K, M, G suffixes) as a double. */
static int
parse_bytes(const char *s, double *out)
{
	uint64_t v;

	if (tool_parse_u64(s, 0, 1ull << 30, &v) < 0)
		return -1;
	*out = (double)v;
	return 0;
}

int
gen_dist_parse(const char *text, struct gen_dist *d)
{
	char buf[64];
	char *arg, *sep;

	if (strlen(text) >= sizeof(buf))
		return -1;
	memset(d, 0, sizeof(*d));
	d->max = 1ull << 30;
	strcpy(buf, text);
	arg = strchr(buf, ':');
	if (arg == NULL) {
		d->kind = GEN_FIXED;
		return parse_bytes(buf, &d->a);
	}
	*arg++ = '\0';
	if (strcmp(buf, "fixed") == 0) {
		d->kind = GEN_FIXED;
		return parse_bytes(arg, &d->a);
	}
	if (strcmp(buf, "exp") == 0) {
		d->kind = GEN_EXP;
		return parse_bytes(arg, &d->a) < 0 || d->a < 1 ? -1 : 0;
	}
	sep = strchr(arg, strcmp(buf, "uniform") == 0 ? '-' : ',');
	if (sep == NULL)
		return -1;
	*sep++ = '\0';
	if (strcmp(buf, "uniform") == 0) {
		d->kind = GEN_UNIFORM;
		return parse_bytes(arg, &d->a) < 0 || parse_bytes(sep, &d->b) < 0 || d->b < d->a
			       ? -1
			       : 0;
	}
	if (strcmp(buf, "pareto") == 0) {
		d->kind = GEN_PARETO;
		return parse_bytes(arg, &d->a) < 0 || d->a < 1 ||
				       tool_parse_double(sep, 0.1, 100, &d->b) < 0
			       ? -1
			       : 0;
	}
	return -1;
}

uint64_t
gen_dist_draw(const struct gen_dist *d, uint64_t *rng)
{
	double v;

	switch (d->kind) {
	case GEN_UNIFORM:
		v = d->a + (double)(gen_rand(rng) % ((uint64_t)(d->b - d->a) + 1));
		break;
	case GEN_EXP:
		v = -d->a * log(unit(rng));
		break;
	case GEN_PARETO:
		/* Inverse transform: scale / U^(1/shape). */
		v = d->a / pow(unit(rng), 1.0 / d->b);
		break;
	default:
		v = d->a;
		break;
	}
	return v >= (double)d->max ? d->max : (uint64_t)v;
}

void
gen_dist_text(const struct gen_dist *d, char *buf, size_t len)
{
	switch (d->kind) {
	case GEN_UNIFORM:
		snprintf(buf, len, "uniform:%.0f-%.0f", d->a, d->b);
		break;
	case GEN_EXP:
		snprintf(buf, len, "exp:%.0f", d->a);
		break;
	case GEN_PARETO:
		snprintf(buf, len, "pareto:%.0f,%g", d->a, d->b);
		break;
	default:
		snprintf(buf, len, "%.0f", d->a);
		break;
	}
}
