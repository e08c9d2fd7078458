#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# bench.sh: the guest side of `make bench`. Runs every scenario REPS times,
# ib_async and ib_uverbs alternately on the same device and kernel, and
# prints one table of medians (reStructuredText, for
# Documentation/performance.rst).
#
# Environment: BENCH_REPS (default 5), BENCH_LAT_K latency samples per run
# (default 1000), BENCH_SIZES stalled-reader storms (default
# "10000 100000 1000000"), BENCH_DRAIN_N (100000), BENCH_FAN_N (10000),
# BENCH_FAN_CTX ("1 10 100"), BENCH_DESTROY_N records queued while
# objects are destroyed (1048576), BENCH_COMP_K completion-event latency
# samples per run (default BENCH_LAT_K), BENCH_FLOOD_CQS armed CQs on one
# channel (64) and BENCH_FLOOD_ROUNDS completions of each (200),
# BENCH_PERF_N iterations of each perftest tool and of the floor per run
# (5000; the message rate's rounded up to a multiple of its list),
# BENCH_POST_LIST SENDs per post list of the message rate (8),
# BENCH_DP_K calls of each part of the data path's profile (3000),
# BENCH_RATE_ROUNDS rounds of the message rate's profile (32), each of 16
# lists,
# BENCH_FFAN_N events of the filtered fan-out (BENCH_FAN_N), half of each
# of the two BENCH_FFAN_TYPES ("SM_CHANGE LID_CHANGE"), to BENCH_FFAN_CTX
# contexts (100) whose own ib_async queues hold BENCH_FFAN_CTXQ (64),
# BENCH_COAL_SIZES storms on a coalescing channel (BENCH_SIZES),
# IBASYNC_RXE (rxe0).
#
# Runs in /payload: ibbench-uverbs, ibbench-ibasync, table.awk, host.txt.

set -u
# load_module and perftest_pair, the shared test library's shell part
# (make stage puts the selftests there; it sources the test bed's loader)
# shellcheck source=../selftests/ib_async/ib_async_lib.sh
. /usr/lib/ib_async/selftests/ib_async/ib_async_lib.sh
REPS=${BENCH_REPS:-5}
LAT_K=${BENCH_LAT_K:-1000}
SIZES=${BENCH_SIZES:-"10000 100000 1000000"}
DRAIN_N=${BENCH_DRAIN_N:-100000}
FAN_N=${BENCH_FAN_N:-10000}
FAN_CTX=${BENCH_FAN_CTX:-"1 10 100"}
DESTROY_N=${BENCH_DESTROY_N:-1048576}
COMP_K=${BENCH_COMP_K:-$LAT_K}
FLOOD_CQS=${BENCH_FLOOD_CQS:-64}
FLOOD_ROUNDS=${BENCH_FLOOD_ROUNDS:-200}
PERF_N=${BENCH_PERF_N:-5000}
POST_LIST=${BENCH_POST_LIST:-8}
# perftest wants the iterations a multiple of the post list
RATE_N=$(((PERF_N + POST_LIST - 1) / POST_LIST * POST_LIST))
DP_K=${BENCH_DP_K:-3000}
RATE_M=16
RATE_ROUNDS=${BENCH_RATE_ROUNDS:-32}
FFAN_N=${BENCH_FFAN_N:-$FAN_N}
FFAN_TYPES=${BENCH_FFAN_TYPES:-"SM_CHANGE LID_CHANGE"}
FFAN_CTX=${BENCH_FFAN_CTX:-100}
FFAN_CTXQ=${BENCH_FFAN_CTXQ:-64}
COAL_SIZES=${BENCH_COAL_SIZES:-$SIZES}
DEV=${IBASYNC_RXE:-rxe0}
IB_ASYNC_IBDEV=$DEV
MAXQ=/sys/module/ib_async/parameters/max_queue_len
RES=/tmp/bench.results
UV="./ibbench-uverbs -d $DEV"
IA="./ibbench-ibasync -d $DEV"

T0=$(cut -d' ' -f1 /proc/uptime)
progress() {
	echo "bench: [$(awk -v t0="$T0" '{ printf "%6.1f s", $1 - t0 }' /proc/uptime)] $*"
}

fail() {
	echo "bench: FAILED: $*"
	exit 1
}

# run SIDE ARGS...: one measurement, appended to $RES
run() {
	out=$("$@") || fail "$*"
	echo "$out" >>"$RES"
}

