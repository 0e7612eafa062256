#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The profile run of the fast build (scripts/build.sh fast): sst-perf's
# loopback workloads, the ones perf/compare.sh and scripts/run.sh measure,
# 2 s each: bulk with both armors, transactions on new streams and new
# substreams, and the net_ring pair with one worker a side and two. What
# they execute is what the compiler lays out and inlines for speed.
# Usage: pgo-train.sh BUILD_DIR [SECONDS]
set -eu
perf=${1:?usage: pgo-train.sh BUILD_DIR [SECONDS]}/apps/sst-perf/sst-perf
secs=${2:-2}
rr=(--request 32 --response 32 rr)
for args in "--armor chk32 bulk" "--armor aes128gcm bulk" "${rr[*]}" "--substreams ${rr[*]}" \
	"--frames bulk" "--frames ${rr[*]}" "-w 2 bulk" "-w 2 ${rr[*]}"; do
	# shellcheck disable=SC2086 # each entry is a list of options
	if ! "$perf" --loopback --quiet --time "$secs" $args >/dev/null; then
		echo "pgo-train.sh: sst-perf --loopback $args failed" >&2
		exit 1
	fi
done
