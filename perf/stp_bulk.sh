#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Bulk cost of congestion control as an eBPF module (issue 18; docs/stp.md,
# "Cost"): sst-perf --loopback with native NewReno, NewReno in eBPF under the
# policer, and the same module unpoliced (--unpoliced: the module's own cost,
# nothing capped), interleaved within each round so that the machine's load
# falls on every row alike. Prints each run (goodput, sst-perf's cycles per
# byte, the 1-minute load average when it started), then per row the medians
# of the rounds, and each eBPF row against native by medians and by the
# median of the rounds' paired ratios.
#
# Usage: perf/stp_bulk.sh [--rounds N] [--time S] [--build DIR]
#   --rounds N   rounds (default 5)
#   --time S     seconds per run (default 2)
#   --build DIR  the build (default build; it needs the modules, so clang)
set -eu
cd "$(dirname "$0")/.."

rounds=5
secs=2
build=build
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=$2; shift 2 ;;
	--time) secs=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	*) echo "usage: $0 [--rounds N] [--time S] [--build DIR]" >&2; exit 2 ;;
	esac
done
perf=$build/apps/sst-perf/sst-perf
mod=$build/drivers/cc/bpf/modules/newreno.o
[ -x "$perf" ] && [ -f "$mod" ] || { echo "$0: no $perf or $mod" >&2; exit 1; }
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT

rows=("newreno" "bpf:$mod" "bpf:$mod --unpoliced")
names=("native" "ebpf-policed" "ebpf-unpoliced")
printf '%-6s %-15s %12s %12s %6s\n' round cc Mbit/s cycles/byte load
for r in $(seq "$rounds"); do
	for i in "${!rows[@]}"; do
		load=$(cut -d' ' -f1 /proc/loadavg)
		# shellcheck disable=SC2086 # the row is the cc and its options
		res=$("$perf" --no-huge --no-pci -m 512 --no-shconf --file-prefix="stp-bulk-$$" -- \
			--loopback -t "$secs" --cc ${rows[$i]} 2>&1 |
			awk '/goodput/ {g = $2} /cycles\/byte/ {c = $2} END {print g, c}')
		read -r mbps cpb <<<"$res"
		if [ -z "$cpb" ] || [ "$cpb" = 0.00 ]; then
			# A run that failed (no figures) is left out of the medians.
			printf '%-6s %-15s %12s %12s %6s\n' "$r" "${names[$i]}" failed - "$load"
			continue
		fi
		printf '%-6s %-15s %12s %12s %6s\n' "$r" "${names[$i]}" "$mbps" "$cpb" "$load"
		echo "$r ${names[$i]} $mbps $cpb" >>"$out"
	done
done
echo
awk -v n="${#names[@]}" '
function median(a, k,    i, j, t) {
	for (i = 2; i <= k; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
{
	k = ++cnt[$2]; mb[$2, k] = $3; cy[$2, k] = $4; rnd[$2, k] = $1; cyr[$1, $2] = $4
	if (!($2 in order)) { order[$2] = ++rows; name[rows] = $2 }
}
END {
	for (r = 1; r <= rows; r++) {
		x = name[r]; k = cnt[x]
		for (i = 1; i <= k; i++) { m[i] = mb[x, i]; c[i] = cy[x, i] }
		medm[x] = median(m, k); medc[x] = median(c, k)
		printf "%-15s median %8.1f Mbit/s %7.2f cycles/byte\n", x, medm[x], medc[x]
	}
	for (r = 2; r <= rows; r++) {
		x = name[r]; k = cnt[x]
		# Paired by round: rounds where either run failed are left out.
		j = 0
		for (i = 1; i <= k; i++)
			if ((rnd[x, i], "native") in cyr) p[++j] = cy[x, i] / cyr[rnd[x, i], "native"]
		k = j
		printf "%-15s vs native: %+.1f %% cycles/byte by medians, %+.1f %% by paired rounds; %.0f %% of its goodput\n",
			x, 100 * (medc[x] / medc["native"] - 1), 100 * (median(p, k) - 1),
			100 * medm[x] / medm["native"]
	}
}' "$out"
