#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# ib_async_watch and the unmodified rdma-core ibv_asyncwatch (LD_PRELOAD)
# against fake trees (IBASYNC_TEST_ROOT), FIFOs standing in for the nodes.
set -u
WATCH=${WATCH:-./ib_async_watch}
MKREC=${MKREC:-build/plain/bin/mkrec}
FAKE_EVCHAN=${FAKE_EVCHAN:-$(pwd)/build/plain/lib/fake_evchan.so}
SINK=${SINK:-build/plain/bin/journal_sink}
UEVENT=${UEVENT:-build/plain/bin/uevent_send}
LIB=$(pwd)/libibasync.so.1
OBJDUMP=${OBJDUMP:-objdump}
NM=${NM:-nm}
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"

# The watcher runs on the tree's libibasync.so.1, never an installed one.
LD_LIBRARY_PATH="$(pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH

# It is the shared object's client: no verbs call of its own, and
# libibasync.so.1 loaded ahead of libibverbs.so.1, so that the calls both
# define are bound to ours.
needed=$("$OBJDUMP" -p "$WATCH" | awk '$1 == "NEEDED" { print $2 }' | tr '\n' ' ')
case $needed in
*libibasync.so.1*libibverbs.so.1*) r=0 ;;
*) r=1 ;;
esac
ok $r "NEEDED libibasync.so.1 before libibverbs.so.1: $needed"
defs=$("$NM" --defined-only "$WATCH" | awk '$3 ~ /^ibv_/ { print $3 }' | tr '\n' ' ')
[ -z "$defs" ]
ok $? "no ibv_ function linked in${defs:+: $defs}"

