#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The web workload of Figure 8 (issue 19) on a tiny trace, both sides of
# the comparison:
#   - sst-perf --loopback --verify web: a stream per object, every response
#     byte checked against the pattern and every response's length against
#     the trace (verify errors fail the run); each page reported once with
#     its request count and bytes, every object a completed transaction;
#   - perf/web_anchor against a txn_anchor server on 127.0.0.1, in its four
#     HTTP flavours: every page reported with its request count and bytes
#     (web_anchor checks each response's length header and byte count).
# Usage: perf_web.sh PATH/TO/sst-perf PATH/TO/web_anchor PATH/TO/txn_anchor
set -u
perf=${1:?usage: perf_web.sh SST-PERF WEB-ANCHOR TXN-ANCHOR}
web=${2:?usage: perf_web.sh SST-PERF WEB-ANCHOR TXN-ANCHOR}
txn=${3:?usage: perf_web.sh SST-PERF WEB-ANCHOR TXN-ANCHOR}
dir=$(mktemp -d "${TMPDIR:-/tmp}/sst-perf-web.XXXXXX") || exit 1
srv=
trap '[ -n "$srv" ] && kill $srv 2>/dev/null; rm -rf "$dir"' EXIT
fails=0
check() { # WHAT CONDITION...
	local what=$1
	shift
	if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}

# Four pages: a primary alone, a few objects, many small ones (more
# streams at once than pages have on average), one larger than the
# initial windows; 19 objects, 331,550 bytes.
cat >"$dir/trace" <<'T'
# a tiny trace for perf_web.sh
3000
5000 2000 70000
100 200 300 400 500 600 700 800 900 1000 1100 1200
150000 20000 73750
T
want="0,1,3000 1,3,77000 2,12,7800 3,3,243750"
# page,requests,bytes of every page line, in order.
pages() { grep -E '^[0-9]+,' "$1" | cut -d, -f1-3 | tr '\n' ' ' | sed 's/ $//'; }

"$perf" --loopback --verify --delay 1 web --trace "$dir/trace" >"$dir/sst.out" 2>"$dir/sst.err"
rc=$?
check "sst-perf web exits 0 ($rc)" [ $rc -eq 0 ]
check "sst-perf web: each page once, with its requests and bytes" [ "$(pages "$dir/sst.out")" = "$want" ]
check "sst-perf web: 19 transactions" grep -qE '^ +transactions +19 ' "$dir/sst.out"
check "sst-perf web: no verify error" grep -qE '^ +verify errors +0$' "$dir/sst.out"
check "sst-perf web: no failed stream" grep -qE '^ +failed streams +0$' "$dir/sst.out"
check "sst-perf web: the summary line" grep -q '^# web: 4 pages, 19 objects' "$dir/sst.out"
"$perf" --loopback --verify --count 2 web --trace "$dir/trace" >"$dir/sst2.out" 2>&1
check "sst-perf web --count 2: the first two pages" [ "$(pages "$dir/sst2.out")" = "0,1,3000 1,3,77000" ]
if [ $fails -ne 0 ]; then
	cat "$dir/sst.out" "$dir/sst.err" >&2
fi

# A port the kernel gives, for the txn_anchor server.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$txn" server --port "$port" >"$dir/txn.log" 2>&1 &
srv=$!
for i in $(seq 50); do
	python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null && break
	sleep 0.1
done
for mode in serial parallel persist pipeline; do
	"$web" 127.0.0.1 --port "$port" --mode $mode --trace "$dir/trace" --timeout 10000 \
		>"$dir/$mode.out" 2>"$dir/$mode.err"
	rc=$?
	check "web_anchor $mode exits 0 ($rc)" [ $rc -eq 0 ]
	check "web_anchor $mode: each page once, with its requests and bytes" \
		[ "$(pages "$dir/$mode.out")" = "$want" ]
	[ $rc -eq 0 ] || cat "$dir/$mode.err" >&2
done
exit $((fails != 0))
