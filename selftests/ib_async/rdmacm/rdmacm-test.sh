#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# rdmacm-test.sh --kver KVER --stage DIR [--kernel-root DIR] [--tap]
#                [--timeout SECONDS] [--out DIR] [--report-only]
# `make rdmacm-test`: the programs of Debian's rdmacm-utils and perftest's
# verbs tools with -R (librdmacm's connection setup) in one guest boot of
# KVER with the stage DIR (scripts/stage.sh), on rdma-core + ib_uverbs and
# then over libibasync alone (run.sh); report.sh prints the per-program
# table, the closing line "rdmacm: uverbs U ok; shim S ok of N" and the
# verdict. --kernel-root: a kernel of a Debian chroot (vm.sh's option).
# --tap: report.sh's TAP, for scripts/check.sh. --report-only: shim
# failures are reported, not failed (report.sh's RDMACM_REPORT_ONLY).
# Outputs in --out (default build/rdmacm): console.log (the guest's
# console, with the output and, for a hang, the tasks' kernel stacks of
# every program that did not pass), vm.out (vm.sh), report.txt.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
out=$top/build/rdmacm
kver='' stage='' kroot='' tap='' timeout=1500
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=$2; shift 2 ;;
	--stage) stage=$2; shift 2 ;;
	--kernel-root) kroot=$2; shift 2 ;;
	--tap) tap=--tap; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--report-only) export RDMACM_REPORT_ONLY=1; shift ;;
	*) echo "usage: $0 --kver KVER --stage DIR [--kernel-root DIR]" \
		"[--tap] [--timeout S] [--out DIR] [--report-only]" >&2
	   exit 2 ;;
	esac
done
if [ -z "$kver" ] || [ -z "$stage" ]; then
	echo "$0: --kver and --stage needed" >&2
	exit 2
fi

# rdmacm-utils: the examples (perftest and librdmacm are in the guest's
# base already); vm.sh adds the libraries ldd names. libgcc_s is not
# among them: glibc's pthread_exit() loads it at run time. The
# hot-unplug probe and mckey_drain.so, preloaded into mckey's sender, are
# built here against librdmacm-dev.
"$top/scripts/install-deps.sh" rdmacm-utils librdmacm-dev >&2
rm -rf "$out"
mkdir -p "$out/payload/bin" "$out/payload/lib"
dpkg -L rdmacm-utils | grep '^/usr/bin/' | xargs cp -t "$out/payload/bin"
gcc -O2 -g -Wall -Wextra -Werror -o "$out/payload/bin/rdmacm_unplug" \
	"$here/rdmacm_unplug.c" -lrdmacm -libverbs
gcc -O2 -g -Wall -Wextra -Werror -shared -fPIC \
	-o "$out/payload/lib/mckey_drain.so" "$here/mckey_drain.c" -ldl
cp -L "$(gcc -print-file-name=libgcc_s.so.1)" "$out/payload/lib/"
install -m 0644 "$here/run.sh" "$out/payload/"
# rcopy's file: random bytes from the host, not the guest's CRNG (run.sh)
head -c 300000 /dev/urandom >"$out/payload/copy.src"

start=$(date +%s)
# A kernel that dies before either stack ran to its end, with an int3 in
# code being patched (Debian's kernels under TCG, README), ran nothing of
# ours: that boot is kept as vm.out.1 and the guest boots once more.
for try in 1 2; do
	vrc=0
	RAW_CMD='sh run.sh' IBASYNC_CONSOLE_LOG=$out/console.log \
		"$top/scripts/guest/vm.sh" --kver "$kver" --stage "$stage" \
		${kroot:+--kernel-root "$kroot"} --payload "$out/payload" \
		--timeout "$timeout" >"$out/vm.out" 2>&1 || vrc=$?
	if [ "$vrc" = 0 ] || [ "$try" = 2 ] ||
	   grep -q '@@RDMACM uverbs done' "$out/console.log" ||
	   ! grep -q 'Oops: int3' "$out/vm.out"; then
		break
	fi
	mv "$out/vm.out" "$out/vm.out.$try"
	echo "# rdmacm: boot $try died of an int3 before the programs ran; booting again" >&2
done
secs=$(($(date +%s) - start))

[ "$vrc" = 0 ] || tail -n 20 "$out/vm.out" | sed 's/^/# vm.out: /'
[ -z "$tap" ] || echo "# rdmacm: guest run $secs s (one boot, both stacks)"
"$here/report.sh" ${tap:+"$tap"} --vm-status "$vrc" "$out/console.log" \
	"$here/known-gaps.txt" |
	tee "$out/report.txt"
exit "${PIPESTATUS[0]}"
