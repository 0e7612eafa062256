# SPDX-License-Identifier: BSD-3-Clause
# What the sst-gen system tests share (sourced after cat_common.sh; $gen_bin
# is set): reading sst-gen's --json object and starting its server.

# json_field FILE NAME: a number or boolean of sst-gen's --json object.
json_field() { sed -n "s/.*\"$2\": \([0-9a-z.]*\).*/\1/p" "$1" | head -1; }

# bg_server ERR PROGRAM ARGS...: PROGRAM ARGS in the background, its stderr
# in ERR, until it prints "PROGRAM-NAME: ... on 127.0.0.1:PORT" (sst-gen's
# "serving", sst-perf's "listening"); sets $server and $port.
bg_server() {
	local err=$1
	shift
	# Emptied here, not by the background job's redirection: the loop
	# below may read the file before that job has run, and a test that
	# starts a second server in the same file took the first one's
	# (killed) port from it (sst_gen_attack failed once that way).
	: >"$err"
	"$@" 2>>"$err" &
	server=$!
	for _ in $(seq 300); do
		port=$(sed -n 's/^sst-[a-z]*: [a-z].* on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$err")
		[ -n "$port" ] && return 0
		kill -0 "$server" 2>/dev/null || break
		sleep 0.1
	done
	cat "$err" >&2
	exit 1
}

# gen_server ARGS...: `sst-gen server --udp 127.0.0.1:0 ARGS` in the
# background, its stderr in $dir/server.err; sets $server and $port.
gen_server() { bg_server "$dir/server.err" "$gen_bin" server --udp 127.0.0.1:0 "$@"; }

# wait_pattern FILE PATTERN PID TENTHS: 0 once PATTERN is in FILE; 1 if PID
# ends or TENTHS tenths of a second pass first.
wait_pattern() {
	for _ in $(seq "$4"); do
		grep -qs "$2" "$1" && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# wait_line FILE PATTERN: until the background server ($server) prints
# PATTERN in FILE; exit 1 if it ends or 30 s pass first.
wait_line() {
	wait_pattern "$1" "$2" "$server" 300 && return 0
	echo "the server did not start:" >&2
	cat "$1" >&2
	exit 1
}

# held_client ERR ARGS...: an sst-gen client run with --hold in the
# background (its stderr in ERR) until it has reported, then the server
# ($server) stopped, then the client: over net_memif the side that stays
# must not be polling when the other's exit unmaps the rings (DPDK 22.11's
# memif PMD, docs/engine.md). Returns the client's exit status (the run's:
# --hold ends on the signal without changing it).
held_client() {
	local err=$1 cl
	shift
	"$@" --hold 2>"$err" &
	cl=$!
	wait_pattern "$err" '^sst-gen: holding the port' "$cl" 1800
	if [ -n "$server" ]; then
		kill "$server" 2>/dev/null
		wait "$server"
		server=
	fi
	kill "$cl" 2>/dev/null
	wait "$cl"
}
