#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The main job on its embedded default: install what is missing, build, run
# sst-perf --loopback (client and server in one process over an in-memory
# link: no NIC, no hugepages, no configuration), a short bulk run and a short
# request/response run, and then decode and verify every capture of the
# original SST prototype with sst-dump.
set -eu
cd "$(dirname "$0")/.."
scripts/setup-deps.sh build
# The optimised build (-O3, no assertions); the tests use build/.
scripts/build.sh fast build-fast
perf=build-fast/apps/sst-perf/sst-perf
echo
echo "SST-DPDK: sst-perf --loopback, bulk transfer for 3 s (one stream, Chk32 armor, --verify)"
"$perf" --loopback --time 3 --verify bulk
echo
echo "SST-DPDK: sst-perf --loopback, transactions for 3 s (each on a new stream, 64 B each way)"
"$perf" --loopback --time 3 --verify rr
echo
dump=build-fast/apps/sst-dump/sst-dump
vec=tests/vectors/sst-prototype
C=127.0.0.1:8665
S=127.0.0.1:8661

run() {
	echo
	echo "### $1"
	shift
	"$dump" --verify "$@" | tail -n 3
}

echo "SST-DPDK: decoding the original SST prototype's captures (tests/vectors/sst-prototype)"
echo "First packets of the checksum-mode session:"
"$dump" "$vec"/chk-01-*.pcap | head -n 8
run "chk-01..05: one checksum-mode session (handshake, substreams, datagram, 1 MiB, close)" \
	"$vec"/chk-0[1-5]-*.pcap
run "chk-06: the same session with receive-buffer drops" "$vec"/chk-06-*.pcap
run "chk-07: ack freeze at 65,535 packets and migration to a new channel" "$vec"/chk-07-*.pcap
run "aes-10: the prototype's AES armor, with the session keys from the vectors' README" \
	--aes-key "$C,$S,1,c05155232709365f7c7bf9762e2e657f,a57f2c4e49a5d729102290a634a2353a3a38cf9838e214b05c812791ad0e44c8" \
	--aes-key "$S,$C,1,1d8fdeee245f6dcf7ccdd8164a4c0c83,99e32ce14b4643f951adce360d03d73b3077e846c212a3a42315171675030686" \
	"$vec"/aes-10-*.pcap
echo
echo "All captures decoded and verified."
