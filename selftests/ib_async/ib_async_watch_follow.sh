#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ib_async_watch --follow: an rxe link added after the watcher started is
# opened and said, its port events printed, its rename and its removal
# said, each once and in order; the same for an evsrc device unplugged
# (where the evsrc module is loaded). The watcher outlives them all.
# Functions here also run by name through check and wait_for, calls
# that shellcheck cannot see: it would call their bodies unreachable.
# shellcheck disable=SC2317
cd "$(dirname "$0")" || exit 1
. ./ib_async_lib.sh

[ -d /sys/class/ib_async ] || skip_all "ib_async not loaded"
command -v ib_async_watch >/dev/null || skip_all "ib_async_watch not installed"
command -v rdma >/dev/null || skip_all "no rdma tool (iproute2)"
[ "$(id -u)" = 0 ] || skip_all "needs root"
ib_async_watch --help | grep -q -- --follow || skip_all "ib_async_watch has no --follow"

NET=veth2 PEER=veth3 DEV=rxef1 NEW=rxefoo EVDEV=evsrcfw
EVSRC=/sys/kernel/debug/ib_async_evsrc
tmp=$(mktemp -d)
cleanup() {
	[ -z "${pid:-}" ] || kill "$pid" 2>/dev/null
	[ -z "${mon:-}" ] || kill "$mon" 2>/dev/null
	rdma link delete "$NEW" 2>/dev/null
	rdma link delete "$DEV" 2>/dev/null
	ip link del "$NET" 2>/dev/null
	[ ! -d "$EVSRC/$EVDEV" ] || echo 1 > "$EVSRC/$EVDEV/unregister"
	rm -rf "$tmp"
}
trap cleanup EXIT

port_active() {
	[ "$(cat "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null)" = "4: ACTIVE" ]
}
# a line of the watcher's, without its two times
has() { sed 's/^[0-9.]* [^ ]* //' "$tmp/out" | grep -qx -- "$1"; }
# how often a line (as has()) was printed
count_of() { sed 's/^[0-9.]* [^ ]* //' "$tmp/out" | grep -cx -- "$1"; }
# the line number of the first line matching $1 (as has()); 0 if none
at() {
	n=$(sed 's/^[0-9.]* [^ ]* //' "$tmp/out" | grep -nx -- "$1" | head -n 1)
	echo "${n%%:*}" | sed 's/^$/0/'
}

# What the kernel says over uevents, for the log (udevadm needs no udevd).
if command -v udevadm >/dev/null; then
	udevadm monitor --kernel --property > "$tmp/uevents" 2>&1 &
	mon=$!
fi

ib_async_watch --follow > "$tmp/out" 2> "$tmp/err" &
pid=$!
# every device of the start said: the watcher listens from then on
wait_for 20 sh -c "grep -q DEVICE_ADDED '$tmp/out'"
check "follow_says_devices_of_start" grep -q " DEVICE_ADDED node ib_async" "$tmp/out"

# 1. an rxe link added after the start
ip link add "$NET" type veth peer name "$PEER" && ip link set "$NET" up &&
	ip link set "$PEER" up
rdma link add "$DEV" type rxe netdev "$NET"
wait_for 20 has "$DEV DEVICE_ADDED node ib_async[0-9]*"
check "follow_rxe_link_added" has "$DEV DEVICE_ADDED node ib_async[0-9]*"

# 2. its port events
wait_for 20 port_active "$DEV"
ip link set "$PEER" down
wait_for 15 has "$DEV port 1 IBV_EVENT_PORT_ERR (port error) seq [0-9]*"
ip link set "$PEER" up
wait_for 15 has "$DEV port 1 IBV_EVENT_PORT_ACTIVE (port active) seq [0-9]*"
check "follow_added_port_err" has "$DEV port 1 IBV_EVENT_PORT_ERR (port error) seq [0-9]*"
check "follow_added_port_active" has "$DEV port 1 IBV_EVENT_PORT_ACTIVE (port active) seq [0-9]*"

