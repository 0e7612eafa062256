/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcapng capture (sst_capture.h): one section header, one Ethernet
 * interface, one enhanced packet block per packet with its direction, and
 * interface statistics at the end (the pcapng specification,
 * draft-ietf-opsawg-pcapng).
 *
 * Why not DPDK's rte_pcapng: in 22.11 it is experimental, writes one
 * interface block per ethdev port that exists when the file is opened and
 * numbers packets by port id, so a datagram link (no port at all) or a port
 * made after the capture started (a ring pair) gives a file that readers
 * reject; and it copies every packet into a new mbuf before writing it.
 * These few blocks written by hand avoid all of that, and one interface
 * whose link type is Ethernet lets made-up headers give datagram links the
 * same look as frame links.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_udp.h>

#include "sst_capture.h"

/* pcapng block types, option codes and values. */
enum {
	PCAPNG_SHB = 0x0A0D0D0A,
	PCAPNG_IDB = 1,
	PCAPNG_ISB = 5,
	PCAPNG_EPB = 6,
	PCAPNG_BYTE_ORDER_MAGIC = 0x1A2B3C4D,
	PCAPNG_OPT_END = 0,
	PCAPNG_SHB_USERAPPL = 4,
	PCAPNG_IF_NAME = 2,
	PCAPNG_IF_TSRESOL = 9,
	PCAPNG_EPB_FLAGS = 2,
	PCAPNG_ISB_IFRECV = 4,
	PCAPNG_ISB_IFDROP = 5,
	PCAPNG_TSRESOL_NS = 9, /* 10^-9 s per timestamp unit */
	LINKTYPE_ETHERNET = 1,
	/* Block header (type, length) and trailing length. */
	BLOCK_OVERHEAD = 12,
	/* EPB: interface, timestamp (2), captured and original lengths;
	 * epb_flags option (8) and end of options (4). */
	EPB_FIXED = 20,
	EPB_OPTIONS = 12,
	/* The largest header made up for a datagram: Ethernet, IPv6, UDP. */
	DGRAM_HDR_MAX = RTE_ETHER_HDR_LEN + 40 + 8,
	IF_NAME_MAX = RTE_ETH_NAME_MAX_LEN,
};

struct sst_capture {
	int fd;
	int err; /* the first write error (negative errno) */
	uint32_t snaplen;
	uint32_t used; /* bytes in buf */
	/* Packets in buf, unwritten: lost if the write fails. */
	uint32_t buffered;
	uint64_t buffered_bytes;
	struct sst_capture_stats stats;
	uint8_t buf[SST_CAPTURE_BUFFER];
};

static uint32_t
pad4(uint32_t n)
{
	return RTE_ALIGN_CEIL(n, 4u);
}

static uint8_t *
put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
	return p + 4;
}

static uint8_t *
put_opt(uint8_t *p, uint16_t code, const void *val, uint16_t len)
{
	memcpy(p, &code, 2);
	memcpy(p + 2, &len, 2);
	if (len > 0)
		memcpy(p + 4, val, len);
	memset(p + 4 + len, 0, pad4(len) - len);
	return p + 4 + pad4(len);
}

