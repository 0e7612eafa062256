/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion control as untrusted eBPF code (STP, docs/stp.md): the
 * "bpf:FILE.o" controllers. A module is loaded once per process and
 * execution mode into a fixed cache keyed by the BLAKE2b-256 of its ELF
 * image; its ops table lives in the cache entry, so a channel's cc->ops
 * leads back to the module without any per-channel pointer.
 *
 * On every event the driver copies the channel's congestion state, its own
 * measurements and the module's scratch area into a context on the stack,
 * runs the entry point (natively when rte_bpf JIT-compiled it, in rte_bpf's
 * interpreter otherwise or when asked with "bpfi:FILE.o"), and copies back
 * only what a module may decide, clamped: the window it returns, ssthresh,
 * the pacing rate, the recovery state and the scratch area. The module
 * never sees a pointer to anything but that context and its stack.
 *
 * Loading is control-plane work serialised by a lock; lookups, which every
 * channel's creation makes, read the published entries without one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_bpf.h>
#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_spinlock.h>
#include <sodium.h>

#include "cc_bpf_module.h"

RTE_LOG_REGISTER_DEFAULT(sst_logtype_cc_bpf, NOTICE);

static_assert(sizeof(struct cc_bpf_state) <= SST_CC_PRIV_MAX, "bpf driver state too large");
static_assert(offsetof(struct cc_bpf_module, ops) == 0, "ops first");
static_assert(sizeof(struct sst_cc_bpf_ctx) == 192 + SST_CC_BPF_SCRATCH, "ABI v1 layout");
static_assert(offsetof(struct sst_cc_bpf_ctx, cwnd) == 128, "ABI v1 layout");
static_assert(offsetof(struct sst_cc_bpf_ctx, flags) == 168, "ABI v2 layout");
static_assert(offsetof(struct sst_cc_bpf_ctx, idle_time) == 176, "ABI v2 layout");

struct cc_bpf_module cc_bpf_cache[CC_BPF_CACHE_MAX];
atomic_uint cc_bpf_count; /* published entries */
atomic_ullong cc_bpf_refused[4];
static rte_spinlock_t cc_bpf_lock = RTE_SPINLOCK_INITIALIZER;
/* rte_bpf_load() wants aligned instructions; used under the lock only. */
static struct ebpf_insn cc_bpf_load_buf[SST_CC_BPF_MAX_INSNS];

static const char *const cc_bpf_event_names[SST_CC_BPF_EV_COUNT] = {
	"init",
	"on_sent",
	"on_ack",
	"on_loss",
	"on_rto",
	"on_idle",
};

static const struct cc_bpf_module *
cc_bpf_module(const struct sst_cc *cc)
{
	return (const struct cc_bpf_module *)cc->ops;
}

static struct cc_bpf_state *
cc_bpf_state(struct sst_cc *cc)
{
	return (struct cc_bpf_state *)cc->priv;
}

/* Revoke @p m for @p why: the first reason stands, and only the revocation
 * that made it counts for the worker whose channel saw it. */
static void
cc_bpf_revoke(struct cc_bpf_module *m, enum sst_cc_stp_revoke why)
{
	unsigned int none = SST_CC_STP_REVOKE_NONE;
	struct sst_cc_stp_stats *s;

	if (!atomic_compare_exchange_strong_explicit(
		    &m->revoked, &none, why, memory_order_relaxed, memory_order_relaxed))
		return;
	s = sst_cc_stp_sink();
	if (s != NULL && why == SST_CC_STP_REVOKE_POLICER)
		s->revoked_policer++;
	else if (s != NULL)
		s->revoked_budget++;
}

void
cc_bpf_count_refusal(enum cc_bpf_refusal why)
{
	struct sst_cc_stp_stats *s = sst_cc_stp_sink();

	atomic_fetch_add_explicit(&cc_bpf_refused[why], 1, memory_order_relaxed);
	if (s == NULL)
		return;
	if (why == CC_BPF_REFUSED_ELF)
		s->refused_elf++;
	else if (why == CC_BPF_REFUSED_VERIFIER)
		s->refused_verifier++;
	else if (why == CC_BPF_REFUSED_RTE_BPF)
		s->refused_rte_bpf++;
	else
		s->refused_revoked++;
}

