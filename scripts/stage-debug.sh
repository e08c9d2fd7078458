#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# stage-debug.sh STAGE DEBUG_STAGE: the guest overlay for the debug kernel.
# Same userspace as STAGE, with ib_async.ko and the test modules rebuilt
# against the debug tree (scripts/debug-kernel.sh builds or reuses it).
# Builds from copies so the checkout's modules, built for Debian's kernel,
# are left alone. Prints the debug tree's path.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 STAGE DEBUG_STAGE" >&2; exit 2; }
stage=$1 dstage=$2
top=$(cd "$(dirname "$0")/.." && pwd)
tree=$("$top/scripts/debug-kernel.sh")
work=$top/build/debug-modules

build_copy() {	# build_copy NAME SRCDIR FILE...: prints the copy's directory
	local dir=$work/$1 src=$2
	shift 2
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$src" && cp -r --parents "$@" "$dir/")
	make -s -C "$tree" M="$dir" modules >&2
}

build_copy ib_async "$top" Kbuild kernel include
shopt -s nullglob
(cd "$top/selftests/ib_async/modules" &&
	build_copy test "$PWD" Kbuild ./*.c ./*.h)

rm -rf "$dstage"
cp -a "$stage" "$dstage"
install -m 0644 "$work/ib_async/ib_async.ko" "$dstage/usr/lib/ib_async/"
install -m 0644 "$work"/test/*.ko "$dstage/usr/lib/ib_async/test/"
echo "$tree"
