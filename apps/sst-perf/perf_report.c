/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-perf, the reports: one progress line per second on stderr and the
 * final table (or one JSON object) on stdout. docs/tools/sst-perf.md says
 * what every figure means and how it is measured.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "perf_client.h"

/* Bytes acknowledged so far, bulk: finished streams plus what the live ones
 * had acknowledged. */
static uint64_t
bulk_acked(struct perf_client *cl)
{
	uint64_t acked = 0;

	for (uint32_t i = 0; i < cl->nflows; i++) {
		struct cli_flow *f = &cl->flows[i];
		struct sst_stream_info info;

		if (f->s == NULL) {
			acked += f->tx_off;
			continue;
		}
		sst_stream_info(f->s, &info);
		acked += info.tx_offset - info.tx_unacked;
	}
	return acked;
}

void
perf_progress(struct perf_client *cl, sst_time_t now)
{
	double t = (double)(now - cl->t_start) / 1e9;
	struct tool_counters c;

	tool_host_counters(cl->h, &c);
	switch (cl->conf->mode) {
	case PERF_BULK: {
		uint64_t acked = bulk_acked(cl);

		fprintf(stderr,
			"[%6.2f s] %10.1f Mbit/s acknowledged, %" PRIu64 " bytes in all, %" PRIu64
			" retransmits\n",
			t, (double)(acked - cl->prog_bytes) * 8 / 1e6, acked,
			c.segments_retx - cl->c0.segments_retx);
		cl->prog_bytes = acked;
		break;
	}
	case PERF_RR:
		fprintf(stderr, "[%6.2f s] %10" PRIu64 " transactions/s, %" PRIu64 " in all\n", t,
			cl->finished - cl->prog_count, cl->finished);
		cl->prog_count = cl->finished;
		break;
	case PERF_DGRAM:
		fprintf(stderr, "[%6.2f s] %10" PRIu64 " datagrams/s sent, %" PRIu64 " in all\n", t,
			cl->started - cl->prog_count, cl->started);
		cl->prog_count = cl->started;
		break;
	case PERF_STREAMS: {
		/* Rates over the time since the last line, so a stall shows as
		 * 0/s however long the run. */
		double dt = now > cl->prog_t ? (double)(now - cl->prog_t) / 1e9 : 1.0;

		fprintf(stderr,
			"[%6.2f s] %" PRIu64 " of %u streams opened (%.0f/s), %" PRIu64
			" answered (%.0f/s), %" PRIu64 " finished (%.0f/s), %" PRIu64
			" live here, %" PRIu64 " retransmits\n",
			t, cl->started, cl->nflows, (double)(cl->started - cl->prog_count) / dt,
			cl->answered, (double)(cl->answered - cl->prog_answered) / dt, cl->finished,
			(double)(cl->finished - cl->prog_finished) / dt, c.streams_live,
			c.segments_retx - cl->c0.segments_retx);
		cl->prog_count = cl->started;
		cl->prog_answered = cl->answered;
		cl->prog_finished = cl->finished;
		break;
	}
	default:
		break;
	}
	cl->prog_t = now;
}

/* The figures of a finished test. */
struct summary {
	double secs;
	uint64_t payload;
	double goodput_mbps;
	uint64_t transactions;
	double rate; /* transactions or streams per second */
	uint64_t p50, p99, p999, samples;
	uint64_t retx, packets, cycles;
	double cyc_byte, cyc_pkt;
	uint64_t verify_errors, failures;
	uint64_t dg_sent, dg_received, dg_packets, dg_substreams;
	uint64_t peak_live_client, peak_live_server;
	uint64_t channels_made, channels_replaced; /**< this side's, since it started */
};

