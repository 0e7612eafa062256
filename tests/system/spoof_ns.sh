# SPDX-License-Identifier: BSD-3-Clause
# Sourced (after veth_ns.sh) by what floods an SST server with spoofed
# sources: tests/system/flood_netns.sh and perf/flood.sh.
#
# spoof_ns_up TAG OCTET: veth_ns_up, and our end gets $net.1 (the clients
# and the flooder use the kernel's stack here); the namespace takes packets
# from any source (no reverse path filter) and sends its answers to the
# spoofed sources back here, where they are dropped (no forwarding).
spoof_ns_up() {
	veth_ns_up "$1" "$2"
	ip addr add "$net.1/24" dev "$va"
	ip netns exec "$ns" sysctl -qw net.ipv4.conf.all.rp_filter=0 \
		"net.ipv4.conf.$vb.rp_filter=0"
	ip netns exec "$ns" ip route add default via "$net.1"
}

# echo_service_start SST_CAT PREFIX ERRFILE [ARGS...]: an sst-cat echo
# service for "echo test" on $net.2:7000 in the namespace, its stderr in
# ERRFILE; sets server (its pid) once it listens, exits 1 if it never does.
echo_service_start() {
	local bin=$1 prefix=$2 err=$3

	shift 3
	ip netns exec "$ns" "$bin" --no-huge --no-pci -m 1024 --no-telemetry \
		--log-level=lib.eal:error --file-prefix="$prefix" -- \
		--listen --echo "$@" "$net.2:7000" echo test </dev/null >/dev/null 2>"$err" &
	server=$!
	for _ in $(seq 300); do
		grep -q "listening on" "$err" && return 0
		kill -0 "$server" 2>/dev/null || break
		sleep 0.1
	done
	cat "$err" >&2
	exit 1
}
