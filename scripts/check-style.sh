#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Source rules that tools enforce rather than reviewers (docs/conventions.md):
#  - lib/ and drivers/ never print, abort, spawn threads or synchronise by hand;
#  - no source file in lib/ or drivers/ grows past 800 lines, nor any other
#    (apps, tests, perf) past 1000: past that a file holds more than one concept;
#  - every source file starts with an SPDX line;
#  - code is formatted with the project's .clang-format (when clang-format exists).
# Usage: check-style.sh [SOURCE_ROOT]
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
status=0

fail() {
	printf 'style: %s\n' "$*" >&2
	status=1
}

core_sources=$(find lib drivers -name '*.[ch]' 2>/dev/null | sort)
all_sources=$(find lib drivers apps tests perf -name '*.[ch]' 2>/dev/null | sort)

# Forbidden tokens in the libraries and drivers (conventions rules 6 and 15).
# Comments are stripped first so prose may mention them.
forbidden='\b(printf|fprintf|vprintf|puts|perror|abort|exit|rte_panic|rte_exit|assert|pthread_[a-z_]+|__atomic_[a-z_]+|__sync_[a-z_]+|volatile|malloc|calloc|realloc|free)\b[[:space:]]*\(|\bvolatile\b'
for f in $core_sources; do
	hits=$(sed -e 's://.*$::' "$f" | perl -0pe 's{/\*.*?\*/}{" " x 0}gse' |
		grep -nE "$forbidden" | grep -v 'static_assert' || true)
	[ -n "$hits" ] && fail "$f: forbidden token: $hits"
done

for f in $all_sources; do
	lines=$(wc -l < "$f")
	limit=1000
	case $f in lib/* | drivers/*) limit=800 ;; esac
	[ "$lines" -gt $limit ] && fail "$f: $lines lines (limit $limit)"
	head -n 2 "$f" | grep -q 'SPDX-License-Identifier' || fail "$f: no SPDX line"
done

if command -v clang-format >/dev/null 2>&1; then
	for f in $all_sources; do
		clang-format --dry-run --Werror --style=file "$f" >/dev/null 2>&1 ||
			fail "$f: not formatted (run: clang-format -i $f)"
	done
else
	echo "style: clang-format not installed, formatting not checked" >&2
fi

[ $status -eq 0 ] && echo "style: ok ($(echo "$core_sources" | wc -w) library files, $(echo "$all_sources" | wc -w) files in all)"
exit $status
