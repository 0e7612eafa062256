#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The flood benchmark of docs/robustness.md (issue 15): an sst-cat echo
# service in a namespace behind a veth pair; from outside, sst-flood sends
# it spoofed ChkI1 and SecI1 (one source address each) as fast as it can
# for SECONDS, while legitimate clients connect in a loop, one after the
# other: batches of 10 checksum-mode clients from one process (many_peers,
# each client its own UDP port and peer), then one secure-mode sst-cat,
# each echoing 1 kB. Prints the flooder's rate, the legitimate setups that
# worked out of those tried, the server's RSS before, at most during and
# after, and what the server took in and sent out during the flood (all of
# it before any address was proven, but for the legitimate clients' few).
# With --gen the flooder is sst-gen instead (issue 21): its template mode
# on a DPDK port (net_af_packet on our end of the veth), spoofed ChkI1 for
# the first half of SECONDS and SecI1 for the second, from 65,536 source
# addresses, as fast as the port takes them.
# Root only (namespaces, a raw socket). Run by hand; figures go to the docs.
# Usage: perf/flood.sh [-C BUILD_DIR] [--gen] [SECONDS]   (defaults: build, sst-flood, 15)
set -u
cd "$(dirname "$0")/.."
dir_build=build
if [ "${1:-}" = "-C" ]; then
	dir_build=$2
	shift 2
fi
gen=false
case "${1:-}" in
-h | --help)
	sed -n '3,18p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
--gen)
	gen=true
	shift
	;;
esac
seconds=${1:-15}
cat_bin=$dir_build/apps/sst-cat/sst-cat
flood_bin=$dir_build/tests/system/sst-flood
peers_bin=$dir_build/tests/system/many_peers
gen_bin=$dir_build/apps/sst-gen/sst-gen
$gen && flood_bin=$gen_bin
for b in "$cat_bin" "$flood_bin" "$peers_bin"; do
	[ -x "$b" ] || {
		echo "flood.sh: $b missing (scripts/build.sh release $dir_build)" >&2
		exit 2
	}
done
skip() {
	echo "flood.sh: $*" >&2
	exit 2
}
[ "$(id -u)" -eq 0 ] || skip "needs root (namespaces, a raw socket)"
. tests/system/veth_ns.sh
. tests/system/spoof_ns.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sst-floodbench.XXXXXX") || exit 1
server=
flood=
cleanup() {
	[ -n "$flood" ] && kill "$flood" 2>/dev/null && wait "$flood" 2>/dev/null
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	veth_ns_down
	rm -rf "$tmp"
}
trap cleanup EXIT
spoof_ns_up P 196
eal=(--no-huge --no-pci -m 1024 --no-telemetry --log-level=lib.eal:error)
echo_service_start "$cat_bin" "sst-fb-srv-$$" "$tmp/server.err" --stats 1
rss() { awk '/^VmRSS/ {print $2}' "/proc/$server/status"; }
last_stats() { grep '^sst-cat: stats:' "$tmp/server.err" | tail -1; }
# The number in stats line $1 that the sed expression $2 captures.
num() { echo "$1" | sed -n "s/.*$2.*/\1/p"; }
head -c 1000 /dev/urandom >"$tmp/data"

# One legitimate client before the flood: the server is warm.
"$cat_bin" "${eal[@]}" --file-prefix="sst-fb-cli-$$" -- "$net.2:7000" echo test \
	<"$tmp/data" >/dev/null 2>&1
sleep 1.5
rss_before=$(rss)
before=$(last_stats)

# sst-gen: one template at a time, ChkI1 then SecI1, each half the time;
# its EAL wants a worker lcore besides the main one.
gen_flood() {
	local half_ms=$((seconds * 500)) kind

	for kind in chki1 seci1; do
		"$gen_bin" -l 0-1 --no-huge --no-pci -m 512 --no-telemetry \
			--log-level=lib.eal:error --file-prefix="sst-fb-gen-$$-$kind" \
			--vdev="net_af_packet0,iface=$va" -- template --tx-port 0 --template "$kind" \
			--src 198.18.0.1:40000 --vary-addrs 65536 --dst "$net.2:7000" \
			--time "$(awk -v ms="$half_ms" 'BEGIN { printf "%.3f", ms / 1000 }')" --json \
			>"$tmp/gen-$kind.json" 2>&1
	done
}
if $gen; then
	gen_flood &
