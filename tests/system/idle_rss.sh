#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Idle tools stay small (issue 14, "tools sized to their work"): each of
# `sst-perf --server`, an `sst-perf` client still connecting (to a port
# nobody answers on), `sst-cat --listen --echo` and `sst-gen server`, over
# kernel UDP on 127.0.0.1, must hold less than 32 MiB of RSS (VmRSS) once it
# has started and idled for 3 s. Their pools and tables start small and
# grow; the EAL memory they ask for (-m) costs 12 MB of page records per GB
# whether used or not (docs/engine.md, "Memory of an idle tool").
# Registered in the release build only; by hand, SST_RSS_FLAT_CHECK=0 prints
# the figures without judging them (a sanitizer build, whose RSS is its own).
# Usage: idle_rss.sh PATH/TO/sst-perf PATH/TO/sst-cat PATH/TO/sst-gen
set -u
perf=${1:?usage: idle_rss.sh PATH/TO/sst-perf PATH/TO/sst-cat PATH/TO/sst-gen}
cat_bin=${2:?usage: idle_rss.sh PATH/TO/sst-perf PATH/TO/sst-cat PATH/TO/sst-gen}
gen=${3:?usage: idle_rss.sh PATH/TO/sst-perf PATH/TO/sst-cat PATH/TO/sst-gen}
. "$(dirname "$0")/cat_common.sh"

limit_kb=32768

# idle NAME READY-PATTERN COMMAND...: start COMMAND with its stderr in
# $dir/NAME.err, wait for READY-PATTERN there (at most 30 s; "-": a
# second), idle 3 s, judge its VmRSS, stop it.
idle() {
	local name=$1 ready=$2 pid rss= started=
	shift 2
	"$@" </dev/null >/dev/null 2>"$dir/$name.err" &
	pid=$!
	server=$pid # cat_common.sh's cleanup stops it if we exit early
	[ "$ready" = - ] && sleep 1 && kill -0 "$pid" 2>/dev/null && started=1
	for _ in $(seq 300); do
		[ -n "$started" ] && break
		grep -q "$ready" "$dir/$name.err" && started=1 && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if [ -z "$started" ]; then
		fail "$name did not start: $(cat "$dir/$name.err")"
	else
		sleep 3
		rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
		if [ -z "$rss" ]; then
			fail "$name ended while idle: $(cat "$dir/$name.err")"
		elif [ "${SST_RSS_FLAT_CHECK:-1}" = 0 ]; then
			echo "$name: idle RSS $rss kB (not judged in a sanitizer build)"
		elif [ "$rss" -ge "$limit_kb" ]; then
			fail "$name: idle RSS $rss kB, limit $limit_kb kB"
		else
			echo "$name: idle RSS $rss kB (limit $limit_kb kB)"
		fi
	fi
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	server=
}

idle perf_server 'listening on' "$perf" --server --udp 127.0.0.1:0
# A UDP port nobody reads: a socket bound and never read, so nothing
# answers the client's negotiation (and no ICMP says so either).
exec 3< <(exec python3 -c 'import socket,sys,time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1], flush=True)
time.sleep(60)')
sleeper=$!
read -r silent <&3
idle perf_client - "$perf" --udp "127.0.0.1:$silent" bulk
idle cat_echo 'listening on' "$cat_bin" --listen --echo 127.0.0.1:0 echo test
idle gen_server 'serving' "$gen" server --udp 127.0.0.1:0 --quiet
exec 3<&-
kill "$sleeper" 2>/dev/null

[ "$fails" -eq 0 ] && echo "idle RSS of every tool under $limit_kb kB"
exit $((fails != 0))
