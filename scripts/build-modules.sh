#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# build-modules.sh [--only ib_async|test|core] KDIR WORK [MAKE_ARG...]:
# builds ib_async.ko and the test modules (storm, evsrc, strict, floor),
# or only one of the two, or (core, for scripts/lint.sh only) the event
# core alone,
# against the kbuild tree KDIR, W=1 and MAKE_ARGs (C=1...), from copies of
# their sources under WORK, so the checkout's own build stays as it is:
#   WORK/ib_async/kernel/ib_async.ko
#   WORK/test/selftests/ib_async/modules/*.ko
#   WORK/core/kernel/core/ib_async_core.ko (from a copy without verbs/)
# Each tree's Kbuild probes KDIR first (kernel/conftest.sh). scripts/stage.sh
# stages what it builds for a guest kernel; make check builds this way for
# the kernels it does not boot. Build output goes to stderr.
set -euo pipefail

usage() {
	echo "usage: $0 [--only ib_async|test|core] KDIR WORK [MAKE_ARG...]" >&2
	exit 2
}
only=''
if [ "${1:-}" = --only ]; then
	case ${2:-} in ib_async | test | core) only=$2 ;; *) usage ;; esac
	shift 2
fi
[ $# -ge 2 ] || usage
kdir=$1 work=$(realpath -m "$2")
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
exec 1>&2

# build_copy NAME SUBDIR FILE...: copies FILEs (paths in the checkout, no
# build outputs) to WORK/NAME and builds the modules of its SUBDIR.
build_copy() {
	local dir=$work/$1 sub=$2
	shift 2
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$top" && git ls-files -z --cached --others --exclude-standard -- "$@" |
		xargs -0 cp --parents -t "$dir/")
	make -s -C "$kdir" M="$dir/$sub" W=1 "${make_args[@]}" modules
}

make_args=("$@")
set --
if [ "$only" = core ]; then
	build_copy core kernel/core kernel/core kernel/compat.h \
		kernel/conftest.sh kernel/conftest.mk kernel/conftest include
	exit 0
fi
if [ "$only" != test ]; then
	build_copy ib_async . Kbuild kernel include
fi
if [ "$only" != ib_async ]; then
	# the test modules' Kbuild probes with ../../../kernel's conftest;
	# their event names are ../../../include's
	tm=selftests/ib_async/modules
	build_copy test $tm kernel/conftest.sh kernel/conftest.mk \
		kernel/conftest include/ib_async_event_types.h \
		include/ib_async_event_names.h $tm
fi
