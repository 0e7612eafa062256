/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-dump: decode SST traffic in pcap/pcapng captures, one line (or one JSON
 * object) per packet, and verify every packet's armor with the keys learned
 * from the negotiation or given on the command line. See docs/tools/sst-dump.md.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_capture.h"
#include "dump_print.h"
#include "dump_session.h"

enum { MAX_AES_KEYS = 64 };

static void
usage(FILE *out)
{
	fprintf(out,
		"Usage: sst-dump [OPTIONS] CAPTURE...\n"
		"\n"
		"Decode Structured Stream Transport (SST) packets in pcap or pcapng captures and\n"
		"check their trailers. Several captures are read in order as one session, so keys\n"
		"negotiated in the first file verify the packets of the following ones.\n"
		"\n"
		"Options:\n"
		"  -p, --port PORT      UDP port of SST traffic, either side (default 8661)\n"
		"  -v, --verify         exit with status 1 unless every SST packet decodes and "
		"every\n"
		"                       channel packet's trailer verifies; the last line printed "
		"is\n"
		"                       'verified N/M packets' (on stderr with --json)\n"
		"  -j, --json           one JSON object per packet, then a summary object\n"
		"  -q, --quiet          print only malformed or unverified packets and the "
		"summary\n"
		"  -k, --chk-key SRC,DST,CHAN,KEY\n"
		"                       checksum key (8 hex digits) of packets from SRC to DST "
		"that\n"
		"                       carry channel number CHAN, for captures that miss the\n"
		"                       negotiation; SRC and DST are ADDR:PORT ([ADDR]:PORT for "
		"IPv6)\n"
		"  -a, --aes-key SRC,DST,CHAN,AESKEY,MACKEY\n"
		"                       keys of the original prototype's AES-128-CTR + "
		"HMAC-SHA-256\n"
		"                       armor for one direction (32 and 64 hex digits)\n"
		"  -h, --help           show this help\n"
		"\n"
		"Each packet line shows: frame, time, source > destination, then for channel\n"
		"packets the channel byte, the full sequence number, the acknowledged range, the\n"
		"stream header (type, SID, RefSID, TSN, flags, window), the payload length, what\n"
		"the payload means where known (service request/reply, Attach USIDs) and the\n"
		"trailer check; for negotiation packets every chunk with its fields.\n"
		"\n"
		"Exit status: 0 on success, 1 when --verify finds a packet that does not decode "
		"or\n"
		"verify, 2 for bad arguments or unreadable captures.\n");
}

static int
parse_hex(const char *s, uint8_t *out, size_t n)
{
	if (strlen(s) != 2 * n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned int byte;

		if (sscanf(s + 2 * i, "%2x", &byte) != 1)
			return -1;
		out[i] = (uint8_t)byte;
	}
	return 0;
}

/* Split "SRC,DST,CHAN,rest" and find (or make) the flow it names. */
static struct dump_flow *
parse_flow_spec(struct dump_session *s, char *spec, char **rest)
{
	char *src = strtok(spec, ","), *dst = strtok(NULL, ","), *chan = strtok(NULL, ",");
	struct dump_endpoint a, b;
	unsigned long c;
	char *end;

	*rest = strtok(NULL, "");
	if (src == NULL || dst == NULL || chan == NULL || *rest == NULL)
		return NULL;
	if (dump_endpoint_parse(src, &a) < 0 || dump_endpoint_parse(dst, &b) < 0)
		return NULL;
	errno = 0;
	c = strtoul(chan, &end, 10);
	if (errno != 0 || *end != '\0' || c < 1 || c > 255)
		return NULL;
	return dump_flow_get(s, &a, &b, (uint8_t)c);
}

static int
add_chk_key(struct dump_session *s, char *spec)
{
	uint8_t k[4];
	char *rest;
	struct dump_flow *f = parse_flow_spec(s, spec, &rest);

	if (f == NULL || parse_hex(rest, k, sizeof(k)) < 0)
		return -1;
	f->has_chk = true;
	f->chk_key = (uint32_t)k[0] << 24 | (uint32_t)k[1] << 16 | (uint32_t)k[2] << 8 | k[3];
	return 0;
}

static int
add_aes_key(struct dump_session *s, char *spec, struct dump_aes_keys *slot)
{
	uint8_t aes[DUMP_AES_KEY_LEN], mac[DUMP_AES_MAC_KEY_LEN];
	char *rest, *mac_hex;
	struct dump_flow *f = parse_flow_spec(s, spec, &rest);

	if (f == NULL)
		return -1;
	mac_hex = strchr(rest, ',');
	if (mac_hex == NULL)
		return -1;
	*mac_hex++ = '\0';
	if (parse_hex(rest, aes, sizeof(aes)) < 0 || parse_hex(mac_hex, mac, sizeof(mac)) < 0)
		return -1;
	if (dump_aes_init() < 0 || dump_aes_keys_set(slot, aes, mac) < 0)
		return -1;
	f->has_aes = true;
	f->aes = slot;
	return 0;
}

