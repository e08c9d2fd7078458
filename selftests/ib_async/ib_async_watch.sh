#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ib_async_watch (user/): events from a link flap, --json output, a missing
# device, --timeout, --port through a kernel subscription, --state's line
# per port against ibv_devinfo.
# Functions here also run by name through check, wait_for and trap, calls
# that shellcheck cannot see: it would call their bodies unreachable.
# shellcheck disable=SC2317
cd "$(dirname "$0")" || exit 1
. ./ib_async_lib.sh

watch_begin

# 1. --count 2 over a link flap: PORT_ERR then PORT_ACTIVE
ib_async_watch -d "$IB_ASYNC_IBDEV" -t PORT_ERR -t PORT_ACTIVE --count 2 \
	--timeout 40 > "$tmp/flap" 2> "$tmp/flap.err" &
pid=$!
wait_for 20 watch_started $pid || log "watch did not open the device"
ip link set "$IB_ASYNC_PEER" down
wait_for 15 file_has "$tmp/flap" PORT_ERR
ip link set "$IB_ASYNC_PEER" up
wait $pid
st=$?
log "exit $st; output:"; sed 's/^/#   /' "$tmp/flap" "$tmp/flap.err"
check "watch_count_2_exits_0" [ "$st" -eq 0 ]
check "watch_prints_2_lines" [ "$(wc -l < "$tmp/flap")" -eq 2 ]
check "watch_first_line_port_err" sh -c "head -n1 '$tmp/flap' | grep -q PORT_ERR"
# linkwatch may repeat PORT_ERR; then the second line is that repeat
if sed -n 2p "$tmp/flap" | grep -q PORT_ACTIVE; then
	ok "watch_second_line_port_active"
elif sed -n 2p "$tmp/flap" | grep -q PORT_ERR; then
	ok "watch_second_line_port_active # SKIP duplicate PORT_ERR came first"
else
	not_ok "watch_second_line_port_active"
fi

# 2. --json: one object per line with the documented fields
ib_async_watch -d "$IB_ASYNC_IBDEV" -t PORT_ERR --count 1 --json \
	--timeout 40 > "$tmp/json" 2>&1 &
pid=$!
wait_for 20 watch_started $pid
ip link set "$IB_ASYNC_PEER" down
wait $pid
st=$?
ip link set "$IB_ASYNC_PEER" up
log "json: $(cat "$tmp/json")"
check "watch_json_exits_0" [ "$st" -eq 0 ]
json_ok=1
for field in '^{' '}$' '"timestamp_ns":[0-9]' '"device":"'"$IB_ASYNC_IBDEV"'"' \
	     '"seq":[0-9]' '"type":"[A-Z_]*PORT_ERR"' '"type_num":10' \
	     '"port":1' '"element":1' '"count":1'; do
	grep -q "$field" "$tmp/json" || { log "json lacks $field"; json_ok=0; }
done
check "watch_json_fields" [ "$json_ok" -eq 1 ]

# 3. an unknown device: non-zero exit and a message naming it
ib_async_watch -d nosuch --count 1 --timeout 5 > "$tmp/nosuch" 2>&1
st=$?
log "nosuch: exit $st: $(cat "$tmp/nosuch")"
check "watch_unknown_device_fails" [ "$st" -ne 0 ]
check "watch_unknown_device_message" grep -q nosuch "$tmp/nosuch"

# 4. --timeout without the wanted events: status 3 (ib_async_watch(1))
ib_async_watch -d "$IB_ASYNC_IBDEV" -t LID_CHANGE --count 1 --timeout 2 \
	> /dev/null 2>&1
st=$?
check "watch_timeout_exits_3" [ "$st" -eq 3 ]

