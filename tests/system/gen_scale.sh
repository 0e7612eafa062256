#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# sst-gen's scale run at a small size (issue 21): perf/gen_scale.sh with
# 5,000 channels of 10 streams over a net_memif pair, every stream verified,
# and the server must make exactly one channel per client. The session 9
# run made 12,058 channels for 10,000 clients: the memif rings (1,024 slots)
# overflowed both ways, and a client channel whose data went unacknowledged
# through the losses negotiated a replacement (docs/tools/sst-gen.md
# "Scale run"); the server answered every repeated ChkI1 from its first
# channel.
# Usage: gen_scale.sh BUILD_DIR
set -u
build=${1:?usage: gen_scale.sh BUILD_DIR}
channels=5000
out=$(mktemp "${TMPDIR:-/tmp}/sst-gen-scale.XXXXXX")
trap 'rm -f "$out"' EXIT
"$(dirname "$0")/../../perf/gen_scale.sh" -C "$build" "$channels" 10 300 >"$out" 2>&1
rc=$?
cat "$out"
[ "$rc" -eq 0 ] || {
	echo "FAIL: gen_scale.sh exit $rc"
	exit 1
}
made=$(sed -n 's/^sst-gen server (end): channels [0-9]* (made \([0-9]*\)).*/\1/p' "$out")
[ "$made" = "$channels" ] || {
	echo "FAIL: the server made ${made:-?} channels for $channels clients"
	exit 1
}
