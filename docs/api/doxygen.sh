#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Doxygen over the headers the install puts under include/sst/, read from
# the build's introspection (meson-info/intro-installed.json) rather than
# from a pattern or a list: a header added to an install_headers() call is
# in the reference and in its test (tests/system/doxygen.sh) at once, and
# an internal header that happens to be named sst_*.h stays out.
# Writes OUTPUT_DIR/html and the warnings to OUTPUT_DIR/warnings; prints
# the headers it read to OUTPUT_DIR/headers.
# Further arguments are Doxyfile lines added at the end ("GENERATE_XML = YES").
# Usage: doxygen.sh DOXYGEN DOXYFILE BUILD_ROOT OUTPUT_DIR [SETTING...]
set -eu
doxygen=${1:?usage: doxygen.sh DOXYGEN DOXYFILE BUILD_ROOT OUTPUT_DIR [SETTING...]}
doxyfile=${2:?}
build=${3:?}
out=${4:?}
shift 4
mkdir -p "$out"
python3 - "$build/meson-info/intro-installed.json" >"$out/headers" <<'PY'
import json, os, sys
installed = json.load(open(sys.argv[1]))
for src, dest in sorted(installed.items()):
    if dest.endswith('.h') and os.path.basename(os.path.dirname(dest)) == 'sst':
        print(src)
PY
[ -s "$out/headers" ] || {
	echo "doxygen.sh: no header installed under include/sst in $build" >&2
	exit 1
}
{
	cat "$doxyfile"
	echo "OUTPUT_DIRECTORY = $out"
	echo "WARN_LOGFILE = $out/warnings"
	while IFS= read -r h; do echo "INPUT += \"$h\""; done <"$out/headers"
	for setting in "$@"; do echo "$setting"; done
} | "$doxygen" -
# The warnings went to the log: show them to whoever ran `ninja doc`.
[ ! -s "$out/warnings" ] || cat "$out/warnings" >&2
