#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# sst-gen's template mode (issue 21) over net_null, one transmit queue:
# each generated kind (a checksum-mode data packet, ChkI1, SecI1, garbage,
# truncated packets) and the frames of a prototype capture replayed with
# their fields varied; the incremental checksums are checked against full
# ones at start (a disagreement fails the run). Prints each run's rate;
# asserts only that packets were sent (this machine is shared: no rate).
# Then, with tshark, the data template written to a pcap (net_pcap) with
# one flow and with many (the vector kernel's two cases, gen_fields_vec.c):
# 70,000 frames, every IPv4 and UDP checksum right and the header's
# sequence numbers consecutive across the 2^16 boundary.
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
tshark=$(command -v tshark) || {
	echo "tshark not found: the pcap check skipped" >&2
	exit $((fails != 0))
}
pcap=$(mktemp --suffix=.pcap)
trap 'rm -f "$pcap"' EXIT
for flows in "--vary-addrs 1" "--vary-addrs 65536 --vary-ports 40"; do
	rm -f "$pcap"
	# shellcheck disable=SC2086 # $flows is several words on purpose
	timeout 60 "$gen_bin" -l 0-1 --no-huge --no-pci -m 256 --no-telemetry \
		--log-level=lib.eal:error --vdev "net_pcap0,tx_pcap=$pcap" \
		--file-prefix "sst-gen-tmpl-$$" -- template --tx-port 0 --template data --count 70000 \
		$flows --quiet >/dev/null 2>&1
	# Per frame: IPv4 and UDP checksum status (1: good), the channel
	# header's sequence bits (payload bytes 1 to 3).
	verdict=$("$tshark" -r "$pcap" -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
		-T fields -e ip.checksum.status -e udp.checksum.status -e udp.payload 2>/dev/null |
		awk -F '\t' '
			{ n++; if ($1 != 1 || $2 != 1) bad++
			  seq = 0
			  for (i = 3; i <= 8; i++)
				seq = seq * 16 + index("0123456789abcdef", substr($3, i, 1)) - 1
			  if (n > 1 && seq != prev + 1) gaps++
			  prev = seq }
			END { printf "%d %d %d %d", n, bad + 0, gaps + 0, prev }')
	read -r frames bad gaps last <<<"$verdict"
	if [ "${frames:-0}" -ne 70000 ] || [ "$bad" -ne 0 ] || [ "$gaps" -ne 0 ] || [ "$last" -ne 70000 ]; then
		echo "FAIL: pcap, $flows: $frames frames, $bad bad checksums, $gaps gaps, last sequence $last" >&2
		fails=$((fails + 1))
		continue
	fi
	echo "pcap, $flows: 70000 frames, every checksum right, sequence 1 to 70000 without a gap"
done
exit $((fails != 0))
