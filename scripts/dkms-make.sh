#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# dkms-make.sh SRCDIR KDIR WORK: builds ib_async.ko from an installed
# module source SRCDIR (/usr/src/ib_async-VERSION, with its dkms.conf) as
# DKMS builds it: a copy laid out as DKMS lays it out under WORK
# (WORK/ib_async/VERSION/build) and dkms.conf's own MAKE command against
# the kbuild tree KDIR. Prints the built module's path on stdout; build
# output goes to stderr. DKMS itself is tested by scripts/deb-test.sh;
# this is for what needs the package's module without installing it
# (scripts/install-test.sh, scripts/stage.sh --debs).
set -euo pipefail

[ $# -eq 3 ] || { echo "usage: $0 SRCDIR KDIR WORK" >&2; exit 2; }
# shellcheck disable=SC2034 # dkms.conf's MAKE reads kernel_source_dir
src=$1 kernel_source_dir=$2 dkms_tree=$3
version=${src%/}
version=${version##*/ib_async-}
build=$dkms_tree/ib_async/$version/build
rm -rf "$build"
mkdir -p "$build"
cp -a "$src/." "$build/"
(
	set +u
	# shellcheck disable=SC1091 # the installed file
	. "$build/dkms.conf"
	# shellcheck disable=SC2086 # dkms runs MAKE as a command line
	eval $MAKE
) >&2
echo "$build/kernel/ib_async.ko"
