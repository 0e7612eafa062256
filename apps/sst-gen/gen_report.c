/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen client reports: a line a second on stderr (rates over that
 * second), and at the end a table on stdout or, with --json, one JSON
 * object. Exit status 1 when any stream failed, any byte was wrong or any
 * channel never came up.
 */
#include <stdio.h>

#include "gen_client.h"
#include "tool_args.h"

static double
per_s(uint64_t now, uint64_t before, double secs)
{
	return secs > 0 ? (double)(now - before) / secs : 0;
}

void
gen_report_second(struct gen_client *g, sst_time_t now)
{
	const struct gen_totals *t = &g->tot, *p = &g->at_line;
	double secs = (double)(now - g->last_line) / 1e9;

	g->seconds++;
	if (!g->c->quiet && !g->c->json)
		fprintf(stderr,
			"sst-gen: %3us tx %.3f Mpps %.3f Gbit/s rx %.3f Mpps %.3f Gbit/s | "
			"channels up %llu, setups/s %.0f, streams/s %.0f, txn/s %.0f | errors: "
			"setup %llu, streams %llu, bytes %llu\n",
			g->seconds, per_s(t->tx_pkts, p->tx_pkts, secs) / 1e6,
			per_s(t->tx_bytes, p->tx_bytes, secs) * 8 / 1e9,
			per_s(t->rx_pkts, p->rx_pkts, secs) / 1e6,
			per_s(t->rx_bytes, p->rx_bytes, secs) * 8 / 1e9, (unsigned long long)t->up,
			per_s(t->setups, p->setups, secs), per_s(t->streams, p->streams, secs),
			per_s(t->txns, p->txns, secs), (unsigned long long)t->setup_failed,
			(unsigned long long)t->stream_failed, (unsigned long long)t->verify_errors);
	if (!g->c->quiet && !g->c->json && !gen_workloads_all(g->c, GEN_WL_RR))
		fprintf(stderr,
			"sst-gen: %3us payload sent %.3f Gbit/s, verified %.3f Gbit/s | "
			"datagrams/s "
			"sent %.0f, echoed %.0f | datagrams lost %llu, bad %llu\n",
			g->seconds, per_s(t->payload_tx, p->payload_tx, secs) * 8 / 1e9,
			per_s(t->payload_ok, p->payload_ok, secs) * 8 / 1e9,
			per_s(t->dg_sent, p->dg_sent, secs),
			per_s(t->dg_echoed, p->dg_echoed, secs), (unsigned long long)t->dg_lost,
			(unsigned long long)t->dg_bad);
	g->at_line = *t;
	g->last_line = now;
}

void
gen_life_add(struct gen_life *l, const struct sst_worker *w)
{
	const struct sst_worker_stats *ws = sst_worker_stats(w);
	const struct sst_nego_stats *n = sst_worker_nego_stats(w);

	l->made += ws->channels_made;
	l->open += ws->channels_open;
	l->replaced += ws->channels_replaced;
	l->silences += ws->silences;
	l->dead_peers += ws->dead_peers;
	l->unheard += ws->channels_unheard;
	l->i1 += n->rx_i1 + n->rx_sec_i1;
	l->i1_duplicate += n->rx_i1_duplicate + n->rx_sec_i1_duplicate;
	l->i1_conflict += n->rx_i1_conflict + n->rx_sec_i1_conflict;
	l->i1_refused += n->rx_i1_refused_full + n->rx_i1_no_channel + n->rx_i1_refused +
			 n->rx_sec_i1_refused;
	l->established += n->established_initiator + n->established_responder;
	l->tx_drops += sst_worker_link_stats(w)->tx_full + sst_worker_link_stats(w)->tx_errors;
	l->handed += ws->handoff_out;
	l->handoff_full += ws->handoff_full;
}

void
gen_life_print(const char *who, const struct gen_life *l)
{
	fprintf(stderr,
		"sst-gen %s channels: made %llu, open %llu, replaced %llu, silences %llu, dead "
		"peers %llu, unheard %llu; first messages %llu (duplicates %llu, conflicts %llu, "
		"refused %llu), negotiated %llu; packets the link dropped %llu; handed to "
		"another worker %llu (inbox full %llu)\n",
		who, (unsigned long long)l->made, (unsigned long long)l->open,
		(unsigned long long)l->replaced, (unsigned long long)l->silences,
		(unsigned long long)l->dead_peers, (unsigned long long)l->unheard,
		(unsigned long long)l->i1, (unsigned long long)l->i1_duplicate,
		(unsigned long long)l->i1_conflict, (unsigned long long)l->i1_refused,
		(unsigned long long)l->established, (unsigned long long)l->tx_drops,
		(unsigned long long)l->handed, (unsigned long long)l->handoff_full);
}

/* How the client's channels came and went (the server's line tells its
 * side): a replaced or dead channel is one more the server makes. */
