#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The API reference builds without a single doxygen warning over every
# header the install puts under include/sst/ (docs/api/doxygen.sh, the
# script of `ninja doc`, takes them from the build's introspection): every
# function's parameters and return value, every field and enum value
# documented, no broken markup. Doxygen checks a header's functions only
# when the header itself is documented, so a header without @file fails
# too. The HTML goes to a scratch directory: doxygen checks parameters only
# while it writes some output.
# Usage: doxygen.sh DOXYGEN DOXYFILE SOURCE_ROOT BUILD_ROOT
set -u
doxygen=${1:?usage: doxygen.sh DOXYGEN DOXYFILE SOURCE_ROOT BUILD_ROOT}
doxyfile=${2:?}
src=${3:?}
build=${4:?}
dir=$(mktemp -d "${TMPDIR:-/tmp}/sst-doxygen.XXXXXX")
trap 'rm -rf "$dir"' EXIT

"$src/docs/api/doxygen.sh" "$doxygen" "$doxyfile" "$build" "$dir" >"$dir/out" 2>&1 || {
	echo "FAIL: doxygen failed: $(tail -5 "$dir/out")"
	exit 1
}
mapfile -t headers <"$dir/headers"

# Warnings about a member name doxygen files under "<name>" instead of a
# path: name the header that declares it.
declare -A file_of
while IFS=: read -r f name; do
	[ -n "${file_of[$name]:-}" ] || file_of[$name]=$f
done < <(grep -oE '\bsst_[a-z0-9_]+ *\(' "${headers[@]}" | tr -d ' (')
# Continuation lines (the parameters a warning lists) join their warning.
touch "$dir/warnings"
sed -e ':a' -e 'N' -e '$!ba' -e 's/\n  */ /g' "$dir/warnings" >"$dir/joined"
while IFS= read -r line; do
	case $line in
	"<"*">"*)
		name=${line#<}
		name=${name%%>*}
		echo "${file_of[$name]:-<$name>}:${line#*>:}"
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
[ "$fails" -eq 0 ] && echo "doxygen: ${#headers[@]} installed headers, no warning"
exit $((fails != 0))
