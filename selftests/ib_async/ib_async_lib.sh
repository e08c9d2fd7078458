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

# load_module and module_ko, the one way any module is loaded: the test
# bed's (scripts/guest/ib_async_modules.sh), which the guest's base image
# has under /usr/lib/ib_async/guest and the selftests install beside this
# file (for a test host that is not the guest).
for iba_mods in /usr/lib/ib_async/guest/ib_async_modules.sh \
		./ib_async_modules.sh; do
	if [ -r "$iba_mods" ]; then
		# shellcheck source=../../scripts/guest/ib_async_modules.sh
		. "$iba_mods"
		break
	fi
done

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

# roce_gid_index IBDEV: the index of the RoCE v2 GID of the test bed's
# IPv4 address on port 1 (what rdma-core's examples and perftest take as
# -g/-x); non-zero if there is none.
roce_gid_index() {
	rg_d=/sys/class/infiniband/$1/ports/1
	for rg_i in $(seq 0 15); do
		[ "$(cat "$rg_d/gid_attrs/types/$rg_i" 2>/dev/null)" = "RoCE v2" ] ||
			continue
		case $(cat "$rg_d/gids/$rg_i") in
		0000:0000:0000:0000:0000:ffff:*) echo "$rg_i"; return 0 ;;
		esac
	done
	return 1
}

# hide_uverbs DIR [NODE...]: /dev/infiniband overlaid (bind mount) with
# copies of the ib_async nodes alone, made (again) in DIR, so that a program
# that went to ib_uverbs behind the shim could not open the device at all;
# the NODEs named (rdma_cm, for librdmacm's programs) are kept too. Non-zero
# if there is no ib_async node, the mount failed or uverbs0 stayed visible
# (then nothing is left mounted). show_uverbs undoes it.
hide_uverbs() {
	mkdir -p "$1" || return 1
	hu_dir=$1
	shift
	for hu_n in "$@"; do
		hu_n=/dev/infiniband/$hu_n
		hu_maj=$(stat -c %t "$hu_n") hu_min=$(stat -c %T "$hu_n") || return 1
		rm -f "$hu_dir/${hu_n##*/}"
		mknod -m 666 "$hu_dir/${hu_n##*/}" c $((0x$hu_maj)) $((0x$hu_min)) ||
			return 1
	done
	set -- "$hu_dir"
	hu_any=
	for hu_n in /dev/infiniband/ib_async*; do
		[ -e "$hu_n" ] || continue
		hu_maj=$(stat -c %t "$hu_n") hu_min=$(stat -c %T "$hu_n")
		rm -f "$1/${hu_n##*/}"
		mknod -m 666 "$1/${hu_n##*/}" c $((0x$hu_maj)) $((0x$hu_min)) ||
			return 1
		hu_any=1
	done
	[ -n "$hu_any" ] || return 1
	mount -o bind "$1" /dev/infiniband || return 1
	[ ! -e /dev/infiniband/uverbs0 ] && return 0
	umount /dev/infiniband
	return 1
}
show_uverbs() { umount /dev/infiniband; }

# tcp_listening PORT: whether a TCP socket listens on PORT (IPv4)
tcp_listening() {
	grep -qi ":$(printf '%04X' "$1") 00000000:0000 0A" /proc/net/tcp
}

