# SPDX-License-Identifier: BSD-3-Clause
# What the sst-gen system tests share (sourced after cat_common.sh; $gen_bin
# is set): reading sst-gen's --json object and starting its server.

# json_field FILE NAME: a number or boolean of sst-gen's --json object.
json_field() { sed -n "s/.*\"$2\": \([0-9a-z.]*\).*/\1/p" "$1" | head -1; }

# gen_server ARGS...: `sst-gen server --udp 127.0.0.1:0 ARGS` in the
# background, its stderr in $dir/server.err; sets $server and $port.
gen_server() {
	"$gen_bin" server --udp 127.0.0.1:0 "$@" 2>"$dir/server.err" &
	server=$!
	for _ in $(seq 300); do
		port=$(sed -n 's/^sst-gen: serving .* on 127\.0\.0\.1:\([0-9]*\)$/\1/p' \
			"$dir/server.err")
		[ -n "$port" ] && return 0
		kill -0 "$server" 2>/dev/null || break
		sleep 0.1
	done
	cat "$dir/server.err" >&2
	exit 1
}
