#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fuzz.sh --kver KVER --stage DIR [--kernel debug|stock|rt] [--rt-kver KVER]
#         [--calls N] [--seed S] [--timeout SECS] [--mem MB]
#
# The host side of `make fuzz`: stages the module for the chosen kernel
# (debug: the cached debug build, scripts/stage.sh --debug; rt: Debian's
# PREEMPT_RT kernel; stock: STAGE as it is), boots the guest once
# (vm.sh), runs `ib_async_fuzz --env` there (changing the test bed between
# and during batches), then prints the fuzzer's reports and, last, exactly
# "fuzz: N calls, R reports". Fails when R > 0.
#
# The guest's verdict is its own closing line. When the guest dies or
# times out before it, N is what the last finished batch counted and the
# death is one more report, naming the seed of the batch that was running;
# kernel trouble vm.sh finds after the fuzzer's last look (the final scan)
# is one more report too. Everything is kept in build/fuzz/: console.log,
# vm.out (vm.sh's own output) and progress.txt (the fuzzer's lines).
set -uo pipefail

usage() { sed -n '4,5s/^# //p' "$0" >&2; exit 2; }
KVER='' RTKVER='' STAGE='' KERNEL=debug CALLS=100000 SEED=1 TIMEOUT='' MEM=2048
while [ $# -gt 0 ]; do
	case $1 in
	--kver) KVER=$2; shift 2 ;;
	--rt-kver) RTKVER=$2; shift 2 ;;
	--stage) STAGE=$2; shift 2 ;;
	--kernel) KERNEL=$2; shift 2 ;;
	--calls) CALLS=$2; shift 2 ;;
	--seed) SEED=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--mem) MEM=$2; shift 2 ;;
	*) usage ;;
	esac
done
if [ -z "$KVER" ] || [ -z "$STAGE" ]; then usage; fi
case $CALLS$SEED in *[!0-9]*) echo "fuzz.sh: CALLS and SEED are numbers" >&2; exit 2 ;; esac

top=$(cd "$(dirname "$0")/../../.." && pwd)
out=$top/build/fuzz
mkdir -p "$out"
args=(--kver "$KVER")
case $KERNEL in
debug)
	tree=$("$top/scripts/stage.sh" --debug "$top/build/stage-debug") ||
		exit 1
	args+=(--kernel-tree "$tree" --stage "$top/build/stage-debug") ;;
rt)
	if [ -z "$RTKVER" ]; then
		echo "fuzz.sh: no PREEMPT_RT kernel installed (make deps)" >&2
		exit 2
	fi
	"$top/scripts/stage.sh" --kdir "/lib/modules/$RTKVER/build" --name rt \
		"$top/build/stage-rt" || exit 1
	args=(--kver "$RTKVER" --stage "$top/build/stage-rt") ;;
stock) args+=(--stage "$STAGE") ;;
*) usage ;;
esac
# Measured on 2 TCG cores: about 9,000 calls/s on Debian's kernel; on the
# debug kernel 10^6 calls took 3,635 s in the guest (275/s, test-bed
# changes included) and 3,680 s in all; plus boot and the final kmemleak
# scan.
if [ -z "$TIMEOUT" ]; then
	if [ "$KERNEL" = debug ]; then
		TIMEOUT=$((900 + CALLS / 200))
	else
		TIMEOUT=$((600 + CALLS / 2000))
	fi
fi
args+=(--timeout "$TIMEOUT" --mem "$MEM")
echo "fuzz: $CALLS calls, seed $SEED, on the $KERNEL kernel (guest timeout $TIMEOUT s)"
t0=$(date +%s)
# loglevel 3: the console shows errors and worse live (the fuzzer prints
# the warnings it finds itself); rxe's warnings would flood the serial line.
RAW_CMD="ib_async_fuzz --env --calls $CALLS --seed $SEED" \
IBASYNC_LOGLEVEL=3 IBASYNC_CONSOLE_LOG=$out/console.log \
	"$top/scripts/guest/vm.sh" "${args[@]}" >"$out/vm.out" 2>&1
vrc=$?
wall=$(($(date +%s) - t0))

log=$out/console.log
# The fuzzer's own lines (progress, reports and their excerpts).
tr -d '\r' <"$log" 2>/dev/null |
	sed -n '/@@IBASYNC_CMD_BEGIN@@/,/@@IBASYNC_CMD_END@@/p' |
	grep -a '^fuzz: ' >"$out/progress.txt"
grep -a -v -e '^fuzz: batch ' -e '^fuzz: [0-9]* calls, ' "$out/progress.txt"
closing=$(grep -a -E '^fuzz: [0-9]+ calls, [0-9]+ reports$' "$out/progress.txt" | tail -n 1)
fuzz_s=$(sed -n 's/^fuzz: \([0-9.]*\) s$/\1/p' "$out/progress.txt" | tail -n 1)

if [ -n "$closing" ]; then
	n=$(echo "$closing" | awk '{ print $2 }')
	r=$(echo "$closing" | awk '{ print $4 }')
else
	# The guest never got to the end: count the batches that did.
	last=$(grep -a '^fuzz: batch ' "$out/progress.txt" | tail -n 1)
	n=$(echo "$last" | sed -n 's/.*(\([0-9]*\) in all).*/\1/p')
	n=${n:-0}
	r=$(grep -a -c '^fuzz: REPORT ' "$out/progress.txt")
	running=$(echo "$last" | sed -n 's/^fuzz: batch \([0-9]*\)\/.*/\1/p')
	seed=$((SEED + ${running:-0} * 1000))
	r=$((r + 1))
	case $vrc in
	124) why="the guest timed out after $TIMEOUT s" ;;
	*) why="the guest died (vm.sh status $vrc)" ;;
	esac
	echo "fuzz: REPORT $r: seed $seed: $why in the batch after $n calls; kernel log:"
	"$top/scripts/guest/check-log.sh" "$log" | head -n 40 | sed 's/^/fuzz:   | /'
	tail -n 30 "$log" | sed 's/^/fuzz:   | /'
fi
# Trouble vm.sh saw in the guest's final dmesg that the fuzzer did not.
if [ -n "$closing" ] && [ "$r" = 0 ] && [ "$vrc" != 0 ]; then
	r=1
	echo "fuzz: REPORT 1: seed $SEED: vm.sh status $vrc after the fuzzer passed:"
	"$top/scripts/guest/check-log.sh" "$log" | head -n 40 | sed 's/^/fuzz:   | /'
fi
echo "fuzz: the fuzzer ran ${fuzz_s:-?} s in the guest on the $KERNEL kernel, ${wall} s wall in all; console: build/fuzz/console.log"
echo "fuzz: $n calls, $r reports"
[ "$r" = 0 ]
