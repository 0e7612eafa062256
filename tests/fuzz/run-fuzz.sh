#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Run a libFuzzer target for the test suite (tests/fuzz/meson.build).
#
#   run-fuzz.sh replay FUZZER CORPUS          run every seed once
#   run-fuzz.sh smoke  FUZZER CORPUS SECONDS  fuzz for SECONDS from the seeds
#
# The seed corpus is only read: new inputs and crash artifacts go to a fresh
# temporary directory, removed on success and kept (and named) on failure so
# that the input can be minimised and added as a regression seed.
set -u

usage() {
	echo "usage: $0 replay|smoke FUZZER CORPUS [SECONDS]" >&2
	exit 2
}

[ $# -ge 3 ] || usage
mode=$1
fuzzer=$2
corpus=$3
seconds=${4:-5}
[ -x "$fuzzer" ] || { echo "run-fuzz: $fuzzer is not executable" >&2; exit 2; }
[ -d "$corpus" ] || { echo "run-fuzz: no corpus directory $corpus" >&2; exit 2; }

# UBSan reports must stop the run, or libFuzzer never sees them.
: "${UBSAN_OPTIONS:=halt_on_error=1:print_stacktrace=1}"
export UBSAN_OPTIONS

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sst-fuzz.XXXXXX") || exit 2
mkdir "$tmp/corpus" "$tmp/artifacts" || exit 2

# libFuzzer's own exit codes for errors and timeouts (77, 70) would read as
# "skipped" or be ambiguous to meson; make every finding a plain failure.
common="-error_exitcode=1 -timeout_exitcode=1 -timeout=10 -artifact_prefix=$tmp/artifacts/"

case $mode in
replay)
	"$fuzzer" $common -runs=0 "$tmp/corpus" "$corpus"
	status=$?
	;;
smoke)
	if [ "$seconds" -eq 0 ]; then
		echo "run-fuzz: fuzz_smoke_seconds is 0, nothing to do"
		rm -rf "$tmp"
		exit 77
	fi
	"$fuzzer" $common -max_total_time="$seconds" -print_final_stats=1 "$tmp/corpus" "$corpus"
	status=$?
	;;
*)
	rm -rf "$tmp"
	usage
	;;
esac

if [ $status -ne 0 ]; then
	echo "run-fuzz: $mode of $fuzzer failed ($status); inputs kept in $tmp/artifacts" >&2
	exit 1
fi
rm -rf "$tmp"
exit 0
