/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen template mode: the frames to replay. Generated ones are
 * Ethernet/IPv4/UDP around:
 * - data: a checksum-mode channel packet (docs/wire-format.md 2-4): channel
 *   header, a Data segment of stream 1 with --size bytes, Chk32 trailer;
 * - chki1, seci1: first handshake messages, made by a negotiation host of
 *   our own (the public sst_nego_connect(), its transmit callback catching
 *   what it sends), one per channel number and peer, so that the flood
 *   carries 256 distinct keys or ephemeral keys as a real crowd would;
 * - garbage: random bytes (byte 0 nonzero: not a control packet);
 * - truncated: data packets cut short inside their headers.
 * A capture's frames (libpcap) are replayed as they are, their IPv4/UDP
 * ones with addresses and ports varied like generated ones.
 */
#include <string.h>

#include <pcap/pcap.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>
#include <sodium.h>

#include "gen_template.h"
#include "sst_chk32.h"
#include "sst_negotiation.h"
#include "sst_secure.h"

enum { HANDSHAKES = 256, CHAN_HDR = 8, DATA_HDR = 8 };

/* Ethernet, IPv4 and UDP headers for a payload of len bytes (checksums are
 * filled per packet). */
static void
headers(const struct gen_conf *c, struct gen_frame *f, uint16_t len)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)f->bytes;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f->bytes + GEN_L2_LEN);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(f->bytes + GEN_UDP_OFF);

	memset(&eth->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
	/* A locally administered source, as testpmd's txonly uses. */
	memcpy(&eth->src_addr, "\x02\x00\x00\x00\x00\x01", RTE_ETHER_ADDR_LEN);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = 0;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(GEN_L3_LEN + GEN_L4_LEN + len));
	ip->packet_id = 0;
	ip->fragment_offset = 0;
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->hdr_checksum = 0;
	memcpy(&ip->src_addr, c->tmpl_src.addr.bytes, 4);
	memcpy(&ip->dst_addr, c->tmpl_dst.addr.bytes, 4);
	udp->src_port = rte_cpu_to_be_16(c->tmpl_src.port);
	udp->dst_port = rte_cpu_to_be_16(c->tmpl_dst.port);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(GEN_L4_LEN + len));
	udp->dgram_cksum = 0;
	f->len = (uint16_t)(GEN_PAYLOAD_OFF + len);
	f->kind = GEN_FRAME_UDP;
}

/* A checksum-mode Data segment of stream 1 (sequence number and trailer
 * are set per packet). @return the UDP payload length. */
static uint16_t
data_payload(uint8_t *p, uint32_t size)
{
	uint32_t len = CHAN_HDR + DATA_HDR + size;

	memset(p, 0, CHAN_HDR);
	p[0] = 1; /* the receiver's channel number */
	/* Stream header: SID 1, type Data (3), Push, window 0; offset 0. */
	p[8] = 0;
	p[9] = 1;
	p[10] = 3 << 4 | 0x4;
	p[11] = 0;
	memset(p + 12, 0, 4);
	for (uint32_t i = 0; i < size; i++)
		p[CHAN_HDR + DATA_HDR + i] = (uint8_t)i;
	return (uint16_t)(len + SST_CHK32_TRAILER_LEN);
}

/* Negotiation: what the flood's handshakes are made with. */
struct catcher {
	struct gen_frames *fr;
	const struct gen_conf *c;
};

static void
catch_transmit(
	void *ctx, const struct sst_nego_addr *to, const void *msg, size_t len, sst_time_t now)
{
	struct catcher *k = ctx;
	struct gen_frame *f;

	(void)to;
	(void)now;
	if (k->fr->n == GEN_TEMPLATES_MAX || len + GEN_PAYLOAD_OFF > GEN_FRAME_MAX)
		return;
	f = &k->fr->f[k->fr->n++];
	headers(k->c, f, (uint16_t)len);
	memcpy(f->bytes + GEN_PAYLOAD_OFF, msg, len);
}

static int
catch_alloc(void *ctx, const struct sst_nego_addr *peer)
{
	(void)ctx;
	return 1 + peer->bytes[0] % 255;
}

static void
catch_free(void *ctx, const struct sst_nego_addr *peer, uint8_t chan)
{
	(void)ctx;
	(void)peer;
	(void)chan;
}

static int
catch_established(void *ctx, const struct sst_nego_result *r, sst_time_t now)
{
	(void)ctx;
	(void)r;
	(void)now;
	return -EPERM;
}

static const struct sst_nego_ops catch_ops = {
	.transmit = catch_transmit,
	.chan_alloc = catch_alloc,
	.chan_free = catch_free,
	.established = catch_established,
};

