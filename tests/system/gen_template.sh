#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# sst-gen's template mode (issue 21) over net_null, one transmit queue:
# each generated kind (a checksum-mode data packet, ChkI1, SecI1, garbage,
# truncated packets) and the frames of a prototype capture replayed with
# their fields varied; the incremental checksums are checked against full
# ones at start (a disagreement fails the run). Prints each run's rate;
# asserts only that packets were sent (this machine is shared: no rate).
# Usage: gen_template.sh PATH/TO/sst-gen PATH/TO/CAPTURE.pcap
set -u
gen_bin=${1:?usage: gen_template.sh PATH/TO/sst-gen PATH/TO/CAPTURE.pcap}
capture=${2:?usage: gen_template.sh PATH/TO/sst-gen PATH/TO/CAPTURE.pcap}
fails=0
eal=(-l 0-1 --no-huge --no-pci -m 256 --no-telemetry --log-level=lib.eal:error
	--vdev net_null0 --file-prefix "sst-gen-tmpl-$$")
for what in "--template data" "--template chki1" "--template seci1" "--template garbage" \
	"--template truncated" "--pcap $capture"; do
	# shellcheck disable=SC2086 # $what is two words on purpose
	out=$(timeout 60 "$gen_bin" "${eal[@]}" -- template --tx-port 0 $what --count 200000 \
		--json 2>&1)
	rc=$?
	line=$(echo "$out" | grep '^{"mode": "template"')
	packets=$(echo "$line" | sed -n 's/.*"packets": \([0-9]*\).*/\1/p')
	if [ "$rc" -ne 0 ] || [ -z "$packets" ] || [ "$packets" -eq 0 ]; then
		echo "FAIL: template $what: exit $rc: $out" >&2
		fails=$((fails + 1))
		continue
	fi
	echo "template $what: $packets packets, $(echo "$line" | sed -n 's/.*"mpps": \([0-9.]*\).*/\1/p') Mpps"
done
exit $((fails != 0))