TMP=$(mktemp -d /tmp/ibasync-cli.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export IBASYNC_TEST_ROOT="$TMP/root"
mkdir -p "$IBASYNC_TEST_ROOT/dev/infiniband"

"$WATCH" >/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "ib_async module not loaded: .*/sys/class/ib_async missing" "$TMP/err"
ok $? "missing module: exit 1 and says so (rc $rc: $(cat "$TMP/err"))"

C="$IBASYNC_TEST_ROOT/sys/class/ib_async/ib_async0"
mkdir -p "$C" && echo fake0 > "$C/ibdev"
# the uAPI version libibasync speaks, as the module's class reports it
sed -n 's/^#define IB_ASYNC_ABI_VERSION[[:space:]]*//p' \
	"$(dirname "$0")/../../include/uapi/rdma/ib_async.h" \
	> "$IBASYNC_TEST_ROOT/sys/class/ib_async/abi_version"
mkfifo "$IBASYNC_TEST_ROOT/dev/infiniband/ib_async0"
FIFO="$IBASYNC_TEST_ROOT/dev/infiniband/ib_async0"

"$WATCH" -d foo >/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "no such RDMA device: foo" "$TMP/err"
ok $? "unknown device: exit 1, 'no such RDMA device: foo'"
"$WATCH" --help >"$TMP/out" 2>&1; rc=$?
[ $rc = 0 ] && grep -q -- "--timeout" "$TMP/out"
ok $? "--help: exit 0, usage on stdout"
"$WATCH" --bogus >/dev/null 2>&1
ok "$([ $? = 2 ]; echo $?)" "bad option: exit 2"
"$WATCH" -q 8 >/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "cannot set queue length 8" "$TMP/err"
ok $? "-q failure (no ioctl on a FIFO) reported, exit 1"

"$WATCH" --timeout 0.2 >/dev/null 2>&1; rc=$?
ok "$([ $rc = 3 ]; echo $?)" "--timeout without events: exit 3 (rc $rc)"

# text output; the PORT_ACTIVE is filtered out, the overflow always shown
"$WATCH" -d fake0 -t port_err -n 2 >"$TMP/out" 2>"$TMP/err" &
pid=$!
"$MKREC" 9:1:5:1:1:0 0x10000:0:6:3:0:0xffff 10:1:9:1:1:0 10:2:10:1:2:0 > "$FIFO"
wait $pid; rc=$?
ok "$([ $rc = 0 ]; echo $?)" "-n 2: exit 0 after two events (rc $rc $(cat "$TMP/err"))"
sed -n 1p "$TMP/out" | grep -q " fake0 OVERFLOW 3 events lost seq 6-8$"
ok $? "overflow line: $(sed -n 1p "$TMP/out")"
sed -n 2p "$TMP/out" | grep -Eq "^1\.000000009 [0-9T:.-]+Z fake0 port 1 IBV_EVENT_PORT_ERR \(port error\) seq 9$"
ok $? "event line: $(sed -n 2p "$TMP/out")"
[ "$(wc -l < "$TMP/out")" = 3 ] && ! grep -q PORT_ACTIVE "$TMP/out"
ok $? "filter applied, exactly -n events printed"

"$WATCH" --json -n 1 >"$TMP/out" 2>&1 &
pid=$!
"$MKREC" 18:1:42:1:1:0 > "$FIFO"
wait $pid
grep -q '^{"timestamp_ns":1000000042,"time":"[^"]*","device":"fake0","seq":42,"type":"IBV_EVENT_GID_CHANGE","type_num":18,"desc":"GID table change","obj":"port","port":1,"handle":0,"element":1,"count":1}$' "$TMP/out"
ok $? "--json line: $(cat "$TMP/out")"

# --journal: libsystemd writes to /run/systemd/journal/socket, whatever
# runs there; in a mount namespace of its own, journal_sink is journald.
# journal_run N FILE ARGS...: the watcher with ARGS there, journal_sink
# taking N entries into FILE.
journal_run() {
	n=$1 into=$2
	shift 2
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m sh -c '
		mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/journal || exit 9
		"$1" /run/systemd/journal/socket "$2" >"$3" & sink=$!
		i=0
		while [ ! -S /run/systemd/journal/socket ] && [ $i -lt 100 ]; do
			sleep 0.1; i=$((i + 1))
		done
		shift 3
		"$@" || exit
		wait $sink' sh "$SINK" "$n" "$into" "$WATCH" "$@"
}
JOURNAL_OK=
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	JOURNAL_OK=1
	journal_run 3 "$TMP/journal" -d fake0 --journal -n 2 \
		>"$TMP/out" 2>"$TMP/err" &
	pid=$!
	"$MKREC" 10:1:9:1:1:0 0x10000:0:10:3:0:0xffff 1:0x1234:13:1:0:4 > "$FIFO"
	wait $pid; rc=$?
	[ $rc = 0 ] && [ ! -s "$TMP/out" ]
	ok $? "--journal -n 2: exit 0, nothing on stdout (rc $rc: $(cat "$TMP/out" "$TMP/err"))"
	# the entries as journal_sink printed them, one per paragraph
	awk -v RS= 'NR == 1' "$TMP/journal" > "$TMP/j1"
	awk -v RS= 'NR == 2' "$TMP/journal" > "$TMP/j2"
	awk -v RS= 'NR == 3' "$TMP/journal" > "$TMP/j3"
	printf '%s\n' "MESSAGE=fake0 port 1 IBV_EVENT_PORT_ERR (port error) seq 9" \
		"MESSAGE_ID=1fbe00cfb36c48cabbe8b3e25a01a798" "PRIORITY=4" \
		"SYSLOG_IDENTIFIER=ib_async_watch" "IB_ASYNC_DEVICE=fake0" \
		"IB_ASYNC_PORT=1" "IB_ASYNC_EVENT=IBV_EVENT_PORT_ERR" \
		"IB_ASYNC_EVENT_NUM=10" "IB_ASYNC_OBJECT=port" \
		"IB_ASYNC_OBJECT_HANDLE=0" "IB_ASYNC_ELEMENT=1" "IB_ASYNC_SEQ=9" \
		"IB_ASYNC_LOST=0" "IB_ASYNC_TIMESTAMP_NS=1000000009" > "$TMP/want"
	cmp -s "$TMP/want" "$TMP/j1"
	ok $? "journal entry of a port event, every field: $(tr '\n' '|' < "$TMP/j1")"
	printf '%s\n' "MESSAGE=fake0 OVERFLOW 3 events lost seq 10-12" \
		"MESSAGE_ID=dc737a5fcff44675b8216145830ab8ad" "PRIORITY=4" \
		"SYSLOG_IDENTIFIER=ib_async_watch" "IB_ASYNC_DEVICE=fake0" \
		"IB_ASYNC_PORT=0" "IB_ASYNC_EVENT=OVERFLOW" \
		"IB_ASYNC_EVENT_NUM=65536" "IB_ASYNC_OBJECT=none" \
		"IB_ASYNC_OBJECT_HANDLE=0" "IB_ASYNC_ELEMENT=0" "IB_ASYNC_SEQ=10" \
		"IB_ASYNC_LOST=3" "IB_ASYNC_TIMESTAMP_NS=1000000010" > "$TMP/want"
	cmp -s "$TMP/want" "$TMP/j2"
	ok $? "journal entry of lost events, IB_ASYNC_LOST: $(tr '\n' '|' < "$TMP/j2")"
	grep -qx "MESSAGE=fake0 qp handle 0 user_handle 0x1234 IBV_EVENT_QP_FATAL (local work queue catastrophic error) seq 13" "$TMP/j3" &&
		grep -qx "PRIORITY=3" "$TMP/j3" && grep -qx "IB_ASYNC_OBJECT=qp" "$TMP/j3" &&
		grep -qx "IB_ASYNC_ELEMENT=4660" "$TMP/j3" && grep -qx "IB_ASYNC_EVENT_NUM=1" "$TMP/j3"
	ok $? "journal entry of a QP's event: object, element, error priority: $(tr '\n' '|' < "$TMP/j3")"
	# no journald at all, where libsystemd would drop entries silently
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m sh -c 'mount -t tmpfs tmpfs /run && exec "$1" -d fake0 --journal' \
		sh "$WATCH" >/dev/null 2>"$TMP/err"; rc=$?
	[ $rc = 1 ] && grep -q "no journal to send to: /run/systemd/journal/socket: No such file or directory" "$TMP/err"
	ok $? "--journal without a journal socket: exit 1 at start, says so (rc $rc: $(cat "$TMP/err"))"
else
	skip "--journal: needs root and unshare -m for a private /run"
	skip "--journal: overflow entry"
	skip "--journal: QP entry"
	skip "--journal: no journal socket"
fi
# where a journald runs, the entry as journalctl returns it
case $(systemctl is-system-running 2>/dev/null) in
running|degraded)
	"$WATCH" -d fake0 --journal -n 1 >/dev/null 2>"$TMP/err" &
	pid=$!
	"$MKREC" 10:2:77:1:2:0 > "$FIFO"
	wait $pid; rc=$?
	journalctl --sync 2>/dev/null
	journalctl -o export IB_ASYNC_DEVICE=fake0 IB_ASYNC_SEQ=77 \
		_PID=$pid > "$TMP/jx" 2>&1
	[ $rc = 0 ] && grep -qx "IB_ASYNC_EVENT=IBV_EVENT_PORT_ERR" "$TMP/jx" &&
		grep -qx "IB_ASYNC_PORT=2" "$TMP/jx" &&
		grep -qx "IB_ASYNC_TIMESTAMP_NS=1000000077" "$TMP/jx"
	ok $? "--journal through the running journald: journalctl finds the fields (rc $rc $(cat "$TMP/err"))" ;;
