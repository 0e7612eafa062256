#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# STP telemetry per worker and per peer (issue 18; docs/observability.md,
# "STP"), read with dpdk-telemetry.py during live sst-perf loopback runs:
#  1. the server (worker 1) ships newreno.o to the client (worker 0), which
#     runs it: /sst/stp_peers,0 shows the server as a peer whose channel runs
#     the module (its BLAKE2b-256, JIT), policed; /sst/channel,0.0 shows the
#     module, its execution and its policer; /sst/worker,0 counts the load
#     on the client's worker, none on the server's; /sst/cc_bpf_modules
#     lists it, not revoked; the server's peer runs newreno.
#  2. greedy.o shipped across a 10 Mbit/s bottleneck: revoked by the
#     policer; /sst/worker,0 counts the revocation by its reason and the
#     channel's fallback, /sst/cc_bpf_modules says "policer", and the peer's
#     channel runs newreno again.
# Usage: telemetry_stp.sh SST_PERF MODULES_DIR
set -u
here=$(cd "$(dirname "$0")" && pwd) # jsonl_check.py
perf=${1:?usage: telemetry_stp.sh SST_PERF MODULES_DIR}
mods=${2:?usage: telemetry_stp.sh SST_PERF MODULES_DIR}
tel=$(command -v dpdk-telemetry.py) || {
	echo "dpdk-telemetry.py is not installed (Debian dpdk-dev): skipped"
	exit 77
}
dir=$(mktemp -d "${TMPDIR:-/tmp}/sst-tel-stp.XXXXXX") || exit 1
prefix=sst-tel-stp-$$
pid=
stop() {
	if [ -n "$pid" ]; then
		kill -INT "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	pid=
	# The telemetry socket needs the EAL's runtime directory: ours, removed.
	rm -rf "/run/dpdk/$prefix"
}
trap 'stop; rm -rf "$dir"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
query() {
	printf '%s\n' "$@" | "$tel" -f "$prefix" 2>/dev/null
}
# start ARGS...: a 60 s run in the background, stopped by stop().
start() {
	"$perf" --no-huge --no-pci -m 512 --file-prefix="$prefix" -- --loopback -q -t 60 \
		--cc-policy allow-all "$@" >"$dir/perf.out" 2>&1 &
	pid=$!
}
# wait_for CMD PATTERN: ask CMD until its answer matches (up to 30 s).
wait_for() {
	local out
	for _ in $(seq 120); do
		kill -0 "$pid" 2>/dev/null || break
		out=$(query "$1")
		grep -Eq "$2" <<<"$out" && return 0
		sleep 0.25
	done
	fail "$1 never matched '$2': $out $(tail -3 "$dir/perf.out")"
	return 1
}
hash=$(python3 -c 'import hashlib, sys
print(hashlib.blake2b(open(sys.argv[1], "rb").read(), digest_size=32).hexdigest())' \
	"$mods/newreno.o")

# 1. A module shipped and running.
start --ship-cc "$mods/newreno.o"
wait_for /sst/stp_peers,0 '"on_module": 1' &&
	query /sst/stp_peers,0 /sst/stp_peers,1 /sst/channel,0.0 /sst/worker,0 /sst/worker,1 \
		/sst/cc_bpf_modules /sst/stp_peers,x >"$dir/run1.json"
stop
cat "$dir/run1.json" | cut -c1-600
PYTHONPATH="$here" python3 - "$dir/run1.json" "$hash" <<'PY' || fail "run 1 (newreno.o shipped)"
import sys

import jsonl_check
from jsonl_check import check

lines = jsonl_check.lines(sys.argv[1])
h = sys.argv[2]

check(len(lines) == 7, f"7 answers, got {len(lines)}")
peers0 = lines[0]["/sst/stp_peers"]
peers1 = lines[1]["/sst/stp_peers"]
keys0 = [k for k in peers0 if k != "next"]
check(peers0["next"] == 0 and len(keys0) == 1, f"client: one peer: {peers0}")
p = peers0[keys0[0]]
check(p["module"] == h, f"client's peer: module {p['module']} is not {h}")
check(p["cc"] == "bpf:#" + h[:9], f"client's peer: cc {p['cc']}")
check(p["exec"] in ("jit", "interpreter") and p["revoked"] == "none", f"client's peer: {p}")
check(p["channels"] >= 1 and p["on_module"] == 1, f"client's peer: channels {p}")
check(p["policer_slowstart"] + p["policer_steady"] + p["policer_init"] == 1, f"policer {p}")
check(p["calls"] > 0, f"client's peer: no calls {p}")
check(p["mode"] == "checksum" and p["id"] == "0" * 64, f"client's peer: mode, id {p}")
check(p["peer"].endswith(":8661") and keys0[0] == f"peer_{p['channel']}", f"client's peer: {p}")
q = [v for k, v in peers1.items() if k != "next"]
check(len(q) == 1 and q[0]["cc"] == "newreno" and q[0]["on_module"] == 0
      and q[0]["module"] == "", f"server's peer: {peers1}")
ch = lines[2]["/sst/channel"]
check(ch["cc"] == "bpf:#" + h[:9] and ch["stp_module"] == h, f"channel 0.0: {ch}")
check(ch["stp_exec"] == p["exec"] and ch["stp_revoked"] == "none", f"channel 0.0: {ch}")
check(ch["stp_policer"] in ("slowstart", "steady"), f"channel 0.0 policer: {ch}")
check(ch["stp_policer_rate"] > 0 and ch["stp_policer_window"] >= 1200, f"channel 0.0: {ch}")
check(ch["stp_calls"] > 0 and ch["stp_budget_cycles"] == 100000, f"channel 0.0: {ch}")
w0 = lines[3]["/sst/worker"]
w1 = lines[4]["/sst/worker"]
check(w0["stp_loads"] == 1 and w1["stp_loads"] == 0, f"loads: {w0['stp_loads']}, {w1['stp_loads']}")
for k in ("stp_revoked_policer", "stp_revoked_budget", "stp_fallbacks", "stp_refused_elf",
          "stp_refused_verifier", "stp_refused_rte_bpf", "stp_refused_revoked"):
    check(w0[k] == 0 and w1[k] == 0, f"{k}: {w0[k]}, {w1[k]}")
# A preempted call may exceed the budget on a loaded machine (counted, never
# enough to revoke); the server runs no module, so it has none.
check(w1["stp_budget_overruns"] == 0, f"server's overruns: {w1['stp_budget_overruns']}")
mods = lines[5]["/sst/cc_bpf_modules"]
m = mods.get("bpf_" + h[:9])
check(m is not None and m["hash"] == h and m["name"] == "bpf:#" + h[:9] and m["revoked"] == "none" and m["policed"] == 1,
      f"modules: {mods}")
check(lines[6]["/sst/stp_peers"] is None, f"a bad parameter: {lines[6]}")
jsonl_check.done()
PY

# 2. Greedy across a bottleneck: revoked by the policer, counted by reason.
start --ship-cc "$mods/greedy.o" --streams 8 --rate 10 --delay 10 --queue 25
wait_for /sst/cc_bpf '"revoked_policer": 1' &&
	query /sst/worker,0 /sst/cc_bpf_modules /sst/stp_peers,0 /sst/channel,0.0 >"$dir/run2.json"
stop
cat "$dir/run2.json" | cut -c1-600
PYTHONPATH="$here" python3 - "$dir/run2.json" <<'PY' || fail "run 2 (greedy.o revoked)"
import sys

import jsonl_check
from jsonl_check import check

lines = jsonl_check.lines(sys.argv[1])

check(len(lines) == 4, f"4 answers, got {len(lines)}")
w0 = lines[0]["/sst/worker"]
check(w0["stp_loads"] == 1 and w0["stp_revoked_policer"] == 1 and w0["stp_revoked_budget"] == 0,
      f"worker 0: {w0}")
check(w0["stp_fallbacks"] >= 1, f"worker 0: no fallback: {w0}")
mods = lines[1]["/sst/cc_bpf_modules"]
check(len(mods) == 1 and list(mods.values())[0]["revoked"] == "policer"
      and list(mods.values())[0]["violations"] == 1, f"modules: {mods}")
peers = [v for k, v in lines[2]["/sst/stp_peers"].items() if k != "next"]
check(len(peers) == 1, f"peers: {peers}")
# The channel that saw the verdict moved to NewReno at its next event.
check(peers and peers[0]["on_module"] == 0 and peers[0]["cc"] == "newreno", f"peer: {peers}")
check(lines[3]["/sst/channel"]["cc"] == "newreno" and "stp_module" not in lines[3]["/sst/channel"],
      f"channel: {lines[3]}")
jsonl_check.done()
PY
[ "$fails" -eq 0 ] || exit 1
echo "PASS"
