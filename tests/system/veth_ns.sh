# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the system tests that run a DPDK port against the real Linux
# stack: a network namespace and a veth pair made for one test run.
#
# veth_ns_up TAG OCTET: namespace sst-TAG-<pid>, veth sstTAGA<pid> here and
# sstTAGB<pid> in the namespace, which gets 10.OCTET.<n>.2/24 (our end has
# no address: a DPDK port on net_af_packet takes it, lib/net answering ARP
# for .1). Sets ns, va, vb and net (10.OCTET.<n>); exits 77 (skipped) where
# namespaces or veth pairs cannot be made. veth_ns_down removes both; call
# it from the test's EXIT trap.
veth_ns_up() {
	local n=$(($$ % 200 + 20))

	ns=sst-$1-$$
	va=sst${1}A$$
	vb=sst${1}B$$
	net=10.$2.$n
	ip netns add "$ns" || skip "cannot create a network namespace here"
	ip link add "$va" type veth peer name "$vb" || skip "cannot create a veth pair"
	ip link set "$vb" netns "$ns"
	# Our end carries only our engine's traffic: no address, no IPv6.
	sysctl -qw "net.ipv6.conf.$va.disable_ipv6=1" 2>/dev/null
	ip link set "$va" up
	ip netns exec "$ns" ip link set lo up
	ip netns exec "$ns" ip addr add "$net.2/24" dev "$vb"
	ip netns exec "$ns" ip link set "$vb" up
	# veth leaves UDP checksums to an offload that af_packet never
	# completes: the namespace's kernel must compute them.
	if command -v ethtool >/dev/null; then
		ip netns exec "$ns" ethtool -K "$vb" tx off >/dev/null 2>&1
	fi
}

veth_ns_down() {
	[ -n "${va:-}" ] && ip link del "$va" 2>/dev/null
	[ -n "${ns:-}" ] && ip netns del "$ns" 2>/dev/null
	return 0
}
