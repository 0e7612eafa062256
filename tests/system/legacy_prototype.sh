#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 15, finding 7: what broke against the original 2007 prototype,
# against sst-cat and sst-perf posing as it (--legacy: a reader that never
# sees a Close on a data segment, acknowledgments that freeze past 65,535
# packets of a channel, a channel's packets dropped until its ChkR1 is
# there, a restart on the same port), as separate processes over kernel UDP
# on 127.0.0.1:
#  (a) a 1 MiB echo toward a --legacy echo service closes cleanly, and so
#      does a --legacy client of an ordinary one;
#  (b) an ordinary sst-perf server that replaces its channels every 500
#      packets (it answers as responder, so the --legacy client answers its
#      ChkI1s with streams to move): every packet of the client's capture
#      verifies (sst-dump --verify), which one sent before its channel's
#      ChkR1 could not (no key yet: the prototype drops it);
#  (c) BYTES (more than 65,535 packets of 1200 bytes) from an ordinary
#      listener to a --legacy client and from an ordinary client to a
#      --legacy listener, byte-exact;
#  (d) a --legacy client that comes back on the same port (a new process,
#      a new key) connects at once (--timeout 5) instead of being ignored for
#      20 s, and its echo is exact.
# Usage: legacy_prototype.sh SST-CAT SST-PERF SST-DUMP BYTES
set -u
cat_bin=${1:?usage: legacy_prototype.sh SST-CAT SST-PERF SST-DUMP BYTES}
perf=${2:?usage}
dump=${3:?usage}
bytes=${4:?usage}
. "$(dirname "$0")/cat_common.sh"

printf 'hello\nworld\n' >"$dir/lines"
head -c 1048576 /dev/urandom >"$dir/mib"
head -c "$bytes" /dev/urandom >"$dir/big"

# (a) The Close travels alone toward a legacy peer.
listen echo_legacy /dev/null /dev/null --legacy --echo 127.0.0.1:0 echo test
run mib_to_legacy 0 "127.0.0.1:$port" echo test <"$dir/mib" &&
	{ cmp -s "$dir/mib" "$dir/mib_to_legacy.out" || fail "1 MiB echo of a legacy service differs"; }
stop echo_legacy kill
listen echo /dev/null /dev/null --echo 127.0.0.1:0 echo test
run mib_from_legacy 0 --legacy "127.0.0.1:$port" echo test <"$dir/mib" &&
	{ cmp -s "$dir/mib" "$dir/mib_from_legacy.out" || fail "1 MiB echo to a legacy client differs"; }

# (d) The same legacy client port again, as a new process, at once.
cport=$(python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
run restart1 0 --legacy --bind "127.0.0.1:$cport" "127.0.0.1:$port" echo test <"$dir/lines" &&
	run restart2 0 --legacy --bind "127.0.0.1:$cport" --timeout 5 "127.0.0.1:$port" echo test \
		<"$dir/lines" &&
	{ cmp -s "$dir/lines" "$dir/restart2.out" || fail "restarted legacy client: echo differs"; }
stop echo kill

# (c) More than 65,535 packets to a legacy peer, as responder and initiator.
listen down "$dir/big" /dev/null 127.0.0.1:0 svc proto
run down.client 0 --legacy "127.0.0.1:$port" svc proto </dev/null
stop down wait
cmp -s "$dir/big" "$dir/down.client.out" || fail "$bytes bytes to a legacy client differ"
listen up /dev/null "$dir/up.got" --legacy 127.0.0.1:0 svc proto
run up.client 0 "127.0.0.1:$port" svc proto <"$dir/big"
stop up wait
cmp -s "$dir/big" "$dir/up.got" || fail "$bytes bytes to a legacy listener differ"

# (b) Nothing of a channel before its ChkR1, seen in the legacy side's capture.
"$perf" --server --once --udp 127.0.0.1:0 --packet-limit 500 2>"$dir/perf_server.err" &
server=$!
pport=
for _ in $(seq 300); do
	pport=$(sed -n 's/^sst-perf: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$dir/perf_server.err")
	[ -n "$pport" ] && break
	sleep 0.1
done
if [ -z "$pport" ]; then
	fail "the sst-perf server did not start: $(cat "$dir/perf_server.err")"
else
	timeout 120 "$perf" --udp "127.0.0.1:$pport" --legacy --capture "$dir/legacy" --size 4M \
		--verify --quiet bulk >"$dir/perf_client.out" 2>&1 ||
		fail "legacy sst-perf client: $(cat "$dir/perf_client.out")"
	wait "$server" || fail "sst-perf server: $(cat "$dir/perf_server.err")"
	server=
	"$dump" --verify --quiet -p "$pport" "$dir/legacy-client-w0.pcapng" >"$dir/dump.out" 2>&1 ||
		fail "the legacy client's capture does not verify: $(grep -v 'chk32=ok' \
			"$dir/dump.out" | head -20)"
	grep -q '^verified' "$dir/dump.out" && echo "(b) $(tail -1 "$dir/dump.out")"
fi

[ "$fails" -eq 0 ] && echo "sst-cat and sst-perf against --legacy peers: all checks passed"
exit $((fails != 0))
