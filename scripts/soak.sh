#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run the conformance matrix (meson test --suite matrix) N times and print,
# per case, how many runs passed. The whole-stack cases take a new seed each
# round (SST_MATRIX_SEED), so a soak explores N paths, not one N times.
# Usage: soak.sh [-C BUILD_DIR] N     (default build dir: build)
set -eu
cd "$(dirname "$0")/.."
dir=build
if [ "${1:-}" = "-C" ]; then
	dir=$2
	shift 2
fi
case "${1:-}" in
'' | -h | --help)
	echo "usage: $0 [-C BUILD_DIR] N" >&2
	echo "  runs 'meson test --suite matrix' N times, then prints passes per case" >&2
	exit 2
	;;
esac
runs=$1
if ! [ "$runs" -ge 1 ] 2>/dev/null; then
	echo "soak.sh: N must be a positive number, not '$runs'" >&2
	exit 2
fi
[ -f "$dir/build.ninja" ] || {
	echo "soak.sh: no build in $dir (scripts/build.sh release $dir first)" >&2
	exit 2
}
ninja -C "$dir" >/dev/null
logs=$(mktemp -d) || exit 1
trap 'rm -rf "$logs"' EXIT
start=$(date +%s)
for ((i = 1; i <= runs; i++)); do
	seed=$((0x5eed + i * 7919))
	SST_MATRIX_SEED=$seed meson test -C "$dir" --suite matrix --no-rebuild \
		--logbase "soak-$i" >/dev/null 2>&1 || true
	cp "$dir/meson-logs/soak-$i.json" "$logs/"
	echo "round $i/$runs done (seed $seed, $(($(date +%s) - start)) s)" >&2
done
python3 - "$runs" "$logs" <<'PY'
import json, os, sys
runs, logs = int(sys.argv[1]), sys.argv[2]
passed, seen = {}, {}
for f in sorted(os.listdir(logs)):
    for line in open(os.path.join(logs, f)):
        t = json.loads(line)
        name = t["name"].split(" / ")[-1]
        seen[name] = seen.get(name, 0) + 1
        passed[name] = passed.get(name, 0) + (t["result"] == "OK")
width = max(len(n) for n in seen)
bad = 0
for name in sorted(seen):
    ok = passed[name]
    bad += ok != runs
    print(f"{name:<{width}}  {ok}/{runs}")
print(f"{len(seen)} cases, {bad} with a failed run")
sys.exit(1 if bad else 0)
PY
