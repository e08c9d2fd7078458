#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The C that gen/rdma_fuzzing_async.py's GetAsyncEvent and AckAsyncEvent
# generate for another project's generator (liuyi-thu/rdma-fuzzing), for
# every combination of their mutable fields (ib_async_upstream_async, built
# by gen/upstream.mk), run with real events on both stacks in one boot:
# first rdma-core's provider over ib_uverbs, then libibasync preloaded with
# /dev/infiniband overlaid with the ib_async nodes alone (as
# ib_async_devinfo.sh does). Each run flaps the peer link (PORT_ERR,
# PORT_ACTIVE), overruns a CQ with a QP's flush (CQ_ERR) and drains a UD
# QP's SQ (SQ_DRAINED) for each combination, and checks every event read
# is acked once (upstream_rt.h): its lines come here prefixed with the
# stack.
# cleanup runs from the trap, which shellcheck cannot see: it would call
# its body unreachable.
# shellcheck disable=SC2317
cd "$(dirname "$0")" || exit 1
# shellcheck source=SCRIPTDIR/../ib_async_lib.sh
. ./ib_async_lib.sh

[ -x ./ib_async_upstream_async ] || skip_all "ib_async_upstream_async not built"
[ "$(id -u)" = 0 ] || skip_all "needs root"
[ -n "$(find_node)" ] || skip_all "no ib_async device"
[ -e /dev/infiniband/uverbs0 ] || skip_all "no ib_uverbs node to compare with"
ip link show "$IB_ASYNC_PEER" >/dev/null 2>&1 || skip_all "no $IB_ASYNC_PEER"
SHIM=${IB_ASYNC_SHIM:-libibasync.so.1}
LD_PRELOAD=$SHIM /bin/true 2>&1 | grep -q . && skip_all "cannot preload $SHIM"
tmp=$(mktemp -d)
mounted=
cleanup() {
	[ -n "$mounted" ] && show_uverbs
	ip link set "$IB_ASYNC_PEER" up
	rm -rf "$tmp"
}
trap cleanup EXIT

# run STACK PRELOAD: the program on one stack, its TAP lines as ours
run() {
	LD_PRELOAD=$2 IB_ASYNC_IBDEV=$IB_ASYNC_IBDEV timeout 280 \
		./ib_async_upstream_async "$IB_ASYNC_PEER" >"$tmp/out.$1" 2>"$tmp/err.$1"
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "$1: ${line#* - }" ;;
		"not ok "*) not_ok "$1: ${line#* - }" ;;
		"# "*) log "$1: ${line#\# }" ;;
		esac
	done <"$tmp/out.$1"
	[ "$rc" = 0 ] || sed "s/^/# $1 stderr: /" "$tmp/err.$1" | tail -n 40
	check "$1: program exited 0 (status $rc) after its plan" \
		exited_ok "$rc" "$tmp/out.$1"
}
# exited_ok STATUS OUTPUT: 0 and a plan printed (the program ran through)
exited_ok() { [ "$1" = 0 ] && grep -q '^1\.\.[0-9]' "$2"; }

run uverbs ''
hide_uverbs "$tmp/dev" && mounted=1
check "uverbs_nodes_hidden" test -n "$mounted"
[ -n "$mounted" ] && run ibasync "$SHIM"
[ -n "$mounted" ] && show_uverbs && mounted=
finish
