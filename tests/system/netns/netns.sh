#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# System test of the engine through the real Linux stack:
#   host side: netns_echo --connect, an engine on net_af_packet bound to
#              one end of a veth pair, address 10.199.<n>.1/24 (lib/net
#              answers ARP and ping for it; the kernel does not have it);
#   namespace: netns_echo --serve, an echo server on kernel UDP at
#              10.199.<n>.2.
# Checks that the namespace resolves our address by ARP to our MAC, that
# ping gets answers from lib/net, and that 3 streams of 1 MB come back
# byte-exact. The namespace and the veth pair are removed on every exit.
set -u
prog=${1:?usage: netns.sh path/to/netns_echo}
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root"
command -v ip > /dev/null || skip "needs iproute2"
command -v ping > /dev/null || skip "needs ping (iputils-ping)"

. "$(dirname "$0")/../veth_ns.sh"
server_pid=
cleanup() {
	[ -n "$server_pid" ] && kill "$server_pid" 2> /dev/null && wait "$server_pid" 2> /dev/null
	veth_ns_down
}
trap cleanup EXIT
veth_ns_up N 199
mac=$(cat "/sys/class/net/$va/address")

eal=(--no-huge --no-pci -m 1024 --log-level=lib.eal:error)
ip netns exec "$ns" "$prog" "${eal[@]}" --file-prefix="sst-ns-srv-$$" --no-telemetry -- \
	--serve "$net.2:7000" &
server_pid=$!
sleep 1

"$prog" "${eal[@]}" --file-prefix="sst-ns-cli-$$" --no-telemetry \
	--vdev="net_af_packet0,iface=$va" -- \
	--connect "$net.2:7000" --ip "$net.1/24" --bytes 1000000 --streams 3 --linger 4 &
client_pid=$!

# While the client runs (it lingers after the transfer): ping it.
sleep 2
fail=0
if ip netns exec "$ns" ping -c 3 -i 0.3 -W 2 "$net.1" > /tmp/sst-ns-ping-$$ 2>&1; then
	echo "ping: $(grep -c 'bytes from' /tmp/sst-ns-ping-$$) answers from lib/net"
else
	echo "FAIL: no answer to ping"
	cat /tmp/sst-ns-ping-$$
	fail=1
fi
rm -f /tmp/sst-ns-ping-$$
neigh=$(ip netns exec "$ns" ip neigh show "$net.1")
echo "ARP in the namespace: $neigh (our MAC $mac)"
case "$neigh" in
*"lladdr $mac"*) ;;
*)
	echo "FAIL: the namespace did not resolve $net.1 to $mac"
	fail=1
	;;
esac
if ! wait "$client_pid"; then
	echo "FAIL: the transfer did not complete byte-exact"
	# Datagrams the namespace's kernel dropped (InCsumErrors: our checksums).
	ip netns exec "$ns" grep '^Udp:' /proc/net/snmp
	fail=1
fi
exit $fail
