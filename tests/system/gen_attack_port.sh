#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# sst-gen's optimistic-ack attack over a DPDK port (issue 21): the client's
# one worker on a net_memif port holds every channel, and each channel
# forges its own ack words before sealing them (the channel layer's
# ack_forge_for_testing: over a port in both modes, no rewriter of frames),
# against `sst-gen server --port` on the other end:
#  - checksum mode, --ack-jump 0, 1 MB responses: the server must catch the
#    acks of numbers it skipped (its optimistic count above 0, the channels
#    failed), so that the attacker cannot get all its responses; then a
#    legitimate client on the same server: 3 channels x 5 streams verified;
#  - checksum mode, --ack-jump 100000: acks of numbers never sent, which the
#    server drops (its count of acks beyond what it sent above 0);
#  - secure mode (aes128gcm): as the first, and the legitimate client after;
#  - stream-slot exhaustion (--attack stream-slots), 2 channels against a
#    server of 2,048 streams: refused past a peer's share (512 each), and
#    at most 2 x 512 held at the end.
# Usage: gen_attack_port.sh PATH/TO/sst-gen
set -u
gen_bin=${1:?usage: gen_attack_port.sh PATH/TO/sst-gen}
cat_bin=/bin/false
. "$(dirname "$0")/cat_common.sh"
. "$(dirname "$0")/gen_common.sh"

# eal ROLE: EAL arguments of one end of this run's memif ($memif).
eal() {
	echo --no-huge --no-pci -m 512 --file-prefix="sst-genatkport-$memif-$1-$$" \
		--vdev="net_memif0,socket=$dir/$memif.memif,socket-abstract=no,role=$1"
}

# port_server ARGS...: sst-gen server --port on a new memif; sets $server.
port_server() {
	memif=$((${memif:-0} + 1))
	: >"$dir/server.err"
	# shellcheck disable=SC2046
	"$gen_bin" $(eal server) -- server --port 0 --ip 10.9.0.1/24 --udp 10.9.0.1:4433 "$@" \
		2>>"$dir/server.err" &
	server=$!
	for _ in $(seq 300); do
		grep -qs '^sst-gen: serving' "$dir/server.err" && return 0
		kill -0 "$server" 2>/dev/null || break
		sleep 0.1
	done
	fail "sst-gen server --port did not start: $(cat "$dir/server.err")"
	exit 1
}

# port_client NAME FIRST-PORT ARGS...: a client from 10.9.0.2, 10 source
# ports from FIRST-PORT; its JSON in $dir/NAME.json.
port_client() {
	local name=$1 first=$2
	shift 2
	# shellcheck disable=SC2046
	timeout 90 "$gen_bin" $(eal client) -- client --port 0 --ip 10.9.0.2/24 \
		--src "10.9.0.2:$first" --src-ports 10 --udp 10.9.0.1:4433 "$@" --json \
		>"$dir/$name.json" 2>"$dir/$name.err"
}

# server_end: stop the server; its last line in $end.
server_end() {
	kill "$server"
	wait "$server" || fail "sst-gen server: exit $? $(tail -3 "$dir/server.err")"
	server=
	end=$(grep 'server (end):' "$dir/server.err")
	echo "server: $end"
}

# attack NAME ARMOR: the optimistic acker then a legitimate client.
attack() {
	port_client "$1" 20000 --armor "$2" --attack optimistic-ack --channels 2 --streams 2 \
		--request 100 --response 1M --timeout 3 || fail "$1: exit $? $(cat "$dir/$1.err")"
	echo "$1 client: $(sed -n 's/.*"attack": \(.*\),$/\1/p' "$dir/$1.json")," \
		"$(json_field "$dir/$1.json" transactions) of 4 streams done"
	[ "$(json_field "$dir/$1.json" forged_acks)" -gt 0 ] 2>/dev/null ||
		fail "$1: nothing forged: $(cat "$dir/$1.json")"
	[ "$(json_field "$dir/$1.json" target_packets_after)" -gt 0 ] 2>/dev/null ||
		fail "$1: no target packet counted after the first forged ack"
	[ "$(json_field "$dir/$1.json" transactions)" -lt 4 ] 2>/dev/null ||
		fail "$1: the optimistic acker got every response: $(cat "$dir/$1.json")"
	port_client "$1-legit" 20100 --armor "$2" --channels 3 --streams 5 \
		--request uniform:1-3000 --response uniform:1-20000 ||
		fail "$1: legitimate client: exit $?"
	[ "$(json_field "$dir/$1-legit.json" transactions)" = 15 ] ||
		fail "$1: legitimate client not served: $(cat "$dir/$1-legit.json")"
}

port_server
attack opt-chk chk32
server_end
optimistic=$(echo "$end" | sed -n 's/.*, \([0-9]*\) optimistic (channel failed).*/\1/p')
[ "${optimistic:-0}" -gt 0 ] || fail "checksum mode: optimistic acks not caught: $end"

port_server
port_client jump 20000 --attack optimistic-ack --ack-jump 100000 --channels 1 --streams 1 \
	--request 5000 --response 1M --timeout 3 || fail "ack-jump client: exit $?"
echo "ack-jump client: $(sed -n 's/.*"attack": \(.*\),$/\1/p' "$dir/jump.json")"
server_end
beyond=$(echo "$end" | sed -n 's/.*, \([0-9]*\) beyond what was sent.*/\1/p')
[ "${beyond:-0}" -gt 0 ] || fail "acks of the future not dropped: $end"

port_server --armor aes128gcm
attack opt-sec aes128gcm
server_end
optimistic=$(echo "$end" | sed -n 's/.*, \([0-9]*\) optimistic (channel failed).*/\1/p')
[ "${optimistic:-0}" -gt 0 ] || fail "secure mode: optimistic acks not caught: $end"

port_server --max-streams 2048
port_client slots 20000 --attack stream-slots --channels 2 --timeout 5 ||
	fail "stream-slots client: exit $? $(cat "$dir/slots.err")"
echo "stream-slots client: $(sed -n 's/.*"attack": \(.*\),$/\1/p' "$dir/slots.json")"
server_end
[ "$(json_field "$dir/slots.json" slots_refused)" -gt 0 ] 2>/dev/null ||
	fail "the slot attacker saw no refusal: $(cat "$dir/slots.json")"
held=$(json_field "$dir/slots.json" slots_held)
[ "${held:-0}" -ge 512 ] && [ "${held:-0}" -le 1024 ] ||
	fail "the attacker held $held streams at the end (want 512 to 2 x 512)"
refused=$(echo "$end" | sed -n "s/.*refused over a peer's share \([0-9]*\)$/\1/p")
[ "${refused:-0}" -gt 0 ] || fail "the server refused no stream over a peer's share: $end"

[ "$fails" -eq 0 ] && echo "sst-gen over a port: optimistic acks caught in both modes," \
	"acks of the future dropped, stream slots refused past a peer's share," \
	"legitimate clients served"
exit $((fails != 0))
