#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Guest side of `make rdmacm-test`, run in /payload (rdmacm-test.sh's
# bin/ and lib/): Debian's rdmacm-utils examples and perftest's verbs
# tools with -R, unmodified, server and client on rxe0's 10.11.0.1, first
# on rdma-core + ib_uverbs ("uverbs"), then with libibasync preloaded and
# /dev/infiniband overlaid with the ib_async nodes and rdma_cm alone
# ("shim"), as a user of the shim runs them.
#
# On the console, for report.sh on the host, one line per program and stack:
#   @@RDMACM STACK NAME STATUS SECONDS server=RC client=RC data=DIGEST
# STATUS: ok, fail (an exit status that is not the expected one) or hang
# (killed after its time: the tasks' states, kernel stacks and wait
# channels are printed first, as "# STACK NAME: " lines, with the output of
# every program that did not pass). DIGEST: what the programs moved
# (rping -v's ping data, rcopy's copied file...), compared across stacks
# by report.sh; "-" where a program prints nothing that is its data.
# "@@RDMACM STACK done" closes a stack that ran to its end.
SHIM=${IB_ASYNC_SHIM:-libibasync.so.1}
DEV=${IBASYNC_RXE:-rxe0}
NETDEV=veth0
IP=10.11.0.1
TMO=${RDMACM_TIMEOUT:-60}
export PATH="/payload/bin:$PATH"
# libgcc_s, which glibc's pthread_exit() and pthread_cancel() dlopen
export LD_LIBRARY_PATH=/payload/lib
# hide_uverbs, roce_gid_index, wait_for: the selftests' shell library
# shellcheck source=../ib_async_lib.sh
. /usr/lib/ib_async/selftests/ib_async/ib_async_lib.sh
IB_ASYNC_IBDEV=$DEV
work=/tmp/rdmacm
mkdir -p "$work"

uptime_s() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }'; }

# cm_listening PORT: an rdma_cm ID listens on PORT, the server is ready
# for its client (bound is not enough: a connect that comes between
# rdma_bind_addr() and rdma_listen() is rejected, "invalid service ID");
# `rdma resource show cm_id` asks the kernel through netlink, the same on
# both stacks.
cm_listening() {
	rdma resource show cm_id 2>/dev/null | grep 'state LISTEN' |
		grep -q "src-addr [^ ]*:$1 "
}

# mc_joined GROUP N: the IPv4 GROUP has at least N users on $NETDEV
mc_joined() {
	[ "$(ip maddr show dev "$NETDEV" | awk -v g="$1" '
		$2 == g {	# iproute2 prints "users N" only when N > 1
			n = 1
			for (i = 3; i < NF; i++) if ($i == "users") n = $(i + 1)
		}
		END { print n + 0 }')" -ge "$2" ]
}

# alive PID: the process runs (a zombie does not count)
alive() {
	[ -e "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null
}

# dump PID WHO: what the process's tasks wait for, for a hang's report
dump() {
	for dt in /proc/"$1"/task/*; do
		[ -d "$dt" ] || continue
		echo "$2 task ${dt##*/}: $(cut -d' ' -f2,3 "$dt/stat" 2>/dev/null)" \
			"wchan=$(cat "$dt/wchan" 2>/dev/null)" \
			"syscall=$(cut -d' ' -f1-3 "$dt/syscall" 2>/dev/null)"
		sed "s/^/$2   /" "$dt/stack" 2>/dev/null
	done
}

# wait_pid PID SECONDS: wait up to SECONDS for PID to end; 0 if it did
wait_pid() {
	wp_n=$(($2 * 10))
	while [ "$wp_n" -gt 0 ]; do
		alive "$1" || return 0
		sleep 0.1
		wp_n=$((wp_n - 1))
	done
	return 1
}

# finish_pid PID: its exit status (the shell's wait)
finish_pid() { wait "$1"; }

# pair NAME MODE PORT DATA SERVER CLIENT...: the SERVER command (one
# string, in the background) and then the CLIENT command (the rest), both
# under LD_PRELOAD=$pre. MODE "exits": the server must exit 0 by itself
# after its client; "daemon": it serves until killed (rcopy, udpong,
# cmtime), and must still be running when its client is done. PORT: the
# client starts once an rdma_cm ID listens there; "sleep:N", after N s;
# "-", after 2 s; "mcast:GROUP:N", once the server's rdma_cm has joined
# GROUP N times (veth0's IP membership, which the kernel's rdma_cm takes
# before it reports the join), and 2 s more for librdmacm's attach that
# follows the event. $cpre, when set: one more library preloaded into the
# client alone (mckey_drain.so). DATA: a
# shell function printing what the programs moved ("-": none). Prints the
# @@RDMACM line.
pair() {
	retried=0
	try "$@" && return
	case " $RACY " in *" $1 "*) ;; *) return ;; esac
	retried=1
	echo "# $stack $1: once more (its own race, RACY)"
	try "$@"
}