*)
	skip "no journald running here (systemctl is-system-running)" ;;
esac

# --metrics: written at start, replaced while running, final at exit;
# fake_evchan.so answers QUERY_PORT (2 ports, state DOWN)
M="$TMP/ib_async.prom"
IBASYNC_FAKE_PORT_STATE=1 LD_PRELOAD="$FAKE_EVCHAN" "$WATCH" -d fake0 \
	--metrics "$M" --timeout 0.2 >/dev/null 2>"$TMP/err"; rc=$?
grep -qx 'ib_async_events_lost_total{device="fake0"} 0' "$M" &&
	grep -qx 'ib_async_port_state{device="fake0",port="2"} 1' "$M" &&
	! grep -q '^ib_async_events_total' "$M" && [ "$(tail -n 1 "$M")" = "# EOF" ]
ok $? "--metrics without events: devices and port states (rc $rc $(cat "$TMP/err"))"
exec 4<>"$FIFO"		# O_RDWR: the node stays open between records
IBASYNC_FAKE_PORT_STATE=4 LD_PRELOAD="$FAKE_EVCHAN" "$WATCH" -d fake0 \
	--metrics "$M" --timeout 5 >"$TMP/out" 2>"$TMP/err" &
pid=$!
"$MKREC" 10:1:5:1:1:0 0x10000:0:6:2:0:0xffff 10:1:8:1:1:0 9:2:9:1:2:0 \
	1:0x1234:10:1:0:4 >&4
