#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Sequential sst-cat processes against one sst-cat echo server (issue 14):
# N client processes, one after the other, each its own EAL, host instance
# and UDP port, each sending one line and checking the echo. Prints the
# server's RSS after the first 10 clients and then every STEP, and the
# clients that failed. Exit status 1 when a client failed or the server's
# RSS grew by more than 10 % from client 10 to the last. Run by hand (about
# 1.2 s a client: the EAL starts in each); figures go to docs/engine.md.
# Usage: perf/cat_sequential.sh [-C BUILD_DIR] [N [STEP]]  (defaults: build, 1000, 100)
set -u
cd "$(dirname "$0")/.."
dir_build=build
if [ "${1:-}" = "-C" ]; then
	dir_build=$2
	shift 2
fi
case "${1:-}" in
-h | --help)
	sed -n '3,10p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
esac
n=${1:-1000}
step=${2:-100}
cat_bin=$dir_build/apps/sst-cat/sst-cat
if [ ! -x "$cat_bin" ]; then
	echo "no $cat_bin: build first (scripts/build.sh release $dir_build)" >&2
	exit 2
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/sst-cat-seq.XXXXXX") || {
	echo "$0: cannot make a scratch directory" >&2
	exit 1
}
server=
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

"$cat_bin" --listen --echo 127.0.0.1:0 seq echo </dev/null >/dev/null 2>"$dir/server.err" &
server=$!
port=
for _ in $(seq 300); do
	port=$(sed -n 's/^sst-cat: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$dir/server.err")
	[ -n "$port" ] && break
	sleep 0.1
done
if [ -z "$port" ]; then
	echo "the echo server did not start:" >&2
	cat "$dir/server.err" >&2
	exit 1
fi
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$server/status"; }
echo "server pid $server on port $port; idle RSS $(rss) kB"

failed=0
rss10=
start=$(date +%s)
for i in $(seq "$n"); do
	line="client $i of $n $RANDOM$RANDOM"
	got=$(echo "$line" | timeout 30 "$cat_bin" -t 10 "127.0.0.1:$port" seq echo 2>"$dir/client.err")
	if [ "$got" != "$line" ]; then
		failed=$((failed + 1))
		echo "client $i failed: got '$got': $(tail -n 2 "$dir/client.err")" >&2
	fi
	[ "$i" -eq 10 ] && rss10=$(rss)
	if [ "$i" -eq 10 ] || [ $((i % step)) -eq 0 ]; then
		echo "after $i clients ($(($(date +%s) - start)) s): server RSS $(rss) kB, $failed failed"
	fi
done
last=$(rss)
echo "done: $n clients, $failed failed; server RSS $rss10 kB after 10, $last kB after $n"
[ "$failed" -eq 0 ] || exit 1
[ -n "$rss10" ] && [ "$last" -gt $((rss10 + rss10 / 10)) ] && exit 1
exit 0
