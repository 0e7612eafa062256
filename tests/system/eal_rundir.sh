#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A tool leaves no EAL runtime directory behind when it ends normally, also
# when the user named the file prefix. DPDK 22.11 never removes its runtime
# directory (config, memory-map files: 48 bytes per 4 KB page of -m with
# --no-huge), and /run sits on the root disk on many machines: test runs
# that named their prefixes once left 950 directories and 9 GB there.
# The default prefix and an explicit one are both checked.
# Usage: eal_rundir.sh SST_PERF
set -u
perf=${1:?usage: eal_rundir.sh SST_PERF}
if [ "$(id -u)" = 0 ]; then
	base=/var/run/dpdk
else
	base=${XDG_RUNTIME_DIR:-/tmp}/dpdk
fi
fails=0
prefix=sst-rundir-$$
"$perf" --no-huge --no-pci -m 256 --no-telemetry --file-prefix="$prefix" -- \
	--loopback --quiet --time 1 >/dev/null 2>&1 || {
	echo "FAIL: sst-perf with --file-prefix=$prefix failed"
	fails=$((fails + 1))
}
if [ -e "$base/$prefix" ]; then
	echo "FAIL: $base/$prefix is still there after the run:"
	ls -la "$base/$prefix"
	rm -rf "${base:?}/$prefix"
	fails=$((fails + 1))
fi
# The default prefix is "<program>-<pid>"; other tests running at the same
# time make their own, so only this run's directory counts.
"$perf" --loopback --quiet --time 1 >/dev/null 2>&1 &
pid=$!
wait "$pid" || {
	echo "FAIL: sst-perf with the default EAL arguments failed"
	fails=$((fails + 1))
}
if [ -e "$base/sst-perf-$pid" ]; then
	echo "FAIL: the default prefix left $base/sst-perf-$pid"
	rm -rf "${base:?}/sst-perf-$pid"
	fails=$((fails + 1))
fi
[ "$fails" = 0 ] && echo "ok: no runtime directory left in $base"
exit "$((fails > 0))"
