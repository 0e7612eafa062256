#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# sst-gen's stateful mode (issue 21), every stream verified byte by byte:
#  - against `sst-cat --listen --echo`: 20 channels, each from a port of its own,
#    5 streams each of 1 to 3000 bytes (--echo: the response is the request);
#  - against `sst-gen server`, secure mode: 8 channels, 2 streams in flight
#    each, exponential requests and Pareto responses; the server's own
#    count of failed streams and wrong bytes must be 0;
#  - against `sst-gen server --mbufs 1024`, short of packet buffers: 16
#    channels x 6 streams of 20 to 80 KB answers, every one answered;
#  - against `sst-perf --server --once` (--sst-perf): 12 channels x 5 streams,
#    2 in flight each, one rr test of it with --verify; the server's counters
#    (back on the control stream) must agree: 60 streams done, none failed,
#    no wrong byte, and its own line must say so; a distribution of sizes
#    (one test has one size) refused with exit 2;
#  - --loopback with a two-workload JSON profile (30 streams a channel one
#    after the other: more than a channel's first SIDs), and a malformed profile
#    refused (exit 2) before anything runs.
# Usage: gen_stateful.sh PATH/TO/sst-gen PATH/TO/sst-cat PATH/TO/sst-perf
set -u
usage="usage: gen_stateful.sh PATH/TO/sst-gen PATH/TO/sst-cat PATH/TO/sst-perf"
gen_bin=${1:?$usage}
cat_bin=${2:?$usage}
perf_bin=${3:?$usage}
. "$(dirname "$0")/cat_common.sh"
. "$(dirname "$0")/gen_common.sh"

# check NAME FILE TXNS: the run's JSON says ok with TXNS verified streams.
check() {
	[ "$(json_field "$2" ok)" = true ] || fail "$1: not ok: $(cat "$2" "$2.err")"
	[ "$(json_field "$2" transactions)" = "$3" ] ||
		fail "$1: $(json_field "$2" transactions) of $3 streams verified"
	[ "$(json_field "$2" verify_errors)" = 0 ] || fail "$1: wrong bytes"
}

listen echo /dev/null /dev/null --echo 127.0.0.1:0 echo test
timeout 60 "$gen_bin" client --udp "127.0.0.1:$port" --echo --service echo --protocol test \
	--channels 20 --src 127.0.0.1:0 --streams 5 --request uniform:1-3000 --json \
	>"$dir/echo.json" 2>"$dir/echo.json.err" || fail "client of sst-cat --echo: exit $?"
check "sst-cat --echo" "$dir/echo.json" 100
stop echo kill

gen_server --armor aes128gcm --quiet
timeout 60 "$gen_bin" client --udp "127.0.0.1:$port" --armor aes128gcm --channels 8 \
	--streams 6 --concurrent 2 --request exp:500 --response pareto:100,1.5 --seed 7 --json \
	>"$dir/gen.json" 2>"$dir/gen.json.err" || fail "client of sst-gen server: exit $?"
check "sst-gen server" "$dir/gen.json" 48
kill "$server"
wait "$server"
server=
grep -q 'server (end): .* answered 48 failed 0, verify errors 0,' "$dir/server.err" ||
	fail "sst-gen server's count: $(tail -1 "$dir/server.err")"

# A server short of packet buffers (--mbufs 1024, the least): 16 channels
# asking for 20 to 80 KB each hold more than the pool in flight, so some
# answers find it empty. Such a stream has its request in and nothing
# written: no callback would ever come back to it, and 3 of the 96 were
# never answered (the client ran to its timeout; sst_gen_port's "short
# response"). The server now tries them again every pass.
gen_server --mbufs 1024 --quiet
timeout 60 "$gen_bin" client --udp "127.0.0.1:$port" --channels 16 --src 127.0.0.1:0 --streams 6 \
	--request 200 --response uniform:20000-80000 --json \
	>"$dir/starved.json" 2>"$dir/starved.json.err" || fail "client of a starved server: exit $?"
check "sst-gen server short of buffers" "$dir/starved.json" 96
kill "$server"
wait "$server"
server=
grep -q 'server (end): .* answered 96 failed 0, verify errors 0,' "$dir/server.err" ||
	fail "the starved server's count: $(tail -1 "$dir/server.err")"

bg_server "$dir/perf.err" "$perf_bin" --server --once --udp 127.0.0.1:0
timeout 60 "$gen_bin" client --udp "127.0.0.1:$port" --sst-perf --channels 12 --streams 5 \
	--concurrent 2 --request 100 --response 3000 --json \
	>"$dir/perf.json" 2>"$dir/perf.json.err" || fail "client of sst-perf --server: exit $?"
check "sst-perf --server" "$dir/perf.json" 60
grep -q '"target": {"status": 0, "streams_done": 60, "streams_failed": 0, "verify_errors": 0,' \
	"$dir/perf.json" || fail "sst-perf's counters: $(grep target "$dir/perf.json")"
wait "$server" || fail "sst-perf --server --once: exit $?"
server=
grep -q 'rr test done: 6000 bytes received, 60 streams done, 0 failed, 0 datagrams, 0 verify errors' \
	"$dir/perf.err" || fail "sst-perf's line: $(cat "$dir/perf.err")"
"$gen_bin" client --udp 127.0.0.1:9 --sst-perf --request uniform:1-100 >/dev/null 2>"$dir/perf2.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'one fixed --request' "$dir/perf2.err" ||
	fail "--sst-perf with a distribution: exit $rc, $(cat "$dir/perf2.err")"

cat >"$dir/mix.json" <<'PROFILE'
{"workloads": [
  {"name": "small", "weight": 3, "streams": 30, "request": 20, "response": "uniform:1-200"},
  {"name": "large", "weight": 1, "streams": 2, "concurrent": 2, "request": "64K",
   "response": "100K", "think_ms": 1}
]}
PROFILE
timeout 60 "$gen_bin" client --loopback --channels 4 --profile "$dir/mix.json" --json \
	>"$dir/mix.out" 2>"$dir/mix.out.err" || fail "profile run: exit $?"
check "profile" "$dir/mix.out" 92
echo '{"workloads": [{"streams": 2, "colour": "red"}]}' >"$dir/bad.json"
"$gen_bin" client --loopback --profile "$dir/bad.json" >/dev/null 2>"$dir/bad.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'bad.json:1: unknown key' "$dir/bad.err" ||
	fail "a bad profile: exit $rc, $(cat "$dir/bad.err")"
[ "$fails" -eq 0 ] && echo "sst-gen: stateful runs against sst-cat --echo, sst-gen server, sst-perf --server and a profile verified"
exit $((fails != 0))
