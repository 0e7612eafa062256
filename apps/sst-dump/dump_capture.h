/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading captures for sst-dump: pcap and pcapng files through libpcap, the
 * link layers tcpdump and Wireshark write for ordinary interfaces, IPv4 and
 * IPv6, and UDP. What comes out is one UDP datagram at a time.
 */
#ifndef DUMP_CAPTURE_H
#define DUMP_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** A transport endpoint: IPv4 (mapped into the IPv6 form) or IPv6, and a port. */
struct dump_endpoint {
	uint8_t addr[16];
	bool v6;
	uint16_t port;
};

/** One UDP datagram found in a capture. */
struct dump_datagram {
	uint64_t frame; /**< 1-based frame number within its file */
	double time;	/**< seconds since the first frame of the first file */
	struct dump_endpoint src;
	struct dump_endpoint dst;
	const uint8_t *payload;
	size_t len;
	bool truncated; /**< the capture kept fewer bytes than the datagram had */
};

/** Why a frame did not yield a UDP datagram. */
enum dump_skip_reason {
	DUMP_SKIP_NOT_IP,    /**< not IPv4/IPv6, or an unsupported link type */
	DUMP_SKIP_NOT_UDP,   /**< another transport protocol */
	DUMP_SKIP_FRAGMENT,  /**< an IP fragment (SST never fragments) */
	DUMP_SKIP_MALFORMED, /**< a header was cut short or inconsistent */
	DUMP_SKIP_COUNT,
};

struct dump_capture;

/** Called for every UDP datagram; return false to stop reading. */
typedef bool (*dump_datagram_fn)(const struct dump_datagram *dg, void *arg);

/** Counters of one or more files read in sequence. */
struct dump_capture_stats {
	uint64_t frames;
	uint64_t udp;
	uint64_t skipped[DUMP_SKIP_COUNT];
};

/**
 * Read every frame of a capture file and hand the UDP datagrams to fn.
 *
 * @param path
 *   A pcap or pcapng file.
 * @param time_base
 *   In/out: the timestamp of the first frame ever read (0 before the first
 *   file), so that times run on across several files of one session.
 * @param err
 *   Buffer for a one-line description of a failure (unreadable file, not a
 *   capture, truncated capture).
 * @return
 *   0 on success, -1 on failure with err filled.
 */
int dump_capture_read(const char *path, dump_datagram_fn fn, void *arg,
	struct dump_capture_stats *stats, double *time_base, char *err, size_t errlen);

/** Format an endpoint as "a.b.c.d:port" or "[v6]:port". */
void dump_endpoint_format(const struct dump_endpoint *ep, char *buf, size_t len);

/** Parse "a.b.c.d:port" or "[v6]:port". @return 0 or -1. */
int dump_endpoint_parse(const char *s, struct dump_endpoint *ep);

/** True when both endpoints are the same address and port. */
bool dump_endpoint_equal(const struct dump_endpoint *a, const struct dump_endpoint *b);

#endif /* DUMP_CAPTURE_H */
