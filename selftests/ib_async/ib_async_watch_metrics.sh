#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ib_async_watch --metrics through a real link flap: the file's counts
# equal the events the same watcher printed, and its port state gauge
# follows the port (DOWN, then ACTIVE), written while the watcher runs.
# Functions here also run by name through check and wait_for, calls
# that shellcheck cannot see: it would call their bodies unreachable.
# shellcheck disable=SC2317
cd "$(dirname "$0")" || exit 1
. ./ib_async_lib.sh

watch_begin
M=$tmp/ib_async.prom
dev=$IB_ASYNC_IBDEV

# port_state_is N: the file's gauge of port 1 says N (enum ibv_port_state)
port_state_is() {
	grep -qx "ib_async_port_state{device=\"$dev\",port=\"1\"} $1" "$M" 2>/dev/null
}

start=$(date +%s)
ib_async_watch -d "$dev" --metrics "$M" > "$tmp/lines" 2> "$tmp/err" &
pid=$!
wait_for 20 watch_started $pid || log "watch did not open the device"
wait_for 10 test -s "$M"
check "metrics_written_at_start" test -s "$M"
check "metrics_port_active_at_start" port_state_is 4
check "metrics_no_loss_at_start" \
	grep -qx "ib_async_events_lost_total{device=\"$dev\"} 0" "$M"

ip link set "$IB_ASYNC_PEER" down
wait_for 15 file_has "$tmp/lines" PORT_ERR
# the gauge of the port event's query, written by the once-a-second timer
check "metrics_port_down_after_port_err" wait_for 10 port_state_is 1
ip link set "$IB_ASYNC_PEER" up
wait_for 30 file_has "$tmp/lines" PORT_ACTIVE
check "metrics_port_active_after_port_active" wait_for 10 port_state_is 4
kill -TERM $pid
wait $pid
st=$?
log "exit $st; lines:"; sed 's/^/#   /' "$tmp/lines" "$tmp/err"
log "metrics file:"; sed 's/^/#   /' "$M"
check "watch_metrics_sigterm_exits_0" [ "$st" -eq 0 ]
check "metrics_no_tmp_left" [ ! -e "$M.tmp" ]
check "metrics_ends_with_eof" [ "$(tail -n 1 "$M")" = "# EOF" ]

# "PORT EVENT COUNT" of the printed lines and of the file, compared
awk -v d="$dev" '$3 == d && $4 == "port" { n[$5 " " $6]++ }
	END { for (k in n) print k, n[k] }' "$tmp/lines" | sort > "$tmp/printed"
sed -n "s/^ib_async_events_total{device=\"$dev\",port=\"\([0-9]*\)\",event=\"\([A-Z_0-9]*\)\"} \([0-9]*\)$/\1 \2 \3/p" \
	"$M" | sort > "$tmp/counted"
log "printed: $(tr '\n' '|' < "$tmp/printed") counted: $(tr '\n' '|' < "$tmp/counted")"
check "metrics_counts_equal_printed_events" cmp -s "$tmp/printed" "$tmp/counted"
check "metrics_counted_port_err" grep -q "^1 IBV_EVENT_PORT_ERR [1-9]" "$tmp/counted"
check "metrics_counted_port_active" grep -q "^1 IBV_EVENT_PORT_ACTIVE [1-9]" "$tmp/counted"
lost=$(awk -v d="$dev" '$3 == d && $4 == "OVERFLOW" { n += $5 } END { print n + 0 }' "$tmp/lines")
check "metrics_lost_equals_overflow_lines" \
	grep -qx "ib_async_events_lost_total{device=\"$dev\"} $lost" "$M"
# the last event's UTC time: since the watcher started, not in the future
last=$(sed -n "s/^ib_async_last_event_timestamp_seconds{device=\"$dev\"} \([0-9]*\)\.[0-9]*$/\1/p" "$M")
now=$(date +%s)
log "last event $last, watcher started $start, now $now"
in_run() { [ -n "$last" ] && [ "$last" -ge "$start" ] && [ "$last" -le "$now" ]; }
check "metrics_last_event_time" in_run

finish