i=0
until grep -q 'IBV_EVENT_QP_FATAL' "$M" 2>/dev/null || [ $i -ge 30 ]; do
	sleep 0.1; i=$((i + 1))
done
kill -0 $pid 2>/dev/null && grep -q 'IBV_EVENT_QP_FATAL' "$M"
ok $? "--metrics: the burst's last state written while running, not only at exit"
kill -TERM $pid; wait $pid; rc=$?
grep -v '^#' "$M" | sed 's/^\(ib_async_last_event_timestamp_seconds{device="fake0"}\) [0-9]*\.[0-9]*$/\1 T/' > "$TMP/got"
printf '%s\n' \
	'ib_async_events_total{device="fake0",port="1",event="IBV_EVENT_PORT_ERR"} 2' \
	'ib_async_events_total{device="fake0",port="2",event="IBV_EVENT_PORT_ACTIVE"} 1' \
	'ib_async_events_total{device="fake0",port="0",event="IBV_EVENT_QP_FATAL"} 1' \
	'ib_async_events_lost_total{device="fake0"} 2' \
	'ib_async_last_event_timestamp_seconds{device="fake0"} T' \
	'ib_async_port_state{device="fake0",port="1"} 4' \
	'ib_async_port_state{device="fake0",port="2"} 4' > "$TMP/want"
[ $rc = 0 ] && cmp -s "$TMP/want" "$TMP/got" && [ ! -e "$M.tmp" ] &&
	[ "$(tail -n 1 "$M")" = "# EOF" ] && [ "$(wc -l < "$TMP/out")" = 5 ]
ok $? "--metrics after SIGTERM: counts by port and type, lost, states; lines still printed (rc $rc: $(tr '\n' '|' < "$TMP/got") $(cat "$TMP/err"))"
exec 4>&-
if command -v promtool >/dev/null; then
	promtool check metrics < "$M" >"$TMP/err" 2>&1
	ok $? "promtool check metrics accepts the file: $(cat "$TMP/err")"
else
	skip "promtool not installed (Debian: prometheus)"
fi
"$WATCH" -d fake0 --metrics "$TMP/no/such/dir/f.prom" >/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "cannot write $TMP/no/such/dir/f.prom: No such file or directory" "$TMP/err"
ok $? "--metrics into a missing directory: exit 1 at start, says so (rc $rc: $(cat "$TMP/err"))"

# Event channels. The fake tree's node has no ioctls, so no channels:
# -t alone keeps filtering the node's records here (above); --port and
# --coalesce cannot be met.
for opt in "--port 1" "--coalesce"; do
	# shellcheck disable=SC2086 # the option and its argument
	"$WATCH" -d fake0 $opt --timeout 1 >/dev/null 2>"$TMP/err"; rc=$?
	[ $rc = 1 ] && grep -q "fake0: cannot create an event channel: the ib_async module has none" "$TMP/err"
	ok $? "$opt without kernel event channels: exit 1, says so (rc $rc: $(cat "$TMP/err"))"
done

# With them (fake_evchan.so answers the ioctls, the FIFO $CHAN is the
# channel): subscriptions made, the channel's records printed.
CHAN="$TMP/chan"
mkfifo "$CHAN"
export IBASYNC_FAKE_CHAN="$CHAN" IBASYNC_FAKE_LOG="$TMP/log"
exec 3<>"$CHAN"		# O_RDWR: writes never wait for the watcher
: > "$TMP/log"
"$MKREC" 0x10000:0:1:4:0:0xffff:0:0:0 8:1:5:1:1:0:0:1:1000000005 \
	10:2:6:1:2:0:1:3:1000000099 9:0:7:1:0:0:2:1:1000000007 \
	11:2:8:1:2:0:1:1:1000000008 >&3
LD_PRELOAD="$FAKE_EVCHAN" "$WATCH" -d fake0 --port 2 -p 0 --port 2 \
	-t port_err -t IBV_EVENT_PORT_ACTIVE --coalesce -q 16 -n 2 \
	>"$TMP/out" 2>"$TMP/err"; rc=$?
