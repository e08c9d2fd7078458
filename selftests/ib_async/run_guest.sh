#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the ib_async suite inside the test guest through the kernel's
# kselftest runner. `make install INSTALL_PATH=<dir>` puts this directory's
# files in <dir>/ib_async/ and the runner (run_kselftest.sh, kselftest/,
# kselftest-list.txt) in <dir>, as the kernel's own selftests install does.
# Before the runner: loads ib_async_storm.ko (load_module, ib_async_lib.sh),
# and with IB_ASYNC_REQUIRE=1 fails at once unless ib_async, its device and
# the storm module are there. Prints the runner's TAP and a summary; exits
# non-zero if a test failed.
#
#   sh run_guest.sh [TEST...]   default: every test in kselftest-list.txt,
#                               in its order (the Makefile's)
#   IB_ASYNC_SHUFFLE=SEED sh run_guest.sh [TEST...]
#                               the same tests in an order drawn from SEED
#                               (a number; "random": one from the clock),
#                               printed first so a failing order replays:
#                               every test leaves the modules and devices
#                               as it found them, so any order must pass
cd "$(dirname "$0")" || exit 1
. ./ib_async_lib.sh
PATH=$(pwd):$PATH
export PATH
root=$(cd .. && pwd)
collection=ib_async

[ -d /sys/kernel/debug/tracing ] || [ -n "$(ls /sys/kernel/debug 2>/dev/null)" ] ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
load_module ib_async_storm ||
	echo "# ib_async_storm not loaded: storm tests will skip"
[ -d /sys/module/ib_async ] || echo "# ib_async not loaded: most tests will skip"
# make check sets IB_ASYNC_REQUIRE=1: there, a suite that skips for want of
# the modules proves nothing and must fail.
if [ "${IB_ASYNC_REQUIRE:-0}" = 1 ] &&
   ! { [ -d /sys/module/ib_async ] && [ -d /sys/module/ib_async_storm ] &&
       [ -e /dev/infiniband/ib_async0 ]; }; then
	echo "not ok 1 selftests: $collection: modules and device present"
	exit 1
fi
if [ ! -r "$root/run_kselftest.sh" ]; then
	echo "not ok 1 selftests: $collection: no $root/run_kselftest.sh" \
		"(make install INSTALL_PATH=$root)"
	exit 1
fi

# shuffle SEED: stdin's lines in an order drawn from SEED. Park-Miller's
# generator, exact in any awk's doubles: one seed, one order, whichever
# awk the guest has.
shuffle() {
	awk -v seed="$1" '
		BEGIN {
			x = seed % 2147483646 + 1
			# a small seed starts small: stir before drawing
			for (i = 0; i < 16; i++)
				x = (x * 16807) % 2147483647
		}
		{ x = (x * 16807) % 2147483647; printf "%d %s\n", x, $0 }' |
		sort -n | cut -d' ' -f2-
}

if [ "$#" = 0 ]; then
	tests=$(cut -d: -f2- "$root/kselftest-list.txt")
else
	tests=$(printf '%s\n' "$@")
fi
seed=${IB_ASYNC_SHUFFLE:-}
if [ "$seed" = random ]; then
	seed=$(($(date +%s) % 1000000))
fi
if [ -n "$seed" ]; then
	case $seed in
	*[!0-9]*) echo "not ok 1 selftests: $collection: IB_ASYNC_SHUFFLE=$seed is not a number"
		exit 1 ;;
	esac
	tests=$(echo "$tests" | shuffle "$seed")
	echo "# shuffled with seed $seed (replay: IB_ASYNC_SHUFFLE=$seed):" \
		"$(echo "$tests" | tr '\n' ' ')"
fi
only=
if [ "$#" != 0 ] || [ -n "$seed" ]; then
	for t in $tests; do
		only="$only -t $collection:$t"
	done
fi
tap=$(mktemp)
# The runner exits 0 whatever the tests did: the verdict is in its TAP.
# shellcheck disable=SC2086 # $only: one word per option
{ sh "$root/run_kselftest.sh" $only; echo "$?" >"$tap.rc"; } | tee "$tap"
rc=$(cat "$tap.rc")
awk -v rc="$rc" -v c="$collection" '
	/^ok / { if (/# SKIP/) skip++; else pass++ }
	/^not ok / { fail++ }
	END {
		printf "# %s: pass %d, fail %d, skip %d\n", c, pass, fail, skip
		exit !(rc == 0 && fail == 0 && pass + skip > 0)
	}' "$tap"
rc=$?
rm -f "$tap" "$tap.rc"
exit "$rc"
