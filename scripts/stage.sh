#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# stage.sh [--kdir KDIR --name NAME [--chroot SUITE] | --debug] OUT: the guest overlay, what
# the guest's /init finds under / at boot (scripts/guest/vm.sh --stage OUT):
#   usr/lib/ib_async/ib_async.ko    the module
#   usr/lib/ib_async/test/*.ko      the test modules (storm, evsrc)
#   usr/lib/<multiarch>/, usr/bin/  the shim and ib_async_watch
#   usr/lib/ib_async/selftests/     the kselftest tree: run_kselftest.sh,
#                                   kselftest-list.txt, ib_async/
# Everything comes from the checkout's build (make all), the modules built
# for the Makefile's guest kernel. For another kernel, --kdir rebuilds the
# modules against its kbuild tree (Debian's RT headers...) from copies under
# build/NAME-modules, so the checkout's modules stay as they are; --debug
# does so for the debug kernel (scripts/debug-kernel.sh builds or reuses
# its tree, NAME debug) and prints that tree's path on stdout. With
# --chroot, KDIR is a kbuild tree inside the Debian SUITE chroot of
# scripts/chroot.sh (kernels newer than the host's toolchain), where the
# modules are built; only they come from there.
# Progress and build output go to stderr.
set -euo pipefail

usage() {
	echo "usage: $0 [--kdir KDIR --name NAME [--chroot SUITE] | --debug] OUT" >&2
	exit 2
}
kdir='' name='' debug=0 suite=
while [ $# -gt 1 ]; do
	case $1 in
	--kdir) kdir=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--chroot) suite=$2; shift 2 ;;
	--debug) debug=1; shift ;;
	*) usage ;;
	esac
done
[ $# -eq 1 ] || usage
out=$(realpath -m "$1")
if [ "$debug" = 1 ]; then
	[ -z "$kdir$name$suite" ] || usage
	name=debug
elif { [ -n "$kdir" ] && [ -z "$name" ]; } ||
	{ [ -z "$kdir" ] && [ -n "$name" ]; }; then
	usage
fi
[ -z "$suite" ] || [ -n "$kdir" ] || usage

top=$(cd "$(dirname "$0")/.." && pwd)
exec 3>&1 1>&2
[ "$debug" = 0 ] || kdir=$("$top/scripts/debug-kernel.sh")

# The module and the test modules, as built in the checkout or rebuilt for
# KDIR: sets ko and test_ko.
ko=$top/kernel/ib_async.ko
test_ko=$top/selftests/ib_async/modules
if [ -n "$suite" ]; then
	# the chroot's /tmp, seen from the host below its root
	work=/tmp/ib_async-stage-$name
	"$top/scripts/chroot.sh" "$suite" -- /src/scripts/build-modules.sh \
		"$kdir" "$work"
	work=$("$top/scripts/chroot.sh" "$suite")$work
	ko=$work/ib_async/kernel/ib_async.ko
	test_ko=$work/test/selftests/ib_async/modules
elif [ -n "$kdir" ]; then
	work=$top/build/$name-modules
	"$top/scripts/build-modules.sh" "$kdir" "$work"
	ko=$work/ib_async/kernel/ib_async.ko
	test_ko=$work/test/selftests/ib_async/modules
fi

rm -rf "$out"
install -D -m 0644 "$ko" "$out/usr/lib/ib_async/ib_async.ko"
install -d "$out/usr/lib/ib_async/test"
install -m 0644 "$test_ko"/*.ko "$out/usr/lib/ib_async/test/"
make -C "$top/user" install DESTDIR="$out"
make -C "$top/selftests/ib_async" \
	INSTALL_PATH="$out/usr/lib/ib_async/selftests" install

[ "$debug" = 0 ] || echo "$kdir" >&3
