#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The API reference builds without a warning in the public headers listed
# in docs/api/clean-headers.txt: every function's parameters, return value
# and errors documented, no broken markup (doxygen over the Doxyfile of
# `ninja doc`, writing its HTML to a scratch directory: doxygen checks the
# parameters only while it writes some output). The headers not yet listed are
# counted, not failed: the list grows header by header until it holds all
# of them (then the test checks every sst_*.h).
# Usage: doxygen.sh DOXYGEN DOXYFILE SOURCE_ROOT
set -u
doxygen=${1:?usage: doxygen.sh DOXYGEN DOXYFILE SOURCE_ROOT}
doxyfile=${2:?}
src=${3:?}
dir=$(mktemp -d "${TMPDIR:-/tmp}/sst-doxygen.XXXXXX")
trap 'rm -rf "$dir"' EXIT

{
	cat "$doxyfile"
	echo "OUTPUT_DIRECTORY = $dir"

	echo "WARN_LOGFILE = $dir/warnings"
} | "$doxygen" - >"$dir/out" 2>&1 || {
	echo "FAIL: doxygen failed: $(tail -5 "$dir/out")"
	exit 1
}

mapfile -t headers < <(cd "$src" && find lib drivers -name 'sst_*.h' | sort)
# Warnings about a member name doxygen files under "<name>" instead of a
# path: the header that declares it.
declare -A file_of
while IFS=: read -r f name; do
	[ -n "${file_of[$name]:-}" ] || file_of[$name]=$f
done < <(cd "$src" && grep -oE '\bsst_[a-z0-9_]+ *\(' "${headers[@]}" | tr -d ' (')
# Continuation lines (the parameters a warning lists) join their warning.
sed -e ':a' -e 'N' -e '$!ba' -e 's/\n  */ /g' "$dir/warnings" >"$dir/joined"
while IFS= read -r line; do
	case $line in
	"<"*">"*)
		name=${line#<}
		name=${name%%>*}
		echo "$src/${file_of[$name]:-unknown}:${line#*>:}"
		;;
	*) echo "$line" ;;
	esac
done <"$dir/joined" >"$dir/mapped"

fails=0
clean=0
for h in "${headers[@]}"; do
	n=$(grep -c "^$src/$h:" "$dir/mapped")
	# Doxygen checks a header's functions only when the header itself is
	# documented.
	grep -q '@file' "$src/$h" || n=$((n + 1000))
	if grep -qx "$h" "$src/docs/api/clean-headers.txt"; then
		clean=$((clean + 1))
		if [ "$n" -gt 0 ]; then
			echo "FAIL: $h: $n doxygen warnings"
			grep "^$src/$h:" "$dir/mapped" | sed "s|^$src/||" | head -20
			fails=$((fails + 1))
		fi
	elif [ "$n" -gt 0 ]; then
		echo "not yet clean: $h ($n warnings)"
	else
		echo "FAIL: $h has no warning: add it to docs/api/clean-headers.txt"
		fails=$((fails + 1))
	fi
done
other=$(grep -vc "^$src/[a-z]*/.*/sst_[a-z0-9_]*\.h:" "$dir/mapped")
[ "$other" -eq 0 ] || {
	echo "FAIL: $other warnings outside the headers:"
	grep -v "^$src/[a-z]*/.*/sst_[a-z0-9_]*\.h:" "$dir/mapped" | head
	fails=$((fails + 1))
}
[ "$fails" -eq 0 ] && echo "doxygen: $clean of ${#headers[@]} public headers clean"
exit $((fails != 0))
