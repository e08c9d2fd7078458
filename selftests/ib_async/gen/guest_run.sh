#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Guest side of `make difftest`, run in /payload: every program p* once on
# ib_uverbs (rdma-core alone) and once on ib_async (libibasync preloaded,
# as rdma-core programs use the shim), one after the other. Identical
# traces are only counted (the serial console is slow); differing ones are
# printed whole between markers for the host's compare.py, as are the
# regression programs r_* (gen/regress/).
SHIM=${IB_ASYNC_SHIM:-libibasync.so.1}
TMO=${DIFFTEST_TIMEOUT:-60}
mkdir -p /tmp/dt
t0=$(cut -d' ' -f1 /proc/uptime)
for p in ./p[0-9]* ./r_*; do
	[ -x "$p" ] || continue
	n=${p#./}
	out=/tmp/dt/$n
	timeout -k 5 "$TMO" "$p" >"$out.uverbs" 2>&1
	echo "exit $?" >>"$out.uverbs"
	LD_PRELOAD=$SHIM timeout -k 5 "$TMO" "$p" >"$out.ibasync" 2>&1
	echo "exit $?" >>"$out.ibasync"
	calls=$(sed -n 's/^calls: \([0-9]*\)$/\1/p' "$out.uverbs")
	sed -i '/^calls: /d' "$out.uverbs" "$out.ibasync"
	# Regressions (r_*) are always printed: the host checks them against
	# their expected trace.
	if cmp -s "$out.uverbs" "$out.ibasync" && [ "${n#r_}" = "$n" ]; then
		echo "@@DT SAME $n calls=${calls:-0}@@"
	else
		echo "@@DT DIFF $n calls=${calls:-0}@@"
		for side in uverbs ibasync; do
			echo "@@DT BEGIN $n $side@@"
			cat "$out.$side"
			echo "@@DT END $n $side@@"
		done
	fi
done
echo "@@DT DONE $(awk -v t0="$t0" '{ printf "%.0f", $1 - t0 }' /proc/uptime) s@@"