# 3. its rename
rdma dev set "$DEV" name "$NEW"
wait_for 15 has "$NEW DEVICE_RENAMED from $DEV"
check "follow_rename" has "$NEW DEVICE_RENAMED from $DEV"
ip link set "$PEER" down
wait_for 15 has "$NEW port 1 IBV_EVENT_PORT_ERR (port error) seq [0-9]*"
ip link set "$PEER" up
check "follow_events_under_new_name" has "$NEW port 1 IBV_EVENT_PORT_ERR (port error) seq [0-9]*"

# 4. its removal
rdma link delete "$NEW"
wait_for 15 has "$NEW DEVICE_REMOVED"
check "follow_link_delete" has "$NEW DEVICE_REMOVED"

# 5. netdev changes: only RDMA netlink's monitor (6.13 and later) tells them
kver=$(uname -r)
kmaj=${kver%%.*} kmin=${kver#*.}
kmin=${kmin%%[!0-9]*}
if [ "$kmaj" -gt 6 ] || { [ "$kmaj" -eq 6 ] && [ "$kmin" -ge 13 ]; }; then
	check "follow_netdev_attached" grep -q " NETDEV_ATTACHED $NET port 1$" "$tmp/out"
else
	ok "follow_netdev_attached # SKIP $kver has no RDMA netlink monitor"
fi

# 6. an evsrc device, added and unplugged
if load_module ib_async_evsrc 2>/dev/null && [ -d "$EVSRC" ]; then
	echo "$EVDEV" > "$EVSRC/add"
	wait_for 15 has "$EVDEV DEVICE_ADDED node ib_async[0-9]*"
	echo "SM_CHANGE port:1" > "$EVSRC/$EVDEV/raise"
	wait_for 15 has "$EVDEV port 1 IBV_EVENT_SM_CHANGE .* seq [0-9]*"
	echo 1 > "$EVSRC/$EVDEV/unregister"
	wait_for 15 has "$EVDEV DEVICE_REMOVED"
	check "follow_evsrc_added" has "$EVDEV DEVICE_ADDED node ib_async[0-9]*"
	check "follow_evsrc_event" has "$EVDEV port 1 IBV_EVENT_SM_CHANGE .* seq [0-9]*"
	check "follow_evsrc_unplug" has "$EVDEV DEVICE_REMOVED"
else
	ok "follow_evsrc_added # SKIP no evsrc module"
	ok "follow_evsrc_event # SKIP no evsrc module"
	ok "follow_evsrc_unplug # SKIP no evsrc module"
fi

# each device line once, in order; the watcher still runs
once=1
for l in "$DEV DEVICE_ADDED node ib_async[0-9]*" "$NEW DEVICE_RENAMED from $DEV" \
	 "$NEW DEVICE_REMOVED"; do
	[ "$(count_of "$l")" -eq 1 ] || { log "not once: $l"; once=0; }
done
check "follow_device_lines_once" [ "$once" -eq 1 ]
a=$(at "$DEV DEVICE_ADDED node ib_async[0-9]*")
e=$(at "$DEV port 1 IBV_EVENT_PORT_ERR (port error) seq [0-9]*")
r=$(at "$NEW DEVICE_RENAMED from $DEV")
d=$(at "$NEW DEVICE_REMOVED")
log "lines: added $a, port_err $e, renamed $r, removed $d"
in_order() { [ "$a" -gt 0 ] && [ "$a" -lt "$e" ] && [ "$e" -lt "$r" ] &&
	[ "$r" -lt "$d" ]; }
check "follow_lines_in_order" in_order
check "follow_outlives_devices" kill -0 "$pid"
kill -TERM "$pid"
wait "$pid"
st=$?
pid=
check "follow_sigterm_exits_0" [ "$st" -eq 0 ]
log "output:"; sed 's/^/#   /' "$tmp/out" "$tmp/err"
if [ -n "${mon:-}" ]; then
	kill "$mon" 2>/dev/null; wait "$mon" 2>/dev/null; mon=
	log "uevents (ib_async, infiniband):"
	awk -v RS= '/SUBSYSTEM=(ib_async|infiniband)/' "$tmp/uevents" |
		grep -E '^(ACTION|DEVPATH|DEVPATH_OLD|SUBSYSTEM)=' | sed 's/^/#   /'
fi
finish
