#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Decode and verify every capture of the original SST prototype with sst-dump,
# and check the packet counts against the vectors' README (sst-prototype/README.md,
# "Files" and "Verification results"). Then check that sst-dump notices
# tampering, truncation and files that are not captures.
# Usage: check-captures.sh SST_DUMP VECTOR_DIR
set -u
dump=$1
dir=$2
failures=0
C=127.0.0.1:8665 # client / initiator
S=127.0.0.1:8661 # server / responder

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# field NAME JSON: a number from sst-dump's summary object
field() {
	grep -o "\"$1\":[0-9]*" <<<"$2" | cut -d: -f2
}

# expect NAME SST_PACKETS NEGOTIATION CHANNEL -- sst-dump arguments...
expect() {
	local name=$1 sst=$2 nego=$3 chan=$4 out rc
	shift 5
	out=$("$dump" --json --quiet --verify "$@" 2>/dev/null)
	rc=$?
	local summary
	summary=$(tail -n 1 <<<"$out")
	[ $rc -eq 0 ] || fail "$name: sst-dump --verify exited $rc"
	[ "$(field sst "$summary")" = "$sst" ] || fail "$name: SST packets $(field sst "$summary"), want $sst"
	[ "$(field negotiation "$summary")" = "$nego" ] ||
		fail "$name: negotiation packets $(field negotiation "$summary"), want $nego"
	[ "$(field channel "$summary")" = "$chan" ] ||
		fail "$name: channel packets $(field channel "$summary"), want $chan"
	[ "$(field verified "$summary")" = "$chan" ] ||
		fail "$name: verified $(field verified "$summary") of $chan"
	[ "$(field malformed "$summary")" = "0" ] || fail "$name: malformed packets"
	echo "ok: $name: $sst packets, $nego negotiation, $chan channel, all verified"
}

# Checksum keys of the split session chk-01..05, from chk-01's ChkI1/ChkR1.
keys01=(--chk-key "$C,$S,1,c21c5f62" --chk-key "$S,$C,1,35d53d2a")

expect "chk-01..05 as one session" 2082 2 2080 -- "$dir"/chk-0[1-5]-*.pcap
expect chk-01 8 2 6 -- "$dir"/chk-01-*.pcap
expect chk-02 15 0 15 -- "${keys01[@]}" "$dir"/chk-02-*.pcap
expect chk-03 4 0 4 -- "${keys01[@]}" "$dir"/chk-03-*.pcap
expect chk-04 2051 0 2051 -- "${keys01[@]}" "$dir"/chk-04-*.pcap
expect chk-05 4 0 4 -- "${keys01[@]}" "$dir"/chk-05-*.pcap
expect chk-06 2341 2 2339 -- "$dir"/chk-06-*.pcap
expect chk-07 463 6 457 -- "$dir"/chk-07-*.pcap
# The prototype's AES armor: session keys from the README's key log.
expect aes-10 2123 4 2119 -- \
	--aes-key "$C,$S,1,c05155232709365f7c7bf9762e2e657f,a57f2c4e49a5d729102290a634a2353a3a38cf9838e214b05c812791ad0e44c8" \
	--aes-key "$S,$C,1,1d8fdeee245f6dcf7ccdd8164a4c0c83,99e32ce14b4643f951adce360d03d73b3077e846c212a3a42315171675030686" \
	"$dir"/aes-10-*.pcap

# Spot checks of decoded fields against the README tables.
out=$("$dump" "$dir"/chk-01-*.pcap)
grep -q 'seq=1 ack=0..0 type=Init sid=1 ref=0 tsn=0 flags=PM win=0x10(65535) len=24 ConnectRequest{service="interop" protocol="echo"} chk32=ok' <<<"$out" ||
	fail "chk-01: service request line"
grep -q 'ChkR1{cki=c21c5f62 ckr=35d53d2a chanr=1' <<<"$out" || fail "chk-01: ChkR1 line"
grep -q 'seq=3 ack=0..3 type=Ack sid=1' <<<"$out" || fail "chk-01: last ack"
out=$("$dump" "$dir"/chk-07-*.pcap)
grep -q 'ch=2 seq=1 ack=0..0 type=Attach sid=1 flags=slot0 .* usid{counter=1 hcid=d974d4aeab1d6a8d} chk32=ok' <<<"$out" ||
	fail "chk-07: Attach with the top-level stream's USID"
tail -n 1 <<<"$("$dump" --verify "$dir"/chk-01-*.pcap)" | grep -qx 'verified 6/6 packets' ||
	fail "chk-01: last line of --verify"

# Failure paths, on scratch copies.
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# One flipped bit in the last packet's trailer.
cp "$dir"/chk-01-*.pcap "$tmp/flipped.pcap"
size=$(stat -c %s "$tmp/flipped.pcap")
last=$(od -An -tu1 -j $((size - 1)) -N1 "$tmp/flipped.pcap" | tr -d ' ')
printf "$(printf '\\%03o' $((last ^ 1)))" | dd of="$tmp/flipped.pcap" bs=1 seek=$((size - 1)) conv=notrunc status=none
"$dump" --verify "$tmp/flipped.pcap" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "flipped bit: exit $rc, want 1"
grep -q 'chk32=BAD' "$tmp/out" || fail "flipped bit: no chk32=BAD line"
tail -n 1 "$tmp/out" | grep -qx 'verified 5/6 packets' || fail "flipped bit: last line $(tail -n 1 "$tmp/out")"
# Split keys without the negotiation: unverified, so --verify fails.
"$dump" --verify "$dir"/chk-02-*.pcap >/dev/null 2>&1
[ $? -eq 1 ] || fail "chk-02 without keys must fail --verify"
# A capture cut in the middle of a packet.
head -c $((size - 10)) "$dir"/chk-01-*.pcap >"$tmp/cut.pcap"
"$dump" "$tmp/cut.pcap" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "truncated capture: exit $rc, want 2"
grep -q 'truncated' "$tmp/err" || fail "truncated capture: message '$(cat "$tmp/err")'"
# Not a capture at all, and a missing file.
echo "hello" >"$tmp/text.pcap"
"$dump" "$tmp/text.pcap" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'not a pcap or pcapng' "$tmp/err" || fail "non-capture: exit $rc, '$(cat "$tmp/err")'"
"$dump" "$tmp/missing.pcap" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'cannot open' "$tmp/err" || fail "missing file: exit $rc, '$(cat "$tmp/err")'"
"$dump" --port 0 "$dir"/chk-01-*.pcap >/dev/null 2>&1
[ $? -eq 2 ] || fail "bad --port accepted"
"$dump" --chk-key nonsense "$dir"/chk-01-*.pcap >/dev/null 2>&1
[ $? -eq 2 ] || fail "bad --chk-key accepted"
# pcapng is read as well, if editcap is here to convert.
if command -v editcap >/dev/null 2>&1; then
	editcap -F pcapng "$dir"/chk-06-*.pcap "$tmp/chk-06.pcapng"
	expect "chk-06 as pcapng" 2341 2 2339 -- "$tmp/chk-06.pcapng"
fi

if [ $failures -ne 0 ]; then
	echo "$failures check(s) failed"
	exit 1
fi
echo "all capture checks passed"
