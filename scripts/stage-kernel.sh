#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# stage-kernel.sh STAGE OUT KDIR NAME: the guest overlay for another kernel.
# Same userspace as STAGE, with ib_async.ko and the test modules rebuilt
# against the kbuild tree KDIR (the debug tree, Debian's RT headers...).
# Builds from copies under build/NAME-modules so the checkout's modules,
# built for Debian's generic kernel, are left alone.
set -euo pipefail

[ $# -eq 4 ] || { echo "usage: $0 STAGE OUT KDIR NAME" >&2; exit 2; }
stage=$1 out=$2 kdir=$3 name=$4
top=$(cd "$(dirname "$0")/.." && pwd)
work=$top/build/$name-modules

build_copy() {	# build_copy NAME SRCDIR FILE...
	local dir=$work/$1 src=$2
	shift 2
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$src" && cp -r --parents "$@" "$dir/")
	make -s -C "$kdir" M="$dir" modules >&2
}

build_copy ib_async "$top" Kbuild kernel include
shopt -s nullglob
(cd "$top/selftests/ib_async/modules" &&
	build_copy test "$PWD" Kbuild ./*.c ./*.h)

rm -rf "$out"
cp -a "$stage" "$out"
install -m 0644 "$work/ib_async/kernel/ib_async.ko" "$out/usr/lib/ib_async/"
install -m 0644 "$work"/test/*.ko "$out/usr/lib/ib_async/test/"
