#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# sst-cat --capture (issue 20): an echo listener and a client, each
# recording its traffic; sst-dump must decode and verify every packet of
# both captures (checksum mode: the Chk32 trailers), and the client's
# capture must hold the echoed bytes' channel packets.
# Usage: cat_capture.sh PATH/TO/sst-cat PATH/TO/sst-dump
set -u
cat_bin=${1:?usage: cat_capture.sh PATH/TO/sst-cat PATH/TO/sst-dump}
dump=${2:?usage: cat_capture.sh PATH/TO/sst-cat PATH/TO/sst-dump}
. "$(dirname "$0")/cat_common.sh"

listen echo /dev/null /dev/null --echo --capture "$dir/server" 127.0.0.1:0 echo test
head -c 100000 /dev/urandom >"$dir/in"
run client 0 --capture "$dir/client" "127.0.0.1:$port" echo test <"$dir/in" &&
	{ cmp -s "$dir/in" "$dir/client.out" || fail "the echo differs"; }
stop echo kill

for side in server client; do
	f=$dir/$side-w0.pcapng
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

[ "$fails" -eq 0 ] && echo "sst-cat --capture: both captures verify"
exit $((fails != 0))
