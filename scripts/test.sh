#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The whole test suite: install what is missing, then build and test two
# configurations: gcc release (-Werror) and clang with ASan+UBSan, which also
# builds the libFuzzer targets, replays their corpora and fuzzes each briefly.
set -eu
cd "$(dirname "$0")/.."
start=$(date +%s)
scripts/setup-deps.sh test

echo "=== release build (gcc, -Werror)"
scripts/build.sh release build
meson test -C build --print-errorlogs --no-suite matrix-alias

echo "=== sanitizer build (clang, ASan+UBSan, fuzz targets)"
scripts/build.sh asan build-asan
meson test -C build-asan --print-errorlogs --timeout-multiplier 3 --no-suite matrix-alias

echo "=== all tests passed in $(($(date +%s) - start)) s"
