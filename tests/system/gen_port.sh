#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# sst-gen's stateful client over a DPDK port (issue 21): one worker on a
# net_memif port speaks from many source endpoints (two addresses, 100
# ports each: docs/engine.md "Local endpoints"), each channel another host
# to the server, every stream verified byte by byte:
#  - against `sst-gen server` on the other end of the memif: 200 channels,
#    3 streams each; the server's own count of failed streams and wrong
#    bytes must be 0 and it must have seen 200 peers;
#  - against `sst-cat --listen --echo` on a memif: 50 channels, 2 streams
#    each (--echo: the response is the request);
#  - against `sst-perf --server --once` on a memif (--sst-perf): 60 channels,
#    4 streams each, 2 in flight, one rr test whose counters must agree;
#  - two workers on each end (--workers 2, a queue each), each on an lcore
#    of its own (--lcores: 3 lcores, the main one and a worker lcore per
#    worker): 200 channels, 3 streams each, every channel made by the worker
#    that owns its pair of endpoints (docs/engine.md "Local endpoints"):
#    both workers must hold some, on lcores 1 and 2 on both ends;
#  - the same client with one lcore (-l 0): its two workers polled by the
#    main thread, as it says, against the same server, which must count
#    1,200 streams answered, none failed.
# The one-worker runs above give their worker the EAL's second lcore (the
# default -l is every CPU), the sst-cat one no lcore but the main one.
# Usage: gen_port.sh PATH/TO/sst-gen PATH/TO/sst-cat PATH/TO/sst-perf
set -u
usage="usage: gen_port.sh PATH/TO/sst-gen PATH/TO/sst-cat PATH/TO/sst-perf"
gen_bin=${1:?$usage}
cat_bin=${2:?$usage}
perf_bin=${3:?$usage}
. "$(dirname "$0")/cat_common.sh"
. "$(dirname "$0")/gen_common.sh"

check() {
	[ "$(json_field "$2" ok)" = true ] || fail "$1: not ok: $(cat "$2" "$2.err")"
	[ "$(json_field "$2" transactions)" = "$3" ] ||
		fail "$1: $(json_field "$2" transactions) of $3 streams verified"
	[ "$(json_field "$2" verify_errors)" = 0 ] || fail "$1: wrong bytes"
	[ "$(json_field "$2" channels_up_peak)" = "$4" ] ||
		fail "$1: $(json_field "$2" channels_up_peak) of $4 channels up at once"
}

# eal NAME ROLE [EAL-ARGS]: EAL arguments of one end of memif NAME.
eal() {
	echo --no-huge --no-pci -m 512 --file-prefix="sst-genport-$1-$2-$$" \
		--vdev="net_memif0,socket=$dir/$1.memif,socket-abstract=no,role=$2" "${@:3}"
}
# Three lcores, each free to run on any CPU: more lcores than this VM's
# two CPUs (a lone -l 0-2 would ask for a third CPU).
lcores3="--lcores=(0-2)@(0-$(($(nproc) - 1)))"

# client NAME [EAL-ARGS] -- ARGS: a client on memif $memif (default NAME),
# its output in NAME.json; with held=1 the server ($server) is stopped
# before the client exits (held_client).
client() {
	local name=$1 eal_extra=() cmd
	shift
	while [ "$1" != -- ]; do
		eal_extra+=("$1")
		shift
	done
	shift
	# shellcheck disable=SC2046
	cmd=(timeout 90 "$gen_bin" $(eal "${memif:-$name}" client "${eal_extra[@]}") -- client
		--port 0 --ip 10.9.0.2/24 --src 10.9.0.2:20000 --src-addrs 2 --src-ports 100
		--udp 10.9.0.1:4433 "$@" --json)
	if [ "${held:-}" = 1 ]; then
		held_client "$dir/$name.json.err" "${cmd[@]}" >"$dir/$name.json"
	else
		"${cmd[@]}" >"$dir/$name.json" 2>"$dir/$name.json.err"
	fi
}

# shellcheck disable=SC2046
"$gen_bin" $(eal gen server) -- server --port 0 --ip 10.9.0.1/24 --udp 10.9.0.1:4433 \
	2>"$dir/server.err" &
server=$!
wait_line "$dir/server.err" '^sst-gen: serving'
client gen -- --channels 200 --streams 3 --request exp:300 --response uniform:1-2000 --seed 5 ||
	fail "client of sst-gen server: exit $?"
check "sst-gen server" "$dir/gen.json" 600 200
# The client again: a new process from the same two addresses, with
# another MAC (memif makes one per process). Each end announces its
# addresses when it starts (gratuitous ARP, RFC 5227): without that the
# server kept the old MAC of the address this client never asked from
# (its ARP requests name its first address only), and every channel from
# the second address failed.
memif=gen client gen2 -- --channels 200 --streams 3 --request exp:300 --response uniform:1-2000 \
	--seed 6 || fail "second client of sst-gen server: exit $?"
