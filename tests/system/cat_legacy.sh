#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# sst-cat against a peer posing as the 2007 prototype (--legacy: empty
# ulpi/ulpr, checksum mode only), both ways, as separate processes over
# kernel UDP on 127.0.0.1. An ordinary sst-cat must see the empty blob
# (a "legacy peer" in its -v output) and fall back: stream echo, 3
# substreams, a datagram, 1 MB byte-exact (also on 3 substreams), a
# refused service, a plain listener's transfer. The --legacy side fails
# (exit 1) if it received anything the prototype cannot take: Reset,
# Detach, datagram fragments, packets over 1200 payload bytes.
# Usage: cat_legacy.sh PATH/TO/sst-cat
set -u
cat_bin=${1:?usage: cat_legacy.sh PATH/TO/sst-cat}
. "$(dirname "$0")/cat_common.sh"

printf 'hello\nworld\n' >"$dir/lines"
printf 'a datagram\n' >"$dir/dgram"
head -c 1000000 /dev/urandom >"$dir/big"

# checks TAG CLIENT-ARGS...: clients of the echo service at $ep.
checks() {
	local t=$1
	shift
	run "$t.stream" 0 -v "$@" "$ep" echo test <"$dir/lines" &&
		{ cmp -s "$dir/lines" "$dir/$t.stream.out" || fail "$t.stream: echo differs"; }
	run "$t.substreams" 0 -v --substreams 3 "$@" "$ep" echo test <"$dir/lines" &&
		{ [ "$(grep -c 'echoed, all right' "$dir/$t.substreams.err")" -eq 3 ] ||
			fail "$t.substreams: $(cat "$dir/$t.substreams.err")"; }
	run "$t.datagram" 0 --datagram "$@" "$ep" echo test <"$dir/dgram" &&
		{ cmp -s "$dir/dgram" "$dir/$t.datagram.out" ||
			fail "$t.datagram: got '$(cat "$dir/$t.datagram.out")'"; }
	run "$t.big" 0 "$@" "$ep" echo test <"$dir/big" &&
		{ cmp "$dir/big" "$dir/$t.big.out" || fail "$t.big: 1 MB echo differs"; }
	run "$t.big_substreams" 0 --substreams 3 "$@" "$ep" echo test <"$dir/big" &&
		{ cmp "$dir/big" "$dir/$t.big_substreams.out" || fail "$t.big_substreams: differs"; }
	run "$t.refused" 1 "$@" "$ep" echo nosuchprotocol <"$dir/lines" &&
		{ grep -q 'does not offer' "$dir/$t.refused.err" ||
			fail "$t.refused: $(cat "$dir/$t.refused.err")"; }
}

# expect FILE PATTERN COUNT WHAT: PATTERN occurs COUNT times in FILE.
expect() {
	local n
	n=$(grep -c -- "$2" "$1")
	[ "$n" -eq "$3" ] || fail "$4: '$2' $n times, expected $3: $(cat "$1")"
}

# 1. A legacy echo service; ordinary clients fall back.
listen legacy_echo /dev/null /dev/null --legacy --echo -v 127.0.0.1:0 echo test
ep=127.0.0.1:$port
checks to_legacy
expect "$dir/to_legacy.stream.err" 'channel up (checksum mode; legacy peer (empty ulp blob)' 1 \
	"client of a legacy service"
# The prototype has no secure mode: a secure client gets no answer.
run to_legacy.secure 1 --secure --timeout 2 "$ep" echo test </dev/null &&
	{ grep -q 'no answer' "$dir/to_legacy.secure.err" ||
		fail "secure client: $(cat "$dir/to_legacy.secure.err")"; }
stop legacy_echo kill
expect "$dir/listen.legacy_echo.err" 'we pose as the 2007 prototype' 5 "legacy echo service"

# 2. An ordinary echo service; legacy clients.
listen echo /dev/null /dev/null --echo -v 127.0.0.1:0 echo test
ep=127.0.0.1:$port
checks from_legacy --legacy
expect "$dir/from_legacy.stream.err" 'channel up (checksum mode; we pose as the 2007 prototype' 1 \
	"legacy client"
# The control: an ordinary client is recognised as SST-DPDK.
run control 0 -v "$ep" echo test <"$dir/lines"
expect "$dir/control.err" 'channel up (checksum mode; SST-DPDK peer, capabilities 0xf)' 1 \
	"ordinary client"
stop echo kill
expect "$dir/listen.echo.err" 'echoing a stream (legacy peer (empty ulp blob)' 5 "echo service"
expect "$dir/listen.echo.err" 'echoing a stream (SST-DPDK peer' 1 "echo service"

# 3. Plain listeners: 1 MB from the listener, lines from the client, with
# the legacy side first listening, then connecting.
for legacy_side in listener client; do
	largs=() cargs=()
	if [ "$legacy_side" = listener ]; then largs=(--legacy); else cargs=(--legacy); fi
	listen "plain_$legacy_side" "$dir/big" "$dir/plain_$legacy_side.got" \
		"${largs[@]}" 127.0.0.1:0 svc proto
	run "plain_$legacy_side.client" 0 "${cargs[@]}" "127.0.0.1:$port" svc proto <"$dir/lines"
	stop "plain_$legacy_side" wait
	cmp -s "$dir/lines" "$dir/plain_$legacy_side.got" ||
		fail "plain, legacy $legacy_side: the listener got other bytes"
	cmp -s "$dir/big" "$dir/plain_$legacy_side.client.out" ||
		fail "plain, legacy $legacy_side: the client got other bytes"
done

[ "$fails" -eq 0 ] && echo "sst-cat --legacy: all checks passed"
exit $((fails != 0))