# Programs with a race of their own, run a second time when the first
# fails (the @@RDMACM line then says retried=1; report.sh shows it):
# rping's server may read its event channel after its other thread
# closed it at the end ("rdma_get_cm_event: Bad file descriptor", seen on
# uverbs); perftest -R's client
# connects its data QPs as soon as the parameters are exchanged, and is
# rejected ("invalid service ID") when the server has not listened again
# yet, after which its retry crashes in librdmacm (seen on both stacks).
RACY="rping_64k rping ib_send_bw_R ib_write_bw_R ib_read_bw_R"
RACY="$RACY ib_send_lat_R ib_write_lat_R ib_read_lat_R"

# try: one run of pair's arguments; 0 if it passed
try() {
	name=$1 mode=$2 port=$3 data=$4 server=$5
	shift 5
	t0=$(uptime_s)
	out=$work/$stack.$name
	rm -f "$out".*
	# shellcheck disable=SC2086 # $server: the command and its arguments
	LD_PRELOAD=$pre $server >"$out.server" 2>&1 &
	spid=$!
	case $port in
	-) sleep 2 ;;
	sleep:*) sleep "${port#sleep:}" ;;
	mcast:*)
		mc=${port#mcast:}
		if wait_for 20 mc_joined "${mc%:*}" "${mc#*:}"; then
			echo "# $stack $name: ${mc#*:} joins of ${mc%:*} after $(since "$t0") s"
		else
			echo "# $stack $name: ${mc#*:} joins of ${mc%:*} not seen:"
			ip maddr show dev "$NETDEV" | sed "s|^|# $stack $name:   |"
		fi
		sleep 2 ;;
	*)
		wait_for 20 cm_listening "$port" || {
			echo "# $stack $name: no listener on $port seen:"
			rdma resource show cm_id | sed "s|^|# $stack $name:   |"
		} ;;
	esac
	LD_PRELOAD="$pre${cpre:+ $cpre}" "$@" >"$out.client" 2>&1 &
	cpid=$!
	status=ok
	if ! wait_pid "$cpid" "$TMO"; then
		status=hang
		echo "client hung:" >>"$out.diag"
		dump "$cpid" client >>"$out.diag"
		alive "$spid" && dump "$spid" server >>"$out.diag"
		kill -9 "$cpid"
	fi
	finish_pid "$cpid"
	crc=$?
	if [ "$mode" = daemon ]; then
		if alive "$spid"; then
			kill "$spid"
			src=0
		else
			src=dead
		fi
		finish_pid "$spid"
	else
		# a server whose client failed may wait for it forever
		swait=20
		[ "$status" = ok ] && [ "$crc" != 0 ] && swait=3
		if ! wait_pid "$spid" "$swait"; then
			[ "$status" = hang ] || [ "$swait" = 3 ] || {
				status=hang
				echo "server hung:" >>"$out.diag"
				dump "$spid" server >>"$out.diag"
			}
			kill -9 "$spid"
		fi
		finish_pid "$spid"
		src=$?
	fi
	[ "$status" = ok ] && { [ "$crc" != 0 ] || [ "$src" != 0 ]; } &&
		status=fail
	digest=-
	if [ "$data" != - ]; then
		"$data" "$out" >"$out.data" 2>&1
		digest=$(md5sum <"$out.data" | cut -c1-12)
	fi
	echo "@@RDMACM $stack $name $status $(since "$t0") server=$src client=$crc retried=$retried data=$digest"
	# what it moved, for a look when the digests differ
	[ -f "$out.data" ] && head -n 8 "$out.data" | sed "s|^|# $stack $name data: |"
	if [ "$status" != ok ]; then
		for f in "$out.diag" "$out.server" "$out.client"; do
			[ -f "$f" ] || continue
			tail -n 60 "$f" | sed "s|^|# $stack $name ${f##*.}: |"
		done
	fi
	# a daemon's or a killed program's IDs must be gone before the next
	wait_for 10 sh -c "! rdma resource show cm_id 2>/dev/null | grep -q ." || true
	[ "$status" = ok ]
}

