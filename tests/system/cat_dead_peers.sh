#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Dead peers against one sst-cat echo service over kernel UDP (issue 15,
# finding 1): N sequential clients, every K-th of which writes 200,000
# bytes and vanishes once its first echo is back (no FINISH, its port
# closed: SIGKILL as the server sees it), mostly with the server's echo
# still in flight. Every live client is served; within the dead-peer
# timeout (2 s here, 30 s by default; one and a half of it when nothing was
# in flight and a keepalive probe found the peer gone) of the last one, the
# server holds no peer and no channel, declared every killed client dead,
# and its RSS stayed flat. The server used to retransmit to each dead port
# every 60 s for good, or hold the peer for good when nothing was in flight.
# Usage: cat_dead_peers.sh PATH/TO/sst-cat PATH/TO/many_peers [CLIENTS [KILL_EVERY]]
set -u
cat_bin=${1:?usage: cat_dead_peers.sh PATH/TO/sst-cat PATH/TO/many_peers [N [K]]}
many_peers=${2:?usage: cat_dead_peers.sh PATH/TO/sst-cat PATH/TO/many_peers [N [K]]}
clients=${3:-1000}
kill_every=${4:-10}
. "$(dirname "$0")/cat_common.sh"

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$server/status"; }
# The last --stats line's value of a counter, named by what precedes it
# ("stats: peers", "channels", "dead peers").
counter() { grep '^sst-cat: stats:' "$dir/listen.echo.err" | tail -1 | sed -n "s/.*$1 \([0-9]*\).*/\1/p"; }

listen echo /dev/null /dev/null --echo --dead-peer-timeout 2 --stats 0.2 127.0.0.1:0 echo test
ep=127.0.0.1:$port
"$many_peers" --sequential --peers 20 --timeout 60 "$ep" echo test ||
	fail "the first 20 sequential clients were not all served"
# round N: the clients, then the wait for the server to let the killed
# ones go; sets $killed (this round) and $rss (after it).
total_killed=0
round() {
	local out dead restarted
	out=$("$many_peers" --sequential --peers "$clients" --kill-every "$kill_every" \
		--timeout 600 "$ep" echo test) || fail "round $1: live clients not all served: $out"
	echo "round $1: $out"
	killed=$(echo "$out" | sed -n 's/.*, \([0-9]*\) killed mid-transfer.*/\1/p')
	[ "${killed:-0}" -eq $((clients / kill_every)) ] ||
		fail "round $1: $killed clients killed, expected $((clients / kill_every))"
	total_killed=$((total_killed + ${killed:-0}))
	# The last killed client's peer goes 2 s after the server last heard
	# from it, or 3 s when nothing of ours was in flight (a keepalive probe
	# goes after 1 s); the stats line comes every 0.2 s. Twice that of margin.
	for _ in $(seq 80); do
		[ "$(counter "stats: peers")" = 0 ] && [ "$(counter channels)" = 0 ] && break
		sleep 0.1
	done
	rss=$(rss_kb)
	grep '^sst-cat: stats:' "$dir/listen.echo.err" | tail -1
	[ "$(counter "stats: peers")" = 0 ] || fail "round $1: the server still holds $(counter "stats: peers") peers"
	[ "$(counter channels)" = 0 ] || fail "round $1: the server still holds $(counter channels) channels"
	# A killed client whose port the kernel gives the next one is found
	# restarted (a new instance at the same endpoint) rather than dead.
	dead=$(counter 'dead peers')
	restarted=$(counter 'restarted peers')
	[ $((dead + restarted)) -eq "$total_killed" ] ||
		fail "round $1: $dead peers declared dead and $restarted restarted, $total_killed killed"
}
# Flat: the first round sets the high-water mark of what many dead peers
# at once hold (their echoes in flight fill the pools, which keep their
# memory); later rounds of the same must not add to it. A leak adds in
# every round; a pool that grows once more, when a loaded machine lets the
# server fall behind (8.6 MB in one round of a parallel suite run, 0.4 MB
# alone), does not: the smaller growth of rounds 2 and 3 is judged.
round 1
first=$rss
round 2
second=$rss
round 3
third=$rss
echo "server RSS after round 1: $first kB; after round 2: $second kB; after round 3: $third kB"
grew2=$((second - first))
grew3=$((third - second))
rss_flat $((grew2 < grew3 ? grew2 : grew3)) "in each of rounds 2 and 3"
stop echo kill
[ "$fails" -eq 0 ] && echo "sst-cat: 3 x $clients sequential clients, $total_killed killed mid-transfer and freed"
exit $((fails != 0))
