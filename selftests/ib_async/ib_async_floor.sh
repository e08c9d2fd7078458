#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The bench's limit row on every guest kernel: ib_async_floor's kernel-only
# loops (two RC QPs of rxe0, busy-polled by kernel threads) must run
# and report what it measured, so that make bench's floor row is known to
# work on 6.12 and 7.x, where the bench itself is not run in make check.
#
# What it proves, and what not: the module connects two kernel QPs, runs
# all three tests to their end and reports, per test, a typical and a
# 99.9th percentile latency that are positive and ordered, with the
# iterations and size asked for; a bad request is refused, and a run that
# failed leaves no result behind. The figures themselves are make bench's (noisy machines:
# ratios there, never a threshold here).
# Functions here run by name through check, which shellcheck cannot see:
# it would call their bodies unreachable.
# shellcheck disable=SC2317
cd "$(dirname "$0")" || exit 1
. ./ib_async_lib.sh

FLOOR=/sys/kernel/debug/ib_async_floor
ITERS=${IB_ASYNC_FLOOR_ITERS:-200}
SIZE=64

[ "$(id -u)" = 0 ] || skip_all "needs root for debugfs"
[ -d "/sys/class/infiniband/$IB_ASYNC_IBDEV" ] ||
	skip_all "no $IB_ASYNC_IBDEV device"
grep -q ' /sys/kernel/debug debugfs ' /proc/mounts ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
loaded_here=
if [ ! -d /sys/module/ib_async_floor ]; then
	load_module ib_async_floor || skip_all "ib_async_floor.ko not available"
	loaded_here=1
fi

# result_ok TEST: its line says the iterations and size asked for, and a
# positive typical latency no larger than its 99.9th percentile
result_ok() {
	awk -v t="$1" -v n="$ITERS" -v s="$SIZE" '
		$1 == "floor" && $2 == t {
			for (i = 3; i <= NF; i++) {
				split($i, kv, "=")
				v[kv[1]] = kv[2]
			}
			found = 1
			good = v["typical_us"] + 0 > 0 &&
			       v["p999_us"] + 0 >= v["typical_us"] + 0 &&
			       v["iterations"] == n && v["size"] == s
		}
		END { exit !(found && good) }' "$FLOOR/result"
}

run_floor() { echo "$IB_ASYNC_IBDEV $ITERS $SIZE" >"$FLOOR/run"; }
check "pingpong_runs_on_$IB_ASYNC_IBDEV" run_floor
sed 's/^/# /' "$FLOOR/result"
check "send_lat_reported" result_ok send_lat
check "write_lat_reported" result_ok write_lat
check "read_lat_reported" result_ok read_lat

refused() { ! echo "$1" >"$FLOOR/run" 2>/dev/null; }
check "no_such_device_refused" refused "nosuchdev0 10 64"
# a failed run leaves no result behind to be taken for its own
check "failed_run_leaves_no_result" test ! -s "$FLOOR/result"
check "zero_iterations_refused" refused "$IB_ASYNC_IBDEV 0 64"
check "size_beyond_a_page_refused" refused "$IB_ASYNC_IBDEV 10 1048576"

if [ -n "$loaded_here" ]; then
	check "unloads" rmmod ib_async_floor
fi
finish