# What each program moved, where it says so.
ping_data() { grep -h 'ping data' "$1.client" "$1.server"; }
copied() { md5sum </tmp/rdmacm/copy.dst; }
# the receiver's joins and whether its transfers completed (all of them:
# it polls each joined QP for every message), errors included
mckey_data() {
	grep -hE 'joined|receiving|complete|error|fail' "$1.server"
}
perf_rows() {	# the iterations column of perftest's result row, not timings
	awk '/#bytes/ { if ((getline r) > 0) { split(r, f); print f[1], f[2] }; exit }' \
		"$1.client"
}

# The programs, each with the options it is most used with; several
# connections, counts and sizes; -P ib where rxe allows it.
run_stack() {
	stack=$1 pre=${2:-}
	stack_t0=$(uptime_s)
	pair rping exits 7001 ping_data "rping -s -a $IP -p 7001 -C 10 -S 64 -v -V" \
		rping -c -a $IP -p 7001 -C 10 -S 64 -v -V
	pair rping_64k exits 7002 - "rping -s -a $IP -p 7002 -C 20 -S 65000 -V" \
		rping -c -a $IP -p 7002 -C 20 -S 65000 -V
	pair ucmatose exits 7003 - "ucmatose -b $IP -p 7003 -c 2 -C 20 -S 1000" \
		ucmatose -s $IP -p 7003 -c 2 -C 20 -S 1000
	pair ucmatose_ib exits 7004 - "ucmatose -b $IP -p 7004 -P ib -C 10" \
		ucmatose -s $IP -p 7004 -P ib -C 10
	pair udaddy exits 7174 - "udaddy -b $IP -c 2 -C 10 -S 100" \
		udaddy -s $IP -c 2 -C 10 -S 100
	# two receiving QPs; mckey exits 0 even when its join fails (its
	# status is the leave's): what the receiver says is its data. Its
	# output is buffered until it exits, so its two joins are waited for
	# in the kernel (mcast:). The sender leaves and destroys its QP right
	# after posting its messages unsignaled, which on rxe >= 6.4 loses
	# those its send work has not reached: mckey_drain.so makes its leave
	# wait until rxe0 stops sending (mckey_drain.c), on both stacks.
	cpre=/payload/lib/mckey_drain.so
	pair mckey exits mcast:239.1.1.7:2 mckey_data "mckey -m 239.1.1.7 -b $IP -c 2 -C 10" \
		mckey -m 239.1.1.7 -b $IP -s -C 10
	cpre=
	pair rdma_client exits 7005 - "rdma_server -s $IP -p 7005" \
		rdma_client -s $IP -p 7005
	pair rdma_xclient exits 7006 - "rdma_xserver -p 7006 -c r" \
		rdma_xclient -s $IP -p 7006 -c r
	pair rdma_xclient_xrc exits 7007 - "rdma_xserver -p 7007 -c x" \
		rdma_xclient -s $IP -p 7007 -c x
	pair rstream exits 7008 - "rstream -b $IP -p 7008 -I 10 -C 20 -S 1000 -T v" \
		rstream -s $IP -p 7008 -I 10 -C 20 -S 1000 -T v
	# not -T a: its do_poll() fails on POLLIN|POLLHUP when the server's
	# disconnect beats the client's last receive, on every run of 6.12
	# and 7.3 on both stacks (Documentation/ib_async.rst)
	pair rstream_nonblock exits 7009 - "rstream -b $IP -p 7009 -I 5 -C 10 -S 65536 -T n" \
		rstream -s $IP -p 7009 -I 5 -C 10 -S 65536 -T n
	pair riostream exits 7010 - "riostream -b $IP -p 7010 -I 10 -C 10 -S 4096 -T v" \
		riostream -s $IP -p 7010 -I 10 -C 10 -S 4096 -T v
	rm -f "$work/copy.dst"
	pair rcopy daemon 7011 copied "rcopy -p 7011" \
		rcopy "$work/copy.src" "$IP:$work/copy.dst" -p 7011
	pair cmtime daemon 7012 - "cmtime -b $IP -p 7012" \
		cmtime -s $IP -p 7012 -c 10
	# a datagram rsocket binds no rdma_cm ID before its first peer
	pair udpong daemon - - "udpong -b $IP -p 7013" \
		udpong -s $IP -p 7013 -C 100 -S 100
	g=$(roce_gid_index "$DEV")
	n=7020
	for t in ib_send_bw ib_write_bw ib_read_bw ib_send_lat ib_write_lat ib_read_lat; do
		n=$((n + 1))
		pair "${t}_R" exits "$n" perf_rows \
			"$t -d $DEV -x $g -R -p $n -n 100 -F" \
			"$t" -d "$DEV" -x "$g" -R -p $n -n 100 -F $IP
	done
	echo "@@RDMACM $stack done $(since "$stack_t0")"
}