void
gen_client_life(const struct gen_client *g)
{
	struct gen_life l = {0};

	for (uint16_t i = 0; i < g->nw; i++)
		gen_life_add(&l, sst_engine_worker(g->e, i));
	for (uint32_t i = 0; g->e == NULL && i < g->next_connect; i++)
		if (g->ch[i].w != NULL)
			gen_life_add(&l, g->ch[i].w);
	gen_life_print("client", &l);
}

static void
json_hist(const char *name, const struct gen_hist *h, bool comma)
{
	printf("  \"%s_ns\": {\"count\": %llu, \"p50\": %llu, \"p99\": %llu, \"p999\": %llu, "
	       "\"max\": %llu, \"mean\": %.0f}%s\n",
		name, (unsigned long long)h->n, (unsigned long long)gen_hist_quantile(h, 0.5),
		(unsigned long long)gen_hist_quantile(h, 0.99),
		(unsigned long long)gen_hist_quantile(h, 0.999), (unsigned long long)h->max,
		h->n != 0 ? (double)h->sum / (double)h->n : 0.0, comma ? "," : "");
}

static void
table_hist(const char *name, const struct gen_hist *h)
{
	printf("%-22s n %llu, p50 %.1f us, p99 %.1f us, p999 %.1f us, max %.1f us\n", name,
		(unsigned long long)h->n, (double)gen_hist_quantile(h, 0.5) / 1e3,
		(double)gen_hist_quantile(h, 0.99) / 1e3, (double)gen_hist_quantile(h, 0.999) / 1e3,
		(double)h->max / 1e3);
}

/* --port: the channels worker i of the port's engine made. */
static uint64_t
worker_channels(const struct gen_client *g, uint16_t i)
{
	return sst_worker_stats(sst_engine_worker(g->e, i))->channels_made;
}

static const char *const workload_names[] = {"rr", "bulk", "datagram"};

/* The workloads' kind, or "mix" for a profile of several kinds. */
static const char *
workload_name(const struct gen_conf *c)
{
	for (uint32_t i = 1; i < c->nwl; i++)
		if (c->wl[i].kind != c->wl[0].kind)
			return "mix";
	return workload_names[c->wl[0].kind];
}

/* The payload (every workload) and the datagrams' fate. */
static void
workload_json(const struct gen_client *g, double secs)
{
	const struct gen_totals *t = &g->tot;

	printf("  \"workload\": \"%s\", \"payload_tx_bytes\": %llu, \"payload_ok_bytes\": %llu, "
	       "\"payload_ok_gbps\": %.6f,\n",
		workload_name(g->c), (unsigned long long)t->payload_tx,
		(unsigned long long)t->payload_ok,
		secs > 0 ? (double)t->payload_ok * 8 / secs / 1e9 : 0);
	if (gen_workloads_any(g->c, GEN_WL_DATAGRAM))
		printf("  \"datagrams_sent\": %llu, \"datagrams_echoed\": %llu, "
		       "\"datagrams_lost\": %llu, \"datagrams_bad\": %llu, "
		       "\"datagrams_refused\": %llu,\n",
			(unsigned long long)t->dg_sent, (unsigned long long)t->dg_echoed,
			(unsigned long long)t->dg_lost, (unsigned long long)t->dg_bad,
			(unsigned long long)t->dg_refused);
}

static void
workload_table(const struct gen_client *g, double secs)
{
	const struct gen_totals *t = &g->tot;

	printf("%-22s %s: %llu B sent, %llu B verified, %.3f Gbit/s verified\n", "payload",
		workload_name(g->c), (unsigned long long)t->payload_tx,
		(unsigned long long)t->payload_ok,
		secs > 0 ? (double)t->payload_ok * 8 / secs / 1e9 : 0);
	if (gen_workloads_any(g->c, GEN_WL_DATAGRAM))
		printf("%-22s %llu sent, %llu echoed, %llu lost, %llu bad (%llu refused by the "
		       "stack, sent again)\n",
			"datagrams", (unsigned long long)t->dg_sent,
			(unsigned long long)t->dg_echoed, (unsigned long long)t->dg_lost,
			(unsigned long long)t->dg_bad, (unsigned long long)t->dg_refused);
}

