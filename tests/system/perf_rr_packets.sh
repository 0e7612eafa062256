#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# How many packets a transaction takes (issue 17), sst-perf --loopback rr,
# 32 bytes each way, one in flight, every byte verified:
#   - on a top-level stream each way a service message and the data, a
#     packet each: 4 a transaction; the acks ride on them (an ack-only
#     packet went out beside the reply before the flush: 6 a transaction);
#   - on a substream of the control stream (--substreams), one Init and
#     one Reply (paper 4.3.9): 2 a transaction.
# The figures are the run's packets over its transactions, both sides,
# with a little room for the start and the end of the run.
# Usage: perf_rr_packets.sh PATH/TO/sst-perf
set -u
perf=${1:?usage: perf_rr_packets.sh SST-PERF}
fails=0
check() { # WHAT CONDITION...
	local what=$1
	shift
	if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}
# field JSON NAME: a number from sst-perf's --json object.
field() { python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

count=2000
for armor in chk32 aes128gcm; do
	for kind in top-level substreams; do
		opt=()
		most=4.2
		if [ $kind = substreams ]; then
			opt=(--substreams)
			most=2.2
		fi
		out=$("$perf" --loopback --verify --json --armor $armor --count $count \
			--request 32 --response 32 "${opt[@]}" rr 2>&1)
		rc=$?
		check "$armor $kind: exits 0 ($rc)" [ $rc -eq 0 ]
		[ $rc -eq 0 ] || {
			echo "$out" >&2
			continue
		}
		txn=$(field "$out" transactions)
		pkts=$(field "$out" packets)
		check "$armor $kind: $count transactions ($txn)" [ "$txn" = $count ]
		check "$armor $kind: no verify error" [ "$(field "$out" verify_errors)" = 0 ]
		per=$(awk -v p="$pkts" -v t="$txn" 'BEGIN {printf "%.2f", p / t}')
		check "$armor $kind: at most $most packets a transaction ($per)" \
			awk -v a="$per" -v b="$most" 'BEGIN {exit !(a <= b)}'
	done
done
# Loss: the substreams' requests and replies are resent and every byte
# still arrives (the acks the data carried are lost with it).
out=$("$perf" --loopback --verify --json --loss 3 --seed 7 --count 500 --request 32 \
	--response 3000 --substreams rr 2>&1)
rc=$?
check "substreams with 3 % loss: exits 0 ($rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] && check "substreams with 3 % loss: 500 transactions, resent segments" \
	python3 -c 'import json, sys; r = json.loads(sys.argv[1]); sys.exit(not (r["transactions"] == 500 and r["retransmits"] > 0 and r["verify_errors"] == 0))' "$out"
exit $((fails != 0))
