#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# peer-test.sh --kver KVER --stage DIR [--tap] [--timeout SECONDS]
# `make peer-test`: rdma-core's own test suite (Debian's python3-pyverbs)
# as an outside judge of the shim. One guest boot of KVER with the stage
# DIR (scripts/stage.sh) runs it on rdma-core + ib_uverbs and again over
# libibasync (run.sh), and report.sh prints the table, the closing line
# "peer-suite: ..." and the verdict against expected-shim-pass.txt.
# --tap: report.sh's TAP, for scripts/check.sh.
# Outputs in build/peer: console.log (the guest's console, the unittest
# output of every module that did not pass), vm.out (vm.sh), report.txt.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
out=$top/build/peer
kver='' stage='' tap='' timeout=1200
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=$2; shift 2 ;;
	--stage) stage=$2; shift 2 ;;
	--tap) tap=--tap; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	*) echo "usage: $0 --kver KVER --stage DIR [--tap] [--timeout S]" >&2
	   exit 2 ;;
	esac
done
if [ -z "$kver" ] || [ -z "$stage" ]; then
	echo "$0: --kver and --stage needed" >&2
	exit 2
fi

cached=$("$here/make-payload.sh")
rm -rf "$out"
mkdir -p "$out/payload"
cp -a "$cached/." "$out/payload/"
install -m 0644 "$here/run.sh" "$here/driver.py" "$out/payload/"

start=$(date +%s)
vrc=0
RAW_CMD='sh run.sh' IBASYNC_CONSOLE_LOG=$out/console.log \
	"$top/scripts/guest/vm.sh" --kver "$kver" --stage "$stage" \
	--payload "$out/payload" --timeout "$timeout" >"$out/vm.out" 2>&1 || vrc=$?
secs=$(($(date +%s) - start))

# The guest's trouble (kernel warnings, a timeout) ahead of the report, whose
# last line stays the closing line.
[ "$vrc" = 0 ] || tail -n 20 "$out/vm.out" | sed 's/^/# vm.out: /'
[ -z "$tap" ] || echo "# peer: guest run $secs s (one boot, both stacks)"
"$here/report.sh" ${tap:+"$tap"} --vm-status "$vrc" "$out/console.log" \
	"$here/expected-shim-pass.txt" | tee "$out/report.txt"
