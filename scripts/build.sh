#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Configure (once) and build one configuration.
# Usage: build.sh release|fast|asan [BUILD_DIR]
#   release: gcc, debug-optimised (-O2 -g, assertions on), warnings as
#            errors: the tests' build (scripts/test.sh)      (default dir: build)
#   fast:    gcc, -O3, LTO, profile-guided (below), assertions compiled out
#            (-DNDEBUG), no tests: the build users run (scripts/run.sh) and
#            the benchmarks measure (perf/compare.sh)      (default dir: build-fast)
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
if [ "$kind" != fast ] || [ "${SST_PGO:-1}" = 0 ]; then
	[ "$kind" != fast ] || meson configure "$dir" -Db_pgo=off -Dc_args= -Dc_link_args=
	ninja -C "$dir"
	exit 0
fi

# Profile-guided (docs/performance.md, "Session 20: profile-guided
# optimisation"): an instrumented build runs the loopback workloads the
# benchmarks measure (scripts/pgo-train.sh, about 20 s), and the build is
# made again from what they counted. -fprofile-partial-training: code the workloads
# never ran (loss recovery, the ports' paths) is compiled as without a
# profile, not for size. SST_PGO=0 skips it (a quicker rebuild while
# editing). A build whose sources did not change since it was trained is
# left as it is.
pgo_mode() {
	meson introspect "$dir" --buildoptions |
		python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "b_pgo"))'
}
if [ "$(pgo_mode)" = use ] && ninja -C "$dir" -n | grep -q '^ninja: no work to do'; then
	echo "build.sh: $dir is up to date (profile-guided)"
	exit 0
fi
meson configure "$dir" -Db_pgo=generate -Dc_args= -Dc_link_args=
ninja -C "$dir"
# Counts of an older build would be merged into the new ones.
find "$dir" -name '*.gcda' -delete
if scripts/pgo-train.sh "$dir"; then
	use=-fprofile-partial-training
	meson configure "$dir" -Db_pgo=use -Dc_args="$use -Wno-missing-profile" -Dc_link_args="$use"
else
	echo "build.sh: the profile run failed: $dir is built without profile feedback" >&2
	meson configure "$dir" -Db_pgo=off -Dc_args= -Dc_link_args=
fi
ninja -C "$dir"
