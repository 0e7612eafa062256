/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "dump_capture.h"

/* Link types by their LINKTYPE_ numbers, which is what pcap_datalink()
 * reports for files. */
enum {
	LINK_NULL = 0,
	LINK_EN10MB = 1,
	LINK_RAW = 101,
	LINK_LOOP = 108,
	LINK_LINUX_SLL = 113,
	LINK_IPV4 = 228,
	LINK_IPV6 = 229,
	LINK_LINUX_SLL2 = 276,
};

enum {
	ETH_P_IPV4 = 0x0800,
	ETH_P_IPV6 = 0x86dd,
	ETH_P_VLAN = 0x8100,
	ETH_P_QINQ = 0x88a8,
	IPPROTO_UDP_ = 17,
	UDP_HDR_LEN = 8,
};

struct frame {
	const uint8_t *p;
	size_t len;	 /* captured bytes */
	size_t wire_len; /* bytes on the wire */
};

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Strip the link header; returns the ethertype of what follows, or -1. */
static int
strip_link(int linktype, struct frame *f)
{
	uint16_t type;
	size_t off;

	switch (linktype) {
	case LINK_EN10MB:
		if (f->len < 14)
			return -1;
		type = be16(f->p + 12);
		off = 14;
		while ((type == ETH_P_VLAN || type == ETH_P_QINQ) && f->len >= off + 4) {
			type = be16(f->p + off + 2);
			off += 4;
		}
		break;
	case LINK_LINUX_SLL:
		if (f->len < 16)
			return -1;
		type = be16(f->p + 14);
		off = 16;
		break;
	case LINK_LINUX_SLL2:
		if (f->len < 20)
			return -1;
		type = be16(f->p);
		off = 20;
		break;
	case LINK_NULL:
	case LINK_LOOP:
		/* A 4-byte address family in the writer's byte order (NULL) or
		 * big-endian (LOOP); the IP version nibble is more reliable. */
		if (f->len < 5)
			return -1;
		off = 4;
		type = (f->p[4] >> 4) == 6 ? ETH_P_IPV6 : ETH_P_IPV4;
		break;
	case LINK_RAW:
	case LINK_IPV4:
	case LINK_IPV6:
		if (f->len < 1)
			return -1;
		off = 0;
		type = (f->p[0] >> 4) == 6 ? ETH_P_IPV6 : ETH_P_IPV4;
		break;
	default:
		return -1;
	}
	f->p += off;
	f->len -= off;
	f->wire_len = f->wire_len > off ? f->wire_len - off : 0;
	return type;
}

/* IPv4: returns the transport protocol and leaves f at its header. */
static int
strip_ipv4(struct frame *f, struct dump_datagram *dg, enum dump_skip_reason *why)
{
	size_t ihl, total;
	uint16_t frag;
	int proto;

	*why = DUMP_SKIP_MALFORMED;
	if (f->len < 20 || (f->p[0] >> 4) != 4)
		return -1;
	ihl = (size_t)(f->p[0] & 0xf) * 4;
	total = be16(f->p + 2);
	if (ihl < 20 || total < ihl || f->len < ihl)
		return -1;
	proto = f->p[9];
	frag = be16(f->p + 6);
	if ((frag & 0x3fff) != 0) {
		*why = DUMP_SKIP_FRAGMENT;
		return -1;
	}
	memset(dg->src.addr, 0, 10);
	memset(dg->src.addr + 10, 0xff, 2);
	memcpy(dg->src.addr + 12, f->p + 12, 4);
	memcpy(dg->dst.addr, dg->src.addr, 12);
	memcpy(dg->dst.addr + 12, f->p + 16, 4);
	dg->src.v6 = dg->dst.v6 = false;
	/* Ethernet pads short frames; the IP total length is authoritative. */
	if (f->wire_len > total)
		f->wire_len = total;
	if (f->len > total)
		f->len = total;
	f->p += ihl;
	f->len -= ihl;
	f->wire_len -= ihl;
	return proto;
}

static int
strip_ipv6(struct frame *f, struct dump_datagram *dg, enum dump_skip_reason *why)
{
	size_t payload;
	uint8_t next;

	*why = DUMP_SKIP_MALFORMED;
	if (f->len < 40 || (f->p[0] >> 4) != 6)
		return -1;
	payload = be16(f->p + 4);
	next = f->p[6];
	memcpy(dg->src.addr, f->p + 8, 16);
	memcpy(dg->dst.addr, f->p + 24, 16);
	dg->src.v6 = dg->dst.v6 = true;
	f->p += 40;
	f->len -= 40;
	f->wire_len = payload;
	if (f->len > payload)
		f->len = payload;
	/* Hop-by-hop, routing and destination options may precede UDP. */
	while (next == 0 || next == 43 || next == 60) {
		size_t hlen;

		if (f->len < 8)
			return -1;
		hlen = ((size_t)f->p[1] + 1) * 8;
		if (f->len < hlen || f->wire_len < hlen)
			return -1;
		next = f->p[0];
		f->p += hlen;
		f->len -= hlen;
		f->wire_len -= hlen;
	}
	if (next == 44) {
		*why = DUMP_SKIP_FRAGMENT;
		return -1;
	}
	return next;
}

