#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Per-channel telemetry during a live run (issue 20): sst-perf in secure
# mode (AES-128-GCM) over its loopback, with the EAL's telemetry socket on a
# file prefix of our own; dpdk-telemetry.py lists the channels
# (/sst/channels) and reads each (/sst/channel,<worker>.<index>): peer,
# state, mode, armor, congestion control and counters must be there and
# move; a channel that does not exist and a bad parameter get no answer.
# The run has 40 bulk streams and 1% loss: /sst/streams shows the streams
# of each channel in pages of 32 (the second page from the first's "next"),
# with their states and offsets, and the sender's channel counts resent
# packets and bytes.
# Usage: telemetry.sh SST_PERF
set -u
here=$(cd "$(dirname "$0")" && pwd) # jsonl_check.py
perf=${1:?usage: telemetry.sh SST_PERF}
tel=$(command -v dpdk-telemetry.py) || {
	echo "dpdk-telemetry.py is not installed (Debian dpdk-dev): skipped"
	exit 77
}
dir=$(mktemp -d "${TMPDIR:-/tmp}/sst-telemetry.XXXXXX") || {
	echo "$0: cannot make a scratch directory" >&2
	exit 1
}
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
	--loopback --quiet --armor aes128gcm --streams 40 --loss 1 --time 60 >"$dir/perf.out" 2>&1 &
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

# One dpdk-telemetry.py run for all (each costs a Python start): the
# channels, then the first page of streams of each side and three
# /sst/streams without an answer.
out=$(query /sst/channel,0.0 /sst/channel,1.0 /sst/channel,0.0 /sst/channel,0.7 /sst/channel,zz \
	/sst/channels,1 /sst/streams,0.0 /sst/streams,1.0 /sst/streams,0.9 /sst/streams,0 \
	/sst/streams,0.0.x)
echo "$out" | cut -c1-400
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
	for n in cwnd srtt_ns rttvar_ns rto_ns tx_packets rx_packets acked next_seq; do
		v=$(field "$l" $n)
		[ "${v:-0}" -gt 0 ] 2>/dev/null || fail "channel $i.0: $n is '$v'"
	done
	for n in ssthresh bytes_in_flight lost resent_packets resent_bytes rto_expiries \
		streams_attached rx_armor_failures; do
		[ -n "$(field "$l" $n)" ] || fail "channel $i.0: no $n"
	done
done
# The client's worker sends the bulk: its channel's packets move on.
a=$(field "${lines[0]}" tx_packets)
b=$(field "${lines[2]}" tx_packets)
[ "${b:-0}" -gt "${a:-0}" ] || fail "channel 0.0: tx_packets did not move ($a, then $b)"
# The sender resends what the 1% loss took.
for n in lost resent_packets resent_bytes; do
	v=$(field "${lines[2]}" $n)
	[ "${v:-0}" -gt 0 ] 2>/dev/null || fail "channel 0.0 under loss: $n is '$v'"
done
[ "${lines[3]}" = '{"/sst/channel": null}' ] || fail "no channel 0.7: ${lines[3]}"
[ "${lines[4]}" = '{"/sst/channel": null}' ] || fail "bad parameter: ${lines[4]}"
[ "${lines[5]}" = '{"/sst/channels": ["1.0"]}' ] || fail "/sst/channels,1: ${lines[5]}"

# The streams, a page at a time: the client's (ours, sending) on worker 0,
# the server's (the peer's SIDs, receiving) on worker 1.
# The next pages of both sides, one dpdk-telemetry.py run a round.
echo "${lines[6]}" >"$dir/client.json"
echo "${lines[7]}" >"$dir/server.json"
next() { # REPLY: its "next", or 0 (no Python start: they are slow on a loaded machine)
	local n
	n=$(grep -o '^{"/sst/streams": {"next": [0-9]*' <<<"$1" | grep -o '[0-9]*$')
	echo "${n:-0}"
}
c=$(next "${lines[6]}")
s=$(next "${lines[7]}")
for _ in $(seq 10); do
	[ "$c" = 0 ] && [ "$s" = 0 ] && break
	asks=()
	[ "$c" != 0 ] && asks+=("/sst/streams,0.0.$c")
	[ "$s" != 0 ] && asks+=("/sst/streams,1.0.$s")
	mapfile -t more < <(query "${asks[@]}")
	if [ "$c" != 0 ]; then
		echo "${more[0]}" >>"$dir/client.json"
		c=$(next "${more[0]}")
		more=("${more[@]:1}")
	fi
	if [ "$s" != 0 ]; then
		echo "${more[0]}" >>"$dir/server.json"
		s=$(next "${more[0]}")
	fi
done
PYTHONPATH="$here" python3 - "$dir/client.json" "$dir/server.json" <<'PY' || fail "/sst/streams"
import json
import sys

import jsonl_check
from jsonl_check import check

def pages(path):
    return [json.loads(line)["/sst/streams"] for line in open(path) if line.strip()]


for path, ours, kind in ((sys.argv[1], 1, "tx"), (sys.argv[2], 0, "")):
    ps = pages(path)
    check(ps and all(p is not None for p in ps), f"{path}: a page is null: {ps}")
    if not jsonl_check.ok():
        break
    check(len(ps) >= 2 and len(ps[0]) == 33 and ps[0]["next"] > 0 and ps[-1]["next"] == 0,
          f"{path}: want a full first page of 32 and a next page: {[len(p) for p in ps]}")
    streams = {k: v for p in ps for k, v in p.items() if k != "next"}
    # The server may have SIDs of its own for the client's streams.
    mine = [v for k, v in streams.items() if k.startswith(kind + "_") or not ours]
    check(len(mine) >= 40, f"{path}: {len(mine)} {kind} streams, want the 40 of the run")
    for k, v in streams.items():
        check(v["sid"] == int(k.split("_")[1]) and v["ours"] == (k[:2] == "tx"), f"{k}: {v}")
        check(v["state"] == "live" and v["send"] in ("open", "close_queued", "close_owed")
              and v["recv"] == "open" and "priority" in v, f"{k}: states {v}")
        check(v["acked"] <= v["sent"] <= v["written"], f"{k}: offsets {v}")
        for f in ("sndbuf", "rcvbuf", "rcvwnd", "received"):
            check(f in v, f"{k}: no {f}")
    moved = [v for v in mine if (v["sent"] if ours else v["received"]) > 0]
    check(len(moved) >= 40, f"{path}: only {len(moved)} streams moved data")
    if ours:
        check(any(v["sndbuf"] > 0 for v in mine), f"{path}: no send buffer holds data")
    else:
        check(any(v["rcvwnd"] > 0 for v in mine), f"{path}: no receive window")
jsonl_check.done()
PY
for i in 8 9 10; do
	[ "${lines[$i]}" = '{"/sst/streams": null}' ] ||
		fail "/sst/streams of no channel, or a bad parameter: ${lines[$i]}"
done

kill -0 "$pid" 2>/dev/null || fail "sst-perf ended early: $(tail -3 "$dir/perf.out")"
[ "$fails" -eq 0 ] && echo "per-channel telemetry read during a live run"
exit $((fails != 0))