else
	"$flood_bin" --seconds "$seconds" --mode both "$net.2:7000" >"$tmp/flood.out" 2>&1 &
fi
flood=$!
tried=0
ok=0
rss_peak=$rss_before
start=$(date +%s%N)
while kill -0 "$flood" 2>/dev/null; do
	"$peers_bin" --sequential --peers 10 \
		--bytes 1000 --timeout 60 "$net.2:7000" echo test >"$tmp/mp.out" 2>"$tmp/mp.err"
	got=$(sed -n 's/.* \([0-9]*\) echoes of .*/\1/p' "$tmp/mp.out")
	tried=$((tried + 10))
	ok=$((ok + ${got:-0}))
	[ "${got:-0}" -eq 10 ] ||
		echo "checksum batch: ${got:-0} of 10: $(head -c 300 "$tmp/mp.err")" >&2
	tried=$((tried + 1))
	if timeout 10 "$cat_bin" "${eal[@]}" --file-prefix="sst-fb-cli-$$" -- --secure \
		--timeout 5 "$net.2:7000" echo test <"$tmp/data" >"$tmp/out" 2>"$tmp/cli.err" &&
		cmp -s "$tmp/data" "$tmp/out"; then
		ok=$((ok + 1))
	else
		echo "secure setup failed: $(head -c 200 "$tmp/cli.err")" >&2
	fi
	r=$(rss)
	[ "$r" -gt "$rss_peak" ] && rss_peak=$r
done
wait "$flood"
flood=
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
sleep 1.5
during=$(last_stats)
# The spoofed setups that got state before the server went under load
# (half-open entries, their channels and peers) go when they expire.
waited=0
while [ "$waited" -lt 90 ]; do
	sleep 1
	waited=$((waited + 1))
	[ "$(num "$(last_stats)" 'stats: peers \([0-9]*\),')" = 0 ] && break
done
rss_after=$(rss)
after=$(last_stats)

diff_of() { echo $(($(num "$during" "$1") - $(num "$before" "$1"))); }
in_p=$(diff_of 'link: \([0-9]*\) packets [0-9]* bytes in')
in_b=$(diff_of 'link: [0-9]* packets \([0-9]*\) bytes in')
out_p=$(diff_of 'bytes in, \([0-9]*\) packets [0-9]* bytes out')
out_b=$(diff_of 'bytes in, [0-9]* packets \([0-9]*\) bytes out')
chal=$(diff_of ' \([0-9]*\) challenged')
limited=$(diff_of ' \([0-9]*\) rate-limited')

if $gen; then
	for kind in chki1 seci1; do
		echo "== flood ($kind, sst-gen): $(cat "$tmp/gen-$kind.json")"
	done
else
	echo "== flood: $(grep '^sst-flood:' "$tmp/flood.out")"
fi
awk -v ok="$ok" -v tried="$tried" -v ms="$elapsed_ms" 'BEGIN {
	printf "legitimate setups during the flood: %d ok of %d tried (%.1f %%) in %.1f s\n",
		ok, tried, tried ? 100 * ok / tried : 0, ms / 1000 }'
echo "server RSS: ${rss_before} kB before, ${rss_peak} kB at most during, ${rss_after} kB" \
	"once the flood's state was gone (${waited} s after the flood)"
awk -v ip="$in_p" -v ib="$in_b" -v op="$out_p" -v ob="$out_b" 'BEGIN {
	printf "server link during the flood: in %d packets / %d bytes, " \
		"out %d packets / %d bytes (out/in %.2f in bytes)\n", ip, ib, op, ob, ib ? ob / ib : 0 }'
echo "first messages answered with a cookie request: $chal; cookie-proven over their rate: $limited"
echo "server stats after: ${after#sst-cat: stats: }"
kill -0 "$server" 2>/dev/null || {
	echo "flood.sh: the server died" >&2
	exit 1
}
