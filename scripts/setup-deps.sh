#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install what SST-DPDK needs on Debian bookworm, and nothing that is already
# there: packages are checked first, and apt-get runs (update once, then
# install) only for the missing ones. Needs root when something is missing.
# Usage: setup-deps.sh [build|test|eval]   (default: test, which adds clang
# & co.; eval adds what scripts/evaluate.sh needs on top of test)
set -eu
profile=${1:-test}

build_pkgs=(gcc pkg-config python3 meson ninja-build dpdk-dev libdpdk-dev libipsec-mb-dev
	libsodium-dev libpcap-dev libcunit1-dev)
# clang with its runtimes builds the sanitizer and libFuzzer configuration;
# clang-format checks style; tshark's editcap converts captures to pcapng
# and tshark runs the Wireshark dissector's test; groff renders the manual
# pages in suite 'consumer'; doxygen builds the API reference (and its test).
# dpdk-telemetry.py, which the telemetry test drives, comes with dpdk-dev.
# libsystemd-dev: the static link of the examples (pkg-config --static:
# libpcap's static libraries name -lsystemd). librte-net-af-xdp23 (with
# libxdp1 and libbpf1): the net_af_xdp PMD, a plugin the EAL loads for
# --vdev=net_af_xdp0,... (test_link_af_xdp, perf_af_xdp, perf/compare.sh
# --veth); libdpdk-dev depends on it, named here because it is used.
test_pkgs=(clang libclang-rt-14-dev llvm clang-format tshark iproute2 iputils-ping ethtool
	groff-base doxygen libsystemd-dev librte-net-af-xdp23 libxdp1 libbpf1)
# scripts/evaluate.sh: kernel TCP's bulk runs (iperf3) and the plots.
eval_pkgs=(iperf3 python3-matplotlib)

case "$profile" in
build) wanted=("${build_pkgs[@]}") ;;
test) wanted=("${build_pkgs[@]}" "${test_pkgs[@]}") ;;
eval) wanted=("${build_pkgs[@]}" "${test_pkgs[@]}" "${eval_pkgs[@]}") ;;
*)
	echo "usage: $0 [build|test|eval]" >&2
	exit 2
	;;
esac

missing=()
for p in "${wanted[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "setup-deps: all ${#wanted[@]} packages present"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "setup-deps: missing ${missing[*]}; run as root to install them" >&2
	exit 1
fi
echo "setup-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update
# tshark asks whether non-root users may capture; the default answer is fine.
apt-get install -y --no-install-recommends "${missing[@]}"