static void
summarize(const struct perf_client *cl, struct summary *s)
{
	const struct perf_conf *c = cl->conf;
	const struct perf_result *r = &cl->r;
	uint64_t span;

	memset(s, 0, sizeof(*s));
	s->secs = (double)(cl->t_end - cl->t_start) / 1e9;
	s->payload = r->rx_bytes + cl->rx_bytes;
	/* Bulk and dgram: the rate at which the receiver got its bytes. */
	span = (c->mode == PERF_BULK || c->mode == PERF_DGRAM) ? r->rx_span_ns : 0;
	if (span != 0)
		s->goodput_mbps = (double)r->rx_bytes * 8 / (double)span * 1e3;
	else if (s->secs > 0)
		s->goodput_mbps = (double)s->payload * 8 / s->secs / 1e6;
	if (perf_mode_transactions(c->mode)) {
		s->transactions = cl->finished;
		s->rate = s->secs > 0 ? (double)cl->finished / s->secs : 0;
	} else if (c->mode == PERF_STREAMS && cl->t_answered > cl->t_start) {
		s->transactions = cl->answered;
		s->rate = (double)cl->answered / ((double)(cl->t_answered - cl->t_start) / 1e9);
	}
	s->samples = cl->hist->n;
	s->p50 = perf_hist_quantile(cl->hist, 0.50);
	s->p99 = perf_hist_quantile(cl->hist, 0.99);
	s->p999 = perf_hist_quantile(cl->hist, 0.999);
	s->retx = cl->c1.segments_retx - cl->c0.segments_retx + r->segments_retx;
	s->channels_made = cl->c1.channels_made;
	s->channels_replaced = cl->c1.channels_replaced;
	s->packets = cl->c1.link_tx_packets - cl->c0.link_tx_packets + r->tx_packets;
	s->cycles = cl->tsc1 - cl->tsc0 + r->cycles;
	s->cyc_byte = s->payload != 0 ? (double)s->cycles / (double)s->payload : 0;
	s->cyc_pkt = s->packets != 0 ? (double)s->cycles / (double)s->packets : 0;
	s->verify_errors = cl->verify_errors + r->verify_errors;
	s->failures = cl->failures + r->streams_failed;
	if (c->mode == PERF_DGRAM) {
		uint64_t opened = cl->c1.streams_opened - cl->c0.streams_opened;

		s->dg_sent = cl->started;
		s->dg_received = r->dgrams;
		/* The data stream itself is one of the streams opened; the
		 * others are datagrams sent as reliable ephemeral substreams. */
		s->dg_substreams = opened > 0 ? opened - 1 : 0;
		s->dg_packets = cl->c1.datagrams_tx - cl->c0.datagrams_tx - s->dg_substreams;
	}
	s->peak_live_client = cl->peak_live;
	s->peak_live_server = r->peak_live;
}

static void
us(char *buf, size_t len, uint64_t ns, bool have)
{
	if (have)
		snprintf(buf, len, "%.1f", (double)ns / 1e3);
	else
		snprintf(buf, len, "-");
}

