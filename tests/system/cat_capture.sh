#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# sst-cat --capture and --event-log (issue 20): an echo listener and a
# client, each recording its traffic (the listener to a prefix, PREFIX-w0,
# the client to a file, FILE.pcapng) and its events; sst-dump must decode
# and verify every packet of both captures (checksum mode: the Chk32
# trailers), the client's capture must hold the echoed bytes' channel
# packets, and each event log must be JSON lines with the channel up and
# the stream's life: connected and closed at the client, accepted and
# closed at the listener.
# Usage: cat_capture.sh PATH/TO/sst-cat PATH/TO/sst-dump
set -u
cat_bin=${1:?usage: cat_capture.sh PATH/TO/sst-cat PATH/TO/sst-dump}
dump=${2:?usage: cat_capture.sh PATH/TO/sst-cat PATH/TO/sst-dump}
. "$(dirname "$0")/cat_common.sh"

listen echo /dev/null /dev/null --echo --capture "$dir/server" --event-log "$dir/server.events" \
	127.0.0.1:0 echo test
head -c 100000 /dev/urandom >"$dir/in"
run client 0 --capture "$dir/client.pcapng" --event-log "$dir/client.events" \
	"127.0.0.1:$port" echo test <"$dir/in" &&
	{ cmp -s "$dir/in" "$dir/client.out" || fail "the echo differs"; }
stop echo kill

[ -e "$dir/client-w0.pcapng" ] && fail "--capture FILE.pcapng left client-w0.pcapng"
for f in "$dir/server-w0.pcapng" "$dir/client.pcapng"; do
	side=$(basename "$f" | sed 's/[-.].*//')
	if [ ! -s "$f" ]; then
		fail "no capture $f"
		continue
	fi
	"$dump" --verify --port "$port" "$f" >"$dir/$side.dump" 2>&1 ||
		fail "$side capture does not verify: $(tail -3 "$dir/$side.dump")"
	n=$(sed -n 's/^verified \([0-9]*\)\/.*/\1/p' "$dir/$side.dump")
	# 100 kB is at least 80 data packets each way.
	[ "${n:-0}" -ge 160 ] || fail "$side capture: only ${n:-0} packets verified"
done

python3 - "$dir/client.events" "$dir/server.events" <<'PY' || fail "the event logs"
import json, sys

ok = True
for path, want in ((sys.argv[1], ("up", "stream_connected", "stream_closed")),
                   (sys.argv[2], ("up", "stream_accepted", "stream_closed"))):
    events = []
    for n, line in enumerate(open(path), 1):
        try:
            events.append(json.loads(line))
        except ValueError:
            print(f"FAIL: {path}:{n} is not JSON: {line!r}")
            ok = False
    kinds = [e.get("ev") for e in events]
    print(path.rsplit("/", 1)[-1], "events:", {k: kinds.count(k) for k in sorted(set(kinds))})
    for k in want:
        if k not in kinds:
            print(f"FAIL: {path}: no {k} event")
            ok = False
    for e in events:
        if e.get("ev") == "stream_connected" and e.get("err") != 0:
            print(f"FAIL: {path}: the stream did not connect: {e}")
            ok = False
        if e.get("ev") == "stream_closed" and (e.get("why") != "finished" or e.get("ch") != 0):
            print(f"FAIL: {path}: the echo's stream did not finish: {e}")
            ok = False
sys.exit(0 if ok else 1)
PY

[ "$fails" -eq 0 ] && echo "sst-cat --capture and --event-log: both captures verify, both logs hold the stream's life"
exit $((fails != 0))