/* Copy @p len bytes (a multiple of 8) of scratch: a few words inline
 * rather than a call to memcpy on every event. */
static inline void
cc_bpf_scratch_copy(uint8_t *dst, const uint8_t *src, uint16_t len)
{
	for (uint16_t i = 0; i < len; i += 8)
		memcpy(dst + i, src + i, 8);
}

/* The context of one call. Only the scratch bytes the module can touch
 * are copied (the verifier bounds every access by a constant offset): for
 * NewReno 16 of 256 bytes, a third of a JIT-compiled call's cost. */
static void
cc_bpf_ctx_fill(struct sst_cc_bpf_ctx *ctx, const struct sst_cc *cc, const struct cc_bpf_state *st,
	enum sst_cc_bpf_event ev, sst_time_t now, uint64_t bytes_in_flight)
{
	/* Every field below the scratch area is written, the event's own
	 * zero here (a memset of 192 bytes cost a call per event). */
	ctx->abi_version = SST_CC_BPF_ABI_VERSION;
	ctx->event = ev;
	ctx->now = now;
	ctx->mss = cc->mss;
	ctx->srtt = st->srtt;
	ctx->rttvar = st->rttvar;
	ctx->min_rtt = st->min_rtt;
	ctx->bytes_in_flight = bytes_in_flight;
	ctx->delivery_rate = st->delivery_rate;
	ctx->losses = st->losses;
	ctx->timeouts = st->timeouts;
	ctx->cwnd = cc->cwnd;
	ctx->ssthresh = cc->ssthresh;
	ctx->pacing_rate = cc->pacing_rate;
	ctx->recovery_seq = cc->recovery_seq;
	ctx->in_recovery = cc->in_recovery;
	ctx->app_limited = 0;
	ctx->rtt_sample = 0;
	/* seq to pkt_bytes, then reserved: constant sizes, inlined. */
	memset(&ctx->seq, 0,
		offsetof(struct sst_cc_bpf_ctx, cwnd) - offsetof(struct sst_cc_bpf_ctx, seq));
	ctx->flags = 0;
	ctx->reserved0 = 0;
	ctx->idle_time = 0;
	memset(ctx->reserved, 0, sizeof(ctx->reserved));
	cc_bpf_scratch_copy(ctx->scratch, st->scratch, cc_bpf_module(cc)->scratch_len);
}

