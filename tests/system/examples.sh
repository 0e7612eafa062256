# SPDX-License-Identifier: BSD-3-Clause
# The examples as outside consumers (sourced by consumer.sh, which set
# $src, $dir, $cat_bin, PKG_CONFIG_PATH and fail()): built against the
# installed tree through pkg-config, and as a meson subproject (a tree
# holding the examples and subprojects/sst-dpdk, a symlink to the source);
# then each build's examples answer an echo from sst-cat: echo_embedded
# and echo_rings over kernel UDP, l2fwd_sst on a memif port that sst-cat
# joins as the client. The subproject is built at -O0, only what the
# examples need, to keep the suite's time down.

build_examples() {
	local name=$1 srcdir=$2
	shift 2
	if ! meson setup "$dir/$name" "$srcdir" "$@" >"$dir/$name.log" 2>&1 ||
		! meson compile -C "$dir/$name" echo_embedded echo_rings l2fwd_sst \
			>>"$dir/$name.log" 2>&1; then
		fail "examples ($name) do not build: $(tail -20 "$dir/$name.log")"
		return 1
	fi
}

# The sst-cat client with an EAL of its own.
cat_client() {
	local name=$1
	shift
	timeout 60 "$cat_bin" --no-huge --no-pci -m 512 --file-prefix="sst-ex-$name-$$" "$@" \
		<"$dir/echo.in" >"$dir/$name.out" 2>"$dir/$name.err"
}

# serve NAME EXAMPLE-ARGS...: start an example in the background until it
# says it listens (its stderr in $dir/NAME.srv); sets $pid. Returns 1 if
# it did not come up.
serve() {
	local name=$1
	shift
	local tries=300
	"$@" 2>"$dir/$name.srv" &
	pid=$!
	until grep -q '^listening on' "$dir/$name.srv"; do
		if ! kill -0 "$pid" 2>/dev/null || [ $((tries -= 1)) -eq 0 ]; then
			fail "$name did not start: $(cat "$dir/$name.srv")"
			kill "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			return 1
		fi
		sleep 0.1
	done
}

# check NAME: the client's output is the input, and the example ends
# cleanly on SIGTERM.
check() {
	cmp -s "$dir/echo.in" "$dir/$1.out" || fail "$1: the echo differs"
	kill "$pid"
	wait "$pid" || fail "$1: exit status $? after SIGTERM: $(cat "$dir/$1.srv")"
}

# echo_over_udp BUILD EXAMPLE: the example on a free port of 127.0.0.1.
echo_over_udp() {
	local name=$1-$2 port
	serve "$name" "$dir/$1/$2" --no-huge --no-pci -m 256 --lcores=0-1 \
		--file-prefix="sst-ex-$name-s-$$" -- 0 60 || return
	port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$dir/$name.srv")
	cat_client "$name" -- "127.0.0.1:$port" echo test ||
		fail "$name: sst-cat failed: $(cat "$dir/$name.err")"
	check "$name"
}

# echo_over_memif BUILD: l2fwd_sst owns a memif port (server), sst-cat
# joins it (client) with lib/net on both ends.
echo_over_memif() {
	local name=$1-l2fwd_sst vdev="net_memif0,socket=$dir/$1.memif,socket-abstract=no"
	serve "$name" "$dir/$1/l2fwd_sst" --no-huge --no-pci -m 256 \
		--file-prefix="sst-ex-$name-s-$$" --vdev="$vdev,role=server" -- 10.9.0.1/24 7000 60 ||
		return
	cat_client "$name" --vdev="$vdev,role=client" -- --port 0 --ip 10.9.0.2/24 \
		10.9.0.1:7000 echo test || fail "$name: sst-cat failed: $(cat "$dir/$name.err")"
	check "$name"
}

head -c 100000 /dev/urandom >"$dir/echo.in"
mkdir -p "$dir/subtree/subprojects"
cp "$src"/examples/* "$dir/subtree/"
ln -s "$(cd "$src" && pwd)" "$dir/subtree/subprojects/sst-dpdk"

build_examples pc "$src/examples" && for ex in echo_embedded echo_rings; do
	echo_over_udp pc "$ex"
done && echo_over_memif pc
# As a parent project names it: dependency('sst'), which only the
# subproject's meson.override_dependency() answers (there is no sst.pc).
sed -i "s/dependency('libsst', fallback/dependency('sst', fallback/" "$dir/subtree/meson.build"
grep -q "dependency('sst', fallback" "$dir/subtree/meson.build" ||
	fail "the examples' meson.build no longer names dependency('libsst', fallback: ...)"
# --force-fallback-for: even where a package is found, the subproject.
build_examples sub "$dir/subtree" --force-fallback-for=sst --buildtype=plain \
	-Dsst-dpdk:tests=false && for ex in echo_embedded echo_rings; do
	echo_over_udp sub "$ex"
done && echo_over_memif sub