int
gen_report_final(struct gen_client *g)
{
	const struct gen_conf *c = g->c;
	const struct gen_totals *t = &g->tot;
	double secs = (double)(g->t_end - g->t_start) / 1e9;
	uint64_t up = g->peak_up != 0 ? g->peak_up : 1;
	double mem = g->rss_peak > g->rss0 ? (double)(g->rss_peak - g->rss0) / (double)up : 0;
	char server[80];
	bool dgram = gen_workloads_any(c, GEN_WL_DATAGRAM);
	bool ok = t->setup_failed == 0 && t->stream_failed == 0 && t->verify_errors == 0 &&
		  t->setups == g->nch && t->txns > 0;
	/* Under attack, failed streams are the target defending itself. */
	if (c->attack != GEN_ATTACK_NONE)
		ok = t->verify_errors == 0 && t->setups > 0;
	if (c->sst_perf)
		ok = ok && gen_perf_agrees(g);
	/* Datagrams may be lost (counted); a wrong one fails the run. */
	if (gen_workloads_any(c, GEN_WL_DATAGRAM))
		ok = ok && t->dg_bad == 0 && t->dg_echoed > 0;

	tool_endpoint_text(&c->server, server, sizeof(server));
	if (c->json) {
		printf("{\n  \"server\": \"%s\", \"armor\": \"%s\", \"seconds\": %.3f,\n", server,
			c->armor_name, secs);
		printf("  \"channels\": %u, \"channels_up_peak\": %llu, \"setups\": %llu, "
		       "\"setup_failed\": %llu,\n",
			g->nch, (unsigned long long)g->peak_up, (unsigned long long)t->setups,
			(unsigned long long)t->setup_failed);
		printf("  \"streams\": %llu, \"transactions\": %llu, \"stream_failed\": %llu, "
		       "\"verify_errors\": %llu, \"short_responses\": %llu, \"refused\": %llu,\n",
			(unsigned long long)t->streams, (unsigned long long)t->txns,
			(unsigned long long)t->stream_failed, (unsigned long long)t->verify_errors,
			(unsigned long long)t->short_responses, (unsigned long long)t->refused);
		printf("  \"setups_per_s\": %.1f, \"txn_per_s\": %.1f,\n",
			secs > 0 ? (double)t->setups / secs : 0,
			secs > 0 ? (double)t->txns / secs : 0);
		printf("  \"tx_packets\": %llu, \"rx_packets\": %llu, \"tx_bytes\": %llu, "
		       "\"rx_bytes\": %llu,\n",
			(unsigned long long)t->tx_pkts, (unsigned long long)t->rx_pkts,
			(unsigned long long)t->tx_bytes, (unsigned long long)t->rx_bytes);
		printf("  \"rss_bytes_start\": %llu, \"rss_bytes_peak\": %llu, "
		       "\"bytes_per_channel\": %.0f,\n",
			(unsigned long long)g->rss0, (unsigned long long)g->rss_peak, mem);
		if (g->nw != 0) {
			/* --port: the channels each worker made (its shard). */
			printf("  \"worker_channels\": [");
			for (uint16_t i = 0; i < g->nw; i++)
				printf("%s%llu", i != 0 ? ", " : "",
					(unsigned long long)worker_channels(g, i));
			printf("],\n");
		}
		if (g->on_lcores) {
			printf("  \"worker_lcores\": [");
			for (uint16_t i = 0; i < g->nsh; i++)
				printf("%s%u", i != 0 ? ", " : "", g->sh[i].lcore);
			printf("],\n");
		}
		workload_json(g, secs);
		json_hist("setup", &g->setup, true);
		json_hist(dgram ? "datagram_rtt" : "transaction", &g->txn, true);
		gen_clock_report(&g->clock, true);
		gen_attack_report(g, true);
		gen_perf_report(g, true);
		printf("  \"ok\": %s\n}\n", ok ? "true" : "false");
	} else {
		printf("sst-gen client: %u channels to %s (%s), %.2f s\n", g->nch, server,
			c->armor_name, secs);
		printf("%-22s %llu up (peak %llu at once), %llu failed, %.1f/s\n", "channels",
			(unsigned long long)t->setups, (unsigned long long)g->peak_up,
			(unsigned long long)t->setup_failed,
			secs > 0 ? (double)t->setups / secs : 0);
		printf("%-22s %llu opened, %llu verified, %llu failed (%llu short), %.1f txn/s\n",
			"streams", (unsigned long long)t->streams, (unsigned long long)t->txns,
			(unsigned long long)t->stream_failed,
			(unsigned long long)t->short_responses,
			secs > 0 ? (double)t->txns / secs : 0);
		printf("%-22s %llu\n", "bytes not as expected",
			(unsigned long long)t->verify_errors);
		printf("%-22s %llu (opened again)\n", "refused by the server",
			(unsigned long long)t->refused);
		printf("%-22s tx %llu pkts %llu B, rx %llu pkts %llu B\n", "link",
			(unsigned long long)t->tx_pkts, (unsigned long long)t->tx_bytes,
			(unsigned long long)t->rx_pkts, (unsigned long long)t->rx_bytes);
		for (uint16_t i = 0; i < g->nw; i++) {
			printf("%-22s %llu channels made", i == 0 ? "channels per worker" : "",
				(unsigned long long)worker_channels(g, i));
			if (g->on_lcores)
				printf(" (lcore %u)", g->sh[i].lcore);
			printf("\n");
		}
		workload_table(g, secs);
		table_hist("setup latency", &g->setup);
		table_hist(dgram ? "datagram round trip" : "transaction latency", &g->txn);
		printf("%-22s %.1f MB at start, %.1f MB peak, %.1f kB per channel\n",
			"memory (RSS)", (double)g->rss0 / 1e6, (double)g->rss_peak / 1e6,
			mem / 1e3);
		gen_clock_report(&g->clock, false);
		gen_attack_report(g, false);
		gen_perf_report(g, false);
		printf("%-22s %s\n", "result", ok ? "ok" : "FAILED");
	}
	return ok ? 0 : 1;
}