# 5. --port 2 on the two-port test device: the kernel subscription the
# watcher makes lets only port 2's events through, each with its cookie
EVSRC=/sys/kernel/debug/ib_async_evsrc
# the subscription is in place once the channel's fdinfo lists it
subscribed() {
	for f in /proc/"$1"/fd/*; do
		case $(readlink "$f" 2>/dev/null) in
		*ib_async_event*)
			grep -q "^ib_async-subscriptions:.1$" \
				"/proc/$1/fdinfo/${f##*/}" && return 0 ;;
		esac
	done
	return 1
}
if load_module ib_async_evsrc &&
	{ [ -d $EVSRC/evsrc0 ] || echo evsrc0 > $EVSRC/add; } &&
	wait_for 10 test -d $EVSRC/evsrc0; then
	ib_async_watch -d evsrc0 --port 2 --json --count 2 --timeout 30 \
		> "$tmp/port2" 2>&1 &
	pid=$!
	wait_for 20 subscribed $pid || log "watch did not subscribe"
	echo "SM_CHANGE port:1" > $EVSRC/evsrc0/raise
	echo "LID_CHANGE port:2" > $EVSRC/evsrc0/raise
	echo "SM_CHANGE port:1 process 3" > $EVSRC/evsrc0/raise
	echo "SM_CHANGE port:2" > $EVSRC/evsrc0/raise
	wait $pid
	st=$?
	log "port 2: exit $st: $(cat "$tmp/port2")"
	check "watch_port_exits_0" [ "$st" -eq 0 ]
	check "watch_port_2_lines" [ "$(grep -c '"port":2' "$tmp/port2")" -eq 2 ]
	check "watch_port_no_port_1" [ "$(grep -c '"port":1' "$tmp/port2")" -eq 0 ]
	check "watch_port_in_order" sh -c "head -n1 '$tmp/port2' | grep -q LID_CHANGE"
	check "watch_port_cookie" grep -q '"cookie":1' "$tmp/port2"
else
	ok "watch_port # SKIP no evsrc0 test device"
fi

# 6. --state: before any event, a line for the device and one per port,
# each port's state, physical state and MTUs as ibv_devinfo reports them
# (ibv_devinfo's PORT_ACTIVE is ibv_port_state_str()'s "active")
# devinfo_field PORT FIELD: the word after "FIELD:" for port PORT (-v:
# phys_state is verbose output's)
devinfo_field() {
	ibv_devinfo -v -d "$IB_ASYNC_IBDEV" -i "$1" 2>/dev/null |
		awk -v f="$2:" '$1 == f { print $2; exit }'
}
if command -v ibv_devinfo >/dev/null; then
	ib_async_watch -d "$IB_ASYNC_IBDEV" --state --timeout 3 \
		> "$tmp/state" 2> "$tmp/state.err"
	st=$?
	log "state: exit $st:"; sed 's/^/#   /' "$tmp/state" "$tmp/state.err"
	nports=$(ibv_devinfo -d "$IB_ASYNC_IBDEV" | grep -c '^[[:space:]]*port:')
	# state lines are not events: --timeout with none seen is status 3
	want_st=3
	grep -qv ' STATE ' "$tmp/state" && want_st=0
	check "watch_state_timeout_status" [ "$st" -eq "$want_st" ]
	check "watch_state_device_line" \
		grep -q " $IB_ASYNC_IBDEV device STATE ports $nports seq 1 cookie 1\$" \
		"$tmp/state"
	check "watch_state_one_line_per_port" \
		[ "$(grep -c " $IB_ASYNC_IBDEV port [0-9]* STATE " "$tmp/state")" -eq "$nports" ]
	state_ok=1
	p=1
	while [ "$p" -le "$nports" ]; do
		want=$(devinfo_field "$p" state | sed 's/^PORT_//' | tr '[:upper:]' '[:lower:]')
		phys=$(devinfo_field "$p" phys_state)
		amtu=$(devinfo_field "$p" active_mtu)
		mmtu=$(devinfo_field "$p" max_mtu)
		line=$(grep " $IB_ASYNC_IBDEV port $p STATE " "$tmp/state")
		case $line in
		*" STATE $want phys $phys "*" mtu $amtu/$mmtu "*) ;;
		*) log "port $p: ibv_devinfo says $want $phys $amtu/$mmtu: $line"
		   state_ok=0 ;;
		esac
		p=$((p + 1))
	done
	check "watch_state_matches_ibv_devinfo" [ "$state_ok" -eq 1 ]
	check "watch_state_last_line_last" \
		sh -c "grep ' STATE ' '$tmp/state' | tail -n 1 | grep -q ' last\$'"
else
	ok "watch_state # SKIP ibv_devinfo not installed"
fi

finish
