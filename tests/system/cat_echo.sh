#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# sst-cat end to end over kernel UDP on 127.0.0.1, as separate processes:
# an echo service (--listen --echo on a port the kernel picks) and clients
# for a stream, three substreams, datagrams, 1 MB byte-exact, secure mode,
# a refused service, and a plain listener fed by a client.
# Usage: cat_echo.sh PATH/TO/sst-cat
set -u
cat_bin=${1:?usage: cat_echo.sh PATH/TO/sst-cat}
dir=$(mktemp -d "${TMPDIR:-/tmp}/sst-cat-test.XXXXXX")
server=
fails=0

cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# listen NAME INPUT OUTPUT ARGS...: start a listener in the background
# (its input named explicitly: a background job's would be /dev/null);
# sets $server and $port.
listen() {
	local err=$dir/listen.$1.err in=$2 out=$3
	shift 3
	"$cat_bin" --listen "$@" <"$in" >"$out" 2>"$err" &
	server=$!
	for _ in $(seq 300); do
		port=$(sed -n 's/^sst-cat: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$err")
		[ -n "$port" ] && return 0
		kill -0 "$server" 2>/dev/null || break
		sleep 0.1
	done
	echo "the listener did not start:" >&2
	cat "$err" >&2
	exit 1
}

# run NAME EXPECTED-STATUS CLIENT-ARGS... < input: output in $dir/NAME.out
run() {
	local name=$1 want=$2 rc
	shift 2
	timeout 120 "$cat_bin" "$@" >"$dir/$name.out" 2>"$dir/$name.err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "$name: exit status $rc, expected $want"
		cat "$dir/$name.err" >&2
		return 1
	fi
	return 0
}

listen echo /dev/null /dev/null --echo 127.0.0.1:0 echo test
ep=127.0.0.1:$port

printf 'hello\nworld\n' >"$dir/lines"
run stream 0 "$ep" echo test <"$dir/lines" &&
	{ cmp -s "$dir/lines" "$dir/stream.out" || fail "stream: echo differs"; }

run substreams 0 --verbose --substreams 3 "$ep" echo test <"$dir/lines" &&
	{ cmp -s "$dir/lines" "$dir/substreams.out" || fail "substreams: stream echo differs"; } &&
	{ [ "$(grep -c 'echoed, all right' "$dir/substreams.err")" -eq 3 ] ||
		fail "substreams: not 3 substreams echoed: $(cat "$dir/substreams.err")"; }

printf 'a datagram\n' >"$dir/dgram"
run datagram 0 --datagram "$ep" echo test <"$dir/dgram" &&
	{ cmp -s "$dir/dgram" "$dir/datagram.out" || fail "datagram: got '$(cat "$dir/datagram.out")'"; }

head -c 1000000 /dev/urandom >"$dir/big"
run big 0 "$ep" echo test <"$dir/big" &&
	{ cmp "$dir/big" "$dir/big.out" || fail "1 MB: echo differs"; }

run big_substreams 0 --substreams 3 "$ep" echo test <"$dir/big" &&
	{ cmp "$dir/big" "$dir/big_substreams.out" || fail "1 MB with substreams: echo differs"; }

run secure 0 --secure "$ep" echo test <"$dir/big" &&
	{ cmp "$dir/big" "$dir/secure.out" || fail "secure mode: echo differs"; }

run refused 1 "$ep" echo nosuchprotocol <"$dir/lines" &&
	{ grep -q 'does not offer' "$dir/refused.err" || fail "refused: $(cat "$dir/refused.err")"; }

kill "$server"
wait "$server"
rc=$?
server=
[ "$rc" -eq 0 ] || fail "echo service: exit status $rc after SIGTERM"

# A plain listener: its standard input goes to the client and back.
listen plain "$dir/big" "$dir/plain.out" 127.0.0.1:0 svc proto
run plain_client 0 "127.0.0.1:$port" svc proto <"$dir/lines"
wait "$server"
rc=$?
server=
[ "$rc" -eq 0 ] || fail "plain listener: exit status $rc"
cmp -s "$dir/lines" "$dir/plain.out" || fail "plain listener: got other bytes"
cmp -s "$dir/big" "$dir/plain_client.out" || fail "plain listener: the client got other bytes ($(wc -c <"$dir/plain_client.out") of 1000000): $(cat "$dir/plain_client.err")"

[ "$fails" -eq 0 ] && echo "sst-cat: all checks passed"
exit $((fails != 0))
