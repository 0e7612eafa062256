#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# An sst-perf server over kernel UDP gives its streams the library's send
# buffer (1 MiB), which a response needs to fill the path. Its mode and
# stream count are placeholders until a client brings its test, and the
# bulk client's rule (32 MiB shared by more than 32 streams) took them for
# its own: every response went out at 64 KB a round trip (a 128 KB
# response on 1.5 Mbit/s x 50 ms took 0.9 s where TCP took 0.79; issue 19,
# Figure 7). The server says its limits when it starts.
# Usage: perf_server_limits.sh PATH/TO/sst-perf
set -u
perf=${1:?usage: perf_server_limits.sh PATH/TO/sst-perf}
# shellcheck source=gen_common.sh
. "$(dirname "$0")/gen_common.sh"
err=$(mktemp "${TMPDIR:-/tmp}/sst-perf-limits.XXXXXX")
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -f "$err"' EXIT
bg_server "$err" "$perf" --server --udp 127.0.0.1:0
# Printed right after the "listening on" line bg_server waited for.
for _ in 1 2 3 4 5 6 7 8 9 10; do
	line=$(grep -m1 '^sst-perf: up to' "$err") && break
	sleep 0.1
done
if [ -z "$line" ]; then
	cat "$err" >&2
	echo "FAIL: the server did not say its limits" >&2
	exit 1
fi
echo "$line"
kib=$(echo "$line" | sed -n 's/.*send buffer of \([0-9]*\) KiB.*/\1/p')
if [ -z "$kib" ] || [ "$kib" -lt 1024 ]; then
	echo "FAIL: a server stream's send buffer is ${kib:-?} KiB, not the library's 1024" >&2
	exit 1
fi
echo "ok: a server stream's send buffer is $kib KiB"
