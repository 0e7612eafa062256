#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# meson install script of an LTO build (meson.build): the installed static
# libsst.a keeps its machine code and loses gcc's LTO sections, as Debian
# and Ubuntu strip the static libraries of packages built with LTO. An
# embedder's link then never reads our GIMPLE: a gcc of another version
# would refuse it, and gcc's link-time optimiser would recompile our code
# under the embedder's warning flags. The tree's own executables were
# linked from the same objects with LTO before this runs.
# Usage: strip-lto.sh LIBDIR   (relative to the install prefix)
set -eu
libdir=${1:?usage: strip-lto.sh LIBDIR}
case $libdir in
/*) archive=${DESTDIR:-}$libdir/libsst.a ;;
*) archive=$MESON_INSTALL_DESTDIR_PREFIX/$libdir/libsst.a ;;
esac
[ -f "$archive" ] || exit 0 # a shared-only build installs no archive
objcopy --remove-section='.gnu.lto_*' --remove-section='.gnu.debuglto_*' \
	--strip-symbol=__gnu_lto_v1 --strip-symbol=__gnu_lto_slim "$archive"
if readelf -S -W "$archive" | grep -q '\.gnu\.lto_'; then
	echo "strip-lto: $archive still has LTO sections" >&2
	exit 1
fi
