#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the whole ib_async suite inside the test guest, from the directory
# `make install INSTALL_PATH=...` filled (plus ib_async_storm.ko, if not
# installed at /usr/lib/ib_async/test/). Prints TAP; exits non-zero if a
# test failed. The lifetime test unloads ib_async and runs last.
#
#   sh run_guest.sh [TEST...]      default: every test, in the order below
cd "$(dirname "$0")" || exit 1
PATH=$(pwd):$PATH
export PATH

TESTS=${*:-"ib_async_ioctl_test ib_async_queue_test ib_async_overflow_test
	ib_async_events_test ib_async_objects_test ib_async_datapath_test
	ib_async_batch_test ib_async_security_test
	ib_async_shim_test ib_async_shim_objects_test
	ib_async_asyncwatch.sh ib_async_pingpong.sh
	ib_async_affiliated_test ib_async_evsrc_test ib_async_dp_stress
	ib_async_netlink_test
	ib_async_watch.sh
	ib_async_unplug.sh
	ib_async_lifetime.sh"}
TIMEOUT=$(sed -n 's/^timeout=//p' settings 2>/dev/null)
TIMEOUT=${TIMEOUT:-600}

[ -d /sys/kernel/debug/tracing ] || [ -n "$(ls /sys/kernel/debug 2>/dev/null)" ] ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
if [ ! -d /sys/module/ib_async_storm ]; then
	for ko in "${IB_ASYNC_STORM_KO:-}" /usr/lib/ib_async/test/ib_async_storm.ko \
		  ./ib_async_storm.ko; do
		[ -n "$ko" ] && [ -r "$ko" ] && insmod "$ko" && break
	done
fi
[ -d /sys/module/ib_async_storm ] || echo "# ib_async_storm not loaded: storm tests will skip"
[ -d /sys/module/ib_async ] || echo "# ib_async not loaded: most tests will skip"
# make check sets IB_ASYNC_REQUIRE=1: there, a suite that skips for want of
# the modules proves nothing and must fail.
if [ "${IB_ASYNC_REQUIRE:-0}" = 1 ] &&
   ! { [ -d /sys/module/ib_async ] && [ -d /sys/module/ib_async_storm ] &&
       [ -e /dev/infiniband/ib_async0 ]; }; then
	echo "not ok 1 selftests: ib_async: modules and device present"
	exit 1
fi

n=0
for t in $TESTS; do n=$((n + 1)); done
echo "TAP version 13"
echo "1..$n"
i=0 pass=0 fail=0 skip=0
for t in $TESTS; do
	i=$((i + 1))
	echo "# selftests: ib_async: $t"
	if [ ! -e "./$t" ]; then
		echo "ok $i selftests: ib_async: $t # SKIP not built"
		skip=$((skip + 1))
		continue
	fi
	case $t in
	*.sh) cmd="sh ./$t" ;;
	*) cmd="./$t" ;;
	esac
	if command -v timeout >/dev/null; then
		cmd="timeout $TIMEOUT $cmd"
	fi
	# every line of the test's output becomes a TAP comment
	{ $cmd 2>&1; echo "rc=$?" > /tmp/ib_async_rc.$$; } | sed 's/^/# /'
	rc=$(sed -n 's/^rc=//p' /tmp/ib_async_rc.$$)
	rm -f /tmp/ib_async_rc.$$
	case $rc in
	0) echo "ok $i selftests: ib_async: $t"; pass=$((pass + 1)) ;;
	4) echo "ok $i selftests: ib_async: $t # SKIP"; skip=$((skip + 1)) ;;
	124) echo "not ok $i selftests: ib_async: $t # TIMEOUT $TIMEOUT seconds"
	     fail=$((fail + 1)) ;;
	*) echo "not ok $i selftests: ib_async: $t # exit=$rc"; fail=$((fail + 1)) ;;
	esac
done
echo "# ib_async: pass $pass, fail $fail, skip $skip"
[ "$fail" -eq 0 ]