ok "$([ $rc = 0 ]; echo $?)" "--port --coalesce -t -n 2: exit 0 (rc $rc $(cat "$TMP/err"))"
printf '%s\n' "create type=2 flags=3" "queue_len fd=node len=16" \
	"queue_len fd=chan len=16" \
	"subscribe fd=chan flags=3 port=2 types=0x600 cookie=1" \
	"subscribe fd=chan flags=3 port=0 types=0x600 cookie=2" > "$TMP/want"
sort "$TMP/want" > "$TMP/want.s"
sort "$TMP/log" > "$TMP/log.s"
cmp -s "$TMP/want.s" "$TMP/log.s"
ok $? "one NONBLOCK|COALESCE event channel, -q on it too, a subscription per port: $(tr '\n' '|' < "$TMP/log")"
sed -n 1p "$TMP/out" | grep -q " fake0 OVERFLOW 4 events lost seq 1-4$"
ok $? "channel overflow line: $(sed -n 1p "$TMP/out")"
sed -n 2p "$TMP/out" | grep -q " fake0 port 1 IBV_EVENT_DEVICE_FATAL (local catastrophic error) seq 5 cookie 0$"
ok $? "the stream's end, of no subscription, printed: $(sed -n 2p "$TMP/out")"
sed -n 3p "$TMP/out" | grep -q " fake0 port 2 IBV_EVENT_PORT_ERR (port error) seq 6 cookie 1 occurrences 3 last 1.000000099$"
ok $? "coalesced record: $(sed -n 3p "$TMP/out")"
sed -n 4p "$TMP/out" | grep -q " fake0 port 0 IBV_EVENT_PORT_ACTIVE (port active) seq 7 cookie 2$"
ok $? "second port's record: $(sed -n 4p "$TMP/out")"
[ "$(wc -l < "$TMP/out")" = 4 ]
ok $? "-n 2 counts the subscribed events only: 4 lines"

# -t alone: a channel where the kernel has them; JSON with the channel's fields
: > "$TMP/log"
"$MKREC" 10:1:9:1:1:0:1:2:1000000012 >&3
LD_PRELOAD="$FAKE_EVCHAN" "$WATCH" -d fake0 -t port_err --json -n 1 \
	>"$TMP/out" 2>"$TMP/err"; rc=$?
grep -q '"seq":9,"type":"IBV_EVENT_PORT_ERR","type_num":10,"desc":"port error","obj":"port","port":1,"handle":0,"element":1,"count":1,"cookie":1,"occurrences":2,"last_timestamp_ns":1000000012}$' "$TMP/out" &&
	[ $rc = 0 ]
ok $? "--json on a channel: port, type, cookie, occurrences, last_timestamp_ns: $(cat "$TMP/out" "$TMP/err")"
grep -qx "subscribe fd=chan flags=1 port=0 types=0x400 cookie=1" "$TMP/log" &&
	grep -qx "create type=2 flags=1" "$TMP/log"
ok $? "-t alone: one subscription of the type, no coalescing: $(tr '\n' '|' < "$TMP/log")"

LD_PRELOAD="$FAKE_EVCHAN" "$WATCH" -d fake0 --port 2 -t 21 --timeout 1 \
	>/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "event type 21 cannot be subscribed to (0-20 only)" "$TMP/err"
ok $? "--port with -t 21: exit 1, says so (rc $rc: $(cat "$TMP/err"))"
LD_PRELOAD="$FAKE_EVCHAN" "$WATCH" -d fake0 --port 3 --timeout 1 \
	>/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "no watched device has port 3" "$TMP/err"
ok $? "--port beyond the device's 2: exit 1, says so (rc $rc: $(cat "$TMP/err"))"

# --state: a state channel, each subscription asking for a snapshot, its
# 128-byte records read at their size; state lines do not count for -n
LD_PRELOAD="$FAKE_EVCHAN" "$WATCH" -d fake0 --state --timeout 1 \
	>/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "fake0: cannot create an event channel: the ib_async module has no state records" "$TMP/err"
ok $? "--state without kernel state records: exit 1, says so (rc $rc: $(cat "$TMP/err"))"
: > "$TMP/log"
"$MKREC" S:0:1:2:0:1 S:1:2:4:0:1 S:2:3:1:2:1 +10:2:4:1:2:0:1:1:1000000004 \
	>&3
IBASYNC_FAKE_STATE=1 LD_PRELOAD="$FAKE_EVCHAN" "$WATCH" -d fake0 --state \
	-n 1 >"$TMP/out" 2>"$TMP/err"; rc=$?
