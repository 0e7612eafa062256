#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Configure (once) and build one configuration.
# Usage: build.sh release|asan [BUILD_DIR]
#   release: gcc, optimised, warnings as errors            (default dir: build)
#   asan:    clang, ASan+UBSan, libFuzzer targets, -Werror (default dir: build-asan)
set -eu
cd "$(dirname "$0")/.."
kind=${1:-release}
case "$kind" in
release)
	dir=${2:-build}
	opts=(-Dbuildtype=debugoptimized -Dwerror=true)
	cc=${CC:-gcc}
	;;
asan)
	dir=${2:-build-asan}
	# b_lundef=false: the sanitizer runtimes resolve symbols at load time.
	opts=(-Dbuildtype=debug -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false
		-Dfuzz=enabled)
	cc=clang
	;;
*)
	echo "usage: $0 release|asan [BUILD_DIR]" >&2
	exit 2
	;;
esac
if [ ! -f "$dir/build.ninja" ]; then
	CC=$cc meson setup "$dir" "${opts[@]}"
fi
ninja -C "$dir"
