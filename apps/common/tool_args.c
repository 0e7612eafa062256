/* SPDX-License-Identifier: BSD-3-Clause */
/* Command-line values shared by the tools (tool_args.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tool_args.h"

static int
parse_port(const char *s, bool zero_ok, uint16_t *port)
{
	uint64_t v;

	if (tool_parse_u64(s, zero_ok ? 0 : 1, 65535, &v) < 0 || strpbrk(s, "KMGkmg") != NULL)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

static int
resolve(const char *host, struct sst_net_addr *a, char *err, size_t errlen)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM};
	struct addrinfo *res;
	int rc;

	if (sst_net_addr_parse(host, a) == 0)
		return 0;
	rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc != 0) {
		snprintf(err, errlen, "cannot resolve '%s': %s", host, gai_strerror(rc));
		return -1;
	}
	memset(a, 0, sizeof(*a));
	if (res->ai_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)res->ai_addr;

		a->family = SST_NET_IPV4;
		memcpy(a->bytes, &sin->sin_addr, 4);
	} else {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)res->ai_addr;

		a->family = SST_NET_IPV6;
		memcpy(a->bytes, &sin6->sin6_addr, 16);
	}
	freeaddrinfo(res);
	return 0;
}

int
tool_parse_endpoint(const char *text, bool port_only_ok, bool port_zero_ok,
	struct sst_net_endpoint *ep, char *err, size_t errlen)
{
	char host[256];
	const char *colon;
	size_t hl;

	memset(ep, 0, sizeof(*ep));
	if (text[0] == '[') {
		const char *close = strchr(text, ']');

		if (close == NULL || close[1] != ':') {
			snprintf(err, errlen, "'%s': expected [IPV6]:PORT", text);
			return -1;
		}
		hl = (size_t)(close - text - 1);
		colon = close + 1;
		if (hl >= sizeof(host))
			goto bad;
		memcpy(host, text + 1, hl);
		host[hl] = '\0';
		if (sst_net_addr_parse(host, &ep->addr) < 0 || ep->addr.family != SST_NET_IPV6) {
			snprintf(err, errlen, "'%s': bad IPv6 address", host);
			return -1;
		}
	} else {
		colon = strrchr(text, ':');
		if (colon == NULL) {
			if (!port_only_ok) {
				snprintf(err, errlen, "'%s': expected HOST:PORT", text);
				return -1;
			}
			ep->addr.family = SST_NET_IPV4;
			if (parse_port(text, port_zero_ok, &ep->port) < 0)
				goto bad;
			return 0;
		}
		hl = (size_t)(colon - text);
		if (hl == 0 || hl >= sizeof(host) || memchr(text, ':', hl) != NULL) {
			snprintf(err, errlen, "'%s': expected HOST:PORT ([ADDR]:PORT for IPv6)",
				text);
			return -1;
		}
		memcpy(host, text, hl);
		host[hl] = '\0';
		if (resolve(host, &ep->addr, err, errlen) < 0)
			return -1;
	}
	if (parse_port(colon + 1, port_zero_ok, &ep->port) == 0)
		return 0;
bad:
	snprintf(err, errlen, "'%s': bad port (%s65535)", text, port_zero_ok ? "0-" : "1-");
	return -1;
}

void
tool_endpoint_text(const struct sst_net_endpoint *ep, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (ep->addr.family == SST_NET_IPV6) {
		inet_ntop(AF_INET6, ep->addr.bytes, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, ep->port);
	} else {
		inet_ntop(AF_INET, ep->addr.bytes, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ep->port);
	}
}

int
tool_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned int shift = 0;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	default:
		break;
	}
	if (*end != '\0' || v > (UINT64_MAX >> shift))
		return -1;
	v <<= shift;
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int
tool_parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || isnan(v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int
tool_parse_percent(const char *s, double *prob)
{
	char buf[64];
	size_t n = strlen(s);
	double v;

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n + 1);
	if (buf[n - 1] == '%')
		buf[n - 1] = '\0';
	if (tool_parse_double(buf, 0, 100, &v) < 0)
		return -1;
	*prob = v / 100;
	return 0;
}

int
tool_usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (try --help)\n");
	return TOOL_EXIT_ARGS;
}
