/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Command-line values shared by the tools: endpoints (HOST:PORT,
 * [IPV6]:PORT, a bare PORT), byte counts with binary suffixes, durations
 * and percentages. Every parser rejects trailing garbage and values out of
 * range, so a tool can answer a typo with a precise message and exit 2.
 */
#ifndef TOOL_ARGS_H
#define TOOL_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sst_net.h"

/** Exit statuses every tool shares (system tests check them). */
enum {
	TOOL_EXIT_ARGS = 2,  /**< bad arguments */
	TOOL_EXIT_SETUP = 3, /**< the EAL, memory or a socket failed */
};

/**
 * Parse "HOST:PORT", "[IPV6]:PORT" or, when @p port_only_ok, a bare "PORT"
 * (then the address is IPv4 any). HOST is an address or a name (resolved
 * with getaddrinfo(), the first answer). Port 0 is accepted only with
 * @p port_zero_ok. @return 0, or -1 with a reason in @p err.
 */
int tool_parse_endpoint(const char *text, bool port_only_ok, bool port_zero_ok,
	struct sst_net_endpoint *ep, char *err, size_t errlen);

/** "1.2.3.4:5" or "[::1]:5". */
void tool_endpoint_text(const struct sst_net_endpoint *ep, char *buf, size_t len);

/** An integer in [min, max] with an optional K, M or G suffix (powers of
 * 1024). @return 0 or -1. */
int tool_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/** A number in [min, max] (strtod syntax). @return 0 or -1. */
int tool_parse_double(const char *s, double min, double max, double *out);

/** A percentage "P" or "P%" in [0, 100], returned as a probability. @return 0 or -1. */
int tool_parse_percent(const char *s, double *prob);

/**
 * Say on stderr what is wrong with the command line: "PROG: " and the
 * message, then " (try --help)". @return TOOL_EXIT_ARGS.
 */
int tool_usage_error(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* TOOL_ARGS_H */
