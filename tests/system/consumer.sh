#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# SST-DPDK as an outside project sees it (issue 20, suite 'consumer'):
# meson install into a temporary prefix, then
#  1. libsst.pc answers pkg-config --cflags --libs, and the installed
#     headers compile with only the installed include directory and
#     DPDK's (so no installed header includes a private one);
#  2. every installed header is public (sst_*.h);
#  3. every installed tool has a manual page, which renders cleanly;
#  4. the examples build against the installed tree through pkg-config
#     (the shared libsst), with pkg-config --static (the static one, and
#     DPDK's) and as a meson subproject (found as dependency('sst')), and
#     each runs an echo against sst-cat (examples.sh, when given).
# Usage: consumer.sh SOURCE_ROOT BUILD_DIR [SST_CAT]
set -u
src=${1:?usage: consumer.sh SOURCE_ROOT BUILD_DIR [SST_CAT]}
build=${2:?usage: consumer.sh SOURCE_ROOT BUILD_DIR [SST_CAT]}
cat_bin=${3:-}
dir=$(mktemp -d "${TMPDIR:-/tmp}/sst-consumer.XXXXXX") || {
	echo "$0: cannot make a scratch directory" >&2
	exit 1
}
trap 'rm -rf "$dir"' EXIT
fails=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

meson install -C "$build" --no-rebuild --quiet --destdir "$dir/root" >"$dir/install.log" 2>&1 || {
	cat "$dir/install.log" >&2
	exit 1
}
pc=$(find "$dir/root" -name libsst.pc)
[ -n "$pc" ] || { echo "FAIL: no libsst.pc installed" >&2; exit 1; }
# The tree was installed for its configured prefix under a staging
# directory: point the copies of libsst.pc and libsst-libs.pc at the
# staged prefix.
prefix=$(sed -n 's/^prefix=//p' "$pc")
sed -i "s|^prefix=.*|prefix=$dir/root$prefix|" "$(dirname "$pc")"/libsst*.pc
export PKG_CONFIG_PATH=$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
cflags=$(pkg-config --cflags libsst) || fail "pkg-config --cflags libsst"
libs=$(pkg-config --libs libsst) || fail "pkg-config --libs libsst"
static_libs=$(pkg-config --static --libs libsst) || fail "pkg-config --static --libs libsst"
pkg-config --print-requires libsst | grep -q '^libdpdk' || fail "libsst.pc does not require libdpdk"
# -lsst after DPDK's -Wl,--as-needed: a static link (whose whole libsst.a
# comes first) then does not load libsst.so as well.
for words in "$libs" "$static_libs"; do
	grep -Eq -- '-Wl,--as-needed( .*)? -lsst( |$)' <<<"$words" ||
		fail "-lsst is not after -Wl,--as-needed: $words"
done
inc=$dir/root$prefix/include/sst

# One translation unit with every installed header: any "private.h" an
# installed header includes is missing from the include path.
n=0
for h in "$inc"/*; do
	name=$(basename "$h")
	case $name in
	sst_*.h) printf '#include <%s>\n' "$name" >>"$dir/all.c" ;;
	*) fail "installed header $name is not a public one (sst_*.h)" ;;
	esac
	n=$((n + 1))
done
${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Werror -fsyntax-only "$dir/all.c" $cflags \
	>"$dir/hdr.log" 2>&1 || fail "the installed headers do not compile alone: $(head -5 "$dir/hdr.log")"
[ "$n" -ge 20 ] || fail "only $n headers installed"
for h in sst_engine.h sst_stream.h sst_ring.h sst_channel.h sst_worker.h sst_negotiation.h; do
	[ -f "$inc/$h" ] || fail "$h is not installed"
done

# A manual page for every installed tool (from its --help text), which
# renders without warnings.
tools=$(find "$dir/root" -path '*/bin/sst-*' -printf '%f\n' | sort)
[ "$(wc -w <<<"$tools")" -ge 5 ] || fail "fewer than 5 tools installed: $(echo $tools)"
for t in $tools; do
	page=$(find "$dir/root" -name "$t.1")
	if [ -z "$page" ]; then
		fail "no manual page for $t installed"
	elif [ -n "$(groff -man -Tutf8 -ww -z "$page" 2>&1)" ]; then
		fail "$t.1: $(groff -man -Tutf8 -ww -z "$page" 2>&1 | head -3)"
	fi
done

if [ -n "$cat_bin" ]; then
	. "$(dirname "$0")/examples.sh"
fi
[ "$fails" -eq 0 ] || exit 1
echo "consumer: $n public headers, libsst.pc: $(wc -w <<<"$libs") link words, $(wc -w <<<"$static_libs") static"
