#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# sst-perf over AF_XDP (docs/engine.md, "net_af_xdp"): a veth pair made
# here, one end in a namespace of its own; a server on a DPDK port on
# net_af_xdp at one end, a client on another at the other, each with an
# Ethernet and IP address of its own (--mac, --ip) as the af_packet rows
# of perf/compare.sh run. A bulk run and an rr run, every byte verified
# (--verify), and each run must have moved its packets over the port.
# Needs root and a kernel with AF_XDP sockets; skipped (77), saying why,
# otherwise.
# Usage: perf_af_xdp.sh PATH/TO/sst-perf
set -u
perf_bin=${1:?usage: perf_af_xdp.sh PATH/TO/sst-perf}
skip() {
	echo "SKIP: $*"
	exit 77
}
[ "$(id -u)" -eq 0 ] || skip "needs root"
command -v ip >/dev/null || skip "needs iproute2"
# AF_XDP sockets: CONFIG_XDP_SOCKETS. python3 is a build dependency.
python3 -c 'import socket; socket.socket(44, socket.SOCK_RAW, 0)' 2>/dev/null ||
	skip "the kernel has no AF_XDP sockets (socket(AF_XDP) refused)"

. "$(dirname "$0")/veth_ns.sh"
# The scratch directory, $server, fail() and their cleanup.
. "$(dirname "$0")/cat_common.sh"
trap 'cleanup; veth_ns_down' EXIT
veth_ns_up X 197

# Under the sanitizers: the PMD never frees the UMEM handle libxdp made for
# each queue (xsk_umem__create(), 80 bytes), which is neither ours to free
# nor reachable from us (test_link_af_xdp suppresses the same leak).
printf 'leak:xsk_umem__create\n' >"$dir/lsan.supp"
export LSAN_OPTIONS="suppressions=$dir/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
eal=(--no-huge --no-pci -m 1024 --no-telemetry --log-level=lib.eal:error)
for mode in bulk rr; do
	ip netns exec "$ns" "$perf_bin" "${eal[@]}" --file-prefix="sst-px-srv-$$-$mode" \
		--vdev="net_af_xdp0,iface=$vb" -- --server --once --udp 4433 --port 0 \
		--ip "$net.11/24" --mac 02:53:58:00:00:0b >"$dir/server-$mode.out" 2>&1 &
	server=$!
	sleep 2
	if ! timeout 120 "$perf_bin" "${eal[@]}" --file-prefix="sst-px-cli-$$-$mode" \
		--vdev="net_af_xdp0,iface=$va" -- --udp "$net.11:4433" --port 0 \
		--ip "$net.12/24" --mac 02:53:58:00:00:0c --time 1 --verify "$mode" \
		>"$dir/$mode.out" 2>&1; then
		fail "sst-perf $mode over net_af_xdp: $(tail -5 "$dir/$mode.out")"
		echo "the server's last words:" >&2
		tail -5 "$dir/server-$mode.out" >&2
	else
		# The run's own count of packets sent over the port: a run that
		# never left the process would have none.
		pkts=$(awk '/^  packets / {print $2; exit}' "$dir/$mode.out")
		[ "${pkts:-0}" -gt 0 ] || fail "sst-perf $mode: no packets counted: $(cat "$dir/$mode.out")"
		grep -E "goodput|transactions |packets " "$dir/$mode.out"
	fi
	wait "$server" 2>/dev/null
	server=
done

[ "$fails" -eq 0 ] && echo "sst-perf over net_af_xdp: bulk and rr verified"
exit $((fails != 0))