grep -qx "create type=2 flags=13" "$TMP/log" &&
	grep -qx "subscribe fd=chan flags=8 port=0 types=0 cookie=1" "$TMP/log"
ok $? "--state: a NONBLOCK|STATE|RESYNC channel, SUB_STATE: $(tr '\n' '|' < "$TMP/log")"
sed -n 1p "$TMP/out" | grep -q " fake0 device STATE ports 2 seq 1 cookie 1$" &&
	sed -n 2p "$TMP/out" | grep -q " fake0 port 1 STATE active phys LINK_UP speed EDR width 4X lid 0 sm_lid 0 gid_valid 2 gid_gen 0 mtu 1024/4096 link Ethernet seq 2 cookie 1$" &&
	sed -n 3p "$TMP/out" | grep -q " fake0 port 2 STATE down .* seq 3 cookie 1 last$" &&
	sed -n 4p "$TMP/out" | grep -q " fake0 port 2 IBV_EVENT_PORT_ERR (port error) seq 4 cookie 1$" &&
	[ "$(wc -l < "$TMP/out")" = 4 ] && [ $rc = 0 ]
ok $? "--state -n 1: the device's and each port's state, then the event (rc $rc: $(tr '\n' '|' < "$TMP/out") $(cat "$TMP/err"))"
"$MKREC" S:1:5:4:1:1 >&3
"$MKREC" +9:1:6:1:1:0:1:1:1000000006 >&3
IBASYNC_FAKE_STATE=1 LD_PRELOAD="$FAKE_EVCHAN" "$WATCH" -d fake0 --state \
	-p 1 --json -n 1 >"$TMP/out" 2>"$TMP/err"; rc=$?
sed -n 1p "$TMP/out" | grep -q '"kind":"state","device":"fake0","seq":5,"type":"STATE","port":1,"cookie":1,"resync":true,"last":false,"state":"active","state_num":4,' &&
	sed -n 2p "$TMP/out" | grep -q '"seq":6,"type":"IBV_EVENT_PORT_ACTIVE"' &&
	grep -qx "subscribe fd=chan flags=10 port=1 types=0 cookie=1" "$TMP/log" &&
	[ $rc = 0 ]
ok $? "--state --port 1 --json: SUB_STATE|SUB_PORT, a resync's state line: (rc $rc: $(tr '\n' '|' < "$TMP/out") $(cat "$TMP/err"))"
# --journal: a state record's entry, with the port's fields
if [ -n "$JOURNAL_OK" ]; then
	"$MKREC" S:1:9:4:2:1 +10:1:10:1:1:0:1:1:1000000010 >&3
	IBASYNC_FAKE_STATE=1 LD_PRELOAD="$FAKE_EVCHAN" journal_run 2 \
		"$TMP/sj" -d fake0 --state --journal -n 1 >/dev/null \
		2>"$TMP/err"; rc=$?
	awk -v RS= 'NR == 1' "$TMP/sj" > "$TMP/j1"
	grep -qx "MESSAGE=fake0 port 1 STATE active phys LINK_UP speed EDR width 4X lid 0 sm_lid 0 gid_valid 2 gid_gen 0 mtu 1024/4096 link Ethernet seq 9 cookie 1 last" "$TMP/j1" &&
		grep -qx "MESSAGE_ID=c034a33948d542e8b720279401ed1f5b" "$TMP/j1" &&
		grep -qx "PRIORITY=6" "$TMP/j1" &&
		grep -qx "IB_ASYNC_EVENT=STATE" "$TMP/j1" &&
		grep -qx "IB_ASYNC_PORT=1" "$TMP/j1" &&
		grep -qx "IB_ASYNC_PORT_STATE=active" "$TMP/j1" &&
		grep -qx "IB_ASYNC_PORT_STATE_NUM=4" "$TMP/j1" &&
		grep -qx "IB_ASYNC_PHYS_STATE=LINK_UP" "$TMP/j1" &&
		grep -qx "IB_ASYNC_ACTIVE_MTU=3" "$TMP/j1" &&
		grep -qx "IB_ASYNC_STATE_LAST=1" "$TMP/j1" &&
		grep -qx "IB_ASYNC_STATE_RESYNC=0" "$TMP/j1" &&
		grep -qx "IB_ASYNC_SEQ=9" "$TMP/j1" && [ $rc = 0 ]
	ok $? "--state --journal: a state entry with the port's fields (rc $rc: $(tr '\n' '|' < "$TMP/j1") $(cat "$TMP/err"))"