static int
write_all(int fd, const uint8_t *p, size_t len)
{
	while (len > 0) {
		ssize_t k = write(fd, p, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

int
sst_capture_flush(struct sst_capture *c)
{
	int rc = c->used > 0 ? write_all(c->fd, c->buf, c->used) : 0;

	if (rc < 0) {
		/* What was buffered is lost: count it so, not as captured. */
		c->stats.packets -= c->buffered;
		c->stats.bytes -= c->buffered_bytes;
		c->stats.drops += c->buffered;
		if (c->err == 0)
			c->err = rc;
	}
	c->used = 0;
	c->buffered = 0;
	c->buffered_bytes = 0;
	return c->err;
}

/* Room for a block of len bytes at the end of the buffer (len is at most a
 * quarter of the buffer: the largest packet block). */
static uint8_t *
reserve(struct sst_capture *c, uint32_t len)
{
	if (c->used + len > sizeof(c->buf))
		sst_capture_flush(c);
	return c->buf + c->used;
}

/* Close a block begun at start whose body ends at end. */
static void
block_finish(struct sst_capture *c, uint8_t *start, uint8_t *end, uint32_t type)
{
	uint32_t len = (uint32_t)(end - start) + 4;

	put32(start, type);
	put32(start + 4, len);
	put32(end, len);
	c->used += len;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
write_headers(struct sst_capture *c, uint16_t port_id)
{
	static const char app[] = "SST-DPDK";
	char ifname[IF_NAME_MAX] = "sst-datagrams";
	uint8_t *start = reserve(c, 256), *p = start + 8;
	uint8_t tsresol = PCAPNG_TSRESOL_NS;
	uint16_t major = 1, minor = 0;
	int64_t section_len = -1;

	p = put32(p, PCAPNG_BYTE_ORDER_MAGIC);
	memcpy(p, &major, 2);
	memcpy(p + 2, &minor, 2);
	memcpy(p + 4, &section_len, 8);
	p = put_opt(p + 12, PCAPNG_SHB_USERAPPL, app, sizeof(app) - 1);
	p = put_opt(p, PCAPNG_OPT_END, NULL, 0);
	block_finish(c, start, p, PCAPNG_SHB);

	if (port_id != UINT16_MAX && rte_eth_dev_get_name_by_port(port_id, ifname) != 0)
		snprintf(ifname, sizeof(ifname), "port%u", port_id);
	start = reserve(c, 256);
	p = start + 8;
	memcpy(p, &(uint16_t){LINKTYPE_ETHERNET}, 2);
	memset(p + 2, 0, 2); /* reserved */
	p = put32(p + 4, c->snaplen);
	p = put_opt(p, PCAPNG_IF_NAME, ifname, (uint16_t)strnlen(ifname, sizeof(ifname) - 1));
	p = put_opt(p, PCAPNG_IF_TSRESOL, &tsresol, 1);
	p = put_opt(p, PCAPNG_OPT_END, NULL, 0);
	block_finish(c, start, p, PCAPNG_IDB);
}

struct sst_capture *
sst_capture_open(
	const char *path, uint16_t port_id, uint32_t snaplen, struct rte_mempool *copy_pool)
{
	struct sst_capture *c;
	int rc;

	RTE_SET_USED(copy_pool);
	if (path == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	c = rte_zmalloc("sst_capture", sizeof(*c), RTE_CACHE_LINE_SIZE);
	if (c == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	c->snaplen = snaplen == 0 || snaplen > SST_CAPTURE_SNAPLEN_MAX ? SST_CAPTURE_SNAPLEN_MAX
								       : snaplen;
	c->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (c->fd < 0) {
		rte_errno = errno;
		rte_free(c);
		return NULL;
	}
	write_headers(c, port_id);
	rc = sst_capture_flush(c);
	if (rc < 0) {
		close(c->fd);
		rte_free(c);
		rte_errno = -rc;
		return NULL;
	}
	return c;
}

/* Copy len bytes of m from offset 0. */
static uint8_t *
copy_mbuf(uint8_t *p, const struct rte_mbuf *m, uint32_t len)
{
	for (; m != NULL && len > 0; m = m->next) {
		uint32_t k = RTE_MIN(len, (uint32_t)m->data_len);

		memcpy(p, rte_pktmbuf_mtod(m, const uint8_t *), k);
		p += k;
		len -= k;
	}
	return p;
}

/* One enhanced packet block: hdr (made-up headers, hdr_len bytes) then the
 * packet's bytes, wire_len in all on the wire. */
static void
write_packet(struct sst_capture *c, const uint8_t *hdr, uint32_t hdr_len, const struct rte_mbuf *m,
	uint64_t ts, enum sst_capture_dir dir)
{
	uint32_t wire = hdr_len + rte_pktmbuf_pkt_len(m);
	uint32_t cap = RTE_MIN(wire, c->snaplen);
	uint32_t flags = (uint32_t)dir;
	uint8_t *start = reserve(c, BLOCK_OVERHEAD + EPB_FIXED + pad4(cap) + EPB_OPTIONS);
	uint8_t *p = start + 8, *data;

	p = put32(p, 0); /* the one interface */
	p = put32(p, (uint32_t)(ts >> 32));
	p = put32(p, (uint32_t)ts);
	p = put32(p, cap);
	p = put32(p, wire);
	data = p;
	hdr_len = RTE_MIN(hdr_len, cap);
	if (hdr_len > 0)
		memcpy(p, hdr, hdr_len);
	p = copy_mbuf(p + hdr_len, m, cap - hdr_len);
	memset(p, 0, pad4(cap) - cap);
	p = data + pad4(cap);
	p = put_opt(p, PCAPNG_EPB_FLAGS, &flags, 4);
	p = put_opt(p, PCAPNG_OPT_END, NULL, 0);
	block_finish(c, start, p, PCAPNG_EPB);
	c->stats.packets++;
	c->stats.bytes += wire;
	c->buffered++;
	c->buffered_bytes += wire;
}

void
sst_capture_frames(
	struct sst_capture *c, struct rte_mbuf *const *pkts, uint16_t n, enum sst_capture_dir dir)
{
	uint64_t ts = now_ns();

	for (uint16_t i = 0; i < n; i++)
		write_packet(c, NULL, 0, pkts[i], ts, dir);
}

/* The UDP checksum over the pseudo-header (phdr, already summed), the UDP
 * header and the payload in m: receivers of a real datagram would check
 * it, and a capture reader may too. */
static rte_be16_t
udp_cksum(uint16_t phdr, const struct rte_udp_hdr *uh, const struct rte_mbuf *m)
{
	uint16_t payload = 0;
	uint32_t sum;

	sst_net_cksum_mbuf(m, 0, rte_pktmbuf_pkt_len(m), &payload);
	sum = (uint32_t)phdr + rte_raw_cksum(uh, sizeof(*uh)) + payload;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (~sum) & 0xffff;
	/* The sums were of network-order words read in host order: the
	 * result goes into the header as it is. */
	return (rte_be16_t)(sum == 0 ? 0xffff : sum);
}

/* Made-up headers for a datagram from src to dst. @return their length, or
 * 0 when none can describe it. */
static uint32_t
dgram_headers(uint8_t *hdr, const struct rte_mbuf *m, const struct sst_net_endpoint *src,
	const struct sst_net_endpoint *dst, bool out)
{
	/* Locally administered addresses: ours ends in 1, the peer's in 2. */
	static const struct rte_ether_addr mac_local = {{0x02, 0, 0, 0, 0, 1}};
	static const struct rte_ether_addr mac_peer = {{0x02, 0, 0, 0, 0, 2}};
	struct rte_ether_hdr eh;
	uint32_t len = rte_pktmbuf_pkt_len(m) + (uint32_t)sizeof(struct rte_udp_hdr);
	struct rte_udp_hdr uh = {.src_port = rte_cpu_to_be_16(src->port),
		.dst_port = rte_cpu_to_be_16(dst->port),
		.dgram_len = rte_cpu_to_be_16((uint16_t)len)};
	uint32_t off = RTE_ETHER_HDR_LEN;

	rte_ether_addr_copy(out ? &mac_peer : &mac_local, &eh.dst_addr);
	rte_ether_addr_copy(out ? &mac_local : &mac_peer, &eh.src_addr);
	if (dst->addr.family == SST_NET_IPV4) {
		struct rte_ipv4_hdr ip = {.version_ihl = RTE_IPV4_VHL_DEF,
			.total_length = rte_cpu_to_be_16((uint16_t)(len + sizeof(ip))),
			.fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG),
			.time_to_live = 64,
			.next_proto_id = IPPROTO_UDP};

		if (len + sizeof(ip) > UINT16_MAX)
			return 0;
		memcpy(&ip.src_addr, src->addr.bytes, 4);
		memcpy(&ip.dst_addr, dst->addr.bytes, 4);
		ip.hdr_checksum = rte_ipv4_cksum(&ip);
		uh.dgram_cksum = udp_cksum(rte_ipv4_phdr_cksum(&ip, 0), &uh, m);
		eh.ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		memcpy(hdr + off, &ip, sizeof(ip));
		off += sizeof(ip);
	} else {
		struct rte_ipv6_hdr ip = {.vtc_flow = rte_cpu_to_be_32(6u << 28),
			.payload_len = rte_cpu_to_be_16((uint16_t)len),
			.proto = IPPROTO_UDP,
			.hop_limits = 64};

		if (len > UINT16_MAX)
			return 0;
		memcpy(ip.src_addr, src->addr.bytes, 16);
		memcpy(ip.dst_addr, dst->addr.bytes, 16);
		uh.dgram_cksum = udp_cksum(rte_ipv6_phdr_cksum(&ip, 0), &uh, m);
		eh.ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
		memcpy(hdr + off, &ip, sizeof(ip));
		off += sizeof(ip);
	}
	memcpy(hdr, &eh, sizeof(eh));
	memcpy(hdr + off, &uh, sizeof(uh));
	return off + (uint32_t)sizeof(uh);
}

void
sst_capture_datagrams(struct sst_capture *c, struct rte_mbuf *const *pkts,
	const struct sst_net_endpoint *peers, uint16_t n, enum sst_capture_dir dir,
	const struct sst_net_endpoint *local)
{
	uint64_t ts = now_ns();
	uint8_t hdr[DGRAM_HDR_MAX];

	for (uint16_t i = 0; i < n; i++) {
		const struct sst_net_endpoint *peer = &peers[i];
		struct sst_net_endpoint me = {.addr.family = peer->addr.family};
		bool out = dir == SST_CAPTURE_OUT;
		uint32_t hdr_len = 0;

		if (local != NULL && local->addr.family == peer->addr.family)
			me = *local;
		else if (local != NULL)
			me.port = local->port;
		if (peer->addr.family == SST_NET_IPV4 || peer->addr.family == SST_NET_IPV6)
			hdr_len = dgram_headers(
				hdr, pkts[i], out ? &me : peer, out ? peer : &me, out);
		if (hdr_len == 0) {
			c->stats.drops++;
			continue;
		}
		write_packet(c, hdr, hdr_len, pkts[i], ts, dir);
	}
}

int
sst_capture_close(struct sst_capture *c)
{
	uint64_t ts, recv, drop;
	uint8_t *start, *p;
	int rc;

	if (c == NULL)
		return 0;
	/* Interface statistics: what reached the capture and what it lost. */
	ts = now_ns();
	recv = c->stats.packets + c->stats.drops;
	drop = c->stats.drops;
	start = reserve(c, 64);
	p = put32(start + 8, 0);
	p = put32(p, (uint32_t)(ts >> 32));
	p = put32(p, (uint32_t)ts);
	p = put_opt(p, PCAPNG_ISB_IFRECV, &recv, 8);
	p = put_opt(p, PCAPNG_ISB_IFDROP, &drop, 8);
	p = put_opt(p, PCAPNG_OPT_END, NULL, 0);
	block_finish(c, start, p, PCAPNG_ISB);
	rc = sst_capture_flush(c);
	if (close(c->fd) != 0 && rc == 0)
		rc = -errno;
	rte_free(c);
	return rc;
}

const struct sst_capture_stats *
sst_capture_stats(const struct sst_capture *c)
{
	return &c->stats;
}