static uint64_t
cc_bpf_clamp(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Run one entry point and take back what the module may decide. The
 * floor is one packet (RFC 5681's loss window), so that a module can
 * reproduce NewReno's timeout exactly; the channel always sends one. */
/* The policer's verdict on the window the module asked for: a module that
 * keeps asking for more than it is allowed is revoked like one over its
 * CPU budget (its channels keep only the capped windows they had). */
static void
cc_bpf_police(struct cc_bpf_module *m, struct cc_bpf_state *st, uint64_t given, uint64_t asked,
	uint64_t acked)
{
	if (!sst_policer_account(&st->pol, given, asked, acked))
		return;
	atomic_fetch_add_explicit(&m->violations, 1, memory_order_relaxed);
	cc_bpf_revoke(m, SST_CC_STP_REVOKE_POLICER);
}

/* What the module decided, within the driver's caps and, if it is policed,
 * the policer's (never below one packet). */
static void
cc_bpf_apply(struct sst_cc *cc, const struct cc_bpf_module *m, struct cc_bpf_state *st,
	const struct sst_cc_bpf_ctx *ctx, uint64_t cwnd)
{
	uint64_t cwnd_max = SST_CC_BPF_CWND_MAX, rate_max = SST_CC_BPF_RATE_MAX;

	if (m->policed) {
		uint64_t window = sst_policer_window(&st->pol); /* a 128-bit division */

		if (window < cwnd_max)
			cwnd_max = window;
		if (sst_policer_rate(&st->pol) < rate_max)
			rate_max = sst_policer_rate(&st->pol);
		if (rate_max < cc->mss)
			rate_max = cc->mss;
	}
	cc->cwnd = cc_bpf_clamp(cwnd, cc->mss, cwnd_max);
	cc->ssthresh = ctx->ssthresh;
	cc->pacing_rate =
		ctx->pacing_rate == 0 ? 0 : cc_bpf_clamp(ctx->pacing_rate, cc->mss, rate_max);
	cc->recovery_seq = ctx->recovery_seq;
	cc->in_recovery = ctx->in_recovery != 0;
	cc_bpf_scratch_copy(st->scratch, ctx->scratch, m->scratch_len);
}

/* One timed call of @p cycles against the module's budget. */
static void
cc_bpf_budget(struct cc_bpf_module *m, struct cc_bpf_state *st, uint64_t cycles)
{
	if (cycles > m->budget) {
		struct sst_cc_stp_stats *s = sst_cc_stp_sink();

		st->win_over++;
		st->overruns++;
		atomic_fetch_add_explicit(&m->overruns, 1, memory_order_relaxed);
		if (s != NULL)
			s->budget_overruns++;
	}
	if (++st->win_calls < CC_BPF_BUDGET_WINDOW)
		return;
	if (st->win_over > CC_BPF_BUDGET_WINDOW / 2)
		cc_bpf_revoke(m, SST_CC_STP_REVOKE_BUDGET);
	st->win_over = 0;
	st->win_calls = 0;
}

static void
cc_bpf_run(struct sst_cc *cc, struct cc_bpf_state *st, const struct cc_bpf_prog *p,
	struct sst_cc_bpf_ctx *ctx)
{
	struct cc_bpf_module *m = (struct cc_bpf_module *)(uintptr_t)cc->ops;
	/* Read before the module runs: it may write anywhere in its context. */
	uint64_t given = cc->cwnd, acked = ctx->bytes_acked;
	bool timed;
	uint64_t t0 = 0, cwnd;

	/* The CPU budget, on a random sample of the calls: reading the TSC twice
	 * costs more than a JIT-compiled call on a virtual machine, and a module
	 * cannot predict which calls are timed (the generator is the driver's). */
	st->rng ^= st->rng << 13;
	st->rng ^= st->rng >> 17;
	st->rng ^= st->rng << 5;
	timed = st->rng % CC_BPF_BUDGET_SAMPLE == 0;
	if (timed)
		t0 = rte_rdtsc();
	cwnd = p->native != NULL ? p->native(ctx) : rte_bpf_exec(p->bpf, ctx);
	/* A module whose timed calls exceed the budget in most of a window is
	 * revoked for every channel (each leaves it at its next event). Counting
	 * calls over budget rather than summing cycles keeps a preemption in one
	 * call from revoking a module. */
	st->calls++;
	if (timed)
		cc_bpf_budget(m, st, rte_rdtsc() - t0);
	if (m->policed)
		cc_bpf_police(m, st, given, cwnd, acked);
	cc_bpf_apply(cc, m, st, ctx, cwnd);
}

/*
 * Move a channel from a revoked module to the fallback controller (NewReno):
 * its window, ssthresh and recovery state carry over, the module's pacing
 * rate does not. The caller then hands the event to the fallback.
 */
static void
cc_bpf_fallback(struct sst_cc *cc, sst_time_t now)
{
	struct cc_bpf_module *m = (struct cc_bpf_module *)(uintptr_t)cc->ops;

	struct sst_cc_stp_stats *s = sst_cc_stp_sink();

	atomic_fetch_add_explicit(&m->fallbacks, 1, memory_order_relaxed);
	if (s != NULL)
		s->fallbacks++;
	sst_cc_switch(cc, sst_cc_find(SST_CC_DEFAULT), now);
}

/* Whether the channel may run its module; if not, it is now on the fallback. */
static bool
cc_bpf_usable(struct sst_cc *cc, sst_time_t now)
{
	if (likely(!atomic_load_explicit(&cc_bpf_module(cc)->revoked, memory_order_relaxed)))
		return true;
	cc_bpf_fallback(cc, now);
	return false;
}

static void
cc_bpf_init(struct sst_cc *cc, sst_time_t now)
{
	const struct cc_bpf_prog *p = &cc_bpf_module(cc)->prog[SST_CC_BPF_EV_INIT];
	struct cc_bpf_state *st = cc_bpf_state(cc);
	struct sst_cc_bpf_ctx ctx;

	memset(st, 0, sizeof(*st));
	st->rng = (uint32_t)rte_rdtsc() | 1;
	sst_policer_init(&st->pol, cc->mss, now);
	if (!cc_bpf_usable(cc, now))
		return; /* the fallback's init ran */
	if (p->bpf == NULL)
		return;
	cc_bpf_ctx_fill(&ctx, cc, st, SST_CC_BPF_EV_INIT, now, 0);
	cc_bpf_run(cc, st, p, &ctx);
}

static void
cc_bpf_on_sent(struct sst_cc *cc, const struct sst_cc_sent_event *ev)
{
	const struct cc_bpf_prog *p = &cc_bpf_module(cc)->prog[SST_CC_BPF_EV_SENT];
	struct cc_bpf_state *st = cc_bpf_state(cc);
	struct sst_cc_bpf_ctx ctx;

	/* Per packet: a module without on_sent costs nothing here. */
	if (p->bpf == NULL)
		return;
	if (!cc_bpf_usable(cc, ev->now)) {
		cc->ops->on_sent(cc, ev);
		return;
	}
	cc_bpf_ctx_fill(&ctx, cc, st, SST_CC_BPF_EV_SENT, ev->now, ev->bytes_in_flight);
	ctx.seq = ev->seq;
	ctx.pkt_bytes = ev->bytes;
	cc_bpf_run(cc, st, p, &ctx);
}

/* The measurements of an ack: RFC 6298's rttvar over the samples, and the
 * delivery rate as bytes acked over intervals of at least one srtt. */
static void
cc_bpf_measure_ack(struct cc_bpf_state *st, const struct sst_cc_ack_event *ev)
{
	st->srtt = ev->srtt;
	st->min_rtt = ev->min_rtt;
	if (ev->rtt_sample != 0) {
		sst_time_t dev = ev->srtt > ev->rtt_sample ? ev->srtt - ev->rtt_sample
							   : ev->rtt_sample - ev->srtt;

		st->rttvar = st->rtt_seen ? (3 * st->rttvar + dev) / 4 : ev->rtt_sample / 2;
		st->rtt_seen = true;
	}
	st->delivered += ev->acked_bytes;
	if (!st->dr_marked) {
		st->dr_marked = true;
		st->dr_mark_time = ev->now;
		st->dr_mark_delivered = st->delivered - ev->acked_bytes;
	} else if (ev->srtt != 0 && ev->now > st->dr_mark_time &&
		   ev->now - st->dr_mark_time >= ev->srtt) {
		st->delivery_rate = sst_cc_mul_div(st->delivered - st->dr_mark_delivered,
			SST_NSEC_PER_SEC, ev->now - st->dr_mark_time);
		st->dr_mark_time = ev->now;
		st->dr_mark_delivered = st->delivered;
	}
}

static void
cc_bpf_on_ack(struct sst_cc *cc, const struct sst_cc_ack_event *ev)
{
	struct cc_bpf_state *st = cc_bpf_state(cc);
	struct sst_cc_bpf_ctx ctx;

	if (!cc_bpf_usable(cc, ev->now)) {
		cc->ops->on_ack(cc, ev);
		return;
	}
	cc_bpf_measure_ack(st, ev);
	/* A round trip in which the window was not filled is not judged, as an
	 * application-limited one is not: a window that flow control or the
	 * application leaves unused sends nothing faster (found with sst-perf,
	 * where receive windows capped the flight while NewReno's slow start
	 * kept growing the window it asked for, and the policer revoked it).
	 * The policer's own test, on the flight it sees, not the channel's
	 * app_limited: that one also marks round trips the pacer held below the
	 * window, which the policer would stop judging, and the set of receive
	 * rates it never lowers in them let a greedy module keep 110 % of its
	 * share in test_sim_stp. */
	sst_policer_on_ack(&st->pol, ev->now, ev->acked_bytes, ev->acked_packets, ev->rtt_sample,
		ev->srtt, ev->bytes_in_flight + ev->acked_bytes + cc->mss < cc->cwnd);
	cc_bpf_ctx_fill(&ctx, cc, st, SST_CC_BPF_EV_ACK, ev->now, ev->bytes_in_flight);
	ctx.app_limited = ev->app_limited;
	ctx.rtt_sample = ev->rtt_sample;
	ctx.seq = ev->largest_acked;
	ctx.bytes_acked = ev->acked_bytes;
	ctx.packets_acked = ev->acked_packets;
	cc_bpf_run(cc, st, &cc_bpf_module(cc)->prog[SST_CC_BPF_EV_ACK], &ctx);
}

static void
cc_bpf_on_loss(struct sst_cc *cc, const struct sst_cc_loss_event *ev)
{
	struct cc_bpf_state *st = cc_bpf_state(cc);
	struct sst_cc_bpf_ctx ctx;

	if (!cc_bpf_usable(cc, ev->now)) {
		cc->ops->on_loss(cc, ev);
		return;
	}
	st->losses++;
	sst_policer_on_loss(&st->pol, ev->now);
	cc_bpf_ctx_fill(&ctx, cc, st, SST_CC_BPF_EV_LOSS, ev->now, ev->bytes_in_flight);
	ctx.seq = ev->seq;
	ctx.pkt_bytes = ev->bytes;
	ctx.largest_sent = ev->largest_sent;
	cc_bpf_run(cc, st, &cc_bpf_module(cc)->prog[SST_CC_BPF_EV_LOSS], &ctx);
}

static void
cc_bpf_on_rto(struct sst_cc *cc, const struct sst_cc_rto_event *ev)
{
	struct cc_bpf_state *st = cc_bpf_state(cc);
	struct sst_cc_bpf_ctx ctx;

	if (!cc_bpf_usable(cc, ev->now)) {
		cc->ops->on_rto(cc, ev);
		return;
	}
	st->timeouts++;
	sst_policer_on_loss(&st->pol, ev->now);
	cc_bpf_ctx_fill(&ctx, cc, st, SST_CC_BPF_EV_RTO, ev->now, ev->bytes_in_flight);
	ctx.largest_sent = ev->largest_sent;
	/* A version 1 module sees its reserved words zero, as it was promised. */
	if (ev->no_rtt_sample && cc_bpf_module(cc)->abi_version >= 2)
		ctx.flags = SST_CC_BPF_F_NO_RTT_SAMPLE;
	cc_bpf_run(cc, st, &cc_bpf_module(cc)->prog[SST_CC_BPF_EV_RTO], &ctx);
}

/* Sending resumes after idle (ABI version 2; a module without on_idle
 * keeps its window, as a version 1 host left it). */
static void
cc_bpf_on_idle(struct sst_cc *cc, const struct sst_cc_idle_event *ev)
{
	const struct cc_bpf_prog *p = &cc_bpf_module(cc)->prog[SST_CC_BPF_EV_IDLE];
	struct cc_bpf_state *st = cc_bpf_state(cc);
	struct sst_cc_bpf_ctx ctx;

	if (!cc_bpf_usable(cc, ev->now)) {
		if (cc->ops->on_idle != NULL)
			cc->ops->on_idle(cc, ev);
		return;
	}
	if (p->bpf == NULL)
		return;
	cc_bpf_ctx_fill(&ctx, cc, st, SST_CC_BPF_EV_IDLE, ev->now, 0);
	ctx.flags = ev->no_rtt_sample ? SST_CC_BPF_F_NO_RTT_SAMPLE : 0;
	ctx.idle_time = ev->idle;
	cc_bpf_run(cc, st, p, &ctx);
}

int
cc_bpf_refuse(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* A revoked module asked for again: refused with the revocation's reason. */
static void
cc_bpf_unloaded(const struct cc_bpf_module *m, char *err, size_t errlen)
{
	unsigned int why = atomic_load_explicit(&m->revoked, memory_order_relaxed);

	cc_bpf_count_refusal(CC_BPF_REFUSED_REVOKED);
	cc_bpf_refuse(err, errlen, "module %s was unloaded (%s)", m->ops.name,
		why == SST_CC_STP_REVOKE_POLICER ? "by the policer" : "over its CPU budget");
}

static void
cc_bpf_unload(struct cc_bpf_module *m)
{
	for (int ev = 0; ev < SST_CC_BPF_EV_COUNT; ev++)
		if (m->prog[ev].bpf != NULL)
			rte_bpf_destroy(m->prog[ev].bpf);
	memset(m, 0, sizeof(*m));
}

/* Verify and load one entry point into @p p (the lock is held). */
static int
cc_bpf_load_prog(const struct cc_bpf_elf_prog *ep, bool jit, struct cc_bpf_prog *p, int ev,
	uint32_t *scratch_end, enum cc_bpf_refusal *refusal, char *err, size_t errlen)
{
	char why[CC_BPF_ERR_MAX];
	uint32_t ctx_end = 0;
	struct rte_bpf_prm prm = {
		.ins = cc_bpf_load_buf,
		.nb_ins = ep->nb_ins,
		.prog_arg = {.type = RTE_BPF_ARG_PTR, .size = sizeof(struct sst_cc_bpf_ctx)},
	};
	struct rte_bpf_jit native = {0};
	int rc = cc_bpf_verify_ctx(ep->code, ep->nb_ins, &ctx_end, why, sizeof(why));

	if (rc != 0) {
		cc_bpf_refuse(err, errlen, "%s: %s", cc_bpf_event_names[ev], why);
		*refusal = CC_BPF_REFUSED_VERIFIER;
		return rc;
	}
	*scratch_end = ctx_end;
	memcpy(cc_bpf_load_buf, ep->code, (size_t)ep->nb_ins * sizeof(struct ebpf_insn));
	p->bpf = rte_bpf_load(&prm);
	if (p->bpf == NULL) {
		cc_bpf_refuse(err, errlen, "%s: rte_bpf refused it: %s", cc_bpf_event_names[ev],
			rte_strerror(rte_errno));
		*refusal = CC_BPF_REFUSED_RTE_BPF;
		return -EINVAL;
	}
	if (jit && rte_bpf_get_jit(p->bpf, &native) == 0 && native.func != NULL) {
		/* DPDK's JIT can misplace jumps (cc_bpf_jit_check.c): code that
		 * fails the check is never run; the interpreter runs the program. */
		if (cc_bpf_jit_check(cc_bpf_load_buf, ep->nb_ins, (const void *)native.func,
			    native.sz, why, sizeof(why)) == 0)
			p->native = native.func;
		else
			CC_BPF_LOG(WARNING, "%s: the JIT's code failed its check (%s); interpreted",
				cc_bpf_event_names[ev], why);
	}
	return 0;
}

static struct cc_bpf_module *
cc_bpf_lookup_hash(const uint8_t *hash, bool jit, unsigned int count)
{
	for (unsigned int i = 0; i < count; i++)
		if (cc_bpf_cache[i].jit == jit &&
			memcmp(cc_bpf_cache[i].hash, hash, CC_BPF_HASH_LEN) == 0)
			return &cc_bpf_cache[i];
	return NULL;
}

/* Parse, verify and load every entry point of an image into @p m (the
 * lock is held). On failure the caller unloads @p m; @p refusal says which
 * step refused it. */
static int
cc_bpf_load_progs(struct cc_bpf_module *m, const uint8_t *buf, size_t len, bool jit,
	enum cc_bpf_refusal *refusal, char *err, size_t errlen)
{
	struct cc_bpf_elf elf;
	int rc = cc_bpf_elf_parse(buf, len, &elf, err, errlen);

	*refusal = CC_BPF_REFUSED_ELF;
	m->jit = jit;
	m->native = jit;
	m->abi_version = elf.abi_version;
	for (int ev = 0; ev < SST_CC_BPF_EV_COUNT && rc == 0; ev++) {
		uint32_t end = 0;

		if (elf.prog[ev].code == NULL)
			continue;
		rc = cc_bpf_load_prog(
			&elf.prog[ev], jit, &m->prog[ev], ev, &end, refusal, err, errlen);
		if (rc == 0 && m->prog[ev].native == NULL)
			m->native = false;
		/* The scratch bytes below the end of the highest access, in 8s. */
		if (rc == 0 && end > offsetof(struct sst_cc_bpf_ctx, scratch)) {
			end = RTE_ALIGN_CEIL(end - offsetof(struct sst_cc_bpf_ctx, scratch), 8);
			if (end > m->scratch_len)
				m->scratch_len = (uint16_t)end;
		}
	}
	return rc;
}

int
cc_bpf_check(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	enum cc_bpf_refusal refusal;
	struct cc_bpf_module m;
	int rc;

	memset(&m, 0, sizeof(m));
	if (buf == NULL)
		return -EINVAL;
	rte_spinlock_lock(&cc_bpf_lock);
	rc = cc_bpf_load_progs(&m, buf, len, true, &refusal, err, errlen);
	cc_bpf_unload(&m);
	rte_spinlock_unlock(&cc_bpf_lock);
	return rc;
}

/* Fill cache entry @p m from an image (the lock is held, @p m unpublished). */
static int
cc_bpf_build(struct cc_bpf_module *m, const uint8_t *buf, size_t len, bool jit, const char *source,
	char *err, size_t errlen)
{
	char hex[2 * CC_BPF_HASH_LEN + 1];
	enum cc_bpf_refusal refusal;
	int rc = cc_bpf_load_progs(m, buf, len, jit, &refusal, err, errlen);

	if (rc != 0) {
		cc_bpf_count_refusal(refusal);
		return rc;
	}
	sodium_bin2hex(hex, sizeof(hex), m->hash, sizeof(m->hash));
	/* "bpf:#" or "bpfi:#" and 9 hex digits: short enough for SST_CC_NAME_MAX. */
	snprintf(m->ops.name, sizeof(m->ops.name), "%s:#%.9s", jit ? "bpf" : "bpfi", hex);
	snprintf(m->source, sizeof(m->source), "%s", source);
	m->budget = CC_BPF_BUDGET_DEFAULT;
	m->policed = true;
	m->ops.priv_size = sizeof(struct cc_bpf_state);
	m->ops.init = cc_bpf_init;
	m->ops.on_sent = cc_bpf_on_sent;
	m->ops.on_ack = cc_bpf_on_ack;
	m->ops.on_loss = cc_bpf_on_loss;
	m->ops.on_rto = cc_bpf_on_rto;
	m->ops.on_idle = cc_bpf_on_idle;
	m->ops.stp_info = cc_bpf_stp_info;
	CC_BPF_LOG(INFO, "loaded %s as %s (%s)", source, m->ops.name,
		m->native ? "JIT" : "interpreter");
	return 0;
}

const struct sst_cc_ops *
cc_bpf_load_mem(
	const uint8_t *buf, size_t len, bool jit, const char *source, char *err, size_t errlen)
{
	uint8_t hash[CC_BPF_HASH_LEN];
	char why[CC_BPF_ERR_MAX];
	struct cc_bpf_module *m;
	unsigned int count;

	if (buf == NULL || source == NULL) {
		cc_bpf_refuse(err, errlen, "no module");
		return NULL;
	}
	if (sodium_init() < 0) {
		cc_bpf_refuse(err, errlen, "libsodium failed to initialise");
		return NULL;
	}
	crypto_generichash(hash, sizeof(hash), buf, len, NULL, 0);
	rte_spinlock_lock(&cc_bpf_lock);
	count = atomic_load_explicit(&cc_bpf_count, memory_order_relaxed);
	m = cc_bpf_lookup_hash(hash, jit, count);
	if (m != NULL && atomic_load_explicit(&m->revoked, memory_order_relaxed)) {
		cc_bpf_unloaded(m, err, errlen);
		m = NULL;
	} else if (m == NULL && count == CC_BPF_CACHE_MAX) {
		cc_bpf_refuse(err, errlen, "module cache full (%d modules)", CC_BPF_CACHE_MAX);
	} else if (m == NULL) {
		m = &cc_bpf_cache[count];
		memcpy(m->hash, hash, sizeof(hash));
		if (cc_bpf_build(m, buf, len, jit, source, why, sizeof(why)) != 0) {
			CC_BPF_LOG(ERR, "cannot load %s: %s", source, why);
			cc_bpf_refuse(err, errlen, "%s", why);
			cc_bpf_unload(m);
			m = NULL;
		} else {
			struct sst_cc_stp_stats *s = sst_cc_stp_sink();

			atomic_store_explicit(&cc_bpf_count, count + 1, memory_order_release);
			if (s != NULL)
				s->loads++;
		}
	}
	rte_spinlock_unlock(&cc_bpf_lock);
	return m != NULL ? &m->ops : NULL;
}

const struct sst_cc_ops *
cc_bpf_find_hash(const uint8_t *hash, bool jit)
{
	unsigned int count = atomic_load_explicit(&cc_bpf_count, memory_order_acquire);
	const struct cc_bpf_module *m = hash != NULL ? cc_bpf_lookup_hash(hash, jit, count) : NULL;

	if (m == NULL || atomic_load_explicit(&m->revoked, memory_order_relaxed))
		return NULL;
	return &m->ops;
}

static const struct sst_cc_ops *
cc_bpf_load_file(const char *path, bool jit, char *err, size_t errlen)
{
	const struct sst_cc_ops *ops = NULL;
	struct stat stt;
	void *map;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		cc_bpf_refuse(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &stt) != 0 || !S_ISREG(stt.st_mode) || stt.st_size == 0 ||
		stt.st_size > CC_BPF_FILE_MAX) {
		cc_bpf_refuse(err, errlen, "%s: not a regular file of 1 byte to %u bytes", path,
			CC_BPF_FILE_MAX);
		close(fd);
		return NULL;
	}
	map = mmap(NULL, (size_t)stt.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		cc_bpf_refuse(err, errlen, "cannot map %s: %s", path, strerror(errno));
		return NULL;
	}
	ops = cc_bpf_load_mem(map, (size_t)stt.st_size, jit, path, err, errlen);
	munmap(map, (size_t)stt.st_size);
	return ops;
}

/* "bpf:FILE.o" or "bpf:#HASHPREFIX" (a loaded module's name); lock-free
 * for every module already loaded, which is what channels ask for. */
static const struct sst_cc_ops *
cc_bpf_resolve(const char *arg, bool jit, char *err, size_t errlen)
{
	unsigned int count = atomic_load_explicit(&cc_bpf_count, memory_order_acquire);
	const char *prefix = jit ? "bpf:" : "bpfi:";

	for (unsigned int i = 0; i < count; i++) {
		const struct cc_bpf_module *m = &cc_bpf_cache[i];

		if (m->jit != jit)
			continue;
		if (arg[0] == '#' ? strncmp(m->ops.name + strlen(prefix), arg, SST_CC_NAME_MAX) != 0
				  : strcmp(m->source, arg) != 0)
			continue;
		if (!atomic_load_explicit(&m->revoked, memory_order_relaxed))
			return &m->ops;
		cc_bpf_unloaded(m, err, errlen);
		return NULL;
	}
	if (arg[0] == '#') {
		cc_bpf_refuse(err, errlen, "no loaded module %s%s", prefix, arg);
		return NULL;
	}
	return cc_bpf_load_file(arg, jit, err, errlen);
}

static const struct sst_cc_ops *
cc_bpf_resolve_jit(const char *arg, char *err, size_t errlen)
{
	return cc_bpf_resolve(arg, true, err, errlen);
}

static const struct sst_cc_ops *
cc_bpf_resolve_interp(const char *arg, char *err, size_t errlen)
{
	return cc_bpf_resolve(arg, false, err, errlen);
}

bool
cc_bpf_is_jit(const struct sst_cc_ops *ops)
{
	return ((const struct cc_bpf_module *)ops)->native;
}

const uint8_t *
cc_bpf_hash(const struct sst_cc_ops *ops)
{
	return ((const struct cc_bpf_module *)ops)->hash;
}

void
cc_bpf_set_budget(const struct sst_cc_ops *ops, uint64_t cycles)
{
	((struct cc_bpf_module *)(uintptr_t)ops)->budget = cycles;
}

void
cc_bpf_set_policed(const struct sst_cc_ops *ops, bool policed)
{
	((struct cc_bpf_module *)(uintptr_t)ops)->policed = policed;
}

uint64_t
cc_bpf_violations(const struct sst_cc_ops *ops)
{
	return atomic_load_explicit(
		&((const struct cc_bpf_module *)ops)->violations, memory_order_relaxed);
}

bool
cc_bpf_revoked(const struct sst_cc_ops *ops)
{
	return atomic_load_explicit(
		&((const struct cc_bpf_module *)ops)->revoked, memory_order_relaxed);
}

uint64_t
cc_bpf_fallbacks(const struct sst_cc_ops *ops)
{
	return atomic_load_explicit(
		&((const struct cc_bpf_module *)ops)->fallbacks, memory_order_relaxed);
}

RTE_INIT(cc_bpf_register)
{
	if (sst_cc_register_loader("bpf", cc_bpf_resolve_jit) != 0 ||
		sst_cc_register_loader("bpfi", cc_bpf_resolve_interp) != 0)
		CC_BPF_LOG(ERR, "cannot register the bpf: and bpfi: loaders");
	cc_bpf_telemetry_register();
}
