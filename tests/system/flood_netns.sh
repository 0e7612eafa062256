#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A flood of spoofed first messages against an SST server (issue 15,
# finding 3; docs/negotiation.md 5.1). In a namespace and veth pair made
# here, an echo service on kernel UDP (sst-cat --listen --echo); from
# outside, sst-flood sends it spoofed ChkI1 (with the SST-DPDK ulp blob)
# and SecI1, each from its own address in 198.18.0.0/15, at 5,000 a
# second until the end of the test, while sst-cat clients on kernel UDP
# (checksum mode, then secure mode) get their 100 kB echoed, byte-exact.
# Before the fix the spoofed ChkI1 took the server's whole table (1024
# channels, in under half a second at this rate) and the checksum client
# was refused; now the server goes under load after 512 half-open entries and
# lets the clients in through the cookie challenge.
# Needs root; skipped (77) where namespaces cannot be made.
# Usage: flood_netns.sh PATH/TO/sst-cat PATH/TO/sst-flood
set -u
cat_bin=${1:?usage: flood_netns.sh PATH/TO/sst-cat PATH/TO/sst-flood}
flood_bin=${2:?usage: flood_netns.sh PATH/TO/sst-cat PATH/TO/sst-flood}
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root"
command -v ip >/dev/null || skip "needs iproute2"

. "$(dirname "$0")/veth_ns.sh"
. "$(dirname "$0")/spoof_ns.sh"
dir=$(mktemp -d "${TMPDIR:-/tmp}/sst-flood.XXXXXX") || {
	echo "$0: cannot make a scratch directory" >&2
	exit 1
}
server=
flood=
fails=0
cleanup() {
	[ -n "$flood" ] && kill "$flood" 2>/dev/null && wait "$flood" 2>/dev/null
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	veth_ns_down
	rm -rf "$dir"
}
trap cleanup EXIT
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}
spoof_ns_up F 197
eal=(--no-huge --no-pci -m 1024 --no-telemetry --log-level=lib.eal:error)
echo_service_start "$cat_bin" "sst-fl-srv-$$" "$dir/server.err"

"$flood_bin" --seconds 600 --rate 5000 --mode both "$net.2:7000" >"$dir/flood.out" 2>&1 &
flood=$!
# The flooder is under way (it would have failed at once without a raw
# socket); the clients come while it runs.
sleep 1
kill -0 "$flood" 2>/dev/null || { cat "$dir/flood.out" >&2; fail "sst-flood did not run"; }

head -c 100000 /dev/urandom >"$dir/data"
k=0
for mode in checksum secure; do
	k=$((k + 1))
	args=()
	[ "$mode" = secure ] && args=(--secure)
	timeout 120 "$cat_bin" "${eal[@]}" --file-prefix="sst-fl-cli-$$-$k" -- \
		"${args[@]}" "$net.2:7000" echo test <"$dir/data" >"$dir/$mode.out" 2>"$dir/$mode.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "$mode client during the flood: exit status $rc: $(cat "$dir/$mode.err")"
	elif ! cmp -s "$dir/data" "$dir/$mode.out"; then
		fail "$mode client during the flood: echo differs"
	fi
done

kill -0 "$flood" 2>/dev/null || fail "sst-flood ended early: $(cat "$dir/flood.out")"
kill "$flood" 2>/dev/null
wait "$flood" 2>/dev/null
flood=
cat "$dir/flood.out"
kill -0 "$server" 2>/dev/null || fail "the server died: $(cat "$dir/server.err")"
[ "$fails" -eq 0 ] && echo "ok: checksum and secure clients served during a flood"
exit $((fails > 0))
