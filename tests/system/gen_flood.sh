#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# sst-gen's attack mode (issue 21): spoofed ChkI1 from 65,536 source
# addresses (198.18.0.0/16), sent by `sst-gen template --template chki1`
# on a DPDK port (net_af_packet on one end of a veth pair) at 20,000 a
# second, against `sst-cat --listen --echo --stats 1` on kernel UDP at the
# other end's address, while an sst-gen client (5 channels, 15 streams) is
# served, every byte checked. The server's own counters (its --stats line)
# must show the flood arrive and be answered with cookie requests. The
# spoofed sources are routed back to the flooder's end (a static neighbour
# for the next hop: nothing answers ARP there), so that the flooder reads
# the server's answers from its port and sorts them: its count of cookie
# requests must be the server's count of challenges, and R1s and cookie
# requests together what the server answered. All of it in a network
# namespace of its own (unshare -n). Needs root (namespace, packet socket,
# veth); skipped (77) otherwise.
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
. "$(dirname "$0")/gen_common.sh"
flood=
trap '[ -n "$flood" ] && kill "$flood" 2>/dev/null; cleanup' EXIT

ip link set lo up
# The flooder's end (genatk-f0, no address) and the server's (genatk-f1).
ip link add genatk-f0 type veth peer name genatk-f1 || skip "cannot make a veth pair"
# The server's kernel UDP sends runs of equal datagrams to one peer as one
# UDP_SEGMENT message (docs/engine.md, udpsock): without the veth's own UDP
# segmentation the kernel cuts them before the veth, so that the flooder's
# packet socket reads datagrams, not 64 KB frames of several.
ethtool -K genatk-f1 tx-udp-segmentation off >/dev/null 2>&1 ||
	skip "cannot turn the veth's UDP segmentation off (ethtool)"
ip link set genatk-f0 up && ip link set genatk-f1 up &&
	ip addr add 10.77.0.1/24 dev genatk-f1 || skip "cannot set the veth pair up"
# The answers to the spoofed sources go to the flooder's end.
mac=$(ip -o link show genatk-f0 | sed -n "s/.*link\/ether \([0-9a-f:]*\) .*/\1/p")
ip neigh add 10.77.0.2 lladdr "$mac" dev genatk-f1 &&
	ip route add 198.18.0.0/16 via 10.77.0.2 dev genatk-f1 ||
	skip "cannot route the spoofed sources"
# Spoofed sources: no reverse-path filter.
sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.genatk-f1.rp_filter=0 ||
	skip "cannot set the namespace's sysctls"

# Frames the kernel dropped on the way back to the flooder's packet socket:
# both veth ends' drop counters and the per-CPU backlogs' (softnet_stat's
# second column: not per namespace, so an upper bound). On a machine busy
# with other network work (a run beside the evaluation's emulator) these
# lost a few percent of the answers, which no stack could have read.
kernel_drops() {
	local n=0 f v
	for f in /sys/class/net/genatk-f0/statistics/rx_dropped \
		/sys/class/net/genatk-f1/statistics/tx_dropped \
		/sys/class/net/genatk-f1/statistics/rx_dropped \
		/sys/class/net/genatk-f0/statistics/tx_dropped; do
		v=$(cat "$f" 2>/dev/null || echo 0)
		n=$((n + v))
	done
	while read -r _ d _; do
		n=$((n + 16#$d))
	done </proc/net/softnet_stat
	echo "$n"
}
drops_before=$(kernel_drops)

port=4433 # the namespace is ours
"$cat_bin" --listen --echo --stats 1 10.77.0.1:$port echo test </dev/null >/dev/null \
	2>"$dir/listen.echo.err" &
server=$!
for _ in $(seq 300); do
	grep -qs '^sst-cat: listening on' "$dir/listen.echo.err" && break
	sleep 0.1
done
timeout 60 "$gen_bin" -l 0-1 --no-huge --no-pci -m 256 --no-telemetry \
	--log-level=lib.eal:error --file-prefix "sst-gen-flood-$$" \
	--vdev net_af_packet0,iface=genatk-f0,framecnt=16384 -- \
	template --tx-port 0 --template chki1 --src 198.18.0.1:40000 --vary-addrs 65536 \
	--dst "10.77.0.1:$port" --time 3 --rate 20000 --json >"$dir/flood.out" 2>&1 &
flood=$!
sleep 1
kill -0 "$flood" 2>/dev/null || fail "the flood did not run: $(cat "$dir/flood.out")"
timeout 60 "$gen_bin" client --udp "10.77.0.1:$port" --echo --service echo --protocol test \
	--channels 5 --streams 3 --request 5000 --json >"$dir/client.json" 2>&1 ||
	fail "the client during the flood: exit $?: $(cat "$dir/client.json")"
grep -q '"transactions": 15,' "$dir/client.json" && grep -q '"ok": true' "$dir/client.json" ||
	fail "the client's streams were not all verified: $(cat "$dir/client.json")"
wait "$flood" || fail "the flood: exit $?: $(cat "$dir/flood.out")"
flood=
sent=$(json_field "$dir/flood.out" packets)
sleep 1.2 # one more --stats line after the flood
stop echo kill
last=$(grep 'sst-cat: stats:' "$dir/listen.echo.err" | tail -1)
msgs=$(echo "$last" | sed -n 's/.*negotiation: \([0-9]*\) messages, \([0-9]*\) challenged.*/\1/p')
challenged=$(echo "$last" | sed -n 's/.*negotiation: \([0-9]*\) messages, \([0-9]*\) challenged.*/\2/p')
cookies=$(json_field "$dir/flood.out" cookie_requests)
r1=$(json_field "$dir/flood.out" r1)
echo "flood: ${sent:-0} ChkI1 sent; server: ${msgs:-0} negotiation messages, ${challenged:-0} answered with a cookie request"
echo "flood's port: $(sed -n 's/.*"answers": \({.*}\)}$/\1/p' "$dir/flood.out")"
echo "server: $last"
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
# The flooder's count of cookie requests is the server's count of
# challenges; every flood message answered comes back as one kind or the
# other (the legitimate client's traffic stays on the server's host). The
# packet socket's ring holds 16,384 frames: the default 512 lost a sixth of
# the answers while the flooder's main lcore, which reads them, waited for
# a loaded machine (missed_by_port says how many).
# The server's count includes the legitimate client's challenges (5
# channels, a retransmission each at most), which stay on its host.
# Frames the kernel reports dropped on the way may be missing too.
drops=$(($(kernel_drops) - drops_before))
echo "kernel drops on the way (veth ends, backlogs): $drops"
[ "${cookies:-0}" -le "${challenged:-0}" ] &&
	[ "${cookies:-0}" -ge "$((${challenged:-0} - 10 - drops))" ] ||
	fail "cookie requests read from the port ($cookies) are not the server's challenges ($challenged, less 10 at most for the legitimate client, less $drops the kernel dropped)"
[ "$((${cookies:-0} + ${r1:-0}))" -gt 0 ] || fail "no answer read from the port"
[ "$(json_field "$dir/flood.out" resets)" = 0 ] ||
	fail "resets to a ChkI1 flood: $(cat "$dir/flood.out")"
[ "$fails" -eq 0 ] && echo "sst-gen: flood answered with cookies while a client was served"
exit $((fails != 0))
