#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# sst-perf fails a datagram run whose reliable datagrams did not all arrive
# (issue 19: 23-28% of 40-64 KB datagrams were never delivered and the run
# still said "ok"). Datagrams of 200 KB go as reliable substreams; first a
# clean run that must pass with every one delivered, then the same with the
# server discarding two of them uncounted (the test hook
# SST_PERF_TEST_LOSE_DGRAMS), which must exit 1 with a clear message.
# Usage: perf_dgram_fail.sh PATH/TO/sst-perf
set -u
perf=${1:?usage: perf_dgram_fail.sh PATH/TO/sst-perf}
args=(--loopback --verify --count 20 dgram --size 200K)

out=$("$perf" "${args[@]}" 2>&1)
rc=$?
echo "$out"
[ "$rc" -eq 0 ] || { echo "clean run failed (exit $rc)"; exit 1; }
printf '%s\n' "$out" | grep -q 'datagrams *20 sent, 20 received' ||
	{ echo "clean run: not every datagram arrived"; exit 1; }

out=$(SST_PERF_TEST_LOSE_DGRAMS=2 "$perf" "${args[@]}" 2>&1)
rc=$?
echo "$out"
[ "$rc" -eq 1 ] || { echo "a run missing reliable datagrams exited $rc, not 1"; exit 1; }
printf '%s\n' "$out" | grep -q 'result *FAILED: 2 of 20 reliable datagrams (sent as substreams) not delivered' ||
	{ echo "no failure report for the missing datagrams"; exit 1; }
echo "missing reliable datagrams fail the run"
