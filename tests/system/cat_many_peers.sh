#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# One sst-cat echo service over kernel UDP on 127.0.0.1 (issue 14):
#  - 1,000 sequential clients, each from its own UDP port and gone (FINISH)
#    before the next: every echo exact, and the server's RSS flat after the
#    first 10 (peers and channels freed and their memory reused);
#  - then 300 peers at once, each from its own UDP port: every peer gets a
#    channel of its own, all up at the same time, and an exact echo (the
#    server once refused its 65th peer).
# many_peers runs the clients, one process, one socket per client.
# Usage: cat_many_peers.sh PATH/TO/sst-cat PATH/TO/many_peers [SEQUENTIAL [CONCURRENT]]
set -u
cat_bin=${1:?usage: cat_many_peers.sh PATH/TO/sst-cat PATH/TO/many_peers [SEQ [CONC]]}
many_peers=${2:?usage: cat_many_peers.sh PATH/TO/sst-cat PATH/TO/many_peers [SEQ [CONC]]}
sequential=${3:-1000}
concurrent=${4:-300}
. "$(dirname "$0")/cat_common.sh"

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$server/status"; }

listen echo /dev/null /dev/null --echo 127.0.0.1:0 echo test
ep=127.0.0.1:$port
"$many_peers" --sequential --peers 10 --timeout 60 "$ep" echo test ||
	fail "the first 10 sequential clients were not all served"
first=$(rss_kb)
"$many_peers" --sequential --peers $((sequential - 10)) --timeout 600 "$ep" echo test ||
	fail "sequential clients not all served"
last=$(rss_kb)
echo "server RSS after 10 sequential clients: $first kB; after $sequential: $last kB"
# Flat: what 990 more peers leave behind must not show.
rss_flat $((last - first)) "over $sequential sequential clients"
"$many_peers" --peers "$concurrent" --timeout 120 "$ep" echo test ||
	fail "$concurrent concurrent peers were not all served: $(tail -5 "$dir/listen.echo.err")"
echo "server RSS after $concurrent concurrent peers: $(rss_kb) kB"
stop echo kill
[ "$fails" -eq 0 ] && echo "sst-cat: $sequential sequential clients and $concurrent at once served"
exit $((fails != 0))
