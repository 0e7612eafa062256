/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cost of a congestion event (docs/stp.md, "Cost"): NewReno native,
 * NewReno as a bpf module JIT-compiled, and the same module in rte_bpf's
 * interpreter, each fed the same precomputed events (acks of 1 to 3
 * packets, a loss every 1,000 events) through the sst_cc dispatchers the
 * channel uses; TSC cycles per event, the median of the repetitions. Then
 * the cost of loading: the pre-verifier and rte_bpf_load() on the largest
 * program accepted (4,096 straight-line instructions) and on the most
 * branchy one (at the limit of paths rte_bpf's validator may walk).
 *
 * Run by hand: nice build/perf/cc_bench [--reps N] [--module FILE.o]
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_bpf.h>
#include <rte_cycles.h>

#include "cc_bpf.h"
#include "cc_bpf_elf_build.h"
#include "sst_cc.h"

enum { EVENTS = 1 << 16, MSS = 1200 };

static struct sst_cc_ack_event acks[EVENTS];

static void
make_events(void)
{
	uint64_t seq = 0, x = 88172645463325252ULL;

	for (int i = 0; i < EVENTS; i++) {
		uint32_t n;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		n = 1 + x % 3;
		seq += n;
		acks[i] = (struct sst_cc_ack_event){
			.now = (sst_time_t)i * 10000,
			.largest_acked = seq,
			.acked_bytes = n * MSS,
			.acked_packets = n,
			.bytes_in_flight = 64 * MSS,
			.rtt_sample = 20000000,
			.srtt = 20000000,
			.min_rtt = 20000000,
		};
	}
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Cycles per event over one pass of the events; the median of @p reps passes. */
static double
bench_events(const struct sst_cc_ops *ops, int reps)
{
	uint64_t *per = calloc((size_t)reps, sizeof(*per));
	struct sst_cc cc;
	double med;

	for (int r = 0; r < reps; r++) {
		uint64_t t0;

		sst_cc_init(&cc, ops, MSS, 0);
		t0 = rte_rdtsc_precise();
		for (int i = 0; i < EVENTS; i++) {
			if (i % 1000 == 999) {
				struct sst_cc_loss_event loss = {
					.now = acks[i].now,
					.seq = acks[i].largest_acked + 1,
					.bytes = MSS,
					.largest_sent = acks[i].largest_acked + 64,
					.bytes_in_flight = 64 * MSS,
				};

				sst_cc_on_loss(&cc, &loss);
			} else {
				sst_cc_on_ack(&cc, &acks[i]);
			}
		}
		per[r] = rte_rdtsc_precise() - t0;
	}
	qsort(per, (size_t)reps, sizeof(*per), cmp_u64);
	med = (double)per[reps / 2] / EVENTS;
	free(per);
	return med;
}

static double
elapsed_us(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e6 + (double)(b->tv_nsec - a->tv_nsec) / 1e3;
}

/* Our verifier and rte_bpf_load() (validator and JIT) on one program. */
static void
bench_load(const char *what, const struct ebpf_insn *ins, uint32_t n)
{
	struct rte_bpf_prm prm = {
		.ins = ins,
		.nb_ins = n,
		.prog_arg = {.type = RTE_BPF_ARG_PTR, .size = sizeof(struct sst_cc_bpf_ctx)},
	};
	char err[CC_BPF_ERR_MAX];
	struct timespec t0, t1, t2;
	struct rte_bpf *bpf;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = cc_bpf_verify((const uint8_t *)ins, n, err, sizeof(err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	bpf = rte_bpf_load(&prm);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	printf("  %-34s %5u insns: pre-verifier %8.1f us (%s), rte_bpf_load %8.1f us (%s)\n", what,
		n, elapsed_us(&t0, &t1), rc == 0 ? "accepted" : err, elapsed_us(&t1, &t2),
		bpf != NULL ? "loaded" : "refused");
	rte_bpf_destroy(bpf);
}

static void
bench_loads(void)
{
	static struct ebpf_insn prog[SST_CC_BPF_MAX_INSNS];
	uint32_t n = 0;

	prog[n++] = MOV_K(0, 0);
	while (n < SST_CC_BPF_MAX_INSNS - 1)
		prog[n++] = ALU_K(BPF_ADD, 0, 1);
	prog[n++] = EXIT();
	bench_load("straight line (largest)", prog, n);
	/* 11 diamonds: 2^13 - 2 visits, just under the limit of 8192. */
	n = 0;
	prog[n++] = MOV_K(0, 0);
	prog[n++] = LDX(EBPF_DW, 2, 1, CTX_OFF(seq));
	for (int k = 0; k < 11; k++) {
		prog[n++] = JMP_K(BPF_JEQ, 2, k, 1);
		prog[n++] = ALU_K(BPF_ADD, 0, 1);
	}
	prog[n++] = EXIT();
	bench_load("11 branches (most paths accepted)", prog, n);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"reps", required_argument, NULL, 'r'},
		{"module", required_argument, NULL, 'm'},
		{NULL, 0, NULL, 0},
	};
	const char *module = CC_BPF_MODULES_DIR "/newreno.o";
	char name[600], err[CC_BPF_ERR_MAX + 64];
	const struct sst_cc_ops *ops[3];
	const char *labels[3] = {
		"native newreno", "bpf newreno (JIT)", "bpf newreno (interpreter)"};
	int reps = 21, c;
	double native;

	while ((c = getopt_long(argc, argv, "r:m:", opts, NULL)) != -1) {
		if (c == 'r')
			reps = atoi(optarg);
		else if (c == 'm')
			module = optarg;
		else
			return 2;
	}
	if (reps < 1)
		reps = 1;
	ops[0] = sst_cc_find("newreno");
	snprintf(name, sizeof(name), "bpf:%s", module);
	ops[1] = sst_cc_resolve(name, err, sizeof(err));
	snprintf(name, sizeof(name), "bpfi:%s", module);
	ops[2] = ops[1] != NULL ? sst_cc_resolve(name, err, sizeof(err)) : NULL;
	if (ops[0] == NULL || ops[1] == NULL || ops[2] == NULL) {
		fprintf(stderr, "cc_bench: %s: %s\n", module, err);
		return 1;
	}
	if (!cc_bpf_is_jit(ops[1]))
		labels[1] = "bpf newreno (JIT unavailable)";
	make_events();
	printf("cost per congestion event (%d events, median of %d)\n", EVENTS, reps);
	native = bench_events(ops[0], reps);
	for (int k = 0; k < 3; k++) {
		double cyc = k == 0 ? native : bench_events(ops[k], reps);

		printf("  %-30s %8.1f cycles/event  (%.2fx native)%s\n", labels[k], cyc,
			cyc / native,
			k > 0 && cc_bpf_revoked(ops[k]) ? " REVOKED: these ran NewReno" : "");
	}
	printf("cost of loading\n");
	bench_loads();
	return 0;
}
