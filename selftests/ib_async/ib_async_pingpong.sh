#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rdma-core's own example programs (ibverbs-utils), unmodified and built
# against libibverbs, run as two processes with libibasync preloaded:
# RC, UC, UD (through an AH) and SRQ SEND/RECV traffic, every received
# buffer checked by the programs themselves (-c), every completion status
# too, polling and (-e) sleeping on a completion channel.
#
# /dev/infiniband is overlaid with the ib_async nodes alone, so a program
# that went to uverbs could not open the device at all; the same command
# without the preload must fail, which proves the traffic went through
# ib_async. Afterwards the device has no QP more than before.
# Functions here also run by name through check, wait_for and trap, calls
# that shellcheck cannot see: it would call their bodies unreachable.
# shellcheck disable=SC2317
cd "$(dirname "$0")" || exit 1
. ./ib_async_lib.sh

shim_only_begin ibv_rc_pingpong
ITERS=${IB_ASYNC_PP_ITERS:-20}
G=$(roce_gid_index "$IB_ASYNC_IBDEV")

# pair NAME PORT PRELOAD PROGRAM ARGS...: server and client; 0 if both
# exited 0 after $ITERS iterations. Output in $tmp/NAME.{server,client}.
pair() {
	pname=$1 port=$2 pre=$3; shift 3
	LD_PRELOAD=$pre timeout 60 "$@" -d "$IB_ASYNC_IBDEV" -g "$G" -p "$port" \
		-n "$ITERS" > "$tmp/$pname.server" 2>&1 &
	spid=$!
	if ! wait_for 15 tcp_listening "$port"; then
		wait "$spid"
		log "$pname: server did not listen (exit $?):"
		sed 's/^/#   /' "$tmp/$pname.server"
		return 1
	fi
	LD_PRELOAD=$pre timeout 60 "$@" -d "$IB_ASYNC_IBDEV" -g "$G" -p "$port" \
		-n "$ITERS" 127.0.0.1 > "$tmp/$pname.client" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	log "$pname: server exit $src, client exit $crc"
	sed 's/^/#   /' "$tmp/$pname.server" "$tmp/$pname.client"
	[ "$src" = 0 ] && [ "$crc" = 0 ] &&
		grep -q "^$ITERS iters" "$tmp/$pname.server" &&
		grep -q "^$ITERS iters" "$tmp/$pname.client"
}

# Negative control: libibverbs alone finds no usable node here.
LD_PRELOAD='' timeout 20 ibv_rc_pingpong -d "$IB_ASYNC_IBDEV" -g "$G" \
	-p 18600 > "$tmp/ctl" 2>&1
rc=$?
log "without the shim: exit $rc: $(head -2 "$tmp/ctl" | tr '\n' ' ')"
check "without_the_shim_the_program_cannot_run" \
	test $rc != 0 -a $rc != 124

check "rc_pingpong_two_processes_payload_checked" \
	pair rc 18601 "$SHIM" ibv_rc_pingpong -c -s 16384
check "ud_pingpong_two_processes_through_an_ah" \
	pair ud 18602 "$SHIM" ibv_ud_pingpong -c
check "srq_pingpong_four_qps_each_on_one_srq" \
	pair srq 18603 "$SHIM" ibv_srq_pingpong -c -q 4

# The same programs sleeping on a completion channel (-e): arm, wait in
# ibv_get_cq_event(), ack, poll, every iteration.
check "rc_pingpong_events_mode" \
	pair rc_e 18605 "$SHIM" ibv_rc_pingpong -e -c -s 4096
check "ud_pingpong_events_mode" \
	pair ud_e 18606 "$SHIM" ibv_ud_pingpong -e -c
check "srq_pingpong_events_mode" \
	pair srq_e 18607 "$SHIM" ibv_srq_pingpong -e -c -q 4

# UC (the shim offers it where the node posts over registered memory):
# the same two-process SEND/RECV, payload checked, polling and sleeping.
check "uc_pingpong_two_processes_payload_checked" \
	pair uc 18604 "$SHIM" ibv_uc_pingpong -c -s 4096
check "uc_pingpong_events_mode" \
	pair uc_e 18608 "$SHIM" ibv_uc_pingpong -e -c -s 4096

shim_only_end
