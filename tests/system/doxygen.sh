#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The API reference builds without a single doxygen warning over every
# header the install puts under include/sst/ (docs/api/doxygen.sh, the
# script of `ninja doc`, takes them from the build's introspection): every
# function's parameters and return value, every field and enum value
# documented, no broken markup. Doxygen checks a header's functions only
# when the header itself is documented, so a header without @file fails
# too, and so does a function whose parameters or result doxygen did not
# check (doxygen_complete.py, over doxygen's XML). The output goes to a
# scratch directory: doxygen checks parameters only while it writes some.
# Usage: doxygen.sh DOXYGEN DOXYFILE SOURCE_ROOT BUILD_ROOT
set -u
doxygen=${1:?usage: doxygen.sh DOXYGEN DOXYFILE SOURCE_ROOT BUILD_ROOT}
doxyfile=${2:?}
src=${3:?}
build=${4:?}
dir=$(mktemp -d "${TMPDIR:-/tmp}/sst-doxygen.XXXXXX") || {
	echo "$0: cannot make a scratch directory" >&2
	exit 1
}
trap 'rm -rf "$dir"' EXIT

"$src/docs/api/doxygen.sh" "$doxygen" "$doxyfile" "$build" "$dir" "GENERATE_XML = YES" \
	>"$dir/out" 2>&1 || {
	echo "FAIL: doxygen failed: $(tail -5 "$dir/out")"
	exit 1
}
mapfile -t headers <"$dir/headers"

# Warnings about a member name doxygen files under "<name>:1" instead of a
# path: name the header and line that declare it.
declare -A file_of
while IFS=: read -r f line name; do
	[ -n "${file_of[$name]:-}" ] || file_of[$name]=$f:$line
done < <(grep -nE '^[a-z_][^(]*\bsst_[a-z0-9_]+ *\(' "${headers[@]}" |
	sed -E 's/^([^:]*:[0-9]+:)[^(]*\b(sst_[a-z0-9_]+) *\(.*/\1\2/')
# Continuation lines (the parameters a warning lists) join their warning.
touch "$dir/warnings"
sed -e ':a' -e 'N' -e '$!ba' -e 's/\n  */ /g' "$dir/warnings" >"$dir/joined"
while IFS= read -r line; do
	case $line in
	"<"*">"*)
		name=${line#<}
		name=${name%%>*}
		rest=${line#*>:}
		echo "${file_of[$name]:-<$name>:${rest%%:*}}:${rest#*:}"
		;;
	*) echo "$line" ;;
	esac
done <"$dir/joined" | sed "s|^$src/||" >"$dir/mapped"

fails=0
for h in "${headers[@]}"; do
	grep -q '@file' "$h" || {
		echo "FAIL: ${h#"$src"/} has no @file comment: doxygen checks nothing in it"
		fails=$((fails + 1))
	}
done
n=$(grep -c . "$dir/mapped")
if [ "$n" -gt 0 ]; then
	echo "FAIL: $n doxygen warnings:"
	cat "$dir/mapped"
	fails=$((fails + 1))
fi
# Doxygen says nothing of a function documented by a brief alone, nor of
# enum values: doxygen_complete.py reads its XML for those.
python3 "$src/tests/system/doxygen_complete.py" "$dir/xml" "$src" || fails=$((fails + 1))
[ "$fails" -eq 0 ] && echo "doxygen: ${#headers[@]} installed headers, no warning"
exit $((fails != 0))
