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
phase "release tests"
meson test -C build --print-errorlogs --no-suite matrix-alias

phase "sanitizer build (clang, ASan+UBSan, fuzz targets)"
scripts/build.sh asan build-asan
phase "sanitizer tests"
meson test -C build-asan --print-errorlogs --timeout-multiplier 3 --no-suite matrix-alias

echo "=== all tests passed in $(($(date +%s) - start)) s"
