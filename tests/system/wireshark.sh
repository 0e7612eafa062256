#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The Wireshark dissector (tools/wireshark/sst.lua) against sst-dump, packet
# by packet (wireshark_compare.py): every capture of the original prototype
# (chk-02 also with the checksum keys of chk-01 given as
# preferences, as sst-dump --chk-key takes them), a tampered copy of chk-01
# whose trailer must fail in both, and fresh sst-perf --capture recordings
# (the client's side) in checksum mode and in secure mode (AES-128-GCM),
# whose channel packets must all be marked encrypted. Two comparisons run
# at a time (tshark's start-up is most of the cost). Skipped (77) without
# tshark.
# Usage: wireshark.sh SST_LUA SST_DUMP SST_PERF VECTOR_DIR
set -u
lua=${1:?usage: wireshark.sh SST_LUA SST_DUMP SST_PERF VECTOR_DIR}
dump=${2:?}
perf=${3:?}
vectors=${4:?}
here=$(dirname "$0")
tshark=$(command -v tshark) || {
	echo "tshark is not installed (scripts/setup-deps.sh): skipped"
	exit 77
}
dir=$(mktemp -d "${TMPDIR:-/tmp}/sst-wireshark.XXXXXX") || {
	echo "$0: cannot make a scratch directory" >&2
	exit 1
}
trap 'rm -rf "$dir"' EXIT
# tshark keeps its profile and temporary files under HOME.
export HOME=$dir
fails=0

# compare CAPTURE [OPTIONS]: in the background, two at a time; the results
# are collected by finish.
jobs_run=0
compare() {
	jobs_run=$((jobs_run + 1))
	python3 "$here/wireshark_compare.py" "$tshark" "$lua" "$dump" 8661 "$@" \
		>"$dir/cmp.$jobs_run" 2>&1 || echo "FAIL: exit status $?" >>"$dir/cmp.$jobs_run" &
	if [ $((jobs_run % 2)) -eq 0 ]; then
		wait
	fi
}
finish() {
	wait
	for i in $(seq "$jobs_run"); do
		cat "$dir/cmp.$i"
	done
	fails=$((fails + $(cat "$dir"/cmp.* | grep -c '^FAIL')))
}

keys01=(--chk-key 127.0.0.1:8665,127.0.0.1:8661,1,c21c5f62
	--chk-key 127.0.0.1:8661,127.0.0.1:8665,1,35d53d2a)
n=0
for f in "$vectors"/*.pcap; do
	case $(basename "$f") in
	aes-*) compare "$f" --encrypted 1 ;;
	chk-02-*)
		compare "$f"
		compare "$f" "${keys01[@]}"
		;;
	*) compare "$f" ;;
	esac
	n=$((n + 1))
done
[ "$n" -ge 8 ] || {
	echo "FAIL: $n captures in $vectors, want the 8 of the prototype"
	fails=$((fails + 1))
}

# One payload byte of chk-01's service request (frame 3) changed: its Chk32
# must fail in the dissector as in sst-dump.
python3 - "$vectors"/chk-01-*.pcap "$dir/tampered.pcap" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
i = data.find(b"interop")
data[i] ^= 0x20
open(sys.argv[2], "wb").write(data)
PY
compare "$dir/tampered.pcap" --bad 1

# Both forms of --capture: a prefix (checksum mode) and a file name
# (secure mode, FILE.pcapng: FILE-client.pcapng on the loopback).
for armor in chk32 aes128gcm; do
	capture=$dir/$armor
	[ "$armor" = chk32 ] || capture=$dir/$armor.pcapng
	if ! "$perf" --loopback --quiet --size 200K --armor "$armor" --capture "$capture" >"$dir/$armor.out" 2>&1; then
		echo "FAIL: sst-perf --armor $armor: $(tail -3 "$dir/$armor.out")"
		fails=$((fails + 1))
		continue
	fi
	enc=0
	file=$dir/$armor-client-w0.pcapng
	[ "$armor" = chk32 ] || { enc=50; file=$dir/$armor-client.pcapng; }
	compare "$file" --encrypted "$enc"
done
finish
[ "$fails" -eq 0 ] && echo "the dissector agrees with sst-dump on every capture"
exit $((fails != 0))
