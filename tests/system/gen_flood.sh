#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# sst-gen's attack mode (issue 21): spoofed ChkI1 from 65,536 source
# addresses (198.18.0.0/16), sent by `sst-gen template --template chki1`
# on a DPDK port (net_af_packet on the loopback interface) at 20,000 a
# second, against `sst-cat --listen --echo --stats 1` on kernel UDP, while
# an sst-gen client (5 channels, 15 streams) is served, every byte checked.
# The server's own counters (its --stats line) must show the flood arrive
# and be answered with cookie requests. All of it in a network namespace
# of its own (unshare -n) with only the loopback interface: the answers to
# the spoofed sources have no route and go nowhere. Needs root (namespace,
# packet socket); skipped (77) otherwise.
# Usage: gen_flood.sh PATH/TO/sst-gen PATH/TO/sst-cat
set -u
gen_bin=${1:?usage: gen_flood.sh PATH/TO/sst-gen PATH/TO/sst-cat}
cat_bin=${2:?usage: gen_flood.sh PATH/TO/sst-gen PATH/TO/sst-cat}
skip() {
	echo "SKIP: $*"
	exit 77
}
if [ -z "${SST_GEN_FLOOD_NS:-}" ]; then
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	unshare -n true 2>/dev/null || skip "cannot make a network namespace"
	SST_GEN_FLOOD_NS=1 exec unshare -n "$0" "$@"
fi
. "$(dirname "$0")/cat_common.sh"
flood=
trap '[ -n "$flood" ] && kill "$flood" 2>/dev/null; cleanup' EXIT

ip link set lo up
# Spoofed sources on the loopback interface: no reverse-path filter, and
# 127.0.0.1 reachable from frames that did not come from this host's stack.
sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.lo.rp_filter=0 \
	net.ipv4.conf.all.route_localnet=1 net.ipv4.conf.lo.route_localnet=1 ||
	skip "cannot set the namespace's sysctls"

listen echo /dev/null /dev/null --echo --stats 1 127.0.0.1:0 echo test
timeout 60 "$gen_bin" -l 0-1 --no-huge --no-pci -m 256 --no-telemetry \
	--log-level=lib.eal:error --file-prefix "sst-gen-flood-$$" --vdev net_af_packet0,iface=lo -- \
	template --tx-port 0 --template chki1 --src 198.18.0.1:40000 --vary-addrs 65536 \
	--dst "127.0.0.1:$port" --time 3 --rate 20000 --json >"$dir/flood.out" 2>&1 &
flood=$!
sleep 1
kill -0 "$flood" 2>/dev/null || fail "the flood did not run: $(cat "$dir/flood.out")"
timeout 60 "$gen_bin" client --udp "127.0.0.1:$port" --echo --service echo --protocol test \
	--channels 5 --streams 3 --request 5000 --json >"$dir/client.json" 2>&1 ||
	fail "the client during the flood: exit $?: $(cat "$dir/client.json")"
grep -q '"transactions": 15,' "$dir/client.json" && grep -q '"ok": true' "$dir/client.json" ||
	fail "the client's streams were not all verified: $(cat "$dir/client.json")"
wait "$flood" || fail "the flood: exit $?: $(cat "$dir/flood.out")"
flood=
sent=$(sed -n 's/.*"packets": \([0-9]*\).*/\1/p' "$dir/flood.out")
sleep 1.2 # one more --stats line after the flood
stop echo kill
last=$(grep 'sst-cat: stats:' "$dir/listen.echo.err" | tail -1)
msgs=$(echo "$last" | sed -n 's/.*negotiation: \([0-9]*\) messages, \([0-9]*\) challenged.*/\1/p')
challenged=$(echo "$last" | sed -n 's/.*negotiation: \([0-9]*\) messages, \([0-9]*\) challenged.*/\2/p')
echo "flood: ${sent:-0} ChkI1 sent; server: ${msgs:-0} negotiation messages, ${challenged:-0} answered with a cookie request"
[ "${sent:-0}" -gt 0 ] || fail "no flood packet sent"
[ "${msgs:-0}" -gt 1000 ] || fail "the flood did not reach the server: $last"
loaded=$(echo "$last" | sed -n 's/.*under load \([0-9]*\) times.*/\1/p')
# A server that went under load must have challenged. One that never did
# (seen with the sanitizer build, whose server took half the flood and
# fewer first messages than its load threshold) has nothing to show here.
if [ "${loaded:-0}" -gt 0 ]; then
	[ "${challenged:-0}" -gt 0 ] || fail "the server went under load and never challenged: $last"
else
	echo "note: the server never went under load in this run: cookies not exercised"
fi
[ "$fails" -eq 0 ] && echo "sst-gen: flood answered with cookies while a client was served"
exit $((fails != 0))