modprobe rdma_ucm || { echo "rdmacm: cannot load rdma_ucm"; exit 1; }
# A program that crashes fails here by its exit status; the kernel need
# not log it ("traps: ... general protection fault" reads as a kernel
# problem to vm.sh, which would fail the whole run for perftest's crash).
echo 0 >/proc/sys/debug/exception-trace 2>/dev/null
[ -c /dev/infiniband/rdma_cm ] || { echo "rdmacm: no /dev/infiniband/rdma_cm"; exit 1; }
rdma resource show cm_id >/dev/null 2>&1 || echo "rdmacm: no cm_id resources (sleeping instead)"
echo "rdmacm: $DEV, $IP, $TMO s per program"
# rcopy's file, the same for both stacks: made on the host. A read of
# /dev/urandom here ran into the kernel patching it as its CRNG became
# ready (the crng_is_ready static key): under TCG the other vCPU can run
# the int3 of the patch ("Oops: int3" in urandom_read_iter on 7.3).
cp /payload/copy.src "$work/copy.src"
run_stack uverbs

# Only the ib_async nodes and rdma_cm stay visible under /dev/infiniband.
hide_uverbs /tmp/rdmacm/dev rdma_cm || { echo "rdmacm: cannot hide the uverbs nodes"; exit 1; }
if LD_PRELOAD=$SHIM /bin/true 2>&1 | grep -q .; then
	echo "rdmacm: cannot preload $SHIM"
	exit 1
fi
run_stack shim "$SHIM"

# unplug: the device removed (rdma link delete) under a connected rping
# and the probe (rdmacm_unplug.c), all over the shim: librdmacm must see
# RDMA_CM_EVENT_DEVICE_REMOVAL and ibv_get_async_event() DEVICE_FATAL,
# the delete must not wait for the programs, and both rping sides must
# end. Over the shim only, and last (the device is gone after it): rxe
# cannot disassociate from ib_uverbs, whose delete waits for every
# process holding the device (REFERENCE.md 2).
unplug() {
	out=$work/unplug
	t0=$(uptime_s)
	LD_PRELOAD=$SHIM rping -s -a $IP -p 7060 -C 100000 -S 64 >"$out.server" 2>&1 &
	spid=$!
	wait_for 20 cm_listening 7060 || sleep 1
	LD_PRELOAD=$SHIM rping -c -a $IP -p 7060 -C 100000 -S 64 -V >"$out.client" 2>&1 &
	cpid=$!
	LD_PRELOAD=$SHIM rdmacm_unplug $IP 7061 >"$out.probe" 2>&1 &
	ppid=$!
	wait_for 20 grep -q ready "$out.probe"
	sleep 2	# rping pings for a while
	timeout 60 rdma link delete "$DEV"
	drc=$?
	status=ok why=
	[ "$drc" = 0 ] || { status=fail why="$why delete=$drc"; }
	for p in "$ppid:probe" "$cpid:client" "$spid:server"; do
		if ! wait_pid "${p%%:*}" 30; then
			status=fail why="$why ${p#*:}=hung"
			dump "${p%%:*}" "${p#*:}" >>"$out.diag"
			kill -9 "${p%%:*}"
		fi
	done
	wait "$ppid"
	prc=$?
	wait "$cpid" "$spid"
	[ "$prc" = 0 ] || { status=fail why="$why probe=$prc"; }
	grep -q '^cm RDMA_CM_EVENT_DEVICE_REMOVAL' "$out.probe" ||
		{ status=fail why="$why no-cm-removal"; }
	grep -q '^async IBV_EVENT_DEVICE_FATAL' "$out.probe" ||
		{ status=fail why="$why no-async-fatal"; }
	for f in client server; do
		grep -q 'device removal' "$out.$f" ||
			{ status=fail why="$why rping-$f-saw-no-removal"; }
	done
	echo "@@RDMACM unplug $status $(since "$t0")${why:+ $why}"
	sed "s|^|# unplug probe: |" "$out.probe"
	[ "$status" = ok ] && return
	for f in "$out.diag" "$out.server" "$out.client"; do
		[ -f "$f" ] || continue
		tail -n 30 "$f" | sed "s|^|# unplug ${f##*.}: |"
	done
}
unplug
show_uverbs
