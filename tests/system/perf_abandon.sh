#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 15, finding 2: an sst-perf server abandons a test whose client went
# away (no packet for --idle-timeout) and must survive it. Abandoning used to
# reset the control stream, whose closed() callback (called from inside the
# reset) ended the test and cleared the pointer that abandon_test() then
# closed: SIGSEGV. The same held for the data streams of the test (each
# reset ended its flow from inside, and the loop then ended the next one).
# Over kernel UDP on 127.0.0.1, with a 1 s idle timeout instead of 60 s:
#   - a streams client refused for asking more streams than the server
#     holds (its control stream stays open at the server);
#   - a bulk client killed with SIGKILL while it sends (live data streams);
# after each the server must still run and have abandoned the test, and a
# last client must get a whole rr test from it.
# Usage: perf_abandon.sh PATH/TO/sst-perf
set -u
perf=${1:?usage: perf_abandon.sh PATH/TO/sst-perf}
dir=$(mktemp -d "${TMPDIR:-/tmp}/sst-perf-abandon.XXXXXX") || {
	echo "$0: cannot make a scratch directory" >&2
	exit 1
}
server=
fails=0

cleanup() {
	[ -n "$server" ] && kill -9 "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# The server must still be there; its exit status says how it died.
alive() {
	local rc
	if kill -0 "$server" 2>/dev/null; then
		return 0
	fi
	wait "$server"
	rc=$?
	server=
	fail "$1: the server died (exit status $rc$([ "$rc" -gt 128 ] && echo ", signal $((rc - 128))"))"
	cat "$dir/server.err" >&2
	exit 1
}

# abandoned N: wait (at most 20 s) until the server reports N abandoned tests.
abandoned() {
	for _ in $(seq 200); do
		[ "$(grep -c 'test abandoned' "$dir/server.err")" -ge "$1" ] && return 0
		kill -0 "$server" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

"$perf" --server --udp 127.0.0.1:0 --streams 100 --idle-timeout 1 2>"$dir/server.err" &
server=$!
for _ in $(seq 300); do
	port=$(sed -n 's/^sst-perf: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$dir/server.err")
	[ -n "$port" ] && break
	kill -0 "$server" 2>/dev/null || break
	sleep 0.1
done
[ -n "${port:-}" ] || { echo "the server did not start:" >&2; cat "$dir/server.err" >&2; exit 1; }
ep=127.0.0.1:$port

# 1. Refused: more streams than the server holds.
timeout 60 "$perf" --udp "$ep" --quiet streams --streams 200 >"$dir/refused.out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "refused client: exit status $rc, expected 1: $(cat "$dir/refused.out")"
grep -q 'holds fewer than 200 streams' "$dir/refused.out" ||
	fail "refused client: $(cat "$dir/refused.out")"
abandoned 1 || fail "refused client: the test was not abandoned"
sleep 0.5 # the crash came right after the message
alive "after the refused client's test was abandoned"

# 2. A bulk client killed while its data streams are live: an odd number,
# as the old loop ended every second flow twice and the last one at NULL.
"$perf" --udp "$ep" --streams 3 bulk --time 60 >"$dir/bulk.out" 2>&1 &
client=$!
# Its first progress line says that the test runs and data is acknowledged
# (a sanitizer build takes seconds to start): then it dies.
for _ in $(seq 600); do
	grep -q 'Mbit/s acknowledged' "$dir/bulk.out" && break
	kill -0 "$client" 2>/dev/null || break
	sleep 0.1
done
grep -q 'Mbit/s acknowledged' "$dir/bulk.out" ||
	fail "bulk client: no progress before it was killed: $(cat "$dir/bulk.out")"
kill -9 "$client" 2>/dev/null
wait "$client" 2>/dev/null
abandoned 2 || fail "killed client: the test was not abandoned"
sleep 0.5
alive "after the killed client's test was abandoned"

# 3. The server still serves.
timeout 60 "$perf" --udp "$ep" --quiet --verify rr --count 200 >"$dir/rr.out" 2>&1 ||
	fail "rr after the abandoned tests: $(cat "$dir/rr.out")"
alive "after the rr test"

kill "$server"
wait "$server"
rc=$?
server=
[ "$rc" -eq 0 ] || fail "server: exit status $rc at SIGTERM: $(cat "$dir/server.err")"

[ "$fails" -eq 0 ] && echo "sst-perf: abandoned tests survived"
exit $((fails != 0))