static void
print_table(const struct perf_client *cl, const struct summary *s, const char *link)
{
	const struct perf_conf *c = cl->conf;
	char a[32], b[32], d[32];
	bool lat = s->samples > 0;

	printf("sst-perf %s over %s\n", perf_mode_names[c->mode], link);
	printf("  armor %s, cc %s, %u stream%s%s, verify %s\n", c->armor_name,
		c->cc != NULL ? c->cc : "newreno", cl->nflows, cl->nflows == 1 ? "" : "s",
		c->mode == PERF_RR ? " in flight" : "", c->verify ? "on" : "off");
	printf("  %-22s %.3f s\n", "duration", s->secs);
	printf("  %-22s %" PRIu64 " bytes\n", "payload delivered", s->payload);
	printf("  %-22s %.1f Mbit/s\n", "goodput", s->goodput_mbps);
	if (perf_mode_transactions(c->mode))
		printf("  %-22s %" PRIu64 " (%.0f/s)\n", "transactions", s->transactions, s->rate);
	else if (c->mode == PERF_STREAMS)
		printf("  %-22s %" PRIu64 " (%.0f/s), peak live %" PRIu64 " client, %" PRIu64
		       " server\n",
			"streams answered", s->transactions, s->rate, s->peak_live_client,
			s->peak_live_server);
	else
		printf("  %-22s -\n", "transactions/s");
	us(a, sizeof(a), s->p50, lat);
	us(b, sizeof(b), s->p99, lat);
	us(d, sizeof(d), s->p999, lat);
	printf("  %-22s %s / %s / %s us (%" PRIu64 " samples)\n", "latency p50/p99/p999", a, b, d,
		s->samples);
	if (c->mode == PERF_DGRAM)
		printf("  %-22s %" PRIu64 " sent, %" PRIu64 " received (%.2f%%); sent as %" PRIu64
		       " datagram packets, %" PRIu64 " reliable substreams\n",
			"datagrams", s->dg_sent, s->dg_received,
			s->dg_sent ? 100.0 * (double)s->dg_received / (double)s->dg_sent : 0.0,
			s->dg_packets, s->dg_substreams);
	printf("  %-22s %" PRIu64 " segments\n", "retransmits", s->retx);
	printf("  %-22s %" PRIu64 " made, %" PRIu64 " replacements asked (client side)\n",
		"channels", s->channels_made, s->channels_replaced);
	printf("  %-22s %" PRIu64 "\n", "packets", s->packets);
	printf("  %-22s %.2f\n", "cycles/byte", s->cyc_byte);
	printf("  %-22s %.0f\n", "cycles/packet", s->cyc_pkt);
	printf("  %-22s %" PRIu64 "\n", "verify errors", s->verify_errors);
	printf("  %-22s %" PRIu64 "\n", "failed streams", s->failures);
	printf("  %-22s %s%s\n", "result", cl->failed ? "FAILED: " : "",
		cl->failed			      ? cl->error
		: s->verify_errors + s->failures != 0 ? "errors"
						      : "ok");
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void
json_str(const char *v)
{
	putchar('"');
	for (; *v != '\0'; v++) {
		if (*v == '"' || *v == '\\')
			printf("\\%c", *v);
		else if ((unsigned char)*v < 0x20)
			printf("\\u%04x", (unsigned int)(unsigned char)*v);
		else
			putchar(*v);
	}
	putchar('"');
}

static void
print_json(const struct perf_client *cl, const struct summary *s, const char *link)
{
	const struct perf_conf *c = cl->conf;

	printf("{\"mode\":\"%s\",\"link\":", perf_mode_names[c->mode]);
	json_str(link);
	printf(",\"armor\":\"%s\",\"cc\":\"%s\",\"streams\":%u,"
	       "\"verify\":%s,\"seconds\":%.6f,\"payload_bytes\":%" PRIu64
	       ",\"goodput_mbps\":%.3f,\"transactions\":%" PRIu64 ",\"rate_per_s\":%.3f,",
		c->armor_name, c->cc != NULL ? c->cc : "newreno", cl->nflows,
		c->verify ? "true" : "false", s->secs, s->payload, s->goodput_mbps, s->transactions,
		s->rate);
	printf("\"latency_us\":{\"samples\":%" PRIu64 ",\"p50\":%.3f,\"p99\":%.3f,\"p999\":%.3f},",
		s->samples, (double)s->p50 / 1e3, (double)s->p99 / 1e3, (double)s->p999 / 1e3);
	printf("\"channels_made\":%" PRIu64 ",\"channels_replaced\":%" PRIu64 ",", s->channels_made,
		s->channels_replaced);
	printf("\"retransmits\":%" PRIu64 ",\"packets\":%" PRIu64 ",\"cycles\":%" PRIu64
	       ",\"cycles_per_byte\":%.4f,\"cycles_per_packet\":%.1f,\"tsc_hz\":%" PRIu64 ",",
		s->retx, s->packets, s->cycles, s->cyc_byte, s->cyc_pkt, rte_get_tsc_hz());
	if (c->mode == PERF_DGRAM)
		printf("\"datagrams\":{\"sent\":%" PRIu64 ",\"received\":%" PRIu64
		       ",\"delivery_ratio\":%.6f,\"as_packets\":%" PRIu64
		       ",\"as_substreams\":%" PRIu64 "},",
			s->dg_sent, s->dg_received,
			s->dg_sent ? (double)s->dg_received / (double)s->dg_sent : 0.0,
			s->dg_packets, s->dg_substreams);
	if (c->mode == PERF_STREAMS)
		printf("\"peak_live\":{\"client\":%" PRIu64 ",\"server\":%" PRIu64 "},",
			s->peak_live_client, s->peak_live_server);
	printf("\"verify_errors\":%" PRIu64 ",\"failed_streams\":%" PRIu64 ",\"ok\":%s,\"error\":",
		s->verify_errors, s->failures,
		!cl->failed && s->verify_errors + s->failures == 0 ? "true" : "false");
	json_str(cl->failed ? cl->error : "");
	printf("}\n");
}

/*
 * Datagrams that went as Datagram packets may be lost like any packet;
 * those that went as reliable substreams must all arrive. The server
 * counts both kinds together, so more missing than went unreliably means
 * reliable ones were lost: the run fails.
 */
static void
check_dgrams(struct perf_client *cl, const struct summary *s)
{
	uint64_t missing = s->dg_sent > s->dg_received ? s->dg_sent - s->dg_received : 0;

	if (cl->conf->mode != PERF_DGRAM || cl->failed || missing <= s->dg_packets)
		return;
	cl->failed = true;
	snprintf(cl->error, sizeof(cl->error),
		"%" PRIu64 " of %" PRIu64 " reliable datagrams (sent as substreams) not delivered",
		missing - s->dg_packets, s->dg_substreams);
}

int
perf_client_report(struct perf_client *cl, const char *link_desc)
{
	struct summary s;

	summarize(cl, &s);
	check_dgrams(cl, &s);
	if (cl->conf->json)
		print_json(cl, &s, link_desc);
	else
		print_table(cl, &s, link_desc);
	fflush(stdout);
	if (cl->failed) {
		fprintf(stderr, "sst-perf: %s\n", cl->error);
		return 1;
	}
	if (s.verify_errors != 0 || s.failures != 0) {
		fprintf(stderr, "sst-perf: %" PRIu64 " verify errors, %" PRIu64 " failed streams\n",
			s.verify_errors, s.failures);
		return 1;
	}
	return 0;
}
