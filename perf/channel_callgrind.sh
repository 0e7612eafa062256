#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Instructions per data packet of the channel layer, per side, for each armor
# suite and size: channel_bench under valgrind --tool=callgrind, one
# configuration per run, collecting only inside one of its timed steps
# (--collect-atstart=no --toggle-collect=FUNCTION; see perf/channel_bench.c):
#   send  = tx_side_send:    A's sst_channel_send() of the 32-packet burst;
#   acks  = tx_side_acks:    A's sst_channel_receive() of B's ack-only packets,
#                            with any ack-only packet A sends from inside it;
#   tx    = send + acks, the tx side of channel_bench's cycle figures;
#   rx    = rx_side_receive: B's sst_channel_receive() of A's packets, with
#                            the ack-only packets B sends from inside it.
# Each is the total Ir of the run divided by the data packets (reps x 32): a
# mean over every measured burst (channel_bench's warm-up bursts bypass the
# toggled functions), so the occasional extra ack at a skipped number counts.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bench=$root/build/perf/channel_bench
reps=200
configs=()
all_configs=(null:null chk32:chk32 aes128gcm:ipsec_mb chacha20poly1305:ipsec_mb
	chacha20poly1305:sodium)
all_sizes=(64 1200 1400)

usage() {
	cat <<EOF
Usage: $(basename "$0") [--bench PATH] [--reps N] [--only SUITE:DRIVER:SIZE]... [--help]
Counts the instructions (callgrind Ir) per data packet that perf/channel_bench
spends on each side of a channel, for every armor suite at 64, 1200 and 1400
bytes (channel packet without trailer). Three valgrind runs per configuration.

  --bench PATH   the channel_bench binary (default: build/perf/channel_bench)
  --reps N       bursts of 32 data packets per run (default $reps); callgrind
                 runs the code about 50 times slower than the CPU
  --only CFG     one configuration, e.g. aes128gcm:ipsec_mb:1400 (repeatable)
  --help         this text

Columns (instructions per data packet):
  send  A's sst_channel_send() of the burst
  acks  A's sst_channel_receive() of B's ack-only packets (incl. A's own acks)
  tx    send + acks: the tx side
  rx    B's sst_channel_receive() of A's packets (incl. the acks B sends)
Valgrind emulates no AVX-512: IPsec-MB runs its AVX2 code under it (the
banner says which), so AEAD counts differ from the code the CPU runs natively.
EOF
}

while [ $# -gt 0 ]; do
	case "$1" in
	--bench)
		bench=$2
		shift 2
		;;
	--reps)
		reps=$2
		shift 2
		;;
	--only)
		configs+=("$2")
		shift 2
		;;
	--help | -h)
		usage
		exit 0
		;;
	*)
		usage >&2
		exit 2
		;;
	esac
done

case "$reps" in
'' | *[!0-9]*)
	echo "channel_callgrind: --reps wants a number" >&2
	exit 2
	;;
esac
command -v valgrind >/dev/null || {
	echo "channel_callgrind: valgrind not found" >&2
	exit 1
}
[ -x "$bench" ] || {
	echo "channel_callgrind: no $bench (build it, or give --bench)" >&2
	exit 1
}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The toggles find the steps by name: they must exist as functions.
nm "$bench" >"$tmp/symbols"
for fn in tx_side_send tx_side_acks rx_side_receive; do
	grep -q " [tT] $fn\$" "$tmp/symbols" || {
		echo "channel_callgrind: $bench has no function $fn (inlined or renamed?)" >&2
		exit 1
	}
done
if [ ${#configs[@]} -eq 0 ]; then
	for c in "${all_configs[@]}"; do
		for s in "${all_sizes[@]}"; do
			configs+=("$c:$s")
		done
	done
fi

# Total Ir collected inside the given functions in one run of one configuration.
count() {
	local cfg=$1 out=$tmp/callgrind.out
	shift
	local toggles=()
	for fn in "$@"; do
		toggles+=("--toggle-collect=$fn")
	done
	rm -f "$out"
	if ! nice valgrind --tool=callgrind --log-file="$tmp/valgrind.log" \
		--callgrind-out-file="$out" --dump-instr=no --collect-atstart=no "${toggles[@]}" \
		"$bench" --reps "$reps" --only "$cfg" --no-raw >"$tmp/bench.out" 2>"$tmp/bench.err"; then
		echo "channel_callgrind: $cfg: channel_bench failed under valgrind:" >&2
		cat "$tmp/bench.err" "$tmp/valgrind.log" >&2
		exit 1
	fi
	# The bench reports lost packets and channel events on stderr: then the
	# run did not measure the exchange it describes.
	if [ -s "$tmp/bench.err" ]; then
		echo "channel_callgrind: $cfg: channel_bench complained:" >&2
		cat "$tmp/bench.err" >&2
		exit 1
	fi
	local total
	total=$(sed -n 's/^totals: \([0-9]*\)$/\1/p' "$out")
	if [ -z "$total" ] || [ "$total" -eq 0 ]; then
		echo "channel_callgrind: $cfg: nothing collected in $*" >&2
		exit 1
	fi
	echo "$total"
}

# IPsec-MB picks its code from what the CPU (here: valgrind's) reports.
arch=$(nice valgrind --tool=none --log-file=/dev/null "$bench" --reps 1 --only null:null:64 \
	--no-raw 2>/dev/null | sed -n 's/.*IPsec-MB \([a-z0-9-]*\).*/\1/p')
printf '# channel_callgrind: instructions (callgrind Ir) per data packet, %s bursts of 32 per run\n' \
	"$reps"
printf '# %s; IPsec-MB code under valgrind: %s\n' "$(valgrind --version)" "${arch:-unknown}"
printf '# send = A: sst_channel_send() of the data burst\n'
printf '# acks = A: sst_channel_receive() of B'"'"'s ack-only packets, with any ack A sends in it\n'
printf '# tx   = send + acks (the tx side); rx = B: sst_channel_receive() of A'"'"'s packets,\n'
printf '#        with the ack-only packets B sends in it (the rx side)\n'
printf '# all include the channel callbacks; building the data packets is excluded\n'
printf '%-17s %-9s %5s %9s %9s %9s %9s\n' suite driver size send acks tx rx
for cfg in "${configs[@]}"; do
	IFS=: read -r suite driver size <<<"$cfg"
	send=$(count "$cfg" tx_side_send)
	acks=$(count "$cfg" tx_side_acks)
	rx=$(count "$cfg" rx_side_receive)
	pkts=$((reps * 32))
	awk -v s="$suite" -v d="$driver" -v z="$size" -v a="$send" -v b="$acks" -v r="$rx" \
		-v n="$pkts" 'BEGIN { printf "%-17s %-9s %5s %9.1f %9.1f %9.1f %9.1f\n",
			s, d, z, a / n, b / n, (a + b) / n, r / n }'
done
