/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sst-gen client: a worker per lcore (issue 21). The channels are split
 * into shards, one per worker of the port's engine (the channels whose
 * pair of endpoints that worker owns: it connects them, its queue gets
 * their packets), and each shard holds everything its channels' data path
 * changes (struct gen_shard), so that workers on lcores of their own share
 * nothing and take no lock. The main lcore then only watches: once a
 * second it reads the totals each worker publishes (relaxed atomics, as
 * the engine's telemetry reads its counters) for the per-second line, and
 * when every worker says it is done it stops them and merges their
 * figures for the final table.
 *
 * When the EAL gives fewer worker lcores than --workers, every worker is
 * polled in turn by the main thread (each still running its own shard), as
 * before; over kernel UDP there is one shard and every channel's worker is
 * polled by the main thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_launch.h>
#include <rte_lcore.h>

#include "gen_client.h"
#include "tool_args.h"

enum {
	/* How often a worker on an lcore publishes its totals: well inside
	 * the per-second lines, rare enough to cost nothing. */
	PUBLISH_NS = 5 * 1000 * 1000,
};

/* Which shard makes channel i: the worker that owns its pair of endpoints
 * (--port), else the one shard. */
static uint16_t
shard_of(struct gen_client *g, uint32_t i)
{
	struct sst_net_endpoint src;
	int owner;

	if (g->e == NULL)
		return 0;
	gen_source_of(g->c, i, &src);
	owner = gen_port_owner(g, &src);
	return owner >= 0 ? (uint16_t)owner : 0;
}

static int
shards_split(struct gen_client *g)
{
	uint16_t *owner = malloc(sizeof(*owner) * (g->nch != 0 ? g->nch : 1));

	if (owner == NULL)
		return -1;
	for (uint32_t i = 0; i < g->nch; i++) {
		owner[i] = shard_of(g, i);
		g->sh[owner[i]].nchans++;
	}
	for (uint16_t k = 0; k < g->nsh; k++) {
		g->sh[k].chans = malloc(sizeof(uint32_t) * (g->sh[k].nchans + 1));
		if (g->sh[k].chans == NULL) {
			free(owner);
			return -1;
		}
		g->sh[k].nchans = 0;
	}
	for (uint32_t i = 0; i < g->nch; i++) {
		struct gen_shard *sh = &g->sh[owner[i]];

		sh->chans[sh->nchans++] = i;
		g->ch[i].sh = sh;
	}
	free(owner);
	return 0;
}

int
gen_shards_init(struct gen_client *g)
{
	const struct gen_conf *c = g->c;
	unsigned int spare = rte_lcore_count() - 1;
	size_t size;

	g->nsh = g->e != NULL ? g->nw : 1;
	size = sizeof(*g->sh) * g->nsh;
	g->sh = aligned_alloc(alignof(struct gen_shard), size);
	if (g->sh == NULL)
		goto nomem;
	memset(g->sh, 0, size);
	for (uint16_t k = 0; k < g->nsh; k++) {
		g->sh[k].g = g;
		g->sh[k].index = k;
		/* Shard 0 draws what one worker drew: a run can be repeated. */
		g->sh[k].rng = c->seed + k * 0x9e3779b97f4a7c15ull;
		g->sh[k].clock = g->clock;
	}
	if (shards_split(g) < 0)
		goto nomem;
	for (uint16_t k = 0; k < g->nsh; k++)
		if (gen_active_init(&g->sh[k], g->e != NULL) < 0)
			goto nomem;
	if (g->e == NULL)
		return 0;
	g->on_lcores = spare >= g->nw;
	if (!g->on_lcores && g->nw > 1 && !c->quiet)
		fprintf(stderr,
			"sst-gen: %u workers, %u worker lcore%s: all polled by the main thread "
			"(the EAL's -l or --lcores with %u lcores gives each its own)\n",
			g->nw, spare, spare == 1 ? "" : "s", g->nw + 1u);
	if (g->on_lcores && c->sst_perf && g->nw > 1) {
		/* One control stream serves every channel (gen_perf.c): its
		 * state would be shared by the lcores. */
		fprintf(stderr, "sst-gen: --sst-perf runs on one worker, or on one thread "
				"(fewer lcores than --workers)\n");
		return -1;
	}
	return 0;
nomem:
	fprintf(stderr, "sst-gen: no memory for the workers' shares of %u channels\n", g->nch);
	return -1;
}

void
gen_shards_fini(struct gen_client *g)
{
	for (uint16_t k = 0; g->sh != NULL && k < g->nsh; k++) {
		gen_active_fini(&g->sh[k]);
		free(g->sh[k].chans);
	}
	free(g->sh);
	g->sh = NULL;
	g->nsh = 0;
}

/* The figures of a port worker's queue, into the shard's totals (on the
 * worker's thread, or once it stopped). */
static void
shard_links(struct gen_shard *sh)
{
	const struct sst_link_stats *ls =
		sst_worker_link_stats(sst_engine_worker(sh->g->e, sh->index));

	sh->tot.tx_pkts = ls->tx_packets;
	sh->tot.rx_pkts = ls->rx_packets;
	sh->tot.tx_bytes = ls->tx_bytes;
	sh->tot.rx_bytes = ls->rx_bytes;
}

static void
shard_publish(struct gen_shard *sh, sst_time_t now)
{
	uint64_t words[GEN_TOTALS_WORDS];

	shard_links(sh);
	memcpy(words, &sh->tot, sizeof(words));
	for (uint32_t i = 0; i < GEN_TOTALS_WORDS; i++)
		atomic_store_explicit(&sh->pub[i], words[i], memory_order_relaxed);
	if (sh->t_done == 0 && gen_shard_done(sh))
		sh->t_done = now;
	/* Release: the totals above are there when the main lcore sees it. */
	atomic_store_explicit(&sh->pub_done_at, sh->t_done, memory_order_release);
	sh->next_publish = now + PUBLISH_NS;
}

void
gen_shard_pass(struct gen_shard *sh, sst_time_t now)
{
	struct gen_client *g = sh->g;

	if (!atomic_load_explicit(&g->stopping, memory_order_relaxed))
		gen_connect_more(sh, now);
	/* The stream-slot attack holds its streams open instead of running
	 * the workload; it runs with one worker (main.c), one shard. */
	if (g->c->attack == GEN_ATTACK_STREAM_SLOTS)
		gen_attack_slots_poll_all(g, now); /* gen_attack.c */
	else
		gen_active_poll(sh, now);
	if (g->on_lcores && now >= sh->next_publish)
		shard_publish(sh, now);
}

void
gen_shards_merge(struct gen_client *g, bool published, bool final)
{
	uint64_t sum[GEN_TOTALS_WORDS] = {0};

	for (uint16_t k = 0; k < g->nsh; k++) {
		struct gen_shard *sh = &g->sh[k];
		uint64_t words[GEN_TOTALS_WORDS];

		if (published) {
			for (uint32_t i = 0; i < GEN_TOTALS_WORDS; i++)
				words[i] = atomic_load_explicit(&sh->pub[i], memory_order_relaxed);
		} else {
			if (g->e != NULL)
				shard_links(sh);
			memcpy(words, &sh->tot, sizeof(words));
		}
		for (uint32_t i = 0; i < GEN_TOTALS_WORDS; i++)
			sum[i] += words[i];
	}
	memcpy(&g->tot, sum, sizeof(sum));
	/* A channel counts up once (never down): the peak is the sum. */
	g->peak_up = RTE_MAX(g->peak_up, g->tot.up);
	if (!final)
		return;
	memset(&g->setup, 0, sizeof(g->setup));
	memset(&g->txn, 0, sizeof(g->txn));
	g->clock.stamped = g->clock.unstamped = 0;
	for (uint16_t k = 0; k < g->nsh; k++) {
		gen_hist_merge(&g->setup, &g->sh[k].setup);
		gen_hist_merge(&g->txn, &g->sh[k].txn);
		g->clock.stamped += g->sh[k].clock.stamped;
		g->clock.unstamped += g->sh[k].clock.unstamped;
	}
}

bool
gen_shards_done(struct gen_client *g, sst_time_t *t_done)
{
	sst_time_t last = 0;

	for (uint16_t k = 0; k < g->nsh; k++) {
		sst_time_t at;

		if (!g->on_lcores) {
			if (!gen_shard_done(&g->sh[k]))
				return false;
			continue;
		}
		at = atomic_load_explicit(&g->sh[k].pub_done_at, memory_order_acquire);
		if (at == 0)
			return false;
		last = RTE_MAX(last, at);
	}
	*t_done = g->on_lcores ? last : tool_now();
	return true;
}

/* A worker's lcore: its passes (the shard's share in its app_poll) until
 * the main lcore says halt. */
static int
shard_loop(void *arg)
{
	struct gen_shard *sh = arg;
	struct gen_client *g = sh->g;

	while (!atomic_load_explicit(&g->halt, memory_order_acquire))
		sst_engine_poll_at(g->e, sh->index, tool_now());
	return 0;
}

int
gen_lcores_launch(struct gen_client *g)
{
	unsigned int lcore;
	uint16_t k = 0;

	atomic_store(&g->halt, false);
	RTE_LCORE_FOREACH_WORKER(lcore)
	{
		int rc;

		if (k == g->nsh)
			break;
		rc = rte_eal_remote_launch(shard_loop, &g->sh[k], lcore);
		if (rc < 0) {
			fprintf(stderr, "sst-gen: worker %u on lcore %u: %s\n", k, lcore,
				strerror(-rc));
			gen_lcores_join(g);
			return -1;
		}
		g->sh[k].lcore = lcore;
		g->sh[k].launched = true;
		k++;
	}
	return 0;
}

void
gen_lcores_join(struct gen_client *g)
{
	atomic_store_explicit(&g->halt, true, memory_order_release);
	for (uint16_t k = 0; k < g->nsh; k++)
		if (g->sh[k].launched) {
			rte_eal_wait_lcore(g->sh[k].lcore);
			g->sh[k].launched = false;
		}
}
