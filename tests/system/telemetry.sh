#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Per-channel telemetry during a live run (issue 20): sst-perf in secure
# mode (AES-128-GCM) over its loopback, with the EAL's telemetry socket on a
# file prefix of our own; dpdk-telemetry.py lists the channels
# (/sst/channels) and reads each (/sst/channel,<worker>.<index>): peer,
# state, mode, armor, congestion control and counters must be there and
# move; a channel that does not exist and a bad parameter get no answer.
# Usage: telemetry.sh SST_PERF
set -u
perf=${1:?usage: telemetry.sh SST_PERF}
tel=$(command -v dpdk-telemetry.py) || {
	echo "dpdk-telemetry.py is not installed (Debian dpdk-dev): skipped"
	exit 77
}
dir=$(mktemp -d "${TMPDIR:-/tmp}/sst-telemetry.XXXXXX")
prefix=sst-tel-$$
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# EAL arguments of our own instead of the tools' defaults (which turn
# telemetry off): no hugepages, no devices, our prefix.
"$perf" --no-huge --no-pci -m 512 --file-prefix="$prefix" -- \
	--loopback --quiet --armor aes128gcm --time 60 >"$dir/perf.out" 2>&1 &
pid=$!

# The socket appears once the EAL is up; the channels once negotiated.
query() {
	printf '%s\n' "$@" | "$tel" -f "$prefix" 2>&1
}
for _ in $(seq 300); do
	kill -0 "$pid" 2>/dev/null || break
	out=$(query /sst/channels)
	grep -q '"/sst/channels": \["0.0"' <<<"$out" && break
	sleep 0.2
done
grep -q '"/sst/channels": \["0.0", "1.0"\]' <<<"$out" ||
	fail "/sst/channels: want a channel on each of the two workers: $out $(tail -3 "$dir/perf.out")"

out=$(query /sst/channel,0.0 /sst/channel,1.0 /sst/channel,0.0 /sst/channel,0.7 /sst/channel,zz \
	/sst/channels,1)
echo "$out"
mapfile -t lines <<<"$out"
# field LINE NAME: a value of one reply
field() {
	grep -o "\"$2\": [^,}]*" <<<"$1" | head -1 | cut -d' ' -f2- | tr -d '"'
}
for i in 0 1; do
	l=${lines[$i]}
	[ "$(field "$l" state)" = live ] || fail "channel $i.0: state $(field "$l" state)"
	[ "$(field "$l" mode)" = secure ] || fail "channel $i.0: mode $(field "$l" mode)"
	[ "$(field "$l" armor)" = aes128gcm ] || fail "channel $i.0: armor $(field "$l" armor)"
	[ "$(field "$l" cc)" = newreno ] || fail "channel $i.0: cc $(field "$l" cc)"
	grep -Eq '^10\.0\.0\.[12]:8661$' <<<"$(field "$l" peer)" || fail "channel $i.0: peer $(field "$l" peer)"
	for n in cwnd srtt_ns rto_ns tx_packets rx_packets acked next_seq; do
		v=$(field "$l" $n)
		[ "${v:-0}" -gt 0 ] 2>/dev/null || fail "channel $i.0: $n is '$v'"
	done
	for n in ssthresh bytes_in_flight lost rto_expiries streams_attached rx_armor_failures; do
		[ -n "$(field "$l" $n)" ] || fail "channel $i.0: no $n"
	done
done
# The client's worker sends the bulk: its channel's packets move on.
a=$(field "${lines[0]}" tx_packets)
b=$(field "${lines[2]}" tx_packets)
[ "${b:-0}" -gt "${a:-0}" ] || fail "channel 0.0: tx_packets did not move ($a, then $b)"
[ "${lines[3]}" = '{"/sst/channel": null}' ] || fail "no channel 0.7: ${lines[3]}"
[ "${lines[4]}" = '{"/sst/channel": null}' ] || fail "bad parameter: ${lines[4]}"
[ "${lines[5]}" = '{"/sst/channels": ["1.0"]}' ] || fail "/sst/channels,1: ${lines[5]}"

kill -0 "$pid" 2>/dev/null || fail "sst-perf ended early: $(tail -3 "$dir/perf.out")"
[ "$fails" -eq 0 ] && echo "per-channel telemetry read during a live run"
exit $((fails != 0))
