#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# sst-gen's figures (issue 21, docs/tools/sst-gen.md "Figures"), in one
# sitting so that the machine's load is the same for each pair:
#  1. template mode over net_null, one transmit queue on one worker lcore,
#     against dpdk-testpmd --forward-mode=txonly with the same frame size
#     (126 bytes: a checksum-mode data packet of 64 payload bytes), ROUNDS
#     alternating runs of SECONDS each, for one flow (testpmd's default,
#     sst-gen --vary-addrs 1) and for many (--txonly-multi-flow, sst-gen's
#     default 65,536 sources); prints each run's Mpps and the ratio of the
#     medians (each tool's best second of a run);
#  2. stateful mode: new channels per second (CHANNELS channels of one
#     stream each) and transactions per second (one channel, 64-byte
#     requests and responses, one in flight) against an sst-gen server in
#     the same process (--loopback, kernel UDP), beside sst-perf --loopback
#     rr with the same sizes.
# Run by hand (never as a test). Usage:
#   perf/gen_bench.sh [-C BUILD_DIR] [SECONDS [ROUNDS [CHANNELS]]]  (defaults: build, 3, 3, 500)
set -u
cd "$(dirname "$0")/.."
build=build
if [ "${1:-}" = "-C" ]; then
	build=$2
	shift 2
fi
seconds=${1:-3}
rounds=${2:-3}
channels=${3:-500}
gen=$build/apps/sst-gen/sst-gen
perf=$build/apps/sst-perf/sst-perf
for b in "$gen" "$perf"; do
	[ -x "$b" ] || {
		echo "gen_bench.sh: $b missing (scripts/build.sh release $build)" >&2
		exit 2
	}
done
testpmd=$(command -v dpdk-testpmd) || {
	echo "gen_bench.sh: dpdk-testpmd not found (Debian: apt-get install dpdk)" >&2
	exit 2
}
eal=(-l 0-1 --no-huge --no-pci -m 1024 --no-telemetry --log-level=lib.eal:error --vdev net_null0)
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# bench_pair NAME TESTPMD-ARGS -- SST-GEN-ARGS: ROUNDS alternating runs
# of each, their best seconds, and the ratio of the medians.
bench_pair() {
	local name=$1 tp_args=() gen_args=() tp_runs=() gen_runs=() r tp g gmean tpm gm
	shift
	while [ "$1" != -- ]; do
		tp_args+=("$1")
		shift
	done
	shift
	gen_args=("$@")
	for r in $(seq "$rounds"); do
		# Both print their rate every second (the first and last
		# seconds partial): each one's best second is taken, like for
		# like (on a loaded machine a mean counts the seconds the
		# scheduler took away; sst-gen's mean over the run is printed
		# too).
		tp=$(timeout -s INT $((seconds + 3)) "$testpmd" "${eal[@]}" --file-prefix "gb-tp-$$" -- \
			--forward-mode=txonly --txpkts=126 --auto-start --stats-period=1 --nb-cores=1 \
			--txq=1 --rxq=1 --total-num-mbufs=16384 "${tp_args[@]}" </dev/null 2>/dev/null |
			sed -n 's/.*Tx-pps: *\([0-9]*\).*/\1/p' | sort -n | tail -1)
		"$gen" "${eal[@]}" --file-prefix "gb-gen-$$" -- template --tx-port 0 --template data \
			--size 64 --time "$seconds" "${gen_args[@]}" >"/tmp/gb-gen-$$.out" 2>"/tmp/gb-gen-$$.err"
		g=$(sed -n 's/^sst-gen: *[0-9]*s tx \([0-9.]*\) Mpps$/\1/p' "/tmp/gb-gen-$$.err" |
			sort -n | tail -1)
		gmean=$(sed -n 's/^rate *\([0-9.]*\) Mpps.*/\1/p' "/tmp/gb-gen-$$.out")
		rm -f "/tmp/gb-gen-$$.out" "/tmp/gb-gen-$$.err"
		tp_runs+=("$(awk -v p="${tp:-0}" 'BEGIN { printf "%.3f", p / 1e6 }')")
		gen_runs+=("${g:-0}")
		echo "$name, round $r: testpmd txonly ${tp_runs[-1]} Mpps, sst-gen template" \
			"${gen_runs[-1]} Mpps (best seconds; sst-gen's mean ${gmean:-0})"
	done
	tpm=$(printf '%s\n' "${tp_runs[@]}" | median)
	gm=$(printf '%s\n' "${gen_runs[@]}" | median)
	echo "template over net_null, 1 queue, 126-byte frames, $name: sst-gen $gm Mpps," \
		"testpmd txonly $tpm Mpps, ratio" \
		"$(awk -v a="$gm" -v b="$tpm" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
}

# One flow, as testpmd's txonly sends by default (sst-gen still numbers
# every packet and computes its Chk32 trailer and UDP checksum); then many
# flows: testpmd's --txonly-multi-flow (a source address per packet of a
# burst) against sst-gen's default, 65,536 source addresses in turn. Both
# sst-gen runs take the vector burst kernel (gen_fields_vec.c: one channel
# template, each range 1 or at least 32), the one-flow one writing only the
# UDP checksum, sequence bits and trailer.
bench_pair "one flow" -- --vary-addrs 1
bench_pair "many flows" --txonly-multi-flow --

"$gen" client --loopback --channels "$channels" --streams 1 --json 2>/dev/null |
	sed -n 's/.*"setups_per_s": \([0-9.]*\), "txn_per_s": \([0-9.]*\).*/stateful: \1 new channels\/s (with one transaction each)/p'
"$gen" client --loopback --channels 1 --streams 1000000 --time "$seconds" --json 2>/dev/null |
	sed -n 's/.*"txn_per_s": \([0-9.]*\).*/stateful: \1 transactions\/s on one channel (64 B each way, one in flight)/p'
"$perf" --loopback --time "$seconds" --request 64 --response 64 --json rr 2>/dev/null |
	tr ',' '\n' | sed -n 's/^"rate_per_s":\([0-9.]*\)/sst-perf --loopback rr (in-memory link): \1 transactions\/s/p'