static int
handshakes(const struct gen_conf *c, struct gen_frames *fr, bool secure)
{
	struct catcher k = {.fr = fr, .c = c};
	struct sst_secure_config sec = {.size = sizeof(sec)};
	struct sst_nego_host_params p = {.size = sizeof(p)};
	struct sst_nego_host *h;

	randombytes_buf(p.secret, sizeof(p.secret));
	p.ulp_caps = SST_NEGO_CAP_ALL;
	p.max_initiating = HANDSHAKES;
	p.ops = &catch_ops;
	p.ctx = &k;
	if (secure) {
		sec.policy = SST_SECURE_TOFU;
		sec.allow_anonymous = true;
		sec.random = sst_secure_random_sodium;
		sst_secure_suites_default(&sec, true, true);
		p.secure = &sec;
	}
	h = sst_nego_host_create(&p);
	sodium_memzero(p.secret, sizeof(p.secret));
	if (h == NULL) {
		fprintf(stderr, "sst-gen: cannot create a negotiation host\n");
		return -1;
	}
	/* Each attempt to another (made-up) peer: a key and channel of its own. */
	for (uint32_t i = 0; i < HANDSHAKES; i++) {
		struct sst_nego_addr a = {.len = 6};

		a.bytes[0] = (uint8_t)i;
		a.bytes[1] = (uint8_t)(i >> 8);
		sst_nego_connect(h, &a, secure ? SST_NEGO_MODE_SECURE : SST_NEGO_MODE_CHECKSUM,
			(sst_time_t)i + 1);
	}
	sst_nego_host_destroy(h);
	return fr->n > 0 ? 0 : -1;
}

static int
from_pcap(const struct gen_conf *c, struct gen_frames *fr)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(c->pcap, err);
	struct pcap_pkthdr *hdr;
	const u_char *data;

	if (pc == NULL) {
		fprintf(stderr, "sst-gen: %s: %s\n", c->pcap, err);
		return -1;
	}
	if (pcap_datalink(pc) != DLT_EN10MB) {
		fprintf(stderr, "sst-gen: %s: not an Ethernet capture\n", c->pcap);
		pcap_close(pc);
		return -1;
	}
	while (fr->n < GEN_TEMPLATES_MAX && pcap_next_ex(pc, &hdr, &data) == 1) {
		struct gen_frame *f = &fr->f[fr->n];
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(data + GEN_L2_LEN);

		if (hdr->caplen != hdr->len || hdr->caplen > GEN_FRAME_MAX || hdr->caplen < 14)
			continue; /* cut by the capture's snap length, or too large */
		memcpy(f->bytes, data, hdr->caplen);
		f->len = (uint16_t)hdr->caplen;
		f->kind = GEN_FRAME_RAW;
		/* Plain IPv4 (no options) over UDP: varied like generated frames. */
		if (hdr->caplen >= GEN_PAYLOAD_OFF &&
			((const struct rte_ether_hdr *)data)->ether_type ==
				rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) &&
			ip->version_ihl == RTE_IPV4_VHL_DEF && ip->next_proto_id == IPPROTO_UDP)
			f->kind = GEN_FRAME_UDP;
		fr->n++;
	}
	pcap_close(pc);
	if (fr->n == 0) {
		fprintf(stderr, "sst-gen: %s: no frame to replay\n", c->pcap);
		return -1;
	}
	return 0;
}

static int
build(const struct gen_conf *c, struct gen_frames *fr)
{
	uint64_t rng = c->seed;

	fr->n = 0;
	fr->chk_key = (uint32_t)gen_rand(&rng);
	if (c->pcap != NULL)
		return from_pcap(c, fr);
	if (strcmp(c->template, "chki1") == 0 || strcmp(c->template, "seci1") == 0)
		return handshakes(c, fr, c->template[0] == 's');
	if (strcmp(c->template, "garbage") == 0) {
		for (uint32_t i = 0; i < 256; i++) {
			struct gen_frame *f = &fr->f[fr->n++];
			uint16_t len = (uint16_t)(1 + gen_rand(&rng) % (c->pkt_size + 64));

			headers(c, f, len);
			for (uint16_t b = 0; b < len; b++)
				f->bytes[GEN_PAYLOAD_OFF + b] = (uint8_t)gen_rand(&rng);
			f->bytes[GEN_PAYLOAD_OFF] |= 1;
		}
		return 0;
	}
	/* data, truncated */
	for (uint32_t i = 0; i < (c->template[0] == 't' ? 15u : 1u); i++) {
		struct gen_frame *f = &fr->f[fr->n++];
		uint16_t len = data_payload(f->bytes + GEN_PAYLOAD_OFF, c->pkt_size);

		if (c->template[0] == 't') {
			/* 1 to 15 bytes: inside the channel or the stream header. */
			headers(c, f, (uint16_t)(i + 1));
			continue;
		}
		headers(c, f, len);
		f->kind = GEN_FRAME_CHANNEL;
	}
	return 0;
}

int
gen_frames_build(const struct gen_conf *c, struct gen_frames *fr)
{
	if (build(c, fr) < 0)
		return -1;
	for (uint32_t i = 0; i < fr->n; i++)
		if (gen_frame_prepare(&fr->f[i], fr->chk_key) < 0) {
			fprintf(stderr, "sst-gen: template %u: incremental checksums disagree\n",
				i);
			return -1;
		}
	/* One channel template: its bursts may take the vector kernel. */
	if (fr->n == 1 && fr->f[0].kind == GEN_FRAME_CHANNEL &&
		gen_frame_check_vec(&fr->f[0], fr->chk_key) < 0) {
		fprintf(stderr, "sst-gen: template 0: vector and scalar fields disagree\n");
		return -1;
	}
	return 0;
}