check "sst-gen server, the client restarted" "$dir/gen2.json" 600 200
kill "$server"
wait "$server"
server=
grep -q 'server (end): .* answered 1200 failed 0, verify errors 0,' "$dir/server.err" ||
	fail "sst-gen server's count: $(tail -1 "$dir/server.err")"

# shellcheck disable=SC2046
"$cat_bin" $(eal cat server) -- --listen --echo --port 0 --ip 10.9.0.1/24 10.9.0.1:4433 \
	echo test </dev/null >/dev/null 2>"$dir/cat.err" &
server=$!
wait_line "$dir/cat.err" '^sst-cat: listening on'
client cat -l 0 -- --echo --service echo --protocol test --channels 50 --streams 2 \
	--request uniform:1-3000 || fail "client of sst-cat --echo: exit $?"
check "sst-cat --echo" "$dir/cat.json" 100 50
stop cat kill

# shellcheck disable=SC2046
"$perf_bin" $(eal perf server) -- --server --once --port 0 --ip 10.9.0.1/24 --udp 10.9.0.1:4433 \
	2>"$dir/perf.err" &
server=$!
wait_line "$dir/perf.err" '^sst-perf: listening on'
client perf -- --sst-perf --channels 60 --streams 4 --concurrent 2 --request 300 --response 5000 ||
	fail "client of sst-perf --server: exit $?"
check "sst-perf --server" "$dir/perf.json" 240 60
grep -q '"target": {"status": 0, "streams_done": 240, "streams_failed": 0, "verify_errors": 0,' \
	"$dir/perf.json" || fail "sst-perf's counters: $(grep target "$dir/perf.json")"
wait "$server" || fail "sst-perf --server --once: exit $?"
server=

# shellcheck disable=SC2046
"$gen_bin" $(eal mw server "$lcores3") -- server --port 0 --ip 10.9.0.1/24 \
	--udp 10.9.0.1:4433 --workers 2 2>"$dir/mw-server.err" &
server=$!
wait_line "$dir/mw-server.err" '^sst-gen: worker 1 on lcore 2'
# The server's two lcores poll: it stops before the client exits (held).
held=1 client mw "$lcores3" -- --workers 2 --channels 200 --streams 3 --request exp:300 \
	--response uniform:1-2000 --seed 5 || fail "client of 2 workers: exit $?"
grep -q 'server (end): .* answered 600 failed 0, verify errors 0,' "$dir/mw-server.err" ||
	fail "2 workers, the server's count: $(tail -1 "$dir/mw-server.err")"
check "2 workers" "$dir/mw.json" 600 200
per_worker=$(sed -n 's/.*"worker_channels": \[\([0-9, ]*\)\].*/\1/p' "$dir/mw.json")
case "$per_worker" in
[1-9]*", "[1-9]*) ;;
*) fail "2 workers: channels per worker '$per_worker' (want both > 0)" ;;
esac
grep -q '"worker_lcores": \[1, 2\],' "$dir/mw.json" ||
	fail "2 workers: not on lcores 1 and 2: $(grep worker_ "$dir/mw.json")"
grep -q '^sst-gen: worker 0 on lcore 1$' "$dir/mw-server.err" ||
	fail "2 workers: the server's first worker not on lcore 1"
# The fallback: fewer worker lcores than workers, against a server of two.
# shellcheck disable=SC2046
"$gen_bin" $(eal mw1 server "$lcores3") -- server --port 0 --ip 10.9.0.1/24 \
	--udp 10.9.0.1:4433 --workers 2 2>"$dir/mw1-server.err" &
server=$!
wait_line "$dir/mw1-server.err" '^sst-gen: worker 1 on lcore 2'
held=1 client mw1 -l 0 -- --ip 10.9.0.12/24 --src 10.9.0.12:20000 --workers 2 \
	--channels 200 --streams 3 --request exp:300 --response uniform:1-2000 --seed 7 ||
	fail "client of 2 workers on one lcore: exit $?"
check "2 workers, one lcore" "$dir/mw1.json" 600 200
grep -q '"worker_lcores"' "$dir/mw1.json" && fail "2 workers, one lcore: on worker lcores"
grep -q '^sst-gen: 2 workers, 0 worker lcores: all polled by the main thread' \
	"$dir/mw1.json.err" || fail "2 workers, one lcore: no word of the fallback"
grep -q 'server (end): .* answered 600 failed 0, verify errors 0,' "$dir/mw1-server.err" ||
	fail "2 workers, one lcore, the server's count: $(tail -1 "$dir/mw1-server.err")"

rm -rf /run/dpdk/sst-genport-*-$$ 2>/dev/null
[ "$fails" -eq 0 ] && echo "sst-gen: stateful runs over memif, from 200 source endpoints of one worker and of two (channels $per_worker, on lcores 1 and 2, and on one), verified"
exit $((fails != 0))
