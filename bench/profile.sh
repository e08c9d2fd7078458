#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# profile.sh: the guest side of `make bench-profile`. Where a receive's
# post goes on ib_async: first the per-call times of its layers (ibbench
# dpprof: a bare system call, an ioctl the node refuses, an empty
# receive ring's doorbell, ibv_post_recv) and a receive-only loop on both
# stacks (ibbench recvprof); then perf samples the receive-only loop
# and profile.awk splits the doorbell command's time by stage; last,
# with the workqueue and scheduler events traced, a dpprof run per stack
# says how long rxe's worker took to start the program's work, and how
# often its CPU had to be woken first (wakeups.awk).
#
# Environment: PROFILE_DEPTH receives per round (64), PROFILE_ROUNDS
# rounds profiled (1500), PROFILE_K calls of each dpprof part (3000),
# IBASYNC_RXE (rxe0).
#
# Runs in /payload: ibbench-uverbs, ibbench-ibasync, perf, profile.awk,
# wakeups.awk.

set -u
# shellcheck source=../selftests/ib_async/ib_async_lib.sh
. /usr/lib/ib_async/selftests/ib_async/ib_async_lib.sh
DEV=${IBASYNC_RXE:-rxe0}
DEPTH=${PROFILE_DEPTH:-64}
ROUNDS=${PROFILE_ROUNDS:-1500}
K=${PROFILE_K:-3000}

cd "$(dirname "$0")" || exit 1
for side in uverbs ibasync; do
	"./ibbench-$side" -d "$DEV" dpprof "$K" || exit 1
	"./ibbench-$side" -d "$DEV" recvprof "$DEPTH" $((ROUNDS / 5)) || exit 1
done
# Frame pointers unwind the kernel's stacks; the user side is not needed.
./perf record -q -a -g -F 4000 -o /tmp/recv.perf \
	./ibbench-ibasync -d "$DEV" recvprof "$DEPTH" "$ROUNDS" || exit 1
./perf report -i /tmp/recv.perf --children --sort sym --stdio -g none \
	-p ib_async_cmd_wr_doorbell 2>/dev/null | awk -f profile.awk

T=/sys/kernel/tracing
[ -e $T/trace ] || mount -t tracefs nodev $T || exit 1
echo 16384 >$T/buffer_size_kb
for side in uverbs ibasync; do
	echo 0 >$T/tracing_on
	echo >$T/trace
	echo 0 >$T/events/enable
	for e in workqueue/workqueue_queue_work \
		workqueue/workqueue_execute_start sched/sched_wakeup; do
		echo 1 >"$T/events/$e/enable"
	done
	echo 1 >$T/tracing_on
	"./ibbench-$side" -d "$DEV" dpprof 500 >/dev/null || exit 1
	echo 0 >$T/tracing_on
	awk -v side="$side" -f wakeups.awk $T/trace
done
echo 0 >$T/events/enable
