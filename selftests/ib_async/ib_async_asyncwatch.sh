#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The unmodified ibv_asyncwatch (ibverbs-utils) with libibasync preloaded
# prints the events of a link flap and an address change, reading them
# from /dev/infiniband/ib_async*, never from uverbs.
# Functions here also run by name through check, wait_for and trap, calls
# that shellcheck cannot see: it would call their bodies unreachable.
# shellcheck disable=SC2317
cd "$(dirname "$0")" || exit 1
. ./ib_async_lib.sh

[ -n "$(find_node)" ] || skip_all "no ib_async device"
command -v ibv_asyncwatch >/dev/null || skip_all "ibv_asyncwatch not installed"
[ "$(id -u)" = 0 ] || skip_all "needs root"
ip link show "$IB_ASYNC_PEER" >/dev/null 2>&1 || skip_all "no $IB_ASYNC_PEER"
SHIM=${IB_ASYNC_SHIM:-libibasync.so.1}
# the preload must resolve (ld.so only warns when it does not)
LD_PRELOAD=$SHIM /bin/true 2>&1 | grep -q . && skip_all "cannot preload $SHIM"

tmp=$(mktemp -d)
addr=10.11.1.31/32
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	ip link set "$IB_ASYNC_PEER" up
	ip addr del "$addr" dev "$IB_ASYNC_NETDEV" 2>/dev/null
	rm -rf "$tmp"
}
pid=
trap cleanup EXIT

LD_PRELOAD=$SHIM ibv_asyncwatch -d "$IB_ASYNC_IBDEV" > "$tmp/out" 2>&1 &
pid=$!
started() { has_fd_on "$pid" /dev/infiniband/ib_async; }
check "asyncwatch_opens_ib_async_node" wait_for 20 started
if has_fd_on $pid /dev/infiniband/uverbs; then
	not_ok "asyncwatch_has_no_uverbs_fd"
else
	ok "asyncwatch_has_no_uverbs_fd"
fi
# ls -l shows the link targets for the log; nothing parses names here.
# shellcheck disable=SC2012
log "fds: $(ls -l /proc/$pid/fd 2>/dev/null | awk '{print $NF}' | tr '\n' ' ')"

ip link set "$IB_ASYNC_PEER" down
check "asyncwatch_prints_port_err" wait_for 15 file_has "$tmp/out" PORT_ERR
ip link set "$IB_ASYNC_PEER" up
check "asyncwatch_prints_port_active" \
	wait_for 15 file_has "$tmp/out" PORT_ACTIVE
ip addr add $addr dev "$IB_ASYNC_NETDEV"
check "asyncwatch_prints_gid_change" \
	wait_for 15 file_has "$tmp/out" GID_CHANGE
check "asyncwatch_still_running" kill -0 $pid
log "output:"; sed 's/^/#   /' "$tmp/out"

finish
