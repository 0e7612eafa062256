#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Channel replacement end to end (issue 5): sst-perf with channels limited
# to a few thousand packets, so that during the run the engine replaces
# each one many times (new keys, streams moved over) while --verify checks
# every byte. Passes when the run succeeds and replacements happened.
# Usage: perf_replace.sh PATH/TO/sst-perf SST-PERF-ARGS...
set -u
perf=${1:?usage: perf_replace.sh PATH/TO/sst-perf ARGS...}
shift
out=$("$perf" "$@" --json 2>/dev/null)
rc=$?
echo "$out"
[ "$rc" -eq 0 ] || { echo "sst-perf failed (exit $rc)"; exit 1; }
replaced=$(printf '%s\n' "$out" | sed -n 's/.*"channels_replaced":\([0-9]*\).*/\1/p' | tail -1)
[ "${replaced:-0}" -ge 1 ] || { echo "no channel was replaced"; exit 1; }
echo "channels replaced $replaced times, every byte verified"
