#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# sst-gen's scale run (issue 21, acceptance: "100,000 channels with 10
# streams each held by one sst-gen process against one SST-DPDK server over a
# memif pair, every stream verified, memory per channel reported";
# docs/tools/sst-gen.md "Scale run"): an sst-gen server and an sst-gen client,
# each a process of its own on one end of a net_memif pair; the client's one
# worker speaks from CHANNELS source endpoints (2 addresses x 64,000 ports),
# opens STREAMS streams on each (64-byte requests and responses, every byte
# checked), holds every channel until all are done, and reports its memory
# (RSS growth over the run / channels up at once). The server's line at the
# end must count every stream answered, none failed, no wrong byte.
#
# Run by hand, never as a test, on a quiet machine for the full size:
#   perf/gen_scale.sh [-C BUILD_DIR] [CHANNELS [STREAMS [TIMEOUT_S]]]
#   defaults: build, 100000, 10, 1800
# GEN_SCALE_WRAP, if set, goes before the client's command (a profiler:
# GEN_SCALE_WRAP="perf record -e cpu-clock -g -o FILE --").
# GEN_SCALE_WORKERS=N (default 1): N workers on each end, a memif queue
# each (a memif's two ends must have as many queues), each on an EAL lcore
# of its own (--lcores: N + 1 lcores free to run on any CPU); the client's
# channels spread over its workers by their pair of endpoints.
# GEN_SCALE_ONE_THREAD=1: the EAL gets one lcore (-l 0) on each end, so each
# process polls its workers from its main thread (the fallback).
# Prints the client's final table, the server's last line and "ok" or
# "FAILED: ..."; exit 0 or 1. Both processes use no hugepages (-m 4096
# each: the EAL's memory is in the client's RSS at start, not in the growth).
set -u
cd "$(dirname "$0")/.."
build=build
if [ "${1:-}" = "-C" ]; then
	build=$2
	shift 2
fi
channels=${1:-100000}
streams=${2:-10}
timeout_s=${3:-1800}
gen=$build/apps/sst-gen/sst-gen
[ -x "$gen" ] || {
	echo "gen_scale.sh: $gen missing (scripts/build.sh release $build)" >&2
	exit 2
}
dir=$(mktemp -d /tmp/gen_scale.XXXXXX)
server=
client=
cleanup() {
	[ -n "$client" ] && pkill -INT -f -- "--file-prefix=gscale-$$-client" && wait "$client" 2>/dev/null
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$dir" /run/dpdk/"gscale-$$"-* 2>/dev/null
}
trap cleanup EXIT
# The memif rings at their largest, 16,384 slots (rsize=14; DPDK's default,
# 1,024, is GEN_SCALE_RSIZE=10): with 1,024 they overflowed both ways at
# 5,000 channels and more (16,000 of 150,000 packets dropped), and a client
# channel whose data went unacknowledged through the losses for a second
# and two retransmission timeouts negotiated a replacement, one more
# channel on the server (5,290 for 5,000 clients; 12,058 for 10,000 in
# session 9). With 16,384: none dropped, one channel per client.
workers=${GEN_SCALE_WORKERS:-1}
lcores="--lcores=(0-$workers)@(0-$(($(nproc) - 1)))"
[ "${GEN_SCALE_ONE_THREAD:-0}" = 1 ] && lcores="-l 0"
eal() {
	echo --no-huge --no-pci -m 4096 --no-telemetry --file-prefix="gscale-$$-$1" "$lcores" \
		--vdev="net_memif0,socket=$dir/scale.memif,socket-abstract=no,role=$1,rsize=${GEN_SCALE_RSIZE:-14}"
}
ports=64000
addrs=$(((channels + ports - 1) / ports))
# shellcheck disable=SC2046
"$gen" $(eal server) -- server --port 0 --ip 10.9.0.1/16 --udp 10.9.0.1:4433 \
	--max-channels $((channels + channels / 10 + 16)) --workers "$workers" \
	2>"$dir/server.err" &
server=$!
for _ in $(seq 600); do
	grep -qs '^sst-gen: serving' "$dir/server.err" && break
	kill -0 "$server" 2>/dev/null || break
	sleep 0.1
done
grep -qs '^sst-gen: serving' "$dir/server.err" || {
	echo "gen_scale.sh: the server did not start:" >&2
	cat "$dir/server.err" >&2
	exit 1
}
start=$(date +%s)
# The client holds its port after its report (--hold) until the server has
# stopped: DPDK 22.11's memif PMD unmaps a departed peer's rings under the
# threads polling them (docs/engine.md), and a server whose client exited
# first segfaulted that way once after answering every stream.
# shellcheck disable=SC2046,SC2086
/usr/bin/time -v ${GEN_SCALE_WRAP:-} "$gen" $(eal client) -- client --port 0 --ip 10.9.0.2/16 \
	--src 10.9.0.2:1024 --src-addrs "$addrs" --src-ports $ports --udp 10.9.0.1:4433 \
	--channels "$channels" --streams "$streams" --timeout "$timeout_s" --quiet \
	--workers "$workers" --hold >"$dir/client.out" 2>"$dir/client.err" &
client=$!
# The client's own deadline ends it; the margin covers its start and report.
for _ in $(seq $(((timeout_s + 120) * 10))); do
	grep -qs '^sst-gen: holding the port' "$dir/client.err" && break
	kill -0 "$client" 2>/dev/null || break
	sleep 0.1
done
end=$(date +%s)
kill "$server"
wait "$server"
server_rc=$?
server=
# The sst-gen process itself, not time(1) or GEN_SCALE_WRAP's profiler:
# --hold ends on SIGINT with the run's exit status.
for pid in $(pgrep -f -- "--file-prefix=gscale-$$-client"); do
	[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sst-gen ] && kill -INT "$pid"
done
wait "$client"
rc=$?
client=
cat "$dir/client.out"
grep -E 'Maximum resident|Elapsed|Percent of CPU' "$dir/client.err"
grep 'sst-gen client channels' "$dir/client.err"
tail -2 "$dir/server.err"
echo "wall time $((end - start)) s, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
want=$((channels * streams))
if [ "$rc" -ne 0 ]; then
	echo "FAILED: client exit $rc"
	exit 1
fi
# SIGTERM ends a server with status 0 after its last line; anything else
# (a fault at exit) fails the run even when that line was printed.
if [ "$server_rc" -ne 0 ]; then
	echo "FAILED: server exit $server_rc"
	exit 1
fi
if ! grep -q "server (end): .* answered $want failed 0, verify errors 0," "$dir/server.err"; then
	echo "FAILED: the server did not answer $want streams cleanly"
	exit 1
fi
echo ok