# perftest_pair DIR NAME PORT PRELOAD TOOL ARGS...: one perftest TOOL
# (ib_send_bw, ib_write_lat...) as server and client, two processes on
# $IB_ASYNC_IBDEV over its RoCE v2 GID, LD_PRELOAD=PRELOAD in both; their
# output in DIR/NAME.server and DIR/NAME.client. 0 if both exited 0.
# -F: the guest has no cpufreq, which perftest would otherwise refuse.
# perftest times with the TSC, which QEMU does not keep in step across
# vCPUs: each process stays on one CPU (the server on 1, the client on 0)
# so that its own timestamps compare.
perftest_pair() {
	pp_dir=$1 pp_name=$2 pp_port=$3 pp_pre=$4
	shift 4
	pp_g=$(roce_gid_index "$IB_ASYNC_IBDEV") || return 1
	pp_srv='' pp_cli=''
	[ "$(nproc)" -ge 2 ] && pp_srv='taskset -c 1' pp_cli='taskset -c 0'
	# shellcheck disable=SC2086 # $pp_srv: the command and its arguments
	LD_PRELOAD=$pp_pre timeout 300 $pp_srv "$@" -d "$IB_ASYNC_IBDEV" \
		-x "$pp_g" -p "$pp_port" -F >"$pp_dir/$pp_name.server" 2>&1 &
	pp_spid=$!
	if ! wait_for 15 tcp_listening "$pp_port"; then
		kill "$pp_spid" 2>/dev/null
		wait "$pp_spid"
		return 1
	fi
	# shellcheck disable=SC2086 # $pp_cli: the command and its arguments
	LD_PRELOAD=$pp_pre timeout 300 $pp_cli "$@" -d "$IB_ASYNC_IBDEV" \
		-x "$pp_g" -p "$pp_port" -F 127.0.0.1 >"$pp_dir/$pp_name.client" 2>&1
	pp_crc=$?
	wait "$pp_spid"
	pp_src=$?
	[ "$pp_src" = 0 ] && [ "$pp_crc" = 0 ]
}

# perftest_row FILE: the result row of a perftest report, the line under
# its "#bytes" header: bytes, iterations, then the tool's figures (bw:
# peak and average MB/s, Mpps; lat: min, max, typical, avg, stdev, 99%
# and 99.9% in us).
perftest_row() {
	awk '/#bytes/ { if ((getline r) > 0) print r; exit }' "$1"
}

# For the tests of unmodified rdma-core programs over the shim alone.
# shim_only_begin PROGRAM: skips the test unless there is an ib_async node,
# PROGRAM, root, a shim that preloads ($SHIM) and a RoCE v2 GID; then
# makes $tmp (removed at exit), notes the device's QPs ($qps_before) and
# overlays /dev/infiniband with the ib_async nodes alone (hide_uverbs,
# undone at exit), one TAP line saying whether that worked.
# shim_only_end: the TAP line that no QP was left behind, then the plan.
device_qps() { rdma resource show qp | grep -c "link $IB_ASYNC_IBDEV/"; }
shim_only_begin() {
	[ -n "$(find_node)" ] || skip_all "no ib_async device"
	command -v "$1" >/dev/null || skip_all "$1 not installed"
	[ "$(id -u)" = 0 ] || skip_all "needs root"
	SHIM=${IB_ASYNC_SHIM:-libibasync.so.1}
	LD_PRELOAD=$SHIM /bin/true 2>&1 | grep -q . &&
		skip_all "cannot preload $SHIM"
	roce_gid_index "$IB_ASYNC_IBDEV" >/dev/null ||
		skip_all "no RoCE v2 IPv4 GID on $IB_ASYNC_IBDEV"
	tmp=$(mktemp -d)
	so_mounted=
	trap shim_only_cleanup EXIT
	qps_before=$(device_qps)
	hide_uverbs "$tmp/dev" && so_mounted=1
	check "uverbs_nodes_hidden" test -n "$so_mounted"
}
shim_only_cleanup() {
	[ -n "$so_mounted" ] && show_uverbs
	rm -rf "$tmp"
}
shim_only_end() {
	so_after=$(device_qps)
	log "QPs on $IB_ASYNC_IBDEV: $qps_before before, $so_after after"
	check "no_qp_left_behind" test "$so_after" = "$qps_before"
	finish
}

# watch_begin: what every ib_async_watch test starts with: it skips
# without the module, a node, the watcher, root or the peer netdev, and
# gets $tmp, removed at exit with the peer set up again (tests flap it).
watch_begin() {
	[ -d /sys/class/ib_async ] || skip_all "ib_async not loaded"
	[ -n "$(find_node)" ] || skip_all "no ib_async device"
	command -v ib_async_watch >/dev/null ||
		skip_all "ib_async_watch not installed"
	[ "$(id -u)" = 0 ] || skip_all "needs root"
	ip link show "$IB_ASYNC_PEER" >/dev/null 2>&1 ||
		skip_all "no $IB_ASYNC_PEER"
	tmp=$(mktemp -d)
	trap 'ip link set "$IB_ASYNC_PEER" up; rm -rf "$tmp"' EXIT
}

# watch_started PID: whether watcher PID has its node open yet
watch_started() { has_fd_on "$1" /dev/infiniband/ib_async; }
