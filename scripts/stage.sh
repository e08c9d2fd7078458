#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# stage.sh [--kdir KDIR --name NAME [--chroot SUITE] | --debug |
#          --debs DIR [--kdir KDIR]] [--rdma-core SUITE]... OUT
# The guest overlay, what the guest's /init finds under / at boot
# (scripts/guest/vm.sh --stage OUT):
#   usr/lib/ib_async/ib_async.ko    the module
#   usr/lib/ib_async/test/*.ko      the test modules (storm, evsrc, strict,
#                                   floor)
#   usr/lib/<multiarch>/, usr/bin/  the shim and ib_async_watch
#   usr/lib/ib_async/selftests/     the kselftest tree: run_kselftest.sh,
#                                   kselftest-list.txt, ib_async/
#   usr/lib/ib_async/rdma-core-SUITE/  with --rdma-core SUITE: Debian SUITE's
#                                   rdma-core in a small root
#                                   (scripts/rdma-core-root.sh), the staged
#                                   shim added, for ib_async_devinfo.sh
# Everything comes from the checkout's build (make all), the modules built
# for the Makefile's guest kernel. For another kernel, --kdir rebuilds the
# modules against its kbuild tree (Debian's RT headers...) from copies under
# build/NAME-modules, so the checkout's modules stay as they are; --debug
# does so for the debug kernel (scripts/debug-kernel.sh builds or reuses
# its tree, NAME debug) and prints that tree's path on stdout. With
# --chroot, KDIR is a kbuild tree inside the Debian SUITE chroot of
# scripts/chroot.sh (kernels newer than the host's toolchain), where the
# modules are built; only they come from there. With --debs, the shim and
# the watcher are those of the packages of make deb in DIR (libibasync1,
# ib-async-utils, unpacked), and ib_async.ko is built from ib-async-dkms's
# source by its dkms.conf (scripts/dkms-make.sh) for the guest kernel
# (KDIR, by default the 6.1 one's headers), as
# DKMS builds it on a test host: what users install is what the guest
# tests. The test modules and the kselftests, which no package ships,
# still come from the checkout.
# Progress and build output go to stderr.
set -euo pipefail

usage() {
	echo "usage: $0 [--kdir KDIR --name NAME [--chroot SUITE] | --debug |" \
		"--debs DIR [--kdir KDIR]] [--rdma-core SUITE]... OUT" >&2
	exit 2
}
kdir='' name='' debug=0 suite='' debs='' rdma_core=()
while [ $# -gt 1 ]; do
	case $1 in
	--kdir) kdir=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--chroot) suite=$2; shift 2 ;;
	--debug) debug=1; shift ;;
	--debs) debs=$2; shift 2 ;;
	--rdma-core) rdma_core+=("$2"); shift 2 ;;
	*) usage ;;
	esac
done
[ $# -eq 1 ] || usage
out=$(realpath -m "$1")
if [ -n "$debs" ]; then
	[ "$debug$name$suite" = 0 ] || usage
elif [ "$debug" = 1 ]; then
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
elif [ -n "$kdir" ] && [ -z "$debs" ]; then
	work=$top/build/$name-modules
	"$top/scripts/build-modules.sh" "$kdir" "$work"
	ko=$work/ib_async/kernel/ib_async.ko
	test_ko=$work/test/selftests/ib_async/modules
fi

# --debs: unpacks the packages, builds the module from the DKMS source
# (sets ko) and leaves the shim and the watcher in OUT.
from_debs() {
	local p deb unpacked=$out.debs
	rm -rf "$unpacked"
	for p in ib-async-dkms libibasync1 ib-async-utils; do
		deb=$(find "$debs" -maxdepth 1 -name "${p}_*.deb" | sort -V | tail -n 1)
		[ -n "$deb" ] || { echo "stage.sh: no $p package in $debs" >&2; exit 1; }
		dpkg-deb -x "$deb" "$([ "$p" = ib-async-dkms ] && echo "$unpacked" || echo "$out")"
	done
	ko=$("$top/scripts/dkms-make.sh" "$(echo "$unpacked"/usr/src/ib_async-*)" \
		"${kdir:-/lib/modules/$("$top/scripts/kernel-release.sh")/build}" \
		"$unpacked/dkms")
}

rm -rf "$out"
mkdir -p "$out"
if [ -n "$debs" ]; then
	from_debs
else
	make -C "$top/user" install DESTDIR="$out"
fi
install -D -m 0644 "$ko" "$out/usr/lib/ib_async/ib_async.ko"
install -d "$out/usr/lib/ib_async/test"
install -m 0644 "$test_ko"/*.ko "$out/usr/lib/ib_async/test/"
make -C "$top/selftests/ib_async" \
	INSTALL_PATH="$out/usr/lib/ib_async/selftests" install
# Another rdma-core's root, with the shim just staged beside its
# libibverbs (where that root's loader looks by default).
for s in "${rdma_core[@]}"; do
	r=$("$top/scripts/rdma-core-root.sh" "$s" "$top/build/rdma-core-$s")
	cp -a "$r" "$out/usr/lib/ib_async/rdma-core-$s"
	shim=$(find "$out/usr/lib" -maxdepth 2 -name 'libibasync.so.1' | head -n 1)
	[ -n "$shim" ] || { echo "stage.sh: no shim staged for $s" >&2; exit 1; }
	cp "$shim" "$out/usr/lib/ib_async/rdma-core-$s/${shim#"$out"}"
done

[ "$debug" = 0 ] || echo "$kdir" >&3
