#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# STP through sst-perf (docs/stp.md): every run checks every byte (--verify).
#  1. --cc bpf:newreno.o: both sides run the eBPF NewReno from the start;
#  2. the server (the receiver) ships newreno.o to the client, which runs it
#     under --cc-policy allow-all: USE, SENDME, code, OK;
#  3. the default policy (deny): the client answers NO and keeps NewReno;
#  4. over a 10 Mbit/s link with 10 ms each way and a 25-packet queue,
#     NewReno in eBPF and the greedy module shipped, no byte lost; greedy,
#     which fills its window across the bottleneck, is revoked by the
#     policer in real time (5 runs of 5 at load average 35; test_sim_stp
#     checks it deterministically). On the unlimited loopback flow control
#     holds greedy below its window: it is capped there, not judged;
#  5. a module that does not load is refused before anything is sent;
#  6. a peer that takes the request and never answers (--stp-mute): the
#     asking side gives up after --stp-timeout (SST_STP_TIMEOUT, 10 s, by
#     default; 0.3 s here to keep the suite short), says so, and the test
#     runs on;
#  7. channels replaced every 256 packets (--packet-limit) over 1 MB: each
#     replacement of the channel running the shipped module moves to it
#     when it comes up (at least one, at most one per replacement);
#  8. /sst/cc_bpf and /sst/stp answer during a run (dpdk-telemetry.py; left
#     out without it): a help text of 128 characters or more had left
#     /sst/cc_bpf unregistered.
# Usage: perf_stp.sh PATH/TO/sst-perf MODULES_DIR
set -u
perf=${1:?usage: perf_stp.sh PATH/TO/sst-perf MODULES_DIR}
mods=${2:?usage: perf_stp.sh PATH/TO/sst-perf MODULES_DIR}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

run() { # name, expected lines (grep -E patterns, ';'-separated), sst-perf args...
	local name=$1 want=$2
	shift 2
	"$perf" --loopback --verify "$@" >"$tmp/$name.out" 2>&1
	local rc=$?
	cat "$tmp/$name.out" | grep -v '^\[' | sed "s/^/$name: /"
	[ "$rc" -eq 0 ] || fail "$name: sst-perf exited $rc"
	grep -q 'result *ok' "$tmp/$name.out" || fail "$name: no 'result ok'"
	grep -q 'verify errors *0$' "$tmp/$name.out" || fail "$name: verify errors"
	IFS=';' read -ra pats <<<"$want"
	for p in "${pats[@]}"; do
		[ -z "$p" ] || grep -Eq "$p" "$tmp/$name.out" || fail "$name: no line matching '$p'"
	done
}

run local_module 'cc bpf:' --time 1 --cc "bpf:$mods/newreno.o"
run shipped 'peer asked us to run .*running on 1 channel \(code received\);asked the peer to run .*accepted \(code shipped\)' \
	--time 1 --ship-cc "$mods/newreno.o" --cc-policy allow-all
run denied 'peer asked us to run .*refused, policy;asked the peer to run .*refused, policy' \
	--time 1 --ship-cc "$mods/newreno.o"
grep -q 'running on' "$tmp/denied.out" && fail "denied: the module ran"
run kept 'accepted \(code shipped\);modules in this process: 1 loaded' \
	--time 2 --rate 10 --delay 10 --queue 25 --ship-cc "$mods/newreno.o" --cc-policy allow-all
# Greedy across a bottleneck fills its window: judged and revoked in real time.
run greedy 'accepted \(code shipped\);modules in this process: 1 loaded, 1 revoked \(1 policer' \
	--time 2 --streams 8 --rate 10 --delay 10 --queue 25 --ship-cc "$mods/greedy.o" \
	--cc-policy allow-all
run mute 'asked the peer to run .*: failed;no reply in time' \
	--time 1 --ship-cc "$mods/newreno.o" --cc-policy allow-all --stp-mute --stp-timeout 0.3
grep -q 'running on' "$tmp/mute.out" && fail "mute: the module ran"
run replaced 'running on 1 channel \(code received\);replacement channels moved to the module in use: [1-9]' \
	--size 1M --ship-cc "$mods/newreno.o" --cc-policy allow-all --packet-limit 256
made=$(sed -n 's/.*channels *\([0-9]*\) made.*/\1/p' "$tmp/replaced.out")
carried=$(sed -n 's/.*moved to the module in use: \([0-9]*\)/\1/p' "$tmp/replaced.out")
[ "$carried" -lt "$made" ] || fail "replaced: $carried channels moved, $made made"
if tel=$(command -v dpdk-telemetry.py); then
	prefix="stp-tel-$$"
	# Asked until it answers (a loaded machine, a CI box building the
	# sanitizer tree beside the tests, took over the 2.5 s once allowed),
	# then stopped.
	"$perf" --no-huge --no-pci -m 512 --file-prefix="$prefix" -- --loopback -q -t 60 \
		--cc "bpf:$mods/newreno.o" >"$tmp/tel-perf.out" 2>&1 &
	pid=$!
	got=
	for _ in $(seq 120); do
		sleep 0.25
		got=$(printf '/sst/cc_bpf\n/sst/stp\n' | "$tel" -f "$prefix" 2>/dev/null)
		echo "$got" | grep -q '"modules": 1' && break
		kill -0 "$pid" 2>/dev/null || break
	done
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
	# The telemetry socket needs the EAL's runtime directory (no
	# --no-shconf): this run's own, removed once it ended.
	rm -rf "/run/dpdk/$prefix"
	echo "$got" | sed 's/^/telemetry: /'
	echo "$got" | grep -q '"/sst/cc_bpf": {"modules": 1, "revoked": 0' || fail "telemetry: /sst/cc_bpf"
	echo "$got" | grep -q '"/sst/stp": {"requested": 0' || fail "telemetry: /sst/stp"
fi
head -c 300 "$mods/newreno.o" >"$tmp/cut.o"
"$perf" --loopback --time 1 --ship-cc "$tmp/cut.o" >"$tmp/cut.out" 2>&1
rc=$?
cat "$tmp/cut.out"
[ "$rc" -eq 2 ] || fail "a truncated module: exit $rc, want 2"
grep -q 'truncated ELF' "$tmp/cut.out" || fail "a truncated module: no reason given"
echo "ok"