else
	skip "--state --journal: needs root and unshare -m for a private /run"
fi

# --metrics: a state record sets its port's gauge (the fake's QUERY_PORT
# says DOWN, 1, for every port: port 1's ACTIVE comes from the record)
"$MKREC" S:1:7:4:0:1 +10:2:8:1:2:0:1:1:1000000008 >&3
IBASYNC_FAKE_STATE=1 IBASYNC_FAKE_PORT_STATE=1 LD_PRELOAD="$FAKE_EVCHAN" \
	"$WATCH" -d fake0 --state --metrics "$M" -n 1 >/dev/null \
	2>"$TMP/err"; rc=$?
grep -qx 'ib_async_port_state{device="fake0",port="1"} 4' "$M" &&
	grep -qx 'ib_async_port_state{device="fake0",port="2"} 1' "$M" &&
	grep -qx 'ib_async_events_total{device="fake0",port="2",event="IBV_EVENT_PORT_ERR"} 1' "$M" &&
	! grep -q 'event="STATE"' "$M" && [ $rc = 0 ]
ok $? "--state --metrics: the record's state in the port's gauge, not counted as an event (rc $rc $(cat "$TMP/err"))"
exec 3>&-
unset IBASYNC_FAKE_CHAN IBASYNC_FAKE_LOG

# --follow: the fake tree's uevent socket stands in for the kernel's
"$WATCH" --follow -d fake0 >/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 2 ] && grep -q -- "--follow watches every device: no --device" "$TMP/err"
ok $? "--follow with -d: usage error, exit 2 (rc $rc: $(cat "$TMP/err"))"

# Wait until file $1 has a line matching $2 (up to 5 s).
wait_line() {
	i=0
	until grep -q -- "$2" "$1" 2>/dev/null || [ $i -ge 50 ]; do
		sleep 0.1; i=$((i + 1))
	done
	grep -q -- "$2" "$1"
}
C1="$IBASYNC_TEST_ROOT/sys/class/ib_async/ib_async1"
FIFO1="$IBASYNC_TEST_ROOT/dev/infiniband/ib_async1"
SOCK="$IBASYNC_TEST_ROOT/uevent"
IBP=/devices/virtual/infiniband
exec 5<>"$FIFO"		# the nodes stay open between records
"$WATCH" --follow --metrics "$M" >"$TMP/out" 2>"$TMP/err" &
pid=$!
wait_line "$TMP/out" " fake0 DEVICE_ADDED node ib_async0$" && [ -S "$SOCK" ]
ok $? "--follow: a device of the start said as added: $(cat "$TMP/out" "$TMP/err")"
mkdir -p "$C1" && echo fake1 > "$C1/ibdev" && mkfifo "$FIFO1"
exec 6<>"$FIFO1"
"$UEVENT" "$SOCK" add@/devices/virtual/ib_async/ib_async1 ACTION=add \
	DEVPATH=/devices/virtual/ib_async/ib_async1 SUBSYSTEM=ib_async \
	DEVNAME=infiniband/ib_async1
wait_line "$TMP/out" " fake1 DEVICE_ADDED node ib_async1$"
ok $? "--follow: a node added later is opened and said"
"$MKREC" 10:1:5:1:1:0 >&6
wait_line "$TMP/out" " fake1 port 1 IBV_EVENT_PORT_ERR (port error) seq 5$"
ok $? "--follow: the added device's events"
"$UEVENT" "$SOCK" move@$IBP/fakeren ACTION=move DEVPATH=$IBP/fakeren \
	SUBSYSTEM=infiniband DEVPATH_OLD=$IBP/fake1
wait_line "$TMP/out" " fakeren DEVICE_RENAMED from fake1$"
ok $? "--follow: a rename (move uevent, DEVPATH_OLD) said"
"$MKREC" 9:1:6:1:1:0 >&6
wait_line "$TMP/out" " fakeren port 1 IBV_EVENT_PORT_ACTIVE (port active) seq 6$" &&
	wait_line "$M" 'device="fakeren"'