static void
print_summary(
	FILE *out, bool json, const struct dump_session *s, const struct dump_capture_stats *cs)
{
	const struct dump_counters *c = &s->count;

	if (json) {
		fprintf(out,
			"{\"summary\":{\"frames\":%" PRIu64 ",\"udp\":%" PRIu64 ",\"sst\":%" PRIu64
			",\"negotiation\":%" PRIu64 ",\"channel\":%" PRIu64 ",\"verified\":%" PRIu64
			",\"bad_trailer\":%" PRIu64 ",\"no_key\":%" PRIu64 ",\"malformed\":%" PRIu64
			",\"other_udp\":%" PRIu64 ",\"fragments\":%" PRIu64 "}}\n",
			cs->frames, cs->udp, c->sst, c->negotiation, c->channel, c->verified,
			c->bad_trailer, c->no_key, c->malformed, c->not_sst,
			cs->skipped[DUMP_SKIP_FRAGMENT]);
		return;
	}
	fprintf(out,
		"frames %" PRIu64 ", UDP %" PRIu64 ", SST %" PRIu64 " (%" PRIu64
		" negotiation, %" PRIu64 " channel, %" PRIu64 " other control), malformed %" PRIu64
		", other UDP %" PRIu64 ", IP fragments %" PRIu64 "\n",
		cs->frames, cs->udp, c->sst, c->negotiation, c->channel, c->other_control,
		c->malformed, c->not_sst, cs->skipped[DUMP_SKIP_FRAGMENT]);
	fprintf(out, "trailers: %" PRIu64 " ok, %" PRIu64 " bad, %" PRIu64 " without a key\n",
		c->verified, c->bad_trailer, c->no_key);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"port", required_argument, NULL, 'p'},
		{"verify", no_argument, NULL, 'v'},
		{"json", no_argument, NULL, 'j'},
		{"quiet", no_argument, NULL, 'q'},
		{"chk-key", required_argument, NULL, 'k'},
		{"aes-key", required_argument, NULL, 'a'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static struct dump_session session;
	static struct dump_aes_keys aes_keys[MAX_AES_KEYS];
	struct dump_printer printer = {stdout, false, false};
	struct dump_capture_stats cstats;
	unsigned int naes = 0;
	bool verify = false, ok;
	double time_base = 0;
	char err[512];
	int opt, status = 0;

	session.port = SST_UDP_PORT;
	while ((opt = getopt_long(argc, argv, "p:vjqk:a:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p': {
			char *end;
			unsigned long port;

			errno = 0;
			port = strtoul(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || port == 0 || port > 65535) {
				fprintf(stderr, "sst-dump: bad port '%s' (1-65535)\n", optarg);
				return 2;
			}
			session.port = (uint16_t)port;
			break;
		}
		case 'v':
			verify = true;
			break;
		case 'j':
			printer.json = true;
			break;
		case 'q':
			printer.quiet = true;
			break;
		case 'k':
			if (add_chk_key(&session, optarg) < 0) {
				fprintf(stderr,
					"sst-dump: bad --chk-key (want SRC,DST,CHAN,8HEX)\n");
				return 2;
			}
			break;
		case 'a':
			if (naes == MAX_AES_KEYS ||
				add_aes_key(&session, optarg, &aes_keys[naes++]) < 0) {
				fprintf(stderr,
					"sst-dump: bad --aes-key (want "
					"SRC,DST,CHAN,32HEX,64HEX) or crypto setup failed\n");
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind == argc) {
		fprintf(stderr, "sst-dump: no capture file given (try --help)\n");
		return 2;
	}

	session.emit = dump_print_record;
	session.emit_arg = &printer;
	memset(&cstats, 0, sizeof(cstats));
	for (int i = optind; i < argc; i++) {
		session.file = argv[i];
		if (!printer.json && !printer.quiet && argc - optind > 1)
			printf("== %s\n", argv[i]);
		if (dump_capture_read(argv[i], dump_session_datagram, &session, &cstats, &time_base,
			    err, sizeof(err)) < 0) {
			fflush(stdout);
			fprintf(stderr, "sst-dump: %s\n", err);
			status = 2;
		}
	}
	dump_aes_fini();
	fflush(stdout);
	print_summary(stdout, printer.json, &session, &cstats);
	ok = status == 0 && session.count.malformed == 0 &&
	     session.count.verified == session.count.channel;
	if (verify) {
		fprintf(printer.json ? stderr : stdout,
			"verified %" PRIu64 "/%" PRIu64 " packets\n", session.count.verified,
			session.count.channel);
		if (!ok && status == 0)
			status = 1;
	}
	return status;
}
