#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 15, finding 6: how an sst-cat client ends when it cannot connect.
#   - --timeout bounds the whole connect in both modes: behind a relay that
#     passes the server's first answer (ChkR1, SecR1) and nothing after it,
#     a client with -t 2 gives up within a few seconds (a secure client
#     used to wait for good: its channel is up at SecR1);
#   - --known-hosts naming a missing or empty file is a setup error (exit
#     3, said at once), not a silent refusal of every server;
#   - --suite without --secure is refused (exit 2), no longer a silent
#     checksum-mode run;
#   - a client offering only ChaCha20 against a listener that accepts only
#     AES-128-GCM hears a refusal and says "no common cipher suite" at
#     once (it used to wait for its timeout); the same client is served by
#     a listener that accepts ChaCha20 (the control).
# Usage: cat_connect.sh PATH/TO/sst-cat
set -u
cat_bin=${1:?usage: cat_connect.sh PATH/TO/sst-cat}
. "$(dirname "$0")/cat_common.sh"
relay=

stop_relay() {
	[ -n "$relay" ] && kill "$relay" 2>/dev/null && wait "$relay" 2>/dev/null
	relay=
}
trap 'stop_relay; cleanup' EXIT

# timed NAME EXPECTED-STATUS MAX-SECONDS CLIENT-ARGS...: run as run() does,
# and fail if it took longer than MAX-SECONDS.
timed() {
	local name=$1 want=$2 max=$3 t0 t1
	shift 3
	t0=$(date +%s.%N)
	run "$name" "$want" "$@" </dev/null || return 1
	t1=$(date +%s.%N)
	if awk -v a="$t0" -v b="$t1" -v m="$max" 'BEGIN { exit !(b - a > m) }'; then
		fail "$name: took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s, at most $max expected"
		return 1
	fi
	return 0
}

# expect NAME TEXT: the client's stderr says TEXT.
expect() {
	grep -q -- "$2" "$dir/$1.err" || fail "$1: expected '$2' on stderr, got: $(cat "$dir/$1.err")"
}

printf 'hello\n' >"$dir/lines"

# Options that cannot work are refused before anything starts.
run suite_without_secure 2 --suite chacha20 127.0.0.1:9 echo test </dev/null &&
	expect suite_without_secure 'add --secure'
run listen_suite_without_secure 2 --listen --suite chacha20 127.0.0.1:0 echo test </dev/null &&
	expect listen_suite_without_secure 'add --secure'
timed known_hosts_missing 3 10 --secure --known-hosts "$dir/nonexistent" -t 30 \
	127.0.0.1:9 echo test &&
	expect known_hosts_missing "$dir/nonexistent: No such file or directory"
: >"$dir/empty_known_hosts"
timed known_hosts_empty 3 10 --secure --known-hosts "$dir/empty_known_hosts" -t 30 \
	127.0.0.1:9 echo test &&
	expect known_hosts_empty 'lists no key'

# A server that goes silent after its first answer: -t bounds the connect.
listen echo /dev/null /dev/null --echo 127.0.0.1:0 echo test
for mode in checksum secure; do
	python3 "$(dirname "$0")/udp_relay.py" "$port" 1 >"$dir/relay.$mode" &
	relay=$!
	for _ in $(seq 100); do
		rport=$(sed -n 's/^relay on \([0-9]*\)$/\1/p' "$dir/relay.$mode" 2>/dev/null)
		[ -n "$rport" ] && break
		sleep 0.1
	done
	[ -n "$rport" ] || { echo "the relay did not start" >&2; exit 1; }
	opt=
	[ "$mode" = secure ] && opt=--secure
	timed "silent_$mode" 1 12 $opt -t 2 "127.0.0.1:$rport" echo test &&
		expect "silent_$mode" '(--timeout)'
	stop_relay
done
stop echo kill

# No common suite: refused at once, and reported.
listen aes /dev/null /dev/null --echo --secure --suite aes128gcm 127.0.0.1:0 echo test
timed no_common_suite 1 10 --secure --suite chacha20 -t 30 "127.0.0.1:$port" echo test &&
	expect no_common_suite 'no common cipher suite'
stop aes kill
listen chacha /dev/null /dev/null --echo --secure --suite chacha20 127.0.0.1:0 echo test
run common_suite 0 --secure --suite chacha20 "127.0.0.1:$port" echo test <"$dir/lines" &&
	{ cmp -s "$dir/lines" "$dir/common_suite.out" || fail "common suite: echo differs"; }
stop chacha kill

[ "$fails" -eq 0 ] && echo "sst-cat: connect failures reported as documented"
exit $((fails != 0))
