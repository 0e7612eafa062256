# SPDX-License-Identifier: BSD-3-Clause
# The examples as outside consumers (sourced by consumer.sh, which set
# $src, $dir, $cat_bin, PKG_CONFIG_PATH and fail()), built three ways:
#  pc:     their meson.build against the installed tree through pkg-config
#          (pkg-config --libs libsst: the shared libsst when one is
#          installed; the examples then run with LD_LIBRARY_PATH on the
#          staged libdir and must load that libsst.so);
#  static: cc with pkg-config --static --libs libsst, as DPDK's example
#          Makefiles link (the whole libsst.a and DPDK's static libraries:
#          the binary must load neither libsst.so nor librte_eal.so);
#  sub:    as a meson subproject (a tree holding the examples and
#          subprojects/sst-dpdk, a symlink to the source), built at -O0,
#          only what the examples need, to keep the suite's time down.
# Then each build's examples answer an echo from sst-cat: echo_embedded
# and echo_rings over kernel UDP, l2fwd_sst on a vhost-user port that
# sst-cat joins as the virtio side.

examples="echo_embedded echo_rings l2fwd_sst"
libdir=$(pkg-config --variable=libdir libsst)

build_examples() {
	local name=$1 srcdir=$2
	shift 2
	# shellcheck disable=SC2086 # the example names are words
	if ! meson setup "$dir/$name" "$srcdir" "$@" >"$dir/$name.log" 2>&1 ||
		! meson compile -C "$dir/$name" $examples >>"$dir/$name.log" 2>&1; then
		fail "examples ($name) do not build: $(tail -20 "$dir/$name.log")"
		return 1
	fi
}

# build_static: each example compiled and linked by hand with
# pkg-config --cflags and --static --libs.
build_static() {
	local ex
	mkdir -p "$dir/static"
	for ex in $examples; do
		# shellcheck disable=SC2046 # pkg-config's words
		${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror $(pkg-config --cflags libsst) \
			"$src/examples/$ex.c" -o "$dir/static/$ex" $(pkg-config --static --libs libsst) \
			>"$dir/static.log" 2>&1 || {
			fail "$ex does not link with pkg-config --static: $(tail -20 "$dir/static.log")"
			return 1
		}
	done
}

# linked_to BUILD WANTED UNWANTED: every example of BUILD loads the shared
# libraries matching the extended regular expression WANTED and none
# matching UNWANTED (either may be empty).
linked_to() {
	local build=$1 want=$2 unwant=$3 ex needed
	for ex in $examples; do
		needed=$(readelf -d "$dir/$build/$ex" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p')
		if [ -n "$want" ] && ! grep -Eq "$want" <<<"$needed"; then
			fail "$build/$ex does not load $want: $(echo $needed)"
		fi
		if [ -n "$unwant" ] && grep -Eq "$unwant" <<<"$needed"; then
			fail "$build/$ex loads $(grep -E "$unwant" <<<"$needed" | head -1)"
		fi
	done
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
	# The staged libdir: where the pc build's examples find libsst.so.
	LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$@" 2>"$dir/$name.srv" &
	pid=$!
	until grep -q '^listening on' "$dir/$name.srv" 2>/dev/null; do
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
	local when="after SIGTERM"
	cmp -s "$dir/echo.in" "$dir/$1.out" || fail "$1: the echo differs"
	kill "$pid" 2>/dev/null || when="before SIGTERM"
	wait "$pid" || fail "$1: exit status $? $when: $(tail -20 "$dir/$1.srv")"
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

# echo_over_vhost BUILD: l2fwd_sst owns a vhost-user port (net_vhost, the
# socket's server), sst-cat joins it as the virtio side (net_virtio_user)
# with lib/net on both ends. Not memif: DPDK 22.11's net_memif unmaps the
# peer's shared memory in its interrupt thread when the peer leaves, while
# the lcore may be inside rte_eth_rx_burst() on that memory (SIGSEGV in
# librte_net_memif.so after sst-cat's echo, rarely; shown by hand with
# gdb: docs/api.md#the-examples-port). net_vhost makes
# its queues wait for the burst in progress before it tears them down.
echo_over_vhost() {
	local name=$1-l2fwd_sst sock=$dir/$1.vhost
	serve "$name" "$dir/$1/l2fwd_sst" --no-huge --no-pci -m 256 \
		--file-prefix="sst-ex-$name-s-$$" --vdev="net_vhost0,iface=$sock" -- 10.9.0.1/24 7000 60 ||
		return
	cat_client "$name" --vdev="net_virtio_user0,path=$sock" -- --port 0 --ip 10.9.0.2/24 \
		10.9.0.1:7000 echo test || fail "$name: sst-cat failed: $(tail -5 "$dir/$name.err")"
	check "$name"
}

head -c 100000 /dev/urandom >"$dir/echo.in"
mkdir -p "$dir/subtree/subprojects"
cp "$src"/examples/* "$dir/subtree/"
ln -s "$(cd "$src" && pwd)" "$dir/subtree/subprojects/sst-dpdk"

# run_examples BUILD: the three echoes.
run_examples() {
	echo_over_udp "$1" echo_embedded
	echo_over_udp "$1" echo_rings
	echo_over_vhost "$1"
}

t0=$SECONDS
if build_examples pc "$src/examples"; then
	if [ -e "$libdir/libsst.so" ]; then
		linked_to pc '^libsst\.so\.' ''
	else
		echo "consumer: no shared libsst installed (default_library=static): pc links the static one"
	fi
	run_examples pc
fi
t1=$SECONDS
if [ -e "$libdir/libsst.a" ] && [ -e "$libdir/libsst.so" ]; then
	build_static && linked_to static '' '^libsst\.|^librte_eal\.' && run_examples static
else
	echo "consumer: libsst is not installed both static and shared: no pkg-config --static build"
fi
t2=$SECONDS
# As a parent project names it: dependency('sst'), which only the
# subproject's meson.override_dependency() answers (there is no sst.pc).
sed -i "s/dependency('libsst', fallback/dependency('sst', fallback/" "$dir/subtree/meson.build"
grep -q "dependency('sst', fallback" "$dir/subtree/meson.build" ||
	fail "the examples' meson.build no longer names dependency('libsst', fallback: ...)"
# --force-fallback-for: even where a package is found, the subproject.
build_examples sub "$dir/subtree" --force-fallback-for=sst --buildtype=plain \
	-Dsst-dpdk:tests=false && linked_to sub '' '^libsst\.' && run_examples sub
echo "consumer: examples built and run in $((t1 - t0)) s (pc), $((t2 - t1)) s (static)," \
	"$((SECONDS - t2)) s (sub)"