ok $? "--follow: events and metrics under the new name"
"$UEVENT" "$SOCK" remove@/devices/virtual/ib_async/ib_async1 ACTION=remove \
	DEVPATH=/devices/virtual/ib_async/ib_async1 SUBSYSTEM=ib_async
wait_line "$TMP/out" " fakeren DEVICE_REMOVED$"
ok $? "--follow: a node removed is said and closed"
i=0
while grep -q 'fakeren' "$M" && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM $pid; wait $pid; rc=$?
sed 's/^[0-9.]* [0-9T:.-]*Z //' "$TMP/out" > "$TMP/got"
printf '%s\n' "fake0 DEVICE_ADDED node ib_async0" \
	"fake1 DEVICE_ADDED node ib_async1" \
	"fake1 port 1 IBV_EVENT_PORT_ERR (port error) seq 5" \
	"fakeren DEVICE_RENAMED from fake1" \
	"fakeren port 1 IBV_EVENT_PORT_ACTIVE (port active) seq 6" \
	"fakeren DEVICE_REMOVED" > "$TMP/want"
[ $rc = 0 ] && cmp -s "$TMP/want" "$TMP/got"
ok $? "--follow: each line once, in order, exit 0 on SIGTERM (rc $rc: $(tr '\n' '|' < "$TMP/got"))"
grep -q 'device="fake0"' "$M" && ! grep -q 'device="fake[1r]' "$M"
ok $? "--follow --metrics: a removed device's series leave the file"
exec 6>&-
rm -rf "$C1" "$FIFO1"
"$WATCH" --follow --json --timeout 0.3 >"$TMP/out" 2>"$TMP/err"; rc=$?
grep -Eqx '\{"timestamp_ns":[0-9]+,"time":"[0-9T:.-]+Z","kind":"device","device":"fake0","type":"DEVICE_ADDED","node":"ib_async0"\}' "$TMP/out" && [ $rc = 3 ]
ok $? "--follow --json: a device object, kind device (rc $rc: $(cat "$TMP/out"))"
# a device line in the journal: its own MESSAGE_ID and fields
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m sh -c '
		mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/journal || exit 9
		"$1" /run/systemd/journal/socket 1 >"$2" & sink=$!
		i=0
		while [ ! -S /run/systemd/journal/socket ] && [ $i -lt 100 ]; do
			sleep 0.1; i=$((i + 1))
		done
		"$3" --follow --journal --timeout 0.3
		wait $sink' sh "$SINK" "$TMP/journal" "$WATCH" \
		>"$TMP/out" 2>"$TMP/err"
	grep -qx "MESSAGE=fake0 DEVICE_ADDED node ib_async0" "$TMP/journal" &&
		grep -qx "MESSAGE_ID=9ce62032b7684f95b32b9b387f72f273" "$TMP/journal" &&
		grep -qx "IB_ASYNC_EVENT=DEVICE_ADDED" "$TMP/journal" &&
		grep -qx "IB_ASYNC_NODE=ib_async0" "$TMP/journal" &&
		grep -qx "IB_ASYNC_DEVICE=fake0" "$TMP/journal" && [ ! -s "$TMP/out" ]
	ok $? "--follow --journal: a device entry with its fields: $(tr '\n' '|' < "$TMP/journal")"
else
	skip "--follow --journal: needs root and unshare -m for a private /run"
fi
exec 5>&-

# the unmodified rdma-core binary, on our implementation
AW=$(command -v ibv_asyncwatch)
if [ -n "$AW" ]; then
	LD_PRELOAD="$LIB" "$AW" -d fake0 >"$TMP/out" 2>&1 &
	pid=$!
	"$MKREC" 10:1:1:1:1:0 9:2:2:1:2:0 short > "$FIFO"
	wait $pid; rc=$?
	grep -q "^fake0: async event FD [0-9]" "$TMP/out" &&
	grep -q "event_type IBV_EVENT_PORT_ERR (10), port 1$" "$TMP/out" &&
	grep -q "event_type IBV_EVENT_PORT_ACTIVE (9), port 2$" "$TMP/out" &&
	[ $rc = 1 ]
	ok $? "LD_PRELOAD ibv_asyncwatch prints our events, exits on error: $(tr '\n' '|' < "$TMP/out")"
else
	skip "ibv_asyncwatch not installed"
fi
tap_done
