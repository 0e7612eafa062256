# SPDX-License-Identifier: BSD-3-Clause
# What the sst-cat system tests share (sourced; $cat_bin is set): a
# scratch directory, failure counting, a listener on a port the kernel
# picks, and clients with an expected exit status.
dir=$(mktemp -d "${TMPDIR:-/tmp}/sst-cat-test.XXXXXX") || {
	echo "$0: cannot make a scratch directory" >&2
	exit 1
}
server=
fails=0

cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# listen NAME INPUT OUTPUT ARGS...: start a listener in the background
# (its input named explicitly: a background job's would be /dev/null);
# sets $server and $port; its stderr goes to $dir/listen.NAME.err.
listen() {
	local err=$dir/listen.$1.err in=$2 out=$3
	shift 3
	# Emptied before the job starts (see bg_server in gen_common.sh): a
	# second listener of the same NAME must not read the first one's port.
	: >"$err"
	"$cat_bin" --listen "$@" <"$in" >"$out" 2>>"$err" &
	server=$!
	for _ in $(seq 300); do
		port=$(sed -n 's/^sst-cat: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$err")
		[ -n "$port" ] && return 0
		kill -0 "$server" 2>/dev/null || break
		sleep 0.1
	done
	echo "the listener did not start:" >&2
	cat "$err" >&2
	exit 1
}

# stop NAME WHAT: end the listener started as NAME with SIGTERM (or wait
# for it when it ends by itself: WHAT "wait"); exit status 0 expected.
# Bounded: a listener still there after 120 s is killed and a failure.
stop() {
	local rc
	[ "$2" = wait ] || kill "$server"
	for _ in $(seq 1200); do
		kill -0 "$server" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$server" 2>/dev/null; then
		kill -9 "$server"
		wait "$server" 2>/dev/null
		server=
		fail "$1 listener did not end: $(cat "$dir/listen.$1.err")"
		return 1
	fi
	wait "$server"
	rc=$?
	server=
	[ "$rc" -eq 0 ] || fail "$1 listener: exit status $rc: $(cat "$dir/listen.$1.err")"
}

# run NAME EXPECTED-STATUS CLIENT-ARGS... < input: output in $dir/NAME.out
run() {
	local name=$1 want=$2 rc
	shift 2
	timeout 120 "$cat_bin" "$@" >"$dir/$name.out" 2>"$dir/$name.err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "$name: exit status $rc, expected $want"
		cat "$dir/$name.err" >&2
		return 1
	fi
	return 0
}

# rss_flat GROWTH_KB WHAT: fail when the server's RSS grew by more than
# 8 MiB (slack for the allocator's rounding and the kernel's accounting).
# Not judged in sanitizer builds (SST_RSS_FLAT_CHECK=0 from meson): there
# RSS measures the sanitizer's own allocator and records. A second round of
# 1,000 clients grew the ASan server by 5.6-9.6 MB, and still by 5.4 MB with
# ASAN_OPTIONS=quarantine_size_mb=0, against 0.4 MB in the release build;
# LeakSanitizer covers leaks there.
rss_flat() {
	if [ "${SST_RSS_FLAT_CHECK:-1}" = 0 ]; then
		echo "RSS growth $1 kB $2: not judged in a sanitizer build"
	elif [ "$1" -gt 8192 ]; then
		fail "server RSS grew by $1 kB $2"
	fi
}