# perf SIDE NAME TOOL ARGS...: one perftest TOOL run (ib_send_bw...) on
# ib_uverbs (SIDE uverbs) or through the shim alone (SIDE ib_async: the
# uverbs nodes hidden), $PERF_N iterations unless ARGS give -n, its
# client's figures appended to $RES: for a NAME in _bw bandwidth (MB/s)
# and message rate (Mpps), in _rate the message rate alone, in _lat
# typical and 99.9th percentile latency (us). perftest converts
# TSC cycles with a CPU frequency it samples itself; when that sample fails
# (a busy host under TCG) it prints 0: such a run is made again, up to
# three times.
perf_port=19000
perf() {
	side=$1 name=$2 tool=$3
	shift 3
	pre=''
	[ "$side" = ib_async ] && pre=libibasync.so.1
	for try in 1 2 3; do
		if [ "$side" = ib_async ]; then
			hide_uverbs /tmp/bench.dev || fail "cannot hide the uverbs nodes"
		fi
		perf_port=$((perf_port + 1))
		perftest_pair /tmp bench.perf "$perf_port" "$pre" "$tool" \
			-n "$PERF_N" "$@"
		prc=$?
		[ "$side" = ib_async ] && show_uverbs
		[ "$prc" = 0 ] || {
			cat /tmp/bench.perf.server /tmp/bench.perf.client
			fail "$side $tool $*"
		}
		line=$(perftest_row /tmp/bench.perf.client | awk -v s="$side" -v t="$name" '
			t ~ /_bw$/ && $4 > 0 {
				printf "side=%s mode=perf tool=%s bw=%s mpps=%s\n",
					s, t, $4, $5 }
			t ~ /_rate$/ && $5 > 0 {
				printf "side=%s mode=perf tool=%s mpps=%s\n", s, t, $5 }
			t ~ /_lat$/ && $5 > 0 {
				printf "side=%s mode=perf tool=%s typ=%s p999=%s\n",
					s, t, $5, $9 }')
		[ -n "$line" ] && break
		progress "$side $name: perftest printed no figure (try $try)"
	done
	[ -n "$line" ] || fail "$side $tool $*: no figure in three runs"
	echo "$line" >>"$RES"
}

# floor SIZE: the latency floor, the limit row under perftest's: what
# ib_async_floor.ko measures when it runs ib_send_lat's, ib_write_lat's and
# ib_read_lat's loops between two kernel QPs of $DEV, client and server
# kernel threads busy-polling on the two CPUs (no system call, no user
# space), $PERF_N iterations of SIZE bytes, as perftest's rows; appended to
# $RES as a side of its own, typical and 99.9th percentile latency (us), as
# perftest reports each
FLOOR=/sys/kernel/debug/ib_async_floor
floor() {
	echo "$DEV $PERF_N $1" >"$FLOOR/run" || fail "floor: $DEV $PERF_N $1"
	lines=$(sed -e 's/^floor \([a-z_]*\) /side=floor mode=perf tool=\1 /' \
		-e 's/ typical_us=/ typ=/' -e 's/ p999_us=/ p999=/' "$FLOOR/result")
	[ "$(echo "$lines" | grep -c '^side=floor mode=perf tool=[a-z_]* typ=')" = 3 ] ||
		fail "floor: no send_lat, write_lat and read_lat in $FLOOR/result"
	echo "$lines" >>"$RES"
}

# in_turn FN ARGS...: FN uverbs ARGS, and FN ib_async ARGS, the order swapped
# on even repetitions so that neither side always runs on a warmer system
in_turn() {
	fn=$1
	shift
	if [ $((rep % 2)) -eq 1 ]; then
		"$fn" uverbs "$@"
		"$fn" ib_async "$@"
	else
		"$fn" ib_async "$@"
		"$fn" uverbs "$@"
	fi
}

# run_side SIDE SCENARIO-ARGS...: run with SIDE's ibbench binary (called
# through in_turn, which shellcheck cannot see)
# shellcheck disable=SC2317
run_side() {
	side=$1
	shift
	if [ "$side" = uverbs ]; then run $UV "$@"; else run $IA "$@"; fi
}

# both SCENARIO-ARGS...: the scenario with each ibbench binary, in turn
both() { in_turn run_side "$@"; }

# perf_both NAME TOOL ARGS...: perf on both sides, in turn
perf_both() { in_turn perf "$@"; }

[ -d /sys/module/ib_async ] || fail "ib_async.ko not loaded"
load_module ib_async_storm ib_async_floor ||
	fail "cannot load ib_async_storm and ib_async_floor"
# queues as large as the drain and fan-out storms
echo 1048576 >"$MAXQ" || fail "cannot raise $MAXQ"
: >"$RES"

# warm up the slab caches the storm itself uses (work items)
run $UV idle 100000

progress "$REPS repetitions; storms of SM_CHANGE on $DEV port 1"
rep=1
while [ "$rep" -le "$REPS" ]; do
	progress "rep $rep/$REPS: stalled reader ($SIZES)"
	for n in $SIZES; do
		run $UV idle "$n"
		both stall "$n"
	done
	progress "rep $rep/$REPS: drain of $DRAIN_N"
	IBASYNC_QUEUE_LEN=$((DRAIN_N + 1024)) both drain "$DRAIN_N"
	# the context's own queue small: only the channel is read
	IBASYNC_QUEUE_LEN=64 run $IA drainb "$DRAIN_N"
	IBASYNC_QUEUE_LEN=64 run $IA drainb "$DRAIN_N" unread
	IBASYNC_QUEUE_LEN=$((DRAIN_N + 1024)) run $IA drainprof "$DRAIN_N"
	progress "rep $rep/$REPS: fan-out of $FAN_N to $FAN_CTX contexts"
	for c in $FAN_CTX; do
		IBASYNC_QUEUE_LEN=$((FAN_N + 1024)) both fanout "$FAN_N" "$c"
	done
	progress "rep $rep/$REPS: filtered fan-out of $FFAN_N ($FFAN_TYPES) to $FFAN_CTX contexts"
	# shellcheck disable=SC2086 # two words, the two types
	run $UV ffan "$FFAN_N" 0 $FFAN_TYPES
	# shellcheck disable=SC2086
	IBASYNC_QUEUE_LEN=$FFAN_CTXQ both ffan "$FFAN_N" "$FFAN_CTX" $FFAN_TYPES
	# and with channels of the default length (1024): bounded, may lose
	# shellcheck disable=SC2086
	IBASYNC_QUEUE_LEN=$FFAN_CTXQ run $IA ffan "$FFAN_N" "$FFAN_CTX" $FFAN_TYPES 1024
	for t in $FFAN_TYPES; do
		run $UV stormcost "$t" $((FFAN_N / 2))
	done
	progress "rep $rep/$REPS: coalescing channel, stalled reader ($COAL_SIZES)"
	for n in $COAL_SIZES; do
		run $IA coalesce "$n"
	done
	progress "rep $rep/$REPS: latency, $LAT_K events per reader"
	both latency "$LAT_K" blocking
	both latency "$LAT_K" epoll
	progress "rep $rep/$REPS: destroy with $DESTROY_N records queued"
	IBASYNC_QUEUE_LEN=$DESTROY_N both destroy "$DESTROY_N"
	progress "rep $rep/$REPS: completion events ($COMP_K SENDs; $FLOOD_CQS CQs x $FLOOD_ROUNDS)"
	both complat "$COMP_K"
	both compflood "$FLOOD_CQS" "$FLOOD_ROUNDS"
	progress "rep $rep/$REPS: data path profile, $DP_K calls per part"
	both dpprof "$DP_K"
	both rateprof "$RATE_M" "$RATE_ROUNDS"
	progress "rep $rep/$REPS: perftest and its floor, $PERF_N iterations per tool"
	perf_both send_bw ib_send_bw -s 4096
	perf_both write_bw ib_write_bw -s 4096
	perf_both read_bw ib_read_bw -s 4096
	perf_both atomic_bw ib_atomic_bw -A FETCH_AND_ADD
	perf_both send_rate ib_send_bw -s 64 -l "$POST_LIST" -n "$RATE_N"
	# the same through the shim with its poller (a thread per process)
	IBASYNC_POLLER=1 perf ib_async poller_rate ib_send_bw -s 64 \
		-l "$POST_LIST" -n "$RATE_N"
	perf_both send_lat ib_send_lat -s 64
	perf_both write_lat ib_write_lat -s 64
	perf_both read_lat ib_read_lat -s 64
	floor 64
	rep=$((rep + 1))
done
progress "done"

echo "bench: raw results (one line per run):"
sed 's/^/bench:   /' "$RES"

CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
case $CPU in
"QEMU Virtual CPU"*) ACCEL="QEMU TCG (-cpu qemu64)" ;;
*) ACCEL="QEMU" ;;
esac

echo "@@BENCH_TABLE_BEGIN@@"
awk -v reps="$REPS" -v kver="$(uname -r)" -v ncpu="$(nproc)" \
    -v cpu="$CPU" -v accel="$ACCEL" -v dev="$DEV" -v latk="$LAT_K" \
    -v sizes="$SIZES" -v fanctx="$FAN_CTX" -v drain_n="$DRAIN_N" \
    -v fan_n="$FAN_N" -v compk="$COMP_K" -v perfn="$PERF_N" -v dpk="$DP_K" -v host="$(cat host.txt 2>/dev/null)" \
    -v postlist="$POST_LIST" -v rate_m="$RATE_M" -v rate_rounds="$RATE_ROUNDS" \
    -v ffan_n="$FFAN_N" -v ffan_ctx="$FFAN_CTX" -v ffan_types="$FFAN_TYPES" \
    -v ffan_ctxq="$FFAN_CTXQ" -v coal_sizes="$COAL_SIZES" \
    -f table.awk "$RES"
echo "@@BENCH_TABLE_END@@"
