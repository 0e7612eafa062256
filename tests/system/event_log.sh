#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The event log (issue 20): a short sst-perf loopback with 1% loss and
# --event-log writes JSON lines, each a parseable object with the fields
# its kind documents: both sides' channels come up, the sender's RTT
# samples, window changes and losses are there, in time order per worker,
# and so are the streams' lives (connected at the client, accepted at the
# server, closed on both with a known reason);
# then scripts/plot-events.py turns the file into cwnd.png and rtt.png
# (skipped, and said, when matplotlib is missing: the script's status 3).
# Usage: event_log.sh SST_PERF PLOT_EVENTS
set -u
here=$(cd "$(dirname "$0")" && pwd) # jsonl_check.py
perf=${1:?usage: event_log.sh SST_PERF PLOT_EVENTS}
plot=${2:?usage: event_log.sh SST_PERF PLOT_EVENTS}
dir=$(mktemp -d "${TMPDIR:-/tmp}/sst-events.XXXXXX") || {
	echo "$0: cannot make a scratch directory" >&2
	exit 1
}
trap 'rm -rf "$dir"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

"$perf" --loopback --quiet --time 1 --loss 1 --event-log "$dir/events.jsonl" >"$dir/perf.out" 2>&1 ||
	fail "sst-perf: $(tail -3 "$dir/perf.out")"
[ -s "$dir/events.jsonl" ] || fail "no event log written"
PYTHONPATH="$here" python3 - "$dir/events.jsonl" <<'PY' || fail "the event log"
import json
import sys

import jsonl_check
from jsonl_check import check

fields = {"up": ["peer_ch", "secure"], "down": [], "replacing": [], "migrated": ["to"],
          "rtt": ["sample_ns", "srtt_ns", "rttvar_ns"], "cwnd": ["cwnd", "ssthresh", "in_flight"],
          "loss": ["seq", "bytes"], "rto": ["rto_ns"], "stream_connected": ["usid", "err"],
          "stream_accepted": ["usid", "sub"], "stream_closed": ["usid", "why", "written"]}
ends = {"finished", "reset_local", "reset_remote", "refused", "aborted", "timed_out"}

count, last = {}, {}
for n, line in enumerate(open(sys.argv[1]), 1):
    try:
        ev = json.loads(line)
    except ValueError:
        check(False, f"line {n} is not JSON: {line!r}")
        continue
    kind = ev.get("ev")
    check(kind in fields, f"line {n}: unknown event {kind!r}")
    if kind not in fields:
        continue
    want = ["t", "w", "ch", "ev"] + fields[kind]
    check(sorted(ev) == sorted(want) and
          all(isinstance(ev[k], int) for k in want if k not in ("ev", "why")),
          f"line {n}: want the fields {want}: {ev}")
    if kind.startswith("stream_"):
        check(ev["ch"] == 0, f"line {n}: a stream's event names no channel: {ev}")
    if kind == "stream_closed":
        check(ev["why"] in ends, f"line {n}: unknown end {ev['why']!r}")
    check(ev["t"] >= last.get(ev["w"], 0), f"line {n}: time went back on worker {ev['w']}")
    last[ev["w"]] = ev["t"]
    count[(kind, ev["w"])] = count.get((kind, ev["w"]), 0) + 1
    if kind == "rtt":
        check(ev["sample_ns"] > 0 and ev["srtt_ns"] > 0, f"line {n}: {ev}")
    if kind == "cwnd":
        check(ev["cwnd"] > 0, f"line {n}: {ev}")
print("events:", dict(sorted(count.items())))
# Worker 0 is the client, which sends the bulk; worker 1 the server.
for w in (0, 1):
    check(count.get(("up", w), 0) >= 1, f"no channel up on worker {w}")
for kind in ("rtt", "cwnd", "loss"):
    check(count.get((kind, 0), 0) >= 1, f"no {kind} event from the sender")
# The streams' lives: the client opens them, the server accepts them.
check(count.get(("stream_connected", 0), 0) >= 1, "no stream connected at the client")
check(count.get(("stream_accepted", 1), 0) >= 1, "no stream accepted at the server")
for w in (0, 1):
    check(count.get(("stream_closed", w), 0) >= 1, f"no stream closed on worker {w}")
jsonl_check.done()
PY

"$plot" "$dir/events.jsonl" --out "$dir/plots" >"$dir/plot.out" 2>&1
rc=$?
cat "$dir/plot.out"
if [ "$rc" -eq 3 ]; then
	echo "matplotlib is missing: the plots were not tried"
elif [ "$rc" -ne 0 ]; then
	fail "plot-events.py exited with $rc"
else
	for png in cwnd rtt; do
		[ "$(head -c 8 "$dir/plots/$png.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
			fail "$png.png is not a PNG"
	done
fi
[ "$fails" -eq 0 ] && echo "event log written, parsed and plotted"
exit $((fails != 0))
