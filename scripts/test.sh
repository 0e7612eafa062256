#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The whole test suite: install what is missing, then build and test two
# configurations: gcc release (-Werror) and clang with ASan+UBSan, which also
# builds the libFuzzer targets, replays their corpora and fuzzes each briefly.
set -eu
cd "$(dirname "$0")/.."
start=$(date +%s)
scripts/setup-deps.sh test

phase() { echo "=== $1 (at $(($(date +%s) - start)) s)"; }

phase "release build (gcc, -Werror)"
scripts/build.sh release build

# The sanitizer build compiles at the lowest priority while the release
# tests run: many of those wait on timers and peers, and the compiler takes
# the cycles they leave (about the build's whole time on 2 cores); at nice
# 19 it takes next to none from a test that computes.
phase "sanitizer build started in the background (clang, ASan+UBSan, fuzz targets)"
asan_log=$(mktemp)
set -m # its own process group: an early exit stops its compilers too
nice -n 19 scripts/build.sh asan build-asan >"$asan_log" 2>&1 &
asan_pid=$!
set +m
trap 'kill -- -$asan_pid 2>/dev/null || true; rm -f "$asan_log"' EXIT

phase "release tests"
meson test -C build --print-errorlogs --no-suite matrix-alias

phase "waiting for the sanitizer build"
if ! wait $asan_pid; then
	cat "$asan_log"
	echo "=== the sanitizer build failed" >&2
	exit 1
fi
tail -n 3 "$asan_log"
phase "sanitizer tests"
meson test -C build-asan --print-errorlogs --timeout-multiplier 3 --no-suite matrix-alias

echo "=== all tests passed in $(($(date +%s) - start)) s"
