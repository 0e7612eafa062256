#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Configure (once) and build one configuration.
# Usage: build.sh release|fast|asan [BUILD_DIR]
#   release: gcc, debug-optimised (-O2 -g, assertions on), warnings as
#            errors: the tests' build (scripts/test.sh)      (default dir: build)
#   fast:    gcc, -O3, LTO, assertions compiled out (-DNDEBUG), no tests: the
#            build users run (scripts/run.sh) and the benchmarks measure
#            (perf/compare.sh)                              (default dir: build-fast)
#   asan:    clang -O1 -g, ASan+UBSan, libFuzzer targets, -Werror (default dir: build-asan)
# Every configuration compiles for the CPU baseline DPDK was built for
# (libdpdk's pkg-config flags carry its -march).
set -eu
cd "$(dirname "$0")/.."
kind=${1:-release}
case "$kind" in
release)
	dir=${2:-build}
	opts=(-Dbuildtype=debugoptimized -Dwerror=true)
	cc=${CC:-gcc}
	;;
fast)
	dir=${2:-build-fast}
	# No -Werror: -O3 and -DNDEBUG change what gcc can see (the warnings
	# gate is the release and asan builds).
	# LTO: inlining across the layers' libraries (meson.build says why and
	# how the installed static library stays usable).
	opts=(-Dbuildtype=release -Db_ndebug=true -Db_lto=true -Dtests=false -Dfuzz=disabled)
	cc=${CC:-gcc}
	;;
asan)
	dir=${2:-build-asan}
	# b_lundef=false: the sanitizer runtimes resolve symbols at load time.
	# -O1, as the sanitizers' authors advise: at -O0 the simulator tests
	# ran 5x the CPU time (test_sim_stream's sequential case: 7.7 s
	# against 1.6 s), and ASan and UBSan find the same faults.
	opts=(-Dbuildtype=debug -Doptimization=1 -Dwerror=true -Db_sanitize=address,undefined
		-Db_lundef=false -Dfuzz=enabled)
	cc=clang
	;;
*)
	echo "usage: $0 release|fast|asan [BUILD_DIR]" >&2
	exit 2
	;;
esac
if [ ! -f "$dir/build.ninja" ]; then
	CC=$cc meson setup "$dir" "${opts[@]}"
elif [ "$kind" = fast ] && ! grep -q -- '-flto' "$dir/build.ninja"; then
	# A fast build configured before it had LTO.
	meson configure "$dir" -Db_lto=true
fi
ninja -C "$dir"
