# SPDX-License-Identifier: GPL-2.0
# The test bed's module loader (sourced, POSIX sh): the guest's /init and
# everything that runs in the guest (the selftests through ib_async_lib.sh,
# the benchmark) load ib_async, its test modules and the kernel's own
# modules with it. build-initramfs.sh puts it in the guest's base image
# as /usr/lib/ib_async/guest/ib_async_modules.sh; the selftests install a
# copy beside their ib_async_lib.sh.
# shellcheck shell=sh

# module_ko NAME: the .ko of ib_async or of a test module: the one the
# environment names ($IB_ASYNC_KO, $IB_ASYNC_STORM_KO, $IB_ASYNC_EVSRC_KO,
# $IB_ASYNC_STRICT_KO, $IB_ASYNC_FLOOR_KO),
# else where make stage puts it in the test guest, else ./NAME.ko.
# Returns 1 if none is found, 2 if NAME is none of ours (this list is the
# only one: load_module asks it).
module_ko() {
	case $1 in
	ib_async) mk_env=${IB_ASYNC_KO:-} mk_dir=/usr/lib/ib_async ;;
	ib_async_storm) mk_env=${IB_ASYNC_STORM_KO:-} mk_dir=/usr/lib/ib_async/test ;;
	ib_async_evsrc) mk_env=${IB_ASYNC_EVSRC_KO:-} mk_dir=/usr/lib/ib_async/test ;;
	ib_async_strict) mk_env=${IB_ASYNC_STRICT_KO:-} mk_dir=/usr/lib/ib_async/test ;;
	ib_async_floor) mk_env=${IB_ASYNC_FLOOR_KO:-} mk_dir=/usr/lib/ib_async/test ;;
	*) return 2 ;;
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
		lm_ko=$(module_ko "$lm_name")
		case $? in
		0)
			for lm_dep in $(modinfo -F depends "$lm_ko" 2>/dev/null | tr ',' ' '); do
				modprobe "$lm_dep" || lm_rc=1
			done
			insmod "$lm_ko" || lm_rc=1 ;;
		1)
			echo "load_module: no $lm_name.ko found" >&2
			lm_rc=1 ;;
		*)
			modprobe "$lm_name" || lm_rc=1 ;;
		esac
	done
	return $lm_rc
}
