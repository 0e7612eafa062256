/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the bpf driver shows (docs/stp.md, "Telemetry"): the process's
 * totals (/sst/cc_bpf), each module of the cache with its identity, its
 * execution mode and its revocation's reason (/sst/cc_bpf_modules), and,
 * through the stp_info op, what one channel's module and policer are
 * (the engine's /sst/channel). Telemetry reads the modules' atomic
 * counters; a channel's state is read by its worker only.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_telemetry.h>

#include "cc_bpf_module.h"
#include "tel_table.h"

void
cc_bpf_totals(struct cc_bpf_totals *t)
{
	unsigned int count = atomic_load_explicit(&cc_bpf_count, memory_order_acquire);

	memset(t, 0, sizeof(*t));
	t->modules = count;
	for (unsigned int i = 0; i < count; i++) {
		const struct cc_bpf_module *m = &cc_bpf_cache[i];
		unsigned int why = atomic_load_explicit(&m->revoked, memory_order_relaxed);

		t->revoked += why != SST_CC_STP_REVOKE_NONE;
		t->revoked_policer += why == SST_CC_STP_REVOKE_POLICER;
		t->revoked_budget += why == SST_CC_STP_REVOKE_BUDGET;
		t->violations += atomic_load_explicit(&m->violations, memory_order_relaxed);
		t->fallbacks += atomic_load_explicit(&m->fallbacks, memory_order_relaxed);
		t->budget_overruns += atomic_load_explicit(&m->overruns, memory_order_relaxed);
	}
	t->refused_elf =
		atomic_load_explicit(&cc_bpf_refused[CC_BPF_REFUSED_ELF], memory_order_relaxed);
	t->refused_verifier = atomic_load_explicit(
		&cc_bpf_refused[CC_BPF_REFUSED_VERIFIER], memory_order_relaxed);
	t->refused_rte_bpf =
		atomic_load_explicit(&cc_bpf_refused[CC_BPF_REFUSED_RTE_BPF], memory_order_relaxed);
	t->refused_revoked =
		atomic_load_explicit(&cc_bpf_refused[CC_BPF_REFUSED_REVOKED], memory_order_relaxed);
}

unsigned int
cc_bpf_revoke_reason(const struct sst_cc_ops *ops)
{
	return atomic_load_explicit(
		&((const struct cc_bpf_module *)ops)->revoked, memory_order_relaxed);
}

int
cc_bpf_stp_info(const struct sst_cc *cc, struct sst_cc_stp_info *info)
{
	const struct cc_bpf_module *m = (const struct cc_bpf_module *)cc->ops;
	const struct cc_bpf_state *st = (const struct cc_bpf_state *)cc->priv;

	memset(info, 0, sizeof(*info));
	memcpy(info->hash, m->hash, sizeof(info->hash));
	info->native = m->native;
	info->policed = m->policed;
	info->revoked = (uint8_t)atomic_load_explicit(&m->revoked, memory_order_relaxed);
	info->policer_state = st->pol.state;
	info->loss_rate_ppm = sst_policer_loss_rate_ppm(&st->pol);
	info->policer_rate = sst_policer_rate(&st->pol);
	info->policer_window = sst_policer_window(&st->pol);
	info->calls = st->calls;
	info->budget_overruns = st->overruns;
	info->budget = m->budget;
	return 0;
}

static int
cc_bpf_telemetry(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct cc_bpf_totals t;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	cc_bpf_totals(&t);
	const struct sst_tel_u64 rows[] = {
		{"modules", t.modules},
		{"revoked", t.revoked},
		{"violations", t.violations},
		{"fallbacks", t.fallbacks},
		{"revoked_policer", t.revoked_policer},
		{"revoked_budget", t.revoked_budget},
		{"budget_overruns", t.budget_overruns},
		{"refused_elf", t.refused_elf},
		{"refused_verifier", t.refused_verifier},
		{"refused_rte_bpf", t.refused_rte_bpf},
		{"refused_revoked", t.refused_revoked},
	};

	rte_tel_data_start_dict(d);
	return sst_tel_dict_u64(d, rows, RTE_DIM(rows));
}

/* One module of /sst/cc_bpf_modules; NULL when out of memory. */
static struct rte_tel_data *
cc_bpf_module_dict(const struct cc_bpf_module *m)
{
	struct rte_tel_data *d = rte_tel_data_alloc();
	char hex[2 * CC_BPF_HASH_LEN + 1];
	const struct sst_tel_u64 rows[] = {
		{"violations", atomic_load_explicit(&m->violations, memory_order_relaxed)},
		{"fallbacks", atomic_load_explicit(&m->fallbacks, memory_order_relaxed)},
		{"budget_overruns", atomic_load_explicit(&m->overruns, memory_order_relaxed)},
		{"budget_cycles", m->budget},
		{"policed", m->policed},
	};

	const struct sst_tel_str strs[] = {
		{"name", m->ops.name},
		{"hash", hex},
		{"exec", m->native ? "jit" : "interpreter"},
		{"revoked", sst_cc_stp_revoke_name(
				    atomic_load_explicit(&m->revoked, memory_order_relaxed))},
	};

	if (d == NULL)
		return NULL;
	sodium_bin2hex(hex, sizeof(hex), m->hash, sizeof(m->hash));
	rte_tel_data_start_dict(d);
	sst_tel_dict_str(d, strs, RTE_DIM(strs));
	sst_tel_dict_u64(d, rows, RTE_DIM(rows));
	return d;
}

static int
cc_bpf_telemetry_modules(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int count = atomic_load_explicit(&cc_bpf_count, memory_order_acquire);

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_dict(d);
	for (unsigned int i = 0; i < count; i++) {
		const struct cc_bpf_module *m = &cc_bpf_cache[i];
		struct rte_tel_data *md = cc_bpf_module_dict(m);
		char key[2 * SST_CC_NAME_MAX];

		/* Keyed by the module's name with '_' for ":#" (a telemetry key
		 * is letters, digits and '_'): bpf_<9 hex digits>, bpfi_... */
		snprintf(key, sizeof(key), "%s_%s", m->jit ? "bpf" : "bpfi",
			strchr(m->ops.name, '#') + 1);
		if (md != NULL && rte_tel_data_add_dict_container(d, key, md, 0) < 0)
			rte_tel_data_free(md);
	}
	return 0;
}

void
cc_bpf_telemetry_register(void)
{
	/* DPDK refuses a help text of RTE_TEL_MAX_STRING_LEN (128) or more: a
	 * longer one left the command unregistered. */
	if (rte_telemetry_register_cmd("/sst/cc_bpf", cc_bpf_telemetry,
		    "eBPF CC modules: loaded, revoked (by reason), policer verdicts, "
		    "budget overruns, refusals, fallbacks. No parameters") != 0)
		CC_BPF_LOG(ERR, "cannot register /sst/cc_bpf");
	if (rte_telemetry_register_cmd("/sst/cc_bpf_modules", cc_bpf_telemetry_modules,
		    "Each eBPF CC module loaded: hash, jit or interpreter, revoked and why, "
		    "counters. No parameters") != 0)
		CC_BPF_LOG(ERR, "cannot register /sst/cc_bpf_modules");
}