static int
parse_frame(int linktype, struct frame f, struct dump_datagram *dg, enum dump_skip_reason *why)
{
	int ethertype, proto;
	size_t udp_len;

	*why = DUMP_SKIP_NOT_IP;
	ethertype = strip_link(linktype, &f);
	if (ethertype == ETH_P_IPV4)
		proto = strip_ipv4(&f, dg, why);
	else if (ethertype == ETH_P_IPV6)
		proto = strip_ipv6(&f, dg, why);
	else
		return -1;
	if (proto < 0)
		return -1;
	if (proto != IPPROTO_UDP_) {
		*why = DUMP_SKIP_NOT_UDP;
		return -1;
	}
	*why = DUMP_SKIP_MALFORMED;
	if (f.len < UDP_HDR_LEN)
		return -1;
	udp_len = be16(f.p + 4);
	if (udp_len < UDP_HDR_LEN || udp_len > f.wire_len)
		return -1;
	dg->src.port = be16(f.p);
	dg->dst.port = be16(f.p + 2);
	dg->payload = f.p + UDP_HDR_LEN;
	dg->len = udp_len - UDP_HDR_LEN;
	dg->truncated = f.len < udp_len;
	if (dg->truncated)
		dg->len = f.len - UDP_HDR_LEN;
	return 0;
}

int
dump_capture_read(const char *path, dump_datagram_fn fn, void *arg,
	struct dump_capture_stats *stats, double *time_base, char *err, size_t errlen)
{
	char pcap_err[PCAP_ERRBUF_SIZE] = "";
	struct pcap_pkthdr *hdr;
	const u_char *data;
	uint64_t frame = 0;
	FILE *file;
	pcap_t *pc;
	int linktype, rc;

	/* Open the file ourselves so "cannot open" and "not a capture" are
	 * told apart. */
	file = fopen(path, "rb");
	if (file == NULL) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	pc = pcap_fopen_offline(file, pcap_err);
	if (pc == NULL) {
		fclose(file);
		snprintf(err, errlen, "%s: not a pcap or pcapng capture (%s)", path, pcap_err);
		return -1;
	}
	linktype = pcap_datalink(pc);
	while ((rc = pcap_next_ex(pc, &hdr, &data)) == 1) {
		struct dump_datagram dg;
		struct frame f = {data, hdr->caplen, hdr->len};
		enum dump_skip_reason why;
		double t = (double)hdr->ts.tv_sec + (double)hdr->ts.tv_usec / 1e6;

		frame++;
		stats->frames++;
		if (*time_base == 0)
			*time_base = t;
		memset(&dg, 0, sizeof(dg));
		dg.frame = frame;
		dg.time = t - *time_base;
		if (parse_frame(linktype, f, &dg, &why) < 0) {
			stats->skipped[why]++;
			continue;
		}
		stats->udp++;
		if (!fn(&dg, arg))
			break;
	}
	if (rc == PCAP_ERROR) {
		snprintf(err, errlen,
			"%s: truncated or corrupt capture after frame %" PRIu64 " (%s)", path,
			frame, pcap_geterr(pc));
		pcap_close(pc);
		return -1;
	}
	pcap_close(pc);
	return 0;
}

void
dump_endpoint_format(const struct dump_endpoint *ep, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN];

	if (ep->v6) {
		inet_ntop(AF_INET6, ep->addr, addr, sizeof(addr));
		snprintf(buf, len, "[%s]:%u", addr, ep->port);
	} else {
		inet_ntop(AF_INET, ep->addr + 12, addr, sizeof(addr));
		snprintf(buf, len, "%s:%u", addr, ep->port);
	}
}

int
dump_endpoint_parse(const char *s, struct dump_endpoint *ep)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon = strrchr(s, ':');
	unsigned long port;
	char *end;
	size_t hlen;

	if (colon == NULL || colon == s)
		return -1;
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno != 0 || *end != '\0' || end == colon + 1 || port > 65535)
		return -1;
	hlen = (size_t)(colon - s);
	if (hlen >= sizeof(host))
		return -1;
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	memset(ep, 0, sizeof(*ep));
	ep->port = (uint16_t)port;
	if (host[0] == '[' && hlen > 2 && host[hlen - 1] == ']') {
		host[hlen - 1] = '\0';
		ep->v6 = true;
		return inet_pton(AF_INET6, host + 1, ep->addr) == 1 ? 0 : -1;
	}
	memset(ep->addr + 10, 0xff, 2);
	return inet_pton(AF_INET, host, ep->addr + 12) == 1 ? 0 : -1;
}

bool
dump_endpoint_equal(const struct dump_endpoint *a, const struct dump_endpoint *b)
{
	return a->v6 == b->v6 && a->port == b->port && memcmp(a->addr, b->addr, 16) == 0;
}
