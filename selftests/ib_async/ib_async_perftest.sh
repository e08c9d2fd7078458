#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Debian's perftest tools, unmodified and built against libibverbs, run as
# two processes with libibasync preloaded and /dev/infiniband overlaid with
# the ib_async nodes alone (as ib_async_pingpong.sh does): SEND, RDMA
# WRITE, RDMA READ and atomic bandwidth, and SEND, WRITE, READ and atomic
# latency, on RC QPs over user memory registered with the device.
#
# Each tool must exit 0 on both sides (perftest fails on any completion
# with an error status or missing) and its client must report a result
# row for the iterations asked. Its figures are logged, not judged: make
# bench compares them with ib_uverbs, and perftest's own frequency sample
# can fail under TCG and print 0. Afterwards the device has no QP more
# than before.
# Functions here also run by name through check, which shellcheck cannot
# see: it would call their bodies unreachable.
# shellcheck disable=SC2317
cd "$(dirname "$0")" || exit 1
. ./ib_async_lib.sh

shim_only_begin ib_send_bw
ITERS=${IB_ASYNC_PERF_ITERS:-200}

# tool NAME PORT TOOL ARGS...: TOOL over the shim
tool() {
	tname=$1 tport=$2
	shift 2
	perftest_pair "$tmp" "$tname" "$tport" "$SHIM" "$@" -n "$ITERS"
	trc=$?
	row=$(perftest_row "$tmp/$tname.client")
	log "$tname: exit $trc, row: $row"
	if [ "$trc" != 0 ] || [ -z "$row" ]; then
		sed 's/^/#   /' "$tmp/$tname.server" "$tmp/$tname.client"
		return 1
	fi
	echo "$row" | awk -v n="$ITERS" '{ exit !($2 == n) }'
}

check "send_bw_over_the_shim" tool send_bw 18701 ib_send_bw -s 4096
check "write_bw_over_the_shim" tool write_bw 18702 ib_write_bw -s 4096
check "read_bw_over_the_shim" tool read_bw 18703 ib_read_bw -s 4096
check "atomic_bw_fetch_and_add_over_the_shim" tool atomic_bw 18704 \
	ib_atomic_bw -A FETCH_AND_ADD
check "atomic_bw_cmp_and_swap_over_the_shim" tool atomic_cas_bw 18705 \
	ib_atomic_bw -A CMP_AND_SWAP
check "send_lat_over_the_shim" tool send_lat 18706 ib_send_lat -s 64
check "write_lat_over_the_shim" tool write_lat 18707 ib_write_lat -s 64
check "read_lat_over_the_shim" tool read_lat 18708 ib_read_lat -s 64
check "atomic_lat_over_the_shim" tool atomic_lat 18709 ib_atomic_lat

# Negative control: the same tool without the shim finds no usable node.
LD_PRELOAD='' timeout 20 ib_send_bw -d "$IB_ASYNC_IBDEV" -p 18710 -F \
	>"$tmp/ctl" 2>&1
rc=$?
log "without the shim: exit $rc: $(head -2 "$tmp/ctl" | tr '\n' ' ')"
check "without_the_shim_the_tool_cannot_run" test $rc != 0 -a $rc != 124

shim_only_end
