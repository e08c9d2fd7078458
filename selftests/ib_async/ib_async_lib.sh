# SPDX-License-Identifier: GPL-2.0
# Shared by the ib_async shell selftests (sourced, POSIX sh).
# shellcheck shell=sh

ksft_pass=0
ksft_fail=1
ksft_skip=4

IB_ASYNC_IBDEV=${IB_ASYNC_IBDEV:-rxe0}
IB_ASYNC_NETDEV=${IB_ASYNC_NETDEV:-veth0}
IB_ASYNC_PEER=${IB_ASYNC_PEER:-veth1}
STORM=/sys/kernel/debug/ib_async_storm/dispatch

failures=0
ntests=0

log() { echo "# $*"; }
ok() { ntests=$((ntests + 1)); echo "ok $ntests $*"; }
not_ok() {
	ntests=$((ntests + 1)); failures=$((failures + 1))
	echo "not ok $ntests $*"
}
skip_all() { echo "1..0 # SKIP $*"; exit $ksft_skip; }
check() { # check NAME CMD...: one TAP line for the outcome of CMD
	name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
finish() {
	echo "1..$ntests"
	[ "$failures" -eq 0 ] && exit $ksft_pass
	exit $ksft_fail
}

# The ib_async node whose ibdev is $IB_ASYNC_IBDEV (else the first one).
find_node() {
	first=
	for d in /sys/class/ib_async/ib_async*; do
		[ -e "$d/ibdev" ] || continue
		[ -n "$first" ] || first=/dev/infiniband/${d##*/}
		if [ "$(cat "$d/ibdev")" = "$IB_ASYNC_IBDEV" ]; then
			echo "/dev/infiniband/${d##*/}"
			return 0
		fi
	done
	[ -n "$first" ] && echo "$first"
}

# wait_for SECONDS CMD...: retry CMD every 0.2 s.
wait_for() {
	tries=$(($1 * 5)); shift
	while [ "$tries" -gt 0 ]; do
		"$@" && return 0
		sleep 0.2
		tries=$((tries - 1))
	done
	return 1
}

# Whether process $1 has an fd open on an ib_async node / on uverbs.
has_fd_on() {
	for f in /proc/"$1"/fd/*; do
		case $(readlink "$f" 2>/dev/null) in
		"$2"*) return 0 ;;
		esac
	done
	return 1
}

file_has() { grep -q "$2" "$1" 2>/dev/null; }

# module_ko NAME: the .ko of ib_async or of a test module: the one the
# environment names ($IB_ASYNC_KO, $IB_ASYNC_STORM_KO, $IB_ASYNC_EVSRC_KO),
# else where make stage puts it in the test guest, else ./NAME.ko.
module_ko() {
	case $1 in
	ib_async) mk_env=${IB_ASYNC_KO:-} mk_dir=/usr/lib/ib_async ;;
	ib_async_storm) mk_env=${IB_ASYNC_STORM_KO:-} mk_dir=/usr/lib/ib_async/test ;;
	ib_async_evsrc) mk_env=${IB_ASYNC_EVSRC_KO:-} mk_dir=/usr/lib/ib_async/test ;;
	*) return 1 ;;
	esac
	for mk_ko in "$mk_env" "$mk_dir/$1.ko" "./$1.ko"; do
		[ -n "$mk_ko" ] && [ -r "$mk_ko" ] && echo "$mk_ko" && return 0
	done
	return 1
}

# load_module NAME...: every module loaded, the one place that loads them
# (the guest's /init, the tests, the benchmark). ib_async and the test
# modules by insmod of module_ko's file, after modprobe of what it depends
# on; the kernel's own modules (rdma_rxe, veth...) by modprobe. Loaded ones
# are left alone. Non-zero if one could not be loaded (the failing command
# says why on stderr); the others are still tried.
load_module() {
	lm_rc=0
	for lm_name in "$@"; do
		[ -d "/sys/module/$lm_name" ] && continue
		case $lm_name in
		ib_async | ib_async_storm | ib_async_evsrc)
			if ! lm_ko=$(module_ko "$lm_name"); then
				echo "load_module: no $lm_name.ko found" >&2
				lm_rc=1
				continue
			fi
			for lm_dep in $(modinfo -F depends "$lm_ko" 2>/dev/null | tr ',' ' '); do
				modprobe "$lm_dep" || lm_rc=1
			done
			insmod "$lm_ko" || lm_rc=1 ;;
		*)
			modprobe "$lm_name" || lm_rc=1 ;;
		esac
	done
	return $lm_rc
}

storm_load() {
	[ -w "$STORM" ] || load_module ib_async_storm 2>/dev/null
	[ -w "$STORM" ]
}

storm() { # storm TYPE COUNT
	echo "$IB_ASYNC_IBDEV $1 1 $2" > "$STORM"
}

# Memory accounting for leak checks. KASAN's quarantine keeps freed objects
# in slab, so Slab deltas mean nothing there (kmemleak decides instead).
kasan_quarantine() { grep -q ' kasan_quarantine_put$' /proc/kallsyms 2>/dev/null; }
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
settle() {
	sync
	echo 3 > /proc/sys/vm/drop_caches 2>/dev/null
	sleep 1
}
within() { # within BASE NOW TOL: NOW - BASE <= TOL
	log "delta $(($2 - $1)) kB (tolerance $3 kB)"
	[ $(($2 - $1)) -le "$3" ]
}
