#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# sst-perf prio (the SST paper's Figure 9, issue 19) on the loopback, on a
# schedule of seconds: two 300 KB downloads share a 4 Mbit/s link with a
# short queue, a third at 0.4 s asks for a high priority, and at 0.8 s the
# client raises the second above the first. The priorities reach the
# server only as requests on the streams (sst_stream_request_priority()),
# so the shares below hold only if the server applies them:
#   - while the third download runs, it gets at least 75 % of the bytes;
#   - after it, until the second is done, the second gets at least 75 %;
#   - before the third, neither of the first two gets less than 25 %.
# Byte shares between samples, not times: the margins absorb a busy host.
# Usage: perf_prio.sh PATH/TO/sst-perf
set -u
perf=${1:?usage: perf_prio.sh PATH/TO/sst-perf}
out=$(mktemp "${TMPDIR:-/tmp}/sst-perf-prio.XXXXXX")
trap 'rm -f "$out"' EXIT

"$perf" --loopback --rate 4 --delay 10 --queue 16 --verify --quiet --response 300000 \
	--prio-at 0.4,0.8,0.05 prio >"$out"
rc=$?
if [ $rc -ne 0 ]; then
	cat "$out" >&2
	echo "FAIL: sst-perf prio exited with $rc" >&2
	exit 1
fi
python3 - "$out" <<'PY'
import sys

total = 300000
rows = []
for line in open(sys.argv[1]):
    f = line.strip().split(",")
    if len(f) == 4 and f[0][:1].isdigit():
        rows.append((float(f[0]), [int(x) for x in f[1:]]))
fails = 0

def check(what, ok):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += not ok

def share(i, a, b):
    """Download i's share of the bytes received from sample a to sample b."""
    got = [rows[b][1][k] - rows[a][1][k] for k in range(3)]
    return (got[i] / sum(got) if sum(got) else 0.0), sum(got)

check("every download complete", bool(rows) and rows[-1][1] == [total] * 3)
if fails:
    sys.exit(1)
third_on = next(k for k, r in enumerate(rows) if r[1][2] > 0)
third_off = next(k for k, r in enumerate(rows) if r[1][2] == total)
second_off = next(k for k, r in enumerate(rows) if r[1][1] == total)
if third_on > 0:
    s1, n = share(0, 0, third_on - 1)
    check(f"before the third, the first has {s1:.0%} of {n} bytes (25-75 %)",
          n == 0 or 0.25 <= s1 <= 0.75)
s, n = share(2, third_on, third_off)
check(f"while it runs, the third has {s:.0%} of {n} bytes (at least 75 %)", n > 0 and s >= 0.75)
s, n = share(1, third_off, second_off)
check(f"after the swap, the second has {s:.0%} of {n} bytes (at least 75 %)",
      n >= 50000 and s >= 0.75)
sys.exit(1 if fails else 0)
PY
