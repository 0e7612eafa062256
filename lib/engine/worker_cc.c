/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What lib/stp needs of the worker (sst_worker.h): a peer's proven
 * identity for the policy, and moving the peer's channels to a module it
 * shipped. Both scan the worker's channels: control-plane calls, once per
 * exchange, never on the data path. And what telemetry shows of the
 * untrusted controllers the worker runs (worker_stp.h): its counters, each
 * channel's module and policer, each peer's module.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <sodium.h>

#include "sst_cc_driver.h"
#include "sst_cc_stp.h"
#include "sst_channel.h"
#include "sst_policer.h"
#include "worker_internal.h"
#include "worker_stp.h"

static bool
chan_live(const struct worker_chan *wc)
{
	return wc->state == CHAN_LIVE || wc->state == CHAN_REPLACE_WANTED ||
	       wc->state == CHAN_REPLACING;
}

const uint8_t *
sst_worker_peer_identity(const struct sst_worker *w, const struct sst_stream_peer *sp)
{
	for (uint32_t i = 0; i < w->nchans; i++)
		if (w->chans[i]->peer != NULL && w->chans[i]->peer->sp == sp)
			return w->chans[i]->peer->id;
	return NULL;
}

int
sst_worker_peer_set_cc(struct sst_worker *w, const struct sst_stream_peer *sp,
	const struct sst_cc_ops *ops, sst_time_t now)
{
	int moved = 0;

	for (uint32_t i = 0; i < w->nchans; i++) {
		struct worker_chan *wc = w->chans[i];
		struct sst_channel *ch;
		struct sst_channel_info ci;

		if (wc->peer == NULL || wc->peer->sp != sp || !chan_live(wc))
			continue;
		ch = sst_stream_chan_channel(wc->sc);
		/* A channel already on it keeps its state (the module's scratch,
		 * its policer): asked again when a replacement channel came up,
		 * only the new channel moves. */
		sst_channel_info(ch, &ci);
		if (ops != NULL && ci.cc != NULL && strcmp(ci.cc, ops->name) == 0)
			continue;
		if (sst_channel_set_cc(ch, ops, now) == 0)
			moved++;
	}
	return moved > 0 ? moved : -ENOENT;
}

uint32_t
worker_stp_rows(const struct sst_worker *w, struct sst_tel_u64 rows[WORKER_STP_ROWS])
{
	const struct sst_cc_stp_stats *s = &w->stp;
	const struct sst_tel_u64 own[WORKER_STP_ROWS] = {
		{"stp_loads", s->loads},
		{"stp_refused_elf", s->refused_elf},
		{"stp_refused_verifier", s->refused_verifier},
		{"stp_refused_rte_bpf", s->refused_rte_bpf},
		{"stp_refused_revoked", s->refused_revoked},
		{"stp_revoked_policer", s->revoked_policer},
		{"stp_revoked_budget", s->revoked_budget},
		{"stp_budget_overruns", s->budget_overruns},
		{"stp_fallbacks", s->fallbacks},
	};

	memcpy(rows, own, sizeof(own));
	return WORKER_STP_ROWS;
}

static const char *
policer_state_name(const struct sst_cc_stp_info *in)
{
	static const char *const names[] = {
		[SST_POLICER_INIT] = "init",
		[SST_POLICER_SLOWSTART] = "slowstart",
		[SST_POLICER_STEADY] = "steady",
	};

	if (!in->policed)
		return "off";
	return in->policer_state < RTE_DIM(names) ? names[in->policer_state] : "?";
}

void
worker_stp_channel(const struct sst_channel *ch, struct worker_stp_chan *out)
{
	struct sst_cc_stp_info in;

	memset(out, 0, sizeof(*out));
	if (sst_cc_stp_info(sst_channel_cc(ch), &in) != 0)
		return;
	out->module = true;
	sodium_bin2hex(out->hash, sizeof(out->hash), in.hash, sizeof(in.hash));
	out->exec = in.native ? "jit" : "interpreter";
	out->policer = policer_state_name(&in);
	out->revoked = sst_cc_stp_revoke_name(in.revoked);
	const struct sst_tel_u64 rows[] = {
		{"stp_policer_rate", in.policer_rate},
		{"stp_policer_window", in.policer_window},
		{"stp_loss_rate_ppm", in.loss_rate_ppm},
		{"stp_calls", in.calls},
		{"stp_budget_overruns", in.budget_overruns},
		{"stp_budget_cycles", in.budget},
	};

	static_assert(RTE_DIM(rows) <= WORKER_STP_CHAN_ROWS, "rows of a channel");
	memcpy(out->rows, rows, sizeof(rows));
	out->nrows = RTE_DIM(rows);
}

/* Add wc's controller to its peer's entry @p pe. */
static void
stp_peer_add(struct worker_stp_peer *pe, const struct worker_chan *wc)
{
	const struct sst_channel *ch = sst_stream_chan_channel(wc->sc);
	struct sst_channel_info ci;
	struct sst_cc_stp_info in;

	pe->channels++;
	if (sst_cc_stp_info(sst_channel_cc(ch), &in) != 0)
		return;
	sst_channel_info(ch, &ci);
	if (pe->on_module++ == 0) {
		snprintf(pe->cc, sizeof(pe->cc), "%s", ci.cc != NULL ? ci.cc : "?");
		sodium_bin2hex(pe->hash, sizeof(pe->hash), in.hash, sizeof(in.hash));
		pe->exec = in.native ? "jit" : "interpreter";
		pe->revoked = sst_cc_stp_revoke_name(in.revoked);
	}
	if (in.policed && in.policer_state < RTE_DIM(pe->policer))
		pe->policer[in.policer_state]++;
	pe->calls += in.calls;
	pe->overruns += in.budget_overruns;
}

uint32_t
worker_stp_peers(
	const struct sst_worker *w, uint32_t from, struct worker_stp_peer *out, uint32_t *next)
{
	uint32_t n = 0;

	*next = 0;
	for (uint32_t i = from; i < w->nchans; i++) {
		const struct worker_chan *wc = w->chans[i];
		const struct worker_peer *p = wc->peer;
		struct worker_stp_peer *pe;

		/* Each peer once: at its first channel. */
		if (p == NULL || TAILQ_FIRST(&p->chans) != wc)
			continue;
		if (n == WORKER_STP_PEERS_PAGE) {
			*next = i;
			break;
		}
		pe = &out[n++];
		memset(pe, 0, sizeof(*pe));
		pe->first = wc;
		pe->index = i;
		pe->exec = "";
		pe->revoked = "";
		sodium_bin2hex(pe->id, sizeof(pe->id), p->id, sizeof(p->id));
		for (const struct worker_chan *c = wc; c != NULL; c = TAILQ_NEXT(c, peer_link))
			stp_peer_add(pe, c);
		if (pe->on_module == 0) {
			struct sst_channel_info ci;

			sst_channel_info(sst_stream_chan_channel(wc->sc), &ci);
			snprintf(pe->cc, sizeof(pe->cc), "%s", ci.cc != NULL ? ci.cc : "?");
		}
	}
	return n;
}
